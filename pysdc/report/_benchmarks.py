"""The benchmark section of the utility text (``pysdc utility --estimate/--regression``): estimates and
regressions compared before and after masking, computed by :mod:`pysdc.problem._benchmarks`."""

from __future__ import annotations

from .._format import fmt as _fmt
from .._format import text_table as _table
from .._format import wrap as _wrap

__all__ = ["benchmark_text"]


def benchmark_text(sec: dict) -> list:
    """Text lines of the benchmark section (after the utility report's measures)."""
    L = []
    lvl = f"{sec['level'] * 100:g} %"
    wt = f", weight {sec['weight']}" if sec.get("weight") else ", unweighted"
    est = sec.get("estimates")
    if est is not None:
        L.append("")
        L.append(f"Benchmark estimates (original vs masked; {lvl} intervals{wt})")
        if est["status"] != "ok":
            L.append(_wrap(f"not computed: {est['error']}"))
        else:
            rows = [[r["estimator"], _fmt(r["estimate_x"], 6), f"[{_fmt(r['lower_x'], 6)}, {_fmt(r['upper_x'], 6)}]",
                     _fmt(r["estimate_xm"], 6), f"[{_fmt(r['lower_xm'], 6)}, {_fmt(r['upper_xm'], 6)}]",
                     "yes" if r["inside"] else "no", _fmt(r["overlap"], 4)] for r in est["rows"]]
            L.append(_table(["estimate", "original", "interval", "masked", "interval", "inside", "overlap J"],
                            rows, right={1, 3, 6}))
    for reg in sec.get("regressions", []):
        L.append("")
        L.append(_wrap(f"Regression {reg['formula']} ({sec['family']}; {lvl} confidence intervals{wt})"))
        if reg["status"] != "ok":
            L.append(_wrap(f"not computed: {reg['error']}"))
            continue
        rows = [[coef, _fmt(r["estimate_x"], 6), _fmt(r["se_x"], 4), _fmt(r["estimate_xm"], 6), _fmt(r["se_xm"], 4),
                 "yes" if r["inside"] else "no", _fmt(r["overlap"], 4)] for coef, r in reg["table"].items()]
        L.append(_table(["coefficient", "original", "se", "masked", "se", "inside", "overlap J"], rows,
                        right={1, 2, 3, 4, 6}))
    if est is not None or sec.get("regressions"):
        L.append(_wrap("inside: the masked estimate lies in the original's interval; overlap J (Karr et al. 2006): "
                       "1 for identical intervals, 0 or below for disjoint ones. Literature checks, not sdcMicro's."))
    return L
