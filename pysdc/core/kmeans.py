"""R's ``stats::kmeans(x, centers = k)`` with its defaults: the Hartigan-Wong algorithm, ``iter.max = 10``,
``nstart = 1``, initial centres drawn on R's random stream (:class:`pysdc.core.rrandom.RRandom`).

Written from the published algorithm (Hartigan, J. A. and Wong, M. A. (1979) Algorithm AS 136: A K-means
clustering algorithm. *Applied Statistics* 28, 100-108) and from R's documented and observed behaviour
(R 4.2.2; pinned by ``r_reference/outputs/kmeans.json``):

* the initial centres are the records ``sample.int(m, k)``; when two of them are equal (``duplicated``:
  the numbers equal, ``0 == -0``) R draws again, ``sample.int(mm, k)``,
  among the distinct rows (``unique(x)``, first occurrences in record order) and stops with "more cluster
  centers than distinct data points." when there are fewer than k of them;
* ``k = 1`` is computed by MacQueen's algorithm (every record in cluster 1; the centre is the mean);
* Hartigan-Wong: each record goes to its nearest centre (the second nearest remembered); the centres become
  the means; ``k >= m`` stops ("number of cluster centres must lie between 1 and nrow(x)"), so does
  an empty cluster ("empty cluster: try a better set of initial centers"). Then up to
  ``iter.max`` times: the optimal-transfer stage (every record tested against the clusters of the live set;
  stop when no record moved in the last m steps), the quick-transfer stage (each record against its second
  nearest cluster while one of the two changed in the last m steps; stop after m steps without a move, or
  after ``50 m`` steps in all: R's warning "Quick-TRANSfer stage steps exceeded maximum (= 50m)"), and for
  ``k = 2`` nothing more. When ``iter.max`` passes do not converge R warns "did not converge in 10
  iterations". The centres and within sums of squares are finally recomputed from the clusters.

Every comparison is made on the same floating-point numbers as the published algorithm (squared distances
added variable after variable; the same divisions), so ties and near-ties fall as in R.

Records are not looped over in Python: a record that does not move changes nothing but its own bookkeeping,
so a block of the next records is tested at once against the current centres and live sets, the first one
that moves is applied, and the scan resumes after it (NumPy passes proportional to the number of moves).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._errors import InvalidParameterError
from .rrandom import RRandom

__all__ = ["KMeansError", "KMeansResult", "kmeans", "hartigan_wong", "initial_centers"]

_BIG = 1.0e30
_MIN_BLOCK = 32
_MAX_BLOCK = 1 << 15

#: R's warning texts
NOT_CONVERGED = "did not converge in {} iterations"
QTRAN_EXCEEDED = "Quick-TRANSfer stage steps exceeded maximum (= {})"


class KMeansError(InvalidParameterError):
    """Where R's ``kmeans`` stops (the message is R's)."""


@dataclass(frozen=True)
class KMeansResult:
    """R's ``kmeans`` result.

    Attributes
    ----------
    cluster : ndarray of int
        Each record's cluster, 1-based (R's ``$cluster``).
    centers : ndarray, shape (k, p)
        The cluster means (R's ``$centers``).
    size : ndarray of int
        Records per cluster (``$size``).
    withinss : ndarray
        Within-cluster sums of squares (``$withinss``).
    iter : int
        Passes of the outer loop (``$iter``; ``iter.max + 1`` when it did not converge).
    ifault : int or None
        R's ``$ifault``: 0, 2 (did not converge) or 4 (quick-transfer steps exceeded); None for ``k = 1``
        (R's MacQueen code returns none).
    warnings : tuple of str
        R's warnings of the call.
    """

    cluster: np.ndarray
    centers: np.ndarray
    size: np.ndarray
    withinss: np.ndarray
    iter: int
    ifault: int | None
    warnings: tuple = field(default=())

    @property
    def tot_withinss(self) -> float:
        return float(np.sum(self.withinss))


def _sqdist(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Squared distances (rows of ``x`` x rows of ``c``), the squares added variable after variable."""
    t = x[:, None, :] - c[None, :, :]
    t *= t
    d = t[:, :, 0].copy()
    for j in range(1, x.shape[1]):  # variables, not records
        d += t[:, :, j]
    return d


def _sqdist_rows(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Squared distance of each row of ``x`` to the same row of ``c`` (variable after variable)."""
    t = x - c
    t *= t
    d = t[:, 0].copy()
    for j in range(1, x.shape[1]):  # variables, not records
        d += t[:, j]
    return d


def _row_keys(x: np.ndarray) -> np.ndarray:
    """Each row as one value that is equal exactly when R's ``duplicated`` calls two rows equal (the numbers
    equal, ``0 == -0``, ``NaN`` equal to ``NaN``)."""
    y = np.ascontiguousarray(x + 0.0)  # + 0.0: -0 becomes 0
    y[np.isnan(y)] = np.nan  # one NaN pattern
    return y.view(np.dtype((np.void, y.dtype.itemsize * y.shape[1]))).ravel()


def _first_unique(keys: np.ndarray) -> np.ndarray:
    """0-based rows of the first occurrence of each key, in record order (R's ``unique``)."""
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def initial_centers(x: np.ndarray, k: int, rng: RRandom) -> np.ndarray:
    """R's initial centres for ``kmeans(x, k)`` (``nstart = 1``), drawn from ``rng``."""
    m = x.shape[0]
    if k > m:
        raise KMeansError("cannot take a sample larger than the population when 'replace = FALSE'")
    rows = rng.sample(m, k) - 1
    centers = x[rows]
    if k > 1:
        ck = _row_keys(centers)
        if np.unique(ck).size < k:
            uniq = _first_unique(_row_keys(x))
            if uniq.size < k:
                raise KMeansError("more cluster centers than distinct data points.")
            centers = x[uniq[rng.sample(uniq.size, k) - 1]]
    return centers.copy()


def kmeans(x, k: int, rng: RRandom, iter_max: int = 10) -> KMeansResult:
    """R's ``kmeans(x, k)`` (Hartigan-Wong, ``iter.max``, ``nstart = 1``) with R's stream ``rng``.

    Parameters
    ----------
    x : array_like, shape (m, p)
        The records.
    k : int
        Number of clusters (R's ``centers`` as a number).
    rng : RRandom
        R's stream; advanced as ``sample.int`` advances it.
    iter_max : int
        R's ``iter.max``.

    Raises
    ------
    KMeansError
        Where R stops, with R's message.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if isinstance(k, (bool, np.bool_)) or int(k) != k or k < 1:
        raise KMeansError(f"invalid number of clusters k = {k!r}")
    k = int(k)
    if int(iter_max) != iter_max or iter_max < 1:
        raise KMeansError("'iter.max' must be positive")
    centers = initial_centers(x, k, rng)
    if not np.isfinite(x).all():
        raise KMeansError("NA/NaN/Inf in foreign function call (arg 1)")
    if k > 1 and k >= x.shape[0]:
        raise KMeansError("number of cluster centres must lie between 1 and nrow(x)")
    if k == 1:
        return _one_cluster(x)
    return hartigan_wong(x, centers, int(iter_max))


def _one_cluster(x: np.ndarray) -> KMeansResult:
    """R's ``k = 1`` (MacQueen's algorithm): all records in one cluster."""
    m, p = x.shape
    lab = np.zeros(m, dtype=np.int64)
    centre = np.array([np.bincount(lab, weights=x[:, j], minlength=1)[0] for j in range(p)]) / m
    sq = (x - centre) ** 2
    wss = np.bincount(np.zeros(m * p, dtype=np.int64), weights=sq.ravel(), minlength=1)  # record after record
    return KMeansResult(np.ones(m, dtype=np.int64), centre[None, :], np.array([m]), wss, 1, None, ())


def _means(x: np.ndarray, ic1: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Cluster sums added record after record, and the sizes."""
    nc = np.bincount(ic1, minlength=k)
    sums = np.stack([np.bincount(ic1, weights=x[:, j], minlength=k) for j in range(x.shape[1])], axis=1)
    return sums, nc


class _State:
    """AS 136's working arrays (clusters 0-based; record positions and LIVE/NCP in the algorithm's 1-based steps)."""

    __slots__ = ("x", "m", "k", "c", "ic1", "ic2", "nc", "an1", "an2", "ncp", "d", "itran", "live", "indx")

    def transfer(self, i: int, l1: int, l2: int) -> None:
        """Record ``i`` (0-based) moves from cluster ``l1`` to ``l2``: centres, sizes, AN1/AN2, IC1/IC2."""
        al1 = float(self.nc[l1])
        alw = al1 - 1.0
        al2 = float(self.nc[l2])
        alt = al2 + 1.0
        a = self.x[i]
        self.c[l1] = (self.c[l1] * al1 - a) / alw
        self.c[l2] = (self.c[l2] * al2 + a) / alt
        self.nc[l1] -= 1
        self.nc[l2] += 1
        self.an2[l1] = alw / al1
        self.an1[l1] = alw / (alw - 1.0) if alw > 1.0 else _BIG
        self.an1[l2] = alt / al2
        self.an2[l2] = alt / (alt + 1.0)
        self.ic1[i] = l2
        self.ic2[i] = l1


def _first_true(mask: np.ndarray) -> int:
    """Position of the first True, or ``mask.size``."""
    j = int(mask.argmax()) if mask.size else 0
    return j if mask.size and mask[j] else mask.size


#: relative gap below which two candidates' R2 values count as a near-tie (the published comparison
#: ``DC < R2 / AN2(L)`` and the product ``DC * AN2(L)`` differ by a few ulps only)
_NEAR = 1e-12


def _optra_targets(s: _State, d: np.ndarray, step: np.ndarray, l1: np.ndarray, ll: np.ndarray):
    """For a block of records: the cluster L2 with the minimum R2 among the live candidates, and that R2.

    The published algorithm runs through the clusters in order, keeping R2 and replacing it when
    ``DC < R2 / AN2(L)``. When the smallest candidate value ``DC * AN2(L)`` is apart from every other by
    more than a few ulps that running minimum ends at the first smallest candidate, so it is taken at once;
    the rows with a near-tie run through the clusters in order as the published algorithm does."""
    n, k = d.shape
    rows = np.arange(n)
    v = d * s.an2
    elig = (step[:, None] < s.live[None, :]) | (step < s.live[l1])[:, None]
    elig[rows, l1] = False
    elig[rows, ll] = True
    vm = np.where(elig, v, np.inf)
    l2 = vm.argmin(axis=1)
    r2 = vm[rows, l2]
    tie = (vm <= (r2 * (1.0 + _NEAR))[:, None]).sum(axis=1) > 1
    if tie.any():
        t = np.flatnonzero(tie)
        dt, l1t, llt, et = d[t], l1[t], ll[t], elig[t]
        l2t = llt.copy()
        r2t = dt[np.arange(t.size), llt] * s.an2[llt]
        for c in range(k):  # clusters, not records: R2 is carried from cluster to cluster
            upd = et[:, c] & (l1t != c) & (llt != c) & (dt[:, c] < r2t / s.an2[c])
            r2t = np.where(upd, dt[:, c] * s.an2[c], r2t)
            l2t = np.where(upd, c, l2t)
        l2[t] = l2t
        r2[t] = r2t
    return l2, r2


def _optra(s: _State) -> bool:
    """The optimal-transfer stage; True when no record moved in the last m steps (converged)."""
    m = s.m
    s.live[s.itran == 1] = m + 1
    i0 = 0
    block = 256
    while i0 < m:
        stop = m - s.indx - 1 + i0  # the record at which INDX reaches m if nothing moves before
        i1 = min(m, i0 + block, stop + 1)
        n = i1 - i0
        step = np.arange(i0 + 1, i1 + 1)  # the algorithm's 1-based record numbers
        d = _sqdist(s.x[i0:i1], s.c)
        l1 = s.ic1[i0:i1]
        ll = s.ic2[i0:i1]
        act = s.nc[l1] != 1
        dn = np.where(s.ncp[l1] != 0, d[np.arange(n), l1] * s.an1[l1], s.d[i0:i1])
        l2, r2 = _optra_targets(s, d, step, l1, ll)
        moves = act & (r2 < dn)
        ft = _first_true(moves)
        keep = act[:ft]
        np.copyto(s.d[i0:i0 + ft], dn[:ft], where=keep)
        np.copyto(s.ic2[i0:i0 + ft], l2[:ft], where=keep)
        if ft < n:
            i = i0 + ft
            a, b = int(l1[ft]), int(l2[ft])
            s.d[i] = dn[ft]
            s.indx = 0
            s.live[a] = m + i + 1
            s.live[b] = m + i + 1
            s.ncp[a] = i + 1
            s.ncp[b] = i + 1
            s.transfer(i, a, b)
            i0 = i + 1
            block = max(_MIN_BLOCK, 2 * (ft + 1))
            continue
        s.indx += n
        if s.indx == m:
            return True
        i0 = i1
        block = min(_MAX_BLOCK, 2 * block)
    s.itran[:] = 0
    s.live -= m
    return False


def _qtran(s: _State, imaxqtr: int) -> bool:
    """The quick-transfer stage; False when the steps exceeded ``imaxqtr`` (R's ifault 4)."""
    m = s.m
    icoun = 0
    istep = 0
    i0 = 0
    block = 256
    while True:
        # events in this block: the step limit, m steps without a move, a move
        t_max = imaxqtr - istep - 1  # the first position whose step reaches imaxqtr (not processed)
        t_c = m - icoun - 1  # the position at which ICOUN reaches m
        i1 = min(m, i0 + block, i0 + t_c + 1, i0 + max(t_max, 0) + 1)
        n = i1 - i0
        steps = np.arange(istep + 1, istep + 1 + n)
        l1 = s.ic1[i0:i1]
        l2 = s.ic2[i0:i1]
        n1 = s.ncp[l1]
        act = s.nc[l1] != 1
        recompute = act & (steps <= n1)
        test = act & ((steps < n1) | (steps < s.ncp[l2]))
        if t_max < n:
            recompute[t_max:] = False
            test[t_max:] = False
        moves = np.zeros(n, dtype=bool)
        cand = np.flatnonzero(recompute | test)
        dn = None
        if cand.size:
            xc = s.x[i0 + cand]
            a1, a2 = l1[cand], l2[cand]
            dn = np.where(recompute[cand], _sqdist_rows(xc, s.c[a1]) * s.an1[a1], s.d[i0 + cand])
            moves[cand] = test[cand] & ~(_sqdist_rows(xc, s.c[a2]) >= dn / s.an2[a2])
        ft = _first_true(moves)
        upto = min(ft + 1, n)
        if t_max < n:
            upto = min(upto, t_max)
        if cand.size:
            sel = recompute[cand] & (cand < upto)
            s.d[i0 + cand[sel]] = dn[sel]
        if t_max < n and ft >= t_max:
            return False
        if ft < n:
            i = i0 + ft
            a, b = int(l1[ft]), int(l2[ft])
            istep += ft + 1
            icoun = 0
            s.indx = 0
            s.itran[a] = 1
            s.itran[b] = 1
            s.ncp[a] = istep + m
            s.ncp[b] = istep + m
            s.transfer(i, a, b)
            i0 = i + 1
            block = max(_MIN_BLOCK, 2 * (ft + 1))
        else:
            istep += n
            icoun += n
            if icoun == m:
                return True
            i0 = i1
            block = min(_MAX_BLOCK, 2 * block)
        if i0 == m:
            i0 = 0


def hartigan_wong(x: np.ndarray, centers: np.ndarray, iter_max: int = 10) -> KMeansResult:
    """AS 136 from the initial ``centers`` (k >= 2 distinct rows), with R's ``iter.max`` and step limit."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    m, p = x.shape
    k = centers.shape[0]
    # 1. the two nearest centres of each record (ties: the first centre)
    ic1 = np.empty(m, dtype=np.int64)
    ic2 = np.empty(m, dtype=np.int64)
    for a in range(0, m, 1 << 16):  # blocks of records, for memory
        d = _sqdist(x[a:a + (1 << 16)], centers)
        swap = d[:, 0] > d[:, 1]
        b1 = np.where(swap, 1, 0)
        b2 = np.where(swap, 0, 1)
        dt1 = np.where(swap, d[:, 1], d[:, 0])
        dt2 = np.where(swap, d[:, 0], d[:, 1])
        for c in range(2, k):  # clusters, not records
            db = d[:, c]
            closer = db < dt2
            best = closer & (db < dt1)
            second = closer & ~best
            b2 = np.where(best, b1, np.where(second, c, b2))
            dt2 = np.where(best, dt1, np.where(second, db, dt2))
            b1 = np.where(best, c, b1)
            dt1 = np.where(best, db, dt1)
        ic1[a:a + d.shape[0]] = b1
        ic2[a:a + d.shape[0]] = b2
    # 2. the centres as the means
    sums, nc = _means(x, ic1, k)
    if (nc == 0).any():
        raise KMeansError("empty cluster: try a better set of initial centers")
    aa = nc.astype(np.float64)
    s = _State()
    s.x, s.m, s.k = x, m, k
    s.c = sums / aa[:, None]
    s.ic1, s.ic2, s.nc = ic1, ic2, nc.astype(np.int64)
    s.an2 = aa / (aa + 1.0)
    with np.errstate(divide="ignore"):
        s.an1 = np.where(aa > 1.0, aa / (aa - 1.0), _BIG)
    s.itran = np.ones(k, dtype=np.int64)
    s.ncp = np.full(k, -1, dtype=np.int64)
    s.live = np.zeros(k, dtype=np.int64)
    s.d = np.zeros(m)
    s.indx = 0
    imaxqtr = min(2**31 - 1, 50 * m)
    ifault = 2
    it = iter_max + 1
    for ij in range(1, iter_max + 1):
        if _optra(s):
            ifault, it = 0, ij
            break
        if not _qtran(s, imaxqtr):
            ifault, it = 4, ij
            break
        if k == 2:
            ifault, it = 0, ij
            break
        s.ncp[:] = 0
    # 3. centres and within sums of squares from the final clusters (record after record; WSS variable after
    # variable, each over the records)
    sums, nc = _means(x, s.ic1, k)
    cen = sums / nc.astype(np.float64)[:, None]
    sq = (x - cen[s.ic1]) ** 2
    wss = np.bincount(np.tile(s.ic1, p), weights=sq.T.ravel(), minlength=k)
    warns = []
    if ifault == 4:
        warns.append(QTRAN_EXCEEDED.format(imaxqtr))
    if it > iter_max:
        warns.append(NOT_CONVERGED.format(iter_max) if iter_max != 1 else "did not converge in 1 iteration")
    return KMeansResult(s.ic1 + 1, cen, nc, wss, it, ifault, tuple(warns))
