"""The report model: the numbers of a utility or risk assessment, computed once by the library.

A report is a plain dictionary (the documented JSON formats ``pysdc-utility-1`` and
``pysdc-risk-1``): the measures' values, their labels and which numbers are sdcMicro's
(``"provenance"``). Renderers (:mod:`pysdc.report._text` for the command line, JSON,
Markdown and HTML in :mod:`pysdc.report`) only format it.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .. import __version__
from .._errors import PysdcError
from .._types import numeric_columns, r_class
from .._format import jsonable
from .._summaries import (  # noqa: F401  (re-exported: part of the report model)
    HIGH_RISK_FLOOR,
    HIGH_RISK_MADS,
    SUMMARY_STATS,
    five_numbers,
    freq_calc_summary,
    higher_risk,
    indiv_risk_summary,
    k_anonymity,
    ldiversity_summary,
    measure_risk_summary,
    threshold_note,
)

__all__ = ["utility_report", "risk_report", "literature_measures", "LITERATURE_INFO", "threshold_note",
           "k_anonymity", "risk_distribution", "top_records", "MEASURE_INFO",
           "RISK_BINS", "QUANTILES", "k_anon_table", "suda2_summary", "distance_risk", "K_ANON_KS",
           "SUDA_QUANTILES", "higher_risk", "measure_risk_summary", "freq_calc_summary", "indiv_risk_summary",
           "ldiversity_summary", "five_numbers"]

#: bins of the individual-risk histogram (the last one closed: [0.5, 1])
RISK_BINS = (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)


def _direct(where, fn, *args, **kwargs):
    return fn(*args, **kwargs)


# =============================================================================
# utility

MEASURE_INFO = {
    "IL1": ("dUtility(method = \"IL1\")",
            "sum over all cells of 100*|x - xm|/|x|: percent deviations added up (cells with x = 0 "
            "are left out). 0 = unchanged; grows with the number of cells."),
    "IL1s": ("dUtility(method = \"IL1s\")",
             "sum over all cells of |x - xm|/(sqrt(2)*sd(x)): deviations in standard deviations, "
             "added up. 0 = unchanged."),
    "eigen": ("dUtility(method = \"eigen\")",
              "sum of |e - em|/e over the eigenvalues of the covariance matrices of the standardised "
              "data: how much the correlation structure changed. 0 = unchanged."),
    "robeigen": ("dUtility(method = \"robeigen\")",
                 "as eigen, with the robust (MCD) covariance; MCD draws random subsets, so the value "
                 "depends on the seed (--random-state)."),
    "il_correl": ("IL_correl(x, xm)",
                  "distance between the normalised diagonals of the inverse correlation matrices, "
                  "between 0 (same) and 1."),
    "il_variables": ("IL_variables(x, xm)",
                     "lambda: mean distance per cell, between 0 (same) and 1; numeric cells "
                     "(2/pi)*atan|x - xm|, ordered categories |code difference|/(levels - 1), "
                     "other categories 0/1. Per variable: its distances summed / n."),
}




#: the measures built on p x p matrices of the numeric variables (covariances, correlations, their eigenvalues
#: and inverses: eigen, il_correl, il_continuous and gsil) need memory ~p^2 and time ~p^3; the report computes
#: them up to this many numeric variables (10,000 columns took more than 300 s and 7.9 GB)
MAX_MATRIX_VARIABLES = 1000
#: robeigen fits an MCD (hundreds of p-variate subsets, each ~p^3): minutes already at 100 variables
MAX_ROBEIGEN_VARIABLES = 100


def _too_wide(name: str, p: int, limit: int, call: str) -> dict | None:
    """A "skipped" entry when ``p`` variables are too many for the measure ``name`` (None otherwise)."""
    if p <= limit:
        return None
    return {"status": "skipped", "value": None,
            "error": f"not computed: {p:,} numeric variables, more than the report's limit of {limit:,} for "
                     f"{name} (it builds {p:,} x {p:,} matrices: its time grows with the cube of the number of "
                     f"variables, its memory with the square). Select at most {limit:,} variables (--numeric), or "
                     f"call {call} on them directly."}


def utility_report(x: pd.DataFrame, xm: pd.DataFrame, *, vars_: list | None = None, scales: dict | None = None,
                   random_state: int | None = None, original: dict | None = None, masked: dict | None = None,
                   only_in: tuple = ([], []), run=_direct, literature: bool = True) -> dict:
    """Every information-loss measure of ``xm`` against ``x`` on the variables ``vars_``.

    ``run(where, fn, *args, **kwargs)`` calls a measure (the CLI passes one that collects
    warnings); a measure that fails is reported with ``"status": "error"``.
    """
    scales = dict(scales or {})
    if vars_ is None:
        vars_ = [c for c in x.columns if c in xm.columns]
    cls_x = {v: r_class(x[v]) for v in vars_}
    cls_xm = {v: r_class(xm[v]) for v in vars_}
    numeric = numeric_columns(x, xm, vars_)
    left_out = []
    for v in vars_:
        if v not in numeric:
            kinds = cls_x[v] if cls_x[v] == cls_xm[v] else f"{cls_x[v]} / {cls_xm[v]}"
            left_out.append({"variable": v, "measures": ["IL1", "IL1s", "eigen", "robeigen", "il_correl"],
                             "reason": f"not numeric ({kinds})", "r_class": kinds})
    ilv = []
    for v in vars_:
        if v in scales:
            ilv.append(v)
        elif cls_x[v] != cls_xm[v]:
            left_out.append({"variable": v, "measures": ["il_variables"],
                             "reason": f"{cls_x[v]} in ORIGINAL but {cls_xm[v]} in MASKED (sdcMicro's IL_variables "
                                       f"fails on different types); declare --scale {v}=numeric|ordinal|nominal",
                             "r_class": f"{cls_x[v]} / {cls_xm[v]}"})
        elif cls_x[v] in ("integer", "logical"):
            left_out.append({"variable": v, "measures": ["il_variables"],
                             "reason": f"{cls_x[v]} column (sdcMicro's IL_variables refuses integer and logical "
                                       f"columns); declare --scale {v}=numeric|ordinal|nominal",
                             "r_class": cls_x[v]})
        else:
            ilv.append(v)

    measures = {}
    for method in ("IL1", "IL1s", "eigen", "robeigen"):
        kw = {"random_state": random_state} if method == "robeigen" and random_state is not None else {}
        limit = {"eigen": MAX_MATRIX_VARIABLES, "robeigen": MAX_ROBEIGEN_VARIABLES}.get(method)
        wide = limit and _too_wide(method, len(numeric), limit, f"pysdc.d_utility(x, xm, method={method!r})")
        measures[method] = wide or _measure(run, method, numeric,
                                            lambda m=method, kw=kw: _d_utility(x, xm, numeric, m, kw))
        if measures[method]["status"] == "ok" and method in ("IL1", "IL1s"):
            cells = x.shape[0] * len(numeric)
            measures[method]["n_cells"] = cells
            measures[method]["mean_per_cell"] = measures[method]["value"] / cells if cells else float("nan")
    if measures["robeigen"]["status"] == "ok":
        measures["robeigen"]["random_state"] = random_state
    measures["il_correl"] = (_too_wide("il_correl", len(numeric), MAX_MATRIX_VARIABLES, "pysdc.il_correl(x, xm)")
                             or _measure(run, "il_correl", numeric, lambda: _il_correl(x, xm, numeric)))
    measures["il_variables"] = _measure(run, "il_variables", ilv, lambda: _il_variables(x, xm, ilv, scales))
    literature = literature_measures(x, xm, vars_, numeric, run=run) if literature else None

    only_x, only_xm = only_in
    return {
        "format": "pysdc-utility-1",
        "pysdc_version": __version__,
        "original": {**(original or {}), "n_records": int(x.shape[0]),
                     "n_columns": int((original or {}).get("n_columns", x.shape[1]))},
        "masked": {**(masked or {}), "n_records": int(xm.shape[0]),
                   "n_columns": int((masked or {}).get("n_columns", xm.shape[1]))},
        "variables": {
            "selected": vars_,
            "numeric": numeric,
            "il_variables": ilv,
            "scales": scales,
            "left_out": left_out,
            "only_in_original": list(only_x),
            "only_in_masked": list(only_xm),
        },
        "measures": measures,
        "literature": literature,
        "provenance": {**{name: f"sdcMicro's {info[0]}" for name, info in MEASURE_INFO.items()},
                       **{name: f"literature, not sdcMicro: {info[0]}" for name, info in LITERATURE_INFO.items()}},
    }


#: the literature's information-loss measures the utility report adds (not sdcMicro's)
LITERATURE_INFO = {
    "il_continuous": ("Domingo-Ferrer, Mateo-Sanz & Torra 2001; Yancey, Winkler & Creecy 2002; Todorova",
                      "continuous variables: GILCV (mean relative variation, %), Yancey, Winkler & Creecy's IL1 "
                      "(mean per cell) and the discrepancy table (MSE, MAE, mean variation of X, means, "
                      "covariances, correlations ...)."),
    "il_categorical": ("direct comparison, CTBIL, EBIL (Domingo-Ferrer & Torra 2001)",
                       "categorical variables: direct (share of changed values per variable), contingency-"
                       "table loss normalised, entropy-based loss EBIL per variable."),
    "hellinger": ("Hellinger distance (Todorova)",
                  "distance between each variable's distributions in ORIGINAL and MASKED, 0 (same) to 1; "
                  "GHD is their mean."),
    "gsil": ("Todorova's general score of information loss",
             "(EBIL% + GHD% + GILCV) / 3 over the parts that apply, with its band."),
}


def literature_measures(x: pd.DataFrame, xm: pd.DataFrame, vars_: list, numeric: list, *, run=_direct) -> dict:
    """The literature's information-loss measures (not sdcMicro's) on the variables a report uses."""
    categorical = [v for v in vars_ if v not in numeric and r_class(x[v]) in ("factor", "ordered", "character")
                   and r_class(xm[v]) == r_class(x[v])]
    both = numeric + [v for v in categorical if v not in numeric]
    p = len(numeric)
    out = {
        "il_continuous": (_too_wide("il_continuous", p, MAX_MATRIX_VARIABLES, "pysdc.loss.il_continuous(x, xm)")
                          or _measure(run, "il_continuous", numeric, lambda: _il_continuous(x, xm, numeric))),
        "il_categorical": _measure(run, "il_categorical", categorical,
                                   lambda: _il_categorical(x, xm, categorical)),
        "hellinger": _measure(run, "hellinger", both, lambda: _hellinger(x, xm, both)),
        "gsil": (_too_wide("gsil (its GILCV part)", p, MAX_MATRIX_VARIABLES, "pysdc.loss.gsil(x, xm)")
                 or _measure(run, "gsil", both, lambda: _gsil(x, xm, both))),
    }
    return {"note": "literature measures, not sdcMicro's (no sdcMicro counterpart; pysdc's own "
                    "implementations, validated against the papers' worked examples)",
            "variables": {"continuous": numeric, "categorical": categorical},
            "measures": out}


def _il_continuous(x, xm, cols):
    from ..loss import il_continuous

    r = il_continuous(x[cols], xm[cols])
    table = {str(row): {str(c): float(v) for c, v in r.table.loc[row].items()} for row in r.table.index}
    return {"value": float(r.gilcv), "gilcv": float(r.gilcv), "il1": float(r.il1), "table": table}


def _il_categorical(x, xm, cols):
    from ..loss import il_categorical

    r = il_categorical(x[cols], xm[cols])
    return {"value": float(r.ctbil_normalized),
            "direct": {str(k): float(v) for k, v in r.direct.items()},
            "ctbil_normalized": float(r.ctbil_normalized),
            "ebil": {str(k): float(v) for k, v in r.ebil.items()}}


def _hellinger(x, xm, cols):
    from ..loss import hellinger

    h = hellinger(x[cols], xm[cols])
    return {"value": float(h.mean()), "ghd": float(h.mean()), "per_variable": {str(k): float(v) for k, v in h.items()}}


def _gsil(x, xm, cols):
    from ..loss import gsil

    g = gsil(x[cols], xm[cols])
    return {"value": float(g.value), "band": g.band, "applicable": list(g.applicable),
            "parts": {str(k): float(v) for k, v in g.parts.items()}}


def _d_utility(x, xm, cols, method, kw):
    from .. import d_utility

    return {"value": float(d_utility(x[cols], xm[cols], method=method, **kw))}


def _il_correl(x, xm, cols):
    from .. import il_correl

    r = il_correl(x[cols], xm[cols])
    return {"value": float(r.value), "n_vars": int(r.n_vars), "n_x": int(r.n_x), "n_xm": int(r.n_xm)}


def _il_variables(x, xm, cols, scales):
    from .. import il_variables

    kw = {"scales": {k: v for k, v in scales.items() if k in cols}} if scales else {}
    r = il_variables(x[cols], xm[cols], **kw)
    return {"value": float(r.value), "n": int(r.n),
            "per_variable": {str(k): float(v) for k, v in r.per_variable.items()}}


def _measure(run, name: str, cols: list, compute) -> dict:
    if not cols:
        return {"status": "skipped", "value": None, "error": "no variable of a suitable type was selected"}
    try:
        res = run(name, compute)
    except PysdcError as exc:
        return {"status": "error", "value": None, "error": _cli_message(str(exc))}
    except Exception as exc:  # a bug: report it without killing the other measures
        return {"status": "error", "value": None,
                "error": f"internal error ({type(exc).__name__}: {exc}); please report it"}
    return {"status": "ok", **res, "error": None}


def _cli_message(msg: str) -> str:
    """Translate the library's Python-syntax advice into command-line flags."""
    return re.sub(r"scales=\{'([^']+)': '(\w+)'\}", r"--scale \1=\2", msg)




# =============================================================================
# risk


def risk_report(data: pd.DataFrame, keys: list, *, w=None, hid=None, max_global_risk: float = 0.01,
                alpha: float = 1.0, top: int = 10, source: dict | None = None, run=_direct,
                suda: bool = True, numeric: list | None = None, x=None, xm=None, masked: dict | None = None,
                drisk_k: float = 0.05, random_state: int | None = None, measured=None) -> dict:
    """measure_risk and its summaries (k-anonymity, distribution, riskiest records) of ``data``, then the
    risk toolbox: SUDA2 (unless ``suda`` is false), kAnon_violations for k = 2, 3, 5 (weighted too when
    there is a weight ``w``) and, with ``numeric`` variables, dRisk and dRiskRMD of ``xm`` against ``x``
    (default: ``data``; the same records in the same order). ``measured``: the result of this very
    measure_risk call when the caller already has it (it is not computed again).
    """
    from .. import measure_risk

    res = measured if measured is not None else run("measure_risk", measure_risk, data, keys, w=w, hid=hid,
                                                    max_global_risk=max_global_risk, alpha=alpha)
    ind = res.individual
    risk = np.asarray(ind["risk"], dtype=np.float64)
    return {
        "format": "pysdc-risk-1",
        "pysdc_version": __version__,
        "data": {**(source or {}), "n_records": int(risk.size),
                 "n_columns": int((source or {}).get("n_columns", data.shape[1]))},
        "key_vars": list(keys),
        "weight": w,
        "hid": hid,
        "alpha": alpha,
        "global": {
            "expected_reidentifications": res.global_risk_er,
            "global_risk": res.global_risk,
            "global_risk_pct": res.global_risk_pct,
            "max_global_risk": res.max_global_risk,
            "threshold": res.global_threshold,
            "threshold_note": threshold_note(res.global_threshold, res.global_risk, res.max_global_risk, risk),
        },
        "household": None if res.hier_risk_er is None else {
            "expected_reidentifications": res.hier_risk_er,
            "risk": res.hier_risk,
            "risk_pct": res.hier_risk_pct,
        },
        "k_anonymity": {**k_anonymity(ind["fk"]),
                        "violations": k_anon_table(data, keys, w=w, run=run)},
        "individual_risk": risk_distribution(risk),
        "top": top_records(data, ind, keys, top),
        "suda2": (suda2_summary(data, keys, top=top, run=run) if suda
                  else {"status": "skipped", "error": "not computed (--no-suda)"}),
        "distance": (None if not numeric else
                     distance_risk(data if x is None else x, xm, numeric, k=drisk_k, random_state=random_state,
                                   masked=masked, run=run)),
        "provenance": {"global": "sdcMicro's measure_risk", "household": "sdcMicro's measure_risk",
                       "k_anonymity": "pysdc, from sdcMicro's fk",
                       "k_anonymity.violations": "sdcMicro's kAnon_violations",
                       "individual_risk": "pysdc's summary of sdcMicro's individual risks",
                       "top": "pysdc's selection of sdcMicro's individual risks",
                       "suda2.attribute_contributions": "sdcMicro's suda2 (attribute_contributions)",
                       "suda2.dis_score": "pysdc's summary (quantiles, shares) of sdcMicro's suda2 DIS-SUDA "
                                          "scores",
                       "suda2.top": "pysdc's selection of sdcMicro's suda2 scores",
                       "distance.d_risk": "sdcMicro's dRisk",
                       "distance.d_risk_rmd": "sdcMicro's dRiskRMD (its MCD draws random subsets: pysdc's "
                                              "draw, fixed by --random-state, not R's)"},
    }


#: the k of the k-anonymity violation table
K_ANON_KS = (2, 3, 5)
#: quantiles of the DIS-SUDA scores
SUDA_QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99, 1.0)


def k_anon_table(data: pd.DataFrame, keys: list, *, w=None, run=_direct) -> list[dict]:
    """sdcMicro's kAnon_violations for k = 2, 3, 5: unweighted (fk < k) and, with a weight, weighted (Fk < k)."""
    from .. import k_anon_violations

    n = len(data)
    rows = []
    for k in K_ANON_KS:
        u = int(run("kAnon_violations", k_anon_violations, data, keys, k=k))
        wt = None if w is None else int(run("kAnon_violations", k_anon_violations, data, keys, k=k, w=w,
                                            weighted=True))
        rows.append({"k": k, "unweighted": u, "unweighted_share": u / n if n else None,
                     "weighted": wt, "weighted_share": None if wt is None or not n else wt / n})
    return rows


def suda2_summary(data: pd.DataFrame, keys: list, *, top: int = 10, run=_direct) -> dict:
    """sdcMicro's suda2 on the key variables, summarised: the DIS-SUDA distribution, the records with the
    highest SUDA scores, each key's contribution (sdcMicro's ``attribute_contributions``)."""
    from .. import suda2

    def compute():
        r = run("suda2", suda2, data, keys)
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

    return _measure(_direct, "suda2", list(keys), compute)


def distance_risk(x: pd.DataFrame, xm: pd.DataFrame, numeric: list, *, k: float = 0.05,
                  random_state: int | None = None, masked: dict | None = None, run=_direct) -> dict:
    """sdcMicro's dRisk and dRiskRMD of ``xm`` against ``x`` on the ``numeric`` variables (records paired
    by position)."""
    from .. import d_risk, d_risk_rmd

    def rmd():
        kw = {} if random_state is None else {"random_state": random_state}
        r = run("dRiskRMD", d_risk_rmd, x[numeric], xm[numeric], **kw)
        return {"value": float(r.risk1), "risk1": float(r.risk1), "risk2": float(r.risk2),
                "wrisk1": float(r.wrisk1), "wrisk2": float(r.wrisk2),
                "n_risk1": int(len(r.index_risk1)), "n_risk2": int(len(r.index_risk2)),
                "k": 0.01, "k2": 0.05, "random_state": random_state}

    return {
        "variables": list(numeric),
        "masked": {**(masked or {}), "n_records": int(xm.shape[0])},
        "d_risk": _measure(_direct, "dRisk", numeric,
                           lambda: {"value": float(run("dRisk", d_risk, x[numeric], xm[numeric], k=k)), "k": k}),
        "d_risk_rmd": _measure(_direct, "dRiskRMD", numeric, rmd),
    }


def risk_distribution(risk: np.ndarray, counts: np.ndarray | None = None) -> dict:
    """Mean, quantiles (type 7) and bins of the individual risks; ``counts``: each risk stands for that many
    records (an engine's combination table), so the numbers are those of the records."""
    from .._summaries import counted_quantile

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
    bins = [{"lower": float(edges[i]), "upper": float(edges[i + 1]), "count": int(binned[i]),
             "share": float(binned[i] / n_ok) if n_ok else None} for i in range(len(edges) - 1)]
    above = int(c_ok[ok > edges[-1]].sum())
    if above:  # risks above 1 (weights below 1) are not probabilities: their own bin, so every record counts
        bins.append({"lower": 1.0, "upper": float("inf"), "count": above, "share": float(above / n_ok)})
    if counts is None:
        mean = float(ok.mean()) if ok.size else None
    else:
        mean = float(np.sum(ok * c_ok) / n_ok) if n_ok else None
    return {"mean": mean, "quantiles": q, "bins": bins, "n_above_1": above, "n_missing": int(c[~keep].sum())}


def top_records(data: pd.DataFrame, ind: pd.DataFrame, keys: list, top: int) -> list[dict]:
    if top == 0 or len(ind) == 0:
        return []
    risk = np.asarray(ind["risk"], dtype=np.float64)
    order = np.argsort(np.where(np.isnan(risk), -np.inf, -risk), kind="stable")[:top]
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




# =============================================================================
# summaries of single results (what sdcMicro's print methods show; str() of the result classes)
