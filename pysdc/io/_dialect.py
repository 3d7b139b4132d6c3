"""CSV dialects: the separator, the decimal mark and the encoding of a CSV file -- given (an argument, then
:func:`csv_dialect`'s defaults: the command line's ``--sep``, ``--decimal``, ``--encoding``) or detected
from the first 64 KiB where unambiguous."""

from __future__ import annotations

import codecs
import contextlib
import contextvars
import csv
import gzip
import io
import re
import warnings
from pathlib import Path

from .._errors import InvalidParameterError, PysdcWarning
from .._paths import _COMPRESSED

__all__ = ["csv_dialect", "DIALECT_DEFAULTS", "resolve_dialect", "separator_hint"]

_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab"}
_SNIFF_BYTES = 1 << 16

DIALECT_DEFAULTS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("pysdc_csv_dialect", default=None)


@contextlib.contextmanager
def csv_dialect(*, sep: str | None = None, decimal: str | None = None, encoding: str | None = None):
    """Defaults for ``sep``, ``decimal`` and ``encoding`` of every :func:`read_table` and
    :func:`read_header` call inside the ``with`` block (the command line's ``--sep``,
    ``--decimal``, ``--encoding``); None leaves a setting to detection."""
    given = {"sep": sep, "decimal": decimal, "encoding": encoding}
    token = DIALECT_DEFAULTS.set({**(DIALECT_DEFAULTS.get() or {}), **{k: v for k, v in given.items() if v is not None}})
    try:
        yield
    finally:
        DIALECT_DEFAULTS.reset(token)


def _open_binary(path: Path):
    """The file's (decompressed) bytes as a binary stream; None for compressions pysdc does not sniff."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    if name.endswith(".xz"):
        import lzma

        return lzma.open(path, "rb")
    if name.endswith(_COMPRESSED):
        return None
    return open(path, "rb")


def _encoding_error(path: Path, exc: UnicodeDecodeError, encoding: str) -> InvalidParameterError:
    bad = exc.object[exc.start:exc.start + 1]
    shown = f"byte 0x{bad.hex()}" if bad else "a byte"
    latin = bad.decode("latin-1") if bad else ""
    enc = "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig") else encoding
    return InvalidParameterError(
        f"file {str(path)!r} is not {enc} text ({exc.reason}: {shown} near byte {exc.start}"
        + (f", which is {latin!r} in latin-1" if latin.isprintable() and latin else "")
        + "). Give its encoding: --encoding latin-1 (ISO-8859-1) or --encoding cp1252 (Windows Western "
        "European) on the command line, read_table(path, encoding='latin-1') in Python; or re-save it as "
        "UTF-8 (e.g. iconv -f latin1 -t utf-8)."
    )


def _sample(path: Path, encoding: str) -> tuple[str, bool] | None:
    """The first lines of a CSV file as text and whether that is the whole file; None if not sniffable."""
    fh = _open_binary(path)
    if fh is None:
        return None
    try:
        with fh:
            raw = fh.read(_SNIFF_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise InvalidParameterError(f"cannot read {path.name}: {exc}") from None
    complete = len(raw) <= _SNIFF_BYTES
    raw = raw[:_SNIFF_BYTES]
    try:
        return codecs.getincrementaldecoder(encoding)().decode(raw, final=complete), complete
    except UnicodeDecodeError as exc:
        raise _encoding_error(path, exc, encoding) from None


def _sample_rows(text: str, complete: bool, sep: str) -> list[list[str]] | None:
    lines = text.splitlines(keepends=True)
    if not complete and len(lines) > 1:
        lines = lines[:-1]  # possibly cut
    try:
        return [r for r in csv.reader(io.StringIO("".join(lines[:200])), delimiter=sep) if r]
    except csv.Error:
        return None


def _detect_sep(path: Path, text: str, complete: bool) -> str:
    """The separator that splits every sampled line into the same number (> 1) of fields; "," if none does."""
    fits = []
    for sep in _SEPARATORS:
        rows = _sample_rows(text, complete, sep)
        if rows and len(rows[0]) > 1 and len({len(r) for r in rows}) == 1:
            fits.append(sep)
    if len(fits) > 1:
        names = " and ".join(f"{_SEPARATORS[s]} ({s!r})" for s in fits)
        raise InvalidParameterError(
            f"cannot tell how {path.name} is separated: every line splits into the same number of fields at "
            f"{names}. Give the separator: --sep ';' (or ',', '\\t') on the command line, "
            "read_table(path, sep=';') in Python."
        )
    return fits[0] if fits else ","


_COMMA_NUMBER = re.compile(r"^\s*[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?\s*$")
_POINT_NUMBER = re.compile(r"^\s*[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def _detect_decimal(path: Path, text: str, complete: bool, sep: str) -> str:
    """"," where the sampled fields hold numbers with a decimal comma and none with a decimal point."""
    rows = _sample_rows(text, complete, sep) or []
    fields = [f for r in rows[1:] for f in r]
    comma = any(_COMMA_NUMBER.match(f) for f in fields)
    point = any(_POINT_NUMBER.match(f) for f in fields)
    if comma and point:
        warnings.warn(
            f"{path.name} holds numbers written with a decimal comma (e.g. 1,5) and with a decimal point "
            "(1.5); it is read with the decimal point, so the others are text. Give the decimal mark: "
            "--decimal ',' on the command line, read_table(path, decimal=',') in Python.",
            PysdcWarning,
            stacklevel=4,
        )
    return "," if comma and not point else "."


def resolve_dialect(path: Path, sep, decimal, encoding) -> tuple[str, str, str]:
    """(sep, decimal, encoding) of a CSV file: as given (argument, then :func:`csv_dialect`), else detected."""
    ctx = DIALECT_DEFAULTS.get() or {}
    sep = ctx.get("sep") if sep is None else sep
    decimal = ctx.get("decimal") if decimal is None else decimal
    encoding = ctx.get("encoding") if encoding is None else encoding
    if sep is not None:
        sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(sep, sep)
        if not isinstance(sep, str) or len(sep) != 1 or sep in "\"\r\n":
            raise InvalidParameterError(f"sep must be one character such as ',', ';' or '\\t'; got {sep!r}.")
    if decimal is not None and decimal not in (".", ","):
        raise InvalidParameterError(f"decimal must be '.' or ','; got {decimal!r}.")
    if encoding is None:
        encoding = "utf-8-sig"  # UTF-8, with or without the byte-order mark Excel writes
    else:
        try:
            encoding = codecs.lookup(encoding).name
        except (LookupError, TypeError):
            raise InvalidParameterError(
                f"unknown encoding {encoding!r}; use e.g. utf-8, latin-1 or cp1252.") from None
        if encoding == "utf-8":
            encoding = "utf-8-sig"
    sample = _sample(path, encoding) if (sep is None or decimal is None or path.suffix) else None
    if sep is None:
        sep = _detect_sep(path, *sample) if sample else ","
    if decimal is None:
        decimal = _detect_decimal(path, *sample, sep) if sample and sep != "," else "."
    if sep == decimal:
        raise InvalidParameterError(
            f"the separator and the decimal mark are both {sep!r}; a file with decimal commas is "
            "separated by ';' (--sep ';' --decimal ',', like R's read.csv2).")
    return sep, decimal, encoding


def separator_hint(columns) -> str:
    """A hint when a CSV read as comma-separated looks ``;``- or tab-separated (else "")."""
    cols = [str(c) for c in columns]
    if len(cols) != 1:
        return ""
    for sep, name in ((";", "semicolon"), ("\t", "tab")):
        if sep in cols[0]:
            shown = "\\t" if sep == "\t" else sep
            return (f" The file may be {name}-separated (its one column is named {cols[0][:60]!r}); give the "
                    f"separator: --sep '{shown}' on the command line, read_table(path, sep={sep!r}) in Python.")
    return ""
