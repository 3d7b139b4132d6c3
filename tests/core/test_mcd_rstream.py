"""pysdc's MCD on R's random stream against robustbase and sdcMicro, seed by seed.

With ``random_state=s`` (an int) ``cov_mcd``, ``d_utility(method="robeigen")`` and ``d_risk_rmd``
reproduce R's ``set.seed(s)`` followed by robustbase's ``covMcd`` / sdcMicro's call:

* ``r_reference/outputs/covMcd.json`` (``generate_covMcd.R``): covMcd's raw and final estimates, best
  subset, criterion, weights, exact-fit kind and R's stream position after the call (and after a second
  call on the same stream), for inputs covering the whole-data, split-data, enumerated, tied and
  exact-fit branches of FAST-MCD;
* the stored sdcMicro corpus (``dUtility.json``'s robeigen values and ``dRiskRMD.json``'s results, both
  for set.seed(1..10)), compared to rtol 1e-12 (``pysdc/_tolerances.py``).
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._tolerances import CLOSED_FORM, tolerance_for
from pysdc.core.distance import r_scale
from pysdc.core.mcd import cov_mcd
from pysdc.core.mcd.arith import _seq_sum, _sscp_cov
from pysdc.core.rrandom import RRandom
from pysdc.parity._corpus import case_inputs, divergence_for, load_corpus, load_divergences, load_input, reference_dir

ROOT = reference_dir()
COVMCD = json.loads((ROOT / "outputs" / "covMcd.json").read_text())["cases"]
DIVERGENCES = load_divergences(ROOT)


def _num(v):
    if isinstance(v, list):
        return np.array([_num(x) for x in v], dtype=np.float64)
    return {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v, v) if isinstance(v, str) \
        else float(v)


def _scaled_input(case) -> np.ndarray:
    if case.get("x"):  # a hand-made input stored with the case (data.matrix: logical -> 0/1)
        return r_scale(np.column_stack([_num(v) for v in case["x"].values()]))
    d = load_input(ROOT, case["input"])
    if case.get("columns"):
        d = d[list(case["columns"])]
    X = d.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)  # data.matrix: logical -> 0/1
    return r_scale(X)


def _state(rr: RRandom) -> dict:
    s = rr.random_seed
    return {"mti": int(s[1]), "first": int(s[2]), "last": int(s[-1])}


def _close(got, exp, what, unit=0.0):
    """rtol 1e-12; absolutely 1e-14 of the largest element (or of ``unit``: the data are scaled to sd 1,
    so a centre near 0 is rounding noise of order 1e-17)."""
    got, exp = np.asarray(got, dtype=float).ravel(), np.asarray(exp, dtype=float).ravel()
    scale = max(unit, np.nanmax(np.abs(exp))) if exp.size else unit
    np.testing.assert_allclose(got, exp, rtol=CLOSED_FORM.rtol, atol=1e-14 * scale, err_msg=what)


@pytest.mark.parametrize("case", COVMCD, ids=[c["id"] for c in COVMCD])
def test_cov_mcd_equals_covmcd_on_r_stream(case):
    X = _scaled_input(case)
    rr = RRandom(case["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = cov_mcd(X, random_state=rr)
    assert _state(rr) == case["state_after"], "R's stream advanced differently"
    p = case["p"]
    assert m.quan == case["quan"]
    _close(m.raw_cov, _num(case["raw_cov"]).reshape(p, p, order="F"), "raw.cov")
    _close(m.raw_center, _num(case["raw_center"]), "raw.center", unit=1.0)
    _close(m.cov, _num(case["cov"]).reshape(p, p, order="F"), "cov")
    _close(m.center, _num(case["center"]), "center", unit=1.0)
    wt = _num(case["mcd_wt"])
    np.testing.assert_array_equal(m.weights, wt[~np.isnan(wt)], err_msg="mcd.wt")
    assert m.singularity == case.get("singularity")
    if case.get("singularity") is None:
        used = np.flatnonzero(~np.isnan(wt))  # covMcd's best counts the complete records only
        np.testing.assert_array_equal(np.sort(m.best), used[np.asarray(case["best"]) - 1], err_msg="best")
        assert m.crit == pytest.approx(_num(case["crit"]), rel=1e-12, abs=1e-13)
    # the stream continues where R's does: a second call on it gives R's second result
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m2 = cov_mcd(X[::-1], random_state=rr)
    assert _state(rr) == case["state_after_second"]
    _close(m2.cov, _num(case["second_cov"]).reshape(p, p, order="F"), "second cov")


# ------------------------------------------------------------------ sdcMicro corpus, seed by seed

def _seeds_for(n: int) -> list[int]:
    # every stored seed on small data; three on the larger ones (test time)
    return list(range(1, 11)) if n <= 200 else [1, 4, 10]


def _corpus(function):
    out = []
    for c in load_corpus(ROOT, [function]):
        if c.result is None:
            continue
        if function == "dUtility" and "values_by_seed" not in c.result:
            continue
        out.append(c)
    return out


ROBEIGEN = _corpus("dUtility")
RMD = _corpus("dRiskRMD")


def _params(cases):
    out = []
    for c in cases:
        marks = []
        div = divergence_for(c.id, DIVERGENCES, "native")
        if div:
            marks.append(pytest.mark.xfail(strict=True, reason=div["reason"]))
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("case", _params(ROBEIGEN))
def test_robeigen_equals_sdcmicro_for_each_seed(case):
    inp = case_inputs(case, ROOT)
    tol = tolerance_for("d_utility", "robeigen")
    vals = _num(case.result["values_by_seed"])
    for seed in _seeds_for(len(inp["x"])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = pysdc.d_utility(inp["x"], inp["xm"], method="robeigen", random_state=seed).value
        exp = vals[seed - 1]
        if math.isnan(exp):
            assert math.isnan(got), f"set.seed({seed})"
        else:
            assert got == pytest.approx(exp, rel=tol.rtol, abs=tol.atol), f"set.seed({seed})"


def _idx(v) -> np.ndarray:
    if v is None:
        return np.zeros(0, dtype=np.int64)
    return np.atleast_1d(np.asarray(v, dtype=np.int64)).reshape(-1) - 1


@pytest.mark.parametrize("case", _params(RMD))
def test_d_risk_rmd_equals_sdcmicro_for_each_seed(case):
    inp = case_inputs(case, ROOT)
    kw = {k: case.args[k] for k in ("k", "k2") if k in case.args}
    n = len(inp["x"])
    for seed in _seeds_for(n):
        bs = case.result["by_seed"][seed - 1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = pysdc.d_risk_rmd(inp["x"], inp["xm"], random_state=seed, **kw)
        what = f"set.seed({seed})"
        np.testing.assert_array_equal(r.index_risk1, _idx(bs["indexRisk1"]), err_msg=f"{what}: index_risk1")
        if not bs.get("indexRisk2_null"):
            np.testing.assert_array_equal(r.index_risk2, _idx(bs["indexRisk2"]), err_msg=f"{what}: index_risk2")
        for f in ("risk1", "risk2", "wrisk1", "wrisk2"):
            assert getattr(r, f) == pytest.approx(_num(bs[f]), rel=CLOSED_FORM.rtol, abs=1e-300), f"{what}: {f}"
        rows = np.asarray(bs["rows"], dtype=np.int64) if "rows" in bs else np.arange(n)
        for f in ("riskvec1", "riskvec2"):
            np.testing.assert_allclose(getattr(r, f)[rows], np.atleast_1d(_num(bs[f])), rtol=CLOSED_FORM.rtol,
                                       err_msg=f"{what}: {f}")


# ------------------------------------------------------------------ building blocks

def test_sscp_cov_adds_rows_in_order():
    # robustbase accumulates the cross products row by row: pysdc's batched sums must add in that order
    rng = np.random.default_rng(9)
    D = rng.normal(size=(400, 4)) * np.exp(3 * rng.normal(size=(400, 4)))
    idx = np.array([rng.permutation(400)[:150] for _ in range(3)])
    means, cov = _sscp_cov(D, idx)
    for k in range(3):
        s1, s2 = np.zeros(4), np.zeros((4, 4))
        for r in D[idx[k]]:
            s1 = s1 + r
            s2 = s2 + np.outer(r, r)
        m = s1 / 150
        np.testing.assert_array_equal(means[k], m)
        np.testing.assert_array_equal(cov[k], (s2 - (150 * m)[:, None] * m[None, :]) / 149)


def test_seq_sum_adds_rows_in_order():
    # numpy's reduction over a non-last axis must stay a row-by-row loop (robustbase's order)
    rng = np.random.default_rng(5)
    for shape in [(1, 5000, 3), (7, 300, 10), (2, 70000, 6)]:
        a = rng.normal(size=shape) * np.exp(4 * rng.normal(size=shape))
        seq = np.zeros((shape[0], shape[2]))
        for i in range(shape[1]):
            seq = seq + a[:, i]
        np.testing.assert_array_equal(_seq_sum(a), seq)


def test_numpy_generator_and_none_keep_pysdcs_own_stream():
    X = r_scale(np.random.default_rng(2).normal(size=(120, 3)))
    a = cov_mcd(X, random_state=np.random.default_rng(7)).cov
    b = cov_mcd(X, random_state=np.random.default_rng(7)).cov
    np.testing.assert_array_equal(a, b)
    assert cov_mcd(X).cov.shape == (3, 3)


def test_int_seed_is_r_set_seed():
    # an int and RRandom(int) are the same stream; the RRandom advances as R's does
    case = next(c for c in COVMCD if c["id"] == "num200:seed2")
    X = _scaled_input(case)
    rr = RRandom(2)
    a = cov_mcd(X, random_state=2).cov
    b = cov_mcd(X, random_state=rr).cov
    np.testing.assert_array_equal(a, b)
    assert _state(rr) == case["state_after"]


def test_frames_with_missing_rows_follow_r():
    case = next(c for c in COVMCD if c["id"] == "demo:cols:seed42")
    X = _scaled_input(case)
    assert np.isnan(X).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = cov_mcd(pd.DataFrame(X), random_state=42)
    _close(m.cov, _num(case["cov"]).reshape(3, 3, order="F"), "cov")
