"""sdcMicro's ``freqCalc``: sample and population frequencies of each record's key combination, native.

The frequencies come from :func:`pysdc.core.keys.frequencies` (key codes, weights) and
:func:`pysdc.core.freq.freq_core` (missing key values as wildcards).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, user_stacklevel
from .._foreign import measure
from .._results import FreqCalcResult
from ..core.keys import frequencies, warn_fk_overflow
from ..engine._risk import freq_calc_engine
from ._params import ALPHA, DATA, KEY_VARS, WEIGHT

__all__ = ["freq_calc", "FREQ_CALC_PARAMS"]


FREQ_CALC_PARAMS = {"data": DATA, "key_vars": KEY_VARS, "w": WEIGHT, "alpha": ALPHA}


@measure(FREQ_CALC_PARAMS, engine=freq_calc_engine)
def freq_calc(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    *,
    w: str | None = None,
    alpha: float = 1.0,
) -> FreqCalcResult:
    """Sample and population frequencies of each record's key combination.

    Counts, for every record, how many records share its combination of key
    variables (``fk``) and the sum of their sampling weights (``Fk``, the
    estimated population frequency), treating missing key values as wildcards
    exactly as sdcMicro's ``freqCalc`` does.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row. Arrays get columns ``V1``, ``V2``, ...
    key_vars : str or list of str
        Names of the categorical key variables (quasi-identifiers).
    w : str, optional
        Name of the sampling weight column. Without it every weight is 1 and
        ``Fk == fk``.
    alpha : float, default 1.0
        In [0, 1]: how much a wildcard match between two records that both
        have missing key values counts (see Notes).

    Returns
    -------
    FreqCalcResult
        ``fk`` and ``Fk`` (float arrays in row order), ``n1`` and ``n2`` (number
        of records with ``fk`` exactly 1 and 2).
        On an engine (a DuckDB relation, a Spark DataFrame, :func:`pysdc.scan`):
        :class:`~pysdc.FreqCalcCombinations`, ``fk`` and ``Fk``
        per key combination with the records of each (``counts``).

    Raises
    ------
    InvalidParameterError
        Unknown columns, ``alpha`` outside [0, 1], missing weights.

    See Also
    --------
    indiv_risk : individual risk from these frequencies.
    measure_risk : risk measures in one call.

    Notes
    -----
    Follows sdcMicro 5.8.0's ``freqCalc(x, keyVars, w, alpha)`` number for number:

    * Key columns are converted as R's ``as.numeric`` does: categorical
      columns become their codes, booleans 0/1, and **character columns are
      parsed as numbers** -- strings that are not numbers become NA (a
      :class:`~pysdc.CoercionWarning` says so; convert such columns to
      ``category`` to use them as categories -- :func:`measure_risk` does
      that itself, as sdcMicro's ``measure_risk`` does). These are the
      data.frame method's semantics; sdcMicro's ``createSdcObj``, and so
      :class:`pysdc.SdcProblem` and the command line, make text keys factors
      first (:func:`pysdc.problem.as_sdc_keys`).
    * Missing key values are wildcards. For a record ``i`` with at least one
      observed and one missing key: ``fk = (# records with exactly i's
      combination) + (# complete records that agree with i on i's observed
      keys) + alpha * (# other records with missing keys that agree with i
      wherever both are observed)``. A complete record gets ``(# identical
      records) + alpha * (# records with some, but not all, keys missing that
      agree with it on their observed keys)`` -- records whose keys are all
      missing are not added to complete records. Records whose keys are all
      missing get ``fk = n`` and ``Fk = sum(w)`` whatever ``alpha``.
      ``Fk`` follows the same rules with weights instead of counts.
    * With a single key variable: missing records get ``fk = n``, ``Fk =
      sum(w)``; every complete record gets ``+ alpha * (# missing records)``
      (weights likewise).
    * ``alpha < 1`` gives fractional ``fk``; ``n1`` and ``n2`` count exact 1s
      and 2s.
    * sdcMicro returns ``Fk = NA`` where a weight is missing and its risk
      functions then stop; pysdc refuses missing weights up front.
    * sdcMicro matches records with missing values through R expressions that
      print key values with 15 significant digits; keys that differ only
      beyond that digit (never the case for categorical codes) can match
      there and not here.

    The computation groups records by missingness pattern and joins the
    patterns with hash group-bys: time is linear in the number of records
    (sdcMicro loops over records with missing keys in R).

    References
    ----------
    .. [1] Templ, M., Kowarik, A., Meindl, B. (2015). Statistical Disclosure
       Control for Micro-Data Using the R Package sdcMicro. Journal of
       Statistical Software 67(4). doi:10.18637/jss.v067.i04

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pysdc
    >>> df = pd.DataFrame({"sex": [1, 1, 2, np.nan], "age": [30, 30, 40, 40]})
    >>> f = pysdc.freq_calc(df, ["sex", "age"])
    >>> f.fk
    array([2., 2., 2., 2.])
    """
    keys, w_col = key_vars, w
    fk_c, Fk_c, _, inv = frequencies(data, keys, w_col, alpha, func="freq_calc", factorize_character=False)
    fk, Fk = fk_c[inv], Fk_c[inv]
    if len(data) == 0:
        warnings.warn("freq_calc: data has no rows; fk and Fk are empty.", DegenerateResultWarning, stacklevel=user_stacklevel())
    warn_fk_overflow(Fk_c, np.bincount(inv, minlength=len(Fk_c)) if len(Fk_c) else np.zeros(0), "freq_calc")
    return FreqCalcResult(
        fk=fk, Fk=Fk, n1=int(np.count_nonzero(fk == 1)), n2=int(np.count_nonzero(fk == 2)),
        key_vars=tuple(keys), alpha=alpha, combo=inv,
    )
