"""No silent wrong number, no raw error (issue 14): one test per class of problem.

Expected numbers come from hand computation or from sdcMicro 5.8.0 (noted where so), never
from pysdc's own output.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import AlignmentWarning, CoercionWarning, DegenerateResultWarning, InvalidParameterError, PysdcWarning


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo()


KEYS = ["region", "urbrur", "sex", "age_group"]
NUM = ["income", "expenditure", "savings"]


def _no_warnings(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


# --------------------------------------------------------------------------- weights

def test_weights_below_one_warn_that_risks_are_not_probabilities(demo):
    d = demo.copy()
    d["nw"] = d.weight / d.weight.mean()
    with pytest.warns(DegenerateResultWarning, match=r"expansion factors \(>= 1.*not probabilities"):
        r = pysdc.measure_risk(d, KEYS, w="nw")
    assert r.individual["risk"].max() > 1  # the number is sdcMicro's, only explained
    with pytest.warns(DegenerateResultWarning, match="below 1"):
        pysdc.freq_calc(d, KEYS, w="nw")
    _no_warnings(pysdc.measure_risk, demo, KEYS, w="weight")  # real weights: silent


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_non_finite_weights_are_refused(demo, bad):
    d = demo.copy()
    d.loc[3, "weight"] = bad
    with pytest.raises(InvalidParameterError, match="infinite"):
        pysdc.measure_risk(d, KEYS, w="weight")
    with pytest.raises(InvalidParameterError, match="infinite"):
        pysdc.freq_calc(d, KEYS, w="weight")


def test_huge_weights_are_not_blamed_on_negative_frequencies():
    d = pd.DataFrame({"k": [1, 1, 2, 2], "w": [1e308, 1e308, 5.0, 5.0]})
    with pytest.warns(DegenerateResultWarning) as rec:
        pysdc.measure_risk(d, ["k"], w="w")
    text = " ".join(str(w.message) for w in rec)
    assert "so large" in text and "zero or negative" not in text


def test_w_given_as_a_series_gets_a_short_message(demo):
    with pytest.raises(InvalidParameterError) as exc:
        pysdc.measure_risk(demo, KEYS, w=demo["weight"])
    msg = str(exc.value)
    assert "column name" in msg and "w='weight'" in msg and len(msg) < 300


# --------------------------------------------------------------------------- pairing by position

def test_records_paired_by_position_warn_when_indexes_differ():
    x, xm = pysdc.load_demo_pair()
    shuffled = xm[NUM].sample(frac=1, random_state=1)
    with pytest.warns(AlignmentWarning, match=r"xm.loc\[x.index\]"):
        pysdc.d_utility(x[NUM], shuffled)
    with pytest.warns(AlignmentWarning, match="paired by position"):
        pysdc.il_variables(x[NUM], shuffled)
    with pytest.warns(AlignmentWarning, match="il_continuous"):
        pysdc.il_continuous(x[NUM].fillna(0), shuffled.fillna(0))
    relabelled = xm[NUM].set_axis(np.arange(len(xm)) + 10_000)
    with pytest.warns(AlignmentWarning, match="reset_index"):
        pysdc.d_utility(x[NUM], relabelled)
    # aligned, or NumPy arrays (positional by nature): silent; the value is the aligned one
    aligned = _no_warnings(pysdc.d_utility, x[NUM], shuffled.loc[x.index])
    assert aligned.value == pysdc.d_utility(x[NUM], xm[NUM]).value
    _no_warnings(pysdc.d_utility, x[NUM].to_numpy(), shuffled.to_numpy())


def test_frame_and_array_pair_columns_by_position():
    x = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [2.0, 5.0, 8.0]})
    xm = np.array([[1.0, 2.0], [2.0, 5.0], [5.0, 8.0]])
    # 100 * |4 - 5| / 4 = 25 (sdcMicro gives this for a data.frame xm)
    assert pysdc.d_utility(x, xm, method="IL1").value == pytest.approx(25.0)
    assert pysdc.d_utility(xm, x, method="IL1").value == pytest.approx(100 * 1 / 5)
    with pytest.raises(InvalidParameterError, match="same number of columns"):
        pysdc.d_utility(x, xm[:, :1])


# --------------------------------------------------------------------------- empty and tiny data

@pytest.mark.parametrize("method", ["IL1", "IL1s"])
def test_empty_data_give_sdcmicros_zero_with_a_warning(method):
    # sdcMicro 5.8.0: dUtility on 0 rows is 0 for IL1 and IL1s (a sum over no cells), silently
    x = pd.DataFrame({"a": np.array([], dtype=float)})
    with pytest.warns(DegenerateResultWarning, match="no records"):
        r = pysdc.d_utility(x, x.copy(), method=method)
    assert r.value == 0.0


def test_il1s_on_one_record_is_sdcmicros_zero_with_a_warning():
    # sdcMicro 5.8.0: dUtility(x[1, ], xm[1, ], method = "IL1s") is 0 (sd of one value is NA, cells dropped)
    x = pd.DataFrame({"a": [1.0], "b": [2.0]})
    with pytest.warns(DegenerateResultWarning, match="fewer than two non-missing"):
        r = pysdc.d_utility(x, x + 0.5, method="IL1s")
    assert r.value == 0.0


def test_il_variables_on_no_records_names_the_real_cause():
    x = pd.DataFrame({"a": np.array([], dtype=float)})
    with pytest.warns(DegenerateResultWarning) as rec:
        pysdc.il_variables(x, x.copy())
    text = " ".join(str(w.message) for w in rec)
    assert "no records" in text and "ordered factor" not in text


# --------------------------------------------------------------------------- diagnostics name the cause

@pytest.fixture(scope="module")
def num_pair():
    x, xm = pysdc.load_demo_pair()
    return x[NUM].fillna(0), xm[NUM].fillna(0)


def test_robeigen_names_a_constant_column(num_pair):
    x, xm = (f.assign(c=1.0) for f in num_pair)
    with pytest.warns(DegenerateResultWarning, match=r"\['c'\] are constant") as rec:
        r = pysdc.d_utility(x, xm, method="robeigen", random_state=1)
    assert np.isnan(r.value) and not any("complete rows" in str(w.message) for w in rec)


@pytest.mark.parametrize("method", ["eigen", "robeigen"])
def test_eigen_methods_name_an_infinite_value(num_pair, method):
    x, xm = num_pair[0].copy(), num_pair[1]
    x.iloc[0, 0] = np.inf
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = pysdc.d_utility(x, xm, method=method, random_state=1)
    assert np.isnan(r.value)
    msgs = [str(w.message) for w in rec]
    assert any("infinite value(s) in column(s) ['income']" in m for m in msgs)
    assert not any(issubclass(w.category, RuntimeWarning) for w in rec)
    assert not any("are constant" in m for m in msgs)


def test_il_correl_names_an_infinite_value_and_leaks_no_runtime_warning(num_pair):
    x = num_pair[0].copy()
    x.iloc[0, 0] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InvalidParameterError, match=r"infinite value\(s\) in column\(s\) \['income'\]"):
            pysdc.il_correl(x, num_pair[1])


# --------------------------------------------------------------------------- nonsensical options

def test_qual_not_positive_warns(demo):
    f = pysdc.freq_calc(demo, KEYS, w="weight")
    # sdcMicro 5.8.0 accepts qual = -1 and returns negative risks: pysdc keeps the number and warns
    with pytest.warns(DegenerateResultWarning, match="negative"):
        r = pysdc.indiv_risk(f, qual=-1)
    assert (r.rk <= 0).all()
    with pytest.warns(DegenerateResultWarning, match="qual=0"):
        pysdc.indiv_risk(f, qual=0)
    _no_warnings(pysdc.indiv_risk, f, qual=0.5)


@pytest.mark.parametrize("c", [0, -1])
def test_l_recurs_c_not_positive_warns(demo, c):
    with pytest.warns(DegenerateResultWarning, match="c > 0"):
        pysdc.ldiversity(demo, KEYS, "health_status", l_recurs_c=c)


def test_il_variables_says_which_columns_it_leaves_out():
    x = pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, 2.0]})
    with pytest.warns(PysdcWarning, match=r"only in x \['b'\]"):
        r = pysdc.il_variables(x, x[["a"]])
    assert list(r.per_variable.index) == ["a"]
    with pytest.raises(InvalidParameterError, match="only in x"):
        pysdc.d_utility(x, x[["a"]])


def test_random_state_is_validated_and_its_uselessness_said(num_pair):
    x, xm = num_pair
    with pytest.raises(InvalidParameterError, match="random_state"):
        pysdc.d_utility(x, xm, method="robeigen", random_state="abc")
    with pytest.raises(InvalidParameterError, match="random_state"):
        pysdc.d_utility(x, xm, method="robeigen", random_state=-1)
    with pytest.warns(PysdcWarning, match="only by method='robeigen'"):
        pysdc.d_utility(x, xm, method="IL1", random_state=3)


# --------------------------------------------------------------------------- keys and ids

def test_text_keys_in_freq_calc_say_every_record_matches_every_other(demo):
    d = demo.copy()
    d["region"] = d["region"].astype(str)
    with pytest.warns(CoercionWarning, match="every record now matches every other") as rec:
        pysdc.freq_calc(d, ["region", "sex"])
    assert any("astype('category')" in str(w.message) for w in rec)


def test_ids_beyond_2_53_that_merge_warn():
    big = np.uint64(2**60)
    d = pd.DataFrame({"k": [1, 1, 2, 2], "h": np.array([big, big + np.uint64(1), big + np.uint64(2), 7],
                                                       dtype=np.uint64)})
    with pytest.warns(PysdcWarning, match="beyond 2\\^53.*4 distinct values become 2"):
        pysdc.measure_risk(d, ["k"], hid="h")
    d["kk"] = d["h"]
    with pytest.warns(PysdcWarning, match="beyond 2\\^53"):
        pysdc.freq_calc(d, ["kk"])


def test_uint64_keys_above_2_63_work():
    d = pd.DataFrame({"u": np.array([2**63 + 5] * 3 + [3] * 2, dtype=np.uint64)})
    r = pysdc.measure_risk(d, ["u"])
    assert r.global_risk_er == pytest.approx(3 * (1 / 3) + 2 * (1 / 2))


@pytest.mark.parametrize("param", ["key", "hid"])
def test_list_valued_columns_are_refused_naming_the_argument(param):
    d = pd.DataFrame({"k": [1, 1, 2], "L": [[1], [1], [2]]})
    kw = {"key_vars": ["L"]} if param == "key" else {"key_vars": ["k"], "hid": "L"}
    with pytest.raises(InvalidParameterError, match=("key_vars" if param == "key" else "hid") + ".*list"):
        pysdc.measure_risk(d, **kw)
