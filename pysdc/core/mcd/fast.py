"""pysdc's own vectorised FAST-MCD (Rousseeuw & Van Driessen 1999) on a numpy Generator.

C-steps for a batch of starts at once, nested subsampling for large n, and for n > 5000
exact C-steps on all data made cheap by re-examining only a band of observations around the
cutoff (:func:`_final_large`). Used by :func:`pysdc.core.mcd.cov_mcd` when ``random_state``
is not an R seed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..._errors import InvalidParameterError

#: Mahalanobis distances are computed in blocks of this many observations, which stay in cache
#: across the p passes (a speed choice only: every block size gives the same numbers)
DISTANCE_CHUNK = 1 << 14

_SING_TOL = 1e-12  # smallest/largest eigenvalue ratio below which a covariance is singular

# robustbase enumerates all (p+1)-subsets (whatever nsamp) for these small (p, n)
_ALL_SUBSETS_NMAX = {2: 22, 3: 17, 4: 15, 5: 14}


def _batch_stats(Xs: np.ndarray):
    """Means, covariances (divisor h-1) and log-determinants of a batch (K, h, p)."""
    h = Xs.shape[1]
    mu = Xs.mean(axis=1)
    Z = Xs - mu[:, None, :]
    C = np.einsum("kij,kil->kjl", Z, Z) / (h - 1)
    return mu, C


def _singular(C: np.ndarray) -> np.ndarray:
    ev = np.linalg.eigvalsh(C)
    top = ev[..., -1]
    return ~(ev[..., 0] > _SING_TOL * top) | ~(top > 0)


def _mahalanobis_batch(X: np.ndarray, mu: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances of the rows of X (m, p) to K centres/covariances -> (K, m)."""
    L = np.linalg.cholesky(C)
    Linv = np.linalg.inv(L)  # (K, p, p)
    Y = X[None, :, :] @ np.swapaxes(Linv, 1, 2) - (mu[:, None, :] @ np.swapaxes(Linv, 1, 2))
    return np.einsum("kij,kij->ki", Y, Y)


def _h_smallest(d2: np.ndarray, h: int) -> np.ndarray:
    if h >= d2.shape[1]:
        return np.broadcast_to(np.arange(d2.shape[1]), d2.shape).copy()
    return np.argpartition(d2, h - 1, axis=1)[:, :h]


class _ExactFit(Exception):
    def __init__(self, rows):
        self.rows = rows  # indices (into the matrix given) of a singular h-subset


def _csteps(X: np.ndarray, mu, C, h: int, nsteps: int | None, exact_rows=None):
    """C-steps for a batch of K starts on X (m, p).

    nsteps=None iterates each start to convergence.  Returns (sel (K, h), mu, C, logdet).
    Raises _ExactFit when an h-subset covariance is singular.
    """
    K = mu.shape[0]
    sel = None
    logdet = np.full(K, np.inf)
    active = np.ones(K, dtype=bool)
    step = 0
    limit = nsteps if nsteps is not None else 500
    while step < limit and active.any():
        ia = np.flatnonzero(active)
        d2 = _mahalanobis_batch(X, mu[ia], C[ia])
        new_sel = _h_smallest(d2, h)
        new_sel.sort(axis=1)
        nmu, nC = _batch_stats(X[new_sel])
        sing = _singular(nC)
        if sing.any():
            rows = new_sel[np.flatnonzero(sing)[0]]
            raise _ExactFit(rows if exact_rows is None else exact_rows[rows])
        _, nld = np.linalg.slogdet(nC)
        if sel is None:
            sel = new_sel
            mu, C, logdet = nmu, nC, nld
        else:
            if nsteps is None:
                same = (new_sel == sel[ia]).all(axis=1)
                better = nld < logdet[ia]
                upd = better & ~same
                j = ia[upd]
                sel[j], mu[j], C[j], logdet[j] = new_sel[upd], nmu[upd], nC[upd], nld[upd]
                active[ia[~upd]] = False
            else:
                sel[ia], mu[ia], C[ia], logdet[ia] = new_sel, nmu, nC, nld
        step += 1
    return sel, mu, C, logdet


def _initial_starts(X: np.ndarray, K: int, rng, all_subsets: bool, exact_rows=None):
    """Means/covariances of K random (p+1)-subsets of X, extended while singular."""
    m, p = X.shape
    if all_subsets:
        idx = np.array(list(itertools.combinations(range(m), p + 1)), dtype=np.intp)
        mu, C = _batch_stats(X[idx])
        sing = _singular(C)
        if sing.any():
            # robustbase extends singular subsets with random observations; with all
            # subsets enumerated we simply drop them (a nonsingular one contains them)
            keep = ~sing
            if not keep.any():
                raise _ExactFit(None)
            mu, C = mu[keep], C[keep]
        return mu, C
    keys = rng.random((K, m))
    q = p + 1
    idx = np.argpartition(keys, q - 1, axis=1)[:, :q]
    mu, C = _batch_stats(X[idx])
    sing = _singular(C)
    while sing.any() and q < m:
        q += 1
        rows = np.flatnonzero(sing)
        idx2 = np.argpartition(keys[rows], q - 1, axis=1)[:, :q]
        mu2, C2 = _batch_stats(X[idx2])
        mu[rows], C[rows] = mu2, C2
        sing[rows] = _singular(C2)
    if sing.all():
        raise _ExactFit(exact_rows)
    return mu[~sing], C[~sing]


def _keep_best(sel, mu, C, logdet, k):
    order = np.argsort(logdet, kind="stable")[:k]
    return sel[order], mu[order], C[order], logdet[order]


def _gram(XT: np.ndarray) -> np.ndarray:
    """X^T X of a column-major (p, m) block, in cache-sized chunks (small BLAS calls)."""
    m = XT.shape[1]
    chunk = 65536
    if m <= chunk:
        return XT @ XT.T
    G = np.zeros((XT.shape[0], XT.shape[0]))
    for s in range(0, m, chunk):  # loop over blocks of observations, vectorised within
        B = XT[:, s:s + chunk]
        G += B @ B.T
    return G


def _dist2_cols(XT: np.ndarray, mu: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances of the columns of XT (p, n); one pass per variable."""
    p, n = XT.shape
    A = np.linalg.inv(np.linalg.cholesky(C))  # lower triangular
    b = A @ mu
    d2 = np.zeros(n)
    chunk = DISTANCE_CHUNK
    y = np.empty(min(n, chunk))
    t = np.empty(min(n, chunk))
    for s in range(0, n, chunk):  # loop over blocks of observations, vectorised within
        e = min(n, s + chunk)
        yc, tc, dc = y[: e - s], t[: e - s], d2[s:e]
        for j in range(p):  # loop over variables
            np.multiply(XT[0, s:e], A[j, 0], out=yc)
            for k in range(1, j + 1):
                np.multiply(XT[k, s:e], A[j, k], out=tc)
                yc += tc
            yc -= b[j]
            np.multiply(yc, yc, out=yc)
            dc += yc
    return d2


#: relative decrease of the determinant below which the C-steps on more than 5000
#: observations are deemed converged (the remaining steps swap single boundary points
#: and move the estimate by far less than its sampling error)
_LARGE_TOL = 1e-10
#: half-width (relative to the distance cutoff) of the band of observations whose
#: distances are recomputed in the cheap C-steps of :func:`_final_large`
_BAND = 0.1


def _final_large(XT: np.ndarray, mu, C, h: int):
    """C-steps on all data for one start (n > 5000), column-major XT (p, n).

    Exact C-steps made cheap: after a full pass (the reference), only observations
    whose reference distance lies in a band around the cutoff are re-examined; a
    bound on how far any distance can have moved since the reference (from the
    singular values of A_new A_ref^-1 and the shift of the centre) proves that the
    observations below (above) the band stay in (out of) the h-subset. When the
    bound cannot prove it, the step falls back to a full pass. The h-subset sums are
    updated with the observations that enter and leave.
    """
    p, n = XT.shape
    mask = np.zeros(n, dtype=bool)
    first = True
    S1 = S2 = None
    logdet = np.inf
    ref = None
    for _ in range(1000):
        enter = leave = None
        band_step = False
        if ref is not None:
            A_r, mu_r, band_idx, XB, n_below, lo, hi, band_mask = ref
            k = h - n_below
            A = np.linalg.inv(np.linalg.cholesky(C))
            M = A @ np.linalg.inv(A_r)
            sv = np.linalg.svd(M, compute_uv=False)
            cn = float(np.linalg.norm(A @ (mu_r - mu)))
            u_lo = (sv[0] * math.sqrt(lo) + cn) ** 2
            l_hi = max(sv[-1] * math.sqrt(hi) - cn, 0.0) ** 2
            if 0 < k <= band_idx.size and u_lo < l_hi:
                dB = _dist2_cols(XB, mu, C)
                part = np.argpartition(dB, k - 1)[:k]
                T = dB[part].max()
                if u_lo <= T <= l_hi:
                    band_step = True
                    new_band = np.zeros(band_idx.size, dtype=bool)
                    new_band[part] = True
                    enter = band_idx[new_band & ~band_mask]
                    leave = band_idx[band_mask & ~new_band]
        if not band_step:
            d2 = _dist2_cols(XT, mu, C)
            idx = np.argpartition(d2, h - 1)[:h]
            T = d2[idx].max()
            new_mask = np.zeros(n, dtype=bool)
            new_mask[idx] = True
            if not first:
                enter = np.flatnonzero(new_mask & ~mask)
                leave = np.flatnonzero(mask & ~new_mask)
        if first:
            Xh = np.take(XT, idx, axis=1)  # C-contiguous, unlike XT[:, idx]
            nS1 = Xh.sum(axis=1)
            nS2 = _gram(Xh)
        else:
            if enter.size == 0:
                break
            Xe, Xl = np.take(XT, enter, axis=1), np.take(XT, leave, axis=1)
            nS1 = S1 + Xe.sum(axis=1) - Xl.sum(axis=1)
            nS2 = S2 + _gram(Xe) - _gram(Xl)
        nmu = nS1 / h
        nC = (nS2 - h * np.outer(nmu, nmu)) / (h - 1)
        nC = (nC + nC.T) / 2
        if _singular(nC[None])[0]:
            if band_step:
                mask[enter] = True
                mask[leave] = False
                raise _ExactFit(np.flatnonzero(mask))
            raise _ExactFit(np.flatnonzero(new_mask))
        nld = np.linalg.slogdet(nC)[1]
        if not first and not nld < logdet:
            break
        done = not first and logdet - nld < _LARGE_TOL
        if band_step:
            mask[enter] = True
            mask[leave] = False
            ref = ref[:7] + (new_band,)
        else:
            mask = new_mask
            # new reference: distances d2 were computed at (mu, C)
            A_r = np.linalg.inv(np.linalg.cholesky(C))
            lo, hi = T * (1 - _BAND), T * (1 + _BAND)
            inb = (d2 >= lo) & (d2 <= hi)
            band_idx = np.flatnonzero(inb)
            n_below = int(np.count_nonzero(d2 < lo))
            ref = (A_r, mu.copy(), band_idx, np.take(XT, band_idx, axis=1), n_below, lo, hi,
                   new_mask[band_idx])
        first = False
        S1, S2, mu, C, logdet = nS1, nS2, nmu, nC, nld
        if done:
            break
    sel_idx = np.flatnonzero(mask)
    # recompute from the subset (the running sums accumulate rounding)
    Xh = np.compress(mask, XT, axis=1)  # the columns sel_idx
    mu = Xh.mean(axis=1)
    Z = Xh - mu[:, None]
    C = _gram(Z) / (h - 1)
    return sel_idx, mu, C, float(np.linalg.slogdet(C)[1])


def _fast_mcd(XT: np.ndarray, h: int, nsamp, nmini: int, kmini: int, rng):
    """FAST-MCD on column-major XT (p, n); returns (best indices, mean, cov (divisor h-1), logdet)."""
    X = XT.T
    n, p = X.shape
    if h >= n:
        idx = np.arange(n)
        mu = X.mean(axis=0)
        C = np.cov(X, rowvar=False).reshape(p, p)
        if _singular(C[None])[0]:
            raise _ExactFit(idx)
        return idx, mu, C, float(np.linalg.slogdet(C)[1])
    exact = nsamp == "exact"
    all_subsets = exact or (p in _ALL_SUBSETS_NMAX and n <= _ALL_SUBSETS_NMAX[p])
    if exact and math.comb(n, p + 1) > 1_000_000:
        raise InvalidParameterError(
            f"nsamp='exact' would enumerate {math.comb(n, p + 1)} subsets; "
            "use an integer nsamp (default 500)."
        )
    nsamp_i = 500 if exact else int(nsamp)
    if all_subsets or n < 2 * nmini:
        mu, C = _initial_starts(X, nsamp_i, rng, all_subsets)
        sel, mu, C, ld = _csteps(X, mu, C, h, 3)
        sel, mu, C, ld = _keep_best(sel, mu, C, ld, 10)
        sel, mu, C, ld = _csteps(X, mu, C, h, None)
        b = int(np.argmin(ld))
        return sel[b], mu[b], C[b], float(ld[b])

    # nested subsampling (Rousseeuw & Van Driessen 1999, section 3.3)
    ngroup = min(kmini, n // nmini)
    minigr = min(n, nmini * kmini)
    sample = rng.choice(n, size=minigr, replace=False) if minigr < n else rng.permutation(n)
    groups = np.array_split(sample, ngroup)
    nrep = max(1, nsamp_i // ngroup)
    cands_mu, cands_C = [], []
    for g in groups:
        Xg = X[g]
        hg = max(p + 1, (min(len(gg) for gg in groups) * h) // n)
        mu, C = _initial_starts(Xg, nrep, rng, False, exact_rows=g)
        sel, mu, C, ld = _csteps(Xg, mu, C, hg, 3, exact_rows=g)
        sel, mu, C, ld = _keep_best(sel, mu, C, ld, 10)
        cands_mu.append(mu)
        cands_C.append(C)
    Xm = X[sample]
    hm = max(p + 1, (minigr * h) // n)
    mu = np.concatenate(cands_mu)
    C = np.concatenate(cands_C)
    sel, mu, C, ld = _csteps(Xm, mu, C, hm, 3, exact_rows=sample)
    sel, mu, C, ld = _keep_best(sel, mu, C, ld, 10)
    if n <= 5000:
        sel, mu, C, ld = _csteps(X, mu, C, h, None)
        b = int(np.argmin(ld))
        return sel[b], mu[b], C[b], float(ld[b])
    return _final_large(XT, mu[0], C[0], h)


def _hyperplane_rows(X: np.ndarray, rows: np.ndarray):
    """Observations of X on the hyperplane spanned by the (singular) subset ``rows``."""
    Xs = X[rows]
    m = Xs.mean(axis=0)
    Z = Xs - m
    C = Z.T @ Z / max(len(rows) - 1, 1)
    ev, V = np.linalg.eigh(C)
    v = V[:, 0]
    scale = math.sqrt(max(ev[-1], 0.0)) or 1.0
    resid = np.abs((X - m) @ v)
    on = resid <= 1e-7 * scale + 1e-12 * np.abs(X).max()
    return np.flatnonzero(on), v

