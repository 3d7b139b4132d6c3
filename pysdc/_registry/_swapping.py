"""Registry entry of sdcMicro's information loss after targeted record swapping (``infoLoss``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._results import InfoLossResult
from ..loss import info_loss
from ._measure import Measure, _lst

#: the custom metrics the stored cases name (r_reference/generate_infoLoss.R defines the same)
CASE_METRICS = {"squareD": lambda x, y: (x - y) ** 2.0}


def _key_text(col: pd.Series) -> list:
    """A cell table's key column as R's as.character shows it (None for NA)."""
    out = []
    for v in col.astype(object).tolist():
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            out.append(None)
        elif isinstance(v, (float, np.floating)) and float(v).is_integer():
            out.append(str(int(v)))
        else:
            out.append(str(v))
    return out


def _run_info_loss(fn, a, inputs, expected):
    kw = {}
    for name in ("metric", "hid", "probs", "quantvals", "exclude_zeros", "only_inner_cells"):
        if name in a:
            kw[name] = a[name]
    if "apply_quantvals" in a:
        kw["apply_quantvals"] = [] if a["apply_quantvals"] == "none" else _lst(a["apply_quantvals"])
    if "custom_metric" in a:
        kw["custom_metric"] = {k: CASE_METRICS[k] for k in _lst(a["custom_metric"])}
    r = fn(inputs["data"], inputs["data_swapped"], _lst(a["table_vars"]), **kw)
    cv = r.cellvalues
    tv = _lst(a["table_vars"])
    return {
        "cellvalues": {"keys": {v: _key_text(cv[v]) for v in tv},
                       "count_o": cv["count_o"].to_numpy(dtype=float), "count_s": cv["count_s"].to_numpy(dtype=float)},
        "overview": {k: r.overview[k].to_numpy(dtype=float) for k in ("noise", "cnt", "pct")},
        "measures": {"what": [str(w) for w in r.measures.index], "columns": [str(c) for c in r.measures.columns],
                     "values": {str(c): r.measures[c].to_numpy(dtype=float) for c in r.measures.columns}},
        "cumdistr": {f"cumdistr{m}": {"cat": list(t["cat"]), "cnt": t["cnt"].to_numpy(dtype=float),
                                      "pct": t["pct"].to_numpy(dtype=float)} for m, t in r.cumdistr.items()},
        "false_zero": r.false_zero, "false_nonzero": r.false_nonzero, "exclude_zeros": r.exclude_zeros,
    }


def _compare_info_loss(c, exp, act, args, mode):
    ecv, acv = exp["cellvalues"], act["cellvalues"]
    for v, keys in ecv["keys"].items():
        if list(keys) != list(acv["keys"].get(v, [])):
            c.fail(f"cellvalues.{v}", f"cell keys of {v} differ from sdcMicro's (first rows {acv['keys'].get(v, [])[:5]}"
                   f" vs {list(keys)[:5]}; {len(acv['keys'].get(v, []))} vs {len(keys)} cells)", n=len(keys))
    for f in ("count_o", "count_s"):
        c.value(f"cellvalues.{f}", ecv[f], act["cellvalues"][f])
    for f in ("noise", "cnt", "pct"):
        c.value(f"overview.{f}", exp["overview"][f], act["overview"][f])
    em, am = exp["measures"], act["measures"]
    if list(em["what"]) != am["what"] or list(em["columns"]) != am["columns"]:
        c.fail("measures", f"rows {am['what']} x columns {am['columns']} instead of sdcMicro's "
               f"{em['what']} x {em['columns']}", n=len(em["what"]))
    else:
        for col in em["columns"]:
            c.value(f"measures.{col}", em["values"][col], am["values"][col])
    if sorted(exp["cumdistr"]) != sorted(act["cumdistr"]):
        c.fail("cumdistr", f"components {sorted(act['cumdistr'])} instead of {sorted(exp['cumdistr'])}")
    else:
        for name, e in exp["cumdistr"].items():
            a = act["cumdistr"][name]
            if list(e["cat"]) != a["cat"]:
                c.fail(f"{name}.cat", f"categories {a['cat'][:6]} instead of sdcMicro's {list(e['cat'])[:6]}",
                       n=len(e["cat"]))
            else:
                c.value(f"{name}.cnt", e["cnt"], a["cnt"])
                c.value(f"{name}.pct", e["pct"], a["pct"])
    c.value("false_zero", exp["false_zero"], act["false_zero"])
    c.value("false_nonzero", exp["false_nonzero"], act["false_nonzero"])
    if bool(exp["exclude_zeros"]) != bool(act["exclude_zeros"]):
        c.fail("exclude_zeros", "differs")


def _info_loss_to_r(values, R):
    kw = {"data": values["data"], "data_swapped": values["data_swapped"], "table_vars": list(values["table_vars"]),
          "metric": list(values["metric"]), "hid": values["hid"],
          "probs": np.asarray(values["probs"], dtype=float), "quantvals": np.asarray(values["quantvals"], dtype=float),
          "exclude_zeros": bool(values["exclude_zeros"]), "only_inner_cells": bool(values["only_inner_cells"])}
    aq = list(values["apply_quantvals"])
    kw["apply_quantvals"] = aq if aq else R.call("character", 0, package="base", as_robject=True)
    return "infoLoss", kw, False


def _frame(v) -> pd.DataFrame:
    return v if isinstance(v, pd.DataFrame) else pd.DataFrame(v)


def _info_loss_from_r(res, values, R):
    out = res.value
    cv = _frame(out["cellvalues"]).reset_index(drop=True)
    meas = _frame(out["measures"])
    what = [str(w) for w in meas["what"]]
    meas = meas.drop(columns="what").set_axis(pd.Index(what, name="what"), axis=0).astype(float)
    cum = {k[len("cumdistr"):]: _frame(v).reset_index(drop=True) for k, v in out.items() if k.startswith("cumdistr")}
    ov = _frame(out["overview"]).reset_index(drop=True)
    return InfoLossResult(cellvalues=cv, overview=ov, measures=meas, cumdistr=cum,
                          false_zero=int(out["false_zero"]), false_nonzero=int(out["false_nonzero"]),
                          exclude_zeros=bool(out["exclude_zeros"]))


def _example_info_loss() -> dict:
    rng = np.random.default_rng(0)
    n = 80
    data = pd.DataFrame({"g": pd.Categorical(rng.choice(["a", "b", "c"], n)), "k": rng.integers(1, 4, n),
                         "h": np.repeat(np.arange(n // 2), 2)})
    swapped = data.copy()
    swapped["g"] = swapped["g"].to_numpy()[rng.permutation(n)]
    return {"data": data, "data_swapped": swapped, "table_vars": ["g", "k"]}


ENTRIES: tuple[Measure, ...] = (
    Measure(
        "info_loss", "infoLoss", "loss", info_loss, InfoLossResult,
        arguments={"data": "data", "data_swapped": "data_swapped", "table_vars": "table_vars", "metric": "metric",
                   "custom_metric": "custom_metric", "hid": "hid", "probs": "probs", "quantvals": "quantvals",
                   "apply_quantvals": "apply_quantvals", "exclude_zeros": "exclude_zeros",
                   "only_inner_cells": "only_inner_cells", "inner": None},
        fields={"cellvalues": "cellvalues", "overview": "overview", "measures": "measures",
                "cumdistr": "cumdistr<metric>", "false_zero": "false_zero", "false_nonzero": "false_nonzero",
                "exclude_zeros": "exclude_zeros"},
        defaults={"custom_metric": None, "hid": None, "exclude_zeros": False, "only_inner_cells": False},
        notes="sdcMicro's cumdistr<metric> components are one dict, cumdistr[metric]; a single function as "
              "custom_metric is refused (sdcMicro 5.8.0 fails on it).",
        r_requires={"inner": (False, (
            "inner=True does not exist in sdcMicro's infoLoss (its only_inner_cells compares the one-way tables); "
            "use the native pysdc.info_loss for it, or inner=False here.")),
            "custom_metric": ({}, (
            "custom_metric is not supported by the R bridge (Python functions cannot run in R); "
            "use the native pysdc.info_loss for it, or custom_metric=None here."))},
        to_r=_info_loss_to_r, from_r=_info_loss_from_r,
        run_case=_run_info_loss, compare_case=_compare_info_loss,
        example=_example_info_loss,
        description="information loss of a frequency table after record swapping: each cell's count in the "
                    "original and in the swapped data compared (absolute difference absD, relative relabsD, of "
                    "square roots abssqrtD), summarised by quantiles over the cells. 0 = unchanged.",
        citation="sdcMicro's infoLoss (Gussenbauer); targeted record swapping",
        section="utility",
    ),
)
