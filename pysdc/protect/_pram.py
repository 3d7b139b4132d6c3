"""Post-randomisation, as sdcMicro 5.8.0's ``pram`` on a data.frame, on R's random stream.

``random_state=s`` is R's ``set.seed(s)`` before the call: the transition matrices and the new
categories then equal sdcMicro's (R's ``runif`` and ``sample`` with probabilities,
:mod:`pysdc.core.rdist`). The arithmetic is sdcMicro's (:mod:`pysdc.core.pram`), observed by running
it and pinned by ``r_reference/outputs/pram.json``. The input is never modified.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pandas import Categorical as pd_Categorical
from pandas import CategoricalDtype as pd_CategoricalDtype
from pandas import DataFrame as pd_DataFrame

from .._errors import InvalidParameterError
from .._validation import Any_, Columns, Frame, validate_params
from ..core.collate import icu_sort_key
from ..core.pram import invariant_matrix, pram_draw
from ._noise import RStream, r_stream

__all__ = ["pram", "PramResult", "transitions_table"]


@dataclass(frozen=True)
class PramResult:
    """What sdcMicro's ``pram`` returns on a data.frame (class ``pram``) and its attributes.

    Attributes
    ----------
    data : DataFrame
        The data with one column ``<variable>_pram`` (a categorical with the variable's
        categories) appended per variable, as sdcMicro returns it.
    params : dict
        variable -> ``{"Rs": DataFrame, "pd": ..., "alpha": ...}``: the transition matrix sdcMicro keeps
        (with strata: the last stratum's, as sdcMicro), ``pd`` (a number or the given matrix) and
        ``alpha`` (NaN with a given matrix).
    summary : DataFrame
        ``variable``, ``nrChanges``, ``percChanges`` (rounded to 2 decimals), as sdcMicro's attribute.
    transitions : dict
        variable -> DataFrame ``transition`` ("1 --> 2": the 1-based codes, "NA" for missing values)
        and ``Frequency``, ordered by the codes (sdcMicro's attribute orders the strings by R's collation).
    """

    data: pd.DataFrame = field(repr=False)
    params: dict = field(repr=False)
    summary: pd.DataFrame = field(repr=False)
    transitions: dict = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        s = ", ".join(f"{v}: {int(c)}" for v, c in zip(self.summary["variable"], self.summary["nrChanges"]))
        return f"PramResult(n={len(self.data)}, changed={{{s}}})"


def transitions_table(codes: np.ndarray, new: np.ndarray) -> pd.DataFrame:
    """sdcMicro's ``transitions`` attribute of one variable: "from --> to" (1-based codes, "NA") and
    ``Frequency``, ordered by the codes (missing values last)."""
    big = max(int(codes.max(initial=0)), int(new.max(initial=0))) + 1
    o = np.where(codes < 0, big, codes)
    n = np.where(new < 0, big, new)
    counts = np.bincount(o * (big + 1) + n, minlength=(big + 1) ** 2)
    hit = np.flatnonzero(counts)
    pairs = np.stack([hit // (big + 1), hit % (big + 1)], axis=1)
    cnt = counts[hit]

    def code(c):
        return "NA" if c == big else str(int(c) + 1)

    return pd.DataFrame({"transition": [f"{code(a)} --> {code(b)}" for a, b in pairs.tolist()],
                         "Frequency": cnt.astype(np.int64)})


def _label_part(s: pd.Series, all_numeric: bool) -> np.ndarray:
    """The text of one strata column in R's ``apply(.SD, 1, paste0)`` (via ``as.matrix``)."""
    na = s.isna().to_numpy()
    if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "iuf" or s.dtype.kind == "b":
        text = s.astype(object).where(~s.isna(), "NA").astype(str).to_numpy(dtype=object)
        return text
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.all(np.isnan(v) | (v == np.round(v))):
        text = np.array(["NA" if np.isnan(t) else str(int(t)) for t in v], dtype=object)
    else:
        text = np.array(["NA" if np.isnan(t) else repr(float(t)) for t in v], dtype=object)
    if not all_numeric:  # as.matrix formats a numeric column to a common width
        width = max((len(t) for t in text[~na]), default=2)
        text = np.array([t.rjust(width) for t in text], dtype=object)
    return text


def _strata(data: pd.DataFrame, strata_variables) -> tuple[np.ndarray, int]:
    if not strata_variables:
        return np.zeros(len(data), dtype=np.int64), 1
    cols = [data[v] for v in strata_variables]
    all_numeric = all(not isinstance(c.dtype, pd.CategoricalDtype) and c.dtype.kind in "iuf" for c in cols)
    parts = [_label_part(c, all_numeric) for c in cols]
    label = parts[0]
    for p in parts[1:]:
        label = label + "_" + p
    uniq = sorted(set(label.tolist()), key=icu_sort_key)  # R's sort() of the labels (ICU's root collation)
    pos = {u: i for i, u in enumerate(uniq)}
    return np.array([pos[t] for t in label.tolist()], dtype=np.int64), len(uniq)


def _per_variable(name, value, k, what):
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        if len(value) != k:
            raise InvalidParameterError(f"pram: the length of {name} ({len(value)}) does not match the number of "
                                        f"variables ({k}) (as sdcMicro).")
        return list(value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return _per_variable(name, value.tolist(), k, what)
    return [value] * k


def _check_matrix(m, levels, v) -> np.ndarray:
    if isinstance(m, pd.DataFrame):
        if [str(c) for c in m.index] != levels or [str(c) for c in m.columns] != levels:
            raise InvalidParameterError(
                f"pram: the row and column names of the transition matrix of {v!r} must be its categories "
                f"{levels} in that order (as sdcMicro).")
        arr = m.to_numpy(dtype=np.float64)
    else:
        arr = np.asarray(m, dtype=np.float64)
    if arr.ndim != 2 or arr.shape != (len(levels), len(levels)):
        raise InvalidParameterError(
            f"pram: the transition matrix of {v!r} must be {len(levels)} x {len(levels)} (its categories); "
            f"got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InvalidParameterError(f"pram: the transition matrix of {v!r} must hold probabilities (finite, >= 0).")
    if np.any(np.abs(arr.sum(axis=1) - 1) > np.finfo(float).eps):
        raise InvalidParameterError(f"pram: the rows of the transition matrix of {v!r} must sum to 1 (as sdcMicro).")
    return arr


def _check_number(name, value, v, low, high):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or not low <= float(value) <= high:
        raise InvalidParameterError(f"pram: {name} for {v!r} must be a number in [{low}, {high}]; got {value!r}.")
    return float(value)


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data"),
    "strata_variables": Columns(of="data", optional=True, disjoint_from="variables"),
    "pd": Any_(),
    "alpha": Any_(),
    "random_state": RStream(),
})
def pram(data, variables, strata_variables=None, pd=0.8, alpha=0.5, random_state=None) -> PramResult:  # noqa: A002
    """Post-randomise categorical variables, as sdcMicro's ``pram`` on a data.frame.

    Parameters
    ----------
    data : DataFrame
        The data; the variables must be categoricals (R's factors); not modified.
    variables : list of str
        The variables to post-randomise.
    strata_variables : list of str, optional
        Post-randomise within the strata these variables define (one transition matrix per stratum
        and variable; a missing value is the text "NA" of the stratum label, as in sdcMicro).
    pd : float, matrix or list
        The minimum diagonal of the generated transition matrix (the diagonal is ``runif(L, pd, 1)``),
        per variable (a list), or a transition matrix used as it is (a DataFrame with the categories
        as index and columns, or an L x L array; rows summing to 1).
    alpha : float or list
        The weight of the invariant matrix: ``Rs = alpha * R + (1 - alpha) * I`` (ignored with a
        given matrix).
    random_state : None, int or RRandom
        ``s`` is R's ``set.seed(s)`` before sdcMicro's call (the same draws).

    Returns
    -------
    PramResult
        The data with ``<variable>_pram`` columns, the transition matrices, the summary of changes.

    Notes
    -----
    sdcMicro computes the category proportions as the counts divided by the sum of the categories'
    1-based codes (not by the number of records); the invariant matrix does not depend on that scale,
    its last bits do, and pysdc repeats it. Records whose variable is missing stay missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc.protect import pram
    >>> df = pd.DataFrame({"v": pd.Categorical(list("abcabcaabb"))})
    >>> r = pram(df, ["v"], random_state=1)   # R: set.seed(1); pram(df, "v")
    >>> list(r.data.columns)
    ['v', 'v_pram']
    """
    k = len(variables)
    for v in variables:
        if not isinstance(data[v].dtype, pd_CategoricalDtype):
            raise InvalidParameterError(
                f"pram: variable {v!r} must be a categorical (R's factor); got dtype {data[v].dtype} "
                "(sdcMicro: 'all variables that should be pramed must be factors').")
        if data[v].cat.ordered:
            raise InvalidParameterError(
                f"pram: variable {v!r} is an ordered categorical (R's ordered factor), which sdcMicro 5.8.0 "
                "refuses ('all variables that should be pramed must be factors': it wants the class 'factor' "
                f"alone); make it unordered first (data[{v!r}].cat.as_unordered()).")
    single_matrix = k == 1 and (isinstance(pd, pd_DataFrame) or (isinstance(pd, np.ndarray) and np.ndim(pd) == 2))
    pds = [pd] if single_matrix else _per_variable("pd", pd, k, "pd")
    alphas = _per_variable("alpha", alpha, k, "alpha")
    strata, nstrata = _strata(data, strata_variables)
    rr = r_stream(random_state)
    out = data.copy()
    params, rows, transitions = {}, [], {}
    n = len(data)
    for v, pdv, al in zip(variables, pds, alphas):
        col = data[v]
        levels = [str(c) for c in col.cat.categories]
        L = len(levels)
        codes = col.cat.codes.to_numpy().astype(np.int64)
        given = isinstance(pdv, pd_DataFrame) or (isinstance(pdv, (np.ndarray, list)) and np.ndim(pdv) == 2)
        if given:
            mat = _check_matrix(pdv, levels, v)
            alv = float("nan")
        else:
            pdf = _check_number("pd", pdv, v, 0.0, 1.0)
            alv = _check_number("alpha", al, v, 0.0, 1.0)
        new = np.full(n, -1, dtype=np.int64)
        rs = None
        for s in range(nstrata):  # strata in sdcMicro's order (each draws from the stream)
            ii = np.flatnonzero((strata == s) & (codes >= 0))
            rs = mat if given else invariant_matrix(codes[ii], L, pdf, alv, rr)
            if ii.size:
                new[ii] = pram_draw(codes[ii], rs, rr)
        out[f"{v}_pram"] = pd_Categorical.from_codes(new, categories=col.cat.categories)
        params[v] = {"Rs": pd_DataFrame(rs, index=levels, columns=levels), "pd": pdv if given else pdf,
                     "alpha": alv}
        changed = int(np.sum(codes != new))
        rows.append((v, changed, round(changed / n * 100, 2) if n else float("nan")))
        transitions[v] = transitions_table(codes, new)
    summary = pd_DataFrame(rows, columns=["variable", "nrChanges", "percChanges"])
    return PramResult(data=out, params=params, summary=summary, transitions=transitions)

