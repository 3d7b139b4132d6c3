"""Every size-dependent path is forced and checked against a plain reference implementation.

The numeric core picks dense tables or hashing, equal-length blocks or padded buckets,
by named size thresholds (``pysdc.core.freq.DENSE_*``, ``SCAN_MAX_CELLS``,
``pysdc.core.indiv.MAX_EQUAL_LENGTH_RUNS``, ``pysdc.core.mcd.fast.DISTANCE_CHUNK``).
Each test lowers (or raises) them with ``monkeypatch`` so that small inputs go down the
path large inputs take, and compares with a plain pandas/Python computation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import pysdc
from pysdc.core import freq as core_freq
from pysdc.core import indiv as core_indiv
from pysdc.core.mcd import cov_mcd
from pysdc.core.mcd import fast as mcd_fast

# thresholds that force the hashing (sparse) paths, and that force the dense paths
SPARSE = {"DENSE_PER_RECORD": 0, "DENSE_CODES_MIN": 0, "DENSE_TABLE_MIN": 0}
DENSE = {"DENSE_PER_RECORD": 1 << 30, "DENSE_CODES_MIN": 1 << 40, "DENSE_TABLE_MIN": 1 << 40}
MODES = {"default": {}, "sparse": SPARSE, "dense": DENSE}


@pytest.fixture(params=list(MODES))
def mode(request, monkeypatch):
    for name, value in MODES[request.param].items():
        monkeypatch.setattr(core_freq, name, value)
    return request.param


def _frame(n=300, seed=0, missing=False):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n),  # integer keys: arithmetic codes or hashing
        "b": pd.Categorical(rng.choice(list("pqrs"), n)),
        "c": rng.choice([1.5, 2.5, 1e6], n),  # float keys with a wide range
        "w": rng.uniform(1, 20, n),
        "s": rng.integers(0, 5, n).astype(float),
        "t": rng.integers(0, 3, n).astype(float),
    })
    if missing:
        df["c"] = df["c"].where(rng.random(n) > 0.1)
    return df


def _plain_freq(df, keys, w):
    """fk and Fk by pandas groupby on complete keys."""
    g = df.groupby(keys, sort=False, dropna=False, observed=True)
    return g[keys[0]].transform("size").to_numpy(dtype=float), g[w].transform("sum").to_numpy()


def test_freq_calc_every_path_against_groupby(mode):
    df = _frame(seed=1)
    keys = ["a", "b", "c"]
    f = pysdc.freq_calc(df, keys, w="w")
    fk, Fk = _plain_freq(df, keys, "w")
    assert_array_equal(f.fk, fk)
    assert_allclose(f.Fk, Fk, rtol=1e-12)


def test_freq_calc_wildcards_every_path_against_pairwise_reference(mode):
    """Missing keys as wildcards (alpha 1): fk of i = number of records compatible with i, by brute force."""
    df = _frame(n=120, seed=2, missing=True)
    keys = ["a", "b", "c"]
    f = pysdc.freq_calc(df, keys, w="w")
    v = df[keys].astype(object).to_numpy()
    miss = pd.isna(df[keys]).to_numpy()
    n = len(df)
    fk = np.zeros(n)
    Fk = np.zeros(n)
    w = df["w"].to_numpy()
    for i in range(n):  # a plain O(n^2) reference on 120 records
        for j in range(n):
            if all(miss[i, k] or miss[j, k] or v[i, k] == v[j, k] for k in range(len(keys))):
                if not miss[i].any() and miss[j].all():
                    continue  # records with all keys missing are not added to complete ones
                fk[i] += 1
                Fk[i] += w[j]
    assert_array_equal(f.fk, fk)
    assert_allclose(f.Fk, Fk, rtol=1e-12)


def test_dense_ids_every_path(mode):
    rng = np.random.default_rng(3)
    key = rng.integers(0, 50, 500) * 1000
    ids, m = core_freq.dense_ids(key)
    assert m == len(np.unique(key))
    # same ids exactly for equal keys, different otherwise
    _, ref = np.unique(key, return_inverse=True)
    assert_array_equal(pd.factorize(ids)[0], pd.factorize(ref)[0])


def test_ldiversity_every_path_against_groupby(mode):
    """Distinct and entropy l-diversity per class by pandas, including the sorted (pair) path."""
    df = _frame(seed=4)
    out = pysdc.ldiversity(df, ["a", "b"], ["s", "t"], l_recurs_c=2).table
    g = df.groupby(["a", "b"], observed=True)["s"]
    distinct = g.transform("nunique").to_numpy(dtype=float)
    assert_array_equal(out["s_Distinct_Ldiversity"].to_numpy(), distinct)

    def entropy(x):
        p = x.value_counts(normalize=True).to_numpy()
        return math.exp(-(p * np.log(p)).sum())

    ent = g.transform(entropy).to_numpy(dtype=float)
    assert_allclose(out["s_Entropy_Ldiversity"].to_numpy(), ent, rtol=1e-12)


def test_ldiversity_sorted_group_path_is_reached(monkeypatch):
    """The pair-sorting path of the l-diversity group code (large classes x categories) is taken
    once the dense-table limit is below G * span, and gives the dense path's numbers."""
    from pysdc.core import ldiversity as core_ld

    calls = {"dense": 0}
    original = core_ld._group_ldiversity_dense

    def spy(*args, **kwargs):
        calls["dense"] += 1
        return original(*args, **kwargs)

    df = _frame(n=400, seed=5)
    dense = pysdc.ldiversity(df, ["a", "b"], ["s", "t"], l_recurs_c=1.5).table
    monkeypatch.setattr(core_ld, "_group_ldiversity_dense", spy)
    for name, value in SPARSE.items():
        monkeypatch.setattr(core_freq, name, value)
    sorted_ = pysdc.ldiversity(df, ["a", "b"], ["s", "t"], l_recurs_c=1.5).table
    assert calls["dense"] == 0  # the sorted path ran
    pd.testing.assert_frame_equal(sorted_, dense, check_exact=False, rtol=1e-12)


def test_recursive_ldiversity_against_the_definition(mode):
    """Recursive (c, l)-diversity: the largest l with r1 < c (r_l + ... + r_m), by a plain loop."""
    df = _frame(n=200, seed=6)
    c = 1.5
    out = pysdc.ldiversity(df, ["a"], ["s"], l_recurs_c=c).table
    for _, grp in df.groupby("a"):
        r = np.sort(grp["s"].value_counts().to_numpy())[::-1]
        best = 1
        for ell in range(2, len(r) + 1):
            if np.float32(r[0]) < np.float32(c) * np.float32(r[ell - 1:].sum()):
                best = ell
        got = out.loc[grp.index, "s_Recursive_Ldiversity"].unique()
        assert got.tolist() == [best]


@pytest.mark.parametrize("runs", [0, 1 << 20])
def test_exact_indiv_risk_both_scan_paths(monkeypatch, runs):
    """The exact series accumulates by equal-length blocks or by padded buckets: the same numbers,
    bit for bit, and each within float64's reach of the true value (exact arithmetic).

    The inputs include ill-conditioned ones (fk = 8, Fk = 8.8 keeps ~6 digits): the reference is the
    series in 120-digit decimal arithmetic, and each value's tolerance is the parity table's
    per-cancellation rtol times its cancellation ratio, computed in exact arithmetic too.
    """
    from _exact_risk import exact_risk

    from pysdc._tolerances import tolerance_for

    fk = np.array([3.0, 4, 5, 6, 7, 8, 9, 10, 12, 3])
    Fk = fk * np.array([1.5, 2, 3, 4, 5, 1.1, 7, 9, 2.5, 30])
    f = pysdc.FreqCalcResult(fk=fk, Fk=Fk, n1=0, n2=0)
    with monkeypatch.context() as m:  # the other path, as reference for bitwise equality
        m.setattr(core_indiv, "MAX_EQUAL_LENGTH_RUNS", (1 << 20) if runs == 0 else 0)
        other = pysdc.indiv_risk(f, method="exact").rk
    monkeypatch.setattr(core_indiv, "MAX_EQUAL_LENGTH_RUNS", runs)
    monkeypatch.setattr(core_freq, "SCAN_MAX_CELLS", 8)  # many small chunks in the bucketed scan
    with pytest.warns(pysdc.DegenerateResultWarning, match="cancels"):  # fk = 8, Fk = 8.8 loses 9.5 digits
        r = pysdc.indiv_risk(f, method="exact").rk
    assert_array_equal(r, other)
    tol = tolerance_for("indiv_risk", "exact_series_vs_truth")
    truth = [exact_risk(a, b) for a, b in zip(fk, Fk)]
    for got, (want, ratio) in zip(r, truth):
        assert_allclose(got, want, rtol=tol.rtol * ratio, atol=0)


def test_segmented_accumulate_against_a_loop(monkeypatch):
    monkeypatch.setattr(core_freq, "SCAN_MAX_CELLS", 4)
    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 9, 50)
    values = rng.normal(size=int(lengths.sum()))
    got = core_freq.segmented_accumulate(values, lengths, np.add)
    ref, pos = np.empty_like(values), 0
    for ln in lengths:
        acc = 0.0
        for k in range(ln):
            acc += values[pos + k]
            ref[pos + k] = acc
        pos += ln
    assert_array_equal(got, ref)


def test_mcd_distances_do_not_depend_on_the_block_size(monkeypatch):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 3))
    # pysdc's own FAST-MCD (a numpy Generator) computes its distances in blocks; an R seed would not
    a = cov_mcd(X, random_state=np.random.default_rng(1))
    monkeypatch.setattr(mcd_fast, "DISTANCE_CHUNK", 7)
    b = cov_mcd(X, random_state=np.random.default_rng(1))
    assert_allclose(a.cov, b.cov, rtol=0, atol=0)


def test_string_heuristic_has_one_definition():
    """The bridge's 'few distinct strings' rule: one set of thresholds, used by Python and sent to R."""
    from pysdc.r import _helpers

    assert "few_n" in _helpers._R_HELPERS and "4000" not in _helpers._R_HELPERS
    assert _helpers.few_distinct(np.array(["a", "b"] * 3000, dtype=object))
    assert not _helpers.few_distinct(np.array([str(i) for i in range(6000)], dtype=object))
