"""pysdc's CSV reader against R's read.csv: each column's class (logical / integer / numeric / character)
and values, on small CSV files mixing empty fields, quoted empty fields, white space, NA (quoted or not),
numbers with white space, leading zeros, R's logical texts, dates and text; read.csv's default arguments and
the dialects pysdc supports (sep ";" with dec ",", tab, extra na.strings).

* stored: the corpus r_reference/inputs/csv_typing (make_inputs_csv_typing.py) and R's typed columns
  r_reference/outputs/csv_typing.json (generate_csv_typing.R), read by the pandas path and by DuckDB;
* live (Rscript): freshly generated files of the same kind, R's read.csv run on them now.

R keeps NaN apart from NA; pysdc reads NaN as missing (pandas has one missing float): NaN is compared as
missing. The rules pysdc does not follow are listed in pysdc.io's docstring and are not generated here.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.io import read_table

ROOT = Path(__file__).resolve().parents[2] / "r_reference"
CASES = json.loads((ROOT / "outputs" / "csv_typing.json").read_text(encoding="utf-8"))["cases"]

_spec = importlib.util.spec_from_file_location("make_inputs_csv_typing", ROOT / "make_inputs_csv_typing.py")
_maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_maker)


def _kwargs(args: dict) -> dict:
    kw = {"na_values": tuple(args.get("na_strings", ["NA"]))}
    if isinstance(kw["na_values"], str):
        kw["na_values"] = (kw["na_values"],)
    kw["sep"] = args.get("sep", ",")
    kw["decimal"] = args.get("dec", ".")
    return kw


def _rclass(s: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(s.dtype):
        return "logical"
    if pd.api.types.is_integer_dtype(s.dtype):
        return "integer"
    if pd.api.types.is_float_dtype(s.dtype):
        return "numeric"
    return "character"


def _values(s: pd.Series) -> list:
    out = []
    cls = _rclass(s)
    for v in s.to_numpy(dtype=object, na_value=None):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            out.append(None)
        elif cls == "logical":
            out.append("TRUE" if v else "FALSE")
        elif cls == "integer":
            out.append(str(int(v)))
        elif cls == "numeric":
            out.append("Inf" if v == np.inf else "-Inf" if v == -np.inf else f"{v:.17g}")
        else:
            out.append(str(v))
    return out


def _r_values(vals: list) -> list:
    return [None if v == "NaN" else v for v in vals]  # pysdc reads NaN as missing


def _compare(result: dict, df: pd.DataFrame, where: str) -> list:
    bad = []
    assert list(df.columns) == list(result["columns"]), where
    for c in result["columns"]:
        got_cls, got = _rclass(df[c]), _values(df[c])
        want_cls, want = result["classes"][c], _r_values(result["values"][c])
        if got_cls != want_cls or got != want:
            bad.append(f"{where} {c}: R {want_cls} {want}, pysdc {got_cls} {got}")
    return bad


def _read(path, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_table(path, **_kwargs(args))


def test_pandas_path_types_the_stored_corpus_as_read_csv():
    bad = []
    for case in CASES:
        bad += _compare(case["result"], _read(ROOT / case["inputs"]["file"], case["args"]), case["id"])
    assert not bad, "\n".join(bad[:20])


@pytest.mark.duckdb
def test_duckdb_types_the_stored_corpus_as_read_csv():
    bad = []
    for case in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = pysdc.scan(ROOT / case["inputs"]["file"], **_kwargs(case["args"]))
            df = s.relation().df()
        res = case["result"]
        for c in res["columns"]:
            cls = s.table().rclass(c)
            if cls != res["classes"][c]:
                bad.append(f"{case['id']} {c}: R {res['classes'][c]}, DuckDB {cls}")
            if cls == "logical":  # DuckDB's frame holds booleans as objects where missing
                df[c] = pd.array(df[c].to_numpy(dtype=object, na_value=None), dtype="boolean")
            elif cls == "integer":
                df[c] = pd.array(df[c].to_numpy(dtype=object, na_value=None), dtype="Int64")
        bad += _compare(res, df, case["id"] + " (duckdb)")
    assert not bad, "\n".join(bad[:20])


def test_the_all_empty_key_column_is_logical_na(tmp_path):
    """The reported case: a column of empty fields only is R's logical NA, not the text ""."""
    p = tmp_path / "e.csv"
    p.write_text('a,b,c\n1,,""\n2,," "\n')
    df = read_table(p)
    assert df["b"].dtype == "boolean" and df["b"].isna().all()
    assert df["c"].dtype == "boolean" and df["c"].isna().all()


@pytest.mark.rscript("jsonlite", sdcmicro=False)
def test_live_read_csv_on_fresh_files(tmp_path):
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    cases = []
    for i in range(60):
        args, sep = _maker.DIALECTS[i % len(_maker.DIALECTS)]
        lines = _maker.make_lines(rng, sep, args.get("dec", "."))
        p = tmp_path / f"r{i:03d}.csv"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cases.append((p, args))
    script = tmp_path / "read.R"
    script.write_text(
        "library(jsonlite)\n"
        "cases <- fromJSON(commandArgs(TRUE)[1], simplifyVector = FALSE)\n"
        "v <- function(x) { if (is.logical(x)) return(ifelse(is.na(x), NA, ifelse(x, 'TRUE', 'FALSE')));"
        " if (is.integer(x)) return(as.character(x)); if (is.double(x)) { o <- sprintf('%.17g', x);"
        " o[is.na(x)] <- NA; o[!is.na(x) & x == Inf] <- 'Inf'; o[!is.na(x) & x == -Inf] <- '-Inf'; return(o) };"
        " as.character(x) }\n"
        "out <- lapply(cases, function(k) { a <- k$args;"
        " d <- read.csv(k$file, sep = if (is.null(a$sep)) ',' else a$sep, dec = if (is.null(a$dec)) '.' else a$dec,"
        " na.strings = if (is.null(a$na_strings)) 'NA' else unlist(a$na_strings));"
        " list(columns = I(names(d)), classes = lapply(d, function(x) class(x)[1]),"
        " values = lapply(d, function(x) I(v(x)))) })\n"
        "writeLines(toJSON(out, auto_unbox = TRUE, na = 'null', null = 'null'), commandArgs(TRUE)[2])\n")
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps([{"file": str(p), "args": a} for p, a in cases]))
    outp = tmp_path / "out.json"
    subprocess.run(["Rscript", str(script), str(spec), str(outp)], check=True, capture_output=True, timeout=120)
    results = json.loads(outp.read_text())
    bad = []
    for (p, a), res in zip(cases, results):
        res["values"] = {c: (v if isinstance(v, list) else [v]) for c, v in res["values"].items()}
        bad += _compare(res, _read(p, a), f"{p.name} (seed {seed})")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.live
@pytest.mark.rscript("jsonlite")
def test_live_freqcalc_with_an_empty_key_column_equals_sdcmicro(tmp_path):
    """The reported case: keys a, b, c with b empty throughout and a missing in records 4 and 8, alpha 0.5:
    read.csv makes b logical NA (a missing key value matches every category), and sdcMicro's fk follows;
    pysdc read b as the category "" before (fk 10 where sdcMicro has 5.5)."""
    a = ["1", "1", "2", "NA", "1", "2", "2", "NA", "1", "2"]
    c = ["1", "2", "1", "1", "2", "1", "2", "2", "1", "1"]
    p = tmp_path / "k.csv"
    p.write_text("a,b,c\n" + "".join(f"{x},,{z}\n" for x, z in zip(a, c)))
    script = ("suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv('k.csv'); "
              "d$a <- factor(d$a); d$c <- factor(d$c); "
              "f <- freqCalc(d, keyVars = c('a', 'b', 'c'), alpha = 0.5); "
              "cat(toJSON(list(fk = f$fk, cls = class(d$b))))")
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout)
    assert o["cls"] == ["logical"]
    def fk(df):
        df = df.astype({"a": "category", "b": "category", "c": "category"})  # as measure_risk makes keys
        return pysdc.freq_calc(df, ["a", "b", "c"], alpha=0.5).fk

    got = fk(read_table(p))
    np.testing.assert_array_equal(np.asarray(got, dtype=float), np.asarray(o["fk"], dtype=float))
    assert got.tolist() != fk(read_table(p, text_columns=["b"])).tolist()  # b read as the category "": other fk


@pytest.mark.spark
def test_spark_types_one_stored_file_as_read_csv():
    """Spark (slow to start: one file) with blank, white-space and quoted empty fields, True/False text and a
    column of blank fields only: R's classes and values."""
    case = next(c for c in CASES if c["id"] == "csv_typing_008")
    res = case["result"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = pysdc.scan(ROOT / case["inputs"]["file"], engine="spark", **_kwargs(case["args"]))
        rows = s.relation().toPandas() if hasattr(s.relation(), "toPandas") else s.relation().df()
    assert {c: s.table().rclass(c) for c in res["columns"]} == res["classes"]
    for c in res["columns"]:
        got = [None if v is None or (isinstance(v, float) and np.isnan(v)) else v
               for v in rows[c].to_numpy(dtype=object)]
        want = _r_values(res["values"][c])
        if res["classes"][c] == "logical":
            got = [None if v is None else ("TRUE" if v else "FALSE") for v in got]
        assert got == want, c


@pytest.mark.xfail(strict=True, reason="not matched (documented in pysdc.io's docstring): R's read.csv reads "
                   "hexadecimal numbers (0x1A: 26, 0x1p3: 8) and numbers with an incomplete exponent (1e, 1.5e, 1e+: "
                   "1, 1.5, 1) as doubles; pysdc reads such a column as text")
@pytest.mark.parametrize("field,value", [("0x1A", 26.0), ("0x1p3", 8.0), ("1e", 1.0), ("1.5e", 1.5), ("1e+", 1.0)])
def test_r_numbers_pysdc_does_not_read(tmp_path, field, value):
    p = tmp_path / "x.csv"
    p.write_text(f"a,b\n1,{field}\n2,4\n")  # R 4.2.2: b numeric c(value, 4)
    df = read_table(p)
    assert df["b"].dtype == "float64" and df["b"].tolist() == [value, 4.0]
