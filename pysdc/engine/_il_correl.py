"""sdcMicro's IL_correl on an engine, from each side's moments."""

from __future__ import annotations

import numpy as np

from .._errors import InvalidParameterError
from .._results import ILCorrelResult
from ..core.correl import correl_variables, r_solve_inverse
from ..core.eigen import cor_from_cov
from ._passes import _fnum, _lit, _run

__all__ = ["il_correl_engine"]


# =============================================================================
# IL_correl


def il_correl_engine(x, xm, normalization) -> ILCorrelResult:
    return _correl_unpaired(x, xm, _correl_variables(x, xm), normalization)


def _correl_unpaired(x, xm, variables, normalization) -> ILCorrelResult:
    diags, counts = [], []
    for t, which in ((x, "x"), (xm, "xm")):
        d, n_rec = _run(t, _correl_side(t.fsum(), [t.num(v) for v in variables], variables, which))
        diags.append(d)
        counts.append(n_rec)
    return _correl_result(diags, counts, variables, normalization)


def _correl_variables(x, xm, among=None) -> list:
    """IL_correl's variables: the common ones (of ``among``, if given) numeric in both, sorted; validated."""
    xm_cols = set(xm.columns)
    common = [c for c in x.columns if c in xm_cols and c not in (x.id, xm.id) and (among is None or c in among)]
    return correl_variables(common, x.rclass, xm.rclass)


def _correl_side(fs, cols: list[str], variables: list, which: str):
    """One side of IL_correl (a plan): the normalised diagonal of the inverse correlation matrix of the
    complete records, and the number of records."""
    p = len(cols)
    complete = " AND ".join(f"{c} IS NOT NULL" for c in cols)
    first = yield (["count(*)", f"sum(CASE WHEN {complete} THEN 1 ELSE 0 END)"]
                   + [f"{fs}(CASE WHEN {complete} THEN {c} END)" for c in cols])
    n_rec, k = int(first[0]), int(first[1])
    if k == 0:
        raise InvalidParameterError(
            f"{which} has no record that is complete in the variables {variables[:10]}; sdcMicro's IL_correl "
            "fails here too (no complete element pairs)."
        )
    if k < 2:
        C = np.full((p, p), np.nan)
    else:
        means = [_fnum(s) / k for s in first[2:]]
        pairs = [(i, j) for i in range(p) for j in range(i, p)]

        def within(expr):
            return expr if k == n_rec else f"CASE WHEN {complete} THEN {expr} END"

        exprs = [f"{fs}({within(f'({cols[i]} - {_lit(means[i])}) * ({cols[j]} - {_lit(means[j])})')})"
                 for i, j in pairs]
        S = np.empty((p, p))
        for (i, j), s in zip(pairs, (yield exprs)):
            S[i, j] = S[j, i] = _fnum(s) / (k - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            C = np.clip(cor_from_cov(S), -1.0, 1.0)
    cause = "" if np.isfinite(C).all() else "a constant or infinite variable, or too few complete records"
    d = np.diag(r_solve_inverse(C, which, cause))
    return d / np.sqrt(d @ d), n_rec


def _correl_result(diags, counts, variables, normalization) -> ILCorrelResult:
    a, b = diags
    factor = 1.0 / np.sqrt(2.0) if normalization == "sdcmicro" else 0.5
    value = float(factor * np.sqrt(np.sum((a - b) ** 2)))
    return ILCorrelResult(value=value, n_vars=len(variables), n_x=counts[0], n_xm=counts[1], variables=tuple(variables))
