"""The frequency rule for continuous variables: how many released values lie within ±p of a true value.

The SDC handbook (chapter "Measurement of disclosure risk and information loss", section "Measures of
disclosure risk for continuous variables") states the rule: for a variable X and a minimal level of
re-identification error p in (0, 1), count the records whose value of X lies in the interval
(x(1 - p), x(1 + p)) around the actual value x; "if this number is too low (e.g. smaller than 3) then
the value x is regarded as unsafe" -- the continuous counterpart of the frequency rule fk < k of the key
variables (section "Possibility of complex measurement of disclosure risk").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import Columns, Frame, Interval
from ._linkage_vars import check_vars_in

__all__ = ["interval_frequency", "IntervalFrequencyResult", "INTERVAL_FREQUENCY_PARAMS"]

INTERVAL_FREQUENCY_PARAMS = {
    "x": Frame(),
    "y": Frame(),
    "vars": Columns(of="x"),
    "p": Interval(low=0.0, high=1.0, closed="neither"),
    "threshold": Interval(low=1.0),
}


@dataclass(frozen=True, eq=False, repr=False)
class IntervalFrequencyResult(_Repr):
    """Result of :func:`pysdc.interval_frequency`.

    Attributes
    ----------
    rate : float
        The share of the records of ``x`` with at least one unsafe value (``n_unsafe / n``).
    n_unsafe : int
        Records of ``x`` with at least one unsafe value.
    n : int
        Records of ``x``.
    per_variable : pandas.Series
        Per variable: the share of its (non-missing) values in ``x`` that are unsafe.
    counts : pandas.DataFrame
        Per record of ``x`` (its index) and variable: how many values of ``y`` lie in the interval around
        the record's value (NaN where the value is missing).
    unsafe : pandas.DataFrame of bool
        ``counts < threshold`` (False where the value is missing).
    p : float
        The relative half-width of the interval.
    threshold : float
        A value with fewer than this many values of ``y`` in its interval is unsafe.
    """

    rate: float
    n_unsafe: int
    n: int
    per_variable: pd.Series
    counts: pd.DataFrame
    unsafe: pd.DataFrame
    p: float
    threshold: float

    def __float__(self) -> float:
        return float(self.rate)


def _column(frame: pd.DataFrame, v, name: str) -> np.ndarray:
    if r_class(frame[v]) not in ("numeric", "integer"):
        raise InvalidParameterError(
            f"interval_frequency: {v!r} in {name} is {r_class(frame[v])}; the rule is for continuous (numeric) "
            "variables (for categorical key variables use the frequency rule fk < k: pysdc.k_anon_violations).")
    a = frame[v].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(a).any():
        raise InvalidParameterError(f"interval_frequency: {v!r} in {name} has infinite values; the interval around "
                                    "an infinite value is undefined.")
    return a


def _counts(xv: np.ndarray, yv: np.ndarray, p: float) -> np.ndarray:
    """For each value of ``xv``: how many values of ``yv`` lie in the open interval (x - p|x|, x + p|x|); for
    x = 0 (where that interval is empty) how many values of ``yv`` equal 0. NaN where x is missing."""
    ys = np.sort(yv[~np.isnan(yv)])
    h = p * np.abs(xv)
    lo = np.searchsorted(ys, xv - h, side="right")  # first value above the lower end
    hi = np.searchsorted(ys, xv + h, side="left")  # first value at or above the upper end
    out = (hi - lo).astype(np.float64)
    zero = xv == 0
    if zero.any():
        out[zero] = float(np.searchsorted(ys, 0.0, side="right") - np.searchsorted(ys, 0.0, side="left"))
    out[np.isnan(xv)] = np.nan
    return out


@measure(INTERVAL_FREQUENCY_PARAMS, selects="numeric", paired=False, by_name=True, second="y",
         engine="it sorts each variable of y in memory and searches it for every record of x (pandas)")
def interval_frequency(x, y, vars, *, p=0.2, threshold=3):
    """The frequency rule for continuous variables: values with fewer than ``threshold`` neighbours within ±p.

    An intruder who knows a respondent's true value ``x`` of a continuous variable looks in the released
    file for records whose value lies in the interval ``(x(1 - p), x(1 + p))``; where there are fewer than
    ``threshold`` such records the value is unsafe (the SDC handbook's rule, with its example values
    p = 0.2 and "smaller than 3").

    Parameters
    ----------
    x : pandas.DataFrame
        The true values (the original data; what the intruder knows).
    y : pandas.DataFrame
        The file searched (the released data; pass ``x`` itself for the handbook's rule on the original
        data). Any number of records; only its values count, not which record they belong to.
    vars : list of str
        Continuous variables, columns of both files.
    p : float, default 0.2
        The minimal level of re-identification error, in (0, 1): the interval's relative half-width.
    threshold : float, default 3
        A value with fewer than this many values of ``y`` in its interval is unsafe (at least 1).

    Returns
    -------
    IntervalFrequencyResult
        ``rate`` (share of records with an unsafe value), ``per_variable``, ``counts``, ``unsafe``.

    Notes
    -----
    For a value x the interval is the open interval ``(x - p|x|, x + p|x|)`` (the handbook's
    ``(x(1 - p), x(1 + p))``, written so that it is an interval for negative x too). For x = 0 that interval
    is empty; pysdc counts the values of ``y`` equal to 0 instead (a zero is hidden among the other zeros).
    A missing value of ``x`` is not assessed (count NaN, never unsafe); missing values of ``y`` are never
    counted. A record is unsafe when any of its values is: each variable alone would single it out (the
    handbook's "complex measurement" paragraph notes that values safe one by one can be unsafe together, so
    this is a lower bound of the risk of a record). Each variable is sorted once and searched for every
    record (:func:`numpy.searchsorted`): O(n log n) time, O(n) memory per variable.

    References
    ----------
    .. [1] Hundepool, A. et al. Handbook on Statistical Disclosure Control, "Measurement of disclosure risk
       and information loss": measures of disclosure risk for continuous variables (the interval
       (x(1-p), x(1+p)); unsafe below e.g. 3 records).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> x = pd.DataFrame({"income": [100.0, 105.0, 118.0, 150.0, 0.0, 0.0, -40.0]})
    >>> r = pysdc.interval_frequency(x, x, ["income"], p=0.1, threshold=2)
    >>> r.counts["income"].tolist()
    [2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 1.0]
    >>> r.n_unsafe, round(r.rate, 4)
    (3, 0.4286)
    """
    cols = list(vars)
    check_vars_in("y", cols, y)
    counts = {v: _counts(_column(x, v, "x"), _column(y, v, "y"), float(p)) for v in cols}  # loop over variables
    c = pd.DataFrame(counts, index=x.index, columns=cols)
    cv = c.to_numpy(dtype=np.float64)
    unsafe_arr = ~np.isnan(cv) & (cv < float(threshold))
    unsafe = pd.DataFrame(unsafe_arr, index=x.index, columns=cols)
    assessed = ~np.isnan(cv)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = unsafe_arr.sum(axis=0) / assessed.sum(axis=0)
    n = int(x.shape[0])
    n_unsafe = int(unsafe_arr.any(axis=1).sum())
    return IntervalFrequencyResult(
        rate=n_unsafe / n if n else float("nan"), n_unsafe=n_unsafe, n=n,
        per_variable=pd.Series(share, index=pd.Index(cols), name="unsafe_share", dtype=np.float64),
        counts=c, unsafe=unsafe, p=float(p), threshold=float(threshold))
