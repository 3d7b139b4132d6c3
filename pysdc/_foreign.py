"""The decorator every public measure carries: its declared constraints and what else it takes.

``@measure(PARAMS, selects=..., engine=..., by_name=..., paired=...)`` validates a measure's
arguments from its declared constraints (:func:`pysdc._validation.validate_params`) and lets a
frame argument be, besides a pandas DataFrame or a NumPy array:

1. a **Polars / Arrow table** (a Polars DataFrame or LazyFrame, a PyArrow Table, anything with
   ``__arrow_c_stream__``): converted to pandas as pysdc's Parquet reader would (:mod:`pysdc.io._interchange`),
   before anything else, so that a problem in the other frame argument sees pandas;
2. an **SDC problem**: its data replace the argument and its specification fills the arguments the
   caller left out or at their defaults (below);
3. an **engine's table** (a DuckDB relation, a Spark DataFrame, :func:`pysdc.scan`): the measure
   runs on that engine, through the function its ``engine`` declaration names (in
   :mod:`pysdc.engine`), or is refused with the declared reason.

The declarations are kept on the function (``__pysdc_params__``, ``__pysdc_measure__``), where the
registry (:mod:`pysdc._registry`) reads them; nothing here lists measure names.

Problems, by protocol
---------------------
Nothing here imports :mod:`pysdc.problem` or :mod:`pysdc.r`. An object is a *problem* when its class
has the attributes ``data`` (the original data, pandas), ``sdc_data`` (the data as sdcMicro's
``createSdcObj`` holds them: text key variables as factors) and ``specification`` (a dict with
``key_vars``, ``num_vars``, ``w``, ``hid``, ``strata``, ``sensitive``) -- :class:`pysdc.SdcProblem`
is one. An object whose class has a ``to_problem(data=...)`` method (``"original"`` or
``"manipulated"``) returning a problem -- :class:`pysdc.r.SdcObj` -- stands for that problem: for
its current (manipulated) data, as an ``sdcMicroObj`` does in sdcMicro's ``measure_risk(sdc)``; in
``x`` of a two-frame measure with ``xm`` left out (``pysdc.d_utility(sdc)``) for both, the original
as ``x`` and the manipulated data as ``xm``, as sdcMicro's ``dUtility(sdc)``.

=================  ==========================================================
argument           filled from the specification's
=================  ==========================================================
``key_vars``       ``key_vars``
``w``              ``w`` (the weight)
``hid``            ``hid`` (household id)
``ldiv_index``     ``sensitive``
=================  ==========================================================

What a problem stands for follows the measure's ``selects`` declaration: ``"numeric"`` -- the
problem's numeric variables (``num_vars``), ``"variables"`` -- its key and numeric variables (both
for measures comparing every column of ``x`` and ``xm``; a DataFrame passed as the other frame is cut
to the same variables), ``"data"`` (the default) -- the whole :attr:`~pysdc.SdcProblem.sdc_data`, so
``pysdc.suda2(problem)`` is sdcMicro's ``suda2(sdc)``, not its ``suda2(data.frame)``. Arguments
given explicitly are never overridden.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError
from ._validation import Frame, validate, validate_params
from .engine._errors import engine_errors
from .engine._tables import as_table, engine_kind
from .io._interchange import is_interchange, to_pandas

__all__ = ["measure", "Declaration", "declared_measure", "bind", "is_problem", "as_problem", "SELECTIONS",
           "NO_ENGINE"]

#: what a problem in a frame argument stands for (see the module docstring)
SELECTIONS = ("data", "numeric", "keys", "variables")
#: the reason given for a measure that declares no engine
NO_ENGINE = "it has no engine implementation"
#: measure argument -> the specification's entry that fills it
FILL = {"key_vars": "key_vars", "w": "w", "hid": "hid", "ldiv_index": "sensitive"}


@dataclass(frozen=True)
class Declaration:
    """What a measure declares besides its parameters' constraints.

    Attributes
    ----------
    selects : {"data", "numeric", "keys", "variables"}
        What a problem in a frame argument stands for.
    engine : callable or None
        The function computing the measure on an engine's table (:mod:`pysdc.engine`), called with the
        validated arguments in the measure's signature order (the frames as engine tables).
    no_engine : str
        Why the measure does not run on an engine (empty when it does).
    by_name : bool
        Whether the variables of ``x`` and ``xm`` are paired by name (else by position, as in sdcMicro).
    paired : bool
        Whether the records of ``x`` and ``xm`` are compared pairwise (row i with row i).
    second : str
        The name of the protected frame compared with ``x``: ``"xm"`` (sdcMicro's measures) or ``"y"``
        (the record-linkage measures): a problem there, or an ``SdcObj`` in ``x`` with it left out, fills it.
    """

    selects: str = "data"
    engine: Callable | None = None
    no_engine: str = ""
    by_name: bool = False
    paired: bool = True
    second: str = "xm"


def declared_measure(func) -> Declaration | None:
    """The :class:`Declaration` of a function decorated by :func:`measure` (None if it is not)."""
    return getattr(func, "__pysdc_measure__", None)


# =============================================================================
# problems, by protocol


def _is_problem_type(obj) -> bool:
    cls = type(obj)
    return all(hasattr(cls, a) for a in ("data", "sdc_data", "specification"))


def _has_to_problem(obj) -> bool:
    # looked up on the class: a DataFrame's attribute access would find a column named to_problem
    return callable(getattr(type(obj), "to_problem", None))


def is_problem(obj) -> bool:
    """Whether ``obj`` is a problem (e.g. :class:`pysdc.SdcProblem`) or converts to one (:class:`pysdc.r.SdcObj`)."""
    if obj is None or isinstance(obj, (pd.DataFrame, np.ndarray)):
        return False
    return _is_problem_type(obj) or _has_to_problem(obj)


def as_problem(obj, data: str = "original"):
    """``obj`` as a problem (an object with ``to_problem`` through ``to_problem(data)``)."""
    if _is_problem_type(obj):
        if data == "manipulated" and getattr(obj, "steps", None):  # a protected SdcProblem: its manipulated data,
            return obj.with_data(obj.manip_data)                    # as an sdcMicroObj stands for its own
        return obj
    p = obj.to_problem(data=data)
    if not _is_problem_type(p):  # pragma: no cover - a contract of pysdc.r.SdcObj
        raise InvalidParameterError(f"{type(obj).__name__}.to_problem() returned {type(p).__name__}, not a problem.")
    return p


def _frames(params: dict) -> list:
    return [n for n, c in params.items() if isinstance(c, Frame)]


def from_problem(fname: str, sig: inspect.Signature, params: dict, decl: Declaration, arguments: dict) -> dict:
    """``arguments`` with every problem in a frame argument replaced by its data and specification."""
    frames = _frames(params)
    problems = {n: arguments[n] for n in frames if is_problem(arguments.get(n))}
    if not problems:
        return arguments
    out = dict(arguments)
    second = decl.second  # the protected frame: "xm" (sdcMicro's measures), "y" (the record-linkage measures)
    pair = "x" in frames and second in frames
    if (pair and "x" in problems and (not _is_problem_type(problems["x"]) or getattr(problems["x"], "steps", None))
            and out.get(second) is None):
        # sdcMicro's dUtility(sdcObj) & co.: the original against the manipulated data of the object
        problems = {"x": as_problem(problems["x"], "original"), second: as_problem(problems["x"], "manipulated")}
    else:
        # an sdcMicroObj's measures (measure_risk(sdc) ...) are those of its current, manipulated data
        problems = {n: as_problem(p, "manipulated") for n, p in problems.items()}
    spec = (problems.get("x") or next(iter(problems.values()))).specification
    if pair and decl.selects != "data":
        cols = {"numeric": list(spec["num_vars"]), "keys": list(spec["key_vars"]),
                "variables": [*spec["key_vars"], *spec["num_vars"]]}[decl.selects]
        if not cols:
            what = {"numeric": "numeric variables (num_vars)", "keys": "key variables", "variables": "variables"}
            raise InvalidParameterError(
                f"{fname}: the SdcProblem declares no {what[decl.selects]} for this measure; pass DataFrames with "
                "the variables to compare."
            )
        for name in ("x", second):
            v = problems[name].data if name in problems else out.get(name)
            if isinstance(v, pd.DataFrame):
                miss = [c for c in cols if c not in v.columns]
                if miss:
                    raise InvalidParameterError(f"{name} lacks the variable(s) {miss} of the SdcProblem's specification.")
                v = v[cols]
            out[name] = v
        return out
    for name, p in problems.items():
        # the measures of one file see the data as createSdcObj holds them: text keys as factors
        out[name] = p.sdc_data
    for arg, attr in FILL.items():
        if arg not in sig.parameters:
            continue
        default = sig.parameters[arg].default
        given = out.get(arg, inspect.Parameter.empty)
        if given is inspect.Parameter.empty or (default is not inspect.Parameter.empty and given is default):
            value = spec[attr]
            if value in (None, []):
                if default is inspect.Parameter.empty:
                    raise InvalidParameterError(
                        f"{fname}: {arg} is missing and the SdcProblem declares no {attr}; pass {arg}=... ."
                    )
                continue
            out[arg] = value
    return out


# =============================================================================
# binding: Polars / Arrow, problems


def _pandas_frames(params: dict, arguments: dict) -> dict:
    """``arguments`` with every Polars / Arrow table of a frame argument converted to pandas."""
    out = None
    for name in _frames(params):
        if is_interchange(arguments.get(name)):
            out = dict(arguments) if out is None else out
            out[name] = to_pandas(name, arguments[name])
    return arguments if out is None else out


def _has_foreign_frame(params: dict, arguments: dict) -> bool:
    """Whether a frame argument is a problem or an engine's table."""
    return any(is_problem(arguments.get(n)) or engine_kind(arguments.get(n)) is not None for n in _frames(params))


def bind(fname: str, sig: inspect.Signature, params: dict, decl: Declaration, args: tuple, kwargs: dict) -> dict:
    """The call's arguments (defaults applied) with Polars / Arrow tables as pandas and problems as their
    data and specification; engine tables stay as they are. Used by the native decorator and the R bridge."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        # a problem in place of the data may supply what is missing (key_vars, ...)
        bound = sig.bind_partial(*args, **kwargs)
        bound.arguments.update(_pandas_frames(params, bound.arguments))  # converted once (a stream reads once)
        if not _has_foreign_frame(params, bound.arguments):
            raise
    bound.apply_defaults()
    arguments = _pandas_frames(params, bound.arguments)
    return from_problem(fname, sig, params, decl, arguments)


# =============================================================================
# engines


def _engine_frames(params: dict, arguments: dict) -> dict:
    return {n: arguments[n] for n in _frames(params) if engine_kind(arguments.get(n)) is not None}


def _check_engine_signature(fname: str, sig: inspect.Signature, engine: Callable) -> None:
    """The engine function takes the measure's parameters in its order (a frame may be called ``table``)."""
    ours = list(sig.parameters)
    theirs = list(inspect.signature(engine).parameters)
    if len(ours) != len(theirs) or any(a != b and b != "table" for a, b in zip(ours, theirs)):
        raise TypeError(f"{fname}: the engine function {engine.__name__}{tuple(theirs)} does not take the "
                        f"measure's parameters {tuple(ours)} in order")  # pragma: no cover - a declaration error


def _run_on_engine(fname: str, sig: inspect.Signature, params: dict, decl: Declaration, arguments: dict,
                   frames: dict):
    """The measure's result computed by the engine its declaration names."""
    if decl.engine is None:
        raise InvalidParameterError(
            f"{fname} does not run on a DuckDB relation, a Spark DataFrame or pysdc.scan(...): {decl.no_engine}. "
            "Read the data into pandas first (e.g. relation.df(), spark_df.toPandas(), or a sample of it)."
        )
    tables = {n: as_table(v) for n, v in frames.items()}
    kinds = {t.kind for t in tables.values()}
    all_frames = _frames(params)
    others = [n for n in all_frames if n not in tables and arguments.get(n) is not None]
    if len(kinds) > 1 or others:
        raise InvalidParameterError(
            f"{fname}: {' and '.join(sorted(all_frames))} must be tables of the same engine (both DuckDB "
            "relations / DuckDB scans, or both Spark DataFrames / Spark scans); got "
            + ", ".join(f"{n}: {type(arguments.get(n)).__name__}" for n in all_frames) + "."
        )
    # the other arguments are validated by the measure's own declarations, against the tables' column names
    dummy = dict(arguments)
    for n, t in tables.items():
        dummy[n] = pd.DataFrame(columns=t.columns)
    values = validate(params, dummy)
    for n, t in tables.items():
        values[n] = t
    limit = next((v.memory_limit for v in frames.values() if getattr(v, "memory_limit", None)), None)
    files = [f for v in frames.values() if isinstance(getattr(v, "source", None), list) for f in v.source]
    with engine_errors(memory_limit=limit, paths=files):  # the engines' exceptions as pysdc's, with advice
        return decl.engine(*(values[p] for p in sig.parameters))


# =============================================================================
# the decorator


def measure(params: dict, *, selects: str = "data", engine: Callable | str = NO_ENGINE, by_name: bool = False,
            paired: bool = True, second: str = "xm"):
    """Decorator of a public measure: validation from ``params`` plus problems, engines, Polars / Arrow.

    Parameters
    ----------
    params : dict
        The declared constraints (:func:`pysdc._validation.validate_params`).
    selects : {"data", "numeric", "keys", "variables"}
        What a problem in a frame argument stands for (module docstring).
    engine : callable or str
        The engine function (:mod:`pysdc.engine`; it takes the measure's parameters in order), or why
        the measure does not run on an engine.
    by_name, paired : bool
        How ``x`` and ``xm`` are paired (:class:`Declaration`).
    second : str
        The protected frame's name (``"xm"``; the record-linkage measures: ``"y"``).
    """
    if selects not in SELECTIONS:  # pragma: no cover - a declaration error, caught at import
        raise TypeError(f"selects must be one of {SELECTIONS}; got {selects!r}")
    decl = Declaration(selects=selects, engine=None if isinstance(engine, str) else engine,
                       no_engine=engine if isinstance(engine, str) else "", by_name=by_name, paired=paired,
                       second=second)

    def deco(func):
        checked = validate_params(params)(func)  # the declaration checks (unknown parameters refused)
        sig = inspect.signature(func)
        fname = func.__name__
        if decl.engine is not None:
            _check_engine_signature(fname, sig, decl.engine)
        if second not in sig.parameters and second != "xm":  # pragma: no cover - a declaration error
            raise TypeError(f"{fname}: second={second!r} is not one of its parameters")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            arguments = bind(fname, sig, params, decl, args, kwargs)
            frames = _engine_frames(params, arguments)
            if frames:
                return _run_on_engine(fname, sig, params, decl, arguments, frames)
            return func(**validate(params, arguments))

        wrapper.__pysdc_params__ = checked.__pysdc_params__
        wrapper.__pysdc_measure__ = decl
        return wrapper

    return deco
