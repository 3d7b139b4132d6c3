"""CSV files on an engine, read as the pandas path reads them (:func:`pysdc.read_table`).

DuckDB and Spark read every field as text, with the file's dialect (separator, quote, encoding) and
its NA strings; the columns are then typed in SQL by the rules of the pandas path (R's ``read.csv``),
decided over every value of every file together, not over a sample, in one query whose expressions are
written once for all columns (the fields as (column, value) pairs grouped by column: a wide file's thousands of
columns cost no more to plan than a few):

* a field that is empty, quoted empty or white space only is blank: missing except in text columns;
* a column of missing and blank fields only is logical (all missing);
* logical if every non-blank value is ``TRUE``/``FALSE``/``T``/``F`` (not ``true``/``True``/``false``/
  ``False``: those make the column text, as in R);
* integer if every non-blank value is a whole number (white space before it allowed, not after it:
  that makes the column double, as in R; ``01`` is 1), double if beyond R's 32-bit integers;
* double if every non-blank value is a number (with the decimal mark of the dialect, white space
  around it allowed; ``inf``/``nan`` as Python reads them, NaN missing);
* text otherwise (the NA strings missing, blank fields their text, ``""`` for an empty one, as in R).

The rules of R not matched (hexadecimal numbers, incomplete exponents such as ``1e``) are listed in
:mod:`pysdc.io`'s docstring.

A record with more fields than the header, a NUL character in a field, and files whose headers
differ are refused (InvalidParameterError), as by the pandas path. A schema sidecar
(``<stem>.schema.json``) types its columns as it does on the pandas path.

A header naming a column more than once gets the names of the pandas path (R's ``read.csv``: the later
ones ``name.1``, ``name.2``; :func:`pysdc.io.read_header`), so a key ``name`` is the first column, and the
same :class:`~pysdc.PysdcWarning` (:func:`pysdc.io.warn_repeated_names`, from the first file's header line).
The survey that types the columns also counts each text column's empty fields (read as the value ``""``,
as by R; no extra pass over the data): they are said as :func:`pysdc.read_table` says them
(:func:`pysdc.io.warn_empty_text`, when the table is opened) and left in ``opts["empty_text"]`` (column ->
count, text columns with at least one), from which the command line says those of the columns it uses.
"""

from __future__ import annotations

import csv
import os
import re
from io import StringIO
from pathlib import Path

import numpy as np

from .. import io as _io
from .._errors import InvalidParameterError
from .._types import R_INT_MAX
from ..io import (
    BLANK_CHARS,
    FALSE_TEXTS,
    INFER_LOGICAL_TEXTS,
    TRUE_TEXTS,
    check_dtype_fits,
    effective_entry,
    warn_big_integers,
    warn_empty_text,
    warn_repeated_names,
)

__all__ = ["csv_options", "duckdb_csv", "spark_csv"]

#: Python's white space as ``int()``/``float()``/``str.strip()`` take it (ASCII part; other white
#: space makes a field text on the pandas path too)
_WS = "[ \t\n\r\x0b\x0c\x1c-\x1f]"
#: a whole number as R's read.csv reads one: white space before it, none after it (that makes R read a double)
_INT = f"^{_WS}*([+-]?[0-9]+)?$"
#: a blank field (empty or white space only), as R's type inference takes it
_BLANK = "^[" + BLANK_CHARS + "]*$"
_FLOAT = f"^{_WS}*([+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|(?i:inf|infinity|nan)))?{_WS}*$"
_TRIM = (f"^{_WS}+", f"{_WS}+$")
#: DuckDB's own CSV encodings (others need its "encodings" extension, which pysdc does not load)
_DUCK_ENCODINGS = {"utf-8-sig": "utf-8", "utf-8": "utf-8", "latin-1": "latin-1", "iso8859-1": "latin-1",
                   "utf-16": "utf-16"}
#: Spark's CSV encodings, by Python's codec names
_SPARK_ENCODINGS = {"utf-8-sig": "utf-8", "utf-8": "utf-8", "iso8859-1": "iso-8859-1", "latin-1": "iso-8859-1",
                    "ascii": "us-ascii", "utf-16": "utf-16", "utf-16-be": "utf-16be", "utf-16-le": "utf-16le",
                    "utf-32": "utf-32"}


def csv_options(files: list, *, na_values=("NA",), text_columns=(), sep=None, decimal=None, encoding=None,
                schema=None) -> dict:
    """The reading options of CSV ``files`` as the pandas path resolves them (given, else
    :func:`pysdc.io.csv_dialect`'s, else detected in the first file), the header (the same in
    every file) and the schema (given, else the first file's sidecar). A header naming a column more than
    once is said as :func:`pysdc.read_table` says it (without a schema; with one the names must match it)."""
    if isinstance(na_values, str) or not all(isinstance(v, str) for v in na_values):
        raise InvalidParameterError(f"na_values must be a list of strings; got {na_values!r}.")
    first = Path(files[0])
    sep, decimal, encoding = _io.resolve_dialect(first, sep, decimal, encoding)
    header = _io.read_header(first, sep=sep, encoding=encoding)
    for f in files[1:]:
        other = _io.read_header(Path(f), sep=sep, encoding=encoding)
        if other != header:
            raise InvalidParameterError(
                f"the CSV files do not have the same columns: {str(first)!r} has {header[:10]}, {str(f)!r} has "
                f"{other[:10]}; read the files of one table (same header) together.")
    if schema is None:
        side = [Path(f) for f in files if _io.schema_path(Path(f)).exists()]
        schema = _io.schema_path(side[0]) if side else None
    sch = _io.read_schema(schema) if schema is not None else None
    if sch is None:  # as read_table: the later ones are name.1, name.2 (read_header's names), said
        warn_repeated_names(first, (sep, decimal, encoding), stacklevel=4)
    if sch is not None:
        names = [c["name"] for c in sch["columns"]]
        if names != header:
            raise InvalidParameterError(
                f"the columns of {first.name} do not match its schema (file {header[:10]}, schema {names[:10]}); "
                "pass the right schema or fix the file.")
    folded: dict = {}
    for n in header:
        folded.setdefault(n.lower(), []).append(n)
    clash = next((v for v in folded.values() if len(v) > 1), None)
    if clash:  # (DuckDB: a query of "A" selected the column "a"; Spark: COLUMN_ALREADY_EXISTS)
        raise InvalidParameterError(
            f"the header of {_where(files)} has column names that differ only in case ({', '.join(map(repr, clash))}), "
            "which DuckDB and Spark cannot tell apart (their names are not case-sensitive); use --engine pandas "
            "(pysdc.read_table), or rename the columns.")
    unknown = [c for c in text_columns or () if c not in header]
    if unknown:
        raise InvalidParameterError(f"text_columns names column(s) {unknown[:10]} that the files do not have; "
                                    f"their columns are {header[:20]}.")
    return {"na_values": list(na_values), "text_columns": list(text_columns or ()), "sep": sep, "decimal": decimal,
            "encoding": encoding, "header": header, "schema": sch}


# =============================================================================
# the SQL shared by DuckDB and Spark


class _Sql:
    """What differs between DuckDB's and Spark's SQL."""

    def __init__(self, kind: str):
        self.kind = kind

    def q(self, name: str) -> str:
        if self.kind == "duckdb":
            return '"' + name.replace('"', '""') + '"'
        return "`" + name.replace("`", "``") + "`"

    def lit(self, text: str) -> str:
        body = text.replace("'", "''")
        if self.kind == "spark":  # Spark's literals take backslash escapes
            body = body.replace("\\", "\\\\")
        return "'" + body + "'"

    def rx(self, expr: str, pattern: str) -> str:
        if self.kind == "duckdb":
            return f"regexp_matches({expr}, {self.lit(pattern)})"
        return f"({expr} RLIKE {self.lit(pattern)})"

    def trim(self, expr: str) -> str:
        for p in _TRIM:
            expr = f"regexp_replace({expr}, {self.lit(p)}, '')"
        return expr

    def nul(self) -> str:
        return "chr(0)"


def _number_text(sql: _Sql, c: str, decimal: str) -> str:
    return c if decimal == "." else f"replace({c}, ',', '.')"


def _is_number(sql: _Sql, c: str, decimal: str) -> str:
    if decimal == ".":
        return sql.rx(c, _FLOAT)
    return f"(instr({c}, '.') = 0 AND {sql.rx(_number_text(sql, c, decimal), _FLOAT)})"


def _all(cond: str, c: str) -> str:
    """1 when every non-empty present value meets ``cond`` (NULL when there is none)."""
    return f"min(CASE WHEN {c} <> '' THEN (CASE WHEN {cond} THEN 1 ELSE 0 END) END)"


#: the survey's long form: each field as (its column's 0-based position, its text)
_J, _V, _K = "pysdc_j", "pysdc_v", "pysdc_k"


def _long(sql: _Sql, header: list, src: str) -> str:
    """The records of ``src`` as one row per field (column position ``pysdc_j``, text ``pysdc_v``): the
    survey's expressions are then written once for every column, not once per column (a query with
    thousands of per-column expressions takes DuckDB minutes to plan, growing with the square of the
    columns)."""
    listed = ", ".join(sql.q(n) for n in header)
    if sql.kind == "duckdb":
        return (f"(SELECT generate_subscripts(pysdc_l, 1) - 1 AS {_J}, unnest(pysdc_l) AS {_V} "
                f"FROM (SELECT [{listed}] AS pysdc_l FROM {src}) AS pysdc_rows)")
    return f"(SELECT {_J}, {_V} FROM {src} LATERAL VIEW posexplode(array({listed})) pysdc_x AS {_J}, {_V})"


def _survey_sql(sql: _Sql, header: list, decimal: str, src: str, sch=None) -> str:
    """One query over every column of ``src``: one row per column (its position ``pysdc_j``) with the
    counts and flags that :func:`_classes` and :func:`_check` read (:func:`_by_column`)."""
    v, k = _V, _K
    bools = ", ".join(sql.lit(t) for t in INFER_LOGICAL_TEXTS)
    # (a schema's logical column takes R's other logical texts too: true, True, false, False)
    more_bools = ", ".join(sql.lit(t) for t in TRUE_TEXTS + FALSE_TEXTS if t not in INFER_LOGICAL_TEXTS)
    # each value's kind once (4 logical, 3 logical with a schema only, 2 whole number, 1 other number, 0 text,
    # NULL blank or missing; the logical texts are no numbers), in an inner query; the aggregates over the kinds outside
    kind = (f"CASE WHEN {v} IS NULL OR {v} = '' OR {sql.rx(v, _BLANK)} THEN NULL "
            f"WHEN {v} IN ({bools}) THEN 4 WHEN {v} IN ({more_bools}) THEN 3 WHEN {sql.rx(v, _INT)} THEN 2 "
            f"WHEN {_is_number(sql, v, decimal)} THEN 1 ELSE 0 END")
    size = f"abs(coalesce(TRY_CAST({v} AS DOUBLE), TRY_CAST({sql.trim(v)} AS DOUBLE)))"
    parts = [
        f"count({v}) AS n",
        f"max(CASE WHEN instr({v}, {sql.nul()}) > 0 THEN 1 ELSE 0 END) AS z",
        f"count(CASE WHEN {v} = '' THEN 1 END) AS y",  # empty fields: "" in a text column
        f"count({k}) AS e",
        f"min(CASE WHEN {k} = 4 THEN 1 WHEN {k} IS NOT NULL THEN 0 END) AS b",
        f"min(CASE WHEN {k} >= 3 THEN 1 WHEN {k} IS NOT NULL THEN 0 END) AS l",
        f"min(CASE WHEN {k} = 2 THEN 1 WHEN {k} IS NOT NULL THEN 0 END) AS i",
        f"min(CASE WHEN {k} IN (1, 2) THEN 1 WHEN {k} IS NOT NULL THEN 0 END) AS f",
        f"max(CASE WHEN {k} = 2 THEN {size} END) AS m",
    ]
    join, extra = "", ""
    if sch is not None:  # the checks of a schema's classes, over every column (:func:`_by_column` keeps the asked)
        x = f"TRY_CAST({sql.trim(_number_text(sql, v, decimal))} AS DOUBLE)"
        parts += [f"{_all(f'({sql.rx(v, _INT)} OR {x} = round({x}))', v)} AS w", f"min({x}) AS lo", f"max({x}) AS hi"]
        if any(str(e.get("dtype")) in ("float32", "Float32") for e in sch["columns"]):  # float32 numbers
            parts.append(f"min(CASE WHEN CAST(CAST({x} AS FLOAT) AS DOUBLE) = {x} OR isnan({x}) THEN 1 "
                         f"WHEN {x} IS NOT NULL THEN 0 END) AS s")
        levels = [(i, str(lv)) for i, e in enumerate(sch["columns"]) if e["r_class"] in ("factor", "ordered")
                  for lv in dict.fromkeys(str(x) for x in e["levels"])]
        if levels:  # a factor's values among its levels: the first value that is not
            rows = ", ".join(f"({i}, {sql.lit(lv)})" for i, lv in levels)
            join = (f" LEFT JOIN (VALUES {rows}) AS pysdc_levels(pysdc_lj, pysdc_lv) "
                    f"ON pysdc_lj = {_J} AND pysdc_lv = {v}")
            extra = ", pysdc_lv"
            parts.append(f"min(CASE WHEN {v} IS NOT NULL AND pysdc_lv IS NULL THEN {v} END) AS u")
    values = f"(SELECT {_J}, {v}, {kind} AS {k}{extra} FROM {_long(sql, header, src)} AS pysdc_long{join})"
    return f"SELECT {_J}, {', '.join(parts)} FROM {values} AS pysdc_values GROUP BY {_J}"


def _by_column(rows: list, header: list, cols: list, sch) -> dict:
    """The survey's rows (one per column) as one record: ``n0``, ``z0``, ... ``n1`` ... by column position, as
    :func:`_classes` and :func:`_check` read them; a schema's checks kept only where they apply (``w``, ``lo``,
    ``hi`` for its integer and numeric columns, ``s`` for float32 ones, ``u`` for factors with levels)."""
    got = {int(r[_J]): r for r in rows}
    out = {}
    asked = set(cols)
    for i, name in enumerate(header):
        r = got.get(i, {})  # no row: no records
        for key in ("n", "z", "y", "e"):
            out[f"{key}{i}"] = r.get(key) or 0
        for key in ("b", "l", "i", "f", "m"):
            out[f"{key}{i}"] = r.get(key)
        if sch is None or name not in asked:
            continue
        e = sch["columns"][i]
        if e["r_class"] in ("integer", "numeric"):
            for key in ("w", "lo", "hi"):
                out[f"{key}{i}"] = r.get(key)
            if str(e.get("dtype")) in ("float32", "Float32"):
                out[f"s{i}"] = r.get("s")
        elif e["r_class"] in ("factor", "ordered") and len(e["levels"]):
            out[f"u{i}"] = r.get("u")
    return out


def _classes(row: dict, header: list, cols: list) -> dict:
    """Each column's R class from the survey, by the rules of ``pysdc.io._values._infer``."""
    out = {}
    for i, name in enumerate(header):
        if name not in cols:
            out[name] = "character"
        elif not row[f"n{i}"]:
            out[name] = "logical"  # R: an all-NA column is logical
        elif not row[f"e{i}"]:
            out[name] = "logical"  # R: a column of missing and blank fields is logical
        elif row[f"b{i}"] == 1:
            out[name] = "logical"
        elif row[f"i{i}"] == 1:
            big = row[f"m{i}"]
            out[name] = "numeric" if big is not None and big > R_INT_MAX else "integer"
            if big is not None and big > 2**53:  # as the pandas path warns
                warn_big_integers(None, f"column {name!r}")
        elif row[f"f{i}"] == 1:
            out[name] = "numeric"
        else:
            out[name] = "character"
    return out


def _typed_sql(sql: _Sql, header: list, classes: dict, decimal: str, src: str) -> str:
    return f"SELECT {', '.join(_typed_exprs(sql, header, classes, decimal))} FROM {src}"


def _typed_exprs(sql: _Sql, header: list, classes: dict, decimal: str) -> list:
    exprs = []
    for name in header:
        c = sql.q(name)
        cls = classes[name]
        if cls == "integer":  # (whole numbers written as 1.0 or 1e3 too, as with a schema on the pandas path)
            t = sql.trim(c)
            e = (f"(CASE WHEN {sql.rx(c, _INT)} THEN TRY_CAST({t} AS BIGINT) "
                 f"ELSE CAST(TRY_CAST({sql.trim(_number_text(sql, c, decimal))} AS DOUBLE) AS BIGINT) END)")
        elif cls == "numeric":
            x = f"TRY_CAST({sql.trim(_number_text(sql, c, decimal))} AS DOUBLE)"
            e = f"(CASE WHEN isnan({x}) THEN NULL ELSE {x} END)"
        elif cls == "logical":
            e = (f"(CASE WHEN {c} IN ({', '.join(sql.lit(t) for t in TRUE_TEXTS)}) THEN TRUE "
                 f"WHEN {c} IN ({', '.join(sql.lit(t) for t in FALSE_TEXTS)}) THEN FALSE END)")
        else:
            e = c
        exprs.append(f"{e} AS {c}")
    return exprs


def _schema_classes(sch: dict, text_columns) -> dict:
    return {e["name"]: ("character" if e["r_class"] in ("factor", "ordered") else e["r_class"])
            for e in (effective_entry(c, set(text_columns)) for c in sch["columns"])}


def _check(row: dict, header: list, classes: dict, sch, what: str) -> None:
    for i, name in enumerate(header):
        if row[f"z{i}"]:
            raise InvalidParameterError(
                f"{what} hold(s) a NUL character (byte 0x00) in column {name!r}. R's read.csv ends the field at "
                "the NUL and loses the rest of the line (\"line N appears to contain embedded nulls\"); pysdc "
                "refuses it. Remove the NUL bytes (e.g. tr -d '\\000' < in.csv > out.csv).")
    if sch is None:
        return
    for i, name in enumerate(header):  # the schema's classes must hold the values (as on the pandas path)
        cls = classes[name]
        ok = {"integer": row.get(f"f{i}") == 1 and row.get(f"w{i}") != 0, "numeric": row.get(f"f{i}") != 0,
              "logical": row.get(f"l{i}") != 0}.get(cls, True)
        if cls in ("integer", "numeric") and row.get(f"e{i}") == 0:
            ok = True
        if not ok:
            raise InvalidParameterError(f"column {name!r} of {what} should be {cls} (its schema) but holds text that "
                                        "is not; fix the data or the schema.")
        bad = row.get(f"u{i}")
        if bad is not None:
            raise InvalidParameterError(
                f"column {name!r} of {what} holds value(s) [{bad!r}] that are not among its levels in the schema; "
                "add them to the schema's levels or fix the data.")
        e = sch["columns"][i]
        if row.get(f"s{i}") == 0:
            raise InvalidParameterError(
                f"column {name!r} of {what}: the schema's dtype {e['dtype']!r} cannot hold every value exactly; pysdc "
                "does not change values to fit a dtype. Give the column the dtype 'float64', or no dtype.")
        if cls in ("integer", "numeric") and e.get("dtype") and row.get(f"lo{i}") is not None:
            ends = np.array([row[f"lo{i}"], row[f"hi{i}"]], dtype=np.float64)
            try:
                check_dtype_fits(ends, np.zeros(2, dtype=bool), e["dtype"], f"column {name!r} of {what}")
            except InvalidParameterError as exc:  # the engine's records have no row number here
                raise InvalidParameterError(str(exc).replace(" (row 1)", "").replace(" (row 2)", "")) from None


def _survey(fetch, sql: _Sql, opts: dict, src: str, what: str, where: str) -> dict:
    header = opts["header"]
    sch = opts["schema"]
    text = set(opts["text_columns"])
    if sch is not None:
        classes = _schema_classes(sch, text)
        cols = [n for n in header if classes[n] in ("integer", "numeric", "logical")]
    else:
        cols = [n for n in header if n not in text]
    if sch is not None:  # the schema's factors are checked against their levels
        cols += [n for n in header if n not in text and classes[n] == "character"]
    row = _by_column(fetch(_survey_sql(sql, header, opts["decimal"], src, sch)), header, cols, sch)
    if sch is None:
        classes = _classes(row, header, cols)
    _check(row, header, classes, sch, what)
    # text columns (a schema's factors too) keep their empty fields as the value "" (the pandas path's
    # categories or text; a column of blank fields only is logical, all missing, and has none)
    opts["empty_text"] = {name: int(row[f"y{i}"]) for i, name in enumerate(header)
                          if classes[name] == "character" and row[f"y{i}"]}
    warn_empty_text(opts["empty_text"], where, stacklevel=5)  # as read_table says them
    return classes


def _what(files: list) -> str:
    return repr(files[0]) if len(files) == 1 else f"the {len(files)} CSV files ({files[0]!r} ...)"


def _where(files: list) -> str:
    """The table in the warnings, as read_table names it (its file's name)."""
    first = Path(files[0]).name
    return first if len(files) == 1 else f"the {len(files)} CSV files ({first} ...)"


# =============================================================================
# DuckDB


def duckdb_csv(con, files: list, opts: dict):
    """The typed DuckDB relation of CSV ``files`` (``opts`` from :func:`csv_options`; None: its defaults)."""
    import duckdb

    opts = opts or csv_options(files)

    enc = _DUCK_ENCODINGS.get(opts["encoding"])
    if enc is None:
        raise InvalidParameterError(
            f"DuckDB's CSV reader cannot decode {opts['encoding']!r} (it reads UTF-8, UTF-16 and latin-1); use "
            "--engine pandas (read_table), or convert the files to UTF-8 first (iconv -f cp1252 -t utf-8).")
    sql = _Sql("duckdb")
    listed = "[" + ", ".join(sql.lit(os.fspath(f)) for f in files) + "]"
    columns = "{" + ", ".join(f"{sql.lit(n)}: 'VARCHAR'" for n in opts["header"]) + "}"
    nulls = "[" + ", ".join(sql.lit(v) for v in opts["na_values"] or ["\x01pysdc-no-null\x01"]) + "]"

    def source(parallel: bool) -> str:
        # short records are padded with missing values (as by pandas); DuckDB's parallel scanner cannot
        # pad files with quoted line breaks, which are then read by one thread
        return (f"read_csv({listed}, header = true, auto_detect = false, columns = {columns}, "
                f"delim = {sql.lit(opts['sep'])}, quote = '\"', escape = '\"', encoding = {sql.lit(enc)}, "
                f"nullstr = {nulls}, allow_quoted_nulls = true, null_padding = true, strict_mode = true"
                + ("" if parallel else ", parallel = false") + ")")

    what = _what(files)
    src = source(True)

    def fetch(query: str) -> list:
        nonlocal src
        try:
            try:
                return _rows(con.sql(query))
            except duckdb.Error as exc:
                if "null_padding" not in str(exc) or "parallel" not in str(exc):
                    raise
                serial = source(False)
                rows, src = _rows(con.sql(query.replace(src, serial))), serial
                return rows
        except duckdb.Error as exc:
            raise _duck_error(exc, what, opts) from None

    classes = _survey(fetch, sql, opts, src, what, _where(files))
    return con.sql(_typed_sql(sql, opts["header"], classes, opts["decimal"], src))


def _n_fields(text: str, sep: str) -> int:
    try:
        return max((len(r) for r in csv.reader(StringIO(text), delimiter=sep)), default=0)
    except csv.Error:
        return 0


def _rows(rel) -> list:
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]


def _duck_error(exc, what: str, opts: dict) -> InvalidParameterError:
    msg = str(exc).split("\n")
    head = " ".join(m.strip() for m in msg[:4] if m.strip() and not m.startswith("Possible"))
    head = head.replace("Invalid Input Error: ", "")
    where = re.search(r"file = (.+?)(?:\n|$)", str(exc))
    if where and len(opts.get("header", ())) and "files" in what:
        head = f"{where.group(1).strip()}: {head}"
    advice = ""
    if "unicode" in str(exc).lower() or "encod" in str(exc).lower():
        advice = (" Give the files' encoding: --encoding latin-1 on the command line, pysdc.scan(..., "
                  "encoding='latin-1') in Python; or convert them to UTF-8.")
    elif "Expected Number of Columns" in str(exc):
        advice = (" A record has more fields than the header; pysdc does not drop or shift fields. Fix the line, "
                  "e.g. quote a field that holds the separator, or give the separator (--sep).")
    return InvalidParameterError(f"cannot read {what} as CSV: {head}.{advice}")


# =============================================================================
# Spark


def spark_csv(spark, files: list, opts: dict):
    """The typed Spark DataFrame of CSV ``files`` (``opts`` from :func:`csv_options`; None: its defaults)."""
    opts = opts or csv_options(files)
    from pyspark.sql.types import StringType, StructField, StructType

    sql = _Sql("spark")
    header = opts["header"]
    schema = StructType([StructField(n, StringType(), True) for n in header] +
                        [StructField("pysdc_corrupt", StringType(), True)])
    enc = _SPARK_ENCODINGS.get(opts["encoding"])
    if enc is None:
        raise InvalidParameterError(
            f"Spark's CSV reader cannot decode {opts['encoding']!r} (it reads UTF-8, UTF-16, UTF-32, latin-1 and "
            "ASCII); use --engine pandas (read_table), or convert the files to UTF-8 first (iconv -f cp1252 -t utf-8).")
    reader = (spark.read.schema(schema)
              .option("header", True).option("enforceSchema", True).option("sep", opts["sep"])
              .option("quote", '"').option("escape", '"').option("encoding", enc).option("multiLine", True)
              .option("nullValue", "\x01pysdc-no-null\x01").option("emptyValue", "")
              .option("ignoreLeadingWhiteSpace", False).option("ignoreTrailingWhiteSpace", False)
              .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", "pysdc_corrupt")
              .option("unescapedQuoteHandling", "STOP_AT_DELIMITER"))
    raw = reader.csv([os.fspath(f) for f in files])
    view = f"pysdc_csv_{os.getpid()}_{id(raw)}"
    nas = opts["na_values"]
    cols = []
    for n in header:
        c = sql.q(n)
        # every null Spark gives is an empty unquoted field (its nullValue is text no file holds) or a field
        # padded to a short record; pandas reads both as ""
        v = f"coalesce({c}, '')"
        cols.append(f"CASE WHEN {v} IN ({', '.join(sql.lit(x) for x in nas)}) THEN NULL ELSE {v} END AS {c}"
                    if nas else f"{v} AS {c}")
    raw.createOrReplaceTempView(view)
    what = _what(files)
    # a record of another length than the header's is "corrupt" to Spark: a short one is padded (as by
    # pandas), a long one fills every column and is refused
    # (candidates: more pieces between separators than the header has fields; the first few are split by
    # Python's csv module, which honours the quotes)
    sep_rx = "[" + ("\\t" if opts["sep"] == "\t" else "\\" + opts["sep"]) + "]"
    # (a column beside the corrupt record's: Spark refuses queries of that column alone)
    candidates = spark.sql(f"SELECT pysdc_corrupt, {sql.q(header[0])} FROM {view} WHERE pysdc_corrupt IS NOT NULL AND "
                           f"size(split(pysdc_corrupt, {sql.lit(sep_rx)})) > {len(header)} LIMIT 1000").collect()
    longer = [r[0] for r in candidates if _n_fields(r[0], opts["sep"]) > len(header)]
    if longer:
        line = longer[0]
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise InvalidParameterError(
            f"cannot read {what} as CSV: a record does not have the header's {len(header)} fields ({shown!r}). "
            "pysdc does not drop or shift fields; fix the line, e.g. quote a field that holds the separator, or "
            "give the separator (--sep).")
    # projections of the file's DataFrame (not of a view), so that Spark's _metadata (the file of a
    # record, which gives its position) stays reachable
    clean = raw.selectExpr(*cols)
    view2 = view + "_na"
    clean.createOrReplaceTempView(view2)

    def fetch(query: str) -> list:
        return [r.asDict() for r in spark.sql(query).collect()]

    classes = _survey(fetch, sql, opts, view2, what, _where(files))
    return clean.selectExpr(*_typed_exprs(sql, header, classes, opts["decimal"]))
