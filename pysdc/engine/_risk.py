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

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, PysdcWarning
from .._progress import stage
from .._results import (
    FreqCalcCombinations,
    KAnonResult,
    LDiversityCombinations,
    MeasureRiskCombinations,
)
from .._validation import user_stacklevel
from ..core.freq import r_as_numeric, r_round
from ..core.indiv import indiv_risk_arrays
from ..core.keys import key_codes, warn_fk_overflow
from ..core.ldiversity import ldiversity_block
from ..core.threshold import global_threshold_grouped
from ._risk_common import (  # combinations_in_engine, writing_individual, CHUNK_ROWS: re-exported
    _FLOAT_TYPES,
    _IN_ENGINE,
    _WRITE_TO,
    CHUNK_ROWS,
    _combinations,
    _hid_expr,
    _indiv_risk_of,
    _key_match,
    _memory_limited,
    _records,
    _warn_missing_hid,
    _written_household_total,
    combinations_in_engine,
    writing_individual,
)
from ._risk_duckdb import _measure_risk_in_engine
from ._risk_spark import _measure_risk_spark
from ._tables import SRC

__all__ = ["freq_calc_engine", "measure_risk_engine", "k_anon_engine", "ldiversity_engine", "writing_individual",
           "combinations_in_engine", "CHUNK_ROWS"]

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
