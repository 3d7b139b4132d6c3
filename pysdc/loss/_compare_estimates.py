"""Benchmark indicators before and after masking, with their confidence intervals and overlap.

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
from .._results import EstimatesComparison
from .._validation import (
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
from ._checks_common import _rcumsum, _rsum
from ._ci_overlap import interval_overlap
from ._continuous import IntAtLeast
from ._gini import gini

__all__ = ["compare_estimates", "weighted_quantile", "ESTIMATORS", "COMPARE_ESTIMATES_PARAMS"]


# =============================================================================
# The constraint of the estimators (declared next to the signature; see pysdc._validation)


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
    >>> from pysdc.loss._compare_estimates import compare_estimates
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
