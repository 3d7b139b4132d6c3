"""Probabilistic record linkage (Fellegi--Sunter, EM) as a disclosure-risk measure, native.

Kernels: :func:`pysdc.core.linkage.pattern_counts` (candidate pairs per agreement pattern, counted
within blocks without enumerating them), :func:`~pysdc.core.linkage.fs_em`,
:func:`~pysdc.core.linkage.fs_weights` and :func:`~pysdc.core.linkage.fs_classify`.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import Any_, Columns, Frame, Interval, user_stacklevel
from ..core.linkage import fs_classify, fs_em, fs_weights, pattern_counts, true_pattern_counts
from ._linkage_vars import check_vars_in, own_original

__all__ = ["prob_linkage", "ProbLinkageResult", "PROB_LINKAGE_PARAMS"]

PROB_LINKAGE_PARAMS = {
    "x": Frame(),
    "y": Frame(),
    "vars": Columns(of="x"),
    "block": Columns(of="x", optional=True),
    "bins": Any_(),
    "x_id": Columns(of="x", single=True, optional=True),
    "y_id": Columns(of="y", single=True, optional=True),
    "false_link_rate": Interval(low=0.0, high=1.0, closed="neither"),
    "false_nonlink_rate": Interval(low=0.0, high=1.0, closed="neither"),
    "max_iter": Interval(low=1.0),
    "tol": Interval(low=0.0, closed="neither"),
}


@dataclass(frozen=True, eq=False, repr=False)
class ProbLinkageResult(_Repr):
    """Result of :func:`pysdc.prob_linkage`.

    Attributes
    ----------
    precision : float
        The share of linked pairs that are true matches (a protected record with its own
        original): how far an attacker can trust a link.
    risk : float
        True matches among the linked pairs over the protected records that have an own original
        (the handbook's "number of matches over the number of records in file A").
    linked_pairs, clerical_pairs, candidate_pairs : int
        Pairs above the upper threshold (linked), between the thresholds (possible links, for
        clerical review), and all candidate pairs (within blocks).
    true_links : int
        Linked pairs that are true matches.
    m, u : pandas.Series
        Per comparison variable: P(agree | match), P(agree | non-match), estimated by EM.
    p : float
        Estimated share of matches among the candidate pairs.
    lt, nlt : float
        The thresholds on the linkage weight (log2 likelihood ratio): pairs with weight >= ``lt``
        are linked, pairs with weight <= ``nlt`` non-linked.
    patterns : pandas.DataFrame
        One row per agreement pattern: an agreement column per variable (True/False), ``pairs``,
        ``true_pairs``, ``weight``, ``m_prob``, ``u_prob`` and ``status`` (``"link"``,
        ``"possible"``, ``"non-link"``).
    iterations : int
        EM iterations.
    converged : bool
        Whether the EM's log-likelihood changed by less than ``tol`` (relative).
    """

    precision: float
    risk: float
    linked_pairs: int
    clerical_pairs: int
    candidate_pairs: int
    true_links: int
    m: pd.Series
    u: pd.Series
    p: float
    lt: float
    nlt: float
    patterns: pd.DataFrame
    iterations: int
    converged: bool

    def __float__(self) -> float:
        return float(self.risk)


def _codes_pair(sx: pd.Series, sy: pd.Series, edges) -> tuple:
    """Shared codes of one comparison variable in both files (-1: missing)."""
    if edges is not None:
        vx = sx.to_numpy(dtype=np.float64, na_value=np.nan)
        vy = sy.to_numpy(dtype=np.float64, na_value=np.nan)
        cx = np.where(np.isnan(vx), -1, np.searchsorted(edges, vx, side="right")).astype(np.int64)
        cy = np.where(np.isnan(vy), -1, np.searchsorted(edges, vy, side="right")).astype(np.int64)
        return cx, cy
    both = pd.concat([sx.astype("string"), sy.astype("string")], ignore_index=True)
    codes = pd.factorize(both, use_na_sentinel=True)[0].astype(np.int64)
    return codes[: sx.size], codes[sx.size:]


def _edges(name: str, s: pd.Series, bins) -> np.ndarray:
    """Inner class boundaries of a numeric variable: quantiles of the original file, or given ones."""
    if isinstance(bins, dict):
        if name not in bins:
            bins_v = 10
        else:
            bins_v = bins[name]
    else:
        bins_v = bins
    if isinstance(bins_v, numbers.Integral) and not isinstance(bins_v, bool):
        if bins_v < 1:
            raise InvalidParameterError(f"bins for {name!r} must be a positive number of classes; got {bins_v}.")
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        v = v[np.isfinite(v)]
        if v.size == 0:
            return np.zeros(0)
        q = np.quantile(v, np.arange(1, bins_v) / bins_v)
        return np.unique(q)
    try:
        e = np.sort(np.asarray(list(bins_v), dtype=np.float64))
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"bins for {name!r} must be a number of quantile classes or a list of class boundaries; got {bins_v!r}."
        ) from None
    if not np.all(np.isfinite(e)):
        raise InvalidParameterError(f"bins for {name!r}: class boundaries must be finite; got {list(bins_v)!r}.")
    return e


@measure(PROB_LINKAGE_PARAMS, selects="variables", paired=False, by_name=True, second="y",
         engine="the pattern counts need both files' codes in memory (pandas handles 1e6 x 1e6 with blocking)")
def prob_linkage(x, y, vars, *, block=None, bins=10, x_id=None, y_id=None, false_link_rate=0.001,
                 false_nonlink_rate=0.05, max_iter=1000, tol=1e-10):
    """Probabilistic record linkage (Fellegi and Sunter 1969) and the share of correct links.

    The attacker compares every candidate pair (one original, one protected record) on the
    comparison variables, estimates by EM how likely each agreement pattern is among matches
    (m) and non-matches (u), and links the pairs whose likelihood ratio is high enough for the
    accepted error rates (Jaro 1989; Torra and Domingo-Ferrer 2003).

    Parameters
    ----------
    x : pandas.DataFrame
        The original data (the attacker's external file).
    y : pandas.DataFrame
        The protected data.
    vars : list of str
        Comparison variables (columns of both files). Categories, text and logical agree when
        equal; numeric variables are categorised first (``bins``), as the handbook says, and
        agree when in the same class. A missing value never agrees.
    block : list of str, optional
        Blocking variables: only pairs with equal values are candidates (missing: none). Needed
        for large files: the number of candidate pairs is the sum over blocks of
        ``n_x * n_y``. The pairs are counted per agreement pattern, never enumerated.
    bins : int, or dict of variable -> int or list of boundaries
        Numeric variables: the number of quantile classes of the original file (default 10),
        or the class boundaries.
    x_id, y_id : str, optional
        Id columns telling which original each protected record comes from (both or neither).
        Without them, record i of ``y`` is record i of ``x``.
    false_link_rate : float
        The accepted P(link | non-match) (the handbook's P(LP|U), ``mu``).
    false_nonlink_rate : float
        The accepted P(non-link | match) (P(NP|M), ``lambda``).
    max_iter : int
        EM iterations at most.
    tol : float
        EM convergence: relative change of the log-likelihood.

    Returns
    -------
    ProbLinkageResult

    Notes
    -----
    The model assumes the comparison variables independent within matches and within
    non-matches (Fellegi--Sunter). EM starts from m = 0.9, u = the agreement shares over all
    candidate pairs and p = min(n_x, n_y) / candidate pairs. The patterns are ordered by their
    weight ``log2(m(pattern) / u(pattern))``; the link set is the longest head whose u-probabilities
    sum to at most ``false_link_rate``, the non-link set the longest tail whose m-probabilities sum
    to at most ``false_nonlink_rate`` (patterns of equal weight are never split; Fellegi and
    Sunter's randomised decision at the boundary is not used). Cross-checked against Splink's EM
    (tests/risk/test_prob_linkage.py).
    """
    check_vars_in("y", vars, y)
    truth = own_original(x, y, x_id, y_id)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise InvalidParameterError("x and y must both have records to link.")
    if isinstance(bins, dict):
        unknown = [k for k in bins if k not in vars]
        if unknown:
            raise InvalidParameterError(f"bins names {unknown}, which are not comparison variables {list(vars)}.")
    codes_x, codes_y = [], []
    for v in vars:  # loop over variables
        numeric = r_class(x[v]) in ("numeric", "integer") and r_class(y[v]) in ("numeric", "integer")
        edges = _edges(v, x[v], bins) if numeric else None
        cx, cy = _codes_pair(x[v], y[v], edges)
        codes_x.append(cx)
        codes_y.append(cy)
    if block:
        check_vars_in("y", block, y)
        keys = pd.concat([x[block], y[block]], ignore_index=True).astype(object)
        bc = pd.MultiIndex.from_frame(keys).factorize()[0] if len(block) > 1 else pd.factorize(keys[block[0]])[0]
        bc = np.where(keys.isna().any(axis=1).to_numpy(), -1, bc).astype(np.int64)
        bx, by = bc[: x.shape[0]], bc[x.shape[0]:]
    else:
        bx = np.zeros(x.shape[0], dtype=np.int64)
        by = np.zeros(y.shape[0], dtype=np.int64)
    k = len(vars)
    counts = pattern_counts(codes_x, codes_y, bx, by)
    true_counts = true_pattern_counts(codes_x, codes_y, bx, by, truth)
    n_pairs = int(counts.sum())
    if n_pairs == 0:
        raise InvalidParameterError("there are no candidate pairs (no block value occurs in both files).")
    p0 = min(max(min(x.shape[0], y.shape[0]) / n_pairs, 1e-9), 0.5)
    em = fs_em(counts, k, p0=p0, max_iter=int(max_iter), tol=tol)
    if not em["converged"]:
        warnings.warn(f"prob_linkage: the EM did not converge in {int(max_iter)} iterations; raise max_iter.",
                      DegenerateResultWarning, stacklevel=user_stacklevel())
    w, pm, pu = fs_weights(em["m"], em["u"])
    status, lt, nlt = fs_classify(w, pm, pu, false_link_rate, false_nonlink_rate)
    linked = int(counts[status == 2].sum())
    clerical = int(counts[status == 1].sum())
    true_links = int(true_counts[status == 2].sum())
    n_own = int(np.sum(truth >= 0))
    bits = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1
    patterns = pd.DataFrame({v: bits[:, j].astype(bool) for j, v in enumerate(vars)})
    patterns["pairs"] = counts
    patterns["true_pairs"] = true_counts
    patterns["weight"] = w
    patterns["m_prob"] = pm
    patterns["u_prob"] = pu
    patterns["status"] = pd.Categorical(np.array(["non-link", "possible", "link"])[status],
                                        categories=["link", "possible", "non-link"])
    patterns = patterns.sort_values("weight", ascending=False, kind="stable").reset_index(drop=True)
    return ProbLinkageResult(
        precision=true_links / linked if linked else float("nan"),
        risk=true_links / n_own if n_own else float("nan"),
        linked_pairs=linked, clerical_pairs=clerical, candidate_pairs=n_pairs, true_links=true_links,
        m=pd.Series(em["m"], index=list(vars), name="m"), u=pd.Series(em["u"], index=list(vars), name="u"),
        p=float(em["p"]), lt=lt, nlt=nlt, patterns=patterns, iterations=int(em["iterations"]),
        converged=bool(em["converged"]))
