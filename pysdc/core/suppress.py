"""Local suppression to k-anonymity: the kernel of :func:`pysdc.protect.local_suppression`.

What sdcMicro 5.8.0's ``localSuppression`` does on one set of key variables (observed by running it
and pinned by ``r_reference/cases/localSuppression.json``):

1. *Reduction.* Records are grouped on their keys, a missing value a category of its own (no
   wildcard here); of a group with more than ``k`` records only the first ones are kept
   (``ceiling(count - k)`` of the last ones set aside untouched).
2. *Rounds.* On the kept records, the frequencies ``fk`` (missing values match every category, with
   weight ``alpha``) are computed; every record with ``fk < k`` is a problem. The problems are taken
   in decreasing individual risk (``1 / fk``; ties in record order), and each in turn: its distance to
   every record is the number of keys where both are observed and differ; among the records at the
   smallest positive distance, the first key (in decreasing importance, ties by position) where one
   of them differs from the problem is suppressed in the problem. Later problems of the same round
   see the earlier suppressions. Rounds repeat until no problem is left.

pysdc computes a round vectorised: the distance profile of every distinct problem combination to
every distinct combination (counts per distance level and per differing key), then the within-round
dependencies exactly -- a problem's choice can change only through an earlier problem of the round at
distance <= its smallest distance + 1 whose suppressed key is one where the two differ -- resolved in
generations (all problems whose candidates are resolved at once). No loop runs over records.

Where comparing every pair of combinations would cost more (many distinct combinations, few keys), the
profile comes from counts of the records agreeing outside each set of keys (one grouping per set, then a
Moebius inversion over the sets) and the pairs within a distance from groupings outside the sets of that
many keys; pairs at the smallest distance + 1 are kept only where they can change the choice (a
differing key before the first key whose support cannot vanish). Both paths give the same numbers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._errors import InvalidParameterError
from .freq import dense_ids, freq_core, group_keys

__all__ = ["default_importance", "column_order", "reduce_rows", "supp_subset", "round_choices", "PROFILE_CELLS"]

#: cells (problem combinations x combinations x keys) of one chunk of the distance profile
PROFILE_CELLS = 1 << 23


def default_importance(n_categories) -> np.ndarray:
    """sdcMicro's default importance: the rank of each key's number of categories (fewest: 1), ties by position."""
    n_categories = np.asarray(n_categories)
    order = np.argsort(n_categories, kind="stable")
    imp = np.empty(n_categories.size, dtype=np.int64)
    imp[order] = np.arange(1, n_categories.size + 1)
    return imp


def column_order(importance) -> np.ndarray:
    """The order in which keys are tried for suppression: decreasing importance, ties by position."""
    return np.argsort(-np.asarray(importance, dtype=np.float64), kind="stable")


def _combo_ids(mat: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, int]:
    key, span = group_keys([mat[:, j] for j in range(mat.shape[1])], cards, range(mat.shape[1]))
    return dense_ids(key, span)


def reduce_rows(codes: np.ndarray, cards: np.ndarray, k: float) -> np.ndarray:
    """Which records take part in the rounds (step 1): a boolean mask."""
    n = codes.shape[0]
    # a missing value is a category of its own here (sdcMicro's fill of missing keys evaluates
    # unique() within the missing records, so they stay missing)
    ids, m = _combo_ids(codes, cards)
    cnt = np.bincount(ids, minlength=m)
    order = np.argsort(ids, kind="stable")
    starts = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[ids[order]]
    drop = np.where(cnt > k, np.ceil(cnt - k), 0).astype(np.int64)
    return rank < (cnt - drop)[ids]


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Keys where both are observed and differ (broadcasting)."""
    return (a >= 0) & (b >= 0) & (a != b)


def _profiles(A: np.ndarray, U: np.ndarray, w: np.ndarray):
    """Per row of A: records per distance level (q, K+1) and per level and differing key (q, K+1, K)."""
    q, kk = A.shape
    c = U.shape[0]
    n_prof = np.zeros((q, kk + 1), dtype=np.int64)
    m_prof = np.zeros((q, kk + 1, kk), dtype=np.int64)
    # small integer types (codes compared, distances <= K); float32 sums of counts are exact below 2^24
    small = np.int16 if max(int(A.max(initial=0)), int(U.max(initial=0))) < 2**15 else np.int64
    A, U = A.astype(small), U.astype(small)
    levels = np.arange(kk + 1, dtype=np.uint8)
    ftype = np.float32 if w.sum() < 2**24 else np.float64
    wf = w.astype(ftype)
    step = max(1, PROFILE_CELLS // max(1, c * (kk + 1)))
    for s in range(0, q, step):
        blk = A[s:s + step]
        b = blk.shape[0]
        diffs = [_diff(blk[:, j, None], U[None, :, j]) for j in range(kk)]  # K arrays (b, C)
        d = np.zeros((b, c), dtype=np.uint8)
        for dj in diffs:
            d += dj
        onehot = (d[:, None, :] == levels[None, :, None]) * wf  # (b, K+1, C), weighted by the combination counts
        n_prof[s:s + b] = np.rint(onehot.sum(axis=2, dtype=np.float64)).astype(np.int64)
        for j, dj in enumerate(diffs):
            m_prof[s:s + b, :, j] = np.rint(np.matmul(onehot, dj.astype(ftype)[:, :, None])[:, :, 0]).astype(np.int64)
    return n_prof, m_prof


def _pattern(X: np.ndarray) -> np.ndarray:
    """Bit j set where key j is observed (the missing-value pattern of each row)."""
    return ((X >= 0).astype(np.int64) << np.arange(X.shape[1], dtype=np.int64)).sum(axis=1)


def _profiles_cost(A: np.ndarray, U: np.ndarray) -> tuple[float, float]:
    """Rough operation counts of the dense profile (every pair) and of the subset-matching one."""
    q, kk = A.shape
    c = U.shape[0]
    pa = _pattern(A)
    g = np.unique(_pattern(U)).size
    hs, qs = np.unique(pa, return_counts=True)
    bits = np.array([bin(int(h)).count("1") for h in hs])
    hashed = float(((2.0 ** bits) * (g * qs + c)).sum()) * 20
    return float(q) * c * (kk + 1), hashed


def _profiles_by_subsets(A: np.ndarray, U: np.ndarray, w: np.ndarray):
    """:func:`_profiles` without comparing every pair: counts of records agreeing on subsets of keys.

    For a set T of keys, ``M_T(a)`` is the number of records that agree with ``a`` on every key outside
    T where both are observed (missing values match everything): one grouping of the keys outside T.
    The records whose differing keys are exactly T are then ``N_T = sum over T' in T of (-1)^|T - T'|
    M_T'`` (Moebius inversion over the subsets), and the profile sums N_T over the sets of each size
    (and, per key, over the sets holding it). Exact integer counts; the cost grows with 2^K and the
    number of records, not with their product. ``M_T(a)`` only depends on T within a's observed keys,
    so each missing-value pattern of the problems runs over the subsets of its observed keys.
    """
    q, kk = A.shape
    nsub = 1 << kk
    pa = _pattern(A)
    pu = _pattern(U)
    wf = w.astype(np.float64)
    M = np.zeros((nsub, q), dtype=np.float64)
    t_all = np.arange(nsub, dtype=np.int64)
    for h in np.unique(pa).tolist():  # the problems' missing-value patterns (few)
        ia = np.flatnonzero(pa == h)
        Ah = A[ia]
        subs = [t for t in range(nsub) if t & ~h == 0]  # the subsets T' of h's observed keys
        table = np.empty((len(subs), ia.size))
        for si, t in enumerate(subs):
            r = h & ~t  # the keys compared: observed in a, outside T'
            pr = pu & r  # ... and observed in b
            tot = np.zeros(ia.size)
            for cset in np.unique(pr).tolist():  # the U patterns within r (few)
                ib = np.flatnonzero(pr == cset)
                cols = [j for j in range(kk) if cset >> j & 1]
                if not cols:
                    tot += wf[ib].sum()
                    continue
                both = np.concatenate([Ah[:, cols], U[ib][:, cols]])
                key, span = group_keys([both[:, i] for i in range(len(cols))],
                                       np.full(len(cols), int(both.max()) + 1), range(len(cols)))
                ids, m = dense_ids(key, span)
                sums = np.bincount(ids[ia.size:], weights=wf[ib], minlength=m)
                tot += sums[ids[:ia.size]]
            table[si] = tot
        where = np.full(nsub, -1, dtype=np.int64)
        where[np.array(subs)] = np.arange(len(subs))
        M[:, ia] = table[where[t_all & h]]
    # Moebius inversion over the subsets: N_T = sum over T' in T of (-1)^|T - T'| M_T'
    X = M.reshape((2,) * kk + (q,))
    for ax in range(kk):
        lo = (slice(None),) * ax + (0,)
        hi = (slice(None),) * ax + (1,)
        X[hi] -= X[lo]
    N = X.reshape(nsub, q)
    size = np.array([bin(t).count("1") for t in range(nsub)])
    member = ((t_all[:, None] >> np.arange(kk)) & 1).astype(np.float64)  # (2^K, K): key j in T
    onehot = (size[:, None] == np.arange(kk + 1)[None, :]).astype(np.float64)  # (2^K, K+1)
    n_prof = np.rint(N.T @ onehot).astype(np.int64)
    m_mat = (onehot[:, :, None] * member[:, None, :]).reshape(nsub, (kk + 1) * kk)
    m_prof = np.rint(N.T @ m_mat).astype(np.int64).reshape(q, kk + 1, kk)
    return n_prof, m_prof


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Number of keys where both are observed and differ, for every row of A against every row of B."""
    d = np.zeros((A.shape[0], B.shape[0]), dtype=np.uint8)
    for j in range(A.shape[1]):
        d += _diff(A[:, j, None], B[None, :, j])
    return d


def _first_level(n_prof: np.ndarray) -> np.ndarray:
    """The smallest positive distance level with records (K+1: none)."""
    pos = n_prof[:, 1:] > 0
    return np.where(pos.any(axis=1), pos.argmax(axis=1) + 1, n_prof.shape[1])


def _combo_pairs_dense(a: np.ndarray, Q: np.ndarray, bound_a: np.ndarray, exact: bool = False, need=None):
    """Combination pairs (position in ``a``, index into Q) at distance 1..bound (only at distance bound
    with ``exact``; only pairs differing in a key of ``need[position]`` when given), every pair compared;
    sorted by position, then index."""
    kk = Q.shape[1]
    out_a, out_b = [], []
    step = max(1, PROFILE_CELLS // max(1, Q.shape[0] * kk))
    for s in range(0, a.size, step):
        d = _distances(Q[a[s:s + step]], Q)
        hi = bound_a[s:s + step][:, None]
        ai, bi = np.nonzero((d == hi) if exact else ((d >= 1) & (d <= hi)))
        ai = ai + s
        if need is not None and ai.size:
            ok = (_diff(Q[a[ai]], Q[bi]) & need[ai]).any(axis=1)
            ai, bi = ai[ok], bi[ok]
        out_a.append(ai)
        out_b.append(bi)
    return np.concatenate(out_a), np.concatenate(out_b)


def _combo_pairs_by_subsets(a: np.ndarray, Q: np.ndarray, b_max: int, exact: bool = False, need=None):
    """:func:`_combo_pairs_dense` for one bound ``b_max`` < K without comparing every pair: a pair at
    distance <= b_max agrees, where both are observed, on the keys outside some set T of b_max keys,
    so the pairs are those of equal keys outside T (one grouping per T and missing-value pattern),
    merged over the sets T and stripped of the pairs at distance 0."""
    nq, kk = Q.shape
    pat = _pattern(Q)
    full = (1 << kk) - 1
    found = []
    for t in itertools.combinations(range(kk), b_max):
        r = full & ~sum(1 << j for j in t)
        tmask = np.zeros(kk, dtype=bool)
        tmask[list(t)] = True
        pr_a = pat[a] & r
        if need is not None:  # with exact, the differing keys are T itself: it must hold a needed key
            pr_a = np.where(need[:, list(t)].any(axis=1), pr_a, -1)
        pr_b = pat & r
        for ha in np.unique(pr_a).tolist():
            if ha < 0:
                continue
            ia = np.flatnonzero(pr_a == ha)
            prb = pr_b & ha
            for cset in np.unique(prb).tolist():
                ib = np.flatnonzero(prb == cset)
                cols = [j for j in range(kk) if cset >> j & 1]
                if cols:
                    both = np.concatenate([Q[a[ia]][:, cols], Q[ib][:, cols]])
                    key, span = group_keys([both[:, i] for i in range(len(cols))],
                                           np.full(len(cols), int(both.max()) + 1), range(len(cols)))
                    ids, m = dense_ids(key, span)
                    ida, idb = ids[:ia.size], ids[ia.size:]
                else:
                    m = 1
                    ida, idb = np.zeros(ia.size, dtype=np.int64), np.zeros(ib.size, dtype=np.int64)
                border = np.argsort(idb, kind="stable")
                cnt = np.bincount(idb, minlength=m)
                start = np.concatenate(([0], np.cumsum(cnt)[:-1]))
                na = cnt[ida]
                pa_ = np.repeat(ia, na)
                within = np.arange(na.sum()) - np.repeat(np.cumsum(na) - na, na)
                pb_ = ib[border[np.repeat(start[ida], na) + within]]
                # a pair whose differing keys D lie in several sets T is kept in one: D and the first
                # b_max - |D| keys outside D (so no pair is found twice)
                dif = _diff(Q[a[pa_]], Q[pb_])
                d = dif.sum(axis=1)
                rank = np.cumsum(~dif, axis=1)
                chosen = dif | (~dif & (rank <= (b_max - d)[:, None]))
                keep = ((d == b_max) if exact else (d >= 1)) & (chosen == tmask[None, :]).all(axis=1)
                found.append(pa_[keep] * nq + pb_[keep])
    code = np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    return code // nq, code % nq


def _pairs_by_subsets_cheaper(kk: int, b_max: int, n_patterns: int, na: int, nq: int) -> bool:
    """Whether the groupings over the sets of ``b_max`` keys cost less than comparing every pair."""
    return math.comb(kk, b_max) * n_patterns * (na + nq) * 40 < na * nq * kk


def _combo_pairs(a: np.ndarray, Q: np.ndarray, bound_a: np.ndarray, exact: bool = False, need=None):
    """Combination pairs (position in ``a``, index into Q) at distance 1..bound_a (see
    :func:`_combo_pairs_dense`), sorted."""
    nq, kk = Q.shape
    outs = []
    for b_max in np.unique(bound_a).tolist():
        sel = np.flatnonzero(bound_a == b_max)
        nd = None if need is None else need[sel]
        if b_max < kk and _pairs_by_subsets_cheaper(kk, b_max, np.unique(_pattern(Q)).size, sel.size, nq):
            pa_, pb_ = _combo_pairs_by_subsets(a[sel], Q, b_max, exact, nd)
        else:
            pa_, pb_ = _combo_pairs_dense(a[sel], Q, bound_a[sel], exact, nd)
        outs.append((sel[pa_], pb_))
    if not outs:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ca = np.concatenate([o[0] for o in outs])
    cb = np.concatenate([o[1] for o in outs])
    order = np.lexsort((cb, ca))
    return ca[order], cb[order]


def _row_pairs(pc: np.ndarray, members: list, Q: np.ndarray, bound: np.ndarray):
    """The row pairs of a round's problems, or of the problems whose candidates are widened: see
    :func:`_row_pairs_at`."""
    return _row_pairs_at(pc, members, Q, bound)


def _row_pairs_at(pc: np.ndarray, members: list, Q: np.ndarray, bound: np.ndarray, exact: bool = False,
                  need=None):
    """Row pairs (i, j), j earlier in the round than i, whose combinations are at distance 1..bound[i's combo]
    (only at distance bound[i's combo] with ``exact``; only differing in a key of ``need[i's combo]``).

    ``pc`` are the combinations (indices into Q) whose rows need pairs; ``members[a]`` the round
    positions of combination a's rows (ascending)."""
    if pc.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = np.array([len(m) for m in members])
    flat = np.concatenate(members)
    offs = np.concatenate([[0], np.cumsum(sizes)])
    pos, cb = _combo_pairs(pc, Q, bound[pc], exact, None if need is None else need[pc])
    ca = pc[pos]
    # cross product of the rows of ca and cb
    na, nb = sizes[ca], sizes[cb]
    tot = na * nb
    pair = np.repeat(np.arange(ca.size), tot)
    within = np.arange(tot.sum()) - np.repeat(np.cumsum(tot) - tot, tot)
    ri = flat[offs[ca][pair] + within // nb[pair]]
    rj = flat[offs[cb][pair] + within % nb[pair]]
    keep = rj < ri
    return ri[keep], rj[keep]


class NoCandidateError(InvalidParameterError):
    """sdcMicro stops: a problem record has no record at a positive distance."""


def round_choices(mat: np.ndarray, cards: np.ndarray, problems: np.ndarray, order: np.ndarray,
                  alpha: float) -> np.ndarray:
    """The key suppressed in each problem record of one round (rows ``problems`` of ``mat``, in order).

    ``order`` is the order in which keys are tried. Returns one key index per problem.
    """
    kk = mat.shape[1]
    ids, m = _combo_ids(mat, cards)
    w = np.bincount(ids, minlength=m)
    first = np.full(m, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(ids.size - 1, -1, -1)
    U = mat[first]
    pu = ids[problems]
    qcombos, qpos = np.unique(pu, return_inverse=True)
    Q = U[qcombos]
    dense_cost, subset_cost = _profiles_cost(Q, U)
    n_prof, m_prof = _profiles_by_subsets(Q, U, w) if subset_cost < dense_cost else _profiles(Q, U, w)
    start_min = _first_level(n_prof)
    P = problems.size
    A = mat[problems]
    rank_in_order = np.empty(kk, dtype=np.int64)
    rank_in_order[order] = np.arange(kk)

    members_order = np.argsort(qpos, kind="stable")
    counts = np.bincount(qpos, minlength=qcombos.size)
    members = np.split(members_order, np.cumsum(counts)[:-1])

    bound = np.minimum(start_min + 1, kk)  # per combination of Q
    wide = np.zeros(qcombos.size, dtype=bool)
    # Pairs at distance <= the smallest distance s first. A pair at distance s + 1 can only bring records to
    # level s, differing in its keys but one: it matters only when one of its differing keys comes before
    # the first key (in the order) whose support at level s exceeds the number of problems at distance s
    # (that key stays supported whatever the earlier problems suppress, and the level can only drop to
    # s - 1, where pairs at distance s + 1 play no part). Per combination, with its rows' largest count.
    all_q = np.arange(qcombos.size)
    level0 = np.minimum(start_min, kk)
    pi, pj = _row_pairs(all_q, members, Q, level0)
    n_at_s = np.zeros(P, dtype=np.int64)
    if pi.size:
        d0 = _diff(A[pi], A[pj]).sum(axis=1)
        n_at_s = np.bincount(pi[d0 == start_min[qpos[pi]]], minlength=P)
    n_at_q = np.zeros(qcombos.size, dtype=np.int64)
    np.maximum.at(n_at_q, qpos, n_at_s)
    sup = m_prof[all_q, level0][:, order] > n_at_q[:, None]  # (combinations, K) in the order keys are tried
    g_rank = np.where(sup.any(axis=1), sup.argmax(axis=1), kk)
    need = np.zeros((qcombos.size, kk), dtype=bool)
    need[:, order] = np.arange(kk)[None, :] < g_rank[:, None]
    more = np.flatnonzero((bound > level0) & need.any(axis=1))
    if more.size:
        ni, nj = _row_pairs_at(more, members, Q, bound, exact=True, need=need)
        pi, pj = np.concatenate([pi, ni]), np.concatenate([pj, nj])
    # A problem at smallest distance 1 whose first key in the order is supported by more records at
    # distance 1 than it has earlier problems at distance 1 keeps its choice whatever they do (a key
    # earlier in the order cannot appear; the level and its support cannot vanish): no dependency.
    if pi.size:
        qi = qpos[pi]
        d0 = _diff(A[pi], A[pj]).sum(axis=1)
        n_at_min = np.bincount(pi[d0 == start_min[qi]], minlength=P)
        first_support = m_prof[qpos, 1, order[0]]
        free = (start_min[qpos] == 1) & (first_support > n_at_min)
        keep = ~free[pi]
        pi, pj = pi[keep], pj[keep]

    choice = np.full(P, -1, dtype=np.int64)
    resolved = np.zeros(P, dtype=bool)
    # the pairs indexed by their later row (i) and by their earlier row (j), so that a generation touches
    # only its own pairs; pending[i] = pairs of i whose earlier row is not resolved yet
    by_i, off_i, by_j, off_j = _pair_index(pi, pj, P)
    pending = np.bincount(pi, minlength=P)
    while not resolved.all():
        ready = np.flatnonzero(~resolved & (pending == 0))
        if ready.size == 0:  # cannot happen: predecessors are always earlier in the round
            raise RuntimeError("local suppression: circular dependencies within a round")
        n_r = n_prof[qpos[ready]].copy()
        m_r = m_prof[qpos[ready]].copy()
        take = by_i[_ranges(off_i, ready)]
        ri = np.repeat(np.arange(ready.size), off_i[ready + 1] - off_i[ready])
        rj = pj[take]
        if ri.size:
            dif = _diff(A[pi[take]], A[rj])
            cj = choice[rj]
            hit = dif[np.arange(rj.size), cj]
            ri, dif, cj = ri[hit], dif[hit], cj[hit]
            d0 = dif.sum(axis=1)
            np.subtract.at(n_r, (ri, d0), 1)
            np.add.at(n_r, (ri, d0 - 1), 1)
            rr, cc = np.nonzero(dif)
            np.subtract.at(m_r, (ri[rr], d0[rr], cc), 1)
            keep = cc != cj[rr]
            np.add.at(m_r, (ri[rr][keep], d0[rr][keep] - 1, cc[keep]), 1)
        lvl = _first_level(n_r)
        exact = (lvl <= bound[qpos[ready]] - 1) | wide[qpos[ready]] | (bound[qpos[ready]] >= kk)
        if not exact.all():
            widen = np.unique(qpos[ready[~exact]])
            widen = widen[~wide[widen]]
            wide[widen] = True
            bound[widen] = kk
            ni, nj = _row_pairs(widen, members, Q, bound)
            old = np.isin(qpos[pi], widen)
            pi = np.concatenate([pi[~old], ni])
            pj = np.concatenate([pj[~old], nj])
            by_i, off_i, by_j, off_j = _pair_index(pi, pj, P)
            pending = np.bincount(pi[~resolved[pj]], minlength=P)
            ready = ready[exact]
            n_r, m_r, lvl = n_r[exact], m_r[exact], lvl[exact]
            if ready.size == 0:
                continue
        none = lvl > kk
        ch = np.full(ready.size, -1, dtype=np.int64)
        if (~none).any():
            rows = np.flatnonzero(~none)
            at = m_r[rows, lvl[rows]][:, order] > 0  # (r, K) in the order keys are tried
            ch[rows] = order[at.argmax(axis=1)]
        if none.any():
            if alpha >= 1:
                raise NoCandidateError(
                    "local_suppression: a record with fk < k has no record at a positive distance left "
                    "(sdcMicro stops here with 'Error the length of the index vector is 0.').")
            own = A[ready[none]][:, order] >= 0
            if not own.any(axis=1).all():
                raise NoCandidateError(
                    "local_suppression: a record with fk < k has every key missing and nothing left to "
                    "suppress (sdcMicro does not terminate here).")
            ch[none] = order[own.argmax(axis=1)]
        choice[ready] = ch
        resolved[ready] = True
        pending -= np.bincount(pi[by_j[_ranges(off_j, ready)]], minlength=P)
    return choice


def _pair_index(pi: np.ndarray, pj: np.ndarray, P: int):
    """The pairs sorted by pi and by pj, with the offsets of each row's run (CSR)."""
    by_i = np.argsort(pi, kind="stable")
    by_j = np.argsort(pj, kind="stable")
    off_i = np.concatenate(([0], np.cumsum(np.bincount(pi, minlength=P))))
    off_j = np.concatenate(([0], np.cumsum(np.bincount(pj, minlength=P))))
    return by_i, off_i, by_j, off_j


def _ranges(off: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The concatenated index ranges off[r]..off[r + 1] of the rows."""
    starts = off[rows]
    lens = off[rows + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total)


def supp_subset(codes: np.ndarray, cards: np.ndarray, k: float, importance, alpha: float) -> tuple[np.ndarray, int]:
    """Suppress key values until every kept record has ``fk >= k`` (one set of keys, one stratum).

    ``codes`` (n, K) int64 with -1 for a missing value; returns the new codes (a copy) and the number
    of rounds.
    """
    n = codes.shape[0]
    if n < k:
        raise InvalidParameterError(
            f"local_suppression: k = {k:g} is larger than the number of records ({n}) of a stratum "
            "(sdcMicro: 'k is larger or equal the group size (in at least one stratum).').")
    out = codes.copy()
    keep = np.flatnonzero(reduce_rows(codes, cards, k))
    mat = codes[keep].copy()
    order = column_order(importance)
    kk = mat.shape[1]
    rounds = 0
    while True:
        fk_c, _, _, inv = freq_core([mat[:, j] for j in range(kk)], cards, None, alpha)
        fk = fk_c[inv]
        prob = np.flatnonzero(fk < k)
        if prob.size == 0:
            break
        with np.errstate(divide="ignore"):
            rk = 1.0 / fk[prob]
        prob = prob[np.argsort(-rk, kind="stable")]
        ch = round_choices(mat, cards, prob, order, alpha)
        mat[prob, ch] = -1
        rounds += 1
    out[keep] = mat
    return out, rounds
