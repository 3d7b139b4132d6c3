"""What a measure's frame argument may be besides pandas, through the explicit decorator pysdc._foreign.measure:
an SdcProblem / SdcObj (by protocol), an engine's table (DuckDB), a Polars table -- natively and through the R bridge.
The declarations the decorator holds are what the registry exposes (selects, engine, by_name, paired)."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError, SdcProblem, _foreign, _validation
from pysdc._registry import MEASURES, by_python_name
from pysdc._registry._measure import SECTIONS

from _live import optional

PKG = Path(pysdc.__file__).parent
KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo_pair()


@pytest.fixture(scope="module")
def problem(demo):
    return SdcProblem(demo[0], KEYS, num_vars=NUMS, w="weight", hid="hid", sensitive=["health_status"])


# --------------------------------------------------------------------- the decorator, not a hook


def test_no_module_level_hook():
    assert not hasattr(_validation, "set_foreign_adapter") and not hasattr(_validation, "_foreign_adapter")
    for gone in ("_adapters.py", "_problem_args.py", "engine/_dispatch.py"):
        assert not (PKG / gone).exists(), gone


def test_the_decorator_imports_neither_the_problem_nor_the_bridge():
    tree = ast.parse((PKG / "_foreign.py").read_text())
    names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in names if re.match(r"(pysdc\.)?(problem|r|report|cli)(\.|$)", m.lstrip("."))], names


@pytest.mark.parametrize("m", MEASURES, ids=lambda m: m.python)
def test_every_measure_carries_the_decorator(m):
    decl = _foreign.declared_measure(m.native)
    assert isinstance(decl, _foreign.Declaration)
    assert m.selects in _foreign.SELECTIONS
    assert (m.engine is None) != (m.no_engine == "")  # runs on an engine, or says why not


def test_the_engine_function_must_take_the_measures_parameters():
    def engine_fn(table, key_vars, alpha):  # w missing
        return None

    with pytest.raises(TypeError, match="does not take the measure's parameters"):
        @_foreign.measure({}, engine=engine_fn)
        def f(data, key_vars, *, w=None, alpha=1.0):  # pragma: no cover - never called
            return None


# --------------------------------------------------------------------- problems, by protocol


def test_a_problem_by_protocol_not_by_class(problem, demo):
    """Any object with data, sdc_data and specification is a problem; a DataFrame with such columns is not."""
    x, _ = demo

    class Spec:  # no SdcProblem: the protocol only
        data = problem.data
        sdc_data = problem.sdc_data
        specification = problem.specification

    assert pysdc.measure_risk(Spec()).global_risk_er == pysdc.measure_risk(x, KEYS, w="weight", hid="hid").global_risk_er
    frame = pd.DataFrame({"to_problem": [1, 2], "sdc_data": [1, 2], "specification": [3, 4], "data": [5, 6]})
    assert not _foreign.is_problem(frame)


@pytest.mark.parametrize("m", [m for m in MEASURES if m.selects != "data"], ids=lambda m: m.python)
def test_a_problem_stands_for_the_variables_its_measure_selects(m, problem, demo):
    """For every two-frame measure declaring a selection, measure(problem, xm) == measure(x[cols], xm[cols])."""
    x, xm = demo
    cols = {"numeric": NUMS, "keys": KEYS, "variables": KEYS + NUMS}[m.selects]
    sig = inspect.signature(m.native).parameters
    kw = {"random_state": 1} if "random_state" in sig else {}
    kw.update({"vars": cols} if "vars" in sig else {})  # record linkage: the variables to link on
    try:
        want = m.native(x[cols], xm[cols], **kw)
    except InvalidParameterError as exc:  # refused on these variables: refused the same way given the problem
        with pytest.raises(InvalidParameterError, match=re.escape(str(exc))):
            m.native(problem, xm, **kw)
        return
    got = m.native(problem, xm, **kw)
    assert _same(got, want), m.python


def _same(a, b) -> bool:
    """Equal results: every field of a result class (frames, series, arrays, numbers), or the values."""
    if dataclasses.is_dataclass(a):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (pd.Series, pd.DataFrame)):
        return a.equals(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, list, tuple)) and not isinstance(a, str):
        try:
            return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))
        except (TypeError, ValueError):
            return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (np.isnan(a) and np.isnan(b))
    return a == b


def test_numeric_selection_differs_from_the_whole_data(problem, demo):
    """The selection matters: d_utility on the problem is not d_utility on all numeric columns of the data."""
    x, xm = demo
    every = [c for c in x.columns if pd.api.types.is_float_dtype(x[c]) and c in xm.columns]
    assert set(every) != set(NUMS)
    assert pysdc.d_utility(problem, xm, method="eigen").n_vars == len(NUMS) < len(every)
    assert float(pysdc.d_utility(problem, xm, method="eigen")) != float(pysdc.d_utility(x[every], xm[every], method="eigen"))


def test_an_sdcobj_gives_original_and_manipulated_data(problem, demo):
    """pysdc.d_utility(sdcobj) is dUtility(sdcObj): the original against the manipulated data."""
    x, xm = demo
    masked = problem.with_data(xm)
    asked = []

    class SdcObj:  # pysdc.r.SdcObj without R: recognised by its to_problem method
        def to_problem(self, data="original"):
            asked.append(data)
            return problem if data == "original" else masked

    got = pysdc.d_utility(SdcObj(), method="IL1")
    assert asked == ["original", "manipulated"]
    assert float(got) == float(pysdc.d_utility(x[NUMS], xm[NUMS], method="IL1"))


# --------------------------------------------------------------------- engines (DuckDB)


duckdb = optional("duckdb")


@pytest.mark.duckdb
@pytest.mark.parametrize("m", [m for m in MEASURES if m.engine is not None and "data" in m.params],
                         ids=lambda m: m.python)
def test_a_relation_runs_on_duckdb_through_the_declared_engine(m, demo):
    x, _ = demo
    data = x.assign(**{k: x[k].astype(str) for k in KEYS})  # text keys: the same codes on both paths
    con = duckdb.connect()
    rel = con.from_df(data)
    kw = {"ldiv_index": "health_status"} if "ldiv_index" in m.params else {}
    got = m.native(rel, KEYS[:3], **kw)
    want = m.native(data, KEYS[:3], **kw)
    for f in ("n1", "n2", "global_risk_er", "value"):
        if hasattr(want, f):
            assert getattr(got, f) == pytest.approx(getattr(want, f), rel=1e-12)
    if isinstance(want, (int, np.integer)) or type(want).__name__ == "KAnonResult":
        assert int(got) == int(want)


@pytest.mark.duckdb
@pytest.mark.parametrize("m", [m for m in MEASURES if m.engine is None and "data" in m.params
                               and "key_vars" in m.params], ids=lambda m: m.python)
def test_a_measure_without_an_engine_refuses_a_relation_with_its_declared_reason(m, demo):
    rel = duckdb.connect().from_df(demo[0])
    kw = {"formula": "~ region + sex", "w": "weight"} if "formula" in m.params else {}
    kw.update({"w1": 0.3, "w2": 0.3} if "w1" in m.params else {})
    with pytest.raises(InvalidParameterError, match="does not run on a DuckDB relation") as exc:
        m.native(rel, *([] if kw.get("formula") else [KEYS[:3]]), **kw)
    assert m.no_engine in str(exc.value)


# --------------------------------------------------------------------- Polars / Arrow


def test_a_polars_frame_is_pandas_before_a_problem_in_the_other_argument(problem, demo):
    pl = pytest.importorskip("polars")
    x, xm = demo
    got = pysdc.d_utility(problem, pl.from_pandas(xm), method="IL1")
    assert float(got) == float(pysdc.d_utility(x[NUMS], xm[NUMS], method="IL1"))


# --------------------------------------------------------------------- the registry holds the declarations


def test_registry_properties_are_the_decorators_declarations():
    assert by_python_name("d_utility").selects == "numeric" and by_python_name("il_variables").selects == "variables"
    assert by_python_name("measure_risk").engine is not None and by_python_name("suda2").engine is None
    assert "in memory" in by_python_name("suda2").no_engine
    assert by_python_name("il_correl").by_name and not by_python_name("il_correl").paired
    assert not by_python_name("d_risk").by_name and by_python_name("d_risk").paired


@pytest.mark.parametrize("m", MEASURES, ids=lambda m: m.python)
def test_every_entry_has_a_description_citation_and_section(m):
    assert m.description and m.citation and m.section in SECTIONS


def test_the_package_docstring_catalogue_is_the_registry():
    named = set(re.findall(r":func:`(\w+)`", pysdc.__doc__))
    assert named == {m.python for m in MEASURES}


def test_no_hand_lists_of_measure_names_outside_the_registry():
    """The lists the registry replaced are gone (names of measures as sets/tuples in the dispatch and the bridge)."""
    src = (PKG / "r" / "_measures.py").read_text() + (PKG / "_foreign.py").read_text()
    for gone in ("UNPAIRED", "BY_NAME", "SELECTS", "NUMERIC_ONLY", "_REFUSED"):
        assert gone not in src


# --------------------------------------------------------------------- the R bridge takes a problem


def test_the_problem_has_no_to_r_and_the_bridge_builds_from_a_problem():
    assert not hasattr(SdcProblem, "to_r")
    import pysdc.r

    assert callable(pysdc.r.SdcObj.from_problem)


@pytest.mark.duckdb
def test_the_bridge_refuses_an_engine_table_before_r_starts(demo):
    import pysdc.r

    rel = duckdb.connect().from_df(demo[0])
    with pytest.raises(InvalidParameterError, match="sends the data to R"):
        pysdc.r.measure_risk(rel, KEYS)


def _sdcmicro_reason():
    if importlib.util.find_spec("rpy2") is None:
        return "rpy2 is not installed (pip install 'pysdc-measures[r]')"
    import pysdc.r

    st = pysdc.r.available(sdcmicro=True)
    return None if st else st.reason


@pytest.mark.live
def test_the_bridge_takes_a_problem_as_the_native_function_does_live(problem, demo):
    reason = _sdcmicro_reason()
    if reason:
        pytest.skip(reason)
    import pysdc.r

    x, xm = demo
    a = pysdc.r.measure_risk(problem)
    b = pysdc.r.measure_risk(problem.sdc_data, KEYS, w="weight", hid="hid")
    assert a.global_risk_er == b.global_risk_er
    assert a.global_risk_er == pytest.approx(pysdc.measure_risk(problem).global_risk_er, rel=1e-12)
    d = pysdc.r.d_utility(problem, xm, method="IL1")
    assert float(d) == float(pysdc.r.d_utility(x[NUMS], xm[NUMS], method="IL1"))
    assert pysdc.r.k_anon_violations(problem, k=3) == pysdc.k_anon_violations(problem, k=3)


@pytest.mark.live
def test_the_bridge_takes_an_sdcobj_live(problem):
    reason = _sdcmicro_reason()
    if reason:
        pytest.skip(reason)
    import pysdc.r

    sdc = pysdc.r.SdcObj.from_problem(problem)
    assert sdc.specification == problem.specification
    got = pysdc.r.measure_risk(sdc)
    assert got.global_risk_er == pytest.approx(sdc.risk["global"]["risk_ER"], rel=1e-12)


def test_d_utility_methods_are_declared_once():
    """The registry's variants and the problem's methods are d_utility's declared options, not copies of a list."""
    from pysdc.problem import D_UTILITY_METHODS

    options = tuple(by_python_name("d_utility").params["method"].options)
    assert tuple(by_python_name("d_utility").variants) == options == D_UTILITY_METHODS


def test_from_problem_refuses_what_is_not_a_problem_before_r_starts(demo):
    import pysdc.r

    with pytest.raises(InvalidParameterError, match="problem must be a pysdc.SdcProblem; got DataFrame"):
        pysdc.r.SdcObj.from_problem(demo[0])
