"""freq_calc: sdcMicro's wildcard rules, checked by hand, by brute force and live."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import pysdc
from pysdc import CoercionWarning, InvalidParameterError

NA = np.nan


# ------------------------------------------------------------ brute force

def brute_force_freq(keys: np.ndarray, w: np.ndarray, alpha: float):
    """O(n^2) reference written from sdcMicro's rules (see freq_calc's Notes).

    keys: (n, k) float with NaN for missing.
    """
    n, k = keys.shape
    miss = np.isnan(keys)
    fk = np.zeros(n)
    Fk = np.zeros(n)
    for i in range(n):
        if miss[i].all():
            fk[i], Fk[i] = n, w.sum()
            continue
        for j in range(n):
            identical = all((miss[i, c] and miss[j, c]) or (not miss[i, c] and not miss[j, c] and keys[i, c] == keys[j, c])
                            for c in range(k))
            compatible = all(miss[i, c] or miss[j, c] or keys[i, c] == keys[j, c] for c in range(k))
            if identical:
                f = 1.0
            elif not compatible:
                f = 0.0
            elif k == 1:
                # single key: complete record i gains alpha per missing record
                f = alpha if not miss[i].any() else 1.0
            elif not miss[i].any():
                # complete i: only records with some (not all) keys missing, times alpha
                f = alpha if (miss[j].any() and not miss[j].all()) else 0.0
            elif not miss[j].any():
                f = 1.0  # i has missing keys, j complete: full count
            else:
                f = alpha  # both have missing keys
            fk[i] += f
            Fk[i] += f * w[j]
    return fk, Fk


# ------------------------------------------------------------ hand cases

def _example():
    return pd.DataFrame({
        "a": [1, 1, 2, NA, NA, 1, NA],
        "b": [1, 2, 1, 1, NA, NA, NA],
        "c": [1, 1, 1, 1, 1, 1, NA],
        "w": [1.0, 2, 3, 4, 5, 6, 7],
    })


def test_hand_example_alpha_1():
    # row 1 (1,1,1): itself + rows 4,5,6 (partially missing, compatible) = 4; weights 1+4+5+6
    # row 4 (NA,1,1): itself + complete rows 1,3 + rows 5,6,7 = 6; weights 4+1+3+5+6+7
    # row 5 (NA,NA,1): itself + complete 1,2,3 + rows 4,6,7 = 7
    # row 7 all missing: n = 7, sum(w) = 28
    f = pysdc.freq_calc(_example(), ["a", "b", "c"], w="w")
    assert_array_equal(f.fk, [4, 3, 3, 6, 7, 6, 7])
    assert_array_equal(f.Fk, [16, 13, 12, 26, 28, 25, 28])
    assert f.n1 == 0 and f.n2 == 0


def test_hand_example_alpha_half():
    f = pysdc.freq_calc(_example(), ["a", "b", "c"], w="w", alpha=0.5)
    # row 1: 1 + 0.5 * 3;  row 4: 1 + 2 + 0.5 * 3;  row 7 unaffected by alpha
    assert_allclose(f.fk, [2.5, 2.0, 2.0, 4.5, 5.5, 4.5, 7.0], rtol=0, atol=1e-15)
    assert_allclose(f.Fk, [8.5, 7.5, 7.5, 17.0, 19.5, 17.0, 28.0], rtol=0, atol=1e-12)
    assert f.n2 == 2  # rows 2 and 3: exactly 2.0


def test_complete_data_plain_counts():
    df = pd.DataFrame({"a": [1, 1, 2, 2, 2, 3], "b": [0, 0, 0, 0, 1, 1], "w": [1.5, 2.5, 1, 1, 3, 4]})
    f = pysdc.freq_calc(df, ["a", "b"], w="w")
    assert_array_equal(f.fk, [2, 2, 2, 2, 1, 1])
    assert_array_equal(f.Fk, [4, 4, 2, 2, 3, 4])
    assert (f.n1, f.n2) == (2, 4)


def test_no_weights_means_Fk_equals_fk():
    df = pd.DataFrame({"a": [1, 1, NA, 2], "b": [1, NA, 1, 2]})
    f = pysdc.freq_calc(df, ["a", "b"])
    f1 = pysdc.freq_calc(df.assign(w=1.0), ["a", "b"], w="w")
    assert_array_equal(f.fk, f.Fk)
    assert_array_equal(f.fk, f1.fk)
    assert_array_equal(f.Fk, f1.Fk)


def test_partial_gets_full_count_of_complete_matches():
    # (1, NA) is compatible with (1,1) and (1,2): 1 + 2 (alpha does not scale complete matches)
    df = pd.DataFrame({"a": [1, 1, 1, 2], "b": [1, 2, NA, 1]})
    f = pysdc.freq_calc(df, ["a", "b"], alpha=0.25)
    assert_allclose(f.fk, [1.25, 1.25, 3.0, 1.0], rtol=0, atol=0)


def test_partial_partial_scaled_by_alpha():
    # (1, NA) and (NA, 2) are compatible with each other: alpha each
    df = pd.DataFrame({"a": [1, NA, 3], "b": [NA, 2, 4]})
    f = pysdc.freq_calc(df, ["a", "b"], alpha=0.5)
    assert_allclose(f.fk, [1.5, 1.5, 1.0], rtol=0, atol=0)


def test_identical_partial_rows_count_fully():
    df = pd.DataFrame({"a": [1, 1, 5], "b": [NA, NA, 5]})
    f = pysdc.freq_calc(df, ["a", "b"], alpha=0.0)
    assert_array_equal(f.fk, [2, 2, 1])


def test_all_missing_rows_not_added_to_complete_rows():
    # complete rows ignore the all-missing row; the partial row counts it (times alpha)
    df = pd.DataFrame({"a": [1, 1, NA, NA], "b": [1, 1, NA, 1], "w": [1.0, 1, 10, 100]})
    f = pysdc.freq_calc(df, ["a", "b"], w="w", alpha=0.5)
    # complete: 2 + 0.5 * 1 (the (NA,1) row);  (NA,1): 1 + 2 + 0.5 * 1 (all-missing row)
    assert_allclose(f.fk, [2.5, 2.5, 4.0, 3.5], rtol=0, atol=0)
    assert_allclose(f.Fk, [52.0, 52.0, 112.0, 107.0], rtol=0, atol=0)


def test_all_missing_rows_ignore_alpha():
    df = pd.DataFrame({"a": [NA, 1, 2], "b": [NA, 1, 2], "w": [2.0, 3, 4]})
    for alpha in (0.0, 0.3, 1.0):
        f = pysdc.freq_calc(df, ["a", "b"], w="w", alpha=alpha)
        assert f.fk[0] == 3 and f.Fk[0] == 9


def test_single_key_rules():
    df = pd.DataFrame({"a": [1, 1, 2, NA, NA], "w": [1.0, 2, 3, 4, 5]})
    f = pysdc.freq_calc(df, "a", w="w", alpha=0.5)
    assert_allclose(f.fk, [3, 3, 2, 5, 5], rtol=0, atol=0)
    assert_allclose(f.Fk, [7.5, 7.5, 7.5, 15, 15], rtol=0, atol=0)


def test_all_rows_missing():
    df = pd.DataFrame({"a": [NA, NA, NA], "b": [NA, NA, NA]})
    f = pysdc.freq_calc(df, ["a", "b"])
    assert_array_equal(f.fk, [3, 3, 3])


def test_categorical_keys_are_codes():
    df = pd.DataFrame({"a": pd.Categorical(["x", "x", None, "y"]), "b": [1, 1, 1, 1]})
    f = pysdc.freq_calc(df, ["a", "b"])
    assert_array_equal(f.fk, [3, 3, 4, 2])


def test_character_keys_parsed_like_as_numeric():
    df = pd.DataFrame({"a": ["x", "y", "3", " 3 "], "b": [1, 1, 1, 1]})
    with pytest.warns(CoercionWarning, match="astype\\('category'\\)"):
        f = pysdc.freq_calc(df, ["a", "b"])
    # "x", "y" become NA (one combination (NA,1) of 2 rows) and match the two 3s
    assert_array_equal(f.fk, [4, 4, 4, 4])


def test_numeric_strings_do_not_warn():
    df = pd.DataFrame({"a": ["1", "2", "2"]})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = pysdc.freq_calc(df, "a")
    assert_array_equal(f.fk, [1, 2, 2])


def test_empty_data_warns():
    with pytest.warns(pysdc.DegenerateResultWarning):
        f = pysdc.freq_calc(pd.DataFrame({"a": pd.Series([], dtype=float)}), "a")
    assert f.fk.size == 0 and f.n1 == 0


def test_numpy_array_input():
    f = pysdc.freq_calc(np.array([[1, 2], [1, 2], [3, 4]]), ["V1", "V2"])
    assert_array_equal(f.fk, [2, 2, 1])


# ------------------------------------------------------------ refusals

@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(key_vars=["nope"]), "nope"),
        (dict(key_vars=[]), "at least one"),
        (dict(key_vars=["a"], w="nope"), "nope"),
        (dict(key_vars=["a"], w="a"), "also a key"),
        (dict(key_vars=["a"], alpha=1.5), "alpha"),
        (dict(key_vars=["a"], alpha=-0.1), "alpha"),
        (dict(key_vars=["a"], alpha="x"), "alpha"),
        (dict(key_vars=["a"], w="wna"), "missing"),
    ],
)
def test_refusals(kwargs, match):
    df = pd.DataFrame({"a": [1, 2], "w": [1.0, 2.0], "wna": [1.0, NA]})
    with pytest.raises(InvalidParameterError, match=match):
        pysdc.freq_calc(df, **kwargs)


def test_refuses_non_frame():
    with pytest.raises(InvalidParameterError, match="data"):
        pysdc.freq_calc([[1, 2]], ["a"])


def test_zero_weights_warn():
    df = pd.DataFrame({"a": [1, 2], "w": [0.0, 2.0]})
    with pytest.warns(pysdc.DegenerateResultWarning, match="zero or negative"):
        f = pysdc.freq_calc(df, "a", w="w")
    assert_array_equal(f.Fk, [0, 2])


# ------------------------------------------------------------ properties

@st.composite
def frames(draw, max_n=14):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, 3))
    vals = draw(st.lists(st.lists(st.sampled_from([1.0, 2.0, 3.0, NA]), min_size=k, max_size=k), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n))
    alpha = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
    return np.array(vals, dtype=float), np.array(w), alpha


@settings(max_examples=150, deadline=None)
@given(frames())
def test_matches_brute_force(case):
    keys, w, alpha = case
    df = pd.DataFrame(keys, columns=[f"k{j}" for j in range(keys.shape[1])]).assign(w=w)
    f = pysdc.freq_calc(df, list(df.columns[:-1]), w="w", alpha=alpha)
    fk, Fk = brute_force_freq(keys, w, alpha)
    assert_allclose(f.fk, fk, rtol=1e-12, atol=1e-12)
    assert_allclose(f.Fk, Fk, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(frames(), st.randoms(use_true_random=False))
def test_row_order_invariance(case, rnd):
    keys, w, alpha = case
    df = pd.DataFrame(keys, columns=[f"k{j}" for j in range(keys.shape[1])]).assign(w=w)
    perm = list(range(len(df)))
    rnd.shuffle(perm)
    kv = list(df.columns[:-1])
    f = pysdc.freq_calc(df, kv, w="w", alpha=alpha)
    g = pysdc.freq_calc(df.iloc[perm], kv, w="w", alpha=alpha)
    assert_allclose(g.fk, f.fk[perm], rtol=1e-12, atol=1e-12)
    assert_allclose(g.Fk, f.Fk[perm], rtol=1e-12, atol=1e-12)


def test_large_cardinality_keys_hash_path():
    # values far apart force the hash (non-arithmetic) coding; compare with small codes
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 300).astype(float)
    b = rng.integers(0, 4, 300).astype(float)
    b[rng.random(300) < 0.1] = NA
    df = pd.DataFrame({"a": a, "b": b})
    big = pd.DataFrame({"a": a * 1e12 + 0.5, "b": b * -3e15})
    assert_array_equal(pysdc.freq_calc(df, ["a", "b"]).fk, pysdc.freq_calc(big, ["a", "b"]).fk)


# ------------------------------------------------------------ live sdcMicro

def _run_r(code: str, df: pd.DataFrame, tmp_path) -> dict:
    df.to_csv(tmp_path / "d.csv", index=False)
    script = "suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv('d.csv')\n" + code
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.live
@pytest.mark.rscript("jsonlite")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_live_against_sdcmicro(seed, tmp_path):
    rng = np.random.default_rng(seed)
    n = 150
    k = 1 + seed % 3
    df = pd.DataFrame({f"k{j}": rng.integers(1, 4, n).astype(float) for j in range(k)})
    for j in range(k):
        df.loc[rng.random(n) < 0.15, f"k{j}"] = NA
    df["w"] = rng.integers(1, 400, n) / 8  # exactly representable in CSV
    kv = "c(" + ",".join(f"'k{j}'" for j in range(k)) + ")"
    out = _run_r(
        f"r <- lapply(c(1, 0.5), function(a) {{ f <- freqCalc(d, keyVars={kv}, w='w', alpha=a); "
        "list(fk=f$fk, Fk=f$Fk, n1=f$n1, n2=f$n2) }); cat(toJSON(r, digits=NA))",
        df, tmp_path,
    )
    for alpha, o in zip((1.0, 0.5), out):
        f = pysdc.freq_calc(df, [f"k{j}" for j in range(k)], w="w", alpha=alpha)
        assert_allclose(f.fk, o["fk"], rtol=1e-13, atol=0)
        assert_allclose(f.Fk, o["Fk"], rtol=1e-13, atol=0)
        assert (f.n1, f.n2) == (o["n1"][0], o["n2"][0])
