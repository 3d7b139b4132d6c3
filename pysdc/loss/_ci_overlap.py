"""Confidence-interval overlap of an indicator before and after masking (Karr et al., 2006).

The practice guide's "utility measures based on the end user's needs": compute the indicators the data
users publish on the original and on the masked file, each with its confidence interval, and judge the
masked estimate by how much the two intervals overlap. Native only.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import CIOverlapResult
from .._validation import user_stacklevel
from ._checks_common import Numbers

__all__ = ["ci_overlap", "interval_overlap", "CI_OVERLAP_PARAMS"]


# =============================================================================
# Interval overlap (Karr, Kohnen, Oganian, Reiter & Sanil 2006)


CI_OVERLAP_PARAMS = {"lower_x": Numbers(), "upper_x": Numbers(), "lower_xm": Numbers(), "upper_xm": Numbers()}


@measure(CI_OVERLAP_PARAMS, engine="it takes interval bounds, not a table")
def ci_overlap(lower_x, upper_x, lower_xm, upper_xm) -> CIOverlapResult:
    """Confidence-interval overlap J of Karr et al. (2006), vectorised.

    .. math::

        J = \\tfrac12 \\left( \\frac{U_o - L_o}{U_x - L_x} + \\frac{U_o - L_o}{U_{xm} - L_{xm}} \\right),
        \\quad L_o = \\max(L_x, L_{xm}),\\; U_o = \\min(U_x, U_{xm}).

    Parameters
    ----------
    lower_x, upper_x : float or array_like
        The interval computed on the original data.
    lower_xm, upper_xm : float or array_like
        The interval computed on the masked data (broadcast against the original's).

    Returns
    -------
    CIOverlapResult
        ``.overlap``: J for each pair of intervals (an array of the bounds' broadcast shape);
        ``float(result)`` where one pair was given, ``numpy.asarray(result)``, ``.to_frame()``.

    Notes
    -----
    Conventions, exactly:

    * Identical intervals give 1; one interval inside the other gives
      ``(1 + w_inner / w_outer) / 2``; intervals touching at one point give 0.
    * **Disjoint intervals give J < 0**: the signed formula is kept, ``U_o - L_o`` is then minus the
      gap between the intervals, so J measures how far apart they are in units of their widths (Karr et
      al.'s own reading; it is unbounded below). Clip with ``numpy.maximum(J, 0)`` for the [0, 1]
      version.
    * Zero-width intervals (a point, e.g. a standard error of 0): two identical points give 1; any other
      pair involving a zero-width interval gives NaN with a :class:`~pysdc.DegenerateResultWarning`
      (the ratio has no value there).
    * A NaN bound gives NaN (propagated without a warning: the interval itself was undefined).
    * A lower bound above its upper bound raises :class:`~pysdc.InvalidParameterError`.
    * An argument that is not a number or a numeric array (None, text) raises
      :class:`~pysdc.InvalidParameterError` naming it.

    References
    ----------
    Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. and Sanil, A. P. (2006). A framework for
    evaluating the utility of data altered to protect confidentiality. *The American Statistician*
    60(3), 224-232.

    Examples
    --------
    >>> from pysdc.loss._ci_overlap import ci_overlap
    >>> float(ci_overlap(0.0, 2.0, 1.0, 3.0))         # overlap 1, widths 2 and 2
    0.5
    >>> float(ci_overlap(0.0, 4.0, 1.0, 2.0))         # inside: (1/4 + 1/1) / 2
    0.625
    >>> float(ci_overlap(0.0, 1.0, 2.0, 3.0))         # disjoint, gap 1: (-1/1 - 1/1) / 2
    -1.0
    >>> ci_overlap([0.0, 0.0], [2.0, 4.0], 1.0, [3.0, 2.0]).overlap
    array([0.5  , 0.625])
    """
    j = np.asarray(interval_overlap(lower_x, upper_x, lower_xm, upper_xm), dtype=float)
    lx, ux, lm, um = (np.array(b, dtype=float) for b in np.broadcast_arrays(lower_x, upper_x, lower_xm, upper_xm))
    return CIOverlapResult(overlap=j, lower_x=lx, upper_x=ux, lower_xm=lm, upper_xm=um)


def interval_overlap(lower_x, upper_x, lower_xm, upper_xm):
    """The kernel of :func:`ci_overlap`: J of each pair of intervals (a float for scalar bounds).

    Same conventions as :func:`ci_overlap`; the bounds are checked (numbers, broadcastable,
    lower <= upper) but not validated as declared arguments.
    """
    try:
        arrays = [np.asarray(a, dtype=float) for a in (lower_x, upper_x, lower_xm, upper_xm)]
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "ci_overlap: the bounds must be numbers or numeric arrays; got "
            f"{type(lower_x).__name__}, {type(upper_x).__name__}, {type(lower_xm).__name__}, {type(upper_xm).__name__}."
        ) from None
    try:
        lx, ux, lm, um = np.broadcast_arrays(*arrays)
    except ValueError:
        raise InvalidParameterError(
            "ci_overlap: the bounds must have the same shape (or broadcast); got shapes "
            f"{[a.shape for a in arrays]}."
        ) from None
    with np.errstate(invalid="ignore"):
        bad = (lx > ux) | (lm > um)
    if np.any(bad):
        raise InvalidParameterError(
            "ci_overlap: every lower bound must be <= its upper bound; "
            f"{int(np.count_nonzero(bad))} interval pair(s) are reversed. Pass (lower_x, upper_x, lower_xm, upper_xm)."
        )
    wx = ux - lx
    wm = um - lm
    ov = np.minimum(ux, um) - np.maximum(lx, lm)
    with np.errstate(divide="ignore", invalid="ignore"):
        j = 0.5 * (ov / wx + ov / wm)
    point = (wx == 0) | (wm == 0)
    same_point = (wx == 0) & (wm == 0) & (lx == lm)
    j = np.where(same_point, 1.0, np.where(point, np.nan, j))
    if np.any(point & ~same_point):
        warnings.warn(
            "ci_overlap: an interval of width 0 (standard error 0?) overlaps a different interval; "
            "J is undefined there and returned as NaN.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    if j.ndim == 0:
        return float(j)
    return j
