"""sdcMicro's IL_variables on an engine, from distance sums over the paired records."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from .._results import ILVariablesResult
from .._validation import user_stacklevel
from ..core.ilvariables import il_variables_from_sums, il_variables_kind
from ._passes import _lit, _paired, _run
from ._tables import SRC

__all__ = ["il_variables_engine"]


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
