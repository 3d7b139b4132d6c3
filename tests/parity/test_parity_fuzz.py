"""The differential tester (pysdc.parity.fuzz): its generator everywhere, a few seeds live against sdcMicro,
and the bridge's sdcMicro version in the live parity report."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from pysdc._types import r_class
from pysdc.parity._fuzz_data import KEY_CLASSES, make_dataset

SEEDS = range(1, 301)


@pytest.fixture(scope="module")
def datasets():
    return [make_dataset(s, max_n=6000) for s in SEEDS]


# ------------------------------------------------------------------------------------------ the generator


def test_same_seed_same_data_set():
    a, b = make_dataset(17), make_dataset(17)
    pd.testing.assert_frame_equal(a.data, b.data)
    pd.testing.assert_frame_equal(a.xm, b.xm)
    assert a.tags == b.tags
    assert not make_dataset(18).data.equals(a.data)


def test_every_r_class_of_key_is_produced(datasets):
    declared, sent = set(), set()
    for d in datasets:
        for k in d.keys:
            declared.add(d.key_classes[k])
            sent.add(r_class(d.data[k]))
    assert declared == set(KEY_CLASSES)
    # what the bridge sends to R: text as character, categoricals as (ordered) factors ...
    assert {"integer", "numeric", "factor", "ordered", "logical", "character"} <= sent


def test_declared_class_is_the_columns_r_class(datasets):
    expect = {"integer": "integer", "double": "numeric", "factor": "factor", "ordered": "ordered",
              "logical": "logical", "character": "character"}
    for d in datasets[:60]:
        for k in d.keys:
            assert r_class(d.data[k]) == expect[d.key_classes[k]], (d.seed, k)


def test_missing_keys_households_sensitive_and_missing_sensitive(datasets):
    with_na = [d for d in datasets if "na-keys" in d.tags]
    assert len(with_na) > 30
    for d in with_na:
        assert d.data[d.keys].isna().any().any(), d.seed
    for d in datasets:
        if "na-keys" not in d.tags:
            assert not d.data[d.keys].isna().any().any(), d.seed
    hh = [d for d in datasets if d.hid]
    assert len(hh) > 50
    for d in hh:  # households of several records, ids never missing
        sizes = d.data[d.hid].value_counts()
        assert sizes.max() > 1 and not d.data[d.hid].isna().any()
    assert any(d.sensitive and d.data[d.sensitive].isna().any() for d in datasets)


@pytest.mark.filterwarnings("ignore")
def test_sampling_fractions_near_one(datasets):
    import pysdc

    near = [d for d in datasets if "w-near1" in d.tags]
    assert len(near) > 30
    for d in near[:10]:
        assert d.data[d.w].between(1.0, 1.25).all()
        f = pysdc.freq_calc(d.data, d.keys, w=d.w)
        fk, Fk = np.asarray(f.fk), np.asarray(f.Fk)
        ok = fk > 0
        assert np.all(Fk[ok] / fk[ok] <= 1.25 + 1e-12)  # sampling fractions fk/Fk >= 0.8


def test_sizes_on_both_sides_of_every_threshold():
    from pysdc.parity._fuzz_data import dataset_size

    assert all(dataset_size(s) == make_dataset(s).n for s in (1, 2, 3, 4, 9))
    ns = [dataset_size(s, max_n=100_000) for s in range(1, 2001)]  # the full run's seeds
    assert min(ns) >= 20 and max(ns) <= 100_000
    assert np.mean(np.array(ns) <= 200) > 0.6  # mostly small
    for t in (600, 1500, 5000):
        assert any(t - 3 <= n < t for n in ns) and any(t <= n <= t + 3 for n in ns), t
    assert any(n > 20_000 for n in ns)
    assert max(dataset_size(s, max_n=500) for s in range(1, 300)) <= 500
    assert make_dataset(next(s for s in range(1, 2001) if dataset_size(s) > 500), max_n=500).n == 500


def test_near_collinear_numeric_sets(datasets):
    col = [d for d in datasets if "collinear" in d.tags]
    assert len(col) > 20
    for d in col[:10]:
        x = d.x.dropna().to_numpy()
        c = np.corrcoef(x, rowvar=False)
        assert np.linalg.cond(c) > 1e8, d.seed
    plain = [d for d in datasets if "collinear" not in d.tags][:10]
    assert all(np.linalg.cond(np.corrcoef(d.x.dropna().to_numpy(), rowvar=False)) < 1e6 for d in plain)


def test_masked_copy_has_the_same_shape(datasets):
    for d in datasets[:50]:
        assert d.x.shape == d.xm.shape and list(d.x.columns) == list(d.xm.columns) and len(d.x) == d.n


def test_fuzz_divergences_explain_calls_of_the_committed_run():
    """Each divergences.json entry for the tester explains calls of parity_reports/fuzz.json (and only there)."""
    from pysdc.parity import load_divergences, reference_dir

    divs = [d for d in load_divergences() if d.get("applies_to") == "fuzz"]
    path = reference_dir().parent / "parity_reports" / "fuzz.json"
    if not path.exists():
        pytest.skip("no committed differential-tester result (parity_reports/fuzz.json)")
    doc = json.loads(path.read_text())
    explained = list(doc["explained"])
    methods = path.with_name("fuzz_methods.json")  # the protection methods' run (python -m pysdc.parity.fuzz --methods)
    if methods.exists():
        explained += json.loads(methods.read_text())["explained"]
    for d in divs:
        assert d["case"].startswith("fuzz:") and d["reason"].strip()
        assert any(r["reason"] == d["reason"] for r in explained), d["case"]


# ------------------------------------------------------------------------------------------ classification


def test_classes_match_their_rules():
    from pysdc.parity._fuzz_run import FuzzOutcome
    from pysdc.parity.fuzz import classify

    o = FuzzOutcome(1, "modRisk", "IPF", {}, "mismatch", tags=["n<600"])
    assert classify(o) == "modRisk-IPF-join"
    o = FuzzOutcome(1, "modRisk", "CE", {}, "mismatch", tags=["n<600"])
    assert classify(o) == "unclassified"
    o = FuzzOutcome(1, "dUtility", "eigen", {}, "mismatch", tags=["collinear"])
    assert classify(o) == "eigen-near-singular"
    o = FuzzOutcome(1, "dUtility", "eigen", {}, "mismatch", tags=[])
    assert classify(o) == "unclassified"


def test_results_are_written_atomically_and_reproducible_by_seed(tmp_path):
    from pysdc.parity._fuzz_run import FuzzOutcome
    from pysdc.parity.fuzz import summarize, write_results

    outs = [FuzzOutcome(7, "freqCalc", "w", {"keyVars": ["k1"]}, "agree"),
            FuzzOutcome(8, "dUtility", "eigen", {"method": "eigen"}, "mismatch", detail="value[0]: ...",
                        field="value", max_abs=2.0, max_rel=0.5, tags=["collinear"]),
            FuzzOutcome(9, "suda2", "dis0.1", {}, "mismatch", detail="pysdc refused (ValueError: x)",
                        field="(error)", max_abs=math.inf, max_rel=math.inf)]
    doc = summarize(outs, n=3, seed=7, max_n=100, seconds=1.0, sdcmicro="5.8.0")
    js, md = write_results(doc, tmp_path / "fuzz")
    back = json.loads(js.read_text())
    assert back["totals"] == {"calls": 3, "agree": 1, "both-refused": 0, "explained": 0, "mismatch": 2}
    assert [m["seed"] for m in back["mismatches"]] == [8, 9]
    assert back["mismatches"][0]["reproduce"] == "python -m pysdc.parity.fuzz --replay 8"
    assert back["mismatches"][1]["one_side_refused"] and back["mismatches"][1]["max_abs_diff"] is None
    assert back["classes"]["eigen-near-singular"]["seed"] == 8
    text = md.read_text()
    assert "2 unexplained mismatches" in text and "eigen-near-singular" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzz.json", "fuzz.md"]  # no temporary files left


def test_runs_over_consecutive_seeds_merge(tmp_path):
    from pysdc.parity._fuzz_run import FuzzOutcome
    from pysdc.parity.fuzz import main, merge, summarize, write_results

    a = summarize([FuzzOutcome(1, "freqCalc", "w", {}, "agree"),
                   FuzzOutcome(2, "modRisk", "IPF", {}, "mismatch", field="fitted", max_abs=1.0, max_rel=0.1)],
                  n=2, seed=1, max_n=100, seconds=3.0, sdcmicro="5.8.0")
    b = summarize([FuzzOutcome(3, "freqCalc", "w", {}, "mismatch", field="n1", max_abs=1.0, max_rel=0.5),
                   FuzzOutcome(4, "dRisk", "", {}, "both-refused")], n=2, seed=3, max_n=100, seconds=5.0,
                  sdcmicro="5.8.0")
    m = merge([b, a], divergences=[])
    assert m["header"]["datasets"] == 4 and m["header"]["base_seed"] == 1
    assert m["totals"] == {"calls": 4, "agree": 1, "both-refused": 1, "explained": 0, "mismatch": 2}
    assert m["counts"]["freqCalc"]["calls"] == 2 and m["counts"]["freqCalc"]["mismatch"] == 1
    assert [r["seed"] for r in m["mismatches"]] == [2, 3]
    assert m["classes"]["modRisk-IPF-join"]["seed"] == 2 and m["classes"]["unclassified"]["seed"] == 3
    ex = merge([a, b], divergences=[{"case": "fuzz:modRisk:IPF:*", "applies_to": "fuzz", "reason": "why"},
                                    {"case": "fuzz:freqCalc:*", "applies_to": "live", "reason": "not the tester's"}])
    assert ex["totals"]["explained"] == 1 and ex["totals"]["mismatch"] == 1
    assert ex["counts"]["modRisk"]["explained"] == 1 and ex["explained"][0]["reason"] == "why"
    assert "modRisk-IPF-join" not in ex["classes"]
    c = summarize([], n=1, seed=9, max_n=100, seconds=1.0, sdcmicro="5.8.0")
    with pytest.raises(ValueError, match="consecutive"):
        merge([a, c])
    write_results(a, tmp_path / "a")
    write_results(b, tmp_path / "b")
    assert main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--output",
                 str(tmp_path / "all")]) == 0
    assert json.loads((tmp_path / "all.json").read_text())["totals"] == m["totals"]


def test_without_sdcmicro_the_command_says_so(monkeypatch, capsys):
    import pysdc.r
    from pysdc.parity import fuzz
    from pysdc.r._objects import Availability

    monkeypatch.setattr(pysdc.r, "available", lambda *a, **k: Availability(False, "sdcMicro is not installed. "
                                                                                     "Install sdcMicro in R: ..."))
    assert fuzz.main(["--n", "1", "--output", "/nonexistent/never"]) == 2
    err = capsys.readouterr().err
    assert "needs R with sdcMicro" in err and "install" in err.lower()


# ------------------------------------------------------------------------------------------ version report


def test_version_note_only_when_another_sdcmicro_is_installed(monkeypatch):
    import pysdc.r
    from pysdc.parity import _report

    assert _report.version_note("5.8.0") == [] and _report.version_note(None) == []
    note = "\n".join(_report.version_note("5.8.2"))
    assert "5.8.2, not 5.8.0" in note and "ldiversity" in note and "missing values" in note

    monkeypatch.setattr(pysdc.r, "sdcmicro_version", lambda: "5.9.1")
    rep = _report.report_dict([], {"date": "d", "r_version": "R", "sdcmicro_version": "5.8.0"}, "live")
    assert rep["sdcmicro_installed"] == "5.9.1"
    md = _report.markdown(rep)
    assert "installed sdcMicro is 5.9.1, not 5.8.0" in md and "ldiversity" in md
    assert "5.9.1" in _report.html_page(rep, [])

    monkeypatch.setattr(pysdc.r, "sdcmicro_version", lambda: "5.8.0")
    md = _report.markdown(_report.report_dict([], {"date": "d", "r_version": "R", "sdcmicro_version": "5.8.0"},
                                              "live"))
    assert "not 5.8.0" not in md and "installed sdcMicro (the bridge's) 5.8.0" in md
    native = _report.report_dict([], {"date": "d", "r_version": "R", "sdcmicro_version": "5.8.0"}, "native")
    assert "sdcmicro_installed" not in native  # the stored corpus only: no R needed


# ------------------------------------------------------------------------------------------ live


@pytest.mark.live
@pytest.mark.needs_r
def test_sdcmicro_version_is_reported():
    import pysdc.r

    v = pysdc.r.sdcmicro_version()
    assert v == pysdc.r.versions()["sdcMicro"] and v in pysdc.r.available().reason


#: data sets whose every comparison agrees (or is refused by both) with sdcMicro 5.8.0: seed -> what it covers
LIVE_SEEDS = {3: "double and logical keys, households, sampling fractions near 1",
              34: "integer keys (ages, wide ids) and a double key, wide weights",
              44: "ordered, logical and factor keys, households, missing sensitive values, near-collinear numerics",
              50: "missing keys, five keys of four classes, households, 772 records"}


@pytest.mark.live
@pytest.mark.needs_r
@pytest.mark.parametrize("seed", sorted(LIVE_SEEDS))
def test_fuzz_seed_agrees_with_sdcmicro(seed):
    from pysdc.parity import load_divergences
    from pysdc.parity._fuzz_run import run_dataset

    outs = run_dataset(make_dataset(seed, max_n=6000), load_divergences())
    assert len({o.measure for o in outs}) >= 12
    bad = [f"{o.measure} {o.variant}: {o.detail}" for o in outs if o.status == "mismatch"]
    assert not bad, bad


@pytest.mark.live
@pytest.mark.needs_r
def test_fuzz_finds_a_planted_difference():
    """The runner is not blind: a native freq_calc that is off by one count is reported with its seed."""
    import types

    import pysdc
    from pysdc.parity._fuzz_run import run_dataset

    def freq_calc(*a, **k):
        r = pysdc.freq_calc(*a, **k)
        return type(r)(**{**{f: getattr(r, f) for f in r.__dataclass_fields__}, "n1": r.n1 + 1})

    fake = types.SimpleNamespace(**{n: getattr(pysdc, n) for n in pysdc.__all__})
    fake.freq_calc = freq_calc
    outs = run_dataset(make_dataset(2, max_n=6000), (), native_mod=fake, problem=False)
    fc = [o for o in outs if o.measure == "freqCalc"]
    assert fc[0].status == "mismatch" and fc[0].field == "n1" and fc[0].seed == 2
