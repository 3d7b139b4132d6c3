"""Issue 26, item 3: with missing key values too, ``--memory-limit`` holds and the key combinations stay in DuckDB.

sdcMicro's rule (freqCalc): a missing key value matches every category. pysdc's core does this pattern by
pattern (:func:`pysdc.core.freq.freq_core`); on DuckDB the same matching is SQL
(:func:`pysdc.engine._risk_duckdb._wildcard_freqs`), so Python never holds a value per key combination. The
numbers are those of the pandas path: counts exactly, weight sums (another order) to ENGINE_SUMS.
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from test_memory_limit import ALLOWANCE, _peak  # tests/engine, beside this file

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.engine import _risk

from _live import optional

duckdb = optional("duckdb")
pa = optional("pyarrow")
pq = optional("pyarrow.parquet")
pytestmark = pytest.mark.duckdb  # duckdb and pyarrow: skipped with the reason by tests/conftest.py


def _frame(n=4000, seed=11):
    """Three keys (a float with NaN, a text with None, a nullable integer), every missingness pattern, five
    records with all keys missing; weights, households."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.integers(0, 7, n).astype(np.float64), "b": rng.choice(["x", "y", "z", "w w"], n),
                      "c": pd.array(rng.integers(0, 4, n), dtype="Int64"), "w": np.round(rng.uniform(1, 60, n), 2),
                      "h": np.repeat(np.arange(n // 3 + 1), 3)[:n].astype(np.float64)})
    d.loc[rng.random(n) < 0.06, "a"] = np.nan
    d.loc[rng.random(n) < 0.06, "b"] = None
    d.loc[rng.random(n) < 0.04, "c"] = pd.NA
    d.loc[d.index[:5], ["a", "b", "c"]] = [np.nan, None, pd.NA]
    return d


def _pandas(d, keys, w, alpha):
    frame = d.copy()
    frame["c"] = frame["c"].astype("float64")  # pandas' nullable integer as R's numeric with NA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pysdc.measure_risk(frame, keys, w=w, hid="h", alpha=alpha)


@pytest.mark.parametrize("keys", [["a"], ["b"], ["a", "b"], ["c", "a", "b"]])
@pytest.mark.parametrize("w", ["w", None])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_wildcards_in_duckdb_equal_pandas(tmp_path, keys, w, alpha):
    d = _frame()
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _risk.combinations_in_engine():
            eng = pysdc.measure_risk(pysdc.scan(str(path)), keys, w=w, hid="h", alpha=alpha)
    assert eng.summarise is not None  # the combinations stayed in DuckDB
    pan = _pandas(d, keys, w, alpha)
    per = eng.individual.to_pandas().sort_values(eng.individual.columns[0]).reset_index(drop=True)
    ref = pan.individual.reset_index(drop=True)
    np.testing.assert_array_equal(per["fk"].to_numpy(), ref["fk"].to_numpy())  # counts: exactly
    np.testing.assert_allclose(per["Fk"].to_numpy(), ref["Fk"].to_numpy(), rtol=ENGINE_SUMS.rtol, atol=0)
    for col in ("risk", "hier_risk"):
        np.testing.assert_allclose(per[col].to_numpy(), ref[col].to_numpy(), rtol=ENGINE_SUMS.rtol, atol=0)
    for name in ("global_risk_er", "global_risk", "hier_risk_er", "global_threshold"):
        np.testing.assert_allclose(getattr(eng, name), getattr(pan, name), rtol=ENGINE_SUMS.rtol, atol=0,
                                   err_msg=name)
    assert eng.n == len(d)


def test_nan_and_null_in_a_float_key_are_one_missing_value(tmp_path):
    """A Parquet float column may hold NaN and NULL; both are a missing key value (pysdc's codes: -1), one
    combination, as pandas reads either."""
    d = _frame(n=1200, seed=3)
    a = d["a"].to_numpy()
    mask = np.zeros(len(d), dtype=bool)
    mask[np.flatnonzero(np.isnan(a))[::2]] = True  # half of the missing values NULL, half NaN
    table = pa.table({"a": pa.array(a, mask=mask, type=pa.float64()), "b": pa.Array.from_pandas(d["b"].astype(object)),
                      "w": pa.array(d["w"].to_numpy()), "h": pa.array(d["h"].to_numpy())})
    path = tmp_path / "nan.parquet"
    pq.write_table(table, path)
    assert duckdb.sql(f"SELECT count(*) FILTER (WHERE isnan(a)) FROM '{path}'").fetchall()[0][0] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _risk.combinations_in_engine():
            eng = pysdc.measure_risk(pysdc.scan(str(path)), ["a", "b"], w="w", hid="h")
        pan = pysdc.measure_risk(d, ["a", "b"], w="w", hid="h")
    assert eng.summarise is not None
    per = eng.individual.to_pandas().sort_values(eng.individual.columns[0])
    np.testing.assert_array_equal(per["fk"].to_numpy(), pan.individual["fk"].to_numpy())
    np.testing.assert_allclose(per["risk"].to_numpy(), pan.individual["risk"].to_numpy(), rtol=ENGINE_SUMS.rtol)


def test_python_api_with_a_memory_limit_keeps_the_combinations_in_duckdb(tmp_path):
    """``pysdc.measure_risk(pysdc.scan(path, memory_limit=...))``: the limit holds in the Python API too (the
    combinations stay in DuckDB; ``combinations`` is the engine's lazy table); without a limit the result
    holds them as a pandas DataFrame, as documented."""
    d = _frame(n=900, seed=4)
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        limited = pysdc.measure_risk(pysdc.scan(str(path), memory_limit="500MB"), ["a", "b"], w="w")
        free = pysdc.measure_risk(pysdc.scan(str(path)), ["a", "b"], w="w")
    assert limited.summarise is not None and not isinstance(limited.combinations, pd.DataFrame)
    assert free.summarise is None and isinstance(free.combinations, pd.DataFrame)
    np.testing.assert_allclose(limited.global_risk, free.global_risk, rtol=ENGINE_SUMS.rtol)
    assert len(limited.combinations.to_pandas()) == len(free.combinations)


def test_python_api_warns_when_the_combinations_leave_duckdb(tmp_path):
    """Keys whose raw values may code alike (here a DECIMAL) need pysdc's coding in Python: said at call time."""
    path = tmp_path / "dec.parquet"
    duckdb.sql(f"COPY (SELECT CAST(i % 7 AS DECIMAL(6, 2)) AS a, i % 3 AS b FROM range(300) t(i)) TO '{path}' "
               "(FORMAT parquet)")
    with pytest.warns(pysdc.PysdcWarning, match="outside DuckDB's memory limit.*a \\(DECIMAL"):
        res = pysdc.measure_risk(pysdc.scan(str(path), memory_limit="500MB"), ["a", "b"])
    assert res.summarise is None


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM is read from /proc (Linux)")
def test_memory_limit_holds_with_missing_key_values(tmp_path):
    """2e6 records, ~1.4e6 key combinations, 5 % missing values in two keys (four missingness patterns),
    weights, households, --memory-limit 300MB --records: the peak resident memory stays within the limit +
    the baseline of ``pysdc risk --demo`` + ALLOWANCE (tests/engine/test_memory_limit.py). Before, the
    combinations went to Python: 1.4e6 x ~0.4 KB beyond the bound."""
    data = tmp_path / "big.parquet"
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT CASE WHEN hash(i * 11 + 3) % 20 = 0 THEN NULL ELSE CAST(hash(i) % 1000 AS INTEGER) END AS a,
        CASE WHEN hash(i * 17 + 9) % 20 = 0 THEN NULL ELSE CAST(hash(i * 7 + 1) % 1000 AS INTEGER) END AS b,
        CAST(hash(i * 13 + 5) % 3 AS VARCHAR) AS c, 1.0 + CAST(hash(i * 3 + 2) % 100000 AS DOUBLE) / 1000.0 AS w,
        i // 3 AS h FROM range(2000000) t(i)) TO '{data}' (FORMAT parquet)""")
    (n_missing,) = con.execute(f"SELECT count(*) FILTER (WHERE a IS NULL OR b IS NULL) FROM '{data}'").fetchall()[0]
    con.close()
    assert n_missing > 150_000
    rc, _, err, baseline = _peak(["risk", "--demo", "--no-suda", "--quiet", "--json"], tmp_path)
    assert rc == 0, err
    out = tmp_path / "risk.parquet"
    rc, stdout, err, peak = _peak(["risk", str(data), "--keys", "a,b,c", "--weight", "w", "--hid", "h", "--engine",
                                   "duckdb", "--memory-limit", "300MB", "--records", str(out), "--json"], tmp_path)
    assert rc == 0, err
    report = json.loads(stdout)
    assert report["data"]["n_key_combinations"] > 1_300_000
    bound = 300 * 10**6 + baseline + ALLOWANCE
    assert peak <= bound, (f"peak {peak / 2**20:.0f} MB > {bound / 2**20:.0f} MB (baseline {baseline / 2**20:.0f} MB)"
                           f"\n{err}")
    f = pq.ParquetFile(out)
    assert f.metadata.num_rows == 2_000_000
    # the records with a missing key carry the wildcard frequencies: fk at least their own combination's count
    t = duckdb.sql(f"SELECT min(fk), max(fk) FROM '{out}' r").fetchall()[0]
    assert t[0] >= 1 and t[1] > 1000  # a record missing a and b matches every record with its c


def _edge(case):
    rng = np.random.default_rng(0)
    n = 60
    d = pd.DataFrame({"a": rng.integers(0, 3, n).astype(float), "b": rng.integers(0, 3, n).astype(float),
                      "w": rng.uniform(1, 9, n)})
    keys, w, alpha = ["a", "b"], "w", 1.0
    if case == "complete and all-missing":
        d.loc[:4, ["a", "b"]] = np.nan
    elif case == "no complete combination":
        d.loc[::2, "a"] = np.nan
        d.loc[1::2, "b"] = np.nan
    elif case == "one key, all missing":
        d["a"], keys = np.nan, ["a"]
    elif case == "one key, alpha 0":
        d.loc[::3, "a"], keys, alpha = np.nan, ["a"], 0.0
    elif case == "alpha 0":
        d.loc[::3, "a"], alpha = np.nan, 0.0
        d.loc[::5, "b"] = np.nan
    elif case == "weights below 1":
        d.loc[::3, "a"], d["w"] = np.nan, 0.5
    return d, keys, w, alpha


@pytest.mark.parametrize("case", ["complete and all-missing", "no complete combination", "one key, all missing",
                                  "one key, alpha 0", "alpha 0", "weights below 1"])
def test_wildcard_edge_cases_equal_pandas(tmp_path, case):
    d, keys, w, alpha = _edge(case)
    path = tmp_path / "e.parquet"
    d.to_parquet(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _risk.combinations_in_engine():
            eng = pysdc.measure_risk(pysdc.scan(str(path)), keys, w=w, alpha=alpha)
        pan = pysdc.measure_risk(d, keys, w=w, alpha=alpha)
    assert eng.summarise is not None
    per = eng.individual.to_pandas().sort_values(eng.individual.columns[0])
    np.testing.assert_array_equal(per["fk"].to_numpy(), pan.individual["fk"].to_numpy())
    for col in ("Fk", "risk"):
        np.testing.assert_allclose(per[col].to_numpy(), pan.individual[col].to_numpy(), rtol=ENGINE_SUMS.rtol, atol=0)
    np.testing.assert_allclose(eng.global_risk, pan.global_risk, rtol=ENGINE_SUMS.rtol, atol=0)
