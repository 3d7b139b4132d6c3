"""``pysdc utility``: information loss between an original and a masked file (parse, then render)."""

from __future__ import annotations

from pathlib import Path

from .._errors import InvalidParameterError
from ..report import utility_report, utility_text
from ._common import UsageError, Warnings, add_type_flags, declare, emit_report, load, parse_ordered, parse_scales, split_names

__all__ = ["add_parser", "run"]

_DEMO_UTILITY_VARS = ("region", "urbrur", "sex", "age_group", "marital", "education",
                      "income", "expenditure", "savings")


def add_parser(sub) -> None:
    u = sub.add_parser(
        "utility", help="information loss between an original and a masked file",
        description="Information-loss measures of MASKED relative to ORIGINAL: dUtility's IL1, IL1s, eigen, "
                    "robeigen (numeric variables), IL_correl and IL_variables, then literature measures (not "
                    "sdcMicro's): il_continuous, il_categorical, hellinger, gsil.",
    )
    u.add_argument("original", nargs="?", metavar="ORIGINAL", help="original data (.csv, .csv.gz, .parquet)")
    u.add_argument("masked", nargs="?", metavar="MASKED", help="masked data, same records in the same order")
    u.add_argument("--demo", action="store_true", help="use pysdc's demo data (original and masked)")
    u.add_argument("--vars", metavar="A,B,C", help="variables to compare (default: all common columns)")
    u.add_argument("--schema", metavar="S", help="schema JSON of ORIGINAL (default: its sidecar, if any)")
    u.add_argument("--masked-schema", metavar="S",
                   help="schema JSON of MASKED (default: its sidecar, else --schema)")
    add_type_flags(u)
    u.add_argument("--scale", action="append", metavar="COL=SCALE",
                   help="declare a variable's scale for il_variables: numeric, ordinal or nominal (repeatable; "
                        "needed for integer and logical columns)")
    u.add_argument("--random-state", type=int, metavar="N", help="seed for robeigen's random MCD subsets")
    u.add_argument("--json", action="store_true", help="print JSON instead of text")
    u.set_defaults(run=run)


def run(args, out) -> int:
    ws = Warnings()
    if args.demo:
        if args.original or args.masked:
            raise UsageError("give either --demo or the files ORIGINAL and MASKED, not both.")
        from ..datasets import demo_path

        orig_path, masked_path = str(demo_path(False)), str(demo_path(True))
        shown = (f"{demo_path(False).name} (pysdc's demo data)", f"{demo_path(True).name} (pysdc's demo data)")
    else:
        if not args.original or not args.masked:
            raise UsageError("utility needs two files, ORIGINAL and MASKED (or --demo).")
        orig_path, masked_path = args.original, args.masked
        shown = (orig_path, masked_path)

    categorical = split_names(args.categorical, "--categorical")
    ordered = parse_ordered(args.ordered)
    scales = parse_scales(args.scale)
    text = split_names(args.text, "--text")
    vars_ = split_names(args.vars, "--vars")
    if vars_ is None and args.demo:
        vars_ = list(_DEMO_UTILITY_VARS)
    for label, path in (("ORIGINAL", orig_path), ("MASKED", masked_path)):
        if not Path(path).name.lower().endswith((".parquet", ".pq")) and not Path(path).exists():
            raise FileNotFoundError(f"{label} file {path!r} does not exist")
    from .._io import read_header, separator_hint

    hx, hm = read_header(orig_path), read_header(masked_path)
    only_x = [c for c in hx if c not in hm]
    only_xm = [c for c in hm if c not in hx]
    if vars_ is None:
        vars_ = [c for c in hx if c in hm]
        if not vars_:
            raise InvalidParameterError("ORIGINAL and MASKED have no column in common; the measures compare "
                                        "variables by name." + (separator_hint(hx) or separator_hint(hm)))
    else:
        for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
            miss = [v for v in vars_ if v not in header]
            if miss:
                raise InvalidParameterError(
                    f"--vars names column(s) {miss} that {label} does not have; "
                    f"its columns are {header[:20]}{' ...' if len(header) > 20 else ''}.{separator_hint(header)}"
                )
    for flag, cols in (("--categorical", categorical or []), ("--ordered", list(ordered)), ("--text", text or [])):
        for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
            miss = [c for c in cols if c not in header]
            if miss:
                raise InvalidParameterError(f"{flag} names column(s) {miss} that {label} does not have.")
    # only the compared variables are read: declarations of other columns have nothing to act on
    categorical = [c for c in categorical or [] if c in vars_]
    ordered = {c: lv for c, lv in ordered.items() if c in vars_}
    text = [c for c in text or [] if c in vars_]
    x = load(orig_path, args.schema, "ORIGINAL", ws, args.na, columns=vars_, text=text)
    masked_schema = args.masked_schema
    if masked_schema is None and args.schema is not None:
        from .._io import schema_path

        if not schema_path(masked_path).exists():
            masked_schema = args.schema
    xm = load(masked_path, masked_schema, "MASKED", ws, args.na, columns=vars_, text=text)
    if x.shape[0] != xm.shape[0]:
        raise InvalidParameterError(
            f"ORIGINAL has {x.shape[0]} records but MASKED has {xm.shape[0]}; the measures compare record by record "
            "(row i of one file with row i of the other), so both files must hold the same records in the same order."
        )
    x = declare(x, "ORIGINAL", categorical, ordered)
    xm = declare(xm, "MASKED", categorical, ordered)
    bad_scale = [c for c in scales if c not in vars_]
    if bad_scale:
        raise InvalidParameterError(f"--scale names column(s) {bad_scale} that are not among the variables used "
                                    f"({', '.join(vars_)}).")
    listed = args.vars is None and not args.demo
    report = utility_report(
        x, xm, vars_=vars_, scales=scales, random_state=args.random_state,
        original={"path": shown[0], "n_columns": len(hx)}, masked={"path": shown[1], "n_columns": len(hm)},
        only_in=(only_x, only_xm) if listed else ([], []), run=ws.run,
    )
    return emit_report(report, ws, args.json, utility_text, out)
