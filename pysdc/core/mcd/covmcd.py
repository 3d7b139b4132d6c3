"""The public MCD estimator :func:`cov_mcd`: input checks, p = 1, exact fits, reweighting.

It runs pysdc's own FAST-MCD (:mod:`pysdc.core.mcd.fast`) on a numpy Generator and the replica
of robustbase's on R's random stream (:mod:`pysdc.core.mcd.rstream`) on an R seed.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from scipy import stats

from ..._errors import DegenerateResultWarning, InvalidParameterError
from ..rrandom import as_rrandom
from .exactfit import ExactFitOverrun, overrun_message
from .factors import h_alpha_n, mcd_consistency_factor, mcd_small_sample_factor
from .fast import _dist2_cols, _ExactFit, _fast_mcd, _gram, _hyperplane_rows, _singular
from .result import McdResult
from .rstream import _cov_mcd_rstream, _fastmcd_rstream


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


def _names(x):
    cols = getattr(x, "columns", None)
    return [str(c) for c in cols] if cols is not None else None


def _check_int(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low:
        raise InvalidParameterError(f"{name} must be an integer >= {low}; got {value!r}.")
    return int(value)


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
    (``tests/core/test_mcd_rstream.py`` checks both against robustbase). Rare branches that
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
        try:
            return _cov_mcd_rstream(X, rows, h, alpha, nsamp, nmini, kmini, rr, raw_cnp2, method)
        except ExactFitOverrun as exc:  # the same error, naming the collinear variables
            raise ExactFitOverrun(overrun_message(X, _names(x), whole_data=exc.whole_data),
                                  whole_data=exc.whole_data) from None

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


def r_covmcd_overrun(x, random_state, *, alpha: float = 0.5, nmini: int = 300, names=None,
                     caller: str = "covMcd") -> ExactFitOverrun | None:
    """Whether robustbase's ``covMcd(x)`` on R's stream would run past its arrays (R's memory corrupted).

    Runs pysdc's replica of robustbase's FAST-MCD search (the one :func:`cov_mcd` runs with an R seed) on a
    copy of the stream, so ``random_state`` is left as it is. Only data of fewer than ``2 * nmini`` records
    can take that branch (see :mod:`pysdc.core.mcd.exactfit`); larger ones are not searched.

    Parameters
    ----------
    x : array_like (n, p) or DataFrame of numeric columns
        The data exactly as covMcd gets them (rows with a missing or infinite value are dropped, as by covMcd).
    random_state : int or RRandom
        R's stream right before the call (an int: ``set.seed``).
    alpha, nmini : covMcd's arguments (its defaults).
    names : list of str, optional
        Variable names for the message (default: a DataFrame's columns).
    caller : str
        The function named in the message.

    Returns
    -------
    ExactFitOverrun or None
        The error to raise instead of calling R (its message names the collinear variables), or None.
    """
    rr = as_rrandom(random_state)
    if rr is None:
        raise InvalidParameterError("r_covmcd_overrun needs R's stream: an int seed or an RRandom.")
    X0 = _as_matrix(x)
    X = X0[np.isfinite(X0).all(axis=1)]
    n, p = X.shape
    h = h_alpha_n(alpha, n, p) if n > p + 1 else n
    if p < 2 or n <= p + 1 or h >= n or n >= 2 * nmini:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _fastmcd_rstream(np.ascontiguousarray(X), h, 500, nmini, 5, rr.copy())
        except ExactFitOverrun as exc:
            if exc.whole_data:
                return ExactFitOverrun(overrun_message(X, names if names is not None else _names(x), caller=caller),
                                       whole_data=True)
        except Exception:  # noqa: BLE001 - any other exit (an exact fit, a branch not reproduced): R runs safely
            return None
    return None
