"""topBotCoding on a key variable that is a factor in the object (recoded by globalRecode, or categorical from the
start), as sdcMicro 5.8.0 does it on an sdcMicroObj.

Observed with Rscript (demo data, keyVars region, sex, hhsize; globalRecode(hhsize, breaks = c(0, 2, 4, Inf))):
``topBotCoding(sdc, value = 2, replacement = 2, column = "hhsize")`` warns "'>' not meaningful for factors" and
"invalid factor level, NA generated" and returns the object with every slot identical but ``prev`` and ``set``
(manipKeyVars, origData and risk unchanged); ``kind = "bottom"`` and the never-recoded factor key ``region`` the
same. pysdc refused it (the data.frame method's stop on a factor); the step now gives sdcMicro's result with a
warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pysdc
import pysdc.r as pr
from pysdc._errors import DegenerateResultWarning
from pysdc._tolerances import tolerance_for

KEYS = ["region", "sex", "hhsize"]


@pytest.fixture(scope="module")
def recoded():
    x, _ = pysdc.load_demo_pair()
    p = pysdc.SdcProblem(x, KEYS, num_vars=["income"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)  # the codes of a recoded numeric key
        return p.global_recode(column="hhsize", breaks=[0, 2, 4, np.inf])


@pytest.mark.parametrize("column, kind", [("hhsize", "top"), ("hhsize", "bottom"), ("region", "top")])
def test_top_bot_coding_on_a_factor_key_changes_nothing_and_warns(recoded, column, kind):
    with pytest.warns(DegenerateResultWarning, match="not meaningful for factors"):
        q = recoded.top_bot_coding(column=column, value=2, replacement=2, kind=kind)
    for c in recoded.manip_data.columns:
        assert q.manip_data[c].equals(recoded.manip_data[c]), c
    assert q.manip_key_vars["hhsize"].equals(recoded.manip_key_vars["hhsize"])
    step = q.steps[-1]
    assert step.r == "topBotCoding" and step.variables == ()
    assert q.undo_last() is recoded
    assert q.risk(suda=False).measure_risk.global_risk_er == recoded.risk(suda=False).measure_risk.global_risk_er


def test_top_bot_coding_on_the_numbers_before_recoding_still_works():
    x, _ = pysdc.load_demo_pair()
    p = pysdc.SdcProblem(x, KEYS, num_vars=["income"])
    q = p.top_bot_coding(column="hhsize", value=6, replacement=6)
    assert int(q.manip_data["hhsize"].max()) == 6 and int(x["hhsize"].max()) > 6


@pytest.mark.live
def test_as_sdcmicros_object(recoded):
    with pytest.warns(DegenerateResultWarning):
        q = recoded.top_bot_coding(column="hhsize", value=2, replacement=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = pr.SdcObj.from_problem(q)
    r_warnings = " ".join(str(w.message) for w in caught if isinstance(w.message, pysdc.RWarning))
    assert "not meaningful for factors" in r_warnings  # sdcMicro's own warning, from R
    mk = r.manip_key_vars
    for k in KEYS:
        assert mk[k].astype(str).tolist() == q.manip_key_vars[k].astype(str).tolist(), k
    tol = tolerance_for("measure_risk", "global_risk_er")
    np.testing.assert_allclose(q.risk(suda=False).measure_risk.global_risk_er, r.risk["global"]["risk_ER"],
                               rtol=tol.rtol, atol=tol.atol)
