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
"""

from __future__ import annotations

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


def _row_pairs(pc: np.ndarray, members: list, Q: np.ndarray, bound: np.ndarray):
    """Row pairs (i, j), j earlier in the round than i, whose combinations are at distance 1..bound[i's combo].

    ``pc`` are the combinations (indices into Q) whose rows need pairs; ``members[a]`` the round
    positions of combination a's rows (ascending)."""
    out_i, out_j = [], []
    if pc.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    kk = Q.shape[1]
    sizes = np.array([len(m) for m in members])
    flat = np.concatenate(members)
    offs = np.concatenate([[0], np.cumsum(sizes)])
    step = max(1, PROFILE_CELLS // max(1, Q.shape[0] * kk))
    for s in range(0, pc.size, step):
        a = pc[s:s + step]
        d = _distances(Q[a], Q)
        ai, bi = np.nonzero((d >= 1) & (d <= bound[a][:, None]))
        ca, cb = a[ai], bi
        # cross product of the rows of ca and cb
        na, nb = sizes[ca], sizes[cb]
        tot = na * nb
        pair = np.repeat(np.arange(ca.size), tot)
        within = np.arange(tot.sum()) - np.repeat(np.cumsum(tot) - tot, tot)
        ri = flat[offs[ca][pair] + within // nb[pair]]
        rj = flat[offs[cb][pair] + within % nb[pair]]
        keep = rj < ri
        out_i.append(ri[keep])
        out_j.append(rj[keep])
    return np.concatenate(out_i), np.concatenate(out_j)


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
    n_prof, m_prof = _profiles(Q, U, w)
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
    pi, pj = _row_pairs(np.arange(qcombos.size), members, Q, bound)
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
    while not resolved.all():
        pending = np.bincount(pi[~resolved[pj]], minlength=P)
        ready = np.flatnonzero(~resolved & (pending == 0))
        if ready.size == 0:  # cannot happen: predecessors are always earlier in the round
            raise RuntimeError("local suppression: circular dependencies within a round")
        n_r = n_prof[qpos[ready]].copy()
        m_r = m_prof[qpos[ready]].copy()
        loc = np.full(P, -1, dtype=np.int64)
        loc[ready] = np.arange(ready.size)
        sel = loc[pi] >= 0
        ri, rj = loc[pi[sel]], pj[sel]
        if ri.size:
            dif = _diff(A[pi[sel]], A[rj])
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
    return choice


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
