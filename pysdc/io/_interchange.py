"""Data frames of other libraries in place of a pandas DataFrame: Polars, PyArrow, the Arrow PyCapsule interface.

Every measure, :class:`pysdc.SdcProblem` and the :mod:`pysdc.r` bridge take, wherever they take a
pandas DataFrame,

* a Polars ``DataFrame`` or ``LazyFrame`` (collected first),
* a PyArrow ``Table``, ``RecordBatch`` or ``RecordBatchReader``,
* any object with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (the Arrow PyCapsule interface:
  nanoarrow, Ibis, Daft, ... tables).

They are converted to pandas here, once, the way pysdc reads a Parquet file (``pd.read_parquet``:
pyarrow's ``Table.to_pandas`` with its default types), so a Parquet file and its Arrow table give the
same numbers:

=======================================  =============================================================
Arrow type                               pandas dtype (R class)
=======================================  =============================================================
dictionary (Polars ``Categorical``)      ``category`` (factor); ``ordered`` kept (ordered factor)
dictionary, ordered (Polars ``Enum``)    ordered ``category`` (ordered factor), the levels in order
string / large_string / string_view      ``str`` (character)
int*/uint* without nulls                 ``int*`` (integer)
int*/uint* with nulls                    ``float64`` (numeric), as pyarrow and ``pd.read_parquet``
float*                                   ``float*``; null -> NaN (numeric)
bool                                     ``bool``; with nulls ``object`` (as ``pd.read_parquet``)
=======================================  =============================================================

A table made from a pandas DataFrame (``pa.Table.from_pandas``) carries pandas' metadata and comes
back with its dtypes (``Int64``, ``boolean``, ordered categoricals with unused levels ...); the row
index is dropped as by pysdc's Parquet reader (records are matched by position). Numeric columns
without nulls are not copied (``split_blocks``). A DuckDB relation, a Spark DataFrame and
:func:`pysdc.scan` also expose ``__arrow_c_stream__`` (or are tables) but are not converted: the
measures run on their engine (:mod:`pysdc.engine`); they are recognised first.

Neither Polars nor PyArrow is imported unless such an object is met (the type's module name is
looked at first, as the engines do).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError

__all__ = ["interchange_kind", "is_interchange", "to_pandas", "as_frame"]

_ARROW_TABLES = ("Table", "RecordBatch", "RecordBatchReader")


def _engine_table(mod: str, name: str) -> bool:
    """A DuckDB relation or a Spark DataFrame, by its type's module and name (the rule of
    :func:`pysdc.engine._tables.engine_kind`; io sits below the engines and does not import them)."""
    return (mod.startswith("duckdb") and name == "DuckDBPyRelation") or (mod.startswith("pyspark") and name == "DataFrame")


def interchange_kind(obj) -> str | None:
    """``"polars"``, ``"polars-lazy"``, ``"arrow"``, ``"capsule"``, ``"not-a-table"`` or None.

    ``"not-a-table"``: a Polars Series, a PyArrow array or another one-column Arrow object (refused
    by :func:`to_pandas` with a message). None: pandas and NumPy objects, plain values, engines'
    tables (DuckDB, Spark, :func:`pysdc.scan`), SDC problems -- everything handled elsewhere.
    """
    if obj is None or isinstance(obj, (pd.DataFrame, pd.Series, pd.Index, np.ndarray, str, bytes, int, float,
                                       list, tuple, dict)):
        return None
    cls = type(obj)
    mod = cls.__module__ or ""
    if mod.split(".")[0] in ("pandas", "numpy", "pysdc"):
        return None
    name = cls.__name__
    if _engine_table(mod, name):  # a DuckDB relation has __arrow_c_stream__ too: it runs on DuckDB
        return None
    top = mod.split(".")[0]
    if top == "polars":
        if name == "DataFrame":
            return "polars"
        if name == "LazyFrame":
            return "polars-lazy"
        return "not-a-table" if name == "Series" else None
    if top == "pyarrow":
        if name in _ARROW_TABLES:
            return "arrow"
        return "not-a-table" if hasattr(cls, "__arrow_c_stream__") or hasattr(cls, "__arrow_c_array__") else None
    if hasattr(cls, "__arrow_c_stream__") or hasattr(cls, "__arrow_c_array__"):
        return "capsule"
    return None


def is_interchange(obj) -> bool:
    """Whether ``obj`` is a table that :func:`to_pandas` converts (or refuses with a message)."""
    return interchange_kind(obj) is not None


def _pyarrow(name: str, what: str):
    try:
        import pyarrow as pa
    except ImportError:
        raise InvalidParameterError(
            f"{name}: reading a {what} needs pyarrow, which is not installed; install it with: "
            "pip install pysdc-measures[parquet]"
        ) from None
    return pa


def _arrow_table(name: str, obj, kind: str):
    """``obj`` as a ``pyarrow.Table`` (no copy where Arrow allows)."""
    what = type(obj).__name__
    if kind == "not-a-table":
        raise InvalidParameterError(
            f"{name} must be a table (a pandas or Polars DataFrame, a PyArrow Table ...); got a {what} "
            f"({type(obj).__module__}), one column. Make a table of it, e.g. series.to_frame()."
        )
    pa = _pyarrow(name, what)
    try:
        if kind == "polars-lazy":
            obj = obj.collect()
            kind = "polars"
        if kind == "polars":
            return obj.to_arrow()  # zero-copy for the numeric columns
        if isinstance(obj, pa.Table):
            return obj
        return pa.table(obj)  # RecordBatch, RecordBatchReader, __arrow_c_stream__ / __arrow_c_array__
    except InvalidParameterError:
        raise
    except Exception as exc:  # noqa: BLE001 - the library's own error, named
        raise InvalidParameterError(
            f"{name}: cannot read the {what} as an Arrow table (pyarrow {pa.__version__}): "
            f"{type(exc).__name__}: {exc}"
        ) from None


def to_pandas(name: str, obj) -> pd.DataFrame:
    """A Polars / Arrow table as the pandas DataFrame pysdc's Parquet reader would make of it.

    ``name`` names the argument in messages. Raises :class:`~pysdc.InvalidParameterError` for what
    cannot be read (a one-column object, a failing stream, an Arrow type pandas cannot hold).
    """
    kind = interchange_kind(obj)
    if kind is None:  # pragma: no cover - callers check first
        raise InvalidParameterError(f"{name}: a {type(obj).__name__} is not an Arrow or Polars table.")
    table = _arrow_table(name, obj, kind)
    names = list(table.column_names)
    if len(set(names)) != len(names):
        dup = sorted({c for c in names if names.count(c) > 1})
        raise InvalidParameterError(f"{name} has duplicated column names {dup}; give every column a unique name.")
    try:
        # pd.read_parquet's conversion (pandas 3 with pyarrow >= 19: the default types, text as str),
        # with split blocks so that the columns without nulls are views of the Arrow buffers
        df = table.to_pandas(split_blocks=True)
    except Exception as exc:  # noqa: BLE001 - e.g. an Arrow extension type pandas cannot hold
        raise InvalidParameterError(
            f"{name}: cannot convert the {type(obj).__name__} to pandas: {type(exc).__name__}: {exc}"
        ) from None
    return df.reset_index(drop=True)  # as pysdc's Parquet reader: records match by position


def as_frame(name: str, obj):
    """``obj`` converted by :func:`to_pandas` if it is a Polars / Arrow table, else ``obj`` unchanged."""
    if is_interchange(obj):
        return to_pandas(name, obj)
    return obj
