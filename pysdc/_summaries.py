"""What sdcMicro's print methods show for single results (``str()``/``print()`` of pysdc's result classes).

The summary of a result is plain data (``*_summary``), rendered as text (``*_text``) -- the same split as
the report model and its renderers, in one module that needs nothing but NumPy and the number formats,
so that the result classes (:mod:`pysdc._results`) can use it without importing the measures.
"""

from __future__ import annotations

import numpy as np

from ._format import text_table as _table
from ._format import wrap as _wrap

__all__ = ["k_anonymity", "threshold_note", "higher_risk", "five_numbers", "measure_risk_summary", "global_section",
           "household_section",
           "freq_calc_summary", "indiv_risk_summary", "ldiversity_summary", "measure_risk_text",
           "freq_calc_text", "indiv_risk_text", "ldiversity_text", "r_number", "r_round", "r_format",
           "SUMMARY_STATS", "counted_quantile", "HIGH_RISK_FLOOR", "HIGH_RISK_MADS", "SUMMARIES"]


def k_anonymity(fk: np.ndarray, counts: np.ndarray | None = None) -> dict:
    """Records violating 2- and 3-anonymity (``fk < 2``, ``fk < 3``), counts and shares (``counts``: each
    ``fk`` stands for that many records, as an engine's combination table)."""
    fk = np.asarray(fk, dtype=np.float64)
    if counts is None:
        n = fk.size
        lt2, lt3 = int(np.sum(fk < 2)), int(np.sum(fk < 3))
    else:
        c = np.asarray(counts, dtype=np.float64)
        n = float(c.sum())
        lt2, lt3 = int(c[fk < 2].sum()), int(c[fk < 3].sum())
    return {"fk_lt_2": lt2, "fk_lt_3": lt3, "share_fk_lt_2": lt2 / n if n else None,
            "share_fk_lt_3": lt3 / n if n else None}


def counted_quantile(values: np.ndarray, counts: np.ndarray, p: float) -> float:
    """R's type-7 quantile of ``values`` each repeated ``counts`` times, without repeating them (NaN left out)."""
    values, counts = np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.float64)
    ok = ~np.isnan(values) & (counts > 0)
    v, c = values[ok], counts[ok]
    if v.size == 0:
        return float("nan")
    order = np.argsort(v, kind="stable")
    v, c = v[order], np.cumsum(c[order])
    n = int(c[-1])
    h = (n - 1) * p
    lo = int(np.floor(h))
    a = v[np.searchsorted(c, lo + 1)]
    b = v[np.searchsorted(c, min(lo + 2, n))]
    return float(a + (h - lo) * (b - a))


def threshold_note(thr, global_risk, max_global_risk, risk: np.ndarray) -> str:
    """Why the threshold is what it is, when it is not an ordinary cut-off (else "")."""
    if thr is None or thr != thr:
        if risk.size == 0:
            return "NA: there are no records"
        if np.isnan(risk).any():
            return "NA: some individual risks are NaN (see the warnings), so sdcMicro's search stops"
        if global_risk == global_risk and global_risk <= max_global_risk:
            return (f"NA: the global risk is already at or below the target {max_global_risk:g}, so no record "
                    "needs to be capped")
        return "NA: the risks are all 0 beyond the reachable values (sdcMicro gives none)"
    if thr == 0:
        return ("0: no threshold reaches the target (capping the riskiest records cannot bring the global risk "
                "down to it, e.g. all risks are equal)")
    return ""


#: sdcMicro's print methods count a record as riskier than "the main part" when its risk is above
#: both this floor and median + 3 MAD of the risks (checked through R: strict inequalities)
HIGH_RISK_FLOOR = 0.1
HIGH_RISK_MADS = 3.0


def higher_risk(risk, counts=None) -> dict:
    """Records with a risk above ``max(0.1, median + 3 * MAD)`` (R's ``mad``, constant 1.4826): the count that
    sdcMicro's ``print`` of ``measure_risk`` and ``indivRisk`` reports ("obs. with higher risk than the main
    part"). NaN risks are left out. ``counts``: each risk stands for that many records."""
    r = np.asarray(risk, dtype=np.float64)
    if counts is not None:
        c = np.asarray(counts, dtype=np.float64)
        ok = ~np.isnan(r)
        if not c[ok].sum():
            return {"count": 0, "cut": None, "median": None, "mad": None}
        med = counted_quantile(r, c, 0.5)
        mad = 1.4826 * counted_quantile(np.abs(r - med), c, 0.5)
        cut = max(HIGH_RISK_FLOOR, med + HIGH_RISK_MADS * mad)
        return {"count": int(c[ok & (r > cut)].sum()), "cut": cut, "median": med, "mad": mad}
    ok = r[~np.isnan(r)]
    if ok.size == 0:
        return {"count": 0, "cut": None, "median": None, "mad": None}
    med = float(np.median(ok))
    mad = float(1.4826 * np.median(np.abs(ok - med)))
    cut = max(HIGH_RISK_FLOOR, med + HIGH_RISK_MADS * mad)
    return {"count": int(np.sum(ok > cut)), "cut": cut, "median": med, "mad": mad}


def global_section(res, risk: np.ndarray) -> dict:
    """The ``global`` section of a measure_risk result (the assessment model's and the result's summary):
    sdcMicro's global risk, its threshold and the note on it; ``risk``: the individual risks."""
    return {
        "expected_reidentifications": res.global_risk_er,
        "global_risk": res.global_risk,
        "global_risk_pct": res.global_risk_pct,
        "max_global_risk": res.max_global_risk,
        "threshold": res.global_threshold,
        "threshold_note": threshold_note(res.global_threshold, res.global_risk, res.max_global_risk, risk),
    }


def household_section(res) -> dict | None:
    """The ``household`` section of a measure_risk result (None without a household id)."""
    if res.hier_risk_er is None:
        return None
    return {"expected_reidentifications": res.hier_risk_er, "risk": res.hier_risk, "risk_pct": res.hier_risk_pct}


def measure_risk_summary(res) -> dict:
    """The summary of a :class:`~pysdc.MeasureRiskResult` (sdcMicro's ``print.measure_risk``), with the
    ``global`` and ``household`` sections of the assessment model (``pysdc-risk-1``)."""
    risk = np.asarray(res.individual["risk"], dtype=np.float64) if "risk" in res.individual else np.array([])
    return {
        "n_records": int(risk.size),
        "key_vars": list(res.key_vars),
        "higher_risk": higher_risk(risk),
        "global": global_section(res, risk),
        "household": household_section(res),
    }


def freq_calc_summary(res) -> dict:
    """The summary of a :class:`~pysdc.FreqCalcResult` (sdcMicro's ``print.freqCalc``): records violating
    2-anonymity (``n1``) and 3-anonymity (``n1 + n2``), as sdcMicro counts them."""
    fk = np.asarray(res.fk, dtype=np.float64)
    return {"n_records": int(fk.size), "key_vars": list(res.key_vars), "alpha": float(res.alpha),
            "violate_2": int(res.n1), "violate_3": int(res.n1) + int(res.n2),
            "n1": int(res.n1), "n2": int(res.n2), "k_anonymity": k_anonymity(fk)}


def indiv_risk_summary(res) -> dict:
    """The summary of an :class:`~pysdc.IndivRiskResult` (sdcMicro's ``print.indivRisk``)."""
    rk = np.asarray(res.rk, dtype=np.float64)
    return {"n_records": int(rk.size), "key_vars": list(res.key_vars), "method": res.method,
            "qual": float(res.qual), "higher_risk": higher_risk(rk)}


#: R's summary() of a numeric vector
SUMMARY_STATS = ("Min.", "1st Qu.", "Median", "Mean", "3rd Qu.", "Max.")


def five_numbers(values, counts=None) -> dict:
    """R's ``summary()`` of a numeric vector: min, quartiles (type 7), median, mean, max; NA's if any
    (``counts``: each value stands for that many records)."""
    v = np.asarray(values, dtype=np.float64)
    if counts is not None:
        c = np.asarray(counts, dtype=np.float64)
        ok = ~np.isnan(v)
        if c[ok].sum():
            q = [counted_quantile(v, c, p) for p in (0.0, 0.25, 0.5, 0.75, 1.0)]
            mean = float(np.sum(v[ok] * c[ok]) / c[ok].sum())
            out = dict(zip(SUMMARY_STATS, [q[0], q[1], q[2], mean, q[3], q[4]]))
        else:
            out = dict.fromkeys(SUMMARY_STATS)
        if (~ok).any():
            out["NA's"] = int(c[~ok].sum())
        return out
    ok = v[~np.isnan(v)]
    if ok.size:
        q = np.quantile(ok, [0.0, 0.25, 0.5, 0.75, 1.0])
        out = dict(zip(SUMMARY_STATS, [q[0], q[1], q[2], float(ok.mean()), q[3], q[4]]))
        out = {k: float(x) for k, x in out.items()}
    else:
        out = dict.fromkeys(SUMMARY_STATS)
    if ok.size < v.size:
        out["NA's"] = int(v.size - ok.size)
    return out


def ldiversity_summary(res) -> dict:
    """The summary of an :class:`~pysdc.LDiversityResult` (sdcMicro's ``print.ldiversity``): R's ``summary``
    of each sensitive variable's distinct l-diversity."""
    table = res.table
    counts = getattr(res, "counts", None)  # on an engine: one row per combination, standing for its records
    cols = [c for c in table.columns if str(c).endswith("_Distinct_Ldiversity")]
    return {"n_records": int(len(table)) if counts is None else int(np.sum(counts)), "key_vars": list(res.key_vars),
            "sensitive": list(res.ldiv_index), "l_recurs_c": float(res.l_recurs_c),
            "distinct": {str(c): five_numbers(table[c].to_numpy(dtype=np.float64, na_value=np.nan), counts)
                         for c in cols}}


# =============================================================================
# single results: what sdcMicro's print methods show (str() of the result classes)

_RULE = "--------------------------"


def r_number(x, digits: int = 7) -> str:
    """A number as R's ``cat`` shows it: up to ``digits`` significant digits, fixed or scientific, whichever
    is shorter (R's rule with ``scipen = 0``); ``NA``, ``Inf``, ``-Inf`` as R writes them."""
    if x is None:
        return "NA"
    x = float(x)
    if x != x:
        return "NA"
    if x in (float("inf"), float("-inf")):
        return "Inf" if x > 0 else "-Inf"
    sci = f"{x:.{digits - 1}e}"
    mant, exp = sci.split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    e = int(exp)
    sci = f"{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    sig = len(mant.replace("-", "").replace(".", ""))
    decimals = max(0, sig - 1 - e)
    fixed = f"{float(f'{x:.{digits - 1}e}'):.{decimals}f}"
    return fixed if len(fixed) <= len(sci) else sci


def r_round(x, places: int = 2) -> str:
    """``cat(round(x, places))`` in R."""
    if x is None or x != x:
        return "NA"
    return r_number(round(float(x), places))


def r_format(values, digits: int = 4) -> list[str]:
    """R's ``format(x, digits = digits)`` of a numeric vector: one number of decimals for all, enough for
    every element to show ``digits`` significant digits (as ``summary()`` prints)."""
    from decimal import Decimal

    decimals = 0
    for v in values:
        if v is None or v != v or v in (float("inf"), float("-inf")) or v == 0:
            continue
        d = Decimal(f"{float(v):.{digits - 1}e}").normalize()
        decimals = max(decimals, -d.as_tuple().exponent)
    return [r_number(v) if v is None or v != v or v in (float("inf"), float("-inf")) else f"{float(v):.{decimals}f}"
            for v in values]


def _keys_line(s: dict) -> str:
    return f"  keys: {', '.join(map(str, s['key_vars'])) or '-'}; {s['n_records']} records"


def measure_risk_text(s: dict) -> str:
    """sdcMicro's ``print`` of a ``measure_risk`` result, from :func:`pysdc.report.measure_risk_summary`."""
    g, hr = s["global"], s["higher_risk"]
    cut = "" if hr["cut"] is None else f" (risk > {r_number(hr['cut'], 4)} = max(0.1, median + 3 MAD))"
    thr = g["threshold"]
    L = ["Re-identification risk (measure_risk, as sdcMicro's print shows it)", _keys_line(s), "", _RULE,
         f"{hr['count']} obs. with higher risk than the main part{cut}", "",
         "Expected no. of re-identifications:",
         f"{r_round(g['expected_reidentifications'])} ({r_round(g['global_risk_pct'])}%)", "",
         f"Threshold: {'Inf' if thr is None or thr != thr else r_round(thr)} "
         f"(for maximal global risk {r_number(g['max_global_risk'])})"]
    if g.get("threshold_note"):
        L.append(_wrap(f"threshold {g['threshold_note']}; sdcMicro prints NA as Inf.", indent="")
                 if thr is None or thr != thr else _wrap(f"threshold {g['threshold_note']}.", indent=""))
    L.append(_RULE)
    h = s.get("household")
    if h is not None:
        L += ["", "Hierarchical risk", _RULE, "Expected no. of re-identifications:",
              f"{r_round(h['expected_reidentifications'])} ({r_round(h['risk_pct'])}%)", _RULE]
    return "\n".join(L)


def freq_calc_text(s: dict) -> str:
    """sdcMicro's ``print`` of a ``freqCalc`` result, from :func:`pysdc.report.freq_calc_summary`."""
    L = ["Sample frequencies (freq_calc, as sdcMicro's print shows it)", _keys_line(s), "", _RULE,
         f"{s['violate_2']} obs. violate 2-anonymity (fk = 1)",
         f"{s['violate_3']} obs. violate 3-anonymity (fk = 1 or 2)", _RULE]
    k = s["k_anonymity"]
    if (k["fk_lt_2"], k["fk_lt_3"]) != (s["violate_2"], s["violate_3"]):
        L.append(_wrap(f"counted as sdcMicro counts (records with fk exactly 1 and 2); by fk < 2 and fk < 3 "
                       f"(missing key values and alpha = {r_number(s['alpha'])} make fk fractional or larger) "
                       f"they are {k['fk_lt_2']} and {k['fk_lt_3']}.", indent=""))
    return "\n".join(L)


def indiv_risk_text(s: dict) -> str:
    """sdcMicro's ``print`` of an ``indivRisk`` result, from :func:`pysdc.report.indiv_risk_summary`."""
    hr = s["higher_risk"]
    cut = "" if hr["cut"] is None else f" (risk > {r_number(hr['cut'], 4)} = max(0.1, median + 3 MAD))"
    return "\n".join(["Individual risk (indiv_risk, as sdcMicro's print shows it)", _keys_line(s), "",
                      f"method={s['method']}, qual={r_number(s['qual'])}", "", _RULE,
                      f"{hr['count']} obs. with high risk{cut}"])


def ldiversity_text(s: dict) -> str:
    """sdcMicro's ``print`` of an ``ldiversity`` result (R's ``summary`` of each sensitive variable's distinct
    l-diversity), from :func:`pysdc.report.ldiversity_summary`."""

    L = ["L-diversity (ldiversity, as sdcMicro's print shows it)",
         _keys_line(s) + f"; sensitive: {', '.join(map(str, s['sensitive'])) or '-'}", "", _RULE,
         "L-Diversity Measures", _RULE]
    if s["distinct"]:
        has_na = any("NA's" in v for v in s["distinct"].values())
        head = [*SUMMARY_STATS] + (["NA's"] if has_na else [])
        rows = [[name] + r_format([v[k] for k in SUMMARY_STATS]) + ([str(v.get("NA's", 0))] if has_na else [])
                for name, v in s["distinct"].items()]
        L.append(_table(["", *head], rows, right=set(range(1, len(head) + 1))))
    else:
        L.append("  (no sensitive variable)")
    return "\n".join(L)


#: result kind -> (summary, text renderer); the result classes' ``_summary_name`` picks one
SUMMARIES = {
    "measure_risk": (measure_risk_summary, measure_risk_text),
    "freq_calc": (freq_calc_summary, freq_calc_text),
    "indiv_risk": (indiv_risk_summary, indiv_risk_text),
    "ldiversity": (ldiversity_summary, ldiversity_text),
}
