"""Information loss on an engine: column moments and cross-products, in a few streaming passes.

sdcMicro's dUtility (IL1, IL1s, eigen), IL_correl and IL_variables depend on the records only
through sums over them: per-variable counts and sums (the means), then centred sums of squares and
cross-products, distance sums. Each pass is one aggregate query on the engine (the original and
masked records paired by position -- DuckDB's POSITIONAL JOIN, on Spark a join on the position in the
files (a DataFrame not read from files: ``zipWithIndex``) -- or by the
scans' ``id`` column); the small results go through pysdc's own matrix code (:mod:`pysdc.loss`)
exactly as the pandas path's matrices do. Means are taken first and the squares centred on them
(no one-pass variance formula), so the numbers agree with pandas to rounding.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError, PysdcWarning
from .._results import DUtilityResult, ILCorrelResult, ILVariablesResult
from .._validation import same_columns, user_stacklevel
from ..core.correl import correl_variables, r_solve_inverse
from ..core.eigen import cor_from_cov, degenerate, eigen_result, eigenvalues
from ..core.ilvariables import il_variables_from_sums, il_variables_kind
from ._tables import SRC, DuckTable, SparkTable, as_table

__all__ = ["d_utility_engine", "il_correl_engine", "il_variables_engine", "utility_engine"]

_NUMERIC = ("numeric", "integer", "logical")


def _lit(v: float) -> str:
    """A double literal both engines read exactly (a bare 0.1 is a DECIMAL in DuckDB)."""
    v = float(v)
    if math.isnan(v):
        return "CAST('NaN' AS DOUBLE)"
    if math.isinf(v):
        return f"CAST('{'-' if v < 0 else ''}Infinity' AS DOUBLE)"
    return f"CAST('{v!r}' AS DOUBLE)"


# =============================================================================
# pairing the records of x and xm


def _paired(x, xm, cols_x: list, cols_m: list, *, raw: bool = False):
    """A table with columns x0.. (x's cols_x) and m0.. (xm's cols_m), records paired by position or id.

    ``raw``: the columns as they are (for nominal comparisons), else doubles with NaN as NULL.
    """
    nx, nm = x.count(), xm.count()
    if nx != nm:
        raise InvalidParameterError(
            f"x has {nx} rows but xm has {nm}; the measures compare record by record, so both must hold the "
            "same records in the same order. (sdcMicro 5.8.0 fails here too.)"
        )
    if (x.id is None) != (xm.id is None):
        raise InvalidParameterError("give both x and xm an id column (pysdc.scan(..., id=COL)) or neither; records "
                                    "are paired by the id or by position.")

    def expr(t, alias, c, is_raw):
        return f"{alias}.{t.q(c)}" if is_raw else t.num(c, f"{alias}.")

    rx = raw if isinstance(raw, (list, tuple)) else [raw] * len(cols_x)
    sel = [f"{expr(x, 'a', c, r)} AS x{i}" for i, (c, r) in enumerate(zip(cols_x, rx))]
    sel += [f"{expr(xm, 'b', c, r)} AS m{i}" for i, (c, r) in enumerate(zip(cols_m, rx))]
    if isinstance(x, DuckTable):
        if x.id is not None:
            on = f"JOIN pysdc_xm b ON a.{x.q(x.id)} = b.{xm.q(xm.id)}"
        else:
            on = "POSITIONAL JOIN pysdc_xm b"
        pysdc_xm = xm.native  # noqa: F841 - read by DuckDB's replacement scan
        try:
            rel = x.native.query(SRC, f"SELECT {', '.join(sel)} FROM {SRC} a {on}")
        except Exception as exc:  # noqa: BLE001 - relations of two DuckDB connections cannot be joined
            raise InvalidParameterError(
                f"x and xm cannot be paired on DuckDB ({str(exc).splitlines()[0][:120]}); make both relations on "
                "the same DuckDB connection, or pass both as pysdc.scan(...)."
            ) from None
        return DuckTable(rel)
    if x.id is not None:
        da, db, on = x.native, xm.native, f"a.{x.q(x.id)} = b.{xm.q(xm.id)}"
    else:
        da, db, on = _with_index(x), _with_index(xm), "a.pysdc_position = b.pysdc_position"
    va, vb = f"pysdc_a_{id(da)}", f"pysdc_b_{id(db)}"
    da.createOrReplaceTempView(va)
    db.createOrReplaceTempView(vb)
    return SparkTable(x.spark.sql(f"SELECT {', '.join(sel)} FROM {va} a JOIN {vb} b ON {on}"))


def _with_index(t):
    """A Spark table's records with their 0-based positions (``pysdc_position``): the rows of the files in
    sorted order for pysdc.scan of files; for another DataFrame its own order (``zipWithIndex``)."""
    df = t.positioned()
    if df is not None:
        return df
    from pyspark.sql.types import LongType, StructField, StructType

    df = t.native
    schema = StructType(list(df.schema.fields) + [StructField("pysdc_position", LongType(), False)])
    rdd = df.rdd.zipWithIndex().map(lambda r: tuple(r[0]) + (r[1],))
    return df.sparkSession.createDataFrame(rdd, schema)


def _agg(t, exprs: list[str]) -> list:
    """One aggregate pass: the values of ``exprs`` over the table."""
    if not exprs:
        return []
    return [None if v is None else float(v) for v in t.row(f"SELECT {', '.join(exprs)} FROM {SRC}")]


# A measure is written as a plan: a generator that yields the list of aggregate expressions it needs
# next and receives their values, round after round, and returns its result. Plans run together
# (:func:`_together`) share each round's one query (an expression two plans need is computed once),
# so the five utility measures cost three passes over the records instead of one per measure and step.


def _run(t, plan):
    """Run a plan on the table ``t``: one aggregate query per round."""
    try:
        exprs = next(plan)
        while True:
            exprs = plan.send(_agg(t, exprs))
    except StopIteration as stop:
        return stop.value


def _together(plans, *, catch=()):
    """A plan running ``plans`` in lockstep; returns their results in order (with ``catch``: an exception
    of those types raised by one plan becomes its result, and the others go on)."""
    plans = list(plans)
    out: list = [None] * len(plans)
    want: dict = {}

    def step(i, vals):
        try:
            want[i] = plans[i].send(vals)
        except StopIteration as stop:
            out[i] = stop.value
            want.pop(i, None)
        except catch as exc:  # noqa: B030 - a tuple of exception types
            out[i] = exc
            want.pop(i, None)

    for i in range(len(plans)):
        step(i, None)
    while want:
        exprs = list(dict.fromkeys(e for ex in want.values() for e in ex))
        vals = dict(zip(exprs, (yield exprs)))
        for i, ex in list(want.items()):
            step(i, [vals[e] for e in ex])
    return out


def _fnum(v) -> float:
    return float("nan") if v is None else float(v)


# =============================================================================
# dUtility


def _refuse_non_numeric(name: str, t, cols) -> None:
    bad = [(c, t.rclass(c)) for c in cols if t.rclass(c) not in _NUMERIC]
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
    if average and method not in ("IL1", "IL1s"):
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
        non_numeric = sorted({str(c) for t in (x, xm) for c in cols_x if t.rclass(c) not in _NUMERIC})
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
    if method in ("IL1", "IL1s"):
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


# =============================================================================
# IL_variables


def il_variables_engine(x, xm, scales) -> ILVariablesResult:
    common, kinds = _il_variables_kinds(x, xm, scales)
    raw = [k != "numeric" for k in kinds]
    t = _paired(x, xm, common, common, raw=raw)
    return _run(t, _il_variables_plan(t.fsum(), x, xm, common, kinds, list(range(len(common)))))


def _il_variables_kinds(x, xm, scales) -> tuple[list, list]:
    """IL_variables' common columns and their scales (numeric or nominal), validated."""
    xm_cols = set(xm.columns)
    common = [c for c in x.columns if c in xm_cols and c not in (x.id, xm.id)]
    if not common:
        raise InvalidParameterError("x and xm have no column in common; il_variables compares variables by name.")
    only_x = [c for c in x.columns if c not in xm_cols and c != x.id]
    only_xm = [c for c in xm.columns if c not in set(common) and c != xm.id]
    if only_x or only_xm:
        warnings.warn(
            f"il_variables compares only the {len(common)} column(s) common to x and xm; left out: only in x "
            f"{only_x[:10]}, only in xm {only_xm[:10]} (sdcMicro's IL_variables does the same silently; d_utility "
            "refuses such frames). Select the same columns in both to compare them all.",
            PysdcWarning, stacklevel=user_stacklevel(),
        )
    kinds = []
    for c in common:
        kind = il_variables_kind(c, x.rclass(c), xm.rclass(c), scales, ordinal=False)
        if kind == "ordinal":
            kind = _ordinal_levels(x, xm, c)
        if kind == "numeric" and not (x.is_numeric(c) and xm.is_numeric(c)):
            raise InvalidParameterError(f"column {c!r} was declared numeric but its values are not numbers.")
        kinds.append(kind)
    return common, kinds


@dataclass(frozen=True)
class _Ordinal:
    """A variable declared ordinal: its number of levels, and ``values`` (the sorted observed values of x and
    xm, pandas' levels for a column that is not an ordered categorical), or None for a DuckDB ENUM (its codes)."""

    levels: int
    values: tuple | None = None


#: more distinct values than this in a column declared ordinal: refused (the ranks go into the query)
_MAX_LEVELS = 100_000


def _ordinal_levels(x, xm, c) -> _Ordinal:
    """The levels of a column declared ordinal: a DuckDB ENUM's (the same in x and xm), else -- as pandas
    does for a declared column that is not an ordered categorical -- the sorted values observed in either."""
    ta, tb = (str(getattr(t, "types", {}).get(c, "")) for t in (x, xm))
    if ta.upper().startswith("ENUM") or tb.upper().startswith("ENUM"):
        if ta != tb:
            raise InvalidParameterError(
                f"ordered column {c!r} has levels {ta[:80]} in x but {tb[:80]} in xm; the rank distance needs the "
                "same levels in the same order (sdcMicro's IL_variables stops here too)."
            )
        return _Ordinal(len(re.findall(r"'((?:[^']|'')*)'", ta)))
    if any(t.rclass(c) == "POSIXct" for t in (x, xm)):
        raise InvalidParameterError(
            f"il_variables: column {c!r} is declared ordinal but holds dates or times; on an engine declare "
            "ordinal only text, numbers or a DuckDB ENUM (or compute it in pandas)."
        )
    observed = []
    for t in (x, xm):
        v = t.num(c) if t.is_numeric(c) else t.q(c)
        got = t.fetch(f"SELECT DISTINCT {v} AS pysdc_v FROM {SRC} WHERE {v} IS NOT NULL LIMIT {_MAX_LEVELS + 1}")
        observed.append(got["pysdc_v"])
    values = pd.concat(observed, ignore_index=True).dropna()
    try:
        levels = np.sort(pd.unique(values.to_numpy()))
    except TypeError as exc:
        raise InvalidParameterError(
            f"column {c!r} was declared ordinal but its values cannot be ordered ({exc}); "
            "make it an ordered Categorical with the levels in order."
        ) from None
    if len(levels) > _MAX_LEVELS:
        raise InvalidParameterError(
            f"il_variables: column {c!r} is declared ordinal but has more than {_MAX_LEVELS} distinct values; "
            "declare it numeric (the distance of its values) or recode it into ordered classes."
        )
    return _Ordinal(len(levels), tuple(v.item() if hasattr(v, "item") else v for v in levels))


def _value_literal(t, v) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        return _lit(v)
    text = str(v).replace("'", "''") if t.kind == "duckdb" else str(v).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _ordinal_expr(t, fs, a, b, kind: _Ordinal, numeric: tuple) -> str:
    """The summed rank distance ``|rank(a) - rank(b)| / (levels - 1)`` of a column declared ordinal, one
    side missing costing 1, both 0 (``numeric``: whether a, b are numeric columns, whose NaN is missing)."""
    if kind.levels < 2:  # pandas and sdcMicro: NaN (divided by levels - 1 = 0)
        return _lit(float("nan"))
    if kind.values is None:
        ra, rb = f"enum_code({a})", f"enum_code({b})"
    else:
        listed = ", ".join(_value_literal(t, v) for v in kind.values)
        arr = f"[{listed}]" if t.kind == "duckdb" else f"array({listed})"
        pos = "list_position" if t.kind == "duckdb" else "array_position"
        # a value's position among the levels (NULL, or Spark's 0, for a missing value)
        va, vb = (f"(CASE WHEN isnan(CAST({e} AS DOUBLE)) THEN NULL ELSE CAST({e} AS DOUBLE) END)" if num else e
                  for e, num in zip((a, b), numeric))
        ra, rb = (f"NULLIF({pos}({arr}, {e}), 0)" for e in (va, vb))
    gaps = _lit(float(kind.levels - 1))
    return (f"{fs}(CASE WHEN {ra} IS NULL AND {rb} IS NULL THEN {_lit(0.0)} WHEN {ra} IS NULL OR {rb} IS NULL THEN "
            f"{_lit(1.0)} ELSE abs(CAST({ra} AS DOUBLE) - CAST({rb} AS DOUBLE)) / {gaps} END)")


def _il_variables_plan(fs, x, xm, common, kinds, js):
    """IL_variables over the paired columns x{j}, m{j} (j in ``js``, one per name in ``common``)."""
    # round 1: the number of records and the ranges of the numeric variables (the cost of a value
    # missing on one side)
    first = yield ["count(*)"] + [e for j, k in zip(js, kinds) if k == "numeric"
                                  for e in (f"min(x{j})", f"max(x{j})", f"min(m{j})", f"max(m{j})")]
    n = int(first[0])
    first = first[1:]
    exprs, pos = [], 0
    for c, j, k in zip(common, js, kinds):
        a, b = f"x{j}", f"m{j}"
        if k == "numeric":
            one = _one_sided(*first[4 * pos: 4 * pos + 4])
            pos += 1
            exprs.append(f"{fs}(atan(CASE WHEN {a} IS NULL AND {b} IS NULL THEN {_lit(0.0)} "
                         f"WHEN {a} IS NULL OR {b} IS NULL THEN {_lit(one)} ELSE abs({a} - {b}) END))")
        elif isinstance(k, _Ordinal):
            exprs.append(_ordinal_expr(x, fs, a, b, k, (x.is_numeric(c), xm.is_numeric(c))))
        else:
            na_a = _missing(x, c, a)
            na_b = _missing(xm, c, b)
            exprs.append(f"sum(CASE WHEN {na_a} AND {na_b} THEN 0 WHEN {na_a} OR {na_b} THEN 1 "
                         f"WHEN {a} = {b} THEN 0 ELSE 1 END)")
    sums = yield exprs
    return _il_variables_result(common, kinds, sums, n)


def _one_sided(lo_a, hi_a, lo_b, hi_b) -> float:
    """IL_variables' distance of a value missing on one side: the widest gap between the two ranges."""
    ra = (float("inf"), float("-inf")) if lo_a is None else (lo_a, hi_a)
    rb = (float("inf"), float("-inf")) if lo_b is None else (lo_b, hi_b)
    return max(abs(rb[0] - ra[1]), abs(rb[1] - ra[0]))


def _il_variables_result(common, kinds, sums, n) -> ILVariablesResult:
    per = {}
    for c, k, v in zip(common, kinds, sums):
        v = 0.0 if v is None else float(v)
        per[c] = v * (2.0 / np.pi) if k == "numeric" else v
    return il_variables_from_sums(per, n)


def _missing(t, col, name) -> str:
    if t.rclass(col) == "numeric":
        return f"({name} IS NULL OR isnan(CAST({name} AS DOUBLE)))"
    return f"{name} IS NULL"


# =============================================================================
# all of them together (pysdc utility --engine)


def utility_engine(x, xm, numeric: list, scales: dict | None = None,
                   methods: tuple = ("IL1", "IL1s", "eigen")) -> dict:
    """dUtility (``methods``) and IL_correl of the ``numeric`` variables and IL_variables of all of them, on
    an engine, their plans run together: by position, two (three with missing values) passes over each table
    and one over the paired records; by id, two or three over the joined records (and IL_correl's own).

    ``x``, ``xm``: engine tables (or scans) with the same variables (and both or neither an id). Returns
    ``{"d_utility": {method: DUtilityResult}, "il_correl": ILCorrelResult, "il_variables": ILVariablesResult}``
    where a measure that refuses the data holds its :class:`InvalidParameterError` instead. The numbers
    are those of the separate calls (the same expressions; only the passes are shared).
    """
    x, xm = as_table(x), as_table(xm)
    out: dict = {"d_utility": {}}
    try:
        common, kinds = _il_variables_kinds(x, xm, scales or {})
    except InvalidParameterError as exc:
        common, kinds, out["il_variables"] = None, None, exc
    cols = list(common) if common is not None else []
    raw = [k != "numeric" for k in kinds] if kinds is not None else []
    num_j = []
    for c in numeric:  # the numeric variables as doubles (again, if IL_variables takes one as nominal)
        if c in cols and not raw[cols.index(c)]:
            num_j.append(cols.index(c))
        else:
            cols.append(c)
            raw.append(False)
            num_j.append(len(cols) - 1)
    if not cols:
        return out
    if x.id is None:
        return _utility_by_position(x, xm, numeric, common, kinds, cols, raw, num_j, methods, out)
    t = _paired(x, xm, cols, cols, raw=raw)
    fs = t.fsum()
    plans, names = [], []
    if numeric:
        for m in methods:
            plans.append(_d_utility_plan(fs, num_j, m, False, list(numeric)))
            names.append(("d_utility", m))
        correl = None
        try:
            correl = _correl_variables(x, xm, among=set(numeric))
        except InvalidParameterError as exc:
            out["il_correl"] = exc
        if correl is not None:
            if x.id is None:  # paired by position: IL_correl's two sides are the paired columns
                js = [num_j[list(numeric).index(v)] for v in correl]
                plans.append(_correl_plan(fs, js, correl))
                names.append(("il_correl", None))
            else:  # by id: each side over its own records, as il_correl does
                try:
                    out["il_correl"] = _correl_unpaired(x, xm, correl, "sdcmicro")
                except InvalidParameterError as exc:
                    out["il_correl"] = exc
    if kinds is not None:
        plans.append(_il_variables_plan(fs, x, xm, common, kinds, list(range(len(common)))))
        names.append(("il_variables", None))
    for (what, m), res in zip(names, _run(t, _together(plans, catch=(InvalidParameterError,)))):
        if what == "d_utility":
            out["d_utility"][m] = res
        else:
            out[what] = res
    return out


def _correl_plan(fs, js, variables, normalization="sdcmicro"):
    sides = yield from _together([_correl_side(fs, [f"x{j}" for j in js], variables, "x"),
                                  _correl_side(fs, [f"m{j}" for j in js], variables, "xm")])
    return _correl_result([d for d, _ in sides], [n for _, n in sides], variables, normalization)


def _utility_by_position(x, xm, numeric, common, kinds, cols, raw, num_j, methods, out) -> dict:
    """utility_engine with records paired by position: what needs the pairs (|x - xm|, IL1, IL_variables'
    distances) in one pass over the positional join, which DuckDB runs on one thread; the moments of x and
    of xm (means, standard deviations, covariances: IL1s, eigen, IL_correl, the ranges) over each table
    alone, where the engine reads in parallel. The same sums as :func:`utility_engine`'s other path."""
    numeric = list(numeric)
    correl = None
    if numeric:
        try:
            correl = _correl_variables(x, xm, among=set(numeric))
        except InvalidParameterError as exc:
            out["il_correl"] = exc
    # -- each side on its own: moments (and the ranges of IL_variables' numeric variables)
    ranged = [c for c, k in zip(common or [], kinds or []) if k == "numeric"]
    side = {}
    for t, which in ((x, "x"), (xm, "xm")):
        fs = t.fsum()
        plans = [_ranges([t.num(c) for c in ranged])]
        if numeric and "IL1s" in methods and which == "x":
            plans.append(_sds(fs, [t.num(c) for c in numeric]))
        else:
            plans.append(_nothing())
        if numeric and "eigen" in methods:
            plans.append(_pairwise_cov_of_scaled(fs, [t.num(c) for c in numeric]))
        else:
            plans.append(_nothing())
        if correl is not None:
            plans.append(_correl_side(fs, [t.num(v) for v in correl], correl, which))
        else:
            plans.append(_nothing())
        side[which] = _run(t, _together(plans, catch=(InvalidParameterError,)))
    # -- the pairs
    t = _paired(x, xm, cols, cols, raw=raw)
    fs = t.fsum()
    exprs = ["count(*)"]
    for j in num_j:
        exprs += [f"{fs}(abs(x{j} - m{j}))", f"max(abs(x{j} - m{j}))"]
    nominal_exprs, both, one_sided = [], [], []
    for j, (c, k) in enumerate(zip(common or [], kinds or [])):
        a, b = f"x{j}", f"m{j}"
        if k == "numeric":
            both.append(f"{fs}(CASE WHEN {a} IS NOT NULL AND {b} IS NOT NULL THEN atan(abs({a} - {b})) END)")
            one_sided.append(f"sum(CASE WHEN ({a} IS NULL) <> ({b} IS NULL) THEN 1 ELSE 0 END)")
        elif isinstance(k, _Ordinal):
            nominal_exprs.append(_ordinal_expr(x, fs, a, b, k, (x.is_numeric(c), xm.is_numeric(c))))
        else:
            na_a, na_b = _missing(x, c, a), _missing(xm, c, b)
            nominal_exprs.append(f"sum(CASE WHEN {na_a} AND {na_b} THEN 0 WHEN {na_a} OR {na_b} THEN 1 "
                                 f"WHEN {a} = {b} THEN 0 ELSE 1 END)")
    plans = [_fixed(exprs + both + one_sided + nominal_exprs)]
    if numeric and "IL1" in methods:
        plans.append(_il1(fs, num_j, "IL1", False, numeric))
    (vals, il1) = (_run(t, _together(plans)) + [None])[:2]
    n = int(vals[0])
    p = len(num_j)
    dsum, dmax = vals[1:1 + 2 * p:2], vals[2:2 + 2 * p:2]
    rest = vals[1 + 2 * p:]
    sx, sm = side["x"], side["xm"]
    for m in methods if numeric else ():
        if m == "IL1":
            res = DUtilityResult(value=il1[1], method=m, n=n, n_vars=p, average=False)
        elif m == "IL1s":
            k, ss = sx[1]
            res = DUtilityResult(value=_il1_value(_il1s_total(k, ss, dsum, dmax, numeric, n), n, p, m, False),
                                 method=m, n=n, n_vars=p, average=False)
        else:
            res = DUtilityResult(value=_eigen_value(sx[2], sm[2]), method=m, n=n, n_vars=p, average=False)
        out["d_utility"][m] = res
    if correl is not None:
        cx, cm = sx[3], sm[3]
        bad = next((e for e in (cx, cm) if isinstance(e, InvalidParameterError)), None)
        out["il_correl"] = bad if bad is not None else _correl_result([cx[0], cm[0]], [cx[1], cm[1]], correl,
                                                                      "sdcmicro")
    if kinds is not None:
        nb = len(both)
        b_sums, o_counts, nom = rest[:nb], rest[nb:2 * nb], rest[2 * nb:]
        rx, rm = sx[0], sm[0]
        sums, q, r = [], 0, 0
        for k in kinds:
            if k == "numeric":
                one = _one_sided(rx[2 * q], rx[2 * q + 1], rm[2 * q], rm[2 * q + 1])
                sums.append(_fnum(b_sums[q]) if b_sums[q] is not None else 0.0)
                if o_counts[q]:
                    sums[-1] += o_counts[q] * math.atan(one)
                q += 1
            else:
                sums.append(nom[r])
                r += 1
        out["il_variables"] = _il_variables_result(common, kinds, sums, n)
    return out


def _nothing():
    """A plan that asks for nothing."""
    return None
    yield  # noqa: B901 - makes this a generator


def _fixed(exprs):
    """A plan of one round: the values of ``exprs``."""
    return (yield exprs)


def _ranges(cols):
    """min and max of each of ``cols``."""
    if not cols:
        return []
    return (yield [e for c in cols for e in (f"min({c})", f"max({c})")])


def _sds(fs, cols):
    """Counts and centred sums of squares of ``cols`` (two rounds)."""
    k, means = _counts_means((yield [e for c in cols for e in (f"count({c})", f"{fs}({c})")]))
    ss = yield [f"{fs}(({c} - {_lit(m)}) * ({c} - {_lit(m)}))" for c, m in zip(cols, means)]
    return k, ss
