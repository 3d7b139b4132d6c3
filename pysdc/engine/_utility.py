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

from .._errors import InvalidParameterError
from .._results import DUtilityResult
from ._d_utility import ENGINE_METHODS, _counts_means, _d_utility_plan, _eigen_value, _il1, _il1_value, _il1s_total, _pairwise_cov_of_scaled
from ._il_correl import _correl_result, _correl_side, _correl_unpaired, _correl_variables
from ._il_variables import _il_variables_kinds, _il_variables_plan, _il_variables_result, _missing, _one_sided, _Ordinal, _ordinal_expr
from ._passes import _fnum, _lit, _paired, _run, _together
from ._tables import as_table

__all__ = ["utility_engine"]


# =============================================================================
# all of them together (pysdc utility --engine)


def utility_engine(x, xm, numeric: list, scales: dict | None = None,
                   methods: tuple = ENGINE_METHODS) -> dict:
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
