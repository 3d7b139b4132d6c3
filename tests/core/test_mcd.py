"""Tests of pysdc._mcd (robustbase::covMcd equivalent)."""

from __future__ import annotations

import json
import subprocess
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc.core.mcd import cov_mcd, h_alpha_n, mcd_consistency_factor, mcd_small_sample_factor


def _contaminated(n, p, seed, frac=0.1, shift=6.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[: int(frac * n)] += shift
    return X


# ---------------------------------------------------------------- formulas -----------


def test_h_alpha_n_formula():
    # h.alpha.n docs: alpha = 1/2 gives (n + p + 1) %/% 2
    for n, p in [(10, 2), (11, 2), (100, 5), (1001, 4)]:
        assert h_alpha_n(0.5, n, p) == (n + p + 1) // 2
    # general case: n2 = (n+p+1)//2; floor(2*n2 - n + 2*(n-n2)*alpha)
    assert h_alpha_n(0.75, 100, 3) == int(np.floor(2 * 52 - 100 + 2 * 48 * 0.75))
    assert h_alpha_n(1.0, 37, 3) == 37


@pytest.mark.parametrize("p", [1, 2, 4, 7])
@pytest.mark.parametrize("alpha", [0.5, 0.6, 0.9])
def test_consistency_factor_is_croux_haesbroeck(p, alpha):
    # E[chi2_p ; chi2_p <= q] / alpha = P(chi2_{p+2} <= q) * p / alpha; the factor makes the
    # trimmed covariance consistent: c = alpha / P(chi2_{p+2} <= chi2_{p;alpha})
    q = stats.chi2.ppf(alpha, p)
    expected = alpha / stats.chi2.cdf(q, p + 2)
    assert_allclose(mcd_consistency_factor(p, alpha), expected, rtol=1e-14)
    # and it is the ratio of the full variance to the truncated one (numerical integral)
    from scipy.integrate import quad

    trunc = quad(lambda u: u * stats.chi2.pdf(u, p), 0, q)[0] / (alpha * p)
    assert_allclose(mcd_consistency_factor(p, alpha), 1 / trunc, rtol=1e-6)
    assert mcd_consistency_factor(p, 1.0) == 1.0


def test_small_sample_factor_shape():
    # > 1 (MCD underestimates at small n), decreasing to 1 as n grows, 1 at alpha = 1
    for rew in (False, True):
        for p in (1, 2, 3, 6):
            vals = [mcd_small_sample_factor(p, n, 0.5, reweighted=rew) for n in (30, 100, 1000, 10**6)]
            assert all(v > 1 for v in vals)
            assert all(a > b for a, b in zip(vals, vals[1:]))
            assert vals[-1] < 1.001
            assert mcd_small_sample_factor(p, 50, 1.0, reweighted=rew) == 1.0


def test_small_sample_factor_alpha_interpolation():
    # linear in 1/factor between the anchors alpha = 1/2 and 7/8, and from 7/8 to 1
    f = lambda a: 1 / mcd_small_sample_factor(4, 60, a)  # noqa: E731
    assert_allclose(f(0.6875), (f(0.5) + f(0.875)) / 2, rtol=1e-13)
    assert_allclose(f(0.9375), (f(0.875) + 1) / 2, rtol=1e-13)


# ---------------------------------------------------------------- invariants ---------


def test_clean_normal_close_to_sample_covariance():
    rng = np.random.default_rng(1)
    S = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    X = rng.multivariate_normal(np.zeros(3), S, size=4000)
    r = cov_mcd(X, random_state=0)
    assert_allclose(r.cov, np.cov(X, rowvar=False), atol=0.08)
    assert_allclose(r.center, X.mean(axis=0), atol=0.05)
    assert r.quan == h_alpha_n(0.5, 4000, 3) and r.best.size == r.quan
    assert r.weights.shape == (4000,)


@pytest.mark.parametrize("n", [200, 3000, 20000])
def test_outliers_do_not_break_it(n):
    X = _contaminated(n, 3, seed=n, frac=0.2, shift=10.0)
    r = cov_mcd(X, random_state=1)
    # none of the outliers in the h-subset nor in the reweighted fit
    assert not np.isin(np.arange(int(0.2 * n)), r.best).any()
    assert r.raw_weights[: int(0.2 * n)].sum() == 0
    ev = np.linalg.eigvalsh(r.cov)
    # (the reweighted consistency factor assumes no contamination, so 20% outliers inflate
    # it as in covMcd; the classical covariance would have an eigenvalue near 60)
    assert ev.max() < 2.0 and ev.min() > 0.6
    assert np.abs(r.center).max() < 0.2


def test_affine_equivariance():
    X = _contaminated(400, 3, seed=3)
    A = np.array([[2.0, 0.5, 0.0], [0.0, 1.0, -1.0], [0.3, 0.0, 3.0]])
    b = np.array([10.0, -5.0, 1.0])
    r1 = cov_mcd(X, random_state=4)
    r2 = cov_mcd(X @ A.T + b, random_state=4)
    # same subsets are drawn; the C-steps are affine equivariant
    assert_allclose(r2.cov, A @ r1.cov @ A.T, rtol=1e-8, atol=1e-10)
    assert_allclose(r2.center, A @ r1.center + b, rtol=1e-8)
    assert_allclose(r2.crit, r1.crit + 2 * np.log(abs(np.linalg.det(A))), rtol=1e-9)


def test_reweighting_formula():
    X = _contaminated(500, 2, seed=5)
    r = cov_mcd(X, random_state=0)
    d2 = np.einsum("ij,jk,ik->i", X - r.raw_center, np.linalg.inv(r.raw_cov), X - r.raw_center)
    w = d2 <= stats.chi2.ppf(0.975, 2)
    assert_allclose(r.raw_weights, w.astype(float))
    c = np.cov(X[w], rowvar=False) * mcd_consistency_factor(2, w.mean()) * mcd_small_sample_factor(
        2, 500, 0.5, reweighted=True
    )
    assert_allclose(r.cov, c, rtol=1e-10)
    raw = np.cov(X[r.best], rowvar=False) * mcd_consistency_factor(2, r.quan / 500) * mcd_small_sample_factor(2, 500)
    assert_allclose(r.raw_cov, raw, rtol=1e-10)
    assert_allclose(r.crit, np.linalg.slogdet(np.cov(X[r.best], rowvar=False))[1], rtol=1e-10)


def test_univariate_exact_window():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.standard_normal(35), rng.normal(8, 1, 6)])
    r = cov_mcd(x)  # deterministic
    n, h = 41, h_alpha_n(0.5, 41, 1)
    xs = np.sort(x)
    v = np.array([xs[i:i + h].var() for i in range(n - h + 1)])
    i = int(v.argmin())
    assert_allclose(r.raw_center[0], xs[i:i + h].mean(), rtol=1e-13)
    # covMcd uses the divisor h for p = 1
    assert_allclose(r.raw_cov[0, 0], v[i] * mcd_consistency_factor(1, h / n) * mcd_small_sample_factor(1, n), rtol=1e-12)
    r2 = cov_mcd(x, random_state=99)
    assert_allclose(r2.cov, r.cov, rtol=0)


def test_exhaustive_small_samples_are_deterministic():
    X = _contaminated(20, 2, seed=8)
    a = cov_mcd(X, random_state=1)
    b = cov_mcd(X, random_state=2)
    assert_allclose(a.cov, b.cov, rtol=1e-14)
    assert np.array_equal(a.best, b.best)


def test_reproducible_with_random_state():
    X = _contaminated(2000, 4, seed=9)
    a = cov_mcd(X, random_state=123)  # an int seed is R's set.seed(123) (tests/core/test_mcd_rstream.py)
    b = cov_mcd(X, random_state=123)
    c = cov_mcd(X, random_state=np.random.default_rng(123))  # pysdc's own stream
    d = cov_mcd(X, random_state=np.random.default_rng(123))
    assert_allclose(a.cov, b.cov, rtol=0)
    assert_allclose(c.cov, d.cov, rtol=0)


def test_large_n_path_matches_exact_csteps():
    # the banded C-steps must give the same subset as plain full C-steps
    X = _contaminated(30000, 3, seed=10)
    r = cov_mcd(X, random_state=0)
    d2 = np.einsum("ij,jk,ik->i", X - X[r.best].mean(0), np.linalg.inv(np.cov(X[r.best], rowvar=False)),
                   X - X[r.best].mean(0))
    # a C-step from the returned subset does not lower the determinant noticeably
    nxt = np.argpartition(d2, r.quan - 1)[: r.quan]
    ld_next = np.linalg.slogdet(np.cov(X[nxt], rowvar=False))[1]
    assert ld_next >= r.crit - 1e-8


# ---------------------------------------------------------------- refusals / degenerate


def test_refusals():
    with pytest.raises(InvalidParameterError, match="n = 2"):
        cov_mcd(np.ones((2, 3)))
    with pytest.raises(InvalidParameterError, match="p \\+ 1"):
        cov_mcd(np.random.default_rng(0).standard_normal((4, 3)))
    with pytest.raises(InvalidParameterError, match="alpha"):
        cov_mcd(np.zeros((10, 2)), alpha=0.4)
    with pytest.raises(InvalidParameterError, match="nsamp"):
        cov_mcd(np.zeros((10, 2)), nsamp=0)
    with pytest.raises(InvalidParameterError, match="numeric"):
        cov_mcd(np.array([["a", "b"]] * 10))
    with pytest.raises(InvalidParameterError, match="random_state"):
        cov_mcd(np.random.default_rng(0).standard_normal((10, 2)), random_state="x")


def test_missing_rows_dropped():
    X = _contaminated(100, 2, seed=11)
    Y = X.copy()
    Y[5, 1] = np.nan
    Y[7, 0] = np.inf
    r = cov_mcd(Y, random_state=0)
    assert r.n_obs == 98 and 5 not in r.rows and 7 not in r.rows
    assert r.raw_weights.shape == (98,)


def test_small_n_warns():
    X = np.random.default_rng(0).standard_normal((7, 4))
    with pytest.warns(DegenerateResultWarning, match="2 \\* p"):
        cov_mcd(X, random_state=0)


def test_exact_fit_warns_and_returns_hyperplane_cov():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 2))
    X[:30, 1] = 2 * X[:30, 0] + 1
    with pytest.warns(DegenerateResultWarning, match="hyperplane"):
        r = cov_mcd(X, random_state=0)
    assert r.singularity == "on.hyperplane" and r.crit == -np.inf
    assert_allclose(r.weights[:30], 1) and r.weights[30:].sum() == 0
    h = r.quan
    expected = np.cov(X[:30], rowvar=False) * mcd_consistency_factor(2, h / 40) * mcd_small_sample_factor(2, 40)
    assert_allclose(r.cov, expected, rtol=1e-10)


def test_constant_column_warns():
    X = np.random.default_rng(4).standard_normal((50, 3))
    X[:, 1] = 5.0
    with pytest.warns(DegenerateResultWarning):
        r = cov_mcd(X, random_state=0)
    assert r.singularity == "on.hyperplane"
    assert_allclose(r.cov[1], 0, atol=1e-12)


def test_univariate_identical_majority():
    x = np.concatenate([np.full(15, 3.0), np.random.default_rng(0).standard_normal(10)])
    with pytest.warns(DegenerateResultWarning, match="identical"):
        r = cov_mcd(x)
    assert r.cov[0, 0] == 0 and r.center[0] == 3.0 and r.singularity == "identicalObs"


# ---------------------------------------------------------------- live robustbase -----


# Rscript with robustbase (Debian: r-cran-robustbase); skipped with the reason by tests/conftest.py
needs_robustbase = pytest.mark.rscript("robustbase", sdcmicro=False)


def _r_json(code: str):
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def _r_covmcd(tmp_path, X, seeds=(1,)):
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",", fmt="%.17g")
    seeds_r = "c(" + ",".join(str(s) for s in seeds) + ")"
    code = f"""
    suppressMessages(library(robustbase))
    x <- as.matrix(read.csv("{path}", header = FALSE))
    res <- lapply({seeds_r}, function(s) {{ set.seed(s); m <- suppressWarnings(covMcd(x))
      list(cov = m$cov, center = m$center, raw_cov = m$raw.cov, best = if (is.null(m$best)) integer(0) else m$best,
           crit = m$crit, raw_cnp2 = m$raw.cnp2, cnp2 = m$cnp2) }})
    f <- function(v) paste0("[", paste(sprintf("%.17g", v), collapse = ","), "]")
    cat("[", paste(sapply(res, function(m) sprintf(
      '{{"cov":%s,"center":%s,"raw_cov":%s,"best":%s,"crit":%.17g,"raw_cnp2":%s,"cnp2":%s}}',
      f(m$cov), f(m$center), f(m$raw_cov), f(m$best), m$crit, f(m$raw_cnp2), f(m$cnp2))), collapse = ","), "]")
    """
    res = _r_json(code)
    p = X.shape[1]
    for m in res:
        for k in ("cov", "raw_cov"):
            m[k] = np.array(m[k]).reshape(p, p, order="F")
    return res


@needs_robustbase
def test_live_factors_match_robustbase():
    grid = [(p, n, a) for p in (1, 2, 3, 4, 6, 9, 12) for n in (2 * p + 2, 25, 60, 500, 10**5)
            for a in (0.5, 0.7, 0.95) if n > p + 1]
    ps = ",".join(str(g[0]) for g in grid)
    ns = ",".join(str(g[1]) for g in grid)
    al = ",".join(str(g[2]) for g in grid)
    code = f"""
    suppressMessages(library(robustbase))
    p <- c({ps}); n <- c({ns}); a <- c({al})
    r <- mapply(function(p, n, a) c(.MCDcnp2(p, n, a), .MCDcnp2.rew(p, n, a), .MCDcons(p, a)), p, n, a)
    cat("[", paste(sprintf("%.17g", r), collapse = ","), "]")
    """
    r = np.array(_r_json(code)).reshape(-1, 3)
    ours = np.array([[mcd_small_sample_factor(p, n, a), mcd_small_sample_factor(p, n, a, reweighted=True),
                      mcd_consistency_factor(p, a)] for p, n, a in grid])
    assert_allclose(ours, r, rtol=1e-12)


@needs_robustbase
@pytest.mark.parametrize("n,p", [(20, 2), (16, 3), (14, 4), (13, 5)])
def test_live_exhaustive_matches_exactly(tmp_path, n, p):
    # robustbase enumerates all (p+1)-subsets here: a deterministic result
    X = _contaminated(n, p, seed=n * 10 + p, frac=0.15)
    r = _r_covmcd(tmp_path, X)[0]
    m = cov_mcd(X, random_state=0)
    assert np.array_equal(np.sort(m.best) + 1, np.sort(r["best"]))
    assert_allclose(m.crit, r["crit"], rtol=1e-12)
    assert_allclose(m.raw_cov, r["raw_cov"], rtol=1e-10)
    assert_allclose(m.cov, r["cov"], rtol=1e-10)
    assert_allclose(m.cnp2, r["cnp2"], rtol=1e-12)


@needs_robustbase
def test_live_univariate_matches_exactly(tmp_path):
    x = _contaminated(57, 1, seed=4, frac=0.2)
    r = _r_covmcd(tmp_path, x)[0]
    m = cov_mcd(x)
    assert_allclose(m.raw_cov, r["raw_cov"], rtol=1e-12)
    assert_allclose(m.cov, r["cov"], rtol=1e-12)
    assert_allclose(m.center, r["center"], rtol=1e-12)
    assert_allclose(m.crit, r["crit"], rtol=1e-12)


@needs_robustbase
@pytest.mark.parametrize("n,p", [(300, 3), (2000, 5), (8000, 4)])
def test_live_random_within_robustbase_spread(tmp_path, n, p):
    # well-determined optimum: our eigenvalues fall within robustbase's seed-to-seed band
    # widened by the documented tolerance (rtol 2% here; d_utility's table is looser)
    X = _contaminated(n, p, seed=n + p)
    rs = _r_covmcd(tmp_path, X, seeds=(1, 2, 3))
    ev_r = np.array([np.linalg.eigvalsh(r["cov"]) for r in rs])
    for seed in (0, 1):
        ev = np.linalg.eigvalsh(cov_mcd(X, random_state=seed).cov)
        assert np.all(ev >= ev_r.min(axis=0) * 0.98) and np.all(ev <= ev_r.max(axis=0) * 1.02)


def test_all_observations_kept_gives_the_classical_covariance():
    # n = 5, p = 3 (< 2p): the reweighting keeps every record, so the estimate is the sample
    # covariance with correction factors (1, 1), as robustbase reports them
    X = np.array([[1.0, 10.0, 0.5], [2.5, -3.0, 0.25], [4.0, 7.5, 2.0], [8.0, 2.0, 1.0], [3.25, 6.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        r = cov_mcd(X, random_state=0)
    assert r.weights.sum() == 5 and r.cnp2 == (1.0, 1.0)
    np.testing.assert_allclose(r.cov, np.cov(X, rowvar=False), rtol=1e-12)
    np.testing.assert_allclose(r.center, X.mean(axis=0), rtol=1e-12)


def test_univariate_exact_fit_uses_the_rows_at_the_median():
    # variable 2 takes its median value (0) in 7 of 9 records >= h = 6: those records lie on the
    # hyperplane x2 = 0, and the covariance is theirs times the raw correction factors (covMcd's rule)
    X = np.array([[0, 1], [1, 0], [0, 1], [1, 0], [0, 0], [0, 0], [1, 0], [1, 0], [0, 0]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        r = cov_mcd(X, random_state=0)
    assert r.singularity == "on.hyperplane"
    on = X[X[:, 1] == 0]
    factor = r.raw_cnp2[0] * r.raw_cnp2[1]
    assert_allclose(r.cov, np.cov(on, rowvar=False) * factor, rtol=1e-12)
