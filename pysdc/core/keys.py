"""Key variables, household ids and weights as sdcMicro reads them, for every frequency-based measure.

The kernels shared by the pandas measures (:mod:`pysdc.risk`) and the engines (:mod:`pysdc.engine`):
integer codes of the key columns as R's ``as.numeric`` sees them (:func:`key_codes`), sdcMicro's rules
for a weight column (:func:`weight_rules`, fed with counts by the pandas path and by an engine's
group-by), the overflow warning of the population frequencies (:func:`warn_fk_overflow`) and the
combination-level frequencies of a data frame (:func:`frequencies`).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError, PysdcWarning, user_stacklevel
from .._types import r_class
from .freq import freq_core, r_as_numeric, series_codes

__all__ = ["key_codes", "check_scalars", "warn_merging_integers", "weight_rules", "record_examples", "weight_values",
           "warn_fk_overflow", "frequencies"]


def key_codes(data: pd.DataFrame, key_vars: list, *, func: str, factorize_character: bool):
    """Integer codes (k, n) of the key columns as sdcMicro's as.numeric sees them
    (with measure_risk's as.factor step for character columns), and bounds."""
    codes = []
    cards = np.zeros(len(key_vars), dtype=np.int64)
    for j, k in enumerate(key_vars):
        s = data[k]
        check_scalars(s, "key_vars", k)
        warn_merging_integers(s, f"{func}: key column {k!r}")
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


def check_scalars(s: pd.Series, param: str, col) -> None:
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


def warn_merging_integers(s: pd.Series, what: str) -> None:
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


def _shown(v) -> str:
    """A value found in a record, for a message: ``missing`` for an empty field (NaN, None, NA, NaT: an empty
    CSV field or NA), never ``value nan``; else ``value 'abc'`` or ``value inf``."""
    if v is None or (np.ndim(v) == 0 and not isinstance(v, str) and bool(pd.isna(v))):
        return "missing"
    return f"value {v!r}"


def _records(examples) -> str:
    """``record 6 (value 'abc')``, ``records 6 (missing), 9 (value inf)``: 1-based record numbers (as in
    R) and the values found there (``missing`` for an empty field); ``examples`` holds (record, value)
    pairs."""
    shown = [f"{r} ({_shown(v)})" for r, v in examples]
    if not shown:
        return "records not identifiable (no positions)"
    return ("record " if len(shown) == 1 else "records ") + ", ".join(shown)


def record_examples(s: pd.Series, mask) -> list:
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


def weight_values(data: pd.DataFrame, w, *, func: str):
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
                 examples=lambda kind: record_examples(s, np.isinf(v) if kind == "inf" else bad))
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


def frequencies(data, keys, w_col, alpha, *, func, factorize_character):
    """Combo-level (fk_c, Fk_c, cnt) and the combo id of each record."""
    codes, cards = key_codes(data, keys, func=func, factorize_character=factorize_character)
    wv = weight_values(data, w_col, func=func)
    return freq_core(codes, cards, wv, alpha)

