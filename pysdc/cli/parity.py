"""``pysdc parity``: re-check pysdc against the stored sdcMicro results, or on your own data."""

from __future__ import annotations

import sys

import numpy as np

import pysdc

from .. import parity, r
from .._errors import PysdcError
from ..io import read_table
from ..parity._userdata import MAX_RMD_RECORDS
from ..report import fmt_diff, text_table
from ._common import FORMATS, add_alias, rescue_positionals

__all__ = ["add_parser", "add_arguments", "run"]


def add_arguments(parser) -> None:
    """Arguments of ``pysdc parity``."""
    parser.add_argument("--reference-dir", default=None,
                        help="the r_reference directory (default: the one next to the pysdc package)")
    parser.add_argument("--output-dir", default="parity_reports", help="where to write the reports (default: %(default)s)")
    parser.add_argument("--function", action="append", default=None,
                        help="only this function: a measure or protection method (sdcMicro or pysdc name), or "
                             "one of the sections numerics, print, createSdcObj (repeatable)")
    parser.add_argument("--live", action="store_true",
                        help="also run every case through the R bridge (pysdc.r; needs R, rpy2 and sdcMicro)")
    parser.add_argument("--no-write", action="store_true", help="print the summary only, write no reports")
    parser.add_argument("data", nargs="?", default=None, metavar="DATA",
                        help=f"your own data file ({FORMATS}): run every measure with an sdcMicro counterpart "
                             "natively and in sdcMicro (through the R bridge: needs R, rpy2 and sdcMicro), and "
                             "pysdc.SdcProblem against sdcMicro's createSdcObj, and compare them")
    add_alias(parser, "--data", "the positional DATA (pysdc parity DATA --keys ...)", "alias_data",
              advice="give the file as the positional DATA, as in the other commands (pysdc parity DATA --keys ...)")
    parser.add_argument("--keys", nargs="+", default=None, metavar="A,B",
                        help="key variables of DATA (as a,b or a b)")
    parser.add_argument("--masked", default=None, metavar="MASKED",
                        help="masked version of DATA (information loss, dRisk, dRiskRMD)")
    parser.add_argument("--weight", default=None, metavar="W", help="sampling weight column of DATA (also modRisk)")
    parser.add_argument("--hid", default=None, metavar="H", help="household id column of DATA")
    parser.add_argument("--sensitive", nargs="+", default=None, metavar="A,B",
                        help="sensitive variables of DATA (ldiversity; as a,b or a b)")
    parser.add_argument("--random-state", type=int, default=1,
                        help="seed of robeigen's and dRiskRMD's MCD in both (R's set.seed) (default 1)")
    parser.add_argument("--max-rmd-records", type=int, default=None,
                        help="run dRiskRMD only up to this many records (sdcMicro builds an n x n distance "
                             "matrix; default 5000)")


def add_parser(sub) -> None:
    pp = sub.add_parser("parity", help="compare pysdc with sdcMicro (needs R and sdcMicro)")
    add_arguments(pp)
    pp.set_defaults(run=lambda args, out: int(run(args) or 0))


def _bridge():
    av = r.available()
    if not av:
        return None, av.reason
    return r, ""


def run(args) -> int:
    """Entry point of ``pysdc parity``; returns the exit status."""
    rescue_positionals(args, ["data"], ["keys", "sensitive"])
    bad = parity.unknown_functions(args.function)
    if bad:
        valid = ", ".join(f"{r} ({py})" for r, py in parity.FUNCTIONS.items())
        print(f"pysdc: error: --function {bad[0]!r} is not a measure, protection method or section with "
              f"stored sdcMicro cases; valid: {valid}.",
              file=sys.stderr)
        return 2
    if args.data:
        return _run_user_data(args)
    root = parity.reference_dir(args.reference_dir)
    if not (root / "outputs").is_dir():
        where = (f"at {root}" if args.reference_dir else
                 "in a source checkout next to the package, nor where pip installs it (share/pysdc/r_reference "
                 "under the environment's prefix)")
        print(f"pysdc: error: no stored reference corpus (r_reference/outputs) found {where}; reinstall pysdc "
              "(pip install pysdc-measures) or pass --reference-dir path/to/r_reference.", file=sys.stderr)
        return 2
    cases = parity.load_corpus(root, args.function)
    divs = parity.load_divergences(root)
    header = parity.corpus_header(root)
    status = 0
    runs = [("native", None)]
    if args.live:
        bridge, why = _bridge()
        if bridge is None:
            print(f"pysdc parity: --live needs the R bridge with sdcMicro: {why}", file=sys.stderr)
            return 2
        runs.append(("live", bridge))
    for i, (mode, impl) in enumerate(runs):
        outcomes = [parity.check_case(c, impl, root, divs, mode) for c in cases]
        summary = parity.summarize(outcomes)
        if not args.no_write:
            parity.write_reports(outcomes, args.output_dir, header, mode, divs)
        if i:
            print()
        print(f"{mode}:")
        name_width = max((len(fun) for fun in summary), default=16)
        for fun, s in summary.items():
            not_run = f"  {s['not_run']} not run" if s.get("not_run") else ""
            print(f"  {fun:{name_width}s} {s['cases']:4d} cases  {s['passed']:4d} passed  {s['xfail']:3d} xfail  "
                  f"{s['failed'] + s['xpass']:4d} failed{not_run}  {worst_text(s)}")
        if any(o.status in ("failed", "xpass") for o in outcomes):
            status = 1
    if not args.no_write:
        print(f"reports written to {args.output_dir}/")
    return status


def worst_text(s: dict) -> str:
    """The worst difference of the passed cases and which tolerance accepted it."""
    if s.get("kind") == "method":
        return "every value compared (codes, MD5 of all values, R's stream)"
    decided = s.get("worst_decided_by")
    if decided == "atol":
        return (f"worst rel diff {fmt_diff(s['worst_rel_diff'])} (value near 0: abs diff "
                f"{fmt_diff(s['worst_rel_abs_diff'])} <= atol {s['worst_tolerance']:g})")
    if decided == "rtol":
        return f"worst rel diff {fmt_diff(s['worst_rel_diff'])} (rtol {s['worst_tolerance']:g})"
    return f"worst rel diff {fmt_diff(s['worst_rel_diff'])}"


def _show(v) -> str:
    if isinstance(v, str):
        return v
    a = np.asarray(v)
    return f"{float(a.ravel()[0]):.10g}" if a.size == 1 else f"[{a.size} values]"


def _run_user_data(args) -> int:
    """Native vs sdcMicro (through the bridge) on the user's own data; prints a table."""
    bridge, why = _bridge()
    if bridge is None:
        print(f"pysdc parity: --data runs sdcMicro itself on your data, through the R bridge (pysdc.r), and it is "
              f"not available: {why}. Install R, rpy2 (pip install 'pysdc-measures[r]') and sdcMicro "
              "(install.packages('sdcMicro') in R); pysdc.r.available() tells what is missing.", file=sys.stderr)
        return 2
    try:
        data = read_table(args.data)
        masked = read_table(args.masked) if args.masked else None
    except (OSError, PysdcError) as exc:
        print(f"pysdc parity: {exc}", file=sys.stderr)
        return 2
    keys = [k for item in args.keys for k in item.split(",") if k] if args.keys else None
    if not keys and masked is None:
        print("pysdc parity: give --keys (risk measures) and/or --masked (information loss).", file=sys.stderr)
        return 2
    sensitive = [k for item in args.sensitive for k in item.split(",") if k] if args.sensitive else None
    max_rmd = MAX_RMD_RECORDS if args.max_rmd_records is None else args.max_rmd_records
    print(f"pysdc parity: pysdc against sdcMicro {bridge.sdcmicro_version()} on {args.data} ({len(data)} records)",
          file=sys.stderr)
    rows, refusals, skipped, ok = parity.compare_on_data(
        pysdc, bridge, data, masked, keys, args.weight, args.hid, sensitive, random_state=args.random_state,
        max_rmd=max_rmd, progress=lambda label: print(f"  {label} ...", file=sys.stderr))
    table = [[r["measure"], r["field"], _show(r["pysdc"]), _show(r["sdcMicro"]),
              "" if r["max_abs"] is None else fmt_diff(r["max_abs"]),
              "" if r["max_rel"] is None else fmt_diff(r["max_rel"]), "ok" if r["ok"] else "DIFFERS"]
             for r in rows]
    print(text_table(["measure", "field", "pysdc", "sdcMicro", "max abs diff", "max rel diff", ""], table,
                     indent=""))
    if refusals:
        print("\nRefusals (the reason each side gave):")
        for label, side, msg in refusals:
            print(f"  {label}, {side}: {msg}".replace("\n", "\n    "))
    if skipped:
        print("\nNot compared (the counterpart does not apply to these arguments):")
        for label, why in skipped:
            print(f"  {label}: {why}")
    n_bad = sum(1 for r in rows if not r["ok"])
    print(f"\n{len(rows)} fields compared, {n_bad} differ" + ("" if ok else " (DIFFERS above)"))
    return 0 if ok else 1
