"""``pysdc protect``: protect a file by a recipe of sdcMicro's methods, natively (parse, build a problem, render).

The recipe (JSON; YAML too when PyYAML is installed) lists the steps, each a method of the problem object
(:class:`pysdc.SdcProblem`'s ``global_recode``, ``local_suppression``, ... -- Python or sdcMicro names) with its
arguments::

    {"steps": [
        {"method": "global_recode", "column": "age", "breaks": [-Infinity, 15, 30, 45, 60, 75, Infinity]},
        {"method": "localSuppression", "k": 3},
        {"method": "microaggregation", "aggr": 3},
        {"method": "pram", "variables": ["hsize"], "random_state": 1}
    ]}

A method with an argument named ``method`` (microaggregation, add_noise, global_recode) takes it in the forms
``{"microaggregation": {"method": "mdav"}}`` or ``{"method": "microaggregation", "arguments": {"method": "mdav"}}``.

Ghost variables (sdcMicro's ``ghostVars``: suppressed wherever their key variable is) are linked from the start by
the recipe's ``"ghost_vars": {"key": ["ghost", ...]}`` (or sdcMicro's ``[["key", ["ghost", ...]], ...]``; the
problem's ``ghost_vars=``) or by ``--ghost key=ghost1,ghost2``, and between steps by the step
``{"method": "add_ghost_vars", "key_var": "key", "ghost_vars": ["ghost"]}`` (``addGhostVars``, the problem's
:meth:`~pysdc.SdcProblem.add_ghost_vars`: suppression steps after it only).

Every step is checked before any data is read (an unknown method or argument: ``pysdc: error:``, exit 2); the
variables and values are checked by the methods, and nothing is written unless every step succeeded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from .._errors import InvalidParameterError
from .._paths import schema_path
from .._validation import Columns, Frame
from ..io import (
    Codebook,
    atomic_output,
    check_output,
    read_codebook,
    read_header,
    recoded_key_labels,
    refuse_overwriting_inputs,
    write_labelled,
    write_table,
)
from ..problem import SdcProblem, write_report
from ..problem._steps import STEP_METHODS, bind_step
from ._common import (
    FORMATS,
    UsageError,
    Warnings,
    add_names_flag,
    add_type_flags,
    check_columns,
    declare,
    load,
    parse_ordered,
    rescue_positionals,
    split_names,
)
from .risk import add_collation_flag, flags_for

__all__ = ["add_parser", "run", "read_recipe", "Recipe", "GHOST_STEP"]

#: the recipe step that links ghost variables (sdcMicro's addGhostVars; SdcProblem.add_ghost_vars), by both names
GHOST_STEP = "add_ghost_vars"
_GHOST_NAMES = (GHOST_STEP, "addGhostVars")
#: its arguments, by Python and sdcMicro names
_GHOST_ARGS = {"key_var": "key_var", "keyVar": "key_var", "ghost_vars": "ghost_vars", "ghostVars": "ghost_vars"}

#: the formats --output writes, by extension
OUTPUT_EXTENSIONS = (".csv", ".csv.gz", ".parquet", ".pq", ".sav", ".dta")

try:  # optional: recipes in YAML
    import yaml as _yaml
except ImportError:  # pragma: no cover - PyYAML is an optional dependency
    _yaml = None


def add_parser(sub) -> None:
    r = sub.add_parser(
        "protect", help="protect a file by a recipe of sdcMicro's methods (natively)",
        description="Apply protection methods (sdcMicro's globalRecode, localSuppression, microaggregation, pram, "
                    "addNoise, ... natively) to DATA, step by step as in an sdcMicroObj, and write the protected "
                    "file; with --report the HTML report of the risk before and after, the information loss and "
                    "the steps.",
    )
    r.add_argument("data", metavar="DATA", help=f"data file ({FORMATS})")
    r.add_argument("--recipe", required=True, metavar="FILE",
                   help="the steps: a JSON file (YAML with PyYAML) {\"steps\": [{\"method\": \"localSuppression\", "
                        "\"k\": 3}, ...]}; methods: " + ", ".join(sorted(STEP_METHODS)))
    add_names_flag(r, "--keys", "categorical key (quasi-identifying) variables (keyVars)")
    add_names_flag(r, "--numeric", "numeric key variables (numVars)")
    r.add_argument("--weight", metavar="W", help="sampling weight column (weightVar)")
    r.add_argument("--hid", metavar="H", help="household id column (hhId)")
    r.add_argument("--strata", metavar="S", help="strata column (strataVar)")
    add_names_flag(r, "--sensitive", "sensitive variables (sensibleVar)")
    add_names_flag(r, "--pram", "PRAM variables (pramVars): the variables of a pram step that names none; "
                                "made categorical")
    r.add_argument("--ghost", action="append", metavar="KEY=G1,G2",
                   help="ghost variables (ghostVars) linked to the key variable KEY from the start: suppressed "
                        "wherever KEY is (repeat the flag for several keys; the recipe's \"ghost_vars\" too)")
    r.add_argument("--output", "-o", required=True, metavar="FILE",
                   help="the protected file: .csv/.csv.gz (with its schema sidecar), .parquet, .sav (SPSS) or .dta "
                        "(Stata), categories kept as value labels; never over an input, only once complete")
    r.add_argument("--report", metavar="FILE.html", help="also write the HTML report (before and after, the steps)")
    r.add_argument("--schema", metavar="S", help="schema JSON of DATA (default: its sidecar, if any)")
    r.add_argument("--no-plots", action="store_true", help="no figures in the report")
    r.add_argument("--json", action="store_true", help="print the steps and the risk before/after as JSON")
    add_collation_flag(r)
    add_type_flags(r)
    r.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (by default, a run taking more than 2 s shows its stages and a "
                        "line every 10 s during a long step)")
    r.set_defaults(run=run)


# =============================================================================
# the recipe


def _method_name(name) -> str:
    if not isinstance(name, str):
        raise InvalidParameterError(f"recipe: a step's method must be a name; got {name!r}.")
    if name in _GHOST_NAMES:
        return GHOST_STEP
    if name in STEP_METHODS:
        return name
    by_r = {m.r: m.python for m in STEP_METHODS.values()}
    if name in by_r:
        return by_r[name]
    raise InvalidParameterError(f"recipe: unknown method {name!r}; the methods are "
                                f"{sorted([*STEP_METHODS, GHOST_STEP])} (or sdcMicro's names {sorted(by_r)}).")


def _names_list(what: str, value) -> list[str]:
    """A ghost list: a name or a non-empty list of names."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(v, str) and v for v in names):
        raise InvalidParameterError(f"{what} must be a column name or a non-empty list of column names; "
                                    f"got {value!r}.")
    return list(names)


def _ghost_links(value) -> list[tuple[str, list[str]]]:
    """The recipe's ``ghost_vars``, ``{"key": ["ghost", ...]}`` or sdcMicro's ``[["key", ["ghost", ...]], ...]``,
    as (key, ghosts) pairs (their roles are checked with the data, by :class:`pysdc.SdcProblem`)."""
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 for p in value):
        pairs = [tuple(p) for p in value]
    else:
        raise InvalidParameterError(
            "recipe: ghost_vars must be an object {\"key_var\": [\"ghost\", ...]} or sdcMicro's list "
            f"[[\"key_var\", [\"ghost\", ...]], ...]; got {value!r}.")
    out = []
    for key, ghosts in pairs:
        if not isinstance(key, str) or not key:
            raise InvalidParameterError(f"recipe: ghost_vars: a key variable must be a column name; got {key!r}.")
        out.append((key, _names_list(f"recipe: ghost_vars of {key!r}", ghosts)))
    return out


def _ghost_step(args: dict) -> dict:
    """The arguments of an add_ghost_vars step (Python or sdcMicro names)."""
    unknown = sorted(set(args) - set(_GHOST_ARGS))
    if unknown:
        raise InvalidParameterError(f"{GHOST_STEP}: unknown argument(s) {unknown}; it takes key_var (keyVar) and "
                                    "ghost_vars (ghostVars).")
    bound = {}
    for k, v in args.items():
        if _GHOST_ARGS[k] in bound:
            raise InvalidParameterError(f"{GHOST_STEP}: {_GHOST_ARGS[k]} given twice (by its Python and R names).")
        bound[_GHOST_ARGS[k]] = v
    if set(bound) != {"key_var", "ghost_vars"}:
        raise InvalidParameterError(f"{GHOST_STEP}: needs key_var and ghost_vars.")
    if not isinstance(bound["key_var"], str) or not bound["key_var"]:
        raise InvalidParameterError(f"{GHOST_STEP}: key_var must be a column name; got {bound['key_var']!r}.")
    bound["ghost_vars"] = _names_list(f"{GHOST_STEP}: ghost_vars", bound["ghost_vars"])
    return bound


class Recipe(list):
    """The steps of a recipe, ``(method, arguments)`` each, and :attr:`ghost_vars`: the ghost links from the start
    (``[(key, [ghost, ...]), ...]``, empty without)."""

    def __init__(self, steps=(), ghost_vars=()):
        super().__init__(steps)
        self.ghost_vars = list(ghost_vars)

    def columns(self) -> list[str]:
        """Every ghost and key column the ghost links name (checked against the data's header)."""
        cols = [c for k, gs in self.ghost_vars for c in (k, *gs)]
        cols += [c for name, a in self if name == GHOST_STEP for c in (a["key_var"], *a["ghost_vars"])]
        return list(dict.fromkeys(cols))


def parse_recipe(obj) -> Recipe:
    """The steps of a recipe object as ``(method, arguments)``, each bound to the method's signature, and its
    ghost variables (:class:`Recipe`)."""
    steps = obj.get("steps") if isinstance(obj, dict) else obj
    if isinstance(obj, dict) and set(obj) - {"steps", "ghost_vars"}:
        raise InvalidParameterError(f"recipe: unknown key(s) {sorted(set(obj) - {'steps', 'ghost_vars'})}; a "
                                    "recipe is {\"steps\": [...]} (and \"ghost_vars\": {\"key\": [...]}).")
    ghosts = _ghost_links(obj["ghost_vars"]) if isinstance(obj, dict) and obj.get("ghost_vars") is not None else []
    if not isinstance(steps, list) or not steps:
        raise InvalidParameterError("recipe: 'steps' must be a non-empty list of steps.")
    out = []
    for i, st in enumerate(steps, 1):
        if not isinstance(st, dict):
            raise InvalidParameterError(f"recipe: step {i} must be an object; got {st!r}.")
        if "method" in st:
            args = {k: v for k, v in st.items() if k != "method"}
            if set(args) == {"arguments"} and isinstance(args["arguments"], dict):
                args = args["arguments"]
            name = st["method"]
        elif len(st) == 1:  # {"localSuppression": {"k": 3}}
            (name, args), = st.items()
            args = {} if args is None else args
            if not isinstance(args, dict):
                raise InvalidParameterError(f"recipe: step {i}: the arguments of {name!r} must be an object.")
        else:
            raise InvalidParameterError(f"recipe: step {i} names no method (\"method\": ...).")
        name = _method_name(name)
        try:
            if name == GHOST_STEP:
                bound = _ghost_step(args)
            else:
                bound = bind_step(name, (), args)
                _check_values(name, bound)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"recipe: step {i}: {exc}") from None
        out.append((name, bound))
    if all(name == GHOST_STEP for name, _ in out):
        raise InvalidParameterError("recipe: 'steps' must hold at least one protection method.")
    return Recipe(out, ghosts)


def _check_values(name: str, bound: dict) -> None:
    """The values whose constraints do not depend on the data (numbers, options, seeds), before the data are read."""
    params = STEP_METHODS[name].params
    for arg, value in bound.items():
        c = params.get(arg)
        if c is None or isinstance(c, (Columns, Frame)):
            continue  # columns are checked against the data, by the method
        try:
            c.check(arg, value, bound)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"{name}: {exc}") from None
        except (KeyError, TypeError, AttributeError):  # a constraint that reads other values: checked by the method
            continue


def read_recipe(path: str) -> Recipe:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"recipe file {path!r} does not exist")
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() in (".yaml", ".yml"):
        if _yaml is None:
            raise InvalidParameterError(f"recipe {path!r} is YAML, which needs PyYAML (pip install pyyaml); or write "
                                        "it as JSON.")
        try:
            obj = _yaml.safe_load(text)
        except _yaml.YAMLError as exc:
            raise InvalidParameterError(f"recipe {path!r} is not valid YAML: {' '.join(str(exc).split())}") from None
    else:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidParameterError(f"recipe {path!r} is not valid JSON: {exc}") from None
    return parse_recipe(obj)


# =============================================================================
# writing the protected file


def write_protected(df: pd.DataFrame, path: str, codebook: Codebook | None = None, recoded: dict | None = None) -> None:
    """``df`` to ``path`` by its extension, complete or not at all (a temporary file beside it, then renamed).

    A ``.sav`` or ``.dta`` keeps the input's codebook (``codebook``, :func:`pysdc.io.read_codebook`): the codes of
    its labels, new categories above them, variable labels, SPSS user-missing ranges; ``recoded``: the interval
    labels of numeric key variables holding globalRecode's codes (see :mod:`pysdc.io._labelled_write`)."""
    name = path.lower()
    if name.endswith((".csv", ".csv.gz")):
        write_table(df, path)  # with its schema sidecar: the categories and types kept
    elif name.endswith((".sav", ".dta")):
        write_labelled(df, path, codebook, recoded)
    elif name.endswith((".parquet", ".pq")):
        with atomic_output(path) as tmp:
            df.to_parquet(tmp, index=False)
    else:  # pragma: no cover - checked before any work
        raise InvalidParameterError(f"--output {path!r}: unknown format.")


# =============================================================================
# the command


def run(args, out) -> int:
    ws = Warnings()
    rescue_positionals(args, ["data"], ["keys", "numeric", "sensitive", "pram"])
    keys = split_names(args.keys, "--keys")
    if keys is None:
        raise UsageError("protect needs the key variables: --keys a,b,c.")
    numeric = split_names(args.numeric, "--numeric") or []
    sensitive = split_names(args.sensitive, "--sensitive") or []
    pram_vars = split_names(args.pram, "--pram") or []
    steps = read_recipe(args.recipe)  # every step checked before any data is read
    ghost_links = _ghost_flags(args.ghost) + steps.ghost_vars
    inputs = [args.data, args.schema, args.recipe]
    check_output(args.output, inputs, extensions=OUTPUT_EXTENSIONS,
                 format_name="the protected data (.csv, .csv.gz, .parquet, .sav, .dta)")
    if args.output.lower().endswith((".csv", ".csv.gz")):  # written with its sidecar: not an input's either
        refuse_overwriting_inputs(schema_path(args.output), inputs,
                                  what=f"--output {args.output!r} writes its schema sidecar, and")
    if args.report:
        check_output(args.report, [*inputs, args.output], what="--report", extensions=(".html", ".htm"),
                     format_name="the report as HTML")
        if Path(args.report).resolve() == Path(args.output).resolve():
            raise UsageError("--report and --output must be different files.")
    if not args.data.lower().endswith((".parquet", ".pq")) and not Path(args.data).exists():
        raise FileNotFoundError(f"DATA file {args.data!r} does not exist")
    header = read_header(args.data)
    categorical = split_names(args.categorical, "--categorical") or []
    ordered = parse_ordered(args.ordered)
    for flag, cols in (("--keys", keys), ("--numeric", numeric), ("--sensitive", sensitive), ("--pram", pram_vars),
                       ("--weight", [args.weight] if args.weight else []), ("--hid", [args.hid] if args.hid else []),
                       ("--strata", [args.strata] if args.strata else []), ("--categorical", categorical),
                       ("--ordered", list(ordered)),
                       ("--ghost / the recipe's ghost variables", [c for k, gs in ghost_links for c in (k, *gs)]
                        + steps.columns())):
        check_columns(flag, cols, header, "DATA")
    data = load(args.data, args.schema, "DATA", ws, args.na, text=split_names(args.text, "--text"))
    data = declare(data, "DATA", [*categorical, *(v for v in pram_vars if v not in categorical)], ordered)
    try:
        problem = ws.run("specification", SdcProblem, data, keys, num_vars=numeric, w=args.weight, hid=args.hid,
                         strata=args.strata, sensitive=sensitive, collation=args.collation,
                         ghost_vars=[[k, gs] for k, gs in ghost_links] or None)
    except InvalidParameterError as exc:
        raise InvalidParameterError(flags_for(str(exc))) from None
    for i, (name, arguments) in enumerate(steps, 1):
        if name == GHOST_STEP:  # linked from here on (sdcMicro's addGhostVars on the object)
            try:
                problem = problem.add_ghost_vars(arguments["key_var"], arguments["ghost_vars"])
            except InvalidParameterError as exc:
                raise InvalidParameterError(f"recipe: step {i} ({name}): {exc}") from None
            continue
        if name == "pram" and arguments.get("variables") is None:
            if not pram_vars:
                raise InvalidParameterError(f"recipe: step {i} (pram) names no variables and no --pram was given.")
            arguments = {**arguments, "variables": pram_vars}
        try:
            problem = ws.run(f"step {i}: {name}", getattr(problem, name), **arguments)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"recipe: step {i} ({name}): {exc}") from None
    before = ws.run("risk (original)", problem.risk, data="original", suda=False).to_dict(top=0)
    after = ws.run("risk (protected)", problem.risk, suda=False).to_dict(top=0)
    labelled = args.output.lower().endswith((".sav", ".dta"))
    write_protected(problem.manip_data, args.output, read_codebook(args.data) if labelled else None,
                    recoded_key_labels(problem.manip_data, problem.manip_key_vars) if labelled else None)
    if args.report:
        ws.run("report", write_report, problem, None, args.report, plots=not args.no_plots,
               source={"original": args.data, "masked": args.output})
    summary = {"format": "pysdc-protect-1", "data": args.data, "output": args.output, "report": args.report,
               "steps": [s.to_dict() for s in problem.steps],
               "risk": {"before": _global(before), "after": _global(after)}}
    summary["warnings"] = ws.as_json()
    if args.json:
        print(json.dumps(summary, indent=2, allow_nan=False, default=str), file=out)
    else:
        for i, s in enumerate(summary["steps"], 1):
            print(f"step {i}: {s['r']}", file=out)
        b, a = summary["risk"]["before"], summary["risk"]["after"]
        print(f"expected re-identifications: {b['expected_reidentifications']:.4f} before, "
              f"{a['expected_reidentifications']:.4f} after", file=out)
        print(f"wrote {args.output}" + (f" and {args.report}" if args.report else ""), file=out)
        ws.emit(sys.stderr)
    return 0


def _ghost_flags(values) -> list[tuple[str, list[str]]]:
    """``--ghost KEY=G1,G2`` (repeatable) as (key, ghosts) pairs."""
    out = []
    for v in values or ():
        key, sep, ghosts = str(v).partition("=")
        if not sep or not key.strip() or not ghosts.strip():
            raise UsageError(f"--ghost takes KEY=GHOST1,GHOST2 (a key variable and its ghost variables); got {v!r}.")
        out.append((key.strip(), split_names(ghosts, "--ghost")))
    return out


def _global(rep: dict) -> dict:
    g = rep.get("global") or {}
    return {"expected_reidentifications": g.get("expected_reidentifications"),
            "global_risk_pct": g.get("global_risk_pct")}
