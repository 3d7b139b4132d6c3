"""Running one random data set through pysdc and sdcMicro (the differential tester's runner).

For every registry measure with an sdcMicro counterpart, the entry's own parity hooks are reused:
``run_case`` calls the native function and the bridge's (``pysdc.r.<same name>``) with the same R
arguments, the bridge's fields are put in the form the stored corpus keeps sdcMicro's results in,
and the entry's ``compare_case`` compares them at the tolerances of :mod:`pysdc._tolerances` --
the comparison the stored parity uses. The problem object (:class:`pysdc.SdcProblem`) is compared
with sdcMicro's ``createSdcObj`` (:class:`pysdc.r.SdcObj`): its risk slot, ``suda2(sdc)``,
``ldiversity(sdc)`` and ``kAnon_violations(sdc, ...)``.

A failure on one side only is a mismatch; both sides refusing is agreement.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

import pysdc
import pysdc.r

from .._registry import by_r_name
from .._tolerances import Tolerance, tolerance_for
from ..core.dutility import CELLWISE_METHODS
from ..problem import K_ANON_KS
from ._check import Comparer, compare_arrays
from ._corpus import divergence_for
from ._fuzz_data import FuzzData

__all__ = ["FuzzOutcome", "variants", "run_dataset", "COVMCD_MAX_N"]

#: robeigen and dRiskRMD (covMcd on both sides) run only up to this many records (they are slow)
COVMCD_MAX_N = 20_000
#: indivRisk's exact method only where the sum of fk^2 over the records stays below this (sdcMicro's
#: series is an R double loop of fk^2 steps per record; above it the data set gets method "approx")
EXACT_MAX_WORK = 2e6


@dataclass
class FuzzOutcome:
    """One measure call on one data set: ``status`` is agree, mismatch, explained or both-refused."""

    seed: int
    measure: str  # sdcMicro's name, or "createSdcObj:<part>"
    variant: str
    args: dict
    status: str
    detail: str = ""
    field: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    reason: str = ""
    tags: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    @property
    def case_id(self) -> str:
        return f"fuzz:{self.measure}:{self.variant}:{','.join(self.tags)}:{self.seed}"


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(e) for e in v]
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return v.item()
    return v


# =============================================================================
# the bridge's fields in the form the corpus stores sdcMicro's


def _as_list(v):
    return [None if (isinstance(e, float) and math.isnan(e)) else e for e in np.asarray(v, dtype=float).tolist()]


def _exp_suda2(act: dict, args: dict) -> dict:
    keys = list(args["variables"])
    return {
        "variables": keys,
        "rowwise": {k: _as_list(act[k]) for k in ("score", "disScore", *keys)},
        "attribute_contributions": {"variable": list(act["ac_variable"]),
                                    "contribution": _as_list(act["ac_contribution"])},
        "attribute_level_contributions": {"variable": list(act["alc_variable"]),
                                          "attribute": list(act["alc_attribute"]),
                                          "contribution": _as_list(act["alc_contribution"])},
    }


def _exp_mod_risk(act: dict, args: dict) -> dict:
    out = {k: act[k] for k in ("gr1", "gr2", "gr1perc", "gr2perc", "method")}
    for name in ("fitted", "inclProb"):
        v = np.asarray(act[name], dtype=float)
        out[name] = {"n": int(v.size), "rows": list(range(v.size)), "values": v, "sum": float(np.sum(v))}
    return out


def _exp_d_risk_rmd(act: dict, args: dict) -> dict:
    bs = {"risk1": act["risk1"], "risk2": act["risk2"], "wrisk1": act["wrisk1"], "wrisk2": act["wrisk2"],
          "indexRisk1": (np.asarray(act["index_risk1"]) + 1).tolist(),
          "indexRisk2": (np.asarray(act["index_risk2"]) + 1).tolist(),
          "riskvec1": np.asarray(act["riskvec1"], dtype=float), "riskvec2": np.asarray(act["riskvec2"], dtype=float)}
    return {"by_seed": [bs]}


#: sdcMicro's name -> bridge fields to "expected" (default: the same dict)
_TO_EXPECTED = {"suda2": _exp_suda2, "modRisk": _exp_mod_risk, "dRiskRMD": _exp_d_risk_rmd}


# =============================================================================
# which calls a data set gets


def variants(ds: FuzzData, rng: np.random.Generator) -> list:
    """(sdcMicro name, variant label, R arguments, input names) for the data set."""
    keys, w, hid = ds.keys, ds.w, ds.hid
    out = [("freqCalc", "w" if w else "unweighted", {"keyVars": keys, "w": w, "alpha": 1}, "data")]
    method = str(rng.choice(["approx", "exact"]))
    out.append(("indivRisk", method, {"keyVars": keys, "w": w, "method": method, "qual": 1, "survey": True},
                "data"))
    alpha = float(rng.choice([1.0, 1.0, 0.5]))
    out.append(("measure_risk", f"alpha{alpha:g}" + ("+hid" if hid else ""),
                {"keyVars": keys, "w": w, "hid": hid, "max_global_risk": 0.01, "fast_hier": True, "alpha": alpha},
                "data"))
    if ds.sensitive:
        out.append(("ldiversity", "l2", {"keyVars": keys, "ldiv_index": [ds.sensitive], "l_recurs_c": 2}, "data"))
    frac = float(rng.choice([0.01, 0.1]))
    out.append(("suda2", f"dis{frac:g}", {"variables": keys, "DisFraction": frac}, "data"))
    # the numbers alone (scores, contributions), without the registry hook's level labels
    out.append(("suda2", f"dis{frac:g}/numbers", {"variables": keys, "DisFraction": frac}, "data"))
    k = int(rng.choice([2, 3, 5]))
    weighted = bool(w) and bool(rng.random() < 0.5)
    out.append(("kAnon_violations", f"k{k}" + ("-weighted" if weighted else ""),
                {"keyVars": keys, "k": k, "weighted": weighted, "weightVar": w}, "data"))
    if w:
        m = str(rng.choice(["default", "CE", "PML", "weightedLLM", "IPF"]))
        nk = min(len(keys), int(rng.integers(2, 4)))
        formula = "~ " + " + ".join(keys[:nk])
        out.append(("modRisk", m, {"formulaM": formula, "method": m, "weights": w, "bound": math.inf}, "data"))
    for meth in (str(rng.choice(list(CELLWISE_METHODS))), "eigen"):  # one of the sums (2,000 data sets cover both)
        out.append(("dUtility", meth, {"method": meth}, "x"))
    covmcd = ds.n <= COVMCD_MAX_N and (rng.random() < 0.1 or any(abs(ds.n - t) <= 3 for t in (600, 1500, 5000)))
    if covmcd:
        out.append(("dUtility", "robeigen", {"method": "robeigen"}, "x"))
    out.append(("IL_correl", "", {}, "x"))
    out.append(("IL_variables", "", {}, "x"))
    out.append(("dRisk", "", {"k": float(rng.choice([0.01, 0.05, 0.1]))}, "x"))
    if covmcd:
        out.append(("dRiskRMD", "seed1", {"k": 0.01, "k2": 0.05}, "x"))
    return out


def _call(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as exc:  # noqa: BLE001 - every failure is part of the comparison
            return None, exc


def _worst(diffs) -> tuple:
    bad = [d for d in diffs if not d.ok]
    if not bad:
        return "", 0.0, 0.0, ""
    worst = max(bad, key=lambda d: (d.max_rel if np.isfinite(d.max_rel) else 1e308, d.max_abs))
    detail = "; ".join(d.detail or f"{d.field}: max abs {d.max_abs:.3g}, max rel {d.max_rel:.3g}" for d in bad[:4])
    return worst.field, float(worst.max_abs), float(worst.max_rel), detail


def _err(exc) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _outcome(ds, measure, variant, args, native, bridge, diffs_fn, divergences, t0) -> FuzzOutcome:
    (a, ea), (b, eb) = native, bridge
    o = FuzzOutcome(ds.seed, measure, variant, {k: _jsonable(v) for k, v in args.items()}, "agree",
                    tags=list(ds.tags))
    if ea is not None and eb is not None:
        o.status, o.detail = "both-refused", f"pysdc {_err(ea)} | sdcMicro {_err(eb)}"
    elif ea is not None or eb is not None:
        o.status = "mismatch"
        o.field = "(error)"
        o.max_abs = o.max_rel = math.inf
        o.detail = (f"pysdc refused ({_err(ea)}), sdcMicro returned a result" if ea is not None
                    else f"sdcMicro refused ({_err(eb)}), pysdc returned a result")
    else:
        try:
            diffs = diffs_fn(a, b)
        except Exception as exc:  # noqa: BLE001 - a comparison that cannot be made is a mismatch
            diffs = None
            o.status, o.field, o.detail = "mismatch", "(compare)", f"results not comparable: {_err(exc)}"
            o.max_abs = o.max_rel = math.inf
        if diffs is not None:
            o.field, o.max_abs, o.max_rel, o.detail = _worst(diffs)
            if o.field:
                o.status = "mismatch"
    if o.status == "mismatch":
        # an entry about differing numbers does not explain a refusal on one side, nor the reverse
        refused = o.field == "(error)"
        div = divergence_for(o.case_id, [d for d in divergences if bool(d.get("refusal")) == refused], "fuzz")
        if div is not None:
            o.status, o.reason = "explained", div["reason"]
    o.seconds = time.perf_counter() - t0
    return o


def _suda2_numbers(fn, data, args) -> dict:
    r = fn(data, list(args["variables"]), dis_fraction=args["DisFraction"])
    ac = r.attribute_contributions
    return {"score": np.asarray(r.score, dtype=float), "dis_score": np.asarray(r.dis_score, dtype=float),
            **{f"contribution_percent.{k}": r.contribution_percent[k].to_numpy(dtype=float)
               for k in args["variables"]},
            "attribute_contributions": dict(zip((str(v) for v in ac["variable"]),
                                                ac["contribution"].to_numpy(dtype=float)))}


def _suda2_numbers_diffs(a: dict, b: dict) -> list:
    c: list = []
    for k, e in b.items():
        if k == "attribute_contributions":
            names = sorted(e)
            if sorted(a[k]) != names:
                c.append(compare_arrays(k, tolerance_for("suda2", k), np.array([0.0]), np.array([np.nan])))
                continue
            e, got = np.array([e[n] for n in names]), np.array([a[k][n] for n in names])
        else:
            got = a[k]
        c.append(compare_arrays(k, tolerance_for("suda2", k.split(".")[0]), e, got))
    return c


def _run_measure(ds, spec, native_mod, bridge_mod, divergences) -> FuzzOutcome:
    r_name, variant, args, kind = spec
    if r_name == "suda2" and variant.endswith("/numbers"):
        t0 = time.perf_counter()
        native = _call(lambda: _suda2_numbers(native_mod.suda2, ds.data, args))
        bridge = _call(lambda: _suda2_numbers(bridge_mod.suda2, ds.data, args))
        return _outcome(ds, r_name, variant, args, native, bridge, _suda2_numbers_diffs, divergences, t0)
    entry = by_r_name(r_name)
    inputs = {"data": ds.data} if kind == "data" else {"x": ds.x, "xm": ds.xm}
    expected_in = None
    if r_name == "indivRisk":  # both sides get the same frequencies (the bridge rebuilds a freqCalc object)
        f, exc = _call(lambda: native_mod.freq_calc(ds.data, list(args["keyVars"]), w=args["w"], alpha=1))
        if exc is None:
            fk = np.asarray(f.fk, dtype=float)
            expected_in = {"fk_in": fk.tolist(), "Fk_in": np.asarray(f.Fk, dtype=float).tolist()}
            if args["method"] == "exact" and float(np.sum(np.square(fk))) > EXACT_MAX_WORK:
                # sdcMicro's exact series is a double loop in R, O(fk^2) per record: minutes here
                args, variant = {**args, "method": "approx"}, "approx"
    t0 = time.perf_counter()
    native = _call(lambda: entry.run_case(getattr(native_mod, entry.python), args, inputs, expected_in))
    bridge = _call(lambda: entry.run_case(getattr(bridge_mod, entry.python), args, inputs, expected_in))

    def diffs(a, b):
        exp = _TO_EXPECTED.get(r_name, lambda act, args: act)(b, args)
        c = Comparer(entry.python, rows_given=bool(a.get("__rows_given__")))
        entry.compare_case(c, exp, a, args, "fuzz")
        return c.diffs

    return _outcome(ds, r_name, variant, args, native, bridge, diffs, divergences, t0)


# =============================================================================
# the problem object against createSdcObj


def _values(c: list, fname: str, pyname: str, expected, actual, tol: Tolerance | None = None) -> None:
    e = np.nan if expected is None else expected
    a = np.nan if actual is None else actual
    c.append(compare_arrays(fname, tol or tolerance_for(pyname, fname.split(".")[-1]), np.asarray(e, dtype=float),
                            np.asarray(a, dtype=float)))


def _problem(ds: FuzzData, native_mod, bridge_mod, divergences) -> list:
    """SdcProblem(...).risk() against createSdcObj's risk slot, suda2(sdc), ldiversity(sdc), kAnon_violations."""
    data = ds.data.join(ds.x)
    spec = {"num_vars": list(ds.x.columns), "w": ds.w, "hid": ds.hid,
            "sensitive": [ds.sensitive] if ds.sensitive else []}
    args = {"keyVars": ds.keys, "numVars": spec["num_vars"], "weightVar": ds.w, "hhId": ds.hid,
            "sensibleVar": spec["sensitive"]}
    prob, eprob = _call(lambda: native_mod.SdcProblem(data, ds.keys, **spec).risk())
    sdc, esdc = _call(lambda: bridge_mod.SdcObj.create(data, ds.keys, **spec))
    outs = []

    def part(name, native_fn, bridge_fn, diffs_fn):
        t0 = time.perf_counter()
        a = (None, eprob) if eprob is not None else _call(native_fn)
        b = (None, esdc) if esdc is not None else _call(bridge_fn)
        outs.append(_outcome(ds, f"createSdcObj:{name}", "", args, a, b, diffs_fn, divergences, t0))

    def risk_diffs(mr, risk):
        c: list = []
        g = risk["global"]
        for f, rf in (("global_risk", "risk"), ("global_risk_er", "risk_ER"), ("global_risk_pct", "risk_pct"),
                      ("global_threshold", "threshold")):
            _values(c, f"global.{rf}", "measure_risk", g.get(rf), getattr(mr, f))
        if ds.hid:
            for f, rf in (("hier_risk_er", "hier_risk_ER"), ("hier_risk", "hier_risk"), ("hier_risk_pct", "hier_risk_pct")):
                _values(c, f"global.{rf}", "measure_risk", g.get(rf), getattr(mr, f))
        ind = risk["individual"]
        for col in ind.columns:
            if col not in mr.individual.columns:
                c.append(compare_arrays(f"individual.{col}", tolerance_for("measure_risk", col), np.array([0.0]),
                                        np.array([np.nan])))
                continue
            _values(c, f"individual.{col}", "measure_risk", ind[col].to_numpy(dtype=float),
                    mr.individual[col].to_numpy(dtype=float))
        return c

    part("measure_risk", lambda: prob.measure_risk, lambda: sdc.risk, risk_diffs)

    def suda_native():
        if prob.suda2 is None:
            raise RuntimeError(f"pysdc skipped suda2: {prob.skipped.get('suda2')}")
        return prob.suda2

    def suda_diffs(s, rs):
        c: list = []
        _values(c, "score", "suda2", np.asarray(rs["score"], dtype=float), s.score)
        _values(c, "disScore", "suda2", np.asarray(rs["disScore"], dtype=float), s.dis_score)
        return c

    part("suda2", suda_native,
         lambda: bridge_mod.SdcObj(bridge_mod.call("suda2", sdc, as_robject=True)).risk["suda2"], suda_diffs)
    if ds.sensitive:
        def ldiv_native():
            if prob.ldiversity is None:
                raise RuntimeError(f"pysdc skipped ldiversity: {prob.skipped.get('ldiversity')}")
            return prob.ldiversity.table

        def ldiv_diffs(t, rt):
            c: list = []
            rt = rt if isinstance(rt, pd.DataFrame) else pd.DataFrame(np.asarray(rt))
            if [str(x) for x in t.columns] != [str(x) for x in rt.columns]:
                c.append(compare_arrays("columns", tolerance_for("ldiversity", "columns"), np.array([0.0]),
                                        np.array([np.nan])))
                c[-1].detail = f"columns {list(t.columns)} instead of sdcMicro's {list(rt.columns)}"
                return c
            for col in rt.columns:
                _values(c, str(col), "ldiversity", rt[col].to_numpy(dtype=float), t[col].to_numpy(dtype=float))
            return c

        part("ldiversity", ldiv_native,
             lambda: bridge_mod.SdcObj(bridge_mod.call("ldiversity", sdc, as_robject=True)).risk["ldiversity"],
             ldiv_diffs)

    def kanon_native():
        return prob.k_anonymity

    kk = int(np.random.default_rng([ds.seed, 2]).choice(K_ANON_KS))  # one of the problem's k (R calls are slow)

    def kanon_bridge():
        got = {"unweighted": int(bridge_mod.call("kAnon_violations", sdc, weighted=False, k=kk))}
        if ds.w:
            got["weighted"] = int(bridge_mod.call("kAnon_violations", sdc, weighted=True, k=kk))
        return got

    def kanon_diffs(t, got):
        c: list = []
        for col, val in got.items():
            _values(c, f"k_anonymity.{col}[k={kk}]", "k_anon_violations", np.asarray([val], dtype=float),
                    np.asarray([t.loc[kk, col]], dtype=float), Tolerance(0.0, 0.0, "counts are compared exactly"))
        return c

    part("kAnon_violations", kanon_native, kanon_bridge, kanon_diffs)
    return outs


def run_dataset(ds: FuzzData, divergences=(), *, native_mod=None, bridge_mod=None, problem: bool = True,
                measures=None) -> list:
    """Every comparison on one data set (or those of ``measures``, sdcMicro names): a list of :class:`FuzzOutcome`."""
    if native_mod is None:
        native_mod = pysdc
    if bridge_mod is None:
        bridge_mod = pysdc.r
    rng = np.random.default_rng([ds.seed, 1])  # the variants' own stream: the data set stays seed-only
    outs = [_run_measure(ds, spec, native_mod, bridge_mod, divergences) for spec in variants(ds, rng)
            if measures is None or spec[0] in measures]
    if problem:
        outs += _problem(ds, native_mod, bridge_mod, divergences)
    return outs
