"""The suppression family's hooks for :data:`pysdc._registry._methods.METHODS` (issue 28, family 2).

How a stored case of ``localSuppression`` / ``localSupp`` (``r_reference/cases/<R name>.json``,
outputs by ``r_reference/generate_protect_suppression.R``) is run and compared, and how the bridge
calls sdcMicro and converts its answer to a :class:`~pysdc.protect.LocalSuppressionResult`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..protect._suppression import LocalSuppressionResult, apply_suppression
from ..risk import measure_risk

__all__ = ["run_local_suppression", "compare_local_suppression", "local_suppression_to_r",
           "local_suppression_from_r", "run_local_supp", "compare_local_supp", "local_supp_to_r",
           "local_supp_from_r", "sdcobj_keys"]


def sdcobj_keys(data: pd.DataFrame, keys: list) -> pd.DataFrame:
    """The key variables as createSdcObj makes them: factors (levels the sorted observed values)."""
    out = data.copy(deep=False)
    for v in keys:
        if not isinstance(out[v].dtype, pd.CategoricalDtype):
            out[v] = out[v].astype("category")
    return out


def _table(df: pd.DataFrame) -> dict:
    return {"rows": [str(r) for r in df.index], "values": {str(c): [int(v) for v in df[c]] for c in df.columns}}


def _fields(res: LocalSuppressionResult) -> dict:
    return {"na": {str(v): np.flatnonzero(res.data[v].isna().to_numpy()).tolist() for v in res.key_vars},
            "supps": _table(res.supps), "totalSupps": _table(res.total_supps), "newSupps": int(res.new_supps),
            "n": len(res.data)}


def _ks(v):
    return [float(x) for x in v] if isinstance(v, list) else float(v)


def run_local_suppression(fn, a, data):
    keys = list(a["keyVars"])
    if a.get("obj") == "sdcMicroObj":
        data = sdcobj_keys(data, keys)
    kw = {"k": _ks(a.get("k", 2))}
    for r, py in (("importance", "importance"), ("combs", "combs"), ("strataVars", "strata_vars"),
                  ("alpha", "alpha")):
        if a.get(r) is not None:
            kw[py] = a[r]
    res = fn(data, keys, **kw)
    return {**_fields(res), "importance": [int(v) for v in res.importance]}


def _compare_tables(name, e, a) -> list[str]:
    out = []
    if e["rows"] != a["rows"]:
        out.append(f"{name}: rows {a['rows']} instead of sdcMicro's {e['rows']}")
    for c, ev in e["values"].items():
        if a["values"].get(c) != list(ev):
            out.append(f"{name}[{c}]: {a['values'].get(c)} instead of sdcMicro's {list(ev)}")
    return out


def _compare_common(exp, act) -> list[str]:
    out = []
    if exp["n"] != act["n"]:
        out.append(f"n {act['n']} instead of {exp['n']}")
    for v, rows in exp["na"].items():
        e, a = set(rows), set(act["na"].get(v, []))
        if e != a:
            out.append(f"{v}: {len(a - e)} cell(s) suppressed that sdcMicro keeps (rows {sorted(a - e)[:5]}), "
                       f"{len(e - a)} kept that sdcMicro suppresses (rows {sorted(e - a)[:5]})")
    out += _compare_tables("supps", exp["supps"], act["supps"])
    out += _compare_tables("totalSupps", exp["totalSupps"], act["totalSupps"])
    if exp["newSupps"] != act["newSupps"]:
        out.append(f"newSupps {act['newSupps']} instead of {exp['newSupps']}")
    return out


def compare_local_suppression(exp, act) -> list[str]:
    out = _compare_common(exp, act)
    if list(exp["importance"]) != act["importance"]:
        out.append(f"importance {act['importance']} instead of sdcMicro's {list(exp['importance'])}")
    return out


def local_suppression_to_r(v):
    kw = {"keyVars": v["key_vars"], "k": v["k"], "alpha": v["alpha"]}
    for py, r in (("importance", "importance"), ("combs", "combs"), ("strata_vars", "strataVars")):
        if v[py] is not None:
            kw[r] = v[py]
    return "localSuppression", (v["data"],), kw


def _r_table(t, key_vars) -> pd.DataFrame:
    t = t if isinstance(t, pd.DataFrame) else pd.DataFrame(t)
    t = t[[c for c in key_vars]].astype(np.int64)
    if len(t) == 1:
        t.index = ["Total"]
    return t


def local_suppression_from_r(out, values):
    data, keys = values["data"], values["key_vars"]
    xa = out["xAnon"]
    new_na = np.stack([xa[v].isna().to_numpy() & ~data[v].isna().to_numpy() for v in keys], axis=1)
    sup, tot = _r_table(out["supps"], keys), _r_table(out["totalSupps"], keys)
    return LocalSuppressionResult(
        data=apply_suppression(data, keys, new_na), supps=sup, total_supps=tot, new_supps=int(out["newSupps"]),
        key_vars=list(keys), strata_vars=values["strata_vars"], importance=[int(i) for i in
                                                                          np.atleast_1d(out["importance"])],
        k=values["k"], combs=values["combs"], threshold=None,
        suppressed=pd.DataFrame(new_na, index=data.index, columns=list(keys)))


def run_local_supp(fn, a, data):
    keys = list(a["keyVars"])
    data = sdcobj_keys(data, keys)
    risk = measure_risk(data, keys, w=a.get("w")).individual["risk"].to_numpy()
    res = fn(data, keys, a["keyVar"], risk, a.get("threshold", 0.15))
    return {**_fields(res), "n_risk_above": int(np.sum(risk > a.get("threshold", 0.15)))}


def compare_local_supp(exp, act) -> list[str]:
    out = _compare_common(exp, act)
    if exp["n_risk_above"] != act["n_risk_above"]:
        out.append(f"{act['n_risk_above']} records above the threshold instead of sdcMicro's {exp['n_risk_above']}")
    return out


def local_supp_to_r(v):
    x = v["data"][v["key_vars"]]
    return "localSuppWORK", (), {"x": x, "rk": np.asarray(v["risk"], dtype=np.float64), "keyVar": v["key_var"],
                                  "threshold": float(v["threshold"])}


def local_supp_from_r(out, values):
    data, keys = values["data"], values["key_vars"]
    xa = out["xAnon"]
    new_na = np.stack([xa[v].isna().to_numpy() & ~data[v].isna().to_numpy() for v in keys], axis=1)
    return LocalSuppressionResult(
        data=apply_suppression(data, keys, new_na), supps=_r_table(out["supps"], keys),
        total_supps=_r_table(out["totalSupps"], keys), new_supps=int(out["newSupps"]), key_vars=list(keys),
        importance=None, k=None, threshold=float(values["threshold"]),
        suppressed=pd.DataFrame(new_na, index=data.index, columns=list(keys)))
