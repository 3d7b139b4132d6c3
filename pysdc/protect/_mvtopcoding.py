"""Multivariate top coding, as sdcMicro 5.8.0's ``mvTopCoding``: outliers moved onto an ellipsoid."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .._errors import CoercionWarning, InvalidParameterError
from .._validation import Any_, Frame, Interval, RandomState, user_stacklevel, validate_params
from ..core.mcd import cov_mcd

__all__ = ["mv_top_coding"]


def _vector(name: str, value, n: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a sequence of {n} number(s); got {type(value).__name__}.") from None
    if arr.size != n:
        raise InvalidParameterError(f"{name} must have {n} value(s); got {arr.size}.")
    return arr


def _mahalanobis(X: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """R's ``mahalanobis(x, center, cov)``: ``rowSums((x - center) %*% solve(cov) * (x - center))``."""
    d = X - center
    try:
        inv = np.linalg.solve(cov, np.eye(cov.shape[0]))
    except np.linalg.LinAlgError:
        raise InvalidParameterError(
            "mv_top_coding: the (robust) covariance matrix is singular, so the Mahalanobis distances cannot be "
            "computed (sdcMicro stops in solve()).") from None
    return np.sum((d @ inv) * d, axis=1)


@validate_params({
    "x": Frame(allow_array=True),
    "maha": Any_(),
    "center": Any_(),
    "cov": Any_(),
    "alpha": Interval(0.0, 1.0, closed="neither"),
    "random_state": RandomState(),
})
def mv_top_coding(x, *, maha=None, center=None, cov=None, alpha: float = 0.025,
                  random_state=None) -> pd.DataFrame:
    """Winsorize multivariate outliers onto an ellipsoid, as sdcMicro's ``mvTopCoding``.

    Records whose squared Mahalanobis distance exceeds ``d = qchisq(1 - alpha, p)`` are moved
    towards the center until their distance is ``d``: ``x_new = a * x + (1 - a) * center`` with
    ``a = sqrt(d / maha)``.

    Parameters
    ----------
    x : DataFrame or 2-d array
        Numeric columns only (a 2-d array gets the names ``V1``, ``V2`` ...); not modified.
    maha : sequence of float, optional
        The squared Mahalanobis distance of each record. Without it sdcMicro computes robust
        distances from ``robustbase::covMcd(x)`` (random: see ``random_state``).
    center : sequence of float, optional
        The center; needed with ``maha`` (sdcMicro stops without it), ignored without ``maha``
        (sdcMicro then uses covMcd's center: pysdc warns).
    cov : array, optional
        Accepted as sdcMicro does, and never used by it (pysdc warns).
    alpha : float in (0, 1)
        The significance level that sets the ellipsoid.
    random_state : None, int or numpy.random.Generator
        An int ``s`` reproduces R's ``set.seed(s)`` before ``mvTopCoding`` (covMcd's random
        subsets on R's stream); only used when ``maha`` is None.

    Returns
    -------
    DataFrame
        A copy with the outliers moved. Records with a missing value keep their values (their
        distance is NA). Integer columns stay integer: the moved values are truncated toward
        zero, as sdcMicro's data.table assignment does (with a warning).

    Raises
    ------
    InvalidParameterError
        Non-numeric columns, ``maha`` without ``center``, wrong lengths, a singular covariance.

    Examples
    --------
    >>> import numpy as np
    >>> from pysdc.protect import mv_top_coding
    >>> x = np.array([[1.0, 1.1], [2.0, 2.1], [3.0, 2.9], [4.0, 4.2], [5.0, 4.8], [1.0, 5.0]])
    >>> out = mv_top_coding(x, maha=[0.5, 0.2, 0.1, 0.3, 0.6, 20.0], center=[3.0, 3.0])
    >>> bool((out.iloc[5] != x[5]).all())
    True
    """
    bad = [c for c in x.columns if x[c].dtype.kind not in "iuf"]
    if bad:
        raise InvalidParameterError(
            f"mv_top_coding: x must have numeric columns only; {bad[:10]} are not (sdcMicro's covMcd stops).")
    n, p = x.shape
    if p == 0 or n == 0:
        raise InvalidParameterError("mv_top_coding: x must have at least one record and one column.")
    X = x.to_numpy(dtype=np.float64, na_value=np.nan)
    d = float(stats.chi2.ppf(1.0 - alpha, p))
    if cov is not None:
        warnings.warn("mv_top_coding: sdcMicro's mvTopCoding never uses cov (it takes maha, or computes robust "
                      "distances from covMcd); cov is ignored.", CoercionWarning, stacklevel=user_stacklevel())
    if maha is None:
        if center is not None:
            warnings.warn("mv_top_coding: without maha sdcMicro ignores center and moves outliers towards "
                          "covMcd's robust center; center is ignored.", CoercionWarning,
                          stacklevel=user_stacklevel())
        mcd = cov_mcd(X, random_state=random_state)
        c = np.asarray(mcd.center, dtype=np.float64)
        m = _mahalanobis(X, c, np.asarray(mcd.cov, dtype=np.float64))
    else:
        if center is None:
            raise InvalidParameterError(
                "mv_top_coding: maha needs center (the point the outliers move towards); sdcMicro stops "
                "without it (t(unlist(NULL))).")
        m = _vector("maha", maha, n)
        c = _vector("center", center, p)
    with np.errstate(invalid="ignore", divide="ignore"):
        idx = np.flatnonzero(m > d)
        a = np.sqrt(d / m[idx])[:, None]
    out = x.copy(deep=False)  # copy-on-write: new columns never reach x
    if idx.size == 0:
        return out
    moved = X[idx] * a + (1 - a) * c[None, :]
    for j, col in enumerate(x.columns):
        s = x[col]
        if s.dtype.kind in "iu":
            v = moved[:, j]
            if not np.array_equal(v, np.trunc(v)):
                warnings.warn(
                    f"mv_top_coding: column {col!r} is integer; the moved values are truncated toward zero, as "
                    "sdcMicro's data.table assignment does (precision lost).", CoercionWarning,
                    stacklevel=user_stacklevel())
            vals = s.to_numpy(copy=True) if not isinstance(s.dtype, pd.api.extensions.ExtensionDtype) \
                else s.array.copy()
            vals[idx] = np.trunc(v).astype(np.int64)
            out[col] = vals
        else:
            vals = X[:, j].copy()
            vals[idx] = moved[:, j]
            out[col] = pd.array(vals, dtype=s.dtype) if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) \
                else vals.astype(s.dtype, copy=False)
    return out
