"""``pysdc risk``: re-identification risk of a file (parse, then render)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .._errors import InvalidParameterError
from ..report import jsonable, risk_report, risk_text
from ._common import UsageError, Warnings, add_type_flags, declare, load, parse_ordered, read_columns, split_names

__all__ = ["add_parser", "run"]

_DEMO_KEYS = ("region", "urbrur", "sex", "age_group", "education")


def add_parser(sub) -> None:
    r = sub.add_parser(
        "risk", help="re-identification risk of a file",
        description="Individual, global and household re-identification risk (sdcMicro's measure_risk).",
    )
    r.add_argument("data", nargs="?", metavar="DATA", help="data file (.csv, .csv.gz, .parquet)")
    r.add_argument("--demo", action="store_true", help="use pysdc's demo data")
    r.add_argument("--masked", action="store_true", help="with --demo: the masked demo data")
    r.add_argument("--keys", metavar="A,B,C", help="key (quasi-identifying) variables")
    r.add_argument("--weight", metavar="W", help="sampling weight column")
    r.add_argument("--hid", metavar="H", help="household id column (household risk)")
    r.add_argument("--max-global-risk", type=float, default=0.01, metavar="R",
                   help="maximum global risk the threshold is computed for, in (0, 1) (default 0.01)")
    r.add_argument("--alpha", type=float, default=1.0, metavar="A",
                   help="weight of missing key values as wildcards, in [0, 1] (default 1)")
    r.add_argument("--top", type=int, default=10, metavar="N", help="show the N riskiest records (default 10)")
    r.add_argument("--schema", metavar="S", help="schema JSON of DATA (default: its sidecar, if any)")
    add_type_flags(r)
    r.add_argument("--json", action="store_true", help="print JSON instead of text")
    r.set_defaults(run=run)


def run(args, out) -> int:
    ws = Warnings()
    if args.demo:
        if args.data:
            raise UsageError("give either --demo or the file DATA, not both.")
        from ..datasets import demo_path

        path = str(demo_path(bool(args.masked)))
        shown = f"{demo_path(bool(args.masked)).name} (pysdc's demo data)"
        keys = split_names(args.keys, "--keys") or list(_DEMO_KEYS)
        weight = args.weight if args.weight is not None else "weight"
        hid = args.hid if args.hid is not None else "hid"
    else:
        if not args.data:
            raise UsageError("risk needs a file DATA (or --demo).")
        if args.masked:
            raise UsageError("--masked only goes with --demo.")
        path = shown = args.data
        keys = split_names(args.keys, "--keys")
        if keys is None:
            raise UsageError("risk needs the key variables: --keys a,b,c.")
        weight, hid = args.weight, args.hid
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more; got {args.top}.")
    categorical = split_names(args.categorical, "--categorical")
    ordered = parse_ordered(args.ordered)
    text = split_names(args.text, "--text")
    from .._io import read_header

    if not path.lower().endswith((".parquet", ".pq")) and not Path(path).exists():
        raise FileNotFoundError(f"DATA file {path!r} does not exist")
    header = read_header(path)
    for flag, cols in (("--keys", keys), ("--weight", [weight] if weight else []), ("--hid", [hid] if hid else []),
                       ("--categorical", categorical or []), ("--ordered", list(ordered)), ("--text", text or [])):
        miss = [c for c in cols if c not in header]
        if miss:
            from .._io import separator_hint

            raise InvalidParameterError(
                f"{flag} names column(s) {miss} that DATA does not have; its columns are {header[:20]}"
                f"{' ...' if len(header) > 20 else ''}.{separator_hint(header)}"
            )
    needed = [*keys, weight, hid, *(categorical or []), *ordered]
    data = load(path, args.schema, "DATA", ws, args.na, columns=read_columns(path, needed), text=text)
    data = declare(data, "DATA", categorical, ordered)
    report = risk_report(data, keys, w=weight, hid=hid, max_global_risk=args.max_global_risk, alpha=args.alpha,
                         top=args.top, source={"path": shown, "n_columns": len(header)}, run=ws.run)
    report["warnings"] = ws.as_json()
    if args.json:
        print(json.dumps(jsonable(report), indent=2, allow_nan=False), file=out)
    else:
        print(risk_text(report), file=out)
        if ws.items:
            out.flush()
            print(file=sys.stderr)
        ws.emit(sys.stderr)
    return 0
