"""sdcMicro's ``kAnon`` as a problem step: ``SdcProblem.k_anon(...)``.

sdcMicro 5.8.0's ``kAnon(obj, k = 2, importance = NULL, combs = NULL, ...)`` has localSuppression's arguments (its Rd
documents it as an alias of localSuppression's) and its body calls ``localSuppression(obj = obj, k = k, importance =
importance, combs = combs, ...)`` (printed in R). So ``k_anon`` is an alias step: local suppression, recorded as
``kAnon`` and replayed by it on an sdcMicroObj.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import pysdc
import pysdc.r as pr
from pysdc._registry._exports import export_table
from pysdc._tolerances import tolerance_for
from pysdc.cli.protect import parse_recipe

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def problem():
    x, _ = pysdc.load_demo_pair()
    return pysdc.SdcProblem(x, KEYS, num_vars=NUMS, w="weight", hid="hid")


def test_k_anon_takes_local_suppressions_arguments(problem):
    a = inspect.signature(pysdc.SdcProblem.k_anon).parameters
    b = inspect.signature(pysdc.SdcProblem.local_suppression).parameters
    assert list(a) == list(b)
    assert [p.default for p in a.values()] == [p.default for p in b.values()]


def test_k_anon_is_local_suppression_recorded_as_kanon(problem):
    imp = [5, 4, 3, 2, 1]
    a = problem.k_anon(k=3, importance=imp)
    b = problem.local_suppression(k=3, importance=imp)
    for c in a.manip_data.columns:
        assert a.manip_data[c].equals(b.manip_data[c]), c
    assert a.steps[-1].result.supps.equals(b.steps[-1].result.supps)
    step = a.steps[-1]
    assert (step.method, step.r) == ("k_anon", "kAnon")
    assert step.r_call() == "sdc <- kAnon(sdc, k = 3, importance = c(5, 4, 3, 2, 1))"
    assert step.to_dict()["new_suppressions"] == b.steps[-1].to_dict()["new_suppressions"] > 0
    assert a.undo_last().manip_data.equals(problem.manip_data)


def test_recipe_takes_both_names():
    steps = parse_recipe({"steps": [{"method": "kAnon", "k": 3}, {"k_anon": {"k": 4}}]})
    assert [name for name, _ in steps] == ["k_anon", "k_anon"]


def test_export_table_lists_kanon_as_native():
    row = next(r for r in export_table(["kAnon"]))
    assert row["status"] == "native" and row["pysdc"] == "pysdc.SdcProblem.k_anon"


@pytest.mark.live
def test_from_problem_replays_kanon_with_sdcmicros_result(problem, monkeypatch):
    q = problem.k_anon(k=3, importance=[5, 4, 3, 2, 1])
    called, apply = [], pr.SdcObj.apply

    def recording(self, fun, *args, **kwargs):
        called.append(fun)
        return apply(self, fun, *args, **kwargs)

    monkeypatch.setattr(pr.SdcObj, "apply", recording)
    r = pr.SdcObj.from_problem(q)
    assert called == ["kAnon"]  # replayed by sdcMicro's kAnon
    mk = r.manip_key_vars
    for k in KEYS:
        assert mk[k].isna().tolist() == q.manip_data[k].isna().tolist(), k
        assert mk[k].astype(str).tolist() == q.manip_data[k].astype(str).tolist(), k
    assert int(r.local_suppression_info["newSupps"]) == q.steps[-1].result.new_supps > 0
    tol = tolerance_for("measure_risk", "global_risk_er")
    np.testing.assert_allclose(q.risk(suda=False).measure_risk.global_risk_er, r.risk["global"]["risk_ER"],
                               rtol=tol.rtol, atol=tol.atol)
