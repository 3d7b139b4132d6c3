"""MDAV on large data (pysdc.core.microagg.mdav_fast) against the plain rounds and against sdcMicro 5.8.0.

mdav_fast (taken from FAST_FROM records without missing values) runs sdcMicro's rounds on candidate lists:
a list of the records farthest from a recent centroid, a k-d tree's boxes and its nearest-neighbour
queries. Its groups must be those of the plain rounds (every remaining record scanned per round, the
reference kept in pysdc.core.microagg.mdav) on tie-heavy data where sdcMicro's tie rules decide, and those of
sdcMicro itself (marker ``live``: fresh data through the bridge, the fast path forced).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc.core import microagg
from pysdc.protect import microaggregation


def _tied(seed: int, n: int, p: int) -> np.ndarray:
    """Tie-heavy data: small integers, rounded normals, zero-inflated lognormals, runs of equal records."""
    rng = np.random.default_rng(seed)
    cols = []
    for j in range(p):
        kind = j % 4
        if kind == 0:
            cols.append(rng.integers(0, 4, n).astype(float))
        elif kind == 1:
            cols.append(np.round(rng.normal(size=n), 1))
        elif kind == 2:
            v = np.round(rng.lognormal(3, 1, n))
            v[rng.random(n) < 0.4] = 0.0
            cols.append(v)
        else:
            cols.append(np.round(rng.lognormal(size=n) * 1024) / 1024)
    x = np.column_stack(cols)
    for start in rng.choice(n - 20, 5, replace=False):  # runs of identical records
        x[start:start + int(rng.integers(2, 12))] = x[start]
    return x[rng.permutation(n)]


def _plain(x, k, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(microagg, "FAST_FROM", 10**12)
        return microagg.mdav(x, k)


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize(("p", "k"), [(1, 3), (2, 2), (3, 4), (4, 3), (5, 6)])
def test_fast_equals_plain_rounds_on_tied_data(monkeypatch, seed, p, k):
    x = _tied(seed, 1200, p)
    v0, g0, _ = _plain(x, k, monkeypatch)
    v1, g1 = microagg.mdav_fast(x, k)
    assert np.array_equal(g0, g1)
    assert np.array_equal(v0, v1)  # bit for bit: the same sums in the same order


@pytest.mark.parametrize("seed", [21, 22])
def test_fast_equals_plain_rounds_on_continuous_and_degenerate_data(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    n = 2500
    cont = np.column_stack([rng.normal(size=n), rng.lognormal(size=n) * 1e6, rng.standard_t(2, n)])
    const = np.column_stack([rng.normal(size=n), np.full(n, 7.0)])  # zero variance: weight 1
    dup = np.repeat(rng.integers(0, 3, (n // 50, 2)).astype(float), 50, axis=0)  # 50 copies of each record
    for x, k in ((cont, 3), (const, 5), (dup, 3), (dup, 7)):
        v0, g0, _ = _plain(x, k, monkeypatch)
        v1, g1 = microagg.mdav_fast(x, k)
        assert np.array_equal(g0, g1) and np.array_equal(v0, v1)


def test_fast_path_is_taken_from_fast_from(monkeypatch):
    calls = []
    real = microagg.mdav_fast
    monkeypatch.setattr(microagg, "mdav_fast", lambda x, k: calls.append(len(x)) or real(x, k))
    x = _tied(3, microagg.FAST_FROM, 3)
    microagg.mdav(x[:-1], 3)
    assert calls == []
    microagg.mdav(x, 3)
    assert calls == [microagg.FAST_FROM]
    xm = x.copy()
    xm[0, 0] = np.nan  # missing values: the plain rounds
    microagg.mdav(xm, 3)
    assert calls == [microagg.FAST_FROM]


# =============================================================================
# live: sdcMicro on fresh tie-heavy data, the fast path forced


@pytest.mark.live
@pytest.mark.parametrize("seed", [31, 32, 33])
def test_live_fast_mdav_against_sdcmicro(bridge, monkeypatch, seed):
    x = _tied(seed, 1500, 4)
    df = pd.DataFrame(x, columns=["a", "b", "c", "d"])
    monkeypatch.setattr(microagg, "FAST_FROM", 0)
    for k in (2, 3, 5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nat = microaggregation(df, aggr=k).mx
        ref = bridge.microaggregation(df, aggr=k).mx
        pd.testing.assert_frame_equal(nat.reset_index(drop=True), ref.reset_index(drop=True), check_exact=True,
                                      check_dtype=False)


# =============================================================================
# larger data, where the candidate lists are long and the tree is rebuilt several times (the plain rounds
# still affordable): ties and near ties of every kind, p = 1 .. 10


def _hard(seed: int, n: int, p: int) -> np.ndarray:
    """Integer-valued, zero-inflated, collinear and duplicated columns and records (ties of single-precision
    distances everywhere), and near ties (values one unit in the last place apart)."""
    rng = np.random.default_rng(seed)
    cols = []
    for j in range(p):
        kind = j % 5
        if kind == 0:
            cols.append(rng.integers(0, 6, n).astype(float))
        elif kind == 1:
            v = np.round(rng.lognormal(2, 1.2, n))
            v[rng.random(n) < 0.4] = 0.0
            cols.append(v)
        elif kind == 2:
            cols.append(2.0 * cols[0] + 1.0)  # collinear with the first column
        elif kind == 3:
            v = np.round(rng.normal(size=n) * 8) / 8
            near = rng.random(n) < 0.2
            v[near] = np.nextafter(v[near], np.inf)  # near ties
            cols.append(v)
        else:
            cols.append(rng.normal(size=n))
    x = np.column_stack(cols)
    dup = rng.choice(n, n // 10, replace=False)
    x[dup] = x[rng.choice(n, dup.size)]  # duplicated records
    return x


@pytest.mark.parametrize(("p", "k", "n"), [(1, 3, 10_000), (2, 3, 10_000), (3, 4, 10_000), (4, 3, 10_000),
                                           (6, 5, 10_000), (10, 3, 10_000), (4, 3, 30_000)])
def test_fast_equals_plain_rounds_on_hard_data(monkeypatch, p, k, n):
    x = _hard(p * 7 + k, n, p)
    v0, g0, _ = _plain(x, k, monkeypatch)
    v1, g1 = microagg.mdav_fast(x, k)
    assert np.array_equal(g0, g1)
    assert np.array_equal(v0, v1)


def test_fast_with_records_the_tree_cannot_split(monkeypatch):
    # a third of the records equal: a k-d tree leaf of thousands of records, cut into pieces in the tables
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(size=(6000, 2)), 1)
    x[rng.random(6000) < 0.35] = [0.5, -0.5]
    v0, g0, _ = _plain(x, 3, monkeypatch)
    v1, g1 = microagg.mdav_fast(x, 3)
    assert np.array_equal(g0, g1) and np.array_equal(v0, v1)
