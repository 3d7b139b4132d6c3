"""pysdc.nn_linkage: distance-based (nearest-neighbour) record linkage.

No sdcMicro counterpart. The k-d tree answers are checked against brute force (every distance
computed with numpy / scipy.spatial.distance), ties by hand, Mahalanobis against scipy's
mahalanobis distance, Gower against pysdc.record_linkage's Gower matrix (itself equal to sdcMicro's).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

import pysdc


def _pair(n=400, p=4, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.normal(size=(n, p)) * [1, 10, 100, 0.1][:p], columns=list("abcd")[:p])
    y = x + rng.normal(scale=noise, size=x.shape) * [1, 10, 100, 0.1][:p]
    return x, y


def _brute(xs, ys, metric="euclidean", **kw):
    d = cdist(ys, xs, metric=metric, **kw)
    m = d.min(axis=1)
    t = (d <= m[:, None]).sum(axis=1)
    own = d[np.arange(len(ys)), np.arange(len(ys))]
    return np.where(own <= m, 1.0 / t, 0.0), d


def test_euclidean_standardised_equals_brute_force():
    x, y = _pair()
    r = pysdc.nn_linkage(x, y, list("abcd"))
    mu, sd = x.mean().to_numpy(), x.std(ddof=1).to_numpy()
    score, d = _brute((x.to_numpy() - mu) / sd, (y.to_numpy() - mu) / sd)
    np.testing.assert_array_equal(r.score, score)
    np.testing.assert_allclose(r.distance, d.min(axis=1), rtol=1e-12)
    assert r.rate == score.mean() and float(r) == r.rate
    second = np.sort(d, axis=1)[:, 1]
    assert r.rate_second == np.mean(np.diag(d) <= second)
    assert 0 < r.rate < 1


def test_weights_and_raw_values():
    x, y = _pair(seed=1)
    w = [1.0, 4.0, 0.5, 2.0]
    r = pysdc.nn_linkage(x, y, list("abcd"), weights=w, standardize="none")
    score, _ = _brute(x.to_numpy() * np.sqrt(w), y.to_numpy() * np.sqrt(w))
    np.testing.assert_array_equal(r.score, score)


def test_mahalanobis_equals_scipy():
    x, y = _pair(n=200, seed=2)
    r = pysdc.nn_linkage(x, y, list("abcd"), distance="mahalanobis")
    vi = np.linalg.inv(np.cov(x.to_numpy(), rowvar=False))
    score, d = _brute(x.to_numpy(), y.to_numpy(), metric="mahalanobis", VI=vi)
    np.testing.assert_array_equal(r.score, score)
    np.testing.assert_allclose(r.distance, d.min(axis=1), rtol=1e-9)


def test_ties_count_one_over_t():
    x = pd.DataFrame({"a": [0.0, 0.0, 0.0, 1.0, 5.0]})
    y = pd.DataFrame({"a": [0.0, 0.0, 0.0, 3.5, 5.0]})
    r = pysdc.nn_linkage(x, y, ["a"], standardize="none")
    # records 0-2: three originals at distance 0, own among them -> 1/3 each; record 3: nearest is 5.0 (1.5)
    # not its own 1.0 (2.5) -> 0; record 4 -> 1
    np.testing.assert_allclose(r.score, [1 / 3, 1 / 3, 1 / 3, 0, 1], rtol=1e-15)
    assert r.n_tied.tolist() == [3, 3, 3, 1, 1]
    assert r.correct == pytest.approx(2.0, rel=1e-15) and r.rate == pytest.approx(0.4, rel=1e-15)
    # a tolerance widens the ties: record 3 is 2.5 from its own and 1.5 from 5.0
    r = pysdc.nn_linkage(x, y, ["a"], standardize="none", tol=1.0)
    assert r.score[3] == pytest.approx(0.5) and r.n_tied[3] == 2


def test_ids_and_different_sizes():
    x, y = _pair(n=100, seed=3)
    x = x.assign(pid=np.arange(100))
    ys = y.assign(pid=np.arange(100)).iloc[::2].iloc[::-1].reset_index(drop=True)  # half, reversed
    r = pysdc.nn_linkage(x, ys, list("abcd"), x_id="pid", y_id="pid")
    full = pysdc.nn_linkage(x, y.assign(pid=np.arange(100)), list("abcd"))
    np.testing.assert_array_equal(r.score, full.score[::2][::-1])
    assert r.n_linked == 50
    with pytest.raises(pysdc.InvalidParameterError, match="paired by position"):
        pysdc.nn_linkage(x, ys, list("abcd"))
    with pytest.raises(pysdc.InvalidParameterError, match="unique"):
        pysdc.nn_linkage(x.assign(pid=1), ys, list("abcd"), x_id="pid", y_id="pid")


def test_gower_equals_record_linkage_matrix():
    rng = np.random.default_rng(4)
    n = 60
    x = pd.DataFrame({"a": rng.normal(size=n), "f": pd.Categorical(rng.choice(["u", "v", "w"], n)),
                      "s": rng.choice(["p", "q"], n).astype(object)})
    y = x.copy()
    y["a"] = y["a"] + rng.normal(scale=0.5, size=n)
    r = pysdc.nn_linkage(x, y, ["a", "f", "s"], distance="gower", weights=[2, 1, 1])
    d = pysdc.record_linkage(x, y, ["a", "f", "s"], weights=[2, 1, 1], return_matrix=True).distance_matrix.T
    m = d.min(axis=1)
    t = (d <= m[:, None]).sum(axis=1)
    np.testing.assert_array_equal(r.n_tied, t)
    np.testing.assert_array_equal(r.score, np.where(np.diag(d) <= m, 1.0 / t, 0.0))
    # blocking on s (unchanged by the masking): candidates only within the block
    b = pysdc.nn_linkage(x, y, ["a", "f"], distance="gower", block=["s"])
    same = y["s"].to_numpy()[:, None] == x["s"].to_numpy()[None, :]
    db = pysdc.record_linkage(x, y, ["a", "f"], return_matrix=True).distance_matrix.T
    db = np.where(same, db, np.inf)
    mb = db.min(axis=1)
    np.testing.assert_allclose(b.distance, mb, rtol=1e-15)
    np.testing.assert_array_equal(b.score, np.where(np.diag(db) <= mb, 1.0 / (db <= mb[:, None]).sum(1), 0.0))


def test_refusals():
    x, y = _pair(n=20)
    xn = x.copy()
    xn.iloc[0, 0] = np.nan
    with pytest.raises(pysdc.InvalidParameterError, match="complete"):
        pysdc.nn_linkage(xn, y, list("abcd"))
    with pytest.raises(pysdc.InvalidParameterError, match="singular"):
        pysdc.nn_linkage(x.assign(e=1.0), y.assign(e=1.0), ["a", "e"], distance="mahalanobis")
    with pytest.raises(pysdc.InvalidParameterError, match="block is for"):
        pysdc.nn_linkage(x, y, list("abcd"), block=["a"])
    with pytest.raises(pysdc.InvalidParameterError, match="weights"):
        pysdc.nn_linkage(x, y, list("abcd"), weights=[1, 2])
    with pytest.raises(pysdc.InvalidParameterError, match="numeric"):
        pysdc.nn_linkage(x.assign(f=pd.Categorical(["u"] * 20)), y.assign(f=pd.Categorical(["u"] * 20)), ["a", "f"])


def test_identical_files_link_everything():
    x, _ = _pair(n=300, seed=5)
    r = pysdc.nn_linkage(x, x.copy(), list("abcd"))
    assert r.rate == 1.0 and (r.distance == 0).all()
