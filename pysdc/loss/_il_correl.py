"""sdcMicro's ``IL_correl``: correlation-based information loss (Mlodak, 2020), native.

The correlations and their inverses come from :mod:`pysdc.core.correl`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import ILCorrelResult
from .._types import r_class
from .._validation import Frame, Options, user_stacklevel
from ..core.correl import complete_cor, correl_variables, r_solve_inverse
from ..engine._il_correl import il_correl_engine
from ._frames import describe_cause, numeric_matrix

__all__ = ["il_correl", "IL_CORREL_PARAMS"]


IL_CORREL_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "normalization": Options(("sdcmicro", "mlodak")),
}

#: warn where the inverse correlation matrix's relative rounding error (eps * condition number) exceeds this
_IL_CORREL_ROUNDING = 1e-6


@measure(IL_CORREL_PARAMS, selects="numeric", engine=il_correl_engine, by_name=True, paired=False)
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
        M = numeric_matrix(which, frame if list(frame.columns) == own else frame[own])
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            C, k = complete_cor(M)
        if k == 0:
            raise InvalidParameterError(
                f"{which} has no record that is complete in the variables {variables[:10]}; "
                "sdcMicro's IL_correl fails here too (no complete element pairs)."
            )
        pos = [own.index(v) for v in variables]
        C = C[np.ix_(pos, pos)]
        cause = "" if np.isfinite(C).all() else describe_cause(((which, frame[own], M),))
        d = np.diag(r_solve_inverse(C, which, cause))
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
