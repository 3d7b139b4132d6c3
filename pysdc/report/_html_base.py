"""The HTML report's building blocks: style, tables, warning flags and notes, figures.

Used by :mod:`pysdc.report._html` (the sections) and :mod:`pysdc.report._html_verdict` (the verdict);
they only format numbers computed elsewhere (:mod:`pysdc.problem`).
"""

from __future__ import annotations

import base64
import html
import io
import re

import numpy as np
import pandas as pd

from .._errors import PysdcError
from .._format import fmt
from .._registry import assessed
from .._version import REFERENCE_SDCMICRO_VERSION as SDCMICRO_REFERENCE  # noqa: F401 - used by report._html
from ..plots import plain  # the data's names are drawn literally (a "$" would start mathtext)

#: every section of the report: (id, heading)
SECTIONS = (
    ("verdict", "Verdict"),
    ("specification", "Specification"),
    ("steps", "Protection steps"),
    ("risk", "Risk summary"),
    ("risk-distribution", "Distribution of the individual risk"),
    ("riskiest", "Riskiest key combinations"),
    ("household", "Household risk"),
    ("suda2", "SUDA2: special uniques"),
    ("ldiversity", "l-diversity of the sensitive variables"),
    ("linkage", "Record linkage"),
    ("utility", "Information loss"),
    ("utility-per-variable", "Information loss per variable"),
    ("plots", "Original against masked: plots"),
    ("estimates", "Estimates and regressions before and after"),
    ("provenance", "Where the numbers come from"),
    ("versions", "Versions"),
    ("warnings", "Warnings"),
)

_CSS = """
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1b1f23;
background:#fafbfc;line-height:1.45;overflow-wrap:break-word}
header{background:#24292e;color:#fff;padding:1.2em 2em}header h1{margin:0;font-size:1.6em}
header p{margin:.3em 0 0;color:#d1d5da}
nav{background:#fff;border-bottom:1px solid #e1e4e8;padding:.5em 2em;font-size:.9em;display:flex;flex-wrap:wrap;
gap:.2em 1.1em}
nav a{color:#0366d6;text-decoration:none}
main{max-width:1150px;margin:0 auto;padding:1em 2em 3em}
section{background:#fff;border:1px solid #e1e4e8;border-radius:6px;padding:.6em 1.4em 1.2em;margin:1.2em 0;
min-width:0}
h2{border-bottom:1px solid #eaecef;padding-bottom:.3em;font-size:1.3em}h3{font-size:1.05em;margin-top:1.3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #dfe2e5;padding:.3em .6em;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.long{min-width:16em}
.badge{display:inline-block;font-size:.75em;padding:.1em .5em;border-radius:1em;white-space:nowrap}
.src-sdcmicro{background:#dbedff;color:#032f62}.src-literature{background:#fff5b1;color:#735c0f}
.src-pysdc{background:#e6ffed;color:#144620}
.note{color:#586069;font-size:.9em}.warn{background:#fffbdd;border-left:4px solid #f9c513;padding:.4em .8em;
margin:.4em 0;font-size:.9em}
.flag{display:inline-block;margin-left:.35em;padding:0 .4em;border-radius:.6em;background:#ffdce0;color:#86181d;
font-size:.8em;font-weight:600;text-decoration:none;white-space:nowrap}
.bar{display:inline-block;height:.9em;background:#1f77b4;vertical-align:middle;max-width:100%}
.bar.masked{background:#d62728}
figure{margin:.8em 0;max-width:100%}figure img{max-width:100%;height:auto;border:1px solid #eaecef}
figcaption{font-size:.85em;color:#586069}
.scroll{overflow-x:auto;max-width:100%}.grid{display:flex;flex-wrap:wrap;gap:1em}
.grid figure{flex:1 1 320px;min-width:0}
.verdict{border-left:5px solid #959da5;padding:.3em .9em;margin:.7em 0;background:#f6f8fa}
.verdict.ok{border-color:#28a745}.verdict.fail{border-color:#d73a49}.verdict.attention{border-color:#f9c513}
.verdict h3{margin:.2em 0}.verdict p,.verdict ul{margin:.3em 0}.verdict .rule{color:#586069;font-size:.88em}
.status{font-weight:600}.ok .status{color:#22863a}.fail .status{color:#cb2431}.attention .status{color:#b08800}
"""

_SCRIPT = """window.addEventListener('load',function(){var im=document.images,ok=0;
for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++;}
document.body.setAttribute('data-images',String(im.length));document.body.setAttribute('data-images-ok',String(ok));});"""


# =============================================================================
# small HTML helpers


def _e(v) -> str:
    return html.escape(str(v))


def _badge(src: str) -> str:
    s = (src or "").lower()
    kind = "sdcmicro" if s.startswith("sdcmicro") else "literature" if s.startswith("literature") else "pysdc"
    label = {"sdcmicro": "sdcMicro", "literature": "literature", "pysdc": "pysdc"}[kind]
    return f'<span class="badge src-{kind}" title="{_e(src)}">{label}</span>'


def _missing(v) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    try:
        return bool(isinstance(v, (float, np.floating)) and np.isnan(v))
    except TypeError:
        return False


def _num(v, digits: int = 6) -> str:
    """A number for the report: ``digits`` significant digits; a missing value (None, NaN, pd.NA) reads NA."""
    if _missing(v):
        return "NA"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    if isinstance(v, str):
        return _e(v)
    return _e(fmt(v, digits))


def _text(v) -> str:
    """A text cell: a missing value reads NA (as R prints it), like a missing number."""
    return "NA" if _missing(v) else str(v)


#: a text cell longer than this keeps a readable width (the table scrolls inside its box instead)
_LONG_CELL = 60


def _table(headers, rows, num_cols=()) -> str:
    # a header may break after an underscore (estimate_xm), so numbers keep the room
    head = "".join(f"<th>{h.html if isinstance(h, _Raw) else _e(h).replace('_', '_<wbr>')}</th>" for h in headers)
    body = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            if isinstance(c, _Raw):
                cells.append(f'<td class="num">{c.html}</td>' if i in num_cols else f"<td>{c.html}</td>")
            elif i in num_cols:
                cells.append(f'<td class="num">{_num(c)}</td>')
            else:
                t = _text(c)
                cells.append(f'<td class="long">{_e(t)}</td>' if len(t) > _LONG_CELL else f"<td>{_e(t)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


class _Raw:
    def __init__(self, html_: str):
        self.html = html_


def _bar(value, top, *, masked=False, width=130) -> _Raw:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return _Raw("")
    if not np.isfinite(v) or not top or top <= 0:
        return _Raw("")
    px = max(1, int(round(width * min(v, top) / top))) if v > 0 else 0
    return _Raw(f'<span class="bar{" masked" if masked else ""}" style="width:{px}px"></span>')


def _note(text: str) -> str:
    return f'<p class="note">{_e(text)}</p>'


# =============================================================================
# warnings next to their numbers, and values that cannot be right

#: the measure a warning concerns, by the function name its message starts with
_TARGET_ALIASES = {"freq_calc": "measure_risk", "indiv_risk": "measure_risk", "measure_risk": "measure_risk",
                   "k_anon_violations": "k_anon", "kAnon_violations": "k_anon", "suda2": "suda2",
                   "ldiversity": "ldiversity", "d_risk": "d_risk", "d_risk_rmd": "d_risk_rmd",
                   "il_correl": "il_correl", "il_variables": "il_variables", "il_continuous": "il_continuous",
                   "il_categorical": "il_categorical", "hellinger": "hellinger", "gsil": "gsil",
                   "il_entropy": "il_entropy", "compare_estimates": "compare_estimates", "gini": "compare_estimates",
                   "ci_overlap": "compare_estimates", "compare_regression": "compare_regression",
                   "d_utility": "d_utility"}
#: ... and, when the message does not say, by where it was raised
_WHERE_TARGETS = {"dRiskRMD": "d_risk_rmd", "dRisk": "d_risk", "kAnon_violations": "k_anon", "suda2": "suda2",
                  "measure_risk": "measure_risk", "compare_estimates": "compare_estimates",
                  "compare_regression": "compare_regression",
                  **{m.python: m.python for m in assessed("utility")}}  # SdcProblem.utility calls them by their name
_PREFIX = re.compile(r"\s*(\w+)(?:\(method=['\"](\w+)['\"])?")


def _target(where: str, message: str) -> str | None:
    """The measure (``"d_utility.robeigen"``, ``"measure_risk"``, ...) a warning's message concerns."""
    m = _PREFIX.match(message)
    if m and m.group(1) in _TARGET_ALIASES:
        t = _TARGET_ALIASES[m.group(1)]
        return f"{t}.{m.group(2)}" if t == "d_utility" and m.group(2) else t
    return _WHERE_TARGETS.get(where)


class _Notes:
    """The warnings caught while the report's numbers were computed, numbered once (in the order they came),
    with the measure each concerns: :meth:`flags` marks a number, :meth:`boxes` prints the messages under the
    table that holds it, :func:`_warnings` lists them all at the end."""

    def __init__(self, caught: list):
        self.caught = caught

    def entries(self) -> list[dict]:
        seen: dict = {}
        for where, w in self.caught:
            key = (w.category.__name__, str(w.message))
            e = seen.setdefault(key, {"category": key[0], "message": key[1], "where": [], "targets": set()})
            if where not in e["where"]:
                e["where"].append(where)
            t = _target(where, key[1])
            if t:
                e["targets"].add(t)
        out = list(seen.values())
        for i, e in enumerate(out, 1):
            e["n"] = i
        return out

    def find(self, *targets) -> list[dict]:
        want = {t for t in targets if t}
        return [e for e in self.entries() if e["targets"] & want]

    def flags(self, *targets) -> str:
        return "".join(f'<a class="flag" href="#warning-{e["n"]}" data-warning="{e["n"]}" '
                       f'title="{_e(_short(e["message"]))}">&#9888; warning {e["n"]}</a>' for e in self.find(*targets))

    def boxes(self, *targets) -> str:
        return "".join(f'<div class="warn" data-warning="{e["n"]}"><b>&#9888; warning {e["n"]}</b> '
                       f'({_e(e["category"])}): {_e(e["message"])}</div>' for e in self.find(*targets))


def _short(msg: str, n: int = 240) -> str:
    msg = " ".join(msg.split())
    return msg if len(msg) <= n else msg[: n - 1] + "\u2026"


#: measures that cannot be negative (sums of absolute values, distances, shares, probabilities, counts)
_NON_NEGATIVE = ("d_utility", "il_correl", "il_variables", "il_continuous", "il_categorical", "hellinger", "gsil",
                 "il_entropy", "measure_risk", "k_anon", "d_risk", "d_risk_rmd", "suda2")


def _oddity(v, target: str | None, why_undefined: str | None = None) -> str:
    """A flag beside a value that is not finite, or negative where the measure cannot be ("" otherwise);
    ``why_undefined``: the note that explains an NA where it stands (then it is not flagged)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ""
    if np.isnan(f) and why_undefined:
        return ""
    if np.isnan(f):
        text, title = "undefined", "NA: the measure is undefined here (see the warnings)."
    elif np.isinf(f):
        text, title = "not finite", "An infinite value: the measure is undefined here (see the warnings)."
    elif f < 0 and target and target.split(".")[0] in _NON_NEGATIVE:
        text, title = ("negative: impossible", "This measure cannot be negative (it adds up non-negative terms): "
                       "the value is numerically meaningless (see the warnings).")
    else:
        return ""
    return f'<span class="flag" data-oddity="{text}" title="{_e(title)}">&#9888; {text}</span>'


def _val(v, notes: _Notes | None, target: str | None, digits: int = 6, why_undefined: str | None = None) -> _Raw:
    """A value cell: the number, a flag when it cannot be right, and the flags of the warnings about it."""
    return _Raw(_num(v, digits) + _oddity(v, target, why_undefined) + (notes.flags(target) if notes else ""))


# =============================================================================
# figures


class _Figures:
    """Renders matplotlib figures to inline PNG; records why there are none when matplotlib is absent."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.missing: str | None = None
        if enabled:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                self.missing = ("matplotlib is not installed, so this report has no figures (pip install "
                                "'pysdc-measures[plots]'); the tables hold every number.")
        else:
            self.missing = "figures were not requested (plots=False)."
        self.count = 0

    @property
    def on(self) -> bool:
        return self.missing is None

    def img(self, make, caption: str, alt: str) -> str:
        """``<figure>`` with the figure ``make()`` returns, or a note when it cannot be drawn."""
        if not self.on:
            return ""
        buf = io.BytesIO()
        try:  # drawing (savefig) can fail too, e.g. on a label matplotlib reads as mathtext
            fig = make()
            fig.savefig(buf, format="png", dpi=80)
        except (PysdcError, ValueError) as exc:
            return _note(f"{alt}: not drawn ({' '.join(str(exc).split())}).")
        except Exception as exc:  # a figure must not cost the report: say so and go on
            return _note(f"{alt}: not drawn (internal error {type(exc).__name__}: {exc}; please report it).")
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        self.count += 1
        return (f'<figure><img alt="{_e(alt)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{_e(caption)}</figcaption></figure>")


def _new_figure(w=7.0, h=3.6):
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), layout="constrained")


def _risk_hist(risk: np.ndarray, masked: np.ndarray | None):
    fig = _new_figure()
    ax = fig.subplots()
    ok = risk[np.isfinite(risk)]
    hi = max(float(ok.max()) if ok.size else 1.0, 1e-9)
    both = [ok] + ([masked[np.isfinite(masked)]] if masked is not None else [])
    edges = np.linspace(0, max([hi] + [float(b.max()) for b in both if b.size]), 41)
    for v, c, lab in zip(both, ("#1f77b4", "#d62728"), ("original", "masked")):
        ax.hist(v, bins=edges, color=c, alpha=0.6, label=f"{lab} (n = {v.size})")
    ax.set_yscale("log")
    ax.set_xlabel("individual re-identification risk")
    ax.set_ylabel("records (log scale)")
    ax.legend(fontsize=8)
    return fig


def _suda_hist(dis: np.ndarray, dis_m: np.ndarray | None):
    fig = _new_figure()
    ax = fig.subplots()
    series = [dis] + ([dis_m] if dis_m is not None else [])
    pos = [s[np.isfinite(s) & (s > 0)] for s in series]
    hi = max([float(p.max()) for p in pos if p.size] or [1.0])
    edges = np.linspace(0, hi, 41)
    for v, c, lab in zip(pos, ("#1f77b4", "#d62728"), ("original", "masked")):
        ax.hist(v, bins=edges, color=c, alpha=0.6, label=f"{lab}: {v.size} records with DIS-SUDA > 0")
    ax.set_xlabel("DIS-SUDA score (records with a score > 0)")
    ax.set_ylabel("records")
    ax.legend(fontsize=8)
    return fig


def _bars(frame: pd.DataFrame, title: str):

    fig = _new_figure(7.0, 0.9 + 0.35 * len(frame) * max(1, frame.shape[1]) / 2)
    ax = fig.subplots()
    y = np.arange(len(frame))
    hgt = 0.8 / max(1, frame.shape[1])
    for j, col in enumerate(frame.columns):
        ax.barh(y + j * hgt, frame[col].to_numpy(dtype=float), height=hgt, label=plain(col))
    ax.set_yticks(y + hgt * (frame.shape[1] - 1) / 2)
    ax.set_yticklabels([plain(i) for i in frame.index], fontsize=8)
    ax.invert_yaxis()
    ax.set_title(plain(title), fontsize=10)
    ax.legend(fontsize=8)
    return fig


# =============================================================================
# the report


def _utility_target(measure: str, quantity: str) -> str:
    return f"d_utility.{quantity}" if measure == "d_utility" else measure
