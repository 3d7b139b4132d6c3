"""Kernel of rank swapping (issue 28, family 4): sdcMicro 5.8.0's ``rankSwap`` number for number.

What sdcMicro's C++ does, as observed (``r_reference/outputs/rankSwap.json`` and the live tests of
``tests/protect/test_rankswap_exact.py`` compare every value); written here in pysdc's own terms:

1. One generator for the whole call (:class:`pysdc.core.tausworthe.Taus88`, seeded by ``seed``); its state
   runs on from one variable to the next.
2. Per variable, the non-missing records are ordered from the largest value to the smallest, equal values in
   decreasing record order. The first ``top`` of them and the last ``bottom`` are replaced by the mean of
   their group (sums from the largest value down, in double precision), where ``top`` (``bottom``) is
   ``trunc(n * (percent * 0.01))`` in single precision (so 4 of 100 records at 5 percent). The top group is
   coded first; when the groups overlap the bottom mean is taken over values already coded.
3. The other records (the middle) are ordered from the largest value to the smallest, equal values in
   increasing record order. With ``R0`` the window is ``Q = sqrt(2 var (1 - R0)) / |b - t|`` where ``var`` is
   the middle values' variance (mean of squares minus squared mean, double, then single precision), the
   square root is taken in single precision, ``t`` is the smallest value of the top group (the largest value
   when it is empty) and ``b`` the largest of the bottom group (the smallest value when it is empty); ``Q`` is
   0 when ``b = t``. With ``P`` (sdcMicro's fraction) ``Q = P`` in single precision.
4. For each middle position ``j`` (0-based, in that order) not yet swapped, the candidates are the positions
   ``k`` with ``j < k < min(m, trunc(j + m Q))`` (single precision) not yet swapped; if there are ``c > 0``,
   one draw ``u`` picks the candidate number ``trunc(u c)`` (single precision) and the two values trade places.

Where sdcMicro has no defined result, pysdc's differs and says so (:func:`rank_swap_matrix`'s ``undefined``):
an extreme group that is empty while the other is not (sdcMicro's hash sort then indexes outside its table; R
aborted in the cases observed), and a draw of exactly 1.0 (probability 2**-25 per swap; sdcMicro then reads
the candidate list one past its end, pysdc takes the last candidate).
"""

from __future__ import annotations

import numpy as np

from .tausworthe import Taus88

__all__ = ["extreme_count", "rank_swap_matrix", "swap_window"]

_F32 = np.float32
_INT_MIN = -(2 ** 31)  # what x86's float-to-int conversion gives for NaN and out-of-range values


def extreme_count(n: int, percent: float) -> int:
    """sdcMicro's size of an extreme group: ``trunc(n * clamp(percent * 0.01, 0, 1))`` in single precision."""
    ratio = min(max(_F32(percent) * _F32(0.01), _F32(0.0)), _F32(1.0))
    return int(_F32(n) * ratio)


def swap_window(middle: np.ndarray, top_value: float, bottom_value: float, p: float | None,
                r0: float | None) -> np.float32:
    """``Q`` of step 3 (single precision; NaN when rounding makes the variance negative)."""
    if p is not None:
        return _F32(p)
    m = middle.size
    if m:
        s, ss = np.cumsum(middle)[-1], np.cumsum(middle * middle)[-1]  # sequential sums, as sdcMicro
        mean = s / m
        var = _F32(ss / m - mean * mean)
    else:
        var = _F32(0.0)
    delta = abs(bottom_value - top_value)
    if not delta:
        return _F32(0.0)
    with np.errstate(invalid="ignore"):
        root = np.sqrt(_F32(2.0) * var * (_F32(1.0) - _F32(r0)))
    return _F32(np.float64(root) / delta)


def _limits(m: int, q: np.float32) -> np.ndarray:
    """``min(m, trunc(j + m Q))`` for every ``j`` (single precision; x86's INT_MIN for NaN or overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.arange(m, dtype=np.float64).astype(_F32) + _F32(_F32(m) * q)
        r64 = r.astype(np.float64)
        bad = ~np.isfinite(r64) | (r64 >= 2.0 ** 31) | (r64 <= -(2.0 ** 31) - 1)
        out = np.where(bad, _INT_MIN, np.trunc(np.where(bad, 0.0, r64))).astype(np.int64)
    return np.minimum(out, m)


def _partners(limits: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Step 4: the partner of every middle position (itself when unswapped), the draws used, and how many were
    exactly 1.0.

    The choice is sequential (each pick depends on the earlier ones), so this loops over positions: O(log m)
    pure-Python work per swap. A Fenwick tree (padded to a power of two) holds 1 for every position not taken
    as a partner; processed positions are never cleared, ``passed`` counts them. The taken positions ahead of
    ``j`` all lie inside ``j``'s window (the window's end never decreases), so the number of candidates is the
    window's length minus their count (``ahead``), and candidate number ``k`` is the ``passed + k + 1``-th
    position still set: one descent of the tree, which also clears it (the nodes covering the position found
    are exactly those the descent does not step over).
    """
    m = limits.size
    partner = np.arange(m, dtype=np.int64)
    if m < 2:
        return partner, 0, 0
    size = 1 << m.bit_length()  # > m
    node = np.arange(size, dtype=np.int64)
    low = node & -node
    tree = np.clip(np.minimum(node, m) - (node - low), 0, None).tolist()  # ones on positions 1..m
    half = size >> 1
    taken = bytearray(m)
    lim = limits.tolist()
    u_all = draws.tolist()
    pairs_j, pairs_p = [], []
    ahead = passed = used = ones = 0
    for j in range(m):
        if taken[j]:
            ahead -= 1
            continue
        passed += 1
        c = lim[j] - j - 1 - ahead
        if c <= 0:
            continue
        u = u_all[used]
        used += 1
        # trunc(u c) in single precision: u c is exact in double; only a product within a single-precision
        # rounding of the next integer needs the rounded product
        v = u * c
        k = int(v)
        if (k + 1 - v) * 16777216.0 <= k + 1:
            k = int(_F32(v))
        if k >= c:  # u == 1.0: sdcMicro reads one past its candidate list
            ones += 1
            k = c - 1
        target = passed + k + 1
        pos, step = 0, half
        while step:
            nxt = pos + step
            t = tree[nxt]
            if t < target:
                pos = nxt
                target -= t
            else:
                tree[nxt] = t - 1
            step >>= 1
        taken[pos] = 1
        ahead += 1
        pairs_j.append(j)
        pairs_p.append(pos)
    if pairs_j:
        a, b = np.array(pairs_j), np.array(pairs_p)
        partner[a], partner[b] = b, a
    return partner, used, ones


def rank_swap_matrix(x: np.ndarray, top: float, bottom: float, p: float | None, r0: float | None,
                     seed: int) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """sdcMicro's ``rankSwap`` on the columns of ``x`` (float64, NaN missing): the swapped copy and the undefined
    cases met, as (column, what) (empty when the result is sdcMicro's).

    ``p`` is sdcMicro's ``P`` (a fraction of the records); without it ``r0`` (sdcMicro's default 0.95).
    Missing are NaN and, as in sdcMicro's R code, any value equal to the smallest value of ``x`` minus one
    (only possible beyond 2**53); when ``x`` has NaN an output equal to that value becomes NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    n, nvar = x.shape
    undefined: list[tuple[int, str]] = []
    nan = np.isnan(x)
    if n == 0 or nan.all():
        return out, undefined
    sentinel = np.nanmin(x) - 1.0
    missing = nan | (x == sentinel)
    if p is None and r0 is None:
        r0 = 0.95
    gen = Taus88(seed)
    rec_all = np.arange(n)
    for col in range(nvar):
        ok = ~missing[:, col]
        rec = rec_all[ok]
        vals = x[ok, col]
        nn = vals.size
        if nn == 0:
            continue
        first = np.lexsort((-rec, -vals))  # largest first, equal values in decreasing record order
        v, r = vals[first].copy(), rec[first]
        ntop, nbot = extreme_count(nn, top), extreme_count(nn, bottom)
        if (ntop == 0) != (nbot == 0):
            undefined.append((col, f"one extreme group empty ({ntop} top, {nbot} bottom values)"))
        start_bottom = nn - nbot
        top_value = v[ntop - 1] if ntop else v[0]
        if ntop:
            v[:ntop] = np.cumsum(v[:ntop])[-1] / ntop
        bottom_value = v[start_bottom] if nbot else v[start_bottom - 1]
        if nbot:
            total = np.cumsum(v[start_bottom:])[-1]
            v[start_bottom:] = total / nbot if total else 0.0
        mid = np.arange(ntop, max(start_bottom, ntop))
        # the middle: largest first, equal values in increasing record order (the reverse of the first order)
        mid = mid[np.lexsort((-mid, -v[mid]))]
        middle = v[mid]
        q = swap_window(middle, float(top_value), float(bottom_value), p, r0)
        limits = _limits(mid.size, q)
        draws = gen.floats(mid.size // 2 + 1)
        partner, used, ones = _partners(limits, draws)
        gen.advance(used)
        if ones:
            undefined.append((col, f"{ones} draw(s) of exactly 1.0"))
        v[mid] = middle[partner]
        res = out[:, col]
        res[r] = v
    if nan.any():
        out[out == sentinel] = np.nan
    return out, undefined
