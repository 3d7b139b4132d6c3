"""Messy frames never leak a raw error, beyond the registered measures (issue 16).

``tests/parity/test_fuzz.py`` throws messy frames at every measure of the registry. This file covers
what it does not: the results' own views (``str()``, ``repr()``, ``_repr_html_`` of whatever the
measures return on messy frames), the public functions outside the registry (``SdcProblem`` and its
``risk``/``utility``/``compare``, the report model builders, the typed-table writer and reader).
Each call either returns or raises one of pysdc's own exceptions (:mod:`pysdc._errors`).
Frames: pandas ``string``, ``Int64``, ``boolean``, categoricals with NA (ordered too), object
columns of mixed text, ``inf``, all-NA and empty-text columns, 0-3 rows.
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
from pysdc._results import _Repr
from pysdc._validation import Columns, Frame
from pysdc.io import read_table, write_table

SETTINGS = settings(max_examples=25, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def messy_frame(draw, n=None, names=None):
    n = draw(st.integers(0, 3)) if n is None else n
    names = names or [f"c{i}" for i in range(draw(st.integers(2, 5)))]
    kinds = [draw(st.sampled_from(KINDS)) for _ in names]
    if draw(st.integers(0, 2)) == 0:
        kinds = [kinds[0]] * len(names)
    return pd.DataFrame({c: column(k, n, draw) for c, k in zip(names, kinds)})


def _quiet(fn, *args, **kwargs):
    """Call ``fn``; a pysdc error is an answer (None), anything else fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except PysdcError:
            return None


def _views(res) -> None:
    """Every view of a result works: str, repr, the HTML view, IPython's text view."""
    if res is None:
        return
    str(res)
    repr(res)
    if isinstance(res, _Repr):
        assert isinstance(res._repr_html_(), str)

        class P:
            def text(self, t):
                assert isinstance(t, str)

        res._repr_pretty_(P(), False)


# --------------------------------------------------------------------------- the results' views on messy frames


def _messy_call(m, draw) -> dict:
    kwargs = m.example()
    params = m.params
    n = draw(st.integers(0, 3))
    x = draw(messy_frame(n=n))
    xm = draw(messy_frame(n=n, names=list(x.columns)))
    frames = [name for name, c in params.items() if isinstance(c, Frame) and name in kwargs]
    for i, name in enumerate(frames):
        kwargs[name] = x if i == 0 else xm
    names, used = list(x.columns), []
    for name, c in params.items():
        if not isinstance(c, Columns) or name not in kwargs or c.of not in frames:
            continue
        if c.optional and draw(st.booleans()):
            kwargs[name] = None
            continue
        free = [v for v in names if v not in used] or names
        k = 1 if c.single else draw(st.integers(1, min(2, len(free))))
        cols = draw(st.permutations(free))[:k]
        used += cols
        kwargs[name] = cols[0] if c.single else cols
    if "formula" in kwargs:
        kwargs["formula"] = "~ " + " + ".join([v for v in names if v not in used][:2] or names[:2])
    kwargs.pop("scales", None)
    return kwargs


@pytest.mark.parametrize("m", MEASURES, ids=[m.python for m in MEASURES])
@SETTINGS
@given(data=st.data())
def test_results_of_messy_frames_print(m, data):
    _views(_quiet(m.native, **_messy_call(m, data.draw)))


# --------------------------------------------------------------------------- public functions outside the registry


@SETTINGS
@given(data=st.data())
def test_sdc_problem_on_messy_frames(data):
    n = data.draw(st.integers(0, 3))
    x = data.draw(messy_frame(n=n, names=["k1", "k2", "v1", "v2", "s"]))
    xm = data.draw(messy_frame(n=n, names=list(x.columns)))
    kw = {}
    if data.draw(st.booleans()):
        kw["num_vars"] = ["v1", "v2"]
    if data.draw(st.booleans()):
        kw["sensitive"] = ["s"]
    problem = _quiet(pysdc.SdcProblem, x, ["k1", "k2"], **kw)
    if problem is None:
        return
    _views(problem)
    _views(_quiet(problem.risk, suda=data.draw(st.booleans())))
    _views(_quiet(problem.utility, xm))
    _views(_quiet(problem.compare, xm, suda=False))


@SETTINGS
@given(data=st.data())
def test_report_model_on_messy_frames(data):
    from pysdc.problem import SdcProblem
    from pysdc.report import risk_text, utility_text

    n = data.draw(st.integers(0, 3))
    x = data.draw(messy_frame(n=n, names=["k1", "k2", "v1"]))
    xm = data.draw(messy_frame(n=n, names=list(x.columns)))
    problem = _quiet(SdcProblem, x, ["k1", "k2"])
    if problem is None:
        return
    res = _quiet(problem.risk, suda=data.draw(st.booleans()))
    rep = None if res is None else _quiet(res.to_dict)
    if rep is not None:
        _quiet(risk_text, {**rep, "data": {**rep["data"], "path": "-"}, "warnings": []})
    res = _quiet(problem.utility, xm)
    rep = None if res is None else _quiet(res.to_dict)
    if rep is not None:
        _quiet(utility_text, {**rep, "original": {**rep["original"], "path": "-"},
                              "masked": {**rep["masked"], "path": "-"}})


@SETTINGS
@given(data=st.data())
def test_table_files_round_trip_or_refuse(tmp_path_factory, data):
    x = data.draw(messy_frame())
    path = tmp_path_factory.mktemp("messy") / "m.csv.gz"
    if _quiet(write_table, x, path) is None:
        return
    back = _quiet(read_table, path)
    assert back is not None, "a table pysdc wrote must read back"
    assert list(back.columns) == list(x.columns) and len(back) == len(x)
    for c in x.columns:  # same missing cells, same values elsewhere
        assert (back[c].isna().to_numpy() == x[c].isna().to_numpy()).all(), c
    _quiet(read_table, path, schema=None, sep=";")


def test_il_variables_string_dtype_reproducer():
    """The issue's reproducer: pandas string columns with pd.NA (it raised 'boolean value of NA is ambiguous')."""
    x = pd.DataFrame({"s": pd.array(["p", "q", None, "p"], dtype="string")})
    xm = pd.DataFrame({"s": pd.array(["p", None, "q", "q"], dtype="string")})
    r = pysdc.il_variables(x, xm)
    # nominal distances: equal 0, different 1, one side missing 1 -> (0 + 1 + 1 + 1) / 4
    assert r.value == pytest.approx(3 / 4, rel=0, abs=0)
    assert "ILVariablesResult" in r._repr_html_()
