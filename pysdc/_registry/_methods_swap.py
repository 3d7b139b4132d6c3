"""The swapping methods' entry hooks: bridge call, stored cases (``r_reference/outputs/recordSwap.json``,
``r_reference/outputs/rankSwap.json``)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from ..core.rankswap import extreme_count
from ..protect._swap import _similar
from ._methods_shuffle import r_hex

__all__ = ["record_swap_to_r", "record_swap_from_r", "run_record_swap", "compare_record_swap", "swap_facts",
           "rank_swap_to_r", "rank_swap_from_r", "rank_swap_r_p", "run_rank_swap", "compare_rank_swap"]


def record_swap_to_r(v):
    kw = {"hid": v["hid"], "hierarchy": list(v["hierarchy"]), "similar": _similar(v["similar"], v["data"]),
          "swaprate": float(v["swaprate"]), "risk_threshold": float(v["risk_threshold"]),
          "k_anonymity": float(v["k_anonymity"]), "return_swapped_id": bool(v["return_swapped_id"]),
          "log_file_name": str(Path(tempfile.gettempdir()) / "pysdc_recordSwap_log.txt")}
    for name in ("risk", "risk_variables", "carry_along"):
        if v[name] is not None:
            kw[name] = list(v[name])
    if v["seed"] is not None:
        kw["seed"] = int(v["seed"])
    return "recordSwap", (v["data"],), kw


def record_swap_from_r(out, values):
    out = out.reset_index(drop=True)
    for c in values["data"].columns:  # R's integers and factors back to the input's dtypes
        if c in out.columns and out[c].dtype != values["data"][c].dtype:
            try:
                out[c] = out[c].astype(values["data"][c].dtype)
            except (TypeError, ValueError):  # pragma: no cover - kept as R gave it
                pass
    return out


def run_record_swap(fn, a, data):
    kw = {k: a[k] for k in ("swaprate", "k_anonymity", "risk_variables", "carry_along", "risk", "risk_threshold",
                            "seed") if k in a}
    out = fn(data, a["hid"], a["hierarchy"], a["similar"], return_swapped_id=True, **kw)
    moved = list(dict.fromkeys(list(a["hierarchy"]) + list(a.get("carry_along") or [])))
    sw = out[out["hid"] != out["hid_swapped"]]
    return {"hid": out["hid"].to_numpy().tolist(), "hid_swapped": out["hid_swapped"].to_numpy().tolist(),
            "n_swapped_households": int(sw["hid"].nunique()),
            "columns": {c: out[c].to_numpy().tolist() for c in moved}}


def compare_record_swap(exp, act):
    out = []
    if list(exp["hid"]) != act["hid"]:
        out.append("records not in sdcMicro's (hid) order")
    if list(exp["hid_swapped"]) != act["hid_swapped"]:
        bad = int(np.sum(np.asarray(exp["hid_swapped"]) != np.asarray(act["hid_swapped"])))
        out.append(f"{bad} record(s) swapped with another household than sdcMicro's")
    if exp["n_swapped_households"] != act["n_swapped_households"]:
        out.append(f"{act['n_swapped_households']} households swapped instead of sdcMicro's "
                   f"{exp['n_swapped_households']}")
    for c, v in exp["columns"].items():
        if list(v) != list(act["columns"].get(c, [])):
            out.append(f"column {c} differs")
    return out


def swap_facts(data: pd.DataFrame, hid: list, hid_swapped: list, columns: dict, hierarchy: list, similar: list) -> dict:
    """Structural facts of a swapped file (for comparing pysdc's swaps with sdcMicro's): households swapped,
    whether pairs are mutual, take the partner's geography, differ at the lowest level, share a profile."""
    orig = data.sort_values("hid", kind="stable").drop_duplicates("hid").set_index("hid")
    pairs = pd.DataFrame({"hid": hid, "partner": hid_swapped, **{c: columns[c] for c in hierarchy}})
    pairs = pairs.drop_duplicates("hid").set_index("hid")
    sw = pairs[pairs.index != pairs["partner"]]
    mutual = bool((pairs.loc[sw["partner"].to_numpy(), "partner"].to_numpy() == sw.index.to_numpy()).all())
    takes = bool(all((sw[c].to_numpy() == orig.loc[sw["partner"].to_numpy(), c].to_numpy()).all() for c in hierarchy))
    low = hierarchy[-1]
    differs = bool((orig.loc[sw.index, low].to_numpy() != orig.loc[sw["partner"].to_numpy(), low].to_numpy()).all())
    same_any = np.zeros(len(sw), dtype=bool)
    for prof in similar:
        eq = np.ones(len(sw), dtype=bool)
        for c in prof:
            eq &= orig.loc[sw.index, c].to_numpy() == orig.loc[sw["partner"].to_numpy(), c].to_numpy()
        same_any |= eq
    same_first = np.ones(len(sw), dtype=bool)
    for c in similar[0]:
        same_first &= orig.loc[sw.index, c].to_numpy() == orig.loc[sw["partner"].to_numpy(), c].to_numpy()
    return {"n_swapped": int(len(sw)), "mutual": mutual, "takes_partner_geography": takes,
            "differs_at_lowest_level": differs, "shares_a_profile": bool(same_any.all()),
            "share_first_profile": float(same_first.mean()) if len(sw) else 1.0,
            "swapped_hids": set(sw.index.tolist())}


# ---- rankSwap


def _one_extreme_group_empty(n: int, top: float, bottom: float) -> bool:
    """Whether sdcMicro's C++ forms one empty group of extreme values but not the other (its group sizes are
    ``pysdc.core.rankswap.extreme_count``, single precision: 0 of 20 at 5 percent); it then indexes outside its
    hash table (both empty is defined)."""
    return (extreme_count(n, top) == 0) != (extreme_count(n, bottom) == 0)


def rank_swap_r_p(p):
    """sdcMicro's P for pysdc's ``p``: sdcMicro 5.8.0 reads P as a fraction of the records (documented: percent)."""
    return None if p is None else float(p) / 100.0


def rank_swap_to_r(v):
    """sdcMicro's rankSwap call: ``p`` (percent, as documented) becomes P = p / 100 (what sdcMicro 5.8.0 reads)."""
    data = v["data"]
    variables = list(v["variables"]) if v["variables"] is not None else list(data.columns)
    seed = v["seed"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise InvalidParameterError(
            f"seed must be None or an int for pysdc.r.rank_swap (sdcMicro's C++ generator); got {type(seed).__name__}.")
    for c in variables:
        n = int(data[c].notna().sum())
        if n and _one_extreme_group_empty(n, float(v["top_percent"]), float(v["bottom_percent"])):
            raise InvalidParameterError(
                f"pysdc.r.rank_swap: top_percent={v['top_percent']} and bottom_percent={v['bottom_percent']} leave "
                f"one extreme group of {c!r} empty but not the other ({extreme_count(n, v['top_percent'])} and "
                f"{extreme_count(n, v['bottom_percent'])} of {n} non-missing values); sdcMicro 5.8.0's C++ then "
                "indexes outside its table and R aborted (or crashed the process) in the cases observed, e.g. 200 "
                "records with BottomPercent 0.4 or 0, 20 records with TopPercent 5 and BottomPercent 10, so the "
                "bridge refuses. pysdc.protect.rank_swap warns and orders the values correctly in that case.")
    kw = {"variables": variables, "TopPercent": float(v["top_percent"]), "BottomPercent": float(v["bottom_percent"])}
    if v["p"] is not None:
        kw["P"] = rank_swap_r_p(v["p"])
    elif v["r0"] is not None:
        kw["R0"] = float(v["r0"])
    if seed is not None:
        kw["seed"] = int(seed)
    return "rankSwap", (data,), kw


def rank_swap_from_r(out, values):
    data = values["data"]
    out = out.set_axis(data.index, axis=0) if len(out) == len(data) else out
    for c in (values["variables"] if values["variables"] is not None else data.columns):
        out[c] = out[c].to_numpy(dtype=np.float64, na_value=np.nan)  # R's double (the dtype memory made whole
    return out  # numbers integer again)


def run_rank_swap(fn, a, data):
    """A stored case (sdcMicro's argument names; its P a fraction of the records, pysdc's p percent)."""
    p = a.get("P")
    out = fn(data, a.get("variables"), top_percent=a.get("TopPercent", 5), bottom_percent=a.get("BottomPercent", 5),
             p=None if p is None else 100.0 * p, r0=a.get("R0"), seed=a.get("seed"))
    variables = list(a.get("variables") or data.columns)
    return {"variables": variables,
            "values": {c: [r_hex(x) for x in out[c].to_numpy(dtype=np.float64, na_value=np.nan).tolist()]
                       for c in variables}}


def compare_rank_swap(exp, act):
    out = [] if list(exp["variables"]) == list(act["variables"]) else [
        f"variables {act['variables']} instead of sdcMicro's {exp['variables']}"]
    for c, ev in exp["values"].items():
        av = act["values"].get(c, [])
        if len(av) != len(ev):
            out.append(f"{c}: {len(av)} values instead of sdcMicro's {len(ev)}")
            continue
        e = np.array([math.nan if t == "NA" else float.fromhex(t) for t in ev])
        x = np.array([math.nan if t == "NA" else float.fromhex(t) for t in av])
        bad = np.flatnonzero(~((e == x) | (np.isnan(e) & np.isnan(x))))
        if bad.size:
            out.append(f"{c}: {bad.size} value(s) differ from sdcMicro's, e.g. row {int(bad[0])}: {float(x[bad[0]])!r} "
                       f"instead of {float(e[bad[0]])!r}")
    return out
