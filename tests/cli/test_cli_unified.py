"""Issue 26, item 2: one command line. One flag per concept across the commands (old spellings hidden,
with a notice), 1-based record numbers with the value that was wrong, "did you mean" for columns,
hints for decimal commas, header-only and identical files, utility's default variables, --help
listing every format the readers take."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import cli
from pysdc._errors import InvalidParameterError
from pysdc.cli import main
from pysdc.io import read_table

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _frame(n=40, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "region": rng.choice(["north", "south", "east"], n),
        "sex": rng.choice(["f", "m"], n),
        "age": rng.integers(18, 80, n),                      # integer: not a default numeric variable
        "person_id": np.arange(1, n + 1, dtype=np.int64),     # record id
        "rec": np.arange(101, 101 + n).astype(np.float64),   # a record id stored as doubles
        "hh": np.repeat(np.arange(n // 2), 2).astype(np.float64),
        "wgt": rng.uniform(5, 50, n),
        "income": rng.gamma(2.0, 1000.0, n),
        "savings": rng.normal(100.0, 30.0, n),
    })


@pytest.fixture
def files(tmp_path):
    x = _frame()
    xm = x.copy()
    rng = np.random.default_rng(9)
    xm["income"] = xm["income"] * rng.uniform(0.9, 1.1, len(xm))
    xm["savings"] = xm["savings"] + rng.normal(0, 5, len(xm))
    px, pm = tmp_path / "orig.csv", tmp_path / "masked.csv"
    x.to_csv(px, index=False)
    xm.to_csv(pm, index=False)
    return x, xm, str(px), str(pm)


# --------------------------------------------------------------------------- one flag per concept

def test_numeric_is_the_one_spelling_and_old_ones_are_hidden_aliases_with_a_notice(capsys, files, tmp_path):
    x, xm, px, pm = files
    # utility: --numeric (was --vars); the old spelling gives the same report and a one-line notice
    code, out_new, err_new = run(capsys, "utility", px, pm, "--numeric", "income,savings", "--random-state", "1",
                                 "--json")
    assert code == 0, err_new
    assert "deprecated" not in err_new
    code, out_old, err_old = run(capsys, "utility", px, pm, "--vars", "income,savings", "--random-state", "1",
                                 "--json")
    assert code == 0, err_old
    assert "pysdc: note: --vars is deprecated; use --numeric" in err_old
    new, old = json.loads(out_new), json.loads(out_old)
    assert new["measures"] == old["measures"] and new["variables"] == old["variables"]
    # report: --numeric (was --num)
    for flag in ("--numeric", "--num"):
        out = tmp_path / f"r{flag.strip('-')}.html"
        code, _, err = run(capsys, "report", px, pm, "--keys", "region,sex", flag, "income", "--no-plots",
                           "--random-state", "1", "-o", str(out))
        assert code == 0, err
        assert ("--num is deprecated; use --numeric" in err) == (flag == "--num")
    # the aliases are hidden from --help and from the generated CLI reference
    for cmd, old_flag in (("utility", "--vars"), ("report", "--num"), ("parity", "--data")):
        code, help_text, _ = run(capsys, cmd, "--help")
        assert code == 0
        import re

        assert not re.search(rf"{old_flag}(?![\w-])", help_text), (cmd, old_flag)
        assert "--numeric" in help_text or cmd == "parity"
    spec = importlib.util.spec_from_file_location("_pysdc_docs_generate", ROOT / "docs" / "_generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    page = gen.cli()
    assert "`--vars`" not in page and "`--num`" not in page and "`--data`" not in page
    assert page.count("`--numeric`") >= 3  # risk, utility, report


def test_keys_take_commas_or_spaces_and_data_is_positional(capsys, files):
    x, xm, px, pm = files
    base = ["--weight", "wgt", "--no-suda", "--json", "--engine", "pandas"]
    code, out1, err = run(capsys, "risk", px, "--keys", "region,sex", *base)
    assert code == 0, err
    code, out2, err = run(capsys, "risk", px, "--keys", "region", "sex", *base)
    assert code == 0, err
    code, out3, err = run(capsys, "risk", "--keys", "region", "sex", px, *base)  # DATA after the names
    assert code == 0, err
    r1, r2, r3 = (json.loads(o) for o in (out1, out2, out3))
    assert r1["key_vars"] == r2["key_vars"] == r3["key_vars"] == ["region", "sex"]
    assert r1["global"] == r2["global"] == r3["global"]
    # utility: both files after a list of names
    code, out, err = run(capsys, "utility", "--numeric", "income", "savings", px, pm, "--json")
    assert code == 0, err
    assert json.loads(out)["variables"]["selected"] == ["income", "savings"]
    # every list of names does: --categorical, --text, --sensitive
    code, out_a, err = run(capsys, "utility", px, pm, "--numeric", "income", "--categorical", "region", "sex",
                           "--keys", "region", "sex", "--json")
    assert code == 0, err
    code, out_b, err = run(capsys, "utility", px, pm, "--numeric", "income", "--categorical", "region,sex",
                           "--keys", "region,sex", "--json")
    assert code == 0, err
    assert json.loads(out_a)["measures"] == json.loads(out_b)["measures"]


def test_parity_takes_data_as_positional_and_data_flag_as_alias(capsys):
    from pysdc.cli import parity as parity_cmd

    parser = cli.build_parser(parity_cmd)
    args = parser.parse_args(["parity", "mydata.csv", "--keys", "a", "b"])
    assert args.data == "mydata.csv" and args.keys == ["a", "b"]
    args = parser.parse_args(["parity", "--data", "old.csv", "--keys", "a,b"])
    from pysdc.cli._common import rescue_positionals

    rescue_positionals(args, ["data"], ["keys"])  # what `pysdc parity` does first
    assert args.data == "old.csv"
    assert "--data is deprecated" in capsys.readouterr().err


# --------------------------------------------------------------------------- 1-based records with the value

def test_weight_errors_name_records_1_based_with_their_values(capsys, tmp_path):
    df = pd.DataFrame({"k": list("abababab"), "w": [10.0, 20.0, 30.0, 40.0, 50.0, np.nan, 70.0, 80.0]})
    with pytest.raises(InvalidParameterError) as exc:
        pysdc.measure_risk(df, ["k"], w="w")
    msg = str(exc.value)
    assert "record 6 (missing)" in msg and "at rows" not in msg
    df2 = df.assign(w=[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, np.inf, 80.0])
    with pytest.raises(InvalidParameterError, match=r"record 7 \(value inf\)"):
        pysdc.measure_risk(df2, ["k"], w="w")
    # a data frame with its own index: the row number and the index label
    with pytest.raises(InvalidParameterError, match=r"record 6 \(index 'f'\) \(missing\)"):
        pysdc.measure_risk(df.set_index(pd.Index(list("abcdefgh"))), ["k"], w="w")
    # the command line, pandas and DuckDB alike: 1-based, with the text that was read
    p = tmp_path / "w.csv"
    p.write_text("k,w\na,1\nb,-\na,3\nb,\n")
    for engine in ("pandas", "duckdb"):
        code, out, err = run(capsys, "risk", str(p), "--keys", "k", "--weight", "w", "--no-suda", "--engine", engine)
        assert code == 2
        assert "records 2 (value '-'), 4 (value '')" in err, (engine, err)


# --------------------------------------------------------------------------- did you mean

def test_unknown_columns_get_did_you_mean_case_first_then_edit_distance(capsys, files):
    x, xm, px, pm = files
    code, out, err = run(capsys, "risk", px, "--keys", "REGION,sex", "--engine", "pandas")
    assert code == 2 and "did you mean 'region' (names are case-sensitive)?" in err
    code, out, err = run(capsys, "risk", px, "--keys", "region,sx", "--engine", "duckdb")
    assert code == 2 and "did you mean 'sex'?" in err
    code, out, err = run(capsys, "utility", px, pm, "--numeric", "incme")
    assert code == 2 and "did you mean 'income'?" in err
    code, out, err = run(capsys, "report", px, "--keys", "Region", "--no-plots", "-o", str(Path(px).with_suffix(".html")))
    assert code == 2 and "did you mean 'region'" in err
    code, out, err = run(capsys, "risk", px, "--keys", "region", "--weight", "zzz", "--engine", "pandas")
    assert code == 2 and "did you mean" not in err and "its columns are" in err
    # the library's column checks use the same helper
    with pytest.raises(InvalidParameterError, match=r"did you mean 'sex' \(names are case-sensitive\)"):
        pysdc.measure_risk(x, ["region", "Sex"])
    with pytest.raises(InvalidParameterError, match="did you mean 'income'"):
        pysdc.SdcProblem(x, ["region"], num_vars=["incom"])
    with pytest.raises(InvalidParameterError, match=r"did you mean 'income' \(names are case-sensitive\)"):
        read_table(px, usecols=["Income"])
    code, out, err = run(capsys, "utility", px, pm, "--numeric", "income", "--categorical", "regio")
    assert code == 2 and "--categorical names column 'regio'" in err and "did you mean 'region'" in err


# --------------------------------------------------------------------------- hints

def test_decimal_commas_in_a_comma_separated_file_get_a_hint(capsys, tmp_path):
    p = tmp_path / "dc.csv"
    p.write_text('k,w\n"a","504,56"\n"b","12,3"\n"a","7,25"\n')
    code, out, err = run(capsys, "risk", str(p), "--keys", "k", "--weight", "w", "--engine", "pandas")
    assert code == 2
    assert "missing (or non-numeric)" in err and "decimal comma" in err and "--decimal ','" in err
    assert "--sep ';'" in err
    # a text column that merely holds commas (e.g. "a,b" codes) gets no hint
    q = tmp_path / "codes.csv"
    q.write_text('k,c\n"a","x,y"\n"b","y,z"\n')
    code, out, err = run(capsys, "risk", str(q), "--keys", "k,c", "--engine", "pandas", "--no-suda")
    assert code == 0, err
    assert "decimal comma" not in err


def test_header_only_file_is_refused(capsys, tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text("region,sex,w\n")
    code, out, err = run(capsys, "risk", str(p), "--keys", "region,sex", "--engine", "pandas")
    assert code == 2 and "has no records" in err and out == ""
    code, out, err = run(capsys, "utility", str(p), str(p))
    assert code == 2 and "has no records" in err
    # on DuckDB too (one record is looked for, not the whole file read)
    code, out, err = run(capsys, "risk", str(p), "--keys", "region,sex", "--engine", "duckdb")
    assert code == 2 and "has no records" in err and out == ""
    code, out, err = run(capsys, "utility", str(p), str(p), "--numeric", "w", "--engine", "duckdb")
    assert code == 2 and "has no records" in err


def test_identical_original_and_masked_files_are_flagged(capsys, files, tmp_path):
    x, xm, px, pm = files
    copy = tmp_path / "copy.csv"
    shutil.copyfile(px, copy)
    for other, how in ((px, "the same file"), (str(copy), "identical files")):
        code, out, err = run(capsys, "utility", px, other, "--numeric", "income,savings")
        assert code == 0, err
        assert how in err and "every information loss is 0 by construction" in err
    code, out, err = run(capsys, "utility", px, pm, "--numeric", "income,savings")
    assert code == 0 and "by construction" not in err
    code, out, err = run(capsys, "report", px, str(copy), "--keys", "region", "--no-plots",
                         "-o", str(tmp_path / "r.html"))
    assert code == 0 and "every information loss is 0 by construction" in err


# --------------------------------------------------------------------------- utility's default variables

def test_utility_default_variables_are_the_doubles_a_user_means(capsys, files):
    x, xm, px, pm = files
    code, out, err = run(capsys, "utility", px, pm, "--weight", "wgt", "--hid", "hh", "--json")
    assert code == 0, err
    rep = json.loads(out)
    sel = rep["variable_selection"]
    assert sel["numeric_taken"] == ["income", "savings"]
    left = sel["left_out"]
    assert "weight" in left["wgt"] and "household" in left["hh"]
    assert "record id" in left["rec"] and "person_id" in left
    assert "integer" in left["age"] and "character" in left["region"]
    assert rep["variables"]["selected"] == ["income", "savings"]
    # the text says which were taken and which left out, and why
    code, out, err = run(capsys, "utility", px, pm, "--weight", "wgt", "--hid", "hh")
    assert code == 0, err
    assert "numeric taken: income, savings" in out and "left out: wgt: the weight (--weight)" in out
    # --keys adds categorical variables (and keeps them out of the numeric ones)
    rep = json.loads(run(capsys, "utility", px, pm, "--keys", "region", "--weight", "wgt", "--hid", "hh",
                         "--json")[1])
    assert rep["variables"]["selected"] == ["region", "income", "savings"]
    # without --weight, a sampling weight is still left out by its name (and said)
    rep = json.loads(run(capsys, "utility", px, pm, "--hid", "hh", "--json")[1])
    assert rep["variable_selection"]["numeric_taken"] == ["income", "savings"]
    assert "sampling weight" in rep["variable_selection"]["left_out"]["wgt"]


def test_utility_default_leaves_out_eusilc_weights_by_name(capsys, tmp_path):
    """eusilc's rb050 (personal) and db090 (household weight) are plain doubles: left out, and said."""
    rng = np.random.default_rng(1)
    n = 50
    x = pd.DataFrame({"rb050": rng.uniform(100, 900, n), "DB090": rng.uniform(100, 900, n),
                      "py010n": rng.normal(2e4, 5e3, n), "sample_weight": rng.uniform(1, 5, n)})
    xm = x.copy()
    xm["py010n"] += rng.normal(0, 100, n)
    px, pm = tmp_path / "x.csv", tmp_path / "xm.csv"
    x.to_csv(px, index=False)
    xm.to_csv(pm, index=False)
    code, out, err = run(capsys, "utility", str(px), str(pm), "--json")
    assert code == 0, err
    sel = json.loads(out)["variable_selection"]
    assert sel["numeric_taken"] == ["py010n"]
    assert all("sampling weight" in sel["left_out"][c] for c in ("rb050", "DB090", "sample_weight"))
    # named explicitly, a weight-named column is compared
    code, out, err = run(capsys, "utility", str(px), str(pm), "--numeric", "py010n,rb050", "--json")
    assert code == 0 and json.loads(out)["variables"]["selected"] == ["py010n", "rb050"]


# --------------------------------------------------------------------------- --help lists every format

@pytest.mark.parametrize("cmd", ["risk", "utility", "report", "parity"])
def test_help_lists_every_format_the_readers_take(capsys, cmd):
    code, out, _ = run(capsys, cmd, "--help")
    assert code == 0
    text = " ".join(out.split())
    for ext in (".csv", ".csv.gz", ".tsv", ".parquet", ".sav", ".dta"):
        assert ext in text, (cmd, ext)
