"""Tables of an engine: a DuckDB relation, a Spark DataFrame or a lazy scan of files, behind one interface.

The measures (:mod:`pysdc.engine._risk`, :mod:`pysdc.engine._utility` and its siblings) write their reductions as SQL
over a table named ``pysdc_src`` in the subset of SQL that DuckDB and Spark SQL share; a backend
runs them on its engine and brings back the (small) result as pandas. Neither DuckDB nor PySpark
is imported before one of their objects (or a scan) is met.
"""

from __future__ import annotations

import contextlib
import glob as _glob
import itertools
import os
import urllib.parse
import warnings

import pandas as pd

from .._errors import InvalidParameterError
from ..io import atomic_output, check_output
from ._csv import csv_options, duckdb_csv, spark_csv
from ._errors import engine_errors

__all__ = ["Scan", "scan", "EngineTable", "as_table", "engine_kind", "SRC"]

#: the name every reduction's SQL gives the table it runs on
SRC = "pysdc_src"
#: record column of the per-record tables: the 1-based record number in the input (as in R and the reports)
POSITION = "record"
#: Spark: a per-combination result table of at most this many rows is broadcast to the join with the
#: records (unless the session disables broadcast joins, autoBroadcastJoinThreshold = -1)
BROADCAST_MAX_COMBINATIONS = 1_000_000

#: rows per record batch (and Parquet row group) of a per-record table written from DuckDB: Python holds
#: one batch at a time (~10 MB for the five columns of ``pysdc risk --records``)
WRITE_BATCH_ROWS = 1 << 18

_counter = itertools.count()


def _unique(prefix: str) -> str:
    return f"pysdc_{prefix}_{os.getpid()}_{next(_counter)}"


def engine_kind(obj) -> str | None:
    """``"duckdb"``, ``"spark"``, ``"scan"`` or None, recognised without importing either engine."""
    if isinstance(obj, Scan):
        return "scan"
    mod = type(obj).__module__ or ""
    name = type(obj).__name__
    if mod.startswith("duckdb") and name == "DuckDBPyRelation":
        return "duckdb"
    if mod.startswith("pyspark") and name == "DataFrame":
        return "spark"
    return None


@contextlib.contextmanager
def _spark_pandas():
    """Around pysdc's own pandas <-> Spark conversions (toPandas, createDataFrame of a pandas frame) and the
    start of its local session:
    pyspark's FutureWarning that it does not fully support pandas >= 3 (raised in pyspark's modules at
    each conversion) is not the user's concern and would reach the result's list of warnings; only that
    category from pyspark's modules is dropped, pysdc's own warnings pass as they are."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark(\.|$)")
        yield


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _quote_spark(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


# =============================================================================
# the public lazy dataset


class Scan:
    """A lazy dataset over Parquet or CSV files (see :func:`pysdc.scan`); nothing is read until a measure runs.

    Attributes
    ----------
    source : list of str, or an engine's table
        The files (expanded from a file, a directory or a glob), or the DuckDB relation / Spark
        DataFrame that was wrapped.
    format : {"parquet", "csv"} or None
        The files' format (None for a wrapped table).
    engine : {"duckdb", "spark"}
        The engine the measures run on.
    id : str or None
        A column identifying records in the per-record results (default: the record's position).
    """

    def __init__(self, source, *, format=None, engine="duckdb", id=None, memory_limit=None, threads=None,
                 temp_directory=None, spark=None):
        self.source = source
        self.format = format
        self.engine = engine
        self.id = id
        self.memory_limit = memory_limit
        self.threads = threads
        self.temp_directory = temp_directory
        self.spark = spark
        self.csv = None  # CSV files: the reading options (pysdc.engine._csv.csv_options)
        self._table = None

    def __repr__(self) -> str:
        if isinstance(self.source, list):
            shown = self.source[0] if len(self.source) == 1 else f"{len(self.source)} {self.format} files"
        else:
            shown = f"a {type(self.source).__name__}"
        extra = f", id={self.id!r}" if self.id else ""
        return f"pysdc.scan({shown!r}, engine={self.engine!r}{extra})"

    # --------------------------------------------------------------- the engine's table
    def table(self) -> _Backend:
        """The backend table (opened once)."""
        if self._table is None:
            with engine_errors(memory_limit=self.memory_limit,
                               paths=self.source if isinstance(self.source, list) else None):
                self._table = _open(self)
        return self._table

    @property
    def columns(self) -> list:
        return list(self.table().columns)

    def count(self) -> int:
        """Number of records."""
        return self.table().count()

    def relation(self):
        """The DuckDB relation (or Spark DataFrame) the scan reads."""
        return self.table().native


def _expand(path) -> tuple[list[str], str]:
    """Files of a path (file, directory, glob or list of files) and their format."""
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    files: list[str] = []
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            found = sorted(f for f in _glob.glob(os.path.join(p, "**", "*"), recursive=True)
                           if os.path.isfile(f) and _format_of(f) is not None)
            if not found:
                raise InvalidParameterError(f"directory {p!r} holds no .parquet or .csv file.")
            files += found
        elif any(ch in p for ch in "*?["):
            found = sorted(f for f in _glob.glob(p, recursive=True) if os.path.isfile(f))
            if not found:
                raise InvalidParameterError(f"the pattern {p!r} matches no file.")
            files += found
        else:
            if not os.path.isfile(p):
                raise FileNotFoundError(f"data file {p!r} does not exist")
            files.append(p)
    formats = {_format_of(f) for f in files}
    if None in formats:
        bad = [f for f in files if _format_of(f) is None][:3]
        raise InvalidParameterError(f"cannot scan {bad}: pysdc.scan reads .parquet and .csv (.csv.gz) files.")
    if len(formats) > 1:
        raise InvalidParameterError(f"the files mix formats {sorted(formats)}; scan one format at a time.")
    return files, formats.pop()


def _format_of(path: str) -> str | None:
    name = path.lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".csv", ".csv.gz", ".tsv", ".txt")):
        return "csv"
    return None


def scan(source, *, id: str | None = None, engine: str = "duckdb", memory_limit: str | None = None,
         threads: int | None = None, temp_directory: str | None = None, spark=None, na_values=("NA",),
         text_columns=(), sep: str | None = None, decimal: str | None = None, encoding: str | None = None,
         schema=None) -> Scan:
    """A lazy dataset over Parquet or CSV files (or an engine's table) that pysdc's measures run on.

    The measures that depend on the data only through key-combination counts, weight sums and
    column moments (:func:`pysdc.measure_risk`, :func:`pysdc.freq_calc`, :func:`pysdc.indiv_risk`,
    :func:`pysdc.k_anon_violations`, :func:`pysdc.d_utility` with IL1, IL1s and eigen,
    :func:`pysdc.il_correl`, :func:`pysdc.il_variables`) take the scan in place of a DataFrame and
    run on DuckDB (out of core) or Spark; the numbers equal the pandas path's.

    Parameters
    ----------
    source : str, path, list of paths, DuckDB relation or Spark DataFrame
        A Parquet or CSV file, a directory of them (read recursively, in sorted order), a glob
        such as ``"register/part-*.parquet"``, a list of files; or a DuckDB relation / Spark
        DataFrame to attach ``id`` to.
    id : str, optional
        Column identifying records in the per-record results (``individual``) and pairing x with
        xm; default: the record's 0-based position in the files taken in sorted order (DuckDB, and
        Spark reading files), or every input column (a Spark DataFrame, which has no positions).
    engine : {"duckdb", "spark"}, default "duckdb"
        The engine for files. Spark reads the files through the active SparkSession (or ``spark``).
    memory_limit : str, optional
        DuckDB's memory limit, e.g. ``"3GB"`` (default: DuckDB's, 80% of RAM); beyond it DuckDB
        spills to ``temp_directory``. With a limit, :func:`pysdc.measure_risk` keeps its table of key
        combinations in DuckDB too (its result's ``combinations`` is then the engine's lazy table), so
        that the limit holds for pysdc's part as well (a warning says when a key's type needs them in
        Python).
    threads : int, optional
        DuckDB's number of threads (default: all cores).
    temp_directory : str, optional
        Where DuckDB spills (default: DuckDB's ``.tmp`` next to the working directory).
    spark : pyspark.sql.SparkSession, optional
        The session for ``engine="spark"`` (default: the active one, else a local one).
    na_values, text_columns, sep, decimal, encoding, schema
        How CSV files are read: as by :func:`pysdc.read_table` (the same defaults and detection, the
        options of :func:`pysdc.io.csv_dialect` included; ``schema``: default the first file's sidecar).

    Returns
    -------
    Scan
        The lazy dataset; ``.columns``, ``.count()`` and ``.relation()`` open it.

    See Also
    --------
    pysdc.measure_risk, pysdc.d_utility

    Notes
    -----
    Nothing is read when the scan is made. CSV files are read as :func:`pysdc.read_table` reads
    them (R's ``read.csv``), whatever the engine and however many files: every field as text with
    the same dialect and NA strings, then each column typed by the pandas path's rules over all
    values of all files (:mod:`pysdc.engine._csv`); an encoding the engine cannot decode is
    refused. A key stored as text is a category for :func:`pysdc.measure_risk` and parsed as a
    number by :func:`pysdc.freq_calc`, as in sdcMicro. ``robeigen`` and ``suda2`` need all records
    in memory and refuse a scan.

    Examples
    --------
    >>> import pysdc
    >>> data = pysdc.scan("register/*.parquet")                      # doctest: +SKIP
    >>> res = pysdc.measure_risk(data, ["region", "sex", "age"], w="weight", hid="hh")  # doctest: +SKIP
    >>> res.individual.to_parquet("risk.parquet")                   # doctest: +SKIP
    """
    if engine not in ("duckdb", "spark"):
        raise InvalidParameterError(f"engine must be one of 'duckdb', 'spark'; got {engine!r}.")
    kind = engine_kind(source)
    if kind == "scan":
        source = source.source
        kind = engine_kind(source)
    if kind in ("duckdb", "spark"):
        s = Scan(source, engine=kind, id=id, spark=spark)
    else:
        files, fmt = _expand(source)
        s = Scan(files, format=fmt, engine=engine, id=id, memory_limit=memory_limit, threads=threads,
                 temp_directory=temp_directory, spark=spark)
        if fmt == "csv":  # read as read_table reads them (pysdc.engine._csv)
            s.csv = csv_options(files, na_values=na_values, text_columns=text_columns, sep=sep, decimal=decimal,
                                encoding=encoding, schema=schema)
    if id is not None and id not in s.columns:
        raise InvalidParameterError(f"id names column {id!r} that the data does not have; columns: {s.columns[:20]}.")
    return s


#: DuckDB connections of the scans, by their settings
_CONNECTIONS: dict = {}


def _open(s: Scan) -> _Backend:
    table = _open_source(s)
    if isinstance(s.source, list):
        table.sources = list(s.source)  # outputs never go over these (pysdc.io)
    return table


def _open_source(s: Scan) -> _Backend:
    if not isinstance(s.source, list):
        return (DuckTable if s.engine == "duckdb" else SparkTable)(s.source, id=s.id)
    if s.engine == "duckdb":
        import duckdb

        config = {}
        if s.memory_limit:
            config["memory_limit"] = str(s.memory_limit)
        if s.threads:
            config["threads"] = int(s.threads)
        if s.temp_directory:
            config["temp_directory"] = str(s.temp_directory)
        key = tuple(sorted(config.items()))
        con = _CONNECTIONS.get(key)
        if con is None:  # scans with the same settings share a connection, so that they can be joined
            con = _CONNECTIONS[key] = duckdb.connect(config=config)
            # pysdc reports its own progress on stderr (pysdc._progress): DuckDB tracks a query's progress for
            # query_progress() but prints nothing
            con.execute("SET enable_progress_bar = true")
            con.execute("SET enable_progress_bar_print = false")
        if s.format == "parquet":
            return DuckTable(con.sql(f"SELECT * FROM {_read_parquet(s.source)}"), id=s.id, con=con, files=s.source)
        return DuckTable(duckdb_csv(con, s.source, s.csv), id=s.id, con=con)
    spark = s.spark or _spark_session()
    reader = spark.read
    if s.format == "parquet":
        df = reader.parquet(*s.source)
    else:
        df = spark_csv(spark, s.source, s.csv)
    return SparkTable(df, id=s.id, files=s.source, format=s.format)


def _read_parquet(files: list) -> str:
    """DuckDB's read of Parquet ``files`` in SQL, NaN-safe: without ``can_have_nan`` DuckDB trusts a file's
    min/max statistics to mean "no NaN" (Parquet writers leave NaN out of them), and then folds
    ``isnan(x)`` to false and loses NaN values (DuckDB issue #25521)."""
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    return f"read_parquet({listed}, can_have_nan = true)"


def _spark_session():
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InvalidParameterError(
            "engine='spark' needs PySpark: pip install 'pysdc-measures[spark]' (and Java 17, e.g. Debian's "
            "openjdk-17-jre-headless)."
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    with _spark_pandas():  # starting the context imports pyspark.testing, which raises the same notice
        return SparkSession.builder.master("local[*]").appName("pysdc").getOrCreate()


def as_table(obj) -> _Backend:
    kind = engine_kind(obj)
    if kind == "scan":
        return obj.table()
    if kind == "duckdb":
        return DuckTable(obj)
    if kind == "spark":
        return SparkTable(obj)
    raise InvalidParameterError(f"not an engine's table: {type(obj).__name__}.")


# =============================================================================
# the per-record result


class EngineTable:
    """A per-record result in the engine's own form (a lazy DuckDB relation or Spark DataFrame).

    Nothing is computed until it is written or collected: ``to_parquet(path)`` writes it (a
    file with DuckDB, a directory of part files with Spark), ``to_pandas()`` collects it in
    record order (only for data that fit in memory), ``native`` is the relation / DataFrame.
    """

    def __init__(self, native, kind: str, order: str | None, columns: list, repeated=(), inputs=()):
        self.native = native
        self.kind = kind
        self.order = order
        self.columns = list(columns)
        self.repeated = [c for c in repeated if c in self.columns]  # one value per key combination
        self.inputs = list(inputs)  # the files it is computed from (never written over)

    def __repr__(self) -> str:
        return f"<EngineTable ({self.kind}) columns={self.columns}>"

    def to_parquet(self, path) -> str:
        """Write the table to ``path`` (a Parquet file; a directory of part files with Spark), complete or not
        at all (:mod:`pysdc.io`); an input of the table is refused (InvalidParameterError)."""
        path = os.fspath(path)
        check_output(path, self.inputs, what="path", directory_ok=self.kind == "spark")
        with atomic_output(path) as tmp:
            self.write_to(tmp)
        return path

    def write_to(self, path) -> None:
        """Write the Parquet file (Spark: directory) at ``path`` as it is, no checks: the writer under
        :func:`pysdc.io.atomic_output`."""
        path = os.fspath(path)
        if self.kind == "duckdb":
            # streamed record batches through pyarrow (DuckDB's own writer would rename "Fk" beside "fk")
            import pyarrow.parquet as pq

            f = getattr(self.native, "to_arrow_reader", None) or self.native.fetch_record_batch
            reader = f(WRITE_BATCH_ROWS)
            # dictionary pages where values repeat per key combination; positions and household risks are
            # (nearly) distinct, where a dictionary only costs time
            with pq.ParquetWriter(path, reader.schema, use_dictionary=self.repeated) as writer:
                for batch in reader:
                    writer.write_batch(batch)
        else:
            with _case_sensitive(self.native.sparkSession):
                self.native.write.mode("overwrite").parquet(path)

    def to_pandas(self) -> pd.DataFrame:
        if self.kind == "duckdb":
            # (no ORDER BY in DuckDB: a query over the relation would rename "Fk" beside "fk")
            df = _arrow(self.native).to_pandas()
        else:
            with _spark_pandas():
                df = self.native.toPandas()
        if self.order:
            df = df.sort_values(self.order, kind="stable")
        return df.reset_index(drop=True)

    def __len__(self) -> int:
        if self.kind == "duckdb":
            return int(self.native.aggregate("count(*)").fetchall()[0][0])
        return int(self.native.count())


@contextlib.contextmanager
def _case_sensitive(spark):
    """Spark compares column names case-insensitively and refuses "fk" beside "Fk" (sdcMicro's names):
    case-sensitive within the block only."""
    conf = spark.conf
    before = conf.get("spark.sql.caseSensitive", "false")
    conf.set("spark.sql.caseSensitive", "true")
    try:
        yield
    finally:
        conf.set("spark.sql.caseSensitive", before)


# =============================================================================
# backends


def _arrow(rel):
    """A DuckDB relation's result as a pyarrow Table (exact types and names)."""
    f = getattr(rel, "to_arrow_table", None) or rel.fetch_arrow_table
    return f()


class _Backend:
    kind = ""
    native = None
    id: str | None = None

    def q(self, name) -> str:  # quote an identifier
        raise NotImplementedError

    def fsum(self) -> str:  # the most accurate sum of doubles
        return "sum"

    def households(self, records_sql: str, res=None) -> str:
        """The households of the records of ``records_sql`` (columns ``pysdc_h``, the household id, and
        ``pysdc_risk``) as a relation to select from: ``pysdc_h``, ``pysdc_m`` (members) and ``pysdc_hr``
        (``1 - product(1 - risk)``); records with a missing id are left out."""
        return (f"(SELECT pysdc_h, count(*) AS pysdc_m, 1 - product(1 - pysdc_risk) AS pysdc_hr FROM ({records_sql}) "
                "WHERE pysdc_h IS NOT NULL GROUP BY pysdc_h)")

    def has_positions(self) -> bool:
        """Whether records have positions (else a per-record table carries every input column)."""
        return True

    def window_product(self, expr: str, partition: str) -> str | None:
        """The product of ``expr`` over the rows of the same ``partition`` as a window, or None where the
        engine has no product window (then a group-by joined back)."""
        return None

    def is_numeric(self, col) -> bool:
        return self.rclass(col) in ("numeric", "integer", "logical")

    def num(self, col, alias: str = "") -> str:
        """The column as a double with NaN made NULL (pandas' missing); ``alias``: a table prefix like ``"s."``."""
        c = alias + self.q(col)
        cls = self.rclass(col)
        if cls in ("logical", "integer"):
            return f"CAST({c} AS DOUBLE)"
        if cls == "character":
            return f"TRY_CAST({c} AS DOUBLE)"
        return f"(CASE WHEN isnan(CAST({c} AS DOUBLE)) THEN NULL ELSE CAST({c} AS DOUBLE) END)"


class DuckTable(_Backend):
    kind = "duckdb"

    def __init__(self, rel, *, id=None, con=None, files=None):
        self.native = rel
        self.id = id
        self.con = con  # kept alive with the relations made from it
        self.files = files  # the Parquet files the relation reads (positions come from their row numbers)
        self._starts = None
        self.columns = list(rel.columns)
        self.types = {c: str(t) for c, t in zip(rel.columns, rel.types)}

    def q(self, name) -> str:
        return _quote(name)

    def fsum(self) -> str:
        return "fsum"

    def window_product(self, expr: str, partition: str) -> str | None:
        return f"product({expr}) OVER (PARTITION BY {partition})"

    def rclass(self, col) -> str:
        t = self.types[col].upper()
        if t.startswith(("DOUBLE", "FLOAT", "REAL", "DECIMAL")):
            return "numeric"
        if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT", "UHUGEINT"):
            return "integer"
        if t == "BOOLEAN":
            return "logical"
        if t.startswith("ENUM"):
            return "factor"
        if t.startswith(("TIMESTAMP", "DATE")):
            return "POSIXct"
        return "character"

    def count(self) -> int:
        return int(self.native.aggregate("count(*)").fetchall()[0][0])

    def query(self, sql: str, res=None, hh=None):
        """A lazy relation of ``sql`` over the table ``pysdc_src`` (``pysdc_res``, ``pysdc_hh``: pandas/arrow
        tables the SQL may join, found by DuckDB's replacement scan of this frame's locals)."""
        pysdc_res = res  # noqa: F841 - read by DuckDB's replacement scan
        pysdc_hh = hh  # noqa: F841
        return self.native.query(SRC, sql)

    def fetch(self, sql: str, res=None) -> pd.DataFrame:
        return self.query(sql, res=res).df()

    def fetch_arrow(self, sql: str):
        return _arrow(self.query(sql))

    def combos(self, keys: list, aggs: list[str]):
        """The group-by of the records on ``keys`` with the aggregates ``aggs``: (pandas, handle)."""
        ks = ", ".join(self.q(k) for k in keys)
        arrow = self.fetch_arrow(f"SELECT {ks}, {', '.join(aggs)} FROM {SRC} GROUP BY {ks}")
        return arrow.to_pandas(), arrow

    def attach(self, handle, results: dict):
        """The combination table (raw key values, exactly as grouped) with result columns appended."""
        import pyarrow as pa

        out = handle
        for name, values in results.items():
            out = out.append_column(name, pa.array(values))
        return out

    def row(self, sql: str, res=None) -> tuple:
        return self.query(sql, res=res).fetchall()[0]

    def with_position(self) -> str:
        """A SELECT of the records with their 0-based position (or the id) in front.

        For Parquet files the position is the file's first position plus the row's number in its
        file (parallel, no window over the whole table); otherwise a ``row_number()`` window."""
        if self.id is not None:
            return f"SELECT * FROM {SRC}"
        if self.files and not {"file_index", "file_row_number"} & {c.lower() for c in self.columns}:
            source = _read_parquet(self.files)
            if self._starts is None:  # each file's first position (counted once per table)
                got = dict(self.con.execute(f"SELECT file_index, count(*) FROM {source} GROUP BY file_index").fetchall())
                self._starts = [0, *itertools.accumulate(int(got.get(i, 0)) for i in range(len(self.files)))][:-1]
            return (f"SELECT list_extract({self._starts}::BIGINT[], (file_index + 1)::INTEGER) + file_row_number "
                    f"AS pysdc_position, * FROM {source}")
        return f"SELECT row_number() OVER () - 1 AS pysdc_position, * FROM {SRC}"

    def written_sum(self, path: str, col: str) -> tuple:
        """(sum of the non-NaN values, number of NaN) of column ``col`` of a Parquet file written here."""
        import duckdb

        con = self.con or duckdb.connect()
        c = self.q(col)
        return con.execute(f"SELECT {self.fsum()}({c}) FILTER (WHERE NOT isnan({c})), count(*) FILTER "
                           f"(WHERE isnan({c})) FROM {_read_parquet([os.fspath(path)])}").fetchall()[0]

    def record_id(self, alias: str = "s.") -> list[str]:
        if self.id:
            return [f"{alias}{self.q(self.id)} AS {self.q(self.id)}"]
        return [f"{alias}pysdc_position + 1 AS {POSITION}"]

    def table(self, native, columns, order, repeated=()) -> EngineTable:
        return EngineTable(native, "duckdb", order, columns, repeated, inputs=getattr(self, "sources", ()))


class SparkTable(_Backend):
    kind = "spark"

    def __init__(self, df, *, id=None, files=None, format=None):
        self.raw = df  # as given (a file's hidden _metadata column resolves on it)
        self.void = [f.name for f in df.schema.fields if f.dataType.simpleString() == "void"]
        if self.void:
            df = df.select(*self._cast_void(df))
        self.native = df
        self.id = id
        self.columns = list(df.columns)
        self.types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
        self.spark = df.sparkSession
        self.files = files  # the files the DataFrame reads (pysdc.scan): positions from the files' rows
        self.format = format
        self._positioned = None

    def _cast_void(self, df) -> list:
        """The columns of ``df`` with each column of Spark's type void (NullType: no value at all, e.g. a
        pandas column of None made a Spark DataFrame) cast to boolean, R's type of a vector of NA and the
        type pysdc's CSV reader gives an all-missing column. Spark's null-safe equi-join compares a void key
        by ``coalesce(key, NULL)`` and matches no row, so the per-record join of measure_risk & co. lost
        every record; a boolean NULL joins as a missing value."""
        from pyspark.sql import functions as F

        return [F.col(self.q(c)).cast("boolean").alias(c) if c in self.void else F.col(self.q(c))
                for c in df.columns]

    def positioned(self):
        """The records with their 0-based position ``pysdc_position`` in front: the rows of the files in
        sorted order, as DuckDB and pandas number them (Spark orders its partitions by file size, so
        the DataFrame's own order is not the files'). None for a DataFrame not read by pysdc.scan."""
        if not self.has_positions():
            return None
        if self._positioned is None:
            from pyspark.sql import Window
            from pyspark.sql import functions as F

            df = self.raw.select("*", F.col("_metadata.file_path").alias("pysdc_file"))
            counts = {os.path.abspath(urllib.parse.unquote(urllib.parse.urlparse(f).path)): (f, int(c))
                      for f, c in df.groupBy("pysdc_file").count().collect()}
            starts, at = {}, 0
            for f in self.files:
                uri, c = counts.get(os.path.abspath(f), (None, 0))
                if uri is not None:
                    starts[uri] = at
                at += c
            start = F.create_map(*[F.lit(v) for kv in starts.items() for v in kv])[F.col("pysdc_file")]
            if self.format == "parquet":  # the row's number in its file
                row = F.col("_metadata.row_index")
            else:  # CSV: the order within a file is the DataFrame's (a file's splits keep their order)
                order = Window.partitionBy("pysdc_file").orderBy(F.monotonically_increasing_id())
                row = F.row_number().over(order) - 1
            cols = self._cast_void(self.raw) if self.void else [F.col(self.q(c)) for c in self.columns]
            self._positioned = df.select((start + row).cast("long").alias("pysdc_position"), *cols)
        return self._positioned

    def q(self, name) -> str:
        return _quote_spark(name)

    def households(self, records_sql: str, res=None) -> str:
        # Spark SQL has no product aggregate, its DataFrame API has one (a hash aggregate; folding a
        # collect_list in SQL costs a third more): the households as a DataFrame, selected from as a view
        from pyspark.sql import functions as F

        j = self.query(records_sql, res=res)
        h = (j.where(F.col("pysdc_h").isNotNull()).groupBy("pysdc_h")
             .agg(F.count(F.lit(1)).alias("pysdc_m"), (1 - F.product(1 - F.col("pysdc_risk"))).alias("pysdc_hr")))
        return self._view(h)

    def rclass(self, col) -> str:
        t = self.types[col].lower()
        if t in ("double", "float") or t.startswith("decimal"):
            return "numeric"
        if t in ("tinyint", "smallint", "int", "bigint", "byte", "short", "long", "integer"):
            return "integer"
        if t == "boolean":
            return "logical"
        if t.startswith(("timestamp", "date")):
            return "POSIXct"
        return "character"

    def num(self, col, alias: str = "") -> str:
        if self.rclass(col) == "logical":  # booleans through TRY_CAST on Spark; the other classes as on DuckDB
            return f"TRY_CAST({alias + self.q(col)} AS DOUBLE)"
        return super().num(col, alias)

    def count(self) -> int:
        return int(self.native.count())

    def _view(self, df) -> str:
        name = _unique("v")
        df.createOrReplaceTempView(name)
        return name

    def query(self, sql: str, res=None, hh=None):
        sql = sql.replace(SRC, self._view(self.native))
        if res is not None:
            sql = sql.replace("pysdc_res", self._view(res))
        if hh is not None:
            sql = sql.replace("pysdc_hh", self._view(hh))
        return self.spark.sql(sql)

    def fetch(self, sql: str, res=None) -> pd.DataFrame:
        with _spark_pandas():
            return self.query(sql, res=res).toPandas()

    def combos(self, keys: list, aggs: list[str]):
        ks = ", ".join(self.q(k) for k in keys)
        df = self.query(f"SELECT {ks}, {', '.join(aggs)}, row_number() OVER (ORDER BY {ks}) AS pysdc_cid "
                        f"FROM {SRC} GROUP BY {ks}").cache()
        with _spark_pandas():
            pdf = df.toPandas()
        return pdf, (df, pdf["pysdc_cid"].to_numpy())

    def attach(self, handle, results: dict):
        df, cid = handle
        with _spark_pandas():
            rdf = self.spark.createDataFrame(pd.DataFrame({"pysdc_cid": cid, **results}))
        res = df.join(rdf, "pysdc_cid")
        if len(cid) <= BROADCAST_MAX_COMBINATIONS and self.spark.conf.get("spark.sql.autoBroadcastJoinThreshold") != "-1":
            # the records join this table on their key values: sent whole to every executor, the records
            # are not shuffled and sorted by key (4x faster); the driver holds it already (as pandas)
            from pyspark.sql import functions as F

            res = F.broadcast(res)
        return res

    def row(self, sql: str, res=None) -> tuple:
        return tuple(self.query(sql, res=res).collect()[0])

    def has_positions(self) -> bool:
        return bool(self.files) and not {"pysdc_position", "pysdc_file"} & set(self.columns)

    def with_position(self) -> str:
        df = self.positioned() if self.id is None else None
        return f"SELECT * FROM {SRC}" if df is None else f"SELECT * FROM {self._view(df)}"

    def written_sum(self, path: str, col: str) -> tuple:
        from pyspark.sql import functions as F

        with _case_sensitive(self.spark):
            df = self.spark.read.parquet(os.fspath(path))
            row = df.agg(F.sum(F.when(~F.isnan(col), F.col(col))), F.sum(F.when(F.isnan(col), 1).otherwise(0))).collect()
        return tuple(row[0])

    def record_id(self, alias: str = "s.") -> list[str]:
        if self.id:
            return [f"{alias}{self.q(self.id)} AS {self.q(self.id)}"]
        if self.positioned() is not None:
            return [f"{alias}pysdc_position + 1 AS {POSITION}"]
        return [f"{alias}{self.q(c)} AS {self.q(c)}" for c in self.columns]

    def table(self, native, columns, order, repeated=()) -> EngineTable:
        return EngineTable(native, "spark", order, columns, repeated, inputs=getattr(self, "sources", ()))
