"""The engines' result classes: one row per key combination (DuckDB, Spark, pysdc.scan)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._summaries import (
    freq_calc_text,
    higher_risk,
    indiv_risk_text,
    k_anonymity,
    ldiversity_summary,
    ldiversity_text,
    measure_risk_text,
    threshold_note,
)
from ._base import _Repr


class _CombinationSummary:
    """``str()``/``print()`` show sdcMicro's print of the measure, counted over the records (each
    combination weighs its ``counts``): the same text as the pandas result of the same data."""

    def __str__(self) -> str:
        return self._summary_text()


@dataclass(frozen=True, eq=False, repr=False)
class FreqCalcCombinations(_CombinationSummary, _Repr):
    """Result of :func:`pysdc.freq_calc` on an engine: the frequencies per distinct key combination.

    Where :class:`FreqCalcResult` has one ``fk`` per record, this has one per key combination and
    the number of records of each (``counts``); :func:`pysdc.indiv_risk` takes it as it takes a
    :class:`FreqCalcResult` and returns an :class:`IndivRiskCombinations`.

    Attributes
    ----------
    fk, Fk : numpy.ndarray
        Sample and population frequency of each distinct key combination (the rows of
        ``combinations``).
    counts : numpy.ndarray
        Number of records of each combination; ``counts.sum() == n``.
    n1, n2 : int
        Number of records (not combinations) with ``fk`` exactly 1 and 2, as in :class:`FreqCalcResult`.
    key_vars : tuple
        The key variables.
    alpha : float
        Weight of missing key values as wildcards.
    combinations : pandas.DataFrame
        The key combinations (raw values, as the engine grouped them) with ``n`` (records), ``fk``, ``Fk``.
    individual : pysdc.engine.EngineTable
        Per record (its position, or the scan's ``id``): ``fk``, ``Fk``; lazy (``.to_pandas()``,
        ``.to_parquet(path)``).
    n : int
        Number of records.
    """

    fk: np.ndarray
    Fk: np.ndarray
    counts: np.ndarray
    n1: int
    n2: int
    key_vars: tuple = ()
    alpha: float = 1.0
    combinations: pd.DataFrame | None = field(default=None, repr=False)
    individual: object = field(default=None, repr=False)
    n: int = 0
    #: the engine's indiv_risk of these frequencies (set by the engine; called by pysdc.indiv_risk)
    risk_of: object = field(default=None, repr=False)

    def _summary_text(self) -> str:
        return freq_calc_text({"n_records": self.n, "key_vars": list(self.key_vars), "alpha": float(self.alpha),
                               "violate_2": self.n1, "violate_3": self.n1 + self.n2, "n1": self.n1, "n2": self.n2,
                               "k_anonymity": k_anonymity(self.fk, self.counts)})


@dataclass(frozen=True, eq=False, repr=False)
class IndivRiskCombinations(_CombinationSummary, _Repr):
    """Result of :func:`pysdc.indiv_risk` of a :class:`FreqCalcCombinations`: the risk per key combination.

    Attributes
    ----------
    rk, fk : numpy.ndarray
        Individual risk and sample frequency of each distinct key combination.
    counts : numpy.ndarray
        Number of records of each combination.
    method : str or None
        ``"approx"`` or ``"exact"`` (None with ``survey=False``, as in :class:`IndivRiskResult`).
    qual : float
        Final correction factor (NaN with ``survey=False``).
    key_vars : tuple
        The key variables.
    combinations : pandas.DataFrame
        The key combinations (raw values) with ``n`` (records), ``fk`` and ``rk``.
    individual : pysdc.engine.EngineTable
        Per record: ``rk``, ``fk``; lazy.
    n : int
        Number of records.
    """

    rk: np.ndarray
    fk: np.ndarray
    counts: np.ndarray
    method: str | None
    qual: float
    key_vars: tuple = ()
    combinations: pd.DataFrame | None = field(default=None, repr=False)
    individual: object = field(default=None, repr=False)
    n: int = 0

    def _summary_text(self) -> str:
        return indiv_risk_text({"n_records": self.n, "key_vars": list(self.key_vars), "method": self.method,
                                "qual": float(self.qual), "higher_risk": higher_risk(self.rk, self.counts)})


@dataclass(frozen=True, eq=False, repr=False)
class MeasureRiskCombinations(_CombinationSummary, _Repr):
    """Result of :func:`pysdc.measure_risk` on an engine.

    The scalars are those of :class:`MeasureRiskResult` (the same numbers for the same data); the
    per-record part is per key combination (``combinations``) and, per record, the engine's lazy table.

    Attributes
    ----------
    global_risk_er, global_risk, global_risk_pct, global_threshold, max_global_risk : float
        As in :class:`MeasureRiskResult`.
    hier_risk_er, hier_risk, hier_risk_pct : float or None
        Household risk; None without ``hid``.
    key_vars : tuple
        The key variables.
    counts : numpy.ndarray or None
        Number of records of each combination (the column ``n`` of ``combinations``); None when the
        combinations stayed in DuckDB.
    combinations : pandas.DataFrame or pysdc.engine.EngineTable
        The key combinations (raw values) with ``n`` (records), ``fk``, ``Fk`` and ``risk``. On a scan made
        with a ``memory_limit`` (and in ``pysdc risk --engine duckdb``) they stay in DuckDB: the engine's
        lazy table (``.to_pandas()`` collects it).
    individual : pysdc.engine.EngineTable
        Per record (position or the scan's ``id``): ``risk``, ``fk``, ``Fk`` (and ``hier_risk``); lazy.
    n : int
        Number of records.
    """

    global_risk_er: float
    global_risk: float
    global_risk_pct: float
    global_threshold: float
    max_global_risk: float
    hier_risk_er: float | None
    hier_risk: float | None
    hier_risk_pct: float | None
    key_vars: tuple = ()
    counts: np.ndarray | None = field(default=None, repr=False)
    combinations: pd.DataFrame | None = field(default=None, repr=False)
    individual: object = field(default=None, repr=False)
    n: int = 0
    #: with the combinations kept in the engine (``pysdc risk --engine duckdb``): ``combinations`` is the
    #: engine's lazy table, ``counts`` None, and this object computes the summaries by SQL
    #: (:class:`pysdc.engine._risk_duckdb.InEngineSummaries`)
    summarise: object = field(default=None, repr=False)

    def _summary_text(self) -> str:
        if self.summarise is not None:
            s = self.summarise
            risk = (np.array([]) if not self.n else np.array([np.nan]) if s.any_nan() else np.array([0.0]))
            high = s.higher_risk()
        else:
            risk = self.combinations["risk"].to_numpy()
            high = higher_risk(risk, self.counts)
        note = threshold_note(self.global_threshold, self.global_risk, self.max_global_risk,
                              risk if self.n else np.array([]))
        return measure_risk_text({
            "n_records": self.n, "key_vars": list(self.key_vars), "higher_risk": high,
            "global": {"expected_reidentifications": self.global_risk_er, "global_risk": self.global_risk,
                       "global_risk_pct": self.global_risk_pct, "max_global_risk": self.max_global_risk,
                       "threshold": self.global_threshold, "threshold_note": note},
            "household": None if self.hier_risk_er is None else {
                "expected_reidentifications": self.hier_risk_er, "risk": self.hier_risk,
                "risk_pct": self.hier_risk_pct},
        })


@dataclass(frozen=True, eq=False, repr=False)
class LDiversityCombinations(_CombinationSummary, _Repr):
    """Result of :func:`pysdc.ldiversity` on an engine: the l-diversity per distinct combination of key
    and sensitive values (every record of a combination has the same values).

    Attributes
    ----------
    table : pandas.DataFrame
        sdcMicro's l-diversity columns (as :class:`LDiversityResult`'s ``table``), one row per
        combination (the rows of ``combinations``).
    counts : numpy.ndarray
        Number of records of each combination.
    key_vars, ldiv_index : tuple
        The key and the sensitive variables.
    l_recurs_c : float
        The constant ``c`` of recursive (c, l)-diversity.
    combinations : pandas.DataFrame
        The key and sensitive values (raw), ``n`` and the l-diversity columns.
    individual : pysdc.engine.EngineTable
        Per record: the l-diversity columns; lazy.
    n : int
        Number of records.
    """

    table: pd.DataFrame
    counts: np.ndarray
    key_vars: tuple = ()
    ldiv_index: tuple = ()
    l_recurs_c: float = 2.0
    combinations: pd.DataFrame | None = field(default=None, repr=False)
    individual: object = field(default=None, repr=False)
    n: int = 0

    def _summary_text(self) -> str:
        return ldiversity_text(ldiversity_summary(self))
