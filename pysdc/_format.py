"""The one formatter: numbers as text (CLI, Markdown, HTML) and as JSON values, and plain tables.

Every renderer of pysdc (the command line, the parity reports, the report model's text,
Markdown, HTML and JSON views) formats numbers through these functions, so a NaN or an
infinity reads the same everywhere.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd

__all__ = ["jsonable", "fmt", "fmt_diff", "text_table", "wrap"]


def jsonable(v):
    """Python/NumPy value -> JSON value (NaN -> null, +-Inf -> "Inf"/"-Inf")."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return None
        if math.isinf(f):
            return "Inf" if f > 0 else "-Inf"
        return f
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray, pd.Index)):
        return [jsonable(x) for x in v]
    if isinstance(v, pd.Series):
        return {str(k): jsonable(x) for k, x in v.items()}
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return str(v)


def fmt(v, digits: int = 6) -> str:
    """A number for people: ``digits`` significant digits, NA for NaN, Inf/-Inf, ``-`` for None."""
    if v is None:
        return "-"
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "NA"
        if math.isinf(f):
            return "Inf" if f > 0 else "-Inf"
        return f"{f:.{digits}g}"
    try:
        if pd.isna(v):
            return "NA"
    except (TypeError, ValueError):
        pass
    return str(v)


def fmt_diff(v) -> str:
    """A difference in a parity table: ``–`` for none, ``0``, ``inf`` or two-digit scientific."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if v == 0:
        return "0"
    if math.isinf(v):
        return "inf"
    return f"{v:.2e}"


#: text output (tables, wrapped paragraphs) stays within this many columns
MAX_WIDTH = 100


def text_table(headers: list[str], rows: list[list[str]], right: set[int] = frozenset(), indent: str = "  ",
               max_width: int = MAX_WIDTH) -> str:
    """A plain table; where it would be wider than ``max_width``, the last column wraps onto more lines."""
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    last = len(widths) - 1
    room = max_width - len(indent) - sum(widths[:last]) - 2 * last
    wrap_last = last > 0 and widths[last] > room >= 12
    if wrap_last:
        widths[last] = room

    def line(cells):
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return (indent + "  ".join(parts)).rstrip()

    def lines(cells):
        if not wrap_last or len(cells[last]) <= widths[last]:
            return [line(cells)]
        chunks = textwrap.wrap(cells[last], width=widths[last]) or [""]
        blank = [""] * last
        return [line(list(cells[:last]) + [chunks[0]])] + [line(blank + [c]) for c in chunks[1:]]

    out = [line(headers), indent + "  ".join("-" * w for w in widths)]
    for r in rows:
        out += lines(r)
    return "\n".join(out)


def wrap(text: str, indent: str = "  ", width: int = 88) -> str:
    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ")
