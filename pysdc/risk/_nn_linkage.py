"""Distance-based (nearest-neighbour) record linkage at register scale, native.

Kernels: :func:`pysdc.core.linkage.nn_link` (k-d tree, Euclidean / Mahalanobis after whitening)
and :func:`pysdc.core.linkage.gower_nn` (Gower, by blocks and chunks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._validation import Any_, Columns, Frame, Interval, Options
from ..core.linkage import gower_nn, nn_link
from ._linkage_vars import check_vars_in, check_weights, encode_gower, numeric_matrix, own_original

__all__ = ["nn_linkage", "NNLinkageResult", "NN_LINKAGE_PARAMS"]

NN_LINKAGE_PARAMS = {
    "x": Frame(),
    "y": Frame(),
    "vars": Columns(of="x"),
    "distance": Options(("euclidean", "mahalanobis", "gower")),
    "weights": Any_(),
    "standardize": Options(("sd", "none")),
    "x_id": Columns(of="x", single=True, optional=True),
    "y_id": Columns(of="y", single=True, optional=True),
    "block": Columns(of="x", optional=True),
    "tol": Interval(low=0.0),
}


@dataclass(frozen=True, eq=False, repr=False)
class NNLinkageResult(_Repr):
    """Result of :func:`pysdc.nn_linkage`.

    Attributes
    ----------
    rate : float
        The share of protected records linked to their own original record, ties counted
        honestly: a record whose own original is among ``t`` originals at the minimum distance
        counts ``1/t`` (the chance that an attacker picking one of them at random is right).
    correct : float
        The same as a number of records (the sum of ``score``).
    rate_second : float
        The share of protected records whose own original is the nearest or the second nearest
        (the handbook's "linked or linked to the second nearest"; ties within ``tol`` included).
    nearest : numpy.ndarray of int
        Per protected record: the 0-based position in ``x`` of a nearest original (-1: no
        candidate).
    distance : numpy.ndarray of float
        Per protected record: the distance to its nearest original.
    n_tied : numpy.ndarray of int
        Per protected record: how many originals lie within ``tol`` of that minimum.
    score : numpy.ndarray of float
        Per protected record: ``1/n_tied`` where its own original is among the nearest, else 0
        (which records are linked correctly).
    true_distance : numpy.ndarray of float
        Per protected record: the distance to its own original (NaN without one).
    n_linked : int
        Protected records with an own original in ``x`` (the denominator of ``rate``).
    distance_used : str
        The distance.
    """

    rate: float
    correct: float
    rate_second: float
    nearest: np.ndarray
    distance: np.ndarray
    n_tied: np.ndarray
    score: np.ndarray
    true_distance: np.ndarray
    n_linked: int
    distance_used: str

    def __float__(self) -> float:
        return float(self.rate)


@measure(NN_LINKAGE_PARAMS, selects="variables", paired=False, by_name=True, second="y",
         engine="the k-d tree needs both files in memory; pandas handles 1e6 x 5 within 2 GiB")
def nn_linkage(x, y, vars, *, distance="euclidean", weights=None, standardize="sd", x_id=None, y_id=None,
               block=None, tol=0.0):
    """Distance-based record linkage: each protected record linked to its nearest original record.

    The attacker holds the original records (with identities) and links every released record to
    the nearest one (Pagliuca and Seri 1999; Domingo-Ferrer and Torra 2001); the risk is the share
    of released records linked to their own original.

    Parameters
    ----------
    x : pandas.DataFrame
        The original data (the attacker's external file).
    y : pandas.DataFrame
        The protected data. Any number of records.
    vars : list of str
        The linkage variables (columns of both files): numeric (and logical) for ``"euclidean"``
        and ``"mahalanobis"``; any type for ``"gower"``.
    distance : {"euclidean", "mahalanobis", "gower"}
        ``"euclidean"``: weighted Euclidean distance of the standardised variables;
        ``"mahalanobis"``: Euclidean distance after whitening with the covariance of ``x`` (the
        weights and the standardisation then have no effect on which record is nearest, only
        the whitening does); ``"gower"``: Gower's distance for mixed scales (Młodak, Pietrzak and
        Józefowski 2022), as :func:`pysdc.record_linkage` computes it (ranges over both files).
    weights : sequence of float, optional
        One non-negative weight per variable: Euclidean -- the squared differences are weighted;
        Gower -- the weighted mean.
    standardize : {"sd", "none"}
        Euclidean: subtract the mean and divide by the standard deviation of ``x`` (both files
        with the same numbers), or use the raw values.
    x_id, y_id : str, optional
        Id columns telling which original record each protected record comes from (both or
        neither; ids unique in ``x``). Without them, record i of ``y`` is record i of ``x``.
    block : list of str, optional
        Gower only: blocking variables; only originals with the same values are candidates
        (exact when the protection left these variables unchanged; a record whose block is
        missing has no candidate). Without it every original is a candidate, computed in chunks
        (O(n_x n_y) time): block for large files.
    tol : float
        Distances within ``tol`` of the minimum tie.

    Returns
    -------
    NNLinkageResult

    Notes
    -----
    Euclidean and Mahalanobis linkage are exact and O(n log n): a k-d tree
    (:class:`scipy.spatial.cKDTree`) on the (weighted, standardised or whitened) originals
    answers each protected record's nearest-neighbour query; the number of originals tied at
    the minimum is counted by a ball query of radius ``distance + tol``. Missing values are
    refused for these two (a k-d tree has no rule for them; drop or impute, or use Gower).

    **Ties.** A protected record whose own original is among ``t`` originals at the minimum
    distance scores ``1/t``; if its own original is farther, 0. ``rate`` is the mean score over
    the protected records that have an own original.
    """
    check_vars_in("y", vars, y)
    truth = own_original(x, y, x_id, y_id)
    w = check_weights(weights, len(vars))
    if y.shape[0] == 0 or x.shape[0] == 0:
        raise InvalidParameterError("x and y must both have records to link.")
    if block is not None and distance != "gower":
        raise InvalidParameterError(
            "block is for distance='gower'; the Euclidean and Mahalanobis linkage are exact over all records "
            "(k-d tree) and need no blocking."
        )
    if distance == "gower":
        kinds, xs, ys, _ = encode_gower(x, y, vars)
        if block:
            check_vars_in("y", block, y)
            keys = pd.concat([x[block], y[block]], ignore_index=True)
            codes = pd.MultiIndex.from_frame(keys.astype(object)).factorize()[0] if len(block) > 1 else \
                pd.factorize(keys[block[0]])[0]
            codes = np.where(keys.isna().any(axis=1).to_numpy(), -1, codes).astype(np.int64)
            bx, by = codes[: x.shape[0]], codes[x.shape[0]:]
        else:
            bx = np.zeros(x.shape[0], dtype=np.int64)
            by = np.zeros(y.shape[0], dtype=np.int64)
        out = gower_nn(xs, ys, kinds, w, truth, bx, by, tol=tol)
    else:
        xm = numeric_matrix(x, vars, distance, "x")
        ym = numeric_matrix(y, vars, distance, "y")
        if not (np.all(np.isfinite(xm)) and np.all(np.isfinite(ym))):
            raise InvalidParameterError(
                f"nn_linkage with distance={distance!r} needs complete, finite values of the linkage variables "
                "(a k-d tree has no rule for missing values); drop or impute those records, or use "
                "distance='gower', which skips missing values."
            )
        if distance == "mahalanobis":
            center = xm.mean(axis=0)
            cov = np.atleast_2d(np.cov(xm, rowvar=False))
            try:
                chol = scipy.linalg.cholesky(cov, lower=True)
            except np.linalg.LinAlgError:
                raise InvalidParameterError(
                    "nn_linkage: the covariance matrix of x is singular (a variable is constant or a linear "
                    "combination of others); drop such variables or use distance='euclidean'."
                ) from None
            xt = scipy.linalg.solve_triangular(chol, (xm - center).T, lower=True).T
            yt = scipy.linalg.solve_triangular(chol, (ym - center).T, lower=True).T
        else:
            if standardize == "sd":
                center = xm.mean(axis=0)
                sd = xm.std(axis=0, ddof=1) if xm.shape[0] > 1 else np.ones(xm.shape[1])
                sd = np.where(sd > 0, sd, 1.0)
                xt, yt = (xm - center) / sd, (ym - center) / sd
            else:
                xt, yt = xm, ym
            if w is not None:
                sw = np.sqrt(w)
                xt, yt = xt * sw, yt * sw
        out = nn_link(np.ascontiguousarray(xt), np.ascontiguousarray(yt), truth, tol=tol)
    has = truth >= 0
    n_linked = int(has.sum())
    correct = float(out["score"][has].sum())
    return NNLinkageResult(
        rate=correct / n_linked if n_linked else float("nan"), correct=correct,
        rate_second=float(out["second"][has].mean()) if n_linked else float("nan"),
        nearest=out["nearest"], distance=out["distance"], n_tied=out["n_tied"], score=out["score"],
        true_distance=out["true_distance"], n_linked=n_linked, distance_used=distance)
