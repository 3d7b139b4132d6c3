"""The HTML report of an SDC problem: one self-contained file people open and share.

:func:`render_html` renders it from the assessment :func:`pysdc.problem.report_assessment`
computes (:meth:`pysdc.SdcProblem.report` and ``pysdc report`` call :func:`pysdc.problem.write_report`);
nothing here computes a measure or imports the problem object. Everything is inline -- CSS, figures as base64 PNG (matplotlib, the
``[plots]`` extra), a few bytes of script that only marks the images as loaded -- so the file opens
without a network. Without matplotlib the report still renders: bar charts are drawn with CSS and
a note says which figures are missing.

The numbers come from :class:`pysdc.SdcProblem`'s results (:meth:`~pysdc.SdcProblem.risk`,
:meth:`~pysdc.SdcProblem.utility`) and their assessment model (``ProblemRisk.to_dict()``, the
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

import datetime as _dt
import platform
import re
import sys
import warnings

import numpy as np
import pandas as pd

from .._errors import PysdcError
from .._format import fmt
from .._registry import MEASURES
from .._types import r_class
from .._validation import user_stacklevel
from ..plots import boxplot, coefficient_intervals, density, histogram, mosaic
from ._html_base import (
    _CSS,
    _SCRIPT,
    SDCMICRO_REFERENCE,
    SECTIONS,
    _badge,
    _bar,
    _bars,
    _e,
    _Figures,
    _missing,
    _note,
    _Notes,
    _num,
    _Raw,
    _risk_hist,
    _short,
    _suda_hist,
    _table,
    _text,
    _utility_target,
    _val,
)
from ._html_verdict import _GSIL_RULE, _verdict
from ._info import LINKAGE_INFO, LINKAGE_MEASURES, LITERATURE_INFO, MEASURE_INFO, UTILITY_MEASURES, shown_rows

__all__ = ["render_html", "SECTIONS", "SDCMICRO_REFERENCE"]


def render_html(a: dict, *, title: str | None = None, plots: bool = True, source: dict | None = None) -> str:
    """The HTML document of an assessment (:func:`pysdc.problem.report_assessment`): its numbers formatted,
    its data frames drawn (``plots``: with matplotlib), each warning flagged next to the numbers it concerns
    and raised again once (``pysdc report`` prints them)."""
    spec = a["specification"]
    x, xm = a["x"], a["xm"]
    keys, nums = spec["key_vars"], spec["num_vars"]
    risk0, risk1, rep0, rep1, putil = a["risk0"], a["risk1"], a["rep0"], a["rep1"], a["utility"]
    k = a["k"]
    figs = _Figures(plots)
    notes = _Notes(a["caught"])
    source = source or {}

    parts = []
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = title or "Statistical disclosure control report"
    nav = " ".join(f'<a href="#{sid}">{_e(h)}</a>' for sid, h in SECTIONS)

    # ---- specification
    spec_rows = [("key variables (keyVars)", ", ".join(keys)), ("numeric variables (numVars)", ", ".join(nums) or "-"),
                 ("weight (weightVar)", spec["w"] or "-"), ("household id (hhId)", spec["hid"] or "-"),
                 ("strata (strataVar)", spec["strata"] or "-"),
                 ("sensitive variables (sensibleVar)", ", ".join(spec["sensitive"]) or "-")]
    files = [("original", source.get("original", "(a DataFrame)"), len(x), x.shape[1])]
    if xm is not None:
        files.append(("masked", source.get("masked", "(a DataFrame)"), len(xm), xm.shape[1]))
    var_rows = []
    for v in spec["variables"]:
        role = ("key" if v in keys else "numeric" if v in nums else "weight" if v == spec["w"] else
                "household id" if v == spec["hid"] else "strata" if v == spec["strata"] else "sensitive")
        var_rows.append([v, role, _cls(x, v), str(x[v].dtype), int(x[v].isna().sum()),
                         int(x[v].nunique(dropna=True)), "" if xm is None or v not in xm.columns else _cls(xm, v)])
    parts.append(_section("specification", _table(["role", "variables"], spec_rows)
                          + _table(["file", "source", "records", "columns"], files, num_cols={2, 3})
                          + "<h3>Variables</h3>"
                          + _table(["variable", "role", "R class", "dtype", "missing", "distinct", "R class (masked)"],
                                   var_rows, num_cols={4, 5})
                          + _note("The specification of sdcMicro's createSdcObj (its argument names in brackets). "
                                  "pysdc.r.SdcObj.from_problem(problem) builds the same sdcMicroObj in R.")))

    # ---- protection steps (a protected problem: before = its original, after = its manipulated data)
    parts.append(_section("steps", _steps(a.get("steps") or [])))
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
    parts.append(_section("riskiest", _riskiest(a["riskiest"], keys, spec["w"])
                          + "<h3>Riskiest records</h3>" + _top_table(rep0["top"], keys)
                          + _note("One row per record: the record's number (1-based, as in R), its key values, "
                                  "fk, Fk and risk (sdcMicro's measure_risk). A missing key value is shown as NA.")))
    # ---- household
    parts.append(_section("household", _household(rep0, rep1, spec["hid"])))
    # ---- suda2
    su = _suda(rep0, rep1, notes)
    if risk0.suda2 is not None and figs.on:
        dm = None if risk1 is None or risk1.suda2 is None else np.asarray(risk1.suda2.dis_score, dtype=float)
        su += figs.img(lambda: _suda_hist(np.asarray(risk0.suda2.dis_score, dtype=float), dm),
                       "DIS-SUDA scores of the records with a score above 0 (sdcMicro's suda2).", "SUDA2 scores")
    parts.append(_section("suda2", notes.boxes("suda2") + su))
    # ---- l-diversity
    parts.append(_section("ldiversity", notes.boxes("ldiversity") + _ldiv(risk0, risk1, notes)))
    # ---- record linkage
    parts.append(_section("linkage", _linkage(rep0.get("linkage"), notes)))
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
        parts.append(_section("estimates", _estimates(a["estimates"], a["regression"], figs, notes)))

    # ---- provenance
    parts.append(_section("provenance", _provenance(a["origin"])))
    # ---- versions
    parts.append(_section("versions", _versions(a["version"])))
    # ---- warnings
    parts.append(_section("warnings", _warnings(notes)))
    # ---- the verdict, first (built last: every warning is in by now)
    judged = xm if xm is not None else x
    judged_risk = risk1 if risk1 is not None else risk0
    parts.insert(0, _section("verdict", _verdict(rep1 or rep0, judged, keys, judged_risk.measure_risk.individual,
                                                 putil, k, notes, a["riskiest_judged"], masked=xm is not None,
                                                 before=(rep0, risk0.measure_risk.individual) if rep1 else None)))
    _rewarn(notes)
    missing = f'<p class="warn">{_e(figs.missing)}</p>' if figs.missing and plots else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style><script>{_SCRIPT}</script></head><body>"
            f"<header><h1>{_e(title)}</h1><p>pysdc {_e(a['version'])} &middot; {_e(now)} &middot; {len(x)} records"
            f"{' &middot; original and masked' if xm is not None else ''}</p></header>"
            f"<nav>{nav}</nav><main>{missing}{''.join(parts)}</main></body></html>\n")


def _steps(steps: list) -> str:
    if not steps:
        return _note("No protection step was applied through pysdc: 'after' is the masked file as given (or there is "
                     "none). Steps applied with problem.local_suppression(...), .microaggregation(...) ... or "
                     "pysdc protect --recipe are listed here, in order.")
    rows = []
    for i, st in enumerate(steps, 1):
        detail = st.get("suppressions") or st.get("changes") or {}
        rows.append([str(i), st["method"], ", ".join(st["variables"]), ", ".join(st["remeasured"]), st["r"],
                     ", ".join(f"{k}: {v}" for k, v in detail.items())])
    return (_table(["step", "method", "variables changed", "re-measured", "sdcMicro (R)", "suppressions / changes"],
                    rows)
            + _note("The methods applied to the problem, in order (SdcProblem.steps); 'before' is the original data, "
                    "'after' the data with every step applied (sdcMicro's extractManipData)."))


def _linkage(lk: dict | None, notes: _Notes) -> str:
    """The record-linkage section: each measure's numbers, what it is and which attacker it models (registry)."""
    about = _table(["measure", "what it measures", "the attacker it models", "source"],
                   [[name, desc, attacker, cit] for name, (cit, desc, attacker, _) in LINKAGE_INFO.items()])
    if lk is None:
        return (_note("Not computed: record linkage needs numeric variables (numVars) and a masked file; it links "
                      "the masked records back to the original ones on the numeric variables.") + about)
    ms = lk["measures"]
    if lk.get("masked") is None:
        return "".join(_note(f"{n}: {m['status']}: {m['error']}") for n, m in ms.items()) + about
    rows = []
    errors = []
    for name, m in ms.items():
        entry = LINKAGE_MEASURES[name]
        src = _Raw(_badge(entry.citation.split(";")[0] if entry.r else "pysdc"))
        if m["status"] == "ok":
            rows += [[f"{name} {key}", _val(value, notes, name), label, src]
                     for key, value, label, _f in shown_rows(name, m)]
        else:
            rows.append([name, _Raw("NA" + notes.flags(name)), "", src])
            errors.append(f"{name} {m['status']}: {m.get('error')}")
    left = f"; {lk['n_left_out']} left out for a missing value" if lk["n_left_out"] else ""
    return (f"<h3>The masked numeric variables ({_e(', '.join(lk['variables']))}) linked back to the original "
            f"records ({lk['n_records']} records complete in both files{_e(left)})</h3>"
            + _table(["measure", "value", "what it is", "source"], rows, num_cols={1}) + "".join(map(_note, errors))
            + notes.boxes(*ms) + about
            + _note("Record i of the masked file comes from record i of the original (paired by position). Each "
                    "measure runs with its defaults; the numbers are those of "
                    + ", ".join(f"pysdc.{n}" for n in ms)
                    + " called on the same records (docs/record-linkage.md: when to use which)."))


def _cls(d, v) -> str:
    try:
        return r_class(d[v])
    except PysdcError:
        return str(d[v].dtype)


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


def _riskiest(g: pd.DataFrame, keys, w) -> str:
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
    lo = [[i["variable"], ", ".join(i["measures"]), i["reason"]] for i in var.get("left_out", [])]
    lo += [[name, "", why] for name, why in putil.skipped.items()]
    if lo:
        out += "<h3>Not computed</h3>" + _table(["variable / measure", "", "reason"], lo)
    out += "<h3>What the measures mean</h3>" + _table(
        ["measure", "definition", "source"],
        [[k, v[1], _Raw(_badge("sdcMicro"))] for k, v in MEASURE_INFO.items()]
        + [[k, v[1], _Raw(_badge("literature"))] for k, v in LITERATURE_INFO.items()])
    return out


#: the per-variable columns (sdcMicro's il_variables, then those the registry's utility measures declare:
#: ``Shown.column``) -> (the measure whose warnings they show, its source, what the column holds)
_PV_COLUMNS = {"il_variables": ("il_variables", "sdcMicro: IL_variables",
                                "the variable's mean distance per record (sdcMicro's IL_variables)"),
               **{s.column: (name, "literature", s.about) for name, m in UTILITY_MEASURES.items()
                  for s in m.shows if s.column}}
_PV_TARGETS = {c: v[0] for c, v in _PV_COLUMNS.items()}


def _per_variable(pv: pd.DataFrame, notes: _Notes) -> str:
    if pv.empty:
        return _note("No per-variable measure applied.")
    src = {c: v[1] for c, v in _PV_COLUMNS.items()}
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
            + _note("; ".join(f"{c}: {v[2]}" for c, v in _PV_COLUMNS.items()) + ". NA: the measure does not apply "
                    "to the variable (e.g. a categorical measure to numeric variables).")
            + notes.boxes(*dict.fromkeys(_PV_TARGETS.values())))


def _plots(x, xm, keys, nums, figs: _Figures) -> str:
    if not figs.on:
        return _note(f"No plots: {figs.missing}")
    out = []
    for v in nums:
        out.append(f"<h3>{_e(v)}</h3><div class=\"grid\">"
                   + figs.img(lambda v=v: histogram(x, xm, v), f"Histogram of {v}, same bins before and after.",
                              f"histogram of {v}")
                   + figs.img(lambda v=v: density(x, xm, v), f"Density of {v} (Gaussian kernel, bw.nrd0).",
                              f"density of {v}")
                   + figs.img(lambda v=v: boxplot(x, xm, v), f"Box plots of {v}.", f"boxplot of {v}")
                   + "</div>")
    cats = [k for k in keys if x[k].nunique(dropna=False) <= 20]
    pairs = list(zip(cats[::2], cats[1::2]))[:4] or ([(cats[0], cats[1])] if len(cats) >= 2 else [])
    for a, b in pairs:
        out.append(figs.img(lambda a=a, b=b: mosaic(x, xm, a, b), f"Mosaic plot of {a} x {b} before and after.",
                            f"mosaic of {a} and {b}"))
    if not out:
        return _note("No numeric variables and fewer than two categorical keys: nothing to plot.")
    return "".join(out) + _note("The practice guide's plots of original against masked data (pysdc.plots).")


def _estimates(est: dict | None, reg: dict | None, figs: _Figures, notes: _Notes) -> str:
    out = []
    if est is not None:
        if est["error"] is not None:
            out.append(_note(f"Estimates not computed: {est['error']}"))
        else:
            w = est["w"]
            out.append("<h3>Estimates (confidence-interval overlap)</h3>"
                       + _frame_table(est["table"], notes, "compare_estimates")
                       + notes.boxes("compare_estimates") + _badge("literature")
                       + _note("pysdc.compare_estimates: the masked estimate inside the original interval, and the "
                               "interval overlap J of Karr et al. (2006)" + (", weighted with " + repr(w)
                                                                           if w else "") + "."))
    if reg is not None:
        if reg["error"] is not None:
            out.append(_note(f"Regression not computed: {reg['error']}"))
        else:
            r, where = reg["result"], reg["where"]
            sub = f" (records where {where}: {reg['n_x']} original, {reg['n_xm']} masked)" if where else ""
            out.append(f"<h3>Regression: {_e(reg['formula'])}{_e(sub)}</h3>" + notes.flags("compare_regression")
                       + _frame_table(r.table) + notes.boxes("compare_regression") + _badge("literature")
                       + _note("pysdc.compare_regression: R's lm/glm coefficients and confint before and after."))
            if figs.on:
                out.append(figs.img(lambda: coefficient_intervals(r), "Coefficients with their intervals "
                                    "before (blue) and after (red) masking.", "coefficient intervals"))
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
    seen = set()
    for _, w in notes.caught:
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warnings.warn(str(w.message), w.category, stacklevel=user_stacklevel())
