"""``pysdc risk`` and ``pysdc utility`` on an engine (``--engine auto|pandas|duckdb|spark``).

The command-line modules (:mod:`pysdc.cli.risk`, :mod:`pysdc.cli.utility`) add the options with
:func:`add_engine_options` and hand over to :func:`run_risk` / :func:`run_utility` when the data go
to DuckDB or Spark: a file, a directory of Parquet/CSV files or a glob, measured where it lies.
"""

from __future__ import annotations

import contextlib
import os
import sys

import numpy as np

from .._errors import InvalidParameterError
from .._progress import peak_rss, stage, watch
from .._selection import default_variables
from ..engine._risk import combinations_in_engine, writing_individual
from ..engine._tables import SRC, scan
from ..engine._utility import utility_engine
from ..io import atomic_output, check_output, read_header, reading_as, sigterm_as_exception
from ..problem import engine_risk_model, engine_utility_model, utility_columns
from ..report import risk_text, utility_text
from ..risk import measure_risk
from ._common import check_columns, emit_report, split_names, warn_empty_text

__all__ = ["add_engine_options", "choose_engine", "run_risk", "run_utility", "write_pandas_output",
           "check_risk_output", "OUTPUT_EXTENSIONS"]

#: ``--engine auto`` sends a file to DuckDB when its estimated size in pandas (the columns needed, from
#: the Parquet metadata or the CSV's size) times this factor (the copies a measure makes: key codes,
#: group-by, results; pandas' peak was 3-4 times the data in measurements) exceeds this share of the
#: memory available
_WORK_FACTOR = 4
_MEMORY_SHARE = 0.5
def add_engine_options(parser, *, output: bool) -> None:
    parser.add_argument("--engine", choices=("auto", "pandas", "duckdb", "spark"), default="auto",
                        help="where to compute: pandas (in memory), duckdb (out of core; Parquet/CSV files, "
                             "directories, globs), spark (PySpark; local[*] unless a session is active); auto: "
                             "DuckDB for directories, globs, --memory-limit and files too large for memory (said on "
                             "stderr), else pandas")
    parser.add_argument("--id", metavar="COL", help="column identifying records (in --output; with utility: pairs "
                                                    "ORIGINAL and MASKED records by it instead of by position)")
    parser.add_argument("--memory-limit", metavar="SIZE",
                        help="bound the memory of a run out of core, e.g. 3GB: DuckDB's memory limit (it spills "
                             "to a temporary directory beyond it; the per-record --output is streamed in batches); "
                             "DuckDB only (Spark's memory is its session's): with --engine auto it selects DuckDB, "
                             "with --engine pandas it is refused (pandas holds the whole file in memory). Python "
                             "itself with pandas, pyarrow and DuckDB loaded (~250 MB) comes on top; the key "
                             "combinations stay in DuckDB, missing key values included (keys of types that may "
                             "code alike, decimals, dates, integers beyond 2^53, are held by pysdc: 0.3-0.4 KB per "
                             "combination, said when it happens); see docs/engines.md")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (by default, a run taking more than 2 s shows its stages and "
                             "a line every 10 s during a long step)")
    if output:
        parser.add_argument("--records", metavar="FILE.parquet",
                            help="write the per-record risk (record, the 1-based record number, or --id; risk, fk, Fk, hier_risk) to a "
                                 "Parquet file, .parquet or .pq (a directory of part files with Spark); never over "
                                 "an input, and only once complete (a temporary file beside it, then renamed). "
                                 "(--output FILE.parquet, its old spelling, still works, with a notice)")


#: the names ``pysdc risk --records`` accepts: the extension decides the format (Parquet)
OUTPUT_EXTENSIONS = (".parquet", ".pq")


def check_risk_output(output: str, engine: str, inputs) -> None:
    """``pysdc risk --records``, before any work: a Parquet name (with Spark also a directory name without
    extension), not an input nor inside one (:func:`pysdc.io.check_output`)."""
    spark_dir = engine == "spark" and not os.path.splitext(os.path.basename(output.rstrip("/")))[1]
    check_output(output, inputs, what="--records", extensions=None if spark_dir else OUTPUT_EXTENSIONS,
                 format_name="the per-record risk as Parquet" + (" (a directory of part files; with --engine spark "
                                                                 "also a directory name without extension)"
                                                                 if engine == "spark" else ""),
                 directory_ok=engine == "spark")


def _is_many(path: str) -> bool:
    return os.path.isdir(path) or any(ch in path for ch in "*?[")


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 * 2**30


def choose_engine(engine: str, *paths: str, columns=None, memory_limit=None, quiet: bool = False) -> str:
    """The engine for ``paths``: ``auto`` picks DuckDB for directories, globs, ``--memory-limit`` and files
    that would not fit comfortably in memory (their estimated size in pandas, :func:`estimate_memory`, times
    :data:`_WORK_FACTOR` above :data:`_MEMORY_SHARE` of the memory available), and says so on stderr."""
    if engine != "auto":
        if engine == "pandas" and any(_is_many(p) for p in paths):
            raise InvalidParameterError("--engine pandas reads one file; for a directory or a glob use --engine duckdb "
                                        "(or spark).")
        if engine == "pandas" and memory_limit:
            raise InvalidParameterError("--memory-limit applies to DuckDB only (pandas holds the whole file in "
                                        "memory and cannot be bounded): use --engine duckdb, or drop --memory-limit.")
        if engine == "spark" and memory_limit:
            raise InvalidParameterError("--memory-limit applies to DuckDB only: Spark's memory is its session's "
                                        "(spark.driver.memory, spark.executor.memory; pysdc keeps the key "
                                        "combinations and their summaries in Spark); use --engine duckdb, or "
                                        "drop --memory-limit.")
        return engine
    import importlib.util

    has_duckdb = importlib.util.find_spec("duckdb") is not None
    why = None
    if any(_is_many(p) for p in paths):
        return "duckdb"  # pandas reads one file (no decision to explain)
    if memory_limit:
        if not has_duckdb:
            raise InvalidParameterError("--memory-limit needs DuckDB: pip install 'pysdc-measures[duckdb]'.")
        why = f"--memory-limit {memory_limit} bounds DuckDB's memory (pandas cannot be bounded)"
    else:
        size = sum(estimate_memory(p, columns) for p in paths if os.path.isfile(p))
        avail = _available_memory()
        if size * _WORK_FACTOR > avail * _MEMORY_SHARE and has_duckdb:
            why = (f"the data need about {_gb(size)} in pandas ({_WORK_FACTOR} times that while measuring), more "
                   f"than {int(_MEMORY_SHARE * 100)} % of the {_gb(avail)} available; --engine pandas to override")
    if why is None:
        return "pandas"
    if not quiet:
        print(f"pysdc: engine duckdb: {why}", file=sys.stderr, flush=True)
    return "duckdb"


def _gb(b: float) -> str:
    return f"{b / 2**30:.1f} GB" if b >= 2**30 else f"{b / 2**20:.0f} MB"


def estimate_memory(path: str, columns=None) -> int:
    """The estimated size in pandas of ``columns`` (None: all) of the file ``path``, in bytes.

    Parquet: from its metadata, per column the larger of its uncompressed size and 8 bytes per row
    (numbers and a string's reference), plus 16 bytes per row for each text column (Python's or
    Arrow's string overhead); CSV and other files: their size (compressed files five times it), times
    the share of the columns needed when known."""
    name = path.lower()
    if name.endswith((".parquet", ".pq")):
        try:
            import pyarrow.parquet as pq

            md = pq.ParquetFile(path).metadata
        except Exception:  # not readable here: the file size times 5, as before
            return os.path.getsize(path) * 5
        want = None if columns is None else set(columns)
        per: dict = {}
        for i in range(md.num_row_groups):
            rg = md.row_group(i)
            for j in range(rg.num_columns):
                col = rg.column(j)
                top = col.path_in_schema.split(".")[0]
                if want is not None and top not in want:
                    continue
                u, text = per.get(top, (0, False))
                per[top] = (u + col.total_uncompressed_size, text or col.physical_type == "BYTE_ARRAY")
        rows = md.num_rows
        return int(sum(max(u, 8 * rows) + (16 * rows if text else 0) for u, text in per.values()))
    size = os.path.getsize(path)
    if name.endswith((".gz", ".bz2", ".xz", ".zip", ".zst")):
        size *= 5
    if columns is not None:
        try:
            header = read_header(path)
            if header:
                size = size * max(1, len([c for c in header if c in set(columns)])) / len(header)
        except Exception:  # the reader reports a bad file later, with its own message
            pass
    return int(size)


def parse_size(text) -> int | None:
    """Bytes of a size like ``300MB``, ``2GB``, ``1.5 GiB`` (DuckDB's units; KB = 1000 bytes, KiB = 1024), or None."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?i?b?|bytes)?\s*", str(text or ""), re.IGNORECASE)
    if not m:
        return None
    unit = (m.group(2) or "b").lower()
    power = {"": 0, "b": 0, "bytes": 0}.get(unit)
    if power is None:
        base = 1024 if "i" in unit else 1000
        power = base ** ("kmgt".index(unit[0]) + 1)
        return int(float(m.group(1)) * power)
    return int(float(m.group(1)))


#: DuckDB's memory per thread pysdc allows under --memory-limit (fewer threads for a small limit, so that
#: each keeps enough for its hash tables and spills instead of failing)
_PER_THREAD = 200 * 10**6


def duckdb_settings(memory_limit) -> dict:
    """DuckDB's threads and temporary directory under ``--memory-limit``: at most one thread per
    :data:`_PER_THREAD` of the limit, and spilling to the system's temporary directory (not the
    current one)."""
    if not memory_limit:
        return {}
    import tempfile

    temp = os.path.join(tempfile.gettempdir(), f"pysdc-duckdb-{os.getpid()}")
    import atexit

    atexit.register(_remove_empty_dir, temp)  # DuckDB removes its files, not the directory
    out = {"temp_directory": temp}
    size = parse_size(memory_limit)
    if size:
        out["threads"] = max(1, min(os.cpu_count() or 1, size // _PER_THREAD))
    return out


def _remove_empty_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(path)


def _scan(path: str, args, label: str, ws=None):

    engine = "spark" if args.engine == "spark" else "duckdb"
    # CSV files are read as the pandas path reads them: --na, --text, the schema (--sep, --decimal and
    # --encoding through pysdc.io.csv_dialect)

    schema = getattr(args, "masked_schema" if label == "MASKED" else "schema", None)
    reading = {"na_values": tuple(args.na or ("NA",)), "text_columns": split_names(getattr(args, "text", None),
                                                                                   "--text") or (),
               "schema": schema}
    def opened():  # the reader's warnings (a header naming a column twice) are the pandas path's: "reading LABEL"
        # (its empty text fields are said later, for the columns the command uses: _warn_empty_text)
        with reading_as(label, ()):
            s = scan(path, id=args.id, engine=engine, memory_limit=args.memory_limit,
                     **duckdb_settings(args.memory_limit) if engine == "duckdb" else {}, **reading)
            s.table()
        return s

    try:
        s = ws.run(f"reading {label}", opened) if ws is not None else opened()
        con = getattr(s.table(), "con", None) if engine == "duckdb" else None
        if con is not None:  # the heartbeat shows how far the running query is
            watch(con.query_progress)
        return s
    except ImportError:
        raise InvalidParameterError(f"--engine {engine} needs the {engine} package: pip install "
                                    f"'pysdc-measures[{engine}]'.") from None


def _warn_empty_text(s, columns, label: str, ws) -> None:
    """The pandas path's warning on the empty text fields of the columns it reads (``columns``), from the counts
    the engine's CSV reader took in its typing survey (no pass of its own)."""
    counts = (s.csv or {}).get("empty_text") or {}
    wanted = {c for c in columns if c}
    warn_empty_text({c: n for c, n in counts.items() if c in wanted}, label, ws)


def _require_records(s, label: str, path: str) -> None:
    """Refuse a file (or directory, glob) with a header but no records, as the pandas path does (issue 26);
    one record is read, not the whole file."""

    (found,) = s.table().row(f"SELECT count(*) FROM (SELECT 1 FROM {SRC} LIMIT 1) pysdc_one")
    if not found:
        raise InvalidParameterError(f"{label} file {path!r} has no records (only a header); there is nothing to "
                                    "measure.")


def run_risk(args, keys, weight, hid, ws, out) -> int:
    """``pysdc risk`` on DuckDB or Spark: measure_risk (household risk too) and the k-anonymity violations from
    its table of key combinations, in the model (``pysdc-risk-1``) and text of the pandas path."""
    stage(f"opening {args.data}")
    data = _scan(args.data, args, "DATA", ws)
    _require_records(data, "DATA", args.data)
    cols = data.columns
    for flag, names in (("--keys", keys), ("--weight", [weight] if weight else []), ("--hid", [hid] if hid else []),
                        ("--id", [args.id] if args.id else [])):
        check_columns(flag, names, cols, "DATA")
    _warn_empty_text(data, [*keys, weight, hid, args.id], "DATA", ws)
    guard = sigterm_as_exception() if args.records else contextlib.nullcontext()
    # the records are joined to their risks once, written as measured; on DuckDB the key combinations stay in
    # DuckDB (under --memory-limit), Python reads them in pieces (pysdc.engine._risk.combinations_in_engine)
    with guard, writing_individual(args.records), combinations_in_engine():
        res = ws.run("measure_risk", measure_risk, data, keys, w=weight, hid=hid,
                     max_global_risk=args.max_global_risk, alpha=args.alpha)
    stage("k-anonymity, risk distribution and the riskiest combinations")
    report = engine_risk_model(res, keys=keys, w=weight, hid=hid, alpha=args.alpha, top=args.top,
                               source={"path": args.data, "n_columns": len(cols)}, engine=data.engine,
                               n_columns=len(cols))
    if args.records:
        report["output"] = {"path": args.records, "columns": list(res.individual.columns)}
    memory_note(args.memory_limit, None if res.summarise is not None else len(res.combinations), quiet=args.quiet)
    if res.summarise is None and data.engine == "spark" and not args.quiet:
        # (otherwise the combinations and the summaries stay in Spark: pysdc.engine._risk_spark.SparkSummaries)
        print(f"pysdc: note: on Spark the {len(res.combinations):,} key combinations were collected to the driver "
              f"(about {_gb(len(res.combinations) * PER_COMBINATION_BYTES)} in this process; the records stayed in "
              "Spark): a key's type may code distinct values alike in sdcMicro (decimals, dates, integers beyond "
              "2^53); cast such keys to text or doubles to keep them in Spark.",
              file=sys.stderr, flush=True)
    return emit_report(report, ws, args.json, risk_text, out, output=args.output)


#: what pysdc's own part of an engine run takes beside DuckDB's --memory-limit: Python with pandas, pyarrow
#: and DuckDB loaded (~250 MB), and per distinct key combination the table pysdc computes on
#: (its key values, counts, weight sums, codes, fk, Fk and risk: ~300-400 bytes; measured 2026-11 at 2e6)
BASELINE_BYTES = 250 * 2**20
PER_COMBINATION_BYTES = 400


def memory_note(memory_limit, n_combinations, *, quiet: bool = False) -> None:
    """After a run with ``--memory-limit``: one line on stderr when the process's peak memory went over the
    limit, with the reason (the key-combination table is held by pysdc, outside DuckDB's limit)."""
    limit, peak = parse_size(memory_limit), peak_rss()
    if quiet or not limit or not peak or peak <= limit:
        return
    why = ("Python with pandas, pyarrow and DuckDB takes about "
           f"{_gb(BASELINE_BYTES)} of its own")
    if n_combinations:
        why += (f", and the {n_combinations:,} key combinations pysdc computes on take about "
                f"{_gb(n_combinations * PER_COMBINATION_BYTES)} beside DuckDB's limit")
    print(f"pysdc: note: the peak memory of this run, {_gb(peak)}, exceeded --memory-limit {memory_limit}: {why} "
          f"(see docs/engines.md, Memory).", file=sys.stderr, flush=True)


def write_pandas_output(path: str, data, individual, id_col: str | None) -> None:
    """``--records`` on the pandas path: the 1-based record number (or the id column) and the per-record risk
    columns."""
    import pandas as pd

    front = (pd.DataFrame({id_col: data[id_col].to_numpy()}) if id_col
             else pd.DataFrame({"record": np.arange(1, len(individual) + 1, dtype=np.int64)}))
    table = pd.concat([front, individual.reset_index(drop=True)], axis=1)

    with atomic_output(path, make_parents=True) as tmp:  # the caller checked path (check_risk_output)
        table.to_parquet(tmp, index=False)


def run_utility(args, orig_path, masked_path, keys, nums, scales, ws, out, *, render=utility_text,
                split_by_class: bool = False) -> int:
    """``pysdc utility`` on DuckDB or Spark: dUtility's IL1, IL1s and eigen, IL_correl and IL_variables on the
    variables :func:`pysdc.problem.utility_columns` gives (the rule of the pandas path), in the model
    (``pysdc-utility-1``) and text of the pandas path; what needs the records in memory is said skipped.
    ``keys``, ``nums``: the categorical and numeric variables named (``nums`` None: the default ones)."""
    stage(f"opening {orig_path} and {masked_path}")
    x, xm = _scan(orig_path, args, "ORIGINAL", ws), _scan(masked_path, args, "MASKED", ws)
    _require_records(x, "ORIGINAL", orig_path)
    _require_records(xm, "MASKED", masked_path)
    hx, hm = x.columns, xm.columns
    tx, tm = x.table(), xm.table()
    keys = list(keys or [])
    chosen = None
    if nums is None:  # the default: the double columns but weight, household id, ids and keys (issue 26)
        common = [c for c in hx if c in hm and c != args.id]
        chosen = default_variables(common, {c: tx.rclass(c) for c in common}, {c: tm.rclass(c) for c in common},
                                   weight=args.weight, hid=getattr(args, "hid", None), keys=keys,
                                   wanted=list(scales or {}))
        nums = list(chosen["taken"])
        if not keys and not nums:
            raise InvalidParameterError("no variable to compare: ORIGINAL and MASKED have no double (numeric) column "
                                        "but those left out (" + "; ".join(f"{c}: {why}" for c, why in
                                                                          chosen["excluded"].items())
                                        + "); name the variables with --numeric a,b or --keys a,b.")
    vars_ = keys + [c for c in nums if c not in keys]
    for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
        check_columns("--keys/--numeric/--id", vars_ + ([args.id] if args.id else []), header, label)
    cls_x, cls_xm = {c: tx.rclass(c) for c in vars_}, {c: tm.rclass(c) for c in vars_}
    _warn_empty_text(x, vars_, "ORIGINAL", ws)
    _warn_empty_text(xm, vars_, "MASKED", ws)
    if split_by_class:  # the deprecated --vars: a variable is numeric when it is a number in ORIGINAL
        keys = [c for c in vars_ if c in keys or cls_x[c] not in ("numeric", "integer", "logical")]
        nums = [c for c in vars_ if c not in keys]
    bad = {c: cls_x[c] for c in nums if cls_x[c] not in ("numeric", "integer", "logical")}
    if bad:
        raise InvalidParameterError(f"--numeric must be numeric variables; {bad} are not. Declare categorical "
                                    "variables as --keys.")  # SdcProblem's message, in the command's flags
    unknown = [c for c in (scales or {}) if c not in vars_]
    if unknown:
        raise InvalidParameterError(f"--scale names column(s) {unknown} that are not among the variables used "
                                    f"({', '.join(vars_)}).")
    cols = utility_columns(keys, nums, cls_x, cls_xm, scales)
    ilv = cols["il_variables"]
    ident = [args.id] if args.id else []
    stage("dUtility IL1, IL1s, eigen, IL_correl and IL_variables (three passes over the records)")
    if set(ilv) == set(vars_):
        res = ws.run("utility", utility_engine, _select(x, vars_ + ident, args), _select(xm, vars_ + ident, args),
                     nums, cols["scales"] or None)
    else:  # IL_variables leaves a variable out (another class in MASKED): its own pass over the others
        res = ws.run("utility", utility_engine, _select(x, nums + ident, args), _select(xm, nums + ident, args),
                     nums, None) if nums else {"d_utility": {}}
        res.pop("il_variables", None)
        if ilv:
            iv = ws.run("utility", utility_engine, _select(x, ilv + ident, args), _select(xm, ilv + ident, args), [],
                        cols["scales"] or None)
            res["il_variables"] = iv.get("il_variables")
    n_x = _count(x)
    n_xm = n_x if args.id is None else _count(xm)
    report = engine_utility_model(res, variables={**cols, "keys": keys}, engine=x.engine, n_x=n_x, n_xm=n_xm,
                                  cols_x=len(hx), cols_xm=len(hm), original={"path": orig_path},
                                  masked={"path": masked_path}, selected=vars_, paired_by=args.id or "position")
    if chosen is not None:
        report["variable_selection"] = {"numeric_taken": chosen["taken"], "keys": keys,
                                        "left_out": chosen["excluded"]}
    memory_note(args.memory_limit, None, quiet=args.quiet)
    return emit_report(report, ws, args.json, render, out, output=getattr(args, "output", None))


def _count(s) -> int:
    (n,) = s.table().row(f"SELECT count(*) FROM {SRC}")
    return int(n)


def _select(s, cols, args):
    # each name quoted by its engine (on Spark a dot, as in R's "rb090.1", would be a struct's field)
    q = s.table().q
    return scan(s.relation().select(*[q(c) for c in cols]), id=args.id)
