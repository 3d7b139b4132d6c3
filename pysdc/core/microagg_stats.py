"""The group statistics of sdcMicro's microaggregation methods, measure by measure (issue 28, family 3).

:func:`aggregate` replaces each record's value by its group's statistic, column by column, as sdcMicro
5.8.0 does once the groups are formed (observed by running it; pinned by
``r_reference/outputs/microaggregation_measures.json``). The rows are taken in the order given: within a
group that is the order in which sdcMicro holds the records (its sorted data), which decides the order of
the long-double sums and which weight goes with which row.

* ``"mean"``: R's ``colMeans`` (a long-double sum divided by the count; no second pass);
* ``"median"``: R's ``median`` (the mean of the two middle values: R's ``mean``, two passes);
* ``"trim"``: R's ``mean(x, trim = trim)`` -- ``floor(n * trim)`` values cut from each end of the group,
  the rest averaged with R's two-pass long-double mean in the order R's partial sort leaves them (Hoare's
  selection of the two cut positions; the order decides the sum's last bit); ``trim >= 0.5`` is the median
  and ``trim <= 0`` the plain (two-pass) mean;
* ``"onestep"``: sdcMicro's one-step clipping: per group and variable the median ``m`` and R's ``mad``
  ``s`` (``1.4826 * median(|x - m|)``); values above ``m + (3 / 1.486) * s`` or below
  ``m - (3 / 1.486) * s`` are set to that limit, then ``colMeans``;
* with ``weights``: ``"mean"`` is R's ``weighted.mean`` (``sum((x * w)[w != 0]) / sum(w)``, both sums in
  long double) and ``"median"`` sdcMicro's weighted median (the smallest value, in stable order, whose
  cumulative weight share reaches 1/2; the mean of it and the next one where the share is exactly 1/2).
  ``"trim"`` and ``"onestep"`` ignore weights, as sdcMicro does.

A group holding a missing value gets a missing value (``onestep``: see :func:`aggregate`). Every sum runs
value after value in long double, as R's; the loops run over powers of two of the group sizes (at most
``log2(n)`` of them), never over records or positions, so one huge group costs one vectorised pass.
"""

from __future__ import annotations

import numpy as np

from .._errors import InvalidParameterError

__all__ = ["aggregate", "trimmed_means", "seg_cumsum", "ONESTEP_CONSTANT", "MEASURES"]

#: the measures of sdcMicro's microaggregation
MEASURES = ("mean", "median", "trim", "onestep")
#: sdcMicro's onestep limits: median -/+ this times mad
ONESTEP_CONSTANT = 3 / 1.486

_LD = np.longdouble


# =============================================================================
# layout: rows by group (stable), segmented long-double sums


def _layout(groups: np.ndarray):
    """The rows ordered by group (given order kept within a group), group starts, sizes and ids."""
    order = np.argsort(groups, kind="stable")
    gs = groups[order]
    start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1] if gs.size else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.r_[start, gs.size])
    return order, start.astype(np.int64), sizes.astype(np.int64), gs[start]


def seg_cumsum(v: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Cumulative sums in long double within each segment ``v[start : start + size]``, value after value
    (R's ``LDOUBLE s = 0; s += x[i]``), at the segments' positions (other positions: 0).

    Segments are padded to the next power of two of their size and summed as rows of one matrix per
    power (``np.cumsum`` along rows is sequential): at most ``log2(max size) + 1`` passes.
    """
    out = np.zeros(v.shape[0], dtype=_LD)
    keep = sizes > 0
    start, sizes = start[keep], sizes[keep]
    if not sizes.size:
        return out
    width = np.left_shift(1, np.ceil(np.log2(sizes)).astype(np.int64))
    for w in np.unique(width):
        sel = np.flatnonzero(width == w)
        cols = np.arange(int(w))
        mask = cols[None, :] < sizes[sel][:, None]
        idx = (start[sel][:, None] + cols[None, :])[mask]
        m = np.zeros((sel.size, int(w)), dtype=_LD)
        m[mask] = v[idx]
        c = np.cumsum(m, axis=1) + _LD(0.0)  # R's sum starts at +0: -0 + 0 = +0
        out[idx] = c[mask]
    return out


def _seg_sums(v: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Long-double sums of the segments (0 for an empty one)."""
    c = seg_cumsum(v, start, sizes)
    return np.where(sizes > 0, c[np.maximum(start + sizes - 1, 0)] if c.size else _LD(0), _LD(0)).astype(_LD)


def _r_mean(v: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """R's ``mean`` of each segment: the long-double sum divided by n, plus the mean deviation from it."""
    s = _seg_sums(v, start, sizes) / sizes
    seg = np.repeat(np.arange(start.size), sizes)
    pos = _ranges(start, sizes)
    dev = np.zeros(v.shape[0], dtype=_LD)
    dev[pos] = v[pos].astype(_LD) - s[seg]
    t = _seg_sums(dev, start, sizes)
    fin = np.isfinite(s.astype(np.float64))
    s[fin] += t[fin] / sizes[fin]
    return s.astype(np.float64)


def _ranges(start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The positions ``start[i] .. start[i] + sizes[i] - 1`` of every segment, one after the other."""
    total = int(sizes.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    first = np.repeat(start - np.r_[0, np.cumsum(sizes)[:-1]], sizes)
    return first + np.arange(total)


def _mean_of_two(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """R's ``mean(c(a, b))``: (a + b) / 2 in long double, corrected by the mean deviation."""
    a, b = a.astype(_LD), b.astype(_LD)
    s = (a + b) / 2
    fin = np.isfinite(s.astype(np.float64))
    t = (a - s) + (b - s)
    return np.where(fin, s + t / 2, s).astype(np.float64)


# =============================================================================
# the per-group statistics of one variable: y in layout order, groups as (start, sizes)


def _sorted_within(y: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``y`` sorted within each segment (NaN last; ties in the given order)."""
    seg = np.repeat(np.arange(start.size), sizes)
    return y[np.lexsort((y, seg))]


def _median(ys: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """R's ``median`` per segment of the within-sorted ``ys`` (NaN where the segment has one)."""
    lo = start + (sizes - 1) // 2
    hi = start + sizes // 2
    stat = np.where(lo == hi, ys[lo], _mean_of_two(ys[lo], ys[hi]))
    return np.where(np.isnan(ys[start + sizes - 1]), np.nan, stat)


def _has_na(y: np.ndarray, start: np.ndarray) -> np.ndarray:
    return np.add.reduceat(np.isnan(y), start) > 0 if y.size else np.zeros(0, dtype=bool)


def _select_rows(a: np.ndarray, lo: np.ndarray, hi: np.ndarray, k: np.ndarray) -> None:
    """Hoare's selection (FIND, with Wirth's partition: scan up while below the pivot, down while above, swap)
    of position ``k`` within ``a[r, lo:hi + 1]`` for every row r at once, in place: the order in which R's
    partial sort (``sort(x, partial = ...)``) leaves the values. The rows run in lockstep; the loops run
    over the scan steps of the rows, not over rows.
    """
    rows = np.arange(a.shape[0])
    last = a.shape[1] - 1
    lo, hi = lo.copy(), hi.copy()
    while True:
        act = np.flatnonzero(lo < hi)
        if not act.size:
            return
        r, kk = rows[act], k[act]
        v = a[r, kk]
        i, j = lo[act].copy(), hi[act].copy()
        while True:
            m = i <= j
            if not m.any():
                break
            while True:
                up = m & (a[r, np.minimum(i, last)] < v)
                if not up.any():
                    break
                i[up] += 1
            while True:
                down = m & (v < a[r, np.maximum(j, 0)])
                if not down.any():
                    break
                j[down] -= 1
            sw = m & (i <= j)
            rs, isw, jsw = r[sw], i[sw], j[sw]
            t = a[rs, isw]
            a[rs, isw] = a[rs, jsw]
            a[rs, jsw] = t
            i[sw] += 1
            j[sw] -= 1
        lo[act] = np.where(j < kk, i, lo[act])
        hi[act] = np.where(kk < i, j, hi[act])


def _select_one(a: np.ndarray, lo: int, hi: int, k: int) -> None:
    """:func:`_select_rows` for one long row, a partition pass at a time: in a pass over ``a[lo:hi + 1]``
    with pivot ``v``, the t-th position from the left holding a value >= v is swapped with the t-th from the
    right holding a value <= v while the former is not after the latter; the scans then stop where the
    sequential ones stop (before the swapped positions)."""
    while lo < hi:
        v = a[k]
        seg = a[lo:hi + 1]
        p = lo + np.flatnonzero(seg >= v)
        q = lo + np.flatnonzero(seg <= v)[::-1]
        m = min(p.size, q.size)
        t = int(np.count_nonzero(p[:m] <= q[:m]))
        if t:
            pi, qi = p[:t], q[:t]
            a[pi], a[qi] = a[qi], a[pi].copy()
            i, j = int(pi[-1]) + 1, int(qi[-1]) - 1
            if i <= j:  # the scans go on and stop without a swap
                i = min(int(p[t]) if t < p.size else hi + 1, int(qi[-1]))
                j = max(int(q[t]) if t < q.size else lo - 1, int(pi[-1]))
        else:
            i, j = int(p[0]), int(q[0])
        if j < k:
            lo = i
        if k < i:
            hi = j


def _psorted_middle(y: np.ndarray, start: np.ndarray, sizes: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """Each segment as R's ``sort.int(x, partial = unique(c(lo, hi)))`` leaves it (``lo = cut + 1``,
    ``hi = n - cut``): a selection of position ``lo`` over the segment, then of ``hi`` over the positions
    after ``lo``. Segments are grouped by their size's power of two, each group a padded matrix."""
    out = y.copy()
    width = np.left_shift(1, np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64))
    for w in np.unique(width):
        sel = np.flatnonzero(width == w)
        cols = np.arange(int(w))
        mask = cols[None, :] < sizes[sel][:, None]
        idx = (start[sel][:, None] + cols[None, :])[mask]
        m = np.full((sel.size, int(w)), np.inf)
        m[mask] = y[idx]
        n, c = sizes[sel], cut[sel]
        if sel.size * 16 <= w:  # few long segments: each by whole partition passes
            for r in range(sel.size):
                row = m[r]
                _select_one(row, 0, int(n[r]) - 1, int(c[r]))
                if n[r] - 1 - c[r] > c[r]:
                    _select_one(row, int(c[r]) + 1, int(n[r]) - 1, int(n[r] - 1 - c[r]))
            out[idx] = m[mask]
            continue
        zero = np.zeros(sel.size, dtype=np.int64)
        _select_rows(m, zero, n - 1, c)  # lo (0-based c) over the whole segment
        two = n - 1 - c > c  # hi differs from lo: then hi (0-based n - 1 - c) over the positions after lo
        if two.any():
            t = np.flatnonzero(two)
            sub = m[t]
            _select_rows(sub, c[t] + 1, n[t] - 1, n[t] - 1 - c[t])
            m[t] = sub
        out[idx] = m[mask]
    return out


def _trim(y: np.ndarray, start: np.ndarray, sizes: np.ndarray, trim: float) -> np.ndarray:
    if trim >= 0.5:
        return _median(_sorted_within(y, start, sizes), start, sizes)
    has_na = _has_na(y, start)
    if trim > 0:  # R: the values lo..hi of a partial sort, averaged in the order it leaves them
        cut = np.floor(sizes * trim).astype(np.int64)
        ok = ~has_na
        stat = np.full(start.size, np.nan)
        if ok.any():
            yy = np.where(np.isnan(y), 0.0, y)
            ys = _psorted_middle(yy, start[ok], sizes[ok], cut[ok])
            stat[ok] = _r_mean(ys, start[ok] + cut[ok], sizes[ok] - 2 * cut[ok])
    else:
        stat = _r_mean(y, start, sizes)
    return np.where(has_na, np.nan, stat)


def _weighted_mean(y: np.ndarray, w: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        prod = np.where(w != 0, y * w, 0.0)  # R: (x * w)[w != 0]; an NA weight keeps its NA
        num = _seg_sums(prod, start, sizes).astype(np.float64)
        den = _seg_sums(w, start, sizes).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / den


def _weighted_median(y: np.ndarray, w: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> tuple:
    """sdcMicro's weighted median per segment; also whether a used group had negative weights."""
    na_x = _has_na(y, start)  # such a group is NA before the weights are looked at
    bad_w = np.add.reduceat(~np.isfinite(w), start) > 0
    if np.any(bad_w & ~na_x):
        raise InvalidParameterError(
            "microaggregation: a group's weights hold a missing or infinite value; sdcMicro's weighted median "
            "stops ('missing or infinite weights').")
    zero = np.add.reduceat(w == 0, start) == sizes
    if np.any(zero & ~na_x):
        raise InvalidParameterError(
            "microaggregation: all weights of a group are 0; sdcMicro's weighted median stops there (its "
            "'all weights equal 0' branch fails: object 'obj' not found).")
    negative = bool(np.any((np.add.reduceat(w < 0, start) > 0) & ~na_x))
    seg = np.repeat(np.arange(start.size), sizes)
    order = np.lexsort((y, seg))  # R's order(x): stable
    ys, ws = y[order], w[order]
    cum = seg_cumsum(ws, start, sizes).astype(np.float64)
    total = cum[start + sizes - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rw = cum / total[seg]
    pos = np.arange(y.size)
    big = np.iinfo(np.int64).max
    first = np.minimum.reduceat(np.where(rw >= 0.5, pos, big), start)
    lost = (first == big) & ~na_x
    if np.any(lost):
        raise InvalidParameterError(
            "microaggregation: no value of a group reaches half of its weights (negative weights); sdcMicro's "
            "weighted median stops (missing value where TRUE/FALSE needed).")
    first = np.where(first == big, start, first)
    nxt = np.minimum(first + 1, start + sizes - 1)
    half = rw[first] == 0.5
    stat = np.where(half, _mean_of_two(ys[first], np.where(first + 1 < start + sizes, ys[nxt], np.nan)),
                    ys[first])
    return np.where(na_x, np.nan, stat), negative


def _onestep(x: np.ndarray, start: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """sdcMicro's onestep on the layout-ordered matrix ``x``: per group and column the clipped mean."""
    n, p = x.shape
    seg = np.repeat(np.arange(start.size), sizes)
    lim_hi = np.empty((start.size, p))
    lim_lo = np.empty((start.size, p))
    for j in range(p):  # a loop over variables
        m1 = _median(_sorted_within(x[:, j], start, sizes), start, sizes)
        dev = np.abs(x[:, j] - m1[seg])
        m2 = 1.4826 * _median(_sorted_within(dev, start, sizes), start, sizes)
        lim_hi[:, j] = m1 + ONESTEP_CONSTANT * m2
        lim_lo[:, j] = m1 - ONESTEP_CONSTANT * m2
    hi, lo = lim_hi[seg], lim_lo[seg]
    with np.errstate(invalid="ignore"):
        above, below = x > hi, x < lo
    na_lim = np.isnan(hi)
    if na_lim.any():  # R: if (any(x[row, ] > limit)) with an NA comparison and no TRUE stops
        stops = na_lim.any(axis=1) & (~above.any(axis=1) | ~below.any(axis=1))
        if stops.any():
            raise InvalidParameterError(
                "microaggregation(measure='onestep'): a group has a missing value and a record of it lies "
                "within the limits of the other variables; sdcMicro stops there (missing value where "
                "TRUE/FALSE needed).")
    y = np.where(above, hi, np.where(below, lo, x))
    out = np.empty((start.size, p))
    for j in range(p):
        out[:, j] = (_seg_sums(y[:, j], start, sizes) / sizes).astype(np.float64)
    return out


# =============================================================================
# public


def trimmed_means(y: np.ndarray, groups: np.ndarray, trim: float) -> np.ndarray:
    """R's ``mean(x, trim = trim)`` per group of ``y``, per record (NA where a group has a missing value)."""
    y = np.asarray(y, dtype=np.float64)
    return aggregate(y[:, None], np.asarray(groups), "trim", trim)[:, 0]


def aggregate(x: np.ndarray, groups: np.ndarray, measure: str, trim: float = 0.0,
              weights: np.ndarray | None = None, warn: list | None = None) -> np.ndarray:
    """Each column of ``x`` (n, p) replaced by its group's ``measure`` (``groups``: 0-based ids per row).

    Within a group the rows are taken in the given order. ``weights`` (one per row): the weighted mean or
    median for ``measure`` ``"mean"``/``"median"``, ignored by ``"trim"`` and ``"onestep"`` (as sdcMicro).
    ``warn``: a list to which ``"negative"`` is appended when a weighted median used negative weights
    (sdcMicro warns 'negative weights have been detected!').

    Raises InvalidParameterError where sdcMicro stops: a weighted median over missing, infinite or all-zero
    weights, or none reaching half; ``onestep`` where R compares a missing limit without a decisive value.
    """
    x = np.asarray(x, dtype=np.float64)
    groups = np.asarray(groups)
    n, p = x.shape
    out = np.empty((n, p))
    if n == 0:
        return out
    order, start, sizes, ids = _layout(groups)
    xs = x[order]
    per_group = np.empty((int(groups.max()) + 1, p))
    if measure == "onestep":
        per_group[ids] = _onestep(xs, start, sizes)
        return per_group[groups]
    ws = None if weights is None or measure not in ("mean", "median") else \
        np.asarray(weights, dtype=np.float64)[order]
    for j in range(p):  # a loop over variables
        y = xs[:, j]
        if measure == "mean" and ws is None:
            stat = (_seg_sums(y, start, sizes) / sizes).astype(np.float64)
        elif measure == "mean":
            stat = _weighted_mean(y, ws, start, sizes)
        elif measure == "median" and ws is None:
            stat = _median(_sorted_within(y, start, sizes), start, sizes)
        elif measure == "median":
            stat, negative = _weighted_median(y, ws, start, sizes)
            if negative and warn is not None:
                warn.append("negative")
        elif measure == "trim":
            stat = _trim(y, start, sizes, float(trim))
        else:  # pragma: no cover - validated by the caller
            raise ValueError(measure)
        per_group[ids, j] = stat
    return per_group[groups]
