"""Issue 23, item 8 / "What to do" 5: every failure of the command line ends in one line ``pysdc: error: ...``
and exit status 2 -- never a raw traceback -- with the advice that fits; tested per class of failure.

Each class is driven through ``pysdc.cli.main([...])`` (an exception escaping ``main`` is the traceback a
user would see), a few through a subprocess to see exactly what the shell sees."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pysdc.cli import main

from _live import optional

duckdb = optional("duckdb")
pytestmark = pytest.mark.duckdb  # skipped with the reason by tests/conftest.py


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_error(code, err, *needles):
    assert code == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("pysdc: error:")]
    assert len(lines) == 1, err
    for n in needles:
        assert n.lower() in lines[0].lower(), (n, lines[0])
    return lines[0]


@pytest.fixture
def small_parquet(tmp_path):
    p = tmp_path / "d.parquet"
    pd.DataFrame({"a": [1, 2, 3] * 20, "b": [1, 1, 2] * 20, "w": np.linspace(1, 3, 60)}).to_parquet(p)
    return p


# --------------------------------------------------------------------------- mathtext in labels

def test_report_with_mathtext_in_names_and_labels_draws_every_figure(tmp_path, capsys):
    """'$' in a column name or a category label was read as matplotlib mathtext: a malformed '$...$' raised
    ValueError while the report's figures were drawn (a raw traceback, exit 1)."""
    rng = np.random.default_rng(1)
    n = 120
    x = pd.DataFrame({"a$x$": rng.choice(["$a$", "b"], n), "b": rng.choice(["u", "$\\frac{1}{$"], n),
                      "inc$^2$": rng.normal(10, 2, n)})
    xm = x.copy()
    xm["inc$^2$"] = xm["inc$^2$"] + rng.normal(0, 1, n)
    x.to_csv(tmp_path / "x.csv", index=False)
    xm.to_csv(tmp_path / "xm.csv", index=False)
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "report", tmp_path / "x.csv", tmp_path / "xm.csv", "--keys", "a$x$,b",
                       "--output", out)
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    assert "not drawn" not in html  # every figure was drawn, none skipped
    assert html.count("data:image/png;base64,") >= 4


def test_plots_draw_dollar_labels_literally():
    pytest.importorskip("matplotlib")
    import io

    from pysdc import plots

    x = pd.DataFrame({"$v$": ["$\\frac{1}{$", "b$", "b$"], "w$": ["$", "$$", "x"], "n$": [1.0, 2.0, 3.0]})
    for fig in (plots.mosaic(x, x, "$v$", "w$"), plots.histogram(x, x, "n$"), plots.density(x, x, "n$"),
                plots.boxplot(x, x, "n$")):
        fig.savefig(io.BytesIO(), format="png")  # raised ValueError (mathtext) before
    fig = plots.mosaic(x, x, "$v$", "w$")
    texts = [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.legends[0].texts]
    assert "\\$\\frac{1}{\\$" in texts  # the label is kept, its dollars escaped (drawn as "$")
    assert plots.plain("a$b$") == "a\\$b\\$"


# --------------------------------------------------------------------------- unreadable files

@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_truncated_parquet(tmp_path, small_parquet, capsys, engine):
    data = small_parquet.read_bytes()
    bad = tmp_path / "trunc.parquet"
    bad.write_bytes(data[: len(data) // 2])
    code, _, err = run(capsys, "risk", bad, "--keys", "a,b", "--engine", engine)
    assert_error(code, err, "parquet", "trunc.parquet")


def test_parquet_with_corrupt_footer_metadata(tmp_path, small_parquet, capsys):
    data = bytearray(small_parquet.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer
    data[start:start + footer // 2] = b"\xff" * (footer // 2)  # thrift cannot decode it
    bad = tmp_path / "corrupt.parquet"
    bad.write_bytes(bytes(data))
    code, _, err = run(capsys, "risk", bad, "--keys", "a,b", "--engine", "pandas")
    assert_error(code, err, "corrupt.parquet")


# --------------------------------------------------------------------------- DuckDB's exceptions

def test_bad_memory_limit(small_parquet, capsys):
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b", "--engine", "duckdb", "--memory-limit", "lots")
    assert_error(code, err, "--memory-limit", "'lots'", "4GB")


def test_out_of_memory_advises_memory_limit(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 200_000
    p = tmp_path / "big.parquet"
    pd.DataFrame({"a": rng.integers(0, 10**6, n), "b": rng.integers(0, 10**6, n)}).to_parquet(p)
    code, _, err = run(capsys, "risk", p, "--keys", "a,b", "--engine", "duckdb", "--memory-limit", "1MB")
    assert_error(code, err, "out of memory", "--memory-limit 1MB", "larger --memory-limit", "lower --memory-limit")


@pytest.mark.parametrize("layout", ["types", "columns"])
def test_mixed_parquet_schemas_name_the_mismatching_file(tmp_path, capsys, layout):
    d = tmp_path / "parts"
    d.mkdir()
    pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}).to_parquet(d / "p1.parquet")
    other = {"a": ["x", "y", "z"]} if layout == "types" else {"c": [1, 2, 3]}
    pd.DataFrame({**other, "b": [1.0, 2.0, 3.0]}).to_parquet(d / "p2.parquet")
    code, _, err = run(capsys, "risk", d, "--keys", "a")
    assert_error(code, err, "do not share one schema", "p2.parquet", "same columns")


def test_mixed_csv_headers_name_the_mismatching_file(tmp_path, capsys):
    d = tmp_path / "parts"
    d.mkdir()
    pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}).to_csv(d / "p1.csv", index=False)
    pd.DataFrame({"c": [1, 2, 3], "b": [1.0, 2.0, 3.0], "d": [1, 1, 1]}).to_csv(d / "p2.csv", index=False)
    code, _, err = run(capsys, "risk", d, "--keys", "a")
    assert_error(code, err, "p2.csv")


def test_csv_line_too_long_for_duckdb(tmp_path, capsys):
    p = tmp_path / "long.csv"
    p.write_text("a,b\n1,2\n3," + "x" * 2_500_000 + "\n")
    code, _, err = run(capsys, "risk", p, "--keys", "a,b", "--engine", "duckdb")
    line = assert_error(code, err, "line", "long.csv")
    assert len(line) < 1000  # not the 2.5 MB line quoted back


def test_csv_value_that_does_not_convert(tmp_path, capsys):
    """A value after DuckDB's sniff sample that does not fit the type it guessed: an error that says which
    column and line (or, if the reading follows the pandas path's, a result)."""
    p = tmp_path / "conv.csv"
    p.write_text("a,b\n" + "1,2\n" * 30000 + "zz,3\n")
    code, _, err = run(capsys, "risk", p, "--keys", "a,b", "--engine", "duckdb")
    assert "Traceback" not in err
    if code != 0:
        assert_error(code, err, "'a'", "zz")


def _duck_exc(cls_name: str, text: str):
    return getattr(duckdb, cls_name)(text)


@pytest.mark.parametrize("cls_name, text, needles, input_error", [
    ("ConversionException", 'Conversion Error: CSV Error on Line: 30002\nOriginal Line: zz,3\nError when converting '
     'column "a". Could not convert string "zz" to \'BIGINT\'\nColumn a is being converted as type BIGINT',
     ["'a'", "30002", "zz", "--engine pandas"], True),
    ("IOException", 'IO Error: Could not set lock on file "o.parquet": Conflicting lock is held in pid 7',
     ["another process", "o.parquet", "--output"], False),
    ("IOException", 'IO Error: Could not write file "o.parquet": No space left on device',
     ["disk space", "o.parquet"], False),
    ("OutOfMemoryException", "Out of Memory Error: failed to allocate data of size 64 MiB (1.9 GiB/2 GiB used)",
     ["out of memory", "--memory-limit"], False),
    ("InternalException", "INTERNAL Error: something\n" + "x" * 100_000, ["DuckDB failed", "InternalException"], False),
], ids=["conversion", "lock", "disk-full", "out-of-memory", "other"])
def test_translation_of_duckdb_exceptions(cls_name, text, needles, input_error):
    from pysdc import InvalidParameterError, PysdcError
    from pysdc.engine._errors import EngineError, translate

    err = translate(_duck_exc(cls_name, text))
    assert isinstance(err, PysdcError)
    assert isinstance(err, InvalidParameterError) is input_error
    assert isinstance(err, EngineError) is not input_error
    for n in needles:
        assert n.lower() in str(err).lower(), (n, str(err))
    assert len(str(err)) < 1200


def test_engine_exception_in_the_cli_is_translated(monkeypatch, small_parquet, capsys):
    """Whatever DuckDB raises, wherever it is raised, the CLI prints one translated line."""
    from pysdc.cli import _engine as _cli

    def boom(*a, **k):
        raise duckdb.IOException('IO Error: Could not set lock on file "o.parquet": Conflicting lock is held')

    monkeypatch.setattr(_cli, "_scan", boom)
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b", "--engine", "duckdb")
    assert_error(code, err, "another process")


def test_library_raises_pysdc_errors_for_engine_failures(tmp_path):
    import pysdc
    from pysdc import InvalidParameterError

    d = tmp_path / "parts"
    d.mkdir()
    pd.DataFrame({"a": [1, 2, 3]}).to_parquet(d / "p1.parquet")
    pd.DataFrame({"a": ["x", "y", "z"]}).to_parquet(d / "p2.parquet")
    with pytest.raises(InvalidParameterError, match="p2.parquet") as info:
        pysdc.measure_risk(pysdc.scan(d), ["a"])
    assert isinstance(info.value.__cause__, duckdb.Error)  # the engine's exception is kept
    with pytest.raises(InvalidParameterError, match="memory limit 'lots'"):
        pysdc.scan(d, memory_limit="lots").columns


# --------------------------------------------------------------------------- Python's own failures

def test_memory_error(monkeypatch, tmp_path, capsys):
    """A 2 GB line makes pandas raise MemoryError (simulated: the reader raises it)."""
    import pysdc.io

    p = tmp_path / "d.csv"
    p.write_text("a,b\n1,2\n")

    def no_memory(*a, **k):
        raise MemoryError()

    monkeypatch.setattr(pysdc.io, "read_table", no_memory)
    code, _, err = run(capsys, "risk", p, "--keys", "a,b", "--engine", "pandas")
    assert_error(code, err, "out of memory", "--engine duckdb")


def test_recursion_error_from_a_deeply_nested_formula(tmp_path, capsys):
    x = pd.DataFrame({"y": np.arange(30.0), "s": ["a", "b", "c"] * 10})
    x.to_csv(tmp_path / "x.csv", index=False)
    formula = "y ~ " + "(" * 1000 + "s" + ")" * 1000
    code, _, err = run(capsys, "report", tmp_path / "x.csv", tmp_path / "x.csv", "--keys", "s", "--no-plots",
                       "--regression", formula, "--output", tmp_path / "r.html")
    assert "Traceback" not in err  # a result, or one line (RecursionError was a raw traceback)
    if code != 0:
        assert_error(code, err)


def test_recursion_error_anywhere(monkeypatch, small_parquet, capsys):
    from pysdc.cli import risk

    def deep(*a, **k):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(risk, "run", deep)
    monkeypatch.setattr("pysdc.cli.risk.run", deep, raising=False)
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b", "--engine", "pandas")
    assert_error(code, err, "nested too deeply")


def test_unexpected_exception_is_one_line_and_debug_shows_the_traceback(monkeypatch, small_parquet, capsys):
    from pysdc.cli import risk

    def bug(*a, **k):
        raise KeyError("oops")

    monkeypatch.setattr(risk, "run", bug)
    monkeypatch.delenv("PYSDC_DEBUG", raising=False)
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b")
    line = assert_error(code, err, "internal error: KeyError", "please report", "PYSDC_DEBUG=1")
    assert "oops" in line
    monkeypatch.setenv("PYSDC_DEBUG", "1")
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b")
    assert code == 2 and "Traceback" in err and err.rstrip().splitlines()[-1].startswith("pysdc: error:")


def test_subprocess_sees_one_line_and_exit_2(tmp_path, small_parquet):
    data = small_parquet.read_bytes()
    bad = tmp_path / "trunc.parquet"
    bad.write_bytes(data[:100])
    env = {k: v for k, v in os.environ.items() if k != "PYSDC_DEBUG"}
    for extra in ([], ["--engine", "duckdb"], ["--engine", "duckdb", "--memory-limit", "lots"]):
        target = small_parquet if "lots" in extra else bad
        proc = subprocess.run([sys.executable, "-m", "pysdc", "risk", str(target), "--keys", "a,b", *extra],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("pysdc: error:")


@pytest.mark.parametrize("exc, needles", [
    (ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow"), ["not installed", "pyarrow", "pip install"]),
    (UnicodeEncodeError("ascii", "\u00e9", 0, 1, "ordinal not in range"), ["encoding", "PYTHONIOENCODING"]),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), ["not valid", "--encoding"]),
], ids=["import", "encode", "decode"])
def test_python_failures_name_their_cause(monkeypatch, small_parquet, capsys, exc, needles):
    from pysdc.cli import risk

    def fail(*a, **k):
        raise exc

    monkeypatch.setattr(risk, "run", fail)
    code, _, err = run(capsys, "risk", small_parquet, "--keys", "a,b")
    line = assert_error(code, err, *needles)
    assert "internal error" not in line


def test_translation_of_spark_exceptions():
    pytest.importorskip("pyspark")
    from pyspark.errors import AnalysisException

    from pysdc import InvalidParameterError
    from pysdc.engine._errors import EngineError, translate

    err = translate(AnalysisException(message="[PATH_NOT_FOUND] Path does not exist: file:/x.parquet.\nmore"))
    assert isinstance(err, InvalidParameterError) and "Spark" in str(err) and "/x.parquet" in str(err)

    class Py4JJavaError(Exception):  # py4j's class, without a JVM behind it
        pass

    Py4JJavaError.__module__ = "py4j.protocol"
    err = translate(Py4JJavaError("An error occurred while calling o45.collect.\n: java.lang.OutOfMemoryError: "
                                  "Java heap space\n\tat org.apache.spark.Foo(Foo.java:1)\n" + "\tat x\n" * 500))
    assert isinstance(err, EngineError)
    text = str(err)
    assert "out of memory" in text and "java.lang.OutOfMemoryError" in text and "spark.driver.memory" in text
    assert "--memory-limit" not in text and len(text) < 600
