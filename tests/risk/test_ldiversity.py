"""ldiversity: distinct / entropy / recursive l-diversity, sdcMicro's missing-value rules, live parity."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import pysdc
from pysdc import CoercionWarning, DegenerateResultWarning, InvalidParameterError, PysdcWarning

NA = np.nan


def recursive_reference(freqs, c):
    """Largest l with r_1 < c * (r_l + ... + r_m) (at least 1), frequencies sorted decreasingly."""
    r = sorted(freqs, reverse=True)
    best = 1
    for ell in range(2, len(r) + 1):
        if r[0] < c * sum(r[ell - 1:]):
            best = ell
    return best


def test_columns_and_hand_values():
    df = pd.DataFrame({"k": [1, 1, 1, 1, 2, 2, NA], "s": [1, 1, 2, 3, 5, 5, 4]}, index=list("abcdefg"))
    out = pysdc.ldiversity(df, "k", "s").table
    assert list(out.columns) == [
        "s_Distinct_Ldiversity", "s_Entropy_Ldiversity", "s_Recursive_Ldiversity",
        "MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity",
    ]
    assert list(out.index) == list("abcdefg")
    assert_array_equal(out["s_Distinct_Ldiversity"], [3, 3, 3, 3, 1, 1, 1])
    # frequencies 2,1,1 of 4: exp(-(0.5 ln 0.5 + 2 * 0.25 ln 0.25)) = 2 ** 1.5
    assert_allclose(out["s_Entropy_Ldiversity"], [2**1.5] * 4 + [1, 1, 1], rtol=1e-14, atol=0)
    # c = 2: 2 < 2 * (1 + 1) holds for l = 2, 2 < 2 * 1 fails for l = 3
    assert_array_equal(out["s_Recursive_Ldiversity"], [2, 2, 2, 2, 1, 1, 1])
    # one sensitive variable: sdcMicro leaves the Multi columns at 0
    assert_array_equal(out["MultiEntropy_Ldiversity"], 0)
    assert_array_equal(out["MultiRecursive_Ldiversity"], 0)


def test_missing_keys_are_singletons_not_wildcards():
    df = pd.DataFrame({"a": [NA, NA, 1, 1], "b": [1, 1, 1, 1], "s": [1, 2, 1, 2]})
    out = pysdc.ldiversity(df, ["a", "b"], "s").table
    assert_array_equal(out["s_Distinct_Ldiversity"], [1, 1, 2, 2])


def test_each_missing_sensitive_value_is_distinct():
    df = pd.DataFrame({"k": [1, 1, 1, 1], "s": [1, 2, NA, NA]})
    out = pysdc.ldiversity(df, "k", "s").table
    assert_array_equal(out["s_Distinct_Ldiversity"], [4, 4, 4, 4])
    assert_allclose(out["s_Entropy_Ldiversity"], 4.0, rtol=1e-14, atol=0)
    assert_array_equal(out["s_Recursive_Ldiversity"], 4)


def test_multi_columns_with_one_key_two_sensitive():
    # key class a=1: subgroups by s: s=1 -> t {1,2}, s=2 -> t {1,3}: entropy 2, recursive 2 each
    df = pd.DataFrame({"a": [1, 1, 1, 1, 2], "s": [1, 1, 2, 2, 1], "t": [1, 2, 1, 3, 1]})
    out = pysdc.ldiversity(df, "a", ["s", "t"]).table
    assert_allclose(out["MultiEntropy_Ldiversity"], [2, 2, 2, 2, 1], rtol=1e-6, atol=0)
    assert_array_equal(out["MultiRecursive_Ldiversity"], [2, 2, 2, 2, 1])
    assert_array_equal(out["t_Distinct_Ldiversity"], [3, 3, 3, 3, 1])


def test_multi_columns_zero_when_keys_outnumber_sensitive():
    df = pd.DataFrame({"a": [1, 1, 1], "b": [1, 1, 1], "s": [1, 2, 3], "t": [1, 2, 2]})
    out = pysdc.ldiversity(df, ["a", "b"], ["s", "t"]).table
    assert_array_equal(out["MultiEntropy_Ldiversity"], 0)
    assert_array_equal(out["MultiRecursive_Ldiversity"], 0)


def test_sdcmicro_missing_code_in_sensitive():
    df = pd.DataFrame({"a": [1, 1, 1, 1, 1, 1, 2, 2], "s": [-999, 1, 2, 2, 3, 3, -999, -999]})
    with pytest.warns(DegenerateResultWarning, match="-999"):
        out = pysdc.ldiversity(df, "a", "s", l_recurs_c=1.3).table
    p = np.array([1, 2, 2, 1]) / 6  # values 1, 2, 3 plus the "missing" -999
    assert_array_equal(out["s_Distinct_Ldiversity"], [4] * 6 + [0, 0])
    assert_allclose(out["s_Entropy_Ldiversity"], [np.exp(-(p * np.log(p)).sum())] * 6 + [1, 1], rtol=1e-14, atol=0)
    # recursive ignores -999: frequencies 2,2,1 with c = 1.3: 2 < 1.3 * 3 but not < 1.3 * 1
    assert_array_equal(out["s_Recursive_Ldiversity"][:6], 2)
    assert out["s_Recursive_Ldiversity"][6:].isna().all()


def test_missing_code_in_key_warns():
    df = pd.DataFrame({"a": [-999, -999, 1], "s": [1, 2, 1]})
    with pytest.warns(PysdcWarning, match="-999"):
        out = pysdc.ldiversity(df, "a", "s").table
    assert_array_equal(out["s_Distinct_Ldiversity"], [2, 2, 1])


def test_character_sensitive_coerced_with_warning():
    df = pd.DataFrame({"a": [1, 1, 1], "s": ["x", "x", "2"]})
    with pytest.warns(CoercionWarning, match="category"):
        out = pysdc.ldiversity(df, "a", "s").table
    assert_array_equal(out["s_Distinct_Ldiversity"], 3)  # two NAs (distinct) and 2
    out2 = pysdc.ldiversity(df.assign(s=df["s"].astype("category")), "a", "s").table
    assert_array_equal(out2["s_Distinct_Ldiversity"], 2)


def test_recursive_constant_zero_means_one():
    df = pd.DataFrame({"a": [1, 1, 1, 1], "s": [1, 1, 2, 3]})
    assert_array_equal(
        pysdc.ldiversity(df, "a", "s", l_recurs_c=0).table["s_Recursive_Ldiversity"],
        pysdc.ldiversity(df, "a", "s", l_recurs_c=1).table["s_Recursive_Ldiversity"],
    )


def test_empty_data():
    df = pd.DataFrame({"a": pd.Series([], dtype=float), "s": pd.Series([], dtype=float)})
    out = pysdc.ldiversity(df, "a", "s").table
    assert out.shape == (0, 5)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=6), min_size=1, max_size=5),
    st.sampled_from([0.5, 1.0, 2.0, 3.0]),
)
def test_recursive_matches_definition(groups, c):
    keys, sens, expected = [], [], []
    for g, freqs in enumerate(groups):
        for cat, f in enumerate(freqs):
            keys += [g] * f
            sens += [cat] * f
        expected += [recursive_reference(freqs, c)] * sum(freqs)
    df = pd.DataFrame({"k": keys, "s": sens})
    out = pysdc.ldiversity(df, "k", "s", l_recurs_c=c).table
    assert_array_equal(out["s_Recursive_Ldiversity"], expected)
    assert_array_equal(out["s_Distinct_Ldiversity"], [len(f) for f in groups for _ in range(sum(f))])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_row_order_invariance(seed, rnd):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    df = pd.DataFrame({"a": rng.integers(0, 3, n).astype(float), "s": rng.integers(0, 4, n).astype(float),
                       "t": rng.integers(0, 3, n).astype(float)})
    df.loc[rng.random(n) < 0.15, "a"] = NA
    df.loc[rng.random(n) < 0.15, "s"] = NA
    perm = list(range(n))
    rnd.shuffle(perm)
    a = pysdc.ldiversity(df, "a", ["s", "t"]).table
    b = pysdc.ldiversity(df.iloc[perm], "a", ["s", "t"]).table
    assert_allclose(b.loc[a.index].to_numpy(), a.to_numpy(), rtol=1e-14, atol=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(key_vars="a", ldiv_index="a"), "also key"),
        (dict(key_vars="a", ldiv_index=["s1", "s2", "s3", "s4", "s5", "s6"]), "at most 5"),
        (dict(key_vars="a", ldiv_index="zz"), "zz"),
        (dict(key_vars="zz", ldiv_index="s1"), "zz"),
        (dict(key_vars="a", ldiv_index="s1", l_recurs_c="2"), "l_recurs_c"),
    ],
)
def test_refusals(kwargs, match):
    df = pd.DataFrame({"a": [1, 2], **{f"s{i}": [1, 2] for i in range(1, 7)}})
    with pytest.raises(InvalidParameterError, match=match):
        pysdc.ldiversity(df, **kwargs)


# ------------------------------------------------------------ live sdcMicro

@pytest.mark.live
@pytest.mark.rscript
@pytest.mark.parametrize("n_keys, n_sens, c", [(1, 3, 2.0), (2, 2, 1.3), (2, 4, 0.5)])
def test_live_against_sdcmicro(n_keys, n_sens, c, tmp_path):
    rng = np.random.default_rng(n_keys * 10 + n_sens)
    n = 150
    df = pd.DataFrame({f"k{j}": rng.integers(1, 4, n).astype(float) for j in range(n_keys)})
    df.loc[rng.random(n) < 0.05, "k0"] = NA
    for j in range(n_sens):
        df[f"s{j}"] = rng.integers(1, 5, n).astype(float)
        df.loc[rng.random(n) < 0.1, f"s{j}"] = NA
    keys = [f"k{j}" for j in range(n_keys)]
    sens = [f"s{j}" for j in range(n_sens)]
    df.to_csv(tmp_path / "d.csv", index=False)
    script = (
        "suppressMessages(library(sdcMicro)); d <- read.csv('d.csv');"
        f"r <- unclass(ldiversity(d, keyVars=c({','.join(map(repr, keys))}), ldiv_index=c({','.join(map(repr, sens))}),"
        f" l_recurs_c={c})); write.csv(as.data.frame(r), 'out.csv', row.names=FALSE)"
    )
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ref = pd.read_csv(tmp_path / "out.csv")
    out = pysdc.ldiversity(df, keys, sens, l_recurs_c=c).table
    assert list(out.columns) == list(ref.columns)
    assert_allclose(out.to_numpy(), ref.to_numpy(), rtol=1e-13, atol=0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(["int8", "int32", "int64", "uint8", "uint64", "bool"]))
def test_integer_keys_same_bits_as_float_keys(seed, dtype):
    # integer key columns take a separate fast path (one mixed-radix key, no
    # per-column codes); as.numeric makes them the same numbers as floats
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    k = int(rng.integers(1, 4))
    ints = {f"k{j}": rng.integers(0, 2 if dtype == "bool" else int(rng.integers(1, 6)), n) for j in range(k)}
    off = 250 if dtype == "uint8" else 0
    sens = {f"s{j}": rng.integers(0, int(rng.integers(1, 7)), n).astype(float) for j in range(int(rng.integers(1, 4)))}
    if seed % 3 == 0:
        sens["s0"][rng.random(n) < 0.2] = NA
    if seed % 4 == 1:
        sens["s0"][rng.random(n) < 0.2] = -999
    as_int = pd.DataFrame({**{c: (v + off).astype(dtype) for c, v in ints.items()}, **sens})
    as_float = pd.DataFrame({**{c: (v + off).astype(dtype).astype(float) for c, v in ints.items()}, **sens})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the DegenerateResultWarning of all -999 classes
        a = pysdc.ldiversity(as_int, list(ints), list(sens), l_recurs_c=1.5).table
        b = pysdc.ldiversity(as_float, list(ints), list(sens), l_recurs_c=1.5).table
    assert_array_equal(a.to_numpy(), b.to_numpy())

