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

__all__ = ["pca_scores", "pca_groups", "standardise", "first_axis_arbitrary"]


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


def first_axis_arbitrary(vals: np.ndarray, n: int) -> bool:
    """Whether the two largest eigenvalues ``vals`` of a standardised ``n``-record covariance (the correlation
    matrix up to the factor ``(n - 1) / n``) are equal up to rounding, so that its first principal axis -- any
    unit vector of their plane -- is whatever the rounding of the eigen routine picks.

    The threshold is ``4 (n + p) eps`` on the relative gap ``(l1 - l2) / l1``: an entry of the computed matrix is
    a sum of ``n`` products whose absolute values add up to at most ``sqrt(c_ii c_jj) <= 1``, so it carries an error
    of up to ``n eps`` (R's ``crossprod`` and NumPy's ``@`` add in different orders, so their matrices differ by
    as much); LAPACK's symmetric eigenvalues are backward stable, off by ``O(p eps) ||C||``, and ``l1 >= (n-1)/n`` (the
    trace is ``p (n-1)/n``). A pair of eigenvalues whose exact gap is 0 (two variables with correlation exactly 0)
    so lands well inside the threshold, while a genuine gap of the order of the threshold still turns the first
    axis by a visible angle (error / gap) between R and NumPy. sdcMicro's stored cases have relative gaps of at
    least 3e-3."""
    p = vals.shape[0]
    if p < 2:
        return False
    top = np.sort(vals)[-2:]
    return bool(top[1] - top[0] <= 4.0 * (n + p) * np.finfo(np.float64).eps * abs(top[1]))


def pca_scores(x: np.ndarray, arbitrary: list | None = None) -> np.ndarray:
    """The first-component scores of R's ``princomp(scale(x))`` (``fix_sign = TRUE``).

    ``arbitrary``: gets ``True`` appended when the first axis is arbitrary (:func:`first_axis_arbitrary`): equal
    leading eigenvalues, whose axis (and so the order of the records) sdcMicro takes from LAPACK's rounding too;
    the scores are returned all the same."""
    z = standardise(x)
    n = z.shape[0]
    centre = _ld_col_sums(z * (1.0 / n)).astype(np.float64)  # cov.wt's centre: colSums(wt * x), wt = 1/n
    zc = z - centre
    s = zc * np.sqrt(1.0 / n)
    cov = s.T @ s  # cov.wt(method = "ML"); princomp multiplies by (1 - 1/n) and back: the same eigenvectors
    vals, vecs = np.linalg.eigh(cov)
    if arbitrary is not None and first_axis_arbitrary(vals, n):
        arbitrary.append(True)
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
