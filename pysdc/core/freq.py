"""Sample and population frequencies with missing key values as wildcards.

Vectorised engine behind :func:`pysdc.freq_calc` and :func:`pysdc.measure_risk`.

Design: records are reduced to distinct key combinations ("combos", with the
missing positions part of the combination). Every combo has a missingness
*pattern* (which keys are missing). All wildcard matching is done pattern by
pattern: for a pair of patterns, two combos are compatible exactly when they
agree on the keys observed in *both*, so one group-by on those keys (integer
codes, hashed) joins all compatible combos of the two patterns at once. The
number of Python-level iterations is bounded by the number of distinct
patterns (squared), never by the number of records or combos.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._types import r_class

__all__ = [
    "r_round", "r_as_numeric", "series_codes", "column_codes", "group_keys", "dense_ids", "freq_core", "segmented_accumulate",
    "dense_ok", "DENSE_PER_RECORD", "DENSE_CODES_MIN", "DENSE_TABLE_MIN", "SCAN_MAX_CELLS",
]

# ----------------------------------------------------------- size thresholds
# Dense (table-based) paths are taken while their table has at most
# max(DENSE_PER_RECORD * n, minimum) entries: memory stays O(n) and indexing a table beats
# hashing. Tests lower these to force every path (tests/core/test_fast_paths.py).

#: table entries allowed per record before a dense path gives way to hashing
DENSE_PER_RECORD = 4
#: minimum table size for coding one integer-valued column arithmetically (value - min)
DENSE_CODES_MIN = 1 << 16
#: combined keys stay below this, so a mixed-radix key of codes never overflows int64
_MAX_SPAN = 2**62
#: minimum table size for dense ids / counts over a combined key space (a few MB at most)
DENSE_TABLE_MIN = 1 << 20
#: segmented scans pad segments into blocks of at most this many cells (bounded temporary memory)
SCAN_MAX_CELLS = 1 << 22


def dense_ok(size: int, n: int, kind: str = "table") -> bool:
    """Whether a dense table of ``size`` entries is allowed for ``n`` records.

    ``kind`` is ``"codes"`` (one column's value range) or ``"table"`` (a combined key
    space); the thresholds are read at call time, so tests can lower them.
    """
    minimum = DENSE_CODES_MIN if kind == "codes" else DENSE_TABLE_MIN
    return size <= max(DENSE_PER_RECORD * n, minimum)


# ------------------------------------------------------------------ coercion

def r_as_numeric(s: pd.Series) -> tuple[np.ndarray, int]:
    """What R's ``as.numeric`` makes of a column, and how many values it lost.

    Returns ``(values, n_lost)`` where ``n_lost`` counts non-missing values
    that became ``NA`` (only possible for character columns: R parses strings
    that look like numbers, e.g. ``"3"`` or ``" 1e5 "``, and turns every other
    string into ``NA``). Factors (pandas Categorical) become their 1-based
    codes, logicals 0/1, datetimes seconds since the epoch.
    """
    cls = r_class(s)
    if cls in ("factor", "ordered"):
        codes = s.cat.codes.to_numpy().astype(np.float64)
        codes[codes < 0] = np.nan
        return codes + 1.0, 0
    if cls == "character":
        na = s.isna().to_numpy()
        out = np.full(len(s), np.nan)
        if (~na).any():
            strs = s[~na].astype(str).str.strip()
            out[~na] = pd.to_numeric(strs, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        lost = int(np.count_nonzero(~na & np.isnan(out)))
        return out, lost
    if cls == "POSIXct":
        v = s.to_numpy(dtype="datetime64[ns]").astype("int64").astype(np.float64) / 1e9
        v[s.isna().to_numpy()] = np.nan
        return v, 0
    return np.array(s.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64), 0


def column_codes(col: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes of one float column (-1 for NaN) and an exclusive upper bound.

    Integer-valued columns with a moderate range (the usual coding of
    categorical keys) are coded arithmetically, without hashing.
    """
    col = np.asarray(col, dtype=np.float64)
    n = col.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    lo = np.fmin.reduce(col)
    hi = np.fmax.reduce(col)
    if np.isnan(lo):
        return np.full(n, -1, dtype=np.int64), 0
    if np.isfinite(lo) and np.isfinite(hi) and dense_ok(hi - lo, n, "codes"):
        shifted = col - lo
        with np.errstate(invalid="ignore"):
            codes = shifted.astype(np.int64)
        nan = np.isnan(col)
        if np.array_equal(codes[~nan], shifted[~nan]) if nan.any() else np.array_equal(codes, shifted):
            if nan.any():
                codes[nan] = -1
            return codes, int(hi - lo) + 1
    c, uniq = pd.factorize(col, use_na_sentinel=True)
    return c.astype(np.int64), len(uniq)


def series_codes(s: pd.Series, *, character: str = "numeric") -> tuple[np.ndarray, int, int]:
    """Codes of a key column as sdcMicro sees it after ``as.numeric``.

    Returns ``(codes, card, n_lost)``. Categorical, integer and boolean
    columns are coded without a float round trip. ``character="numeric"``
    parses strings like R's as.numeric (``n_lost`` counts strings that became
    NA); ``character="factor"`` treats them as categories (R's as.factor).
    """
    cls = r_class(s)
    if cls in ("factor", "ordered"):
        return s.cat.codes.to_numpy().astype(np.int64), len(s.cat.categories), 0
    if cls == "character" and character == "factor":
        codes, uniq = pd.factorize(s, use_na_sentinel=True)
        return codes.astype(np.int64), len(uniq), 0
    if cls in ("integer", "logical") and not s.hasnans:
        v = s.to_numpy()
        if v.dtype.kind in "iub" and v.size:
            if v.dtype.kind == "b":
                v = v.view(np.uint8)
            lo = int(v.min())
            hi = int(v.max())
            if dense_ok(hi - lo, v.size, "codes"):
                return np.subtract(v, lo, dtype=np.int64), hi - lo + 1, 0
    values, lost = r_as_numeric(s)
    codes, card = column_codes(values)
    return codes, card, lost


def dense_ids(key: np.ndarray, span: int | None = None) -> tuple[np.ndarray, int]:
    """Dense ids 0..m-1 of the distinct values of an int64 key array."""
    if key.size == 0:
        return key.astype(np.int64), 0
    if span is None:
        lo = int(key.min())
        hi = int(key.max())
        if lo >= 0 and dense_ok(hi, key.size):
            span = hi + 1
    if span is not None and dense_ok(span, key.size):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        ids = np.cumsum(present) - 1
        return ids[key].astype(np.int64), int(present.sum())
    inv, uniq = pd.factorize(key)
    return inv.astype(np.int64), len(uniq)


def group_keys(codes, cards: np.ndarray, cols) -> tuple[np.ndarray, int | None]:
    """One int64 key per record identifying its values on the key columns ``cols``.

    ``codes`` is a (k, m) array or a list of k code arrays (-1 = missing).
    Mixed-radix encoding (missing = its own digit); when the key space would
    overflow int64 the partial key is re-densified with a hash factorisation.
    Returns the keys and the size of the key space (None if re-densified).
    """
    cols = list(cols)
    m = len(codes[0]) if len(codes) else 0
    key = np.zeros(m, dtype=np.int64)
    span = 1
    exact_span = True
    for t, j in enumerate(cols):
        base = int(cards[j]) + 1
        if span * base >= _MAX_SPAN:
            key = pd.factorize(key)[0].astype(np.int64)
            span = int(key.max()) + 1 if m else 1
            exact_span = False
        if t:
            key *= base
        key += codes[j]
        key += 1
        span *= base
    return key, (span if exact_span else None)


# ------------------------------------------------------------------- engine

def _first_index(inv: np.ndarray, m: int) -> np.ndarray:
    first = np.empty(m, dtype=np.int64)
    first[inv[::-1]] = np.arange(len(inv) - 1, -1, -1, dtype=np.int64)
    return first


def freq_core(codes: np.ndarray, cards: np.ndarray, w: np.ndarray | None, alpha: float, *,
              counts: np.ndarray | None = None):
    """sdcMicro's freqCalc rules on integer key codes.

    Parameters
    ----------
    codes : list of k int64 arrays of length n (or a (k, n) array), -1 for missing.
    cards : (k,) exclusive upper bounds of the codes per key.
    w : (n,) float weights or None (all weights 1).
    alpha : weight of wildcard matches between records with missing keys.
    counts : (n,) numbers of records, optional
        Rows are then rows of a combination table (an engine's group-by, :mod:`pysdc.engine`):
        row ``i`` stands for ``counts[i]`` records and ``w[i]`` is their weight sum (None: the
        counts). Rows with equal codes are merged, so the table may hold raw values that code
        alike (``"3"`` and ``"3.0"`` under R's as.numeric).

    Returns
    -------
    fk_c, Fk_c : float arrays per distinct key combination ("combo").
    cnt : number of records per combo.
    inv : (n,) combo id of every record (so ``fk = fk_c[inv]``), or of every row with ``counts``.
    """
    k = len(codes)
    n = len(codes[0])
    if n == 0:
        z = np.zeros(0)
        return z, z, z, np.zeros(0, dtype=np.int64)
    full, span = group_keys(codes, cards, range(k))
    inv, m = dense_ids(full, span)
    if counts is not None:
        counts = np.asarray(counts, dtype=np.float64)
        n = float(counts.sum())
    cnt = np.bincount(inv, weights=counts, minlength=m).astype(np.float64)
    wsum = cnt.copy() if w is None else np.bincount(inv, weights=w, minlength=m)
    if all(int(c.min()) >= 0 for c in codes):  # no missing key value: no wildcards to resolve
        return cnt, wsum, cnt, inv
    first = _first_index(inv, m)
    ccodes = np.stack([c[first] for c in codes])
    miss = ccodes < 0
    if not miss.any():
        return cnt, wsum, cnt, inv

    w_total = float(n) if w is None else float(np.sum(w))
    fk_c = cnt.copy()
    Fk_c = wsum.copy()
    pattern = (miss.astype(np.int64) << np.arange(k, dtype=np.int64)[:, None]).sum(axis=0)
    all_missing = pattern == (1 << k) - 1

    if k == 1:
        # one key: every complete record is compatible with every missing one
        na = miss[0]
        fk_c[~na] = cnt[~na] + cnt[na].sum() * alpha
        Fk_c[~na] = wsum[~na] + wsum[na].sum() * alpha
        fk_c[na] = float(n)
        Fk_c[na] = wsum.sum()
        return fk_c, Fk_c, cnt, inv

    complete = np.flatnonzero(pattern == 0)
    # distinct patterns with missing values, in sdcMicro's processing order
    # (lexicographic on the 'observed' flags, first key most significant);
    # the order only matters for the rounding of fractional (alpha < 1) sums
    pats = np.unique(pattern[pattern != 0])
    observed_flags = ~((pats[:, None] >> np.arange(k)) & 1).astype(bool)
    pats = pats[np.lexsort(observed_flags.T[::-1])]
    members = {int(p): np.flatnonzero(pattern == p) for p in pats}
    observed = {int(p): [j for j in range(k) if not (p >> j) & 1] for p in pats}

    add_f = np.zeros(m)  # wildcard additions for complete combos (sequential, like sdcMicro)
    add_F = np.zeros(m)
    comp_f = np.zeros(m)  # full counts of compatible complete combos, for combos with missing keys
    comp_F = np.zeros(m)
    na_f = np.zeros(m)  # counts of compatible combos with missing keys (to be scaled by alpha)
    na_F = np.zeros(m)

    ccomp = ccodes[:, complete]
    for p in pats:
        p = int(p)
        idx = members[p]
        obs = observed[p]
        if not obs or complete.size == 0:
            continue  # all-missing combos never match complete ones in sdcMicro
        # each complete combo matches at most one combo of pattern p
        kp, _ = group_keys(ccodes[:, idx], cards, obs)
        kc, _ = group_keys(ccomp, cards, obs)
        hit = pd.Index(kp).get_indexer(kc)
        ok = hit >= 0
        if not ok.any():
            continue
        tgt = complete[ok]
        src = idx[hit[ok]]
        add_f[tgt] = add_f[tgt] + cnt[src] * alpha
        add_F[tgt] = add_F[tgt] + wsum[src] * alpha
        comp_f[idx] += np.bincount(hit[ok], weights=cnt[tgt], minlength=idx.size)
        comp_F[idx] += np.bincount(hit[ok], weights=wsum[tgt], minlength=idx.size)

    for p in pats:
        p = int(p)
        if p == (1 << k) - 1:
            continue  # overridden below
        idx_p = members[p]
        obs_p = set(observed[p])
        for q in pats:
            q = int(q)
            if q == p:
                continue  # same pattern: only the combo itself is compatible
            idx_q = members[q]
            common = [j for j in range(k) if j in obs_p and j in observed[q]]
            if not common:
                na_f[idx_p] += cnt[idx_q].sum()
                na_F[idx_p] += wsum[idx_q].sum()
                continue
            keys, _ = group_keys(np.concatenate([ccodes[:, idx_p], ccodes[:, idx_q]], axis=1), cards, common)
            g, uniq = pd.factorize(keys)
            gp, gq = g[: idx_p.size], g[idx_p.size:]
            sf = np.bincount(gq, weights=cnt[idx_q], minlength=len(uniq))
            sF = np.bincount(gq, weights=wsum[idx_q], minlength=len(uniq))
            na_f[idx_p] += sf[gp]
            na_F[idx_p] += sF[gp]

    partial = (pattern != 0) & ~all_missing
    fk_c[complete] = cnt[complete] + add_f[complete]
    Fk_c[complete] = wsum[complete] + add_F[complete]
    fk_c[partial] = cnt[partial] + (na_f[partial] * alpha + comp_f[partial])
    Fk_c[partial] = wsum[partial] + (na_F[partial] * alpha + comp_F[partial])
    fk_c[all_missing] = float(n)
    Fk_c[all_missing] = w_total
    return fk_c, Fk_c, cnt, inv


# --------------------------------------------------------- segmented scans

def segmented_accumulate(values: np.ndarray, lengths: np.ndarray, ufunc, *, max_cells: int | None = None):
    """Sequential ``ufunc.accumulate`` within consecutive segments, vectorised.

    ``values`` is the concatenation of segments of the given ``lengths``
    (all >= 1). Returns an array of the same shape holding, for every
    position, the running result from the start of its segment, computed
    strictly left to right (bitwise the same as a scalar loop). Segments are
    bucketed by length (powers of two) and padded into 2-d blocks, so the
    work is at most twice the total length and Python iterates only over
    buckets and memory-bounded chunks.
    """
    max_cells = SCAN_MAX_CELLS if max_cells is None else max_cells
    values = np.asarray(values)
    lengths = np.asarray(lengths, dtype=np.int64)
    out = np.empty_like(values)
    if values.size == 0:
        return out
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    identity = ufunc.identity if ufunc.identity is not None else 0
    for b in np.unique(bucket):
        sel = np.flatnonzero(bucket == b)
        width = 1 << int(b)
        rows_per_chunk = max(1, max_cells // width)
        for c0 in range(0, sel.size, rows_per_chunk):
            s = sel[c0: c0 + rows_per_chunk]
            ln = lengths[s]
            col = np.arange(width, dtype=np.int64)
            valid = col[None, :] < ln[:, None]
            pos = starts[s][:, None] + col[None, :]
            block = np.full((s.size, width), identity, dtype=values.dtype)
            block[valid] = values[pos[valid]]
            acc = ufunc.accumulate(block, axis=1)
            out[pos[valid]] = acc[valid]
    return out


def r_round(k: float) -> float:
    """R's ``round(k)``: to the nearest integer, halves to even (``round(2.5) == 2``); k of k-anonymity."""
    return float(np.rint(k)) if math.isfinite(k) else k
