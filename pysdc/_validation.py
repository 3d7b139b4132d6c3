"""Parameter validation shared by every public function.

One message template: ``<param> must be <expectation>; got <value>.`` followed by
what to do, if there is something to do.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError

__all__ = [
    "check_option",
    "check_real",
    "check_frame",
    "check_columns",
    "check_bool",
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


def check_frame(name: str, data, *, allow_array: bool = False) -> pd.DataFrame:
    """Return ``data`` as a DataFrame; NumPy 2-d arrays only if ``allow_array``.

    Arrays get the column names ``V1``, ``V2``, ... as R's ``as.data.frame`` would.
    """
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
        return pd.DataFrame(data, columns=[f"V{i + 1}" for i in range(data.shape[1])])
    kinds = "a pandas DataFrame or a numeric 2-d NumPy array" if allow_array else "a pandas DataFrame"
    raise InvalidParameterError(f"{name} must be {kinds}; got {type(data).__name__}.")


def check_columns(name: str, columns, data: pd.DataFrame, *, data_name: str = "data") -> list:
    """Check that ``columns`` (a name or a list of names) are columns of ``data``."""
    if columns is None:
        raise InvalidParameterError(f"{name} must name at least one column of {data_name}; got None.")
    if isinstance(columns, (str, numbers.Integral)) and not isinstance(columns, bool):
        cols = [columns]
    elif isinstance(columns, Iterable):
        cols = list(columns)
    else:
        raise InvalidParameterError(f"{name} must be a column name or a list of column names; got {_show(columns)}.")
    if not cols:
        raise InvalidParameterError(f"{name} must name at least one column of {data_name}; got an empty list.")
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise InvalidParameterError(
            f"{name} names column(s) {missing} that {data_name} does not have; "
            f"available columns: {list(data.columns)[:20]}{' ...' if data.shape[1] > 20 else ''}."
        )
    if len(set(cols)) != len(cols):
        raise InvalidParameterError(f"{name} names a column more than once: {cols}.")
    return cols
