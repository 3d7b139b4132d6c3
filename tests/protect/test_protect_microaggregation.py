"""Microaggregation (issue 28, family 3): pysdc.protect.microaggregation / mafast against sdcMicro 5.8.0.

Stored parity: every case of r_reference/outputs/{microaggregation,mafast}.json (written by
r_reference/generate_protect_microaggregation.R from make_cases_microaggregation.py) runs through the
native function: every aggregated column must have sdcMicro's values to the last bit (the MD5 of all
values written with %.17g), the returned fields (method, aggr, measure, fot) sdcMicro's, other columns
unchanged; where sdcMicro stopped, pysdc raises. Live parity (marker ``live``): the bridge wrappers on
the same cases, R's defaults against formals(), and MDAV on fresh tie-heavy data against sdcMicro.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import CoercionWarning, InvalidParameterError
from pysdc._registry._methods import method_by_r_name
from pysdc.core.microagg import mdav
from pysdc.protect import MicroaggregationResult, mafast, microaggregation

from _methods import check_defaults_match_r_formals, check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"
FUNCS = ("microaggregation", "mafast")


CASES = stored_cases(ROOT, FUNCS)


def _check(fn, rname, case):
    check_stored_case(method_by_r_name(rname), fn, case, ROOT, expect_warned=True)


@pytest.mark.parametrize(("rname", "case"), CASES)
def test_stored_parity(rname, case):
    _check(method_by_r_name(rname).native, rname, case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.values[1]["tags"]}
    assert {"mdav", "ties", "strata", "na", "na-stratum", "real", "error", "minus999", "last-group-na",
            "one-variable", "simple", "single", "onedims", "median", "by", "integer"} <= tags
    aggrs = {c.values[1]["args"].get("aggr") for c in CASES if "mdav" in c.values[1]["tags"]}
    assert {2, 3, 4, 5} <= aggrs
    eu = [c for c in CASES if c.values[1]["inputs"]["data"] == "eusilc.csv.gz"]
    assert {"py010n", "hy040n", "hy050n", "eqIncome"} <= {v for c in eu for v in c.values[1]["args"]["variables"]}


# =============================================================================
# what the corpus pins, written out


def test_mdav_ties_the_later_record_is_nearer():
    # five equal records, k = 2: the first round takes the record farthest from the centre (11) and
    # its nearest (10); then the record farthest from 11, the FIRST zero (row 0), and its 2 nearest:
    # all zeros are at distance 0, and among equal distances the LATER record is nearer: rows 4, 3.
    # The rest (rows 0, 1, 2) is the last group.
    x = np.array([[0.0], [0.0], [0.0], [0.0], [0.0], [10.0], [11.0]])
    v, g, _ = mdav(x, 2)
    assert g[5] == g[6] and g[3] == g[4]
    assert g[0] == g[1] == g[2] != g[3]
    assert np.array_equal(v[:, 0], [0, 0, 0, 0, 0, 10.5, 10.5])


def test_mdav_distances_are_single_precision():
    # two candidates whose double distances differ but tie in single precision: the tie rule decides
    # first round: 102 (farthest from the centre) with 101; then the farthest from 102, record 0, whose
    # distances to records 1 (a) and 2 (1.0) differ in double but not in single precision: the later
    # record (2) is the nearer, so the group is {0, 2} and {1, 3} is the last group.
    a = 1.0 + 2.0 ** -30
    x = np.array([[0.0], [a], [1.0], [100.0], [101.0], [102.0]])
    v, g, _ = mdav(x, 2)
    assert g[4] == g[5] and g[0] == g[2] and g[1] == g[3] and g[0] != g[1]


def test_last_group_missing_value_warns_and_keeps_sdcmicro_mean():
    # 5 records, k = 3: fewer than 2k, so all five are the last group
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": [1.0, 2.0, np.nan, 4.0, 5.0]})
    with pytest.warns(CoercionWarning, match="last MDAV group"):
        res = microaggregation(df, aggr=3)
    assert isinstance(res, MicroaggregationResult) and res.method == "mdav"
    b = res.mx["b"].tolist()
    # sdcMicro divides the sum of the four values by all five records: 12 / 5, not 12 / 4
    assert np.isnan(b[2]) and b[:2] + b[3:] == [12 / 5] * 4
    assert res.mx["a"].tolist() == [3.0] * 5


def test_minus_999_is_missing_for_mdav():
    df = pd.DataFrame({"a": [1.0, -999.0, 3.0, 4.0, 5.0, 6.0], "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    with pytest.warns(CoercionWarning, match="-999"):
        microaggregation(df, aggr=3)


def test_result_fields_and_input_untouched():
    df = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)[::-1] ** 2, "s": list("xxxxxyyyyy")})
    before = df.copy()
    res = microaggregation(df, ["a", "b"], aggr=2, strata_variables=["s"])
    assert df.equals(before) and list(res.mx.columns) == ["a", "b"] and res.mx.index.equals(df.index)
    assert list(res.fot.index) == ["x", "y"] and res.fot["x"] == 5 / 2
    one = microaggregation(df, ["a"], aggr=3)
    assert one.method == "mafast" and one.fot == 10 / 3 and list(one.mx.columns) == ["a", "b", "s"]


def test_refusals():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [1.0, 2, 3, 4, 5, 6], "f": pd.Categorical(list("xyxyxy"))})
    for bad in (dict(aggr=0), dict(aggr=2.5), dict(method="nope"), dict(measure="mode")):
        with pytest.raises(InvalidParameterError):
            microaggregation(df, ["a", "b"], **bad)
    with pytest.raises(InvalidParameterError, match="pysdc.r.microaggregation"):
        microaggregation(df, ["a", "b"], method="rmd")
    with pytest.warns(CoercionWarning, match="mdav ignores sampling weights"):  # as sdcMicro, which says nothing
        ignored = microaggregation(df, ["a", "b"], weights=np.arange(6.0))
    assert ignored.mx.equals(microaggregation(df, ["a", "b"]).mx)
    with pytest.raises(InvalidParameterError, match="numeric"):
        microaggregation(df, ["a", "f"])
    with pytest.raises(InvalidParameterError, match="infinite"):
        microaggregation(pd.DataFrame({"a": [1.0, np.inf, 2, 3, 4, 5], "b": np.ones(6)}))
    with pytest.raises(InvalidParameterError):
        mafast(df, ["a"], measure="trim")


def test_mdav_scales():
    x = pd.DataFrame(np.random.default_rng(1).normal(size=(4000, 3)), columns=["a", "b", "c"])
    res = microaggregation(x, aggr=3)
    sizes = np.bincount(res.groups.to_numpy())
    assert sizes.min() == 3 and sizes.max() <= 5 and sizes.sum() == 4000


# =============================================================================
# live: the bridge runs sdcMicro on the same cases; R's defaults; fresh data


@pytest.mark.live
@pytest.mark.parametrize(("rname", "case"), [c for c in CASES if "real" not in c.values[1]["tags"]])
def test_live_bridge_parity(bridge, rname, case):
    m = method_by_r_name(rname)
    _check(getattr(bridge, m.python), rname, case)


@pytest.mark.live
@pytest.mark.parametrize("rname", FUNCS)
def test_defaults_match_r_formals(bridge, rname):
    check_defaults_match_r_formals(bridge, method_by_r_name(rname))


@pytest.mark.live
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_live_mdav_on_fresh_tied_data(bridge, seed):
    rng = np.random.default_rng(seed)
    n = 301
    df = pd.DataFrame({"a": rng.integers(0, 4, n).astype(float), "b": np.round(rng.lognormal(size=n)),
                       "c": rng.integers(0, 3, n).astype(float)})
    df.loc[rng.choice(n, 15), "b"] = np.nan
    for k in (2, 3, 5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nat = microaggregation(df, aggr=k).mx
        ref = bridge.microaggregation(df, aggr=k).mx
        pd.testing.assert_frame_equal(nat.reset_index(drop=True), ref.reset_index(drop=True), check_exact=True,
                                      check_dtype=False)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_fast_mdav_gives_the_plain_rounds_groups(seed, k):
    # the candidate-list MDAV (used from FAST_FROM records) must give exactly the plain rounds' result,
    # on tie-heavy data (integers, 40 % zeros, four identical records) where the tie rule decides
    from pysdc.core import microagg

    rng = np.random.default_rng(seed)
    n = 1500
    d = np.round(rng.lognormal(3, 1, n))
    d[rng.random(n) < 0.4] = 0.0
    x = np.column_stack([rng.integers(0, 5, n).astype(float), np.round(rng.normal(size=n), 1), d])
    x[10:14] = x[9]
    plain = microagg.mdav(x, k)  # below FAST_FROM: the plain rounds
    fast = microagg.mdav_fast(x, k)
    assert np.array_equal(plain[0], fast[0]) and np.array_equal(plain[1], fast[1])


@pytest.mark.parametrize(("rname", "case"), [c for c in CASES if "mdav" in c.values[1]["tags"]
                                             and "error" not in c.values[1]])
def test_stored_parity_through_the_fast_mdav(monkeypatch, rname, case):
    # every stored MDAV case again, with the candidate-list MDAV taken wherever there is no missing value
    from pysdc.core import microagg

    monkeypatch.setattr(microagg, "FAST_FROM", 0)
    _check(method_by_r_name(rname).native, rname, case)
