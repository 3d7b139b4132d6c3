"""The recordSwap method entry's hooks: bridge call, stored cases (``r_reference/outputs/recordSwap.json``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..protect._swap import _similar

__all__ = ["record_swap_to_r", "record_swap_from_r", "run_record_swap", "compare_record_swap", "swap_facts"]


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
