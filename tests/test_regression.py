"""compare_regression: R's lm / glm coefficients, standard errors and intervals before and after masking.

Stored parity (r_reference/outputs/regression.json, made by R's stats), the practice guide's Mincer
example on the demo data, formula handling, validation, and live parity through the bridge (R + rpy2).
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc._io import read_table
from pysdc.core.rformula_lm import parse_regression_formula
from pysdc.loss._benchmark import ci_overlap
from pysdc.loss._regression import RegressionComparison, compare_regression

REF = Path(__file__).resolve().parent.parent / "r_reference"
OUT = REF / "outputs" / "regression.json"
RTOL = 1e-9  # issue 13: R's lm/glm to rtol 1e-9 (measured: ~1e-12)


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, str):
        return {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v, v)
    return v


CASES = [_decode(c) for c in json.loads(OUT.read_text())["cases"]]


@functools.cache
def _input(name: str) -> pd.DataFrame:
    return read_table(REF / "inputs" / name)


def run_case(case_args: dict, inputs: dict) -> RegressionComparison:
    x, xm = inputs["x"], inputs["xm"]
    pos = case_args.get("positive")
    if pos is not None:
        x, xm = x[x[pos] > 0], xm[xm[pos] > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        return compare_regression(x, xm, case_args["formula"], w=case_args.get("weights"),
                                  family=case_args["family"], level=case_args["level"])


def _check_side(table, side, ref, glm):
    have = list(table.index[table[f"estimate_{side}"].notna()])
    if side == "x":  # the table follows x's coefficients in R's order, then any only in xm
        assert have == list(ref["names"])
    else:
        assert sorted(have) == sorted(ref["names"])
    t = table.loc[ref["names"]]
    np.testing.assert_allclose(t[f"estimate_{side}"], ref["estimate"], rtol=RTOL)
    np.testing.assert_allclose(t[f"se_{side}"], ref["se"], rtol=RTOL)
    lo, hi = ("lower_wald", "upper_wald") if glm else ("lower", "upper")
    np.testing.assert_allclose(t[f"lower_{side}"], ref[lo], rtol=RTOL)
    np.testing.assert_allclose(t[f"upper_{side}"], ref[hi], rtol=RTOL)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_stored(case):
    inputs = {"x": _input(case["inputs"]["x"]), "xm": _input(case["inputs"]["xm"])}
    if "error" in case:
        with pytest.raises(InvalidParameterError):
            run_case(case["args"], inputs)
        return
    r = run_case(case["args"], inputs)
    glm = case["args"]["family"] != "gaussian"
    _check_side(r.table, "x", case["result"]["x"], glm)
    _check_side(r.table, "xm", case["result"]["xm"], glm)
    assert (r.df_residual_x, r.df_residual_xm) == (case["result"]["x"]["df_residual"], case["result"]["xm"]["df_residual"])
    t = r.table
    np.testing.assert_array_equal(t["inside"], (t.lower_x <= t.estimate_xm) & (t.estimate_xm <= t.upper_x))
    np.testing.assert_allclose(t["overlap"], ci_overlap(t.lower_x, t.upper_x, t.lower_xm, t.upper_xm))


GLM = [c for c in CASES if "error" not in c and c["args"]["family"] != "gaussian"]


@pytest.mark.xfail(strict=True, reason="R 4.2's confint() on a glm profiles the likelihood (MASS::confint.glm); "
                   "pysdc gives the Wald interval confint.default() (see compare_regression's Notes)")
@pytest.mark.parametrize("case", GLM, ids=[c["id"] for c in GLM])
def test_glm_profile_interval_not_reproduced(case):
    r = run_case(case["args"], {"x": _input(case["inputs"]["x"]), "xm": _input(case["inputs"]["xm"])})
    np.testing.assert_allclose(r.table.loc[case["result"]["x"]["names"], "lower_x"], case["result"]["x"]["lower"], rtol=RTOL)


# ------------------------------------------------------------------ the practice guide's Mincer example


def test_mincer_example_end_to_end():
    """log income on age group, sex and education, weighted, persons with income > 0 (the docstring example)."""
    x, xm = pysdc.load_demo_pair()
    pos, posm = x[x["income"] > 0], xm[xm["income"] > 0]
    r = compare_regression(pos, posm, "log(income) ~ age_group + sex + education", w="weight")
    assert list(r.table.columns) == ["estimate_x", "se_x", "lower_x", "upper_x", "estimate_xm", "se_xm",
                                     "lower_xm", "upper_xm", "inside", "overlap"]
    assert r.table.index[0] == "(Intercept)" and "sexfemale" in r.table.index and "education.L" in r.table.index
    assert r.ci_method == "t" and r.n_x == len(pos[["income", "age_group", "sex", "education", "weight"]].dropna())
    # the stored R result for the same fit
    ref = next(c for c in CASES if c["id"] == "regression:demo:demo_masked:mincer:w")["result"]
    np.testing.assert_allclose(r.table.loc[ref["x"]["names"], "estimate_x"], ref["x"]["estimate"], rtol=RTOL)
    np.testing.assert_allclose(r.table.loc[ref["xm"]["names"], "upper_xm"], ref["xm"]["upper"], rtol=RTOL)
    assert r.table["overlap"].between(-50, 1).all()


# ------------------------------------------------------------------ formulae


@pytest.mark.parametrize("text, labels", [
    ("y ~ I(x/1e5) + I(-x) + exp(2*x)", ["I(x/1e+05)", "I(-x)", "exp(2 * x)"]),
    ("y ~ I(x^2) + log(z+1) + I(s>0)", ["I(x^2)", "log(z + 1)", "I(s > 0)"]),
    ("y ~ I(100000*x) + I(10000*x) + I(1e-3*x) + I(2^x^2)", ["I(1e+05 * x)", "I(10000 * x)", "I(0.001 * x)", "I(2^x^2)"]),
    ("y ~ a*b", ["a", "b", "a:b"]),
    ("y ~ (a + b + c)^2 - b:c", ["a", "b", "c", "a:b", "a:c"]),
])
def test_term_labels_as_r(text, labels):
    # labels as R's attr(terms(f), "term.labels") prints them (checked in R 4.2.2)
    f = parse_regression_formula(text).formula
    assert [":".join(t) for t in f.terms] == labels


def test_intercept_forms():
    for text, icpt in [("y ~ x", True), ("y ~ x - 1", False), ("y ~ 0 + x", False), ("y ~ -1 + x", False),
                       ("y ~ x + 1", True)]:
        assert parse_regression_formula(text).formula.intercept is icpt


@pytest.mark.parametrize("text", ["~ x", "y ~ foo(x)", "y ~ x %in% z", "y ~ x/z", "y x", "y ~ 2", "y ~ x^z"])
def test_formula_refused(text):
    with pytest.raises(InvalidParameterError):
        parse_regression_formula(text)


def test_validation():
    x, xm = pysdc.load_demo_pair()
    with pytest.raises(InvalidParameterError, match="family"):
        compare_regression(x, xm, "income ~ sex", family="gamma")
    with pytest.raises(InvalidParameterError, match="infinite"):
        compare_regression(x, xm, "log(income) ~ sex")
    with pytest.raises(InvalidParameterError, match="not a column"):
        compare_regression(x, xm, "income ~ nope")
    with pytest.raises(InvalidParameterError, match="w names"):
        compare_regression(x, xm, "income ~ sex", w="nope")
    with pytest.raises(InvalidParameterError, match="numeric"):
        compare_regression(x, xm, "sex ~ hhsize")
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        compare_regression(x, xm, "hhsize ~ sex", family="binomial")
    with pytest.raises(InvalidParameterError, match="factor"):
        compare_regression(x, xm, "income ~ I(sex + 1)")


def test_identical_data():
    x, _ = pysdc.load_demo_pair()
    r = compare_regression(x, x, "income ~ hhsize + sex", w="weight")
    assert (r.table.overlap == 1.0).all() and r.table.inside.all()


# ------------------------------------------------------------------ live (R's stats through the bridge)


def _r_missing():
    try:
        import rpy2  # noqa: F401

        import pysdc.r as pr
    except ImportError:
        return "rpy2 is not installed (pip install 'pysdc-measures[r]')"
    st = pr.available(sdcmicro=False)
    return None if st else f"R is not available: {st.reason}"


def _r_fit(data: pd.DataFrame, formula: str, w, family: str, level: float):
    import pysdc.r as pr

    args = {"formula": pr.call("as.formula", formula, package="stats", as_robject=True), "data": data}
    if w is not None:
        args["weights"] = data[w].to_numpy()
    if family == "gaussian":
        fit = pr.call("do.call", "lm", args, package="base", as_robject=True)
        ci = pr.call("confint", fit, level=level, package="stats")
    else:
        args["family"] = pr.call(family, package="stats", as_robject=True)
        fit = pr.call("do.call", "glm", args, package="base", as_robject=True)
        ci = pr.call("confint.default", fit, level=level, package="stats")
    cs = pr.call("coef", pr.call("summary", fit, package="base", as_robject=True), package="stats")
    return cs, ci


LIVE = [
    ("log(income) ~ age_group + sex + education + marital", "weight", "gaussian", 0.95),
    ("log(income) ~ region*urbrur + hhsize + I(hhsize^2)", None, "gaussian", 0.99),
    ("savings ~ log(income) + sex", "weight", "gaussian", 0.9),
    ("I(expenditure > 1000) ~ region + sex + hhsize", "weight", "binomial", 0.95),
    ("hhsize ~ urbrur*sex + age_group", "weight", "poisson", 0.95),
]


@pytest.mark.needs_r
@pytest.mark.filterwarnings("ignore::pysdc._errors.RWarning")
@pytest.mark.filterwarnings("ignore::pysdc._errors.DegenerateResultWarning")
@pytest.mark.parametrize("formula, w, family, level", LIVE)
def test_live_against_r(formula, w, family, level):
    reason = _r_missing()
    if reason:
        pytest.skip(reason)
    x, xm = pysdc.load_demo_pair()
    x, xm = x[x.income > 0], xm[xm.income > 0]
    r = compare_regression(x, xm, formula, w=w, family=family, level=level)
    for side, data in (("x", x), ("xm", xm)):
        cs, ci = _r_fit(data, formula, w, family, level)
        t = r.table.loc[list(cs.index)]
        np.testing.assert_allclose(t[f"estimate_{side}"], cs.iloc[:, 0], rtol=RTOL)
        np.testing.assert_allclose(t[f"se_{side}"], cs.iloc[:, 1], rtol=RTOL)
        np.testing.assert_allclose(t[f"lower_{side}"], ci.loc[cs.index].iloc[:, 0], rtol=RTOL)
        np.testing.assert_allclose(t[f"upper_{side}"], ci.loc[cs.index].iloc[:, 1], rtol=RTOL)
