"""The command line on an office's files: outputs never change an input, sidecars included (found by trying
real, messy variants of the EU-SILC input)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from pysdc import _progress
from pysdc.cli import main
from pysdc.io import read_table, write_table

FRAME = pd.DataFrame({"region": pd.Categorical(["a", "a", "b", "b", "b", "c"]),
                      "sex": pd.Categorical(["m", "f", "m", "f", "m", "f"]),
                      "income": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_protect_output_beside_a_typed_input_keeps_its_sidecar(tmp_path, capsys):
    # typed.csv + typed.schema.json; --output typed.csv.gz writes its sidecar typed.schema.json too:
    # that overwrote the input's schema (the input's categories and types), now refused before any work
    data = write_table(FRAME, tmp_path / "typed.csv")
    side = tmp_path / "typed.schema.json"
    before = digest(side)
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    code, _, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe,
                       "--output", tmp_path / "typed.csv.gz")
    assert code == 2
    assert "typed.schema.json" in err and "never writes over its inputs" in err
    assert digest(side) == before
    assert not (tmp_path / "typed.csv.gz").exists()


def test_protect_output_does_not_give_an_untyped_input_a_sidecar(tmp_path, capsys):
    # plain.csv has no sidecar: plain.csv.gz's sidecar plain.schema.json would become plain.csv's types
    data = tmp_path / "plain.csv"
    data.write_text("region,sex,income\na,m,1\na,f,2\nb,m,3\nb,f,4\nb,m,5\nc,f,6\n")
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    code, _, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe,
                       "--output", tmp_path / "plain.csv.gz")
    assert code == 2 and "plain.schema.json" in err
    assert not (tmp_path / "plain.schema.json").exists()
    # elsewhere it is written, with its sidecar
    code, _, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe,
                       "--output", tmp_path / "protected.csv")
    assert code == 0, err
    assert (tmp_path / "protected.schema.json").exists()
    assert len(read_table(tmp_path / "protected.csv")) == 6


def test_risk_output_at_the_inputs_future_sidecar_is_refused(tmp_path, capsys):
    # pysdc risk in.csv --output in.schema.json wrote the risk JSON where in.csv's types are read from:
    # every later read of in.csv failed ("schema file 'in.schema.json' must be a JSON object with a
    # 'columns' list")
    data = tmp_path / "in.csv"
    data.write_text("region,sex\na,m\na,f\nb,m\nb,f\n")
    code, _, err = run(capsys, "risk", data, "--keys", "region,sex", "--no-suda", "--quiet",
                       "--output", tmp_path / "in.schema.json")
    assert code == 2 and "schema sidecar" in err
    assert not (tmp_path / "in.schema.json").exists()
    assert len(read_table(data)) == 4


def test_thousands_separators_get_a_hint_that_works(tmp_path, capsys):
    # '9.756,25' (EU-SILC's py010n as an office's spreadsheet exports it) is text for pysdc as for R's
    # read.csv2; the hint said "give --decimal ','", which leaves it text, and then said nothing
    text = "id;py010n;hy040n\n1;9.756,25;4.273,90\n2;12.471,60;0,00\n3;512,00;1.000,50\n"
    for name in ("orig.csv", "masked.csv"):
        (tmp_path / name).write_text(text)
    for dialect in ([], ["--sep", ";", "--decimal", ","]):
        code, _, err = run(capsys, "utility", tmp_path / "orig.csv", tmp_path / "masked.csv",
                           "--numeric", "py010n,hy040n", *dialect)
        assert code == 2
        assert "thousands" in err and "'9.756,25'" in err, (dialect, err)
        assert "give --decimal" not in err and "give --sep" not in err


def test_protect_spss_to_spss_keeps_the_codes_of_the_codebook(tmp_path, capsys):
    # an office's .sav: pb220a coded 1 = AT, 2 = EU, 3 = Other, -9 = 'no answer' (user-missing); the
    # protected .sav renumbered the labels 1..k in level order (1 = 'no answer', 2 = AT, ...): every
    # syntax and table built on the codebook then read other countries
    pyreadstat = __import__("pytest").importorskip("pyreadstat")
    frame = pd.DataFrame({"region": [1.0, 1, 2, 2, 2, 4, 4, 1],  # 4: a value without a label
                          "pb220a": [1.0, 3, -9, 1, 1, 2, 2, 3],
                          "income": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    labels = {"region": {1.0: "North", 2.0: "South", 3.0: "East"},
              "pb220a": {1.0: "AT", 2.0: "EU", 3.0: "Other", -9.0: "no answer"}}
    data = tmp_path / "office.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels=labels, missing_ranges={"pb220a": [-9.0]})
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    out = tmp_path / "protected.sav"
    code, _, err = run(capsys, "protect", data, "--keys", "region,pb220a", "--recipe", recipe, "--output", out)
    assert code == 0, err
    got, meta = pyreadstat.read_sav(str(out), user_missing=True)
    assert meta.variable_value_labels["pb220a"] == labels["pb220a"]
    assert meta.variable_value_labels["region"] == {**labels["region"], 4.0: "4"}  # read as level '4'
    assert got["region"].dropna().isin([1.0, 2.0, 3.0, 4.0]).all()
    kept = got["pb220a"].notna() & (got["pb220a"] != -9)
    assert kept.any()
    assert (got.loc[kept, "pb220a"] == frame.loc[kept, "pb220a"]).all()  # AT is still 1, EU 2, Other 3
    assert (got["region"].dropna() == frame.loc[got["region"].notna(), "region"]).all()
    assert -9.0 in [v for r in meta.missing_ranges.get("pb220a", []) for v in (r["lo"], r["hi"])]


def test_protect_stata_to_stata_keeps_the_codes_of_the_codebook(tmp_path, capsys):
    # the same for Stata: sex 1 = male, 2 = female came back as 0 = male, 1 = female
    pyreadstat = __import__("pytest").importorskip("pyreadstat")
    frame = pd.DataFrame({"region": [1.0, 1, 2, 2, 2, 3, 3, 1], "sex": [1.0, 2, 1, 2, 1, 2, 1, 2],
                          "income": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    labels = {"region": {1: "North", 2: "South", 3: "East"}, "sex": {1: "male", 2: "female"}}
    data = tmp_path / "office.dta"
    pyreadstat.write_dta(frame, str(data), variable_value_labels=labels)
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    out = tmp_path / "protected.dta"
    code, _, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe, "--output", out)
    assert code == 0, err
    got, meta = pyreadstat.read_dta(str(out))
    assert {c: {int(k): v for k, v in lab.items()} for c, lab in meta.variable_value_labels.items()} == labels
    for c in ("region", "sex"):
        kept = got[c].notna()
        assert kept.any() and (got.loc[kept, c] == frame.loc[kept, c]).all()


def test_protect_takes_quiet_as_the_other_commands_do(tmp_path, capsys, monkeypatch):
    # `pysdc protect ... --quiet` was refused (exit 2, "unrecognized arguments") while risk, utility and
    # report take it: a batch script silencing every command's progress stopped at protect
    monkeypatch.setattr(_progress, "AFTER", 0.0)  # show the progress at once
    data = tmp_path / "plain.csv"
    data.write_text("region,sex,income\na,m,1\na,f,2\nb,m,3\nb,f,4\nb,m,5\nc,f,6\n")
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    code, out, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe,
                         "--output", tmp_path / "loud.csv")
    assert code == 0, err
    assert "reading DATA" in err  # the progress it silences
    code, quiet_out, err = run(capsys, "protect", data, "--keys", "region,sex", "--recipe", recipe,
                               "--output", tmp_path / "quiet.csv", "--quiet")
    assert code == 0, err
    assert err == ""
    assert quiet_out == out.replace("loud.csv", "quiet.csv")  # the result is unchanged
    assert read_table(tmp_path / "quiet.csv").equals(read_table(tmp_path / "loud.csv"))


def test_missing_weight_is_said_to_be_missing_not_value_nan(tmp_path, capsys):
    # an office's weight column with empty fields (and NA): refused, as sdcMicro stops, but the message
    # named them "records 2 (value nan), 4 (value nan)", a value nobody wrote in the file
    data = tmp_path / "w.csv"
    data.write_text("a,b,w\nx,m,1.5\nx,f,\ny,m,2\ny,f,NA\n")
    for engine in ("pandas", "duckdb"):
        code, _, err = run(capsys, "risk", data, "--keys", "a,b", "--weight", "w", "--engine", engine, "--quiet")
        assert code == 2, (engine, err)
        assert "records 2 (missing), 4 (missing)" in err and "nan" not in err, (engine, err)
    recipe = tmp_path / "steps.json"
    recipe.write_text(json.dumps({"steps": [{"method": "localSuppression", "k": 2}]}))
    code, _, err = run(capsys, "protect", data, "--keys", "a,b", "--weight", "w", "--recipe", recipe,
                       "--output", tmp_path / "out.csv")
    assert code == 2 and "records 2 (missing), 4 (missing)" in err and "nan" not in err, err
    # a value that is there is still shown as it was read
    (tmp_path / "t.csv").write_text("a,b,w\nx,m,1.5\nx,f,\ny,m,2\ny,f,-\n")
    code, _, err = run(capsys, "risk", tmp_path / "t.csv", "--keys", "a,b", "--weight", "w", "--engine", "duckdb")
    assert code == 2 and "4 (value '-')" in err, err


@pytest.mark.spark
def test_spark_risk_json_lists_no_pyspark_pandas_notice_but_pysdcs_own_warnings(spark, tmp_path, capsys):
    # with pandas 3, pyspark warns at every toPandas/createDataFrame "PySpark does not yet fully support
    # pandas >= 3.0.0" (FutureWarning): it reached `pysdc risk --engine spark --json`'s "warnings" as if
    # it were about the user's data
    data = tmp_path / "f.csv"
    data.write_text("a,b,w\nx,m,0.5\nx,f,2\ny,m,2\ny,f,2\ny,m,2\nz,f,2\n")
    code, out, err = run(capsys, "risk", data, "--keys", "a,b", "--weight", "w", "--engine", "spark", "--json",
                         "--quiet", "--no-suda")
    assert code == 0, err
    listed = json.loads(out)["warnings"]
    assert not [w for w in listed if "PySpark" in w["message"] or w["category"] == "FutureWarning"], listed
    assert any("below 1" in w["message"] for w in listed), listed  # pysdc's own warning still reaches the result
