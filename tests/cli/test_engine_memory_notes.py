"""Issue 26, item 3: where pysdc's own process holds the key combinations, the command says so.

``--memory-limit`` bounds DuckDB; with Spark the limit has no meaning (Spark's memory is its session's) and is
refused; on Spark the table of key combinations stays in Spark unless a key's type may code values alike: then
it is collected to the driver, and ``pysdc risk`` says so and why on stderr (not with ``--quiet``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pysdc.cli import main


@pytest.fixture
def small(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "small.parquet"
    pd.DataFrame({"a": rng.integers(0, 5, 300), "b": rng.choice(["x", "y"], 300)}).to_parquet(path, index=False)
    return str(path)


def test_memory_limit_refused_with_spark(small, capsys):
    assert main(["risk", small, "--keys", "a,b", "--engine", "spark", "--memory-limit", "1GB"]) == 2
    err = capsys.readouterr().err
    assert "--memory-limit applies to DuckDB only: Spark's memory is its session's" in err


@pytest.mark.spark
def test_spark_says_the_combinations_went_to_the_driver(small, tmp_path, capsys):
    # the combinations stay in Spark (tests/engine/test_engine_spark_summaries.py): no note
    assert main(["risk", small, "--keys", "a,b", "--engine", "spark", "--json"]) == 0
    assert "collected to the driver" not in capsys.readouterr().err
    # integers beyond 2^53 (which may code alike): collected, and said with the reason
    d = pd.read_parquet(small)
    d["a"] = d["a"] + 2**60
    big = str(tmp_path / "big.parquet")
    d.to_parquet(big, index=False)
    assert main(["risk", big, "--keys", "a,b", "--engine", "spark", "--json"]) == 0
    cap = capsys.readouterr()
    n = json.loads(cap.out)["data"]["n_key_combinations"]
    assert f"pysdc: note: on Spark the {n:,} key combinations were collected to the driver" in cap.err
    assert "integers beyond 2^53" in cap.err
    assert main(["risk", big, "--keys", "a,b", "--engine", "spark", "--json", "--quiet"]) == 0
    assert "collected to the driver" not in capsys.readouterr().err


@pytest.mark.duckdb
def test_duckdb_says_nothing_of_the_kind(small, capsys):
    assert main(["risk", small, "--keys", "a,b", "--engine", "duckdb", "--json"]) == 0
    assert "collected to the driver" not in capsys.readouterr().err
