"""Frames as the information-loss measures read them: numeric matrices, the causes of a failed
standardisation, column names in messages (shared by d_utility, il_correl and il_variables).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._types import NUMERIC_MATRIX_CLASSES, as_float, r_class

__all__ = ["numeric_matrix", "describe_cause", "column_names", "show_names"]


def numeric_matrix(name: str, frame: pd.DataFrame) -> np.ndarray:
    """Columns of ``frame`` as a float64 matrix; refuses non-numeric columns."""
    bad = [(c, r_class(frame[c])) for c in frame.columns if r_class(frame[c]) not in NUMERIC_MATRIX_CLASSES]
    if bad:
        shown = ", ".join(f"{c!r} ({cls})" for c, cls in bad[:5])
        raise InvalidParameterError(
            f"d_utility needs numeric variables, but {name} has non-numeric column(s) {shown}; "
            "sdcMicro's dUtility cannot compute distances on them either. "
            "Select the continuous variables, e.g. x[['income', 'expend']]."
        )
    if frame.shape[1] == 0:
        raise InvalidParameterError(f"{name} has no columns; pass at least one numeric variable.")
    if all(dt == np.float64 for dt in frame.dtypes):
        return frame.to_numpy(dtype=np.float64, copy=False)  # a view for a single float block
    out = np.empty(frame.shape, dtype=np.float64, order="F")
    for j, c in enumerate(frame.columns):
        out[:, j] = as_float(frame[c])
    return out


def describe_cause(frames) -> str:
    """Why standardised covariances / correlations cannot be computed: names the columns."""
    causes = []
    for name, frame, M in frames:
        cols = list(frame.columns)
        with np.errstate(invalid="ignore"):
            inf = np.isinf(M).any(axis=0)
        if inf.any():
            causes.append(f"{name} has infinite value(s) in column(s) {column_names(cols, inf)}")
        finite = np.where(np.isfinite(M), M, np.nan)
        k = (~np.isnan(finite)).sum(axis=0)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            const = (k >= 2) & (np.nanmax(finite, axis=0, initial=-np.inf) == np.nanmin(finite, axis=0, initial=np.inf))
        if const.any():
            causes.append(f"{name}'s column(s) {column_names(cols, const)} are constant (sd 0, so standardising divides "
                          "by 0)")
        if (k < 2).any():
            causes.append(f"{name}'s column(s) {column_names(cols, k < 2)} have fewer than two finite values")
    return "; ".join(causes) or "fewer than two complete pairs of records"


def column_names(cols, mask) -> str:
    picked = [str(c) for c, m in zip(cols, mask) if m]
    return str(picked[:5]) + (" ..." if len(picked) > 5 else "")


def show_names(cols) -> str:
    return str([str(c) for c in cols[:10]]) + (f" and {len(cols) - 10} more" if len(cols) > 10 else "")
