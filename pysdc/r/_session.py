"""Calls into R: packages, captured conditions, the call log, versions.

R is started lazily by :mod:`pysdc.r._runtime` (under its lock, which every R
interaction holds); the bridge's R helper code lives in :mod:`pysdc.r._helpers` and
conversions in :mod:`pysdc.r._convert_to_r` / :mod:`pysdc.r._convert_to_py`. rpy2's conversion rules are never used
implicitly: the bridge converts with them and, for the rare
robjects use, inside ``localconverter(default_converter)``.
"""

from __future__ import annotations

import importlib.metadata as _md
import logging
import sys
import threading
import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, RCallError, RNotAvailableError, RWarning
from ._convert_memo import DtypeMemo, applying, recording
from ._helpers import helpers
from ._objects import CallLog, RObject
from ._runtime import HINT_SDCMICRO, LOCK, start

__all__ = ["LOCK", "start", "helpers", "call", "call_sexp", "to_python", "ensure_package", "r_versions",
           "last_call_log", "lookup", "formula_sexp", "quiet_console", "FALLBACK"]

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


def printed(obj, args=(), kwargs=None) -> str:
    """R's printed text of ``print(obj, *args, **kwargs)`` (R names), as :func:`pysdc.r.print` returns it."""
    # sdcMicro's print (an S4 generic with its sdcMicroObj method) when installed, else base::print
    call("print", (obj, *args), kwargs or {}, package="sdcMicro", as_robject=True)
    return last_call_log().text


def _describe(value) -> str:
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


#: where a function not exported by sdcMicro is looked up next (``package="sdcMicro"``, the default)
FALLBACK = ("base", "stats", "utils", "methods")


def _has_package(pkg: str) -> bool:
    try:
        ensure_package(pkg)
    except RNotAvailableError:
        return False
    return True


class quiet_console:
    """Keep R's console text (e.g. an error R prints before rpy2 raises it) off stderr.

    rpy2 echoes R's error output as "R callback write-console: ..."; the bridge raises
    :class:`RCallError` with R's message instead. Used under LOCK.
    """

    def __enter__(self):
        from rpy2.rinterface_lib import callbacks

        self._callbacks = callbacks
        self._saved = callbacks.consolewrite_warnerror
        self.text: list = []
        callbacks.consolewrite_warnerror = self.text.append
        return self

    def __exit__(self, *exc):
        self._callbacks.consolewrite_warnerror = self._saved
        return False


def _is_function(sexp) -> bool:
    ri = start()
    return sexp.typeof in (ri.RTYPES.CLOSXP, ri.RTYPES.BUILTINSXP, ri.RTYPES.SPECIALSXP)


def _where_else(fun: str, exclude) -> list:
    """Packages among sdcMicro and FALLBACK (installed) that export ``fun``, except ``exclude``."""
    ri = start()
    found = []
    for pkg in ("sdcMicro", *FALLBACK):
        if pkg == exclude or (pkg == "sdcMicro" and not _has_package(pkg)):
            continue
        where = str(helpers()["locate"](ri.StrSexpVector([fun]), ri.StrSexpVector([pkg]))[0])
        if where:
            found.append(where)
    return found


def lookup(fun: str, package, internal: bool = False, display: str = ""):
    """The R function and the package it was found in.

    ``package="sdcMicro"`` (the default of :func:`pysdc.r.call`): sdcMicro's exported
    function, else the first of base, stats, utils, methods that exports ``fun`` (so that
    ``call("set.seed", 1)`` works). Another package: that package only; when the function is
    not there, the error names the packages that have it.
    """
    ri = start()
    h = helpers()
    name = ri.StrSexpVector([fun])
    display = display or describe_call(fun, package, (), {})
    if internal:
        ensure_package(package)
        f = h["getns"](name, ri.StrSexpVector([package]))
        if not _is_function(f):
            raise RCallError(f"cannot find the R function {fun!r} in the namespace of {package}: {f[0]}", display)
        return f, package
    if package == "sdcMicro":
        has_sdc = _has_package("sdcMicro")
        pkgs = (("sdcMicro",) if has_sdc else ()) + FALLBACK
        where = str(h["locate"](name, ri.StrSexpVector(list(pkgs)))[0])
        if not where:
            ensure_package("sdcMicro")  # sdcMicro missing: that is the error to report
            raise RCallError(
                f"cannot find the R function {fun!r}: sdcMicro does not export it and it is not in "
                f"{', '.join(FALLBACK)} either. For a function of another package pass its name, "
                f"e.g. package='laeken', or package=None for R's search path.",
                display,
            )
        return h["getfun"](name, ri.StrSexpVector([where])), where
    ensure_package(package)
    f = h["getfun"](name, ri.NULL if package is None else ri.StrSexpVector([package]))
    if _is_function(f):
        return f, package
    others = _where_else(fun, package)
    hint = (f" It is exported by {', '.join(others)}: pass package={others[0]!r}." if others else
            " Check the name, or pass the package that has it (package=None searches R's search path).")
    raise RCallError(f"cannot find the R function {fun!r}: {str(f[0]).strip()}.{hint}", display)


def _arg_to_r(value, name):
    """One argument of a call: text starting with ``~`` becomes an R formula (see :func:`pysdc.r.call`)."""
    from ._convert_to_r import to_r  # imports rpy2 (optional): only after start(), which reports a missing R clearly

    if isinstance(value, str) and value.lstrip().startswith("~"):
        return formula_sexp(value, name)
    return to_r(value, name)


def formula_sexp(text: str, name="formula"):
    """R's ``stats::as.formula(text)`` (environment: R's global environment)."""
    ri = start()
    with LOCK:
        res = helpers()["formula"](ri.StrSexpVector([text]))
        if not bool(res[0][0]):
            raise InvalidParameterError(f"{name}: {text!r} is not a valid R formula: {str(res[1][0]).strip()}")
        return res[1]


def _split_transcript(lines) -> tuple:
    """(output lines, transcript text) from ``run``'s lines (message lines start with \\036)."""
    output = []
    text = []
    for line in lines:
        if "\x1e" in line:
            before = line.split("\x1e", 1)[0]
            if before:
                output.append(before)
            text.append(line.replace("\x1e", ""))
        else:
            output.append(line)
            text.append(line)
    return tuple(output), "\n".join(text) + ("\n" if text else "")


def call_sexp(fun: str, args=(), kwargs=None, package="sdcMicro", internal: bool = False, helper: bool = False,
              memo=None):
    """Call an R function with Python arguments; return the raw R result (Sexp).

    ``helper=True``: ``fun`` names one of the bridge's own R helpers (:mod:`pysdc.r._helpers`).
    ``memo``: a :class:`~pysdc.r._convert_memo.DtypeMemo` that records the dtypes of the columns sent.
    Must be used under LOCK by callers that go on using the result.
    """
    kwargs = kwargs or {}
    with LOCK:
        ri = start()
        from rpy2.rinterface_lib import openrlib
        from rpy2.robjects import conversion, default_converter

        h = helpers()
        with openrlib.rlock, conversion.localconverter(default_converter), quiet_console():
            if helper:
                f, found = h[fun], None
            else:
                f, found = lookup(fun, package, internal, describe_call(fun, package, args, kwargs))
            display = describe_call(fun, found, args, kwargs)
            with recording(memo):
                values = [_arg_to_r(a, f"argument {i + 1}") for i, a in enumerate(args)]
                values += [_arg_to_r(v, k) for k, v in kwargs.items()]
            arglist = ri.ListSexpVector(values)
            if kwargs:
                arglist.do_slot_assign("names", ri.StrSexpVector([""] * len(args) + list(kwargs)))
            try:
                res = h["run"](f, arglist)
            except ri.embedded.RRuntimeError as exc:  # failure outside the guarded call
                raise RCallError(str(exc).strip(), display) from None
            ok = bool(res[0][0])
            warns = tuple(res[3])
            wcalls = tuple(res[4])
            msgs = tuple(res[5])
            output, text = _split_transcript(tuple(res[6]))
        _local.log = CallLog(call=display, warnings=warns, messages=msgs, output=output, text=text)
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
            err.text = text
            raise err
        level = _stacklevel()
        for w, wc in zip(warns, wcalls):
            origin = fun if _ours(wc) else wc
            warnings.warn(f"R warning in {origin}: {w}", RWarning, stacklevel=level)
        return res[1]


def call(fun: str, args=(), kwargs=None, package="sdcMicro", as_robject: bool = False, internal=False,
         helper: bool = False, memo=None):
    """Call and convert; columns of returned data.frames get the dtypes of the columns sent
    (plus those of ``memo``, a :class:`~pysdc.r._convert_memo.DtypeMemo`) back."""
    with LOCK:
        start()  # before importing the converter (which imports rpy2)
        from ._convert_to_py import handle, to_py  # imports rpy2: only after start()

        sent = DtypeMemo()
        sexp = call_sexp(fun, args, kwargs, package, internal=internal, helper=helper, memo=sent)
        # the dtypes of handles' own memories (an SdcObj's data...) travel on too
        for a in (*args, *kwargs.values()):
            known = getattr(a, "_dtypes", None)
            if isinstance(known, DtypeMemo):
                sent = sent.merged(known)
        memo = sent.merged(memo)
        with applying(memo):
            if as_robject:
                return handle(sexp)
            return to_py(sexp)


def to_python(sexp, scalar=True):
    from ._convert_to_py import to_py  # imports rpy2: only after start()

    with LOCK:
        return to_py(sexp, scalar=scalar)


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
