"""The ``pysdc`` command line, driven through ``main([...])``."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import cli
from pysdc.cli import main
from pysdc.io import write_table
from pysdc.report import jsonable

MEASURES = ["IL1", "IL1s", "eigen", "robeigen", "il_correl", "il_variables"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # strict JSON: NaN/Inf would not parse


# --------------------------------------------------------------------------- utility

@pytest.fixture(scope="module")
def demo_utility():
    """The demo utility report as JSON (computed once)."""
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["utility", "--demo", "--random-state", "1", "--json"])
    assert code == 0
    return json.loads(buf.getvalue())


def test_utility_demo_json_schema(demo_utility):
    rep = demo_utility
    assert rep["format"] == "pysdc-utility-1"
    assert set(rep) >= {"original", "masked", "variables", "measures", "warnings"}
    assert list(rep["measures"]) == MEASURES
    for name, m in rep["measures"].items():
        assert set(m) >= {"status", "value", "error"}, name
        assert m["status"] == "ok", (name, m["error"])
        assert isinstance(m["value"], float) and m["value"] > 0, name  # masked data: some loss everywhere
    assert rep["original"]["n_records"] == rep["masked"]["n_records"] == len(pysdc.load_demo())
    assert rep["measures"]["robeigen"]["random_state"] == 1


def test_utility_demo_variables(demo_utility):
    v = demo_utility["variables"]
    # the demo's default selection: the keys and the continuous variables (not the integer hhsize); the text
    # variables are categorical, as SdcProblem's key variables (one rule: pysdc.problem.utility_columns)
    assert v["numeric"] == ["income", "expenditure", "savings"]
    assert v["categorical"] == ["region", "urbrur", "sex", "age_group", "marital", "education"]
    assert not v["left_out"]


def test_utility_integer_numeric_variable_takes_its_scale_from_its_role(capsys):
    """One rule for il_variables (issue 25): an integer variable in the numeric role is compared on the numeric
    scale, as SdcProblem.utility does (the command once left it out while pysdc report took it)."""
    rep = run_json(capsys, "utility", "--demo", "--vars", "hhsize,income,region", "--random-state", "1")
    v = rep["variables"]
    assert v["numeric"] == ["hhsize", "income"]
    assert "hhsize" in v["il_variables"] and v["scales"] == {"hhsize": "numeric"}
    x, xm = pysdc.datasets.load_demo_pair()
    cols = ["region", "hhsize", "income"]
    ref = pysdc.il_variables(x[cols], xm[cols], scales={"hhsize": "numeric"})
    assert rep["measures"]["il_variables"]["value"] == ref.value
    lib = pysdc.SdcProblem.for_utility(x, ["region"], num_vars=["hhsize", "income"]).utility(xm, random_state=1)
    assert rep["measures"]["il_variables"]["value"] == lib["il_variables"].value


def test_utility_il_variables_lambda_is_mean_of_contributions(demo_utility):
    ilv = demo_utility["measures"]["il_variables"]
    assert list(ilv["per_variable"]) == demo_utility["variables"]["il_variables"]
    np.testing.assert_allclose(ilv["value"], np.mean(list(ilv["per_variable"].values())), rtol=1e-12)
    # variables the masking did not touch contribute nothing
    assert ilv["per_variable"]["sex"] == 0 and ilv["per_variable"]["urbrur"] == 0


def test_utility_reports_what_the_library_computes(demo_utility):
    x, xm = pysdc.datasets.load_demo_pair()
    num = demo_utility["variables"]["numeric"]
    m = demo_utility["measures"]
    for method in ("IL1", "IL1s", "eigen"):
        assert m[method]["value"] == pysdc.d_utility(x[num], xm[num], method=method)
    assert m["il_correl"]["value"] == pysdc.il_correl(x[num], xm[num]).value
    ilv = demo_utility["variables"]["il_variables"]
    assert m["il_variables"]["value"] == pysdc.il_variables(x[ilv], xm[ilv]).value
    assert m["IL1"]["mean_per_cell"] == pytest.approx(m["IL1"]["value"] / (len(x) * len(num)), rel=1e-12)


def test_utility_scale_declaration(capsys):
    rep = run_json(capsys, "utility", "--demo", "--scale", "hhsize=ordinal", "--vars", "hhsize,sex,income")
    assert rep["variables"]["il_variables"] == ["sex", "hhsize", "income"]  # the roles' order: keys first
    assert rep["variables"]["scales"] == {"hhsize": "ordinal"}
    assert rep["measures"]["il_variables"]["status"] == "ok"
    # hhsize was top-coded at 6: it contributes
    assert rep["measures"]["il_variables"]["per_variable"]["hhsize"] > 0


def test_utility_human_output(capsys):
    code, out, err = run(capsys, "utility", "--demo", "--random-state", "3", "--vars", "hhsize,region,income,savings")
    assert code == 0, err
    for word in MEASURES + ["What the numbers mean", "hhsize (numeric)", "dUtility", "IL_correl",
                            "per variable"]:
        assert word in out, word
    assert "Traceback" not in out + err


def _write_pair(tmp_path, x: pd.DataFrame, xm: pd.DataFrame, ext=".csv"):
    px, pm = tmp_path / f"x{ext}", tmp_path / f"xm{ext}"
    write_table(x, px)
    write_table(xm, pm)
    return str(px), str(pm)


def test_utility_nonfinite_values_in_json(tmp_path, capsys):
    # a constant variable that the masking changes: IL1s divides by sd = 0 -> Inf (sdcMicro gives Inf);
    # eigen fails on a constant column -> NA (null)
    x = pd.DataFrame({"a": [1.0, 1.0, 1.0, 1.0], "b": [1.0, 2.0, 4.0, 3.0]})
    xm = pd.DataFrame({"a": [1.0, 2.0, 1.0, 1.0], "b": [1.5, 2.0, 3.0, 3.5]})
    px, pm = _write_pair(tmp_path, x, xm)
    code, out, err = run(capsys, "utility", px, pm, "--json")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["measures"]["IL1s"]["value"] == "Inf"
    assert rep["measures"]["eigen"]["value"] is None
    # each warning once, readable, on stderr only in text mode
    code, out, err = run(capsys, "utility", px, pm)
    lines = [ln for ln in err.splitlines() if ln.startswith("pysdc: warning")]
    assert lines and len(lines) == len(set(lines))
    assert "Inf" in out and "NA" in out


def test_utility_types_from_flags(tmp_path, capsys):
    x = pd.DataFrame({"k": ["a", "b", "c", "a"], "o": ["lo", "hi", "mid", "lo"], "v": [1.0, 2.0, 3.0, 4.0]})
    xm = pd.DataFrame({"k": ["a", "b", "b", "a"], "o": ["lo", "mid", "mid", "lo"], "v": [1.0, 2.0, 3.0, 5.0]})
    px, pm = tmp_path / "x.csv", tmp_path / "xm.csv"
    x.to_csv(px, index=False)  # plain CSVs, no schema
    xm.to_csv(pm, index=False)
    rep = run_json(capsys, "utility", str(px), str(pm), "--categorical", "k", "--ordered", "o=lo<mid<hi")
    per = rep["measures"]["il_variables"]["per_variable"]
    # hand computed: k nominal, one mismatch of 4 -> 1/4; o ordinal (3 levels), |3-2|/2 + |2-2|/2 -> 0.5/4
    # v numeric, (2/pi) atan(1) = 0.5 -> 0.5/4
    assert per["k"] == pytest.approx(0.25, abs=1e-15)
    assert per["o"] == pytest.approx(0.125, abs=1e-15)
    assert per["v"] == pytest.approx(0.125, abs=1e-15)
    assert rep["variables"]["numeric"] == ["v"]


def test_utility_schema_sidecar_and_explicit_schema(tmp_path, capsys):
    x = pd.DataFrame({"k": pd.Categorical(["a", "b"]), "v": [1.0, 2.0]})
    px, pm = _write_pair(tmp_path, x, x)
    rep = run_json(capsys, "utility", px, pm, "--vars", "k")
    assert rep["variables"]["il_variables"] == ["k"] and rep["measures"]["il_variables"]["value"] == 0
    # the same CSV read with another schema: k as plain text is nominal too
    other = tmp_path / "other.schema.json"
    other.write_text(json.dumps({"format": "pysdc-table-1", "columns": [
        {"name": "k", "r_class": "character"}, {"name": "v", "r_class": "numeric"}]}), encoding="utf-8")
    rep = run_json(capsys, "utility", px, pm, "--schema", str(other), "--masked-schema", str(other))
    assert rep["variables"]["numeric"] == ["v"]


def test_utility_files_only_in_one_table_are_listed(tmp_path, capsys):
    x = pd.DataFrame({"v": [1.0, 2.0, 3.0], "w": [1.0, 1.0, 2.0]})
    xm = pd.DataFrame({"v": [1.0, 2.5, 3.0], "z": [0.0, 1.0, 1.0]})
    px, pm = _write_pair(tmp_path, x, xm)
    rep = run_json(capsys, "utility", px, pm)
    assert rep["variables"]["selected"] == ["v"]
    assert rep["variables"]["only_in_original"] == ["w"] and rep["variables"]["only_in_masked"] == ["z"]


# --------------------------------------------------------------------------- risk

@pytest.fixture
def tiny_keys(tmp_path):
    df = pd.DataFrame({"a": pd.Categorical(["1", "1", "1", "2", "2", "2"]),
                       "b": pd.Categorical(["x", "x", "y", "y", "y", "y"])})
    path = tmp_path / "tiny.csv"
    write_table(df, path)
    return str(path)


def test_risk_hand_computed(tiny_keys, capsys):
    # no weights: risk = 1/fk; fk = 2, 2, 1, 3, 3, 3
    rep = run_json(capsys, "risk", tiny_keys, "--keys", "a,b", "--top", "2")
    assert rep["format"] == "pysdc-risk-1"
    g = rep["global"]
    assert g["expected_reidentifications"] == pytest.approx(3.0, rel=1e-14)
    assert g["global_risk"] == pytest.approx(0.5, rel=1e-14)
    assert g["global_risk_pct"] == pytest.approx(50.0, rel=1e-14)
    assert rep["household"] is None
    assert rep["k_anonymity"]["fk_lt_2"] == 1 and rep["k_anonymity"]["fk_lt_3"] == 3
    top = rep["top"]
    assert top[0]["record"] == 3 and top[0]["a"] == "1" and top[0]["b"] == "y" and top[0]["risk"] == 1
    assert top[1]["record"] == 1 and top[1]["risk"] == pytest.approx(0.5, rel=1e-14)
    d = rep["individual_risk"]
    assert sum(b["count"] for b in d["bins"]) == 6
    assert d["quantiles"]["0%"] == pytest.approx(1 / 3, rel=1e-14) and d["quantiles"]["100%"] == 1


def test_risk_demo_json(capsys):
    rep = run_json(capsys, "risk", "--demo", "--top", "5")
    x = pysdc.load_demo()
    assert rep["key_vars"] == ["region", "urbrur", "sex", "age_group", "education"]
    assert rep["weight"] == "weight" and rep["hid"] == "hid"
    res = pysdc.measure_risk(x, rep["key_vars"], w="weight", hid="hid")
    assert rep["global"]["expected_reidentifications"] == res.global_risk_er
    assert rep["household"]["expected_reidentifications"] == res.hier_risk_er
    fk = res.individual["fk"].to_numpy()
    assert rep["k_anonymity"]["fk_lt_2"] == int((fk < 2).sum())
    assert rep["k_anonymity"]["fk_lt_3"] == int((fk < 3).sum())
    risks = [r["risk"] for r in rep["top"]]
    assert len(risks) == 5 and risks == sorted(risks, reverse=True)
    assert risks[0] == res.individual["risk"].max()
    q = list(rep["individual_risk"]["quantiles"].values())
    assert q == sorted(q)
    assert sum(b["count"] for b in rep["individual_risk"]["bins"]) == len(x)


def test_risk_human_output(capsys):
    code, out, err = run(capsys, "risk", "--demo", "--masked")
    assert code == 0, err
    for word in ("expected re-identifications", "global risk", "threshold", "household",
                 "2-anonymity", "3-anonymity", "Riskiest records", "distribution"):
        assert word in out, word


def test_risk_needs_keys(tiny_keys, capsys):
    code, out, err = run(capsys, "risk", tiny_keys)
    assert code == 2 and "--keys" in err


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("argv, words", [
    (["utility", "no_such_file.csv", "other.csv"], "does not exist"),
    (["risk", "no_such_file.csv", "--keys", "a"], "does not exist"),
    (["utility", "--demo", "--numeric", "income,nope"], "'nope'"),
    (["utility", "--demo", "--scale", "hhsize=interval"], "--scale"),
    (["utility", "--demo", "--ordered", "sex"], "--ordered"),
    (["utility", "--demo", "--ordered", "sex=male"], "not among the levels"),
    (["risk", "--demo", "--keys", "region,nope"], "'nope'"),
    (["risk", "--demo", "--weight", "nope"], "--weight"),
    (["utility"], "ORIGINAL and MASKED"),
])
def test_bad_input_exits_2_with_one_clean_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("pysdc: error: ") and words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreadable_files(tmp_path, capsys):
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("a\nK\xf6ln\n".encode("latin-1"))
    code, _, err = run(capsys, "risk", str(bad), "--keys", "a")
    assert code == 2 and "UTF-8" in err
    (tmp_path / "s.csv").write_text("a\n1\n", encoding="utf-8")
    (tmp_path / "s.schema.json").write_text("{oops", encoding="utf-8")
    code, _, err = run(capsys, "risk", str(tmp_path / "s.csv"), "--keys", "a")
    assert code == 2 and "JSON" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    code, _, err = run(capsys, "risk", str(empty), "--keys", "a")
    assert code == 2 and "empty" in err


def test_parquet_without_pyarrow(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    code, _, err = run(capsys, "risk", str(tmp_path / "d.parquet"), "--keys", "a")
    assert code == 2 and "pip install pysdc-measures[parquet]" in err


def test_usage_errors_and_help(capsys):
    assert main(["--help"]) == 0
    assert "utility" in capsys.readouterr().out
    assert main(["nonsense"]) == 2
    assert main([]) == 2
    assert main(["--version"]) == 0
    assert pysdc.__version__ in capsys.readouterr().out


# --------------------------------------------------------------------------- parity wiring

def test_parity_absent_says_not_available(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pysdc.cli.parity", None)  # import fails
    monkeypatch.delattr(cli, "parity", raising=False)
    code, _, err = run(capsys, "parity")
    assert code == 2 and "not available" in err


def test_parity_is_wired_to_the_module(capsys, monkeypatch):
    seen = {}
    fake = types.ModuleType("pysdc.cli.parity")

    def add_parser(sub):
        p = sub.add_parser("parity")
        p.add_argument("--only", default=None)
        p.set_defaults(run=lambda args, out: seen.setdefault("only", args.only) and 0)

    fake.add_parser = add_parser
    monkeypatch.setitem(sys.modules, "pysdc.cli.parity", fake)
    monkeypatch.setattr(cli, "parity", fake, raising=False)
    assert main(["parity", "--only", "IL1"]) == 0
    assert seen["only"] == "IL1"


# --------------------------------------------------------------------------- helpers and entry points

def test_json_values():
    assert jsonable({"a": np.float64("nan"), "b": np.inf, "c": -np.inf, "d": np.int64(3), "e": pd.NA,
                          "f": np.bool_(True), "g": [1.5, None]}) == \
        {"a": None, "b": "Inf", "c": "-Inf", "d": 3, "e": None, "f": True, "g": [1.5, None]}


def test_python_dash_m():
    res = subprocess.run([sys.executable, "-m", "pysdc", "--version"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "pysdc" in res.stdout
