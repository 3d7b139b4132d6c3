"""The bridge's pandas/NumPy <-> R converter: every dtype, every missing kind, each rpy2 trap.

Runs against real R (no sdcMicro needed); skipped with the reason when R or rpy2 is missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r as pr

pytestmark = pytest.mark.needs_r  # skipped with the reason by tests/conftest.py

R_FUNS: dict = {}


def rfun(code: str):
    """An R function (RObject) from R source code, cached."""
    if code not in R_FUNS:
        R_FUNS[code] = pr.call("eval", pr.call("parse", text=code, package="base", as_robject=True),
                               package="base", as_robject=True)
    return R_FUNS[code]


def rcall(code: str, *args):
    arglist = pr.call("list", *args, package="base", as_robject=True)
    return pr.call("do.call", rfun(code), arglist, package="base")


def r_na(series: pd.Series) -> np.ndarray:
    """R's is.na() of the column after sending it inside a data.frame."""
    out = rcall("function(d) is.na(d[[1]])", pd.DataFrame({"x": series}))
    return np.atleast_1d(np.asarray(out, dtype=bool))


def r_class(series: pd.Series) -> list:
    out = rcall("function(d) class(d[[1]])", pd.DataFrame({"x": series}))
    return [out] if isinstance(out, str) else list(out)


def roundtrip(obj):
    return pr.call("identity", obj, package="base")


MISSING = {"NaN": np.nan, "None": None, "pd.NA": pd.NA, "NaT": pd.NaT}

# dtype -> (three non-missing values, pandas dtype, R class, dtype back with missing values)
DTYPES = {
    "float64": ([1.5, -2.25, 3.0], "float64", ["numeric"], "float64"),
    "Int64": ([1, -2, 2147483647], "Int64", ["integer"], "Int64"),
    "boolean": ([True, False, True], "boolean", ["logical"], "boolean"),
    "object": (["a", "é b", ""], object, ["character"], "str-like"),
    "string": (["a", "é b", ""], "string", ["character"], "str-like"),
    "category": (["u", "v", "u"], "category", ["factor"], "category"),
    "ordered": (["lo", "hi", "lo"], pd.CategoricalDtype(["lo", "hi"], ordered=True), ["ordered", "factor"],
                "category"),
    "datetime64": (pd.to_datetime(["2020-01-01", "1960-06-30 12:00:01.25", "2038-01-19 03:14:08"], format="ISO8601"),
                   "datetime64[ns]", ["POSIXct", "POSIXt"], "datetime64[ns]"),
}


def _make(dtype_key, miss_key, n_repeat=1):
    values, dtype, _, _ = DTYPES[dtype_key]
    vals = list(values) * n_repeat
    vals[1] = MISSING[miss_key]
    try:
        s = pd.Series(vals, dtype=dtype)
    except (TypeError, ValueError) as exc:
        pytest.skip(f"pandas cannot hold {miss_key} in {dtype_key}: {exc}")
    if not s.isna().iloc[1]:
        pytest.skip(f"pandas does not treat {miss_key} as missing in {dtype_key}")
    return s


def _check_back(s: pd.Series, back: pd.Series, dtype_key):
    kind = DTYPES[dtype_key][3]
    assert np.array_equal(back.isna().to_numpy(), s.isna().to_numpy())
    if kind == "str-like":
        assert pd.api.types.is_string_dtype(back.dtype) or back.dtype == object
    elif kind == "category":
        assert isinstance(back.dtype, pd.CategoricalDtype)
        assert list(back.cat.categories) == list(s.cat.categories)
        assert back.cat.ordered == s.cat.ordered
    else:
        assert str(back.dtype) == kind
    ok = ~s.isna().to_numpy()
    assert list(back[ok]) == list(s[ok])


def _holdable(dtype_key, miss_key) -> bool:
    """Whether pandas itself can hold this kind of missing value in this dtype."""
    values, dtype, _, _ = DTYPES[dtype_key]
    vals = list(values)
    vals[1] = MISSING[miss_key]
    try:
        return bool(pd.Series(vals, dtype=dtype).isna().iloc[1])
    except (TypeError, ValueError):
        return False


# every (dtype, missing-value kind) pair pandas can hold; pairs it cannot (pd.NA or NaT in float64,
# NaT in Int64 or boolean) do not exist as input, so they are not generated rather than skipped
HOLDABLE = [(d, m) for d in DTYPES for m in MISSING if _holdable(d, m)]


@pytest.mark.parametrize("dtype_key, miss_key", HOLDABLE)
def test_roundtrip_every_dtype_and_missing_kind(dtype_key, miss_key):
    s = _make(dtype_key, miss_key)
    assert r_class(s) == DTYPES[dtype_key][2]
    assert list(r_na(s)) == [False, True, False]
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    _check_back(s, back, dtype_key)


@pytest.mark.parametrize("dtype_key", list(DTYPES))
def test_roundtrip_long_columns_use_the_buffer_paths(dtype_key):
    # 300 values (many repeats) and 6000 values (exercise both string strategies)
    for reps in (100, 2000):
        s = _make(dtype_key, "None" if dtype_key not in ("float64",) else "NaN", n_repeat=reps)
        na = r_na(s)
        assert na.sum() == 1 and na[1]
        back = roundtrip(pd.DataFrame({"x": s}))["x"]
        _check_back(s, back, dtype_key)


def test_many_distinct_strings_roundtrip():
    n = 20000
    vals = np.array([f"id{k}-ü" for k in range(n)], dtype=object)
    vals[[3, 17, n - 1]] = None
    df = pd.DataFrame({"id": vals})
    assert rcall("function(d) sum(is.na(d$id))", df) == 3
    assert rcall("function(d) d$id[1]", df) == "id0-ü"
    assert rcall("function(d) nchar(d$id[2])", df) == 5  # characters, not bytes: UTF-8 kept
    back = roundtrip(df)["id"]
    assert list(pd.isna(back)) == list(pd.isna(vals))
    assert list(back[~pd.isna(vals)]) == list(vals[~pd.isna(vals)])


@pytest.mark.parametrize("n", [3, 500])
def test_strings_holding_the_separator_and_empty_strings(n):
    vals = ["a\x1fb", "", "\x1f", "plain"] * n
    back = roundtrip(pd.Series(vals, dtype=object))
    assert list(back) == vals
    assert rcall("function(x) nchar(x[1:4])", pd.Series(vals, dtype=object)).tolist() == [3, 0, 1, 5]


def test_nul_character_refused():
    with pytest.raises(pysdc.InvalidParameterError, match="NUL"):
        roundtrip(pd.Series(["a\x00b"] * 100, dtype=object))


def test_int64_roundtrip_without_missing_keeps_int64():
    s = pd.Series(np.array([0, -2147483647, 2147483647], dtype=np.int64))
    assert r_class(s) == ["integer"]
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    assert back.dtype == np.int64 and list(back) == list(s)


def test_bool_roundtrip_without_missing_keeps_bool():
    s = pd.Series([True, False, False])
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    assert back.dtype == bool and list(back) == [True, False, False]


# ---------------------------------------------------------------- the rpy2 traps, one test each
def test_trap_r_integer_na_is_missing_not_int_min():
    back = rcall("function() data.frame(x = c(1L, NA, 3L))")
    assert str(back["x"].dtype) == "Int64"
    assert back["x"].isna().tolist() == [False, True, False]
    assert -2147483648 not in back["x"].dropna().tolist()
    vec = rcall("function() c(5L, NA)")
    assert pd.isna(vec[1]) and vec[0] == 5


@pytest.mark.parametrize("value", [2**31, -(2**31), 2**40])
def test_trap_int64_outside_r_range_refused(value):
    s = pd.Series(np.array([1, value], dtype=np.int64))
    with pytest.raises(pysdc.InvalidParameterError, match="integer range.*float"):
        roundtrip(pd.DataFrame({"big": s}))
    with pytest.raises(pysdc.InvalidParameterError, match="float"):
        roundtrip([1, value])


def test_trap_int64_outside_range_is_fine_as_float():
    s = pd.Series(np.array([1, 2**40], dtype=np.int64)).astype(float)
    assert rcall("function(d) d$big[2]", pd.DataFrame({"big": s})) == 2.0**40


def test_trap_nan_is_sent_as_na_not_nan():
    s = pd.Series([1.0, np.nan, 2.0])
    out = rcall("function(d) c(sum(is.na(d$x)), sum(is.nan(d$x)))", pd.DataFrame({"x": s}))
    assert out.tolist() == [1, 0]  # NA_real_, not NaN
    # the exact bit pattern of R's NA_real_ (payload 1954)
    assert rcall("function(d) identical(d$x[2], NA_real_)", pd.DataFrame({"x": s})) is True


def test_trap_r_nan_and_na_both_come_back_missing():
    out = rcall("function() c(NaN, NA, 1)")
    assert np.isnan(out[0]) and np.isnan(out[1]) and out[2] == 1.0


def test_trap_character_and_logical_na_seen_by_isna():
    df = rcall("function() data.frame(s = c('a', NA), b = c(NA, TRUE), stringsAsFactors = FALSE)")
    assert df["s"].isna().tolist() == [False, True]
    assert df["b"].isna().tolist() == [True, False]
    assert str(df["b"].dtype) == "boolean"


def test_trap_categorical_with_non_string_categories_is_a_factor():
    s = pd.Series(pd.Categorical([1, 2, None, 2]))
    assert r_class(s) == ["factor"]
    assert rcall("function(d) levels(d$x)", pd.DataFrame({"x": s})).tolist() == ["1", "2"]
    assert list(r_na(s)) == [False, False, True, False]
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    assert list(back.cat.categories) == [1, 2]  # R levels are text; the bridge remembers the categories
    assert back.cat.codes.tolist() == [0, 1, -1, 1]
    made_in_r = rcall("function(d) data.frame(x = d$y)", pd.DataFrame({"y": s}))["x"]  # no memory of "x"
    assert list(made_in_r.cat.categories) == ["1", "2"]
    floats = pd.Series(pd.Categorical([1.5, 2.0]))
    assert rcall("function(d) levels(d$x)", pd.DataFrame({"x": floats})).tolist() == ["1.5", "2"]


def test_trap_categorical_nan_is_na_code_not_a_level():
    s = pd.Series(pd.Categorical(["a", np.nan, "b"]))
    assert rcall("function(d) nlevels(d$x)", pd.DataFrame({"x": s})) == 2
    assert list(r_na(s)) == [False, True, False]


def test_trap_ordered_factor_keeps_level_order():
    s = pd.Series(pd.Categorical(["hi", "lo", "mid"], categories=["lo", "mid", "hi"], ordered=True))
    out = rcall("function(d) list(levels(d$x), is.ordered(d$x), d$x[2] < d$x[1])", pd.DataFrame({"x": s}))
    assert out[0].tolist() == ["lo", "mid", "hi"] and out[1] is True and out[2] is True
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    assert back.cat.ordered and list(back.cat.categories) == ["lo", "mid", "hi"]
    assert list(back) == ["hi", "lo", "mid"]


def test_duplicate_level_text_refused():
    s = pd.Series(pd.Categorical([1, "1"]))
    with pytest.raises(pysdc.InvalidParameterError, match="distinct R factor levels"):
        roundtrip(pd.DataFrame({"x": s}))


def test_object_column_with_numbers_refused():
    with pytest.raises(pysdc.InvalidParameterError, match="non-string values"):
        roundtrip(pd.DataFrame({"x": pd.Series(["a", 1], dtype=object)}))


def test_datetime_tz_aware_roundtrip():
    s = pd.Series(pd.to_datetime(["2020-03-29 01:30", None], format="ISO8601")).dt.tz_localize("Europe/Berlin")
    out = rcall("function(d) list(attr(d$x, 'tzone'), as.numeric(d$x[1]), is.na(d$x[2]))", pd.DataFrame({"x": s}))
    assert out[0] == "Europe/Berlin"
    assert out[1] == pd.Timestamp("2020-03-29 00:30", tz="UTC").timestamp()
    assert out[2] is True
    back = roundtrip(pd.DataFrame({"x": s}))["x"]
    assert str(back.dt.tz) == "Europe/Berlin" and back.iloc[0] == s.iloc[0] and pd.isna(back.iloc[1])


# ---------------------------------------------------------------- row names / index
def test_sent_objects_dispatch_like_rs_own():
    # class set the R way: internal generics (dim, levels, format) dispatch on them
    df = pd.DataFrame({"a": [1.0, 2.0], "f": pd.Categorical(["x", "y"]),
                       "t": pd.to_datetime(["2020-01-02", "2020-01-03"])})
    assert rcall("function(d) is.object(d) && is.factor(d$f) && is.object(d$t)", df) is True
    assert rcall("function(d) dim(d)", df).tolist() == [2, 3]
    assert rcall("function(d) format(d$t[1], '%Y-%m-%d')", df) == "2020-01-02"
    assert rcall("function(d) nrow(d[d$f == 'y', ])", df) == 1


def test_range_index_becomes_automatic_row_names():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    assert rcall("function(d) .row_names_info(d, 1L)", df) == -3
    back = roundtrip(df)
    assert isinstance(back.index, pd.RangeIndex) and back.index.equals(pd.RangeIndex(3))


def test_integer_and_string_index_roundtrip():
    df = pd.DataFrame({"a": [1.0, 2.0]}, index=[10, 20])
    assert rcall("function(d) rownames(d)", df).tolist() == ["10", "20"]
    assert roundtrip(df).index.tolist() == [10, 20]
    df2 = pd.DataFrame({"a": [1.0, 2.0]}, index=["x", "y"])
    assert roundtrip(df2).index.tolist() == ["x", "y"]


def test_non_unique_index_not_sent():
    df = pd.DataFrame({"a": [1.0, 2.0]}, index=[5, 5])
    assert rcall("function(d) .row_names_info(d, 1L)", df) == -2


def test_r_subset_row_names_come_back():
    back = rcall("function() data.frame(a = 1:5)[c(2, 4), , drop = FALSE]")
    assert back.index.tolist() == [2, 4] and back["a"].tolist() == [2, 4]


# ---------------------------------------------------------------- generic values
def test_scalars_none_lists_dicts():
    out = pr.call("list", a=1, b=2.5, c="x", d=True, e=None, f=[1, 2], g=["p", None], h={"k": 1.0},
                  i=[1, "mixed"], package="base")
    assert out["a"] == 1 and isinstance(out["a"], int)
    assert out["b"] == 2.5 and out["c"] == "x" and out["d"] is True and out["e"] is None
    assert out["f"].tolist() == [1, 2]
    assert out["g"][0] == "p" and pd.isna(out["g"][1])
    assert out["h"] == {"k": 1.0}
    assert out["i"] == [1, "mixed"]
    assert rcall("function(x) typeof(x)", [1, 2]) == "integer"
    assert rcall("function(x) typeof(x)", [1, 2.5]) == "double"
    assert rcall("function(x) is.null(x)", None) is True
    assert rcall("function(x) is.na(x)", pd.NA) is True
    assert rcall("function() list(1, 'a')") == [1.0, "a"]


def test_matrices_and_arrays():
    m = np.arange(6.0).reshape(2, 3)
    assert rcall("function(m) dim(m)", m).tolist() == [2, 3]
    assert rcall("function(m) m[2, 3]", m) == 5.0  # row-major numpy -> R's column-major, same cells
    np.testing.assert_array_equal(roundtrip(m), m)
    named = rcall("function() matrix(1:4, 2, dimnames = list(c('r1', 'r2'), c('A', 'B')))")
    assert isinstance(named, pd.DataFrame)
    assert named.loc["r2", "A"] == 2 and named.loc["r1", "B"] == 3
    tab = rcall("function() table(c('a', 'b', 'a'))")
    assert tab.to_dict() == {"a": 2, "b": 1}


def test_named_vector_and_factor_vector():
    s = rcall("function() c(x = 1, y = 2)")
    assert isinstance(s, pd.Series) and s.to_dict() == {"x": 1.0, "y": 2.0}
    f = rcall("function() factor(c('b', NA, 'a'), levels = c('b', 'a'))")
    assert isinstance(f, pd.Categorical) and list(f.categories) == ["b", "a"] and f.codes.tolist() == [0, -1, 1]


def test_s3_list_and_s4_object_handles():
    lst = rcall("function() structure(list(a = 1, b = 'x'), class = 'myclass')")
    assert isinstance(lst, pr.RList) and lst["a"] == 1.0 and lst.r_class == ("myclass",)
    with pytest.raises(TypeError):
        lst["a"] = 2
    assert rcall("function(x) class(x)", lst) == "myclass"  # the original object goes back
    assert rcall("function(x) class(x)", dict(lst)) == "list"
    env = rcall("function() new.env()")
    assert isinstance(env, pr.RObject) and env.r_type == "ENVSXP"
    s4 = rcall("function() { setClass('PysdcT', representation(v = 'numeric'), where = globalenv()); "
               "methods::new('PysdcT', v = c(1, 2)) }")
    assert isinstance(s4, pr.RObject) and s4.r_class == ("PysdcT",)
    assert s4.slot("v").tolist() == [1.0, 2.0]
    assert rcall("function(o) sum(o@v)", s4) == 3.0


def test_unsupported_python_value_refused():
    with pytest.raises(pysdc.InvalidParameterError, match="cannot send"):
        pr.call("identity", object(), package="base")
    with pytest.raises(pysdc.InvalidParameterError, match="no R counterpart|complex"):
        pr.call("identity", pd.DataFrame({"t": pd.to_timedelta([1, 2], unit="s")}), package="base")
