"""The one converter between pandas/NumPy and R (used by every bridge call).

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

R -> Python: data.frame -> DataFrame (integer -> int64, or Int64 when NA
present; logical -> bool or boolean; character -> object with NaN for NA;
factor -> Categorical; POSIXct -> datetime64[ns], tz-aware unless tzone is
"UTC"/""; double NA and NaN -> NaN); matrix -> ndarray, or DataFrame when it has
dimnames; named list -> dict (RList when it has an S3 class); unnamed list ->
list; atomic vector -> ndarray (pandas masked array for integer/logical with
NA; Series when named); length 1 -> Python scalar (NA -> nan for double,
None otherwise); S4 objects, environments, functions -> RObject.

Round trips keep pandas dtypes
------------------------------
R has one integer, one double, one logical and one character type, so the table above
cannot tell an ``Int64`` column from an ``int64`` one on the way back. The bridge
therefore remembers, on the way out, the dtype of every column it sends (a
:class:`DtypeMemo`, per call of :func:`pysdc.r.call`, and per :class:`pysdc.r.SdcObj`
for the data it was created from, inherited by the objects derived from it), and gives a
column of a returned data.frame with the same name that dtype back when R's type and the
values allow it:

=====================================  ==============================================
sent as                                comes back as (same name, R type unchanged)
=====================================  ==============================================
Int8..Int64, UInt8..UInt64             the same nullable dtype (also from an R double
                                       whose values are all whole numbers in range)
int8..int64, uint8..uint64             the same dtype; the nullable one (``Int32``...)
                                       when R returns NA (e.g. suppressed values)
float32 / Float32 / Float64            float32 / Float32 / Float64 (NaN -> NA)
boolean / bool                         boolean / bool (boolean when R returns NA)
string (python or pyarrow), str,       that dtype (object keeps None-free NaN for NA)
object of str
category                               category with the original categories (their
                                       dtype, order and ``ordered``) when R's levels are
                                       their text; when R changed the levels (e.g.
                                       ``globalRecode``) the new levels are converted to
                                       the original categories' dtype where they parse
datetime64[unit] (naive or tz)         the same unit and time zone
=====================================  ==============================================

Where it cannot be kept: a column that R renamed, or whose R type R changed (an integer
column that microaggregation made fractional comes back float64; a factor turned into
character comes back str), gets the default conversion; bare vectors (not data.frame
columns), matrices and row names use the default conversion; ``float32`` values that R
computed are rounded to float32; a result column that merely shares a name with a column
sent in the same call is restored too (the bridge cannot tell them apart).
"""

from __future__ import annotations

import datetime as _dt
import numbers

import numpy as np
import pandas as pd
import rpy2.rinterface as ri
from rpy2.rinterface_lib import openrlib

from .._errors import InvalidParameterError, RCallError
from .._types import r_class
from ._helpers import FEW_DISTINCT, FEW_N, SAMPLE_N
from ._helpers import H as _H
from ._helpers import few_distinct as _few_distinct
from ._objects import RList, RObject
from ._runtime import LOCK

__all__ = ["to_r", "to_py", "frame_to_r", "frame_to_py", "handle", "ACCESS", "DtypeMemo", "recording", "applying"]

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
    from ..io import is_interchange, to_pandas

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


# --------------------------------------------------------------------------- dtype memory
class DtypeMemo:
    """Column name -> the pandas dtypes sent under that name (see the module docstring)."""

    __slots__ = ("dtypes", "axes")

    def __init__(self, dtypes: dict | None = None, axes: dict | None = None):
        self.dtypes: dict = {k: list(v) for k, v in (dtypes or {}).items()}
        #: dtype of the column names ("columns") and of the row labels ("index") of the first frame sent
        self.axes: dict = dict(axes or {})

    def record_axes(self, df: pd.DataFrame) -> None:
        self.axes.setdefault("columns", df.columns.dtype)
        self.axes.setdefault("index", df.index.dtype)

    def axis(self, which: str, labels: pd.Index) -> pd.Index:
        """``labels`` with the remembered dtype of that axis, where it holds them."""
        dtype = self.axes.get(which)
        if dtype is None or isinstance(labels, pd.RangeIndex) or labels.dtype == dtype:
            return labels
        try:
            return labels.astype(dtype)
        except (TypeError, ValueError):
            return labels

    def record(self, name, dtype) -> None:
        known = self.dtypes.setdefault(str(name), [])
        if not any(_same_dtype(dtype, d) for d in known):
            known.append(dtype)

    def merged(self, other: DtypeMemo | None) -> DtypeMemo:
        out = DtypeMemo(self.dtypes, self.axes)
        if other is not None:
            for k, v in other.axes.items():
                out.axes.setdefault(k, v)
            for k, v in other.dtypes.items():
                for d in v:
                    out.record(k, d)
        return out

    def restore(self, name, values):
        """``values`` (as converted from R) with the remembered dtype of column ``name``, if possible."""
        for dtype in self.dtypes.get(str(name), ()):
            out = _restore(values, dtype)
            if out is not None:
                return out
        return values

    def __bool__(self) -> bool:
        return bool(self.dtypes) or bool(self.axes)

    def __repr__(self) -> str:
        return f"DtypeMemo({ {k: [str(d) for d in v] for k, v in self.dtypes.items()} })"


def _same_dtype(a, b) -> bool:
    try:
        return bool(a == b) and str(a) == str(b)
    except TypeError:  # pragma: no cover - exotic dtypes
        return False


_active: dict = {"record": None, "apply": None}


class _Using:
    def __init__(self, kind: str, memo):
        self.kind, self.memo = kind, memo

    def __enter__(self):
        self.saved = _active[self.kind]
        _active[self.kind] = self.memo
        return self.memo

    def __exit__(self, *exc):
        _active[self.kind] = self.saved
        return False


def recording(memo: DtypeMemo | None) -> _Using:
    """While active (under the session lock), every column sent to R is recorded in ``memo``."""
    return _Using("record", memo)


def applying(memo: DtypeMemo | None) -> _Using:
    """While active, data.frame columns converted from R get ``memo``'s dtypes back."""
    return _Using("apply", memo)


def _nullable_int(dtype) -> str:
    return {"i": "Int", "u": "UInt"}[dtype.kind] + str(dtype.itemsize * 8)


def _int_in_range(arr, dtype: np.dtype):
    """``arr`` (an Int64 array) when every value fits ``dtype`` (pandas' astype would wrap around), else None."""
    ok = arr[~arr.isna()]
    if len(ok) == 0:
        return arr
    info = np.iinfo(dtype)
    return arr if (ok.min() >= info.min and ok.max() <= info.max) else None


def _whole(v: np.ndarray) -> bool:
    ok = v[~np.isnan(v)]
    return bool(np.all(np.isfinite(ok)) and np.all(ok == np.round(ok)))


def _restore(values, dtype):
    """``values`` as ``dtype``, or None when R's type or the values do not allow it."""
    try:
        return _restore_or_raise(values, dtype)
    except (TypeError, ValueError, OverflowError):
        return None


def _restore_or_raise(values, dtype):
    if isinstance(values, pd.Categorical):
        if not isinstance(dtype, pd.CategoricalDtype):
            return None
        return _restore_categories(values, dtype)
    if isinstance(dtype, pd.CategoricalDtype):
        return None
    is_int = isinstance(values, pd.arrays.IntegerArray) or (isinstance(values, np.ndarray) and values.dtype == np.int64)
    is_dbl = isinstance(values, np.ndarray) and values.dtype == np.float64
    is_lgl = isinstance(values, pd.arrays.BooleanArray) or (isinstance(values, np.ndarray) and values.dtype == bool)
    is_chr = isinstance(values, np.ndarray) and values.dtype == object
    if isinstance(dtype, np.dtype):
        if dtype.kind in "iu":
            if is_int:
                arr = pd.array(values, dtype="Int64") if isinstance(values, np.ndarray) else values
            elif is_dbl and _whole(values):
                nan = np.isnan(values)
                arr = pd.arrays.IntegerArray(np.where(nan, 0, values).astype(np.int64), nan)
            else:
                return None
            arr = _int_in_range(arr, dtype)
            if arr is None:
                return None
            arr = arr.astype(_nullable_int(dtype))
            return arr.to_numpy(dtype=dtype) if not arr.isna().any() else arr
        if dtype.kind == "f":
            if is_dbl:  # R's NA_real_ is a signalling NaN: make it a quiet one before narrowing
                return np.where(np.isnan(values), np.nan, values).astype(dtype)
            if is_int:
                return pd.array(values, dtype="Int64").to_numpy(dtype=dtype, na_value=np.nan)
            return None
        if dtype.kind == "b":
            return values if is_lgl else None
        if dtype.kind == "O":
            return values if is_chr else None
        if dtype.kind == "M":
            return pd.Series(values).astype(dtype).to_numpy() if _is_datetime(values) else None
        return None
    if isinstance(dtype, pd.DatetimeTZDtype):
        if _is_datetime(values):
            ser = pd.Series(values)
            if ser.dt.tz is None:
                ser = ser.dt.tz_localize("UTC")
            return ser.dt.tz_convert(dtype.tz).astype(dtype).array
        return None
    if isinstance(dtype, pd.StringDtype):
        return pd.array(values, dtype=dtype) if is_chr else None
    if isinstance(dtype, (pd.Int64Dtype, pd.Int32Dtype, pd.Int16Dtype, pd.Int8Dtype,
                          pd.UInt64Dtype, pd.UInt32Dtype, pd.UInt16Dtype, pd.UInt8Dtype)):
        if is_dbl:
            if not _whole(values):
                return None
            nan = np.isnan(values)
            arr = pd.arrays.IntegerArray(np.where(nan, 0, values).astype(np.int64), nan)
        elif is_int:
            arr = pd.array(values, dtype="Int64")
        else:
            return None
        arr = _int_in_range(arr, dtype.numpy_dtype)
        return None if arr is None else arr.astype(dtype)
    if isinstance(dtype, (pd.Float64Dtype, pd.Float32Dtype)):
        if is_dbl:
            return pd.array(pd.arrays.FloatingArray(values, np.isnan(values)), dtype=dtype)
        return pd.array(values, dtype=dtype) if is_int else None
    if isinstance(dtype, pd.BooleanDtype):
        return pd.array(values, dtype=dtype) if is_lgl else None
    return None


def _is_datetime(values) -> bool:
    return isinstance(values, pd.arrays.DatetimeArray) or (isinstance(values, np.ndarray) and values.dtype.kind == "M")


def _restore_categories(values: pd.Categorical, dtype: pd.CategoricalDtype):
    cats = dtype.categories
    levels = pd.Index(values.categories, dtype=object)
    ordered = bool(values.ordered)
    text = _category_text(cats)
    if text is not None and list(text) == list(levels):
        return pd.Categorical.from_codes(values.codes, dtype=pd.CategoricalDtype(cats, ordered=ordered))
    # R changed the levels: their text in the original categories' dtype, where it parses
    kind = cats.dtype
    if isinstance(kind, np.dtype) and kind.kind in "iuf":
        new = pd.Index(pd.to_numeric(pd.Series(levels, dtype=object), errors="raise").to_numpy()).astype(kind)
    elif isinstance(kind, np.dtype) and kind.kind == "b":
        return None
    elif isinstance(kind, np.dtype) and kind.kind == "O":
        new = pd.Index(levels, dtype=object)
    else:
        new = pd.Index(pd.array(levels, dtype=kind))
    if new.has_duplicates or new.hasnans:
        return None
    return pd.Categorical.from_codes(values.codes, dtype=pd.CategoricalDtype(new, ordered=ordered))


def _category_text(cats: pd.Index):
    """The R levels :func:`_levels` makes of ``cats`` (without starting R for the common kinds)."""
    kind = pd.api.types.infer_dtype(cats, skipna=False)
    if kind == "string":
        return [str(c) for c in cats]
    if kind == "integer":
        return [str(int(c)) for c in cats]
    if kind == "floating":
        return [format(float(c), ".15g") for c in cats]
    if kind == "boolean":
        return ["TRUE" if c else "FALSE" for c in cats]
    return [str(c) for c in cats]


# --------------------------------------------------------------------------- R -> Python
_KNOWN_ATOMIC_CLASSES = {"factor", "ordered", "POSIXct", "POSIXt", "Date", "table", "matrix", "array",
                         "numeric", "integer", "character", "logical", "AsIs", "noquote"}


def _attr(sexp, name):
    a = sexp.do_slot(name) if name in sexp.list_attrs() else None
    return None if a is None or a.typeof == ri.RTYPES.NILSXP else a


def _classes(sexp) -> tuple:
    c = _attr(sexp, "class")
    return tuple(c) if c is not None else ()


def _chr_slow(sexp) -> np.ndarray:
    n = len(sexp)
    out = np.empty(n, dtype=object)
    for i in range(n):  # short vectors, or strings that hold the separator
        v = sexp[i]
        out[i] = np.nan if v is ri.NA_Character else v
    return out


def _chr_values(sexp) -> np.ndarray:
    """A character vector as an object array, NA -> NaN.

    R sends the strings as one UTF-8 buffer: all of them when most are
    distinct, otherwise the distinct ones plus match codes.
    """
    if len(sexp) <= _SMALL:
        return _chr_slow(sexp)
    res = _H["str_out"](sexp, ri.IntSexpVector([FEW_N]), ri.IntSexpVector([SAMPLE_N]),
                        ri.IntSexpVector([FEW_DISTINCT]))  # list(codes or NULL, n strings, raw, has separator, strings, NA positions)
    nu = int(res[1][0])
    if res[3][0]:
        uni = _chr_slow(res[4])
    else:
        uni = np.empty(nu, dtype=object)
        if nu:
            uni[:] = _buffer(res[2], np.uint8).tobytes().decode("utf-8").split(_SEP)
        uni[_buffer(res[5], np.int32) - 1] = np.nan
    if res[0].typeof == ri.RTYPES.NILSXP:
        return uni
    return uni[_buffer(res[0], np.int32) - 1]


def _vector(sexp, classes=None):
    """An atomic vector (no dim handling) as a NumPy array / pandas array."""
    classes = _classes(sexp) if classes is None else classes
    t = sexp.typeof
    if t == ri.RTYPES.REALSXP:
        v = _buffer(sexp, np.float64)  # NA_real_ and NaN are both NaN here
        if "POSIXct" in classes:
            tz = _attr(sexp, "tzone")
            tzs = tz[0] if tz is not None and len(tz) else ""
            nan = np.isnan(v)
            us = np.round(np.where(nan, 0.0, v) * 1e6).astype(np.int64)
            out = us.astype("datetime64[us]").astype("datetime64[ns]")
            out[nan] = np.datetime64("NaT")
            idx = pd.DatetimeIndex(out)
            if tzs not in ("", "UTC", "GMT"):
                idx = idx.tz_localize("UTC").tz_convert(tzs)
            return idx.array
        if "Date" in classes:
            nan = np.isnan(v)
            out = np.where(nan, 0, v).astype(np.int64).astype("datetime64[D]").astype("datetime64[ns]")
            out[nan] = np.datetime64("NaT")
            return out
        return v
    if t == ri.RTYPES.INTSXP:
        raw = _buffer(sexp, np.int32)
        na = raw == NA_INT
        if "factor" in classes:
            lv = _attr(sexp, "levels")
            cats = _chr_values(lv) if lv is not None else np.array([], dtype=object)
            codes = np.where(na, -1, raw - 1)
            return pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype=object),
                                             ordered="ordered" in classes)
        if na.any():
            return pd.arrays.IntegerArray(raw.astype(np.int64), na)
        return raw.astype(np.int64)
    if t == ri.RTYPES.LGLSXP:
        raw = _buffer(sexp, np.int32)
        na = raw == NA_INT
        if na.any():
            return pd.arrays.BooleanArray(raw == 1, na)
        return raw != 0
    if t == ri.RTYPES.STRSXP:
        return _chr_values(sexp)
    if t == ri.RTYPES.CPLXSXP:
        return np.array(list(sexp), dtype=complex)
    if t == ri.RTYPES.RAWSXP:
        return _buffer(sexp, np.uint8)
    raise TypeError(f"not an atomic vector: {t}")  # pragma: no cover


def _is_atomic(sexp) -> bool:
    return sexp.typeof in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP, ri.RTYPES.STRSXP,
                           ri.RTYPES.CPLXSXP, ri.RTYPES.RAWSXP)


def _index(names_sexp, n):
    if names_sexp is None:
        return pd.RangeIndex(n)
    return pd.Index(_vector(names_sexp))


def frame_to_py(sexp) -> pd.DataFrame:
    names = _attr(sexp, "names")
    colnames = list(_chr_values(names)) if names is not None else [f"V{i + 1}" for i in range(len(sexp))]
    data = {}
    for j in range(len(sexp)):  # loop over variables
        col = sexp[j]
        if _is_atomic(col) and _attr(col, "dim") is None:
            data[j] = _vector(col)
        else:
            conv = to_py(col, scalar=False)
            data[j] = conv if isinstance(conv, (np.ndarray, pd.api.extensions.ExtensionArray)) else list(conv)
    memo = _active["apply"]
    if memo:
        for j in list(data):  # loop over variables
            if isinstance(data[j], (np.ndarray, pd.api.extensions.ExtensionArray)) and data[j].ndim == 1:
                data[j] = memo.restore(colnames[j], data[j])
    rn = _H["row_names"](sexp)
    n = int(_H["nrow"](sexp)[0])
    index = pd.RangeIndex(n) if rn.typeof == ri.RTYPES.NILSXP else pd.Index(_vector(rn))
    if memo:
        index = memo.axis("index", index)
    df = pd.DataFrame(data, index=index)
    # in a round trip the column names get the dtype they had (str under pandas 3, or object)
    df.columns = memo.axis("columns", pd.Index(colnames, dtype=object)) if memo else pd.Index(colnames, dtype=object)
    return df


def _matrix(sexp, dims):
    classes = tuple(c for c in _classes(sexp) if c not in ("matrix", "array"))
    flat = _vector(sexp, classes)
    dimnames = _attr(sexp, "dimnames")
    if len(dims) == 2 and dimnames is not None:
        rn = dimnames[0] if dimnames[0].typeof != ri.RTYPES.NILSXP else None
        cn = dimnames[1] if dimnames[1].typeof != ri.RTYPES.NILSXP else None
        nr, nc = dims
        cols = {}
        for j in range(nc):  # loop over variables
            cols[j] = flat[j * nr:(j + 1) * nr]
        df = pd.DataFrame(cols, index=_index(rn, nr))
        df.columns = _index(cn, nc)
        return df
    if len(dims) == 1 and dimnames is not None and dimnames[0].typeof != ri.RTYPES.NILSXP:
        return pd.Series(flat, index=_index(dimnames[0], len(flat)))
    return np.asarray(flat).reshape(tuple(dims), order="F")


def _s4_or_handle(sexp, classes) -> RObject:
    obj = RObject(sexp, classes or tuple(_H["class_of"](sexp)), sexp.typeof.name, ACCESS)
    obj._dtypes = _active["apply"]
    return obj


def handle(sexp) -> RObject:
    """An :class:`RObject` handle to ``sexp`` (no conversion)."""
    return _s4_or_handle(sexp, ())


def to_py(sexp, scalar: bool = True):
    """Convert an R object to Python (see the module docstring for the table)."""
    t = sexp.typeof
    if t == ri.RTYPES.NILSXP:
        return None
    classes = _classes(sexp)
    if classes and _H["is_s4"](sexp)[0]:
        return _s4_or_handle(sexp, classes)
    if t == ri.RTYPES.VECSXP:
        if "data.frame" in classes:
            return frame_to_py(sexp)
        names = _attr(sexp, "names")
        items = [to_py(sexp[i]) for i in range(len(sexp))]
        keys = list(_chr_values(names)) if names is not None else None
        named = keys is not None and all(isinstance(k, str) and k for k in keys) and len(set(keys)) == len(keys)
        if classes:
            if named:
                return RList(zip(keys, items), RObject(sexp, classes, "list", ACCESS))
            return _s4_or_handle(sexp, classes)
        if named:
            return dict(zip(keys, items))
        return items
    if _is_atomic(sexp):
        dims = _attr(sexp, "dim")
        if dims is not None:
            return _matrix(sexp, list(dims))
        vec = _vector(sexp, classes)
        names = _attr(sexp, "names")
        if scalar and len(vec) == 1 and not isinstance(vec, pd.Categorical):
            x = vec[0]
            if x is pd.NA or (isinstance(x, float) and np.isnan(x) and t != ri.RTYPES.REALSXP):
                return None
            if isinstance(x, np.generic):
                return x.item()
            return x
        if names is not None:
            return pd.Series(vec, index=pd.Index(_chr_values(names), dtype=object))
        return vec
    return _s4_or_handle(sexp, classes)


# --------------------------------------------------------------------------- handles
class _Access:
    """The :class:`~pysdc.r._objects.RAccess` of every handle made here: R's own accessors, then to_py."""

    def _apply(self, helper: str, obj: RObject, *extra):
        with LOCK:
            res = _H["guard"](_H[helper], obj._sexp, *extra)  # R errors come back, not printed
            if not res[0][0]:
                raise RCallError(str(res[1][0]).strip(), f"{helper} on {obj!r}")
            with applying(obj._dtypes):
                return to_py(res[1])

    def slot(self, obj: RObject, name: str):
        return self._apply("slot", obj, ri.StrSexpVector([name]))

    def attr(self, obj: RObject, name: str):
        return self._apply("attr", obj, ri.StrSexpVector([name]))

    def item(self, obj: RObject, key):
        if isinstance(key, str):
            k = ri.StrSexpVector([key])
        elif isinstance(key, int) and not isinstance(key, bool):
            k = ri.IntSexpVector([key + 1])
        else:
            raise TypeError("RObject keys are component names (str) or 0-based positions (int)")
        return self._apply("item", obj, k)

    def unclass(self, obj: RObject):
        return self._apply("unclass_any", obj)


ACCESS = _Access()
