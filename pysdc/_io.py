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
carry their own types.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError
from ._types import r_class

__all__ = ["read_table", "read_header", "separator_hint", "write_table", "schema_path", "read_schema", "table_schema", "SCHEMA_FORMAT"]

SCHEMA_FORMAT = "pysdc-table-1"
_R_CLASSES = ("numeric", "integer", "logical", "character", "factor", "ordered")
_TRUE = ("TRUE", "T", "true", "True")
_FALSE = ("FALSE", "F", "false", "False")
_INT32_MAX = 2147483647  # R's integers are 32 bit; NA_integer_ is -2^31
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
_PARQUET = (".parquet", ".pq")


# ---------------------------------------------------------------------------
# paths


def _stem(path: Path) -> str:
    name = path.name
    for ext in _COMPRESSED:
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    for ext in (".csv", ".tsv", ".txt") + _PARQUET:
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name.rsplit(".", 1)[0] if "." in name else name


def schema_path(path) -> Path:
    """The sidecar of a table file: ``dir/x.csv.gz`` -> ``dir/x.schema.json``."""
    path = Path(path)
    return path.with_name(_stem(path) + ".schema.json")


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


def _parse_float(text: np.ndarray, what: str) -> np.ndarray:
    """Object array of text (None/NaN missing) -> float64 with NaN."""
    miss = _missing_or_blank(text)
    work = np.where(miss, "nan", text).astype(object)
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


def read_schema(schema) -> dict:
    """Load and check a schema given as a dict or as the path of a JSON file."""
    where = "schema"
    if isinstance(schema, (str, os.PathLike)):
        where = f"schema file {os.fspath(schema)!r}"
        try:
            with open(schema, encoding="utf-8") as fh:
                schema = json.load(fh)
        except json.JSONDecodeError as exc:
            raise InvalidParameterError(f"{where} is not valid JSON ({exc}).") from None
    if not isinstance(schema, dict) or not isinstance(schema.get("columns"), list):
        raise InvalidParameterError(
            f"{where} must be a JSON object with a 'columns' list "
            f'({{"format": "{SCHEMA_FORMAT}", "columns": [{{"name": ..., "r_class": ...}}]}}).'
        )
    fmt = schema.get("format", SCHEMA_FORMAT)
    if fmt != SCHEMA_FORMAT:
        raise InvalidParameterError(f"{where} has format {fmt!r}; this pysdc reads {SCHEMA_FORMAT!r}.")
    seen = set()
    for i, col in enumerate(schema["columns"]):
        if not isinstance(col, dict) or not isinstance(col.get("name"), str):
            raise InvalidParameterError(f"{where}: column entry {i} needs a 'name' string.")
        cls = col.get("r_class")
        if cls not in _R_CLASSES:
            raise InvalidParameterError(
                f"{where}: column {col['name']!r} has r_class {cls!r}; use one of {', '.join(_R_CLASSES)}."
            )
        if cls in ("factor", "ordered") and not isinstance(col.get("levels"), list):
            raise InvalidParameterError(f"{where}: {cls} column {col['name']!r} needs a 'levels' list.")
        if col["name"] in seen:
            raise InvalidParameterError(f"{where} lists column {col['name']!r} twice.")
        seen.add(col["name"])
    return schema


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
    path.write_bytes(data)
    if schema:
        schema_path(path).write_text(_schema_text(sch), encoding="utf-8")
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


def read_header(path) -> list[str]:
    """The column names of a CSV file (its header row), without reading the records."""
    path = Path(path)
    if path.name.lower().endswith(_PARQUET):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return list(_read_parquet(path).columns)
        return [str(c) for c in pq.read_schema(path).names if not str(c).startswith("__index_level_")]
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    return [str(c) for c in _read_text(path, ("NA",), nrows=0).columns]


def separator_hint(columns) -> str:
    """A hint when a CSV read as comma-separated looks ``;``- or tab-separated (else "")."""
    cols = [str(c) for c in columns]
    if len(cols) != 1:
        return ""
    for sep, name in ((";", "semicolon"), ("\t", "tab")):
        if sep in cols[0]:
            return (f" The file may be {name}-separated (its one column is named {cols[0][:60]!r}); pysdc reads "
                    "comma-separated files: convert it, e.g. with pandas: pd.read_csv(path, sep="
                    f"{sep!r}).to_csv(new_path, index=False).")
    return ""


def _read_text(path: Path, na_values, nrows=None, usecols=None) -> pd.DataFrame:
    """Every field as text; only the ``na_values`` (quoted or not) are missing."""
    try:
        return pd.read_csv(
            path, dtype=object, keep_default_na=False, na_values=list(na_values), encoding="utf-8",
            nrows=nrows, usecols=usecols,
        )
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(
            f"file {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "re-save it as UTF-8 (e.g. iconv -f latin1 -t utf-8)."
        ) from None
    except pd.errors.EmptyDataError:
        raise InvalidParameterError(f"file {str(path)!r} is empty; it needs at least a header row.") from None
    except pd.errors.ParserError as exc:
        raise InvalidParameterError(f"file {str(path)!r} is not a well-formed CSV file: {exc}".strip()) from None


def _convert(text: np.ndarray, entry: dict, what: str) -> pd.Series:
    cls = entry["r_class"]
    dtype = entry.get("dtype")
    if cls == "numeric" and dtype is not None and pd.api.types.is_integer_dtype(pd.api.types.pandas_dtype(dtype)):
        cls = "integer"  # 64-bit integers beyond R's range: R reads doubles, pandas gets them back exactly
    if cls == "numeric":
        vals = _parse_float(text, what)
        return pd.Series(vals, dtype=dtype or "float64")
    if cls == "integer":
        vals, miss = _parse_int(text, what)
        if not miss.any():
            return pd.Series(vals).astype(dtype or "int64")
        out = pd.array(vals, dtype="Int64")
        out[miss] = pd.NA
        target = pd.api.types.pandas_dtype(dtype or "Int64")
        if not isinstance(target, pd.api.extensions.ExtensionDtype):
            target = pd.Int64Dtype()  # a NumPy integer dtype cannot hold NA
        return pd.Series(out).astype(target)
    if cls == "logical":
        vals, miss = _parse_bool(text, what)
        if not miss.any():
            return pd.Series(vals).astype(dtype or "bool")
        out = pd.array(vals, dtype="boolean")
        out[miss] = pd.NA
        return pd.Series(out)
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


def _infer(text: np.ndarray, what: str) -> pd.Series:
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
        for parse in (_parse_int, _parse_float):
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
                _parse_float(nonblank, what)
                cls = "numeric"
            except InvalidParameterError:
                pass
            if cls == "numeric" and any(len(t.lstrip("+-")) > 15 and t.lstrip("+-").isdigit() for t in nonblank[:1000]):
                _warn_big_integers(None, what)
    return _convert(text, {"r_class": cls}, what)


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


def read_table(path, schema=None, *, na_values=("NA",), usecols=None, text_columns=()) -> pd.DataFrame:
    """Read a table written by :func:`write_table`, any CSV, or a Parquet file.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.csv.gz`` (any compression pandas recognises) or
        ``.parquet``/``.pq``.
    schema : dict, str, path-like or None
        The schema (a dict or the path of its JSON file). ``None``: the
        sidecar ``<stem>.schema.json`` next to ``path`` if it exists, else
        R's ``read.csv`` type inference. Ignored for Parquet files.
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

    Returns
    -------
    pandas.DataFrame
        With a fresh ``RangeIndex``.
    """
    path = Path(path)
    if path.name.lower().endswith(_PARQUET):
        return _read_parquet(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise InvalidParameterError(f"{str(path)!r} is a directory; give the path of a CSV or Parquet file.")
    if schema is None and schema_path(path).exists():
        schema = schema_path(path)
    if isinstance(na_values, str) or not all(isinstance(v, str) for v in na_values):
        raise InvalidParameterError(f"na_values must be a list of strings; got {na_values!r}.")
    text_columns = set(text_columns or ())
    if usecols is not None:
        usecols = [str(c) for c in usecols]
        header = read_header(path)
        unknown = [c for c in usecols if c not in header]
        if unknown:
            raise InvalidParameterError(
                f"{path.name} has no column(s) {unknown[:10]}; its columns are {header[:20]}"
                f"{' ...' if len(header) > 20 else ''}.{separator_hint(header)}"
            )
        usecols = [c for c in header if c in set(usecols)]
    raw = _read_text(path, na_values, usecols=usecols)
    names = [str(c) for c in raw.columns]
    if schema is None:
        cols = {n: (_convert(raw.iloc[:, i].to_numpy(dtype=object), {"r_class": "character"}, "")
                    if n in text_columns else
                    _infer(raw.iloc[:, i].to_numpy(dtype=object), f"column {n!r} of {path.name}"))
                for i, n in enumerate(names)}
        return pd.DataFrame(cols, columns=names)
    sch = read_schema(schema)
    if usecols is not None:
        sch = {**sch, "columns": [c for c in sch["columns"] if c["name"] in set(usecols)]}
    want = [c["name"] for c in sch["columns"]]
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
    cols = {}
    for i, entry in enumerate(sch["columns"]):
        if entry["name"] in text_columns:
            entry = {"name": entry["name"], "r_class": "character"}
        cols[entry["name"]] = _convert(raw.iloc[:, i].to_numpy(dtype=object), entry,
                                       f"column {entry['name']!r} of {path.name}")
    return pd.DataFrame(cols, columns=want)


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
