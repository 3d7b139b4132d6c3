"""What each measure of the assessment is, as the renderers say it: read from the registry.

``MEASURE_INFO`` (sdcMicro's information-loss measures of the ``pysdc-utility-1`` model: dUtility's
methods, IL_correl, IL_variables) and ``LITERATURE_INFO`` (the literature's) map a measure to
``(call or citation, description)``; both come from the registry's ``description``, ``citation`` and
``variants`` (:mod:`pysdc._registry`), the one place that says what a measure is. ``LINKAGE_INFO`` (the
record-linkage measures of the ``pysdc-risk-1`` model) maps each to ``(citation, description, attacker,
why it does not run on an engine)``.
"""

from __future__ import annotations

from .._registry import assessed, by_python_name
from ..core.dutility import D_UTILITY_METHODS

__all__ = ["MEASURE_INFO", "LITERATURE_INFO", "LINKAGE_INFO", "LINKAGE_MEASURES", "shown_rows"]

_D_UTILITY = by_python_name("d_utility")

MEASURE_INFO = {
    **{v: tuple(_D_UTILITY.variants[v]) for v in D_UTILITY_METHODS},  # (call, description)
    **{name: (f"{m.r}(x, xm)", m.description) for name, m in
       ((n, by_python_name(n)) for n in ("il_correl", "il_variables"))},
}

#: the literature's information-loss measures the utility model adds (not sdcMicro's)
LITERATURE_INFO = {name: (m.citation, m.description) for name, m in
                   ((n, by_python_name(n)) for n in ("il_continuous", "il_categorical", "il_entropy", "hellinger",
                                                     "gsil"))}

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
