"""The shipped demo data: invariants, the masking, and that the files are what the generator makes."""

from __future__ import annotations

import gzip
import hashlib

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._types import r_class
from pysdc.datasets import DEMO_KEY_VARS, DEMO_NUMERIC_VARS, demo_path, load_demo, load_demo_pair
from pysdc.datasets._generate import add_noise, make_masked, make_original, microaggregate
from pysdc.io import _csv_write as _io

EXPECTED_CLASSES = {
    "hid": "integer", "region": "factor", "urbrur": "factor", "hhsize": "integer", "sex": "factor",
    "age_group": "ordered", "marital": "factor", "education": "ordered", "health_status": "factor",
    "weight": "numeric", "income": "numeric", "expenditure": "numeric", "savings": "numeric",
}


@pytest.fixture(scope="module")
def pair():
    return load_demo_pair()


def test_public_loader(pair):
    x, xm = pair
    pd.testing.assert_frame_equal(pysdc.load_demo(), x)
    pd.testing.assert_frame_equal(load_demo(masked=True), xm)


def test_shape_and_types(pair):
    x, _ = pair
    assert 3000 <= len(x) <= 5000
    assert x["hid"].nunique() == 1500
    assert {c: r_class(x[c]) for c in x.columns} == EXPECTED_CLASSES
    assert 8 <= len(x["region"].cat.categories) <= 12
    assert list(x["age_group"].cat.categories)[0] == "0-14" and x["age_group"].cat.ordered
    assert x["education"].cat.ordered


def test_households_are_consistent(pair):
    x, _ = pair
    size = x.groupby("hid")["hid"].transform("size")
    np.testing.assert_array_equal(x["hhsize"].to_numpy(), size.to_numpy())
    # household-level variables are constant within a household
    for col in ("region", "urbrur", "weight", "hhsize"):
        assert (x.groupby("hid", observed=True)[col].nunique(dropna=False) == 1).all(), col
    # households are contiguous blocks of rows
    assert (np.diff(x["hid"].to_numpy()) >= 0).all()


def test_weights_positive_and_varying(pair):
    x, _ = pair
    w = x["weight"].to_numpy()
    assert np.isfinite(w).all() and (w > 0).all()
    assert w.std() > 0.2 * w.mean()


def test_region_is_skewed(pair):
    share = pair[0]["region"].value_counts(normalize=True)
    assert share.max() > 3 * share.min()


@pytest.mark.parametrize("col", DEMO_NUMERIC_VARS)
def test_numeric_variables_have_zeros_missing_values_and_outliers(pair, col):
    v = pair[0][col].to_numpy()
    assert np.isnan(v).any()
    ok = v[~np.isnan(v)]
    assert (ok == 0).any()
    q1, q3 = np.quantile(ok, [0.25, 0.75])
    assert ok.max() > q3 + 10 * (q3 - q1)  # a heavy right tail


def test_some_key_values_missing(pair):
    x, _ = pair
    missing = x[list(DEMO_KEY_VARS) + ["marital"]].isna().mean()
    assert 0.005 < missing["education"] < 0.05
    assert 0.005 < missing["marital"] < 0.05
    assert x["health_status"].notna().all() and x["health_status"].nunique() >= 4


def test_masked_has_the_same_structure(pair):
    x, xm = pair
    assert xm.shape == x.shape and list(xm.columns) == list(x.columns)
    assert (xm.dtypes == x.dtypes).all()
    for c in x.columns:
        if isinstance(x[c].dtype, pd.CategoricalDtype):
            assert list(xm[c].cat.categories) == list(x[c].cat.categories), c


def test_masked_differs_where_masked_and_only_there(pair):
    x, xm = pair
    for c in ("hid", "urbrur", "sex", "marital", "health_status", "weight"):
        pd.testing.assert_series_equal(xm[c], x[c])
    for c in ("income", "expenditure", "savings", "hhsize", "region", "age_group", "education"):
        assert not xm[c].equals(x[c]), c
    # missing values are kept where they were; suppression only adds missing values
    for c in DEMO_NUMERIC_VARS:
        np.testing.assert_array_equal(xm[c].isna().to_numpy(), x[c].isna().to_numpy())
    for c in ("age_group", "education"):
        assert (xm[c].isna() >= x[c].isna()).all() and xm[c].isna().sum() > x[c].isna().sum()
    assert xm["hhsize"].max() == 6 and (xm["hhsize"] == x["hhsize"].clip(upper=6)).all()
    assert (xm["region"] == "Islands").sum() == 0


@pytest.mark.parametrize("col, k", [("income", 3), ("savings", 5)])
def test_microaggregated_values_are_shared_by_at_least_k_records(pair, col, k):
    counts = pair[1][col].value_counts()
    assert counts.min() >= k


def test_microaggregate_by_hand():
    x = np.array([10.0, 1, np.nan, 3, 2, 12, 100, 11])
    # sorted: 1 2 3 | 10 11 12 100 (the last group takes the remainder)
    np.testing.assert_allclose(microaggregate(x, 3), [33.25, 2, np.nan, 2, 2, 33.25, 33.25, 33.25], rtol=0, atol=1e-12)
    np.testing.assert_allclose(microaggregate(np.array([5.0, 1.0]), 3), [3.0, 3.0], rtol=0, atol=0)
    assert np.isnan(microaggregate(np.array([np.nan]), 2)).all()


def test_add_noise_keeps_zeros_and_missing_values():
    x = np.array([0.0, np.nan, 1.0, 2.0, 3.0, 0.0])
    y = add_noise(x, np.random.default_rng(0), 0.5)
    assert y[0] == 0 and y[5] == 0 and np.isnan(y[1])
    assert (y[2:5] != x[2:5]).all()


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_stored_files_are_what_the_generator_makes():
    original = make_original()
    masked = make_masked(original)
    for df, masked_flag in ((original, False), (masked, True)):
        path = demo_path(masked_flag)
        csv_bytes, schema = _io._encode(df)
        assert _sha(csv_bytes) == _sha(gzip.decompress(path.read_bytes())), (
            f"{path.name} differs from the generator's output; run python -m pysdc.datasets._generate"
        )
        assert _io._schema_text(schema) == _io.schema_path(path).read_text(encoding="utf-8")


def test_generator_is_deterministic():
    a = make_original()
    pd.testing.assert_frame_equal(a, make_original())
    pd.testing.assert_frame_equal(make_masked(a), make_masked(make_original()))
