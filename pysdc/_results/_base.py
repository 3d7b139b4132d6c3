"""The result classes' common base: a readable repr (text and HTML) and the R-style summary."""

from __future__ import annotations

import html
from dataclasses import fields

import numpy as np
import pandas as pd

from .._summaries import (
    SUMMARIES,
)


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<array shape={value.shape} dtype={value.dtype}>"
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]} rows x {value.shape[1]} columns>"
    if isinstance(value, pd.Series):
        if len(value) <= 6:
            inner = ", ".join(f"{k}: {v:.6g}" if isinstance(v, float) else f"{k}: {v}" for k, v in value.items())
            return "{" + inner + "}"
        return f"<Series of {len(value)}>"
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(value)


def _html_value(value) -> str:
    """One field's value as HTML: small tables for frames and short series, a preview of long arrays."""
    if isinstance(value, pd.DataFrame):
        head = value.head(10)
        more = "" if len(value) <= 10 else f"<div>... {len(value)} rows x {value.shape[1]} columns</div>"
        return head.to_html(border=0, max_cols=12, float_format=lambda v: f"{v:.6g}") + more
    if isinstance(value, pd.Series):
        if len(value) <= 20:
            rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_short(v))}</td></tr>"
                           for k, v in value.items())
            return f"<table>{rows}</table>"
        return html.escape(f"<Series of {len(value)}>")
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        shown = ", ".join(_short(v.item() if hasattr(v, "item") else v) for v in flat[:8])
        return html.escape(f"array of {value.size} ({value.dtype}): [{shown}{', ...' if flat.size > 8 else ''}]")
    if isinstance(value, dict) and len(value) <= 20:
        rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{_html_value(v)}</td></tr>" for k, v in value.items())
        return f"<table>{rows}</table>"
    return html.escape(_short(value))


class _Repr:
    """Base of every result class: a short ``repr`` that never prints whole arrays, an HTML view for
    Jupyter (``_repr_html_``: the summary where the class has one, then every field), and in IPython
    the summary as its text view."""

    def __repr__(self) -> str:
        parts = [f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self) if f.repr]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _summary_text(self) -> str | None:
        """sdcMicro's printed summary, where the result has one (see :class:`_Summary`)."""
        return None

    def _repr_html_(self) -> str:
        name = html.escape(type(self).__name__)
        parts = [f'<div class="pysdc-result"><strong>{name}</strong>']
        summary = self._summary_text()
        if summary:
            parts.append(f"<pre>{html.escape(summary)}</pre>")
        rows = "".join(
            f"<tr><th style='text-align:left;vertical-align:top'>{html.escape(f.name)}</th>"
            f"<td style='text-align:left'>{_html_value(getattr(self, f.name))}</td></tr>"
            for f in fields(self)
        )
        parts.append(f"<table>{rows}</table></div>")
        return "".join(parts)

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's text view
        p.text(repr(self) if cycle else (self._summary_text() or repr(self)))


class _Summary:
    """``str()``/``print()`` show what sdcMicro's ``print`` method of the result shows, built by
    :mod:`pysdc._summaries` (the report model's summaries, rendered as the command line renders);
    ``repr()`` stays the short field listing."""

    _summary_name = ""

    def _summary_text(self) -> str:
        summary, text = SUMMARIES[self._summary_name]
        return text(summary(self))

    def __str__(self) -> str:
        return self._summary_text()
