"""global_recode(method="equalAmount")'s interval codes taken from the bands of its order statistics (issue 28).

pysdc/protect/_recode.py proves equalAmount's order statistics in narrow bands (one comparison of the column,
as float32, with each band bound) and takes the interval codes from the same bins: outside the bands a value's
code is the number of bands below it, inside band j it is j plus one comparison with break j
(``_codes_in_bands``), with no codes pass over the column. Compared here with the definition written out in the
test (the code of a value is the number of inner breaks below it; NaN -1; R's ``cut(include.lowest = TRUE)``
with the minimum and the maximum as outer breaks), with the codes pass the module keeps
(``_interval_codes``), and whole results with the general path (one ``np.partition``, binary search) and with
the bins compared in float64. Columns where float32 cannot tell the values apart, values beyond float32's range,
values exactly on the breaks (integer data: each break is an order statistic), ±Inf, NaN blocks, sorted and
periodic data the systematic sample cannot see.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc.protect import _recode, global_recode


def _codes_by_definition(x, b):
    """cut(x, b, include.lowest = TRUE): the number of inner breaks below x for b[0] <= x <= b[-1]; else -1 (NaN
    too). For equalAmount's breaks b[0] is the minimum and b[-1] the maximum (unless sdcMicro jittered them)."""
    b = np.sort(np.asarray(b, dtype=float))
    x = np.asarray(x, dtype=float)
    codes = (x[:, None] > b[None, 1:-1]).sum(axis=1)
    return np.where((x >= b[0]) & (x <= b[-1]), codes, -1)


def _columns():
    rng = np.random.default_rng(28)
    n = 60_000
    x = rng.normal(size=n)
    cols = {
        "normal": x,
        "lognormal_nan": np.where(rng.random(n) < 0.01, np.nan, rng.lognormal(9.8, 0.6, n).round(2)),
        "integers_on_breaks": rng.integers(0, 50, n).astype(float),  # every break is a value, many ties on it
        "few_values": rng.integers(0, 9, n).astype(float) * 1000.0,
        "sorted": np.sort(rng.random(n)),
        "reversed": np.sort(rng.random(n))[::-1].copy(),
        "periodic": np.tile(np.arange(48.0), n // 48),  # the systematic sample sees a few values only
        "huge": x * 1e300,  # beyond float32: the column's float32 copy is +-inf
        "dense": 1.0 + rng.random(n) * 1e-9,  # float32 cannot tell the values apart
        "dense_around_one": 1.0 + (rng.random(n) - 0.5) * 1e-12,
        "inf": np.where(rng.random(n) < 0.05, np.inf, np.where(rng.random(n) < 0.05, -np.inf, x)),
        "nan_block": np.r_[np.full(30_000, np.nan), x[:40_000]],  # the sample's first part is all NaN
        "denormal": x * 1e-310,
    }
    with_nan = {}
    for name, v in cols.items():
        w = v.copy()
        w[rng.random(w.size) < 0.05] = np.nan
        with_nan[name + "+nan"] = w
    cols.update(with_nan)
    return cols


COLUMNS = _columns()
CLASSES = [2, 3, 5, 7, 10, 24]


def _fast_codes(x, classes):
    """The breaks and the codes _computed_breaks takes from the bands (None: it fell back), warnings recorded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _recode._computed_breaks(x, classes, "equalAmount", 1)


@pytest.mark.parametrize("classes", CLASSES)
@pytest.mark.parametrize("col", list(COLUMNS))
def test_codes_from_the_bands_equal_the_definition(col, classes):
    x = COLUMNS[col]
    b, hi, codes = _fast_codes(x, classes)
    want = _codes_by_definition(x, b)
    if codes is not None:
        np.testing.assert_array_equal(codes, want)
        assert codes.dtype == np.int8
    # the codes pass the module keeps, given the same breaks, agrees with both
    np.testing.assert_array_equal(_recode._interval_codes(x, np.sort(b), include_lowest=True, hi=hi), want)


@pytest.mark.parametrize("col", ["normal", "lognormal_nan", "integers_on_breaks+nan", "inf+nan",
                                 "sorted", "periodic+nan"])
def test_the_bands_decide_the_codes_on_these_columns(col):
    """The fast path is taken (so the comparison above tests it), quintiles and deciles. (Not on "huge": its
    float32 copy is all +-inf, nor on "dense", which float32 cannot tell apart: no band is proved there, and one
    partition plus the codes pass run instead.)"""
    for classes in (5, 10):
        b, _, codes = _fast_codes(COLUMNS[col], classes)
        if np.unique(b).size == b.size:
            assert codes is not None, (col, classes)


def test_tied_quantiles_fall_back_to_the_codes_pass():
    x = np.r_[np.zeros(50_000), np.arange(1.0, 10_001.0)]  # the first quintiles are all 0: sdcMicro jitters
    with pytest.warns(Warning, match="tied quantiles"):
        b, hi, codes = _recode._computed_breaks(x, 5, "equalAmount", 1)
    assert codes is None


def test_small_columns_take_no_bands():
    x = np.random.default_rng(1).normal(size=1000)
    assert _recode._computed_breaks(x, 5, "equalAmount", None)[2] is None


def test_a_break_outside_its_order_statistics_is_not_trusted(monkeypatch):
    """If a computed break did not lie between its two order statistics (floating point), the bands could not
    decide the codes: _codes_in_bands must then give None rather than codes."""
    x = COLUMNS["normal"]
    probs = np.r_[0.0, np.arange(1, 6) / 5]
    b, where = _recode._banded_quantile7(x, probs)
    assert _recode._codes_in_bands(b, where, None) is not None
    bands, ilo, ihi, between = where
    between = between.copy()
    between[2] = False
    assert _recode._codes_in_bands(b, (bands, ilo, ihi, between), None) is None
    assert _recode._codes_in_bands(b[::-1], where, None) is None  # not increasing
    b2 = b.copy()
    b2[2] = b2[1]
    assert _recode._codes_in_bands(b2, where, None) is None  # tied


def _run(df, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = global_recode(df, "v", **kw)
    return out, [str(m.message) for m in w]


@pytest.mark.parametrize("labels", [None, False, ["a", "b", "a", "c", "d"]], ids=["intervals", "codes", "labels"])
@pytest.mark.parametrize("col", ["lognormal_nan", "integers_on_breaks+nan", "huge+nan", "dense", "inf",
                                 "nan_block+nan", "periodic"])
def test_results_equal_the_general_path_and_float64_bins(monkeypatch, col, labels):
    df = pd.DataFrame({"v": COLUMNS[col]})
    kw = dict(breaks=5, method="equalAmount", labels=labels, random_state=1)
    fast, fast_warn = _run(df, kw)
    with monkeypatch.context() as mp:
        mp.setattr(_recode, "_BINS_F32", False)
        f64, f64_warn = _run(df, kw)
    with monkeypatch.context() as mp:
        mp.setattr(_recode, "_COMPARE_UP_TO", 0)
        mp.setattr(_recode, "_BANDS_FROM", 10**12)
        mp.setattr(_recode, "_DTYPES", {})
        slow, slow_warn = _run(df, kw)
    assert fast_warn == f64_warn == slow_warn
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    pd.testing.assert_frame_equal(f64, slow, check_exact=True)
    if labels is not False:
        assert fast["v"].cat.codes.dtype == slow["v"].cat.codes.dtype


def test_nullable_and_integer_columns():
    rng = np.random.default_rng(5)
    v = rng.integers(0, 1000, 50_000)
    for s in (pd.Series(v), pd.Series(pd.array(np.where(rng.random(v.size) < 0.1, None, v), dtype="Int64"))):
        df = pd.DataFrame({"v": s})
        got = global_recode(df, "v", 5, method="equalAmount", labels=False)["v"]
        x = s.to_numpy(dtype=float, na_value=np.nan)
        ok = np.sort(x[~np.isnan(x)])
        b = np.quantile(ok, np.r_[0, np.arange(1, 6) / 5])  # type 7 is NumPy's default "linear"
        want = _codes_by_definition(x, b) + 1
        np.testing.assert_array_equal(got.to_numpy(dtype=float, na_value=0), np.where(want < 1, 0, want))


@pytest.mark.live
@pytest.mark.parametrize("classes", [5, 7])
@pytest.mark.parametrize("col", ["lognormal_nan", "integers_on_breaks+nan"])
def test_live_codes_from_the_bands_match_sdcmicro(bridge, col, classes):
    x = COLUMNS[col]
    assert _fast_codes(x, classes)[2] is not None  # the codes come from the bands here
    df = pd.DataFrame({"v": x})
    mine = global_recode(df, "v", classes, method="equalAmount")["v"]
    theirs = bridge.global_recode(df, "v", classes, method="equalAmount")["v"]
    assert mine.cat.categories.tolist() == list(theirs.cat.categories)
    np.testing.assert_array_equal(mine.cat.codes.to_numpy(), theirs.cat.codes.to_numpy())
