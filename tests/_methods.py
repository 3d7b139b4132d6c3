"""Shared scaffolding for the tests of the protection methods and measures in the registry.

Stored-case loading, one stored case run through a function (native or the bridge's), the module-scoped
``bridge`` fixture and the check of the registry's defaults against sdcMicro's formals(); each test file
passes its method's registry entry (pysdc._registry._methods.method_by_r_name).
"""

from __future__ import annotations

import inspect
import json
import warnings
from pathlib import Path

import pytest

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


def _bridge():
    try:
        from pysdc import r as bridge

        av = bridge.available()
    except Exception as exc:  # noqa: BLE001
        return None, f"the R bridge is not usable: {exc}"
    return (bridge, "") if av else (None, f"R/rpy2/sdcMicro not available: {av.reason}")


def bridge_fixture():
    """A module-scoped fixture giving pysdc.r (skips when R/rpy2/sdcMicro is not usable): ``bridge = bridge_fixture()``."""

    @pytest.fixture(scope="module")
    def bridge():
        b, why = _bridge()
        if b is None:
            pytest.skip(why)
        return b

    return bridge


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
