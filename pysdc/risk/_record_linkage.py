"""Global distance-based record linkage (sdcMicro 5.8.1's ``recordLinkage``), native.

The kernels are in :mod:`pysdc.core.linkage` (daisy's distances, the assignment); this module
checks the two files, encodes the linkage variables (:mod:`pysdc.risk._linkage_vars`) and
assembles :class:`RecordLinkageResult`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._foreign import measure
from .._results import _Repr
from .._validation import Any_, Boolean, Columns, Frame, Interval, Options, user_stacklevel
from ..core.linkage import gower_matrix, min_total_assignment, minkowski_matrix, row_ties
from ._linkage_vars import check_vars_in, check_weights, encode_gower, id_values, numeric_matrix, truth_positions

__all__ = ["record_linkage", "RecordLinkageResult", "RECORD_LINKAGE_PARAMS", "DEFAULT_TOL"]

#: sdcMicro's default tol, sqrt(.Machine$double.eps)
DEFAULT_TOL = float(np.sqrt(np.finfo(float).eps))

RECORD_LINKAGE_PARAMS = {
    "x": Frame(),
    "y": Frame(),
    "vars": Columns(of="x"),
    "distance": Options(("gower", "euclidean", "manhattan")),
    "weights": Any_(),
    "x_id": Columns(of="x", single=True, optional=True),
    "y_id": Columns(of="y", single=True, optional=True),
    "return_matrix": Boolean(),
    "na_action": Options(("ignore", "fail")),
    "tol": Interval(low=0.0),
}


@dataclass(frozen=True, eq=False, repr=False)
class RecordLinkageResult(_Repr):
    """Result of :func:`pysdc.record_linkage` (sdcMicro 5.8.1's ``recordLinkage`` object).

    Attributes
    ----------
    matches : pandas.DataFrame
        One row per record of ``x``: ``x_row`` and ``y_row`` (0-based positions; sdcMicro's are
        1-based), ``x_id``, ``y_id`` (the id columns' values, or 1-based row numbers as in
        sdcMicro), ``distance`` of the matched pair, ``correct_match`` (ids equal; ``<NA>`` where
        an id is missing) and ``n_best`` (records of ``y`` within ``tol`` of the row's minimum
        distance).
    correct_matches : int
        Correctly linked records (``correct_matches``). Under ties: see :func:`record_linkage`.
    correct_match_rate : float
        ``correct_matches`` over the records whose ids are both present (``correct_match_rate``).
    mean_distance : float
        Mean distance of the matched pairs (``mean_distance``).
    total_distance : float
        The minimum total distance (``total_distance``).
    correct_matches_min : int
        The fewest correct links among all minimum-total-distance matchings (equal to
        ``correct_matches`` unless ties make the matching ambiguous; no sdcMicro counterpart).
    distance_matrix : numpy.ndarray or None
        The ``len(x) x len(y)`` distances where ``return_matrix=True`` (``distance_matrix``).
    distance : str
        The distance used.
    """

    matches: pd.DataFrame
    correct_matches: int
    correct_match_rate: float
    mean_distance: float
    total_distance: float
    correct_matches_min: int
    distance_matrix: np.ndarray | None
    distance: str

    def __float__(self) -> float:
        return float(self.correct_match_rate)


@measure(RECORD_LINKAGE_PARAMS, selects="variables", paired=False, by_name=True, second="y",
         engine="the global one-to-one matching needs the whole n x n distance matrix in memory (O(n^2) memory, "
                "O(n^3) time); use pysdc.nn_linkage for large files")
def record_linkage(x, y, vars, *, distance="gower", weights=None, x_id=None, y_id=None, return_matrix=False,
                   na_action="ignore", tol=DEFAULT_TOL):
    """Global distance-based record linkage: the minimum-total-distance one-to-one matching.

    Links every record of the original data ``x`` to one record of the protected data ``y``
    so that the sum of the distances of the matched pairs is as small as possible (Herranz et
    al. 2015), and counts the records linked to their own protected record. This is sdcMicro
    5.8.1's ``recordLinkage`` (development version), number for number.

    Parameters
    ----------
    x : pandas.DataFrame
        The original data.
    y : pandas.DataFrame
        The protected data, as many records as ``x``.
    vars : list of str
        The linkage variables (columns of both files).
    distance : {"gower", "euclidean", "manhattan"}
        Gower's distance (mixed types; ``cluster::daisy``'s rules: numbers divided by their
        range over both files, categories and text nominal, ordered categories by their codes
        1..K divided by the observed range of the codes, logical as asymmetric binary -- two
        ``False`` do not count), or the Euclidean / Manhattan distance of numeric and logical
        variables (unscaled).
    weights : sequence of float, optional
        One non-negative weight per variable (Gower's weighted mean). As in sdcMicro (daisy),
        the weights have **no effect** on the Euclidean and Manhattan distances; pysdc warns.
        For weighted Euclidean linkage use :func:`pysdc.nn_linkage`.
    x_id, y_id : str, optional
        Id columns of ``x`` and ``y``; a pair is a correct link when the ids are equal
        (numbers compared as numbers, otherwise as text). Without one, row numbers.
    return_matrix : bool
        Keep the full distance matrix in the result.
    na_action : {"ignore", "fail"}
        ``"ignore"``: a distance uses the variables present in both records (Euclidean /
        Manhattan scaled up by ``p / present``), as daisy does; ``"fail"``: refuse missing
        values. A pair with no variable in common refuses the call (as sdcMicro).
    tol : float
        Tolerance of ``n_best``: candidates within ``tol`` of the row's minimum distance.

    Returns
    -------
    RecordLinkageResult

    Notes
    -----
    **Ties.** Where several one-to-one matchings attain the minimum total distance (duplicated
    records on the linkage variables, say), the total and mean distance and ``n_best`` are the
    same whichever is chosen, but the matched pairs and the number of correct links are not.
    sdcMicro returns the matching ``clue::solve_LSAP`` happens to find; pysdc returns, among the
    optimal matchings, one with the **most correct links** (the attacker's best case: a
    conservative risk) and reports the fewest in ``correct_matches_min``. sdcMicro's count lies
    between the two (checked on every stored case); where ``correct_matches_min ==
    correct_matches`` the count is sdcMicro's exactly. The assignment comes from
    :func:`scipy.optimize.linear_sum_assignment` (solved again with the true pairs' costs
    lowered by a tiny amount, checked to keep the optimum), so the chosen pairs may differ from
    clue's; their distances at any given pair are daisy's.

    Written from sdcMicro 5.8.1's documentation and observed behaviour, not from its source.

    References
    ----------
    Herranz, J., Nin, J., Rodríguez, P. and Tassa, T. (2015). Revisiting distance-based record
    linkage for privacy-preserving release of statistical datasets. Data & Knowledge
    Engineering 100, 78--93.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> x = pd.DataFrame({"age": [23, 40, 35], "sex": pd.Categorical(["f", "m", "f"])})
    >>> y = pd.DataFrame({"age": [24, 39, 35], "sex": pd.Categorical(["f", "m", "f"])})
    >>> pysdc.record_linkage(x, y, ["age", "sex"]).correct_matches
    3
    """
    check_vars_in("y", vars, y)
    n = x.shape[0]
    if y.shape[0] != n:
        raise InvalidParameterError(
            f"x and y must have the same number of rows for the one-to-one matching; got {n} and {y.shape[0]} "
            "(sdcMicro's recordLinkage stops the same way). For files of different sizes use pysdc.nn_linkage."
        )
    if n == 0:
        raise InvalidParameterError("x and y have no records; there is nothing to link.")
    w = check_weights(weights, len(vars))
    if na_action == "fail" and (x[vars].isna().to_numpy().any() or y[vars].isna().to_numpy().any()):
        raise InvalidParameterError(
            "Missing values found in the linkage variables and na_action='fail'; use na_action='ignore' to "
            "compute each distance over the variables present in both records."
        )
    stack = user_stacklevel()
    if distance == "gower":
        kinds, xs, ys, logical = encode_gower(x, y, vars)
        if logical:
            warnings.warn(
                f"record_linkage: logical variable(s) {logical} are asymmetric binary under Gower's distance "
                "(as in cluster::daisy): a pair of False values does not count.", CoercionWarning, stacklevel=stack)
        d = gower_matrix(xs, ys, kinds, w)
    else:
        if w is not None and not np.all(w == w[0]):
            warnings.warn(
                f"record_linkage: weights have no effect on the {distance} distance (as in sdcMicro 5.8.1, whose "
                "cluster::daisy applies weights to Gower's distance only); use distance='gower', or "
                "pysdc.nn_linkage(..., weights=...) for a weighted Euclidean linkage.", PysdcWarning, stacklevel=stack)
        xm = numeric_matrix(x, vars, distance, "x")
        ym = numeric_matrix(y, vars, distance, "y")
        if np.isinf(xm).any() or np.isinf(ym).any():
            d = np.full((n, n), np.nan)
        else:
            d = minkowski_matrix(xm, ym, 2 if distance == "euclidean" else 1)
    if not np.all(np.isfinite(d)):
        raise InvalidParameterError(
            "Non-finite entries found in the pairwise distance matrix: missing linkage values leave some record "
            "pairs without a variable in common (or a value is infinite); sdcMicro's recordLinkage stops the same "
            "way. Drop or impute those records, or choose linkage variables they have."
        )
    xid, yid = id_values(x, x_id), id_values(y, y_id)
    cx, cy = truth_positions(xid, yid)
    prefer = (cx[:, None] == cy[None, :]) & (cx[:, None] >= 0)
    cols = min_total_assignment(d, prefer, most=True)
    cols_min = min_total_assignment(d, prefer, most=False) if prefer.any() else cols
    rows = np.arange(n)
    dist = d[rows, cols]
    known = (cx >= 0) & (cy[cols] >= 0)
    if not known.all():
        warnings.warn(
            "record_linkage: missing values in x_id or y_id; whether those records are linked correctly cannot be "
            "told (correct_match <NA>), and the rate is over the others (as sdcMicro).", DegenerateResultWarning,
            stacklevel=stack)
    correct = known & (cx == cy[cols])
    correct_min = int(np.sum((cx >= 0) & (cx == cy[cols_min])))
    n_best = row_ties(d, tol)
    cm = pd.array(np.where(known, correct, False), dtype="boolean")
    cm[~known] = pd.NA
    matches = pd.DataFrame({"x_row": rows, "y_row": cols.astype(np.int64), "x_id": xid.to_numpy(),
                            "y_id": yid.to_numpy()[cols], "distance": dist, "correct_match": cm,
                            "n_best": n_best})
    n_correct = int(correct.sum())
    n_known = int(known.sum())
    total = float(np.sum(dist))
    return RecordLinkageResult(
        matches=matches, correct_matches=n_correct,
        correct_match_rate=n_correct / n_known if n_known else float("nan"),
        mean_distance=total / n, total_distance=total, correct_matches_min=min(correct_min, n_correct),
        distance_matrix=d if return_matrix else None, distance=distance)
