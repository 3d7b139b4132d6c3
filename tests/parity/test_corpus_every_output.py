"""Every stored comparison with R reaches the parity report a user reads, or is left out for a stated reason.

``pysdc parity`` (native and ``--live``) reads the stored outputs r_reference/outputs/<stem>.json of the output
groups of pysdc.parity._corpus.OUTPUT_GROUPS: each measure's and protection method's own file, and the further
files a protection method declares in the registry (Method.outputs: microaggregation_more, _clust, _measures,
shuffle_more), and the sections across several functions (pysdc.parity._sections: numerics, print, createSdcObj).
A new output file that no part of the command reads fails here until it is read (a Method's
``outputs``) or listed below with the reason it stays out and the test that compares it instead.
"""

from __future__ import annotations

import json

import pytest

from pysdc import parity
from pysdc._registry._methods import METHODS
from pysdc.parity._corpus import OUTPUT_GROUPS

ROOT = parity.reference_dir()
STORED = sorted(p.stem for p in (ROOT / "outputs").glob("*.json"))

#: stored outputs the parity command does not read: stem -> why, and which test compares them with R instead
NOT_IN_PARITY = {
    # primitives of other R packages (not sdcMicro functions): pysdc reproduces them to reproduce sdcMicro, and
    # their effect reaches the report through the sdcMicro cases that use them
    "covMcd": "robustbase::covMcd (not sdcMicro), the robust covariance under dRiskRMD, microaggregation rmd and "
              "mvTopCoding; its stored fits and R-stream positions: tests/core/test_mcd_rstream.py",
    "rnormal": "R's qnorm/rnorm/sample and MASS::mvrnorm on fixed numbers (R's random stream, not sdcMicro): "
               "tests/core/test_rrandom_normal.py",
    "rrandom": "R's Mersenne-Twister generator (runif, sample, .Random.seed after each call; not sdcMicro): "
               "tests/core/test_rrandom.py",
    "kmeans": "stats::kmeans (Hartigan-Wong; not sdcMicro), the clustering of microaggregation's "
              "clustermethod='kmeans', whose sdcMicro cases are in microaggregation_clust; its stored clusters, "
              "errors, warnings and R-stream positions: tests/core/test_kmeans_hw.py",
    "gini": "laeken::gini (not sdcMicro), pysdc's utility report: tests/loss/test_gini.py",
    "regression": "stats::lm/glm (not sdcMicro), pysdc's regression utility: tests/loss/test_regression.py",
    "csv_typing": "R's read.csv typing of CSV files (utils, not sdcMicro): what pysdc's CSV reader must give "
                  "before any measure runs: tests/io/test_csv_typing_vs_read_csv.py",
    "sdcmicro_exports": "sdcMicro's list of exported names (no cases, nothing to run): tests/r/test_sdcmicro_exports.py",
}


def test_every_stored_output_is_read_by_the_parity_command_or_excluded_with_a_reason():
    read = set(OUTPUT_GROUPS)
    unread = sorted(set(STORED) - read - set(NOT_IN_PARITY))
    assert not unread, f"read by no part of `pysdc parity` and not listed in NOT_IN_PARITY: {unread}"
    assert not read & set(NOT_IN_PARITY), "an output both read and excluded"
    stale = sorted(set(NOT_IN_PARITY) - set(STORED) - {"csv_typing"})  # csv_typing: being added beside (io)
    assert not stale, f"excluded outputs that no longer exist: {stale}"
    assert all(len(why) > 40 and "test" in why for why in NOT_IN_PARITY.values())


def test_the_sections_outputs_are_read():
    """numerics.json, print.json and createSdcObj.json (once compared only by their own tests) are sections of
    the command: groups of their own, of kind "section" in its summary."""
    from pysdc.parity._sections import SECTIONS

    assert set(SECTIONS) == {"numerics", "print", "createSdcObj"}
    for stem in SECTIONS:
        assert OUTPUT_GROUPS[stem] == (stem, "") and stem not in NOT_IN_PARITY
        assert parity.is_section(stem)


def test_the_methods_further_outputs_are_groups_of_the_command():
    extra = {stem for m in METHODS for stem in m.outputs}
    assert {"microaggregation_more", "microaggregation_clust", "microaggregation_measures", "shuffle_more"} <= extra
    assert extra <= set(OUTPUT_GROUPS)
    for m in METHODS:
        for stem, what in m.outputs.items():
            assert OUTPUT_GROUPS[stem] == (m.r, what) and what.strip()


@pytest.mark.parametrize("stem", sorted(OUTPUT_GROUPS))
def test_the_command_loads_every_case_of_each_group(stem):
    path = ROOT / "outputs" / f"{stem}.json"
    assert path.is_file(), stem
    doc = json.loads(path.read_text(encoding="utf-8"))
    fun = OUTPUT_GROUPS[stem][0]
    loaded = [c for c in parity.load_corpus(ROOT, [fun]) if c.group == stem]
    assert [c.id for c in loaded] == [c["id"] for c in doc["cases"]]
    assert all(c.function == fun for c in loaded)


def test_case_ids_are_unique_across_every_group():
    ids = [c.id for c in parity.load_corpus(ROOT)]
    assert len(ids) == len(set(ids))


def test_the_report_has_a_row_per_group():
    """One case of each group run natively: the summary and the Markdown report name every group."""
    cases = parity.load_corpus(ROOT)
    first = {}
    for c in cases:
        if not c.expects_error and "bridge-only" not in c.tags:
            first.setdefault(c.group, c)
    divs = parity.load_divergences(ROOT)
    outcomes = [parity.check_case(c, None, ROOT, divs, "native") for c in first.values()]
    rep = parity.report_dict(outcomes, parity.corpus_header(ROOT), "native", divs)
    assert list(rep["summary"]) == [s for s in OUTPUT_GROUPS if s in first]
    assert rep["summary"]["microaggregation_clust"]["function"] == "microaggregation"
    md = parity.markdown(rep)
    for stem, (fun, what) in OUTPUT_GROUPS.items():
        if stem != fun and stem in first:  # a group of sdcMicro errors only (microaggregation_clara) is not run here
            assert f"`{fun}` (`{stem}.json`: {what})" in md


def test_a_bridge_only_case_is_not_run_natively_and_says_why():
    case = next(c for c in parity.load_corpus(ROOT, ["shuffle_more"])
                if "bridge-only" in c.tags and not c.expects_error)
    out = parity.check_case(case, None, ROOT, [], "native")
    assert out.status == "not_run" and "bridge" in out.message
