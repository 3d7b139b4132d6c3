"""Recoding, as sdcMicro 5.8.0 does it: ``globalRecode``, ``groupAndRename`` and ``topBotCoding``.

Each function takes a DataFrame and returns a new one (the input is never modified) in which one
column is recoded, with the values and the R types sdcMicro gives: a factor becomes a pandas
``Categorical`` with R's level order and labels. Vectorised: one pass of NumPy over the column.

The behaviour was observed by running sdcMicro 5.8.0 (R 4.2.2) and is pinned by the stored
parity corpus (``r_reference/cases/globalRecode.json`` ...); docs/protection.md lists the quirks.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, InvalidParameterError
from .._validation import (
    Boolean,
    Columns,
    Constraint,
    Frame,
    Options,
    RandomState,
    user_stacklevel,
    validate_params,
)
from ..core.rrandom import RRandom

__all__ = ["global_recode", "group_and_rename", "top_bot_coding", "r_cut", "cut_labels"]


# =============================================================================
# constraints of the recoding arguments


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


class Breaks(Constraint):
    """A number of intervals (a real >= 1 after R's rounding) or at least two distinct cut points."""

    def check(self, name, value, values):
        if _is_real(value):
            return float(value)
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            raise InvalidParameterError(
                f"{name} must be a number of intervals or a sequence of cut points; got {value!r}.")
        vals = list(np.asarray(value, dtype=object).reshape(-1))
        if not vals or not all(_is_real(v) for v in vals):
            raise InvalidParameterError(
                f"{name} must be a number of intervals or a sequence of real cut points; got {value!r}.")
        arr = np.asarray(vals, dtype=np.float64)
        if np.isnan(arr).any():
            raise InvalidParameterError(
                f"{name} must not contain NaN/None (R's cut would silently drop it); got {value!r}.")
        if arr.size == 1:
            return float(arr[0])  # R: length(breaks) == 1 is a number of intervals
        return arr

    def invalid_values(self, name, values):
        return ["3", [1.0, float("nan"), 5.0], [], None]


class Labels(Constraint):
    """None (R's interval labels), False (integer codes) or one label (str or int) per interval."""

    def check(self, name, value, values):
        if value is None:
            return None
        if value is False or (isinstance(value, np.bool_) and not value):
            return False
        if isinstance(value, (str, bytes, dict, bool, np.bool_)) or not hasattr(value, "__iter__"):
            raise InvalidParameterError(
                f"{name} must be None, False or a sequence of labels (one per interval); got {value!r}.")
        out = []
        for v in value:
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_)):
                out.append(str(int(v)))  # R's as.character of an integer
            else:
                raise InvalidParameterError(
                    f"{name} must hold strings or integers (R formats other numbers its own way: give "
                    f"them as strings); got {v!r}.")
        if not out:
            raise InvalidParameterError(f"{name} must not be empty; got {value!r}.")
        return out

    def invalid_values(self, name, values):
        return ["abc", True, [1.5, 2.5], [None]]


class Real(Constraint):
    """A real number; ``na`` allows None/NaN (R's NA), ``inf`` allows +-Inf."""

    def __init__(self, na: bool = False, inf: bool = True):
        self.na, self.inf = na, inf

    def check(self, name, value, values):
        if value is None or (_is_real(value) and math.isnan(float(value))):
            if self.na:
                return None
            raise InvalidParameterError(f"{name} must be a real number; got {value!r}.")
        if not _is_real(value):
            raise InvalidParameterError(f"{name} must be a real number; got {value!r}.")
        if not self.inf and not math.isfinite(float(value)):
            raise InvalidParameterError(f"{name} must be a finite number; got {value!r}.")
        return value

    def invalid_values(self, name, values):
        out = ["1", True, [1.0, 2.0]]
        if not self.na:
            out.append(float("nan"))
        return out


class Levels(Constraint):
    """One level (str, int) or a sequence of levels."""

    def __init__(self, empty: bool = True):
        self.empty = empty

    def check(self, name, value, values):
        if isinstance(value, (str, numbers.Integral)) and not isinstance(value, (bool, np.bool_)):
            return [value]
        if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
            raise InvalidParameterError(f"{name} must be a level or a list of levels; got {value!r}.")
        out = list(value)
        if not self.empty and not out:
            raise InvalidParameterError(f"{name} must name at least one level; got {value!r}.")
        for v in out:
            if not isinstance(v, (str, numbers.Integral, np.integer)) or isinstance(v, (bool, np.bool_)):
                raise InvalidParameterError(f"{name} must hold level names (str or int); got {v!r}.")
        return out

    def invalid_values(self, name, values):
        return [None, 1.5, [None]] + ([] if self.empty else [[]])


# =============================================================================
# R's cut (numbers of R's cut.default as globalRecode calls it)


def _r_format_nonfinite(values: np.ndarray) -> list[str]:
    """R's ``format()`` of the non-finite breaks together: right-justified to their common width."""
    texts = ["Inf" if v > 0 else "-Inf" for v in values]
    width = max((len(t) for t in texts), default=0)
    return [t.rjust(width) for t in texts]


def cut_labels(breaks: np.ndarray, *, include_lowest: bool = False, dig_lab: int = 8) -> list[str]:
    """The interval labels R's ``cut(..., right = TRUE, dig.lab = dig_lab)`` builds from sorted ``breaks``.

    Each break is written by ``formatC(digits = d, width = 1)`` (C's ``%.{d}g``) with ``d`` from
    ``dig_lab`` up to 12 until neighbouring breaks differ, else the labels are ``Range_1`` ...;
    the infinite breaks are written together by R's ``format()``, so with both ``-Inf`` and ``Inf``
    the latter reads ``" Inf"`` (``"(50000, Inf]"``).
    """
    b = np.asarray(breaks, dtype=np.float64) + 0.0  # R's 0 + breaks: no "-0"
    finite = np.isfinite(b)
    nonfinite = _r_format_nonfinite(b[~finite])
    ok = False
    for dig in range(dig_lab, max(12, dig_lab) + 1):
        it = iter(nonfinite)
        ch = [f"{v:.{dig}g}" if f else next(it) for v, f in zip(b.tolist(), finite.tolist())]
        if all(ch[i] != ch[i + 1] for i in range(len(ch) - 1)):
            ok = True
            break
    if not ok:
        return [f"Range_{i + 1}" for i in range(len(b) - 1)]
    labels = [f"({ch[i]},{ch[i + 1]}]" for i in range(len(b) - 1)]
    if include_lowest:
        labels[0] = "[" + labels[0][1:]
    return labels


#: up to this many breaks the codes are counted by comparisons (one vectorised pass per break), above it
#: by binary search
_COMPARE_UP_TO = 24


def _interval_codes(x: np.ndarray, b: np.ndarray, *, include_lowest: bool = False,
                    hi: float | None = None) -> np.ndarray:
    """0-based interval of each ``x`` in the sorted ``b`` (``b[i] < x <= b[i + 1]``; with ``include_lowest``
    also ``x == b[0]`` in the first), -1 outside or NA. ``hi``: the largest non-missing value when the caller
    knows it (no value above ``b[-1]`` then needs a pass of its own)."""
    nb = b.size
    if nb <= _COMPARE_UP_TO:
        # 1 for x above the lowest break (NaN: 0) plus the number of inner breaks below x, minus 1 at the end:
        # NaN and values below the breaks come out -1 without a mask of their own
        first = (np.greater_equal if include_lowest else np.greater)(x, b[0])
        codes = first.view(np.int8)
        hit = np.empty(x.size, dtype=bool)
        for bi in b[1:-1].tolist():
            np.greater(x, bi, out=hit)
            np.add(codes, hit.view(np.int8), out=codes)
        if hi is None or not hi <= b[-1]:
            np.greater(x, b[-1], out=hit)
            if hit.any():
                np.putmask(codes, hit, 0)
        codes -= 1
        return codes
    codes = np.searchsorted(b, x, side="left")  # NaN sorts last: beyond the breaks
    codes = codes.astype(np.int8 if nb < 128 else np.int16 if nb < 2**15 else np.int64)
    codes -= 1
    np.putmask(codes, codes >= nb - 1, -1)
    if include_lowest:
        np.putmask(codes, x == b[0], 0)
    return codes


def r_cut(x: np.ndarray, breaks: np.ndarray, *, labels=None, include_lowest: bool = False, dig_lab: int = 8,
          hi: float | None = None, codes: np.ndarray | None = None):
    """R's ``cut(x, breaks, labels, include.lowest, right = TRUE, dig.lab)``.

    Returns ``(codes, levels)``: 0-based interval codes (-1 for NA: missing or outside the
    breaks) and the factor levels (labels merged where ``labels`` repeats one, as R's ``factor``
    does), or ``(codes, None)`` with ``labels=False``. ``hi``: the largest non-missing ``x`` if known;
    ``codes``: the interval codes if the caller has them already (not counted again).
    """
    b = np.sort(np.asarray(breaks, dtype=np.float64))
    if b.size < 2:
        raise InvalidParameterError("invalid number of intervals (R's cut needs at least two breaks).")
    bl = b.tolist()
    if any(v - u == 0 for u, v in zip(bl, bl[1:])):  # R's diff(breaks) == 0 (Inf - Inf is NaN: not a tie)
        raise InvalidParameterError("'breaks' are not unique (sdcMicro's cut stops here).")
    nb = b.size
    if codes is None:
        codes = _interval_codes(np.asarray(x, dtype=np.float64), b, include_lowest=include_lowest, hi=hi)
    if labels is False:
        return codes, None
    if labels is None:
        return codes, cut_labels(b, include_lowest=include_lowest, dig_lab=dig_lab)
    labels = list(labels)
    if len(labels) != nb - 1:
        raise InvalidParameterError(
            f"labels has {len(labels)} label(s) for {nb - 1} interval(s) (R: number of intervals and "
            "length of 'labels' differ).")
    uniq = list(dict.fromkeys(labels))
    if len(uniq) != len(labels):  # R's factor() merges duplicated labels into one level
        where = {lab: i for i, lab in enumerate(uniq)}
        remap = np.array([where[lab] for lab in labels], dtype=np.int64)
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1).astype(codes.dtype)
    return codes, uniq


# =============================================================================
# globalRecode


def _r_seq(start: float, stop: float, length_out: int) -> np.ndarray:
    """R's ``seq(from, to, length.out = n)`` for doubles: ``c(from, from + (1:(n-2)) * (del/(n-1)), to)``."""
    if length_out == 2:
        return np.array([start, stop])
    if start == stop:
        return np.full(length_out, start)
    n1 = length_out - 1
    inner = start + np.arange(1, n1, dtype=np.float64) * ((stop - start) / n1)
    return np.concatenate(([start], inner, [stop]))


def _rounded_unless_duplicated(b: np.ndarray) -> np.ndarray:
    """R's ``round(b)`` (half to even) unless two rounded breaks are equal; ``b`` is sorted (``seq`` or the
    ``exp`` of one), so equal rounded breaks are neighbours."""
    rb = np.round(b)
    return b if (rb[1:] == rb[:-1]).any() else rb


#: from this many values on, the order statistics are found in narrow bands bracketed by a sample
_BANDS_FROM = 32768
#: the sample that brackets the ranks: about n / 64 values, at least 4096 and at most 16384 (measured best
#: at 1e5 and 1e6: a larger sample narrows the bands but costs its sort)
_SAMPLE = (4096, 16384)
#: up to this many bands the values are binned by one comparison per band bound; more: one partial sort
_MAX_BANDS = 24
#: the bands' bounds are compared with a float32 copy of the column (half the memory of each comparison)
_BINS_F32 = True
#: a band of at least this many values is narrowed once more by a sample of every 8th of its values
_NARROW_FROM = 2048


#: how many standard deviations of a sample rank (sqrt(m p (1 - p)) for m values and probability p) a bound
#: lies outside the ranks (a miss costs one partial sort of all values; 3.5: about 2 in 10000 per bound on
#: values in random order; measured 6 % faster than 2 sqrt(m) for the quintiles at 1e5)
_SIGMAS = 3.5


def _bracket(m: int, n: int, k0: int, k1: int) -> tuple[int, int]:
    """Positions in a sorted sample of ``m`` of the ``n`` values some standard deviations of a sample rank
    outside the ranks k0..k1; -1 / ``m`` for no bound."""
    p0, p1 = k0 / n, k1 / n
    return (max(-1, math.floor(p0 * m - _SIGMAS * math.sqrt(m * p0 * (1 - p0)) - 4)),
            min(m, math.ceil(p1 * m + _SIGMAS * math.sqrt(m * p1 * (1 - p1)) + 4)))


def _sorted_sample(x: np.ndarray, step: int) -> np.ndarray:
    """Every ``step``-th value of ``x``, as float32 (sorts in half the time of float64), sorted; NaN last.

    A sort, not a partition at the few positions needed: NumPy's sort of float32 is vectorised, its
    partition branches on the data (measured 2× slower within the call at 1e5). The sample only proposes
    bounds: a bound rounded to float32 (one beyond float32's range becomes +-inf) is as good as any other,
    since the counts of the values at or below it prove it."""
    with np.errstate(over="ignore"):
        return np.sort(x[::step].astype(np.float32))


def _band_select(band: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``np.partition(band, r)[r]`` for the NaN-free ``band``; a large band is first narrowed by a sample of
    every 8th value (bounds proved by counts, as in :func:`_order_statistics`)."""
    size = band.size
    if size >= _NARROW_FROM:
        s = _sorted_sample(band, 8)
        m = s.size
        pa, pb = _bracket(m, size, int(r[0]), int(r[-1]))
        va = float(s[pa]) if pa >= 0 else None
        vb = float(s[pb]) if pb < m else None
        below = np.less_equal(band, va) if va is not None else np.zeros(size, dtype=bool)
        within = np.less_equal(band, vb) if vb is not None else np.ones(size, dtype=bool)
        c_a = int(np.count_nonzero(below))
        if c_a <= r[0] and r[-1] < int(np.count_nonzero(within)):
            within &= ~below
            band = np.compress(within, band)
            r = r - c_a
    return np.partition(band, r)[r]


class _Bands:
    """What the binning of :func:`_banded_order_statistics` leaves, for the interval codes of breaks that lie
    in the bands (:func:`_codes_in_bands`).

    ``bins``: per value, how many band bounds lie below it (int8; odd: inside a band; NaN: 0); ``idx``,
    ``pool``, ``pool_bins``: the positions, values and bins of the values inside a band; ``spans``: per
    band, the indexes into the ranks of the ranks it holds (bands in increasing order)."""

    __slots__ = ("bins", "idx", "pool", "pool_bins", "spans")

    def __init__(self, bins, idx, pool, pool_bins, spans):
        self.bins, self.idx, self.pool, self.pool_bins, self.spans = bins, idx, pool, pool_bins, spans


def _order_statistics(x: np.ndarray, ks: np.ndarray, *, n_nan: int = 0) -> np.ndarray:
    """The ``ks``-th smallest values of ``x`` (0-based ranks, sorted, unique): the values of
    ``np.partition(x, ks)[ks]``. ``x`` holds ``n_nan`` NaN, which are not ranked (the ranks count the other
    values; the caller need not copy the column without them). See :func:`_banded_order_statistics`."""
    return _banded_order_statistics(x, ks, n_nan=n_nan)[0]


def _banded_order_statistics(x: np.ndarray, ks: np.ndarray, *, n_nan: int = 0) -> tuple[np.ndarray, _Bands | None]:
    """:func:`_order_statistics`, and the bands that proved them (None where no bands were used).

    For large ``x`` a systematic sample (every ``n // m``-th value, m about n / 64, as float32, sorted) gives
    for each run of adjacent ranks two bounds ``a < b`` some standard deviations of a sample rank outside them
    (bands that would overlap are merged). One comparison of ``x`` with each bound, in order, bins every value
    (the number of bounds below it: odd inside a band) and counts the values ``<= a`` and ``<= b``, which prove
    that the ranks lie in the band ``(a, b]`` (else the whole array is partitioned). The comparisons are made on
    a float32 copy of ``x`` (``_BINS_F32``): rounding to float32 is monotone, so each is still a threshold on
    the values of ``x`` and the counts prove the bands as well; the values gathered are ``x``'s. Only the bands'
    values (a few per cent) are gathered (with their positions, kept for :func:`_codes_in_bands`), ordered by
    band, each band narrowed once more by a sample of its own, and partitioned. The smallest and largest ranks
    are the minimum and maximum. The values are exact order statistics either way.
    """
    n = x.size - n_nan
    if n < _BANDS_FROM:
        return np.partition(x[~np.isnan(x)] if n_nan else x, ks)[ks], None
    out = np.empty(ks.size)
    groups: list[list[int]] = []
    for i, k in enumerate(ks.tolist()):
        if k == 0:
            out[i] = np.fmin.reduce(x)  # NaN ignored
        elif k == n - 1:
            out[i] = np.fmax.reduce(x)
        elif groups and k - ks[groups[-1][-1]] <= 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    if not groups:
        return out, None
    if len(groups) > _MAX_BANDS:
        return np.partition(x[~np.isnan(x)] if n_nan else x, ks)[ks], None
    step = max(1, n // max(_SAMPLE[0], min(_SAMPLE[1], n // 64)))
    if _BINS_F32:
        with np.errstate(over="ignore"):
            y = x.astype(np.float32)  # bins by float32 comparisons: see the docstring
        s = np.sort(y[::step])
    else:
        y = x
        s = _sorted_sample(x, step)
    m = s.size - (int(np.count_nonzero(np.isnan(s[-n_nan:]))) if n_nan else 0)  # NaN sort last
    # the bands as [first sample position, last sample position, indexes into ks]; overlapping ones merged
    spans: list[list] = []
    for g in groups:
        pa, pb = _bracket(m, n, int(ks[g[0]]), int(ks[g[-1]]))
        if spans and pa <= spans[-1][1]:
            spans[-1][1] = pb
            spans[-1][2].extend(g)
        else:
            spans.append([pa, pb, list(g)])
    inf = np.array([-np.inf, np.inf], dtype=y.dtype)
    bounds = [s[p] if 0 <= p < m else inf[int(p >= 0)] for pa, pb, _ in spans for p in (pa, pb)]
    # bins: how many bounds lie below each value (NaN: 0); above[j]: how many values exceed bound j
    bins = np.greater(y, bounds[0]).view(np.int8)
    above = [int(np.count_nonzero(bins))]
    hit = np.empty(x.size, dtype=bool)
    for t in bounds[1:]:
        np.greater(y, t, out=hit)
        above.append(int(np.count_nonzero(hit)))
        np.add(bins, hit.view(np.int8), out=bins)
    for j, (_, _, idx) in enumerate(spans):
        c_a, c_b = n - above[2 * j], n - above[2 * j + 1]  # values <= a, <= b
        if not c_a <= int(ks[idx[0]]) <= int(ks[idx[-1]]) < c_b:  # the sample missed: one partial sort
            return np.partition(x[~np.isnan(x)] if n_nan else x, ks)[ks], None
    where = np.flatnonzero(np.bitwise_and(bins, 1).view(bool))  # within a band (a few per cent)
    pool = x.take(where)
    pool_bins = bins.take(where)
    if len(spans) > 1:  # the pool ordered by band (a radix sort of the int8 bins), each band a slice
        by_band = pool.take(np.argsort(pool_bins, kind="stable"))
    start = 0
    for j, (_, _, idx) in enumerate(spans):
        if len(spans) == 1:
            band = pool
        else:
            size = above[2 * j] - above[2 * j + 1]  # values in (a, b]
            band = by_band[start:start + size]
            start += size
        out[idx] = _band_select(band, ks[idx] - (n - above[2 * j]))
    return out, _Bands(bins, where, pool, pool_bins, [sp[2] for sp in spans])


def _quantile7(x: np.ndarray, probs: np.ndarray, *, n_nan: int = 0) -> np.ndarray:
    """R's ``quantile(x, probs, type = 7)`` of the values of ``x`` other than its ``n_nan`` NaN (only the
    order statistics used)."""
    return _banded_quantile7(x, probs, n_nan=n_nan)[0]


def _banded_quantile7(x: np.ndarray, probs: np.ndarray, *, n_nan: int = 0):
    """:func:`_quantile7`, and for :func:`_codes_in_bands` the bands with, per probability, the indexes into
    the ranks of its lower and upper order statistic and whether the quantile lies between them."""
    n = x.size - n_nan
    index = 1 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    ks = np.array(sorted(set(lo.tolist()) | set(hi.tolist())), dtype=np.int64) - 1  # np.unique of a few ranks
    vals, bands = _banded_order_statistics(x, ks, n_nan=n_nan)
    ilo = np.searchsorted(ks, lo - 1)
    ihi = np.searchsorted(ks, hi - 1)
    qs = vals[ilo]
    xhi = vals[ihi]
    i = (index > lo) & (xhi != qs)
    h = (index - lo)[i]
    qs[i] = (1 - h) * qs[i] + h * xhi[i]
    return qs, (bands, ilo, ihi, (vals[ilo] <= qs) & (qs <= xhi))


def _codes_in_bands(b: np.ndarray, where, nan: np.ndarray | None) -> np.ndarray | None:
    """The interval codes of ``cut(x, b, include.lowest = TRUE)`` for equalAmount's breaks ``b`` (the
    quantiles of ``x``, first the minimum, last the maximum), from the bands that proved the order statistics
    (``where``, from :func:`_banded_quantile7`); ``nan``: the column's NaN mask if it has NaN. None where the
    bands do not decide the codes (then :func:`_interval_codes` counts them).

    The code of a value is the number of inner breaks below it. When each band holds the two order
    statistics of exactly one inner break, and that break lies between them, a value at or below a band's
    lower bound is below its break and a value above its upper bound is above it: outside the bands the code
    is the number of bands below the value (``bins // 2``); inside band j it is j plus one comparison with
    break j, made for the band's values only. The same codes as :func:`_interval_codes`, without its passes
    over the column."""
    bands, ilo, ihi, between = where
    if bands is None or b.size < 3 or not bool((b[1:] > b[:-1]).all()) or not bool(between[1:-1].all()):
        return None
    spans = bands.spans
    if len(spans) != b.size - 2:
        return None
    for j, idx in enumerate(spans):  # band j holds exactly the ranks of inner break j + 1
        if sorted(set(idx)) != sorted({int(ilo[j + 1]), int(ihi[j + 1])}):
            return None
    codes = np.right_shift(bands.bins, 1)  # the number of bands below each value: their breaks too
    pool_codes = np.right_shift(bands.pool_bins, 1)
    pool_codes += np.greater(bands.pool, b[1:-1].take(pool_codes)).view(np.int8)
    codes[bands.idx] = pool_codes
    if nan is not None:  # NaN has no bound below it (code 0): -1
        np.subtract(codes, nan.view(np.int8), out=codes)
    return codes


def _r_round_digits(x: np.ndarray, digits: int) -> np.ndarray:
    if digits >= 0:
        p = 10.0 ** digits
        return np.round(x * p) / p
    p = 10.0 ** (-digits)
    return np.round(x / p) * p


def _r_jitter(b: np.ndarray, rng: RRandom) -> np.ndarray:
    """R's ``jitter(b)`` (factor 1, amount NULL) with uniforms from R's stream."""
    fin = b[np.isfinite(b)]
    r0, r1 = (float(fin.min()), float(fin.max())) if fin.size else (math.inf, -math.inf)
    z = r1 - r0
    if z == 0:
        z = abs(r0)
    if z == 0:
        z = 1.0
    xx = np.unique(_r_round_digits(b, 3 - math.floor(math.log10(z))))
    d = np.diff(xx)
    if d.size:
        dd = float(d.min())
    else:
        dd = float(xx[0]) / 10 if xx[0] != 0 else z / 10
    amount = abs(dd) / 5
    return b + rng.runif(b.size, -amount, amount)


def _computed_breaks(x: np.ndarray, n: int, method: str, random_state) -> tuple[np.ndarray, float, np.ndarray | None]:
    """The cut points sdcMicro computes for ``breaks = n`` (n >= 2), the largest non-missing value, and the
    interval codes where computing the breaks gave them (equalAmount: :func:`_codes_in_bands`), else None."""
    if method == "equidistant":
        lo, hi = float(np.fmin.reduce(x)), float(np.fmax.reduce(x))  # NaN ignored; NaN if all are
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise InvalidParameterError(
                "global_recode: with a number of breaks and method='equidistant' the column must have "
                "finite, non-missing values (sdcMicro's seq() stops: 'from'/'to' must be a finite number).")
        return _rounded_unless_duplicated(_r_seq(lo - 1, hi + 1, n + 1)), hi, None
    if method == "logEqui":
        lo = float(np.fmin.reduce(np.where(x > 0, x, np.inf))) if x.size else math.inf
        hi = float(np.fmax.reduce(x)) if x.size else math.nan
        if bool((x == 0).any()) or not (math.isfinite(lo) and math.isfinite(hi)):
            raise InvalidParameterError(
                "global_recode: method='logEqui' needs positive finite values (log(0) = -Inf makes "
                "sdcMicro's seq() stop: 'from' must be a finite number).")
        if bool((x < 0).any()):
            warnings.warn("global_recode: log() of negative values gives NaN (as in sdcMicro, 'NaNs produced'); "
                          "those values end up NA.", CoercionWarning, stacklevel=user_stacklevel())
        b = np.array([math.exp(v) for v in _r_seq(math.log(lo) - 1, math.log(hi) + 1, n + 1).tolist()])
        return _rounded_unless_duplicated(b), hi, None
    # equalAmount
    nan = np.isnan(x)
    n_nan = int(np.count_nonzero(nan))  # ranked around, not copied out
    if n_nan == x.size:
        raise InvalidParameterError("global_recode: method='equalAmount' needs non-missing values.")
    probs = np.concatenate(([0.0], np.arange(1, n + 1, dtype=np.float64) / n))
    b, where = _banded_quantile7(x, probs, n_nan=n_nan)
    hi = float(b[-1])  # the maximum (probability 1)
    bl = b.tolist()
    if len(set(bl)) == len(bl) if not np.isnan(b).any() else np.unique(b).size == b.size:  # no tied quantiles
        return b, hi, _codes_in_bands(b, where, nan if n_nan else None)
    rng = RRandom(random_state) if random_state is not None else RRandom(int(np.random.SeedSequence().entropy % 2**31))
    warnings.warn(
        "global_recode: method='equalAmount' gives tied quantiles; sdcMicro jitters the breaks with R's "
        "runif (pass random_state=s for R's set.seed(s)), so intervals and labels are random.",
        CoercionWarning, stacklevel=user_stacklevel())
    return _r_jitter(b, rng), hi, None


def _one_break_with_na(data: pd.DataFrame, column, labels) -> pd.DataFrame:
    """sdcMicro's result for ``breaks = 1`` on a column with NA: ``cut(x, c(NA, NA))`` drops both
    breaks, so every value is NA and the one level reads ``"(,]"`` (labels: an error)."""
    if labels not in (None, False):
        raise InvalidParameterError(
            "global_recode: breaks=1 on a column with missing values has no intervals (sdcMicro's breaks "
            "min(x) - 1, max(x) + 1 are NA), so labels cannot be given (R: lengths of 'breaks' and 'labels' differ).")
    warnings.warn(
        "global_recode: breaks=1 on a column with missing values: sdcMicro takes min(x) - 1 and max(x) + 1 "
        "without removing NA, so both breaks are NA and every value becomes NA (level \"(,]\"), as returned "
        "here; drop the missing values first or give the cut points.",
        CoercionWarning, stacklevel=user_stacklevel())
    out = data.copy(deep=False)  # copy-on-write: the new column never reaches data
    n = len(data)
    if labels is False:
        out[column] = pd.array([pd.NA] * n, dtype="Int64")
    else:
        out[column] = pd.Categorical.from_codes(np.full(n, -1), categories=pd.Index(["(,]"], dtype=object))
    return out


def _numeric_column(fn: str, data: pd.DataFrame, column) -> np.ndarray:
    s = data[column]
    if isinstance(s.dtype, pd.CategoricalDtype):
        raise InvalidParameterError(
            f"{fn}: column {column!r} is categorical; sdcMicro (>= 4.7.0) recodes numeric variables only "
            "(use group_and_rename for factors).")
    if s.dtype.kind not in "iuf":
        raise InvalidParameterError(
            f"{fn}: column {column!r} must be numeric (int or float); got dtype {s.dtype} "
            "(sdcMicro: 'x' must be numeric).")
    if isinstance(s.dtype, np.dtype):  # NumPy int/float: NaN is already NA, no mask to apply
        return s.to_numpy(dtype=np.float64, copy=False)
    return s.to_numpy(dtype=np.float64, na_value=np.nan)


@validate_params({
    "data": Frame(),
    "column": Columns(of="data", single=True),
    "breaks": Breaks(),
    "labels": Labels(),
    "method": Options(("equidistant", "logEqui", "equalAmount")),
    "random_state": RandomState(generator=False),
})
def global_recode(data, column, breaks, *, labels=None, method: str = "equidistant",
                  random_state: int | None = None) -> pd.DataFrame:
    """Global recoding of a numeric variable into intervals, as sdcMicro's ``globalRecode``.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    column : str
        The numeric column to recode (``column``).
    breaks : float or sequence of float
        Cut points (``breaks``, at least two, sorted by R; ``Inf`` allowed), or the number of
        intervals (rounded half to even, as R's ``round``), whose cut points ``method`` computes.
    labels : None, False or sequence of str/int
        None: R's interval labels (``"(0,10]"``, ``"(50000, Inf]"`` ...); False: integer codes
        1, 2, ... (nullable ``Int64``); else one label per interval (repeated labels merge levels).
    method : {"equidistant", "logEqui", "equalAmount"}
        How a number of breaks becomes cut points: equal widths from ``min - 1`` to ``max + 1``
        (rounded to integers unless that makes two equal), the same on ``log(x)``, or quantiles.
    random_state : int, optional
        Only for ``method="equalAmount"`` when quantiles tie: sdcMicro then jitters the breaks
        with R's ``runif``; ``s`` reproduces R's ``set.seed(s)``.

    Returns
    -------
    DataFrame
        A copy of ``data`` with ``column`` replaced by a ``Categorical`` (R's factor: levels in
        interval order, unused ones kept) or, with ``labels=False``, by ``Int64`` codes. Values
        outside the breaks or missing are NA.

    Raises
    ------
    InvalidParameterError
        Where sdcMicro stops: a non-numeric (e.g. categorical) column, duplicated breaks, a
        number of breaks < 1, ``labels`` of the wrong length, cut points that cannot be computed
        (missing/infinite values with ``equidistant``, zeros with ``logEqui``).

    See Also
    --------
    pysdc.r.global_recode : the same through sdcMicro.

    Notes
    -----
    With cut points the intervals are R's ``cut(x, breaks, labels, dig.lab = 8)``: right-closed
    ``(a, b]``, the lowest value excluded. With a number of breaks sdcMicro adds
    ``include.lowest = TRUE`` (the first label is ``"[a,b]"``), except for one break, where the
    single interval is ``(min - 1, max + 1]`` -- computed without removing missing values, so one NA
    makes every value NA (sdcMicro's result, returned with a warning).
    Labels write each break with C's ``%.8g`` (more digits, up to 12, where two neighbours would
    read alike; ``Range_i`` if they still do).

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc import protect
    >>> df = pd.DataFrame({"inc": [5.0, 10.0, 60000.0, None]})
    >>> protect.global_recode(df, "inc", [0, 10, 50000, float("inf")])["inc"].tolist()
    ['(0,10]', '(0,10]', '(50000,Inf]', nan]
    """
    x = _numeric_column("global_recode", data, column)
    if isinstance(breaks, float):
        n = float(round(breaks)) if math.isfinite(breaks) else breaks  # R's round: half to even, as Python's
        if not n >= 1:
            raise InvalidParameterError(
                f"breaks, as a number of intervals, must be >= 1 after rounding; got {breaks!r} "
                "(sdcMicro: breaks >= 1 is not TRUE).")
        if n == 1:
            if np.isnan(x).any():
                return _one_break_with_na(data, column, labels)
            cuts = np.array([x.min() - 1, x.max() + 1]) if x.size else np.array([math.inf, -math.inf])
            if not np.isfinite(cuts).all():
                raise InvalidParameterError("global_recode: breaks=1 needs finite values in the column.")
            codes, levels = r_cut(x, cuts, labels=labels)
        else:
            cuts, hi, codes = _computed_breaks(x, int(n), method, random_state)
            codes, levels = r_cut(x, cuts, labels=labels, include_lowest=True, hi=hi, codes=codes)
    else:
        codes, levels = r_cut(x, breaks, labels=labels)
    out = data.copy(deep=False)  # copy-on-write: the new column never reaches data
    if levels is None:
        out[column] = pd.arrays.IntegerArray(codes.astype(np.int64) + 1, codes < 0)
    else:
        out[column] = pd.Categorical.from_codes(codes, dtype=_levels_dtype(levels), validate=False)
    return out


#: the categorical dtypes of recent label sets (a CategoricalDtype is immutable: results may share one)
_DTYPES: dict[tuple[str, ...], pd.CategoricalDtype] = {}


def _levels_dtype(levels: list[str]) -> pd.CategoricalDtype:
    """``CategoricalDtype(Index(levels, dtype=object))``, built once per label set (it costs more than the
    codes of a few thousand records)."""
    key = tuple(levels)
    dtype = _DTYPES.get(key)
    if dtype is None:
        if len(_DTYPES) >= 64:
            _DTYPES.clear()
        dtype = _DTYPES[key] = pd.CategoricalDtype(pd.Index(levels, dtype=object))
    return dtype


# =============================================================================
# groupAndRename


def _level_text(v) -> str:
    return v if isinstance(v, str) else str(v)


@validate_params({
    "data": Frame(),
    "var": Columns(of="data", single=True),
    "before": Levels(empty=True),
    "after": Levels(empty=False),
    "add_na": Boolean(),
})
def group_and_rename(data, var, before, after, *, add_na: bool = False) -> pd.DataFrame:
    """Join levels of a categorical variable into one, as sdcMicro's ``groupAndRename``.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    var : str
        A categorical column (R: a factor; sdcMicro refuses other types).
    before : level or list of levels
        The levels to join (each at most once, each a level of ``var``: matched by value or by
        its text, as R's ``%in%``).
    after : str or list of str
        The new level's name. A list renames the ``before`` levels in the order of the
        categories (not of ``before``), recycled as R does (a warning when the lengths do not fit).
    add_na : bool
        Also move missing values into ``after`` (``addNA``).

    Returns
    -------
    DataFrame
        A copy of ``data`` in which ``var`` has the renamed levels; levels that end up with the
        same name are merged at the position of the first, and ordered categoricals stay ordered.

    Raises
    ------
    InvalidParameterError
        ``var`` is not categorical, ``before`` names a level ``var`` lacks, or a level twice.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc import protect
    >>> df = pd.DataFrame({"v": pd.Categorical(["a", "b", "c"], categories=["a", "b", "c"])})
    >>> protect.group_and_rename(df, "v", ["a", "c"], "z")["v"].cat.categories.tolist()
    ['z', 'b']
    """
    s = data[var]
    if not isinstance(s.dtype, pd.CategoricalDtype):
        raise InvalidParameterError(
            f"group_and_rename: column {var!r} must be categorical (R: a factor); got dtype {s.dtype} "
            "(sdcMicro: 'we do not have a factor here'). Convert it with data[var].astype('category').")
    cats = list(s.cat.categories)
    text = [_level_text(c) for c in cats]
    idx = []
    for b in before:
        if b in cats:
            idx.append(cats.index(b))
        elif _level_text(b) in text:
            idx.append(text.index(_level_text(b)))
        else:
            raise InvalidParameterError(
                f"group_and_rename: before names {b!r}, which is not a level of {var!r} (levels: {cats[:20]}); "
                "sdcMicro: some elements of 'before' are not valid levels.")
    if len(set(idx)) != len(idx):
        raise InvalidParameterError(
            "group_and_rename: before lists a level more than once (sdcMicro: each level must be listed only once).")
    selected = sorted(idx)  # R assigns `after` along the levels' order
    if selected and len(selected) % len(after) != 0:
        warnings.warn(
            f"group_and_rename: {len(after)} new name(s) for {len(selected)} level(s); recycled as R does "
            "(number of items to replace is not a multiple of replacement length).",
            CoercionWarning, stacklevel=user_stacklevel())
    if all(isinstance(c, str) for c in cats):
        after = [_level_text(a) for a in after]  # R's levels are text: after=5 is the level "5"
    new = list(cats)
    for j, i in enumerate(selected):
        new[i] = after[j % len(after)]
    uniq = list(dict.fromkeys(new))
    codes = s.cat.codes.to_numpy()
    if len(uniq) == len(new):  # a renaming only: codes unchanged
        new_codes = codes
    else:
        where = {v: k for k, v in enumerate(uniq)}
        lut = np.array([where[v] for v in new] + [-1], dtype=np.int64).astype(codes.dtype)
        new_codes = lut.take(codes)  # code -1 (NA) reads the last entry, -1
    if add_na:
        na = new_codes < 0
        if na.any():
            where = {v: k for k, v in enumerate(uniq)}
            fill = np.resize(np.array([where.get(a, -1) for a in after], dtype=codes.dtype), int(na.sum()))
            if (fill < 0).any():
                warnings.warn(
                    "group_and_rename: add_na moves missing values to a level that does not exist (before is "
                    "empty); they stay missing (R: invalid factor level, NA generated).",
                    CoercionWarning, stacklevel=user_stacklevel())
            new_codes = new_codes.copy() if new_codes is codes else new_codes
            new_codes[na] = fill
    out = data.copy(deep=False)  # copy-on-write: the new column never reaches data
    dtype = pd.CategoricalDtype(pd.Index(uniq), ordered=s.cat.ordered)
    out[var] = pd.Categorical.from_codes(new_codes, dtype=dtype, validate=False)
    return out


# =============================================================================
# topBotCoding


@validate_params({
    "data": Frame(),
    "column": Columns(of="data", single=True),
    "value": Real(na=True),
    "replacement": Real(na=True),
    "kind": Options(("top", "bottom")),
})
def top_bot_coding(data, column, value, replacement, *, kind: str = "top") -> pd.DataFrame:
    """Top or bottom coding of a numeric variable, as sdcMicro's ``topBotCoding``.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    column : str
        The numeric column.
    value : float
        The limit: values above it (``kind="top"``) or below it (``"bottom"``) are replaced.
        Values equal to it stay. A missing ``value`` (None/NaN) changes nothing, as in R.
    replacement : float, int or None
        What replaces them (None: missing). An integer column stays integer when
        ``replacement`` is a Python int (R: an integer), and becomes float otherwise.
    kind : {"top", "bottom"}

    Returns
    -------
    DataFrame
        A copy of ``data`` with ``column`` coded; missing values stay missing.

    Raises
    ------
    InvalidParameterError
        A non-numeric column (sdcMicro: 'can only be applied to numeric variables').

    Notes
    -----
    sdcMicro bottom-codes for any ``kind`` other than ``"top"`` (``kind = "Top"`` too); pysdc
    accepts only the two documented values.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc import protect
    >>> df = pd.DataFrame({"age": [20, 85, 90]})
    >>> protect.top_bot_coding(df, "age", 80, 81)["age"].tolist()
    [20, 81, 81]
    """
    s = data[column]
    x = _numeric_column("top_bot_coding", data, column)
    out = data.copy(deep=False)  # copy-on-write: the new column never reaches data
    if value is None:  # R: x > NA is NA everywhere, nothing is replaced
        return out
    hit = (x > float(value)) if kind == "top" else (x < float(value))
    extension = isinstance(s.dtype, pd.api.extensions.ExtensionDtype)
    int_replacement = isinstance(replacement, (numbers.Integral, np.integer)) and not isinstance(replacement, bool)
    if s.dtype.kind in "iu" and (replacement is None or int_replacement):
        # R keeps an integer column integer for an integer (or NA) replacement
        col = s.copy()
        if replacement is None and hit.any() and not extension:
            col = col.astype(pd.Int64Dtype())
        col[hit] = pd.NA if replacement is None else replacement
        out[column] = col
        return out
    y = x.copy()
    y[hit] = np.nan if replacement is None else float(replacement)
    out[column] = pd.array(y, dtype="Float64") if extension else y
    return out
