"""Shared pieces of the analysts' checks (:mod:`._gini`, :mod:`._ci_overlap`, :mod:`._compare_estimates`).

Their declared constraints (numbers, a numeric vector, None-or-an-option) and the sums as R computes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._validation import Constraint, _show

__all__ = ["Numbers", "Vector", "OptionsOrNone"]


# =============================================================================
# Constraints of the analysts' checks (declared next to the signatures; see pysdc._validation)


@dataclass(frozen=True)
class Numbers(Constraint):
    """A real number or an array_like of real numbers (e.g. interval bounds); returned as a float array."""

    def check(self, name, value, values):
        if value is None or isinstance(value, (str, bytes, bool, np.bool_, dict)):
            raise InvalidParameterError(f"{name} must be a number or a numeric array; got {_show(value)}.")
        try:
            return np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{name} must be a number or a numeric array; got {_show(value)}.") from None

    def invalid_values(self, name, values):
        return ["1", None, True, [1.0, "a"], {"a": 1.0}]


@dataclass(frozen=True)
class Vector(Constraint):
    """A 1-d numeric array or Series; ``same_length_as``: as long as that (earlier) argument; ``optional``: None."""

    same_length_as: str | None = None
    optional: bool = False

    def check(self, name, value, values):
        if value is None:
            if self.optional:
                return None
            raise InvalidParameterError(f"{name} must be a 1-d numeric array or Series; got None.")
        if isinstance(value, (str, bytes, bool, np.bool_, dict)):
            raise InvalidParameterError(f"{name} must be a 1-d numeric array or Series; got {_show(value)}.")
        n = None if self.same_length_as is None else np.size(values[self.same_length_as])
        return _as_vector(name, value, n)

    def invalid_values(self, name, values):
        out = ["abc", [[1.0, 2.0], [3.0, 4.0]], pd.DataFrame({"a": [1.0]})]
        if not self.optional:
            out.append(None)
        if self.same_length_as is not None:
            out.append(np.ones(np.size(values[self.same_length_as]) + 1))
        return out


@dataclass(frozen=True)
class OptionsOrNone(Constraint):
    """None or one of a fixed set of strings."""

    options: tuple

    def check(self, name, value, values):
        if value is None:
            return None
        if not isinstance(value, str) or value not in self.options:
            opts = ", ".join(repr(o) for o in self.options)
            raise InvalidParameterError(f"{name} must be one of {opts} or None; got {_show(value)}.")
        return value

    def invalid_values(self, name, values):
        return ["__bogus__", 3, True]


def _as_vector(name: str, v, n: int | None = None) -> np.ndarray:
    if isinstance(v, pd.DataFrame):
        raise InvalidParameterError(f"{name} must be a 1-d numeric array or Series; got a DataFrame. Select one column.")
    if isinstance(v, pd.Series) and isinstance(v.dtype, pd.CategoricalDtype):
        raise InvalidParameterError(f"{name} must be numeric; got a categorical Series.")
    try:
        if isinstance(v, pd.Series):
            a = v.astype("float64").to_numpy() if v.dtype != object else pd.to_numeric(v).astype(float).to_numpy()
        else:
            a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be numeric (laeken: \"'inc' must be a numeric vector\"); got {type(v).__name__}."
        ) from None
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-d; got {a.ndim} dimensions.")
    if n is not None and a.size != n:
        raise InvalidParameterError(f"{name} must have the same length as x ({n}); got {a.size}.")
    return a


# =============================================================================
# Sums as R computes them (long double accumulation), so that the comparisons and
# cumulative shares that decide which value is picked agree with R's


def _rsum(v: np.ndarray) -> float:
    return float(np.sum(np.asarray(v, dtype=np.longdouble)))


def _rcumsum(v: np.ndarray) -> np.ndarray:
    return np.cumsum(np.asarray(v, dtype=np.longdouble)).astype(np.float64)
