"""sdcMicro's ``infoLoss``: information loss of frequency tables after targeted record swapping, native.

The cell counts, metrics and summaries come from :mod:`pysdc.core.infoloss`.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import InfoLossResult
from .._validation import Boolean, Columns, Constraint, Frame, check_columns, user_stacklevel
from ..core.infoloss import (
    METRICS,
    cell_counts,
    cumulative_counts,
    cumulative_labels,
    distribution,
    metric_values,
    overview,
    r_as_character,
)
from ..protect._recode import r_cut

__all__ = ["info_loss", "INFO_LOSS_PARAMS", "DEFAULT_PROBS", "DEFAULT_QUANTVALS"]

#: sdcMicro's default ``probs``: ``sort(c(seq(0, 1, by = 0.1), 0.95, 0.99))`` (R's seq: ``0 + i * 0.1``)
DEFAULT_PROBS = tuple(sorted([i * 0.1 for i in range(11)] + [0.95, 0.99]))
#: sdcMicro's default ``quantvals``
DEFAULT_QUANTVALS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, float("inf"))


class _Metrics(Constraint):
    """A list of sdcMicro's metric names (one name alone allowed), each at most once."""

    def check(self, name, value, values):
        vals = [value] if isinstance(value, str) else value
        if isinstance(vals, (bytes, Mapping)) or not hasattr(vals, "__iter__"):
            raise InvalidParameterError(f"{name} must be a list of {list(METRICS)}; got {value!r}.")
        vals = list(vals)
        bad = [v for v in vals if v not in METRICS]
        if bad:
            raise InvalidParameterError(
                f"{name} can only take the values {list(METRICS)} (use custom_metric for others); got {bad!r}.")
        if len(set(vals)) != len(vals):
            raise InvalidParameterError(f"{name} names a metric twice; got {vals!r}.")
        return vals

    def invalid_values(self, name, values):
        return ["__bogus__", ["absD", "absD"], 3]


class _Numbers(Constraint):
    """A non-empty list of real numbers (``unit``: each in [0, 1]; ``min_len``: at least that many)."""

    def __init__(self, unit: bool, min_len: int):
        self.unit, self.min_len = unit, min_len

    def check(self, name, value, values):
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            value = [value]
        vals = list(value)
        if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) for v in vals):
            raise InvalidParameterError(f"{name} must be a list of numbers; got {value!r}.")
        arr = np.asarray(vals, dtype=np.float64)
        if arr.size < self.min_len:
            raise InvalidParameterError(f"{name} must hold at least {self.min_len} number(s); got {vals!r}.")
        if self.unit and not ((arr >= 0) & (arr <= 1)).all():
            raise InvalidParameterError(f"{name} must hold probabilities in [0, 1]; got {vals!r}.")
        if not self.unit and np.isnan(arr).any():
            raise InvalidParameterError(f"{name} must not hold missing values; got {vals!r}.")
        return arr

    def invalid_values(self, name, values):
        out = ["abc", [True]]
        out += [[0.2, 1.5], [-0.1]] if self.unit else [[0.5], [0.0, float("nan")]]
        return out


class _Names(Constraint):
    """A list of names (one name alone allowed)."""

    def check(self, name, value, values):
        vals = [value] if isinstance(value, str) else value
        if isinstance(vals, (bytes, Mapping)) or not hasattr(vals, "__iter__") or \
                not all(isinstance(v, str) for v in vals):
            raise InvalidParameterError(f"{name} must be a list of metric names; got {value!r}.")
        return list(vals)

    def invalid_values(self, name, values):
        return [3, [1]]


class _CustomMetrics(Constraint):
    """None, or metric name -> function ``f(x, y)`` (a dict) or functions named customD1, ... (a list)."""

    def check(self, name, value, values):
        if value is None:
            return {}
        if callable(value):
            raise InvalidParameterError(
                f"{name} must be a dict {{name: function}} or a list of functions; a single function is refused "
                "as sdcMicro 5.8.0 fails on it (it calls the function without arguments). Pass [f] or {'name': f}.")
        if isinstance(value, Mapping):
            items = list(value.items())
        elif isinstance(value, (list, tuple)):
            items = [("", f) for f in value]
        else:
            raise InvalidParameterError(f"{name} must be a dict of functions or a list of functions; got {value!r}.")
        if not all(callable(f) for _, f in items):
            raise InvalidParameterError(f"{name}: every entry must be a single function f(x, y).")
        if not all(isinstance(k, str) for k, _ in items):
            raise InvalidParameterError(f"{name}: the names of the functions must be strings.")
        # sdcMicro's naming: unnamed entries take the unused names among customD1, customD2, ...
        given = [k for k, _ in items]
        free = [f"customD{i + 1}" for i in range(len(items)) if f"customD{i + 1}" not in given]
        out, it = {}, iter(free)
        for k, f in items:
            key = k or next(it)
            if key in out:
                raise InvalidParameterError(f"{name} names the metric {key!r} twice.")
            out[key] = f
        return out

    def invalid_values(self, name, values):
        return [lambda x, y: x, "absD", [1], {"m": 2}]


INFO_LOSS_PARAMS = {
    "data": Frame(),
    "data_swapped": Frame(),
    "table_vars": Columns(of="data"),
    "metric": _Metrics(),
    "custom_metric": _CustomMetrics(),
    "hid": Columns(of="data", single=True, optional=True),
    "probs": _Numbers(unit=True, min_len=1),
    "quantvals": _Numbers(unit=False, min_len=2),
    "apply_quantvals": _Names(),
    "exclude_zeros": Boolean(),
    "only_inner_cells": Boolean(),
    "inner": Boolean(),
}


def _codes(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray, Callable]:
    """Integer codes of one table variable in both frames (-1: missing), numbered in R's sort order
    (numbers by value, text by code point as data.table sorts, factors by their levels), and the decoder."""
    if isinstance(a.dtype, pd.CategoricalDtype) or isinstance(b.dtype, pd.CategoricalDtype):
        cats = list(a.cat.categories) if isinstance(a.dtype, pd.CategoricalDtype) else []
        if isinstance(b.dtype, pd.CategoricalDtype):
            seen = set(cats)
            cats += [c for c in b.cat.categories if c not in seen]
        seen = set(cats)
        for s in (a, b):  # a non-factor side: its values after the levels, sorted
            if not isinstance(s.dtype, pd.CategoricalDtype):
                cats += sorted({v for v in s.dropna().unique() if v not in seen}, key=str)
        levels = pd.Index(cats)

        def coded(s):
            if isinstance(s.dtype, pd.CategoricalDtype) and list(s.cat.categories) == cats:
                return s.cat.codes.to_numpy()
            return pd.Categorical(s, categories=levels).codes

        ca, cb = coded(a), coded(b)

        def decode(c):
            return pd.Categorical.from_codes(c, categories=levels)
    else:
        both = pd.concat([a.reset_index(drop=True), b.reset_index(drop=True)], ignore_index=True)
        try:
            codes, levels = pd.factorize(both, sort=True)
        except TypeError as exc:
            raise InvalidParameterError(
                f"table variable {a.name!r} mixes values that cannot be ordered ({exc}).") from None
        ca, cb = codes[: len(a)], codes[len(a):]
        levels = pd.Index(levels)
        dtype = both.dtype

        def decode(c):
            missing = c < 0
            if not missing.any():
                return pd.Series(levels.take(c), dtype=levels.dtype).astype(dtype)
            target = ("Float64" if pd.api.types.is_float_dtype(dtype)
                      else "Int64" if pd.api.types.is_integer_dtype(dtype) else object)
            if len(levels) == 0:  # the variable is missing throughout: no level to take
                return pd.Series([None] * len(c), dtype=target)
            vals = pd.Series(levels.take(np.maximum(c, 0)), dtype=levels.dtype).astype(target)
            vals[missing] = None
            return vals
    return np.asarray(ca, dtype=np.int64), np.asarray(cb, dtype=np.int64), decode


@measure(INFO_LOSS_PARAMS, selects="data", engine="it compares two files' tables cell by cell (no engine "
         "implementation yet)", by_name=True, paired=False)
def info_loss(
    data: pd.DataFrame,
    data_swapped: pd.DataFrame,
    table_vars: list,
    *,
    metric=METRICS,
    custom_metric=None,
    hid: str | None = None,
    probs=DEFAULT_PROBS,
    quantvals=DEFAULT_QUANTVALS,
    apply_quantvals=("relabsD", "abssqrtD"),
    exclude_zeros: bool = False,
    only_inner_cells: bool = False,
    inner: bool = False,
) -> InfoLossResult:
    """Information loss of frequency tables after targeted record swapping (sdcMicro's ``infoLoss``).

    Builds the frequency table of ``table_vars`` (and, unless ``only_inner_cells``, all its margins)
    from ``data`` and from ``data_swapped`` and applies each metric to every cell's pair of counts.

    Parameters
    ----------
    data : pandas.DataFrame
        Original micro data.
    data_swapped : pandas.DataFrame
        The data after record swapping (e.g. :func:`pysdc.protect.record_swap`).
    table_vars : list of str
        Variables of the table (columns of both frames).
    metric : list of {"absD", "relabsD", "abssqrtD"}
        sdcMicro's metrics: ``|o - s|``, ``|o - s| / o`` (0 where ``o = 0``), ``|sqrt(o) - sqrt(s)|``
        of each cell's original count ``o`` and swapped count ``s``.
    custom_metric : dict or list of callables, optional
        More metrics ``f(o, s) -> array`` (NumPy arrays of the counts); a list is named
        ``customD1``, ``customD2``, ...
    hid : str, optional
        Household id: count households (each one's first record) instead of records.
    probs : list of float
        Probabilities of the quantiles in ``measures`` (at least one below 0.5).
    quantvals : list of float
        Breaks of the cumulative distributions of the metrics in ``apply_quantvals``.
    apply_quantvals : list of str
        Metrics whose cumulative distribution is over the intervals of ``quantvals`` (the others:
        over their distinct values).
    exclude_zeros : bool
        Leave out the cells that are empty in ``data_swapped``.
    only_inner_cells : bool
        sdcMicro's option meant to compare the inner cells only; sdcMicro 5.8.0 compares the one-way
        tables of each variable instead (no inner cell at all). Returned as sdcMicro computes it,
        with a warning; for the inner cells pass ``inner=True``.
    inner : bool
        Compare exactly the inner cells of the table of all ``table_vars`` (no margins); pysdc only.

    Returns
    -------
    InfoLossResult
        ``cellvalues``, ``overview``, ``measures``, ``cumdistr``, ``false_zero``, ``false_nonzero``,
        ``exclude_zeros``.

    Raises
    ------
    InvalidParameterError
        A table variable or ``hid`` missing in ``data_swapped``, a metric giving missing values,
        ``probs`` without a value below 0.5 or giving a row name twice (sdcMicro stops there too).

    See Also
    --------
    pysdc.protect.record_swap, pysdc.r.info_loss

    Notes
    -----
    As sdcMicro 5.8.0: the cells of every margin carry missing values in the variables summed over,
    so they are joined with each other -- and with the data's own missing values -- on the table
    variables (all cells of one side meeting a cell of the other are paired, as R's
    ``merge(all = TRUE)``); ``relabsD`` of a cell empty in the original is 0 (sdcMicro replaces the
    infinite ratio by 0), so a false non-zero cell shows no relative loss. The quantiles are R's
    type 7, the mean R's; the interval names of the cumulative distributions are R's ``cut`` labels
    turned cumulative (``[0,0.05]``). A single function as ``custom_metric`` is refused (sdcMicro
    5.8.0 fails on it); pass a list or a dict.
    """
    miss = [c for c in table_vars if c not in data_swapped.columns]
    if miss:
        raise InvalidParameterError(f"table_vars {miss} are not columns of data_swapped (sdcMicro stops here too).")
    if hid is not None:
        if hid not in data_swapped.columns:
            raise InvalidParameterError(f"hid {hid!r} is not a column of data_swapped (sdcMicro stops here too).")
        check_columns("hid", [hid], data)
        data = data.drop_duplicates(subset=[hid], keep="first")
        data_swapped = data_swapped.drop_duplicates(subset=[hid], keep="first")
    metrics: dict = {m: None for m in metric}
    clash = [m for m in custom_metric if m in metrics]
    if clash:
        raise InvalidParameterError(f"custom_metric names {clash}, which metric already computes; rename them.")
    metrics.update(custom_metric)

    enc = [_codes(data[c], data_swapped[c]) for c in table_vars]
    co = np.column_stack([e[0] for e in enc]) if enc else np.zeros((len(data), 0), dtype=np.int64)
    cs = np.column_stack([e[1] for e in enc]) if enc else np.zeros((len(data_swapped), 0), dtype=np.int64)
    if only_inner_cells and not inner:
        warnings.warn(
            "only_inner_cells=True: sdcMicro 5.8.0 compares the one-way tables of each table variable then "
            "(it passes the variables one by one instead of together), not the inner cells; pysdc returns "
            "sdcMicro's numbers. For the inner cells of the full table pass inner=True.",
            DegenerateResultWarning, stacklevel=user_stacklevel())
    tab = cell_counts(co, cs, "inner" if inner else "one-way" if only_inner_cells else "all")
    if exclude_zeros:
        tab = tab[tab["count_s"] != 0].reset_index(drop=True)
    o, s = tab["count_o"].to_numpy(), tab["count_s"].to_numpy()
    cellvalues = pd.DataFrame({c: enc[j][2](tab[f"v{j}"].to_numpy()) for j, c in enumerate(table_vars)})
    cellvalues["count_o"] = o
    cellvalues["count_s"] = s

    cols, cumdistr, what = {}, {}, None
    for name, fn in metrics.items():
        if fn is None:
            x = metric_values(name, o, s)
        else:
            try:
                x = fn(o.copy(), s.copy())
            except Exception as exc:  # noqa: BLE001 - a user's function: its failure, named
                raise InvalidParameterError(f"custom_metric[{name!r}] failed: {type(exc).__name__}: {exc}") from None
            x = np.asarray(x)
            if x.shape != o.shape or not (np.issubdtype(x.dtype, np.number) or x.dtype == bool):
                raise InvalidParameterError(
                    f"custom_metric[{name!r}] must return numbers, one per cell ({o.size}); got {x.dtype} of "
                    f"shape {x.shape}.")
            if x.dtype == bool:
                x = x.astype(np.int64)
        names, vals = distribution(x, probs)
        what = names
        cols[name] = vals
        n = x.size
        if name in apply_quantvals:
            codes, labels = r_cut(np.asarray(x, dtype=np.float64), quantvals, include_lowest=True, dig_lab=3)
            _, cum = cumulative_counts(x, codes=np.asarray(codes, dtype=np.int64), n_levels=len(labels))
            cats = cumulative_labels(labels)
        else:
            vals_u, cum = cumulative_counts(x, codes=None, n_levels=0)
            texts = [str(int(v)) for v in vals_u] if np.issubdtype(vals_u.dtype, np.integer) \
                else [r_as_character(float(v)) for v in vals_u]
            # R's table() counts by the text of the value: values printing alike are one category
            frame = pd.DataFrame({"cat": texts, "cum": cum}).groupby("cat", sort=False).last()
            cats, cum = list(frame.index), frame["cum"].to_numpy(dtype=np.int64)
        cumdistr[name] = pd.DataFrame({"cat": cats, "cnt": cum,
                                       "pct": cum / float(n) if n else cum.astype(np.float64)})
    measures = pd.DataFrame({k: cols[k] for k in sorted(cols)},  # dcast: metrics in C-locale order
                            index=pd.Index(what or [], name="what"))
    return InfoLossResult(
        cellvalues=cellvalues,
        overview=overview(o, s),
        measures=measures,
        cumdistr=cumdistr,
        false_zero=int(((o != 0) & (s == 0)).sum()),
        false_nonzero=int(((o == 0) & (s != 0)).sum()),
        exclude_zeros=bool(exclude_zeros),
    )
