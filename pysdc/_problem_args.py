"""An SDC problem in place of a measure's data: its data and its specification fill the call.

``pysdc.measure_risk(problem)`` is ``pysdc.measure_risk(problem.data, problem.key_vars,
w=problem.w, hid=problem.hid)``: :func:`from_problem` (called by :func:`pysdc._adapters.adapt`
when a frame argument is not a pandas/NumPy frame) replaces a :class:`pysdc.SdcProblem` -- or a
:class:`pysdc.r.SdcObj`, recognised by its class name without importing rpy2 and turned into a
problem by its ``to_problem()`` -- by its data, and fills the arguments the caller left out or at
their default from the specification. An SdcObj stands for its current (manipulated) data, as an
``sdcMicroObj`` does in sdcMicro's ``measure_risk(sdc)``; in ``x`` of a two-frame measure with ``xm``
left out (``pysdc.d_utility(sdc)``) it gives both, the original as ``x`` and the manipulated data as
``xm``, as sdcMicro's ``dUtility(sdc)`` does:

=================  ==========================================================
argument           filled from
=================  ==========================================================
``key_vars``       ``key_vars``
``w``              ``w`` (the weight)
``hid``            ``hid`` (household id)
``ldiv_index``     ``sensitive``
=================  ==========================================================

For the measures that compare every column of two frames ``x`` and ``xm`` (``d_utility``,
``il_correl``, ``il_variables``, ``il_continuous``, ``il_categorical``, ``hellinger``,
``il_entropy``, ``gsil``, ``d_risk``, ``d_risk_rmd``) a problem in ``x`` (or ``xm``) stands for its
declared variables: the numeric ones (``num_vars``) for the measures on continuous variables, the key
and numeric ones for the others; a DataFrame passed as the other frame is cut to the same variables.
Other measures on two frames get the whole data and the problem's weight. Measures of one file
(``measure_risk``, ``freq_calc``, ``suda2``, ``ldiversity``, ``k_anon_violations``, ``mod_risk`` ...) get
the problem's :attr:`~pysdc.SdcProblem.sdc_data`: its text key variables as factors, as sdcMicro's
``createSdcObj`` makes them, so ``pysdc.suda2(problem)`` is sdcMicro's ``suda2(sdc)``, not its
``suda2(data.frame)``. Arguments given
explicitly are never overridden. Only functions that declare their frames with
``@validate_params`` take a problem (today the analysts' checks ``compare_estimates``,
``compare_regression``, ``gini`` and ``ci_overlap`` do not; they take DataFrames).
"""

from __future__ import annotations

import inspect

import pandas as pd

from ._errors import InvalidParameterError

__all__ = ["from_problem", "as_problem", "is_problem"]

#: measure argument -> the specification's attribute that fills it
FILL = {"key_vars": "key_vars", "w": "w", "hid": "hid", "ldiv_index": "sensitive"}
#: measures on two frames that compare every column they get: a problem stands for its declared variables
SELECTS = frozenset({"d_utility", "il_correl", "il_variables", "il_continuous", "il_categorical", "hellinger",
                     "il_entropy", "gsil", "d_risk", "d_risk_rmd"})
#: loss/risk measures on two frames that use only the numeric variables
NUMERIC_ONLY = frozenset({"d_utility", "il_correl", "il_continuous", "d_risk", "d_risk_rmd"})


def is_problem(obj) -> bool:
    """Whether ``obj`` is an SdcProblem or (by duck typing, without importing rpy2) a pysdc.r.SdcObj."""
    from .problem import SdcProblem

    if isinstance(obj, SdcProblem):
        return True
    return type(obj).__name__ == "SdcObj" and callable(getattr(obj, "to_problem", None))


def as_problem(obj, data: str = "original"):
    """``obj`` as an :class:`SdcProblem` (an SdcObj through its ``to_problem(data)``: ``"original"`` or
    ``"manipulated"``)."""
    from .problem import SdcProblem

    if isinstance(obj, SdcProblem):
        return obj
    p = obj.to_problem(data=data)
    if not isinstance(p, SdcProblem):  # pragma: no cover - a contract of pysdc.r.SdcObj
        raise InvalidParameterError(f"{type(obj).__name__}.to_problem() returned {type(p).__name__}, not an SdcProblem.")
    return p


def _is_sdcobj(obj) -> bool:
    return type(obj).__name__ == "SdcObj"


def _name(func) -> str:
    return getattr(func, "__name__", "")


def from_problem(func, params: dict, arguments: dict) -> dict:
    """Return ``arguments`` with an SdcProblem / SdcObj replaced by its data and specification."""
    from ._validation import Frame

    frames = [name for name, c in params.items() if isinstance(c, Frame)]
    problems = {name: arguments[name] for name in frames if is_problem(arguments.get(name))}
    if not problems:
        return arguments
    out = dict(arguments)
    sig = inspect.signature(func)
    fname = _name(func)
    pair = "x" in frames and "xm" in frames
    if pair and "x" in problems and _is_sdcobj(problems["x"]) and out.get("xm") is None:
        # sdcMicro's dUtility(sdcObj) & co.: the original against the manipulated data of the object
        problems["xm"] = problems["x"]
        problems = {"x": as_problem(problems["x"], "original"), "xm": as_problem(problems["xm"], "manipulated")}
    else:
        # an sdcMicroObj's measures (measure_risk(sdc) ...) are those of its current, manipulated data
        problems = {name: as_problem(p, "manipulated" if _is_sdcobj(p) else "original")
                    for name, p in problems.items()}
    if pair and fname in SELECTS:
        spec = problems.get("x") or problems.get("xm")
        cols = list(spec.num_vars) if fname in NUMERIC_ONLY else [*spec.key_vars, *spec.num_vars]
        if not cols:
            raise InvalidParameterError(
                f"{fname}: the SdcProblem declares no {'numeric variables (num_vars)' if fname in NUMERIC_ONLY else 'variables'} "
                "for this measure; pass DataFrames with the variables to compare."
            )
        for name in ("x", "xm"):
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
    spec = problems.get("x") or next(iter(problems.values()))
    for arg, attr in FILL.items():
        if arg not in sig.parameters:
            continue
        default = sig.parameters[arg].default
        given = out.get(arg, inspect.Parameter.empty)
        if given is inspect.Parameter.empty or (default is not inspect.Parameter.empty and given is default):
            value = getattr(spec, attr)
            if value in (None, []):
                if default is inspect.Parameter.empty:
                    raise InvalidParameterError(
                        f"{fname}: {arg} is missing and the SdcProblem declares no {attr}; pass {arg}=... ."
                    )
                continue
            out[arg] = value
    return out
