"""Microaggregation, as sdcMicro 5.8.0 does it: ``microaggregation`` and ``mafast``.

Native methods of ``microaggregation``: ``mdav`` (the default; sdcMicro's MDAV with its
single-precision distances and its tie rule, see :mod:`pysdc.core.microagg`), and the sorting
methods ``simple``, ``single``, ``onedims``, ``pca`` and ``rmd`` (seeded by ``random_state``; missing values as sdcMicro, see
:mod:`pysdc.protect._microaggregation_more`); one variable goes through ``mafast``, as in sdcMicro.
The clustering methods ``clustpca``, ``clustpppca``, ``clustmcdpca`` and ``influence`` (clusters from
``cluster::clara`` or ``pam``), ``pppca`` (sdcMicro's projection-pursuit ``prcompRob``) and ``mcdpca``
(MASS's ``cov.mcd``, on R's stream seeded by ``random_state``) are native too; see
:mod:`pysdc.protect._microaggregation_clust`. Every method of sdcMicro 5.8.0 is native.

Every measure (``mean``, ``median``, ``trim``, ``onestep``) and sampling weights (the weighted mean and
median) are native for the sorting and clustering methods (:mod:`pysdc.core.microagg_stats`). sdcMicro 5.8.0
gives the i-th record of a sorted stratum the i-th weight of the whole data; pysdc does the same, warns, and
offers ``weights_by="record"``. Where sdcMicro silently ignores an argument (``measure`` and ``weights`` for
``mdav`` and ``rmd``, ``weights`` for ``trim``, ``onestep`` and one variable) pysdc ignores it with a warning.

The input is never modified; the behaviour was observed by running sdcMicro 5.8.0 (R 4.2.2) and is
pinned by the stored corpus (``r_reference/cases/microaggregation.json``, ``mafast.json``).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError
from .._validation import Any_, Columns, Constraint, Frame, Options, user_stacklevel, validate_params
from ..core.microagg import (
    MDAV_MISSING,
    factor_of_totals,
    fixed_groups,
    mdav,
    rank_groups,
)
from ..core.microagg_stats import MEASURES, aggregate
from ._microaggregation_clust import CLUST_METHODS, clust_runner
from ._microaggregation_more import MORE_METHODS, more_runner

__all__ = ["microaggregation", "mafast", "MicroaggregationResult", "NATIVE_METHODS", "R_METHODS"]

#: methods of sdcMicro's microaggregation that pysdc runs natively
NATIVE_METHODS = ("mdav", "simple", "single", "onedims") + MORE_METHODS + CLUST_METHODS
#: the others: sdcMicro only (pysdc.r.microaggregation)
R_METHODS = tuple(m for m in ("rmd", "pca", "clustpca", "influence", "mcdpca", "pppca", "clustmcdpca", "clustpppca")
                  if m not in MORE_METHODS + CLUST_METHODS)


@dataclass(frozen=True)
class MicroaggregationResult:
    """What sdcMicro's ``microaggregation`` returns on a data.frame (class ``micro``), plus the groups.

    Attributes
    ----------
    x : DataFrame
        The original data (as given).
    mx : DataFrame
        The microaggregated data: the ``variables`` (as doubles) -- or, with one variable, which
        sdcMicro hands to ``mafast``, every column of the data with that one aggregated.
    method : str
        The method (``"mafast"`` for one variable).
    aggr : int
        The group size.
    measure : str
        The aggregation measure (``"mean"`` for ``mdav``, which ignores ``measure``).
    fot : float or pandas.Series
        sdcMicro's factor of totals ``n / floor(n / aggr)`` (per stratum with strata). sdcMicro
        computes it but keeps it in its returned list only for one variable.
    groups : pandas.Series or DataFrame
        pysdc's addition: each record's 0-based group (per variable for ``onedims`` and ``mafast``);
        groups are numbered in the order they are formed, strata one after the other.
    """

    x: pd.DataFrame = field(repr=False)
    mx: pd.DataFrame = field(repr=False)
    method: str = "mdav"
    aggr: int = 3
    measure: str = "mean"
    fot: float | pd.Series = 0.0
    groups: pd.Series | pd.DataFrame | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (f"MicroaggregationResult(method={self.method!r}, aggr={self.aggr}, measure={self.measure!r}, "
                f"n={len(self.mx)}, variables={list(self.mx.columns)[:8]})")


class GroupSize(Constraint):
    """An integer >= 1 (R's aggregation level; a whole-valued float is accepted)."""

    def check(self, name, value, values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise InvalidParameterError(f"{name} must be an integer >= 1; got {value!r}.")
        if float(value) != int(value) or int(value) < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1; got {value!r}.")
        return int(value)

    def invalid_values(self, name, values):
        return [0, 2.5, "3", True, None]


class Weights(Constraint):
    """Sampling weights: None, a column name of ``data`` or one number per record (sdcMicro's vector)."""

    def check(self, name, value, values):
        if value is None:
            return None
        data = values.get("data")
        n = len(data) if data is not None else None
        if isinstance(value, str):
            if data is None or value not in data.columns:
                raise InvalidParameterError(f"{name}: {value!r} is not a column of the data.")
            value = data[value]
        if isinstance(value, pd.Series) and (isinstance(value.dtype, pd.CategoricalDtype)
                                             or value.dtype.kind not in "iufb"):
            raise InvalidParameterError(f"{name} must be numeric; got dtype {value.dtype}.")
        try:
            w = np.asarray(value.to_numpy(dtype=np.float64, na_value=np.nan) if isinstance(value, pd.Series)
                           else value, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{name} must be None, a column name or numbers, one per record; "
                                        f"got {type(value).__name__}.") from None
        if w.ndim != 1 or (n is not None and w.size != n):
            raise InvalidParameterError(
                f"{name} must hold one weight per record ({n}); got shape {w.shape} (sdcMicro takes a shorter "
                "vector's missing positions as NA weights and a longer one's first values).")
        return w

    def invalid_values(self, name, values):
        return ["no such column", [1.0]]


def _ignored(what: str, why: str) -> None:
    warnings.warn(f"microaggregation: {what} ignored: {why} (as sdcMicro 5.8.0 does, silently).", CoercionWarning,
                  stacklevel=user_stacklevel())


def _numeric_matrix(fn: str, data: pd.DataFrame, variables: list) -> np.ndarray:
    for v in variables:
        s = data[v]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "iuf":
            raise InvalidParameterError(
                f"{fn}: variable {v!r} must be numeric (int or float); got dtype {s.dtype} "
                "(sdcMicro microaggregates numeric variables only).")
    x = np.column_stack([data[v].to_numpy(dtype=np.float64, na_value=np.nan) for v in variables]) \
        if variables else np.empty((len(data), 0))
    if np.isinf(x).any():
        raise InvalidParameterError(
            f"{fn}: the variables hold infinite values; sdcMicro's distances and means are then NaN. "
            "Recode them first (e.g. top_bot_coding).")
    return x


def _strata(data: pd.DataFrame, strata_variables) -> tuple[np.ndarray, list[str]]:
    """Stratum codes (0-based, in the order of sdcMicro's labels) and the labels ("a-b"; NA as "NA")."""
    if not strata_variables:
        return np.zeros(len(data), dtype=np.int64), []
    parts = []
    for v in strata_variables:
        s = data[v]
        parts.append(np.where(s.isna().to_numpy(), "NA", s.astype(str).to_numpy(dtype=object)))
    label = parts[0].astype(object)
    for p in parts[1:]:
        label = label + "-" + p
    labels, codes = np.unique(label.astype(str), return_inverse=True)
    return codes.astype(np.int64), [str(v) for v in labels]


def _stratified(fn, x: np.ndarray, strata: np.ndarray, nstrata: int, weights=None):
    """Run ``fn(x_s) -> (values, groups)`` per stratum; groups numbered on across strata.

    ``weights`` (a weighted runner, ``fn.weighted``): ``(w, by, differs)``; the stratum's runner gets
    ``weights_for(order)``, the weights of its records taken in ``order`` (its sorted stratum): their own
    (``by="record"``) or sdcMicro's, the first ``n_s`` weights of the whole data by position
    (``by="sdcmicro"``; ``differs`` gets True where those are not the records' own).
    """
    out = np.empty_like(x)
    groups = np.empty(x.shape if fn.per_column else x.shape[0], dtype=np.int64)
    offset = 0
    for s in range(nstrata):
        rows = np.flatnonzero(strata == s)
        if weights is not None and getattr(fn, "weighted", False):
            v, g = fn(x[rows], _weights_for(*weights, rows))
        else:
            v, g = fn(x[rows])
        out[rows] = v
        groups[rows] = g + offset
        offset = int(g.max()) + 1 + offset if g.size else offset
    return out, groups


def _warn_arbitrary_axis(method: str, arbitrary: list, labels: list[str]) -> None:
    """Warn that princomp's first axis is arbitrary where its two largest eigenvalues are equal (``arbitrary``:
    the runner's ``(stratum, clusters or None)``; :func:`pysdc.core.microagg_pca.first_axis_arbitrary`)."""
    where = []
    for s, clusters in arbitrary:
        of = f"stratum {labels[s]!r}" if labels else "the data"
        where.append(f"{'cluster' if len(clusters) == 1 else 'clusters'} {', '.join(map(str, clusters))} of {of}"
                     if clusters else of)
    warnings.warn(
        f"microaggregation(method={method!r}): the correlation matrix of {'; '.join(where)} has two equal largest "
        "eigenvalues (e.g. two variables with correlation exactly 0), so its first principal component is any "
        "direction of their plane: the order of the records, hence the groups, is arbitrary -- in sdcMicro too, "
        "where LAPACK's rounding picks the axis -- and pysdc's may differ from sdcMicro's (returned as computed).",
        DegenerateResultWarning, stacklevel=user_stacklevel())


def _too_few(n: int, aggr: int) -> None:
    if n < 2 * aggr:
        raise InvalidParameterError(
            f"microaggregation: a stratum has {n} record(s), fewer than 2 * aggr = {2 * aggr} "
            f"(sdcMicro: 'Too less observations ({n}) for aggregate ={aggr}').")


def _weights_for(w: np.ndarray, by: str, differs: list, rows: np.ndarray):
    own, pos = w[rows], w[:rows.size]

    def weights_for(order: np.ndarray) -> np.ndarray:
        mine = own[order]
        if by == "record":
            return mine
        if not differs and not np.array_equal(mine, pos, equal_nan=True):
            differs.append(True)
        return pos
    return weights_for


def _sorted_stat(xs: np.ndarray, aggr: int, measure: str, trim: float, w, note: list):
    """The group statistics of a stratum held in sdcMicro's sorted order ``xs`` (groups of ``aggr`` by
    position); ``w``: the weights of those rows (or None)."""
    return aggregate(xs, fixed_groups(xs.shape[0], aggr), measure, trim, w, note)


def _method(method: str, aggr: int, measure: str, trim: float, varsort: int, warn, note):
    """The per-stratum kernel of a native method: x (n, p) -> (values, groups); the sorting methods also
    take the stratum's weights (``run.weighted``): ``run(x, w, by)``."""
    if method == "mdav":
        def run(x):
            v, g, diluted = mdav(x, aggr)
            if diluted:
                warn.append(True)
            return v, g
        run.per_column = False
        return run
    if method in ("simple", "single"):
        def run(x, weights_for=None):
            _too_few(x.shape[0], aggr)
            if method == "simple":
                order = np.arange(x.shape[0])
            else:
                key = x[:, varsort - 1]
                if np.isnan(key).any():
                    raise InvalidParameterError(
                        "microaggregation(method='single'): the sorting variable (varsort) has missing values; "
                        "sdcMicro's sort() drops them and misaligns the records.")
                order = np.argsort(key, kind="stable")
            g = np.empty(x.shape[0], dtype=np.int64)
            g[order] = fixed_groups(x.shape[0], aggr)
            vals = np.empty_like(x)
            w = None if weights_for is None else weights_for(order)
            vals[order] = _sorted_stat(x[order], aggr, measure, trim, w, note)
            return vals, g
        run.per_column = False
        run.weighted = True
        return run

    def run(x, weights_for=None):  # onedims: each variable on its own
        _too_few(x.shape[0], aggr)
        vals = np.empty_like(x)
        groups = np.empty(x.shape, dtype=np.int64)
        base = fixed_groups(x.shape[0], aggr)
        orders = [np.argsort(x[:, j], kind="stable") for j in range(x.shape[1])]  # R's order(): stable, NA last
        xs = np.column_stack([x[o, j] for j, o in enumerate(orders)])
        ws = [None] * len(orders) if weights_for is None else [weights_for(o) for o in orders]
        if all(w is ws[0] or np.array_equal(w, ws[0], equal_nan=True) for w in ws):
            st = _sorted_stat(xs, aggr, measure, trim, ws[0], note)  # the sorted matrix (onestep looks at rows)
        else:  # each column with its records' own weights
            st = np.column_stack([_sorted_stat(xs[:, j:j + 1], aggr, measure, trim, w, note)[:, 0]
                                  for j, w in enumerate(ws)])
        for j, o in enumerate(orders):
            vals[o, j] = st[:, j]
            groups[o, j] = base
        return vals, groups
    run.per_column = True
    run.weighted = True
    return run


_MEASURES = MEASURES
#: how weights reach the records: sdcMicro's (the i-th record of a sorted stratum takes the i-th weight of
#: the data) or each record its own
WEIGHTS_BY = ("sdcmicro", "record")
#: rmd's group means on missing values: sdcMicro's (missing where one record misses) or of the present values
MISSING_MEANS = ("sdcmicro", "present")
_ALL_METHODS = NATIVE_METHODS + R_METHODS


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data", optional=True),
    "aggr": GroupSize(),
    "strata_variables": Columns(of="data", optional=True),
    "method": Options(_ALL_METHODS),
    "weights": Weights(),
    "nc": GroupSize(),
    "clustermethod": Options(("clara", "pam", "kmeans", "cmeans", "bclust")),
    "measure": Options(_MEASURES),
    "trim": Any_(),
    "varsort": GroupSize(),
    "transf": Options(("log", "none", "boxcox")),
    "random_state": Any_(),
    "weights_by": Options(WEIGHTS_BY),
    "missing_means": Options(MISSING_MEANS),
})
def microaggregation(data, variables=None, aggr: int = 3, strata_variables=None, method: str = "mdav",
                     weights=None, nc: int = 8, clustermethod: str = "clara", measure: str = "mean",
                     trim: float = 0, varsort: int = 1, transf: str = "log",
                     random_state=None, weights_by: str = "sdcmicro",
                     missing_means: str = "sdcmicro") -> MicroaggregationResult:
    """Microaggregation of numeric variables, as sdcMicro's ``microaggregation`` on a data.frame.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    variables : list of str, optional
        The numeric variables (default: every column). One variable is handed to :func:`mafast`
        (``method`` ignored, ``measure`` ``"mean"`` or ``"median"``), as sdcMicro does.
    aggr : int
        The group size (``k``).
    strata_variables : list of str, optional
        Microaggregate within the strata these variables define (missing values form a stratum).
    method : str
        ``"mdav"`` (default), ``"simple"`` (groups in record order), ``"single"`` (sorted by the
        ``varsort``-th variable), ``"onedims"`` (individual ranking) natively, and ``"rmd"``, ``"pca"``,
        ``"pppca"``, ``"mcdpca"``, ``"clustpca"``, ``"clustpppca"``, ``"clustmcdpca"`` and ``"influence"``
        (clusters from ``clara`` or ``pam``).
    weights : str or array-like, optional
        Sampling weights: a column of ``data`` or one number per record. The sorting and clustering
        methods then take the weighted mean (R's ``weighted.mean``) or sdcMicro's weighted median for
        ``measure`` ``"mean"``/``"median"``. ``mdav``, ``rmd``, ``trim``, ``onestep`` and one variable ignore
        them (as sdcMicro; pysdc warns).
    nc, clustermethod, transf : int, str, str
        For the ``clust*`` methods and ``influence``: the number of clusters and the cluster analysis,
        ``"clara"`` (sdcMicro's default), ``"pam"`` or ``"kmeans"`` (R's ``stats::kmeans`` on R's stream, seeded by
        ``random_state``) natively (``"bclust"`` through the bridge only; ``"cmeans"`` always stops sdcMicro).
        sdcMicro computes ``transf`` but clusters the untransformed data: it changes nothing but its errors
        (``"boxcox"`` on values <= 0) and warnings.
    measure : {"mean", "median", "trim", "onestep"}
        The group statistic of the sorting and clustering methods (``mdav`` and ``rmd`` take the mean and
        ignore it, as in sdcMicro; pysdc warns). ``trim``: R's ``mean(x, trim)``; ``onestep``: values beyond
        the group's median -/+ ``(3 / 1.486) * mad`` clipped to those limits, then the mean.
    trim : float
        For ``measure="trim"``: the fraction cut from each end of a group.
    varsort : int
        1-based position in ``variables`` of the sorting variable of ``method="single"`` (and of the
        ``clustpca``/``clustpppca``/``clustmcdpca`` clusters with fewer records than variables).
    random_state : int, optional
        For ``method="rmd"``, ``"mcdpca"``, ``"clustmcdpca"`` and ``clustermethod="kmeans"``: an int ``s`` is R's
        ``set.seed(s)`` before sdcMicro's call (robustbase's ``covMcd``, MASS's ``cov.mcd`` and ``kmeans``'s
        initial centres draw from R's stream);
        None: pysdc's own generator (not sdcMicro's draws).
    weights_by : {"sdcmicro", "record"}
        Which weight a record gets: ``"sdcmicro"`` (default) as sdcMicro 5.8.0, the i-th weight of the data
        for the i-th record of its stratum in the method's sorted order (pysdc warns where that is not the
        record's own); ``"record"``: each record its own weight (pysdc only; the bridge refuses it).
    missing_means : {"sdcmicro", "present"}
        ``method="rmd"`` on variables with missing values: ``"sdcmicro"`` (default) as sdcMicro 5.8.0, a group's
        value of a variable is missing where one of its records misses it, so the present values of the other
        records are dropped (pysdc warns with their count); ``"present"``: the mean of the group's present values
        (a record's own missing value stays missing; pysdc only, the bridge refuses it). The groups are the same.

    Returns
    -------
    MicroaggregationResult
        ``.mx`` the microaggregated data (doubles; missing values stay missing), ``.x``, ``.method``,
        ``.aggr``, ``.measure``, ``.fot`` and ``.groups``.

    Raises
    ------
    InvalidParameterError
        A non-numeric or infinite variable; a stratum with fewer than ``2 * aggr`` records for the
        sorting methods (sdcMicro: 'Too less observations'); a method that only sdcMicro runs; weights
        not one per record; where sdcMicro stops: a weighted median over missing, infinite or all-zero
        weights, ``onestep`` on a group with a missing value (in most cases).

    Warns
    -----
    CoercionWarning
        With ``mdav``, when a missing value sits in the last group of a stratum: sdcMicro divides
        that group's sum by all its records, missing ones included (returned as sdcMicro does); and
        when a variable holds the value -999, which sdcMicro's MDAV takes for a missing value.
        Where sdcMicro silently ignores ``measure`` or ``weights``; where sdcMicro's weights by position are
        not the records' own; negative weights in a weighted median (sdcMicro warns too); a weighted mean
        that is NA, NaN or infinite (missing weights or weights summing to 0).

    Notes
    -----
    MDAV's ties (records at the same single-precision distance) are broken as sdcMicro does: the
    farthest record is the first in record order, the nearer of two equidistant records the later
    one. See docs/protection.md.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0], "b": [1.0, 1.0, 2.0, 5.0, 6.0, 6.0]})
    >>> pysdc.protect.microaggregation(df, aggr=3).mx["a"].tolist()
    [2.0, 2.0, 2.0, 11.0, 11.0, 11.0]
    """
    variables = list(data.columns) if variables is None else variables
    if measure == "trim" and (isinstance(trim, (bool, np.bool_)) or not isinstance(trim, numbers.Real)
                              or not np.isfinite(trim)):
        raise InvalidParameterError(f"microaggregation: trim must be a finite number (R's mean(x, trim)); got {trim!r}.")
    if len(variables) == 1:
        if measure not in ("mean", "median"):
            raise InvalidParameterError(
                f"microaggregation: with one variable sdcMicro calls mafast(measure = {measure}), and R has no "
                f"function {measure!r} (sdcMicro stops: object '{measure}' not found); use 'mean' or 'median'.")
        if weights is not None:
            _ignored("weights", "with one variable sdcMicro calls mafast, which takes no weights")
        mx = mafast(data, variables, by=strata_variables, aggr=aggr, measure=measure)
        col = variables[0]
        y = data[col].to_numpy(dtype=np.float64, na_value=np.nan)
        strata, _ = _strata(data, strata_variables)
        groups = pd.DataFrame({col: rank_groups(y, strata, aggr)}, index=data.index)
        return MicroaggregationResult(x=data, mx=mx, method="mafast", aggr=aggr, measure=measure,
                                      fot=factor_of_totals(len(data), aggr), groups=groups)
    if method not in NATIVE_METHODS:
        raise InvalidParameterError(
            f"microaggregation: method {method!r} is not native in pysdc (its results depend on R's eigen/"
            "clustering/MCD routines); run it through sdcMicro with pysdc.r.microaggregation.")
    if missing_means != "sdcmicro" and method != "rmd":
        raise InvalidParameterError(
            f"microaggregation: missing_means={missing_means!r} is for method='rmd' (its group means on missing "
            f"values); method {method!r} has its own rule.")
    if method in ("mdav", "rmd"):
        if measure != "mean":
            _ignored("measure", f"sdcMicro's {method} ignores measure ({measure!r}): "
                                f"{'its groups take the mean' if method == 'mdav' else 'it returns group means'}")
        if weights is not None:
            _ignored("weights", f"sdcMicro's {method} ignores sampling weights")
            weights = None
    elif weights is not None and measure in ("trim", "onestep"):
        _ignored("weights", f"sdcMicro's measure {measure!r} ignores sampling weights")
        weights = None
    if method == "single" and not 1 <= varsort <= len(variables):
        raise InvalidParameterError(
            f"microaggregation: varsort={varsort} must be the position of one of the {len(variables)} variables.")
    x = _numeric_matrix("microaggregation", data, variables)
    if method == "mdav" and (x == MDAV_MISSING).any():
        warnings.warn(
            "microaggregation: a variable holds the value -999, which sdcMicro's MDAV takes for a missing value "
            "(left out of distances and means, then replaced by its group's mean); returned as sdcMicro does.",
            CoercionWarning, stacklevel=user_stacklevel())
    strata, labels = _strata(data, strata_variables)
    flag: list = []
    note: list = []
    if method in CLUST_METHODS:
        run = clust_runner(method, aggr, measure, trim, nc, clustermethod, transf, varsort, random_state)
    else:
        run = more_runner(method, aggr, measure, trim, random_state, missing_means) if method in MORE_METHODS else _method(
            method, aggr, measure, trim, varsort, flag, note)
    if weights is not None and not getattr(run, "weighted", False):
        raise InvalidParameterError(
            f"microaggregation: sampling weights with method {method!r} are not native in pysdc; use "
            "pysdc.r.microaggregation.")
    differs: list = []
    vals, groups = _stratified(run, x, strata, max(len(labels), 1),
                               None if weights is None else (weights, weights_by, differs))
    if differs:
        warnings.warn(
            f"microaggregation: sdcMicro 5.8.0 gives the i-th record of each stratum, in the order in which {method} "
            f"sorts it, the i-th weight of the whole data, not its own weight, for the weighted {measure}; returned "
            "as sdcMicro does. weights_by='record' gives every record its own weight.",
            CoercionWarning, stacklevel=user_stacklevel())
    if getattr(run, "arbitrary", None):
        _warn_arbitrary_axis(method, run.arbitrary, labels)
    if sum(getattr(run, "dropped", ())):
        warnings.warn(
            f"microaggregation(method='rmd'): {sum(run.dropped)} present value(s) dropped: sdcMicro's rmd gives a "
            "group a missing mean where one of its records misses the variable, so the values of the other records "
            "are lost (returned as sdcMicro does; missing_means='present' takes the mean of the present values).",
            CoercionWarning, stacklevel=user_stacklevel())
    if sum(getattr(run, "alone", ())):
        warnings.warn(
            f"microaggregation(method='rmd'): {sum(run.alone)} record(s) share no variable with the first record of "
            "their stratum: sdcMicro leaves them out of the last group, as they are (not aggregated); returned so.",
            CoercionWarning, stacklevel=user_stacklevel())
    if flag:
        warnings.warn(
            "microaggregation: a missing value sits in the last MDAV group; sdcMicro divides that group's sum by "
            "all its records, missing ones included, so its mean is too small (returned as sdcMicro does).",
            CoercionWarning, stacklevel=user_stacklevel())
    if "negative" in note or "negative" in getattr(run, "note", ()):
        warnings.warn("microaggregation: negative weights have been detected! (sdcMicro's weighted median warns "
                      "so too; the median is taken as it does).", CoercionWarning, stacklevel=user_stacklevel())
    if weights is not None and measure == "mean" and not np.isfinite(vals[~np.isnan(x)]).all():
        warnings.warn("microaggregation: a group's weights are missing or sum to 0, so its weighted mean is NA, NaN "
                      "or infinite, as sdcMicro's weighted.mean returns it.", CoercionWarning,
                      stacklevel=user_stacklevel())
    mx = pd.DataFrame({v: vals[:, j] for j, v in enumerate(variables)}, index=data.index)
    if labels:
        counts = np.bincount(strata, minlength=len(labels))
        fot = pd.Series([factor_of_totals(int(c), aggr) for c in counts], index=labels, name="fot")
    else:
        fot = factor_of_totals(len(data), aggr)
    if run.per_column:
        g = pd.DataFrame({v: groups[:, j] for j, v in enumerate(variables)}, index=data.index)
    else:
        g = pd.Series(groups, index=data.index, name="group")
    return MicroaggregationResult(x=data, mx=mx, method=method, aggr=aggr,
                                  measure={"mdav": "mean", "rmd": None}.get(method, measure), fot=fot, groups=g)


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data"),
    "by": Columns(of="data", optional=True),
    "aggr": GroupSize(),
    "measure": Options(("mean", "median")),
})
def mafast(data, variables, by=None, aggr: int = 3, measure: str = "mean") -> pd.DataFrame:
    """Fast univariate microaggregation, as sdcMicro's ``mafast`` on a data.frame.

    Each variable on its own: within each stratum of ``by`` the records are taken in the order of
    the variable (stable; missing values last), ``aggr`` at a time (the remainder joins the last
    group), and replaced by their group's ``mean`` or ``median`` (R's, in long double; a group with
    a missing value becomes missing, as R's ``mean`` without ``na.rm``).

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    variables : list of str
        The numeric variables (required: sdcMicro's default ``NULL`` does not work on a data.frame).
    by : list of str, optional
        Stratum variables (missing values form a stratum).
    aggr : int
        The group size.
    measure : {"mean", "median"}
        The group statistic (sdcMicro takes an R function; these are the two it documents that R has).

    Returns
    -------
    DataFrame
        A copy of ``data`` with the variables aggregated (as doubles).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"a": [5.0, 1.0, 3.0, 2.0, 4.0, 6.0]})
    >>> pysdc.protect.mafast(df, ["a"], aggr=3)["a"].tolist()
    [5.0, 2.0, 2.0, 2.0, 5.0, 5.0]
    """
    x = _numeric_matrix("mafast", data, variables)
    strata, _ = _strata(data, by)
    out = data.copy(deep=False)  # copy-on-write: the new columns never reach data
    for j, v in enumerate(variables):
        y = x[:, j]
        # R's mean (two passes: trim 0) or median per group, the records of a group in record order
        out[v] = aggregate(y[:, None], rank_groups(y, strata, aggr), "trim" if measure == "mean" else measure)[:, 0]
    return out
