"""The frequency-based measures on an engine return results per key combination (issue 25, item 4):
:class:`pysdc.FreqCalcCombinations`, :class:`pysdc.IndivRiskCombinations`,
:class:`pysdc.MeasureRiskCombinations`, :class:`pysdc.LDiversityCombinations`, not the pandas classes
(whose arrays promise one value per record). The class contract: one row per combination in every
per-combination array and in ``combinations``, ``counts`` records each, ``counts.sum() == n``,
``individual`` the engine's lazy per-record table. Every summary number equals the pandas result's on
the same data (counts exactly, sums of weights and risks to ENGINE_SUMS).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._summaries import five_numbers, higher_risk, k_anonymity, ldiversity_summary
from pysdc._tolerances import ENGINE_SUMS

from _live import optional

duckdb = optional("duckdb")
pytestmark = pytest.mark.duckdb  # duckdb and pyarrow: skipped with the reason by tests/conftest.py


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(b, dtype=float), np.asarray(a, dtype=float), rtol=ENGINE_SUMS.rtol,
                               atol=ENGINE_SUMS.atol, equal_nan=True)


def _data(n=2000, seed=11) -> pd.DataFrame:
    """Keys with missing values, weights, households, a sensitive variable; the text key ``t`` holds
    "1" and "01", two raw values that R's as.numeric (and so freq_calc) reads as the same key value."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n).astype(float),
        "b": rng.integers(0, 3, n),
        "t": rng.choice(["1", "01", "2"], n).astype(object),
        "w": rng.uniform(1.0, 60.0, n),
        "h": np.sort(rng.integers(0, n // 3, n)).astype(float),
        "s": rng.integers(0, 5, n).astype(float),
    })
    df.loc[rng.random(n) < 0.05, "a"] = np.nan
    return df


@pytest.fixture(scope="module")
def data():
    df = _data()
    return df, duckdb.connect().from_df(df)


def _per_combination_contract(got, n, per_combination: list):
    """One row per combination everywhere; counts add up to the records; individual is lazy."""
    m = len(got.combinations)
    for name in per_combination:
        assert len(getattr(got, name)) == m, name
    assert len(got.counts) == m and int(np.sum(got.counts)) == got.n == n
    assert got.combinations["n"].tolist() == list(got.counts)
    assert not isinstance(got.individual, pd.DataFrame)
    assert len(got.individual.to_pandas()) == n


def test_freq_calc_on_an_engine_is_per_combination_and_its_summary_is_pandas(data):
    df, rel = data
    keys = ["a", "b", "t"]
    ref = _quiet(pysdc.freq_calc, df, keys, w="w")
    got = _quiet(pysdc.freq_calc, rel, keys, w="w")
    assert isinstance(got, pysdc.FreqCalcCombinations) and not isinstance(got, pysdc.FreqCalcResult)
    _per_combination_contract(got, len(df), ["fk", "Fk"])
    # "1" and "01" are two rows of the combination table with the same frequencies
    assert len(got.combinations) > len(df.assign(t=df["t"].astype(float))[keys].drop_duplicates())
    # the per-combination arrays, counted over their records, are the pandas per-record arrays
    assert np.sum(got.fk * got.counts) == np.sum(ref.fk)
    _close(np.sum(ref.Fk), np.sum(got.Fk * got.counts))
    ind = got.individual.to_pandas()
    np.testing.assert_array_equal(ind["fk"], ref.fk)
    _close(ref.Fk, ind["Fk"])
    # every summary number
    assert (got.n1, got.n2) == (ref.n1, ref.n2)
    assert k_anonymity(got.fk, got.counts) == k_anonymity(ref.fk)
    assert str(got) == str(ref)


@pytest.mark.parametrize("method", ["approx", "exact"])
def test_indiv_risk_of_engine_frequencies_is_per_combination(data, method):
    df, rel = data
    keys = ["a", "b", "t"]
    ref = _quiet(pysdc.indiv_risk, _quiet(pysdc.freq_calc, df, keys, w="w"), method=method)
    freq = _quiet(pysdc.freq_calc, rel, keys, w="w")
    got = _quiet(pysdc.indiv_risk, freq, method=method)
    assert isinstance(got, pysdc.IndivRiskCombinations) and not isinstance(got, pysdc.IndivRiskResult)
    _per_combination_contract(got, len(df), [])
    assert len(got.rk) == len(got.fk) == len(got.counts)
    np.testing.assert_array_equal(got.fk, freq.fk)
    _close(ref.rk, got.individual.to_pandas()["rk"])
    _close(np.sum(ref.rk), np.sum(got.rk * got.counts))
    h_ref, h_got = higher_risk(ref.rk), higher_risk(got.rk, got.counts)
    assert h_got["count"] == h_ref["count"]
    for k in ("cut", "median", "mad"):
        _close(h_ref[k], h_got[k])
    assert (got.method, got.qual) == (ref.method, ref.qual)
    assert str(got) == str(ref)


def test_measure_risk_on_an_engine_is_per_combination_and_its_numbers_are_pandas(data):
    df, rel = data
    keys = ["a", "b", "t"]
    ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="h")
    got = _quiet(pysdc.measure_risk, rel, keys, w="w", hid="h")
    assert isinstance(got, pysdc.MeasureRiskCombinations) and not isinstance(got, pysdc.MeasureRiskResult)
    assert isinstance(ref.individual, pd.DataFrame)
    _per_combination_contract(got, len(df), [])
    for name in ("global_risk_er", "global_risk", "global_risk_pct", "global_threshold", "max_global_risk",
                 "hier_risk_er", "hier_risk", "hier_risk_pct"):
        _close(getattr(ref, name), getattr(got, name))
    comb = got.combinations
    _close(ref.global_risk_er, np.nansum(comb["risk"] * comb["n"]))
    assert higher_risk(comb["risk"], comb["n"])["count"] == higher_risk(ref.individual["risk"])["count"]
    ind = got.individual.to_pandas()
    for col in ("risk", "fk", "Fk", "hier_risk"):
        _close(ref.individual[col], ind[col])
    assert str(got) == str(ref)


def test_ldiversity_on_an_engine_is_per_combination_and_its_summary_is_pandas(data):
    df, rel = data
    ref = _quiet(pysdc.ldiversity, df, ["a", "b"], "s")
    got = _quiet(pysdc.ldiversity, rel, ["a", "b"], "s")
    assert isinstance(got, pysdc.LDiversityCombinations) and not isinstance(got, pysdc.LDiversityResult)
    _per_combination_contract(got, len(df), ["table"])
    assert list(got.table.columns) == list(ref.table.columns)
    s_ref, s_got = ldiversity_summary(ref), ldiversity_summary(got)
    assert s_got["n_records"] == s_ref["n_records"] == len(df)
    assert s_got["distinct"] == s_ref["distinct"]  # counts of distinct values: exact
    for col in ref.table.columns:
        a = five_numbers(ref.table[col].to_numpy(float))
        b = five_numbers(got.table[col].to_numpy(float), got.counts)
        assert a.keys() == b.keys()
        _close([a[k] for k in a], [b[k] for k in a])
    assert str(got) == str(ref)


def test_indiv_risk_refuses_what_is_no_frequency_result():
    with pytest.raises(pysdc.InvalidParameterError, match="FreqCalcResult"):
        pysdc.indiv_risk({"fk": [1.0]})
