"""Shared scaffolding for the tests of the protection methods and measures in the registry.

Stored-case loading, one stored case run through a function (native or the bridge's), the module-scoped
``bridge`` fixture and the check of the registry's defaults against sdcMicro's formals(); each test file
passes its method's registry entry (pysdc._registry._methods.method_by_r_name).

A method's further output groups (Method.outputs: microaggregation_more, _clust, _measures, shuffle_more) are
compared with sdcMicro by ``pysdc parity`` and tests/parity/test_parity_stored.py; their test files take the same
cases from the same loader (:func:`group_cases`, pysdc.parity.load_corpus) for what that comparison does not
check: R's warnings (:func:`r_warnings`, :func:`run_recording_warnings`) and every case through the bridge
(:func:`check_live_case`).
"""

from __future__ import annotations

import functools
import inspect
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import pysdc
from pysdc import parity
from pysdc._errors import InvalidParameterError, PysdcError
from pysdc._registry._methods import load_case_data


def stored_cases(root: Path, rnames, *, with_rname: bool = True, xfail_applies_to: str | None = None) -> list:
    """The cases of r_reference/outputs/<rname>.json as pytest params ((rname, case) or (case,)), id = case id.

    With ``xfail_applies_to`` ("native" or "live"), a case listed in divergences.json for it (or "both") is a
    strict xfail with the listed reason.
    """
    div = {}
    if xfail_applies_to is not None:
        doc = json.loads((root / "divergences.json").read_text(encoding="utf-8"))
        div = {d["case"]: d["reason"] for d in doc["divergences"]
               if d["applies_to"] in (xfail_applies_to, "both") and d["case"].startswith(tuple(rnames))}
    out = []
    for rname in rnames:
        doc = json.loads((root / "outputs" / f"{rname}.json").read_text(encoding="utf-8"))
        assert doc["header"]["sdcmicro_version"] == "5.8.0"
        for c in doc["cases"]:
            marks = [pytest.mark.xfail(strict=True, reason=div[c["id"]])] if c["id"] in div else []
            values = (rname, c) if with_rname else (c,)
            out.append(pytest.param(*values, id=c["id"], marks=marks))
    return out


def group_cases(group: str) -> list:
    """The stored cases of output group ``group`` (r_reference/outputs/<group>.json, e.g. microaggregation_clust)
    as ``pysdc parity`` and tests/parity/test_parity_stored.py load them (pysdc.parity.load_corpus)."""
    return [c for c in parity.load_corpus(parity.reference_dir(), [group]) if c.group == group]


def case_params(cases, mode: str | None = None) -> list:
    """pytest params of parity cases, id = case id; with ``mode`` ("native" or "live"), a case that
    divergences.json lists for it (or "both") is a strict xfail with the listed reason, as in the parity tests."""
    divs = parity.load_divergences(parity.reference_dir()) if mode else []
    out = []
    for c in cases:
        div = parity.divergence_for(c.id, divs, mode) if mode else None
        marks = [pytest.mark.xfail(strict=True, reason=div["reason"])] if div else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@functools.cache
def _stored_warnings(group: str) -> dict:
    doc = json.loads((parity.reference_dir() / "outputs" / f"{group}.json").read_text(encoding="utf-8"))
    return {c["id"]: tuple(c.get("warnings") or ()) for c in doc["cases"]}


def r_warnings(case) -> tuple:
    """What R warned in a parity case (the stored output's ``warnings``, which the loader's Case leaves out)."""
    return _stored_warnings(case.group)[case.id]


def run_recording_warnings(case, impl=None) -> tuple:
    """Run a parity case through ``impl`` (native pysdc by default, pysdc.r for the bridge) as ``pysdc parity``
    runs it (pysdc.parity.run_case): (its result fields, every warning it gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        actual = parity.run_case(case, impl or pysdc, parity.reference_dir())
    return actual, caught


def check_live_case(case, bridge, *, expect_warned: bool = True) -> list:
    """One stored case through the bridge, compared as ``pysdc parity --live`` compares it
    (pysdc.parity.compare: sdcMicro's result, the input unchanged); where sdcMicro stopped, the bridge raises.
    With ``expect_warned``, where sdcMicro warned the bridge must warn. Returns the warnings."""
    if case.expects_error:
        with pytest.raises(PysdcError):
            parity.run_case(case, bridge, parity.reference_dir())
        return []
    actual, caught = run_recording_warnings(case, bridge)
    assert [d.detail for d in parity.compare(case, actual, "live") if not d.ok] == []
    if expect_warned and r_warnings(case):
        assert caught, f"sdcMicro warned {r_warnings(case)}; the bridge did not"
    return caught


def live_bridge_parity(cases, *, expect_warned: bool = True):
    """A module's live test of every case in ``cases`` through the bridge (:func:`check_live_case`; a case that
    divergences.json lists for "live" a strict xfail), with the module's ``bridge`` fixture:
    ``test_live_bridge_parity = live_bridge_parity(cases)``."""

    @pytest.mark.live
    @pytest.mark.parametrize("case", case_params(cases, "live"))
    def test(bridge, case):
        check_live_case(case, bridge, expect_warned=expect_warned)

    return test


def fresh_numeric(seed: int, n_range: tuple = (12, 90)):
    """Fresh data for a live check against sdcMicro: ``(rng, x)``, n in ``n_range`` records of 2 to 4 correlated
    normal variables, rounded to halves (ties) for an odd seed; ``rng`` goes on for the caller's further draws."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(*n_range)), int(rng.integers(2, 5))
    x = rng.normal(size=(n, p)) @ rng.uniform(size=(p, p))
    if seed % 2:
        x = np.round(x * 2)  # ties
    return rng, x


def check_stored_case(m, fn, case, root: Path, *, record: bool = True, ignore: type[Warning] | None = None,
                      expect_warned: bool = False) -> list:
    """Run one stored case through ``fn`` with registry entry ``m``: sdcMicro's result, the input unchanged;
    where sdcMicro stopped, pysdc raises.

    Warnings: ``ignore`` a category; else ``record`` them all (returned), or leave them alone. With
    ``expect_warned``, a case where sdcMicro warned must warn.
    """
    data = load_case_data(case, root)
    before = data.copy(deep=True)
    if "error" in case:
        with pytest.raises((InvalidParameterError, PysdcError)):
            m.run_case(fn, case["args"], data)
        return []
    caught: list = []
    if ignore is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ignore)
            act = m.run_case(fn, case["args"], data)
    elif record:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            act = m.run_case(fn, case["args"], data)
    else:
        act = m.run_case(fn, case["args"], data)
    assert m.compare_case(case["result"], act) == []
    assert data.equals(before), "the input was modified"
    if expect_warned and case["warnings"]:
        assert caught, f"sdcMicro warned {case['warnings']}; pysdc did not"
    return caught


def check_defaults_match_r_formals(bridge, m, *, check_bridge: bool = False) -> None:
    """The registry's R defaults of ``m`` are sdcMicro's formals() and the native function's defaults.

    With ``check_bridge``, every argument must exist in R and the bridge wrapper must have the same defaults.
    """
    r_fun = m.formals_of or m.r
    ns = bridge.call("asNamespace", "sdcMicro", package="base", as_robject=True)
    formals = bridge.call("formals", bridge.call("get", r_fun, envir=ns, package="base", as_robject=True),
                          package="base", as_robject=True)
    if check_bridge:
        names = bridge.call("names", formals, package="base")
        names = [names] if isinstance(names, str) else list(names)
    py_of_r = {r: py for py, r in m.arguments.items() if r}
    for r_arg, default in m.defaults.items():
        if check_bridge:
            assert r_arg in names, f"{r_fun} has no argument {r_arg}"
        # an R expression (-1 is the call `-`(1), c(...) a call): evaluated in R, not converted as its text
        r_default = bridge.call("eval", bridge.call("[[", formals, r_arg, package="base", as_robject=True),
                                package="base")
        assert r_default == default or (r_default is None and default is None), (r_arg, r_default, default)
        assert inspect.signature(m.native).parameters[py_of_r[r_arg]].default == default
        if check_bridge:
            assert inspect.signature(getattr(bridge, m.python)).parameters[py_of_r[r_arg]].default == default
