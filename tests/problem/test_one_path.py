"""One assessment path (issue 25): ``pysdc risk``, ``pysdc utility``, ``pysdc report`` (the assessment it renders)
and ``SdcProblem.risk()`` / ``.utility()`` give the same numbers on the same input -- the DuckDB engine path
included (and Spark, where PySpark and Java are installed) -- in one JSON format each (``pysdc-risk-1``,
``pysdc-utility-1``), checked against its JSON Schema on every path.

The input holds what once made the paths disagree: an integer key ``k`` and a numeric ``inc`` (``pysdc report``
computed il_variables on [k, inc] with k nominal, ``pysdc utility`` left k out).
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import jsonschema
import numpy as np
import pandas as pd
import pytest
from _engine_data import same_model

import pysdc
from pysdc._tolerances import ENGINE_SUMS
from pysdc.cli import main
from pysdc.problem import RISK_SCHEMA, UTILITY_SCHEMA, SdcProblem, report_assessment
from pysdc.report import jsonable

KEYS = ["k", "t"]
# the engines' markers skip with the reason (tests/conftest.py)
ENGINES = ["pandas", pytest.param("duckdb", marks=pytest.mark.duckdb), pytest.param("spark", marks=pytest.mark.spark)]


def _pair(n=600, seed=11):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({
        "k": rng.integers(1, 6, n),  # an integer key variable
        "t": rng.choice(["north", "south", "east"], n).astype(object),
        "inc": np.round(rng.lognormal(7.0, 0.6, n), 2),  # a numeric variable
        "exp": np.round(rng.lognormal(6.5, 0.5, n), 2),
        "w": np.round(rng.uniform(5.0, 60.0, n), 3),
        "h": np.sort(rng.integers(0, n // 2, n)).astype(np.int64),
    })
    xm = x.copy()
    swap = rng.random(n) < 0.15
    xm.loc[swap, "k"] = rng.integers(1, 6, int(swap.sum()))
    xm["inc"] = np.round(x["inc"] * rng.normal(1.0, 0.05, n), 2)
    xm["exp"] = np.round(x["exp"] * rng.normal(1.0, 0.05, n), 2)
    return x, xm


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("onepath")
    x, xm = _pair()
    x.to_parquet(d / "x.parquet", index=False)
    xm.to_parquet(d / "xm.parquet", index=False)
    return x, xm, str(d / "x.parquet"), str(d / "xm.parquet")


def _cli_json(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    return json.loads(buf.getvalue())


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _json(model: dict) -> dict:
    return json.loads(json.dumps(jsonable(model), allow_nan=False))



RISK_SECTIONS = ("global", "household", "k_anonymity", "individual_risk")


def _risk_argv(path, engine):
    return ["risk", path, "--keys", ",".join(KEYS), "--weight", "w", "--hid", "h", "--no-suda", "--json",
            "--engine", engine]


@pytest.mark.parametrize("engine", ENGINES)
def test_risk_is_the_same_on_every_path(files, engine):
    x, xm, px, pm = files
    lib = _json(_quiet(SdcProblem(x, KEYS, w="w", hid="h").risk, suda=False).to_dict())
    cli = _cli_json(_risk_argv(px, engine))
    for model in (lib, cli):
        jsonschema.validate(model, RISK_SCHEMA)
    assert cli["format"] == lib["format"] == "pysdc-risk-1" and cli["engine"] == engine
    assert cli["data"]["n_key_combinations"] == lib["data"]["n_key_combinations"]
    for section in RISK_SECTIONS:
        same_model(lib[section], cli[section], exact=engine == "pandas", path=section)
    if engine == "pandas":
        assert cli["top"] == lib["top"] and cli["top_unit"] == "record"
    else:  # counts per key combination where pandas has records: the same riskiest key values and risks
        assert cli["top_unit"] == "combination"
        by_record = {tuple(r[k] for k in KEYS): r["risk"] for r in lib["top"]}
        for row in cli["top"]:
            key = tuple(row[k] for k in KEYS)
            if key in by_record:
                np.testing.assert_allclose(row["risk"], by_record[key], rtol=ENGINE_SUMS.rtol)
        n = int(((x[KEYS[0]] == cli["top"][0]["k"]) & (x[KEYS[1]] == cli["top"][0]["t"])).sum())
        assert cli["top"][0]["records"] == n


def test_report_renders_the_risk_and_utility_the_cli_prints(files):
    """``pysdc report`` renders report_assessment: its risk model and its utility are the numbers of ``pysdc risk``
    and ``pysdc utility`` (with --numeric inc, exp and the key variables)."""
    x, xm, px, pm = files
    p = SdcProblem(x, KEYS, num_vars=["inc", "exp"], w="w", hid="h")
    a = _quiet(report_assessment, p, xm, random_state=5, top=10)
    risk = _cli_json(["risk", px, "--keys", ",".join(KEYS), "--weight", "w", "--hid", "h", "--json",
                      "--engine", "pandas", "--numeric", "inc,exp", "--masked", pm, "--random-state", "5"])
    rep0 = _json(a["rep0"])
    for model in (rep0, risk):
        jsonschema.validate(model, RISK_SCHEMA)
    for section in (*RISK_SECTIONS, "top", "suda2"):
        same_model(rep0[section], risk[section], exact=True, path=section)
    same_model(rep0["distance"]["d_risk"], risk["distance"]["d_risk"], exact=True)
    same_model(rep0["distance"]["d_risk_rmd"], risk["distance"]["d_risk_rmd"], exact=True)
    util = _cli_json(["utility", px, pm, "--keys", ",".join(KEYS), "--numeric", "inc,exp", "--json",
                      "--engine", "pandas", "--random-state", "5"])
    from_report = _json(a["utility"].to_dict())
    for model in (from_report, util):
        jsonschema.validate(model, UTILITY_SCHEMA)
    same_model(from_report["measures"], util["measures"], exact=True)
    same_model(from_report["literature"]["measures"], util["literature"]["measures"], exact=True)
    assert from_report["variables"]["il_variables"] == util["variables"]["il_variables"]


@pytest.mark.parametrize("engine", ENGINES)
def test_utility_is_the_same_on_every_path_with_one_column_rule(files, engine):
    x, xm, px, pm = files
    lib = _json(_quiet(SdcProblem(x, KEYS, num_vars=["inc", "exp"], w="w").utility, xm, random_state=2).to_dict())
    cli = _cli_json(["utility", px, pm, "--keys", ",".join(KEYS), "--numeric", "inc,exp", "--json", "--engine", engine,
                     "--random-state", "2"])
    for model in (lib, cli):
        jsonschema.validate(model, UTILITY_SCHEMA)
    assert cli["format"] == lib["format"] == "pysdc-utility-1" and cli["engine"] == engine
    # one rule: the integer key k is in il_variables, nominal (the role says it), on every path
    for model in (lib, cli):
        assert model["variables"]["il_variables"] == ["k", "t", "inc", "exp"]
        assert model["variables"]["scales"] == {"k": "nominal"}
    exact = engine == "pandas"
    for name in ("IL1", "IL1s", "eigen", "il_correl", "il_variables"):
        assert cli["measures"][name]["status"] == "ok", name
        same_model(lib["measures"][name]["value"], cli["measures"][name]["value"], exact=exact, path=name)
    same_model(lib["measures"]["il_variables"]["per_variable"], cli["measures"]["il_variables"]["per_variable"],
          exact=exact)
    if exact:
        same_model(lib["measures"], cli["measures"], exact=True)
        same_model(lib["literature"]["measures"], cli["literature"]["measures"], exact=True)
    else:  # what needs the records in memory is said, in the same format
        assert cli["measures"]["robeigen"]["status"] == "skipped"
        assert all(m["status"] == "skipped" for m in cli["literature"]["measures"].values())
    # and the library's own function on those columns and scales
    ref = pysdc.il_variables(x[["k", "t", "inc", "exp"]], xm[["k", "t", "inc", "exp"]], scales={"k": "nominal"})
    same_model(float(ref.value), cli["measures"]["il_variables"]["value"], exact=exact)


@pytest.mark.duckdb
def test_the_old_engine_format_is_gone(files):
    x, xm, px, pm = files
    cli = _cli_json(_risk_argv(px, "duckdb"))
    assert cli["format"] == "pysdc-risk-1" and "top_combinations" not in cli and "provenance" in cli


@pytest.mark.parametrize("engine", ["pandas", pytest.param("duckdb", marks=pytest.mark.duckdb)])
def test_output_is_the_result_in_every_command_and_records_are_1_based(files, tmp_path, engine):
    """--output means the command's result in every command (report: the HTML report; risk and utility: the
    model as .json, .md or .txt); risk's per-record table is --records, numbered 1, 2, ... as users read rows."""
    x, xm, px, pm = files
    for argv in (_risk_argv(px, engine), ["utility", px, pm, "--keys", ",".join(KEYS), "--numeric", "inc,exp",
                                         "--json", "--engine", engine, "--random-state", "2"]):
        out = tmp_path / f"{argv[0]}-{engine}.json"
        printed = _cli_json([*argv, "--output", str(out)])
        assert json.loads(out.read_text()) == printed
        md = tmp_path / f"{argv[0]}-{engine}.md"
        _cli_json([*argv, "-o", str(md)])
        assert md.read_text().startswith("## ")
    rec = tmp_path / f"records-{engine}.parquet"
    model = _cli_json([*_risk_argv(px, engine), "--records", str(rec)])
    back = pd.read_parquet(rec).sort_values("record")
    assert list(back["record"]) == list(range(1, len(x) + 1))
    assert model["output"]["columns"][0] == "record"
    ind = _quiet(pysdc.measure_risk, x, KEYS, w="w", hid="h").individual
    np.testing.assert_allclose(back["risk"].to_numpy(float), ind["risk"].to_numpy(float), rtol=ENGINE_SUMS.rtol)
    # the highest risk's record number is the one the model's riskiest records name (pandas: one row per record)
    if engine == "pandas":
        top = model["top"][0]
        assert back.loc[back["record"] == top["record"], "risk"].iloc[0] == top["risk"]


@pytest.mark.parametrize("engine", ["pandas", pytest.param("duckdb", marks=pytest.mark.duckdb)])
def test_a_text_numeric_variable_is_refused_alike(files, engine):
    """The roles are checked once, as SdcProblem checks them: a text column named numeric is refused on every
    path with the same advice."""
    x, xm, px, pm = files
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["utility", px, pm, "--numeric", "t,inc", "--engine", engine])
    assert code == 2 and "--numeric must be numeric variables" in err.getvalue() and "as --keys" in err.getvalue()
    with pytest.raises(pysdc.InvalidParameterError, match="num_vars must be numeric variables"):
        SdcProblem(x, ["k"], num_vars=["t", "inc"])
