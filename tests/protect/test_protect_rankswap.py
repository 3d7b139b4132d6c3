"""rank_swap (issue 28, family 4) against sdcMicro 5.8.0's rankSwap (r_reference/outputs/rankSwap.json).

sdcMicro's C++ draws from its own generator seeded by its seed argument; pysdc does not reproduce it, so the
exact comparison is a strict xfail (listed in r_reference/divergences.json). What sdcMicro does, as observed,
is tested on sdcMicro's stored output and on pysdc's output alike: the ceil(n p / 100) - 1 smallest and largest
values replaced by their means, the other values a permutation of the original ones, no value moved by more
than the rank range (n sqrt(1 - R0) / 4 for R0, default 0.95).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import load_case_data
from pysdc.core.rankswap import group_size, rank_range
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
    out = rank_swap(data, a["variables"], top_percent=a.get("TopPercent", 5), bottom_percent=a.get("BottomPercent", 5),
                    p=a.get("P"), r0=a.get("R0"), seed=a["seed"])
    pd.testing.assert_frame_equal(data, before)
    return {v: out[v].to_numpy(dtype=np.float64) for v in a["variables"]}


def _groups(n, ns, s, bottom, top):
    """The sizes (gb, gt) of the extreme groups: sdcMicro replaces about n p / 100 values (observed: that number
    or one less, e.g. 4 of 100 at 5 percent, 4 of 200 at 2 percent), pysdc floor(n p / 100)."""
    cb, ct = math.floor(n * bottom / 100 + 1e-9), math.floor(n * top / 100 + 1e-9)
    for gb in (cb, cb - 1):
        for gt in (ct, ct - 1):
            gb_, gt_ = max(gb, 0), max(gt, 0)
            ok = (not gb_ or np.allclose(ns[:gb_], np.mean(s[:gb_]), rtol=1e-12)) and \
                (not gt_ or np.allclose(ns[n - gt_:], np.mean(s[n - gt_:]), rtol=1e-12)) and \
                np.array_equal(ns[gb_:n - gt_], s[gb_:n - gt_])
            if ok:
                return gb_, gt_
    raise AssertionError(f"the extremes are not {cb} (or {cb - 1}) and {ct} (or {ct - 1}) values replaced by "
                         "their means with the other values kept")


def _check_invariants(case, swapped: dict):
    a = case["args"]
    data = load_case_data(case, ROOT)
    for v, new in swapped.items():
        x = data[v].to_numpy(dtype=np.float64)
        n = x.size
        s = np.sort(x)
        ns = np.sort(new)
        # the extremes replaced by their means, the middle values a permutation of the original ones
        gb, gt = _groups(n, ns, s, a.get("BottomPercent", 5), a.get("TopPercent", 5))
        # no middle value moved further than the rank range: n sqrt(1 - R0) / 4 (default R0 = 0.95), which
        # sdcMicro exceeds somewhat (observed: 12 ranks for 11.2, 25 for 22.4, 14 for 11.2 with many ties; 110
        # for 111.8 of 1000 records): the bound tested is 1.3 times that for sdcMicro's output, exact for pysdc's
        width = rank_range(n, a.get("P"), a.get("R0"))
        bound = width if swapped is not None and case.get("_native") else math.ceil(1.3 * n * math.sqrt(
            1 - (a.get("R0") or 0.95)) / 4)
        order = np.argsort(x, kind="stable")
        mid = order[gb:n - gt]
        lo_o, hi_o = np.searchsorted(s, x[mid], "left"), np.searchsorted(s, x[mid], "right") - 1
        lo_n, hi_n = np.searchsorted(s, new[mid], "left"), np.searchsorted(s, new[mid], "right") - 1
        dist = np.maximum(0, np.maximum(lo_n - hi_o, lo_o - hi_n))
        assert dist.max() <= bound, f"{v}: a value moved {dist.max()} ranks (bound {bound})"
        if np.unique(x).size == n:
            assert np.mean(new[mid] != x[mid]) > 0.5  # most middle values did move


@pytest.mark.parametrize("case", CASES)
def test_sdcmicro_output_has_the_documented_properties(case):
    _check_invariants(case, _sdcmicro(case))


@pytest.mark.parametrize("case", CASES)
def test_native_output_has_the_same_properties(case):
    _check_invariants({**case, "_native": True}, _native(case))


@pytest.mark.xfail(strict=True, reason="sdcMicro's rankSwap draws from its own C++ generator seeded by its seed "
                   "argument, which pysdc does not reproduce: other records are swapped for the same seed "
                   "(r_reference/divergences.json, rankSwap:*)")
@pytest.mark.parametrize("case", CASES)
def test_same_swaps_as_sdcmicro(case):
    exp, act = _sdcmicro(case), _native(case)
    assert all(np.array_equal(exp[v], act[v], equal_nan=True) for v in exp)


def test_group_size_and_range_as_observed():
    assert [group_size(n, 5) for n in (100, 50, 37, 1000)] == [5, 2, 1, 50]  # floor(n p / 100)
    # sdcMicro's largest displacement of 1000 records: 24, 54, 110 for R0 = 0.99, 0.95, 0.8
    assert [rank_range(1000, None, r) for r in (0.99, 0.95, 0.8)] == [25, 55, 111]
    assert rank_range(1000, 2, None) == 20 and math.isclose(rank_range(1000, None, None), 55)


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


@pytest.mark.xfail(strict=True, reason="sdcMicro's rankSwap draws from its own C++ generator seeded by its seed "
                   "argument, which pysdc does not reproduce (r_reference/divergences.json, rankSwap:*)")
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
                                       ({"bottom_percent": 0.5}, 50)])
def test_bridge_refuses_an_empty_extreme_group_before_r(kw, n):
    """sdcMicro 5.8.0 aborted R (the whole session) in these cases: the bridge refuses before R starts."""
    import pysdc.r

    df = pd.DataFrame({"x": np.linspace(1, 2, n)})
    with pytest.raises(InvalidParameterError, match="extreme"):
        pysdc.r.rank_swap(df, ["x"], seed=1, **kw)
    rank_swap(df, ["x"], seed=1, **kw)  # natively: nothing grouped


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
