"""Missing key values on Spark at scale: sdcMicro's wildcard rule with the key combinations kept in Spark.

With missing key values sdcMicro's freqCalc lets a missing value match every category. Within
:func:`pysdc.engine._risk.combinations_in_engine` (``pysdc risk --engine spark``) the Spark path matches the
patterns of missing keys in one equi-join over the combination table (:func:`pysdc.engine._risk_spark.
_wildcard_freqs_spark`). Its first version (one join per pair of patterns, unioned, lineage never cut) ran out
of the driver's memory after 400 s on 24,000 records with 4 keys (tests/io/test_one_reader.py): its plans had
hundreds of joins, its jobs hundreds of stages and one stage a task per unioned partition (measured on 900
records with 3 keys: 98 jobs, 245 stages, 939 tasks, 192 in one stage; this path: 32 jobs, 57 stages, 125
tasks, at most 4 in a stage, the same with 4 keys on 25,000 records). Here all 16 patterns of 4 keys are
present on 25,000 records; the work is bounded structurally (stages and tasks of the jobs measure_risk runs,
not time) and every number is the pandas path's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.engine import _risk
from pysdc.engine._risk_spark import SparkSummaries
from pysdc.engine._tables import SparkTable

pytestmark = pytest.mark.spark  # PySpark and Java 17: skipped with the reason by tests/conftest.py

N = 25_000
KEYS = ["a", "b", "c", "e"]
#: bounds on the Spark work of one measure_risk: independent of the number of patterns (16 here, 240 pairs)
MAX_STAGES = 100
MAX_TASKS = 400
MAX_TASKS_PER_STAGE = 16


def _records(n=N, seed=26) -> pd.DataFrame:
    """Four keys of four Spark types (bigint, string, double, boolean), each missing in ~15 % of the records
    independently (every pattern of missing keys present), and weights."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({
        "a": pd.array(rng.integers(0, 9, n), dtype="Int64"), "b": rng.choice(["x", "y", "z", "w", "v"], n).astype(object),
        "c": rng.integers(0, 6, n).astype(np.float64), "e": pd.array(rng.random(n) < 0.4, dtype="boolean"),
        "w": np.round(rng.uniform(1, 50, n), 2)})
    d.loc[rng.random(n) < 0.15, "a"] = pd.NA
    d.loc[rng.random(n) < 0.15, "b"] = None
    d.loc[rng.random(n) < 0.15, "c"] = np.nan  # a NaN double: missing, as NULL
    d.loc[rng.random(n) < 0.15, "e"] = pd.NA
    return d


def _work(spark, group: str) -> tuple[int, int, int]:
    """Stages, tasks and the most tasks of one stage of the jobs run in ``group``."""
    st = spark.sparkContext.statusTracker()
    stages = [sid for j in st.getJobIdsForGroup(group) for sid in st.getJobInfo(j).stageIds]
    tasks = [info.numTasks for info in map(st.getStageInfo, stages) if info is not None]
    return len(stages), sum(tasks), max(tasks)


# max_global_risk below the global risk: the threshold is a risk found by the walk, not NaN
@pytest.mark.parametrize("weighted,alpha,mgr", [(True, 1.0, 2e-5), (False, 0.5, 1e-3)])
def test_wildcards_on_25000_records_stay_in_spark_bounded_and_equal_pandas(spark, tmp_path, monkeypatch,
                                                                           weighted, alpha, mgr):
    d = _records()
    patterns = {tuple(r) for r in d[KEYS].isna().to_numpy()}
    assert len(patterns) == 16  # every pattern of missing keys, the all-missing one included
    d.to_parquet(tmp_path / "d.parquet", index=False)
    scan = pysdc.scan(tmp_path / "d.parquet", engine="spark", spark=spark)
    w = "w" if weighted else None

    def refuse(self, keys, aggs):
        raise AssertionError("the key combinations were collected to the driver")

    group = f"pysdc-wildcards-{weighted}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pysdc.measure_risk(d, KEYS, w=w, alpha=alpha, max_global_risk=mgr)
        with monkeypatch.context() as m:
            m.setattr(SparkTable, "combos", refuse)
            spark.sparkContext.setJobGroup(group, "measure_risk with missing keys")
            try:
                with _risk.combinations_in_engine():
                    got = pysdc.measure_risk(scan, KEYS, w=w, alpha=alpha, max_global_risk=mgr)
            finally:
                spark.sparkContext.setJobGroup("", "")
    stages, tasks, most = _work(spark, group)
    assert isinstance(got.summarise, SparkSummaries) and got.counts is None
    assert stages <= MAX_STAGES and tasks <= MAX_TASKS and most <= MAX_TASKS_PER_STAGE, (stages, tasks, most)
    assert got.n == N and got.summarise.n_combinations == len(d[KEYS].drop_duplicates())
    ind = got.individual.to_pandas()
    assert ind["record"].tolist() == list(range(1, N + 1))
    assert not np.isnan(ref.global_threshold)
    fk = ref.individual["fk"].to_numpy(float)
    np.testing.assert_array_equal(ind["fk"].to_numpy(float), fk)  # sums of counts: exact
    assert got.summarise.below("fk", [2, 3, 5]) == [int((fk < k).sum()) for k in (2, 3, 5)]
    if weighted:  # weight sums in another order
        for col in ("Fk", "risk"):
            np.testing.assert_allclose(ind[col].to_numpy(float), ref.individual[col].to_numpy(float),
                                       rtol=ENGINE_SUMS.rtol, atol=ENGINE_SUMS.atol, err_msg=col)
        np.testing.assert_allclose(got.global_threshold, ref.global_threshold, rtol=ENGINE_SUMS.rtol)
    else:  # Fk = fk, the same risks bitwise, walked in the same order
        for col in ("Fk", "risk"):
            np.testing.assert_array_equal(ind[col].to_numpy(float), ref.individual[col].to_numpy(float), err_msg=col)
        assert got.global_threshold == ref.global_threshold
    np.testing.assert_allclose(got.global_risk_er, ref.global_risk_er, rtol=ENGINE_SUMS.rtol, atol=ENGINE_SUMS.atol)
