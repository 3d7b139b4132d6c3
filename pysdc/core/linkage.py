"""Record linkage kernels: distances, the global assignment, nearest neighbours, Fellegi--Sunter EM.

Engine-free: float and integer arrays in (records x variables, NaN or -1 for missing), arrays
and numbers out. The front-ends are :func:`pysdc.record_linkage` (global distance-based
linkage, sdcMicro 5.8.1's ``recordLinkage``), :func:`pysdc.nn_linkage` (nearest-neighbour
linkage at register scale) and :func:`pysdc.prob_linkage` (probabilistic linkage).

* :func:`gower_matrix`, :func:`minkowski_matrix` -- the cross distances between two files as
  ``cluster::daisy`` computes them on the stacked files (observed behaviour of cluster 2.1.4):
  Gower's weighted mean of per-variable contributions (interval variables divided by their
  range over both files, nominal 0/1, asymmetric binary skipped where both are 0, missing
  values skipped), Euclidean and Manhattan distances over the variables present in both
  records, scaled up by ``p / present`` (Euclidean: its square root).
* :func:`row_ties` -- how many candidates attain each row's minimum (within ``tol``).
* :func:`min_total_assignment` -- the minimum-total-distance one-to-one matching
  (:func:`scipy.optimize.linear_sum_assignment`), among the optimal matchings the one with
  the most (or fewest) pairs flagged ``prefer``.
* :func:`nn_link` -- exact nearest neighbours by a k-d tree (:class:`scipy.spatial.cKDTree`),
  with honest ties: a record whose true match ties with ``t - 1`` others scores ``1/t``.
* :func:`gower_nn` -- nearest neighbours under Gower's distance, by blocks and chunks.
* :func:`pattern_counts`, :func:`fs_em`, :func:`fs_classify` -- Fellegi--Sunter: the number of
  candidate pairs per agreement pattern (counted, never enumerated), the EM for the m- and
  u-probabilities, and the link / non-link sets from the two accepted error rates.

Written from the documentation and observed behaviour of sdcMicro 5.8.1 and cluster 2.1.4,
not from their source code.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.spatial import cKDTree

__all__ = [
    "INTERVAL",
    "NOMINAL",
    "ASYMM",
    "gower_ranges",
    "gower_matrix",
    "minkowski_matrix",
    "row_ties",
    "min_total_assignment",
    "nn_link",
    "gower_nn",
    "pattern_counts",
    "true_pattern_counts",
    "fs_em",
    "fs_weights",
    "fs_classify",
]

#: Gower variable kinds: interval scaled (numbers, ordinal codes), nominal (codes), asymmetric binary (0/1)
INTERVAL, NOMINAL, ASYMM = "interval", "nominal", "asymm"

#: cells of a distance block computed at once (bounds the temporaries: 8 bytes each)
_BLOCK_CELLS = 1 << 22


# =============================================================================
# distances between two files


def gower_ranges(xs, ys, kinds) -> list:
    """Per variable: ``(min, range)`` over both files for interval variables (range 0 -> 1), else None."""
    out = []
    for xv, yv, kind in zip(xs, ys, kinds):
        if kind != INTERVAL:
            out.append(None)
            continue
        both = np.concatenate([xv, yv])
        both = both[~np.isnan(both)]
        if both.size == 0:
            out.append((0.0, 1.0))
            continue
        lo, hi = float(both.min()), float(both.max())
        rng = hi - lo
        out.append((lo, rng if rng > 0 else 1.0))
    return out


def _gower_prepare(v, kind, rng):
    if kind == INTERVAL:
        lo, r = rng
        with np.errstate(invalid="ignore"):  # an infinite value: NaN distances (refused by the caller)
            return (v - lo) / r
    return v


def gower_matrix(xs, ys, kinds, weights=None, ranges=None) -> np.ndarray:
    """Gower distances between every record of one file (rows) and of the other (columns).

    ``xs``/``ys``: one float array per variable (NaN missing): numbers or ordinal codes for
    ``INTERVAL``, category codes for ``NOMINAL``, 0/1 for ``ASYMM``. ``ranges``: from
    :func:`gower_ranges` (default: over these two files). A pair without any usable
    variable gets NaN (as daisy).
    """
    p = len(kinds)
    w = np.ones(p) if weights is None else np.asarray(weights, dtype=np.float64)
    ranges = gower_ranges(xs, ys, kinds) if ranges is None else ranges
    xs = [_gower_prepare(np.asarray(v, dtype=np.float64), k, r) for v, k, r in zip(xs, kinds, ranges)]
    ys = [_gower_prepare(np.asarray(v, dtype=np.float64), k, r) for v, k, r in zip(ys, kinds, ranges)]
    nx, ny = len(xs[0]), len(ys[0])
    out = np.empty((nx, ny), dtype=np.float64)
    step = max(1, _BLOCK_CELLS // max(ny, 1))
    for a in range(0, nx, step):  # blocks of rows (bounded memory), variables inside
        b = min(nx, a + step)
        num = np.zeros((b - a, ny))
        den = np.zeros((b - a, ny))
        for xv, yv, kind, wk in zip(xs, ys, kinds, w):
            xa = xv[a:b, None]
            present = ~(np.isnan(xa) | np.isnan(yv[None, :]))
            if kind == INTERVAL:
                d = np.abs(xa - yv[None, :])
            elif kind == NOMINAL:
                d = (xa != yv[None, :]).astype(np.float64)
            else:  # asymmetric binary: a pair of zeros does not count
                present &= ~((xa == 0) & (yv[None, :] == 0))
                d = (xa != yv[None, :]).astype(np.float64)
            num += np.where(present, wk * d, 0.0)
            den += np.where(present, wk, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[a:b] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def minkowski_matrix(x: np.ndarray, y: np.ndarray, power: int) -> np.ndarray:
    """Euclidean (``power=2``) or Manhattan (``power=1``) distances between the rows of ``x`` and ``y``.

    Missing coordinates (NaN in either record) are skipped and the sum is scaled by
    ``p / present`` (daisy's rule); a pair with none present gets NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    nx, p = x.shape
    ny = y.shape[0]
    out = np.empty((nx, ny), dtype=np.float64)
    has_na = bool(np.isnan(x).any() or np.isnan(y).any())
    step = max(1, _BLOCK_CELLS // max(ny, 1))
    for a in range(0, nx, step):
        b = min(nx, a + step)
        s = np.zeros((b - a, ny))
        cnt = np.zeros((b - a, ny)) if has_na else None
        for j in range(p):  # loop over variables
            d = x[a:b, j, None] - y[None, :, j]
            d = d * d if power == 2 else np.abs(d)
            if has_na:
                ok = ~np.isnan(d)
                s += np.where(ok, d, 0.0)
                cnt += ok
            else:
                s += d
        if has_na:
            with np.errstate(invalid="ignore", divide="ignore"):
                s = np.where(cnt > 0, s * (p / np.where(cnt > 0, cnt, 1.0)), np.nan)
        out[a:b] = np.sqrt(s) if power == 2 else s
    return out


def row_ties(d: np.ndarray, tol: float) -> np.ndarray:
    """Per row: the number of columns within ``tol`` of the row's minimum."""
    m = d.min(axis=1)
    return (d <= (m + tol)[:, None]).sum(axis=1).astype(np.int64)


# =============================================================================
# the global one-to-one matching


def min_total_assignment(cost: np.ndarray, prefer: np.ndarray | None = None, *, most: bool = True,
                         rtol: float = 1e-12) -> np.ndarray:
    """Column assigned to each row by a minimum-total-cost one-to-one matching of a square matrix.

    Where several matchings attain the minimum, ``prefer`` (a boolean matrix, e.g. "this pair is
    the true match") decides: the matching with the most (``most=True``) or the fewest such pairs.
    This is done by solving again with ``cost - eps * prefer`` (``+`` for fewest) for an ``eps``
    small enough that the total cost stays the minimum (checked: within ``rtol``; ``eps`` is
    shrunk until it does).
    """
    rows, cols = linear_sum_assignment(cost)
    if prefer is None or not prefer.any():
        return cols
    total = float(cost[rows, cols].sum())
    scale = float(np.max(np.abs(cost))) or 1.0
    n = cost.shape[0]
    slack = rtol * max(abs(total), scale) + 8 * np.finfo(float).eps * scale * n
    sign = -1.0 if most else 1.0
    eps = 1e-7 * scale / n
    for _ in range(6):
        r2, c2 = linear_sum_assignment(cost + sign * eps * prefer)
        if float(cost[r2, c2].sum()) <= total + slack:
            return c2
        eps /= 1000.0
    return cols  # pragma: no cover - no eps kept the optimum (the plain solution is optimal)


# =============================================================================
# nearest neighbours (k-d tree)


def nn_link(original: np.ndarray, masked: np.ndarray, truth: np.ndarray, *, tol: float = 0.0,
            workers: int = -1) -> dict:
    """Link each masked record to its nearest original record (Euclidean distance, exact).

    ``truth[j]``: the position of masked record ``j``'s own original record (-1: none).
    Returns per masked record: ``nearest`` (an original at the minimum distance), ``distance``,
    ``n_tied`` (originals within ``tol`` of the minimum), ``true_distance`` (to its own
    original; NaN without one), ``score`` (1/``n_tied`` where its own original is among the
    tied nearest, else 0) and ``second`` (its own original is no farther than the second
    nearest, within ``tol``).
    """
    n_m = masked.shape[0]
    n_o = original.shape[0]
    # the originals stored in the leaf order of a first tree (a leaf's points contiguous in memory), the
    # queries in the order of their own originals (neighbouring queries visit the same leaves): about 3x
    # less work at 1e5-1e6 records than the plain query; the answers do not depend on either order
    order = cKDTree(original, leafsize=32).indices
    rank = np.empty(n_o, dtype=np.int64)
    rank[order] = np.arange(n_o)
    tree = cKDTree(original[order], leafsize=32)
    k = 2 if n_o >= 2 else 1
    has = truth >= 0
    key = np.where(has, rank[np.maximum(truth, 0)], n_o + np.arange(n_m))
    perm = np.argsort(key, kind="stable")
    d = np.empty((n_m, k))
    idx = np.empty((n_m, k), dtype=np.int64)
    dq, iq = tree.query(masked[perm], k=k, workers=workers)
    d[perm] = dq.reshape(n_m, k)
    idx[perm] = order[iq.reshape(n_m, k)]
    del dq, iq
    if k == 1:
        d = np.concatenate([d, np.full((n_m, 1), np.inf)], axis=1)
        idx = np.concatenate([idx, np.full((n_m, 1), -2, dtype=np.int64)], axis=1)
    d1, d2 = d[:, 0], d[:, 1]
    true_d = np.full(n_m, np.nan)
    diff = masked[has] - original[truth[has]]
    true_d[has] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    n_tied = np.ones(n_m, dtype=np.int64)
    tied = d2 <= d1 + tol
    if tied.any():
        n_tied[tied] = tree.query_ball_point(masked[tied], r=d1[tied] + tol, return_length=True,
                                             workers=workers)
        n_tied = np.maximum(n_tied, 1)
    # the own original's distance is compared with the neighbours' distances computed the same way (the
    # tree's arithmetic may differ in the last bit)
    def _dist(col):
        ok = np.isfinite(d[:, col])
        out = np.full(n_m, np.inf)
        diff = masked[ok] - original[idx[ok, col]]
        out[ok] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        return out

    e1, e2 = _dist(0), _dist(1)
    with np.errstate(invalid="ignore"):
        hit = has & ((idx[:, 0] == truth) | (true_d <= e1 + tol))
        second = has & (hit | (idx[:, 1] == truth) | (true_d <= e2 + tol))
    score = np.where(hit, 1.0 / n_tied, 0.0)
    return {"nearest": idx[:, 0].astype(np.int64), "distance": d1, "n_tied": n_tied, "true_distance": true_d,
            "score": score, "second": second}


def gower_nn(xs, ys, kinds, weights, truth: np.ndarray, block_x: np.ndarray, block_y: np.ndarray,
             *, tol: float = 0.0) -> dict:
    """Nearest original record (rows ``xs``) of every masked record (``ys``) under Gower's distance.

    Only originals in the masked record's block (equal codes of ``block_x``/``block_y``; -1:
    in no block) are candidates; the ranges are those of both whole files. Blocks are split
    into chunks of masked records so that at most about four million distances exist at once.
    Same fields as :func:`nn_link` (``second`` included); a masked record without a candidate
    gets nearest -1, distance NaN, score 0.
    """
    ranges = gower_ranges(xs, ys, kinds)
    n_m = len(ys[0])
    nearest = np.full(n_m, -1, dtype=np.int64)
    dist = np.full(n_m, np.nan)
    n_tied = np.zeros(n_m, dtype=np.int64)
    true_d = np.full(n_m, np.nan)
    score = np.zeros(n_m)
    second = np.zeros(n_m, dtype=bool)
    ox = np.argsort(block_x, kind="stable")
    oy = np.argsort(block_y, kind="stable")
    bx, by = block_x[ox], block_y[oy]
    blocks = np.unique(by[by >= 0])
    xstart = np.searchsorted(bx, blocks, "left")
    xend = np.searchsorted(bx, blocks, "right")
    ystart = np.searchsorted(by, blocks, "left")
    yend = np.searchsorted(by, blocks, "right")
    for b in range(blocks.size):  # loop over blocks (and chunks of each), vectorised inside
        xi = ox[xstart[b]:xend[b]]
        if xi.size == 0:
            continue
        yall = oy[ystart[b]:yend[b]]
        step = max(1, _BLOCK_CELLS // xi.size)
        for a in range(0, yall.size, step):
            yi = yall[a:a + step]
            d = gower_matrix([v[yi] for v in ys], [v[xi] for v in xs], kinds, weights, ranges)
            with np.errstate(invalid="ignore"):
                dfill = np.where(np.isnan(d), np.inf, d)
            j = np.argmin(dfill, axis=1)
            m = dfill[np.arange(yi.size), j]
            ok = np.isfinite(m)
            m2 = np.partition(dfill, 1, axis=1)[:, 1] if xi.size > 1 else np.full(yi.size, np.inf)
            t = (dfill <= (m + tol)[:, None]).sum(axis=1)
            # the own original's distance, where it is in this block
            tr = truth[yi]
            sx = np.sort(xi)
            loc = np.minimum(np.searchsorted(sx, tr), sx.size - 1)
            inblock = (tr >= 0) & (sx[loc] == tr)
            col = np.argsort(xi, kind="stable")[loc]
            td = np.where(inblock, dfill[np.arange(yi.size), col], np.nan)
            nearest[yi] = np.where(ok, xi[j], -1)
            dist[yi] = np.where(ok, m, np.nan)
            n_tied[yi] = np.where(ok, t, 0)
            true_d[yi] = np.where(np.isfinite(td), td, np.nan)
            with np.errstate(invalid="ignore"):
                hit = ok & inblock & (td <= m + tol)
                second[yi] = ok & inblock & (td <= m2 + tol)
            score[yi] = np.where(hit, 1.0 / np.maximum(t, 1), 0.0)
    return {"nearest": nearest, "distance": dist, "n_tied": n_tied, "true_distance": true_d, "score": score,
            "second": second}


# =============================================================================
# Fellegi--Sunter


def _combine(codes: list) -> np.ndarray:
    """Row keys of several non-negative int64 code columns (mixed radix; -1 anywhere -> -1)."""
    n = codes[0].size
    key = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    for c in codes:
        c = np.asarray(c, dtype=np.int64)
        bad |= c < 0
        radix = int(c.max()) + 1 if c.size else 1
        if radix > 1 and int(key.max(initial=0)) >= (np.iinfo(np.int64).max // radix) - 1:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)  # re-code to stay in range
        key = key * max(radix, 1) + np.maximum(c, 0)
    key[bad] = -1
    return key


def _pairs_agreeing(key_x: np.ndarray, key_y: np.ndarray) -> int:
    """Number of (x, y) pairs with equal non-negative keys."""
    kx = key_x[key_x >= 0]
    ky = key_y[key_y >= 0]
    if kx.size == 0 or ky.size == 0:
        return 0
    ux, cx = np.unique(kx, return_counts=True)
    uy, cy = np.unique(ky, return_counts=True)
    common, ix, iy = np.intersect1d(ux, uy, assume_unique=True, return_indices=True)
    return int(np.dot(cx[ix].astype(np.int64), cy[iy].astype(np.int64)))


def pattern_counts(codes_x: list, codes_y: list, block_x: np.ndarray, block_y: np.ndarray) -> np.ndarray:
    """Number of candidate pairs per agreement pattern (index = bit mask: bit k set = agree on k).

    Candidate pairs: one record of each file with equal block codes (-1: no block). Variable k
    agrees when its codes are equal and not -1. Counted without enumerating the pairs: for every
    set S of variables the pairs agreeing on at least S are counted by grouping, and the
    counts of exact patterns follow by inclusion--exclusion (exact integers).
    """
    k = len(codes_x)
    at_least = np.zeros(1 << k, dtype=np.int64)
    for s in range(1 << k):  # 2^k groupings
        cols = [j for j in range(k) if s >> j & 1]
        # both files share the radices: combine them stacked
        both = _combine([np.concatenate([block_x, block_y])] +
                        [np.concatenate([codes_x[j], codes_y[j]]) for j in cols])
        kx, ky = both[:block_x.size], both[block_x.size:]
        at_least[s] = _pairs_agreeing(kx, ky)
    exact = at_least.copy()
    for j in range(k):  # Moebius inversion over supersets
        bit = 1 << j
        for s in range(1 << k):
            if not s & bit:
                exact[s] -= exact[s | bit]
    return exact


def true_pattern_counts(codes_x: list, codes_y: list, block_x, block_y, truth: np.ndarray) -> np.ndarray:
    """Agreement patterns of the true pairs (masked record j with original ``truth[j]``) that are candidates."""
    k = len(codes_x)
    has = truth >= 0
    tx = truth[has]
    cand = (block_x[tx] == block_y[has]) & (block_y[has] >= 0)
    pat = np.zeros(int(has.sum()), dtype=np.int64)
    for j in range(k):
        a, b = codes_x[j][tx], codes_y[j][has]
        pat |= ((a == b) & (a >= 0)).astype(np.int64) << j
    return np.bincount(pat[cand], minlength=1 << k).astype(np.int64)


def _bits(k: int) -> np.ndarray:
    s = np.arange(1 << k)
    return ((s[:, None] >> np.arange(k)[None, :]) & 1).astype(np.float64)


def fs_em(counts: np.ndarray, k: int, *, p0: float, m0=None, u0=None, max_iter: int = 1000,
          tol: float = 1e-12) -> dict:
    """EM for the Fellegi--Sunter mixture under conditional independence, on pattern counts.

    Returns ``m``, ``u`` (agreement probabilities per variable given match / non-match),
    ``p`` (share of matches among candidate pairs), ``iterations``, ``converged``,
    ``log_likelihood``.
    """
    g = _bits(k)
    n = counts.astype(np.float64)
    total = n.sum()
    m = np.full(k, 0.9) if m0 is None else np.asarray(m0, dtype=np.float64).copy()
    u = (g.T @ n) / total if u0 is None else np.asarray(u0, dtype=np.float64).copy()
    u = np.clip(u, 1e-6, 1 - 1e-6)
    p = float(p0)
    converged = False
    ll = -math.inf
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        with np.errstate(divide="ignore"):
            lm = g @ np.log(m) + (1 - g) @ np.log1p(-m) + math.log(p)
            lu = g @ np.log(u) + (1 - g) @ np.log1p(-u) + math.log1p(-p)
        top = np.maximum(lm, lu)
        lse = top + np.log(np.exp(lm - top) + np.exp(lu - top))
        w = np.exp(lm - lse)  # P(match | pattern)
        new_ll = float(n @ lse)
        nm = n * w
        nu = n - nm
        sm, su = nm.sum(), nu.sum()
        p = float(sm / total)
        m = np.clip((g.T @ nm) / sm, 1e-12, 1 - 1e-12)
        u = np.clip((g.T @ nu) / su, 1e-12, 1 - 1e-12)
        p = min(max(p, 1e-300), 1 - 1e-16)
        if abs(new_ll - ll) <= tol * max(1.0, abs(new_ll)):
            converged = True
            ll = new_ll
            break
        ll = new_ll
    return {"m": m, "u": u, "p": p, "iterations": it, "converged": converged, "log_likelihood": ll}


def fs_weights(m: np.ndarray, u: np.ndarray) -> tuple:
    """Per pattern: the log2 likelihood ratio (linkage weight), P(pattern | M), P(pattern | U)."""
    k = m.size
    g = _bits(k)
    w = g @ np.log2(m / u) + (1 - g) @ np.log2((1 - m) / (1 - u))
    pm = np.exp(g @ np.log(m) + (1 - g) @ np.log1p(-m))
    pu = np.exp(g @ np.log(u) + (1 - g) @ np.log1p(-u))
    return w, pm, pu


def fs_classify(weight: np.ndarray, pm: np.ndarray, pu: np.ndarray, mu: float, lam: float) -> tuple:
    """Fellegi--Sunter's decision: per pattern 2 = link, 1 = possible link (clerical), 0 = non-link.

    Patterns in decreasing weight; the link set is the longest head whose u-probabilities sum to
    at most ``mu`` (accepted P(link | U)); the non-link set the longest tail whose
    m-probabilities sum to at most ``lam`` (accepted P(non-link | M)). Patterns of equal weight
    are never split. Returns (status, LT, NLT): the lowest weight linked (inf: none) and the
    highest weight not linked (-inf: none).
    """
    order = np.argsort(-weight, kind="stable")
    w_sorted = weight[order]
    # groups of equal weight
    uniq, start = np.unique(-w_sorted, return_index=True)
    gid = np.searchsorted(start, np.arange(w_sorted.size), side="right") - 1
    cu = np.cumsum(np.bincount(gid, weights=pu[order]))
    cm_tail = np.cumsum(np.bincount(gid, weights=pm[order])[::-1])[::-1]
    ng = uniq.size
    n_link = int(np.sum(cu <= mu * (1 + 1e-12)))
    first_nonlink = ng - int(np.sum(cm_tail <= lam * (1 + 1e-12)))
    first_nonlink = max(first_nonlink, n_link)
    status_g = np.ones(ng, dtype=np.int64)
    status_g[:n_link] = 2
    status_g[first_nonlink:] = 0
    status = np.empty(weight.size, dtype=np.int64)
    status[order] = status_g[gid]
    lt = float(-uniq[n_link - 1]) if n_link else math.inf
    nlt = float(-uniq[first_nonlink]) if first_nonlink < ng else -math.inf
    return status, lt, nlt

