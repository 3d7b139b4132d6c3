"""A wide CSV file (thousands of columns, as an office's extract) on the engines: the survey that types the
columns is one query over every column whose expressions are written once, not once per column (a survey with
per-column expressions took DuckDB minutes to plan on 3000 columns: ~30 s and 1.1 GB against ~7 s on pandas for
a 273 MB file), and the types and values stay the pandas path's."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc.engine import _csv
from pysdc.io import read_table

pytestmark = pytest.mark.duckdb

#: the kinds of column an office's extract mixes (R's read.csv types: integer, double, text with empty
#: fields and NA, logical, blank only, codes with a leading zero and white space)
_KINDS = {
    "int": ["1", "22", "-3", "NA", "7"],
    "dbl": ["1.5", "NA", "-2e3", " 4.25 ", "inf"],
    "txt": ["male", "", "NA", "x y", "female"],
    "lgl": ["TRUE", "F", "NA", "", "T"],
    "blank": ["", " ", "", "NA", ""],
    "code": ["01", " 3", "", "10", "02"],
    "trail": ["1", "2 ", "3", "", "4"],  # white space after a whole number: double, as in R
    "big": ["3000000000", "1", "NA", "2", "5"],  # beyond R's integers: double
}


def _wide(path, n_cols: int):
    kinds = list(_KINDS)
    names = [f"v{j}" for j in range(n_cols)]
    rows = [[_KINDS[kinds[j % len(kinds)]][(i + j) % 5] for j in range(n_cols)] for i in range(5)]
    path.write_text(",".join(names) + "\n" + "\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
    return path


class _Recorder:
    """A DuckDB connection that keeps the text of every query it is given."""

    def __init__(self, con):
        self.con, self.queries = con, []

    def sql(self, query):
        self.queries.append(query)
        return self.con.sql(query)


def _opened(path):
    duckdb = pytest.importorskip("duckdb")
    con = _Recorder(duckdb.connect())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = _csv.duckdb_csv(con, [str(path)], _csv.csv_options([str(path)]))
    return rel, con.queries


@pytest.mark.parametrize("n_cols", [8, 240])
def test_the_survey_is_one_query_whose_expressions_do_not_grow_with_the_columns(tmp_path, n_cols):
    _, queries = _opened(_wide(tmp_path / "wide.csv", n_cols))
    survey, typed = queries  # the survey, then the typed relation: two queries whatever the width
    assert "GROUP BY pysdc_j" in survey
    # the per-value tests (blank, whole number, number) once each, not once per column
    assert survey.count("regexp_matches(") == 3
    assert survey.count("count(") == 3
    assert typed.startswith("SELECT ") and survey not in typed


def test_the_survey_gives_one_row_per_column(tmp_path):
    path = _wide(tmp_path / "wide.csv", 240)
    _, queries = _opened(path)
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.connect().sql(queries[0]).fetchall()
    assert sorted(r[0] for r in rows) == list(range(240))


@pytest.mark.parametrize("n_cols", [16, 240])
def test_a_wide_file_gets_the_pandas_paths_types_and_values(tmp_path, n_cols):
    path = _wide(tmp_path / "wide.csv", n_cols)
    rel, _ = _opened(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = read_table(path)
    got = rel.df()
    assert list(got.columns) == list(ref.columns)
    kinds = {"int": "i", "dbl": "f", "txt": "O", "lgl": "b", "blank": "b", "code": "i", "trail": "f", "big": "f"}
    for j, name in enumerate(ref.columns):
        want = kinds[list(_KINDS)[j % len(_KINDS)]]
        r, g = ref[name], got[name]
        assert _kind(r) == _kind(g) == want, (name, r.dtype, g.dtype)
        if want == "O":
            assert r.astype(object).where(r.notna(), None).tolist() == g.astype(object).where(g.notna(), None).tolist()
        else:
            np.testing.assert_array_equal(r.to_numpy(dtype=np.float64, na_value=np.nan),
                                          g.to_numpy(dtype=np.float64, na_value=np.nan))


def _kind(s: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(s.dtype):
        return "b"
    if pd.api.types.is_integer_dtype(s.dtype):
        return "i"
    if pd.api.types.is_float_dtype(s.dtype):
        return "f"
    return "O"


def test_a_schemas_checks_hold_in_the_one_query(tmp_path):
    # a schema's factor levels, integer class and float32 dtype are checked per column in the same one query
    import json

    path = tmp_path / "s.csv"
    path.write_text("a,b,c,d\nx,1,0.5,u\ny,2,0.25,\nz,3,1.5,v\n", encoding="utf-8")
    schema = {"format": "pysdc-table-1", "columns": [
        {"name": "a", "r_class": "factor", "levels": ["x", "y"]},
        {"name": "b", "r_class": "integer"},
        {"name": "c", "r_class": "numeric", "dtype": "float32"},
        {"name": "d", "r_class": "character"}]}
    (tmp_path / "s.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    from pysdc import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=r"column 'a'.*\['z'\].*not among its levels"):
        _opened(path)
    schema["columns"][0]["levels"] = ["x", "y", "z"]
    (tmp_path / "s.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    rel, queries = _opened(path)
    assert len(queries) == 2 and queries[0].count("regexp_matches(") == 4  # (the schema's whole-number test)
    assert rel.df()["b"].tolist() == [1, 2, 3]
    path.write_text("a,b,c,d\nx,1,0.1,u\n", encoding="utf-8")  # 0.1 is no float32 number
    with pytest.raises(InvalidParameterError, match=r"column 'c'.*float32"):
        _opened(path)
    path.write_text("a,b,c,d\nx,1.5,0.5,u\n", encoding="utf-8")  # 1.5 is no whole number
    with pytest.raises(InvalidParameterError, match=r"column 'b'.*should be integer"):
        _opened(path)


def test_the_spark_survey_is_one_query_too():
    header = [f"v{j}" for j in range(300)]
    text = _csv._survey_sql(_csv._Sql("spark"), header, ".", "pysdc_view", None)
    assert text.count(" RLIKE ") == 3 and "posexplode(array(" in text and "GROUP BY pysdc_j" in text
