"""The speed-ups of issue 28's protection kernels draw and choose exactly what the plain definitions do.

Each vectorised path is checked against a one-at-a-time definition written here (not against its own
output): R's stream in bulk (NumPy's generator) against the 624-word blocks, AS 241 against a scalar
transcription of its formulas, Walker's index/uniform pairs for 2^16 and more categories against R's
one-pair-at-a-time loop. The stored R references (tests/core/test_rrandom*.py, test_protect_noise.py,
test_protect_pram.py) pin the numbers against R itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pysdc.core.rdist import _A, _B, _C, _D, _E, _F, _index_then_uniform, norm_rand, qnorm, rnorm
from pysdc.core.rrandom import RRandom


def _poly(coef, r):
    acc = r * coef[7] + coef[6]
    for c in coef[5::-1]:
        acc = acc * r + c
    return acc


def _qnorm_scalar(p: float) -> float:
    """AS 241 (Wichura 1988) for one p in (0, 1), as R's qnorm evaluates it."""
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _poly(_A, r) / _poly(_B, r)
    r = 0.5 - p + 0.5 if q > 0 else p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        val = _poly(_C, r) / _poly(_D, r)
    else:
        r -= 5.0
        val = _poly(_E, r) / _poly(_F, r)
    return -val if q < 0 else val


def test_qnorm_equals_the_scalar_definition():
    rng = np.random.default_rng(11)
    p = np.concatenate([rng.random(3000), rng.random(500) * 1e-3, 1 - rng.random(500) * 1e-3,
                        [1e-300, 5e-324, 1e-20, 0.075, 0.925, 0.5, 0.5 + 1e-17, 1 - 2**-53]])
    want = np.array([_qnorm_scalar(v) for v in p.tolist()])
    assert np.array_equal(qnorm(p), want)
    assert np.array_equal(qnorm(p.reshape(-1, 2)), want.reshape(-1, 2))
    edge = qnorm(np.array([0.0, 1.0, -0.1, 1.5, np.nan, 0.3]))
    assert edge[0] == -np.inf and edge[1] == np.inf and np.isnan(edge[2:5]).all() and edge[5] == _qnorm_scalar(0.3)


def test_norm_rand_is_inversion_of_two_uniforms():
    a, b = RRandom(7), RRandom(7)
    z = norm_rand(a, 5000)
    u = b.unif_rand(10000)
    want = [_qnorm_scalar((math.floor(134217728.0 * u[2 * i]) + u[2 * i + 1]) / 134217728.0) for i in range(5000)]
    assert np.array_equal(z, np.array(want))
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
