"""The practice guide's workflow (examples/sdcpractice_workflow.py) natively, and against sdcMicro slot by slot.

The native run needs no R. Where R with sdcMicro is installed (live), ``SdcObj.from_problem`` applies the same
five steps in sdcMicro (createSdcObj, globalRecode, localSuppression, microaggregation, set.seed + pram, set.seed
+ addNoise) and the object's slots are compared with the problem's: manipKeyVars, manipNumVars, manipPramVars,
risk$global, risk$individual, the localSuppression counts and the utility slot.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._tolerances import tolerance_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sdcpractice_workflow.py"


@pytest.fixture(scope="module")
def example():
    return runpy.run_path(str(EXAMPLE), run_name="pysdc_example")


@pytest.fixture(scope="module")
def native(example):
    return example["native"](show=False)


def test_runs_natively_line_for_line(native, example):
    sdc = native["sdc"]
    assert [s.r for s in sdc.steps] == ["globalRecode", "localSuppression", "microaggregation", "pram", "addNoise"]
    assert native["undone"].steps == sdc.steps[:-1]
    # the original data is untouched; the masked file has the recoded age and is 3-anonymous
    assert native["original"].data["age"].dtype.kind in "iu"
    assert list(native["masked"]["age"].cat.categories)[-1] == "(75, Inf]"
    assert native["risk"].k_anonymity.loc[3, "unweighted"] == 0
    assert native["risk"].measure_risk.global_risk_er < native["original"].risk(suda=False).measure_risk.global_risk_er
    assert native["utility"].results["d_utility.IL1"] > 0


def _text(s: pd.Series) -> list:
    """Values as text, None for missing (a factor's labels; a number without a trailing .0)."""
    out = []
    for v in s.astype(object).tolist():
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            out.append(None)
        elif isinstance(v, float) and v.is_integer():
            out.append(str(int(v)))
        else:
            out.append(str(v))
    return out


def close(a, b, function, field):
    tol = tolerance_for(function, field)
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol.rtol, atol=tol.atol)


@pytest.mark.live
@pytest.mark.needs_r
def test_slot_by_slot_against_sdcmicro(example):
    res = example["through_sdcmicro"](show=False)
    sdc, r = res["sdc"], res["r"]
    keys, nums = example["KEY_VARS"], example["NUM_VARS"]
    # manipKeyVars: the same categories and the same suppressed cells
    mk = r.manip_key_vars
    for k in keys:
        assert _text(mk[k]) == _text(sdc.manip_data[k]), k
        if isinstance(mk[k].dtype, pd.CategoricalDtype):
            assert [str(c) for c in mk[k].cat.categories] == [str(c) for c in sdc.manip_data[k].cat.categories], k
    # manipNumVars: microaggregation (mdav) and addNoise on R's stream, to the last bit
    mn = r.manip_num_vars
    for v in nums:
        np.testing.assert_array_equal(mn[v].to_numpy(dtype=float), sdc.manip_data[v].to_numpy(dtype=float), err_msg=v)
    # manipPramVars: pram with set.seed(1)
    assert _text(r.manip_pram_vars["hsize"]) == _text(sdc.manip_data["hsize"])
    # localSuppression counts (slot localSuppression of the step's object)
    ls = r.local_suppression_info
    step = sdc.steps[1].result
    assert [int(v) for v in np.asarray(ls["supps"]).ravel()] == [int(v) for v in step.supps.iloc[-1]]
    assert [int(v) for v in np.asarray(ls["totalSupps"]).ravel()] == [int(v) for v in step.total_supps.iloc[-1]]
    assert int(ls["newSupps"]) == step.new_supps
    # risk$global and risk$individual of the manipulated key variables
    g, mr = r.risk["global"], sdc.risk(suda=False).measure_risk
    close(mr.global_risk_er, g["risk_ER"], "measure_risk", "global_risk_er")
    close(mr.global_risk, g["risk"], "measure_risk", "global_risk")
    close(mr.hier_risk_er, g["hier_risk_ER"], "measure_risk", "hier_risk_er")
    ind = r.risk["individual"]
    close(mr.individual["risk"], ind["risk"], "measure_risk", "individual")
    assert mr.individual["fk"].to_numpy(dtype=float).tolist() == ind["fk"].to_numpy(dtype=float).tolist()
    # the utility slot (dUtility of the original against the manipulated numeric variables)
    u, ru = sdc.utility(), r.utility
    close(u.results["d_utility.IL1"], ru["il1"], "d_utility", "IL1")
    close(u.results["d_utility.IL1s"], ru["il1s"], "d_utility", "IL1s")
    close(u.results["d_utility.eigen"], ru["eigen"], "d_utility", "eigen")
