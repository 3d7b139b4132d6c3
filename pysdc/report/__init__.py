"""Compute once, render many: the report model and its renderers.

:func:`utility_report` and :func:`risk_report` compute every number of an assessment
once (a plain dictionary, the documented JSON formats); :func:`utility_text`,
:func:`risk_text`, :func:`jsonable` (JSON), :func:`to_markdown` and :func:`to_html` only
format it. All of them format numbers through :mod:`pysdc._format`.
"""

from .._format import fmt, fmt_diff, jsonable, text_table, wrap
from ._markup import to_html, to_markdown
from ._model import k_anonymity, risk_distribution, risk_report, top_records, utility_report
from ._text import risk_text, utility_text

__all__ = [
    "utility_report",
    "risk_report",
    "k_anonymity",
    "risk_distribution",
    "top_records",
    "utility_text",
    "risk_text",
    "to_markdown",
    "to_html",
    "jsonable",
    "fmt",
    "fmt_diff",
    "text_table",
    "wrap",
]
