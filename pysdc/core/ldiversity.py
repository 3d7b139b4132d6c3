"""l-diversity measures (sdcMicro 5.8.0's ``ldiversity``), vectorised.

Engine behind :func:`pysdc.ldiversity`; the public function, its validation
and its documentation live in :mod:`pysdc._risk`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, PysdcWarning, user_stacklevel
from .._types import r_class
from .freq import column_codes, dense_ids, dense_ok, group_keys, r_as_numeric, segmented_accumulate
from .keys import key_codes

__all__ = ["ldiversity_core", "integer_raw_keys", "SDC_MISSING_CODE"]

#: sdcMicro's ldiversity treats this value (its argument ``missing = -999``) as a missing code
SDC_MISSING_CODE = -999.0


def _raw_keys(codes, cards):
    """Mixed-radix key per record (no missing key values) and the key space
    size, or None when the key space is too large for dense tables."""
    n = len(codes[0])
    span = 1
    for card in cards:
        span *= max(int(card), 1)
    if not dense_ok(span, n):
        return None
    dtype = np.int32 if span < 2**31 else np.int64
    key = np.asarray(codes[0], dtype=dtype).copy()
    for code, card in zip(codes[1:], cards[1:]):
        key *= dtype(card)
        key += code
    return key, span


def integer_raw_keys(columns: list[np.ndarray]):
    """:func:`_raw_keys` straight from integer (or boolean) key columns without
    missing values, skipping the per-column code arrays; None when a column is
    not of a numpy integer/bool dtype or the key space is too large.

    The codes of a column are ``value - min`` (as ``series_codes`` makes them),
    so the key is the same mixed-radix number. It is accumulated with
    wrap-around integer arithmetic (Horner's scheme on the raw values, the
    offset of the minima subtracted at the end): intermediate values may wrap,
    the result is exact because it lies in [0, span)."""
    if not columns or columns[0].size == 0:
        return None
    n = columns[0].size
    vals, los, cards = [], [], []
    for col in columns:
        col = np.asarray(col)
        if col.dtype.kind == "b":
            col = col.view(np.uint8)
        if col.dtype.kind not in "iu":
            return None
        lo, hi = int(col.min()), int(col.max())
        vals.append(col)
        los.append(lo)
        cards.append(hi - lo + 1)
    span = 1
    for card in cards:
        span *= card
    if not dense_ok(span, n):
        return None
    small = span < 2**31 and all(-(2**31) < v < 2**31 for col, lo, card in zip(vals, los, cards)
                                 for v in (lo, lo + card - 1))
    dtype = np.int32 if small else np.int64
    key = vals[0].astype(dtype)  # a copy (wraps modulo 2**bits)
    offset = los[0]
    for col, lo, card in zip(vals[1:], los[1:], cards[1:]):
        key *= dtype(card)
        key += col.astype(dtype, copy=False)  # wraps modulo 2**bits, like the arithmetic
        offset = offset * card + lo
    # wrap the offset into the key's range the way the array arithmetic wrapped
    bits = np.dtype(dtype).itemsize * 8
    offset = (offset + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
    with np.errstate(over="ignore"):
        key -= dtype(offset)
    return key, span


def _complete_key_groups(codes, cards):
    """:func:`_key_groups` without missing key values, when the product of the
    cardinalities is moderate: mixed-radix keys, then dense ids in key order
    (the same ids as the general path). None when the key space is too large."""
    raw = _raw_keys(codes, cards)
    if raw is None:
        return None
    return _dense_groups(*raw)


def _dense_groups(key, span):
    """Dense group ids (in key order) of raw keys in [0, span)."""
    present = np.zeros(span, dtype=bool)
    present[key] = True
    ids = np.cumsum(present, dtype=np.int64)
    ids -= 1
    return ids[key], int(ids[-1]) + 1


def _key_groups(codes: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, int]:
    """Group id per record: equal complete keys share a group; a record with a
    missing key value is a group of its own (sdcMicro compares keys with ``!=``,
    and NA != NA)."""
    n = len(codes[0])
    if n and all(int(c.min()) >= 0 for c in codes):
        fast = _complete_key_groups(codes, cards)
        if fast is not None:
            return fast
    any_na = np.logical_or.reduce([c < 0 for c in codes])
    group = np.empty(n, dtype=np.int64)
    sel = codes if not any_na.any() else [c[~any_na] for c in codes]
    key, span = group_keys(sel, cards, range(len(codes)))
    g, G = dense_ids(key, span)
    group[~any_na] = g
    n_na = int(any_na.sum())
    group[any_na] = G + np.arange(n_na, dtype=np.int64)
    return group, G + n_na


def _category_codes(v: np.ndarray) -> np.ndarray:
    """Codes of sensitive values: equal values share a code, every NaN is a
    category of its own (sdcMicro looks categories up with ``==``)."""
    codes, card = column_codes(v)
    nan = codes < 0
    codes[nan] = card + np.arange(int(nan.sum()), dtype=np.int64)
    return codes


def _fused_keys(v, key, K, scratch, scratch2):
    """``category * K + key`` per record (int64) and the number of categories,
    for a sensitive variable without NaN whose values are integers of a
    moderate range (then its category codes are ``v - min(v)``, as
    :func:`_category_codes` makes them). Returns (None, 0) otherwise.

    ``scratch`` and ``scratch2`` are float64 work arrays of length n (rows of
    the output, written later), used to avoid fresh temporaries."""
    n = v.size
    lo = np.minimum.reduce(v)  # NaN if v has NaN
    hi = np.maximum.reduce(v)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None, 0
    span = int(hi - lo) + 1
    if not dense_ok(hi - lo, n, "codes") or not dense_ok(K * span, n):
        return None, 0
    np.subtract(v, lo, out=scratch)
    np.trunc(scratch, out=scratch2)
    if not np.array_equal(scratch, scratch2):
        return None, 0
    scratch *= K
    scratch += key  # exact: K * span < 2**53
    return scratch.astype(np.int64), span


def _group_ldiversity_dense(gobs, G, cat, span, miss_cnt, c, wobs=None):
    """:func:`_group_ldiversity` through a dense (group x category) count table,
    for a table of moderate size (no sort of records or pairs)."""
    freq = np.bincount(cat * G + gobs, weights=wobs, minlength=G * span)
    if wobs is not None:
        freq = freq.astype(np.int64)  # weights are record counts
    return _table_ldiversity(freq.reshape(span, G), miss_cnt, c)


def _sorting_network(n: int) -> list[tuple[int, int]]:
    """Comparators (i, j), i < j, of Batcher's odd-even merge sort for a
    power of two ``n``."""
    pairs = []
    p = 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k, n - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        pairs.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return pairs


def _sort_columns_desc(freq: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The columns ``cols`` of the (w, G) array ``freq``, each sorted in
    decreasing order (a (w, len(cols)) array)."""
    w = freq.shape[0]
    if w > 16:
        return -np.sort(-freq[:, cols].T, axis=1).T
    size = 1 << max(w - 1, 0).bit_length()
    if size > w:
        s = np.zeros((size, cols.size), dtype=freq.dtype)
        s[:w] = np.take(freq, cols, axis=1)
    else:
        s = np.take(freq, cols, axis=1)
    hi = np.empty(cols.size, dtype=freq.dtype)
    for i, j in _sorting_network(size):
        np.maximum(s[i], s[j], out=hi)
        np.minimum(s[i], s[j], out=s[j])
        s[i] = hi
    return s[:w]


def _table_ldiversity(freq, miss_cnt, c):
    """l-diversity per group from a (category x group) count table ``freq``
    (int64, span x G), with ``miss_cnt`` records of missing code per group.
    Groups without records are allowed (their values are meaningless)."""
    G = freq.shape[1]
    # the (category, group) pairs that occur; within a group they come in
    # category order, the order of the sums below
    flat = freq.ravel()
    pair = np.flatnonzero(flat != 0)  # (faster than on the int64 table itself)
    pair_group = pair % G
    fp = flat[pair].astype(np.float64)
    count = np.bincount(pair_group, minlength=G).astype(np.float64)
    size_obs = np.bincount(pair_group, weights=fp, minlength=G)
    size = size_obs + miss_cnt
    ratio = fp / size[pair_group]
    entropy = np.bincount(pair_group, weights=ratio * np.log(ratio), minlength=G)
    with_missing = (miss_cnt > 0) & (count > 0)
    mr = miss_cnt[with_missing] / size[with_missing]
    entropy[with_missing] += mr * np.log(mr)
    distinct = count + with_missing
    entropy_l = np.exp(-entropy)

    # recursive (c, l)-diversity, float32 arithmetic as sdcMicro's C++:
    # frequencies in decreasing order r_1 >= ... >= r_m; acc_0 = c * (r_2 + ... + r_m),
    # acc_j = acc_{j-1} - c * r_{j+1}; the value is the first j + 1 (j < m - 1)
    # with acc_j <= r_1, else m. Absent categories sort last and subtract 0.
    recursive = np.full(G, np.nan)
    multi = np.flatnonzero(count > 1)
    recursive[count == 1] = 1.0
    if multi.size:
        m = count[multi].astype(np.int64)
        width = int(m.max())
        fs = _sort_columns_desc(freq, multi)[:width]
        first = fs[0]
        tail = size_obs[multi] - first
        vals = c * fs.astype(np.float32)
        vals[0] = c * tail.astype(np.float32)
        acc = np.subtract.accumulate(vals, axis=0)
        stop = acc <= first.astype(np.float32)[None, :]
        stop &= np.arange(width)[:, None] < (m - 1)[None, :]
        hit = stop.any(axis=0)
        recursive[multi] = np.where(hit, np.argmax(stop, axis=0) + 1, m).astype(np.float64)
    return distinct, entropy_l, recursive, count == 0


def _group_ldiversity(group: np.ndarray, G: int, v: np.ndarray, c: np.float32, weights=None):
    """Distinct, entropy and recursive l-diversity of ``v`` within groups.

    ``weights`` (optional): how many records each entry stands for (a table of distinct
    combinations); an entry whose sensitive value is NaN must stand for one record.

    Returns (distinct, entropy, recursive, recursive_undefined) arrays of length G.
    """
    missing = v == SDC_MISSING_CODE
    miss_cnt = np.bincount(group[missing], weights=None if weights is None else weights[missing],
                           minlength=G).astype(np.float64)
    wobs = weights
    if missing.any():
        obs = ~missing
        cat = _category_codes(v[obs])
        gobs = group[obs]
        if weights is not None:
            wobs = weights[obs]
    else:
        cat = _category_codes(v)
        gobs = group
    span = int(cat.max()) + 1 if cat.size else 1
    if dense_ok(G * span, group.size):
        return _group_ldiversity_dense(gobs, G, cat, span, miss_cnt, c, wobs)
    size = np.bincount(group, weights=weights, minlength=G).astype(np.float64)
    pair, n_pairs = dense_ids(gobs * span + cat, G * span)
    freq = np.bincount(pair, weights=wobs, minlength=n_pairs).astype(np.float64)
    pair_group = np.empty(n_pairs, dtype=np.int64)
    pair_group[pair] = gobs
    count = np.bincount(pair_group, minlength=G).astype(np.float64)

    ratio = freq / size[pair_group]
    entropy = np.bincount(pair_group, weights=ratio * np.log(ratio), minlength=G)
    with_missing = (miss_cnt > 0) & (count > 0)
    mr = miss_cnt[with_missing] / size[with_missing]
    entropy[with_missing] += mr * np.log(mr)
    distinct = count + with_missing
    entropy_l = np.exp(-entropy)

    # recursive (c, l)-diversity, float32 arithmetic as sdcMicro's C++
    fmax = int(freq.max()) + 1 if freq.size else 1
    order = np.argsort(pair_group * fmax + (fmax - 1 - freq.astype(np.int64)))
    f_sorted = freq[order]
    g_sorted = pair_group[order]
    lengths = count[count > 0].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    first_f = f_sorted[starts]
    tail = np.bincount(g_sorted, weights=f_sorted, minlength=G)[count > 0] - first_f
    vals = (c * f_sorted.astype(np.float32)).astype(np.float32)
    vals[starts] = (c * tail.astype(np.float32)).astype(np.float32)
    acc = segmented_accumulate(vals, lengths, np.subtract)
    # the loop continues at j (1..m-1) while acc[start + j - 1] > f0
    pos_in = np.arange(f_sorted.size, dtype=np.int64) - np.repeat(starts, lengths)
    seg = np.repeat(np.arange(lengths.size), lengths)
    stop = (acc <= np.repeat(first_f, lengths).astype(np.float32)) & (pos_in < np.repeat(lengths, lengths) - 1)
    res = lengths.astype(np.float64).copy()
    first_stop = np.full(lengths.size, np.iinfo(np.int64).max)
    np.minimum.at(first_stop, seg[stop], pos_in[stop])
    has = first_stop < np.iinfo(np.int64).max
    res[has] = first_stop[has] + 1
    recursive = np.full(G, np.nan)
    recursive[count > 0] = res
    return distinct, entropy_l, recursive, count == 0


def ldiversity_core(codes, cards, sens_cols: list[np.ndarray], l_recurs_c: float, out=None, raw=None, n_keys=None,
                    weights=None):
    """Columns of sdcMicro's ldiversity matrix, in row order.

    ``codes`` (list of k arrays of length n) are the key codes (-1 for missing), ``cards`` their bounds.

    Returns (list of (distinct, entropy, recursive) per sensitive variable,
    multi_entropy, multi_recursive, n_undefined) where ``n_undefined`` counts
    records whose recursive value sdcMicro leaves undefined (NaN here).

    ``out``, if given, is a zero-filled float64 array of shape
    (3 * len(sens_cols) + 2, n) that receives the columns (distinct, entropy, recursive per sensitive
    variable, then multi entropy and multi recursive); the returned arrays
    are then views of its rows.

    ``raw``, if given, is :func:`integer_raw_keys` of complete integer key
    columns; ``codes`` and ``cards`` are then not needed (may be None, give
    ``n_keys``, the number of key variables).

    ``weights``, if given, says how many records each entry stands for: the entries are then
    distinct combinations of key and sensitive values (a group-by's result), with an entry of
    its own per record where a key value is missing or a sensitive value is NaN (each such
    record is a class or category of its own). ``n_undefined`` then counts records.
    """
    n = len(codes[0]) if raw is None else raw[0].size
    c = np.float32(l_recurs_c)
    if c == 0:
        c = np.float32(1.0)
    if n == 0:
        empty = np.zeros(0)
        return [(empty, empty, empty) for _ in sens_cols], empty, empty, 0
    n_sens = len(sens_cols)
    if out is None:
        out = np.zeros((3 * n_sens + 2, n))
    # complete keys with a moderate key space: tables indexed by the raw
    # mixed-radix key (empty rows are never looked up), no dense group ids
    if weights is not None:
        raw = None  # the fused record-level tables below count entries, not records
    elif raw is None and all(int(k.min()) >= 0 for k in codes):
        raw = _raw_keys(codes, cards)
    group = G = None
    per_var = []
    undefined = np.zeros(n, dtype=bool)
    for t, v in enumerate(sens_cols):
        res = None
        if raw is not None and not (v == SDC_MISSING_CODE).any():
            key, K = raw
            full, span = _fused_keys(v, key, K, out[3 * t], out[3 * t + 1])
            if full is not None:
                freq = np.bincount(full, minlength=K * span).reshape(span, K)
                d, e, r, _ = _table_ldiversity(freq, np.zeros(K), c)
                res, idx = (d, e, r), key  # no -999: every non-empty row is defined
        if res is None:
            if group is None:
                group, G = _key_groups(codes, cards) if codes is not None else _dense_groups(*raw)
            d, e, r, und = _group_ldiversity(group, G, v, c, weights)
            res, idx = (d, e, r), group
            if und.any():
                undefined |= und[group]
        for row, values in zip(out[3 * t: 3 * t + 3], res):
            np.take(values, idx, out=row)
        per_var.append(tuple(out[3 * t: 3 * t + 3]))

    n_keys = len(codes) if codes is not None else n_keys
    multi_e, multi_r = out[-2], out[-1]  # zero unless computed below
    # sdcMicro 5.8.0 flags sensitive variables by their column position in the
    # (keys, sensitive) matrix but loops over the first n_sens flags: only the
    # sensitive variables with index >= number of keys take part.
    active = [i for i in range(n_sens) if i >= n_keys]
    if n_sens >= 2 and active:
        if group is None:
            group, G = _key_groups(codes, cards) if codes is not None else _dense_groups(*raw)
        me = np.full(G, np.inf, dtype=np.float32)
        mr = np.full(G, np.inf)
        sens_codes = [_category_codes(v) for v in sens_cols]
        # NaN never equals anything: a record with NaN in another sensitive
        # variable is a subgroup of its own
        for i in active:
            others = [j for j in range(n_sens) if j != i]
            oc = np.vstack([group] + [sens_codes[j] for j in others])
            key, span = group_keys(oc, oc.max(axis=1) + 1, range(oc.shape[0]))
            sub, S = dense_ids(key, span)
            sub_group = np.empty(S, dtype=np.int64)
            sub_group[sub] = group
            _, e, r, und = _group_ldiversity(sub, S, sens_cols[i], c, weights)
            undefined |= und[sub]
            e32 = e.astype(np.float32)
            np.minimum.at(me, sub_group, e32)
            np.minimum.at(mr, sub_group, r)
        np.take(me.astype(np.float64), group, out=multi_e)
        np.take(mr, group, out=multi_r)
    n_undefined = int(undefined.sum()) if weights is None else int(np.sum(weights[undefined]))
    return per_var, multi_e, multi_r, n_undefined


# ---------------------------------------------------------------- the measure' columns, with sdcMicro's warnings

def _has_missing_code(s: pd.Series) -> bool:
    cls = r_class(s)
    if cls in ("numeric", "integer"):
        if isinstance(s.dtype, np.dtype):
            return bool((s.to_numpy() == SDC_MISSING_CODE).any())
        return bool((s == SDC_MISSING_CODE).any())
    if cls == "character":
        return bool((r_as_numeric(s)[0] == SDC_MISSING_CODE).any())
    return False


def ldiversity_block(data: pd.DataFrame, keys: list, sens: list, c: float, weights=None):
    """ldiversity's columns (a (3 * len(sens) + 2, rows) array) and their names, with sdcMicro's warnings.

    ``weights``: the rows are distinct combinations standing for that many records (see
    :func:`pysdc.core.ldiversity.ldiversity_core`); an engine's group-by gives them.
    """
    if c <= 0:
        warnings.warn(
            f"ldiversity: l_recurs_c={c:g}; recursive (c, l)-diversity needs a constant c > 0 (r_1 < c (r_l + "
            "... + r_m)), so its column is not meaningful. sdcMicro accepts it and returns the same numbers.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    key_series = [data[k] for k in keys]
    raw = None
    if weights is None and all(isinstance(k.dtype, np.dtype) and k.dtype.kind in "iub" for k in key_series):
        # complete integer keys: one mixed-radix key, no per-column code arrays
        raw = integer_raw_keys([k.to_numpy() for k in key_series])
    if raw is None:
        codes, cards = key_codes(data, keys, func="ldiversity", factorize_character=False)
    else:
        codes = cards = None
    sens_cols = []
    for s in sens:
        v, lost = r_as_numeric(data[s])
        if lost:
            warnings.warn(
                f"ldiversity: sensitive column {s!r} is character; sdcMicro converts it with R's as.numeric, "
                f"which turns {lost} non-numeric value(s) into NA, and every NA counts as a distinct value. "
                f"Convert it to a category first: data[{s!r}] = data[{s!r}].astype('category').",
                CoercionWarning,
                stacklevel=user_stacklevel(),
            )
        sens_cols.append(v)
    if any(_has_missing_code(data[k]) for k in keys):
        warnings.warn(
            "ldiversity: a key variable takes the value -999, sdcMicro's missing-value code in ldiversity; "
            "sdcMicro 5.8.0 then writes l-diversity values into the wrong records. pysdc treats -999 as an "
            "ordinary key value; recode it to NaN (a class of its own per record) to compare with sdcMicro.",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )
    block = np.zeros((3 * len(sens) + 2, len(data)))
    *_, n_undef = ldiversity_core(codes, cards, sens_cols, c, out=block, raw=raw, n_keys=len(keys), weights=weights)
    if n_undef:
        warnings.warn(
            f"ldiversity: {n_undef} record(s) belong to classes whose sensitive values are all -999 "
            "(sdcMicro's missing code); their recursive l-diversity is undefined (sdcMicro reports a value "
            "left over from another class) and is NaN here.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    names = []
    for s in sens:  # ldiversity_core wrote the columns into block
        names += [f"{s}_Distinct_Ldiversity", f"{s}_Entropy_Ldiversity", f"{s}_Recursive_Ldiversity"]
    names += ["MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity"]
    return block, names

