"""Frequency-based risk on an engine: the engine groups, pysdc's core computes, the engine joins back.

Every frequency-based measure depends on the records only through their distinct key
combinations: the engine reduces the records to the combination table (records and weight sum
per combination of raw key values, plus the checks of the weights), pysdc's engine-free core
(:func:`pysdc.core.freq.freq_core` with ``counts``, the wildcard matching included) computes
``fk``/``Fk``/risk per combination exactly as on pandas, and per-record results are a join of the
records with that table, evaluated lazily by the engine. Household risk is one more group-by of
the joined records on the household id (``1 - product(1 - risk)``); per record it is that product as
a window over the household (DuckDB) or the group-by joined back (Spark). ``pysdc risk --output``
(:func:`writing_individual`) writes the per-record table while measuring and sums its ``hier_risk``
instead of grouping again.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
import weakref

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, PysdcWarning
from .._progress import stage
from .._results import (
    FreqCalcCombinations,
    IndivRiskCombinations,
    KAnonResult,
    LDiversityCombinations,
    MeasureRiskCombinations,
)
from .._summaries import HIGH_RISK_FLOOR, HIGH_RISK_MADS
from .._validation import user_stacklevel
from ..core.freq import freq_core, r_as_numeric, r_round
from ..core.indiv import indiv_risk_arrays
from ..core.keys import key_codes, warn_fk_overflow, weight_rules
from ..core.ldiversity import ldiversity_block
from ..core.threshold import global_threshold_chunks, global_threshold_grouped
from ..io import atomic_output
from ._tables import _CONNECTIONS, BROADCAST_MAX_COMBINATIONS, POSITION, SRC, _unique

__all__ = ["freq_calc_engine", "measure_risk_engine", "k_anon_engine", "ldiversity_engine", "writing_individual",
           "combinations_in_engine", "CHUNK_ROWS"]

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


# =============================================================================
# the measures


def freq_calc_engine(table, key_vars, w, alpha) -> FreqCalcCombinations:
    c = _combinations(table, key_vars, w, None, func="freq_calc", factorize_character=False, alpha=alpha)
    fk_c, Fk_c, cnt, inv, pdf = c["fk_c"], c["Fk_c"], c["cnt"], c["inv"], c["pdf"]
    if c["n"] == 0:
        warnings.warn("freq_calc: data has no rows; fk and Fk are empty.", DegenerateResultWarning,
                      stacklevel=user_stacklevel())
    warn_fk_overflow(Fk_c, cnt, "freq_calc")
    res = table.attach(c["handle"], {"pysdc_fk": fk_c[inv], "pysdc_pop_fk": Fk_c[inv]})
    individual = _records(table, key_vars, res, {"fk": "pysdc_fk", "Fk": "pysdc_pop_fk"})
    combos = pdf[list(key_vars)].assign(n=pdf["pysdc_n"].to_numpy(), fk=fk_c[inv], Fk=Fk_c[inv])
    return FreqCalcCombinations(
        fk=fk_c[inv], Fk=Fk_c[inv], counts=pdf["pysdc_n"].to_numpy(dtype=np.int64), n1=int(cnt[fk_c == 1].sum()),
        n2=int(cnt[fk_c == 2].sum()), key_vars=tuple(key_vars), alpha=alpha, combinations=combos,
        individual=individual, n=c["n"], risk_of=_indiv_risk_of(table, list(key_vars), c),
    )


def measure_risk_engine(table, key_vars, w, hid, max_global_risk, fast_hier, alpha) -> MeasureRiskCombinations:
    if table.kind == "duckdb" and getattr(table, "con", None) is not None and (_IN_ENGINE.get()
                                                                              or _memory_limited(table.con)):
        got = _measure_risk_in_engine(table, list(key_vars), w, hid, max_global_risk, fast_hier, alpha)
        if got is not None:
            return got
        if _memory_limited(table.con):
            odd = [f"{k} ({table.types[k]})" for k in key_vars
                   if not (table.types[k].upper() in _FLOAT_TYPES + ("VARCHAR", "BOOLEAN")
                           or table.types[k].upper().startswith("ENUM"))]
            warnings.warn(
                "measure_risk: the key combinations are held in Python, outside DuckDB's memory limit (about "
                f"0.4 KB each): the keys {', '.join(odd) or ', '.join(key_vars)} may hold distinct values that "
                "sdcMicro's as.numeric codes alike (decimals, dates, integers beyond 2^53). Cast them to text or "
                "to doubles to keep the combinations in DuckDB.", PysdcWarning, stacklevel=user_stacklevel())
    if table.kind == "spark" and _IN_ENGINE.get():
        got = _measure_risk_spark(table, list(key_vars), w, hid, max_global_risk, fast_hier, alpha)
        if got is not None:
            return got
    c = _combinations(table, key_vars, w, hid, func="measure_risk", factorize_character=True, alpha=alpha)
    fk_c, Fk_c, cnt, inv, pdf, n = c["fk_c"], c["Fk_c"], c["cnt"], c["inv"], c["pdf"], c["n"]
    rk_c = indiv_risk_arrays(fk_c, Fk_c, "approx", 1.0, w is not None)
    with np.errstate(invalid="ignore"):
        er = float(np.nansum(rk_c * cnt))
    gr = er / n if n else float("nan")
    if n == 0:
        warnings.warn(
            "measure_risk: data has no rows; global_risk and global_threshold are NaN (sdcMicro returns the "
            "same without weights and fails with weights).",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    elif np.isnan(rk_c).any():
        warnings.warn(
            f"measure_risk: {int(cnt[np.isnan(rk_c)].sum())} record(s) have an undefined (NaN) risk (a zero or "
            "negative population frequency Fk, or weights so large that fk / Fk underflows); global_risk_er "
            "skips them and global_threshold is NaN, as in sdcMicro. Check the weights.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    thr = global_threshold_grouped(rk_c, cnt, max_global_risk)
    rk_row = rk_c[inv]
    res = table.attach(c["handle"], {"pysdc_risk": rk_row, "pysdc_fk": fk_c[inv], "pysdc_pop_fk": Fk_c[inv]})
    individual = _records(table, key_vars, res, {"risk": "pysdc_risk", "fk": "pysdc_fk", "Fk": "pysdc_pop_fk"},
                          hid=hid)
    path = _WRITE_TO.get()
    if path is not None:  # the temporary file of writing_individual
        stage("joining the records to their risks and writing them" + (" (household risk too)" if hid else ""))
        individual.write_to(path)
    h_er = h_r = h_pct = None
    if hid is not None:
        stage("household risk")
        h_er = _household_er(table, key_vars, hid, res, pdf, rk_row, fast_hier, written=path)
        h_r = h_er / n if n else float("nan")
        h_pct = h_r * 100
    combos = pdf[list(key_vars)].assign(n=pdf["pysdc_n"].to_numpy(), fk=fk_c[inv], Fk=Fk_c[inv], risk=rk_row)
    return MeasureRiskCombinations(
        global_risk_er=er, global_risk=gr, global_risk_pct=gr * 100, global_threshold=thr,
        max_global_risk=max_global_risk, hier_risk_er=h_er, hier_risk=h_r, hier_risk_pct=h_pct,
        individual=individual, key_vars=tuple(key_vars), counts=pdf["pysdc_n"].to_numpy(dtype=np.int64),
        combinations=combos, n=n,
    )


def _household_er(table, keys, hid, res, pdf, rk_row, fast_hier, written=None) -> float:
    """Sum over records of the household risk ``1 - prod(1 - r)``: one group-by of the joined records,
    or the sum of the column ``hier_risk`` of the per-record table ``written`` to a Parquet file
    (there a record with a missing id carries its own risk, as below)."""
    na = pdf["pysdc_n"].to_numpy(dtype=np.float64) - pdf["pysdc_h_n"].to_numpy(dtype=np.float64)
    n_na = int(na.sum())
    if n_na:
        _warn_missing_hid(hid, n_na)
    if written is not None:
        return _written_household_total(table, written, fast_hier)
    fs = table.fsum()
    hx = _hid_expr(table, hid, "s.")
    h = table.households(f"SELECT {hx} AS pysdc_h, r.pysdc_risk AS pysdc_risk FROM {SRC} s JOIN pysdc_res r ON "
                         f"{_key_match(table, keys)}", res=res)
    sql = (f"SELECT {fs}(CASE WHEN isnan(pysdc_hr) THEN 0 ELSE pysdc_m * pysdc_hr END), "
           f"sum(CASE WHEN isnan(pysdc_hr) THEN 1 ELSE 0 END) FROM {h} h")
    total, n_nan = table.row(sql, res=res)
    total = float(total or 0.0)
    own = np.where(na > 0, rk_row * na, 0.0)  # records with a missing id: a household of their own
    own_nan = np.isnan(rk_row) & (na > 0)
    if not fast_hier and (int(n_nan or 0) or own_nan.any()):
        return float("nan")
    return total + float(np.sum(own[~own_nan]))


def k_anon_engine(table, key_vars, k, w, weighted, alpha=1.0) -> KAnonResult:
    kr = r_round(k)
    c = _combinations(table, key_vars, w, None, func="k_anon_violations", factorize_character=True, alpha=alpha)
    v = c["Fk_c"] if (weighted and w is not None) else c["fk_c"]
    return KAnonResult(int(np.sum(c["cnt"][v < kr])), k=k, weighted=bool(weighted), n=int(np.sum(c["cnt"])),
                       key_vars=tuple(key_vars))


# =============================================================================
# l-diversity


def ldiversity_engine(table, key_vars, ldiv_index, l_recurs_c) -> LDiversityCombinations:
    """ldiversity from the group-by of the records on their key and sensitive values.

    A combination stands for its records (a weight), except where a key value is missing or a sensitive
    value is NaN: each such record is a class or category of its own in sdcMicro, so the combination is
    expanded to one row per record before pysdc's core computes; every record of a combination then has
    the same values, which go back to the records as a join."""
    keys, sens = list(key_vars), list(ldiv_index)
    pdf, handle = table.combos(keys + sens, ["count(*) AS pysdc_n"])
    cnt = pdf["pysdc_n"].to_numpy(dtype=np.int64)
    n = int(cnt.sum())
    own = np.zeros(len(pdf), dtype=bool)  # combinations whose records are each a class or category of their own
    if len(pdf):
        codes, _ = key_codes(pdf[keys], keys, func="ldiversity", factorize_character=False)
        for code in codes:
            own |= np.asarray(code) < 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warned once, below, on the expanded rows
            for s in sens:
                own |= np.isnan(r_as_numeric(pdf[s])[0])
    reps = np.where(own, cnt, 1)
    rows = np.repeat(np.arange(len(pdf)), reps)
    weights = np.where(own, 1, cnt)[rows].astype(np.float64)
    frame = pdf.iloc[rows].reset_index(drop=True)
    block, names = ldiversity_block(frame, keys, sens, l_recurs_c, weights=weights)
    first = np.searchsorted(rows, np.arange(len(pdf)))  # a combination's values: those of its first row
    values = block[:, first] if len(pdf) else np.zeros((len(names), 0))
    per_combo = pd.DataFrame(values.T, columns=names)
    internal = {f"pysdc_l{i}": values[i] for i in range(len(names))}
    res = table.attach(handle, internal)
    individual = _records(table, keys + sens, res, dict(zip(names, internal)))
    combos = pd.concat([pdf[keys + sens].reset_index(drop=True), pd.DataFrame({"n": cnt}), per_combo], axis=1)
    return LDiversityCombinations(table=per_combo, key_vars=tuple(keys), ldiv_index=tuple(sens),
                                  l_recurs_c=float(l_recurs_c), counts=cnt, combinations=combos,
                                  individual=individual, n=n)


# =============================================================================
# measure_risk with the key combinations kept in DuckDB (combinations_in_engine)

_FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL")
_INT_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
#: doubles hold every integer exactly only up to 2^53 (beyond, distinct integers code alike, as in R)
_EXACT_INT = 2**53


def _in_engine_types(table, keys) -> bool:
    """Whether every key is of a type whose distinct raw values are distinct codes in
    :func:`pysdc.core.keys.key_codes` (measure_risk's rules): text, categories, booleans, floats and
    integers (checked within +-2^53 on the combinations)."""
    for k in keys:
        t = table.types[k].upper()
        if not (t in _FLOAT_TYPES or t in _INT_TYPES or t in ("VARCHAR", "BOOLEAN") or t.startswith("ENUM")):
            return False
    return True


def _wildcard_freqs(table, combos: str, out: str, keys: list, weighted: bool, alpha: float, n: int) -> None:
    """sdcMicro's freqCalc with missing key values as wildcards (the rules of :func:`pysdc.core.freq.freq_core`),
    in SQL over the combination table ``combos`` (one row per combination, a missing key NULL): the table
    ``out`` is ``combos`` with ``pysdc_fk`` and ``pysdc_pop_fk``.

    As in freq_core, the matching goes pattern by pattern (a pattern: which keys are missing): two
    combinations of two patterns are compatible when they agree on the keys observed in both, so each pair
    of patterns present is one equi-join on those keys of one pattern's combinations with the other's
    grouped. Python loops over the patterns (at most 2^k), never over combinations or records. Counts are
    exact (sums of integers); the weight sums are sums in another order than freq_core's (ENGINE_SUMS)."""
    con, q = table.con, table.q
    k = len(keys)
    full = (1 << k) - 1
    f = "CAST(pysdc_n AS DOUBLE)"
    F = "(0.0 + pysdc_w)" if weighted else f
    pat = " + ".join(f"(CASE WHEN {q(key)} IS NULL THEN {1 << j} ELSE 0 END)" for j, key in enumerate(keys))
    base = _unique("wild")
    con.execute(f"CREATE TABLE {base} AS SELECT *, row_number() OVER () AS pysdc_cid, {pat} AS pysdc_pat, "
                f"{f} AS pysdc_cn, {F} AS pysdc_cw FROM {combos}")
    pats = sorted(int(r[0]) for r in con.execute(f"SELECT DISTINCT pysdc_pat FROM {base}").fetchall())
    (w_total,) = con.execute(f"SELECT coalesce(fsum(pysdc_cw), 0.0) FROM {base}").fetchall()[0]
    adds = _unique("adds")
    # x: the additions to a complete combination (alpha times the counts of its match in a pattern),
    # y: the counts of compatible combinations with missing keys (times alpha at the end), z: the full
    # counts of compatible complete combinations (both for combinations with missing keys)
    con.execute(f"CREATE TABLE {adds} (pysdc_cid BIGINT, x_n DOUBLE, x_w DOUBLE, y_n DOUBLE, y_w DOUBLE, z_n DOUBLE, "
                "z_w DOUBLE)")
    observed = {p: [keys[j] for j in range(k) if not (p >> j) & 1] for p in pats}

    def on(cols, a="t", b="g"):
        return " AND ".join(f"{a}.{q(c)} = {b}.{q(c)}" for c in cols)

    def grouped(p, cols):
        cs = ", ".join(q(c) for c in cols)
        return (f"(SELECT {cs}, sum(pysdc_cn) AS s_n, fsum(pysdc_cw) AS s_w FROM {base} WHERE pysdc_pat = {p} "
                f"GROUP BY {cs})")

    a = float(alpha)
    if k == 1:
        if 0 in pats and full in pats:  # one key: every complete combination matches every missing record
            con.execute(f"INSERT INTO {adds} SELECT pysdc_cid, ? * g.s_n, ? * g.s_w, NULL, NULL, NULL, NULL FROM "
                        f"{base}, (SELECT sum(pysdc_cn) AS s_n, fsum(pysdc_cw) AS s_w FROM {base} WHERE pysdc_pat = {full}) "
                        "g WHERE pysdc_pat = 0", [a, a])
    else:
        for p in pats:
            if p == 0:
                continue
            obs = observed[p]
            if obs and 0 in pats:
                # a complete combination matches at most one combination of pattern p (all-missing: none)
                con.execute(f"INSERT INTO {adds} SELECT t.pysdc_cid, ? * g.pysdc_cn, ? * g.pysdc_cw, NULL, NULL, NULL, "
                            f"NULL FROM {base} t JOIN {base} g ON {on(obs)} WHERE t.pysdc_pat = 0 AND "
                            f"g.pysdc_pat = {p}", [a, a])
            if p == full:
                continue  # all keys missing: fk = n, Fk = the weight total (below)
            if obs and 0 in pats:
                con.execute(f"INSERT INTO {adds} SELECT t.pysdc_cid, NULL, NULL, NULL, NULL, g.s_n, g.s_w FROM "
                            f"{base} t JOIN {grouped(0, obs)} g ON {on(obs)} WHERE t.pysdc_pat = {p}")
            for r in pats:
                if r in (0, p):
                    continue  # same pattern: only the combination itself
                common = [c for c in obs if c in observed[r]]
                if common:
                    con.execute(f"INSERT INTO {adds} SELECT t.pysdc_cid, NULL, NULL, g.s_n, g.s_w, NULL, NULL FROM "
                                f"{base} t JOIN {grouped(r, common)} g ON {on(common)} WHERE t.pysdc_pat = {p}")
                else:
                    con.execute(f"INSERT INTO {adds} SELECT t.pysdc_cid, NULL, NULL, g.s_n, g.s_w, NULL, NULL FROM "
                                f"{base} t, (SELECT sum(pysdc_cn) AS s_n, fsum(pysdc_cw) AS s_w FROM {base} "
                                f"WHERE pysdc_pat = {r}) g WHERE t.pysdc_pat = {p}")
    drop = ", ".join(["pysdc_cid", "pysdc_pat", "pysdc_cn", "pysdc_cw"])
    con.execute(
        f"CREATE TABLE {out} AS SELECT b.* EXCLUDE ({drop}), "
        f"CASE WHEN b.pysdc_pat = 0 THEN b.pysdc_cn + coalesce(d.x_n, 0.0) WHEN b.pysdc_pat = {full} THEN CAST(? AS DOUBLE) "
        "ELSE b.pysdc_cn + (coalesce(d.y_n, 0.0) * ? + coalesce(d.z_n, 0.0)) END AS pysdc_fk, "
        f"CASE WHEN b.pysdc_pat = 0 THEN b.pysdc_cw + coalesce(d.x_w, 0.0) WHEN b.pysdc_pat = {full} THEN CAST(? AS DOUBLE) "
        "ELSE b.pysdc_cw + (coalesce(d.y_w, 0.0) * ? + coalesce(d.z_w, 0.0)) END AS pysdc_pop_fk "
        f"FROM {base} b LEFT JOIN (SELECT pysdc_cid, fsum(x_n) AS x_n, fsum(x_w) AS x_w, fsum(y_n) AS y_n, fsum(y_w) AS y_w, "
        f"fsum(z_n) AS z_n, fsum(z_w) AS z_w FROM {adds} GROUP BY pysdc_cid) d ON b.pysdc_cid = d.pysdc_cid",
        [float(n), a, float(w_total), a])
    con.execute(f"DROP TABLE {adds}")
    con.execute(f"DROP TABLE {base}")


def _arrow_chunks(con, sql: str, params=None):
    """The rows of ``sql`` as pyarrow record batches of at most :data:`CHUNK_ROWS` rows, read on a cursor of
    its own (the connection stays free for other statements meanwhile)."""
    cur = con.cursor()
    try:
        rel = cur.sql(sql, params=params) if params else cur.sql(sql)
        f = getattr(rel, "to_arrow_reader", None) or rel.fetch_arrow_reader
        yield from f(CHUNK_ROWS)
    finally:
        cur.close()


def _measure_risk_in_engine(table, keys, w, hid, max_global_risk, fast_hier, alpha=1.0):
    """measure_risk on DuckDB with the combinations in DuckDB (:func:`combinations_in_engine`), or None when
    the keys may code alike (integers beyond 2^53) and need the in-memory path. Missing key values are
    sdcMicro's wildcards, matched in SQL pattern by pattern (:func:`_wildcard_freqs`)."""
    import pyarrow as pa

    if not _in_engine_types(table, keys):
        return None
    con = table.con
    stage(f"grouping the records by {', '.join(keys)}")
    fs = table.fsum()
    ks = ", ".join(table.q(k) for k in keys)
    aggs = ["count(*) AS pysdc_n"]
    if w is not None:
        wv = f"CAST({table.q(w)} AS DOUBLE)" if table.rclass(w) == "numeric" else _weight_expr(table, w)
        aggs += [f"{fs}({wv}) AS pysdc_w", f"count({wv}) AS pysdc_w_n", f"min({wv}) AS pysdc_w_min"]
    if hid is not None:
        aggs.append(f"count({_hid_expr(table, hid)}) AS pysdc_h_n")
    combos = _unique("combos")
    # a missing float key is NULL or NaN: one missing value (NULL), as pysdc's key codes see it
    grouped = ", ".join(f"{_key_value(table, k)} AS {table.q(k)}" for k in keys)
    table.query(f"SELECT {grouped}, {', '.join(aggs)} FROM {SRC} GROUP BY ALL").create(combos)
    checks = [f"count(*) FILTER (WHERE {' OR '.join(table.q(k) + ' IS NULL' for k in keys)})"]
    ints = [k for k in keys if table.types[k].upper() in _INT_TYPES]
    checks += [f"coalesce(max(abs(CAST({table.q(k)} AS HUGEINT))), 0)" for k in ints]
    got = con.execute(f"SELECT {', '.join(checks)} FROM {combos}").fetchall()[0]
    if any(int(v) > _EXACT_INT for v in got[1:]):
        con.execute(f"DROP TABLE {combos}")
        return None
    missing = bool(int(got[0]))
    if w is not None:
        bad, n_w, n_all, below = con.execute(
            f"SELECT count(*) FILTER (WHERE NOT isfinite(pysdc_w)), sum(pysdc_w_n), sum(pysdc_n), "
            f"count(*) FILTER (WHERE pysdc_w_min < 1) FROM {combos}").fetchall()[0]
        _check_weights(table, w, "measure_risk", clean=not bad and n_w == n_all and not below)
    m, n = con.execute(f"SELECT count(*), coalesce(sum(pysdc_n), 0) FROM {combos}").fetchall()[0]
    m, n = int(m), int(n)
    stage(f"frequencies of {m:,} key combinations ({n:,} records)")
    freqs = _unique("freqs")
    if missing:
        _wildcard_freqs(table, combos, freqs, keys, w is not None, alpha, n)
    else:
        # freq_core without missing keys: fk the records, Fk the weight sum (0 + sum, as its bincount)
        fk_sql = "CAST(pysdc_n AS DOUBLE)"
        Fk_sql = "0.0 + pysdc_w" if w is not None else fk_sql
        con.execute(f"CREATE TABLE {freqs} AS SELECT *, {fk_sql} AS pysdc_fk, {Fk_sql} AS pysdc_pop_fk FROM {combos}")
    con.execute(f"DROP TABLE {combos}")
    pairs = _unique("pairs")
    con.execute(f"CREATE TABLE {pairs} AS SELECT pysdc_fk, pysdc_pop_fk, sum(pysdc_n) AS pysdc_records "
                f"FROM {freqs} GROUP BY ALL")
    risks = _unique("risks")
    con.execute(f"CREATE TABLE {risks} (pysdc_fk DOUBLE, pysdc_pop_fk DOUBLE, pysdc_records HUGEINT, "
                "pysdc_risk DOUBLE)")
    stage("individual risks per pair (fk, Fk)")
    for batch in _arrow_chunks(con, f"SELECT pysdc_fk, pysdc_pop_fk, pysdc_records FROM {pairs}"):
        fk = batch.column(0).to_numpy(zero_copy_only=False).astype(np.float64)
        Fk = batch.column(1).to_numpy(zero_copy_only=False).astype(np.float64)
        rk = indiv_risk_arrays(fk, Fk, "approx", 1.0, w is not None)  # element-wise: as per combination
        pysdc_chunk = pa.table({"f": batch.column(0), "F": batch.column(1), "r": batch.column(2),  # noqa: F841
                                "k": pa.array(rk, type=pa.float64())})
        con.execute(f"INSERT INTO {risks} SELECT * FROM pysdc_chunk")
    con.execute(f"DROP TABLE {pairs}")
    res_name = _unique("res")
    extra = ", c.pysdc_h_n" if hid is not None else ""
    con.execute(f"CREATE TABLE {res_name} AS SELECT {', '.join('c.' + table.q(k) for k in keys)}, c.pysdc_n{extra}, "
                f"r.pysdc_fk, r.pysdc_pop_fk, r.pysdc_risk FROM {freqs} c JOIN {risks} r "
                f"ON c.pysdc_fk = r.pysdc_fk AND c.pysdc_pop_fk = r.pysdc_pop_fk")
    con.execute(f"DROP TABLE {freqs}")
    er, n_nan = con.execute(
        f"SELECT {fs}(pysdc_risk * CAST(pysdc_records AS DOUBLE)) FILTER (WHERE NOT isnan(pysdc_risk)), "
        f"coalesce(sum(pysdc_records) FILTER (WHERE isnan(pysdc_risk)), 0) FROM {risks}").fetchall()[0]
    er, n_nan = float(er or 0.0), int(n_nan)
    gr = er / n if n else float("nan")
    if n_nan:
        warnings.warn(
            f"measure_risk: {n_nan} record(s) have an undefined (NaN) risk (a zero or "
            "negative population frequency Fk, or weights so large that fk / Fk underflows); global_risk_er "
            "skips them and global_threshold is NaN, as in sdcMicro. Check the weights.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    if n == 0 or n_nan:
        thr = float("nan")
    else:
        stage("global risk threshold")
        distinct = (f"SELECT pysdc_risk, sum(pysdc_records) FROM {risks} GROUP BY pysdc_risk "
                    "ORDER BY pysdc_risk DESC")

        def chunks():
            for b in _arrow_chunks(con, distinct):
                yield (b.column(0).to_numpy(zero_copy_only=False).astype(np.float64),
                       b.column(1).to_numpy(zero_copy_only=False).astype(np.float64))

        thr = global_threshold_chunks(chunks, max_global_risk)
    res = con.table(res_name)
    individual = _records(table, keys, res, {"risk": "pysdc_risk", "fk": "pysdc_fk", "Fk": "pysdc_pop_fk"}, hid=hid,
                          equal=not missing, nan_null=missing)  # a plain equi-join without missing key values
    path = _WRITE_TO.get()
    if path is not None:  # the temporary file of writing_individual
        stage("joining the records to their risks and writing them" + (" (household risk too)" if hid else ""))
        individual.write_to(path)
    h_er = h_r = h_pct = None
    if hid is not None:
        stage("household risk")
        h_er = _household_er_in_engine(table, keys, hid, res, res_name, fast_hier, written=path,
                                       missing=missing)
        h_r = h_er / n if n else float("nan")
        h_pct = h_r * 100
    combos_table = table.table(con.sql(f"SELECT {ks}, pysdc_n AS n, pysdc_fk AS fk, pysdc_pop_fk AS \"Fk\", "
                                       f"pysdc_risk AS risk FROM {res_name}"), keys + ["n", "fk", "Fk", "risk"],
                               None, repeated=[])
    summaries = InEngineSummaries(con, res_name, risks, [table.q(k) for k in keys], keys, m, n)
    individual.keep = combos_table.keep = summaries  # the lazy tables read its DuckDB tables
    return MeasureRiskCombinations(
        global_risk_er=er, global_risk=gr, global_risk_pct=gr * 100, global_threshold=thr,
        max_global_risk=max_global_risk, hier_risk_er=h_er, hier_risk=h_r, hier_risk_pct=h_pct,
        individual=individual, key_vars=tuple(keys), counts=None, combinations=combos_table, n=n,
        summarise=summaries,
    )


def _household_er_in_engine(table, keys, hid, res, res_name, fast_hier, written=None, missing=False) -> float:
    """:func:`_household_er` over the combinations kept in DuckDB."""
    con = table.con
    fs = table.fsum()
    n_na, own, own_nan = con.execute(
        f"SELECT coalesce(sum(pysdc_n - pysdc_h_n), 0), "
        f"{fs}(pysdc_risk * CAST(pysdc_n - pysdc_h_n AS DOUBLE)) FILTER (WHERE pysdc_n > pysdc_h_n AND NOT isnan(pysdc_risk)), "
        f"count(*) FILTER (WHERE pysdc_n > pysdc_h_n AND isnan(pysdc_risk)) FROM {res_name}").fetchall()[0]
    n_na = int(n_na)
    if n_na:
        _warn_missing_hid(hid, n_na)
    if written is not None:
        return _written_household_total(table, written, fast_hier)
    hx = _hid_expr(table, hid, "s.")
    h = table.households(f"SELECT {hx} AS pysdc_h, r.pysdc_risk AS pysdc_risk FROM {SRC} s JOIN pysdc_res r ON "
                         f"{_key_match(table, keys, equal=not missing, nan_null=missing)}", res=res)
    total, n_nan = table.row(f"SELECT {fs}(CASE WHEN isnan(pysdc_hr) THEN 0 ELSE pysdc_m * pysdc_hr END), "
                             f"sum(CASE WHEN isnan(pysdc_hr) THEN 1 ELSE 0 END) FROM {h} h", res=res)
    if not fast_hier and (int(n_nan or 0) or int(own_nan)):
        return float("nan")
    return float(total or 0.0) + float(own or 0.0)


def _drop_tables(con, names) -> None:
    with contextlib.suppress(Exception):  # the connection may be closed at exit
        cur = con.cursor()
        for name in names:
            cur.execute(f"DROP TABLE IF EXISTS {name}")
        cur.close()


class InEngineSummaries:
    """The summaries of an engine's measure_risk whose combinations stay in DuckDB (a result's
    ``summarise``): SQL aggregates over the table of distinct pairs (fk, Fk) with their risk and
    records, the riskiest combinations by ORDER BY ... LIMIT. The numbers are those that
    :mod:`pysdc._summaries` and the model compute from the combination table (counts exact; quantiles
    bitwise, as :func:`pysdc._summaries.counted_quantile`; the mean a sum in another order)."""

    def __init__(self, con, res_name, risks, quoted_keys, keys, n_combinations, n):
        self.con, self.res_name, self.risks = con, res_name, risks
        self.quoted_keys, self.keys = quoted_keys, list(keys)
        self.n_combinations, self.n = int(n_combinations), int(n)
        # the tables go with the result (a process measuring many files does not keep them all in DuckDB)
        weakref.finalize(self, _drop_tables, con, [res_name, risks])

    def _one(self, sql, params=None):
        cur = self.con.cursor()
        try:
            return cur.execute(sql, params).fetchall()[0] if params else cur.execute(sql).fetchall()[0]
        finally:
            cur.close()

    def below(self, column: str, limits) -> list[int]:
        """Records whose ``column`` (``"fk"`` or ``"Fk"``) is below each of ``limits``."""
        col = {"fk": "pysdc_fk", "Fk": "pysdc_pop_fk"}[column]
        if not limits:
            return []
        got = self._one("SELECT " + ", ".join(f"coalesce(sum(pysdc_records) FILTER (WHERE {col} < ?), 0)"
                                             for _ in limits) + f" FROM {self.risks}", [float(x) for x in limits])
        return [int(v) for v in got]

    def quantiles(self, ps, value: str = "pysdc_risk", params=None) -> list:
        """R's type-7 quantiles of the risks (NaN left out) each repeated by its records, as
        :func:`pysdc._summaries.counted_quantile` (None without records)."""
        d = (f"SELECT {value} AS v, sum(pysdc_records) AS c FROM {self.risks} WHERE NOT isnan(pysdc_risk) "
             "GROUP BY 1")
        (n,) = self._one(f"SELECT coalesce(sum(c), 0) FROM ({d})", params)
        n = int(n)
        if n == 0:
            return [None] * len(ps)
        targets, spots = [], []
        for p in ps:
            h = (n - 1) * p
            lo = int(np.floor(h))
            spots.append((h, lo, len(targets)))
            targets += [lo + 1, min(lo + 2, n)]
        sql = (f"WITH d AS ({d}), w AS (SELECT v, sum(c) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND "
               "CURRENT ROW) AS cum FROM d) SELECT " + ", ".join(f"min(v) FILTER (WHERE cum >= {t})" for t in targets)
               + " FROM w")
        got = self._one(sql, params)
        out = []
        for h, lo, i in spots:
            a, b = float(got[i]), float(got[i + 1])
            out.append(float(a + (h - lo) * (b - a)))
        return out

    def distribution(self, ps, edges) -> dict:
        """Quantiles (``ps``), records per bin of ``edges`` (the last bin closed), above the last edge, the
        mean, the records with a risk and those without (NaN)."""
        edges = [float(e) for e in edges]
        parts, params = [], []
        for i in range(len(edges) - 1):
            last = i == len(edges) - 2
            parts.append(f"coalesce(sum(pysdc_records) FILTER (WHERE pysdc_risk >= ? AND pysdc_risk {'<=' if last else '<'} ?), 0)")
            params += [edges[i], edges[i + 1]]
        parts.append("coalesce(sum(pysdc_records) FILTER (WHERE NOT isnan(pysdc_risk) AND pysdc_risk > ?), 0)")
        params.append(edges[-1])
        fs = "fsum(pysdc_risk * CAST(pysdc_records AS DOUBLE)) FILTER (WHERE NOT isnan(pysdc_risk))"
        parts += [fs, "coalesce(sum(pysdc_records) FILTER (WHERE NOT isnan(pysdc_risk)), 0)",
                  "coalesce(sum(pysdc_records) FILTER (WHERE isnan(pysdc_risk)), 0)"]
        got = self._one("SELECT " + ", ".join(parts) + f" FROM {self.risks}", params)
        nb = len(edges) - 1
        total, n_ok, n_nan = got[nb + 1], int(got[nb + 2]), int(got[nb + 3])
        return {"quantiles": self.quantiles(ps), "bins": [int(v) for v in got[:nb]], "above": int(got[nb]),
                "mean": float(total) / n_ok if n_ok else None, "n_ok": n_ok, "n_missing": n_nan}

    def any_nan(self) -> bool:
        (k,) = self._one(f"SELECT count(*) FILTER (WHERE isnan(pysdc_risk)) FROM {self.risks}")
        return bool(k)

    def top(self, k: int) -> pd.DataFrame:
        """The ``k`` riskiest combinations (an undefined risk last; ties by their key values): key values,
        ``n``, ``fk``, ``Fk``, ``risk``."""
        cur = self.con.cursor()
        try:
            keys = ", ".join(self.quoted_keys)
            return cur.execute(
                f"SELECT {keys}, pysdc_n AS n, pysdc_fk AS fk, pysdc_pop_fk AS pysdc_Fk, pysdc_risk AS risk "
                f"FROM {self.res_name} ORDER BY CASE WHEN isnan(pysdc_risk) THEN 1 ELSE 0 END, pysdc_risk DESC, "
                f"{keys} LIMIT {int(k)}").df().rename(columns={"pysdc_Fk": "Fk"})
        finally:
            cur.close()

    def higher_risk(self) -> dict:
        """:func:`pysdc._summaries.higher_risk` of the risks with their records."""
        (med,) = self.quantiles([0.5])
        if med is None:
            return {"count": 0, "cut": None, "median": None, "mad": None}
        (dev,) = self.quantiles([0.5], value="abs(pysdc_risk - ?)", params=[med])
        mad = 1.4826 * dev
        cut = max(HIGH_RISK_FLOOR, med + HIGH_RISK_MADS * mad)
        (count,) = self._one(f"SELECT coalesce(sum(pysdc_records) FILTER (WHERE NOT isnan(pysdc_risk) AND "
                             f"pysdc_risk > ?), 0) FROM {self.risks}", [float(cut)])
        return {"count": int(count), "cut": cut, "median": med, "mad": mad}


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


# =============================================================================
# measure_risk on Spark with the key combinations kept in Spark (combinations_in_engine)

#: Spark types whose distinct raw values are distinct codes in pysdc.core.keys.key_codes (measure_risk's rules)
_SPARK_FLOATS = ("double", "float")
_SPARK_INTS = ("tinyint", "smallint", "int", "bigint")


def _spark_double(x) -> str:
    """A double literal in Spark SQL (a plain ``0.1`` is a DECIMAL there): exactly ``x`` (repr round-trips)."""
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _spark_risk_batches(weighted: bool):
    """mapInPandas's function: each batch of the combination table (with ``pysdc_fk`` and ``pysdc_pop_fk``)
    with ``pysdc_risk``, pysdc's core :func:`pysdc.core.indiv.indiv_risk_arrays` applied element-wise (as
    per combination on the pandas path: bitwise the same risks)."""

    def apply(batches):
        for b in batches:
            fk = b["pysdc_fk"].to_numpy(dtype=np.float64)
            Fk = b["pysdc_pop_fk"].to_numpy(dtype=np.float64)
            yield b.assign(pysdc_risk=indiv_risk_arrays(fk, Fk, "approx", 1.0, weighted))

    return apply


def _measure_risk_spark(table, keys, w, hid, max_global_risk, fast_hier, alpha=1.0):
    """measure_risk on Spark with the combinations in Spark (:func:`combinations_in_engine`): the group-by,
    fk/Fk, the risks (pysdc's core per partition, mapInPandas), the per-record join and the summaries
    (:class:`SparkSummaries`) are Spark's work; the driver receives aggregates, the ``top`` rows and the
    distinct risks streamed in decreasing order for the threshold (one partition at a time). Missing key
    values are sdcMicro's wildcards, matched pattern by pattern (:func:`_wildcard_freqs_spark`). None, and
    the caller collects the combinations as before, where a key's type may code distinct values alike
    (decimals, dates, integers beyond 2^53)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    for k in keys:
        t = table.types[k].lower()
        if not (t in _SPARK_FLOATS or t in _SPARK_INTS or t in ("string", "boolean")):
            return None
    q = table.q
    stage(f"grouping the records by {', '.join(keys)}")
    aggs = ["count(*) AS pysdc_n"]
    if w is not None:
        wv = f"CAST({q(w)} AS DOUBLE)" if table.rclass(w) == "numeric" else _weight_expr(table, w)
        aggs += [f"sum({wv}) AS pysdc_w", f"count({wv}) AS pysdc_w_n", f"min({wv}) AS pysdc_w_min"]
    if hid is not None:
        aggs.append(f"count({_hid_expr(table, hid)}) AS pysdc_h_n")
    grouped = [_key_value(table, k) for k in keys]
    combos = table.query(f"SELECT {', '.join(f'{g} AS {q(k)}' for g, k in zip(grouped, keys))}, {', '.join(aggs)} "
                         f"FROM {SRC} GROUP BY {', '.join(grouped)}").persist()
    checks = [f"sum(CASE WHEN {' OR '.join(q(k) + ' IS NULL' for k in keys)} THEN 1 ELSE 0 END)",
              "count(*)", "coalesce(sum(pysdc_n), 0)"]
    big = _EXACT_INT
    checks += [f"sum(CASE WHEN {q(k)} > {big} OR {q(k)} < -{big} THEN 1 ELSE 0 END)"
               for k in keys if table.types[k].lower() in _SPARK_INTS]
    if w is not None:
        checks += ["sum(CASE WHEN isnan(pysdc_w) OR abs(pysdc_w) = CAST('Infinity' AS DOUBLE) THEN 1 ELSE 0 END)",
                   "coalesce(sum(pysdc_w_n), 0)", "sum(CASE WHEN pysdc_w_min < 1 THEN 1 ELSE 0 END)"]
    got = table.row(f"SELECT {', '.join(checks)} FROM pysdc_res", res=combos)
    n_ints = len(checks) - 3 - (3 if w is not None else 0)
    missing, m, n = int(got[0] or 0), int(got[1]), int(got[2])
    if any(int(v or 0) for v in got[3:3 + n_ints]):
        combos.unpersist()
        return None
    if w is not None:
        bad, n_w, below = got[3 + n_ints:]
        _check_weights(table, w, "measure_risk", clean=not int(bad or 0) and int(n_w) == n and not int(below or 0))
    stage(f"frequencies of {m:,} key combinations ({n:,} records)")
    # freq_core without missing keys: fk the records, Fk the weight sum (0 + sum, as its bincount)
    fk_sql = "CAST(pysdc_n AS DOUBLE)"
    Fk_sql = "0.0D + pysdc_w" if w is not None else fk_sql
    wild = None
    if missing:  # sdcMicro's wildcards: a missing key matches every category
        freqs, wild = _wildcard_freqs_spark(table, combos, keys, w is not None, alpha, n)
    else:
        freqs = table.query(f"SELECT *, {fk_sql} AS pysdc_fk, {Fk_sql} AS pysdc_pop_fk FROM pysdc_res", res=combos)
    schema = T.StructType(list(freqs.schema.fields) + [T.StructField("pysdc_risk", T.DoubleType())])
    stage("individual risks per key combination")
    res = freqs.mapInPandas(_spark_risk_batches(w is not None), schema).persist()
    risks = (res.groupBy("pysdc_fk", "pysdc_pop_fk", "pysdc_risk")
             .agg(F.sum("pysdc_n").alias("pysdc_records")).persist())
    er, n_nan = table.row("SELECT sum(CASE WHEN isnan(pysdc_risk) THEN 0 ELSE pysdc_risk * "
                          "CAST(pysdc_records AS DOUBLE) END), coalesce(sum(CASE WHEN isnan(pysdc_risk) THEN "
                          "pysdc_records ELSE 0 END), 0) FROM pysdc_res", res=risks)
    _unpersist([combos] + ([wild] if wild is not None else []))
    er, n_nan = float(er or 0.0), int(n_nan)
    gr = er / n if n else float("nan")
    if n_nan:
        warnings.warn(
            f"measure_risk: {n_nan} record(s) have an undefined (NaN) risk (a zero or "
            "negative population frequency Fk, or weights so large that fk / Fk underflows); global_risk_er "
            "skips them and global_threshold is NaN, as in sdcMicro. Check the weights.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    if n == 0 or n_nan:
        thr = float("nan")
    else:
        stage("global risk threshold")
        distinct = (risks.groupBy("pysdc_risk").agg(F.sum("pysdc_records").alias("c"))
                    .orderBy(F.col("pysdc_risk").desc()))

        def chunks():
            vals, cnts = [], []
            for row in distinct.toLocalIterator(prefetchPartitions=False):
                vals.append(row[0])
                cnts.append(row[1])
                if len(vals) >= CHUNK_ROWS:
                    yield np.array(vals, dtype=np.float64), np.array(cnts, dtype=np.float64)
                    vals, cnts = [], []
            if vals:
                yield np.array(vals, dtype=np.float64), np.array(cnts, dtype=np.float64)

        thr = global_threshold_chunks(chunks, max_global_risk)
    joined = res
    if m <= BROADCAST_MAX_COMBINATIONS and table.spark.conf.get("spark.sql.autoBroadcastJoinThreshold") != "-1":
        joined = F.broadcast(res)  # the records are not shuffled by key (as SparkTable.attach)
    individual = _records(table, keys, joined, {"risk": "pysdc_risk", "fk": "pysdc_fk", "Fk": "pysdc_pop_fk"},
                          hid=hid, equal=not missing, nan_null=bool(missing))
    path = _WRITE_TO.get()
    if path is not None:  # the temporary file of writing_individual
        stage("joining the records to their risks and writing them" + (" (household risk too)" if hid else ""))
        individual.write_to(path)
    h_er = h_r = h_pct = None
    if hid is not None:
        stage("household risk")
        h_er = _household_er_spark(table, keys, hid, joined, fast_hier, written=path, missing=bool(missing))
        h_r = h_er / n if n else float("nan")
        h_pct = h_r * 100
    ks = ", ".join(q(k) for k in keys)
    combos_table = table.table(table.query(f"SELECT {ks}, pysdc_n AS n, pysdc_fk AS fk, pysdc_pop_fk AS Fk, "
                                           "pysdc_risk AS risk FROM pysdc_res", res=res),
                               keys + ["n", "fk", "Fk", "risk"], None, repeated=[])
    summaries = SparkSummaries(table, res, risks, [q(k) for k in keys], keys, m, n)
    individual.keep = combos_table.keep = summaries
    return MeasureRiskCombinations(
        global_risk_er=er, global_risk=gr, global_risk_pct=gr * 100, global_threshold=thr,
        max_global_risk=max_global_risk, hier_risk_er=h_er, hier_risk=h_r, hier_risk_pct=h_pct,
        individual=individual, key_vars=tuple(keys), counts=None, combinations=combos_table, n=n,
        summarise=summaries,
    )


def _wildcard_freqs_spark(table, combos, keys: list, weighted: bool, alpha: float, n: int):
    """:func:`_wildcard_freqs` on Spark: ``combos`` (a DataFrame, one row per combination, a missing key NULL)
    with ``pysdc_fk`` and ``pysdc_pop_fk`` by sdcMicro's wildcard rule, pattern by pattern (the same joins,
    as DataFrames; Python loops over the patterns, at most 2^k, never over combinations)."""
    from pyspark.sql import functions as F

    q = table.q
    k = len(keys)
    full = (1 << k) - 1
    f = "CAST(pysdc_n AS DOUBLE)"
    W = "(0.0D + pysdc_w)" if weighted else f
    pat = " + ".join(f"(CASE WHEN {q(key)} IS NULL THEN {1 << j} ELSE 0 END)" for j, key in enumerate(keys))
    base = table.query(f"SELECT *, monotonically_increasing_id() AS pysdc_cid, {pat} AS pysdc_pat, {f} AS pysdc_cn, "
                       f"{W} AS pysdc_cw FROM pysdc_res", res=combos).persist()
    pats = sorted(int(r[0]) for r in base.select("pysdc_pat").distinct().collect())
    (w_total,) = base.agg(F.coalesce(F.sum("pysdc_cw"), F.lit(0.0))).collect()[0]
    observed = {p: [keys[j] for j in range(k) if not (p >> j) & 1] for p in pats}
    a = float(alpha)
    cols = ["x_n", "x_w", "y_n", "y_w", "z_n", "z_w"]
    adds = []

    def add(df, n_col, w_col, kind, scale=1.0):
        out = df.select("pysdc_cid", *[(F.col(n_col) * F.lit(scale)).alias(c) if c == f"{kind}_n" else
                                       (F.col(w_col) * F.lit(scale)).alias(c) if c == f"{kind}_w" else
                                       F.lit(None).cast("double").alias(c) for c in cols])
        adds.append(out)

    def of(p):
        return base.where(F.col("pysdc_pat") == p)

    def grouped(p, cs):
        return of(p).groupBy(*cs).agg(F.sum("pysdc_cn").alias("s_n"), F.sum("pysdc_cw").alias("s_w"))

    def total(p):
        return of(p).agg(F.sum("pysdc_cn").alias("s_n"), F.sum("pysdc_cw").alias("s_w"))

    if k == 1:
        if 0 in pats and full in pats:
            add(of(0).select("pysdc_cid").crossJoin(total(full)), "s_n", "s_w", "x", a)
    else:
        for p in pats:
            if p == 0:
                continue
            obs = observed[p]
            if obs and 0 in pats:
                g = of(p).select(*obs, F.col("pysdc_cn").alias("g_n"), F.col("pysdc_cw").alias("g_w"))
                add(of(0).select("pysdc_cid", *obs).join(g, obs), "g_n", "g_w", "x", a)
            if p == full:
                continue
            if obs and 0 in pats:
                add(of(p).select("pysdc_cid", *obs).join(grouped(0, obs), obs), "s_n", "s_w", "z")
            for r in pats:
                if r in (0, p):
                    continue
                common = [c for c in obs if c in observed[r]]
                if common:
                    add(of(p).select("pysdc_cid", *common).join(grouped(r, common), common), "s_n", "s_w", "y")
                else:
                    add(of(p).select("pysdc_cid").crossJoin(total(r)), "s_n", "s_w", "y")
    if adds:
        d = adds[0]
        for more in adds[1:]:
            d = d.unionByName(more)
        d = d.groupBy("pysdc_cid").agg(*[F.sum(c).alias(c) for c in cols])
    else:
        d = base.select("pysdc_cid", *[F.lit(None).cast("double").alias(c) for c in cols]).limit(0)
    z = F.lit(0.0)
    pat_col, cn, cw = F.col("pysdc_pat"), F.col("pysdc_cn"), F.col("pysdc_cw")
    fk = (F.when(pat_col == 0, cn + F.coalesce(F.col("x_n"), z)).when(pat_col == full, F.lit(float(n)))
          .otherwise(cn + (F.coalesce(F.col("y_n"), z) * F.lit(a) + F.coalesce(F.col("z_n"), z))))
    Fk = (F.when(pat_col == 0, cw + F.coalesce(F.col("x_w"), z)).when(pat_col == full, F.lit(float(w_total)))
          .otherwise(cw + (F.coalesce(F.col("y_w"), z) * F.lit(a) + F.coalesce(F.col("z_w"), z))))
    out = base.join(d, "pysdc_cid", "left").select(*combos.columns, fk.alias("pysdc_fk"), Fk.alias("pysdc_pop_fk"))
    return out, base


def _household_er_spark(table, keys, hid, res, fast_hier, written=None, missing=False) -> float:
    """:func:`_household_er` over the combinations kept in Spark."""
    n_na, own, own_nan = table.row(
        "SELECT coalesce(sum(pysdc_n - pysdc_h_n), 0), sum(CASE WHEN pysdc_n > pysdc_h_n AND NOT isnan(pysdc_risk) "
        "THEN pysdc_risk * CAST(pysdc_n - pysdc_h_n AS DOUBLE) END), sum(CASE WHEN pysdc_n > pysdc_h_n AND "
        "isnan(pysdc_risk) THEN 1 ELSE 0 END) FROM pysdc_res", res=res)
    n_na = int(n_na or 0)
    if n_na:
        _warn_missing_hid(hid, n_na)
    if written is not None:
        return _written_household_total(table, written, fast_hier)
    hx = _hid_expr(table, hid, "s.")
    h = table.households(f"SELECT {hx} AS pysdc_h, r.pysdc_risk AS pysdc_risk FROM {SRC} s JOIN pysdc_res r ON "
                         f"{_key_match(table, keys, equal=not missing, nan_null=missing)}", res=res)
    total, n_nan = table.row("SELECT sum(CASE WHEN isnan(pysdc_hr) THEN 0 ELSE pysdc_m * pysdc_hr END), "
                             f"sum(CASE WHEN isnan(pysdc_hr) THEN 1 ELSE 0 END) FROM {h} h", res=res)
    if not fast_hier and (int(n_nan or 0) or int(own_nan or 0)):
        return float("nan")
    return float(total or 0.0) + float(own or 0.0)


def _unpersist(frames) -> None:
    with contextlib.suppress(Exception):  # the session may be stopped at exit
        for df in frames:
            df.unpersist()


class SparkSummaries:
    """:class:`InEngineSummaries` on Spark: the summaries of measure_risk by Spark SQL aggregates over the
    table of distinct (fk, Fk, risk) with their records and over the combination table (the riskiest by
    ORDER BY ... LIMIT); only single rows and the ``top`` rows reach the driver. The numbers are those of
    the pandas path (counts exact; quantiles as :func:`pysdc._summaries.counted_quantile`; the mean a sum
    in another order: ENGINE_SUMS)."""

    def __init__(self, table, res, risks, quoted_keys, keys, n_combinations, n):
        self.table, self.res, self.risks = table, res, risks
        self.quoted_keys, self.keys = quoted_keys, list(keys)
        self.n_combinations, self.n = int(n_combinations), int(n)
        weakref.finalize(self, _unpersist, [res, risks])

    def _one(self, sql) -> tuple:
        return self.table.row(sql, res=self.risks)

    def below(self, column: str, limits) -> list[int]:
        """Records whose ``column`` (``"fk"`` or ``"Fk"``) is below each of ``limits``."""
        col = {"fk": "pysdc_fk", "Fk": "pysdc_pop_fk"}[column]
        if not limits:
            return []
        got = self._one("SELECT " + ", ".join(f"coalesce(sum(CASE WHEN {col} < {_spark_double(x)} THEN pysdc_records "
                                              "ELSE 0 END), 0)" for x in limits) + " FROM pysdc_res")
        return [int(v) for v in got]

    def quantiles(self, ps, value: str = "pysdc_risk") -> list:
        """R's type-7 quantiles of the risks (NaN left out) each repeated by its records (None without records)."""
        d = (f"SELECT {value} AS v, sum(pysdc_records) AS c FROM pysdc_res WHERE NOT isnan(pysdc_risk) "
             "GROUP BY 1")
        (n,) = self._one(f"SELECT coalesce(sum(c), 0) FROM ({d}) d")
        n = int(n)
        if n == 0:
            return [None] * len(ps)
        targets, spots = [], []
        for p in ps:
            h = (n - 1) * p
            lo = int(np.floor(h))
            spots.append((h, lo, len(targets)))
            targets += [lo + 1, min(lo + 2, n)]
        sql = (f"WITH d AS ({d}), w AS (SELECT v, sum(c) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND "
               "CURRENT ROW) AS cum FROM d) SELECT " + ", ".join(f"min(CASE WHEN cum >= {t} THEN v END)"
                                                                 for t in targets) + " FROM w")
        got = self._one(sql)
        out = []
        for h, lo, i in spots:
            a, b = float(got[i]), float(got[i + 1])
            out.append(float(a + (h - lo) * (b - a)))
        return out

    def distribution(self, ps, edges) -> dict:
        """As :meth:`InEngineSummaries.distribution`."""
        edges = [float(e) for e in edges]
        parts = []
        for i in range(len(edges) - 1):
            last = i == len(edges) - 2
            parts.append(f"coalesce(sum(CASE WHEN pysdc_risk >= {_spark_double(edges[i])} AND pysdc_risk "
                         f"{'<=' if last else '<'} {_spark_double(edges[i + 1])} THEN pysdc_records ELSE 0 END), 0)")
        parts.append(f"coalesce(sum(CASE WHEN NOT isnan(pysdc_risk) AND pysdc_risk > {_spark_double(edges[-1])} "
                     "THEN pysdc_records ELSE 0 END), 0)")
        parts += ["sum(CASE WHEN NOT isnan(pysdc_risk) THEN pysdc_risk * CAST(pysdc_records AS DOUBLE) END)",
                  "coalesce(sum(CASE WHEN NOT isnan(pysdc_risk) THEN pysdc_records ELSE 0 END), 0)",
                  "coalesce(sum(CASE WHEN isnan(pysdc_risk) THEN pysdc_records ELSE 0 END), 0)"]
        got = self._one("SELECT " + ", ".join(parts) + " FROM pysdc_res")
        nb = len(edges) - 1
        total, n_ok, n_nan = got[nb + 1], int(got[nb + 2]), int(got[nb + 3])
        return {"quantiles": self.quantiles(ps), "bins": [int(v) for v in got[:nb]], "above": int(got[nb]),
                "mean": float(total) / n_ok if n_ok else None, "n_ok": n_ok, "n_missing": n_nan}

    def any_nan(self) -> bool:
        (k,) = self._one("SELECT sum(CASE WHEN isnan(pysdc_risk) THEN 1 ELSE 0 END) FROM pysdc_res")
        return bool(k)

    def top(self, k: int) -> pd.DataFrame:
        """The ``k`` riskiest combinations (an undefined risk last; ties by their key values): key values,
        ``n``, ``fk``, ``Fk``, ``risk``."""
        keys = ", ".join(self.quoted_keys)
        return self.table.fetch(
            f"SELECT {keys}, pysdc_n AS n, pysdc_fk AS fk, pysdc_pop_fk AS pysdc_Fk, pysdc_risk AS risk FROM pysdc_res "
            f"ORDER BY CASE WHEN isnan(pysdc_risk) THEN 1 ELSE 0 END, pysdc_risk DESC, {keys} LIMIT {int(k)}",
            res=self.res).rename(columns={"pysdc_Fk": "Fk"})

    def higher_risk(self) -> dict:
        """:func:`pysdc._summaries.higher_risk` of the risks with their records."""
        (med,) = self.quantiles([0.5])
        if med is None:
            return {"count": 0, "cut": None, "median": None, "mad": None}
        (dev,) = self.quantiles([0.5], value=f"abs(pysdc_risk - {_spark_double(med)})")
        mad = 1.4826 * dev
        cut = max(HIGH_RISK_FLOOR, med + HIGH_RISK_MADS * mad)
        (count,) = self._one(f"SELECT coalesce(sum(CASE WHEN NOT isnan(pysdc_risk) AND pysdc_risk > "
                             f"{_spark_double(cut)} THEN pysdc_records ELSE 0 END), 0) FROM pysdc_res")
        return {"count": int(count), "cut": cut, "median": med, "mad": mad}
