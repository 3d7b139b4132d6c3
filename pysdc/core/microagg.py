"""Microaggregation kernels (issue 28, family 3), number for number with sdcMicro 5.8.0.

:func:`mdav` groups the records as sdcMicro's MDAV does and returns each record's group mean;
:func:`rank_groups` and :func:`group_stat` are the univariate grouping of ``mafast`` and the
R summaries (``mean``/``median`` with R's long-double arithmetic) it applies per group;
:func:`fixed_groups` and :func:`col_means` are the consecutive groups and ``colMeans`` of the
sorting methods (``simple``, ``single``, ``onedims``).

What decides parity in MDAV (observed with sdcMicro 5.8.0 and pinned by the stored corpus):

* distances are weighted squared Euclidean distances, weights ``1 / variance`` (the population
  variance ``E[x^2] - E[x]^2`` of the non-missing values, each sum taken record by record; a zero
  variance keeps weight 1); every term is computed in double, rounded to *single* precision and
  added up in single precision, so distances tie far more often than doubles would;
* a missing value is the number -999 (a real -999 counts as missing too); a term where exactly one
  side is missing counts ``(max - min)^2 * weight`` of the variable;
* each round takes the record farthest from the centroid of the remaining records (the first one
  in record order among equal distances), groups the ``k`` records nearest to it, then the ``k``
  nearest to the record that was farthest from it; among equal distances the *later* record is
  nearer; two groups per round while at least ``3k`` remain, one while at least ``2k`` remain, the
  rest is the last group;
* a group's value is the mean of its non-missing values, summed in the order of nearness; the last
  group's sum is divided by the number of its records, missing ones included (sdcMicro's
  arithmetic; pysdc warns about it).

The loop runs over groups (``n / k`` rounds), each vectorised over the remaining records; on large data
without missing values :func:`~pysdc.core.microagg_fast.mdav_fast` (module ``microagg_fast``) runs the
same rounds on short candidate lists (a k-d tree for the nearest records, a list of the records farthest
from a recent centroid and balls around the tree's leaves for the farthest), with the same result.
"""

from __future__ import annotations

import numpy as np

from pysdc.core.microagg_fast import mdav_fast

__all__ = ["MDAV_MISSING", "FAST_FROM", "mdav", "mdav_fast", "rank_groups", "group_stat", "fixed_groups", "col_means", "factor_of_totals"]

#: the number sdcMicro's MDAV stands in for a missing value (a real value -999 is missing too)
MDAV_MISSING = -999.0
#: from this many records without missing values MDAV runs :func:`mdav_fast` (the same groups); below it
#: the plain rounds, each over all remaining records, cost less than its bookkeeping
FAST_FROM = 10_000


def _seq_sum(v: np.ndarray) -> float:
    """The sum of ``v`` added one value after the other, as a C loop (NumPy's ``sum`` is pairwise)."""
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _weights(xm: np.ndarray, miss: np.ndarray):
    p = xm.shape[1]
    w = np.ones(p)
    mdist = np.zeros(p, dtype=np.float32)
    for j in range(p):
        v = xm[~miss[:, j], j]
        cnt = v.size
        if cnt:
            avr = _seq_sum(v) / cnt
            sq = _seq_sum(v * v) / cnt
            var = sq - avr * avr
            if var != 0:  # C's `if (Variance)`: NaN counts as non-zero
                w[j] = 1.0 / var
            lo, hi = float(v.min()), float(v.max())
        else:
            lo = hi = 0.0
        mdist[j] = np.float32((hi - lo) * (hi - lo) * w[j])
    return w, mdist


class _Remaining:
    """The records not yet grouped, in record order, one contiguous row per variable.

    Grouped records are only marked (``alive``) and zeroed in ``zcols`` -- adding 0.0 leaves a running
    sum unchanged, so the centre is still the record-order sum of the remaining values -- and the
    arrays are compacted when half of them are grouped.
    """

    def __init__(self, xm: np.ndarray, miss: np.ndarray | None):
        self.cols = np.ascontiguousarray(xm.T)
        self.miss = None if miss is None else np.ascontiguousarray(miss.T)
        self.zcols = self.cols.copy() if miss is None else np.where(self.miss, 0.0, self.cols)
        self.ids = np.arange(xm.shape[0])
        self.alive = np.ones(xm.shape[0], dtype=bool)
        self.size = xm.shape[0]
        self.counts = (np.full(xm.shape[1], self.size) if miss is None
                       else (~self.miss).sum(axis=1))

    def drop(self, pos: np.ndarray) -> None:
        self.alive[pos] = False
        self.zcols[:, pos] = 0.0
        self.size -= pos.size
        if self.miss is None:
            self.counts = self.counts - pos.size
        else:
            self.counts = self.counts - (~self.miss[:, pos]).sum(axis=1)
        if self.size * 2 < self.ids.size:
            keep = self.alive
            self.cols = self.cols[:, keep]
            self.zcols = self.zcols[:, keep]
            self.ids = self.ids[keep]
            if self.miss is not None:
                self.miss = self.miss[:, keep]
            self.alive = np.ones(self.ids.size, dtype=bool)

    def positions(self) -> np.ndarray:
        return np.flatnonzero(self.alive)


def _centre(rem: _Remaining) -> np.ndarray:
    """Mean of the non-missing values per variable, summed in record order; -999 where all are missing."""
    s = np.cumsum(rem.zcols, axis=1)[:, -1]
    cnt = rem.counts
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, s / np.maximum(cnt, 1), MDAV_MISSING)


def _distances(rem: _Remaining, q: np.ndarray, w: np.ndarray, mdist: np.ndarray) -> np.ndarray:
    """sdcMicro's single-precision distances of the remaining records to the point ``q``
    (grouped records: -1, below every distance)."""
    m = rem.ids.size
    d = np.zeros(m, dtype=np.float32)
    t = np.empty(m)
    tf = np.empty(m, dtype=np.float32)
    for j in range(q.size):
        np.subtract(rem.cols[j], q[j], out=t)
        np.multiply(t, t, out=t)
        np.multiply(t, w[j], out=t)
        tf[...] = t  # rounded to single precision
        if rem.miss is not None:
            qmiss = q[j] == MDAV_MISSING
            np.putmask(tf, rem.miss[j] != qmiss, mdist[j])
        d += tf
    if rem.size < m:
        np.putmask(d, ~rem.alive, np.float32(-1.0))
    return d


def _nearest(d: np.ndarray, k: int, rem: _Remaining) -> np.ndarray:
    """Positions of the ``k`` smallest distances, nearest first; ties: the later record first."""
    m = d.size
    if k >= rem.size:
        sel = rem.positions()
    elif rem.size < m:
        d = d.copy()
        np.putmask(d, ~rem.alive, np.float32(np.inf))
        return _nearest(d, k, _ALL)
    else:
        thr = np.partition(d, k - 1)[k - 1]
        less = np.flatnonzero(d < thr)
        eq = np.flatnonzero(d == thr)
        sel = np.concatenate((less, eq[eq.size - (k - less.size):]))
    return sel[np.lexsort((-sel, d[sel]))]


class _AllAlive:
    size = np.iinfo(np.int64).max  # no record is grouped


_ALL = _AllAlive()


def _group_value(rem: _Remaining, pos: np.ndarray, divide_by_all: bool) -> np.ndarray:
    """The group's mean per variable: non-missing values summed in the order of ``pos``."""
    vals = rem.cols[:, pos]
    if rem.miss is None:
        s = vals[:, 0].copy()
        for t in range(1, pos.size):  # a loop over the group's size, not over records
            s += vals[:, t]
        return s / pos.size
    miss = rem.miss[:, pos]
    v0 = np.where(miss, 0.0, vals)
    s = v0[:, 0].copy()
    for t in range(1, pos.size):
        s += v0[:, t]
    cnt = (~miss).sum(axis=1)
    den = np.full(cnt.shape, float(pos.size)) if divide_by_all else cnt.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, s / den, MDAV_MISSING)


def mdav(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """sdcMicro's MDAV on the matrix ``x`` (records in rows, NaN missing) with group size ``k``.

    Returns ``(values, groups, last_group_diluted)``: every record's group mean (NaN where ``x`` is
    NaN), the 0-based group of every record (numbered in the order MDAV forms them) and whether a
    missing value in the last group lowered its mean (sdcMicro divides that sum by all its records).
    """
    x = np.asarray(x, dtype=np.float64)
    n, p = x.shape
    na = np.isnan(x)
    xm = np.where(na, MDAV_MISSING, x)
    miss = xm == MDAV_MISSING
    has_miss = bool(miss.any())
    w, mdist = _weights(xm, miss)
    if not has_miss and n >= FAST_FROM and p and bool((w > 0).all()):
        v, g = mdav_fast(xm, k)
        return v, g, False
    rem = _Remaining(xm, miss if has_miss else None)
    out = np.empty((n, p))
    groups = np.empty(n, dtype=np.int64)
    g = 0
    left = n
    while left >= 2 * k:
        ngroups = 1 if left < 3 * k else 2
        q = rem.cols[:, int(np.argmax(_distances(rem, _centre(rem), w, mdist)))].copy()
        for _ in range(ngroups):
            d = _distances(rem, q, w, mdist)
            far = int(np.argmax(d))
            pos = _nearest(d, k, rem)
            rows = rem.ids[pos]
            out[rows] = _group_value(rem, pos, False)
            groups[rows] = g
            g += 1
            q = rem.cols[:, far].copy()  # taken before the group leaves: it may be in the group
            rem.drop(pos)
        left -= k * ngroups
    diluted = False
    if left:
        pos = rem.positions()
        val = _group_value(rem, pos, True)
        if rem.miss is not None:
            nmiss = rem.miss[:, pos].sum(axis=1)
            diluted = bool(((nmiss > 0) & (nmiss < pos.size)).any())
        out[rem.ids[pos]] = val
        groups[rem.ids[pos]] = g
    out[na] = np.nan
    return out, groups, diluted


# =============================================================================
# univariate groups (mafast) and consecutive groups (simple, single, onedims)


def rank_groups(y: np.ndarray, strata: np.ndarray, aggr: int) -> np.ndarray:
    """``mafast``'s groups: within each stratum the records in the order of ``y`` (stable, missing
    last), ``aggr`` at a time, the remainder joining the last group. Returns 0-based group ids."""
    n = y.size
    order = np.lexsort((y, strata))  # stable; NaN sorts last
    s_sorted = strata[order]
    start = np.r_[0, np.flatnonzero(s_sorted[1:] != s_sorted[:-1]) + 1]
    sizes = np.diff(np.r_[start, n])
    stratum_of = np.repeat(np.arange(start.size), sizes)
    rank = np.arange(n) - start[stratum_of]
    ngroup = np.maximum(sizes // aggr, 1)
    local = np.minimum(rank // aggr, ngroup[stratum_of] - 1)
    first = np.r_[0, np.cumsum(ngroup)[:-1]]
    groups = np.empty(n, dtype=np.int64)
    groups[order] = first[stratum_of] + local
    return groups


def _by_group(values: np.ndarray, groups: np.ndarray):
    """Values sorted by group (record order within a group), group starts and sizes."""
    order = np.argsort(groups, kind="stable")
    gs = groups[order]
    start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
    sizes = np.diff(np.r_[start, gs.size])
    return values[order], order, start, sizes, gs[start]


def _ld_sums(v: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Sum per group in long double, value after value (a loop over the largest group's size)."""
    s = np.zeros(start.size, dtype=np.longdouble)
    for t in range(int(sizes.max()) if sizes.size else 0):
        hit = sizes > t
        s[hit] += v[start[hit] + t].astype(np.longdouble)
    return s


def group_stat(y: np.ndarray, groups: np.ndarray, measure: str) -> np.ndarray:
    """R's ``mean`` or ``median`` of ``y`` per group (NA where a group has a missing value), per record."""
    v, order, start, sizes, ids = _by_group(np.asarray(y, dtype=np.float64), groups)
    has_na = np.add.reduceat(np.isnan(v), start) > 0 if v.size else np.zeros(0, dtype=bool)
    if measure == "mean":
        ld = _ld_sums(v, start, sizes) / sizes
        dev = v.astype(np.longdouble) - np.repeat(ld, sizes)
        t = np.zeros(start.size, dtype=np.longdouble)
        for i in range(int(sizes.max()) if sizes.size else 0):
            hit = sizes > i
            t[hit] += dev[start[hit] + i]
        fin = np.isfinite(ld)
        ld[fin] += t[fin] / sizes[fin]
        stat = ld.astype(np.float64)
    elif measure == "median":
        key = np.repeat(np.arange(start.size), sizes)
        srt = v[np.lexsort((v, key))]
        lo = start + (sizes - 1) // 2
        hi = start + sizes // 2
        a = srt[lo].astype(np.longdouble)
        b = srt[hi].astype(np.longdouble)
        stat = np.where(lo == hi, srt[lo], ((a + b) / 2).astype(np.float64))
    else:  # pragma: no cover - validated by the caller
        raise ValueError(measure)
    stat = np.where(has_na, np.nan, stat)
    per_group = np.empty(int(groups.max()) + 1 if groups.size else 0)
    per_group[ids] = stat
    return per_group[groups]


def fixed_groups(n: int, aggr: int) -> np.ndarray:
    """Consecutive groups of ``aggr`` records, the remainder joining the last (n >= 2 * aggr)."""
    g = np.arange(n) // aggr
    if n % aggr:
        g = np.minimum(g, n // aggr - 1)
    return g


def col_means(v: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """R's ``colMeans`` per group (a long-double sum divided by the count), per record; NA stays NA."""
    vs, order, start, sizes, ids = _by_group(np.asarray(v, dtype=np.float64), groups)
    stat = (_ld_sums(vs, start, sizes) / sizes).astype(np.float64)
    per_group = np.empty(int(groups.max()) + 1)
    per_group[ids] = stat
    return per_group[groups]


def factor_of_totals(n: int, aggr: int) -> float:
    """sdcMicro's ``fot``: ``n / floor(n / aggr)``."""
    return n / (n // aggr) if n // aggr else float("inf")
