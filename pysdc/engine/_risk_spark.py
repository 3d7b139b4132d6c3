"""measure_risk with the key combinations kept in Spark: the group-by, the individual risks by pysdc's own
kernel per partition, the summaries as Spark aggregates (:class:`SparkSummaries`), missing keys by joins."""

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
from ._tables import BROADCAST_MAX_COMBINATIONS, SRC, _spark_pandas

__all__ = ["SparkSummaries"]

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
    values are sdcMicro's wildcards, the patterns matched in one join (:func:`_wildcard_freqs_spark`). None, and
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
    if any(int(v or 0) for v in got[3:3 + n_ints]):  # keys that may code alike: the combinations are collected
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
    # (mapInPandas resolves its columns by name, taking a dot as a struct's field: a key named "rb090.1", as
    # R's read.csv names a header's second "rb090", goes through under a plain name and comes back)
    names = list(freqs.columns)
    plain = [n if "." not in n and "`" not in n else f"pysdc_c{j}" for j, n in enumerate(names)]
    fields = [T.StructField(p, f.dataType, f.nullable) for p, f in zip(plain, freqs.schema.fields)]
    schema = T.StructType(fields + [T.StructField("pysdc_risk", T.DoubleType())])
    stage("individual risks per key combination")
    with _spark_pandas():  # pyspark's pandas >= 3 notice (a pandas UDF), not the user's concern
        res = (freqs.toDF(*plain).mapInPandas(_spark_risk_batches(w is not None), schema)
               .toDF(*names, "pysdc_risk").persist())
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


def _wildcard_pairs(pats: list, k: int) -> list:
    """The pairs of patterns whose combinations add to each other under sdcMicro's wildcard rule (as
    :func:`pysdc.engine._risk_duckdb._wildcard_freqs` joins them): ``(to, from, kind)``, the combinations of
    pattern ``to`` receive the (grouped) counts of the compatible combinations of pattern ``from``. ``kind``:
    ``x`` to a complete combination (alpha times each match), ``y`` from another pattern with missing keys
    (alpha times the sum), ``z`` from the complete combinations (the sum)."""
    full = (1 << k) - 1
    if k == 1:  # one key: every complete combination matches every missing record
        return [(0, full, "x")] if 0 in pats and full in pats else []
    out = []
    for p in pats:
        if p == 0:
            continue
        if p != full and 0 in pats:  # a complete combination matches at most one combination of pattern p
            out.append((0, p, "x"))
        if p == full:
            continue  # all keys missing: fk = n, Fk = the weight total
        if 0 in pats:
            out.append((p, 0, "z"))
        out += [(p, r, "y") for r in pats if r not in (0, p)]
    return out


def _wildcard_freqs_spark(table, combos, keys: list, weighted: bool, alpha: float, n: int):
    """:func:`_wildcard_freqs` on Spark: ``combos`` (a DataFrame, one row per combination, a missing key NULL)
    with ``pysdc_fk`` and ``pysdc_pop_fk`` by sdcMicro's wildcard rule.

    The pairs of patterns (:func:`_wildcard_pairs`, at most 2^k x 2^k, a small table broadcast) are matched
    in ONE equi-join, not one join per pair: each combination is repeated once per pair it receives from, with
    its key values kept on the keys observed in both patterns and NULL elsewhere; each combination is
    repeated once per pair it gives to, masked alike and grouped; the two meet on (pair, masked keys). The
    plan has the same few operators whatever the number of patterns (one join per pair, unioned, made plans
    of hundreds of joins whose tasks the driver ran out of memory serialising on 24,000 records), and the
    combination table and the result are checkpointed (their lineage cut: every later aggregate reads them
    as stored). The Spark work grows with the combinations times the patterns present, never with the
    records; Python loops over the patterns only. Counts exact (sums of integers); weight sums in another
    order than freq_core's (ENGINE_SUMS)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    q = table.q
    k = len(keys)
    full = (1 << k) - 1
    f = "CAST(pysdc_n AS DOUBLE)"
    W = "(0.0D + pysdc_w)" if weighted else f
    pat = " + ".join(f"(CASE WHEN {q(key)} IS NULL THEN {1 << j} ELSE 0 END)" for j, key in enumerate(keys))
    # the identifiers are fixed once the table is stored (checkpointed: not recomputed, never renumbered)
    base = table.query(f"SELECT *, monotonically_increasing_id() AS pysdc_cid, {pat} AS pysdc_pat, {f} AS pysdc_cn, "
                       f"{W} AS pysdc_cw FROM pysdc_res", res=combos).localCheckpoint(eager=True)
    pats = sorted(int(r[0]) for r in base.select("pysdc_pat").distinct().collect())  # at most 2^k rows
    w_total = float(base.agg(F.coalesce(F.sum("pysdc_cw"), F.lit(0.0))).collect()[0][0])
    pairs = _wildcard_pairs(pats, k)
    a = float(alpha)
    cols = ["x_n", "x_w", "y_n", "y_w", "z_n", "z_w"]
    if pairs:
        schema = T.StructType([T.StructField("pysdc_to", T.LongType()), T.StructField("pysdc_from", T.LongType()),
                               T.StructField("pysdc_kind", T.StringType()), T.StructField("pysdc_keep", T.LongType())])
        # the keys compared: those observed in both patterns (bit j set: key j kept)
        ptab = F.broadcast(table.spark.createDataFrame([(t, g, kind, full & ~(t | g)) for t, g, kind in pairs],
                                                       schema))
        masked = [F.when((F.col("pysdc_keep").bitwiseAND(F.lit(1 << j))) != 0, F.col(key)).alias(f"pysdc_m{j}")
                  for j, key in enumerate(keys)]
        ms = [f"pysdc_m{j}" for j in range(k)]
        to = (base.join(ptab, F.col("pysdc_pat") == F.col("pysdc_to"))
              .select("pysdc_cid", "pysdc_to", "pysdc_from", "pysdc_kind", *masked))
        given = (base.join(ptab, F.col("pysdc_pat") == F.col("pysdc_from"))
                 .select("pysdc_to", "pysdc_from", *masked, "pysdc_cn", "pysdc_cw")
                 .groupBy("pysdc_to", "pysdc_from", *ms)
                 .agg(F.sum("pysdc_cn").alias("s_n"), F.sum("pysdc_cw").alias("s_w"))
                 .select(*[F.col(c).alias("g_" + c) for c in ["pysdc_to", "pysdc_from", *ms]], "s_n", "s_w"))
        on = [F.col("pysdc_to") == F.col("g_pysdc_to"), F.col("pysdc_from") == F.col("g_pysdc_from")]
        on += [F.col(m).eqNullSafe(F.col("g_" + m)) for m in ms]  # NULL: a key not compared
        matched = to.join(given, on).select("pysdc_cid", "pysdc_kind", "s_n", "s_w")
        kind = F.col("pysdc_kind")

        def part(name, c, scale=None):
            v = F.col(c) * F.lit(scale) if scale is not None else F.col(c)
            return F.sum(F.when(kind == name, v)).alias(f"{name}_{c[-1]}")

        d = matched.groupBy("pysdc_cid").agg(part("x", "s_n", a), part("x", "s_w", a), part("y", "s_n"),
                                             part("y", "s_w"), part("z", "s_n"), part("z", "s_w"))
    else:
        d = base.select("pysdc_cid", *[F.lit(None).cast("double").alias(c) for c in cols]).limit(0)
    z = F.lit(0.0)
    pat_col, cn, cw = F.col("pysdc_pat"), F.col("pysdc_cn"), F.col("pysdc_cw")
    fk = (F.when(pat_col == 0, cn + F.coalesce(F.col("x_n"), z)).when(pat_col == full, F.lit(float(n)))
          .otherwise(cn + (F.coalesce(F.col("y_n"), z) * F.lit(a) + F.coalesce(F.col("z_n"), z))))
    Fk = (F.when(pat_col == 0, cw + F.coalesce(F.col("x_w"), z)).when(pat_col == full, F.lit(w_total))
          .otherwise(cw + (F.coalesce(F.col("y_w"), z) * F.lit(a) + F.coalesce(F.col("z_w"), z))))
    out = (base.join(d, "pysdc_cid", "left").select(*combos.columns, fk.alias("pysdc_fk"), Fk.alias("pysdc_pop_fk"))
           .localCheckpoint(eager=True))
    return out, None


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
