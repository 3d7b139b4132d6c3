"""Registry entries of sdcMicro's first measures: information loss (dUtility, IL_correl,
IL_variables) and frequency risk (freqCalc, indivRisk, measure_risk, ldiversity)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._results import (
    DUtilityResult,
    FreqCalcResult,
    ILCorrelResult,
    ILVariablesResult,
    IndivRiskResult,
    LDiversityResult,
    MeasureRiskResult,
)
from .._tolerances import tolerance_for
from .._types import r_class
from .._validation import FROM_ARRAY, RandomState, user_stacklevel
from ..loss import d_utility, il_correl, il_variables
from ..risk import freq_calc, indiv_risk, ldiversity, measure_risk
from ._measure import Measure, _floats, _loss_pair, _lst, _num, _risk_frame, decode

# =============================================================================
# dUtility


def _d_utility_from_r(res, values, R):
    value = res.value
    method = values["method"]
    if value is None or (isinstance(value, float) and np.isnan(value)):
        # sdcMicro's eigen/robeigen return a logical NA when their computation fails (try())
        warnings.warn(
            f"sdcMicro's dUtility(method={method!r}) returned NA (its computation failed inside try(), "
            "e.g. a constant column); returned as NaN.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
        value = float("nan")
    x = values["x"]
    return DUtilityResult(value=float(value), method=method, n=int(x.shape[0]), n_vars=int(x.shape[1]))


def _d_utility_to_r(values, R):
    """Send ``xm`` given as a NumPy array as an R matrix, as a user of sdcMicro would hand it over.

    sdcMicro's IL1/IL1s then read ``xm[[i]]`` -- one element -- for column ``i`` (its quirk, kept:
    the bridge returns sdcMicro's number); ``x`` stays a data.frame, the only table dUtility
    dispatches on.
    """
    kwargs = {"obj": values["x"], "xm": values["xm"], "method": values["method"]}
    xm = values["xm"]
    if isinstance(xm, pd.DataFrame) and xm.attrs.get(FROM_ARRAY):
        kwargs["xm"] = xm.to_numpy(dtype=np.float64, na_value=np.nan)
    return "dUtility", kwargs, False


def _run_d_utility(fn, a, inputs, expected):
    return {"value": float(fn(inputs["x"], inputs["xm"], method=a["method"], random_state=1))}


def _compare_d_utility(c, exp, act, args, mode):
    if "values_by_seed" in exp:
        # robeigen: random_state=1 is R's set.seed(1) -- natively (pysdc's MCD on R's own random stream)
        # as through the bridge -- so the stored seed-1 value, to rounding
        seeds = c.decode(exp["values_by_seed"])
        c.value("robeigen[set.seed(1)]", float(seeds[0]), act["value"], tolerance_for("d_utility", "robeigen"))
    else:
        c.value("value", exp["value"], act["value"], tolerance_for("d_utility", args.get("method", "IL1s")))


# =============================================================================
# IL_correl, IL_variables


def _il_correl_from_r(res, values, R):
    def num(d):
        return [str(col) for col in d.columns if r_class(d[col]) in ("numeric", "integer")]

    x, xm = values["x"], values["xm"]
    common = [col for col in num(x) if col in set(num(xm))]
    if common:  # sorted by R itself (its collation)
        out = R.call("sort", common, package="base")
        common = [out] if isinstance(out, str) else list(out)
    return ILCorrelResult(value=float(res.value), n_vars=int(res.attr("nr_vars")), n_x=int(res.attr("n_x")),
                          n_xm=int(res.attr("n_y")), variables=tuple(common))


def _il_variables_from_r(res, values, R):
    per = res.attr("indiv_distances", scalar=False)
    if not isinstance(per, pd.Series):
        per = pd.Series(np.asarray(per, dtype=float))
    return ILVariablesResult(value=float(res.value), per_variable=per.astype(float), n=int(res.attr("n")))


def _run_il_correl(fn, a, inputs, expected):
    return {"value": float(fn(inputs["x"], inputs["xm"]).value)}


def _compare_value(c, exp, act, args, mode):
    c.value("value", exp["value"], act["value"])


def _run_il_variables(fn, a, inputs, expected):
    r = fn(inputs["x"], inputs["xm"])
    return {"value": float(r.value), "n": int(r.n),
            "per_variable": {str(k): float(v) for k, v in r.per_variable.items()}}


def _compare_il_variables(c, exp, act, args, mode):
    c.value("value", exp["value"], act["value"])
    c.value("n", exp["n"], act["n"])
    ev, av = exp["per_variable"], act["per_variable"]
    if sorted(ev) != sorted(av):
        c.fail("per_variable", f"variables {sorted(av)} instead of sdcMicro's {sorted(ev)}", n=len(ev))
    else:
        names = sorted(ev)
        c.value("per_variable", [ev[k] for k in names], np.array([av[k] for k in names], dtype=float))


# =============================================================================
# freqCalc, indivRisk


def _freq_calc_from_r(res, values, R):
    out = res.value
    return FreqCalcResult(fk=_floats(out["fk"]), Fk=_floats(out["Fk"]), n1=int(out["n1"]), n2=int(out["n2"]),
                          key_vars=tuple(values["key_vars"]), alpha=float(values["alpha"]))


def _run_freq_calc(fn, a, inputs, expected):
    r = fn(inputs["data"], _lst(a["keyVars"]), w=a.get("w"), alpha=a.get("alpha", 1))
    return {"n1": r.n1, "n2": r.n2, "fk": np.asarray(r.fk, dtype=float), "Fk": np.asarray(r.Fk, dtype=float)}


def _compare_freq_calc(c, exp, act, args, mode):
    c.value("n1", exp["n1"], act["n1"])
    c.value("n2", exp["n2"], act["n2"])
    c.rows("", exp, act, ["fk", "Fk"])


def _indiv_risk_to_r(values, R):
    """sdcMicro's indivRisk takes a freqCalc object: rebuild one from the FreqCalcResult."""
    freq = values["freq"]
    fk, Fk = _floats(freq.fk), _floats(freq.Fk)
    if fk.shape != Fk.shape:
        raise InvalidParameterError(f"freq.fk and freq.Fk differ in length ({fk.size} vs {Fk.size}).")
    keys = [str(k) for k in freq.key_vars] or ["key"]
    all_na = pd.arrays.IntegerArray(np.zeros(len(fk), dtype=np.int64), np.ones(len(fk), dtype=bool))
    fobj = R.call(
        "structure",
        {"freqCalc": pd.DataFrame({k: all_na for k in keys}), "keyVars": keys, "w": None, "fk": fk, "Fk": Fk,
         "n1": int(freq.n1), "n2": int(freq.n2), "alpha": float(freq.alpha)},
        package="base", as_robject=True, **{"class": "freqCalc"},
    )
    return "indivRisk", {"x": fobj, "method": values["method"], "qual": values["qual"],
                         "survey": values["survey"]}, False


def _indiv_risk_from_r(res, values, R):
    out = res.value
    return IndivRiskResult(
        rk=_floats(out["rk"]), fk=_floats(out["fk"]),
        method=None if out["method"] is None else str(out["method"]),  # NA with survey=False
        qual=_num(out["qual"]), key_vars=tuple(values["freq"].key_vars),
    )


def _run_indiv_risk(fn, a, inputs, expected):
    keys = _lst(a["keyVars"])
    if expected is None:  # sdcMicro refused: feed pysdc's own frequencies
        f = freq_calc(inputs["data"], keys, w=a.get("w"), alpha=a.get("alpha", 1))
    else:
        dec = decode
        fk, Fk = dec(expected.get("fk_in", [])), dec(expected.get("Fk_in", []))
        f = FreqCalcResult(fk=fk, Fk=Fk, n1=int((fk == 1).sum()), n2=int((fk == 2).sum()),
                           key_vars=tuple(keys), alpha=float(a.get("alpha", 1)))
    r = fn(f, method=a.get("method", "approx"), qual=a.get("qual", 1), survey=a.get("survey", True))
    return {"rk": np.asarray(r.rk, dtype=float), "__rows_given__": True}


def _compare_indiv_risk(c, exp, act, args, mode):
    c.rows("", exp, act, ["rk"])


# =============================================================================
# measure_risk


#: measure_risk's result fields -> sdcMicro's components
_MR_FIELDS = {"global_risk_er": "global_risk_ER", "global_risk": "global_risk",
              "global_risk_pct": "global_risk_pct", "global_threshold": "global_threshold",
              "max_global_risk": "max_global_risk", "hier_risk_er": "hier_risk_ER",
              "hier_risk": "hier_risk", "hier_risk_pct": "hier_risk_pct", "individual": "Res"}
_MR_SCALARS = ("global_risk_er", "global_risk", "global_risk_pct", "global_threshold", "max_global_risk",
               "hier_risk_er", "hier_risk", "hier_risk_pct")


def _measure_risk_to_r(values, R):
    """sdcMicro's public measure_risk fails whenever alpha is passed; its worker computes it."""
    kwargs = {"keyVars": values["key_vars"], "w": values["w"], "hid": values["hid"],
              "max_global_risk": values["max_global_risk"], "fast_hier": values["fast_hier"]}
    if values["alpha"] == 1.0:
        return "measure_risk", {"obj": values["data"], **kwargs}, False
    return "measure_riskWORK", {"data": values["data"], **kwargs, "alpha": values["alpha"]}, True


def _measure_risk_from_r(res, values, R):
    out = res.value
    fields = _MR_FIELDS
    ind = out[fields["individual"]]
    if not isinstance(ind, pd.DataFrame):  # pragma: no cover - sdcMicro always names the columns
        ind = pd.DataFrame(np.asarray(ind))
    ind.index = values["data"].index  # one row per record, indexed like the data (as natively)
    hier = values["hid"] is not None
    got = {k: (_num(out.get(fields[k])) if hier or not k.startswith("hier") else None) for k in _MR_SCALARS}
    return MeasureRiskResult(**got, individual=ind, key_vars=tuple(values["key_vars"]))


def _run_measure_risk(fn, a, inputs, expected):
    r = fn(inputs["data"], _lst(a["keyVars"]), w=a.get("w"), hid=a.get("hid"),
           max_global_risk=a.get("max_global_risk", 0.01), fast_hier=a.get("fast_hier", True),
           alpha=a.get("alpha", 1))
    r_name = _MR_FIELDS
    out = {r_name[k]: getattr(r, k) for k in _MR_SCALARS}  # stored under sdcMicro's names
    out["Res"] = {col: r.individual[col].to_numpy(dtype=float) for col in r.individual.columns}
    return out


def _compare_measure_risk(c, exp, act, args, mode):
    r_name = _MR_FIELDS
    for k in (r_name[f] for f in _MR_SCALARS):
        if k in exp:
            c.value(k, exp[k], act.get(k))
        elif act.get(k) is not None:
            c.fail(k, f"pysdc gives {k}={act.get(k)!r}; sdcMicro has none")
    names = [col for col in exp["Res"] if col not in ("rows", "row_sums", "n_rows")]
    c.rows("Res.", exp["Res"], act["Res"], names)


# =============================================================================
# ldiversity


def _ldiversity_from_r(res, values, R):
    out = res.value
    if not isinstance(out, pd.DataFrame):  # pragma: no cover
        out = pd.DataFrame(np.asarray(out))
    out.index = values["data"].index
    return LDiversityResult(table=out, key_vars=tuple(values["key_vars"]), ldiv_index=tuple(values["ldiv_index"]),
                            l_recurs_c=float(values["l_recurs_c"]))


def _run_ldiversity(fn, a, inputs, expected):
    t = fn(inputs["data"], _lst(a["keyVars"]), _lst(a["ldiv_index"]), l_recurs_c=a.get("l_recurs_c", 2)).table
    return {"columns": [str(col) for col in t.columns],
            "values": {str(col): t[col].to_numpy(dtype=float) for col in t.columns}}


def _compare_ldiversity(c, exp, act, args, mode):
    ecols = exp["columns"]
    if list(act["columns"]) != list(ecols):
        c.fail("columns", f"columns {act['columns']} instead of sdcMicro's {ecols}", n=len(ecols))
    else:
        c.rows("", exp["values"], act["values"], ecols)




def _example_indiv_risk() -> dict:
    return {"freq": freq_calc(_risk_frame(), ["a", "b"], w="w")}


# the registry (report order)

ENTRIES: tuple[Measure, ...] = (
    Measure(
        "d_utility", "dUtility", "loss", d_utility, DUtilityResult,
        arguments={"x": "obj", "xm": "xm", "method": "method", "average": None, "random_state": None},
        fields={"value": "(numeric)", "method": None, "n": None, "n_vars": None, "average": None},
        defaults={"method": "IL1s"},
        formals_of="dUtilityWORK",
        notes="IL1 and IL1s are plain sums over cells (IL1 in percent).",
        r_requires={"average": (False, (
            "average=True does not exist in sdcMicro's dUtility (it returns plain sums over cells); "
            "use the native pysdc.d_utility(..., average=True), or average=False here."))},
        r_params={"random_state": RandomState(generator=False, note="The R bridge seeds R's set.seed with it.")},
        r_seed="random_state",
        to_r=_d_utility_to_r, from_r=_d_utility_from_r,
        run_case=_run_d_utility, compare_case=_compare_d_utility,
        example=lambda: {**_loss_pair(), "method": "IL1s"},
        description="information loss of the numeric variables: IL1 and IL1s add up every cell's deviation (in "
                    "percent of the original value, or in standard deviations), eigen and robeigen compare the "
                    "eigenvalues of the covariance matrices (robeigen: the robust MCD covariance). 0 = unchanged.",
        citation="sdcMicro's dUtility; Yancey, Winkler & Creecy 2002 (IL1s); Mlodak 2020 (eigen)",
        section="utility",
        variants={
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
        },
    ),
    Measure(
        "il_correl", "IL_correl", "loss", il_correl, ILCorrelResult,
        arguments={"x": "x", "xm": "xm", "normalization": None},
        fields={"value": "(numeric)", "n_vars": 'attr "nr_vars"', "n_x": 'attr "n_x"', "n_xm": 'attr "n_y"',
                "variables": None},
        notes="1/sqrt(2) normalisation (Mlodak's paper has 1/2: normalization='mlodak').",
        r_requires={"normalization": ("sdcmicro", (
            "normalization='mlodak' does not exist in sdcMicro (it always uses 1/sqrt(2)); "
            "use the native pysdc.il_correl for it, or normalization='sdcmicro' here."))},
        from_r=_il_correl_from_r,
        run_case=_run_il_correl, compare_case=_compare_value,
        example=_loss_pair,
        description="distance between the normalised diagonals of the inverse correlation matrices, between 0 (same) "
                    "and 1.",
        citation="sdcMicro's IL_correl(x, xm); Mlodak 2020",
        section="utility",
    ),
    Measure(
        "il_variables", "IL_variables", "loss", il_variables, ILVariablesResult,
        arguments={"x": "x", "xm": "xm", "scales": None},
        fields={"value": "(numeric)", "per_variable": 'attr "indiv_distances"', "n": 'attr "n"'},
        notes="integer and logical columns are refused as sdcMicro refuses them; declare a scale instead.",
        r_requires={"scales": ({}, (
            "scales is not supported by the R bridge: sdcMicro's IL_variables has no such argument and "
            "reads each variable's scale from its R class. Pass scales=None and set the column dtypes "
            "(float -> numeric, ordered Categorical -> ordinal, Categorical/str -> nominal), or use the "
            "native pysdc.il_variables."))},
        from_r=_il_variables_from_r,
        run_case=_run_il_variables, compare_case=_compare_il_variables,
        example=_loss_pair,
        description="lambda: mean distance per cell, between 0 (same) and 1; numeric cells (2/pi)*atan|x - xm|, "
                    "ordered categories |code difference|/(levels - 1), other categories 0/1. Per variable: its "
                    "distances summed / n.",
        citation="sdcMicro's IL_variables(x, xm); Mlodak 2020",
        section="utility",
    ),
    Measure(
        "freq_calc", "freqCalc", "risk", freq_calc, FreqCalcResult,
        arguments={"data": "x", "key_vars": "keyVars", "w": "w", "alpha": "alpha"},
        fields={"fk": "fk", "Fk": "Fk", "n1": "n1", "n2": "n2"},
        defaults={"w": None, "alpha": 1},
        notes="missing key values are wildcards.",
        from_r=_freq_calc_from_r,
        run_case=_run_freq_calc, compare_case=_compare_freq_calc,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b"], "w": "w"},
        description="how often each record's combination of key values occurs in the sample (fk) and, with weights, "
                    "the estimated population frequency (Fk); missing key values match any value. n1, n2: records "
                    "whose combination occurs once, twice.",
        citation="sdcMicro's freqCalc",
        section="risk",
    ),
    Measure(
        "indiv_risk", "indivRisk", "risk", indiv_risk, IndivRiskResult,
        arguments={"freq": "x", "method": "method", "qual": "qual", "survey": "survey", "exact_method": None},
        fields={"rk": "rk", "fk": "fk", "method": "method", "qual": "qual"},
        defaults={"method": "approx", "qual": 1, "survey": True},
        r_requires={"exact_method": ("sdcmicro", (
            "exact_method='stable' does not exist in sdcMicro's indivRisk (it evaluates the alternating series); "
            "use the native pysdc.indiv_risk for it, or exact_method='sdcmicro' here."))},
        to_r=_indiv_risk_to_r, from_r=_indiv_risk_from_r,
        run_case=_run_indiv_risk, compare_case=_compare_indiv_risk,
        example=_example_indiv_risk,
        description="each record's re-identification risk, estimated from its sample frequency fk and population "
                    "frequency Fk under the negative binomial model of Benedetti and Franconi.",
        citation="sdcMicro's indivRisk; Franconi & Polettini 2004",
        section="risk",
    ),
    Measure(
        "measure_risk", "measure_risk", "risk", measure_risk, MeasureRiskResult,
        arguments={"data": "obj", "key_vars": "keyVars", "w": "w", "hid": "hid",
                   "max_global_risk": "max_global_risk", "fast_hier": "fast_hier", "alpha": "alpha"},
        fields=_MR_FIELDS,
        defaults={"w": None, "hid": None, "max_global_risk": 0.01, "fast_hier": True},
        formals_of="measure_riskWORK",
        notes="sdcMicro's data.frame method fails whenever alpha is passed; pysdc (and pysdc.r) use its "
              "internal worker measure_riskWORK.",
        to_r=_measure_risk_to_r, from_r=_measure_risk_from_r,
        run_case=_run_measure_risk, compare_case=_compare_measure_risk,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b"], "w": "w", "hid": "h"},
        description="each record's re-identification risk, the expected number of re-identifications in the file "
                    "(global risk) and, with a household id, the risk of the household.",
        citation="sdcMicro's measure_risk; Franconi & Polettini 2004",
        section="risk",
    ),
    Measure(
        "ldiversity", "ldiversity", "risk", ldiversity, LDiversityResult,
        arguments={"data": "obj", "key_vars": "keyVars", "ldiv_index": "ldiv_index", "l_recurs_c": "l_recurs_c"},
        fields={"table": "(matrix)", "key_vars": None, "ldiv_index": None, "l_recurs_c": None},
        defaults={"l_recurs_c": 2},
        formals_of="ldiversityWORK",
        from_r=_ldiversity_from_r,
        run_case=_run_ldiversity, compare_case=_compare_ldiversity,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b"], "ldiv_index": "s"},
        description="l-diversity of the sensitive variables: how many different sensitive values the records sharing "
                    "a key combination show (distinct, entropy and recursive l-diversity).",
        citation="sdcMicro's ldiversity; Machanavajjhala et al. 2007",
        section="ldiversity",
    ),
)
