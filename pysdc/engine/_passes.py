"""Information loss on an engine: the passes over the records (see :mod:`._utility`).

The original and masked records paired by position or by id, one aggregate query per round, and
plans (generators of aggregate expressions) run together so that they share each round's query.
"""

from __future__ import annotations

import math

from .._errors import InvalidParameterError
from ._tables import SRC, DuckTable, SparkTable

__all__ = []


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
