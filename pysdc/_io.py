"""pysdc's typed-table format: a CSV file plus a JSON schema sidecar.

A table is stored as two files:

* ``<stem>.csv`` or ``<stem>.csv.gz`` -- comma-separated, UTF-8, a header row,
  ``\\n`` line ends, fields quoted only where needed, the row index not
  written. A missing value of any type is the unquoted text ``NA``. Numbers
  are written so that they come back bit-exactly: doubles with 17 significant
  digits (``%.17g``; R's own parser misreads some shortest representations),
  infinities as ``Inf``/``-Inf``; logicals as ``TRUE``/``FALSE``; factors as
  their level labels. Gzipped files carry no time stamp and no file name, so
  the same table always gives the same bytes.
* ``<stem>.schema.json`` -- each column's R class and, for factors, the
  levels in order::

      {"format": "pysdc-table-1",
       "columns": [
         {"name": "income", "r_class": "numeric", "dtype": "float64"},
         {"name": "sex", "r_class": "factor", "dtype": "category",
          "levels": ["male", "female"]},
         {"name": "age_group", "r_class": "ordered", "dtype": "category",
          "levels": ["0-14", "15-29", "30-44"]},
         {"name": "hhsize", "r_class": "ordered", "dtype": "category",
          "levels": ["1", "2", "3"], "levels_dtype": "int64"}
       ]}

  ``r_class`` is one of ``numeric``, ``integer``, ``logical``, ``character``,
  ``factor``, ``ordered`` (the correspondence of :mod:`pysdc._types`) and is
  all an R reader needs. ``levels`` are the labels exactly as they appear in
  the CSV. The optional ``dtype`` (the pandas dtype, e.g. ``Int64``,
  ``boolean``, ``string``) and ``levels_dtype`` (the dtype of non-string
  categories) let pandas get back exactly the dtype that was written; without
  them a reader takes the plain dtype of the R class (``float64``; ``int64``,
  or ``Int64`` when there are missing values; ``bool`` or ``boolean``;
  ``object``; ``Categorical`` with string categories).

Reading in R (base R only)::

    schema <- jsonlite::fromJSON("demo.schema.json", simplifyVector = FALSE)
    cls <- vapply(schema$columns, function(c)
        switch(c$r_class, factor = , ordered = "character", c$r_class), "")
    d <- read.csv("demo.csv.gz", na.strings = "NA", colClasses = cls,
                  check.names = FALSE, stringsAsFactors = FALSE, encoding = "UTF-8")
    for (c in schema$columns) if (c$r_class %in% c("factor", "ordered"))
        d[[c$name]] <- factor(d[[c$name]], levels = unlist(c$levels),
                              ordered = c$r_class == "ordered")

What cannot be stored is refused with :class:`~pysdc.InvalidParameterError`:
a character value that is literally ``"NA"`` (R would read it as missing),
text with NUL or carriage-return characters (R reads ``\\r`` as ``\\n``),
date-times, complex numbers and duplicated column names. NaN and NA are both
written as ``NA`` (R's ``NaN`` is not kept apart from ``NA``); in object and
string columns missing values come back as ``None`` (``pd.NA`` for the
``string`` dtype).

Without a schema, :func:`read_table` infers the types the way R's
``read.csv(na.strings = "NA")`` does: a column is logical if every value is
``TRUE``/``FALSE``/``T``/``F``/``true``/``false``/``True``/``False``, integer
if every value is a whole number within R's integer range, numeric if every
value is a number, character otherwise; blank fields are missing except in
character columns. Parquet files (``.parquet``, ``.pq``; needs ``pyarrow``)
carry their own types; SPSS (``.sav``, ``.zsav``, ``.por``; needs ``pyreadstat``)
and Stata (``.dta``) files too, their value labels read as categoricals the way
``haven::as_factor`` makes factors of them.

A record with more fields than the header, and text with a NUL character, are refused with
:class:`~pysdc.InvalidParameterError` naming the line (R's ``read.csv`` would shift such fields into
other columns or rows, and ends a field at a NUL, losing the rest of the line); a record with fewer
fields is filled with missing values, as in R (``fill = TRUE``). A schema's ``dtype`` must be one
its ``r_class`` allows and must hold every value (``"int8"`` does not hold 651: refused, naming the
value and its row), never a silent conversion.

Any CSV may use another dialect: the separator (comma, semicolon or tab) and,
in semicolon- or tab-separated files, the decimal comma (R's ``read.csv2``) are
detected from the first 64 KiB where unambiguous, and can be given (``sep``,
``decimal``, ``encoding``; on the command line ``--sep``, ``--decimal``,
``--encoding``, passed down through :func:`csv_dialect`). With a schema,
:func:`read_table` parses with pandas' C parser (see its Notes).
"""

from __future__ import annotations

import codecs
import contextlib
import contextvars
import csv
import gzip
import io
import json
import os
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError
from ._paths import _COMPRESSED, _PARQUET, schema_path
from ._types import r_class

__all__ = ["read_table", "read_header", "separator_hint", "write_table", "schema_path", "read_schema", "table_schema",
           "csv_dialect", "SCHEMA_FORMAT", "PROGRESS_MIN_BYTES"]

SCHEMA_FORMAT = "pysdc-table-1"
_R_CLASSES = ("numeric", "integer", "logical", "character", "factor", "ordered")
_TRUE = ("TRUE", "T", "true", "True")
_FALSE = ("FALSE", "F", "false", "False")
_INT32_MAX = 2147483647  # R's integers are 32 bit; NA_integer_ is -2^31

# ---------------------------------------------------------------------------
# formatting values as CSV text (vectorised)


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


def _parse_bool(text: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    miss = _missing_or_blank(text)
    s = pd.Series(np.where(miss, "FALSE", text).astype(object), dtype=object)
    is_t = s.isin(_TRUE).to_numpy()
    is_f = s.isin(_FALSE).to_numpy()
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
        _fit(np.asarray(vals), np.zeros(len(vals), dtype=bool), levels_dtype, what)
    return pd.Index(vals).astype(dt)


# ---------------------------------------------------------------------------
# schema


def table_schema(df: pd.DataFrame) -> dict:
    """The schema (as a dict) that :func:`write_table` writes for ``df``."""
    cols = []
    for name in df.columns:
        s = df[name]
        what = f"column {name!r}"
        if pd.api.types.is_datetime64_any_dtype(s.dtype) or pd.api.types.is_timedelta64_dtype(s.dtype):
            raise InvalidParameterError(
                f"{what} holds dates/times ({s.dtype}), which the pysdc table format does not store; "
                "convert it to text (e.g. .dt.strftime) or to a number first."
            )
        cls = r_class(s)
        if cls == "integer" and s.notna().any() and (s.abs().max() > _INT32_MAX):
            cls = "numeric"  # R's integers are 32 bit: read.csv makes such a column double
        entry = {"name": str(name), "r_class": cls, "dtype": "category" if cls in ("factor", "ordered") else str(s.dtype)}
        if cls in ("factor", "ordered"):
            cats = s.cat.categories
            ctype = str(cats.dtype)
            labels = _format_values(pd.Series(cats), f"the levels of {what}")
            if pd.isna(labels).any():
                raise InvalidParameterError(f"{what} has a missing value among its categories; remove it.")
            if len(set(labels)) != len(labels):
                raise InvalidParameterError(
                    f"{what} has categories that print the same ({list(labels)[:10]}); make them distinct."
                )
            entry["levels"] = [str(x) for x in labels]
            if not (ctype in ("object", "str", "string") or isinstance(cats.dtype, pd.StringDtype)):
                entry["levels_dtype"] = ctype
        cols.append(entry)
    return {"format": SCHEMA_FORMAT, "columns": cols}


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
_LEVELS_DTYPES = ("object", "str", "string", "bool", "boolean") + _INTS + _NULLABLE_INTS + _FLOATS
_SCHEMA_MAX_BYTES = 64 * 2**20


def _json_constant(name: str):
    raise InvalidParameterError(f"holds the literal {name}, which is not JSON")


def read_schema(schema) -> dict:
    """Load and check a schema given as a dict or as the path of a JSON file.

    Every column needs a ``name`` and an ``r_class``; a ``dtype`` must be one that the r_class
    allows (:data:`_DTYPES`; the values are checked against it when the table is read), factor
    levels distinct strings (or numbers). Anything else is refused with InvalidParameterError."""
    where = "schema"
    if isinstance(schema, (str, os.PathLike)):
        where = f"schema file {os.fspath(schema)!r}"
        try:
            with open(schema, "rb") as fh:
                raw = fh.read(_SCHEMA_MAX_BYTES + 1)
        except OSError as exc:
            raise InvalidParameterError(f"cannot read {where}: {exc.strerror or exc}.") from None
        if len(raw) > _SCHEMA_MAX_BYTES:
            raise InvalidParameterError(f"{where} is larger than {_SCHEMA_MAX_BYTES // 2**20} MiB; a schema is small.")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidParameterError(
                f"{where} is not UTF-8 text (byte 0x{raw[exc.start:exc.start + 1].hex()} at byte {exc.start}); "
                "a schema is JSON in UTF-8.") from None
        try:
            schema = json.loads(text, parse_constant=_json_constant)
        except json.JSONDecodeError as exc:
            raise InvalidParameterError(f"{where} is not valid JSON ({exc}).") from None
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"{where} {exc} (NaN, Infinity and -Infinity are not allowed).") from None
        except RecursionError:
            raise InvalidParameterError(f"{where} is nested too deeply to be a schema.") from None
        except ValueError as exc:  # e.g. an integer of more than 4300 digits
            raise InvalidParameterError(f"{where} holds a value that cannot be read ({str(exc).split(';')[0]}).") from None
    if not isinstance(schema, dict) or not isinstance(schema.get("columns"), list):
        raise InvalidParameterError(
            f"{where} must be a JSON object with a 'columns' list "
            f'({{"format": "{SCHEMA_FORMAT}", "columns": [{{"name": ..., "r_class": ...}}]}}); '
            f"got {type(schema).__name__}{' without a columns list' if isinstance(schema, dict) else ''}."
        )
    fmt = schema.get("format", SCHEMA_FORMAT)
    if fmt != SCHEMA_FORMAT:
        raise InvalidParameterError(f"{where} has format {_shown(fmt)}; this pysdc reads {SCHEMA_FORMAT!r}.")
    seen = set()
    for i, col in enumerate(schema["columns"]):
        if not isinstance(col, dict) or not isinstance(col.get("name"), str):
            raise InvalidParameterError(f"{where}: column entry {i} needs a 'name' string.")
        name = col["name"]
        cls = col.get("r_class")
        if not isinstance(cls, str) or cls not in _R_CLASSES:
            raise InvalidParameterError(
                f"{where}: column {name!r} has r_class {_shown(cls)}; use one of {', '.join(_R_CLASSES)}."
            )
        dtype = col.get("dtype")
        if dtype is not None and (not isinstance(dtype, str) or dtype not in _DTYPES[cls]):
            raise InvalidParameterError(
                f"{where}: column {name!r} ({cls}) has dtype {_shown(dtype)}; the dtype of "
                f"{'an' if cls[0] in 'aeiou' else 'a'} {cls} column is one of "
                f"{', '.join(_DTYPES[cls])} (or none)."
            )
        if cls in ("factor", "ordered"):
            levels = col.get("levels")
            if not isinstance(levels, list):
                raise InvalidParameterError(f"{where}: {cls} column {name!r} needs a 'levels' list.")
            bad = [v for v in levels if isinstance(v, bool) or not isinstance(v, (str, int, float))
                   or (isinstance(v, float) and not np.isfinite(v))]
            if bad:
                raise InvalidParameterError(
                    f"{where}: the levels of column {name!r} must be strings; it holds {_shown(bad[0])}.")
            text = [str(v) for v in levels]
            if len(set(text)) != len(text):
                dup = next(t for k, t in enumerate(text) if t in text[:k])
                raise InvalidParameterError(f"{where}: the levels of column {name!r} list {dup!r} more than once.")
            ldt = col.get("levels_dtype")
            if ldt is not None and (not isinstance(ldt, str) or ldt not in _LEVELS_DTYPES):
                raise InvalidParameterError(
                    f"{where}: column {name!r} has levels_dtype {_shown(ldt)}; use one of {', '.join(_LEVELS_DTYPES)}.")
        if name in seen:
            raise InvalidParameterError(f"{where} lists column {name!r} twice.")
        seen.add(name)
    return schema


def _shown(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _fit(vals: np.ndarray, miss: np.ndarray, dtype, what: str) -> None:
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


# ---------------------------------------------------------------------------
# writing


def write_table(df: pd.DataFrame, path, *, schema: bool = True) -> Path:
    """Write ``df`` as a typed table: ``path`` (CSV, gzipped if it ends in
    ``.gz``) and, with ``schema=True``, the sidecar ``<stem>.schema.json``.

    The index is not written. Returns the path of the CSV file.
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidParameterError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"df has duplicated column names {names}; give every column a unique name.")
    path = Path(path)
    csv_bytes, sch = _encode(df)
    if path.name.lower().endswith(".gz"):
        data = gzip.compress(csv_bytes, compresslevel=6, mtime=0)
    elif path.name.lower().endswith(_COMPRESSED):
        raise InvalidParameterError(f"path {str(path)!r}: only .csv and .csv.gz can be written.")
    else:
        data = csv_bytes
    from ._output import atomic_output

    # both files complete or neither changed: each written beside its target, renamed after both succeeded
    targets = [path, schema_path(path)] if schema else [path]
    contents = [data, _schema_text(sch).encode("utf-8")][:len(targets)]
    with atomic_output(*targets) as temps:
        for tmp, content in zip(temps if schema else [temps], contents):
            with open(tmp, "wb") as fh:
                fh.write(content)
    return path


def _schema_text(sch: dict) -> str:
    """One column per line: readable, diff-friendly, deterministic."""
    cols = ",\n  ".join(json.dumps(c, ensure_ascii=False) for c in sch["columns"])
    body = f"\n  {cols}\n " if cols else ""
    return f'{{"format": {json.dumps(sch.get("format", SCHEMA_FORMAT))},\n "columns": [{body}]}}\n'


def _encode(df: pd.DataFrame) -> tuple[bytes, dict]:
    """The CSV bytes (uncompressed) and the schema of ``df``; deterministic."""
    sch = table_schema(df)
    text = {}
    for i, entry in enumerate(sch["columns"]):
        s = df.iloc[:, i]
        what = f"column {entry['name']!r}"
        if entry["r_class"] in ("factor", "ordered"):
            labels = np.array(entry["levels"], dtype=object)
            codes = s.cat.codes.to_numpy()
            col = np.where(codes >= 0, labels[np.maximum(codes, 0)] if len(labels) else None, None)
        else:
            col = _format_values(s, what)
        text[entry["name"]] = col
    frame = pd.DataFrame(text, index=pd.RangeIndex(len(df)), columns=[c["name"] for c in sch["columns"]], dtype=object)
    buf = io.StringIO()
    frame.to_csv(buf, index=False, na_rep="NA", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    return buf.getvalue().encode("utf-8"), sch


# ---------------------------------------------------------------------------
# reading


_SPSS = (".sav", ".zsav", ".por")
_STATA = (".dta",)
_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab"}
_SNIFF_BYTES = 1 << 16
#: files at least this large (on disk) show their reading progress on stderr (``progress=None``)
PROGRESS_MIN_BYTES = 64 * 2**20
#: pandas < 3's default float parser is not always correctly rounded; its "round_trip" one is
_FLOAT_KW = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}

_DIALECT: contextvars.ContextVar[dict | None] = contextvars.ContextVar("pysdc_csv_dialect", default=None)


@contextlib.contextmanager
def csv_dialect(*, sep: str | None = None, decimal: str | None = None, encoding: str | None = None):
    """Defaults for ``sep``, ``decimal`` and ``encoding`` of every :func:`read_table` and
    :func:`read_header` call inside the ``with`` block (the command line's ``--sep``,
    ``--decimal``, ``--encoding``); None leaves a setting to detection."""
    given = {"sep": sep, "decimal": decimal, "encoding": encoding}
    token = _DIALECT.set({**(_DIALECT.get() or {}), **{k: v for k, v in given.items() if v is not None}})
    try:
        yield
    finally:
        _DIALECT.reset(token)


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(_PARQUET):
        return "parquet"
    if name.endswith(_SPSS):
        return "spss"
    if name.endswith(_STATA):
        return "stata"
    return "csv"


def _open_binary(path: Path):
    """The file's (decompressed) bytes as a binary stream; None for compressions pysdc does not sniff."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    if name.endswith(".xz"):
        import lzma

        return lzma.open(path, "rb")
    if name.endswith(_COMPRESSED):
        return None
    return open(path, "rb")


def _encoding_error(path: Path, exc: UnicodeDecodeError, encoding: str) -> InvalidParameterError:
    bad = exc.object[exc.start:exc.start + 1]
    shown = f"byte 0x{bad.hex()}" if bad else "a byte"
    latin = bad.decode("latin-1") if bad else ""
    enc = "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig") else encoding
    return InvalidParameterError(
        f"file {str(path)!r} is not {enc} text ({exc.reason}: {shown} near byte {exc.start}"
        + (f", which is {latin!r} in latin-1" if latin.isprintable() and latin else "")
        + "). Give its encoding: --encoding latin-1 (ISO-8859-1) or --encoding cp1252 (Windows Western "
        "European) on the command line, read_table(path, encoding='latin-1') in Python; or re-save it as "
        "UTF-8 (e.g. iconv -f latin1 -t utf-8)."
    )


def _sample(path: Path, encoding: str) -> tuple[str, bool] | None:
    """The first lines of a CSV file as text and whether that is the whole file; None if not sniffable."""
    fh = _open_binary(path)
    if fh is None:
        return None
    try:
        with fh:
            raw = fh.read(_SNIFF_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise InvalidParameterError(f"cannot read {path.name}: {exc}") from None
    complete = len(raw) <= _SNIFF_BYTES
    raw = raw[:_SNIFF_BYTES]
    try:
        return codecs.getincrementaldecoder(encoding)().decode(raw, final=complete), complete
    except UnicodeDecodeError as exc:
        raise _encoding_error(path, exc, encoding) from None


def _sample_rows(text: str, complete: bool, sep: str) -> list[list[str]] | None:
    lines = text.splitlines(keepends=True)
    if not complete and len(lines) > 1:
        lines = lines[:-1]  # possibly cut
    try:
        return [r for r in csv.reader(io.StringIO("".join(lines[:200])), delimiter=sep) if r]
    except csv.Error:
        return None


def _detect_sep(path: Path, text: str, complete: bool) -> str:
    """The separator that splits every sampled line into the same number (> 1) of fields; "," if none does."""
    fits = []
    for sep in _SEPARATORS:
        rows = _sample_rows(text, complete, sep)
        if rows and len(rows[0]) > 1 and len({len(r) for r in rows}) == 1:
            fits.append(sep)
    if len(fits) > 1:
        names = " and ".join(f"{_SEPARATORS[s]} ({s!r})" for s in fits)
        raise InvalidParameterError(
            f"cannot tell how {path.name} is separated: every line splits into the same number of fields at "
            f"{names}. Give the separator: --sep ';' (or ',', '\\t') on the command line, "
            "read_table(path, sep=';') in Python."
        )
    return fits[0] if fits else ","


_COMMA_NUMBER = re.compile(r"^\s*[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?\s*$")
_POINT_NUMBER = re.compile(r"^\s*[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def _detect_decimal(path: Path, text: str, complete: bool, sep: str) -> str:
    """"," where the sampled fields hold numbers with a decimal comma and none with a decimal point."""
    rows = _sample_rows(text, complete, sep) or []
    fields = [f for r in rows[1:] for f in r]
    comma = any(_COMMA_NUMBER.match(f) for f in fields)
    point = any(_POINT_NUMBER.match(f) for f in fields)
    if comma and point:
        import warnings

        from ._errors import PysdcWarning

        warnings.warn(
            f"{path.name} holds numbers written with a decimal comma (e.g. 1,5) and with a decimal point "
            "(1.5); it is read with the decimal point, so the others are text. Give the decimal mark: "
            "--decimal ',' on the command line, read_table(path, decimal=',') in Python.",
            PysdcWarning,
            stacklevel=4,
        )
    return "," if comma and not point else "."


def _dialect(path: Path, sep, decimal, encoding) -> tuple[str, str, str]:
    """(sep, decimal, encoding) of a CSV file: as given (argument, then :func:`csv_dialect`), else detected."""
    ctx = _DIALECT.get() or {}
    sep = ctx.get("sep") if sep is None else sep
    decimal = ctx.get("decimal") if decimal is None else decimal
    encoding = ctx.get("encoding") if encoding is None else encoding
    if sep is not None:
        sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(sep, sep)
        if not isinstance(sep, str) or len(sep) != 1 or sep in "\"\r\n":
            raise InvalidParameterError(f"sep must be one character such as ',', ';' or '\\t'; got {sep!r}.")
    if decimal is not None and decimal not in (".", ","):
        raise InvalidParameterError(f"decimal must be '.' or ','; got {decimal!r}.")
    if encoding is None:
        encoding = "utf-8-sig"  # UTF-8, with or without the byte-order mark Excel writes
    else:
        try:
            encoding = codecs.lookup(encoding).name
        except (LookupError, TypeError):
            raise InvalidParameterError(
                f"unknown encoding {encoding!r}; use e.g. utf-8, latin-1 or cp1252.") from None
        if encoding == "utf-8":
            encoding = "utf-8-sig"
    sample = _sample(path, encoding) if (sep is None or decimal is None or path.suffix) else None
    if sep is None:
        sep = _detect_sep(path, *sample) if sample else ","
    if decimal is None:
        decimal = _detect_decimal(path, *sample, sep) if sample and sep != "," else "."
    if sep == decimal:
        raise InvalidParameterError(
            f"the separator and the decimal mark are both {sep!r}; a file with decimal commas is "
            "separated by ';' (--sep ';' --decimal ',', like R's read.csv2).")
    return sep, decimal, encoding


class _Progress(io.RawIOBase):
    """A binary file that reports on stderr how much of it has been read."""

    def __init__(self, raw, total: int, label: str):
        self._raw, self._total, self._label = raw, max(total, 1), label
        self._done, self._shown = 0, -1
        self._stream = sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.perf_counter()

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._raw.readinto(b)
        self._done += n or 0
        step = min(100, int(100 * self._done / self._total)) // (5 if self._tty else 25)
        if step != self._shown and (n or self._done >= self._total):
            self._shown = step
            pct = min(100, int(100 * self._done / self._total))
            text = f"pysdc: reading {self._label}: {pct:3d}% ({self._done / 2**20:.0f} of {self._total / 2**20:.0f} MB)"
            if self._tty:
                self._stream.write("\r" + text + ("\n" if pct >= 100 else ""))
            else:
                self._stream.write(text + "\n")
            self._stream.flush()
        return n

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            if self._tty and self._shown * 5 < 100:
                self._stream.write("\n")
        super().close()


@contextlib.contextmanager
def _csv_source(path: Path, show: bool):
    """What pandas reads: the path, or (``show``) a stream that reports its progress."""
    if not show or _open_binary(path) is None:
        yield path, "infer"
        return
    raw = _Progress(open(path, "rb"), path.stat().st_size, path.name)
    name = path.name.lower()
    if name.endswith(".gz"):
        fh = gzip.GzipFile(fileobj=io.BufferedReader(raw), mode="rb")
    elif name.endswith(".bz2"):
        import bz2

        fh = bz2.BZ2File(io.BufferedReader(raw), mode="rb")
    elif name.endswith(".xz"):
        import lzma

        fh = lzma.LZMAFile(io.BufferedReader(raw), mode="rb")
    else:
        fh = io.BufferedReader(raw, buffer_size=1 << 20)
    try:
        yield fh, None
    finally:
        fh.close()
        raw.close()


def _show_progress(path: Path, progress) -> bool:
    if progress is None:
        from ._progress import _CURRENT

        display = _CURRENT.get()
        if display is not None and display.quiet:  # the command line's --quiet
            return False
        try:
            return path.stat().st_size >= PROGRESS_MIN_BYTES
        except OSError:
            return False
    return bool(progress)


def _pandas_csv(path: Path, dialect: tuple, show: bool = False, **kw) -> pd.DataFrame:
    """pandas' C parser on ``path`` with pysdc's messages for its errors.

    A record with more fields than the header is refused: pandas would drop the extra fields
    silently when it reads some of the columns (``usecols``), and make the first column an index
    when the first record is the longer one. So is text with a NUL character (:func:`_refuse_nul`)."""
    if kw.get("nrows") == 0:
        return _pandas_call(path, dialect, show, **kw)
    if kw.get("usecols") is not None:  # pandas does not count the fields of a record when it reads some columns
        _check_fields(path, dialect)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        try:
            df = _pandas_call(path, dialect, show, index_col=False, **kw)
        except InvalidParameterError as exc:
            if "Expected" in str(exc) and "fields" in str(exc):  # a longer record: the same words as with usecols
                _check_fields(path, dialect)
            raise
    for w in caught:
        if issubclass(w.category, pd.errors.ParserWarning) and "does not match length of data" in str(w.message):
            _check_fields(path, dialect)
            raise InvalidParameterError(f"file {str(path)!r} is not a well-formed CSV file: a record has more fields "
                                        "than the header.")
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    _refuse_nul(path, df)
    return df


def _check_fields(path: Path, dialect: tuple) -> None:
    """Refuse a record with more fields than the header, naming its line (pyarrow's CSV parser, streamed;
    without pyarrow, pandas reading every column)."""
    sep, _, encoding = dialect
    header = list(_pandas_call(path, dialect, False, dtype=object, nrows=0).columns)
    try:
        import pyarrow as pa
        import pyarrow.csv as pc
    except ImportError:
        _pandas_call(path, dialect, False, dtype="category", keep_default_na=False, na_values=[], index_col=False)
        return
    found = []

    def handler(row):
        if row.actual_columns > row.expected_columns:
            found.append(row)
            return "error"
        return "skip"  # fewer fields: pandas (and R's read.csv, fill = TRUE) fill them in

    names = [f"c{i}" for i in range(len(header))]
    enc = "utf8" if encoding in ("utf-8-sig", "utf-8") else encoding
    try:
        with pa.input_stream(str(path), compression="detect") as src:
            reader = pc.open_csv(
                src, read_options=pc.ReadOptions(use_threads=False, column_names=names, skip_rows=1, encoding=enc),
                parse_options=pc.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                                              newlines_in_values=True, invalid_row_handler=handler),
                convert_options=pc.ConvertOptions(include_columns=names[:1],
                                                  column_types={names[0]: pa.dictionary(pa.int32(), pa.string())}))
            for _ in reader:
                pass
    except (pa.ArrowException, OSError, ValueError, UnicodeDecodeError):
        if not found:
            return  # another problem: pandas words it
    if found:
        row = found[0]
        line = f"line {row.number}" if row.number is not None else "a line"
        text = row.text if len(row.text) <= 80 else row.text[:77] + "..."
        raise InvalidParameterError(
            f"file {str(path)!r} is not a well-formed CSV file: {line} has {row.actual_columns} fields, the header "
            f"{row.expected_columns} ({text!r}). pysdc does not drop or shift fields (R's read.csv would shift "
            "them into other columns or rows); fix the line, e.g. quote a field that holds the separator, or give "
            "the separator (--sep)."
        )


def _refuse_nul(path: Path, df: pd.DataFrame) -> None:
    """Text with a NUL character is refused: R's read.csv ends the field at the NUL and loses the rest of the
    line (with a warning "line N appears to contain embedded nulls"); pandas would keep "1\\0" as its own value."""
    names = [str(c) for c in df.columns]
    for j, name in enumerate(names):
        s = df.iloc[:, j]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if cats.dtype != object and not isinstance(cats.dtype, pd.StringDtype):
                continue
            bad = np.flatnonzero(pd.Series(cats.astype(object)).str.contains("\x00", regex=False).fillna(False)
                                 .to_numpy(dtype=bool))
            if not len(bad):
                continue
            hit = np.isin(s.cat.codes.to_numpy(), bad)
        elif s.dtype == object or isinstance(s.dtype, pd.StringDtype):
            vals = s.to_numpy(dtype=object)
            try:  # most files: one search through the joined text
                if "\x00" not in "".join(vals[pd.notna(vals)]):
                    continue
            except TypeError:  # not all text
                pass
            hit = s.str.contains("\x00", regex=False).fillna(False).to_numpy(dtype=bool)
        else:
            continue
        if hit.any():
            i = int(np.flatnonzero(hit)[0])
            raise InvalidParameterError(
                f"file {str(path)!r} holds a NUL character (byte 0x00) in column {name!r}, record {i + 1} (line "
                f"{i + 2}). R's read.csv ends the field at the NUL and loses the rest of the line (\"line {i + 2} "
                "appears to contain embedded nulls\"); pysdc refuses it. Remove the NUL bytes (e.g. tr -d "
                "'\\000' < in.csv > out.csv) or fix the file's encoding (UTF-16 files need --encoding utf-16)."
            )
    if any("\x00" in n for n in names):
        raise InvalidParameterError(f"file {str(path)!r} has a NUL character (byte 0x00) in its header row; remove it.")


def _pandas_call(path: Path, dialect: tuple, show: bool = False, **kw) -> pd.DataFrame:
    sep, _, encoding = dialect
    try:
        with _csv_source(path, show) as (src, compression):
            return pd.read_csv(src, sep=sep, encoding=encoding, compression=compression, **kw)
    except UnicodeDecodeError as exc:
        raise _encoding_error(path, exc, encoding) from None
    except pd.errors.EmptyDataError:
        raise InvalidParameterError(f"file {str(path)!r} is empty; it needs at least a header row.") from None
    except pd.errors.ParserError as exc:
        raise InvalidParameterError(f"file {str(path)!r} is not a well-formed CSV file: {exc}".strip()) from None


def _read_text(path: Path, na_values, nrows=None, usecols=None, dialect=(",", ".", "utf-8-sig"),
               show: bool = False) -> pd.DataFrame:
    """Every field as text; only the ``na_values`` (quoted or not) are missing."""
    return _pandas_csv(path, dialect, show, dtype=object, keep_default_na=False, na_values=list(na_values),
                       nrows=nrows, usecols=usecols)


def read_header(path, *, sep=None, encoding=None) -> list[str]:
    """The column names of a table file (a CSV's header row), without reading the records."""
    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return list(_read_parquet(path).columns)
        return [str(c) for c in pq.read_schema(path).names if not str(c).startswith("__index_level_")]
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if kind == "spss":
        return list(_read_spss(path, None, metadata_only=True)[0].columns)
    if kind == "stata":
        return list(_read_stata(path, None, header_only=True)[0].columns)
    dialect = _dialect(path, sep, ".", encoding)
    return [str(c) for c in _read_text(path, ("NA",), nrows=0, dialect=dialect).columns]


def separator_hint(columns) -> str:
    """A hint when a CSV read as comma-separated looks ``;``- or tab-separated (else "")."""
    cols = [str(c) for c in columns]
    if len(cols) != 1:
        return ""
    for sep, name in ((";", "semicolon"), ("\t", "tab")):
        if sep in cols[0]:
            shown = "\\t" if sep == "\t" else sep
            return (f" The file may be {name}-separated (its one column is named {cols[0][:60]!r}); give the "
                    f"separator: --sep '{shown}' on the command line, read_table(path, sep={sep!r}) in Python.")
    return ""


def _convert(text: np.ndarray, entry: dict, what: str, decimal: str = ".") -> pd.Series:
    cls = entry["r_class"]
    dtype = entry.get("dtype")
    if cls == "numeric" and dtype is not None and pd.api.types.is_integer_dtype(pd.api.types.pandas_dtype(dtype)):
        cls = "integer"  # 64-bit integers beyond R's range: R reads doubles, pandas gets them back exactly
    if cls == "numeric":
        vals = _parse_float(text, what, decimal)
        _fit(vals, np.isnan(vals), dtype, what)
        return pd.Series(vals, dtype=dtype or "float64")
    if cls == "integer":
        vals, miss = _parse_int(text, what)
        _fit(vals, miss, dtype, what)
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
    present = text[~pd.isna(text)]
    if len(present) == 0:
        return pd.Series(pd.array([pd.NA] * len(text), dtype="boolean"))  # R: an all-NA column is logical
    nonblank = present[present != ""]
    if len(nonblank) == 0:
        cls = "character"
    elif pd.Series(nonblank, dtype=object).isin(_TRUE + _FALSE).all():
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
            ints, _ = _parse_int(nonblank, what)
            cls = "numeric" if (np.abs(ints) > _INT32_MAX).any() else "integer"
            _warn_big_integers(ints, what)
        except InvalidParameterError:
            try:
                _parse_float(nonblank, what, decimal)
                cls = "numeric"
            except InvalidParameterError:
                pass
            if cls == "numeric" and any(len(t.lstrip("+-")) > 15 and t.lstrip("+-").isdigit() for t in nonblank[:1000]):
                _warn_big_integers(None, what)
    return _convert(text, {"r_class": cls}, what, decimal)


def _warn_big_integers(ints, what: str) -> None:
    """Whole numbers beyond 2^53 become doubles (as in R's read.csv): distinct ids may merge."""
    if ints is not None and not (np.abs(ints) > 2**53).any():
        return
    import warnings

    from ._errors import PysdcWarning

    warnings.warn(
        f"{what} holds whole numbers beyond 2^53 (e.g. long ids), which are read as doubles, as R's read.csv "
        "does: distinct values can become equal. If it is an id or a key, read it as text: "
        "read_table(..., text_columns=[name]) (command line: --text NAME).",
        PysdcWarning,
        stacklevel=3,
    )


def _effective(entry: dict, text_columns) -> dict:
    """A schema entry as it is read: text columns as character, 64-bit integers as integers."""
    if entry["name"] in text_columns:
        return {"name": entry["name"], "r_class": "character"}
    dtype = entry.get("dtype")
    if entry["r_class"] == "numeric" and dtype is not None:
        try:
            if pd.api.types.is_integer_dtype(pd.api.types.pandas_dtype(dtype)):
                return {**entry, "r_class": "integer"}
        except TypeError:
            pass
    return entry


def _read_typed_fast(path: Path, entries: list, na_values, usecols, dialect, show: bool) -> pd.DataFrame | None:
    """The schema's types parsed by pandas' C parser; None where it cannot reproduce the rules of the
    text route (then :func:`read_table` takes that route, which also words the errors).

    Doubles are parsed by the C parser (correctly rounded), integers as pandas ``Int64``; logicals
    and factors as pandas categoricals (hashed in C), whose few distinct texts are then checked
    and mapped to the levels. Where the C parser has inferred a type for a factor's categories
    (``01`` and ``1.0`` would both become 1), that column is read again as text.
    """
    na = list(na_values)
    dtypes, nas = {}, {}
    for e in entries:
        cls = e["r_class"]
        dtypes[e["name"]] = {"numeric": np.float64, "integer": "Int64", "character": object}.get(cls, "category")
        nas[e["name"]] = na + [""] if cls in ("numeric", "integer", "logical") else na
    kw = {"keep_default_na": False, "usecols": usecols, "decimal": dialect[1], **_FLOAT_KW}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. DtypeWarning; the text route warns where it matters
            df = _pandas_csv(path, dialect, show, dtype=dtypes, na_values=nas, **kw)
    except InvalidParameterError:
        raise
    except (ValueError, TypeError, OverflowError):
        return None
    if [str(c) for c in df.columns] != [e["name"] for e in entries]:
        return None
    retext = [e["name"] for i, e in enumerate(entries) if e["r_class"] in ("factor", "ordered")
              and not all(isinstance(c, str) for c in df.iloc[:, i].cat.categories)]
    if retext:  # inferred categories: the exact texts of those columns
        text = _pandas_csv(path, dialect, False, dtype=object, na_values={n: na for n in retext},
                           **{**kw, "usecols": retext})
    cols = {}
    for i, e in enumerate(entries):
        s = df.iloc[:, i]
        cls, dtype, what = e["r_class"], e.get("dtype"), f"column {e['name']!r} of {path.name}"
        if cls == "numeric":
            vals = s.to_numpy(dtype=np.float64)
            _fit(vals, np.isnan(vals), dtype, what)
            cols[e["name"]] = pd.Series(vals, dtype=dtype or "float64")
        elif cls == "integer":
            miss = s.isna().to_numpy()
            vals = s.to_numpy(dtype=np.int64, na_value=0)
            _fit(vals, miss, dtype, what)
            cols[e["name"]] = _int_series(vals, miss, dtype)
        elif cls == "character":
            cols[e["name"]] = _convert(s.to_numpy(dtype=object), e, what)
        elif cls == "logical":
            cats = s.cat.categories
            if pd.api.types.is_bool_dtype(cats.dtype):
                truth = cats.to_numpy(dtype=bool)
            elif all(isinstance(c, str) and c in _TRUE + _FALSE for c in cats):
                truth = np.isin(cats.to_numpy(dtype=object), _TRUE)
            else:
                return None
            codes = s.cat.codes.to_numpy()
            miss = codes < 0
            vals = truth[np.maximum(codes, 0)] if len(truth) else np.zeros(len(codes), dtype=bool)
            cols[e["name"]] = _bool_series(vals & ~miss, miss, dtype)
        else:
            index = pd.Index([str(x) for x in e["levels"]], dtype=object)
            if e["name"] in retext:
                t = text[e["name"]].to_numpy(dtype=object)
                codes = index.get_indexer(t)
                if ((codes < 0) & ~pd.isna(t)).any():
                    return None
            else:
                where = index.get_indexer(s.cat.categories.to_numpy(dtype=object))
                if (where < 0).any():
                    return None
                raw = s.cat.codes.to_numpy()
                codes = np.where(raw >= 0, where[np.maximum(raw, 0)] if len(where) else -1, -1)
            cats_typed = _typed_levels([str(x) for x in e["levels"]], e.get("levels_dtype"), f"the levels of {what}")
            cols[e["name"]] = pd.Series(pd.Categorical.from_codes(codes, categories=cats_typed,
                                                                  ordered=(cls == "ordered")))
    return pd.DataFrame(cols, columns=[e["name"] for e in entries])


def read_table(path, schema=None, *, na_values=("NA",), usecols=None, text_columns=(), sep=None, decimal=None,
               encoding=None, progress=None) -> pd.DataFrame:
    """Read a table: a file written by :func:`write_table`, any CSV, Parquet, SPSS or Stata.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.csv.gz`` (any compression pandas recognises; other names are read as CSV
        too), ``.parquet``/``.pq``, SPSS ``.sav``/``.zsav``/``.por`` (needs ``pyreadstat``:
        ``pip install "pysdc-measures[spss]"``) or Stata ``.dta``.
    schema : dict, str, path-like or None
        The schema (a dict or the path of its JSON file). ``None``: the
        sidecar ``<stem>.schema.json`` next to ``path`` if it exists, else
        R's ``read.csv`` type inference. Ignored for Parquet, SPSS and Stata files.
    na_values : sequence of str, default ("NA",)
        Texts that mean a missing value, like R's ``na.strings``. Blank
        fields are missing in numeric, integer and logical columns anyway; in
        text and factor columns they are the value ``""`` (as in R) unless
        ``""`` is listed here.
    usecols : list of str, optional
        Read only these columns (in the file's order): much faster on wide files. Unknown
        names are an error.
    text_columns : sequence of str, default ()
        Read these columns as text (R's ``character``), whatever they hold: for ids that
        are numbers beyond 2^53 (e.g. 20-digit ids), which as doubles would merge.
    sep : str, optional
        The CSV field separator (``","``, ``";"``, ``"\\t"`` ...). Default: detected -- the one
        of comma, semicolon and tab that splits every line of the file's first 64 KiB into the
        same number of fields (comma if none does; an error if several do).
    decimal : {".", ","}, optional
        The decimal mark of numbers. Default: ``"."`` in comma-separated files; in others
        ``","`` when the first 64 KiB hold numbers with a decimal comma and none with a
        decimal point (R's ``read.csv2`` convention), else ``"."``. With ``","`` a text with a
        point is not a number (as in R).
    encoding : str, optional
        The text encoding, e.g. ``"latin-1"`` or ``"cp1252"``. Default UTF-8 (a byte-order
        mark is skipped); a file that is not UTF-8 is refused with a message naming the
        offending byte (single-byte encodings cannot be told apart reliably, so none is guessed).
    progress : bool, optional
        Report the reading progress on stderr. Default: for files of at least
        :data:`PROGRESS_MIN_BYTES` (64 MiB) on disk.

    Returns
    -------
    pandas.DataFrame
        With a fresh ``RangeIndex``.

    Notes
    -----
    With a schema, the file is parsed by pandas' C parser with the schema's types (several
    times faster than field-by-field text), keeping the rules of the text route: blank
    numeric fields are missing, doubles are correctly rounded, logicals are ``TRUE``/``FALSE``/
    ``T``/``F``/``true``/``false``/``True``/``False``, factor values must be among the levels.
    Any field the fast parse cannot take sends the file through the text route, which gives
    the same values or the precise error. One leniency: an integer column may hold whole
    numbers written as ``1.0`` or ``1e3`` (R's ``read.csv`` with the schema's
    ``colClasses = "integer"`` refuses them; the values are the same).

    SPSS and Stata files: variables with value labels become (unordered) categoricals whose
    levels are the labels, in the order of their values, values without a label appearing as
    their number (``haven::as_factor``'s default, as sdcMicro's GUI reads such files);
    user-defined and extended missing values are missing; Stata's integer storage types are
    read as doubles, as ``haven`` does.
    """
    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        return _read_parquet(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise InvalidParameterError(f"{str(path)!r} is a directory; give the path of a CSV or Parquet file.")
    if kind in ("spss", "stata"):
        return _read_labelled(path, kind, None if usecols is None else [str(c) for c in usecols])
    if schema is None and schema_path(path).exists():
        schema = schema_path(path)
    if isinstance(na_values, str) or not all(isinstance(v, str) for v in na_values):
        raise InvalidParameterError(f"na_values must be a list of strings; got {na_values!r}.")
    dialect = _dialect(path, sep, decimal, encoding)
    show = _show_progress(path, progress)
    text_columns = set(text_columns or ())
    if usecols is not None:
        usecols = [str(c) for c in usecols]
        header = read_header(path, sep=dialect[0], encoding=dialect[2])
        unknown = [c for c in usecols if c not in header]
        if unknown:
            from ._names import did_you_mean

            raise InvalidParameterError(
                f"{path.name} has no column(s) {unknown[:10]};{did_you_mean(unknown[:10], header)} its columns are "
                f"{header[:20]}{' ...' if len(header) > 20 else ''}.{separator_hint(header)}"
            )
        usecols = [c for c in header if c in set(usecols)]
    if schema is None:
        raw = _read_text(path, na_values, usecols=usecols, dialect=dialect, show=show)
        names = [str(c) for c in raw.columns]
        cols = {n: (_convert(raw.iloc[:, i].to_numpy(dtype=object), {"r_class": "character"}, "")
                    if n in text_columns else
                    _infer(raw.iloc[:, i].to_numpy(dtype=object), f"column {n!r} of {path.name}", dialect[1]))
                for i, n in enumerate(names)}
        return pd.DataFrame(cols, columns=names)
    sch = read_schema(schema)
    if usecols is not None:
        sch = {**sch, "columns": [c for c in sch["columns"] if c["name"] in set(usecols)]}
    want = [c["name"] for c in sch["columns"]]
    names = [c for c in read_header(path, sep=dialect[0], encoding=dialect[2])
             if usecols is None or c in set(usecols)]
    if names != want:
        extra = [n for n in names if n not in want]
        lacking = [n for n in want if n not in names]
        detail = []
        if lacking:
            detail.append(f"missing from the file: {lacking[:10]}")
        if extra:
            detail.append(f"not in the schema: {extra[:10]}")
        if not detail:
            detail.append("same columns in a different order")
        raise InvalidParameterError(
            f"the columns of {path.name} do not match its schema ({'; '.join(detail)}); "
            "pass the right schema (--schema) or fix the file."
        )
    entries = [_effective(e, text_columns) for e in sch["columns"]]
    fast = _read_typed_fast(path, entries, na_values, usecols, dialect, show)
    if fast is not None:
        return fast
    raw = _read_text(path, na_values, usecols=usecols, dialect=dialect, show=show)
    cols = {e["name"]: _convert(raw.iloc[:, i].to_numpy(dtype=object), e, f"column {e['name']!r} of {path.name}",
                                dialect[1])
            for i, e in enumerate(entries)}
    return pd.DataFrame(cols, columns=want)


# ---------------------------------------------------------------------------
# SPSS and Stata


def _read_spss(path: Path, usecols, metadata_only: bool = False):
    try:
        import pyreadstat
    except ImportError:
        raise InvalidParameterError(
            f"reading {path.name} (SPSS) needs pyreadstat, which is not installed; install it with: "
            'pip install "pysdc-measures[spss]"'
        ) from None
    por = path.name.lower().endswith(".por")
    fn = pyreadstat.read_por if por else pyreadstat.read_sav
    kw = {} if por else {"user_missing": False}
    try:
        df, meta = fn(str(path), usecols=usecols, metadataonly=metadata_only, apply_value_formats=False, **kw)
    except Exception as exc:  # pyreadstat's ReadstatError / PyreadstatError and OS errors
        raise InvalidParameterError(f"cannot read {path.name} as an SPSS file: {exc}") from None
    return df, dict(meta.variable_value_labels or {})


def _read_stata(path: Path, usecols, header_only: bool = False):
    try:
        with pd.read_stata(path, iterator=True, convert_categoricals=False, columns=usecols) as reader:
            names = list(reader.variable_labels())
            if header_only:
                return pd.DataFrame(columns=names), {}
            try:
                df = reader.read()
            except StopIteration:  # no records
                df = pd.DataFrame(columns=names if usecols is None else list(usecols))
            sets = reader.value_labels()
            lbl = getattr(reader, "_lbllist", None)  # the label set of each variable (pandas keeps it private)
    except (ValueError, TypeError, OSError, KeyError, UnicodeDecodeError) as exc:
        raise InvalidParameterError(f"cannot read {path.name} as a Stata file: {exc}") from None
    if isinstance(lbl, (list, tuple)) and len(lbl) == len(names):
        of = dict(zip(names, lbl))
    else:  # without pandas' private list: the common convention that a label set is named like its variable
        of = {n: n for n in names}
    labels = {n: sets[of[n]] for n in df.columns if of.get(n) and of[n] in sets}
    for n in df.columns:  # Stata's byte/int/long are doubles in R (haven), as every SPSS number is
        if n not in labels and pd.api.types.is_integer_dtype(df[n].dtype) and not pd.api.types.is_bool_dtype(df[n]):
            df[n] = df[n].astype(np.float64)
    return df, labels


def _value_text(v) -> str:
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.15g}"
    return str(v)


def _labelled_factor(s: pd.Series, labels: dict) -> pd.Series:
    """A labelled variable as a factor: levels = labels in the order of the values, unlabelled values as text."""
    present = pd.unique(s.dropna().to_numpy())
    try:
        values = sorted(set(labels) | set(present.tolist()))
    except TypeError:  # mixed types: labels first, then the rest as they come
        values = list(labels) + [v for v in present.tolist() if v not in labels]
    text = [str(labels[v]) if v in labels else _value_text(v) for v in values]
    level_of: dict = {}
    for t in text:
        level_of.setdefault(t, len(level_of))
    code_of_value = np.array([level_of[t] for t in text], dtype=np.int64)
    pos = pd.Index(values, dtype=object).get_indexer(s.astype(object).to_numpy())
    codes = np.where(pos >= 0, code_of_value[np.maximum(pos, 0)] if len(values) else -1, -1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=list(level_of)), index=s.index, name=s.name)


def _read_labelled(path: Path, kind: str, usecols) -> pd.DataFrame:
    if usecols is not None:
        header = read_header(path)
        unknown = [c for c in usecols if c not in header]
        if unknown:
            from ._names import did_you_mean

            raise InvalidParameterError(f"{path.name} has no column(s) {unknown[:10]};"
                                        f"{did_you_mean(unknown[:10], header)} its columns are {header[:20]}"
                                        f"{' ...' if len(header) > 20 else ''}.")
        usecols = [c for c in header if c in set(usecols)]
    df, labels = (_read_spss if kind == "spss" else _read_stata)(path, usecols)
    df = df.reset_index(drop=True)
    for col, lab in labels.items():
        if col in df.columns and lab:
            df[col] = _labelled_factor(df[col], lab)
    return df


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InvalidParameterError(
            f"reading {path.name} needs pyarrow, which is not installed; "
            "install it with: pip install pysdc-measures[parquet]"
        ) from None
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    try:
        return pd.read_parquet(path).reset_index(drop=True)
    except (OSError, ValueError, TypeError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise InvalidParameterError(f"cannot read {path.name} as Parquet: {exc}") from None
