"""Shared by the record-linkage measures: checking the linkage variables of two files and encoding them.

Not a measure. :func:`encode_gower` turns the variables of both files into the arrays
:func:`pysdc.core.linkage.gower_matrix` takes, with ``cluster::daisy``'s types (numbers interval
scaled, unordered categories and text nominal, ordered categories by their codes 1..K as interval,
logical as asymmetric binary); :func:`numeric_matrix` gives the float matrices of numeric
variables; :func:`truth_positions` maps each record of the second file to its own record in the
first (by id columns or by position).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._types import NUMERIC_MATRIX_CLASSES as NUMERIC_CLASSES  # what Euclidean / Manhattan distances accept
from .._types import r_class
from ..core.linkage import ASYMM, INTERVAL, NOMINAL

__all__ = ["check_vars_in", "encode_gower", "numeric_matrix", "check_weights", "truth_positions",
           "id_values", "own_original", "NUMERIC_CLASSES"]


def check_vars_in(name: str, vars_: list, frame: pd.DataFrame) -> None:
    missing = [v for v in vars_ if v not in frame.columns]
    if missing:
        raise InvalidParameterError(
            f"vars must name columns of both x and {name}; {missing} are not columns of {name}."
        )


def _float(s: pd.Series) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):
        raise TypeError  # pragma: no cover - callers check classes first
    return s.to_numpy(dtype=np.float64, na_value=np.nan)


def _labels(s: pd.Series) -> np.ndarray:
    """Text labels (None for missing) of a categorical / text / other column (vectorised)."""
    return s.astype("string").to_numpy(dtype=object, na_value=None)


def encode_gower(x: pd.DataFrame, y: pd.DataFrame, vars_: list) -> tuple:
    """(kinds, xs, ys, notes): daisy's variable types and per-variable float arrays of both files."""
    kinds, xs, ys, notes = [], [], [], []
    for v in vars_:
        cx, cy = r_class(x[v]), r_class(y[v])
        num = ("numeric", "integer")
        if cx in num and cy in num:
            kinds.append(INTERVAL)
            xs.append(_float(x[v]))
            ys.append(_float(y[v]))
        elif cx == "logical" and cy == "logical":
            kinds.append(ASYMM)
            xs.append(_float(x[v].astype("boolean")))
            ys.append(_float(y[v].astype("boolean")))
            notes.append(v)
        elif cx == "ordered" or cy == "ordered":
            if cx != cy or list(x[v].cat.categories) != list(y[v].cat.categories):
                raise InvalidParameterError(
                    f"vars: {v!r} is an ordered categorical in one file but not with the same categories in the "
                    f"other ({cx} / {cy}); give both files the same ordered categories."
                )
            kinds.append(INTERVAL)  # daisy: ordinal codes 1..K, then interval scaled by their observed range
            xs.append(np.where(x[v].cat.codes.to_numpy() < 0, np.nan, x[v].cat.codes.to_numpy() + 1.0))
            ys.append(np.where(y[v].cat.codes.to_numpy() < 0, np.nan, y[v].cat.codes.to_numpy() + 1.0))
        elif cx in ("factor", "character") and cy in ("factor", "character"):
            lx, ly = _labels(x[v]), _labels(y[v])
            both = np.concatenate([lx, ly])
            present = pd.notna(both)
            codes = np.full(both.size, np.nan)
            if present.any():
                codes[present] = pd.factorize(both[present])[0]
            kinds.append(NOMINAL)
            xs.append(codes[: lx.size])
            ys.append(codes[lx.size:])
        else:
            raise InvalidParameterError(
                f"vars: {v!r} is {cx} in x and {cy} in y; a linkage variable must be of one kind in both files "
                "(numbers, logical, categories/text or ordered categories)."
            )
    return kinds, xs, ys, notes


def numeric_matrix(frame: pd.DataFrame, vars_: list, distance: str, name: str) -> np.ndarray:
    """The variables as a float matrix (logical as 0/1); non-numeric variables refused."""
    bad = [v for v in vars_ if r_class(frame[v]) not in NUMERIC_CLASSES]
    if bad:
        raise InvalidParameterError(
            f"For distance={distance!r}, all linkage variables must be numeric, integer or logical; "
            f"non-numeric variables in {name}: {', '.join(map(str, bad))}. Use distance='gower' for mixed-type data "
            "(sdcMicro's recordLinkage stops the same way)."
        )
    out = np.empty((frame.shape[0], len(vars_)), dtype=np.float64)
    for j, v in enumerate(vars_):  # loop over variables
        s = frame[v]
        out[:, j] = _float(s.astype("boolean") if r_class(s) == "logical" else s)
    return out


def check_weights(weights, p: int) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        if isinstance(weights, numbers.Real) and not isinstance(weights, bool) and p == 1:
            weights = [weights]
        else:
            raise InvalidParameterError(
                f"weights must be a sequence of {p} non-negative numbers (one per linkage variable); got "
                f"{weights!r}."
            )
    try:
        w = np.asarray(list(weights), dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"weights must be numbers; got {weights!r}.") from None
    if any(isinstance(v, (bool, np.bool_)) for v in weights):
        raise InvalidParameterError(f"weights must be numbers, not booleans; got {list(weights)!r}.")
    if w.shape != (p,):
        raise InvalidParameterError(
            f"weights must have one entry per linkage variable ({p}); got {w.size}."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidParameterError(f"weights must be finite and non-negative; got {list(weights)!r}.")
    if not np.any(w > 0):
        raise InvalidParameterError("weights: at least one weight must be positive.")
    return w


def id_values(frame: pd.DataFrame, id_col) -> pd.Series:
    """The id of every record: the column's values, or 1-based row numbers (R's) without one."""
    if id_col is None:
        return pd.Series(np.arange(1, frame.shape[0] + 1, dtype=np.int64))
    return frame[id_col].reset_index(drop=True)


def _comparable(a: pd.Series, b: pd.Series) -> tuple:
    """Both id columns in one comparable form: numbers as floats, else R's as.character text."""
    na, nb = pd.isna(a).to_numpy(), pd.isna(b).to_numpy()
    num = lambda s: r_class(s) in ("numeric", "integer", "logical")  # noqa: E731
    if num(a) and num(b):
        return a.astype("float64").to_numpy(), b.astype("float64").to_numpy(), na, nb

    def text(s):
        if r_class(s) in ("numeric", "integer"):  # R's as.character: 15 significant digits
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)
            out = np.char.mod("%.15g", v).astype(object)
            out[np.isnan(v)] = None
            return out
        return _labels(s)

    return text(a), text(b), na, nb


def truth_positions(x_ids: pd.Series, y_ids: pd.Series) -> tuple:
    """(codes_x, codes_y): shared integer codes of both files' ids (-1: missing)."""
    a, b, na, nb = _comparable(x_ids, y_ids)
    both = np.concatenate([a, b])
    present = ~np.concatenate([na, nb])
    codes = np.full(both.size, -1, dtype=np.int64)
    if present.any():
        codes[present] = pd.factorize(both[present])[0]
    return codes[: a.size], codes[a.size:]


def own_original(x, y, x_id, y_id) -> np.ndarray:
    """Position in x of every record of y's own original (-1: none)."""
    if x_id is None and y_id is None:
        if x.shape[0] != y.shape[0]:
            raise InvalidParameterError(
                f"x and y have {x.shape[0]} and {y.shape[0]} records; without x_id and y_id the records are paired "
                "by position, so both must have as many. Give the id columns that say which record is which."
            )
        return np.arange(y.shape[0], dtype=np.int64)
    if (x_id is None) != (y_id is None):
        raise InvalidParameterError("x_id and y_id go together: give both id columns or neither.")
    cx, cy = truth_positions(id_values(x, x_id), id_values(y, y_id))
    if np.unique(cx[cx >= 0]).size != int(np.sum(cx >= 0)):
        raise InvalidParameterError(f"x_id: the ids in {x_id!r} must be unique in x (each original record once).")
    pos = np.full(int(max(cx.max(initial=-1), cy.max(initial=-1))) + 1, -1, dtype=np.int64)
    pos[cx[cx >= 0]] = np.flatnonzero(cx >= 0)
    return np.where(cy >= 0, pos[np.maximum(cy, 0)], -1)
