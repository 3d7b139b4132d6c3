"""sdcMicro's clustering microaggregation methods ``clustpca``, ``clustpppca`` and ``influence`` (issue 28, family 3).

What sdcMicro 5.8.0 does per stratum (observed by running it; pinned by
``r_reference/outputs/microaggregation_clust.json``):

1. the records are clustered into ``nc`` clusters with ``cluster::clara(x, nc)`` (the default ``clustermethod``),
   ``cluster::pam(x, nc)`` (:mod:`pysdc.core.clara`) or ``stats::kmeans(x, nc)`` (Hartigan-Wong on R's stream:
   :mod:`pysdc.core.kmeans`) on the *untransformed* variables. ``transf`` is
   computed by sdcMicro (``scale(log(x))``, or a Box-Cox transformation from ``car``) but never used: only
   its errors and warnings reach the user;
2. the clusters are taken one after the other (cluster 1 first) and the records of each are ordered:

   * ``clustpca``: a cluster with fewer records than variables by the ``varsort``-th variable (R's ``order``:
     stable), any other by its first principal-component scores of ``princomp(scale(x))`` computed on that
     cluster alone (:func:`pysdc.core.microagg_pca.pca_scores`; stable);
   * ``clustpppca``: the same, with the scores of sdcMicro's robust ``prcompRob(x, 1)`` (projection pursuit,
     :func:`pysdc.core.microagg_pppca.ppca_scores`) instead of ``princomp``; ``clustmcdpca`` with the scores of
     ``princomp`` on MASS's ``cov.mcd`` (:func:`pysdc.core.mass_mcd.mcd_pca_scores`; R's stream);
   * ``influence``: by the variable on which the cluster's medoid (kmeans: its mean) has its largest value
     (stable); two
     variables sharing that largest value stop sdcMicro (an R replacement-length error);

3. the whole ordered sequence -- across cluster boundaries -- is cut into groups of ``aggr`` records, the
   remainder joining the last group, and each record gets its group's statistic.
"""

from __future__ import annotations

import numpy as np

from .clara import clara, pam
from .kmeans import kmeans
from .mass_mcd import mcd_pca_scores
from .microagg import fixed_groups
from .microagg_pca import pca_scores
from .microagg_pppca import ppca_scores

__all__ = ["CLUSTER_METHODS", "centres_of", "cluster_of", "clust_order", "medoid_ties"]

#: clustermethods computed natively (the others, cmeans/bclust, only by sdcMicro)
CLUSTER_METHODS = ("clara", "pam", "kmeans")


def cluster_of(x: np.ndarray, nc: int, clustermethod: str, rng=None,
               notes: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The 1-based clusters of the records and their centres, cluster by cluster: for clara/pam the medoids'
    0-based record indices, for kmeans (R's stream ``rng``) the means themselves, shape ``(nc, p)``; R's
    warnings of kmeans are appended to ``notes``."""
    if clustermethod == "kmeans":
        res = kmeans(x, nc, rng)
        if notes is not None:
            notes.extend(res.warnings)
        return res.cluster, res.centers
    res = clara(x, nc) if clustermethod == "clara" else pam(x, nc)
    return res.clustering, res.medoids


def centres_of(x: np.ndarray, medoids: np.ndarray) -> np.ndarray:
    """The centres' values: the medoid records, or the kmeans means as given."""
    return medoids if medoids.ndim == 2 else x[medoids]


def medoid_ties(x: np.ndarray, medoids: np.ndarray) -> np.ndarray:
    """For ``influence``: the clusters (0-based) whose medoid has its largest value on two or more variables."""
    m = centres_of(x, medoids)
    return np.flatnonzero((m == m.max(axis=1, keepdims=True)).sum(axis=1) > 1)


def clust_order(x: np.ndarray, clustering: np.ndarray, medoids: np.ndarray, method: str,
                varsort: int = 1, rng=None, arbitrary: list | None = None) -> np.ndarray:
    """The records (0-based) in sdcMicro's order: cluster after cluster, each ordered as ``method`` does.

    ``arbitrary`` (clustpca): gets the 1-based clusters whose first principal axis is arbitrary (equal leading
    eigenvalues: :func:`pysdc.core.microagg_pca.first_axis_arbitrary`)."""
    nc = medoids.shape[0]
    cen = centres_of(x, medoids)
    parts = []
    for c in range(nc):  # clusters, not records
        w = np.flatnonzero(clustering == c + 1)
        if method == "influence":
            key = x[w, int(np.argmax(cen[c]))]
        elif w.size < x.shape[1]:
            key = x[w, varsort - 1]
        elif method == "clustpppca":
            key = ppca_scores(x[w], 1)
        elif method == "clustmcdpca":
            key = mcd_pca_scores(x[w], rng)
        else:
            tie: list = []
            key = pca_scores(x[w], tie)
            if tie and arbitrary is not None:
                arbitrary.append(c + 1)
        parts.append(w[np.argsort(key, kind="stable")])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def clust_groups(order: np.ndarray, aggr: int) -> np.ndarray:
    """Each record's 0-based group: ``aggr`` at a time along ``order`` (the remainder joins the last group)."""
    g = np.empty(order.size, dtype=np.int64)
    g[order] = fixed_groups(order.size, aggr)
    return g
