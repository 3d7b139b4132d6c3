"""Information-loss measures: hand-computed cases, invariants, refusals, properties.

Expected values are derived from the formulas in sdcMicro's documentation and
../shared/SDCMICRO_NOTES.md, by hand, never from pysdc's output. Parity with
sdcMicro itself is tested against the stored reference corpus.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import pysdc
from pysdc import DegenerateResultWarning, InvalidParameterError

RTOL = 1e-12


def frame(**cols):
    return pd.DataFrame(cols)


# ------------------------------------------------------------------ d_utility: hand cases
class TestDUtilityHand:
    def test_il1_percent_plain_sum(self):
        x = frame(a=[1.0, 2.0, 4.0], b=[10.0, 20.0, 40.0])
        xm = frame(a=[1.5, 2.0, 3.0], b=[10.0, 25.0, 40.0])
        # 100*(0.5/1 + 0 + 1/4) + 100*(0 + 5/20 + 0) = 50 + 25 + 25
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 100.0, rtol=RTOL)

    def test_il1_drops_zero_cells_and_zero_over_zero(self):
        x = frame(a=[0.0, 0.0, 2.0])
        xm = frame(a=[3.0, 0.0, 3.0])
        # cell 1: 300/0 = Inf -> dropped; cell 2: 0/0 -> dropped; cell 3: 100 * 1/2
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 50.0, rtol=RTOL)

    def test_il1_drops_missing_cells(self):
        x = frame(a=[np.nan, 1.0, 2.0])
        xm = frame(a=[1.0, np.nan, 1.0])
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 50.0, rtol=RTOL)

    def test_il1s_plain_sum_with_sample_sd(self):
        x = frame(a=[1.0, 2.0, 3.0])  # sample sd = 1
        xm = frame(a=[2.0, 2.0, 1.0])
        expected = (1 + 0 + 2) / (1.0 * math.sqrt(2))
        assert_allclose(pysdc.d_utility(x, xm, method="IL1s"), expected, rtol=RTOL)
        assert_allclose(pysdc.d_utility(x, xm), expected, rtol=RTOL)  # IL1s is the default

    def test_il1s_average_is_the_literature_mean(self):
        x = frame(a=[1.0, 2.0, 3.0], b=[0.0, 2.0, 4.0])  # sds 1 and 2
        xm = frame(a=[2.0, 2.0, 1.0], b=[0.0, 4.0, 4.0])
        total = 3 / math.sqrt(2) + 2 / (2 * math.sqrt(2))
        assert_allclose(pysdc.d_utility(x, xm, method="IL1s", average=True), total / 6, rtol=RTOL)

    def test_il1s_sd_ignores_missing(self):
        x = frame(a=[1.0, np.nan, 2.0, 3.0])  # sd of 1,2,3 = 1
        xm = frame(a=[1.0, 5.0, 2.0, 4.0])
        assert_allclose(pysdc.d_utility(x, xm, method="IL1s"), 1 / math.sqrt(2), rtol=RTOL)

    def test_il1s_constant_column_is_inf(self):
        x = frame(a=[1.0, 1.0, 1.0])
        xm = frame(a=[1.0, 1.0, 2.0])
        with pytest.warns(DegenerateResultWarning):
            assert pysdc.d_utility(x, xm, method="IL1s") == np.inf

    def test_il1s_constant_unchanged_column_is_dropped(self):
        x = frame(a=[1.0, 1.0, 1.0], b=[1.0, 2.0, 3.0])
        xm = frame(a=[1.0, 1.0, 1.0], b=[1.0, 2.0, 4.0])
        assert_allclose(pysdc.d_utility(x, xm, method="IL1s"), 1 / math.sqrt(2), rtol=RTOL)

    def test_eigen_two_variables(self):
        # x: perfectly uncorrelated standardised pair -> eigenvalues (1, 1)
        x = frame(a=[1.0, -1.0, 1.0, -1.0], b=[1.0, 1.0, -1.0, -1.0])
        # xm: perfectly correlated -> correlation matrix [[1,1],[1,1]], eigenvalues (2, 0)
        xm = frame(a=[1.0, 2.0, 3.0, 4.0], b=[2.0, 4.0, 6.0, 8.0])
        # |1 - 2|/1 + |1 - 0|/1 = 2
        assert_allclose(pysdc.d_utility(x, xm, method="eigen"), 2.0, rtol=RTOL, atol=1e-13)

    def test_eigen_constant_column_is_nan_with_warning(self):
        x = frame(a=[1.0, 1.0, 1.0], b=[1.0, 2.0, 3.0])
        with pytest.warns(DegenerateResultWarning, match="NA"):
            assert np.isnan(pysdc.d_utility(x, x, method="eigen"))

    def test_eigen_non_numeric_is_nan_with_warning(self):
        x = frame(a=[1.0, 2.0, 4.0], c=pd.Categorical(["u", "v", "u"]))
        with pytest.warns(DegenerateResultWarning):
            assert np.isnan(pysdc.d_utility(x, x, method="eigen"))

    def test_integer_and_logical_columns_are_numeric(self):
        x = frame(a=np.array([1, 2, 4], dtype="int64"), b=[True, False, True])
        xm = frame(a=np.array([1, 2, 5], dtype="int64"), b=[True, False, True])
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 25.0, rtol=RTOL)

    def test_nullable_integer_with_missing(self):
        x = frame(a=pd.array([1, None, 4], dtype="Int64"))
        xm = frame(a=pd.array([1, 3, 5], dtype="Int64"))
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 25.0, rtol=RTOL)

    def test_arrays_are_accepted(self):
        x = np.array([[1.0, 2.0], [2.0, 4.0], [4.0, 8.0]])
        xm = x.copy()
        xm[2, 0] = 5.0
        assert_allclose(pysdc.d_utility(x, xm, method="IL1"), 25.0, rtol=RTOL)


# ------------------------------------------------------------------ invariants
def _rand_pair(seed=0, n=60, p=3, noise=0.3):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.lognormal(size=(n, p)) * 10, columns=[f"v{i}" for i in range(p)])
    xm = x + rng.normal(scale=noise, size=x.shape)
    return x, xm


@pytest.mark.parametrize("method", ["IL1", "IL1s", "eigen", "robeigen"])
def test_zero_loss_when_identical(method):
    x, _ = _rand_pair()
    assert_allclose(pysdc.d_utility(x, x.copy(), method=method, random_state=1), 0.0, atol=1e-12)


@pytest.mark.parametrize("method", ["IL1", "IL1s", "eigen"])
def test_column_order_invariance(method):
    x, xm = _rand_pair(1)
    a = pysdc.d_utility(x, xm, method=method)
    order = ["v2", "v0", "v1"]
    assert_allclose(pysdc.d_utility(x[order], xm[order], method=method), a, rtol=1e-12, atol=1e-14)
    # xm's columns are matched by name
    assert_allclose(pysdc.d_utility(x, xm[order], method=method), a, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("method", ["IL1", "IL1s", "eigen"])
def test_scale_invariance(method):
    # IL1 is relative, IL1s is in sd units, eigen standardises: all are scale-free
    x, xm = _rand_pair(2)
    c = 37.5
    assert_allclose(pysdc.d_utility(x * c, xm * c, method=method), pysdc.d_utility(x, xm, method=method), rtol=1e-10)


def test_il1s_translation_invariant_il1_not():
    x, xm = _rand_pair(3)
    assert_allclose(pysdc.d_utility(x + 100, xm + 100, method="IL1s"), pysdc.d_utility(x, xm, method="IL1s"), rtol=1e-10)
    assert pysdc.d_utility(x + 100, xm + 100, method="IL1") < pysdc.d_utility(x, xm, method="IL1")


def test_il1s_grows_with_noise():
    x, _ = _rand_pair(4)
    rng = np.random.default_rng(0)
    e = rng.normal(size=x.shape)
    vals = [pysdc.d_utility(x, x + s * e, method="IL1s") for s in (0.1, 1.0, 10.0)]
    assert_allclose(vals[1], 10 * vals[0], rtol=1e-10)  # linear in the noise scale
    assert_allclose(vals[2], 100 * vals[0], rtol=1e-10)


def test_robeigen_reproducible_with_random_state():
    x, xm = _rand_pair(5, n=200)
    a = pysdc.d_utility(x, xm, method="robeigen", random_state=3)
    b = pysdc.d_utility(x, xm, method="robeigen", random_state=3)
    assert a == b


# ------------------------------------------------------------------ refusals
class TestDUtilityRefusals:
    def test_unknown_method(self):
        x, xm = _rand_pair()
        with pytest.raises(InvalidParameterError, match="method must be one of"):
            pysdc.d_utility(x, xm, method="IL2")

    def test_average_only_for_cellwise(self):
        x, xm = _rand_pair()
        with pytest.raises(InvalidParameterError, match="average"):
            pysdc.d_utility(x, xm, method="eigen", average=True)

    def test_different_row_counts(self):
        x, xm = _rand_pair()
        with pytest.raises(InvalidParameterError, match="rows"):
            pysdc.d_utility(x, xm.iloc[:-1], method="IL1")

    def test_different_columns(self):
        x, xm = _rand_pair()
        with pytest.raises(InvalidParameterError, match="only in x"):
            pysdc.d_utility(x, xm.rename(columns={"v0": "w"}), method="IL1")

    @pytest.mark.parametrize("method", ["IL1", "IL1s"])
    def test_non_numeric_column(self, method):
        x = frame(a=[1.0, 2.0], s=["p", "q"])
        with pytest.raises(InvalidParameterError, match="'s'"):
            pysdc.d_utility(x, x, method=method)

    def test_not_a_frame(self):
        with pytest.raises(InvalidParameterError, match="x must be"):
            pysdc.d_utility([[1.0]], [[1.0]], method="IL1")

    def test_string_array(self):
        with pytest.raises(InvalidParameterError, match="numeric array"):
            pysdc.d_utility(np.array([["a"]]), np.array([["a"]]), method="IL1")

    def test_duplicated_columns(self):
        x = pd.DataFrame([[1.0, 2.0]], columns=["a", "a"])
        with pytest.raises(InvalidParameterError, match="duplicated"):
            pysdc.d_utility(x, x, method="IL1")


# ------------------------------------------------------------------ IL_correl
class TestILCorrel:
    def test_identical_is_zero(self):
        x, _ = _rand_pair(6)
        r = pysdc.il_correl(x, x.copy())
        assert r.value == 0.0 and float(r) == 0.0
        assert (r.n_vars, r.n_x, r.n_xm) == (3, 60, 60)

    def test_hand_case_two_variables(self):
        # With two variables of correlation r the inverse has diagonal (1/(1-r^2)) * (1, 1),
        # normalised to (1, 1)/sqrt(2) whatever r is: the measure is 0 for any pair.
        rng = np.random.default_rng(0)
        x = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
        xm = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
        assert_allclose(pysdc.il_correl(x, xm).value, 0.0, atol=1e-15)

    def test_hand_case_three_variables(self):
        # x: identity correlation -> d_x = (1,1,1)/sqrt(3).
        # xm: corr(a,b) = 0.6, c independent -> d = (1/0.64, 1/0.64, 1).
        x = frame(a=[1.0, -1, 1, -1], b=[1.0, 1, -1, -1], c=[1.0, -1, -1, 1])
        # a, b with correlation 0.6 and c orthogonal to both:
        u = np.array([1.0, -1, 1, -1])
        v = np.array([1.0, 1, -1, -1])
        w = np.array([1.0, -1, -1, 1])
        xm = frame(a=u, b=0.6 * u + 0.8 * v, c=w)
        dx = np.ones(3) / np.sqrt(3)
        d = np.array([1 / 0.64, 1 / 0.64, 1.0])
        dm = d / np.linalg.norm(d)
        expected = np.linalg.norm(dx - dm) / np.sqrt(2)
        assert_allclose(pysdc.il_correl(x, xm).value, expected, rtol=1e-12)
        assert_allclose(pysdc.il_correl(x, xm, normalization="mlodak").value, expected * np.sqrt(2) / 2, rtol=1e-12)

    def test_column_selection_and_order(self):
        x, xm = _rand_pair(7)
        a = pysdc.il_correl(x, xm)
        # non-numeric common columns and columns of one side only are ignored
        x2 = x.assign(flag=True, cat=pd.Categorical(["a"] * len(x)), only_x=1.0)
        xm2 = xm[["v2", "v1", "v0"]].assign(flag=False, cat=pd.Categorical(["b"] * len(x)))
        b = pysdc.il_correl(x2, xm2)
        assert_allclose(b.value, a.value, rtol=1e-12)
        assert b.variables == ("v0", "v1", "v2")

    def test_different_row_counts_allowed(self):
        x, xm = _rand_pair(8)
        r = pysdc.il_correl(x, xm.iloc[:40])
        assert (r.n_x, r.n_xm) == (60, 40)

    def test_complete_cases_per_frame(self):
        x, xm = _rand_pair(9)
        x_na = x.copy()
        x_na.iloc[0, 1] = np.nan
        assert_allclose(pysdc.il_correl(x_na, xm).value, pysdc.il_correl(x.iloc[1:], xm).value, rtol=1e-12)

    def test_singular_is_refused(self):
        x = frame(a=[1.0, 2, 3, 4], b=[2.0, 4, 6, 8], c=[1.0, 0, 0, 1])
        with pytest.raises(InvalidParameterError, match="singular"):
            pysdc.il_correl(x, x)

    def test_constant_column_is_refused(self):
        x = frame(a=[1.0, 2, 3, 4], b=[1.0, 1, 1, 1])
        with pytest.raises(InvalidParameterError, match="correlation matrix"):
            pysdc.il_correl(x, x)

    def test_numeric_on_one_side_only_is_refused(self):
        x, xm = _rand_pair(10)
        xm = xm.assign(v0=xm["v0"].astype(str))
        with pytest.raises(InvalidParameterError, match="numeric only in x"):
            pysdc.il_correl(x, xm)

    def test_no_common_columns(self):
        with pytest.raises(InvalidParameterError, match="no column name in common"):
            pysdc.il_correl(frame(a=[1.0, 2.0]), frame(b=[1.0, 2.0]))

    def test_no_complete_rows(self):
        x = frame(a=[1.0, np.nan], b=[np.nan, 2.0])
        with pytest.raises(InvalidParameterError, match="complete"):
            pysdc.il_correl(x, x)

    def test_bad_normalization(self):
        x, xm = _rand_pair()
        with pytest.raises(InvalidParameterError, match="normalization"):
            pysdc.il_correl(x, xm, normalization="half")


# ------------------------------------------------------------------ IL_variables
class TestILVariables:
    def test_numeric_hand_case(self):
        x = frame(a=[0.0, 1.0, 2.0])
        xm = frame(a=[1.0, 1.0, 2.0])
        # (2/pi) atan(1) = 0.5 for the first record, 0 for the others
        r = pysdc.il_variables(x, xm)
        assert_allclose(r.value, 0.5 / 3, rtol=RTOL)
        assert_allclose(r.per_variable["a"], 0.5 / 3, rtol=RTOL)
        assert r.n == 3

    def test_numeric_one_side_missing_costs_range_distance(self):
        x = frame(a=[0.0, 1.0, 4.0])
        xm = frame(a=[np.nan, 2.0, np.nan])
        # max(|range(xm) - rev(range(x))|) = max(|2 - 4|, |2 - 0|) = 2
        per = 2 * (2 / np.pi) * np.arctan(2.0) + (2 / np.pi) * np.arctan(1.0)
        assert_allclose(pysdc.il_variables(x, xm).value, per / 3, rtol=RTOL)

    def test_numeric_both_missing_costs_nothing(self):
        x = frame(a=[np.nan, 1.0])
        xm = frame(a=[np.nan, 1.0])
        assert pysdc.il_variables(x, xm).value == 0.0

    def test_ordered_hand_case(self):
        cat = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
        x = frame(o=pd.Series(["lo", "hi", "mid", None, None], dtype=cat))
        xm = frame(o=pd.Series(["hi", "hi", "lo", "mid", None], dtype=cat))
        # |0-2|/2 = 1, 0, |1-0|/2 = 0.5, one NA = 1, both NA = 0
        assert_allclose(pysdc.il_variables(x, xm).value, 2.5 / 5, rtol=RTOL)

    def test_nominal_hand_case(self):
        x = frame(f=pd.Categorical(["a", "b", "c", None, None]), s=["u", "v", None, "w", None])
        xm = frame(f=pd.Categorical(["a", "c", "c", "a", None]), s=["u", "w", "x", None, None])
        r = pysdc.il_variables(x, xm)
        assert_allclose(r.per_variable.to_numpy(), [2 / 5, 3 / 5], rtol=RTOL)
        assert_allclose(r.value, 5 / 10, rtol=RTOL)
        assert list(r.per_variable.index) == ["f", "s"]

    def test_nominal_compares_labels_across_level_sets(self):
        x = frame(f=pd.Categorical(["a", "b"], categories=["a", "b"]))
        xm = frame(f=pd.Categorical(["a", "b"], categories=["b", "a", "z"]))
        assert pysdc.il_variables(x, xm).value == 0.0

    def test_one_level_ordered_is_nan_with_warning(self):
        cat = pd.CategoricalDtype(["only"], ordered=True)
        x = frame(o=pd.Series(["only", "only"], dtype=cat))
        with pytest.warns(DegenerateResultWarning, match="one-level"):
            assert np.isnan(pysdc.il_variables(x, x).value)

    def test_common_columns_in_x_order(self):
        x = frame(b=[1.0, 2.0], a=[1.0, 3.0], only_x=[0.0, 0.0])
        xm = frame(a=[1.0, 2.0], b=[1.0, 2.0], only_xm=["p", "q"])
        r = pysdc.il_variables(x, xm)
        assert list(r.per_variable.index) == ["b", "a"]
        assert_allclose(r.value, 0.5 / 4, rtol=RTOL)

    @pytest.mark.parametrize(
        "col", [np.array([1, 2], dtype="int64"), pd.array([1, None], dtype="Int64"), [True, False]]
    )
    def test_integer_and_logical_refused_with_the_way_out(self, col):
        x = frame(k=col)
        with pytest.raises(InvalidParameterError, match=r"'k'.*scales=\{'k'"):
            pysdc.il_variables(x, x)

    def test_declared_numeric_scale(self):
        x = frame(k=np.array([0, 1, 2], dtype="int64"))
        xm = frame(k=np.array([1, 1, 2], dtype="int64"))
        assert_allclose(pysdc.il_variables(x, xm, scales={"k": "numeric"}).value, 0.5 / 3, rtol=RTOL)

    def test_declared_ordinal_scale(self):
        x = frame(k=np.array([1, 2, 3, 3], dtype="int64"))
        xm = frame(k=np.array([3, 2, 1, 3], dtype="int64"))
        # levels 1 < 2 < 3: distances 1, 0, 1, 0
        assert_allclose(pysdc.il_variables(x, xm, scales={"k": "ordinal"}).value, 2 / 4, rtol=RTOL)

    def test_declared_nominal_scale(self):
        x = frame(k=[True, False, True])
        xm = frame(k=[True, True, True])
        assert_allclose(pysdc.il_variables(x, xm, scales={"k": "nominal"}).value, 1 / 3, rtol=RTOL)

    def test_different_types_refused(self):
        x = frame(a=np.array([1, 2], dtype="int64"))
        xm = frame(a=[1.0, 2.0])
        with pytest.raises(InvalidParameterError, match="integer in x but numeric in xm"):
            pysdc.il_variables(x, xm)

    def test_ordered_levels_must_match(self):
        x = frame(o=pd.Categorical(["a", "b"], categories=["a", "b"], ordered=True))
        xm = frame(o=pd.Categorical(["a", "b"], categories=["b", "a"], ordered=True))
        with pytest.raises(InvalidParameterError, match="levels"):
            pysdc.il_variables(x, xm)

    def test_different_row_counts(self):
        with pytest.raises(InvalidParameterError, match="rows"):
            pysdc.il_variables(frame(a=[1.0, 2.0]), frame(a=[1.0]))

    def test_no_common_columns(self):
        with pytest.raises(InvalidParameterError, match="no column in common"):
            pysdc.il_variables(frame(a=[1.0]), frame(b=[1.0]))

    def test_bad_scales(self):
        x = frame(a=[1.0])
        with pytest.raises(InvalidParameterError, match="scales"):
            pysdc.il_variables(x, x, scales={"a": "interval"})
        with pytest.raises(InvalidParameterError, match="not a column"):
            pysdc.il_variables(x, x, scales={"zz": "numeric"})

    def test_arrays_refused(self):
        with pytest.raises(InvalidParameterError, match="DataFrame"):
            pysdc.il_variables(np.ones((2, 2)), np.ones((2, 2)))

    def test_identical_is_zero(self):
        x = frame(
            a=[1.0, np.nan], o=pd.Categorical(["x", None], categories=["x", "y"], ordered=True),
            f=pd.Categorical(["p", None]), s=["u", None],
        )
        r = pysdc.il_variables(x, x.copy())
        assert r.value == 0.0 and (r.per_variable == 0).all()


# ------------------------------------------------------------------ properties
_col_kinds = st.sampled_from(["float", "int", "bool", "cat", "ord", "str"])


@st.composite
def frame_pairs(draw):
    n = draw(st.integers(0, 12))
    kinds = draw(st.lists(_col_kinds, min_size=1, max_size=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x, xm = {}, {}
    for j, kind in enumerate(kinds):
        name = f"c{j}"
        for target in (x, xm):
            na = rng.random(n) < draw(st.sampled_from([0.0, 0.3]))
            if kind == "float":
                v = rng.choice([0.0, 1.0, -2.5, 1e6, 3.3], size=n)
                target[name] = pd.Series(np.where(na, np.nan, v), dtype="float64")
            elif kind == "int":
                target[name] = pd.Series(pd.array(np.where(na, None, rng.integers(0, 3, n)), dtype="Int64"))
            elif kind == "bool":
                target[name] = pd.Series(rng.random(n) < 0.5)
            elif kind in ("cat", "ord"):
                vals = np.where(na, None, rng.choice(["a", "b", "c"], size=n)).astype(object)
                target[name] = pd.Series(pd.Categorical(vals, categories=["a", "b", "c"], ordered=kind == "ord"))
            else:
                target[name] = pd.Series(np.where(na, None, rng.choice(["u", "v"], size=n)), dtype=object)
    return pd.DataFrame(x, index=range(n)), pd.DataFrame(xm, index=range(n))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame_pairs(), st.sampled_from(["IL1", "IL1s", "eigen", "robeigen", "correl", "variables"]))
def test_random_frames_never_raise_unexplained(pair, measure):
    x, xm = pair
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateResultWarning)
        try:
            if measure == "correl":
                r = pysdc.il_correl(x, xm)
                assert 0.0 <= r.value <= 1.0 + 1e-12
            elif measure == "variables":
                r = pysdc.il_variables(x, xm)
                assert np.isnan(r.value) or 0.0 <= r.value <= 1.0
            else:
                v = pysdc.d_utility(x, xm, method=measure, random_state=0)
                assert isinstance(v, float)
                degenerate = any(issubclass(w.category, DegenerateResultWarning) for w in caught)
                # a singular (exact-fit) covariance has eigenvalues that are rounding noise and can make
                # the sum negative, in sdcMicro too; that is always announced by a warning
                assert np.isnan(v) or v >= 0.0 or degenerate
        except InvalidParameterError as exc:
            assert str(exc)  # explained
