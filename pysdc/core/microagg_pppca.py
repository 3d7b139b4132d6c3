"""sdcMicro's projection-pursuit principal component (``prcompRob``) of the ``pppca`` and ``clustpppca``
microaggregation methods (issue 28, family 3), observed with sdcMicro 5.8.0 (R 4.2.2, reference BLAS).

What sdcMicro computes (pinned by ``r_reference/outputs/microaggregation_clust.json``): the data are centred
by their column medians; for each component ``k`` (``pppca``: ``min(n, p)`` of them, ``clustpppca``: one) the
centred rows projected on the orthogonal complement of the earlier components, ``B = Xc P``, are normalised
to unit length (``A``), every *uncentred* record is projected on every direction (``Y = A P X'``, an n x n
matrix), and the direction whose projections have the largest MAD (R's ``mad``: ``1.4826 * median|y - median
y|``; the last record among equal largest MADs) is the component, its sign chosen so that its first element is
not negative. The records are then ordered by their scores ``Xc v1`` on the first component.

A record at the column medians (a zero row of ``B``, at any component) makes R's projections NaN and stops
sdcMicro ("missing value where TRUE/FALSE needed"); :func:`ppca_scores` raises :class:`ZeroDirection` there.
The products add variable after variable from 0, as the reference BLAS does; the sums of squares, medians
and means of two values follow R's long double arithmetic. The n x n projections are taken in row blocks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ZeroDirection", "ppca_scores", "r_median_rows"]

_LD = np.longdouble
_MAD = 1.4826


class ZeroDirection(ValueError):
    """A centred, projected record is exactly zero: sdcMicro's prcompRob stops."""


def _mean_of_two(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """R's ``mean(c(a, b))``: the long double sum halved, plus the mean deviation, rounded to double."""
    a, b = a.astype(_LD), b.astype(_LD)
    s = (a + b) / 2
    t = (a - s) + (b - s)
    with np.errstate(invalid="ignore"):
        out = np.where(np.isfinite(s), s + t / 2, s)
    return out.astype(np.float64)


def r_median_rows(y: np.ndarray) -> np.ndarray:
    """R's ``median`` of each row (NaN where a row has one)."""
    n = y.shape[1]
    lo, hi = (n - 1) // 2, n // 2
    part = np.partition(y, sorted({lo, hi}), axis=1)
    med = part[:, lo] if lo == hi else _mean_of_two(part[:, lo], part[:, hi])
    return np.where(np.isnan(y).any(axis=1), np.nan, med)


def _matmul_seq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` with each entry's products added in order from 0 (the reference BLAS's dgemm)."""
    out = np.zeros((a.shape[0], b.shape[1]))
    for jc in range(a.shape[1]):  # variables
        out += a[:, jc:jc + 1] * b[jc:jc + 1, :]
    return out


def _row_mads(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """R's ``apply(A %*% t(X), 1, mad)`` in blocks of rows of A."""
    n = x.shape[0]
    out = np.empty(a.shape[0])
    step = max(1, 2_000_000 // max(1, n))
    for lo in range(0, a.shape[0], step):  # blocks of rows
        y = _matmul_seq(a[lo:lo + step], x.T)
        centre = r_median_rows(y)
        out[lo:lo + step] = _MAD * r_median_rows(np.abs(y - centre[:, None]))
    return out


def ppca_scores(x: np.ndarray, ncomp: int) -> np.ndarray:
    """The first-component scores of sdcMicro's ``prcompRob(x, k)`` (``ncomp``: the components it computes,
    ``min(n, p)`` for ``k = 0``); raises :class:`ZeroDirection` where sdcMicro stops."""
    n, p = x.shape
    centre = r_median_rows(x.T)
    xc = x - centre
    proj = np.eye(p)
    first = None
    for _ in range(ncomp):  # components, not records
        b = _matmul_seq(xc, proj)
        sq = b * b
        norm = np.sqrt(np.cumsum(sq.astype(_LD), axis=1)[:, -1].astype(np.float64))
        if (norm == 0).any():
            raise ZeroDirection(int(np.flatnonzero(norm == 0)[0]))
        a = (1.0 / norm)[:, None] * b
        s = _row_mads(_matmul_seq(a, proj), x)  # R: A %*% P %*% t(X), from the left
        if np.isnan(s).any():  # pragma: no cover - finite a and x give finite projections
            raise ZeroDirection(int(np.flatnonzero(np.isnan(s))[-1]))
        j = int(np.flatnonzero(s == s.max())[-1])  # R: order(s)[n], stable: the last of the largest
        v = a[j].copy()
        if v[0] < 0:
            v = -v
        if first is None:
            first = v
        proj = proj - v[:, None] * v[None, :]
    return _matmul_seq(xc, first[:, None])[:, 0]
