"""The assessment model: the numbers of a risk or utility assessment as one plain dictionary.

Built here, once, from the measures' results -- :class:`~pysdc.problem.ProblemRisk` and
:class:`~pysdc.problem.ProblemUtility` (pandas, one number per record) or an engine's results
(DuckDB, Spark: one row per key combination with its record count) -- in the documented JSON
formats ``pysdc-risk-1`` and ``pysdc-utility-1`` (docs/json.md). The renderers of
:mod:`pysdc.report` (text, JSON, Markdown, HTML) only format it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._format import jsonable
from .._registry import assessed
from .._summaries import counted_quantile, global_section, household_section, k_anonymity
from .._version import __version__
from ..core.dutility import CELLWISE_METHODS
from ..core.freq import r_round
from ..report._info import LINKAGE_INFO, LINKAGE_MEASURES, LITERATURE_INFO, MEASURE_INFO
from ._spec import D_UTILITY_METHODS, K_ANON_KS

__all__ = ["RISK_BINS", "QUANTILES", "SUDA_QUANTILES", "RISK_PROVENANCE", "risk_distribution", "risk_model",
           "engine_risk_model", "engine_linkage", "utility_model", "engine_utility_model", "measure_entry", "per_variable"]

#: bins of the individual-risk histogram (the last one closed: [0.5, 1])
RISK_BINS = (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)
#: quantiles of the DIS-SUDA scores
SUDA_QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99, 1.0)

RISK_PROVENANCE = {
    "global": "sdcMicro's measure_risk", "household": "sdcMicro's measure_risk",
    "k_anonymity": "pysdc, from sdcMicro's fk",
    "k_anonymity.violations": "sdcMicro's kAnon_violations",
    "individual_risk": "pysdc's summary of sdcMicro's individual risks",
    "top": "pysdc's selection of sdcMicro's individual risks",
    "suda2.attribute_contributions": "sdcMicro's suda2 (attribute_contributions)",
    "suda2.dis_score": "pysdc's summary (quantiles, shares) of sdcMicro's suda2 DIS-SUDA scores",
    "suda2.top": "pysdc's selection of sdcMicro's suda2 scores",
    "distance.d_risk": "sdcMicro's dRisk",
    "distance.d_risk_rmd": "sdcMicro's dRiskRMD (its MCD draws random subsets: pysdc's draw, fixed by "
                           "--random-state, not R's)",
    **{f"linkage.{name}": info[0] + ("" if LINKAGE_MEASURES[name].r else " (pysdc; no sdcMicro counterpart)")
       for name, info in LINKAGE_INFO.items()},
}


# =============================================================================
# risk


def risk_distribution(risk: np.ndarray, counts: np.ndarray | None = None) -> dict:
    """Mean, quantiles (type 7) and bins of the individual risks; ``counts``: each risk stands for that many
    records (an engine's combination table), so the numbers are those of the records."""
    risk = np.asarray(risk, dtype=np.float64)
    c = np.ones(risk.size) if counts is None else np.asarray(counts, dtype=np.float64)
    keep = ~np.isnan(risk)
    ok, c_ok = risk[keep], c[keep]
    n_ok = float(c_ok.sum())
    if counts is None:
        q = {f"{int(round(p * 100))}%": (float(np.quantile(ok, p)) if ok.size else None) for p in QUANTILES}
    else:
        q = {f"{int(round(p * 100))}%": (counted_quantile(ok, c_ok, p) if n_ok else None) for p in QUANTILES}
    edges = np.asarray(RISK_BINS)
    idx = np.searchsorted(edges, ok, side="right") - 1
    idx[ok == edges[-1]] = len(edges) - 2  # the last bin is closed: [0.5, 1]
    inside = (idx >= 0) & (idx < len(edges) - 1)
    binned = np.bincount(idx[inside], weights=c_ok[inside], minlength=len(edges) - 1)
    above = int(c_ok[ok > edges[-1]].sum())
    if counts is None:
        mean = float(ok.mean()) if ok.size else None
    else:
        mean = float(np.sum(ok * c_ok) / n_ok) if n_ok else None
    return _distribution(q, binned, above, n_ok, mean, int(c[~keep].sum()))


def _distribution(q: dict, binned, above: int, n_ok: float, mean, n_missing: int) -> dict:
    """The ``individual_risk`` section from its numbers (records per bin of :data:`RISK_BINS`, ...)."""
    edges = np.asarray(RISK_BINS)
    bins = [{"lower": float(edges[i]), "upper": float(edges[i + 1]), "count": int(binned[i]),
             "share": float(binned[i] / n_ok) if n_ok else None} for i in range(len(edges) - 1)]
    if above:  # risks above 1 (weights below 1) are not probabilities: their own bin, so every record counts
        bins.append({"lower": 1.0, "upper": float("inf"), "count": above, "share": float(above / n_ok)})
    return {"mean": mean, "quantiles": q, "bins": bins, "n_above_1": above, "n_missing": int(n_missing)}


def _order(values: np.ndarray, top: int) -> np.ndarray:
    """The ``top`` largest first (ties in table order, an undefined value last)."""
    return np.argsort(-np.where(np.isnan(values), -np.inf, values), kind="stable")[:top]


def _k_rows(unweighted, weighted, n: int) -> list[dict]:
    rows = []
    for k, u, wt in zip(K_ANON_KS, unweighted, weighted):
        u = int(u)
        wt = None if wt is None else int(wt)
        rows.append({"k": k, "unweighted": u, "unweighted_share": u / n if n else None,
                     "weighted": wt, "weighted_share": None if wt is None or not n else wt / n})
    return rows


def _head(*, engine: str, source: dict | None, n: int, n_columns: int, keys, w, hid, alpha,
          n_combinations: int | None) -> dict:
    return {"format": "pysdc-risk-1", "pysdc_version": __version__, "engine": engine,
            "data": {"path": "(a DataFrame)", **(source or {}), "n_records": int(n),
                     "n_columns": int((source or {}).get("n_columns", n_columns)), "n_key_combinations": n_combinations},
            "key_vars": list(keys), "weight": w, "hid": hid, "alpha": alpha}


def risk_model(pr, *, top: int = 10, source: dict | None = None) -> dict:
    """The ``pysdc-risk-1`` model of a :class:`~pysdc.problem.ProblemRisk` (one row per record)."""
    mr = pr.measure_risk
    d = pr.data
    keys = list(pr.key_vars)
    ind = mr.individual
    risk = np.asarray(ind["risk"], dtype=np.float64)
    n = int(risk.size)
    ka = pr.k_anonymity
    weighted = list(ka["weighted"]) if "weighted" in ka.columns else [None] * len(K_ANON_KS)
    combos = int(d.groupby(keys, dropna=False, observed=True, sort=False).ngroups) if n else 0
    out = _head(engine="pandas", source=source, n=n, n_columns=d.shape[1], keys=keys, w=pr.w, hid=pr.hid,
                alpha=pr.alpha, n_combinations=combos)
    out.update({
        "global": global_section(mr, risk),
        "household": household_section(mr),
        "k_anonymity": {**k_anonymity(ind["fk"]), "violations": _k_rows(ka["unweighted"], weighted, n)},
        "individual_risk": risk_distribution(risk),
        "top_unit": "record",
        "top": _top_records(d, ind, keys, top),
        "suda2": _suda2(pr, d, keys, top),
        "distance": _distance(pr.distance),
        "linkage": _linkage(pr.linkage),
        "provenance": dict(RISK_PROVENANCE),
    })
    return out


def engine_risk_model(res, *, keys, w=None, hid=None, alpha: float = 1.0, top: int = 10, source: dict | None = None,
                      engine: str = "duckdb", n_columns: int = 0) -> dict:
    """The ``pysdc-risk-1`` model of an engine's measure_risk result: the same sections from its table of key
    combinations (each with its record count ``n``): the numbers are those of the records; the riskiest
    rows are combinations (``top_unit`` ``"combination"``, each with ``records``); SUDA2 needs the records.
    A result whose combinations stayed in the engine (``res.summarise``) gives the same numbers by SQL."""
    if getattr(res, "summarise", None) is not None:
        return _in_engine_risk_model(res, keys=keys, w=w, hid=hid, alpha=alpha, top=top, source=source,
                                     engine=engine, n_columns=n_columns)
    comb = res.combinations
    counts = comb["n"].to_numpy(dtype=np.float64)
    risk = comb["risk"].to_numpy(dtype=np.float64)
    fk, Fk = comb["fk"].to_numpy(), comb["Fk"].to_numpy()
    n = int(res.n)
    unweighted = [counts[fk < r_round(k)].sum() for k in K_ANON_KS]
    weighted = [None if w is None else counts[Fk < r_round(k)].sum() for k in K_ANON_KS]
    rows = comb.iloc[_order(risk, top)] if top else comb.iloc[:0]
    top_rows = [{**{k: jsonable(r[k]) for k in keys}, "records": int(r["n"]), "fk": float(r["fk"]),
                 "Fk": float(r["Fk"]), "risk": float(r["risk"])} for r in rows.to_dict("records")]
    out = _head(engine=engine, source=source, n=n, n_columns=n_columns, keys=keys, w=w, hid=hid, alpha=alpha,
                n_combinations=int(len(comb)))
    out.update({
        "global": global_section(res, risk if n else np.array([])),
        "household": household_section(res),
        "k_anonymity": {**k_anonymity(fk, counts), "violations": _k_rows(unweighted, weighted, n)},
        "individual_risk": risk_distribution(risk, counts),
        "top_unit": "combination",
        "top": top_rows,
        "suda2": {"status": "skipped", "value": None,
                  "error": f"SUDA2 needs the records in memory; not computed on {engine}"},
        "distance": None,
        "linkage": engine_linkage(engine),
        "provenance": {**RISK_PROVENANCE, "top": "pysdc's selection of sdcMicro's risks, per key combination"},
    })
    return out


def _in_engine_risk_model(res, *, keys, w, hid, alpha, top, source, engine, n_columns) -> dict:
    """:func:`engine_risk_model` of a result whose combinations stayed in DuckDB: each section from the
    engine's aggregates (:class:`pysdc.engine._risk_duckdb.InEngineSummaries`), the same numbers as from the table."""
    s = res.summarise
    n = int(res.n)
    limits = [r_round(k) for k in K_ANON_KS]
    below2, below3 = s.below("fk", [2, 3])
    unweighted = s.below("fk", limits)
    weighted = s.below("Fk", limits) if w is not None else [None] * len(limits)
    d = s.distribution(QUANTILES, RISK_BINS)
    q = {f"{int(round(p * 100))}%": v for p, v in zip(QUANTILES, d["quantiles"])}
    rows = s.top(top) if top else None
    top_rows = [] if rows is None else [
        {**{k: jsonable(r[k]) for k in keys}, "records": int(r["n"]), "fk": float(r["fk"]), "Fk": float(r["Fk"]),
         "risk": float(r["risk"])} for r in rows.to_dict("records")]
    flags = np.array([]) if not n else (np.array([np.nan]) if d["n_missing"] else np.array([0.0]))
    out = _head(engine=engine, source=source, n=n, n_columns=n_columns, keys=keys, w=w, hid=hid, alpha=alpha,
                n_combinations=int(s.n_combinations))
    out.update({
        "global": global_section(res, flags),
        "household": household_section(res),
        "k_anonymity": {"fk_lt_2": int(below2), "fk_lt_3": int(below3), "share_fk_lt_2": below2 / n if n else None,
                        "share_fk_lt_3": below3 / n if n else None,
                        "violations": _k_rows(unweighted, weighted, n)},
        "individual_risk": _distribution(q, d["bins"], d["above"], d["n_ok"], d["mean"], d["n_missing"]),
        "top_unit": "combination",
        "top": top_rows,
        "suda2": {"status": "skipped", "value": None,
                  "error": f"SUDA2 needs the records in memory; not computed on {engine}"},
        "distance": None,
        "linkage": engine_linkage(engine),
        "provenance": {**RISK_PROVENANCE, "top": "pysdc's selection of sdcMicro's risks, per key combination"},
    })
    return out


def _top_records(data: pd.DataFrame, ind: pd.DataFrame, keys: list, top: int) -> list[dict]:
    if top == 0 or len(ind) == 0:
        return []
    risk = np.asarray(ind["risk"], dtype=np.float64)
    order = _order(risk, top)
    rows = []
    keyvals = data[keys].iloc[order]
    cols = [c for c in ("fk", "Fk", "risk", "hier_risk") if c in ind.columns]
    vals = ind[cols].iloc[order]
    for j, pos in enumerate(order):
        row = {"record": int(pos) + 1}
        row.update({k: jsonable(keyvals.iat[j, i]) for i, k in enumerate(keys)})
        row.update({c: jsonable(vals.iat[j, i]) for i, c in enumerate(cols)})
        rows.append(row)
    return rows


def _suda2(pr, data: pd.DataFrame, keys: list, top: int) -> dict:
    r = pr.suda2
    if r is None:
        why = pr.skipped.get("suda2", "not computed")
        return {"status": "error" if "suda2" in pr.errors else "skipped", "value": None, "error": why}
    score = np.asarray(r.score, dtype=np.float64)
    dis = np.asarray(r.dis_score, dtype=np.float64)
    n = score.size
    ok = dis[~np.isnan(dis)]
    q = {f"{int(round(p * 100))}%": (float(np.quantile(ok, p)) if ok.size else None) for p in SUDA_QUANTILES}
    order = np.lexsort((-np.nan_to_num(dis, nan=-np.inf), -score))[:top] if top else np.array([], int)
    order = order[score[order] > 0]
    keyvals = data[keys].iloc[order]
    top_rows = []
    for j, pos in enumerate(order):
        row = {"record": int(pos) + 1}
        row.update({k: jsonable(keyvals.iat[j, i]) for i, k in enumerate(keys)})
        row.update({"score": float(score[pos]), "dis_score": float(dis[pos])})
        top_rows.append(row)
    ac = r.attribute_contributions
    return {
        "status": "ok", "error": None,
        "key_vars": list(keys),
        "dummy_keys": max(0, 3 - len(keys)),
        "dis_fraction": float(r.dis_fraction),
        "missing": -999,
        "original_scores": bool(r.original_scores),
        "score": {"n_positive": int(np.sum(score > 0)), "share_positive": float(np.mean(score > 0)) if n else None,
                  "max": float(score.max()) if n else None},
        "dis_score": {"quantiles": q, "mean": float(ok.mean()) if ok.size else None,
                      "n_positive": int(np.sum(ok > 0)), "share_positive": float(np.sum(ok > 0) / n) if n else None,
                      "n_missing": int(n - ok.size)},
        "attribute_contributions": {str(v): float(c) for v, c in zip(ac["variable"], ac["contribution"])},
        "top": top_rows,
    }


def _distance(dist: dict | None) -> dict | None:
    if dist is None:
        return None
    errors = dist.get("errors", {})

    def entry(name, res):
        if res is None:
            return {"status": "error" if name in errors else "skipped", "value": None,
                    "error": errors.get(name, "no numeric variable")}
        return {"status": "ok", **res, "error": None}

    rmd = dist.get("d_risk_rmd")
    rmd_entry = None if rmd is None else {
        "value": float(rmd.risk1), "risk1": float(rmd.risk1), "risk2": float(rmd.risk2),
        "wrisk1": float(rmd.wrisk1), "wrisk2": float(rmd.wrisk2), "n_risk1": int(len(rmd.index_risk1)),
        "n_risk2": int(len(rmd.index_risk2)), "k": 0.01, "k2": 0.05, "random_state": dist.get("random_state")}
    d_risk = dist.get("d_risk")
    return {"variables": list(dist["variables"]), "masked": {**dist.get("masked", {}), "n_records": dist["n_masked"]},
            "d_risk": entry("dRisk", None if d_risk is None else {"value": float(d_risk), "k": dist["k"]}),
            "d_risk_rmd": entry("dRiskRMD", rmd_entry)}


def _linkage(link: dict | None) -> dict | None:
    """The record-linkage section: the registry's linkage measures (``assess="linkage"``) of the masked numeric
    variables, each entry with the numbers its registry entry ``shows``."""
    if link is None:
        return None
    res, errors, skipped = link["results"], link.get("errors", {}), link.get("skipped", {})
    built = {name: None if res.get(name) is None else m.model_entry(res[name])
             for name, m in LINKAGE_MEASURES.items() if name in res}
    measures = {name: measure_entry(b, error=errors.get(name), skipped=skipped.get(name, "not computed"))
                for name, b in built.items()}
    return {"variables": list(link["variables"]), "masked": {**link.get("masked", {}), "n_records": link["n_masked"]},
            "paired_by": "position", "n_records": int(link["n_records"]), "n_left_out": int(link["n_left_out"]),
            "record_linkage_max": link.get("record_linkage_max"), "measures": measures}


def engine_linkage(engine: str) -> dict:
    """The record-linkage section of an engine's model: every measure skipped, with the reason it declares."""
    return {"variables": [], "masked": None, "paired_by": "position", "n_records": None, "n_left_out": None,
            "record_linkage_max": None,
            "measures": {name: measure_entry(None, skipped=f"{name} needs the records in memory ({info[3]}); not "
                                                           f"computed on {engine} (use --engine pandas with "
                                                           "--numeric and --masked)")
                         for name, info in LINKAGE_INFO.items()}}


# =============================================================================
# utility


def per_variable(result) -> pd.Series:
    """A per-variable measure's values (a result's ``per_variable``, or the Series itself)."""
    return getattr(result, "per_variable", result)


def measure_entry(result: dict | None, *, error: str | None = None, skipped: str | None = None) -> dict:
    """One measure of the utility model: ``{"status": "ok", ...numbers, "error": None}``, or
    ``{"status": "error" | "skipped", "value": None, "error": why}``."""
    if result is not None:
        return {"status": "ok", **result, "error": None}
    if error is not None:
        return {"status": "error", "value": None, "error": error}
    return {"status": "skipped", "value": None, "error": skipped or "no variable of a suitable type was selected"}


def _utility_head(*, engine, original, masked, n_x, n_xm, cols_x, cols_xm, variables, selected, only_in,
                  paired_by) -> dict:
    only_x, only_xm = only_in
    return {
        "format": "pysdc-utility-1",
        "pysdc_version": __version__,
        "engine": engine,
        "paired_by": paired_by,
        "original": {"path": "(a DataFrame)", **(original or {}), "n_records": int(n_x),
                     "n_columns": int((original or {}).get("n_columns", cols_x))},
        "masked": {"path": "(a DataFrame)", **(masked or {}), "n_records": int(n_xm),
                   "n_columns": int((masked or {}).get("n_columns", cols_xm))},
        "variables": {
            "selected": list(selected),
            "numeric": list(variables["numeric"]),
            "categorical": list(variables["categorical"]),
            "il_variables": list(variables["il_variables"]),
            "scales": dict(variables["scales"]),
            "left_out": list(variables["left_out"]),
            "only_in_original": list(only_x),
            "only_in_masked": list(only_xm),
        },
    }


def _provenance() -> dict:
    return {**{name: f"sdcMicro's {info[0]}" for name, info in MEASURE_INFO.items()},
            **{name: f"literature, not sdcMicro: {info[0]}" for name, info in LITERATURE_INFO.items()}}


_LITERATURE_NOTE = ("literature measures, not sdcMicro's (no sdcMicro counterpart; pysdc's own implementations, "
                    "validated against the papers' worked examples)")


def utility_model(pu, *, n_x: int, n_xm: int, cols_x: int, cols_xm: int, original: dict | None = None,
                  masked: dict | None = None, selected=None, only_in: tuple = ([], []),
                  random_state: int | None = None) -> dict:
    """The ``pysdc-utility-1`` model of a :class:`~pysdc.problem.ProblemUtility`."""
    v = pu.variables
    res, errors, skipped = pu.results, pu.errors, pu.skipped

    def entry(name, build):
        if name in res:
            return measure_entry(build(res[name]))
        return measure_entry(None, error=errors.get(name), skipped=skipped.get(name))

    cells = n_x * len(v["numeric"])
    measures = {}
    for m in D_UTILITY_METHODS:
        e = entry(f"d_utility.{m}", lambda r: {"value": float(r)})
        if e["status"] == "ok" and m in CELLWISE_METHODS:
            e["n_cells"] = cells
            e["mean_per_cell"] = e["value"] / cells if cells else float("nan")
        if e["status"] == "ok" and m == "robeigen":
            e["random_state"] = random_state
        measures[m] = e
    measures["il_correl"] = entry("il_correl", lambda r: {"value": float(r.value), "n_vars": int(r.n_vars),
                                                          "n_x": int(r.n_x), "n_xm": int(r.n_xm)})
    measures["il_variables"] = entry("il_variables", lambda r: {
        "value": float(r.value), "n": int(r.n), "per_variable": {str(k): float(x) for k, x in r.per_variable.items()}})
    # the registry's utility measures (assess="utility"): the numbers their entries' shows name
    lit = {m.python: entry(m.python, m.model_entry) for m in assessed("utility")}
    out = _utility_head(engine="pandas", original=original, masked=masked, n_x=n_x, n_xm=n_xm, cols_x=cols_x,
                        cols_xm=cols_xm, variables=v, selected=selected or [*v["keys"], *v["numeric"]],
                        only_in=only_in, paired_by="position")
    out.update({"measures": measures,
                "literature": {"note": _LITERATURE_NOTE,
                               "variables": {"continuous": list(v["numeric"]), "categorical": list(v["categorical"])},
                               "measures": lit},
                "provenance": _provenance()})
    return out


def engine_utility_model(res: dict, *, variables: dict, engine: str, n_x: int, n_xm: int, cols_x: int,
                         cols_xm: int, original: dict | None = None, masked: dict | None = None, selected=None,
                         paired_by: str = "position") -> dict:
    """The ``pysdc-utility-1`` model of an engine's utility results (``{"d_utility": {method: result},
    "il_correl": result, "il_variables": result}``, a refused measure as its exception): what the
    engine does not compute (robeigen's MCD, the literature's measures) is ``skipped`` with the reason."""
    here = f"needs the records in memory; not computed on {engine} (use --engine pandas)"
    nums = variables["numeric"]
    cells = n_x * len(nums)

    def entry(r, build):
        if r is None:
            return measure_entry(None, skipped="no variable of a suitable type was selected")
        if isinstance(r, Exception):
            return measure_entry(None, error=" ".join(str(r).split()))
        return measure_entry(build(r))

    measures = {}
    for m in D_UTILITY_METHODS:
        if m == "robeigen":
            measures[m] = measure_entry(None, skipped=f"robeigen (an MCD fit) {here}") if nums else measure_entry(None)
            continue
        e = entry(res.get("d_utility", {}).get(m), lambda r: {"value": float(r.value)})
        if e["status"] == "ok" and m in CELLWISE_METHODS:
            e["n_cells"] = cells
            e["mean_per_cell"] = e["value"] / cells if cells else float("nan")
        measures[m] = e
    measures["il_correl"] = entry(res.get("il_correl"), lambda r: {"value": float(r.value), "n_vars": int(r.n_vars),
                                                                   "n_x": int(r.n_x), "n_xm": int(r.n_xm)})
    measures["il_variables"] = entry(res.get("il_variables"), lambda r: {
        "value": float(r.value), "n": int(r.n), "per_variable": {str(k): float(x) for k, x in r.per_variable.items()}})
    lit = {m.python: measure_entry(None, skipped=f"{m.python} {here}") for m in assessed("utility")}
    out = _utility_head(engine=engine, original=original, masked=masked, n_x=n_x, n_xm=n_xm, cols_x=cols_x,
                        cols_xm=cols_xm, variables=variables, selected=selected or [], only_in=([], []),
                        paired_by=paired_by)
    out.update({"measures": measures,
                "literature": {"note": _LITERATURE_NOTE,
                               "variables": {"continuous": list(nums), "categorical": list(variables["categorical"])},
                               "measures": lit},
                "provenance": _provenance()})
    return out
