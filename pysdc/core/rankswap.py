"""Kernel of rank swapping (issue 28, family 4), after sdcMicro 5.8.0's ``rankSwap`` and Moore (1996).

sdcMicro's C++ draws from its own generator seeded by its ``seed`` argument, which pysdc does not reproduce:
the records swapped differ for the same seed (a listed divergence, ``r_reference/divergences.json``). What is
sdcMicro's, as observed (pinned by ``r_reference/outputs/rankSwap.json`` and tested on both outputs):

- per variable, about ``n * BottomPercent / 100`` smallest values are all replaced by their mean, as many of
  the largest likewise (sdcMicro: that number or one less, e.g. 4 of 100 at 5 percent but 4 of 200 at 2
  percent, 3 of 100 at 3 percent; pysdc: ``floor(n p / 100)``, ties in record order);
- the other values are permuted among themselves so that no value moves by more than ``L`` ranks; without
  ``P``, sdcMicro's default ``R0 = 0.95`` gives about ``L = n sqrt(1 - R0) / 4`` (observed maximum
  displacements 24, 54, 110 of 1000 records for R0 = 0.99, 0.95, 0.8, but 12 and 25 of 200 where L is 11.2
  and 22.4); with ``P`` (percent, as documented) ``L = P n / 100`` (sdcMicro 5.8.0 reads P as a fraction:
  P = 0.5 moved values up to 499 of 1000 ranks, P >= 1 anywhere). ``BottomPercent = 0`` aborts R in sdcMicro
  5.8.0; pysdc then replaces nothing.

pysdc's permutation: the middle ranks are cut into consecutive blocks of ``floor(L) + 1`` ranks (a random
offset) and each block is permuted at random, so every value moves by at most ``floor(L)`` ranks. Vectorised.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["group_size", "rank_range", "rank_swap_column"]


def group_size(n: int, percent: float) -> int:
    """The number of extreme values replaced by their mean: ``floor(n percent / 100)``."""
    return max(int(math.floor(n * percent / 100.0 + 1e-9)), 0)


def rank_range(n: int, p: float | None, r0: float | None) -> int:
    """The largest rank displacement: ``P n / 100`` with P, else ``n sqrt(1 - R0) / 4`` (R0 default 0.95)."""
    if p is not None:
        return int(math.floor(p * n / 100.0))
    r0 = 0.95 if r0 is None else r0
    return int(math.floor(n * math.sqrt(max(1.0 - r0, 0.0)) / 4.0))


def rank_swap_column(x: np.ndarray, top: float, bottom: float, width: int, rng: np.random.Generator) -> np.ndarray:
    """One variable (no missing values): extremes by their means, the rest permuted within ``width`` ranks."""
    n = x.size
    out = x.astype(np.float64).copy()
    if n == 0:
        return out
    order = np.argsort(x, kind="stable")
    gb, gt = group_size(n, bottom), group_size(n, top)
    if gb + gt > n:
        gb, gt = min(gb, n), max(n - min(gb, n), 0)
    if gb:
        out[order[:gb]] = np.mean(x[order[:gb]])
    if gt:
        out[order[n - gt:]] = np.mean(x[order[n - gt:]])
    mid = order[gb:n - gt]
    m = mid.size
    if m > 1 and width > 0:
        size = width + 1
        block = (np.arange(m) + int(rng.integers(0, size))) // size
        perm = np.lexsort((rng.random(m), block))  # a random order within each block
        out[mid] = x[mid[perm]]
    return out
