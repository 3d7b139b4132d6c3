"""The group statistics of sdcMicro's microaggregation methods, measure by measure (issue 28, family 3).

:func:`aggregate` replaces each record's value by its group's statistic, column by column, as sdcMicro
5.8.0 does once the groups are formed (observed by running it):

* ``"mean"``: R's ``colMeans`` per group (a long-double sum divided by the count; no second pass);
* ``"median"``: R's ``median``;
* ``"trim"``: R's ``mean(x, trim = trim)`` -- ``floor(n * trim)`` values cut from each end of the
  group, the rest averaged with R's two-pass long-double mean; ``trim >= 0.5`` is the median and
  ``trim <= 0`` the plain (two-pass) mean.

A group holding a missing value gets a missing value. Loops run over the size of the largest
group, never over records.
"""

from __future__ import annotations

import numpy as np

from .microagg import col_means, group_stat

__all__ = ["aggregate", "trimmed_means"]


def _ld_mean_two_pass(v: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """R's ``mean``: a long-double sum value after value divided by n, then the mean deviation added."""
    s = np.zeros(start.size, dtype=np.longdouble)
    for t in range(int(sizes.max()) if sizes.size else 0):
        hit = sizes > t
        s[hit] += v[start[hit] + t].astype(np.longdouble)
    s /= sizes
    d = np.zeros(start.size, dtype=np.longdouble)
    for t in range(int(sizes.max()) if sizes.size else 0):
        hit = sizes > t
        d[hit] += v[start[hit] + t].astype(np.longdouble) - s[hit]
    fin = np.isfinite(s)
    s[fin] += d[fin] / sizes[fin]
    return s.astype(np.float64)


def trimmed_means(y: np.ndarray, groups: np.ndarray, trim: float) -> np.ndarray:
    """R's ``mean(x, trim = trim)`` per group of ``y``, per record (NA where a group has a missing value)."""
    y = np.asarray(y, dtype=np.float64)
    if trim >= 0.5:
        return group_stat(y, groups, "median")
    trim = max(float(trim), 0.0)
    order = np.lexsort((y, groups))  # by group, sorted within (NaN last)
    gs = groups[order]
    v = y[order]
    start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
    sizes = np.diff(np.r_[start, gs.size])
    cut = np.floor(sizes * trim).astype(np.int64) if trim > 0 else np.zeros_like(sizes)
    stat = _ld_mean_two_pass(v, start + cut, sizes - 2 * cut)
    has_na = np.add.reduceat(np.isnan(v), start) > 0
    stat = np.where(has_na, np.nan, stat)
    per_group = np.empty(int(groups.max()) + 1)
    per_group[gs[start]] = stat
    return per_group[groups]


def aggregate(x: np.ndarray, groups: np.ndarray, measure: str, trim: float = 0.0) -> np.ndarray:
    """Each column of ``x`` (n, p) replaced by its group's ``measure`` (``groups``: 0-based ids per record)."""
    out = np.empty_like(x, dtype=np.float64)
    for j in range(x.shape[1]):  # a loop over variables
        if measure == "mean":
            out[:, j] = col_means(x[:, j], groups)
        elif measure == "median":
            out[:, j] = group_stat(x[:, j], groups, "median")
        elif measure == "trim":
            out[:, j] = trimmed_means(x[:, j], groups, trim)
        else:  # pragma: no cover - validated by the caller
            raise ValueError(measure)
    return out
