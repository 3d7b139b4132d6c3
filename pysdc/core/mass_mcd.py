"""MASS's ``cov.mcd`` (``cov.rob(method = "mcd")``, MASS 7.3-58), as sdcMicro's ``mcdpca`` and ``clustmcdpca``
microaggregation methods call it (issue 28, family 3).

What MASS does (observed by running it; pinned by ``r_reference/outputs/microaggregation_clust.json``):
the variables are divided by their interquartile ranges (a zero IQR stops it); subsets of ``p + 1`` records --
all of them in order when there are fewer than 5000, else ``min(500 (p + 1), 3000)`` drawn from R's random
stream (``(int)(n * unif_rand())`` without replacement) -- are each the start of up to four concentration steps:
the squared Mahalanobis distances of all records to the subset's mean under its covariance (LINPACK's QR,
R's ``dqrdc2`` with tolerance 1e-7: a rank-deficient subset is skipped), the ``quan = floor((n + p + 1) / 2)``
nearest records (all records up to the ``quan``-th distance; the first ``quan`` of them in record order form
the next subset), the log-determinant compared with the previous one (a step keeping less than 0.1 % stops).
The start with the smallest criterion wins (the first on ties); its records within the limit are the
``best`` set. Then in R: the mean and the covariance of ``best`` (inflated by ``(1 + 15 / (n - p))^2``), the
Mahalanobis distances of all records, the records closer than ``qchisq(0.975, p) * quantile(d, quan / n) /
qchisq(quan / n, p)``, and their mean and covariance (rescaled), with ``cor = TRUE`` the correlation matrix.

The discrete choices (subsets, limits) follow MASS's arithmetic step by step (sequential sums as the
reference BLAS: ``dnrm2``, ``ddot``, ``daxpy``); the final covariance is computed as R does it up to the last
bits of its LAPACK routines, which only decide the order of records with equal-to-rounding scores.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import chi2

__all__ = ["MCDError", "dqrdc2", "cov_mcd"]

_LD = np.longdouble


class MCDError(ValueError):
    """Where MASS's cov.rob stops (the message is R's)."""


def _nrm2(v: np.ndarray) -> float:
    """The reference BLAS's ``dnrm2`` for values of ordinary size: the squares added in order, the root."""
    return float(np.sqrt(np.cumsum(v * v)[-1])) if v.size else 0.0


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.cumsum(a * b)[-1]) if a.size else 0.0


def dqrdc2(x: np.ndarray, tol: float = 1e-7) -> tuple[np.ndarray, int, np.ndarray]:
    """R's LINPACK ``dqrdc2`` (Householder QR with limited column pivoting): the compact QR, the rank, qraux.

    Columns whose norm falls below ``tol`` times their original norm are moved to the end; MASS only needs
    the full-rank case (then no column moves)."""
    a = np.array(x, dtype=np.float64, order="F", copy=True)
    n, p = a.shape
    qraux = np.array([_nrm2(a[:, j]) for j in range(p)])
    work1 = qraux.copy()
    work2 = np.where(qraux == 0.0, 1.0, qraux)
    k = p + 1
    for jc in range(min(n, p)):  # columns
        while jc + 1 < k and qraux[jc] < work2[jc] * tol:  # move the negligible column to the end
            perm = list(range(jc)) + list(range(jc + 1, p)) + [jc]
            a, qraux, work1, work2 = a[:, perm], qraux[perm], work1[perm], work2[perm]
            k -= 1
        if jc == n - 1:
            break
        nrmxl = _nrm2(a[jc:, jc])
        if nrmxl == 0.0:
            continue
        if a[jc, jc] != 0.0:
            nrmxl = math.copysign(nrmxl, a[jc, jc])
        a[jc:, jc] *= 1.0 / nrmxl
        a[jc, jc] = 1.0 + a[jc, jc]
        for j in range(jc + 1, p):
            t = -_dot(a[jc:, jc], a[jc:, j]) / a[jc, jc]
            a[jc:, j] += t * a[jc:, jc]
            if qraux[j] == 0.0:
                continue
            tt = max(1.0 - (abs(a[jc, j]) / qraux[j]) ** 2, 0.0)
            if abs(tt) < 1e-6:
                qraux[j] = _nrm2(a[jc + 1:, j])
                work1[j] = qraux[j]
            else:
                qraux[j] = qraux[j] * math.sqrt(tt)
        qraux[jc] = a[jc, jc]
        a[jc, jc] = -nrmxl
    rank = min(k - 1, n)
    return a, rank, qraux


def _do_one(x: np.ndarray, rows: np.ndarray, nnew: int):
    """MASS's ``do_one``: the log-determinant of the subset ``rows[:nnew]`` (its centred QR) and the squared
    Mahalanobis distances of all records, or None when the subset is rank-deficient."""
    sub = x[rows[:nnew]]
    means = np.cumsum(sub, axis=0)[-1] / nnew  # sum += ..., then sum /= nnew
    a, rank, _ = dqrdc2(sub - means)
    p = x.shape[1]
    if rank < p:
        return None
    det = float(np.cumsum(np.log(np.abs(np.diag(a)[:p])))[-1])
    q = x - means
    work = np.empty_like(q)
    ss = np.zeros(x.shape[0])
    for j in range(p):  # forward solve R' b = x - mean, variable after variable
        s = q[:, j].copy()
        for i in range(j):
            s -= work[:, i] * a[i, j]
        work[:, j] = s / a[j, j]
        ss += work[:, j] * work[:, j]
    return det, ss * (nnew - 1)


def _kth(d2: np.ndarray, k: int) -> float:
    return float(np.partition(d2, k)[k])


def lqs_subsets(n: int, ps: int, nsamp: int, rng):
    """MASS's (lqs / cov.mcd) subsets of ``ps`` of ``n`` records: every one in lexicographic order when ``rng`` is
    None, else ``nsamp`` drawn without replacement from R's stream (``rng.unif_rand``) as MASS draws them."""
    if rng is None:  # every subset, in lexicographic order
        for c in itertools.combinations(range(n), ps):
            yield np.asarray(c, dtype=np.int64)
        return
    for _ in range(nsamp):  # MASS's sample_noreplace on R's stream
        ind = np.arange(n)
        nn = n
        out = np.empty(ps, dtype=np.int64)
        for i in range(ps):
            j = int(nn * rng.unif_rand())
            out[i] = ind[j]
            nn -= 1
            ind[j] = ind[nn]
        yield out


def _fitlots(x: np.ndarray, quan: int, rng, nsamp: int) -> np.ndarray:
    """MASS's ``mve_fitlots`` with ``mcd = 1``: the records of the best start's final subset (``bestone``)."""
    n, p = x.shape
    best = math.inf
    bestone = np.zeros(n, dtype=bool)
    thiscrit = 0.0
    for which in lqs_subsets(n, p + 1, nsamp, rng):
        r = _do_one(x, which, p + 1)
        if r is None:
            continue
        det, d2 = r
        lim = _kth(d2, quan - 1)
        for it in range(4):  # concentration steps
            if it > 0:
                lim = _kth(d2, quan - 1)
            which2 = np.flatnonzero(d2 <= lim)
            r = _do_one(x, which2, quan)
            if r is not None:  # MASS ignores a singular step: det and d2 stay
                det, d2 = r
            if it > 0 and 2 * det >= 0.999 * thiscrit:
                break
            thiscrit = 2 * det
        if thiscrit < best:
            best = thiscrit
            bestone = d2 <= lim
    return bestone


def _r_quantile(v: np.ndarray, prob: float) -> float:
    """R's ``quantile(v, prob)`` (type 7)."""
    s = np.sort(v)
    index = 1 + (s.size - 1) * prob
    lo, hi = math.floor(index), math.ceil(index)
    q = s[lo - 1]
    if index > lo and s[hi - 1] != q:
        h = index - lo
        q = (1 - h) * q + h * s[hi - 1]
    return float(q)


def _r_var(x: np.ndarray) -> np.ndarray:
    """R's ``var`` of complete columns: long double means (with the correction pass), long double products."""
    n = x.shape[0]
    xl = x.astype(_LD)
    m = np.cumsum(xl, axis=0)[-1] / n
    m = m + np.cumsum(xl - m, axis=0)[-1] / n
    d = x - m.astype(np.float64)
    out = np.empty((x.shape[1], x.shape[1]))
    for i in range(x.shape[1]):
        for j in range(x.shape[1]):
            out[i, j] = float(np.cumsum(d[:, i].astype(_LD) * d[:, j].astype(_LD))[-1] / (n - 1))
    return out


def _r_col_means(x: np.ndarray) -> np.ndarray:
    return (np.cumsum(x.astype(_LD), axis=0)[-1] / x.shape[0]).astype(np.float64)


def _iqr(v: np.ndarray) -> float:
    return _r_quantile(v, 0.75) - _r_quantile(v, 0.25)


def cov_mcd(x: np.ndarray, rng=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MASS's ``cov.mcd(x)``: its ``center``, ``cov`` and ``best`` (0-based records).

    ``rng`` (pysdc.core.rrandom.RRandom): R's stream, used when there are 5000 subsets of ``p + 1`` records or
    more. Raises :class:`MCDError` where MASS stops."""
    n, p = x.shape
    if n < p + 1:
        raise MCDError(f"at least {p + 1} cases are needed")
    quan = (n + p + 1) // 2
    if quan < p + 1:
        raise MCDError(f"'quantile' must be at least {p + 1}")
    if quan > n - 1:
        raise MCDError(f"'quantile' must be at most {n - 1}")
    divisor = np.array([_iqr(x[:, j]) for j in range(p)])
    if (divisor == 0).any():
        raise MCDError("at least one column has IQR 0")
    xs = x / divisor
    nexact = math.comb(n, p + 1)
    sample = nexact >= 5000
    if sample and rng is None:
        raise MCDError("needs R's random stream")  # the caller passes one
    bestone = _fitlots(xs, quan, rng if sample else None, min(500 * (p + 1), 3000) if sample else nexact)
    best = np.flatnonzero(bestone)
    if not best.size:
        raise MCDError("'x' is probably collinear")
    means = _r_col_means(xs[best])
    rcov = _r_var(xs[best]) * (1 + 15 / (n - p)) ** 2
    dc = xs - means
    try:
        inv = np.linalg.inv(rcov)
    except np.linalg.LinAlgError:
        inv = None
    if inv is None or not np.isfinite(inv).all() or \
            1.0 / (np.abs(rcov).sum(axis=0).max() * np.abs(inv).sum(axis=0).max()) < np.finfo(float).eps:
        raise MCDError("system is computationally singular (R's solve in mahalanobis)")
    dist = (np.cumsum(((dc @ inv) * dc).astype(_LD), axis=1)[:, -1]).astype(np.float64)
    cut = chi2.ppf(0.975, p) * _r_quantile(dist, quan / n) / chi2.ppf(quan / n, p)
    sel = dist < cut
    cov = divisor[:, None] * _r_var(xs[sel]) * divisor[None, :]
    centre = _r_col_means(xs[sel]) * divisor
    return centre, cov, best


def mcd_pca_scores(x: np.ndarray, rng=None) -> np.ndarray:
    """The first-component scores sdcMicro's ``mcdpca`` sorts by: ``princomp(scale(x, center, sqrt(diag(cor))),
    covmat = cov.mcd(x, cor = TRUE))`` (the eigenvector of the MCD covariance with the largest eigenvalue, its
    first element made non-negative; the data centred twice by the MCD centre, as princomp does with covmat)."""
    centre, cov, _ = cov_mcd(x, rng)
    sd = np.sqrt(np.diag(cov))
    scale = np.sqrt((np.diag(cov) / sd) / sd)
    vals, vecs = np.linalg.eigh(cov)
    if vals.min() < 0 and vals.min() < -9 * np.finfo(float).eps * vals.max():
        raise MCDError("covariance matrix is not non-negative definite")
    v = vecs[:, np.argmax(vals)]
    if v[0] < 0:
        v = -v
    z = (x - centre) / scale - centre
    score = np.zeros(x.shape[0])
    for j in range(x.shape[1]):  # variables, added in order
        score = score + z[:, j] * v[j]
    return score
