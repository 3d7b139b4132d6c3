"""Kernels of sdcMicro's ``shuffle`` (issue 28, family 4): data shuffling (method ``"ds"``) and EGADP.

What sdcMicro 5.8.0 computes, as observed by running it (R 4.2.2) and pinned by
``r_reference/outputs/shuffle.json``; the method is Muralidhar and Sarathy's (2006) data shuffling:

- every column of ``[responses, predictors]`` (the model-matrix columns, intercept dropped) goes to its
  normal scores ``qnorm((rank - 0.5) / n)`` (average ranks for ties);
- the correlation of the original columns (Spearman: the Pearson correlation of the ranks, or Pearson)
  becomes ``C = 2 sin(pi r / 6)``; with its blocks ``C_xs`` (responses x predictors), ``C_ss``, ``C_xx``
  the perturbed responses are ``Y* = Z_s (C_xs C_ss^-1)' + e``, ``e ~ mvrnorm(0, C_xx - C_xs C_ss^-1 C_sx)``
  on R's stream;
- shuffling: in each response column the record with the k-th smallest ``Y*`` gets the k-th smallest
  original value (equal ``Y*`` in record order);
- EGADP (``gadp = TRUE``, always computed after the shuffle, also drawing from the stream): residuals
  and fitted values of the (weighted) regression of the responses on the predictors, ``V ~ mvrnorm(mean,
  cov(responses))``, the residuals of the regression of V on predictors and responses; the result is
  ``fitted + res_V cov(res_V)^-1 cov(res)^-1`` with each inverse formed as sdcMicro does (the square of
  the symmetric square root from the eigen decomposition, then ``solve``). Note that this is not the
  published EGADP formula (which scales by the square roots); pysdc repeats sdcMicro's arithmetic.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.stats

from .._errors import InvalidParameterError
from .noise import blas_matmul, r_col_means_narm, r_cov_complete
from .rdist import eigen_symmetric, mvrnorm, qnorm
from .rrandom import RRandom

__all__ = ["normal_scores", "r_cov", "r_cor", "reverse_map", "ds_perturb", "egadp", "impute_rows"]


def normal_scores(x: np.ndarray) -> np.ndarray:
    """``qnorm((rank(x, ties = "average") - 0.5) / n)`` of each column."""
    n = x.shape[0]
    r = scipy.stats.rankdata(x, method="average", axis=0)
    return qnorm(((r - 0.5) / n).ravel()).reshape(x.shape)


def r_cov(x: np.ndarray, method: str = "spearman") -> np.ndarray:
    """R's ``cov(x, method = "spearman" | "pearson")`` of a complete matrix (Spearman: of the ranks)."""
    if method == "spearman":
        x = scipy.stats.rankdata(x, method="average", axis=0)
    return r_cov_complete(np.asarray(x, dtype=np.float64))


def r_cor(x: np.ndarray, method: str = "spearman") -> np.ndarray:
    """R's ``cor(x, method = ...)`` of a complete matrix: the covariance divided by the product of the
    standard deviations (the lower triangle, mirrored), clamped to [-1, 1], 1 on the diagonal."""
    c = r_cov(x, method)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.diag(c))
        r = c / (sd[:, None] * sd[None, :])  # one division by the product, as R's cor
    low = np.tril(r, -1)
    r = np.clip(low + low.T + np.diag(np.diag(r)), -1.0, 1.0)
    np.fill_diagonal(r, np.where(np.isfinite(np.diag(r)), 1.0, np.nan))
    return r


def reverse_map(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The values of x put in the order of y: the record with the k-th smallest y (ties in record
    order) gets the k-th smallest x."""
    out = np.empty_like(x, dtype=np.float64)
    out[np.argsort(y, kind="stable")] = np.sort(x)
    return out


def _solve(a: np.ndarray) -> np.ndarray:
    try:
        return scipy.linalg.solve(a, np.eye(a.shape[0]), check_finite=True)
    except (np.linalg.LinAlgError, ValueError, scipy.linalg.LinAlgError) as exc:
        raise InvalidParameterError(
            "shuffle: a correlation or covariance matrix is singular or not finite (as sdcMicro's solve "
            "stops: e.g. a constant or collinear variable, or an unused factor level among the predictors)."
        ) from exc


def ds_perturb(responses: np.ndarray, predictors: np.ndarray, covmethod: str, rr: RRandom) -> np.ndarray:
    """sdcMicro's ``"ds"`` perturbed responses ``Y*`` on the normal-score scale (draws n x r normals)."""
    n, r = responses.shape
    mat = np.column_stack([responses, predictors])
    z = normal_scores(mat)
    pmc = 2 * np.sin(np.pi * r_cor(mat, covmethod) / 6)
    ir = np.arange(r)
    ip = np.arange(r, mat.shape[1])
    pxs = pmc[np.ix_(ir, ip)]
    pssinv = _solve(pmc[np.ix_(ip, ip)])
    b = blas_matmul(pxs, pssinv)
    ystar1 = blas_matmul(z[:, ip], b.T)
    sigma = pmc[np.ix_(ir, ir)] - blas_matmul(b, pmc[np.ix_(ip, ir)])
    e1 = mvrnorm(rr, n, np.zeros(r), sigma, matmul=blas_matmul)
    return ystar1 + e1


def _lm_parts(x: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Fitted values and residuals of ``lm(y ~ x, weights = w)`` (intercept added), y a matrix."""
    a = np.column_stack([np.ones(x.shape[0]), x])
    if w is None:
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    else:
        sw = np.sqrt(w)
        coef, *_ = np.linalg.lstsq(a * sw[:, None], y * sw[:, None], rcond=None)
    fitted = a @ coef
    return fitted, y - fitted


def _inv_square_of_root(c: np.ndarray) -> np.ndarray:
    values, vectors = eigen_symmetric(c)
    with np.errstate(invalid="ignore"):
        y = blas_matmul(blas_matmul(vectors, np.diag(np.sqrt(values))), vectors.T)
    return _solve(blas_matmul(y, y))


def egadp(responses: np.ndarray, predictors: np.ndarray, weights: np.ndarray | None, covmethod: str,
          rr: RRandom) -> np.ndarray:
    """sdcMicro's EGADP result on the original scale (draws n x r normals)."""
    n, r = responses.shape
    y = np.where(responses == np.inf, 1.0, responses)
    x = np.where(predictors == np.inf, 1.0, predictors)
    fitted, res = _lm_parts(x, y, weights)
    cvs = r_cov(res, covmethod)
    v = mvrnorm(rr, n, r_col_means_narm(y), r_cov(y, covmethod), matmul=blas_matmul)
    _, res_v = _lm_parts(np.column_stack([x, y]), v, None)
    cvv = r_cov(res_v, covmethod)
    yr = _inv_square_of_root(cvs)
    yb = _inv_square_of_root(cvv)
    return fitted + blas_matmul(blas_matmul(res_v, yb), yr)


def impute_rows(missing: np.ndarray, rr: RRandom) -> np.ndarray:
    """sdcMicro's imputation of one column before shuffling: each missing record takes the value of a
    record drawn with replacement among the present ones (``sample(present, k, replace = TRUE)``).
    Returns the donor row of each missing record (in record order)."""
    present = np.flatnonzero(~missing)
    k = int(missing.sum())
    if present.size < 2:
        raise InvalidParameterError(
            "shuffle: a column with missing values needs at least two present values to impute from "
            "(sdcMicro's sample() would then draw from 1..x instead).")
    return present[rr.sample(present.size, k, replace=True) - 1]
