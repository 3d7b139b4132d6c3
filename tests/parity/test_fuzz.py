"""Messy frames never leak a raw error (issue 16): every public measure returns or raises a pysdc error.

The measures come from the registry (:data:`pysdc._registry.MEASURES`), so a new measure is
fuzzed as soon as it is registered. Each call starts from the entry's small valid example and
replaces its frames by random messy frames (pandas ``string``, ``Int64``, ``boolean``,
categoricals with NA, ordered categoricals, object columns of mixed text, ``inf``, all-NA and
empty-text columns, 0-3 rows) and its column arguments by columns of those frames.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from _messy import KINDS, column
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pysdc
from pysdc._errors import PysdcError
from pysdc._registry import MEASURES
from pysdc._validation import Columns, Frame


@st.composite
def messy_frames(draw):
    """Two messy frames with the same column names (x and xm may differ in kinds) and 0-3 rows."""
    n = draw(st.integers(0, 3))
    n_xm = n if draw(st.integers(0, 5)) else draw(st.integers(0, 3))
    names = [f"c{i}" for i in range(draw(st.integers(2, 4)))]
    kinds = [draw(st.sampled_from(KINDS)) for _ in names]
    if draw(st.integers(0, 2)) == 0:  # often one kind throughout, so that the measures get past validation
        kinds = [kinds[0]] * len(names)
    kinds_m = [k if draw(st.integers(0, 5)) else draw(st.sampled_from(KINDS)) for k in kinds]
    x = pd.DataFrame({c: column(k, n, draw) for c, k in zip(names, kinds)})
    xm = pd.DataFrame({c: column(k, n_xm, draw) for c, k in zip(names, kinds_m)})
    return x, xm


def _messy_call(m, draw) -> dict:
    kwargs = m.example()
    params = m.params
    x, xm = draw(messy_frames())
    frames = [name for name, c in params.items() if isinstance(c, Frame) and name in kwargs]
    for i, name in enumerate(frames):
        kwargs[name] = x if i == 0 else xm
    names = list(x.columns)
    used: list = []
    for name, c in params.items():
        if not isinstance(c, Columns) or name not in kwargs or c.of not in frames:
            continue
        if c.optional and draw(st.booleans()):
            kwargs[name] = None
            continue
        free = [n for n in names if n not in used] or names
        k = 1 if c.single else draw(st.integers(1, min(2, len(free))))
        cols = draw(st.permutations(free))[:k]
        used += cols
        kwargs[name] = cols[0] if c.single else cols
    if "formula" in kwargs:  # formula-based measures: the key columns drawn above
        keys = [c for c in names if c not in used][:2] or names[:2]
        kwargs["formula"] = "~ " + " + ".join(keys)
    if "scales" in kwargs:
        kwargs.pop("scales")
    return kwargs


@pytest.mark.parametrize("m", MEASURES, ids=[m.python for m in MEASURES])
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_messy_frames_never_leak_a_raw_error(m, data):
    kwargs = _messy_call(m, data.draw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            m.native(**kwargs)
        except PysdcError:
            pass


def test_il_variables_string_dtype_reproducer():
    """Issue 16's reproducer: pandas string columns with pd.NA used to raise 'boolean value of NA is ambiguous'."""
    x = pd.DataFrame({"s": pd.array(["p", "q", None, "p"], dtype="string")})
    xm = pd.DataFrame({"s": pd.array(["p", None, "q", "q"], dtype="string")})
    r = pysdc.il_variables(x, xm)
    # nominal distances: equal 0, different 1, one side missing 1 -> 0 + 1 + 1 + 1 over 4 records
    assert r.per_variable["s"] == pytest.approx(3 / 4)
    assert r.value == pytest.approx(3 / 4)
