"""Distance-based disclosure risk for continuous variables: SDID (``dRisk``) and RMDID (``dRiskRMD``).

Engine-free kernel behind :func:`pysdc.d_risk` and :func:`pysdc.d_risk_rmd`: float
matrices in (records x variables, NaN for missing), arrays and numbers out.

* :func:`r_scale`, :func:`r_sd` -- R's ``scale()`` and ``sd(na.rm = TRUE)`` with R's
  extended-precision accumulation (sums in ``long double``), so that interval bounds
  are the same doubles as in R.
* :func:`sdid_at_risk` -- a record is at risk when every original value lies inside
  ``[xm - k * sd(xm), xm + k * sd(xm)]`` (missing comparisons ignored).
* :func:`rmd_radius`, :func:`rmdid_flags`, :func:`nearest_other_distance_exceeds` and
  :func:`d_risk_rmd_core` -- the robust-Mahalanobis intervals and the nearest masked
  neighbour test, with the robust covariance passed in (so a covariance computed
  elsewhere, e.g. by R, can be injected).

sdcMicro builds the full n x n Euclidean distance matrix of the masked data to find,
for each flagged record, its nearest other masked record. Here a k-d tree
(:class:`scipy.spatial.cKDTree`) answers the same question -- is the nearest other masked
record farther than ``k2``? -- in O(n log n) time and O(n) memory; the distance of the
neighbour found is then recomputed with R's arithmetic (including ``dist()``'s rule for
missing values: coordinates missing in either record are skipped and the sum of squares
is scaled up by ``p / (coordinates used)``).

Written from sdcMicro's documentation and observed behaviour (sdcMicro 5.8.0), not from
its source code.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.spatial import cKDTree

from .._errors import InvalidParameterError
from .ldsum import ld_sum, ld_sumsq

__all__ = [
    "r_scale",
    "r_sd",
    "r_col_means",
    "sdid_at_risk",
    "rmd_radius",
    "rmdid_flags",
    "nearest_other_distance_exceeds",
    "d_risk_rmd_core",
    "RMD_FACTOR",
]

#: sdcMicro multiplies the square root of the robust Mahalanobis distance by this constant
RMD_FACTOR = 0.05
#: rows per block for the n x p products (bounded temporary memory)
_CHUNK = 1 << 16
_LD = np.longdouble


def _ldsum(a: np.ndarray, axis=0) -> np.ndarray:
    """Sum in extended precision (R accumulates ``sum``/``colMeans``/``rowSums`` in long double)."""
    return np.add.reduce(a, axis=axis, dtype=_LD)


def r_col_means(X: np.ndarray) -> np.ndarray:
    """R's ``colMeans(X)`` (no ``na.rm``: a column with a missing value gives NaN)."""
    n = X.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (_ldsum(X) / _LD(n)).astype(np.float64) if n else np.full(X.shape[1], np.nan)


def _ldsum_cols(Z: np.ndarray) -> np.ndarray:
    """Column sums of Z (n, p) in long double, each added one value after the other, as R's
    ``sum``/``colMeans`` accumulate (NumPy reduces a C-contiguous array over its first axis row by
    row when it has at least two columns)."""
    n, p = Z.shape
    if not n:
        return np.zeros(p, dtype=_LD)
    if p == 1 or Z.flags.f_contiguous:  # contiguous columns: one running sum each
        return np.array([np.cumsum(Z[:, j], dtype=_LD)[-1] for j in range(p)], dtype=_LD)
    return np.add.reduce(np.ascontiguousarray(Z), axis=0, dtype=_LD)


def r_scale(X: np.ndarray) -> np.ndarray:
    """R's ``scale(X)``: centre by the column means, divide by the root mean square (n - 1).

    Missing values (NaN) are skipped column by column, as R does; a column with fewer than
    two values, or a constant one, gives NaN (0/0) or +-Inf, as in R. The sums are R's, to the
    bit: long double, in record order.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return X.copy()
    ok = ~np.isnan(X)
    allok = bool(ok.all())
    m = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (_ldsum_cols(X if allok else np.where(ok, X, 0.0)) / m.astype(_LD)).astype(np.float64)
        c = X - centre
        ss = _ldsum_cols(c * c if allok else np.where(ok, c * c, 0.0)).astype(np.float64)
        scale = np.sqrt(ss / np.maximum(1, m - 1))
        return c / scale


def r_sd(X: np.ndarray) -> np.ndarray:
    """``apply(X, 2, sd, na.rm = TRUE)``: sample standard deviations, NaN with < 2 values.

    The mean is R's two-pass mean (a long double sum, then a correction by the mean
    residual), the sum of squares is accumulated in long double, as R's ``var`` does.
    """
    X = np.asarray(X, dtype=np.float64)
    p = X.shape[1]
    out = np.full(p, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(p):  # loop over variables
            col = X[:, j]
            nan = np.isnan(col)
            v = col[~nan] if nan.any() else col  # the sums below take the values in order, any stride
            m = v.size
            if m < 2:
                continue
            tmp = ld_sum(v) / _LD(m)
            if np.isfinite(tmp):
                tmp = tmp + ld_sum(v, tmp) / _LD(m)
            # R's cov.c keeps the mean as a double but subtracts and squares in long double (xxm is LDOUBLE)
            out[j] = np.sqrt(float(ld_sumsq(v, _LD(float(tmp))) / _LD(m - 1)))
    return out


# ----------------------------------------------------------------------------- SDID (dRisk)


def sdid_at_risk(X: np.ndarray, XM: np.ndarray, k: float) -> np.ndarray:
    """Per record: no original value lies outside ``[xm - k * sd, xm + k * sd]`` (sdcMicro's dRisk).

    ``sd`` are the standard deviations of the masked columns (``na.rm``). A comparison with
    a missing value (in ``X``, ``XM`` or an undefined ``sd``) counts as "not outside", so a
    record whose comparisons are all missing is at risk. Columns are paired by position.
    """
    n, p = X.shape
    sds = r_sd(XM)
    outside = np.zeros(n, dtype=np.intp)
    with np.errstate(invalid="ignore"):
        for j in range(p):  # loop over variables
            ks = k * sds[j]
            lo = XM[:, j] - ks
            hi = XM[:, j] + ks
            x = X[:, j]
            outside += (x < lo) | (x > hi)  # NaN compares False
    return outside == 0


# ----------------------------------------------------------------------------- RMDID (dRiskRMD)


def _r_solve(C: np.ndarray) -> np.ndarray:
    """``solve(C)``: the inverse by LU (LAPACK dgesv), refusing what R's ``solve`` refuses."""
    if not np.isfinite(C).all():
        raise InvalidParameterError(
            "the robust covariance matrix of x has missing or infinite entries, so the robust Mahalanobis "
            "distances cannot be computed (sdcMicro's dRiskRMD fails in solve() here). Drop constant or "
            "nearly constant variables."
        )
    lu, piv = scipy.linalg.lu_factor(C, check_finite=False)
    diag = np.diag(lu)
    if (diag == 0).any():
        raise InvalidParameterError(
            "the robust covariance matrix of x is exactly singular (sdcMicro's dRiskRMD fails in solve(): "
            "'system is exactly singular'); drop variables that are constant or collinear on most records."
        )
    anorm = np.abs(C).sum(axis=0).max()
    (gecon,) = scipy.linalg.lapack.get_lapack_funcs(("gecon",), (lu,))
    rcond, _ = gecon(lu, anorm, norm="1")
    if rcond < np.finfo(float).eps:
        raise InvalidParameterError(
            "the robust covariance matrix of x is computationally singular (reciprocal condition number "
            f"{rcond:.6g}; sdcMicro's dRiskRMD fails in solve() here). Drop variables that are constant or "
            "collinear on most records."
        )
    return scipy.linalg.lu_solve((lu, piv), np.eye(C.shape[0]), check_finite=False)


def rmd_radius(X: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """``sqrt(mahalanobis(X, center, cov)) * 0.05`` per record (NaN where X or center is missing)."""
    inv = _r_solve(np.asarray(cov, dtype=np.float64))
    n = X.shape[0]
    out = np.empty(n)
    for s in range(0, n, _CHUNK):  # blocks of records: O(chunk * p) temporaries
        Z = X[s:s + _CHUNK] - center
        out[s:s + _CHUNK] = _ldsum((Z @ inv) * Z, axis=1).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.sqrt(out) * RMD_FACTOR


def rmdid_flags(X: np.ndarray, XM: np.ndarray, pairs: np.ndarray, rmd: np.ndarray, k: float) -> np.ndarray:
    """Records with at least one masked value strictly inside ``(x - k * rmd, x + k * rmd)``.

    ``pairs[j]`` is the column of ``X`` paired with column ``j`` of ``XM``. Missing
    comparisons count as "not inside" (R's ``any`` over TRUE/NA/FALSE, then ``which``).
    """
    n = XM.shape[0]
    flag = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore"):
        kr = k * rmd
        for j, c in enumerate(pairs):  # loop over variables
            x = X[:, c]
            xm = XM[:, j]
            flag |= (xm > x - kr) & (xm < x + kr)
    return flag


def _r_dist_pairs(XM: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Euclidean distances between rows ``i`` and ``j`` with R's ``dist()`` arithmetic.

    Coordinates missing in either row are skipped; if some are, the sum of squares is
    divided by ``used / p``; no coordinate in common gives NaN.
    """
    p = XM.shape[1]
    acc = np.zeros(len(i))
    cnt = np.zeros(len(i), dtype=np.intp)
    for c in range(p):  # loop over variables, in R's order
        dev = XM[i, c] - XM[j, c]
        ok = ~np.isnan(dev)
        acc[ok] += dev[ok] * dev[ok]
        cnt += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        part = cnt != p
        acc[part] = acc[part] / (cnt[part] / p)
        acc[cnt == 0] = np.nan
        return np.sqrt(acc)


def nearest_other_distance_exceeds(XM: np.ndarray, rows: np.ndarray, k2: float, *, workers: int = -1) -> np.ndarray:
    """For each record in ``rows``: is every *other* masked record farther than ``k2``?

    Distances are R's ``dist(XM)`` (Euclidean; missing coordinates handled as
    :func:`_r_dist_pairs`); pairs without a coordinate in common are ignored, and a record
    with no measurable distance at all gets ``True`` (R: ``min`` of nothing is ``Inf``).

    k-d trees, one per pair of missingness patterns (the records of one pattern, projected
    on the coordinates both patterns observe): a bounded nearest-neighbour query finds the
    nearest other record within ``k2`` (plus a rounding margin), and its distance is then
    recomputed with R's arithmetic and compared with ``k2``.
    """
    rows = np.asarray(rows, dtype=np.intp)
    m = rows.size
    res = np.ones(m, dtype=bool)
    if m == 0 or not (k2 >= 0):
        # distances are >= 0 > k2 (or there are none: Inf > k2)
        return res
    n, p = XM.shape
    obs = ~np.isnan(XM)
    weights = (1 << np.arange(p, dtype=np.int64))
    pat = obs.astype(np.int64) @ weights if not obs.all() else np.full(n, (1 << p) - 1, dtype=np.int64)
    qpat = pat[rows]
    all_pats = np.unique(pat)
    # the bound is a little larger than k2 so that rounding differences between the tree's
    # arithmetic and R's cannot hide a neighbour at distance <= k2; the candidate found is
    # then judged with R's arithmetic (the tree squares the bound: keep it far from underflow)
    bound = max(k2 * (1 + 1e-9), 1e-100)
    best_d = np.full(m, np.inf)
    best_j = np.full(m, -1, dtype=np.intp)
    members = {int(b): np.flatnonzero(pat == b) for b in all_pats}
    for a in np.unique(qpat):  # loop over missingness patterns of the flagged records
        qa = np.flatnonzero(qpat == a)
        for b in all_pats:  # loop over missingness patterns of all records
            common = int(a) & int(b)
            if common == 0:
                continue
            cols = [c for c in range(p) if common >> c & 1]
            scale = np.sqrt(p / len(cols))
            rb = members[int(b)]
            tree = cKDTree(XM[np.ix_(rb, cols)] * scale, balanced_tree=False, compact_nodes=False)
            pts = XM[np.ix_(rows[qa], cols)] * scale
            if a == b:
                d, idx = tree.query(pts, k=2, distance_upper_bound=bound, workers=workers)
                # the record itself is in the tree at distance 0 (so is any duplicate of it)
                first_self = rb[np.minimum(idx[:, 0], rb.size - 1)] == rows[qa]
                dd = np.where(first_self, d[:, 1], d[:, 0])
                ii = np.where(first_self, idx[:, 1], idx[:, 0])
            else:
                dd, ii = tree.query(pts, k=1, distance_upper_bound=bound, workers=workers)
            found = np.isfinite(dd)
            better = found & (dd < best_d[qa])
            sel = qa[better]
            best_d[sel] = dd[better]
            best_j[sel] = rb[ii[better]]
    cand = best_j >= 0
    if cand.any():
        exact = _r_dist_pairs(XM, rows[cand], best_j[cand])
        res[cand] = ~(exact <= k2)  # NaN cannot occur here (a coordinate in common)
    return res


def d_risk_rmd_core(
    X: np.ndarray,
    XM: np.ndarray,
    pairs: np.ndarray,
    center: np.ndarray,
    cov: np.ndarray,
    k: float,
    k2: float,
) -> dict:
    """sdcMicro's dRiskRMD from scaled data and a given (robust) covariance.

    Parameters
    ----------
    X : (n, p) float array
        ``scale(x)``.
    XM : (n, q) float array
        ``scale(xm)``.
    pairs : (q,) int array
        Column of ``X`` paired (by name) with each column of ``XM``.
    center : (p,) float array
        ``colMeans(scale(x))`` (NaN where ``x`` has missing values).
    cov : (p, p) float array
        The robust covariance of ``X`` (``covMcd(scale(x))$cov``).
    k, k2 : float
        Interval factor and nearest-neighbour radius.

    Returns
    -------
    dict
        ``risk1, risk2, wrisk1, wrisk2`` (floats), ``index_risk1, index_risk2`` (0-based
        int arrays), ``riskvec1, riskvec2`` (float arrays), ``rmd`` (``sqrt(RMD) * 0.05``).
    """
    n = X.shape[0]
    rmd = rmd_radius(X, center, cov)
    flag = rmdid_flags(X, XM, pairs, rmd, k)
    w = np.flatnonzero(flag)
    far = nearest_other_distance_exceeds(XM, w, k2)
    w2 = w[far]
    riskvec1 = np.zeros(n)
    riskvec2 = np.zeros(n)
    riskvec1[w] = rmd[w]
    riskvec2[w2] = rmd[w2]
    with np.errstate(invalid="ignore", divide="ignore"):
        risk1 = w.size / n if n else np.nan
        risk2 = w2.size / n if w.size else 0.0
        wrisk1 = (w.size * float(_ldsum(rmd[w]))) / n if w.size else 0.0
        wrisk2 = (w2.size * float(_ldsum(rmd[w2]))) / n if w.size else 0.0
    return {
        "risk1": float(risk1), "risk2": float(risk2), "wrisk1": float(wrisk1), "wrisk2": float(wrisk2),
        "index_risk1": w, "index_risk2": w2, "riskvec1": riskvec1, "riskvec2": riskvec2, "rmd": rmd,
    }
