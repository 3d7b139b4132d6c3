"""pysdc's measures executed by sdcMicro: one wrapper per registry entry, same signature.

Each wrapper has the native function's signature (``inspect.signature`` shows it),
validates its arguments from the native function's declared constraints (so native and
bridge refuse the same inputs with the same :class:`~pysdc.InvalidParameterError`),
refuses options sdcMicro lacks, sends sdcMicro only the columns the call names, and
builds the native result class from sdcMicro's output: every number in a result is
sdcMicro's. Argument names are translated through :mod:`pysdc._registry`.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, NotInSdcMicroError
from .._foreign import bind
from .._registry import MEASURES, Measure
from .._validation import FROM_ARRAY, Columns, Frame, same_columns, validate, warn_if_unaligned
from ..engine._tables import engine_kind
from . import _session
from ._helpers import helpers
from ._mcd_guard import check_covmcd

__all__ = ["bridge_function", "WRAPPERS"]


class RResult:
    """sdcMicro's raw result, read on demand (the session lock is held by the caller)."""

    def __init__(self, sexp):
        self._sexp = sexp
        self._value = None
        self._converted = False

    @property
    def value(self):
        """The result converted to Python (named list -> dict, matrix -> DataFrame ...)."""
        if not self._converted:
            self._value = _session.to_python(self._sexp)
            self._converted = True
        return self._value

    def attr(self, name: str, scalar: bool = True):
        """The attribute ``name`` of the result, converted."""
        ri = _session.start()
        return _session.to_python(helpers()["attr"](self._sexp, ri.StrSexpVector([name])), scalar=scalar)

    def get(self, component: str):
        """The component ``component`` of a named-list result (None if absent)."""
        return self.value.get(component)


def _subset(entry: Measure, values: dict) -> dict:
    """Send sdcMicro only the columns of each frame that the call names (in the frame's order)."""
    out = dict(values)
    for frame, cols in entry.frame_columns(values).items():
        keep = set(cols)
        df = values[frame]
        out[frame] = df.loc[:, [c for c in df.columns if c in keep]]
    for name, c in entry.params.items():  # column names travel as strings
        if isinstance(c, Columns) and out.get(name) is not None:
            out[name] = str(out[name]) if c.single else [str(k) for k in out[name]]
    return out


def _default_to_r(entry: Measure, values: dict):
    kwargs = {r: values[py] for py, r in entry.arguments.items() if r is not None}
    return entry.r, kwargs, False


def _generic_from_r(entry: Measure, res: RResult, values: dict):
    """The result from the field map: ``(numeric)`` is the value, ``attr "a"`` an attribute,
    anything else a component; fields without an R counterpart take the argument of that name."""
    if entry.result in (float, int):
        return entry.result(res.value)
    kwargs = {}
    for py, spec in entry.fields.items():
        if spec is None:
            if py in values:
                v = values[py]
                kwargs[py] = tuple(v) if isinstance(v, list) else v
            continue
        if spec.startswith("("):
            v = res.value
        elif spec.startswith('attr "'):
            v = res.attr(spec[6:-1])
        else:
            v = res.get(spec)
        if isinstance(v, np.ndarray) and v.ndim <= 1:
            v = np.asarray(v, dtype=float).reshape(-1) if v.dtype.kind in "iufb" else v
        kwargs[py] = v
    for f in getattr(entry.result, "__dataclass_fields__", {}):
        if f not in kwargs and f in values:
            v = values[f]
            kwargs[f] = tuple(v) if isinstance(v, list) else v
    return entry.result(**kwargs)


def run(entry: Measure, values: dict):
    """Validate ``values`` (the bound arguments) and compute the measure with sdcMicro."""
    for name, c in entry.params.items():
        if isinstance(c, Frame) and engine_kind(values.get(name)) is not None:
            raise InvalidParameterError(
                f"pysdc.r.{entry.python} sends the data to R, which needs them in memory: pass {name} as a pandas "
                "DataFrame (e.g. relation.df(), spark_df.toPandas()), or use the native "
                f"pysdc.{entry.python}" + (", which runs on the engine." if entry.engine is not None else ".")
            )
    values = validate(entry.params, values)  # the native function's own constraints
    values = validate(entry.r_params, values)  # what only the bridge needs on top
    x, xm = values.get("x"), values.get("xm")
    if isinstance(x, pd.DataFrame) and isinstance(xm, pd.DataFrame):
        if entry.paired:
            warn_if_unaligned(entry.python, x, xm)  # as the native function does
        if (entry.by_name and not (x.attrs.get(FROM_ARRAY) or xm.attrs.get(FROM_ARRAY))
                and set(x.columns) == set(xm.columns)):
            values["xm"] = same_columns(x, xm)  # variables pair by name, as natively (sdcMicro: by position)
    for name, (only, message) in entry.r_requires.items():
        if values.get(name) != only:
            raise NotInSdcMicroError(message)
    sent = _subset(entry, values)
    import pysdc.r as R  # the hooks get the finished package, which imports this module to build its wrappers

    with _session.LOCK:
        if entry.r_seed is not None and values.get(entry.r_seed) is not None:
            _session.call_sexp("set.seed", (int(values[entry.r_seed]),), {}, package="base")
        check_covmcd(entry.python, sent)  # refused where robustbase's covMcd would corrupt R's memory
        fun, kwargs, internal = entry.to_r(sent, R) if entry.to_r else _default_to_r(entry, sent)
        res = RResult(_session.call_sexp(fun, (), kwargs, package="sdcMicro", internal=internal))
        if entry.from_r is not None:
            return entry.from_r(res, values, R)
        return _generic_from_r(entry, res, values)


def bridge_function(entry: Measure):
    """The bridge wrapper of a registry entry: the native signature, sdcMicro's numbers."""
    native = entry.native
    sig = inspect.signature(native)
    params, decl = entry.params, entry.declaration

    @functools.wraps(native, assigned=("__name__", "__qualname__", "__annotations__"))
    def wrapper(*args, **kwargs):
        # an SdcProblem / SdcObj in place of the data, a Polars / Arrow table: as natively (pysdc._foreign)
        return run(entry, bind(entry.python, sig, params, decl, args, kwargs))

    wrapper.__signature__ = sig
    wrapper.__module__ = "pysdc.r"
    only = "".join(f"\n    * ``{p}``: {msg}\n" for p, (_, msg) in entry.r_requires.items())
    wrapper.__doc__ = (
        f"sdcMicro's ``{entry.r}``, with the signature and result class of :func:`pysdc.{entry.python}`.\n\n"
        f"    Every number in the result is sdcMicro's; arguments are validated exactly as by the native\n"
        f"    function (the same declared constraints) before R starts. Argument names (Python -> R):\n"
        f"    {', '.join(f'{py} -> {r}' for py, r in entry.arguments.items() if r)}. A problem\n"
        f"    (:class:`pysdc.SdcProblem`, :class:`pysdc.r.SdcObj`) may stand for the data, as natively.\n"
        + (f"\n    Options sdcMicro lacks:\n{only}" if only else "")
        + (f"\n    Notes: {entry.notes}\n" if entry.notes else "")
        + f"\n    See Also\n    --------\n    pysdc.{entry.python}\n"
    )
    return wrapper


#: python name -> bridge wrapper, for every registry entry with a bridge
WRAPPERS = {m.python: bridge_function(m) for m in MEASURES if m.bridge}
