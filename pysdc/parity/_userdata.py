"""Native pysdc against sdcMicro (through the R bridge) on a user's own data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import PysdcError
from .._tolerances import tolerance_for
from .._types import numeric_columns
from ._check import compare_arrays

__all__ = ["compare_on_data"]


def _checks(data: pd.DataFrame, masked: pd.DataFrame | None, keys, weight, hid) -> list:
    """(label, pysdc name, call on an implementation, fields of its result)."""
    checks = []
    if keys:
        kw = {"w": weight}
        checks.append(("freqCalc", "freq_calc", lambda m: m.freq_calc(data, keys, **kw),
                       lambda r: {"fk": r.fk, "Fk": r.Fk, "n1": r.n1, "n2": r.n2}))
        checks.append(("measure_risk", "measure_risk", lambda m: m.measure_risk(data, keys, hid=hid, **kw),
                       lambda r: {"global_risk_ER": r.global_risk_er, "global_risk": r.global_risk,
                                  "global_threshold": r.global_threshold, "hier_risk_ER": r.hier_risk_er,
                                  **{f"Res.{c}": r.individual[c].to_numpy(dtype=float) for c in r.individual.columns}}))
        checks.append(("indivRisk", "indiv_risk", lambda m: m.indiv_risk(m.freq_calc(data, keys, **kw)),
                       lambda r: {"rk": r.rk}))
    if masked is not None:
        num = numeric_columns(data, masked)
        for meth in ("IL1", "IL1s", "eigen"):
            checks.append((f"dUtility {meth}", "d_utility",
                           lambda m, meth=meth: m.d_utility(data[num], masked[num], method=meth),
                           lambda r: {"value": float(r.value)}))
        checks.append(("IL_correl", "il_correl", lambda m: m.il_correl(data, masked), lambda r: {"value": r.value}))
        checks.append(("IL_variables", "il_variables", lambda m: m.il_variables(data, masked),
                       lambda r: {"value": r.value, **{f"per_variable.{k}": v for k, v in r.per_variable.items()}}))
    return checks


def compare_on_data(native, bridge, data, masked=None, keys=None, weight=None, hid=None):
    """Run every applicable measure natively and through the bridge; compare field by field.

    Returns ``(rows, refusals, ok)``: one row per field (measure, field, pysdc value, sdcMicro
    value, max abs diff, max rel diff, agrees), the refusals with each side's reason, and
    whether everything agrees (both refusing counts as agreeing).
    """
    rows, refusals, ok_all = [], [], True
    for label, pyname, call, fields in _checks(data, masked, keys, weight, hid):
        res = {}
        for side, impl in (("pysdc", native), ("sdcMicro", bridge)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    res[side] = fields(call(impl))
                except PysdcError as exc:
                    res[side] = exc
        failed = {s: isinstance(v, Exception) for s, v in res.items()}
        if any(failed.values()):
            same = all(failed.values())
            rows.append({"measure": label, "field": "(error)",
                         "pysdc": "refused" if failed["pysdc"] else "result",
                         "sdcMicro": "refused" if failed["sdcMicro"] else "result",
                         "max_abs": None, "max_rel": None, "ok": same})
            ok_all &= same
            refusals += [(label, s, str(res[s])) for s in ("pysdc", "sdcMicro") if failed[s]]
            continue
        for fld, e in res["sdcMicro"].items():
            a = res["pysdc"].get(fld)
            tol = tolerance_for(pyname, label.split()[1] if label.startswith("dUtility") else fld.split(".")[-1])
            d = compare_arrays(fld, tol, np.nan if e is None else e, np.nan if a is None else a)
            rows.append({"measure": label, "field": fld, "pysdc": np.nan if a is None else a,
                         "sdcMicro": np.nan if e is None else e, "max_abs": d.max_abs, "max_rel": d.max_rel,
                         "ok": d.ok})
            ok_all &= d.ok
    return rows, refusals, ok_all
