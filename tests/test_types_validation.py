"""The pandas -> R type table and the shared validators."""

import numpy as np
import pandas as pd
import pytest

from pysdc import InvalidParameterError
from pysdc._types import r_class
from pysdc._validation import check_columns, check_frame, check_option, check_real


@pytest.mark.parametrize(
    "series, expected",
    [
        (pd.Series([1.0, np.nan]), "numeric"),
        (pd.Series([1.0], dtype="float32"), "numeric"),
        (pd.Series([1, 2], dtype="int64"), "integer"),
        (pd.Series([1, None], dtype="Int64"), "integer"),
        (pd.Series([True, False]), "logical"),
        (pd.Series([True, None], dtype="boolean"), "logical"),
        (pd.Series(["a", None], dtype=object), "character"),
        (pd.Series(["a", None], dtype="string"), "character"),
        (pd.Series(pd.Categorical(["a", None])), "factor"),
        (pd.Series(pd.Categorical(["a", None], ordered=True)), "ordered"),
        (pd.Series(pd.to_datetime(["2020-01-01", None])), "POSIXct"),
    ],
)
def test_type_table(series, expected):
    assert r_class(series) == expected


def test_complex_refused():
    with pytest.raises(InvalidParameterError, match="complex"):
        r_class(pd.Series([1j], name="z"))


def test_check_option_message():
    with pytest.raises(InvalidParameterError, match=r"method must be one of 'a', 'b'; got 'c'"):
        check_option("method", "c", ("a", "b"))


@pytest.mark.parametrize("value", [0.0, 1.0, float("nan"), "0.5", True])
def test_check_real_open_interval(value):
    with pytest.raises(InvalidParameterError, match="max_global_risk"):
        check_real("max_global_risk", value, low=0, high=1, low_open=True, high_open=True)


def test_check_real_accepts_numpy_scalars():
    assert check_real("a", np.float32(0.5), low=0, high=1) == 0.5


def test_check_columns():
    df = pd.DataFrame({"a": [1], "b": [2]})
    assert check_columns("key_vars", "a", df) == ["a"]
    with pytest.raises(InvalidParameterError, match=r"\['zz'\]"):
        check_columns("key_vars", ["a", "zz"], df)
    with pytest.raises(InvalidParameterError, match="more than once"):
        check_columns("key_vars", ["a", "a"], df)
    with pytest.raises(InvalidParameterError, match="empty"):
        check_columns("key_vars", [], df)


def test_check_frame_arrays():
    df = check_frame("x", np.ones((2, 3)), allow_array=True)
    assert list(df.columns) == ["V1", "V2", "V3"]
    with pytest.raises(InvalidParameterError, match="2-d"):
        check_frame("x", np.ones(3), allow_array=True)
    with pytest.raises(InvalidParameterError, match="DataFrame"):
        check_frame("x", np.ones((2, 2)))
