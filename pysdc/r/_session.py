"""Calls into R: packages, captured conditions, the call log, versions.

R is started lazily by :mod:`pysdc.r._runtime` (under its lock, which every R
interaction holds); the bridge's R helper code lives in :mod:`pysdc.r._helpers` and
conversions in :mod:`pysdc.r._convert`. rpy2's conversion rules are never used
implicitly: the bridge converts with :mod:`pysdc.r._convert` and, for the rare
robjects use, inside ``localconverter(default_converter)``.
"""

from __future__ import annotations

import importlib.metadata as _md
import logging
import sys
import threading
import warnings

from .._errors import RCallError, RNotAvailableError, RWarning
from ._helpers import helpers
from ._objects import CallLog, RObject
from ._runtime import HINT_SDCMICRO, LOCK, start

__all__ = ["LOCK", "start", "helpers", "call", "call_sexp", "to_python", "ensure_package", "r_versions",
           "last_call_log"]

logger = logging.getLogger("pysdc.r")

_packages: dict = {}
_local = threading.local()


def ensure_package(pkg: str | None) -> None:
    """Raise RNotAvailableError unless the R package can be loaded."""
    if pkg is None or pkg == "base":
        return
    with LOCK:
        known = _packages.get(pkg)
        if known is None:
            known = bool(helpers()["has_pkg"](start().StrSexpVector([pkg]))[0])
            _packages[pkg] = known
        if not known:
            hint = HINT_SDCMICRO if pkg == "sdcMicro" else f'Install it in R: `install.packages("{pkg}")`.'
            raise RNotAvailableError(f"the R package {pkg!r} is not installed. {hint}")


def _stacklevel() -> int:
    """Stack level of the first frame outside pysdc.r (for warnings.warn)."""
    level = 1
    f = sys._getframe(1)
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if not (mod == "pysdc.r" or mod.startswith("pysdc.r.")):
            break
        level += 1
        f = f.f_back
    return level


def _ours(rcall: str) -> bool:
    """True when R's condition call is the bridge's own call (not an inner R call)."""
    return not rcall or rcall.startswith(".pysdc_f(") or rcall == "eval(cl, env)"


def last_call_log() -> CallLog:
    return getattr(_local, "log", CallLog())


def _describe(value) -> str:
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return f"<data.frame {value.shape[0]}x{value.shape[1]}>"
    if isinstance(value, (pd.Series, np.ndarray)) and np.size(value) > 5:
        return f"<vector of {np.size(value)}>"
    if isinstance(value, RObject):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_call(fun: str, package, args, kwargs) -> str:
    parts = [_describe(a) for a in args] + [f"{k} = {_describe(v)}" for k, v in kwargs.items()]
    prefix = "" if package is None else f"{package}::"
    return f"{prefix}{fun}({', '.join(parts)})"


def call_sexp(fun: str, args=(), kwargs=None, package="sdcMicro", internal: bool = False):
    """Call an R function with Python arguments; return the raw R result (Sexp).

    Must be used under LOCK by callers that go on using the result.
    """
    kwargs = kwargs or {}
    display = describe_call(fun, package, args, kwargs)
    with LOCK:
        ri = start()
        ensure_package(package)
        from rpy2.rinterface_lib import openrlib
        from rpy2.robjects import conversion, default_converter

        from . import _convert

        h = helpers()
        with openrlib.rlock, conversion.localconverter(default_converter):
            try:
                fname = ri.StrSexpVector([fun])
                if internal:
                    f = h["getns"](fname, ri.StrSexpVector([package]))
                else:
                    f = h["getfun"](fname, ri.NULL if package is None else ri.StrSexpVector([package]))
            except ri.embedded.RRuntimeError as exc:
                raise RCallError(f"cannot find the R function {fun!r}: {exc}", display) from None
            values = [_convert.to_r(a, f"argument {i + 1}") for i, a in enumerate(args)]
            values += [_convert.to_r(v, k) for k, v in kwargs.items()]
            arglist = ri.ListSexpVector(values)
            if kwargs:
                arglist.do_slot_assign("names", ri.StrSexpVector([""] * len(args) + list(kwargs)))
            try:
                res = h["run"](f, arglist)
            except ri.embedded.RRuntimeError as exc:  # failure outside the guarded call
                raise RCallError(str(exc), display) from None
            ok = bool(res[0][0])
            warns = tuple(res[3])
            wcalls = tuple(res[4])
            msgs = tuple(res[5])
            output = tuple(res[6])
        _local.log = CallLog(call=display, warnings=warns, messages=msgs, output=output)
        for m in msgs:
            logger.info("R message in %s: %s", display, m)
        for line in output:
            logger.debug("R output in %s: %s", display, line)
        if not ok:
            r_message = str(res[1][0])
            rcall = str(res[2][0])
            where = display
            if not _ours(rcall):
                where += f"\n  (raised in R by: {rcall})"
            err = RCallError(r_message, where)
            err.warnings = warns
            err.messages = msgs
            raise err
        level = _stacklevel()
        for w, wc in zip(warns, wcalls):
            origin = fun if _ours(wc) else wc
            warnings.warn(f"R warning in {origin}: {w}", RWarning, stacklevel=level)
        return res[1]


def call(fun: str, args=(), kwargs=None, package="sdcMicro", as_robject: bool = False, internal=False):
    with LOCK:
        sexp = call_sexp(fun, args, kwargs, package, internal=internal)
        if as_robject:
            from . import _convert

            return _convert.handle(sexp)
        return to_python(sexp)


def to_python(sexp, scalar=True):
    from . import _convert

    with LOCK:
        return _convert.to_py(sexp, scalar=scalar)


def r_versions() -> dict:
    out = {"R": None, "rpy2": None, "rpy2-rinterface": None, "sdcMicro": None}
    for dist in ("rpy2", "rpy2-rinterface"):
        try:
            out[dist] = _md.version(dist)
        except _md.PackageNotFoundError:
            pass
    if out["rpy2"] is None:
        try:
            out["rpy2"] = _md.version("rpy2-robjects")
        except _md.PackageNotFoundError:
            pass
    try:
        with LOCK:
            ri = start()
            h = helpers()
            out["R"] = str(h["r_version"]()[0])
            v = h["pkg_version"](ri.StrSexpVector(["sdcMicro"]))[0]
            out["sdcMicro"] = None if v is ri.NA_Character else str(v)
    except RNotAvailableError:
        pass
    return out
