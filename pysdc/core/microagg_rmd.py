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

Missing values (observed with sdcMicro 5.8.0 on ``r_reference/inputs/ma31``, pinned by the case
``microaggregation_more:ma31:rmd:na``): the standardisation skips them; ``covMcd`` runs on the complete records,
so only those have a robust distance and only they start a group; the distance between two records is R's
``dist`` (over the variables both have, scaled up by ``p / count``; missing where they share none). A group's
value of a variable is missing when one of its records misses it: sdcMicro then drops the values of the other
records of the group (:func:`rmd_na` returns that, and the count of the values dropped); ``na_rm`` takes the mean
of the present values instead. The last group is the records left whose distance to the first record is not
missing; a record sharing no variable with the first one keeps its own values.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import lapack
from scipy.spatial import cKDTree

from .._errors import DegenerateResultWarning, InvalidParameterError
from .distance import r_scale, r_sd
from .mcd import cov_mcd
from .microagg_pca import standardise
from .microagg_stats import trimmed_means

__all__ = ["robust_distances", "rmd_groups", "rmd_groups_tree", "TREE_FROM", "rmd", "rmd_groups_na", "rmd_na"]


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


#: from this many records on, :func:`rmd_groups` finds each group's nearest records with a k-d tree
TREE_FROM = 4096


def rmd_groups(x: np.ndarray, aggr: int, rdist: np.ndarray, *, path: str = "auto") -> np.ndarray:
    """0-based groups of sdcMicro's rmd, given the robust distances ``rdist`` of the records.

    ``path``: ``"dense"`` computes each round's distances to every remaining record; ``"tree"`` takes the
    candidates from a k-d tree and the same distances for them (the same groups; :func:`rmd_groups_tree`);
    ``"auto"``: the tree from :data:`TREE_FROM` records on. Standardised values that are not all finite (a
    constant variable) take the dense path.
    """
    z = standardise(x)
    if path != "dense" and (path == "tree" or z.shape[0] >= TREE_FROM) and np.isfinite(z).all():
        return rmd_groups_tree(z, aggr, rdist)
    return _rmd_groups_dense(z, aggr, rdist)


def _near(d: np.ndarray, ids: np.ndarray, aggr: int) -> np.ndarray:
    """The ``aggr`` records of smallest ``d`` (``ids`` in record order); at the largest distance taken, the earlier
    records (R's ``order``)."""
    kth = np.partition(d, aggr - 1)[aggr - 1]
    less = np.flatnonzero(d < kth)
    return ids[np.concatenate([less, np.flatnonzero(d == kth)[: aggr - less.size]])]


def _sq_dist(cols: np.ndarray, zr: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances of the columns of ``cols`` (variables x records) to ``zr``: the squares added
    variable after variable (the same operations for every subset of the columns)."""
    diff = cols - zr[:, None]
    return (diff * diff).sum(axis=0)


def _rmd_groups_dense(z: np.ndarray, aggr: int, rdist: np.ndarray) -> np.ndarray:
    n = z.shape[0]
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
        d = _sq_dist(cols, z[r])
        d[dead] = np.inf
        near = _near(d, np.arange(ids.size), aggr)
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


#: the tree's squared distance may differ from :func:`_sq_dist`'s in the last bits; a record the tree did not
#: return is known to be farther than the group's largest distance only beyond this relative margin
_TREE_MARGIN = 1e-9


def rmd_groups_tree(z: np.ndarray, aggr: int, rdist: np.ndarray) -> np.ndarray:
    """:func:`rmd_groups` on standardised finite ``z`` with a k-d tree (scipy's ``cKDTree``) of the remaining records.

    Each round asks the tree for the ``K`` records nearest to the group's first record, computes the distances of
    the not yet grouped ones among them exactly as the dense path does (:func:`_sq_dist`), and accepts them when
    the ``K``-th tree distance exceeds their ``aggr``-th smallest distance by :data:`_TREE_MARGIN` (every record
    not returned is then farther, so the group and its ties are the dense path's); else ``K`` doubles. The tree is
    rebuilt on the remaining records when half of its records are grouped; a round whose ``K`` would reach a
    quarter of the remaining records computes every distance (as the dense path).
    """
    n = z.shape[0]
    groups = np.full(n, -1, dtype=np.int64)
    by_distance = np.lexsort((np.arange(n), -rdist))
    cols = np.ascontiguousarray(z.T)
    live_ids = np.arange(n)  # the tree's records (record order)
    tree = cKDTree(z)
    remaining = n
    gid = 0
    pos = 0
    k_start = max(2, 2 * aggr)
    while remaining >= 2 * aggr:
        while groups[by_distance[pos]] >= 0:
            pos += 1
        r = by_distance[pos]
        zr = z[r]
        k = k_start
        while True:
            if 4 * k >= remaining:  # dense round on the remaining records
                cand = np.flatnonzero(groups < 0)
                near = _near(_sq_dist(cols[:, cand], zr), cand, aggr)
                break
            dt, j = tree.query(zr, k=k)
            cand = live_ids[j]
            cand = np.sort(cand[groups[cand] < 0])  # record order
            if cand.size >= aggr:
                d = _sq_dist(cols[:, cand], zr)
                kth = np.partition(d, aggr - 1)[aggr - 1]
                if dt[-1] * dt[-1] > kth * (1 + _TREE_MARGIN) + 1e-300:
                    near = _near(d, cand, aggr)
                    break
            k *= 2
        groups[near] = gid
        remaining -= aggr
        gid += 1
        if remaining * 2 < live_ids.size and remaining >= 2 * aggr:
            live_ids = np.flatnonzero(groups < 0)
            tree = cKDTree(z[live_ids])
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


def _r_dist_to(z: np.ndarray, r: int) -> np.ndarray:
    """R's ``dist(z)`` (euclidean) from record ``r`` to every record: the squared differences over the variables
    both records have, summed in variable order, divided by ``count / p`` when some are missing, the root;
    missing where they share no variable."""
    p = z.shape[1]
    diff = z - z[r]
    ok = ~np.isnan(diff)
    sq = np.where(ok, diff * diff, 0.0)
    acc = np.zeros(z.shape[0])
    for j in range(p):  # loop over variables (R's order of the sum)
        acc = acc + sq[:, j]
    cnt = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(cnt == p, acc, acc / (cnt / p))
        return np.where(cnt > 0, np.sqrt(acc), np.nan)


def rmd_groups_na(z: np.ndarray, aggr: int, rdist: np.ndarray) -> np.ndarray:
    """sdcMicro's rmd groups on standardised data with missing values (``rdist`` NaN for incomplete records).

    0-based groups; a record sharing no variable with the first record and not grouped before keeps its own
    group (sdcMicro leaves its values as they are). Raises where sdcMicro stops: no complete record left to
    start a group, fewer than ``aggr`` records with a distance to it, or a last group of one record.
    """
    n = z.shape[0]
    groups = np.full(n, -1, dtype=np.int64)
    ok = ~np.isnan(rdist)
    by_distance = np.lexsort((np.arange(n), -np.where(ok, rdist, -np.inf)))[: int(ok.sum())]
    pos = 0
    for gid in range(n // aggr - 1):  # one group per round, as sdcMicro (n >= 2 * aggr)
        while pos < by_distance.size and groups[by_distance[pos]] >= 0:
            pos += 1
        if pos == by_distance.size:
            raise InvalidParameterError(
                "microaggregation(method='rmd'): no complete record is left to start a group (only complete records "
                "have a robust distance); sdcMicro stops ('replacement has length zero').")
        d = _r_dist_to(z, by_distance[pos])
        d[groups >= 0] = np.nan
        cand = np.flatnonzero(~np.isnan(d))
        if cand.size < aggr:
            raise InvalidParameterError(
                "microaggregation(method='rmd'): fewer than aggr records share a variable with a group's first "
                "record; sdcMicro stops ('replacement has length zero').")
        near = cand[np.lexsort((cand, d[cand]))[:aggr]]  # R's which.min, aggr times: ties in record order
        groups[near] = gid
    gid = n // aggr - 1
    d0 = _r_dist_to(z, 0)
    d0[0] = 0.0  # sdcMicro sets the diagonal to 0 (a first record missing every variable included)
    last = np.flatnonzero((groups < 0) & ~np.isnan(d0))
    if last.size == 1:
        raise InvalidParameterError(
            "microaggregation(method='rmd'): one record is left for the last group; sdcMicro stops (colMeans of a "
            "vector).")
    groups[last] = gid
    alone = np.flatnonzero(groups < 0)
    groups[alone] = gid + 1 + np.arange(alone.size)
    return groups


def _col_means_narm(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    s = np.cumsum(np.where(ok, x, 0.0).astype(np.longdouble), axis=0)[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (s / ok.sum(axis=0)).astype(np.float64)


def rmd_na(x: np.ndarray, aggr: int, random_state=None, *, na_rm: bool = False
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """sdcMicro's rmd on one stratum with missing values: (values, 0-based groups, records alone, values dropped).

    ``na_rm=False`` is sdcMicro's: a group's value is missing where one of its records misses the variable, so
    the present values of the others are dropped (their count is returned). ``na_rm=True``: the mean of the
    present values (a record's own missing value stays missing). ``alone``: the records sdcMicro leaves as they
    are (they share no variable with the first record).
    """
    z = r_scale(x)
    complete = ~np.isnan(z).any(axis=1)
    rd = np.full(x.shape[0], np.nan)
    rd[complete] = robust_distances(z[complete], random_state=random_state)
    g = rmd_groups_na(z, aggr, rd)
    centre = _col_means_narm(x)
    sd = r_sd(x)
    zs = (x - centre) / sd
    n = x.shape[0]
    sizes = np.bincount(g)
    alone = sizes[g] == 1
    vals = np.empty_like(x)
    for j in range(x.shape[1]):  # loop over variables
        col = zs[:, j]
        m = trimmed_means(col, g, 0.0)  # sdcMicro's group means (missing where a record misses the variable)
        present = ~np.isnan(col)
        if na_rm and (np.isnan(m) & present).any():  # those groups: the mean of their present values
            sums = np.bincount(g, weights=np.where(present, col, 0.0))
            cnt = np.bincount(g, weights=present.astype(np.float64))
            with np.errstate(invalid="ignore", divide="ignore"):
                pm = (sums / cnt)[g]
            fill = np.isnan(m) & present
            m[fill] = pm[fill]
        m[alone] = col[alone]
        vals[:, j] = m * sd[j] + centre[j]
    dropped = int((np.isnan(vals) & ~np.isnan(x)).sum())
    return vals, g, np.flatnonzero(alone), dropped if n else 0
