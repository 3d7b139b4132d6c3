"""sdcMicro's dUtility (IL1, IL1s, eigen) on an engine, from column moments and cross-products."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._results import DUtilityResult
from .._types import NUMERIC_MATRIX_CLASSES
from .._validation import same_columns, user_stacklevel
from ..core.dutility import CELLWISE_METHODS, D_UTILITY_METHODS
from ..core.eigen import degenerate, eigen_result, eigenvalues
from ._passes import _fnum, _lit, _paired, _run, _together

__all__ = ["d_utility_engine", "ENGINE_METHODS"]

#: the dUtility methods an engine computes (robeigen's MCD iterates on random subsets in memory: refused below)
ENGINE_METHODS = tuple(m for m in D_UTILITY_METHODS if m != "robeigen")


# =============================================================================
# dUtility


def _refuse_non_numeric(name: str, t, cols) -> None:
    bad = [(c, t.rclass(c)) for c in cols if t.rclass(c) not in NUMERIC_MATRIX_CLASSES]
    if bad:
        shown = ", ".join(f"{c!r} ({cls})" for c, cls in bad[:5])
        raise InvalidParameterError(
            f"d_utility needs numeric variables, but {name} has non-numeric column(s) {shown}; sdcMicro's dUtility "
            "cannot compute distances on them either. Select the continuous variables."
        )


def _d_utility_checks(x, xm, method, average, random_state) -> tuple[list, bool]:
    """Validate a d_utility call on an engine; returns x's variables and whether eigen is NaN up front."""
    if method == "robeigen":
        raise InvalidParameterError(
            "d_utility(method='robeigen') does not run on an engine: the MCD draws random subsets of the records "
            "and iterates on them in memory. Use method='eigen' (exact on the engine), or compute robeigen on a "
            "sample read into pandas."
        )
    if average and method not in CELLWISE_METHODS:
        raise InvalidParameterError(
            f"average=True applies to the cell-wise measures 'IL1' and 'IL1s' only; got method={method!r}."
        )
    if random_state is not None:
        warnings.warn(
            f"d_utility: random_state is used only by method='robeigen' (its random MCD subsets); "
            f"method={method!r} is deterministic and ignores it.",
            PysdcWarning, stacklevel=user_stacklevel(),
        )
    cols_x = [c for c in x.columns if c != x.id]
    cols_m = [c for c in xm.columns if c != xm.id]
    same_columns(pd.DataFrame(columns=cols_x), pd.DataFrame(columns=cols_m))  # refuses different variables
    if not cols_x:
        raise InvalidParameterError("x has no columns; pass at least one numeric variable.")
    if method == "eigen":
        non_numeric = sorted({str(c) for t in (x, xm) for c in cols_x if t.rclass(c) not in NUMERIC_MATRIX_CLASSES})
        if non_numeric:
            warnings.warn(
                f"d_utility(method='eigen') is NaN: column(s) {non_numeric[:5]} are not numeric, so the data "
                "cannot be standardised; sdcMicro returns NA here. Select the continuous variables.",
                DegenerateResultWarning, stacklevel=user_stacklevel(),
            )
            return cols_x, True
    else:
        _refuse_non_numeric("x", x, cols_x)
        _refuse_non_numeric("xm", xm, cols_x)
    return cols_x, False


def d_utility_engine(x, xm, method, average, random_state) -> DUtilityResult:
    cols_x, nan_eigen = _d_utility_checks(x, xm, method, average, random_state)
    p = len(cols_x)
    if nan_eigen:
        return DUtilityResult(value=float("nan"), method=method, n=x.count(), n_vars=p, average=average)
    t = _paired(x, xm, cols_x, cols_x)
    js = list(range(p))
    return _run(t, _d_utility_plan(t.fsum(), js, method, average, cols_x))


def _d_utility_plan(fs, js, method, average, cols):
    """dUtility(method) over the paired columns x{j}, m{j} for j in ``js``."""
    p = len(js)
    if method in CELLWISE_METHODS:
        n, value = yield from _il1(fs, js, method, average, cols)
    else:
        n, value = yield from _eigen(fs, js)
    return DUtilityResult(value=value, method=method, n=n, n_vars=p, average=average)


def _counts_means(first: list) -> tuple[np.ndarray, list]:
    """Counts and means from a round's alternating ``count(c)``, ``sum(c)`` values."""
    k = np.array(first[0::2])
    return k, [(_fnum(s) / kk if kk else float("nan")) for s, kk in zip(first[1::2], k)]


def _il1s_total(k, ss, dsum, dmax, cols, n) -> float:
    """IL1s: sum over variables of sum|x - xm| / (sd(x) sqrt 2) from x's counts ``k``, centred sums of squares
    ``ss`` and the paired sums and maxima of |x - xm|."""
    few = k < 2
    if few.any() and n:
        warnings.warn(
            f"d_utility(method='IL1s'): column(s) {[str(c) for c, f in zip(cols, few) if f][:5]} of x have fewer "
            "than two non-missing values, so their standard deviation is undefined (R's sd is NA) and every "
            "cell of them is dropped: they add 0 to the sum however much they changed. sdcMicro returns the "
            "same number. Use method='IL1' or more records.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    total = 0.0
    for q in range(len(k)):
        if k[q] < 2:
            continue
        sd = math.sqrt(_fnum(ss[q]) / (k[q] - 1))
        d = 0.0 if dsum[q] is None else dsum[q]
        if sd == 0.0:
            total += float("inf") if (dmax[q] is not None and dmax[q] > 0) else 0.0
        else:
            total += d / (sd * math.sqrt(2.0))
    return total


def _il1(fs, js, method, average, cols):
    p = len(js)
    inf = _lit(float("inf"))
    total = 0.0
    if method == "IL1":
        # 100 * |x - xm| / |x|; Inf (x == 0), NaN and NA cells dropped
        exprs = ["count(*)"]
        for j in js:
            # nullif: x == 0 (Inf in R, dropped) without a division by zero (an error in ANSI Spark)
            v = f"(CAST('100.0' AS DOUBLE) * abs(x{j} - m{j}) / abs(nullif(x{j}, CAST('0' AS DOUBLE))))"
            exprs.append(f"{fs}(CASE WHEN NOT isnan({v}) AND abs({v}) <> {inf} THEN {v} END)")
        got = yield exprs
        n = int(got[0])
        for s in got[1:]:
            total += 0.0 if s is None else s
    else:
        first = yield ["count(*)"] + [e for j in js for e in (f"count(x{j})", f"{fs}(x{j})")]
        n = int(first[0])
        k, means = _counts_means(first[1:])
        exprs = []
        for j, mean in zip(js, means):
            exprs += [f"{fs}((x{j} - {_lit(mean)}) * (x{j} - {_lit(mean)}))",
                      f"{fs}(abs(x{j} - m{j}))", f"max(abs(x{j} - m{j}))"]
        second = (yield exprs) if n else [None] * len(exprs)
        total = _il1s_total(k, second[0::3], second[1::3], second[2::3], cols, n)
    return n, _il1_value(total, n, p, method, average)


def _il1_value(total: float, n: int, p: int, method: str, average: bool) -> float:
    if n == 0:
        warnings.warn(
            f"d_utility(method={method!r}) is 0, as in sdcMicro (the sum over no cells), because x and xm have no "
            "records: it does not mean that nothing was lost. Check the input.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
        return 0.0
    if average:
        total = total / (n * p) if n * p else float("nan")
    return degenerate(total, f"d_utility(method={method!r})")


def _pairwise_cov_of_scaled(fs, names: list[str]):
    """R's ``var(scale(X), use = "pairwise.complete.obs")`` of the columns ``names``, in three rounds
    (a plan; returns the matrix and the number of records). Columns without a missing value need no
    pairwise condition: their expressions are plain sums, shared between the pairs."""
    p = len(names)
    first = yield ["count(*)"] + [e for c in names for e in (f"count({c})", f"{fs}({c})")]
    n = int(first[0])
    first = first[1:]
    k = np.array(first[0::2])
    if n < 2:
        return np.full((p, p), np.nan), n
    full = k == n
    means = [(_fnum(s) / kk if kk else float("nan")) for s, kk in zip(first[1::2], k)]
    pairs = [(i, j) for i in range(p) for j in range(i, p)]

    def within(i, j, expr):  # expr over the records where both names[i] and names[j] are present
        if full[i] and full[j]:
            return expr
        return f"CASE WHEN {names[i]} IS NOT NULL AND {names[j]} IS NOT NULL THEN {expr} END"

    def centred(i):
        return f"({names[i]} - {_lit(means[i])})"

    exprs = [f"{fs}({centred(i)} * {centred(i)})" for i in range(p)]
    for i, j in pairs:
        exprs += ["count(*)" if full[i] and full[j] else f"sum({within(i, j, '1')})",
                  f"{fs}({within(i, j, centred(i))})", f"{fs}({within(i, j, centred(j))})"]
    # two columns without a missing value: their centred cross-product now, not in a third pass (below)
    exprs += [f"{fs}({centred(i)} * {centred(j)})" for i, j in pairs if full[i] and full[j]]
    second = yield exprs
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.array([math.sqrt(_fnum(s) / (kk - 1)) if kk >= 2 else float("nan") for s, kk in zip(second[:p], k)])
    out = np.full((p, p), np.nan)
    exprs, keep = [], []
    cross = iter(second[p + 3 * len(pairs):])
    for q, (i, j) in enumerate(pairs):
        kij, si, sj = second[p + 3 * q: p + 3 * q + 3]
        kij = int(kij or 0)
        sij = next(cross) if full[i] and full[j] else None
        if kij < 2 or not (np.isfinite(sd[i]) and np.isfinite(sd[j])) or sd[i] == 0 or sd[j] == 0:
            continue
        # z = (x - mean) / sd; the pair's means of z over the records where both are present
        ai = (_fnum(si) / sd[i]) / kij
        aj = (_fnum(sj) / sd[j]) / kij
        if sij is not None:
            # all records: z is centred on the same means, so ai and aj are rounding (sum(x - mean) / n)
            # and sum((zi - ai)(zj - aj)) = sum(zi zj) - k ai aj without cancellation
            out[i, j] = out[j, i] = (_fnum(sij) / (sd[i] * sd[j]) - kij * ai * aj) / (kij - 1)
            continue
        zi = f"(({names[i]} - {_lit(means[i])}) / {_lit(sd[i])} - {_lit(ai)})"
        zj = f"(({names[j]} - {_lit(means[j])}) / {_lit(sd[j])} - {_lit(aj)})"
        exprs.append(f"{fs}({within(i, j, f'{zi} * {zj}')})")
        keep.append((i, j, kij))
    third = (yield exprs) if exprs else []
    for (i, j, kij), s in zip(keep, third):
        out[i, j] = out[j, i] = _fnum(s) / (kij - 1)
    return out, n


def _eigen(fs, js):
    (S1, n), (S2, _) = yield from _together([_pairwise_cov_of_scaled(fs, [f"x{j}" for j in js]),
                                             _pairwise_cov_of_scaled(fs, [f"m{j}" for j in js])])
    return n, _eigen_value((S1, n), (S2, n))


def _eigen_value(side_x, side_m) -> float:
    """dUtility's eigen from the two sides' (covariance of the standardised data, n)."""
    S1, S2 = side_x[0], side_m[0]
    if not (np.isfinite(S1).all() and np.isfinite(S2).all()):
        warnings.warn(
            "d_utility(method='eigen') is NaN: a covariance of the standardised data could not be computed (a "
            "constant or infinite column, or fewer than two complete pairs of records); sdcMicro returns NA here.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
        return float("nan")
    return eigen_result(eigenvalues(S1), eigenvalues(S2), "eigen")
