"""sdcMicro's ``microaggregation(method = "pca")`` ordering (issue 28, family 3), observed with sdcMicro 5.8.0.

What sdcMicro does (observed, and pinned by ``r_reference/outputs/microaggregation_more.json``):
the variables are standardised (R's ``scale``: centred by their means, divided by their standard
deviations with divisor ``n - 1``), R's ``princomp`` is run on the standardised data (the maximum-
likelihood covariance, LAPACK's symmetric eigen decomposition, and -- R's ``fix_sign = TRUE`` -- each
loading's sign chosen so that its first element is non-negative), the records are ordered by their
scores on the first component (R's ``order``: stable), and taken ``aggr`` at a time in that order, the
remainder joining the last group. A missing value, or a constant variable, stops sdcMicro (``cov.wt``:
"'x' must contain finite values only"); so do fewer records than variables (``princomp``).

The arithmetic follows R's order of operations (long-double column sums, the score as the sum of the
products variable after variable, as the reference BLAS does), so that records with equal scores stay
in record order and nearly equal scores fall as in R.
"""

from __future__ import annotations

import numpy as np

from .microagg import fixed_groups

__all__ = ["pca_scores", "pca_groups", "standardise"]


def _ld_col_sums(x: np.ndarray) -> np.ndarray:
    return np.cumsum(x.astype(np.longdouble), axis=0)[-1] if x.shape[0] else np.zeros(x.shape[1], np.longdouble)


def standardise(x: np.ndarray) -> np.ndarray:
    """R's ``scale(x)``: centred by ``colMeans`` and divided by ``sqrt(sum(v^2) / (n - 1))`` (the sum a long-double
    sum rounded to double, then divided)."""
    n = x.shape[0]
    centre = (_ld_col_sums(x) / n).astype(np.float64)
    xc = x - centre
    sd = np.sqrt(_ld_col_sums(xc * xc).astype(np.float64) / max(1, n - 1))  # R: sum() returns a double
    with np.errstate(invalid="ignore", divide="ignore"):
        return xc / sd


def pca_scores(x: np.ndarray) -> np.ndarray:
    """The first-component scores of R's ``princomp(scale(x))`` (``fix_sign = TRUE``)."""
    z = standardise(x)
    n = z.shape[0]
    centre = _ld_col_sums(z * (1.0 / n)).astype(np.float64)  # cov.wt's centre: colSums(wt * x), wt = 1/n
    zc = z - centre
    s = zc * np.sqrt(1.0 / n)
    cov = s.T @ s  # cov.wt(method = "ML"); princomp multiplies by (1 - 1/n) and back: the same eigenvectors
    vals, vecs = np.linalg.eigh(cov)
    v = vecs[:, np.argmax(vals)]
    if v[0] < 0:
        v = -v
    score = zc[:, 0] * v[0]
    for j in range(1, zc.shape[1]):  # reference dgemm: the products added variable after variable
        score = score + zc[:, j] * v[j]
    return score


def pca_groups(x: np.ndarray, aggr: int) -> np.ndarray:
    """Each record's 0-based group: the records ordered by :func:`pca_scores`, ``aggr`` at a time."""
    order = np.argsort(pca_scores(x), kind="stable")
    g = np.empty(x.shape[0], dtype=np.int64)
    g[order] = fixed_groups(x.shape[0], aggr)
    return g
