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

__all__ = ["to_r", "to_py", "frame_to_r", "frame_to_py", "handle", "ACCESS"]

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
    if isinstance(obj, RList):
        return obj.r_object._sexp
    if isinstance(obj, RObject):
        return obj._sexp
    if isinstance(obj, ri.Sexp):
        return obj
    if isinstance(obj, pd.DataFrame):
        return frame_to_r(obj)
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
    rn = _H["row_names"](sexp)
    n = int(_H["nrow"](sexp)[0])
    index = pd.RangeIndex(n) if rn.typeof == ri.RTYPES.NILSXP else pd.Index(_vector(rn))
    df = pd.DataFrame(data, index=index)
    df.columns = pd.Index(colnames, dtype=object)
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
    return RObject(sexp, classes or tuple(_H["class_of"](sexp)), sexp.typeof.name, ACCESS)


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
            try:
                out = _H[helper](obj._sexp, *extra)
            except ri.embedded.RRuntimeError as exc:
                raise RCallError(str(exc).strip(), f"{helper} on {obj!r}") from None
            return to_py(out)

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
