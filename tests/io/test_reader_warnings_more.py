"""The readers' warnings, said alike by the library and the command line on every engine: empty text fields
read as the value "" (read_table and pysdc.scan said nothing; only the command line did), and the names a
repeated header name is read under, as R's read.csv (make.unique) gives them (the warning said 'a.1 and so
on' where R names a later copy 'a.2')."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import warnings

import pytest

from pysdc import PysdcWarning
from pysdc.cli import main
from pysdc.engine._tables import scan
from pysdc.io import read_table, reading_as

ENGINES = ["pandas", pytest.param("duckdb", marks=pytest.mark.duckdb), pytest.param("spark", marks=pytest.mark.spark)]

# k has two empty fields, t one (and one of white space only: a value), n is numeric (blank: missing),
# b is blank only (logical, all missing)
_CSV = "k,t,n,b,w\na,x,1,,1\n,y,,,2\nb, ,3,,1\n,,4, ,2\nc,z,5,,1\n"


@pytest.fixture
def on(request):
    if request.param == "spark":
        request.getfixturevalue("spark")
    return request.param


def _said(path, engine, **kw) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if engine == "pandas":
            names = list(read_table(path, **kw).columns)
        else:
            s = scan(str(path), engine=engine, **kw)
            s.table()
            names = list(s.columns)
    return names, [str(w.message) for w in caught if issubclass(w.category, PysdcWarning)]


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_the_library_says_empty_text_fields_on_every_engine(tmp_path, on):
    p = tmp_path / "office.csv"
    p.write_text(_CSV, encoding="utf-8")
    _, said = _said(p, on)
    assert [m[:52] for m in said] == ["column 'k' of office.csv has 2 empty text field(s); ",
                                      "column 't' of office.csv has 1 empty text field(s); "]
    assert all("read as the category \"\"" in m and "--na ''" in m and "na_values" in m for m in said)
    assert said == _said(p, "pandas")[1]  # the same words


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_no_empty_text_warning_when_empty_fields_are_missing(tmp_path, on):
    p = tmp_path / "office.csv"
    p.write_text(_CSV, encoding="utf-8")
    assert _said(p, on, na_values=("NA", ""))[1] == []


def test_read_table_says_empty_fields_with_a_schema_too(tmp_path):
    p = tmp_path / "typed.csv"
    p.write_text("k,w\na,1\n,2\n", encoding="utf-8")
    (tmp_path / "typed.schema.json").write_text(json.dumps({"format": "pysdc-table-1", "columns": [
        {"name": "k", "r_class": "factor", "levels": ["a", ""]}, {"name": "w", "r_class": "numeric"}]}))
    _, said = _said(p, "pandas")
    assert [m[:50] for m in said] == ["column 'k' of typed.csv has 1 empty text field(s);"]


def test_reading_as_names_the_table_and_keeps_the_columns_asked(tmp_path):
    p = tmp_path / "office.csv"
    p.write_text(_CSV, encoding="utf-8")
    with reading_as("DATA", ["t"]):
        _, said = _said(p, "pandas")
    assert [m[:40] for m in said] == ["column 't' of DATA has 1 empty text fiel"]
    with reading_as("DATA", ()):
        assert _said(p, "pandas")[1] == []


def test_a_wide_table_says_its_empty_fields_in_eleven_warnings_at_most(tmp_path):
    p = tmp_path / "wide.csv"
    p.write_text(",".join(f"c{j}" for j in range(40)) + "\n" + ",".join("x" for _ in range(40)) + "\n"
                 + ",".join("" for _ in range(40)) + "\n", encoding="utf-8")
    _, said = _said(p, "pandas")
    assert len(said) == 11
    assert said[-1].startswith("30 more columns of wide.csv ('c10', 'c11',") and "have 30 empty text" in said[-1]


def _cli(path, engine, *extra) -> list:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["risk", str(path), "--keys", "k", "--weight", "w", "--engine", engine, "--quiet", "--json",
                   *extra])
    assert rc == 0
    return [w["message"] for w in json.loads(buf.getvalue())["warnings"] if "empty text" in w["message"]]


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_the_command_line_says_it_once_for_the_columns_it_uses(tmp_path, on):
    p = tmp_path / "office.csv"
    p.write_text(_CSV, encoding="utf-8")
    said = _cli(p, on)
    assert len(said) == 1 and said[0].startswith("column 'k' of DATA has 2 empty text field(s); ")
    assert _cli(p, on, "--na", "", "--na", "NA") == []


# a header naming a column more than once, where R's read.csv (make.unique) names a later copy otherwise
# than 'name.1'
_HEADERS = {"a,a,a.1": ["a.2"], "a,a,a": ["a.1", "a.2"], "a,b,a,a.1,b,a": ["a.2", "b.1", "a.3"],
            "a.1,a,a": ["a.2"]}


@pytest.mark.parametrize("on", ENGINES, indirect=True)
@pytest.mark.parametrize("header", list(_HEADERS))
def test_a_repeated_name_warning_names_the_names_given(tmp_path, header, on):
    p = tmp_path / "dup.csv"
    n = header.count(",") + 1
    p.write_text(header + "\n" + ",".join(str(i) for i in range(n)) + "\n", encoding="utf-8")
    names, said = _said(p, on)
    later = _HEADERS[header]
    assert len(said) == 1
    assert f"the later columns are read as {', '.join(map(repr, later))} (as R's read.csv" in said[0]
    assert said == _said(p, "pandas")[1]


@pytest.mark.rscript(sdcmicro=False)
@pytest.mark.parametrize("header", list(_HEADERS))
def test_live_the_names_said_are_read_csvs(tmp_path, header):
    p = tmp_path / "dup.csv"
    n = header.count(",") + 1
    p.write_text(header + "\n" + ",".join(str(i) for i in range(n)) + "\n", encoding="utf-8")
    res = subprocess.run(["Rscript", "-e", "cat(names(read.csv(commandArgs(TRUE)[1])), sep = '\\n')", str(p)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    r_names = res.stdout.split()
    raw = header.split(",")
    later = [r for i, r in enumerate(r_names) if raw[i] in raw[:i]]  # R's names of the later copies
    assert later == _HEADERS[header]
    names, said = _said(p, "pandas")
    assert names == r_names
    assert f"read as {', '.join(map(repr, later))} (as R's" in said[0]


@pytest.mark.parametrize("on", ENGINES[1:], indirect=True)
def test_the_engines_refuse_names_that_differ_only_in_case_alike(tmp_path, on):
    # an office file with 'id' and 'ID': DuckDB's and Spark's names are not case-sensitive (on DuckDB a query of
    # "ID" took the column 'id'); DuckDB failed with its binder error about struct_pack, Spark with
    # COLUMN_ALREADY_EXISTS; now one clear refusal naming the columns
    from pysdc import InvalidParameterError

    p = tmp_path / "case.csv"
    p.write_text("id,ID,w\n1,x,2\n3,y,4\n", encoding="utf-8")
    assert list(read_table(p).columns) == ["id", "ID", "w"]
    with pytest.raises(InvalidParameterError, match=r"differ only in case \('id', 'ID'\).*--engine pandas"):
        scan(str(p), engine=on).table()
