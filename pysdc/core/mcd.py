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
from .rrandom import RRandom, as_rrandom

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
    random_state : None, int, RRandom or numpy.random.Generator
        An int ``s`` is R's ``set.seed(s)``, and a :class:`pysdc.core.rrandom.RRandom` is an
        R stream in any state (it advances as R's does): the result then equals
        ``set.seed(s); covMcd(x)`` (see Notes). A numpy Generator (or None: a fresh one) uses
        pysdc's own stream and its own faster FAST-MCD.

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

    With an R stream (an int seed or an ``RRandom``) the search follows robustbase
    0.95-0's FAST-MCD as R runs it: the same draws from R's Mersenne-Twister in the same
    order (subsets of p + 1 records, one more random record while a subset is singular,
    the subdatasets of n >= 2 * nmini records), the same arithmetic (median/MAD
    standardisation, cross products summed record by record, Gauss-Jordan sweeps), the same
    tie rules, the ten best kept per stage, the same stopping rule and the same exact-fit
    exits; the reweighting is covMcd's (``cov.wt``, weights ``d < chi2_{p;0.975}``). The
    estimates equal covMcd's to rounding and the stream is left where R leaves it
    (``tests/test_mcd_rstream.py`` checks both against robustbase). Rare branches that
    read uninitialised memory in robustbase (a singular h-subset in the last stage of a
    split data set with n > nmini * kmini) raise ``InvalidParameterError``.

    With a numpy Generator the random subsets are pysdc's own: on data where the MCD
    optimum is well determined results agree with covMcd to within its own seed-to-seed
    variation; deterministic pieces (factors, p = 1, fully enumerated small samples)
    agree to rounding.

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
        rr = as_rrandom(random_state)
        rng = None if rr is not None else np.random.default_rng(random_state)
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
    if rr is not None and h < n:
        return _cov_mcd_rstream(X, rows, h, alpha, nsamp, nmini, kmini, rr, raw_cnp2, method)

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
    with np.errstate(all="ignore"):
        ev = np.abs(np.linalg.eigvalsh(cov)) if np.isfinite(cov).all() else np.array([np.nan])
        ratio = ev.min() / ev.max() if ev.size and ev.max() > 0 else np.nan
    warnings.warn(
        f"The covariance matrix has become singular: {len(on)} observations (of {n}) lie on a "
        "hyperplane (exact fit, as covMcd reports in $singularity); the returned covariance is "
        f"singular (smallest/largest eigenvalue {ratio:.3g}, 0 up to rounding), so anything that divides by "
        "it -- Mahalanobis distances, its inverse, robeigen's |e1 - e2| / e1 -- is rounding noise.",
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


# --------------------------------------------------------------------------------------
# FAST-MCD on R's random stream (robustbase's covMcd, bit for bit)
# --------------------------------------------------------------------------------------
#
# With an R stream (pysdc.core.rrandom.RRandom, i.e. random_state = an int seed) cov_mcd follows
# robustbase 0.95-0's FAST-MCD as R runs it: the same random draws in the same order (subsets of
# p + 1 rows drawn as floor(u * n) + 1 with repeats redrawn, a singular subset extended by one
# more random row, the nonoverlapping subdatasets of n >= 2 * nmini drawn one row at a time), the
# same arithmetic (data standardised by median and the h-th smallest absolute deviation, sums of
# squares and cross products accumulated row by row, Gauss-Jordan sweeps, Mahalanobis forms
# summed in the same order), the same selection of the h smallest distances (ties resolved as a
# Hoare/Wirth selection resolves them), the same 10 best kept per stage (equal determinants kept
# once) and the same stopping rule (a determinant equal to the one two steps before). Written from
# the algorithm's description (Rousseeuw & Van Driessen 1999), robustbase's documentation and
# its observed behaviour; every step is vectorised over the starts of a stage.

_PLACEHOLDER = 1234567.0
_EXACT_TOL = 1e-7  # |distance to a hyperplane| below which an observation lies on it


class _NotReproduced(InvalidParameterError):
    """A rare branch of robustbase's FAST-MCD that the R-stream path does not follow."""

    def __init__(self, what: str):
        super().__init__(
            f"cov_mcd with an R seed: this data set takes a rare branch of robustbase's FAST-MCD ({what}) "
            "that pysdc does not reproduce on R's random stream. Pass a numpy Generator (or None) for "
            "pysdc's own MCD, or use pysdc.r for sdcMicro's own value."
        )


class _Uniforms:
    """Sequential reader of R's unif_rand() draws; ``finish`` advances the stream by what was read."""

    def __init__(self, rr):
        self.rr = rr
        self.work = rr.copy()
        self.buf: list[float] = []
        self.pos = 0

    def __call__(self) -> float:
        if self.pos >= len(self.buf):
            self.buf.extend(self.work.unif_rand(4096).tolist())
        u = self.buf[self.pos]
        self.pos += 1
        return u

    def finish(self):
        self.rr.advance(self.pos)


def _rfrangen(u: _Uniforms, n: int, nsel: int) -> list[int]:
    """nsel distinct 1-based cases out of n: int(u * n) + 1, a repeat is drawn again."""
    out: list[int] = []
    while len(out) < nsel:
        num = int(u() * n) + 1
        if num not in out:
            out.append(num)
    return out


def _insert_unselected(a: list[int], nrand: int) -> None:
    """Insert into the sorted 1-based list a the nrand-th integer not in it."""
    for i, ai in enumerate(a):
        if ai > nrand + i:
            a.insert(i, nrand + i)
            return
    a.append(nrand + len(a))


def _rfrdraw(u: _Uniforms, n: int, mini: list[int]):
    """Nonoverlapping subdatasets: sorted 1-based cases and their group (1-based)."""
    cases: list[int] = []
    groups: list[int] = []
    for k, m in enumerate(mini, start=1):
        for _ in range(m):
            nrand = int(u() * (n - len(cases))) + 1
            # the first position i with cases[i] > nrand + i (cases[i] - i never decreases): bisection
            lo, hi = 0, len(cases)
            while lo < hi:
                mid = (lo + hi) // 2
                if cases[mid] - mid > nrand:
                    hi = mid
                else:
                    lo = mid + 1
            cases.insert(lo, nrand + lo)
            groups.insert(lo, k)
    return np.array(cases, dtype=np.intp), np.array(groups, dtype=np.intp)


def _wirth_select(aw: np.ndarray, k: int, full: bool = False) -> np.ndarray:
    """0-based positions of the k smallest of aw, as Hoare/Wirth's selection leaves them (ties);
    ``full=True``: the whole permutation, in the order the selection leaves it."""
    a = aw.tolist()
    index = list(range(len(a)))
    lo, hi, kk = 0, len(a) - 1, k - 1
    while lo < hi:
        ax = a[kk]
        i, j = lo, hi
        while i <= j:
            while a[i] < ax:
                i += 1
            while a[j] > ax:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                index[i], index[j] = index[j], index[i]
                i += 1
                j -= 1
        if j < kk:
            lo = i
        if kk < i:
            hi = j
    if full:
        return np.array(index, dtype=np.intp)
    return np.sort(np.array(index[:k], dtype=np.intp))


def _select_smallest(dist: np.ndarray, k: int) -> np.ndarray:
    """(K, nn) distances -> (K, k) sorted 0-based positions of the k smallest (Wirth's ties)."""
    K, nn = dist.shape
    if k >= nn:
        return np.broadcast_to(np.arange(nn), (K, nn)).copy()
    v = np.partition(dist, k - 1, axis=1)[:, k - 1]
    mask = dist <= v[:, None]
    amb = mask.sum(axis=1) != k  # more than one distance equal to the k-th: ties to resolve
    out = np.empty((K, k), dtype=np.intp)
    ok = np.flatnonzero(~amb)
    if ok.size:
        out[ok] = np.nonzero(mask[ok])[1].reshape(ok.size, k)
    for r in np.flatnonzero(amb):  # ties at the k-th distance: resolve them as Wirth's selection does
        out[r] = _wirth_select(dist[r], k)
    return out


def _seq_sum(a: np.ndarray) -> np.ndarray:
    """Sum over axis 1 of a (K, m, q) array, adding the rows one after the other (as a loop does).

    NumPy reduces a C-contiguous array over a non-last axis row by row (pairwise summation
    applies only along the last axis), so ``np.add.reduce`` gives the sequential sum; blocks of
    rows carry the running total in as their first row.
    """
    K, m, q = a.shape
    chunk = max(1, (1 << 22) // max(1, q * K))
    if m <= chunk:
        return np.add.reduce(np.ascontiguousarray(a), axis=1)
    total = None
    for lo in range(0, m, chunk):
        block = a[:, lo:lo + chunk]
        if total is not None:
            block = np.concatenate([total[:, None], block], axis=1)
        total = np.add.reduce(np.ascontiguousarray(block), axis=1)
    return total


def _sscp_cov(D: np.ndarray, idx: np.ndarray):
    """Means and covariances (divisor m - 1) of the rows idx (K, m) of D, from raw cross products
    accumulated row by row (the products x_i x_j of the upper triangle; the sums are symmetric).

    The rows are laid out first, (m, K, q) in C order: NumPy then reduces over them one row after
    the other (pairwise summation applies only along the contiguous last axis).
    """
    K, m = idx.shape
    p = D.shape[1]
    iu, ju = np.triu_indices(p)
    q = iu.size
    rows_per = max(1, (1 << 17) // max(1, q * K))  # blocks that stay in cache
    acc1 = acc2 = None
    for lo in range(0, m, rows_per):
        R = D[idx[:, lo:lo + rows_per].T]  # (r, K, p), C order
        P = np.empty(R.shape[:2] + (q,))
        for t in range(q):
            np.multiply(R[:, :, iu[t]], R[:, :, ju[t]], out=P[:, :, t])
        if acc1 is not None:
            R = np.concatenate([acc1[None], R], axis=0)
            P = np.concatenate([acc2[None], P], axis=0)
        acc1 = np.add.reduce(R, axis=0)
        acc2 = np.add.reduce(P, axis=0)
    s2 = np.empty((K, p, p))
    s2[:, iu, ju] = acc2
    s2[:, ju, iu] = acc2
    means = acc1 / m
    cov = (s2 - (m * means)[:, :, None] * means[:, None, :]) / (m - 1)
    return means, cov


def _sweep(C: np.ndarray, eps: float):
    """Gauss-Jordan sweeps of C (K, p, p) in column order: (inverse, log det, first singular column)."""
    A = C.copy()
    K, p, _ = A.shape
    det = np.zeros(K)
    sing = np.full(K, -1)
    with np.errstate(all="ignore"):
        for k in range(p):
            piv = A[:, k, k].copy()
            det = det + np.array([math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)
                                  for v in piv.tolist()])
            newly = (piv < eps) & (sing < 0)
            sing[newly] = k
            rowk = A[:, k, :] / piv[:, None]
            A[:, k, :] = rowk
            b = A[:, :, k].copy()
            upd = A - b[:, :, None] * rowk[:, None, :]
            col = -b / piv[:, None]
            upd[:, :, k] = col
            upd[:, k, :] = rowk
            upd[:, k, k] = 1.0 / piv
            A = upd
    return A, det, sing


def _mahad(D: np.ndarray, means: np.ndarray, cinv: np.ndarray, DF: np.ndarray | None = None) -> np.ndarray:
    """(K, nn) quadratic forms sum_j sum_k (x_j - m_j)(x_k - m_k) S_jk, summed in that order.

    Computed in blocks of observations that stay in cache across the p^2 terms (the result does
    not depend on the block size: each observation's sum is formed in the same order).
    """
    p = D.shape[1]
    K, nn = means.shape[0], D.shape[0]
    src = D if DF is None else DF  # DF: the same data in column-major order (faster columns)
    out = np.empty((K, nn))
    step = max(1024, (1 << 15) // max(1, K))
    coef = [[cinv[:, j, k][:, None] for k in range(p)] for j in range(p)]
    for lo in range(0, nn, step):
        hi = min(nn, lo + step)
        cols = [src[lo:hi, j][None, :] - means[:, j][:, None] for j in range(p)]  # (K, b) each
        t = np.zeros((K, hi - lo))
        tmp = np.empty_like(t)
        prod = {}  # (x_j - m_j)(x_k - m_k) for j < k, used again (bit for bit the same) at (k, j)
        for j in range(p):
            for k in range(p):
                pk = prod.pop((k, j), None)
                if pk is None:
                    pk = cols[j] * cols[k]
                    if k > j:
                        prod[(j, k)] = pk
                np.multiply(pk, coef[j][k], out=tmp)
                t += tmp
        out[:, lo:hi] = t
    return out


def _pythag(a: float, b: float) -> float:
    p = max(abs(a), abs(b))
    if p == 0.0:
        return p
    r = (min(abs(a), abs(b)) / p) ** 2
    while True:
        t = 4.0 + r
        if t == 4.0:
            return p
        s = r / t
        u = 1.0 + 2.0 * s
        p = u * p
        r = (s / u) ** 2 * r


def _eispack_rs(A: np.ndarray):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix by Householder
    tridiagonalisation and the QL method with implicit shifts (EISPACK's tred2 + tql2, the
    routines robustbase calls; only the lower triangle of A is read).

    The step order matters where the smallest eigenvalue is multiple (a subset lying in a
    subspace of dimension < p - 1): the vector chosen for the hyperplane is the one this sequence
    of rotations produces. Scalar loops: used for the rare singular subsets, p x p only.
    """
    n = A.shape[0]
    z = [[float(A[j, i]) if j >= i else 0.0 for i in range(n)] for j in range(n)]  # z[row][col]
    d = [float(A[n - 1, i]) for i in range(n)]
    e = [0.0] * n
    if n > 1:
        for ii in range(2, n + 1):
            i = n + 2 - ii
            l_ = i - 1
            h = 0.0
            scale = 0.0
            if l_ >= 2:
                for k in range(1, l_ + 1):
                    scale = scale + abs(d[k - 1])
            if l_ < 2 or scale == 0.0:
                e[i - 1] = d[l_ - 1]
                for j in range(1, l_ + 1):
                    d[j - 1] = z[l_ - 1][j - 1]
                    z[i - 1][j - 1] = 0.0
                    z[j - 1][i - 1] = 0.0
                d[i - 1] = h
                continue
            for k in range(1, l_ + 1):
                d[k - 1] = d[k - 1] / scale
                h = h + d[k - 1] * d[k - 1]
            f = d[l_ - 1]
            g = -math.copysign(math.sqrt(h), f)
            e[i - 1] = scale * g
            h = h - f * g
            d[l_ - 1] = f - g
            for j in range(1, l_ + 1):
                e[j - 1] = 0.0
            for j in range(1, l_ + 1):
                f = d[j - 1]
                z[j - 1][i - 1] = f
                g = e[j - 1] + z[j - 1][j - 1] * f
                for k in range(j + 1, l_ + 1):
                    g = g + z[k - 1][j - 1] * d[k - 1]
                    e[k - 1] = e[k - 1] + z[k - 1][j - 1] * f
                e[j - 1] = g
            f = 0.0
            for j in range(1, l_ + 1):
                e[j - 1] = e[j - 1] / h
                f = f + e[j - 1] * d[j - 1]
            hh = f / (h + h)
            for j in range(1, l_ + 1):
                e[j - 1] = e[j - 1] - hh * d[j - 1]
            for j in range(1, l_ + 1):
                f = d[j - 1]
                g = e[j - 1]
                for k in range(j, l_ + 1):
                    z[k - 1][j - 1] = z[k - 1][j - 1] - f * e[k - 1] - g * d[k - 1]
                d[j - 1] = z[l_ - 1][j - 1]
                z[i - 1][j - 1] = 0.0
            d[i - 1] = h
        for i in range(2, n + 1):
            l_ = i - 1
            z[n - 1][l_ - 1] = z[l_ - 1][l_ - 1]
            z[l_ - 1][l_ - 1] = 1.0
            h = d[i - 1]
            if h != 0.0:
                for k in range(1, l_ + 1):
                    d[k - 1] = z[k - 1][i - 1] / h
                for j in range(1, l_ + 1):
                    g = 0.0
                    for k in range(1, l_ + 1):
                        g = g + z[k - 1][i - 1] * z[k - 1][j - 1]
                    for k in range(1, l_ + 1):
                        z[k - 1][j - 1] = z[k - 1][j - 1] - g * d[k - 1]
            for k in range(1, l_ + 1):
                z[k - 1][i - 1] = 0.0
    for i in range(n):
        d[i] = z[n - 1][i]
        z[n - 1][i] = 0.0
    z[n - 1][n - 1] = 1.0
    e[0] = 0.0
    # tql2
    if n > 1:
        for i in range(2, n + 1):
            e[i - 2] = e[i - 1]
        f = 0.0
        tst1 = 0.0
        e[n - 1] = 0.0
        c3 = s2 = 0.0
        for l_ in range(1, n + 1):
            j = 0
            h = abs(d[l_ - 1]) + abs(e[l_ - 1])
            if tst1 < h:
                tst1 = h
            for m in range(l_, n + 1):
                tst2 = tst1 + abs(e[m - 1])
                if tst2 == tst1:
                    break
            if m != l_:
                while True:
                    if j == 30:
                        raise _NotReproduced("EISPACK tql2 did not converge")
                    j += 1
                    l1 = l_ + 1
                    l2 = l1 + 1
                    g = d[l_ - 1]
                    p = (d[l1 - 1] - g) / (2.0 * e[l_ - 1])
                    r = _pythag(p, 1.0)
                    d[l_ - 1] = e[l_ - 1] / (p + math.copysign(r, p))
                    d[l1 - 1] = e[l_ - 1] * (p + math.copysign(r, p))
                    dl1 = d[l1 - 1]
                    h = g - d[l_ - 1]
                    for i in range(l2, n + 1):
                        d[i - 1] = d[i - 1] - h
                    f = f + h
                    p = d[m - 1]
                    c = 1.0
                    c2 = c
                    el1 = e[l1 - 1]
                    s = 0.0
                    for ii in range(1, m - l_ + 1):
                        c3 = c2
                        c2 = c
                        s2 = s
                        i = m - ii
                        g = c * e[i - 1]
                        h = c * p
                        r = _pythag(p, e[i - 1])
                        e[i] = s * r
                        s = e[i - 1] / r
                        c = p / r
                        p = c * d[i - 1] - s * g
                        d[i] = h + s * (c * g + s * d[i - 1])
                        for k in range(n):
                            hk = z[k][i]
                            z[k][i] = s * z[k][i - 1] + c * hk
                            z[k][i - 1] = c * z[k][i - 1] - s * hk
                    p = -s * s2 * c3 * el1 * e[l_ - 1] / dl1
                    e[l_ - 1] = s * p
                    d[l_ - 1] = c * p
                    tst2 = tst1 + abs(e[l_ - 1])
                    if not tst2 > tst1:
                        break
            d[l_ - 1] = d[l_ - 1] + f
        for ii in range(2, n + 1):
            i = ii - 1
            k = i
            p = d[i - 1]
            for jj in range(ii, n + 1):
                if d[jj - 1] < p:
                    k = jj
                    p = d[jj - 1]
            if k != i:
                d[k - 1] = d[i - 1]
                d[i - 1] = p
                for jj in range(n):
                    z[jj][i - 1], z[jj][k - 1] = z[jj][k - 1], z[jj][i - 1]
    return np.array(d), np.array(z)


def _hyperplane(C: np.ndarray):
    """Normal vector of the hyperplane of a singular covariance: the eigenvector of its smallest
    eigenvalue as EISPACK's rs computes it."""
    _, Z = _eispack_rs(C)
    return Z[:, 0]


def _plane_dist(D: np.ndarray, z: np.ndarray, means: np.ndarray) -> np.ndarray:
    t = np.zeros(D.shape[0])
    for j in range(D.shape[1]):
        t = z[j] * (D[:, j] - means[j]) + t
    return np.abs(t)


class _ExactFitR(Exception):
    def __init__(self, code: int, on: np.ndarray, z: np.ndarray, data: np.ndarray | None = None):
        self.code = code
        self.on = on  # 0/1 weights of the observations on the hyperplane
        self.z = z
        self.data = data  # the data their mean and covariance are computed from (None: the input)


class _Top10:
    """The 10 best (det, means, cov) of a stage, equal determinants kept once (as FAST-MCD).

    Slot 0 may hold a hyperplane (its "det" is then the count of observations on it); offers
    then start at slot ``lll`` = 1 so that it stays first.
    """

    def __init__(self):
        self.det: list[float] = []
        self.means: list[np.ndarray] = []
        self.cov: list[np.ndarray] = []

    def offer(self, det: float, means: np.ndarray, cov: np.ndarray, lll: int = 0):
        dets = self.det
        for j in range(lll, 10):
            if j >= len(dets):
                break
            if det <= dets[j]:
                if det == dets[j]:
                    same = all(
                        np.array_equal(means, self.means[kk]) and np.array_equal(cov, self.cov[kk])
                        for kk in range(j, len(dets)) if dets[kk] == det
                    )
                    if same:
                        return
                self._insert(j, det, means, cov)
                return
        if len(dets) < 10 and len(dets) >= lll:
            self._insert(len(dets), det, means, cov)

    def store_first(self, means, cov, kount):
        self._insert(0, float(kount), means, cov)

    def _insert(self, j, det, means, cov):
        self.det.insert(j, det)
        self.means.insert(j, means)
        self.cov.insert(j, cov)
        del self.det[10:], self.means[10:], self.cov[10:]


def _csteps_status(D, sel, nhalf, eps, nsteps=2):
    """nsteps C-steps from the subsets sel (K, nhalf): per start (means, cov, det) of the last subset,
    or a singular subset met on the way (status True, with that subset's means and cov)."""
    K, p = sel.shape[0], D.shape[1]
    means_o = np.empty((K, p))
    cov_o = np.empty((K, p, p))
    det_o = np.empty(K)
    plane = np.zeros(K, dtype=bool)
    live = np.arange(K)
    for step in range(nsteps):
        m, c = _sscp_cov(D, sel)
        ci, det, sing = _sweep(c, eps)
        bad = sing >= 0
        if bad.any():
            means_o[live[bad]], cov_o[live[bad]] = m[bad], c[bad]
            plane[live[bad]] = True
        good = ~bad
        live, m, c, ci, det = live[good], m[good], c[good], ci[good], det[good]
        if step == nsteps - 1 or not live.size:
            means_o[live], cov_o[live], det_o[live] = m, c, det
            break
        sel = _select_smallest(_mahad(D, m, ci), nhalf)
    return means_o, cov_o, det_o, plane


def _initial_subsets(u, D, nsel, nrep, eps, draw, nhalf, part):
    """Trial subsets of one (sub)dataset drawn in R's order, a singular one extended by random rows.

    Returns (means, cinv, cov, plane, ends): plane[t] marks a (part mode) subset spanning a
    hyperplane that holds nhalf observations of D (kept unextended, its means/cov returned);
    ends[t] is the stream position after trial t. In whole-data mode such a subset is an exact fit.
    """
    nn, p = D.shape
    means_out = np.empty((nrep, p))
    cinv_out = np.empty((nrep, p, p))
    cov_out = np.empty((nrep, p, p))
    plane = np.zeros(nrep, dtype=bool)
    ends_out = np.empty(nrep, dtype=np.int64)
    t = 0
    while t < nrep:
        # draw the remaining trials optimistically, remembering where each one ends in the stream
        subs, ends = [], []
        for tt in range(t, nrep):
            subs.append(draw(tt))
            ends.append(u.pos)
        idx = np.array(subs, dtype=np.intp) - 1
        means, cov = _sscp_cov(D, idx)
        cinv, _, sing = _sweep(cov, eps)
        bad = np.flatnonzero(sing >= 0)
        stop = bad[0] if bad.size else len(subs)
        sl = slice(t, t + stop)
        means_out[sl], cinv_out[sl], cov_out[sl] = means[:stop], cinv[:stop], cov[:stop]
        ends_out[sl] = ends[:stop]
        if not bad.size:
            break
        # trial t + stop is singular: rewind the stream to its end and extend it row by row
        u.pos = ends[stop]
        cur = subs[stop]
        C1, m1 = cov[stop], means[stop]
        k = t + stop
        while True:
            z = _hyperplane(C1)
            dist = np.sort(_plane_dist(D, z, m1))
            if dist[nhalf - 1] < _EXACT_TOL:
                if not part:
                    raise _PlaneExit(m1, C1, u.pos)
                plane[k] = True
                means_out[k], cov_out[k] = m1, C1
                break
            cur = sorted(cur)
            nrand = int(u() * (nn - len(cur))) + 1
            _insert_unselected(cur, nrand)
            mm, cc = _sscp_cov(D, np.array([cur], dtype=np.intp) - 1)
            ci, _, sg = _sweep(cc, eps)
            m1, C1 = mm[0], cc[0]
            if sg[0] < 0:
                means_out[k], cinv_out[k], cov_out[k] = m1, ci[0], C1
                break
        ends_out[k] = u.pos
        t = k + 1
    return means_out, cinv_out, cov_out, plane, ends_out


class _PlaneExit(Exception):
    """A subset (means, cov, in standardised units) spans a hyperplane holding h observations."""

    def __init__(self, means, cov, pos=None, dath=None):
        self.means = means
        self.cov = cov
        self.pos = pos
        self.dath = dath  # the data robustbase measures the distances on, when not the whole data


def _final_stage(D, starts, h, kstep, eps, DF=None):
    """C-steps from the final starts until a determinant repeats the one two steps before.

    starts: list of ("cov", means, cov) or ("subset", sorted positions).
    """
    K = len(starts)
    if DF is None and D.shape[0] > 10_000:
        DF = np.asfortranarray(D)
    sel = np.empty((K, h), dtype=np.intp)
    ic = [k for k, s in enumerate(starts) if s[0] == "cov"]
    if ic:
        cinv, _, sing = _sweep(np.array([starts[k][2] for k in ic]), eps)
        if (sing >= 0).any():
            raise _NotReproduced("a final start is singular")
        sel[ic] = _select_smallest(_mahad(D, np.array([starts[k][1] for k in ic]), cinv, DF), h)
    for k, s in enumerate(starts):
        if s[0] == "subset":
            sel[k] = s[1]
    active = np.ones(K, dtype=bool)
    deti = np.full(K, -1e300)
    detim1 = deti.copy()
    records = [[] for _ in range(K)]
    for step in range(1, kstep + 1):
        ia = np.flatnonzero(active)
        if not ia.size:
            break
        m, c = _sscp_cov(D, sel[ia])
        ci, det, sg = _sweep(c, eps)
        if (sg >= 0).any():
            j = int(np.flatnonzero(sg >= 0)[0])
            raise _PlaneExit(m[j], c[j], dath="final")
        stop = (det == detim1[ia]) if step >= 2 else np.zeros(ia.size, dtype=bool)
        active[ia[stop]] = False
        go = ~stop
        ig = ia[go]
        detim1[ig] = deti[ig]
        deti[ig] = det[go]
        if not ig.size:
            break
        nsel = _select_smallest(_mahad(D, m[go], ci[go], DF), h)
        sel[ig] = nsel
        for r, k in enumerate(ig):
            records[k].append((float(det[go][r]), m[go][r], c[go][r], nsel[r]))
    best = None
    for k in range(K):  # processing order: start by start, step by step; strict improvement
        for rec in records[k]:
            if best is None or rec[0] < best[0]:
                best = rec
    return best


def _fastmcd_rstream(X: np.ndarray, h: int, nsamp: int, nmini: int, kmini: int, rr):
    """robustbase's ``.fastmcd`` (p >= 2, h < n) on R's stream rr.

    Returns (initmean, initcov, best 0-based, crit); raises _ExactFitR for an exact fit.
    """
    u = _Uniforms(rr)
    try:
        return _fastmcd_body(X, h, nsamp, nmini, kmini, u)
    finally:
        u.finish()


def _median_mad(col: np.ndarray, h: int):
    """robustbase's centre and scale of a variable: the mean of the (n // 2)-th and the
    ((n + 2) // 2)-th smallest values -- for odd n too (its test for an even n always holds), so
    not the median then -- and the h-th smallest absolute deviation from it."""
    n = col.size
    k2 = (n + 2) // 2 - 1  # 0-based
    s = np.partition(col, k2)
    med = (s[:k2].max() + s[k2]) / 2 if k2 > 0 else s[k2]  # (n // 2 - 1 == k2 - 1)
    dev = np.abs(col - med)
    return med, np.partition(dev, h - 1)[h - 1], dev


def _exit_on_plane(X0, med, mad, means_std, cov_std, code=2, dist_data=None):
    """robustbase's exact-fit exit: the subset's plane in original units, the observations on it."""
    means = means_std * mad + med
    cov = (cov_std * mad[:, None]) * mad[None, :]
    z = _hyperplane(cov)
    Dd = X0 if dist_data is None else dist_data
    on = _plane_dist(Dd, z, means) < _EXACT_TOL
    return _ExactFitR(code, on, z)


def _fastmcd_body(X0, h, nsamp, nmini, kmini, u):
    n, p = X0.shape
    X = X0  # read only until standardised below (a new array then: X0 is left as given)
    percen = h / n
    eps = 1e-12 if p < 5 else (1e-14 if p <= 8 else 1e-16)
    nsel = p + 1
    nmaxi = nmini * kmini
    part = nsamp > 0 and n >= 2 * nmini
    if part:
        ngroup = n // nmini
        if ngroup < kmini:
            mm = n // ngroup
            r = n - ngroup * mm
            mini = [mm] * (ngroup - r) + [mm + 1] * r
            minigr = ngroup * mm + r
        else:
            ngroup = kmini
            mini = [nmini] * kmini
            minigr = kmini * nmini
        nhalf = int(mini[0] * percen)
        nrep = nsamp // ngroup
        sub_cases, sub_groups = _rfrdraw(u, n, mini)
    else:
        minigr = n
        nhalf = h
        replow = {1: 500, 2: 50, 3: 22, 4: 17, 5: 15, 6: 14}.get(nsel, 0)
        enumerate_all = nsamp == 0 or n <= replow
        nrep = math.comb(n, nsel) if enumerate_all else nsamp

    # classical estimate: an exactly singular data set is an exact fit (code 1). A quick covariance
    # decides; robustbase's own (raw cross products, row by row) where the decision is close
    # (a constant variable has a zero pivot: robustbase's "sd = 0" exit is the same exit)
    cs = X.sum(axis=0)
    cq = (_gram_cols(X) - np.outer(cs, cs) / n) / (n - 1)
    _, _, sing = _sweep(cq[None], 1e4 * eps)
    if sing[0] >= 0:
        cm, cc = _sscp_cov(X, np.arange(n)[None, :])
        cm, cc = cm[0], cc[0]
        _, _, sing = _sweep(cc[None], eps)
        if (X == X[0]).all(axis=0).any():
            sing[0] = 0
    if sing[0] >= 0:
        z = _hyperplane(cc)
        raise _ExactFitR(1, _plane_dist(X, z, cm) < _EXACT_TOL, z)

    # standardise by the median and the h-th smallest absolute deviation (exact fit code 3 when 0)
    med = np.empty(p)
    mad = np.empty(p)
    devs = []
    for j in range(p):  # loop over variables
        med[j], mad[j], dev = _median_mad(X0[:, j], h)  # (X0: contiguous columns when column-major)
        devs.append(dev)
        if mad[j] < eps:
            break
    zero = np.flatnonzero(mad[:len(devs)] < eps)
    XF = None  # the standardised data in column-major order too (the last stage reads columns)
    if not zero.size:  # every variable at once: (x - med) / mad, element by element as one by one
        if n > 10_000 and X0.flags.f_contiguous:
            XF = (X0 - med) / mad
            X = np.ascontiguousarray(XF)
        else:
            X = np.empty((n, p))
            np.subtract(X0, med, out=X)
            X /= mad
    else:
        X = np.array(X0, dtype=np.float64, order="C")
    for j in range(int(zero[0]) + 1 if zero.size else 0):  # loop over variables (exact fit only)
        dev = devs[j]
        if mad[j] < eps:
            # at least h observations share the median of variable j: robustbase returns their
            # hyperplane x_j = mean of the first p + 1 of them (in its selection's order); the
            # variables standardised so far are first brought back (x * mad + med)
            for k in range(j):  # loop over variables
                X[:, k] = X[:, k] * mad[k] + med[k]
            first = _wirth_select(dev, h, full=True)[:nsel]
            m_sub, _ = _sscp_cov(X, first[None, :])
            z = np.zeros(p)
            z[j] = 1.0
            on = _plane_dist(X, z, m_sub[0]) < _EXACT_TOL
            raise _ExactFitR(3, on, z, data=X.copy())
        X[:, j] = (X[:, j] - med[j]) / mad[j]

    def global_plane_check(means, cov, nn):
        # robustbase: when a subset's hyperplane holds h observations of all data, stop (exact fit);
        # it then measures the first nn observations' distances to the plane in original units and
        # keeps the (sorted, standardised) distances it had for the others
        z = _hyperplane(cov)
        d = np.sort(_plane_dist(X, z, means))
        if d[h - 1] < _EXACT_TOL:
            ef = _exit_on_plane(X0[:nn], med, mad, means, cov)
            ef.on = np.concatenate([ef.on, d[nn:] < _EXACT_TOL])
            raise ef
        return z

    flag = np.ones(10 * kmini, dtype=bool)
    coeff = {}
    if part:
        top_g = []
        for ii in range(1, ngroup + 1):
            g_rows = sub_cases[sub_groups == ii] - 1
            Dg = X[g_rows]
            mg = mini[ii - 1]
            mu0, ci0, cv0, pl0, _ = _initial_subsets(
                u, Dg, nsel, nrep, eps, lambda _t, mg=mg: _rfrangen(u, mg, nsel), nhalf, True)
            ok = np.flatnonzero(~pl0)
            m2 = np.empty((nrep, p))
            c2 = np.empty((nrep, p, p))
            d2 = np.empty(nrep)
            pl = pl0.copy()
            m2[pl0], c2[pl0] = mu0[pl0], cv0[pl0]
            if ok.size:
                sel = _select_smallest(_mahad(Dg, mu0[ok], ci0[ok]), nhalf)
                mo, co, do, po = _csteps_status(Dg, sel, nhalf, eps)
                m2[ok], c2[ok], d2[ok], pl[ok] = mo, co, do, po
            top = _Top10()
            kount = 0
            for k in range(nrep):  # trial order
                if pl[k]:
                    if kount:
                        continue
                    z = global_plane_check(m2[k], c2[k], mg)
                    dd = np.sort(_plane_dist(Dg, z, m2[k]))
                    kc = nhalf + int((dd[nhalf:] < _EXACT_TOL).sum())
                    flag[(ii - 1) * 10] = False
                    coeff[ii] = z
                    top.store_first(m2[k], c2[k], kc)
                    kount = 1
                else:
                    top.offer(float(d2[k]), m2[k], c2[k], 0 if flag[(ii - 1) * 10] else 1)
            top_g.append(top)
        # second stage: the merged subdatasets
        Dm = X[sub_cases - 1]
        nhalf_m = int(minigr * percen)
        cand = []  # (ii, i, kind, payload)
        for ii, tg in enumerate(top_g, start=1):
            for i in range(len(tg.det)):
                cand.append((ii, i, tg.means[i], tg.cov[i]))
        top = _Top10()
        kount = 0
        # starts: plane candidates resolved in order (they depend on kount and flags), others batched
        starts_sel = {}
        cov_c = [k for k, c in enumerate(cand) if flag[(c[0] - 1) * 10 + c[1]]]
        if cov_c:
            ci, _, sg = _sweep(np.array([cand[k][3] for k in cov_c]), eps)
            if (sg >= 0).any():
                raise _NotReproduced("a stored start of the merged stage is singular")
            sel = _select_smallest(_mahad(Dm, np.array([cand[k][2] for k in cov_c]), ci), nhalf_m)
            for r, k in enumerate(cov_c):
                starts_sel[k] = sel[r]
        plane_info = {}
        for k, c in enumerate(cand):
            if k in starts_sel:
                continue
            ii = c[0]
            z = coeff[ii]
            dd = np.sort(_plane_dist(Dm, z, c[2]))
            plane_info[k] = (z, dd)
            starts_sel[k] = _wirth_select(dd, nhalf_m)  # robustbase selects on the sorted distances
        order = list(range(len(cand)))
        sel_all = np.array([starts_sel[k] for k in order], dtype=np.intp)
        mo, co, do, po = _csteps_status(Dm, sel_all, nhalf_m, eps)
        for k in order:
            ii, i = cand[k][0], cand[k][1]
            if k in plane_info:
                z, dd = plane_info[k]
                if dd[nhalf_m - 1] < _EXACT_TOL and n > nmaxi:
                    if kount:
                        continue
                    kc = nhalf_m + int((dd[nhalf_m:] < _EXACT_TOL).sum())
                    flag[0] = False
                    coeff[1] = z
                    top.store_first(cand[k][2], cand[k][3], kc)
                    kount = 1
                    continue
                flag[0] = True
            if po[k]:
                if n <= nmaxi:
                    raise _NotReproduced("singular h-subset in the merged stage (exact fit, n <= nmini * kmini)")
                if kount:
                    continue
                z = global_plane_check(mo[k], co[k], minigr)
                dd = np.sort(_plane_dist(Dm, z, mo[k]))
                kc = nhalf_m + int((dd[nhalf_m:] < _EXACT_TOL).sum())
                flag[0] = False
                coeff[1] = z
                top.store_first(mo[k], co[k], kc)
                kount = 1
                continue
            top.offer(float(do[k]), mo[k], co[k], 0 if flag[0] else 1)
    else:
        if enumerate_all:
            combos = list(itertools.combinations(range(1, n + 1), nsel))  # R's order (lexicographic)

            def draw(t):
                return list(combos[t])
        else:
            def draw(t):
                return _rfrangen(u, n, nsel)
        try:
            mu0, ci0, _, _, ends = _initial_subsets(u, X, nsel, nrep, eps, draw, nhalf, False)
        except _PlaneExit as pe:
            raise _exit_on_plane(X0, med, mad, pe.means, pe.cov) from None
        sel = _select_smallest(_mahad(X, mu0, ci0), nhalf)
        m2, c2, d2, pl = _csteps_status(X, sel, nhalf, eps)
        if pl.any():
            k = int(np.flatnonzero(pl)[0])
            u.pos = int(ends[k])  # robustbase stops at this trial: later trials are never drawn
            raise _exit_on_plane(X0, med, mad, m2[k], c2[k], dist_data=np.zeros_like(X0))
        top = _Top10()
        for k in range(nrep):
            top.offer(float(d2[k]), m2[k], c2[k])

    # final stage on all data
    npv = n * p
    if npv <= 100_000:
        kstep = 100
    elif npv > 1_000_000:
        kstep = 1
    else:
        kstep = 11 - (npv - 1) // 100_000
    nfin = 1 if n > 5000 else 10
    starts = []
    for i in range(min(nfin, len(top.det))):
        if not flag[i]:
            z = coeff[1]
            starts.append(("subset", _wirth_select(_plane_dist(X, z, top.means[i]), h)))
        else:
            starts.append(("cov", top.means[i], top.cov[i]))
    try:
        det, bm, bc, inbest = _final_stage(X, starts, h, kstep, eps, XF)
    except _PlaneExit as pe:
        if part:
            raise _NotReproduced("singular h-subset in the final stage of a split data set (exact fit)") from None
        raise _exit_on_plane(X0, med, mad, pe.means, pe.cov, dist_data=np.zeros_like(X0)) from None
    initmean = bm * mad + med
    initcov = (bc * mad[None, :]) * mad[:, None]
    crit = det + sum(2 * math.log(v) for v in mad.tolist())
    return initmean, initcov, np.sort(inbest), crit


def _gram_cols(Z: np.ndarray) -> np.ndarray:
    """Z' Z from column products (no multithreaded BLAS call: it stalls on a busy machine)."""
    p = Z.shape[1]
    G = np.empty((p, p))
    for j in range(p):  # loop over pairs of variables
        for k in range(j, p):
            G[j, k] = G[k, j] = np.add.reduce(Z[:, j] * Z[:, k])
    return G


def _r_mahalanobis(X: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """R's mahalanobis(X, center, cov): squared distances, in blocks of records kept in cache."""
    S = np.linalg.inv(cov)
    n, p = X.shape
    out = np.empty(n)
    step = 1 << 15
    for lo in range(0, n, step):
        cols = [X[lo:lo + step, j] - center[j] for j in range(p)]  # loop over variables
        t = np.zeros(cols[0].shape)
        for j in range(p):
            y = cols[0] * S[0, j]
            for k in range(1, p):
                y += cols[k] * S[k, j]
            t += y * cols[j]
        out[lo:lo + step] = t
    return out


def _r_cov_wt(X: np.ndarray, w: np.ndarray):
    """R's cov.wt(x, wt = w): weights normalised to sum 1, unbiased divisor 1 - sum(wt^2)."""
    wt = w / w.sum()
    center = (wt[:, None] * X).sum(axis=0)
    Z = np.sqrt(wt)[:, None] * (X - center)
    return center, _gram_cols(Z) / (1 - (wt * wt).sum())


def _cov_mcd_rstream(X, rows, h, alpha, nsamp, nmini, kmini, rr: RRandom, raw_cnp2, method):
    """covMcd (p >= 2, h < n) with FAST-MCD on R's stream rr; rr advances as R's does."""
    n, p = X.shape
    if nsamp == "exact":
        krep = 0 if n <= 2 * nmini - 1 else 500
    else:
        krep = int(nsamp)
    fac = raw_cnp2[0] * raw_cnp2[1]
    q = stats.chi2.ppf(0.975, p)
    try:
        initmean, initcov, best, crit = _fastmcd_rstream(X, h, krep, nmini, kmini, rr)
    except _ExactFitR as ef:
        on = ef.on
        Xo = (X if ef.data is None else ef.data)[on]
        if Xo.shape[0]:
            m, c = _sscp_cov(Xo, np.arange(Xo.shape[0])[None, :])
        else:  # no observation on the plane: robustbase divides by zero
            m, c = np.full((1, p), np.nan), np.full((1, p, p), np.nan)
        cov = fac * c[0]
        wt = on.astype(np.float64)
        warnings.warn(
            f"The covariance matrix has become singular: {int(on.sum())} observations (of {n}) lie on a "
            "hyperplane (exact fit, as covMcd reports in $singularity); the returned covariance is "
            "singular.",
            DegenerateResultWarning,
            stacklevel=3,
        )
        return McdResult(
            cov=cov, center=m[0], raw_cov=cov.copy(), raw_center=m[0].copy(), best=rows[np.flatnonzero(on)],
            raw_weights=wt, weights=wt.copy(), crit=-math.inf, quan=h, n_obs=n, rows=rows,
            raw_cnp2=raw_cnp2, cnp2=(1.0, 1.0), singularity="on.hyperplane", method=method,
        )
    raw_cov = fac * initcov
    w = (_r_mahalanobis(X, initmean, raw_cov) < q).astype(np.float64)
    sw = w.sum()
    center, cov = _r_cov_wt(X, w)
    sing_rewt = bool((cov == 0).all(axis=0).any())
    cnp2 = (1.0, 1.0)
    if not sing_rewt and sw != n:
        cnp2 = (mcd_consistency_factor(p, sw / n), mcd_small_sample_factor(p, n, alpha, reweighted=True))
        cov = (cnp2[0] * cnp2[1]) * cov
    try:
        wf = (_r_mahalanobis(X, center, cov) < q).astype(np.float64)
    except np.linalg.LinAlgError:
        wf = w.copy()
    return McdResult(
        cov=cov, center=center, raw_cov=raw_cov, raw_center=initmean, best=rows[best], raw_weights=w,
        weights=wf, crit=crit, quan=h, n_obs=n, rows=rows, raw_cnp2=raw_cnp2, cnp2=cnp2,
        singularity=None, method=method,
    )
