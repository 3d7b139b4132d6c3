"""pysdc's protection methods executed by sdcMicro: one wrapper per :data:`pysdc._registry._methods.METHODS` entry.

Each wrapper has the native function's signature, validates its arguments from the native
function's declared constraints (native and bridge refuse the same inputs), calls sdcMicro's function
with the R argument names of the registry (``random_state`` becomes R's ``set.seed`` just before the
call, under the session lock) and returns sdcMicro's data as a DataFrame.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._registry._methods import METHODS, Method
from .._validation import validate
from . import _session
from ._mcd_guard import check_covmcd

__all__ = ["METHOD_WRAPPERS", "method_function", "record_swap_step"]


def run(entry: Method, values: dict):
    """Validate ``values`` (the bound arguments) and run the method with sdcMicro."""
    values = validate(entry.params, values)
    seed = values.get(entry.r_seed) if entry.r_seed else None
    if seed is not None and not isinstance(seed, int):
        raise InvalidParameterError(
            f"{entry.r_seed} must be None or an int (R's set.seed) for pysdc.r.{entry.python}; "
            f"got {type(seed).__name__}.")
    fun, args, kwargs = entry.to_r(values)
    with _session.LOCK:
        if seed is not None:
            _session.call_sexp("set.seed", (seed,), {}, package="base")
        check_covmcd(entry.python, values)  # refused where robustbase's covMcd would corrupt R's memory
        if entry.r == "mafast":  # sdcMicro's measure is an R function
            kwargs = {**kwargs, "measure": _session.call("match.fun", (kwargs["measure"],), {}, package="base",
                                                         as_robject=True)}
        if entry.r == "shuffle":  # sdcMicro needs a formula object
            kwargs = {**kwargs, "form": _session.call("as.formula", (kwargs["form"],), {}, package="stats",
                                                      as_robject=True)}
        if entry.r == "localSupp":  # the worker of the sdcMicroObj/freqCalc methods, with the given risks
            out = _session.call(fun, args, kwargs, package="sdcMicro", internal=True)
        elif entry.r == "pram":  # a data.frame with attributes: the data and the attributes converted apart
            if isinstance(kwargs["pd"], np.ndarray) and kwargs["pd"].ndim == 2:  # a matrix with the levels
                levels = [str(c) for c in values["data"][values["variables"][0]].cat.categories]
                kwargs = {**kwargs, "pd": _session.call(
                    "matrix", (kwargs["pd"].ravel(order="F"),), {"nrow": len(levels), "dimnames": [levels, levels]},
                    package="base", as_robject=True)}
            handle = _session.call(fun, args, kwargs, package="sdcMicro", as_robject=True)
            plain = _session.call("unclass", (handle,), {}, package="base", as_robject=True)
            out = {"data": _session.call("as.data.frame", (plain,), {"optional": True}, package="base"),
                   "params": _session.call("attr", (handle, "pram_params"), {}, package="base"),
                   "summary": _session.call("attr", (handle, "summary"), {}, package="base")}
        elif entry.r in ("mvTopCoding", "recordSwap"):  # a data.table: as.data.frame in R before converting
            handle = _session.call(fun, args, kwargs, package="sdcMicro", as_robject=True)
            out = _session.call("as.data.frame", (handle,), {}, package="base")
        else:
            out = _session.call(fun, args, kwargs, package="sdcMicro")
    return entry.from_r(out, values) if entry.from_r else out


def method_function(entry: Method):
    """The bridge wrapper of a method entry: the native signature, sdcMicro's result."""
    native = entry.native
    sig = inspect.signature(native)

    @functools.wraps(native, assigned=("__name__", "__qualname__", "__annotations__"))
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return run(entry, dict(bound.arguments))

    wrapper.__signature__ = sig
    wrapper.__module__ = "pysdc.r"
    wrapper.__doc__ = (
        f"sdcMicro's ``{entry.r}``, with the signature of :func:`pysdc.protect.{entry.python}`.\n\n"
        f"    The returned data are sdcMicro's; arguments are validated exactly as by the native function\n"
        f"    before R starts. Argument names (Python -> R):\n"
        f"    {', '.join(f'{py} -> {r}' for py, r in entry.arguments.items() if r)}"
        + (f"; {entry.r_seed} -> set.seed() before the call" if entry.r_seed else "") + ".\n"
        + (f"\n    Notes: {entry.notes}\n" if entry.notes else "")
        + f"\n    See Also\n    --------\n    pysdc.protect.{entry.python}\n"
    )
    return wrapper


#: python name -> bridge wrapper, for every method entry with a bridge
METHOD_WRAPPERS = {m.python: method_function(m) for m in METHODS if m.bridge}


def record_swap_step(obj, kwargs: dict, hid: str, key_vars: list):
    """A problem's ``record_swap`` step replayed on an sdcMicroObj (a :class:`pysdc.r.SdcObj`): a new SdcObj.

    sdcMicro's ``recordSwap`` on an sdcMicroObj swaps its ORIGINAL data and returns a data.table, not an object; a
    problem's step swaps the manipulated data. So the object's manipulated data (``extractManipData``) are swapped by
    sdcMicro's ``recordSwap`` (``hid`` the object's household id, ``risk_variables`` its key variables unless
    given, ``seed`` its C++ generator's), the swapped key variables go back into ``manipKeyVars`` in the object's
    record order, and ``calcRisks`` re-measures -- what the native step does, with sdcMicro's swaps.
    """
    data = obj._call("extractManipData")
    args = dict(kwargs)
    if args.get("risk_variables") is None:
        args["risk_variables"] = list(key_vars)
    hierarchy = [args.pop("hierarchy")] if isinstance(kwargs["hierarchy"], str) else list(args.pop("hierarchy"))
    similar = args.pop("similar")
    out = METHOD_WRAPPERS["record_swap"](data, hid, hierarchy, similar, **args)
    pos = np.argsort(data[hid].to_numpy(), kind="stable")  # sdcMicro returns the records ordered by household
    inv = np.empty_like(pos)
    inv[pos] = np.arange(pos.size)
    moved = list(dict.fromkeys(hierarchy + list(args.get("carry_along") or [])))
    mk = obj.get("manipKeyVars")
    for v in moved:
        mk[v] = pd.Categorical(np.asarray(out[v].astype(object))[inv], categories=mk[v].cat.categories,
                               ordered=mk[v].cat.ordered)
    with _session.LOCK:
        handle = _session.call("set.sdcMicroObj", (obj.handle,), {"type": "manipKeyVars", "input": [mk]},
                               package="sdcMicro", as_robject=True)
        handle = _session.call("calcRisks", (handle,), {}, package="sdcMicro", as_robject=True)
    return type(obj)(handle)
