"""The Spark engine (issue 11, local[2]) gives the pandas path's numbers: counts exactly, sums to ENGINE_SUMS.

One Spark session for the module (its start takes ~10 s). Skipped with the reason only when PySpark
or Java is not installed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _engine_data import cli_json, parquet_parts

import pysdc
from pysdc._tolerances import ENGINE_SUMS, tolerance_for
from pysdc.io import read_table

pytestmark = pytest.mark.spark  # PySpark and Java 17: skipped with the reason by tests/conftest.py

REF = Path(__file__).resolve().parents[2] / "r_reference" / "inputs"
HIER = tolerance_for("measure_risk", "hier_risk")


def _sdf(spark, df: pd.DataFrame):
    """A Spark DataFrame of ``df`` with missing values as nulls (categories as their labels)."""
    plain = df.copy()
    for c in plain.columns:
        if isinstance(plain[c].dtype, pd.CategoricalDtype):
            plain[c] = plain[c].astype(object)
    return spark.createDataFrame(plain.astype(object).where(plain.notna(), None))


def _close(a, b, atol=0.0):
    np.testing.assert_allclose(np.asarray(b, dtype=float), np.asarray(a, dtype=float), rtol=ENGINE_SUMS.rtol,
                               atol=atol, equal_nan=True)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(params=["broadcast", "shuffled"])
def join_kind(request, spark):
    """The records join the per-combination results broadcast (pysdc's hint) or shuffled by key (a session
    that disables broadcast joins): the same numbers either way."""
    key = "spark.sql.autoBroadcastJoinThreshold"
    before = spark.conf.get(key)
    if request.param == "shuffled":
        spark.conf.set(key, "-1")
    yield request.param
    spark.conf.set(key, before)


def test_risk_on_spark_equals_pandas(spark, join_kind):
    df = read_table(REF / "keys2000_na.csv.gz")
    keys = ["k1", "k2", "k3", "k4"]
    df = df[keys + ["w", "hid"]].assign(pid=np.arange(len(df)))
    df["hid"] = df["hid"].astype(float)
    df.loc[[3, 500, 1999], "hid"] = np.nan  # a household of their own each (pandas and Spark warn alike)
    sdf = pysdc.scan(_sdf(spark, df), id="pid")
    ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="hid")
    got = _quiet(pysdc.measure_risk, sdf, keys, w="w", hid="hid")
    _close(ref.global_risk_er, got.global_risk_er)
    _close(ref.hier_risk_er, got.hier_risk_er)
    assert got.global_threshold == ref.global_threshold or np.isnan(ref.global_threshold)
    ind = got.individual.to_pandas()
    assert list(ind["pid"]) == list(range(len(df)))
    np.testing.assert_array_equal(ind["fk"], ref.individual["fk"])
    _close(ref.individual["Fk"], ind["Fk"])
    _close(ref.individual["hier_risk"], ind["hier_risk"], atol=HIER.atol)
    # Spark has no categorical type: k1, k2 arrive as text, which freq_calc parses as numbers (R's
    # as.numeric, all NA) where pandas takes the categories' codes; the numeric keys mean the same on both
    for alpha in (1.0, 0.5):
        f_ref = _quiet(pysdc.freq_calc, df, ["k3", "k4"], w="w", alpha=alpha)
        f_got = _quiet(pysdc.freq_calc, sdf, ["k3", "k4"], w="w", alpha=alpha)
        assert (f_got.n1, f_got.n2) == (f_ref.n1, f_ref.n2)
        np.testing.assert_array_equal(f_got.individual.to_pandas()["fk"], f_ref.fk)
    assert _quiet(pysdc.k_anon_violations, sdf, keys, k=3, w="w", weighted=True) == \
        _quiet(pysdc.k_anon_violations, df, keys, k=3, w="w", weighted=True)


def test_loss_on_spark_equals_pandas(spark):
    x = read_table(REF / "num200_na.csv.gz")
    xm = read_table(REF / "num200_na_m_na.csv.gz")
    sx, sm = _sdf(spark, x), _sdf(spark, xm)
    for method in ("IL1", "IL1s", "eigen"):
        ref = _quiet(pysdc.d_utility, x, xm, method=method).value
        got = _quiet(pysdc.d_utility, sx, sm, method=method).value
        _close(ref, got, atol=tolerance_for("d_utility", method).atol)
    _close(_quiet(pysdc.il_correl, x, xm).value, _quiet(pysdc.il_correl, sx, sm).value,
           atol=tolerance_for("il_correl", "value").atol)
    scales = {c: "numeric" for c in x.columns}
    _close(_quiet(pysdc.il_variables, x, xm, scales=scales).value,
           _quiet(pysdc.il_variables, sx, sm, scales=scales).value)
    # pysdc utility --engine spark: the five measures with shared passes give the same numbers
    from pysdc.engine._utility import utility_engine

    both = _quiet(utility_engine, sx, sm, list(x.columns), scales)
    for method in ("IL1", "IL1s", "eigen"):
        _close(_quiet(pysdc.d_utility, x, xm, method=method).value, both["d_utility"][method].value,
               atol=tolerance_for("d_utility", method).atol)
    _close(_quiet(pysdc.il_correl, x, xm).value, both["il_correl"].value, atol=tolerance_for("il_correl", "value").atol)
    _close(_quiet(pysdc.il_variables, x, xm, scales=scales).value, both["il_variables"].value)


def test_ldiversity_on_spark_equals_pandas(spark):
    df = read_table(REF / "keys300_nam.csv.gz")
    keys, sens = ["k1", "k2"], ["s1", "s3"]
    # Spark has no categorical type: categories arrive as text, which ldiversity parses as numbers (R's
    # as.numeric); the pandas reference gets the same text
    text = df.copy()
    for c in text.columns:
        if isinstance(text[c].dtype, pd.CategoricalDtype):
            text[c] = text[c].astype(object)
    ref = _quiet(pysdc.ldiversity, text, keys, sens).table
    got = _quiet(pysdc.ldiversity, _sdf(spark, df), keys, sens)
    assert got.n == len(df)
    # Spark has no record order of its own: compare the distribution of each column over the records
    back = got.individual.to_pandas()
    for col in ref.columns:
        np.testing.assert_array_equal(np.sort(back[col].to_numpy(float)), np.sort(ref[col].to_numpy(float)),
                                      err_msg=col)


def test_il_variables_ordinal_declared_on_spark_equals_pandas(spark):
    """Declared ordinal on Spark (no categorical type there): pandas' levels, the sorted observed values."""
    from _engine_data import ORDINAL_SCALES, ordinal_pair

    x, xm = ordinal_pair(300)
    cols = ["edu", "score", "size"]
    ref = _quiet(pysdc.il_variables, x[cols], xm[cols], scales=ORDINAL_SCALES)
    sx, sm = _sdf(spark, x[cols]), _sdf(spark, xm[cols])
    got = _quiet(pysdc.il_variables, pysdc.scan(sx, id=None), pysdc.scan(sm, id=None), scales=ORDINAL_SCALES)
    _close(ref.per_variable.to_numpy(), got.per_variable[ref.per_variable.index].to_numpy())
    _close(ref.value, got.value)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_positions_of_files_on_spark_are_the_files_rows_in_sorted_order(spark, tmp_path, fmt):
    """Spark orders a read's partitions by file size, not by file; positions (the per-record tables and
    the pairing of x and xm) are the rows of the files in sorted order, as on DuckDB and pandas."""
    x = read_table(REF / "num200_na.csv.gz")
    xm = read_table(REF / "num200_na_m_na.csv.gz")
    bounds = {"x": [(0, 7), (7, 150), (150, 200)], "xm": [(0, 120), (120, 125), (125, 200)]}  # other sizes
    dirs = {}
    for name, df in (("x", x), ("xm", xm)):
        d = dirs[name] = tmp_path / name
        d.mkdir()
        for i, (lo, hi) in enumerate(bounds[name]):
            part = df.iloc[lo:hi]
            if fmt == "parquet":
                part.to_parquet(d / f"part-{i}.parquet", index=False)
            else:
                part.to_csv(d / f"part-{i}.csv", index=False)
    sx, sm = (pysdc.scan(dirs[n], engine="spark", spark=spark) for n in ("x", "xm"))
    for method in ("IL1", "IL1s"):
        _close(_quiet(pysdc.d_utility, x, xm, method=method).value,
               _quiet(pysdc.d_utility, sx, sm, method=method).value)
    # per-record tables carry the position
    keys = read_table(REF / "keys2000_na.csv.gz")[["k3", "k4", "w"]]
    kd = tmp_path / "keys"
    kd.mkdir()
    for i, (lo, hi) in enumerate([(0, 30), (30, 1900), (1900, 2000)]):
        part = keys.iloc[lo:hi]
        if fmt == "parquet":
            part.to_parquet(kd / f"part-{i}.parquet", index=False)
        else:
            part.to_csv(kd / f"part-{i}.csv", index=False)
    ref = _quiet(pysdc.freq_calc, keys, ["k3", "k4"], w="w")
    ind = _quiet(pysdc.freq_calc, pysdc.scan(kd, engine="spark", spark=spark), ["k3", "k4"], w="w").individual
    back = ind.to_pandas()
    assert list(back.columns) == ["record", "fk", "Fk"]
    assert list(back["record"]) == list(range(1, len(keys) + 1))
    np.testing.assert_array_equal(back["fk"], ref.fk)
    _close(ref.Fk, back["Fk"])


def test_pysdc_risk_output_on_spark_equals_pandas(spark, tmp_path):
    """``pysdc risk --engine spark --output DIR``: the per-record table written as a directory of part files
    while measuring, the household risk from its hier_risk, the numbers those of pandas."""
    df = read_table(REF / "keys2000_na.csv.gz")[["k3", "k4", "w", "hid"]]
    d = parquet_parts(df, tmp_path / "data", 500)
    out = tmp_path / "risk_out"
    report = cli_json(["risk", str(d), "--keys", "k3,k4", "--weight", "w", "--hid", "hid", "--engine", "spark",
                       "--output", str(out)])
    ref = _quiet(pysdc.measure_risk, df, ["k3", "k4"], w="w", hid="hid")
    _close(ref.global_risk_er, report["global"]["expected_reidentifications"])
    _close(ref.hier_risk_er, report["household"]["expected_reidentifications"])
    back = pd.read_parquet(out).sort_values("record")
    assert list(back["record"]) == list(range(1, len(df) + 1))
    _close(ref.individual["hier_risk"], back["hier_risk"], atol=HIER.atol)


def test_weight_error_on_spark_files_names_rows_as_pandas(spark, tmp_path):
    """A missing weight in files read by pysdc.scan(engine="spark"): the error names the records by their
    positions in the files, as pandas names its rows (1-based, as users read them, with the value)."""
    df = read_table(REF / "keys2000_na.csv.gz")[["k3", "k4", "w"]]
    df["w"] = df["w"].where(~df.index.isin([3, 1500, 1501]))
    d = parquet_parts(df, tmp_path / "data", 1000)
    with pytest.raises(pysdc.InvalidParameterError) as ref:
        pysdc.freq_calc(df, ["k3", "k4"], w="w")
    with pytest.raises(pysdc.InvalidParameterError) as got:
        pysdc.freq_calc(pysdc.scan(d, engine="spark", spark=spark), ["k3", "k4"], w="w")
    assert "records 4 (missing), 1501 (missing), 1502" in str(ref.value) and str(got.value) == str(ref.value)
