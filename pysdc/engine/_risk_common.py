"""Shared pieces of the engines' frequency-based risk (:mod:`pysdc.engine._risk`): the combination table,
the key and weight expressions, the per-record join, the switches of the in-engine path."""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np

from .._errors import PysdcWarning
from .._progress import stage
from .._results import IndivRiskCombinations
from .._validation import user_stacklevel
from ..core.freq import freq_core
from ..core.indiv import indiv_risk_arrays
from ..core.keys import key_codes, weight_rules
from ..io import atomic_output
from ._tables import _CONNECTIONS, POSITION, SRC

__all__ = ["combinations_in_engine", "writing_individual", "CHUNK_ROWS"]


_INF = "CAST('Infinity' AS DOUBLE)"

#: where measure_risk on an engine also writes its per-record table (set by :func:`writing_individual`)
_WRITE_TO: contextvars.ContextVar = contextvars.ContextVar("pysdc_write_individual", default=None)
#: whether measure_risk on DuckDB keeps its key combinations in DuckDB (set by :func:`combinations_in_engine`)
_IN_ENGINE: contextvars.ContextVar = contextvars.ContextVar("pysdc_combinations_in_engine", default=False)
#: rows of a table of pairs (fk, Fk) or of distinct risks read into Python at a time by
#: :func:`combinations_in_engine`'s path (a few MB)
CHUNK_ROWS = 1 << 17


@contextlib.contextmanager
def combinations_in_engine():
    """Within the block, :func:`pysdc.measure_risk` on a DuckDB scan keeps its table of key combinations in
    DuckDB (``pysdc risk --engine duckdb``): the frequencies, the individual risks (computed by pysdc's core
    per distinct pair (fk, Fk), read in pieces of :data:`CHUNK_ROWS`), the per-record join and the
    summaries are DuckDB's work, bounded by its ``memory_limit``; Python holds a piece at a time, never a
    value per combination. The result's ``combinations`` is then the engine's lazy table and its
    ``summarise`` gives the summaries the model needs. The numbers are those of the in-memory path
    (sums in another order: ENGINE_SUMS). Missing key values are sdcMicro's wildcards, matched in SQL
    (:func:`_wildcard_freqs`). Keys whose raw values may code alike (integers beyond 2^53, decimals,
    dates) take the in-memory path. A scan made with a ``memory_limit`` takes this path without the block
    (the Python API: ``pysdc.measure_risk(pysdc.scan(path, memory_limit="2GB"), ...)``).

    On a Spark table (``pysdc risk --engine spark``) the block keeps the combinations in Spark likewise
    (:func:`_measure_risk_spark`, :class:`SparkSummaries`): the driver gets single rows, the top N and the
    distinct risks streamed for the threshold."""
    token = _IN_ENGINE.set(True)
    try:
        yield
    finally:
        _IN_ENGINE.reset(token)


def _memory_limited(con) -> bool:
    """Whether ``con`` is the DuckDB connection of scans made with a ``memory_limit``
    (``pysdc.scan(..., memory_limit="2GB")``): measure_risk then keeps its combinations in DuckDB, as
    within :func:`combinations_in_engine`, so that the limit holds in the Python API too."""
    return any(c is con and dict(key).get("memory_limit") for key, c in list(_CONNECTIONS.items()))


@contextlib.contextmanager
def writing_individual(path):
    """Within the block, :func:`pysdc.measure_risk` on an engine writes its per-record table to ``path``
    as it measures (``pysdc risk --output``). With a household id the household risk then comes
    from the written per-record ``hier_risk`` (its sum), so the records are joined once, not twice.

    The table is written to a temporary file beside ``path`` (:func:`pysdc.io.atomic_output`),
    renamed onto ``path`` when the block has succeeded: an interrupted or failed run leaves nothing
    there (or the old file). The caller checks ``path`` first (:func:`pysdc.io.check_output`)."""
    if path is None:
        token = _WRITE_TO.set(None)
        try:
            yield
        finally:
            _WRITE_TO.reset(token)
        return
    with atomic_output(path, make_parents=True) as tmp:
        token = _WRITE_TO.set(str(tmp))
        try:
            yield
        finally:
            _WRITE_TO.reset(token)


# =============================================================================
# results: the classes of pysdc._results for results per key combination


def _indiv_risk_of(table, keys, c):
    """The engine's :func:`pysdc.indiv_risk` of the frequencies of :func:`_combinations` ``c`` (a
    FreqCalcCombinations' ``risk_of``): computed once per distinct combination of key codes (freq_core's,
    with their record counts), given to the rows of the combination table, joined back to the records lazily."""
    fk_c, Fk_c, cnt, inv, pdf = c["fk_c"], c["Fk_c"], c["cnt"], c["inv"], c["pdf"]

    def risk(*, method: str, qual: float, survey: bool, exact_method: str = "sdcmicro") -> IndivRiskCombinations:
        rk = indiv_risk_arrays(fk_c, Fk_c, method, qual, survey, exact_method=exact_method, counts=cnt)[inv]
        fk = fk_c[inv]
        res = table.attach(c["handle"], {"pysdc_risk": rk, "pysdc_fk": fk})
        individual = _records(table, keys, res, {"rk": "pysdc_risk", "fk": "pysdc_fk"})
        counts = pdf["pysdc_n"].to_numpy(dtype=np.int64)
        combos = pdf[list(keys)].assign(n=counts, fk=fk, rk=rk)
        return IndivRiskCombinations(rk=rk, fk=fk, counts=counts, method=method if survey else None,
                                     qual=qual if survey else float("nan"), key_vars=tuple(keys), combinations=combos,
                                     individual=individual, n=c["n"])

    return risk


# =============================================================================
# the combination table


def _hid_expr(table, hid, alias: str = "") -> str:
    """The household id as pysdc compares it: numbers as doubles (NaN missing), other types by value."""
    if table.rclass(hid) in ("numeric", "integer", "logical"):
        return table.num(hid, alias)
    return alias + table.q(hid)


def _combinations(table, keys, w, hid, *, func: str, factorize_character: bool, alpha: float):
    """Group the records by their raw key values; freq_core on the combinations.

    Returns a dict: ``pdf`` (the combination table), ``handle`` (for joins), ``fk_c``, ``Fk_c``,
    ``cnt`` (per freq_core combination), ``inv`` (row -> combination), ``n``.
    """
    stage(f"grouping the records by {', '.join(keys)}")
    fs = table.fsum()
    aggs = ["count(*) AS pysdc_n"]
    if w is not None:
        # per combination only the sum, the count and the minimum: a NaN or infinite weight shows in a
        # sum that is not finite, a missing one in the count, one below 1 in the minimum; only then
        # does _check_weights count each kind (one more pass, over unusual data only)
        wv = f"CAST({table.q(w)} AS DOUBLE)" if table.rclass(w) == "numeric" else _weight_expr(table, w)
        aggs += [f"{fs}({wv}) AS pysdc_w", f"count({wv}) AS pysdc_w_n", f"min({wv}) AS pysdc_w_min"]
    if hid is not None:
        aggs.append(f"count({_hid_expr(table, hid)}) AS pysdc_h_n")
    pdf, handle = table.combos(keys, aggs)
    counts = pdf["pysdc_n"].to_numpy(dtype=np.float64)
    n = int(counts.sum())
    ws = None
    if w is not None:
        ws = pdf["pysdc_w"].to_numpy(dtype=np.float64)
        clean = (np.isfinite(ws).all() and (pdf["pysdc_w_n"].to_numpy() == pdf["pysdc_n"].to_numpy()).all()
                 and not (pdf["pysdc_w_min"].to_numpy(dtype=np.float64) < 1).any())
        _check_weights(table, w, func, clean=clean)
    stage(f"frequencies of {len(pdf):,} key combinations ({n:,} records)")
    key_frame = pdf[list(keys)]
    codes, cards = key_codes(key_frame, list(keys), func=func, factorize_character=factorize_character)
    fk_c, Fk_c, cnt, inv = freq_core(codes, cards, ws, alpha, counts=counts)
    return {"pdf": pdf, "handle": handle, "fk_c": fk_c, "Fk_c": Fk_c, "cnt": cnt, "inv": inv, "n": n}


def _weight_expr(table, w) -> str:
    """The weight as R's as.numeric sees it: numbers as doubles (NaN missing), text parsed, a DuckDB ENUM
    (a pandas category) by its codes 1, 2, ... as a factor's."""
    cls = table.rclass(w)
    if cls == "factor" and table.kind == "duckdb":
        return f"CAST(enum_code({table.q(w)}) + 1 AS DOUBLE)"
    return table.num(w)


def _check_weights(table, w, func, *, clean: bool) -> None:
    """sdcMicro's weight rules (:func:`pysdc.core.keys.weight_rules`); unless the group-by showed the
    weights ``clean`` (all present, finite, at least 1), one pass counts each kind of unusual weight."""
    cls = table.rclass(w)
    if clean:
        n_inf = n_na = below = nonpos = 0
        smallest = None
    else:
        wx = _weight_expr(table, w)
        n_inf, n_na, below, smallest, nonpos = table.row(
            f"SELECT sum(CASE WHEN abs({wx}) = {_INF} THEN 1 ELSE 0 END), sum(CASE WHEN {wx} IS NULL THEN 1 ELSE 0 END), "
            f"sum(CASE WHEN {wx} > 0 AND {wx} < 1 THEN 1 ELSE 0 END), min(CASE WHEN {wx} > 0 AND {wx} < 1 THEN {wx} END), "
            f"sum(CASE WHEN {wx} <= 0 THEN 1 ELSE 0 END) FROM {SRC}")

    def examples(kind):
        wx = _weight_expr(table, w)
        return _examples(table, f"abs({wx}) = {_INF}" if kind == "inf" else f"{wx} IS NULL", table.q(w))

    weight_rules(w, func=func, cls=cls, n_inf=int(n_inf or 0), n_na=int(n_na or 0), n_below=int(below or 0),
                 smallest=None if smallest is None else float(smallest), n_nonpos=int(nonpos or 0), examples=examples)


def _examples(table, condition: str, value: str = "NULL") -> list:
    """The first five records meeting ``condition``, as the pandas path names them (the rows of a default
    index): their positions, or the scan's id values; none for a Spark DataFrame without an id (no positions)."""
    if table.id:
        col = table.q(table.id)
    elif table.has_positions():
        col = "pysdc_position + 1"  # 1-based record numbers, as in R and the pandas path
    else:
        return []
    found = table.fetch(f"SELECT {col} AS pysdc_e, {value} AS pysdc_v FROM ({table.with_position()}) s "
                        f"WHERE {condition} ORDER BY 1 LIMIT 5")
    plain = [[v.item() if hasattr(v, "item") else v for v in found[c]] for c in ("pysdc_e", "pysdc_v")]
    return [(f"{table.id} {e!r}" if table.id else e, v) for e, v in zip(*plain)]


def _key_match(table, keys, left="s.", right="r.", *, equal: bool = False, nan_null: bool = False) -> str:
    """The join condition on the raw key values: missing values match each other (``equal``: the keys have
    none, a plain equi-join; ``nan_null``: a NaN on the left is the NULL of the right, as :func:`_key_value`
    groups it)."""
    op = "=" if equal else "IS NOT DISTINCT FROM"
    lhs = (lambda k: _key_value(table, k, left)) if nan_null else (lambda k: left + table.q(k))
    return " AND ".join(f"{lhs(k)} {op} {right}{table.q(k)}" for k in keys)


def _key_value(table, k, alias: str = "") -> str:
    """A key as :func:`pysdc.core.keys.key_codes` sees its missing values: a float NaN is NULL (one missing
    value); other types as they are."""
    c = alias + table.q(k)
    if table.types[k].upper() in _FLOAT_TYPES:
        return f"(CASE WHEN isnan({c}) THEN NULL ELSE {c} END)"
    return c


def _records(table, keys, res, columns: dict, *, hid=None, equal: bool = False, nan_null: bool = False):
    """The per-record table: record id, then ``columns`` (output name -> result column of ``res``),
    and with ``hid`` the household risk (the product over the household's joined records: a window on
    DuckDB, a group-by joined back on Spark); records with a missing id keep their own risk."""
    ids = table.record_id("j.")
    sel = [f"r.{c} AS {c}" for c in columns.values()]
    out = [f"j.{c} AS {table.q(name)}" for name, c in columns.items()]
    sql = (f"WITH s AS ({table.with_position()}), "
           f"j AS (SELECT s.*, {', '.join(sel)} FROM s JOIN pysdc_res r ON "
           f"{_key_match(table, keys, equal=equal, nan_null=nan_null)})")
    tail = " FROM j"
    if hid is not None:
        hx = _hid_expr(table, hid, "j.")
        window = table.window_product("1 - j.pysdc_risk", hx)
        if window is not None:  # the household's product beside each member (no join back)
            out.append(f"CASE WHEN {hx} IS NULL THEN j.pysdc_risk ELSE 1 - {window} END AS {table.q('hier_risk')}")
        else:
            h = table.households(f"SELECT {_hid_expr(table, hid, 's.')} AS pysdc_h, r.pysdc_risk AS pysdc_risk "
                                 f"FROM {SRC} s JOIN pysdc_res r ON {_key_match(table, keys, nan_null=nan_null)}",
                                 res=res)
            out.append(f"COALESCE(h.pysdc_hr, j.pysdc_risk) AS {table.q('hier_risk')}")
            tail = f" FROM j LEFT JOIN {h} h ON {hx} = h.pysdc_h"
    sql += f" SELECT {', '.join(ids + out)}{tail}"
    native = table.query(sql, res=res)
    positional = table.id is None and table.has_positions()
    names = [table.id] if table.id else ([POSITION] if positional else list(table.columns))
    names += list(columns) + (["hier_risk"] if hid is not None else [])
    order = table.id if table.id else (POSITION if positional else None)
    return table.table(native, names, order, repeated=list(columns))



_FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL")
_INT_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
#: doubles hold every integer exactly only up to 2^53 (beyond, distinct integers code alike, as in R)
_EXACT_INT = 2**53


def _warn_missing_hid(hid, n_na: int) -> None:
    warnings.warn(
        f"measure_risk: household id column {hid!r} has {n_na} missing value(s); each such record is treated "
        "as a household of its own (sdcMicro's fast_hier=False behaviour; its fast_hier=True path wrongly "
        "gives them the risk of the first household). Fill the ids to link records.",
        PysdcWarning, stacklevel=user_stacklevel(),
    )


def _written_household_total(table, written, fast_hier: bool) -> float:
    """The household risk summed from the column ``hier_risk`` of the per-record table written to Parquet."""
    total, n_nan = table.written_sum(written, "hier_risk")
    if int(n_nan or 0) and not fast_hier:
        return float("nan")
    return float(total or 0.0)
