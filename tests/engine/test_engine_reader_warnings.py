"""A CSV file is read the same way whatever the engine: a header naming a column twice gets R's read.csv names
(the later one ``name.1``) and the same warning on pandas, DuckDB and Spark, ``--keys name`` takes the first
column everywhere; empty text fields of the columns read are said alike (the engines count them in the survey
that types their columns); and the numbers are the same, sdcMicro's on read.csv's data (live)."""

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
from pysdc.io import read_table

# 'rb090' twice (R's read.csv: the second is 'rb090.1'); rb090.1 has two empty fields (records 3 and 5) and one
# of white space only (record 4: a value, not empty, on every path); 'note' has an empty field but is not read
# by `pysdc risk --keys rb090,rb090.1`; 'blank' holds blank fields only (logical, all missing: no warning)
_CSV = ("id,rb090,age,rb090,w,note,blank\n"
        "1,3,34,female,1,a,\n"
        "2,3,39,male,2,,\n"
        "3,4,40,,1,b, \n"
        "4,4,41, ,3,c,\n"
        "5,3,34,,2,d,\n"
        "6,4,40,male,1.5,e,\n")
_NAMES = ["id", "rb090", "age", "rb090.1", "w", "note", "blank"]
_KEYS = "rb090,rb090.1"

ENGINES = ["pandas", pytest.param("duckdb", marks=pytest.mark.duckdb), pytest.param("spark", marks=pytest.mark.spark)]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    p = tmp_path_factory.mktemp("reader") / "dup.csv"
    p.write_text(_CSV, encoding="utf-8")
    return p


@pytest.fixture
def on(request):
    """The engine's name; Spark's session started (tests/conftest.py) before pysdc looks for the active one."""
    if request.param == "spark":
        request.getfixturevalue("spark")
    return request.param


def _read(path, engine):
    """The column names and the PysdcWarnings of reading ``path`` on ``engine`` (and the scan, if any)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if engine == "pandas":
            names, s = list(read_table(path).columns), None
        else:
            s = scan(str(path), engine=engine)
            names = list(s.columns)
    return names, [str(w.message) for w in caught if issubclass(w.category, PysdcWarning)], s


_CLI: dict = {}


def _cli(path, engine) -> dict:
    """``pysdc risk PATH --keys rb090,rb090.1 --weight w --engine ENGINE --json`` (once per engine)."""
    if engine not in _CLI:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rc = main(["risk", str(path), "--keys", _KEYS, "--weight", "w", "--engine", engine, "--quiet", "--json"])
        assert rc == 0
        _CLI[engine] = json.loads(buf.getvalue())
    return _CLI[engine]


def _reading(report: dict) -> list:
    """The report's warnings given while reading the file (an engine's own, e.g. PySpark's, left aside)."""
    return [(w["category"], w["message"]) for w in report["warnings"] if any(p.startswith("reading") for p in w["where"])]


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_a_repeated_name_is_named_as_by_read_csv_and_said_on_every_engine(data, on):
    names, said, _ = _read(data, on)
    said = [m for m in said if "more than once" in m]  # (the empty text fields are said too: below)
    assert names == _NAMES
    assert len(said) == 1
    assert "names 'rb090' more than once" in said[0] and "'rb090.1'" in said[0]
    assert said == [m for m in _read(data, "pandas")[1] if "more than once" in m]  # the same words


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_genuine_dotted_names_are_not_said(tmp_path, on):
    p = tmp_path / "ok.csv"
    p.write_text("id,rb090,rb090.1\n1,3,female\n2,4,male\n", encoding="utf-8")
    names, said, _ = _read(p, on)
    assert names == ["id", "rb090", "rb090.1"]
    assert said == []


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_an_engine_counts_the_empty_text_fields_in_its_typing_survey(data, on):
    if on == "pandas":
        df = read_table(data)
        got = {c: int((df[c] == "").sum()) for c in df.columns if df[c].dtype == object}
        got = {c: n for c, n in got.items() if n}
    else:
        _, _, s = _read(data, on)
        got = s.csv["empty_text"]
    # two empty fields in rb090.1 (the white space one is a value), one in note; 'blank' is logical (missing)
    assert got == {"rb090.1": 2, "note": 1}


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_pysdc_risk_says_the_same_while_reading_on_every_engine(data, on):
    said = _reading(_cli(data, on))
    assert [m[:60] for _, m in said] == [
        "the header of dup.csv names 'rb090' more than once; the late",
        "column 'rb090.1' of DATA has 2 empty text field(s); they are",
    ]
    assert {c for c, _ in said} == {"PysdcWarning"}
    assert said == _reading(_cli(data, "pandas"))


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_pysdc_risk_takes_the_first_column_for_the_name_on_every_engine(data, on):
    got, ref = _cli(data, on), _cli(data, "pandas")
    assert got["key_vars"] == ref["key_vars"] == ["rb090", "rb090.1"]
    assert got["k_anonymity"] == ref["k_anonymity"]  # counts: exact
    for field in ("global_risk", "expected_reidentifications"):
        assert got["global"][field] == pytest.approx(ref["global"][field], rel=1e-12, abs=0)


@pytest.mark.rscript("jsonlite")
@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_live_the_numbers_are_sdcmicros_on_read_csv_data(data, on):
    script = ("suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv(commandArgs(TRUE)[1]); "
              "s <- createSdcObj(d, keyVars = c('rb090', 'rb090.1'), weightVar = 'w'); "
              "cat(toJSON(list(names = names(d), risk = s@risk$global$risk, er = s@risk$global$risk_ER), digits = NA))")
    res = subprocess.run(["Rscript", "-e", script, str(data)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    r = json.loads(res.stdout)
    assert r["names"] == _NAMES
    got = _cli(data, on)["global"]
    assert got["global_risk"] == pytest.approx(r["risk"][0], rel=1e-12, abs=0)
    assert got["expected_reidentifications"] == pytest.approx(r["er"][0], rel=1e-12, abs=0)


@pytest.mark.parametrize("on", ENGINES, indirect=True)
def test_pysdc_utility_says_the_same_while_reading_on_every_engine(data, tmp_path, on):
    # (Spark: a key named 'rb090.1' is selected quoted, not read as a struct's field 'rb090'.'1')
    orig, masked = tmp_path / "orig.csv", tmp_path / "masked.csv"
    orig.write_text(_CSV, encoding="utf-8")
    masked.write_text(_CSV.replace("3,4,40,,1", "3,4,40,female,1"), encoding="utf-8")  # one empty field left
    got = {}
    for engine in dict.fromkeys(["pandas", on]):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rc = main(["utility", str(orig), str(masked), "--keys", "rb090.1", "--numeric", "age", "--engine", engine,
                       "--quiet", "--json"])
        assert rc == 0
        got[engine] = sorted(_reading(json.loads(buf.getvalue())))  # (an engine opens both files first)
    assert [m[:40] for _, m in got[on]] == [
        "column 'rb090.1' of MASKED has 1 empty t", "column 'rb090.1' of ORIGINAL has 2 empty",
        "the header of masked.csv names 'rb090' m", "the header of orig.csv names 'rb090' mor"]
    assert got[on] == got["pandas"]
