"""MDAV without missing values on large data (issue 28): sdcMicro's rounds on short candidate lists.

:func:`mdav_fast` gives the groups and values of :func:`pysdc.core.microagg.mdav` (the plain rounds, each
over all remaining records) bit for bit, on data without missing values (nor -999) and with positive
weights. sdcMicro's single-precision distance D(x, q) (terms ``(x - q)^2 * w`` rounded to single precision,
added in single precision) is within a relative ``eta`` of the real weighted squared distance
``|z_x - z_q|^2`` (``z = x * sqrt(w)``); every round's three queries run on candidate lists on which the
exact single-precision distances and sdcMicro's tie rules decide:

* the farthest record from the centroid: the centroid moves little from round to round, so a list of the
  records farthest from a reference centre c0 (sorted by their real distance d0 to it) stays valid while
  the centroid is within m of c0: only the list's head within 2m (plus the single-precision margin) can
  hold the farthest record. The list is rebuilt (one pass over the remaining records) when it no longer
  decides. The centroid (a record-order double sum in sdcMicro) is bracketed: the long-double running sum
  is within ``m * 2^-53 * sum|x|`` of it; only if two different records may then both be the farthest is
  the record-order sum computed;
* the farthest record from a record q: the leaves of a k-d tree, sub-groups of up to ``_SUB`` neighbouring
  leaves and groups of sub-groups, each with a ball
  (in z) around its records, which bounds the single-precision distance of its records from above
  (``(|cen - z_q| + rad)^2 * (1 + eta)``, the rounding of every step bounded), pruned against the
  distance of a record already found (the records of the leaves that held the last ``_RECENT`` answers:
  the farthest records of recent rounds lie where the next ones do; then of the leaf with the largest
  bound). The leaves'
  records' real squared distances come from a block table (leaf x slot x (-2 z, |z|^2), |z|^2 = -inf where
  no remaining record is: one gather and one matrix-vector product per query); they bracket the
  single-precision distances, which are evaluated only for the few records the bracket cannot decide;
* the k nearest records to q: scipy's k-d tree on z (grouped records skipped), its k-th real distance
  bounding the single-precision ties.

The tree and the balls are rebuilt on the remaining records when half of them are grouped. Each round is
a few dozen NumPy calls on short arrays (the leaves and leaf groups are padded tables, so a gather is one
indexing call); the loop runs over rounds (``n / 2k``), never over records.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

__all__ = ["mdav_fast", "complete_weights"]

_F32 = np.float32


def _seq_sum(v: np.ndarray) -> float:
    """The sum of ``v`` added one value after the other, as a C loop (NumPy's ``sum`` is pairwise)."""
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def complete_weights(x: np.ndarray) -> np.ndarray:
    """sdcMicro's MDAV weights ``1 / variance`` per column of ``x`` (no missing values; the population
    variance ``E[x^2] - E[x]^2``, each sum record by record; a zero variance keeps weight 1)."""
    n, p = x.shape
    w = np.ones(p)
    for j in range(p):  # a loop over variables
        v = x[:, j]
        if n:
            avr = _seq_sum(v) / n
            var = _seq_sum(v * v) / n - avr * avr
            if var != 0:  # C's `if (Variance)`: NaN counts as non-zero
                w[j] = 1.0 / var
    return w


def _d32(xr: np.ndarray, q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sdcMicro's single-precision distances of the rows of ``xr`` to ``q``: the terms rounded to single
    precision, added one after the other in single precision."""
    t = xr - q
    t *= t
    t *= w
    return _rowsum(t.astype(_F32))


def _rowsum(t: np.ndarray) -> np.ndarray:
    """The columns of ``t`` added one after the other (in its precision)."""
    p = t.shape[1]
    if p == 1:
        return t[:, 0]
    d = t[:, 0] + t[:, 1]
    for j in range(2, p):  # a loop over variables
        d += t[:, j]
    return d


def _d32_box(xr: np.ndarray, qlo: np.ndarray, qhi: np.ndarray, w: np.ndarray):
    """Lower and upper bounds of the single-precision distances of the rows of ``xr`` to any point of
    [qlo, qhi] (the same operations on the nearest and farthest corner: each step never decreases with
    |x - q|)."""
    a = xr - qlo
    b = qhi - xr
    hi = np.maximum(a, b)  # = max(|x - qlo|, |x - qhi|), qlo <= qhi
    lo = np.maximum(np.maximum(-a, -b), 0.0)  # the distance to the interval
    lo *= lo
    lo *= w
    hi *= hi
    hi *= w
    return _rowsum(lo.astype(_F32)), _rowsum(hi.astype(_F32))


def _padded(start: np.ndarray, end: np.ndarray, fill: int) -> np.ndarray:
    """Rows ``arange(start[i], end[i])`` of a table padded with ``fill`` to the longest range."""
    lens = end - start
    width = int(lens.max()) if lens.size else 1
    cols = np.arange(width)
    return np.where(cols < lens[:, None], start[:, None] + cols, fill)


class _Cells:
    """The remaining records in a k-d tree (scipy's cKDTree on z) and its leaves, and groups of leaves, each
    with a ball (in z); grouped records are marked, and the whole is rebuilt on the remaining records when
    half of its records are grouped.

    The leaves' records and the groups' leaves are padded tables: a padding record (index n) is never
    alive, a padding leaf (the last) never holds a remaining record."""

    def __init__(self, x: np.ndarray, z: np.ndarray, w: np.ndarray, eta: float, sig: float, leaf: int):
        self.x, self.z, self.w, self.eta, self.sig, self.leaf = x, z, w, eta, sig, leaf
        n = x.shape[0]
        self.alive = np.ones(n + 1, dtype=bool)  # the padding record n: never alive
        self.alive[n] = False
        self.leaf_of = np.empty(n, dtype=np.int64)
        self.pos_of = np.empty(n, dtype=np.int64)
        # a record's row (-2 z, |z|^2) for the real squared distance |z - qz|^2 = row . (qz, 1) + |qz|^2;
        # the padding record: (0, -inf), distance -inf (not NaN: a product over NaN is twice as slow)
        self.znan = np.vstack([np.column_stack([-2.0 * z, (z * z).sum(axis=1)]),
                               np.r_[np.zeros(x.shape[1]), -np.inf]])
        self.zmax = float(np.sqrt((z * z).sum(axis=1).max(initial=0.0)))  # the largest |z|
        self.rho = np.sqrt((1 - eta) / (1 + eta))
        self.wc = w[:, None]
        self.kk_bound = 1.0 / (1 - eta)
        self.rb_scale = 1 + eta  # the ball's bound: (|cen - qz| + rad)^2 * (1 + eta)
        self._build(np.arange(n))

    def _build(self, ids: np.ndarray) -> None:
        m = ids.size
        tree = cKDTree(self.z[ids], leafsize=self.leaf, balanced_tree=False)
        self.tree, self.tids, self.m = tree, ids, m
        perm = ids[tree.indices]
        big = int(max(8 * self.leaf, 0.7 * np.sqrt(m)))  # records per group of leaves (~45 leaves at 1e6)
        starts, sc_of = [], []
        nsc = 0
        stack = [(tree.tree, -1)]
        while stack:  # a walk over the tree's nodes (~ m / leaf of them), not over records
            nd, sc = stack.pop()
            if sc < 0 and (nd.end_idx - nd.start_idx <= big or nd.split_dim == -1):
                sc, nsc = nsc, nsc + 1
            if nd.split_dim == -1:
                starts.append(nd.start_idx)
                sc_of.append(sc)
            else:
                stack.append((nd.greater, sc))
                stack.append((nd.lesser, sc))
        # in tree order: sorted, groups contiguous. A leaf of more than _WIDTH records (equal records the
        # tree cannot split) is cut into pieces of _WIDTH, a group of more than _GROUP leaves into groups
        # of _GROUP: the padded tables stay narrow
        start = np.asarray(starts, dtype=np.int64)
        lens = np.r_[start[1:], m] - start
        cuts = -(-lens // _WIDTH)
        off = np.arange(int(cuts.sum())) - np.repeat(np.cumsum(cuts) - cuts, cuts)
        start = np.repeat(start, cuts) + off * _WIDTH
        sc0 = np.repeat(np.asarray(sc_of, dtype=np.int64), cuts)
        new = np.r_[True, sc0[1:] != sc0[:-1]]
        first0 = np.flatnonzero(new)
        pos = np.arange(sc0.size) - np.repeat(first0, np.diff(np.r_[first0, sc0.size]))
        sc_of = np.cumsum(new | (pos % _GROUP == 0)) - 1
        end = np.r_[start[1:], m]
        lens = end - start
        nleaf = lens.size
        self.leaf_of[perm] = np.repeat(np.arange(nleaf), lens)
        n = self.x.shape[0]
        # leaf -> its records (padding: record n); one more leaf, all padding, for the groups' padding
        self.rows_of = np.vstack([np.r_[perm, n][_padded(start, end, m)], np.full((1, int(lens.max())), n)])
        # the leaves' records' rows (-2 z, |z|^2), leaf x slot x column (|z|^2 = -inf: no remaining record)
        self.zp = self.znan.take(self.rows_of, axis=0)
        self.pos_of[perm] = np.arange(m) - np.repeat(start, lens)
        self.live = np.r_[lens, 0]
        self.n_live = m
        self.sc_of = sc_of
        zs = self.z[perm]
        # the leaves' balls, one more (the padding leaf) never open
        self.balls = self._balls(zs, start, lens, 1)
        first = np.r_[0, np.flatnonzero(sc_of[1:] != sc_of[:-1]) + 1]  # first leaf of each group
        self.leaves_of = _padded(first, np.r_[first[1:], nleaf], nleaf)
        rstart = start[first]
        self.balls2 = self._balls(zs, rstart, np.diff(np.r_[rstart, m]), 0)
        self.live2 = np.add.reduceat(lens, first)
        # sub-groups: runs of up to _SUB consecutive leaves of a group (in tree order: neighbours), a level
        # of balls between the groups and the leaves; one more, all padding, never open
        posg = np.arange(nleaf) - np.repeat(first, np.diff(np.r_[first, nleaf]))
        sub_new = posg % _SUB == 0
        self.sb_of = np.cumsum(sub_new) - 1
        first3 = np.flatnonzero(sub_new)
        nsub = first3.size
        lo3 = _padded(first3, np.r_[first3[1:], nleaf], nleaf)
        self.leaves_of3 = np.vstack([lo3, np.full((1, lo3.shape[1]), nleaf)])
        rs3 = start[first3]
        self.balls3 = self._balls(zs, rs3, np.diff(np.r_[rs3, m]), 1)
        self.live3 = np.r_[np.add.reduceat(lens, first3), 0]
        fs = self.sb_of[first]
        self.subs_of = _padded(fs, np.r_[fs[1:], nsub], nsub)
        # the counts and a leaf's sub-group and group as lists: :meth:`remove` reads them one record at a time
        self.live, self.live2, self.live3 = self.live.tolist(), self.live2.tolist(), self.live3.tolist()
        self._sb, self._sc = self.sb_of.tolist(), sc_of.tolist()
        # the leaves of the last answers of :meth:`farthest` (the padding leaf: none yet)
        self.recent = np.full(_RECENT, nleaf)
        self.rpos, self._rset = 0, set()
        self.cmax = float(np.sqrt(max(self.balls[:, -3].max(), self.balls2[:, -3].max(),
                                      self.balls3[:, -3].max())))  # the largest |cen|

    def _balls(self, zs, starts, lens, pad):
        """A ball (in z) around the records of each range: a table of rows (-2 centre, |centre|^2, radius,
        open: 1 + eta while a record of the range remains, 0 after), with ``pad`` closed rows appended."""
        cen = np.add.reduceat(zs, starts, axis=0) / lens[:, None]
        r = np.sqrt(((zs - np.repeat(cen, lens, axis=0)) ** 2).sum(axis=1))
        rad = np.maximum.reduceat(r, starts) * (1 + 1e-12) + 2 * self.sig
        t = np.column_stack([-2.0 * cen, (cen ** 2).sum(axis=1), rad, np.full(starts.size, self.rb_scale)])
        return np.vstack([t, np.zeros((pad, t.shape[1]))]) if pad else t

    def remove(self, rows: np.ndarray) -> None:
        np.put(self.alive, rows, False)
        self.zp[self.leaf_of.take(rows), self.pos_of.take(rows), -1] = -np.inf
        live, live2, live3, sb_of, sc_of = self.live, self.live2, self.live3, self._sb, self._sc
        for lf in self.leaf_of.take(rows).tolist():  # a loop over the group's size
            live[lf] -= 1
            if not live[lf]:
                self.balls[lf, -1] = 0.0
            sb = sb_of[lf]
            live3[sb] -= 1
            if not live3[sb]:
                self.balls3[sb, -1] = 0.0
            sc = sc_of[lf]
            live2[sc] -= 1
            if not live2[sc]:
                self.balls2[sc, -1] = 0.0
        self.n_live -= rows.size
        if self.n_live * 2 < self.m and self.m > 64:
            p = self.tids
            self._build(p[self.alive[p]])

    def _ub(self, balls: np.ndarray, qz: np.ndarray, q2: float, err: float) -> np.ndarray:
        """Upper bounds of the single-precision distances from q to the records of each ball (0: closed):
        (|cen - qz| + rad)^2 * (1 + eta), |cen - qz|^2 as |cen|^2 - 2 cen.qz + |qz|^2 plus ``err``, a bound
        of its rounding error (the factor 1 + eta is the open column)."""
        p = qz.size
        ub = balls[:, :p] @ qz
        ub += balls[:, p]
        ub += q2 + err
        np.sqrt(ub, out=ub)
        ub += balls[:, p + 1]
        ub *= ub
        ub *= balls[:, p + 2]
        return ub

    def _dreal(self, leaves: np.ndarray, v: np.ndarray, q2: float) -> np.ndarray:
        """The real squared distances |z - qz|^2 (``v = (qz, 1)``, ``q2 = |qz|^2``, each within ``err`` of
        :meth:`farthest`) from qz to the slots of the leaves, flat (leaves x slots); -inf where no remaining
        record is (-inf)."""
        b = self.zp.take(leaves, axis=0)
        d = b.reshape(-1, b.shape[2]) @ v
        d += q2
        return d

    def farthest(self, q: np.ndarray, qz: np.ndarray, hint=None) -> int:
        """The remaining record farthest from q (equal distances: the first in record order); ``hint``:
        remaining records whose distance may serve as a first lower bound.

        The real squared distances dr of the candidate leaves' records (one product) bracket the
        single-precision distance D: with s = sqrt(dr) and e = sqrt(err) + 4 sig (the rounding of dr and
        of z), max(s - e, 0)^2 (1 - eta) <= D <= (s + e)^2 (1 + eta); only the records whose upper bound
        reaches the largest lower bound are evaluated in single precision."""
        q2 = float(qz @ qz)
        err = 4 * (qz.size + 8) * 2.0 ** -53 * (max(self.cmax, self.zmax) + np.sqrt(q2)) ** 2
        e = float(np.sqrt(err)) + 4 * self.sig
        v = np.ones(qz.size + 1)
        v[:-1] = qz
        lo_of = self._lo
        ub2 = self._ub(self.balls2, qz, q2, err)
        # a remaining record's distance lb: the records of the leaves of the last answers (the farthest
        # records of recent rounds lie where the next ones do), else of the group with the largest bound
        lb = lo_of(float(np.fmax.reduce(self._dreal(self.recent, v, q2))), e)
        if not lb > 0:
            lb = lo_of(float(np.fmax.reduce(self._dreal(self.leaves_of[int(np.argmax(ub2))], v, q2))), e)
        if hint is not None and hint.size:  # remaining records given by the caller
            lb = max(float(_d32(self.x.take(hint, axis=0), q, self.w).max()), lb)
        subs = self.subs_of.compress(ub2 >= lb, axis=0).ravel()
        ub3 = self._ub(self.balls3.take(subs, axis=0), qz, q2, err)
        leaves = self.leaves_of3.take(subs.compress(ub3 >= lb), axis=0).ravel()
        ub = self._ub(self.balls.take(leaves, axis=0), qz, q2, err)
        if leaves.size > 8:  # a better lb: the records of the leaf with the largest bound among these
            j = int(np.argmax(ub))
            lb = max(lb, lo_of(float(np.fmax.reduce(self._dreal(leaves[j:j + 1], v, q2))), e))
        leaves = leaves.compress(ub >= lb)
        dr = self._dreal(leaves, v, q2)
        # the records whose D may reach the largest lower bound: s + e >= (smax - e) rho
        t = (float(np.sqrt(max(float(np.fmax.reduce(dr)), 0.0))) - e) * self.rho * (1 - 1e-12) - e
        sel = np.flatnonzero(dr >= t * t) if t > 0 else np.flatnonzero(dr > -np.inf)
        rows = self.rows_of.take(leaves, axis=0).ravel().take(sel)
        d = _d32(self.x.take(rows, axis=0), q, self.w)
        r = int(rows.compress(d == d.max()).min())
        lf = int(self.leaf_of[r])
        if lf not in self._rset:  # a leaf not among the last answers' leaves replaces the oldest
            self._rset.discard(int(self.recent[self.rpos]))
            self._rset.add(lf)
            self.recent[self.rpos] = lf
            self.rpos = (self.rpos + 1) % _RECENT
        return r

    def _lo(self, dmax: float, e: float) -> float:
        """A lower bound of the single-precision distance of the record with real squared distance
        ``dmax`` (0 if -inf: no record)."""
        if not dmax > 0:
            return 0.0
        s = np.sqrt(dmax) - e
        return s * s * (1 - self.eta) * (1 - 1e-12) if s > 0 else 0.0

    def _rows(self, leaves: np.ndarray) -> np.ndarray:
        """The remaining records of the leaves (``take``/``compress``: NumPy's ``[]`` with an index array
        costs several times more on short arrays)."""
        rows = self.rows_of.take(leaves, axis=0).ravel()
        return rows.compress(self.alive.take(rows))

    def query(self, seeds: tuple, k: int):
        """One query of the tree for the records nearest to each seed: (distances, records), for
        :meth:`nearest` (valid while records are only removed, the tree rebuilt or not)."""
        kk = min(self.m, 2 * k + 8)
        dd, idx = self.tree.query(self.z.take(seeds, axis=0), k=kk)
        return dd.reshape(len(seeds), kk), self.tids.take(idx).reshape(len(seeds), kk)

    def nearest(self, q: np.ndarray, qz: np.ndarray, k: int, pre=None) -> np.ndarray:
        """The k remaining records nearest to q, nearest first (equal distances: the later record first);
        ``pre``: the (distances, records) of a query of the tree made earlier for q."""
        if pre is not None:
            dd, rows = pre
            rows = rows.compress(self.alive.take(rows))
            if rows.size >= k:
                d = _d32(self.x.take(rows, axis=0), q, self.w)
                order = np.lexsort((-rows, d))
                if dd[-1] > np.sqrt(float(d[order[k - 1]]) * self.kk_bound) + 4 * self.sig:
                    return rows.take(order[:k])
        m = self.m
        kk = min(m, 2 * k + 8)
        while True:
            dd, idx = self.tree.query(qz, k=kk)
            dd, idx = np.atleast_1d(dd), np.atleast_1d(idx)
            rows = self.tids.take(idx)
            rows = rows.compress(self.alive.take(rows))
            if rows.size >= k or kk >= m:
                d = _d32(self.x[rows], q, self.w)
                order = np.lexsort((-rows, d))
                if kk >= m or dd[-1] > np.sqrt(float(d[order[k - 1]]) * self.kk_bound) + 4 * self.sig:
                    return rows[order[:k]]
            kk = min(m, kk * 4)


class _Shell:
    """The remaining records farthest from a reference centre c0, sorted by their real distance d0 to it."""

    def __init__(self, z: np.ndarray, alive: np.ndarray, eta: float, sig: float, size: int):
        self.z, self.alive, self.sig, self.size = z, alive, sig, size
        self.rho = np.sqrt((1 - eta) / (1 + eta))
        self.ids = None

    def _rebuild(self, cz: np.ndarray) -> None:
        live = np.flatnonzero(self.alive[:self.z.shape[0]])
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
        while p < ids.size:  # a walk over the list in blocks
            blk = self.alive.take(ids[p:p + 64])
            if blk.any():
                p += int(np.argmax(blk))
                break
            p += blk.size
        self.ptr = p
        return p

    def around_centroid(self, cz: np.ndarray, dz: float) -> np.ndarray:
        """The remaining records that may be the farthest from any centre within dz of cz (real z)."""
        fresh = False
        while True:
            if self.ids is None:
                self._rebuild(cz)
                fresh = True
            dc = cz - self.c0
            m = float(np.sqrt(dc @ dc)) + dz + self.sig
            p = self._head()
            if p < self.ids.size:
                need = (self.d0[p] - m) * self.rho - m - self.sig
                if need > self.T:
                    e = int(np.searchsorted(self.nd, -need, side="right"))
                    sl = self.ids[p:e]
                    return sl.compress(self.alive.take(sl))
            if fresh:  # the list's records are as far as each other: a longer list
                self.size *= 4
            self.ids = None


#: records per leaf of the k-d tree of :func:`mdav_fast`; at most _WIDTH records per leaf, _GROUP leaves
#: per group of leaves and _SUB leaves per sub-group in its tables; the leaves of the last _RECENT answers
#: (different leaves) of the farthest query give its first lower bound
_LEAF = 16
_WIDTH = 16
_GROUP = 128
_SUB = 8
_RECENT = 128


def mdav_fast(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pysdc.core.microagg.mdav` for data without missing values (nor -999) and with positive
    weights: the same ``(values, groups)``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    n, p = x.shape
    w = complete_weights(x)
    sw = np.sqrt(w)
    z = x * sw
    eta = (p + 2) * 2.0 ** -22  # > the relative error of a single-precision distance
    sig = 1e-12 * (float(np.abs(z).max(initial=0.0)) + 1.0)  # > the error of a real distance in z
    cells = _Cells(x, z, w, eta, sig, _LEAF)
    alive = cells.alive
    shell = _Shell(z, alive, eta, sig, max(512, n // 64))  # longer lists on more records: fewer rebuilds
    gval = np.empty((n // k + 1, p))  # each group's value, in the order the groups are formed
    groups = np.empty(n, dtype=np.int64)
    xa = np.hstack([x, np.abs(x)]).astype(np.longdouble)  # the running sums of x and |x|, in long double
    totals = xa.sum(axis=0)
    zrec = None
    u = 2.0 ** -53
    znan, vc = cells.znan, np.ones(p + 1)  # the records' rows (-2 z, |z|^2); (cz, 1)
    g, left = 0, n
    while left >= 2 * k:
        ngroups = 1 if left < 3 * k else 2
        ca = (totals / left).astype(np.float64)
        c = ca[:p]
        delta = 2.0 * ((left + 2) * u * ca[p:] + 2 * u * np.abs(c)) + 1e-300
        clo, chi = c - delta, c + delta
        dsw = delta * sw
        cz = c * sw
        dz = float(np.sqrt(dsw @ dsw))
        rows = shell.around_centroid(cz, dz)
        if rows.size > 16:  # the records whose distance may be the largest by their real distances (as in
            # _Cells.farthest; any centre of the box is within dz of cz, and |cz| <= zmax)
            c2 = float(cz @ cz)
            vc[:p] = cz
            dr = znan.take(rows, axis=0) @ vc
            dr += c2
            ec = np.sqrt(4 * (p + 8) * 2.0 ** -53 * (cells.zmax + np.sqrt(c2)) ** 2) + 4 * sig + dz
            tc = (float(np.sqrt(max(float(dr.max()), 0.0))) - ec) * cells.rho * (1 - 1e-12) - ec
            if tc > 0:
                rows = rows.compress(dr >= tc * tc)
        dlo, dhi = _d32_box(x.take(rows, axis=0), clo, chi, w)
        cand = rows.compress(dhi >= dlo.max())
        if cand.size == 1 or (x.take(cand, axis=0) == x[cand[0]]).all():
            r = int(cand.min())
        else:  # different records may both be the farthest: sdcMicro's own centroid decides
            if zrec is None:
                zrec = np.where(alive[:n, None], x, 0.0).T.copy()
            cexact = np.cumsum(zrec, axis=1)[:, -1] / left
            d = _d32(x.take(cand, axis=0), cexact, w)
            r = int(cand.compress(d == d.max()).min())
        # the record farthest from r is taken before r's group leaves (it may be in the group)
        seeds = (r, cells.farthest(x[r], z[r])) if ngroups == 2 else (r,)
        dd, near = cells.query(seeds, k)
        for i, q in enumerate(seeds):
            rows = cells.nearest(x[q], z[q], k, (dd[i], near[i]))
            xr = x.take(rows, axis=0)
            s = xr[0].copy()
            for t in range(1, k):  # a loop over the group's size
                s += xr[t]
            gval[g] = s / k
            np.put(groups, rows, g)
            g += 1
            cells.remove(rows)
            totals -= xa.take(rows, axis=0).sum(axis=0)
            if zrec is not None:
                zrec[:, rows] = 0.0
        left -= k * ngroups
    if left:
        rows = np.flatnonzero(alive[:n])
        s = x[rows[0]].copy()
        for rr in rows[1:]:  # the last group: fewer than 2k records
            s += x[rr]
        gval[g] = s / rows.size
        groups[rows] = g
    return gval.take(groups, axis=0), groups
