"""k-anonymity violations (sdcMicro's ``kAnon_violations``), native.

The frequencies come from the wildcard-aware kernel :func:`pysdc.core.freq.freq_core`,
reached exactly as :func:`pysdc.measure_risk` reaches it (sdcMicro's ``createSdcObj``
stores ``measure_risk``'s ``fk``/``Fk`` and ``kAnon_violations`` counts on them).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import KAnonResult
from .._validation import Boolean, Constraint
from ..core.freq import r_round
from ..core.keys import frequencies, weight_values
from ..engine._risk import k_anon_engine
from ._params import ALPHA, DATA, KEY_VARS, WEIGHT

__all__ = ["k_anon_violations", "K_ANON_PARAMS", "KAnonK"]


class KAnonK(Constraint):
    """``k`` of k-anonymity: a real number > 0 (``inf`` allowed), rounded as R's ``round``."""

    def check(self, name, value, values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise InvalidParameterError(f"{name} must be a positive number; got {value!r}.")
        v = float(value)
        if not v > 0:  # also NaN
            raise InvalidParameterError(
                f"{name} must be a positive number (sdcMicro's kAnon_violations stops: 'k > 0 is not TRUE'); "
                f"got {value!r}."
            )
        return v

    def invalid_values(self, name, values):
        return ["3", float("nan"), 0, -1, True, None]


K_ANON_PARAMS = {"data": DATA, "key_vars": KEY_VARS, "k": KAnonK(), "w": WEIGHT, "weighted": Boolean(), "alpha": ALPHA}


@measure(K_ANON_PARAMS, engine=k_anon_engine)
def k_anon_violations(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    *,
    k: float = 3,
    w: str | None = None,
    weighted: bool = False,
    alpha: float = 1.0,
) -> KAnonResult:
    """Number of records violating k-anonymity.

    Counts the records whose key combination is shared by fewer than ``k`` records
    (sample frequency ``fk < k``), or, with ``weighted=True``, whose estimated population
    frequency (sum of sampling weights, ``Fk``) is below ``k``. Missing key values are
    wildcards, as in :func:`measure_risk`.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row.
    key_vars : str or list of str
        The categorical key variables (character columns are treated as categories, as
        in :func:`measure_risk`).
    k : float, default 3
        The k of k-anonymity, > 0; rounded to the nearest integer (halves to even, as R's
        ``round``: 2.5 -> 2, 3.5 -> 4) before counting. ``math.inf`` counts every record.
    w : str, optional
        Sampling weight column (used only with ``weighted=True``).
    weighted : bool, default False
        Count ``Fk < k`` instead of ``fk < k``. Without ``w``, ``Fk`` equals ``fk``.
    alpha : float in [0, 1], default 1
        How much a record with missing key values counts in the frequencies of the combinations it
        matches, as in :func:`measure_risk` (sdcMicro: ``createSdcObj(..., alpha = alpha)``, whose
        ``fk`` ``kAnon_violations`` and ``print(obj, "kAnon")`` count on).

    Returns
    -------
    KAnonResult
        The number of records with ``fk < round(k)`` (or ``Fk < round(k)``): an ``int``
        (``int(result)``, arithmetic and comparisons work as on the number), with ``k``,
        ``weighted``, ``n`` and ``key_vars`` as fields.

    Raises
    ------
    InvalidParameterError
        Unknown columns, ``k <= 0`` or not a number, missing weights, a weight column
        that is also a key.

    See Also
    --------
    freq_calc : the frequencies ``fk``, ``Fk``.
    measure_risk : risk measures from the same frequencies.

    Notes
    -----
    Equals sdcMicro 5.8.0's ``kAnon_violations(createSdcObj(data, keyVars = key_vars,
    weightVar = w), weighted, k)``:

    * ``fk``/``Fk`` are those of ``measure_risk`` (``createSdcObj`` stores them): missing
      keys are wildcards, counted with ``alpha`` (``createSdcObj``'s, 1 by default); records whose keys are all
      missing get
      ``fk = n``.
    * ``k`` is rounded with R's ``round``: a ``k`` in (0, 0.5] becomes 0, so nothing
      violates it; sdcMicro refuses ``k <= 0`` ("k > 0 is not TRUE").
    * ``weighted=True`` without weights counts ``fk < k`` (sdcMicro's ``Fk`` equals ``fk``
      then). Zero or negative weights are used as they are (with a warning).

    References
    ----------
    .. [1] Samarati, P., Sweeney, L. (1998). Protecting privacy when disclosing
       information: k-anonymity and its enforcement through generalization and
       suppression. SRI International technical report.
    .. [2] Templ, M., Kowarik, A., Meindl, B. (2015). Statistical Disclosure Control for
       Micro-Data Using the R Package sdcMicro. Journal of Statistical Software 67(4).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f"], "age": [30, 30, 40, 40, 50]})
    >>> int(pysdc.k_anon_violations(df, ["sex", "age"], k=2))
    1
    >>> pysdc.k_anon_violations(df, ["sex", "age"], k=3) == 5
    True
    """
    kr = r_round(k)
    fk_c, Fk_c, cnt, _ = frequencies(
        data, key_vars, w if weighted else None, alpha, func="k_anon_violations", factorize_character=True,
    )
    # the weight column is checked (and refused when it has missing values) whether or not it is
    # used, as createSdcObj does
    if w is not None and not weighted:
        weight_values(data, w, func="k_anon_violations")
    v = Fk_c if weighted else fk_c
    return KAnonResult(int(np.sum(cnt[v < kr])), k=k, weighted=bool(weighted), n=len(data),
                       key_vars=tuple(key_vars))
