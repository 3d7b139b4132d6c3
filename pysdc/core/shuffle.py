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
  published EGADP formula (which scales by the square roots); pysdc repeats sdcMicro's arithmetic. With
  ``regmethod = "MM"`` the regression of the responses is MASS's ``rlm(method = "MM")``, response by response
  (:mod:`pysdc.core.rlm`: its S-estimate start may draw from the stream first; pinned by ``shuffle_mm.json``).

The other methods (pinned by ``r_reference/outputs/shuffle_more.json``): ``"mvn"`` replaces the data by n draws
of ``mvrnorm(column means, covariance)`` (Spearman: the covariance of the ranks, around the means of the
values) and takes EGADP of the draws' responses on their predictors; ``"ds2"`` takes EGADP of the normal
scores; ``"ds_cov"`` multiplies the *original* predictors by the normal scores' regression coefficients
(Pearson covariances whatever ``covmethod``) and adds ``mvrnorm`` noise with the residual covariance. Each
then shuffles as ``"ds"`` and, with ``gadp``, draws EGADP of the original data after. ``solve`` is LAPACK's
``dgesv`` from the system's library where it loads (R's): SciPy's differs in the last bits, which can flip
the sign LAPACK gives an eigenvector of the noise covariance in ``mvrnorm`` and move every draw.
"""

from __future__ import annotations

import ctypes
import warnings

import numpy as np
import scipy.linalg
import scipy.stats

from .._errors import DegenerateResultWarning, InvalidParameterError
from .eigen import system_lapack
from .mcd import cov_mcd
from .noise import blas_matmul, r_col_means_narm, r_cov_complete
from .rdist import eigen_symmetric, mvrnorm, qnorm
from .rlm import rlm_mm
from .rrandom import RRandom

__all__ = ["normal_scores", "r_cov", "r_cor", "cov_by", "cor_by", "reverse_map", "ds_perturb", "ds2_perturb",
           "ds_cov_perturb", "mvn_perturb", "egadp", "impute_rows"]


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


def _mcd(x: np.ndarray, rr: RRandom):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateResultWarning)
        try:
            return cov_mcd(x, random_state=rr)
        except DegenerateResultWarning as exc:
            raise InvalidParameterError(
                f"shuffle: covmethod='mcd': robustbase's covMcd finds an exact fit or too few records here ({exc}); "
                "pysdc does not follow sdcMicro on that data natively: use the bridge pysdc.r.shuffle.") from exc


def cov_by(x: np.ndarray, method: str, rr: RRandom | None = None) -> np.ndarray:
    """sdcMicro's covariance of a complete matrix: R's ``cov`` (Spearman: of the ranks; Pearson) or, for
    ``"mcd"``, robustbase's ``covMcd(x)$cov`` on the stream ``rr`` (which it advances as R's)."""
    if method == "mcd":
        return np.asarray(_mcd(x, rr).cov, dtype=np.float64)
    return r_cov(x, method)


def cor_by(x: np.ndarray, method: str, rr: RRandom | None = None) -> np.ndarray:
    """sdcMicro's correlation: R's ``cor`` or, for ``"mcd"``, ``covMcd(x, cor = TRUE)$cor`` (R's
    ``cov2cor`` of the MCD covariance) on the stream ``rr``."""
    if method != "mcd":
        return r_cor(x, method)
    v = cov_by(x, "mcd", rr)
    inv = np.sqrt(1.0 / np.diag(v))
    r = inv[:, None] * v * inv[None, :]
    np.fill_diagonal(r, 1.0)
    return r


def reverse_map(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The values of x put in the order of y: the record with the k-th smallest y (ties in record
    order) gets the k-th smallest x."""
    out = np.empty_like(x, dtype=np.float64)
    out[np.argsort(y, kind="stable")] = np.sort(x)
    return out


def _singular(exc=None):
    raise InvalidParameterError(
        "shuffle: a correlation or covariance matrix is singular or not finite (as sdcMicro's solve "
        "stops: e.g. a constant or collinear variable, or an unused factor level among the predictors)."
    ) from exc


def _dgesv_inverse(a: np.ndarray) -> np.ndarray | None:
    """``solve(a)`` by the system's LAPACK ``dgesv`` (the one R calls), or None where none loads."""
    lib = system_lapack()
    if not lib:
        return None
    n = a.shape[0]
    lu = np.array(a, dtype=np.float64, order="F")
    b = np.asfortranarray(np.eye(n))
    ipiv = np.zeros(max(n, 1), dtype=np.int32)
    nn, info = ctypes.c_int(n), ctypes.c_int(0)

    def ptr(arr):
        return arr.ctypes.data_as(ctypes.c_void_p)

    lib.dgesv_(ctypes.byref(nn), ctypes.byref(nn), ptr(lu), ctypes.byref(nn), ptr(ipiv), ptr(b), ctypes.byref(nn),
               ctypes.byref(info))
    if info.value != 0:
        _singular()
    return b


def _solve(a: np.ndarray) -> np.ndarray:
    """R's ``solve(a)``: LU (LAPACK dgesv, the system's where it loads, as R's), refused where R refuses
    (exactly singular, or reciprocal condition number below machine epsilon)."""
    if not np.all(np.isfinite(a)):
        _singular()
    try:
        lu, piv = scipy.linalg.lu_factor(a, check_finite=False)
        (gecon,) = scipy.linalg.lapack.get_lapack_funcs(("gecon",), (lu,))
        rcond, _ = gecon(lu, np.abs(a).sum(axis=0).max(), norm="1")
    except (np.linalg.LinAlgError, ValueError, scipy.linalg.LinAlgError) as exc:
        _singular(exc)
    if np.any(np.diag(lu) == 0) or not rcond >= np.finfo(float).eps:
        _singular()
    inv = _dgesv_inverse(a)
    return inv if inv is not None else scipy.linalg.lu_solve((lu, piv), np.eye(a.shape[0]), check_finite=False)


def ds_perturb(responses: np.ndarray, predictors: np.ndarray, covmethod: str, rr: RRandom) -> np.ndarray:
    """sdcMicro's ``"ds"`` perturbed responses ``Y*`` on the normal-score scale (draws n x r normals)."""
    n, r = responses.shape
    mat = np.column_stack([responses, predictors])
    z = normal_scores(mat)
    pmc = 2 * np.sin(np.pi * cor_by(mat, covmethod, rr) / 6)
    ir = np.arange(r)
    ip = np.arange(r, mat.shape[1])
    pxs = pmc[np.ix_(ir, ip)]
    pssinv = _solve(pmc[np.ix_(ip, ip)])
    b = blas_matmul(pxs, pssinv)
    ystar1 = blas_matmul(z[:, ip], b.T)
    sigma = pmc[np.ix_(ir, ir)] - blas_matmul(b, pmc[np.ix_(ip, ir)])
    e1 = mvrnorm(rr, n, np.zeros(r), sigma, matmul=blas_matmul)
    return ystar1 + e1


def ds_cov_perturb(responses: np.ndarray, predictors: np.ndarray, covmethod: str, rr: RRandom) -> np.ndarray:
    """sdcMicro's ``"ds_cov"`` perturbed responses (draws n x r normals; with ``"mcd"`` first a covMcd of
    ``[responses, predictors]`` whose result sdcMicro does not use, but whose draws it makes).

    The normal scores' Pearson covariances give ``B = cov(Z_x, Z_s) cov(Z_s)^-1``; the perturbed values
    are the *original* predictors times ``B'`` plus ``mvrnorm(0, cov(Z_x) - B cov(Z_s, Z_x))``."""
    n, r = responses.shape
    mat = np.column_stack([responses, predictors])
    if covmethod == "mcd":
        cov_by(mat, "mcd", rr)
    z = normal_scores(mat)
    c = r_cov(z, "pearson")
    ir = np.arange(r)
    ip = np.arange(r, mat.shape[1])
    b = blas_matmul(c[np.ix_(ir, ip)], _solve(c[np.ix_(ip, ip)]))
    ystar = blas_matmul(predictors, b.T)
    sigma = c[np.ix_(ir, ir)] - blas_matmul(b, c[np.ix_(ip, ir)])
    return ystar + mvrnorm(rr, n, np.zeros(r), sigma, matmul=blas_matmul)


def ds2_perturb(responses: np.ndarray, predictors: np.ndarray, weights: np.ndarray | None, covmethod: str,
                rr: RRandom, regmethod: str = "lm") -> np.ndarray:
    """sdcMicro's ``"ds2"``: the EGADP of the normal scores of the responses on those of the predictors
    (weighted as sdcMicro's; draws as :func:`egadp`). With ``"mcd"`` sdcMicro stops (R's ``cor`` has no
    method "mcd") after a covMcd of ``[responses, predictors]``; pysdc refuses before drawing."""
    if covmethod == "mcd":
        raise InvalidParameterError(
            "shuffle: method='ds2' with covmethod='mcd' stops in sdcMicro 5.8.0 (it calls R's cor(method = "
            "'mcd'): \"'arg' should be one of 'pearson', 'kendall', 'spearman'\").")
    r = responses.shape[1]
    z = normal_scores(np.column_stack([responses, predictors]))
    return egadp(z[:, :r], z[:, r:], weights, covmethod, rr, regmethod)


def mvn_perturb(responses: np.ndarray, predictors: np.ndarray, weights: np.ndarray | None, covmethod: str,
                rr: RRandom, regmethod: str = "lm") -> np.ndarray:
    """sdcMicro's ``"mvn"``: n draws of ``mvrnorm(colMeans, cov_by([responses, predictors]))`` (Spearman:
    the covariance of the ranks around the means of the values, as sdcMicro), then the EGADP of their
    response columns on their predictor columns. With ``"mcd"``, covMcd runs (on the stream) also where
    sdcMicro discards its result: on the data before, and on the draws after."""
    n, r = responses.shape
    mat = np.column_stack([responses, predictors])
    if covmethod == "mcd":
        cov_by(mat, "mcd", rr)
    new = mvrnorm(rr, n, r_col_means_narm(mat), cov_by(mat, covmethod, rr), matmul=blas_matmul)
    if covmethod == "mcd":
        cov_by(new, "mcd", rr)
    return egadp(new[:, :r], new[:, r:], weights, covmethod, rr, regmethod)


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


def _rlm_parts(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, rr: RRandom) -> tuple[np.ndarray, np.ndarray]:
    """Fitted values and residuals of MASS's ``rlm(y[, i] ~ x, method = "MM", weights = w)``, response after
    response (each S-estimate start may draw from the stream ``rr``)."""
    design = np.column_stack([np.ones(x.shape[0]), x])
    fitted = np.empty_like(y, dtype=np.float64)
    res = np.empty_like(y, dtype=np.float64)
    for i in range(y.shape[1]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = rlm_mm(design, y[:, i], w, rr)
        if caught:
            warnings.warn("shuffle: MASS's rlm (regmethod='MM') failed to converge in 20 steps for a response "
                          "(sdcMicro warns the same and goes on)", UserWarning, stacklevel=3)
        fitted[:, i] = fit.fitted
        res[:, i] = fit.residuals
    return fitted, res


def egadp(responses: np.ndarray, predictors: np.ndarray, weights: np.ndarray | None, covmethod: str,
          rr: RRandom, regmethod: str = "lm") -> np.ndarray:
    """sdcMicro's EGADP result on the original scale (draws n x r normals; with ``regmethod="MM"`` first the
    draws of MASS's S-estimates, see :mod:`pysdc.core.rlm`)."""
    n, r = responses.shape
    if regmethod == "MM":  # sdcMicro recodes Inf to 1 for lm only
        y, x = responses, predictors
        fitted, res = _rlm_parts(x, y, weights, rr)
    else:
        y = np.where(responses == np.inf, 1.0, responses)
        x = np.where(predictors == np.inf, 1.0, predictors)
        fitted, res = _lm_parts(x, y, weights)
    cvs = cov_by(res, covmethod, rr)
    v = mvrnorm(rr, n, r_col_means_narm(y), cov_by(y, covmethod, rr), matmul=blas_matmul)
    _, res_v = _lm_parts(np.column_stack([x, y]), v, None)
    cvv = cov_by(res_v, covmethod, rr)
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
