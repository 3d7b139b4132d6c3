"""Issue 23, items 7 and 9 (numeric edges): numbers held as object refused consistently, Fk overflow, IL1s on
values whose squares leave double's range, compare_estimates on an all-missing variable, utility on very wide
data. The values at the edges are compared with sdcMicro through the R bridge (marker ``live``)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import DegenerateResultWarning, InvalidParameterError


def _pair(n=50, seed=0):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    return x, x + rng.normal(scale=0.3, size=(n, 2))


# --------------------------------------------------------------------------- numbers held as object

def test_il_variables_refuses_numbers_held_as_object_like_d_utility_and_il_correl():
    """il_variables read object floats as R character: every value a label, IL_variables 1.0 (0.232 as float64)
    without a word, where d_utility and il_correl refuse the same frames. Now all three refuse."""
    x, xm = _pair()
    xo, xmo = x.astype(object), xm.astype(object)
    with pytest.raises(InvalidParameterError, match=r"'a' of x has object dtype but holds non-string values"):
        pysdc.il_variables(xo, xmo)
    with pytest.raises(InvalidParameterError):
        pysdc.d_utility(xo, xmo)
    with pytest.raises(InvalidParameterError):
        pysdc.il_correl(xo, xmo)
    # a column of numbers and strings held as object: refused as well
    mixed = xo.assign(a=["1.5"] + list(xo["a"][1:]))
    with pytest.raises(InvalidParameterError, match="non-string values"):
        pysdc.il_variables(mixed, mixed)


def test_il_variables_object_numbers_declared_numeric_are_measured_as_floats():
    x, xm = _pair()
    want = pysdc.il_variables(x, xm).value
    got = pysdc.il_variables(x.astype(object), xm.astype(object), scales={"a": "numeric", "b": "numeric"}).value
    assert got == want


def test_il_variables_object_strings_stay_nominal():
    x = pd.DataFrame({"s": np.array(["u", "v", None, "w"], dtype=object)})
    xm = pd.DataFrame({"s": np.array(["u", "x", None, "w"], dtype=object)})
    assert pysdc.il_variables(x, xm).value == pytest.approx(0.25, rel=1e-15)


# --------------------------------------------------------------------------- Fk overflow

HUGE = pd.DataFrame({"a": pd.Categorical([1, 1, 2, 2, 3]), "w": [1.7e308, 1.7e308, 1e308, 1e308, 3.0]})


def test_freq_calc_warns_when_fk_overflows():
    with pytest.warns(DegenerateResultWarning, match=r"Fk of 2 key combination\(s\) \(4 record\(s\)\) is Inf"):
        f = pysdc.freq_calc(HUGE, ["a"], w="w")
    assert np.isposinf(f.Fk[:4]).all() and f.Fk[4] == 3.0


@pytest.mark.duckdb
def test_freq_calc_on_duckdb_warns_when_fk_overflows(tmp_path):
    p = tmp_path / "huge.parquet"
    HUGE.assign(a=[1, 1, 2, 2, 3]).to_parquet(p)
    with pytest.warns(DegenerateResultWarning, match="is Inf"):
        pysdc.freq_calc(pysdc.scan(p), ["a"], w="w")


def test_measure_risk_does_not_read_0_silently_when_fk_overflows():
    with pytest.warns(DegenerateResultWarning, match="NaN"):
        m = pysdc.measure_risk(HUGE.iloc[:4], ["a"], w="w")
    assert m.global_risk == 0.0  # sdcMicro's number (its sum skips the NaN risks)


def test_no_overflow_warning_for_ordinary_weights():
    d = HUGE.assign(w=[1.0, 2.0, 3.0, 4.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pysdc.freq_calc(d, ["a"], w="w")


# --------------------------------------------------------------------------- IL1s out of double's range

def _scaled(s):
    x = np.array([1, 2, 3, 5, 10, 4]) * s
    xm = np.array([1.1, 2, 3.5, 5, 12, 3]) * s
    return pd.DataFrame({"v": x, "u": x * 2}), pd.DataFrame({"v": xm, "u": xm * 2.5})


@pytest.mark.parametrize("s", [1e-160, 1e-165, 1e-310, 1e160])
def test_il1s_warns_where_the_sd_leaves_double_range(s):
    x, xm = _scaled(s)
    with pytest.warns(DegenerateResultWarning, match="standard deviation of column"):
        pysdc.d_utility(x, xm, method="IL1s")


@pytest.mark.parametrize("s", [1.0, 1e-150, 1e150])
def test_il1s_does_not_warn_in_range(s):
    x, xm = _scaled(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = pysdc.d_utility(x, xm, method="IL1s").value
    assert v == pytest.approx(pysdc.d_utility(*_scaled(1.0), method="IL1s").value, rel=1e-12)


def test_il1s_sound_value_is_the_rescaled_one():
    """The advice in the warning holds: IL1s is scale-free, so rescaled data give the sound value."""
    x, xm = _scaled(1e-165)
    with pytest.warns(DegenerateResultWarning):
        off = pysdc.d_utility(x, xm, method="IL1s").value
    sound = pysdc.d_utility(x * 1e160, xm * 1e160, method="IL1s").value
    assert np.isinf(off) and np.isfinite(sound)
    assert sound == pytest.approx(pysdc.d_utility(*_scaled(1.0), method="IL1s").value, rel=1e-12)


@pytest.mark.live
@pytest.mark.parametrize("s", [1e-160, 1e-165, 1e160])
def test_il1s_out_of_range_is_sdcmicros_number(bridge, s):
    x, xm = _scaled(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pysdc.d_utility(x, xm, method="IL1s").value
        theirs = bridge.d_utility(x, xm, method="IL1s").value
    assert ours == theirs or (np.isinf(ours) and np.isinf(theirs))


@pytest.mark.live
def test_fk_overflow_is_sdcmicros_number(bridge):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pysdc.freq_calc(HUGE, ["a"], w="w").Fk
        theirs = np.asarray(bridge.freq_calc(HUGE, ["a"], w="w").Fk, dtype=float)
    np.testing.assert_array_equal(ours, theirs)


# --------------------------------------------------------------------------- compare_estimates, all missing

def test_compare_estimates_warns_on_an_all_missing_variable():
    from pysdc.loss._compare_estimates import compare_estimates

    x = pd.DataFrame({"a": [np.nan] * 5, "b": [1.0, 2, 3, 4, 5]})
    with pytest.warns(DegenerateResultWarning, match=r"mean\(a\) \(no record with a value\)"):
        t = compare_estimates(x, x, ["mean(a)", "mean(b)"])
    assert np.isnan(t.table.loc[0, "estimate_x"]) and t.table.loc[1, "estimate_x"] == 3.0


def test_compare_estimates_warns_per_group():
    from pysdc.loss._compare_estimates import compare_estimates

    x = pd.DataFrame({"a": [np.nan, np.nan, 1.0, 2.0], "g": ["p", "p", "q", "q"]})
    with pytest.warns(DegenerateResultWarning, match=r"mean\(a\) for g='p'"):
        compare_estimates(x, x, "mean(a)", by="g")


def test_compare_estimates_quiet_when_defined():
    from pysdc.loss._compare_estimates import compare_estimates

    x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateResultWarning)
        compare_estimates(x, x, "mean(a)")


# --------------------------------------------------------------------------- utility on very wide data

def test_utility_report_bounds_the_matrix_measures(monkeypatch):
    """The measures on p x p matrices (eigen, robeigen, il_correl, il_continuous, gsil) are skipped, with the
    reason and the way out, beyond the report's limits; the cell-wise ones are still computed."""
    from pysdc.problem import SdcProblem, _problem

    monkeypatch.setattr(_problem, "MAX_MATRIX_VARIABLES", 3)
    monkeypatch.setattr(_problem, "MAX_ROBEIGEN_VARIABLES", 2)
    rng = np.random.default_rng(2)
    x = pd.DataFrame(rng.normal(size=(40, 4)), columns=list("abcd"))
    xm = x + rng.normal(scale=0.1, size=x.shape)
    p = SdcProblem.for_utility(x, num_vars=list("abcd"))
    rep = p.utility(xm, random_state=1).to_dict()
    m = rep["measures"]
    for name in ("eigen", "robeigen", "il_correl"):
        assert m[name]["status"] == "skipped", name
        assert "4 numeric variables" in m[name]["error"] and "--numeric" in m[name]["error"]
    for name in ("il_continuous", "gsil"):
        assert rep["literature"]["measures"][name]["status"] == "skipped", name
    for name in ("IL1", "IL1s", "il_variables"):
        assert m[name]["status"] == "ok", name
    assert rep["literature"]["measures"]["hellinger"]["status"] == "ok"
    monkeypatch.setattr(_problem, "MAX_MATRIX_VARIABLES", 4)
    monkeypatch.setattr(_problem, "MAX_ROBEIGEN_VARIABLES", 4)
    rep = p.utility(xm, random_state=1).to_dict()
    assert all(rep["measures"][k]["status"] == "ok" for k in ("eigen", "robeigen", "il_correl"))


def test_utility_cli_on_wide_data_is_bounded(tmp_path, capsys, monkeypatch):
    from pysdc.cli import main
    from pysdc.problem import _problem

    monkeypatch.setattr(_problem, "MAX_MATRIX_VARIABLES", 5)
    monkeypatch.setattr(_problem, "MAX_ROBEIGEN_VARIABLES", 5)
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(30, 8)).round(3), columns=[f"v{i}" for i in range(8)])
    x.to_csv(tmp_path / "x.csv", index=False)
    (x + 0.01).to_csv(tmp_path / "xm.csv", index=False)
    assert main(["utility", str(tmp_path / "x.csv"), str(tmp_path / "xm.csv"), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"status": "skipped"' in out and "more than the limit of 5" in out
