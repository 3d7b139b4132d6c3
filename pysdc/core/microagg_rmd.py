"""sdcMicro's ``microaggregation(method = "rmd")`` grouping (issue 28, family 3), observed with sdcMicro 5.8.0.

What sdcMicro does (observed step by step, and pinned by ``r_reference/outputs/microaggregation_more.json``):

* the variables are standardised (R's ``scale``);
* the robust Mahalanobis distance of every record is computed once, from robustbase's ``covMcd`` of the
  standardised data (its reweighted centre and covariance; ``covMcd`` draws its random subsets from R's
  stream, so the result depends on ``set.seed``). Where ``covMcd`` finds an exact fit (its covariance
  singular, e.g. a variable that is mostly zeros) sdcMicro stops in ``solve`` or, where R still inverts the
  matrix, returns groups (eusilc's ``hy040n``); pysdc stops either way and points to the bridge;
* each round takes the not yet grouped record with the largest robust distance (the first in record
  order among equal ones) and groups it with its ``aggr - 1`` nearest not yet grouped records by squared
  Euclidean distance on the standardised data (R's ``order``: among equal distances the earlier
  record); one group per round while at least ``2 * aggr`` records remain; the rest is the last group;
* a group's value is the group mean (R's ``mean``) of the variable standardised with its ``colMeans`` and
  its standard deviation as R's ``sd`` computes it (two-pass mean, long-double sum of squares; not
  ``scale``'s, which differs in the last bits), transformed back (times that deviation, plus the mean).
  ``measure`` is ignored (sdcMicro's list then has no ``measure``).

The loop runs over groups (``n / aggr`` rounds), each vectorised over the remaining records (compacted when
half of them are grouped; the ``aggr`` nearest found by a partition, ties taken in record order).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import lapack

from .._errors import DegenerateResultWarning, InvalidParameterError
from .distance import r_sd
from .mcd import cov_mcd
from .microagg_pca import standardise
from .microagg_stats import trimmed_means

__all__ = ["robust_distances", "rmd_groups", "rmd"]


def robust_distances(x: np.ndarray, random_state=None) -> np.ndarray:
    """Squared robust Mahalanobis distances from ``covMcd(x)`` (reweighted centre and covariance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        m = cov_mcd(x, random_state=random_state)
    if m.singularity is not None:
        raise InvalidParameterError(
            "microaggregation(method='rmd'): covMcd found an exact fit (many records on a hyperplane; its "
            "covariance is singular); sdcMicro's handling of it is not reproduced natively: use "
            "pysdc.r.microaggregation.")
    cov = np.asarray(m.cov, dtype=np.float64)
    lu, piv, info = lapack.dgetrf(cov)
    rcond = lapack.dgecon(lu, np.abs(cov).sum(axis=0).max(), norm="1")[0] if info == 0 else 0.0
    if not rcond >= np.finfo(np.float64).eps:  # R's solve(): "system is computationally singular"
        raise InvalidParameterError(
            "microaggregation(method='rmd'): the robust covariance (covMcd) is singular (reciprocal condition "
            f"number {rcond:.6g}); sdcMicro stops (solve: system is computationally singular).")
    d = x - m.center
    return np.einsum("ij,ij->i", d @ np.linalg.inv(cov), d)


def rmd_groups(x: np.ndarray, aggr: int, rdist: np.ndarray) -> np.ndarray:
    """0-based groups of sdcMicro's rmd, given the robust distances ``rdist`` of the records."""
    n = x.shape[0]
    z = standardise(x)
    groups = np.full(n, -1, dtype=np.int64)
    by_distance = np.lexsort((np.arange(n), -rdist))  # largest first; ties: record order
    ids = np.arange(n)  # the remaining records (in record order), compacted now and then
    cols = np.ascontiguousarray(z.T)
    dead = np.zeros(n, dtype=bool)
    remaining = n
    gid = 0
    pos = 0
    while remaining >= 2 * aggr:
        while groups[by_distance[pos]] >= 0:
            pos += 1
        r = by_distance[pos]
        diff = cols - z[r][:, None]
        d = (diff * diff).sum(axis=0)
        d[dead] = np.inf
        kth = np.partition(d, aggr - 1)[aggr - 1]
        less = np.flatnonzero(d < kth)
        near = np.concatenate([less, np.flatnonzero(d == kth)[: aggr - less.size]])  # ties: record order
        groups[ids[near]] = gid
        dead[near] = True
        remaining -= aggr
        gid += 1
        if remaining * 2 < ids.size:
            keep = ~dead
            ids, cols = ids[keep], cols[:, keep]
            dead = np.zeros(ids.size, dtype=bool)
    groups[groups < 0] = gid
    return groups


def _ld_sum(x: np.ndarray) -> np.ndarray:
    return np.cumsum(x.astype(np.longdouble), axis=0)[-1]


def rmd(x: np.ndarray, aggr: int, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's rmd on one stratum: (values, 0-based groups). ``random_state``: an int (R's ``set.seed``) or a
    :class:`pysdc.core.rrandom.RRandom` (advanced as covMcd advances R's stream)."""
    z = standardise(x)
    g = rmd_groups(x, aggr, robust_distances(z, random_state=random_state))
    centre = (_ld_sum(x) / x.shape[0]).astype(np.float64)
    sd = r_sd(x)
    zs = (x - centre) / sd  # the values are standardised with R's sd (not scale()'s) for the group means
    vals = np.column_stack([trimmed_means(zs[:, j], g, 0.0) * sd[j] + centre[j] for j in range(x.shape[1])])
    return vals, g
