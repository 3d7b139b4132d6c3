"""Local suppression, as sdcMicro 5.8.0 does it: ``localSuppression`` (k-anonymity) and ``localSupp``
(a threshold on the individual risk).

``local_suppression`` sets key values to missing until every record shares its key values with at
least ``k - 1`` others (missing values match every category, as in :func:`pysdc.freq_calc`), with
sdcMicro's heuristic and tie rule (see :mod:`pysdc.core.suppress`), per stratum and, with ``combs``,
on every subset of the keys of the given sizes. ``local_supp`` suppresses one key where the individual
risk exceeds a threshold. The input is never modified; the behaviour was observed by running
sdcMicro 5.8.0 (R 4.2.2) and is pinned by ``r_reference/cases/localSuppression.json`` and
``localSupp.json``.
"""

from __future__ import annotations

import itertools
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, user_stacklevel
from .._types import r_class
from .._validation import Columns, Constraint, Frame, Interval, Options, validate_params
from ..core.freq import series_codes
from ..core.suppress import default_importance, supp_subset

__all__ = ["local_suppression", "local_supp", "LocalSuppressionResult", "apply_suppression"]


@dataclass(frozen=True)
class LocalSuppressionResult:
    """sdcMicro's ``localSuppression`` object, with the suppressed data.

    Attributes
    ----------
    data : DataFrame
        The input with the suppressed key values missing (a new frame; sdcMicro's ``xAnon`` holds
        the key variables only).
    supps : DataFrame
        New suppressions per key variable: one row (``"Total"``), or one per stratum (in order of
        first appearance) and ``"Total"``.
    total_supps : DataFrame
        Missing values per key variable after suppression (same rows).
    new_supps : int
        The number of new suppressions (sdcMicro's ``newSupps``).
    key_vars, strata_vars : list
    importance : list of int
        The importance used (sdcMicro's default: rank of the number of categories).
    k : float or list of float
    combs : list of int or None
    threshold : float or None
        ``local_supp``'s threshold (``None`` for ``local_suppression``).
    suppressed : DataFrame of bool
        pysdc's addition: which key values were newly suppressed.
    """

    data: pd.DataFrame = field(repr=False)
    supps: pd.DataFrame
    total_supps: pd.DataFrame
    new_supps: int
    key_vars: list
    strata_vars: list | None = None
    importance: list | None = None
    k: float | list | None = None
    combs: list | None = None
    threshold: float | None = None
    suppressed: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def x_anon(self) -> pd.DataFrame:
        """The key variables of :attr:`data` (sdcMicro's ``xAnon``)."""
        return self.data[self.key_vars]

    def __repr__(self) -> str:
        per = ", ".join(f"{c}={int(v)}" for c, v in self.supps.iloc[-1].items())
        return f"LocalSuppressionResult(new_supps={self.new_supps}, per key: {per})"


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


class KValues(Constraint):
    """k >= 1: one number, or (with combs) one per element of combs."""

    def check(self, name, value, values):
        vals = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
        if not vals or not all(_is_real(v) and np.isfinite(v) and v >= 1 for v in vals):
            raise InvalidParameterError(f"{name} must be a number >= 1 (or one per element of combs); got {value!r}.")
        return [float(v) for v in vals] if isinstance(value, (list, tuple, np.ndarray)) else float(value)

    def invalid_values(self, name, values):
        return [0, -1, "3", None, float("nan"), True]


class Importance(Constraint):
    """None, or one integer in 1..(number of keys) per key (sdcMicro allows repeats)."""

    def check(self, name, value, values):
        if value is None:
            return None
        keys = values.get("key_vars") or []
        vals = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        if vals is None or len(vals) != len(keys) or not all(
                _is_real(v) and float(v) == int(v) and 1 <= int(v) <= len(keys) for v in vals):
            raise InvalidParameterError(
                f"{name} must hold one integer between 1 and the number of key variables ({len(keys)}) per key "
                f"variable (sdcMicro: 'The importance vector needs to be discrete numbers between 1 and the number "
                f"of key variables.'); got {value!r}.")
        return [int(v) for v in vals]

    def invalid_values(self, name, values):
        n = len(values.get("key_vars") or [])
        return [[0] * n, [n + 1] * n, "1", [1] * (n + 1)]


class Combs(Constraint):
    """None, or subset sizes in 1..(number of keys)."""

    def check(self, name, value, values):
        if value is None:
            return None
        keys = values.get("key_vars") or []
        vals = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
        if not vals or not all(_is_real(v) and float(v) == int(v) for v in vals):
            raise InvalidParameterError(f"{name} must be None or whole numbers (subset sizes); got {value!r}.")
        vals = [int(v) for v in vals]
        if not all(v > 0 for v in vals):
            raise InvalidParameterError(f"{name}: each element must be > 0 (sdcMicro: 'each element of 'comb' must "
                                        f"be > 0!'); got {value!r}.")
        if any(v > len(keys) for v in vals):
            raise InvalidParameterError(f"{name}: an element exceeds the number of key variables ({len(keys)}) "
                                        f"(sdcMicro: 'at least one element of 'combs' is to large!'); got {value!r}.")
        return vals

    def invalid_values(self, name, values):
        return [[0], [len(values.get("key_vars") or []) + 1], "2"]


def _key_codes(data: pd.DataFrame, key_vars: list, fn: str):
    codes, cards, ncat = [], [], []
    for v in key_vars:
        s = data[v]
        cls = r_class(s)
        if cls == "character" or s.dtype == object:
            raise InvalidParameterError(
                f"{fn}: key variable {v!r} is text; sdcMicro's frequencies read it with as.numeric (non-numbers "
                f"become wildcards) and its suppression step cannot use a text matrix. Make it categorical first: "
                f"data[{v!r}] = data[{v!r}].astype('category') (createSdcObj does so).")
        c, card, _ = series_codes(s)
        codes.append(c)
        cards.append(card)
        # R's length(table(y)): every level of a factor, the distinct observed values otherwise
        ncat.append(len(s.cat.categories) if cls in ("factor", "ordered") else int(pd.unique(c[c >= 0]).size))
    return np.stack(codes, axis=1) if codes else np.zeros((len(data), 0), np.int64), np.array(cards), ncat


def _strata_labels(data: pd.DataFrame, strata_vars) -> tuple[np.ndarray, list[str]]:
    """Stratum of each record (0-based, in order of first appearance) and the labels ("a-b", NA as "NA")."""
    parts = [np.where(data[v].isna().to_numpy(), "NA", data[v].astype(str).to_numpy(dtype=object))
             for v in strata_vars]
    label = parts[0].astype(object)
    for p in parts[1:]:
        label = label + "-" + p
    codes, uniq = pd.factorize(label.astype(str))
    return codes.astype(np.int64), [str(u) for u in uniq]


def apply_suppression(data: pd.DataFrame, key_vars: list, new_na: np.ndarray) -> pd.DataFrame:
    """A new frame: ``data`` with the key values where ``new_na`` (n, len(key_vars)) is True set missing
    (integer columns become nullable ``Int64``, booleans ``boolean``, categories keep their levels)."""
    out = data.copy(deep=False)
    for j, v in enumerate(key_vars):
        m = new_na[:, j]
        if not m.any():
            continue
        s = data[v]
        if s.dtype.kind in "iu":
            s = s.astype("Int64")
        elif s.dtype.kind == "b":
            s = s.astype("boolean")
        out[v] = s.mask(m)
    return out


def _summaries(key_vars, before: np.ndarray, after: np.ndarray, strata, labels):
    cols = [str(v) for v in key_vars]
    if strata is None:
        tot = after.sum(axis=0)[None, :]
        sup = tot - before.sum(axis=0)[None, :]
        index = ["Total"]
    else:
        ns = len(labels)
        tot = np.stack([np.bincount(strata, weights=after[:, j], minlength=ns) for j in range(after.shape[1])], 1)
        bef = np.stack([np.bincount(strata, weights=before[:, j], minlength=ns) for j in range(after.shape[1])], 1)
        tot = np.vstack([tot, tot.sum(axis=0)]).astype(np.int64)
        sup = tot - np.vstack([bef, bef.sum(axis=0)]).astype(np.int64)
        index = labels + ["Total"]
    return (pd.DataFrame(sup.astype(np.int64), index=index, columns=cols),
            pd.DataFrame(tot.astype(np.int64), index=index, columns=cols))


def _rank_min(x) -> np.ndarray:
    """R's rank(x, ties.method = "min"); missing values ranked last, in order (na.last = TRUE)."""
    x = np.asarray(x, dtype=np.float64)
    na = np.isnan(x)
    ok = x[~na]
    out = np.empty(x.size, dtype=np.int64)
    out[~na] = [int((ok < v).sum()) + 1 for v in ok]
    out[na] = ok.size + 1 + np.arange(int(na.sum()))
    return out


@validate_params({
    "data": Frame(),
    "key_vars": Columns(),
    "k": KValues(),
    "importance": Importance(),
    "combs": Combs(),
    "strata_vars": Columns(optional=True, disjoint_from="key_vars"),
    "alpha": Interval(0, 1),
    "combs_importance": Options(("sdcmicro", "keys")),
})
def local_suppression(data: pd.DataFrame, key_vars, k=2, importance=None, combs=None, *, strata_vars=None,
                      alpha: float = 1.0, combs_importance: str = "sdcmicro") -> LocalSuppressionResult:
    """k-anonymity by local suppression, sdcMicro's ``localSuppression`` (``kAnon``).

    Parameters
    ----------
    data : DataFrame
    key_vars : list of str
        Categorical key variables (categories or numbers; text must be made categorical).
    k : float or list of float, default 2
        The threshold; with ``combs`` one per element of ``combs`` (or one for all).
    importance : list of int, optional
        One value in 1..len(key_vars) per key; keys with the highest value are suppressed first.
        Default (sdcMicro's): the rank of each key's number of categories (most categories first).
    combs : list of int, optional
        k-anonymity on every subset of the keys of these sizes, size after size (subsets in
        ``itertools.combinations`` order, R's ``combn``).
    strata_vars : list of str, optional
        k-anonymity within each stratum (sdcMicro's ``strataVars``; the sdcMicroObj's ``strataVar``).
    alpha : float, default 1
        Weight of wildcard matches in the frequencies (sdcMicroObj: its ``alpha`` option).
    combs_importance : {"sdcmicro", "keys"}, default "sdcmicro"
        With ``combs``, sdcMicro's data.frame method looks a subset's importance up by the keys' column
        positions in ``data`` (another key's importance unless the keys are the first columns, in
        order; a warning says so); ``"keys"`` uses each key's own importance.

    Returns
    -------
    LocalSuppressionResult
        The suppressed data and sdcMicro's counts of suppressions per key variable.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc.protect import local_suppression
    >>> df = pd.DataFrame({"a": [1, 1, 1, 2], "b": [1, 1, 1, 1]})
    >>> local_suppression(df, ["a", "b"], k=2).data["a"].isna().tolist()
    [False, False, False, True]
    """
    n_keys = len(key_vars)
    codes, cards, ncat = _key_codes(data, key_vars, "local_suppression")
    imp = default_importance(ncat) if importance is None else np.asarray(importance, dtype=np.int64)
    ks = k if isinstance(k, list) else [k]
    if combs is None:
        if len(ks) != 1:
            raise InvalidParameterError(f"k must be one number without combs; got {k!r}.")
        tasks = [(list(range(n_keys)), ks[0], imp)]
    else:
        if len(ks) != len(combs):
            ks = (ks * len(combs))[: len(combs)] if len(ks) == 1 else None
            if ks is None:
                raise InvalidParameterError(f"k must be one number or one per element of combs ({len(combs)}); "
                                            f"got {k!r}.")
        pos = [int(data.columns.get_loc(v)) for v in key_vars]
        leading = pos == list(range(n_keys))
        if not leading and strata_vars:
            raise InvalidParameterError(
                "local_suppression: with combs and strata_vars sdcMicro takes each subset's columns by their "
                "positions in the data from a table of the key variables only, so unless the key variables are "
                f"the first columns of data, in order, it suppresses in other columns (here at positions {pos}). "
                "Put them first: data[key_vars + other columns].")
        if not leading and combs_importance == "sdcmicro":
            warnings.warn(
                "local_suppression: with combs sdcMicro looks up each subset's importance by the key variables' "
                f"column positions in the data ({[p + 1 for p in pos]}), not by their place among the key "
                "variables, so the importance it uses is another key's (or missing, ranked last). pysdc does the "
                "same to return sdcMicro's suppressions; combs_importance='keys' uses each key's own importance "
                "(or put the key variables first in data, in order).",
                DegenerateResultWarning, stacklevel=user_stacklevel())
        look = pos if combs_importance == "sdcmicro" else list(range(n_keys))
        tasks = [(list(kv), kc, _rank_min([imp[look[j]] if look[j] < n_keys else np.nan for j in kv]))
                 for size, kc in zip(combs, ks) for kv in itertools.combinations(range(n_keys), size)]
    strata, labels = (None, None) if not strata_vars else _strata_labels(data, strata_vars)
    out = codes.copy()
    groups = [np.arange(len(data))] if strata is None else \
        np.split(np.argsort(strata, kind="stable"), np.cumsum(np.bincount(strata))[:-1])
    for rows in groups:
        sub = out[rows]
        for kv, kc, ci in tasks:
            new, _ = supp_subset(sub[:, kv], cards[kv], kc, ci, alpha)
            sub[:, kv] = new
        out[rows] = sub
    before = codes < 0
    after = out < 0
    sup, tot = _summaries(key_vars, before, after, strata, labels)
    new_na = after & ~before
    return LocalSuppressionResult(
        data=apply_suppression(data, key_vars, new_na), supps=sup, total_supps=tot, new_supps=int(sup.iloc[-1].sum()),
        key_vars=list(key_vars), strata_vars=list(strata_vars) if strata_vars else None,
        importance=[int(v) for v in imp], k=k, combs=combs, threshold=None,
        suppressed=pd.DataFrame(new_na, index=data.index, columns=list(key_vars)))


class Risks(Constraint):
    """One individual risk per record (array-like of floats)."""

    def check(self, name, value, values):
        try:
            arr = np.asarray(value, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{name} must be one number per record; got {type(value).__name__}.") from None
        n = len(values["data"])
        if arr.size != n:
            raise InvalidParameterError(f"{name} must hold one risk per record ({n}); got {arr.size}.")
        return arr

    def invalid_values(self, name, values):
        return ["x", [0.1]]


@validate_params({
    "data": Frame(),
    "key_vars": Columns(),
    "key_var": Columns(single=True),
    "risk": Risks(),
    "threshold": Interval(),
})
def local_supp(data: pd.DataFrame, key_vars, key_var, risk, threshold: float = 0.15) -> LocalSuppressionResult:
    """Suppress ``key_var`` where the individual risk exceeds ``threshold``: sdcMicro's ``localSupp``.

    Parameters
    ----------
    data : DataFrame
    key_vars : list of str
        The key variables (counted in the summaries).
    key_var : str
        The key variable whose values are suppressed.
    risk : array-like
        Each record's individual risk: on an sdcMicroObj sdcMicro takes ``risk$individual[, 1]``
        (:func:`pysdc.measure_risk`'s ``individual["risk"]``; on a freqCalc object ``indivRisk``).
    threshold : float, default 0.15
        Values of records with risk strictly above it are suppressed (a missing risk never is).

    Returns
    -------
    LocalSuppressionResult
        ``importance`` is None: sdcMicro fills it with a random permutation (``sample``).
    """
    if key_var not in key_vars:
        raise InvalidParameterError(f"key_var {key_var!r} must be one of key_vars {list(key_vars)} (sdcMicro: "
                                    "'invalid key variable specified!').")
    with np.errstate(invalid="ignore"):
        hit = risk > threshold
    before = np.stack([data[v].isna().to_numpy() for v in key_vars], axis=1)
    new_na = np.zeros_like(before)
    j = list(key_vars).index(key_var)
    new_na[:, j] = hit & ~before[:, j]
    after = before | new_na
    sup, tot = _summaries(key_vars, before, after, None, None)
    return LocalSuppressionResult(
        data=apply_suppression(data, key_vars, new_na), supps=sup, total_supps=tot, new_supps=int(sup.iloc[-1].sum()),
        key_vars=list(key_vars), importance=None, k=None, threshold=float(threshold),
        suppressed=pd.DataFrame(new_na, index=data.index, columns=list(key_vars)))
