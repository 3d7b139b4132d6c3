"""pysdc.prob_linkage: Fellegi--Sunter probabilistic record linkage with EM.

No sdcMicro counterpart. Checked here: the pattern counts against an enumeration of every candidate
pair, the EM against Splink's EM (an independent implementation of the same model; skipped where
splink cannot be imported), the EM recovering known m/u-probabilities from exact expected counts,
the threshold rule by hand, the linked and true counts against the enumerated pairs.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.core.linkage import fs_classify, fs_em, pattern_counts


def _files(n=400, seed=7, blocks=4):
    rng = np.random.default_rng(seed)
    vars_ = ["k1", "k2", "k3", "k4"]
    x = pd.DataFrame({c: rng.integers(0, m, n) for c, m in zip(vars_, (12, 8, 20, 5))})
    x["blk"] = rng.integers(0, blocks, n)
    y = x.copy()
    for c, p in zip(vars_, (0.1, 0.2, 0.15, 0.05)):
        flip = rng.random(n) < p
        y.loc[flip, c] = rng.integers(0, 30, int(flip.sum())) + 100
    return x.astype({c: str for c in vars_}), y.astype({c: str for c in vars_}), vars_


def _enumerated(x, y, vars_, block):
    """Every candidate pair's agreement pattern (bit j: agree on vars_[j]) and whether it is a true pair."""
    i, j = np.meshgrid(np.arange(len(x)), np.arange(len(y)), indexing="ij")
    i, j = i.ravel(), j.ravel()
    same = np.ones(i.size, dtype=bool)
    for b in block:
        same &= x[b].to_numpy()[i] == y[b].to_numpy()[j]
    i, j = i[same], j[same]
    pat = np.zeros(i.size, dtype=np.int64)
    for k, v in enumerate(vars_):
        a, c = x[v].to_numpy()[i], y[v].to_numpy()[j]
        pat |= ((a == c) & pd.notna(a)).astype(np.int64) << k
    return pat, i == j


def test_pattern_counts_equal_enumeration():
    x, y, vars_ = _files(n=150, seed=3, blocks=3)
    x.loc[[2, 5], "k1"] = None  # a missing value never agrees
    r = pysdc.prob_linkage(x, y, vars_, block=["blk"])
    pat, true = _enumerated(x, y, vars_, ["blk"])
    by_pat = r.patterns.assign(code=sum(r.patterns[v].to_numpy().astype(np.int64) << k for k, v in enumerate(vars_)))
    counts = np.bincount(pat, minlength=16)
    true_counts = np.bincount(pat[true], minlength=16)
    assert by_pat.set_index("code")["pairs"].sort_index().tolist() == counts.tolist()
    assert by_pat.set_index("code")["true_pairs"].sort_index().tolist() == true_counts.tolist()
    assert r.candidate_pairs == pat.size
    linked = by_pat.loc[by_pat["status"] == "link", "code"].to_numpy()
    assert r.linked_pairs == int(np.isin(pat, linked).sum())
    assert r.true_links == int(np.isin(pat[true], linked).sum())
    assert r.precision == r.true_links / r.linked_pairs
    assert r.risk == r.true_links / len(y)


def test_pattern_counts_without_blocks_and_with_missing_blocks():
    cx = [np.array([0, 1, 1, -1]), np.array([0, 0, 1, 1])]
    cy = [np.array([1, 1, 0]), np.array([0, 1, 1])]
    bx = np.array([0, 0, 1, -1])
    by = np.array([0, 1, 0])
    got = pattern_counts(cx, cy, bx, by)
    expect = np.zeros(4, dtype=np.int64)
    for i, j in itertools.product(range(4), range(3)):
        if bx[i] < 0 or bx[i] != by[j]:
            continue
        p = sum(int(cx[k][i] >= 0 and cx[k][i] == cy[k][j]) << k for k in range(2))
        expect[p] += 1
    assert got.tolist() == expect.tolist()


def test_em_recovers_known_parameters_from_expected_counts():
    """Counts proportional to the mixture's pattern probabilities: EM's fixed point is the truth."""
    m, u, p = np.array([0.9, 0.8, 0.95]), np.array([0.1, 0.3, 0.05]), 0.02
    g = ((np.arange(8)[:, None] >> np.arange(3)) & 1).astype(float)
    prob = p * np.prod(m ** g * (1 - m) ** (1 - g), axis=1) + (1 - p) * np.prod(u ** g * (1 - u) ** (1 - g), axis=1)
    counts = prob * 1e9  # fs_em takes counts as given (floats are fine for the kernel)
    em = fs_em(counts, 3, p0=0.1, tol=1e-15, max_iter=20000)
    assert em["converged"]
    np.testing.assert_allclose(em["m"], m, rtol=1e-5)
    np.testing.assert_allclose(em["u"], u, rtol=1e-5)
    assert em["p"] == pytest.approx(p, rel=1e-5)


def test_thresholds_by_hand():
    # four patterns, weights 5 > 3 > 1 > -2; u-probabilities 0.001, 0.004, 0.2, 0.795; m 0.6, 0.3, 0.08, 0.02
    w = np.array([3.0, 5.0, -2.0, 1.0])
    pu = np.array([0.004, 0.001, 0.795, 0.2])
    pm = np.array([0.3, 0.6, 0.02, 0.08])
    status, lt, nlt = fs_classify(w, pm, pu, mu=0.005, lam=0.05)
    assert status.tolist() == [2, 2, 0, 1] and lt == 3.0 and nlt == -2.0
    status, lt, nlt = fs_classify(w, pm, pu, mu=0.0005, lam=0.2)  # nothing linked; the bottom two non-linked
    assert status.tolist() == [1, 1, 0, 0] and lt == np.inf and nlt == 1.0
    # equal weights are never split
    status, _, _ = fs_classify(np.array([2.0, 2.0]), np.array([0.5, 0.5]), np.array([0.01, 0.01]), 0.015, 0.0)
    assert status.tolist() == [1, 1]


def test_numeric_variables_are_categorised():
    rng = np.random.default_rng(0)
    cols = ["a", "b", "c", "d"]
    x = pd.DataFrame(rng.normal(size=(300, 4)), columns=cols)
    y = x + rng.normal(scale=0.01, size=x.shape)
    r = pysdc.prob_linkage(x, y, cols, bins=5)
    # 5 quantile classes of x: a random pair agrees on a variable with probability about 1/5
    assert r.u.between(0.15, 0.25).all() and (r.m > 0.9).all()
    two = pysdc.prob_linkage(x, y, cols, bins={"a": [0.0]})  # one boundary: two classes for a, 10 for the others
    assert two.u["a"] == pytest.approx(0.5, abs=0.05) and two.u["b"] == pytest.approx(0.1, abs=0.03)
    with pytest.raises(pysdc.InvalidParameterError, match="bins"):
        pysdc.prob_linkage(x, y, cols, bins={"zz": 3})


def test_refusals():
    x, y, vars_ = _files(n=50)
    with pytest.raises(pysdc.InvalidParameterError, match="false_link_rate"):
        pysdc.prob_linkage(x, y, vars_, false_link_rate=0)
    with pytest.raises(pysdc.InvalidParameterError, match="x_id and y_id"):
        pysdc.prob_linkage(x.assign(i=range(50)), y, vars_, x_id="i")
    with pytest.raises(pysdc.InvalidParameterError, match="not columns of y"):
        pysdc.prob_linkage(x, y.drop(columns="k1"), vars_)
    with pytest.raises(pysdc.InvalidParameterError, match="no candidate pairs"):
        pysdc.prob_linkage(x, y.assign(blk=99), vars_, block=["blk"])


def test_ids_give_the_true_pairs():
    x, y, vars_ = _files(n=120, seed=11)
    perm = np.random.default_rng(1).permutation(120)
    xi, yi = x.assign(pid=np.arange(120)), y.assign(pid=np.arange(120)).iloc[perm].reset_index(drop=True)
    a = pysdc.prob_linkage(x, y, vars_, block=["blk"])
    b = pysdc.prob_linkage(xi, yi, vars_, block=["blk"], x_id="pid", y_id="pid")
    assert (a.true_links, a.linked_pairs) == (b.true_links, b.linked_pairs)
    np.testing.assert_allclose(a.m, b.m, rtol=1e-12)


def test_em_agrees_with_splink():
    """Splink (DuckDB backend) estimates the same Fellegi--Sunter model by EM, m and u both free."""
    try:
        import splink.comparison_library as cl
        from splink import Linker, SettingsCreator, block_on
        from splink.backends.duckdb import DuckDBAPI
    except ImportError as exc:
        pytest.skip(f"splink cannot be imported ({exc}); pip install splink (the [test] extra has it)")
    x, y, vars_ = _files()
    r = pysdc.prob_linkage(x, y, vars_, block=["blk"], tol=1e-14, max_iter=5000)
    assert r.converged
    logging.getLogger("splink").setLevel(logging.WARNING)
    db = DuckDBAPI()
    n = len(x)
    settings = SettingsCreator(link_type="link_only", comparisons=[cl.ExactMatch(c) for c in vars_],
                               blocking_rules_to_generate_predictions=[block_on("blk")],
                               max_iterations=500, em_convergence=1e-7)
    linker = Linker([db.register(x.assign(unique_id=np.arange(n))), db.register(y.assign(unique_id=np.arange(n)))],
                    settings)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("blk"), fix_u_probabilities=False)
    model = linker.misc.save_model_to_json()
    for comp in model["comparisons"]:
        level = next(lv for lv in comp["comparison_levels"] if lv.get("label_for_charts", "").startswith("Exact"))
        v = comp["output_column_name"]
        # splink stops when no parameter moves by more than 1e-7 per iteration: agreement to about 1e-5
        assert level["m_probability"] == pytest.approx(r.m[v], abs=5e-5), v
        assert level["u_probability"] == pytest.approx(r.u[v], abs=5e-5), v
