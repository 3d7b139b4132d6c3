"""microaggregation's pca and clustpca order the records by princomp's first component of the correlation matrix;
where its two largest eigenvalues are equal (two variables with correlation exactly 0) that axis is any direction
of their plane, picked by the rounding of R's and NumPy's arithmetic alike: pysdc warns (DegenerateResultWarning)
naming the stratum / cluster and returns its numbers unchanged. Live: sdcMicro's order there differs from pysdc's."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import DegenerateResultWarning
from pysdc.core.clara import clara
from pysdc.core.microagg_pca import first_axis_arbitrary
from pysdc.protect import microaggregation

# two variables with correlation exactly 0: sum((a - 6.5) * (b - 3.4)) = 0 in exact arithmetic
A = np.arange(1.0, 13.0)
B = np.array([1, 3, 3, 1, 2, 2, 2, 2, 1, 3, 3, 1.0]) * 1.7


def _flat() -> pd.DataFrame:
    return pd.DataFrame({"a": A, "b": B})


def _ordinary(seed: int, n: int = 12, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    u = rng.normal(size=n)
    return pd.DataFrame({"a": shift + 500 + 3 * u, "b": shift + 800 + 2 * u + rng.normal(size=n)})


def _two_blobs() -> pd.DataFrame:
    """A blob with correlation exactly 0 (records 0-11) and an ordinary, correlated one far away (12-23)."""
    return pd.concat([_flat(), _ordinary(7)], ignore_index=True)


def _arbitrary_warnings(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = fn()
    return res, [str(w.message) for w in rec if issubclass(w.category, DegenerateResultWarning)
                 and "largest eigenvalues" in str(w.message)]


def test_threshold_on_the_eigenvalues():
    eps = np.finfo(float).eps
    assert first_axis_arbitrary(np.array([1.0, 1.0]), 12)
    assert first_axis_arbitrary(np.array([0.5, 1.0, 1.0 - 10 * eps]), 12)  # within 4 (n + p) eps
    assert not first_axis_arbitrary(np.array([1.0, 1.0 - 1e-9]), 12)
    assert not first_axis_arbitrary(np.array([0.7, 1.3]), 10**6)
    assert not first_axis_arbitrary(np.array([2.0]), 12)  # one variable: no second axis


def test_pca_warns_on_correlation_exactly_zero():
    res, msgs = _arbitrary_warnings(lambda: microaggregation(_flat(), variables=["a", "b"], aggr=3, method="pca"))
    assert len(msgs) == 1
    assert "method='pca'" in msgs[0] and "of the data" in msgs[0]
    assert "arbitrary" in msgs[0] and "in sdcMicro too" in msgs[0] and "may differ from sdcMicro" in msgs[0]
    assert res.mx.notna().all().all()  # the numbers are returned (groups of 3 records)
    assert res.groups.value_counts().eq(3).all()


def test_pca_names_the_stratum():
    df = pd.concat([_flat().assign(s="flat"), _ordinary(3).assign(s="plain")], ignore_index=True)
    _, msgs = _arbitrary_warnings(lambda: microaggregation(df, variables=["a", "b"], aggr=3, method="pca",
                                                           strata_variables=["s"]))
    assert len(msgs) == 1
    assert "stratum 'flat'" in msgs[0] and "plain" not in msgs[0]


@pytest.mark.parametrize("clustermethod", ["clara", "kmeans"])
def test_clustpca_names_the_cluster(clustermethod):
    df = _two_blobs()
    res, msgs = _arbitrary_warnings(lambda: microaggregation(df, variables=["a", "b"], aggr=3, method="clustpca",
                                                             nc=2, clustermethod=clustermethod, random_state=1))
    assert len(msgs) == 1
    named = re.findall(r"clusters? ([\d, ]+) of the data", msgs[0])
    assert len(named) == 1
    if clustermethod == "clara":
        flat_cluster = int(clara(df.to_numpy(float), 2).clustering[0])
        assert named[0].strip() == str(flat_cluster)


def test_clustpca_names_cluster_and_stratum():
    df = pd.concat([_two_blobs().assign(s="u"), _ordinary(5, 24).assign(s="v")], ignore_index=True)
    _, msgs = _arbitrary_warnings(lambda: microaggregation(df, variables=["a", "b"], aggr=3, method="clustpca",
                                                           nc=2, strata_variables=["s"]))
    assert len(msgs) == 1
    assert re.search(r"cluster \d of stratum 'u'", msgs[0]) and "'v'" not in msgs[0]


@pytest.mark.parametrize("seed", range(4))
def test_no_warning_on_ordinary_data(seed):
    rng = np.random.default_rng(seed)
    n = 60
    x = rng.normal(size=(n, 3)) @ rng.uniform(size=(3, 3)) + 10
    df = pd.DataFrame(np.round(x, 1) if seed % 2 else x, columns=list("abc"))
    df["s"] = rng.choice(["p", "q"], n)
    calls = [dict(method="pca"), dict(method="pca", strata_variables=["s"]),
             dict(method="clustpca", nc=3), dict(method="clustpca", nc=3, clustermethod="kmeans", random_state=seed)]
    for kw in calls:
        _, msgs = _arbitrary_warnings(lambda kw=kw: microaggregation(df, variables=list("abc"), aggr=3, **kw))
        assert msgs == [], kw


@pytest.mark.live
def test_live_sdcmicro_orders_otherwise_on_the_arbitrary_axis(bridge):
    """Observed with sdcMicro 5.8.0 (R's reference LAPACK): on the data with correlation exactly 0 sdcMicro's
    first axis is the variable a (its records sorted by a), pysdc's a diagonal of the plane: other groups. The
    ordinary data agree to the bit, the ordinary cluster of clustpca too."""
    df = _flat()
    ref = bridge.microaggregation(df, variables=["a", "b"], aggr=3, method="pca").mx
    nat, msgs = _arbitrary_warnings(lambda: microaggregation(df, variables=["a", "b"], aggr=3, method="pca"))
    assert msgs
    by_a = microaggregation(df, variables=["a", "b"], aggr=3, method="single", varsort=1).mx
    pd.testing.assert_frame_equal(ref, by_a, check_dtype=False)  # sdcMicro's axis here: the variable a
    assert not np.allclose(nat.mx.to_numpy(), ref.to_numpy())  # pysdc's arbitrary axis is another one

    plain = _ordinary(11, 30)
    ref = bridge.microaggregation(plain, variables=["a", "b"], aggr=3, method="pca").mx
    pd.testing.assert_frame_equal(microaggregation(plain, variables=["a", "b"], aggr=3, method="pca").mx, ref,
                                  check_exact=False, rtol=1e-12, atol=0, check_dtype=False)

    blobs = _two_blobs()
    ref = bridge.microaggregation(blobs, variables=["a", "b"], aggr=3, method="clustpca", nc=2).mx
    nat, msgs = _arbitrary_warnings(lambda: microaggregation(blobs, variables=["a", "b"], aggr=3, method="clustpca",
                                                             nc=2))
    assert msgs
    flat, other = slice(0, 12), slice(12, 24)
    assert not np.allclose(nat.mx.iloc[flat].to_numpy(), ref.iloc[flat].to_numpy())
    pd.testing.assert_frame_equal(nat.mx.iloc[other], ref.iloc[other], check_exact=False, rtol=1e-12, atol=0,
                                  check_dtype=False)
