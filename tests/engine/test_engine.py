"""The DuckDB engine (issue 11) gives the pandas path's numbers: counts exactly, sums to ENGINE_SUMS.

The pandas path is the reference (itself checked against sdcMicro's stored outputs elsewhere); here
the same stored r_reference inputs, and generated data with missing keys, households and weights,
go through a DuckDB relation and through ``pysdc.scan`` of Parquet/CSV files, directories and globs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _engine_data import ORDINAL_SCALES, cli_json, ordinal_pair, parquet_parts

import pysdc
from pysdc._tolerances import ENGINE_SUMS, tolerance_for
from pysdc.core.freq import freq_core, series_codes
from pysdc.core.threshold import global_threshold, global_threshold_grouped
from pysdc.io import read_table

from _live import optional

duckdb = optional("duckdb")
pytestmark = pytest.mark.duckdb  # duckdb and pyarrow: skipped with the reason by tests/conftest.py

REF = Path(__file__).resolve().parents[2] / "r_reference" / "inputs"
HIER = tolerance_for("measure_risk", "hier_risk")


def _input(name: str) -> pd.DataFrame:
    return read_table(REF / f"{name}.csv.gz")


def _close(a, b, tol=ENGINE_SUMS, atol=None):
    np.testing.assert_allclose(np.asarray(b, dtype=float), np.asarray(a, dtype=float), rtol=tol.rtol,
                               atol=tol.atol if atol is None else atol, equal_nan=True)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _generated(n=3000, seed=7) -> pd.DataFrame:
    """Keys with missing values (numbers, text, categories), weights, households with missing ids."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 5, n).astype(float),
        "b": rng.integers(0, 4, n),
        "c": pd.Categorical(rng.choice(["x", "y", "z"], n)),
        "t": rng.choice(["p", "q"], n).astype(object),
        "w": rng.uniform(1.0, 80.0, n),
        "h": np.sort(rng.integers(0, n // 3, n)).astype(float),
    })
    df.loc[rng.random(n) < 0.04, "a"] = np.nan
    df.loc[rng.random(n) < 0.03, "c"] = np.nan
    df.loc[rng.random(n) < 0.02, "t"] = None
    df.loc[rng.random(n) < 0.01, "h"] = np.nan
    df.loc[:4, ["a", "c", "t"]] = np.nan  # some records with every key missing
    return df


# ----------------------------------------------------------------------------- the core on combinations

def test_freq_core_on_a_combination_table_equals_the_records():
    df = _generated()
    keys = ["a", "b", "c"]
    codes, cards = zip(*[series_codes(df[k])[:2] for k in keys])
    for alpha in (1.0, 0.3):
        fk, Fk, cnt, inv = freq_core(list(codes), np.array(cards), df["w"].to_numpy(), alpha)
        g = df.groupby(keys, dropna=False, sort=False, observed=True)
        table = g.agg(n=("w", "size"), ws=("w", "sum")).reset_index()
        tc, tcards = zip(*[series_codes(table[k])[:2] for k in keys])
        fk2, Fk2, cnt2, inv2 = freq_core(list(tc), np.array(tcards), table["ws"].to_numpy(), alpha,
                                         counts=table["n"].to_numpy())
        # per record: the record's combination row in the table
        row = g.ngroup().to_numpy()
        np.testing.assert_array_equal(fk2[inv2][row], fk[inv])
        _close(Fk[inv], Fk2[inv2][row])
        assert cnt2.sum() == len(df) and sorted(cnt2) == sorted(cnt)


@pytest.mark.parametrize("seed", range(6))
def test_grouped_threshold_walk_equals_the_record_walk(seed):
    rng = np.random.default_rng(seed)
    for _ in range(300):
        m = int(rng.integers(1, 9))
        r = rng.choice([1.0, 0.5, 0.25, 0.1, 0.05, 1 / 3, 1 / 7], m) if rng.random() < 0.7 else rng.random(m)
        c = rng.integers(1, 60, m)
        mgr = float(rng.choice([0.001, 0.01, 0.05, 0.2, 0.5]))
        expected = global_threshold(np.repeat(r, c), mgr)
        got = global_threshold_grouped(r, c, mgr, max_len=int(rng.integers(1, 40)))
        assert (np.isnan(expected) and np.isnan(got)) or expected == got, (r, c, mgr)


# ----------------------------------------------------------------------------- risk on the stored inputs

RISK_INPUTS = ["keys2000", "keys2000_na", "keys300_nam", "keys8_na", "keys20_allna", "keys300_w0", "keys300"]


@pytest.mark.parametrize("name", RISK_INPUTS)
def test_measure_risk_on_duckdb_equals_pandas(name):
    df = _input(name)
    keys = [k for k in ("k1", "k2", "k3", "k4", "kc") if k in df]
    for w, hid in ((None, None), ("w", "hid")):
        ref = _quiet(pysdc.measure_risk, df, keys, w=w, hid=hid)
        got = _quiet(pysdc.measure_risk, duckdb.from_df(df), keys, w=w, hid=hid)
        _close(ref.global_risk_er, got.global_risk_er)
        _close(ref.global_threshold, got.global_threshold, atol=0)
        ind = got.individual.to_pandas()
        assert list(ind["record"]) == list(range(1, len(df) + 1))
        np.testing.assert_array_equal(ind["fk"], ref.individual["fk"])
        _close(ref.individual["Fk"], ind["Fk"])
        _close(ref.individual["risk"], ind["risk"])
        if hid:
            _close(ref.hier_risk_er, got.hier_risk_er)
            _close(ref.individual["hier_risk"], ind["hier_risk"], atol=HIER.atol)


@pytest.mark.parametrize("name", RISK_INPUTS)
def test_freq_calc_indiv_risk_k_anon_on_duckdb_equal_pandas(name):
    df = _input(name)
    keys = [k for k in ("k1", "k2", "k3", "k4") if k in df]
    rel = duckdb.from_df(df)
    for alpha in (1.0, 0.5):
        ref = _quiet(pysdc.freq_calc, df, keys, w="w", alpha=alpha)
        got = _quiet(pysdc.freq_calc, rel, keys, w="w", alpha=alpha)
        assert (got.n1, got.n2) == (ref.n1, ref.n2)
        ind = got.individual.to_pandas()
        np.testing.assert_array_equal(ind["fk"], ref.fk)
        _close(ref.Fk, ind["Fk"])
        for method in ("approx", "exact"):
            r_ref = _quiet(pysdc.indiv_risk, ref, method=method)
            r_got = _quiet(pysdc.indiv_risk, got, method=method)
            _close(r_ref.rk, r_got.individual.to_pandas()["rk"])
    for k in (2, 3, 5):
        for weighted in (False, True):
            assert _quiet(pysdc.k_anon_violations, rel, keys, k=k, w="w", weighted=weighted) == \
                _quiet(pysdc.k_anon_violations, df, keys, k=k, w="w", weighted=weighted)


def test_generated_missing_keys_households_weights():
    df = _generated()
    keys = ["a", "b", "c", "t"]
    rel = duckdb.from_df(df)
    for fast_hier in (True, False):
        ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="h", fast_hier=fast_hier)
        got = _quiet(pysdc.measure_risk, rel, keys, w="w", hid="h", fast_hier=fast_hier)
        _close(ref.global_risk_er, got.global_risk_er)
        _close(ref.hier_risk_er, got.hier_risk_er)
        assert got.global_threshold == ref.global_threshold or (np.isnan(got.global_threshold)
                                                                and np.isnan(ref.global_threshold))
        ind = got.individual.to_pandas()
        np.testing.assert_array_equal(ind["fk"], ref.individual["fk"])
        _close(ref.individual["hier_risk"], ind["hier_risk"], atol=HIER.atol)
    for alpha in (1.0, 0.25):
        ref = _quiet(pysdc.freq_calc, df, ["a", "b", "c"], w="w", alpha=alpha)
        got = _quiet(pysdc.freq_calc, rel, ["a", "b", "c"], w="w", alpha=alpha)
        ind = got.individual.to_pandas()
        np.testing.assert_array_equal(ind["fk"], ref.fk)
        _close(ref.Fk, ind["Fk"])
        assert (got.n1, got.n2) == (ref.n1, ref.n2)


def test_warnings_and_errors_as_pandas():
    df = _generated(300)
    bad = df.assign(w=df["w"].where(df.index != 3))
    with pytest.raises(pysdc.InvalidParameterError, match="missing"):
        pysdc.measure_risk(duckdb.from_df(bad), ["a", "b"], w="w")
    with pytest.raises(pysdc.InvalidParameterError, match="does not have"):
        pysdc.measure_risk(duckdb.from_df(df), ["a", "nope"])
    with pytest.warns(pysdc.DegenerateResultWarning, match="below 1"):
        pysdc.freq_calc(duckdb.from_df(df.assign(w=df["w"] / 100)), ["a", "b"], w="w")


@pytest.mark.parametrize("change", ["nan", "null", "inf", "-inf", "below", "zero", "negative", "text", "category",
                                    "clean"])
def test_weight_rules_on_duckdb_equal_pandas(change):
    """Every weight rule (errors and warnings, with their counts) as on pandas: the group-by sees clean
    weights from its sums, counts and minima; anything else is counted by one more pass."""
    df = _generated(400).drop(columns=["c"])
    w = df["w"].astype(object) if change in ("null", "text") else df["w"].copy()
    rows = [3, 50, 51]
    w.iloc[rows] = {"nan": np.nan, "null": None, "inf": np.inf, "-inf": -np.inf, "below": 0.25, "zero": 0.0,
                    "negative": -2.0, "text": "7.5", "category": 3.0, "clean": 3.0}[change]
    if change == "text":
        w = w.astype(str)
    elif change == "category":  # R's as.numeric of a factor: its codes
        w = pd.Categorical(w.round(-1).astype(int).astype(str))  # a DuckDB ENUM
    elif change == "null":
        w = w.astype("float64")
    data = df.assign(w=w)
    if change == "nan":  # NaN as a value, not a missing one, in DuckDB
        rel = duckdb.sql("SELECT * EXCLUDE (w), CASE WHEN w IS NULL THEN 'NaN'::DOUBLE ELSE w END AS w FROM data")
    else:
        rel = duckdb.from_df(data)

    def outcome(d):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = pysdc.freq_calc(d, ["a", "b"], w="w")
            except pysdc.InvalidParameterError as e:
                return ("error", str(e)), []
        per_record = res.individual.to_pandas()["Fk"] if hasattr(res, "individual") else res.Fk
        return ("ok", np.asarray(per_record, dtype=float)[:40].round(9).tolist()), \
            sorted(f"{type(x.message).__name__}: {x.message}" for x in caught)

    ref, got = outcome(data), outcome(rel)
    assert got == ref
    if change != "clean":
        assert ref[0][0] == "error" or ref[1], "the change must trigger a rule"
    else:
        assert ref[0][0] == "ok" and not ref[1]


# ----------------------------------------------------------------------------- scans of files

def test_scan_directory_glob_and_csv(tmp_path):
    df = _generated(2000).drop(columns=["c"])
    d = tmp_path / "parts"
    d.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(df)), 4)):
        df.iloc[part].to_parquet(d / f"part-{i}.parquet", index=False)
    # missing values as NA: an empty text field is the category "" on every path (as in R's read.csv)
    df.to_csv(tmp_path / "all.csv", index=False, na_rep="NA")
    keys = ["a", "b", "t"]
    ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="h")
    for source in (d, str(d / "part-*.parquet")):
        got = _quiet(pysdc.measure_risk, pysdc.scan(source), keys, w="w", hid="h")
        _close(ref.global_risk_er, got.global_risk_er)
        _close(ref.hier_risk_er, got.hier_risk_er)
        ind = got.individual.to_pandas()
        assert list(ind["record"]) == list(range(1, len(df) + 1))  # the parts' row numbers after their offsets
        np.testing.assert_array_equal(ind["fk"], ref.individual["fk"])
        _close(ref.individual["risk"], ind["risk"])
        _close(ref.individual["hier_risk"], ind["hier_risk"], atol=HIER.atol)
    got = _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "all.csv"), keys, w="w", hid="h")
    _close(ref.global_risk_er, got.global_risk_er)
    out = got.individual.to_parquet(tmp_path / "risk.parquet")
    back = pd.read_parquet(out).sort_values("record")
    assert list(back.columns) == ["record", "risk", "fk", "Fk", "hier_risk"]
    _close(ref.individual["hier_risk"], back["hier_risk"], atol=HIER.atol)


def test_position_of_parquet_parts_with_uneven_sizes_and_an_empty_part(tmp_path):
    """Positions of a Parquet directory are each part's first position plus the row number in the part."""
    df = _generated(900).drop(columns=["c"])
    d = tmp_path / "parts"
    d.mkdir()
    for i, (lo, hi) in enumerate([(0, 17), (17, 17), (17, 600), (600, 900)]):
        df.iloc[lo:hi].to_parquet(d / f"p{i}.parquet", index=False)
    got = _quiet(pysdc.freq_calc, pysdc.scan(d), ["a", "b", "t"])
    ind = got.individual.to_pandas()
    ref = _quiet(pysdc.freq_calc, df, ["a", "b", "t"])
    assert list(ind["record"]) == list(range(1, len(df) + 1))
    np.testing.assert_array_equal(ind["fk"], ref.fk)
    # a column named like DuckDB's row-number column: positions by row_number() instead
    df2 = df.rename(columns={"t": "file_row_number"})
    df2.to_parquet(tmp_path / "named.parquet", index=False)
    ind2 = _quiet(pysdc.freq_calc, pysdc.scan(tmp_path / "named.parquet"), ["a", "b", "file_row_number"]).individual
    np.testing.assert_array_equal(ind2.to_pandas()["fk"], ref.fk)


@pytest.mark.parametrize("fast_hier", [True, False])
def test_measure_risk_writing_as_it_measures_equals_measuring_then_writing(tmp_path, fast_hier):
    """``pysdc risk --output`` writes the per-record table while measuring and takes the household risk
    from the written hier_risk; the numbers equal the separate group-by, NaN rules included."""
    from pysdc.engine._risk import writing_individual

    df = _generated(1200).drop(columns=["c"])
    df.loc[df.index[-3:], ["a", "b", "t", "w"]] = [99.0, 9, "zz", 0.0]  # a combination of weight 0: NaN risk
    df.to_parquet(tmp_path / "d.parquet", index=False)
    keys = ["a", "b", "t"]
    plain = _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "d.parquet"), keys, w="w", hid="h", fast_hier=fast_hier)
    with writing_individual(tmp_path / "out.parquet"):
        written = _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "d.parquet"), keys, w="w", hid="h",
                         fast_hier=fast_hier)
    ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="h", fast_hier=fast_hier)
    assert np.isnan(ref.individual["risk"]).any()
    assert np.isnan(ref.hier_risk_er) == (not fast_hier)
    for got in (plain, written):
        _close(ref.hier_risk_er, got.hier_risk_er)
        _close(ref.global_risk_er, got.global_risk_er)
    back = pd.read_parquet(tmp_path / "out.parquet").sort_values("record")
    _close(ref.individual["hier_risk"], back["hier_risk"], atol=HIER.atol)


def _write_with_nan(df: pd.DataFrame, path) -> None:
    """Parquet keeping float NaN as NaN (not null), with min/max statistics that leave NaN out (as pyarrow,
    Spark and R's arrow write it): DuckDB's read_parquet then folds isnan() to false (DuckDB issue #25521)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({c: pa.array(df[c].to_numpy(), from_pandas=False) for c in df.columns}), path)


def test_scans_of_parquet_with_nan_values_see_them(tmp_path):
    df = _generated(800).drop(columns=["c", "t"])
    _write_with_nan(df, tmp_path / "d.parquet")
    assert pd.read_parquet(tmp_path / "d.parquet")["a"].isna().sum() == df["a"].isna().sum()
    keys = ["a", "b"]
    # a NaN key is missing (a wildcard), NaN household ids are households of their own, as in pandas
    ref = _quiet(pysdc.measure_risk, df, keys, w="w", hid="h")
    got = _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "d.parquet"), keys, w="w", hid="h")
    _close(ref.global_risk_er, got.global_risk_er)
    _close(ref.hier_risk_er, got.hier_risk_er)
    f_ref, f_got = (_quiet(pysdc.freq_calc, d, keys) for d in (df, pysdc.scan(tmp_path / "d.parquet")))
    np.testing.assert_array_equal(f_got.individual.to_pandas()["fk"], f_ref.fk)
    # a NaN weight stops measure_risk, as in pandas
    _write_with_nan(df.assign(w=df["w"].where(df.index != 5)), tmp_path / "w.parquet")
    with pytest.raises(pysdc.InvalidParameterError, match="missing"):
        _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "w.parquet"), keys, w="w")
    # moments skip NaN values as pandas does
    x, xm = _input("num200_na"), _input("num200_na_m_na")
    _write_with_nan(x, tmp_path / "x.parquet")
    _write_with_nan(xm, tmp_path / "xm.parquet")
    for method in ("IL1", "IL1s"):
        ref_v = _quiet(pysdc.d_utility, x, xm, method=method).value
        got_v = _quiet(pysdc.d_utility, pysdc.scan(tmp_path / "x.parquet"), pysdc.scan(tmp_path / "xm.parquet"),
                       method=method).value
        _close(ref_v, got_v)


def test_scan_with_an_id_column(tmp_path):
    df = _generated(500).assign(pid=lambda d: np.arange(len(d))[::-1] + 1000)
    df.to_parquet(tmp_path / "d.parquet", index=False)
    got = _quiet(pysdc.measure_risk, pysdc.scan(tmp_path / "d.parquet", id="pid"), ["a", "b"], w="w")
    ind = got.individual.to_pandas()
    ref = _quiet(pysdc.measure_risk, df, ["a", "b"], w="w")
    assert list(ind.columns) == ["pid", "risk", "fk", "Fk"]
    merged = ind.merge(df[["pid"]].assign(fk_ref=ref.individual["fk"].to_numpy()), on="pid")
    np.testing.assert_array_equal(merged["fk"], merged["fk_ref"])


def test_printed_summaries_on_duckdb_equal_pandas():
    """What print() shows (sdcMicro's print methods: records above median + 3 MAD, k-anonymity violations) is
    computed from the combinations and their record counts, and equals the records' summary."""
    df = _generated(3000)
    rel = duckdb.connect().from_df(df)
    m_ref, m_got = (_quiet(pysdc.measure_risk, d, ["a", "b", "c"], w="w") for d in (df, rel))
    assert str(m_got) == str(m_ref)
    f_ref, f_got = (_quiet(pysdc.freq_calc, d, ["a", "b", "c"], w="w") for d in (df, rel))
    assert str(f_got) == str(f_ref)
    assert str(_quiet(pysdc.indiv_risk, f_got)) == str(_quiet(pysdc.indiv_risk, f_ref))


# ----------------------------------------------------------------------------- l-diversity

_LDIV_CASES = [c for c in json.loads((REF.parent / "cases" / "ldiversity.json").read_text())["cases"]
               if "error" not in c.get("tags", [])]


def _ldiv_compare(df, keys, sens, c=2.0):
    ref = _quiet(pysdc.ldiversity, df, keys, sens, l_recurs_c=c).table
    got = _quiet(pysdc.ldiversity, duckdb.connect().from_df(df), keys, sens, l_recurs_c=c)
    back = got.individual.to_pandas().sort_values("record")
    assert list(back.columns[1:]) == list(ref.columns)
    for col in ref.columns:  # counts exact; the entropy is a closed form per class
        np.testing.assert_allclose(back[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12, atol=0,
                                   equal_nan=True, err_msg=col)
    assert got.n == len(df) and int(got.counts.sum()) == len(df)
    return got


@pytest.mark.parametrize("case", _LDIV_CASES, ids=[c["id"] for c in _LDIV_CASES])
def test_ldiversity_on_duckdb_equals_pandas(case):
    df = _input(case["inputs"]["data"].removesuffix(".csv.gz"))
    a = case["args"]
    _ldiv_compare(df, a["keyVars"], a["ldiv_index"], float(a["l_recurs_c"]))


def test_ldiversity_on_duckdb_missing_codes_nan_and_text():
    """-999 (sdcMicro's missing code), NaN sensitive values (each a category of its own), missing keys (each
    record a class of its own), text sensitive values parsed by as.numeric, three sensitive variables."""
    rng = np.random.default_rng(3)
    df = _generated(2000)
    df["s1"] = rng.integers(0, 4, len(df)).astype(float)
    df.loc[rng.random(len(df)) < 0.05, "s1"] = -999.0
    df.loc[rng.random(len(df)) < 0.03, "s1"] = np.nan
    df["s2"] = pd.Categorical(rng.choice(["u", "v", "w"], len(df)))
    df["s3"] = rng.choice(["1", "2", "x"], len(df)).astype(object)
    df.loc[:30, "s1"] = -999.0  # whole classes of the missing code
    got = _ldiv_compare(df, ["a", "b"], ["s1", "s2", "s3"], 2.0)
    # the printed summary (R's summary() of the distinct l-diversity over the records), from the combinations
    assert str(got) == str(_quiet(pysdc.ldiversity, df, ["a", "b"], ["s1", "s2", "s3"]))
    with pytest.warns(pysdc.CoercionWarning, match="as.numeric"):
        pysdc.ldiversity(duckdb.connect().from_df(df), ["a", "b"], ["s1", "s3"])


# ----------------------------------------------------------------------------- information loss

@pytest.mark.parametrize("pair", [("num1000", "num1000__addnoise50"), ("num200_na", "num200_na_m_na"),
                                  ("num200", "num200__addnoise50"), ("num_zeros", "num_zeros_m")])
def test_il_measures_on_duckdb_equal_pandas(pair):
    x, xm = _input(pair[0]), _input(pair[1])
    con = duckdb.connect()
    rx, rm = con.from_df(x), con.from_df(xm)
    for method in ("IL1", "IL1s", "eigen"):
        ref = _quiet(pysdc.d_utility, x, xm, method=method).value
        got = _quiet(pysdc.d_utility, rx, rm, method=method).value
        tol = tolerance_for("d_utility", method)
        _close(ref, got, atol=max(tol.atol, ENGINE_SUMS.atol))
    try:
        ref = _quiet(pysdc.il_correl, x, xm).value
    except pysdc.InvalidParameterError:
        with pytest.raises(pysdc.InvalidParameterError):
            _quiet(pysdc.il_correl, rx, rm)
    else:
        _close(ref, _quiet(pysdc.il_correl, rx, rm).value, atol=tolerance_for("il_correl", "value").atol)
    scales = {c: "numeric" for c in x.columns}
    ref = _quiet(pysdc.il_variables, x, xm, scales=scales)
    got = _quiet(pysdc.il_variables, rx, rm, scales=scales)
    _close(ref.value, got.value)
    _close(ref.per_variable.to_numpy(), got.per_variable[ref.per_variable.index].to_numpy())


def test_il_variables_nominal_and_scans(tmp_path):
    x, xm = _input("mix300"), _input("mix300_m")
    cols = ["income", "score", "region", "job"]
    x[cols].to_parquet(tmp_path / "x.parquet", index=False)
    xm[cols].to_parquet(tmp_path / "xm.parquet", index=False)
    ref = _quiet(pysdc.il_variables, x[cols], xm[cols])
    got = _quiet(pysdc.il_variables, pysdc.scan(tmp_path / "x.parquet"), pysdc.scan(tmp_path / "xm.parquet"))
    _close(ref.value, got.value)


@pytest.mark.parametrize("pair", [("num1000", "num1000__addnoise50"), ("num200_na", "num200_na_m_na"),
                                  ("num_zeros", "num_zeros_m"), ("mix300", "mix300_m")])
def test_utility_engine_shares_passes_and_gives_pandas_numbers(pair, monkeypatch):
    """pysdc utility --engine: the five measures' plans share their passes; the numbers are pandas'."""
    from pysdc.engine._utility import utility_engine

    x, xm = _input(pair[0]), _input(pair[1])
    cols = [c for c in x.columns if c in xm.columns]
    x, xm = x[cols], xm[cols]
    numeric = [c for c in cols if pd.api.types.is_float_dtype(x[c]) and pd.api.types.is_float_dtype(xm[c])]
    nominal = [c for c in cols if isinstance(x[c].dtype, pd.CategoricalDtype)]
    used = numeric + nominal
    x, xm = x[used].copy(), xm[used].copy()
    for c in nominal:  # an engine cannot tell an ordered category from another (DuckDB's ENUM): both are nominal
        x[c], xm[c] = x[c].cat.as_unordered(), xm[c].cat.as_unordered()
    con = duckdb.connect()
    rx, rm = con.from_df(x), con.from_df(xm)
    queries = []
    from pysdc.engine import _passes

    real = _passes._agg
    monkeypatch.setattr(_passes, "_agg", lambda t, exprs: queries.append(len(exprs)) or real(t, exprs))
    got = _quiet(utility_engine, rx, rm, numeric)
    rounds = 3 if x[numeric].isna().any().any() else 2  # the third: pairwise-complete covariances
    # by position: the moments of each side on its own, then one pass over the paired records
    assert len(queries) == 2 * rounds + 1, queries
    queries.clear()
    by_id = _quiet(utility_engine, pysdc.scan(con.from_df(x.assign(pid=np.arange(len(x)))), id="pid"),
                   pysdc.scan(con.from_df(xm.assign(pid=np.arange(len(xm)))), id="pid"), numeric)
    # by id: everything on the joined records, but IL_correl, which takes each side's own records (2 rounds each)
    correl_rounds = 0 if isinstance(got["il_correl"], pysdc.InvalidParameterError) else 4
    assert len(queries) == rounds + correl_rounds, queries
    for m in ("IL1", "IL1s", "eigen"):
        _close(by_id["d_utility"][m].value, got["d_utility"][m].value, atol=tolerance_for("d_utility", m).atol)
    _close(by_id["il_variables"].value, got["il_variables"].value)
    for method in ("IL1", "IL1s", "eigen"):
        ref = _quiet(pysdc.d_utility, x[numeric], xm[numeric], method=method).value
        _close(ref, got["d_utility"][method].value, atol=max(tolerance_for("d_utility", method).atol, ENGINE_SUMS.atol))
    try:
        ref = _quiet(pysdc.il_correl, x[numeric], xm[numeric]).value
    except pysdc.InvalidParameterError as exc:
        assert isinstance(got["il_correl"], pysdc.InvalidParameterError), (exc, got["il_correl"])
    else:
        _close(ref, got["il_correl"].value, atol=tolerance_for("il_correl", "value").atol)
    ref = _quiet(pysdc.il_variables, x, xm)
    _close(ref.value, got["il_variables"].value)
    _close(ref.per_variable.to_numpy(), got["il_variables"].per_variable[ref.per_variable.index].to_numpy())


def test_il_variables_ordinal_declared_on_duckdb_enum():
    """An engine cannot see that a category is ordered; declared ordinal, a DuckDB ENUM gives pandas' rank distance."""
    from pysdc.engine._utility import utility_engine

    x, xm = _input("mix300"), _input("mix300_m")
    cols = ["income", "score", "edu", "region"]
    x, xm = x[cols], xm[cols]
    assert x["edu"].cat.ordered
    ref = _quiet(pysdc.il_variables, x, xm)  # pandas: edu ordinal (ordered Categorical), region nominal
    con = duckdb.connect()
    rx, rm = con.from_df(x), con.from_df(xm)
    got = _quiet(pysdc.il_variables, rx, rm, scales={"edu": "ordinal"})
    _close(ref.value, got.value)
    _close(ref.per_variable.to_numpy(), got.per_variable[ref.per_variable.index].to_numpy())
    both = _quiet(utility_engine, rx, rm, ["income", "score"], {"edu": "ordinal"})
    _close(ref.value, both["il_variables"].value)
    nominal = _quiet(pysdc.il_variables, rx, rm)  # undeclared: nominal, as the README says
    assert nominal.per_variable["edu"] != got.per_variable["edu"]


def test_il_variables_ordinal_declared_on_text_and_number_columns(tmp_path):
    """Declared ordinal on a column that is not an ENUM: pandas' levels (the sorted values observed in x or xm)."""
    from pysdc.engine._utility import utility_engine

    x, xm = ordinal_pair()
    cols = ["edu", "score", "size"]
    ref = _quiet(pysdc.il_variables, x[cols], xm[cols], scales=ORDINAL_SCALES)
    assert ref.per_variable["edu"] != _quiet(pysdc.il_variables, x[["edu"]], xm[["edu"]]).per_variable["edu"]
    con = duckdb.connect()
    x[cols].to_parquet(tmp_path / "x.parquet", index=False)
    xm[cols].to_parquet(tmp_path / "xm.parquet", index=False)
    for rx, rm in ((con.from_df(x[cols]), con.from_df(xm[cols])),
                   (pysdc.scan(tmp_path / "x.parquet"), pysdc.scan(tmp_path / "xm.parquet"))):
        got = _quiet(pysdc.il_variables, rx, rm, scales=ORDINAL_SCALES)
        _close(ref.per_variable.to_numpy(), got.per_variable[ref.per_variable.index].to_numpy())
        _close(ref.value, got.value)
        both = _quiet(utility_engine, rx, rm, ["score"], ORDINAL_SCALES)
        _close(ref.value, both["il_variables"].value)
    # a one-level column declared ordinal: NaN with pandas' warning (levels - 1 = 0)
    with pytest.warns(pysdc.DegenerateResultWarning, match="one-level") as rec_ref:
        one_ref = pysdc.il_variables(x[["one"]], xm[["one"]], scales={"one": "ordinal"})
    with pytest.warns(pysdc.DegenerateResultWarning, match="one-level") as rec_got:
        one_got = pysdc.il_variables(con.from_df(x[["one"]]), con.from_df(xm[["one"]]), scales={"one": "ordinal"})
    assert np.isnan(one_ref.value) and np.isnan(one_got.value)
    assert [str(w.message) for w in rec_got] == [str(w.message) for w in rec_ref]


def test_refusals_name_the_reason():
    df = _generated(200)
    rel = duckdb.from_df(df[["w", "h"]])
    with pytest.raises(pysdc.InvalidParameterError, match="robeigen"):
        pysdc.d_utility(rel, rel, method="robeigen")
    with pytest.raises(pysdc.InvalidParameterError, match="suda2 does not run"):
        pysdc.suda2(duckdb.from_df(df), ["a", "b"])
    with pytest.raises(pysdc.InvalidParameterError, match="same engine"):
        pysdc.d_utility(rel, df[["w", "h"]])


def test_import_pysdc_imports_no_engine():
    code = ("import sys, pysdc; bad = [m for m in sys.modules if m.split('.')[0] in ('duckdb', 'pyspark')]; "
            "assert not bad, bad; pysdc.scan; assert 'duckdb' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- command line

def test_cli_risk_on_a_directory_with_output(tmp_path):
    df = _generated(1500).drop(columns=["c", "t"])
    d = parquet_parts(df, tmp_path / "data", 700)
    out = tmp_path / "risk.parquet"
    report = cli_json(["risk", str(d), "--keys", "a,b", "--weight", "w", "--hid", "h", "--output", str(out)])
    ref = _quiet(pysdc.measure_risk, df, ["a", "b"], w="w", hid="h")
    _close(ref.global_risk_er, report["global"]["expected_reidentifications"])
    _close(ref.hier_risk_er, report["household"]["expected_reidentifications"])
    viol = {r["k"]: r["unweighted"] for r in report["k_anonymity"]["violations"]}
    assert viol[3] == _quiet(pysdc.k_anon_violations, df, ["a", "b"], k=3)
    back = pd.read_parquet(out).sort_values("record")
    np.testing.assert_array_equal(back["fk"], ref.individual["fk"])


@pytest.mark.parametrize("by_id", [False, True])
def test_cli_utility_on_parquet_equals_pandas(tmp_path, by_id):
    x, xm = _input("num200_na"), _input("num200_na_m_na")
    cols = list(x.columns)
    if by_id:  # the masked file in another order: records are paired by the id
        x, xm = x.assign(pid=np.arange(len(x))), xm.assign(pid=np.arange(len(xm)))
        xm.iloc[::-1].to_parquet(tmp_path / "xm.parquet", index=False)
    else:
        xm.to_parquet(tmp_path / "xm.parquet", index=False)
    x.to_parquet(tmp_path / "x.parquet", index=False)
    report = cli_json(["utility", str(tmp_path / "x.parquet"), str(tmp_path / "xm.parquet"), "--engine", "duckdb",
                       "--vars", ",".join(cols)] + (["--id", "pid"] if by_id else []))
    x, xm = x[cols], xm[cols]
    m = report["measures"]  # the model of the pandas path (pysdc-utility-1)
    for method in ("IL1", "IL1s", "eigen"):
        ref = _quiet(pysdc.d_utility, x, xm, method=method).value
        _close(ref, m[method]["value"], atol=max(tolerance_for("d_utility", method).atol, ENGINE_SUMS.atol))
    _close(_quiet(pysdc.il_correl, x, xm).value, m["il_correl"]["value"], atol=tolerance_for("il_correl", "value").atol)
    # IL_variables on the variables and scales of the one rule (an integer numeric variable: numeric scale)
    ilv, scales = report["variables"]["il_variables"], report["variables"]["scales"]
    _close(_quiet(pysdc.il_variables, x[ilv], xm[ilv], scales=scales or None).value, m["il_variables"]["value"])
    assert m["robeigen"]["status"] == "skipped" and "needs the records in memory" in m["robeigen"]["error"]


def test_cli_risk_report_sections_equal_pandas(tmp_path):
    """pysdc risk --engine duckdb: the distribution of the individual risks (mean, quantiles, bins, risks above 1
    of weights below 1) and the k-anonymity section equal pandas' report of the same file."""
    df = _generated(1500).drop(columns=["c", "t"])
    df.loc[df["a"] == 0, "w"] = 0.2  # weights below 1: risks above 1 (small classes) get their own bin
    df.to_parquet(tmp_path / "d.parquet", index=False)
    reports = {engine: cli_json(["risk", str(tmp_path / "d.parquet"), "--keys", "a,b,h", "--weight", "w",
                                 "--engine", engine, "--no-suda"]) for engine in ("pandas", "duckdb")}
    ref, got = reports["pandas"], reports["duckdb"]
    assert got["individual_risk"]["n_above_1"] > 0
    for section in ("individual_risk", "k_anonymity"):
        a, b = ref[section], got[section]
        assert a.keys() == b.keys(), section
        for key in a:
            if isinstance(a[key], (float, int)) and not isinstance(a[key], bool):
                _close(a[key], b[key])
            elif key == "quantiles":
                _close(list(a[key].values()), list(b[key].values()))
            else:
                assert a[key] == b[key], (section, key)


def test_cli_risk_output_on_pandas_equals_measure_risk(tmp_path):
    import contextlib
    import io

    from pysdc.cli import main

    df = _generated(800).drop(columns=["c", "t"])
    df.to_parquet(tmp_path / "d.parquet", index=False)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["risk", str(tmp_path / "d.parquet"), "--keys", "a,b", "--weight", "w", "--hid", "h",
                     "--engine", "pandas", "--no-suda", "--output", str(tmp_path / "r.parquet")]) == 0
    back = pd.read_parquet(tmp_path / "r.parquet")
    ref = _quiet(pysdc.measure_risk, df, ["a", "b"], w="w", hid="h").individual
    for col in ("risk", "fk", "Fk", "hier_risk"):
        np.testing.assert_array_equal(back[col].to_numpy(float), ref[col].to_numpy(float), err_msg=col)
