"""d_risk and d_risk_rmd: properties, validation, stored parity with sdcMicro 5.8.0's ``dRisk`` and
``dRiskRMD`` (r_reference/outputs/dRisk.json, dRiskRMD.json) and live checks."""

from __future__ import annotations

import fnmatch
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysdc._errors import AlignmentWarning, DegenerateResultWarning, InvalidParameterError
from pysdc._tolerances import CLOSED_FORM, tolerance_for
from pysdc.core.distance import _r_dist_pairs, nearest_other_distance_exceeds, r_scale, r_sd
from pysdc.io import read_table
from pysdc.risk._distance import DRiskRMDResult, _d_risk_rmd_with_cov, d_risk, d_risk_rmd

REF = Path(__file__).resolve().parents[2] / "r_reference"


def _decode(v):
    if isinstance(v, list):
        return np.array([_decode(x) for x in v], dtype=float)
    if v in ("NA", "NaN", None):
        return np.nan
    if v == "Inf":
        return np.inf
    if v == "-Inf":
        return -np.inf
    return float(v)


def _idx(v) -> np.ndarray:
    """R's 1-based indices (a JSON list, a scalar or []) as 0-based positions."""
    return np.atleast_1d(np.asarray(v, dtype=np.int64)).reshape(-1) - 1


# =============================================================================
# d_risk


def test_d_risk_hand_worked():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    xm = pd.DataFrame({"a": [1.05, 2.5, 3.0, 3.0]})
    # sd(xm) = 0.9836..., k = 0.1: half-width 0.0984; |x - xm| = 0.05, 0.5, 0, 1
    assert d_risk(x, xm, k=0.1) == 0.5
    assert d_risk(x, xm, k=0.6) == 0.75
    assert d_risk(x, xm, k=2) == 1.0


def test_d_risk_uses_the_sd_of_xm():
    x = pd.DataFrame({"a": [0.0, 100.0, 200.0, 300.0]})  # sd(x) = 129
    xm = pd.DataFrame({"a": [1.0, 99.0, 201.0, 299.0]})   # sd(xm) = 126.6
    k = 1.0 / 126.0  # half-width 1.0048 with sd(xm); it would be 1.0245 with sd(x)
    assert d_risk(x, xm, k=k) == 1.0
    xm2 = pd.DataFrame({"a": [1.0, 99.0, 201.0, 250.0]})  # sd 104.8: half-width 0.83 < 1
    assert d_risk(x.iloc[:3].reset_index(drop=True), xm2.iloc[:3].reset_index(drop=True), k=k) == 0.0


def test_d_risk_all_variables_must_be_inside():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, 3.0]})
    xm = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.5, 3.0]})
    assert d_risk(x, xm, k=0.1) == pytest.approx(2 / 3)


def test_d_risk_missing_values_are_ignored():
    x = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": [1.0, 2.0, 3.0, np.nan]})
    xm = pd.DataFrame({"a": [1.0, 2.0, 9.0, 4.0], "b": [1.0, 2.0, 3.0, np.nan]})
    # record 1: a missing, b equal -> at risk; record 2: a far -> safe; record 3: a equal, b missing
    assert d_risk(x, xm, k=0.01) == 0.75
    # a single record: sd is NA, every comparison is ignored
    assert d_risk(x.iloc[:1], xm.iloc[:1], k=0.01) == 1.0


def test_r_sd_matches_numpy():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 3)) * [1, 1e6, 1e-3] + [0, 1e9, 5]
    X[rng.random(X.shape) < 0.1] = np.nan
    want = [np.nanstd(X[:, j], ddof=1) for j in range(3)]
    np.testing.assert_allclose(r_sd(X), want, rtol=1e-12)
    Z = r_scale(X)
    np.testing.assert_allclose(np.nanmean(Z, axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.nanstd(Z, axis=0, ddof=1), 1, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), k1=st.floats(0, 2), k2=st.floats(0, 2))
def test_d_risk_monotone_in_k(seed, k1, k2):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    xm = x + rng.normal(scale=0.3, size=x.shape)
    lo, hi = sorted([k1, k2])
    assert d_risk(x, xm, k=lo) <= d_risk(x, xm, k=hi)


def test_d_risk_pairs_columns_by_position():
    rng = np.random.default_rng(4)
    x = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    xm = x + 0.01
    with pytest.warns(AlignmentWarning, match="by position"):
        v = d_risk(x, xm[["b", "a"]], k=0.5)
    assert v == d_risk(x.to_numpy(), xm[["b", "a"]].to_numpy(), k=0.5)


def test_d_risk_validation():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, 3.0]})
    with pytest.raises(InvalidParameterError, match="as many columns"):
        d_risk(x, x[["a"]])
    with pytest.raises(InvalidParameterError, match="as many rows"):
        d_risk(x, x.iloc[:2])
    with pytest.raises(InvalidParameterError, match="non-numeric"):
        d_risk(x, x.assign(b=["u", "v", "w"]))
    with pytest.raises(InvalidParameterError, match="non-numeric"):
        d_risk(x.assign(b=pd.Categorical(["u", "v", "w"])), x)
    with pytest.raises(InvalidParameterError, match="infinite"):
        d_risk(x.assign(a=[1.0, np.inf, 3.0]), x)
    for bad in [float("nan"), "0.05", None, True]:
        with pytest.raises(InvalidParameterError, match="^k must"):
            d_risk(x, x, k=bad)
    with pytest.raises(InvalidParameterError, match="DataFrame"):
        d_risk([[1.0]], x)
    with pytest.warns(DegenerateResultWarning, match="no rows"):
        assert np.isnan(d_risk(x.iloc[:0], x.iloc[:0]))


# =============================================================================
# d_risk_rmd: kernel


def _brute_nearest_exceeds(XM, rows, k2):
    n = XM.shape[0]
    out = []
    for i in rows:
        others = np.array([j for j in range(n) if j != i], dtype=np.intp)
        d = _r_dist_pairs(XM, np.full(others.size, i), others)
        d = d[~np.isnan(d)]
        out.append(bool(d.min() > k2) if d.size else True)
    return np.array(out, dtype=bool)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k2=st.floats(-0.1, 1.5), na=st.sampled_from([0.0, 0.15, 0.4]),
       dup=st.booleans())
def test_nearest_other_distance_equals_brute_force(seed, k2, na, dup):
    rng = np.random.default_rng(seed)
    XM = np.round(rng.normal(size=(40, 3)), 1)  # rounding makes ties and exact-k2 distances likely
    if dup:
        XM[1::7] = XM[0::7]
    XM[rng.random(XM.shape) < na] = np.nan
    rows = np.flatnonzero(rng.random(40) < 0.6)
    got = nearest_other_distance_exceeds(XM, rows, k2)
    np.testing.assert_array_equal(got, _brute_nearest_exceeds(XM, rows, k2))


def test_r_dist_pairs_scales_partial_distances():
    XM = np.array([[0.0, 0.0, 0.0], [3.0, np.nan, 4.0], [np.nan, np.nan, np.nan]])
    d = _r_dist_pairs(XM, np.array([0, 0]), np.array([1, 2]))
    assert d[0] == np.sqrt(25.0 / (2 / 3)) and np.isnan(d[1])


# =============================================================================
# d_risk_rmd: properties and validation


def _pair(n=300, p=3, seed=1, scale=0.05):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.normal(size=(n, p)) @ np.triu(np.ones((p, p))), columns=[f"v{j}" for j in range(p)])
    xm = x + rng.normal(scale=scale, size=x.shape)
    return x, xm


def test_d_risk_rmd_result_is_consistent():
    x, xm = _pair()
    r = d_risk_rmd(x, xm, k=0.5, k2=0.2, random_state=0)
    assert isinstance(r, DRiskRMDResult)
    n = len(x)
    np.testing.assert_array_equal(np.flatnonzero(r.riskvec1), r.index_risk1)
    np.testing.assert_array_equal(np.flatnonzero(r.riskvec2), r.index_risk2)
    assert set(r.index_risk2) <= set(r.index_risk1)
    assert r.risk1 == len(r.index_risk1) / n and r.risk2 == len(r.index_risk2) / n
    assert r.wrisk1 == pytest.approx(len(r.index_risk1) * r.riskvec1.sum() / n, rel=1e-14)
    assert r.wrisk2 == pytest.approx(len(r.index_risk2) * r.riskvec2.sum() / n, rel=1e-14)
    assert 0 < r.risk2 < r.risk1 < 1
    assert "DRiskRMDResult(" in repr(r)


def test_d_risk_rmd_monotone_in_k_and_k2():
    x, xm = _pair()
    cov = np.cov(r_scale(x.to_numpy()), rowvar=False)  # any fixed covariance
    r1 = [len(_d_risk_rmd_with_cov(x, xm, cov, k=k).index_risk1) for k in [0.5, 1, 2, 4, 8]]
    assert r1 == sorted(r1)
    r2 = [len(_d_risk_rmd_with_cov(x, xm, cov, k=8, k2=k2).index_risk2) for k2 in [0.02, 0.05, 0.1, 0.3]]
    assert r2 == sorted(r2, reverse=True)


def test_d_risk_rmd_unmasked_variable_flags_every_record():
    x, xm = _pair()
    xm["v0"] = x["v0"]  # one variable released as it is
    r = d_risk_rmd(x, xm, random_state=0)
    assert r.risk1 == 1.0


def test_d_risk_rmd_duplicates_are_never_at_risk2():
    x, xm = _pair(n=100)
    xm.iloc[1] = xm.iloc[0]
    r = d_risk_rmd(x, x.copy(), k=5, k2=0.0, random_state=0)
    assert r.risk1 == 1.0 and r.risk2 == 1.0  # distance 0 > 0 is false only for duplicates: none here
    r = d_risk_rmd(x, xm, k=50, k2=0.0, random_state=0)
    assert 0 not in r.index_risk2 and 1 not in r.index_risk2


def test_d_risk_rmd_missing_in_x_gives_zero():
    x, xm = _pair()
    x.iloc[3, 1] = np.nan
    with pytest.warns(DegenerateResultWarning, match="missing values"):
        r = d_risk_rmd(x, xm, k=5, random_state=0)
    assert r.risk1 == r.risk2 == r.wrisk1 == r.wrisk2 == 0 and r.index_risk1.size == 0
    assert not r.riskvec1.any()


def test_d_risk_rmd_xm_columns_by_name_subset():
    x, xm = _pair()
    a = d_risk_rmd(x, xm[["v2", "v0"]], k=3, random_state=0)
    b = d_risk_rmd(x, xm[["v0", "v2"]], k=3, random_state=0)
    np.testing.assert_array_equal(a.index_risk1, b.index_risk1)
    np.testing.assert_array_equal(a.index_risk2, b.index_risk2)


def test_d_risk_rmd_validation():
    x, xm = _pair(n=50)
    with pytest.raises(InvalidParameterError, match="x does not have"):
        d_risk_rmd(x[["v0", "v1"]], xm)
    with pytest.raises(InvalidParameterError, match="as many rows"):
        d_risk_rmd(x, xm.iloc[:40])
    with pytest.raises(InvalidParameterError, match="non-numeric"):
        d_risk_rmd(x.assign(f=pd.Categorical(["a"] * 50)), xm)
    with pytest.raises(InvalidParameterError, match="MCD"):
        d_risk_rmd(x.assign(v1=1.0), xm.assign(v1=1.0))  # a constant variable
    with pytest.raises(InvalidParameterError, match="MCD"):
        d_risk_rmd(x.iloc[:4], xm.iloc[:4])  # n = p + 1
    for name in ["k", "k2"]:
        with pytest.raises(InvalidParameterError, match=f"^{name} must"):
            d_risk_rmd(x, xm, **{name: float("nan")})
    with pytest.raises(InvalidParameterError, match="random_state"):
        d_risk_rmd(x, xm, random_state="abc")


# =============================================================================
# stored parity

DIVERGENCES = json.loads((REF / "divergences.json").read_text())["divergences"]


def _divergence(case_id: str):
    for d in DIVERGENCES:
        if d["applies_to"] in ("native", "both", "unseeded") and fnmatch.fnmatchcase(case_id, d["case"]):
            return d["reason"]
    return None


def _load(name: str) -> list:
    path = REF / "outputs" / f"{name}.json"
    return json.loads(path.read_text())["cases"] if path.exists() else []


def _params(cases):
    out = []
    for c in cases:
        reason = _divergence(c["id"])
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, id=c["id"], marks=marks))
    return out


def load_sides(inputs: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """x and xm of a stored case (``columns``: both; ``x_columns``/``xm_columns``: each side)."""
    x = read_table(REF / "inputs" / inputs["x"])
    xm = read_table(REF / "inputs" / inputs["xm"])
    if "columns" in inputs:
        x, xm = x[list(inputs["columns"])], xm[list(inputs["columns"])]
    if "x_columns" in inputs:
        x = x[list(inputs["x_columns"])]
    if "xm_columns" in inputs:
        xm = xm[list(inputs["xm_columns"])]
    return x, xm


D_CASES = _load("dRisk")
RMD_CASES = _load("dRiskRMD")


def run_d_risk_case(args: dict, inputs: dict[str, pd.DataFrame]) -> dict:
    """One stored dRisk case natively: sdcMicro's ``k`` -> ``d_risk``; fields as stored."""
    kw = {"k": args["k"]} if "k" in args else {}
    return {"value": d_risk(inputs["x"], inputs["xm"], **kw)}


def run_d_risk_rmd_case(args: dict, inputs: dict[str, pd.DataFrame], *, random_state=0, cov=None) -> DRiskRMDResult:
    """One stored dRiskRMD case natively (``cov``: inject a robust covariance instead of the MCD)."""
    kw = {k: args[k] for k in ("k", "k2") if k in args}
    if cov is not None:
        return _d_risk_rmd_with_cov(inputs["x"], inputs["xm"], cov, **kw)
    return d_risk_rmd(inputs["x"], inputs["xm"], random_state=random_state, **kw)


@pytest.mark.skipif(not D_CASES, reason="r_reference/outputs/dRisk.json not generated")
@pytest.mark.parametrize("case", _params(D_CASES))
def test_d_risk_stored_parity(case):
    x, xm = load_sides(case["inputs"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AlignmentWarning)
        if "error" in case:
            with pytest.raises(InvalidParameterError):
                run_d_risk_case(case["args"], {"x": x, "xm": xm})
            return
        got = run_d_risk_case(case["args"], {"x": x, "xm": xm})["value"]
    tol = tolerance_for("d_risk", "value")
    np.testing.assert_allclose(got, _decode(case["result"]["value"]), rtol=tol.rtol, atol=tol.atol)


def _seed_fields(bs: dict, n: int):
    """One seed's per-record vectors (full, or the stored rows) and the row positions."""
    rows = np.asarray(bs["rows"], dtype=np.int64) if "rows" in bs else np.arange(n)
    return rows, np.atleast_1d(_decode(bs["riskvec1"])), np.atleast_1d(_decode(bs["riskvec2"]))


def _assert_exact_seed(r: DRiskRMDResult, bs: dict, n: int, what: str):
    """The native result equals one seed's stored sdcMicro result (indices exactly, floats to 1e-12)."""
    np.testing.assert_array_equal(r.index_risk1, _idx(bs["indexRisk1"]), err_msg=f"{what}: index_risk1")
    np.testing.assert_array_equal(r.index_risk2, _idx(bs["indexRisk2"]), err_msg=f"{what}: index_risk2")
    for f in ("risk1", "risk2", "wrisk1", "wrisk2"):
        np.testing.assert_allclose(getattr(r, f), _decode(bs[f]), rtol=CLOSED_FORM.rtol, atol=1e-300,
                                   err_msg=f"{what}: {f}")
    rows, v1, v2 = _seed_fields(bs, n)
    np.testing.assert_allclose(r.riskvec1[rows], v1, rtol=CLOSED_FORM.rtol, err_msg=f"{what}: riskvec1")
    np.testing.assert_allclose(r.riskvec2[rows], v2, rtol=CLOSED_FORM.rtol, err_msg=f"{what}: riskvec2")


def compare_with_seeds(r: DRiskRMDResult, result: dict, n: int) -> None:
    """The statistical comparison of a native result with sdcMicro's ten seeds (see _tolerances)."""
    by_seed = result["by_seed"]
    idx_tol = tolerance_for("d_risk_rmd", "index_majority")
    need = int(np.ceil(idx_tol.rtol * len(by_seed)))
    for f, rf in (("index_risk1", "indexRisk1"), ("index_risk2", "indexRisk2")):
        same = sum(np.array_equal(getattr(r, f), _idx(bs[rf])) for bs in by_seed)
        assert same >= need, f"{f}: equal to sdcMicro's in {same} of {len(by_seed)} seeds (need {need})"
    for f in ("risk1", "risk2"):
        vals = np.array([_decode(bs[f]) for bs in by_seed])
        assert vals.min() <= getattr(r, f) <= vals.max(), f
    tol = tolerance_for("d_risk_rmd", "seed_range")

    def within(name, got, seeds):  # seeds: (n_seeds, m)
        lo, hi, med = seeds.min(axis=0), seeds.max(axis=0), np.median(seeds, axis=0)
        margin = tol.rtol * (hi - lo) + tol.atol * np.abs(med)
        bad = (got < lo - margin) | (got > hi + margin)
        assert not bad.any(), (f"{name}: {int(bad.sum())} value(s) outside sdcMicro's seed range, e.g. "
                               f"{got[bad][:3]} vs [{lo[bad][:3]}, {hi[bad][:3]}]")

    for f in ("wrisk1", "wrisk2"):
        within(f, np.array([getattr(r, f)]), np.array([[_decode(bs[f])] for bs in by_seed]))
    fields = [_seed_fields(bs, n) for bs in by_seed]
    rows = fields[0][0]
    within("riskvec1", r.riskvec1[rows], np.vstack([f[1] for f in fields]))
    within("riskvec2", r.riskvec2[rows], np.vstack([f[2] for f in fields]))


def _run_rmd(case, **kw):
    x, xm = load_sides(case["inputs"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        return run_d_risk_rmd_case(case["args"], {"x": x, "xm": xm}, **kw), len(x)


def _cov_seed1(result: dict) -> np.ndarray:
    dim = [int(v) for v in result["cov_dim"]]
    return np.asarray(_decode(result["cov_seed1"]), dtype=float).reshape(dim, order="F")


@pytest.mark.skipif(not RMD_CASES, reason="r_reference/outputs/dRiskRMD.json not generated")
@pytest.mark.parametrize("case", _params(RMD_CASES))
def test_d_risk_rmd_stored_parity(case):
    """Native (pysdc's own MCD) against sdcMicro over set.seed(1..10), under the stated tolerance."""
    if "error" in case:
        with pytest.raises(InvalidParameterError):
            _run_rmd(case)
        return
    for seed in (0, 1):  # two of pysdc's own random streams (an int seed is R's set.seed: test_mcd_rstream.py)
        r, n = _run_rmd(case, random_state=np.random.default_rng(seed))
        compare_with_seeds(r, case["result"], n)


RMD_OK = [c for c in RMD_CASES if "error" not in c]


@pytest.mark.skipif(not RMD_OK, reason="r_reference/outputs/dRiskRMD.json not generated")
@pytest.mark.parametrize("case", RMD_OK, ids=[c["id"] for c in RMD_OK])
def test_d_risk_rmd_with_r_covariance_is_exact(case):
    """With sdcMicro's own robust covariance (covMcd after set.seed(1)) the result is set.seed(1)'s, exactly.

    (The registered divergences concern pysdc's own MCD -- which these cases bypass -- or inputs pysdc
    refuses: those are expected failures here only where pysdc raises.)"""
    reason = _divergence(case["id"])
    try:
        r, n = _run_rmd(case, cov=_cov_seed1(case["result"]))
    except InvalidParameterError:
        if reason:
            pytest.xfail(reason)
        raise
    _assert_exact_seed(r, case["result"]["by_seed"][0], n, "set.seed(1)")


DETERMINISTIC = [c for c in RMD_OK if "deterministic" in c["tags"]]


@pytest.mark.parametrize("case", DETERMINISTIC, ids=[c["id"] for c in DETERMINISTIC])
def test_d_risk_rmd_deterministic_cases_are_exact(case):
    """One variable, or samples where covMcd enumerates every subset: sdcMicro's result does not depend
    on the seed, and pysdc's own MCD must reproduce it exactly."""
    by_seed = case["result"]["by_seed"]
    assert all(bs["wrisk1"] == by_seed[0]["wrisk1"] and bs["indexRisk1"] == by_seed[0]["indexRisk1"]
               for bs in by_seed)
    for seed in (0, 7):
        r, n = _run_rmd(case, random_state=seed)
        _assert_exact_seed(r, by_seed[0], n, f"random_state={seed}")


def test_corpus_size():
    assert len(D_CASES) >= 40 and len(RMD_CASES) >= 40
    assert sum("error" in c for c in D_CASES) >= 2 and sum("error" in c for c in RMD_CASES) >= 3
    assert len(DETERMINISTIC) >= 5


# =============================================================================
# live


def _live():
    import pysdc.r

    if not pysdc.r.available():
        pytest.skip(f"R/sdcMicro not available: {pysdc.r.available().reason}")
    return pysdc.r


def _live_pair():
    rng = np.random.default_rng(20250913)
    n = 240
    x = pd.DataFrame(rng.lognormal(size=(n, 3)) * [1000, 500, 10], columns=["inc", "exp", "hrs"])
    xm = x * np.exp(rng.normal(scale=0.02, size=x.shape))
    xm.loc[rng.random(n) < 0.05, "exp"] = np.nan
    xm.iloc[10] = xm.iloc[11]
    return x, xm


@pytest.mark.live
def test_live_d_risk():
    R = _live()
    x, xm = _live_pair()
    x.loc[3, "hrs"] = np.nan
    for k in [0.005, 0.02, 0.1]:
        want = R.call("dRisk", x, xm=xm, k=k)
        assert d_risk(x, xm, k=k) == float(np.asarray(want).ravel()[0])


@pytest.mark.live
def test_live_d_risk_rmd():
    R = _live()
    x, xm = _live_pair()
    for k, k2 in [(2.0, 0.02), (5.0, 0.1)]:
        seeds = []
        for s in range(1, 6):
            R.call("set.seed", s, package="base")
            rr = R.call("dRiskRMD", x, xm=xm, k=k, k2=k2)
            seeds.append({
                "risk1": rr["risk1"], "risk2": rr["risk2"], "wrisk1": rr["wrisk1"], "wrisk2": rr["wrisk2"],
                "indexRisk1": np.asarray(rr["indexRisk1"]).ravel().tolist(),
                "indexRisk2": [] if rr["indexRisk2"] is None else np.asarray(rr["indexRisk2"]).ravel().tolist(),
                "riskvec1": np.asarray(rr["riskvec1"], dtype=float).tolist(),
                "riskvec2": np.asarray(rr["riskvec2"], dtype=float).tolist(),
            })
        compare_with_seeds(d_risk_rmd(x, xm, k=k, k2=k2, random_state=0), {"by_seed": seeds}, len(x))
        # exact with R's own covariance
        R.call("set.seed", 1, package="base")
        # (as a handle: the bridge cannot convert covMcd's `call` component)
        mcd = R.call("covMcd", R.call("scale.default", x.to_numpy(), package="base"), package="robustbase",
                     as_robject=True)
        cov = R.call("getElement", mcd, "cov", package="base")
        r = _d_risk_rmd_with_cov(x, xm, np.asarray(cov, dtype=float), k=k, k2=k2)
        _assert_exact_seed(r, seeds[0], len(x), "live set.seed(1)")
