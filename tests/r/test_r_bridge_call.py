"""The bridge speaks R naturally: R argument names, the package fallback, formulas, printed text, quiet errors.

Needs R and rpy2 only (runs in CI); the few tests that need sdcMicro are marked ``live`` and skip
with the reason where it is absent.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r as pr

pytestmark = pytest.mark.needs_r  # skipped with the reason by tests/conftest.py
live = pytest.mark.live  # needs sdcMicro in R too


def rfun(code):
    return pr.call("eval", pr.call("parse", text=code, package="base", as_robject=True), package="base",
                   as_robject=True)


def run(f, *args):
    return pr.call("do.call", f, pr.call("list", *args, package="base", as_robject=True), package="base")


# ---------------------------------------------------------------- R argument names that clash with call's own
def _global(name, value):
    pr.call("assign", name, value, envir=pr.call("globalenv", package="base", as_robject=True), package="base")


def _drop(name):
    pr.call("rm", list=name, envir=pr.call("globalenv", package="base", as_robject=True), package="base")


def test_r_arguments_named_like_calls_own_keywords():
    fname = "pysdc_test_fun_with_clashing_args"
    _global(fname, rfun("function(package = 'unset', as_robject = '', r_args = '', fun = '', na.rm = FALSE) "
                        "paste(package, as_robject, r_args, fun, na.rm)"))
    try:
        # one trailing underscore is dropped; fun is positional-only, so fun= is R's
        assert pr.call(fname, package_="p", as_robject_="a", r_args_="r", fun="f", package=None) == "p a r f FALSE"
        assert pr.call(fname, r_args={"package": "x", "na.rm": True}, package=None) == "x    TRUE"
        with pytest.raises(pysdc.InvalidParameterError, match="given twice"):
            pr.call(fname, package_="a", r_args={"package": "b"}, package=None)
        with pytest.raises(pysdc.InvalidParameterError, match="r_args must be a dict"):
            pr.call(fname, r_args=[("package", "b")], package=None)
    finally:
        _drop(fname)


def test_mean_with_na_rm_through_r_args():
    assert pr.call("mean", [1.0, None, 3.0], r_args={"na.rm": True}) == 2.0


@live
def test_data_with_r_package_argument():
    env = pr.call("new.env", as_robject=True)
    pr.call("data", list="francdat", package_="sdcMicro", envir=env, package="utils")
    df = pr.call("get", "francdat", envir=env)
    assert isinstance(df, pd.DataFrame) and df.shape == (8, 8)


# ---------------------------------------------------------------- which package
def test_functions_not_in_sdcmicro_fall_back_to_base_stats_utils():
    # the default package is sdcMicro; set.seed, get, as.data.frame, as.formula are not sdcMicro's
    pr.call("set.seed", 7)
    a = pr.call("runif", 2)
    pr.call("set.seed", 7)
    assert np.array_equal(pr.call("runif", 2), a)
    assert pr.last_call_log().call.startswith("stats::runif(")
    df = pr.call("as.data.frame", pr.call("list", a=[1, 2], package="base", as_robject=True))
    assert list(df.columns) == ["a"]
    assert pr.call("head", [1, 2, 3], 2).tolist() == [1, 2]  # utils
    assert pr.call("get", "pi") == pytest.approx(np.pi, rel=0, abs=0)


def test_function_missing_in_the_named_package_names_where_it_is():
    with pytest.raises(pysdc.RCallError, match=r"exported by base: pass package='base'") as info:
        pr.call("get", "pi", package="stats")
    assert "'get' is not an exported object from 'namespace:stats'" in info.value.r_message


@live
def test_function_found_nowhere_names_where_it_was_looked_for():
    with pytest.raises(pysdc.RCallError, match="sdcMicro does not export it and it is not in base, stats"):
        pr.call("no_such_function_pysdc_xyz")


def test_without_sdcmicro_a_function_found_nowhere_is_sdcmicros_absence(monkeypatch):
    from pysdc.r import _session

    monkeypatch.setitem(_session._packages, "sdcMicro", False)
    with pytest.raises(pysdc.RNotAvailableError, match="install.packages"):
        pr.call("no_such_function_pysdc_xyz")
    assert pr.call("sum", [1, 2]) == 3  # base functions still work


def test_lookup_errors_are_not_echoed_to_stderr(capfd, caplog):
    # rpy2 reports R's console error text as a logging warning ("R callback write-console: Error ...")
    caplog.set_level(logging.DEBUG)
    for fun, pkg in (("no_such_fn", "stats"), ("no_such_fn", None), ("no_such_fn", "sdcMicro"), ("stop", "base")):
        with pytest.raises((pysdc.RCallError, pysdc.RNotAvailableError)):
            pr.call(fun, "boom", package=pkg)
    with pytest.raises(pysdc.RCallError):
        pr.call("new.env", package="base", as_robject=True).slot("nope")
    out, err = capfd.readouterr()
    assert "write-console" not in err and "Error" not in err, err
    assert "Error" not in out
    assert not [r for r in caplog.records if "write-console" in r.getMessage()]


# ---------------------------------------------------------------- printed text, in order
def test_print_returns_rs_text_with_messages_in_their_order():
    f = rfun("function() { cat('one\\n'); message('two'); cat('thr'); message('ee'); print(1:3); invisible(9) }")
    assert run(f) == 9
    log = pr.last_call_log()
    assert log.text == "one\ntwo\nthree\n[1] 1 2 3\n"
    assert log.messages == ("two", "ee")
    assert log.output == ("one", "thr", "[1] 1 2 3")


def test_print_of_a_data_frame_is_rs_text():
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert pr.print(df) == "  a b\n1 1 x\n2 2 y\n"
    assert pr.print(3.14159, digits=3) == "[1] 3.14\n"
    # print's own invisible value is not what we get: the text is
    assert pr.print(pr.call("c", 1, 2, package="base", as_robject=True)) == "[1] 1 2\n"


def test_print_error_is_raised_not_printed(capfd):
    f = rfun("function() structure(list(), class = 'pysdc_bad')")
    bad = pr.call("do.call", f, [], package="base", as_robject=True)
    _global("print.pysdc_bad", rfun("function(x, ...) stop('cannot print this')"))
    try:
        with pytest.raises(pysdc.RCallError, match="cannot print this"):
            pr.print(bad)
    finally:
        _drop("print.pysdc_bad")
    assert "cannot print this" not in capfd.readouterr().err


# ---------------------------------------------------------------- formulas
def test_text_starting_with_tilde_becomes_a_formula():
    assert pr.call("class", "~ sex + water", package="base") == "formula"
    assert pr.call("all.vars", "~ sex + water").tolist() == ["sex", "water"]
    # a list keeps it text
    assert pr.call("class", ["~ sex"], package="base") == "character"
    # not at the start: text
    assert pr.call("class", "y ~ x", package="base") == "character"


def test_formula_function_and_invalid_formula():
    f = pr.formula("income ~ age + sex")
    assert f.r_class == ("formula",)
    assert pr.call("all.vars", f).tolist() == ["income", "age", "sex"]
    assert pr.print(f) == "income ~ age + sex\n"
    with pytest.raises(pysdc.InvalidParameterError, match="not a valid R formula"):
        pr.call("class", "~ a +", package="base")
    with pytest.raises(pysdc.InvalidParameterError, match="containing '~'"):
        pr.formula("a + b")


def test_formula_fits_a_model_through_lm():
    df = pd.DataFrame({"y": [1.0, 2.9, 5.1, 7.0], "x": [0.0, 1.0, 2.0, 3.0]})
    coef = pr.call("coef", pr.call("lm", pr.formula("y ~ x"), data=df, as_robject=True))
    # least squares by hand: slope = cov(x, y) / var(x)
    slope = np.cov(df.x, df.y)[0, 1] / np.var(df.x, ddof=1)
    assert coef.iloc[1] == pytest.approx(slope, rel=1e-12)


# ---------------------------------------------------------------- R habits: column positions
def test_column_positions_say_pysdc_takes_names():
    df = pd.DataFrame({"a": [1, 2, 1], "b": [1, 1, 2], "c": [3, 4, 5]})
    with pytest.raises(pysdc.InvalidParameterError, match=r"pysdc takes column names, not positions") as info:
        pysdc.freq_calc(df, [2, 3])
    assert "['b', 'c']" in str(info.value)
    with pytest.raises(pysdc.InvalidParameterError, match="pysdc takes column names"):
        pr.freq_calc(df, [2, 3])  # the bridge validates alike, before R runs


# ---------------------------------------------------------------- x and xm: pairing
@live
def test_bridge_pairs_like_the_native_function():
    rng = np.random.default_rng(3)
    x = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30) * 100})
    xm = x + rng.normal(size=(30, 2))
    # the same variables in another order: paired by name, as natively
    assert pr.d_utility(x, xm[["b", "a"]]).value == pytest.approx(pr.d_utility(x, xm).value, rel=1e-12)
    assert pysdc.d_utility(x, xm[["b", "a"]]).value == pytest.approx(pr.d_utility(x, xm).value, rel=1e-12)
    # different indexes: records are paired by position, and both warn
    shifted = xm.set_axis(range(100, 130))
    for f in (pysdc.d_utility, pr.d_utility, pr.il_variables):
        with pytest.warns(pysdc.AlignmentWarning, match="paired by position"):
            f(x, shifted)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pysdc.AlignmentWarning)
        pr.il_correl(x, shifted)  # compares the two correlation matrices: no pairing, no warning
