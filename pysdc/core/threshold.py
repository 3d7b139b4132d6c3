"""Global risk threshold search and household (hierarchical) risk, vectorised.

Both follow sdcMicro 5.8.0's C++ routines (``measure_threshold`` and
``measure_hierachical``, after Pascal Heus' mu-Argus Stata plugins) as
observed by running them; see :func:`pysdc.measure_risk` for the semantics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .freq import column_codes

__all__ = ["threshold_search", "global_threshold", "global_threshold_grouped", "global_threshold_chunks",
           "household_risk"]


def _seq_sum(x: np.ndarray) -> float:
    """Left-to-right floating-point sum (as a C loop), not numpy's pairwise sum."""
    return float(np.cumsum(x)[-1]) if x.size else 0.0


def threshold_search(risk_sorted: np.ndarray, max_global_risk: float) -> tuple[float, float, float]:
    """sdcMicro's threshold search on risks sorted decreasingly (NaN last).

    Returns ``(threshold, threshold_safe, threshold_unsafe)`` exactly as the
    C++ routine computes them, with the same floating-point operations in the
    same order.

    The search: ``target = max_global_risk * n``. If the total risk is already
    below ``target``, all three are the largest risk. Otherwise walk down the
    sorted risks; at every position ``j`` where the risk value changes,
    test ``remaining + r[j] * j < target`` where ``remaining`` is the total
    minus the risks before ``j`` (records before ``j`` would be capped at
    ``r[j]``). The first such ``r[j]`` is the threshold (safe), the previous
    distinct value the unsafe threshold. If no position passes, the threshold
    (and safe) is 0 and the unsafe threshold the last distinct value met.
    """
    r = np.asarray(risk_sorted, dtype=np.float64)
    n = r.size
    target = max_global_risk * n
    total = _seq_sum(r)
    first = r[0] if n else 0.0
    if total < target:
        return first, first, first
    if n == 0:
        return 0.0, 0.0, 0.0
    prev = np.concatenate([[first], r[:-1]])
    # a "change" is where the C loop sees risk != current_risk; current_risk
    # always equals the previous element (or r[0] at j = 0), NaN != anything
    change = ~(r == prev)
    # running remainder before position j: total - r[0] - ... - r[j-1], in order
    remaining = np.cumsum(np.concatenate([[total], -r]))[:-1]
    cand = change & (remaining + r * np.arange(n, dtype=np.float64) < target)
    hit = np.flatnonzero(cand)
    if hit.size:
        j = int(hit[0])
        last_change = np.flatnonzero(change[:j])
        unsafe = r[last_change[-1]] if last_change.size else first
        return float(r[j]), float(r[j]), float(unsafe)
    changes = np.flatnonzero(change)
    unsafe = r[changes[-1]] if changes.size else first
    return 0.0, 0.0, float(unsafe)


def global_threshold(risk: np.ndarray, max_global_risk: float, counts: np.ndarray | None = None) -> float:
    """sdcMicro's ``global_threshold`` of measure_risk (NaN where it gives NA).

    ``risk`` may be given per distinct value with ``counts`` (its number of
    records); the sorted sequence the search walks is the same.
    """
    r = np.asarray(risk, dtype=np.float64)
    nan = np.isnan(r)
    # equal risks are interchangeable in the sorted sequence, so an unstable (faster) sort is exact
    order = np.concatenate([np.flatnonzero(~nan)[np.argsort(-r[~nan], kind="quicksort")], np.flatnonzero(nan)])
    r_sorted = r[order] if counts is None else np.repeat(r[order], np.asarray(counts, dtype=np.int64)[order])
    thr, safe, unsafe = threshold_search(r_sorted, max_global_risk)
    if np.isnan(thr) or np.isnan(safe) or np.isnan(unsafe):
        return float("nan")
    if unsafe == thr and safe == thr:
        return float("nan")
    return float(thr)


def _repeated_chunks(values: np.ndarray, counts: np.ndarray, max_len: int):
    """``np.repeat(values, counts)`` in consecutive pieces of at most ``max_len`` (bounded memory)."""
    i, m = 0, values.size
    while i < m:
        c = int(counts[i])
        if c >= max_len:  # one value repeated more often than a piece holds
            for start in range(0, c, max_len):
                yield np.full(min(max_len, c - start), values[i])
            i += 1
            continue
        ends = np.cumsum(counts[i:])
        j = i + max(1, int(np.searchsorted(ends, max_len, side="right")))
        j = min(j, m)
        if int(counts[j - 1]) >= max_len and j - 1 > i:
            j -= 1
        yield np.repeat(values[i:j], counts[i:j].astype(np.int64))
        i = j


def global_threshold_grouped(risk: np.ndarray, counts: np.ndarray, max_global_risk: float,
                             *, max_len: int = 1 << 22) -> float:
    """:func:`global_threshold` from risks with record counts, in memory bounded by the distinct values.

    The same walk as :func:`threshold_search` over the risks sorted decreasingly, each repeated as
    often as it has records, with the same floating-point operations in the same order (the running
    sums are accumulated left to right over the repeated values, in pieces of at most ``max_len``
    values), so the threshold is bitwise that of ``global_threshold(risk, mgr, counts=counts)``;
    only the distinct values and their counts are held (an engine's combination table), never one
    value per record.
    """
    r = np.asarray(risk, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    keep = c > 0
    r, c = r[keep], c[keep]
    if np.isnan(r).any() or r.size == 0:
        return float("nan")  # NaN propagates through the sums (see global_threshold); no records: NA
    values, inv = np.unique(-r, return_inverse=True)  # distinct risks, decreasing
    values = -values
    cnt = np.bincount(inv.reshape(-1), weights=c, minlength=values.size).astype(np.int64)
    n = int(cnt.sum())
    target = max_global_risk * n
    total = None
    for piece in _repeated_chunks(values, cnt, max_len):  # sequential sum, as _seq_sum
        total = float(np.cumsum(piece)[-1]) if total is None else float(np.cumsum(np.concatenate([[total], piece]))[-1])
    first = float(values[0])
    if total < target:
        return float("nan")  # threshold, safe and unsafe all equal the largest risk
    # remaining before each distinct value's first record: total - r[0] - ... - r[j-1], in order
    starts = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    remaining = np.empty(values.size)
    acc, pos, t = total, 0, 0
    for piece in _repeated_chunks(values, cnt, max_len):
        run = np.cumsum(np.concatenate([[acc], -piece]))  # run[i]: remaining before piece[i]
        end = int(np.searchsorted(starts, pos + piece.size, side="left"))  # the values starting in this piece
        remaining[t:end] = run[starts[t:end] - pos]
        t = end
        acc = float(run[-1])
        pos += piece.size
    cand = remaining + values * starts.astype(np.float64) < target
    cand[0] = False  # the walk's first position is no change
    hit = np.flatnonzero(cand)
    if hit.size:
        k = int(hit[0])
        thr, unsafe = float(values[k]), float(values[k - 1]) if k > 1 else first
    else:
        thr, unsafe = 0.0, float(values[-1])
    if unsafe == thr:
        return float("nan")
    return thr


def household_risk(codes: np.ndarray, risk: np.ndarray, span: int | None = None) -> np.ndarray:
    """``1 - prod(1 - r)`` within each household, per record (row order).

    ``codes`` holds non-negative integer household codes, -1 for a missing id
    (below ``span`` if given); every record with a missing id forms a
    household of its own.
    """
    n = risk.size
    if n == 0:
        return np.zeros(0)
    codes = np.asarray(codes, dtype=np.int64)
    na = codes < 0
    if na.any():
        codes = codes.copy()
        top = (int(codes.max()) + 1) if span is None else span
        codes[na] = top + np.arange(int(na.sum()), dtype=np.int64)
        span = None if span is None else top + int(na.sum())
    if n > 1 and bool(np.all(codes[1:] >= codes[:-1])):
        # records already grouped by household (the usual layout of survey files): no sort
        brk = np.empty(n, dtype=bool)
        brk[0] = True
        np.not_equal(codes[1:], codes[:-1], out=brk[1:])
        prod = np.multiply.reduceat(1.0 - risk, np.flatnonzero(brk))
        return 1.0 - prod[np.cumsum(brk) - 1]
    if span is not None and span < 65536:
        order = np.argsort(codes.astype(np.uint16), kind="stable")  # radix sort
    else:
        order = np.argsort(codes, kind="stable")
    sc = codes[order]
    brk = np.concatenate([[True], sc[1:] != sc[:-1]])
    prod = np.multiply.reduceat(1.0 - risk[order], np.flatnonzero(brk))
    out = np.empty(n)
    out[order] = 1.0 - prod[np.cumsum(brk) - 1]
    return out


def household_codes(values: pd.Series) -> tuple[np.ndarray, int | None]:
    """Integer household codes by equality of the id values; -1 for missing.

    Returns the codes and an exclusive upper bound (None if unknown).
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy().astype(np.int64)
        return codes, len(values.cat.categories)
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_complex_dtype(values.dtype):
        v = np.array(values.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
        return column_codes(v)
    codes, uniq = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.int64), len(uniq)


def global_threshold_chunks(chunks, max_global_risk: float, *, max_len: int = 1 << 22) -> float:
    """:func:`global_threshold_grouped` from distinct risks read in pieces, in memory bounded by a piece.

    ``chunks`` is a callable returning a fresh iterator over ``(values, counts)`` pairs of arrays: the
    distinct risks in decreasing order (none NaN, each once over all pieces) with their numbers of
    records (> 0). It is called twice (the total, then the walk), as an engine reads its table twice.
    The floating-point operations and their order are those of :func:`global_threshold_grouped`, so
    the threshold is bitwise the same; the caller returns NaN itself where a risk is NaN.
    """
    n = 0
    total = None
    first = None
    for values, cnt in chunks():
        values = np.asarray(values, dtype=np.float64)
        cnt = np.asarray(cnt, dtype=np.float64).astype(np.int64)
        if values.size == 0:
            continue
        if first is None:
            first = float(values[0])
        n += int(cnt.sum())
        for piece in _repeated_chunks(values, cnt, max_len):  # sequential sum, as _seq_sum
            total = float(np.cumsum(piece)[-1]) if total is None else float(np.cumsum(np.concatenate([[total], piece]))[-1])
    if first is None:
        return float("nan")
    target = max_global_risk * n
    if total < target:
        return float("nan")
    acc, pos = total, 0  # remaining before the next record, records before it
    prev = None  # the distinct value before the one tested
    for values, cnt in chunks():
        values = np.asarray(values, dtype=np.float64)
        cnt = np.asarray(cnt, dtype=np.float64).astype(np.int64)
        if values.size == 0:
            continue
        starts = pos + np.concatenate([[0], np.cumsum(cnt)[:-1]])  # each value's first record, overall
        remaining = np.empty(values.size)
        t, at = 0, pos
        for piece in _repeated_chunks(values, cnt, max_len):
            run = np.cumsum(np.concatenate([[acc], -piece]))
            end = int(np.searchsorted(starts, at + piece.size, side="left"))
            remaining[t:end] = run[starts[t:end] - at]
            t = end
            acc = float(run[-1])
            at += piece.size
        cand = remaining + values * starts.astype(np.float64) < target
        if pos == 0:
            cand[0] = False  # the walk's first position is no change
        hit = np.flatnonzero(cand)
        if hit.size:
            k = int(hit[0])
            thr = float(values[k])
            unsafe = float(values[k - 1]) if k > 0 else (prev if prev is not None else first)
            return float("nan") if unsafe == thr else thr
        prev = float(values[-1])
        pos = at
    thr, unsafe = 0.0, prev
    if unsafe == thr:
        return float("nan")
    return thr
