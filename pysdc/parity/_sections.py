"""Stored outputs that are neither one measure's nor one protection method's cases: their own report sections.

Three files of ``r_reference/outputs`` compare sdcMicro with pysdc across several functions at once:

* ``numerics.json`` (``generate_numerics.R``): ``indivRisk(method = "exact")`` where Franconi & Polettini's
  series cancels (frequency series given as numbers, and real key variables at a high sampling fraction), and
  ``dUtility`` eigen / robeigen on eusilc's near-singular numeric columns;
* ``print.json`` (``generate_print.R``): what sdcMicro's print methods of ``measure_risk``, ``freqCalc``,
  ``indivRisk`` and ``ldiversity`` show (the numbers behind the text, and the printed lines);
* ``createSdcObj.json`` (``generate_createSdcObj.R``): the ``createSdcObj`` workflow on files read as a user
  reads them (``read.csv`` / ``pandas.read_csv``), against :class:`pysdc.SdcProblem`: the key variables'
  levels, ``print(sdc, "risk")``'s numbers, the individual risk, ``kAnon_violations``, ``suda2``,
  ``ldiversity`` and ``modRisk(method = "IPF")`` on the object.

Each section runs natively (``impl`` = :mod:`pysdc`) and through the R bridge (``impl`` = :mod:`pysdc.r`) with
the same runner, and compares field by field at the tolerances of :mod:`pysdc._tolerances`. A case that cannot
run here (no system LAPACK to repeat R's ``eigen``) raises :class:`NotRunHere` and is reported as not run.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._results import FreqCalcResult
from .._summaries import five_numbers, higher_risk
from .._tolerances import CLOSED_FORM, EXACT, tolerance_for
from ..core import eigen as core_eigen
from ..core.indiv import exact_series
from ..problem import as_sdc_keys
from ..report._text import r_format, r_round

__all__ = ["Section", "SECTIONS", "NotRunHere", "section_for"]


class NotRunHere(Exception):
    """The case cannot run on this machine (said why): neither passed nor failed."""


@dataclass(frozen=True)
class Section:
    """One stored output file run as a report section of its own."""

    stem: str  # r_reference/outputs/<stem>.json; also the cases' function and group
    title: str  # the report's section heading
    python: str  # what pysdc runs
    what: str  # what the section compares
    run: Callable  # (case, impl, load, mode) -> actual fields
    compare: Callable  # (comparer, case, actual, mode) -> None


# ------------------------------------------------------------------ numerics.json

#: the stored references were made with glibc's pow/log on x86_64; elsewhere a last-bit difference of one power
#: is magnified by the series' cancellation (up to 1e17), so ill-conditioned values are compared only where the
#: C library is the same kind
SAME_LIBM = platform.libc_ver()[0] == "glibc" and platform.machine() in ("x86_64", "AMD64")
_EPS = float(np.finfo(float).eps)


def _exact_rk(impl, freq):
    return np.asarray(impl.indiv_risk(freq, method="exact").rk, dtype=np.float64)


def _eusilc_numeric(load, name: str, cols) -> pd.DataFrame:
    x = load(name)
    if cols == "numeric":
        cols = [c for c in x.columns if pd.api.types.is_numeric_dtype(x[c])]
    return x[list(cols)].astype(np.float64)


def _run_numerics(case, impl, load, mode):
    a, kind = case.args, case.id.split(":")[1]
    if kind == "indivRisk-series":
        fk = np.asarray(a["fk"], dtype=np.float64)
        Fk = fk * a["ratio"]
        freq = FreqCalcResult(fk=fk, Fk=Fk, n1=int((fk == 1).sum()), n2=int((fk == 2).sum()))
        return {"fk": fk, "Fk": Fk, "rk": _exact_rk(impl, freq)}
    if kind == "indivRisk-keys":
        keys = list(a["keyVars"])
        x = load(case.inputs.get("data") or case.inputs["csv"])
        for k in keys:
            if not pd.api.types.is_numeric_dtype(x[k]):
                x[k] = x[k].astype("category")  # createSdcObj's factors, as the generator makes them
        f = impl.freq_calc(x, keys)
        fk = np.asarray(f.fk, dtype=np.float64)
        scaled = FreqCalcResult(fk=fk, Fk=fk * a["ratio"], n1=f.n1, n2=f.n2, key_vars=f.key_vars, combo=f.combo)
        rk = _exact_rk(impl, scaled)
        u, first, n = np.unique(fk, return_index=True, return_counts=True)  # first: each fk's first record
        return {"n_records": len(x), "fk": u, "n": n, "Fk": scaled.Fk[first], "rk": rk[first],
                "rk_constant_within_fk": bool(np.array_equal(rk, rk[first][np.searchsorted(u, fk)], equal_nan=True))}
    if kind in ("dUtility-eigen", "dUtility-robeigen"):
        if not core_eigen.system_lapack():
            raise NotRunHere("no system LAPACK (liblapack.so.3) to repeat R's eigen() with")
        x = _eusilc_numeric(load, case.inputs["csv_x"], a["columns"])
        xm = _eusilc_numeric(load, case.inputs["csv_xm"], list(x.columns))
        if kind == "dUtility-eigen":
            return {"columns": list(x.columns), "value": float(impl.d_utility(x, xm, method="eigen").value)}
        seeds = [int(s) for s in a["seeds"]]
        return {"columns": list(x.columns), "seeds": seeds,
                "values_by_seed": np.array([float(impl.d_utility(x, xm, method="robeigen", random_state=s).value)
                                            for s in seeds])}
    raise NotRunHere(f"unknown numerics case kind {kind!r}")


def _well_conditioned(fk, Fk) -> np.ndarray:
    """Which exact-series values are compared off glibc/x86_64: cancellation ratio x eps below 1e-13."""
    if SAME_LIBM:
        return np.ones(np.size(fk), dtype=bool)
    fk = np.asarray(fk, dtype=np.float64)
    ratio = np.ones(fk.size)
    big = fk > 2
    if big.any():
        ratio[big] = exact_series(fk[big], fk[big] / np.asarray(Fk, dtype=np.float64)[big])[1]
    return ratio * _EPS < 1e-13


def _compare_numerics(c, case, actual, mode):
    e, kind = case.result, case.id.split(":")[1]
    if kind.startswith("indivRisk"):
        if kind == "indivRisk-keys":
            c.value("n_records", e["n_records"], actual["n_records"], EXACT)
            if not np.array_equal(np.asarray(e["fk"], dtype=float), actual["fk"]):
                c.fail("fk", f"the frequencies fk occurring differ from sdcMicro's ({len(actual['fk'])} vs "
                             f"{len(e['fk'])} distinct values)")
                return
            c.value("n", e["n"], actual["n"], EXACT)
            if bool(e["rk_constant_within_fk"]) != actual["rk_constant_within_fk"]:
                c.fail("rk_constant_within_fk", "the risk is not one value per fk, as in sdcMicro")
        else:
            c.value("fk", e["fk"], actual["fk"], EXACT)
        c.value("Fk", e["Fk"], actual["Fk"], EXACT)  # the same double products in R and NumPy
        keep = _well_conditioned(np.asarray(e["fk"], dtype=float), np.asarray(e["Fk"], dtype=float))
        c.value("rk", np.asarray(c.decode(e["rk"]), dtype=float)[keep], actual["rk"][keep],
                tolerance_for("indiv_risk", "rk"))
        return
    if list(e["columns"]) != actual["columns"]:
        c.fail("columns", f"numeric columns {actual['columns']} instead of read.csv's {list(e['columns'])}")
        return
    if kind == "dUtility-eigen":
        c.value("value", e["value"], actual["value"], tolerance_for("d_utility", "eigen"))
    else:
        c.value("values_by_seed", e["values_by_seed"], actual["values_by_seed"], tolerance_for("d_utility", "robeigen"))


# ------------------------------------------------------------------ print.json

def _run_print(case, impl, load, mode):
    a = case.args
    data = load(case.inputs["data"])
    keys = list(a["keyVars"])
    fun = a["fun"]
    if fun == "measure_risk":
        res = impl.measure_risk(data, keys, w=a.get("w"), hid=a.get("hid"))
        risk = res.individual["risk"].to_numpy(dtype=np.float64)
        hr = higher_risk(risk)
        num = {"global_risk_ER": res.global_risk_er, "global_risk_pct": res.global_risk_pct,
               "global_threshold": res.global_threshold, "hier_risk_ER": res.hier_risk_er,
               "hier_risk_pct": res.hier_risk_pct, "median_risk": hr["median"], "mad_risk": hr["mad"],
               "n_higher": hr["count"]}
    elif fun in ("freqCalc", "indivRisk"):
        f = impl.freq_calc(data, keys, w=a.get("w"), alpha=a.get("alpha", 1.0))
        res = f if fun == "freqCalc" else impl.indiv_risk(f)
        if fun == "freqCalc":
            num = {"n1": res.n1, "n2": res.n2}
        else:
            hr = higher_risk(np.asarray(res.rk, dtype=np.float64))
            num = {"median_risk": hr["median"], "mad_risk": hr["mad"], "qual": res.qual, "n_higher": hr["count"]}
    else:
        res = impl.ldiversity(data, keys, ldiv_index=list(a["ldiv_index"]))
        num = {col: five_numbers(res.table[col].to_numpy(dtype=np.float64)) for col in res.table.columns
               if col.endswith("_Distinct_Ldiversity")}
    return {"text": str(res), "numbers": num}


def _found(c, fname: str, pattern: str, r_text: str):
    got = re.findall(pattern, r_text)
    if not got:
        c.fail(fname, f"{pattern!r} is not in sdcMicro's stored text")
    return got


def _shows(c, fname: str, line: str, text: str) -> None:
    if line not in text:
        c.fail(fname, f"pysdc's printed text lacks {line!r}")


_FIVE = ("Min.", "1st Qu.", "Median", "Mean", "3rd Qu.", "Max.")


def _compare_print(c, case, actual, mode):
    r_text, e = case.result["text"], case.result["numbers"]
    text, num = actual["text"], actual["numbers"]
    fun = case.args["fun"]
    if fun == "measure_risk":
        for f in ("global_risk_ER", "global_risk_pct", "global_threshold", "hier_risk_ER", "hier_risk_pct",
                  "median_risk", "mad_risk"):
            c.value(f, e[f], num[f], tolerance_for("measure_risk", "hier_risk" if f.startswith("hier") else f))
        high = _found(c, "text: higher risk", r"(\d+) obs\. with higher risk", r_text)
        er = _found(c, "text: re-identifications", r"Expected no\. of re-identifications:\s*\n(\S+)", r_text)
        pct = _found(c, "text: percentage", r"\((\S+?)%\s*\)", r_text)
        thr = _found(c, "text: threshold", r"Threshold:(\S+)", r_text)
        if not (high and er and pct and thr):
            return
        c.value("obs. with higher risk", int(high[0]), num["n_higher"], EXACT)
        _shows(c, "text: higher risk", f"{high[0]} obs. with higher risk than the main part", text)
        _shows(c, "text: re-identifications", f"{er[0]} ({pct[0]}%)", text)
        _shows(c, "text: threshold", f"Threshold: {thr[0]} ", text)
        if r_round(num["global_risk_ER"]) != er[0]:
            c.fail("text: re-identifications", f"pysdc rounds to {r_round(num['global_risk_ER'])}, sdcMicro "
                                               f"prints {er[0]}")
        if len(er) > 1:
            _shows(c, "text: hierarchical risk", f"{er[1]} ({pct[1]}%)", text)
        elif "Hierarchical" in text:
            c.fail("text: hierarchical risk", "pysdc prints a hierarchical risk that sdcMicro does not")
    elif fun == "freqCalc":
        v2 = _found(c, "text: 2-anonymity", r"(\d+) obs\. violate 2-anonymity", r_text)
        v3 = _found(c, "text: 3-anonymity", r"(\d+) obs\. violate 3-anonymity", r_text)
        c.value("n1", e["n1"], num["n1"], EXACT)
        c.value("n2", e["n2"], num["n2"], EXACT)
        if v2 and v3:
            c.value("obs. violating 3-anonymity", int(v3[0]), num["n1"] + num["n2"], EXACT)
            _shows(c, "text: 2-anonymity", f"{v2[0]} obs. violate 2-anonymity", text)
            _shows(c, "text: 3-anonymity", f"{v3[0]} obs. violate 3-anonymity", text)
    elif fun == "indivRisk":
        for f in ("median_risk", "mad_risk"):
            c.value(f, e[f], num[f], CLOSED_FORM)
        c.value("qual", e["qual"], num["qual"], EXACT)
        mq = _found(c, "text: method", r"method=(\w+), qual=(\S+)", r_text)
        high = _found(c, "text: high risk", r"(\d+) obs\. with high risk", r_text)
        if mq and high:
            c.value("obs. with high risk", int(high[0]), num["n_higher"], EXACT)
            _shows(c, "text: method", f"method={mq[0][0]}, qual={mq[0][1]}", text)
            _shows(c, "text: high risk", f"{high[0]} obs. with high risk", text)
    else:
        if set(num) != set(e):
            c.fail("columns", f"pysdc's distinct l-diversity columns {sorted(num)} vs sdcMicro's {sorted(e)}")
            return
        rows = {ln.split()[0]: ln.split()[1:] for ln in text.splitlines() if "_Distinct_Ldiversity" in ln}
        for col, summ in e.items():
            want = [c.decode(summ[k]) for k in _FIVE]
            c.value(f"{col} summary", want, [num[col][k] for k in _FIVE], tolerance_for("ldiversity", col))
            printed = r_format([float(v) for v in want])
            if len(e) == 1:  # one sensitive variable: sdcMicro prints the summary vector, the line under "Min."
                lines = r_text.splitlines()
                head = next((i for i, ln in enumerate(lines) if ln.split()[:1] == ["Min."]), None)
                printed = lines[head + 1].split() if head is not None else printed
            if rows.get(col, [])[:6] != printed:
                c.fail(f"text: {col}", f"pysdc prints {rows.get(col, [])[:6]}, sdcMicro's summary reads {printed}")


# ------------------------------------------------------------------ createSdcObj.json

def _read_csv(case, load) -> pd.DataFrame:
    """The stored file as a user reads it (pandas.read_csv), with the factors the case makes."""
    df = load(case.inputs["csv"], raw=True)
    for col, levels in (case.args.get("factor_levels") or {}).items():
        df[col] = pd.Categorical(df[col], categories=levels)
    return df


def _num(v) -> float:
    return np.nan if v in ("NA", "NaN", None) else float(v)


def _run_native_workflow(case, impl, df):
    a = case.args
    p = impl.SdcProblem(df, a["keyVars"], w=a.get("weightVar"), hid=a.get("hhId"),
                        sensitive=a.get("sensibleVar") or (), collation=a.get("collation", "icu"))
    keyed = as_sdc_keys(df, a["keyVars"], collation=a.get("collation", "icu"))  # the problem's key variables
    levels = {k: [str(v) for v in keyed[k].cat.categories] for k in a["keyVars"]
              if isinstance(keyed[k].dtype, pd.CategoricalDtype)}
    r = p.risk(suda=a.get("suda2") is not False)
    mr = r.measure_risk
    out = {"levels": levels,
           "print_risk": {"risk_ER": mr.global_risk_er, "risk_pct": mr.global_risk_pct,
                          "hier_risk_ER": mr.hier_risk_er, "hier_risk_pct": mr.hier_risk_pct},
           "measure_risk": {f: mr.individual[f].to_numpy(dtype=np.float64) for f in ("risk", "fk", "Fk")},
           "kAnon_violations": {"unweighted": r.k_anonymity["unweighted"].to_numpy(dtype=np.float64),
                                "weighted": r.k_anonymity["weighted"].to_numpy(dtype=np.float64)}}
    if r.suda2 is not None:
        out["suda2"] = {"score": np.asarray(r.suda2.score, dtype=np.float64),
                        "disScore": np.asarray(r.suda2.dis_score, dtype=np.float64)}
    if r.ldiversity is not None:
        out["ldiversity"] = {col: r.ldiversity.table[col].to_numpy(dtype=np.float64)
                             for col in r.ldiversity.table.columns}
    if a.get("modRisk"):
        m = impl.mod_risk(p, a["modRisk"], method="IPF", bound=_num(a.get("modRisk_bound", "Inf")))
        out["modRisk_IPF"] = {"gr1": m.gr1, "gr2": m.gr2, "n_cells": len(m.incl_prob)}
    return out


def _run_bridge_workflow(case, bridge, df):
    a = case.args
    keys = list(a["keyVars"])
    old = None
    if a.get("collation") == "C":  # as the generator: createSdcObj makes the levels under LC_COLLATE=C
        old = bridge.call("Sys.getlocale", "LC_COLLATE", package="base")
        bridge.call("Sys.setlocale", "LC_COLLATE", "C", package="base")
    try:
        sdc = bridge.SdcObj.create(df, keys, w=a.get("weightVar"), hid=a.get("hhId"),
                                   sensitive=list(a.get("sensibleVar") or ()))
    finally:
        if old is not None:
            bridge.call("Sys.setlocale", "LC_COLLATE", old, package="base")
    mk = sdc.slot("manipKeyVars")
    levels = {k: [str(v) for v in mk[k].cat.categories] for k in keys
              if isinstance(mk[k].dtype, pd.CategoricalDtype)}
    risk = sdc.risk
    g = risk["global"]
    ind = np.asarray(risk["individual"], dtype=np.float64)
    out = {"levels": levels,
           "print_risk": {"risk_ER": g["risk_ER"], "risk_pct": g["risk_pct"],
                          "hier_risk_ER": g.get("hier_risk_ER"), "hier_risk_pct": g.get("hier_risk_pct")},
           "measure_risk": {"risk": ind[:, 0], "fk": ind[:, 1], "Fk": ind[:, 2]},
           "kAnon_violations": {w: np.array([float(bridge.call("kAnon_violations", sdc.handle, weighted=w == "weighted",
                                                               k=k)) for k in (2, 3, 5)])
                                for w in ("unweighted", "weighted")}}
    if a.get("suda2") is not False:
        s = sdc.apply("suda2").risk["suda2"]
        out["suda2"] = {"score": np.asarray(s["score"], dtype=np.float64),
                        "disScore": np.asarray(s["disScore"], dtype=np.float64)}
    if a.get("sensibleVar"):
        lv = sdc.apply("ldiversity").risk["ldiversity"]
        out["ldiversity"] = {col: np.asarray(lv[col], dtype=np.float64) for col in lv.columns}
    if a.get("modRisk"):
        m = sdc.apply("modRisk", method="IPF", formulaM=bridge.formula(a["modRisk"]),
                      bound=_num(a.get("modRisk_bound", "Inf"))).risk["model"]
        out["modRisk_IPF"] = {"gr1": float(m["gr1"]), "gr2": float(m["gr2"]),
                              "n_cells": len(np.atleast_1d(m["inclProb"]))}
    return out


def _run_createsdcobj(case, impl, load, mode):
    df = _read_csv(case, load)
    if mode == "native":
        return _run_native_workflow(case, impl, df)
    return _run_bridge_workflow(case, impl, df)


def _rowwise(c, prefix: str, stored: dict, values: dict, python: str) -> None:
    """Per-record fields (a sample of rows plus the sums over all, or every row) at ``python``'s tolerances."""
    sub = type(c)(python)
    sub.rows(prefix, stored, values, [n for n in stored if n not in ("rows", "row_sums", "n_rows")])
    c.diffs += sub.diffs


def _compare_createsdcobj(c, case, actual, mode):
    e = case.result
    for k, levels in e["levels"].items():
        if actual["levels"].get(k) != list(levels):
            c.fail(f"levels.{k}", f"{k}'s levels {actual['levels'].get(k)} instead of createSdcObj's {list(levels)}")
    pr, apr = e["print_risk"], actual["print_risk"]
    for f in ("risk_ER", "risk_pct", "hier_risk_ER", "hier_risk_pct"):
        c.value(f"print_risk.{f}", pr[f], apr[f], tolerance_for("measure_risk", "hier_risk" if "hier" in f else f))
    rk = actual["measure_risk"]["risk"]
    med = np.median(rk)
    risky = int(np.sum((rk > med + 2 * 1.4826 * np.median(np.abs(rk - med))) & (rk > 0.1)))
    c.value("print_risk.risky_obs", pr["risky_obs"], risky, EXACT)
    _rowwise(c, "measure_risk.", e["measure_risk"], actual["measure_risk"], "measure_risk")
    for w in ("unweighted", "weighted"):
        c.value(f"kAnon_violations.{w}", e["kAnon_violations"][w], actual["kAnon_violations"][w], EXACT)
    if "suda2" in e:
        s, got = e["suda2"], actual.get("suda2")
        if got is None:
            c.fail("suda2", "pysdc computed no suda2")
        else:
            nz = np.flatnonzero(got["score"] != 0)
            c.value("suda2.n_positive", s["n_positive"], nz.size, EXACT)
            if nz.tolist() != list(s["nonzero"]["rows"]):
                c.fail("suda2.nonzero.rows", "the records with a positive SUDA score differ from sdcMicro's")
            else:
                c.value("suda2.nonzero.score", s["nonzero"]["score"], got["score"][nz], EXACT)
                c.value("suda2.nonzero.disScore", s["nonzero"]["disScore"], got["disScore"][nz],
                        tolerance_for("suda2", "dis_score"))
            _rowwise(c, "suda2.", s["rowwise"], got, "suda2")
    if "ldiversity" in e:
        got = actual.get("ldiversity")
        if got is None:
            c.fail("ldiversity", "pysdc computed no ldiversity")
        else:
            _rowwise(c, "ldiversity.", e["ldiversity"]["rowwise"], got, "ldiversity")
            for v, med_ in e["ldiversity"]["median_distinct"].items():
                c.value(f"ldiversity.median_distinct.{v}", med_, np.median(got[f"{v}_Distinct_Ldiversity"]), EXACT)
    if "modRisk_IPF" in e:
        m, got = e["modRisk_IPF"], actual.get("modRisk_IPF")
        if got is None:
            c.fail("modRisk_IPF", "pysdc computed no modRisk")
        else:
            c.value("modRisk_IPF.gr1", m["gr1"], got["gr1"], tolerance_for("mod_risk", "gr1"))
            c.value("modRisk_IPF.gr2", m["gr2"], got["gr2"], tolerance_for("mod_risk", "gr2"))
            c.value("modRisk_IPF.n_cells", m["n_cells"], got["n_cells"], EXACT)


# ------------------------------------------------------------------ the sections, in report order

SECTIONS = {s.stem: s for s in (
    Section("numerics", "Numerically hard cases (`numerics.json`)", "indiv_risk, d_utility",
            "indivRisk(method = \"exact\") where its alternating series cancels (frequency series; real keys at a "
            "high sampling fraction) and dUtility eigen / robeigen on eusilc's near-singular numeric columns: "
            "sdcMicro's numbers, noise included (where the C library is not glibc on x86_64, only the exact-series "
            "values losing fewer than ~3 digits are compared: the C library's pow differs in the last bit elsewhere)",
            _run_numerics, _compare_numerics),
    Section("print", "Printed results (`print.json`)", "str() of measure_risk, freq_calc, indiv_risk, ldiversity",
            "what sdcMicro's print methods show: the numbers behind the text, compared at the tolerance, and each "
            "printed count, rounded value and summary line found in pysdc's str()", _run_print, _compare_print),
    Section("createSdcObj", "The createSdcObj workflow (`createSdcObj.json`)", "SdcProblem",
            "createSdcObj on files read as a user reads them: the key variables' levels, print(sdc, \"risk\")'s "
            "numbers, the individual risk, kAnon_violations, suda2, ldiversity and modRisk IPF on the object",
            _run_createsdcobj, _compare_createsdcobj),
)}


def section_for(function: str) -> Section | None:
    """The section whose cases carry ``function`` (its stem), or None for a measure or protection method."""
    return SECTIONS.get(function)
