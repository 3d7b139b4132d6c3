"""Microaggregation, as sdcMicro 5.8.0 does it: ``microaggregation`` and ``mafast``.

Native methods of ``microaggregation``: ``mdav`` (the default; sdcMicro's MDAV with its
single-precision distances and its tie rule, see :mod:`pysdc.core.microagg`), and the sorting
methods ``simple``, ``single`` and ``onedims`` (measures ``mean`` and ``median``, without sampling
weights), ``pca`` (also ``trim``) and ``rmd`` (complete data, seeded by ``random_state``; see
:mod:`pysdc.protect._microaggregation_more`); one variable goes through ``mafast``, as in sdcMicro.
The clustering methods ``clustpca`` and ``influence`` (clusters from ``cluster::clara`` or ``pam``, see
:mod:`pysdc.protect._microaggregation_clust`) are native too. The other methods (``mcdpca``, ``pppca``,
``clustmcdpca``, ``clustpppca``), weights and the measure ``onestep`` are refused natively with the pointer to
:mod:`pysdc.r`.

The input is never modified; the behaviour was observed by running sdcMicro 5.8.0 (R 4.2.2) and is
pinned by the stored corpus (``r_reference/cases/microaggregation.json``, ``mafast.json``).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, InvalidParameterError
from .._validation import Any_, Columns, Constraint, Frame, Options, user_stacklevel, validate_params
from ..core.microagg import (
    MDAV_MISSING,
    col_means,
    factor_of_totals,
    fixed_groups,
    group_stat,
    mdav,
    rank_groups,
)
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


def _stratified(fn, x: np.ndarray, strata: np.ndarray, nstrata: int):
    """Run ``fn(x_s) -> (values, groups)`` per stratum; groups numbered on across strata."""
    out = np.empty_like(x)
    groups = np.empty(x.shape if fn.per_column else x.shape[0], dtype=np.int64)
    offset = 0
    for s in range(nstrata):
        rows = np.flatnonzero(strata == s)
        v, g = fn(x[rows])
        out[rows] = v
        groups[rows] = g + offset
        offset = int(g.max()) + 1 + offset if g.size else offset
    return out, groups


def _too_few(n: int, aggr: int) -> None:
    if n < 2 * aggr:
        raise InvalidParameterError(
            f"microaggregation: a stratum has {n} record(s), fewer than 2 * aggr = {2 * aggr} "
            f"(sdcMicro: 'Too less observations ({n}) for aggregate ={aggr}').")


def _stat(v: np.ndarray, groups: np.ndarray, measure: str) -> np.ndarray:
    return col_means(v, groups) if measure == "mean" else group_stat(v, groups, "median")


def _method(method: str, aggr: int, measure: str, varsort: int, warn):
    """The per-stratum kernel of a native method: x (n, p) -> (values, groups)."""
    if method == "mdav":
        def run(x):
            v, g, diluted = mdav(x, aggr)
            if diluted:
                warn.append(True)
            return v, g
        run.per_column = False
        return run
    if method == "simple":
        def run(x):
            _too_few(x.shape[0], aggr)
            g = fixed_groups(x.shape[0], aggr)
            return np.column_stack([_stat(x[:, j], g, measure) for j in range(x.shape[1])]), g
        run.per_column = False
        return run
    if method == "single":
        def run(x):
            _too_few(x.shape[0], aggr)
            key = x[:, varsort - 1]
            if np.isnan(key).any():
                raise InvalidParameterError(
                    "microaggregation(method='single'): the sorting variable (varsort) has missing values; "
                    "sdcMicro's sort() drops them and misaligns the records.")
            order = np.argsort(key, kind="stable")
            g = np.empty(x.shape[0], dtype=np.int64)
            g[order] = fixed_groups(x.shape[0], aggr)
            vals = np.empty_like(x)
            for j in range(x.shape[1]):
                vals[order, j] = _stat(x[order, j], g[order], measure)
            return vals, g
        run.per_column = False
        return run

    def run(x):  # onedims: each variable on its own
        _too_few(x.shape[0], aggr)
        vals = np.empty_like(x)
        groups = np.empty(x.shape, dtype=np.int64)
        base = fixed_groups(x.shape[0], aggr)
        for j in range(x.shape[1]):
            order = np.argsort(x[:, j], kind="stable")  # R's order(): stable, NA last
            vals[order, j] = _stat(x[order, j], base, measure)
            groups[order, j] = base
        return vals, groups
    run.per_column = True
    return run


_MEASURES = ("mean", "median", "trim", "onestep")
_ALL_METHODS = NATIVE_METHODS + R_METHODS


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data", optional=True),
    "aggr": GroupSize(),
    "strata_variables": Columns(of="data", optional=True),
    "method": Options(_ALL_METHODS),
    "weights": Any_(),
    "nc": GroupSize(),
    "clustermethod": Options(("clara", "pam", "kmeans", "cmeans", "bclust")),
    "measure": Options(_MEASURES),
    "trim": Any_(),
    "varsort": GroupSize(),
    "transf": Options(("log", "none", "boxcox")),
    "random_state": Any_(),
})
def microaggregation(data, variables=None, aggr: int = 3, strata_variables=None, method: str = "mdav",
                     weights=None, nc: int = 8, clustermethod: str = "clara", measure: str = "mean",
                     trim: float = 0, varsort: int = 1, transf: str = "log",
                     random_state=None) -> MicroaggregationResult:
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
        ``"clustpca"`` and ``"influence"`` (clusters from ``clara`` or ``pam``); ``"mcdpca"``, ``"pppca"``,
        ``"clustmcdpca"``, ``"clustpppca"`` through :func:`pysdc.r.microaggregation` only.
    weights : None
        Sampling weights (weighted means): through :func:`pysdc.r.microaggregation` only.
    nc, clustermethod, transf : int, str, str
        For ``clustpca`` and ``influence``: the number of clusters and the cluster analysis, ``"clara"``
        (sdcMicro's default) or ``"pam"`` natively (``"kmeans"`` and ``"bclust"`` through the bridge only;
        ``"cmeans"`` always stops sdcMicro). sdcMicro computes ``transf`` but clusters the untransformed
        data: it changes nothing but its errors (``"boxcox"`` on values <= 0) and warnings.
    measure : {"mean", "median", "trim", "onestep"}
        The group statistic of the sorting methods (``mdav`` always takes the mean, as in sdcMicro);
        ``trim`` and ``onestep`` through the bridge only.
    trim : float
        For ``measure="trim"`` (bridge only).
    varsort : int
        1-based position in ``variables`` of the sorting variable of ``method="single"`` (and of the
        ``clustpca`` clusters with fewer records than variables).
    random_state : int, optional
        For ``method="rmd"``: an int ``s`` is R's ``set.seed(s)`` before sdcMicro's call (robustbase's
        ``covMcd`` draws its subsets from R's stream); None: pysdc's own generator (not sdcMicro's draws).

    Returns
    -------
    MicroaggregationResult
        ``.mx`` the microaggregated data (doubles; missing values stay missing), ``.x``, ``.method``,
        ``.aggr``, ``.measure``, ``.fot`` and ``.groups``.

    Raises
    ------
    InvalidParameterError
        A non-numeric or infinite variable; a stratum with fewer than ``2 * aggr`` records for the
        sorting methods (sdcMicro: 'Too less observations'); a method, weights or measure that only
        sdcMicro runs.

    Warns
    -----
    CoercionWarning
        With ``mdav``, when a missing value sits in the last group of a stratum: sdcMicro divides
        that group's sum by all its records, missing ones included (returned as sdcMicro does); and
        when a variable holds the value -999, which sdcMicro's MDAV takes for a missing value.

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
    if len(variables) == 1:
        if measure not in ("mean", "median"):
            raise InvalidParameterError(
                f"microaggregation: with one variable sdcMicro calls mafast(measure = {measure}), and R has no "
                f"function {measure!r} (sdcMicro stops: object '{measure}' not found); use 'mean' or 'median'.")
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
    if weights is not None:
        raise InvalidParameterError(
            "microaggregation: sampling weights (weighted means) are not native in pysdc; use "
            "pysdc.r.microaggregation (mdav ignores weights in sdcMicro).")
    if method != "mdav" and measure not in ("mean", "median") and not (method in MORE_METHODS + CLUST_METHODS and measure == "trim"):
        raise InvalidParameterError(
            f"microaggregation: measure {measure!r} is not native in pysdc; use 'mean'/'median' or "
            "pysdc.r.microaggregation.")
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
    if method in CLUST_METHODS:
        run = clust_runner(method, aggr, measure, trim, nc, clustermethod, transf, varsort)
    else:
        run = more_runner(method, aggr, measure, trim, random_state) if method in MORE_METHODS else _method(
            method, aggr, measure, varsort, flag)
    vals, groups = _stratified(run, x, strata, max(len(labels), 1))
    if flag:
        warnings.warn(
            "microaggregation: a missing value sits in the last MDAV group; sdcMicro divides that group's sum by "
            "all its records, missing ones included, so its mean is too small (returned as sdcMicro does).",
            CoercionWarning, stacklevel=user_stacklevel())
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
        out[v] = group_stat(y, rank_groups(y, strata, aggr), measure)
    return out
