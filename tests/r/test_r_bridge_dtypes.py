"""Round trips keep pandas dtypes: a frame sent to R and back has the dtypes it had.

R has one integer, double, logical and character type; the bridge remembers each column's dtype
on the way out (pysdc.r._convert_memo.DtypeMemo) and gives it back where R kept the type. Needs R and
rpy2 only (runs in CI).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

import pysdc.r as pr

pytestmark = pytest.mark.needs_r  # skipped with the reason by tests/conftest.py


def rfun(code):
    return pr.call("eval", pr.call("parse", text=code, package="base", as_robject=True), package="base",
                   as_robject=True)


def in_r(code, df):
    """``(function(d) <code>)(df)`` evaluated in R, converted back."""
    return pr.call("do.call", rfun(f"function(d) {code}"), pr.call("list", df, package="base", as_robject=True),
                   package="base")


STAMPS = ["2020-01-01T00:00:00", None, "2021-06-30T12:00:00", "1999-12-31T00:00:00"]


def _columns():
    cols = {
        "Int64": pd.array([1, None, 3, 4], dtype="Int64"),
        "Int64_full": pd.array([1, 2, 3, 4], dtype="Int64"),
        "Int32": pd.array([1, 2, None, -4], dtype="Int32"),
        "UInt8": pd.array([1, 2, 255, None], dtype="UInt8"),
        "int32": np.array([1, 2, 3, -4], dtype=np.int32),
        "int16": np.array([1, 2, 3, -4], dtype=np.int16),
        "uint8": np.array([1, 2, 3, 200], dtype=np.uint8),
        "int64": np.array([1, 2, 3, 4], dtype=np.int64),
        "boolean": pd.array([True, None, False, True], dtype="boolean"),
        "boolean_full": pd.array([True, False, False, True], dtype="boolean"),
        "bool": np.array([True, False, False, True]),
        "float32": np.array([1.5, np.nan, 3.25, 4.0], dtype=np.float32),
        "Float64": pd.array([1.5, None, 3.25, 4.0], dtype="Float64"),
        "Float32": pd.array([1.5, None, 3.25, 4.0], dtype="Float32"),
        "float64": np.array([1.5, np.nan, 3.25, 4.0]),
        "string": pd.array(["a", None, "c", "a"], dtype="string"),
        "str": pd.Series(["a", None, "c", "a"], dtype="str").array,
        "object": np.array(["a", None, "c", "a"], dtype=object),
        "category": pd.Categorical(["x", "y", None, "x"]),
        "category_string": pd.Categorical(pd.array(["x", "y", None, "x"], dtype="string")),
        "category_int": pd.Categorical([3, 1, None, 3]),
        "category_float": pd.Categorical([1.5, 2.0, 1.5, None]),
        "ordered": pd.Categorical(["lo", "hi", "mid", None], categories=["lo", "mid", "hi"], ordered=True),
        "datetime_s": pd.to_datetime(STAMPS).as_unit("s").array,
        "datetime_ns": pd.to_datetime(STAMPS).as_unit("ns").array,
        "datetime_tz": pd.to_datetime(STAMPS)
        .tz_localize("Europe/Vienna").array,
        "datetime_utc": pd.to_datetime(STAMPS).tz_localize("UTC").array,
    }
    if importlib.util.find_spec("pyarrow") is not None:  # the test command installs it; pandas needs it for this dtype
        cols["string_pyarrow"] = pd.array(["a", None, "c", "a"], dtype="string[pyarrow]")
    return cols


@pytest.mark.parametrize("name", list(_columns()))
def test_each_dtype_survives_a_round_trip(name):
    df = pd.DataFrame({name: _columns()[name]})
    back = pr.call("identity", df, package="base")
    pd.testing.assert_frame_equal(back, df)


@pytest.mark.parametrize("index", [pd.RangeIndex(4), pd.Index([10, 20, 30, 40]), pd.Index(["a", "b", "c", "d"])],
                         ids=["range", "int", "str"])
def test_whole_frame_and_its_index_survive(index):
    df = pd.DataFrame(_columns(), index=index)
    back = pr.call("identity", df, package="base")
    pd.testing.assert_frame_equal(back, df)
    # also inside a list that comes back as a dict, and from a data.frame R rebuilt column by column
    assert pr.call("list", a=df, package="base")["a"].dtypes.equals(df.dtypes)
    rebuilt = in_r("data.frame(d[rev(names(d))], check.names = FALSE)", df)
    assert rebuilt.dtypes.equals(df.dtypes[::-1])


def test_r_introduced_missing_values_use_the_nullable_dtype():
    df = pd.DataFrame({"i": np.array([1, 2, 3], dtype=np.int64), "u": np.array([1, 2, 3], dtype=np.uint8),
                       "b": np.array([True, False, True])})
    back = in_r("{ d[2, ] <- NA; d }", df)
    assert back["i"].dtype == "Int64" and back["i"].isna().tolist() == [False, True, False]
    assert back["u"].dtype == "UInt8"
    assert back["b"].dtype == "boolean"


def test_values_r_changed_keep_r_s_type_where_the_dtype_cannot_hold_them():
    df = pd.DataFrame({"n": pd.array([1, 2, 4], dtype="Int64"), "w": np.array([1, 2, 4], dtype=np.int32)})
    # R's mean makes doubles: fractional values stay float64, whole ones go back to the remembered dtype
    back = in_r("data.frame(n = d$n / 2, w = d$w * 1.0)", df)
    assert back["n"].dtype == np.float64 and back["n"].tolist() == [0.5, 1.0, 2.0]
    assert back["w"].dtype == np.int32 and back["w"].tolist() == [1, 2, 4]
    # out of range for the remembered dtype: R's type kept
    small = pd.DataFrame({"u": np.array([1, 2], dtype=np.uint8)})
    assert in_r("data.frame(u = d$u + 300L)", small)["u"].dtype == np.int64
    # a factor that R turned into text is text
    cat = pd.DataFrame({"c": pd.Categorical(["a", "b"])})
    assert in_r("data.frame(c = as.character(d$c))", cat)["c"].dtype != "category"


def test_categories_r_changed_are_converted_to_the_original_category_dtype():
    df = pd.DataFrame({"age": pd.Categorical([30, 40, 50, 40]), "s": pd.Categorical(pd.array(
        ["a", "b", "c", "b"], dtype="string"))})
    back = in_r("{ d$age <- factor(d$age, levels = c('50', '40', '30', '20')); d$s <- droplevels(d$s[1:4]); "
                "d$s[1] <- 'b'; d }", df)
    assert list(back["age"].cat.categories) == [50, 40, 30, 20]
    assert back["age"].cat.categories.dtype == df["age"].cat.categories.dtype
    assert back["age"].tolist() == [30, 40, 50, 40]
    assert back["s"].cat.categories.dtype == "string"
    assert back["s"].tolist() == ["b", "b", "c", "b"]
    # R's levels that do not parse as the original categories' dtype: R's text
    odd = in_r("{ levels(d$age) <- c('thirty', 'forty', 'fifty'); d }", df[["age"]])
    assert list(odd["age"].cat.categories) == ["thirty", "forty", "fifty"]


def test_frames_made_in_r_use_the_default_conversion():
    df = pd.DataFrame({"a": pd.array([1, 2], dtype="Int32")})
    made = in_r("data.frame(b = d$a)", df)  # a column the call did not send
    assert made["b"].dtype == np.int64
    alone = pr.call("data.frame", b=[1, 2], package="base")
    assert alone["b"].dtype == np.int64


def test_handles_remember_the_dtypes_of_their_call():
    df = pd.DataFrame({"k": pd.array([1, 2, None], dtype="Int16"), "s": pd.array(["a", "b", "c"], dtype="string")})
    handle = pr.call("list", data=df, package="base", as_robject=True)
    back = handle["data"]
    assert back.dtypes.equals(df.dtypes)
    # and pass it on: the next call's result gets them too
    again = pr.call("identity", handle, package="base")
    assert again["data"].dtypes.equals(df.dtypes)


# ---------------------------------------------------------------- random frames
_MAKERS = {
    "Int64": lambda v, na: pd.array([None if m else int(x) for x, m in zip(v, na)], dtype="Int64"),
    "Int16": lambda v, na: pd.array([None if m else int(x) % 30000 for x, m in zip(v, na)], dtype="Int16"),
    "int64": lambda v, na: np.asarray(v, dtype=np.int64),
    "int32": lambda v, na: np.asarray(v, dtype=np.int32),
    "boolean": lambda v, na: pd.array([None if m else bool(x % 2) for x, m in zip(v, na)], dtype="boolean"),
    "bool": lambda v, na: np.asarray([bool(x % 2) for x in v]),
    "Float64": lambda v, na: pd.array([None if m else x / 7 for x, m in zip(v, na)], dtype="Float64"),
    "float32": lambda v, na: np.asarray([np.nan if m else x / 4 for x, m in zip(v, na)], dtype=np.float32),
    "string": lambda v, na: pd.array([None if m else f"s{x % 5}" for x, m in zip(v, na)], dtype="string"),
    "str": lambda v, na: pd.Series([None if m else f"t{x}" for x, m in zip(v, na)], dtype="str").array,
    "category": lambda v, na: pd.Categorical([None if m else f"c{x % 3}" for x, m in zip(v, na)]),
    "category_int": lambda v, na: pd.Categorical([None if m else x % 4 for x, m in zip(v, na)]),
    "ordered": lambda v, na: pd.Categorical([None if m else ("lo", "hi")[x % 2] for x, m in zip(v, na)],
                                            categories=["lo", "hi"], ordered=True),
}


def test_random_frames_round_trip():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=60, deadline=None, database=None)
    @hypothesis.given(kinds=st.lists(st.sampled_from(sorted(_MAKERS)), min_size=1, max_size=5, unique=True),
                      n=st.integers(0, 6), data=st.data())
    def check(kinds, n, data):
        cols = {}
        for k in kinds:
            v = data.draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n))
            na = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
            cols[k] = _MAKERS[k](v, na)
        df = pd.DataFrame(cols)
        pd.testing.assert_frame_equal(pr.call("identity", df, package="base"), df)

    check()
