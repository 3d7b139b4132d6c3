"""Branches of the numeric core that no other test ran, driven and checked against plain references.

* ``pysdc.core.mcd.fast._final_large``: the C-steps on all data of pysdc's own FAST-MCD when n > 5000,
  made cheap by re-examining only a band of observations around the cutoff (with a full pass where the
  bound cannot prove the band step exact), and its exact-fit exit. Reference: plain C-steps (every
  distance recomputed by ``np.linalg.inv``, the h smallest taken by a full sort) from the same start,
  and the plane equation for the exact fit.
* ``pysdc.core.loglinear.poisson_glm``'s step halving ("step size truncated due to divergence", as R's
  ``glm.fit``): the converged fit against the maximum-likelihood fit found by an independent damped
  Newton iteration on the Poisson log-likelihood. (The other halving loop, "out of bounds", cannot run
  for the Poisson family: ``mu = max(exp(eta), eps)`` is positive, and it is finite once the deviance
  is, which the first loop ensures -- as in R's ``glm.fit``, where ``validmu`` is the same test.)
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pysdc._tolerances import CLOSED_FORM, tolerance_for
from pysdc.core.loglinear import poisson_deviance, poisson_glm
from pysdc.core.mcd import cov_mcd, h_alpha_n
from pysdc.core.mcd import fast as mcd_fast

N_LARGE = 6000  # above the 5000 observations from which _fast_mcd finishes with _final_large


def _contaminated(n, p, seed, frac=0.15, shift=6.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[: int(frac * n)] += shift
    return X


def _plain_csteps(X, mu, C, h):
    """C-steps until the h-subset repeats: squared distances by an explicit inverse, a full sort."""
    prev = None
    logdets = []
    for _ in range(1000):
        D = X - mu
        d2 = np.einsum("ij,ij->i", D @ np.linalg.inv(C), D)
        sel = np.sort(np.argsort(d2, kind="stable")[:h])
        if prev is not None and np.array_equal(sel, prev):
            return sel, mu, C, logdets
        prev = sel
        mu = X[sel].mean(axis=0)
        C = np.cov(X[sel], rowvar=False)
        logdets.append(np.linalg.slogdet(C)[1])
    raise AssertionError("the plain C-steps did not converge")


@pytest.fixture
def distance_passes(monkeypatch):
    """Records the number of observations of every distance pass of pysdc's FAST-MCD."""
    sizes = []
    orig = mcd_fast._dist2_cols

    def counting(XT, mu, C):
        sizes.append(XT.shape[1])
        return orig(XT, mu, C)

    monkeypatch.setattr(mcd_fast, "_dist2_cols", counting)
    return sizes


def test_final_large_equals_plain_csteps(distance_passes):
    X = _contaminated(N_LARGE, 3, seed=20261125)
    n, p = X.shape
    h = h_alpha_n(0.5, n, p)
    mu0, C0 = X.mean(axis=0), np.cov(X, rowvar=False)  # a poor start: the classical estimate
    ref_sel, ref_mu, ref_C, ref_logdets = _plain_csteps(X, mu0, C0, h)
    # the premise of an exact comparison: no step of the reference decreases the determinant by less
    # than _final_large's early stop (it would then stop earlier, by design)
    assert (-np.diff(ref_logdets) > mcd_fast._LARGE_TOL).all()
    assert len(ref_logdets) >= 5

    sel, mu, C, logdet = mcd_fast._final_large(np.ascontiguousarray(X.T), mu0.copy(), C0.copy(), h)

    # the band steps ran (passes over fewer observations than n), and so did full passes after the first
    assert any(s < n for s in distance_passes)
    assert sum(s == n for s in distance_passes) >= 2
    assert_array_equal(sel, ref_sel)
    assert_allclose(mu, ref_mu, rtol=CLOSED_FORM.rtol, atol=CLOSED_FORM.atol)
    assert_allclose(C, ref_C, rtol=CLOSED_FORM.rtol, atol=CLOSED_FORM.atol)
    assert logdet == pytest.approx(ref_logdets[-1], rel=CLOSED_FORM.rtol)


def test_final_large_exact_fit_returns_rows_on_the_plane():
    rng = np.random.default_rng(7)
    n, p = N_LARGE, 3
    X = 3 * rng.standard_normal((n, p))
    on_plane = int(0.55 * n)
    X[:on_plane, 2] = X[:on_plane, 0] + X[:on_plane, 1]  # more than h observations on x3 = x1 + x2
    h = h_alpha_n(0.5, n, p)
    with pytest.raises(mcd_fast._ExactFit) as info:
        mcd_fast._final_large(np.ascontiguousarray(X.T), X.mean(axis=0), np.cov(X, rowvar=False), h)
    rows = np.asarray(info.value.rows)
    assert rows.size == h and np.unique(rows).size == h
    resid = np.abs(X[rows, 2] - X[rows, 0] - X[rows, 1])
    assert resid.max() <= 8 * np.finfo(float).eps * np.abs(X).max()


def test_cov_mcd_above_5000_observations_ends_at_a_cstep_fixed_point(monkeypatch):
    calls = []
    orig = mcd_fast._final_large

    def spy(*args):
        calls.append(1)
        return orig(*args)

    monkeypatch.setattr(mcd_fast, "_final_large", spy)
    X = _contaminated(N_LARGE, 3, seed=11)
    n, p = X.shape
    res = cov_mcd(X, random_state=np.random.default_rng(3))
    assert calls == [1]
    best = np.sort(res.best)
    assert best.size == res.quan == h_alpha_n(0.5, n, p)
    # the raw estimate is the mean and the (corrected) covariance of the best h-subset ...
    center = X[best].mean(axis=0)
    cov = np.cov(X[best], rowvar=False)
    assert_allclose(res.raw_center, center, rtol=CLOSED_FORM.rtol, atol=CLOSED_FORM.rtol * np.abs(X).max())
    assert_allclose(res.raw_cov, cov * (res.raw_cnp2[0] * res.raw_cnp2[1]), rtol=CLOSED_FORM.rtol)
    assert res.crit == pytest.approx(np.linalg.slogdet(cov)[1], rel=CLOSED_FORM.rtol)
    # ... and one more C-step from it selects the same subset (the C-steps have converged)
    D = X - center
    d2 = np.einsum("ij,ij->i", D @ np.linalg.inv(cov), D)
    assert_array_equal(np.sort(np.argsort(d2, kind="stable")[: res.quan]), best)
    # none of the outliers (shifted by 6 in every variable) is in it
    assert best.min() >= int(0.15 * n)


# A log-linear fit whose Newton step overflows exp(eta) at iteration 56 (the offsets do not fit the design:
# a record with y > 0 is left at a fitted rate near 0, and the next step along the direction only such
# records span is huge): R's glm.fit halves the step towards the previous coefficients until the deviance
# is finite, then iterates on, down from fitted rates near exp(709), one unit of eta per iteration.
# Found by a search over small random designs; converges at iteration 411 (hence maxit = 1000).
STEP_HALVING = {
    "x": np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 2.0], [1.0, 2.0, 2.0]]),
    "y": np.array([12.0, 11.0, 9.0, 16.0]),
    "offset": np.array([-48.1, -16.4, -8.0, 31.8]),
}


def _newton_mle(x, y, off):
    """Maximum-likelihood coefficients of the Poisson model log E[y] = x b + off: Newton's method with
    Armijo backtracking on the convex sum(exp(eta) - y eta), from a least-squares start, to convergence."""
    b = np.linalg.lstsq(x, np.log(y) - off, rcond=None)[0]

    def objective(b):
        eta = x @ b + off
        with np.errstate(over="ignore"):
            return float(np.sum(np.exp(eta) - y * eta))

    fb = objective(b)
    for _ in range(500):
        mu = np.exp(x @ b + off)
        g = x.T @ (mu - y)
        step = np.linalg.lstsq((x * mu[:, None]).T @ x, g, rcond=None)[0]
        t = 1.0
        while True:
            nb = b - t * step
            fn = objective(nb)
            if np.isfinite(fn) and fn <= fb - 1e-4 * t * (g @ step):
                break
            t /= 2
            assert t > 1e-30, "no descent"
        b, fb = nb, fn
        if np.abs(t * step).max() <= 1e-14 * (1 + np.abs(b).max()):
            return b
    raise AssertionError("Newton's method did not converge")


def test_poisson_glm_step_halving_converges_to_the_mle():
    x, y, off = STEP_HALVING["x"], STEP_HALVING["y"], STEP_HALVING["offset"]
    fit = poisson_glm(x, y, off, maxit=1000)
    assert "step size truncated due to divergence" in fit.warnings
    assert fit.converged and fit.rank == 3
    b = _newton_mle(x, y, off)
    mu = np.exp(x @ b + off)
    tol = tolerance_for("poisson_glm", "fitted_vs_mle")
    assert_allclose(fit.fitted, mu, rtol=tol.rtol, atol=tol.atol)
    assert_allclose(fit.coef, b, rtol=tol.rtol, atol=tol.atol)
    dtol = tolerance_for("poisson_glm", "deviance_vs_mle")
    assert fit.deviance == pytest.approx(poisson_deviance(y, mu), rel=dtol.rtol, abs=dtol.atol)

