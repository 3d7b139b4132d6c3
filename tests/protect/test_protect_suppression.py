"""Local suppression (issue 28, family 2): pysdc.protect.local_suppression / local_supp against sdcMicro 5.8.0.

Stored parity: every case of r_reference/outputs/{localSuppression,localSupp}.json (written by
r_reference/generate_protect_suppression.R from make_cases_localSuppression.py) runs through the native
function: the same cells suppressed (every key's missing rows), sdcMicro's supps, totalSupps, newSupps and
importance; where sdcMicro stopped, pysdc raises. Live parity (marker ``live``): the bridge wrappers on
the same cases, R's defaults against formals(), and fresh data with many ties against sdcMicro.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import method_by_r_name
from pysdc.core import suppress
from pysdc.core.freq import freq_core
from pysdc.protect import LocalSuppressionResult, local_supp, local_suppression

from _methods import check_defaults_match_r_formals, check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"
FUNCS = ("localSuppression", "localSupp")


def _cases(applies_to: str = "native"):
    return stored_cases(ROOT, FUNCS, xfail_applies_to=applies_to)


CASES = _cases()


def _check(fn, rname, case):
    check_stored_case(method_by_r_name(rname), fn, case, ROOT, ignore=Warning)


@pytest.mark.parametrize(("rname", "case"), CASES)
def test_stored_parity(rname, case):
    _check(method_by_r_name(rname).native, rname, case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.values[1]["tags"]}
    assert {"importance", "combs", "k-vector", "strata", "na", "ties", "first-na", "alpha", "real", "error",
            "sdcMicroObj", "all-na"} <= tags
    assert any(c.marks for c in CASES), "the listed divergence is run as a strict xfail"
    ls = [c.values[1] for c in CASES if c.values[0] == "localSuppression"]
    assert {2, 3, 4, 5} <= {c["args"]["k"] for c in ls if isinstance(c["args"]["k"], int)}
    eu = [c for c in ls if c["inputs"]["data"] == "eusilc.csv.gz"]
    assert {"db040", "rb090", "age", "pl030", "pb220a"} <= {v for c in eu for v in c["args"]["keyVars"]}
    # the corpus suppresses: a case with nothing to do would pin nothing
    assert sum(c["result"]["newSupps"] > 0 for c in ls if "result" in c) >= 30


# =============================================================================
# an independent reference: sdcMicro's documented heuristic, one problem record at a time


def _reference(codes: np.ndarray, k: float, importance, alpha: float = 1.0) -> np.ndarray:
    """Plain sequential local suppression (the algorithm as docs/protection.md states it), for the
    vectorised rounds of pysdc.core.suppress to be checked against."""
    cards = codes.max(axis=0) + 1
    keep = np.flatnonzero(suppress.reduce_rows(codes, cards, k))
    mat = codes[keep].copy()
    order = list(np.argsort(-np.asarray(importance, float), kind="stable"))
    while True:
        fk_c, _, _, inv = freq_core([mat[:, j] for j in range(mat.shape[1])], cards, None, alpha)
        fk = fk_c[inv]
        probs = [i for i in np.argsort(fk, kind="stable") if fk[i] < k]
        if not probs:
            break
        for p in probs:
            x = mat[p]
            diff = (mat >= 0) & (x >= 0) & (mat != x)
            d = diff.sum(axis=1)
            pos = d[d > 0]
            near = np.flatnonzero(d == pos.min())
            c = next(j for j in order if diff[near, j].any())
            mat[p, c] = -1
    out = codes.copy()
    out[keep] = mat
    return out


def test_rounds_equal_the_sequential_heuristic(monkeypatch):
    # random keys (2-6, 2-4 categories, 0/5/20 % missing), k 2..6, importance with repeats; the
    # widening of a problem's candidates (its smallest distance emptied within the round) must occur
    calls = []
    pairs = suppress._row_pairs
    monkeypatch.setattr(suppress, "_row_pairs", lambda *a: calls.append(1) or pairs(*a))
    widened = 0
    for seed in range(60):
        rng = np.random.default_rng(1000 + seed)
        n, kk = int(rng.integers(10, 300)), int(rng.integers(2, 7))
        codes = np.stack([rng.integers(0, int(rng.integers(2, 5)), n) for _ in range(kk)], axis=1).astype(np.int64)
        codes[rng.random((n, kk)) < rng.choice([0, 0.05, 0.2])] = -1
        k = int(rng.integers(2, 7))
        imp = rng.integers(1, kk + 1, kk)
        cards = np.maximum(codes.max(axis=0) + 1, 1)
        before = len(calls)
        got, rounds = suppress.supp_subset(codes, cards, k, imp, 1.0)
        widened += len(calls) - before > rounds
        np.testing.assert_array_equal(got, _reference(codes, k, imp), err_msg=f"seed {seed}")
    assert widened >= 1


def test_within_round_dependency_is_seen():
    # (1,1) and (1,2) are both problems; the first suppresses key 2 and becomes (1,NA), which then
    # matches (1,2): the second must then look past distance 1 (rows (3,2) at distance 1 again)
    codes = np.array([[0, 0], [0, 1], [2, 1], [2, 1], [2, 0], [2, 0]], dtype=np.int64)
    got, _ = suppress.supp_subset(codes, np.array([3, 2]), 2, [1, 2], 1.0)
    np.testing.assert_array_equal(got, _reference(codes, 2, [1, 2]))


def test_default_importance_is_the_rank_of_the_number_of_categories():
    assert suppress.default_importance([4, 1, 4, 2]).tolist() == [3, 1, 4, 2]
    # a factor counts its levels (R's table), also unused ones
    df = pd.DataFrame({"a": pd.Categorical(["x", "x", "y"], categories=["x", "y", "z", "w"]), "b": [1, 2, 3]})
    assert local_suppression(df, ["a", "b"], k=1).importance == [2, 1]


def test_result_and_input_untouched():
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3], "b": pd.Categorical(list("xxyyyz")), "o": range(6)})
    before = df.copy(deep=True)
    r = local_suppression(df, ["a", "b"], k=2)
    assert isinstance(r, LocalSuppressionResult)
    assert df.equals(before)
    assert r.data["o"].tolist() == list(range(6))
    assert str(r.data["a"].dtype) == "Int64" and isinstance(r.data["b"].dtype, pd.CategoricalDtype)
    assert r.new_supps == int(r.suppressed.to_numpy().sum()) == int(r.supps.loc["Total"].sum())
    assert list(r.x_anon.columns) == ["a", "b"]
    fk_after = local_suppression(r.data, ["a", "b"], k=2).new_supps
    assert fk_after == 0  # k-anonymous: nothing more to do


def test_local_supp_threshold_is_strict_and_na_risk_kept():
    df = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 1, 2, 2]})
    r = local_supp(df, ["a", "b"], "a", [0.2, 0.1, np.nan, 0.3], threshold=0.2)
    assert r.data["a"].isna().tolist() == [False, False, False, True]
    assert r.supps.loc["Total"].tolist() == [1, 0] and r.new_supps == 1


def test_refusals():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "t": ["x", "x", "y", "y"], "s": [1, 1, 1, 1]})
    for kw in ({"k": 0}, {"importance": [1, 3]}, {"importance": [1]}, {"combs": [3]}, {"combs": [0]},
               {"k": [2, 3]}, {"alpha": 2}):
        with pytest.raises(InvalidParameterError):
            local_suppression(df, ["a", "s"], **kw)
    with pytest.raises(InvalidParameterError, match="categorical"):
        local_suppression(df, ["a", "t"])
    with pytest.raises(InvalidParameterError, match="larger"):
        local_suppression(df, ["a", "s"], k=5)
    with pytest.raises(InvalidParameterError):
        local_supp(df, ["a"], "s", [0.1] * 4)
    with pytest.raises(InvalidParameterError):
        local_supp(df, ["a", "s"], "a", [0.1] * 3)


# =============================================================================
# live: the bridge runs sdcMicro on the same cases; R's defaults; fresh data


@pytest.mark.live
@pytest.mark.parametrize(("rname", "case"), [c for c in _cases("live") if "real" not in c.values[1]["tags"]])
def test_live_bridge_parity(bridge, rname, case):
    m = method_by_r_name(rname)
    _check(getattr(bridge, m.python), rname, case)


@pytest.mark.live
@pytest.mark.parametrize("rname", FUNCS)
def test_defaults_match_r_formals(bridge, rname):
    check_defaults_match_r_formals(bridge, method_by_r_name(rname))


@pytest.mark.live
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_live_fresh_tied_data(bridge, seed):
    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame({"a": rng.integers(0, 3, n).astype(float), "b": rng.integers(0, 4, n).astype(float),
                       "c": rng.integers(0, 2, n).astype(float), "d": rng.integers(0, 5, n).astype(float)})
    df.loc[rng.choice(n, 20), "b"] = np.nan
    for k in (2, 4):
        nat = local_suppression(df, list(df.columns), k=k)
        ref = bridge.local_suppression(df, list(df.columns), k=k)
        pd.testing.assert_frame_equal(nat.suppressed, ref.suppressed)
        pd.testing.assert_frame_equal(nat.supps, ref.supps)
