"""The speed-ups of issue 28's protection kernels draw and choose exactly what the plain definitions do.

Each vectorised path is checked against a one-at-a-time definition written here (not against its own
output): R's stream in bulk (NumPy's generator) against the 624-word blocks, AS 241 against a scalar
transcription of its formulas, Walker's index/uniform pairs for 2^16 and more categories against R's
one-pair-at-a-time loop; local suppression's profiles and pairs found by groupings over subsets of keys
against every pair compared, and sdcMicro's stored localSuppression cases run through the subset paths.
The stored R references (tests/core/test_rrandom*.py, test_protect_noise.py, test_protect_pram.py,
test_protect_suppression.py) pin the numbers against R itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pysdc._registry._methods import method_by_r_name
from pysdc.core import suppress
from pysdc.core.freq import freq_core
from pysdc.core.rdist import _index_then_uniform, norm_rand, qnorm, rnorm
from pysdc.core.rrandom import RRandom

from _methods import check_stored_case, stored_cases
from _rstream import norm_rand_scalar, qnorm_scalar

ROOT = Path(__file__).resolve().parents[2] / "r_reference"


def test_qnorm_equals_the_scalar_definition():
    rng = np.random.default_rng(11)
    p = np.concatenate([rng.random(3000), rng.random(500) * 1e-3, 1 - rng.random(500) * 1e-3,
                        [1e-300, 5e-324, 1e-20, 0.075, 0.925, 0.5, 0.5 + 1e-17, 1 - 2**-53]])
    want = np.array([qnorm_scalar(v) for v in p.tolist()])
    assert np.array_equal(qnorm(p), want)
    assert np.array_equal(qnorm(p.reshape(-1, 2)), want.reshape(-1, 2))
    edge = qnorm(np.array([0.0, 1.0, -0.1, 1.5, np.nan, 0.3]))
    assert edge[0] == -np.inf and edge[1] == np.inf and np.isnan(edge[2:5]).all() and edge[5] == qnorm_scalar(0.3)


def test_norm_rand_is_inversion_of_two_uniforms():
    a, b = RRandom(7), RRandom(7)
    z = norm_rand(a, 5000)
    u = b.unif_rand(10000)
    assert np.array_equal(z, norm_rand_scalar(u))
    assert a.unif_rand() == b.unif_rand()


@pytest.mark.parametrize("mean,sd", [(3.0, 2.0), (0.0, 0.0), (np.inf, 1.0), (np.nan, 1.0), (1.0, -1.0),
                                     (1.0, np.inf), ([1.0, np.nan, 2.0], [1.0, 0.0])])
def test_rnorm_scalar_and_recycled_parameters(mean, sd):
    """One mean and sd (the fast path) and recycled vectors draw as R: nothing where R draws nothing."""
    a, b = RRandom(5), RRandom(5)
    n = 7
    got = rnorm(a, n, mean, sd)
    mu = np.resize(np.asarray(mean, dtype=float), n)
    sg = np.resize(np.asarray(sd, dtype=float), n)
    want = np.empty(n)
    for i in range(n):
        if np.isnan(mu[i]) or not np.isfinite(sg[i]) or sg[i] < 0:
            want[i] = np.nan
        elif sg[i] == 0 or not np.isfinite(mu[i]):
            want[i] = mu[i]
        else:
            want[i] = mu[i] + sg[i] * norm_rand(b, 1)[0]
    assert np.array_equal(got, want, equal_nan=True)
    assert a.unif_rand() == b.unif_rand()


@pytest.mark.parametrize("seed", [1, 42, -7])
def test_bulk_words_equal_the_block_words(seed):
    """Long draws go through NumPy's MT19937 (written straight to uint32); short ones through the 624-word
    blocks. Both give the same words and leave the stream in the same place."""
    a, b = RRandom(seed), RRandom(seed)
    a.unif_rand(3)
    b.unif_rand(3)
    bulk = a._words(20000)
    small = np.concatenate([b._words(1000) for _ in range(20)])
    assert np.array_equal(bulk, small)
    assert a.unif_rand() == b.unif_rand()
    assert np.array_equal(a.random_seed, b.random_seed)


def _one_pair_at_a_time(rng, n, size):
    ks = np.zeros(size, dtype=np.int64)
    us = np.zeros(size)
    for i in range(size):
        ks[i] = rng.unif_index(float(n))
        us[i] = rng.unif_rand()
    return ks, us


@pytest.mark.parametrize("n", [65536, 65537, 70000, 100000, 2**20 + 1, 2**31 - 1])
@pytest.mark.parametrize("size", [1, 2, 9, 3000])
def test_walker_pairs_for_many_categories(n, size):
    """2^16 and more categories: an index attempt takes two 16-bit chunks; the pointer-doubling path
    draws what R's loop draws and leaves the stream at the same place."""
    a, b = RRandom(n % 997 + size), RRandom(n % 997 + size)
    ka, ua = _index_then_uniform(a, n, size)
    kb, ub = _one_pair_at_a_time(b, n, size)
    assert np.array_equal(ka, kb) and np.array_equal(ua, ub)
    assert a.unif_rand() == b.unif_rand()


# ---- local suppression: groupings over subsets of keys against every pair compared -----------------------


def _random_codes(rng, n, kk, max_card, miss):
    cards = rng.integers(1, max_card + 1, kk)
    codes = np.stack([rng.integers(0, cards[j], n) for j in range(kk)], axis=1)
    codes[rng.random(codes.shape) < miss] = -1
    return codes, cards


@pytest.mark.parametrize("seed", range(12))
def test_profiles_by_subsets_equal_the_dense_profiles(seed):
    rng = np.random.default_rng(seed)
    kk = int(rng.integers(1, 7))
    U, _ = _random_codes(rng, int(rng.integers(1, 300)), kk, 5, rng.random() * 0.5)
    U = np.unique(U, axis=0)
    A = U[rng.choice(U.shape[0], int(rng.integers(1, U.shape[0] + 1)), replace=False)]
    w = rng.integers(1, 6, U.shape[0])
    n1, m1 = suppress._profiles(A, U, w)
    n2, m2 = suppress._profiles_by_subsets(A, U, w)
    assert np.array_equal(n1, n2) and np.array_equal(m1, m2)


@pytest.mark.parametrize("seed", range(12))
def test_pairs_by_subsets_equal_the_dense_pairs(seed):
    rng = np.random.default_rng(100 + seed)
    kk = int(rng.integers(2, 7))
    Q, _ = _random_codes(rng, int(rng.integers(2, 300)), kk, 4, rng.random() * 0.4)
    Q = np.unique(Q, axis=0)
    a = np.sort(rng.choice(Q.shape[0], int(rng.integers(1, Q.shape[0] + 1)), replace=False))
    for b in range(1, kk):
        x = suppress._combo_pairs_by_subsets(a, Q, b)
        y = suppress._combo_pairs_dense(a, Q, np.full(a.size, b))
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1])


def _force(monkeypatch, subsets: bool):
    monkeypatch.setattr(suppress, "_profiles_cost", lambda A, U: (1.0, 0.0) if subsets else (0.0, 1.0))
    monkeypatch.setattr(suppress, "_pairs_by_subsets_cheaper", lambda *args: subsets)


def _supp(codes, cards, k, imp, alpha):
    try:
        return suppress.supp_subset(codes, cards, k, imp, alpha)
    except suppress.NoCandidateError as e:
        return str(e)


@pytest.mark.parametrize("seed", range(20))
def test_local_suppression_rounds_same_by_either_path(seed, monkeypatch):
    """Whole suppressions (rounds, within-round dependencies, widening) with the subset paths forced equal
    those with every pair compared."""
    rng = np.random.default_rng(200 + seed)
    kk = int(rng.integers(2, 7))
    codes, cards = _random_codes(rng, int(rng.integers(10, 500)), kk, 8, rng.random() * 0.25)
    imp = rng.permutation(kk) + 1
    k = float(rng.integers(2, 5))
    alpha = float(rng.choice([1.0, 0.5, 0.0]))
    _force(monkeypatch, True)
    got = _supp(codes, cards, k, imp, alpha)
    _force(monkeypatch, False)
    want = _supp(codes, cards, k, imp, alpha)
    if isinstance(want, str):
        assert got == want
    else:
        assert np.array_equal(got[0], want[0]) and got[1] == want[1]


@pytest.mark.parametrize("case", stored_cases(ROOT, ("localSuppression",), with_rname=False,
                                              xfail_applies_to="native"))
def test_stored_local_suppression_by_subsets(case, monkeypatch):
    """sdcMicro's stored localSuppression cases, every profile and pair found by the subset groupings."""
    _force(monkeypatch, True)
    m = method_by_r_name("localSuppression")
    check_stored_case(m, m.native, case, ROOT, ignore=Warning)


def _sequential_suppression(codes, cards, k, imp, alpha):
    """sdcMicro's heuristic one problem at a time (pysdc.core.suppress's docstring): rounds over the kept
    records; problems (fk < k) in decreasing risk, ties in record order; each suppresses, among the records
    at the smallest positive distance (keys where both are observed and differ), the first key in the order
    where one of them differs -- seeing the suppressions made before it in the round."""
    keep = np.flatnonzero(suppress.reduce_rows(codes, cards, k))
    mat = codes[keep].copy()
    order = suppress.column_order(imp)
    kk = mat.shape[1]
    while True:
        fk_c, _, _, inv = freq_core([mat[:, j] for j in range(kk)], cards, None, alpha)
        fk = fk_c[inv]
        prob = np.flatnonzero(fk < k)
        if prob.size == 0:
            break
        with np.errstate(divide="ignore"):
            prob = prob[np.argsort(-(1.0 / fk[prob]), kind="stable")]
        for i in prob.tolist():
            dif = (mat[i] >= 0) & (mat >= 0) & (mat != mat[i])
            d = dif.sum(axis=1)
            pos = d[d > 0]
            if pos.size == 0:
                if alpha >= 1:
                    return "none"
                own = [j for j in order if mat[i, j] >= 0]
                if not own:
                    return "none"
                mat[i, own[0]] = -1
                continue
            at = dif[d == pos.min()].any(axis=0)
            mat[i, next(j for j in order if at[j])] = -1
    out = codes.copy()
    out[keep] = mat
    return out


@pytest.mark.parametrize("subsets", [True, False])
@pytest.mark.parametrize("seed", range(15))
def test_local_suppression_equals_the_sequential_heuristic(seed, subsets, monkeypatch):
    """The vectorised rounds (within-round dependencies, the pruning of pairs at distance s + 1, widening),
    by either path, suppress the cells the one-problem-at-a-time heuristic suppresses."""
    rng = np.random.default_rng(300 + seed)
    kk = int(rng.integers(2, 7))
    codes, cards = _random_codes(rng, int(rng.integers(10, 400)), kk, 8, rng.random() * 0.25)
    imp = rng.permutation(kk) + 1
    k = float(rng.integers(2, 5))
    alpha = float(rng.choice([1.0, 0.5, 0.0]))
    _force(monkeypatch, subsets)
    got = _supp(codes, cards, k, imp, alpha)
    want = _sequential_suppression(codes, cards, k, imp, alpha)
    if isinstance(want, str):
        assert isinstance(got, str)
    else:
        assert np.array_equal(got[0], want)
