"""globalRecode on a NUMERIC key variable of the problem object, as on sdcMicro 5.8.0's sdcMicroObj.

Observed in sdcMicro 5.8.0 (R 4.2.2): ``globalRecode(obj, column = "a", breaks = c(0, 5, 10))`` on a numeric (or
integer) key keeps the factor of cut's labels in the slot manipKeyVars (the risk is measured on it), but
``extractManipData`` gives the column back in its original class: the factor's CODES 1, 2, ... (also with
``labels = c("lo", "hi")``; values outside the breaks NA). pysdc's step gives the same by default with a warning
that says what the codes mean; ``recoded_as="labels"`` keeps the labels. The risk is the same either way.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import DegenerateResultWarning, InvalidParameterError


@pytest.fixture()
def data():
    """The case of the finding (n: any numeric variable; the values of a counted by hand below)."""
    return pd.DataFrame({"a": [1.0, 3, 4, 6, 2, 7, 8, 9], "b": pd.Categorical(list("xyxyxyxy")),
                         "n": [0.5, 1.5, -0.2, 2.0, 0.1, -1.0, 0.7, 1.1]})


def _fk(problem) -> list:
    return problem.risk(suda=False).measure_risk.individual["fk"].astype(int).tolist()


def test_default_is_extract_manip_datas_codes_with_a_warning(data):
    p = pysdc.SdcProblem(data, ["a", "b"], num_vars=["n"])
    with pytest.warns(DegenerateResultWarning, match=r"code i is the i-th interval \(1 = '\(0,5\]', 2 = '\(5,10\]'\)"):
        q = p.global_recode(column="a", breaks=[0, 5, 10])
    a = q.manip_data["a"]
    # by hand: 1,3,4,2 are in (0,5] -> code 1; 6,7,8,9 in (5,10] -> code 2; the original class numeric (float)
    assert a.dtype == np.float64 and a.tolist() == [1, 1, 1, 2, 1, 2, 2, 2]
    assert q.manip_key_vars["a"].astype(str).tolist() == ["(0,5]"] * 3 + ["(5,10]", "(0,5]"] + ["(5,10]"] * 3
    # by hand: groups (code, b): (1,x) rows 0,2,4 -> 3; (1,y) row 1 -> 1; (2,y) rows 3,5,7 -> 3; (2,x) row 6 -> 1
    assert _fk(q) == [3, 1, 3, 3, 3, 3, 1, 3]
    assert p.data["a"].tolist() == [1, 3, 4, 6, 2, 7, 8, 9]  # the original untouched
    # the R line of the step is sdcMicro's (recoded_as is pysdc's and changes nothing sdcMicro computes)
    assert q.steps[0].r_call() == 'sdc <- globalRecode(sdc, column = "a", breaks = c(0, 5, 10))'


def test_own_labels_are_lost_too(data):
    p = pysdc.SdcProblem(data, ["a", "b"])
    with pytest.warns(DegenerateResultWarning, match="1 = 'lo', 2 = 'hi'"):
        q = p.global_recode(column="a", breaks=[0, 5, 10], labels=["lo", "hi"])
    assert q.manip_data["a"].tolist() == [1, 1, 1, 2, 1, 2, 2, 2]


def test_recoded_as_labels_keeps_cuts_labels_without_warning(data):
    p = pysdc.SdcProblem(data, ["a", "b"], num_vars=["n"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateResultWarning)
        q = p.global_recode(column="a", breaks=[0, 5, 10], recoded_as="labels")
    a = q.manip_data["a"]
    assert isinstance(a.dtype, pd.CategoricalDtype) and list(a.cat.categories) == ["(0,5]", "(5,10]"]
    assert a.astype(str).tolist() == ["(0,5]"] * 3 + ["(5,10]", "(0,5]"] + ["(5,10]"] * 3
    assert _fk(q) == [3, 1, 3, 3, 3, 3, 1, 3]  # the same risk as with the codes
    assert q.steps[0].options == {"recoded_as": "labels"} and q.steps[0].to_dict()["options"] == {"recoded_as": "labels"}
    assert "recoded_as" not in q.steps[0].r_call()


def test_integer_key_out_of_range_is_na_and_later_steps_see_the_labels(data):
    d = data.assign(a=np.array([20, 3, 4, 6, 2, 7, 8, 9], dtype=np.int64))
    with pytest.warns(DegenerateResultWarning):
        q = pysdc.SdcProblem(d, ["a", "b"]).global_recode(column="a", breaks=[0, 5, 10])
    a = q.manip_data["a"]
    assert str(a.dtype) == "Int64" and a.isna().tolist() == [True] + [False] * 7  # 20 is outside the breaks
    assert a.dropna().tolist() == [1, 1, 2, 1, 2, 2, 2]
    # sdcMicro's next step works on manipKeyVars (the labels): groupAndRename by label, then codes again
    r = q.group_and_rename(var="a", before=["(0,5]", "(5,10]"], after="all")
    assert r.manip_key_vars["a"].astype(str).tolist()[1:] == ["all"] * 7
    assert r.manip_data["a"].dropna().tolist() == [1] * 7 and r.manip_data["a"].isna().sum() == 1
    assert r.undo_last() is q and q.manip_data["a"].dropna().tolist() == [1, 1, 2, 1, 2, 2, 2]


def test_a_categorical_key_or_a_bad_option_is_refused(data):
    p = pysdc.SdcProblem(data, ["a", "b"])
    with pytest.raises(InvalidParameterError, match="recoded_as must be one of"):
        p.global_recode(column="a", breaks=[0, 5, 10], recoded_as="factor")
    with pytest.raises(InvalidParameterError):
        p.global_recode(column="b", breaks=[0, 5, 10])  # sdcMicro: cut's 'x' must be numeric


@pytest.mark.live
@pytest.mark.needs_r
@pytest.mark.parametrize("dtype, labels", [("float64", None), ("float64", ["lo", "hi"]), ("int64", None)])
def test_against_sdcmicros_object(data, dtype, labels):
    import pysdc.r as pr

    d = data.assign(a=np.array([1, 3, 4, 6, 2, 7, 8, 12], dtype=dtype))  # 12: outside the breaks, NA
    p = pysdc.SdcProblem(d, ["a", "b"], num_vars=["n"])
    kw = {} if labels is None else {"labels": labels}
    with pytest.warns(DegenerateResultWarning):
        q = p.global_recode(column="a", breaks=[0, 5, 10], **kw)
    ql = p.global_recode(column="a", breaks=[0, 5, 10], recoded_as="labels", **kw)
    r = pr.SdcObj.from_problem(q)
    pd.testing.assert_series_equal(pr.SdcObj.from_problem(ql).manip_data["a"], r.manip_data["a"])  # pysdc's option
    # extractManipData: the codes in the original class
    ra = r.manip_data["a"]
    assert ra.isna().tolist() == q.manip_data["a"].isna().tolist()
    assert ra.dropna().tolist() == q.manip_data["a"].dropna().tolist()
    assert (ra.dtype.kind == "f") == (q.manip_data["a"].dtype.kind == "f")
    # slot manipKeyVars: the factor of labels, as the problem's manip_key_vars (and manip_data with "labels")
    mk = r.manip_key_vars["a"]
    assert [str(c) for c in mk.cat.categories] == [str(c) for c in q.manip_key_vars["a"].cat.categories]
    assert mk.astype(object).where(mk.notna(), None).tolist() == \
        q.manip_key_vars["a"].astype(object).where(q.manip_key_vars["a"].notna(), None).tolist() == \
        ql.manip_data["a"].astype(object).where(ql.manip_data["a"].notna(), None).tolist()
    # slot risk: the same frequencies with codes as with labels
    fk = r.risk["individual"]["fk"]
    assert np.asarray(fk, dtype=int).tolist() == _fk(q) == _fk(ql)


def test_the_other_recodings_of_a_numeric_key():
    """Observed in sdcMicro 5.8.0: topBotCoding keeps a numeric key numeric (fk as below, the NA key matching every
    value); groupAndRename on it stops ('unable to find an inherited method ... "numeric"'), and so does pysdc."""
    d = pd.DataFrame({"a": [1, 3, 4, 6, 2, 7, 8, 9, np.nan, 12], "b": pd.Categorical(list("xyxyxyxyxx"))})
    p = pysdc.SdcProblem(d, ["a", "b"])
    t = p.top_bot_coding(column="a", value=5, replacement=5, kind="top")
    assert t.manip_data["a"].dtype == np.float64
    assert t.manip_data["a"].fillna(-1).tolist() == [1, 3, 4, 5, 2, 5, 5, 5, -1, 5]
    # by hand: (5,y) rows 3,5,7 -> 3; (5,x) rows 6,9 + the NA of row 8 -> 3; (1|2|4,x) + row 8 -> 2; (3,y) -> 1;
    # row 8 (NA, x) matches every x: rows 0,2,4,6,8,9 -> 6
    assert _fk(t) == [2, 1, 2, 3, 2, 3, 3, 3, 6, 3]
    with pytest.raises(InvalidParameterError, match="categorical"):
        p.group_and_rename(var="a", before=[1, 3], after=[1])
