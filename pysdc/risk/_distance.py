"""Distance-based disclosure risk for continuous variables: ``d_risk`` (sdcMicro's ``dRisk``)
and ``d_risk_rmd`` (``dRiskRMD``), native.

The numeric kernel is :mod:`pysdc.core.distance`; this module checks and converts the
frames, pairs the columns the way sdcMicro does, runs the MCD for ``d_risk_rmd`` and
assembles the result.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import AlignmentWarning, DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import DRiskResult, _Repr
from .._types import NUMERIC_MATRIX_CLASSES as _NUMERIC  # the R classes the distance measures compute on
from .._types import r_class
from .._validation import Frame, Interval, RandomState, check_frame, user_stacklevel
from ..core.distance import d_risk_rmd_core, r_col_means, r_scale, sdid_at_risk
from ..core.mcd import cov_mcd

__all__ = ["d_risk", "d_risk_rmd", "DRiskRMDResult", "D_RISK_PARAMS", "D_RISK_RMD_PARAMS"]

D_RISK_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "k": Interval(),
}
D_RISK_RMD_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "k": Interval(),
    "k2": Interval(),
    "random_state": RandomState(
        note="An int s is R's set.seed(s) (the MCD draws from R's own random stream)."
    ),
}


@dataclass(frozen=True, eq=False, repr=False)
class DRiskRMDResult(_Repr):
    """Result of :func:`pysdc.d_risk_rmd` (sdcMicro's ``dRiskRMD`` list).

    Attributes
    ----------
    risk1 : float
        Share of records at risk by RMDID1: some masked value lies inside its record's
        robust-distance interval around the original value (sdcMicro's ``risk1``).
    risk2 : float
        Share of records at risk by RMDID2: at risk by RMDID1 and no other masked record
        within Euclidean distance ``k2`` of the masked record (``risk2``).
    wrisk1 : float
        ``len(index_risk1) * sum(riskvec1) / n`` (``wrisk1``; sdcMicro multiplies the count
        by the sum of the weights).
    wrisk2 : float
        The same for RMDID2 (``wrisk2``).
    index_risk1 : numpy.ndarray of int
        0-based positions of the records at risk by RMDID1 (R's ``indexRisk1`` minus one).
    index_risk2 : numpy.ndarray of int
        0-based positions at risk by RMDID2 (R's ``indexRisk2`` minus one; empty where R
        gives ``NULL``).
    riskvec1 : numpy.ndarray of float
        One value per record: its weight ``0.05 * sqrt(RMD)`` where at risk by RMDID1,
        else 0 (``riskvec1``).
    riskvec2 : numpy.ndarray of float
        The same for RMDID2 (``riskvec2``).
    """

    risk1: float
    risk2: float
    wrisk1: float
    wrisk2: float
    index_risk1: np.ndarray
    index_risk2: np.ndarray
    riskvec1: np.ndarray
    riskvec2: np.ndarray


# ----------------------------------------------------------------------------- helpers


def _matrix(name: str, frame: pd.DataFrame, func: str, r_name: str) -> np.ndarray:
    bad = [(c, r_class(frame[c])) for c in frame.columns if r_class(frame[c]) not in _NUMERIC]
    if bad:
        shown = ", ".join(f"{c!r} ({cls})" for c, cls in bad[:5])
        raise InvalidParameterError(
            f"{name} must hold numeric variables only; got non-numeric column(s) {shown}. sdcMicro's {r_name} "
            f"cannot compute on them (it stops, or compares factor codes meaninglessly). Select the continuous "
            f"variables, e.g. {name}[['income', 'expend']]."
        )
    if frame.shape[1] == 0:
        raise InvalidParameterError(f"{name} must have at least one column; got none.")
    out = np.empty(frame.shape, dtype=np.float64, order="F")
    for j, c in enumerate(frame.columns):  # loop over variables
        out[:, j] = frame[c].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(out).any():
        raise InvalidParameterError(
            f"{name} has infinite values; {func} needs finite values or NaN for missing (sdcMicro's standard "
            "deviations and distances become NaN there). Replace them, e.g. with NaN."
        )
    return out


def _same_rows(x: pd.DataFrame, xm: pd.DataFrame, func: str) -> None:
    if x.shape[0] != xm.shape[0]:
        raise InvalidParameterError(
            f"xm must have as many rows as x; got {xm.shape[0]} and {x.shape[0]}. {func} compares each "
            "original record with its own masked version, so both must hold the same records in the same order."
        )
    if not x.index.equals(xm.index):
        warnings.warn(
            f"{func}: x and xm have different row indexes; records are paired by position (as sdcMicro does), "
            "not by index label. Align them first (e.g. xm = xm.loc[x.index]) if they are in different orders.",
            AlignmentWarning,
            stacklevel=user_stacklevel(),
        )


# ----------------------------------------------------------------------------- d_risk


@measure(D_RISK_PARAMS, selects="numeric")
def d_risk(x: pd.DataFrame | np.ndarray, xm: pd.DataFrame | np.ndarray, *, k: float = 0.05) -> DRiskResult:
    """Share of records whose original values all lie near their masked values (SDID).

    For every record and variable, an interval ``[xm - k * sd, xm + k * sd]`` is built
    around the masked value, ``sd`` being the standard deviation of that masked variable.
    A record is at risk when none of its original values falls outside its interval; the
    result is the share of such records (sdcMicro's ``dRisk``).

    Parameters
    ----------
    x : pandas.DataFrame or 2-d numeric numpy.ndarray
        The original continuous variables (numeric, integer or boolean columns).
    xm : pandas.DataFrame or 2-d numeric numpy.ndarray
        The masked variables: the same records in the same order, the same number of
        columns, paired with ``x``'s **by position**.
    k : float, default 0.05
        Half-width of the intervals as a fraction of the standard deviation.

    Returns
    -------
    DRiskResult
        The share, in [0, 1]; NaN (with a :class:`~pysdc.DegenerateResultWarning`) for empty
        data. A ``float`` (``float(result)``, arithmetic and comparisons work as on the
        number), with ``k``, ``n`` and ``n_vars`` as fields.

    Raises
    ------
    InvalidParameterError
        Non-numeric or infinite values, different numbers of rows or columns, a
        non-finite ``k``.

    See Also
    --------
    d_risk_rmd : intervals scaled by each record's robust Mahalanobis distance.
    d_utility : information loss of the same pair.

    Notes
    -----
    Follows sdcMicro 5.8.0's ``dRisk(x, xm = xm, k = k)`` number for number:

    * ``sd`` is computed on the **masked** data (``sd(xm[, j], na.rm = TRUE)``), not on
      the original.
    * Missing values: a comparison involving a missing original or masked value (or an
      undefined ``sd``, e.g. a single record) is ignored; a record whose comparisons are
      all ignored counts as at risk. A constant masked variable (``sd = 0``) makes the
      interval a point: only records whose original equals the masked value stay at risk.
    * The interval is closed: a record is safe only if some ``x < xm - k * sd`` or
      ``x > xm + k * sd``. Any finite ``k`` is used as it is (sdcMicro does not check it;
      a negative ``k`` makes every record safe except where ``sd = 0`` and ``x == xm``).
    * Columns are paired **by position**, whatever their names (a warning is given when
      the same names appear in a different order). With different numbers of columns
      sdcMicro compares recycled columns (R's recycling rule) and returns a number; pysdc
      refuses. With different numbers of rows sdcMicro stops with an internal error
      (``object 'obj' not found``); pysdc refuses with the cause.

    References
    ----------
    .. [1] Mateo-Sanz, J. M., Sebé, F., Domingo-Ferrer, J. (2004). Outlier protection in
       continuous microdata masking. Privacy in Statistical Databases, LNCS 3050, 201-215.
    .. [2] Templ, M. (2017). Statistical Disclosure Control for Microdata: Methods and
       Applications in R. Springer.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    >>> xm = pd.DataFrame({"a": [1.05, 2.5, 3.0, 3.0]})
    >>> float(pysdc.d_risk(x, xm, k=0.1))  # sd(xm) = 0.98: records 0 and 2 stay within 0.098
    0.5
    """
    if x.shape[1] != xm.shape[1]:
        raise InvalidParameterError(
            f"xm must have as many columns as x; got {xm.shape[1]} and {x.shape[1]}. d_risk pairs the columns "
            "by position (sdcMicro then recycles the shorter one, which compares unrelated variables). Select "
            "the same variables in the same order in both."
        )
    _same_rows(x, xm, "d_risk")
    if list(x.columns) != list(xm.columns) and set(x.columns) == set(xm.columns):
        warnings.warn(
            "d_risk: x and xm have the same column names in a different order; sdcMicro's dRisk pairs columns "
            "by position, and so does pysdc, so different variables are compared. Reorder xm (xm[x.columns]) "
            "to compare each variable with itself.",
            AlignmentWarning,
            stacklevel=user_stacklevel(),
        )
    X = _matrix("x", x, "d_risk", "dRisk")
    XM = _matrix("xm", xm, "d_risk", "dRisk")
    n = X.shape[0]
    if n == 0:
        warnings.warn("d_risk: x has no rows; the share of records at risk is NaN (as in sdcMicro).",
                      DegenerateResultWarning, stacklevel=user_stacklevel())
        return DRiskResult(float("nan"), k=k, n=0, n_vars=int(X.shape[1]))
    at_risk = sdid_at_risk(X, XM, k)
    return DRiskResult(float(np.count_nonzero(at_risk) / n), k=k, n=int(n), n_vars=int(X.shape[1]))


# ----------------------------------------------------------------------------- d_risk_rmd


def _rmd_inputs(x: pd.DataFrame, xm: pd.DataFrame):
    """Scaled matrices and the column pairing of d_risk_rmd (checks included)."""
    only_xm = [c for c in xm.columns if c not in set(x.columns)]
    if only_xm:
        raise InvalidParameterError(
            f"xm has column(s) {only_xm[:10]} that x does not have; d_risk_rmd pairs xm's columns with x's by "
            "name (sdcMicro fails with 'subscript out of bounds'). Give both the same variable names."
        )
    _same_rows(x, xm, "d_risk_rmd")
    X = _matrix("x", x, "d_risk_rmd", "dRiskRMD")
    XM = _matrix("xm", xm, "d_risk_rmd", "dRiskRMD")
    cols = list(x.columns)
    pairs = np.array([cols.index(c) for c in xm.columns], dtype=np.intp)
    Xs = r_scale(X)
    XMs = r_scale(XM)
    return Xs, XMs, pairs


def _rmd_result(Xs, XMs, pairs, cov, k, k2) -> DRiskRMDResult:
    center = r_col_means(Xs)
    if np.isnan(center).any():
        warnings.warn(
            "d_risk_rmd: x has missing values, so sdcMicro's centre (the column means of the scaled x) is NA and "
            "every robust distance is NA: no record is found at risk and every risk is 0. pysdc returns these "
            "numbers; impute x or drop incomplete records for a meaningful measure.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    out = d_risk_rmd_core(Xs, XMs, pairs, center, cov, k, k2)
    return DRiskRMDResult(
        risk1=out["risk1"], risk2=out["risk2"], wrisk1=out["wrisk1"], wrisk2=out["wrisk2"],
        index_risk1=out["index_risk1"], index_risk2=out["index_risk2"],
        riskvec1=out["riskvec1"], riskvec2=out["riskvec2"],
    )


#: robustbase's rrcov.control()$tolSolve: covMcd's mahalanobis() calls stop below this reciprocal condition
_COVMCD_TOL_SOLVE = 1e-14


def _rcond(c: np.ndarray) -> float:
    """LAPACK's 1-norm reciprocal condition estimate (dgecon), as R's solve() computes it."""
    import scipy.linalg

    lu, _ = scipy.linalg.lu_factor(c, check_finite=False)
    if (np.diag(lu) == 0).any():
        return 0.0
    (gecon,) = scipy.linalg.lapack.get_lapack_funcs(("gecon",), (lu,))
    return float(gecon(lu, np.abs(c).sum(axis=0).max(), norm="1")[0])


def _robust_cov(Xs: np.ndarray, random_state) -> np.ndarray:
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            m = cov_mcd(Xs, random_state=random_state)
        cov = m.cov
        if not np.isfinite(cov).all():  # covMcd's exact fit with no record on its hyperplane
            raise InvalidParameterError("the MCD covariance is not finite (R's solve() stops on it).")
        if m.singularity is None:
            # covMcd's reweighting step: mahalanobis(x, initmean, initcov, tol = tolSolve = 1e-14), then
            # the same with the reweighted covariance; R's solve() stops below that reciprocal condition
            for name, c in (("raw", m.raw_cov), ("reweighted", cov)):
                rc = _rcond(c)
                if rc < _COVMCD_TOL_SOLVE:
                    raise InvalidParameterError(
                        f"the {name} MCD covariance is computationally singular (reciprocal condition number "
                        f"{rc:.6g} below covMcd's tolSolve = 1e-14, where R's solve() inside covMcd stops with "
                        "'system is computationally singular'; nearly collinear variables)"
                    )
        return cov
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"d_risk_rmd: the robust covariance (MCD) of the scaled x cannot be computed: {exc} "
            "(sdcMicro's dRiskRMD stops in covMcd here; a constant variable of x leaves no usable record.)"
        ) from None


@measure(D_RISK_RMD_PARAMS, selects="numeric")
def d_risk_rmd(
    x: pd.DataFrame | np.ndarray,
    xm: pd.DataFrame | np.ndarray,
    *,
    k: float = 0.01,
    k2: float = 0.05,
    random_state=None,
) -> DRiskRMDResult:
    """Disclosure risk by robust-Mahalanobis intervals (RMDID1, RMDID2), as sdcMicro's ``dRiskRMD``.

    Both frames are standardised. Each original record gets a weight ``r = 0.05 *
    sqrt(RMD)`` from its robust Mahalanobis distance (MCD covariance), so outlying
    records get wider intervals ``(x - k * r, x + k * r)``. A record is at risk by RMDID1
    when **some** masked value lies strictly inside its interval; it is at risk by RMDID2
    when, in addition, no other masked record lies within Euclidean distance ``k2`` of
    its masked record (it cannot hide among neighbours).

    Parameters
    ----------
    x : pandas.DataFrame or 2-d numeric numpy.ndarray
        The original continuous variables (numeric, integer or boolean columns). All of
        them enter the robust distances.
    xm : pandas.DataFrame or 2-d numeric numpy.ndarray
        The masked variables, same records in the same order; every column of ``xm`` must
        be a column of ``x`` (paired **by name**; ``x`` may have more).
    k : float, default 0.01
        Interval factor.
    k2 : float, default 0.05
        Radius (in standardised units) of the neighbourhood searched for other masked records.
    random_state : None, int or numpy.random.Generator
        An int ``s`` is R's ``set.seed(s)``: the MCD draws its random subsets from R's own
        random stream and the result equals sdcMicro's after ``set.seed(s)``. A numpy
        Generator (or None: a fresh one) uses pysdc's own stream.

    Returns
    -------
    DRiskRMDResult
        ``risk1``, ``risk2``, ``wrisk1``, ``wrisk2``, ``index_risk1``, ``index_risk2``
        (0-based), ``riskvec1``, ``riskvec2``.

    Raises
    ------
    InvalidParameterError
        Non-numeric or infinite values, columns of ``xm`` missing from ``x``, different
        numbers of rows, too few usable records or a constant variable for the MCD, a
        singular robust covariance, non-finite ``k``/``k2``.

    See Also
    --------
    d_risk : the same idea with intervals of a fixed width (SDID).
    pysdc.core.mcd.cov_mcd : the MCD estimator.

    Notes
    -----
    Follows sdcMicro 5.8.0's ``dRiskRMD(x, xm = xm, k = k, k2 = k2)``:

    * ``x`` and ``xm`` are standardised **separately** (each by its own means and
      standard deviations, R's ``scale``). The robust distance is
      ``mahalanobis(x, colMeans(x), covMcd(x)$cov)`` on the scaled ``x``: the centre is the
      column mean of the scaled data (zero up to rounding), not the MCD's robust centre;
      the weight is ``0.05 * sqrt`` of it.
    * RMDID1 flags a record when **any** (not all) paired variable has its masked value
      strictly inside the interval: an unmasked variable alone makes every record "at
      risk". RMDID2 then measures distances between masked records with all of ``xm``'s
      columns (Euclidean, standardised units); a record with a duplicate masked record
      (distance 0) is never at risk by RMDID2.
    * ``wrisk1 = len(index_risk1) * sum(riskvec1) / n`` and likewise ``wrisk2``: the
      count times the sum, as sdcMicro computes it (not a weighted share).
    * Missing values: **any missing value in x makes every risk 0** (sdcMicro's centre
      ``colMeans`` is then NA, so every distance is NA; pysdc returns the same and warns).
      Missing masked values: comparisons with them are ignored, and distances between
      masked records skip coordinates missing in either record, scaled up by
      ``p / (coordinates used)`` as R's ``dist`` does.
    * The MCD is random (robustbase draws 500 random subsets, with R's random numbers).
      With ``random_state=s`` pysdc's FAST-MCD (:func:`pysdc.core.mcd.cov_mcd`) draws the
      same subsets from R's Mersenne-Twister stream, so the result equals sdcMicro's after
      ``set.seed(s)`` (to 1e-12; index sets exactly). Without a seed (or with a numpy
      Generator) the subsets are pysdc's own draw: the risks then agree with sdcMicro's
      within its own seed-to-seed variation.
    * sdcMicro builds the n x n distance matrix of ``xm`` (several GB at 2e4 records);
      pysdc finds the nearest other masked record with a k-d tree, in O(n log n) time and
      O(n) memory, and recomputes its distance with R's arithmetic.
    * Different numbers of rows: sdcMicro cuts ``xm`` to ``x``'s rows or pads it with
      missing rows; pysdc refuses.

    References
    ----------
    .. [1] Templ, M., Meindl, B. (2008). Robust statistics meets SDC: new disclosure risk
       measures for continuous microdata masking. Privacy in Statistical Databases,
       LNCS 5262, 113-126.
    .. [2] Rousseeuw, P. J., Van Driessen, K. (1999). A fast algorithm for the minimum
       covariance determinant estimator. Technometrics 41, 212-223.

    Examples
    --------
    >>> import numpy as np, pandas as pd, pysdc
    >>> rng = np.random.default_rng(1)
    >>> x = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    >>> xm = x + rng.normal(scale=0.05, size=x.shape)  # little protection
    >>> r = pysdc.d_risk_rmd(x, xm, k=1, k2=0.1, random_state=1)
    >>> round(r.risk1, 3), round(r.risk2, 3), len(r.index_risk1)
    (0.953, 0.933, 286)
    """
    Xs, XMs, pairs = _rmd_inputs(x, xm)
    cov = _robust_cov(Xs, random_state)
    _warn_rmd_condition(cov)
    return _rmd_result(Xs, XMs, pairs, cov, k, k2)


#: warn that d_risk_rmd's risks are meaningless where the relative rounding error of the robust
#: distances (eps * condition number of the MCD covariance) exceeds this (as robeigen's warning)
_RMD_MEANINGLESS = 1e-6


def _warn_rmd_condition(cov: np.ndarray) -> None:
    """Call-time warning where the MCD covariance is so ill-conditioned that the distances are noise."""
    with np.errstate(all="ignore"):
        e = np.abs(np.linalg.eigvalsh(cov)) if cov.size and np.isfinite(cov).all() else np.array([np.nan])
        cond = float(e.max() / e.min()) if e.size and e.min() > 0 else np.inf
    if not np.isfinite(cond) or cond * np.finfo(float).eps > _RMD_MEANINGLESS:
        digits = max(0.0, 15.6 - np.log10(cond)) if np.isfinite(cond) else 0.0
        warnings.warn(
            "d_risk_rmd: the risks are numerically meaningless: the robust (MCD) covariance of the scaled x is "
            f"nearly singular (smallest/largest eigenvalue {np.nanmin(e):.3g} / {np.nanmax(e):.3g}, condition "
            f"number {cond:.3g}), so the robust Mahalanobis distances, which use its inverse, keep about "
            f"{digits:.0f} correct digits; every interval width r = 0.05 * sqrt(distance) and so the risks "
            "follow rounding: a 1-ulp change of the input moves sdcMicro's own value (by 2 % on the "
            "differential tester's seed 4), and pysdc's value differs from sdcMicro's by as much. pysdc returns "
            "the number from sdcMicro's operations; drop the (nearly) collinear variables for a meaningful risk.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )


def _d_risk_rmd_with_cov(x, xm, cov, *, k: float = 0.01, k2: float = 0.05) -> DRiskRMDResult:
    """``d_risk_rmd`` with the robust covariance of the scaled ``x`` given (e.g. R's ``covMcd``).

    Everything but the MCD is computed as in :func:`d_risk_rmd`: with sdcMicro's own
    covariance this reproduces sdcMicro's result exactly (tests inject R's covariance).
    """
    x = check_frame("x", x, allow_array=True)
    xm = check_frame("xm", xm, allow_array=True)
    Xs, XMs, pairs = _rmd_inputs(x, xm)
    return _rmd_result(Xs, XMs, pairs, np.asarray(cov, dtype=np.float64), k, k2)
