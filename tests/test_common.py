"""Common tests over a registry of every native measure (after scikit-learn's common tests).

Each measure is declared once with a way to build a valid call; each property is one test
looping over the measures that have it.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r
from pysdc import InvalidParameterError

PUBLIC = ("d_utility", "il_correl", "il_variables", "freq_calc", "indiv_risk", "measure_risk", "ldiversity")


def _risk_frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": pd.Categorical(rng.choice(["x", "y", "z"], n)),
            "b": pd.Categorical(rng.choice(["p", "q"], n)),
            "w": rng.uniform(1, 50, n),
            "h": rng.integers(0, n // 3, n),
            "s": pd.Categorical(rng.choice(["s1", "s2", "s3"], n)),
        },
        index=pd.Index(rng.permutation(n) + 1000, name="rid"),
    )
    df.loc[df.index[:4], "a"] = np.nan
    return df


def _util_pair(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.lognormal(size=(n, 3)), columns=["u", "v", "t"])
    xm = x + rng.normal(scale=0.1, size=x.shape)
    x.iloc[0, 0] = np.nan
    return x, xm


# name -> (function of a frame, invalid keyword values, per-row?)
def _calls():
    x, xm = _util_pair()
    df = _risk_frame()
    freq = pysdc.freq_calc(df, ["a", "b"], w="w")
    return {
        "d_utility": (lambda: pysdc.d_utility(x, xm, "IL1s"), [x, xm], {"method": ["il1", None, 3]}),
        "il_correl": (lambda: pysdc.il_correl(x, xm), [x, xm], {"normalization": ["half", None]}),
        "il_variables": (lambda: pysdc.il_variables(x, xm), [x, xm], {"scales": [["u"], {"u": "ratio"}]}),
        "freq_calc": (
            lambda: pysdc.freq_calc(df, ["a", "b"], w="w"), [df],
            {"alpha": [-0.1, 1.5, "1", float("nan")], "key_vars": [[], ["nope"]], "w": ["nope"]},
        ),
        "indiv_risk": (
            lambda: pysdc.indiv_risk(freq), [df],
            {"method": ["exactly", None], "survey": ["yes"]},
        ),
        "measure_risk": (
            lambda: pysdc.measure_risk(df, ["a", "b"], w="w", hid="h"), [df],
            {"max_global_risk": [0.0, 1.0, -1, 2, "0.1"], "alpha": [2.0, -1.0], "hid": ["nope"]},
        ),
        "ldiversity": (
            lambda: pysdc.ldiversity(df, ["a", "b"], "s"), [df],
            {"ldiv_index": ["nope", "a"], "key_vars": [["nope"]]},
        ),
    }


CALLS = _calls()


def test_registry_covers_the_public_measures():
    assert set(CALLS) == set(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_inputs_are_not_modified(name):
    call, inputs, _ = CALLS[name]
    before = [f.copy(deep=True) for f in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()
    for b, a in zip(before, inputs):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("name", PUBLIC)
def test_invalid_values_are_refused_with_the_parameter_named(name):
    call, _, invalid = CALLS[name]
    func = getattr(pysdc, name)
    sig = inspect.signature(func)
    # rebuild the valid call's arguments, then replace one at a time
    x, xm = _util_pair()
    df = _risk_frame()
    valid = {
        "d_utility": dict(x=x, xm=xm),
        "il_correl": dict(x=x, xm=xm),
        "il_variables": dict(x=x, xm=xm),
        "freq_calc": dict(data=df, key_vars=["a", "b"], w="w"),
        "indiv_risk": dict(freq=pysdc.freq_calc(df, ["a", "b"], w="w")),
        "measure_risk": dict(data=df, key_vars=["a", "b"], w="w", hid="h"),
        "ldiversity": dict(data=df, key_vars=["a", "b"], ldiv_index="s"),
    }[name]
    for param, values in invalid.items():
        assert param in sig.parameters, (name, param)
        for value in values:
            with pytest.raises(InvalidParameterError) as info:
                func(**{**valid, param: value})
            assert str(info.value), (name, param, value)


@pytest.mark.parametrize("name", PUBLIC)
def test_results_are_frozen_with_readable_repr(name):
    call, _, _ = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call()
    if isinstance(result, (float, pd.DataFrame)):
        return  # d_utility returns a float, ldiversity a DataFrame, as specified
    assert dataclasses.is_dataclass(result)
    text = repr(result)
    assert text.startswith(type(result).__name__ + "(") and len(text) < 600
    field = dataclasses.fields(result)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, None)


@pytest.mark.parametrize("name", PUBLIC)
def test_bridge_has_the_native_signature(name):
    native = inspect.signature(getattr(pysdc, name))
    bridge = inspect.signature(getattr(pysdc.r, name))
    strip = lambda sig: [(p.name, p.kind, p.default) for p in sig.parameters.values()]  # noqa: E731
    assert strip(bridge) == strip(native)


def test_per_row_results_follow_row_order_and_index():
    df = _risk_frame(seed=3)
    perm = np.random.default_rng(1).permutation(len(df))
    a = pysdc.measure_risk(df, ["a", "b"], w="w", hid="h").individual
    b = pysdc.measure_risk(df.iloc[perm], ["a", "b"], w="w", hid="h").individual
    assert a.index.equals(df.index) and b.index.equals(df.index[perm])
    pd.testing.assert_frame_equal(a.loc[b.index], b, check_exact=False, rtol=1e-12)
    fa = pysdc.freq_calc(df, ["a", "b"], w="w")
    fb = pysdc.freq_calc(df.iloc[perm], ["a", "b"], w="w")
    np.testing.assert_allclose(fa.fk[perm], fb.fk, rtol=1e-12)
    np.testing.assert_allclose(fa.Fk[perm], fb.Fk, rtol=1e-12)
