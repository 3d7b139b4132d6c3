"""Result classes shared by the native measures and the R bridge.

Every result is a small frozen dataclass with a numpydoc ``Attributes`` block,
a readable ``repr`` and, where a single number is the answer, ``float(result)``.
The R bridge (``pysdc.r``) returns these same classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

__all__ = [
    "ILCorrelResult",
    "ILVariablesResult",
    "FreqCalcResult",
    "IndivRiskResult",
    "MeasureRiskResult",
]


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<array shape={value.shape} dtype={value.dtype}>"
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]} rows x {value.shape[1]} columns>"
    if isinstance(value, pd.Series):
        if len(value) <= 6:
            inner = ", ".join(f"{k}: {v:.6g}" if isinstance(v, float) else f"{k}: {v}" for k, v in value.items())
            return "{" + inner + "}"
        return f"<Series of {len(value)}>"
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(value)


class _Repr:
    def __repr__(self) -> str:
        parts = [f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self) if f.repr]
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True, eq=False, repr=False)
class ILCorrelResult(_Repr):
    """Result of :func:`pysdc.il_correl`.

    Attributes
    ----------
    value : float
        The correlation-based information loss (sdcMicro's ``IL_correl``).
    n_vars : int
        Number of variables compared (common numeric columns).
    n_x : int
        Number of records of ``x`` (sdcMicro's attribute ``n_x``; the correlation
        matrix itself uses the complete records only).
    n_xm : int
        Number of records of ``xm`` (sdcMicro's attribute ``n_y``).
    variables : tuple of str
        The variables compared, in the order sdcMicro uses (sorted by name).
    """

    value: float
    n_vars: int
    n_x: int
    n_xm: int
    variables: tuple = field(default=(), repr=False)

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, eq=False, repr=False)
class ILVariablesResult(_Repr):
    """Result of :func:`pysdc.il_variables`.

    Attributes
    ----------
    value : float
        Overall information loss: sum of all distances / (n * number of variables).
    per_variable : pandas.Series
        Each variable's contribution, distances / n (sdcMicro's individual values),
        indexed by variable name.
    n : int
        Number of records.
    """

    value: float
    per_variable: pd.Series
    n: int

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, eq=False, repr=False)
class FreqCalcResult(_Repr):
    """Result of :func:`pysdc.freq_calc`.

    Attributes
    ----------
    fk : numpy.ndarray
        Sample frequency of each record's key combination (float; fractional
        for ``alpha < 1``), in row order.
    Fk : numpy.ndarray
        Estimated population frequency (sum of weights), in row order.
    n1 : int
        Number of records with ``fk == 1`` exactly.
    n2 : int
        Number of records with ``fk == 2`` exactly.
    key_vars : tuple
        The key variables.
    alpha : float
        Weight of missing key values as wildcards.
    combo : numpy.ndarray or None
        Id of each record's key combination (records with equal keys share
        an id, so they share ``fk`` and ``Fk``); lets :func:`pysdc.indiv_risk`
        work once per combination. None where unknown (e.g. from the R bridge).
    """

    fk: np.ndarray
    Fk: np.ndarray
    n1: int
    n2: int
    key_vars: tuple = ()
    alpha: float = 1.0
    combo: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False, repr=False)
class IndivRiskResult(_Repr):
    """Result of :func:`pysdc.indiv_risk`.

    Attributes
    ----------
    rk : numpy.ndarray
        Individual re-identification risk of each record, in row order.
    fk : numpy.ndarray
        Sample frequencies the risk was computed from.
    method : str
        ``"approx"`` or ``"exact"``.
    qual : float
        Final correction factor applied to ``rk``.
    key_vars : tuple
        The key variables.
    """

    rk: np.ndarray
    fk: np.ndarray
    method: str
    qual: float
    key_vars: tuple = ()


@dataclass(frozen=True, eq=False, repr=False)
class MeasureRiskResult(_Repr):
    """Result of :func:`pysdc.measure_risk`.

    Attributes
    ----------
    global_risk_ER : float
        Expected number of re-identifications (sum of individual risks).
    global_risk : float
        ``global_risk_ER / n``.
    global_risk_pct : float
        ``100 * global_risk``.
    global_threshold : float
        sdcMicro's threshold on the individual risk for ``max_global_risk``;
        NaN where sdcMicro gives NA.
    max_global_risk : float
        The maximum global risk the threshold was searched for.
    hier_risk_ER, hier_risk, hier_risk_pct : float or None
        Household (hierarchical) risk; None without ``hid``.
    individual : pandas.DataFrame
        One row per input record, in input order: ``risk``, ``fk``, ``Fk``
        (and ``hier_risk`` with ``hid``).
    key_vars : tuple
        The key variables.
    """

    global_risk_ER: float
    global_risk: float
    global_risk_pct: float
    global_threshold: float
    max_global_risk: float
    hier_risk_ER: float | None
    hier_risk: float | None
    hier_risk_pct: float | None
    individual: pd.DataFrame
    key_vars: tuple = ()
