"""Parity with sdcMicro 5.8.0 on the stored reference corpus (no R needed).

One test per stored case (``r_reference/outputs/*.json``, produced by sdcMicro
itself through ``r_reference/regenerate.sh``). Counts are compared exactly,
floats with ``rtol=1e-12`` unless ``pysdc/_tolerances.py`` says otherwise (with
its reason); where sdcMicro errors, pysdc must raise InvalidParameterError.
Known divergences come from the one registry ``r_reference/divergences.json``
and are strict xfails: a divergence that disappears fails the run until the
registry is updated.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from pysdc import parity as _parity
from pysdc._tolerances import tolerance_for

ROOT = _parity.reference_dir()
CASES = _parity.load_corpus(ROOT)
DIVERGENCES = _parity.load_divergences(ROOT)


def _param(case):
    div = _parity.divergence_for(case.id, DIVERGENCES, "native")
    marks = [pytest.mark.xfail(strict=True, reason=div["reason"])] if div else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_stored_case(case):
    outcome = _parity.check_case(case, root=ROOT, divergences=[], mode="native")
    if "bridge-only" in case.tags and not case.expects_error:  # refused natively with the reason (live: compared)
        assert outcome.status == "not_run" and "bridge" in outcome.message, outcome.message
        return
    assert outcome.status == "passed", outcome.message


def test_corpus_reads_every_output_group():
    """A method's further stored outputs (Method.outputs) are read with ids of their own: microaggregation_more,
    _clust (183 cases), _measures (105), shuffle_more."""
    groups = {c.group for c in CASES}
    assert {"microaggregation_more", "microaggregation_clust", "microaggregation_measures", "shuffle_more"} <= groups
    assert sum(c.group == "microaggregation_clust" for c in CASES) >= 183
    assert sum(c.group == "microaggregation_measures" for c in CASES) >= 105
    assert all(c.id.startswith(c.group + ":") for c in CASES if c.group != c.function)


# ---- the corpus itself: present, complete, well-formed


def test_corpus_covers_every_function():
    assert {c.function for c in CASES} == set(_parity.FUNCTIONS)
    assert len(CASES) >= 500


@pytest.mark.parametrize("fun", sorted(_parity.FUNCTIONS))
def test_corpus_headers(fun):
    with open(ROOT / "outputs" / f"{fun}.json") as fh:
        header = json.load(fh)["header"]
    # recordLinkage exists from sdcMicro 5.8.1 (the development version; its references come from it)
    assert header["sdcmicro_version"] == ("5.8.1" if fun == "recordLinkage" else "5.8.0")
    assert "do not edit" in header["generated"]
    assert header["function"] == fun
    if _parity.is_method(fun):
        # a protection method family shares one script (generate_protect_recode.R: globalRecode, ...)
        assert (ROOT / header["script"]).is_file(), header["script"]
        assert header["script"] in header["generated"]
    else:
        assert header["script"] == f"generate_{fun}.R"


def test_case_ids_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_every_branch_is_covered():
    tags = {t for c in CASES for t in c.tags}
    needed = {
        "weights", "no-weights", "households-fast", "households-exact", "missing-keys", "all-keys-missing-rows",
        "single-key", "alpha-1", "alpha-0.5", "alpha-0", "factor-key", "ordered-key", "character-key",
        "integer-key", "logical-key", "na-masked", "na-original", "na-both", "degenerate", "singular", "large",
        "method-IL1", "method-IL1s", "method-eigen", "method-robeigen", "method-exact", "method-approx",
        "sdcmicro-masked", "demo", "demo-masked", "numeric-key",
    }
    assert needed <= tags, needed - tags
    # thresholds: NA, 0 and positive all occur
    thr = [_parity.decode(c.result["global_threshold"]) for c in CASES
           if c.function == "measure_risk" and c.result is not None]
    assert any(np.isnan(t) for t in thr) and any(t == 0 for t in thr) and any(t > 0 for t in thr)
    assert sum(c.expects_error for c in CASES) >= 20


def test_every_function_has_demo_cases():
    # the measures; each protection method family's test file checks its own corpus (tags it must cover)
    for fun in _parity.MEASURE_FUNCTIONS:
        demo = [c for c in CASES if c.function == fun and "demo" in c.tags]
        assert demo, fun
        assert any(not c.expects_error for c in demo), fun


def test_inputs_are_the_projects_own():
    """Every stored input is made by make_inputs.py or masked from one of them by sdcMicro (masks.json)."""
    with open(ROOT / "cases" / "masks.json") as fh:
        masks = json.load(fh)["cases"]
    stored = {p.name for p in (ROOT / "inputs").glob("*.csv.gz")}
    outputs = {m["output"] for m in masks}
    assert outputs <= stored
    for m in masks:
        assert m["source"] in stored and m["source"] not in outputs, m
        assert m["method"] in {"addNoise", "microaggregation", "rankSwap", "pram", "localSuppression",
                               "topBotCoding"}, m
    used = {f for c in CASES for k in ("x", "xm", "data") if (f := c.inputs.get(k))}
    # references of other R packages (laeken::gini, stats::lm/glm) kept beside sdcMicro's use stored inputs too
    for path in (ROOT / "outputs").glob("*.json"):
        with open(path) as fh:
            doc = json.load(fh)
        # a reference without stored inputs has no case list (rnormal.json: R's qnorm/rnorm/sample values
        # computed from numbers written in generate_rnormal.R); it must then name no input file either
        if "cases" not in doc:
            assert ".csv.gz" not in json.dumps(doc), path.name
        used |= {f for c in doc.get("cases", ()) for f in (c.get("inputs") or {}).values()
                 if isinstance(f, str) and f.endswith(".csv.gz")}
    assert used <= stored, used - stored
    assert stored <= used | {m["source"] for m in masks}, stored - used  # nothing stored unused


def test_demo_inputs_are_current():
    """The corpus's copy of the demo data is pysdc.load_demo() (else: r_reference/regenerate.sh)."""
    import pandas as pd

    import pysdc
    from pysdc.io import read_table

    for name, masked in (("demo.csv.gz", False), ("demo_masked.csv.gz", True)):
        pd.testing.assert_frame_equal(read_table(ROOT / "inputs" / name), pysdc.load_demo(masked=masked))


def test_hand8_frequencies_by_hand():
    """hand8 (8 records, 4 double keys, missing values as wildcards) worked out by hand.

    Complete records 0-3 are distinct: 0 matches the missing-value record 7 (1, NA, NA, 10), 2 matches
    6 (2, 3, NA, NA), 1 and 3 match none. Record 4 (NA, 4, 2, 20) and 5 (1, NA, 2, 20) match each other
    only; 6 matches complete record 2, 7 matches complete record 0. A complete record gets alpha per
    matching incomplete one; an incomplete record gets the full count of matching complete records and
    alpha per matching incomplete one.
    """
    import pysdc

    w = np.array([18.5, 40.0, 9.25, 21.0, 35.5, 12.0, 27.75, 15.0])
    by_id = {c.id: c for c in CASES}
    for alpha in (1, 0.5, 0):
        fk = np.array([1 + alpha, 1, 1 + alpha, 1, 1 + alpha, 1 + alpha, 2, 2])
        Fk = np.array([w[0] + alpha * w[7], w[1], w[2] + alpha * w[6], w[3], w[4] + alpha * w[5],
                       w[5] + alpha * w[4], w[6] + w[2], w[7] + w[0]])
        ref = by_id[f"freqCalc:hand8:h1+h2+h3+h4:w:a{alpha}"].result
        np.testing.assert_allclose(_parity.decode(ref["fk"]), fk, rtol=0, atol=0)
        np.testing.assert_allclose(_parity.decode(ref["Fk"]), Fk, rtol=1e-15, atol=0)
        data = _parity.load_input(ROOT, "hand8.csv.gz")
        r = pysdc.freq_calc(data, ["h1", "h2", "h3", "h4"], w="w", alpha=alpha)
        np.testing.assert_allclose(np.asarray(r.fk, dtype=float), fk, rtol=0, atol=0)
        np.testing.assert_allclose(np.asarray(r.Fk, dtype=float), Fk, rtol=1e-15, atol=0)


def test_divergences_registry_is_well_formed():
    # every divergence names stored cases: those the registries run (the measures' and the methods', rankSwap's
    # among them: r_reference/outputs/rankSwap.json, its divergence rankSwap:* for unseeded runs only), and those
    # a method's own test runs
    ids = [c.id for c in CASES] + [c["id"] for f in sorted((ROOT / "cases").glob("*.json"))
                                   for c in json.loads(f.read_text(encoding="utf-8")).get("cases", []) if "id" in c]
    for d in DIVERGENCES:
        assert d["reason"].strip()
        if d.get("applies_to") == "fuzz":  # the differential tester's (checked in tests/parity/test_parity_fuzz.py)
            assert d["case"].startswith("fuzz:")
            continue
        assert d.get("applies_to", "native") in ("native", "live", "both", "unseeded")
        assert any(_parity.divergence_for(i, [d], d.get("applies_to", "native")) for i in ids), d["case"]


# ---- the comparison machinery itself must be able to fail


def _case(fun, result, **kw):
    return _parity.Case(fun, "synthetic", {}, {}, (), result, None)


def test_compare_detects_a_last_digit_difference_beyond_rtol():
    case = _case("IL_correl", {"value": 0.1})
    (d,) = _parity.compare(case, {"value": 0.1 * (1 + 1e-11)})
    assert not d.ok
    (d,) = _parity.compare(case, {"value": 0.1 * (1 + 1e-13)})
    assert d.ok


def test_compare_na_nan_inf():
    case = _case("IL_correl", {"value": "NA"})
    assert _parity.compare(case, {"value": float("nan")})[0].ok
    assert not _parity.compare(case, {"value": 1.0})[0].ok
    case = _case("IL_correl", {"value": "-Inf"})
    assert _parity.compare(case, {"value": -np.inf})[0].ok
    assert not _parity.compare(case, {"value": np.inf})[0].ok


def test_compare_at_zero_uses_the_absolute_tolerance():
    tol = tolerance_for("il_correl", "value")
    assert tol.atol > 0
    case = _case("IL_correl", {"value": 0})
    (d,) = _parity.compare(case, {"value": tol.atol / 2})
    assert d.ok and d.max_rel == 0 and d.max_abs == tol.atol / 2
    (d,) = _parity.compare(case, {"value": tol.atol * 10})
    assert not d.ok and d.max_rel == np.inf


def test_compare_counts_are_exact():
    assert tolerance_for("freq_calc", "n1").rtol == 0
    case = _case("freqCalc", {"n1": 3, "n2": 4, "fk": [1, 2], "Fk": [1.5, 2.5]})
    diffs = _parity.compare(case, {"n1": 3, "n2": 5, "fk": np.array([1.0, 2.0]), "Fk": np.array([1.5, 2.5])})
    assert [d.field for d in diffs if not d.ok] == ["n2"]


def test_compare_sampled_rows_and_sums():
    case = _case("freqCalc", {"n1": 0, "n2": 0, "n_rows": 4, "rows": [0, 3], "fk": [3, 4], "Fk": [3, 4],
                              "row_sums": {"fk": 14, "Fk": 14}})
    ok = {"n1": 0, "n2": 0, "fk": np.array([3.0, 3, 4, 4]), "Fk": np.array([3.0, 3, 4, 4])}
    assert all(d.ok for d in _parity.compare(case, ok))
    bad = dict(ok, fk=np.array([3.0, 3, 5, 4]))  # an unsampled row differs: the sum catches it
    assert [d.field for d in _parity.compare(case, bad) if not d.ok] == ["sum(fk)"]


def test_error_case_requires_invalid_parameter_error():
    class Impl:
        @staticmethod
        def il_correl(x, xm):
            raise RuntimeError("boom")

    case = _parity.Case("IL_correl", "synthetic", {"x": "num5.csv.gz", "xm": "num5_m.csv.gz"}, {}, (), None, "err")
    out = _parity.check_case(case, Impl, ROOT, [], "native")
    assert out.status == "failed"
