"""robustbase's arithmetic on R's random stream: draws, selections, sums and sweeps.

The building blocks of :mod:`pysdc.core.mcd.rstream`: sequential reads of R's ``unif_rand()``,
robustbase's ways of drawing subsets, Hoare/Wirth selection (its tie rule), cross products
accumulated row by row, Gauss-Jordan sweeps, quadratic forms summed in its order, hyperplane
distances, and R's ``mahalanobis`` / ``cov.wt``.
"""

from __future__ import annotations

import math

import numpy as np

from .eispack import _eispack_rs

_EXACT_TOL = 1e-7  # |distance to a hyperplane| below which an observation lies on it


class _Uniforms:
    """Sequential reader of R's unif_rand() draws; ``finish`` advances the stream by what was read."""

    def __init__(self, rr):
        self.rr = rr
        self.work = rr.copy()
        self.buf: list[float] = []
        self.pos = 0

    def __call__(self) -> float:
        if self.pos >= len(self.buf):
            self.buf.extend(self.work.unif_rand(4096).tolist())
        u = self.buf[self.pos]
        self.pos += 1
        return u

    def finish(self):
        self.rr.advance(self.pos)


def _rfrangen(u: _Uniforms, n: int, nsel: int) -> list[int]:
    """nsel distinct 1-based cases out of n: int(u * n) + 1, a repeat is drawn again."""
    out: list[int] = []
    while len(out) < nsel:
        num = int(u() * n) + 1
        if num not in out:
            out.append(num)
    return out


def _insert_unselected(a: list[int], nrand: int) -> None:
    """Insert into the sorted 1-based list a the nrand-th integer not in it."""
    for i, ai in enumerate(a):
        if ai > nrand + i:
            a.insert(i, nrand + i)
            return
    a.append(nrand + len(a))


def _rfrdraw(u: _Uniforms, n: int, mini: list[int]):
    """Nonoverlapping subdatasets: sorted 1-based cases and their group (1-based)."""
    cases: list[int] = []
    groups: list[int] = []
    for k, m in enumerate(mini, start=1):
        for _ in range(m):
            nrand = int(u() * (n - len(cases))) + 1
            # the first position i with cases[i] > nrand + i (cases[i] - i never decreases): bisection
            lo, hi = 0, len(cases)
            while lo < hi:
                mid = (lo + hi) // 2
                if cases[mid] - mid > nrand:
                    hi = mid
                else:
                    lo = mid + 1
            cases.insert(lo, nrand + lo)
            groups.insert(lo, k)
    return np.array(cases, dtype=np.intp), np.array(groups, dtype=np.intp)


def _wirth_select(aw: np.ndarray, k: int, full: bool = False) -> np.ndarray:
    """0-based positions of the k smallest of aw, as Hoare/Wirth's selection leaves them (ties);
    ``full=True``: the whole permutation, in the order the selection leaves it."""
    a = aw.tolist()
    index = list(range(len(a)))
    lo, hi, kk = 0, len(a) - 1, k - 1
    while lo < hi:
        ax = a[kk]
        i, j = lo, hi
        while i <= j:
            while a[i] < ax:
                i += 1
            while a[j] > ax:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                index[i], index[j] = index[j], index[i]
                i += 1
                j -= 1
        if j < kk:
            lo = i
        if kk < i:
            hi = j
    if full:
        return np.array(index, dtype=np.intp)
    return np.sort(np.array(index[:k], dtype=np.intp))


def _select_smallest(dist: np.ndarray, k: int) -> np.ndarray:
    """(K, nn) distances -> (K, k) sorted 0-based positions of the k smallest (Wirth's ties)."""
    K, nn = dist.shape
    if k >= nn:
        return np.broadcast_to(np.arange(nn), (K, nn)).copy()
    v = np.partition(dist, k - 1, axis=1)[:, k - 1]
    mask = dist <= v[:, None]
    amb = mask.sum(axis=1) != k  # more than one distance equal to the k-th: ties to resolve
    out = np.empty((K, k), dtype=np.intp)
    ok = np.flatnonzero(~amb)
    if ok.size:
        out[ok] = np.nonzero(mask[ok])[1].reshape(ok.size, k)
    for r in np.flatnonzero(amb):  # ties at the k-th distance: resolve them as Wirth's selection does
        out[r] = _wirth_select(dist[r], k)
    return out


def _seq_sum(a: np.ndarray) -> np.ndarray:
    """Sum over axis 1 of a (K, m, q) array, adding the rows one after the other (as a loop does).

    NumPy reduces a C-contiguous array over a non-last axis row by row (pairwise summation
    applies only along the last axis), so ``np.add.reduce`` gives the sequential sum; blocks of
    rows carry the running total in as their first row.
    """
    K, m, q = a.shape
    chunk = max(1, (1 << 22) // max(1, q * K))
    if m <= chunk:
        return np.add.reduce(np.ascontiguousarray(a), axis=1)
    total = None
    for lo in range(0, m, chunk):
        block = a[:, lo:lo + chunk]
        if total is not None:
            block = np.concatenate([total[:, None], block], axis=1)
        total = np.add.reduce(np.ascontiguousarray(block), axis=1)
    return total


def _sscp_cov(D: np.ndarray, idx: np.ndarray):
    """Means and covariances (divisor m - 1) of the rows idx (K, m) of D, from raw cross products
    accumulated row by row (the products x_i x_j of the upper triangle; the sums are symmetric).

    The rows are laid out first, (m, K, q) in C order: NumPy then reduces over them one row after
    the other (pairwise summation applies only along the contiguous last axis).
    """
    K, m = idx.shape
    p = D.shape[1]
    iu, ju = np.triu_indices(p)
    q = iu.size
    rows_per = max(1, (1 << 17) // max(1, q * K))  # blocks that stay in cache
    acc1 = acc2 = None
    for lo in range(0, m, rows_per):
        R = D[idx[:, lo:lo + rows_per].T]  # (r, K, p), C order
        P = np.empty(R.shape[:2] + (q,))
        for t in range(q):
            np.multiply(R[:, :, iu[t]], R[:, :, ju[t]], out=P[:, :, t])
        if acc1 is not None:
            R = np.concatenate([acc1[None], R], axis=0)
            P = np.concatenate([acc2[None], P], axis=0)
        acc1 = np.add.reduce(R, axis=0)
        acc2 = np.add.reduce(P, axis=0)
    s2 = np.empty((K, p, p))
    s2[:, iu, ju] = acc2
    s2[:, ju, iu] = acc2
    means = acc1 / m
    cov = (s2 - (m * means)[:, :, None] * means[:, None, :]) / (m - 1)
    return means, cov


def _sweep(C: np.ndarray, eps: float):
    """Gauss-Jordan sweeps of C (K, p, p) in column order: (inverse, log det, first singular column)."""
    A = C.copy()
    K, p, _ = A.shape
    det = np.zeros(K)
    sing = np.full(K, -1)
    with np.errstate(all="ignore"):
        for k in range(p):
            piv = A[:, k, k].copy()
            det = det + np.array([math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)
                                  for v in piv.tolist()])
            newly = (piv < eps) & (sing < 0)
            sing[newly] = k
            rowk = A[:, k, :] / piv[:, None]
            A[:, k, :] = rowk
            b = A[:, :, k].copy()
            upd = A - b[:, :, None] * rowk[:, None, :]
            col = -b / piv[:, None]
            upd[:, :, k] = col
            upd[:, k, :] = rowk
            upd[:, k, k] = 1.0 / piv
            A = upd
    return A, det, sing


def _mahad(D: np.ndarray, means: np.ndarray, cinv: np.ndarray, DF: np.ndarray | None = None) -> np.ndarray:
    """(K, nn) quadratic forms sum_j sum_k (x_j - m_j)(x_k - m_k) S_jk, summed in that order.

    Computed in blocks of observations that stay in cache across the p^2 terms (the result does
    not depend on the block size: each observation's sum is formed in the same order).
    """
    p = D.shape[1]
    K, nn = means.shape[0], D.shape[0]
    src = D if DF is None else DF  # DF: the same data in column-major order (faster columns)
    out = np.empty((K, nn))
    step = max(1024, (1 << 15) // max(1, K))
    coef = [[cinv[:, j, k][:, None] for k in range(p)] for j in range(p)]
    for lo in range(0, nn, step):
        hi = min(nn, lo + step)
        cols = [src[lo:hi, j][None, :] - means[:, j][:, None] for j in range(p)]  # (K, b) each
        t = np.zeros((K, hi - lo))
        tmp = np.empty_like(t)
        prod = {}  # (x_j - m_j)(x_k - m_k) for j < k, used again (bit for bit the same) at (k, j)
        for j in range(p):
            for k in range(p):
                pk = prod.pop((k, j), None)
                if pk is None:
                    pk = cols[j] * cols[k]
                    if k > j:
                        prod[(j, k)] = pk
                np.multiply(pk, coef[j][k], out=tmp)
                t += tmp
        out[:, lo:hi] = t
    return out


def _hyperplane(C: np.ndarray):
    """Normal vector of the hyperplane of a singular covariance: the eigenvector of its smallest
    eigenvalue as EISPACK's rs computes it."""
    _, Z = _eispack_rs(C)
    return Z[:, 0]


def _plane_dist(D: np.ndarray, z: np.ndarray, means: np.ndarray) -> np.ndarray:
    t = np.zeros(D.shape[0])
    for j in range(D.shape[1]):
        t = z[j] * (D[:, j] - means[j]) + t
    return np.abs(t)


def _gram_cols(Z: np.ndarray) -> np.ndarray:
    """Z' Z from column products (no multithreaded BLAS call: it stalls on a busy machine)."""
    p = Z.shape[1]
    G = np.empty((p, p))
    for j in range(p):  # loop over pairs of variables
        for k in range(j, p):
            G[j, k] = G[k, j] = np.add.reduce(Z[:, j] * Z[:, k])
    return G


def _r_mahalanobis(X: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """R's mahalanobis(X, center, cov): squared distances, in blocks of records kept in cache."""
    S = np.linalg.inv(cov)
    n, p = X.shape
    out = np.empty(n)
    step = 1 << 15
    for lo in range(0, n, step):
        cols = [X[lo:lo + step, j] - center[j] for j in range(p)]  # loop over variables
        t = np.zeros(cols[0].shape)
        for j in range(p):
            y = cols[0] * S[0, j]
            for k in range(1, p):
                y += cols[k] * S[k, j]
            t += y * cols[j]
        out[lo:lo + step] = t
    return out


def _r_cov_wt(X: np.ndarray, w: np.ndarray):
    """R's cov.wt(x, wt = w): weights normalised to sum 1, unbiased divisor 1 - sum(wt^2)."""
    wt = w / w.sum()
    center = (wt[:, None] * X).sum(axis=0)
    Z = np.sqrt(wt)[:, None] * (X - center)
    return center, _gram_cols(Z) / (1 - (wt * wt).sum())
