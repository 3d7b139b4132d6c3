"""Covariances, correlations and eigenvalues as sdcMicro's ``dUtility`` computes them (methods eigen and
robeigen), R's own arithmetic for ill-conditioned problems, and the warning where the value is noise.

Kernel of :func:`pysdc.d_utility` and :func:`pysdc.il_correl`, and of their engine paths
(:mod:`pysdc.engine`), which compute the same matrices from an engine's sums.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import warnings

import numpy as np
import scipy.linalg

from .._errors import DegenerateResultWarning, user_stacklevel
from .distance import _ldsum_cols

__all__ = ["cov_no_missing", "cor_from_cov", "scale_columns", "var_pairwise", "eigenvalues", "R_ARITHMETIC_COND",
           "EIGEN_MEANINGLESS", "system_lapack", "dsyevr_values", "r_var_pairwise", "r_eigen_loss",
           "condition_number", "warn_meaningless_eigen", "eigen_result", "degenerate", "explain_nonfinite"]


def cov_no_missing(X: np.ndarray) -> np.ndarray:
    """Sample covariance (n - 1) of a matrix without missing values, in one pass where that is safe.

    The uncentred Gram matrix is corrected by the means when the correction cannot cancel
    much (mean^2 / mean of squares <= 0.9 in every column, so at most one decimal digit is
    lost); otherwise the columns are centred first.
    """
    n = X.shape[0]
    mean = X.mean(axis=0)
    G = X.T @ X
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = n * mean * mean / np.diag(G)
    if np.all(ratio <= 0.9):
        S = G - n * np.outer(mean, mean)
    else:
        Xc = X - mean
        S = Xc.T @ Xc
    S = (S + S.T) / 2
    return S / (n - 1)


def cor_from_cov(S: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.sqrt(np.diag(S))
        R = S / np.outer(d, d)
    np.fill_diagonal(R, np.where(np.isfinite(np.diag(R)), 1.0, np.nan))
    return R


def scale_columns(X: np.ndarray) -> np.ndarray:
    """R's ``scale(x)``: centre by the column means and divide by the column sd, NA ignored."""
    if X.ndim == 2 and X.shape[0] and not np.isnan(X).any():
        # no missing values: the same sums as below, without the masks
        n = X.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            Xc = X - X.sum(axis=0) / n
            sd = np.sqrt(np.square(Xc).sum(axis=0) / (n - 1))
            Xc /= sd
        return Xc
    mask = ~np.isnan(X)
    n = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(mask, X, 0.0).sum(axis=0) / n
        Xc = X - mean
        sd = np.sqrt(np.where(mask, Xc * Xc, 0.0).sum(axis=0) / (n - 1))
        return Xc / sd


def var_pairwise(X: np.ndarray) -> np.ndarray:
    """R's ``var(X, use = "pairwise.complete.obs")`` (sample covariance, n - 1)."""
    p = X.shape[1]
    mask = ~np.isnan(X)
    if mask.all():
        Xc = X - X.mean(axis=0)
        return (Xc.T @ Xc) / (X.shape[0] - 1)
    out = np.empty((p, p))
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(p):
            for j in range(i, p):
                both = mask[:, i] & mask[:, j]
                k = both.sum()
                if k < 2:
                    out[i, j] = out[j, i] = np.nan
                    continue
                a = X[both, i]
                b = X[both, j]
                a = a - a.mean()
                b = b - b.mean()
                out[i, j] = out[j, i] = float(a @ b) / (k - 1)
    return out


def eigenvalues(S: np.ndarray) -> np.ndarray:
    """Eigenvalues of a symmetric matrix in decreasing order (LAPACK dsyevr, as R's eigen)."""
    vals = scipy.linalg.eigh(S, eigvals_only=True, driver="evr")
    return vals[::-1]


# ---- R's own arithmetic, for ill-conditioned eigen problems (issue 24, finding 3)
# Where the covariance matrix is nearly singular, its small eigenvalues are made of rounding errors,
# and sdcMicro's number follows the exact rounding of R's operations: scale() and var() accumulate in
# long double, record after record; eigen() calls LAPACK's dsyevr *with* eigenvectors (another
# algorithm, MRRR, than the values-only call) from the LAPACK R is linked with; sum() accumulates in
# long double. pysdc repeats those operations there, calling the system's LAPACK (the library R uses
# on Debian/Ubuntu: liblapack.so.3) when it can be loaded.

#: condition number (largest / smallest eigenvalue) above which a last-bit difference in the
#: covariance matrix can move the value by more than the parity tolerance: use R's arithmetic
R_ARITHMETIC_COND = 1e3
#: warn that the value is meaningless where a term's relative rounding error (eps * condition) exceeds this
EIGEN_MEANINGLESS = 1e-6

_LAPACK = None


def system_lapack():
    """The system's LAPACK (ctypes), or False where none can be loaded."""
    global _LAPACK
    if _LAPACK is None:
        names = ["liblapack.so.3", ctypes.util.find_library("lapack")]
        _LAPACK = False
        for name in names:
            if not name:
                continue
            try:
                lib = ctypes.CDLL(name)
                lib.dsyevr_  # noqa: B018 -- the symbol must exist
            except (OSError, AttributeError):
                continue
            _LAPACK = lib
            break
    return _LAPACK


def dsyevr_values(S: np.ndarray) -> np.ndarray | None:
    """R's ``eigen(S)$values`` (dsyevr, jobz 'V', range 'A', uplo 'L', abstol 0) by the system's LAPACK."""

    lib = system_lapack()
    if not lib:
        return None
    n = S.shape[0]
    a = np.array(S, dtype=np.float64, order="F")
    ci, cd = ctypes.c_int, ctypes.c_double
    N, vl, vu, il, iu, abstol, m, info = ci(n), cd(0), cd(0), ci(0), ci(0), cd(0.0), ci(0), ci(0)
    w = np.zeros(n)
    z = np.zeros((n, n), order="F")
    isuppz = np.zeros(2 * max(n, 1), dtype=np.int32)
    one = ctypes.c_size_t(1)
    ptr = lambda arr: arr.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    r = ctypes.byref

    def call(work, lwork, iwork, liwork):
        lib.dsyevr_(b"V", b"A", b"L", r(N), ptr(a), r(N), r(vl), r(vu), r(il), r(iu), r(abstol), r(m), ptr(w),
                    ptr(z), r(N), ptr(isuppz), work, r(lwork), iwork, r(liwork), r(info), one, one, one)

    wq, iq = cd(0), ci(0)
    call(r(wq), ci(-1), r(iq), ci(-1))  # workspace query
    if info.value != 0:
        return None
    work = np.zeros(max(int(wq.value), 1))
    iwork = np.zeros(max(iq.value, 1), dtype=np.int32)
    call(ptr(work), ci(work.size), ptr(iwork), ci(iwork.size))
    if info.value != 0:
        return None
    return w[::-1].copy()


def r_var_pairwise(Z: np.ndarray) -> np.ndarray:
    """R's ``var(Z, use = "pairwise.complete.obs")`` to the bit: per pair of columns, means and the
    sum of cross-products accumulated in long double, record after record, divided by n - 1 in long
    double and rounded once."""

    ld = np.longdouble
    n, p = Z.shape
    ok = ~np.isnan(Z)
    out = np.empty((p, p))
    block = max(1, (1 << 21) // max(n, 1))  # columns per step: bounded long double temporaries
    for i in range(p):  # column i against columns 0..i (p steps, vectorised over records)
        xi = Z[:, i]
        for j0 in range(0, i + 1, block):
            j1 = min(i + 1, j0 + block)
            both = ok[:, [i]] & ok[:, j0:j1]
            nobs = both.sum(axis=0)
            xx = np.where(both, xi[:, None], 0.0).astype(ld)
            yy = np.where(both, Z[:, j0:j1], 0.0).astype(ld)
            with np.errstate(invalid="ignore", divide="ignore"):
                xmean = _ldsum_cols(xx) / nobs.astype(ld)
                ymean = _ldsum_cols(yy) / nobs.astype(ld)
                xx -= xmean
                yy -= ymean
                xx *= yy
                xx[~both] = 0
                cov = (_ldsum_cols(xx) / (nobs - 1).astype(ld)).astype(np.float64)
            cov[nobs < 2] = np.nan
            out[i, j0:j1] = cov
            out[j0:j1, i] = cov
    return out


def r_eigen_loss(e1: np.ndarray, e2: np.ndarray) -> float:
    """R's ``sum(abs(e1 - e2) / e1)``: the terms in double, the sum in long double, in order."""

    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(e1 - e2) / e1
    return float(_ldsum_cols(t.reshape(-1, 1))[0]) if t.size else 0.0


def condition_number(e: np.ndarray) -> float:
    """Largest over smallest absolute eigenvalue (Inf for a singular matrix)."""
    a = np.abs(e)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(a.max() / a.min()) if a.size else 1.0


def warn_meaningless_eigen(value: float, e1: np.ndarray, e2: np.ndarray, method: str, how: str,
                            extra: str = "", force: bool = False) -> None:
    """Call-time warning where the eigenvalue ratio makes the value rounding noise."""
    k1, k2 = condition_number(e1), condition_number(e2)
    k = max(k1, k2)
    if not force and not (k * np.finfo(float).eps > EIGEN_MEANINGLESS) and (e1 > 0).all():
        return
    which = "original" if k1 >= k2 else "masked"
    e = e1 if k1 >= k2 else e2
    digits = max(0.0, 15.6 - np.log10(k)) if np.isfinite(k) else 0.0
    warnings.warn(
        f"d_utility(method={method!r}) = {value:.6g} is numerically meaningless: the "
        f"{'MCD ' if method == 'robeigen' else ''}covariance matrix of the {which} data is nearly singular "
        f"(smallest/largest eigenvalue {e.min():.3g} / {e.max():.3g}, condition "
        f"number {k:.3g}), so its smallest eigenvalues are rounding noise and the term |e1 - e2| / e1 of the "
        f"smallest has about {digits:.0f} correct digits; a 1-ulp change of the input can change the value "
        f"completely.{extra} {how} Drop the (nearly) collinear variables to get a meaningful loss.",
        DegenerateResultWarning,
        stacklevel=user_stacklevel(),
    )


def eigen_result(e1: np.ndarray, e2: np.ndarray, method: str, *, how: str = "", extra: str = "",
                  force: bool = False) -> float:
    """sum(|e1 - e2| / e1), warning where the original's eigenvalues make it meaningless."""
    value = r_eigen_loss(e1, e2)
    if np.isfinite(value):
        if not how:
            how = ("The number follows sdcMicro's operations (R's eigen); with noise eigenvalues it equals "
                   "sdcMicro's only where every rounding is the same.")
        warn_meaningless_eigen(value, e1, e2, method, how, extra, force)
        return value
    return degenerate(value, f"d_utility(method={method!r})")


def degenerate(value: float, what: str) -> float:
    if not np.isfinite(value):
        warnings.warn(f"{what} is {value}: {explain_nonfinite(value)}", DegenerateResultWarning, stacklevel=user_stacklevel())
    return value


def explain_nonfinite(value: float) -> str:
    if np.isnan(value):
        return "sdcMicro returns NA here too."
    return "a variable has zero spread (or a zero eigenvalue); sdcMicro returns Inf here too."
