"""``pysdc utility --estimate/--regression/--plots``: the practice guide's benchmark checks from the command line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._tolerances import CLOSED_FORM
from pysdc.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo(), pysdc.load_demo(masked=True)


def test_estimate_weighted_mean_equals_numpy(capsys, demo):
    x, xm = demo
    rep = run_json(capsys, "utility", "--demo", "--estimate", "mean(income)", "--estimate", "total(income)",
                   "--weight", "weight")
    rows = {r["estimator"]: r for r in rep["benchmarks"]["estimates"]["rows"]}
    for frame, suffix in ((x, "x"), (xm, "xm")):
        ok = frame["income"].notna() & frame["weight"].notna()
        inc, w = frame.loc[ok, "income"].to_numpy(float), frame.loc[ok, "weight"].to_numpy(float)
        np.testing.assert_allclose(rows["mean(income)"][f"estimate_{suffix}"], np.average(inc, weights=w),
                                   rtol=CLOSED_FORM.rtol)
        np.testing.assert_allclose(rows["total(income)"][f"estimate_{suffix}"], np.sum(inc * w), rtol=CLOSED_FORM.rtol)
    for r in rows.values():
        assert r["lower_x"] < r["estimate_x"] < r["upper_x"]
        assert r["inside"] == bool(r["lower_x"] <= r["estimate_xm"] <= r["upper_x"])
    assert rep["benchmarks"]["weight"] == "weight"
    # the benchmark columns are read, but the sdcMicro measures still compare only the selected variables
    assert "weight" not in rep["variables"]["selected"]


def test_regression_table_is_compare_regression(capsys, demo):
    x, xm = demo
    formula = "log(income + 1) ~ sex + age_group"
    rep = run_json(capsys, "utility", "--demo", "--regression", formula, "--weight", "weight", "--level", "0.9")
    (reg,) = rep["benchmarks"]["regressions"]
    assert reg["status"] == "ok" and reg["formula"] == formula
    ref = pysdc.compare_regression(x, xm, formula, w="weight", level=0.9).table
    got = pd.DataFrame.from_dict(reg["table"], orient="index")
    assert list(got.index) == list(ref.index)
    for col in ("estimate_x", "se_x", "lower_x", "upper_x", "estimate_xm", "upper_xm", "overlap"):
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=CLOSED_FORM.rtol)


def test_text_output_has_benchmark_tables(capsys):
    code, out, err = run(capsys, "utility", "--demo", "--estimate", "median(income)",
                         "--regression", "log(income + 1) ~ sex")
    assert code == 0, err
    assert "Benchmark estimates (original vs masked; 95 % intervals, unweighted)" in out
    assert "median(income)" in out
    assert "Regression log(income + 1) ~ sex (gaussian" in out
    assert "sexfemale" in out


def test_failing_estimate_is_reported_and_the_rest_computed(capsys):
    rep = run_json(capsys, "utility", "--demo", "--estimate", "mean(region)",
                   "--regression", "log(income + 1) ~ sex")
    est = rep["benchmarks"]["estimates"]
    assert est["status"] == "error" and "must be numeric" in est["error"]
    assert rep["benchmarks"]["regressions"][0]["status"] == "ok"
    assert rep["measures"]["IL1"]["status"] == "ok"


@pytest.mark.parametrize("ci", ["wald", "t"])
def test_regression_ci_flag_is_compare_regression_ci(capsys, demo, ci):
    x, xm = demo
    formula = "log(income + 1) ~ sex + age_group"
    rep = run_json(capsys, "utility", "--demo", "--regression", formula, "--ci", ci)
    got = pd.DataFrame.from_dict(rep["benchmarks"]["regressions"][0]["table"], orient="index")
    ref = pysdc.compare_regression(x, xm, formula, ci=ci).table
    for col in ("lower_x", "upper_x", "lower_xm", "upper_xm", "overlap"):
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=CLOSED_FORM.rtol)
    if ci == "wald":  # the normal quantile, not t's: the intervals differ from the default ones
        default = pysdc.compare_regression(x, xm, formula).table
        assert not np.allclose(got["lower_x"].to_numpy(float), default["lower_x"].to_numpy(float), rtol=1e-9)


@pytest.mark.parametrize("argv, message", [
    (["--weight", "weight"], "--weight applies to --estimate and --regression"),
    (["--ci", "wald"], "--ci applies to --regression"),
    (["--estimate", "mean(income)", "--level", "1.5"], "--level must lie strictly between 0 and 1"),
    (["--estimate", "mean(income)", "--weight", "nope"], "--weight names column 'nope'"),
])
def test_bad_flags_are_refused(capsys, argv, message):
    code, out, err = run(capsys, "utility", "--demo", *argv)
    assert code == 2
    assert message in err


def test_plots_written_as_png(capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="the [plots] extra (matplotlib) is not installed")
    d = tmp_path / "plots"
    rep = run_json(capsys, "utility", "--demo", "--vars", "income,sex,age_group",
                   "--regression", "log(income + 1) ~ sex", "--plots", str(d))
    files = sorted(rep["plots"]["files"])
    assert files == sorted(["histogram_income.png", "density_income.png", "boxplot_income.png",
                            "mosaic_sex_age_group.png", "coefficients.png"])
    for f in files:
        data = (d / f).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_plots_dir_that_is_a_file_is_refused(capsys, tmp_path):
    f = tmp_path / "x"
    f.write_text("")
    code, out, err = run(capsys, "utility", "--demo", "--plots", str(f))
    assert code == 2 and "is not a directory" in err
