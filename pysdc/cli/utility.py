"""``pysdc utility``: information loss between an original and a masked file (parse, then render)."""

from __future__ import annotations

from pathlib import Path

from .._errors import InvalidParameterError
from .._registry import assessed
from .._selection import default_variables
from .._types import r_class
from ..datasets import demo_path
from ..io import atomic_output, check_output, read_header, refuse_overwriting_inputs, schema_path, separator_hint, sigterm_as_exception
from ..plots import utility_plots
from ..problem import SdcProblem
from ..problem._benchmarks import benchmark_section, referenced_columns
from ..report import utility_text
from ..report._benchmarks import benchmark_text
from ._common import (
    FORMATS,
    UsageError,
    Warnings,
    add_alias,
    add_names_flag,
    add_output_flag,
    add_type_flags,
    check_columns,
    check_result_output,
    declare,
    emit_report,
    load,
    parse_ordered,
    parse_scales,
    rescue_positionals,
    split_names,
    warn_same_file,
)
from ._engine import add_engine_options, choose_engine, run_utility
from .risk import flags_for

__all__ = ["add_parser", "run"]

_DEMO_UTILITY_VARS = ("region", "urbrur", "sex", "age_group", "marital", "education",
                      "income", "expenditure", "savings")


def add_parser(sub) -> None:
    u = sub.add_parser(
        "utility", help="information loss between an original and a masked file",
        description="Information-loss measures of MASKED relative to ORIGINAL: dUtility's IL1, IL1s, eigen, "
                    "robeigen (numeric variables), IL_correl and IL_variables, then literature measures (not "
                    "sdcMicro's): " + ", ".join(m.python for m in assessed("utility")) + ".",
    )
    u.add_argument("original", nargs="?", metavar="ORIGINAL", help=f"original data ({FORMATS})")
    u.add_argument("masked", nargs="?", metavar="MASKED", help="masked data, same records in the same order")
    u.add_argument("--demo", action="store_true", help="use pysdc's demo data (original and masked)")
    add_names_flag(u, "--numeric", "numeric (continuous) variables to compare (default: the double columns of both "
                                   "files but the weight (by --weight or by name), household id, record ids and key "
                                   "variables; the report "
                                   "says which were taken and which left out, and why)")
    add_names_flag(u, "--keys", "categorical (key) variables to compare (IL_variables, "
                   + ", ".join(m.python for m in assessed("utility") if m.compares != "numeric") + ")")
    add_alias(u, "--vars", "--numeric", "vars", nargs="+",
              advice="use --numeric for numeric variables and --keys for categorical ones")
    u.add_argument("--schema", metavar="S", help="schema JSON of ORIGINAL (default: its sidecar, if any)")
    u.add_argument("--masked-schema", metavar="S",
                   help="schema JSON of MASKED (default: its sidecar, else --schema)")
    add_type_flags(u)
    u.add_argument("--scale", action="append", metavar="COL=SCALE",
                   help="declare a variable's scale for il_variables: numeric, ordinal or nominal (repeatable; "
                        "needed for integer and logical columns)")
    u.add_argument("--random-state", type=int, metavar="N",
                   help="seed for robeigen's random MCD subsets (and the GINI bootstrap of --estimate)")
    u.add_argument("--estimate", action="append", metavar="SPEC",
                   help="benchmark indicator on both files, with intervals and their overlap (repeatable): "
                        "'mean(income)', 'total(income)', 'ratio(income, expenditure)', 'quantile(income, 0.9)', "
                        "'median(income)', 'gini(income)'")
    u.add_argument("--regression", action="append", metavar="FORMULA",
                   help="fit an R-syntax regression on both files and compare the coefficients (repeatable), "
                        "e.g. 'log(income) ~ age_group + sex + education'")
    u.add_argument("--family", default="gaussian", choices=("gaussian", "binomial", "poisson"),
                   help="family of --regression (gaussian: lm; binomial, poisson: glm)")
    u.add_argument("--ci", choices=("t", "profile", "wald"),
                   help="interval of --regression's coefficients (default: R's confint: t for gaussian, profile "
                        "likelihood for binomial/poisson; wald: confint.default)")
    u.add_argument("--weight", metavar="COL", help="weight column for --estimate and --regression (and left out of "
                                                   "the default --numeric variables)")
    u.add_argument("--hid", metavar="H", help="household id column (left out of the default --numeric variables)")
    u.add_argument("--level", type=float, default=0.95, metavar="P",
                   help="confidence level of --estimate and --regression intervals (default 0.95)")
    u.add_argument("--plots", metavar="DIR",
                   help="write before/after plots as PNG into DIR: histogram, density and boxplot per numeric "
                        "variable, mosaic plots of categorical pairs, coefficient intervals of the first "
                        "--regression (needs matplotlib: pip install 'pysdc-measures[plots]')")
    add_engine_options(u, output=False)
    add_output_flag(u)
    u.add_argument("--json", action="store_true", help="print JSON instead of text")
    u.set_defaults(run=run)


def run(args, out) -> int:
    ws = Warnings()
    rescue_positionals(args, ["original", "masked"], ["numeric", "keys", "vars"])
    if args.demo:
        if args.original or args.masked:
            raise UsageError("give either --demo or the files ORIGINAL and MASKED, not both.")
        orig_path, masked_path = str(demo_path(False)), str(demo_path(True))
        shown = (f"{demo_path(False).name} (pysdc's demo data)", f"{demo_path(True).name} (pysdc's demo data)")
    else:
        if not args.original or not args.masked:
            raise UsageError("utility needs two files, ORIGINAL and MASKED (or --demo).")
        orig_path, masked_path = args.original, args.masked
        shown = (orig_path, masked_path)
        check_result_output(args.output, [orig_path, masked_path, args.schema, args.masked_schema])
        warn_same_file(orig_path, masked_path, "ORIGINAL and MASKED", "every information loss is 0", ws)
        if choose_engine(args.engine, orig_path, masked_path, columns=_needed(args), memory_limit=args.memory_limit,
                         quiet=args.quiet) != "pandas":  # DuckDB or Spark (issue 11)
            if args.estimate or args.regression or args.plots:
                raise UsageError("--estimate, --regression and --plots need the records in memory: use --engine pandas.")
            keys, nums = _roles(args)
            return run_utility(args, orig_path, masked_path, keys, nums, parse_scales(args.scale), ws, out,
                               render=_render, split_by_class=getattr(args, "vars", None) is not None)
        if args.id is not None:
            raise UsageError("--id pairs the records on an engine; with --engine pandas (or a small file) the records "
                             "are paired by position: use --engine duckdb to pair them by --id.")

    categorical = split_names(args.categorical, "--categorical")
    ordered = parse_ordered(args.ordered)
    scales = parse_scales(args.scale)
    text = split_names(args.text, "--text")
    vars_ = _explicit_vars(args)
    if vars_ is None and args.demo:
        vars_ = list(_DEMO_UTILITY_VARS)
    keys = split_names(args.keys, "--keys") or []
    for label, path in (("ORIGINAL", orig_path), ("MASKED", masked_path)):
        if not Path(path).name.lower().endswith((".parquet", ".pq")) and not Path(path).exists():
            raise FileNotFoundError(f"{label} file {path!r} does not exist")
    hx, hm = read_header(orig_path), read_header(masked_path)
    only_x = [c for c in hx if c not in hm]
    only_xm = [c for c in hm if c not in hx]
    chosen = None  # the default variables: which were taken, which left out and why
    for flag, cols in (("--keys", keys), ("--weight", [args.weight] if args.weight else []),
                       ("--hid", [args.hid] if args.hid else [])):
        check_columns(flag, cols, hx, "ORIGINAL")
    if vars_ is None:
        common = [c for c in hx if c in hm]
        if not common:
            raise InvalidParameterError("ORIGINAL and MASKED have no column in common; the measures compare "
                                        "variables by name." + (separator_hint(hx) or separator_hint(hm)))
        check_columns("--keys", keys, hm, "MASKED")
        vars_ = common  # read them all to see their types; the default is chosen below
    else:
        for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
            check_columns(_vars_flag(args), vars_, header, label)
    estimates, regressions = list(args.estimate or []), list(args.regression or [])
    if not 0 < args.level < 1:
        raise UsageError(f"--level must lie strictly between 0 and 1; got {args.level}.")
    if args.ci is not None and not regressions:
        raise UsageError("--ci applies to --regression; give one.")
    if args.weight is not None and not (estimates or regressions) and (args.demo or _explicit_vars(args) is not None):
        raise UsageError("--weight applies to --estimate and --regression (and leaves the weight out of the default "
                         "variables, without --numeric); give one of them.")
    if args.plots is not None:
        _check_plots_dir(args.plots, [orig_path, masked_path, args.schema, args.masked_schema])
    extra = []  # columns the estimates, regressions and weight need beyond the compared variables
    if estimates or regressions:
        extra = referenced_columns(estimates + regressions, hx)
        if args.weight is not None:
            extra.append(args.weight)
        extra = [c for c in dict.fromkeys(extra) if c not in vars_ and c in hm]
    for flag, cols in (("--categorical", categorical or []), ("--ordered", list(ordered)), ("--text", text or [])):
        for label, header in (("ORIGINAL", hx), ("MASKED", hm)):
            check_columns(flag, cols, header, label)
    # only the compared variables (and those the benchmarks name) are read: declarations of other
    # columns have nothing to act on
    read = vars_ + extra
    categorical = [c for c in categorical or [] if c in read]
    ordered = {c: lv for c, lv in ordered.items() if c in read}
    text = [c for c in text or [] if c in read]
    x = load(orig_path, args.schema, "ORIGINAL", ws, args.na, columns=read, text=text)
    masked_schema = args.masked_schema
    if masked_schema is None and args.schema is not None:
        if not schema_path(masked_path).exists():
            masked_schema = args.schema
    xm = load(masked_path, masked_schema, "MASKED", ws, args.na, columns=read, text=text)
    if x.shape[0] != xm.shape[0]:
        raise InvalidParameterError(
            f"ORIGINAL has {x.shape[0]} records but MASKED has {xm.shape[0]}; the measures compare record by record "
            "(row i of one file with row i of the other), so both files must hold the same records in the same order."
        )
    x = declare(x, "ORIGINAL", categorical, ordered)
    xm = declare(xm, "MASKED", categorical, ordered)
    if chosen is None and _explicit_vars(args) is None and not args.demo:
        # columns declared --categorical / --ordered are meant: compared as categorical, like --keys
        keys = keys + [c for c in [*(categorical or []), *ordered] if c not in keys]
        chosen = default_variables(vars_, {c: r_class(x[c]) for c in vars_}, {c: r_class(xm[c]) for c in vars_},
                                   weight=args.weight, hid=args.hid, keys=keys, wanted=list(scales),
                                   record_id=lambda c: _record_id(x[c]))
        vars_ = keys + chosen["taken"]
        if not vars_:
            raise InvalidParameterError(
                "no variable to compare: ORIGINAL and MASKED have no double (numeric) column but those left out ("
                + "; ".join(f"{c}: {why}" for c, why in chosen["excluded"].items())
                + "); name the variables with --numeric a,b (numeric) or --keys a,b (categorical).")
    bad_scale = [c for c in scales if c not in vars_]
    if bad_scale:
        raise InvalidParameterError(f"--scale names column(s) {bad_scale} that are not among the variables used "
                                    f"({', '.join(vars_)}).")
    listed = _explicit_vars(args) is None and not args.demo
    # the roles: categorical (--keys, --categorical, --ordered) and numeric variables; with the deprecated
    # --vars (or the demo's list) a variable is numeric when it is a number in ORIGINAL
    if chosen is not None:
        nums = list(chosen["taken"])
    elif split_names(args.numeric, "--numeric") is not None and getattr(args, "vars", None) is None:
        nums = [c for c in vars_ if c not in keys]
    else:
        nums = [c for c in vars_ if c not in keys and r_class(x[c]) in ("numeric", "integer", "logical")]
    cats = [c for c in vars_ if c not in nums]
    try:
        problem = ws.run("specification", SdcProblem.for_utility, x, cats, num_vars=nums)
    except InvalidParameterError as exc:  # the library's argument names -> the command's flags
        raise InvalidParameterError(flags_for(str(exc))) from None
    res = ws.run("utility", problem.utility, xm, random_state=args.random_state, scales=scales or None, run=ws.run)
    report = res.to_dict(original={"path": shown[0], "n_columns": len(hx)},
                         masked={"path": shown[1], "n_columns": len(hm)}, selected=vars_,
                         only_in=(only_x, only_xm) if listed else ([], []))
    if chosen is not None:
        report["variable_selection"] = {"numeric_taken": chosen["taken"], "keys": keys,
                                        "left_out": chosen["excluded"]}
    comparisons = {}
    if estimates or regressions:
        report["benchmarks"], comparisons = benchmark_section(
            x, xm, estimates=estimates, regressions=regressions, w=args.weight, family=args.family,
            level=args.level, ci=args.ci, random_state=args.random_state, run=ws.run)
    if args.plots is not None:
        report["plots"] = _write_plots(x[vars_], xm[vars_], args.plots, next(iter(comparisons.values()), None),
                                       [orig_path, masked_path, args.schema, args.masked_schema])
    return emit_report(report, ws, args.json, _render, out, output=args.output)


def _render(report: dict) -> str:
    text = utility_text(report)
    lines = []
    sel = report.get("variable_selection")
    if sel:  # the default variables: which were taken, which left out and why
        lines += ["", "Variables (no --numeric given: the double columns of both files)",
                  f"  numeric taken: {', '.join(sel['numeric_taken']) or 'none'}"]
        if sel["keys"]:
            lines.append(f"  categorical (--keys, --categorical, --ordered): {', '.join(sel['keys'])}")
        for col, why in sel["left_out"].items():
            lines.append(f"  left out: {col}: {why}")
        lines.append("  name the variables with --numeric a,b (and --keys for categorical ones)")
    if report.get("benchmarks"):
        lines += benchmark_text(report["benchmarks"])
    if report.get("plots"):
        p = report["plots"]
        lines += ["", f"Plots: {len(p['files'])} PNG files in {p['directory']}"]
        lines += [f"  {f}" for f in p["files"]]
    return text + ("\n" + "\n".join(lines) if lines else "")


def _check_plots_dir(path: str, inputs) -> None:
    import importlib.util


    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError("--plots needs matplotlib, which is not installed: pip install 'pysdc-measures[plots]'.")
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise UsageError(f"--plots {path!r} exists and is not a directory.")
    refuse_overwriting_inputs(d, inputs, what="--plots")  # an input file named like the directory, or a link to it


def _write_plots(x, xm, directory: str, comparison, inputs=()) -> dict:
    """Every before/after plot of pysdc.plots as PNG files in ``directory``, each complete or not at all and
    never over an input (:mod:`pysdc.io`); their names in the report."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt


    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    figs = utility_plots(x, xm, regression=comparison)
    files = []
    for name, fig in figs.items():
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
        target = check_output(d / f"{safe}.png", inputs, what="--plots", extensions=(".png",))
        with sigterm_as_exception(), atomic_output(target) as tmp:
            fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        files.append(f"{safe}.png")
    return {"directory": str(d), "files": files}


def _needed(args):
    """The columns ``--engine auto`` estimates the memory of (None: all, without --numeric)."""
    names = _explicit_vars(args)
    return None if names is None else names + ([args.id] if args.id else [])


def _vars_flag(args) -> str:
    return "--vars" if getattr(args, "vars", None) is not None else "--keys/--numeric"


def _explicit_vars(args) -> list | None:
    """The variables named on the command line: --keys then --numeric (or the deprecated --vars); None
    when --numeric is not given (the default numeric variables are chosen from the data)."""
    old = split_names(getattr(args, "vars", None), "--vars")
    if old is not None:
        return old
    numeric = split_names(args.numeric, "--numeric")
    if numeric is None:
        return None
    keys = split_names(args.keys, "--keys") or []
    both = [c for c in numeric if c in keys]
    if both:
        raise UsageError(f"--numeric and --keys both name {both}; a variable is numeric or categorical.")
    return keys + numeric


def _roles(args) -> tuple[list, list | None]:
    """The categorical (--keys) and numeric (--numeric) variables named; numeric None: the default ones (with the
    deprecated --vars: the variables named, split by their type later)."""
    keys = split_names(args.keys, "--keys") or []
    old = split_names(getattr(args, "vars", None), "--vars")
    if old is not None:
        return keys, old
    numeric = split_names(args.numeric, "--numeric")
    both = [c for c in (numeric or []) if c in keys]
    if both:
        raise UsageError(f"--numeric and --keys both name {both}; a variable is numeric or categorical.")
    return keys, numeric


def _record_id(s) -> bool:
    import numpy as np

    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if len(v) < 10 or np.isnan(v).any():
        return False
    return bool(np.all(v == np.round(v))) and bool(np.all(np.diff(v) > 0))
