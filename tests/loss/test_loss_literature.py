"""Literature information-loss measures (issue 10): il_continuous, il_categorical, hellinger,
entropy, il_entropy, entropy_risk, gsil.

No reference implementation exists, so every expected value here is either worked out by hand
(the arithmetic is in the test) or computed by an independent route (numpy.cov / corrcoef /
linalg.eigh, scipy.stats.entropy, scipy.spatial.distance, pandas.crosstab, numpy.histogram),
never by the implementation itself. Cross-checks with sdcMicro's measures in pysdc:
``il_categorical(...).direct`` (nominal) = ``il_variables(...).per_variable`` and
``il_continuous(...).il1`` = ``d_utility(..., "IL1s", average=True)`` on complete data.
"""

from __future__ import annotations

import doctest
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.spatial.distance
import scipy.stats
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import pysdc
from pysdc import DegenerateResultWarning, InvalidParameterError
from pysdc.loss import _categorical, _continuous, _entropy, _gsil, _hellinger
from pysdc.loss._categorical import il_categorical
from pysdc.loss._continuous import il_continuous
from pysdc.loss._entropy import entropy, entropy_risk, il_entropy
from pysdc.loss._gsil import gsil, gsil_band
from pysdc.loss._hellinger import hellinger

RTOL = 1e-12
LN2 = math.log(2.0)


@pytest.fixture(autouse=True)
def _no_raw_numpy_warnings():
    """A numpy RuntimeWarning (divide by zero, invalid value...) must never leak."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def cat(values, categories=None, ordered=False):
    return pd.Categorical(values, categories=categories, ordered=ordered)


# ====================================================================== docstring examples
@pytest.mark.parametrize("module", [_continuous, _categorical, _hellinger, _entropy, _gsil])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ====================================================================== il_continuous
def _reference_table(X, XM):
    """The handbook's table by an independent route (numpy.cov, corrcoef, linalg.eigh)."""
    n, p = X.shape
    out = {}

    def row(o, m, w=None):
        o, m = np.ravel(o), np.ravel(m)
        w = np.ones_like(o) if w is None else np.ravel(w)
        keep = o != 0
        return (
            np.sum(w * (o - m) ** 2) / o.size,
            np.sum(w * np.abs(o - m)) / o.size,
            np.sum(w[keep] * np.abs(o[keep] - m[keep]) / np.abs(o[keep])) / keep.sum(),
        )

    out["X"] = row(X, XM)
    out["Xbar"] = row(X.mean(axis=0), XM.mean(axis=0))
    V1, V2 = np.cov(X, rowvar=False, ddof=1), np.cov(XM, rowvar=False, ddof=1)
    iu = np.triu_indices(p)
    out["V"] = row(V1[iu], V2[iu])
    out["S"] = row(np.diag(V1), np.diag(V2))
    R1, R2 = np.corrcoef(X, rowvar=False), np.corrcoef(XM, rowvar=False)
    iu1 = np.triu_indices(p, 1)
    out["R"] = row(R1[iu1], R2[iu1])
    l1, E1 = np.linalg.eigh(R1)
    l2, E2 = np.linalg.eigh(R2)
    l1, E1, l2, E2 = l1[::-1], E1[:, ::-1], l2[::-1], E2[:, ::-1]
    for j in range(p):
        if E1[:, j] @ E2[:, j] < 0:
            E2[:, j] = -E2[:, j]
    RF1, RF2 = E1 * np.sqrt(l1), E2 * np.sqrt(l2)
    W = np.tile(l1 / p, (p, 1))
    out["RF"] = row(RF1, RF2, W)
    out["C"] = row(RF1[:, 0] ** 2, RF2[:, 0] ** 2)
    out["F"] = row(E1, E2, W)
    return pd.DataFrame(out, index=["mse", "mae", "mean_variation"]).T


def _noisy_pair(seed, n=200, p=4, scale=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + 5.0
    XM = X + rng.normal(scale=scale, size=(n, p))
    cols = [f"v{j}" for j in range(p)]
    return pd.DataFrame(X, columns=cols), pd.DataFrame(XM, columns=cols)


class TestContinuousHand:
    def test_one_variable_by_hand(self):
        x = pd.DataFrame({"a": [1.0, 3.0]})
        xm = pd.DataFrame({"a": [2.0, 3.0]})
        with pytest.warns(DegenerateResultWarning, match="correlation pair"):
            r = il_continuous(x, xm)
        # X: diffs 1, 0 -> mse (1 + 0)/2, mae (1 + 0)/2, variation (1/1 + 0/3)/2
        assert_allclose(r.table.loc["X"].to_numpy(), [0.5, 0.5, 0.5], rtol=RTOL)
        # means 2 and 2.5: mse 0.25, mae 0.5, variation 0.5/2
        assert_allclose(r.table.loc["Xbar"].to_numpy(), [0.25, 0.5, 0.25], rtol=RTOL)
        # sample variances ((1-2)^2 + (3-2)^2)/1 = 2 and ((2-2.5)^2 + (3-2.5)^2)/1 = 0.5
        assert_allclose(r.table.loc["S"].to_numpy(), [1.5**2, 1.5, 1.5 / 2], rtol=RTOL)
        assert_allclose(r.table.loc["V"].to_numpy(), [1.5**2, 1.5, 1.5 / 2], rtol=RTOL)  # p = 1: V is S
        # IL1 = (|1-2| + 0) / (sqrt(2) * sd) / (n p), sd = sqrt(2)
        assert_allclose(r.il1, 1.0 / (math.sqrt(2) * math.sqrt(2)) / 2, rtol=RTOL)
        assert np.isnan(r.table.loc["R", "mse"]) and np.isnan(r.gilcv)

    def test_two_variables_three_records_by_hand(self):
        # x: a = (1, 2, 3), b = (2, 4, 7); xm: a = (1, 2, 4), b = (2, 4, 7)
        x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 4.0, 7.0]})
        xm = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [2.0, 4.0, 7.0]})
        r = il_continuous(x, xm)
        # means: a 2 -> 7/3, b 13/3 both
        # var a: (1 + 0 + 1)/2 = 1; masked a: ((1-7/3)^2 + (2-7/3)^2 + (4-7/3)^2)/2 = (16/9 + 1/9 + 25/9)/2 = 7/3
        # var b: ((-7/3)^2 + (-1/3)^2 + (8/3)^2)/2 = (49 + 1 + 64)/18 = 19/3 (unchanged)
        # cov(a, b): ((-1)(-7/3) + 0 + (1)(8/3))/2 = 15/6 = 5/2
        # masked cov: ((-4/3)(-7/3) + (-1/3)(-1/3) + (5/3)(8/3))/2 = (28 + 1 + 40)/18 = 69/18 = 23/6
        dv = [7 / 3 - 1, 23 / 6 - 5 / 2, 0.0]  # V cells i <= j: (a,a), (a,b), (b,b) -> differences
        assert_allclose(r.table.loc["V", "mse"], sum(d * d for d in dv) / 3, rtol=RTOL)
        assert_allclose(r.table.loc["V", "mae"], sum(dv) / 3, rtol=RTOL)
        assert_allclose(r.table.loc["V", "mean_variation"], ((4 / 3) / 1 + (4 / 3) / (5 / 2) + 0) / 3, rtol=RTOL)
        # S: variances only: (a) 1 -> 7/3, (b) unchanged
        assert_allclose(r.table.loc["S"].to_numpy(), [(16 / 9) / 2, (4 / 3) / 2, (4 / 3) / 2], rtol=RTOL)
        # R: one pair: r = (5/2)/sqrt(1 * 19/3); r' = (23/6)/sqrt(7/3 * 19/3)
        r0 = 2.5 / math.sqrt(19 / 3)
        r1 = (23 / 6) / math.sqrt(7 / 3 * 19 / 3)
        assert_allclose(r.table.loc["R"].to_numpy(), [(r0 - r1) ** 2, abs(r0 - r1), abs(r0 - r1) / r0], rtol=1e-10)
        # PCA of a 2x2 correlation matrix [[1, r], [r, 1]]: eigenvalues 1 + r, 1 - r; vectors (1, 1)/√2, (1, -1)/√2
        # -> F is the same for x and xm (after sign alignment): F row 0.
        assert_allclose(r.table.loc["F"].to_numpy(), [0.0, 0.0, 0.0], atol=1e-14)
        # RF: rf_i1 = √(1+r)/√2, rf_i2 = ±√(1-r)/√2; weights w = ((1+r)/2, (1-r)/2)
        w = [(1 + r0) / 2, (1 - r0) / 2]
        d1 = abs(math.sqrt((1 + r0) / 2) - math.sqrt((1 + r1) / 2))
        d2 = abs(math.sqrt((1 - r0) / 2) - math.sqrt((1 - r1) / 2))
        assert_allclose(r.table.loc["RF", "mse"], (w[0] * 2 * d1**2 + w[1] * 2 * d2**2) / 4, rtol=1e-10)
        assert_allclose(r.table.loc["RF", "mae"], (w[0] * 2 * d1 + w[1] * 2 * d2) / 4, rtol=1e-10)
        mv = (w[0] * 2 * d1 / math.sqrt((1 + r0) / 2) + w[1] * 2 * d2 / math.sqrt((1 - r0) / 2)) / 4
        assert_allclose(r.table.loc["RF", "mean_variation"], mv, rtol=1e-10)
        # C: communalities rf_i1^2 = (1 + r)/2 for both variables
        c0, c1 = (1 + r0) / 2, (1 + r1) / 2
        assert_allclose(r.table.loc["C"].to_numpy(), [(c0 - c1) ** 2, abs(c0 - c1), abs(c0 - c1) / c0], rtol=1e-10)
        # GILCV = 100 * mean of the mean variations of V, S, R, RF, F, C
        six = [r.table.loc[k, "mean_variation"] for k in ("V", "S", "R", "RF", "F", "C")]
        assert_allclose(r.gilcv, 100 * sum(six) / 6, rtol=RTOL)
        assert r.n == 3 and r.n_used == 3

    def test_table_matches_independent_numpy_route(self):
        x, xm = _noisy_pair(1, n=300, p=5)
        r = il_continuous(x, xm)
        ref = _reference_table(x.to_numpy(), xm.to_numpy())
        assert list(r.table.index) == ["X", "Xbar", "V", "S", "R", "RF", "C", "F"]
        assert list(r.table.columns) == ["mse", "mae", "mean_variation"]
        assert_allclose(r.table.to_numpy(), ref.loc[r.table.index].to_numpy(), rtol=1e-9, atol=1e-15)
        sd = x.std(ddof=1).to_numpy()
        il1 = np.mean(np.abs(x.to_numpy() - xm.to_numpy()) / (math.sqrt(2) * sd))
        assert_allclose(r.il1, il1, rtol=1e-12)

    def test_todorova_cov_divisor(self):
        x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 4.0, 7.0]})
        xm = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [2.0, 4.0, 7.0]})
        r = il_continuous(x, xm, cov_divisor="todorova")
        # only the i < j cell (a, b): 5/2 -> 23/6, but divided by p(p+1)/2 = 3
        d = 23 / 6 - 5 / 2
        assert_allclose(r.table.loc["V"].to_numpy(), [d * d / 3, d / 3, (d / 2.5) / 3], rtol=RTOL)

    def test_component_weights_none_is_unweighted(self):
        x, xm = _noisy_pair(2, n=100, p=3)
        r = il_continuous(x, xm, component_weights="none")
        w = il_continuous(x, xm)
        lam = np.linalg.eigvalsh(np.corrcoef(x.to_numpy(), rowvar=False))[::-1]
        assert_allclose(w.matrices["weights"], lam / 3, rtol=1e-10)
        # unweighted mse = Σ_ij d² / p², from the stored matrices
        RF1, RF2 = r.matrices["RF"]
        assert_allclose(r.table.loc["RF", "mse"], np.sum((RF1 - RF2) ** 2) / 9, rtol=RTOL)

    def test_max_variation_caps_and_counts(self):
        x = pd.DataFrame({"a": [1.0, 3.0]})
        xm = pd.DataFrame({"a": [4.0, 3.0]})
        with pytest.warns(DegenerateResultWarning):
            plain = il_continuous(x, xm)
            capped = il_continuous(x, xm, max_variation=1.0)
        # variations |1-4|/1 = 3 and 0: mean 1.5; capped at 1: (1 + 0)/2
        assert_allclose(plain.table.loc["X", "mean_variation"], 1.5, rtol=RTOL)
        assert_allclose(capped.table.loc["X", "mean_variation"], 0.5, rtol=RTOL)
        assert capped.capped["X"] == 1 and plain.capped["X"] == 0
        assert capped.table.loc["X", "mse"] == plain.table.loc["X", "mse"]  # only the variation is capped

    def test_zero_originals_skipped_and_counted(self):
        x = pd.DataFrame({"a": [0.0, 2.0, 4.0], "b": [1.0, 2.0, 4.0]})
        xm = pd.DataFrame({"a": [1.0, 3.0, 4.0], "b": [1.0, 2.0, 5.0]})
        r = il_continuous(x, xm)
        # X cells with x != 0: a: |2-3|/2, |4-4|/4; b: 0, 0, 1/4 -> (0.5 + 0.25) / 5 cells
        assert r.zero_originals["X"] == 1
        assert_allclose(r.table.loc["X", "mean_variation"], 0.75 / 5, rtol=RTOL)
        # mse and mae still over all 6 cells: diffs 1, 1, 0, 0, 0, 1
        assert_allclose(r.table.loc["X", ["mse", "mae"]].to_numpy(), [3 / 6, 3 / 6], rtol=RTOL)

    def test_missing_values_use_complete_records(self):
        x, xm = _noisy_pair(3, n=60, p=3)
        x.iloc[5, 0] = np.nan
        xm.iloc[7, 2] = np.nan
        r = il_continuous(x, xm)
        ok = x.notna().all(axis=1) & xm.notna().all(axis=1)
        ref = _reference_table(x[ok].to_numpy(), xm[ok].to_numpy())
        assert r.n == 60 and r.n_used == 58
        assert_allclose(r.table.to_numpy(), ref.loc[r.table.index].to_numpy(), rtol=1e-9, atol=1e-15)

    def test_scaling_the_masked_data_keeps_correlation_rows_zero(self):
        x, _ = _noisy_pair(4, n=80, p=3)
        xm = x * 2.0  # same correlations, components and communalities
        r = il_continuous(x, xm)
        for row in ("R", "RF", "C", "F"):
            assert_allclose(r.table.loc[row].to_numpy(), 0.0, atol=1e-12)
        # variances are 4 times larger: S mean variation = |4 s - s| / s = 3
        assert_allclose(r.table.loc["S", "mean_variation"], 3.0, rtol=1e-12)

    def test_sign_alignment_of_masked_components(self):
        x, xm = _noisy_pair(5, n=100, p=4, scale=0.05)
        r = il_continuous(x, xm)
        E1, E2 = r.matrices["F"]
        assert (np.sum(E1 * E2, axis=0) >= 0).all()
        big = np.argmax(np.abs(E1), axis=0)
        assert (E1[big, np.arange(4)] > 0).all()


class TestContinuousCrossChecks:
    def test_il1_equals_d_utility_il1s_average_on_complete_data(self):
        x, xm = _noisy_pair(6, n=150, p=3)
        expected = pysdc.d_utility(x, xm, method="IL1s", average=True).value
        assert_allclose(il_continuous(x, xm).il1, expected, rtol=1e-12)

    def test_il1_with_missing_values_equals_d_utility_on_complete_records(self):
        x, xm = pysdc.load_demo_pair()
        num = ["income", "expenditure", "savings"]
        r = il_continuous(x[num], xm[num])
        ok = x[num].notna().all(axis=1) & xm[num].notna().all(axis=1)
        assert r.n_used == int(ok.sum()) < len(x)
        on_complete = pysdc.d_utility(x.loc[ok, num], xm.loc[ok, num], method="IL1s", average=True).value
        assert_allclose(r.il1, on_complete, rtol=1e-12)
        # ... and differs by design from d_utility on all records (per-variable sds, NA cells dropped, /(n p))
        on_all = pysdc.d_utility(x[num], xm[num], method="IL1s", average=True).value
        assert not np.isclose(r.il1, on_all, rtol=1e-6)


class TestContinuousRefusalsAndDegenerate:
    def test_refuses_non_numeric_columns(self):
        x = pd.DataFrame({"a": [1.0, 2.0], "s": cat(["u", "v"])})
        with pytest.raises(InvalidParameterError, match="il_categorical"):
            il_continuous(x, x)

    def test_refuses_different_variables_and_rows(self):
        x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
        with pytest.raises(InvalidParameterError, match="same variables"):
            il_continuous(x, x.rename(columns={"a": "b"}))
        with pytest.raises(InvalidParameterError, match="3 rows but xm has 2"):
            il_continuous(x, x.iloc[:2])

    def test_refuses_infinite_values(self):
        x = pd.DataFrame({"a": [1.0, np.inf, 3.0]})
        with pytest.raises(InvalidParameterError, match="infinite"):
            il_continuous(x, x.fillna(0))

    @pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "1", True])
    def test_refuses_bad_max_variation(self, bad):
        x = pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 1.0]})
        with pytest.raises(InvalidParameterError, match="max_variation"):
            il_continuous(x, x, max_variation=bad)

    def test_refuses_bad_options(self):
        x = pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 1.0]})
        with pytest.raises(InvalidParameterError, match="cov_divisor"):
            il_continuous(x, x, cov_divisor="i<j")
        with pytest.raises(InvalidParameterError, match="component_weights"):
            il_continuous(x, x, component_weights="uniform")

    def test_constant_variable_is_degenerate_not_a_numpy_warning(self):
        x = pd.DataFrame({"a": [1.0, 1.0, 1.0], "b": [1.0, 2.0, 4.0]})
        xm = pd.DataFrame({"a": [1.0, 1.0, 2.0], "b": [1.0, 2.0, 5.0]})
        with pytest.warns(DegenerateResultWarning, match="constant"):
            r = il_continuous(x, xm)
        assert np.isnan(r.table.loc["R", "mse"]) and np.isnan(r.gilcv)
        assert r.il1 == np.inf  # sd 0 and a changed cell

    def test_empty_data_is_degenerate(self):
        x = pd.DataFrame({"a": np.array([], dtype=float), "b": np.array([], dtype=float)})
        with pytest.warns(DegenerateResultWarning, match="complete record"):
            r = il_continuous(x, x)
        assert r.table.isna().all().all() and np.isnan(r.il1) and np.isnan(r.gilcv)


# ====================================================================== il_categorical
def _demo_nominal():
    x, xm = pysdc.load_demo_pair()
    cols = ["region", "urbrur", "sex", "marital", "health_status"]
    return x[cols], xm[cols]


class TestCategoricalHand:
    def test_docstring_example_by_hand(self):
        o = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
        x = pd.DataFrame({"a": cat(list("uuvv")), "b": pd.Series(["lo", "lo", "hi", "hi"], dtype=o)})
        xm = pd.DataFrame({"a": cat(list("uvvv")), "b": pd.Series(["lo", "mid", "hi", "hi"], dtype=o)})
        r = il_categorical(x, xm, max_dim=2)
        # direct: a: one of four differs; b: rank distance |0 - 1| = 1 category, / |D(V)| = 3, / 4 records
        assert_allclose(r.direct.to_numpy(), [1 / 4, 1 / 12], rtol=RTOL)
        # 1-d tables: a (u, v): |2-1| + |2-3| = 2 over 2 cells; b (lo, mid, hi): |2-1| + |0-1| + |2-2| = 2 over 3
        # 2-d table a x b over 2 * 3 cells: x: (u,lo) 2, (v,hi) 2; xm: (u,lo) 1, (v,mid) 1, (v,hi) 2
        #   |2-1| + |0-1| + |2-2| = 2
        assert r.ctbil == 6 and r.n_cells == 2 + 3 + 6
        assert_allclose(r.ctbil_normalized, 6 / 11, rtol=RTOL)
        assert dict(r.ctbil_tables) == {("a",): 2, ("b",): 2, ("a", "b"): 2}
        # EBIL a: a' = u -> original u (H 0); a' = v (3 records) -> u, v, v: H = -(1/3 ln 1/3 + 2/3 ln 2/3)
        h = -(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))
        assert_allclose(r.ebil["a"], 3 * h, rtol=RTOL)
        # b: b' = lo -> lo, b' = mid -> lo, b' = hi -> hi, hi: every conditional distribution is pure
        assert r.ebil["b"] == 0.0
        # with the estimated posterior PRIL = EBIL
        assert_allclose(r.pril.to_numpy(), r.ebil.to_numpy(), rtol=RTOL)

    def test_ordinal_distance_handbook_and_mlodak(self):
        o = pd.CategoricalDtype([1, 2, 3, 4, 5], ordered=True)
        x = pd.DataFrame({"v": pd.Series([1, 1, 5, 3], dtype=o)})
        xm = pd.DataFrame({"v": pd.Series([1, 3, 1, 3], dtype=o)})
        # rank differences 0, 2, 4, 0 -> handbook / 5 categories, Młodak / (5 - 1)
        assert_allclose(il_categorical(x, xm).direct["v"], (0 + 2 + 4 + 0) / 5 / 4, rtol=RTOL)
        assert_allclose(il_categorical(x, xm, ordinal_distance="mlodak").direct["v"], 6 / 4 / 4, rtol=RTOL)

    def test_ordinal_missing_is_the_lowest_category(self):
        o = pd.CategoricalDtype(["a", "b", "c"], ordered=True)
        x = pd.DataFrame({"v": pd.Series(["c", "b", "a"], dtype=o)})
        xm = pd.DataFrame({"v": pd.Series([None, "b", "a"], dtype=o)})
        # ranks with NA below "a": NA 0, a 1, b 2, c 3; |3 - 0| = 3, over |D(V)| = 4 categories, / 3 records
        assert_allclose(il_categorical(x, xm).direct["v"], 3 / 4 / 3, rtol=RTOL)

    def test_suppression_adds_two_per_record_to_one_dimensional_ctbil(self):
        x = pd.DataFrame({"v": cat(list("aabbc"))})
        xm = pd.DataFrame({"v": cat(["a", None, "b", None, "c"], categories=list("abc"))})
        r = il_categorical(x, xm, max_dim=1)
        # two suppressions: a 2 -> 1, b 2 -> 1, NA 0 -> 2: 1 + 1 + 2 = 4 = 2 x 2 (the handbook's remark)
        assert r.ctbil == 4 and r.n_cells == 4  # a, b, c, NA

    def test_transition_matrix_by_bayes_rule(self):
        t = pd.CategoricalDtype(["a", "b"])
        x = pd.DataFrame({"v": pd.Series(list("aaab"), dtype=t)})
        xm = pd.DataFrame({"v": pd.Series(list("abab"), dtype=t)})
        P = pd.DataFrame([[0.8, 0.2], [0.4, 0.6]], index=["a", "b"], columns=["a", "b"])
        r = il_categorical(x, xm, transition={"v": P})
        # prior π = (3/4, 1/4); P(V'=a) = .75*.8 + .25*.4 = .7, P(V'=b) = .75*.2 + .25*.6 = .3
        # P(a | a') = .6/.7 = 6/7, P(b | a') = 1/7; P(a | b') = .15/.3 = 1/2, P(b | b') = 1/2
        h_a = -(6 / 7 * math.log(6 / 7) + 1 / 7 * math.log(1 / 7))
        assert_allclose(r.ebil["v"], 2 * h_a + 2 * LN2, rtol=RTOL)  # two records with a', two with b'
        # records (a,a), (a,b), (a,a), (b,b): -[ln 6/7 + ln 1/2 + ln 6/7 + ln 1/2]
        assert_allclose(r.pril["v"], -2 * math.log(6 / 7) + 2 * LN2, rtol=RTOL)
        # the same matrix as an array over the Categorical's categories
        r2 = il_categorical(x, xm, transition={"v": P.to_numpy()})
        assert_allclose(r2.pril["v"], r.pril["v"], rtol=RTOL)

    def test_transition_giving_probability_zero_is_degenerate(self):
        t = pd.CategoricalDtype(["a", "b"])
        x = pd.DataFrame({"v": pd.Series(list("ab"), dtype=t)})
        xm = pd.DataFrame({"v": pd.Series(list("ba"), dtype=t)})
        P = pd.DataFrame([[1.0, 0.0], [0.0, 1.0]], index=["a", "b"], columns=["a", "b"])
        with pytest.warns(DegenerateResultWarning, match="PRIL"):
            r = il_categorical(x, xm, transition={"v": P})
        assert r.pril["v"] == np.inf and r.ebil["v"] == 0.0


class TestCategoricalIndependentRoutes:
    def test_ebil_is_n_times_conditional_entropy(self):
        x, xm = _demo_nominal()
        r = il_categorical(x, xm, max_dim=1)
        for c in x.columns:
            a = x[c].astype(object).fillna("<NA>")
            b = xm[c].astype(object).fillna("<NA>")
            joint = pd.crosstab(a, b).to_numpy().ravel()
            marg = b.value_counts().to_numpy()
            # H(V | V') = H(V, V') - H(V')
            expected = len(x) * (scipy.stats.entropy(joint[joint > 0]) - scipy.stats.entropy(marg))
            assert_allclose(r.ebil[c], expected, rtol=1e-10, atol=1e-9)

    def test_ctbil_by_crosstabs(self):
        x, xm = _demo_nominal()
        r = il_categorical(x, xm, max_dim=2)
        total = 0
        cells = 0
        for d in (1, 2):
            for combo in itertools.combinations(x.columns, d):
                a = x[list(combo)].astype(object).fillna("<NA>")
                b = xm[list(combo)].astype(object).fillna("<NA>")
                ca = a.value_counts()
                cb = b.value_counts()
                total += int(ca.sub(cb, fill_value=0).abs().sum())
                levels = [set(a[c]) | set(b[c]) for c in combo]
                cells += math.prod(len(s) for s in levels)
        assert r.ctbil == total and r.n_cells == cells

    def test_direct_nominal_equals_il_variables(self):
        x, xm = _demo_nominal()
        r = il_categorical(x, xm)
        lam = pysdc.il_variables(x, xm).per_variable
        assert_allclose(r.direct.to_numpy(), lam.loc[r.direct.index].to_numpy(), rtol=1e-12)


class TestCategoricalRefusals:
    def test_refuses_float_columns(self):
        x = pd.DataFrame({"v": [1.0, 2.0]})
        with pytest.raises(InvalidParameterError, match="astype\\('category'\\)"):
            il_categorical(x, x)

    def test_refuses_ordinal_with_different_categories(self):
        x = pd.DataFrame({"v": cat(["a", "b"], ordered=True)})
        xm = pd.DataFrame({"v": cat(["a", "c"], ordered=True)})
        with pytest.raises(InvalidParameterError, match="set_categories"):
            il_categorical(x, xm)

    @pytest.mark.parametrize("bad", [0, 1.5, "2", None])
    def test_refuses_bad_max_dim(self, bad):
        x = pd.DataFrame({"v": cat(["a", "b"])})
        with pytest.raises(InvalidParameterError, match="max_dim"):
            il_categorical(x, x, max_dim=bad)

    def test_refuses_bad_transition(self):
        x = pd.DataFrame({"v": cat(["a", "b"])})
        with pytest.raises(InvalidParameterError, match="sum to 1"):
            il_categorical(x, x, transition={"v": pd.DataFrame([[0.5, 0.4], [0, 1]], index=list("ab"),
                                                               columns=list("ab"))})
        with pytest.raises(InvalidParameterError, match="no row"):
            il_categorical(x, x, transition={"v": pd.DataFrame([[1.0]], index=["a"], columns=["a"])})
        with pytest.raises(InvalidParameterError, match="not a column"):
            il_categorical(x, x, transition={"w": np.eye(2)})
        with pytest.raises(InvalidParameterError, match="transition"):
            il_categorical(x, x, transition=[[1.0]])

    def test_one_level_ordinal_with_mlodak_is_degenerate(self):
        x = pd.DataFrame({"v": cat(["a", "a"], ordered=True)})
        with pytest.warns(DegenerateResultWarning, match="levels - 1"):
            r = il_categorical(x, x, ordinal_distance="mlodak")
        assert np.isnan(r.direct["v"])

    def test_empty_data_is_degenerate(self):
        x = pd.DataFrame({"v": cat([], categories=["a"])})
        with pytest.warns(DegenerateResultWarning, match="no records"):
            r = il_categorical(x, x)
        assert np.isnan(r.direct["v"]) and r.ctbil == 0


# ====================================================================== hellinger
class TestHellinger:
    def test_by_hand(self):
        t = pd.CategoricalDtype(["a", "b", "c"])
        x = pd.DataFrame({"v": pd.Series(list("aabb"), dtype=t)})
        xm = pd.DataFrame({"v": pd.Series(list("abcc"), dtype=t)})
        # P = (1/2, 1/2, 0), Q = (1/4, 1/4, 1/2): ½[2 (√½ - ½)² + (0 - √½)²]
        expected = math.sqrt(0.5 * (2 * (math.sqrt(0.5) - 0.5) ** 2 + 0.5))
        assert_allclose(hellinger(x, xm).per_variable["v"], expected, rtol=RTOL)

    def test_categorical_matches_scipy_euclidean(self):
        x, xm = _demo_nominal()
        h = hellinger(x, xm).per_variable
        for c in x.columns:
            a = x[c].astype(object).fillna("<NA>").value_counts(normalize=True)
            b = xm[c].astype(object).fillna("<NA>").value_counts(normalize=True)
            idx = a.index.union(b.index)
            p, q = a.reindex(idx, fill_value=0).to_numpy(), b.reindex(idx, fill_value=0).to_numpy()
            expected = scipy.spatial.distance.euclidean(np.sqrt(p), np.sqrt(q)) / math.sqrt(2)
            assert_allclose(h[c], expected, rtol=1e-12, atol=1e-15)

    def test_numeric_bins_match_numpy_histogram(self):
        x, xm = _noisy_pair(7, n=500, p=2, scale=0.8)
        xm.iloc[0, 0] = x.iloc[:, 0].max() + 100  # beyond the original's range: the outer bin
        for bins in (4, 10):
            h = hellinger(x, xm, bins=bins).per_variable
            for c in x.columns:
                edges = np.quantile(x[c].to_numpy(), np.linspace(0, 1, bins + 1))
                p, _ = np.histogram(x[c], bins=edges)
                q, _ = np.histogram(np.clip(xm[c], edges[0], edges[-1]), bins=edges)
                expected = scipy.spatial.distance.euclidean(np.sqrt(p / p.sum()), np.sqrt(q / q.sum())) / math.sqrt(2)
                assert_allclose(h[c], expected, rtol=1e-12, atol=1e-15)

    def test_numeric_ties_merge_bins_and_missing_is_a_cell(self):
        x = pd.DataFrame({"v": [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, np.nan, 3.0]})
        xm = pd.DataFrame({"v": [0.0, 0.0, 5.0, np.nan, np.nan, 2.0, 1.0, -1.0]})
        # quartiles of the 7 non-missing x values (0,0,0,0,1,2,3): 0, 0, 0, 1.5, 3 -> inner edges {0, 1.5}
        # bins: (< 0), [0, 1.5), (>= 1.5), NA. x: 0, 5, 2, 1; xm: 1 (-1), 3 (0, 0, 1), 2 (5, 2), 2
        p = np.array([0, 5, 2, 1]) / 8
        q = np.array([1, 3, 2, 2]) / 8
        expected = math.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2))
        assert_allclose(hellinger(x, xm, bins=4).per_variable["v"], expected, rtol=RTOL)

    def test_disjoint_categories_give_one_and_lengths_may_differ(self):
        x = pd.DataFrame({"v": list("aab")})
        xm = pd.DataFrame({"v": list("cddd")})
        assert_allclose(hellinger(x, xm).per_variable["v"], 1.0, rtol=RTOL)

    def test_refusals(self):
        x = pd.DataFrame({"v": [1.0, 2.0]})
        with pytest.raises(InvalidParameterError, match="bins"):
            hellinger(x, x, bins=0)
        with pytest.raises(InvalidParameterError, match="numeric in both"):
            hellinger(x, pd.DataFrame({"v": ["a", "b"]}))
        with pytest.raises(InvalidParameterError, match="infinite"):
            hellinger(x, pd.DataFrame({"v": [1.0, np.inf]}))

    def test_empty_is_degenerate(self):
        x = pd.DataFrame({"v": [1.0, 2.0]})
        with pytest.warns(DegenerateResultWarning):
            h = hellinger(x, x.iloc[:0]).per_variable
        assert np.isnan(h["v"])


# ====================================================================== entropy
class TestEntropy:
    def test_by_hand(self):
        # F = (2, 1, 1), N = 4: (4 ln 4 - 2 ln 2)/4 = 1.5 ln 2
        assert_allclose(entropy(pd.DataFrame({"v": list("aabc")})).per_variable["v"], 1.5 * LN2, rtol=RTOL)

    def test_matches_scipy_stats_entropy(self):
        x, _ = pysdc.load_demo_pair()
        cols = ["region", "education", "hhsize", "income"]
        h = entropy(x[cols]).per_variable
        for c in cols:
            counts = x[c].astype(object).fillna("<NA>").value_counts().to_numpy()
            assert_allclose(h[c], scipy.stats.entropy(counts), rtol=1e-12)

    def test_il_entropy_by_hand(self):
        # x: ln 2; xm (3, 1): ln 4 - 3 ln 3 / 4
        r = il_entropy(pd.DataFrame({"v": list("aabb")}), pd.DataFrame({"v": list("aaab")})).per_variable
        assert_allclose(r["v"], LN2 - (math.log(4) - 3 * math.log(3) / 4), rtol=RTOL)

    def test_entropy_risk_by_hand_and_printed_first_bracket(self):
        d = pd.DataFrame({"a": list("uuuv"), "b": list("ppqp")})
        r = entropy_risk(d, ["a", "b"], w1=0.25, w2=0.25)
        F = np.array([2, 1, 1, 0])  # cells (u,p), (u,q), (v,p), (v,q)
        K, N = 4, 4
        first = (np.sum(np.abs(F - 0.5)) + 0.5 * K - N) / K  # the printed formula, cell by cell
        assert_allclose(r.zero_share, first, rtol=RTOL)
        assert_allclose(r.zero_share, 0.25, rtol=RTOL)
        H = (N * math.log(N) - 2 * math.log(2)) / N  # 1.5 ln 2
        assert_allclose(r.entropy_term, 1 - H / math.log(K), rtol=RTOL)  # 0.25
        assert_allclose(r.size_term, -(1 / math.sqrt(N)) * math.log(1 / (math.e * math.sqrt(N))), rtol=RTOL)
        assert_allclose(r.value, 0.25 * 0.25 + 0.25 * 0.25 + 0.5 * (1 + LN2) / 2, rtol=RTOL)
        assert r.n_cells == 4 and r.n_nonzero == 3 and r.n == 4

    def test_entropy_risk_counts_unused_categories_as_empty_cells(self):
        d = pd.DataFrame({"a": cat(list("uv"), categories=list("uvw"))})
        r = entropy_risk(d, ["a"], w1=1.0, w2=0.0)
        # 3 cells (u, v, w), one empty: zero share 1/3
        assert r.n_cells == 3
        assert_allclose(r.value, 1 / 3, rtol=RTOL)

    @pytest.mark.parametrize(
        "w1, w2, which",
        [(-0.1, 0.5, "w1 must be >= 0"), (0.5, -0.1, "w2 must be >= 0"), (0.7, 0.6, "w1 \\+ w2 must be <= 1")],
    )
    def test_entropy_risk_refuses_weights_outside_the_domain(self, w1, w2, which):
        d = pd.DataFrame({"a": list("uv")})
        with pytest.raises(InvalidParameterError, match=which):
            entropy_risk(d, ["a"], w1=w1, w2=w2)

    def test_entropy_risk_refuses_unknown_keys_and_non_numbers(self):
        d = pd.DataFrame({"a": list("uv")})
        with pytest.raises(InvalidParameterError, match="key_vars"):
            entropy_risk(d, ["zz"], w1=0.3, w2=0.3)
        with pytest.raises(InvalidParameterError, match="w1"):
            entropy_risk(d, ["a"], w1="0.3", w2=0.3)

    def test_entropy_risk_single_cell_is_degenerate(self):
        d = pd.DataFrame({"a": list("uu")})
        with pytest.warns(DegenerateResultWarning, match="single cell"):
            r = entropy_risk(d, ["a"], w1=0.3, w2=0.3)
        assert np.isnan(r.value)

    def test_entropy_of_empty_data_is_degenerate(self):
        with pytest.warns(DegenerateResultWarning):
            h = entropy(pd.DataFrame({"v": np.array([], dtype=float)})).per_variable
        assert np.isnan(h["v"])


# ====================================================================== gsil
class TestGSIL:
    def test_categorical_only_by_hand(self):
        g = gsil(pd.DataFrame({"a": list("uuvv")}), pd.DataFrame({"a": list("uvvv")}))
        ebil = 3 * -(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))
        ebil_pct = 100 * ebil / (4 * LN2)  # N H_x = 4 ln 2
        hd = math.sqrt(0.5 * ((math.sqrt(0.5) - 0.5) ** 2 + (math.sqrt(0.5) - math.sqrt(0.75)) ** 2))
        assert_allclose([g.ebil_pct, g.ghd_pct], [ebil_pct, 100 * hd], rtol=RTOL)
        assert_allclose(g.value, (ebil_pct + 100 * hd) / 2, rtol=RTOL)
        assert g.applicable == ("ebil_pct", "ghd_pct") and np.isnan(g.gilcv) and g.band == "no data utility"

    def test_mixed_data_is_the_mean_of_three_parts(self):
        x, xm = pysdc.load_demo_pair()
        cols = ["region", "sex", "marital", "income", "expenditure", "savings"]
        g = gsil(x[cols], xm[cols])
        num = ["income", "expenditure", "savings"]
        assert_allclose(g.gilcv, il_continuous(x[num], xm[num]).gilcv, rtol=RTOL)
        assert_allclose(g.ghd_pct, 100 * hellinger(x[cols], xm[cols]).ghd, rtol=RTOL)
        # EBIL% by an independent route: 100 H(V | V') / H(V) per variable, averaged
        pct = []
        for c in ["region", "sex", "marital"]:
            a = x[c].astype(object).fillna("<NA>")
            b = xm[c].astype(object).fillna("<NA>")
            joint = pd.crosstab(a, b).to_numpy().ravel()
            cond = scipy.stats.entropy(joint[joint > 0]) - scipy.stats.entropy(b.value_counts().to_numpy())
            pct.append(100 * cond / scipy.stats.entropy(a.value_counts().to_numpy()))
        assert_allclose(g.ebil_pct, np.mean(pct), rtol=1e-9, atol=1e-9)
        assert_allclose(g.value, (g.ebil_pct + g.ghd_pct + g.gilcv) / 3, rtol=RTOL)
        assert g.band == gsil_band(g.value)

    @pytest.mark.parametrize(
        "value, band",
        [(0.0, "small"), (10.0, "small"), (10.5, "medium"), (20.0, "medium"), (25.0, "serious"),
         (30.0, "serious"), (30.01, "no data utility"), (250.0, "no data utility"), (float("nan"), None)],
    )
    def test_bands(self, value, band):
        assert gsil_band(value) == band

    def test_constant_original_counts_zero(self):
        x = pd.DataFrame({"a": list("uuuu")})
        xm = pd.DataFrame({"a": list("uuuv")})
        g = gsil(x, xm)
        assert g.ebil_per_variable["a"] == 0.0

    def test_single_numeric_variable_makes_gilcv_nan_with_a_warning(self):
        x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "c": list("uvu")})
        xm = pd.DataFrame({"a": [1.0, 2.5, 3.0], "c": list("uvv")})
        with pytest.warns(DegenerateResultWarning) as caught:
            g = gsil(x, xm)
        messages = [str(w.message) for w in caught]
        assert any("GILCV is NaN" in m and "correlation pair" in m for m in messages), messages
        assert any("gsil is NaN" in m for m in messages), messages
        assert np.isnan(g.value) and g.band is None


# ====================================================================== properties
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@st.composite
def numeric_frames(draw):
    n = draw(st.integers(min_value=4, max_value=25))
    p = draw(st.integers(min_value=2, max_value=4))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + rng.normal(size=p) * 10
    return pd.DataFrame(X, columns=[f"v{j}" for j in range(p)]), rng


@st.composite
def categorical_frames(draw):
    n = draw(st.integers(min_value=1, max_value=30))
    p = draw(st.integers(min_value=1, max_value=4))
    cols = {}
    for j in range(p):
        k = draw(st.integers(min_value=1, max_value=4))
        codes = draw(st.lists(st.integers(min_value=-1, max_value=k - 1), min_size=n, max_size=n))
        cols[f"c{j}"] = pd.Categorical.from_codes(codes, [f"l{i}" for i in range(k)],
                                                  ordered=draw(st.booleans()))
    return pd.DataFrame(cols)


def _perturb(frame: pd.DataFrame, rng, prob):
    out = frame.copy()
    for c in out.columns:
        codes = out[c].cat.codes.to_numpy().copy()
        flip = rng.random(len(codes)) < prob
        codes[flip] = rng.integers(-1, len(out[c].cat.categories), flip.sum())
        out[c] = pd.Categorical.from_codes(codes, out[c].cat.categories, ordered=out[c].cat.ordered)
    return out


PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestProperties:
    @PROPS
    @given(numeric_frames())
    def test_identical_numeric_data_lose_nothing(self, data):
        x, _ = data
        r = il_continuous(x, x.copy())
        assert_allclose(r.table.to_numpy(), 0.0, atol=1e-12)
        assert r.il1 == 0.0 and abs(r.gilcv) <= 1e-10
        assert (hellinger(x, x.copy()).per_variable == 0).all() and (il_entropy(x, x.copy()).per_variable == 0).all()

    @PROPS
    @given(categorical_frames())
    def test_identical_categorical_data_lose_nothing(self, x):
        r = il_categorical(x, x.copy(), max_dim=3)
        assert (r.direct == 0).all() and r.ctbil == 0 and r.ctbil_normalized == 0
        assert (r.ebil.abs() <= 1e-12).all() and (r.pril.abs() <= 1e-12).all()
        assert (hellinger(x, x.copy()).per_variable == 0).all() and (il_entropy(x, x.copy()).per_variable == 0).all()
        g = gsil(x, x.copy())
        assert abs(g.value) <= 1e-10 and g.band == "small"

    @PROPS
    @given(numeric_frames(), st.randoms(use_true_random=False))
    def test_permuting_numeric_variables_keeps_global_values(self, data, rnd):
        x, rng = data
        xm = x + rng.normal(scale=0.5, size=x.shape)
        # the principal components (RF, C, F) are defined only up to rotation where eigenvalues coincide or
        # vanish (e.g. 4 records x 4 variables): the property holds where they are distinct and positive
        for f in (x, xm):
            ev = np.linalg.eigvalsh(np.corrcoef(f.to_numpy(), rowvar=False))
            assume(ev.min() > 1e-6 and np.diff(ev).min() > 1e-6 * ev.max())
        order = list(x.columns)
        rnd.shuffle(order)
        a, b = il_continuous(x, xm), il_continuous(x[order], xm[order])
        assert_allclose(b.table.to_numpy(), a.table.to_numpy(), rtol=1e-7, atol=1e-12)
        assert_allclose([b.il1, b.gilcv], [a.il1, a.gilcv], rtol=1e-7, atol=1e-12)
        assert_allclose(hellinger(x[order], xm[order]).ghd, hellinger(x, xm).ghd, rtol=1e-12)

    @PROPS
    @given(categorical_frames(), st.integers(0, 1000), st.randoms(use_true_random=False))
    def test_permuting_categorical_variables_keeps_global_values(self, x, seed, rnd):
        xm = _perturb(x, np.random.default_rng(seed), 0.3)
        order = list(x.columns)
        rnd.shuffle(order)
        a, b = il_categorical(x, xm), il_categorical(x[order], xm[order])
        assert (a.ctbil, a.n_cells) == (b.ctbil, b.n_cells)
        assert_allclose(b.direct.mean(), a.direct.mean(), rtol=1e-12)
        assert_allclose(b.ebil.sum(), a.ebil.sum(), rtol=1e-12, atol=1e-12)
        ga, gb = gsil(x, xm), gsil(x[order], xm[order])
        assert_allclose(gb.value, ga.value, rtol=1e-12, atol=1e-12)

    @PROPS
    @given(categorical_frames(), st.integers(0, 1000))
    def test_unused_levels_ignored_only_where_stated(self, x, seed):
        xm = _perturb(x, np.random.default_rng(seed), 0.3)
        xu, xmu = x.copy(), xm.copy()
        for c in x.columns:  # one more, unused category at the top
            xu[c] = xu[c].cat.add_categories(["unused"])
            xmu[c] = xmu[c].cat.add_categories(["unused"])
        a, b = il_categorical(x, xm), il_categorical(xu, xmu)
        # ignored: CTBIL (cells of present categories), EBIL, PRIL, Hellinger, entropy
        assert (a.ctbil, a.n_cells, a.ctbil_normalized) == (b.ctbil, b.n_cells, b.ctbil_normalized)
        assert_allclose(b.ebil.to_numpy(), a.ebil.to_numpy(), rtol=1e-12, atol=1e-12)
        assert_allclose(b.pril.to_numpy(), a.pril.to_numpy(), rtol=1e-12, atol=1e-12)
        assert_allclose(hellinger(xu, xmu).per_variable.to_numpy(), hellinger(x, xm).per_variable.to_numpy(), rtol=1e-12, atol=1e-15)
        assert_allclose(entropy(xu).per_variable.to_numpy(), entropy(x).per_variable.to_numpy(), rtol=1e-12, atol=1e-15)
        # counted (stated): nominal direct is unchanged; ordinal direct divides by |D(V)| + 1 instead of |D(V)|
        for c in x.columns:
            if x[c].cat.ordered:
                k = len(x[c].cat.categories) + int(x[c].isna().any() or xm[c].isna().any())
                assert_allclose(b.direct[c], a.direct[c] * k / (k + 1), rtol=1e-12, atol=1e-15)
            else:
                assert b.direct[c] == a.direct[c]
        # counted (stated): the key table of entropy_risk has more (empty) cells
        c0 = x.columns[0]
        k0 = len(x[c0].cat.categories) + int(x[c0].isna().any())
        assert entropy_risk(xu, [c0], w1=0.5, w2=0.0).n_cells == k0 + 1


class TestLossGrowsWithNoise:
    """Averages over a fixed sweep of seeds (not a single draw): more noise, more loss."""

    SEEDS = range(10)

    def test_continuous_measures_grow_with_noise(self):
        levels = [0.05, 0.2, 0.5, 1.0, 2.0]
        il1, mse, gil, hd = [], [], [], []
        for scale in levels:
            rows = []
            for seed in self.SEEDS:
                x, xm = _noisy_pair(seed, n=400, p=4, scale=scale)
                r = il_continuous(x, xm)
                rows.append((r.il1, r.table.loc["X", "mse"], r.gilcv, hellinger(x, xm).ghd))
            m = np.mean(rows, axis=0)
            il1.append(m[0])
            mse.append(m[1])
            gil.append(m[2])
            hd.append(m[3])
        for series in (il1, mse, gil, hd):
            assert np.all(np.diff(series) > 0), series

    def test_categorical_measures_grow_with_perturbation(self):
        x, _ = pysdc.load_demo_pair()
        x = x[["region", "sex", "marital", "education"]]
        probs = [0.02, 0.1, 0.3, 0.6]
        out = []
        for prob in probs:
            rows = []
            for seed in self.SEEDS:
                xm = _perturb(x, np.random.default_rng(seed), prob)
                r = il_categorical(x, xm)
                rows.append((r.direct.mean(), r.ctbil, r.ebil.sum(), gsil(x, xm).value))
            out.append(np.mean(rows, axis=0))
        out = np.array(out)
        assert np.all(np.diff(out, axis=0) > 0), out
