"""The documented sdcPractice workflow (examples/sdcpractice_bridge.py): both routes give the same numbers.

Route 1 runs the R script's steps through pysdc.r.SdcObj (every number sdcMicro's); route 2 states
the same specification natively (pysdc.SdcProblem) and measures the original and the masked file.
Needs R with sdcMicro (skipped with the reason where it is absent).
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pysdc
from pysdc._tolerances import tolerance_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sdcpractice_bridge.py"

pytestmark = [pytest.mark.live, pytest.mark.needs_r]  # skipped with the reason by tests/conftest.py


@pytest.fixture(scope="module")
def result():
    return runpy.run_path(str(EXAMPLE), run_name="pysdc_example")["main"](show=False)


def close(a, b, function, field):
    tol = tolerance_for(function, field)
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol.rtol, atol=tol.atol)


def _risk_equal(sdc, native):
    """sdcMicro's risk slot of an sdcMicroObj == pysdc.measure_risk on the same (manipulated) data."""
    g = sdc.risk["global"]
    mr = native.measure_risk
    close(mr.global_risk_er, g["risk_ER"], "measure_risk", "global_risk_er")
    close(mr.global_risk, g["risk"], "measure_risk", "global_risk")
    close(mr.global_risk_pct, g["risk_pct"], "measure_risk", "global_risk_pct")
    close(mr.hier_risk_er, g["hier_risk_ER"], "measure_risk", "hier_risk_er")
    close(mr.hier_risk, g["hier_risk"], "measure_risk", "hier_risk")
    ind = sdc.risk["individual"]
    close(mr.individual["risk"], ind["risk"], "measure_risk", "individual")
    assert mr.individual["fk"].to_numpy(dtype=float).tolist() == ind["fk"].to_numpy(dtype=float).tolist()
    close(mr.individual["Fk"], ind["Fk"], "measure_risk", "Fk")


def test_risk_of_the_original_equal(result):
    _risk_equal(result["original"], result["risk_before"])


def test_risk_after_local_suppression_equal(result):
    # the suppressed key variables (with NA) measured natively == sdcMicro's risk slot
    native = result["problem"].risk(data=result["suppressed"].manip_data, suda=False)
    _risk_equal(result["suppressed"], native)
    # microaggregation changes numeric variables only: the categorical risk stays
    _risk_equal(result["masked"], result["risk_after"])


def test_utility_of_the_masked_file_equal(result):
    u = result["utility"]
    r = result["masked"].utility
    close(float(u["d_utility.IL1"]), r["il1"], "d_utility", "IL1")
    close(float(u["d_utility.IL1s"]), r["il1s"], "d_utility", "IL1s")
    close(float(u["d_utility.eigen"]), r["eigen"], "d_utility", "eigen")
    # and the masked file is what the R route produced
    assert result["masked_data"].shape == result["data"].shape
    assert (result["masked_data"]["income"] != result["data"]["income"]).any()


def test_native_problem_from_the_sdcobj(result):
    p = result["original"].to_problem()
    assert isinstance(p, pysdc.SdcProblem)
    assert p.specification == result["problem"].specification
    # native functions take the SdcObj in place of the data, with its specification
    mr = pysdc.measure_risk(result["original"])
    close(mr.global_risk_er, result["risk_before"].measure_risk.global_risk_er, "measure_risk", "global_risk_er")


def test_the_example_runs_as_a_script():
    res = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "Risk measures:" in res.stdout and "Local suppression:" in res.stdout
    assert "Numerical key variables: expend, income, savings" in res.stdout
