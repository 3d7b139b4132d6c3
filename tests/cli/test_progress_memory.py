"""Issue 26, item 3: progress on stderr (--quiet), --memory-limit and the automatic engine choice."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from pysdc import _progress  # noqa: E402
from pysdc._errors import InvalidParameterError  # noqa: E402
from pysdc._progress import Progress, stage  # noqa: E402
from pysdc.cli import _engine as _cli  # noqa: E402
from pysdc.cli import main  # noqa: E402


def _parquet(path, n, *, seed=1, levels=(1000, 1000, 100)):
    rng = np.random.default_rng(seed)
    t = pa.table({"a": rng.integers(0, levels[0], n), "b": rng.integers(0, levels[1], n),
                  "c": rng.integers(0, levels[2], n).astype(str), "w": rng.uniform(1, 50, n)})
    pq.write_table(t, path)
    return str(path)


# -- the display --------------------------------------------------------------------------------------------


def test_progress_quick_run_prints_nothing():
    buf = io.StringIO()
    with Progress(stream=buf, after=5.0) as p:
        p("reading")
        p("grouping")
    assert buf.getvalue() == ""


def test_progress_after_threshold_catches_up_and_names_stages():
    buf = io.StringIO()
    with Progress(stream=buf, after=0.2, heartbeat=60) as p:
        p("reading DATA")
        time.sleep(0.3)
        p("grouping the records")
    lines = buf.getvalue().splitlines()
    assert any("reading DATA" in line for line in lines)
    assert any("grouping the records" in line for line in lines)
    assert " s  done" in lines[-1]
    assert all(line.startswith("pysdc: ") for line in lines)


def test_progress_heartbeat_during_one_long_stage():
    buf = io.StringIO()
    with Progress(stream=buf, after=0.0, heartbeat=0.3) as p:
        p("one long query")
        time.sleep(1.6)  # the heartbeat thread wakes at most once a second here
    assert "still one long query" in buf.getvalue()


def test_progress_heartbeat_shows_the_running_querys_percentage():
    buf = io.StringIO()
    with Progress(stream=buf, after=0.0, heartbeat=0.3) as p:
        _progress.watch(lambda: -1.0)  # DuckDB's "no query running": skipped
        _progress.watch(lambda: 42.4)
        p("grouping")
        time.sleep(1.6)
    assert "the running query 42 % done" in buf.getvalue()


def test_progress_same_stage_again_is_one_line():
    buf = io.StringIO()
    with Progress(stream=buf, after=0.0, heartbeat=60) as p:
        for _ in range(6):
            p("kAnon_violations")
    assert buf.getvalue().count("kAnon_violations") == 1


def test_progress_quiet_prints_nothing():
    buf = io.StringIO()
    with Progress(stream=buf, quiet=True, after=0.0, heartbeat=0.1) as p:
        p("reading")
        time.sleep(0.3)
    assert buf.getvalue() == ""


def test_stage_outside_a_display_is_silent(capsys):
    stage("nothing to show")  # the Python API: no display, no output
    assert capsys.readouterr().err == ""


# -- the command line ---------------------------------------------------------------------------------------


@pytest.fixture
def small(tmp_path):
    return _parquet(tmp_path / "small.parquet", 2000, levels=(20, 20, 5))


@pytest.mark.parametrize("engine", [pytest.param("duckdb", marks=pytest.mark.duckdb), "pandas"])
def test_cli_risk_shows_stages_and_quiet_silences_them(small, monkeypatch, capsys, engine):
    monkeypatch.setattr(_progress, "AFTER", 0.0)
    assert main(["risk", small, "--keys", "a,b,c", "--weight", "w", "--engine", engine, "--no-suda", "--json"]) == 0
    cap = capsys.readouterr()
    json.loads(cap.out)  # stdout holds the report only (DuckDB's own progress bar never prints)
    err = cap.err
    assert "measure_risk" in err
    if engine == "duckdb":
        assert "grouping the records by a, b, c" in err
        assert "key combinations (2,000 records)" in err
    assert main(["risk", small, "--keys", "a,b,c", "--weight", "w", "--engine", engine, "--no-suda",
                 "--quiet"]) == 0
    assert "pysdc:" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["risk", "utility", "report"])
def test_quiet_in_every_command_help(command, capsys):
    with pytest.raises(SystemExit):
        from pysdc.cli import build_parser

        build_parser(None).parse_args([command, "--help"])
    assert "--quiet" in capsys.readouterr().out


# -- --memory-limit -----------------------------------------------------------------------------------------


def test_memory_limit_refused_with_pandas(small, capsys):
    assert main(["risk", small, "--keys", "a,b", "--engine", "pandas", "--memory-limit", "1GB"]) == 2
    assert "--memory-limit applies to DuckDB only" in capsys.readouterr().err


@pytest.mark.duckdb
def test_memory_limit_selects_duckdb_and_says_so(small, capsys):
    assert main(["risk", small, "--keys", "a,b", "--memory-limit", "1GB", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["engine"] == "duckdb"
    assert [line for line in cap.err.splitlines() if line.startswith("pysdc: engine duckdb: --memory-limit 1GB")]


def test_duckdb_settings_under_a_limit():
    s = _cli.duckdb_settings("300MB")
    assert s["threads"] == 1  # 300 MB: one thread of 200 MB
    assert os.path.dirname(s["temp_directory"]) == __import__("tempfile").gettempdir()  # not the current directory
    assert _cli.duckdb_settings(None) == {}
    assert _cli.parse_size("2GB") == 2 * 10**9 and _cli.parse_size("1.5GiB") == int(1.5 * 2**30)
    assert _cli.parse_size("lots") is None


@pytest.mark.duckdb
def test_peak_rss_at_a_small_memory_limit(tmp_path):
    """2e6 records with ~2e6 key combinations, --memory-limit 300MB, --output: the process's peak memory
    (VmHWM) stays within the limit + pysdc's stated baseline (Python, pandas, pyarrow, DuckDB) + its
    stated bytes per key combination (the table pysdc computes on, outside DuckDB's limit), + 20 %.
    Before the limit gave DuckDB all cores and the riskiest combinations were sorted on a copy of the
    table; the note on stderr says when the limit itself was exceeded."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("VmHWM is read from /proc (Linux)")
    data = _parquet(tmp_path / "big.parquet", 2_000_000)
    out = tmp_path / "risk.parquet"
    code = ("import sys; from pysdc.cli import main; rc = main(sys.argv[1:]); "
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]; "
            "print('HWM', hwm, file=sys.stderr); sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "risk", data, "--keys", "a,b,c", "--weight", "w", "--engine",
                        "duckdb", "--memory-limit", "300MB", "--output", str(out), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    peak = int([line for line in r.stderr.splitlines() if line.startswith("HWM")][0].split()[1]) * 1024
    report = json.loads(r.stdout)
    n_comb = report["data"]["n_key_combinations"]
    assert n_comb > 1_900_000
    bound = 1.2 * (300 * 10**6 + _cli.BASELINE_BYTES + _cli.PER_COMBINATION_BYTES * n_comb)
    assert peak <= bound, f"peak {peak / 2**20:.0f} MB > {bound / 2**20:.0f} MB"
    assert pq.ParquetFile(out).schema_arrow.names == ["record", "risk", "fk", "Fk"]  # 1-based record numbers
    assert pq.ParquetFile(out).metadata.num_rows == 2_000_000
    if peak > 300 * 10**6:
        assert "exceeded --memory-limit 300MB" in r.stderr and f"{n_comb:,} key combinations" in r.stderr


# -- the automatic engine choice ----------------------------------------------------------------------------


def test_estimate_from_parquet_metadata_not_file_size(tmp_path):
    n = 200_000
    path = tmp_path / "constant.parquet"
    pq.write_table(pa.table({"a": np.zeros(n, dtype=np.int64), "b": np.ones(n), "t": ["x"] * n}), path)
    est = _cli.estimate_memory(str(path))
    assert os.path.getsize(path) * 5 < 8 * n  # the old rule (size x 5) saw almost nothing
    assert est >= 8 * n * 3 + 16 * n  # three columns of 8 bytes a row, and a text column's overhead
    assert _cli.estimate_memory(str(path), ["a"]) < est  # only the columns needed
    assert 8 * n <= _cli.estimate_memory(str(path), ["a"]) <= 9 * n


@pytest.mark.duckdb
def test_auto_picks_duckdb_when_the_file_would_not_fit_and_says_so(tmp_path, monkeypatch, capsys):
    path = _parquet(tmp_path / "d.parquet", 50_000)
    est = _cli.estimate_memory(path, ["a", "b"])
    monkeypatch.setattr(_cli, "_available_memory", lambda: est * _cli._WORK_FACTOR)  # half of it would not do
    assert _cli.choose_engine("auto", path, columns=["a", "b"]) == "duckdb"
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pysdc: engine duckdb: the data need about")
    assert _cli.choose_engine("auto", path, columns=["a", "b"], quiet=True) == "duckdb"
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_cli, "_available_memory", lambda: est * _cli._WORK_FACTOR * 4)
    assert _cli.choose_engine("auto", path, columns=["a", "b"]) == "pandas"
    assert capsys.readouterr().err == ""


def test_explicit_pandas_with_memory_limit_raises():
    with pytest.raises(InvalidParameterError, match="DuckDB only"):
        _cli.choose_engine("pandas", "x.parquet", memory_limit="1GB")
