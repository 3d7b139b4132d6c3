"""`pysdc parity` covers the protection methods (pysdc.protect) like the measures.

The stored corpus of each method (r_reference/outputs/<RName>.json, sdcMicro's own results) is read through
the methods registry (pysdc._registry._methods): the same cases, run natively and through the bridge, compared
by the method's comparer, with the known divergences of r_reference/divergences.json.
"""

from __future__ import annotations

import dataclasses
import json
import types

import pytest

from pysdc import parity as _parity
from pysdc._registry._methods import METHODS
from pysdc.cli import main
from pysdc.protect import global_recode

ROOT = _parity.reference_dir()
DIVERGENCES = _parity.load_divergences(ROOT)
STORED = [m for m in METHODS if m.run_case is not None and (ROOT / "outputs" / f"{m.r}.json").exists()]


def _case(case_id: str):
    fun = case_id.split(":", 1)[0]
    (case,) = [c for c in _parity.load_corpus(ROOT, [fun]) if c.id == case_id]
    return case


def test_every_method_with_stored_cases_is_in_the_corpus():
    assert {m.r for m in STORED} >= {"globalRecode", "groupAndRename", "topBotCoding", "mvTopCoding",
                                     "microaggregation", "mafast", "addNoise", "pram", "localSuppression"}
    for m in STORED:
        assert _parity.FUNCTIONS[m.r] == m.python and _parity.is_method(m.r)
        assert m.r not in _parity.MEASURE_FUNCTIONS
        # by sdcMicro's name and by pysdc's, the method's cases (its own file, then those it declares:
        # Method.outputs) and no other
        ids = [c["id"] for stem in m.output_files
               for c in json.loads((ROOT / "outputs" / f"{stem}.json").read_text(encoding="utf-8"))["cases"]]
        for name in (m.r, m.python):
            cases = _parity.load_corpus(ROOT, [name])
            assert [c.id for c in cases] == ids
    assert not _parity.unknown_functions(["globalRecode", "global_recode", "local_suppression"])
    assert _parity.unknown_functions(["globalRecodeX"]) == ["globalRecodeX"]


def test_a_method_case_passes_natively():
    out = _parity.check_case(_case("globalRecode:edge:v:cuts-inf"), root=ROOT, divergences=[])
    assert out.status == "passed", out.message
    assert [d.field for d in out.diffs] == ["result"]


def test_a_changed_sdcmicro_result_fails():
    """The comparison can fail: sdcMicro's stored levels changed by one character."""
    case = _case("globalRecode:edge:v:cuts-inf")
    result = json.loads(json.dumps(case.result))
    result["levels"][-1] = result["levels"][-1].replace(", Inf", ",Inf").replace(",Inf", ", Inf")
    assert result != case.result
    out = _parity.check_case(dataclasses.replace(case, result=result), root=ROOT, divergences=[])
    assert out.status == "failed" and "levels" in out.message


def test_an_sdcmicro_error_passes_by_refusal_only():
    case = _case("globalRecode:edge:v:labels-length")
    assert case.expects_error
    out = _parity.check_case(case, root=ROOT, divergences=[])
    assert out.status == "passed" and out.message.startswith("refused like sdcMicro")
    # an implementation that does not refuse fails the case
    lax = types.SimpleNamespace(global_recode=lambda data, column, breaks, **kw: global_recode(data, column, breaks))
    out = _parity.check_case(case, lax, ROOT, [], "native")
    assert out.status == "failed"


def test_a_method_that_modifies_its_input_fails():
    def careless(data, column, breaks, **kw):
        out = global_recode(data, column, breaks, **kw)
        data.loc[data.index[0], column] = -1.0
        return out

    case = _case("globalRecode:edge:v:cuts-inf")
    out = _parity.check_case(case, types.SimpleNamespace(global_recode=careless), ROOT, [], "native")
    assert out.status == "failed" and "input data was modified" in out.message


def test_known_divergence_is_an_xfail_and_in_the_report():
    (div,) = [d for d in DIVERGENCES if d["case"] == "localSuppression:keys300:strata-combs"]
    cases = [_case("localSuppression:keys300:strata-combs"), _case("globalRecode:edge:v:cuts-inf")]
    outcomes = [_parity.check_case(c, root=ROOT, divergences=DIVERGENCES) for c in cases]
    assert [o.status for o in outcomes] == ["xfail", "passed"]
    rep = _parity.report_dict(outcomes, _parity.corpus_header(ROOT), "native", DIVERGENCES)
    s = rep["summary"]["localSuppression"]
    assert (s["kind"], s["python"], s["xfail"], s["worst_abs_diff"]) == ("method", "local_suppression", 1, None)
    md = _parity.markdown(rep)
    assert "## Protection methods" in md
    assert "| `localSuppression` | `protect.local_suppression` | 1 | 0 | 1 | 0 | 0 |" in md
    assert "| `globalRecode` | `protect.global_recode` | 1 | 1 | 0 | 0 | 0 |" in md
    assert div["reason"] in md


def test_cli_runs_one_method(tmp_path, capsys):
    code = main(["parity", "--function", "group_and_rename", "--output-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "groupAndRename" in out and "dUtility" not in out
    md = (tmp_path / "README.md").read_text(encoding="utf-8")
    n = len(_parity.load_corpus(ROOT, ["groupAndRename"]))
    assert f"| `groupAndRename` | `protect.group_and_rename` | {n} | {n} | 0 | 0 |" in md
    rep = json.loads((tmp_path / "parity-native.json").read_text(encoding="utf-8"))
    assert {c["function"] for c in rep["cases"]} == {"groupAndRename"}


def test_committed_reports_cover_the_methods():
    rep = json.loads((ROOT.parent / "parity_reports" / "parity-native.json").read_text(encoding="utf-8"))
    assert {m.r for m in STORED} <= set(rep["summary"])
    md = (ROOT.parent / "parity_reports" / "README.md").read_text(encoding="utf-8")
    assert "## Protection methods" in md


# ---- live: the bridge (pysdc.r) on the same stored cases


def _live_sample():
    out = []
    for m in STORED:
        cases = [c for c in _parity.load_corpus(ROOT, [m.r]) if "real" not in c.tags]
        out += cases[:1] + [c for c in cases if c.expects_error][:1]
    return out


LIVE = _live_sample()


@pytest.mark.live
@pytest.mark.parametrize("case", LIVE, ids=[c.id for c in LIVE])
def test_bridge_runs_the_method_cases(case, bridge):
    div = _parity.divergence_for(case.id, DIVERGENCES, "live")
    if div:
        pytest.xfail(div["reason"])
    out = _parity.check_case(case, bridge, ROOT, [], "live")
    assert out.status == "passed", out.message


def test_a_text_columns_missing_value_is_the_same_through_the_bridge():
    """None in an object column (pysdc) and NaN in the bridge's str column are the same missing value: the other
    columns count as unchanged; a changed text value still does not (the live eusilc cases of globalRecode and
    topBotCoding failed on this before)."""
    import numpy as np
    import pandas as pd

    from pysdc._registry._methods import _unchanged

    before = pd.DataFrame({"v": [1.0, 2, 3], "t": pd.Series(["a", None, "b"], dtype=object)})
    after = before.assign(v=[9.0, 9, 9], t=pd.Series(["a", np.nan, "b"], dtype="str"))
    assert _unchanged(before, after, "v")
    assert not _unchanged(before, after.assign(t=pd.Series(["a", "x", "b"], dtype="str")), "v")
    assert not _unchanged(before, after.assign(t=pd.Series(["a", None, "c"], dtype=object)), "v")
