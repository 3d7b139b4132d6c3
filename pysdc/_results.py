"""Result classes shared by the native measures and the R bridge.

Every result is a small frozen dataclass with a numpydoc ``Attributes`` block,
a readable ``repr`` and, where a single number is the answer, ``float(result)``.
The R bridge (``pysdc.r``) returns these same classes.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

__all__ = [
    "DUtilityResult",
    "LDiversityResult",
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


def _html_value(value) -> str:
    """One field's value as HTML: small tables for frames and short series, a preview of long arrays."""
    if isinstance(value, pd.DataFrame):
        head = value.head(10)
        more = "" if len(value) <= 10 else f"<div>... {len(value)} rows x {value.shape[1]} columns</div>"
        return head.to_html(border=0, max_cols=12, float_format=lambda v: f"{v:.6g}") + more
    if isinstance(value, pd.Series):
        if len(value) <= 20:
            rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_short(v))}</td></tr>"
                           for k, v in value.items())
            return f"<table>{rows}</table>"
        return html.escape(f"<Series of {len(value)}>")
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        shown = ", ".join(_short(v.item() if hasattr(v, "item") else v) for v in flat[:8])
        return html.escape(f"array of {value.size} ({value.dtype}): [{shown}{', ...' if flat.size > 8 else ''}]")
    if isinstance(value, dict) and len(value) <= 20:
        rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{_html_value(v)}</td></tr>" for k, v in value.items())
        return f"<table>{rows}</table>"
    return html.escape(_short(value))


class _Repr:
    """Base of every result class: a short ``repr`` that never prints whole arrays, an HTML view for
    Jupyter (``_repr_html_``: the summary where the class has one, then every field), and in IPython
    the summary as its text view."""

    def __repr__(self) -> str:
        parts = [f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self) if f.repr]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _summary_text(self) -> str | None:
        """sdcMicro's printed summary, where the result has one (see :class:`_Summary`)."""
        return None

    def _repr_html_(self) -> str:
        name = html.escape(type(self).__name__)
        parts = [f'<div class="pysdc-result"><strong>{name}</strong>']
        summary = self._summary_text()
        if summary:
            parts.append(f"<pre>{html.escape(summary)}</pre>")
        rows = "".join(
            f"<tr><th style='text-align:left;vertical-align:top'>{html.escape(f.name)}</th>"
            f"<td style='text-align:left'>{_html_value(getattr(self, f.name))}</td></tr>"
            for f in fields(self)
        )
        parts.append(f"<table>{rows}</table></div>")
        return "".join(parts)

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's text view
        p.text(repr(self) if cycle else (self._summary_text() or repr(self)))


class _Summary:
    """``str()``/``print()`` show what sdcMicro's ``print`` method of the result shows, built by
    :mod:`pysdc._summaries` (the report model's summaries, rendered as the command line renders);
    ``repr()`` stays the short field listing."""

    _summary_name = ""

    def _summary_text(self) -> str:
        from ._summaries import SUMMARIES

        summary, text = SUMMARIES[self._summary_name]
        return text(summary(self))

    def __str__(self) -> str:
        return self._summary_text()


def _deprecated(old: str, new: str, since: str = "0.2", until: str = "0.3") -> None:
    warnings.warn(
        f"{old} is deprecated since pysdc {since} and will be removed in {until}; use {new}.",
        DeprecationWarning,
        stacklevel=3,
    )


@dataclass(frozen=True, eq=False, repr=False)
class DUtilityResult(_Repr, float):
    """Result of :func:`pysdc.d_utility`: the information loss, with what it was computed from.

    The result **is a float** (``float(result)``, arithmetic and comparisons work as on
    the number itself), so code written for pysdc 0.1, where ``d_utility`` returned a
    plain float, keeps working. That float behaviour is deprecated: from pysdc 0.3 the
    result will be a plain result object; use ``result.value`` (or ``float(result)``).

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


_FRAME_ATTRS = frozenset({
    "columns", "index", "shape", "loc", "iloc", "at", "iat", "values", "dtypes", "to_numpy", "head", "tail",
    "round", "describe", "to_dict", "to_csv", "equals", "copy", "items", "mean", "min", "max", "sum",
})


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

    Notes
    -----
    In pysdc 0.1 ``ldiversity`` returned the DataFrame itself. Indexing the result
    (``result["s_Distinct_Ldiversity"]``), ``len(result)`` and the common DataFrame
    attributes (``.columns``, ``.loc``, ``.to_numpy()`` ...) still work on the table,
    with a :class:`DeprecationWarning`; they will be removed in pysdc 0.3. Use
    ``result.table``.
    """

    _summary_name = "ldiversity"

    table: pd.DataFrame
    key_vars: tuple = ()
    ldiv_index: tuple = ()
    l_recurs_c: float = 2.0

    # ---- deprecated DataFrame view (pysdc 0.1 returned the table itself)
    def __getitem__(self, key):
        _deprecated("indexing an ldiversity result like a DataFrame", "result.table[...]")
        return self.table[key]

    def __len__(self) -> int:
        _deprecated("len() of an ldiversity result", "len(result.table)")
        return len(self.table)

    def __iter__(self):
        _deprecated("iterating over an ldiversity result", "result.table")
        return iter(self.table)

    def __getattr__(self, name):
        if name in _FRAME_ATTRS:
            _deprecated(f"ldiversity result.{name}", f"result.table.{name}")
            return getattr(self.table, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


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
        ``global_risk_ER`` (the old name ``global_risk_ER`` still works, deprecated).
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
        sdcMicro's ``hier_risk_ER``; the old name still works, deprecated).
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

    @property
    def global_risk_ER(self) -> float:  # noqa: N802 - sdcMicro's name, deprecated alias
        """Deprecated alias of :attr:`global_risk_er` (removed in pysdc 0.3)."""
        _deprecated("MeasureRiskResult.global_risk_ER", "global_risk_er")
        return self.global_risk_er

    @property
    def hier_risk_ER(self) -> float | None:  # noqa: N802 - sdcMicro's name, deprecated alias
        """Deprecated alias of :attr:`hier_risk_er` (removed in pysdc 0.3)."""
        _deprecated("MeasureRiskResult.hier_risk_ER", "hier_risk_er")
        return self.hier_risk_er
