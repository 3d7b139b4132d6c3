"""ci_overlap (Karr et al. 2006) worked examples and conventions; compare_estimates' built-ins and layout."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pysdc
from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc.loss._ci_overlap import ci_overlap
from pysdc.loss._compare_estimates import compare_estimates, weighted_quantile
from pysdc.loss._gini import gini

# ------------------------------------------------------------------ ci_overlap


@pytest.mark.parametrize("lx, ux, lm, um, want", [
    (0.0, 2.0, 1.0, 3.0, 0.5),                 # overlap 1 of widths 2 and 2
    (0.0, 4.0, 1.0, 2.0, (1 / 4 + 1 / 1) / 2),  # masked inside original
    (1.0, 2.0, 0.0, 4.0, (1 / 1 + 1 / 4) / 2),  # symmetric in the two intervals
    (0.0, 1.0, 1.0, 3.0, 0.0),                 # touching
    (0.0, 1.0, 2.0, 3.0, -1.0),                # disjoint, gap 1: (-1/1 - 1/1) / 2
    (0.0, 2.0, 5.0, 6.0, (-3 / 2 - 3 / 1) / 2),  # disjoint, gap 3
    (-1.5, 2.5, -1.5, 2.5, 1.0),               # identical
    (3.0, 3.0, 3.0, 3.0, 1.0),                 # identical points
])
def test_worked_examples(lx, ux, lm, um, want):
    assert float(ci_overlap(lx, ux, lm, um)) == pytest.approx(want, rel=1e-15, abs=1e-15)


def test_vectorised_and_broadcast():
    lx = np.array([0.0, 0.0, 0.0])
    ux = np.array([2.0, 4.0, 1.0])
    j = ci_overlap(lx, ux, np.array([1.0, 1.0, 2.0]), np.array([3.0, 2.0, 3.0])).overlap
    np.testing.assert_allclose(j, [0.5, 0.625, -1.0], rtol=1e-15)
    assert ci_overlap(0.0, 1.0, np.array([0.0, 0.5]), np.array([1.0, 1.5])).overlap.shape == (2,)


def test_zero_width_and_nan():
    with pytest.warns(DegenerateResultWarning, match="width 0"):
        assert math.isnan(float(ci_overlap(1.0, 1.0, 0.0, 2.0)))
    assert math.isnan(float(ci_overlap(np.nan, 1.0, 0.0, 2.0)))


def test_reversed_interval_refused():
    with pytest.raises(InvalidParameterError, match="lower bound"):
        ci_overlap(2.0, 1.0, 0.0, 3.0)
    with pytest.raises(InvalidParameterError):
        ci_overlap("a", 1.0, 0.0, 3.0)
    with pytest.raises(InvalidParameterError):
        ci_overlap([0.0, 1.0], [1.0, 2.0, 3.0], 0.0, 1.0)


def test_j_decreases_as_intervals_move_apart():
    shifts = np.linspace(0, 5, 51)
    j = ci_overlap(0.0, 1.0, shifts, shifts + 1.0).overlap
    assert np.all(np.diff(j) < 0) and j[0] == 1.0 and j[-1] < 0


# ------------------------------------------------------------------ compare_estimates


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo_pair()


def test_weighted_mean_against_hand_formula(demo):
    x, xm = demo
    t = compare_estimates(x, xm, "mean(income)", w="weight").table
    row = t.iloc[0]
    d = x[["income", "weight"]].dropna()
    y, w = d["income"].to_numpy(), d["weight"].to_numpy()
    m = np.sum(w * y) / np.sum(w)
    u = w * (y - m) / w.sum()
    n = y.size
    se = math.sqrt(n / (n - 1) * np.sum((u - u.mean()) ** 2))
    z = stats.norm.ppf(0.975)
    np.testing.assert_allclose([row.estimate_x, row.lower_x, row.upper_x], [m, m - z * se, m + z * se], rtol=1e-12)
    assert row.n_x == n and row.inside == (row.lower_x <= row.estimate_xm <= row.upper_x)
    assert row.overlap == pytest.approx(float(ci_overlap(row.lower_x, row.upper_x, row.lower_xm, row.upper_xm)))


def test_unweighted_mean_is_textbook(demo):
    x, xm = demo
    row = compare_estimates(x, xm, "mean(expenditure)", level=0.9).table.iloc[0]
    y = x["expenditure"].dropna().to_numpy()
    half = stats.norm.ppf(0.95) * y.std(ddof=1) / math.sqrt(y.size)
    np.testing.assert_allclose([row.lower_x, row.upper_x], [y.mean() - half, y.mean() + half], rtol=1e-12)


def test_total_and_ratio(demo):
    x, xm = demo
    t = compare_estimates(x, xm, ["total(income)", "ratio(income, expenditure)"], w="weight").table
    d = x[["income", "weight"]].dropna()  # total: records with an income
    y, w = d["income"].to_numpy(), d["weight"].to_numpy()
    n = y.size
    tot = np.sum(w * y)
    v_tot = n / (n - 1) * np.sum((w * y - tot / n) ** 2)
    assert t.iloc[0].estimate_x == pytest.approx(tot, rel=1e-12)
    assert (t.iloc[0].upper_x - t.iloc[0].lower_x) / 2 == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(v_tot), rel=1e-10)
    d = x[["income", "expenditure", "weight"]].dropna()  # ratio: records with both
    y, e, w = (d[c].to_numpy() for c in ("income", "expenditure", "weight"))
    r = np.sum(w * y) / np.sum(w * e)
    assert t.iloc[1].estimate_x == pytest.approx(r, rel=1e-12)
    assert t.iloc[1].lower_x < r < t.iloc[1].upper_x


def test_quantile_definition():
    # laeken::weightedQuantile: the smallest value whose cumulative weight share exceeds p
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert weighted_quantile(x, None, [0.5])[0] == 3.0    # share 0.5 at 2 is not above 0.5
    assert weighted_quantile(x, None, [0.49])[0] == 2.0
    assert weighted_quantile(x, np.array([5.0, 1.0, 1.0, 1.0]), [0.5])[0] == 1.0
    assert list(weighted_quantile(x, None, [0.0, 1.0])) == [1.0, 4.0]


def test_quantile_interval_contains_estimate(demo):
    x, xm = demo
    t = compare_estimates(x, xm, ["median(income)", "quantile(income, 0.9)"], w="weight").table
    assert (t.lower_x <= t.estimate_x).all() and (t.estimate_x <= t.upper_x).all()
    assert t.iloc[0].estimate_x == weighted_quantile(*(x[["income", "weight"]].dropna().to_numpy().T), [0.5])[0]


def test_gini_row_equals_gini(demo):
    x, xm = demo
    row = compare_estimates(x, xm, "gini(income)", w="weight", gini_ci="linearization").table.iloc[0]
    g = gini(x["income"], w=x["weight"], na_rm=True, ci="linearization")
    assert (row.estimate_x, row.lower_x, row.upper_x) == (g.value, g.lower, g.upper)
    b1 = compare_estimates(x, xm, "gini(income)", w="weight", random_state=3).table
    b2 = compare_estimates(x, xm, "gini(income)", w="weight", random_state=3).table
    pd.testing.assert_frame_equal(b1, b2)


def test_by_groups_equal_subsets(demo):
    x, xm = demo
    t = compare_estimates(x, xm, "mean(income)", w="weight", by="sex").table
    assert list(t.columns[:2]) == ["estimator", "sex"] and len(t) == x["sex"].nunique()
    for _, row in t.iterrows():
        sub = compare_estimates(x[x.sex == row.sex], xm[xm.sex == row.sex], "mean(income)", w="weight").table.iloc[0]
        assert row.estimate_x == sub.estimate_x and row.upper_xm == sub.upper_xm
    t2 = compare_estimates(x, xm, "total(income)", w="weight", by=["sex", "urbrur"]).table
    assert len(t2) == 4


def test_user_callable(demo):
    x, xm = demo

    def share_zero(frame, w):
        p = float(np.average(frame["income"].fillna(0) == 0, weights=w))
        return p, p - 0.01, p + 0.01

    row = compare_estimates(x, xm, share_zero, w="weight").table.iloc[0]
    assert row.estimator == "share_zero" and row.method == "user estimator"
    assert row.upper_x - row.lower_x == pytest.approx(0.02)

    with pytest.raises(InvalidParameterError, match="three numbers"):
        compare_estimates(x, xm, lambda f, w: 1.0)


def test_weights_from_x_when_xm_lacks_them(demo):
    x, xm = demo
    a = compare_estimates(x, xm, "mean(income)", w="weight").table
    b = compare_estimates(x, xm.drop(columns="weight"), "mean(income)", w="weight").table
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("spec, match", [
    ("avg(income)", "estimator must be one of"),
    ("mean(nope)", "does not have"),
    ("mean(sex)", "numeric"),
    ("ratio(income)", "takes 2"),
    ("quantile(income)", "probability"),
    ("quantile(income, 1.5)", r"\[0, 1\]"),
])
def test_invalid_specs(demo, spec, match):
    x, xm = demo
    with pytest.raises(InvalidParameterError, match=match):
        compare_estimates(x, xm, spec)


def test_invalid_options(demo):
    x, xm = demo
    with pytest.raises(InvalidParameterError):
        compare_estimates(x, xm, "mean(income)", level=1.5)
    with pytest.raises(InvalidParameterError):
        compare_estimates(x, xm, "mean(income)", w="nope")
    with pytest.raises(InvalidParameterError):
        compare_estimates(x, xm, "mean(income)", by="nope")
    with pytest.raises(InvalidParameterError):
        compare_estimates("x", xm, "mean(income)")
    with pytest.raises(InvalidParameterError):
        compare_estimates(x, xm, [])


def test_identical_data_overlap_one(demo):
    x, _ = demo
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = compare_estimates(x, x, ["mean(income)", "total(savings)", "median(expenditure)"], w="weight").table
    assert (t.overlap == 1.0).all() and t.inside.all() and (t.difference == 0).all()


@pytest.mark.needs_r
def test_live_quantiles_against_laeken():
    try:
        import rpy2  # noqa: F401

        import pysdc.r as pr
    except ImportError:
        pytest.skip("rpy2 is not installed (pip install 'pysdc-measures[r]')")
    st = pr.available(sdcmicro=False)
    if not st:
        pytest.skip(f"R is not available: {st.reason}")
    if not pr.call("requireNamespace", "laeken", quietly=True, package="base"):
        pytest.skip("the R package laeken is not installed")
    rng = np.random.default_rng(8)
    probs = np.array([0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
    for n in (5, 40, 1000):
        v = np.round(rng.lognormal(5, 1, n))
        w = rng.integers(1, 6, n).astype(float)
        want = pr.call("weightedQuantile", v, weights=w, probs=probs, package="laeken")
        np.testing.assert_array_equal(weighted_quantile(v, w, probs), np.asarray(want, dtype=float))
