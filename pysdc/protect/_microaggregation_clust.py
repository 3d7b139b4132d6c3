"""The per-stratum runners of sdcMicro's clustering microaggregation methods ``clustpca``, ``clustpppca``,
``clustmcdpca`` and ``influence``, and of ``pppca`` and ``mcdpca`` (issue 28, family 3), called by
:func:`pysdc.protect.microaggregation`.

The clusters come from ``cluster::clara`` or ``cluster::pam`` (:mod:`pysdc.core.clara`) or ``stats::kmeans``
(:mod:`pysdc.core.kmeans`, on R's stream seeded by ``random_state``), the orderings from
:mod:`pysdc.core.microagg_clust` (sdcMicro's robust ``prcompRob``: :mod:`pysdc.core.microagg_pppca`; MASS's
``cov.mcd``: :mod:`pysdc.core.mass_mcd`), the group statistics (every measure, sampling weights) from
:mod:`pysdc.core.microagg_stats`. The checks stop where sdcMicro 5.8.0 stops; the clustermethod ``bclust`` (e1071's
routine) runs only through :mod:`pysdc.r`.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._errors import CoercionWarning, InvalidParameterError, PysdcWarning
from .._validation import user_stacklevel
from ..core.clara import ClusterError
from ..core.kmeans import KMeansError
from ..core.mass_mcd import MCDError, mcd_pca_scores
from ..core.microagg import fixed_groups
from ..core.microagg_clust import CLUSTER_METHODS, centres_of, clust_order, cluster_of, medoid_ties
from ..core.microagg_pppca import ZeroDirection, ppca_scores
from ..core.microagg_stats import aggregate
from ..core.rrandom import RRandom

__all__ = ["CLUST_METHODS", "clust_runner"]

#: the methods of this module
CLUST_METHODS = ("clustpca", "influence", "clustpppca", "pppca", "clustmcdpca", "mcdpca")


def _check_args(method: str, clustermethod: str, transf: str, measure: str, trim) -> None:
    if clustermethod == "cmeans":
        raise InvalidParameterError(
            f"microaggregation(method={method!r}, clustermethod='cmeans'): sdcMicro 5.8.0 always stops here "
            "(its clust() assigns to an undefined object: \"object 'res' not found\").")
    if clustermethod not in CLUSTER_METHODS:
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): clustermethod {clustermethod!r} is not native in pysdc "
            "(e1071's bclust draws from R's random stream with routines pysdc does not reproduce); use "
            "clustermethod='clara' (sdcMicro's default), 'pam' or 'kmeans', or run it through sdcMicro with "
            "pysdc.r.microaggregation.")
    if measure == "trim" and (isinstance(trim, (bool, np.bool_)) or not isinstance(trim, numbers.Real)
                              or not np.isfinite(trim)):
        raise InvalidParameterError(f"microaggregation: trim must be a finite number (R's mean(x, trim)); got {trim!r}.")


def _check_stratum(method: str, x: np.ndarray, aggr: int, nc: int, transf: str, clustermethod: str = "clara") -> None:
    n = x.shape[0]
    if transf == "boxcox" and np.isnan(x).any():
        raise InvalidParameterError(
            f"microaggregation(method={method!r}, transf='boxcox'): the variables have missing values; car's "
            "powerTransform on them is not reproduced by pysdc: use pysdc.r.microaggregation.")
    if transf == "boxcox" and (x <= 0).any():
        raise InvalidParameterError(
            f"microaggregation(method={method!r}, transf='boxcox'): a variable has a value <= 0; sdcMicro stops "
            "(car::powerTransform: 'First argument must be strictly positive').")
    if clustermethod != "kmeans" and not 1 <= nc <= n - 1:  # kmeans: R's own stops (pysdc.core.kmeans)
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): nc={nc} clusters for a stratum of {n} record(s); sdcMicro stops "
            "(clara/pam: the number of clusters must be at least 1 and at most n-1).")


def _check_clusters(method: str, x: np.ndarray, clustering: np.ndarray, medoids: np.ndarray, varsort: int) -> None:
    if method == "influence":
        gone = np.flatnonzero(np.isnan(centres_of(x, medoids)).any(axis=1))
        if gone.size:
            raise InvalidParameterError(
                f"microaggregation(method='influence'): the medoid of cluster {int(gone[0]) + 1} has a missing value, "
                "so its largest value is NA; sdcMicro stops (R: 'replacement has length zero').")
        tied = medoid_ties(x, medoids)
        if tied.size:
            raise InvalidParameterError(
                f"microaggregation(method='influence'): the medoid of cluster {int(tied[0]) + 1} has its largest "
                "value on two variables; sdcMicro stops (R: 'number of items to replace is not a multiple of "
                "replacement length').")
        return
    p = x.shape[1]
    sizes = np.bincount(clustering, minlength=medoids.shape[0] + 1)[1:]
    if (sizes < p).any() and not 1 <= varsort <= p:
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): a cluster has fewer records than variables and is ordered by "
            f"variable varsort={varsort}, which is not one of the {p} variables; sdcMicro stops "
            "('undefined columns selected').")
    for c in np.flatnonzero(sizes >= p):  # clusters, not records
        if np.isnan(x[clustering == c + 1]).any():
            raise InvalidParameterError(
                f"microaggregation(method={method!r}): cluster {int(c) + 1} ({int(sizes[c])} records) has missing "
                "values; sdcMicro's principal components of it stop (princomp: 'x' must contain finite values "
                "only; prcompRob: 'missing value where TRUE/FALSE needed'; cov.mcd: 'missing or infinite values are "
                "not allowed').")
    if method != "clustpca":
        return
    for c in np.flatnonzero(sizes >= p):  # clusters, not records
        w = clustering == c + 1
        xs = x[w]
        if (xs.max(axis=0) == xs.min(axis=0)).any():
            raise InvalidParameterError(
                f"microaggregation(method='clustpca'): a variable is constant within cluster {int(c) + 1} "
                f"({int(sizes[c])} records); its standardised values are NaN and sdcMicro stops (princomp/cov.wt: "
                "'x' must contain finite values only).")


def _rng(random_state):
    """R's stream for MASS's cov.mcd: an int is R's ``set.seed``; None: a stream seeded by NumPy (not sdcMicro's)."""
    if random_state is None:
        return RRandom(int(np.random.default_rng().integers(0, 2**31 - 1)))
    if isinstance(random_state, RRandom):
        return random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise InvalidParameterError(
            f"microaggregation: random_state must be None or an int (R's set.seed); got {random_state!r}.")
    return RRandom(int(random_state))


def clust_runner(method: str, aggr: int, measure: str, trim: float, nc: int, clustermethod: str, transf: str,
                 varsort: int, random_state=None):
    """The per-stratum function ``x -> (values, groups)`` of ``method`` (``per_column`` False).

    ``random_state`` (mcdpca, clustmcdpca): an int is R's ``set.seed`` before the call; one R stream runs
    through the strata and clusters (MASS's cov.mcd draws from it when there are 5000 subsets or more)."""
    if method in ("pppca", "mcdpca"):
        _check_args(method, "clara", "none", measure, trim)
    else:
        _check_args(method, clustermethod, transf, measure, trim)
    rng = _rng(random_state) if method in ("mcdpca", "clustmcdpca") or (
        method in ("clustpca", "influence", "clustpppca", "clustmcdpca") and clustermethod == "kmeans") else None

    def _mcdpca_order(x):
        if np.isnan(x).any():
            raise InvalidParameterError(
                "microaggregation(method='mcdpca'): the variables have missing values; MASS's cov.mcd stops "
                "('missing or infinite values are not allowed').")
        return np.argsort(mcd_pca_scores(x, rng), kind="stable")

    def _pppca_order(x):
        if np.isnan(x).any():
            raise InvalidParameterError(
                "microaggregation(method='pppca'): the variables have missing values; sdcMicro's medians are then "
                "missing and it stops.")
        return np.argsort(ppca_scores(x, min(x.shape)), kind="stable")

    def _clust_order(x):
        _check_stratum(method, x, aggr, nc, transf, clustermethod)
        if transf == "log" and (x < 0).any():
            warnings.warn(
                f"microaggregation(method={method!r}): sdcMicro computes log(x) for transf='log' and R warns 'NaNs "
                "produced' on the negative values; that transformation is never used (sdcMicro clusters the "
                "untransformed data), so the result is sdcMicro's.", CoercionWarning, stacklevel=user_stacklevel())
        if clustermethod == "clara" and np.isnan(x).any():
            warnings.warn(
                f"microaggregation(method={method!r}): R's clara warns 'Distance computations with NAs: using correct "
                "instead of pre-2016 wrong formula' (sdcMicro does not set correct.d); pysdc computes the same "
                "(correct) distances.", CoercionWarning, stacklevel=user_stacklevel())
        notes: list = []
        try:
            clustering, medoids = cluster_of(x, nc, clustermethod, rng, notes)
        except KMeansError as exc:
            raise InvalidParameterError(
                f"microaggregation(method={method!r}): R's kmeans stops, and sdcMicro with it: {exc}") from None
        except ClusterError as exc:
            raise InvalidParameterError(
                f"microaggregation(method={method!r}): {clustermethod} stops on the missing values, and sdcMicro with "
                f"it: {exc}.") from None
        for note in notes:  # R's kmeans warnings, which sdcMicro passes on
            warnings.warn(f"microaggregation(method={method!r}): R's kmeans warns: {note} (the clusters are R's).",
                          PysdcWarning, stacklevel=user_stacklevel())
        _check_clusters(method, x, clustering, medoids, varsort)
        tied: list = []
        order = clust_order(x, clustering, medoids, method, varsort, rng, tied)
        if tied:  # the stratum (the runner's call, 0-based) and its clusters whose first principal axis is arbitrary
            run.arbitrary.append((run.calls - 1, tied))
        return order

    def run(x, weights_for=None):
        run.calls += 1
        try:
            order = {"pppca": _pppca_order, "mcdpca": _mcdpca_order}.get(method, _clust_order)(x)
        except MCDError as exc:
            raise InvalidParameterError(
                f"microaggregation(method={method!r}): MASS's cov.mcd stops on a "
                f"{'stratum' if method == 'mcdpca' else 'cluster'}, and sdcMicro with it: {exc}.") from None
        except ZeroDirection as exc:
            raise InvalidParameterError(
                f"microaggregation(method={method!r}): record {int(exc.args[0]) + 1} of a "
                f"{'stratum' if method == 'pppca' else 'cluster'} lies exactly at the medians of the variables "
                "(after the projections of sdcMicro's prcompRob): its direction is 0/0 and sdcMicro stops ('missing "
                "value where TRUE/FALSE needed').") from None
        n = order.size
        if n < 2 * aggr:
            raise InvalidParameterError(
                f"microaggregation: a stratum has {n} record(s), fewer than 2 * aggr = {2 * aggr} "
                f"(sdcMicro: 'Too less observations ({n}) for aggregate ={aggr}').")
        g_sorted = fixed_groups(n, aggr)
        vals = np.empty_like(x)
        w = None if weights_for is None else weights_for(order)  # sampling weights (microaggregation's rule)
        vals[order] = aggregate(x[order], g_sorted, measure, trim, w, run.note)  # the groups in sdcMicro's order
        groups = np.empty(n, dtype=np.int64)
        groups[order] = g_sorted
        return vals, groups

    run.per_column = False
    run.weighted = True
    run.note = []
    run.calls = 0
    run.arbitrary = []  # (stratum, [clusters]) whose princomp has equal leading eigenvalues (clustpca)
    return run
