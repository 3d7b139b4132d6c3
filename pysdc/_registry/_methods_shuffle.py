"""The shuffle method entry's hooks: bridge call, stored cases (``r_reference/outputs/shuffle.json``).

The shuffled values are the original values reassigned, compared exactly (hexadecimal doubles); the perturbed
and EGADP values come from regressions, ``solve`` and eigen decompositions and are compared with the tolerance
of :mod:`pysdc._tolerances` (``shuffle``).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd

from .._tolerances import tolerance_for
from ..core.rrandom import RRandom
from ..protect._shuffle import ShuffleResult, shuffle

__all__ = ["run_shuffle", "compare_shuffle", "shuffle_to_r", "shuffle_from_r", "r_hex", "values_record"]


def r_hex(v: float) -> str:
    """A double as R's sprintf("%a") writes it (trailing zero digits dropped; NA as "NA")."""
    if math.isnan(v):
        return "NA"
    if v == 0:
        return "-0x0p+0" if math.copysign(1.0, v) < 0 else "0x0p+0"
    if math.isinf(v):
        return "Inf" if v > 0 else "-Inf"
    h = float(v).hex()
    sign = "-" if h.startswith("-") else ""
    mant, exp = h.lstrip("-")[2:].split("p")
    if "." in mant:
        lead, frac = mant.split(".")
        frac = frac.rstrip("0")
        mant = lead + ("." + frac if frac else "")
    e = int(exp)
    return f"{sign}0x{mant}p{'+' if e >= 0 else '-'}{abs(e)}"


def values_record(text: list[str]) -> dict:
    """As r_reference/serialize.R's ref_values_record: n, MD5 of the lines, all values or 51 rows."""
    n = len(text)
    out = {"n": n, "md5": hashlib.md5(("\n".join(text) + "\n").encode()).hexdigest()}
    if n <= 100:
        out["values"] = text
    else:
        idx = np.unique(np.floor(np.linspace(1, n, 51) + 0.5).astype(np.int64))
        out["rows"] = (idx - 1).tolist()
        out["values"] = [text[i - 1] for i in idx.tolist()]
    return out


def _record(values: np.ndarray) -> dict:
    return values_record([r_hex(v) for v in np.asarray(values, dtype=np.float64).tolist()])


def _per(frame: pd.DataFrame | None):
    if frame is None:
        return None
    return {str(c): _record(frame[c].to_numpy(dtype=np.float64, na_value=np.nan)) for c in frame.columns}


def _args(a, data):
    kw = {k: a[k] for k in ("method", "covmethod", "regmethod", "gadp") if k in a}
    if "weights" in a:
        kw["weights"] = data[a["weights"]].to_numpy(dtype=np.float64)
    return kw


def run_shuffle(fn, a, data):
    kw = _args(a, data)
    if fn is shuffle:
        rr = RRandom(a["seed"])
        res = fn(data, a["form"], random_state=rr, **kw)
        after = r_hex(rr.unif_rand())
    else:  # the bridge: R's stream stays in R
        res = fn(data, a["form"], random_state=a["seed"], **kw)
        after = None
    return {"columns": [str(c) for c in res.shuffled.columns], "shuffled": _per(res.shuffled),
            "perturbed": _per(res.perturbed), "egadp": _per(res.egadp), "after": after}


def _close_records(what, exp, act, tol) -> list[str]:
    if exp["n"] != act["n"]:
        return [f"{what}: {act['n']} values instead of {exp['n']}"]
    e = np.array([float("nan") if t == "NA" else float.fromhex(t) for t in exp["values"]])
    a = np.array([float("nan") if t == "NA" else float.fromhex(t) for t in act["values"]])
    same_na = np.array_equal(np.isnan(e), np.isnan(a))
    ok = np.isnan(e) | np.isclose(a, e, rtol=tol.rtol, atol=tol.atol)
    if same_na and ok.all():
        return []
    return [f"{what}: values differ from sdcMicro's beyond rtol={tol.rtol} (e.g. {a[~ok][:2].tolist()} instead of "
            f"{e[~ok][:2].tolist()})"]


def compare_shuffle(exp, act) -> list[str]:
    out = [] if exp["columns"] == act["columns"] else [f"columns {act['columns']} instead of {exp['columns']}"]
    for c, e in exp["shuffled"].items():
        a = act["shuffled"].get(c)
        if a is None or a["md5"] != e["md5"] or a["n"] != e["n"]:
            out.append(f"shuffled {c}: values differ from sdcMicro's")
    for part in ("perturbed", "egadp"):
        ep, ap = exp.get(part), act.get(part)
        if (ep is None) != (ap is None):
            out.append(f"{part}: {'missing' if ap is None else 'present'} unlike sdcMicro's")
            continue
        for c, e in (ep or {}).items():
            out += _close_records(f"{part} {c}", e, ap.get(c, {"n": -1}), tolerance_for("shuffle", part))
    if act.get("after") is not None and act["after"] != exp["after"]:
        out.append(f"the stream is left elsewhere than R leaves it ({act['after']} instead of {exp['after']})")
    return out


def shuffle_to_r(v):
    kw = {"form": v["form"], "method": v["method"], "covmethod": v["covmethod"], "regmethod": v["regmethod"],
          "gadp": bool(v["gadp"])}
    if v["weights"] is not None:
        kw["weights"] = np.asarray(v["weights"], dtype=np.float64)
    return "shuffle", (v["data"],), kw


def shuffle_from_r(out, values):
    data = values["data"]

    def frame(m):
        if m is None:
            return None
        if isinstance(m, pd.DataFrame):
            arr = m.to_numpy(dtype=np.float64)
        else:
            arr = np.asarray(m, dtype=np.float64)
        names = [t.strip() for t in values["form"].split("~")[0].split("+")]
        return pd.DataFrame(arr.reshape(len(data), -1), columns=names, index=data.index)

    eg = out.get("egapd") if isinstance(out, dict) else None
    return ShuffleResult(shuffled=frame(out["shuffled"]), perturbed=frame(out["perturbed"]), egadp=frame(eg))
