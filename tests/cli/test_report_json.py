"""Issue 26, item 2: ``pysdc report --json`` (and ``--output x.json``), the one model of risk and utility.

The report's numbers as JSON: ``{"original": pysdc-risk-1, "masked": pysdc-risk-1, "utility": pysdc-utility-1,
"warnings": [...]}`` (the layout of :meth:`pysdc.SdcProblem.compare`'s ``to_dict``); the same numbers as
``pysdc risk --json`` and ``pysdc utility --json`` print for the same files.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import jsonschema
import pytest

from pysdc.cli import main
from pysdc.datasets import demo_path
from pysdc.problem import RISK_SCHEMA, UTILITY_SCHEMA

KEYS = "region,urbrur,sex,age_group,education"
NUM = "income,expenditure,savings"


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("report_json")
    orig = d / ("orig" + "".join(demo_path(False).suffixes))
    masked = d / ("masked" + "".join(demo_path(True).suffixes))
    shutil.copy(demo_path(False), orig)
    shutil.copy(demo_path(True), masked)
    return d, str(orig), str(masked)


@pytest.fixture(scope="module")
def report(files):
    d, orig, masked = files
    html = d / "r.html"
    rc, out, err = _run(["report", orig, masked, "--keys", KEYS, "--numeric", NUM, "--weight", "weight", "--hid",
                         "hid", "--no-plots", "--quiet", "--json", "--output", str(html), "--random-state", "7"])
    assert rc == 0, err
    return json.loads(out), err, html


def test_report_json_is_the_model_of_risk_and_utility(report):
    model, err, html = report
    assert set(model) == {"original", "masked", "utility", "warnings"}
    jsonschema.validate(model["original"], RISK_SCHEMA)
    jsonschema.validate(model["masked"], RISK_SCHEMA)
    jsonschema.validate(model["utility"], UTILITY_SCHEMA)
    assert html.exists() and html.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert f"wrote {html}" in err  # stdout holds the JSON only


def test_report_json_numbers_equal_risk_and_utility(files, report):
    _, orig, masked = files
    model = report[0]
    rc, out, err = _run(["risk", orig, "--keys", KEYS, "--weight", "weight", "--hid", "hid", "--json", "--quiet",
                         "--engine", "pandas"])
    assert rc == 0, err
    risk = json.loads(out)
    for section in ("global", "household", "k_anonymity", "individual_risk", "top"):
        assert model["original"][section] == risk[section], section
    assert model["original"]["data"]["n_records"] == risk["data"]["n_records"]
    rc, out, err = _run(["utility", orig, masked, "--numeric", NUM, "--keys", KEYS, "--json",
                         "--quiet", "--engine", "pandas"])
    assert rc == 0, err
    util = json.loads(out)
    for name in ("IL1", "IL1s", "eigen", "il_correl", "il_variables"):  # (robeigen draws: no random_state here)
        assert model["utility"]["measures"][name]["status"] == "ok", name
        assert model["utility"]["measures"][name] == util["measures"][name], name


def test_report_output_json_writes_the_same_json(files, report, tmp_path):
    _, orig, masked = files
    target = tmp_path / "numbers.json"
    rc, out, err = _run(["report", orig, masked, "--keys", KEYS, "--numeric", NUM, "--weight", "weight", "--hid",
                         "hid", "--no-plots", "--quiet", "--output", str(target), "--random-state", "7"])
    assert rc == 0, err
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written == report[0]
    assert f"wrote {target}" in out
    assert not (tmp_path / "report.html").exists()  # --output .json: the numbers instead of the HTML


def test_report_output_refuses_other_extensions(files, tmp_path):
    _, orig, _ = files
    rc, _, err = _run(["report", orig, "--keys", KEYS, "--output", str(tmp_path / "r.parquet")])
    assert rc == 2 and "(.json)" in err and not (tmp_path / "r.parquet").exists()


def test_report_json_without_masked(files, tmp_path):
    _, orig, _ = files
    rc, out, err = _run(["report", orig, "--keys", KEYS, "--weight", "weight", "--no-plots", "--quiet", "--json",
                         "--output", str(tmp_path / "r.html")])
    assert rc == 0, err
    model = json.loads(out)
    assert model["masked"] is None and model["utility"] is None
    jsonschema.validate(model["original"], RISK_SCHEMA)
