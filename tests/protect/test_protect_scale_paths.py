"""The fast paths that let protection methods run at 1e6 records (issue 28: <= 60 s, <= 4 GiB), each compared with
the existing path it replaces on adversarial data (ties, duplicates, lattices, skewed values): the same groups and
the same numbers, to the bit.

* ``microaggregation(method="rmd")``: each group's nearest records from a k-d tree
  (:func:`pysdc.core.microagg_rmd.rmd_groups_tree`) instead of every remaining record's distance
  (``path="dense"``); benchmarks/bench_protect_1e6.py times it. Live: the tree path against sdcMicro's rmd.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pysdc.core.microagg_rmd as rmd_mod
from pysdc.core.microagg_pca import standardise
from pysdc.core.microagg_rmd import TREE_FROM, rmd_groups, rmd_groups_tree
from pysdc.protect import microaggregation


def _data(kind: str, n: int, p: int, rng) -> np.ndarray:
    if kind == "normal":
        return rng.normal(size=(n, p))
    if kind == "lattice":  # few distinct values: many records at the same distance, many duplicates
        return rng.integers(0, 3, (n, p)).astype(float)
    if kind == "duplicates":  # blocks of identical records (distance 0) among spread ones
        x = rng.normal(size=(n, p))
        x[: n // 2] = x[rng.integers(0, 5, n // 2)]
        return x
    if kind == "zeros":  # lognormal with 40 % exactly 0, as incomes
        x = rng.lognormal(size=(n, p))
        x[rng.random((n, p)) < 0.4] = 0.0
        return x
    if kind == "scaled":  # one variable 1e6 times the others, values in multiples of 2^-10
        x = np.round(rng.normal(size=(n, p)) * 1024) / 1024
        x[:, 0] *= 1e6
        return x
    raise ValueError(kind)


KINDS = ("normal", "lattice", "duplicates", "zeros", "scaled")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("aggr", [1, 2, 3, 5])
def test_rmd_tree_path_gives_the_dense_paths_groups(kind, aggr):
    rng = np.random.default_rng(len(kind) * 10 + aggr)
    for p in (1, 2, 4):
        n = int(rng.integers(2 * aggr, 1500))
        x = _data(kind, n, p, rng)
        for rdist in (rng.random(n), rng.integers(0, 4, n).astype(float)):  # distinct; many equal distances
            dense = rmd_groups(x, aggr, rdist, path="dense")
            tree = rmd_groups(x, aggr, rdist, path="tree")
            np.testing.assert_array_equal(tree, dense)


def test_rmd_tree_path_on_identical_records():
    # nearly every record the same: distances 0, the groups in record order from the start record
    x = np.ones((600, 3))
    x[::7, 1] = 2.0
    x[::5, 0] = 0.0
    x[::11, 2] = 3.0
    rdist = np.zeros(600)
    np.testing.assert_array_equal(rmd_groups(x, 3, rdist, path="tree"), rmd_groups(x, 3, rdist, path="dense"))


def test_rmd_tree_is_chosen_from_tree_from_records(monkeypatch):
    rng = np.random.default_rng(5)
    x = _data("zeros", TREE_FROM, 3, rng)
    rdist = rng.random(TREE_FROM)
    called = []
    real = rmd_groups_tree

    def spy(*args):
        called.append(True)
        return real(*args)

    monkeypatch.setattr(rmd_mod, "rmd_groups_tree", spy)
    rmd_groups(x, 3, rdist)
    assert called
    called.clear()
    rmd_groups(x[:-1], 3, rdist[:-1])
    assert not called


def test_rmd_microaggregation_the_same_with_the_tree_as_with_every_distance(monkeypatch):
    # the public call at a size that takes the tree, against the same call forced onto the dense path
    rng = np.random.default_rng(11)
    n = TREE_FROM + 1000
    x = _data("zeros", n, 4, rng)
    x[:, 1] = np.round(rng.normal(size=n) * 8) / 8  # many ties
    df = pd.DataFrame(x, columns=list("abcd"))
    fast = microaggregation(df, list("abcd"), aggr=3, method="rmd", random_state=7)
    monkeypatch.setattr(rmd_mod, "TREE_FROM", 10 ** 12)
    monkeypatch.setattr(rmd_mod, "rmd_groups_tree", None)  # the dense path only
    dense = microaggregation(df, list("abcd"), aggr=3, method="rmd", random_state=7)
    np.testing.assert_array_equal(np.asarray(fast.groups), np.asarray(dense.groups))
    np.testing.assert_array_equal(fast.mx.to_numpy(), dense.mx.to_numpy())


def test_rmd_tree_path_standardises_as_the_dense_path():
    # rmd_groups_tree takes the standardised values; rmd_groups hands it standardise(x)
    rng = np.random.default_rng(3)
    x = _data("scaled", 900, 3, rng)
    rdist = rng.random(900)
    np.testing.assert_array_equal(rmd_groups_tree(standardise(x), 2, rdist), rmd_groups(x, 2, rdist, path="dense"))


@pytest.mark.live
def test_rmd_tree_path_is_sdcmicros_rmd(bridge):
    # above TREE_FROM records the native call takes the tree; sdcMicro's microaggregation(method = "rmd") after
    # set.seed(1) gives the same values to the bit (checked at 6,000 records; see benchmarks/RESULTS.md for a
    # 9,000-record table where 66 values differ in the last bit on the old path too)
    rng = np.random.default_rng(1)
    n = 6000
    df = pd.DataFrame({"a": np.round(rng.normal(size=n) * 1024) / 1024,
                       "b": np.round(rng.normal(size=n) * 1024) / 1024,
                       "c": np.round(rng.lognormal(size=n) * 1024) / 1024})
    assert n >= TREE_FROM
    native = microaggregation(df, ["a", "b", "c"], aggr=3, method="rmd", random_state=1)
    r = bridge.microaggregation(df, ["a", "b", "c"], aggr=3, method="rmd", random_state=1)
    np.testing.assert_array_equal(native.mx[["a", "b", "c"]].to_numpy(), r.mx[["a", "b", "c"]].to_numpy())
