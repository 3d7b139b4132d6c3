"""pysdc's typed-table format (CSV + JSON schema sidecar): round trips, refusals, R readability."""

from __future__ import annotations

import gzip
import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysdc import InvalidParameterError
from pysdc.io import SCHEMA_FORMAT, read_schema, read_table, schema_path, table_schema, write_table

# --------------------------------------------------------------------------- every dtype, every missing kind

COLUMNS = {
    "float64": pd.Series([0.1, np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308, 1 / 3]),
    "float64_none": pd.Series([1.5, None, 2.5, None, 0.0, -1.0, 1e-300, 123456789.123456789]),
    "float32": pd.Series(np.array([0.1, 2, np.nan, 4, 5, 6, 7, 8], dtype="float32")),
    "int64": pd.Series(np.array([0, -1, 2**31 - 1, -(2**31) + 1, 7, 8, 9, 10], dtype="int64")),
    "int64_big": pd.Series(np.array([2**62 + 1, -(2**62), 0, 1, 2, 3, 4, 5], dtype="int64")),
    "Int64": pd.Series(pd.array([1, None, 3, pd.NA, 5, 6, np.nan, 8], dtype="Int64")),
    "bool": pd.Series([True, False] * 4, dtype=bool),
    "boolean": pd.Series(pd.array([True, None, False, pd.NA, True, False, True, None], dtype="boolean")),
    "object": pd.Series(["a", None, "", "x,y", 'q"uote', "new\nline", " lead", "é€"], dtype=object),
    "string": pd.Series(pd.array(["a", None, "", pd.NA, "b", "NA ", "na", "c"], dtype="string")),
    "category": pd.Series(pd.Categorical(["x", None, "y", "x", np.nan, "z", "z", "x"])),
    "ordered": pd.Series(pd.Categorical(["lo", "hi", None, "mid", "lo", np.nan, "hi", "lo"],
                                        categories=["lo", "mid", "hi"], ordered=True)),
    "unused_levels": pd.Series(pd.Categorical(["b", "b", None, "b", "b", "b", "b", "b"], categories=["c", "b", "a"])),
    "int_categories": pd.Series(pd.Categorical([3, 1, None, 2, 3, 1, 1, 2], categories=[1, 2, 3], ordered=True)),
}


def _str_column():
    # pandas >= 3: the default string dtype "str" (NaN as missing value)
    s = pd.Series(["a", None, "b", "c", "", "d", "e", "f"])
    return s


@pytest.mark.parametrize("name", list(COLUMNS))
@pytest.mark.parametrize("ext", [".csv", ".csv.gz"])
def test_round_trip_each_dtype(tmp_path, name, ext):
    df = pd.DataFrame({name: COLUMNS[name]})
    path = write_table(df, tmp_path / f"t{ext}")
    back = read_table(path)
    pd.testing.assert_frame_equal(back, df)
    if name.startswith("float"):
        # bit-exact, the sign of zero included
        a = df[name].to_numpy()
        b = back[name].to_numpy()
        assert np.array_equal(a.view(np.int32 if a.dtype == np.float32 else np.int64)[~np.isnan(a)],
                              b.view(np.int32 if b.dtype == np.float32 else np.int64)[~np.isnan(b)])


def test_round_trip_all_columns_together(tmp_path):
    df = pd.DataFrame(COLUMNS)
    df["str_default"] = _str_column()
    path = write_table(df, tmp_path / "all.csv.gz")
    assert schema_path(path) == tmp_path / "all.schema.json"
    back = read_table(path)
    pd.testing.assert_frame_equal(back, df)
    # missing values in object columns come back as None
    assert back["object"][1] is None


def test_missing_values_written_as_NA(tmp_path):
    df = pd.DataFrame({"f": [np.nan], "i": pd.array([None], dtype="Int64"), "s": pd.Series([None], dtype=object),
                       "c": pd.Categorical([None], categories=["a"])})
    path = write_table(df, tmp_path / "na.csv")
    assert path.read_text(encoding="utf-8") == "f,i,s,c\nNA,NA,NA,NA\n"


def test_schema_content(tmp_path):
    df = pd.DataFrame({"x": [1.0], "k": pd.Categorical(["b"], categories=["b", "a"], ordered=True),
                       "n": pd.array([None], dtype="Int64")})
    write_table(df, tmp_path / "s.csv")
    sch = json.loads((tmp_path / "s.schema.json").read_text(encoding="utf-8"))
    assert sch["format"] == SCHEMA_FORMAT
    assert [(c["name"], c["r_class"]) for c in sch["columns"]] == [("x", "numeric"), ("k", "ordered"), ("n", "integer")]
    assert sch["columns"][1]["levels"] == ["b", "a"]


def test_writing_is_deterministic(tmp_path):
    df = pd.DataFrame(COLUMNS)
    a = write_table(df, tmp_path / "a.csv.gz").read_bytes()
    b = write_table(df, tmp_path / "b.csv.gz").read_bytes()
    assert a == b
    assert a[4:8] == b"\x00\x00\x00\x00"  # gzip MTIME field is zero
    assert gzip.decompress(a) == write_table(df, tmp_path / "c.csv").read_bytes()


def test_schema_without_pandas_dtypes_gives_plain_dtypes(tmp_path):
    (tmp_path / "p.csv").write_text("a,b,c,d,e\n1,NA,TRUE,x,lo\n2,3,NA,NA,hi\n", encoding="utf-8")
    schema = {"format": SCHEMA_FORMAT, "columns": [
        {"name": "a", "r_class": "integer"}, {"name": "b", "r_class": "integer"},
        {"name": "c", "r_class": "logical"}, {"name": "d", "r_class": "character"},
        {"name": "e", "r_class": "ordered", "levels": ["lo", "hi"]}]}
    df = read_table(tmp_path / "p.csv", schema=schema)
    assert df["a"].dtype == np.int64
    assert df["b"].dtype == "Int64" and df["b"].isna().tolist() == [True, False]
    assert df["c"].dtype == "boolean" and df["c"].isna().tolist() == [False, True]
    assert df["d"].tolist() == ["x", None]
    assert df["e"].cat.ordered and list(df["e"].cat.categories) == ["lo", "hi"]


# --------------------------------------------------------------------------- property tests

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=30))
def test_floats_round_trip_bit_exactly(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("f") / "f.csv"
    df = pd.DataFrame({"v": np.array(values, dtype=np.float64)})
    back = read_table(write_table(df, path))["v"].to_numpy()
    a = df["v"].to_numpy()
    assert np.array_equal(np.isnan(a), np.isnan(back))
    ok = ~np.isnan(a)
    assert np.array_equal(a[ok].view(np.int64), back[ok].view(np.int64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), _text.filter(lambda s: s != "NA")), min_size=1, max_size=20))
def test_text_round_trips(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("s") / "s.csv.gz"
    df = pd.DataFrame({"s": pd.Series(values, dtype=object), "k": pd.Series(values, dtype=object)})
    df["k"] = pd.Categorical(df["k"])
    back = read_table(write_table(df, path))
    assert back["s"].tolist() == values
    assert back["k"].astype(object).where(back["k"].notna(), None).tolist() == values
    assert list(back["k"].cat.categories) == list(df["k"].cat.categories)


# --------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("df, words", [
    (pd.DataFrame({"s": pd.Series(["a", "NA"], dtype=object)}), "'NA'"),
    (pd.DataFrame({"s": pd.Series(["a", 1], dtype=object)}), "non-string"),
    (pd.DataFrame({"s": pd.Series(["a\x00b"], dtype=object)}), "NUL"),
    (pd.DataFrame({"s": pd.Series(["a\r\nb"], dtype=object)}), "carriage return"),
    (pd.DataFrame({"k": pd.Categorical(["a\rb"])}), "carriage return"),
    (pd.DataFrame({"d": pd.to_datetime(["2020-01-01"])}), "dates"),
    (pd.DataFrame([[1, 2]], columns=["a", "a"]), "duplicated"),
])
def test_write_refuses_what_cannot_be_stored(tmp_path, df, words):
    with pytest.raises(InvalidParameterError, match=words):
        write_table(df, tmp_path / "x.csv")


def test_read_refuses_mismatched_schema(tmp_path):
    write_table(pd.DataFrame({"a": [1.0], "b": [2.0]}), tmp_path / "m.csv")
    with pytest.raises(InvalidParameterError, match="missing from the file"):
        read_table(tmp_path / "m.csv", schema={"columns": [{"name": "a", "r_class": "numeric"},
                                                           {"name": "c", "r_class": "numeric"}]})
    with pytest.raises(InvalidParameterError, match="r_class"):
        read_schema({"columns": [{"name": "a", "r_class": "double"}]})
    with pytest.raises(InvalidParameterError, match="levels"):
        read_schema({"columns": [{"name": "a", "r_class": "factor"}]})


def test_read_refuses_values_outside_levels_and_bad_numbers(tmp_path):
    (tmp_path / "v.csv").write_text("k,x\nz,1.5\n", encoding="utf-8")
    with pytest.raises(InvalidParameterError, match="not among its levels"):
        read_table(tmp_path / "v.csv", schema={"columns": [{"name": "k", "r_class": "factor", "levels": ["a"]},
                                                           {"name": "x", "r_class": "numeric"}]})
    with pytest.raises(InvalidParameterError, match="whole numbers"):
        read_table(tmp_path / "v.csv", schema={"columns": [{"name": "k", "r_class": "character"},
                                                           {"name": "x", "r_class": "integer"}]})
    with pytest.raises(InvalidParameterError, match="not a number"):
        read_table(tmp_path / "v.csv", schema={"columns": [{"name": "k", "r_class": "numeric"},
                                                           {"name": "x", "r_class": "numeric"}]})


def test_read_refuses_bad_schema_json_and_non_utf8(tmp_path):
    (tmp_path / "b.csv").write_text("a\n1\n", encoding="utf-8")
    (tmp_path / "b.schema.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidParameterError, match="not valid JSON"):
        read_table(tmp_path / "b.csv")
    (tmp_path / "l.csv").write_bytes("a\nK\xf6ln\n".encode("latin-1"))
    with pytest.raises(InvalidParameterError, match="UTF-8"):
        read_table(tmp_path / "l.csv")


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "nope.csv")


# --------------------------------------------------------------------------- CSV without schema: R's read.csv rules

def test_inference_follows_read_csv(tmp_path):
    (tmp_path / "r.csv").write_text(
        "int,int_na,big,dbl,lgl,lgl_na,chr,chr_blank,all_na\n"
        "1,1,3000000000,1.5,TRUE,T,a,x,NA\n"
        "2,NA,1,2,FALSE,NA,NA,,NA\n"
        "-3,,2,Inf,TRUE,F,c,z,NA\n",
        encoding="utf-8",
    )
    df = read_table(tmp_path / "r.csv")
    assert df["int"].dtype == np.int64 and df["int"].tolist() == [1, 2, -3]
    assert df["int_na"].dtype == "Int64" and df["int_na"].isna().tolist() == [False, True, True]  # blank -> NA
    assert df["big"].dtype == np.float64  # beyond R's 32-bit integers: double, as in R
    assert df["dbl"].dtype == np.float64 and df["dbl"].tolist()[2] == np.inf
    assert df["lgl"].dtype == bool
    assert df["lgl_na"].dtype == "boolean" and df["lgl_na"].isna().tolist() == [False, True, False]
    assert df["chr"].tolist() == ["a", None, "c"]
    assert df["chr_blank"].tolist() == ["x", "", "z"]  # blank text stays "" (R does the same)
    assert df["all_na"].isna().all()


def test_na_values_like_na_strings(tmp_path):
    (tmp_path / "n.csv").write_text("c,d\n,-99\nx,1\n", encoding="utf-8")
    df = read_table(tmp_path / "n.csv", na_values=("NA", "", "-99"))
    assert df["c"].tolist() == [None, "x"]
    assert df["d"].isna().tolist() == [True, False]


# --------------------------------------------------------------------------- Parquet

def test_parquet_needs_pyarrow_or_round_trips(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(InvalidParameterError, match=r"pip install pysdc-measures\[parquet\]"):
            read_table(tmp_path / "x.parquet")
        return
    df = pd.DataFrame({"a": [1.5, np.nan], "k": pd.Categorical(["x", None], categories=["y", "x"], ordered=True)})
    df.to_parquet(tmp_path / "x.parquet")
    back = read_table(tmp_path / "x.parquet")
    assert back["k"].cat.ordered and list(back["k"].cat.categories) == ["y", "x"]
    np.testing.assert_array_equal(back["a"].to_numpy(), df["a"].to_numpy())


# --------------------------------------------------------------------------- R reads the same table

_R_READER = r"""
args <- commandArgs(TRUE)
schema <- jsonlite::fromJSON(args[2], simplifyVector = FALSE)
cls <- vapply(schema$columns, function(c) switch(c$r_class, factor = , ordered = "character", c$r_class), "")
d <- read.csv(args[1], na.strings = "NA", colClasses = cls, check.names = FALSE,
              stringsAsFactors = FALSE, encoding = "UTF-8")
for (c in schema$columns) if (c$r_class %in% c("factor", "ordered"))
    d[[c$name]] <- factor(d[[c$name]], levels = unlist(c$levels), ordered = c$r_class == "ordered")
out <- lapply(d, function(v) list(
    class = class(v)[1],
    na = is.na(v),
    levels = if (is.factor(v)) levels(v) else NULL,
    codes = if (is.factor(v)) as.integer(v) else NULL,
    hex = if (is.double(v)) sprintf("%a", v) else NULL,
    value = if (is.factor(v) || is.double(v)) NULL else v))
cat(jsonlite::toJSON(out, null = "null", na = "null", auto_unbox = FALSE, digits = NA))
"""


@pytest.mark.rscript("jsonlite", sdcmicro=False)  # base R reads the table
def test_r_reads_the_table_exactly(tmp_path):
    df = pd.DataFrame({k: COLUMNS[k] for k in ("float64", "Int64", "boolean", "object", "category", "ordered",
                                               "int_categories")})
    path = write_table(df, tmp_path / "r.csv.gz")
    (tmp_path / "reader.R").write_text(_R_READER, encoding="utf-8")
    res = subprocess.run(["Rscript", str(tmp_path / "reader.R"), str(path), str(schema_path(path))],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert [got[c]["class"][0] for c in df.columns] == ["numeric", "integer", "logical", "character", "factor",
                                                        "ordered", "ordered"]
    for c in df.columns:
        assert got[c]["na"] == df[c].isna().tolist(), c
    # doubles: bit for bit (R's %a against Python's float.hex)
    f = df["float64"].to_numpy()
    r_bits = [float.fromhex(h) if h not in ("NA", "Inf", "-Inf") else
              {"NA": np.nan, "Inf": np.inf, "-Inf": -np.inf}[h] for h in got["float64"]["hex"]]
    r_bits = np.array(r_bits)
    ok = ~np.isnan(f)
    assert np.array_equal(f[ok].view(np.int64), r_bits[ok].view(np.int64))
    assert got["Int64"]["value"][0] == 1 and got["Int64"]["value"][2] == 3
    assert got["object"]["value"][:3] == ["a", None, ""] and got["object"]["value"][5] == "new\nline"
    assert got["ordered"]["levels"] == ["lo", "mid", "hi"]
    codes = df["ordered"].cat.codes.to_numpy() + 1
    assert [c for c in got["ordered"]["codes"] if c is not None] == codes[codes > 0].tolist()
    assert got["int_categories"]["levels"] == ["1", "2", "3"]
    assert table_schema(df)["columns"][6]["levels_dtype"] == "int64"
