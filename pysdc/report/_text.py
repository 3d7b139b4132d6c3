"""Plain-text rendering of the report model (what ``pysdc utility`` and ``pysdc risk`` print)."""

from __future__ import annotations

from ._format import fmt as _fmt
from ._format import text_table as _table
from ._format import wrap as _wrap
from ._model import LITERATURE_INFO as _LITERATURE_INFO
from ._model import MEASURE_INFO as _MEASURE_INFO

__all__ = ["utility_text", "risk_text"]


def utility_text(rep: dict) -> str:
    L = []
    o, m, v = rep["original"], rep["masked"], rep["variables"]
    L.append("Information loss: MASKED compared with ORIGINAL (sdcMicro's measures)")
    L.append(f"  ORIGINAL  {o['path']}  ({o['n_records']} records, {o['n_columns']} columns)")
    L.append(f"  MASKED    {m['path']}  ({m['n_records']} records, {m['n_columns']} columns)")
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
    """The "literature measures (not sdcMicro)" section of the utility text."""
    L = ["Literature measures (not sdcMicro): pysdc's own, no sdcMicro counterpart"]
    m = lit["measures"]
    rows = []
    c = m["il_continuous"]
    if c["status"] == "ok":
        rows += [["il_continuous", "GILCV", _fmt(c["gilcv"]), "mean relative variation, %"],
                 ["il_continuous", "IL1", _fmt(c["il1"]), "Yancey, Winkler & Creecy's IL1, mean per cell"]]
    k = m["il_categorical"]
    if k["status"] == "ok":
        rows.append(["il_categorical", "CTBIL normalised", _fmt(k["ctbil_normalized"]), "contingency tables"])
        rows += [["il_categorical", f"direct {v}", _fmt(val, 4), f"EBIL {_fmt(k['ebil'][v], 4)}"]
                 for v, val in k["direct"].items()]
    h = m["hellinger"]
    if h["status"] == "ok":
        rows.append(["hellinger", "GHD", _fmt(h["ghd"]), "mean over the variables"])
        rows += [["hellinger", v, _fmt(val, 4), ""] for v, val in h["per_variable"].items()]
    g = m["gsil"]
    if g["status"] == "ok":
        rows.append(["gsil", "GSIL", _fmt(g["value"]), f"band: {g['band'] or '-'} (parts: {', '.join(g['applicable'])})"])
    if rows:
        L.append(_table(["measure", "part", "value", "note"], rows, right={2}))
    failed = [(n, r) for n, r in m.items() if r["status"] != "ok"]
    for n, r in failed:
        L.append(_wrap(f"{n}: {r['status']}: {r['error']}"))
    if c["status"] == "ok":
        L.append("")
        L.append("il_continuous discrepancy table (rows: what is compared; columns: how)")
        t = c["table"]
        cols = list(next(iter(t.values())).keys()) if t else []
        L.append(_table(["", *cols], [[r, *(_fmt(t[r][cc], 4) for cc in cols)] for r in t],
                        right=set(range(1, len(cols) + 1))))
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
    L.append(f"  DATA      {d['path']}  ({n} records)")
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

    rows += [
        ["records violating 2-anonymity", share(k["fk_lt_2"], k["share_fk_lt_2"]), "fk < 2: unique in the sample"],
        ["records violating 3-anonymity", share(k["fk_lt_3"], k["share_fk_lt_3"]), "fk < 3"],
    ]
    L.append(_table(["measure", "value", "meaning"], rows, right={1}))
    if g.get("threshold_note"):
        L.append(_wrap(f"threshold {g['threshold_note']}."))
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
        L.append(f"Riskiest records (top {len(rep['top'])}; record = 1-based row number, as in R)")
        cols = list(rep["top"][0].keys())
        rows = [[_fmt(r[c], 4) if c in ("fk", "Fk", "risk", "hier_risk") else _fmt(r[c]) for c in cols]
                for r in rep["top"]]
        right = {i for i, c in enumerate(cols) if c in ("record", "fk", "Fk", "risk", "hier_risk")}
        L.append(_table(cols, rows, right=right))
    L.append("")
    L.append("What the numbers mean")
    L.append(_wrap("fk: records in the sample with the same key values; Fk: their estimated number in the "
                   "population (sum of weights); risk: probability that the record is re-identified "
                   "(sdcMicro's indivRisk, approx method). Missing key values match any value."))
    return "\n".join(L)
