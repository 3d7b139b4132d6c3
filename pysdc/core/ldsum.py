"""R's long double accumulations (``LDOUBLE s = 0; for (i ...) s += ...``), fast and in order.

R sums in extended precision one value after the other: ``sum``, ``mean`` (and its correction pass),
``var``/``sd`` (the squared deviations), ``cov``. NumPy's ``sum`` of long doubles adds pairwise, and
``cumsum`` writes an n-long long double array; NumPy's ``dot`` of two long double vectors is a plain C
loop ``tmp = 0; tmp += a[i] * b[i]`` -- R's loop when ``b`` is 1, or ``a = b`` for squares -- without an
output array. The values are taken in blocks, each block starting with the running sum times 1 (exact),
so the additions stay one sequence from 0. That ``dot`` adds in order is checked once, on the first use
(:func:`dot_is_sequential`); without it the sums fall back to ``cumsum``, the same numbers more slowly.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["ld_sum", "ld_sumsq", "ld_dot", "dot_is_sequential"]

_LD = np.longdouble
#: values per block (a block and its long double copy stay in the cache)
_BLOCK = 8192
_ONES = np.ones(_BLOCK + 1, dtype=_LD)


@functools.cache
def dot_is_sequential() -> bool:
    """Whether ``np.dot`` of long double vectors adds the products one after the other from 0.

    ``2^64 + 1`` rounds back to ``2^64`` in long double (and in double), so the sum in order of
    ``[2^64, 1 (16 times), -2^64]`` is 0 while any regrouping of the ones (pairwise, unrolled,
    SIMD) gives a positive number; the products are checked the same way.
    """
    a = np.array([2.0**64] + [1.0] * 16 + [-(2.0**64)], dtype=_LD)
    ones = np.ones(a.size, dtype=_LD)
    sq = np.array([2.0**32] + [1.0] * 16 + [2.0**32], dtype=_LD)
    sign = np.array([1.0] + [1.0] * 16 + [-1.0], dtype=_LD)
    return bool(np.dot(a, ones) == 0 and np.dot(ones, a) == 0 and np.dot(sq * sign, sq) == 0
                and np.dot(a[:1], ones[:1]) == a[0])


def _cumsum_last(a: np.ndarray) -> np.longdouble:
    return np.cumsum(a)[-1] + _LD(0) if a.size else _LD(0)  # + 0: R's sum starts at +0


def ld_sum(x: np.ndarray, centre=None) -> np.longdouble:
    """``s = 0; s += x[i]`` in long double, in order (1-d ``x``); with ``centre`` (a long double) the
    terms are ``x[i] - centre``, the difference taken in long double (R's ``mean`` correction pass)."""
    x = np.asarray(x)
    n = x.size
    c = None if centre is None else _LD(centre)
    if not dot_is_sequential():
        a = x.astype(_LD) if c is None else x.astype(_LD) - c
        return _cumsum_last(a)
    buf = np.empty(min(n, _BLOCK) + 1, dtype=_LD)
    s = _LD(0)
    for i in range(0, n, _BLOCK):
        blk = x[i:i + _BLOCK]
        k = blk.size + 1
        buf[0] = s
        if c is None:
            buf[1:k] = blk
        else:
            np.subtract(blk, c, out=buf[1:k], dtype=_LD)
        s = np.dot(buf[:k], _ONES[:k])
    return s


def ld_sumsq(x: np.ndarray, centre) -> np.longdouble:
    """``s = 0; d = x[i] - centre; s += d * d`` in long double, in order (R's ``var``: the deviations
    from the mean taken and squared in long double)."""
    x = np.asarray(x)
    n = x.size
    c = _LD(centre)
    if not dot_is_sequential():
        d = x.astype(_LD) - c
        return _cumsum_last(d * d)
    m = min(n, _BLOCK) + 1
    a = np.empty(m, dtype=_LD)
    b = np.empty(m, dtype=_LD)
    b[0] = 1
    s = _LD(0)
    for i in range(0, n, _BLOCK):
        blk = x[i:i + _BLOCK]
        k = blk.size + 1
        np.subtract(blk, c, out=b[1:k], dtype=_LD)
        a[1:k] = b[1:k]
        a[0] = s
        s = np.dot(a[:k], b[:k])
    return s


def ld_dot(x: np.ndarray, y: np.ndarray) -> np.longdouble:
    """``s = 0; s += x[i] * y[i]`` in long double, in order, for two long double vectors (a cross
    product of centred columns, R's ``cov``)."""
    x = np.asarray(x, dtype=_LD)
    y = np.asarray(y, dtype=_LD)
    if not dot_is_sequential():
        return _cumsum_last(x * y)
    return np.dot(x, y)
