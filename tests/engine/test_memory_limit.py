"""Issue 26, item 3: ``--memory-limit`` holds for the whole process of ``pysdc risk --engine duckdb``.

The key combinations stay in DuckDB (:func:`pysdc.engine._risk.combinations_in_engine`): the frequencies, the
per-record join and the summaries are SQL, the individual risks are computed by pysdc's core per distinct
pair (fk, Fk) read in pieces, the global threshold walks the distinct risks in pieces
(:func:`pysdc.core.threshold.global_threshold_chunks`). Python holds a piece at a time, never a value per key
combination; the numbers are those of the in-memory path and of pandas.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from _engine_data import same_model

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.cli import main
from pysdc.core.threshold import global_threshold_chunks, global_threshold_grouped
from pysdc.engine import _risk
from pysdc.problem import engine_risk_model

from _live import optional

duckdb = optional("duckdb")
pa = optional("pyarrow")
pq = optional("pyarrow.parquet")
pytestmark = pytest.mark.duckdb  # duckdb and pyarrow: skipped with the reason by tests/conftest.py


#: what the process may take beyond DuckDB's --memory-limit and the baseline of ``pysdc risk --demo`` (Python
#: with pysdc, pandas and pyarrow loaded; measured in the test, 197 MB on the development machine, 2026-11-25):
#: DuckDB itself once loaded (its library and connection, ~30 MB), the record batches Python holds while
#: writing --records and computing the risks (pysdc.engine._tables.WRITE_BATCH_ROWS, _risk.CHUNK_ROWS: ~10 MB)
#: and DuckDB's allocations outside its own accounting. The in-memory path (one array per key combination in
#: Python) went 230 MB beyond this bound at this size.
ALLOWANCE = 100 * 2**20

_HWM = ("import sys; from pysdc.cli import main; rc = main(sys.argv[1:]); "
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]; "
        "print('HWM', hwm, file=sys.stderr); sys.exit(rc)")


def _peak(argv, cwd):
    """Run ``pysdc`` in a fresh process: (return code, stdout, stderr, peak resident memory in bytes)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", _HWM, *argv], capture_output=True, text=True, timeout=300, cwd=cwd,
                       env=env)
    lines = [line for line in r.stderr.splitlines() if line.startswith("HWM")]
    return r.returncode, r.stdout, r.stderr, (int(lines[0].split()[1]) * 1024 if lines else None)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM is read from /proc (Linux)")
def test_memory_limit_holds_for_the_whole_process(tmp_path):
    """2e6 records, ~1.5e6 key combinations, households, weights, --memory-limit 300MB --records: the peak
    resident memory of the process stays within the limit + the baseline of ``pysdc risk --demo`` + ALLOWANCE."""
    data = tmp_path / "big.parquet"
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT CAST(hash(i) % 1000 AS INTEGER) AS a, CAST(hash(i * 7 + 1) % 1000 AS INTEGER) AS b,
        CAST(hash(i * 13 + 5) % 3 AS VARCHAR) AS c, 1.0 + CAST(hash(i * 3 + 2) % 100000 AS DOUBLE) / 1000.0 AS w,
        i // 3 AS h FROM range(2000000) t(i)) TO '{data}' (FORMAT parquet)""")
    con.close()
    rc, _, err, baseline = _peak(["risk", "--demo", "--no-suda", "--quiet", "--json"], tmp_path)
    assert rc == 0, err
    out = tmp_path / "risk.parquet"
    rc, stdout, err, peak = _peak(["risk", str(data), "--keys", "a,b,c", "--weight", "w", "--hid", "h", "--engine",
                                   "duckdb", "--memory-limit", "300MB", "--records", str(out), "--json"], tmp_path)
    assert rc == 0, err
    report = json.loads(stdout)
    assert report["data"]["n_key_combinations"] > 1_400_000
    bound = 300 * 10**6 + baseline + ALLOWANCE
    assert peak <= bound, (f"peak {peak / 2**20:.0f} MB > {bound / 2**20:.0f} MB (baseline {baseline / 2**20:.0f} MB)"
                           f"\n{err}")
    f = pq.ParquetFile(out)
    assert f.schema_arrow.names == ["record", "risk", "fk", "Fk", "hier_risk"] and f.metadata.num_rows == 2_000_000
    assert "key combinations pysdc computes on" not in err  # the combinations are no longer outside the limit


# -- the numbers ---------------------------------------------------------------------------------------------


def _frame(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.integers(0, 12, n).astype(np.int64), "b": rng.choice(["x", "y", "z", "long text"], n),
        "c": rng.integers(0, 4, n).astype(np.float64), "w": np.round(rng.uniform(1, 80, n), 2),
        "h": np.repeat(np.arange(n // 3 + 1), 3)[:n].astype(np.float64)})


def _cli(argv) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(argv) == 0, err.getvalue()
    return json.loads(out.getvalue())



def test_cli_duckdb_numbers_equal_the_pandas_path(tmp_path):
    d = _frame()
    d.loc[d.index[:40], "w"] = 0.5  # weights below 1: a sample unique with Fk = 0.5 has a risk above 1 (own bin)
    d.loc[d.index[0], "a"] = 99
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    argv = ["risk", str(path), "--keys", "a,b,c", "--weight", "w", "--hid", "h", "--no-suda", "--json", "--quiet",
            "--max-global-risk", "0.001", "--top", "8"]
    pan, duck = _cli(argv + ["--engine", "pandas"]), _cli(argv + ["--engine", "duckdb", "--memory-limit", "300MB",
                                                                  "--records", str(tmp_path / "r.parquet")])
    for section in ("global", "household", "k_anonymity", "individual_risk"):
        same_model(pan[section], duck[section], path=section)
    assert pan["global"]["threshold"] is not None and pan["individual_risk"]["n_above_1"] > 0
    assert duck["data"]["n_key_combinations"] == pan["data"]["n_key_combinations"]
    # the riskiest combinations: their records' risk on pandas, and their number of records
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the weights below 1 (warned on both paths above)
        per = pysdc.measure_risk(d, ["a", "b", "c"], w="w", hid="h").individual
    for row in duck["top"]:
        sel = (d["a"] == row["a"]) & (d["b"] == row["b"]) & (d["c"] == row["c"])
        assert row["records"] == int(sel.sum())
        # (Fk a weight sum in another order: ENGINE_SUMS)
        np.testing.assert_allclose(per.loc[sel, "risk"].to_numpy(), row["risk"], rtol=ENGINE_SUMS.rtol)
    risks = [r["risk"] for r in duck["top"]]
    assert risks == sorted(risks, reverse=True)
    np.testing.assert_allclose(risks[0], per["risk"].max(), rtol=ENGINE_SUMS.rtol)
    written = pd.read_parquet(tmp_path / "r.parquet").sort_values("record")
    assert written["record"].tolist() == list(range(1, len(d) + 1))
    np.testing.assert_allclose(written["risk"].to_numpy(), per["risk"].to_numpy(), rtol=ENGINE_SUMS.rtol)
    np.testing.assert_allclose(written["hier_risk"].to_numpy(), per["hier_risk"].to_numpy(), rtol=ENGINE_SUMS.rtol)


def _models(path, keys, w=None, hid=None, mgr=0.01):
    """engine_risk_model of the DuckDB result computed in memory and with the combinations in DuckDB."""
    out = []
    for inside in (False, True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with _risk.combinations_in_engine() if inside else contextlib.nullcontext():
                res = pysdc.measure_risk(pysdc.scan(str(path)), keys, w=w, hid=hid, max_global_risk=mgr)
            model = engine_risk_model(res, keys=keys, w=w, hid=hid, top=0)
            model["summary"] = str(res)
        out.append((res, model, sorted({str(c.message) for c in caught})))
    return out


@pytest.mark.parametrize("case", ["weights", "no weights", "threshold", "nan risk", "missing hid"])
def test_in_engine_path_equals_the_in_memory_path(tmp_path, case):
    d = _frame(seed=len(case))
    keys, w, hid, mgr = ["a", "b", "c"], "w", "h", 0.01
    if case == "no weights":
        w = None
    elif case == "threshold":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mgr = 0.6 * pysdc.measure_risk(d, keys, w=w).global_risk  # below the global risk: a threshold
    elif case == "nan risk":
        d.loc[(d["a"] == 3) & (d["b"] == "x"), "w"] = 0.0  # Fk = 0: an undefined risk
    elif case == "missing hid":
        d.loc[d.index[::50], "h"] = np.nan
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    (mem, a, wa), (eng, b, wb) = _models(path, keys, w, hid, mgr)
    assert mem.summarise is None and eng.summarise is not None
    assert wa == wb
    for section in ("global", "household", "k_anonymity", "individual_risk"):
        same_model(a[section], b[section], path=section)
    assert a["data"] == b["data"] and a["summary"] == b["summary"]
    if case == "threshold":
        assert a["global"]["threshold"] == b["global"]["threshold"] and a["global"]["threshold"] > 0
    if case == "nan risk":
        assert b["individual_risk"]["n_missing"] > 0 and any("undefined (NaN) risk" in m for m in wb)
    if case == "missing hid":
        assert any("missing value(s)" in m for m in wb)
    per_mem = mem.individual.to_pandas()
    per_eng = eng.individual.to_pandas()
    np.testing.assert_array_equal(per_eng["risk"].to_numpy(), per_mem["risk"].to_numpy())
    np.testing.assert_array_equal(per_eng["Fk"].to_numpy(), per_mem["Fk"].to_numpy())


def test_missing_key_values_stay_in_the_engine(tmp_path):
    """sdcMicro's wildcard matching of missing key values is SQL too (pysdc.engine._risk_duckdb._wildcard_freqs); the
    cases are in tests/engine/test_memory_missing_keys.py."""
    d = _frame()
    d.loc[d.index[:30], "c"] = np.nan
    path = tmp_path / "d.parquet"
    d.to_parquet(path, index=False)
    (mem, a, _), (eng, b, _) = _models(path, ["a", "b", "c"], "w", None)
    assert mem.summarise is None and eng.summarise is not None
    same_model(a["global"], b["global"], path="global")


def test_threshold_in_pieces_equals_the_grouped_walk():
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(300):
        values = np.unique(np.round(rng.random(int(rng.integers(1, 40))) * rng.choice([1, 0.1, 0.01]),
                                    int(rng.integers(1, 4))))[::-1]
        counts = rng.integers(1, 6, values.size).astype(np.float64)
        mgr = float(rng.choice([0.001, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9]))
        ref = global_threshold_grouped(values, counts, mgr)
        found += ref == ref and ref > 0
        for size in (1, 2, 3, 1000):
            def chunks(size=size, values=values, counts=counts):
                for i in range(0, values.size, size):
                    yield values[i:i + size], counts[i:i + size]

            got = global_threshold_chunks(chunks, mgr, max_len=int(rng.integers(1, 10)))
            assert np.array_equal(np.float64(got), np.float64(ref), equal_nan=True), (values, counts, mgr, size)
    assert found > 20  # thresholds found, not only NaN
