"""Plain-text rendering of the report model (what ``pysdc utility`` and ``pysdc risk`` print)."""

from __future__ import annotations

from .._format import MAX_WIDTH as _MAX_WIDTH
from .._format import fmt as _fmt
from .._format import text_table as _table
from .._format import wrap as _wrap
from .._summaries import (  # noqa: F401  (re-exported: the renderers of single results)
    freq_calc_text,
    indiv_risk_text,
    ldiversity_text,
    measure_risk_text,
    r_format,
    r_number,
    r_round,
)
from ._info import LINKAGE_INFO as _LINKAGE_INFO
from ._info import LITERATURE_INFO as _LITERATURE_INFO
from ._info import MEASURE_INFO as _MEASURE_INFO
from ._info import shown_rows as _shown_rows
from ._info import utility_rows as _utility_rows
from ._info import utility_tables as _utility_tables

__all__ = ["utility_text", "risk_text", "measure_risk_text", "freq_calc_text", "indiv_risk_text", "ldiversity_text",
           "r_number", "r_round", "r_format"]


def utility_text(rep: dict) -> str:
    L = []
    o, m, v = rep["original"], rep["masked"], rep["variables"]
    L.append("Information loss: MASKED compared with ORIGINAL (sdcMicro's measures)")
    L.append(f"  ORIGINAL  {o['path']}  ({o['n_records']} records, {o['n_columns']} columns)")
    L.append(f"  MASKED    {m['path']}  ({m['n_records']} records, {m['n_columns']} columns)")
    if rep.get("engine", "pandas") != "pandas" or rep.get("paired_by", "position") != "position":
        L.append(f"  computed on {rep.get('engine', 'pandas')}; records paired by {rep.get('paired_by', 'position')}")
    L.append("")
    L.append("Variables")
    L.append(_wrap("numeric measures (IL1, IL1s, eigen, robeigen, il_correl): "
                   + (", ".join(v["numeric"]) or "none")))
    L.append(_wrap("il_variables: " + (", ".join(
        f"{c} ({v['scales'][c]})" if c in v["scales"] else c for c in v["il_variables"]) or "none")))
    not_numeric = [i for i in v["left_out"] if "IL1" in i["measures"]]
    if not_numeric:
        L.append(_wrap("left out of the numeric measures (not numeric): " + ", ".join(
            f"{i['variable']} ({i['r_class']})" for i in not_numeric)))
    for item in v["left_out"]:
        if "IL1" not in item["measures"]:
            L.append(_wrap(f"left out of {', '.join(item['measures'])}: {item['variable']}, {item['reason']}"))
    if v["only_in_original"] or v["only_in_masked"]:
        L.append(_wrap("not compared (in one file only): "
                       + ", ".join(v["only_in_original"] + v["only_in_masked"])))
    L.append("")
    L.append("Measures")
    rows = []
    for name, res in rep["measures"].items():
        call = _MEASURE_INFO[name][0]
        if res["status"] == "ok":
            note = ""
            if "mean_per_cell" in res:
                note = f"sum over n*p = {res['n_cells']} cells; / (n*p) = {_fmt(res['mean_per_cell'], 4)}"
            elif name == "il_correl":
                note = (f"{res['n_vars']} variables; records {res['n_x']} (x) / {res['n_xm']} (xm), "
                        "complete records only in the correlations")
            elif name == "il_variables":
                note = f"{len(res['per_variable'])} variables x {res['n']} records"
            elif name == "robeigen":
                rs = res.get("random_state")
                note = f"random_state={rs}" if rs is not None else "random seed (use --random-state to fix it)"
            rows.append([name, _fmt(res["value"]), call, note])
        else:
            rows.append([name, "-", call, res["status"]])
    L.append(_table(["measure", "value", "sdcMicro", "note"], rows, right={1}))
    failed = [(n, r) for n, r in rep["measures"].items() if r["status"] != "ok"]
    if failed:
        L.append("")
        L.append("Not computed")
        for n, r in failed:
            L.append(_wrap(f"{n}: {r['error']}"))
    ilv = rep["measures"]["il_variables"]
    if ilv["status"] == "ok" and ilv["per_variable"]:
        L.append("")
        L.append("il_variables per variable (sum of distances / n; lambda is their mean)")
        rows = [[k, _fmt(val, 4), v["scales"].get(k, "")] for k, val in ilv["per_variable"].items()]
        L.append(_table(["variable", "contribution", "declared scale"], rows, right={1}))
    lit = rep.get("literature")
    if lit:
        L.append("")
        L.extend(_literature_text(lit))
    L.append("")
    L.append("What the numbers mean")
    for name in rep["measures"]:
        L.append(_wrap(f"{name}: {_MEASURE_INFO[name][1]}"))
    if lit:
        for name in lit["measures"]:
            L.append(_wrap(f"{name} (literature, not sdcMicro): {_LITERATURE_INFO[name][1]}"))
    return "\n".join(L)


def _literature_text(lit: dict) -> list[str]:
    """The "literature measures (not sdcMicro)" section of the utility text: each measure's rows and tables as its
    registry entry's ``shows`` say (:func:`pysdc.report._info.utility_rows`)."""
    L = ["Literature measures (not sdcMicro): pysdc's own, no sdcMicro counterpart"]
    m = lit["measures"]
    rows = [row for name, e in m.items() for row in _utility_rows(name, e)]
    if rows:
        L.append(_table(["measure", "part", "value", "note"], rows, right={2}))
    failed = [(n, r) for n, r in m.items() if r["status"] != "ok"]
    for n, r in failed:
        L.append(_wrap(f"{n}: {r['status']}: {r['error']}"))
    for name, e in m.items():
        for label, t, digits in _utility_tables(name, e):
            L.append("")
            L.append(label)
            cols = list(next(iter(t.values())).keys()) if t else []
            L.append(_table(["", *cols], [[r, *(_fmt(t[r][cc], *(() if digits is None else (digits,))) for cc in cols)]
                                          for r in t], right=set(range(1, len(cols) + 1))))
    return L




def _bin_label(b: dict) -> str:
    if b["upper"] == float("inf"):
        return f"({_fmt(b['lower'])}, Inf)"
    return f"[{_fmt(b['lower'])}, {_fmt(b['upper'])}{']' if b['upper'] == 1.0 else ')'}"


def risk_text(rep: dict) -> str:
    L = []
    d, g, k = rep["data"], rep["global"], rep["k_anonymity"]
    n = d["n_records"]
    L.append("Re-identification risk (sdcMicro's measure_risk)")
    combos = d.get("n_key_combinations")
    where = rep.get("engine", "pandas")
    L.extend(_path_line("DATA", d["path"], f"({n} records" + (f", {combos} key combinations" if combos is not None
                                                              else "") + (f"; {where}" if where != "pandas" else "")
                        + ")"))
    L.append(f"  keys      {', '.join(rep['key_vars'])}")
    L.append(f"  weight    {rep['weight'] or 'none (sample = population: risk = 1/fk)'}")
    L.append(f"  household {rep['hid'] or 'none'}")
    if rep["alpha"] != 1.0:
        L.append(f"  alpha     {rep['alpha']} (weight of missing key values as wildcards)")
    L.append("")
    rows = [
        ["expected re-identifications", _fmt(g["expected_reidentifications"]), "sum of the individual risks"],
        ["global risk", _fmt(g["global_risk_pct"], 4) + " %", "expected re-identifications / records"],
        ["threshold", _fmt(g["threshold"]),
         f"records above it need protection for a global risk <= {_fmt(100 * g['max_global_risk'], 4)} %"],
    ]
    if rep["household"] is not None:
        h = rep["household"]
        rows += [
            ["household: expected re-identifications", _fmt(h["expected_reidentifications"]),
             "a person is re-identified if anyone in the household is"],
            ["household: global risk", _fmt(h["risk_pct"], 4) + " %", ""],
        ]

    def share(c, s):
        return f"{c} ({_fmt(100 * s, 3)} %)" if s is not None else str(c)

    viol = k.get("violations")
    if not viol:  # a report without sdcMicro's kAnon_violations table: the counts from fk
        rows += [
            ["records violating 2-anonymity", share(k["fk_lt_2"], k["share_fk_lt_2"]),
             "fk < 2: unique in the sample"],
            ["records violating 3-anonymity", share(k["fk_lt_3"], k["share_fk_lt_3"]), "fk < 3"],
        ]
    L.append(_table(["measure", "value", "meaning"], rows, right={1}))
    if g.get("threshold_note"):
        L.append(_wrap(f"threshold {g['threshold_note']}."))
    if viol:
        L.append("")
        L.append("k-anonymity violations (sdcMicro's kAnon_violations; missing key values match any value)")
        weighted = any(v["weighted"] is not None for v in viol)
        rows = [[f"{v['k']}-anonymity", share(v["unweighted"], v["unweighted_share"])]
                + ([share(v["weighted"], v["weighted_share"])] if weighted else []) for v in viol]
        head = ["violated", "records with fk < k"] + (["records with Fk < k (weighted)"] if weighted else [])
        L.append(_table(head, rows, right=set(range(1, len(head)))))
        if not weighted:
            L.append(_wrap("no weight: the weighted count (estimated population frequency Fk < k) needs --weight."))
    dist = rep["individual_risk"]
    L.append("")
    L.append("Individual risk: distribution")
    q = dist["quantiles"]
    L.append(_table(list(q.keys()) + ["mean"], [[_fmt(v, 4) for v in q.values()] + [_fmt(dist["mean"], 4)]],
                    right=set(range(len(q) + 1))))
    L.append("")
    m = max([b["count"] for b in dist["bins"]] + [1])
    rows = [[_bin_label(b), str(b["count"]), _fmt(100 * b["share"], 3) + " %" if b["share"] is not None else "-",
             "#" * int(round(40 * b["count"] / m))] for b in dist["bins"]]
    L.append(_table(["risk", "records", "share", ""], rows, right={1, 2}))
    if dist.get("n_above_1"):
        L.append(_wrap(f"{dist['n_above_1']} record(s) have a risk above 1: not a probability (weights below 1, "
                       "see the warnings)."))
    if dist["n_missing"]:
        L.append(f"  ({dist['n_missing']} records have no risk value)")
    if rep["top"]:
        L.append("")
        if rep.get("top_unit") == "combination":  # an engine's table: one row per key combination
            L.append(f"Riskiest key combinations (top {len(rep['top'])}; records = the records sharing it)")
        else:
            L.append(f"Riskiest records (top {len(rep['top'])}; record = 1-based row number, as in R)")
        cols = list(rep["top"][0].keys())
        rows = [[_fmt(r[c], 4) if c in ("fk", "Fk", "risk", "hier_risk") else _fmt(r[c]) for c in cols]
                for r in rep["top"]]
        right = {i for i, c in enumerate(cols) if c in ("record", "records", "fk", "Fk", "risk", "hier_risk")}
        L.append(_table(cols, rows, right=right))
    su = rep.get("suda2")
    if su is not None:
        L.append("")
        L.extend(_suda_text(su, warned=bool(_warned(rep, "suda2"))))
        L.extend(_warned(rep, "suda2"))
    dist_ = rep.get("distance")
    if dist_ is not None:
        L.append("")
        L.extend(_distance_text(dist_))
        L.extend(_warned(rep, "dRisk", "dRiskRMD"))
    link = rep.get("linkage")
    if link is not None:
        L.append("")
        L.extend(linkage_text(link))
        L.extend(_warned(rep, *_LINKAGE_INFO))
    if rep.get("output"):
        L.append("")
        L.append(_wrap(f"Per-record risk written to {rep['output']['path']} ({', '.join(rep['output']['columns'])})"))
    L.append("")
    L.append("What the numbers mean")
    L.append(_wrap("fk: records in the sample with the same key values; Fk: their estimated number in the "
                   "population (sum of weights); risk: probability that the record is re-identified "
                   "(sdcMicro's indivRisk, approx method). Missing key values match any value."))
    if su is not None and su["status"] == "ok":
        L.append(_wrap("SUDA score: how special a record is, from its minimal sample uniques (the smallest "
                       "sets of keys on which it is unique; smaller sets weigh more); DIS-SUDA: the score "
                       "turned into a probability-like risk of a correct match (sampling fraction "
                       f"{_fmt(su['dis_fraction'])}). 0 = no minimal sample unique."))
    if dist_ is not None:
        L.append(_wrap("dRisk: share of records whose original values all lie within +- k sd(MASKED) of the "
                       "masked values. dRiskRMD risk1: share of records with some masked value inside an "
                       "interval around the original scaled by the robust Mahalanobis distance; risk2: of "
                       "those, the ones with no other masked record nearby; wrisk: weighted by the distances."))
    return "\n".join(L)


def _path_line(label: str, path: str, note: str) -> list[str]:
    """``  LABEL     path  (note)``; the note on a line of its own where the path is long."""
    line = f"  {label:<9} {path}  {note}"
    return [line] if len(line) <= _MAX_WIDTH else [f"  {label:<9} {path}", f"  {'':<9} {note}"]


def _warned(rep: dict, *where: str) -> list[str]:
    """The warnings a section's measures gave (also printed on stderr), as wrapped lines."""
    return [_wrap(f"warning ({', '.join(w['where'])}): {w['message']}")
            for w in rep.get("warnings") or [] if set(w["where"]) & set(where)]


def _suda_text(su: dict, warned: bool = False) -> list[str]:
    """The SUDA2 section of the risk text."""
    L = ["SUDA2 special uniques on the key variables (sdcMicro's suda2)"]
    if su["status"] != "ok":
        L.append(_wrap(f"suda2: {su['status']}: {su['error']}"))
        return L
    if su["dummy_keys"] and not warned:  # else the warning itself follows the section
        L.append(_wrap(f"warning: {len(su['key_vars'])} key variable(s): sdcMicro adds {su['dummy_keys']} constant "
                       "dummy variable(s) and warns that the result might be wrong; these are sdcMicro's "
                       "numbers all the same."))
    s, d = su["score"], su["dis_score"]
    pct = lambda v: "-" if v is None else _fmt(100 * v, 3) + " %"  # noqa: E731
    L.append(f"  records with a SUDA score > 0:     {s['n_positive']} ({pct(s['share_positive'])}); "
             f"highest score {_fmt(s['max'])}")
    L.append(f"  records with a DIS-SUDA score > 0: {d['n_positive']} ({pct(d['share_positive'])})"
             + (f"; {d['n_missing']} NaN (as in sdcMicro)" if d["n_missing"] else ""))
    L.append("")
    L.append("  DIS-SUDA scores: distribution (pysdc's summary of sdcMicro's scores)")
    q = d["quantiles"]
    L.append(_table(list(q.keys()) + ["mean"], [[_fmt(v, 4) for v in q.values()] + [_fmt(d["mean"], 4)]],
                    right=set(range(len(q) + 1)), indent="    "))
    L.append("")
    L.append("  Contribution of each key to the total SUDA score, % (sdcMicro's attribute_contributions;")
    L.append("  a key takes part in many minimal sample uniques, so they can add up to more than 100)")
    rows = [[v, _fmt(c, 4)] for v, c in su["attribute_contributions"].items()]
    L.append(_table(["variable", "contribution"], rows, right={1}, indent="    "))
    if su["top"]:
        L.append("")
        L.append(f"  Highest SUDA scores (top {len(su['top'])}; record = 1-based row number)")
        cols = list(su["top"][0].keys())
        rows = [[_fmt(r[c], 4) if c in ("score", "dis_score") else _fmt(r[c]) for c in cols] for r in su["top"]]
        right = {i for i, c in enumerate(cols) if c in ("record", "score", "dis_score")}
        L.append(_table(cols, rows, right=right, indent="    "))
    return L


def _distance_text(dr: dict) -> list[str]:
    """The dRisk / dRiskRMD section of the risk text."""
    L = ["Distance risk of the masked continuous variables (sdcMicro's dRisk, dRiskRMD)"]
    L.extend(_path_line("MASKED", dr["masked"].get("path", "-"),
                        f"({dr['masked']['n_records']} records, paired with DATA by position)"))
    L.append(_wrap("variables: " + ", ".join(dr["variables"])))
    rows = []
    d = dr["d_risk"]
    if d["status"] == "ok":
        rows.append(["dRisk", _fmt(d["value"]), f"k = {_fmt(d['k'])} (--drisk-k)"])
    m = dr["d_risk_rmd"]
    if m["status"] == "ok":
        rs = m["random_state"]
        seed = f"random_state={rs}" if rs is not None else "random MCD draw (--random-state fixes it)"
        rows += [["dRiskRMD risk1", _fmt(m["risk1"]), f"{m['n_risk1']} records flagged; k = {_fmt(m['k'])}"],
                 ["dRiskRMD risk2", _fmt(m["risk2"]), f"{m['n_risk2']} records flagged; k2 = {_fmt(m['k2'])}"],
                 ["dRiskRMD wrisk1", _fmt(m["wrisk1"]), seed],
                 ["dRiskRMD wrisk2", _fmt(m["wrisk2"]), ""]]
    if rows:
        L.append(_table(["measure", "value", "note"], rows, right={1}))
    for name, r in (("dRisk", d), ("dRiskRMD", m)):
        if r["status"] != "ok":
            L.append(_wrap(f"{name}: {r['status']}: {r['error']}"))
    return L


def _shown(value, fmt: str) -> str:
    """A number a registry entry shows (``Shown.fmt``), as the text report writes it."""
    if value is None or (isinstance(value, float) and value != value):
        return "NA"
    if fmt == "pct":
        return _fmt(100 * value, 4) + " %"
    if fmt in ("int", "text", "bool"):
        return str(value)
    return _fmt(value)


def linkage_text(lk: dict) -> list[str]:
    """The record-linkage section of the risk text: each measure's numbers, what it is and which attacker."""
    L = ["Record linkage of the masked continuous variables (identity disclosure; docs/record-linkage.md)"]
    ms = lk["measures"]
    if lk.get("masked") is None:  # an engine: nothing computed
        for name, m in ms.items():
            L.append(_wrap(f"{name}: {m['status']}: {m['error']}"))
        return L
    L.extend(_path_line("MASKED", lk["masked"].get("path", "-"),
                        f"({lk['masked']['n_records']} records, record i linked back to record i of DATA)"))
    L.append(_wrap("variables: " + ", ".join(lk["variables"]) + f"; {lk['n_records']} records complete in both files"
                   + (f" ({lk['n_left_out']} left out for a missing value)" if lk["n_left_out"] else "")))
    rows = [[f"{name} {key}", _shown(value, f), label]
            for name, m in ms.items() for key, value, label, f in _shown_rows(name, m)]
    if rows:
        L.append(_table(["measure", "value", "note"], rows, right={1}))
    for name, m in ms.items():
        if m["status"] != "ok":
            L.append(_wrap(f"{name}: {m['status']}: {m['error']}"))
    for name, (cit, desc, attacker, _) in _LINKAGE_INFO.items():
        L.append(_wrap(f"{name}: {desc}. The attacker: {attacker} ({cit})."))
    return L
