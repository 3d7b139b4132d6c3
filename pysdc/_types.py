"""The pandas <-> R type correspondence that defines "the same input".

============================  ==================
pandas dtype                  R class
============================  ==================
float64 (float32, Float64)    numeric (double)
int64 / Int64 (any int)       integer
bool / boolean                logical
object / str / string         character
Categorical                   factor
ordered Categorical           ordered factor
datetime64                    POSIXct
============================  ==================

NaN, None, ``pd.NA`` and ``NaT`` all mean R's ``NA``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError

__all__ = ["r_class", "as_float", "numeric_columns", "R_CLASSES", "NUMERIC_CLASSES", "NUMERIC_MATRIX_CLASSES", "R_INT_MAX"]

R_CLASSES = ("numeric", "integer", "logical", "character", "factor", "ordered", "POSIXct")
#: the R classes sdcMicro's numeric measures (dUtility, IL_correl) compute on
NUMERIC_CLASSES = ("numeric", "integer")
#: the R classes a measure given numeric data accepts (R's as.matrix keeps them numeric; logical as 0/1)
NUMERIC_MATRIX_CLASSES = ("numeric", "integer", "logical")
#: R's largest integer (R's integers are 32 bit; NA_integer_ is -2^31)
R_INT_MAX = 2**31 - 1


def r_class(s: pd.Series) -> str:
    """Return the R class a pandas column corresponds to."""
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        return "ordered" if dt.ordered else "factor"
    if pd.api.types.is_bool_dtype(dt):
        return "logical"
    if pd.api.types.is_integer_dtype(dt):
        return "integer"
    if pd.api.types.is_float_dtype(dt):
        return "numeric"
    if pd.api.types.is_datetime64_any_dtype(dt):
        return "POSIXct"
    if pd.api.types.is_string_dtype(dt) or dt == np.dtype(object):
        return "character"
    if pd.api.types.is_complex_dtype(dt):
        raise InvalidParameterError(
            f"column {s.name!r} has complex dtype {dt}; sdcMicro has no complex data. "
            "Convert it to float first."
        )
    raise InvalidParameterError(
        f"column {s.name!r} has dtype {dt}, which has no R counterpart in pysdc's type table "
        "(float, int, bool, str/object, Categorical, datetime64)."
    )


def as_float(s: pd.Series, *, copy: bool = True) -> np.ndarray:
    """Values of a numeric, integer or logical column as float64, NA as NaN.

    With ``copy=False`` a float64 column's own buffer may be returned (do not modify it).
    """
    if isinstance(s.dtype, pd.CategoricalDtype):
        raise InvalidParameterError(f"column {s.name!r} is categorical, not numeric")
    values = s.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.array(values, dtype=np.float64) if copy else np.asarray(values, dtype=np.float64)


def numeric_columns(x: pd.DataFrame, xm: pd.DataFrame, columns=None) -> list:
    """The one rule for which columns the numeric measures use: those (of ``columns``, default
    the common ones, in ``x``'s order) whose R class is numeric or integer in both frames."""
    cols = [c for c in x.columns if c in set(xm.columns)] if columns is None else list(columns)
    return [c for c in cols if r_class(x[c]) in NUMERIC_CLASSES and r_class(xm[c]) in NUMERIC_CLASSES]
