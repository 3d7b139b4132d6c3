"""Issue 26, item 3: on Spark the risk summaries are Spark's aggregates; the key combinations stay in Spark.

Within :func:`pysdc.engine._risk.combinations_in_engine` (``pysdc risk --engine spark``) measure_risk on a
Spark table computes fk/Fk, the individual risks (pysdc's core per partition), the global and household
risk, the k-anonymity violations, the risk distribution and the riskiest combinations (top N) in Spark; the
driver gets single rows and the top N. The numbers equal the pandas path's (counts exactly, sums to
ENGINE_SUMS). Missing key values (sdcMicro's wildcards) are matched in Spark too; keys whose values may code
alike (integers beyond 2^53) still collect the combinations, and the CLI says so.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from _engine_data import parquet_parts, same_model

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.cli import main
from pysdc.engine import _risk
from pysdc.engine._risk_spark import SparkSummaries
from pysdc.engine._tables import SparkTable
from pysdc.problem import K_ANON_KS
from pysdc.problem._model import engine_risk_model

pytestmark = pytest.mark.spark  # PySpark and Java 17: skipped with the reason by tests/conftest.py

def _frame(n=3000, seed=5):
    """Keys of four Spark types (bigint, string, double, boolean), weights (some below 1: risks above 1),
    households of three."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({
        "a": rng.integers(0, 12, n).astype(np.int64), "b": rng.choice(["x", "y", "z", "long text"], n),
        "c": rng.integers(0, 4, n).astype(np.float64), "e": rng.random(n) < 0.3,
        "w": np.round(rng.uniform(1, 80, n), 2), "h": np.repeat(np.arange(n // 3 + 1), 3)[:n].astype(np.float64)})
    d.loc[d.index[:30], "w"] = 0.5
    d.loc[d.index[0], "a"] = 99  # a sample unique
    return d



def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0, err.getvalue()
    return json.loads(out.getvalue()), err.getvalue()


def _never_collected(monkeypatch):
    """The collecting path (SparkTable.combos: the combination table to the driver) fails if taken."""
    def refuse(self, keys, aggs):
        raise AssertionError("the key combinations were collected to the driver")

    monkeypatch.setattr(SparkTable, "combos", refuse)


@pytest.mark.parametrize("weighted", [True, False])
def test_summaries_in_spark_equal_the_pandas_path(spark, monkeypatch, weighted):
    d = _frame(seed=3 if weighted else 4)
    keys, w, hid = ["a", "b", "c", "e"], ("w" if weighted else None), "h"
    d["pid"] = np.arange(len(d))
    sdf = pysdc.scan(spark.createDataFrame(d), id="pid")
    mgr = 0.001
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weights below 1, as on both paths
        ref = pysdc.measure_risk(d, keys, w=w, hid=hid, max_global_risk=mgr)
        collected = pysdc.measure_risk(sdf, keys, w=w, hid=hid, max_global_risk=mgr)
        _never_collected(monkeypatch)
        with _risk.combinations_in_engine():
            got = pysdc.measure_risk(sdf, keys, w=w, hid=hid, max_global_risk=mgr)
    assert isinstance(got.summarise, SparkSummaries) and got.counts is None
    assert got.n == len(d)
    np.testing.assert_allclose(got.global_risk_er, ref.global_risk_er, rtol=ENGINE_SUMS.rtol)
    np.testing.assert_allclose(got.hier_risk_er, ref.hier_risk_er, rtol=ENGINE_SUMS.rtol)
    assert not np.isnan(ref.global_threshold)
    assert got.global_threshold == ref.global_threshold  # the same risks walked in the same order
    # every section of the model: from Spark's aggregates as from the combination table in memory
    a = engine_risk_model(collected, keys=keys, w=w, hid=hid, top=0, engine="spark")
    b = engine_risk_model(got, keys=keys, w=w, hid=hid, top=0, engine="spark")
    for section in ("global", "household", "k_anonymity", "individual_risk"):
        same_model(a[section], b[section], path=section)
    assert b["data"]["n_key_combinations"] == a["data"]["n_key_combinations"]
    if weighted:
        assert b["individual_risk"]["n_above_1"] > 0  # the risks above 1 counted apart
    # the k-anonymity violations: pandas' k_anon_violations at each k
    rows = {r["k"]: r for r in b["k_anonymity"]["violations"]}
    for k in K_ANON_KS:
        assert rows[k]["unweighted"] == pysdc.k_anon_violations(d, keys, k=k)
        if weighted:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert rows[k]["weighted"] == pysdc.k_anon_violations(d, keys, k=k, w=w, weighted=True)
    # the text summary (higher-risk count, threshold) is the in-memory one
    assert str(got) == str(collected)
    # the riskiest combinations: their records' risks on pandas, their numbers of records
    top = engine_risk_model(got, keys=keys, w=w, hid=hid, top=12, engine="spark")["top"]
    assert len(top) == 12
    risks = [r["risk"] for r in top]
    assert risks == sorted(risks, reverse=True)
    np.testing.assert_allclose(risks[0], ref.individual["risk"].max(), rtol=ENGINE_SUMS.rtol)
    per_combination = d[keys].assign(r=ref.individual["risk"].to_numpy()).drop_duplicates(keys)["r"]
    np.testing.assert_allclose(risks[-1], np.sort(per_combination.to_numpy())[-12], rtol=ENGINE_SUMS.rtol)
    for row in top:
        sel = np.logical_and.reduce([d[k] == row[k] for k in keys])
        assert row["records"] == int(sel.sum())
        np.testing.assert_allclose(ref.individual.loc[sel, "risk"].to_numpy(), row["risk"], rtol=ENGINE_SUMS.rtol)
    # the per-record table: the records joined to the combinations in Spark
    ind = got.individual.to_pandas()
    assert list(ind["pid"]) == list(range(len(d)))
    np.testing.assert_array_equal(ind["fk"], ref.individual["fk"])
    for col in ("Fk", "risk", "hier_risk"):
        np.testing.assert_allclose(ind[col], ref.individual[col], rtol=ENGINE_SUMS.rtol, err_msg=col)


def test_cli_spark_keeps_the_combinations_and_writes_the_records(spark, tmp_path, monkeypatch):
    d = _frame(seed=7)
    one = tmp_path / "d.parquet"
    d.to_parquet(one, index=False)
    parts = parquet_parts(d, tmp_path / "data", 1000, 2200)
    argv = ["--keys", "a,b,c,e", "--weight", "w", "--hid", "h", "--no-suda", "--json", "--max-global-risk", "0.001"]
    pan, _ = _cli(["risk", str(one), *argv, "--engine", "pandas"])
    _never_collected(monkeypatch)
    out = tmp_path / "risk_out"
    sp, err = _cli(["risk", str(parts), *argv, "--engine", "spark", "--records", str(out)])
    for section in ("global", "household", "k_anonymity", "individual_risk"):
        same_model(pan[section], sp[section], path=section)
    assert "collected to the driver" not in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = pysdc.measure_risk(d, ["a", "b", "c", "e"], w="w", hid="h").individual
    back = pd.read_parquet(out).sort_values("record")
    assert back["record"].tolist() == list(range(1, len(d) + 1))
    for col in ("risk", "Fk", "hier_risk"):
        np.testing.assert_allclose(back[col].to_numpy(), per[col].to_numpy(), rtol=ENGINE_SUMS.rtol, err_msg=col)
    np.testing.assert_array_equal(back["fk"].to_numpy(), per["fk"].to_numpy())


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_missing_keys_on_spark_stay_in_spark(spark, tmp_path, monkeypatch, alpha):
    """sdcMicro's wildcard rule (a missing key matches every category), the pairs of patterns matched in Spark: the
    numbers of pandas (freq_core), the combinations never collected, no note."""
    d = _frame(n=900, seed=9)
    d["c"] = d["c"].where(d.index % 50 != 1)  # missing keys in three patterns, one record with all missing
    d["b"] = d["b"].where(d.index % 70 != 2).astype(object)
    d.loc[d.index % 90 == 3, ["c", "b"]] = None
    d["a"], d["e"] = d["a"].astype("Int64"), d["e"].astype("boolean")  # (nullable: NULL in Parquet)
    for col in ("a", "b", "c", "e"):
        d.loc[d.index[5], col] = pd.NA if col in ("a", "e") else None
    one = tmp_path / "d.parquet"
    d.to_parquet(one, index=False)
    argv = ["--keys", "a,b,c,e", "--weight", "w", "--hid", "h", "--no-suda", "--json", "--alpha", str(alpha),
            "--max-global-risk", "0.001"]
    pan, _ = _cli(["risk", str(one), *argv, "--engine", "pandas"])
    _never_collected(monkeypatch)
    out = tmp_path / "r_out"
    sp, err = _cli(["risk", str(one), *argv, "--engine", "spark", "--records", str(out)])
    if alpha != 1:
        # the engines' k-anonymity violations count fk at alpha, the pandas model's at alpha = 1 (a difference
        # of the models, not of Spark): here the DuckDB engine's
        duck, _ = _cli(["risk", str(one), *argv, "--engine", "duckdb"])
        same_model(duck["k_anonymity"], sp["k_anonymity"], path="k_anonymity")
        pan["k_anonymity"]["violations"] = sp["k_anonymity"]["violations"]
    for section in ("global", "household", "k_anonymity", "individual_risk"):
        same_model(pan[section], sp[section], path=section)
    assert "collected to the driver" not in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = pysdc.measure_risk(d, ["a", "b", "c", "e"], w="w", hid="h", alpha=alpha).individual
    back = pd.read_parquet(out).sort_values("record")
    for col in ("fk", "Fk", "risk", "hier_risk"):
        np.testing.assert_allclose(back[col].to_numpy(), per[col].to_numpy(), rtol=ENGINE_SUMS.rtol, err_msg=col)


def test_keys_that_may_code_alike_still_collect_and_say_so(spark, tmp_path):
    """Integers beyond 2^53 (which sdcMicro's as.numeric may code alike) take the collecting path, and the
    CLI's note says so and why."""
    d = _frame(n=300, seed=9)
    d["a"] = d["a"] + 2**60
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    sp, err = _cli(["risk", str(path), "--keys", "a,b", "--weight", "w", "--no-suda", "--json", "--engine", "spark"])
    n = sp["data"]["n_key_combinations"]
    assert f"pysdc: note: on Spark the {n:,} key combinations were collected to the driver" in err
    assert "integers beyond 2^53" in err


@pytest.mark.parametrize("keys", [["c"], ["b", "c"]])
def test_missing_keys_unweighted_on_spark_equal_pandas(spark, monkeypatch, keys):
    """The wildcard rule without weights, one key (every complete combination matches every missing record)
    and two: per-record fk, Fk and risk, the global risk and the k-anonymity counts as on pandas."""
    d = _frame(n=400, seed=11)[["b", "c", "h"]]
    d["c"] = d["c"].where(d.index % 9 != 4)
    d["b"] = d["b"].where(d.index % 13 != 5)
    d["pid"] = np.arange(len(d))
    sdf = pysdc.scan(spark.createDataFrame(d.astype(object).where(d.notna(), None)), id="pid")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pysdc.measure_risk(d, keys)
        _never_collected(monkeypatch)
        with _risk.combinations_in_engine():
            got = pysdc.measure_risk(sdf, keys)
    assert isinstance(got.summarise, SparkSummaries)
    np.testing.assert_allclose(got.global_risk_er, ref.global_risk_er, rtol=ENGINE_SUMS.rtol)
    ind = got.individual.to_pandas()
    for col in ("fk", "Fk", "risk"):
        np.testing.assert_allclose(ind[col].to_numpy(float), ref.individual[col].to_numpy(float),
                                   rtol=ENGINE_SUMS.rtol, err_msg=col)
    fk = ref.individual["fk"].to_numpy(float)
    assert got.summarise.below("fk", [2, 3]) == [int((fk < 2).sum()), int((fk < 3).sum())]
