"""``pysdc protect DATA --keys ... --recipe FILE --output FILE [--report R.html]``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pysdc
from pysdc.cli import main
from pysdc.datasets import demo_path
from pysdc.io import read_table

KEYS = "region,urbrur,sex,age_group,education"
FLAGS = ["--keys", KEYS, "--numeric", "income,expenditure,savings", "--weight", "weight", "--hid", "hid"]
RECIPE = {"steps": [{"method": "localSuppression", "k": 3},
                    {"microaggregation": {"aggr": 3, "method": "mdav"}},  # a method's own 'method' argument
                    {"pram": {"random_state": 1}},
                    {"method": "add_noise", "arguments": {"variables": ["income"], "noise": 50, "random_state": 2}}]}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def recipe(tmp_path, obj, name="recipe.json") -> Path:
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


@pytest.fixture(scope="module")
def expected():
    """The same steps on the problem object (the library the command calls)."""
    x = read_table(demo_path())
    p = pysdc.SdcProblem(x, KEYS.split(","), num_vars=["income", "expenditure", "savings"], w="weight", hid="hid")
    return (p.local_suppression(k=3).microaggregation(aggr=3).pram(variables=["marital"], random_state=1)
            .add_noise(variables=["income"], noise=50, random_state=2))


@pytest.mark.parametrize("ext", [".parquet", ".csv.gz", ".dta", ".sav"])
def test_writes_the_protected_file(tmp_path, capsys, expected, ext):
    out = tmp_path / f"protected{ext}"
    report = tmp_path / "r.html" if ext == ".parquet" else None
    code, stdout, err = run(capsys, "protect", demo_path(), *FLAGS, "--pram", "marital",
                            "--recipe", recipe(tmp_path, RECIPE), "--output", out,
                            *(["--report", report, "--no-plots"] if report else []))
    assert code == 0, err
    assert "sdc <- localSuppression(sdc, k = 3)" in stdout
    got = read_table(out)
    want = expected.manip_data
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got["income"].to_numpy(float), want["income"].to_numpy(float), rtol=0, atol=0)
    for k in [*KEYS.split(","), "marital"]:
        a = got[k].astype(object).where(got[k].notna(), None).map(lambda v: None if v is None else str(v))
        b = want[k].astype(object).where(want[k].notna(), None).map(lambda v: None if v is None else str(v))
        assert a.tolist() == b.tolist(), k
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # no temporary file left
    if report:
        text = report.read_text()
        assert 'id="steps"' in text and "microaggregation(sdc, aggr = 3, method = " in text


def test_json_summary_and_yaml(tmp_path, capsys, expected):
    pytest.importorskip("yaml")
    y = recipe(tmp_path, "steps:\n  - method: local_suppression\n    k: 3\n", "r.yaml")
    code, stdout, err = run(capsys, "protect", demo_path(), *FLAGS, "--recipe", y, "--output",
                            tmp_path / "o.parquet", "--json")
    assert code == 0, err
    s = json.loads(stdout)
    assert s["format"] == "pysdc-protect-1" and s["steps"][0]["method"] == "local_suppression"
    before = expected.risk(data="original", suda=False).measure_risk.global_risk_er
    assert s["risk"]["before"]["expected_reidentifications"] == pytest.approx(before, rel=1e-12)
    assert s["risk"]["after"]["expected_reidentifications"] < before


@pytest.mark.parametrize(("steps", "message"), [
    ({"steps": [{"method": "argus_rankswap"}]}, "unknown method 'argus_rankswap'"),
    ({"steps": [{"method": "localSuppression", "kk": 3}]}, "unexpected keyword argument 'kk'"),
    ({"steps": [{"method": "localSuppression", "key_vars": ["region"]}]}, "problem gives them"),
    ({"steps": []}, "non-empty list"),
    ({"steps": [{"method": "globalRecode", "column": "age"}]}, "missing a required argument: 'breaks'"),
    ("{not json", "not valid JSON"),
    ({"steps": [{"method": "localSuppression", "k": "three"}]}, "local_suppression: k"),
    ({"steps": [{"addNoise": {"noise": -5}}]}, "add_noise: noise"),
    ({"steps": [{"microaggregation": {"method": "nonsense"}}]}, "microaggregation: method"),
])
def test_bad_recipe_is_refused_before_any_work(tmp_path, capsys, steps, message):
    out = tmp_path / "o.parquet"
    # DATA does not even exist: the recipe is checked first
    code, _, err = run(capsys, "protect", tmp_path / "missing.csv", "--keys", "a", "--recipe",
                       recipe(tmp_path, steps), "--output", out)
    assert code == 2
    assert err.startswith("pysdc: error:") and message in err
    assert not out.exists()


def test_bad_step_on_the_data_writes_nothing(tmp_path, capsys):
    out = tmp_path / "o.parquet"
    code, _, err = run(capsys, "protect", demo_path(), *FLAGS, "--recipe",
                       recipe(tmp_path, {"steps": [{"method": "globalRecode", "column": "income", "breaks": 3}]}),
                       "--output", out)
    assert code == 2 and "key variable" in err and not out.exists()


def test_never_over_an_input(tmp_path, capsys):
    data = tmp_path / "d.parquet"
    read_table(demo_path()).to_parquet(data)
    before = data.read_bytes()
    code, _, err = run(capsys, "protect", data, *FLAGS, "--recipe", recipe(tmp_path, RECIPE), "--output", data)
    assert code == 2 and "never writes over its inputs" in err
    assert data.read_bytes() == before
    code, _, err = run(capsys, "protect", data, *FLAGS, "--recipe", recipe(tmp_path, RECIPE), "--output",
                       tmp_path / "o.xlsx")
    assert code == 2 and "extension" in err


def test_registered_in_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert "protect" in out
