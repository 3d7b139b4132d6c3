"""Disclosure risk measures: freq_calc, indiv_risk, measure_risk, ldiversity.

Native, vectorised implementations that reproduce sdcMicro 5.8.0's numbers,
quirks included (each is documented in the function's Notes). The engines
live in :mod:`pysdc.core.freq` (frequencies with wildcards), :mod:`pysdc.core.threshold`
(threshold search, household risk) and :mod:`pysdc.core.ldiversity`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._results import FreqCalcResult, IndivRiskResult, LDiversityResult, MeasureRiskResult
from .._types import r_class
from .._validation import (
    Boolean,
    Columns,
    Frame,
    InstanceOf,
    Interval,
    Options,
    user_stacklevel,
    validate_params,
)
from ..core.freq import column_codes, dense_ids, freq_core, r_as_numeric, segmented_accumulate, series_codes
from ..core.ldiversity import SDC_MISSING_CODE, integer_raw_keys, ldiversity_core
from ..core.threshold import global_threshold, household_codes, household_risk

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity"]


# ------------------------------------------------------------------ declared constraints
# Shared by the native functions (validate_params) and the R bridge (through pysdc._registry).

#: the data frame and its key variables, as every frequency-based measure takes them
DATA = Frame(allow_array=True)
KEY_VARS = Columns("data")
#: a weight column, which must not also be a key
WEIGHT = Columns(
    "data", single=True, optional=True, disjoint_from="key_vars",
    disjoint_message="{name}: the weight column {cols} is also a key variable; use it as one or the other.",
)
ALPHA = Interval(0.0, 1.0)

FREQ_CALC_PARAMS = {"data": DATA, "key_vars": KEY_VARS, "w": WEIGHT, "alpha": ALPHA}
INDIV_RISK_PARAMS = {
    "freq": InstanceOf(FreqCalcResult, "a pysdc.FreqCalcResult (from freq_calc)"),
    "method": Options(("approx", "exact")),
    "qual": Interval(),
    "survey": Boolean(),
    "exact_method": Options(("sdcmicro", "stable")),
}
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
LDIVERSITY_PARAMS = {
    "data": DATA,
    "key_vars": KEY_VARS,
    "ldiv_index": Columns(
        "data", disjoint_from="key_vars",
        disjoint_message="{name}: sensitive variable(s) {cols} are also key variables; a sensitive variable "
        "must not be a key (sdcMicro refuses this too).",
        max_count=5,
        max_message="{name} names {n} sensitive variables; sdcMicro supports at most {max}. Call ldiversity "
        "several times with at most {max} each (the Multi columns then differ).",
    ),
    "l_recurs_c": Interval(),
}


# ------------------------------------------------------------------ helpers

#: above this many runs of equal segment length, one Python iteration per run costs more than the
#: bucketed, padded scan of segmented_accumulate (tests lower it to force both paths)
MAX_EQUAL_LENGTH_RUNS = 4096

def _key_codes(data: pd.DataFrame, key_vars: list, *, func: str, factorize_character: bool):
    """Integer codes (k, n) of the key columns as sdcMicro's as.numeric sees them
    (with measure_risk's as.factor step for character columns), and bounds."""
    codes = []
    cards = np.zeros(len(key_vars), dtype=np.int64)
    for j, k in enumerate(key_vars):
        s = data[k]
        _check_scalars(s, "key_vars", k)
        _warn_merging_integers(s, f"{func}: key column {k!r}")
        try:
            c, cards[j], lost = series_codes(s, character="factor" if factorize_character else "numeric")
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidParameterError(
                f"key_vars: column {k!r} (dtype {s.dtype}) cannot be used as a key ({type(exc).__name__}: "
                f"{str(exc)[:80]}); keys must be numbers, strings or categories."
            ) from None
        codes.append(c)
        if lost:
            every = lost == int(s.notna().sum())
            warnings.warn(
                f"{func}: key column {k!r} is text (str/object). sdcMicro converts key columns with R's "
                f"as.numeric, so {'all' if every else 'the'} {lost} value(s) that are not numbers become NA, and "
                "a missing key value is a wildcard: "
                + ("on this key every record now matches every other record, as if the key were not there. "
                   if every else "those records now match every other record on this key. ")
                + "pysdc does the same to return sdcMicro's numbers. To count the texts as categories, make the "
                f"column categorical first: data[{k!r}] = data[{k!r}].astype('category') (an R factor; on the "
                f"command line --categorical {k}); measure_risk does that itself, and so do pysdc.SdcProblem and "
                "the command line's risk and report, as sdcMicro's createSdcObj does.",
                CoercionWarning,
                stacklevel=user_stacklevel(),
            )
    return codes, cards


def _check_scalars(s: pd.Series, param: str, col) -> None:
    """Refuse object columns holding lists, dicts, sets or arrays (unhashable, not key values)."""
    if s.dtype != object or len(s) == 0:
        return
    try:
        pd.factorize(s)
    except TypeError:
        bad = next((v for v in s.to_numpy() if not isinstance(v, Hashable)), None)
        raise InvalidParameterError(
            f"{param}: column {col!r} holds {type(bad).__name__} values (e.g. {_short(bad)}), not single values; "
            "a key or household id must be a number, a string or a category in each record. "
            "Flatten the column first (e.g. df[col].str.join(',') for lists of strings)."
        ) from None


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


#: doubles hold every integer exactly only up to 2^53
_EXACT_INT = 2**53


def _warn_merging_integers(s: pd.Series, what: str) -> None:
    """Warn when distinct integers beyond 2^53 become equal as doubles (as in R, which has no int64)."""
    if not pd.api.types.is_integer_dtype(s.dtype) or len(s) == 0:
        return
    v = s.dropna().to_numpy()
    if v.size == 0:
        return
    if not (int(v.max()) > _EXACT_INT or int(v.min()) < -_EXACT_INT):
        return
    n_int = len(pd.unique(v))
    n_dbl = len(pd.unique(v.astype(np.float64)))
    if n_dbl < n_int:
        warnings.warn(
            f"{what} holds integers beyond 2^53 (e.g. 20-digit ids); as doubles (R's numbers, which sdcMicro "
            f"and pysdc compare) {n_int} distinct values become {n_dbl}, so different ids merge. Make the "
            "column text or categorical first (df[col].astype(str).astype('category'); on the command line "
            "--text COL).",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )


def weight_rules(w, *, func: str, cls: str, n_inf: int, n_na: int, n_below: int, smallest, n_nonpos: int,
                 examples) -> None:
    """sdcMicro's rules for a weight column, from its counts of infinite, missing, below-1 and
    non-positive values (the pandas path counts the records, an engine its group-by); ``examples(kind)``
    gives up to five records (``kind`` "inf" or "na") for the error messages."""
    if cls in ("factor", "ordered", "character", "POSIXct"):
        warnings.warn(
            f"{func}: weight column {w!r} is {cls}; sdcMicro converts it with R's as.numeric "
            f"({'factor codes' if cls in ('factor', 'ordered') else 'parsed numbers'}), and so does pysdc. "
            "Weights should be a float column.",
            CoercionWarning,
            stacklevel=user_stacklevel(),
        )
    if n_inf:
        raise InvalidParameterError(
            f"w: weight column {w!r} has {n_inf} infinite value(s), e.g. {_records(examples('inf'))}; an "
            "infinite weight makes the population frequency Fk of its whole key combination infinite and its "
            "risk 0. Fix or drop those records."
        )
    if n_na:
        raise InvalidParameterError(
            f"w: weight column {w!r} has {n_na} missing (or non-numeric) value(s), e.g. "
            f"{_records(examples('na'))}; sdcMicro cannot use them (its population frequencies become NA and the risk "
            "computation stops). Impute or drop those records, or call without w."
        )
    if n_below:
        warnings.warn(
            f"{func}: weight column {w!r} has {n_below} weight(s) below 1 (smallest {smallest:.3g}). "
            "Sampling weights are expected to be expansion factors (>= 1: how many population units a record "
            "stands for); with normalised weights the population frequencies Fk can fall below the sample "
            "frequencies fk, individual risks can exceed 1 and are then not probabilities, and the global risk "
            "can exceed 100 %. sdcMicro computes the same numbers. Use the design weights (e.g. w / w.mean() * "
            "population_size / n) to get meaningful risks.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    if n_nonpos:
        warnings.warn(
            f"{func}: weight column {w!r} has {n_nonpos} zero or negative weight(s); sdcMicro "
            "uses them as they are, so population frequencies Fk can be 0 or negative and the risks of "
            "those records NaN or meaningless. pysdc returns sdcMicro's numbers.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )


def _records(examples) -> str:
    """``record 6 (value 'abc')``, ``records 6 (value nan), 9 (value inf)``: 1-based record numbers (as in
    R) and the values found there; ``examples`` holds (record, value) pairs."""
    shown = [f"{r} (value {v!r})" for r, v in examples]
    if not shown:
        return "records not identifiable (no positions)"
    return ("record " if len(shown) == 1 else "records ") + ", ".join(shown)


def _examples(s: pd.Series, mask) -> list:
    """Up to five (1-based record number, value) pairs where ``mask`` holds; a record is named by its row
    number, and by its index label too when the index is not the default 0, 1, ..."""
    pos = np.flatnonzero(mask)[:5]
    default = isinstance(s.index, pd.RangeIndex) and s.index.start == 0 and s.index.step == 1
    out = []
    for p in pos:
        v = s.iloc[p]
        v = v.item() if hasattr(v, "item") else v
        out.append((int(p) + 1 if default else f"{int(p) + 1} (index {s.index[p]!r})", v))
    return out


def _weights(data: pd.DataFrame, w, *, func: str):
    if w is None:
        return None
    s = data[w]
    cls = r_class(s)
    v, lost = r_as_numeric(s)
    bad = np.isnan(v)
    below = (v > 0) & (v < 1)
    weight_rules(w, func=func, cls=cls, n_inf=int(np.isinf(v).sum()), n_na=int(np.isnan(v).sum()),
                 n_below=int(below.sum()), smallest=float(v[below].min()) if below.any() else None,
                 n_nonpos=int((v <= 0).sum()),
                 examples=lambda kind: _examples(s, np.isinf(v) if kind == "inf" else bad))
    return v


def warn_fk_overflow(Fk_c: np.ndarray, counts: np.ndarray, func: str) -> None:
    """Warn where a key combination's population frequency Fk (the sum of its finite weights) overflowed to
    Inf; sdcMicro sums in double too and returns Inf, and the risks of those records are NaN."""
    inf = np.isposinf(np.asarray(Fk_c, dtype=np.float64))
    if not inf.any():
        return
    n_rec = int(np.asarray(counts)[inf].sum()) if len(counts) == len(Fk_c) else None
    warnings.warn(
        f"{func}: the population frequency Fk of {int(inf.sum())} key combination(s)"
        + (f" ({n_rec} record(s))" if n_rec is not None else "")
        + " is Inf: the sum of their weights exceeds the largest double (1.8e308). sdcMicro returns Inf too; "
        "the individual risk of those records is NaN, and measure_risk's global risk skips them (it can read 0 "
        "although nothing was measured). Weights this large are no sampling weights: check the weight column.",
        DegenerateResultWarning,
        stacklevel=user_stacklevel(),
    )


def _frequencies(data, keys, w_col, alpha, *, func, factorize_character):
    """Combo-level (fk_c, Fk_c, cnt) and the combo id of each record."""
    codes, cards = _key_codes(data, keys, func=func, factorize_character=factorize_character)
    wv = _weights(data, w_col, func=func)
    return freq_core(codes, cards, wv, alpha)


# ----------------------------------------------------------------- freq_calc

@validate_params(FREQ_CALC_PARAMS)
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
    fk_c, Fk_c, _, inv = _frequencies(data, keys, w_col, alpha, func="freq_calc", factorize_character=False)
    fk, Fk = fk_c[inv], Fk_c[inv]
    if len(data) == 0:
        warnings.warn("freq_calc: data has no rows; fk and Fk are empty.", DegenerateResultWarning, stacklevel=user_stacklevel())
    warn_fk_overflow(Fk_c, np.bincount(inv, minlength=len(Fk_c)) if len(Fk_c) else np.zeros(0), "freq_calc")
    return FreqCalcResult(
        fk=fk, Fk=Fk, n1=int(np.count_nonzero(fk == 1)), n2=int(np.count_nonzero(fk == 2)),
        key_vars=tuple(keys), alpha=alpha, combo=inv,
    )


# ---------------------------------------------------------------- indiv_risk

def _equal_length_accumulate(values: np.ndarray, lengths: np.ndarray, ufunc) -> np.ndarray:
    """Left-to-right ``ufunc.accumulate`` within consecutive segments.

    Where consecutive segments have the same length (pairs sorted by fk), they are
    reshaped into one 2-d block and accumulated row-wise: the same sequential
    operations as a scalar loop, with no padding. Other layouts fall back to
    :func:`segmented_accumulate`.
    """
    if lengths.size == 0:
        return np.empty_like(values)
    change = np.flatnonzero(lengths[1:] != lengths[:-1]) + 1
    run_starts = np.concatenate([[0], change])
    if run_starts.size > MAX_EQUAL_LENGTH_RUNS:
        return segmented_accumulate(values, lengths, ufunc)
    out = np.empty_like(values)
    run_ends = np.concatenate([change, [lengths.size]])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for a, b in zip(run_starts, run_ends):  # one iteration per run of equal segment length
        length = int(lengths[a])
        if length == 0:
            continue
        lo, hi = offsets[a], offsets[b]
        block = values[lo:hi].reshape(b - a, length)
        ufunc.accumulate(block, axis=1, out=out[lo:hi].reshape(b - a, length))
    return out


#: the platform C library's pow and log: R's ``^`` and ``log`` call them (R_pow hands every exponent but 2
#: to the C library's pow), while numpy's ``power`` and ``log`` may take SIMD paths that differ from the C
#: library in the last bit -- and the alternating exact series amplifies a last-bit difference by up to
#: 10^16 (finding 6 of issue 24). ``np.float_power``'s float64 loop calls the C library's pow per element
#: (no SIMD dispatch), so it is C's pow at numpy's speed; the log is taken per (fk, Fk) pair only, through
#: Python's math.log (the C library's log).
_LOG = np.frompyfunc(math.log, 1, 1)


def c_pow(x, y) -> np.ndarray:
    """Element-wise ``x ** y`` by the C library's pow (as R's ``^`` computes it), as float64."""
    with np.errstate(all="ignore"):  # C's pow: Inf on overflow, NaN for a negative base and fractional power
        return np.float_power(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))


def c_log(x) -> np.ndarray:
    """Element-wise natural log by the C library's log (as R's ``log`` computes it), as float64."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.empty(x.shape)
    with np.errstate(all="ignore"):
        ok = x > 0
        out = np.log(x)  # only for 0, negative and NaN arguments (-Inf, NaN), overwritten elsewhere
    if ok.any():
        out[ok] = np.asarray(_LOG(x[ok]), dtype=np.float64)
    return out


def _exact_series(fk: np.ndarray, pk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Franconi & Polettini's exact risk for integer fk > 2, one value per (fk, pk) pair.

    Same floating-point operations, in the same order, as sdcMicro's R loop
    (powers and logs by the C library, as R's ``^`` and ``log``; cumulative
    products and the alternating sum accumulated strictly left to right), so
    equal inputs give bitwise equal results on the same C library.

    Returns the values and, per pair, the cancellation ratio: the largest
    term of ``A + A*BB + (-1)**fk * log(pk)`` over the absolute value of the
    sum (Inf where the sum is 0); about ``log10`` of it decimal digits are lost.
    """
    with np.errstate(all="ignore"):
        A = (c_pow(pk, 1 - fk) - 1) / (fk - 1)
        eins = c_pow(pk / (1 - pk), fk)
        sign = np.where(np.fmod(fk, 2.0) == 0, 1.0, -1.0)  # (-1)^fk for integer fk, exactly
        drei = sign * c_log(pk)
        L = (fk - 2).astype(np.int64)  # terms i = 0 .. fk-3
        ends = np.cumsum(L)
        seg = np.repeat(np.arange(fk.size), L)
        i = (np.arange(ends[-1] if L.size else 0, dtype=np.int64) - np.repeat(ends - L, L)).astype(np.float64)
        f = fk[seg]
        # powers p**(i+1-f) for i = 0..fk-2 per pair; term i uses entries i+1 and i
        L1 = L + 1
        ends1 = np.cumsum(L1)
        seg1 = np.repeat(np.arange(fk.size), L1)
        i1 = (np.arange(ends1[-1] if L1.size else 0, dtype=np.int64) - np.repeat(ends1 - L1, L1)).astype(np.float64)
        Q = c_pow(pk[seg1], i1 + 1 - fk[seg1])
        keep = np.ones(Q.size, dtype=bool)
        keep[ends1 - 1] = False
        q_lo = Q[keep]  # p**(i+1-f)
        keep[:] = True
        keep[ends1 - L1] = False
        q_hi = Q[keep]  # p**(i+2-f)
        B = ((f - 1 - i) ** 2 / ((i + 1) * (f - 2 - i))) * (q_hi - 1) / (q_lo - 1)
        b = _equal_length_accumulate(B, L, np.multiply)
        largest_b = np.zeros(fk.size)
        if b.size:
            np.maximum.at(largest_b, seg, np.abs(b))
        b[i.astype(np.int64) % 2 == 0] *= -1.0  # (-1)^(m+1)
        bb = _equal_length_accumulate(b, L, np.add)
        BB = bb[ends - 1]
        total = (A * (1 + BB)) + drei
        largest = np.maximum(np.abs(A) * np.maximum(1.0, largest_b), np.abs(drei))
        ratio = largest / np.abs(total)
        return eins * total, ratio


#: warn when the exact series has lost more than this many of float64's ~16 significant digits
#: (the value is then good to fewer than ~9 digits)
EXACT_DIGITS_LOST_WARN = 7.0


def _stable_exact(fk: np.ndarray, pk: np.ndarray) -> np.ndarray:
    """The exact risk E(1/F | f) for integer fk >= 1, evaluated without cancellation.

    With ``q = 1 - pk``, Franconi & Polettini's risk (the mean of 1/F over
    the negative-binomial posterior of F given f) equals
    ``pk * integral_0^1 s**(f-1) / (pk + q*s) ds``
    ``= (pk/f) * 2F1(1, 1; f+1; q) = (pk/f) * sum_k k! q**k / ((f+1)...(f+k))``,
    a series of positive terms (ratio ``q (k+1)/(f+1+k) < 1``). Where it
    converges slowly (``pk < 1/2`` and small ``f``) the integral's forward
    recurrence ``I_1 = -log(pk)/q``, ``I_{n+1} = (1/n - pk I_n)/q`` is used
    instead; it damps errors by ``pk/q < 1`` per step. ``pk > 1`` (Fk < fk)
    has no posterior: NaN.
    """
    out = np.full(fk.size, np.nan)
    q = 1.0 - pk
    valid = (pk > 0) & (pk <= 1) & (fk >= 1)
    one = valid & (pk == 1)
    out[one] = 1.0 / fk[one]
    valid &= ~one
    rec = valid & (pk < 0.5) & (fk <= 64)
    ser = valid & ~rec
    if rec.any():
        f, p, qq = fk[rec], pk[rec], q[rec]
        integral = -np.log(p) / qq  # I_1; one rounding per operation, damped afterwards
        res = np.where(f == 1, integral, 0.0)
        for n in range(1, int(f.max())):  # at most 63 steps, vectorised over the pairs
            integral = (1.0 / n - p * integral) / qq
            res = np.where(f == n + 1, integral, res)
        out[rec] = p * res
    if ser.any():
        idx = np.flatnonzero(ser)
        f, qq = fk[idx], q[idx]
        term = np.ones(idx.size)
        acc = np.zeros(idx.size)
        k = 0
        active = np.arange(idx.size)
        while active.size:
            # a block of 64 terms for the pairs not yet converged
            kk = np.arange(k, k + 64, dtype=np.float64)
            ratios = qq[active, None] * (kk + 1) / (f[active, None] + 1 + kk)
            t = term[active, None] * np.concatenate([np.ones((active.size, 1)), np.cumprod(ratios, axis=1)[:, :-1]],
                                                     axis=1)
            acc[active] += t.sum(axis=1)
            term[active] = t[:, -1] * ratios[:, -1]
            k += 64
            # the tail beyond is below term / (1 - r), r = the ratio now (the ratios grow towards q)
            r_now = ratios[:, -1]
            active = active[term[active] > 1e-17 * acc[active] * (1.0 - r_now)]
        out[idx] = pk[idx] / f * acc
    return out


def _approx_or_small(fk, pk, rk, log=np.log):
    with np.errstate(all="ignore"):
        q = pk / (1 - pk)
        one = fk == 1
        two = fk == 2
        rk[one] = (q[one]) * log(1 / pk[one])
        rk[two] = q[two] - ((q[two] ** 2) * log(1 / pk[two]))


def _distinct_pairs(f: np.ndarray, p: np.ndarray):
    """Distinct (f, p) pairs by their bit patterns: (pair id per element, first element of each pair)."""
    fcode, _ = column_codes(f)
    pcode, pcard = column_codes(p)
    inv, m = dense_ids(fcode * max(pcard, 1) + pcode)
    first = np.empty(m, dtype=np.int64)
    first[inv[::-1]] = np.arange(inv.size - 1, -1, -1)
    return inv, first


def _warn_exact_digits(fk, Fk, ratio, counts) -> None:
    """Call-time warning where sdcMicro's exact series has cancelled away its digits."""
    with np.errstate(all="ignore"):
        lost = np.log10(ratio)
    lost = np.where(np.isnan(lost), np.inf, lost)
    bad = lost > EXACT_DIGITS_LOST_WARN
    if not bad.any():
        return
    w = int(np.argmax(np.where(bad, lost, -np.inf)))
    n_bad = int(counts[bad].sum())
    worst = lost[w]
    left = "no correct digit" if worst >= 15.6 else f"about {max(15.6 - worst, 0):.0f} correct significant digits"
    if np.isfinite(worst):
        how = (f"its largest term exceeds the sum by up to 10^{worst:.1f}, so "
               + ("all of float64's ~16 significant digits are" if worst >= 15.6 else f"about {worst:.0f} of "
                  "float64's ~16 significant digits are") + " lost")
    else:
        how = "its terms overflow (NaN or Inf) or cancel completely"
    warnings.warn(
        f"indiv_risk(method='exact'): Franconi & Polettini's alternating series cancels for {n_bad} record(s) "
        f"(fk = {fk[bad].min():g} to {fk[bad].max():g}, Fk/fk = {np.min(Fk[bad] / fk[bad]):.6g} to "
        f"{np.max(Fk[bad] / fk[bad]):.6g}): {how} (worst at fk = {fk[w]:g}, "
        f"Fk = {Fk[w]:.17g}: {left}). The risks returned are sdcMicro's numbers (the same operations in the same "
        "order, rounding errors included) and are not the exact risk there; exact_method='stable' evaluates the "
        "same risk without cancellation.",
        DegenerateResultWarning,
        stacklevel=user_stacklevel(),
    )


def _indiv_risk_arrays(fk, Fk, method, qual, survey, *, exact_method="sdcmicro", counts=None):
    if not survey:
        with np.errstate(divide="ignore"):
            return 1 / fk
    with np.errstate(all="ignore"):
        pk = fk / Fk
    rk = np.zeros(fk.size)
    counts = np.ones(fk.size, dtype=np.int64) if counts is None else np.asarray(counts)
    # the exact method's small-fk formulas run on the C library's log, as sdcMicro's scalar R loop does
    _approx_or_small(fk, pk, rk, log=np.log if method == "approx" else c_log)
    big = fk > 2
    if method == "approx":
        with np.errstate(all="ignore"):
            rk[big] = pk[big] / (fk[big] - (1 - pk[big]))
    elif exact_method == "stable":
        integer = (fk >= 1) & (fk == np.floor(fk))
        rk[big & ~integer] = np.nan  # as sdcMicro: the model needs integer fk
        todo = integer & ~(fk == Fk)
        if todo.any():
            inv, first = _distinct_pairs(fk[todo], pk[todo])
            rk[todo] = _stable_exact(fk[todo][first], pk[todo][first])[inv]
        undefined = todo & (pk > 1)
        if undefined.any():
            warnings.warn(
                f"indiv_risk(method='exact', exact_method='stable'): {int(counts[undefined].sum())} record(s) have "
                "Fk < fk (weights below 1), where the negative-binomial posterior of the population frequency does "
                "not exist; their risk is NaN. exact_method='sdcmicro' returns sdcMicro's series there.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
    else:
        integer = big & (fk == np.floor(fk))
        rk[big & ~integer] = np.nan  # sdcMicro: (-1)^fk is NaN for fractional fk
        todo = integer & ~(fk == Fk)  # overridden below anyway
        if todo.any():
            f_t, p_t = fk[todo], pk[todo]
            inv, first = _distinct_pairs(f_t, p_t)
            fs, ps = f_t[first], p_t[first]
            order = np.argsort(fs, kind="stable")  # equal fk -> equal series length, contiguous
            vals, ratio = np.empty(fs.size), np.empty(fs.size)
            vals[order], ratio[order] = _exact_series(fs[order], ps[order])
            rk[todo] = vals[inv]
            n_pair = np.bincount(inv, weights=counts[todo], minlength=fs.size)
            _warn_exact_digits(fs, Fk[todo][first], ratio, n_pair)
    same = fk == Fk
    with np.errstate(divide="ignore"):
        rk[same] = 1 / fk[same]
    return rk * qual


@validate_params(INDIV_RISK_PARAMS)
def indiv_risk(
    freq: FreqCalcResult,
    *,
    method: str = "approx",
    qual: float = 1.0,
    survey: bool = True,
    exact_method: str = "sdcmicro",
) -> IndivRiskResult:
    """Individual re-identification risk of each record.

    Parameters
    ----------
    freq : FreqCalcResult
        Frequencies from :func:`freq_calc`.
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
    engine = getattr(freq, "_engine_indiv_risk", None)
    if engine is not None:  # frequencies computed on an engine (pysdc.engine): per-record risks stay there
        return engine(method=method, qual=qual, survey=survey, exact_method=exact_method)
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
        rk = _indiv_risk_arrays(fk[first], Fk[first], method, qual, survey, exact_method=exact_method,
                                counts=np.bincount(combo, minlength=m))[combo]
    else:
        rk = _indiv_risk_arrays(fk, Fk, method, qual, survey, exact_method=exact_method)
    if survey:
        return IndivRiskResult(rk=rk, fk=fk, method=method, qual=qual, key_vars=freq.key_vars)
    return IndivRiskResult(rk=rk, fk=fk, method=None, qual=float("nan"), key_vars=freq.key_vars)


# -------------------------------------------------------------- measure_risk

@validate_params(MEASURE_RISK_PARAMS)
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

    fk_c, Fk_c, cnt, inv = _frequencies(data, keys, w_col, alpha, func="measure_risk", factorize_character=True)
    rk_c = _indiv_risk_arrays(fk_c, Fk_c, "approx", 1.0, w_col is not None)
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
        _check_scalars(data[hid_col], "hid", hid_col)
        _warn_merging_integers(data[hid_col], f"measure_risk: household id column {hid_col!r}")
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


# ---------------------------------------------------------------- ldiversity

def _has_missing_code(s: pd.Series) -> bool:
    cls = r_class(s)
    if cls in ("numeric", "integer"):
        if isinstance(s.dtype, np.dtype):
            return bool((s.to_numpy() == SDC_MISSING_CODE).any())
        return bool((s == SDC_MISSING_CODE).any())
    if cls == "character":
        return bool((r_as_numeric(s)[0] == SDC_MISSING_CODE).any())
    return False


def _ldiversity_block(data: pd.DataFrame, keys: list, sens: list, c: float, weights=None):
    """ldiversity's columns (a (3 * len(sens) + 2, rows) array) and their names, with sdcMicro's warnings.

    ``weights``: the rows are distinct combinations standing for that many records (see
    :func:`pysdc.core.ldiversity.ldiversity_core`); an engine's group-by gives them.
    """
    if c <= 0:
        warnings.warn(
            f"ldiversity: l_recurs_c={c:g}; recursive (c, l)-diversity needs a constant c > 0 (r_1 < c (r_l + "
            "... + r_m)), so its column is not meaningful. sdcMicro accepts it and returns the same numbers.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    key_series = [data[k] for k in keys]
    raw = None
    if weights is None and all(isinstance(k.dtype, np.dtype) and k.dtype.kind in "iub" for k in key_series):
        # complete integer keys: one mixed-radix key, no per-column code arrays
        raw = integer_raw_keys([k.to_numpy() for k in key_series])
    if raw is None:
        codes, cards = _key_codes(data, keys, func="ldiversity", factorize_character=False)
    else:
        codes = cards = None
    sens_cols = []
    for s in sens:
        v, lost = r_as_numeric(data[s])
        if lost:
            warnings.warn(
                f"ldiversity: sensitive column {s!r} is character; sdcMicro converts it with R's as.numeric, "
                f"which turns {lost} non-numeric value(s) into NA, and every NA counts as a distinct value. "
                f"Convert it to a category first: data[{s!r}] = data[{s!r}].astype('category').",
                CoercionWarning,
                stacklevel=user_stacklevel(),
            )
        sens_cols.append(v)
    if any(_has_missing_code(data[k]) for k in keys):
        warnings.warn(
            "ldiversity: a key variable takes the value -999, sdcMicro's missing-value code in ldiversity; "
            "sdcMicro 5.8.0 then writes l-diversity values into the wrong records. pysdc treats -999 as an "
            "ordinary key value; recode it to NaN (a class of its own per record) to compare with sdcMicro.",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )
    block = np.zeros((3 * len(sens) + 2, len(data)))
    *_, n_undef = ldiversity_core(codes, cards, sens_cols, c, out=block, raw=raw, n_keys=len(keys), weights=weights)
    if n_undef:
        warnings.warn(
            f"ldiversity: {n_undef} record(s) belong to classes whose sensitive values are all -999 "
            "(sdcMicro's missing code); their recursive l-diversity is undefined (sdcMicro reports a value "
            "left over from another class) and is NaN here.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    names = []
    for s in sens:  # ldiversity_core wrote the columns into block
        names += [f"{s}_Distinct_Ldiversity", f"{s}_Entropy_Ldiversity", f"{s}_Recursive_Ldiversity"]
    names += ["MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity"]
    return block, names


@validate_params(LDIVERSITY_PARAMS)
def ldiversity(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    ldiv_index: str | Sequence[str],
    *,
    l_recurs_c: float = 2,
) -> LDiversityResult:
    """Distinct, entropy and recursive l-diversity of sensitive variables.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row.
    key_vars : str or list of str
        Names of the key variables that define the equivalence classes.
    ldiv_index : str or list of str
        Names of the sensitive variables (at most 5, none of them a key).
    l_recurs_c : float, default 2
        The constant ``c`` of recursive (c, l)-diversity (0 means 1, as in
        sdcMicro).

    Returns
    -------
    pandas.DataFrame
        Indexed like ``data``; for each sensitive variable ``v`` the columns
        ``v_Distinct_Ldiversity``, ``v_Entropy_Ldiversity``,
        ``v_Recursive_Ldiversity``, then ``MultiEntropy_Ldiversity`` and
        ``MultiRecursive_Ldiversity`` -- sdcMicro's column names. Each record
        carries the values of its equivalence class.

    Raises
    ------
    InvalidParameterError
        Unknown columns, a sensitive variable that is also a key, more than 5
        sensitive variables.

    See Also
    --------
    measure_risk

    Notes
    -----
    Follows sdcMicro 5.8.0's ``ldiversity`` (C++ ``measure_risk_cpp``):

    * Columns are converted with R's ``as.numeric`` (categorical -> codes,
      character -> parsed numbers, other strings NA with a
      :class:`~pysdc.CoercionWarning`); character keys are *not* turned into
      categories here (unlike :func:`measure_risk`): the data.frame method's
      semantics. sdcMicro's ``ldiversity(sdcObj)`` sees them as factors, because
      ``createSdcObj`` converts them; :class:`pysdc.SdcProblem` and the command
      line do the same (a text *sensitive* variable stays text there too).
    * Equivalence classes are records with equal key values. A record with a
      missing key value is a class of its own (sdcMicro compares with ``!=``
      and NA != NA) -- missing keys are **not** wildcards here.
    * Distinct l-diversity counts the distinct sensitive values of a class;
      every missing (NaN) sensitive value counts as a distinct value of its
      own. Entropy l-diversity is ``exp(-sum p log p)`` over those values.
      Recursive (c, l)-diversity is the largest ``l`` with ``r_1 < c (r_l +
      ... + r_m)`` for the value frequencies ``r_1 >= r_2 >= ...``, in
      single-precision arithmetic as sdcMicro's C++.
    * ``-999`` is sdcMicro's missing-value code here: a sensitive value
      -999 is counted as one extra "missing" value (in distinct only if the
      class has other values, in entropy always, not in recursive). A class
      whose sensitive values are all -999 has distinct 0, entropy 1 and a
      recursive value sdcMicro leaves over from an earlier class -- NaN here,
      with a :class:`~pysdc.DegenerateResultWarning`. A key value -999 sends
      sdcMicro into a code path that writes results into the wrong rows;
      pysdc treats it as an ordinary value and warns.
    * Multi columns: with one sensitive variable they are 0. With several,
      sdcMicro 5.8.0 computes them only for sensitive variables whose
      position in the list is at least the number of key variables (an
      indexing bug: with as many keys as sensitive variables they are 0);
      for those it takes the minimum entropy (single precision) and
      recursive l-diversity of the variable within subgroups of equal values
      of the other sensitive variables. pysdc reproduces this; where no
      variable qualifies it returns 0 (sdcMicro returns the value left over
      from an earlier call in the same R session, 0 in a fresh one). Within a
      class, sdcMicro forms these subgroups after an exchange sort that NaN
      comparisons can leave unsorted; pysdc groups equal values exactly, so
      with missing sensitive values the Multi columns can differ.

    References
    ----------
    .. [1] Machanavajjhala, A., Kifer, D., Gehrke, J., Venkitasubramaniam, M.
       (2007). l-diversity: Privacy beyond k-anonymity. ACM TKDD 1(1).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"k": [1, 1, 1, 2], "s": [1, 2, 2, 5]})
    >>> pysdc.ldiversity(df, "k", "s")["s_Distinct_Ldiversity"].tolist()
    [2.0, 2.0, 2.0, 1.0]
    """
    keys, sens, c = key_vars, ldiv_index, l_recurs_c
    block, names = _ldiversity_block(data, list(keys), list(sens), c)
    table = pd.DataFrame(block.T, columns=names, index=data.index, copy=False)
    return LDiversityResult(table=table, key_vars=tuple(keys), ldiv_index=tuple(sens), l_recurs_c=float(c))
