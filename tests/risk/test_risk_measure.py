"""measure_risk: global risk, sdcMicro's threshold search, household risk, refusals, live parity."""

from __future__ import annotations

import itertools
import json
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import pysdc
from pysdc import DegenerateResultWarning, InvalidParameterError, PysdcWarning
from pysdc.core.threshold import global_threshold, household_risk, threshold_search

NA = np.nan


# ------------------------------------------------------------ references

def threshold_loop(r_sorted, max_global_risk):
    """The threshold search as a plain scalar loop, written from its description
    (mu-Argus manual 2.3.4.1 as implemented by sdcMicro's C++)."""
    n = len(r_sorted)
    target = max_global_risk * n
    total = 0.0
    for v in r_sorted:
        total += v
    current = r_sorted[0] if n else 0.0
    if total < target:
        return current, current, current
    threshold = 0.0
    count = 0
    remaining = total
    for v in r_sorted:
        if v != current:
            if remaining + v * count < target:
                return v, v, current
            current = v
        count += 1
        remaining -= v
    return threshold, threshold, current


def boole(risks):
    """Household risk by Boole's inclusion-exclusion formula (sdcMicro's fast_hier=False)."""
    total = 0.0
    for size in range(1, len(risks) + 1):
        for comb in itertools.combinations(risks, size):
            total += (-1) ** (size + 1) * np.prod(comb)
    return total


# ------------------------------------------------------------ global risk

def test_population_risk_by_hand():
    df = pd.DataFrame({"k": [1, 1, 2, 2, 2, 3]}, index=list("abcdef"))
    m = pysdc.measure_risk(df, "k")
    assert_allclose(m.individual["risk"], [0.5, 0.5, 1 / 3, 1 / 3, 1 / 3, 1], rtol=1e-15, atol=0)
    assert_allclose(m.global_risk_er, 3.0, rtol=1e-15, atol=0)
    assert_allclose(m.global_risk, 0.5, rtol=1e-15, atol=0)
    assert_allclose(m.global_risk_pct, 50.0, rtol=1e-15, atol=0)
    assert list(m.individual.index) == list("abcdef")
    assert list(m.individual.columns) == ["risk", "fk", "Fk"]
    assert m.hier_risk is None and m.hier_risk_er is None and m.hier_risk_pct is None
    assert m.max_global_risk == 0.01


def test_sample_risk_uses_approx_formula():
    df = pd.DataFrame({"k": [1, 2, 2], "w": [5.0, 4.0, 6.0]})
    m = pysdc.measure_risk(df, "k", w="w")
    p1, p2 = 1 / 5, 2 / 10
    q1, q2 = p1 / (1 - p1), p2 / (1 - p2)
    expected = [q1 * np.log(1 / p1), q2 - q2**2 * np.log(1 / p2), q2 - q2**2 * np.log(1 / p2)]
    assert_allclose(m.individual["risk"], expected, rtol=1e-14, atol=0)
    assert_allclose(m.global_risk_er, sum(expected), rtol=1e-14, atol=0)


def test_unit_weights_same_as_no_weights():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.integers(0, 2, 60).astype(float), "w": 1.0})
    df.loc[::7, "b"] = NA
    a = pysdc.measure_risk(df, ["a", "b"])
    b = pysdc.measure_risk(df, ["a", "b"], w="w")
    assert_allclose(a.individual["risk"], b.individual["risk"], rtol=1e-15, atol=0)
    assert a.global_risk_er == b.global_risk_er


def test_character_keys_are_factors():
    df = pd.DataFrame({"k": ["x", "x", "y", None]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = pysdc.measure_risk(df, "k")
    # the missing key is a wildcard: x rows 2 + 1 (complete rows get alpha * missing with one key)
    assert_allclose(m.individual["fk"], [3, 3, 2, 4], rtol=0, atol=0)


def test_alpha_is_passed_on():
    df = pd.DataFrame({"a": [1, 1, NA], "b": [1, 2, 1]})
    m = pysdc.measure_risk(df, ["a", "b"], alpha=0.5)
    assert_allclose(m.individual["fk"], [1.5, 1.0, 2.0], rtol=0, atol=0)
    assert_allclose(m.individual["fk"], pysdc.freq_calc(df, ["a", "b"], alpha=0.5).fk, rtol=0, atol=0)


# ------------------------------------------------------------ threshold

def test_threshold_found_by_hand():
    # n = 4, total risk 1.3. max 0.2 -> target 0.8: at r=0.2 (j=2) 0.3 + 0.2*2 = 0.7 < 0.8
    assert threshold_search(np.array([0.5, 0.5, 0.2, 0.1]), 0.2) == (0.2, 0.2, 0.5)
    assert global_threshold(np.array([0.2, 0.5, 0.1, 0.5]), 0.2) == 0.2
    # max 0.1 -> target 0.4: 0.7 and then 0.1 + 0.1*3 = 0.4 (not < 0.4): no value, last value 0.1 -> 0
    assert threshold_search(np.array([0.5, 0.5, 0.2, 0.1]), 0.1) == (0.0, 0.0, 0.1)
    assert global_threshold(np.array([0.5, 0.5, 0.2, 0.1]), 0.1) == 0.0


def test_threshold_na_cases():
    # risk already below the maximum: the three thresholds coincide -> NA
    assert np.isnan(global_threshold(np.array([0.001, 0.002]), 0.5))
    # all risks equal and above: no value works, last value equals ... 0.5 != 0 -> 0
    assert global_threshold(np.array([0.5, 0.5, 0.5]), 0.1) == 0.0
    # all zero: total 0 is not < 0 * n... target > 0 so 0 < target -> NA
    assert np.isnan(global_threshold(np.zeros(4), 0.1))
    # any NaN risk -> NA
    assert np.isnan(global_threshold(np.array([0.9, NA, 0.1]), 0.1))
    # empty
    assert np.isnan(global_threshold(np.zeros(0), 0.1))


def test_threshold_with_counts_equals_expanded():
    vals = np.array([0.5, 0.1, 0.25, NA])
    counts = np.array([3, 10, 2, 1])
    for mgr in (0.05, 0.2, 0.6):
        a = global_threshold(vals, mgr, counts=counts)
        b = global_threshold(np.repeat(vals, counts), mgr)
        assert (np.isnan(a) and np.isnan(b)) or a == b


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.25, 1 / 3, 0.5, 1.0]) | st.floats(0, 1), max_size=25),
    st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.5, 0.9]),
)
def test_threshold_matches_scalar_loop(risks, mgr):
    r = np.sort(np.array(risks, dtype=float))[::-1]
    assert threshold_search(r, mgr) == threshold_loop(list(r), mgr)


def test_measure_risk_threshold_end_to_end():
    # population risks 1, 1/2, 1/2, 1/4 x 4: sorted 1, .5, .5, .25 x4 ; n = 7; total 3
    df = pd.DataFrame({"k": [1, 2, 2, 3, 3, 3, 3]})
    m = pysdc.measure_risk(df, "k", max_global_risk=0.3)  # target 2.1
    # j=1 (0.5): remaining 2 + 0.5*1 = 2.5; j=3 (0.25): 1 + 0.25*3 = 1.75 < 2.1 -> 0.25
    assert m.global_threshold == 0.25
    assert np.isnan(pysdc.measure_risk(df, "k", max_global_risk=0.5).global_threshold)


# ------------------------------------------------------------ households

def test_household_risk_by_hand():
    df = pd.DataFrame({"k": [1, 1, 2, 2, 2], "hh": [1, 1, 2, 3, 3]})
    m = pysdc.measure_risk(df, "k", hid="hh")
    expected = [0.75, 0.75, 1 / 3, 1 - (2 / 3) ** 2, 1 - (2 / 3) ** 2]
    assert_allclose(m.individual["hier_risk"], expected, rtol=1e-15, atol=0)
    assert_allclose(m.hier_risk_er, sum(expected), rtol=1e-15, atol=0)
    assert_allclose(m.hier_risk, sum(expected) / 5, rtol=1e-15, atol=0)
    assert_allclose(m.hier_risk_pct, 100 * sum(expected) / 5, rtol=1e-15, atol=0)
    m2 = pysdc.measure_risk(df, "k", hid="hh", fast_hier=False)
    assert_allclose(m2.individual["hier_risk"], expected, rtol=1e-15, atol=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0, 1)), min_size=1, max_size=12))
def test_household_product_equals_boole(rows):
    hid = np.array([h for h, _ in rows])
    r = np.array([x for _, x in rows])
    got = household_risk(hid, r)
    for h in np.unique(hid):
        assert_allclose(got[hid == h], boole(list(r[hid == h])), rtol=1e-12, atol=1e-15)


def test_missing_household_ids_are_own_households():
    df = pd.DataFrame({"k": [1, 1, 2, 2], "hh": [1, NA, NA, 1]})
    with pytest.warns(PysdcWarning, match="household of its own"):
        m = pysdc.measure_risk(df, "k", hid="hh")
    r = 0.5
    assert_allclose(m.individual["hier_risk"], [1 - (1 - r) ** 2, r, r, 1 - (1 - r) ** 2], rtol=1e-15, atol=0)


def test_nan_risks_in_households_follow_fast_hier():
    df = pd.DataFrame({"k": [1, 2, 2], "w": [0.0, 2.0, 3.0], "hh": [1, 1, 2]})
    with pytest.warns(DegenerateResultWarning):
        fast = pysdc.measure_risk(df, "k", w="w", hid="hh")
    with pytest.warns(DegenerateResultWarning):
        slow = pysdc.measure_risk(df, "k", w="w", hid="hh", fast_hier=False)
    assert np.isnan(fast.individual["risk"].iloc[0])
    assert np.isfinite(fast.hier_risk_er)  # NaN skipped, as sdcMicro's R sum(na.rm=TRUE)
    assert np.isnan(slow.hier_risk_er)  # NaN propagates, as sdcMicro's C++ sum
    assert np.isnan(fast.global_threshold)


def test_string_and_categorical_household_ids():
    base = pd.DataFrame({"k": [1, 1, 2, 2, 2], "hh": [10, 10, 20, 30, 30]})
    ref = pysdc.measure_risk(base, "k", hid="hh").individual["hier_risk"]
    for hh in (base["hh"].astype(str), base["hh"].astype("category"), base["hh"].astype(float) * 1e15):
        got = pysdc.measure_risk(base.assign(hh=hh), "k", hid="hh").individual["hier_risk"]
        assert_array_equal(got, ref)


# ------------------------------------------------------------ invariants

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_row_order_invariance(seed, rnd):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    df = pd.DataFrame({
        "a": rng.integers(0, 3, n).astype(float),
        "b": rng.integers(0, 3, n).astype(float),
        "w": rng.uniform(0.5, 9, n),
        "h": rng.integers(0, max(1, n // 2), n),
    })
    df.loc[rng.random(n) < 0.2, "a"] = NA
    perm = list(range(n))
    rnd.shuffle(perm)
    a = pysdc.measure_risk(df, ["a", "b"], w="w", hid="h", max_global_risk=0.2)
    b = pysdc.measure_risk(df.iloc[perm], ["a", "b"], w="w", hid="h", max_global_risk=0.2)
    assert_allclose(b.individual.loc[a.individual.index].to_numpy(), a.individual.to_numpy(), rtol=1e-12, atol=1e-15)
    assert_allclose(b.global_risk_er, a.global_risk_er, rtol=1e-12, atol=0)
    assert_allclose(b.hier_risk_er, a.hier_risk_er, rtol=1e-12, atol=0)
    # the threshold is one of the risks, which depend on the weight summation order in the last bit
    assert_allclose(b.global_threshold, a.global_threshold, rtol=1e-12, atol=0, equal_nan=True)


# ------------------------------------------------------------ refusals & degenerate

@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(max_global_risk=0), "max_global_risk"),
        (dict(max_global_risk=1), "max_global_risk"),
        (dict(max_global_risk=1.5), "max_global_risk"),
        (dict(max_global_risk=-0.1), "max_global_risk"),
        (dict(max_global_risk=np.nan), "max_global_risk"),
        (dict(w="wna"), "missing"),
        (dict(w="nope"), "nope"),
        (dict(hid="nope"), "nope"),
        (dict(hid=["h", "h"]), "hid"),
        (dict(fast_hier="no"), "fast_hier"),
        (dict(alpha=2), "alpha"),
    ],
)
def test_refusals(kwargs, match):
    df = pd.DataFrame({"k": [1, 2], "wna": [1.0, NA], "h": [1, 1]})
    with pytest.raises(InvalidParameterError, match=match):
        pysdc.measure_risk(df, "k", **kwargs)


def test_unknown_key_refused():
    with pytest.raises(InvalidParameterError, match="zz"):
        pysdc.measure_risk(pd.DataFrame({"k": [1]}), ["zz"])


def test_empty_data():
    df = pd.DataFrame({"k": pd.Series([], dtype=float), "w": pd.Series([], dtype=float)})
    for w in (None, "w"):
        with pytest.warns(DegenerateResultWarning, match="no rows"):
            m = pysdc.measure_risk(df, "k", w=w)
        assert m.global_risk_er == 0
        assert np.isnan(m.global_risk) and np.isnan(m.global_risk_pct) and np.isnan(m.global_threshold)
        assert len(m.individual) == 0


def test_zero_and_negative_weights_warn():
    df = pd.DataFrame({"k": [1, 2, 2], "w": [-2.0, 1.0, 3.0]})
    with pytest.warns(DegenerateResultWarning):
        m = pysdc.measure_risk(df, "k", w="w")
    assert np.isnan(m.individual["risk"].iloc[0])
    # sdcMicro: ER skips the NaN; risk of the fk=2, Fk=4 rows is the fk=2 formula
    p = 0.5
    assert_allclose(m.global_risk_er, 2 * (p / (1 - p) - (p / (1 - p)) ** 2 * np.log(1 / p)), rtol=1e-14, atol=0)


# ------------------------------------------------------------ live sdcMicro

@pytest.mark.live
@pytest.mark.rscript("jsonlite")
@pytest.mark.parametrize("seed", [11, 12])
def test_live_against_sdcmicro(seed, tmp_path):
    rng = np.random.default_rng(seed)
    n = 200
    df = pd.DataFrame({f"k{j}": rng.integers(1, 4, n).astype(float) for j in range(3)})
    df.loc[rng.random(n) < 0.1, "k1"] = NA
    df["w"] = rng.integers(8, 800, n) / 8
    df["h"] = rng.integers(1, 80, n)
    df.to_csv(tmp_path / "d.csv", index=False)
    cases = [(0.01, True, 1.0), (0.05, False, 1.0), (0.3, True, 0.5)]
    script = (
        "suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv('d.csv'); out <- list();"
        + "".join(
            f"m <- sdcMicro:::measure_riskWORK(d, keyVars=c('k0','k1','k2'), w='w', hid='h', max_global_risk={mgr},"
            f" fast_hier={'TRUE' if fast else 'FALSE'}, alpha={alpha});"
            f"out[[{i + 1}]] <- list(res=m$Res, ER=m$global_risk_ER, thr=m$global_threshold, hER=m$hier_risk_ER);"
            for i, (mgr, fast, alpha) in enumerate(cases)
        )
        + "cat(toJSON(out, digits=NA, na='string'))"
    )
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for (mgr, fast, alpha), o in zip(cases, json.loads(r.stdout)):
        m = pysdc.measure_risk(df, ["k0", "k1", "k2"], w="w", hid="h", max_global_risk=mgr, fast_hier=fast, alpha=alpha)
        res = np.array(o["res"], dtype=float)
        assert_allclose(m.individual[["risk", "fk", "Fk", "hier_risk"]].to_numpy(), res, rtol=1e-13, atol=0)
        assert_allclose(m.global_risk_er, o["ER"][0], rtol=1e-13, atol=0)
        assert_allclose(m.hier_risk_er, o["hER"][0], rtol=1e-13, atol=0)
        thr = np.nan if o["thr"][0] == "NA" else o["thr"][0]
        assert_allclose(m.global_threshold, thr, rtol=1e-13, atol=0, equal_nan=True)
