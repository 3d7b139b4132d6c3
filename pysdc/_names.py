""""Did you mean ...?" for column names that a file or data frame does not have (issue 26).

One helper for every column check, the command line's and the library's: a name that differs only in
case (``DB040`` for ``db040``) is named first, then the closest names by edit distance
(:func:`difflib.get_close_matches`).
"""

from __future__ import annotations

import difflib

__all__ = ["suggest", "did_you_mean", "unknown_columns"]

#: how many of a file's columns an error lists when no suggestion fits
SHOWN = 20


def suggest(name, columns) -> list[str]:
    """The columns ``name`` probably meant: those equal to it but for case, else the closest by edit
    distance (at most three, similarity at least 0.7); empty when none is close."""
    text = str(name)
    cols = [str(c) for c in columns]
    same_case = [c for c in cols if c.lower() == text.lower() and c != text]
    if same_case:
        return same_case
    by_lower = {}
    for c in cols:
        by_lower.setdefault(c.lower(), c)
    close = difflib.get_close_matches(text.lower(), list(by_lower), n=3, cutoff=0.7)
    return [by_lower[c] for c in close]


def did_you_mean(missing, columns) -> str:
    """`` did you mean 'db040' (case differs)?`` / ``did you mean 'income' or 'incomes'?`` for each name of
    ``missing`` that has a suggestion, joined; empty when none has."""
    parts = []
    for name in missing:
        hits = suggest(name, columns)
        if not hits:
            continue
        shown = " or ".join(repr(h) for h in hits)
        case = hits[0].lower() == str(name).lower()
        parts.append(f"{name!r}: did you mean {shown}{' (names are case-sensitive)' if case else ''}?")
    return " " + " ".join(parts) if parts else ""


def unknown_columns(flag: str, missing, columns, label: str, *, hint: str = "") -> str:
    """The message for ``flag`` naming columns ``missing`` that ``label`` (a file or data frame with
    ``columns``) does not have: the suggestions when there are any (then no listing), else its first columns."""
    columns, missing = list(columns), list(missing)
    dym = did_you_mean(missing, columns)
    listing = f"{[str(c) for c in columns[:SHOWN]]}{' ...' if len(columns) > SHOWN else ''}"
    named = f"column {missing[0]!r}" if len(missing) == 1 else f"columns {list(missing)}"
    if dym:
        return f"{flag} names {named} that {label} does not have;{dym}{hint}"
    return f"{flag} names {named} that {label} does not have; its columns are {listing}.{hint}"
