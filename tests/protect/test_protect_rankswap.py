"""rank_swap (issue 28, family 4) against sdcMicro 5.8.0's rankSwap (r_reference/outputs/rankSwap.json).

sdcMicro's C++ draws from its own generator (L'Ecuyer's taus88) seeded by its seed argument; pysdc reproduces
it and the algorithm, so every stored case is equal value for value (live comparisons on fresh inputs:
tests/protect/test_rankswap_exact.py). What sdcMicro does, as observed, is also tested on its stored output:
trunc(n p / 100) (single precision) smallest and largest values replaced by their means, the other values a
permutation of the original ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import load_case_data
from pysdc.core.rankswap import extreme_count
from pysdc.protect._rankswap import rank_swap

from _methods import check_defaults_match_r_formals

ROOT = Path(__file__).resolve().parents[2] / "r_reference"


def _cases():
    doc = json.loads((ROOT / "outputs" / "rankSwap.json").read_text(encoding="utf-8"))
    assert doc["header"]["sdcmicro_version"] == "5.8.0"
    return [pytest.param(c, id=c["id"]) for c in doc["cases"]]


CASES = _cases()


def _sdcmicro(case) -> dict:
    return {v: np.array([np.nan if t == "NA" else float.fromhex(t) for t in vals])
            for v, vals in case["result"]["values"].items()}


def _native(case) -> dict:
    a = case["args"]
    data = load_case_data(case, ROOT)
    before = data.copy(deep=True)
    p = a.get("P")  # sdcMicro's fraction of the records; pysdc's p is percent
    out = rank_swap(data, a["variables"], top_percent=a.get("TopPercent", 5), bottom_percent=a.get("BottomPercent", 5),
                    p=None if p is None else 100 * p, r0=a.get("R0"), seed=a["seed"])
    pd.testing.assert_frame_equal(data, before)
    return {v: out[v].to_numpy(dtype=np.float64) for v in a["variables"]}


def _check_invariants(case, swapped: dict):
    """The extremes replaced by their means (sdcMicro's group sizes), the middle values a permutation."""
    a = case["args"]
    data = load_case_data(case, ROOT)
    for v, new in swapped.items():
        x = data[v].to_numpy(dtype=np.float64)
        assert np.array_equal(np.isnan(new), np.isnan(x))  # missing values stay missing
        new, x = new[~np.isnan(x)], x[~np.isnan(x)]
        n = x.size
        s, ns = np.sort(x), np.sort(new)
        gb, gt = extreme_count(n, a.get("BottomPercent", 5)), extreme_count(n, a.get("TopPercent", 5))
        assert (gb > 0) == (gt > 0)  # one empty group alone: no case (sdcMicro's C++ then reads outside its table)
        if gb:
            np.testing.assert_allclose(ns[:gb], np.mean(s[:gb]), rtol=1e-12)
            np.testing.assert_allclose(ns[n - gt:], np.mean(s[n - gt:]), rtol=1e-12)
        assert np.array_equal(ns[gb:n - gt], s[gb:n - gt])
        order = np.argsort(x, kind="stable")
        mid = order[gb:n - gt]
        if np.unique(x).size == n:
            assert np.mean(new[mid] != x[mid]) > 0.5  # most middle values did move


@pytest.mark.parametrize("case", CASES)
def test_sdcmicro_output_has_the_documented_properties(case):
    _check_invariants(case, _sdcmicro(case))


@pytest.mark.parametrize("case", CASES)
def test_same_swaps_as_sdcmicro(case):
    exp, act = _sdcmicro(case), _native(case)
    assert all(np.array_equal(exp[v], act[v], equal_nan=True) for v in exp)


def test_extreme_count_in_single_precision():
    """sdcMicro's counts as observed (4 of 100 at 5 percent, 4 of 200 at 2, 3 of 100 at 3): trunc(n * (percent *
    0.01f)) in single precision, where 5 * 0.01f rounds below 0.05; the percent is clamped to 100."""
    assert extreme_count(100, 5) == 4 and extreme_count(200, 2) == 4 and extreme_count(100, 3) == 3
    assert extreme_count(10, 150) == 10 and extreme_count(10, 0) == 0


def test_seeded_is_reproducible_and_missing_values_stay():
    df = pd.DataFrame({"x": [np.nan] + list(np.arange(60.0)), "y": np.arange(61.0)})
    a, b = rank_swap(df, ["x"], seed=4), rank_swap(df, ["x"], seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert np.isnan(a["x"].iloc[0]) and a["y"].equals(df["y"])


@pytest.mark.parametrize(("kw", "match"), [
    ({"variables": ["s"]}, "numeric"),
    ({"p": 0}, "p"),
    ({"r0": 1.5}, "r0"),
    ({"top_percent": -1}, "top_percent"),
    ({"seed": -1}, "seed"),
])
def test_invalid(kw, match):
    df = pd.DataFrame({"x": np.arange(10.0), "s": list("abcdefghij")})
    kw = {"variables": ["x"], **kw}
    with pytest.raises(InvalidParameterError, match=match):
        rank_swap(df, **kw)


# =============================================================================
# the methods registry's entry and the bridge (pysdc.r.rank_swap)


def test_registry_entry_maps_onto_sdcmicros_rankswap():
    from pysdc._registry._methods import method_by_python_name, method_by_r_name

    m = method_by_r_name("rankSwap")
    assert m is method_by_python_name("rank_swap") and m.native is rank_swap and m.r_seed is None
    assert m.arguments["seed"] == "seed" and m.arguments["p"] == "P"


@pytest.mark.parametrize("case", CASES)
def test_registry_case_natively(case):
    from pysdc._registry._methods import method_by_r_name

    m = method_by_r_name("rankSwap")
    assert m.compare_case(case["result"], m.run_case(rank_swap, case["args"], load_case_data(case, ROOT))) == []


def test_registry_compare_finds_one_changed_value():
    from pysdc._registry._methods import method_by_r_name

    m = method_by_r_name("rankSwap")
    case = CASES[0].values[0]
    res = json.loads(json.dumps(case["result"]))
    assert m.compare_case(case["result"], res) == []
    v = res["variables"][0]
    res["values"][v][3] = float.hex(float.fromhex(res["values"][v][3]) * (1 + 2 ** -52))
    assert m.compare_case(case["result"], res) == [m.compare_case(case["result"], res)[0]]
    assert "1 value(s) differ" in m.compare_case(case["result"], res)[0]


def test_bridge_call_passes_p_as_sdcmicros_fraction_and_its_own_seed():
    from pysdc._registry._methods_swap import rank_swap_to_r

    df = pd.DataFrame({"x": np.arange(200.0), "y": np.arange(200.0)})
    base = {"data": df, "variables": ["x"], "top_percent": 5, "bottom_percent": 5, "p": None, "r0": None,
            "seed": 7}
    fun, args, kw = rank_swap_to_r({**base, "p": 2})
    assert fun == "rankSwap" and kw["P"] == pytest.approx(0.02) and "R0" not in kw and kw["seed"] == 7
    _, _, kw = rank_swap_to_r({**base, "r0": 0.9})
    assert kw["R0"] == 0.9 and "P" not in kw
    with pytest.raises(InvalidParameterError, match="seed"):
        rank_swap_to_r({**base, "seed": np.random.default_rng(1)})


@pytest.mark.parametrize(("kw", "n"), [({"bottom_percent": 0}, 200), ({"top_percent": 0.4}, 200),
                                       ({"bottom_percent": 0.5}, 50), ({"top_percent": 5, "bottom_percent": 10}, 20)])
def test_bridge_refuses_an_empty_extreme_group_before_r(kw, n):
    """sdcMicro 5.8.0 aborted R (the whole session) in these cases: the bridge refuses before R starts. 20 records at
    5 percent: 20 * 0.05 is 1, but sdcMicro's single-precision count is 0 (the process crashed with a segmentation
    fault before the bridge counted as sdcMicro does)."""
    import pysdc.r

    df = pd.DataFrame({"x": np.linspace(1, 2, n)})
    with pytest.raises(InvalidParameterError, match="extreme"):
        pysdc.r.rank_swap(df, ["x"], seed=1, **kw)
    with pytest.warns(UserWarning, match="no defined result"):  # natively: correctly ordered, and a warning
        rank_swap(df, ["x"], seed=1, **kw)


@pytest.mark.live
@pytest.mark.parametrize("case", CASES)
def test_live_bridge_gives_sdcmicros_stored_swaps(bridge, case):
    from pysdc._registry._methods import method_by_r_name

    m = method_by_r_name("rankSwap")
    data = load_case_data(case, ROOT)
    before = data.copy(deep=True)
    assert m.compare_case(case["result"], m.run_case(bridge.rank_swap, case["args"], data)) == []
    pd.testing.assert_frame_equal(data, before)


@pytest.mark.live
def test_live_bridge_p_is_percent_of_the_records(bridge):
    """p=5 on 200 records: no value moves more than about 10 ranks through the bridge (sdcMicro's P = 5 would
    let any two records swap)."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"x": rng.normal(size=200), "keep": np.arange(200)}, index=np.arange(200) + 1000)
    out = bridge.rank_swap(df, ["x"], p=5, seed=11)
    assert list(out.index) == list(df.index) and out["keep"].equals(df["keep"])
    s = np.sort(df["x"].to_numpy())
    mid = (out["x"].to_numpy() > s[9]) & (out["x"].to_numpy() < s[190])
    moved = np.abs(np.searchsorted(s, out["x"].to_numpy()[mid]) - np.searchsorted(s, df["x"].to_numpy()[mid]))
    assert 0 < moved.max() <= 13
    wide = bridge.call("rankSwap", df, variables=["x"], P=5, seed=11)
    moved_wide = np.abs(np.searchsorted(s, wide["x"].to_numpy()[mid]) - np.searchsorted(s, df["x"].to_numpy()[mid]))
    assert moved_wide.max() > 50


@pytest.mark.live
def test_defaults_match_r_formals(bridge):
    from pysdc._registry._methods import method_by_r_name

    check_defaults_match_r_formals(bridge, method_by_r_name("rankSwap"), check_bridge=True)
