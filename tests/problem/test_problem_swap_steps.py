"""Record swapping and rank swapping as steps of the problem object (``problem.record_swap(...)``,
``problem.rank_swap(...)``), replayed by pysdc.r.SdcObj.from_problem, in ``pysdc protect --recipe`` and the report."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import protect
from pysdc._errors import InvalidParameterError
from pysdc.cli import main
from pysdc.datasets import demo_path
from pysdc.io import read_table
from pysdc.problem._steps import STEP_METHODS

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]
SWAP = {"hierarchy": ["region"], "similar": ["hhsize"], "swaprate": 0.1, "risk_variables": ["urbrur", "sex"],
        "seed": 3}


@pytest.fixture(scope="module")
def problem():
    x, _ = pysdc.load_demo_pair()
    x = x.sample(frac=1, random_state=3)  # records not in household order: the step must put them back
    return pysdc.SdcProblem(x, KEYS, num_vars=NUMS, w="weight", hid="hid")


@pytest.fixture(scope="module")
def swapped(problem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return problem.record_swap(**SWAP)


def test_swapping_methods_are_problem_steps():
    assert {"record_swap", "rank_swap"} <= set(STEP_METHODS)
    import inspect

    params = inspect.signature(pysdc.SdcProblem.record_swap).parameters
    assert "hid" not in params and "data" not in params and "return_swapped_id" not in params
    assert "hierarchy" in params and "risk_variables" in params  # risk_variables: the key variables by default
    assert "variables" in inspect.signature(pysdc.SdcProblem.rank_swap).parameters


def test_record_swap_step_is_the_native_swap_in_the_problems_record_order(problem, swapped):
    step = swapped.steps[-1]
    assert step.method == "record_swap" and step.variables == ("region",) and step.remeasured == ("risk",)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = protect.record_swap(problem.manip_data, "hid", **SWAP)  # records ordered by household id
    m = swapped.manip_data
    assert list(m.index) == list(problem.manip_data.index)
    order = np.argsort(problem.manip_data["hid"].to_numpy(), kind="stable")
    assert m["region"].iloc[order].astype(str).tolist() == direct["region"].astype(str).tolist()
    changed = (m["region"].astype(str) != problem.manip_data["region"].astype(str)).to_numpy()
    assert 0 < changed.sum() < len(m)
    assert m.groupby("hid")["region"].nunique().max() == 1  # whole households move
    others = [c for c in m.columns if c != "region"]
    pd.testing.assert_frame_equal(m[others], problem.manip_data[others])
    assert swapped.data is problem.data and swapped.undo_last() is problem


def test_record_swap_step_remeasures_the_risk(problem, swapped):
    after = swapped.risk(suda=False).measure_risk.global_risk_er
    assert after == pysdc.measure_risk(swapped.manip_data, KEYS, w="weight", hid="hid").global_risk_er
    assert after != problem.risk(suda=False).measure_risk.global_risk_er


def test_record_swap_carry_along_moves_with_the_household(problem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = problem.record_swap(**SWAP, carry_along=["urbrur"])
    assert q.steps[-1].variables == ("region", "urbrur")
    m = q.manip_data
    assert (m["urbrur"].astype(str) != problem.manip_data["urbrur"].astype(str)).any()


def test_record_swap_step_refusals(problem):
    x, _ = pysdc.load_demo_pair()
    no_hid = pysdc.SdcProblem(x, KEYS, num_vars=NUMS, w="weight")
    with pytest.raises(InvalidParameterError, match="household id"):
        no_hid.record_swap(**SWAP)
    with pytest.raises(InvalidParameterError, match="not arguments of the step"):
        problem.record_swap(**SWAP, hid="hid")
    with pytest.raises(InvalidParameterError, match="income"):  # a numeric variable is not geography
        problem.record_swap(**{**SWAP, "hierarchy": ["income"]})


def test_rank_swap_step_on_the_numeric_variables(problem):
    q = problem.rank_swap(p=5, seed=2)
    step = q.steps[-1]
    assert step.variables == tuple(NUMS) and step.remeasured == ("numeric",)
    direct = protect.rank_swap(problem.manip_data, NUMS, p=5, seed=2)
    for v in NUMS:
        np.testing.assert_array_equal(q.manip_data[v].to_numpy(float), direct[v].to_numpy(float))
    assert step.r_call() == "sdc <- rankSwap(sdc, P = 0.05, seed = 2)"  # sdcMicro 5.8.0 reads P as a fraction
    one = problem.rank_swap(variables=["income"], r0=0.9, seed=1).steps[-1]
    assert one.variables == ("income",) and "R0 = 0.9" in one.r_call()


def test_r_calls_and_the_report(tmp_path, swapped):
    r = swapped.steps[-1].r_call()
    assert r.startswith("sdc <- recordSwap(sdc, hierarchy = c(\"region\"), similar = ") and "seed = 3" in r
    d = swapped.steps[-1].to_dict()
    assert d["sdcmicro"] == "recordSwap" and d["variables"] == ["region"] and d["arguments"]["seed"] == 3
    path = swapped.rank_swap(seed=1).report(path=tmp_path / "r.html", plots=False)
    text = path.read_text()
    assert 'id="steps"' in text and "recordSwap(sdc, hierarchy" in text and "rankSwap(sdc" in text


def test_protect_recipe_runs_the_swaps(tmp_path, capsys, problem):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"steps": [{"method": "recordSwap", **SWAP},
                                            {"rankSwap": {"variables": ["income"], "p": 5, "seed": 2}}]}))
    out = tmp_path / "p.parquet"
    code = main(["protect", str(demo_path()), "--keys", ",".join(KEYS), "--numeric", ",".join(NUMS), "--weight",
                 "weight", "--hid", "hid", "--recipe", str(recipe), "--output", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "sdc <- recordSwap(sdc, hierarchy" in stdout and "sdc <- rankSwap(sdc, variables = c(\"income\")" in stdout
    x = read_table(demo_path())
    p = pysdc.SdcProblem(x, KEYS, num_vars=NUMS, w="weight", hid="hid")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = p.record_swap(**SWAP).rank_swap(variables=["income"], p=5, seed=2).manip_data
    got = read_table(out)
    assert got["region"].astype(str).tolist() == want["region"].astype(str).tolist()
    np.testing.assert_array_equal(got["income"].to_numpy(float), want["income"].to_numpy(float))


# ------------------------------------------------------------------------------------------ live: sdcMicro


@pytest.mark.live
def test_from_problem_replays_the_swaps_with_sdcmicro(bridge, problem):
    """sdcMicro's recordSwap on the object's manipulated data (its own swaps for the seed: a listed divergence),
    back into manipKeyVars in the object's record order, then calcRisks; rankSwap on the object with P = p / 100."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = problem.record_swap(**SWAP).rank_swap(p=5, seed=2)
    obj = bridge.SdcObj.from_problem(q)
    mk = obj.manip_key_vars
    direct = bridge.record_swap(problem.manip_data, "hid", **SWAP)  # sdcMicro's, ordered by household id
    order = np.argsort(problem.manip_data["hid"].to_numpy(), kind="stable")
    assert mk["region"].iloc[order].astype(str).tolist() == direct["region"].astype(str).tolist()
    for k in KEYS[1:]:
        assert mk[k].astype(str).tolist() == problem.manip_data[k].astype(str).tolist(), k
    # the risk slot is sdcMicro's measure_risk of the swapped keys
    want = pysdc.measure_risk(problem.manip_data.assign(region=mk["region"].to_numpy()), KEYS, w="weight",
                              hid="hid").global_risk_er
    np.testing.assert_allclose(obj.risk["global"]["risk_ER"], want, rtol=1e-12)
    # rankSwap with an int seed: sdcMicro's own generator, which pysdc reproduces: the same values exactly
    _assert_num_vars_equal(obj, q, NUMS)


def _assert_num_vars_equal(obj, q, swapped):
    """sdcMicro's manipNumVars of the replayed object equal the problem's numeric variables value for value (the
    swapped ones changed by the step)."""
    got = obj.manip_num_vars
    assert list(got.columns) == NUMS and len(got) == len(q.manip_data)
    for v in NUMS:
        want = q.manip_data[v].to_numpy(dtype=np.float64, na_value=np.nan)
        np.testing.assert_array_equal(got[v].to_numpy(dtype=np.float64, na_value=np.nan), want, err_msg=v)
    before = q.undo_last().manip_data
    for v in swapped:
        assert (q.manip_data[v].to_numpy(float) != before[v].to_numpy(float)).any(), v


@pytest.mark.live
@pytest.mark.parametrize("kw", [
    {"variables": ["income", "savings"], "r0": 0.9, "top_percent": 2, "bottom_percent": 3, "seed": 0},
    {"variables": ["expenditure"], "p": 1, "top_percent": 0, "bottom_percent": 0, "seed": 2 ** 31 - 1},
    {"seed": 12345},
], ids=["r0-two-vars", "p-no-extremes-max-seed", "defaults"])
def test_from_problem_rank_swap_equals_the_step_exactly(bridge, problem, kw):
    """The problem's rank_swap step (native) and sdcMicro's rankSwap on the replayed SdcObj: the same values."""
    q = problem.rank_swap(**kw)
    _assert_num_vars_equal(bridge.SdcObj.from_problem(q), q, kw.get("variables", NUMS))


def test_from_problem_refuses_a_swap_of_non_key_columns(problem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = problem.record_swap(**{**SWAP, "hierarchy": ["region"]}, carry_along=["marital"])
    import pysdc.r

    with pytest.raises(InvalidParameterError, match="not all key variables"):
        pysdc.r.SdcObj.from_problem(q)


def test_from_problem_refuses_a_rank_swap_that_would_abort_r(problem):
    """sdcMicro 5.8.0's C++ aborted R when an extreme group is empty (n x percent / 100 < 1): refused before R."""
    q = problem.rank_swap(variables=["income"], bottom_percent=0.01, seed=1)  # natively: nothing grouped
    import pysdc.r

    with pytest.raises(InvalidParameterError, match="extreme"):
        pysdc.r.SdcObj.from_problem(q)
