"""Kernels of sdcMicro's ``infoLoss`` (information loss of a table after targeted record swapping).

Everything here works on integer codes and counts; :func:`pysdc.loss.info_loss` turns the data into
them. The arithmetic is sdcMicro 5.8.0's as observed in R 4.2.2: the cells of every margin are
stacked and joined on all table variables (a margin's absent variables are missing values, so they
meet the data's own missing values, pair for pair, as R's ``merge(all = TRUE)`` does), R's
``quantile`` (type 7), R's ``mean`` (long double), R's ``cut(include.lowest = TRUE)`` labels.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError

__all__ = ["METRICS", "cell_counts", "metric_values", "r_quantile7", "r_mean", "quantile_names", "distribution",
           "r_as_character", "overview", "cumulative_counts", "cumulative_labels"]

#: sdcMicro's built-in metrics, in its order
METRICS = ("absD", "relabsD", "abssqrtD")


def _unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an int64 code matrix (-1 = missing), in lexicographic order, and how often each
    occurs (the rows packed into one integer per row where they fit, else compared row-wise)."""
    n, k = keys.shape
    if n == 0:
        return keys, np.zeros(0, dtype=np.int64)
    radix = keys.max(axis=0) + 2  # codes -1 .. max -> 0 .. max + 1
    if float(np.prod(radix.astype(np.float64))) < 2.0**62:
        packed = np.zeros(n, dtype=np.int64)
        for j in range(k):  # columns, not records
            packed *= radix[j]
            packed += keys[:, j] + 1
        total = int(np.prod(radix.astype(np.float64)))
        if total <= max(2**22, 2 * n):  # dense: count by position
            counts = np.bincount(packed, minlength=total)
            uniq = np.flatnonzero(counts)
            counts = counts[uniq]
        else:
            uniq, counts = np.unique(packed, return_counts=True)
        out = np.empty((uniq.size, k), dtype=np.int64)
        rest = uniq.copy()
        for j in range(k - 1, -1, -1):
            out[:, j] = rest % radix[j] - 1
            rest //= radix[j]
        return out, counts.astype(np.int64)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    return uniq, counts.astype(np.int64)


def cell_counts(codes_o: np.ndarray, codes_s: np.ndarray, cells: str = "all") -> pd.DataFrame:
    """The joined cell table: one row per cell, codes of the k table variables (-1: missing or margin),
    ``count_o``, ``count_s`` (0 where a side lacks the cell), sorted by the codes (missing first).

    ``cells``: ``"all"`` -- the cells of every non-empty subset of the variables, in R's ``combn``
    order; ``"one-way"`` -- those of each variable alone (what sdcMicro 5.8.0 computes with
    ``only_inner_cells = TRUE``); ``"inner"`` -- those of all variables together. A cell occurring more
    than once on a side (a margin meeting the data's own missing values) is joined with every match on
    the other side.
    """
    k = codes_o.shape[1]
    if cells == "inner":
        subsets = [tuple(range(k))]
    elif cells == "one-way":
        subsets = [(j,) for j in range(k)]
    else:
        subsets = [c for r in range(1, k + 1) for c in itertools.combinations(range(k), r)]
    sides = []
    for codes in (codes_o, codes_s):
        keys, counts = [], []
        for sub in subsets:  # 2^k - 1 subsets at most; each counted vectorised
            u, c = _unique_counts(codes[:, list(sub)])
            full = np.full((u.shape[0], k), -1, dtype=np.int64)
            full[:, list(sub)] = u
            keys.append(full)
            counts.append(c)
        sides.append((np.concatenate(keys), np.concatenate(counts)))
    names = [f"v{j}" for j in range(k)]
    left = pd.DataFrame(sides[0][0], columns=names).assign(count_o=sides[0][1])
    right = pd.DataFrame(sides[1][0], columns=names).assign(count_s=sides[1][1])
    tab = left.merge(right, how="outer", on=names, sort=False)
    tab["count_o"] = tab["count_o"].fillna(0).astype(np.int64)
    tab["count_s"] = tab["count_s"].fillna(0).astype(np.int64)
    order = np.lexsort([tab[n].to_numpy() for n in reversed(names)])
    return tab.iloc[order].reset_index(drop=True)


def metric_values(name: str, o: np.ndarray, s: np.ndarray) -> np.ndarray:
    """sdcMicro's metric ``name`` of each cell: ``absD`` = |o - s| (integer), ``relabsD`` = |o - s| / o with
    a division by zero (a cell empty in the original) giving 0, ``abssqrtD`` = |sqrt(o) - sqrt(s)|."""
    if name == "absD":
        return np.abs(o - s)
    if name == "relabsD":
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.abs(o - s) / o.astype(np.float64)
        v[np.isinf(v)] = 0.0
        return v
    if name == "abssqrtD":
        return np.abs(np.sqrt(o.astype(np.float64)) - np.sqrt(s.astype(np.float64)))
    raise InvalidParameterError(f"unknown metric {name!r}; sdcMicro's are {list(METRICS)}.")


def r_quantile7(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(x, probs)`` (type 7, no missing values): ``index = 1 + (n - 1) * p``, the value at
    ``floor(index)`` moved towards the next by ``(1 - h) * lo + h * hi`` where they differ."""
    xs = np.sort(np.asarray(x, dtype=np.float64))
    n = xs.size
    p = np.asarray(probs, dtype=np.float64)
    if n == 0:
        return np.full(p.size, np.nan)
    index = 1.0 + max(n - 1, 0) * p
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = xs[lo - 1].copy()
    xhi = xs[hi - 1]
    move = (index > lo) & (xhi != qs)
    h = (index - lo)[move]
    qs[move] = (1 - h) * qs[move] + h * xhi[move]
    return qs


def r_mean(x: np.ndarray) -> float:
    """R's ``mean``: integers summed in long double and divided once; doubles summed in long double,
    divided, and corrected by the mean residual (both sums in record order)."""
    n = x.size
    if n == 0:
        return float("nan")
    ld = np.longdouble
    if np.issubdtype(x.dtype, np.integer):
        return float(ld(int(x.sum())) / ld(n))
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.cumsum(x.astype(ld))[-1] / ld(n)
        if np.isfinite(m):
            m = m + np.cumsum(x.astype(ld) - m)[-1] / ld(n)
    return float(m)


def quantile_names(probs: np.ndarray) -> list[str]:
    """R's names of ``quantile(x, probs)``: ``formatC(100 * probs, format = "fg", digits = 7)`` and ``%``."""
    out = []
    for p in np.asarray(probs, dtype=np.float64) * 100:
        out.append(np.format_float_positional(p, precision=7, unique=False, fractional=False, trim="-") + "%")
    return out


def distribution(x: np.ndarray, probs: np.ndarray) -> tuple[list[str], np.ndarray]:
    """sdcMicro's summary of a metric: the quantiles at ``probs`` (``0%``, ``50%``, ``100%`` named ``Min``,
    ``Median``, ``Max``) with ``Mean`` inserted after the last probability below 0.5."""
    probs = np.asarray(probs, dtype=np.float64)
    if np.isnan(np.asarray(x, dtype=np.float64)).any():
        raise InvalidParameterError(
            "a metric gave a missing value (NaN) for some cell; sdcMicro's quantile() stops there "
            "(missing values and NaN's not allowed).")
    below = np.flatnonzero(probs < 0.5)
    if below.size == 0:
        raise InvalidParameterError(
            f"probs must hold a value below 0.5 (sdcMicro places the mean after the last one); got {probs.tolist()}.")
    names = ["Min" if s == "0%" else "Median" if s == "50%" else "Max" if s == "100%" else s
             for s in quantile_names(probs)]
    q = r_quantile7(x, probs)
    pos = int(below[-1]) + 1
    names = names[:pos] + ["Mean"] + names[pos:]
    dup = [s for s in dict.fromkeys(names) if names.count(s) > 1]
    if dup:
        raise InvalidParameterError(
            f"probs give the row name(s) {dup} twice (sdcMicro's factor() stops: duplicated level); "
            "pass distinct probabilities.")
    values = np.concatenate([q[:pos], [r_mean(np.asarray(x))], q[pos:]])
    return names, values


def r_as_character(v: float) -> str:
    """R's ``as.character`` of a double: 15 significant digits, fixed unless scientific is shorter."""
    if v == 0:
        return "0"
    if not np.isfinite(v):
        return "NaN" if np.isnan(v) else ("Inf" if v > 0 else "-Inf")
    mant, exp = f"{v:.14e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    e = int(exp)
    sci = f"{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    digits = len(mant.replace("-", "").replace(".", ""))
    fixed = f"{v:.{max(digits - 1 - e, 0)}f}"
    return fixed if len(fixed) <= len(sci) else sci


def overview(count_o: np.ndarray, count_s: np.ndarray) -> pd.DataFrame:
    """sdcMicro's ``overview``: each distinct ``noise = count_o - count_s``, its number of cells and share."""
    noise = count_o - count_s
    vals, cnt = np.unique(noise, return_counts=True)
    return pd.DataFrame({"noise": vals.astype(np.int64), "cnt": cnt.astype(np.int64),
                         "pct": cnt / float(noise.size) if noise.size else cnt.astype(np.float64)})


def cumulative_labels(labels: list[str]) -> list[str]:
    """The cumulative interval names sdcMicro makes of ``cut``'s labels: every interval's opening
    (up to its last comma) replaced by the first label's (up to its first comma), ``(0.02,0.05]`` ->
    ``[0,0.05]``."""
    if not labels:
        return []
    first = labels[0]
    head = first[: first.index(",") + 1] if "," in first else first
    out = [first]
    for lab in labels[1:]:
        i, j = lab.find("("), lab.rfind(",")
        out.append(lab[:i] + head + lab[j + 1:] if i >= 0 and j > i else lab)
    return out


def cumulative_counts(x: np.ndarray, *, codes: np.ndarray | None, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative cell counts of ``x`` over the intervals (``codes``: 0-based interval, -1 outside) or,
    without intervals, over its distinct values (returned sorted). Returns (distinct values or None, cumsum)."""
    if codes is not None:
        cnt = np.bincount(codes[codes >= 0], minlength=n_levels)
        return None, np.cumsum(cnt).astype(np.int64)
    vals, cnt = np.unique(x, return_counts=True)
    return vals, np.cumsum(cnt).astype(np.int64)
