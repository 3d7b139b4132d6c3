"""Log-linear model kernels: Poisson IRLS as R's ``glm.fit`` and IPF as R's ``loglin``.

Arrays in, arrays out. Both reproduce R's iteration exactly (starting values, update,
stopping rule, iteration count), so the fitted values agree with R's to rounding.

* :func:`poisson_glm` -- ``glm(y ~ X, family = poisson(), offset = o)`` with R's defaults
  (``glm.control(epsilon = 1e-8, maxit = 25)``): start ``mu = y + 0.1``,
  ``eta = log(mu)`` (the offset is not subtracted at the start), then iteratively
  reweighted least squares with working response ``z = eta - offset + (y - mu)/mu`` and
  weights ``sqrt(mu)``; stop when ``|dev - dev_old| / (|dev| + 0.1) < epsilon``; step
  halving when the deviance is not finite or ``mu`` leaves ``(0, Inf)``.
* :func:`qr_least_squares` -- least squares with the column handling of R's ``dqrdc2``
  (LINPACK QR with *limited* pivoting, as in ``lm.fit``/``glm.fit``): a column whose norm,
  after removing the earlier kept columns, falls below ``tol`` times its original norm is
  moved to the end; the remaining columns are solved, the moved ones are aliased (their
  coefficient is 0 during the iterations and NA in R's final ``coef``). ``glm.fit`` uses
  ``tol = min(1e-7, epsilon / 1000) = 1e-11``.
* :func:`ipf` -- R's ``loglin`` (algorithm AS 51): cycles over the margins, scaling the
  fit to each observed margin; after a cycle, stop if the largest absolute deviation
  between a fitted and an observed margin seen during the cycle (measured before each
  adjustment) is below ``eps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import get_lapack_funcs, solve_triangular

__all__ = ["GlmFit", "poisson_glm", "qr_least_squares", "poisson_deviance", "ipf"]

#: R's .Machine$double.eps
DOUBLE_EPS = float(np.finfo(float).eps)

_dgeqrf = get_lapack_funcs("geqrf", dtype=np.float64)


def _rsum(x: np.ndarray) -> float:
    """A sum accumulated in long double, as R's ``sum`` accumulates (x86-64: 80-bit extended).

    numpy adds pairwise where R adds in sequence; both carry 64-bit mantissas, so the double they
    round to agrees with R's except in ties at the last bit (measured: no case of the corpus moves).
    ``math.fsum`` (exact) gave the same results but was 10x slower on a 1e6-record grid.
    """
    x = np.asarray(x, dtype=float)
    return float(np.sum(x, dtype=np.longdouble))


def qr_least_squares(a: np.ndarray, b: np.ndarray, tol: float = 1e-7):
    """Least squares ``a @ coef ~ b`` with R's ``dqrdc2`` rank handling.

    Parameters
    ----------
    a : (m, p) array
    b : (m,) array
    tol : float
        Relative tolerance of the rank decision.

    Returns
    -------
    coef : (p,) array
        Coefficients in column order; aliased columns get 0.
    rank : int
    pivot : (p,) int array
        R's ``qr()$pivot`` (0-based): the kept columns in order, then the aliased ones in
        the order they were moved.
    """
    a = np.asarray(a, dtype=float)
    m, p = a.shape
    ab = np.empty((m, p + 1), order="F")
    ab[:, :p] = a
    ab[:, p] = b
    return _qr_solve_augmented(ab, tol)


def _qr_solve_augmented(ab: np.ndarray, tol: float, sq_norms: np.ndarray | None = None):
    """:func:`qr_least_squares` on ``[a | b]`` given as one Fortran-ordered (m, p + 1) array.

    One Householder QR (LAPACK ``geqrf``) of the augmented matrix: the leading p x p block is
    ``a``'s R and the first entries of the last column are ``Q'b`` -- the same reflections
    applied in the same order as forming Q'b separately, in one pass over the data. ``ab`` is
    not modified.
    """
    m, p1 = ab.shape
    p = p1 - 1
    orig = np.sqrt(np.einsum("ij,ij->j", ab[:, :p], ab[:, :p]) if sq_norms is None else sq_norms)
    orig[orig == 0] = 1.0
    keep = list(range(p))
    moved: list = []
    r = None
    while keep:
        sub = ab if len(keep) == p else np.asfortranarray(ab[:, keep + [p]])
        r = _geqrf_r(sub)
        k = min(m, len(keep))
        d = np.abs(np.diag(r[:k, :k])) if k else np.empty(0)
        bad = np.flatnonzero(d < tol * orig[keep][:k])
        if bad.size == 0:
            break
        moved.append(keep.pop(int(bad[0])))
        r = None
    pivot = keep + moved
    rank = min(len(keep), m)
    coef = np.zeros(p)
    if rank:
        if len(keep) > rank:  # more columns than rows: the trailing kept ones are beyond the rank
            r = _geqrf_r(np.asfortranarray(ab[:, keep[:rank] + [p]]))
        qtb = r[:rank, -1]
        coef[keep[:rank]] = solve_triangular(r[:rank, :rank], qtb, check_finite=False)
    return coef, rank, np.asarray(pivot, dtype=np.intp)


#: rows per block of the tall-skinny QR: a block stays in the CPU cache, and LAPACK runs it on one
#: thread (a threaded BLAS spinning on a busy core costs more than it gains at these sizes)
_TSQR_ROWS = 4096


def _geqrf_r(ab: np.ndarray) -> np.ndarray:
    """The upper-triangular factor of ``ab`` (min(m, n) x n) by Householder QR (LAPACK ``dgeqrf``).

    Tall matrices are factored block by block (TSQR: the R factors of row blocks, stacked, factored
    again). This is again an orthogonal factorisation of ``ab``: the same R up to the signs of its
    rows and rounding, so the rank decisions (on ``|diag(R)|``) and the least-squares solution
    (the last column holds ``Q'b`` for the same Q) are those of one QR of the whole matrix.
    """
    m, n = ab.shape
    if m > 4 * _TSQR_ROWS and n < _TSQR_ROWS // 8:
        blocks = [_geqrf_r(ab[i:i + _TSQR_ROWS]) for i in range(0, m, _TSQR_ROWS)]
        return _geqrf_r(np.vstack(blocks))
    qr, _tau, _work, info = _dgeqrf(ab, overwrite_a=False)
    if info != 0:
        raise GlmError(f"LAPACK dgeqrf failed (info={info})")
    k = min(m, n)
    return np.triu(qr[:k, :])


def poisson_deviance(y: np.ndarray, mu: np.ndarray, pos: np.ndarray | None = None) -> float:
    """R's ``sum(poisson()$dev.resids(y, mu, 1))``; ``pos`` (optional) is ``y > 0``."""
    if pos is None:
        pos = y > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.where(pos, y * np.log(y / mu) - (y - mu), mu)
    r *= 2.0
    return _rsum(r)


def _linkinv(eta):
    with np.errstate(over="ignore"):
        return np.maximum(np.exp(eta), DOUBLE_EPS)


def _valid_mu(mu) -> bool:
    return bool(np.isfinite(mu).all() and (mu > 0).all())


@dataclass
class GlmFit:
    """What :func:`poisson_glm` returns (the parts of R's ``glm`` object pysdc uses).

    Attributes
    ----------
    fitted : ndarray
        ``fitted.values`` (mu).
    coef : ndarray
        Coefficients in column order, NaN for aliased columns.
    rank : int
    iterations : int
        ``iter``.
    converged : bool
    boundary : bool
    deviance : float
    warnings : list of str
        R's warnings (``glm.fit: algorithm did not converge`` ...).
    """

    fitted: np.ndarray
    coef: np.ndarray
    rank: int
    iterations: int
    converged: bool
    boundary: bool
    deviance: float
    warnings: list = field(default_factory=list)


class GlmError(ValueError):
    """Where R's ``glm.fit`` stops (message as R's)."""


def poisson_glm(x: np.ndarray, y: np.ndarray, offset: np.ndarray | None = None, *,
                epsilon: float = 1e-8, maxit: int = 25) -> GlmFit:
    """R's ``glm.fit(x, y, family = poisson(), offset = offset)`` with prior weights 1.

    Parameters
    ----------
    x : (m, p) array
        The model matrix (complete rows only).
    y : (m,) array
        Non-negative counts.
    offset : (m,) array, optional
    epsilon, maxit : float, int
        ``glm.control``'s defaults.

    Returns
    -------
    GlmFit

    Raises
    ------
    GlmError
        Where R stops (negative counts, no valid coefficients, step halving failing).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    m, p = x.shape
    off = np.zeros(m) if offset is None else np.asarray(offset, dtype=float)
    if (y < 0).any():
        raise GlmError("negative values not allowed for the 'Poisson' family")
    tol = min(1e-7, epsilon / 1000.0)
    warns: list = []
    if p == 0:  # R's EMPTY model: mu = linkinv(offset)
        mu = _linkinv(off)
        return GlmFit(mu, np.empty(0), 0, 0, True, False, poisson_deviance(y, mu), warns)
    eta = np.log(y + 0.1)
    mu = _linkinv(eta)
    pos = y > 0
    devold = poisson_deviance(y, mu, pos)
    dev = devold
    coefold = None
    start = np.zeros(p)
    coef = start
    conv = boundary = False
    rank = 0
    piv = np.arange(p)
    it = 0
    xf = np.asfortranarray(x)

    def linpred(coef):  # x @ coef + off, column by column (no threaded BLAS call on a tall matrix)
        e = off.copy()
        for j in np.flatnonzero(coef):
            e += xf[:, j] * coef[j]
        return e
    ab = np.empty((m, p + 1), order="F")  # [x * w | z * w], reused by every iteration
    for it in range(1, maxit + 1):
        # poisson()$mu.eta(eta) is pmax(exp(eta), eps): the same function as linkinv, so mu itself
        mu_eta = mu
        z = (eta - off) + (y - mu) / mu_eta
        w = np.sqrt((mu_eta ** 2) / mu)
        np.multiply(xf, w[:, None], out=ab[:, :p])
        np.multiply(z, w, out=ab[:, p])
        # a non-finite entry of [x w | z w] reaches the column norms: checking them spares a pass
        norms = np.einsum("ij,ij->j", ab, ab)
        if not np.isfinite(norms).all() and not np.isfinite(ab).all():
            if not np.isfinite(ab[:, :p]).all():
                raise GlmError("NA/NaN/Inf in 'x'")
            raise GlmError("NA/NaN/Inf in 'y'")
        cf, rank, piv = _qr_solve_augmented(ab, tol, norms[:p])
        if not np.isfinite(cf).all():
            conv = False
            warns.append(f"non-finite coefficients at iteration {it}")
            break
        start = cf
        eta = linpred(start)
        mu = _linkinv(eta)
        dev = poisson_deviance(y, mu, pos)
        boundary = False
        if not math.isfinite(dev):
            if coefold is None:
                raise GlmError("no valid set of coefficients has been found: please supply starting values")
            warns.append("step size truncated due to divergence")
            ii = 1
            while not math.isfinite(dev):
                if ii > maxit:
                    raise GlmError("inner loop 1; cannot correct step size")
                ii += 1
                start = (start + coefold) / 2
                eta = linpred(start)
                mu = _linkinv(eta)
                dev = poisson_deviance(y, mu, pos)
            boundary = True
        if not _valid_mu(mu):
            if coefold is None:
                raise GlmError("no valid set of coefficients has been found: please supply starting values")
            warns.append("step size truncated: out of bounds")
            ii = 1
            while not _valid_mu(mu):
                if ii > maxit:
                    raise GlmError("inner loop 2; cannot correct step size")
                ii += 1
                start = (start + coefold) / 2
                eta = linpred(start)
                mu = _linkinv(eta)
            boundary = True
            dev = poisson_deviance(y, mu, pos)
        if abs(dev - devold) / (abs(dev) + 0.1) < epsilon:
            conv = True
            coef = start
            break
        devold = dev
        coef = coefold = start
    if not conv:
        warns.append("glm.fit: algorithm did not converge")
    if boundary:
        warns.append("glm.fit: algorithm stopped at boundary value")
    if (mu < 10 * DOUBLE_EPS).any():
        warns.append("glm.fit: fitted rates numerically 0 occurred")
    final = np.asarray(coef, dtype=float).copy()
    if rank < p:
        final[piv[rank:]] = np.nan
    # dev is the deviance of the final mu (every path above recomputes it after changing mu)
    return GlmFit(mu, final, rank, it, conv, boundary, dev, warns)


def ipf(observed: np.ndarray, margins: list, *, start: np.ndarray | None = None,
        eps: float = 0.1, maxit: int = 20) -> tuple[np.ndarray, int, bool]:
    """Iterative proportional fitting as R's ``loglin`` (AS 51).

    Parameters
    ----------
    observed : ndarray (k dimensions)
        The observed table.
    margins : list of tuples of axes
        The margins to fit (R's ``margin``, 0-based axes), in order.
    start : ndarray, optional
        Starting table (default all ones, as ``loglin``/``loglm``).
    eps : float
        Maximum absolute deviation between fitted and observed margins.
    maxit : int
        Maximum number of cycles.

    Returns
    -------
    fit : ndarray
    iterations : int
    converged : bool
    """
    obs = np.asarray(observed, dtype=float)
    fit = np.ones_like(obs) if start is None else np.array(start, dtype=float).reshape(obs.shape)
    axes_all = tuple(range(obs.ndim))
    others = [tuple(a for a in axes_all if a not in set(mg)) for mg in margins]
    obs_m = [obs.sum(axis=o, keepdims=True) for o in others]
    for it in range(1, maxit + 1):
        xmax = 0.0
        for o, om in zip(others, obs_m):
            fm = fit.sum(axis=o, keepdims=True)
            dev = np.abs(fm - om)
            if dev.size:
                xmax = max(xmax, float(dev.max()))
            with np.errstate(divide="ignore", invalid="ignore"):
                fit = np.where(fm > 0, fit * om / fm, 0.0)
        if xmax < eps:
            return fit, it, True
    return fit, maxit, False
