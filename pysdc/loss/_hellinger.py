"""Hellinger distance between the distributions of each variable in x and xm (Torra and Carlson, 2013).

Native only; sdcMicro has no counterpart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import HellingerResult
from .._types import r_class
from .._validation import Frame
from ._categorical import code_pair
from ._continuous import IntAtLeast, degenerate, paired_frames

__all__ = ["hellinger", "HELLINGER_PARAMS", "hellinger_distance", "binned_counts"]

HELLINGER_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "bins": IntAtLeast(low=1, note="(the number of quantile bins of each numeric variable)"),
}


def hellinger_distance(p_counts: np.ndarray, q_counts: np.ndarray) -> float:
    """H(P, Q) = sqrt(½ Σ (√p_i - √q_i)²) of two count vectors over the same cells."""
    np_, nq = p_counts.sum(), q_counts.sum()
    if np_ == 0 or nq == 0:
        return np.nan
    d = np.sqrt(p_counts / np_) - np.sqrt(q_counts / nq)
    return float(np.sqrt(0.5 * np.dot(d, d)))


def is_numeric(s: pd.Series) -> bool:
    return r_class(s) in ("numeric", "integer")


def binned_counts(a: np.ndarray, b: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``a`` and ``b`` in the quantile bins of ``a`` (edges from ``a``); NA one more cell (the last).

    Bin ``k`` holds ``e_k <= v < e_{k+1}`` over the distinct inner edges; values beyond the
    outer edges fall into the outer bins. Vectorised: one sort of ``a`` and one comparison
    of ``b`` per inner edge.
    """
    s = np.sort(a)  # NaN sorts last
    na_a = int(np.count_nonzero(np.isnan(a)))
    m = a.size - na_a
    sv = s[:m]
    inner = np.unique(np.quantile(sv, np.linspace(0.0, 1.0, bins + 1))[1:-1]) if m else np.empty(0)
    below_a = np.concatenate([[0], np.searchsorted(sv, inner, side="left"), [m]])
    na_b = int(np.count_nonzero(np.isnan(b)))
    below_b = np.concatenate([[0], [np.count_nonzero(b < e) for e in inner], [b.size - na_b]])
    ca = np.diff(below_a).astype(np.float64)
    cb = np.diff(below_b).astype(np.float64)
    if na_a or na_b:
        ca = np.append(ca, na_a)
        cb = np.append(cb, na_b)
    return ca, cb


@measure(HELLINGER_PARAMS, selects="variables", by_name=True, paired=False)
def hellinger(x: pd.DataFrame, xm: pd.DataFrame, *, bins: int = 10) -> HellingerResult:
    r"""Hellinger distance between each variable's distribution in ``x`` and in ``xm``.

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data.
    xm : pandas.DataFrame
        Masked data with the same variables. Records need not be paired: only the two
        distributions are compared, so ``xm`` may have a different number of records.
    bins : int, default 10
        Number of quantile bins of each numeric (float or integer) variable.

    Returns
    -------
    HellingerResult
        ``.per_variable``: ``H(P, Q)`` per variable (a Series), in [0, 1] (0: same
        distribution; 1: disjoint supports); ``.ghd``: their mean, the global Hellinger
        distance (GHD) used by :func:`gsil`; ``.to_frame()``.

    Raises
    ------
    InvalidParameterError
        Different variables, a datetime column, ``bins`` not a positive integer.

    Warns
    -----
    DegenerateResultWarning
        A frame without records (NaN).

    See Also
    --------
    entropy, il_entropy, gsil, il_categorical

    Notes
    -----
    ``H(P, Q) = sqrt(½ Σ_i (√p_i - √q_i)²)`` (Torra and Carlson 2013), with ``p_i``, ``q_i``
    the relative frequencies of cell ``i`` in ``x`` and ``xm``.

    * Categorical, string and boolean variables: one cell per category (missing values
      are a category of their own). Unused categories have ``p_i = q_i = 0`` and do not
      matter.
    * Numeric variables: the cells are ``bins`` quantile bins of the **original**: edges
      at the quantiles ``0, 1/bins, ..., 1`` of ``x``'s non-missing values (NumPy's
      default linear interpolation, R's type 7); bin ``k`` holds ``e_k <= v < e_{k+1}``,
      so a value equal to an inner edge goes to the upper bin. Repeated edges (ties, e.g.
      many zeros) are merged, so fewer than ``bins`` bins may result. Values of ``xm``
      below or above the original's range go to the outer bins. Missing values form one
      more cell.

    References
    ----------
    Torra, V. and Carlson, M. (2013). On the Hellinger distance for measuring information
    loss in microdata. UNECE/Eurostat Work Session on Statistical Data Confidentiality.

    Examples
    --------
    A categorical variable with P = (1/2, 1/2, 0) in x and Q = (1/4, 1/4, 1/2) in xm:
    ``½ [(√½ - ½)² + (√½ - ½)² + (0 - √½)²] = ½ [2 (0.2071068)² + 0.5] = 0.2928932``,
    so H = √0.2928932 = 0.5411961.

    >>> import pandas as pd
    >>> from pysdc.loss._hellinger import hellinger
    >>> t = pd.CategoricalDtype(["a", "b", "c"])
    >>> x = pd.DataFrame({"v": pd.Series(list("aabb"), dtype=t)})
    >>> xm = pd.DataFrame({"v": pd.Series(list("abcc"), dtype=t)})
    >>> round(float(hellinger(x, xm).per_variable["v"]), 7)
    0.5411961
    """
    xf, xmf = paired_frames(x, xm, same_rows=False)
    out = {}
    for c in xf.columns:
        sa, sb = xf[c], xmf[c]
        if is_numeric(sa) and is_numeric(sb):
            a = sa.to_numpy(dtype=np.float64, na_value=np.nan)
            b = sb.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isinf(a).any() or np.isinf(b).any():
                raise InvalidParameterError(
                    f"column {c!r} has infinite values; quantile bins are undefined for them. "
                    "Replace them with NaN (missing) or with finite values."
                )
            pc, qc = binned_counts(a, b, bins)
        elif is_numeric(sa) or is_numeric(sb):
            raise InvalidParameterError(
                f"column {c!r} is {r_class(sa)} in x but {r_class(sb)} in xm; a variable must be numeric in both "
                "frames (binned) or in neither (compared by category). Give both the same dtype."
            )
        else:
            unordered = [s.cat.as_unordered() if isinstance(s.dtype, pd.CategoricalDtype) else s for s in (sa, sb)]
            cd = code_pair(c, *unordered, measure="hellinger")  # the order of categories does not matter here
            k = cd.n_categories
            pc = np.bincount(cd.codes_x, minlength=k).astype(np.float64)
            qc = np.bincount(cd.codes_xm, minlength=k).astype(np.float64)
        out[c] = hellinger_distance(pc, qc)
    res = pd.Series(out, dtype=np.float64, name="hellinger")
    if xf.shape[0] == 0 or xmf.shape[0] == 0:
        degenerate("hellinger: x or xm has no records, so the distributions are undefined; the distances are NaN.")
    return HellingerResult(per_variable=res, ghd=float(res.mean()), bins=int(bins), n_x=int(xf.shape[0]),
                           n_xm=int(xmf.shape[0]))
