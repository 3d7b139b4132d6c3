"""What every ``pysdc`` command shares: argument parsing, reading files, collecting warnings."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.errors import EmptyDataError, ParserError

from .. import io as _io
from .._errors import InvalidParameterError, PysdcError, PysdcWarning
from .._names import unknown_columns
from .._progress import stage
from .._version import __version__
from ..engine._errors import is_engine_exception, translate
from ..io import DIALECT_DEFAULTS, check_output, read_header, separator_hint, write_text
from ..loss._il_variables import SCALES
from ..report import jsonable, to_markdown

PROG = "pysdc"


class UsageError(PysdcError):
    """Bad command-line arguments (reported like any input error)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with pysdc's one-line errors: ``pysdc: error: ... (see 'pysdc CMD --help')``, exit 2.

    Subcommand parsers are of the same class, so every subcommand's errors look alike.
    """

    def error(self, message):  # noqa: D102 - argparse's hook
        cmd = self.prog if self.prog.startswith(PROG) else PROG
        if cmd == PROG and getattr(self, "command", None):  # e.g. unrecognized arguments of a subcommand
            cmd = f"{PROG} {self.command}"
        sys.stderr.write(f"{PROG}: error: {' '.join(message.split())} (see '{cmd} --help')\n")
        sys.exit(2)


def read_columns(path: str, needed) -> list[str] | None:
    """The columns to read from ``path``: ``needed`` (None: all). Reading only the needed columns of a
    wide CSV is much faster; unknown names are reported by the caller with the file's header."""
    if needed is None:
        return None
    return list(dict.fromkeys(c for c in needed if c))


def version() -> str:
    return __version__


def split_names(text, what: str) -> list[str] | None:
    """Column names given as ``a,b`` or ``a b`` (a flag with ``nargs="+"`` gives a list) or both."""
    if text is None:
        return None
    if not isinstance(text, str):  # --keys a b / --keys a, b / --keys a,b
        # "a," "b" (--keys a, b) is a list; "a,,b" is a mistake, reported below
        names = [t.strip() for part in text for t in str(part).strip().strip(",").split(",") if str(part).strip(", ")]
        if not names:
            raise UsageError(f"{what} needs column names, e.g. {what} a,b or {what} a b; got {' '.join(text)!r}.")
        text = ",".join(names)
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise UsageError(f"{what} must be a comma-separated list of column names; got {text!r}.")
    if len(set(names)) != len(names):
        raise UsageError(f"{what} names a column more than once: {text!r}.")
    return names


def parse_ordered(specs: list[str] | None) -> dict[str, list[str]]:
    out = {}
    for spec in specs or []:
        col, sep, levels = spec.partition("=")
        col = col.strip()
        lv = [x.strip() for x in levels.split("<")] if sep else []
        if not col or len(lv) < 1 or not all(lv):
            raise UsageError(
                f"--ordered must look like \"column=low<mid<high\"; got {spec!r}."
            )
        if len(set(lv)) != len(lv):
            raise UsageError(f"--ordered {spec!r} lists a level twice.")
        out[col] = lv
    return out


def parse_scales(specs: list[str] | None) -> dict[str, str]:
    out = {}
    for spec in specs or []:
        for part in spec.split(","):
            col, sep, scale = part.partition("=")
            col, scale = col.strip(), scale.strip()
            if not sep or not col or scale not in SCALES:
                raise UsageError(
                    f"--scale must look like column=numeric, column=ordinal or column=nominal; got {part!r}."
                )
            out[col] = scale
    return out


class Warnings:
    """Collects warnings, one entry per distinct (category, message)."""

    def __init__(self):
        self.items: dict[tuple[str, str], list[str]] = {}

    def run(self, where: str, fn, *args, **kwargs):
        stage(where)  # the command's progress display (pysdc._progress), if any
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return fn(*args, **kwargs)
            finally:
                for w in caught:
                    key = (w.category.__name__, str(w.message))
                    places = self.items.setdefault(key, [])
                    if where not in places:
                        places.append(where)

    def as_json(self) -> list[dict]:
        return [{"category": c, "message": m, "where": p} for (c, m), p in self.items.items()]

    def emit(self, stream) -> None:
        for (cat, msg), places in self.items.items():
            print(f"{PROG}: warning ({', '.join(places)}): {cat}: {msg}", file=stream)


def load(path: str, schema: str | None, label: str, ws: Warnings, na_values=None, *, columns=None,
         text=None, flag: str = "") -> pd.DataFrame:
    """Read ``path`` (only ``columns``, if given; ``text`` columns as text), warning about
    empty text fields read as a category (the reader's warning, naming ``label``) and about files that look
    ;- or tab-separated."""
    p = Path(path)
    if not p.name.lower().endswith((".parquet", ".pq")) and not p.exists():
        raise FileNotFoundError(f"{label} file {path!r} does not exist")
    na = tuple(na_values or ("NA",))
    usecols = None
    if columns is not None and not p.name.lower().endswith((".parquet", ".pq")):
        header = ws.run(f"reading {label}", read_header, p)
        check_columns(flag or "the command", columns, header, label)
        usecols = list(columns)
    text_cols = [c for c in (text or [])]
    with _io.reading_as(label):  # the reader says the empty text fields of the columns read, as LABEL
        df = ws.run(f"reading {label}", _io.read_table, p, schema=schema, na_values=na, usecols=usecols,
                    text_columns=text_cols)
    if columns is not None and p.name.lower().endswith((".parquet", ".pq")):
        check_columns(flag or "the command", columns, list(df.columns), label)
        df = df[list(columns)]
    if len(df) == 0:
        raise InvalidParameterError(
            f"{label} file {path!r} has no records (only a header{'' if len(df.columns) else ' or nothing'}); "
            "there is nothing to measure.")
    decimal_comma_hints(df, label, ws)
    hint = separator_hint(df.columns)
    if hint:
        ws.run(f"reading {label}", warnings.warn, f"{label} has a single column.{hint}", PysdcWarning)
    return df


def warn_empty_text(counts: dict, label: str, ws: Warnings) -> None:
    """The readers' warning on empty text fields (:func:`pysdc.io.warn_empty_text`) for the columns of ``label`` a
    command uses, from counts taken while reading (an engine's: ``Scan.csv["empty_text"]``, :mod:`pysdc.engine._csv`)."""
    ws.run(f"reading {label}", _io.warn_empty_text, counts, label)


def check_columns(flag: str, names, header, label: str) -> None:
    """Refuse ``names`` that ``header`` (the columns of ``label``) lacks: "did you mean" (case first, then
    edit distance; :mod:`pysdc._names`), else the first columns, and a separator hint."""
    missing = [c for c in names if c not in header]
    if missing:
        raise InvalidParameterError(unknown_columns(flag, missing, header, label, hint=separator_hint(header)))


#: text columns whose values look like numbers with a decimal comma (column -> hint), for the error line
#: of a failure that follows (e.g. a weight "missing (or non-numeric)"); filled by load()
DECIMAL_HINTS: dict[str, str] = {}

_DECIMAL_COMMA = r"^\s*[-+]?(?:\d+|\d{1,3}(?:\.\d{3})+),\d+\s*$"
_GROUPED_COMMA = r"^\s*[-+]?\d{1,3}(?:\.\d{3})+,\d+\s*$"


def decimal_comma_hints(df: pd.DataFrame, label: str, ws: Warnings) -> None:
    """Warn about text columns whose values look like numbers with a decimal comma ("504,56") while the
    decimal mark in use is '.': suggest ``--decimal ,`` (with ``--sep ';'`` for a comma-separated file)."""
    dialect = DIALECT_DEFAULTS.get() or {}
    comma = dialect.get("decimal") == ","
    for col in df.columns:
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            values = pd.Series(s.cat.categories.astype(str))
        elif s.dtype == object or isinstance(s.dtype, pd.StringDtype):
            values = pd.Series(s.dropna().astype(str).unique()[:1000])
        else:
            continue
        values = values[values.str.strip() != ""]
        if values.empty:
            continue
        looks = values.str.match(_DECIMAL_COMMA)
        if looks.mean() < 0.9:
            continue
        grouped = values[looks][values[looks].str.match(_GROUPED_COMMA)]
        if not grouped.empty:  # '9.756,25': no decimal mark reads it (nor does R's read.csv2)
            hint = (f"column {col!r} of {label} looks like numbers with '.' grouping the thousands and a decimal "
                    f"comma (e.g. {grouped.iloc[0]!r}), so it is read as text: pysdc, like R's read.csv2, reads no "
                    f"thousands separators{'' if comma else ', and --decimal , alone does not change that'}; write "
                    "the numbers without them (e.g. export the column unformatted).")
            DECIMAL_HINTS[str(col)] = hint
            ws.run(f"reading {label}", warnings.warn, hint, PysdcWarning)
            continue
        if comma:
            continue
        example = values[looks].iloc[0]
        fix = ("--decimal ','" if dialect.get("sep") not in (None, ",")
               else "--sep ';' --decimal ',' for a ;-separated file with decimal commas, or write the numbers with "
                    "decimal points (in a comma-separated file a decimal comma can only stand in quotes)")
        hint = (f"column {col!r} of {label} looks like numbers written with a decimal comma (e.g. {example!r}) but "
                f"is read as text, since the decimal mark is '.'; give {fix}.")
        DECIMAL_HINTS[str(col)] = hint
        ws.run(f"reading {label}", warnings.warn, hint, PysdcWarning)


def same_file(a: str | None, b: str | None) -> bool:
    """Whether two input files are the same file (same path, a link to it, or identical bytes)."""
    if not a or not b:
        return False
    pa, pb = Path(a), Path(b)
    try:
        if not (pa.is_file() and pb.is_file()):
            return False
        if os.path.samefile(pa, pb):
            return True
        if pa.stat().st_size != pb.stat().st_size:
            return False

        def digest(p):
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            return h.digest()

        return digest(pa) == digest(pb)
    except OSError:
        return False


def warn_same_file(a: str | None, b: str | None, labels: str, consequence: str, ws: Warnings) -> None:
    """A warning when the original and the masked file are the same (``consequence``: what that makes of
    the numbers)."""
    if same_file(a, b):
        how = "the same file" if Path(a).resolve() == Path(b).resolve() else "identical files (same content)"
        ws.run("reading", warnings.warn,
               f"{labels} are {how} ({a!r}, {b!r}): {consequence} by construction; did you mean to give the "
               "masked release?", PysdcWarning)


#: the input formats the readers take (pysdc.io's _kind), for every command's --help
FORMATS = ".csv, .csv.gz (.bz2, .xz), .tsv, .txt, .parquet, .sav (SPSS), .dta (Stata)"


class DeprecatedAlias(argparse.Action):
    """An old spelling of a flag (hidden from --help): stores into the new flag's destination and prints a
    one-line notice on stderr."""

    def __init__(self, option_strings, dest, advice: str = "", nargs=None, **kwargs):
        self.advice = advice
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{PROG}: note: {option_string} is deprecated; {self.advice}.", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_alias(p: argparse.ArgumentParser, old: str, new_flag: str, dest: str, nargs=None, advice=None) -> None:
    """``old`` as a hidden, deprecated spelling of ``new_flag`` (stored in ``dest``)."""
    p.add_argument(old, dest=dest, action=DeprecatedAlias, advice=advice or f"use {new_flag} (same meaning)",
                   nargs=nargs, help=argparse.SUPPRESS, default=argparse.SUPPRESS)


def add_names_flag(p: argparse.ArgumentParser, flag: str, help: str, metavar: str = "A,B") -> None:
    """A flag taking column names as ``a,b`` or ``a b``."""
    p.add_argument(flag, nargs="+", metavar=metavar, help=help + " (as a,b or a b)")


def rescue_positionals(args, positionals, flags) -> None:
    """``pysdc risk --keys a b data.csv``: the files named after a list of names are the positional
    arguments (``nargs="+"`` took them); moved back, in order, to the positionals that are missing."""
    for p in positionals:  # a deprecated flag for a positional (parity's --data): argparse stores it apart
        alias = getattr(args, f"alias_{p}", None)
        if alias is not None and getattr(args, p, None) is None:
            setattr(args, p, alias)
    missing = [p for p in positionals if getattr(args, p, None) is None]
    for flag in [*flags, "categorical", "text"]:
        names = getattr(args, flag, None)
        if not missing or not isinstance(names, list):
            continue
        k = 0
        while k < min(len(missing), len(names) - 1) and os.path.exists(names[len(names) - 1 - k]):
            k += 1
        if k:
            taken, names[:] = names[len(names) - k:], names[:len(names) - k]
            for p, v in zip(missing, taken):
                setattr(args, p, v)
            missing = missing[k:]


def declare(df: pd.DataFrame, label: str, categorical: list[str] | None, ordered: dict[str, list[str]]) -> pd.DataFrame:
    df = df.copy()
    check_columns("--categorical", categorical or [], list(df.columns), label)
    check_columns("--ordered", list(ordered), list(df.columns), label)
    for col in categorical or []:
        if not isinstance(df[col].dtype, pd.CategoricalDtype):
            df[col] = pd.Categorical(df[col])
    for col, levels in ordered.items():
        s = df[col]
        text = s.astype(object).where(s.notna(), None)
        text = text.map(_level_text, na_action="ignore") if text.notna().any() else text
        codes = pd.Index(levels, dtype=object).get_indexer(text.to_numpy(dtype=object))
        cat = pd.Categorical.from_codes(codes, categories=levels, ordered=True)
        unknown = (codes < 0) & s.notna().to_numpy()
        if unknown.any():
            bad = sorted({str(v) for v in text[unknown]})[:8]
            hint = (" Empty text is a value, not a missing value (as in R's read.csv); add --na '' "
                    "to read it as missing." if "" in bad else "")
            raise InvalidParameterError(
                f"column {col!r} of {label} has value(s) {bad} that are not among the levels given by "
                f"--ordered ({' < '.join(levels)}); list every level.{hint}"
            )
        df[col] = cat
    return df


def _level_text(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def add_type_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--na", action="append", metavar="TEXT",
                   help="text that means a missing value in CSV files (repeatable; default NA, like R's "
                        "na.strings); --na '' also reads empty text fields as missing")
    p.add_argument("--categorical", metavar="A,B", nargs="+",
                   help="treat these columns as categorical (R factor), levels sorted (as a,b or a b)")
    p.add_argument("--ordered", action="append", metavar='"COL=low<mid<high"',
                   help="treat COL as an ordered categorical with these levels (repeatable)")
    p.add_argument("--text", metavar="A,B", nargs="+",
                   help="read these columns as text, not numbers (ids beyond 2^53, e.g. 20-digit household "
                        "ids, which as numbers would merge; as a,b or a b)")
    p.add_argument("--sep", metavar="C",
                   help="field separator of CSV files, e.g. ';' or '\\t' (default: detected among comma, "
                        "semicolon and tab)")
    p.add_argument("--decimal", choices=(".", ","),
                   help="decimal mark of numbers in CSV files (default: '.', or ',' in a ;- or tab-separated "
                        "file whose numbers are written with a decimal comma)")
    p.add_argument("--encoding", metavar="ENC",
                   help="text encoding of CSV files, e.g. latin-1 or cp1252 (default UTF-8)")


def silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured in tests)
        pass


def one_line(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError) and exc.filename and not str(exc).startswith(("no such", "ORIGINAL",
                                                                                         "MASKED", "DATA")):
        return f"no such file: {exc.filename!r}"
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename!r}"
    try:
        text = " ".join(_shorten_word(w) for w in str(exc).split())
    except Exception:  # a message that cannot be rendered (e.g. a huge or broken object in it)
        text = ""
    return text or type(exc).__name__


def _shorten_word(word: str, limit: int = 120) -> str:
    """A run of text without spaces (e.g. a CSV line of megabytes quoted in an engine's message), cut."""
    return word if len(word) <= limit else f"{word[:limit - 20]}...({len(word):,} characters)"


#: longest error line printed (an engine's message can quote a CSV line of megabytes)
_MAX_ERROR = 2000


def _input_paths(args) -> list[str]:
    return [p for p in (getattr(args, a, None) for a in ("data", "original", "masked")) if isinstance(p, str)]


def failure_text(exc: BaseException, args=None) -> str:
    """The text after ``pysdc: error:`` for any exception a command raised (issue 23: every failure
    is one line and exit 2, never a traceback)."""
    if isinstance(exc, PysdcError):
        return one_line(exc)
    if is_engine_exception(exc):  # DuckDB, Arrow, Spark (also Arrow's OSErrors: their text says more)
        err = translate(exc, memory_limit=getattr(args, "memory_limit", None), paths=_input_paths(args))
        return one_line(err)
    if isinstance(exc, MemoryError):
        return ("out of memory: the data do not fit in this machine's memory" + _where(args) + ". For a large "
                "file use --engine duckdb (it reads out of core; --memory-limit bounds it) or fewer columns; if a "
                "CSV file has a line of gigabytes, check its quotes (an unclosed quote makes one field of the rest "
                "of the file).")
    if isinstance(exc, RecursionError):
        return ("the input is nested too deeply to process (Python's recursion limit was reached), e.g. a "
                "formula or condition with hundreds of nested parentheses; write it flatter.")
    if isinstance(exc, UnicodeEncodeError):
        return (f"a text cannot be written in the output's encoding ({one_line(exc)}); set the environment "
                "variable PYTHONIOENCODING=utf-8, or write --json to a file.")
    if isinstance(exc, ImportError):
        missing = getattr(exc, "name", None) or one_line(exc)
        return (f"a package this needs is not installed ({missing}); install pysdc's extra for it, e.g. "
                "pip install 'pysdc-measures[parquet]' (extras: parquet, duckdb, spark, plots, spss, r).")
    if isinstance(exc, UnicodeError):
        enc = getattr(args, "encoding", None)
        return (f"a file is not valid {enc or 'UTF-8'} text ({one_line(exc)}); give its encoding with "
                "--encoding, e.g. --encoding latin-1.")
    if isinstance(exc, OSError):
        text = one_line(exc)
        if not exc.filename and any(w in text.lower() for w in ("thrift", "parquet")):  # Arrow's plain OSErrors
            return one_line(translate(exc, engine="arrow", paths=_input_paths(args)))
        return text
    if isinstance(exc, EmptyDataError):
        return f"a file has no data: {one_line(exc)}" + _where(args)
    if isinstance(exc, ParserError):
        return (f"a CSV file cannot be parsed{_where(args)}: {one_line(exc)}. Check its separator (--sep) and "
                "quotes.")
    return (f"internal error: {type(exc).__name__}: {one_line(exc)} (please report it; rerun with "
            "PYSDC_DEBUG=1 for the traceback)")


def _where(args) -> str:
    paths = _input_paths(args)
    return f" (reading {', '.join(repr(p) for p in paths)})" if paths else ""


def report_failure(exc: BaseException, args=None) -> int:
    """Print ``pysdc: error: ...`` for ``exc`` on stderr (its traceback first when ``PYSDC_DEBUG`` is set);
    exit status 2."""
    if os.environ.get("PYSDC_DEBUG", "").strip() not in ("", "0"):
        traceback.print_exception(exc, file=sys.stderr)
    try:
        text = failure_text(exc, args)
    except Exception as inner:  # the translation itself must not end in a traceback
        text = f"internal error: {type(exc).__name__} (and {type(inner).__name__} describing it; please report it)"
    for col, hint in DECIMAL_HINTS.items():  # e.g. a weight "missing (or non-numeric)" read as text
        if repr(col) in text:
            text += " Hint: " + hint
            break
    if len(text) > _MAX_ERROR:
        text = text[: _MAX_ERROR - 3] + "..."
    print(f"{PROG}: error: {text}", file=sys.stderr)
    return 2


#: ``--output FILE``, the command's result written to a file, in every command: its format by the extension
RESULT_EXTENSIONS = (".json", ".md", ".txt")


def add_output_flag(p: argparse.ArgumentParser) -> None:
    """``--output FILE``: the command's result, as ``pysdc report --output`` writes its HTML report."""
    p.add_argument("--output", "-o", metavar="FILE",
                   help="also write the result to FILE, its format by the extension: .json (the JSON format, as "
                        "--json prints it), .md (Markdown tables) or .txt (the text printed); never over an input, "
                        "and only once complete (a temporary file beside it, then renamed)")


def check_result_output(output, inputs) -> None:
    """``--output``, before any work: a .json, .md or .txt name, never an input."""
    if output:
        check_output(output, [i for i in inputs if i], extensions=RESULT_EXTENSIONS,
                     format_name="the result as JSON (.json), Markdown (.md) or text (.txt)")


def emit_report(report: dict, ws: Warnings, as_json: bool, render, out, *, output=None) -> int:
    """Print a report (JSON, or text through ``render``) to ``out`` and its warnings to stderr, and write it to
    ``output`` (``--output``: .json, .md or .txt); exit code 0."""
    report["warnings"] = ws.as_json()
    if output:
        ext = Path(output).suffix.lower()
        text = (json.dumps(jsonable(report), indent=2, allow_nan=False) if ext == ".json"
                else to_markdown(report) if ext == ".md" else render(report))
        write_text(output, text + "\n", encoding="utf-8")
    if as_json:
        print(json.dumps(jsonable(report), indent=2, allow_nan=False), file=out)
    else:
        print(render(report), file=out)
        if ws.items:
            out.flush()
            print(file=sys.stderr)
        ws.emit(sys.stderr)
    return 0
