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
without missing values :func:`mdav_fast` runs the same rounds on short candidate lists (a k-d tree for
the nearest records, a list of the records farthest from a recent centroid and the tree's boxes for the
farthest), with the same result.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

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



# =============================================================================
# MDAV without missing values, fast: the same rounds, records skipped by exact bounds
#
# sdcMicro's single-precision distance D(x, q) is within a relative ``eta`` of the real weighted squared
# distance |z_x - z_q|^2 (z = x * sqrt(w)); every round's three queries run on short candidate lists on
# which the exact single-precision distances and sdcMicro's tie rules decide, so the result is the one of
# :func:`mdav`:
#
# * the farthest record from the centroid: the centroid moves little from round to round, so a list of
#   the records farthest from a reference centre c0 (sorted by their real distance d0 to it) stays valid
#   while the centroid is within m of c0: only the list's head within 2m (plus the single-precision
#   margin) can hold the farthest record. The list is rebuilt (one pass over the remaining records) when
#   it no longer decides. The centroid (a record-order double sum in sdcMicro) is bracketed: the
#   long-double running sum is within ``m * 2^-53 * sum|x|`` of it; only if two different records may then
#   both be the farthest is the record-order sum computed;
# * the farthest record from a record q: the same list through the triangle inequality
#   (|x - q| <= d0(x) + |c0 - q|), otherwise the leaves of a k-d tree and groups of leaves, each with a
#   bounding box and a ball (exact single-precision upper bounds: each step of D never decreases with
#   |x - q|), pruned against the distance of a record already found;
# * the k nearest records to q: scipy's k-d tree on z (grouped records skipped), its k-th real distance
#   bounding the single-precision ties.
#
# The tree and the boxes are rebuilt on the remaining records when half of them are grouped.


def _d32(x: np.ndarray, q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sdcMicro's single-precision distances of the rows of ``x`` to ``q``."""
    t = x - q
    t *= t
    t *= w
    t32 = t.astype(np.float32)
    d = t32[:, 0].copy()
    for j in range(1, t32.shape[1]):
        d += t32[:, j]
    return d


def _d32_box(x: np.ndarray, qlo: np.ndarray, qhi: np.ndarray, w: np.ndarray):
    """Lower and upper bounds of the single-precision distances of the rows of ``x`` to any point of [qlo, qhi]
    (the same operations on the corners: each step never decreases with |x - q|)."""
    a = x - qlo
    b = x - qhi
    lo = np.where(a < 0, -a, np.where(b > 0, b, 0.0))
    hi = np.maximum(np.abs(a), np.abs(b))
    lo *= lo
    lo *= w
    hi *= hi
    hi *= w
    l32 = lo.astype(np.float32)
    h32 = hi.astype(np.float32)
    dlo, dhi = l32[:, 0].copy(), h32[:, 0].copy()
    for j in range(1, x.shape[1]):
        dlo += l32[:, j]
        dhi += h32[:, j]
    return dlo, dhi


def _ranges(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The concatenated ``arange(start[i], end[i])``."""
    lens = end - start
    tot = int(lens.sum())
    if not tot:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(start - np.cumsum(lens) + lens, lens) + np.arange(tot)


class _Cells:
    """The remaining records in a k-d tree (scipy's cKDTree on z) and its leaves, and groups of leaves, each
    with a bounding box (in x) and a ball (in z); grouped records are marked, and the whole is rebuilt on
    the remaining records when half of its records are grouped."""

    def __init__(self, x: np.ndarray, z: np.ndarray, w: np.ndarray, eta: float, sig: float, leaf: int):
        self.x, self.z, self.w, self.eta, self.sig, self.leaf = x, z, w, eta, sig, leaf
        n = x.shape[0]
        self.alive = np.ones(n, dtype=bool)
        self.leaf_of = np.empty(n, dtype=np.int64)
        self._build(np.arange(n))

    def _build(self, ids: np.ndarray) -> None:
        m = ids.size
        tree = cKDTree(self.z[ids], leafsize=self.leaf, balanced_tree=False)
        self.tree, self.tids, self.m = tree, ids, m
        perm = ids[tree.indices]
        big = int(max(8 * self.leaf, 2 * np.sqrt(m)))
        starts, sc_of = [], []
        nsc = 0
        stack = [(tree.tree, -1)]
        while stack:  # a walk over the tree's nodes (~ m / leaf of them), not over records
            nd, sc = stack.pop()
            if sc < 0 and nd.end_idx - nd.start_idx <= big:
                sc, nsc = nsc, nsc + 1
            if nd.split_dim == -1:
                starts.append(nd.start_idx)
                sc_of.append(sc)
            else:
                stack.append((nd.greater, sc))
                stack.append((nd.lesser, sc))
        self.perm = perm
        self.start = np.asarray(starts, dtype=np.int64)  # in tree order: sorted, groups contiguous
        self.end = np.r_[self.start[1:], m]
        sc_of = np.asarray(sc_of, dtype=np.int64)
        self.sc_of = sc_of
        lens = self.end - self.start
        nleaf = lens.size
        cid = np.repeat(np.arange(nleaf), lens)
        self.leaf_of[perm] = cid
        self.live = lens.copy()
        self.n_live = m
        xs, zs = self.x[perm], self.z[perm]
        self.lo, self.hi, self.cen, self.rad = self._bounds(xs, zs, self.start, lens)
        first = np.r_[0, np.flatnonzero(sc_of[1:] != sc_of[:-1]) + 1]  # first leaf of each group
        self.sc_first = first
        self.sc_last = np.r_[first[1:], nleaf]
        rstart = self.start[first]
        self.lo2, self.hi2, self.cen2, self.rad2 = self._bounds(xs, zs, rstart, np.diff(np.r_[rstart, m]))
        self.live2 = np.add.reduceat(lens, first)

    def _bounds(self, xs, zs, starts, lens):
        lo = np.ascontiguousarray(np.minimum.reduceat(xs, starts, axis=0).T)
        hi = np.ascontiguousarray(np.maximum.reduceat(xs, starts, axis=0).T)
        cen = np.add.reduceat(zs, starts, axis=0) / lens[:, None]
        r = np.sqrt(((zs - np.repeat(cen, lens, axis=0)) ** 2).sum(axis=1))
        rad = np.maximum.reduceat(r, starts) * (1 + 1e-12) + self.sig
        return lo, hi, np.ascontiguousarray(cen.T), rad

    def remove(self, rows: np.ndarray) -> None:
        self.alive[rows] = False
        lf = self.leaf_of[rows]
        np.subtract.at(self.live, lf, 1)
        np.subtract.at(self.live2, self.sc_of[lf], 1)
        self.n_live -= rows.size
        if self.n_live * 2 < self.m and self.m > 64:
            p = self.perm
            self._build(np.sort(p[self.alive[p]]))

    def gather(self, leaves: np.ndarray) -> np.ndarray:
        rows = self.perm[_ranges(self.start[leaves], self.end[leaves])]
        return rows[self.alive[rows]]

    def _ub(self, q, qz, lo, hi, cen, rad, live):
        """Upper bounds of the single-precision distances from q to the records of each box (-1: empty)."""
        t = np.maximum(np.abs(hi - q[:, None]), np.abs(lo - q[:, None]))
        t *= t
        t *= self.w[:, None]
        t32 = t.astype(np.float32)
        ub = t32[0].copy()
        for j in range(1, t32.shape[0]):
            ub += t32[j]
        dc = cen - qz[:, None]
        dc *= dc
        rb = np.sqrt(dc.sum(axis=0)) + rad + self.sig
        rb *= rb
        rb *= 1 + self.eta
        np.minimum(ub, rb, out=ub, casting="unsafe")
        ub[live == 0] = -1.0
        return ub

    def farthest_rows(self, q: np.ndarray, qz: np.ndarray, lb: float) -> np.ndarray:
        """The remaining records that may be the farthest from q, given a remaining record at distance lb."""
        ub2 = self._ub(q, qz, self.lo2, self.hi2, self.cen2, self.rad2, self.live2)
        sc = np.flatnonzero(ub2 >= lb)
        leaves = _ranges(self.sc_first[sc], self.sc_last[sc])
        ub = self._ub(q, qz, self.lo[:, leaves], self.hi[:, leaves], self.cen[:, leaves], self.rad[leaves],
                      self.live[leaves])
        # a better lower bound first: the records of the leaves with the largest bounds
        top = leaves[np.argpartition(-ub, 4)[:4]] if leaves.size > 4 else leaves
        rows = self.gather(top)
        if rows.size:
            lb = max(lb, float(_d32(self.x[rows], q, self.w).max()))
        return self.gather(leaves[ub >= lb])

    def nearest(self, q: np.ndarray, qz: np.ndarray, k: int) -> np.ndarray:
        """The k remaining records nearest to q, nearest first (equal distances: the later record first)."""
        m = self.m
        kk = min(m, 2 * k + 8)
        while True:
            dd, idx = self.tree.query(qz, k=kk)
            dd, idx = np.atleast_1d(dd), np.atleast_1d(idx)
            rows = self.tids[idx]
            rows = rows[self.alive[rows]]
            if rows.size >= k or kk >= m:
                d = _d32(self.x[rows], q, self.w)
                order = np.lexsort((-rows, d))
                if kk >= m or dd[-1] > np.sqrt(float(d[order[k - 1]]) / (1 - self.eta)) + 4 * self.sig:
                    return rows[order[:k]]
            kk = min(m, kk * 4)


class _Shell:
    """The remaining records farthest from a reference centre c0, sorted by their real distance d0 to it."""

    def __init__(self, z: np.ndarray, alive: np.ndarray, eta: float, sig: float, size: int):
        self.z, self.alive, self.sig, self.size = z, alive, sig, size
        self.rho = np.sqrt((1 - eta) / (1 + eta))
        self.ids = None

    def _rebuild(self, cz: np.ndarray) -> None:
        live = np.flatnonzero(self.alive)
        d = np.sqrt(((self.z[live] - cz) ** 2).sum(axis=1))
        if live.size > self.size:
            part = np.argpartition(-d, self.size)
            top = part[:self.size]
            self.T = float(d[part[self.size]])  # every record outside the list: d0 <= T
        else:
            top = np.arange(live.size)
            self.T = -np.inf
        o = np.argsort(-d[top], kind="stable")
        self.ids, self.d0, self.c0, self.ptr = live[top[o]], d[top[o]], cz, 0
        self.nd = -self.d0

    def _head(self) -> int:
        ids, p = self.ids, self.ptr
        while p < ids.size:
            blk = self.alive[ids[p:p + 64]]
            if blk.any():
                p += int(np.argmax(blk))
                break
            p += blk.size
        self.ptr = p
        return p

    def _prefix(self, p: int, need: float) -> np.ndarray:
        e = int(np.searchsorted(self.nd, -need, side="right"))
        sl = self.ids[p:e]
        return sl[self.alive[sl]]

    def around_centroid(self, cz: np.ndarray, dz: float) -> np.ndarray:
        """The remaining records that may be the farthest from any centre within dz of cz (real z)."""
        fresh = False
        while True:
            if self.ids is None:
                self._rebuild(cz)
                fresh = True
            m = float(np.sqrt(((cz - self.c0) ** 2).sum())) + dz + self.sig
            p = self._head()
            if p < self.ids.size:
                need = (self.d0[p] - m) * self.rho - m - self.sig
                if need > self.T:
                    return self._prefix(p, need)
            if fresh:  # the list's records are as far as each other: a longer list
                self.size *= 4
            self.ids = None

    def far_from(self, qz: np.ndarray, limit: int):
        """(records that may be the farthest from the point qz, or None if the list cannot tell; some
        remaining records far from qz)."""
        if self.ids is None:
            return None, np.zeros(0, dtype=np.int64)
        p = self._head()
        head = self.ids[p:p + 32]
        head = head[self.alive[head]]
        if not head.size:
            return None, head
        best = float(np.sqrt(((self.z[head] - qz) ** 2).sum(axis=1)).max())
        need = best * self.rho - float(np.sqrt(((qz - self.c0) ** 2).sum())) - 2 * self.sig
        if need <= self.T:
            return None, head
        e = int(np.searchsorted(self.nd, -need, side="right"))
        if e - p > limit:
            return None, head
        return self._prefix(p, need), head


#: records per leaf of the k-d tree of :func:`mdav_fast`
_LEAF = 32


def mdav_fast(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mdav` for data without missing values (nor -999) and with positive weights: the same
    ``(values, groups)``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    n, p = x.shape
    w, _ = _weights(x, np.zeros(x.shape, dtype=bool))
    sw = np.sqrt(w)
    z = x * sw
    eta = (p + 2) * 2.0 ** -22  # > the relative error of a single-precision distance
    sig = 1e-12 * (float(np.abs(z).max(initial=0.0)) + 1.0)  # > the error of a real distance in z
    cells = _Cells(x, z, w, eta, sig, _LEAF)
    alive = cells.alive
    shell = _Shell(z, alive, eta, sig, 512)
    out = np.empty((n, p))
    groups = np.empty(n, dtype=np.int64)
    total = x.astype(np.longdouble).sum(axis=0)
    abs_total = np.abs(x).astype(np.longdouble).sum(axis=0)
    zrec = None
    u = 2.0 ** -53
    g, left = 0, n

    def farthest_from(r: int) -> int:
        q, qz = x[r], z[r]
        rows, head = shell.far_from(qz, 2048)
        if rows is None:
            lb = float(_d32(x[head], q, w).max()) if head.size else -1.0
            rows = cells.farthest_rows(q, qz, lb)
        d = _d32(x[rows], q, w)
        return int(rows[d == d.max()].min())

    while left >= 2 * k:
        ngroups = 1 if left < 3 * k else 2
        c = (total / left).astype(np.float64)
        delta = 2.0 * ((left + 2) * u * (abs_total / left).astype(np.float64) + 2 * u * np.abs(c)) + 1e-300
        clo, chi = c - delta, c + delta
        rows = shell.around_centroid(c * sw, float(np.sqrt(((delta * sw) ** 2).sum())))
        dlo, dhi = _d32_box(x[rows], clo, chi, w)
        cand = rows[dhi >= dlo.max()]
        if cand.size == 1 or (x[cand] == x[cand[0]]).all():
            r = int(cand.min())
        else:  # different records may both be the farthest: sdcMicro's own centroid decides
            if zrec is None:
                zrec = np.where(alive[:, None], x, 0.0).T.copy()
            cexact = np.cumsum(zrec, axis=1)[:, -1] / left
            d = _d32(x[cand], cexact, w)
            r = int(cand[d == d.max()].min())
        # the record farthest from r is taken before r's group leaves (it may be in the group)
        seeds = [r, farthest_from(r)] if ngroups == 2 else [r]
        for q in seeds:
            rows = cells.nearest(x[q], z[q], k)
            s = x[rows[0]].copy()
            for rr in rows[1:]:  # a loop over the group's size
                s += x[rr]
            out[rows] = s / k
            groups[rows] = g
            g += 1
            cells.remove(rows)
            xr = x[rows]
            total -= xr.astype(np.longdouble).sum(axis=0)
            abs_total -= np.abs(xr).astype(np.longdouble).sum(axis=0)
            if zrec is not None:
                zrec[:, rows] = 0.0
        left -= k * ngroups
    if left:
        rows = np.flatnonzero(alive)
        s = x[rows[0]].copy()
        for rr in rows[1:]:
            s += x[rr]
        out[rows] = s / rows.size
        groups[rows] = g
    return out, groups
