"""Weighted linear and generalised linear models as R's ``lm.wfit`` and ``glm.fit`` compute them.

Arrays in, arrays out. :func:`lm_fit` gives ``coef(summary(lm(..., weights = w)))`` and
``confint(lm)``; :func:`glm_fit` follows ``glm.fit``'s iteration (R's starting values
``family$initialize``, working responses and weights, QR least squares with ``dqrdc2``'s rank rule at
``tol = min(1e-7, epsilon / 1000)``, the deviance criterion ``|dev - dev_old| / (|dev| + 0.1) <
epsilon``, step halving) and ``summary.glm``'s standard errors, which come from the QR of the *last
iteration* (working weights of the step before the final update), as R's do.

Families: ``gaussian`` (identity), ``binomial`` (logit), ``poisson`` (log). A small, separate kernel from
:func:`pysdc.core.loglinear.poisson_glm` (Poisson only, no prior weights, no standard errors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats
from scipy.linalg import qr as _qr
from scipy.linalg import solve_triangular

__all__ = ["LinearFit", "lm_fit", "glm_fit", "qr_rank"]

EPS = float(np.finfo(float).eps)


def _rsum(v) -> float:
    return float(np.sum(np.asarray(v, dtype=np.longdouble)))


def qr_rank(a: np.ndarray, tol: float = 1e-7):
    """Column selection of R's ``dqrdc2`` (limited pivoting): returns (kept columns, aliased columns, R).

    A column whose norm after removing the earlier kept columns falls below ``tol`` times its original
    norm is moved to the end (aliased); ``R`` is the triangular factor of the kept columns.
    """
    m, p = a.shape
    orig = np.sqrt((a * a).sum(axis=0))
    orig[orig == 0] = 1.0
    keep = list(range(p))
    moved = []
    while keep:
        r = _qr(a[:, keep], mode="r", check_finite=False)[0]
        k = min(m, len(keep))
        d = np.abs(np.diag(r[:k, :k]))
        bad = np.flatnonzero(d < tol * orig[keep][:k])
        if len(keep) > m:
            bad = np.union1d(bad, np.arange(m, len(keep)))
        if bad.size == 0:
            break
        moved.append(keep.pop(int(bad[0])))
    return keep, moved


def _ls(a: np.ndarray, b: np.ndarray, tol: float):
    keep, moved = qr_rank(a, tol)
    coef = np.full(a.shape[1], np.nan)
    if not keep:
        return coef, keep, moved, np.empty((0, 0))
    q, r = _qr(a[:, keep], mode="economic", check_finite=False)
    coef[keep] = solve_triangular(r, q.T @ b, check_finite=False)
    return coef, keep, moved, r


def _unscaled_cov(r: np.ndarray) -> np.ndarray:
    rinv = solve_triangular(r, np.eye(r.shape[0]), check_finite=False)
    return rinv @ rinv.T


@dataclass
class LinearFit:
    """Coefficients, standard errors and intervals of one fit (R's ``coef(summary(fit))``, ``confint``).

    Attributes
    ----------
    coef, se : numpy.ndarray
        NaN for aliased (rank-deficient) columns, as R's NA.
    lower, upper : numpy.ndarray
        The confidence interval (``confint.lm``: t quantiles; glm: Wald, ``confint.default``).
    df_residual : int
    dispersion : float
    deviance : float
    iterations : int
    converged : bool
    n : int
        Records used (prior weight > 0).
    warnings : list of str
    """

    coef: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    df_residual: int
    dispersion: float
    deviance: float
    iterations: int = 0
    converged: bool = True
    n: int = 0
    warnings: list = field(default_factory=list)


def lm_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, level: float = 0.95, tol: float = 1e-7) -> LinearFit:
    """``lm(y ~ X - 1, weights = w)``: coefficients, ``summary`` standard errors, ``confint`` (t)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    p = x.shape[1]
    if w is not None:
        w = np.asarray(w, dtype=float)
        pos = w != 0  # lm.wfit drops zero weights
        x, y, w = x[pos], y[pos], w[pos]
        sw = np.sqrt(w)
        a, b = x * sw[:, None], y * sw
    else:
        a, b = x, y
    n = y.size
    coef, keep, _moved, r = _ls(a, b, tol)
    rank = len(keep)
    fitted = x[:, keep] @ coef[keep] if rank else np.zeros(n)
    res = y - fitted
    rss = _rsum((w if w is not None else 1.0) * res * res)
    df = n - rank
    sigma2 = rss / df if df > 0 else float("nan")
    se = np.full(p, np.nan)
    if rank:
        se[keep] = np.sqrt(np.diag(_unscaled_cov(r)) * sigma2)
    q = stats.t.ppf((1.0 + level) / 2.0, df) if df > 0 else float("nan")
    return LinearFit(coef, se, coef - q * se, coef + q * se, df, sigma2, rss, n=n)


# ------------------------------------------------------------------ families


def _logit_linkinv(eta):
    e = np.where(eta < -30, EPS, np.where(eta > 30, 1.0 / EPS, np.exp(np.clip(eta, -30, 30))))
    return e / (1.0 + e)


def _logit_mu_eta(eta):
    ex = np.exp(np.clip(eta, -30, 30))
    out = ex / ((1.0 + ex) * (1.0 + ex))
    return np.where((eta > 30) | (eta < -30), EPS, out)


def _ylogy(y, mu):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, y * np.log(y / mu), 0.0)


FAMILIES = {
    "binomial": {
        "linkfun": lambda mu: np.log(mu / (1.0 - mu)),
        "linkinv": _logit_linkinv,
        "mu_eta": _logit_mu_eta,
        "variance": lambda mu: mu * (1.0 - mu),
        "dev_resids": lambda y, mu, wt: 2.0 * wt * (_ylogy(y, mu) + _ylogy(1.0 - y, 1.0 - mu)),
        "valid_mu": lambda mu: bool(np.all(np.isfinite(mu)) and np.all((mu > 0) & (mu < 1))),
        "mustart": lambda y, wt: (wt * y + 0.5) / (wt + 1.0),
        "dispersion": 1.0,
    },
    "poisson": {
        "linkfun": np.log,
        "linkinv": lambda eta: np.maximum(np.exp(eta), EPS),
        "mu_eta": lambda eta: np.maximum(np.exp(eta), EPS),
        "variance": lambda mu: mu,
        "dev_resids": lambda y, mu, wt: 2.0 * wt * np.where(y > 0, _ylogy(y, mu) - (y - mu), mu),
        "valid_mu": lambda mu: bool(np.all(np.isfinite(mu)) and np.all(mu > 0)),
        "mustart": lambda y, wt: y + 0.1,
        "dispersion": 1.0,
    },
}


def glm_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, family: str = "binomial",
            level: float = 0.95, epsilon: float = 1e-8, maxit: int = 25) -> LinearFit:
    """``glm.fit(X, y, weights = w, family = family())`` with ``summary.glm`` SEs and Wald intervals.

    The interval is ``confint.default``: ``coef ± qnorm((1 + level) / 2) · se`` (R 4.2's ``confint`` on a
    glm profiles the likelihood through MASS instead; see :func:`pysdc.loss.compare_regression`).
    """
    fam = FAMILIES[family]
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    nobs, p = x.shape
    prior = np.ones(nobs) if w is None else np.asarray(w, dtype=float)
    warn = []
    if family == "binomial" and np.any(np.abs(prior * y - np.round(prior * y)) > 1e-3):
        warn.append("non-integer #successes in a binomial glm!")
    if family == "binomial":
        y = np.where(prior == 0, 0.0, y)
    if family == "poisson" and np.any(y != np.round(y)):
        warn.append("non-integer x = ...: the Poisson deviance uses y log(y / mu) as R does")
    mu = fam["mustart"](y, prior)
    eta = fam["linkfun"](mu)
    mu = fam["linkinv"](eta)
    devold = _rsum(fam["dev_resids"](y, mu, prior))
    tol = min(1e-7, epsilon / 1000.0)
    coef = np.zeros(p)
    conv = False
    it = 0
    last = None
    coefold = None
    for it in range(1, maxit + 1):  # noqa: B007 - IRLS iterations (each vectorised); `it` is reported
        mu_eta = fam["mu_eta"](eta)
        good = (prior > 0) & (mu_eta != 0)
        z = eta[good] + (y[good] - mu[good]) / mu_eta[good]
        ww = np.sqrt(prior[good] * mu_eta[good] ** 2 / fam["variance"](mu)[good])
        start, keep, _moved, r = _ls(x[good] * ww[:, None], z * ww, tol)
        start = np.where(np.isnan(start), 0.0, start)
        eta = x @ start
        mu = fam["linkinv"](eta)
        dev = _rsum(fam["dev_resids"](y, mu, prior))
        ii = 1
        while not np.isfinite(dev) or not fam["valid_mu"](mu):
            if coefold is None:
                raise ValueError("no valid set of coefficients has been found: please supply starting values")
            if ii > maxit:
                raise ValueError("inner loop; cannot correct step size")
            ii += 1
            start = (start + coefold) / 2.0
            eta = x @ start
            mu = fam["linkinv"](eta)
            dev = _rsum(fam["dev_resids"](y, mu, prior))
        last = (keep, r, good)
        if abs(dev - devold) / (abs(dev) + 0.1) < epsilon:
            conv = True
            coef = start
            break
        devold = dev
        coef = coefold = start
    if not conv:
        warn.append("glm.fit: algorithm did not converge")
    if family == "binomial" and np.any((mu > 1 - 10 * EPS) | (mu < 10 * EPS)):
        warn.append("glm.fit: fitted probabilities numerically 0 or 1 occurred")
    if family == "poisson" and np.any(mu < 10 * EPS):
        warn.append("glm.fit: fitted rates numerically 0 occurred")
    keep, r, good = last
    rank = len(keep)
    coef_out = np.full(p, np.nan)
    coef_out[keep] = coef[keep]
    n_ok = int(np.count_nonzero(prior > 0))
    df = n_ok - rank
    disp = fam["dispersion"]
    se = np.full(p, np.nan)
    if rank:
        se[keep] = np.sqrt(np.diag(_unscaled_cov(r)) * disp)
    qz = stats.norm.ppf((1.0 + level) / 2.0)
    return LinearFit(coef_out, se, coef_out - qz * se, coef_out + qz * se, df, disp, dev, it, conv, n_ok, warn)


def t_quantile(level: float, df: int) -> float:
    return float(stats.t.ppf((1.0 + level) / 2.0, df)) if df > 0 else math.nan
