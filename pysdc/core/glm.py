"""Weighted linear and generalised linear models as R's ``lm.wfit`` and ``glm.fit`` compute them.

Arrays in, arrays out. :func:`lm_fit` gives ``coef(summary(lm(..., weights = w)))`` and
``confint(lm)``; :func:`glm_fit` follows ``glm.fit``'s iteration (R's starting values
``family$initialize``, working responses and weights, QR least squares with ``dqrdc2``'s rank rule at
``tol = min(1e-7, epsilon / 1000)``, the deviance criterion ``|dev - dev_old| / (|dev| + 0.1) <
epsilon``, step halving) and ``summary.glm``'s standard errors, which come from the QR of the *last
iteration* (working weights of the step before the final update), as R's do.

:func:`glm_profile` and :func:`profile_interval` give R 4.2's ``confint(fit)`` on a glm (MASS's
profile-likelihood interval: the grid of constrained refits ``profile(fit)`` visits, then R's
``spline`` (``"fmm"``, :func:`r_spline`) and ``approx`` (:func:`r_approx`)).

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

__all__ = ["GlmStop", "LinearFit", "lm_fit", "glm_fit", "qr_rank", "GlmProfile", "glm_profile", "profile_interval",
           "r_spline", "r_approx", "fmm_spline_coef"]

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
        The confidence interval (``confint.lm``: t quantiles; glm: the profile-likelihood interval of
        R's ``confint`` or the Wald interval ``confint.default``, by :func:`glm_fit`'s ``ci``).
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


class GlmStop(ValueError):
    """``glm.fit`` stops (R's error): no valid start, step halving exhausted, empty model invalid."""


def _irls(x: np.ndarray, y: np.ndarray, prior: np.ndarray, fam: dict, *, offset: np.ndarray | None = None,
          etastart: np.ndarray | None = None, epsilon: float = 1e-8, maxit: int = 25) -> dict:
    """The iteration of ``glm.fit(x, y, weights = prior, offset, etastart)`` (``y`` as ``family$initialize`` left it).

    Returns a dict with ``coef`` (0 for aliased columns), ``deviance``, ``eta`` (the linear predictor
    including the offset, R's ``linear.predictors``), ``mu``, ``iterations``, ``converged`` and ``last``
    (kept columns, R factor and records used by the last least-squares step).
    """
    nobs, p = x.shape
    off = np.zeros(nobs) if offset is None else offset
    if p == 0:  # glm.fit's EMPTY model: the offset alone
        eta = off.copy()
        mu = fam["linkinv"](eta)
        if not fam["valid_mu"](mu):
            raise GlmStop("invalid linear predictor values in empty model")
        dev = _rsum(fam["dev_resids"](y, mu, prior))
        return {"coef": np.zeros(0), "deviance": dev, "eta": eta, "mu": mu, "iterations": 0, "converged": True,
                "last": ([], np.empty((0, 0)), prior > 0)}
    if etastart is not None:
        eta = np.asarray(etastart, dtype=float)
    else:
        eta = fam["linkfun"](fam["mustart"](y, prior))
    mu = fam["linkinv"](eta)
    if not fam["valid_mu"](mu):
        raise GlmStop("cannot find valid starting values: please specify some")
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
        z = (eta - off)[good] + (y[good] - mu[good]) / mu_eta[good]
        ww = np.sqrt(prior[good] * mu_eta[good] ** 2 / fam["variance"](mu)[good])
        start, keep, _moved, r = _ls(x[good] * ww[:, None], z * ww, tol)
        start = np.where(np.isnan(start), 0.0, start)
        eta = x @ start + off
        mu = fam["linkinv"](eta)
        dev = _rsum(fam["dev_resids"](y, mu, prior))
        ii = 1
        while not np.isfinite(dev) or not fam["valid_mu"](mu):
            if coefold is None:
                raise GlmStop("no valid set of coefficients has been found: please supply starting values")
            if ii > maxit:
                raise GlmStop("inner loop; cannot correct step size")
            ii += 1
            start = (start + coefold) / 2.0
            eta = x @ start + off
            mu = fam["linkinv"](eta)
            dev = _rsum(fam["dev_resids"](y, mu, prior))
        last = (keep, r, good)
        if abs(dev - devold) / (abs(dev) + 0.1) < epsilon:
            conv = True
            coef = start
            break
        devold = dev
        coef = coefold = start
    return {"coef": coef, "deviance": dev, "eta": eta, "mu": mu, "iterations": it, "converged": conv, "last": last}


def _glm_setup(x, y, w, family):
    """``family$initialize``'s checks and changes: (x, y, prior weights, warnings)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    prior = np.ones(x.shape[0]) if w is None else np.asarray(w, dtype=float)
    warn = []
    if family == "binomial" and np.any(np.abs(prior * y - np.round(prior * y)) > 1e-3):
        warn.append("non-integer #successes in a binomial glm!")
    if family == "binomial":
        y = np.where(prior == 0, 0.0, y)
    if family == "poisson" and np.any(y != np.round(y)):
        warn.append("non-integer x = ...: the Poisson deviance uses y log(y / mu) as R does")
    return x, y, prior, warn


def glm_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, family: str = "binomial",
            level: float = 0.95, epsilon: float = 1e-8, maxit: int = 25, ci: str = "wald") -> LinearFit:
    """``glm.fit(X, y, weights = w, family = family())`` with ``summary.glm`` SEs and an interval.

    ``ci="wald"``: ``confint.default``, ``coef ± qnorm((1 + level) / 2) · se``. ``ci="profile"``: R 4.2's
    ``confint(fit)`` (MASS's profile-likelihood interval, :func:`glm_profile` + :func:`profile_interval`).
    """
    fam = FAMILIES[family]
    x, y, prior, warn = _glm_setup(x, y, w, family)
    p = x.shape[1]
    res = _irls(x, y, prior, fam, epsilon=epsilon, maxit=maxit)
    coef, mu, dev, it, conv = res["coef"], res["mu"], res["deviance"], res["iterations"], res["converged"]
    if not conv:
        warn.append("glm.fit: algorithm did not converge")
    if family == "binomial" and np.any((mu > 1 - 10 * EPS) | (mu < 10 * EPS)):
        warn.append("glm.fit: fitted probabilities numerically 0 or 1 occurred")
    if family == "poisson" and np.any(mu < 10 * EPS):
        warn.append("glm.fit: fitted rates numerically 0 occurred")
    keep, r, good = res["last"]
    rank = len(keep)
    coef_out = np.full(p, np.nan)
    coef_out[keep] = coef[keep]
    n_ok = int(np.count_nonzero(prior > 0))
    df = n_ok - rank
    disp = fam["dispersion"]
    se = np.full(p, np.nan)
    if rank:
        se[keep] = np.sqrt(np.diag(_unscaled_cov(r)) * disp)
    if ci == "profile":
        profiles = glm_profile(x, y, prior, family=family, coef=coef_out, se=se, deviance=dev, eta=res["eta"],
                               alpha=(1.0 - level) / 4.0, epsilon=epsilon, maxit=maxit)
        lower = np.full(p, np.nan)
        upper = np.full(p, np.nan)
        for j, prof in enumerate(profiles):
            if prof is not None:
                lower[j], upper[j] = profile_interval(prof.par, prof.z, level)
    elif ci == "wald":
        qz = stats.norm.ppf((1.0 + level) / 2.0)
        lower, upper = coef_out - qz * se, coef_out + qz * se
    else:
        raise ValueError(f"ci must be 'wald' or 'profile'; got {ci!r}")
    return LinearFit(coef_out, se, lower, upper, df, disp, dev, it, conv, n_ok, warn)


# ------------------------------------------------------------------ profile likelihood (MASS's confint.glm)


@dataclass
class GlmProfile:
    """The profile of one coefficient, as ``MASS::profile.glm`` returns it for that parameter.

    Attributes
    ----------
    par : numpy.ndarray
        The values of the coefficient visited, ascending (``par.vals[, name]``), the estimate among them.
    z : numpy.ndarray
        The signed root deviance ``sign(b - b̂) · sqrt((D(b) - D(b̂)) / dispersion)`` at each value.
    others : numpy.ndarray
        The other coefficients of each constrained fit (rows as ``par``).
    """

    par: np.ndarray
    z: np.ndarray
    others: np.ndarray


def glm_profile(x: np.ndarray, y: np.ndarray, prior: np.ndarray, *, family: str, coef: np.ndarray, se: np.ndarray,
                deviance: float, eta: np.ndarray, alpha: float = 0.01, maxsteps: int = 10,
                epsilon: float = 1e-8, maxit: int = 25) -> list:
    """Profile every non-aliased coefficient of a glm fit as ``MASS::profile.glm(fit, alpha = alpha)`` does.

    ``x, y, prior`` as :func:`_glm_setup` returns them; ``coef, se, deviance, eta`` of the fit (NaN
    coefficients are aliased: their columns are left out and their profile is None). For coefficient
    ``j`` and each direction ``s = -1, +1`` the steps ``k = 1, 2, ..., maxsteps - 1`` fix it at
    ``b̂_j + s·k·del·se_j`` with ``del = zmax / 5``, ``zmax = sqrt(qchisq(1 - alpha, 1))``, refit the other
    coefficients by IRLS with the fixed column as an offset, starting from the linear predictor of the
    previous fit of the same walk (the full fit's for ``k = 1``), and stop after the first step whose
    ``|z| > zmax``. A deviance below the fit's by less than 1e-3 counts as ``z = 0``; by more, the profile
    stops with :class:`GlmStop` ("profiling has found a better solution"), and so does a constrained fit
    that ``glm.fit`` cannot do, as in R. This is the grid and the iteration R's ``profile`` visits:
    checked number for number against ``profile(fit)``'s ``par.vals`` and ``z`` (R 4.2, MASS 7.3).
    """
    fam = FAMILIES[family]
    disp = fam["dispersion"]
    kept = np.flatnonzero(~np.isnan(coef))
    zmax = math.sqrt(stats.chi2.ppf(1.0 - alpha, 1))
    step = zmax / 5.0
    out: list = [None] * x.shape[1]
    xk = x[:, kept]
    for jj, j in enumerate(kept):
        rest = np.delete(np.arange(kept.size), jj)
        xr = xk[:, rest]
        col = xk[:, jj]
        pars, zs, others = [coef[j]], [0.0], [coef[kept[rest]]]
        for sgn in (-1.0, 1.0):
            lp = eta
            for k in range(1, maxsteps):  # at most maxsteps - 1 steps each way, as R
                bj = coef[j] + sgn * k * step * se[j]
                res = _irls(xr, y, prior, fam, offset=col * bj, etastart=lp, epsilon=epsilon, maxit=maxit)
                lp = res["eta"]
                d = (res["deviance"] - deviance) / disp
                if d < -1e-3:
                    raise GlmStop("profiling has found a better solution, so original fit had not converged")
                zk = sgn * math.sqrt(max(d, 0.0))
                pars.append(bj)
                zs.append(zk)
                others.append(res["coef"])
                if abs(zk) > zmax:
                    break
        order = np.argsort(pars, kind="stable")
        out[j] = GlmProfile(np.asarray(pars)[order], np.asarray(zs)[order], np.asarray(others)[order])
    return out


def profile_interval(par: np.ndarray, z: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """``confint`` from a profile, as ``MASS::confint.profile.glm``: the interpolating spline of ``z``
    against the parameter (R's ``spline(par, z)``: method ``"fmm"`` at ``3 * length(par)`` equally spaced
    points), then linear interpolation of the parameter at ``z = ∓qnorm((1 + level) / 2)`` along that
    curve (``approx(sp$y, sp$x, xout)``; NaN outside the profiled range, as R's NA)."""
    ok = ~(np.isnan(par) | np.isnan(z))
    sx, sy = r_spline(par[ok], z[ok], n=3 * int(par.size))
    cut = float(stats.norm.ppf((1.0 + level) / 2.0))
    lo, hi = r_approx(sy, sx, np.array([-cut, cut]))
    return float(lo), float(hi)


def _regularize(x: np.ndarray, y: np.ndarray):
    """R's ``regularize.values(x, y, mean)``: drop NA pairs, order by x (stable), average y over tied x."""
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    o = np.argsort(x, kind="stable")
    x, y = x[o], y[o]
    if x.size > 1 and np.any(x[1:] == x[:-1]):
        ux, inv = np.unique(x, return_inverse=True)
        y = np.bincount(inv, weights=y) / np.bincount(inv)
        x = ux
    return x, y


def fmm_spline_coef(x: np.ndarray, y: np.ndarray):
    """Coefficients (b, c, d) of the cubic interpolating spline of Forsythe, Malcolm and Moler (1977).

    End conditions: the third derivative at each end equals that of the cubic through the four end
    points (three points: a parabola; two: the line). ``x`` strictly increasing.
    """
    n = x.size
    b = np.zeros(n)
    c = np.zeros(n)
    d = np.zeros(n)
    if n < 2:
        return b, c, d
    if n < 3:
        b[:] = (y[1] - y[0]) / (x[1] - x[0])
        return b, c, d
    nm1 = n - 1
    d[0] = x[1] - x[0]
    c[1] = (y[1] - y[0]) / d[0]
    for i in range(1, nm1):  # tridiagonal system over the knots (<= 3 * maxsteps of them)
        d[i] = x[i + 1] - x[i]
        b[i] = 2.0 * (d[i - 1] + d[i])
        c[i + 1] = (y[i + 1] - y[i]) / d[i]
        c[i] = c[i + 1] - c[i]
    b[0] = -d[0]
    b[nm1] = -d[n - 2]
    c[0] = c[nm1] = 0.0
    if n > 3:
        c[0] = c[2] / (x[3] - x[1]) - c[1] / (x[2] - x[0])
        c[nm1] = c[n - 2] / (x[nm1] - x[n - 3]) - c[n - 3] / (x[n - 2] - x[n - 4])
        c[0] = c[0] * d[0] * d[0] / (x[3] - x[0])
        c[nm1] = -c[nm1] * d[n - 2] * d[n - 2] / (x[nm1] - x[n - 4])
    for i in range(1, n):
        t = d[i - 1] / b[i - 1]
        b[i] = b[i] - t * d[i - 1]
        c[i] = c[i] - t * c[i - 1]
    c[nm1] = c[nm1] / b[nm1]
    for i in range(n - 2, -1, -1):
        c[i] = (c[i] - d[i] * c[i + 1]) / b[i]
    b[nm1] = (y[nm1] - y[n - 2]) / d[n - 2] + d[n - 2] * (c[n - 2] + 2.0 * c[nm1])
    for i in range(nm1):
        b[i] = (y[i + 1] - y[i]) / d[i] - d[i] * (c[i + 1] + 2.0 * c[i])
        d[i] = (c[i + 1] - c[i]) / d[i]
        c[i] = 3.0 * c[i]
    c[nm1] = 3.0 * c[nm1]
    d[nm1] = d[n - 2]
    return b, c, d


def r_spline(x: np.ndarray, y: np.ndarray, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """R's ``spline(x, y, n = 3 * length(x))`` (method ``"fmm"``, ties averaged): (xout, yout)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = 3 * x.size if n is None else n
    x, y = _regularize(x, y)
    xout = _seq_len_out(float(x[0]), float(x[-1]), n)
    b, c, d = fmm_spline_coef(x, y)
    i = np.clip(np.searchsorted(x, xout, side="right") - 1, 0, x.size - 1)
    dx = xout - x[i]
    return xout, y[i] + dx * (b[i] + dx * (c[i] + dx * d[i]))


def _seq_len_out(a: float, b: float, n: int) -> np.ndarray:
    """``seq.int(a, b, length.out = n)``: ``a + i * by``, the last value exactly ``b``."""
    if n == 1:
        return np.array([a])
    out = a + np.arange(n) * ((b - a) / (n - 1))
    out[-1] = b
    return out


def r_approx(x: np.ndarray, y: np.ndarray, xout: np.ndarray) -> np.ndarray:
    """R's ``approx(x, y, xout)`` (linear, ``rule = 1``: NaN outside ``range(x)``, ties averaged)."""
    x, y = _regularize(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    xout = np.asarray(xout, dtype=float)
    out = np.full(xout.shape, np.nan)
    if x.size == 0:
        return out
    inside = (xout >= x[0]) & (xout <= x[-1])
    if x.size == 1:
        out[inside] = y[0]
        return out
    v = xout[inside]
    j = np.clip(np.searchsorted(x, v, side="left"), 1, x.size - 1)
    i = j - 1
    res = y[i] + (y[j] - y[i]) * ((v - x[i]) / (x[j] - x[i]))
    res = np.where(v == x[j], y[j], np.where(v == x[i], y[i], res))
    out[inside] = res
    return out
