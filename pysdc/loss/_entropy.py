"""Entropy of each variable, entropy-based information loss and Shlomo--Antal--Elliot's entropy risk.

Native only; sdcMicro has no counterpart. Sources: Torra and Carlson (2013), who
collect the (DR-)entropy, the entropy risk of Shlomo, Antal and Elliot and the
information loss ``|H(protected) - H(original)|``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import EntropyResult, ILEntropyResult, _Repr
from .._validation import Columns, Constraint, Frame, _show
from ._categorical import code_column, joint_codes
from ._continuous import degenerate, paired_frames

__all__ = [
    "entropy",
    "il_entropy",
    "entropy_risk",
    "EntropyRiskResult",
    "ENTROPY_PARAMS",
    "IL_ENTROPY_PARAMS",
    "ENTROPY_RISK_PARAMS",
    "entropy_of_counts",
]


def entropy_of_counts(counts: np.ndarray) -> float:
    """H(F/N) = (N log N - Σ F_i log F_i) / N, natural log; 0 log 0 = 0; NaN for N = 0."""
    f = counts[counts > 0].astype(np.float64)
    n = f.sum()
    if n == 0:
        return np.nan
    return float(math.log(n) - np.dot(f, np.log(f)) / n)


def _column_counts(name, s: pd.Series) -> np.ndarray:
    if pd.api.types.is_datetime64_any_dtype(s.dtype) or pd.api.types.is_complex_dtype(s.dtype):
        raise InvalidParameterError(
            f"column {name!r} has dtype {s.dtype}; entropy counts categories or distinct values. "
            "Convert it to a Categorical or to numbers."
        )
    codes, k = code_column(name, s, measure="entropy")
    return np.bincount(codes, minlength=k)


ENTROPY_PARAMS = {"data": Frame()}
IL_ENTROPY_PARAMS = {"x": Frame(), "xm": Frame()}


@measure(ENTROPY_PARAMS)
def entropy(data: pd.DataFrame) -> EntropyResult:
    r"""Shannon entropy of each variable's frequency distribution (natural log).

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    data : pandas.DataFrame
        Any variables. Categories of a Categorical, or the distinct values of any other
        column (numbers included), are the cells; missing values are a cell of their own.

    Returns
    -------
    EntropyResult
        ``.per_variable``: ``H(F/N) = (N log N - Σ_i F_i log F_i) / N`` per variable (a
        Series), in nats (divide by ``log 2`` for bits); NaN (warned) for data without
        records; ``.to_frame()``.

    Raises
    ------
    InvalidParameterError
        A datetime or complex column.

    See Also
    --------
    il_entropy, entropy_risk, hellinger

    Notes
    -----
    ``F_i`` are the frequencies of the cells and ``N = Σ F_i`` (Torra and Carlson 2013).
    Unused categories have ``F_i = 0`` and contribute nothing (``0 log 0 = 0``). For
    numeric variables every distinct value is a cell, so microaggregation (fewer distinct
    values) lowers the entropy and noise addition raises it.

    References
    ----------
    Torra, V. and Carlson, M. (2013). On the Hellinger distance for measuring information
    loss in microdata. UNECE/Eurostat Work Session on Statistical Data Confidentiality.

    Examples
    --------
    Frequencies F = (2, 1, 1), N = 4: ``(4 log 4 - 2 log 2) / 4 = 1.5 log 2 = 1.0397208``.

    >>> import pandas as pd
    >>> from pysdc.loss._entropy import entropy
    >>> round(float(entropy(pd.DataFrame({"v": ["a", "a", "b", "c"]})).per_variable["v"]), 7)
    1.0397208
    """
    out = {c: entropy_of_counts(_column_counts(c, data[c])) for c in data.columns}
    if data.shape[0] == 0:
        degenerate("entropy: the data have no records; the entropies are NaN.")
    return EntropyResult(per_variable=pd.Series(out, dtype=np.float64, name="entropy"), n=int(data.shape[0]))


@measure(IL_ENTROPY_PARAMS, selects="variables", by_name=True, paired=False)
def il_entropy(x: pd.DataFrame, xm: pd.DataFrame) -> ILEntropyResult:
    r"""Entropy-based information loss per variable: ``|H(xm) - H(x)|`` (Torra and Carlson, 2013).

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data.
    xm : pandas.DataFrame
        Masked data with the same variables (records need not be paired; the number of
        records may differ).

    Returns
    -------
    ILEntropyResult
        ``.per_variable``: ``|H(xm_v) - H(x_v)|`` per variable (a Series), in nats, with
        :func:`entropy`'s cells; ``.entropy_x``, ``.entropy_xm``: the two entropies;
        ``.to_frame()``.

    Raises
    ------
    InvalidParameterError
        Different variables, a datetime or complex column.

    See Also
    --------
    entropy, hellinger, il_categorical

    Notes
    -----
    Torra and Carlson observe that methods that concentrate values (microaggregation,
    global recoding) lower the entropy and methods that disperse them (noise, PRAM) raise
    it, hence the absolute difference. Each frame's entropy is computed on its own, so the
    labels of the categories need not match. This is not the EBIL of
    :func:`il_categorical`, which conditions the original on the masked value record by
    record.

    References
    ----------
    Torra, V. and Carlson, M. (2013). On the Hellinger distance for measuring information
    loss in microdata. UNECE/Eurostat Work Session on Statistical Data Confidentiality.

    Examples
    --------
    x = (a, a, b, b): H = log 2; xm = (a, a, a, b): H = log 4 - (3 log 3)/4 = 0.5623351;
    loss = 0.69314718 - 0.56233514 = 0.13081204.

    >>> import pandas as pd
    >>> from pysdc.loss._entropy import il_entropy
    >>> round(float(il_entropy(pd.DataFrame({"v": list("aabb")}), pd.DataFrame({"v": list("aaab")})).per_variable["v"]), 7)
    0.130812
    """
    xf, xmf = paired_frames(x, xm, same_rows=False)
    hx = {c: entropy_of_counts(_column_counts(c, xf[c])) for c in xf.columns}
    hxm = {c: entropy_of_counts(_column_counts(c, xmf[c])) for c in xf.columns}
    out = {c: abs(hxm[c] - hx[c]) for c in xf.columns}
    if xf.shape[0] == 0 or xmf.shape[0] == 0:
        degenerate("il_entropy: x or xm has no records; the entropies are NaN.")
    return ILEntropyResult(per_variable=pd.Series(out, dtype=np.float64, name="il_entropy"),
                           entropy_x=pd.Series(hx, dtype=np.float64, name="entropy_x"),
                           entropy_xm=pd.Series(hxm, dtype=np.float64, name="entropy_xm"))


# ------------------------------------------------------------------ entropy risk
@dataclass(frozen=True)
class _Weight(Constraint):
    """A finite real number; the joint domain of w1 and w2 is checked in the function."""

    def check(self, name, value, values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise InvalidParameterError(f"{name} must be a finite real number in [0, 1]; got {_show(value)}.")
        return float(value)

    def invalid_values(self, name, values):
        return ["0.5", float("nan"), True, -0.1, 1.5]


ENTROPY_RISK_PARAMS = {
    "data": Frame(),
    "key_vars": Columns(of="data"),
    "w1": _Weight(),
    "w2": _Weight(),
}


@dataclass(frozen=True, eq=False, repr=False)
class EntropyRiskResult(_Repr):
    """Result of :func:`entropy_risk`.

    Attributes
    ----------
    value : float
        ``R(F, w1, w2) = w1 · zero_share + w2 · entropy_term + (1 - w1 - w2) · size_term``.
    zero_share : float
        Proportion of the ``K`` cells of the key table that are empty, ``|D| / K``.
    entropy_term : float
        ``1 - H(F/N) / log K``.
    size_term : float
        ``(1/√N) · log(e √N)`` (= ``-(1/√N) log(1/(e √N))``).
    n_cells : int
        ``K``, the number of cells of the full key table.
    n_nonzero : int
        Number of non-empty cells (observed key combinations).
    n : int
        ``N``, the number of records.
    w1, w2 : float
        The weights.
    key_vars : tuple
        The key variables.
    """

    value: float
    zero_share: float
    entropy_term: float
    size_term: float
    n_cells: int
    n_nonzero: int
    n: int
    w1: float
    w2: float
    key_vars: tuple = field(default=(), repr=False)

    def __float__(self) -> float:
        return float(self.value)


@measure(ENTROPY_RISK_PARAMS)
def entropy_risk(data: pd.DataFrame, key_vars, *, w1: float, w2: float) -> EntropyRiskResult:
    r"""Shlomo--Antal--Elliot's entropy-based disclosure risk ``R(F, w1, w2)`` of the key table.

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    data : pandas.DataFrame
        The data (original or released).
    key_vars : list of str
        Key variables; their full cross-classification is the frequency table ``F``.
    w1 : float
        Weight of the proportion of empty cells (attribute disclosure through zeros).
    w2 : float
        Weight of ``1 - H / log K`` (concentration of the table). The weights must satisfy
        ``w1 >= 0``, ``w2 >= 0`` and ``w1 + w2 <= 1``; the third weight is ``1 - w1 - w2``.

    Returns
    -------
    EntropyRiskResult
        ``.value`` (also ``float(result)``) in [0, 1], and its three terms.

    Raises
    ------
    InvalidParameterError
        Weights outside the domain (the message names which condition fails), unknown
        key variables, a datetime or complex key.

    Warns
    -----
    DegenerateResultWarning
        No records, or a table of one cell (``log K = 0``): NaN.

    See Also
    --------
    entropy, pysdc.measure_risk

    Notes
    -----
    With ``K`` cells of frequencies ``F_i``, ``N = Σ F_i`` and ``H = (N log N - Σ F_i log F_i)/N``
    (natural log), as Torra and Carlson (2013) give it:

    ``R = w1 [(Σ_i |F_i - ½| + ½K - N) / K] + w2 [1 - H / log K]
    + (1 - w1 - w2) [(1/√N) log(e √N)]``.

    * The first bracket equals the number of empty cells over ``K`` (for integer
      frequencies ``|F_i - ½|`` is ``F_i - ½`` or ``½``); pysdc computes it that way, so a
      table of ``10^30`` cells costs nothing.
    * ``K`` is the product over the key variables of their numbers of categories: every
      declared category of a Categorical, **unused ones included** (they are empty cells of
      the table), or the distinct values of other columns; a missing value is one more
      category.
    * Reading of the source: the slides print the third term as
      ``+ (1 - w1 - w2) (1/√N) log(1/(e√N))`` and the domain as ``w1, w2 <= 0,
      w1 + w2 <= 1``. As printed the third term is negative and the measure leaves
      [0, 1], and negative weights would make empty cells *lower* the risk. pysdc follows
      Antal, Shlomo and Elliot's construction of ``R`` as a convex combination of three
      terms in [0, 1]: weights ``w1, w2 >= 0`` with ``w1 + w2 <= 1`` and the third term
      ``-(1/√N) log(1/(e√N)) = (1 + ½ log N)/√N``, which is 1 at ``N = 1`` and falls with
      ``N``. The parts are returned, so the printed form is
      ``w1·zero_share + w2·entropy_term - (1 - w1 - w2)·size_term`` if needed.

    References
    ----------
    Antal, L., Shlomo, N. and Elliot, M. (2014). Measuring disclosure risk with entropy in
    population based frequency tables. *Privacy in Statistical Databases*, LNCS 8744.

    Torra, V. and Carlson, M. (2013). On the Hellinger distance for measuring information
    loss in microdata. UNECE/Eurostat Work Session on Statistical Data Confidentiality.

    Examples
    --------
    Keys a ∈ {u, v}, b ∈ {p, q}, records (u,p), (u,p), (u,q), (v,p): F = (2, 1, 1, 0), K = 4,
    N = 4. Zero share: (|2-½| + |1-½| + |1-½| + |0-½| + 2 - 4)/4 = (1.5 + .5 + .5 + .5 - 2)/4
    = 1/4. H = (4 log 4 - 2 log 2)/4 = 1.5 log 2, so 1 - H/log 4 = 1 - 0.75 = 0.25. Size
    term (1 + ½ log 4)/2 = (1 + log 2)/2 = 0.8465736. With w1 = w2 = 0.25:
    R = 0.0625 + 0.0625 + 0.5 · 0.8465736 = 0.5482868.

    >>> import pandas as pd
    >>> from pysdc.loss._entropy import entropy_risk
    >>> d = pd.DataFrame({"a": list("uuuv"), "b": list("ppqp")})
    >>> round(entropy_risk(d, ["a", "b"], w1=0.25, w2=0.25).value, 7)
    0.5482868
    """
    bad = []
    if w1 < 0:
        bad.append(f"w1 must be >= 0; got {w1!r}")
    if w2 < 0:
        bad.append(f"w2 must be >= 0; got {w2!r}")
    if w1 + w2 > 1:
        bad.append(f"w1 + w2 must be <= 1 (the third weight is 1 - w1 - w2); got {w1 + w2!r}")
    if bad:
        raise InvalidParameterError(
            "; ".join(bad) + ". Shlomo-Antal-Elliot's R(F, w1, w2) is a convex combination of three terms "
            "(see entropy_risk's Notes on the printed domain)."
        )
    n = int(data.shape[0])
    codes, radices = [], []
    for c in key_vars:
        s = data[c]
        if pd.api.types.is_datetime64_any_dtype(s.dtype) or pd.api.types.is_complex_dtype(s.dtype):
            raise InvalidParameterError(
                f"key variable {c!r} has dtype {s.dtype}; convert it to a Categorical or to numbers."
            )
        cc, k = code_column(c, s, measure="entropy_risk")
        codes.append(cc)
        radices.append(k)
    K = math.prod(radices)
    if n:
        joint, size, _ = joint_codes(codes, radices, dense_limit=max(8 * n, 1 << 16))
        counts = np.bincount(joint, minlength=size)
        counts = counts[counts > 0]
    else:
        counts = np.zeros(0, dtype=np.int64)
    n_nonzero = int(counts.size)
    zero_share = (K - n_nonzero) / K if K else np.nan
    H = entropy_of_counts(counts)
    log_k = sum(math.log(k) for k in radices) if K else np.nan
    entropy_term = 1.0 - H / log_k if (K > 1 and np.isfinite(H)) else np.nan
    size_term = (1.0 + 0.5 * math.log(n)) / math.sqrt(n) if n else np.nan
    value = w1 * zero_share + w2 * entropy_term + (1.0 - w1 - w2) * size_term
    if not np.isfinite(value):
        why = "the data have no records" if n == 0 else "the key table has a single cell (log K = 0)"
        degenerate(f"entropy_risk is NaN: {why}.")
    return EntropyRiskResult(
        value=float(value),
        zero_share=float(zero_share),
        entropy_term=float(entropy_term),
        size_term=float(size_term),
        n_cells=int(K),
        n_nonzero=n_nonzero,
        n=n,
        w1=w1,
        w2=w2,
        key_vars=tuple(key_vars),
    )
