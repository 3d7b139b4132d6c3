"""Polars and Arrow in (issue 26, item 5): every measure takes a Polars DataFrame / LazyFrame, a PyArrow
Table / RecordBatch or an object exposing only ``__arrow_c_stream__``, with pandas' numbers.

The baseline is always the measure on the pandas DataFrame the other objects were made from; the
comparison is exact (every measure here is deterministic given its inputs; d_utility's eigen method
gets a seed). The frames: the demo data (pysdc.load_demo) and the demo with missing values in keys
and numbers, a text key, an integer with nulls and a logical with nulls.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUM = ["income", "expenditure", "savings"]


class Stream:
    """An object exposing only the Arrow PyCapsule stream interface (as nanoarrow, Ibis ... tables do)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def _polars(df: pd.DataFrame):
    """Polars' view of ``df``: an ordered factor as ``pl.Enum`` (Polars' ordered categorical type, which it
    exports to Arrow as an ordered dictionary); an unordered one as ``pl.Categorical``."""
    frame = pl.from_pandas(df)
    enums = {c: pl.Enum([str(v) for v in df[c].cat.categories]) for c in df.columns
             if isinstance(df[c].dtype, pd.CategoricalDtype) and df[c].cat.ordered}
    return frame.with_columns(*(pl.col(c).cast(t) for c, t in enums.items())) if enums else frame


def _arrow(df: pd.DataFrame):
    """An Arrow table of ``df`` without pandas' metadata (as from any other Arrow producer)."""
    return pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)


#: the other libraries' objects made from a pandas frame
KINDS = {
    "polars": _polars,
    "polars_lazy": lambda df: _polars(df).lazy(),
    "arrow": _arrow,
    "arrow_pandas_metadata": lambda df: pa.Table.from_pandas(df),
    "record_batch": lambda df: pa.RecordBatch.from_pandas(df, preserve_index=False),
    "capsule": lambda df: Stream(_arrow(df)),
    "capsule_polars": lambda df: Stream(_polars(df)),
}


def _as_polars_levels(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each unordered categorical's levels in order of first appearance, unused levels dropped.

    A Polars ``Categorical`` has no level list of its own: it exports the values present, in order of
    first appearance (Polars 2), and that order numbers sdcMicro's key combinations (freq_calc's
    ``combo``). The baseline frames are therefore given the levels a Polars frame can carry.
    """
    d = df.copy()
    for c in d.columns:
        if isinstance(d[c].dtype, pd.CategoricalDtype) and not d[c].cat.ordered:
            seen = pd.unique(d[c].dropna().astype(object))
            d[c] = d[c].cat.set_categories(list(seen))
    return d


def _messy() -> pd.DataFrame:
    """The demo with missing key values, a text key (``sex`` as str with None), an integer with nulls
    (``hhsize``), missing incomes and a logical with nulls; deterministic (every k-th record)."""
    d = _as_polars_levels(pysdc.load_demo())
    pos = np.arange(len(d))
    d["sex"] = d["sex"].astype(object).where(pos % 17 != 5, None)
    d["region"] = d["region"].where(pos % 29 != 3)
    d["hhsize"] = d["hhsize"].astype("Int64").where(pos % 23 != 7)
    d["income"] = d["income"].where(pos % 31 != 11)
    d["owner"] = pd.array(np.where(pos % 13 == 0, None, pos % 3 == 0), dtype="boolean")
    return d


# --------------------------------------------------------------------------- comparison
def assert_same(a, b, path="result"):
    """Exact equality of two results (NaN equal to NaN); frames and series by value, not by dtype."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        if isinstance(a, float):
            assert_same(float(a), float(b), path)
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
        return
    if isinstance(a, pd.DataFrame):
        assert isinstance(b, pd.DataFrame), path
        pd.testing.assert_frame_equal(a, b, check_dtype=False, check_categorical=False, check_exact=True,
                                      check_index_type=False, check_column_type=False, obj=path)
        return
    if isinstance(a, pd.Series):
        assert isinstance(b, pd.Series), path
        pd.testing.assert_series_equal(a, b, check_dtype=False, check_categorical=False, check_exact=True,
                                       check_index_type=False, obj=path)
        return
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, np.asarray(b), err_msg=path, strict=False)
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same(u, v, f"{path}[{i}]")
        return
    if isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), f"{path}: {a!r} != {b!r}"
        return
    assert a == b, f"{path}: {a!r} != {b!r}"


# --------------------------------------------------------------------------- the measures
def _one_file(data):
    """Measures of one file (each with a frame-like ``data``)."""
    freq = pysdc.freq_calc(data, KEYS, w="weight")
    return {
        "freq_calc": freq,
        "indiv_risk": pysdc.indiv_risk(freq),
        "measure_risk": pysdc.measure_risk(data, KEYS, w="weight", hid="hid"),
        "ldiversity": pysdc.ldiversity(data, KEYS, "health_status"),
        "suda2": pysdc.suda2(data, ["region", "sex", "age_group", "marital"]),
        "mod_risk": pysdc.mod_risk(data, "~ region + sex + age_group", w="weight"),
        "k_anon": pysdc.k_anon_violations(data, KEYS, k=3, w="weight"),
        "entropy": pysdc.entropy(data[["region", "sex"]] if isinstance(data, pd.DataFrame)
                                 else _select(data, ["region", "sex"])),
    }


def _select(obj, cols):
    """The columns ``cols`` of a pandas / Polars / Arrow object, staying of its kind."""
    if isinstance(obj, pd.DataFrame):
        return obj[cols]
    if isinstance(obj, Stream):
        return Stream(_select(obj._table, cols))
    if isinstance(obj, pa.RecordBatch):
        return obj.select(cols)
    return obj.select(cols)  # polars DataFrame / LazyFrame, pyarrow Table


def _two_files(x, xm):
    return {
        "IL1": pysdc.d_utility(_select(x, NUM), _select(xm, NUM), method="IL1"),
        "IL1s": pysdc.d_utility(_select(x, NUM), _select(xm, NUM), method="IL1s"),
        "eigen": pysdc.d_utility(_select(x, NUM), _select(xm, NUM), method="eigen"),
        "il_correl": pysdc.il_correl(_select(x, NUM), _select(xm, NUM)),
        # a factor (region), an ordered factor (age_group) and a numeric variable
        "il_variables": pysdc.il_variables(_select(x, ["region", "age_group", "income"]),
                                           _select(xm, ["region", "age_group", "income"])),
    }


def _every_other_measure(x, xm):
    """The frame measures not covered above: the literature's and the analysts' checks."""
    num, cat = NUM, ["region", "sex", "age_group", "education"]
    pos = np.asarray(pysdc.load_demo()["income"] > 0)
    return {
        "d_risk": pysdc.d_risk(_select(x, num), _select(xm, num)),
        "d_risk_rmd": pysdc.d_risk_rmd(_select(x, num), _select(xm, num), random_state=3),
        "il_continuous": pysdc.il_continuous(_select(x, num), _select(xm, num)),
        "il_categorical": pysdc.il_categorical(_select(x, cat), _select(xm, cat)),
        "hellinger": pysdc.hellinger(_select(x, num + cat), _select(xm, num + cat)),
        "entropy": pysdc.entropy(_select(x, cat)),
        "il_entropy": pysdc.il_entropy(_select(x, cat), _select(xm, cat)),
        "entropy_risk": pysdc.entropy_risk(x, cat, w1=0.5, w2=0.5),
        "gsil": pysdc.gsil(_select(x, num + cat), _select(xm, num + cat)),
        "compare_estimates": pysdc.compare_estimates(x, xm, ["mean(income)", "median(income)"], w="weight",
                                                     by="region"),
        "compare_regression": pysdc.compare_regression(
            _rows(x, pos), _rows(xm, pos), "log(income) ~ age_group + sex + education", w="weight").table,
    }


def _rows(obj, mask):
    """The records where ``mask`` holds, staying of the object's kind."""
    if isinstance(obj, pd.DataFrame):
        return obj[mask]
    if isinstance(obj, Stream):
        return Stream(_rows(obj._table, mask))
    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return obj.filter(pa.array(mask))
    return obj.filter(pl.Series(mask))  # polars DataFrame / LazyFrame


@pytest.fixture(scope="module")
def demo():
    return _as_polars_levels(pysdc.load_demo()), _as_polars_levels(pysdc.load_demo(masked=True))


@pytest.fixture(scope="module")
def baseline(demo):
    x, xm = demo
    return _one_file(x), _two_files(x, xm)


@pytest.fixture(scope="module")
def messy():
    return _messy()


@pytest.mark.parametrize("kind", list(KINDS))
def test_one_file_measures_demo(kind, demo, baseline):
    x, _ = demo
    got = _one_file(KINDS[kind](x))
    for name, want in baseline[0].items():
        assert_same(want, got[name], f"{kind}:{name}")


@pytest.mark.parametrize("kind", list(KINDS))
def test_two_file_measures_demo(kind, demo, baseline):
    x, xm = demo
    got = _two_files(KINDS[kind](x), KINDS[kind](xm))
    for name, want in baseline[1].items():
        assert_same(want, got[name], f"{kind}:{name}")


@pytest.mark.filterwarnings("ignore::pysdc.PysdcWarning")  # the same warnings on both paths
@pytest.mark.parametrize("kind", ["polars", "polars_lazy", "arrow", "capsule"])
def test_every_other_frame_measure(kind, demo):
    x, xm = demo
    want = _every_other_measure(x, xm)
    got = _every_other_measure(KINDS[kind](x), KINDS[kind](xm))
    for name, w in want.items():
        assert_same(w, got[name], f"{kind}:{name}")


def test_record_batch_reader_is_read_once(demo):
    """A RecordBatchReader (a stream, read once) in place of the data, and beside an SdcProblem."""
    x, xm = demo
    want = pysdc.measure_risk(x, KEYS, w="weight")
    got = pysdc.measure_risk(pa.RecordBatchReader.from_batches(*_reader_parts(x)), KEYS, w="weight")
    assert_same(want, got)
    p = pysdc.SdcProblem(x, KEYS, num_vars=NUM)
    want = pysdc.d_utility(p, xm, method="IL1")
    got = pysdc.d_utility(p, pa.RecordBatchReader.from_batches(*_reader_parts(xm)), method="IL1")
    assert_same(want, got)


def _reader_parts(df):
    t = _arrow(df)
    return t.schema, t.to_batches(max_chunksize=1000)


def test_two_file_measures_mixed_kinds(demo, baseline):
    """x from Polars, xm from pandas (and the other way round): the same numbers."""
    x, xm = demo
    for a, b in ((_polars(x), xm), (x, _arrow(xm))):
        got = _two_files(a, b)
        for name, want in baseline[1].items():
            assert_same(want, got[name], name)


@pytest.mark.filterwarnings("ignore::pysdc.CoercionWarning")  # sex is text: sdcMicro's as.numeric, warned
@pytest.mark.parametrize("kind", list(KINDS))
def test_missing_values_text_keys_categoricals(kind, messy):
    keys = ["region", "sex", "age_group", "education", "marital"]
    want = {
        "freq_calc": pysdc.freq_calc(messy, keys, w="weight"),
        "measure_risk": pysdc.measure_risk(messy, keys, w="weight", hid="hid"),
        "ldiversity": pysdc.ldiversity(messy, keys, "health_status"),
        "suda2": pysdc.suda2(messy, ["region", "age_group", "marital", "hhsize"]),
        "k_anon": pysdc.k_anon_violations(messy, keys + ["owner"], k=2),
        # hhsize: Int64 with NA in pandas (R integer: its scale must be declared), float64 from Arrow
        "il_variables": pysdc.il_variables(messy[["region", "age_group", "hhsize"]],
                                           pysdc.load_demo(masked=True)[["region", "age_group", "hhsize"]],
                                           scales={"hhsize": "numeric"}),
    }
    want["indiv_risk"] = pysdc.indiv_risk(want["freq_calc"])
    obj = KINDS[kind](messy)
    got = {
        "freq_calc": pysdc.freq_calc(obj, keys, w="weight"),
        "measure_risk": pysdc.measure_risk(obj, keys, w="weight", hid="hid"),
        "ldiversity": pysdc.ldiversity(obj, keys, "health_status"),
        "suda2": pysdc.suda2(obj, ["region", "age_group", "marital", "hhsize"]),
        "k_anon": pysdc.k_anon_violations(obj, keys + ["owner"], k=2),
        "il_variables": pysdc.il_variables(_select(obj, ["region", "age_group", "hhsize"]),
                                           pysdc.load_demo(masked=True)[["region", "age_group", "hhsize"]],
                                           scales={"hhsize": "numeric"}),
    }
    got["indiv_risk"] = pysdc.indiv_risk(got["freq_calc"])
    for name, w in want.items():
        assert_same(w, got[name], f"{kind}:{name}")


@pytest.mark.parametrize("kind", list(KINDS))
def test_sdc_problem(kind, demo):
    x, xm = demo
    spec = dict(num_vars=NUM, w="weight", hid="hid", sensitive=["health_status"])
    want = pysdc.SdcProblem(x, KEYS, **spec)
    got = pysdc.SdcProblem(KINDS[kind](x), KEYS, **spec)
    assert isinstance(got.data, pd.DataFrame)
    assert_same(want.risk().to_frame(), got.risk().to_frame(), f"{kind}:risk")
    assert_same(want.utility(xm, random_state=1).to_frame(),
                got.utility(KINDS[kind](xm), random_state=1).to_frame(), f"{kind}:utility")
    # a problem made from the other library's frame, in place of a measure's data
    assert pysdc.k_anon_violations(got, k=3) == pysdc.k_anon_violations(want, k=3)
    assert pysdc.k_anon_violations(got, k=3) == pysdc.k_anon_violations(x, KEYS, k=3)


@pytest.mark.filterwarnings("ignore::pysdc.DegenerateResultWarning")  # suda2 on three keys: no MSU
def test_problem_with_text_keys(messy):
    """createSdcObj's text keys as factors: the same levels from a Polars frame as from pandas."""
    keys = ["region", "sex", "age_group"]
    want = pysdc.SdcProblem(messy, keys, w="weight")
    got = pysdc.SdcProblem(_polars(messy), keys, w="weight")
    assert list(got.sdc_data["sex"].cat.categories) == list(want.sdc_data["sex"].cat.categories)
    assert_same(want.risk().to_frame(), got.risk().to_frame(), "risk")


# --------------------------------------------------------------------------- the conversion itself
def test_types_follow_the_parquet_reader(messy, tmp_path):
    """An Arrow table converts to the dtypes pysdc's Parquet reader gives the same data written as Parquet."""
    import pyarrow.parquet as pq

    from pysdc.io import read_table, to_pandas

    for name, table in (("polars", _polars(messy).to_arrow()), ("arrow", _arrow(messy)),
                        ("pandas_metadata", pa.Table.from_pandas(messy))):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path)
        from_file = read_table(path)
        converted = to_pandas("data", table)
        assert dict(from_file.dtypes) == dict(converted.dtypes), name
        pd.testing.assert_frame_equal(from_file, converted, obj=name)


def test_dtypes_keep_r_semantics(messy):
    from pysdc._types import r_class
    from pysdc.io import to_pandas

    d = to_pandas("data", _polars(messy))
    assert isinstance(d["region"].dtype, pd.CategoricalDtype) and not d["region"].cat.ordered  # factor
    assert d["age_group"].cat.ordered  # pl.Enum -> ordered factor, its levels in order
    assert list(d["age_group"].cat.categories) == list(messy["age_group"].cat.categories)
    assert pd.api.types.is_string_dtype(d["sex"]) and d["sex"].isna().sum() == messy["sex"].isna().sum()
    assert d["region"].isna().sum() == messy["region"].isna().sum() > 0  # missing keys stay missing
    assert d["hhsize"].dtype == np.float64  # an integer with nulls, as pd.read_parquet makes it
    assert d["hid"].dtype == np.int64
    # with pandas' metadata (pa.Table.from_pandas) the pandas dtypes come back (text of object dtype as
    # pandas' str, both R character)
    m = to_pandas("data", pa.Table.from_pandas(messy))
    assert {c: str(t) for c, t in m.dtypes.items() if c != "sex"} == \
        {c: str(t) for c, t in messy.dtypes.items() if c != "sex"}
    assert [r_class(m[c]) for c in m.columns] == [r_class(messy[c]) for c in messy.columns]
    assert r_class(m["sex"]) == "character"


def test_numeric_columns_not_copied():
    """Columns without nulls are views of the Arrow buffers (split_blocks: no consolidation copy)."""
    from pysdc.io import to_pandas

    t = pa.table({"a": np.arange(1000, dtype=np.float64), "b": np.arange(1000, dtype=np.int64)})
    d = to_pandas("data", t)
    buf = t.column("a").chunk(0).buffers()[1]
    assert np.shares_memory(d["a"].to_numpy(), np.frombuffer(buf, dtype=np.float64))


@pytest.mark.duckdb
def test_engines_keep_their_tables(demo):
    """A DuckDB relation exposes __arrow_c_stream__ too: it still runs on DuckDB, not through pandas."""
    import duckdb

    from pysdc.io import is_interchange

    x, _ = demo
    con = duckdb.connect()
    rel = con.from_df(x)
    assert hasattr(rel, "__arrow_c_stream__") and not is_interchange(rel)
    res = pysdc.measure_risk(rel, KEYS, w="weight")
    # the engine's own per-combination result class, not the pandas one
    assert type(res) is pysdc.MeasureRiskCombinations
    assert res.global_risk_er == pytest.approx(pysdc.measure_risk(x, KEYS, w="weight").global_risk_er,
                                                rel=1e-12)


def test_refusals(demo):
    x, _ = demo
    with pytest.raises(InvalidParameterError, match="must be a table .* Series"):
        pysdc.measure_risk(pl.from_pandas(x)["weight"], KEYS)
    with pytest.raises(InvalidParameterError, match="must be a table .* ChunkedArray"):
        pysdc.freq_calc(pa.chunked_array([[1, 2]]), ["a"])
    dup = pa.table([pa.array([1, 2]), pa.array([3, 4])], names=["a", "a"])
    with pytest.raises(InvalidParameterError, match=r"duplicated column names \['a'\]"):
        pysdc.freq_calc(dup, ["a"])
    with pytest.raises(InvalidParameterError, match="does not have"):  # the pandas path's column message
        pysdc.freq_calc(pl.from_pandas(x), ["no_such"])
    with pytest.raises(InvalidParameterError, match="data must be a pandas DataFrame"):
        pysdc.SdcProblem(pl.from_pandas(x)["weight"].to_list(), KEYS)

    class Broken:
        def __arrow_c_stream__(self, requested_schema=None):
            raise RuntimeError("the stream broke")

    with pytest.raises(InvalidParameterError, match="cannot read the Broken as an Arrow table.*the stream broke"):
        pysdc.measure_risk(Broken(), KEYS)


def test_import_and_pandas_calls_do_not_import_polars():
    code = ("import sys, pysdc; d = pysdc.load_demo(); "
            "pysdc.measure_risk(d, ['region', 'sex'], w='weight'); "
            "pysdc.d_utility(d[['income']], d[['income']]); pysdc.SdcProblem(d, ['region']).risk(suda=False); "
            "assert 'polars' not in sys.modules, 'polars imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------- the R bridge
def _bridge_reason():
    try:
        import rpy2  # noqa: F401
    except ImportError:
        return "rpy2 is not installed"
    import pysdc.r as pr

    st = pr.available()
    return None if st else st.reason


@pytest.mark.live
@pytest.mark.needs_r
def test_bridge_takes_polars_and_arrow(demo):
    reason = _bridge_reason()
    if reason:
        pytest.skip(f"R bridge with sdcMicro unusable: {reason}")
    import pysdc.r as pr

    x, _ = demo
    want = pr.measure_risk(x, KEYS, w="weight", hid="hid")
    for kind in ("polars", "polars_lazy", "arrow", "capsule"):
        got = pr.measure_risk(KINDS[kind](x), KEYS, w="weight", hid="hid")
        assert_same(want, got, kind)
    # and sdcMicro's number is pysdc's (the native path through Polars)
    native = pysdc.measure_risk(_polars(x), KEYS, w="weight", hid="hid")
    assert native.global_risk_er == pytest.approx(want.global_risk_er, rel=1e-12)
    # pysdc.r.call sends a Polars frame as a data.frame
    assert pr.call("nrow", _polars(x)) == len(x)
    # sdcMicro's createSdcObj from a Polars frame: the object of the pandas frame
    spec = dict(num_vars=NUM, w="weight", hid="hid")
    sdc_pd, sdc_pl = pr.SdcObj.create(x, KEYS, **spec), pr.SdcObj.create(_polars(x), KEYS, **spec)
    assert_same(pysdc.measure_risk(sdc_pd), pysdc.measure_risk(sdc_pl), "SdcObj")
