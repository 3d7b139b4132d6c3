"""sdcMicro's ``indivRisk``: the individual re-identification risk of each record, native.

The risk per (fk, Fk) pair is :func:`pysdc.core.indiv.indiv_risk_arrays`.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._errors import DegenerateResultWarning, InvalidParameterError, user_stacklevel
from .._foreign import measure
from .._results import FreqCalcCombinations, FreqCalcResult, IndivRiskCombinations, IndivRiskResult
from .._validation import Boolean, InstanceOf, Interval, Options
from ..core.indiv import indiv_risk_arrays

__all__ = ["indiv_risk", "INDIV_RISK_PARAMS"]


INDIV_RISK_PARAMS = {
    "freq": InstanceOf((FreqCalcResult, FreqCalcCombinations), "a pysdc.FreqCalcResult (from freq_calc)"),
    "method": Options(("approx", "exact")),
    "qual": Interval(),
    "survey": Boolean(),
    "exact_method": Options(("sdcmicro", "stable")),
}


@measure(INDIV_RISK_PARAMS)
def indiv_risk(
    freq: FreqCalcResult | FreqCalcCombinations,
    *,
    method: str = "approx",
    qual: float = 1.0,
    survey: bool = True,
    exact_method: str = "sdcmicro",
) -> IndivRiskResult | IndivRiskCombinations:
    """Individual re-identification risk of each record.

    Parameters
    ----------
    freq : FreqCalcResult or FreqCalcCombinations
        Frequencies from :func:`freq_calc` (per key combination where it ran on an engine).
    method : {"approx", "exact"}, default "approx"
        Benedetti & Franconi's approximation, or Franconi & Polettini's exact
        series for ``fk > 2``.
    qual : float, default 1.0
        Final correction factor the risks are multiplied by.
    survey : bool, default True
        False: the data are a population and ``rk = 1/fk`` (``method`` and
        ``qual`` are ignored, as in sdcMicro).
    exact_method : {"sdcmicro", "stable"}, default "sdcmicro"
        With ``method="exact"``: ``"sdcmicro"`` evaluates Franconi &
        Polettini's alternating series as sdcMicro does (its numbers, rounding
        errors included, with a warning where the series has cancelled more
        than 7 of its ~16 digits); ``"stable"`` evaluates the same risk
        without cancellation (see Notes). Not an sdcMicro argument: the R
        bridge accepts only ``"sdcmicro"``.

    Returns
    -------
    IndivRiskResult
        ``rk`` (risk per record, row order), ``fk``, ``method`` and ``qual``
        (``None`` and NaN with ``survey=False``, where sdcMicro reports NA).
        From a :class:`~pysdc.FreqCalcCombinations` (an engine's frequencies): an
        :class:`~pysdc.IndivRiskCombinations`, the risk per key combination.

    See Also
    --------
    freq_calc, measure_risk

    Notes
    -----
    Follows sdcMicro 5.8.0's ``indivRisk``. With ``pk = fk / Fk``:

    * ``fk == 1``: ``pk/(1-pk) * log(1/pk)``;
      ``fk == 2``: ``pk/(1-pk) - (pk/(1-pk))**2 * log(1/pk)``;
    * ``fk > 2``, approx: ``pk / (fk - (1 - pk))``; exact:
      ``(pk/(1-pk))**fk * (A*(1 + BB) + (-1)**fk * log(pk))`` with
      ``A = (pk**(1-fk) - 1)/(fk - 1)`` and ``BB`` the alternating sum of the
      cumulative products of ``B_i = (fk-1-i)**2 / ((i+1)(fk-2-i)) *
      (pk**(i+2-fk) - 1)/(pk**(i+1-fk) - 1)``, ``i = 0 .. fk-3``;
    * where ``fk == Fk`` exactly: ``1/fk``; then everything times ``qual``.
    * Fractional ``fk`` (``alpha < 1`` in :func:`freq_calc`) falls between
      sdcMicro's cases: records with ``fk`` strictly between 1 and 2 get
      risk 0 with both methods; with ``method="exact"`` fractional
      ``fk > 2`` gives NaN (``(-1)**fk``), as in sdcMicro.
    * For large ``fk`` the exact series over- or underflows and gives NaN or
      Inf -- in sdcMicro too; the numbers are sdcMicro's.
    * The exact series alternates, and where ``fk`` grows and ``Fk/fk``
      nears 1 (high sampling fractions) its terms cancel: at ``fk = 8``,
      ``Fk = 8.8`` it keeps about 6 correct digits (sdcMicro 0.1148056331,
      exact 0.1148056092), at ``fk = 15``, ``Fk = 16.5`` none (sdcMicro
      2.887, exact 0.06095). pysdc returns sdcMicro's number -- powers and
      logs by the C library, as R's ``^`` and ``log``, every sum and product
      in R's order -- and warns at call time with the digits lost (largest
      term over the sum, ``log10``) where more than 7 are.
    * ``exact_method="stable"`` computes the same quantity, the posterior
      mean of ``1/F`` given ``fk`` under the negative binomial model:
      ``rk = pk * integral_0^1 s**(fk-1) / (pk + (1-pk) s) ds``
      ``= (pk/fk) * 2F1(1, 1; fk+1; 1-pk)``, summed as a series of positive
      terms, or (``pk < 1/2``, ``fk <= 64``) by the integral's forward
      recurrence, which damps rounding errors. It is good to a few units of
      the last digit everywhere, and gives ``fk = 1, 2`` the same quantity
      (equal to sdcMicro's closed forms up to their rounding); ``Fk < fk``
      gives NaN with a warning.

    sdcMicro evaluates the exact series per record with a quadratic loop
    (about 110 s for 1e5 records); pysdc evaluates it once per distinct
    ``(fk, pk)`` pair with the same operations in the same order, vectorised
    over all pairs (time linear in the sum of ``fk`` over distinct pairs).

    References
    ----------
    .. [1] Franconi, L. and Polettini, S. (2004). Individual risk estimation
       in mu-Argus: a review. Privacy in Statistical Databases, LNCS 3050.
    .. [2] Benedetti, R. and Franconi, L. (1998). Statistical and
       technological solutions for controlled data dissemination.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"k": [1, 1, 2], "w": [10.0, 10.0, 5.0]})
    >>> r = pysdc.indiv_risk(pysdc.freq_calc(df, "k", w="w"))
    >>> round(float(r.rk[2]), 6)  # fk = 1, pk = 1/5: (0.2/0.8) * log(5)
    0.402359
    """
    if survey and qual <= 0:
        warnings.warn(
            f"indiv_risk: qual={qual:g} multiplies every risk, so the risks are "
            f"{'0' if qual == 0 else 'negative'} and not probabilities. qual is a final correction factor in "
            "(0, 1] (default 1). sdcMicro accepts it and returns the same numbers.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    if isinstance(freq, FreqCalcCombinations):  # computed on an engine: the per-record risks stay there
        return freq.risk_of(method=method, qual=qual, survey=survey, exact_method=exact_method)
    fk = np.asarray(freq.fk, dtype=np.float64)
    Fk = np.asarray(freq.Fk, dtype=np.float64)
    if fk.shape != Fk.shape or fk.ndim != 1:
        raise InvalidParameterError(
            f"freq.fk and freq.Fk must be 1-d arrays of equal length; got shapes {fk.shape} and {Fk.shape}."
        )
    combo = freq.combo
    if combo is not None and np.shape(combo) == fk.shape and fk.size:
        combo = np.asarray(combo, dtype=np.int64)
        m = int(combo.max()) + 1
        first = np.empty(m, dtype=np.int64)
        first[combo[::-1]] = np.arange(combo.size - 1, -1, -1)
        rk = indiv_risk_arrays(fk[first], Fk[first], method, qual, survey, exact_method=exact_method,
                                counts=np.bincount(combo, minlength=m))[combo]
    else:
        rk = indiv_risk_arrays(fk, Fk, method, qual, survey, exact_method=exact_method)
    if survey:
        return IndivRiskResult(rk=rk, fk=fk, method=method, qual=qual, key_vars=freq.key_vars)
    return IndivRiskResult(rk=rk, fk=fk, method=None, qual=float("nan"), key_vars=freq.key_vars)
