"""Schema sidecars (``<stem>.schema.json``) never change values silently (issue 23, item 4).

A dtype must hold every value of its column (else InvalidParameterError naming the column, the dtype,
the first value that does not fit and its 1-based row); a dtype must be one its r_class allows (listed
in the message); a malformed sidecar gives InvalidParameterError with a clear message, never a raw
traceback. The fast typed path and the plain text path (taken when the fast one cannot parse a
field) give the same refusals.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.io import read_schema, read_table, schema_path, write_table


def _table(tmp_path, df: pd.DataFrame, columns: list[dict] | None = None, raw: bytes | None = None):
    p = tmp_path / "t.csv"
    write_table(df, p)
    if raw is not None:
        schema_path(p).write_bytes(raw)
    elif columns is not None:
        schema_path(p).write_text(json.dumps({"format": "pysdc-table-1", "columns": columns}))
    return p


KEYS = pd.DataFrame({"key": [1, 651, 325, 2], "w": [12.5, 3.0, 1.0, 7.25]})


def _cols(key_dtype="int64", w_dtype="float64", key_class="integer", w_class="numeric"):
    return [{"name": "key", "r_class": key_class, "dtype": key_dtype},
            {"name": "w", "r_class": w_class, "dtype": w_dtype}]


def test_a_valid_sidecar_reads_back_exactly(tmp_path):
    got = read_table(_table(tmp_path, KEYS, _cols()))
    pd.testing.assert_frame_equal(got, KEYS)


@pytest.mark.parametrize("dtype,bad,row", [("int8", "651", 2), ("uint8", "651", 2), ("int16", None, None),
                                           ("Int8", "651", 2)])
def test_an_integer_dtype_must_hold_every_value(tmp_path, dtype, bad, row):
    p = _table(tmp_path, KEYS, _cols(key_dtype=dtype))
    if bad is None:
        assert read_table(p)["key"].tolist() == [1, 651, 325, 2]
        return
    with pytest.raises(pysdc.InvalidParameterError) as exc:
        read_table(p)
    msg = str(exc.value)
    assert "'key'" in msg and repr(dtype) in msg and f"value {bad} (row {row})" in msg
    assert "Allowed dtypes" in msg and "int64" in msg


def test_a_negative_value_does_not_fit_an_unsigned_dtype(tmp_path):
    p = _table(tmp_path, pd.DataFrame({"key": [3, -1]}), [{"name": "key", "r_class": "integer", "dtype": "uint32"}])
    with pytest.raises(pysdc.InvalidParameterError, match=r"value -1 \(row 2\)"):
        read_table(p)


def test_a_value_after_missing_ones_names_its_own_row(tmp_path):
    df = pd.DataFrame({"key": pd.array([None, None, 5, 300], dtype="Int64")})
    p = _table(tmp_path, df, [{"name": "key", "r_class": "integer", "dtype": "Int8"}])
    with pytest.raises(pysdc.InvalidParameterError, match=r"value 300 \(row 4\)"):
        read_table(p)


def test_bool_is_not_a_dtype_of_a_numeric_column(tmp_path):
    p = _table(tmp_path, KEYS, _cols(w_dtype="bool"))
    with pytest.raises(pysdc.InvalidParameterError, match=r"column 'w' \(numeric\) has dtype 'bool'.*float64"):
        read_table(p)


def test_float32_must_hold_the_values_exactly(tmp_path):
    ok = _table(tmp_path, KEYS, _cols(w_dtype="float32"))  # 12.5, 3, 1, 7.25 are float32 numbers
    assert read_table(ok)["w"].dtype == np.float32
    df = pd.DataFrame({"w": [0.5, 0.1]})
    p = _table(tmp_path, df, [{"name": "w", "r_class": "numeric", "dtype": "float32"}])
    with pytest.raises(pysdc.InvalidParameterError, match=r"'float32' cannot hold the value 0.1 \(row 2\)"):
        read_table(p)


def test_an_integer_dtype_on_a_numeric_column_must_hold_whole_numbers(tmp_path):
    p = _table(tmp_path, KEYS, [{"name": "key", "r_class": "numeric", "dtype": "int8"},
                                {"name": "w", "r_class": "numeric"}])
    with pytest.raises(pysdc.InvalidParameterError, match="651"):
        read_table(p)


def test_levels_dtype_must_hold_the_levels(tmp_path):
    df = pd.DataFrame({"k": pd.Categorical(["1", "651"])})
    p = _table(tmp_path, df, [{"name": "k", "r_class": "factor", "dtype": "category", "levels": ["1", "651"],
                               "levels_dtype": "int8"}])
    with pytest.raises(pysdc.InvalidParameterError, match="651"):
        read_table(p)


def test_the_fast_and_the_text_path_refuse_alike(tmp_path):
    """A blank-with-spaces field sends the file through the text route: the same refusal."""
    p = tmp_path / "t.csv"
    write_table(KEYS, p)
    schema_path(p).write_text(json.dumps({"format": "pysdc-table-1", "columns": _cols(key_dtype="int8")}))
    p.write_text("key,w\n1,12.5\n651,3\n325, \n2,7.25\n")
    with pytest.raises(pysdc.InvalidParameterError, match=r"'int8' cannot hold the value 651 \(row 2\)"):
        read_table(p)


# ----------------------------------------------------------------------------- malformed sidecars

MALFORMED = {
    "unknown dtype": (json.dumps({"format": "pysdc-table-1", "columns": _cols(key_dtype="int128")}).encode(),
                      r"dtype 'int128'.*int64"),
    "dtype not a string": (json.dumps({"format": "pysdc-table-1", "columns": _cols(key_dtype=["int64"])}).encode(),
                           r"dtype \['int64'\]"),
    "duplicate levels": (json.dumps({"format": "pysdc-table-1", "columns": [
        {"name": "key", "r_class": "factor", "levels": ["1", "651", "1", "325", "2"]},
        {"name": "w", "r_class": "numeric"}]}).encode(), r"list '1' more than once"),
    "a level that is a list": (json.dumps({"format": "pysdc-table-1", "columns": [
        {"name": "key", "r_class": "factor", "levels": [["1"]]}, {"name": "w", "r_class": "numeric"}]}).encode(),
        "must be strings"),
    "deep nesting": (b'{"format": "pysdc-table-1", "columns": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
                     "nested too deeply"),
    "not UTF-8": (b'{"format": "pysdc-table-1", "columns": [{"name": "k\xe9y", "r_class": "integer"}]}',
                  r"not UTF-8 text \(byte 0xe9"),
    "NaN literal": (b'{"format": "pysdc-table-1", "columns": [{"name": "key", "r_class": "integer", "x": NaN}]}',
                    "literal NaN"),
    "Infinity literal": (b'{"format": "pysdc-table-1", "columns": [{"name": "key", "r_class": "integer", '
                         b'"x": -Infinity}]}', "literal -Infinity"),
    "a 5,000-digit number": (b'{"format": "pysdc-table-1", "columns": [{"name": "key", "r_class": "integer", "x": '
                             + b"7" * 5000 + b"}]}", "cannot be read"),
    "a list at the top": (b'[{"name": "key", "r_class": "integer"}]', "must be a JSON object.*got list"),
    "a number at the top": (b"42", "must be a JSON object.*got int"),
    "columns not a list": (b'{"format": "pysdc-table-1", "columns": {"key": "integer"}}', "without a columns list"),
    "r_class a list": (b'{"format": "pysdc-table-1", "columns": [{"name": "key", "r_class": ["integer"]}]}',
                       r"r_class \['integer'\]"),
    "format not a string": (b'{"format": {"a": 1}, "columns": []}', "has format"),
    "not JSON": (b'{"format": "pysdc-table-1", "columns": [', "not valid JSON"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_sidecar_is_refused_clearly(tmp_path, case):
    raw, pattern = MALFORMED[case]
    p = _table(tmp_path, KEYS, raw=raw)
    with pytest.raises(pysdc.InvalidParameterError, match=pattern):
        read_table(p)


def test_the_command_line_reports_a_bad_sidecar_as_an_error(tmp_path, capsys):
    from pysdc.cli import main

    p = _table(tmp_path, KEYS, _cols(key_dtype="int8"))
    rc = main(["risk", str(p), "--keys", "key", "--engine", "pandas", "--no-suda"])
    err = capsys.readouterr().err
    assert rc == 2 and "pysdc: error:" in err and "int8" in err and "Traceback" not in err


def test_read_schema_checks_a_dict_too():
    with pytest.raises(pysdc.InvalidParameterError, match="dtype 'bool'"):
        read_schema({"format": "pysdc-table-1", "columns": [{"name": "w", "r_class": "numeric", "dtype": "bool"}]})


def test_every_dtype_write_table_writes_is_allowed(tmp_path):
    """The sidecars pysdc writes are read back (dtypes, levels) without a refusal."""
    df = pd.DataFrame({
        "f64": [1.5, np.nan], "f32": np.array([1.5, 2.0], dtype=np.float32), "F64": pd.array([1.5, None], "Float64"),
        "i64": [1, 2], "i8": np.array([1, -2], dtype=np.int8), "I64": pd.array([1, None], "Int64"),
        "u16": np.array([1, 2], dtype=np.uint16), "b": [True, False], "B": pd.array([True, None], "boolean"),
        "o": ["a", None], "s": pd.array(["a", None], dtype="string"),
        "c": pd.Categorical(["x", None]), "ci": pd.Categorical([3, 1]), "o2": pd.Categorical(["lo", "hi"],
                                                                                             ["lo", "hi"], ordered=True)})
    p = tmp_path / "all.csv"
    write_table(df, p)
    got = read_table(p)
    for c in df.columns:
        assert str(got[c].dtype) == str(df[c].dtype) or c in ("o",), c


# ----------------------------------------------------------------------------- the same sidecar on DuckDB


@pytest.fixture
def duck():  # the tests that use it carry pytest.mark.duckdb
    import duckdb

    return duckdb


@pytest.mark.duckdb
def test_duckdb_reads_a_sidecar_as_pandas(tmp_path, duck):
    df = pd.DataFrame({"id": ["007", "8", "9"], "k": pd.Categorical(["1", "01", "1"]), "n": [1, 2, 3],
                       "v": [1.5, np.nan, 2.0], "b": [True, False, True]})
    p = _table(tmp_path, df)
    ref = read_table(p)
    got = pysdc.scan(p).relation().df()
    assert got["id"].tolist() == ["007", "8", "9"] and got["k"].tolist() == ["1", "01", "1"]
    assert got["n"].tolist() == [1, 2, 3] and got["b"].tolist() == [True, False, True]
    np.testing.assert_array_equal(got["v"].to_numpy(float), ref["v"].to_numpy(float))


@pytest.mark.parametrize("columns,pattern", [
    (_cols(key_dtype="int8"), r"'int8' cannot hold the value 651"),
    ([{"name": "key", "r_class": "factor", "levels": ["1", "651", "325"]}, {"name": "w", "r_class": "numeric"}],
     r"'2'.* not among its levels"),
    ([{"name": "key", "r_class": "logical"}, {"name": "w", "r_class": "numeric"}], "column 'key' of .* should"),
    (_cols(w_dtype="bool"), "has dtype 'bool'"),
])
@pytest.mark.duckdb
def test_duckdb_refuses_what_pandas_refuses(tmp_path, duck, columns, pattern):
    p = _table(tmp_path, KEYS, columns)
    with pytest.raises(pysdc.InvalidParameterError, match=pattern):
        read_table(p)
    with pytest.raises(pysdc.InvalidParameterError, match=pattern):
        pysdc.scan(p).columns


@pytest.mark.duckdb
def test_duckdb_refuses_an_inexact_float32(tmp_path, duck):
    p = _table(tmp_path, pd.DataFrame({"w": [0.5, 0.1]}), [{"name": "w", "r_class": "numeric", "dtype": "float32"}])
    with pytest.raises(pysdc.InvalidParameterError, match="float32"):
        pysdc.scan(p).columns
    ok = _table(tmp_path, KEYS, _cols(w_dtype="float32"))
    assert pysdc.scan(ok).relation().df()["w"].tolist() == [12.5, 3.0, 1.0, 7.25]
