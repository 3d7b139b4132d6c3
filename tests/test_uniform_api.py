"""A uniform API over the registry (issue 25, item 5).

Every public measure is validated from its declaration (the analysts' checks included), takes an
SdcProblem in place of its frames where it has frames, returns an instance of the result class its
registry entry declares (no bare int, float, Series, ndarray or DataFrame), and keeps ``float()`` /
``int()`` where the answer is one number. The deprecation shims for pysdc versions that never existed
are gone.
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError
from pysdc._foreign import declared_measure
from pysdc._registry import MEASURES, by_python_name
from pysdc._results import _Repr
from pysdc._validation import Frame

NAMES = [m.python for m in MEASURES]
CHECKS = ("gini", "ci_overlap", "compare_estimates", "compare_regression")
BARE = (int, float, pd.Series, pd.DataFrame, np.ndarray)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ------------------------------------------------------------------ validated by the declaration


@pytest.mark.parametrize("m", MEASURES, ids=NAMES)
def test_every_parameter_is_declared_and_the_measure_decorated(m):
    sig = inspect.signature(m.native)
    assert set(m.params) == set(sig.parameters), (m.python, set(sig.parameters) - set(m.params))
    assert declared_measure(m.native) is not None, m.python  # the same decorator as every measure


@pytest.mark.parametrize("name, param, value, message", [
    ("compare_estimates", "level", 1.5, "level must lie in (0.0, 1.0); got 1.5."),
    ("compare_regression", "level", 0.0, "level must lie in (0.0, 1.0); got 0.0."),
    ("gini", "level", 1.0, "level must lie in (0.0, 1.0); got 1.0."),
    ("compare_regression", "family", "gamma", "family must be one of 'gaussian', 'binomial', 'poisson'; got 'gamma'."),
    ("compare_estimates", "gini_ci", "exact", "gini_ci must be one of 'bootstrap', 'linearization'; got 'exact'."),
    ("gini", "na_rm", "yes", "na_rm must be True or False; got 'yes'."),
    ("gini", "random_state", -1, "random_state must be a non-negative int; got -1."),
    ("compare_estimates", "random_state", "abc", None),
])
def test_the_checks_refuse_with_the_shared_messages(name, param, value, message):
    """The analysts' checks refuse bad values with the messages every other measure gives (one template)."""
    m = by_python_name(name)
    with pytest.raises(InvalidParameterError) as got:
        m.native(**{**m.example(), param: value})
    constraint = m.params[param]
    with pytest.raises(InvalidParameterError) as shared:
        constraint.check(param, value, m.example())
    assert str(got.value) == str(shared.value)
    if message is not None:
        assert str(got.value) == message


def test_the_checks_refuse_values_they_used_to_take_silently():
    """None as a bound was NaN, a weight column given as a list was taken apart by the body."""
    with pytest.raises(InvalidParameterError, match="lower_x must be a number"):
        pysdc.ci_overlap(None, 1.0, 0.0, 1.0)
    with pytest.raises(InvalidParameterError, match="x must be a 1-d numeric"):
        pysdc.gini(None)
    x, xm = pysdc.load_demo_pair()
    with pytest.raises(InvalidParameterError, match="w must name exactly one column"):
        pysdc.compare_estimates(x, xm, "mean(income)", w=["weight", "income"])
    with pytest.raises(InvalidParameterError, match="n_boot must be an integer >= 2"):
        pysdc.compare_estimates(x, xm, "gini(income)", n_boot=1)


# ------------------------------------------------------------------ a problem in place of the frames


@pytest.fixture(scope="module")
def demo():
    x, xm = pysdc.load_demo_pair()
    problem = pysdc.SdcProblem(x, ["sex", "age_group"], num_vars=["income"], w="weight")
    return x, xm, problem


def test_compare_estimates_takes_a_problem(demo):
    x, xm, problem = demo
    est = ["mean(income)", "median(income)"]
    got = pysdc.compare_estimates(problem, xm, est)  # the problem's weight fills w
    want = pysdc.compare_estimates(x, xm, est, w="weight")
    assert got.w == "weight"
    pd.testing.assert_frame_equal(got.table, want.table)
    both = pysdc.compare_estimates(problem, problem.with_data(xm), est)
    pd.testing.assert_frame_equal(both.table, want.table)


def test_compare_regression_takes_a_problem(demo):
    x, xm, problem = demo
    got = pysdc.compare_regression(problem, xm, "income ~ hhsize + sex")
    want = pysdc.compare_regression(x, xm, "income ~ hhsize + sex", w="weight")
    pd.testing.assert_frame_equal(got.table, want.table)


@pytest.mark.parametrize("m", [m for m in MEASURES if not any(isinstance(c, Frame) for c in m.params.values())],
                         ids=lambda m: m.python)
def test_measures_without_frames_refuse_a_problem_by_name(m, demo):
    """gini takes a vector of incomes, ci_overlap interval bounds: a problem has no meaning there, and is
    refused with the parameter named (not a traceback from inside)."""
    first = next(iter(m.params))
    with pytest.raises(InvalidParameterError, match=first):
        m.native(**{**m.example(), first: demo[2]})


# ------------------------------------------------------------------ result classes


@pytest.mark.parametrize("m", MEASURES, ids=NAMES)
def test_each_measure_returns_its_declared_result_class(m):
    assert m.result not in BARE and issubclass(m.result, _Repr) and dataclasses.is_dataclass(m.result), m.python
    assert getattr(pysdc, m.result.__name__) is m.result and m.result.__name__ in pysdc.__all__
    result = _quiet(m.native, **m.example())
    assert type(result) is m.result
    assert set(m.fields) <= {f.name for f in dataclasses.fields(m.result)}, m.python


def test_scalar_results_are_still_numbers():
    ex = by_python_name("k_anon_violations").example()
    k = pysdc.k_anon_violations(**ex)
    assert isinstance(k, int) and int(k) == k.value and k + 1 == k.value + 1 and operator.index(k) == k.value
    assert k == k.value and k.n == len(ex["data"]) and k.key_vars == ("a", "b") and not k.weighted
    assert pickle.loads(pickle.dumps(k)).value == k.value
    d = pysdc.d_risk(**by_python_name("d_risk").example())
    assert isinstance(d, float) and float(d) == d.value and d * 2 == d.value * 2 and (d.n, d.n_vars) == (40, 3)
    assert pickle.loads(pickle.dumps(d)).value == d.value
    u = pysdc.d_utility(**{**by_python_name("d_utility").example(), "method": "IL1"})
    assert isinstance(u, float) and float(u) == u.value and u.method == "IL1"
    j = pysdc.ci_overlap(0.0, 2.0, 1.0, 3.0)
    assert float(j) == 0.5 and j.overlap.shape == ()
    many = pysdc.ci_overlap([0.0, 0.0], [2.0, 4.0], 1.0, [3.0, 2.0])
    np.testing.assert_array_equal(np.asarray(many), [0.5, 0.625])
    with pytest.raises(TypeError, match="one pair"):
        float(many)
    assert float(pysdc.gini([1.0, 2.0, 3.0], ci=None)) == pytest.approx(200 / 9, rel=1e-15)


def test_k_anon_counts_match_an_independent_count():
    """The count is the number of records in key combinations seen fewer than k times (no missing keys)."""
    df = pd.DataFrame({"a": list("xxyyyzz") + ["w"], "b": list("pppqqqq") + ["p"]})
    for k in (1, 2, 3):
        sizes = df.groupby(["a", "b"])["a"].transform("size")
        assert int(pysdc.k_anon_violations(df, ["a", "b"], k=k)) == int((sizes < k).sum())


def test_per_variable_results_keep_the_series():
    x = pd.DataFrame({"v": pd.Categorical(list("aabb")), "u": [1.0, 2.0, 3.0, 4.0]})
    xm = pd.DataFrame({"v": pd.Categorical(list("abbb")), "u": [1.0, 2.0, 3.0, 5.0]})
    h = pysdc.hellinger(x, xm, bins=2)
    assert list(h.per_variable.index) == ["v", "u"] and h.per_variable.name == "hellinger"
    assert h.ghd == pytest.approx(h.per_variable.mean(), rel=1e-15) and (h.n_x, h.n_xm, h.bins) == (4, 4, 2)
    pd.testing.assert_frame_equal(h.to_frame(), h.per_variable.to_frame())
    e = pysdc.entropy(x)
    assert e.per_variable["v"] == pytest.approx(np.log(2), rel=1e-15) and e.n == 4
    ie = pysdc.il_entropy(x, xm)
    # x: a, a, b, b -> log 2; xm: a, b, b, b -> log 4 - 3/4 log 3
    assert ie.per_variable["v"] == pytest.approx(np.log(2) - (np.log(4) - 0.75 * np.log(3)), rel=1e-13)
    np.testing.assert_allclose(ie.per_variable, (ie.entropy_xm - ie.entropy_x).abs(), rtol=0, atol=0)
    assert list(ie.to_frame().columns) == ["entropy_x", "entropy_xm", "il_entropy"]


def test_tabular_results_have_to_frame():
    x, xm = pysdc.load_demo_pair()
    e = pysdc.compare_estimates(x, xm, "mean(income)", w="weight")
    pd.testing.assert_frame_equal(e.to_frame(), e.table)
    assert e.to_frame() is not e.table and e.level == 0.95 and e.by == ()
    r = pysdc.compare_regression(x, xm, "income ~ hhsize")
    pd.testing.assert_frame_equal(r.to_frame(), r.table)
    j = pysdc.ci_overlap([0.0, 1.0], [2.0, 3.0], 0.5, 2.5).to_frame()
    assert list(j.columns) == ["lower_x", "upper_x", "lower_xm", "upper_xm", "overlap"] and len(j) == 2
    np.testing.assert_array_equal(j["lower_xm"], [0.5, 0.5])


@pytest.mark.duckdb
def test_k_anon_on_an_engine_returns_the_same_class():
    import duckdb

    ex = by_python_name("k_anon_violations").example()
    data = ex["data"].reset_index(drop=True).assign(a=lambda d: d["a"].astype(str).where(d["a"].notna()),
                                                    b=lambda d: d["b"].astype(str), s=lambda d: d["s"].astype(str))
    con = duckdb.connect()
    rel = con.from_df(data)
    native = pysdc.k_anon_violations(data, ["a", "b"], k=3)
    on_engine = pysdc.k_anon_violations(rel, ["a", "b"], k=3)
    assert type(on_engine) is pysdc.KAnonResult and on_engine == native and on_engine.n == native.n


# ------------------------------------------------------------------ the shims are gone


def test_no_deprecation_shims_for_versions_that_never_existed():
    from pysdc._registry import _risk_frame

    df = _risk_frame()
    m = pysdc.measure_risk(df, ["a", "b"], w="w", hid="h")
    assert not hasattr(m, "global_risk_ER") and not hasattr(m, "hier_risk_ER")
    ld = pysdc.ldiversity(df, ["a", "b"], "s")
    with pytest.raises(TypeError):
        ld["s_Distinct_Ldiversity"]
    with pytest.raises(AttributeError):
        ld.columns  # noqa: B018
    pd.testing.assert_frame_equal(ld.to_frame(), ld.table)
    import pysdc._results as results

    assert not hasattr(results, "_deprecated")


# ------------------------------------------------------------------ the bridge returns the native classes


def _sdcmicro_missing():
    try:
        import rpy2  # noqa: F401
    except ImportError:
        return "rpy2 is not installed"
    import pysdc.r as pr

    st = pr.available(sdcmicro=True)
    return None if st else st.reason


@pytest.mark.live
@pytest.mark.needs_r
@pytest.mark.parametrize("name", ["k_anon_violations", "d_risk"])
def test_the_bridge_returns_the_native_result_class(name):
    """sdcMicro's kAnon_violations / dRisk through pysdc.r: the same class with the same fields and number."""
    why = _sdcmicro_missing()
    if why:
        pytest.skip(f"sdcMicro through rpy2 unavailable: {why}")
    import pysdc.r as pr

    kwargs = by_python_name(name).example()
    native = _quiet(getattr(pysdc, name), **kwargs)
    bridged = _quiet(getattr(pr, name), **kwargs)
    assert type(bridged) is type(native)
    for f in dataclasses.fields(native):
        a, b = getattr(native, f.name), getattr(bridged, f.name)
        assert a == pytest.approx(b, rel=1e-12) if isinstance(a, float) else a == b, f.name
