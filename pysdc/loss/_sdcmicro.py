"""Information-loss measures: sdcMicro's ``dUtility``, ``IL_correl`` and ``IL_variables``.

Every function reproduces sdcMicro 5.8.0's numbers, quirks included; where the
literature defines the measure differently the literature version is an
explicit, named option, never the default.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.linalg

from .._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._results import DUtilityResult, ILCorrelResult, ILVariablesResult
from .._types import as_float, r_class
from .._validation import (
    FROM_ARRAY,
    Boolean,
    Frame,
    MappingOf,
    Options,
    RandomState,
    same_columns,
    user_stacklevel,
    validate_params,
    warn_if_unaligned,
)

__all__ = ["d_utility", "il_correl", "il_variables"]

_METHODS = ("IL1", "IL1s", "eigen", "robeigen")
_NUMERIC_CLASSES = ("numeric", "integer", "logical")
_SCALES = ("numeric", "ordinal", "nominal")

# ------------------------------------------------------------------ declared constraints
# Shared by the native functions (validate_params) and the R bridge (through pysdc._registry).
D_UTILITY_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "method": Options(_METHODS),
    "average": Boolean(),
    "random_state": RandomState(),
}
IL_CORREL_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "normalization": Options(("sdcmicro", "mlodak")),
}
IL_VARIABLES_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "scales": MappingOf(_SCALES, of=("x", "xm")),
}


# --------------------------------------------------------------------------- helpers
def _numeric_matrix(name: str, frame: pd.DataFrame) -> np.ndarray:
    """Columns of ``frame`` as a float64 matrix; refuses non-numeric columns."""
    bad = [(c, r_class(frame[c])) for c in frame.columns if r_class(frame[c]) not in _NUMERIC_CLASSES]
    if bad:
        shown = ", ".join(f"{c!r} ({cls})" for c, cls in bad[:5])
        raise InvalidParameterError(
            f"d_utility needs numeric variables, but {name} has non-numeric column(s) {shown}; "
            "sdcMicro's dUtility cannot compute distances on them either. "
            "Select the continuous variables, e.g. x[['income', 'expend']]."
        )
    if frame.shape[1] == 0:
        raise InvalidParameterError(f"{name} has no columns; pass at least one numeric variable.")
    if all(dt == np.float64 for dt in frame.dtypes):
        return frame.to_numpy(dtype=np.float64, copy=False)  # a view for a single float block
    out = np.empty(frame.shape, dtype=np.float64, order="F")
    for j, c in enumerate(frame.columns):
        out[:, j] = as_float(frame[c])
    return out


def _cov_no_missing(X: np.ndarray) -> np.ndarray:
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


def _cor_from_cov(S: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.sqrt(np.diag(S))
        R = S / np.outer(d, d)
    np.fill_diagonal(R, np.where(np.isfinite(np.diag(R)), 1.0, np.nan))
    return R


def _aligned_frames(x: pd.DataFrame, xm: pd.DataFrame):
    """Align xm's columns to x's (by name; by position where one side is a NumPy array);
    refuse different variables or row counts."""
    positional = x.attrs.get(FROM_ARRAY) or xm.attrs.get(FROM_ARRAY)
    if positional and list(x.columns) != list(xm.columns):
        if x.shape[1] != xm.shape[1]:
            raise InvalidParameterError(
                f"x has {x.shape[1]} columns but xm has {xm.shape[1]}; with a NumPy array the variables are "
                "paired by position, so both must have the same number of columns. (sdcMicro fails when xm has "
                "fewer columns and silently ignores extra ones.)"
            )
        if xm.attrs.get(FROM_ARRAY):
            xm = xm.set_axis(x.columns, axis=1)
        else:
            x = x.set_axis(xm.columns, axis=1)
    xm = same_columns(x, xm, hint=", or pass xm as a NumPy array (xm.to_numpy()) to pair the columns by position")
    if x.shape[0] != xm.shape[0]:
        raise InvalidParameterError(
            f"x has {x.shape[0]} rows but xm has {xm.shape[0]}; the measures compare record by record, "
            "so both must hold the same records in the same order. (sdcMicro 5.8.0 fails here too.)"
        )
    return x, xm


def _show_names(cols) -> str:
    return str([str(c) for c in cols[:10]]) + (f" and {len(cols) - 10} more" if len(cols) > 10 else "")


def _nansum(values: np.ndarray) -> float:
    """Sum ignoring NaN (R's ``sum(..., na.rm = TRUE)``); Inf is kept."""
    return float(np.sum(values[~np.isnan(values)]))


def _il1_column(x: np.ndarray, xm: np.ndarray) -> float:
    """sum(100 * |x - xm| / |x|) over one variable; Inf (x == 0) and NaN cells dropped."""
    d = np.abs(x - xm)
    d *= 100.0
    d /= np.abs(x)
    d[~np.isfinite(d)] = 0.0
    return float(d.sum())


def _il1s_column(x: np.ndarray, xm: np.ndarray) -> float:
    """sum(|x - xm| / (sd(x) * sqrt(2))) over one variable, NA cells dropped (R's na.rm)."""
    ok_x = ~np.isnan(x)
    all_x = bool(ok_x.all())
    xv = x if all_x else x[ok_x]
    k = xv.size
    if k < 2:
        return 0.0  # sd is NA: every cell is NA and dropped
    sd = float(np.sqrt(np.sum((xv - xv.mean()) ** 2) / (k - 1)))
    d = np.abs(x - xm)
    if not all_x or np.isnan(d).any():
        d = d[~np.isnan(d)]
    if sd == 0.0:
        # c / 0 = Inf is kept, 0 / 0 = NaN is dropped
        return float("inf") if (d > 0).any() else 0.0
    return float(d.sum()) / (sd * np.sqrt(2.0))


def _warn_sd_out_of_range(X: np.ndarray, names) -> None:
    """Warn where a column's sd, computed as sdcMicro computes it (sum of squared deviations in double), is
    off because the squares leave double's range: deviations below ~1e-154 square to subnormal numbers or 0
    (the sd loses digits or is 0, IL1s Inf), above ~1e154 to Inf (the sd is Inf, IL1s 0). IL1s does not
    depend on the scale, so the sound value is that of the rescaled data."""
    if X.shape[0] < 2 or X.shape[1] == 0:
        return
    with np.errstate(invalid="ignore", over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        spread = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    near = np.flatnonzero(np.isfinite(spread) & (spread > 0) & ((spread < 1e-140) | (spread > 1e140)) | np.isinf(spread))
    off = []
    for j in near:  # few columns, if any: the exact comparison
        v = X[:, j]
        v = v[~np.isnan(v)]
        if v.size < 2 or not np.isfinite(v).all():
            continue
        with np.errstate(all="ignore"):
            sd = float(np.sqrt(np.sum((v - v.mean()) ** 2) / (v.size - 1)))
            c = float(np.max(np.abs(v)))
            u = v / c
            sound = c * float(np.sqrt(np.sum((u - u.mean()) ** 2) / (v.size - 1)))
        if np.isfinite(sound) and sound > 0 and not abs(sd - sound) <= 1e-12 * sound:
            off.append((names[j], sd, sound))
    if off:
        shown = ", ".join(f"{n!r} (sd {sd:.6g}, sound {so:.6g})" for n, sd, so in off[:5])
        warnings.warn(
            f"d_utility(method='IL1s'): the standard deviation of column(s) {shown}{' ...' if len(off) > 5 else ''} "
            "is off in double precision: the squared deviations of such small (or large) values fall below the "
            "smallest normal double, 2.2e-308 (or above the largest, 1.8e308). The value returned is sdcMicro's "
            "number (R computes the sd in the same way; an sd of 0 makes IL1s Inf, an infinite one 0). IL1s does "
            "not depend on the scale: multiply x and xm by the same factor (e.g. 1e150) for the sound value.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )


def _describe_cause(frames) -> str:
    """Why standardised covariances / correlations cannot be computed: names the columns."""
    causes = []
    for name, frame, M in frames:
        cols = list(frame.columns)
        with np.errstate(invalid="ignore"):
            inf = np.isinf(M).any(axis=0)
        if inf.any():
            causes.append(f"{name} has infinite value(s) in column(s) {_names(cols, inf)}")
        finite = np.where(np.isfinite(M), M, np.nan)
        k = (~np.isnan(finite)).sum(axis=0)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            const = (k >= 2) & (np.nanmax(finite, axis=0, initial=-np.inf) == np.nanmin(finite, axis=0, initial=np.inf))
        if const.any():
            causes.append(f"{name}'s column(s) {_names(cols, const)} are constant (sd 0, so standardising divides "
                          "by 0)")
        if (k < 2).any():
            causes.append(f"{name}'s column(s) {_names(cols, k < 2)} have fewer than two finite values")
    return "; ".join(causes) or "fewer than two complete pairs of records"


def _names(cols, mask) -> str:
    picked = [str(c) for c, m in zip(cols, mask) if m]
    return str(picked[:5]) + (" ..." if len(picked) > 5 else "")


def _scale(X: np.ndarray) -> np.ndarray:
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


def _var_pairwise(X: np.ndarray) -> np.ndarray:
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


def _eigenvalues(S: np.ndarray) -> np.ndarray:
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
_R_ARITHMETIC_COND = 1e3
#: warn that the value is meaningless where a term's relative rounding error (eps * condition) exceeds this
_EIGEN_MEANINGLESS = 1e-6

_LAPACK = None


def _system_lapack():
    """The system's LAPACK (ctypes), or False where none can be loaded."""
    global _LAPACK
    if _LAPACK is None:
        import ctypes
        import ctypes.util

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


def _dsyevr_values(S: np.ndarray) -> np.ndarray | None:
    """R's ``eigen(S)$values`` (dsyevr, jobz 'V', range 'A', uplo 'L', abstol 0) by the system's LAPACK."""
    import ctypes

    lib = _system_lapack()
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


def _r_var_pairwise(Z: np.ndarray) -> np.ndarray:
    """R's ``var(Z, use = "pairwise.complete.obs")`` to the bit: per pair of columns, means and the
    sum of cross-products accumulated in long double, record after record, divided by n - 1 in long
    double and rounded once."""
    from ..core.distance import _ldsum_cols

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


def _r_eigen_loss(e1: np.ndarray, e2: np.ndarray) -> float:
    """R's ``sum(abs(e1 - e2) / e1)``: the terms in double, the sum in long double, in order."""
    from ..core.distance import _ldsum_cols

    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(e1 - e2) / e1
    return float(_ldsum_cols(t.reshape(-1, 1))[0]) if t.size else 0.0


def _condition(e: np.ndarray) -> float:
    """Largest over smallest absolute eigenvalue (Inf for a singular matrix)."""
    a = np.abs(e)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(a.max() / a.min()) if a.size else 1.0


def _eigen_loss(e1: np.ndarray, e2: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.sum(np.abs(e1 - e2) / e1))


def _warn_meaningless_eigen(value: float, e1: np.ndarray, e2: np.ndarray, method: str, how: str,
                            extra: str = "", force: bool = False) -> None:
    """Call-time warning where the eigenvalue ratio makes the value rounding noise."""
    k1, k2 = _condition(e1), _condition(e2)
    k = max(k1, k2)
    if not force and not (k * np.finfo(float).eps > _EIGEN_MEANINGLESS) and (e1 > 0).all():
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


def _exact_fit_note(fits) -> str:
    """What covMcd's exact fit means for robeigen (empty without one)."""
    if not fits:
        return ""
    parts = []
    for name, m in fits:
        on = int(np.count_nonzero(m.weights))
        parts.append(f"{name}: {on} of {m.n_obs} records lie on one hyperplane")
    return (" The MCD found an exact fit (" + "; ".join(parts) + "; covMcd's $singularity "
            "'on.hyperplane'): its covariance is singular by construction, the robust eigen loss divides by "
            "an eigenvalue that is 0 up to rounding.")


def _eigen_result(e1: np.ndarray, e2: np.ndarray, method: str, *, how: str = "", extra: str = "",
                  force: bool = False) -> float:
    """sum(|e1 - e2| / e1), warning where the original's eigenvalues make it meaningless."""
    value = _r_eigen_loss(e1, e2)
    if np.isfinite(value):
        if not how:
            how = ("The number follows sdcMicro's operations (R's eigen); with noise eigenvalues it equals "
                   "sdcMicro's only where every rounding is the same.")
        _warn_meaningless_eigen(value, e1, e2, method, how, extra, force)
        return value
    return _degenerate(value, f"d_utility(method={method!r})")


def _degenerate(value: float, what: str) -> float:
    if not np.isfinite(value):
        warnings.warn(f"{what} is {value}: {_explain_nonfinite(value)}", DegenerateResultWarning, stacklevel=user_stacklevel())
    return value


def _explain_nonfinite(value: float) -> str:
    if np.isnan(value):
        return "sdcMicro returns NA here too."
    return "a variable has zero spread (or a zero eigenvalue); sdcMicro returns Inf here too."


# --------------------------------------------------------------------------- dUtility
@validate_params(D_UTILITY_PARAMS)
def d_utility(
    x: pd.DataFrame | np.ndarray,
    xm: pd.DataFrame | np.ndarray,
    *,
    method: str = "IL1s",
    average: bool = False,
    random_state: int | np.random.Generator | None = None,
) -> DUtilityResult:
    """Information loss between original and masked continuous variables (sdcMicro's ``dUtility``).

    Parameters
    ----------
    x : pandas.DataFrame or numpy.ndarray
        Original data: numeric (float, integer or boolean) variables, one row per record.
    xm : pandas.DataFrame or numpy.ndarray
        Masked data: the same records in the same order and the same variables.
        DataFrame columns are matched by name; arrays by position.
    method : {"IL1s", "IL1", "eigen", "robeigen"}, default "IL1s"
        * ``"IL1"``: ``sum(100 * |x - xm| / |x|)`` over all cells (percent).
        * ``"IL1s"``: ``sum(|x - xm| / (sd(x) * sqrt(2)))`` over all cells.
        * ``"eigen"``: ``sum(|e1 - e2| / e1)`` over the eigenvalues of the
          pairwise-complete covariance matrices of the standardised data.
        * ``"robeigen"``: the same with the robust MCD covariance.
    average : bool, default False
        Only for ``"IL1"`` and ``"IL1s"``: divide the sum by the number of cells
        ``n * p``, as the literature defines IL1s (Yancey, Winkler and Creecy,
        2002; sdcMicro's hidden ``"IL1old"``). The default ``False`` gives
        sdcMicro's plain sum.
    random_state : int, numpy.random.Generator or None
        ``"robeigen"`` only. An int ``s`` is R's ``set.seed(s)``: the MCD draws its random
        subsets from R's own random stream and the value equals sdcMicro's after
        ``set.seed(s)``. A numpy Generator (or None: a fresh one) uses pysdc's own stream.

    Returns
    -------
    DUtilityResult
        The information loss (``.value``; the result is also a float, see
        :class:`~pysdc.DUtilityResult` for the deprecation of that), NaN (with a
        :class:`DegenerateResultWarning`) where sdcMicro returns NA, Inf where
        sdcMicro returns Inf; ``.method``, ``.n``, ``.n_vars``, ``.average``.

    Raises
    ------
    InvalidParameterError
        Non-numeric variables, different variables or row counts in ``x`` and
        ``xm``, or an unknown ``method``.

    See Also
    --------
    il_correl, il_variables, pysdc.r.d_utility

    Notes
    -----
    Matches sdcMicro 5.8.0's ``dUtility(x, xm, method)``, quirks included:

    * IL1 and IL1s are plain sums over all cells, not means; IL1 is in percent.
    * IL1: cells with ``x == 0`` give Inf and are dropped, as are 0/0 and NA cells.
    * IL1s: the sd is the sample sd (n - 1) of ``x`` ignoring NA; NA cells are
      dropped. A constant variable has sd 0: its unchanged cells (0/0) are
      dropped, a changed cell gives Inf, so the result is Inf.
    * eigen: eigenvalues in decreasing order of ``var(scale(x))`` with
      pairwise-complete observations; where sdcMicro's computation fails
      (e.g. a constant column) the result is NA, returned here as NaN with a
      warning.
    * robeigen: sdcMicro uses ``robustbase::covMcd`` with its defaults, which
      draws 500 random subsets; the value moves with R's seed (a few percent
      on well-conditioned data, much more on near-singular data). With
      ``random_state=s`` pysdc's FAST-MCD draws the same subsets from R's
      Mersenne-Twister stream (:class:`pysdc.core.rrandom.RRandom`), x's MCD
      first and xm's on the same stream, and the value equals sdcMicro's after
      ``set.seed(s)`` to rounding (1e-12). Without a seed (or with a numpy
      Generator) the subsets are pysdc's own draw and agreement is statistical.
    * Nearly singular data (condition number above 1e3, e.g. a duplicated
      or collinear column): the smallest eigenvalues are rounding noise and
      the value with them. pysdc then repeats R's own operations -- ``scale``
      and ``var`` summed in long double record by record, ``eigen`` by the
      system LAPACK's ``dsyevr`` with eigenvectors (the library R is linked
      with, ``liblapack.so.3``; SciPy's LAPACK where it cannot be loaded),
      the final sum in long double -- so the number is sdcMicro's (eusilc's
      25 numeric columns: 3.7293, checked against sdcMicro), and warns at call
      time that it is meaningless, with the condition number and the
      smallest/largest eigenvalue. For robeigen the warning also names
      covMcd's exact fit (how many records lie on its hyperplane).
    * Non-numeric columns: IL1 and IL1s fail in sdcMicro and are refused here;
      eigen and robeigen return NA in sdcMicro, NaN with a warning here.
    * sdcMicro fails when ``x`` and ``xm`` have different numbers of rows; so
      does pysdc, with a clear message. sdcMicro matches columns by position;
      pysdc matches DataFrame columns by name (identical results when the
      columns are in the same order) and by position where one of the two is
      a NumPy array (``d_utility(x_frame, xm_array)``).
    * sdcMicro quirk with a **matrix** ``xm`` (its own help page does
      ``xm <- addNoise(x)$xm``): its IL1 and IL1s take ``xm[[i]]``, a single
      element, for column ``i``, so its numbers are meaningless there; pysdc
      gives the column-wise value (what sdcMicro gives for a data.frame) --
      a known divergence listed in the parity report. The R bridge sends an
      array ``xm`` as an R matrix, so ``pysdc.r.d_utility`` returns sdcMicro's
      matrix number.
    * Records are paired by position, as in sdcMicro: DataFrames whose
      indexes differ get an :class:`~pysdc.AlignmentWarning` (align with
      ``xm.loc[x.index]`` or ``reset_index(drop=True)``).
    * Empty data: sdcMicro's IL1 and IL1s are 0 (a sum over no cells); pysdc
      returns the same 0 with a :class:`DegenerateResultWarning`. A column with fewer
      than two values has no sd (R's NA): IL1s drops its cells, as sdcMicro
      does, with a warning.

    References
    ----------
    Yancey, W.E., Winkler, W.E. and Creecy, R.H. (2002). Disclosure risk
    assessment in perturbative microdata protection. *Inference Control in
    Statistical Databases*, LNCS 2316, 135-152.

    Templ, M. and Meindl, B. (2008). Robust statistics meets SDC: new
    disclosure risk measures for continuous microdata masking. *Privacy in
    Statistical Databases*, LNCS 5262, 113-126.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 4.0]})
    >>> xm = pd.DataFrame({"a": [1.0, 2.0, 5.0]})
    >>> pysdc.d_utility(x, xm, method="IL1").value   # 100 * |4 - 5| / 4
    25.0
    """
    if average and method not in ("IL1", "IL1s"):
        raise InvalidParameterError(
            f"average=True applies to the cell-wise measures 'IL1' and 'IL1s' only; got method={method!r}."
        )
    if random_state is not None and method != "robeigen":
        warnings.warn(
            f"d_utility: random_state is used only by method='robeigen' (its random MCD subsets); "
            f"method={method!r} is deterministic and ignores it.",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )
    xf, xmf = _aligned_frames(x, xm)
    warn_if_unaligned("d_utility", x, xm)
    value = _d_utility_value(xf, xmf, method, average, random_state)
    return DUtilityResult(value=value, method=method, n=int(xf.shape[0]), n_vars=int(xf.shape[1]), average=average)


def _d_utility_value(xf: pd.DataFrame, xmf: pd.DataFrame, method: str, average: bool, random_state) -> float:
    """The number of :func:`d_utility` (frames checked and aligned)."""
    if method in ("eigen", "robeigen"):
        non_numeric = [
            c for f in (xf, xmf) for c in f.columns if r_class(f[c]) not in _NUMERIC_CLASSES
        ]
        if non_numeric:
            warnings.warn(
                f"d_utility(method={method!r}) is NaN: column(s) {sorted(set(map(str, non_numeric)))[:5]} are not "
                "numeric, so the data cannot be standardised; sdcMicro returns NA here. "
                "Select the continuous variables.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
            return float("nan")
    X = _numeric_matrix("x", xf)
    XM = _numeric_matrix("xm", xmf)

    if method in ("IL1", "IL1s"):
        if X.shape[0] == 0:
            warnings.warn(
                f"d_utility(method={method!r}) is 0, as in sdcMicro (the sum over no cells), because x and xm "
                "have no records: it does not mean that nothing was lost. Check the input.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
            return 0.0
        if method == "IL1s":
            few = (~np.isnan(X)).sum(axis=0) < 2
            if few.any():
                warnings.warn(
                    f"d_utility(method='IL1s'): column(s) {_names(xf.columns, few)} of x have fewer than two "
                    "non-missing values, so their standard deviation is undefined (R's sd is NA) and every cell "
                    "of them is dropped: they add 0 to the sum however much they changed. sdcMicro returns the "
                    "same number. Use method='IL1' or more records.",
                    DegenerateResultWarning,
                    stacklevel=user_stacklevel(),
                )
            _warn_sd_out_of_range(X, xf.columns)
        total = 0.0
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # (out of range: warned above)
            for j in range(X.shape[1]):  # one variable at a time: no n x p temporaries
                total += _il1_column(X[:, j], XM[:, j]) if method == "IL1" else _il1s_column(X[:, j], XM[:, j])
        if average:
            total = total / X.size if X.size else np.nan
        return _degenerate(total, f"d_utility(method={method!r})")

    if method == "eigen":
        with np.errstate(invalid="ignore", divide="ignore"):
            S1, S2 = (
                np.full((M.shape[1],) * 2, np.nan) if M.shape[0] < 2
                # without missing values var(scale(x)) is the correlation matrix
                else _cor_from_cov(_cov_no_missing(M)) if not np.isnan(M).any()
                else _var_pairwise(_scale(M))
                for M in (X, XM)
            )
        if not (np.isfinite(S1).all() and np.isfinite(S2).all()):
            warnings.warn(
                "d_utility(method='eigen') is NaN: a covariance of the standardised data could not be computed ("
                + _describe_cause((("x", xf, X), ("xm", xmf, XM))) + "); sdcMicro returns NA here.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
            return float("nan")
        e1, e2 = _eigenvalues(S1), _eigenvalues(S2)
        how = ""
        if max(_condition(e1), _condition(e2)) > _R_ARITHMETIC_COND or not (e1 > 0).all():
            # nearly singular: the value is rounding noise; repeat R's own operations to get sdcMicro's noise
            from ..core.distance import r_scale

            r1, r2 = (_dsyevr_values(_r_var_pairwise(r_scale(M))) for M in (X, XM))
            if r1 is not None and r2 is not None:
                e1, e2 = r1, r2
                how = ("pysdc returns sdcMicro's number: it repeats R's operations (scale and var summed in long "
                       "double record by record, eigen by the system LAPACK's dsyevr with eigenvectors, as R "
                       "calls it), which give R's result where R uses the same LAPACK.")
            else:
                how = ("The system LAPACK (liblapack.so.3, which R uses) could not be loaded, so the noise "
                       "eigenvalues come from SciPy's LAPACK and the number may differ from sdcMicro's.")
        return _eigen_result(e1, e2, "eigen", how=how)

    # robeigen
    from ..core.distance import r_scale
    from ..core.mcd import cov_mcd
    from ..core.rrandom import as_rrandom

    # an int seed is R's set.seed(seed): both MCDs draw from the one R stream, x's first
    rng = as_rrandom(random_state) or np.random.default_rng(random_state)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        unusable = not (np.isfinite(X) | np.isnan(X)).all() or not (np.isfinite(XM) | np.isnan(XM)).all()
        sds = [np.nanstd(M, axis=0) if M.shape[0] > 1 else np.zeros(M.shape[1]) for M in (X, XM)]
    if unusable or any((sd == 0).any() for sd in sds):
        # scale() gives NaN columns (Inf, or sd 0): robustbase's covMcd then fails inside sdcMicro's try()
        warnings.warn(
            "d_utility(method='robeigen') is NaN: the data cannot be standardised ("
            + _describe_cause((("x", xf, X), ("xm", xmf, XM))) + "), so the MCD cannot be computed; sdcMicro "
            "returns NA here. Drop constant columns and replace infinite values.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
        return float("nan")
    try:
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateResultWarning)
            m1 = cov_mcd(r_scale(X), random_state=rng)
            m2 = cov_mcd(r_scale(XM), random_state=rng)
        c1, c2 = m1.cov, m2.cov
        fits = [(name, m) for name, m in (("x", m1), ("xm", m2)) if m.singularity]
        for w in caught:  # the MCD's own warnings, except the exact fit's, which the value's warning explains
            if not (fits and "has become singular" in str(w.message)):
                warnings.warn(w.message, w.category, stacklevel=user_stacklevel())
    except (InvalidParameterError, np.linalg.LinAlgError) as exc:
        # sdcMicro wraps covMcd in try(): any failure gives NA
        warnings.warn(
            f"d_utility(method='robeigen') is NaN: the MCD could not be computed ({exc}); "
            "sdcMicro returns NA here.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
        return float("nan")
    if not (np.isfinite(c1).all() and np.isfinite(c2).all()):
        # robustbase's exact fit with no record on its hyperplane gives a NaN covariance: eigen() fails
        # inside sdcMicro's try() and dUtility returns NA
        warnings.warn(
            "d_utility(method='robeigen') is NaN: the MCD covariance is not finite (covMcd's exact-fit exit "
            "found no record on its hyperplane); sdcMicro returns NA here.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
        return float("nan")
    e1, e2 = _eigenvalues(c1), _eigenvalues(c2)
    how = ""
    if max(_condition(e1), _condition(e2)) > _R_ARITHMETIC_COND or not (e1 > 0).all():
        r1, r2 = _dsyevr_values(c1), _dsyevr_values(c2)  # R's eigen(): dsyevr with eigenvectors
        if r1 is not None and r2 is not None:
            e1, e2 = r1, r2
            how = ("pysdc computes sdcMicro's number (the MCD as covMcd, eigen by the system LAPACK's dsyevr "
                   "with eigenvectors, as R calls it), but sdcMicro's own value moves with a 1-ulp change of "
                   "the input, e.g. a decimal that R's read.csv parses one ulp away from pandas.")
    return _eigen_result(e1, e2, "robeigen", how=how, extra=_exact_fit_note(fits), force=bool(fits))


# --------------------------------------------------------------------------- IL_correl
#: warn where the inverse correlation matrix's relative rounding error (eps * condition number) exceeds this
_IL_CORREL_ROUNDING = 1e-6


def _r_solve_inverse(C: np.ndarray, which: str, cause: str = "") -> np.ndarray:
    """Inverse of ``C`` refusing (near-)singular matrices exactly where R's ``solve`` does."""
    if not np.isfinite(C).all():
        raise InvalidParameterError(
            f"the correlation matrix of {which} has missing entries ({cause or 'a constant variable, or too few complete records'}), "
            "so it cannot be inverted; sdcMicro's IL_correl fails here too. "
            "Drop constant variables, replace infinite values, or drop records with missing values."
        )
    lu, piv = scipy.linalg.lu_factor(C, check_finite=False)
    diag = np.diag(lu)
    if (diag == 0).any():
        raise InvalidParameterError(
            f"the correlation matrix of {which} is exactly singular (perfectly collinear variables); "
            "sdcMicro's IL_correl fails here too. Drop a variable that is a linear function of others."
        )
    anorm = np.abs(C).sum(axis=0).max()
    (gecon,) = scipy.linalg.lapack.get_lapack_funcs(("gecon",), (lu,))
    rcond, _ = gecon(lu, anorm, norm="1")
    if rcond < np.finfo(float).eps:
        near = (" This is within rounding of R's threshold (eps = 2.2e-16): R's estimate for its own correlation "
                "matrix, whose last bits differ, can fall on the other side, and sdcMicro then returns a value "
                "(rounding noise of a singular inverse) where pysdc refuses." if rcond > np.finfo(float).eps / 10
                else " sdcMicro's IL_correl fails here too.")
        raise InvalidParameterError(
            f"the correlation matrix of {which} is computationally singular (reciprocal condition number "
            f"{rcond:.6g}; R's solve() refuses below 2.2e-16).{near} Drop nearly collinear variables."
        )
    return scipy.linalg.lu_solve((lu, piv), np.eye(C.shape[0]), check_finite=False)


def _complete_cor(X: np.ndarray) -> tuple[np.ndarray, int]:
    """R's ``cor(X, use = "complete.obs")`` and the number of complete rows."""
    if not np.isnan(X).any():
        if X.shape[0] < 2:
            return np.full((X.shape[1],) * 2, np.nan), X.shape[0]
        return np.clip(_cor_from_cov(_cov_no_missing(X)), -1.0, 1.0), X.shape[0]
    rows = ~np.isnan(X).any(axis=1)
    k = int(rows.sum())
    if k == 0:
        return np.full((X.shape[1],) * 2, np.nan), 0
    if k < 2:
        return np.full((X.shape[1],) * 2, np.nan), k
    Xc = X if k == X.shape[0] else X[rows]
    R = _cor_from_cov(_cov_no_missing(Xc))
    return np.clip(R, -1.0, 1.0), k


def correl_variables(common: list, class_x, class_xm) -> list:
    """IL_correl's variables: of the ``common`` columns, those numeric (R class numeric or integer, by
    ``class_x``/``class_xm``) in both, sorted; sdcMicro's refusals otherwise."""
    if not common:
        raise InvalidParameterError(
            "x and xm have no column name in common; il_correl compares the variables the two share. "
            "(sdcMicro: 'please supply data.frames with overlapping variable names'.)"
        )
    num_x = {c for c in common if class_x(c) in ("numeric", "integer")}
    num_xm = {c for c in common if class_xm(c) in ("numeric", "integer")}
    if num_x != num_xm:
        raise InvalidParameterError(
            "il_correl needs the common variables to be numeric in both x and xm or in neither; "
            f"numeric only in x: {sorted(num_x - num_xm, key=str)}, only in xm: {sorted(num_xm - num_x, key=str)}. "
            "sdcMicro's IL_correl stops here too. Give the columns the same dtype in both frames."
        )
    if not num_x:
        raise InvalidParameterError(
            "il_correl needs at least one common variable that is numeric (float or integer); "
            f"common columns: {common[:10]}. sdcMicro's IL_correl fails here too."
        )
    return sorted(num_x, key=str)


@validate_params(IL_CORREL_PARAMS)
def il_correl(
    x: pd.DataFrame | np.ndarray,
    xm: pd.DataFrame | np.ndarray,
    *,
    normalization: str = "sdcmicro",
) -> ILCorrelResult:
    """Correlation-based information loss (sdcMicro's ``IL_correl``; Młodak, 2020).

    Compares the diagonals of the inverse correlation matrices of ``x`` and ``xm``.

    Parameters
    ----------
    x : pandas.DataFrame or numpy.ndarray
        Original data.
    xm : pandas.DataFrame or numpy.ndarray
        Masked data. It may have a different number of records.
    normalization : {"sdcmicro", "mlodak"}, default "sdcmicro"
        ``"sdcmicro"`` uses sdcMicro's factor ``1/sqrt(2)``, which scales the
        measure to [0, 1]; ``"mlodak"`` uses the factor ``1/2`` of Młodak's
        paper.

    Returns
    -------
    ILCorrelResult
        ``value`` (also ``float(result)``), ``n_vars``, ``n_x`` and ``n_xm``
        (numbers of records of ``x`` and ``xm``, as sdcMicro's attributes) and
        ``variables``.

    Raises
    ------
    InvalidParameterError
        No common numeric variable, or a correlation matrix that cannot be
        inverted (sdcMicro fails there too).

    See Also
    --------
    d_utility, il_variables, pysdc.r.il_correl

    Notes
    -----
    As sdcMicro 5.8.0: the variables compared are the columns common to ``x``
    and ``xm`` that are numeric (float or integer; boolean, categorical and
    string columns are ignored), in sorted name order; a common column that is
    numeric on one side only is an error. Each
    correlation matrix uses the complete records of its own frame
    (``cor(use = "complete.obs")``). With ``d`` the diagonal of the inverse
    correlation matrix, the measure is
    ``c * || d_x / ||d_x|| - d_xm / ||d_xm|| ||`` with ``c = 1/sqrt(2)``.
    A (computationally) singular correlation matrix is an error, exactly where
    R's ``solve`` refuses it.

    References
    ----------
    Młodak, A. (2020). Information loss resulting from statistical disclosure
    control of output data. *Wiadomości Statystyczne / The Polish Statistician*
    65(9), 7-27.
    """
    xf, xmf = x, xm
    xm_cols = set(xmf.columns)
    common = [c for c in xf.columns if c in xm_cols]
    variables = correl_variables(common, lambda c: r_class(xf[c]), lambda c: r_class(xmf[c]))
    vset = set(variables)
    inv_diags, conds = [], []
    for frame, which in ((xf, "x"), (xmf, "xm")):
        # the correlations are computed in the frame's own column order (no copy of the data when
        # the frame holds just these columns) and then permuted into sorted order
        own = [c for c in frame.columns if c in vset]
        M = _numeric_matrix(which, frame if list(frame.columns) == own else frame[own])
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            C, k = _complete_cor(M)
        if k == 0:
            raise InvalidParameterError(
                f"{which} has no record that is complete in the variables {variables[:10]}; "
                "sdcMicro's IL_correl fails here too (no complete element pairs)."
            )
        pos = [own.index(v) for v in variables]
        C = C[np.ix_(pos, pos)]
        cause = "" if np.isfinite(C).all() else _describe_cause(((which, frame[own], M),))
        d = np.diag(_r_solve_inverse(C, which, cause))
        inv_diags.append(d / np.sqrt(d @ d))
        conds.append((which, float(np.linalg.cond(C))))
    a, b = inv_diags
    factor = 1.0 / np.sqrt(2.0) if normalization == "sdcmicro" else 0.5
    value = float(factor * np.sqrt(np.sum((a - b) ** 2)))
    which, cond = max(conds, key=lambda t: t[1])
    if cond * np.finfo(float).eps > _IL_CORREL_ROUNDING:
        warnings.warn(
            f"il_correl = {value:.6g} carries rounding of a nearly singular inverse: the correlation matrix of "
            f"{which} has condition number {cond:.3g}, so the diagonal of its inverse (what the measure compares) "
            f"keeps about {max(0.0, 15.6 - np.log10(cond)):.0f} correct digits and its last digits depend on the "
            "order of floating-point operations (pysdc's differ from R's solve() in the last bits here, up to "
            "~1e-11 relative in the value). Drop nearly collinear variables for a well-determined measure.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    return ILCorrelResult(
        value=value, n_vars=len(variables), n_x=int(xf.shape[0]), n_xm=int(xmf.shape[0]), variables=tuple(variables)
    )


# --------------------------------------------------------------------------- IL_variables

def il_variables_kind(c, ca: str, cb: str, scales: dict, *, ordinal: bool = True) -> str:
    """IL_variables' scale of column ``c`` (R classes ``ca`` in x, ``cb`` in xm): declared in ``scales``, or
    from the class, with sdcMicro's refusals (``ordinal``: whether an ordered class and the 'ordinal' scale
    are possible -- not on an engine)."""
    if c in scales:
        return scales[c]
    if ca != cb:
        raise InvalidParameterError(
            f"column {c!r} is {ca} in x but {cb} in xm; sdcMicro's IL_variables fails on different "
            f"types. Give both the same dtype, or declare its scale, e.g. scales={{{c!r}: 'numeric'}}."
        )
    if ca in ("integer", "logical", "POSIXct"):
        others = "or 'ordinal', 'nominal'" if ordinal else "or 'nominal'"
        raise InvalidParameterError(
            f"column {c!r} is {ca} (R class), which sdcMicro's IL_variables treats as nominal and then "
            "refuses (its nominal distance accepts only factors and strings). Declare the scale you mean, "
            f"e.g. scales={{{c!r}: 'numeric'}} ({others}), or convert the column to float or to a Categorical."
        )
    return _kind_of(ca) if ordinal else ("numeric" if ca == "numeric" else "nominal")


def _kind_of(cls: str) -> str:
    if cls == "numeric":
        return "numeric"
    if cls == "ordered":
        return "ordinal"
    return "nominal"


def _numeric_distance_sum(a: np.ndarray, b: np.ndarray) -> float:
    """Sum over records of (2/pi) * atan|a - b| with sdcMicro's costs for missing values."""
    d = a - b
    np.abs(d, out=d)
    missing = np.isnan(d)
    if missing.any():
        na_a, na_b = np.isnan(a), np.isnan(b)
        one = na_a ^ na_b
        if one.any():
            # R's range(na.rm = TRUE) of no values is (Inf, -Inf)
            ra = (np.nanmin(a), np.nanmax(a)) if (~na_a).any() else (np.inf, -np.inf)
            rb = (np.nanmin(b), np.nanmax(b)) if (~na_b).any() else (np.inf, -np.inf)
            # max(|range(xm) - rev(range(x))|)
            d[one] = max(abs(rb[0] - ra[1]), abs(rb[1] - ra[0]))
        d[na_a & na_b] = 0.0
    np.arctan(d, out=d)
    return float(d.sum()) * (2.0 / np.pi)


def _ordinal_codes(sa: pd.Series, sb: pd.Series):
    if isinstance(sa.dtype, pd.CategoricalDtype) and isinstance(sb.dtype, pd.CategoricalDtype):
        if list(sa.cat.categories) != list(sb.cat.categories):
            raise InvalidParameterError(
                f"ordered column {sa.name!r} has levels {list(sa.cat.categories)[:10]} in x but "
                f"{list(sb.cat.categories)[:10]} in xm; the rank distance needs the same levels in the same "
                "order (sdcMicro's IL_variables stops here too). Use x[col].cat.set_categories(...) on both."
            )
        ca = sa.cat.codes.to_numpy().astype(np.float64)
        cb = sb.cat.codes.to_numpy().astype(np.float64)
        ca[ca < 0] = np.nan
        cb[cb < 0] = np.nan
        return ca, cb, len(sa.cat.categories)
    # declared ordinal on a non-categorical column: levels are the sorted observed values
    values = pd.concat([sa, sb], ignore_index=True).dropna()
    try:
        levels = np.sort(pd.unique(values.to_numpy()))
    except TypeError as exc:
        raise InvalidParameterError(
            f"column {sa.name!r} was declared ordinal but its values cannot be ordered ({exc}); "
            "make it an ordered Categorical with the levels in order."
        ) from None
    cat = pd.CategoricalDtype(levels, ordered=True)
    ca = sa.astype(object).astype(cat).cat.codes.to_numpy().astype(np.float64)
    cb = sb.astype(object).astype(cat).cat.codes.to_numpy().astype(np.float64)
    ca[ca < 0] = np.nan
    cb[cb < 0] = np.nan
    return ca, cb, len(levels)


def _ordinal_distance(ca: np.ndarray, cb: np.ndarray, n_levels: int) -> np.ndarray:
    na_a, na_b = np.isnan(ca), np.isnan(cb)
    d = np.abs(ca - cb)
    d[na_a ^ na_b] = n_levels - 1.0
    d[na_a & na_b] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return d / (n_levels - 1.0)


def _nominal_distance(sa: pd.Series, sb: pd.Series) -> np.ndarray:
    na_a = sa.isna().to_numpy()
    na_b = sb.isna().to_numpy()
    if (
        isinstance(sa.dtype, pd.CategoricalDtype)
        and isinstance(sb.dtype, pd.CategoricalDtype)
        and sa.cat.categories.equals(sb.cat.categories)
    ):
        differ = (sa.cat.codes.to_numpy() != sb.cat.codes.to_numpy()).astype(np.float64)
    else:  # compare the values (labels) themselves; missing values (None, NaN, pd.NA) are set below
        va = sa.astype(object).to_numpy(dtype=object, na_value=None)
        vb = sb.astype(object).to_numpy(dtype=object, na_value=None)
        differ = np.fromiter((a != b for a, b in zip(va, vb)), dtype=bool, count=len(va)).astype(np.float64) \
            if _mixed_objects(va, vb) else (va != vb).astype(np.float64)
    differ[na_a ^ na_b] = 1.0
    differ[na_a & na_b] = 0.0
    return differ


def _mixed_objects(va: np.ndarray, vb: np.ndarray) -> bool:
    """Whether ``va != vb`` could fail element-wise (values whose ``!=`` is not a plain bool)."""
    try:
        out = va != vb
    except (TypeError, ValueError):
        return True
    return not (isinstance(out, np.ndarray) and out.dtype == bool and out.shape == va.shape)


@validate_params(IL_VARIABLES_PARAMS)
def il_variables(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    *,
    scales: dict[str, str] | None = None,
) -> ILVariablesResult:
    """Variable-wise information loss (sdcMicro's ``IL_variables``; Młodak, 2020).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data.
    xm : pandas.DataFrame
        Masked data: the same records in the same order.
    scales : dict, optional
        Declares the scale of a variable, overriding the scale sdcMicro derives
        from its type: ``{"age": "numeric", "hhsize": "ordinal", "code": "nominal"}``.
        This is how integer and boolean columns are measured (sdcMicro refuses
        them). A variable declared ``"ordinal"`` that is not an ordered
        categorical takes its sorted observed values (in ``x`` and ``xm``) as levels.

    Returns
    -------
    ILVariablesResult
        ``value`` (λ, also ``float(result)``), ``per_variable`` (each
        variable's contribution, a Series indexed by name) and ``n``.

    Raises
    ------
    InvalidParameterError
        An integer or boolean variable without a declared scale, a variable
        whose type differs between ``x`` and ``xm``, no common variable, or
        different row counts.

    See Also
    --------
    il_correl, d_utility, pysdc.r.il_variables

    Notes
    -----
    Common columns are taken in ``x``'s order. Distances per record, as in
    sdcMicro 5.8.0:

    * float (R "numeric"): ``(2/pi) * atan(|x - xm|)``; where only one side is
      missing the distance inside the atan is
      ``max(|range(xm) - rev(range(x))|)``; both missing cost 0.
    * ordered categorical: ``|code(x) - code(xm)| / (levels - 1)``; one side
      missing costs 1, both 0. ``x`` and ``xm`` must have the same levels in
      the same order (sdcMicro stops otherwise). A one-level ordered factor
      gives NaN (returned with a warning, as sdcMicro returns NaN).
    * categorical, string (nominal): 0 if equal, 1 otherwise; one side missing
      costs 1, both 0.

    ``per_variable = sum of distances / n``;
    ``value = sum of all distances / (n * number of variables)``.

    sdcMicro types integer and logical columns as nominal but its nominal
    distance only accepts factors and strings, so it fails on them; pysdc
    refuses them too and offers ``scales`` as the way out. Columns whose type
    differs between ``x`` and ``xm`` (e.g. integer in ``x``, float in ``xm``)
    fail in sdcMicro and are refused here.

    References
    ----------
    Młodak, A. (2020). Information loss resulting from statistical disclosure
    control of output data. *Wiadomości Statystyczne / The Polish Statistician*
    65(9), 7-27.
    """
    xf, xmf = x, xm
    xm_cols = set(xmf.columns)
    common = [c for c in xf.columns if c in xm_cols]
    if not common:
        raise InvalidParameterError(
            "x and xm have no column in common; il_variables compares variables by name."
        )
    n = xf.shape[0]
    if xmf.shape[0] != n:
        raise InvalidParameterError(
            f"x has {n} rows but xm has {xmf.shape[0]}; il_variables compares record by record."
        )
    only_x = [c for c in xf.columns if c not in xm_cols]
    only_xm = [c for c in xmf.columns if c not in set(common)]
    if only_x or only_xm:
        warnings.warn(
            f"il_variables compares only the {len(common)} column(s) common to x and xm; left out: only in x "
            f"{_show_names(only_x)}, only in xm {_show_names(only_xm)} (sdcMicro's IL_variables does the same "
            "silently; d_utility refuses such frames). Select the same columns in both to compare them all.",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )
    warn_if_unaligned("il_variables", xf, xmf)
    sums = {}
    for c in common:
        sa, sb = xf[c], xmf[c]
        ca, cb = r_class(sa), r_class(sb)
        kind = il_variables_kind(c, ca, cb, scales)
        if c not in scales:
            _refuse_object_numbers(c, sa, "x")
            _refuse_object_numbers(c, sb, "xm")
        if kind == "numeric":
            try:
                s = _numeric_distance_sum(as_float(sa, copy=False), as_float(sb, copy=False))
            except (TypeError, ValueError, InvalidParameterError):
                raise InvalidParameterError(
                    f"column {c!r} was declared numeric but its values are not numbers."
                ) from None
        elif kind == "ordinal":
            codes_a, codes_b, levels = _ordinal_codes(sa, sb)
            s = float(np.sum(_ordinal_distance(codes_a, codes_b, levels)))
        else:
            s = float(np.sum(_nominal_distance(sa, sb)))
        sums[c] = s
    return il_variables_from_sums(sums, n)


def _refuse_object_numbers(c, s: pd.Series, name: str) -> None:
    """An object column is R's character; one that holds non-string values (floats, ints: numbers held as
    object) is refused, as d_utility and il_correl refuse it and as the R bridge does -- measured as labels,
    every number would silently differ from its masked one (IL_variables 1.0)."""
    if s.dtype != np.dtype(object):
        return
    v = s.to_numpy(dtype=object)
    v = v[~pd.isna(v)]
    if not len(v) or pd.api.types.infer_dtype(v, skipna=True) == "string":
        return
    bad = next((u for u in v if not isinstance(u, str)), None)
    raise InvalidParameterError(
        f"column {c!r} of {name} has object dtype but holds non-string values (e.g. {bad!r}, a "
        f"{type(bad).__name__}); an object column is R's character, where every value would be a label and a "
        "masked number always differ from its original. il_variables refuses it, as d_utility and il_correl "
        f"do. Convert it (x[{c!r}].astype(float) to measure it as a number, .astype(str) to compare labels), "
        f"or declare its scale: scales={{{c!r}: 'numeric'}} (or 'nominal')."
    )


def il_variables_from_sums(sums: dict, n: int) -> ILVariablesResult:
    """IL_variables from each variable's summed distance (in ``x``'s column order) over ``n`` records
    (pandas sums the records' distances, an engine aggregates them)."""
    contributions = {c: (s / n if n else np.nan) for c, s in sums.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(sum(sums.values())) / (n * len(sums)) if n else float("nan")
    per_variable = pd.Series(contributions, dtype=np.float64, name="il_variables")
    if not np.isfinite(value):
        bad = [k for k, v in contributions.items() if not np.isfinite(v)] if n else []
        warnings.warn(
            f"il_variables is {value}: "
            + (f"variable(s) {bad} give NaN (a one-level ordered factor divides by levels - 1 = 0). "
               if bad else "x and xm have no records (0 rows). ")
            + "sdcMicro returns NaN here too.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    return ILVariablesResult(value=float(value), per_variable=per_variable, n=int(n))
