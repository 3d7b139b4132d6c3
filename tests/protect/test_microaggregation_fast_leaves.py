"""The farthest query of mdav_fast starts its lower bound from the leaves of its last answers (issue 28).

``_Cells.farthest`` keeps the leaves that held its last ``_RECENT`` answers (each leaf once) and takes its
first lower bound from their remaining records' real squared distances; the farthest records of recent rounds
lie where the next ones do, so fewer balls pass. The bound must stay a bound: the leaves' records may all
have been grouped since, and a rebuild of the tree renumbers the leaves (the list starts empty again). Each
query is checked against a scan of every remaining record (sdcMicro's single-precision distance, the first
record in record order among equal distances), and the whole against the plain rounds on data shaped to
stress it: ties, duplicates, zero-inflated columns, one and many variables; data with missing values never
reach mdav_fast (the plain rounds handle them).
"""

from __future__ import annotations

import numpy as np
import pytest
from _mdav_cells import cells as _cells
from _mdav_cells import scan_farthest as _scan_farthest

from pysdc.core import microagg


def _data(seed: int, n: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "zero_inflated":  # lognormal tails, 40 % exact zeros in the last variable
        d = np.round(rng.lognormal(9, 1, n))
        d[rng.random(n) < 0.4] = 0.0
        return np.column_stack([np.round(rng.normal(size=n) * 8) / 8, np.round(rng.normal(size=n), 1), d])
    if kind == "ties":  # three values per variable: most distances equal
        return rng.integers(0, 3, (n, 2)).astype(float)
    if kind == "duplicates":  # every record 25 times
        base = np.column_stack([rng.integers(0, 4, n // 25), np.round(rng.lognormal(size=n // 25), 2)])
        return np.repeat(base, 25, axis=0)[rng.permutation(n - n % 25)]
    if kind == "one_variable":  # zero-inflated, in one variable: many records at the same distance
        v = np.round(rng.lognormal(2, 1, n))
        v[rng.random(n) < 0.5] = 0.0
        return v[:, None]
    if kind == "many_variables":  # eight variables, two of them zero-inflated, one constant
        x = np.round(rng.normal(size=(n, 8)) * 4) / 4
        x[rng.random(n) < 0.4, 2] = 0.0
        x[rng.random(n) < 0.7, 5] = 0.0
        x[:, 7] = 3.0
        return x
    raise ValueError(kind)


KINDS = ["zero_inflated", "ties", "duplicates", "one_variable", "many_variables"]


@pytest.mark.parametrize("kind", KINDS)
def test_farthest_equals_a_scan_while_the_last_answers_leaves_empty_and_the_tree_is_rebuilt(kind):
    x = _data(3, 3000, kind)
    n = x.shape[0]
    cells, z, w = _cells(x)
    rng = np.random.default_rng(4)
    m0, rebuilt = cells.m, False
    for rnd in range(400):
        alive = np.flatnonzero(cells.alive[:n])
        if alive.size < 8:
            break
        # queries from the tails (as MDAV's) and from anywhere
        q = int(alive[np.argmax(np.abs(x[alive]).sum(axis=1))]) if rnd % 2 else int(rng.choice(alive))
        want = _scan_farthest(x, cells.alive, x[q], w)
        got = cells.farthest(x[q], z[q])
        assert got == want
        # the answer's leaf is among the last answers' leaves, each leaf once
        lf = int(cells.leaf_of[got])
        held = cells.recent[cells.recent < len(cells.live) - 1]
        assert lf in held.tolist()
        assert np.unique(held).size == held.size
        # the answer and its neighbourhood leave (the leaves just listed lose their records)
        gone = np.r_[got, q, alive[np.argsort(np.abs(z[alive] - z[got]).sum(axis=1))[:5]]]
        m_before = cells.m
        cells.remove(np.unique(gone))
        if cells.m != m_before:  # rebuilt: new leaves, the list starts empty (the padding leaf only)
            rebuilt = True
            assert (cells.recent == len(cells.live) - 1).all()
    assert rebuilt and cells.m < m0


@pytest.mark.parametrize("kind", KINDS)
def test_a_list_of_leaves_without_remaining_records_leaves_the_answer_unchanged(kind):
    """Every listed leaf emptied by hand: the first bound falls back to the group with the largest bound."""
    x = _data(5, 2000, kind)
    n = x.shape[0]
    cells, z, w = _cells(x)
    for q in (0, int(np.argmax(x[:, -1])), int(np.argmin(x[:, 0]))):
        if not cells.alive[q]:
            continue
        got = cells.farthest(x[q], z[q])
        assert got == _scan_farthest(x, cells.alive, x[q], w)
        listed = cells.recent[cells.recent < len(cells.live) - 1]
        rows = cells.rows_of.take(listed, axis=0).ravel()
        rows = np.unique(rows[(rows < n) & cells.alive.take(rows)])
        rows = rows[rows != q]
        if rows.size and rows.size < cells.n_live // 2 - 8:  # stay clear of a rebuild
            cells.remove(rows)
            assert np.isneginf(cells._dreal(listed, np.append(z[q], 1.0), 0.0)).all()
        assert cells.farthest(x[q], z[q]) == _scan_farthest(x, cells.alive, x[q], w)


@pytest.mark.parametrize(("kind", "n", "k"), [("zero_inflated", 3100, 3), ("ties", 1800, 2),
                                              ("ties", 1300, 4), ("duplicates", 2500, 3),
                                              ("one_variable", 2200, 3), ("one_variable", 1500, 5),
                                              ("many_variables", 1700, 3)])
def test_fast_equals_plain_rounds(monkeypatch, kind, n, k):
    x = _data(11, n, kind)
    with monkeypatch.context() as m:
        m.setattr(microagg, "FAST_FROM", 10**12)
        v0, g0, _ = microagg.mdav(x, k)
    v1, g1 = microagg.mdav_fast(x, k)
    assert np.array_equal(g0, g1)
    assert np.array_equal(v0, v1)


def test_missing_values_take_the_plain_rounds(monkeypatch):
    """With a NaN the fast path is not taken (it has no missing-value rule): the same result as the plain
    rounds, whatever FAST_FROM says."""
    x = _data(12, 1200, "zero_inflated")
    x[[5, 70, 900], [0, 2, 1]] = np.nan
    with monkeypatch.context() as m:
        m.setattr(microagg, "FAST_FROM", 10**12)
        v0, g0, d0 = microagg.mdav(x, 3)
    with monkeypatch.context() as m:
        m.setattr(microagg, "FAST_FROM", 10)
        m.setattr(microagg, "mdav_fast", None)  # would raise if called
        v1, g1, d1 = microagg.mdav(x, 3)
    assert np.array_equal(g0, g1)
    assert np.array_equal(v0, v1, equal_nan=True)
    assert d0 == d1
