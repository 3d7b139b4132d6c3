"""The schema sidecar of a table (``<stem>.schema.json``, format ``pysdc-table-1``): made from a DataFrame,
read and checked, written as text; how a schema entry is read (see :mod:`pysdc.io`)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._types import r_class
from ._values import _DTYPES, _FLOATS, _INT32_MAX, _INTS, _NULLABLE_INTS, _format_values

__all__ = ["SCHEMA_FORMAT", "table_schema", "read_schema", "effective_entry"]

SCHEMA_FORMAT = "pysdc-table-1"
_R_CLASSES = ("numeric", "integer", "logical", "character", "factor", "ordered")
_LEVELS_DTYPES = ("object", "str", "string", "bool", "boolean") + _INTS + _NULLABLE_INTS + _FLOATS
_SCHEMA_MAX_BYTES = 64 * 2**20


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


def _schema_text(sch: dict) -> str:
    """One column per line: readable, diff-friendly, deterministic."""
    cols = ",\n  ".join(json.dumps(c, ensure_ascii=False) for c in sch["columns"])
    body = f"\n  {cols}\n " if cols else ""
    return f'{{"format": {json.dumps(sch.get("format", SCHEMA_FORMAT))},\n "columns": [{body}]}}\n'


def effective_entry(entry: dict, text_columns) -> dict:
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
