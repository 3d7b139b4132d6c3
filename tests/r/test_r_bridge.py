"""The R bridge: generic call, errors, warnings, messages, threads, sdcMicro wrappers.

Needs R and rpy2 (skipped with the reason otherwise); the sdcMicro tests also
need the R package sdcMicro (absent in CI: skipped with the reason).
"""

from __future__ import annotations

import inspect
import logging
import math
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import pysdc
import pysdc.r as pr
from pysdc._registry import MEASURES

FUNCTIONS = [m for m in MEASURES if m.bridge]  # measures with an sdcMicro counterpart


pytestmark = pytest.mark.needs_r  # skipped with the reason by tests/conftest.py
live = pytest.mark.live  # these also need sdcMicro


def rfun(code):
    return pr.call("eval", pr.call("parse", text=code, package="base", as_robject=True),
                   package="base", as_robject=True)


# ---------------------------------------------------------------- availability / versions
def test_available_and_versions():
    st = pr.available(sdcmicro=False)
    assert st and st.ok and isinstance(st.reason, str)
    v = pr.versions()
    assert set(v) == {"R", "rpy2", "rpy2-rinterface", "sdcMicro"}
    assert v["R"] and v["R"][0].isdigit()
    assert pr.call("paste", pr.call("getElement", pr.call("R.Version", package="base"), "major",
                                    package="base"), package="base") == v["R"].split(".")[0]


# ---------------------------------------------------------------- errors
def test_r_error_becomes_rcallerror_with_message_and_call():
    with pytest.raises(pysdc.RCallError) as info:
        pr.call("log", "a", package="base")
    err = info.value
    assert "non-numeric argument" in err.r_message
    assert "base::log('a')" in err.call
    assert isinstance(err, RuntimeError)


def test_error_inside_an_r_function_names_the_inner_call():
    f = rfun("function(x) { inner <- function(y) stop('inner failure ', y); inner(x) }")
    with pytest.raises(pysdc.RCallError, match="inner failure 7") as info:
        pr.call("do.call", f, pr.call("list", 7, package="base", as_robject=True), package="base")
    assert info.value.r_message == "inner failure 7"
    assert "inner(x)" in info.value.call


def test_unknown_function_and_unknown_package():
    with pytest.raises(pysdc.RCallError, match="cannot find the R function"):
        pr.call("no_such_function_pysdc", package="base")
    with pytest.raises(pysdc.RNotAvailableError, match="install.packages"):
        pr.call("f", package="noSuchPackagePysdc")
    with pytest.raises(pysdc.InvalidParameterError):
        pr.call("", package="base")


def test_bridge_still_works_after_an_error():
    with pytest.raises(pysdc.RCallError):
        pr.call("stop", "x", package="base")
    assert pr.call("sum", [1, 2], package="base") == 3


# ---------------------------------------------------------------- warnings and messages
def test_r_warnings_become_rwarning_at_the_callers_line():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        out = pr.call("as.numeric", ["1", "x"], package="base")
    assert out[0] == 1.0 and np.isnan(out[1])
    got = [w for w in rec if issubclass(w.category, pysdc.RWarning)]
    assert len(got) == 1
    assert "NAs introduced by coercion" in str(got[0].message)
    assert got[0].filename == __file__ and got[0].lineno == line
    assert pr.last_call_log().warnings == ("NAs introduced by coercion",)


def test_several_warnings_and_a_result():
    f = rfun("function() { warning('w1'); warning('w2'); 42 }")
    with pytest.warns(pysdc.RWarning) as rec:
        assert pr.call("do.call", f, [], package="base") == 42
    assert [str(w.message).split(": ", 1)[1] for w in rec] == ["w1", "w2"]


def test_warning_turned_error_by_python_filter():
    with warnings.catch_warnings():
        warnings.simplefilter("error", pysdc.RWarning)
        with pytest.raises(pysdc.RWarning):
            pr.call("as.integer", "z", package="base")


def test_messages_and_output_captured_and_logged(caplog):
    f = rfun("function() { message('note one'); cat('printed line\\n'); 5 }")
    with caplog.at_level(logging.DEBUG, logger="pysdc.r"):
        assert pr.call("do.call", f, [], package="base") == 5
    log = pr.last_call_log()
    assert log.messages == ("note one",)
    assert log.output == ("printed line",)
    assert any("note one" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)


def test_error_keeps_warnings_seen_before_it():
    f = rfun("function() { warning('first'); stop('then fail') }")
    with pytest.raises(pysdc.RCallError) as info:
        pr.call("do.call", f, [], package="base")
    assert info.value.warnings == ("first",)


# ---------------------------------------------------------------- threads
@pytest.mark.filterwarnings("ignore::pysdc.RWarning")
def test_calls_from_several_threads():
    results, errors = {}, []
    df = pd.DataFrame({"a": np.arange(1000.0), "s": np.array(["x", "y"] * 500, dtype=object)})

    def work(k):
        try:
            for _ in range(5):
                out = pr.call("identity", df.assign(a=df["a"] + k), package="base")
                s = pr.call("sum", out["a"], package="base")
                results.setdefault(k, []).append(s)
                pr.call("as.integer", "no", package="base")  # a warning from a thread
                assert pr.last_call_log().warnings == ("NAs introduced by coercion",)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        assert results[k] == [499500.0 + 1000 * k] * 5


# ---------------------------------------------------------------- wrappers: validation without sdcMicro
def test_wrapper_signatures_match_native():
    for f in FUNCTIONS:
        native = inspect.signature(getattr(pysdc, f.python))
        bridge = inspect.signature(getattr(pr, f.python))
        assert list(bridge.parameters) == list(native.parameters), f.python
        for name, p in native.parameters.items():
            assert bridge.parameters[name].default == p.default, (f.python, name)
            assert bridge.parameters[name].kind == p.kind, (f.python, name)


def test_options_sdcmicro_lacks_are_refused_before_r():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    with pytest.raises(pysdc.InvalidParameterError, match="native pysdc.il_correl"):
        pr.il_correl(x, x, normalization="mlodak")
    with pytest.raises(pysdc.InvalidParameterError, match="scales"):
        pr.il_variables(x, x, scales={"a": "numeric"})
    with pytest.raises(pysdc.InvalidParameterError, match="average"):
        pr.d_utility(x, x, average=True)
    with pytest.raises(pysdc.InvalidParameterError, match="method"):
        pr.d_utility(x, x, method="IL2")
    df = pd.DataFrame({"k": [1, 1, 2]})
    with pytest.raises(pysdc.InvalidParameterError, match="alpha"):
        pr.measure_risk(df, ["k"], alpha=1.5)
    with pytest.raises(pysdc.InvalidParameterError, match="also a key"):  # a native-only check, shared now
        pr.measure_risk(df, ["k"], w="k")
    with pytest.raises(pysdc.InvalidParameterError, match="key_vars"):
        pr.freq_calc(df, ["nope"])
    with pytest.raises(pysdc.InvalidParameterError, match="FreqCalcResult"):
        pr.indiv_risk({"fk": [1]})


# ---------------------------------------------------------------- sdcMicro: formals, wrappers, generic call
@pytest.mark.live
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.python)
def test_defaults_match_sdcmicro_formals(fn):
    target = fn.formals_of or fn.r
    ns = pr.call("asNamespace", "sdcMicro", package="base", as_robject=True)
    if not pr.call("exists", target, envir=ns, inherits=False, package="base"):
        pytest.skip(f"the installed sdcMicro {pr.sdcmicro_version()} has no {target} (it is in sdcMicro's "
                    "development version 5.8.1; its stored reference outputs were generated with that version)")
    formals = pr.call("formals", pr.call("get", target, envir=pr.call("asNamespace", "sdcMicro", package="base",
                                                                       as_robject=True),
                                         package="base", as_robject=True), package="base", as_robject=True)
    names = pr.call("names", formals, package="base")
    names = [names] if isinstance(names, str) else list(names)
    bridge = inspect.signature(getattr(pr, fn.python)).parameters
    py_of_r = {r: py for py, r in fn.arguments.items() if r}
    for r_arg, default in fn.defaults.items():
        assert r_arg in names, f"{target} has no argument {r_arg}"
        # the default is an R expression (-999 is the call `-`(999)): evaluated in R, not converted as text
        expr = pr.call("[[", formals, r_arg, package="base", as_robject=True)
        r_default = pr.call("eval", expr, package="base")
        assert r_default == default or (r_default is None and default is None), (r_arg, r_default, default)
        assert bridge[py_of_r[r_arg]].default == default


@pytest.fixture
def keys_frame():
    # hand-checkable frequencies: (a, b) = (1,1) x2, (1,2) x1, (2,1) x3
    return pd.DataFrame({
        "a": [1, 1, 1, 2, 2, 2],
        "b": pd.Categorical(["x", "x", "y", "x", "x", "x"]),
        "w": [10.0, 20.0, 5.0, 1.0, 2.0, 3.0],
        "s": pd.Categorical(["p", "q", "p", "p", "p", "q"]),
        "h": [1, 1, 2, 3, 3, 4],
    })


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_freq_calc_and_indiv_risk_by_hand(keys_frame, m):
    fr = pr.freq_calc(keys_frame, ["a", "b"], w="w")
    assert isinstance(fr, pysdc.FreqCalcResult)
    assert fr.fk.tolist() == [2, 2, 1, 3, 3, 3]
    assert fr.Fk.tolist() == [30, 30, 5, 6, 6, 6]
    assert (fr.n1, fr.n2) == (1, 2)
    r = pr.indiv_risk(fr, survey=False, qual=0.5)
    assert_allclose(r.rk, 1 / fr.fk, rtol=1e-15)  # population: 1/fk, qual ignored by sdcMicro
    assert r.method is None and math.isnan(r.qual)
    r = pr.indiv_risk(fr)
    pk = fr.fk / fr.Fk
    # fk > 2: pk / (fk - (1 - pk)); fk = 1: pk/(1-pk) log(1/pk)
    assert_allclose(r.rk[3:], pk[3:] / (fr.fk[3:] - (1 - pk[3:])), rtol=1e-12)
    assert_allclose(r.rk[2], pk[2] / (1 - pk[2]) * math.log(1 / pk[2]), rtol=1e-12)
    assert r.method == "approx" and r.qual == 1.0


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_rebuilt_freqcalc_gives_the_same_risk_as_sdcmicros_own_object(keys_frame, m):
    own = pr.call("freqCalc", keys_frame, keyVars=["a", "b"], w="w")
    assert isinstance(own, pr.RList) and own.r_class == ("freqCalc",)
    fr = pr.freq_calc(keys_frame, ["a", "b"], w="w")
    for method in ("approx", "exact"):
        ref = pr.call("indivRisk", own, method=method)
        got = pr.indiv_risk(fr, method=method)
        assert_allclose(got.rk, ref["rk"], rtol=0, atol=0)


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_measure_risk_and_ldiversity(keys_frame, m):
    res = pr.measure_risk(keys_frame, ["a", "b"], w="w", hid="h")
    assert isinstance(res, pysdc.MeasureRiskResult)
    assert list(res.individual.columns) == ["risk", "fk", "Fk", "hier_risk"]
    assert_allclose(res.global_risk_er, res.individual["risk"].sum(), rtol=1e-12)
    assert_allclose(res.global_risk, res.global_risk_er / 6, rtol=1e-12)
    # households: 1 - prod(1 - r) within each household
    r = res.individual["risk"].to_numpy()
    hh = np.array([1 - (1 - r[0]) * (1 - r[1]), 1 - (1 - r[0]) * (1 - r[1]), r[2],
                   1 - (1 - r[3]) * (1 - r[4]), 1 - (1 - r[3]) * (1 - r[4]), r[5]])
    assert_allclose(res.individual["hier_risk"].to_numpy(), hh, rtol=1e-12)
    plain = pr.measure_risk(keys_frame, ["a", "b"])
    assert plain.hier_risk is None and plain.individual["fk"].tolist() == [2, 2, 1, 3, 3, 3]
    ld = pr.ldiversity(keys_frame, ["a", "b"], ["s"])
    assert isinstance(ld, pysdc.LDiversityResult) and ld.table.index.equals(keys_frame.index)
    # distinct sensitive values per key group: {p,q}, {p}, {p,p,q}
    assert ld.table["s_Distinct_Ldiversity"].tolist() == [2, 2, 1, 2, 2, 2]


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_bridge_keeps_the_data_index_and_computes_alpha(keys_frame, m):
    df = keys_frame.set_index(pd.Index([10, 11, 12, 13, 14, 15], name="rid"))
    df.loc[11, "a"] = np.nan  # a missing key: alpha matters
    for alpha in (1.0, 0.5, 0.0):  # alpha != 1 runs sdcMicro's internal worker measure_riskWORK
        br = pr.measure_risk(df, ["a", "b"], w="w", hid="h", alpha=alpha)
        nat = pysdc.measure_risk(df, ["a", "b"], w="w", hid="h", alpha=alpha)
        assert br.individual.index.equals(df.index)
        pd.testing.assert_frame_equal(br.individual, nat.individual, check_exact=False, rtol=1e-12)
        assert_allclose(br.global_risk_er, nat.global_risk_er, rtol=1e-12)


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_utility_wrappers_by_hand(m):
    x = pd.DataFrame({"u": [1.0, 2.0, 4.0, 8.0], "v": [2.0, 1.0, 0.5, 3.0]})
    xm = x + pd.DataFrame({"u": [0.5, 0.0, -1.0, 0.0], "v": [0.0, 0.25, 0.0, 0.0]})
    il1 = pr.d_utility(x, xm, method="IL1")
    assert_allclose(il1, 100 * (0.5 / 1 + 1 / 4 + 0.25 / 1), rtol=1e-12)
    il1s = pr.d_utility(x, xm)
    sd = x.std(ddof=1)
    assert_allclose(il1s, (1.5 / sd["u"] + 0.25 / sd["v"]) / math.sqrt(2), rtol=1e-12)
    iv = pr.il_variables(x, xm)
    d = (2 / math.pi) * np.arctan(np.abs((x - xm).to_numpy()))
    assert_allclose(iv.per_variable.to_numpy(), d.sum(axis=0) / 4, rtol=1e-12)
    assert list(iv.per_variable.index) == ["u", "v"] and iv.n == 4
    assert_allclose(iv.value, d.sum() / 8, rtol=1e-12)
    ic = pr.il_correl(x.assign(w=[1, 2, 3, 5]), x.assign(w=[1, 2, 3, 5]))
    assert ic.value == 0.0 and ic.n_vars == 3 and ic.variables == ("u", "v", "w") and ic.n_x == 4


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_generic_call_masks_then_native_measures(m):
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"inc": rng.normal(1000, 100, 200), "exp": rng.normal(500, 50, 200),
                       "sex": pd.Categorical(rng.choice(["f", "m"], 200)),
                       "reg": pd.Categorical(rng.choice(["a", "b", "c", "d"], 200))})
    pr.call("set.seed", 1, package="base")
    noisy = pr.call("addNoise", df[["inc", "exp"]], noise=50)
    xm = noisy["xm"]
    assert isinstance(xm, pd.DataFrame) and xm.shape == (200, 2)
    assert not np.allclose(xm.to_numpy(), df[["inc", "exp"]].to_numpy())
    ref = pr.d_utility(df[["inc", "exp"]], xm)
    native = pysdc.d_utility(df[["inc", "exp"]], xm)
    assert_allclose(native, ref, rtol=1e-12)
    sdc = pr.call("createSdcObj", df, keyVars=["sex", "reg"], numVars=["inc", "exp"])
    assert isinstance(sdc, pr.RObject) and sdc.r_class == ("sdcMicroObj",)
    sdc = pr.call("localSuppression", sdc, k=20)
    sup = pr.call("extractManipData", sdc)
    assert isinstance(sup, pd.DataFrame) and sup["sex"].dtype == "category"
    assert sup["reg"].isna().sum() + sup["sex"].isna().sum() > 0  # something was suppressed
    bridge = pr.freq_calc(sup, ["sex", "reg"])
    native = pysdc.freq_calc(sup, ["sex", "reg"])
    assert_allclose(native.fk, bridge.fk, rtol=0, atol=0)
    assert_allclose(native.Fk, bridge.Fk, rtol=0, atol=0)


@pytest.mark.parametrize("m", [pytest.param(0, marks=live)])
def test_bridge_matches_native_on_small_inputs(keys_frame, m):
    nat = pysdc.measure_risk(keys_frame, ["a", "b"], w="w", hid="h")
    br = pr.measure_risk(keys_frame, ["a", "b"], w="w", hid="h")
    for f in ("global_risk_er", "global_risk", "hier_risk_er"):
        assert_allclose(getattr(nat, f), getattr(br, f), rtol=1e-12)
    nat_ir = pysdc.indiv_risk(pysdc.freq_calc(keys_frame, ["a", "b"], w="w"))
    br_ir = pr.indiv_risk(pysdc.freq_calc(keys_frame, ["a", "b"], w="w"))  # native freq, R risk
    assert_allclose(nat_ir.rk, br_ir.rk, rtol=1e-12)
    nat_ld = pysdc.ldiversity(keys_frame, ["a", "b"], ["s"])
    br_ld = pr.ldiversity(keys_frame, ["a", "b"], ["s"])
    assert_allclose(nat_ld.table.to_numpy(dtype=float), br_ld.table.to_numpy(dtype=float), rtol=1e-12)


@pytest.mark.parametrize("method", [pytest.param(m, marks=live) for m in ("eigen", "robeigen")])
def test_d_utility_na_comes_back_as_nan_with_a_warning(method):
    # a constant column: sdcMicro's eigen/robeigen fail inside try() and return a logical NA
    x = pd.DataFrame({"a": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "b": [1.0, 2.0, 3.0, 5.0, 8.0, 13.0]})
    with pytest.warns(pysdc.DegenerateResultWarning, match="NA"):
        assert np.isnan(pr.d_utility(x, x + 0.5, method=method))
