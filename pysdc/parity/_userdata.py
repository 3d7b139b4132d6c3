"""Native pysdc against sdcMicro (through the R bridge) on a user's own data.

Two comparisons, both live (sdcMicro runs through :mod:`pysdc.r`):

* **the functions** -- every measure of pysdc's registry that has an sdcMicro counterpart and
  applies to the data given: freqCalc, indivRisk, measure_risk, kAnon_violations (k = 2, 3, 5;
  weighted too with a weight), suda2, ldiversity (with sensitive variables), modRisk (default glm
  and IPF on the main effects of the keys; needs a weight), and with a masked file dUtility (IL1,
  IL1s, eigen, robeigen), IL_correl, IL_variables, dRisk, dRiskRMD (seeded), infoLoss (the table of
  the keys) and recordLinkage (the numeric columns; sdcMicro 5.8.1 only: where the installed
  sdcMicro lacks it, it is listed as skipped with the reason). Each is called
  natively and through the bridge with the same arguments: the data.frame methods' semantics on
  both sides (text key variables through R's ``as.numeric``);
* **the createSdcObj workflow** -- :class:`pysdc.SdcProblem` against sdcMicro's ``createSdcObj``
  with the same roles: the numbers ``print(sdc, "risk")`` shows (records with a higher risk than
  the main part, expected re-identifications and their percentage, the household risk), the
  individual risk, and ``kAnon_violations``, ``suda2``, ``ldiversity`` and ``modRisk`` on the
  object (text key variables as factors: issue 24's finding 2 shows up here).

Every field is compared at the parity tolerance of :mod:`pysdc._tolerances`.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from .._errors import PysdcError, RNotAvailableError
from .._registry import by_python_name
from .._tolerances import robeigen_tolerance, tolerance_for
from .._types import numeric_columns
from ..core.dutility import D_UTILITY_METHODS
from ..problem import K_ANON_KS
from ._check import compare_arrays

__all__ = ["compare_on_data", "MAX_RMD_RECORDS"]

#: sdcMicro's dRiskRMD builds the full n x n distance matrix of the masked data (several GB at 2e4
#: records): above this many records pysdc parity skips it unless told otherwise
MAX_RMD_RECORDS = 5000


# ------------------------------------------------------------------ extracting comparable fields

def _numeric_array(v):
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    if isinstance(v, pd.Series):
        v = v.to_numpy()
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return v.astype(np.float64)
    return None


def _fields(measure: str, result) -> dict:
    """The numeric fields of a result by the registry's names (columns of tables as ``field.column``)."""
    scalar = _numeric_array(result)
    if scalar is not None:
        return {"value": scalar}
    out = {}
    for f, rname in by_python_name(measure).fields.items():
        if rname is None:
            continue
        v = getattr(result, f, None)
        if isinstance(v, pd.DataFrame):
            for c in v.columns:
                a = _numeric_array(v[c])
                if a is not None:
                    out[f"{f}.{c}"] = a
            continue
        a = _numeric_array(v)
        if a is not None:
            out[f] = a
    return out


def _info_loss_fields(r) -> dict:
    """infoLoss's numbers: the cell counts (both files' tables, sorted alike), overview, measures,
    the cumulative distributions' counts and shares, the false (non-)zero cells."""
    out = {f"cellvalues.{c}": r.cellvalues[c].to_numpy(dtype=float) for c in ("count_o", "count_s")}
    out.update({f"overview.{c}": r.overview[c].to_numpy(dtype=float) for c in ("noise", "cnt", "pct")})
    out.update({f"measures.{c}": r.measures[c].to_numpy(dtype=float) for c in r.measures.columns})
    for m, t in r.cumdistr.items():
        out.update({f"cumdistr{m}.{c}": t[c].to_numpy(dtype=float) for c in ("cnt", "pct")})
    out.update(false_zero=float(r.false_zero), false_nonzero=float(r.false_nonzero))
    return out


def _record_linkage_fields(r) -> dict:
    """recordLinkage's summary numbers (the minimum total distance does not depend on which optimal
    matching is found; the correct links do under ties)."""
    return {"total_distance": float(r.total_distance), "mean_distance": float(r.mean_distance),
            "correct_matches": float(r.correct_matches), "correct_match_rate": float(r.correct_match_rate)}


# ------------------------------------------------------------------ the checks

def _checks(data, masked, keys, weight, hid, sensitive, random_state, max_rmd) -> tuple[list, list]:
    """``(checks, skipped)``: checks are (label, pysdc name, call on an implementation, fields);
    skipped are (label, why) for the counterparts that do not apply to these data."""
    checks, skipped = [], []

    def add(label, name, call, fields=None):
        checks.append((label, name, call, fields or (lambda r, name=name: _fields(name, r))))

    if keys:
        kw = {"w": weight}
        add("freqCalc", "freq_calc", lambda m: m.freq_calc(data, keys, **kw))
        add("indivRisk", "indiv_risk", lambda m: m.indiv_risk(m.freq_calc(data, keys, **kw)))
        add("measure_risk", "measure_risk", lambda m: m.measure_risk(data, keys, hid=hid, **kw),
            lambda r: {**_fields("measure_risk", r),
                       **{f"individual.{c}": r.individual[c].to_numpy(dtype=float) for c in r.individual.columns}})
        for k in K_ANON_KS:
            add(f"kAnon_violations k={k}", "k_anon_violations", lambda m, k=k: m.k_anon_violations(data, keys, k=k))
            if weight is not None:
                add(f"kAnon_violations k={k} weighted", "k_anon_violations",
                    lambda m, k=k: m.k_anon_violations(data, keys, k=k, w=weight, weighted=True))
        if len(keys) >= 2:
            add("suda2", "suda2", lambda m: m.suda2(data, keys))
        else:
            skipped.append(("suda2", "needs at least 2 key variables (sdcMicro fails with one)"))
        if sensitive:
            add("ldiversity", "ldiversity", lambda m: m.ldiversity(data, keys, list(sensitive)))
        else:
            skipped.append(("ldiversity", "no sensitive variables (--sensitive)"))
        if weight is not None:
            formula = "~ " + " + ".join(keys)
            for meth in ("default", "IPF"):
                add(f"modRisk {meth}", "mod_risk", lambda m, meth=meth: m.mod_risk(data, formula, w=weight, method=meth))
        else:
            skipped.append(("modRisk", "needs a sampling weight (--weight): sdcMicro's modRisk takes its column"))
    if masked is not None:
        num = numeric_columns(data, masked)
        if num:
            for meth in D_UTILITY_METHODS:
                seed = {"random_state": random_state} if meth == "robeigen" else {}
                add(f"dUtility {meth}", "d_utility",
                    lambda m, meth=meth, seed=seed: m.d_utility(data[num], masked[num], method=meth, **seed),
                    lambda r: {"value": float(r.value)})
            add("dRisk", "d_risk", lambda m: m.d_risk(data[num], masked[num]))
            if len(data) <= max_rmd:
                add("dRiskRMD", "d_risk_rmd", lambda m: m.d_risk_rmd(data[num], masked[num], random_state=random_state))
            else:
                skipped.append(("dRiskRMD", f"{len(data)} records: sdcMicro's dRiskRMD builds an n x n distance matrix "
                                            f"(several GB at 2e4 records); raise --max-rmd-records (now {max_rmd}) "
                                            "to run it"))
        else:
            skipped.append(("dUtility, dRisk, dRiskRMD", "no numeric columns common to the data and the masked file"))
        add("IL_correl", "il_correl", lambda m: m.il_correl(data, masked), lambda r: {"value": r.value})
        add("IL_variables", "il_variables", lambda m: m.il_variables(data, masked),
            lambda r: {"value": r.value, **{f"per_variable.{k}": v for k, v in r.per_variable.items()}})
        if keys:  # the table of the key variables (without keys, as the other key-based measures: not run)
            add("infoLoss", "info_loss", lambda m: m.info_loss(data, masked, list(keys)), _info_loss_fields)
        if not num:
            skipped.append(("recordLinkage", "no numeric columns common to the data and the masked file"))
        elif len(data) <= max_rmd:
            add("recordLinkage", "record_linkage", lambda m: m.record_linkage(data, masked, num),
                _record_linkage_fields)
        else:
            skipped.append(("recordLinkage", f"{len(data)} records: the global matching needs the n x n distance "
                                             f"matrix (O(n^3) time); raise --max-rmd-records (now {max_rmd}) to run it"))
    return checks, skipped


def _tolerance(name: str, label: str, field: str, n: int | None = None):
    if name == "d_utility":
        method = label.split()[1]
        if method == "robeigen" and n is not None:  # long sums beyond covMcd's large-n threshold
            return robeigen_tolerance(n)
        return tolerance_for(name, method)
    return tolerance_for(name, field.split(".")[0] if name in ("ldiversity", "suda2", "mod_risk") else
                         field.split(".")[-1])


def _compare(label, name, res, rows, refusals, n: int | None = None) -> bool:
    """Append the rows of one measure (both results, or the refusals); return whether it agrees."""
    failed = {s: isinstance(v, Exception) for s, v in res.items()}
    if any(failed.values()):
        same = all(failed.values())
        rows.append({"measure": label, "field": "(error)",
                     "pysdc": "refused" if failed["pysdc"] else "result",
                     "sdcMicro": "refused" if failed["sdcMicro"] else "result",
                     "max_abs": None, "max_rel": None, "ok": same})
        refusals += [(label, s, str(res[s])) for s in ("pysdc", "sdcMicro") if failed[s]]
        return same
    ok = True
    exp, act = res["sdcMicro"], res["pysdc"]
    for fld in list(exp) + [f for f in act if f not in exp]:
        e, a = exp.get(fld), act.get(fld)
        if e is None or a is None:
            rows.append({"measure": label, "field": fld, "pysdc": "absent" if a is None else a,
                         "sdcMicro": "absent" if e is None else e, "max_abs": None, "max_rel": None, "ok": False})
            ok = False
            continue
        d = compare_arrays(fld, _tolerance(name, label, fld, n), e, a)
        rows.append({"measure": label, "field": fld, "pysdc": a, "sdcMicro": e, "max_abs": d.max_abs,
                     "max_rel": d.max_rel, "ok": d.ok})
        ok &= d.ok
    return ok


def _run(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except PysdcError as exc:
            return exc


# ------------------------------------------------------------------ createSdcObj

_PRINTED = {
    "risky_obs": r"Number of observations with higher risk than the main part of the data: (\d+)",
    "expected_reidentifications": r"Expected number of re-identifications: ([-\d.]+) \(([-\d.]+) %\)",
}


def _printed_numbers(text: str) -> dict:
    """The numbers of sdcMicro's ``print(sdc, "risk")`` text (before any manipulation)."""
    out = {}
    m = re.search(_PRINTED["risky_obs"], text)
    if m:
        out["risky_obs"] = float(m.group(1))
    found = re.findall(_PRINTED["expected_reidentifications"], text)
    if found:
        out["expected_reidentifications"] = float(found[0][0])
        out["expected_reidentifications_pct"] = float(found[0][1])
    if len(found) > 1:
        out["hier_expected_reidentifications"] = float(found[1][0])
        out["hier_expected_reidentifications_pct"] = float(found[1][1])
    return out


def risky_obs(risk: np.ndarray) -> int:
    """``print(sdc, "risk")``'s "observations with higher risk than the main part of the data":
    risk > median + 2 MAD (R's mad, constant 1.4826) and risk > 0.1."""
    r = np.asarray(risk, dtype=float)
    med = np.median(r)
    mad = 1.4826 * np.median(np.abs(r - med))
    return int(np.sum((r > med + 2 * mad) & (r > 0.1)))


def _r_round2(x: float) -> float:
    """R's round(x, 2) as print(sdc) shows it (round half to even on the decimal text is what
    sprintf does; R >= 4 rounds to the nearest representable: the same for these magnitudes)."""
    return float(f"{x:.2f}")


def _workflow(native, bridge, data, keys, weight, hid, sensitive, rows, refusals) -> bool:
    """SdcProblem against createSdcObj: print(sdc, "risk")'s numbers and the measures on the object."""
    spec = {"w": weight, "hid": hid, "sensitive": list(sensitive or ())}
    problem = _run(lambda: native.SdcProblem(data, keys, **spec))
    sdc = _run(lambda: bridge.SdcObj.create(data, keys, **spec))
    if isinstance(problem, Exception) or isinstance(sdc, Exception):
        return _compare("createSdcObj", "measure_risk", {"pysdc": problem, "sdcMicro": sdc}, rows, refusals)
    ok = True
    pr = _run(lambda: problem.risk(suda=len(keys) >= 2))
    # the numbers print(sdc, "risk") shows, and the unrounded values behind them
    text = sdc.print("risk") if not isinstance(pr, Exception) else ""
    if isinstance(pr, Exception):
        return _compare("createSdcObj: risk", "measure_risk", {"pysdc": pr, "sdcMicro": {}}, rows, refusals)
    mr = pr.measure_risk
    printed = _printed_numbers(text)
    mine = {"risky_obs": float(risky_obs(mr.individual["risk"])),
            "expected_reidentifications": _r_round2(mr.global_risk_er),
            "expected_reidentifications_pct": _r_round2(mr.global_risk_pct)}
    if "hier_expected_reidentifications" in printed and mr.hier_risk_er is not None:
        mine["hier_expected_reidentifications"] = _r_round2(mr.hier_risk_er)
        mine["hier_expected_reidentifications_pct"] = _r_round2(mr.hier_risk_pct)
    ok &= _compare('createSdcObj: print(sdc, "risk")', "measure_risk", {"pysdc": mine, "sdcMicro": printed},
                   rows, refusals)
    risk = sdc.risk
    g = risk["global"]
    ind = np.asarray(risk["individual"], dtype=float)
    exp = {"global_risk_er": g["risk_ER"], "global_risk_pct": g["risk_pct"], "individual.risk": ind[:, 0],
           "individual.fk": ind[:, 1], "individual.Fk": ind[:, 2]}
    act = {"global_risk_er": mr.global_risk_er, "global_risk_pct": mr.global_risk_pct,
           "individual.risk": mr.individual["risk"].to_numpy(dtype=float),
           "individual.fk": mr.individual["fk"].to_numpy(dtype=float),
           "individual.Fk": mr.individual["Fk"].to_numpy(dtype=float)}
    if hid is not None and "hier_risk_ER" in g:
        exp.update(hier_risk_er=g["hier_risk_ER"], hier_risk_pct=g["hier_risk_pct"])
        act.update(hier_risk_er=mr.hier_risk_er, hier_risk_pct=mr.hier_risk_pct)
    ok &= _compare("createSdcObj: measure_risk (risk slot)", "measure_risk", {"pysdc": act, "sdcMicro": exp},
                   rows, refusals)
    # kAnon_violations(sdc, weighted, k)
    exp, act = {}, {}
    for k, (_, r) in zip(K_ANON_KS, pr.k_anonymity.iterrows()):
        exp[f"k={k}"] = float(bridge.call("kAnon_violations", sdc.handle, weighted=False, k=k))
        act[f"k={k}"] = float(r["unweighted"])
        if weight is not None:
            exp[f"k={k} weighted"] = float(bridge.call("kAnon_violations", sdc.handle, weighted=True, k=k))
            act[f"k={k} weighted"] = float(r["weighted"])
    ok &= _compare("createSdcObj: kAnon_violations", "k_anon_violations", {"pysdc": act, "sdcMicro": exp},
                   rows, refusals)
    if len(keys) >= 2:
        s = _run(lambda: sdc.apply("suda2").risk["suda2"])
        res = {"sdcMicro": s if isinstance(s, Exception) else
               {"score": np.asarray(s["score"], float), "dis_score": np.asarray(s["disScore"], float)},
               "pysdc": (ValueError(pr.skipped.get("suda2")) if pr.suda2 is None else
                         {"score": np.asarray(pr.suda2.score, float),
                          "dis_score": np.asarray(pr.suda2.dis_score, float)})}
        ok &= _compare("createSdcObj: suda2", "suda2", res, rows, refusals)
    if sensitive:
        lv = _run(lambda: sdc.apply("ldiversity").risk["ldiversity"])
        if isinstance(lv, Exception) or pr.ldiversity is None:
            res = {"sdcMicro": lv if isinstance(lv, Exception) else {},
                   "pysdc": ValueError(pr.skipped.get("ldiversity")) if pr.ldiversity is None else {}}
        else:
            t = pr.ldiversity.table
            arr = np.asarray(lv, dtype=float)
            names = list(lv.columns) if isinstance(lv, pd.DataFrame) else list(t.columns)
            res = {"sdcMicro": {f"table.{c}": arr[:, j] for j, c in enumerate(names)},
                   "pysdc": {f"table.{c}": t[c].to_numpy(dtype=float) for c in t.columns}}
        ok &= _compare("createSdcObj: ldiversity", "ldiversity", res, rows, refusals)
    if weight is not None:
        formula = "~ " + " + ".join(keys)
        for meth in ("default", "IPF"):
            m_r = _run(lambda meth=meth: sdc.apply("modRisk", method=meth,
                                                   formulaM=bridge.formula(formula)).risk["model"])
            m_n = _run(lambda meth=meth: native.mod_risk(problem, formula, method=meth))
            res = {"sdcMicro": m_r if isinstance(m_r, Exception) else
                   {"gr1": float(m_r["gr1"]), "gr2": float(m_r["gr2"]),
                    "incl_prob": np.asarray(m_r["inclProb"], float)},
                   "pysdc": m_n if isinstance(m_n, Exception) else
                   {"gr1": m_n.gr1, "gr2": m_n.gr2, "incl_prob": m_n.incl_prob.to_numpy(dtype=float)}}
            ok &= _compare(f"createSdcObj: modRisk {meth}", "mod_risk", res, rows, refusals)
    return ok


def compare_on_data(native, bridge, data, masked=None, keys=None, weight=None, hid=None, sensitive=None, *,
                    random_state: int = 1, max_rmd: int = MAX_RMD_RECORDS, workflow: bool = True,
                    progress=None):
    """Run every applicable measure natively and through the bridge; compare field by field.

    Parameters
    ----------
    native, bridge : module
        :mod:`pysdc` and :mod:`pysdc.r`.
    data, masked : pandas.DataFrame
        The data and, optionally, its masked version (the information-loss and distance measures).
    keys, weight, hid, sensitive
        The roles: key variables, sampling weight, household id, sensitive variables.
    random_state : int
        Seed of robeigen's and dRiskRMD's MCD (``set.seed`` in R).
    max_rmd : int
        dRiskRMD runs only up to this many records (sdcMicro's n x n matrix).
    workflow : bool
        Also compare :class:`pysdc.SdcProblem` with sdcMicro's ``createSdcObj``.
    progress : callable, optional
        Called with each measure's label before it runs.

    Returns
    -------
    rows, refusals, skipped, ok
        One row per field (measure, field, pysdc value, sdcMicro value, max abs diff, max rel diff,
        agrees); the refusals with each side's reason; the counterparts that did not apply, with
        why; whether everything agrees (both refusing counts as agreeing).
    """
    rows, refusals, ok_all = [], [], True
    checks, skipped = _checks(data, masked, keys, weight, hid, sensitive, random_state, max_rmd)
    for label, name, call, fields in checks:
        if progress:
            progress(label)
        res = {}
        for side, impl in (("pysdc", native), ("sdcMicro", bridge)):
            out = _run(lambda impl=impl, call=call: call(impl))
            res[side] = out if isinstance(out, Exception) else _run(lambda out=out, fields=fields: fields(out))
        if isinstance(res["sdcMicro"], RNotAvailableError):  # e.g. recordLinkage: sdcMicro 5.8.1 only
            skipped.append((label, f"not in the installed sdcMicro: {res['sdcMicro']}"))
            continue
        ok_all &= _compare(label, name, res, rows, refusals, n=len(data))
    if workflow and keys:
        if progress:
            progress("createSdcObj")
        ok_all &= _workflow(native, bridge, data, keys, weight, hid, sensitive, rows, refusals)
    return rows, refusals, skipped, ok_all
