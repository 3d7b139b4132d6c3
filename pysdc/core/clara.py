"""k-medoids clustering as R's ``cluster`` package (2.1.4) computes it: ``pam`` and ``clara`` (Euclidean).

Kaufman & Rousseeuw's algorithms (*Finding Groups in Data*, 1990, ch. 2 and 3), with the choices the R
package makes, observed by running it and pinned by stored cases (``r_reference/outputs/microaggregation_clust.json``):

``clara(x, k)`` (defaults ``samples = 5``, ``sampsize = min(n, 40 + 2k)``, ``rngR = FALSE``,
``pamLike = FALSE``):

* the samples are drawn with the package's own generator ``r <- (5761 r + 999) mod 65536`` (starting at
  0, never R's stream), each draw the index ``1 + floor(n * r / 65536)``; a sample is kept sorted, a
  repeated index is drawn again. From the second sample on, the sample starts with the best medoids
  found so far. When the sample is more than half of the data the draws pick the records left *out*
  (never the best medoids). With ``n == sampsize`` one sample (all records) is clustered;
* each sample is clustered by BUILD (each new medoid the last record with the largest gain) and SWAP
  with CLARA's own cost rule (it differs from ``pam``'s: a record whose nearest medoid is removed is
  charged its distance to the candidate whenever its second-nearest medoid is farther than its
  nearest, even when the second-nearest is nearer than the candidate);
* every record is assigned to the nearest medoid of the sample (squared distances compared, the first
  medoid on ties, a medoid to itself); the sample whose sum of distances is smallest (the first on
  ties) wins; its clusters are numbered in the order of their first record;
* the final clustering assigns each record to the nearest of these medoids (distances compared after the
  square root, the first on ties; a medoid to its own cluster).

``pam(x, k)`` (defaults): the Euclidean distances of all pairs, BUILD and SWAP as in ``pam`` (the
original algorithm, ``pamonce = 0``), clusters numbered by their medoid's first record.

Sums run in the order of the C code (a distance adds the squared differences variable after variable;
the costs add record after record) so that ties fall as in R. Missing values are handled as R does them
(``correct.d = TRUE``): coded by ``1.1 max|x|``, distances over the variables both records have, times
``p / present``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ClaraResult", "ClusterError", "clara", "pam"]


@dataclass(frozen=True)
class ClaraResult:
    """The parts of R's ``clara``/``pam`` result that microaggregation reads.

    Attributes
    ----------
    clustering : ndarray of int
        Each record's cluster, 1-based (R's ``$clustering``).
    medoids : ndarray of int
        The medoids' 0-based record indices, cluster by cluster (R's ``$i.med`` / ``$id.med`` minus 1).
    sample : ndarray of int or None
        ``clara``: the 0-based records of the best sample (R's ``$sample`` minus 1); ``pam``: None.
    """

    clustering: np.ndarray
    medoids: np.ndarray
    sample: np.ndarray | None = None


class ClusterError(ValueError):
    """Where R's clara/pam stop (the message is R's)."""


def _sq_dist_to(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, miss: np.ndarray | None = None):
    """Squared Euclidean distances of the records ``rows`` to the records ``cols``: the squared differences added
    variable after variable (as the C code does); with ``miss``, only the variables both records have, and their
    count (else None)."""
    d = np.zeros((rows.size, cols.size))
    npres = None if miss is None else np.zeros((rows.size, cols.size), dtype=np.int64)
    for j in range(x.shape[1]):
        diff = x[rows, j][:, None] - x[cols, j][None, :]
        if miss is None:
            d += diff * diff
        else:
            pres = ~(miss[rows, j][:, None] | miss[cols, j][None, :])
            d += np.where(pres, diff * diff, 0.0)
            npres += pres
    return d, npres


def _dist_matrix(x: np.ndarray, rows: np.ndarray, miss: np.ndarray | None = None) -> np.ndarray | None:
    """The distances of the sample (``dysta2``/``dysta``): with missing values the sum of squares times ``p /
    present``; None when two records share no variable."""
    sq, npres = _sq_dist_to(x, rows, rows, miss)
    if npres is not None:
        off = ~np.eye(rows.size, dtype=bool)
        if (npres[off] == 0).any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            sq = np.where(off, sq * (x.shape[1] / np.maximum(npres, 1)), 0.0)
    d = np.sqrt(sq)
    np.fill_diagonal(d, 0.0)
    return d


def _build(d: np.ndarray, k: int, big: float) -> np.ndarray:
    """BUILD: k medoids, each the last candidate with the largest total gain (gains added record after record)."""
    n = d.shape[0]
    medoid = np.zeros(n, dtype=bool)
    near = np.full(n, big)
    for _ in range(k):
        gain = near[None, :] - d
        gain = np.cumsum(np.where(gain > 0.0, gain, 0.0), axis=1)[:, -1]
        gain[medoid] = -1.0
        best = np.max(gain)
        cand = np.flatnonzero((gain == best) & ~medoid)
        if best < 0.0 or cand.size == 0:  # pragma: no cover - k < n guarantees a candidate
            raise ValueError("BUILD found no candidate")
        m = int(cand[-1])
        medoid[m] = True
        near = np.minimum(near, d[m])
    return medoid


def _nearest_two(d: np.ndarray, medoid: np.ndarray, big: float) -> tuple[np.ndarray, np.ndarray]:
    """Each record's distance to its nearest and second-nearest medoid (a repeated distance counts twice)."""
    dm = d[medoid]  # (k, n)
    if dm.shape[0] == 1:
        return dm[0].copy(), np.full(d.shape[0], big)
    part = np.sort(dm, axis=0)
    return part[0].copy(), part[1].copy()


def _swap(d: np.ndarray, medoid: np.ndarray, big: float, pam_rule: bool, sky: float | None = None) -> np.ndarray:
    """SWAP until no exchange lowers the total distance; the first (candidate, medoid) pair with the lowest cost.

    ``pam_rule``: pam's cost and its stopping rule (a swap only when it lowers the total by more than
    ``16 * eps * total``, the running total ``sky``); else clara's cost, a swap whenever the cost is negative.
    """
    medoid = medoid.copy()
    n = d.shape[0]
    eps16 = 16.0 * np.finfo(np.float64).eps
    while True:
        da, db = _nearest_two(d, medoid, big)
        hs = np.flatnonzero(~medoid)
        ms = np.flatnonzero(medoid)
        if hs.size == 0:
            return medoid
        di = d[ms][None, :, :]  # (1, K, n)
        is_near = di == da[None, None, :]
        chunk = max(1, int(4_000_000 // max(1, ms.size * n)))
        best, pos = 1.0, -1  # the C code starts from 1 and keeps strict improvements
        for lo in range(0, hs.size, chunk):  # chunks of candidates, to bound the memory
            dh = d[hs[lo:lo + chunk]][:, None, :]  # (H, 1, n)
            if pam_rule:
                small = np.where(db[None, None, :] > dh, dh, db[None, None, :])
            else:  # clara's rule: the candidate's distance whenever the second-nearest is farther than the nearest
                small = np.where(db[None, None, :] > di, dh, db[None, None, :])
            cost = np.where(is_near, -da[None, None, :] + small,
                            np.where(dh < da[None, None, :], -da[None, None, :] + dh, 0.0))
            tot = np.cumsum(cost, axis=2)[:, :, -1].ravel()  # (H, K), added record after record
            m = float(np.min(tot))
            if m < best:
                best, pos = m, lo * ms.size + int(np.flatnonzero(tot == m)[0])
        if pam_rule:
            if not best < -eps16 * abs(sky):
                return medoid
            sky = sky + best
        elif not best < 0.0:
            return medoid
        h, i = hs[pos // ms.size], ms[pos % ms.size]
        medoid[h] = True
        medoid[i] = False


def _randm(state: int) -> tuple[int, float]:
    state = (state * 5761 + 999) & 0xFFFF
    return state, state / 65536.0


def _draw(state: int, n: int) -> tuple[int, int]:
    state, r = _randm(state)
    k = int(n * r + 1.0)
    return state, min(k, n)


def _next_sample(state: int, n: int, nsam: int, best: np.ndarray | None) -> tuple[int, np.ndarray]:
    """One sample (1-based, sorted) and the generator's new state."""
    lrg = n < 2 * nsam
    n_sam = n - nsam if lrg else nsam
    best_set = set() if best is None else {int(v) for v in best}
    sel: list[int] = []
    if best is not None and not lrg:
        sel = sorted(best_set)
    else:
        while True:  # the first draw: only the best medoids are refused
            state, k = _draw(state, n)
            if k not in best_set:
                break
        sel = [k]
    chosen = set(sel)
    while len(sel) < n_sam:
        state, k = _draw(state, n)
        if (lrg and k in best_set) or k in chosen:
            continue
        chosen.add(k)
        sel.append(k)
    sel = sorted(sel)
    if lrg:
        out = np.setdiff1d(np.arange(1, n + 1), np.asarray(sel, dtype=np.int64))
    else:
        out = np.asarray(sel, dtype=np.int64)
    return state, out


def _assign_sample(x: np.ndarray, nr: np.ndarray, miss: np.ndarray | None = None):
    """clara's ``selec``: every record to the nearest sample medoid (squared sums, first on ties, a medoid to
    itself); returns the sum of the distances (added record after record) and the medoids renumbered by the
    order of their clusters' first records; None when a record shares no variable with any medoid.

    With missing values the squared sums are multiplied by ``p / present`` and a medoid is not preferred for
    itself (the C code's other branch)."""
    n = x.shape[0]
    sq, npres = _sq_dist_to(x, np.arange(n), nr, miss)  # (n, k)
    own = np.arange(n)[:, None] == nr[None, :]
    if npres is None:
        best = sq[:, 0].copy()
        which = np.zeros(n, dtype=np.int64)
        for jk in range(1, nr.size):
            take = own[:, jk] | (sq[:, jk] < best)
            best = np.where(take, sq[:, jk], best)
            which = np.where(take, jk, which)
        best = np.where(own.any(axis=1), 0.0, best)
    else:
        ok = own | (npres > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            dsum = np.where(own, 0.0, sq * (x.shape[1] / np.maximum(npres, 1)))
        best = np.full(n, np.nan)
        which = np.full(n, -1, dtype=np.int64)
        for jk in range(nr.size):
            take = ok[:, jk] & ((which < 0) | (dsum[:, jk] < best))
            best = np.where(take, dsum[:, jk], best)
            which = np.where(take, jk, which)
        if (which < 0).any():
            return None
    zb = float(np.cumsum(np.sqrt(best))[-1])
    _, first = np.unique(which, return_index=True)
    order = np.unique(which)[np.argsort(first, kind="stable")]
    return zb, nr[order]


def _final_assign(x: np.ndarray, nrx: np.ndarray, miss: np.ndarray | None = None) -> np.ndarray:
    """clara's ``resul``: each record to the nearest medoid (distances after the square root, the first on ties);
    a medoid to its own cluster. 1-based clusters. With missing values the distance is multiplied by ``p /
    present`` after the root (NaN when nothing is present: then the C code's comparisons keep the first)."""
    n = x.shape[0]
    sq, npres = _sq_dist_to(x, np.arange(n), nrx, miss)
    dist = np.sqrt(sq)
    if npres is None:
        cl = np.argmin(dist, axis=1) + 1  # argmin: the first minimum
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            dist = dist * (x.shape[1] / npres)
        best = dist[:, 0].copy()
        cl = np.ones(n, dtype=np.int64)
        for jk in range(1, nrx.size):
            take = best > dist[:, jk]  # NaN compares false, as in C
            best = np.where(take, dist[:, jk], best)
            cl = np.where(take, jk + 1, cl)
    cl[nrx] = np.arange(1, nrx.size + 1)
    return cl.astype(np.int64)


def clara(x: np.ndarray, k: int, samples: int = 5, sampsize: int | None = None) -> ClaraResult:
    """R's ``cluster::clara(x, k)`` with its defaults (Euclidean, ``rngR = FALSE``, ``pamLike = FALSE``).

    ``x`` is an (n, p) float matrix (NaN for missing values, as R with ``correct.d = TRUE``); ``1 <= k <= n - 1``
    (the caller checks, as R stops). Raises :class:`ClusterError` where R stops.
    """
    x, miss = _with_missing(x)
    n = x.shape[0]
    nsam = min(n, 40 + 2 * k) if sampsize is None else int(sampsize)
    state = 0
    best_nr = None
    best_zb = None
    best_sample = None
    failed = 0
    lost = False
    for _ in range(samples):
        if nsam == n:
            sample = np.arange(1, n + 1)
        else:
            state, sample = _next_sample(state, n, nsam, best_nr)
        rows = sample - 1
        d = _dist_matrix(x, rows, miss)
        if d is None:  # two records of the sample share no variable: the next sample
            failed += 1
            continue
        big = float(np.max(d)) * 1.1 + 1.0 if d.size else 1.0
        medoid = _swap(d, _build(d, k, big), big, pam_rule=False) if k > 1 else _build(d, k, big)
        nr = rows[np.flatnonzero(medoid)]  # 0-based, in sample order
        got = _assign_sample(x, nr, miss)
        if got is None:
            failed += 1
        else:
            zb, nr_ordered = got
            if best_zb is None or best_zb > zb:
                lost = nr_ordered.size < k  # a medoid's cluster went empty (missing values)
                best_zb = zb
                best_nr = nr_ordered + 1
                best_sample = rows
        if nsam == n:
            break
    if failed >= samples or best_nr is None:
        _only_missing(miss)
        raise ClusterError("Each of the random samples contains objects between which no distance can be computed."
                           if failed >= samples else
                           f"For each of the {samples} samples, at least one object was found which could not be "
                           "assigned to a cluster (because of missing values).")
    if lost:
        raise ClusterError(
            "with missing values a medoid of clara's best sample has no record of its own (the records at distance "
            "0 of two medoids go to the first); R's cluster 2.1.4 then returns medoid 0 and reads outside its data "
            "(undefined), so pysdc stops here")
    nrx = best_nr - 1
    return ClaraResult(clustering=_final_assign(x, nrx, miss), medoids=nrx, sample=best_sample)


def _with_missing(x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """R's handling of missing values in clara/pam: they are replaced by ``1.1 * max(|range(x)|)``, and a value
    equal to that code in a column with missing values counts as missing."""
    x = np.array(x, dtype=np.float64, copy=True)
    nan = np.isnan(x)
    if not nan.any():
        return x, None
    code = 1.1 * float(np.max(np.abs([np.nanmin(x), np.nanmax(x)])))
    x[nan] = code
    return x, (x == code) & nan.any(axis=0)[None, :]


def _only_missing(miss: np.ndarray | None) -> None:
    if miss is not None and miss.all(axis=1).any():
        rows = np.flatnonzero(miss.all(axis=1)) + 1
        raise ClusterError(f"Observation(s) {','.join(map(str, rows[:12]))} have *only* NAs --> omit them for "
                           "clustering")


def pam(x: np.ndarray, k: int) -> ClaraResult:
    """R's ``cluster::pam(x, k)`` with its defaults (Euclidean distances, BUILD and the original SWAP).

    ``x`` is an (n, p) float matrix (NaN for missing values); ``1 <= k <= n - 1`` (the caller checks, as R
    stops). Raises :class:`ClusterError` where R stops.
    """
    x, miss = _with_missing(x)
    n = x.shape[0]
    d = _dist_matrix(x, np.arange(n), miss)
    if d is None:
        raise ClusterError("No clustering performed, NAs in the computed dissimilarity matrix.")
    big = float(np.max(d)) * 1.1 + 1.0
    medoid = _build(d, k, big)
    if k > 1:
        near = np.min(d[medoid], axis=0)
        sky = float(np.cumsum(near)[-1])
        medoid = _swap(d, medoid, big, pam_rule=True, sky=sky)
    ms = np.flatnonzero(medoid)
    send = ms[np.argmin(d[ms], axis=0)]  # the first nearest medoid in record order
    send[ms] = ms
    _, first = np.unique(send, return_index=True)
    med_order = np.unique(send)[np.argsort(first, kind="stable")]
    cl = np.empty(n, dtype=np.int64)
    for c, m in enumerate(med_order):  # k clusters
        cl[send == m] = c + 1
    return ClaraResult(clustering=cl, medoids=med_order, sample=None)
