"""SUDA2 special-uniques scores (sdcMicro 5.8.0's ``suda2``), vectorised.

Engine behind :func:`pysdc.risk._suda2.suda2`: an integer code matrix in, arrays out.

What is computed (observed in sdcMicro 5.8.0 and checked against it on the stored corpus):

* A *minimal sample unique* (MSU) of a record is a set ``S`` of key variables on which the
  record is unique while it is not unique on any proper subset of ``S``. A record's
  variables holding the missing code never take part in its MSUs (sdcMicro drops such
  (variable, value) items); for counting how many records share a pattern, the missing
  code is an ordinary value (it matches only itself).
* MSUs of every size ``k = 1 .. p`` are counted (``p`` = number of columns, sdcMicro's
  maximum MSU size is the number of variables). The score of a record is
  ``sum_k count_k * w_k`` with ``w_k = (p - k)!`` (``original_scores=True``) or
  ``w_k = (2**(p-k) - 1) * k! * (p-k)! / p!`` (the IHSN variant), both formed in
  x87 extended precision as sdcMicro's C++ does.
* Per-record variable contributions: each MSU of size ``k`` adds ``w_k`` to each of its
  variables, divided by the score at the end -- with sdcMicro's treatment of *aliases*:
  a (variable, value) item whose set of records equals that of an item of an earlier
  variable is an alias of it. For MSUs of size >= 3 the contribution of an alias goes to
  the variable of the item it aliases; a 2-variable MSU made of two aliases contributes
  nothing. The scores are not affected.
* DIS-SUDA: ``dis = 1 / (1 + X / (score**Q * A))`` for records with a score, 0 otherwise,
  where ``Q = 1 + (8 - p) / 20`` (single precision), ``A`` is the sum over all records
  (in row order) of ``score**-Q``, and ``X = U / D - U`` in single precision with
  ``D = U f / (U f + P (1 - f))``, ``f`` the DIS fraction in single precision (0 means
  0.5), ``P`` twice the number of key combinations held by exactly two records, and
  ``U`` the number of records alone in their bucket of sdcMicro's 16-bit hash of the
  key values -- not the number of sample uniques (sdcMicro's test for a unique inside a
  shared bucket can never succeed). On large files no record is alone in its bucket,
  ``U = 0`` and every nonzero DIS score is NaN, as in sdcMicro.

The work is done on distinct key combinations and on subsets of the key variables
(``2**p - 1`` group counts, level by level); no loop runs over records.
"""

from __future__ import annotations

import numpy as np

__all__ = ["suda2_core", "score_weights", "hash16", "Suda2Core", "row_order", "DENSE_COUNT_MAX"]

#: largest subset key space counted with a dense table (bincount); larger ones are sorted
DENSE_COUNT_MAX = 1 << 22
#: the contingency table of all keys with its margins is used while it has at most
#: max(CUBE_PER_RECORD * n, CUBE_MIN) cells in all (int32 each)
CUBE_PER_RECORD = 16
CUBE_MIN = 1 << 22



class Suda2Core:
    """The kernel's outputs, per distinct key combination.

    Only combinations held by exactly one record can score; the per-combination arrays
    cover those (``candidates``), every other record scores 0.

    Attributes
    ----------
    combo : numpy.ndarray (n,)
        Id of each record's key combination.
    candidates : numpy.ndarray (m1,)
        Ids of the combinations held by one record.
    rows : numpy.ndarray (m1,)
        The record (0-based row) holding each candidate combination.
    score, dis_score : numpy.ndarray (m1,)
        SUDA and DIS-SUDA score of each candidate.
    contribution : numpy.ndarray (m1, p)
        Share of each variable in the score (0 where the score is 0).
    msu_counts : numpy.ndarray (m1, p)
        Number of MSUs of size 1 .. p.
    n_unique_hash, n_pair_records : int
        sdcMicro's ``U`` and ``P`` of the DIS measure.
    """

    __slots__ = ("combo", "candidates", "rows", "score", "dis_score", "contribution", "msu_counts",
                 "n_unique_hash", "n_pair_records")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    def per_record(self, name: str) -> np.ndarray:
        """A per-candidate array spread over all records (0 for the others), in row order."""
        a = getattr(self, name)
        out = np.zeros((self.combo.size,) + a.shape[1:], dtype=a.dtype)
        out[self.rows] = a
        return out


def score_weights(p: int, original_scores: bool = True) -> np.ndarray:
    """Score weight of an MSU of size ``k = 1 .. p`` (index ``k - 1``), as sdcMicro forms it.

    ``(p - k)!`` for ``original_scores``; otherwise ``(2**(p-k) - 1) k! (p-k)! / p!``.
    Products and the quotient are taken in long double (x87 extended precision on
    x86-64, as in sdcMicro's C++), then rounded to double.
    """
    ld = np.longdouble
    out = np.empty(p, dtype=np.float64)
    if original_scores:
        for i in range(p):
            r = ld(1.0)
            for j in range(i + 1, p):
                r = r * ld(p - j)
            out[i] = np.float64(r)
        return out
    fact_p = ld(1.0)
    for i in range(p):
        fact_p = fact_p * ld(i + 1)
    for i in range(p):
        n = p - (i + 1)
        a = ld(float(2.0**n) - 1.0)
        fact_k = ld(1.0)
        for j in range(2, i + 2):
            fact_k = fact_k * ld(j)
        fact_bis = ld(1.0)
        for j in range(2, n + 1):
            fact_bis = fact_bis * ld(j)
        b = fact_k * fact_bis / fact_p
        out[i] = np.float64(a * b)
    return out


def hash16(values: np.ndarray) -> np.ndarray:
    """sdcMicro's 16-bit record hash (rotate-left-and-add over the int key values)."""
    values = np.asarray(values, dtype=np.int64)
    h = np.zeros(values.shape[0], dtype=np.int64)
    for j in range(values.shape[1]):
        carry = h >> 15
        h = (((h << 1) & 0xFFFF) + (values[:, j] & 0xFFFF) + carry) & 0xFFFF
    return h


def _dense_codes(col: np.ndarray) -> tuple[np.ndarray, int]:
    """0-based codes of an int64 column and their number (sorted order of the values)."""
    if col.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    lo, hi = int(col.min()), int(col.max())
    if hi - lo < max(4 * col.size, 1 << 16):
        present = np.zeros(hi - lo + 1, dtype=bool)
        present[col - lo] = True
        remap = np.cumsum(present) - 1
        return remap[col - lo].astype(np.int64), int(present.sum())
    uniq, inv = np.unique(col, return_inverse=True)
    return inv.astype(np.int64).ravel(), len(uniq)


def _group(cols: list[np.ndarray], cards: list[int]) -> tuple[np.ndarray, int]:
    """Dense ids (0..g-1) of the combinations of several code columns, and g."""
    m = cols[0].size
    key = np.zeros(m, dtype=np.int64)
    span = 1
    for c, card in zip(cols, cards):
        card = max(int(card), 1)
        if span * card >= 2**62:  # re-densify before the mixed-radix key could overflow
            key, span = _densify(key, span)
        key = key * card + c
        span *= card
    return _densify(key, span)


def _densify(key: np.ndarray, span: int) -> tuple[np.ndarray, int]:
    if span <= max(4 * key.size, 1 << 20):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        remap = np.cumsum(present) - 1
        return remap[key], int(present.sum())
    uniq, inv = np.unique(key, return_inverse=True)
    return inv.ravel(), len(uniq)


def _subset_counts(key: np.ndarray, span: int, weights: np.ndarray) -> np.ndarray:
    """Number of records sharing each combo's projection (key), from combo weights."""
    if span <= max(DENSE_COUNT_MAX, 2 * key.size):
        table = np.bincount(key, weights=weights, minlength=span)
        return table[key]
    uniq, inv = np.unique(key, return_inverse=True)
    table = np.bincount(inv.ravel(), weights=weights, minlength=len(uniq))
    return table[inv.ravel()]


def suda2_core(
    values: np.ndarray,
    missing: int,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
) -> Suda2Core:
    """SUDA2 scores of an integer key matrix, as sdcMicro 5.8.0's C++ computes them.

    Parameters
    ----------
    values : numpy.ndarray of int, shape (n, p), or a list of p int arrays of length n
        The key values as sdcMicro's C++ holds them (32-bit ints; missing values already
        replaced by ``missing``), dummy columns included. ``p >= 3`` for sdcMicro's results.
    missing : int
        The missing-value code: items with this value never form part of an MSU.
    dis_fraction : float
        Sampling fraction of the DIS measure (taken in single precision; 0 means 0.5).
    original_scores : bool
        Elliot et al.'s weights ``(p - k)!`` (True) or the IHSN ones (False).

    Returns
    -------
    Suda2Core
        Scores, DIS scores, contributions and MSU counts of the records that can score
        (those whose combination is held by no other record), with their rows;
        :meth:`Suda2Core.per_record` spreads them over all records.
    """
    if isinstance(values, (list, tuple)):
        columns = [np.asarray(c) for c in values]
    else:
        values = np.asarray(values)
        columns = [values[:, j] for j in range(values.shape[1])]
    p = len(columns)
    n = columns[0].size
    w = score_weights(p, original_scores)

    # ---- distinct key combinations (any record of a combo represents it)
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(p):
        col = np.asarray(columns[j], dtype=np.int64)
        lo, hi = (int(col.min()), int(col.max())) if n else (0, 0)
        if hi - lo < max(4 * n, 1 << 16):  # value - min as code: no remapping needed here
            c, card = col - lo, hi - lo + 1
        else:
            c, card = _dense_codes(col)
        del col
        if span * card >= 2**62:  # re-densify before the mixed-radix key could overflow
            key, span = _densify(key, span)
        key *= card
        key += c
        span *= card
        del c
    combo, m = _densify(key, span)
    del key
    cnt = np.bincount(combo, minlength=m).astype(np.int64)
    rep = np.empty(m, dtype=np.int64)
    rep[combo] = np.arange(n, dtype=np.int64)
    V = np.stack([np.asarray(c[rep], dtype=np.int64) for c in columns], axis=1)
    del columns
    C = np.empty((m, p), dtype=np.int64)
    cards = []
    for j in range(p):
        C[:, j], card = _dense_codes(V[:, j])
        cards.append(card)
    nonmiss = V != missing
    cntf = cnt.astype(np.float64)

    # ---- DIS ingredients: 16-bit hash buckets and pairs of identical records
    buckets = np.bincount(hash16(V), weights=cntf, minlength=1 << 16)
    n_unique_hash = int(np.count_nonzero(buckets == 1))
    n_pair_records = 2 * int(np.count_nonzero(cnt == 2))

    # ---- items: frequency of each combo's value per variable; aliases
    freq = np.empty((p, m), dtype=np.int64)  # variable-major: contiguous per variable
    Ct = np.ascontiguousarray(C.T)
    for j in range(p):
        freq[j] = np.bincount(Ct[j], weights=cntf, minlength=cards[j])[Ct[j]].astype(np.int64)
    valid = (freq >= 2) & (freq != n) & np.ascontiguousarray(nonmiss.T)
    base = np.tile(np.arange(p, dtype=np.int64)[:, None], (1, m))
    for v in range(1, p):
        for u in range(v - 1, -1, -1):  # the smallest matching u wins
            same = valid[u] & valid[v] & (freq[u] == freq[v])
            if not same.any():
                continue
            ids, g = _group([Ct[u], Ct[v]], [cards[u], cards[v]])
            joint = np.bincount(ids, weights=cntf, minlength=g)[ids].astype(np.int64)
            same &= joint == freq[v]
            base[v, same] = u
    alias = base != np.arange(p)[:, None]
    del freq, valid, Ct

    # ---- MSUs on the combos held by one record only
    cand = np.flatnonzero(cnt == 1)
    m1 = cand.size
    # variable-major (p, m1) arrays: every per-variable update runs over contiguous memory
    msu_counts = np.zeros((p, m1), dtype=np.int64)
    contrib = np.zeros((p, m1), dtype=np.float64)
    nm1 = np.ascontiguousarray(nonmiss[cand].T)
    alias1 = alias[:, cand]
    base1 = base[:, cand]
    any_alias = bool(alias1.any())

    # Counting records per subset projection. Dense path: the full contingency table of the
    # keys and all its margins (sum over subsets of prod(cards) = prod(cards + 1) cells);
    # otherwise one group-by per subset over the combos.
    cube_cells = 1
    for c in cards:
        cube_cells *= max(c, 1) + 1
    margins = _margins(C, cnt, cards) if m1 and cube_cells <= max(CUBE_PER_RECORD * n, CUBE_MIN) else None
    C1 = np.ascontiguousarray(C[cand].T) if margins is not None else None

    prev: dict[int, np.ndarray] = {}  # subset bitmask -> unique-on-subset mask (candidates)
    keys_prev: dict[int, tuple[np.ndarray, int]] = {}
    for k in range(1, p + 1):
        cur: dict[int, np.ndarray] = {}
        keys_cur: dict[int, tuple[np.ndarray, int]] = {}
        for mask in _subsets_of_size(p, k):
            top = mask.bit_length() - 1
            rest = mask & ~(1 << top)
            if m1 == 0:
                continue
            if margins is not None:
                idx = keys_prev[rest][0] * cards[top] + C1[top] if rest else C1[top]
                if k < p:
                    keys_cur[mask] = (idx, 0)
                uniq = margins[mask][idx] == 1
            else:
                if rest:
                    kr, sr = keys_prev[rest]
                    key, span = _group([kr, C[:, top]], [sr, cards[top]])
                else:
                    key, span = C[:, top], cards[top]
                if k < p:
                    keys_cur[mask] = (key, span)
                uniq = _subset_counts(key, span, cntf)[cand] == 1
            cur[mask] = uniq
            msu = uniq.copy()
            vars_ = [v for v in range(p) if mask >> v & 1]
            for v in vars_:
                msu &= nm1[v]
                if k > 1:
                    msu &= ~prev[mask & ~(1 << v)]
            if not msu.any():
                continue
            msu_counts[k - 1] += msu
            if k == 2 and any_alias:
                a, b = vars_
                msu_ok = msu & ~(alias1[a] & alias1[b])
                for v in vars_:
                    contrib[v] += msu_ok * w[1]
            elif k >= 3 and any_alias:
                for v in vars_:
                    redirected = msu & alias1[v]
                    contrib[v] += (msu & ~redirected) * w[k - 1]
                    if redirected.any():
                        rows = np.flatnonzero(redirected)
                        np.add.at(contrib, (base1[v, rows], rows), w[k - 1])
            else:
                add = msu * w[k - 1]
                for v in vars_:
                    contrib[v] += add
        prev, keys_prev = cur, keys_cur
    del prev, keys_prev, C, V

    # ---- scores (sdcMicro sums count_k * w_k in the order of k)
    score1 = np.zeros(m1, dtype=np.float64)
    for k in range(p):
        score1 = score1 + msu_counts[k] * w[k]
    with np.errstate(invalid="ignore", divide="ignore"):
        share1 = np.where(score1 != 0, contrib / np.where(score1 == 0, 1.0, score1), 0.0).T
    msu_counts = msu_counts.T

    # ---- DIS-SUDA (single-precision pieces as in sdcMicro)
    f32 = np.float32
    f = f32(dis_fraction)
    if f == 0:
        f = f32(0.5)
    u32 = f32(n_unique_hash)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        dis_d = (u32 * f) / (u32 * f + f32(n_pair_records) * (f32(1.0) - f))
        x = np.float64(f32(u32 / dis_d) - u32)
        q = np.float64(f32(1.0) + (f32(8.0) - f32(p)) / f32(20.0))
        scored = score1 != 0
        powq = np.where(scored, np.power(score1, q), 1.0)
        term = np.where(scored, 1.0 / powq, 0.0)
        # sdcMicro adds the terms in row order; each candidate combo is one record
        rows1 = rep[cand]
        order = row_order(rows1, n)
        adj = float(np.cumsum(term[order])[-1]) if m1 else 0.0
        dis1 = np.where(scored, 1.0 / (1.0 + x / (powq * adj)), 0.0)

    return Suda2Core(
        combo=combo,
        candidates=cand,
        rows=rows1,
        score=score1,
        dis_score=dis1,
        contribution=share1,
        msu_counts=msu_counts,
        n_unique_hash=n_unique_hash,
        n_pair_records=n_pair_records,
    )


def _margins(C: np.ndarray, cnt: np.ndarray, cards: list[int]) -> dict[int, np.ndarray]:
    """Record counts of every subset's cells, flat in C order over the subset's variables in
    increasing order: the full table of the combos, then margins by summing out one variable
    (the one with the fewest values) of a table one level up."""
    p = C.shape[1]
    shape = tuple(max(int(c), 1) for c in cards)
    full = np.zeros(shape, dtype=np.int32)
    full.ravel()[np.ravel_multi_index(tuple(C.T), shape)] = cnt  # the combos are distinct cells
    tables = {(1 << p) - 1: full}
    for k in range(p - 1, 0, -1):
        for mask in _subsets_of_size(p, k):
            extra = min((v for v in range(p) if not mask >> v & 1), key=lambda v: shape[v])
            axis = sum(1 for v in range(extra) if mask >> v & 1)
            tables[mask] = tables[mask | (1 << extra)].sum(axis=axis, dtype=np.int32)
    return {mask: t.ravel() for mask, t in tables.items()}


def row_order(rows: np.ndarray, n: int) -> np.ndarray:
    """argsort of distinct row numbers in [0, n), in O(n) without sorting."""
    pos = np.full(n, -1, dtype=np.int64)
    pos[rows] = np.arange(rows.size, dtype=np.int64)
    pos = pos[pos >= 0]
    return pos


def _subsets_of_size(p: int, k: int):
    """Bitmasks of the k-subsets of range(p), in increasing order."""
    from itertools import combinations

    for combo in combinations(range(p), k):
        mask = 0
        for v in combo:
            mask |= 1 << v
        yield mask
