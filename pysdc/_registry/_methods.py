"""The registry of pysdc's protection methods (issue 28): how each maps onto sdcMicro's function.

Protection methods are not measures: they return protected data, not a number about data. So they
have their own record, :class:`Method`, modelled on :class:`pysdc._registry.Measure`: the Python and
R names, the argument map, the R defaults (checked against sdcMicro's ``formals()`` by the live tests),
how the bridge (:mod:`pysdc.r._methods`) calls sdcMicro, and how a stored parity case
(``r_reference/cases/<R name>.json``, outputs written by ``r_reference/generate_protect_recode.R``) is
run (``run_case``) and compared (``compare_case``), natively and through the bridge alike.

How to add a method
-------------------
1. The native function in ``pysdc/protect/_<family>.py`` with ``@validate_params``, returning a new
   DataFrame (never modifying its input).
2. Its cases (``r_reference/make_cases_<RName>.py``) and sdcMicro's outputs (an R script in
   ``r_reference/``).
3. One :class:`Method` entry in :data:`METHODS`; the bridge wrapper and the parity tests follow.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._tolerances import CLOSED_FORM, EXACT, tolerance_for
from .._validation import declared_params
from ..core.rrandom import RRandom
from ..io import read_table
from ..protect import (
    add_noise,
    global_recode,
    group_and_rename,
    mafast,
    microaggregation,
    mv_top_coding,
    pram,
    top_bot_coding,
)
from ..protect._microaggregation import MicroaggregationResult
from ..protect._noise import AddNoiseResult
from ..protect._pram import PramResult, transitions_table
from ..protect._rankswap import rank_swap
from ..protect._shuffle import shuffle
from ..protect._suppression import local_supp, local_suppression
from ..protect._swap import record_swap
from ._method_roles import ROLES, Roles
from ._methods_shuffle import compare_shuffle, r_hex, run_shuffle, shuffle_from_r, shuffle_to_r, values_record
from ._methods_suppression import (
    compare_local_supp,
    compare_local_suppression,
    local_supp_from_r,
    local_supp_to_r,
    local_suppression_from_r,
    local_suppression_to_r,
    run_local_supp,
    run_local_suppression,
)
from ._methods_swap import (
    compare_rank_swap,
    compare_record_swap,
    rank_swap_from_r,
    rank_swap_r_p,
    rank_swap_to_r,
    record_swap_from_r,
    record_swap_to_r,
    run_rank_swap,
    run_record_swap,
)

__all__ = ["Method", "METHODS", "STEP_ALIASES", "method_by_python_name", "method_by_r_name", "load_case_data"]


@dataclass(frozen=True)
class Method:
    """How one pysdc protection method maps onto one sdcMicro function.

    Attributes
    ----------
    python, r : str
        ``pysdc.protect.<python>`` (and ``pysdc.r.<python>``); sdcMicro's function name.
    family : str
        The method family of issue 28 (``"recoding"`` ...).
    native : callable
        The native function.
    arguments : dict
        Python argument -> R argument (``None``: pysdc only, e.g. ``random_state``, which the
        bridge turns into R's ``set.seed`` before the call).
    defaults : dict
        R argument -> the default pysdc uses (the live tests check them against ``formals(formals_of)``).
    formals_of : str
        The sdcMicro function (exported or internal) whose ``formals()`` hold the defaults
        (``globalRecode`` is ``function(obj, ...)``; its worker ``globalRecodeWORK`` has them).
    notes : str
        What a user moving between the two must know.
    bridge : bool
        Whether :mod:`pysdc.r` offers the method.
    r_seed : str or None
        The Python argument that seeds R's generator (``set.seed``) before the call.
    to_r : callable
        ``to_r(values) -> (function, args, kwargs)``: sdcMicro's call for validated Python arguments.
    from_r : callable or None
        ``from_r(result, values) -> DataFrame``: sdcMicro's converted result to pysdc's return value.
    run_case : callable
        ``run_case(fn, args, data) -> dict``: run one stored case (sdcMicro's argument names ``args``,
        its input ``data``) through ``fn`` (native or bridge); returns the fields sdcMicro's output stores.
    compare_case : callable
        ``compare_case(expected, actual) -> list[str]``: the differences (empty: the same).
    r_convert : dict
        Python argument -> function giving sdcMicro's value of it where the two differ in meaning (rankSwap's
        ``p`` is percent, sdcMicro 5.8.0 reads its P as a fraction): used for a problem step's R call.
    roles : Roles or None
        How the method runs as a step of a problem (``problem.<python>(...)``): the roles of the variables it
        changes and what is re-measured (:mod:`pysdc._registry._method_roles`); None: not a problem step.
    outputs : dict
        The stored outputs of sdcMicro's function beyond ``r_reference/outputs/<r>.json``: file stem -> what
        that group of cases covers (``"microaggregation_clust"``: the clustering methods ...). Their cases run
        through the same ``run_case``/``compare_case``; ``pysdc parity`` reads and reports them all
        (:attr:`output_files`).
    """

    python: str
    r: str
    family: str
    native: Callable
    arguments: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    formals_of: str = ""
    notes: str = ""
    bridge: bool = True
    r_seed: str | None = None
    to_r: Callable | None = None
    from_r: Callable | None = None
    run_case: Callable | None = None
    compare_case: Callable | None = None
    r_convert: dict = field(default_factory=dict)
    roles: Roles | None = None
    outputs: dict = field(default_factory=dict)

    @property
    def output_files(self) -> tuple:
        """The stems of every stored output of the method (``r_reference/outputs/<stem>.json``), its own first."""
        return (self.r, *self.outputs)

    @property
    def params(self) -> dict:
        """The declared constraints of the native function (shared with the bridge)."""
        return declared_params(self.native)


# =============================================================================
# stored cases: inputs and the fields sdcMicro's outputs keep


def load_case_data(case: dict, root: Path) -> pd.DataFrame:
    """The input of a stored case: a typed table (or R's write.csv file), factors and columns as the case says."""
    data = read_table(Path(root) / "inputs" / case["inputs"]["data"])
    for col, levels in (case["inputs"].get("factor") or {}).items():
        values = data[col]
        if values.dtype.kind in "iu" or str(values.dtype) == "Int64":  # R's factor() of numbers: their text
            values = values.astype(object).map(lambda v: None if pd.isna(v) else str(v))
        data[col] = pd.Categorical(values, categories=levels)
    cols = case["inputs"].get("columns")
    return data[cols] if cols else data


def _num(v):
    if isinstance(v, str):
        return {"Inf": math.inf, "-Inf": -math.inf, "NA": math.nan, "NaN": math.nan}[v]
    return v


def _nums(v):
    return [_num(e) for e in v] if isinstance(v, list) else _num(v)


def _na_list(v) -> list:
    return [None if e == "NA" else e for e in v]


def _coded(col: pd.Series) -> dict:
    """A factor as sdcMicro's output stores it: class, levels, 1-based codes (None: NA)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        return {"class": "ordered" if col.cat.ordered else "factor",
                "levels": [str(c) for c in col.cat.categories],
                "values": [None if c < 0 else int(c) + 1 for c in codes.tolist()]}
    kind = "integer" if col.dtype.kind in "iu" else "numeric"
    return {"class": kind, "values": [None if pd.isna(v) else int(v) for v in col.tolist()]}


def _unchanged(before: pd.DataFrame, after: pd.DataFrame, column) -> bool:
    """Every other column has the same values (dtypes may differ: the bridge returns ``str`` for ``object``)."""
    keep = [c for c in before.columns if c != column]
    if list(after.columns) != list(before.columns):
        return False
    def text_na(frame: pd.DataFrame) -> pd.DataFrame:
        # a text column's missing value is None in an object column, NaN in the bridge's str column: the same
        frame = frame[keep].reset_index(drop=True)
        for c in keep:  # columns, not records
            if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c].dtype):
                frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
        return frame

    try:
        pd.testing.assert_frame_equal(text_na(after), text_na(before), check_dtype=False, check_index_type=False,
                                      check_column_type=False)
    except AssertionError:
        return False
    return True


def _compare_coded(exp: dict, act: dict) -> list[str]:
    out = []
    if exp["class"] != act["class"]:
        out.append(f"class {act['class']!r} instead of sdcMicro's {exp['class']!r}")
    if exp.get("levels") != act.get("levels"):
        out.append(f"levels {act.get('levels')} instead of sdcMicro's {exp.get('levels')}")
    ev, av = _na_list(exp["values"]), act["values"]
    if ev != av:
        bad = [i for i, (e, a) in enumerate(zip(ev, av)) if e != a]
        out.append(f"{len(bad) + abs(len(ev) - len(av))} value(s) differ, e.g. row {bad[:1]}: "
                   f"{[av[i] for i in bad[:3]]} instead of {[ev[i] for i in bad[:3]]}")
    if exp.get("others_unchanged") is not None and exp["others_unchanged"] != act.get("others_unchanged"):
        out.append("the other columns changed")
    return out


def _changed_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na_a, na_b = np.isnan(a), np.isnan(b)
    with np.errstate(invalid="ignore"):
        return np.flatnonzero((na_a != na_b) | (~na_a & ~na_b & (a != b)))


def _floats(s: pd.Series) -> np.ndarray:
    return s.to_numpy(dtype=np.float64, na_value=np.nan)


def _r_class(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "factor"
    return "integer" if s.dtype.kind in "iu" else ("numeric" if s.dtype.kind == "f" else str(s.dtype))


def _close(e, a, tol=CLOSED_FORM) -> bool:
    e, a = _num(e), _num(a)
    if e is None or a is None or (isinstance(e, float) and math.isnan(e)):
        return (e is None or math.isnan(e)) and (a is None or math.isnan(a))
    return abs(float(e) - float(a)) <= tol.atol + tol.rtol * abs(float(e))


# ---- globalRecode


def _run_global_recode(fn, a, data):
    kw = {}
    if "labels" in a:
        kw["labels"] = a["labels"]
    if "method" in a:
        kw["method"] = a["method"]
    if "seed" in a:
        kw["random_state"] = a["seed"]
    out = fn(data, a["column"], _nums(a["breaks"]), **kw)
    return {**_coded(out[a["column"]]), "others_unchanged": _unchanged(data, out, a["column"])}


def _global_recode_to_r(v):
    kw = {"column": v["column"], "breaks": (v["breaks"].tolist() if isinstance(v["breaks"], np.ndarray)
                                            else v["breaks"]), "method": v["method"]}
    if v["labels"] is not None:
        kw["labels"] = v["labels"]
    return "globalRecode", (v["data"],), kw


def _as_int64_codes(out: pd.DataFrame, values) -> pd.DataFrame:
    if values.get("labels") is False:
        col = values["column"]
        out[col] = pd.array(out[col], dtype="Int64")
    return out


# ---- groupAndRename


def _run_group_and_rename(fn, a, data):
    after = a["after"]
    out = fn(data, a["var"], a["before"], after, add_na=bool(a.get("addNA", False)))
    return {**_coded(out[a["var"]]), "others_unchanged": _unchanged(data, out, a["var"])}


def _group_and_rename_to_r(v):
    before = np.array([str(b) for b in v["before"]], dtype=object)
    return "groupAndRename", (v["data"],), {"var": v["var"], "before": before,
                                             "after": [str(x) for x in v["after"]], "addNA": v["add_na"]}


# ---- topBotCoding


def _run_top_bot_coding(fn, a, data):
    kw = {"kind": a["kind"]} if "kind" in a else {}
    col = a["column"]
    out = fn(data, col, a.get("value"), a.get("replacement"), **kw)
    s = out[col]
    rows = _changed_rows(_floats(data[col]), _floats(s))
    vals = _floats(s)[rows]
    return {"class": _r_class(s), "n": int(len(s)), "n_na": int(s.isna().sum()), "rows": rows.tolist(),
            "values": [None if math.isnan(v) else v for v in vals.tolist()],
            "others_unchanged": _unchanged(data, out, col)}


def _compare_top_bot_coding(exp, act):
    out = [f"{k}: {act[k]!r} instead of sdcMicro's {exp[k]!r}"
           for k in ("class", "n", "n_na", "rows", "others_unchanged") if exp[k] != act[k]]
    ev = _na_list(exp["values"])
    if len(ev) != len(act["values"]) or not all(_close(e, a) for e, a in zip(ev, act["values"])):
        out.append(f"values {act['values'][:5]} instead of sdcMicro's {ev[:5]}")
    return out


def _top_bot_coding_to_r(v):
    def na(x):
        return pd.array([pd.NA], dtype="boolean") if x is None else x

    return "topBotCoding", (v["data"],), {"value": na(v["value"]), "replacement": na(v["replacement"]),
                                           "kind": v["kind"], "column": v["column"]}


def _top_bot_from_r(out: pd.DataFrame, values) -> pd.DataFrame:
    col = values["column"]
    s = out[col]
    if s.dtype.kind == "f" and values["data"][col].dtype.kind in "iu" and (
            values["replacement"] is None or isinstance(values["replacement"], (int, np.integer))):
        out[col] = pd.array(s, dtype="Int64")  # R kept it integer; the converter made NA float
    elif values["data"][col].dtype.kind in "iu" and isinstance(values["replacement"], (float, np.floating)):
        # a double replacement makes R's column double (even when no value is replaced); the bridge's dtype
        # memory gave the integer dtype back to its whole numbers (found by the differential tester, seed 1)
        nullable = isinstance(values["data"][col].dtype, pd.api.extensions.ExtensionDtype)
        out[col] = s.astype("Float64" if nullable else np.float64)
    return out


# ---- mvTopCoding


def _run_mv_top_coding(fn, a, data):
    kw = {}
    for r, py in (("maha", "maha"), ("center", "center"), ("alpha", "alpha"), ("seed", "random_state")):
        if r in a:
            kw[py] = _nums(a[r])
    out = fn(data, **kw)
    cols = list(data.columns)
    changed = sorted(set().union(*[set(_changed_rows(_floats(data[c]), _floats(out[c])).tolist()) for c in cols]))
    return {"class": {c: _r_class(out[c]) for c in cols}, "columns": [str(c) for c in out.columns],
            "rows": changed, "values": {c: _floats(out[c])[changed].tolist() for c in cols},
            "scale": {c: float(np.nanmax(np.abs(_floats(data[c])), initial=0.0)) for c in cols}}


def _compare_mv_top_coding(exp, act):
    out = [f"{k}: {act[k]!r} instead of sdcMicro's {exp[k]!r}" for k in ("class", "columns", "rows")
           if exp[k] != act[k]]
    tol = tolerance_for("mv_top_coding", "values")
    if not out:
        for c, ev in exp["values"].items():
            av, scale = act["values"][c], act["scale"][c]
            bad = [i for i, (e, a) in enumerate(zip(ev, av)) if abs(_num(e) - a) > tol.rtol * scale]
            if bad:
                out.append(f"{c}: {len(bad)} moved value(s) differ beyond {tol.rtol} x the column's largest "
                           f"magnitude, e.g. {av[bad[0]]!r} instead of {ev[bad[0]]!r}")
    return out


def _mv_top_coding_to_r(v):
    kw = {"alpha": v["alpha"]}
    for k in ("maha", "center", "cov"):
        if v[k] is not None:
            kw[k] = np.asarray(v[k], dtype=np.float64)
    return "mvTopCoding", (v["x"],), kw


def _mv_top_coding_from_r(out, values):
    x = values["x"]
    for c in x.columns:
        if c in out.columns and x[c].dtype != out[c].dtype and x[c].dtype.kind in "iuf":
            out[c] = out[c].astype(x[c].dtype)
    return out


# ---- microaggregation, mafast


def _value_text(values: np.ndarray) -> list[str]:
    return ["NA" if math.isnan(v) else f"{v:.17g}" for v in values.tolist()]


def _column_record(s: pd.Series) -> dict:
    """A column as generate_protect_microaggregation.R stores it: class, MD5 of its values, values (or a sample)."""
    v = _floats(s)
    text = _value_text(v)
    out = {"class": _r_class(s), "md5": hashlib.md5(("\n".join(text) + "\n").encode()).hexdigest(),
           "n_na": int(np.isnan(v).sum())}
    n = v.size
    if n <= 100:
        out["values"] = v.tolist()
    else:
        idx = np.unique(np.floor(np.linspace(1, n, 51) + 0.5).astype(np.int64))  # R's round(seq(...)): no .5 here
        out["rows"] = (idx - 1).tolist()
        out["values"] = v[idx - 1].tolist()
    return out


def _run_microaggregation(fn, a, data):
    kw = {k: (_nums(a[k]) if k == "aggr" else a[k]) for k in ("aggr", "strata_variables", "method", "measure",
                                                               "varsort", "trim", "nc", "clustermethod", "transf",
                                                               "weights")
          if k in a}  # weights: a column name (the R script passes its values)
    if "seed" in a:
        kw["random_state"] = int(a["seed"])
    variables = a.get("variables")
    res = fn(data, variables, **kw)
    variables = list(variables or data.columns)
    mx = res.mx
    out = {"method": res.method, "aggr": res.aggr, "measure": res.measure,
           "mx_columns": [str(c) for c in mx.columns], "n": len(mx),
           "mx": {v: _column_record(mx[v]) for v in variables}}
    if res.method == "mafast":
        out["fot"] = res.fot
    others = [c for c in mx.columns if c not in variables]
    if others:
        out["others_unchanged"] = _unchanged(data[others + [variables[0]]], mx[others + [variables[0]]],
                                              variables[0])
    return out


def _compare_columns(exp: dict, act: dict) -> list[str]:
    out = []
    for v, e in exp.items():
        a = act.get(v)
        if a is None:
            out.append(f"column {v!r} missing")
            continue
        if e["class"] != a["class"]:
            out.append(f"{v}: class {a['class']!r} instead of sdcMicro's {e['class']!r}")
        if e["md5"] != a["md5"]:
            ev, av = _na_list(e["values"]), a["values"]
            bad = [i for i, (x, y) in enumerate(zip(ev, av)) if not _close(x, y, tol=EXACT)]
            out.append(f"{v}: values differ from sdcMicro's (MD5 of all values; among the stored ones "
                       f"{len(bad)} differ, e.g. {[av[i] for i in bad[:2]]} instead of {[ev[i] for i in bad[:2]]})")
    return out


def _compare_microaggregation(exp, act):
    out = [f"{k}: {act.get(k)!r} instead of sdcMicro's {exp[k]!r}" for k in ("method", "measure", "mx_columns", "n")
           if exp[k] != act.get(k)]
    if float(exp["aggr"]) != float(act["aggr"]):
        out.append(f"aggr {act['aggr']} instead of {exp['aggr']}")
    if "fot" in exp and not _close(exp["fot"], act.get("fot")):
        out.append(f"fot {act.get('fot')} instead of sdcMicro's {exp['fot']}")
    if exp.get("others_unchanged") is not None and exp["others_unchanged"] != act.get("others_unchanged"):
        out.append("the other columns changed")
    return out + _compare_columns(exp["mx"], act["mx"])


def _microaggregation_to_r(v):
    if v.get("weights") is not None and v.get("weights_by") == "record":
        raise InvalidParameterError(
            "microaggregation: weights_by='record' is pysdc's (each record its own weight); sdcMicro weights by "
            "position in the sorted stratum: use pysdc.protect.microaggregation.")
    if v.get("missing_means", "sdcmicro") != "sdcmicro":
        raise InvalidParameterError(
            "microaggregation: missing_means='present' is pysdc's (rmd's group means of the present values); "
            "sdcMicro's rmd gives a group a missing mean where one record misses the variable: use "
            "pysdc.protect.microaggregation.")
    kw = {k: v[k] for k in ("variables", "aggr", "strata_variables", "method", "weights", "nc", "clustermethod",
                            "measure", "trim", "varsort", "transf") if v[k] is not None}
    return "microaggregation", (v["data"],), kw


def _microaggregation_from_r(out, values):
    fot = out.get("fot", 0.0)
    mx = out["mx"]
    if len(mx) == len(values["data"]):
        mx.index = values["data"].index  # R's row names 1..n
    return MicroaggregationResult(x=values["data"], mx=mx, method=str(out["method"]), aggr=int(out["aggr"]),
                                  measure=None if out.get("measure") is None else str(out["measure"]), fot=fot,
                                  groups=None)  # rmd: sdcMicro's list has no measure (NULL)


def _run_mafast(fn, a, data):
    kw = {k: (_nums(a[k]) if k == "aggr" else a[k]) for k in ("by", "aggr", "measure") if k in a}
    out = fn(data, a["variables"], **kw)
    variables = list(a["variables"])
    others = [c for c in data.columns if c not in variables]
    return {"columns": [str(c) for c in out.columns], "n": len(out),
            "mx": {v: _column_record(out[v]) for v in variables},
            "others_unchanged": _unchanged(data[others + [variables[0]]], out[others + [variables[0]]],
                                           variables[0])}


def _compare_mafast(exp, act):
    out = [f"{k}: {act.get(k)!r} instead of sdcMicro's {exp[k]!r}" for k in ("columns", "n", "others_unchanged")
           if exp[k] != act.get(k)]
    return out + _compare_columns(exp["mx"], act["mx"])


def _mafast_to_r(v):
    kw = {"variables": v["variables"], "aggr": v["aggr"], "measure": v["measure"]}  # the bridge passes R's function
    if v["by"] is not None:
        kw["by"] = v["by"]
    return "mafast", (v["data"],), kw


# ---- addNoise, pram (perturbation on R's stream)


def _compare_records(what: str, exp: dict, act: dict) -> list[str]:
    if exp["md5"] == act["md5"] and exp["n"] == act["n"]:
        return []
    bad = [i for i, (e, a) in enumerate(zip(exp["values"], act["values"])) if e != a]
    return [f"{what}: values differ from sdcMicro's (n {act['n']} vs {exp['n']}; among the stored ones "
            f"{len(bad)} differ, e.g. {[act['values'][i] for i in bad[:2]]} instead of "
            f"{[exp['values'][i] for i in bad[:2]]})"]


def _after(rr) -> str:
    return r_hex(rr.unif_rand())


def _run_add_noise(fn, a, data):
    kw = {k: a[k] for k in ("noise", "method", "delta", "p") if k in a}
    rr = RRandom(a["seed"])
    if fn is add_noise:
        res = fn(data, a.get("variables"), random_state=rr, **kw)
        after = _after(rr)
    else:  # the bridge: R's stream stays in R
        res = fn(data, a.get("variables"), random_state=a["seed"], **kw)
        after = None
    xm = res.xm

    def num(v):
        return "NA" if v is None or (isinstance(v, float) and math.isnan(v)) else v

    return {"method": res.method, "noise": num(res.noise), "p": num(res.p), "delta": num(res.delta),
            "columns": [str(c) for c in xm.columns],
            "xm": {str(c): values_record([r_hex(v) for v in _floats(xm[c]).tolist()]) for c in xm.columns},
            "after": after}


def _compare_add_noise(exp, act):
    out = [f"{k}: {act.get(k)!r} instead of sdcMicro's {exp[k]!r}" for k in ("method", "columns")
           if exp[k] != act.get(k)]
    for k in ("noise", "p", "delta"):
        e, a = exp[k], act.get(k)
        if (e == "NA") != (a == "NA") or (e != "NA" and float(e) != float(a)):
            out.append(f"{k}: {a!r} instead of sdcMicro's {e!r}")
    for c, e in exp["xm"].items():
        out += _compare_records(c, e, act["xm"].get(c, {"md5": "", "n": 0, "values": []}))
    if act.get("after") is not None and act["after"] != exp["after"]:
        out.append(f"the stream is left elsewhere than R leaves it (next runif {act['after']} instead of "
                   f"{exp['after']})")
    return out


def _add_noise_to_r(v):
    kw = {"noise": v["noise"], "method": v["method"], "p": v["p"], "delta": v["delta"]}
    if v["variables"] is not None:
        kw["variables"] = v["variables"]
    return "addNoise", (v["data"],), kw


def _add_noise_from_r(out, values):
    data = values["data"]
    variables = values["variables"] or list(data.columns)
    xm = out["xm"]
    xm = pd.DataFrame(np.asarray(xm, dtype=np.float64), columns=variables, index=data.index) \
        if not isinstance(xm, pd.DataFrame) else xm.set_axis(data.index, axis=0).set_axis(variables, axis=1)

    def num(k):
        v = out.get(k)
        v = np.asarray(v).ravel() if v is not None else np.array([np.nan])
        return float(v[0]) if v.size and not pd.isna(v[0]) else float("nan")

    return AddNoiseResult(x=data[variables].copy(), xm=xm.astype(np.float64), method=str(np.asarray(out["method"]).ravel()[0]),
                          noise=num("noise"), p=num("p"), delta=num("delta"))


def _pram_args(a, data):
    kw = {}
    if "strata_variables" in a:
        kw["strata_variables"] = a["strata_variables"]
    for k in ("pd", "alpha"):
        if k in a:
            kw[k] = a[k]
    if "pd_matrix" in a:
        levels = [str(c) for c in data[a["variables"][0]].cat.categories]
        kw["pd"] = pd.DataFrame(np.array(a["pd_matrix"], dtype=np.float64), index=levels, columns=levels)
    return kw


def _run_pram(fn, a, data):
    kw = _pram_args(a, data)
    if fn is pram:
        rr = RRandom(a["seed"])
        res = fn(data, a["variables"], random_state=rr, **kw)
        after = _after(rr)
    else:
        res = fn(data, a["variables"], random_state=a["seed"], **kw)
        after = None
    per = {}
    for i, v in enumerate(a["variables"]):
        codes = res.data[f"{v}_pram"].cat.codes.to_numpy()
        prm = res.params[v]
        rs = prm["Rs"].to_numpy(dtype=np.float64)
        srow = res.summary.iloc[i]
        per[v] = {"codes": values_record(["NA" if c < 0 else str(int(c) + 1) for c in codes.tolist()]),
                  "Rs": values_record([r_hex(x) for x in rs.ravel().tolist()]), "L": int(rs.shape[0]),
                  "pd": "matrix" if isinstance(prm["pd"], (pd.DataFrame, np.ndarray)) else prm["pd"],
                  "alpha": "NA" if math.isnan(prm["alpha"]) else prm["alpha"],
                  "nrChanges": int(srow["nrChanges"]), "percChanges": float(srow["percChanges"]),
                  "transitions": dict(zip(res.transitions[v]["transition"], res.transitions[v]["Frequency"].tolist()))}
    return {"columns": [str(c) for c in res.data.columns], "variables": per, "after": after}


def _compare_pram(exp, act):
    out = [] if exp["columns"] == act["columns"] else [f"columns {act['columns']} instead of {exp['columns']}"]
    for v, e in exp["variables"].items():
        a = act["variables"].get(v)
        if a is None:
            out.append(f"variable {v!r} missing")
            continue
        out += _compare_records(f"{v}_pram", e["codes"], a["codes"])
        out += _compare_records(f"{v}: Rs", e["Rs"], a["Rs"])
        for k in ("L", "pd", "alpha", "nrChanges", "transitions"):
            if e[k] != a[k]:
                out.append(f"{v}: {k} {a[k]!r} instead of sdcMicro's {e[k]!r}")
        if not _close(e["percChanges"], a["percChanges"]):
            out.append(f"{v}: percChanges {a['percChanges']} instead of {e['percChanges']}")
    if act.get("after") is not None and act["after"] != exp["after"]:
        out.append(f"the stream is left elsewhere than R leaves it ({act['after']} instead of {exp['after']})")
    return out


def _pram_from_r(out, values):
    data = out["data"]
    data.index = values["data"].index
    params, transitions = {}, {}
    summary = out["summary"]
    for v in values["variables"]:
        prm = out["params"][v]
        alpha = prm.get("alpha")
        params[v] = {"Rs": prm["Rs"], "pd": prm["pd"], "alpha": float("nan") if alpha is None else float(alpha)}
        transitions[v] = transitions_table(data[v].cat.codes.to_numpy().astype(np.int64),
                                           data[f"{v}_pram"].cat.codes.to_numpy().astype(np.int64))
    summary = pd.DataFrame({"variable": [str(x) for x in summary["variable"]],
                            "nrChanges": summary["nrChanges"].astype(np.int64).to_numpy(),
                            "percChanges": summary["percChanges"].astype(np.float64).to_numpy()})
    return PramResult(data=data, params=params, summary=summary, transitions=transitions)


def _pram_to_r(v):
    kw = {"variables": v["variables"], "pd": v["pd"], "alpha": v["alpha"]}
    if v["strata_variables"] is not None:
        kw["strata_variables"] = v["strata_variables"]
    if isinstance(kw["pd"], pd.DataFrame):
        kw["pd"] = kw["pd"].to_numpy(dtype=np.float64)  # the bridge sets the dimnames in R
    return "pram", (v["data"],), kw


# =============================================================================
# the entries

METHODS: tuple[Method, ...] = (
    Method(
        python="global_recode", r="globalRecode", family="recoding", native=global_recode,
        arguments={"data": "obj", "column": "column", "breaks": "breaks", "labels": "labels", "method": "method",
                   "random_state": None},
        defaults={"labels": None, "method": "equidistant"}, formals_of="globalRecodeWORK",
        notes="R's cut: right-closed intervals, labels with %.8g, include.lowest with a number of breaks; "
              "random_state is R's set.seed (only equalAmount's jitter draws).",
        r_seed="random_state", to_r=_global_recode_to_r, from_r=_as_int64_codes,
        run_case=_run_global_recode, compare_case=_compare_coded,
    ),
    Method(
        python="group_and_rename", r="groupAndRename", family="recoding", native=group_and_rename,
        arguments={"data": "obj", "var": "var", "before": "before", "after": "after", "add_na": "addNA"},
        defaults={"addNA": False}, formals_of="groupAndRename",
        notes="levels renamed in the factor's level order; equal names merge at the first.",
        to_r=_group_and_rename_to_r, run_case=_run_group_and_rename, compare_case=_compare_coded,
    ),
    Method(
        python="top_bot_coding", r="topBotCoding", family="recoding", native=top_bot_coding,
        arguments={"data": "obj", "column": "column", "value": "value", "replacement": "replacement",
                   "kind": "kind"},
        defaults={"kind": "top"}, formals_of="topBotCoding",
        notes="strictly above (below) value; sdcMicro bottom-codes for any kind other than 'top', pysdc "
              "accepts only 'top' and 'bottom'; column is required (R's default NULL fails on a data.frame).",
        to_r=_top_bot_coding_to_r, from_r=_top_bot_from_r,
        run_case=_run_top_bot_coding, compare_case=_compare_top_bot_coding,
    ),
    Method(
        python="mv_top_coding", r="mvTopCoding", family="recoding", native=mv_top_coding,
        arguments={"x": "x", "maha": "maha", "center": "center", "cov": "cov", "alpha": "alpha",
                   "random_state": None},
        defaults={"maha": None, "center": None, "cov": None, "alpha": 0.025}, formals_of="mvTopCoding",
        notes="robust distances from covMcd (random_state=s: R's set.seed(s)); cov is never used by "
              "sdcMicro; integer columns truncated.",
        r_seed="random_state", to_r=_mv_top_coding_to_r, from_r=_mv_top_coding_from_r,
        run_case=_run_mv_top_coding, compare_case=_compare_mv_top_coding,
    ),
    Method(
        python="microaggregation", r="microaggregation", family="microaggregation", native=microaggregation,
        arguments={"data": "obj", "variables": "variables", "aggr": "aggr", "strata_variables": "strata_variables",
                   "method": "method", "weights": "weights", "nc": "nc", "clustermethod": "clustermethod",
                   "measure": "measure", "trim": "trim", "varsort": "varsort", "transf": "transf",
                   "random_state": None, "weights_by": None, "missing_means": None},
        defaults={"variables": None, "aggr": 3, "strata_variables": None, "method": "mdav", "weights": None,
                  "nc": 8, "clustermethod": "clara", "measure": "mean", "trim": 0, "varsort": 1, "transf": "log"},
        formals_of="microaggregation", r_seed="random_state",
        notes="native: mdav (sdcMicro's single-precision distances and tie rule), simple, single, onedims, pca "
              "(measures mean, median, trim, onestep; sampling weights: weighted mean/median, by sdcMicro's "
              "position in the sorted stratum, with a warning; weights_by='record' each record's own), rmd "
              "(random_state=s: R's set.seed(s) before covMcd; missing values as sdcMicro, with a warning where its "
              "group means drop present values, missing_means='present' the means of the present values), one variable through mafast; "
              "ignored with a warning as sdcMicro ignores them silently: measure and weights by mdav and rmd, "
              "weights by trim, onestep and one variable. "
              "clustpca, clustpppca, clustmcdpca and influence: clusters from cluster::clara (its own sampling "
              "generator) or pam, missing values as R's cluster package (transf is computed by sdcMicro but never used); "
              "pppca: sdcMicro's "
              "projection-pursuit prcompRob; mcdpca/clustmcdpca: MASS's cov.mcd (random_state=s: R's set.seed(s)). "
              "kmeans clustering as R's stats::kmeans (Hartigan-Wong on R's stream, random_state=s: set.seed(s)); "
              "bclust clustering through the bridge only. "
              "The returned list (x, mx, method, aggr, measure; fot for one variable) is a MicroaggregationResult.",
        to_r=_microaggregation_to_r, from_r=_microaggregation_from_r,
        run_case=_run_microaggregation, compare_case=_compare_microaggregation,
        outputs={"microaggregation_more": "methods pca, rmd, influence, clustpca (generate_protect_microaggregation2.R)",
                 "microaggregation_clust": "clustering methods clustpca, influence, clustpppca, clustmcdpca with "
                                           "clara/pam, pppca, mcdpca, missing values "
                                           "(generate_protect_microaggregation_clust.R)",
                 "microaggregation_measures": "aggregation measures onestep, trim, median and sampling weights "
                                              "(generate_protect_microaggregation_measures.R)",
                 "microaggregation_clara": "clara's empty medoid with missing values: sdcMicro stops, pysdc refuses "
                                           "(generate_protect_microaggregation_clara.R)"},
    ),
    Method(
        python="mafast", r="mafast", family="microaggregation", native=mafast,
        arguments={"data": "obj", "variables": "variables", "by": "by", "aggr": "aggr", "measure": "measure"},
        defaults={"by": None, "aggr": 3}, formals_of="mafast",
        notes="each variable on its own, groups by rank within strata; measure is an R function in sdcMicro "
              "(pysdc: 'mean' or 'median'); variables is required (sdcMicro's NULL fails on a data.frame).",
        to_r=_mafast_to_r, run_case=_run_mafast, compare_case=_compare_mafast,
    ),
    Method(
        python="add_noise", r="addNoise", family="perturbation", native=add_noise,
        arguments={"data": "obj", "variables": "variables", "noise": "noise", "method": "method", "p": "p",
                   "delta": "delta", "restr_shift": None, "random_state": None},
        defaults={"variables": None, "noise": 150, "method": "additive", "p": 0.001, "delta": 0.1},
        formals_of="addNoiseWORK",
        notes="random_state=s is R's set.seed(s): R's rnorm (inversion) and MASS's mvrnorm on R's stream, the "
              "same noise; every method native: additive, correlated, correlated2, restr (sdcMicro's "
              "column-major shifts; restr_shift='column' for each column's own), outdect, ROMM (up to 2000 "
              "records). The returned list (x, xm, method, noise, p, delta) is an AddNoiseResult.",
        r_seed="random_state", to_r=_add_noise_to_r, from_r=_add_noise_from_r,
        run_case=_run_add_noise, compare_case=_compare_add_noise,
    ),
    Method(
        python="pram", r="pram", family="perturbation", native=pram,
        arguments={"data": "obj", "variables": "variables", "strata_variables": "strata_variables", "pd": "pd",
                   "alpha": "alpha", "random_state": None},
        defaults={"variables": None, "strata_variables": None, "pd": 0.8, "alpha": 0.5}, formals_of="pram",
        notes="random_state=s is R's set.seed(s): the invariant matrix from runif(L, pd, 1) and R's sample with "
              "probabilities, the same draws; variables is required (sdcMicro's NULL stops on a data.frame). The "
              "data with <variable>_pram columns, the matrices and the summary are a PramResult.",
        r_seed="random_state", to_r=_pram_to_r, from_r=_pram_from_r, run_case=_run_pram,
        compare_case=_compare_pram,
    ),
    Method(
        python="shuffle", r="shuffle", family="perturbation", native=shuffle,
        arguments={"data": "obj", "form": "form", "method": "method", "weights": "weights",
                   "covmethod": "covmethod", "regmethod": "regmethod", "gadp": "gadp", "random_state": None},
        defaults={"method": "ds", "weights": None, "covmethod": "spearman", "regmethod": "lm", "gadp": True},
        formals_of="shuffle",
        notes="random_state=s is R's set.seed(s): the same shuffled values (mvrnorm on R's stream; EGADP draws "
              "after them); form is formula text; native: methods ds, mvn, ds2 and ds_cov (mlm stops as in "
              "sdcMicro 5.8.0: its predict fails on every input) with covmethod spearman/pearson and regmethod lm "
              "or MM (MASS's rlm from its S-estimate lqs, whose random subsets are drawn from R's stream as MASS "
              "draws them); covmethod mcd (pysdc's covMcd matches robustbase to rounding, not to the bit, and the "
              "shuffle can hinge on those bits) through the bridge only. Missing values are "
              "imputed from the stream first, as sdcMicro. The returned list (shuffled, perturbed, egapd) is a "
              "ShuffleResult.",
        r_seed="random_state", to_r=shuffle_to_r, from_r=shuffle_from_r, run_case=run_shuffle,
        compare_case=compare_shuffle,
        outputs={"shuffle_more": "methods mvn, ds2, ds_cov, mlm; covmethod mcd (bridge only) and regmethod MM "
                                 "(generate_protect_shuffle2.R)",
                 "shuffle_mm": "regmethod MM: MASS's rlm from its S-estimate (generate_protect_shuffle_mm.R)"},
    ),
    Method(
        python="local_suppression", r="localSuppression", family="suppression", native=local_suppression,
        arguments={"data": "obj", "key_vars": "keyVars", "k": "k", "importance": "importance", "combs": "combs",
                   "strata_vars": "strataVars", "alpha": "alpha", "combs_importance": None},
        defaults={"k": 2, "importance": None, "combs": None}, formals_of="localSuppression",
        notes="the data.frame method (an sdcMicroObj's: its manipKeyVars, strataVar and alpha option); "
              "sdcMicro's heuristic and tie rule, the same cells suppressed; text keys must be categorical "
              "(sdcMicro reads them as numbers); the returned list is a LocalSuppressionResult (data with all "
              "columns, supps, totalSupps, newSupps, importance).",
        to_r=local_suppression_to_r, from_r=local_suppression_from_r,
        run_case=run_local_suppression, compare_case=compare_local_suppression,
    ),
    Method(
        python="local_supp", r="localSupp", family="suppression", native=local_supp,
        arguments={"data": "x", "key_vars": None, "key_var": "keyVar", "risk": "rk", "threshold": "threshold"},
        defaults={"threshold": 0.15}, formals_of="localSupp",
        notes="risk strictly above threshold; on an sdcMicroObj sdcMicro takes risk$individual[, 1] "
              "(measure_risk's individual risk); the bridge calls sdcMicro's worker localSuppWORK with the "
              "given risks; importance is a random permutation in sdcMicro (sample), None in pysdc.",
        to_r=local_supp_to_r, from_r=local_supp_from_r, run_case=run_local_supp, compare_case=compare_local_supp,
    ),
    Method(
        python="record_swap", r="recordSwap", family="swapping", native=record_swap,
        arguments={"data": "data", "hid": "hid", "hierarchy": "hierarchy", "similar": "similar",
                   "swaprate": "swaprate", "risk": "risk", "risk_threshold": "risk_threshold",
                   "k_anonymity": "k_anonymity", "risk_variables": "risk_variables", "carry_along": "carry_along",
                   "return_swapped_id": "return_swapped_id", "seed": "seed"},
        defaults={"swaprate": 0.05, "risk": None, "risk_threshold": 0, "k_anonymity": 3, "risk_variables": None,
                  "carry_along": None, "return_swapped_id": False, "seed": None},
        formals_of="recordSwap.default",
        notes="seed is sdcMicro's own (its C++ std::mt19937), not set.seed; natively it seeds pysdc's generator, "
              "so the households swapped differ from sdcMicro's for the same seed (listed divergence); the "
              "number swapped, the hierarchy, similarity and risk rules are sdcMicro's. The bridge writes "
              "sdcMicro's log file to the temporary directory.",
        to_r=record_swap_to_r, from_r=record_swap_from_r, run_case=run_record_swap, compare_case=compare_record_swap,
    ),
    Method(
        python="rank_swap", r="rankSwap", family="perturbation", native=rank_swap,
        arguments={"data": "obj", "variables": "variables", "top_percent": "TopPercent",
                   "bottom_percent": "BottomPercent", "p": "P", "r0": "R0", "seed": "seed"},
        defaults={"variables": None, "TopPercent": 5, "BottomPercent": 5, "P": None, "R0": None, "seed": None},
        formals_of="rankSwap",
        notes="seed is sdcMicro's own (its C++ generator, taus88; the clock when None), not set.seed; natively "
              "pysdc reproduces that generator and the algorithm: the same swaps for the same int seed (None or a "
              "numpy Generator: no sdcMicro run corresponds, listed divergence rankSwap:*). p is percent of the "
              "records as documented; sdcMicro 5.8.0 reads P as a fraction, so the bridge passes P = p / 100 (the "
              "same range). A top/bottom percent that leaves one extreme group empty but not the other (sdcMicro's "
              "single-precision count) makes sdcMicro's C++ index outside its table (R aborted in the cases "
              "observed): the bridge refuses, natively pysdc warns. K0 is not offered.",
        to_r=rank_swap_to_r, from_r=rank_swap_from_r, run_case=run_rank_swap, compare_case=compare_rank_swap,
        r_convert={"p": rank_swap_r_p},
    ),
)

# the problem-step roles of each method (pysdc/_registry/_method_roles.py)
METHODS = tuple(replace(m, roles=ROLES.get(m.python)) for m in METHODS)
_BY_PY = {m.python: m for m in METHODS}
_BY_R = {m.r: m for m in METHODS}

#: sdcMicro's other names of a method, as problem steps: the same function, arguments and result under another name,
#: recorded under it (the step's R call) and replayed by it (``pysdc.r.SdcObj.from_problem``). sdcMicro 5.8.0's
#: ``kAnon(obj, k, importance, combs, ...)`` is ``localSuppression`` under the name of its goal (its Rd: an alias
#: of localSuppression's; its body calls localSuppression with its arguments; observed: the same object)
STEP_ALIASES: dict[str, Method] = {
    "k_anon": replace(_BY_PY["local_suppression"], python="k_anon", r="kAnon", bridge=False,
                      notes="sdcMicro's kAnon: localSuppression under the name of its goal, k-anonymity (the same "
                            "arguments and result); a problem step (SdcProblem.k_anon) recorded as kAnon; natively "
                            "pysdc.protect.local_suppression on the data"),
}


def method_by_python_name(name: str) -> Method:
    """The entry of ``pysdc.protect.<name>`` (or of a step alias, :data:`STEP_ALIASES`)."""
    return _BY_PY[name] if name in _BY_PY else STEP_ALIASES[name]


def method_by_r_name(name: str) -> Method:
    """The entry of sdcMicro's ``<name>``."""
    return _BY_R[name]
