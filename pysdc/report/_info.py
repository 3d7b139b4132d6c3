"""What each measure of the assessment is, as the renderers say it: read from the registry.

``MEASURE_INFO`` (sdcMicro's information-loss measures of the ``pysdc-utility-1`` model: dUtility's
methods, IL_correl, IL_variables) and ``LITERATURE_INFO`` (the literature's) map a measure to
``(call or citation, description)``; both come from the registry's ``description``, ``citation`` and
``variants`` (:mod:`pysdc._registry`), the one place that says what a measure is. ``LINKAGE_INFO`` (the
record-linkage measures of the ``pysdc-risk-1`` model) maps each to ``(citation, description, attacker,
why it does not run on an engine)``.
"""

from __future__ import annotations

from .._format import fmt
from .._registry import assessed, by_python_name
from ..core.dutility import D_UTILITY_METHODS

__all__ = ["MEASURE_INFO", "LITERATURE_INFO", "LINKAGE_INFO", "LINKAGE_MEASURES", "UTILITY_MEASURES", "shown_rows",
           "utility_rows", "utility_tables"]

_D_UTILITY = by_python_name("d_utility")

MEASURE_INFO = {
    **{v: tuple(_D_UTILITY.variants[v]) for v in D_UTILITY_METHODS},  # (call, description)
    **{name: (f"{m.r}(x, xm)", m.description) for name, m in
       ((n, by_python_name(n)) for n in ("il_correl", "il_variables"))},
}

#: the literature's information-loss measures the utility model adds (not sdcMicro's): every entry the registry
#: assesses as ``"utility"``
LITERATURE_INFO = {m.python: (m.citation, m.description) for m in assessed("utility")}

#: the same entries (:class:`pysdc._registry.Measure`): what each shows (``shows``)
UTILITY_MEASURES = {m.python: m for m in assessed("utility")}

#: the record-linkage risk measures the risk model adds (with numeric variables and a masked file): every entry
#: the registry assesses as ``"linkage"``
LINKAGE_INFO = {m.python: (m.citation, m.description, m.attacker, m.no_engine) for m in assessed("linkage")}

#: the same entries (:class:`pysdc._registry.Measure`): what each shows (``shows``), its sdcMicro name (``r``)
LINKAGE_MEASURES = {m.python: m for m in assessed("linkage")}


def shown_rows(name: str, entry: dict) -> list[tuple[str, object, str, str]]:
    """The rows a report shows of one linkage measure's model entry: ``(key, value, label, fmt)`` for each
    of its registry entry's ``shows`` that has a label (the label filled with the entry's values)."""
    m = LINKAGE_MEASURES.get(name)
    if m is None or entry.get("status") != "ok":
        return []
    return [(s.key, entry.get(s.key), s.label.format(**entry), s.fmt) for s in m.shows if s.label]


def _noted(v, digits):
    """A value as a note of the utility text writes it: a number with ``digits``, a list joined, none as "-"."""
    if v is None or v == "":
        return "-"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    if isinstance(v, float):
        return fmt(v, digits) if digits is not None else fmt(v)
    return str(v)


def utility_rows(name: str, entry: dict) -> list[list[str]]:
    """The rows ``[measure, part, value, note]`` the utility text shows of one utility measure's model entry: each of
    its registry entry's labelled ``shows`` (a ``"map"`` one row per variable; a ``"table"`` is in
    :func:`utility_tables`)."""
    m = UTILITY_MEASURES.get(name)
    if m is None or entry.get("status") != "ok":
        return []
    rows = []
    for s in m.shows:
        if not s.label or s.fmt == "table":
            continue
        num = (lambda x, d=s.digits: fmt(x, d)) if s.digits is not None else fmt
        if s.fmt == "map":
            for k, val in (entry.get(s.key) or {}).items():
                here = {kk: _noted(vv.get(k) if isinstance(vv, dict) else vv, s.digits) for kk, vv in entry.items()}
                rows.append([name, s.label.format(key=k), num(val), s.note.format(**here)])
        else:
            here = {kk: _noted(vv, s.digits) for kk, vv in entry.items() if not isinstance(vv, dict)}
            rows.append([name, s.label.format(**here), num(entry.get(s.key)), s.note.format(**here)])
    return rows


def utility_tables(name: str, entry: dict) -> list[tuple[str, dict, int | None]]:
    """The labelled tables (``"table"`` shows) of one utility measure's model entry: ``(label, {row: {column:
    number}}, digits)``."""
    m = UTILITY_MEASURES.get(name)
    if m is None or entry.get("status") != "ok":
        return []
    return [(s.label, entry.get(s.key) or {}, s.digits) for s in m.shows if s.label and s.fmt == "table"]
