"""rank_swap equals sdcMicro 5.8.0's rankSwap value for value (issue 28): its generator, its orderings, its
single-precision arithmetic.

The live tests draw fresh inputs (ties, missing values, several variables, R0 / P / default, other percents,
seeds small and large) and compare every value with sdcMicro's own call through the bridge. The others check
pysdc's generator against L'Ecuyer's recurrence written out here, and the Fenwick partner choice against a
direct scan of the candidates (sdcMicro's algorithm as described in pysdc.core.rankswap).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc.core import rankswap as core
from pysdc.core.tausworthe import Taus88, seed_state
from pysdc.protect._rankswap import rank_swap

# =============================================================================
# the generator and the partner choice, without R


def _taus88_words(seed: int, n: int) -> list:
    """L'Ecuyer (1996) taus88 step by step, from sdcMicro's starting states (seed, 613566701, 858993401)."""
    z = list(seed_state(seed))
    params = ((0xFFFFFFFE, 13, 19, 12), (0xFFFFFFF8, 2, 25, 4), (0xFFFFFFF0, 3, 11, 17))
    out = []
    for _ in range(n):
        for i, (mask, q, shift, s) in enumerate(params):
            b = (((z[i] << q) & 0xFFFFFFFF) ^ z[i]) >> shift
            z[i] = (((z[i] & mask) << s) & 0xFFFFFFFF) ^ b
        out.append(z[0] ^ z[1] ^ z[2])
    return out


@pytest.mark.parametrize("seed", [0, 1, 7, 524289, 123456789, 2 ** 31 - 1])
def test_bulk_stream_is_the_taus88_recurrence(seed):
    g = Taus88(seed)
    words = _taus88_words(seed, 3000)
    assert g.words(3000).tolist() == words
    np.testing.assert_array_equal(g.floats(3), np.float32(np.array(words[:3], dtype=np.float64) / 2.0 ** 32))
    g.advance(1234)
    assert g.words(10).tolist() == _taus88_words(seed, 1244)[1234:]


def test_small_seeds_are_raised_above_the_register_floor():
    assert seed_state(0)[0] == 2 ** 20 - 1 and seed_state(1)[0] == 2 ** 20 - 1
    assert seed_state(2 ** 19)[0] == 2 ** 20 + 1 and seed_state(2 ** 19 + 1)[0] == 2 ** 19 + 1


def _scan_partners(limits, draws):
    """sdcMicro's partner choice as described: for each position j not yet swapped, the positions k with
    j < k < limit[j] not yet swapped; draw u picks candidate trunc(u c) (single precision)."""
    m = len(limits)
    flag = [False] * m
    partner = list(range(m))
    used = 0
    for j in range(m):
        if flag[j]:
            continue
        cand = [k for k in range(j + 1, min(limits[j], m)) if not flag[k]]
        if cand:
            k = int(np.float32(draws[used]) * np.float32(len(cand)))
            used += 1
            p = cand[k]
            partner[j], partner[p] = p, j
            flag[j] = flag[p] = True
    return partner, used


@pytest.mark.parametrize("seed", range(8))
def test_fenwick_partners_equal_a_direct_scan(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 700))
    q = np.float32(rng.choice([0.003, 0.05, 0.2, 0.9, 1.0]))
    limits = core._limits(m, q)
    draws = Taus88(seed).floats(m // 2 + 1)
    partner, used, ones = core._partners(limits, draws)
    exp, exp_used = _scan_partners(limits.tolist(), draws.tolist())
    assert partner.tolist() == exp and used == exp_used and ones == 0


def test_a_draw_of_one_takes_the_last_candidate():
    # sdcMicro would read one past its candidate list (undefined); pysdc takes the last candidate and counts it
    partner, used, ones = core._partners(np.array([4, 4, 4, 4]), np.array([1.0, 0.0], dtype=np.float32))
    assert partner.tolist() == [3, 2, 1, 0] and used == 2 and ones == 1


def test_window_limits_in_single_precision():
    # min(m, trunc(j + m Q)) with m Q and the sum rounded to single precision; NaN gives no window
    q = np.float32(0.1)
    m = 30000
    lim = core._limits(m, q)
    w = np.float32(np.float32(m) * q)
    assert lim[5] == int(np.float32(np.float32(5) + w)) and lim[-1] == m
    assert (core._limits(10, np.float32(np.nan)) < 0).all()


def test_refusals_and_unseeded_runs():
    df = pd.DataFrame({"x": np.r_[np.arange(50.0), np.inf]})
    with pytest.raises(InvalidParameterError, match="infinite"):
        rank_swap(df, ["x"], seed=1)
    df = pd.DataFrame({"x": np.arange(100.0)})
    with pytest.raises(InvalidParameterError, match="2\\*\\*31"):
        rank_swap(df, ["x"], seed=2 ** 31)
    a = rank_swap(df, ["x"], seed=np.random.default_rng(5))
    pd.testing.assert_frame_equal(a, rank_swap(df, ["x"], seed=np.random.default_rng(5)))
    runs = [rank_swap(df, ["x"])["x"].to_numpy() for _ in range(3)]
    assert not (np.array_equal(runs[0], runs[1]) and np.array_equal(runs[1], runs[2]))


def test_one_empty_extreme_group_warns():
    df = pd.DataFrame({"x": np.linspace(1, 2, 200)})
    with pytest.warns(UserWarning, match="no defined result"):
        rank_swap(df, ["x"], bottom_percent=0, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rank_swap(df, ["x"], bottom_percent=0, top_percent=0, seed=1)  # both empty: defined (compared live)


# =============================================================================
# live: sdcMicro's own rankSwap on fresh inputs


def _fresh(rng, n, nvar, na=True):
    cols = {}
    for k in range(nvar):
        kind = k % 4
        if kind == 0:
            x = rng.normal(100, 20, n).round(1)
        elif kind == 1:
            x = rng.integers(0, 9, n).astype(float)  # many ties
        elif kind == 2:
            x = rng.lognormal(5, 2, n)
        else:
            x = rng.uniform(-5, 5, n).round(2)
        if na and k % 2 == 0:
            x[rng.random(n) < 0.1] = np.nan
        cols[f"v{k}"] = x
    return pd.DataFrame(cols)


def _compare(bridge, df, seed, top=5, bottom=5, P=None, R0=None):
    kw = {} if P is None and R0 is None else ({"P": P} if P is not None else {"R0": R0})
    exp = bridge.call("rankSwap", df, variables=list(df.columns), TopPercent=top, BottomPercent=bottom, seed=seed,
                      **kw)
    act = rank_swap(df, list(df.columns), top_percent=top, bottom_percent=bottom, seed=seed,
                    p=None if P is None else 100 * P, r0=R0)
    for c in df.columns:
        e = exp[c].to_numpy(dtype=np.float64, na_value=np.nan)
        a = act[c].to_numpy(dtype=np.float64)
        diff = np.flatnonzero(~((e == a) | (np.isnan(e) & np.isnan(a))))
        assert diff.size == 0, f"{c}: {diff.size} values differ from sdcMicro's, first at row {diff[:5]}"
    return act


@pytest.mark.live
@pytest.mark.parametrize("i", range(12))
def test_live_fresh_inputs(bridge, i):
    rng = np.random.default_rng(1000 + i)
    n = int(rng.integers(60, 2500))
    df = _fresh(rng, n, int(rng.integers(1, 5)))
    mode = i % 3
    _compare(bridge, df, seed=int(rng.integers(0, 2 ** 31 - 1)), top=[5, 10, 2.5][i % 3], bottom=[5, 3, 7][i % 3],
             P=[None, None, 0.07][mode], R0=[None, [0.8, 0.99, 0.5][i % 3], None][mode])


@pytest.mark.live
@pytest.mark.parametrize("seed", [0, 1, 2, 524288, 524289, 2 ** 31 - 1])
def test_live_seeds_small_and_large(bridge, seed):
    _compare(bridge, _fresh(np.random.default_rng(seed % 97), 400, 2), seed=seed, P=0.2)


@pytest.mark.live
def test_live_larger_table(bridge):
    rng = np.random.default_rng(77)
    df = _fresh(rng, 30000, 3)
    _compare(bridge, df, seed=31)
    _compare(bridge, df[["v1"]], seed=31, P=0.05)


@pytest.mark.live
def test_live_generator_runs_on_across_variables(bridge):
    df = _fresh(np.random.default_rng(3), 500, 2, na=False)
    both = _compare(bridge, df, seed=8)
    alone = _compare(bridge, df[["v1"]], seed=8)
    assert not np.array_equal(both["v1"].to_numpy(), alone["v1"].to_numpy())


@pytest.mark.live
def test_live_edges(bridge):
    rng = np.random.default_rng(11)
    # both extreme groups empty (sdcMicro: defined); overlapping groups; wide P
    _compare(bridge, _fresh(rng, 300, 2), seed=3, top=0, bottom=0)
    _compare(bridge, _fresh(rng, 100, 2, na=False), seed=4, top=60, bottom=70)
    _compare(bridge, _fresh(rng, 300, 2), seed=5, P=1.0)
    # a large mean (the variance cancels in double, then single precision), a constant variable (no window)
    _compare(bridge, pd.DataFrame({"x": 1e9 + rng.normal(size=500).round(3), "y": np.full(500, 7.0)}), seed=12)
    # integer column
    _compare(bridge, pd.DataFrame({"x": rng.integers(0, 100, 300)}), seed=6)
    # beyond 2**53 with a missing value: sdcMicro's missing code min - 1 equals the minimum, which it then treats
    # as missing and returns as NA
    x = np.full(200, 2.0 ** 60)
    x[:100] += rng.integers(0, 10, 100) * 2.0 ** 10
    x[5] = np.nan
    out = _compare(bridge, pd.DataFrame({"x": x}), seed=9)
    assert out["x"].isna().sum() > 1


@pytest.mark.live
@pytest.mark.parametrize(("n", "P"), [(54, 0.58), (98, 0.7), (110, 0.29)])
def test_live_window_end_in_single_precision(bridge, n, P):
    """Where the window's end j + m P truncates differently in double precision (e.g. 100 x 0.29 is
    28.999999999999996 in double, 29 in single), sdcMicro follows single precision."""
    m = n - 2 * core.extreme_count(n, 5)
    double = np.minimum(np.trunc(np.arange(m) + m * P).astype(np.int64), m)
    assert (core._limits(m, np.float32(P)) != double).any()
    df = pd.DataFrame({"x": np.random.default_rng(n).normal(size=n)})
    _compare(bridge, df, seed=1, P=P)
