"""The sections of ``pysdc parity`` for stored outputs across several functions: numerics.json, print.json and
createSdcObj.json (pysdc/parity/_sections.py).

Every case of the three files runs in the parity command (natively here; each case is also a test of
tests/parity/test_parity_stored.py), the comparers can fail (a perturbed result, a missing printed line, a
level order that is not createSdcObj's), a case the machine cannot run is reported as not run, and the report
shows each as its own section. The live tests run every case of the three sections through the R bridge.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import pysdc
from pysdc import parity
from pysdc.parity import _sections

ROOT = parity.reference_dir()
STEMS = ("numerics", "print", "createSdcObj")
CASES = {stem: parity.load_corpus(ROOT, [stem]) for stem in STEMS}


def _stored_ids(stem):
    return [c["id"] for c in json.loads((ROOT / "outputs" / f"{stem}.json").read_text(encoding="utf-8"))["cases"]]


@pytest.mark.parametrize("stem", STEMS)
def test_every_stored_case_is_a_case_of_its_section(stem):
    cases = CASES[stem]
    assert [c.id for c in cases] == _stored_ids(stem)
    assert {c.function for c in cases} == {stem} and {c.group for c in cases} == {stem}
    assert parity.is_section(stem) and not parity.is_method(stem) and stem in parity.FUNCTIONS
    assert stem in [c.group for c in parity.load_corpus(ROOT)]  # read by the whole command too


def _first(stem, pred=lambda c: True):
    return next(c for c in CASES[stem] if pred(c))


def _with(actual, path, fn):
    """A copy of ``actual`` with the field at ``path`` replaced by fn(value)."""
    import copy

    out = copy.deepcopy(actual)
    d = out
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = fn(d[path[-1]])
    return out


def _run(case):
    return parity.run_case(case, pysdc, ROOT)


def test_numerics_series_comparer_fails_on_a_last_digit_difference():
    case = _first("numerics", lambda c: c.id.endswith("series:r1.5"))
    actual = _run(case)
    assert all(d.ok for d in parity.compare(case, actual))
    bad = _with(actual, ["rk"], lambda rk: rk * (1 + 1e-10))
    assert not all(d.ok for d in parity.compare(case, bad))


def test_numerics_keys_comparer_fails_on_other_frequencies():
    case = _first("numerics", lambda c: ":indivRisk-keys:demo" in c.id)
    actual = _run(case)
    assert all(d.ok for d in parity.compare(case, actual))
    bad = _with(actual, ["n"], lambda n: n + np.eye(1, n.size, dtype=n.dtype).ravel())
    assert not all(d.ok for d in parity.compare(case, bad))
    bad = _with(actual, ["fk"], lambda fk: fk[:-1])
    assert [d.field for d in parity.compare(case, bad) if not d.ok] == ["fk"]


def test_numerics_dutility_comparer_fails_beyond_its_tolerance():
    case = _first("numerics", lambda c: "dUtility-eigen" in c.id)
    actual = {"columns": list(case.result["columns"]), "value": float(case.result["value"])}
    assert all(d.ok for d in parity.compare(case, actual))
    assert not all(d.ok for d in parity.compare(case, {**actual, "value": actual["value"] * (1 + 1e-9)}))
    assert not all(d.ok for d in parity.compare(case, {**actual, "columns": actual["columns"][::-1]}))


def test_numerics_without_system_lapack_is_not_run_and_says_why(monkeypatch):
    monkeypatch.setattr(_sections.core_eigen, "system_lapack", lambda: None)
    case = _first("numerics", lambda c: "dUtility-robeigen" in c.id)
    out = parity.check_case(case, None, ROOT, [], "native")
    assert out.status == "not_run" and "LAPACK" in out.message


@pytest.mark.parametrize("fun", ["measure_risk", "freqCalc", "indivRisk", "ldiversity"])
def test_print_comparer_fails_on_a_missing_line_and_on_a_number(fun):
    case = _first("print", lambda c: c.args["fun"] == fun)
    actual = _run(case)
    assert all(d.ok for d in parity.compare(case, actual)), [d.detail for d in parity.compare(case, actual)]
    # the printed text without the lines sdcMicro prints (its digits replaced)
    blank = _with(actual, ["text"], lambda t: "".join("#" if ch.isdigit() else ch for ch in t))
    assert not all(d.ok for d in parity.compare(case, blank))
    num = actual["numbers"]
    key = next(k for k in num if k not in ("n_higher", "global_threshold", "hier_risk_ER", "hier_risk_pct"))
    if isinstance(num[key], dict):
        bad = _with(actual, ["numbers", key, "Mean"], lambda v: v * (1 + 1e-9))
    else:
        bad = _with(actual, ["numbers", key], lambda v: v + 1 if isinstance(v, int) else v * (1 + 1e-9))
    assert not all(d.ok for d in parity.compare(case, bad))


def test_createsdcobj_comparer_fails_on_the_level_order_and_on_dis_suda():
    case = _first("createSdcObj", lambda c: c.id == "createSdcObj:sdcobj_text:icu")
    actual = _run(case)
    assert all(d.ok for d in parity.compare(case, actual))
    bad = _with(actual, ["levels", "k1"], sorted)  # code point order: not createSdcObj's (ICU) order
    assert [d.field for d in parity.compare(case, bad) if not d.ok] == ["levels.k1"]
    bad = _with(actual, ["suda2", "disScore"], lambda v: v * (1 + 1e-8))  # the size of finding 5's difference
    assert not all(d.ok for d in parity.compare(case, bad))
    bad = _with(actual, ["kAnon_violations", "weighted"], lambda v: v + 1)
    assert not all(d.ok for d in parity.compare(case, bad))


def test_the_collation_case_is_createsdcobjs_under_lc_collate_c():
    icu = _first("createSdcObj", lambda c: c.id.endswith(":icu"))
    c_case = _first("createSdcObj", lambda c: c.id.endswith(":C"))
    a, b = _run(icu), _run(c_case)
    assert a["levels"]["k1"] != b["levels"]["k1"]
    assert parity.check_case(c_case, None, ROOT, [], "native").status == "passed"


def test_the_report_shows_each_section():
    cases = [CASES["numerics"][0], CASES["print"][0], CASES["createSdcObj"][-1]]
    outcomes = [parity.check_case(c, None, ROOT, [], "native") for c in cases]
    assert [o.status for o in outcomes] == ["passed"] * 3
    rep = parity.report_dict(outcomes, parity.corpus_header(ROOT), "native", [])
    assert [rep["summary"][s]["kind"] for s in STEMS] == ["section"] * 3
    md = parity.markdown(rep)
    for stem in STEMS:
        title = _sections.SECTIONS[stem].title
        assert f"## {title}" in md
    from pysdc.parity._report import html_page

    page = html_page(rep, outcomes)
    for stem in STEMS:
        assert f"<h2>{_sections.SECTIONS[stem].title.replace('`', '')}</h2>" in page
    # the measures' table lists measures only
    measures = md.split("## Measures", 1)[1].split("\n## ", 1)[0]
    assert "numerics" not in measures and "createSdcObj" not in measures


def test_the_command_selects_a_section_by_name(tmp_path, capsys):
    from pysdc.cli import main

    assert main(["parity", "--function", "print", "--no-write"]) == 0
    out = capsys.readouterr().out
    assert "print" in out and f"{len(CASES['print'])} cases" in out


# ------------------------------------------------------------------ live: every case through the bridge

SECTION_CASES = [c for stem in STEMS for c in CASES[stem]]


@pytest.mark.live
@pytest.mark.parametrize("case", SECTION_CASES, ids=[c.id for c in SECTION_CASES])
def test_section_live(case, bridge):
    """sdcMicro through the bridge reproduces the stored output (createSdcObj: the object made by the bridge)."""
    div = parity.divergence_for(case.id, parity.load_divergences(ROOT), "live")
    if div:
        pytest.xfail(div["reason"])
    out = parity.check_case(case, bridge, ROOT, [], "live")
    assert out.status == "passed", out.message


# ------------------------------------------------------------------ clara's empty medoid (microaggregation_clara.json)


def test_claras_empty_medoid_is_a_stored_case_where_sdcmicro_stops_and_pysdc_refuses_saying_why():
    """cluster::clara returns medoid 0 (a medoid without records of its own, after reading outside its data) on
    mccl30 with nc = 4; sdcMicro's microaggregation stops right after, in clara's own R code (the stored error);
    pysdc stops at the empty medoid with the reason. Both refuse: a pass of the parity run, not a divergence."""
    cases = parity.load_corpus(ROOT, ["microaggregation_clara"])
    assert {c.args["method"] for c in cases} == {"influence", "clustpca"}
    for case in cases:
        assert case.expects_error and "dimnames" in case.error
        out = parity.check_case(case, None, ROOT, parity.load_divergences(ROOT), "native")
        assert out.status == "passed" and out.divergence is None
        assert "medoid" in out.message and "no record of its own" in out.message


def test_claras_empty_medoid_on_the_stored_input():
    from pysdc.core.clara import ClusterError, clara

    x = parity.load_input(ROOT, "mccl30.csv.gz")[["a", "b"]].to_numpy(dtype=float)
    assert np.isnan(x).sum() == 3
    with pytest.raises(ClusterError, match="medoid 0"):
        clara(x, 4)
    clara(x[~np.isnan(x).any(axis=1)], 4)  # without the records with a missing value: no empty medoid
