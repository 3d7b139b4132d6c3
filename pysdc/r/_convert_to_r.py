"""The converter from pandas/NumPy to R (used by every bridge call); R -> Python is :mod:`._convert_to_py`.

Built on rpy2's low-level ``rinterface`` only: R vectors are filled from NumPy
buffers and read back through views of R's memory. rpy2's pandas2ri is not
used (slow, and wrong on NA for several types). Only imported once R runs,
always under the session lock.

Python -> R
-----------
=============================  =========================================
float64 / float32 / Float64    double; NaN and pd.NA -> NA_real_
int64 / Int64 / other ints     integer; pd.NA -> NA_integer_; values outside
                               R's integer range -> InvalidParameterError
bool / boolean                 logical; pd.NA -> NA
object (str) / string          character; None, NaN, pd.NA -> NA_character_
Categorical                    factor (levels = categories as R prints them)
ordered Categorical            ordered factor, level order kept
datetime64 (naive or tz)       POSIXct (seconds, tzone "UTC" or the tz); NaT -> NA
DataFrame                      data.frame; a default RangeIndex becomes R's
                               automatic row names, a unique integer index
                               integer row names, another unique index character
                               row names; a non-unique index is not sent
Polars / PyArrow table,        converted to pandas as pysdc reads Parquet
__arrow_c_stream__             (pysdc.io), then a data.frame
2-d ndarray                    matrix
dict                           named list; list/tuple of scalars -> vector,
                               otherwise unnamed list; None -> NULL
=============================  =========================================

Dtypes sent in a data.frame are remembered (:mod:`._convert_memo`) so that they come back.
"""

from __future__ import annotations

import datetime as _dt
import numbers

import numpy as np
import pandas as pd
import rpy2.rinterface as ri
from rpy2.rinterface_lib import openrlib

from .._errors import InvalidParameterError
from .._types import r_class
from ..io import is_interchange, to_pandas
from ._convert_memo import _active
from ._helpers import H as _H
from ._helpers import few_distinct as _few_distinct
from ._objects import RList, RObject

__all__ = ["to_r", "frame_to_r", "series_to_r"]

# R's NA_real_ is a NaN whose low word is 1954; R's NA_integer_ and NA (logical) are INT_MIN.
NA_REAL_BITS = np.int64(0x7FF00000000007A2)
NA_INT = np.int32(-(2**31))
INT_MAX = 2**31 - 1
_SEP = "\x1f"  # unit separator used to ship many strings as one buffer
#: below this length, strings go through rpy2 element by element (cheaper than a buffer round trip)
_SMALL = 64


# --------------------------------------------------------------------------- low level
def _buffer(vec, dtype) -> np.ndarray:
    """A copy of the data of an R vector as a NumPy array (via a view of R memory)."""
    n = len(vec)
    dt = np.dtype(dtype)
    if n == 0:
        return np.empty(0, dtype=dt)
    buf = openrlib.ffi.buffer(vec._R_GET_PTR(vec.__sexp__._cdata), dt.itemsize * n)
    return np.frombuffer(buf, dtype=dt).copy()


def _real(values: np.ndarray, mask: np.ndarray | None):
    v = np.ascontiguousarray(values, dtype=np.float64)
    if mask is not None and mask.any():
        v = v.copy()
        v.view(np.int64)[mask] = NA_REAL_BITS
    return ri.FloatSexpVector.from_memoryview(memoryview(v))


def _classed(sexp, classes: list):
    """Set the class the way R does (``class<-`` also marks the object for dispatch)."""
    return _H["set_class"](sexp, ri.StrSexpVector(classes))


def _int32(values: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    v = np.ascontiguousarray(values, dtype=np.int32)
    if mask is not None and mask.any():
        v = v.copy()
        v[mask] = NA_INT
    return v


def _integer(values, mask):
    return ri.IntSexpVector.from_memoryview(memoryview(_int32(values, mask)))


def _logical(values, mask):
    return ri.BoolSexpVector.from_memoryview(memoryview(_int32(values, mask)))


def _strings(values, mask=None) -> ri.StrSexpVector:
    """An R character vector from an object array of str (NA where ``mask``).

    Long vectors travel as one UTF-8 buffer split by R (strsplit), far faster
    than creating the strings one by one through rpy2.
    """
    values = np.asarray(values, dtype=object)
    n = len(values)
    if mask is not None and mask.any():
        values = np.where(mask, "", values)
    else:
        mask = None
    if n <= _SMALL:
        lst = list(values)
        if any("\x00" in v for v in lst):  # short vectors only
            raise InvalidParameterError(
                "a string contains the NUL character, which R strings cannot hold; remove it first."
            )
        if mask is not None:
            for i in np.flatnonzero(mask):
                lst[i] = ri.NA_Character
        return ri.StrSexpVector(lst)
    joined = _SEP.join(values)
    if "\x00" in joined:
        raise InvalidParameterError(
            "a string contains the NUL character, which R strings cannot hold; remove it first."
        )
    if joined.count(_SEP) != n - 1:  # some string holds the separator itself: slow exact path
        lst = list(values)
        if mask is not None:
            for i in np.flatnonzero(mask):
                lst[i] = ri.NA_Character
        return ri.StrSexpVector(lst)
    raw = (joined + _SEP).encode("utf-8")
    na = ri.NULL if mask is None else _integer(np.flatnonzero(mask) + 1, None)
    utf8 = ri.BoolSexpVector([not raw.isascii()])
    return _H["str_in"](ri.ByteSexpVector.from_memoryview(memoryview(raw)), na, utf8)


def _character(values: np.ndarray, mask: np.ndarray, name) -> ri.Sexp:
    """values: object array of str (anything where mask is True)."""
    n = len(values)
    if n > _SMALL and _few_distinct(values):
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        uniques = np.asarray(uniques, dtype=object)
        _check_str(uniques, name)
        return _H["str_index"](_strings(uniques), _integer(codes + 1, codes < 0))
    _check_str(values[~mask] if mask.any() else values, name)
    return _strings(values, mask)


def _check_str(values: np.ndarray, name) -> None:
    if len(values) and pd.api.types.infer_dtype(values, skipna=False) != "string":
        bad = next((type(u).__name__ for u in values if not isinstance(u, str)), "?")  # error path only
        raise InvalidParameterError(
            f"column {name!r} has object dtype but holds non-string values (e.g. {bad}); "
            "R needs one type per column. Convert it, e.g. with .astype(str), .astype('Int64') "
            "or .astype(float)."
        )


def _levels(categories: pd.Index, name) -> ri.StrSexpVector:
    kind = pd.api.types.infer_dtype(categories, skipna=False)
    if kind == "string":
        labels = [str(c) for c in categories]
    elif kind in ("integer", "floating", "boolean", "datetime64", "datetime"):
        # R's own text for numeric categories (1 -> "1", 1.5 -> "1.5")
        lv = _H["as_character"](series_to_r(pd.Series(categories.to_numpy()), name))
        labels = list(lv)
    else:  # mixed categories: Python's text (a loop over categories, not records)
        labels = [str(c) for c in categories]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError(
            f"column {name!r}: categories {list(categories)[:10]} do not map to distinct R factor "
            "levels (R levels are text); rename the categories so that their text differs."
        )
    return _strings(np.array(labels, dtype=object))


def _posixct(s: pd.Series):
    tz = getattr(s.dt, "tz", None)
    if tz is not None:
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    mask = s.isna().to_numpy()
    ns = s.to_numpy(dtype="datetime64[ns]").view(np.int64)
    secs = ns.astype(np.float64) / 1e9
    vec = _real(secs, mask)
    vec.do_slot_assign("tzone", ri.StrSexpVector(["UTC" if tz is None else str(tz)]))
    return _classed(vec, ["POSIXct", "POSIXt"])


def series_to_r(s: pd.Series, name=None):
    """One column (Series) as an R vector."""
    name = s.name if name is None else name
    cls = r_class(s)
    if cls == "numeric":
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        return _real(v, np.isnan(v))
    if cls == "integer":
        mask = s.isna().to_numpy()
        if isinstance(s.dtype, np.dtype):
            raw = s.to_numpy()
        else:
            raw = s.to_numpy(dtype=s.dtype.numpy_dtype, na_value=0)
        if len(raw):
            ok = raw[~mask] if mask.any() else raw
            if len(ok) and (ok.min() < -INT_MAX or ok.max() > INT_MAX):
                raise InvalidParameterError(
                    f"column {name!r} holds integers outside R's integer range "
                    f"[-2147483647, 2147483647] (min {ok.min()}, max {ok.max()}); R integers are 32-bit. "
                    "Convert the column to float (e.g. .astype(float)) to send it as an R double."
                )
        return _integer(raw.astype(np.int64, copy=False), mask)
    if cls == "logical":
        mask = s.isna().to_numpy()
        v = s.to_numpy() if isinstance(s.dtype, np.dtype) else s.to_numpy(dtype=bool, na_value=False)
        return _logical(v.astype(np.int32), mask)
    if cls == "character":
        values = s.to_numpy(dtype=object)
        return _character(values, pd.isna(values), name)
    if cls in ("factor", "ordered"):
        codes = s.cat.codes.to_numpy()
        vec = _integer(codes.astype(np.int32) + 1, codes < 0)
        vec.do_slot_assign("levels", _levels(s.cat.categories, name))
        return _classed(vec, ["ordered", "factor"] if cls == "ordered" else ["factor"])
    if cls == "POSIXct":
        return _posixct(s)
    raise InvalidParameterError(f"column {name!r}: no R counterpart for dtype {s.dtype}")  # pragma: no cover


def _row_names(index: pd.Index, n: int):
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return ri.IntSexpVector([NA_INT, -n]) if n else ri.IntSexpVector([])
    if isinstance(index, pd.MultiIndex) or not index.is_unique:
        return ri.IntSexpVector([NA_INT, -n]) if n else ri.IntSexpVector([])
    if pd.api.types.is_integer_dtype(index.dtype):
        v = index.to_numpy()
        if len(v) and v.min() >= -INT_MAX and v.max() <= INT_MAX:
            return _integer(v, None)
    text = index.astype(str).to_numpy(dtype=object)
    return _character(text, np.zeros(len(text), dtype=bool), "index")


def frame_to_r(df: pd.DataFrame):
    if isinstance(df.columns, pd.MultiIndex):
        raise InvalidParameterError(
            "data frames with MultiIndex columns cannot be sent to R; flatten the column names first."
        )
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise InvalidParameterError(
            f"the data frame has duplicated column names {names}; give every column a unique name."
        )
    cols = [series_to_r(df.iloc[:, j], names[j]) for j in range(df.shape[1])]
    memo = _active["record"]
    if memo is not None:
        memo.record_axes(df)
        for j, name in enumerate(names):  # loop over variables
            memo.record(name, df.dtypes.iloc[j])
    out = ri.ListSexpVector(cols)
    out.do_slot_assign("names", ri.StrSexpVector(names))
    out.do_slot_assign("row.names", _row_names(df.index, df.shape[0]))
    return _classed(out, ["data.frame"])


def _is_missing_scalar(x) -> bool:
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    return isinstance(x, (float, np.floating)) and np.isnan(x)


def _scalar_kind(x):
    if _is_missing_scalar(x):
        return "na"
    if isinstance(x, (bool, np.bool_)):
        return "logical"
    if isinstance(x, numbers.Integral):
        return "integer"
    if isinstance(x, numbers.Real):
        return "double"
    if isinstance(x, str):
        return "character"
    if isinstance(x, (pd.Timestamp, _dt.datetime, np.datetime64)):
        return "datetime"
    return None


def _atomic_from_list(items: list):
    kinds = {_scalar_kind(x) for x in items}
    if None in kinds:
        return None
    kinds.discard("na")
    if not kinds:
        return _logical(np.zeros(len(items), dtype=np.int32), np.ones(len(items), dtype=bool))
    if kinds == {"logical"}:
        return series_to_r(pd.Series(items, dtype="boolean"))
    if kinds == {"integer"}:
        arr = pd.array([None if _is_missing_scalar(x) else int(x) for x in items], dtype=object)
        if any(not _is_missing_scalar(x) and abs(int(x)) > INT_MAX for x in items):
            raise InvalidParameterError(
                f"integer value(s) outside R's integer range [-2147483647, 2147483647] in {items[:10]}; "
                "pass floats to send R doubles."
            )
        return series_to_r(pd.Series(arr).astype("Int64"))
    if kinds <= {"integer", "double"}:
        return series_to_r(pd.Series([np.nan if _is_missing_scalar(x) else float(x) for x in items]))
    if kinds == {"character"}:
        return series_to_r(pd.Series(items, dtype=object))
    if kinds == {"datetime"}:
        return series_to_r(pd.Series(pd.to_datetime(items)))
    return None


def to_r(obj, name="argument"):
    """Convert one Python value to an R object (rinterface Sexp)."""
    if obj is None:
        return ri.NULL
    wrapped = getattr(type(obj), "__r_object__", None)  # a wrapper of an R object (pysdc.r.SdcObj)
    if wrapped is not None:
        return obj.__r_object__._sexp
    if isinstance(obj, RList):
        return obj.r_object._sexp
    if isinstance(obj, RObject):
        return obj._sexp
    if isinstance(obj, ri.Sexp):
        return obj
    if isinstance(obj, pd.DataFrame):
        return frame_to_r(obj)
    if is_interchange(obj):  # a Polars / Arrow table: as pandas (pysdc.io), then a data.frame
        return frame_to_r(to_pandas(name, obj))
    if isinstance(obj, pd.Series):
        return series_to_r(obj, obj.name if obj.name is not None else name)
    if isinstance(obj, (pd.Categorical, pd.api.extensions.ExtensionArray, pd.Index)):
        return series_to_r(pd.Series(obj), name)
    if isinstance(obj, np.ndarray):
        if obj.ndim <= 1:
            return series_to_r(pd.Series(obj.reshape(-1)), name)
        flat = obj.reshape(-1, order="F")
        vec = series_to_r(pd.Series(flat), name)
        vec.do_slot_assign("dim", ri.IntSexpVector([int(d) for d in obj.shape]))
        return vec
    if isinstance(obj, dict):
        keys = [str(k) for k in obj]
        lst = ri.ListSexpVector([to_r(v, f"{name}[{k!r}]") for k, v in obj.items()])
        if keys:
            lst.do_slot_assign("names", ri.StrSexpVector(keys))
        return lst
    if isinstance(obj, (list, tuple)):
        vec = _atomic_from_list(list(obj)) if len(obj) else None
        if vec is not None:
            return vec
        return ri.ListSexpVector([to_r(v, f"{name}[{i}]") for i, v in enumerate(obj)])
    kind = _scalar_kind(obj)
    if kind == "na":
        if isinstance(obj, (float, np.floating)):
            return _real(np.array([np.nan]), np.array([True]))
        return _logical(np.zeros(1, dtype=np.int32), np.array([True]))
    if kind is not None:
        return _atomic_from_list([obj])
    raise InvalidParameterError(
        f"{name}: cannot send a {type(obj).__name__} to R; use a DataFrame, Series, NumPy array, "
        "scalar, None, list, dict or a pysdc.r.RObject."
    )
