"""The dtype memory of the bridge: pandas dtypes sent to R, given back to the columns R returns.

Round trips keep pandas dtypes
------------------------------
R has one integer, one double, one logical and one character type, so the converter's table
(:mod:`._convert_to_r`) cannot tell an ``Int64`` column from an ``int64`` one on the way back. The bridge
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

import numpy as np
import pandas as pd

__all__ = ["DtypeMemo", "recording", "applying"]


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
