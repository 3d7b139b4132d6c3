"""A key column without any value (every record missing) on every engine: the per-record table and the summaries
of the pandas path, which are sdcMicro's (freqCalc's wildcard rule: a missing value matches every category).

On Spark such a column built in memory (a pandas column of None made a Spark DataFrame) has the type void
(NullType); Spark's null-safe equi-join compares it by ``coalesce(key, NULL)`` and matched no record, so the
per-record table of measure_risk came back empty while the global numbers were right. pysdc's Spark table casts
a void column to boolean (R's type of a vector of NA), the type pysdc's CSV reader gives an all-missing column on
every engine. Read from Parquet, Spark types an all-null column int, DuckDB ``"NULL"``; from pandas, DuckDB
types it ``"NULL"`` or INTEGER.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from _engine_data import cli_json, same_model

import pysdc
from pysdc._tolerances import CLOSED_FORM, ENGINE_SUMS
from pysdc.engine import _risk
from pysdc.io import read_table
from pysdc.problem._model import engine_risk_model

from _live import optional

duckdb = optional("duckdb")

N = 60
#: one key all missing among observed ones; every key all missing
KEYSETS = {"one": ["a", "b", "c"], "all": ["b", "z"]}
SECTIONS = ("global", "household", "k_anonymity", "individual_risk")


def _frame() -> pd.DataFrame:
    """Keys a (integer), c (text), b and z without any value (None: pandas' object column), weights (some
    below 1: risks above 1 on the weighted path), households of three, some ids missing."""
    i = np.arange(N)
    d = pd.DataFrame({
        "a": (i * 7) % 5, "b": [None] * N, "c": np.array(["x", "y", "long text"], dtype=object)[(i * 5) % 3],
        "z": [None] * N, "w": np.round(1 + (i * 37) % 41 * 1.75, 2), "h": (i // 3).astype(np.float64)})
    d.loc[d.index[:2], "w"] = 0.5
    d.loc[d.index[[4, 5]], "h"] = np.nan
    d.loc[d.index[9], "a"] = 9  # a sample unique on the observed keys
    return d


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weights below 1, missing ids: warned alike on every path
        return f(*args, **kwargs)


def _same_records(got: pd.DataFrame, ref: pd.DataFrame, hid: bool) -> None:
    """The per-record table of an engine (in record order) against the pandas path's: every record, fk exactly,
    the weight sums (Fk and the risks) to ENGINE_SUMS (the engine sums in another order)."""
    assert len(got) == len(ref) == N
    np.testing.assert_array_equal(got["fk"].to_numpy(float), ref["fk"].to_numpy(float))
    for col in ("Fk", "risk") + (("hier_risk",) if hid else ()):
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=ENGINE_SUMS.rtol,
                                   atol=ENGINE_SUMS.atol, err_msg=col)


def _same_globals(got, ref) -> None:
    assert got.n == N
    for name in ("global_risk_er", "global_risk", "hier_risk_er"):
        np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=ENGINE_SUMS.rtol, err_msg=name)
    assert got.global_threshold == ref.global_threshold or (np.isnan(got.global_threshold)
                                                            and np.isnan(ref.global_threshold))


def _models_equal(got, d, keys) -> None:
    """Every section of the risk model (the summaries of ``pysdc risk``) as the pandas path's (SdcProblem)."""
    pr = _quiet(pysdc.SdcProblem(d, keys, w="w", hid="h").risk, suda=False, linkage=False)
    a = pr.to_dict(top=5)
    b = engine_risk_model(got, keys=keys, w="w", hid="h", top=5, engine="spark")
    for section in SECTIONS:
        same_model(a[section], b[section], path=section)
    assert b["data"]["n_key_combinations"] == a["data"]["n_key_combinations"]


# ---------------------------------------------------------------------------------------------- Spark


@pytest.mark.spark
@pytest.mark.parametrize("in_engine", [False, True], ids=["collected", "in_spark"])
@pytest.mark.parametrize("which", list(KEYSETS))
def test_spark_void_key_gives_every_record(spark, which, in_engine):
    """A pandas column of None made a Spark DataFrame is void: every record in the per-record table, the
    numbers and summaries of the pandas path (before: an empty table, the global numbers right)."""
    keys = KEYSETS[which]
    d = _frame()
    ref = _quiet(pysdc.measure_risk, d, keys, w="w", hid="h")
    sdf = spark.createDataFrame(d.assign(pid=np.arange(N)))
    assert sdf.schema["b"].dataType.simpleString() == "void"  # the case of the bug
    with _risk.combinations_in_engine() if in_engine else contextlib.nullcontext():
        got = _quiet(pysdc.measure_risk, pysdc.scan(sdf, id="pid"), keys, w="w", hid="h")
    ind = got.individual.to_pandas()
    assert ind["pid"].tolist() == list(range(N))
    _same_records(ind, ref.individual, hid=True)
    _same_globals(got, ref)
    _models_equal(got, d, keys)


@pytest.mark.spark
def test_spark_void_key_other_measures_and_no_id(spark):
    """freq_calc, indiv_risk and a DataFrame without an id (each record keeps its input columns, the void
    one as a boolean NULL) give every record; the per-record table writes to Parquet."""
    keys = KEYSETS["one"]
    d = _frame()
    sdf = spark.createDataFrame(d)
    ref = _quiet(pysdc.freq_calc, d, keys, w="w")
    got = _quiet(pysdc.freq_calc, sdf, keys, w="w")
    ind = got.individual.to_pandas()
    assert len(ind) == N and ind["b"].isna().all()
    order = ind.sort_values(["a", "c", "w", "h"], kind="stable").index
    per = d.assign(fk=ref.fk, Fk=ref.Fk).sort_values(["a", "c", "w", "h"], kind="stable")
    np.testing.assert_array_equal(ind.loc[order, "fk"].to_numpy(float), per["fk"].to_numpy(float))
    np.testing.assert_allclose(ind.loc[order, "Fk"].to_numpy(float), per["Fk"].to_numpy(float),
                               rtol=ENGINE_SUMS.rtol)
    rk = _quiet(pysdc.indiv_risk, got)
    assert len(rk.individual.to_pandas()) == N


@pytest.mark.spark
@pytest.mark.parametrize("fmt", ["parquet", "csv", "blank_csv"])
@pytest.mark.parametrize("which", list(KEYSETS))
def test_cli_spark_all_missing_key_in_a_file(spark, tmp_path, fmt, which):
    """``pysdc risk FILE --engine spark --records``: every record, the summaries of ``--engine pandas``
    (Parquet: Spark reads the all-null column as int; CSV: pysdc's reader types it boolean, R's logical)."""
    _cli_case(tmp_path, fmt, which, "spark")


# --------------------------------------------------------------------------------------------- DuckDB


@pytest.mark.duckdb
@pytest.mark.parametrize("in_engine", [False, True], ids=["collected", "in_duckdb"])
@pytest.mark.parametrize("source", ["parquet", "relation"])
@pytest.mark.parametrize("which", list(KEYSETS))
def test_duckdb_all_missing_key_gives_every_record(tmp_path, which, source, in_engine):
    keys = KEYSETS[which]
    d = _frame()
    ref = _quiet(pysdc.measure_risk, d, keys, w="w", hid="h")
    if source == "parquet":
        d.to_parquet(tmp_path / "d.parquet", index=False)
        scan = pysdc.scan(tmp_path / "d.parquet")
    else:
        scan = pysdc.scan(duckdb.from_df(d.assign(pid=np.arange(N))), id="pid")
    assert scan.table().types["b"].upper() in ('"NULL"', "NULL", "INTEGER")
    with _risk.combinations_in_engine() if in_engine else contextlib.nullcontext():
        got = _quiet(pysdc.measure_risk, scan, keys, w="w", hid="h")
    ind = got.individual.to_pandas()
    assert ind.iloc[:, 0].tolist() == (list(range(1, N + 1)) if source == "parquet" else list(range(N)))
    _same_records(ind, ref.individual, hid=True)
    _same_globals(got, ref)
    _models_equal(got, d, keys)


@pytest.mark.duckdb
@pytest.mark.parametrize("fmt", ["parquet", "csv", "blank_csv"])
@pytest.mark.parametrize("which", list(KEYSETS))
def test_cli_duckdb_all_missing_key_in_a_file(tmp_path, fmt, which):
    _cli_case(tmp_path, fmt, which, "duckdb")


def _cli_case(tmp_path, fmt, which, engine) -> None:
    keys = KEYSETS[which]
    d = _frame()
    path = tmp_path / f"d.{fmt}"
    if fmt == "csv":
        d.to_csv(path, index=False, na_rep="NA")  # as R's write.csv: the column is NA throughout
        assert read_table(path)["b"].isna().all()
        kind = pysdc.scan(path, engine=engine).table().types["b"]
        assert kind.lower() == "boolean", kind  # as pandas' read_table: logical, as R's read.csv
    elif fmt == "blank_csv":
        d.to_csv(path.with_suffix(".csv"), index=False)  # None written as an empty field throughout
        path = path.with_suffix(".csv")
        assert read_table(path)["b"].isna().all()  # as R's read.csv: logical NA
        kind = pysdc.scan(path, engine=engine).table().types["b"]
        assert kind.lower() == "boolean", kind
    else:
        d.to_parquet(path, index=False)
    argv = ["risk", str(path), "--keys", ",".join(keys), "--weight", "w", "--hid", "h", "--no-suda",
            "--max-global-risk", "0.05"]
    pan = cli_json([*argv, "--engine", "pandas"])
    out = tmp_path / "records.parquet"
    eng = cli_json([*argv, "--engine", engine, "--records", str(out)])
    for section in SECTIONS:
        same_model(pan[section], eng[section], path=section)
    ref = _quiet(pysdc.measure_risk, read_table(path), keys, w="w", hid="h", max_global_risk=0.05)
    back = pd.read_parquet(out).sort_values("record").reset_index(drop=True)
    assert back["record"].tolist() == list(range(1, N + 1))
    _same_records(back, ref.individual, hid=True)


# ---------------------------------------------------------------------------------------- the pandas path


def test_pandas_all_missing_key_csv_is_logical_and_matches_a_file_without_it():
    """The pandas path: an all-missing key (read as R's logical NA from CSV, or None) matches every category,
    so it changes no frequency: the numbers of the other keys alone; all keys missing: fk = n, Fk = sum(w)."""
    d = _frame()
    one = _quiet(pysdc.measure_risk, d, KEYSETS["one"], w="w", hid="h")
    without = _quiet(pysdc.measure_risk, d, ["a", "c"], w="w", hid="h")
    for col in ("fk", "Fk", "risk", "hier_risk"):
        np.testing.assert_array_equal(one.individual[col].to_numpy(float), without.individual[col].to_numpy(float))
    every = _quiet(pysdc.measure_risk, d, KEYSETS["all"], w="w", hid="h")
    assert (every.individual["fk"] == N).all()
    np.testing.assert_allclose(every.individual["Fk"].to_numpy(float), d["w"].sum(), rtol=CLOSED_FORM.rtol)


@pytest.mark.live
@pytest.mark.rscript("jsonlite")
@pytest.mark.parametrize("na", ["NA", ""], ids=["na", "blank"])
@pytest.mark.parametrize("which", list(KEYSETS))
def test_live_pandas_all_missing_key_equals_sdcmicro(tmp_path, which, na):
    """sdcMicro 5.8.0 on the CSV file (read.csv: the column of NA, or of empty fields, is logical NA): the
    per-record risk, fk, Fk and hier_risk and the global numbers of pysdc's pandas path (which reads both
    columns as logical NA too)."""
    keys = KEYSETS[which]
    d = _frame()
    d.to_csv(tmp_path / "d.csv", index=False, na_rep=na)
    kv = ", ".join(f"'{k}'" for k in keys)
    script = ("suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv('d.csv'); "
              "stopifnot(is.logical(d$b), all(is.na(d$b))); "
              f"m <- sdcMicro:::measure_riskWORK(d, keyVars=c({kv}), w='w', hid='h', max_global_risk=0.05, "
              "fast_hier=FALSE, alpha=1); "
              "cat(toJSON(list(res=m$Res, ER=m$global_risk_ER, thr=m$global_threshold, hER=m$hier_risk_ER), "
              "digits=NA, na='string'))")
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout)
    m = _quiet(pysdc.measure_risk, read_table(tmp_path / "d.csv"), keys, w="w", hid="h", max_global_risk=0.05,
               fast_hier=False)
    res = np.array(o["res"], dtype=float)
    np.testing.assert_array_equal(m.individual["fk"].to_numpy(float), res[:, 1])
    np.testing.assert_allclose(m.individual[["risk", "Fk", "hier_risk"]].to_numpy(float), res[:, [0, 2, 3]],
                               rtol=CLOSED_FORM.rtol, atol=0)
    np.testing.assert_allclose(m.global_risk_er, o["ER"][0], rtol=CLOSED_FORM.rtol, atol=0)
    np.testing.assert_allclose(m.hier_risk_er, o["hER"][0], rtol=CLOSED_FORM.rtol, atol=0)
    thr = np.nan if o["thr"][0] == "NA" else o["thr"][0]
    np.testing.assert_allclose(m.global_threshold, thr, rtol=CLOSED_FORM.rtol, atol=0, equal_nan=True)
