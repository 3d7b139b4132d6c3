"""A pysdc.r.SdcObj in place of a native measure's data: it stands for what sdcMicro's object stands for.

``measure_risk(sdc)`` in sdcMicro measures the object's current (manipulated) key variables, and
``dUtility(sdc)`` compares its original with its manipulated numeric variables; the native functions
given an SdcObj do the same. Needs R with sdcMicro (skipped with the reason where it is absent).
"""

from __future__ import annotations

import numpy as np
import pytest

import pysdc
from pysdc._tolerances import CLOSED_FORM

pytestmark = [pytest.mark.live, pytest.mark.needs_r]  # skipped with the reason by tests/conftest.py

KEYS = ["region", "urbrur", "sex", "age_group"]
NUMS = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def masked_obj():
    from pysdc.r import SdcObj

    x = pysdc.load_demo()
    sdc = SdcObj.create(x, KEYS, num_vars=NUMS, w="weight", hid="hid")
    return sdc.local_suppression(k=3).microaggregation(method="mdav", aggr=3, seed=1)


def test_measure_risk_of_an_sdcobj_is_that_of_its_manipulated_data(masked_obj):
    got = pysdc.measure_risk(masked_obj)
    ref = pysdc.measure_risk(masked_obj.manip_data, KEYS, w="weight", hid="hid")
    orig = pysdc.measure_risk(masked_obj.orig_data, KEYS, w="weight", hid="hid")
    np.testing.assert_allclose(got.global_risk, ref.global_risk, rtol=CLOSED_FORM.rtol)
    np.testing.assert_allclose(got.hier_risk, ref.hier_risk, rtol=CLOSED_FORM.rtol)
    assert got.global_risk != orig.global_risk  # suppression lowered the risk: the data really differ
    # and sdcMicro's own risk slot of the object says the same
    np.testing.assert_allclose(got.global_risk, masked_obj.risk["global"]["risk"], rtol=CLOSED_FORM.rtol)


def test_d_utility_of_an_sdcobj_compares_original_and_manipulated(masked_obj):
    got = pysdc.d_utility(masked_obj, method="IL1s")
    ref = pysdc.d_utility(masked_obj.orig_data[NUMS], masked_obj.manip_data[NUMS], method="IL1s")
    np.testing.assert_allclose(got, ref, rtol=CLOSED_FORM.rtol)
    assert got > 0
