"""The differential tester extended to the protection methods (pysdc.parity._fuzz_methods): each native method
against sdcMicro 5.8.0's (live) on random messy data, and the disagreements it found, minimised (strict xfails
listed in r_reference/divergences.json, or fixed)."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc.protect
from pysdc._errors import PysdcError
from pysdc._registry._methods import METHODS
from pysdc.parity import load_divergences
from pysdc.parity._fuzz_data import make_dataset
from pysdc.parity._fuzz_methods import NOT_COMPARED, compared_methods, method_frame, method_variants, run_methods

#: data sets whose every method call agrees with sdcMicro 5.8.0 (or is refused by both): seed -> what they cover
LIVE_SEEDS = {3: "double and logical keys, households, 52 records",
              7: "ordered, double, text and two factor keys, 143 records",
              12: "integer, double and text keys with missing values, 196 records"}


def _variants(seed):
    return method_variants(make_dataset(seed, max_n=2000), np.random.default_rng([seed, 3]))


# ------------------------------------------------------------------------------------------ without R


def test_every_registry_method_is_compared_or_says_why_not():
    assert set(compared_methods()) | set(NOT_COMPARED) == {m.r for m in METHODS}
    seen = {v[0] for s in range(1, 41) for v in _variants(s)}
    assert seen == set(compared_methods())


def test_variants_are_the_seeds_and_messy():
    a, b = _variants(5), _variants(5)
    assert [(r, v, x) for r, v, x, _ in a] == [(r, v, x) for r, v, x, _ in b]
    assert [(r, v, x) for r, v, x, _ in a] != [(r, v, x) for r, v, x, _ in _variants(6)]
    labels = {(r, v) for s in range(1, 61) for r, v, _, _ in _variants(s)}
    # strata, unused factor levels, ordered factors, every addNoise method, missing-value data sets
    assert ("groupAndRename", "unused") in labels and any(r == "pram" and "ordered" in v for r, v in labels)
    assert any(r == "microaggregation" and "strata" in v for r, v in labels)
    assert {v for r, v in labels if r == "addNoise"} >= {"additive", "correlated", "correlated2", "restr", "outdect"}
    assert any("na-keys" in make_dataset(s, max_n=2000).tags for s in range(1, 21))


def test_method_frame_keeps_the_data_set():
    ds = make_dataset(4, max_n=2000)
    f = method_frame(ds)
    assert list(f.columns) == [*ds.data.columns, *ds.x.columns] and len(f) == ds.n


# ------------------------------------------------------------------------------------------ live


@pytest.mark.live
@pytest.mark.parametrize("seed", sorted(LIVE_SEEDS))
def test_methods_agree_with_sdcmicro(bridge, seed):
    outs = run_methods(make_dataset(seed, max_n=2000), load_divergences(), bridge_mod=bridge)
    assert len({o.measure for o in outs}) >= 8  # pram and groupAndRename need a categorical key
    bad = [f"{o.measure} {o.variant}: {o.detail}" for o in outs if o.status == "mismatch"]
    assert not bad, bad


@pytest.mark.live
def test_a_planted_difference_is_found(bridge):
    """The runner is not blind: a native top_bot_coding that moves one more value is reported with its seed."""

    def top_bot_coding(data, column, value, replacement, kind="top"):
        out = pysdc.protect.top_bot_coding(data, column, value, replacement, kind=kind)
        out.loc[out.index[0], column] = -12345
        return out

    fake = types.SimpleNamespace(**{m.python: m.native for m in METHODS})
    fake.top_bot_coding = top_bot_coding
    outs = run_methods(make_dataset(3, max_n=2000), (), native_mod=fake, bridge_mod=bridge, methods={"topBotCoding"})
    assert [o.status for o in outs] == ["mismatch"] and outs[0].seed == 3


@pytest.mark.live
def test_a_raw_native_error_is_a_mismatch_even_when_sdcmicro_refuses(bridge):
    def group_and_rename(*a, **k):
        raise IndexError("planted")

    fake = types.SimpleNamespace(**{m.python: m.native for m in METHODS})
    fake.group_and_rename = group_and_rename
    outs = run_methods(make_dataset(3, max_n=2000), (), native_mod=fake, bridge_mod=bridge,
                       methods={"groupAndRename"})
    outs = outs or run_methods(make_dataset(5, max_n=2000), (), native_mod=fake, bridge_mod=bridge,
                               methods={"groupAndRename"})
    assert outs[0].status == "mismatch" and outs[0].field == "(raw error)" and "IndexError" in outs[0].detail


# ------------------------------------------------------------------------------------------ findings, minimised


def _ordered():
    return pd.DataFrame({"v": pd.Categorical(list("abcabcabca"), ordered=True), "w": np.arange(10)})


@pytest.mark.live
def test_sdcmicro_stops_on_an_ordered_pram_variable(bridge):
    with pytest.raises(PysdcError, match="must be factors"):
        bridge.pram(_ordered(), ["v"], random_state=1)


def test_pram_refuses_an_ordered_variable_as_sdcmicro():
    """Found by the tester: sdcMicro 5.8.0's pram stops on an ordered factor; pysdc pramed it."""
    with pytest.raises(pysdc.InvalidParameterError, match="must be factors"):
        pysdc.protect.pram(_ordered(), ["v"], random_state=1)


def _shuffle_data(collinear=False, missing=False):
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40), "c": rng.normal(size=40),
                      "k": rng.normal(size=40)})
    if collinear:
        d["e"] = 2 * d["c"]
    if missing:
        d.loc[3, "k"] = np.nan  # a column outside the formula
    return d


@pytest.mark.live
def test_sdcmicro_shuffle_stops_without_gadp_on_data_with_a_missing_value(bridge):
    with pytest.raises(PysdcError, match="subscripts"):
        bridge.shuffle(_shuffle_data(missing=True), "a + b ~ c", gadp=False, random_state=1)
    bridge.shuffle(_shuffle_data(missing=True), "a + b ~ c", gadp=True, random_state=1)  # with EGADP it runs


def test_shuffle_without_gadp_on_missing_values_stops_as_sdcmicro():
    """Found by the tester: sdcMicro 5.8.0's shuffle(gadp = FALSE) stops on data with a missing value anywhere
    ('incorrect number of subscripts on matrix'); pysdc imputed and returned a result. It now refuses, saying why."""
    with pytest.raises(pysdc.InvalidParameterError, match="gadp=True"):
        pysdc.protect.shuffle(_shuffle_data(missing=True), "a + b ~ c", gadp=False, random_state=1)


@pytest.mark.live
def test_sdcmicro_shuffle_stops_on_collinear_predictors(bridge):
    with pytest.raises(PysdcError, match="singular"):
        bridge.shuffle(_shuffle_data(collinear=True), "a + b ~ c + e", random_state=1)


def test_shuffle_refuses_collinear_predictors_as_sdcmicro():
    """Found by the tester (fuzz seeds 4, 20: pysdc returned a result where sdcMicro's solve stops)."""
    with pytest.raises(PysdcError, match="singular"):
        pysdc.protect.shuffle(_shuffle_data(collinear=True), "a + b ~ c + e", random_state=1)


def test_mv_top_coding_on_an_exact_fit_gives_a_clear_error():
    """Found by the tester (seed 27: one column a multiple of the other plus noise of 1e-7): covMcd's initial
    subset grew past the last record (a raw IndexError); sdcMicro stops ('computationally singular')."""
    x = make_dataset(27, max_n=2000).x[["v1", "v2"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(pysdc.InvalidParameterError, match="singular"):
            pysdc.protect.mv_top_coding(x, random_state=43109)


@pytest.mark.live
def test_add_noise_outdect_one_column_as_sdcmicro(bridge):
    """Found by the tester (seed 8): R's sd subtracts the mean in long double (cov.c's LDOUBLE xxm); pysdc's
    r_sd did it in double and the noise's scale differed by one ulp."""
    x = make_dataset(8, max_n=2000).x[["v4"]]
    a = pysdc.protect.add_noise(x, ["v4"], method="outdect", random_state=51460).xm.to_numpy()
    b = bridge.add_noise(x, ["v4"], method="outdect", random_state=51460).xm.to_numpy()
    assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.live
def test_pram_strata_with_a_non_ascii_label_as_sdcmicro(bridge):
    """Found by the tester: the strata are taken in R's sort() order of their labels (ICU's collation, 'ä' with
    'a'); pysdc's own approximation put 'ä-umlaut' after the ASCII letters."""
    d = method_frame(make_dataset(42, max_n=2000))[["k1", "k2"]]
    a = pysdc.protect.pram(d, ["k1"], strata_variables=["k2"], random_state=77381).data["k1_pram"]
    b = bridge.pram(d, ["k1"], strata_variables=["k2"], random_state=77381).data["k1_pram"]
    assert np.array_equal(a.cat.codes.to_numpy(), b.cat.codes.to_numpy())


@pytest.mark.live
def test_pram_strata_agree_once_the_label_is_ascii(bridge):
    d = method_frame(make_dataset(42, max_n=2000))[["k1", "k2"]]
    d["k2"] = d["k2"].cat.rename_categories(lambda c: c.replace("ä", "a"))
    a = pysdc.protect.pram(d, ["k1"], strata_variables=["k2"], random_state=77381).data["k1_pram"]
    b = bridge.pram(d, ["k1"], strata_variables=["k2"], random_state=77381).data["k1_pram"]
    assert np.array_equal(a.cat.codes.to_numpy(), b.cat.codes.to_numpy())


# ------------------------------------------------------------------------------------------ the command


@pytest.mark.live
def test_command_replays_a_methods_data_set(bridge, capsys):
    from pysdc.parity.fuzz import main

    assert main(["--methods", "--replay", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("seed 3: n=52") and "agree" in out and "localSuppression" in out and "freqCalc" not in out


def test_committed_methods_run_is_rendered_as_the_methods():
    import json

    from pysdc.parity import reference_dir
    from pysdc.parity.fuzz import markdown

    path = reference_dir().parent / "parity_reports" / "fuzz_methods.json"
    if not path.exists():
        pytest.skip("no committed methods run (parity_reports/fuzz_methods.json)")
    doc = json.loads(path.read_text())
    assert set(doc["counts"]) == set(compared_methods()) and doc["totals"]["mismatch"] == 0
    md = markdown(doc)
    assert md.startswith("# pysdc's protection methods") and "--methods --replay SEED" in md
    assert all(r["reproduce"].endswith(f"--methods --replay {r['seed']}") for r in doc["explained"])


@pytest.mark.live
@pytest.mark.parametrize("dtype", ["int64", "Int64"])
def test_top_bot_coding_a_double_replacement_makes_the_column_double_through_the_bridge(bridge, dtype):
    """Found by the tester (seed 1): R's column becomes double even when no value is replaced; the bridge's dtype
    memory had made its whole numbers integer again (native: float)."""
    d = pd.DataFrame({"x": pd.array([1, 5, 9], dtype=dtype)})
    for value in (9, 5):  # nothing above 9; 9 replaced
        handle = bridge.call("topBotCoding", d, value=value, replacement=float(value), column="x", as_robject=True)
        column = bridge.call("[[", handle, "x", package="base", as_robject=True)
        assert bridge.call("class", column, package="base") == "numeric"  # R's
        a = pysdc.protect.top_bot_coding(d, "x", value, float(value))
        b = bridge.top_bot_coding(d, "x", value, float(value))
        assert a["x"].dtype.kind == b["x"].dtype.kind == "f" and a["x"].dtype == b["x"].dtype
