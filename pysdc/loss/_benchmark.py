"""Benchmark indicators before and after masking: confidence-interval overlap, the GINI coefficient.

The practice guide's "utility measures based on the end user's needs": compute the indicators the data
users publish on the original and on the masked file, each with its confidence interval, and judge the
masked estimate by whether it lies inside the original interval and by how much the two intervals
overlap (Karr et al., 2006). Native only; the GINI coefficient follows ``laeken::gini`` number for number.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import CIOverlapResult, EstimatesComparison, _Repr
from .._validation import (
    Boolean,
    Columns,
    Constraint,
    Frame,
    Interval,
    Options,
    RandomState,
    _show,
    check_columns,
    user_stacklevel,
)
from ._continuous import IntAtLeast

__all__ = [
    "ci_overlap",
    "interval_overlap",
    "gini",
    "GiniResult",
    "compare_estimates",
    "weighted_quantile",
    "ESTIMATORS",
    "CI_OVERLAP_PARAMS",
    "GINI_PARAMS",
    "COMPARE_ESTIMATES_PARAMS",
]


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


@dataclass(frozen=True)
class Estimators(Constraint):
    """Estimator texts (``"mean(income)"`` ...) or callables, or a non-empty list of them, checked against the
    frames ``x`` and ``xm``; returned as a list."""

    def check(self, name, value, values):
        if isinstance(value, str) or callable(value):
            specs = [value]
        elif isinstance(value, Sequence) and len(value) > 0:
            specs = list(value)
        else:
            raise InvalidParameterError(
                f"{name} must be a text like 'mean(income)', a callable, or a list of them; got {_show(value)}."
            )
        for spec in specs:
            if isinstance(spec, str):
                x, xm = values.get("x"), values.get("xm")
                if isinstance(x, pd.DataFrame) and isinstance(xm, pd.DataFrame):
                    _parse_spec(spec, x, xm)
            elif not callable(spec):
                raise InvalidParameterError(f"{name} must be a text or a callable; got {_show(spec)}.")
        return specs

    def invalid_values(self, name, values):
        return [None, 3, [], ["mean(v)", 3], "avg(v)", "mean(__no_such_column__)"]


# =============================================================================
# Interval overlap (Karr, Kohnen, Oganian, Reiter & Sanil 2006)


CI_OVERLAP_PARAMS = {"lower_x": Numbers(), "upper_x": Numbers(), "lower_xm": Numbers(), "upper_xm": Numbers()}


@measure(CI_OVERLAP_PARAMS, engine="it takes interval bounds, not a table")
def ci_overlap(lower_x, upper_x, lower_xm, upper_xm) -> CIOverlapResult:
    """Confidence-interval overlap J of Karr et al. (2006), vectorised.

    .. math::

        J = \\tfrac12 \\left( \\frac{U_o - L_o}{U_x - L_x} + \\frac{U_o - L_o}{U_{xm} - L_{xm}} \\right),
        \\quad L_o = \\max(L_x, L_{xm}),\\; U_o = \\min(U_x, U_{xm}).

    Parameters
    ----------
    lower_x, upper_x : float or array_like
        The interval computed on the original data.
    lower_xm, upper_xm : float or array_like
        The interval computed on the masked data (broadcast against the original's).

    Returns
    -------
    CIOverlapResult
        ``.overlap``: J for each pair of intervals (an array of the bounds' broadcast shape);
        ``float(result)`` where one pair was given, ``numpy.asarray(result)``, ``.to_frame()``.

    Notes
    -----
    Conventions, exactly:

    * Identical intervals give 1; one interval inside the other gives
      ``(1 + w_inner / w_outer) / 2``; intervals touching at one point give 0.
    * **Disjoint intervals give J < 0**: the signed formula is kept, ``U_o - L_o`` is then minus the
      gap between the intervals, so J measures how far apart they are in units of their widths (Karr et
      al.'s own reading; it is unbounded below). Clip with ``numpy.maximum(J, 0)`` for the [0, 1]
      version.
    * Zero-width intervals (a point, e.g. a standard error of 0): two identical points give 1; any other
      pair involving a zero-width interval gives NaN with a :class:`~pysdc.DegenerateResultWarning`
      (the ratio has no value there).
    * A NaN bound gives NaN (propagated without a warning: the interval itself was undefined).
    * A lower bound above its upper bound raises :class:`~pysdc.InvalidParameterError`.
    * An argument that is not a number or a numeric array (None, text) raises
      :class:`~pysdc.InvalidParameterError` naming it.

    References
    ----------
    Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. and Sanil, A. P. (2006). A framework for
    evaluating the utility of data altered to protect confidentiality. *The American Statistician*
    60(3), 224-232.

    Examples
    --------
    >>> from pysdc.loss._benchmark import ci_overlap
    >>> float(ci_overlap(0.0, 2.0, 1.0, 3.0))         # overlap 1, widths 2 and 2
    0.5
    >>> float(ci_overlap(0.0, 4.0, 1.0, 2.0))         # inside: (1/4 + 1/1) / 2
    0.625
    >>> float(ci_overlap(0.0, 1.0, 2.0, 3.0))         # disjoint, gap 1: (-1/1 - 1/1) / 2
    -1.0
    >>> ci_overlap([0.0, 0.0], [2.0, 4.0], 1.0, [3.0, 2.0]).overlap
    array([0.5  , 0.625])
    """
    j = np.asarray(interval_overlap(lower_x, upper_x, lower_xm, upper_xm), dtype=float)
    lx, ux, lm, um = (np.array(b, dtype=float) for b in np.broadcast_arrays(lower_x, upper_x, lower_xm, upper_xm))
    return CIOverlapResult(overlap=j, lower_x=lx, upper_x=ux, lower_xm=lm, upper_xm=um)


def interval_overlap(lower_x, upper_x, lower_xm, upper_xm):
    """The kernel of :func:`ci_overlap`: J of each pair of intervals (a float for scalar bounds).

    Same conventions as :func:`ci_overlap`; the bounds are checked (numbers, broadcastable,
    lower <= upper) but not validated as declared arguments.
    """
    try:
        arrays = [np.asarray(a, dtype=float) for a in (lower_x, upper_x, lower_xm, upper_xm)]
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "ci_overlap: the bounds must be numbers or numeric arrays; got "
            f"{type(lower_x).__name__}, {type(upper_x).__name__}, {type(lower_xm).__name__}, {type(upper_xm).__name__}."
        ) from None
    try:
        lx, ux, lm, um = np.broadcast_arrays(*arrays)
    except ValueError:
        raise InvalidParameterError(
            "ci_overlap: the bounds must have the same shape (or broadcast); got shapes "
            f"{[a.shape for a in arrays]}."
        ) from None
    with np.errstate(invalid="ignore"):
        bad = (lx > ux) | (lm > um)
    if np.any(bad):
        raise InvalidParameterError(
            "ci_overlap: every lower bound must be <= its upper bound; "
            f"{int(np.count_nonzero(bad))} interval pair(s) are reversed. Pass (lower_x, upper_x, lower_xm, upper_xm)."
        )
    wx = ux - lx
    wm = um - lm
    ov = np.minimum(ux, um) - np.maximum(lx, lm)
    with np.errstate(divide="ignore", invalid="ignore"):
        j = 0.5 * (ov / wx + ov / wm)
    point = (wx == 0) | (wm == 0)
    same_point = (wx == 0) & (wm == 0) & (lx == lm)
    j = np.where(same_point, 1.0, np.where(point, np.nan, j))
    if np.any(point & ~same_point):
        warnings.warn(
            "ci_overlap: an interval of width 0 (standard error 0?) overlaps a different interval; "
            "J is undefined there and returned as NaN.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    if j.ndim == 0:
        return float(j)
    return j


# =============================================================================
# Sums as R computes them (long double accumulation), so that the comparisons and
# cumulative shares that decide which value is picked agree with R's


def _rsum(v: np.ndarray) -> float:
    return float(np.sum(np.asarray(v, dtype=np.longdouble)))


def _rcumsum(v: np.ndarray) -> np.ndarray:
    return np.cumsum(np.asarray(v, dtype=np.longdouble)).astype(np.float64)


# =============================================================================
# GINI coefficient (laeken::gini)


@dataclass(frozen=True, eq=False, repr=False)
class GiniResult(_Repr):
    """Result of :func:`gini`.

    Attributes
    ----------
    value : float
        The GINI coefficient in percent (``laeken::gini(inc, weights)$value``).
    lower, upper : float
        The confidence interval (NaN with ``ci=None``).
    level : float
        Confidence level of the interval.
    ci : str or None
        How the interval was computed: ``"bootstrap"``, ``"linearization"`` or None.
    variance : float
        The variance estimate of ``value`` (bootstrap: sample variance of the replicates, as
        laeken's ``$var``; linearization: the linearised variance). NaN with ``ci=None``.
    n : int
        Number of records used (after removing missing incomes with ``na_rm=True``).
    n_boot : int
        Number of finite bootstrap replicates the interval was computed from (0 otherwise).
    """

    value: float
    lower: float
    upper: float
    level: float
    ci: str | None
    variance: float
    n: int
    n_boot: int = 0

    def __float__(self) -> float:
        return float(self.value)


def _gini_sorted(xs: np.ndarray, ws: np.ndarray) -> float:
    """Gini (percent) of values sorted increasingly with their weights; NaN where undefined."""
    if xs.size == 0:
        return float("nan")
    wx = ws * xs
    cw = _rcumsum(ws)
    num = 2.0 * _rsum(wx * cw) - _rsum(ws * ws * xs)
    den = _rsum(ws) * _rsum(wx)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(100.0 * (np.float64(num) / np.float64(den) - 1.0))


def _gini_replicates(xs: np.ndarray, ws: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Gini (percent) of bootstrap replicates given by record multiplicities (rows of ``counts``).

    ``xs``/``ws`` are sorted by value. A record drawn c times contributes exactly what c tied copies
    contribute: the formula is invariant to splitting a record into tied copies of its weight, so a
    replicate is the Gini of the sorted values with weights ``c * w`` and no re-sorting is needed.
    """
    counts = np.atleast_2d(counts).astype(np.float64)
    out = np.empty(counts.shape[0])
    # blocks of replicates with at most ~4e6 cells at a time (memory)
    step = max(1, int(4_000_000 // max(1, xs.size)))
    for s in range(0, counts.shape[0], step):
        cw = counts[s:s + step] * ws[None, :]
        wx = cw * xs[None, :]
        cum = np.cumsum(cw, axis=1)
        num = 2.0 * np.sum(wx * cum, axis=1) - np.sum(cw * cw * xs[None, :], axis=1)
        den = np.sum(cw, axis=1) * np.sum(wx, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s:s + step] = 100.0 * (num / den - 1.0)
    return out


def percentile_interval(t: np.ndarray, level: float) -> tuple[float, float]:
    """Bootstrap percentile interval as ``boot::boot.ci(type = "perc")`` computes it.

    The order statistic ``(R + 1) * a`` of the finite replicates for ``a = (1 -+ level) / 2``; a
    non-integer order is interpolated on the normal quantile scale between the neighbouring order
    statistics (Davison & Hinkley 1997, eq. 5.8); orders below 1 or above R take the extreme replicate.
    """
    t = np.sort(np.asarray(t, dtype=float)[np.isfinite(t)])
    r = t.size
    if r == 0:
        return float("nan"), float("nan")
    out = []
    for a in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        rk = (r + 1) * a
        k = int(math.trunc(rk))
        if k == rk and 1 <= k <= r:
            out.append(float(t[k - 1]))
        elif k <= 0:
            out.append(float(t[0]))
        elif k >= r:
            out.append(float(t[r - 1]))
        else:
            z = stats.norm.ppf(a)
            zk = stats.norm.ppf(k / (r + 1))
            zk1 = stats.norm.ppf((k + 1) / (r + 1))
            out.append(float(t[k - 1] + (z - zk) / (zk1 - zk) * (t[k] - t[k - 1])))
    return out[0], out[1]


def _gini_linearized_variance(xs: np.ndarray, ws: np.ndarray, g_pct: float) -> float:
    """Linearised (influence-function) variance of the Gini in percent², with-replacement design."""
    n = xs.size
    if n < 2:
        return float("nan")
    g = g_pct / 100.0
    big_n = ws.sum()
    wx = ws * xs
    tot = wx.sum()
    cw = np.cumsum(ws)
    tail = tot - np.cumsum(wx) + wx  # sum over records at or after each position
    # dG/dw_k for G = (2A - B) / (N T) - 1, A = sum_i w_i x_i C_i, B = sum_i w_i^2 x_i
    d_a = xs * cw + tail
    z = (2.0 * d_a - 2.0 * ws * xs) / (big_n * tot) - (g + 1.0) * (1.0 / big_n + xs / tot)
    u = ws * z
    return float(1e4 * n / (n - 1) * np.sum((u - u.mean()) ** 2))


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


GINI_PARAMS = {
    "x": Vector(),
    "w": Vector(same_length_as="x", optional=True),
    "ci": OptionsOrNone(("bootstrap", "linearization")),
    "level": Interval(0.0, 1.0, closed="neither"),
    "na_rm": Boolean(),
    "n_boot": IntAtLeast(low=2, note="(the number of bootstrap replicates)"),
    "random_state": RandomState(),
}


@measure(GINI_PARAMS, engine="it takes a vector of incomes, not a table")
def gini(
    x,
    *,
    w=None,
    ci: str | None = "bootstrap",
    level: float = 0.95,
    na_rm: bool = False,
    n_boot: int = 100,
    random_state: int | np.random.Generator | None = None,
) -> GiniResult:
    """Weighted GINI coefficient in percent, as ``laeken::gini(inc, weights)``, with a confidence interval.

    Parameters
    ----------
    x : array_like or pandas.Series
        Incomes (numeric).
    w : array_like, optional
        Sampling weights, same length as ``x``; equal weights when omitted.
    ci : {"bootstrap", "linearization", None}
        The interval: the naive bootstrap of ``laeken::variance(type = "bootstrap", bootType = "naive")``
        with a percentile interval (default), the linearised variance with a normal interval
        (deterministic), or none.
    level : float
        Confidence level, in (0, 1) (laeken's ``1 - alpha``).
    na_rm : bool
        Remove missing incomes first (laeken's ``na.rm``). Missing weights are not removed (laeken
        neither): the value is then NaN.
    n_boot : int
        Number of bootstrap replicates (laeken's ``R``, default 100 as there).
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap draws.

    Returns
    -------
    GiniResult
        ``.value`` (percent), ``.lower``, ``.upper``, ``.variance``, ...

    See Also
    --------
    compare_estimates : the GINI before and after masking with interval overlap.

    Notes
    -----
    **Value.** With the records sorted by income (stable sort: R's ``order``), weights ``w_i`` and
    cumulative weights ``C_i``, the Eurostat definition that laeken implements is

    .. math:: G = 100 \\left( \\frac{2 \\sum_i w_i x_i C_i - \\sum_i w_i^2 x_i}{\\sum_i w_i \\sum_i w_i x_i} - 1 \\right).

    It is invariant to the order of tied incomes and to splitting a record into tied copies, so ties
    need no tie-breaker (laeken's ``sort`` changes nothing in exact arithmetic). Sums accumulate in
    long double as R's ``sum``/``cumsum`` do. As laeken: a missing income gives NaN unless ``na_rm``;
    a missing weight gives NaN; no records, all incomes 0, or weights summing to 0 give NaN (laeken's
    ``NaN``); one record gives 0; negative incomes and negative weights are used as they are. pysdc
    adds a :class:`~pysdc.DegenerateResultWarning` wherever the value is NaN.

    **Interval.** laeken computes an interval only through ``variance()``/``bootVar()``: ``R``
    resamples of the records with replacement (``boot::boot``), each record keeping its weight
    (``bootType = "naive"``; laeken's default ``"calibrate"`` needs calibration variables), the Gini
    of each resample, their sample variance as ``$var`` and ``boot.ci(type = "perc")`` as ``$ci``.
    ``ci="bootstrap"`` is the same design with NumPy's generator: the same distribution of replicates,
    not the same draws (R's random stream is not reproduced), so the interval agrees with laeken's
    statistically, and exactly when given the same resamples (tested with resamples drawn by R).
    Quirk of laeken 0.5.2: ``bootVar`` truncates the incomes to integers (``as.integer``) before
    resampling, so its replicates are Ginis of ``trunc(x)`` (negligible for incomes in currency units,
    large for incomes in thousands, NA beyond 2^31); pysdc resamples the incomes as they are.
    ``ci="linearization"`` uses the influence function of the weighted Gini (Deville 1999; Osier 2009)
    under a single-stage with-replacement design, ``v = n/(n-1) Σ (w_k z_k - mean)²``, and
    ``value ± z_(1+level)/2 · sqrt(v)``; it is deterministic and close to the bootstrap variance for
    moderate n. Both ignore strata and clusters (as laeken's naive bootstrap without ``design``).

    References
    ----------
    Alfons, A. and Templ, M. (2013). Estimation of social exclusion indicators from complex surveys:
    the R package laeken. *Journal of Statistical Software* 54(15).
    Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*, ch. 5.
    Osier, G. (2009). Variance estimation for complex indicators of poverty and inequality using
    linearization techniques. *Survey Research Methods* 3(3), 167-195.

    Examples
    --------
    >>> from pysdc.loss._benchmark import gini
    >>> round(gini([1.0, 2.0, 3.0], ci=None).value, 10)
    22.2222222222
    >>> round(gini([3.0, 1.0, 2.0], w=[1.0, 2.0, 3.0], ci=None).value, 10)
    19.696969697
    """
    xa = x  # validated: a 1-d float array (GINI_PARAMS)
    wa = np.ones(xa.size) if w is None else w
    if na_rm:
        keep = ~np.isnan(xa)
        xa, wa = xa[keep], wa[keep]
    n = xa.size
    nan_result = GiniResult(float("nan"), float("nan"), float("nan"), level, ci, float("nan"), n, 0)
    if np.isnan(xa).any() or np.isnan(wa).any():
        what = "income(s)" if np.isnan(xa).any() else "weight(s)"
        hint = " Pass na_rm=True to drop them." if what == "income(s)" else " Drop those records first."
        warnings.warn(f"gini: missing {what}; the GINI coefficient is NaN (as laeken's NA).{hint}",
                      DegenerateResultWarning, stacklevel=user_stacklevel())
        return nan_result
    order = np.argsort(xa, kind="stable")
    xs, ws = xa[order], wa[order]
    value = _gini_sorted(xs, ws)
    if not np.isfinite(value):
        warnings.warn(
            f"gini: the GINI coefficient is undefined here (n = {n}, sum of incomes or of weights 0, "
            "or an infinite income); returned NaN as laeken does.",
            DegenerateResultWarning, stacklevel=user_stacklevel())
        return GiniResult(float("nan"), float("nan"), float("nan"), level, ci, float("nan"), n, 0)
    if ci is None:
        return GiniResult(value, float("nan"), float("nan"), level, None, float("nan"), n, 0)
    if ci == "linearization":
        v = _gini_linearized_variance(xs, ws, value)
        half = stats.norm.ppf((1.0 + level) / 2.0) * math.sqrt(v) if np.isfinite(v) else float("nan")
        return GiniResult(value, value - half, value + half, level, ci, v, n, 0)
    rng = np.random.default_rng(random_state)
    counts = np.empty((int(n_boot), n))
    for b in range(int(n_boot)):  # loop over replicates; each draw is vectorised
        counts[b] = np.bincount(rng.integers(0, n, size=n), minlength=n)
    t = _gini_replicates(xs, ws, counts)
    finite = t[np.isfinite(t)]
    if finite.size < t.size:
        warnings.warn(f"gini: {t.size - finite.size} bootstrap replicate(s) undefined and left out (as boot.ci does).",
                      DegenerateResultWarning, stacklevel=user_stacklevel())
    lo, hi = percentile_interval(finite, level)
    var = float(np.var(finite, ddof=1)) if finite.size > 1 else float("nan")
    return GiniResult(value, lo, hi, level, ci, var, n, int(finite.size))


# =============================================================================
# Weighted quantiles (laeken::weightedQuantile)


def weighted_quantile(x: np.ndarray, w: np.ndarray | None, probs) -> np.ndarray:
    """Weighted quantiles as ``laeken::weightedQuantile(x, w, probs)`` (complete data).

    The smallest value whose cumulative weight share (R's ``cumsum(w) / sum(w)``) is strictly above
    ``p``; ``p = 0`` and ``p = 1`` give the minimum and the maximum.
    """
    x = np.asarray(x, dtype=float)
    probs = np.atleast_1d(np.asarray(probs, dtype=float))
    if x.size == 0:
        return np.full(probs.shape, np.nan)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    n = xs.size
    if w is None:
        rw = np.arange(1, n + 1) / n
    else:
        ws = np.asarray(w, dtype=float)[order]
        rw = _rcumsum(ws) / _rsum(ws)
    out = np.empty(probs.shape)
    for i, p in enumerate(probs):  # loop over the requested probabilities
        if p == 0:
            out[i] = xs[0]
        elif p == 1:
            out[i] = xs[-1]
        else:
            k = int(np.searchsorted(rw, p, side="right"))
            out[i] = xs[min(k, n - 1)]
    return out


# =============================================================================
# Built-in estimators: (estimate, lower, upper) from one frame


def _z(level: float) -> float:
    return float(stats.norm.ppf((1.0 + level) / 2.0))


def _wr_var(u: np.ndarray) -> float:
    """With-replacement variance of a total of linearised values u: n/(n-1) Σ (u - ū)²."""
    n = u.size
    if n < 2:
        return float("nan")
    return float(n / (n - 1) * np.sum((u - u.mean()) ** 2))


def _est_mean(y, w, level, **_):
    big_n = w.sum()
    m = _rsum(w * y) / _rsum(w)
    se = math.sqrt(_wr_var(w * (y - m) / big_n)) if y.size > 1 else float("nan")
    return m, m - _z(level) * se, m + _z(level) * se


def _est_total(y, w, level, **_):
    t = _rsum(w * y)
    se = math.sqrt(_wr_var(w * y)) if y.size > 1 else float("nan")
    return t, t - _z(level) * se, t + _z(level) * se


def _est_ratio(y, d, w, level, **_):
    td = _rsum(w * d)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _rsum(w * y) / td
        se = math.sqrt(_wr_var(w * (y - r * d) / td)) if y.size > 1 else float("nan")
    return r, r - _z(level) * se, r + _z(level) * se


def _est_quantile(y, w, level, p=0.5, **_):
    q = float(weighted_quantile(y, w, [p])[0])
    if y.size < 2:
        return q, float("nan"), float("nan")
    # Woodruff: the interval of the distribution function at q, mapped back through the quantiles
    big_n = w.sum()
    ind = (y <= q).astype(float)
    f = _rsum(w * ind) / _rsum(w)
    se = math.sqrt(_wr_var(w * (ind - f) / big_n))
    lo_p = min(max(p - _z(level) * se, 0.0), 1.0)
    hi_p = min(max(p + _z(level) * se, 0.0), 1.0)
    lo, hi = weighted_quantile(y, w, [lo_p, hi_p])
    return q, float(lo), float(hi)


def _est_gini(y, w, level, gini_ci="bootstrap", n_boot=100, rng=None, **_):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        g = gini(y, w=w, ci=gini_ci, level=level, n_boot=n_boot, random_state=rng)
    return g.value, g.lower, g.upper


#: name -> (number of variables, method description)
ESTIMATORS: dict[str, tuple[int, str]] = {
    "mean": (1, "weighted (Hájek) mean; linearised with-replacement variance, normal interval"),
    "total": (1, "weighted (Horvitz-Thompson) total; with-replacement variance, normal interval"),
    "ratio": (2, "ratio of weighted totals; linearised with-replacement variance, normal interval"),
    "quantile": (1, "weighted quantile as laeken::weightedQuantile; Woodruff interval"),
    "median": (1, "weighted median (quantile 0.5); Woodruff interval"),
    "gini": (1, "GINI coefficient in percent as laeken::gini; bootstrap percentile or linearised interval"),
}

_SPEC = re.compile(r"^\s*([A-Za-z_]+)\s*\((.*)\)\s*$")


def _parse_spec(spec: str, x: pd.DataFrame, xm: pd.DataFrame) -> tuple:
    m = _SPEC.match(spec)
    if not m or m.group(1) not in ESTIMATORS:
        raise InvalidParameterError(
            f"estimator must be one of {', '.join(k + '(...)' for k in ESTIMATORS)} "
            f"(e.g. 'mean(income)', 'ratio(income, expenditure)', 'quantile(income, 0.9)') or a callable; got {spec!r}."
        )
    name = m.group(1)
    args = [a.strip().strip("`").strip("'\"") for a in m.group(2).split(",") if a.strip()]
    nvar = ESTIMATORS[name][0]
    p = None
    if name == "quantile":
        if len(args) != 2:
            raise InvalidParameterError(f"estimator {spec!r}: quantile needs a column and a probability, e.g. 'quantile(income, 0.9)'.")
        try:
            p = float(args[1])
        except ValueError:
            raise InvalidParameterError(f"estimator {spec!r}: the probability must be a number in [0, 1]; got {args[1]!r}.") from None
        if not 0.0 <= p <= 1.0:
            raise InvalidParameterError(f"estimator {spec!r}: the probability must lie in [0, 1]; got {p}.")
        args = args[:1]
    elif name == "median":
        p = 0.5
    if len(args) != nvar:
        raise InvalidParameterError(f"estimator {spec!r}: {name} takes {nvar} column(s); got {len(args)}.")
    for frame, fname in ((x, "x"), (xm, "xm")):
        check_columns(f"estimator {spec!r}", args, frame, data_name=fname)
        for a in args:
            s = frame[a]
            if not (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)):
                raise InvalidParameterError(f"estimator {spec!r}: column {a!r} of {fname} must be numeric; got {s.dtype}.")
    return name, args, p


def _weights(frame: pd.DataFrame, w, fname: str, x_w: np.ndarray | None) -> np.ndarray:
    if w is None:
        return np.ones(len(frame))
    if w in frame.columns:
        s = frame[w]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            raise InvalidParameterError(f"w: column {w!r} of {fname} must be numeric; got {s.dtype}.")
        return s.astype(float).to_numpy()
    if x_w is not None and x_w.size == len(frame):
        return x_w
    raise InvalidParameterError(
        f"w names column {w!r}, which {fname} does not have (and {fname} has a different number of records "
        "than x, so x's weights cannot be used)."
    )


def _one(name, args, p, frame, wv, level, opts):
    cols = [frame[a].astype(float).to_numpy() for a in args]
    ok = ~np.isnan(wv)
    for c in cols:
        ok &= ~np.isnan(c)
    wv = wv[ok]
    cols = [c[ok] for c in cols]
    n = int(ok.sum())
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    if name == "ratio":
        est = _est_ratio(cols[0], cols[1], wv, level)
    elif name in ("quantile", "median"):
        est = _est_quantile(cols[0], wv, level, p=p)
    else:
        est = {"mean": _est_mean, "total": _est_total, "gini": _est_gini}[name](cols[0], wv, level, **opts)
    return (*est, n)


COMPARE_ESTIMATES_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "estimator": Estimators(),
    "w": Columns("x", single=True, optional=True),
    "by": Columns("x", optional=True),
    "level": Interval(0.0, 1.0, closed="neither"),
    "gini_ci": Options(("bootstrap", "linearization")),
    "n_boot": IntAtLeast(low=2, note="(the number of bootstrap replicates of gini)"),
    "random_state": RandomState(),
}


@measure(COMPARE_ESTIMATES_PARAMS, by_name=True, paired=False,
         engine="the estimators and their bootstrap run on the records in memory")
def compare_estimates(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    estimator: str | Callable | Sequence,
    *,
    w: str | None = None,
    by: str | Sequence[str] | None = None,
    level: float = 0.95,
    gini_ci: str = "bootstrap",
    n_boot: int = 100,
    random_state: int | np.random.Generator | None = None,
) -> EstimatesComparison:
    """Benchmark indicators on the original and the masked data, with intervals and their overlap.

    Parameters
    ----------
    x, xm : pandas.DataFrame or SdcProblem
        Original and masked data (the same variables; the records may differ in number). An
        :class:`~pysdc.SdcProblem` stands for its data and gives its weight as ``w``; a
        :class:`pysdc.r.SdcObj` in ``x`` (``xm`` left out) gives both, the original and the
        manipulated data.
    estimator : str, callable or list of them
        Built-ins as text: ``"mean(col)"``, ``"total(col)"``, ``"ratio(num, den)"``,
        ``"quantile(col, p)"``, ``"median(col)"``, ``"gini(col)"``. A callable ``f(frame, weights)``
        (``weights`` a float array or None) returning ``(estimate, lower, upper)``.
    w : str, optional
        Weight column. Taken from each frame; if ``xm`` lacks it and has as many records as ``x``,
        ``x``'s weights are used.
    by : str or list of str, optional
        Grouping column(s): one row per estimator and group (groups as in ``x``, then any only in ``xm``).
    level : float
        Confidence level of every interval.
    gini_ci : {"bootstrap", "linearization"}
        Interval of the built-in ``gini`` (see :func:`gini`).
    n_boot : int
        Bootstrap replicates for ``gini``.
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap.

    Returns
    -------
    EstimatesComparison
        ``.table`` (also ``.to_frame()``): one row per estimator (and group): ``estimator``, the
        ``by`` columns, ``estimate_x``, ``lower_x``, ``upper_x``, ``estimate_xm``, ``lower_xm``,
        ``upper_xm``, ``difference`` (masked - original), ``inside`` (masked estimate inside the
        original interval), ``overlap`` (:func:`ci_overlap`), ``n_x``, ``n_xm`` (records used) and
        ``method``.

    See Also
    --------
    ci_overlap, gini, compare_regression

    Notes
    -----
    Built-ins drop records with a missing value in their variables or weight (the practice guide's
    ``na.rm = TRUE``). Variances are for a single-stage design sampled with replacement with the given
    weights (the textbook approximation ``survey::svydesign(ids = ~1, weights = ~w)`` uses; strata and
    clusters are ignored), with normal-quantile intervals:

    * ``mean``: Σwy/Σw, linearised variable ``w (y - ȳ) / Σw``;
    * ``total``: Σwy, variable ``w y``;
    * ``ratio``: Σwy/Σwd, linearised variable ``w (y - R d) / Σwd``;
    * ``quantile``/``median``: ``laeken::weightedQuantile`` (the smallest value whose cumulative weight
      share exceeds p), Woodruff interval (the interval of the distribution function at the quantile
      mapped back through the quantile function);
    * ``gini``: :func:`gini` (bootstrap percentile interval, or linearised with ``gini_ci``).

    Without weights every weight is 1 (the mean's interval is then ``ȳ ± z s / √n``).

    Examples
    --------
    >>> import pysdc
    >>> from pysdc.loss._benchmark import compare_estimates
    >>> x, xm = pysdc.load_demo_pair()
    >>> t = compare_estimates(x, xm, ["mean(income)", "median(income)"], w="weight")
    >>> list(t.table["estimator"])
    ['mean(income)', 'median(income)']
    """
    # validated (COMPARE_ESTIMATES_PARAMS): frames, estimator a list, w a column of x, by a list of columns of x
    parsed = []
    for s in estimator:
        if isinstance(s, str):
            parsed.append((s, *_parse_spec(s, x, xm)))
        else:
            parsed.append((getattr(s, "__name__", "estimator"), None, None, s))
    by_cols = [] if by is None else list(by)
    if by_cols:
        check_columns("by", by_cols, xm, data_name="xm")
    wx = _weights(x, w, "x", None)
    wxm = _weights(xm, w, "xm", wx)
    rng = np.random.default_rng(random_state)
    opts = {"gini_ci": gini_ci, "n_boot": n_boot, "rng": rng}

    if by_cols:
        kx = x[by_cols].astype(object)
        kxm = xm[by_cols].astype(object)
        both = pd.concat([kx, kxm], ignore_index=True)
        # one group-by over both frames: groups numbered in order of first appearance, rows with a missing
        # grouping value in none; each group's positions in x and in xm (ascending) from one stable sort
        grouped = both.groupby(by_cols, sort=False, dropna=True)
        n_groups = grouped.ngroups
        codes = grouped.ngroup().to_numpy(dtype=float)
        codes = np.where(np.isnan(codes), n_groups, codes).astype(np.int64)  # missing: after every group
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
        n_x = len(kx)
        values = both.to_numpy()
        sel = []
        for i in range(n_groups):  # loop over groups, not records
            pos = order[bounds[i]:bounds[i + 1]]
            sel.append((tuple(values[pos[0]]), pos[pos < n_x], pos[pos >= n_x] - n_x))
    else:
        sel = [(None, slice(None), slice(None))]

    rows = []
    for label, name, args, p in parsed:
        for g, ix, ixm in sel:
            fx, fxm = x.iloc[ix] if not isinstance(ix, slice) else x, xm.iloc[ixm] if not isinstance(ixm, slice) else xm
            wgx, wgxm = wx[ix], wxm[ixm]
            if name is None:
                fn = p  # the callable
                res = []
                for frame, wv in ((fx, wgx), (fxm, wgxm)):
                    out = fn(frame, None if w is None else wv)
                    try:
                        e, lo, hi = (float(v) for v in out)
                    except (TypeError, ValueError):
                        raise InvalidParameterError(
                            f"estimator {label!r} must return (estimate, lower, upper) as three numbers; got {out!r}."
                        ) from None
                    res.append((e, lo, hi, len(frame)))
                method = "user estimator"
            else:
                res = [_one(name, args, p, fx, wgx, level, opts), _one(name, args, p, fxm, wgxm, level, opts)]
                method = ESTIMATORS[name][1]
                if name == "gini":
                    chosen = "bootstrap percentile" if gini_ci == "bootstrap" else "linearised"
                    method = method.replace("bootstrap percentile or linearised", chosen)
            (ex, lx, ux, nx), (em, lm, um, nm) = res
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateResultWarning)
                ov = interval_overlap(lx, ux, lm, um) if lx <= ux and lm <= um else float("nan")
            row = {"estimator": label}
            if by_cols:
                row.update(dict(zip(by_cols, g)))
            row.update({
                "estimate_x": ex, "lower_x": lx, "upper_x": ux,
                "estimate_xm": em, "lower_xm": lm, "upper_xm": um,
                "difference": em - ex,
                "inside": bool(lx <= em <= ux),
                "overlap": ov, "n_x": nx, "n_xm": nm, "method": method,
            })
            rows.append(row)
    table = pd.DataFrame(rows)
    _warn_undefined_estimates(table, by_cols)
    return EstimatesComparison(table=table, level=level, w=w, by=tuple(by_cols))


def _warn_undefined_estimates(table: pd.DataFrame, by_cols: list) -> None:
    """One warning naming the estimates that are NaN (e.g. a variable missing in every record): their rows'
    intervals, difference and overlap are NaN, and ``inside`` is False only because nothing was compared."""
    if table.empty:
        return
    parts = []
    for side in ("x", "xm"):
        est = table[f"estimate_{side}"].to_numpy(dtype=float)
        bad = np.flatnonzero(np.isnan(est))
        if not bad.size:
            continue
        shown = []
        for i in bad[:5]:
            r = table.iloc[i]
            grp = (" for " + ", ".join(f"{c}={r[c]!r}" for c in by_cols)) if by_cols else ""
            why = "no record with a value" if int(r[f"n_{side}"]) == 0 else f"{int(r[f'n_{side}'])} record(s) used"
            shown.append(f"{r['estimator']}{grp} ({why})")
        parts.append(f"on {side}: {'; '.join(shown)}{' ...' if bad.size > 5 else ''}")
    if parts:
        warnings.warn(
            "compare_estimates: estimate(s) undefined (NaN) " + " | ".join(parts) + ". Records with a missing "
            "value in the estimator's variables or the weight are dropped; where none is left (or the estimate "
            "divides by 0) the estimate, its interval, the difference and the overlap are NaN and 'inside' is "
            "False without a comparison. Check the variable (is it missing everywhere?).",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
