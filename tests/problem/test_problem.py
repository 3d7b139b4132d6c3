"""pysdc.SdcProblem: validation up front, numbers equal to the individual functions and to sdcMicro's, and a
problem in place of a measure's data (pysdc._foreign)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError, PysdcWarning, SdcProblem
from pysdc._tolerances import CLOSED_FORM

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "r_reference"
KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo_pair()


@pytest.fixture(scope="module")
def problem(demo):
    return SdcProblem(demo[0], KEYS, num_vars=NUMS, w="weight", hid="hid", sensitive=["health_status"])


@pytest.fixture(scope="module")
def comparison(problem, demo):
    return problem.compare(demo[1], random_state=3)


def _close(a, b, tol=CLOSED_FORM):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol.rtol, atol=tol.atol)


# ----------------------------------------------------------------------------------------------- validation


def _frame():
    return pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "y"]), "b": pd.Categorical(["p", "p", "q", "q"]),
                         "n": [1.0, 2.0, 3.0, 4.0], "w": [1.0, 2.0, 2.0, 1.0], "h": [1, 1, 2, 2],
                         "c": ["u", "v", "u", "v"], "s": pd.Categorical(["s", "t", "s", "t"])})


@pytest.mark.parametrize("kwargs, match", [
    ({"key_vars": ["a", "zz"]}, r"key_vars: please specify valid column-names! \['zz'\]"),
    ({"key_vars": ["a"], "num_vars": ["zz"]}, r"num_vars: please specify valid column-names!"),
    ({"key_vars": ["a"], "w": "zz"}, r"w: please specify valid column-names!"),
    ({"key_vars": ["a"], "sensitive": ["zz"]}, r"sensitive: please specify valid column-names!"),
    ({"key_vars": [2, 4]}, r"pysdc takes column names, not positions.*would be \['b', 'w'\]"),
    ({"key_vars": []}, r"key_vars must name at least one column"),
    ({"key_vars": ["a", "a"]}, r"more than once"),
    ({"key_vars": ["a", "n"], "num_vars": ["n"]}, r"\['n'\] cannot be both in key_vars and in num_vars"),
    ({"key_vars": ["a", "w"], "w": "w"}, r"cannot be both in key_vars and in w"),
    ({"key_vars": ["a", "s"], "sensitive": ["s"]}, r"cannot be both in key_vars and in sensitive"),
    ({"key_vars": ["a", "h"], "strata": "h"}, r"stratification variable cant be a categorical key variable!"),
    ({"key_vars": ["a"], "num_vars": ["c"]}, r"num_vars must be numeric variables; \{'c': 'character'\}"),
    ({"key_vars": ["a"], "num_vars": ["b"]}, r"num_vars must be numeric variables; \{'b': 'factor'\}"),
    ({"key_vars": ["a"], "w": "c"}, r"weight variable 'c' must be numeric"),
    ({"key_vars": ["a"], "w": "s"}, r"weight variable 's' must be numeric"),
    ({"key_vars": ["a"], "w": ["w", "n"]}, r"w must name exactly one column"),
    ({"key_vars": ["a"], "hid": pd.Series([1, 2])}, r"not the values themselves"),
])
def test_specification_is_refused_up_front(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        SdcProblem(_frame(), **kwargs)


def test_missing_weights_households_and_non_frames_are_refused():
    d = _frame()
    d.loc[1, "w"] = np.nan
    with pytest.raises(InvalidParameterError, match="missing or infinite"):
        SdcProblem(d, ["a"], w="w")
    d = _frame().astype({"h": "Float64"})
    d.loc[2, "h"] = pd.NA
    # a missing household id: the record is a household of its own, as measure_risk and the engines measure it
    # (with measure_risk's warning), so pysdc risk gives the same numbers on pandas and DuckDB (issue 25) ...
    with pytest.warns(pysdc.PysdcWarning, match="household id column 'h' has 1 missing"):
        SdcProblem(d, ["a"], hid="h").risk(suda=False)
    # ... while sdcMicro's createSdcObj would give a household risk of the wrong length: refused before R
    from pysdc.problem import _validate

    with pytest.raises(InvalidParameterError, match="household id 'h' has 1 missing"):
        _validate(d, ["a"], (), None, "h", None, ())
    with pytest.raises(InvalidParameterError, match="pandas DataFrame"):
        SdcProblem(np.zeros((3, 2)), ["V1"])


def test_non_positive_weights_warn_as_sdcmicro_accepts_them():
    d = _frame()
    d.loc[0, "w"] = 0.0
    with pytest.warns(PysdcWarning, match="1 value\\(s\\) <= 0"):
        SdcProblem(d, ["a"], w="w")


def test_specification_round_trip(problem):
    assert problem.specification == {"key_vars": KEYS, "num_vars": NUMS, "w": "weight", "hid": "hid", "strata": None,
                                     "sensitive": ["health_status"]}
    again = problem.with_data(problem.data)
    assert again.specification == problem.specification
    assert "key_vars=['region'" in repr(problem) and "<table>" in problem._repr_html_()


# ---------------------------------------------------------------- numbers equal to the individual functions


def test_risk_equals_the_individual_functions(problem, demo):
    x = demo[0]
    r = problem.risk()
    mr = pysdc.measure_risk(x, KEYS, w="weight", hid="hid")
    for f in ("global_risk_er", "global_risk", "global_risk_pct", "hier_risk_er", "hier_risk", "hier_risk_pct"):
        assert getattr(r.measure_risk, f) == getattr(mr, f), f
    pd.testing.assert_frame_equal(r.measure_risk.individual, mr.individual)
    for k in (2, 3, 5):
        assert r.k_anonymity.loc[k, "unweighted"] == pysdc.k_anon_violations(x, KEYS, k=k)
        assert r.k_anonymity.loc[k, "weighted"] == pysdc.k_anon_violations(x, KEYS, k=k, w="weight", weighted=True)
    s = pysdc.suda2(x, KEYS)
    np.testing.assert_array_equal(r.suda2.score, s.score)
    np.testing.assert_array_equal(r.suda2.dis_score, s.dis_score)
    pd.testing.assert_frame_equal(r.ldiversity.table, pysdc.ldiversity(x, KEYS, ["health_status"]).table)
    # the long view holds the same numbers
    t = r.to_frame()
    assert t.loc[("measure_risk", "expected re-identifications"), "value"] == mr.global_risk_er
    assert t.loc[("k_anon_violations", "records with fk < 3"), "value"] == pysdc.k_anon_violations(x, KEYS, k=3)
    assert t.loc[("measure_risk", "expected re-identifications"), "origin"] == "sdcMicro: measure_risk"


def test_utility_equals_the_individual_functions(comparison, demo):
    x, xm = demo
    u = comparison.utility
    for m in ("IL1", "IL1s", "eigen"):
        assert float(u[f"d_utility.{m}"]) == float(pysdc.d_utility(x[NUMS], xm[NUMS], method=m))
    assert float(u["d_utility.robeigen"]) == float(pysdc.d_utility(x[NUMS], xm[NUMS], method="robeigen",
                                                                    random_state=3))
    assert u["il_correl"].value == pysdc.il_correl(x[NUMS], xm[NUMS]).value
    ilv = pysdc.il_variables(x[KEYS + NUMS], xm[KEYS + NUMS])  # no integer columns among them: no scales needed
    assert u["il_variables"].value == ilv.value
    pd.testing.assert_series_equal(u["il_variables"].per_variable, ilv.per_variable)
    assert u["il_continuous"].gilcv == pysdc.il_continuous(x[NUMS], xm[NUMS]).gilcv
    assert u["il_categorical"].ctbil_normalized == pysdc.il_categorical(x[KEYS], xm[KEYS]).ctbil_normalized
    pd.testing.assert_series_equal(u["hellinger"].per_variable, pysdc.hellinger(x[NUMS + KEYS], xm[NUMS + KEYS]).per_variable)
    pd.testing.assert_series_equal(u["il_entropy"].per_variable, pysdc.il_entropy(x[KEYS], xm[KEYS]).per_variable)
    assert u["gsil"].value == pysdc.gsil(x[NUMS + KEYS], xm[NUMS + KEYS]).value
    assert not u.skipped
    pv = u.per_variable()
    assert list(pv.index) == KEYS + NUMS
    assert pv.loc["region", "direct"] == pysdc.il_categorical(x[KEYS], xm[KEYS]).direct["region"]
    assert np.isnan(pv.loc["income", "direct"])  # il_categorical does not cover numeric variables
    origins = u.to_frame()["origin"]
    assert origins[("d_utility", "IL1")] == "sdcMicro: dUtility" and origins[("gsil", "score (medium)")] == "literature"


def test_compare_frame_is_side_by_side(comparison, problem, demo):
    f = comparison.frame
    assert list(f.columns) == ["original", "masked", "change", "origin"]
    risk = f.loc["risk"]
    after = problem.risk(data=demo[1]).measure_risk
    row = risk.loc[("measure_risk", "expected re-identifications")]
    assert row["original"] == problem.risk().measure_risk.global_risk_er and row["masked"] == after.global_risk_er
    assert row["change"] == row["masked"] - row["original"]
    # by hand: local suppression removed every sample unique of the demo's keys but two
    assert risk.loc[("k_anon_violations", "records with fk < 2"), "masked"] == int(
        (pysdc.freq_calc(demo[1], KEYS).fk < 2).sum())
    util = f.loc["utility"]
    assert util["original"].isna().all() and util["masked"].notna().all()
    assert "ProblemComparison" in str(comparison) and "<table" in comparison._repr_html_()


def test_specification_without_optional_roles(demo):
    x, xm = demo
    p = SdcProblem(x, ["region", "sex"])
    r = p.risk(suda=False)
    assert r.measure_risk.hier_risk_er is None and r.ldiversity is None and r.suda2 is None
    assert "weighted" not in r.k_anonymity.columns
    assert set(r.skipped) == {"suda2", "ldiversity"}
    u = p.utility(xm)
    assert "d_utility.IL1" not in u.results and "numeric" in u.skipped["d_utility.IL1"]
    assert u["il_variables"].value == pysdc.il_variables(x[["region", "sex"]], xm[["region", "sex"]]).value


def test_integer_variables_get_their_scale_for_il_variables(demo):
    x, xm = demo
    p = SdcProblem(x, ["region"], num_vars=["hhsize"])
    u = p.utility(xm)
    ref = pysdc.il_variables(x[["region", "hhsize"]], xm[["region", "hhsize"]], scales={"hhsize": "numeric"})
    assert u["il_variables"].value == ref.value
    assert u.variables["scales"] == {"hhsize": "numeric"}


def test_masked_file_is_checked(problem, demo):
    x, xm = demo
    with pytest.raises(InvalidParameterError, match="3930 records but masked has 10"):
        problem.utility(xm.head(10))
    with pytest.raises(InvalidParameterError, match=r"lacks the variable\(s\) \['income'\]"):
        problem.compare(xm.drop(columns="income"))
    with pytest.raises(InvalidParameterError, match="pandas DataFrame"):
        problem.utility("masked.csv")
    shifted = xm.set_axis(xm.index + 1)
    with pytest.warns(pysdc.AlignmentWarning, match="paired by position"):
        problem.utility(shifted)


# ------------------------------------------------------------------- through sdcMicro's stored references


def _stored(function: str, case_id: str) -> dict:
    cases = json.loads((REF / "outputs" / f"{function}.json").read_text(encoding="utf-8"))["cases"]
    return next(c for c in cases if c["id"] == case_id)


@pytest.mark.skipif(not (REF / "outputs").is_dir(), reason="r_reference/ is not in this checkout")
def test_problem_numbers_equal_sdcmicros_stored_references(problem, comparison):
    from pysdc._tolerances import tolerance_for

    # the stored demo inputs are the package's demo tables
    c = _stored("measure_risk", "measure_risk:demo:region+urbrur+sex+age_group+education:w:a1:mgr0.01:fast")
    assert c["inputs"] == {"data": "demo.csv.gz"} and c["args"]["w"] == "weight" and c["args"]["hid"] == "hid"
    mr = problem.risk().measure_risk
    for py, r in (("global_risk_er", "global_risk_ER"), ("global_risk_pct", "global_risk_pct"),
                  ("hier_risk_er", "hier_risk_ER"), ("hier_risk_pct", "hier_risk_pct")):
        tol = tolerance_for("measure_risk", r)
        _close(getattr(mr, py), c["result"][r], tol)
    assert c["result"]["global_threshold"] == "NA" and np.isnan(mr.global_threshold)
    for m in ("IL1", "IL1s", "eigen"):
        c = _stored("dUtility", f"dUtility:demo:demo_masked:{m}:income-expenditure-savings")
        assert c["inputs"]["x"] == "demo.csv.gz" and c["inputs"]["xm"] == "demo_masked.csv.gz"
        _close(float(comparison.utility[f"d_utility.{m}"]), c["result"]["value"], tolerance_for("dUtility", "value"))


# --------------------------------------------------------------------- live: sdcMicro's createSdcObj in R


@pytest.mark.live
@pytest.mark.rscript("jsonlite")  # serialize.R loads jsonlite
def test_problem_equals_createsdcobj_live(problem, tmp_path):
    demo = Path(pysdc.datasets.demo_path(False))
    script = f"""
source({str(REF / 'serialize.R')!r})
suppressMessages(library(sdcMicro))
d <- ref_read_table({str(demo)!r})
sdc <- createSdcObj(d, keyVars = c({', '.join(repr(k) for k in KEYS)}), numVars = c("income", "expenditure", "savings"),
                    weightVar = "weight", hhId = "hid", sensibleVar = "health_status")
g <- sdc@risk$global
fk <- sdc@risk$individual[, "fk"]
cat(sprintf("%.17g %.17g %.17g %d %d", g$risk_ER, g$hier_risk_ER, g$risk_pct, sum(fk < 2), sum(fk < 3)))
"""
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    er, hier, pct, lt2, lt3 = out.stdout.split()[-5:]
    r = problem.risk()
    _close(r.measure_risk.global_risk_er, float(er))
    _close(r.measure_risk.hier_risk_er, float(hier))
    _close(r.measure_risk.global_risk_pct, float(pct))
    assert (int(r.k_anonymity.loc[2, "unweighted"]), int(r.k_anonymity.loc[3, "unweighted"])) == (int(lt2), int(lt3))


# --------------------------------------------------------------------- a problem in place of the data


def test_native_functions_take_a_problem(problem, demo):
    x, xm = demo
    a = pysdc.measure_risk(problem)
    b = pysdc.measure_risk(x, KEYS, w="weight", hid="hid")
    assert a.global_risk_er == b.global_risk_er and a.hier_risk_er == b.hier_risk_er
    # explicit arguments win over the specification
    c = pysdc.measure_risk(problem, ["region", "sex"])
    assert c.global_risk_er == pysdc.measure_risk(x, ["region", "sex"], w="weight", hid="hid").global_risk_er
    np.testing.assert_array_equal(pysdc.freq_calc(problem).Fk, pysdc.freq_calc(x, KEYS, w="weight").Fk)
    assert pysdc.k_anon_violations(problem, k=3) == pysdc.k_anon_violations(x, KEYS, k=3)
    pd.testing.assert_frame_equal(pysdc.ldiversity(problem).table, pysdc.ldiversity(x, KEYS, ["health_status"]).table)
    np.testing.assert_array_equal(pysdc.suda2(problem).score, pysdc.suda2(x, KEYS).score)
    # loss measures: the declared variables (numeric ones where the measure is numeric)
    assert float(pysdc.d_utility(problem, xm, method="IL1")) == float(pysdc.d_utility(x[NUMS], xm[NUMS], method="IL1"))
    assert pysdc.il_variables(problem, xm).value == pysdc.il_variables(x[KEYS + NUMS], xm[KEYS + NUMS]).value
    masked_problem = problem.with_data(xm)
    assert pysdc.il_correl(problem, masked_problem).value == pysdc.il_correl(x[NUMS], xm[NUMS]).value


def test_problem_without_the_needed_role_says_so(demo):
    p = SdcProblem(demo[0], KEYS)
    with pytest.raises(InvalidParameterError, match="ldiv_index is missing and the SdcProblem declares no sensitive"):
        pysdc.ldiversity(p)
    with pytest.raises(InvalidParameterError, match="declares no numeric variables"):
        pysdc.d_utility(p, demo[1])
    with pytest.raises(TypeError):  # a missing argument without a problem stays Python's own error
        pysdc.measure_risk(demo[0])


def test_an_sdcobj_is_recognised_by_duck_typing(problem):
    asked = []

    class SdcObj:  # stands for pysdc.r.SdcObj without R: recognised by name and to_problem()
        def to_problem(self, data="original"):
            asked.append(data)
            return problem

    assert pysdc.measure_risk(SdcObj()).global_risk_er == problem.risk().measure_risk.global_risk_er
    assert asked == ["manipulated"]  # an sdcMicroObj's risk is that of its current (manipulated) data


@pytest.mark.live
def test_from_problem_builds_the_same_sdcmicro_object(problem):
    import pysdc.r

    obj = pysdc.r.SdcObj.from_problem(problem)
    back = obj.to_problem()
    assert back.specification == problem.specification
    _close(pysdc.measure_risk(obj).global_risk_er, problem.risk().measure_risk.global_risk_er)



@pytest.mark.live
def test_example_workflow_native_equals_sdcobj_live(demo):
    """The documented workflow both ways: masking by sdcMicro (pysdc.r.SdcObj), measured natively
    (examples/sdc_problem_workflow.native_workflow) -- the numbers equal sdcMicro's own slots."""
    import pysdc.r
    from pysdc._tolerances import tolerance_for

    mod = _example()
    spec = dict(mod.SPECIFICATION)
    sdc = pysdc.r.SdcObj.create(demo[0], spec.pop("key_vars"), **spec)
    masked = sdc.local_suppression(k=3).microaggregation(method="mdav", aggr=3, variables=["income", "savings"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mod.native_workflow(sdc.orig_data, masked.manip_data)
    for when, obj in (("before", sdc), ("after", masked)):
        g = obj.risk["global"]
        _close(res[when]["global_risk_er"], g["risk_ER"], tolerance_for("measure_risk", "global_risk_ER"))
        _close(res[when]["hier_risk_er"], g["hier_risk_ER"], tolerance_for("measure_risk", "hier_risk_ER"))
        fk = np.asarray(obj.risk["individual"]["fk"], dtype=float)
        assert (res[when]["fk_lt_2"], res[when]["fk_lt_3"]) == (int(np.sum(fk < 2)), int(np.sum(fk < 3)))
    u = masked.utility
    _close(res["utility"]["IL1s"], u["il1s"], tolerance_for("dUtility", "value"))
    _close(res["utility"]["eigen"], u["eigen"], tolerance_for("dUtility", "value"))


def _example():
    spec = importlib.util.spec_from_file_location("sdc_problem_workflow", ROOT / "examples" / "sdc_problem_workflow.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------------- the documented example


def test_documented_example_runs(tmp_path, demo):
    mod = _example()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mod.native_workflow(*demo, report_path=tmp_path / "r.html" if importlib.util.find_spec("matplotlib")
                                  else None)
    x, xm = demo
    assert res["before"]["global_risk_er"] == pysdc.measure_risk(x, KEYS, w="weight", hid="hid").global_risk_er
    assert res["after"]["hier_risk_er"] == pysdc.measure_risk(xm, KEYS, w="weight", hid="hid").hier_risk_er
    assert res["after"]["fk_lt_2"] == pysdc.k_anon_violations(xm, KEYS, k=2)
    assert res["utility"]["IL1s"] == float(pysdc.d_utility(x[NUMS], xm[NUMS], method="IL1s"))
    assert mod.main([]) == 0


# --------------------------------------------------------------------------------- messy frames never leak


def _messy_frame(rows: list[tuple]) -> pd.DataFrame:
    s, c, o, i, b, f = zip(*rows) if rows else ((),) * 6
    return pd.DataFrame({
        "s": pd.array(list(s), dtype="string"), "c": pd.Categorical(list(c), categories=["a", "b"]),
        "o": pd.Series(list(o), dtype=object), "i": pd.array(list(i), dtype="Int64"),
        "b": pd.array(list(b), dtype="boolean"), "f": pd.Series(list(f), dtype=float),
        "na": pd.Series([np.nan] * len(rows), dtype=float), "w": pd.Series([1.5] * len(rows), dtype=float),
        "h": pd.Series(range(len(rows)), dtype="int64"),
    })


_SPECS = [dict(key_vars=["s", "c"]), dict(key_vars=["o", "b"], num_vars=["f", "i"], w="w", hid="h"),
          dict(key_vars=["c"], num_vars=["na"], sensitive=["s"]), dict(key_vars=["na"], num_vars=["i"])]


def test_messy_frames_never_leak_a_raw_error():
    hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (the test extra)")
    st = hypothesis.strategies
    row = st.tuples(st.sampled_from(["p", "q", None]), st.sampled_from(["a", "b", None]),
                    st.sampled_from(["x", 1, None, 2.5]), st.sampled_from([1, 2, None]),
                    st.sampled_from([True, False, None]), st.sampled_from([1.0, np.inf, np.nan, 2.5, -3.0]))

    @hypothesis.settings(max_examples=25, deadline=None, derandomize=True)
    @hypothesis.given(rows=st.lists(row, min_size=0, max_size=4), rows_m=st.lists(row, min_size=4, max_size=4),
                      spec=st.sampled_from(_SPECS))
    def check(rows, rows_m, spec):
        d = _messy_frame(rows)
        dm = _messy_frame(rows_m[: len(rows)])
        from pysdc.problem import html_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for step in ("risk", "utility", "compare", "report"):
                try:
                    p = SdcProblem(d, **spec)
                    if step == "risk":
                        p.risk()
                    elif step == "utility":
                        p.utility(dm)
                    elif step == "compare":
                        p.compare(dm).frame
                    else:
                        html_report(p, dm, plots=False)
                except pysdc.PysdcError:
                    pass

    check()
