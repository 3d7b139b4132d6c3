"""Minimum Covariance Determinant (MCD) estimator, following robustbase's ``covMcd`` defaults.

sdcMicro's ``dUtility(x, xm, method = "robeigen")`` compares the eigenvalues of
``robustbase::covMcd(scale(x))$cov`` and ``covMcd(scale(xm))$cov``. :func:`cov_mcd`
is a native, vectorised equivalent of ``covMcd`` with its default settings
(``alpha = 1/2``, ``nsamp = 500``, ``nmini = 300``, ``kmini = 5``,
``use.correction = TRUE``, ``wgtFUN = "01.original"``).

Written from the literature (Rousseeuw & Van Driessen 1999; Croux & Haesbroeck
1999; Pison, Van Aelst & Willems 2002) and from robustbase's documentation and
observed behaviour (robustbase 0.95-0), not from its source code.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .._errors import DegenerateResultWarning, InvalidParameterError

__all__ = [
    "McdResult",
    "cov_mcd",
    "h_alpha_n",
    "mcd_consistency_factor",
    "mcd_small_sample_factor",
]

#: Mahalanobis distances are computed in blocks of this many observations, which stay in cache
#: across the p passes (a speed choice only: every block size gives the same numbers)
DISTANCE_CHUNK = 1 << 14

# --------------------------------------------------------------------------------------
# Correction factors
# --------------------------------------------------------------------------------------


def h_alpha_n(alpha: float, n: int, p: int) -> int:
    """Size ``h`` of the MCD subsets, as robustbase's ``h.alpha.n``.

    ``n2 = (n + p + 1) // 2``; ``h = floor(2 * n2 - n + 2 * (n - n2) * alpha)``,
    which is ``(n + p + 1) // 2`` for ``alpha = 1/2``.
    """
    n2 = (n + p + 1) // 2
    return int(math.floor(2 * n2 - n + 2 * (n - n2) * alpha))


def mcd_consistency_factor(p: int, alpha: float) -> float:
    """Consistency factor of the MCD scatter at the normal model (Croux & Haesbroeck 1999).

    ``alpha / P(chi2_{p+2} <= chi2_{p; alpha})``, where ``alpha`` is the fraction
    of observations used (``h/n`` for the raw MCD, ``sum(w)/n`` after reweighting).
    Equal to 1 for ``alpha = 1``.
    """
    if alpha >= 1:
        return 1.0
    q = stats.chi2.ppf(alpha, p)
    return float(alpha / stats.chi2.cdf(q, p + 2))


# Small sample correction factors of Pison, Van Aelst & Willems (2002), in the
# parametrisation robustbase uses: the factor is 1/f with f(p, n) = 1 - exp(y(p, n)),
# y linear in log(n).  For p = 1, 2: y = A - B log(n).  For p >= 3, y is linear in
# log(p) at n = 2 p^2 and n = 3 p^2 (y_k = c_k + d_k log p) and linear in log(n)
# through those two points.  Two anchors: alpha = 1/2 and alpha = 7/8; other alpha
# are interpolated linearly in f (and between f(7/8) and 1 above 7/8).  The
# constants were recovered to double precision from robustbase 0.95-0's output
# (.MCDcnp2 / .MCDcnp2.rew) given this published functional form.
_PW = {
    # (kind, anchor): {1: (A, B), 2: (A, B), "k2": (c, d), "k3": (c, d)}
    ("raw", 0.5): {
        1: (0.26202421189709968, 0.60475668063049792),
        2: (0.6732926235220118, 0.69136586496189123),
        "k2": (0.35602673571178034, -1.2626333693215104),
        "k3": (0.059599305599127739, -1.2890799144038694),
    },
    ("raw", 0.875): {
        1: (-0.35158464668878198, 1.0164656750248413),
        2: (0.44653781563546335, 1.0669078299591952),
        "k2": (-0.78706351126816898, -1.1119254127879399),
        "k3": (-1.2233554115520464, -1.0964932914981194),
    },
    ("rew", 0.5): {
        1: (1.1109814341501014, 1.5182890270452565),
        2: (3.1110171290905262, 1.9140105672186394),
        "k2": (0.028029212868292852, -1.6765988308192548),
        "k3": (-1.3167580951332907, -1.3596856289358237),
    },
    ("rew", 0.875): {
        1: (-0.66046776772866922, 0.88939595831886553),
        2: (0.79473550581059182, 1.1008193035009131),
        "k2": (-0.60791958033571825, -1.2599448322229179),
        "k3": (-1.0677211544238383, -1.2515900425713276),
    },
}

# For alpha = 1/2 and very small samples (2p <= n <= 20, 2 <= p <= 9) robustbase
# uses simulated values instead of the fitted curve; these are f = 1/factor as
# robustbase 0.95-0 reports them.
_SMALL_N = {
    "raw": {
        2: (4, [0.31711602006710171, 0.55558981692759946, 0.44277233930352794]),
        3: (6, [0.46997560826593099, 0.36779607031966632, 0.50162803378364484,
                0.45036260945500273, 0.54927399709434055]),
        4: (8, [0.33891997726524792, 0.46611636968062176, 0.41977580613745813,
                0.51892062434453845, 0.49200758282086643, 0.5443361820260193]),
        5: (10, [0.44851637510859704, 0.40089045788505429, 0.49600296014566614,
                 0.45660828625321392, 0.53248249730031372, 0.50531490214071606,
                 0.56584001213160984]),
        6: (12, [0.38755724220467364, 0.47413116649068499, 0.44628094009972596,
                 0.51421310739495008, 0.48938116283815625, 0.54890526334278911,
                 0.52707866649097379]),
        7: (14, [0.46184406020044955, 0.43098228188740934, 0.49804864540729415,
                 0.47927816873563067, 0.53077091290473932, 0.51267249506937229,
                 0.5652080530843403]),
        8: (16, [0.42726953828826419, 0.48821879232246662, 0.46272795714398757,
                 0.51918869497768005, 0.5011471257708896]),
        9: (18, [0.47769498792864762, 0.45749986389379049, 0.51308652845141756]),
    },
    "rew": {
        2: (4, [0.45120204737441011, 0.70495711745854506, 0.61139605563948662]),
        3: (6, [0.57633233627839164, 0.48383741127631474, 0.6468702798684266,
                0.60253486417357816, 0.68641953275422396]),
        4: (8, [0.41860410600395503, 0.54123507679584504, 0.50761936669407814,
                0.61322493151810575, 0.58779548479020405, 0.65745873788961007]),
        5: (10, [0.50809058035630361, 0.46105662190267921, 0.56042094337899084,
                 0.52786911379749568, 0.5995520147345903, 0.59066501201707966,
                 0.64717546739012255]),
        6: (12, [0.43938835383592623, 0.53573715021051793, 0.49646294971475724,
                 0.57124348853828499, 0.54663836537636323, 0.60605362726126188,
                 0.59205123848238317]),
        7: (14, [0.51080088470713225, 0.482144734063429, 0.5413056834390233,
                 0.52482198038425365, 0.58345440012135852, 0.56547492825536849,
                 0.61009834785367401]),
        8: (16, [0.46208137160537693, 0.53446668776028528, 0.50518190337385738,
                 0.56103594164552961, 0.54203773666722677]),
        9: (18, [0.51577710589213444, 0.48770757444002633, 0.54499981742506121]),
    },
}


def _f_anchor(kind: str, anchor: float, p: int, n: int, table: bool) -> float:
    if table and anchor == 0.5 and p in _SMALL_N[kind]:
        n0, vals = _SMALL_N[kind][p]
        if n0 <= n < n0 + len(vals):
            return vals[n - n0]
    coef = _PW[(kind, anchor)]
    if p <= 2:
        a, b = coef[p]
        y = a - b * math.log(n)
    else:
        c2, d2 = coef["k2"]
        c3, d3 = coef["k3"]
        lp = math.log(p)
        y2 = c2 + d2 * lp
        y3 = c3 + d3 * lp
        # line in log(n) through (log(2 p^2), y2) and (log(3 p^2), y3)
        t = (math.log(n) - math.log(2.0 * p * p)) / math.log(1.5)
        y = y2 + (y3 - y2) * t
    return 1.0 - math.exp(y)


def mcd_small_sample_factor(p: int, n: int, alpha: float = 0.5, *, reweighted: bool = False) -> float:
    """Finite sample correction factor of the MCD scatter (Pison, Van Aelst & Willems 2002).

    The multiplier robustbase reports as ``raw.cnp2[2]`` (``reweighted=False``) or
    ``cnp2[2]`` (``reweighted=True``); it is 1 for ``alpha = 1``.
    """
    kind = "rew" if reweighted else "raw"
    if alpha >= 1:
        return 1.0
    # the simulated small-n values are used for alpha = 1/2 only (as robustbase does)
    f5 = _f_anchor(kind, 0.5, p, n, table=alpha == 0.5)
    f8 = _f_anchor(kind, 0.875, p, n, table=False)
    if alpha <= 0.875:
        f = f5 + (f8 - f5) / 0.375 * (alpha - 0.5)
    else:
        f = f8 + (1.0 - f8) / 0.125 * (alpha - 0.875)
    return 1.0 / f


# --------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class McdResult:
    """Result of :func:`cov_mcd` (robustbase ``covMcd`` names in brackets).

    Attributes
    ----------
    cov : ndarray (p, p)
        Final, reweighted scatter estimate [``cov``].
    center : ndarray (p,)
        Final, reweighted location [``center``].
    raw_cov, raw_center : ndarray
        Raw MCD scatter (consistency- and small-sample-corrected) and location
        [``raw.cov``, ``raw.center``].
    best : ndarray of int
        0-based positions (in the rows of the input) of the h-subset whose
        covariance has the smallest determinant [``best``].
    raw_weights : ndarray of float
        0/1 weights of the reweighting step, per used row [``raw.weights``].
    weights : ndarray of float
        0/1 weights with respect to the final estimate, per used row [``mcd.wt``].
    crit : float
        log determinant of the (uncorrected) covariance of the best h-subset;
        ``-inf`` in the exact-fit case [``crit``].
    quan : int
        h [``quan``].
    n_obs : int
        Number of rows used (rows with a missing or infinite value are dropped) [``n.obs``].
    rows : ndarray of int
        0-based positions of the used rows in the input.
    raw_cnp2, cnp2 : tuple of float
        (consistency factor, small sample factor) of the raw and final estimates.
    singularity : str or None
        ``None``, or ``"on.hyperplane"`` (exact fit: at least h observations lie on
        a hyperplane) / ``"identicalObs"`` (p = 1: at least h identical values).
    method : str
    """

    cov: np.ndarray
    center: np.ndarray
    raw_cov: np.ndarray
    raw_center: np.ndarray
    best: np.ndarray
    raw_weights: np.ndarray
    weights: np.ndarray
    crit: float
    quan: int
    n_obs: int
    rows: np.ndarray
    raw_cnp2: tuple
    cnp2: tuple
    singularity: str | None = None
    method: str = field(default="Fast MCD")


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

_SING_TOL = 1e-12  # smallest/largest eigenvalue ratio below which a covariance is singular

# robustbase enumerates all (p+1)-subsets (whatever nsamp) for these small (p, n)
_ALL_SUBSETS_NMAX = {2: 22, 3: 17, 4: 15, 5: 14}


def _as_matrix(x) -> np.ndarray:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(x, (pd.DataFrame, pd.Series)):
        frame = x.to_frame() if isinstance(x, pd.Series) else x
        bad = [c for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c])
                                                and not pd.api.types.is_bool_dtype(frame[c]))]
        if bad:
            raise InvalidParameterError(
                f"x must have numeric columns only; got non-numeric column(s) {bad!r}. "
                "Select the numeric key variables first."
            )
        arr = frame.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        arr = np.asarray(x)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                       or np.issubdtype(arr.dtype, np.bool_)):
            raise InvalidParameterError(
                f"x must be a numeric matrix; got an array of dtype {arr.dtype}. "
                "Convert it to float first."
            )
        arr = arr.astype(np.float64, copy=False)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InvalidParameterError(f"x must be a 1-d or 2-d numeric array; got {arr.ndim} dimensions.")
    return arr


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


def _check_int(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low:
        raise InvalidParameterError(f"{name} must be an integer >= {low}; got {value!r}.")
    return int(value)


# --------------------------------------------------------------------------------------
# Public function
# --------------------------------------------------------------------------------------


def cov_mcd(
    x,
    *,
    alpha: float = 0.5,
    nsamp: int | str = 500,
    nmini: int = 300,
    kmini: int = 5,
    random_state=None,
) -> McdResult:
    """Robust location and scatter by the Minimum Covariance Determinant (FAST-MCD).

    A vectorised equivalent of ``robustbase::covMcd(x)`` with its default settings.

    Parameters
    ----------
    x : array_like (n, p) or DataFrame of numeric columns
        Rows with a missing (NaN/None/NA) or infinite value are dropped, as covMcd does.
    alpha : float in [0.5, 1]
        Roughly the fraction of observations whose covariance determinant is minimised;
        h = :func:`h_alpha_n` (alpha, n, p).
    nsamp : int or "exact"
        Number of random (p+1)-subsets (500 as in robustbase). ``"exact"`` enumerates
        all of them. As robustbase does, all subsets are enumerated anyway when
        2 <= p <= 5 and n <= 22, 17, 15, 14 respectively.
    nmini, kmini : int
        For n >= 2 * nmini the search runs on at most kmini disjoint random groups of
        about nmini observations, then on their union, then on all data.
    random_state : None, int or numpy.random.Generator
        Seed of the random subsets; results are reproducible for a fixed seed.

    Returns
    -------
    McdResult

    Raises
    ------
    InvalidParameterError
        Non-numeric data, n <= p + 1 usable rows (robustbase stops there too), or
        invalid parameters.

    Warns
    -----
    DegenerateResultWarning
        n < 2p ("possibly too small sample size", as covMcd), and the exact-fit cases
        (at least h observations on a hyperplane / h identical values for p = 1), where
        the returned covariance is singular, as covMcd's is.

    Notes
    -----
    Raw estimate: mean and covariance of the best h-subset, the covariance multiplied
    by the consistency factor ``h/n / P(chi2_{p+2} <= chi2_{p;h/n})`` and the small
    sample factor of Pison et al. (2002). Reweighting: observations with squared
    robust distance ``<= chi2_{p;0.975}`` get weight 1; the weighted mean and
    covariance (divisor ``sum(w) - 1``) are corrected by the consistency factor at
    ``sum(w)/n`` and the reweighted small sample factor. For p = 1 the exact
    univariate MCD (the contiguous h-window of the sorted data with least variance) is
    computed, deterministically, with the variance divisor h as covMcd uses.

    The random subsets cannot reproduce R's random number stream: on data where the
    MCD optimum is well determined results agree with covMcd to within its own
    seed-to-seed variation; deterministic pieces (factors, p = 1, fully enumerated
    small samples) agree to rounding.

    References
    ----------
    Rousseeuw, P. J. and Van Driessen, K. (1999) A fast algorithm for the minimum
    covariance determinant estimator. Technometrics 41, 212-223.
    Croux, C. and Haesbroeck, G. (1999) Influence function and efficiency of the MCD
    scatter matrix estimator. J. Multivariate Analysis 71, 161-190.
    Pison, G., Van Aelst, S. and Willems, G. (2002) Small sample corrections for LTS
    and MCD. Metrika 55, 111-123.
    """
    a = alpha
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Real) or not (0.5 <= float(a) <= 1):
        raise InvalidParameterError(f"alpha must lie in [0.5, 1]; got {alpha!r}.")
    alpha = float(a)
    if isinstance(nsamp, str):
        if nsamp != "exact":
            raise InvalidParameterError(f"nsamp must be a positive integer or 'exact'; got {nsamp!r}.")
    else:
        nsamp = _check_int("nsamp", nsamp, 1)
    nmini = _check_int("nmini", nmini, 1)
    kmini = _check_int("kmini", kmini, 1)
    try:
        rng = np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"random_state must be None, an integer or a numpy.random.Generator; got {random_state!r}."
        ) from exc

    X0 = _as_matrix(x)
    fin = np.isfinite(X0)
    ok = fin.all(axis=1) if not fin.all() else None
    if ok is None:
        rows = np.arange(X0.shape[0])
        # keep a column-major matrix (d_utility's) as it is: its transpose XT below is then
        # a contiguous copy
        X = X0 if X0.flags.f_contiguous else np.ascontiguousarray(X0)
    else:
        rows = np.flatnonzero(ok)
        X = np.ascontiguousarray(X0[rows])
    n, p = X.shape
    if p == 0:
        raise InvalidParameterError("x must have at least one column; got none.")
    if n <= p:
        raise InvalidParameterError(
            f"x has n = {n} complete rows for p = {p} columns; the MCD needs n > p + 1 "
            "(covMcd: 'n <= p -- you can't be serious!'). Use more rows or fewer columns."
        )
    if n == p + 1:
        raise InvalidParameterError(
            f"x has n = {n} = p + 1 complete rows; covMcd refuses this as too small a sample "
            "for the MCD. Use more rows or fewer columns."
        )
    if n < 2 * p:
        warnings.warn(
            f"n = {n} < 2 * p = {2 * p}: possibly too small sample size for the MCD (as covMcd warns).",
            DegenerateResultWarning,
            stacklevel=2,
        )
    h = h_alpha_n(alpha, n, p)
    raw_cnp2 = (mcd_consistency_factor(p, h / n), mcd_small_sample_factor(p, n, alpha))
    method = f"Fast MCD(alpha={alpha:g} ==> h={h})"

    if p == 1:
        return _univariate(X, rows, h, alpha, raw_cnp2)

    # univariate exact fit, checked first as covMcd does: if the h-th smallest absolute deviation
    # from the median of some variable is zero, at least h observations share that variable's
    # median and lie on the hyperplane x_j = median_j
    # (h > n / 2, so such a value fills the middle of the sorted column: it is the
    # (n // 2)-th order statistic, and the median; one partition per column suffices)
    for j in range(p):  # loop over variables
        col = X[:, j].copy()
        col.partition(n // 2)
        mid = col[n // 2]
        on = X[:, j] == mid
        if np.count_nonzero(on) >= h:
            return _exact_fit(X, None, rows, np.flatnonzero(on), h, raw_cnp2, method, exact_rows=True)

    # work in coordinates centred near the data (numerically safer sums), column-major
    shift = np.median(X, axis=0) if n <= 100_000 else X[:: max(1, n // 100_000)].mean(axis=0)
    XT = np.empty((p, n))
    np.subtract(X.T, shift[:, None], out=XT)
    Xc = XT.T
    col_mean = XT.mean(axis=1)
    S_all = _gram(XT) - n * np.outer(col_mean, col_mean)
    if _singular(S_all[None])[0]:
        return _exact_fit(X, Xc, rows, np.arange(n), h, raw_cnp2, method)
    try:
        best, mu, C, crit = _fast_mcd(XT, h, nsamp, nmini, kmini, rng)
    except _ExactFit as ef:
        return _exact_fit(X, Xc, rows, ef.rows, h, raw_cnp2, method)
    if best.size > 1 and not (best[1:] > best[:-1]).all():  # (_final_large's are sorted)
        best = np.sort(best)
    raw_center = mu + shift
    raw_cov = C * (raw_cnp2[0] * raw_cnp2[1])
    # reweighting
    q = stats.chi2.ppf(0.975, p)
    d2 = _dist2_cols(XT, mu, raw_cov)
    keep = d2 <= q
    w = keep.astype(np.float64)
    Xw = np.compress(keep, XT, axis=1)
    sw = Xw.shape[1]
    center_c = Xw.mean(axis=1)
    Z = Xw - center_c[:, None]
    cov = _gram(Z) / (sw - 1)
    if sw == n:
        # every observation kept: the reweighted estimate is the classical covariance, and
        # robustbase reports (and applies) the factors (1, 1) -- observed for n < 2p, e.g. n = 5, p = 3
        cnp2 = (1.0, 1.0)
    else:
        cnp2 = (mcd_consistency_factor(p, sw / n), mcd_small_sample_factor(p, n, alpha, reweighted=True))
    cov = cov * (cnp2[0] * cnp2[1])
    cov = (cov + cov.T) / 2
    try:
        wf = (_dist2_cols(XT, center_c, cov) <= q).astype(np.float64)
    except np.linalg.LinAlgError:  # too few observations kept (n close to p)
        Zf = Xc - center_c
        wf = (np.einsum("ij,jk,ik->i", Zf, np.linalg.pinv(cov), Zf) <= q).astype(np.float64)
    return McdResult(
        cov=cov, center=center_c + shift, raw_cov=raw_cov, raw_center=raw_center,
        best=rows[best], raw_weights=w, weights=wf, crit=crit, quan=h, n_obs=n, rows=rows,
        raw_cnp2=raw_cnp2, cnp2=cnp2, singularity=None, method=method,
    )


def _exact_fit(X, Xc, rows, sing_rows, h, raw_cnp2, method, exact_rows=False):
    n, p = X.shape
    if sing_rows is None:
        sing_rows = np.arange(n)
    if exact_rows:  # the rows on the hyperplane are known exactly
        on = np.sort(np.asarray(sing_rows))
    else:
        on, _ = _hyperplane_rows(Xc, np.asarray(sing_rows))
    if on.size < h:  # numerical fallback: use the singular subset itself
        on = np.sort(np.asarray(sing_rows))
    Xo = X[on]
    center = Xo.mean(axis=0)
    Z = Xo - center
    cov = Z.T @ Z / (len(on) - 1) * (raw_cnp2[0] * raw_cnp2[1])
    warnings.warn(
        f"The covariance matrix has become singular: {len(on)} observations (of {n}) lie on a "
        "hyperplane (exact fit, as covMcd reports in $singularity); the returned covariance is "
        "singular.",
        DegenerateResultWarning,
        stacklevel=3,
    )
    wt = np.zeros(n)
    wt[on] = 1.0
    return McdResult(
        cov=cov, center=center, raw_cov=cov.copy(), raw_center=center.copy(), best=rows[on],
        raw_weights=wt, weights=wt.copy(), crit=-math.inf, quan=h, n_obs=n, rows=rows,
        raw_cnp2=raw_cnp2, cnp2=(1.0, 1.0), singularity="on.hyperplane", method=method,
    )


def _univariate(X, rows, h, alpha, raw_cnp2):
    """Exact univariate MCD: the contiguous h-window of the sorted data with least variance."""
    n = X.shape[0]
    x = X[:, 0]
    order = np.argsort(x, kind="stable")
    xs = x[order]
    method = f"Univariate Fast MCD(alpha={alpha:g} ==> h={h})"
    nwin = n - h + 1
    const = xs[h - 1:] == xs[:nwin]
    if const.any():
        i = int(np.flatnonzero(const)[0])
        value = xs[i]
        wt = (x == value).astype(np.float64)
        warnings.warn(
            f"Initial scale 0 because more than h = {h} observations are identical (as covMcd "
            "reports); the returned variance is 0.",
            DegenerateResultWarning,
            stacklevel=3,
        )
        c = np.array([value])
        z = np.zeros((1, 1))
        return McdResult(
            cov=z, center=c, raw_cov=z.copy(), raw_center=c.copy(), best=rows[np.sort(order[i:i + h])],
            raw_weights=wt, weights=wt.copy(), crit=-math.inf, quan=h, n_obs=n, rows=rows,
            raw_cnp2=raw_cnp2, cnp2=(1.0, 1.0), singularity="identicalObs", method=method,
        )
    ref = xs[n // 2]
    y = xs - ref
    c1 = np.concatenate([[0.0], np.cumsum(y)])
    c2 = np.concatenate([[0.0], np.cumsum(y * y)])
    s1 = c1[h:] - c1[:nwin]
    s2 = c2[h:] - c2[:nwin]
    ss = s2 - s1 * s1 / h
    i = int(np.argmin(ss))
    win = xs[i:i + h]
    mu = win.mean()
    ssq = float(((win - mu) ** 2).sum())
    crit = math.log(ssq / (h - 1))
    raw_var = ssq / h * raw_cnp2[0] * raw_cnp2[1]
    q = stats.chi2.ppf(0.975, 1)
    w = ((x - mu) ** 2 / raw_var <= q).astype(np.float64)
    sw = w.sum()
    c = (w @ x) / sw
    var = (w @ (x - c) ** 2) / (sw - 1)
    if sw == n:  # every observation kept: the classical variance, factors (1, 1) as robustbase
        cnp2 = (1.0, 1.0)
    else:
        cnp2 = (mcd_consistency_factor(1, sw / n), mcd_small_sample_factor(1, n, alpha, reweighted=True))
    var *= cnp2[0] * cnp2[1]
    wf = ((x - c) ** 2 / var <= q).astype(np.float64)
    return McdResult(
        cov=np.array([[var]]), center=np.array([c]), raw_cov=np.array([[raw_var]]),
        raw_center=np.array([mu]), best=rows[np.sort(order[i:i + h])], raw_weights=w, weights=wf,
        crit=crit, quan=h, n_obs=n, rows=rows, raw_cnp2=raw_cnp2, cnp2=cnp2, singularity=None,
        method=method,
    )
