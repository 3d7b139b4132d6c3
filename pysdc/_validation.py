"""Parameter validation shared by every public function.

One message template: ``<param> must be <expectation>; got <value>.`` followed by
what to do, if there is something to do.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._errors import AlignmentWarning, InvalidParameterError, user_stacklevel
from ._names import did_you_mean
from .io._interchange import as_frame

__all__ = [
    "check_option",
    "check_real",
    "check_frame",
    "check_columns",
    "check_bool",
    "Constraint",
    "Frame",
    "Columns",
    "Interval",
    "Options",
    "Boolean",
    "InstanceOf",
    "RandomState",
    "MappingOf",
    "validate",
    "validate_params",
    "declared_params",
    "warn_if_unaligned",
]


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_option(name: str, value, options: Sequence[str]) -> str:
    """Check that ``value`` is one of ``options`` (exact string match)."""
    if not isinstance(value, str) or value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise InvalidParameterError(f"{name} must be one of {opts}; got {_show(value)}.")
    return value


def check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be True or False; got {_show(value)}.")
    return bool(value)


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Check that ``value`` is a finite real number within the given interval."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number; got {_show(value)}.")
    v = float(value)
    if not np.isfinite(v):
        raise InvalidParameterError(f"{name} must be a finite number; got {_show(value)}.")
    bad = (
        (low is not None and (v <= low if low_open else v < low))
        or (high is not None and (v >= high if high_open else v > high))
    )
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        interval = f"{lo}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi}"
        raise InvalidParameterError(f"{name} must lie in {interval}; got {_show(value)}.")
    return v


#: ``DataFrame.attrs`` key set on frames that :func:`check_frame` made from NumPy arrays
FROM_ARRAY = "pysdc_from_array"


def check_frame(name: str, data, *, allow_array: bool = False) -> pd.DataFrame:
    """Return ``data`` as a DataFrame; NumPy 2-d arrays only if ``allow_array``.

    Arrays get the column names ``V1``, ``V2``, ... as R's ``as.data.frame`` would. A Polars
    DataFrame / LazyFrame, a PyArrow table or an object with ``__arrow_c_stream__`` becomes the
    pandas DataFrame pysdc's Parquet reader would make of it (:mod:`pysdc.io._interchange`).
    """
    if not isinstance(data, (pd.DataFrame, np.ndarray)):
        data = as_frame(name, data)
    if isinstance(data, pd.DataFrame):
        if data.columns.duplicated().any():
            dup = list(data.columns[data.columns.duplicated()].unique())
            raise InvalidParameterError(
                f"{name} has duplicated column names {dup}; give every column a unique name."
            )
        return data
    if allow_array and isinstance(data, np.ndarray):
        if data.ndim != 2:
            raise InvalidParameterError(
                f"{name} must be a 2-d array (records x variables); got {data.ndim} dimension(s)."
            )
        if not (np.issubdtype(data.dtype, np.number) or data.dtype == bool):
            raise InvalidParameterError(
                f"{name} must be a numeric array; got dtype {data.dtype}. "
                "Pass a pandas DataFrame for non-numeric data."
            )
        frame = pd.DataFrame(data, columns=[f"V{i + 1}" for i in range(data.shape[1])])
        frame.attrs[FROM_ARRAY] = True  # columns (and records) are matched by position
        return frame
    kinds = ("a pandas DataFrame or a numeric 2-d NumPy array" if allow_array else "a pandas DataFrame") + \
        " (or a Polars DataFrame, a PyArrow Table ...)"
    raise InvalidParameterError(f"{name} must be {kinds}; got {type(data).__name__}.")


def check_columns(name: str, columns, data: pd.DataFrame, *, data_name: str = "data") -> list:
    """Check that ``columns`` (a name or a list of names) are columns of ``data``."""
    if columns is None:
        raise InvalidParameterError(f"{name} must name at least one column of {data_name}; got None.")
    if isinstance(columns, (pd.Series, pd.DataFrame, np.ndarray, pd.Index)) and not isinstance(columns, pd.Index):
        raise InvalidParameterError(
            f"{name} takes column name(s) of {data_name}, not the values themselves; got a "
            f"{type(columns).__name__} of {len(columns)} value(s). Pass the name, e.g. {name}='weight'."
        )
    if isinstance(columns, (str, numbers.Integral)) and not isinstance(columns, bool):
        cols = [columns]
    elif isinstance(columns, Iterable):
        cols = list(columns)
    else:
        raise InvalidParameterError(f"{name} must be a column name or a list of column names; got {_show(columns)}.")
    if not cols:
        raise InvalidParameterError(f"{name} must name at least one column of {data_name}; got an empty list.")
    unhashable = [c for c in cols if not isinstance(c, Hashable)]
    if unhashable:
        raise InvalidParameterError(
            f"{name} must be a column name or a list of column names; got {_show(columns)}."
        )
    missing = [c for c in cols if c not in data.columns]
    if missing:
        positions = [int(c) for c in missing if isinstance(c, numbers.Integral) and not isinstance(c, bool)]
        names = [str(data.columns[p - 1]) for p in positions if 1 <= p <= data.shape[1]]
        hint = ("" if not positions else " pysdc takes column names, not positions as R's keyVars = c(2, 4) does"
                + (f" (R's positions {positions} would be {names})" if len(names) == len(positions) else "") + ";")
        raise InvalidParameterError(
            f"{name} names column(s) {_show(missing)} that {data_name} does not have;{hint}"
            f"{did_you_mean(missing, data.columns)} "
            f"available columns: {list(data.columns)[:20]}{' ...' if data.shape[1] > 20 else ''}."
        )
    if len(set(cols)) != len(cols):
        raise InvalidParameterError(f"{name} names a column more than once: {cols}.")
    return cols


# =============================================================================
# Declared parameter constraints (after scikit-learn's ``validate_params``)
#
# A measure declares, next to its signature, what each parameter accepts. The native
# function (through :func:`validate_params`) and the R bridge (through the registry,
# :mod:`pysdc._registry`) validate from the same declaration, so both refuse the same
# inputs with the same :class:`~pysdc.InvalidParameterError`, and the tests generate the
# invalid values from the declarations (:meth:`Constraint.invalid_values`).


class Constraint:
    """What one parameter accepts. ``check`` returns the normalised value or raises."""

    def check(self, name: str, value, values: dict):
        """Return ``value`` normalised, or raise InvalidParameterError naming ``name``."""
        return value

    def invalid_values(self, name: str, values: dict) -> list:
        """Values this constraint refuses, given the other (valid) arguments."""
        return []


@dataclass(frozen=True)
class Frame(Constraint):
    """A DataFrame (or, with ``allow_array``, a numeric 2-d NumPy array)."""

    allow_array: bool = False

    def check(self, name, value, values):
        return check_frame(name, value, allow_array=self.allow_array)

    def invalid_values(self, name, values):
        return ["not a frame", [[1.0, 2.0]], None]


@dataclass(frozen=True)
class Columns(Constraint):
    """Column names of the frame argument ``of``.

    ``single``: exactly one column (returned as a name); ``optional``: None allowed;
    ``disjoint_from``: no column may also appear in that parameter; ``max_count``:
    at most that many columns (with ``note`` telling the way out).
    """

    of: str = "data"
    single: bool = False
    optional: bool = False
    disjoint_from: str | None = None
    disjoint_message: str = "{name}: column(s) {cols} are also in {other}; a column must be one or the other."
    max_count: int | None = None
    max_message: str = "{name} names {n} columns; at most {max} are supported."

    def check(self, name, value, values):
        if value is None and self.optional:
            return None
        data = values[self.of]
        cols = check_columns(name, value, data, data_name=self.of)
        if self.single and len(cols) != 1:
            raise InvalidParameterError(f"{name} must name exactly one column of {self.of}; got {cols}.")
        if self.disjoint_from is not None:
            other = values.get(self.disjoint_from) or []
            other = [other] if isinstance(other, str) else list(other)
            both = [c for c in cols if c in other]
            if both:
                shown = repr(both[0]) if self.single else str(both)
                raise InvalidParameterError(
                    self.disjoint_message.format(name=name, cols=shown, other=self.disjoint_from)
                )
        if self.max_count is not None and len(cols) > self.max_count:
            raise InvalidParameterError(self.max_message.format(name=name, n=len(cols), max=self.max_count))
        return cols[0] if self.single else cols

    def invalid_values(self, name, values):
        data = values[self.of]
        out = [["__no_such_column__"], 3.5]
        if not self.optional:
            out += [None, []]
        if self.single and isinstance(data, pd.DataFrame) and data.shape[1] >= 2:
            out.append(list(data.columns[:2]))
        if self.disjoint_from is not None:
            other = values.get(self.disjoint_from)
            other = [other] if isinstance(other, str) else list(other or [])
            if other:
                out.append(other[0] if self.single else [other[0]])
        if self.max_count is not None and isinstance(data, pd.DataFrame):
            taken = set()
            for v in values.values():
                if isinstance(v, str):
                    taken.add(v)
                elif isinstance(v, list):
                    taken.update(c for c in v if isinstance(c, str))
            free = [c for c in data.columns if c not in taken]
            if len(free) > self.max_count:
                out.append(free[: self.max_count + 1])
        return out


@dataclass(frozen=True)
class Interval(Constraint):
    """A finite real number in an interval; ``None`` ends are unbounded."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right", "neither"
    note: str = ""

    def check(self, name, value, values):
        low_open = self.closed in ("right", "neither")
        high_open = self.closed in ("left", "neither")
        if self.note:
            try:
                return check_real(name, value, low=self.low, high=self.high, low_open=low_open, high_open=high_open)
            except InvalidParameterError as exc:
                text = str(exc)
                head, sep, tail = text.partition("; got ")
                raise InvalidParameterError(f"{head} ({self.note}){sep}{tail}") from None
        return check_real(name, value, low=self.low, high=self.high, low_open=low_open, high_open=high_open)

    def invalid_values(self, name, values):
        out = ["1", float("nan"), True]
        if self.low is not None:
            out.append(self.low if self.closed in ("right", "neither") else self.low - 1)
        if self.high is not None:
            out.append(self.high if self.closed in ("left", "neither") else self.high + 1)
        return out


@dataclass(frozen=True)
class Options(Constraint):
    """One of a fixed set of strings."""

    options: tuple

    def check(self, name, value, values):
        return check_option(name, value, self.options)

    def invalid_values(self, name, values):
        return ["__bogus__", None, 3]


@dataclass(frozen=True)
class Boolean(Constraint):
    """True or False (NumPy booleans accepted)."""

    def check(self, name, value, values):
        return check_bool(name, value)

    def invalid_values(self, name, values):
        return ["yes", None, 1]


@dataclass(frozen=True)
class InstanceOf(Constraint):
    """An instance of ``cls`` (``what`` names it in the message)."""

    cls: type
    what: str = ""

    def check(self, name, value, values):
        if not isinstance(value, self.cls):
            what = self.what or self.cls.__name__
            raise InvalidParameterError(f"{name} must be {what}; got {type(value).__name__}.")
        return value

    def invalid_values(self, name, values):
        return [{"fk": [1.0]}, None]


@dataclass(frozen=True)
class RandomState(Constraint):
    """A seed: None, a non-negative int, or (``generator=True``) a ``numpy.random.Generator``."""

    generator: bool = True
    note: str = ""

    def check(self, name, value, values):
        if value is None:
            return None
        if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
            if int(value) < 0:
                raise InvalidParameterError(f"{name} must be a non-negative int; got {_show(value)}.")
            return int(value)
        if self.generator and isinstance(value, np.random.Generator):
            return value
        kinds = "None, a non-negative int or a numpy.random.Generator" if self.generator else "None or a non-negative int"
        extra = f" {self.note}" if self.note else ""
        raise InvalidParameterError(f"{name} must be {kinds}; got {_show(value)}.{extra}")

    def invalid_values(self, name, values):
        return ["abc", -1, 1.5, True]


@dataclass(frozen=True)
class MappingOf(Constraint):
    """None or a dict whose keys are columns of every frame in ``of`` and whose values are options."""

    options: tuple
    of: tuple = ("x", "xm")

    def check(self, name, value, values):
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise InvalidParameterError(
                f"{name} must be a dict mapping column names to one of {self.options}; got {type(value).__name__}."
            )
        for col, v in value.items():
            check_option(f"{name}[{col!r}]", v, self.options)
            if not all(col in values[f].columns for f in self.of):
                cols = [c for f in self.of for c in values[f].columns]
                raise InvalidParameterError(
                    f"{name} names column {col!r}, which is not a column of {' and '.join(self.of)}."
                    f"{did_you_mean([col], dict.fromkeys(cols))}"
                    if len(self.of) == 1 else
                    f"{name} names column {col!r}, which is not a column of both {' and '.join(self.of)}."
                )
        return dict(value)

    def invalid_values(self, name, values):
        return [["u"], {"__no_such_column__": self.options[0]}, {next(iter(values[self.of[0]].columns)): "__bogus__"}]


@dataclass(frozen=True)
class Any_(Constraint):
    """Anything (checked in the function body)."""

    def check(self, name, value, values):
        return value


def validate(params: dict, arguments: dict) -> dict:
    """Check ``arguments`` against ``params`` (in declaration order); return the normalised values.

    Later constraints see the earlier, normalised values (a column constraint sees its frame
    as a DataFrame). Arguments without a declaration pass unchanged.
    """
    values = dict(arguments)
    for name, constraint in params.items():
        if name in values:
            values[name] = constraint.check(name, values[name], values)
    return values


def validate_params(params: dict):
    """Decorator: validate a public function's arguments from declared constraints.

    Public measures carry :func:`pysdc._foreign.measure`, which adds to this what else a frame
    argument may be (an SdcProblem, an engine's table, a Polars / Arrow table). The declarations
    are kept on the function as ``__pysdc_params__``; the R bridge and the generated
    invalid-value tests read them there (through :mod:`pysdc._registry`). The
    function body receives the normalised values (a frame for an array, a list of column
    names, a float for a number...).
    """

    def deco(func):
        sig = inspect.signature(func)
        unknown = set(params) - set(sig.parameters)
        if unknown:  # pragma: no cover - a declaration error, caught at import
            raise TypeError(f"{func.__name__}: constraints for unknown parameters {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            return func(**validate(params, bound.arguments))

        wrapper.__pysdc_params__ = params
        return wrapper

    return deco


def declared_params(func) -> dict:
    """The constraints declared for ``func`` by :func:`validate_params` (empty if none)."""
    return dict(getattr(func, "__pysdc_params__", {}))


def warn_if_unaligned(func: str, x, xm) -> None:
    """Warn when ``x`` and ``xm`` are DataFrames whose indexes differ: records are paired by position.

    sdcMicro (and pysdc) compare the i-th record of ``x`` with the i-th record of ``xm``;
    pandas users expect alignment on the index. Frames made from NumPy arrays are positional
    by nature and not warned about.
    """
    if not (isinstance(x, pd.DataFrame) and isinstance(xm, pd.DataFrame)):
        return
    if x.attrs.get(FROM_ARRAY) or xm.attrs.get(FROM_ARRAY) or len(x) != len(xm):
        return
    if x.index.equals(xm.index):
        return
    same_labels = len(x.index) == len(xm.index) and x.index.is_unique and set(x.index) == set(xm.index)
    how = ("the same labels in a different order: align with xm = xm.loc[x.index]"
           if same_labels else
           "different labels: if the rows are in the same order, drop the labels with "
           "x.reset_index(drop=True) and xm.reset_index(drop=True)")
    warnings.warn(
        f"{func}: x and xm have different row indexes ({how}). Records are paired by position (row i of x "
        "with row i of xm, as in sdcMicro), not by index label.",
        AlignmentWarning,
        stacklevel=user_stacklevel(),
    )


def same_columns(x: pd.DataFrame, xm: pd.DataFrame, *, hint: str = "") -> pd.DataFrame:
    """``xm`` with ``x``'s column order; refuses frames whose variables differ, naming them (then ``hint``)."""
    if list(x.columns) == list(xm.columns):
        return xm
    if set(x.columns) == set(xm.columns):
        return xm[list(x.columns)]
    only_x = [c for c in x.columns if c not in set(xm.columns)]
    only_xm = [c for c in xm.columns if c not in set(x.columns)]
    raise InvalidParameterError(
        "x and xm must have the same variables; "
        f"only in x: {only_x[:10]}, only in xm: {only_xm[:10]}. Select the same columns in both{hint}."
    )
