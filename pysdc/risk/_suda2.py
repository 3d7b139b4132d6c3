"""SUDA2: special uniques and DIS-SUDA scores (sdcMicro 5.8.0's ``suda2``), native.

The numeric kernel is :func:`pysdc.core.suda2.suda2_core`; this module converts the
key columns the way sdcMicro does, adds its dummy columns, and assembles the result
tables with sdcMicro's arithmetic.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import R_INT_MAX as _INT32_MAX
from .._types import r_class
from .._validation import Boolean, Columns, Frame, Interval, user_stacklevel
from ..core.collate import r_sort_text
from ..core.freq import r_as_numeric
from ..core.suda2 import row_order, suda2_core

__all__ = ["suda2", "Suda2Result", "SUDA2_PARAMS", "MAX_SUDA2_KEYS"]

#: pysdc enumerates the 2**p - 1 subsets of the keys; beyond this many keys it refuses
MAX_SUDA2_KEYS = 20

_INT32_MIN = -(2**31)

SUDA2_PARAMS = {
    "data": Frame(allow_array=True),
    "key_vars": Columns(
        "data",
        max_count=MAX_SUDA2_KEYS,
        max_message=(
            "{name} names {n} columns; pysdc's suda2 enumerates all 2**p subsets of the keys and supports "
            "at most {max}. Use fewer key variables."
        ),
    ),
    "missing": Interval(
        float(_INT32_MIN + 1), float(_INT32_MAX),
        note="sdcMicro's C++ holds the missing code as a 32-bit integer",
    ),
    "dis_fraction": Interval(),
    "original_scores": Boolean(),
}

_DUMMY_WARNING = (
    "suda2 with {p} key variable(s): sdcMicro's SUDA2 finds MSUs only in data sets with more than 2 "
    "variables, so it adds constant dummy variables, and the result might be wrong (sdcMicro warns the "
    "same). pysdc does the same to return sdcMicro's numbers; the score weights are those of 3 variables."
)


@dataclass(frozen=True, eq=False, repr=False)
class Suda2Result(_Repr):
    """Result of :func:`pysdc.suda2` (sdcMicro's ``suda2`` list).

    Attributes
    ----------
    score : numpy.ndarray
        SUDA score of each record (sdcMicro's ``score``), in row order; 0 for records
        without a minimal sample unique.
    dis_score : numpy.ndarray
        DIS-SUDA score of each record (sdcMicro's ``disScore``), in row order; NaN where
        sdcMicro gives NaN (see the Notes of :func:`pysdc.suda2`).
    contribution_percent : pandas.DataFrame
        Records x key variables (in ``key_vars`` order, indexed like the data): the share
        of each variable in the record's score (sdcMicro's ``contributionPercent``,
        despite the name a fraction in [0, 1], not a percentage; 0 where the score is 0).
    attribute_contributions : pandas.DataFrame
        Columns ``variable``, ``contribution``: each key's share of the total score, in
        percent (NaN when all scores are 0).
    attribute_level_contributions : pandas.DataFrame
        Columns ``variable``, ``attribute``, ``contribution``: for each key and each of its
        sorted distinct non-missing values, the share in percent of that key's
        contribution held by records with that value.
    key_vars : tuple
        The key variables.
    dis_fraction : float
        The sampling fraction used for DIS-SUDA.
    original_scores : bool
        Whether Elliot et al.'s score weights were used.
    """

    score: np.ndarray
    dis_score: np.ndarray
    contribution_percent: pd.DataFrame
    attribute_contributions: pd.DataFrame
    attribute_level_contributions: pd.DataFrame
    key_vars: tuple = ()
    dis_fraction: float = 0.01
    original_scores: bool = True


def _int_keys(data: pd.DataFrame, key_vars: list, missing: float) -> list[np.ndarray]:
    """Key columns as sdcMicro's C++ holds them: as.numeric, NA -> missing, cast to int."""
    miss_i = int(np.trunc(missing))
    out = []
    truncated = []
    for k in key_vars:
        raw = data[k]
        if isinstance(raw.dtype, np.dtype) and raw.dtype.kind in "iu" and len(raw):
            iv = raw.to_numpy()
            if int(iv.min()) >= _INT32_MIN and int(iv.max()) <= _INT32_MAX:  # no NA, nothing to truncate
                out.append(iv)
                continue
        v, lost = r_as_numeric(raw)
        if lost:
            warnings.warn(
                f"suda2: key column {k!r} is character (str/object); sdcMicro coerces key columns with R's "
                f"as.numeric, which turns the {lost} value(s) that are not numbers into NA (then the missing "
                "code), as sdcMicro's suda2 on a data.frame does; pysdc does the same to return its numbers. "
                "sdcMicro's createSdcObj (and pysdc.SdcProblem, and the command line's risk and report) makes text "
                "keys factors first: use pysdc.SdcProblem(data, key_vars).risk(), declare the column categorical "
                f"(--categorical {k} on the command line) or convert it: data[{k!r}] = data[{k!r}].astype('category') "
                "(pandas sorts the levels by code point; R by its locale, see pysdc.problem.as_sdc_keys).",
                CoercionWarning,
                stacklevel=user_stacklevel(),
            )
        nan = np.isnan(v)
        with np.errstate(invalid="ignore"):
            t = np.trunc(np.where(nan, 0.0, v))
            out_of_range = ~np.isfinite(t) | (t < _INT32_MIN) | (t > _INT32_MAX)
            col = np.where(out_of_range, float(_INT32_MIN), t).astype(np.int32)
        col[nan] = miss_i
        out.append(col)
        if np.any(~nan & ((t != v) | out_of_range)):
            truncated.append(k)
    if truncated:
        warnings.warn(
            f"suda2: key column(s) {truncated} hold values that are not 32-bit integers; sdcMicro's C++ "
            "truncates every key value to an int (1.2 and 1.7 both become 1; values beyond +-2**31 become "
            "-2**31), so such values are merged, and pysdc does the same to return sdcMicro's numbers. "
            "Recode the keys as integer codes or categories.",
            CoercionWarning,
            stacklevel=user_stacklevel(),
        )
    return out


def _ld_sum(x: np.ndarray) -> float:
    """R's ``sum``/``colSums``: accumulated in long double, then rounded."""
    return float(np.sum(np.asarray(x, dtype=np.longdouble)))


def _levels(s: pd.Series) -> tuple[list, np.ndarray]:
    """sort(unique(x)) without NA, and each record's level index (-1 for NA)."""
    cls = r_class(s)
    if cls in ("factor", "ordered"):
        codes = s.cat.codes.to_numpy().astype(np.int64)
        present = np.unique(codes[codes >= 0])
        remap = np.full(len(s.cat.categories), -1, dtype=np.int64)
        remap[present] = np.arange(present.size)
        idx = np.where(codes >= 0, remap[np.where(codes >= 0, codes, 0)], -1)
        return [s.cat.categories[c] for c in present], idx
    na = s.isna().to_numpy()
    idx = np.full(len(s), -1, dtype=np.int64)
    if (~na).all() and len(s) == 0:
        return [], idx
    vals = s[~na]
    if cls == "character":  # R's sort(unique(x)) of text: the session's collation (ICU in a UTF-8 locale)
        codes, uniq = pd.factorize(vals, sort=False)
        levs, _ = r_sort_text([str(u) for u in uniq], "icu")
        pos = {v: i for i, v in enumerate(levs)}
        rank = np.asarray([pos[str(u)] for u in uniq], dtype=np.int64)
        idx[~na] = rank[codes] if len(rank) else codes
        return levs, idx
    codes, uniq = pd.factorize(vals, sort=True)
    idx[~na] = codes
    levs = list(uniq)
    return levs, idx


@measure(SUDA2_PARAMS, engine="SUDA2 searches the minimal sample uniques of every record's key subsets, which "
                              "needs the records themselves in memory")
def suda2(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    *,
    missing: float = -999,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
) -> Suda2Result:
    """SUDA2 special-uniques scores and DIS-SUDA risk of each record.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row.
    key_vars : str or list of str
        The categorical key variables (at least 2; sdcMicro fails with one).
    missing : float, default -999
        The missing-value code: missing key values become this code, and key values equal
        to it (after truncation to an integer) never form part of a minimal sample unique.
    dis_fraction : float, default 0.01
        Sampling fraction for the DIS-SUDA score (sdcMicro's ``DisFraction``); 0 means 0.5.
    original_scores : bool, default True
        Score weights of Elliot et al. (True) or of the IHSN implementation (False).

    Returns
    -------
    Suda2Result
        ``score``, ``dis_score``, ``contribution_percent``, ``attribute_contributions``,
        ``attribute_level_contributions``.

    Raises
    ------
    InvalidParameterError
        Fewer than 2 key variables or fewer than 2 records, a key with no non-missing
        value (sdcMicro fails on each), more than 20 keys, unknown columns, a non-finite ``dis_fraction``, a ``missing`` code outside
        the 32-bit integer range.

    Warns
    -----
    DegenerateResultWarning
        With 2 keys (sdcMicro adds a constant dummy variable and warns that the result
        might be wrong), and when a result is NaN (no score at all; DIS-SUDA on files
        where sdcMicro's unique count is 0).
    CoercionWarning
        Non-integer or huge key values (truncated to 32-bit ints as in sdcMicro), text keys.

    See Also
    --------
    measure_risk, freq_calc

    Notes
    -----
    Reproduces sdcMicro 5.8.0's ``suda2(data, variables, missing, DisFraction,
    original_scores)``:

    * Keys go through R's ``as.numeric`` (categoricals by their codes), missing values
      become ``missing``, and sdcMicro's C++ truncates every value to a 32-bit int. This is
      the data.frame method's semantics: **text keys become NA** (every record then matches
      every other on that key). sdcMicro's ``suda2(sdcObj)`` sees text keys as factors,
      because ``createSdcObj`` converts them; :class:`pysdc.SdcProblem` (and the command
      line) does the same (:func:`pysdc.problem.as_sdc_keys`).
    * A minimal sample unique (MSU) of a record is a set of keys on which it is unique
      and no proper subset of which makes it unique; MSUs of every size up to the number
      of keys are counted. Missing codes are not wildcards: for counting they are an
      ordinary value, but a key where the record itself is missing never belongs to one
      of its MSUs. Records whose whole key combination occurs twice or more score 0.
    * ``score = sum_k n_k w_k`` over MSU sizes ``k`` with ``w_k = (p - k)!`` or, with
      ``original_scores=False``, ``(2**(p-k) - 1) k! (p-k)! / p!``, ``p`` the number of
      keys (3 with 2 keys: one constant dummy is added).
    * ``contribution_percent`` is a fraction of the score, not a percentage. When two
      items (variable = value) hold exactly the same records ("aliases"), sdcMicro credits
      an MSU of 3 or more keys to the earlier variable and drops 2-key MSUs made only of
      aliases; pysdc does the same.
    * DIS-SUDA follows sdcMicro's C++, single-precision pieces included: with ``U`` the
      number of records alone in a bucket of its 16-bit hash of the key values (sdcMicro's
      stand-in for the number of sample uniques) and ``P`` twice the number of
      combinations held by exactly two records, ``D = U f / (U f + P (1 - f))``,
      ``Q = 1 + (8 - p) / 20`` and
      ``dis = 1 / (1 + (U / D - U) / (score**Q * sum(score**-Q)))``. On large files
      (several hundred thousand records) no record is alone in a hash bucket, ``U = 0``
      and every record with a score gets NaN, as in sdcMicro.
      ``U / D - U`` is ``P (1 - f) / f`` in exact arithmetic, but sdcMicro computes it in
      single precision, so its rounding depends on ``U``, and ``U`` on the key *codes*: the
      same data with the levels of a factor key in another order (R's collation against
      pandas' code point order, or laeken's ``eusilc`` with ``rb090`` levels
      ``male, female`` against the same file read from CSV, ``female, male``) moves every
      DIS-SUDA score by the same factor, up to about 1e-7 relative (6.6e-8 on eusilc).
      pysdc reproduces this exactly, given the same codes; the case is stored
      (``r_reference/outputs/createSdcObj.json``).
    * ``attribute_contributions`` and ``attribute_level_contributions`` are computed from
      ``contribution_percent * score`` as in sdcMicro's R code; the levels are each key's
      sorted distinct values as given (category labels for categoricals, in category
      order; text sorted as R sorts it in a UTF-8 locale, ICU's collation:
      :func:`pysdc.core.collate.r_sort_text`). sdcMicro stacks the levels of all keys in one column, so when the first key
      is a factor the values of later non-factor keys become NA ("invalid factor level"
      warning) and after a numeric first key factor labels become text; pysdc keeps each
      key's own values.

    References
    ----------
    .. [1] Elliot, M. J., Manning, A., Mayes, K., Gurd, J. and Bane, M. (2005). SUDA: A
       program for detecting special uniques. UNECE/Eurostat work session on statistical
       data confidentiality, Geneva.
    .. [2] Manning, A. M., Haglin, D. J. and Keane, J. A. (2008). A recursive search
       algorithm for statistical disclosure assessment. Data Min. Knowl. Disc. 16, 165-196.

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    >>> r = pysdc.risk._suda2.suda2(df, ["a", "b", "c"])
    >>> r.score.tolist()
    [2.0, 4.0, 2.0]
    >>> r.attribute_contributions["contribution"].tolist()
    [50.0, 37.5, 37.5]
    """
    key_vars = list(key_vars)
    p = len(key_vars)
    n = len(data)
    if p < 2:
        raise InvalidParameterError(
            f"key_vars must name at least 2 columns; got {key_vars}. sdcMicro's suda2 fails with one key "
            "variable (\"'x' must be an array of at least two dimensions\"); add a second key."
        )
    if n < 2:
        raise InvalidParameterError(
            f"data must have at least 2 records; got {n}. sdcMicro's suda2 fails on "
            + ("an empty data set (\"Dataset is empty\")." if n == 0 else
               "a single record (\"'x' must be an array of at least two dimensions\").")
        )
    empty = [k for k in key_vars if bool(data[k].isna().all())]
    if empty:
        raise InvalidParameterError(
            f"key_vars: key column(s) {empty} have no non-missing value; sdcMicro's suda2 fails on such a key "
            "(\"non-numeric argument to binary operator\", in its attribute-level contributions). Drop the "
            "column from key_vars."
        )
    values = _int_keys(data, key_vars, missing)
    if p < 3:
        warnings.warn(_DUMMY_WARNING.format(p=p), DegenerateResultWarning, stacklevel=user_stacklevel())
        values = values + [np.ones(n, dtype=np.int32)] * (3 - p)
    core = suda2_core(values, int(np.trunc(missing)), dis_fraction, original_scores)
    del values

    rows = core.rows  # the records that can score (one per candidate combination)
    score = core.per_record("score")
    dis_score = core.per_record("dis_score")
    share = core.per_record("contribution")[:, :p]
    contribution_percent = pd.DataFrame(share, index=data.index, columns=key_vars)

    # R: contribs <- contributionPercent * score; 100 * (colSums(contribs) / sum(score)).
    # Records without a score add only zeros, so the sums run over the candidate rows in row order.
    order = row_order(rows, n)
    rows_sorted = rows[order]
    contribs = core.contribution[order, :p] * core.score[order, None]
    total = _ld_sum(core.score[order])
    tots = np.array([_ld_sum(contribs[:, j]) for j in range(p)])
    with np.errstate(invalid="ignore", divide="ignore"):
        attr = 100.0 * (tots / total)
    attribute_contributions = pd.DataFrame({"variable": key_vars, "contribution": attr})

    rows_var, rows_attr, rows_val = [], [], []
    for j, k in enumerate(key_vars):
        levs, idx = _levels(data[k])
        lev_of = idx[rows_sorted]
        ok = lev_of >= 0
        lev_ok = lev_of[ok]
        if len(levs) < 2**15:  # NumPy's stable sort of small ints is a radix sort
            lev_ok = lev_ok.astype(np.int16)
        by_level = np.argsort(lev_ok, kind="stable")
        vals = contribs[ok, j][by_level].astype(np.longdouble)
        sorted_lev = lev_of[ok][by_level]
        sums = np.zeros(len(levs), dtype=np.float64)
        if vals.size:
            starts = np.flatnonzero(np.r_[True, sorted_lev[1:] != sorted_lev[:-1]])
            sums[sorted_lev[starts]] = np.add.reduceat(vals, starts).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            lev_contrib = (100.0 * sums) / tots[j]
        rows_var += [k] * len(levs)
        rows_attr += list(levs)
        rows_val.append(lev_contrib)
    attribute_level_contributions = pd.DataFrame({
        "variable": rows_var,
        "attribute": pd.Series(rows_attr, dtype=object),
        "contribution": np.concatenate(rows_val) if rows_val else np.zeros(0),
    })

    if np.isnan(dis_score).any():
        warnings.warn(
            "suda2: DIS-SUDA scores are NaN, as in sdcMicro: its count of sample uniques (records alone in "
            "a bucket of its 16-bit hash) is 0, which happens on large files; the SUDA scores are valid.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    if total == 0:
        warnings.warn(
            "suda2: no record has a minimal sample unique (every score is 0), so the attribute "
            "contributions are 0/0 = NaN, as in sdcMicro.",
            DegenerateResultWarning,
            stacklevel=user_stacklevel(),
        )
    return Suda2Result(
        score=score,
        dis_score=dis_score,
        contribution_percent=contribution_percent,
        attribute_contributions=attribute_contributions,
        attribute_level_contributions=attribute_level_contributions,
        key_vars=tuple(key_vars),
        dis_fraction=float(dis_fraction),
        original_scores=bool(original_scores),
    )
