"""One reading of a CSV file whatever the engine and the layout (issue 23, items 3 and 6).

The same CSV -- "NA" and a custom NA (-99), leading zeros, a 2,5 far after DuckDB's sniffing sample,
quoted fields holding the separator, latin-1 text, ';' separated with decimal commas, blank fields --
is read as one file and as a directory of parts, by pandas, DuckDB and Spark, with every reading
option (--na, --sep, --decimal, --encoding): the typed columns and `pysdc risk --json`'s numbers are
the pandas path's (which follows R's read.csv). Malformed CSV (a record with an extra field, a NUL
byte) is refused by every path, the fast typed one (with a schema) and the plain one alike.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _engine_data import cli_json

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.io import read_table, write_table

from _live import optional

duckdb = optional("duckdb")
pytestmark = pytest.mark.duckdb  # duckdb and pyarrow: skipped with the reason by tests/conftest.py

N = 24_000
NA = ("NA", "-99")
READING = {"na_values": NA, "sep": ";", "decimal": ",", "encoding": "latin-1"}
CLI_READING = ["--na", "NA", "--na", "-99", "--sep", ";", "--decimal", ",", "--encoding", "latin-1"]
KEYS = ["région", "code", "grp", "size"]


def _table() -> pd.DataFrame:
    """The fields as text, exactly as they are written."""
    rng = np.random.default_rng(23)
    region = rng.choice(["Île", "Nord;Est", "Sud", "NA", ""], N).astype(object)  # "Nord;Est" is quoted
    code = rng.choice(["01", "1", "2", "02", "-99", "3"], N).astype(object)  # 01 is 1, as in R's read.csv
    grp = rng.choice(["x", "y", "NA", ""], N).astype(object)  # a text key with blank fields (the category "")
    size = rng.integers(1, 4, N).astype(str).astype(object)
    size[22_000] = "2,5"  # far after any sniffing sample: the column is double
    size[rng.random(N) < 0.02] = ""  # blank: missing in a number column
    w = np.char.replace(np.round(rng.uniform(1, 60, N), 3).astype(str), ".", ",").astype(object)
    return pd.DataFrame({"région": region, "code": code, "grp": grp, "size": size, "w": w})


def _write(df: pd.DataFrame, path: Path) -> None:
    df.to_csv(path, sep=";", index=False, encoding="latin-1", lineterminator="\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("one_reader")
    df = _table()
    _write(df, d / "all.csv")
    (d / "parts").mkdir()
    for i, (lo, hi) in enumerate([(0, 9000), (9000, 17000), (17000, N)]):  # "2,5" only in the last part
        _write(df.iloc[lo:hi], d / "parts" / f"p{i}.csv")
    return d


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _classes(df: pd.DataFrame) -> dict:
    from pysdc._types import r_class

    return {c: r_class(df[c]) for c in df.columns}


def _same_frame(ref: pd.DataFrame, got: pd.DataFrame):
    assert list(got.columns) == list(ref.columns)
    for c in ref.columns:
        a, b = ref[c], got[c]
        if pd.api.types.is_numeric_dtype(a.dtype) and not pd.api.types.is_bool_dtype(a.dtype):
            np.testing.assert_array_equal(b.to_numpy(dtype=float, na_value=np.nan), a.to_numpy(dtype=float,
                                          na_value=np.nan), err_msg=c)
        else:
            assert a.astype(object).where(a.notna(), None).tolist() == b.astype(object).where(b.notna(), None).tolist(), c


def test_the_pandas_path_reads_the_file_as_r_does(files):
    """The reference itself: 01 and 1 are the number 1, NA and -99 missing, 2,5 makes the column double,
    'Nord;Est' one field, blank text the category ""."""
    df = _quiet(read_table, files / "all.csv", **READING)
    assert _classes(df) == {"région": "character", "code": "integer", "grp": "character", "size": "numeric",
                            "w": "numeric"}
    assert set(df["région"].dropna()) == {"Île", "Nord;Est", "Sud", ""}
    assert set(df["code"].dropna()) == {1, 2, 3}
    assert df["size"][22_000] == 2.5 and df["size"].isna().sum() > 0
    raw = _table()
    assert df["code"].isna().sum() == (raw["code"] == "-99").sum()


@pytest.mark.parametrize("layout", ["all.csv", "parts"])
def test_duckdb_reads_the_same_frame(files, layout):
    ref = _quiet(read_table, files / "all.csv", **READING)
    s = pysdc.scan(files / layout, **READING)
    got = s.relation().df()
    assert {c: s.table().rclass(c) for c in got.columns} == _classes(ref)
    _same_frame(ref, got)


def _numbers(report: dict) -> dict:
    viol = report["k_anonymity"]["violations"]
    return {"n": report["data"]["n_records"], "er": report["global"]["expected_reidentifications"],
            "risk": report["global"]["global_risk"],
            "fk": [(r["k"], r["unweighted"], r["weighted"]) for r in viol]}


def _same_numbers(ref: dict, got: dict):
    assert got["n"] == ref["n"]
    assert got["fk"] == ref["fk"]
    for k in ("er", "risk"):
        np.testing.assert_allclose(got[k], ref[k], rtol=ENGINE_SUMS.rtol, atol=ENGINE_SUMS.atol)


def _risk(path, engine: str) -> dict:
    return _numbers(cli_json(["risk", str(path), "--keys", ",".join(KEYS), "--weight", "w", "--engine", engine,
                              "--no-suda", *CLI_READING]))


@pytest.fixture(scope="module")
def pandas_numbers(files):
    return _risk(files / "all.csv", "pandas")


@pytest.mark.parametrize("layout,engine", [("all.csv", "duckdb"), ("parts", "duckdb"), ("parts", "auto")])
def test_cli_risk_duckdb_equals_pandas(files, pandas_numbers, layout, engine):
    _same_numbers(pandas_numbers, _risk(files / layout, engine))


def test_cli_risk_duckdb_reads_na_without_options(tmp_path):
    """The issue's first case: "NA" is missing (not a category) in a file and in a directory alike."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.choice(["1", "2", "NA"], 3000), "b": rng.choice(["x", "y"], 3000),
                       "w": rng.uniform(1, 9, 3000).round(2)})
    df.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "dir").mkdir()
    df.iloc[:1000].to_csv(tmp_path / "dir" / "a.csv", index=False)
    df.iloc[1000:].to_csv(tmp_path / "dir" / "b.csv", index=False)
    ref = _numbers(cli_json(["risk", str(tmp_path / "d.csv"), "--keys", "a,b", "--weight", "w", "--engine", "pandas",
                             "--no-suda"]))
    for p in (tmp_path / "d.csv", tmp_path / "dir"):
        _same_numbers(ref, _numbers(cli_json(["risk", str(p), "--keys", "a,b", "--weight", "w", "--no-suda"])))


def test_types_are_decided_over_all_files(tmp_path):
    """A column that is whole in one part and has 1.5 in another is double in every part (pandas reads the
    concatenation); a text value in the last part makes the column text everywhere."""
    (tmp_path / "d").mkdir()
    pd.DataFrame({"a": ["01", "2"], "b": ["1", "2"]}).to_csv(tmp_path / "d" / "a.csv", index=False)
    pd.DataFrame({"a": ["1.5", "3"], "b": ["x", "2"]}).to_csv(tmp_path / "d" / "b.csv", index=False)
    got = pysdc.scan(tmp_path / "d").relation().df()
    assert got["a"].tolist() == [1.0, 2.0, 1.5, 3.0]
    assert got["b"].tolist() == ["1", "2", "x", "2"]


def test_duckdb_refuses_an_encoding_it_cannot_read(files):
    with pytest.raises(pysdc.InvalidParameterError, match="cp1252"):
        pysdc.scan(files / "all.csv", **{**READING, "encoding": "cp1252"}).columns


def test_duckdb_refuses_bytes_that_are_not_the_encoding(files):
    with pytest.raises(pysdc.InvalidParameterError, match="encoding"):
        pysdc.scan(files / "all.csv", sep=";", decimal=",").columns  # latin-1 read as UTF-8


def test_headers_of_parts_must_agree(tmp_path):
    (tmp_path / "d").mkdir()
    pd.DataFrame({"a": [1], "b": [2]}).to_csv(tmp_path / "d" / "a.csv", index=False)
    pd.DataFrame({"b": [1], "a": [2]}).to_csv(tmp_path / "d" / "b.csv", index=False)
    with pytest.raises(pysdc.InvalidParameterError, match="same columns"):
        pysdc.scan(tmp_path / "d")


def test_text_columns_and_schema_on_duckdb(tmp_path):
    df = pd.DataFrame({"id": ["007", "8"], "k": pd.Categorical(["1", "01"]), "v": [1.5, 2.0]})
    write_table(df, tmp_path / "t.csv")
    ref = read_table(tmp_path / "t.csv")
    got = pysdc.scan(tmp_path / "t.csv").relation().df()
    assert got["id"].tolist() == ["007", "8"] and got["k"].tolist() == ref["k"].astype(str).tolist()
    plain = tmp_path / "p.csv"
    plain.write_text("id,v\n007,1\n8,2\n")
    assert pysdc.scan(plain, text_columns=["id"]).relation().df()["id"].tolist() == ["007", "8"]
    assert pysdc.scan(plain).relation().df()["id"].tolist() == [7, 8]


def test_duckdb_reads_crlf_quoted_line_breaks_bom_and_short_records_as_pandas(tmp_path):
    cases = {"crlf.csv": b'a,b\r\n1,x\r\n2,y\r\n01,"q\r\nz"\r\n', "bom.csv": b"\xef\xbb\xbfa,b\n1,x\n",
             "short.csv": b'a,b,c\n1,2,3\n8,"9\n9"\n4,5,6\n'}
    for name, raw in cases.items():
        p = tmp_path / name
        p.write_bytes(raw)
        _same_frame(read_table(p), pysdc.scan(p).relation().df())


# ----------------------------------------------------------------------------- malformed CSV

RAGGED = "a,b,c\n1,2,3\n4,5,6,7\n8,9,10\n"


@pytest.mark.parametrize("usecols", [None, ["a", "b"]])
@pytest.mark.parametrize("with_schema", [False, True])
def test_a_record_with_an_extra_field_is_refused(tmp_path, usecols, with_schema):
    p = tmp_path / "r.csv"
    if with_schema:  # the fast typed path
        write_table(pd.DataFrame({"a": [1, 4, 8], "b": [2, 5, 9], "c": [3, 6, 10]}), p)
    p.write_text(RAGGED)
    with pytest.raises(pysdc.InvalidParameterError, match=r"line 3 has 4 fields, the header 3"):
        read_table(p, usecols=usecols)


def test_an_extra_empty_field_then_more_is_refused(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("a,b,c\n1,2,3\n4,5,6,,8\n")
    with pytest.raises(pysdc.InvalidParameterError, match=r"line 3 has 5 fields"):
        read_table(p, usecols=["a"])


def test_a_longer_first_record_is_not_made_an_index(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("a,b\n1,2,3\n4,5\n")
    with pytest.raises(pysdc.InvalidParameterError, match=r"line 2 has 3 fields, the header 2"):
        read_table(p)


def test_short_records_are_filled_as_before(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("a,b,c\n1,2,3\n4,5\n")
    df = read_table(p, usecols=["a", "c"])
    assert df["a"].tolist() == [1, 4] and df["c"].isna().tolist() == [False, True]


@pytest.mark.parametrize("usecols", [None, ["a"]])
@pytest.mark.parametrize("with_schema", [False, True])
def test_a_nul_byte_is_refused(tmp_path, usecols, with_schema):
    p = tmp_path / "n.csv"
    if with_schema:
        write_table(pd.DataFrame({"a": pd.Categorical(["1", "3", "1"]), "b": ["x", "y", "z"]}), p)
    p.write_bytes(b"a,b\n1\x002,x\n3,y\n1,z\n")
    with pytest.raises(pysdc.InvalidParameterError, match=r"NUL character .* column 'a', record 1 \(line 2\)"):
        read_table(p, usecols=usecols)


def test_a_nul_byte_in_a_number_column_is_refused(tmp_path):
    p = tmp_path / "n.csv"
    write_table(pd.DataFrame({"a": [1.5, 3.0], "b": ["x", "y"]}), p)
    p.write_bytes(b"a,b\n1.5,x\n3\x00,y\n")
    with pytest.raises(pysdc.InvalidParameterError, match="NUL"):
        read_table(p)


def test_duckdb_refuses_ragged_records_and_nul_bytes(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text(RAGGED)
    with pytest.raises(pysdc.InvalidParameterError, match="more fields than the header"):
        pysdc.scan(p).columns
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.csv").write_text("a,b,c\n1,2,3\n")
    (tmp_path / "d" / "b.csv").write_text(RAGGED)
    with pytest.raises(pysdc.InvalidParameterError, match=r"b\.csv: .*Line: 3.*Expected Number of Columns: 3 Found: 4"):
        pysdc.scan(tmp_path / "d").columns
    q = tmp_path / "n.csv"
    q.write_bytes(b"a,b\n1\x002,x\n3,y\n1,z\n")
    with pytest.raises(pysdc.InvalidParameterError, match="NUL"):
        pysdc.scan(q).columns


# ----------------------------------------------------------------------------- Spark


@pytest.mark.parametrize("layout", ["all.csv", "parts"])
@pytest.mark.spark
def test_spark_reads_the_same_frame_and_numbers(files, spark, pandas_numbers, layout):
    ref = _quiet(read_table, files / "all.csv", **READING)
    s = pysdc.scan(files / layout, engine="spark", spark=spark, **READING)
    assert {c: s.table().rclass(c) for c in s.columns} == _classes(ref)
    got = s.relation().toPandas()
    _same_frame(ref, got) if layout == "all.csv" else _same_frame(
        ref.sort_values(list(ref.columns), ignore_index=True, na_position="first", key=lambda c: c.astype(str)),
        got.sort_values(list(got.columns), ignore_index=True, na_position="first", key=lambda c: c.astype(str)))
    _same_numbers(pandas_numbers, _risk(files / layout, "spark"))


@pytest.mark.spark
def test_spark_refuses_ragged_records_and_nul_bytes_and_pads_short_ones(tmp_path, spark):
    for i, text in enumerate((RAGGED, "a,b,c\n1,2,3\n4,5,,,8\n", 'a,b\n"x,y",2\n3,4,\n')):
        p = tmp_path / f"r{i}.csv"
        p.write_text(text)
        with pytest.raises(pysdc.InvalidParameterError, match="fields"):
            pysdc.scan(p, engine="spark", spark=spark).columns
    q = tmp_path / "n.csv"
    q.write_bytes(b"a,b\n1\x002,x\n3,y\n1,z\n")
    with pytest.raises(pysdc.InvalidParameterError, match="NUL"):
        pysdc.scan(q, engine="spark", spark=spark).columns
    short = tmp_path / "s.csv"
    short.write_text('a,b,c\n1,2,3\n"4,x",5\n6,,\n')
    got = pysdc.scan(short, engine="spark", spark=spark).relation().toPandas()
    ref = read_table(short)
    assert got["a"].tolist() == ref["a"].tolist() == ["1", "4,x", "6"]
    assert got["c"].isna().tolist() == ref["c"].isna().tolist() == [False, True, True]


# ----------------------------------------------------------------------------- Stata / SPSS missing-value labels

_LABELLED_R = r"""
suppressMessages({library(haven); library(sdcMicro); library(jsonlite)})
out <- commandArgs(TRUE)[1]
x <- labelled(c(1, 2, tagged_na("a"), 3, tagged_na("b"), NA, 1),
              c(low = 1, high = 2, refused = tagged_na("a")), label = "x")
d <- data.frame(x = x, y = c(1.5, 2, 3, 4, 5, 6, 7))
attr(d$y, "label") <- "y"
write_dta(d, file.path(out, "tagged.dta"))
s <- labelled_spss(c(1, 2, 9, 3, 8, NA, 1), c(low = 1, high = 2, refused = 9, dk = 8), na_values = c(8, 9))
write_sav(data.frame(s = s, y = 1:7), file.path(out, "user_na.sav"))
r1 <- readMicrodata(file.path(out, "tagged.dta"), type = "stata", convertCharToFac = FALSE, drop_all_missings = FALSE)
r2 <- readMicrodata(file.path(out, "user_na.sav"), type = "spss", convertCharToFac = FALSE, drop_all_missings = FALSE)
h1 <- as_factor(read_dta(file.path(out, "tagged.dta"))$x, levels = "default")
cat(toJSON(list(
  stata = list(values = as.character(r1$x), levels = levels(r1$x)),
  spss = list(values = as.character(r2$s), levels = levels(r2$s)),
  haven_stata = list(values = as.character(h1), levels = levels(h1))), null = "null", na = "null"))
"""


@pytest.mark.live
@pytest.mark.rscript("haven", "jsonlite")
def test_live_labelled_missing_values_as_sdcmicro_reads_them(tmp_path):
    """A labelled Stata extended missing value (.a) and SPSS user-missing values are missing, their labels
    levels, as sdcMicro's readMicrodata makes them. (haven::as_factor alone would make .a the level
    "refused"; readMicrodata sets every NA, tagged ones included, to a plain NA before it calls as_factor.)"""
    import json
    import subprocess

    pytest.importorskip("pyreadstat", reason="SPSS files need pyreadstat")
    script = tmp_path / "make.R"
    script.write_text(_LABELLED_R)
    run = subprocess.run(["Rscript", str(script), str(tmp_path)], capture_output=True, text=True, check=True)
    want = json.loads(run.stdout)
    assert want["haven_stata"]["values"][2] == "refused"  # the difference the issue saw
    for name, col in (("tagged.dta", "x"), ("user_na.sav", "s")):
        got = read_table(tmp_path / name)[col]
        ref = want["stata" if name.endswith(".dta") else "spss"]
        assert list(got.cat.categories) == ref["levels"], name
        assert got.astype(object).where(got.notna(), None).tolist() == ref["values"], name


# ----------------------------------------------------------------------------- many small files, every token

TOKENS = ["1", "01", " 2 ", "+3", "-0", "2147483648", "12345678901234567890", "1.5", "1,5", ".5", "5.", "1e3",
          "-1E-2", "inf", "-Infinity", "nan", "NaN", "TRUE", "F", "true", "yes", "", " ", "NA", "-99", "x", "0x10",
          "1_000", "١٢", "\t7\t", '"q;u"', "NA ", "T"]


@pytest.mark.parametrize("decimal", [".", ","])
def test_duckdb_types_every_token_mix_as_pandas(tmp_path, decimal):
    """Columns drawn from small pools of awkward tokens (each pool a column): DuckDB's typing and values
    equal the pandas path's, for both decimal marks."""
    rng = np.random.default_rng(11 if decimal == "." else 12)
    cols = {}
    for j in range(60):
        pool = rng.choice(TOKENS, size=rng.integers(1, 4), replace=False)
        cols[f"c{j}"] = rng.choice(pool, 40)
    lines = [";".join(cols)] + [";".join(cols[c][i] for c in cols) for i in range(40)]
    p = tmp_path / "t.csv"
    p.write_text("\n".join(lines) + "\n")
    opts = {"sep": ";", "decimal": decimal, "na_values": ("NA", "-99")}
    ref = _quiet(read_table, p, **opts)
    s = _quiet(pysdc.scan, p, **opts)
    got = s.relation().df()
    assert {c: s.table().rclass(c) for c in got.columns} == _classes(ref)
    _same_frame(ref, got)


@pytest.mark.parametrize("decimal", [".", ","])
@pytest.mark.spark
def test_spark_types_every_token_mix_as_pandas(tmp_path, spark, decimal):
    rng = np.random.default_rng(21 if decimal == "." else 22)
    cols = {}
    for j in range(60):
        pool = rng.choice(TOKENS, size=rng.integers(1, 4), replace=False)
        cols[f"c{j}"] = rng.choice(pool, 40)
    lines = [";".join(cols)] + [";".join(cols[c][i] for c in cols) for i in range(40)]
    p = tmp_path / "t.csv"
    p.write_text("\n".join(lines) + "\n")
    opts = {"sep": ";", "decimal": decimal, "na_values": ("NA", "-99")}
    ref = _quiet(read_table, p, **opts)
    s = _quiet(pysdc.scan, p, engine="spark", spark=spark, **opts)
    got = s.relation().toPandas()
    assert {c: s.table().rclass(c) for c in got.columns} == _classes(ref)
    _same_frame(ref, got)
