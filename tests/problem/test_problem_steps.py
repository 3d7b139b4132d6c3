"""The problem object as sdcMicro's sdcMicroObj: protection steps, history, undo, re-measured risk and utility."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r as pr
from pysdc import protect
from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc._registry._methods import METHODS, STEP_ALIASES
from pysdc._tolerances import tolerance_for
from pysdc.problem._steps import STEP_METHODS, bind_step

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def problem():
    x, _ = pysdc.load_demo_pair()
    return pysdc.SdcProblem(x, KEYS, num_vars=NUMS, w="weight", hid="hid")


@pytest.fixture(scope="module")
def suppressed(problem):
    return problem.local_suppression(k=3)


def test_every_registry_method_with_roles_is_a_problem_method():
    with_roles = {m.python for m in METHODS if m.roles is not None}
    assert with_roles | set(STEP_ALIASES) == set(STEP_METHODS)  # and sdcMicro's other names (kAnon)
    assert {"global_recode", "group_and_rename", "top_bot_coding", "local_suppression", "local_supp",
            "microaggregation", "add_noise", "pram"} <= with_roles
    for name in with_roles:
        assert callable(getattr(pysdc.SdcProblem, name))
    # the data and what the problem gives are not arguments of the step
    params = inspect.signature(pysdc.SdcProblem.local_suppression).parameters
    assert "data" not in params and "key_vars" not in params and "k" in params


def test_step_returns_a_new_problem_and_keeps_the_original(problem, suppressed):
    assert suppressed is not problem
    assert problem.steps == [] and problem.manip_data is problem.sdc_data
    assert suppressed.data is problem.data  # origData unchanged
    assert [s.method for s in suppressed.steps] == ["local_suppression"]
    assert suppressed.steps[0].arguments == {"k": 3}
    # the manipulated key variables are localSuppression's on the whole key set (sdcMicro's object method)
    direct = protect.local_suppression(problem.sdc_data, KEYS, k=3, alpha=1.0)
    pd.testing.assert_frame_equal(suppressed.manip_data[KEYS], direct.data[KEYS], check_dtype=False)
    assert direct.new_supps > 0
    # every other column untouched
    others = [c for c in problem.data.columns if c not in KEYS]
    pd.testing.assert_frame_equal(suppressed.manip_data[others], problem.data[others])


def test_undo_last(problem, suppressed):
    ma = suppressed.microaggregation(aggr=3)
    assert ma.undo_last() is suppressed
    assert ma.undo_last().undo_last() is problem
    with pytest.raises(InvalidParameterError, match="nothing to undo"):
        problem.undo_last()


def test_risk_is_remeasured_on_the_manipulated_data(problem, suppressed):
    after = suppressed.risk(suda=False).measure_risk
    expect = pysdc.measure_risk(suppressed.manip_data, KEYS, w="weight", hid="hid")
    assert after.global_risk_er == expect.global_risk_er
    before = suppressed.risk(suda=False, data="original").measure_risk
    assert before.global_risk_er == problem.risk(suda=False).measure_risk.global_risk_er
    assert after.global_risk_er < before.global_risk_er
    k3 = suppressed.risk(suda=False).k_anonymity.loc[3, "unweighted"]
    assert k3 == 0  # 3-anonymity reached


def test_utility_without_masked_compares_original_and_manipulated(suppressed):
    ma = suppressed.microaggregation(aggr=3)
    u = ma.utility()
    direct = pysdc.d_utility(ma.data[NUMS], ma.manip_data[NUMS], method="IL1")
    assert u.results["d_utility.IL1"] == direct
    assert direct > 0
    # microaggregation on the object: the numeric key variables by default, as sdcMicro's method
    assert ma.steps[-1].variables == tuple(NUMS) and ma.steps[-1].remeasured == ("numeric",)
    mx = protect.microaggregation(suppressed.manip_data, NUMS, aggr=3).mx
    np.testing.assert_array_equal(ma.manip_data[NUMS].to_numpy(), mx[NUMS].to_numpy())


def test_add_noise_on_one_variable_is_sdcmicros_cbind_zero(problem):
    # sdcMicro's addNoise on an object with one variable: addNoiseWORK(cbind(0, x)) -- the column of zeros
    # is drawn first (its sd is 0: rnorm draws nothing for it), so the noise is that of the variable alone
    one = problem.add_noise(variables="income", noise=50, random_state=3)
    alone = protect.add_noise(problem.data, ["income"], noise=50, random_state=3).xm["income"]
    np.testing.assert_array_equal(one.manip_data["income"].to_numpy(), alone.to_numpy())
    assert (one.manip_data["income"] != problem.data["income"]).any()


def test_global_recode_and_group_and_rename_on_keys():
    x, _ = pysdc.load_demo_pair()
    x = x.assign(age=np.arange(len(x)) % 90)
    p = pysdc.SdcProblem(x, ["region", "sex", "age"], w="weight")
    with pytest.warns(DegenerateResultWarning, match="CODES"):  # a numeric key: extractManipData has the codes
        q = p.global_recode(column="age", breaks=[-np.inf, 30, 60, np.inf])
    assert list(q.manip_key_vars["age"].cat.categories) == ["(-Inf,30]", "(30,60]", "(60, Inf]"]
    assert q.steps[0].r_call() == 'sdc <- globalRecode(sdc, column = "age", breaks = c(-Inf, 30, 60, Inf))'
    lv = list(x["region"].cat.categories)
    r = q.group_and_rename(var="region", before=lv[:2], after="joined")
    assert "joined" in list(r.manip_data["region"].cat.categories)
    assert r.risk(suda=False).measure_risk.global_risk_er < p.risk(suda=False).measure_risk.global_risk_er


def test_refusals(problem, suppressed):
    with pytest.raises(InvalidParameterError, match="key variable"):
        problem.global_recode(column="income", breaks=3)  # a numeric variable: sdcMicro's 'not a valid key'
    with pytest.raises(InvalidParameterError, match="origData"):
        problem.top_bot_coding(column="hhsize", value=5, replacement=5)  # in no role
    with pytest.raises(InvalidParameterError, match="problem gives them"):
        problem.local_suppression(key_vars=["region"], k=2)
    with pytest.raises(InvalidParameterError, match="unexpected keyword"):
        problem.local_suppression(kk=3)
    with pytest.raises(InvalidParameterError, match="unknown protection method"):
        bind_step("shuffle")  # no sdcMicroObj step in pysdc (shuffle has no roles)
    with pytest.raises(InvalidParameterError, match="PRAM variables"):
        problem.pram()
    p1 = problem.pram(variables="marital", random_state=1)
    with pytest.raises(InvalidParameterError, match="already applied"):
        p1.pram(variables="marital", random_state=2)


def test_top_bot_coding_on_numeric_and_local_supp(problem):
    t = problem.top_bot_coding(column="income", value=5000, replacement=5000)
    assert t.manip_data["income"].max() == 5000 and t.steps[0].remeasured == ("numeric",)
    s = problem.local_supp(key_var="region", threshold=0.1)
    risk = pysdc.measure_risk(problem.sdc_data, KEYS, w="weight", hid="hid").individual["risk"].to_numpy()
    assert (s.manip_data["region"].isna().to_numpy() == (risk > 0.1) | problem.data["region"].isna().to_numpy()).all()


def test_report_shows_the_steps(tmp_path, suppressed):
    path = suppressed.microaggregation(aggr=3).report(path=tmp_path / "r.html", plots=False)
    text = path.read_text()
    assert 'id="steps"' in text and "localSuppression(sdc, k = 3)" in text and "microaggregation" in text


def test_measures_take_a_protected_problem_as_sdcmicro_takes_its_object(problem, suppressed):
    # measure_risk(sdc) measures the object's manipulated data; dUtility(sdc) the original against it
    ma = suppressed.microaggregation(aggr=3)
    assert pysdc.measure_risk(ma).global_risk_er == ma.risk(suda=False).measure_risk.global_risk_er
    assert pysdc.measure_risk(ma).global_risk_er != pysdc.measure_risk(problem).global_risk_er
    assert pysdc.d_utility(ma, method="IL1") == pysdc.d_utility(ma.data[NUMS], ma.manip_data[NUMS], method="IL1")


def test_from_problem_refuses_a_step_sdcmicro_cannot_carry(problem):
    with pytest.raises(InvalidParameterError, match="no sdcMicroObj method"):
        pr.SdcObj.from_problem(problem.mv_top_coding(random_state=1))


@pytest.mark.live
@pytest.mark.needs_r
def test_steps_through_sdcmicro_give_the_same_object(problem):
    """groupAndRename, topBotCoding (top and bottom), localSupp and mafast on the object, in sdcMicro and natively."""
    lv = list(problem.data["region"].cat.categories)
    q = (problem.group_and_rename(var="region", before=lv[:3], after="R123")
         .top_bot_coding(column="income", value=8000, replacement=8000)
         .top_bot_coding(column="savings", value=0, replacement=0, kind="bottom")
         .local_supp(key_var="education", threshold=0.05)
         .mafast(aggr=4))
    r = pr.SdcObj.from_problem(q)
    mk, mn = r.manip_key_vars, r.manip_num_vars
    for k in KEYS:
        assert list(mk[k].cat.categories) == list(q.manip_data[k].cat.categories), k
        assert mk[k].isna().tolist() == q.manip_data[k].isna().tolist(), k
        assert mk[k].astype(str).tolist() == q.manip_data[k].astype(str).tolist(), k
    for v in NUMS:
        np.testing.assert_array_equal(mn[v].to_numpy(float), q.manip_data[v].to_numpy(float), err_msg=v)
    assert int(r.local_suppression_info["newSupps"]) == q.steps[3].result.new_supps > 0
    tol = tolerance_for("measure_risk", "global_risk_er")
    np.testing.assert_allclose(q.risk(suda=False).measure_risk.global_risk_er, r.risk["global"]["risk_ER"],
                               rtol=tol.rtol, atol=tol.atol)
    # and back: the original data holding sdcMicro's manipulated data
    back = r.to_problem(data="protected")
    assert set(back.steps[0].variables) == {"region", "education", "income", "savings", "expenditure"}
    np.testing.assert_allclose(back.risk(suda=False).measure_risk.global_risk_er, r.risk["global"]["risk_ER"],
                               rtol=tol.rtol, atol=tol.atol)
    np.testing.assert_allclose(back.utility().results["d_utility.IL1"], r.utility["il1"],
                               rtol=tolerance_for("d_utility", "IL1").rtol)
