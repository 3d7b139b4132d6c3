"""Markdown and HTML rendering of the report model (the same numbers as the text and JSON)."""

from __future__ import annotations

import html

from .._format import fmt as _fmt

__all__ = ["to_markdown", "to_html"]


def fmt(v, digits: int = 6) -> str:
    """A number of the report model: a missing value (JSON null, NaN) reads NA, as R prints it and as the
    HTML report shows it."""
    return "NA" if v is None else _fmt(v, digits)


def _rows(rep: dict) -> tuple[str, list[tuple[str, str, str]]]:
    """(title, [(measure, value, source)]) of a report."""
    prov = rep.get("provenance", {})
    if rep.get("format") == "pysdc-utility-1":
        rows = [(name, fmt(m.get("value")) if m["status"] == "ok" else m["status"], prov.get(name, ""))
                for name, m in rep["measures"].items()]
        return "Information loss", rows
    g, k = rep["global"], rep["k_anonymity"]
    rows = [("expected re-identifications", fmt(g["expected_reidentifications"]), prov.get("global", "")),
            ("global risk (%)", fmt(g["global_risk_pct"], 4), prov.get("global", "")),
            ("threshold", fmt(g["threshold"]), prov.get("global", ""))]
    if rep.get("household"):
        h = rep["household"]
        rows += [("household: expected re-identifications", fmt(h["expected_reidentifications"]),
                  prov.get("household", "")),
                 ("household: global risk (%)", fmt(h["risk_pct"], 4), prov.get("household", ""))]
    if not k.get("violations"):  # kAnon_violations' rows hold the same counts (fk < 2, fk < 3): one of each
        rows += [("records violating 2-anonymity", fmt(k["fk_lt_2"]), prov.get("k_anonymity", "")),
                 ("records violating 3-anonymity", fmt(k["fk_lt_3"]), prov.get("k_anonymity", ""))]
    for v in k.get("violations") or []:
        src = prov.get("k_anonymity.violations", "")
        rows.append((f"records with fk < {v['k']}", fmt(v["unweighted"]), src))
        if v["weighted"] is not None:
            rows.append((f"records with Fk < {v['k']} (weighted)", fmt(v["weighted"]), src))
    su = rep.get("suda2")
    if su and su.get("status") == "ok":
        d = su["dis_score"]
        rows += [("SUDA2: records with a DIS-SUDA score > 0", fmt(d["n_positive"]), prov.get("suda2.dis_score", "")),
                 ("SUDA2: highest DIS-SUDA score", fmt(d["quantiles"].get("100%")), prov.get("suda2.dis_score", ""))]
        rows += [(f"SUDA2: contribution of {var} (%)", fmt(c, 4), prov.get("suda2.attribute_contributions", ""))
                 for var, c in su["attribute_contributions"].items()]
    dr = rep.get("distance")
    if dr:
        if dr["d_risk"]["status"] == "ok":
            rows.append(("dRisk", fmt(dr["d_risk"]["value"]), prov.get("distance.d_risk", "")))
        m = dr["d_risk_rmd"]
        if m["status"] == "ok":
            rows += [(f"dRiskRMD {f}", fmt(m[f]), prov.get("distance.d_risk_rmd", ""))
                     for f in ("risk1", "risk2", "wrisk1", "wrisk2")]
    return "Re-identification risk", rows


def to_markdown(rep: dict) -> str:
    """The report's measures as a Markdown table, with where each number comes from."""
    title, rows = _rows(rep)
    lines = [f"## {title}", "", "| measure | value | source |", "|---|---:|---|"]
    lines += [f"| {m} | {v} | {s} |" for m, v, s in rows]
    return "\n".join(lines) + "\n"


def to_html(rep: dict) -> str:
    """The report's measures as an HTML fragment (a table), with where each number comes from."""
    title, rows = _rows(rep)
    cells = "".join(f"<tr><td>{html.escape(m)}</td><td>{html.escape(v)}</td><td>{html.escape(s)}</td></tr>"
                    for m, v, s in rows)
    return (f"<section><h2>{html.escape(title)}</h2><table><tr><th>measure</th><th>value</th><th>source</th></tr>"
            f"{cells}</table></section>\n")
