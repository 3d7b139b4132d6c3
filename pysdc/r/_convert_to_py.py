"""The converter from R to pandas/NumPy (used by every bridge call); Python -> R is :mod:`._convert_to_r`.

Reads R's memory through views (rpy2's low-level ``rinterface`` only), under the session lock.

R -> Python: data.frame -> DataFrame (integer -> int64, or Int64 when NA
present; logical -> bool or boolean; character -> object with NaN for NA;
factor -> Categorical; POSIXct -> datetime64[ns], tz-aware unless tzone is
"UTC"/""; double NA and NaN -> NaN); matrix -> ndarray, or DataFrame when it has
dimnames; named list -> dict (RList when it has an S3 class); unnamed list ->
list; atomic vector -> ndarray (pandas masked array for integer/logical with
NA; Series when named); length 1 -> Python scalar (NA -> nan for double,
None otherwise); a call or a name (e.g. a result's ``call`` component from ``match.call()``) -> its R
text, str (never evaluated); S4 objects, environments, functions -> RObject.

Columns of a returned data.frame get the dtype they were sent with back (:mod:`._convert_memo`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import rpy2.rinterface as ri

from .._errors import RCallError
from ._convert_memo import _active, applying
from ._convert_to_r import _SEP, _SMALL, NA_INT, _buffer
from ._helpers import FEW_DISTINCT, FEW_N, SAMPLE_N
from ._helpers import H as _H
from ._objects import RList, RObject
from ._runtime import LOCK

__all__ = ["to_py", "frame_to_py", "handle", "ACCESS"]


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
    if t in (ri.RTYPES.LANGSXP, ri.RTYPES.SYMSXP):  # a call (e.g. match.call()) or a name: its R text
        return str(_H["deparse_boxed"](ri.ListSexpVector([sexp]))[0])
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
