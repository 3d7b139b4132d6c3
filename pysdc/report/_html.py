"""The HTML report of an SDC problem: one self-contained file people open and share.

:func:`html_report` builds it, :func:`write_report` writes it (:meth:`pysdc.SdcProblem.report` and
``pysdc report`` call them). Everything is inline -- CSS, figures as base64 PNG (matplotlib, the
``[plots]`` extra), a few bytes of script that only marks the images as loaded -- so the file opens
without a network. Without matplotlib the report still renders: bar charts are drawn with CSS and
a note says which figures are missing.

The numbers come from :class:`pysdc.SdcProblem`'s results (:meth:`~pysdc.SdcProblem.risk`,
:meth:`~pysdc.SdcProblem.utility`) and the risk report model (:func:`pysdc.report.risk_report`, the
same numbers and summaries as ``pysdc risk``); each is computed once. Every table says where its numbers come from
(``sdcMicro`` for the measures pysdc computes number-for-number with sdcMicro 5.8.0,
``literature`` for the native-only measures, ``pysdc`` for pysdc's summaries).

Sections (HTML ids): ``verdict`` (first: k-anonymity at the chosen k, the global risk against its
target, the riskiest combinations and the loss band, each with the rule that produced it),
``specification``, ``risk``, ``risk-distribution``, ``riskiest``, ``household``, ``suda2``,
``ldiversity``, ``utility``, ``utility-per-variable``, ``plots``, ``estimates``, ``provenance``,
``versions``, ``warnings``.

Each warning raised while the numbers were computed is shown next to the numbers it concerns (a
flag in the row, the full message under the table) and again in the list at the end; values that are
not finite, or negative where the measure cannot be, are flagged where they stand. A missing value
reads ``NA`` everywhere (as R prints it). The layout wraps: a wide table scrolls inside its own box,
never the page.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import platform
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import PysdcError
from .._format import fmt

__all__ = ["html_report", "write_report", "SECTIONS", "SDCMICRO_REFERENCE"]

#: the sdcMicro version whose numbers pysdc reproduces (the stored references in r_reference/)
SDCMICRO_REFERENCE = "5.8.0"

#: every section of the report: (id, heading)
SECTIONS = (
    ("verdict", "Verdict"),
    ("specification", "Specification"),
    ("risk", "Risk summary"),
    ("risk-distribution", "Distribution of the individual risk"),
    ("riskiest", "Riskiest key combinations"),
    ("household", "Household risk"),
    ("suda2", "SUDA2: special uniques"),
    ("ldiversity", "l-diversity of the sensitive variables"),
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
                  "compare_regression": "compare_regression"}
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
    from ..plots import plain  # the data's names are drawn literally (a "$" would start mathtext)

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


def _run_factory(pre: dict, caught: list):
    def run(where, fn, *args, **kwargs):
        if where in pre:
            return pre[where]
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                return fn(*args, **kwargs)
            finally:
                caught.extend((where, w) for w in ws)

    return run


def html_report(problem, masked=None, *, title: str | None = None, regression: str | None = None,
                regression_where: str | None = None, estimates=None, random_state: int | None = None,
                plots: bool = True, top: int = 10,
                source: dict | None = None, k: int = 3, max_global_risk: float = 0.01) -> str:
    """The HTML report of ``problem`` (and of ``masked``) as one self-contained document.

    Parameters
    ----------
    problem : SdcProblem
        The data and the roles of its variables.
    masked : pandas.DataFrame, optional
        The masked file (same records in the same order, same column names): adds the information
        loss, the before/after comparisons and the plots of original against masked.
    title : str, optional
        The report's title.
    regression : str, optional
        A model formula in R syntax (e.g. ``"log(income) ~ age_group + sex"``) compared before/after
        with :func:`pysdc.compare_regression` (weighted with the problem's weight); needs ``masked``.
    regression_where : str, optional
        A condition on the records the regression uses, applied to each file (e.g. ``"income > 0"`` for
        a log-income model, as the practice guide does). Read by pysdc's own parser, never evaluated by
        Python: column names (backquoted when they hold spaces), numbers, 'strings', ``+ - * /``,
        comparisons, ``in``/``%in%``/``isin()``, ``isna()``/``notna()``, ``& | ~``/``and or not``/``! && ||``
        and parentheses (:mod:`pysdc.core.condition`); a comparison with a missing value is False.
        Anything else (``@``, attribute access, other calls, dunder names) raises
        :class:`~pysdc.core.condition.RefusedConditionError` before anything is computed.
    estimates : str, callable or list, optional
        Estimators for :func:`pysdc.compare_estimates` (e.g. ``["mean(income)", "gini(income)"]``);
        default: the weighted mean of each numeric variable.
    random_state : int, optional
        Seed of robeigen's and dRiskRMD's random MCD subsets and of the bootstrap intervals.
    plots : bool, default True
        Draw the figures (needs matplotlib).
    top : int, default 10
        How many riskiest combinations / records to list.
    source : dict, optional
        ``{"original": path, "masked": path}`` to name the files.
    k : int, default 3
        The k of the verdict's k-anonymity (every key combination shared by at least k records).
    max_global_risk : float, default 0.01
        The target of the global risk (sdcMicro's measure_risk ``max_global_risk``): the verdict says
        whether the global risk is at or below it, and the threshold is computed for it.

    Returns
    -------
    str
        The HTML document.

    Warns
    -----
    PysdcWarning
        Every distinct warning raised while the numbers were computed is raised again once the report is
        built (the report also shows each next to the numbers it concerns and lists them at its end).
    """
    from .. import __version__, compare_estimates, compare_regression
    from ..problem import SdcProblem, origin
    from ._model import risk_report

    if not isinstance(problem, SdcProblem):
        from .._problem_args import as_problem, is_problem

        if not is_problem(problem):
            from .._errors import InvalidParameterError

            raise InvalidParameterError(f"problem must be an SdcProblem; got {type(problem).__name__}.")
        problem = as_problem(problem)
    x = problem.data
    if regression_where is not None:  # what the condition language refuses stops the report before any work
        from ..core.condition import RefusedConditionError, parse_condition

        try:
            parse_condition(regression_where, columns=x.columns, name="regression_where")
        except RefusedConditionError:
            raise
        except PysdcError:
            pass  # a syntax error is reported in the estimates section, like a formula that cannot be fitted
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        from .._errors import InvalidParameterError

        raise InvalidParameterError(f"k must be a whole number >= 1; got {k!r}.")
    if not (isinstance(max_global_risk, (int, float, np.floating)) and 0 < float(max_global_risk) < 1):
        from .._errors import InvalidParameterError

        raise InvalidParameterError(f"max_global_risk must be a number in (0, 1); got {max_global_risk!r}.")
    keys, nums = problem.key_vars, problem.num_vars
    xm = None if masked is None else problem._masked(masked)
    figs = _Figures(plots)
    caught: list = []
    source = source or {}

    with warnings.catch_warnings(record=True) as top_caught:
        warnings.simplefilter("always")
        risk0 = problem.risk(max_global_risk=max_global_risk)
    caught.extend(("risk (original)", w) for w in top_caught)
    risk1 = None
    if xm is not None:
        with warnings.catch_warnings(record=True) as top_caught:
            warnings.simplefilter("always")
            risk1 = problem.risk(data=xm, max_global_risk=max_global_risk)
        caught.extend(("risk (masked)", w) for w in top_caught)
    notes = _Notes(caught)

    def model(r, d, xm_=None):
        pre = {"measure_risk": r.measure_risk}
        if r.suda2 is not None:
            pre["suda2"] = r.suda2
        return risk_report(d, keys, w=problem.w, hid=problem.hid, top=top, run=_run_factory(pre, caught),
                           suda=r.suda2 is not None, numeric=nums if (xm_ is not None and nums) else None,
                           x=x, xm=xm_, random_state=random_state, max_global_risk=max_global_risk)

    rep0 = model(risk0, x, xm)
    rep1 = model(risk1, xm) if xm is not None else None
    putil = None
    if xm is not None:
        with warnings.catch_warnings(record=True) as wu:
            warnings.simplefilter("always")
            putil = problem.utility(xm, random_state=random_state)
        caught.extend(("utility", w) for w in wu)

    parts = []
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = title or "Statistical disclosure control report"
    nav = " ".join(f'<a href="#{sid}">{_e(h)}</a>' for sid, h in SECTIONS)

    # ---- specification
    spec_rows = [("key variables (keyVars)", ", ".join(keys)), ("numeric variables (numVars)", ", ".join(nums) or "-"),
                 ("weight (weightVar)", problem.w or "-"), ("household id (hhId)", problem.hid or "-"),
                 ("strata (strataVar)", problem.strata or "-"),
                 ("sensitive variables (sensibleVar)", ", ".join(problem.sensitive) or "-")]
    files = [("original", source.get("original", "(a DataFrame)"), len(x), x.shape[1])]
    if xm is not None:
        files.append(("masked", source.get("masked", "(a DataFrame)"), len(xm), xm.shape[1]))
    from .._types import r_class

    def cls(d, v):
        try:
            return r_class(d[v])
        except PysdcError:
            return str(d[v].dtype)

    var_rows = []
    for v in problem.variables:
        role = ("key" if v in keys else "numeric" if v in nums else "weight" if v == problem.w else
                "household id" if v == problem.hid else "strata" if v == problem.strata else "sensitive")
        var_rows.append([v, role, cls(x, v), str(x[v].dtype), int(x[v].isna().sum()),
                         int(x[v].nunique(dropna=True)), "" if xm is None or v not in xm.columns else cls(xm, v)])
    parts.append(_section("specification", _table(["role", "variables"], spec_rows)
                          + _table(["file", "source", "records", "columns"], files, num_cols={2, 3})
                          + "<h3>Variables</h3>"
                          + _table(["variable", "role", "R class", "dtype", "missing", "distinct", "R class (masked)"],
                                   var_rows, num_cols={4, 5})
                          + _note("The specification of sdcMicro's createSdcObj (its argument names in brackets). "
                                  "pysdc.SdcProblem(...).to_r() builds the same sdcMicroObj in R.")))

    # ---- risk summary
    parts.append(_section("risk", _risk_summary(rep0, rep1, notes)))
    # ---- distribution
    ind0 = np.asarray(risk0.measure_risk.individual["risk"], dtype=float)
    ind1 = None if risk1 is None else np.asarray(risk1.measure_risk.individual["risk"], dtype=float)
    dist = _distribution(rep0, rep1)
    dist += figs.img(lambda: _risk_hist(ind0, ind1), "Histogram of the individual re-identification risk "
                     "(sdcMicro's measure_risk, log-scaled counts).", "histogram of individual risk")
    parts.append(_section("risk-distribution", dist))
    # ---- riskiest combinations
    parts.append(_section("riskiest", _riskiest(x, keys, risk0.measure_risk.individual, top, problem.w)
                          + "<h3>Riskiest records</h3>" + _top_table(rep0["top"], keys)
                          + _note("One row per record: the record's number (1-based, as in R), its key values, "
                                  "fk, Fk and risk (sdcMicro's measure_risk). A missing key value is shown as NA.")))
    # ---- household
    parts.append(_section("household", _household(rep0, rep1, problem.hid)))
    # ---- suda2
    su = _suda(rep0, rep1, notes)
    if risk0.suda2 is not None and figs.on:
        dm = None if risk1 is None or risk1.suda2 is None else np.asarray(risk1.suda2.dis_score, dtype=float)
        su += figs.img(lambda: _suda_hist(np.asarray(risk0.suda2.dis_score, dtype=float), dm),
                       "DIS-SUDA scores of the records with a score above 0 (sdcMicro's suda2).", "SUDA2 scores")
    parts.append(_section("suda2", notes.boxes("suda2") + su))
    # ---- l-diversity
    parts.append(_section("ldiversity", notes.boxes("ldiversity") + _ldiv(risk0, risk1, notes)))
    # ---- utility
    if putil is None:
        parts.append(_section("utility", _note("No masked file was given: information loss compares a masked file "
                                               "with the original (problem.report(masked) or pysdc report ORIG MASKED).")))
        parts.append(_section("utility-per-variable", _note("No masked file was given.")))
        parts.append(_section("plots", _note("No masked file was given.")))
        parts.append(_section("estimates", _note("No masked file was given.")))
    else:
        parts.append(_section("utility", _utility(putil, notes)))
        pv = putil.per_variable()
        body = _per_variable(pv, notes)
        if figs.on and not pv.empty:
            for cols, what in ((["il_variables", "hellinger"], "il_variables (sdcMicro) and Hellinger distance "
                                "(literature), 0 = unchanged"), (["direct", "il_entropy"],
                                "share of changed values and entropy loss (literature)")):
                have = [c for c in cols if c in pv.columns]
                sub = pv[have].dropna(how="all") if have else pd.DataFrame()
                if not sub.empty:
                    body += figs.img(lambda s=sub, w=what: _bars(s.fillna(0.0), w), what, f"bar chart: {what}")
        parts.append(_section("utility-per-variable", body))
        parts.append(_section("plots", _plots(x, xm, keys, nums, figs)))
        parts.append(_section("estimates", _estimates(x, xm, problem, nums, estimates, regression, regression_where,
                                                      random_state,
                                                      figs, caught, compare_estimates, compare_regression,
                                                      notes)))

    # ---- provenance
    parts.append(_section("provenance", _provenance(origin)))
    # ---- versions
    parts.append(_section("versions", _versions(__version__)))
    # ---- warnings
    parts.append(_section("warnings", _warnings(notes)))
    # ---- the verdict, first (built last: every warning is in by now)
    judged = xm if xm is not None else x
    judged_risk = risk1 if risk1 is not None else risk0
    parts.insert(0, _section("verdict", _verdict(rep1 or rep0, judged, keys, judged_risk.measure_risk.individual,
                                                 putil, k, notes, masked=xm is not None,
                                                 before=(rep0, risk0.measure_risk.individual) if rep1 else None)))
    _rewarn(notes)
    missing = f'<p class="warn">{_e(figs.missing)}</p>' if figs.missing and plots else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style><script>{_SCRIPT}</script></head><body>"
            f"<header><h1>{_e(title)}</h1><p>pysdc {_e(__version__)} &middot; {_e(now)} &middot; {len(x)} records"
            f"{' &middot; original and masked' if xm is not None else ''}</p></header>"
            f"<nav>{nav}</nav><main>{missing}{''.join(parts)}</main></body></html>\n")


def write_report(problem, masked=None, path="report.html", **options) -> Path:
    """Write :func:`html_report` to ``path`` (UTF-8, a ``.html`` or ``.htm`` name); returns the path.

    The file appears only complete: written beside ``path`` and renamed (:mod:`pysdc.io`); on an
    error, an interrupt or a full disk ``path`` keeps its old content (or does not exist)."""
    from ..io import check_output, write_text

    p = check_output(path, (), what="path", extensions=(".html", ".htm"), format_name="the report as HTML")
    text = html_report(problem, masked, **options)
    write_text(p, text, encoding="utf-8")
    return p


def _section(sid: str, body: str) -> str:
    heading = dict(SECTIONS)[sid]
    return f'<section id="{sid}"><h2>{_e(heading)}</h2>{body}</section>'


# =============================================================================
# section bodies


def _change(a, b):
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return None
    return b - a if np.isfinite(a) and np.isfinite(b) else None


def _risk_summary(rep0: dict, rep1: dict | None, notes: _Notes) -> str:
    prov = rep0["provenance"]
    g0 = rep0["global"]
    g1 = rep1["global"] if rep1 else None
    rows = []

    def add(label, a, b, target, src, digits=6, why=None):
        row = [_Raw(_e(label) + notes.flags(target)), _val(a, None, target, digits, why)]
        if rep1:
            row += [_val(b, None, target, digits, why), _Raw(_num(_change(a, b), digits))]
        rows.append(row + [_Raw(_badge(src))])

    why = lambda g: (g or {}).get("threshold_note") or None  # noqa: E731
    add("expected re-identifications", g0["expected_reidentifications"], g1 and g1["expected_reidentifications"],
        "measure_risk", prov["global"])
    add("global risk (%)", g0["global_risk_pct"], g1 and g1["global_risk_pct"], "measure_risk", prov["global"], 4)
    add(f"threshold for a global risk of {fmt(g0['max_global_risk'])}", g0["threshold"], g1 and g1["threshold"],
        "measure_risk", prov["global"], why=why(g0) or why(g1))
    k0, k1 = rep0["k_anonymity"], (rep1["k_anonymity"] if rep1 else None)
    src = prov["k_anonymity.violations"]
    for v0, v1 in zip(k0["violations"], (k1["violations"] if k1 else [None] * len(k0["violations"]))):
        add(f"records violating {v0['k']}-anonymity (fk < {v0['k']})", v0["unweighted"], v1 and v1["unweighted"],
            "k_anon", src)
        if v0["weighted"] is not None:
            add(f"records with Fk < {v0['k']} (weighted)", v0["weighted"], v1 and v1["weighted"], "k_anon", src)
    head = ["measure", "original"] + (["masked", "change (masked - original)"] if rep1 else []) + ["source"]
    out = _table(head, rows, num_cols={1, 2, 3} if rep1 else {1})
    note, note1 = g0.get("threshold_note"), (g1 or {}).get("threshold_note")
    if note and (not rep1 or note1 == note):
        out += _note(f"threshold: {note}")
    else:
        out += "".join(_note(f"threshold ({which}): {t}") for which, t in (("original", note), ("masked", note1)) if t)
    out += _note("fk: the records of the file sharing a record's key combination; Fk: their weights summed (the "
                 "population estimate). The counts of records violating k-anonymity are sdcMicro's kAnon_violations.")
    out += notes.boxes("measure_risk", "k_anon")
    dr = rep0.get("distance")
    if dr:
        drows, errors = [], []
        for name, key, target in (("dRisk", "d_risk", "d_risk"), ("dRiskRMD", "d_risk_rmd", "d_risk_rmd")):
            m = dr[key]
            fields = ("value",) if key == "d_risk" else ("risk1", "risk2", "wrisk1", "wrisk2")
            if m["status"] == "ok":
                drows += [[name if f == "value" else f"{name} {f}", _val(m[f], notes, target),
                           _Raw(_badge(prov[f"distance.{key}"]))] for f in fields]
            else:
                drows.append([name, _Raw("NA" + notes.flags(target)), _Raw(_badge(prov[f"distance.{key}"]))])
                errors.append(f"{name} not computed: {m.get('error') or m['status']}")
        if drows:
            out += (f"<h3>Distance-based risk of the masked numeric variables ({_e(', '.join(dr['variables']))})</h3>"
                    + _table(["measure", "value", "source"], drows, num_cols={1}) + "".join(map(_note, errors))
                    + notes.boxes("d_risk", "d_risk_rmd"))
    return out


def _distribution(rep0: dict, rep1: dict | None) -> str:
    d0 = rep0["individual_risk"]
    d1 = rep1["individual_risk"] if rep1 else None
    top = max([b["count"] for b in d0["bins"]] + ([b["count"] for b in d1["bins"]] if d1 else []) + [1])
    rows = []
    for i, b in enumerate(d0["bins"]):
        label = f"[{fmt(b['lower'])}, {fmt(b['upper'])}{']' if i == len(d0['bins']) - 1 or b['upper'] == 1.0 else ')'}"
        row = [label, b["count"], _bar(b["count"], top)]
        if d1:
            b1 = d1["bins"][i] if i < len(d1["bins"]) else {"count": 0}
            row += [b1["count"], _bar(b1["count"], top, masked=True)]
        rows.append(row)
    head = ["individual risk", "records (original)", ""] + (["records (masked)", ""] if d1 else [])
    out = _table(head, rows, num_cols={1, 3})
    qrows = [[q, _Raw(_num(v)), _Raw(_num(d1["quantiles"][q])) if d1 else _Raw("")] for q, v in d0["quantiles"].items()]
    qrows.append(["mean", _Raw(_num(d0["mean"])), _Raw(_num(d1["mean"])) if d1 else _Raw("")])
    out += "<h3>Quantiles</h3>" + _table(["quantile", "original", "masked" if d1 else ""], qrows)
    out += _note("pysdc's summary of sdcMicro's individual risks (measure_risk's risk column).") + _badge("pysdc")
    return out


def _riskiest_frame(x, keys, ind: pd.DataFrame, top: int) -> pd.DataFrame:
    """The ``top`` key combinations with the highest individual risk (then the smallest fk): index the key
    values (a missing one as NA), columns records, fk, Fk, risk."""
    cols = [c for c in ("fk", "Fk", "risk") if c in ind.columns]
    frame = x[keys].reset_index(drop=True).copy()
    for c in cols:
        frame[c] = ind[c].to_numpy()
    frame = frame.astype({k: object for k in keys})
    for k in keys:
        frame[k] = frame[k].where(frame[k].notna(), "NA").astype(str)
    g = frame.groupby(keys, sort=False, dropna=False).agg(records=("risk", "size"), fk=("fk", "first"),
                                                        Fk=("Fk", "first"), risk=("risk", "max"))
    return g.sort_values(["risk", "fk"], ascending=[False, True], kind="stable").head(top)


def _riskiest(x, keys, ind: pd.DataFrame, top: int, w) -> str:
    g = _riskiest_frame(x, keys, ind, top)
    rows = [[*(idx if isinstance(idx, tuple) else (idx,)), r["records"], r["fk"], r["Fk"], r["risk"]]
            for idx, r in g.iterrows()]
    n = len(keys)
    return (_table([*keys, "records", "fk", "Fk", "individual risk"], rows, num_cols=set(range(n, n + 4)))
            + _note("The key combinations with the highest individual risk (sdcMicro's fk, Fk and risk; the selection "
                    "is pysdc's). A missing key value is shown as NA." + ("" if w else " Without a weight, Fk = fk.")))


def _top_table(rows: list[dict], keys: list) -> str:
    if not rows:
        return _note("none")
    cols = [c for c in rows[0] if c not in ("record",)]
    body = [[r["record"], *(r.get(c) for c in cols)] for r in rows]
    return _table(["record", *cols], body, num_cols={0, *range(1 + len(keys), 1 + len(cols))})


def _household(rep0, rep1, hid) -> str:
    if not rep0.get("household"):
        return _note("No household id (hid) was declared: the household risk needs one.")
    h0 = rep0["household"]
    h1 = rep1["household"] if rep1 else None
    src = rep0["provenance"]["household"]
    rows = [["expected re-identifications (households)", _Raw(_num(h0["expected_reidentifications"])),
             _Raw(_num(h1["expected_reidentifications"])) if h1 else _Raw(""), _Raw(_badge(src))],
            ["household risk (%)", _Raw(_num(h0["risk_pct"], 4)), _Raw(_num(h1["risk_pct"], 4)) if h1 else _Raw(""),
             _Raw(_badge(src))]]
    return (_table(["measure", "original", "masked" if h1 else "", "source"], rows)
            + _note(f"Household risk over the households given by {hid!r}: a household is re-identified when any "
                    "of its members is (sdcMicro's measure_risk with hid)."))


def _suda(rep0, rep1, notes: _Notes) -> str:
    s0 = rep0.get("suda2") or {}
    if s0.get("status") != "ok":
        return _note(f"SUDA2 was not computed: {s0.get('error') or 'not applicable'}.")
    s1 = (rep1 or {}).get("suda2") or {}
    s1 = s1 if s1.get("status") == "ok" else None
    d0 = s0["dis_score"]
    d1 = s1["dis_score"] if s1 else None
    rows = [["records with a SUDA score > 0", _Raw(_num(s0["score"]["n_positive"])),
             _Raw(_num(s1["score"]["n_positive"])) if s1 else _Raw("")],
            ["highest SUDA score", _Raw(_num(s0["score"]["max"])), _Raw(_num(s1["score"]["max"])) if s1 else _Raw("")],
            ["records with a DIS-SUDA score > 0", _Raw(_num(d0["n_positive"])),
             _Raw(_num(d1["n_positive"])) if d1 else _Raw("")],
            ["mean DIS-SUDA score", _Raw(_num(d0["mean"])), _Raw(_num(d1["mean"])) if d1 else _Raw("")]]
    rows += [[f"DIS-SUDA {q}", _Raw(_num(v)), _Raw(_num(d1["quantiles"][q])) if d1 else _Raw("")]
             for q, v in d0["quantiles"].items()]
    out = _table([_Raw(notes.flags("suda2")), "original", "masked" if s1 else ""], rows, num_cols={1, 2}) + _badge(
        "pysdc") + _note(
        "pysdc's summaries of sdcMicro's suda2 scores (dis_fraction = 0.01).")
    ac = s0["attribute_contributions"]
    top = max([abs(v) for v in ac.values() if v == v] + [1e-12])
    out += "<h3>Contribution of each key variable (%)" + notes.flags("suda2") + "</h3>" + _table(
        ["variable", "contribution (%)", ""], [[k, v, _bar(v, top)] for k, v in ac.items()], num_cols={1}) + _badge(
        "sdcMicro: suda2")
    if s0["top"]:
        out += "<h3>Records with the highest SUDA scores</h3>" + _top_table(s0["top"], s0["key_vars"])
    return out


def _stat(f, a: np.ndarray) -> float:
    """``f(a)`` over the finite values; NaN when there are none."""
    a = a[np.isfinite(a)]
    return float(f(a)) if a.size else float("nan")


def _ldiv(risk0, risk1, notes: _Notes) -> str:
    if risk0.ldiversity is None:
        return _note(f"l-diversity was not computed: {risk0.skipped.get('ldiversity', 'not applicable')}.")
    rows = []
    for v in risk0.ldiversity.ldiv_index:
        for kind in ("Distinct", "Entropy", "Recursive"):
            col = f"{v}_{kind}_Ldiversity"
            a = risk0.ldiversity.table[col].to_numpy(dtype=float)
            b = None if risk1 is None or risk1.ldiversity is None else risk1.ldiversity.table[col].to_numpy(dtype=float)
            rows.append([v, kind, *(_Raw(_num(_stat(f, a))) for f in (np.nanmin, np.nanmedian)),
                         _Raw(_num(int(np.sum(a < 2)))),
                         *((_Raw(_num(_stat(np.nanmin, b))), _Raw(_num(int(np.sum(b < 2))))) if b is not None else
                           (_Raw(""), _Raw("")))])
    return (_table([_Raw("sensitive variable" + notes.flags("ldiversity")), "l-diversity", "min", "median",
                    "records with l < 2", "min (masked)", "records with l < 2 (masked)"], rows)
            + _badge("sdcMicro: ldiversity") + _note("Per record, l-diversity of the sensitive variable within the "
                                                    "record's key combination (sdcMicro's ldiversity); min, median "
                                                    "and counts are pysdc's summaries."))


def _utility_target(measure: str, quantity: str) -> str:
    return f"d_utility.{quantity}" if measure == "d_utility" else measure


def _utility(putil, notes: _Notes) -> str:
    rows, targets = [], []
    for (measure, quantity), r in putil.to_frame().iterrows():
        t = _utility_target(measure, quantity)
        targets.append(t)
        rows.append([measure, quantity, _val(r["value"], notes, t), _Raw(_badge(r["origin"]))])
    out = _table(["measure", "quantity", "value", "source"], rows, num_cols={2}) + notes.boxes(*targets, "d_utility")
    g = putil.results.get("gsil")
    if g is not None and getattr(g, "band", None):
        out += _note(f"gsil's band ({g.band}) is Todorova's reading of the score: {_GSIL_RULE}")
    var = putil.variables
    out += _note(f"Numeric variables: {', '.join(var['numeric']) or 'none'}; categorical key variables: "
                 f"{', '.join(var['categorical']) or 'none'}; il_variables on {', '.join(var['il_variables']) or 'none'}"
                 + (f" (scales {var['scales']})" if var["scales"] else "") + ".")
    lo = [[v, "all", why] for v, why in var.get("left_out", {}).items()]
    lo += [[name, "", why] for name, why in putil.skipped.items()]
    if lo:
        out += "<h3>Not computed</h3>" + _table(["variable / measure", "", "reason"], lo)
    from ._model import LITERATURE_INFO, MEASURE_INFO

    out += "<h3>What the measures mean</h3>" + _table(
        ["measure", "definition", "source"],
        [[k, v[1], _Raw(_badge("sdcMicro"))] for k, v in MEASURE_INFO.items()]
        + [[k, v[1], _Raw(_badge("literature"))] for k, v in LITERATURE_INFO.items()])
    return out


_PV_TARGETS = {"il_variables": "il_variables", "hellinger": "hellinger", "direct": "il_categorical",
               "ebil": "il_categorical", "il_entropy": "il_entropy"}


def _per_variable(pv: pd.DataFrame, notes: _Notes) -> str:
    if pv.empty:
        return _note("No per-variable measure applied.")
    src = {"il_variables": "sdcMicro: IL_variables", "hellinger": "literature", "direct": "literature",
           "ebil": "literature", "il_entropy": "literature"}
    heads = ["variable"]
    for c in pv.columns:
        heads += [_Raw(_e(c) + notes.flags(_PV_TARGETS.get(c))), ""]
    tops = {c: float(np.nanmax(np.abs(pv[c].to_numpy(dtype=float)))) if pv[c].notna().any() else 0.0
            for c in pv.columns}
    rows = []
    for v, r in pv.iterrows():
        row = [v]
        for c in pv.columns:
            # NaN here: the measure does not cover the variable (not a degenerate value)
            row += [r[c] if _missing(r[c]) else _val(r[c], None, _PV_TARGETS.get(c)), _bar(r[c], tops[c], width=60)]
        rows.append(row)
    nums = {1 + 2 * i for i in range(len(pv.columns))}
    legend = " ".join(f"{c} {_badge(src.get(c, 'pysdc'))}" for c in pv.columns)
    return (_table(heads, rows, num_cols=nums) + f"<p class=\"note\">{legend}</p>"
            + _note("il_variables: the variable's mean distance per record (sdcMicro's IL_variables); hellinger: "
                    "distance between the variable's distributions (0 to 1); direct: share of records whose value "
                    "changed; ebil: entropy-based loss (il_categorical); il_entropy: |H(masked) - H(original)|. "
                    "NA: the measure does not apply to the variable (e.g. direct, ebil and il_entropy to numeric "
                    "variables).")
            + notes.boxes(*_PV_TARGETS.values()))


def _plots(x, xm, keys, nums, figs: _Figures) -> str:
    if not figs.on:
        return _note(f"No plots: {figs.missing}")
    from .. import plots

    out = []
    for v in nums:
        out.append(f"<h3>{_e(v)}</h3><div class=\"grid\">"
                   + figs.img(lambda v=v: plots.histogram(x, xm, v), f"Histogram of {v}, same bins before and after.",
                              f"histogram of {v}")
                   + figs.img(lambda v=v: plots.density(x, xm, v), f"Density of {v} (Gaussian kernel, bw.nrd0).",
                              f"density of {v}")
                   + figs.img(lambda v=v: plots.boxplot(x, xm, v), f"Box plots of {v}.", f"boxplot of {v}")
                   + "</div>")
    cats = [k for k in keys if x[k].nunique(dropna=False) <= 20]
    pairs = list(zip(cats[::2], cats[1::2]))[:4] or ([(cats[0], cats[1])] if len(cats) >= 2 else [])
    for a, b in pairs:
        out.append(figs.img(lambda a=a, b=b: plots.mosaic(x, xm, a, b), f"Mosaic plot of {a} x {b} before and after.",
                            f"mosaic of {a} and {b}"))
    if not out:
        return _note("No numeric variables and fewer than two categorical keys: nothing to plot.")
    return "".join(out) + _note("The practice guide's plots of original against masked data (pysdc.plots).")


def _where(frame: pd.DataFrame, where: str | None, name: str) -> pd.DataFrame:
    """The records of ``frame`` that satisfy ``regression_where``.

    The condition is read and evaluated by pysdc's own parser (:mod:`pysdc.core.condition`), never by
    Python or ``DataFrame.eval``: what it refuses (``@``, attribute access, other calls, dunder names,
    the size limits) raises :class:`~pysdc.core.condition.RefusedConditionError` as it is; a condition
    that cannot be evaluated on this file (a syntax error, an unknown column, a type mismatch) raises
    :class:`~pysdc.InvalidParameterError` saying so.
    """
    if not where:
        return frame
    from .._errors import InvalidParameterError
    from ..core.condition import RefusedConditionError, parse_condition

    try:
        mask = parse_condition(where, columns=frame.columns, name="regression_where").evaluate(frame)
    except RefusedConditionError:
        raise
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{str(exc).rstrip('.')} - so it cannot be evaluated on {name}.") from None
    return frame[mask]


def _estimates(x, xm, problem, nums, estimates, regression, regression_where, random_state, figs, caught,
               compare_estimates, compare_regression, notes: _Notes) -> str:
    out = []
    est = estimates if estimates is not None else [f"mean({v})" for v in nums]
    if est:
        try:
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter("always")
                t = compare_estimates(x, xm, est, w=problem.w, random_state=random_state)
            caught.extend(("compare_estimates", w) for w in ws)
            out.append("<h3>Estimates (confidence-interval overlap)</h3>" + _frame_table(t, notes, "compare_estimates")
                       + notes.boxes("compare_estimates") + _badge("literature")
                       + _note("pysdc.compare_estimates: the masked estimate inside the original interval, and the "
                               "interval overlap J of Karr et al. (2006)" + (", weighted with " + repr(problem.w)
                                                                           if problem.w else "") + "."))
        except PysdcError as exc:
            out.append(_note(f"Estimates not computed: {' '.join(str(exc).split())}"))
    if regression:
        try:
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter("always")
                xr, xmr = _where(x, regression_where, "x"), _where(xm, regression_where, "xm")
                r = compare_regression(xr, xmr, regression, w=problem.w)
            caught.extend(("compare_regression", w) for w in ws)
            sub = f" (records where {regression_where}: {len(xr)} original, {len(xmr)} masked)" if regression_where else ""
            out.append(f"<h3>Regression: {_e(regression)}{_e(sub)}</h3>" + notes.flags("compare_regression")
                       + _frame_table(r.table) + notes.boxes("compare_regression") + _badge("literature")
                       + _note("pysdc.compare_regression: R's lm/glm coefficients and confint before and after."))
            if figs.on:
                from .. import plots

                out.append(figs.img(lambda: plots.coefficient_intervals(r), "Coefficients with their intervals "
                                    "before (blue) and after (red) masking.", "coefficient intervals"))
        except PysdcError as exc:
            out.append(_note(f"Regression not computed: {' '.join(str(exc).split())}"))
    if not out:
        return _note("No numeric variables and no regression: nothing to estimate (pass estimates=... or "
                     "regression=...).")
    return "".join(out)


def _frame_table(t: pd.DataFrame, notes: _Notes | None = None, target: str | None = None) -> str:
    """A result table; a long text column with one value in every row is said once under the table (it would
    squeeze the numbers into a narrow box); with ``target``, the row whose first cell a warning names gets
    that warning's flag."""
    t = t.reset_index() if not isinstance(t.index, pd.RangeIndex) else t
    said = []
    if len(t) > 1:
        for c in list(t.columns[1:]):
            text = not pd.api.types.is_numeric_dtype(t[c]) and not pd.api.types.is_bool_dtype(t[c])
            vals = t[c].dropna().astype(str).unique() if text else []
            if len(vals) == 1 and t[c].notna().all() and len(vals[0]) > 30:
                said.append(f"{c}: {vals[0]}")
                t = t.drop(columns=c)
    num = {i for i, c in enumerate(t.columns) if pd.api.types.is_numeric_dtype(t[c]) and not pd.api.types.is_bool_dtype(t[c])}
    rows = list(t.itertuples(index=False, name=None))
    if notes is not None and target and len(t.columns):
        found = notes.find(target)
        out_rows = []
        for r in rows:
            mine = [e for e in found if str(r[0]) and str(r[0]) in e["message"]]
            if mine:
                flags = "".join(f'<a class="flag" href="#warning-{e["n"]}" data-warning="{e["n"]}" '
                                f'title="{_e(_short(e["message"]))}">&#9888; warning {e["n"]}</a>' for e in mine)
                r = (_Raw(_e(_text(r[0])) + flags), *r[1:])
            out_rows.append(r)
        rows = out_rows
    return _table([str(c) for c in t.columns], rows, num_cols=num) + "".join(_note(x) for x in said)


def _provenance(origin) -> str:
    from .._registry import MEASURES

    rows = []
    for m in MEASURES:
        src = origin(m.python)
        rows.append([f"pysdc.{m.python}", m.r or "-", _Raw(_badge(src)),
                     f"number-for-number with sdcMicro {SDCMICRO_REFERENCE}'s {m.r}" if m.r else
                     (re.split(r"(?<=[a-z)])\. (?=[A-Z])", m.notes)[0].rstrip(".") if m.notes else "native only")])
    legend = (f"<p>{_badge('sdcMicro')} sdcMicro's measure: pysdc computes it natively and tests it equal to "
              f"sdcMicro {SDCMICRO_REFERENCE} (stored R references, live parity runs). "
              f"{_badge('literature')} a measure from the literature without an sdcMicro counterpart (pysdc's "
              f"own implementation, validated on the papers' worked examples). {_badge('pysdc')} a summary pysdc "
              "computes from sdcMicro's numbers (counts, quantiles, selections).</p>")
    return legend + _table(["pysdc", "sdcMicro", "source", "note"], rows)


def _versions(version: str) -> str:
    import sys

    rows = [["pysdc", version], ["sdcMicro (reference whose numbers pysdc reproduces)", SDCMICRO_REFERENCE],
            ["python", sys.version.split()[0]], ["numpy", np.__version__], ["pandas", pd.__version__],
            ["platform", platform.platform()]]
    for mod in ("scipy", "matplotlib"):
        try:
            m = __import__(mod)
            rows.append([mod, getattr(m, "__version__", "?")])
        except ImportError:
            rows.append([mod, "not installed"])
    return _table(["component", "version"], rows) + _note(
        "Native computation: no R was used for this report.")


def _warnings(notes: _Notes) -> str:
    entries = notes.entries()
    if not entries:
        return _note("No warnings.")
    rows = "".join(f'<tr id="warning-{e["n"]}"><td class="num">{e["n"]}</td><td>{_e(", ".join(e["where"]))}</td>'
                   f'<td>{_e(e["category"])}</td><td class="long">{_e(e["message"])}</td></tr>' for e in entries)
    return ('<div class="scroll"><table><thead><tr><th>#</th><th>where</th><th>warning</th><th>message</th></tr>'
            f"</thead><tbody>{rows}</tbody></table></div>"
            + _note("Every warning raised while the numbers were computed; each is also shown next to the numbers it "
                    "concerns (\u26a0 warning n)."))


def _rewarn(notes: _Notes) -> None:
    """Raise each distinct warning once more, for the caller (``pysdc report`` prints them on stderr)."""
    from .._validation import user_stacklevel

    seen = set()
    for _, w in notes.caught:
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warnings.warn(str(w.message), w.category, stacklevel=user_stacklevel())


# =============================================================================
# the verdict

_GSIL_RULE = ("GSIL = (EBIL% + GHD% + GILCV) / 3 over the parts that apply (Todorova); a loss up to 10 % is small, "
              "up to 20 % medium, up to 30 % serious, above 30 % leaves no data utility.")
_STATUS = {"ok": "&#10004;", "fail": "&#10008;", "attention": "&#9888;", "info": "&#8505;"}


def _item(name: str, status: str, headline: str, body: str, rule: str, flags: str = "") -> str:
    return (f'<div class="verdict {status}" data-verdict="{name}" data-status="{status}">'
            f'<h3><span class="status">{_STATUS[status]} {_e(headline)}</span>{flags}</h3>'
            f"<div>{body}</div><p class=\"rule\">Rule: {_e(rule)}</p></div>")


def _pct(a: float, n: int) -> str:
    return f"{100 * a / n:.3g} %" if n else "NA"


def _k_violations(rep: dict, ind: pd.DataFrame, k: int) -> tuple[int, str]:
    """Records violating k-anonymity: kAnon_violations' count where the model has it, else fk < k."""
    row = next((v for v in rep["k_anonymity"]["violations"] if v["k"] == k), None)
    if row is not None:
        return int(row["unweighted"]), "sdcMicro's kAnon_violations"
    return int(np.sum(np.asarray(ind["fk"], dtype=float) < k)), "records with fk < k, from sdcMicro's fk (measure_risk)"


def _verdict(rep: dict, data: pd.DataFrame, keys: list, ind: pd.DataFrame, putil, k: int, notes: _Notes, *,
             masked: bool, before: tuple | None = None) -> str:
    """Plain-language answers, each with its rule: k-anonymity at ``k``, the global risk against its target,
    the riskiest combinations, the loss band -- of the masked file when there is one (what would be released),
    else of the original (``before``: the original's model and individual risks, said for comparison)."""
    from .._summaries import HIGH_RISK_FLOOR, HIGH_RISK_MADS, higher_risk

    which = "the masked file" if masked else "the original file (no masked file was given)"
    n = int(rep["data"]["n_records"])
    combo = " x ".join(keys)
    out = [f"<p>The answers below are about <b>{_e(which)}</b>, {n:,} records, key variables {_e(', '.join(keys))}.</p>"]

    # k-anonymity
    bad, how = _k_violations(rep, ind, k)
    status = "ok" if bad == 0 else "fail"
    head = f"k-anonymity at k = {k}: {'met' if bad == 0 else 'not met'}"
    body = (f"Every key combination is shared by at least {k} records." if bad == 0 else
            f"{bad:,} of {n:,} records ({_pct(bad, n)}) have a key combination shared by fewer than {k} records "
            f"({how}).")
    if before is not None:
        body += f" In the original file: {_k_violations(before[0], before[1], k)[0]:,} records."
    out.append(_item("k-anonymity", status, head, body,
                     f"a file is {k}-anonymous when every record's combination of {combo} occurs at least {k} times in "
                     f"the file (fk >= {k}); a missing key value matches any value (sdcMicro's rule for missing keys)."
                     , notes.flags("k_anon", "measure_risk")))

    # global risk against its target
    g = rep["global"]
    gr, target = g["global_risk"], g["max_global_risk"]
    if _missing(gr) or not np.isfinite(float(gr)):
        status, head, body = "attention", "global risk: undefined", (
            f"The global risk is {_num(gr)}: " + _e(g.get("threshold_note") or "see the warnings") + ".")
    else:
        under = float(gr) <= float(target)
        status = "ok" if under else "fail"
        head = f"global risk {'under' if under else 'above'} the target"
        body = (f"The global risk is {_e(fmt(100 * float(gr), 4))} % ({_e(fmt(g['expected_reidentifications']))} "
                f"expected re-identifications among {n:,} records), {'at or below' if under else 'above'} the "
                f"target {_e(fmt(100 * float(target), 4))} %.")
        if not under and not _missing(g["threshold"]):
            body += (f" Capping the individual risks at {_e(fmt(g['threshold']))} would bring it down to the target "
                     "(sdcMicro's threshold).")
    if before is not None and not _missing(before[0]["global"]["global_risk"]):
        body += f" In the original file: {_e(fmt(100 * float(before[0]['global']['global_risk']), 4))} %."
    h = rep.get("household")
    if h:
        body += f" Household risk: {_e(fmt(h['risk_pct'], 4))} % ({_e(fmt(h['expected_reidentifications']))} expected)."
    out.append(_item("global-risk", status, head, body,
                     f"global risk = expected re-identifications / records, where each record's individual risk is "
                     f"sdcMicro's measure_risk estimate from its fk and Fk (the weights); it meets the target when it "
                     f"is at most max_global_risk = {fmt(target)}.", notes.flags("measure_risk")))

    # the riskiest combinations
    g3 = _riskiest_frame(data, keys, ind, 3)
    hr = higher_risk(np.asarray(ind["risk"], dtype=float))
    items = "".join(
        f"<li>{_e(', '.join(f'{kk} = {vv}' for kk, vv in zip(keys, idx if isinstance(idx, tuple) else (idx,))))} "
        f"(risk {_e(fmt(r['risk'], 4))}, fk = {_e(_num(r['fk']))}, {int(r['records'])} record"
        f"{'s' if int(r['records']) != 1 else ''})</li>" for idx, r in g3.iterrows())
    cnt = int(hr["count"])
    status = "attention" if cnt else "ok"
    head = (f"{cnt:,} record{'s' if cnt != 1 else ''} at a higher risk than the main part" if cnt else
            "no record at a higher risk than the main part")
    body = (f"The riskiest key combinations (all of them in the section Riskiest key combinations):<ul>{items}</ul>"
            if items else "No key combination.")
    cut = "max(0.1, median + 3 MAD)" if hr["cut"] is None else f"{fmt(hr['cut'], 4)} = max(0.1, median + 3 MAD)"
    out.append(_item("riskiest", status, head, body,
                     f"combinations ranked by their individual risk (sdcMicro's measure_risk), then by fk; a record is "
                     f"at a higher risk than the main part when its risk is above {cut} of the risks "
                     f"(floor {HIGH_RISK_FLOOR:g}, {HIGH_RISK_MADS:g} MADs; what sdcMicro's print of measure_risk "
                     "counts).", ""))

    # the loss band
    if putil is None:
        out.append(_item("loss", "info", "information loss: not assessed",
                         "No masked file was given: the loss compares a masked file with the original.", _GSIL_RULE))
    else:
        gs = putil.results.get("gsil")
        if gs is None or _missing(getattr(gs, "value", None)):
            why = putil.skipped.get("gsil") or "see the warnings"
            out.append(_item("loss", "attention", "information loss: GSIL not available", _e(f"GSIL: {why}."),
                             _GSIL_RULE, notes.flags("gsil")))
        else:
            band = gs.band
            status = {"small": "ok", "medium": "attention"}.get(band, "fail")
            body = (f"GSIL = {_e(fmt(gs.value, 4))} %: the loss is <b>{_e(band)}</b> (literature measure, "
                    f"on {_e(', '.join(map(str, gs.applicable)) or 'its applicable parts')}).")
            odd = [f"{m} {q}" for (m, q), r in putil.to_frame().iterrows() if notes.find(_utility_target(m, q))
                   or _oddity(r["value"], _utility_target(m, q))]
            if odd:
                body += (" Flagged in the information-loss table (warnings or values that cannot be right): "
                         + _e(", ".join(odd)) + ".")
            out.append(_item("loss", status, f"information loss: {band}", body, _GSIL_RULE, notes.flags("gsil")))
    entries = notes.entries()
    placed = sum(1 for e in entries if e["targets"])
    if entries:
        text = (f"{len(entries)} warning{'s' if len(entries) != 1 else ''} came up while the numbers were computed"
                + (f"; {placed} flagged (\u26a0 warning n) next to the numbers {'it concerns' if placed == 1 else 'they concern'}"
                   if placed else "") + (f"; {len(entries) - placed} about no single number" if placed < len(entries)
                                         else "") + ". All are listed under Warnings at the end.")
        out.append(_note(text))
    return "".join(out)
