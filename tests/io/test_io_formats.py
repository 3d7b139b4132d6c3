"""SPSS (.sav) and Stata (.dta) files: value labels become categoricals, as haven::as_factor makes them."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest

from pysdc import InvalidParameterError
from pysdc.cli import main
from pysdc.io import read_header, read_table

pyreadstat = pytest.importorskip("pyreadstat", reason="pyreadstat (pysdc's [spss] extra) is not installed")

LABELS = {"sex": {1.0: "male", 2.0: "female"}, "region": {10.0: "North", 20.0: "South", 30.0: "East", 99.0: "missing"}}


@pytest.fixture
def sav(tmp_path):
    df = pd.DataFrame({"sex": [1.0, 2.0, 1.0, np.nan, 3.0, 2.0], "region": [10.0, 20.0, 20.0, 10.0, 99.0, 20.0],
                       "inc": [1.5, 2.5, np.nan, 4.0, 5.0, 6.0], "name": ["a", "b", "c", "d", "e", "f"]})
    path = tmp_path / "survey.sav"
    pyreadstat.write_sav(df, str(path), variable_value_labels=LABELS, missing_ranges={"region": [99.0]})
    return path


@pytest.fixture
def dta(tmp_path):
    df = pd.DataFrame({"sex": pd.Categorical(["m", "f", "m", None, "f"], categories=["m", "f", "x"]),
                       "age": np.array([31, 42, 53, 64, 75], dtype="int32"), "inc": [1.5, np.nan, 2.0, 3.0, 4.0]})
    path = tmp_path / "survey.dta"
    df.to_stata(path, write_index=False)
    return path


def test_sav_value_labels_become_categories(sav):
    d = read_table(sav)
    assert list(d.columns) == ["sex", "region", "inc", "name"] == read_header(sav)
    # levels: the labels in the order of their values; an unlabelled value (3) as its number; unobserved
    # labels kept (East); the user-missing value 99 is missing
    assert list(d["sex"].cat.categories) == ["male", "female", "3"]
    assert list(d["region"].cat.categories) == ["North", "South", "East", "missing"]
    assert d["sex"].astype(object).tolist()[:3] == ["male", "female", "male"] and pd.isna(d["sex"][3])
    assert d["sex"][4] == "3" and pd.isna(d["region"][4])
    assert not d["sex"].cat.ordered
    assert d["inc"].dtype == np.float64 and np.isnan(d["inc"][2])
    assert d["name"].tolist() == list("abcdef")
    assert list(read_table(sav, usecols=["inc", "sex"]).columns) == ["sex", "inc"]


def test_dta_value_labels_and_integer_storage(dta):
    d = read_table(dta)
    assert list(d["sex"].cat.categories) == ["m", "f", "x"]  # unobserved label x kept, as haven does
    assert d["sex"].astype(object).tolist()[:3] == ["m", "f", "m"] and pd.isna(d["sex"][3])
    assert d["age"].dtype == np.float64 and d["age"].tolist() == [31.0, 42.0, 53.0, 64.0, 75.0]
    assert read_header(dta) == ["sex", "age", "inc"]


def test_unreadable_files_are_pysdc_errors(tmp_path):
    for name in ("broken.sav", "broken.dta"):
        (tmp_path / name).write_bytes(b"this is not a data file at all")
        with pytest.raises(InvalidParameterError, match="cannot read broken"):
            read_table(tmp_path / name)


def test_cli_reads_sav_by_extension(sav, capsys):
    assert main(["risk", str(sav), "--keys", "sex,region", "--no-suda", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["data"]["n_records"] == 6 and rep["key_vars"] == ["sex", "region"]


@pytest.mark.rscript("haven", sdcmicro=False)
def test_levels_and_classes_equal_havens(sav, dta):
    script = (
        "library(haven); f <- function(p, r) { d <- r(p); lapply(d, function(v) if (is.labelled(v)) "
        "list(levels = levels(as_factor(v)), values = as.character(as_factor(v))) else list(class = class(v)[1])) }; "
        f"cat(jsonlite::toJSON(list(sav = f('{sav}', read_sav), dta = f('{dta}', read_dta)), auto_unbox = TRUE))"
    )
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"R could not run haven/jsonlite: {r.stderr.strip()[:200]}")
    ref = json.loads(r.stdout)
    for kind, path in (("sav", sav), ("dta", dta)):
        d = read_table(path)
        for col, info in ref[kind].items():
            if "levels" in info:
                assert list(d[col].cat.categories) == info["levels"], (kind, col)
                got = [None if pd.isna(v) else v for v in d[col].astype(object)]
                assert got == [None if v in (None, "NA") else v for v in info["values"]], (kind, col)
            else:
                want = {"numeric": "float64", "character": "str"}[info["class"]]
                assert (d[col].dtype == np.float64) if want == "float64" else not pd.api.types.is_numeric_dtype(d[col])
