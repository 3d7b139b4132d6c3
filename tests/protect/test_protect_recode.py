"""Recoding (issue 28, family 1): pysdc.protect against sdcMicro 5.8.0's stored outputs, and live.

Stored parity: every case of r_reference/outputs/{globalRecode,groupAndRename,topBotCoding,mvTopCoding}.json
(written by r_reference/generate_protect_recode.R from the case lists of make_cases_<function>.py) runs
through the native function: where sdcMicro returned data, the recoded column (class, levels, codes;
changed rows and their values) must be sdcMicro's and every other column unchanged; where sdcMicro
stopped, pysdc raises InvalidParameterError; where sdcMicro warned, pysdc warns. Live parity (marker
``live``): the bridge wrappers pysdc.r.<method> on the same cases, and the R defaults against formals().
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import METHODS, method_by_r_name
from pysdc.protect import global_recode, group_and_rename, mv_top_coding, top_bot_coding
from pysdc.protect._recode import cut_labels

from _methods import check_defaults_match_r_formals, check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"
#: this file's family; the other families of the registry have their own test files
RECODING = tuple(m for m in METHODS if m.family == "recoding")


CASES = stored_cases(ROOT, [m.r for m in RECODING])


def _check(fn, rname, case):
    check_stored_case(method_by_r_name(rname), fn, case, ROOT, expect_warned=True)


@pytest.mark.parametrize(("rname", "case"), CASES)
def test_stored_parity(rname, case):
    _check(method_by_r_name(rname).native, rname, case)


def test_corpus_covers_the_brief():
    ids = {c.values[1]["id"] for c in CASES}
    tags = {t for c in CASES for t in c.values[1]["tags"]}
    assert {"label-space", "on-break", "na", "many", "real", "error", "seeded", "jitter", "labels",
            "include-lowest", "inf", "ordered", "truncation"} <= tags
    assert len(ids) == len(CASES) >= 80


# =============================================================================
# what the corpus pins, written out


def test_cut_labels_space_before_inf_only_with_minus_inf():
    assert cut_labels(np.array([0, 10, 50000, np.inf])) == ["(0,10]", "(10,50000]", "(50000,Inf]"]
    assert cut_labels(np.array([-np.inf, 0, 50000, np.inf]))[-1] == "(50000, Inf]"
    assert cut_labels(np.array([0, 10, 10.0000000000001])) == ["Range_1", "Range_2"]
    assert cut_labels(np.array([-1.0, 0.0, 1.0]), include_lowest=True)[0] == "[-1,0]"


def test_values_on_a_break_fall_left_and_the_lowest_is_excluded():
    df = pd.DataFrame({"x": [0.0, 10.0, 10.5, 50.0]})
    out = global_recode(df, "x", [0, 10, 50])
    assert out["x"].tolist()[0] is np.nan or pd.isna(out["x"].tolist()[0])
    assert out["x"].tolist()[1:] == ["(0,10]", "(10,50]", "(10,50]"]


def test_labels_false_gives_int64_codes():
    out = global_recode(pd.DataFrame({"x": [1.0, 5.0, None]}), "x", [0, 2, 6], labels=False)
    assert str(out["x"].dtype) == "Int64" and out["x"].tolist()[:2] == [1, 2] and pd.isna(out["x"].iloc[2])


def test_invalid_arguments_are_refused():
    df = pd.DataFrame({"x": [1.0, 2.0], "f": pd.Categorical(["a", "b"])})
    for bad in (dict(breaks=[1.0, float("nan"), 3.0]), dict(breaks="3"), dict(breaks=[1, 2], labels=[1.5])):
        with pytest.raises(InvalidParameterError):
            global_recode(df, "x", **bad)
    with pytest.raises(InvalidParameterError, match="categorical"):
        global_recode(df, "f", 2)
    with pytest.raises(InvalidParameterError, match="kind"):
        top_bot_coding(df, "x", 1, 0, kind="Top")
    with pytest.raises(InvalidParameterError, match="categorical"):
        group_and_rename(df, "x", ["1"], "y")
    with pytest.raises(InvalidParameterError, match="center"):
        mv_top_coding(df[["x"]], maha=[1.0, 2.0])


def test_mv_top_coding_warns_about_arguments_sdcmicro_ignores():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    with pytest.warns(UserWarning, match="cov is ignored"):
        mv_top_coding(x, maha=np.ones(40), center=[0.0, 0.0], cov=np.eye(2))
    with pytest.warns(UserWarning, match="center is ignored"):
        mv_top_coding(x, center=[0.0, 0.0], random_state=1)


def _examples() -> dict:
    """A small valid call of every method (the invalid values below are generated from the declarations)."""
    df = pd.DataFrame({"x": [1.0, 5.0, 12.0, np.nan, 30.0, 2.0], "f": pd.Categorical(list("abcabc")),
                       "y": [2.0, 4.0, 13.0, 7.0, 29.0, 1.0]})
    return {
        "global_recode": dict(data=df, column="x", breaks=[0, 10, 40]),
        "group_and_rename": dict(data=df, var="f", before=["a"], after="z"),
        "top_bot_coding": dict(data=df, column="x", value=10.0, replacement=10.0),
        "mv_top_coding": dict(x=df[["x", "y"]], maha=np.arange(6.0), center=[1.0, 1.0]),
    }


def _invalid_calls():
    out = []
    for m in RECODING:
        ok = _examples()[m.python]
        for name, constraint in m.params.items():
            for bad in constraint.invalid_values(name, ok):
                out.append(pytest.param(m, name, bad, id=f"{m.python}-{name}-{bad!r}"[:80]))
    return out


@pytest.mark.parametrize("m", RECODING, ids=lambda m: m.python)
def test_examples_run_and_do_not_modify_their_input(m):
    ok = _examples()[m.python]
    frame = next(v for v in ok.values() if isinstance(v, pd.DataFrame))
    before = frame.copy(deep=True)
    out = m.native(**ok)
    assert isinstance(out, pd.DataFrame) and out is not frame
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(("m", "name", "bad"), _invalid_calls())
def test_declared_invalid_values_are_refused_natively_and_by_the_bridge(m, name, bad):
    from pysdc.r._methods import METHOD_WRAPPERS

    call = {**_examples()[m.python], name: bad}
    with pytest.raises(InvalidParameterError):
        m.native(**call)
    with pytest.raises(InvalidParameterError):  # validated before R starts
        METHOD_WRAPPERS[m.python](**call)


def test_global_recode_is_vectorised_at_scale():
    x = pd.DataFrame({"x": np.random.default_rng(0).lognormal(10, 1, 200_000)})
    out = global_recode(x, "x", 10)
    assert out["x"].cat.codes.min() == 0 and len(out["x"].cat.categories) == 10


# =============================================================================
# live: the bridge runs sdcMicro on the same cases; R's defaults


@pytest.mark.live
@pytest.mark.parametrize(("rname", "case"), [c for c in CASES if "real" not in c.values[1]["tags"]])
def test_live_bridge_parity(bridge, rname, case):
    m = method_by_r_name(rname)
    _check(getattr(bridge, m.python), rname, case)


@pytest.mark.live
@pytest.mark.parametrize("m", RECODING, ids=lambda m: m.python)
def test_defaults_match_r_formals(bridge, m):
    check_defaults_match_r_formals(bridge, m, check_bridge=True)
