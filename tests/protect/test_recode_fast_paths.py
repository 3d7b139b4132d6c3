"""global_recode's fast paths (issue 28, speed) against its general paths and against definitions.

The fast paths of pysdc/protect/_recode.py: interval codes counted by one comparison per break from the
lowest break (NaN and values below come out -1 without a mask, ``include_lowest`` in the same comparison, no
pass for values above the breaks when the maximum is known); equalAmount's order statistics ranked around
the NaN of the column (not copied out), the bands binned by one comparison per bound (overlapping bands
merged) and each band narrowed by a second sample (samples sorted as float32); the categorical dtype built once per label set. Each is
compared here with the general path the module keeps (binary search for more than ``_COMPARE_UP_TO``
breaks, ``np.partition`` of all values below ``_BANDS_FROM``), forced by monkeypatching, and with the
definitions written out in the test (R's ``cut``: ``b[i] < x <= b[i + 1]``; an order statistic: the value
at that position of the sorted non-missing values). globalRecode has no ``right`` argument (sdcMicro always
cuts right-closed), so there is no ``right = FALSE`` path to test. Marker ``live``: the same awkward column
through sdcMicro 5.8.0 (pysdc.r).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import CoercionWarning, InvalidParameterError
from pysdc.protect import _recode, global_recode


def _cut_by_definition(x, b, include_lowest):
    """R's cut codes written out: the i with b[i] < x <= b[i + 1] (x == b[0] too with include_lowest), else -1."""
    b = np.sort(np.asarray(b, dtype=float))
    out = []
    for v in np.asarray(x, dtype=float).tolist():
        code = -1
        for i in range(b.size - 1):
            if b[i] < v <= b[i + 1] or (include_lowest and i == 0 and v == b[0]):
                code = i
                break
        out.append(code)
    return np.array(out)


def _general(monkeypatch):
    """Force the general paths: binary search for the codes, one np.partition for the order statistics."""
    monkeypatch.setattr(_recode, "_COMPARE_UP_TO", 0)
    monkeypatch.setattr(_recode, "_BANDS_FROM", 10**12)
    monkeypatch.setattr(_recode, "_DTYPES", {})


def _awkward(n=50_000, seed=7):
    """NaN, +-Inf, values exactly on round numbers (ties on the rounded breaks), duplicates, a long tail."""
    rng = np.random.default_rng(seed)
    x = rng.lognormal(9.5, 0.8, n).round(0)
    x[rng.random(n) < 0.03] = np.nan
    x[:5] = [np.inf, -np.inf, 0.0, 100.0, 1000.0]
    x[rng.integers(0, n, 200)] = 5000.0
    return x


BREAKS = [
    [0, 1e4, 2e4, 5e4, np.inf],          # the benchmark's cut points; Inf
    [-np.inf, 0, 100, 1000, 5000, np.inf],  # both infinities; values on breaks
    [1000, 5000],                        # one interval, most values outside
    list(np.linspace(0, 60000, 24)),     # the most breaks the comparisons take
    list(np.linspace(0, 60000, 40)),     # binary search
]


@pytest.mark.parametrize("include_lowest", [False, True])
@pytest.mark.parametrize("breaks", BREAKS, ids=lambda b: f"{len(b)}breaks")
def test_interval_codes_match_the_definition(breaks, include_lowest):
    x = _awkward(3000)
    b = np.sort(np.asarray(breaks, dtype=float))
    want = _cut_by_definition(x, b, include_lowest)
    got = _recode._interval_codes(x, b, include_lowest=include_lowest)
    np.testing.assert_array_equal(got, want)
    # the maximum handed in (as the computed breaks do) skips the pass for values above the breaks
    hi = float(np.nanmax(x))
    np.testing.assert_array_equal(_recode._interval_codes(x, b, include_lowest=include_lowest, hi=hi), want)


def test_interval_codes_lowest_value_on_the_first_break():
    x = np.array([1.0, 1.0, 2.0, np.nan, 0.5, 3.0, 3.5])
    b = np.array([1.0, 2.0, 3.0])
    assert _recode._interval_codes(x, b).tolist() == [-1, -1, 0, -1, -1, 1, -1]
    assert _recode._interval_codes(x, b, include_lowest=True).tolist() == [0, 0, 0, -1, -1, 1, -1]
    assert _recode._interval_codes(x, b, include_lowest=True, hi=3.5).tolist() == [0, 0, 0, -1, -1, 1, -1]
    assert _recode._interval_codes(x[:-1], b, include_lowest=True, hi=3.0).tolist() == [0, 0, 0, -1, -1, 1]


def _frames():
    x = _awkward()
    finite = np.where(np.isfinite(x), x, np.nan)
    rng = np.random.default_rng(3)
    return {
        "float_nan_inf": pd.DataFrame({"v": x, "other": np.arange(x.size)}),
        "float_nan": pd.DataFrame({"v": finite}),
        "int64": pd.DataFrame({"v": rng.integers(0, 100, 40_000)}),
        "Int64_na": pd.DataFrame({"v": pd.array(np.where(rng.random(40_000) < 0.1, None,
                                                          rng.integers(0, 100, 40_000)), dtype="Int64")}),
        "Float64_na": pd.DataFrame({"v": pd.array(finite, dtype="Float64")}),
        "all_equal": pd.DataFrame({"v": np.full(40_000, 7.0)}),
        "small": pd.DataFrame({"v": [3.0, np.nan, 1.0, 2.0, 2.0, 10.0]}),
    }


CALLS = [
    ("cuts", dict(breaks=[0, 10, 100, 1e4, 5e4, np.inf])),
    ("cuts_labels", dict(breaks=[-np.inf, 10, 1e4, np.inf], labels=["a", "b", "a"])),
    ("cuts_codes", dict(breaks=[-np.inf, 10, 1e4, np.inf], labels=False)),
    ("n1", dict(breaks=1)),
    ("n2", dict(breaks=2)),
    ("n10", dict(breaks=10)),
    ("n40", dict(breaks=40)),
    ("n10_codes", dict(breaks=10, labels=False)),
    ("equalAmount5", dict(breaks=5, method="equalAmount", random_state=1)),
    ("equalAmount3", dict(breaks=3, method="equalAmount", random_state=1)),
    ("equalAmount30", dict(breaks=30, method="equalAmount", random_state=1)),
    ("logEqui", dict(breaks=6, method="logEqui")),
]


def _run(df, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = global_recode(df, "v", **kw)
        except InvalidParameterError as e:
            return ("error", str(e)), [str(x.message) for x in w]
    return out, [str(x.message) for x in w]


@pytest.mark.parametrize("frame", list(_frames()))
@pytest.mark.parametrize(("name", "kw"), CALLS, ids=[c[0] for c in CALLS])
def test_fast_path_equals_general_path(monkeypatch, frame, name, kw):
    df = _frames()[frame]
    before = df.copy()
    fast, fast_warn = _run(df, kw)
    with monkeypatch.context() as mp:
        _general(mp)
        slow, slow_warn = _run(df, kw)
    pd.testing.assert_frame_equal(df, before)  # the input is untouched
    assert fast_warn == slow_warn
    if isinstance(slow, tuple):
        assert fast == slow
        return
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    f, s = fast["v"], slow["v"]
    assert f.dtype == s.dtype
    if isinstance(s.dtype, pd.CategoricalDtype):
        assert f.cat.codes.dtype == s.cat.codes.dtype
        assert f.cat.categories.tolist() == s.cat.categories.tolist()
        assert f.cat.categories.dtype == s.cat.categories.dtype == object


def test_factor_column_is_refused_on_both_paths(monkeypatch):
    df = pd.DataFrame({"v": pd.Categorical(["a", "b"] * 20_000)})
    with pytest.raises(InvalidParameterError, match="categorical"):
        global_recode(df, "v", 5, method="equalAmount")
    with monkeypatch.context() as mp:
        _general(mp)
        with pytest.raises(InvalidParameterError, match="categorical"):
            global_recode(df, "v", 5, method="equalAmount")


def test_all_equal_values_tie_equal_amount_and_jitter_as_before(monkeypatch):
    df = pd.DataFrame({"v": np.r_[np.full(40_000, 7.0), [np.nan] * 10]})
    with pytest.warns(CoercionWarning, match="tied quantiles"):
        fast = global_recode(df, "v", 4, method="equalAmount", random_state=3)
    with monkeypatch.context() as mp:
        _general(mp)
        with pytest.warns(CoercionWarning, match="tied quantiles"):
            slow = global_recode(df, "v", 4, method="equalAmount", random_state=3)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_shared_dtype_does_not_tie_results_together():
    df = pd.DataFrame({"v": np.arange(100.0)})
    a = global_recode(df, "v", [0, 50, 100])
    b = global_recode(df, "v", [0, 50, 100])
    assert a["v"].dtype == b["v"].dtype
    a["v"] = a["v"].cat.rename_categories(["x", "y"])
    assert b["v"].cat.categories.tolist() == ["(0,50]", "(50,100]"]


# =============================================================================
# order statistics around NaN, in bands


def _ranks(n, probs):
    index = 1 + (n - 1) * np.asarray(probs)
    return np.unique(np.concatenate((np.floor(index), np.ceil(index))).astype(np.int64) - 1)


def _columns():
    rng = np.random.default_rng(11)
    n = 120_000
    x = rng.normal(size=n)
    ties = rng.integers(0, 7, n).astype(float)
    sorted_ = np.sort(rng.random(n))
    periodic = np.tile(np.arange(64.0), n // 64)  # the systematic sample sees one value only
    infs = x.copy()
    infs[rng.integers(0, n, 5000)] = np.inf
    infs[rng.integers(0, n, 5000)] = -np.inf
    huge = x * 1e300  # beyond float32: the sample's bounds become +-inf
    dense = 1.0 + rng.random(n) * 1e-9  # float32 cannot tell the values apart: equal bounds
    out = {}
    for name, v in [("normal", x), ("ties", ties), ("sorted", sorted_), ("periodic", periodic), ("inf", infs),
                    ("huge", huge), ("dense", dense)]:
        v = v.copy()
        v[rng.random(v.size) < 0.05] = np.nan
        out[name] = v
    out["nan_block"] = np.r_[np.full(60_000, np.nan), x[:60_000]]  # the sample's first half is all NaN
    return out


PROBS = {
    "quintiles": np.r_[0, np.arange(1, 6) / 5],
    "close": np.array([0.0, 0.5, 0.5001, 0.5002, 1.0]),  # bands overlap: merged
    "deciles_odd": np.r_[0, np.arange(1, 8) / 7],
    "many": np.r_[0, np.arange(1, 31) / 30],  # more bands than binned: one partial sort
    "extremes": np.array([0.0, 0.001, 0.01, 0.5, 0.99, 0.999, 1.0]),  # bands open to -Inf / +Inf
}


@pytest.mark.parametrize("probs", list(PROBS))
@pytest.mark.parametrize("col", list(_columns()))
def test_order_statistics_with_nan_equal_the_sorted_definition(col, probs):
    x = _columns()[col]
    ok = np.sort(x[~np.isnan(x)])
    ks = _ranks(ok.size, PROBS[probs])
    got = _recode._order_statistics(x, ks, n_nan=int(np.isnan(x).sum()))
    np.testing.assert_array_equal(got, ok[ks])
    np.testing.assert_array_equal(_recode._quantile7(x, PROBS[probs], n_nan=int(np.isnan(x).sum())),
                                  _recode._quantile7(ok, PROBS[probs]))


@pytest.mark.parametrize("size", [2047, 2048, 6600, 50_000])
def test_band_select_narrowing_equals_partition(size):
    rng = np.random.default_rng(size)
    for band in (rng.normal(size=size), np.sort(rng.normal(size=size)), rng.integers(0, 3, size) * 1.0,
                 rng.normal(size=size) * 1e300, 1.0 + rng.random(size) * 1e-9,
                 np.tile([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], size // 8 + 1)[:size]):
        for r in ([0, 1], [size // 3, size // 3 + 1], [size - 2, size - 1], [size // 2]):
            r = np.array(r)
            np.testing.assert_array_equal(_recode._band_select(band, r), np.sort(band)[r])


# =============================================================================
# live: the awkward column through sdcMicro


@pytest.mark.live
@pytest.mark.parametrize(("name", "kw"), [c for c in CALLS if c[0] in ("cuts", "n10", "equalAmount5", "n40")],
                         ids=lambda c: c if isinstance(c, str) else "")
def test_live_awkward_column_matches_sdcmicro(bridge, name, kw):
    x = _awkward(40_000)
    df = pd.DataFrame({"v": np.where(np.isfinite(x), x, np.nan)})  # R's breaks from min/max need finite values
    kw = {k: v for k, v in kw.items() if k != "random_state"}
    mine = global_recode(df, "v", **kw)["v"]
    theirs = bridge.global_recode(df, "v", **kw)["v"]
    assert mine.cat.categories.tolist() == list(theirs.cat.categories)
    np.testing.assert_array_equal(mine.cat.codes.to_numpy(), theirs.cat.codes.to_numpy())
