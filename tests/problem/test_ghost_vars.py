"""Ghost variables (sdcMicro's ``ghostVars`` / ``addGhostVars``) in the problem object, natively and against sdcMicro.

sdcMicro 5.8.0, observed with Rscript: after localSuppression or localSupp on an sdcMicroObj, every ghost variable
is NA in each record where its key variable is NA in the manipulated data (suppressed by this step or an earlier
one, or missing from the start), whichever key the step suppressed; addGhostVars after a suppression does not
change the manipulated data until the next suppression.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r as pr
from pysdc._errors import InvalidParameterError
from pysdc._registry._exports import NATIVE, NOT_NATIVE


@pytest.fixture
def small():
    # a: "z" (row 6) is rare, row 7 is missing (sdcMicro's k-anonymity counts a missing value as any value, so
    # "z" occurs twice and the missing one eight times)
    return pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y", "z", None], "b": list("pppppqpp"),
                         "g1": [1, 2, 3, 4, 5, 6, 7, 8], "g2": list("stuvwxyz"), "g3": [1.0, 2, 3, 4, 5, 6, 7, 8],
                         "n": [1.0, 2, 3, 4, 5, 6, 7, 8], "w": [1.0] * 8})


def _na(s) -> list:
    return pd.Series(s).isna().tolist()


def test_local_suppression_sets_the_ghosts_missing_where_the_key_is(small):
    p = pysdc.SdcProblem(small, ["a"], ghost_vars={"a": ["g1", "g2"]})
    q = p.local_suppression(k=3)
    m = q.manip_data
    # row 6 ("z", twice with the missing one) is suppressed; row 7 was missing from the start: both lose their ghosts
    expected = [False] * 6 + [True, True]
    assert _na(m["a"]) == expected
    assert _na(m["g1"]) == _na(m["g2"]) == expected
    assert m["g1"].tolist()[:6] == [1, 2, 3, 4, 5, 6] and m["g2"].tolist()[:6] == list("stuvwx")
    assert str(m["g1"].dtype) == "Int64"  # an R integer with NA, not floats
    assert q.steps[-1].variables == ("a", "g1", "g2") and q.steps[-1].roles == ("key", "ghost", "ghost")
    assert small["g1"].notna().all() and p.manip_data["g1"].notna().all()  # neither the input nor the problem


def test_local_supp_on_one_key_applies_every_link(small):
    p = pysdc.SdcProblem(small, ["a", "b"], ghost_vars=[["a", ["g1"]], ["b", "g3"]])  # sdcMicro's structure
    q = p.local_supp(key_var="b", threshold=0.4)
    m = q.manip_data
    assert m["b"].isna().any() and m["a"].isna().sum() == 1  # b suppressed, a untouched
    assert _na(m["g3"]) == _na(m["b"])
    assert _na(m["g1"]) == [False] * 7 + [True]  # a's ghost: where a is missing (row 7), though b was suppressed


def test_without_ghosts_nothing_else_changes(small):
    q = pysdc.SdcProblem(small, ["a"]).local_suppression(k=3)
    assert not q.manip_data[["g1", "g2", "g3"]].isna().any().any()
    assert q.steps[-1].variables == ("a",)


def test_add_ghost_vars_links_from_the_next_suppression_on(small):
    p = pysdc.SdcProblem(small, ["a", "b"], ghost_vars={"a": "g1"})
    q = p.local_suppression(k=3).add_ghost_vars("b", ["g3"])
    assert q.ghost_vars == {"a": ["g1"], "b": ["g3"]} and p.ghost_vars == {"a": ["g1"]}
    assert q.manip_data["b"].isna().any() and not q.manip_data["g3"].isna().any()  # not carried back
    r = q.local_supp(key_var="a", threshold=0.4)
    assert _na(r.manip_data["g3"]) == _na(r.manip_data["b"])
    assert r.undo_last() is q and len(q.steps) == 1


def test_only_suppression_moves_the_ghosts():
    """globalRecode's NAs (values outside the breaks) leave the ghosts alone; the next suppression takes them too."""
    d = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7, 8], "b": pd.Categorical(list("pppppqpp")), "g1": range(1, 9)})
    p = pysdc.SdcProblem(d, ["a", "b"], ghost_vars={"a": "g1"}).global_recode(column="a", breaks=[2, 5, 8])
    assert _na(p.manip_data["a"]) == [True, True] + [False] * 6 and not p.manip_data["g1"].isna().any()
    q = p.local_suppression(k=2)  # sdcMicro: b suppressed in row 5; g1 NA in rows 0 and 1
    assert _na(q.manip_data["b"]) == [False] * 5 + [True, False, False]
    assert _na(q.manip_data["g1"]) == [True, True] + [False] * 6


@pytest.mark.parametrize("ghosts, match", [
    ({"zz": ["g1"]}, "'zz' is not a column of data"),
    ({"a": ["zz"]}, "valid column-names"),
    ({"a": ["b"]}, "'b' is a key variable"),
    ({"g1": ["g2"]}, "not a categorical key variable"),
    ({"a": ["n"]}, "'n' is in num_vars"),
    ({"a": ["w"]}, "'w' is in w"),
    ({"a": ["g1", "g1"]}, "more than once"),
    ([["a", "g1"], ["b", "g1"]], "already a ghost variable of 'a'"),
    ([["a"]], "pair"),
    ([[["a", "b"], "g1"]], "only one"),
    ("a", "must be a dict"),
])
def test_bad_ghost_vars_are_refused(small, ghosts, match):
    with pytest.raises(InvalidParameterError, match=match):
        pysdc.SdcProblem(small, ["a", "b"], num_vars=["n"], w="w", ghost_vars=ghosts)


def test_add_ghost_vars_refuses_a_second_link(small):
    p = pysdc.SdcProblem(small, ["a", "b"], ghost_vars={"a": "g1"})
    with pytest.raises(InvalidParameterError, match="already a ghost"):
        p.add_ghost_vars("b", "g1")
    with pytest.raises(InvalidParameterError, match="key variable"):
        p.add_ghost_vars("b", "a")


def test_with_data_keeps_the_links(small):
    p = pysdc.SdcProblem(small, ["a"], ghost_vars={"a": ["g1"]})
    assert p.with_data(small).ghost_vars == {"a": ["g1"]}


def test_add_ghost_vars_is_native_in_the_export_table():
    assert NATIVE["addGhostVars"] == "pysdc.SdcProblem.add_ghost_vars" and "addGhostVars" not in NOT_NATIVE


# ----------------------------------------------------------------------------- against sdcMicro

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
GHOSTS = {"education": ["marital", "hhsize"], "age_group": ["health_status"]}


def _same(a: pd.Series, b: pd.Series, name: str) -> None:
    assert _na(a) == _na(b), name
    keep = ~a.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(a.dtype) and not isinstance(a.dtype, pd.CategoricalDtype):
        np.testing.assert_array_equal(a[keep].to_numpy(float), b[keep].to_numpy(float), err_msg=name)
    else:
        assert a[keep].astype(str).tolist() == b[keep].astype(str).tolist(), name


@pytest.mark.live
@pytest.mark.needs_r
def test_create_sdc_obj_with_ghost_vars_and_local_suppression_as_sdcmicro():
    x, _ = pysdc.load_demo_pair()
    r = pr.SdcObj.create(x, KEYS, w="weight",
                         ghostVars=[["education", ["marital", "hhsize"]], ["age_group", ["health_status"]]])
    assert r.ghost_vars == GHOSTS
    rm = r.local_suppression(k=3).manip_data
    q = pysdc.SdcProblem(x, KEYS, w="weight", ghost_vars=GHOSTS).local_suppression(k=3)
    for c in x.columns:
        _same(rm[c], q.manip_data[c], c)
    assert rm["marital"].isna().sum() > x["marital"].isna().sum()  # the ghosts did change
    assert rm["health_status"].isna().any() and rm["hhsize"].isna().any()


@pytest.mark.live
@pytest.mark.needs_r
def test_from_problem_carries_the_links_and_their_time():
    x, _ = pysdc.load_demo_pair()
    p = pysdc.SdcProblem(x, KEYS, w="weight", ghost_vars={"education": ["marital"]})
    q = p.local_suppression(k=3).add_ghost_vars("region", ["hhsize"]).local_supp(key_var="age_group",
                                                                                  threshold=0.05)
    r = pr.SdcObj.from_problem(q)
    assert r.ghost_vars == {"education": ["marital"], "region": ["hhsize"]}
    rm = r.manip_data
    for c in x.columns:
        _same(rm[c], q.manip_data[c], c)
    assert rm["hhsize"].isna().any()
    back = r.to_problem(data="protected")
    assert back.ghost_vars == q.ghost_vars
    # a link made after the last suppression: sdcMicro does not carry it back either
    s = p.local_suppression(k=3).add_ghost_vars("region", ["hhsize"])
    rs = pr.SdcObj.from_problem(s).manip_data
    assert not rs["hhsize"].isna().any() and not s.manip_data["hhsize"].isna().any()
