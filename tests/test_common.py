"""Common tests over the registry of measures (after scikit-learn's common tests).

Every measure is declared once, in :mod:`pysdc._registry`, with a small valid call
(``example``) and its parameter constraints; each property is one test looping over the
registry. The invalid values are generated from the declared constraints, and the same
values must be refused the same way by the native function and by its R bridge wrapper
(before R starts, so these run everywhere).
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
from pysdc._registry import MEASURES
from pysdc._validation import validate

NAMES = [m.python for m in MEASURES]


def _frames(kwargs):
    return [v for v in kwargs.values() if isinstance(v, pd.DataFrame)]


def _invalid_cases():
    """(measure, parameter, invalid value) for every declared constraint of every measure."""
    out = []
    for m in MEASURES:
        valid = validate(m.params, m.example())
        for param, constraint in m.params.items():
            for value in constraint.invalid_values(param, valid):
                out.append(pytest.param(m, param, value, id=f"{m.python}-{param}-{value!r}"[:90]))
    return out


INVALID = _invalid_cases()


def test_registry_entries_are_complete():
    for m in MEASURES:
        assert m.family in ("risk", "loss"), m.python
        assert m.example is not None, m.python
        if m.r:  # an sdcMicro measure: its stored cases are run and compared through the entry
            assert m.run_case is not None and m.compare_case is not None, m.python
        else:  # a native-only measure: no R name, no bridge, no stored cases
            assert not m.bridge and m.run_case is None and all(v is None for v in m.arguments.values()), m.python
        sig = inspect.signature(m.native)
        assert set(m.arguments) == set(sig.parameters), m.python  # every argument has a row in the name table
        assert set(m.params) <= set(sig.parameters), m.python
        assert set(m.r_requires) <= set(sig.parameters), m.python
        # options are keyword-only: only the data arguments (no default) may be positional
        for p in sig.parameters.values():
            if p.default is not inspect.Parameter.empty:
                assert p.kind is inspect.Parameter.KEYWORD_ONLY, (m.python, p.name)
        assert getattr(pysdc, m.python) is m.native and m.python in pysdc.__all__
        assert m.result in (float, int, pd.Series, pd.DataFrame, np.ndarray) or getattr(pysdc, m.result.__name__) is m.result


@pytest.mark.parametrize("m", MEASURES, ids=NAMES)
def test_inputs_are_not_modified(m):
    kwargs = m.example()
    before = [f.copy(deep=True) for f in _frames(kwargs)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.native(**kwargs)
    for b, a in zip(before, _frames(kwargs)):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("m, param, value", INVALID)
def test_invalid_values_are_refused_with_the_parameter_named(m, param, value):
    kwargs = {**m.example(), param: value}
    with pytest.raises(InvalidParameterError) as info:
        m.native(**kwargs)
    assert str(info.value)


@pytest.mark.parametrize("m, param, value", [c for c in INVALID if c.values[0].bridge])
def test_bridge_refuses_the_same_values_the_same_way(m, param, value):
    """Shared declarations: the bridge raises the native function's error, before starting R."""
    kwargs = {**m.example(), param: value}
    with pytest.raises(InvalidParameterError) as native:
        m.native(**kwargs)
    with pytest.raises(InvalidParameterError) as bridge:
        getattr(pysdc.r, m.python)(**kwargs)
    assert str(bridge.value) == str(native.value)


def test_invalid_values_cover_every_constraint():
    covered = {(m.python, p) for m, p, _ in (c.values for c in INVALID)}
    declared = {(m.python, p) for m in MEASURES for p, c in m.params.items() if type(c).__name__ != "Any_"}
    assert declared <= covered, declared - covered


@pytest.mark.parametrize("m", MEASURES, ids=NAMES)
def test_results_are_frozen_with_readable_repr(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = m.native(**m.example())
    assert isinstance(result, m.result)
    if m.result in (float, int, pd.Series, pd.DataFrame, np.ndarray):
        return
    assert dataclasses.is_dataclass(result)
    text = repr(result)
    assert text.startswith(type(result).__name__ + "(") and len(text) < 600
    field = dataclasses.fields(result)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, None)


@pytest.mark.parametrize("m", [m for m in MEASURES if m.bridge], ids=[m.python for m in MEASURES if m.bridge])
def test_bridge_has_the_native_signature(m):
    native = inspect.signature(m.native)
    bridge = inspect.signature(getattr(pysdc.r, m.python))
    assert bridge == native
    assert getattr(pysdc.r, m.python).__doc__


@pytest.mark.parametrize("m", [m for m in MEASURES if m.r_requires], ids=[m.python for m in MEASURES if m.r_requires])
def test_bridge_refuses_options_sdcmicro_lacks_before_r(m):
    for param, (_only, message) in m.r_requires.items():
        for value in {"average": [True], "normalization": ["mlodak"], "scales": [{"u": "numeric"}]}.get(param, []):
            with pytest.raises(InvalidParameterError) as info:
                getattr(pysdc.r, m.python)(**{**m.example(), param: value})
            assert str(info.value) == message


def test_per_row_results_follow_row_order_and_index():
    from pysdc._registry import _risk_frame

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
