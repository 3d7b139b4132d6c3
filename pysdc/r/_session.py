"""The embedded R session: lazy start, one lock, calls with captured conditions.

Nothing here imports rpy2 at module import time. The first function that needs
R imports rpy2 and starts R, once, under :data:`LOCK`; every R interaction
(conversion included) runs under that re-entrant lock, so calls from any
thread are serialised. rpy2's conversion rules are never used implicitly: the
bridge converts with :mod:`pysdc.r._convert` and, for the rare robjects use,
inside ``localconverter(default_converter)``.
"""

from __future__ import annotations

import importlib.metadata as _md
import logging
import os
import sys
import threading
import warnings

from .._errors import RCallError, RNotAvailableError, RWarning
from ._objects import CallLog, RObject

__all__ = ["LOCK", "start", "call_sexp", "ensure_package", "r_versions"]

LOCK = threading.RLock()
logger = logging.getLogger("pysdc.r")

HINT_R = (
    "Install R (Debian/Ubuntu: `apt-get install r-base-core`; conda: `conda install -c conda-forge r-base`) "
    "and make sure `R RHOME` works or R_HOME points at it."
)
HINT_RPY2 = 'Install the R bridge extra: `pip install "pysdc-measures[r]"` (rpy2 3.6.6).'
HINT_SDCMICRO = (
    'Install sdcMicro in R: `install.packages("sdcMicro")`, or with conda: '
    "`conda install -c conda-forge r-sdcmicro`."
)

_state: dict = {"ri": None, "error": None, "helpers": None, "packages": {}}
_local = threading.local()

# Our own R helpers, evaluated once into a private environment.
_R_HELPERS = r"""
list(
  run = function(fun, args) {
    env <- new.env(parent = globalenv())
    nm <- if (length(args)) paste0(".pysdc_a", seq_along(args)) else character(0)
    for (i in seq_along(args)) assign(nm[i], args[[i]], envir = env)
    assign(".pysdc_f", fun, envir = env)
    cl <- as.call(c(list(as.name(".pysdc_f")), lapply(nm, as.name)))
    an <- names(args)
    if (!is.null(an)) names(cl) <- c("", an)
    warns <- character(0); wcalls <- character(0); msgs <- character(0); out <- character(0)
    short <- function(cl) if (is.null(cl)) "" else paste(deparse(cl, nlines = 1L, width.cutoff = 100L), collapse = "")
    res <- withCallingHandlers(
      tryCatch({
        value <- NULL
        out <- utils::capture.output(value <- eval(cl, env))
        list(TRUE, value, "")
      }, error = function(e) list(FALSE, conditionMessage(e), short(conditionCall(e)))),
      warning = function(w) {
        warns <<- c(warns, conditionMessage(w)); wcalls <<- c(wcalls, short(conditionCall(w)))
        invokeRestart("muffleWarning")
      },
      message = function(m) {
        msgs <<- c(msgs, sub("\n$", "", conditionMessage(m)))
        invokeRestart("muffleMessage")
      })
    list(res[[1]], res[[2]], res[[3]], warns, wcalls, msgs, out)
  },
  getfun = function(name, pkg) {
    if (is.null(pkg)) get(name, envir = globalenv(), mode = "function")
    else if (identical(pkg, "base")) get(name, envir = baseenv(), mode = "function")
    else getExportedValue(pkg, name)
  },
  getns = function(name, pkg) get(name, envir = asNamespace(pkg), mode = "function"),
  has_pkg = function(pkg) requireNamespace(pkg, quietly = TRUE),
  pkg_version = function(pkg) if (requireNamespace(pkg, quietly = TRUE)) as.character(utils::packageVersion(pkg)) else NA_character_,
  r_version = function() paste(R.version$major, R.version$minor, sep = "."),
  str_in = function(r, na, utf8) {
    x <- strsplit(rawToChar(r), "\037", fixed = TRUE, useBytes = TRUE)[[1L]]
    if (utf8) Encoding(x) <- "UTF-8"
    if (!is.null(na)) x[na] <- NA_character_
    x
  },
  str_out = function(x) {
    n <- length(x)
    few <- n <= 4000L || length(unique(x[seq.int(1L, n, length.out = 1000L)])) <= 250L
    codes <- NULL
    if (few) { u <- unique(x); codes <- match(x, u) } else u <- x
    na <- which(is.na(u))
    u8 <- enc2utf8(u); u8[na] <- ""
    hassep <- any(grepl("\037", u8, fixed = TRUE, useBytes = TRUE))
    raw <- if (hassep || !length(u8)) raw(0) else charToRaw(paste0(u8, collapse = "\037"))
    list(codes, length(u), raw, hassep, u, na)
  },
  str_index = function(u, codes) u[codes],
  set_class = function(x, cls) { class(x) <- cls; x },
  as_character = function(x) as.character(x),
  row_names = function(x) if (.row_names_info(x, 1L) < 0L) NULL else attr(x, "row.names"),
  nrow = function(x) .row_names_info(x, 2L),
  is_s4 = function(x) isS4(x),
  class_of = function(x) class(x),
  slot = function(x, name) methods::slot(x, name),
  attr = function(x, name) attr(x, name, exact = TRUE),
  item = function(x, key) if (isS4(x)) methods::slot(x, key) else x[[key]],
  unclass_any = function(x) {
    if (isS4(x)) { sn <- methods::slotNames(x); structure(lapply(sn, function(s) methods::slot(x, s)), names = sn) }
    else unclass(x)
  },
  set_seed = function(seed) set.seed(seed)
)
"""


def _fail(message: str, cause: BaseException | None = None):
    _state["error"] = message
    err = RNotAvailableError(message)
    if cause is not None:
        raise err from cause
    raise err


def start():
    """Start R (once) and return rpy2.rinterface. Raises RNotAvailableError."""
    with LOCK:
        if _state["ri"] is not None:
            return _state["ri"]
        if _state["error"] is not None:
            raise RNotAvailableError(_state["error"])
        try:
            import rpy2  # noqa: F401
        except ImportError as exc:
            _fail(f"rpy2 is not installed, so pysdc cannot run R. {HINT_RPY2}", exc)
        try:
            import rpy2.rinterface as ri
            from rpy2.rinterface_lib import embedded

            if not embedded.isinitialized():
                ld_before = os.environ.get("LD_LIBRARY_PATH")
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="R is not initialized by the main thread")
                    ri.initr()
                # rpy2 copies R's LD_LIBRARY_PATH (system library dirs first) into os.environ; that no
                # longer matters to this process (the loader read it at start) but breaks subprocesses,
                # e.g. a pyenv/conda Python that then loads the system's libraries. Put it back.
                if ld_before is None:
                    os.environ.pop("LD_LIBRARY_PATH", None)
                else:
                    os.environ["LD_LIBRARY_PATH"] = ld_before
            helpers = ri.baseenv["eval"](ri.parse(_R_HELPERS))
            hd = {helpers.names[i]: helpers[i] for i in range(len(helpers))}
        except (ValueError, OSError, RuntimeError, FileNotFoundError, ImportError, KeyError) as exc:
            _fail(f"R could not be started ({type(exc).__name__}: {exc}). {HINT_R}", exc)
        from . import _convert

        _convert.set_helpers(hd)
        _state["helpers"] = hd
        _state["ri"] = ri
        return ri


def helpers() -> dict:
    start()
    return _state["helpers"]


def ensure_package(pkg: str | None) -> None:
    """Raise RNotAvailableError unless the R package can be loaded."""
    if pkg is None or pkg == "base":
        return
    with LOCK:
        known = _state["packages"].get(pkg)
        if known is None:
            h = helpers()
            known = bool(h["has_pkg"](_state["ri"].StrSexpVector([pkg]))[0])
            _state["packages"][pkg] = known
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

        h = _state["helpers"]
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
            return _handle(sexp)
        return to_python(sexp)


def _handle(sexp) -> RObject:
    h = _state["helpers"]
    return RObject(sexp, tuple(h["class_of"](sexp)), sexp.typeof.name)


def to_python(sexp, scalar=True):
    from . import _convert

    with LOCK:
        return _convert.to_py(sexp, scalar=scalar)


def _with_helper(name: str, obj: RObject, *extra):
    with LOCK:
        ri = start()
        h = _state["helpers"]
        try:
            out = h[name](obj._sexp, *extra)
        except ri.embedded.RRuntimeError as exc:
            raise RCallError(str(exc).strip(), f"{name} on {obj!r}") from None
        return to_python(out)


def get_slot(obj: RObject, name: str):
    ri = start()
    return _with_helper("slot", obj, ri.StrSexpVector([name]))


def get_attr(obj: RObject, name: str):
    ri = start()
    return _with_helper("attr", obj, ri.StrSexpVector([name]))


def get_item(obj: RObject, key):
    ri = start()
    if isinstance(key, str):
        k = ri.StrSexpVector([key])
    elif isinstance(key, int) and not isinstance(key, bool):
        k = ri.IntSexpVector([key + 1])
    else:
        raise TypeError("RObject keys are component names (str) or 0-based positions (int)")
    return _with_helper("item", obj, k)


def unclass_to_python(obj: RObject):
    return _with_helper("unclass_any", obj)


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
            h = _state["helpers"]
            out["R"] = str(h["r_version"]()[0])
            v = h["pkg_version"](ri.StrSexpVector(["sdcMicro"]))[0]
            out["sdcMicro"] = None if v is ri.NA_Character else str(v)
    except RNotAvailableError:
        pass
    return out
