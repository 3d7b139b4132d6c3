"""microaggregation(..., clustermethod="kmeans") for clustpca, clustpppca, clustmcdpca and influence: clusters from
R's stats::kmeans (pysdc.core.kmeans, Hartigan-Wong on R's stream; random_state=s is R's set.seed(s) before
sdcMicro's call). Live (marker ``live``): the bridge (sdcMicro 5.8.0) on fresh random data, strata, ties and
the stops; native: the refusal that remains (bclust), the stream, R's stops passed on."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning, RCallError
from pysdc.core.kmeans import kmeans
from pysdc.core.microagg_clust import clust_order
from pysdc.core.rrandom import RRandom
from pysdc.protect import microaggregation

METHODS = ["clustpca", "influence", "clustpppca", "clustmcdpca"]


def _fresh(seed):
    rng = np.random.default_rng(1000 + seed)
    n, p = int(rng.integers(30, 200)), int(rng.integers(2, 5))
    x = np.abs(rng.normal(size=(n, p)) @ rng.uniform(size=(p, p))) * 10 + 0.5
    x += rng.integers(0, 3, size=(n, 1)) * 15.0  # groups for kmeans to find
    if seed % 2:
        x = np.round(x)  # ties
    df = pd.DataFrame(x, columns=list("abcd")[:p])
    df["g"] = pd.Categorical(rng.choice(["u", "v"], n))
    return df, list("abcd")[:p], int(rng.integers(2, 5)), int(rng.integers(2, 7))


def test_bclust_still_refused_kmeans_not():
    df, v, k, nc = _fresh(0)
    with pytest.raises(InvalidParameterError, match="bclust"):
        microaggregation(df, variables=v, aggr=k, method="clustpca", nc=nc, clustermethod="bclust")
    res = microaggregation(df, variables=v, aggr=k, method="clustpca", nc=nc, clustermethod="kmeans", random_state=1)
    again = microaggregation(df, variables=v, aggr=k, method="clustpca", nc=nc, clustermethod="kmeans",
                             random_state=1)
    pd.testing.assert_frame_equal(res.mx, again.mx)


def test_influence_orders_by_the_kmeans_centres_largest_variable():
    df, v, k, nc = _fresh(2)
    x = df[v].to_numpy(float)
    km = kmeans(x, nc, RRandom(5))
    order = clust_order(x, km.cluster, km.centers, "influence")
    first = order[: int(km.size[0])]
    j = int(np.argmax(km.centers[0]))
    assert set(first) == set(np.flatnonzero(km.cluster == 1))
    assert (np.diff(x[first, j]) >= 0).all()


def test_r_stops_are_passed_on():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0] * 4, "b": [1.0, 5.0, 2.0] * 4})
    with pytest.raises(InvalidParameterError, match="more cluster centers than distinct data points"):
        microaggregation(df, variables=["a", "b"], aggr=2, method="clustpca", nc=4, clustermethod="kmeans",
                         random_state=3)


@pytest.mark.live
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(5))
def test_live_fresh_data(bridge, method, seed):
    df, v, k, nc = _fresh(seed)
    kws = ({}, {"measure": "median"}, {"strata_variables": ["g"], "transf": "none"}, {"nc": 1 + 2 * nc})
    for i, kw in enumerate(kws):
        kw = dict({"nc": nc}, **kw, random_state=100 * seed + i)
        try:
            ref = bridge.microaggregation(df, variables=v, aggr=k, method=method, clustermethod="kmeans", **kw).mx
        except RCallError:  # sdcMicro stopped: pysdc must stop too
            with pytest.raises(InvalidParameterError):
                microaggregation(df, variables=v, aggr=k, method=method, clustermethod="kmeans", **kw)
            continue
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            nat = microaggregation(df, variables=v, aggr=k, method=method, clustermethod="kmeans", **kw).mx
        if method == "clustpca" and "strata_variables" not in kw and _equal_eigenvalues(df[v].to_numpy(float),
                                                                                        kw["nc"], kw["random_state"]):
            # princomp of a cluster whose correlation is 0: its axes are arbitrary (not kmeans); pysdc says so
            assert any(issubclass(w.category, DegenerateResultWarning) and "largest eigenvalues" in str(w.message)
                       for w in rec)
            continue
        pd.testing.assert_frame_equal(nat, ref, check_exact=False, rtol=1e-12, atol=0, check_dtype=False)


def _equal_eigenvalues(x, nc, seed):
    """A kmeans cluster (of at least p records) whose correlation matrix has (nearly) equal eigenvalues: the
    first principal component of princomp is then rounding noise (LAPACK's choice), whatever the clusters."""
    km = kmeans(x, nc, RRandom(seed))
    for c in range(nc):
        xs = x[km.cluster == c + 1]
        if xs.shape[0] >= x.shape[1] and (xs.std(axis=0) > 0).all():
            ev = np.linalg.eigvalsh(np.corrcoef(xs.T))
            if ev[-1] - ev[-2] < 1e-8:
                return True
    return False


@pytest.mark.live
@pytest.mark.parametrize("nc", [25, 30, 31])
def test_live_stops_like_sdcmicro(bridge, nc):
    """nc = n (kmeans: 'number of cluster centres ...'), nc > n (sample.int) and fewer distinct rows than nc."""
    df = pd.DataFrame({"a": np.r_[np.arange(20.0), np.zeros(10)], "b": np.r_[np.arange(20.0) % 7, np.ones(10)]})
    df = df.iloc[: nc if nc < 30 else 30]
    with pytest.raises(RCallError) as r_err:
        bridge.microaggregation(df, variables=["a", "b"], aggr=2, method="clustpca", nc=nc, clustermethod="kmeans",
                                random_state=1)
    with pytest.raises(InvalidParameterError) as err:
        microaggregation(df, variables=["a", "b"], aggr=2, method="clustpca", nc=nc, clustermethod="kmeans",
                         random_state=1)
    r_msg = str(r_err.value)
    for text in ("number of cluster centres", "cannot take a sample larger", "more cluster centers than distinct"):
        if text in r_msg:
            assert text in str(err.value)
            break
    else:
        pytest.fail(f"unexpected R message: {r_msg}")


# R's kmeans warnings and the stops after it, on r_reference/inputs/kmeans/nearly.csv (records a few ulps apart;
# the stored kmeans cases kmeans:nearly:* give R's warnings): (nc, seed, method) -> R's warning, sdcMicro's stop
NEARLY = [
    (6, 4, "influence", "did not converge in 10 iterations", None),
    (6, 4, "clustpca", "did not converge in 10 iterations", "constant within cluster"),
    (2, 14, "influence", "Quick-TRANSfer stage steps exceeded maximum (= 2900)", "largest value on two variables"),
    (2, 14, "clustpca", "Quick-TRANSfer stage steps exceeded maximum (= 2900)", None),
]


def _nearly():
    path = Path(__file__).resolve().parents[2] / "r_reference" / "inputs" / "kmeans" / "nearly.csv"
    return pd.DataFrame(np.loadtxt(path, delimiter=","), columns=["a", "b"])


@pytest.mark.parametrize(("nc", "seed", "method", "warning", "stop"), NEARLY)
def test_kmeans_warnings_passed_on(nc, seed, method, warning, stop):
    kw = dict(variables=["a", "b"], aggr=3, method=method, nc=nc, clustermethod="kmeans", random_state=seed)
    with pytest.warns(PysdcWarning, match=re.escape(warning)):
        if stop is None:
            microaggregation(_nearly(), **kw)
        else:
            with pytest.raises(InvalidParameterError, match=stop):
                microaggregation(_nearly(), **kw)


@pytest.mark.live
@pytest.mark.parametrize(("nc", "seed", "method", "warning", "stop"), NEARLY)
def test_live_kmeans_warnings_as_sdcmicro(bridge, nc, seed, method, warning, stop):
    kw = dict(variables=["a", "b"], aggr=3, method=method, nc=nc, clustermethod="kmeans", random_state=seed)
    if stop is not None:
        with pytest.raises(RCallError):
            bridge.microaggregation(_nearly(), **kw)
        return
    with pytest.warns(UserWarning, match=re.escape(warning)):
        ref = bridge.microaggregation(_nearly(), **kw).mx
    with pytest.warns(PysdcWarning, match=re.escape(warning)):
        nat = microaggregation(_nearly(), **kw).mx
    pd.testing.assert_frame_equal(nat, ref, check_exact=True, check_dtype=False)
