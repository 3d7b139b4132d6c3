"""Kernels of sdcMicro's ``addNoise`` (issue 28, family 4), on R's random stream.

Every function takes the numeric matrix (n, p) with NaN for NA and an :class:`RRandom` positioned
where R's stream is, and returns the perturbed matrix; the stream advances as R's does. The
arithmetic is sdcMicro 5.8.0's as observed (R 4.2.2): R's ``mean``, ``sd``, ``cov`` and ``colMeans``
accumulate in long double (:func:`r_mean`, :func:`r_cov_complete`), R's ``%*%`` is the reference
BLAS ``dgemm`` (each entry summed left to right, :func:`blas_matmul`).
"""

from __future__ import annotations

import numpy as np
import scipy.stats

from .._errors import InvalidParameterError
from .distance import r_sd
from .ldsum import ld_dot, ld_sum
from .mcd import cov_mcd
from .rdist import mvrnorm, rnorm
from .rrandom import RRandom

__all__ = ["r_mean", "r_col_means_narm", "r_cov_complete", "blas_matmul", "r_quantile7", "additive",
           "correlated", "correlated2", "restr", "outdect", "outdect_rows", "romm", "RESTR_SMALL_N", "ROMM_MAX_N"]

_LD = np.longdouble
#: sdcMicro's restr uses its small-sample constant below this number of records
RESTR_SMALL_N = 500


def r_mean(v: np.ndarray) -> float:
    """R's ``mean(v, na.rm = TRUE)``: a long double sum in order divided by n, corrected by the mean
    residual (also summed in order: R's loop, not NumPy's pairwise sum)."""
    v = v[~np.isnan(v)]
    m = v.size
    if m == 0:
        return float("nan")
    with np.errstate(invalid="ignore", over="ignore"):
        tmp = ld_sum(v) / _LD(m)
        if np.isfinite(tmp):
            tmp = tmp + ld_sum(v, tmp) / _LD(m)
    return float(tmp)


def r_col_means_narm(x: np.ndarray) -> np.ndarray:
    """R's ``colMeans(x, na.rm = TRUE)``: long double sums over the present values, one pass."""
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.array([ld_sum(x[ok[:, j], j]) for j in range(x.shape[1])], dtype=_LD)
        return (s / cnt.astype(_LD)).astype(np.float64)


def r_cov_complete(x: np.ndarray) -> np.ndarray:
    """R's ``cov(x)`` of a matrix without missing values: R's two-pass means, the values centred and
    multiplied in long double, summed record by record, divided by n - 1 in long double."""
    n, p = x.shape
    means = np.array([r_mean(x[:, j]) for j in range(p)])
    c = np.asfortranarray(x.astype(_LD) - means.astype(_LD))
    out = np.empty((p, p))
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(p):
            s = np.array([ld_dot(c[:, i], c[:, k]) for k in range(i, p)], dtype=_LD)
            v = (s / _LD(n - 1)).astype(np.float64)
            out[i, i:] = v
            out[i:, i] = v
    return out


def blas_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` as the reference BLAS ``dgemm`` R calls: each entry summed over the inner index in
    order, starting from 0 (vectorised over the rows and columns)."""
    out = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):  # loop over the inner dimension (p), not over records
        out += a[:, [k]] * b[[k], :]
    return out


def r_quantile7(v: np.ndarray, prob: float) -> float:
    """R's ``quantile(v, prob, na.rm = TRUE)`` (type 7)."""
    v = np.sort(v[~np.isnan(v)])
    n = v.size
    if n == 0:
        return float("nan")
    index = (n - 1) * prob
    lo = int(np.floor(index))
    hi = int(np.ceil(index))
    qs = v[lo]
    h = index - lo
    if h != 0 and v[hi] != qs:
        qs = (1 - h) * qs + h * v[hi]
    return float(qs)


def additive(x: np.ndarray, noise: float, rr: RRandom) -> np.ndarray:
    """``x + rnorm(n, 0, noise/100 * sd(x, na.rm=TRUE))``, column after column."""
    n, p = x.shape
    sd = r_sd(x) if n else np.full(p, np.nan)
    out = np.empty_like(x)
    for j in range(p):  # columns in order: each takes its n draws from the stream
        np.add(x[:, j], rnorm(rr, n, 0.0, noise / 100 * sd[j]), out=out[:, j])
    return out


def correlated(x: np.ndarray, noise: float, rr: RRandom) -> np.ndarray:
    """``x + MASS::mvrnorm(n, 0, noise/100 * cov(na.omit(x)))``."""
    n, p = x.shape
    if p < 2:
        raise InvalidParameterError("method 'correlated' needs at least 2 variables (as sdcMicro).")
    complete = x[~np.isnan(x).any(axis=1)]
    if complete.shape[0] < 2:
        raise InvalidParameterError(
            "method 'correlated' needs at least 2 records without missing values (sdcMicro's covariance is NA).")
    sigma = noise / 100 * r_cov_complete(complete)
    return x + mvrnorm(rr, n, np.zeros(p), sigma, matmul=blas_matmul)


def correlated2(x: np.ndarray, delta: float, rr: RRandom) -> np.ndarray:
    """``x * d1 + delta * rnorm(n, (1 - d1)/delta * mean(x), sd(x))`` with ``d1 = sqrt(1 - delta^2)``."""
    n, p = x.shape
    d1 = np.sqrt(1 - delta * delta)
    sd = r_sd(x) if n else np.full(p, np.nan)
    out = np.empty_like(x)
    for j in range(p):  # columns in order
        m = r_mean(x[:, j])
        z = rnorm(rr, n, (1 - d1) / delta * m, sd[j])
        z *= delta
        np.add(np.multiply(x[:, j], d1, out=out[:, j]), z, out=out[:, j])
    return out


def restr(x: np.ndarray, noise: float) -> np.ndarray:
    """sdcMicro's ``restr``: ``cc * x + d`` on the data.frame, ``d = (1 - cc) * colMeans(x)``.

    R recycles the p shifts ``d`` over the n x p values in column-major order, so value (i, j)
    gets ``d[(j * n + i) mod p]``, not its own column's shift (sdcMicro's arithmetic; the intended
    ``cc * x[, j] + d[j]`` is :func:`restr_by_column`). No random draws.
    """
    n, p = x.shape
    w = noise / 100
    if n < RESTR_SMALL_N:
        cc = np.sqrt((n - 1 - w) / ((n + 1) * (1 + w)))
    else:
        cc = np.sqrt((n - 1) / (n + n * w - 1))
    d = (1 - cc) * r_col_means_narm(x)
    lin = np.arange(n * p, dtype=np.int64).reshape(p, n).T  # column-major linear index of (i, j)
    return cc * x + d[lin % p] if p else x.copy()


def restr_by_column(x: np.ndarray, noise: float) -> np.ndarray:
    """The intended restr: each column shifted by its own ``(1 - cc) * mean``."""
    n, p = x.shape
    w = noise / 100
    cc = np.sqrt((n - 1 - w) / ((n + 1) * (1 + w))) if n < RESTR_SMALL_N else np.sqrt((n - 1) / (n + n * w - 1))
    return cc * x + (1 - cc) * r_col_means_narm(x)[None, :]


def outdect_rows(x: np.ndarray, rr: RRandom) -> np.ndarray:
    """The records sdcMicro's ``outdect`` perturbs: above a column's 99% quantile, or with a robust
    distance (covMcd, alpha = 1/2, on R's stream) above ``sqrt(qchisq(0.975, p))``; sorted."""
    n, p = x.shape
    uni = set()
    for j in range(p):
        q = r_quantile7(x[:, j], 0.99)
        with np.errstate(invalid="ignore"):
            uni.update(np.flatnonzero(x[:, j] > q).tolist())
    limit = np.sqrt(scipy.stats.chi2.ppf(0.975, p))
    complete = x[~np.isnan(x).any(axis=1)]
    mcd = cov_mcd(complete, alpha=0.5, random_state=rr)
    c = x - mcd.center
    with np.errstate(invalid="ignore"):
        d2 = np.einsum("ij,ij->i", c @ np.linalg.inv(mcd.cov), c)
        rd = np.sqrt(d2)
        multi = np.flatnonzero(rd > limit)
    return np.array(sorted(uni.union(multi.tolist())), dtype=np.int64)


def outdect(x: np.ndarray, noise: float, rr: RRandom) -> np.ndarray:
    """sdcMicro's ``outdect``: noise ``rnorm(k, 0, 1.96 * sd / sqrt(n) * noise/100)`` on the k outliers."""
    n, p = x.shape
    rows = outdect_rows(x, rr)
    sd = r_sd(x)
    w = noise / 100
    out = x.copy()
    for j in range(p):  # columns in order
        out[rows, j] = x[rows, j] + rnorm(rr, rows.size, 0.0, 1.96 * sd[j] / np.sqrt(n) * w)
    return out


#: ROMM builds an n x n matrix; above this many records pysdc refuses (n^2 doubles, O(n^3) operations)
ROMM_MAX_N = 2000


def _seq_colsums(a: np.ndarray) -> np.ndarray:
    """Column sums added in row order (the reference BLAS's dot products), in double."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1])
    return np.cumsum(a, axis=0)[-1]


def romm(x: np.ndarray, p: float, rr: RRandom) -> np.ndarray:
    """sdcMicro's ``ROMM``: ``T %*% x`` with T the Gram-Schmidt orthonormalisation of ``I + p M``, M an
    n x n matrix of ``rnorm(n * n)`` (filled by column). R's products: ``crossprod`` by the reference BLAS
    (sums in order), ``%*%`` by ``dgemv``/``dgemm`` -- or, when x holds a missing value, R's own loop,
    which also sums in order in double."""
    n = x.shape[0]
    m = rnorm(rr, n * n).reshape(n, n, order="F")
    u = np.eye(n) + p * m
    v = u.copy()
    for i in range(1, n):  # Gram-Schmidt: column i against the i columns before it (vectorised over rows)
        prev = v[:, :i]
        num = _seq_colsums(u[:, [i]] * prev)          # crossprod(u[, i], v[, 1:(i-1)])
        den = _seq_colsums(prev * prev)               # diag(crossprod(v[, 1:(i-1)]))
        coef = num / den
        proj = np.cumsum(prev * coef[None, :], axis=1)[:, -1]  # dgemv: the columns summed in order
        v[:, i] = u[:, i] - proj
    scale = 1 / np.sqrt(_seq_colsums(v * v))
    t = v * scale[None, :]
    return blas_matmul(t, x)
