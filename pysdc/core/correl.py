"""The inverse correlation matrices of sdcMicro's ``IL_correl``: complete-case correlations, the inverse
refused exactly where R's ``solve`` refuses, and the choice of variables.

Kernel of :func:`pysdc.il_correl` and of its engine path.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._errors import InvalidParameterError
from .eigen import cor_from_cov, cov_no_missing

__all__ = ["complete_cor", "r_solve_inverse", "correl_variables"]


def complete_cor(X: np.ndarray) -> tuple[np.ndarray, int]:
    """R's ``cor(X, use = "complete.obs")`` and the number of complete rows."""
    if not np.isnan(X).any():
        if X.shape[0] < 2:
            return np.full((X.shape[1],) * 2, np.nan), X.shape[0]
        return np.clip(cor_from_cov(cov_no_missing(X)), -1.0, 1.0), X.shape[0]
    rows = ~np.isnan(X).any(axis=1)
    k = int(rows.sum())
    if k == 0:
        return np.full((X.shape[1],) * 2, np.nan), 0
    if k < 2:
        return np.full((X.shape[1],) * 2, np.nan), k
    Xc = X if k == X.shape[0] else X[rows]
    R = cor_from_cov(cov_no_missing(Xc))
    return np.clip(R, -1.0, 1.0), k


def r_solve_inverse(C: np.ndarray, which: str, cause: str = "") -> np.ndarray:
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
