"""The native measures' result classes (the R bridge returns the same classes)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._base import _Repr, _Summary


@dataclass(frozen=True, eq=False, repr=False)
class DUtilityResult(_Repr, float):
    """Result of :func:`pysdc.d_utility`: the information loss, with what it was computed from.

    The result **is a float** (``float(result)``, arithmetic and comparisons work as on
    the number itself); ``result.value`` is the same number.

    Attributes
    ----------
    value : float
        The information loss (sdcMicro's ``dUtility`` value); NaN where sdcMicro gives NA.
    method : str
        ``"IL1"``, ``"IL1s"``, ``"eigen"`` or ``"robeigen"``.
    n : int
        Number of records compared.
    n_vars : int
        Number of variables compared.
    average : bool
        Whether the IL1/IL1s sum was divided by the number of cells ``n * n_vars``.
    """

    value: float
    method: str
    n: int = 0
    n_vars: int = 0
    average: bool = False

    def __new__(cls, value, *args, **kwargs):
        return float.__new__(cls, value)

    def __float__(self) -> float:
        return float(self.value)

    def __reduce__(self):
        return (type(self), (self.value, self.method, self.n, self.n_vars, self.average))


@dataclass(frozen=True, eq=False, repr=False)
class LDiversityResult(_Summary, _Repr):
    """Result of :func:`pysdc.ldiversity`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per record, indexed like the data: for each sensitive variable ``v`` the
        columns ``v_Distinct_Ldiversity``, ``v_Entropy_Ldiversity``,
        ``v_Recursive_Ldiversity``, then ``MultiEntropy_Ldiversity`` and
        ``MultiRecursive_Ldiversity`` (sdcMicro's result matrix and column names).
    key_vars : tuple
        The key variables.
    ldiv_index : tuple
        The sensitive variables.
    l_recurs_c : float
        The constant ``c`` of recursive (c, l)-diversity.
    """

    _summary_name = "ldiversity"

    table: pd.DataFrame
    key_vars: tuple = ()
    ldiv_index: tuple = ()
    l_recurs_c: float = 2.0

    def to_frame(self) -> pd.DataFrame:
        """The per-record table (a copy)."""
        return self.table.copy()


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
class FreqCalcResult(_Summary, _Repr):
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

    _summary_name = "freq_calc"

    fk: np.ndarray
    Fk: np.ndarray
    n1: int
    n2: int
    key_vars: tuple = ()
    alpha: float = 1.0
    combo: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False, repr=False)
class IndivRiskResult(_Summary, _Repr):
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

    _summary_name = "indiv_risk"

    rk: np.ndarray
    fk: np.ndarray
    method: str
    qual: float
    key_vars: tuple = ()


@dataclass(frozen=True, eq=False, repr=False)
class MeasureRiskResult(_Summary, _Repr):
    """Result of :func:`pysdc.measure_risk`.

    Attributes
    ----------
    global_risk_er : float
        Expected number of re-identifications (sum of individual risks); sdcMicro's
        ``global_risk_ER``.
    global_risk : float
        ``global_risk_er / n``.
    global_risk_pct : float
        ``100 * global_risk``.
    global_threshold : float
        sdcMicro's threshold on the individual risk for ``max_global_risk``;
        NaN where sdcMicro gives NA.
    max_global_risk : float
        The maximum global risk the threshold was searched for.
    hier_risk_er, hier_risk, hier_risk_pct : float or None
        Household (hierarchical) risk; None without ``hid`` (``hier_risk_er`` is
        sdcMicro's ``hier_risk_ER``).
    individual : pandas.DataFrame
        One row per input record, in input order: ``risk``, ``fk``, ``Fk``
        (and ``hier_risk`` with ``hid``).
    key_vars : tuple
        The key variables.
    """

    _summary_name = "measure_risk"

    global_risk_er: float
    global_risk: float
    global_risk_pct: float
    global_threshold: float
    max_global_risk: float
    hier_risk_er: float | None
    hier_risk: float | None
    hier_risk_pct: float | None
    individual: pd.DataFrame
    key_vars: tuple = ()


# =============================================================================
# measures whose answer is one number: the result *is* that number (an int or a float subclass,
# as DUtilityResult), with what it was computed from as fields


@dataclass(frozen=True, eq=False, repr=False)
class KAnonResult(_Repr, int):
    """Result of :func:`pysdc.k_anon_violations`: the number of records violating k-anonymity.

    The result **is an int** (``int(result)``, arithmetic and comparisons work as on the
    number itself); ``result.value`` is the same number.

    Attributes
    ----------
    value : int
        Number of records with ``fk < round(k)`` (or ``Fk < round(k)`` when ``weighted``);
        sdcMicro's ``kAnon_violations`` value.
    k : float
        The ``k`` asked for (counted against R's ``round(k)``).
    weighted : bool
        Whether the estimated population frequencies ``Fk`` were counted.
    n : int
        Number of records.
    key_vars : tuple
        The key variables.
    """

    value: int
    k: float = 3.0
    weighted: bool = False
    n: int = 0
    key_vars: tuple = ()

    def __new__(cls, value, *args, **kwargs):
        return int.__new__(cls, value)

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __reduce__(self):
        return (type(self), (self.value, self.k, self.weighted, self.n, self.key_vars))

    @property
    def share(self) -> float:
        """``value / n`` (NaN without records)."""
        return self.value / self.n if self.n else float("nan")


@dataclass(frozen=True, eq=False, repr=False)
class DRiskResult(_Repr, float):
    """Result of :func:`pysdc.d_risk`: the share of records at risk (sdcMicro's ``dRisk`` value).

    The result **is a float** (``float(result)``, arithmetic and comparisons work as on the
    number itself); ``result.value`` is the same number.

    Attributes
    ----------
    value : float
        Share of records whose original values all lie within their intervals, in [0, 1];
        NaN for data without records.
    k : float
        Half-width of the intervals as a fraction of the masked variable's standard deviation.
    n : int
        Number of records.
    n_vars : int
        Number of variables compared.
    """

    value: float
    k: float = 0.05
    n: int = 0
    n_vars: int = 0

    def __new__(cls, value, *args, **kwargs):
        return float.__new__(cls, value)

    def __float__(self) -> float:
        return float(self.value)

    def __reduce__(self):
        return (type(self), (self.value, self.k, self.n, self.n_vars))


# =============================================================================
# per-variable measures: a Series per variable, ``to_frame()`` for the table


@dataclass(frozen=True, eq=False, repr=False)
class HellingerResult(_Repr):
    """Result of :func:`pysdc.hellinger`.

    Attributes
    ----------
    per_variable : pandas.Series
        ``H(P, Q)`` of each variable (indexed by variable name, named ``"hellinger"``), in
        [0, 1]: 0 the same distribution, 1 disjoint supports.
    ghd : float
        The global Hellinger distance, the mean of ``per_variable`` (used by :func:`pysdc.gsil`).
    bins : int
        Number of quantile bins of each numeric variable.
    n_x, n_xm : int
        Number of records of ``x`` and of ``xm``.
    """

    per_variable: pd.Series
    ghd: float
    bins: int = 10
    n_x: int = 0
    n_xm: int = 0

    def to_frame(self) -> pd.DataFrame:
        """One row per variable, column ``hellinger``."""
        return self.per_variable.to_frame()


@dataclass(frozen=True, eq=False, repr=False)
class EntropyResult(_Repr):
    """Result of :func:`pysdc.entropy`.

    Attributes
    ----------
    per_variable : pandas.Series
        Shannon entropy of each variable's frequency distribution in nats (indexed by variable
        name, named ``"entropy"``); NaN for data without records.
    n : int
        Number of records.
    """

    per_variable: pd.Series
    n: int = 0

    def to_frame(self) -> pd.DataFrame:
        """One row per variable, column ``entropy``."""
        return self.per_variable.to_frame()


@dataclass(frozen=True, eq=False, repr=False)
class ILEntropyResult(_Repr):
    """Result of :func:`pysdc.il_entropy`.

    Attributes
    ----------
    per_variable : pandas.Series
        ``|H(xm_v) - H(x_v)|`` of each variable in nats (indexed by variable name, named
        ``"il_entropy"``).
    entropy_x, entropy_xm : pandas.Series
        Each variable's entropy in ``x`` and in ``xm`` (:func:`pysdc.entropy`).
    """

    per_variable: pd.Series
    entropy_x: pd.Series = field(default_factory=lambda: pd.Series(dtype=np.float64), repr=False)
    entropy_xm: pd.Series = field(default_factory=lambda: pd.Series(dtype=np.float64), repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per variable: ``entropy_x``, ``entropy_xm``, ``il_entropy``."""
        return pd.DataFrame({"entropy_x": self.entropy_x, "entropy_xm": self.entropy_xm,
                             "il_entropy": self.per_variable}, index=self.per_variable.index)


# =============================================================================
# the analysts' checks


@dataclass(frozen=True, eq=False, repr=False)
class CIOverlapResult(_Repr):
    """Result of :func:`pysdc.ci_overlap`: the interval overlap J of each pair of intervals.

    ``float(result)`` is J where one pair was given; ``numpy.asarray(result)`` is ``overlap``.

    Attributes
    ----------
    overlap : numpy.ndarray
        J of each pair (the broadcast shape of the bounds; 0-d for scalar bounds); negative for
        disjoint intervals, NaN where undefined.
    lower_x, upper_x, lower_xm, upper_xm : numpy.ndarray
        The bounds, broadcast to that shape.
    """

    overlap: np.ndarray
    lower_x: np.ndarray = field(repr=False, default=None)
    upper_x: np.ndarray = field(repr=False, default=None)
    lower_xm: np.ndarray = field(repr=False, default=None)
    upper_xm: np.ndarray = field(repr=False, default=None)

    def __float__(self) -> float:
        if np.size(self.overlap) != 1:
            raise TypeError(
                f"float() of a ci_overlap result needs one pair of intervals; this one has {np.size(self.overlap)}. "
                "Use result.overlap."
            )
        return float(np.reshape(self.overlap, -1)[0])

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self.overlap)
        return a if dtype is None else a.astype(dtype)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: the four bounds and ``overlap``."""
        return pd.DataFrame({name: np.reshape(np.asarray(getattr(self, name), dtype=float), -1)
                             for name in ("lower_x", "upper_x", "lower_xm", "upper_xm", "overlap")})


@dataclass(frozen=True, eq=False, repr=False)
class EstimatesComparison(_Repr):
    """Result of :func:`pysdc.compare_estimates`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per estimator (and group): ``estimator``, the ``by`` columns, ``estimate_x``,
        ``lower_x``, ``upper_x``, ``estimate_xm``, ``lower_xm``, ``upper_xm``, ``difference``
        (masked - original), ``inside`` (masked estimate inside the original interval),
        ``overlap`` (:func:`pysdc.ci_overlap`), ``n_x``, ``n_xm`` (records used) and ``method``.
    level : float
        Confidence level of every interval.
    w : str or None
        The weight column.
    by : tuple
        The grouping columns.
    """

    table: pd.DataFrame
    level: float = 0.95
    w: object = None
    by: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()


# =============================================================================
# per key combination: the frequency-based measures on an engine (a DuckDB relation, a Spark DataFrame,
# a pysdc.scan). The records stay in the engine; what comes back is one row per distinct key combination
# with the number of records it stands for (``counts``), and the per-record table as the engine's lazy
# table (``individual``, an :class:`~pysdc.engine.EngineTable`). These are not subclasses of the pandas
# results, whose arrays hold one value per record: a per-combination ``fk`` where a per-record one is
# promised would give wrong sums, lengths and joins without an error.


@dataclass(frozen=True, eq=False, repr=False)
class InfoLossResult(_Repr):
    """Result of :func:`pysdc.info_loss` (sdcMicro's ``infoLoss``), its components under its names.

    Attributes
    ----------
    cellvalues : pandas.DataFrame
        One row per table cell (margins carry missing values in the variables summed over): the table
        variables, ``count_o`` (count in the original data) and ``count_s`` (in the swapped data).
    overview : pandas.DataFrame
        ``noise`` (``count_o - count_s``), ``cnt`` (cells with that noise) and ``pct`` (their share).
    measures : pandas.DataFrame
        Quantiles and mean of each metric over the cells: rows indexed by ``what`` (``Min``, ``10%``,
        ..., ``Mean``, ..., ``Max``), one column per metric.
    cumdistr : dict
        Metric -> cumulative distribution (``cat``, ``cnt``, ``pct``); sdcMicro's ``cumdistr<metric>``.
    false_zero, false_nonzero : int
        Cells non-zero in the original and zero in the swapped data, and the other way round.
    exclude_zeros : bool
        Whether cells empty in the swapped data were left out.
    """

    cellvalues: pd.DataFrame
    overview: pd.DataFrame
    measures: pd.DataFrame
    cumdistr: dict = field(default_factory=dict, repr=False)
    false_zero: int = 0
    false_nonzero: int = 0
    exclude_zeros: bool = False
