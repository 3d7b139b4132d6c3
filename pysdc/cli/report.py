"""``pysdc report``: the HTML report of an SDC problem (parse, then render through pysdc.SdcProblem)."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from .._errors import InvalidParameterError
from .._validation import user_stacklevel
from ..datasets import demo_path
from ..io import check_output, schema_path, sigterm_as_exception, write_text
from ..problem import SdcProblem, report_assessment
from ..report import jsonable, render_html
from ._common import (
    FORMATS,
    UsageError,
    Warnings,
    add_alias,
    add_names_flag,
    add_type_flags,
    declare,
    load,
    parse_ordered,
    rescue_positionals,
    split_names,
    warn_same_file,
)
from .risk import add_collation_flag, flags_for

__all__ = ["add_parser", "run"]

#: the names ``pysdc report --output`` accepts: the report (HTML), or its numbers as JSON (as ``--json`` prints them)
REPORT_EXTENSIONS = (".html", ".htm", ".json")

_DEMO = {"keys": ("region", "urbrur", "sex", "age_group", "education"), "num": ("income", "expenditure", "savings"),
         "weight": "weight", "hid": "hid", "sensitive": ("health_status",),
         "regression": "log(income) ~ age_group + sex + education", "regression_where": "income > 0"}


def add_parser(sub) -> None:
    r = sub.add_parser(
        "report", help="HTML report of an SDC problem (risk, information loss, plots)",
        description="Write one self-contained HTML file (no network needed to view it): the specification, the "
                    "risk summary and its distribution (individual, household, SUDA2, l-diversity), and with "
                    "MASKED the information loss per variable, the before/after comparison and the practice "
                    "guide's plots (with matplotlib). Every number says whether it is sdcMicro's or a "
                    "literature measure.",
    )
    r.add_argument("original", nargs="?", metavar="ORIGINAL", help=f"original data ({FORMATS})")
    r.add_argument("masked", nargs="?", metavar="MASKED", help="masked data, same records in the same order")
    r.add_argument("--demo", action="store_true", help="use pysdc's demo data (original and masked)")
    add_names_flag(r, "--keys", "categorical key variables (keyVars)")
    add_names_flag(r, "--numeric", "numeric (continuous) variables (numVars)")
    add_alias(r, "--num", "--numeric", "numeric", nargs="+")
    r.add_argument("--weight", metavar="W", help="sampling weight column (weightVar)")
    r.add_argument("--hid", metavar="H", help="household id column (hhId)")
    r.add_argument("--strata", metavar="S", help="strata column (strataVar)")
    add_names_flag(r, "--sensitive", "sensitive variables for l-diversity (sensibleVar)")
    r.add_argument("--output", "-o", metavar="FILE", default="report.html",
                   help="where to write the report, its format by the extension: .html or .htm (the report; "
                        "default report.html) or .json (its numbers, as --json prints them); never over an "
                        "input, and only once complete (a temporary file beside it, then renamed)")
    r.add_argument("--json", action="store_true",
                   help="print the report's numbers as JSON on stdout instead of text (as risk and utility do): "
                        '{"original": pysdc-risk-1, "masked": pysdc-risk-1 or null, "utility": pysdc-utility-1 '
                        'or null, "warnings": [...]} (docs/json.md); the report is still written to --output')
    r.add_argument("--title", metavar="TEXT", help="title of the report")
    r.add_argument("--regression", metavar="FORMULA",
                   help='a model compared before/after, in R syntax, e.g. "log(income) ~ age + sex" (needs MASKED)')
    r.add_argument("--regression-where", metavar="COND",
                   help='records the regression uses, e.g. "income > 0 & sex == \'female\'" (applied to each '
                        "file; read by pysdc's own parser, never run as Python: column names (`with spaces` in "
                        "backquotes), numbers, 'strings', + - * /, == != < <= > >=, in / %%in%% / isin(), isna() / "
                        "notna(), & | ~ and or not ! && ||, parentheses; a comparison with a missing value is false)")
    r.add_argument("--estimate", action="append", metavar="EST",
                   help='a benchmark indicator compared before/after, e.g. "mean(income)" (repeatable; default: '
                        "the mean of each numeric variable)")
    r.add_argument("--random-state", type=int, metavar="N",
                   help="seed for robeigen's and dRiskRMD's random subsets and bootstrap intervals")
    r.add_argument("--top", type=int, default=10, metavar="N", help="riskiest combinations listed (default 10)")
    r.add_argument("--k", type=int, default=3, metavar="K",
                   help="the verdict's k-anonymity: every key combination shared by at least K records (default 3)")
    r.add_argument("--max-global-risk", type=float, default=0.01, metavar="R",
                   help="target of the global risk the verdict compares with, in (0, 1) (default 0.01)")
    r.add_argument("--no-plots", action="store_true", help="no figures (tables only)")
    r.add_argument("--schema", metavar="S", help="schema JSON of ORIGINAL (default: its sidecar, if any)")
    r.add_argument("--masked-schema", metavar="S", help="schema JSON of MASKED (default: its sidecar, else --schema)")
    add_collation_flag(r)
    add_type_flags(r)
    r.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (by default, a run taking more than 2 s shows its stages and a "
                        "line every 10 s during a long step)")
    r.set_defaults(run=run)


def run(args, out) -> int:
    ws = Warnings()
    rescue_positionals(args, ["original", "masked"], ["keys", "numeric", "sensitive"])
    regression, where = args.regression, args.regression_where
    if args.demo:
        if args.original or args.masked:
            raise UsageError("give either --demo or the files ORIGINAL [MASKED], not both.")
        orig_path, masked_path = str(demo_path(False)), str(demo_path(True))
        shown = {"original": f"{demo_path(False).name} (pysdc's demo data)",
                 "masked": f"{demo_path(True).name} (pysdc's demo data)"}
        keys = split_names(args.keys, "--keys") or list(_DEMO["keys"])
        num = split_names(args.numeric, "--numeric") if args.numeric is not None else list(_DEMO["num"])
        weight = args.weight if args.weight is not None else _DEMO["weight"]
        hid = args.hid if args.hid is not None else _DEMO["hid"]
        sensitive = split_names(args.sensitive, "--sensitive") if args.sensitive is not None else list(_DEMO["sensitive"])
        if regression is None:
            regression, where = _DEMO["regression"], where or _DEMO["regression_where"]
    else:
        if not args.original:
            raise UsageError("report needs a file ORIGINAL (and optionally MASKED), or --demo.")
        orig_path, masked_path = args.original, args.masked
        shown = {"original": orig_path, "masked": masked_path}
        keys = split_names(args.keys, "--keys")
        if keys is None:
            raise UsageError("report needs the key variables: --keys a,b,c.")
        num = split_names(args.numeric, "--numeric") or []
        weight, hid = args.weight, args.hid
        sensitive = split_names(args.sensitive, "--sensitive") or []
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more; got {args.top}.")
    if args.k < 1:
        raise UsageError(f"--k must be 1 or more; got {args.k}.")
    if not 0 < args.max_global_risk < 1:
        raise UsageError(f"--max-global-risk must be in (0, 1); got {args.max_global_risk}.")
    if args.random_state is not None and args.random_state < 0:
        raise UsageError(f"--random-state must be 0 or more; got {args.random_state}.")
    if regression and masked_path is None:
        raise UsageError("--regression compares the original with the masked file: give MASKED.")
    # before any work: an HTML (or JSON) name, never an input (nor a sidecar, nor a link to one)
    out_path = check_output(args.output, [orig_path, masked_path, args.schema, args.masked_schema],
                            extensions=REPORT_EXTENSIONS,
                            format_name="the report as HTML (.html, .htm) or its numbers as JSON (.json)")
    if out_path.parent and not out_path.parent.exists():
        raise FileNotFoundError(f"the directory of --output {args.output!r} does not exist")
    categorical = split_names(args.categorical, "--categorical")
    ordered = parse_ordered(args.ordered)
    text = split_names(args.text, "--text")
    x = load(orig_path, args.schema, "ORIGINAL", ws, args.na, text=text)
    x = declare(x, "ORIGINAL", categorical, ordered)
    xm = None
    if masked_path is not None:
        masked_schema = args.masked_schema
        if masked_schema is None and args.schema is not None:
            if not schema_path(masked_path).exists():
                masked_schema = args.schema
        xm = load(masked_path, masked_schema, "MASKED", ws, args.na, text=text)
        xm = declare(xm, "MASKED", categorical, ordered)
        if not args.demo:
            warn_same_file(orig_path, masked_path, "ORIGINAL and MASKED", "every information loss is 0", ws)
        if len(xm) != len(x):
            raise InvalidParameterError(
                f"ORIGINAL has {len(x)} records but MASKED has {len(xm)}; the report compares record by record (row i "
                "of one file with row i of the other), so both files must hold the same records in the same order."
            )
    try:
        problem = ws.run("specification", SdcProblem, x, keys, num_vars=num, w=weight, hid=hid, strata=args.strata,
                         sensitive=sensitive, collation=args.collation)
    except InvalidParameterError as exc:  # the library's argument names -> the command's flags
        raise InvalidParameterError(flags_for(str(exc))) from None
    to_json = Path(out_path).suffix.lower() == ".json"
    with sigterm_as_exception():
        a = ws.run("report", _assess, problem, xm, out_path, None if to_json else render_html, title=args.title,
                   regression=regression, regression_where=where, estimates=args.estimate,
                   random_state=args.random_state, plots=not args.no_plots, top=args.top, source=shown, k=args.k,
                   max_global_risk=args.max_global_risk)
        if to_json or args.json:
            text = json.dumps(jsonable(_model(a, args.top, shown, x, xm, ws)), indent=2, allow_nan=False)
            if to_json:
                write_text(out_path, text + "\n", encoding="utf-8")
            if args.json:
                print(text, file=out)
    print(f"wrote {out_path}", file=sys.stderr if args.json else out)
    ws.emit(sys.stderr)
    return 0


def _assess(problem, xm, out_path, render, *, title, plots, source, **options) -> dict:
    """The report's assessment (:func:`pysdc.problem.report_assessment`), written as HTML by ``render``
    (:func:`pysdc.report.render_html`, which raises each warning once more for the command to print); for
    JSON only, the warnings are raised once more here."""
    a = report_assessment(problem, xm, **options)
    if render is not None:
        write_text(out_path, render(a, title=title, plots=plots, source=source), encoding="utf-8")
    else:
        seen = set()
        for _, w in a["caught"]:
            if (w.category, str(w.message)) not in seen:
                seen.add((w.category, str(w.message)))
                warnings.warn(str(w.message), w.category, stacklevel=user_stacklevel())
    return a


def _model(a: dict, top: int, shown: dict, x, xm, ws: Warnings) -> dict:
    """The report's numbers in the one model of ``pysdc risk`` and ``pysdc utility`` (as
    :meth:`pysdc.SdcProblem.compare`'s ``to_dict``): the original's and the masked file's risk
    (``pysdc-risk-1``), the information loss (``pysdc-utility-1``), and the command's warnings."""
    src = {"path": shown["original"], "n_columns": len(x.columns)}
    msrc = None if xm is None else {"path": shown["masked"], "n_columns": len(xm.columns)}
    return {"original": a["risk0"].to_dict(top=top, source=src),
            "masked": None if a["risk1"] is None else a["risk1"].to_dict(top=top, source=msrc),
            "utility": None if a["utility"] is None else a["utility"].to_dict(original=src, masked=msrc),
            "warnings": ws.as_json()}
