"""The ``pysdc`` command line: information loss, disclosure risk, parity (one module per command).

::

    pysdc utility ORIGINAL MASKED [--numeric a,b] [--json] ...   information-loss measures
    pysdc utility --demo                                      ... on the shipped demo data
    pysdc risk DATA --keys a,b,c [--weight w] [--hid h] ...   re-identification risk
    pysdc risk --demo
    pysdc report ORIGINAL [MASKED] --keys a,b --output report.html   HTML report
    pysdc report --demo --output report.html
    pysdc protect DATA --keys a,b --recipe steps.json --output protected.parquet [--report r.html]
                                                              protection by sdcMicro's methods, natively
    pysdc parity ...                                          comparison with sdcMicro (if available)

Input files are CSV (.csv, .tsv, .txt, optionally gzipped), Parquet, SPSS (.sav) or Stata (.dta). A CSV's column types come
from its schema sidecar ``<stem>.schema.json`` when there is one (see
:mod:`pysdc.io`), from ``--schema``, or from R's ``read.csv`` rules; columns
can be declared categorical with ``--categorical a,b`` and ordered with
``--ordered "col=low<mid<high"``.

JSON output (``--json``)
------------------------
One JSON object on stdout, with ``"format": "pysdc-utility-1"`` or
``"pysdc-risk-1"``; its keys are stable (new keys may be added, none removed
or renamed within a format version). Numbers that are not finite are written
as ``null`` (NaN, R's NA) or as the strings ``"Inf"`` / ``"-Inf"``. Warnings
are listed under ``"warnings"`` as ``{"category", "message", "where"}``.

Exit status: 0 on success (also when a single measure could not be computed:
that measure reports ``"status": "error"``), 2 for any failure: unusable input or
arguments, an engine's error (translated, with the advice that fits), too little
memory, or an internal error (one line ``pysdc: error: ...`` on stderr, never a
traceback unless the environment variable ``PYSDC_DEBUG=1`` asks for it; argument
errors end with a pointer to the command's ``--help``); 130 when interrupted.

The commands only parse their arguments, build a problem and render: the numbers come from the library
(:mod:`pysdc.problem` builds the assessment model -- from :class:`pysdc.SdcProblem`'s results, or from
an engine's (:mod:`pysdc.cli._engine` runs DuckDB or Spark) in the same JSON format --, :mod:`pysdc.report`
renders it, :mod:`pysdc.parity` runs the parity checks). ``--output`` is the command's result in every
command.
"""

from __future__ import annotations

import argparse  # noqa: F401 (the parser classes derive from it)
import sys

from .._progress import progress_display
from ..io import csv_dialect
from . import protect, report, risk, utility
from ._common import DECIMAL_HINTS, PROG, ArgumentParser, report_failure, silence_stdout, version

__all__ = ["main", "build_parser"]


def build_parser(parity=None) -> ArgumentParser:
    """The argument parser; ``parity`` is the parity command module, or why it is unavailable."""
    parser = ArgumentParser(
        prog=PROG,
        description="Statistical disclosure control measures, number for number with sdcMicro.",
        epilog="Run 'pysdc COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    utility.add_parser(sub)
    risk.add_parser(sub)
    report.add_parser(sub)
    protect.add_parser(sub)
    if parity is None:
        sub.add_parser("parity", help="compare pysdc with sdcMicro (needs R and sdcMicro)", add_help=False)
    elif isinstance(parity, str):
        pp = sub.add_parser("parity", help="compare pysdc with sdcMicro (not available)")
        pp.set_defaults(run=lambda args, out, why=parity: _parity_unavailable(why))
    else:
        parity.add_parser(sub)
    return parser


def _parity_module():
    """The parity command (imported only when asked for), else a reason why it is unavailable."""
    try:
        from . import parity  # optional at run time: a missing or broken parity module must not break the other commands
    except ImportError as exc:
        return f"this installation has no parity module ({exc})"
    except Exception as exc:  # a broken optional module must not break the CLI
        return f"the parity module failed to load ({type(exc).__name__}: {exc})"
    return parity


def _parity_unavailable(why: str) -> int:
    print(f"{PROG}: error: parity is not available: {why}", file=sys.stderr)
    return 2


def _first_positional(argv: list[str]) -> str | None:
    for a in argv:
        if not a.startswith("-"):
            return a
    return None


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = sys.stdout
    DECIMAL_HINTS.clear()  # hints of an earlier call in the same process (tests) do not carry over
    parity = _parity_module() if _first_positional(argv) == "parity" else None
    parser = build_parser(parity)
    first = _first_positional(argv)
    parser.command = first if first in ("utility", "risk", "report", "protect", "parity") else None
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (argparse printed them)
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if getattr(args, "command", None) is None or not hasattr(args, "run"):
        parser.print_help(out)
        return 2 if getattr(args, "command", None) is None else 0
    try:
        with csv_dialect(sep=getattr(args, "sep", None), decimal=getattr(args, "decimal", None),
                         encoding=getattr(args, "encoding", None)), progress_display(args):
            return int(args.run(args, out))
    except BrokenPipeError:  # e.g. `pysdc utility --demo | head`: stop quietly
        silence_stdout()
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # every other failure: one line, exit 2, the traceback only with PYSDC_DEBUG=1
        return report_failure(exc, args)
