"""``pysdc risk``: re-identification risk of a file (parse, then render)."""

from __future__ import annotations

import math
from pathlib import Path

from .._errors import InvalidParameterError
from .._registry import assessed
from ..datasets import DEMO_KEY_VARS, demo_path
from ..io import read_header, sigterm_as_exception
from ..problem import DEFAULT_COLLATION, SdcProblem
from ..problem._problem import RECORD_LINKAGE_MAX
from ..report import risk_text
from ._common import (
    FORMATS,
    UsageError,
    Warnings,
    add_names_flag,
    add_output_flag,
    add_type_flags,
    check_columns,
    check_result_output,
    declare,
    emit_report,
    load,
    parse_ordered,
    read_columns,
    rescue_positionals,
    split_names,
    warn_same_file,
)
from ._engine import add_engine_options, check_risk_output, choose_engine, run_risk, write_pandas_output

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    r = sub.add_parser(
        "risk", help="re-identification risk of a file",
        description="Individual, global and household re-identification risk (sdcMicro's measure_risk), "
                    "k-anonymity violations (kAnon_violations, k = 2, 3, 5; weighted too with --weight) and "
                    "SUDA2 special uniques (suda2) on the key variables of DATA; with --numeric and --masked "
                    "MASKED, the distance risk of the masked continuous variables (dRisk, dRiskRMD) and their "
                    "record-linkage risk (" + ", ".join(m.python for m in assessed("linkage")) + ").",
    )
    r.add_argument("data", nargs="?", metavar="DATA",
                   help=f"data file ({FORMATS}), or a directory or glob of CSV or Parquet files (read by DuckDB)")
    r.add_argument("--demo", action="store_true", help="use pysdc's demo data")
    r.add_argument("--masked", nargs="?", const=True, default=None, metavar="MASKED",
                   help="masked file for --numeric (same records in the same order as DATA). With --demo and "
                        "no file: the key-variable risk is that of the demo's masked release; with --demo, "
                        "--numeric always compares the demo data with its masked release")
    r.add_argument("--masked-schema", metavar="S", help="schema JSON of MASKED (default: its sidecar, if any)")
    add_names_flag(r, "--numeric", "numeric (continuous) variables for dRisk and dRiskRMD of MASKED against DATA "
                                   "(needs --masked MASKED, or --demo)")
    r.add_argument("--drisk-k", type=float, default=0.05, metavar="K",
                   help="dRisk's interval half-width in standard deviations of MASKED (default 0.05)")
    r.add_argument("--force-record-linkage", action="store_true",
                   help="compute the linkage measures that compare every pair of records ("
                        + ", ".join(m.python for m in assessed("linkage") if m.all_pairs)
                        + f": n x n distances; the global one-to-one matching O(n^3) time) "
                        f"above {RECORD_LINKAGE_MAX} records too (else skipped there, with the reason)")
    r.add_argument("--random-state", type=int, metavar="N",
                   help="seed for dRiskRMD's random MCD subsets (default: a random draw)")
    r.add_argument("--no-suda", action="store_true",
                   help="skip SUDA2 (about 1 s per million records)")
    add_names_flag(r, "--keys", "categorical key (quasi-identifying) variables")
    r.add_argument("--weight", metavar="W", help="sampling weight column")
    r.add_argument("--hid", metavar="H", help="household id column (household risk)")
    r.add_argument("--max-global-risk", type=float, default=0.01, metavar="R",
                   help="maximum global risk the threshold is computed for, in (0, 1) (default 0.01)")
    r.add_argument("--alpha", type=float, default=1.0, metavar="A",
                   help="weight of missing key values as wildcards, in [0, 1] (default 1)")
    r.add_argument("--top", type=int, default=10, metavar="N",
                   help="show the N riskiest records, by individual risk and by SUDA score (default 10)")
    r.add_argument("--schema", metavar="S", help="schema JSON of DATA (default: its sidecar, if any)")
    add_collation_flag(r)
    add_type_flags(r)
    add_engine_options(r, output=True)
    add_output_flag(r)
    r.add_argument("--json", action="store_true", help="print JSON instead of text")
    r.set_defaults(run=run)


def run(args, out) -> int:
    ws = Warnings()
    rescue_positionals(args, ["data"], ["keys", "numeric"])
    if args.demo:
        if args.data:
            raise UsageError("give either --demo or the file DATA, not both.")
        if isinstance(args.masked, str):
            raise UsageError("with --demo, --masked takes no file: it selects the demo's masked release (and "
                             "--numeric always compares the demo data with it).")
        path = str(demo_path(bool(args.masked)))
        shown = f"{demo_path(bool(args.masked)).name} (pysdc's demo data)"
        masked_path = str(demo_path(True)) if args.numeric else None
        x_path = str(demo_path(False))
        masked_shown = f"{demo_path(True).name} (pysdc's demo data)"
        keys = split_names(args.keys, "--keys") or list(DEMO_KEY_VARS)
        weight = args.weight if args.weight is not None else "weight"
        hid = args.hid if args.hid is not None else "hid"
    else:
        if not args.data:
            raise UsageError("risk needs a file DATA (or --demo).")
        if args.masked is True:
            raise UsageError("--masked needs a file MASKED (without a file it only goes with --demo).")
        if args.numeric is None and args.masked is not None:
            raise UsageError("--masked MASKED needs the continuous variables to compare: --numeric a,b.")
        if args.numeric is not None and args.masked is None:
            raise UsageError("--numeric needs the masked file: --masked MASKED (or --demo).")
        path = shown = args.data
        masked_path = masked_shown = args.masked
        x_path = path
        keys = split_names(args.keys, "--keys")
        if keys is None:
            raise UsageError("risk needs the key variables: --keys a,b,c.")
        weight, hid = args.weight, args.hid
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more; got {args.top}.")
    engine = "pandas" if args.demo else choose_engine(
        args.engine, path, columns=[c for c in (*keys, weight, hid, args.id) if c], memory_limit=args.memory_limit,
        quiet=args.quiet)
    inputs = [path, x_path, masked_path, args.schema, args.masked_schema]
    records_flag(args, engine)
    if args.records:  # before any work: a Parquet name, never an input (nor a sidecar, nor inside an input directory)
        check_risk_output(args.records, engine, inputs)
    check_result_output(args.output, inputs)
    if engine != "pandas":  # DuckDB or Spark: the file, directory or glob is measured where it lies
        if numeric_requested(args):
            raise UsageError("--numeric (dRisk, dRiskRMD and the record-linkage measures "
                             + ", ".join(m.python for m in assessed("linkage"))
                             + ") needs the records in memory: use --engine pandas. On an engine the "
                             "record-linkage measures are skipped (the report says why).")
        return run_risk(args, keys, weight, hid, ws, out)
    if not math.isfinite(args.drisk_k):
        raise UsageError(f"--drisk-k must be a finite number; got {args.drisk_k}.")
    if args.random_state is not None and args.random_state < 0:
        raise UsageError(f"--random-state must be 0 or more; got {args.random_state}.")
    numeric = split_names(args.numeric, "--numeric")
    categorical = split_names(args.categorical, "--categorical")
    ordered = parse_ordered(args.ordered)
    text = split_names(args.text, "--text")
    if not path.lower().endswith((".parquet", ".pq")) and not Path(path).exists():
        raise FileNotFoundError(f"DATA file {path!r} does not exist")
    header = read_header(path)
    for flag, cols in (("--keys", keys), ("--weight", [weight] if weight else []), ("--hid", [hid] if hid else []),
                       ("--categorical", categorical or []), ("--ordered", list(ordered)), ("--text", text or []),
                       ("--numeric", numeric if numeric and x_path == path else [])):
        check_columns(flag, cols, header, "DATA")
    numeric_in_data = numeric if numeric and x_path == path else []
    needed = [*keys, weight, hid, args.id, *(categorical or []), *ordered, *numeric_in_data]
    data = load(path, args.schema, "DATA", ws, args.na, columns=read_columns(path, needed), text=text)
    data = declare(data, "DATA", categorical, ordered)
    x, xm, masked = data, None, None
    if numeric:
        if not args.demo:
            warn_same_file(x_path, masked_path, "DATA and MASKED",
                           "every record is its own nearest match (dRisk and dRiskRMD at their maximum)", ws)
        if x_path != path:  # the demo's masked release measured, its numeric variables against the original's
            x = load(x_path, None, "ORIGINAL", ws, args.na, columns=[c for c in dict.fromkeys(
                [*keys, weight, hid, *numeric]) if c], flag="--numeric")
        xm = _load_masked(masked_path, args, numeric, ws, len(x))
        masked = {"path": masked_shown}
    # the problem (text key variables become factors, as sdcMicro's createSdcObj makes them), then its risk
    problem = _problem(ws, x, keys, numeric or (), weight, hid, args.collation)
    res = ws.run("risk", problem.risk, max_global_risk=args.max_global_risk, alpha=args.alpha,
                 suda=not args.no_suda, data=None if x is data else data, masked=xm, drisk_k=args.drisk_k,
                 random_state=args.random_state, run=ws.run,
                 record_linkage_max=None if args.force_record_linkage else RECORD_LINKAGE_MAX)
    report = res.to_dict(top=args.top, source={"path": shown, "n_columns": len(header)})
    if report["distance"] is not None:
        report["distance"]["masked"]["path"] = masked["path"]
    if report.get("linkage") is not None:
        report["linkage"]["masked"]["path"] = masked["path"]
    if args.records:  # the per-record risk (record or --id, risk, fk, Fk, hier_risk)
        with sigterm_as_exception():
            write_pandas_output(args.records, data, res.measure_risk.individual, args.id)
        report["output"] = {"path": args.records, "columns": [args.id or "record",
                                                             *res.measure_risk.individual.columns]}
    return emit_report(report, ws, args.json, risk_text, out, output=args.output)


_FLAGS = (("key_vars", "--keys"), ("num_vars", "--numeric"), ("sensitive", "--sensitive"), ("w", "--weight"),
          ("hid", "--hid"), ("strata", "--strata"))


def flags_for(message: str) -> str:
    """A message of :class:`pysdc.SdcProblem` with the library's argument names as the command's flags."""
    import re

    for name, flag in _FLAGS:
        message = re.sub(rf"(?<![\w'-]){name}(?![\w'])", flag, message)
    return message


def _problem(ws: Warnings, data, keys, numeric, weight, hid, collation):
    try:
        return ws.run("specification", SdcProblem, data, keys, num_vars=list(numeric), w=weight, hid=hid,
                      collation=collation)
    except InvalidParameterError as exc:  # the library's argument names -> the command's flags
        raise InvalidParameterError(flags_for(str(exc))) from None


def add_collation_flag(p) -> None:
    """``--collation``: the order of the factor levels made from text key variables."""
    p.add_argument("--collation", choices=("icu", "C"), default=DEFAULT_COLLATION,
                   help="text key variables become factors, as sdcMicro's createSdcObj makes them; their levels "
                        "are sorted as R sorts text: 'icu' (R in a UTF-8 locale, R's default on Linux and macOS) "
                        "or 'C' (R with LC_COLLATE=C: code point order). Default icu")


def records_flag(args, engine: str) -> None:
    """``--output FILE.parquet`` (or, with Spark, a name without extension), the old spelling of ``--records``:
    moved there with a notice (``--output`` is the command's result in every command now)."""
    import os
    import sys

    out = args.output
    if not out:
        return
    ext = os.path.splitext(os.path.basename(out.rstrip("/")))[1].lower()
    if ext in (".parquet", ".pq") or (engine == "spark" and not ext):
        if args.records:
            raise UsageError("give the per-record risk once: --records FILE.parquet (--output is the result).")
        print(f"pysdc: note: --output {out} is deprecated for the per-record risk; use --records {out} (--output now "
              "writes the command's result, .json, .md or .txt, as in every command).", file=sys.stderr)
        args.records, args.output = out, None


def numeric_requested(args) -> bool:
    return args.numeric is not None


def _load_masked(masked_path: str, args, numeric: list, ws: Warnings, n: int):
    """The --numeric columns of MASKED, checked to hold as many records as DATA."""
    if not masked_path.lower().endswith((".parquet", ".pq")) and not Path(masked_path).exists():
        raise FileNotFoundError(f"MASKED file {masked_path!r} does not exist")
    xm = load(masked_path, args.masked_schema, "MASKED", ws, args.na, columns=numeric, flag="--numeric")
    if xm.shape[0] != n:
        raise InvalidParameterError(
            f"DATA has {n} records but MASKED has {xm.shape[0]}; dRisk and dRiskRMD compare record by record "
            "(row i of one file with row i of the other), so both files must hold the same records in the "
            "same order."
        )
    return xm
