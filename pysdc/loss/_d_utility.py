"""sdcMicro's ``dUtility``: information loss between original and masked continuous variables, native.

IL1 and IL1s are computed here; the eigen methods' matrices and eigenvalues come from
:mod:`pysdc.core.eigen`, robeigen's MCD from :mod:`pysdc.core.mcd`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._foreign import measure
from .._results import DUtilityResult
from .._types import NUMERIC_MATRIX_CLASSES, r_class
from .._validation import FROM_ARRAY, Boolean, Frame, Options, RandomState, same_columns, user_stacklevel, warn_if_unaligned
from ..core.distance import r_scale
from ..core.dutility import CELLWISE_METHODS, D_UTILITY_METHODS
from ..core.eigen import (
    R_ARITHMETIC_COND,
    condition_number,
    cor_from_cov,
    cov_no_missing,
    degenerate,
    dsyevr_values,
    eigen_result,
    eigenvalues,
    r_var_pairwise,
    scale_columns,
    var_pairwise,
)
from ..core.mcd import cov_mcd
from ..core.rrandom import as_rrandom
from ..engine._d_utility import d_utility_engine
from ._frames import column_names, describe_cause, numeric_matrix

__all__ = ["d_utility", "D_UTILITY_PARAMS"]


D_UTILITY_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "method": Options(D_UTILITY_METHODS),
    "average": Boolean(),
    "random_state": RandomState(),
}


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


@measure(D_UTILITY_PARAMS, selects="numeric", engine=d_utility_engine, by_name=True)
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
    if average and method not in CELLWISE_METHODS:
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
    if method not in CELLWISE_METHODS:  # eigen, robeigen
        non_numeric = [
            c for f in (xf, xmf) for c in f.columns if r_class(f[c]) not in NUMERIC_MATRIX_CLASSES
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
    X = numeric_matrix("x", xf)
    XM = numeric_matrix("xm", xmf)

    if method in CELLWISE_METHODS:
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
                    f"d_utility(method='IL1s'): column(s) {column_names(xf.columns, few)} of x have fewer than two "
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
        return degenerate(total, f"d_utility(method={method!r})")

    if method == "eigen":
        with np.errstate(invalid="ignore", divide="ignore"):
            S1, S2 = (
                np.full((M.shape[1],) * 2, np.nan) if M.shape[0] < 2
                # without missing values var(scale(x)) is the correlation matrix
                else cor_from_cov(cov_no_missing(M)) if not np.isnan(M).any()
                else var_pairwise(scale_columns(M))
                for M in (X, XM)
            )
        if not (np.isfinite(S1).all() and np.isfinite(S2).all()):
            warnings.warn(
                "d_utility(method='eigen') is NaN: a covariance of the standardised data could not be computed ("
                + describe_cause((("x", xf, X), ("xm", xmf, XM))) + "); sdcMicro returns NA here.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
            return float("nan")
        e1, e2 = eigenvalues(S1), eigenvalues(S2)
        how = ""
        if max(condition_number(e1), condition_number(e2)) > R_ARITHMETIC_COND or not (e1 > 0).all():
            # nearly singular: the value is rounding noise; repeat R's own operations to get sdcMicro's noise

            r1, r2 = (dsyevr_values(r_var_pairwise(r_scale(M))) for M in (X, XM))
            if r1 is not None and r2 is not None:
                e1, e2 = r1, r2
                how = ("pysdc returns sdcMicro's number: it repeats R's operations (scale and var summed in long "
                       "double record by record, eigen by the system LAPACK's dsyevr with eigenvectors, as R "
                       "calls it), which give R's result where R uses the same LAPACK.")
            else:
                how = ("The system LAPACK (liblapack.so.3, which R uses) could not be loaded, so the noise "
                       "eigenvalues come from SciPy's LAPACK and the number may differ from sdcMicro's.")
        return eigen_result(e1, e2, "eigen", how=how)

    # robeigen

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
            + describe_cause((("x", xf, X), ("xm", xmf, XM))) + "), so the MCD cannot be computed; sdcMicro "
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
    e1, e2 = eigenvalues(c1), eigenvalues(c2)
    how = ""
    if max(condition_number(e1), condition_number(e2)) > R_ARITHMETIC_COND or not (e1 > 0).all():
        r1, r2 = dsyevr_values(c1), dsyevr_values(c2)  # R's eigen(): dsyevr with eigenvectors
        if r1 is not None and r2 is not None:
            e1, e2 = r1, r2
            how = ("pysdc computes sdcMicro's number (the MCD as covMcd, eigen by the system LAPACK's dsyevr "
                   "with eigenvectors, as R calls it), but sdcMicro's own value moves with a 1-ulp change of "
                   "the input, e.g. a decimal that R's read.csv parses one ulp away from pandas.")
    return eigen_result(e1, e2, "robeigen", how=how, extra=_exact_fit_note(fits), force=bool(fits))
