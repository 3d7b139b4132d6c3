"""The farthest-record query of MDAV's fast path (pysdc.core.microagg_fast) on its block tables.

mdav_fast bounds the distances by balls around groups of leaves, sub-groups of neighbouring leaves and leaves
of a k-d tree, brackets the distances of the leaves' records by their real squared distances from a table
(leaf x slot x (-2 z, |z|^2), |z|^2 = -inf where no remaining record is; one product per query), evaluates
sdcMicro's single-precision distance only where the bracket cannot decide, and starts its bound from a hint
(the records at the head of the list of records far from the centroid). Each piece is checked against a scan
of every remaining record (sdcMicro's single-precision distance, the first record in record order among equal
distances), and the whole against the plain rounds on data shaped to stress them: ties, zero-inflated columns,
many copies of the same record, sizes on both sides of a tree rebuild and of the leaf width.
"""

from __future__ import annotations

import numpy as np
import pytest
from _mdav_cells import cells as _cells
from _mdav_cells import scan_farthest as _scan_farthest

from pysdc.core import microagg
from pysdc.core import microagg_fast as mf


def _shaped(seed: int, n: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "zero_inflated":  # the benchmark's shape: lognormal tails, 40 % exact zeros
        d = np.round(rng.lognormal(9, 1, n))
        d[rng.random(n) < 0.4] = 0.0
        c = np.round(rng.lognormal(size=n) * 1024) / 1024
        return np.column_stack([np.round(rng.normal(size=n) * 16) / 16, np.round(rng.normal(size=n), 1), c, d])
    if kind == "ties":  # a few distinct values per variable: many equal distances
        return rng.integers(0, 3, (n, 3)).astype(float)
    if kind == "copies":  # long runs of the same record (leaves the tree cannot split)
        base = np.column_stack([rng.integers(0, 5, n // 40), rng.lognormal(size=n // 40)])
        return np.repeat(base, 40, axis=0)[rng.permutation(n - n % 40)]
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["zero_inflated", "ties", "copies"])
def test_block_table_holds_exactly_the_remaining_records(kind):
    x = _shaped(5, 4000, kind)
    cells, z, w = _cells(x)
    rng = np.random.default_rng(1)
    order = rng.permutation(x.shape[0])
    for step in range(0, 2400, 3):  # groups of 3 leave; past half of the records the tree is rebuilt
        cells.remove(order[step:step + 3])
        if step % 600 == 0 or step > 2000:
            slots = cells.rows_of[:, :cells.zp.shape[1]]
            filled = cells.zp[:, :, -1] > -np.inf
            assert np.array_equal(filled, cells.alive.take(slots))
            assert np.isfinite(cells.zp[:, :, :-1]).all()  # -inf * 0 never
            held = np.sort(slots[filled])
            assert np.array_equal(held, np.flatnonzero(cells.alive[:x.shape[0]]))
            zf = z[slots[filled]]
            assert np.array_equal(cells.zp[filled], np.column_stack([-2.0 * zf, (zf * zf).sum(axis=1)]))
            # the three levels of balls count the remaining records of their leaves, and a level is open
            # exactly while one remains (sub-groups of up to _SUB leaves between groups and leaves)
            per_leaf = filled.sum(axis=1)
            assert np.array_equal(cells.live, per_leaf)  # (a list: remove() counts record by record)
            per_sub = np.r_[np.add.reduceat(per_leaf[:-1], np.flatnonzero(np.r_[True, np.diff(cells.sb_of) != 0])), 0]
            assert np.array_equal(cells.live3, per_sub)
            assert np.array_equal(cells.balls3[:, -1] > 0, per_sub > 0)
            assert np.array_equal(cells.balls[:, -1] > 0, per_leaf > 0)
            assert (np.diff(cells.leaves_of3, axis=1)[cells.leaves_of3[:, 1:] < len(cells.live) - 1] == 1).all()
    assert cells.m < x.shape[0]  # the rebuild happened


@pytest.mark.parametrize("kind", ["zero_inflated", "ties", "copies"])
def test_real_distances_bracket_sdcmicros_single_precision_distances(kind):
    """The table's real squared distances dr and the bracket farthest() uses around them:
    max(s - e, 0)^2 (1 - eta) <= D <= (s + e)^2 (1 + eta), s = sqrt(dr), D sdcMicro's distance."""
    x = _shaped(6, 3000, kind)
    cells, z, w = _cells(x)
    cells.remove(np.arange(0, 3000, 7))
    leaves = np.arange(len(cells.live))
    for q in (11, 12, int(np.argmax(x[:, -1]))):
        qz = z[q]
        q2 = float(qz @ qz)
        dr = cells._dreal(leaves, np.append(qz, 1.0), q2)
        slots = cells.rows_of[:, :cells.zp.shape[1]].ravel()
        filled = dr > -np.inf
        assert np.array_equal(filled, cells.alive.take(slots))
        d = mf._d32(x[slots[filled]], x[q], w).astype(float)
        err = 4 * (qz.size + 8) * 2.0 ** -53 * (max(cells.cmax, cells.zmax) + np.sqrt(q2)) ** 2
        e = np.sqrt(err) + 4 * cells.sig
        s = np.sqrt(np.maximum(dr[filled], 0.0))
        assert (d <= (s + e) ** 2 * (1 + cells.eta)).all()
        assert (d >= np.maximum(s - e, 0.0) ** 2 * (1 - cells.eta)).all()
        # the lower bound farthest() starts from is one
        assert all(cells._lo(float(v), e) <= dv for v, dv in zip(dr[filled][:500], d[:500]))


@pytest.mark.parametrize("kind", ["zero_inflated", "ties", "copies"])
def test_farthest_equals_a_scan_with_and_without_hint(kind):
    x = _shaped(7, 5000, kind)
    n = x.shape[0]
    cells, z, w = _cells(x)
    rng = np.random.default_rng(2)
    order = rng.permutation(n)
    done = 0
    for rnd in range(60):
        q = int(order[done + 5])
        want = _scan_farthest(x, cells.alive, x[q], w)
        alive_ids = np.flatnonzero(cells.alive[:n])
        hints = [None, np.empty(0, dtype=np.int64), rng.choice(alive_ids, 50),
                 np.array([want]), np.array([q])]  # a hint at the answer, a hint at the query itself
        for h in hints:
            assert cells.farthest(x[q], z[q], h) == want
        take = 60 if rnd % 10 == 0 else 25
        cells.remove(order[done:done + take])
        done += take


@pytest.mark.parametrize(("kind", "n", "k"), [("zero_inflated", 900, 3), ("zero_inflated", 2600, 3),
                                              ("ties", 1500, 2), ("ties", 2100, 5),
                                              ("copies", 2400, 3), ("copies", 1200, 7)])
def test_fast_equals_plain_rounds_on_shaped_data(monkeypatch, kind, n, k):
    x = _shaped(9, n, kind)
    with monkeypatch.context() as m:
        m.setattr(microagg, "FAST_FROM", 10**12)
        v0, g0, _ = microagg.mdav(x, k)
    v1, g1 = microagg.mdav_fast(x, k)
    assert np.array_equal(g0, g1)
    assert np.array_equal(v0, v1)
