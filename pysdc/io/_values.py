"""Values as CSV text and back: formatting for the writer, R's parsing and type inference for the readers,
and the check that a schema's dtype holds every value (no silent conversion)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from .._types import R_INT_MAX as _INT32_MAX  # (io._schema reads it here)

__all__ = ["TRUE_TEXTS", "FALSE_TEXTS", "INFER_LOGICAL_TEXTS", "BLANK_CHARS", "check_dtype_fits",
           "warn_big_integers"]

#: the texts R reads as TRUE / as FALSE in a column that is logical (by a schema); the engines' CSV readers
#: use them too
TRUE_TEXTS = ("TRUE", "T", "true", "True")
FALSE_TEXTS = ("FALSE", "F", "false", "False")
#: the texts that make a column logical in R's ``read.csv`` type inference (``type.convert``): only these;
#: a column holding ``true`` or ``False`` is text (measured: r_reference/generate_csv_typing.R)
INFER_LOGICAL_TEXTS = ("TRUE", "T", "FALSE", "F")
#: the white space of a blank field (C's isspace): a field of these only is blank, as an empty one
BLANK_CHARS = " \t\n\r\x0b\x0c"
_BLANK_RX = f"[{BLANK_CHARS}]*"

_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOATS = ("float32", "float64", "Float32", "Float64")
_NULLABLE_INTS = tuple(t.capitalize() if t.startswith("int") else "UInt" + t[4:] for t in _INTS)

#: the pandas dtypes a schema may give a column, by its r_class
_DTYPES = {
    "numeric": _FLOATS + _INTS + _NULLABLE_INTS,
    "integer": _INTS + _NULLABLE_INTS + _FLOATS,
    "logical": ("bool", "boolean"),
    "character": ("object", "str", "string"),
    "factor": ("category",),
    "ordered": ("category",),
}


def _format_float(values: np.ndarray) -> np.ndarray:
    """float array -> object array of text, None where missing."""
    v = np.asarray(values, dtype=np.float64)
    out = np.char.mod("%.17g", v).astype(object)
    out[np.isposinf(v)] = "Inf"
    out[np.isneginf(v)] = "-Inf"
    out[np.isnan(v)] = None
    return out


def _format_values(s: pd.Series, what: str) -> np.ndarray:
    """One column (or one set of categories) as text; None where missing."""
    dt = s.dtype
    na = s.isna().to_numpy()
    if pd.api.types.is_bool_dtype(dt):
        vals = s.to_numpy(dtype=object, na_value=False).astype(bool)
        out = np.where(vals, "TRUE", "FALSE").astype(object)
    elif pd.api.types.is_integer_dtype(dt):
        out = s.to_numpy(dtype=np.int64, na_value=0).astype(str).astype(object)
    elif pd.api.types.is_float_dtype(dt):
        return _format_float(s.to_numpy(dtype=np.float64, na_value=np.nan))
    else:
        out = s.to_numpy(dtype=object, na_value=None).copy()
        notna = ~na
        if pd.api.types.infer_dtype(out[notna], skipna=True) not in ("string", "empty"):
            bad = next(x for x in out[notna] if not isinstance(x, str))
            raise InvalidParameterError(
                f"{what} holds a non-string value {bad!r} ({type(bad).__name__}) in a text column; "
                "convert the column to str (or to a numeric dtype) before writing it."
            )
        joined = "".join(out[notna])
        if "\x00" in joined:
            raise InvalidParameterError(
                f"{what} holds text with a NUL character (\\x00), which neither CSV readers nor R accept; "
                "remove it before writing."
            )
        if "\r" in joined:
            raise InvalidParameterError(
                f"{what} holds text with a carriage return (\\r), which R's read.csv turns into a line feed; "
                "replace it first, e.g. df[col].str.replace('\\r\\n', '\\n').str.replace('\\r', '\\n')."
            )
        if (out[notna] == "NA").any():
            raise InvalidParameterError(
                f"{what} holds the string 'NA', which the CSV format (like R's read.csv) reads as a "
                "missing value; recode it (e.g. to 'N/A') or set it to missing before writing."
            )
    out[na] = None
    return out


def _missing_or_blank(text: np.ndarray) -> np.ndarray:
    """Missing, or an empty field (missing in numeric, integer and logical columns, as in R)."""
    return pd.isna(text) | (text == "")


def _plain_ascii(work: np.ndarray) -> bool:
    """No digit separators or non-ASCII digits, which Python's int()/float() accept but R does not."""
    joined = "".join(work)
    return joined.isascii() and "_" not in joined


def _blank_fallback(work: np.ndarray, miss: np.ndarray, fill: str) -> tuple[np.ndarray, np.ndarray]:
    """Slow path: fields of white space only are missing too."""
    stripped = pd.Series(work, dtype=object).str.strip().to_numpy(dtype=object)
    blank = stripped == ""
    miss = miss | blank
    return np.where(miss, fill, stripped).astype(object), miss


def _parse_float(text: np.ndarray, what: str, decimal: str = ".") -> np.ndarray:
    """Object array of text (None/NaN missing) -> float64 with NaN; ``decimal`` is the decimal mark
    (with ``","``, as in R's ``read.csv2``, a point makes the text not a number)."""
    miss = _missing_or_blank(text)
    work = np.where(miss, "nan", text).astype(object)
    if decimal != "." and len(work):
        s = pd.Series(work, dtype=object)
        if s.str.contains(".", regex=False).any():
            bad = s[s.str.contains(".", regex=False)].iloc[0]
            raise InvalidParameterError(
                f"{what} should be numeric but holds {bad!r}, which is not a number with the decimal mark "
                f"{decimal!r} (--decimal)."
            )
        work = s.str.replace(decimal, ".", regex=False).to_numpy(dtype=object)
    try:
        vals = work.astype(np.float64)
    except ValueError:
        work, miss = _blank_fallback(work, miss, "nan")
        try:
            vals = work.astype(np.float64)
        except ValueError as exc:
            raise InvalidParameterError(
                f"{what} should be numeric but holds text that is not a number ({exc})."
            ) from None
    if not _plain_ascii(work[~miss]):
        raise InvalidParameterError(f"{what} should be numeric but holds text that is not a plain number.")
    vals[miss] = np.nan
    return vals


def _parse_int(text: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Object array of text -> (int64 values, missing mask)."""
    miss = _missing_or_blank(text)
    work = np.where(miss, "0", text).astype(object)
    try:
        try:
            vals = work.astype(np.int64)
        except ValueError:
            work, miss = _blank_fallback(work, miss, "0")
            vals = work.astype(np.int64)
    except ValueError:
        num = pd.to_numeric(pd.Series(work, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        bad = work[np.isnan(num) | (num != np.round(num))]
        shown = repr(bad[0]) if len(bad) else "a value that is not a whole number"
        raise InvalidParameterError(f"{what} should hold whole numbers but holds {shown}.") from None
    except OverflowError:
        raise InvalidParameterError(f"{what} holds whole numbers beyond the 64-bit range.") from None
    if not _plain_ascii(work[~miss]):
        raise InvalidParameterError(f"{what} should hold whole numbers but holds text that is not a plain number.")
    return vals, miss


def _text_series(values: np.ndarray) -> pd.Series:
    """Present texts as a Series whose string methods are fast (Arrow's where pyarrow is installed)."""
    try:
        return pd.Series(values, dtype="string[pyarrow]")
    except (ImportError, TypeError, ValueError):
        return pd.Series(values, dtype=object)


def _blank(text: np.ndarray) -> np.ndarray:
    """Missing, empty or white space only (R's blank fields: missing in logical, integer and numeric columns)."""
    miss = _missing_or_blank(text)
    rest = ~miss
    if rest.any():
        miss = miss.copy()
        miss[rest] = _text_series(text[rest]).str.fullmatch(_BLANK_RX).to_numpy(dtype=bool)
    return miss


def _parse_bool(text: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    miss = _blank(text)
    s = pd.Series(np.where(miss, "FALSE", text).astype(object), dtype=object)
    is_t = s.isin(TRUE_TEXTS).to_numpy()
    is_f = s.isin(FALSE_TEXTS).to_numpy()
    if not (is_t | is_f).all():
        bad = s[~(is_t | is_f)].iloc[0]
        raise InvalidParameterError(f"{what} should hold TRUE/FALSE but holds {bad!r}.")
    return is_t, miss


def _string_dtype(name: str):
    if name == "string":
        return pd.StringDtype()
    if name == "str":
        try:  # pandas >= 3 (or 2.3 with the future flag): the default string dtype
            return pd.StringDtype(na_value=np.nan)
        except TypeError:
            return np.dtype(object)
    return np.dtype(object)


def _typed_levels(levels: list, levels_dtype: str | None, what: str) -> pd.Index:
    text = np.array(levels, dtype=object)
    if levels_dtype is None or levels_dtype in ("object", "str", "string"):
        return pd.Index(list(levels))
    dt = pd.api.types.pandas_dtype(levels_dtype)
    if pd.api.types.is_bool_dtype(dt):
        vals, _ = _parse_bool(text, what)
    elif pd.api.types.is_integer_dtype(dt):
        vals, _ = _parse_int(text, what)
    elif pd.api.types.is_float_dtype(dt):
        vals = _parse_float(text, what)
    else:
        raise InvalidParameterError(f"{what}: levels_dtype {levels_dtype!r} is not supported.")
    if not pd.api.types.is_bool_dtype(dt):
        check_dtype_fits(np.asarray(vals), np.zeros(len(vals), dtype=bool), levels_dtype, what)
    return pd.Index(vals).astype(dt)


def check_dtype_fits(vals: np.ndarray, miss: np.ndarray, dtype, what: str) -> None:
    """Refuse a dtype (from a schema) that cannot hold every value of ``vals`` (int64 or float64; ``miss``:
    missing), naming the first value that does not fit and its row (1-based, the header not counted)."""
    if dtype is None:
        return
    dt = pd.api.types.pandas_dtype(dtype)
    kind = getattr(dt, "numpy_dtype", dt)
    if isinstance(dt, pd.CategoricalDtype) or not isinstance(kind, np.dtype) or kind.kind not in "iuf":
        return
    v = vals[~miss] if miss is not None and miss.any() else vals
    rows = np.flatnonzero(~miss) if miss is not None and miss.any() else None
    if not len(v):
        return
    with np.errstate(all="ignore"):
        if kind.kind in "iu":
            info = np.iinfo(kind)
            if vals.dtype.kind == "f":
                bad = ~np.isfinite(v) | (v != np.round(v)) | (v < info.min) | (v >= float(info.max) + 1)
            else:
                bad = v < info.min
                if int(info.max) < np.iinfo(np.int64).max:
                    bad = bad | (v > info.max)
        else:
            back = v.astype(kind).astype(v.dtype)
            bad = ~((back == v) | (np.isnan(v) & np.isnan(back.astype(np.float64))))
            if v.dtype.kind in "iu":  # float64 from int64: exactly representable?
                bad = bad | (np.abs(v) > 2**53) & (v.astype(np.float64).astype(np.int64, copy=False) != v)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        row = int(rows[j]) if rows is not None else j
        val = v[j]
        shown = _value_text(val) if vals.dtype.kind == "f" else str(int(val))
        raise InvalidParameterError(
            f"{what}: the schema's dtype {str(dtype)!r} cannot hold the value {shown} (row {row + 1}); pysdc "
            "does not change values to fit a dtype. Give the column a dtype that holds it (e.g. 'int64' or "
            f"'float64'), or no dtype. Allowed dtypes: {', '.join(_DTYPES['numeric'])}."
        )


def _value_text(v) -> str:
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.15g}"
    return str(v)


def _convert(text: np.ndarray, entry: dict, what: str, decimal: str = ".") -> pd.Series:
    cls = entry["r_class"]
    dtype = entry.get("dtype")
    if cls == "numeric" and dtype is not None and pd.api.types.is_integer_dtype(pd.api.types.pandas_dtype(dtype)):
        cls = "integer"  # 64-bit integers beyond R's range: R reads doubles, pandas gets them back exactly
    if cls == "numeric":
        vals = _parse_float(text, what, decimal)
        check_dtype_fits(vals, np.isnan(vals), dtype, what)
        return pd.Series(vals, dtype=dtype or "float64")
    if cls == "integer":
        vals, miss = _parse_int(text, what)
        check_dtype_fits(vals, miss, dtype, what)
        return _int_series(vals, miss, dtype)
    if cls == "logical":
        vals, miss = _parse_bool(text, what)
        return _bool_series(vals, miss, dtype)
    if cls == "character":
        vals = np.where(pd.isna(text), None, text).astype(object)
        return pd.Series(vals, dtype=_string_dtype(dtype or "object"))
    # factor / ordered
    levels = [str(x) for x in entry["levels"]]
    labels = np.where(pd.isna(text), None, text).astype(object)
    codes = pd.Index(levels, dtype=object).get_indexer(labels)
    unknown = (codes < 0) & ~pd.isna(text)
    if unknown.any():
        bad = sorted(set(labels[unknown]))[:5]
        raise InvalidParameterError(
            f"{what} holds value(s) {bad} that are not among its levels in the schema; "
            "add them to the schema's levels or fix the data."
        )
    cats = _typed_levels(levels, entry.get("levels_dtype"), f"the levels of {what}")
    return pd.Series(pd.Categorical.from_codes(codes, categories=cats, ordered=(cls == "ordered")))


def _int_series(vals: np.ndarray, miss: np.ndarray, dtype) -> pd.Series:
    if not miss.any():
        return pd.Series(vals).astype(dtype or "int64")
    out = pd.array(vals, dtype="Int64")
    out[miss] = pd.NA
    target = pd.api.types.pandas_dtype(dtype or "Int64")
    if not isinstance(target, pd.api.extensions.ExtensionDtype):
        target = pd.Int64Dtype()  # a NumPy integer dtype cannot hold NA
    return pd.Series(out).astype(target)


def _bool_series(vals: np.ndarray, miss: np.ndarray, dtype) -> pd.Series:
    if not miss.any():
        return pd.Series(vals).astype(dtype or "bool")
    out = pd.array(vals, dtype="boolean")
    out[miss] = pd.NA
    return pd.Series(out)


def _infer(text: np.ndarray, what: str, decimal: str = ".") -> pd.Series:
    """R's read.csv type inference on one column of text."""
    blank = _blank(text)
    nonblank = text[~blank]
    if len(nonblank) == 0:  # R: a column of missing and blank fields (empty, "", white space) is logical
        return pd.Series(pd.array([pd.NA] * len(text), dtype="boolean"))
    if pd.Series(nonblank, dtype=object).isin(INFER_LOGICAL_TEXTS).all():
        cls = "logical"
    else:
        cls = "character"
        head = nonblank[:1000]  # most columns show their type at once: skip hopeless full parses
        passes = []
        for parse in (_parse_int, lambda t, w: _parse_float(t, w, decimal)):
            try:
                parse(head, what)
                passes.append(parse)
            except InvalidParameterError:
                pass
        if not passes:
            return _convert(text, {"r_class": cls}, what)
        try:
            if _parse_int not in passes:
                raise InvalidParameterError("not integer")
            if _text_series(nonblank).str.contains(f"[{BLANK_CHARS}]$").any():
                raise InvalidParameterError("white space after a whole number: R reads a double")
            ints, _ = _parse_int(nonblank, what)
            cls = "numeric" if (np.abs(ints) > _INT32_MAX).any() else "integer"
            warn_big_integers(ints, what)
        except InvalidParameterError:
            try:
                _parse_float(nonblank, what, decimal)
                cls = "numeric"
            except InvalidParameterError:
                pass
            if cls == "numeric" and any(len(t.lstrip("+-")) > 15 and t.lstrip("+-").isdigit() for t in nonblank[:1000]):
                warn_big_integers(None, what)
    return _convert(text, {"r_class": cls}, what, decimal)


def warn_big_integers(ints, what: str) -> None:
    """Whole numbers beyond 2^53 become doubles (as in R's read.csv): distinct ids may merge."""
    if ints is not None and not (np.abs(ints) > 2**53).any():
        return
    warnings.warn(
        f"{what} holds whole numbers beyond 2^53 (e.g. long ids), which are read as doubles, as R's read.csv "
        "does: distinct values can become equal. If it is an id or a key, read it as text: "
        "read_table(..., text_columns=[name]) (command line: --text NAME).",
        PysdcWarning,
        stacklevel=3,
    )
