"""sdcMicro's ``IL_variables`` from per-variable sums: the scale of each variable (with sdcMicro's
refusals) and the measure from the summed distances.

Shared by :func:`pysdc.il_variables` (pandas sums the records' distances) and its engine path
(an engine aggregates them).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, user_stacklevel
from .._results import ILVariablesResult

__all__ = ["il_variables_kind", "il_variables_from_sums"]


def il_variables_kind(c, ca: str, cb: str, scales: dict, *, ordinal: bool = True) -> str:
    """IL_variables' scale of column ``c`` (R classes ``ca`` in x, ``cb`` in xm): declared in ``scales``, or
    from the class, with sdcMicro's refusals (``ordinal``: whether an ordered class and the 'ordinal' scale
    are possible -- not on an engine)."""
    if c in scales:
        return scales[c]
    if ca != cb:
        raise InvalidParameterError(
            f"column {c!r} is {ca} in x but {cb} in xm; sdcMicro's IL_variables fails on different "
            f"types. Give both the same dtype, or declare its scale, e.g. scales={{{c!r}: 'numeric'}}."
        )
    if ca in ("integer", "logical", "POSIXct"):
        others = "or 'ordinal', 'nominal'" if ordinal else "or 'nominal'"
        raise InvalidParameterError(
            f"column {c!r} is {ca} (R class), which sdcMicro's IL_variables treats as nominal and then "
            "refuses (its nominal distance accepts only factors and strings). Declare the scale you mean, "
            f"e.g. scales={{{c!r}: 'numeric'}} ({others}), or convert the column to float or to a Categorical."
        )
    return _kind_of(ca) if ordinal else ("numeric" if ca == "numeric" else "nominal")


def _kind_of(cls: str) -> str:
    if cls == "numeric":
        return "numeric"
    if cls == "ordered":
        return "ordinal"
    return "nominal"


def il_variables_from_sums(sums: dict, n: int) -> ILVariablesResult:
    """IL_variables from each variable's summed distance (in ``x``'s column order) over ``n`` records
    (pandas sums the records' distances, an engine aggregates them)."""
    contributions = {c: (s / n if n else np.nan) for c, s in sums.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(sum(sums.values())) / (n * len(sums)) if n else float("nan")
    per_variable = pd.Series(contributions, dtype=np.float64, name="il_variables")
    if not np.isfinite(value):
        bad = [k for k, v in contributions.items() if not np.isfinite(v)] if n else []
        warnings.warn(
            f"il_variables is {value}: "
            + (f"variable(s) {bad} give NaN (a one-level ordered factor divides by levels - 1 = 0). "
               if bad else "x and xm have no records (0 rows). ")
            + "sdcMicro returns NaN here too.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    return ILVariablesResult(value=float(value), per_variable=per_variable, n=int(n))
