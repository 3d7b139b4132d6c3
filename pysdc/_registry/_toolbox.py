"""Registry entries of the handbook's risk toolbox: modRisk, suda2, kAnon_violations, dRisk, dRiskRMD."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._results import DRiskResult, KAnonResult
from .._tolerances import CLOSED_FORM
from .._types import r_class
from ..core.formula import parse_formula
from ..risk._distance import DRiskRMDResult, d_risk, d_risk_rmd
from ..risk._kanon import k_anon_violations
from ..risk._model import ModRiskResult, mod_risk
from ..risk._suda2 import Suda2Result, suda2
from ._measure import Measure, _floats, _loss_pair, _lst, _risk_frame

# =============================================================================
# modRisk


def _mod_risk_to_r(values, R):
    formula = R.call("as.formula", values["formula"], package="stats", as_robject=True)
    return "modRisk", {"obj": values["data"], "method": values["method"], "weights": values["w"],
                       "formulaM": formula, "bound": values["bound"]}, False


def _mod_risk_from_r(res, values, R):
    out = res.value
    fitted = out["fitted"]
    if not isinstance(fitted, pd.Series):  # IPF: a k-way table -> its values, first key fastest
        fitted = pd.Series(np.asarray(fitted, dtype=float).reshape(-1, order="F"))
    incl = out["inclProb"]
    incl = incl if isinstance(incl, pd.Series) else pd.Series(np.asarray(incl, dtype=float).reshape(-1))
    num = lambda k: float("nan") if out[k] is None else float(out[k])  # noqa: E731
    return ModRiskResult(gr1=num("gr1"), gr2=num("gr2"), gr1perc=num("gr1perc"), gr2perc=num("gr2perc"),
                         method=str(out["method"]), formula=str(values["formula"]),
                         fitted=fitted.astype(float), incl_prob=incl.astype(float))


def _r_label(v) -> str:
    """A level label as R's as.character prints it."""
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (float, np.floating)):
        return f"{v:.15g}"
    return str(v)


def _labels(series: pd.Series) -> dict | None:
    if not isinstance(series.index, pd.MultiIndex) and series.index.name is None:
        return None  # the bridge's glm fits: R names its fitted values by grid row number
    names = list(series.index.names)
    return {n: [_r_label(v) for v in series.index.get_level_values(n)] for n in names}


def _run_mod_risk(fn, a, inputs, expected):
    r = fn(inputs["data"], a["formulaM"], w=a["weights"], method=a["method"],
           bound=float(a.get("bound", math.inf)))
    return {"gr1": r.gr1, "gr2": r.gr2, "gr1perc": r.gr1perc, "gr2perc": r.gr2perc, "method": r.method,
            "fitted": r.fitted.to_numpy(dtype=float), "fitted_keys": _labels(r.fitted),
            "inclProb": r.incl_prob.to_numpy(dtype=float), "inclProb_keys": _labels(r.incl_prob)}


def _compare_mod_risk(c, exp, act, args, mode):
    for f in ("gr1", "gr2", "gr1perc", "gr2perc"):
        c.value(f, exp[f], act[f], c.tol(f))
    if act["method"] != exp["method"]:
        c.fail("method", f"method {act['method']!r} instead of sdcMicro's {exp['method']!r}")
    for name, field in (("fitted", "fitted"), ("inclProb", "incl_prob")):
        e, got = exp[name], act[name]
        if len(got) != e["n"]:
            c.fail(name, f"{len(got)} entries instead of sdcMicro's {e['n']}", n=e["n"])
            continue
        rows = np.asarray(e["rows"], dtype=np.intp)
        c.value(name, e["values"], got[rows], c.tol(field))
        if e["n"]:
            tol = c.tol(field)
            c.value(f"sum({name})", e["sum"], float(np.sum(got)), type(tol)(max(tol.rtol, 1e-11), tol.atol, tol.reason))
        mine = act.get(f"{name}_keys")
        for var, labels in (e.get("keys") or {}).items():
            if mine is not None and [mine[var][i] for i in rows] != labels:
                c.fail(f"{name} keys", f"key labels of {var} differ from sdcMicro's")


def _example_mod_risk() -> dict:
    df = _risk_frame(n=80)
    return {"data": df, "formula": "~ a + b", "w": "w", "method": "default", "bound": 5.0}


# =============================================================================
# suda2


def _suda2_from_r(res, values, R):
    out = res.value
    keys = [str(k) for k in values["key_vars"]]
    cp = out["contributionPercent"].copy()
    cp.columns = [c[: -len("_contribution")] if c.endswith("_contribution") else c for c in cp.columns]
    cp.index = values["data"].index
    return Suda2Result(score=_floats(out["score"]), dis_score=_floats(out["disScore"]),
                       contribution_percent=cp[keys], attribute_contributions=out["attribute_contributions"],
                       attribute_level_contributions=out["attribute_level_contributions"],
                       key_vars=tuple(values["key_vars"]), dis_fraction=float(values["dis_fraction"]),
                       original_scores=bool(values["original_scores"]))


def _r_as_character(v: float) -> str:
    """R's as.character of a double: 15 significant digits, fixed unless scientific is shorter."""
    if v == 0:
        return "0"
    mant, exp = f"{v:.14e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    e = int(exp)
    sci = f"{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    digits = len(mant.replace("-", "").replace(".", ""))
    fixed = f"{v:.{max(digits - 1 - e, 0)}f}"
    return fixed if len(fixed) <= len(sci) else sci


def suda2_r_labels(data: pd.DataFrame, key_vars: list, attributes) -> list:
    """What sdcMicro's level table shows for pysdc's (variable, attribute) pairs.

    sdcMicro stacks one data.frame per key with ``rbind``, so the ``attribute`` column takes the
    type R's coercion gives step by step (observed in sdcMicro 5.8.0 for every pair of key classes):
    a factor column stays a factor, takes text values as new levels and turns logical and numeric
    values into NA ("invalid factor level"); a text column takes everything as text (factor labels,
    ``FALSE``/``TRUE``, ``as.character`` of numbers: 15 significant digits); a logical column
    becomes integer (0/1) when an integer key follows and double when a double key follows, and a
    non-factor column meeting a factor takes its labels as text. Labels are rendered as the R
    bridge shows the final column: text, ``str`` of Python's bool for an all-logical column.
    """
    attributes = list(attributes)
    order = {v: i for i, v in enumerate(dict.fromkeys(var for var, _ in attributes))}
    state = None  # the column's R type so far: factor, character, logical, integer, double
    vals: list = []  # one entry per row so far, in the column's current type (None = NA)

    def as_text(v, kind):
        if v is None:
            return None
        if kind == "logical":
            return "TRUE" if v else "FALSE"
        if kind == "integer":
            return str(int(v))
        if kind == "double":
            return _r_as_character(float(v))
        return str(v)

    for var in sorted(order, key=order.get):
        cls = r_class(data[var])
        kind = {"ordered": "factor", "numeric": "double"}.get(cls, cls)
        block = [a for v, a in attributes if v == var]
        if state is None:
            state, vals = kind, list(block)
        elif state == "factor":
            vals += [str(a) if kind in ("factor", "character") else None for a in block]
        elif state == "character" or kind in ("character", "factor"):
            vals = [as_text(v, state) for v in vals] + [str(a) if kind in ("factor", "character")
                                                        else as_text(a, kind) for a in block]
            state = "character"
        else:  # logical < integer < double
            rank = ("logical", "integer", "double")
            new = max(state, kind, key=rank.index)
            conv = {"logical": bool, "integer": int, "double": float}[new]
            vals = [None if v is None else conv(v) for v in vals + list(block)]
            state = new
    if state == "logical":
        return [None if v is None else str(bool(v)) for v in vals]
    return [as_text(v, state) if state in ("integer", "double") else (None if v is None else str(v))
            for v in vals]


def _run_suda2(fn, a, inputs, expected):
    keys = [a["variables"]] if isinstance(a["variables"], str) else list(a["variables"])
    kw = {k: a[r] for k, r in (("missing", "missing"), ("dis_fraction", "DisFraction"),
                               ("original_scores", "original_scores")) if r in a}
    r = fn(inputs["data"], keys, **kw)
    lev = r.attribute_level_contributions
    native = getattr(fn, "__module__", "") != "pysdc.r"  # the bridge's labels are sdcMicro's own
    labels = (suda2_r_labels(inputs["data"], keys, zip(lev["variable"], lev["attribute"])) if native
              else [None if pd.isna(v) else _r_as_character(v) if isinstance(v, float) else str(v)
                    for v in lev["attribute"]])
    out = {"score": r.score, "disScore": r.dis_score,
           **{k: r.contribution_percent[k].to_numpy(dtype=float) for k in keys},
           "ac_variable": [str(v) for v in r.attribute_contributions["variable"]],
           "ac_contribution": r.attribute_contributions["contribution"].to_numpy(dtype=float),
           "alc_variable": [str(v) for v in lev["variable"]], "alc_attribute": labels,
           "alc_contribution": lev["contribution"].to_numpy(dtype=float)}
    return out


def _as_list(v) -> list:
    return list(v) if isinstance(v, list) else [v]


def _compare_suda2(c, exp, act, args, mode):
    rw = exp["rowwise"]
    names = ["score", "disScore", *exp["variables"]]
    if "rows" in rw:
        c.rows("", rw, act, names)
        nz = exp["nonzero"]
        rows = np.atleast_1d(np.asarray(nz["rows"], dtype=int))
        got_rows = np.flatnonzero(np.asarray(act["score"]) != 0)
        if not np.array_equal(got_rows, rows):
            c.fail("nonzero", f"{got_rows.size} records score > 0 instead of sdcMicro's {rows.size}")
        else:
            for name in names:
                c.value(f"nonzero.{name}", np.atleast_1d(c.decode(nz[name])), np.asarray(act[name])[rows])
    else:
        for name in names:
            c.value(name, np.atleast_1d(c.decode(rw[name])), act[name])
    ac, alc = exp["attribute_contributions"], exp["attribute_level_contributions"]
    if act["ac_variable"] != _as_list(ac["variable"]):
        c.fail("attribute_contributions.variable", "variables differ from sdcMicro's")
    else:
        c.value("attribute_contributions", np.atleast_1d(c.decode(ac["contribution"])), act["ac_contribution"])
    if act["alc_variable"] != _as_list(alc["variable"]) or act["alc_attribute"] != _as_list(alc["attribute"]):
        c.fail("attribute_level_contributions.attribute", "variables or level labels differ from sdcMicro's")
    else:
        c.value("attribute_level_contributions", np.atleast_1d(c.decode(alc["contribution"])),
                act["alc_contribution"])


# =============================================================================
# kAnon_violations


def _k_anon_to_r(values, R):
    """kAnon_violations needs an sdcMicroObj: createSdcObj first (in the same locked session)."""
    data = values["data"]
    obj = R.call("createSdcObj", data, keyVars=values["key_vars"], weightVar=values["w"],
                 alpha=float(values["alpha"]), as_robject=True)
    return "kAnon_violations", {"obj": obj, "weighted": values["weighted"], "k": float(values["k"])}, False


def _k_anon_from_r(res, values, R):
    """sdcMicro's count as the native result class."""
    return KAnonResult(int(res.value), k=float(values["k"]), weighted=bool(values["weighted"]), n=len(values["data"]),
                       key_vars=tuple(values["key_vars"]))


def _run_k_anon(fn, a, inputs, expected):
    return {"value": fn(inputs["data"], _lst(a["keyVars"]), k=a["k"], w=a.get("weightVar"),
                        weighted=bool(a["weighted"]), alpha=float(a.get("alpha", 1.0)))}


def _compare_value(c, exp, act, args, mode):
    c.value("value", exp["value"], act["value"])


# =============================================================================
# dRisk, dRiskRMD


def _d_risk_from_r(res, values, R):
    """sdcMicro's share as the native result class."""
    v = res.value
    return DRiskResult(float("nan") if v is None else float(v), k=float(values["k"]), n=int(values["x"].shape[0]),
                       n_vars=int(values["x"].shape[1]))


def _run_d_risk(fn, a, inputs, expected):
    return {"value": fn(inputs["x"], inputs["xm"], **({"k": a["k"]} if "k" in a else {}))}


def _d_risk_rmd_from_r(res, values, R):
    out = res.value

    def idx(v):  # R's 1-based indices (NULL: none) -> 0-based positions
        return np.zeros(0, dtype=np.int64) if v is None else np.atleast_1d(np.asarray(v, dtype=np.int64)) - 1

    num = lambda k: float("nan") if out[k] is None else float(out[k])  # noqa: E731
    return DRiskRMDResult(risk1=num("risk1"), risk2=num("risk2"), wrisk1=num("wrisk1"), wrisk2=num("wrisk2"),
                          index_risk1=idx(out["indexRisk1"]), index_risk2=idx(out["indexRisk2"]),
                          riskvec1=_floats(out["riskvec1"]), riskvec2=_floats(out["riskvec2"]))


def _run_d_risk_rmd(fn, a, inputs, expected):
    # random_state=1: R's set.seed(1), natively and through the bridge, as the stored seed 1
    r = fn(inputs["x"], inputs["xm"], random_state=1, **{k: a[k] for k in ("k", "k2") if k in a})
    return {f: getattr(r, f) for f in ("risk1", "risk2", "wrisk1", "wrisk2", "index_risk1", "index_risk2",
                                       "riskvec1", "riskvec2")}


def _idx(v) -> np.ndarray:
    return np.atleast_1d(np.asarray(v, dtype=np.int64)).reshape(-1) - 1


def _compare_d_risk_rmd(c, exp, act, args, mode):
    # random_state=1 is R's set.seed(1), natively (pysdc's MCD on R's own random stream) as through the
    # bridge: sdcMicro's seed-1 result exactly
    bs = exp["by_seed"][0]
    for f, rf in (("index_risk1", "indexRisk1"), ("index_risk2", "indexRisk2")):
        if not np.array_equal(act[f], _idx(bs[rf])):
            c.fail(f, f"{f} differs from sdcMicro's set.seed(1) result")
    for f in ("risk1", "risk2", "wrisk1", "wrisk2"):
        c.value(f, bs[f], act[f], CLOSED_FORM)
    c.rows("", {**bs, "riskvec1": bs["riskvec1"], "riskvec2": bs["riskvec2"]}, act, ["riskvec1", "riskvec2"])


# =============================================================================
# the entries (report order)

ENTRIES: tuple[Measure, ...] = (
    Measure(
        "mod_risk", "modRisk", "risk", mod_risk, ModRiskResult,
        arguments={"data": "obj", "formula": "formulaM", "w": "weights", "method": "method", "bound": "bound",
                   "ipf_join": None},
        fields={"gr1": "gr1", "gr2": "gr2", "gr1perc": "gr1perc", "gr2perc": "gr2perc", "method": "method",
                "formula": "model", "fitted": "fitted", "incl_prob": "inclProb", "iterations": None,
                "converged": None},
        defaults={"method": "default", "bound": math.inf},
        r_requires={"ipf_join": ("sdcmicro", (
            "ipf_join='all' does not exist in sdcMicro's modRisk (its IPF merge can miss cells); use the native "
            "pysdc.mod_risk for it, or ipf_join='sdcmicro' here."))},
        notes="formula is R formula text; the glm fits follow R's glm.fit iteration by iteration. Through the "
              "bridge, glm fitted values keep R's names (grid row numbers), not the key combination.",
        to_r=_mod_risk_to_r, from_r=_mod_risk_from_r,
        extra_columns=lambda v: {"data": list(parse_formula(v["formula"]).variables)},
        run_case=_run_mod_risk, compare_case=_compare_mod_risk,
        example=_example_mod_risk,
        description="global risk from a Poisson log-linear model of the key table: over the sample uniques, the "
                    "expected number of population uniques (gr1) and of correct matches (gr2), also in percent.",
        citation="sdcMicro's modRisk; Skinner & Holmes 1998; Elamir & Skinner 2004",
        section="risk",
    ),
    Measure(
        "suda2", "suda2", "risk", suda2, Suda2Result,
        arguments={"data": "obj", "key_vars": "variables", "missing": "missing", "dis_fraction": "DisFraction",
                   "original_scores": "original_scores"},
        fields={"score": "score", "dis_score": "disScore", "contribution_percent": "contributionPercent",
                "attribute_contributions": "attribute_contributions",
                "attribute_level_contributions": "attribute_level_contributions",
                "key_vars": None, "dis_fraction": None, "original_scores": None},
        defaults={"missing": -999, "DisFraction": 0.01, "original_scores": True},
        formals_of="suda2WORK",
        notes="keys are taken as 32-bit integers (factors by code); missing values are not wildcards; "
              "contributionPercent is a fraction; fewer than 3 keys add dummy columns (warned).",
        from_r=_suda2_from_r,
        run_case=_run_suda2, compare_case=_compare_suda2,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b", "s"]},
        description="special uniques: records unique in some subset of their key variables, scored by SUDA (smaller "
                    "subsets score higher) and DIS-SUDA, with each key variable's contribution.",
        citation="sdcMicro's suda2; Elliot et al. 2002; Manning, Haglin & Keane 2008",
        section="suda2",
    ),
    Measure(
        "k_anon_violations", "kAnon_violations", "risk", k_anon_violations, KAnonResult,
        arguments={"data": "obj", "key_vars": "keyVars", "k": "k", "w": "weightVar", "weighted": "weighted",
                   "alpha": "alpha"},
        fields={"value": "(numeric)", "k": None, "weighted": None, "n": None, "key_vars": None},
        notes="sdcMicro's kAnon_violations(createSdcObj(data, keyVars, weightVar = w, alpha = alpha), weighted, k): "
              "k rounded half to even; missing keys are wildcards counted with alpha.",
        to_r=_k_anon_to_r, from_r=_k_anon_from_r,
        run_case=_run_k_anon, compare_case=_compare_value,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b"], "k": 3, "w": "w"},
        description="number of records whose key combination occurs fewer than k times (fk < k; with weights, the "
                    "estimated population frequency Fk < k).",
        citation="sdcMicro's kAnon_violations; Samarati & Sweeney 1998",
        section="risk",
    ),
    Measure(
        "d_risk", "dRisk", "risk", d_risk, DRiskResult,
        arguments={"x": "obj", "xm": "xm", "k": "k"},
        fields={"value": "(numeric)", "k": None, "n": None, "n_vars": None},
        defaults={"k": 0.05},
        formals_of="dRiskWORK",
        notes="intervals of k times the sd of xm around each masked value; columns paired by position.",
        from_r=_d_risk_from_r,
        run_case=_run_d_risk, compare_case=_compare_value,
        example=lambda: {**_loss_pair(), "k": 0.05},
        description="share of records whose original values all lie within k standard deviations of their masked "
                    "values (interval disclosure of continuous variables).",
        citation="sdcMicro's dRisk; Mateo-Sanz, Sebé & Domingo-Ferrer 2004",
        section="risk",
    ),
    Measure(
        "d_risk_rmd", "dRiskRMD", "risk", d_risk_rmd, DRiskRMDResult,
        arguments={"x": "obj", "xm": "xm", "k": "k", "k2": "k2", "random_state": None},
        fields={"risk1": "risk1", "risk2": "risk2", "wrisk1": "wrisk1", "wrisk2": "wrisk2",
                "index_risk1": "indexRisk1", "index_risk2": "indexRisk2", "riskvec1": "riskvec1",
                "riskvec2": "riskvec2"},
        defaults={"k": 0.01, "k2": 0.05},
        formals_of="dRiskRMDWORK",
        notes="robust Mahalanobis distances (covMcd: random, seeded by random_state); index_risk* are 0-based.",
        r_seed="random_state",
        from_r=_d_risk_rmd_from_r,
        run_case=_run_d_risk_rmd, compare_case=_compare_d_risk_rmd,
        example=lambda: {**_loss_pair(n=60), "random_state": 1},
        description="interval disclosure risk of continuous variables with intervals scaled by each record's robust "
                    "Mahalanobis distance (MCD), unweighted and weighted.",
        citation="sdcMicro's dRiskRMD; Templ & Meindl 2008",
        section="risk",
    ),
)
