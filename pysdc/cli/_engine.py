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
from .._progress import stage

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
                             "itself (~250 MB) and the key-combination table pysdc computes on (0.3-0.4 KB per "
                             "distinct combination) come on top; see docs/engines.md")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (by default, a run taking more than 2 s shows its stages and "
                             "a line every 10 s during a long step)")
    if output:
        parser.add_argument("--output", metavar="FILE.parquet",
                            help="write the per-record risk (position or --id, risk, fk, Fk, hier_risk) to a "
                                 "Parquet file, .parquet or .pq (a directory of part files with Spark); never over "
                                 "an input, and only once complete (a temporary file beside it, then renamed)")


#: the names ``pysdc risk --output`` accepts: the extension decides the format (Parquet)
OUTPUT_EXTENSIONS = (".parquet", ".pq")


def check_risk_output(output: str, engine: str, inputs) -> None:
    """``pysdc risk --output``, before any work: a Parquet name (with Spark also a directory name without
    extension), not an input nor inside one (:func:`pysdc.io.check_output`)."""
    from ..io import check_output

    spark_dir = engine == "spark" and not os.path.splitext(os.path.basename(output.rstrip("/")))[1]
    check_output(output, inputs, extensions=None if spark_dir else OUTPUT_EXTENSIONS,
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
            from ..io import read_header

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


def _scan(path: str, args, label: str):
    from ..engine._tables import scan

    engine = "spark" if args.engine == "spark" else "duckdb"
    # CSV files are read as the pandas path reads them: --na, --text, the schema (--sep, --decimal and
    # --encoding through pysdc.io.csv_dialect)
    from ._common import split_names

    schema = getattr(args, "masked_schema" if label == "MASKED" else "schema", None)
    reading = {"na_values": tuple(args.na or ("NA",)), "text_columns": split_names(getattr(args, "text", None),
                                                                                   "--text") or (),
               "schema": schema}
    try:
        s = scan(path, id=args.id, engine=engine, memory_limit=args.memory_limit,
                 **duckdb_settings(args.memory_limit) if engine == "duckdb" else {}, **reading)
        con = getattr(s.table(), "con", None) if engine == "duckdb" else None
        if con is not None:  # the heartbeat shows how far the running query is
            from .._progress import watch

            watch(con.query_progress)
        return s
    except ImportError:
        raise InvalidParameterError(f"--engine {engine} needs the {engine} package: pip install "
                                    f"'pysdc-measures[{engine}]'.") from None


def _require_records(s, label: str, path: str) -> None:
    """Refuse a file (or directory, glob) with a header but no records, as the pandas path does (issue 26);
    one record is read, not the whole file."""
    from ..engine._tables import SRC

    (found,) = s.table().row(f"SELECT count(*) FROM (SELECT 1 FROM {SRC} LIMIT 1) pysdc_one")
    if not found:
        raise InvalidParameterError(f"{label} file {path!r} has no records (only a header); there is nothing to "
                                    "measure.")


def run_risk(args, keys, weight, hid, ws, out) -> int:
    """``pysdc risk`` on DuckDB or Spark: measure_risk (household risk too), k-anonymity violations."""
    import pysdc

    from .._summaries import k_anonymity, threshold_note
    from ..report._model import K_ANON_KS, risk_distribution
    from ._common import emit_report

    stage(f"opening {args.data}")
    data = _scan(args.data, args, "DATA")
    _require_records(data, "DATA", args.data)
    cols = data.columns
    from ._common import check_columns

    for flag, names in (("--keys", keys), ("--weight", [weight] if weight else []), ("--hid", [hid] if hid else []),
                        ("--id", [args.id] if args.id else [])):
        check_columns(flag, names, cols, "DATA")
    from ..engine._risk import writing_individual
    from ..io import sigterm_as_exception

    guard = sigterm_as_exception() if args.output else contextlib.nullcontext()
    with guard, writing_individual(args.output):  # the records are joined to their risks once, written as measured
        res = ws.run("measure_risk", pysdc.measure_risk, data, keys, w=weight, hid=hid,
                     max_global_risk=args.max_global_risk, alpha=args.alpha)
    stage("k-anonymity, risk distribution and the riskiest combinations")
    comb = res.combinations
    counts = comb["n"].to_numpy(dtype=np.float64)
    risk = comb["risk"].to_numpy()
    n = res.n
    # k-anonymity violations from the same combination table (measure_risk's fk/Fk, as kAnon_violations)
    fk, Fk = comb["fk"].to_numpy(), comb["Fk"].to_numpy()
    from ..core.freq import r_round as _r_round

    rows = []
    for k in K_ANON_KS:
        u = int(counts[fk < _r_round(k)].sum())
        wt = None if weight is None else int(counts[Fk < _r_round(k)].sum())
        rows.append({"k": k, "unweighted": u, "unweighted_share": u / n if n else None,
                     "weighted": wt, "weighted_share": None if wt is None or not n else wt / n})
    # the riskiest first (ties in table order, an undefined risk last), without sorting a copy of the table
    order = np.argsort(-np.where(np.isnan(risk), -np.inf, risk), kind="stable")[:args.top]
    top = comb.iloc[order]
    report = {
        "format": "pysdc-risk-engine-1",
        "pysdc_version": pysdc.__version__,
        "engine": data.engine,
        "data": {"path": args.data, "n_records": n, "n_columns": len(cols), "n_key_combinations": int(len(comb))},
        "key_vars": list(keys), "weight": weight, "hid": hid, "alpha": args.alpha,
        "global": {"expected_reidentifications": res.global_risk_er, "global_risk": res.global_risk,
                   "global_risk_pct": res.global_risk_pct, "max_global_risk": res.max_global_risk,
                   "threshold": res.global_threshold,
                   "threshold_note": threshold_note(res.global_threshold, res.global_risk, res.max_global_risk,
                                                    risk if n else np.array([]))},
        "household": None if res.hier_risk_er is None else {
            "expected_reidentifications": res.hier_risk_er, "risk": res.hier_risk, "risk_pct": res.hier_risk_pct},
        "k_anonymity": {**k_anonymity(fk, counts), "violations": rows},
        "individual_risk": risk_distribution(risk, counts),
        "top_combinations": [{**{k: _plain(r[k]) for k in keys}, "records": int(r["n"]), "fk": float(r["fk"]),
                              "Fk": float(r["Fk"]), "risk": float(r["risk"])} for r in top.to_dict("records")],
        "suda2": {"status": "skipped", "error": "SUDA2 needs the records in memory; not computed on an engine"},
    }
    if args.output:
        report["output"] = {"path": args.output, "columns": res.individual.columns}
    memory_note(args.memory_limit, len(comb), quiet=args.quiet)
    return emit_report(report, ws, args.json, engine_risk_text, out)


#: what pysdc's own part of an engine run takes beside DuckDB's --memory-limit: Python with pandas, pyarrow
#: and DuckDB loaded (~250 MB), and per distinct key combination the table pysdc computes on
#: (its key values, counts, weight sums, codes, fk, Fk and risk: ~300-400 bytes; measured 2026-11 at 2e6)
BASELINE_BYTES = 250 * 2**20
PER_COMBINATION_BYTES = 400


def memory_note(memory_limit, n_combinations, *, quiet: bool = False) -> None:
    """After a run with ``--memory-limit``: one line on stderr when the process's peak memory went over the
    limit, with the reason (the key-combination table is held by pysdc, outside DuckDB's limit)."""
    from .._progress import peak_rss

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


def _plain(v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    return v.item() if hasattr(v, "item") else v


def _fmt(v, digits: int = 6) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "NA" if v is None or np.isnan(v) else str(v)
    return f"{v:.{digits}g}"


def engine_risk_text(r: dict) -> str:
    d = r["data"]
    g = r["global"]
    L = [f"Re-identification risk of {d['path']} ({r['engine']}): {d['n_records']:,} records, "
         f"{d['n_key_combinations']:,} key combinations",
         f"  keys: {', '.join(r['key_vars'])}" + (f"; weight {r['weight']}" if r["weight"] else "")
         + (f"; households {r['hid']}" if r["hid"] else ""), "",
         "Global risk (sdcMicro's measure_risk)",
         f"  expected re-identifications  {_fmt(g['expected_reidentifications'])}",
         f"  global risk                  {_fmt(g['global_risk'])} ({_fmt(g['global_risk_pct'], 4)} %)",
         f"  threshold for {g['max_global_risk']:g}        {_fmt(g['threshold'])}"
         + (f"  ({g['threshold_note']})" if g["threshold_note"] else "")]
    if r["household"]:
        h = r["household"]
        L += ["", "Household risk",
              f"  expected re-identifications  {_fmt(h['expected_reidentifications'])}",
              f"  household risk               {_fmt(h['risk'])} ({_fmt(h['risk_pct'], 4)} %)"]
    k = r["k_anonymity"]
    L += ["", "k-anonymity violations (sdcMicro's kAnon_violations)",
          "  k   fk < k" + ("        Fk < k" if r["weight"] else "")]
    for row in k["violations"]:
        L.append(f"  {row['k']}   {row['unweighted']:>10,}" + (f"    {row['weighted']:>10,}" if r["weight"] else ""))
    q = r["individual_risk"]["quantiles"]
    L += ["", "Individual risk quantiles: " + ", ".join(f"{p} {_fmt(v, 4)}" for p, v in q.items())]
    if r["top_combinations"]:
        L += ["", "Riskiest key combinations"]
        for row in r["top_combinations"]:
            keys = ", ".join(f"{kk}={row[kk]}" for kk in r["key_vars"])
            L.append(f"  {keys}: {row['records']} record(s), fk {_fmt(row['fk'])}, Fk {_fmt(row['Fk'])}, "
                     f"risk {_fmt(row['risk'])}")
    L += ["", "SUDA2: not computed (needs the records in memory)"]
    if r.get("output"):
        L += ["", f"Per-record risk written to {r['output']['path']} ({', '.join(r['output']['columns'])})"]
    return "\n".join(L)


def write_pandas_output(path: str, data, individual, id_col: str | None) -> None:
    """``--output`` on the pandas path: position (or the id column) and the per-record risk columns."""
    import pandas as pd

    front = (pd.DataFrame({id_col: data[id_col].to_numpy()}) if id_col
             else pd.DataFrame({"position": np.arange(len(individual), dtype=np.int64)}))
    table = pd.concat([front, individual.reset_index(drop=True)], axis=1)
    from ..io import atomic_output

    with atomic_output(path, make_parents=True) as tmp:  # the caller checked path (check_risk_output)
        table.to_parquet(tmp, index=False)


def run_utility(args, orig_path, masked_path, vars_, scales, ws, out) -> int:
    """``pysdc utility`` on DuckDB or Spark: dUtility's IL1, IL1s and eigen, IL_correl, IL_variables."""
    import pysdc

    from ..engine._loss import utility_engine
    from ._common import emit_report

    stage(f"opening {orig_path} and {masked_path}")
    x, xm = _scan(orig_path, args, "ORIGINAL"), _scan(masked_path, args, "MASKED")
    _require_records(x, "ORIGINAL", orig_path)
    _require_records(xm, "MASKED", masked_path)
    hx, hm = x.columns, xm.columns
    from .._selection import default_variables
    from ._common import check_columns

    chosen = None
    if vars_ is None:  # the default: the double columns but weight, household id, ids and keys (issue 26)
        keys = [c for c in (getattr(args, "keys", None) or []) for c in str(c).split(",") if c.strip()]
        common = [c for c in hx if c in hm and c != args.id]
        tx, tm = x.table(), xm.table()
        chosen = default_variables(common, {c: tx.rclass(c) for c in common}, {c: tm.rclass(c) for c in common},
                                   weight=args.weight, hid=getattr(args, "hid", None), keys=keys,
                                   wanted=list(scales or {}))
        vars_ = [c.strip() for c in keys] + chosen["taken"]
        if not vars_:
            raise InvalidParameterError("no variable to compare: ORIGINAL and MASKED have no double (numeric) column "
                                        "but those left out (" + "; ".join(f"{c}: {why}" for c, why in
                                                                          chosen["excluded"].items())
                                        + "); name the variables with --numeric a,b or --keys a,b.")
    for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
        check_columns("--keys/--numeric/--id", vars_ + ([args.id] if args.id else []), header, label)
    keep = vars_ + ([args.id] if args.id else [])
    xs = _select(x, keep, args)
    xms = _select(xm, keep, args)
    numeric = [c for c in vars_ if xs.table().rclass(c) in ("numeric", "integer", "logical")]
    report = {"format": "pysdc-utility-engine-1", "pysdc_version": pysdc.__version__, "engine": xs.engine,
              "original": {"path": orig_path}, "masked": {"path": masked_path}, "variables": vars_,
              "paired_by": args.id or "position", "d_utility": {}}
    if chosen is not None:
        report["variable_selection"] = {"numeric_taken": chosen["taken"], "keys": vars_[:len(vars_) - len(chosen["taken"])],
                                        "left_out": chosen["excluded"]}
    stage("dUtility IL1, IL1s, eigen, IL_correl and IL_variables (three passes over the records)")
    res = ws.run("utility", utility_engine, xs, xms, numeric, scales or None)
    if numeric:
        report["d_utility"] = {m: float(r.value) for m, r in res["d_utility"].items()}
        report["d_utility"]["robeigen"] = None
        cor = res.get("il_correl")
        if isinstance(cor, InvalidParameterError):
            report["il_correl"] = None
            report["il_correl_error"] = str(cor)
        else:
            report["il_correl"] = float(cor.value)
    iv = res.get("il_variables")
    if isinstance(iv, InvalidParameterError):
        report["il_variables"] = {"value": None, "error": str(iv)}
    elif iv is not None:
        report["il_variables"] = {"value": iv.value, "per_variable": {k: float(v) for k, v in iv.per_variable.items()}}
    memory_note(args.memory_limit, None, quiet=args.quiet)
    return emit_report(report, ws, args.json, engine_utility_text, out)


def _select(s, cols, args):
    from ..engine._tables import scan

    native = s.relation()
    if s.table().kind == "duckdb":
        sub = native.select(*[f'"{c}"' for c in cols])
    else:
        sub = native.select(*cols)
    return scan(sub, id=args.id)


def engine_utility_text(r: dict) -> str:
    L = [f"Information loss of {r['masked']['path']} against {r['original']['path']} ({r['engine']}; records "
         f"paired by {r['paired_by']})", f"  variables: {', '.join(r['variables'])}", ""]
    if r["d_utility"]:
        L.append("dUtility")
        for m, v in r["d_utility"].items():
            L.append(f"  {m:<9} {_fmt(v, 8) if v is not None else 'not computed (needs the records in memory)'}")
    if "il_correl" in r:
        L.append(f"IL_correl   {_fmt(r['il_correl'], 8) if r['il_correl'] is not None else r.get('il_correl_error')}")
    iv = r.get("il_variables") or {}
    if iv.get("value") is not None:
        L.append(f"IL_variables {_fmt(iv['value'], 8)}")
        L += [f"  {k:<12} {_fmt(v, 8)}" for k, v in iv["per_variable"].items()]
    elif iv:
        L.append(f"IL_variables: {iv.get('error')}")
    return "\n".join(L)
