"""Walker sampling's draws (pysdc.core.rdist): the vectorised pairing of index attempts and uniforms must draw
exactly what R's one-pair-at-a-time loop draws (R_unif_index(n) by rejection, then unif_rand()), and leave the
stream at the same place. The stored R references (tests/core/test_rrandom_normal.py, tests/protect/test_protect_pram.py's
260-category case) pin the numbers against R; this test pins the vectorisation against the plain definition
over many sizes and category counts (rejection rates from ~0 to ~1/2)."""

from __future__ import annotations

import numpy as np
import pytest

from pysdc.core.rdist import _index_then_uniform, sample_prob
from pysdc.core.rrandom import RRandom


def _one_pair_at_a_time(rng, n, size):
    ks = np.array([0] * size, dtype=np.int64)
    us = np.zeros(size)
    for i in range(size):
        ks[i] = rng.unif_index(float(n))
        us[i] = rng.unif_rand()
    return ks, us


@pytest.mark.parametrize("n", [201, 256, 257, 300, 1000, 4097, 40000])
@pytest.mark.parametrize("size", [1, 2, 7, 500, 5000])
def test_pairs_equal_the_sequential_definition(n, size):
    a, b = RRandom(n + size), RRandom(n + size)
    ka, ua = _index_then_uniform(a, n, size)
    kb, ub = _one_pair_at_a_time(b, n, size)
    assert np.array_equal(ka, kb) and np.array_equal(ua, ub)
    assert a.unif_rand() == b.unif_rand()  # the stream is left at the same place


def test_walker_path_of_sample_is_used_and_reproducible():
    p = np.random.default_rng(3).uniform(size=300)
    x = sample_prob(RRandom(5), 300, 20000, True, p)
    y = sample_prob(RRandom(5), 300, 20000, True, p)
    assert np.array_equal(x, y) and x.min() >= 1 and x.max() <= 300
