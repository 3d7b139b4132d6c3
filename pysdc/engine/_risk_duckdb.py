"""measure_risk with the key combinations kept in DuckDB (:func:`pysdc.engine._risk.combinations_in_engine`):
sdcMicro's wildcard matching in SQL, the pairs (fk, Fk) and the distinct risks read in pieces, the summaries
as SQL aggregates (:class:`InEngineSummaries`)."""

from __future__ import annotations

import contextlib
import warnings
import weakref

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning
from .._progress import stage
from .._results import MeasureRiskCombinations
from .._summaries import HIGH_RISK_FLOOR, HIGH_RISK_MADS
from .._validation import user_stacklevel
from ..core.indiv import indiv_risk_arrays
from ..core.threshold import global_threshold_chunks
from ._risk_common import (
    _EXACT_INT,
    _FLOAT_TYPES,
    _INT_TYPES,
    _WRITE_TO,
    CHUNK_ROWS,
    _check_weights,
    _hid_expr,
    _key_match,
    _key_value,
    _records,
    _warn_missing_hid,
    _weight_expr,
    _written_household_total,
)
from ._tables import SRC, _unique

__all__ = ["InEngineSummaries"]

# =============================================================================
# measure_risk with the key combinations kept in DuckDB (combinations_in_engine)



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
