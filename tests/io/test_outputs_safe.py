"""Outputs (issue 23, items 2 and 5): never over an input, at the final path only when complete.

Each test names the failure it guards against; each fails on the code before ``pysdc/_output.py``
(which wrote in place: over its inputs, partial files on errors, interrupts and full disks, Parquet
bytes under any name).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.cli import main
from pysdc.io import write_table

OLD = b"OLD CONTENT, must survive\n"


def _frame(n=400, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 6, n), "b": rng.integers(0, 4, n), "w": rng.uniform(1, 40, n),
                         "h": rng.integers(0, n // 3, n)})


def _run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def _snapshot(directory) -> dict:
    """Every file below ``directory`` (hidden ones too) with its bytes."""
    out = {}
    for root, _, files in os.walk(directory):
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, directory)] = fh.read()
    return out


def _refused(code: int, err: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()  # (progress lines on stderr may come first)
    assert lines and lines[-1].startswith("pysdc: error:") and "Traceback" not in err, err


@pytest.fixture
def files(tmp_path):
    df = _frame()
    df.to_parquet(tmp_path / "d.parquet", index=False)
    write_table(df, tmp_path / "d.csv")  # with its sidecar d.schema.json
    write_table(_frame(seed=1), tmp_path / "m.csv", schema=False)
    return tmp_path


# =============================================================================
# 1. an output never overwrites an input


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "spark"])
def test_risk_output_over_its_input_is_refused(files, capsys, engine):
    """`pysdc risk d.parquet --output d.parquet` overwrote the data it read (exit 0); refused before any work
    (with Spark before a session starts)."""
    before = _snapshot(files)
    d = files / "d.parquet"
    _refused(*_run(capsys, "risk", d, "--keys", "a,b", "--engine", engine, "--no-suda", "--output", d))
    assert _snapshot(files) == before


@pytest.mark.parametrize("which", ["original", "masked"])
def test_report_output_over_an_input_is_refused(files, capsys, which):
    """`pysdc report d.csv --output d.csv` wrote HTML over the data (exit 0); the masked file likewise."""
    before = _snapshot(files)
    target = files / ("d.csv" if which == "original" else "m.csv")
    code, err = _run(capsys, "report", files / "d.csv", files / "m.csv", "--keys", "a,b", "--no-plots",
                     "--output", target)
    _refused(code, err)
    assert "input" in err
    assert _snapshot(files) == before


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
@pytest.mark.parametrize("command", ["risk", "report"])
def test_output_through_a_link_to_an_input_is_refused(files, capsys, link, command):
    """A symbolic or hard link to an input, under an accepted name, is the input (resolved paths and
    (st_dev, st_ino) compared)."""
    src, name = (files / "d.parquet", "out.parquet") if command == "risk" else (files / "d.csv", "out.html")
    out = files / name
    (os.symlink if link == "symlink" else os.link)(src, out)
    before = _snapshot(files)
    argv = (["risk", src, "--keys", "a,b", "--engine", "duckdb"] if command == "risk"
            else ["report", src, "--keys", "a,b", "--no-plots"])
    _refused(*_run(capsys, *argv, "--output", out))
    assert _snapshot(files) == before


def test_schema_sidecars_are_inputs(files, capsys, tmp_path):
    """The sidecar of a CSV input (d.schema.json) and a --schema file are inputs: a report written through
    a link to them would have replaced the column types of the data with HTML."""
    other = tmp_path / "types.json"
    other.write_bytes((files / "d.schema.json").read_bytes())
    for target in (files / "d.schema.json", other):
        out = files / f"to_{target.stem}.html"
        os.symlink(target, out)
        before = _snapshot(files)
        _refused(*_run(capsys, "report", files / "d.csv", "--keys", "a,b", "--no-plots", "--schema", other,
                       "--output", out))
        assert _snapshot(files) == before


@pytest.mark.parametrize("form", ["directory", "glob"])
def test_output_inside_an_input_directory_or_glob_is_refused(tmp_path, capsys, form):
    """An output inside the directory (or matched by the glob) it reads would be read as input by the next
    run, or while it is written: refused, the directory unchanged."""
    parts = tmp_path / "parts"
    parts.mkdir()
    df = _frame()
    df.iloc[:200].to_parquet(parts / "p1.parquet", index=False)
    df.iloc[200:].to_parquet(parts / "p2.parquet", index=False)
    src = parts if form == "directory" else parts / "*.parquet"
    before = _snapshot(tmp_path)
    _refused(*_run(capsys, "risk", src, "--keys", "a,b", "--engine", "duckdb", "--output", parts / "risk.parquet"))
    assert _snapshot(tmp_path) == before


def test_spark_output_directory_holding_the_input_is_refused(tmp_path, capsys):
    """Spark writes a directory: one that holds the input (Spark's overwrite mode deleted it) is refused."""
    parts = tmp_path / "parts"
    parts.mkdir()
    _frame().to_parquet(parts / "p1.parquet", index=False)
    before = _snapshot(tmp_path)
    _refused(*_run(capsys, "risk", parts / "p1.parquet", "--keys", "a,b", "--engine", "spark", "--output", parts))
    assert _snapshot(tmp_path) == before


def test_engine_table_to_parquet_refuses_its_input(files):
    """The API: ``res.individual.to_parquet(path)`` over a file the scan reads raises InvalidParameterError."""
    d = files / "d.parquet"
    before = d.read_bytes()
    res = pysdc.measure_risk(pysdc.scan(d), ["a", "b"])
    with pytest.raises(pysdc.InvalidParameterError, match="input"):
        res.individual.to_parquet(d)
    assert d.read_bytes() == before


# =============================================================================
# 4. the extension decides the format


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_risk_output_with_a_csv_name_is_refused(files, capsys, engine):
    """`--output r.csv` wrote Parquet bytes under a .csv name; refused, with the accepted extensions: the per-record
    risk (--records) is Parquet, the result (--output, as in every command) JSON, Markdown or text."""
    code, err = _run(capsys, "risk", files / "d.parquet", "--keys", "a,b", "--engine", engine, "--no-suda",
                     "--records", files / "r.csv")
    _refused(code, err)
    assert ".parquet" in err and ".pq" in err
    assert not (files / "r.csv").exists()
    code, err = _run(capsys, "risk", files / "d.parquet", "--keys", "a,b", "--engine", engine, "--no-suda",
                     "--output", files / "r.csv")
    _refused(code, err)
    assert ".json" in err and ".md" in err and ".txt" in err
    assert not (files / "r.csv").exists()


def test_report_output_must_be_html(files, capsys):
    code, err = _run(capsys, "report", files / "d.csv", "--keys", "a,b", "--no-plots", "--output", files / "r.txt")
    _refused(code, err)
    assert ".html" in err and not (files / "r.txt").exists()
    problem = pysdc.SdcProblem(_frame(), ["a", "b"])
    with pytest.raises(pysdc.InvalidParameterError, match=".html"):
        problem.report(path=files / "r.csv", plots=False)
    assert not (files / "r.csv").exists()


# =============================================================================
# 2., 3. a failed write leaves the old file (or nothing), and a full disk says so


class _FullDiskFile:
    """A file object whose device fills after ``room`` bytes: writes what fits, then ENOSPC."""

    def __init__(self, fh, room):
        self._fh, self._room = fh, room

    def write(self, data):
        if len(data) > self._room:
            self._fh.write(data[:self._room])
            self._fh.flush()
            self._room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def _full_disk_under(monkeypatch, directory, room=100):
    """Python's open (builtins and io, which pathlib uses) on a full disk for files written below ``directory``."""
    real = io.open
    directory = os.path.realpath(directory)

    def fake(file, mode="r", *args, **kwargs):
        fh = real(file, mode, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and any(m in mode for m in "wax+") \
                and os.path.realpath(os.fspath(file)).startswith(directory + os.sep):
            return _FullDiskFile(fh, room)
        return fh

    monkeypatch.setattr(builtins, "open", fake)
    monkeypatch.setattr(io, "open", fake)


def _assert_untouched_after_full_disk(code, err, out_dir, before):
    assert _snapshot(out_dir) == before  # the old output intact, no temporary file left
    _refused(code, err)
    assert "disk is full" in err, err


def test_report_on_a_full_disk_keeps_the_old_report(files, capsys, monkeypatch, tmp_path):
    """A full disk left a truncated HTML at the final path; now the old report stays, the error says why."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "r.html").write_bytes(OLD)
    before = _snapshot(out_dir)
    handler = signal.getsignal(signal.SIGTERM)
    _full_disk_under(monkeypatch, out_dir)
    code, err = _run(capsys, "report", files / "d.csv", "--keys", "a,b", "--no-plots", "--output", out_dir / "r.html")
    monkeypatch.undo()
    _assert_untouched_after_full_disk(code, err, out_dir, before)
    assert signal.getsignal(signal.SIGTERM) is handler  # the CLI's SIGTERM handler lives only around the write


def test_risk_pandas_output_on_a_full_disk(files, capsys, monkeypatch, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "r.parquet").write_bytes(OLD)
    before = _snapshot(out_dir)
    real = pd.DataFrame.to_parquet

    def partial(self, path, *args, **kwargs):  # the first bytes reach the disk, then it is full
        with open(path, "wb") as fh:
            fh.write(b"PAR1 partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", partial)
    code, err = _run(capsys, "risk", files / "d.parquet", "--keys", "a,b", "--engine", "pandas", "--no-suda",
                     "--output", out_dir / "r.parquet")
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    _assert_untouched_after_full_disk(code, err, out_dir, before)


def test_risk_duckdb_output_failing_midway(files, capsys, monkeypatch, tmp_path):
    """The streaming writer's context manager wrote the footer on the way out of a failure: a valid Parquet
    with part of the records at the final path. Now the old file stays."""
    import pyarrow.parquet as pq

    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "r.parquet").write_bytes(OLD)
    before = _snapshot(out_dir)

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq.ParquetWriter, "write_batch", full)
    code, err = _run(capsys, "risk", files / "d.parquet", "--keys", "a,b", "--weight", "w", "--hid", "h",
                     "--engine", "duckdb", "--output", out_dir / "r.parquet")
    monkeypatch.undo()
    _assert_untouched_after_full_disk(code, err, out_dir, before)


def _mount_tmpfs(path, size):
    if os.name != "posix" or os.geteuid() != 0:
        return False
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return r.returncode == 0


@pytest.mark.parametrize("command", ["report", "risk"])
def test_a_really_full_disk(files, capsys, tmp_path, command):
    """The same on a real full file system (a small tmpfs; skipped where it cannot be mounted)."""
    mnt = tmp_path / "mnt"
    if not _mount_tmpfs(mnt, "256k"):
        pytest.skip("cannot mount a tmpfs here (needs root and the permission to mount)")
    try:
        name = "r.html" if command == "report" else "r.parquet"
        (mnt / name).write_bytes(OLD)
        with open(mnt / "filler", "wb") as fh:  # leave about 8 KB free
            try:
                fh.write(b"\0" * (256 * 1024 - 8 * 1024 - len(OLD)))
            except OSError:
                pass
        before = _snapshot(mnt)
        argv = (["report", files / "d.csv", "--keys", "a,b", "--no-plots"] if command == "report"
                else ["risk", files / "d.parquet", "--keys", "a,b", "--weight", "w", "--engine", "duckdb"])
        code, err = _run(capsys, *argv, "--output", mnt / name)
        _assert_untouched_after_full_disk(code, err, mnt, before)
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_write_table_changes_both_files_or_neither(tmp_path, monkeypatch):
    """write_table writes the CSV and its sidecar: a failure while making the sidecar left a new CSV beside
    the old sidecar (types that no longer match); now both keep their old content."""
    import pysdc.io._csv_write as pio

    path = tmp_path / "t.csv"
    write_table(_frame(seed=1), path)
    before = _snapshot(tmp_path)

    def broken(sch):
        raise RuntimeError("sidecar failed")

    monkeypatch.setattr(pio, "_schema_text", broken)
    with pytest.raises(RuntimeError, match="sidecar failed"):
        write_table(_frame(seed=2), path)
    assert _snapshot(tmp_path) == before


# =============================================================================
# 5. concurrent writers


def test_concurrent_writers_leave_one_complete_output(tmp_path):
    """Two writers to the same --output: the file is one of the two complete tables, never a mix (each
    writes its own temporary file and renames it)."""
    from pysdc.cli._engine import write_pandas_output

    n = 300_000
    out = tmp_path / "r.parquet"
    tables = [pd.DataFrame({"risk": np.full(n, float(k)), "fk": np.arange(n, dtype=np.float64) + k})
              for k in (1, 2)]
    data = pd.DataFrame({"x": np.zeros(n)})
    errors = []

    def write(t):
        try:
            write_pandas_output(str(out), data, t, None)
        except Exception as exc:  # pragma: no cover - shown by the assertion below
            errors.append(exc)

    for _ in range(4):
        threads = [threading.Thread(target=write, args=(t,)) for t in tables]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        back = pd.read_parquet(out)
        assert len(back) == n
        k = back["risk"].iloc[0]
        assert k in (1.0, 2.0)
        pd.testing.assert_frame_equal(back.drop(columns="record"), tables[int(k) - 1])
    assert sorted(os.listdir(tmp_path)) == ["r.parquet"]


# =============================================================================
# 6. signals: SIGINT, SIGTERM, SIGKILL during a write


N_BIG = 2_000_000


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(5)
    pd.DataFrame({"a": rng.integers(0, 200, N_BIG), "b": rng.integers(0, 50, N_BIG),
                  "w": rng.uniform(1, 50, N_BIG)}).to_parquet(d / "big.parquet", index=False)
    return d / "big.parquet"


def _signal_during_write(big, out, sig):
    """Run `pysdc risk BIG --engine duckdb --output OUT`, send ``sig`` once the write has started (a new entry
    appears in OUT's directory); the exit code and what the directory gained."""
    before = set(os.listdir(out.parent))
    before_out = out.read_bytes() if out.exists() else None
    proc = subprocess.Popen([sys.executable, "-m", "pysdc", "risk", str(big), "--keys", "a,b", "--weight", "w",
                             "--engine", "duckdb", "--output", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        names = set(os.listdir(out.parent))
        if names - before or (before_out is not None and out.exists() and out.read_bytes() != before_out):
            break
        time.sleep(0.002)
    proc.send_signal(sig)
    code = proc.wait(60)
    err = proc.stderr.read().decode()
    return code, err, set(os.listdir(out.parent)) - before


def _complete(out) -> bool:
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(out).metadata.num_rows == N_BIG
    except Exception:
        return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_write_leaves_the_old_file_and_no_temporary(big, tmp_path, sig):
    """SIGINT left a valid Parquet with 1,048,576 of the records (the writer's footer on the way out),
    SIGTERM an unreadable partial file; now the final path keeps its old content, nothing else remains."""
    out = tmp_path / "o.parquet"
    if sig == signal.SIGTERM:
        out.write_bytes(OLD)
    code, err, gained = _signal_during_write(big, out, sig)
    if code == 0 and _complete(out):  # the signal came after the write had finished (a slow machine's race)
        pytest.skip("the write finished before the signal arrived")
    assert code == (130 if sig == signal.SIGINT else 143), err
    assert "Traceback" not in err
    assert gained == set()  # no temporary file left, no new file
    if sig == signal.SIGTERM:
        assert out.read_bytes() == OLD
    else:
        assert not out.exists()


def test_killed_write_leaves_only_a_hidden_temporary(big, tmp_path):
    """SIGKILL cannot be caught: it may leave the hidden temporary file, never a partial file at the final path."""
    out = tmp_path / "o.parquet"
    code, err, gained = _signal_during_write(big, out, signal.SIGKILL)
    if code == 0 and _complete(out):
        pytest.skip("the write finished before the signal arrived")
    assert code == -signal.SIGKILL
    assert not out.exists()
    assert all(name.startswith(".") for name in gained), gained


# =============================================================================
# Spark: a directory of part files, written beside the target and renamed


@pytest.mark.spark
def test_spark_output_directory_replaced_whole_or_not_at_all(tmp_path, capsys, monkeypatch):
    """Spark's overwrite mode deleted the old output directory before writing; a run failing after the write
    (here: a full disk while the household risk is summed) left a directory from the failed run. Now a failed
    run keeps the old directory as it was, a successful one replaces it whole (no stale part file), and no
    temporary directory remains."""

    from pysdc.engine._tables import SparkTable

    parts = tmp_path / "parts"
    parts.mkdir()
    _frame(600).to_parquet(parts / "p1.parquet", index=False)
    out_dir = tmp_path / "out"
    out = out_dir / "risk.parquet"
    out.mkdir(parents=True)
    (out / "part-old.parquet").write_bytes(OLD)
    before = _snapshot(out_dir)
    argv = ["risk", parts, "--keys", "a,b", "--weight", "w", "--hid", "h", "--engine", "spark", "--output", out]

    def full(self, path, col):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(SparkTable, "written_sum", full)
    code, err = _run(capsys, *argv)
    monkeypatch.undo()
    assert _snapshot(out_dir) == before
    _refused(code, err)
    assert "disk is full" in err

    code, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    assert "part-old.parquet" not in os.listdir(out)
    assert sorted(os.listdir(out_dir)) == ["risk.parquet"]
    assert len(pd.read_parquet(out)) == 600


def test_replacing_a_file_keeps_its_permissions(files, capsys, tmp_path):
    """A rename puts a new file in place: it takes the permissions of the file it replaces, so a private
    output (mode 600) does not become readable by others when it is written again."""
    out = tmp_path / "private.html"
    out.write_bytes(OLD)
    out.chmod(0o600)
    code, err = _run(capsys, "report", files / "d.csv", "--keys", "a,b", "--no-plots", "--output", out)
    assert code == 0, err
    assert out.read_bytes() != OLD
    assert out.stat().st_mode & 0o777 == 0o600


def test_two_runs_writing_the_same_output(tmp_path):
    """Two `pysdc risk --engine duckdb --output SAME` at once wrote into one file (raw DuckDB/Arrow errors or
    a mixed file); now both succeed and the file is one run's complete table: its row count is one input's,
    its fk that input's key-combination sizes (counted here by pandas)."""
    rng = np.random.default_rng(11)
    frames = {}
    for name, n in (("x", 1_200_000), ("y", 1_100_000)):
        df = pd.DataFrame({"a": rng.integers(0, 300, n), "b": rng.integers(0, 40, n)})
        df.to_parquet(tmp_path / f"{name}.parquet", index=False)
        frames[n] = df
    out = tmp_path / "same.parquet"
    procs = [subprocess.Popen([sys.executable, "-m", "pysdc", "risk", str(tmp_path / f"{name}.parquet"), "--keys",
                               "a,b", "--engine", "duckdb", "--output", str(out)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for name in ("x", "y")]
    results = [(p.wait(120), p.stderr.read().decode()) for p in procs]
    assert all(code == 0 for code, _ in results), results
    back = pd.read_parquet(out).sort_values("record")
    assert len(back) in frames
    df = frames[len(back)]
    np.testing.assert_array_equal(back["fk"].to_numpy(), df.groupby(["a", "b"])["a"].transform("size").to_numpy())
    assert sorted(os.listdir(tmp_path)) == ["same.parquet", "x.parquet", "y.parquet"]
