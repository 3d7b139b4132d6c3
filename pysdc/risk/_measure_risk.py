"""sdcMicro's ``measure_risk``: global, individual and household re-identification risk, native.

Frequencies from :func:`pysdc.core.keys.frequencies`, risks from :func:`pysdc.core.indiv.indiv_risk_arrays`,
threshold and household risk from :mod:`pysdc.core.threshold`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning, user_stacklevel
from .._foreign import measure
from .._results import MeasureRiskResult
from .._validation import Boolean, Columns, Interval
from ..core.indiv import indiv_risk_arrays
from ..core.keys import check_scalars, frequencies, warn_merging_integers
from ..core.threshold import global_threshold, household_codes, household_risk
from ..engine._risk import measure_risk_engine
from ._params import ALPHA, DATA, KEY_VARS, WEIGHT

__all__ = ["measure_risk", "MEASURE_RISK_PARAMS"]


MEASURE_RISK_PARAMS = {
    "data": DATA,
    "key_vars": KEY_VARS,
    "w": WEIGHT,
    "hid": Columns("data", single=True, optional=True),
    "max_global_risk": Interval(
        0, 1, closed="neither", note="a proportion of expected re-identifications, as in sdcMicro"
    ),
    "fast_hier": Boolean(),
    "alpha": ALPHA,
}


@measure(MEASURE_RISK_PARAMS, engine=measure_risk_engine)
def measure_risk(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    *,
    w: str | None = None,
    hid: str | None = None,
    max_global_risk: float = 0.01,
    fast_hier: bool = True,
    alpha: float = 1.0,
) -> MeasureRiskResult:
    """Global, individual and household re-identification risk.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row.
    key_vars : str or list of str
        Names of the categorical key variables. Character columns are
        treated as categorical (as sdcMicro's ``measure_risk`` does).
    w : str, optional
        Sampling weight column. With it the data are a sample and the risk is
        the approximate individual risk; without it the data are a population
        and the risk is ``1/fk``.
    hid : str, optional
        Household id column: adds the household (hierarchical) risk.
    max_global_risk : float, default 0.01
        In (0, 1): the global risk the threshold on the individual risk is
        searched for.
    fast_hier : bool, default True
        Which of sdcMicro's two household routines to follow; both compute the
        same quantity (see Notes).
    alpha : float, default 1.0
        In [0, 1]: weight of wildcard matches between records with missing
        keys, as in :func:`freq_calc`.

    Returns
    -------
    MeasureRiskResult
        ``global_risk_er`` (sum of individual risks), ``global_risk``
        (``ER / n``), ``global_risk_pct``, ``global_threshold`` (NaN where
        sdcMicro gives NA), ``max_global_risk``, ``hier_risk_ER``,
        ``hier_risk``, ``hier_risk_pct`` (None without ``hid``) and
        ``individual``: a DataFrame indexed like ``data`` with columns
        ``risk``, ``fk``, ``Fk`` (and ``hier_risk``).
        On an engine (a DuckDB relation, a Spark DataFrame, :func:`pysdc.scan`):
        :class:`~pysdc.MeasureRiskCombinations`, the same
        numbers, ``combinations`` per key combination, ``individual`` the engine's lazy table.

    Raises
    ------
    InvalidParameterError
        Unknown columns, missing weights, ``max_global_risk`` outside (0, 1),
        ``alpha`` outside [0, 1].

    See Also
    --------
    freq_calc, indiv_risk, ldiversity

    Notes
    -----
    Follows sdcMicro 5.8.0's ``measure_risk`` (its worker
    ``measure_riskWORK``):

    * ``risk`` is ``indivRisk(freqCalc(...), method="approx", survey=<w
      given>)``; ``global_risk_er`` (sdcMicro's ``global_risk_ER``) is its sum ignoring NaN, ``global_risk =
      ER / n`` (NaN for empty data), ``global_risk_pct = 100 * global_risk``.
    * ``global_threshold``: sdcMicro sorts the risks decreasingly (NaN last)
      and walks down them: at each new risk value ``r_j`` it asks whether
      capping the ``j`` riskier records at ``r_j`` brings the expected number
      of re-identifications below ``max_global_risk * n``. The first such
      ``r_j`` is the threshold. It reports **NA** (NaN here) when the global
      risk is already below ``max_global_risk`` (nothing to cap), when any
      risk is NaN, or when no value works and the last risk value is 0; it
      reports **0** when no value works otherwise (the global risk cannot be
      brought down by capping, e.g. all risks equal).
    * Household risk: ``1 - prod(1 - r)`` over the records of each
      household, for every record; ``hier_risk_ER`` is its sum over records,
      ``hier_risk = ER / n``. With ``fast_hier=False`` sdcMicro computes the
      same probability with Boole's inclusion-exclusion formula in C++
      (exponential in the household size, at most 256 members, and less
      accurate); pysdc uses the product for both, which agrees with the C++
      routine to rounding (~1e-15). As in sdcMicro, NaN risks are skipped in
      ``hier_risk_ER`` with ``fast_hier=True`` and propagate with
      ``fast_hier=False``.
    * **Missing household ids**: sdcMicro 5.8.0 is inconsistent there. Its
      ``fast_hier=True`` path gives records with a missing id the household
      risk of the *first* household in sorted order (an R recycling bug, with
      a warning), while its ``fast_hier=False`` path makes every such record
      a household of its own. pysdc makes every record with a missing id its
      own household in both cases -- the only reading that does not invent
      links between unrelated records -- and warns. Records with a missing id
      therefore differ from sdcMicro's ``fast_hier=True`` numbers.
    * Household ids are compared by equality of their values (any dtype);
      sdcMicro fails on character ids ("non-numeric argument").
    * ``alpha``: sdcMicro's public data.frame method fails whenever alpha is
      passed ("formal argument matched by multiple actual arguments"); pysdc
      follows its internal worker, which accepts it.
    * Empty data: ``global_risk`` NaN and threshold NaN, with a
      :class:`~pysdc.DegenerateResultWarning` (sdcMicro fails on empty
      weighted data and returns these numbers without weights). Zero or
      negative weights give sdcMicro's NaN/odd risks, with a warning.

    References
    ----------
    .. [1] Templ, M., Kowarik, A., Meindl, B. (2015). Statistical Disclosure
       Control for Micro-Data Using the R Package sdcMicro. Journal of
       Statistical Software 67(4).
    .. [2] mu-Argus 4.1 user's manual, section 2.3.4 (risk threshold for a
       global risk).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"k": [1, 1, 2, 2, 2], "hh": [1, 1, 2, 3, 3]})
    >>> m = pysdc.measure_risk(df, "k", hid="hh")
    >>> round(m.global_risk_er, 12)
    2.0
    >>> m.individual["hier_risk"].round(4).tolist()
    [0.75, 0.75, 0.3333, 0.5556, 0.5556]
    """
    keys, w_col, hid_col, mgr = key_vars, w, hid, max_global_risk
    n = len(data)

    fk_c, Fk_c, cnt, inv = frequencies(data, keys, w_col, alpha, func="measure_risk", factorize_character=True)
    rk_c = indiv_risk_arrays(fk_c, Fk_c, "approx", 1.0, w_col is not None)
    rk, fk, Fk = rk_c[inv], fk_c[inv], Fk_c[inv]
    # sum(rk, na.rm = TRUE) over the records, computed per key combination (count x risk)
    with np.errstate(invalid="ignore"):
        er = float(np.nansum(rk_c * cnt))
    with np.errstate(invalid="ignore", divide="ignore"):
        gr = er / n if n else float("nan")
    if n == 0:
        warnings.warn(
            "measure_risk: data has no rows; global_risk and global_threshold are NaN (sdcMicro returns the "
            "same without weights and fails with weights).",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    elif np.isnan(rk).any():
        nan = np.isnan(rk)
        nonpos = int((nan & (Fk <= 0)).sum())
        huge = int((nan & (Fk > 0)).sum())
        causes = []
        if nonpos:
            causes.append(f"{nonpos} with a zero or negative population frequency Fk")
        if huge:
            causes.append(f"{huge} whose weights are so large that fk / Fk underflows to 0 or Fk overflows "
                          f"(largest Fk {float(np.nanmax(np.where(nan, Fk, np.nan))):.3g})")
        warnings.warn(
            f"measure_risk: {int(nan.sum())} record(s) have an undefined (NaN) risk ({'; '.join(causes)}); "
            "global_risk_er skips them and global_threshold is NaN, as in sdcMicro. Check the weights.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    thr = global_threshold(rk_c, mgr, counts=cnt)

    individual = pd.DataFrame({"risk": rk, "fk": fk, "Fk": Fk}, index=data.index)
    h_er = h_r = h_pct = None
    if hid_col is not None:
        check_scalars(data[hid_col], "hid", hid_col)
        warn_merging_integers(data[hid_col], f"measure_risk: household id column {hid_col!r}")
        try:
            hcodes, hspan = household_codes(data[hid_col])
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidParameterError(
                f"hid: column {hid_col!r} (dtype {data[hid_col].dtype}) cannot be used as household ids "
                f"({type(exc).__name__}: {str(exc)[:80]})."
            ) from None
        n_na = int((hcodes < 0).sum())
        if n_na:
            warnings.warn(
                f"measure_risk: household id column {hid_col!r} has {n_na} missing value(s); each such "
                "record is treated as a household of its own (sdcMicro's fast_hier=False behaviour; its "
                "fast_hier=True path wrongly gives them the risk of the first household). Fill the ids to "
                "link records.",
                PysdcWarning,
                stacklevel=user_stacklevel(),
            )
        hr = household_risk(hcodes, rk, hspan)
        individual["hier_risk"] = hr
        h_er = float(np.nansum(hr)) if fast_hier else float(np.sum(hr))
        with np.errstate(invalid="ignore", divide="ignore"):
            h_r = h_er / n if n else float("nan")
        h_pct = h_r * 100
    return MeasureRiskResult(
        global_risk_er=er,
        global_risk=gr,
        global_risk_pct=gr * 100,
        global_threshold=thr,
        max_global_risk=mgr,
        hier_risk_er=h_er,
        hier_risk=h_r,
        hier_risk_pct=h_pct,
        individual=individual,
        key_vars=tuple(keys),
    )
