"""Renderers of the assessment model: text, JSON, Markdown and HTML.

The model -- the numbers of a risk or utility assessment (JSON formats ``pysdc-risk-1`` and
``pysdc-utility-1``) -- is built once by :mod:`pysdc.problem` (``SdcProblem.risk().to_dict()``,
``SdcProblem.utility(masked).to_dict()``, or an engine's results). Here it is only formatted:
:func:`utility_text`, :func:`risk_text` (the command line), :func:`jsonable` (JSON),
:func:`to_markdown`, :func:`to_html` (fragments) and :func:`render_html` (the HTML report). All of
them format numbers through :mod:`pysdc._format`. Nothing here imports the problem object.
"""

from .._format import fmt, fmt_diff, jsonable, text_table, wrap
from ._html import SDCMICRO_REFERENCE, SECTIONS, render_html
from ._info import LITERATURE_INFO, MEASURE_INFO
from ._markup import to_html, to_markdown
from ._text import risk_text, utility_text

__all__ = [
    "utility_text",
    "risk_text",
    "to_markdown",
    "to_html",
    "render_html",
    "jsonable",
    "fmt",
    "fmt_diff",
    "text_table",
    "wrap",
    "MEASURE_INFO",
    "LITERATURE_INFO",
    "SECTIONS",
    "SDCMICRO_REFERENCE",
]
