"""shuffle's other methods (issue 28, family 4): mvn, ds2 and ds_cov native and exact with sdcMicro 5.8.0; mlm
and covmethod="mcd" as sdcMicro stops or through the bridge only (regmethod="MM": test_shuffle_mm.py).

Stored parity: the cases of r_reference/outputs/shuffle_more.json (generate_protect_shuffle2.R from
make_cases_shuffle_more.py; set.seed(seed) before sdcMicro's call) are compared with sdcMicro by ``pysdc parity``
and tests/parity/test_parity_stored.py (group shuffle_more: natively from RRandom(seed), the shuffled values
exactly, the perturbed and EGADP values within pysdc/_tolerances.py's ``shuffle`` tolerance, the stream left where
R leaves it; where sdcMicro stopped (mlm always; ds2 with mcd; mcd on factor dummies) pysdc raises). Here, on the
same cases from the same loader: pysdc warns that it imputed where R did, and only there; a case tagged
``bridge-only`` (covmethod="mcd") is refused natively with an error that points to the bridge;
through the bridge (marker ``live``) every case is compared with sdcMicro's stored result.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import load_case_data
from pysdc.core.rrandom import RRandom
from pysdc.core.shuffle import _solve
from pysdc.protect import shuffle

from _methods import case_params, group_cases, live_bridge_parity, r_warnings, run_recording_warnings

ROOT = Path(__file__).resolve().parents[2] / "r_reference"
CASES = group_cases("shuffle_more")
BRIDGE_ONLY = [c for c in CASES if "bridge-only" in c.tags and not c.expects_error]
NATIVE = [c for c in CASES if "bridge-only" not in c.tags and not c.expects_error]


@pytest.mark.parametrize("case", case_params(NATIVE))
def test_warns_of_imputing_where_r_did(case):
    _, caught = run_recording_warnings(case)
    assert any("imputed" in str(w.message) for w in caught) == any("imputed" in w for w in r_warnings(case))


@pytest.mark.parametrize("case", case_params(BRIDGE_ONLY))
def test_bridge_only_cases_are_refused_natively_pointing_to_the_bridge(case):
    with pytest.raises(InvalidParameterError, match="bridge"):
        run_recording_warnings(case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.tags}
    assert {"mvn", "mlm", "ds2", "ds_cov", "mcd", "MM", "seeded", "factor", "ordered", "ties", "three-responses",
            "pearson", "weights", "gadp", "na", "real", "error", "bridge-only"} <= tags
    assert {c.args.get("method", "ds") for c in NATIVE if "MM" not in c.tags} == {"mvn", "ds2", "ds_cov"}


def test_methods_differ_and_draw_differently():
    """On the same data and seed the three native variants give different shuffles; mvn draws n x (r + p)
    normals (the data) before EGADP's n x r, ds2 only EGADP's n x r and ds_cov n x r: the stream ends elsewhere
    after mvn than after the two others."""
    data = load_case_data({"inputs": {"data": "shuffle60.csv.gz"}}, ROOT)
    out, after = {}, {}
    for m in ("mvn", "ds2", "ds_cov"):
        rr = RRandom(3)
        out[m] = shuffle(data, "a + b ~ c + k", method=m, gadp=False, random_state=rr).shuffled
        after[m] = rr.unif_rand()
        for v in ("a", "b"):
            assert sorted(out[m][v]) == sorted(data[v])
    assert not out["mvn"].equals(out["ds2"]) and not out["ds2"].equals(out["ds_cov"])
    assert after["ds2"] == after["ds_cov"] != after["mvn"]


def test_solve_is_rs_inverse_and_refuses_singular():
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    np.testing.assert_allclose(_solve(a) @ a, np.eye(3), atol=1e-15)
    with pytest.raises(InvalidParameterError, match="singular"):
        _solve(np.array([[1.0, 2.0], [2.0, 4.0]]))


@pytest.mark.parametrize(("kw", "match"), [
    ({"method": "mlm"}, "data.frame"),
    ({"method": "ds2", "covmethod": "mcd"}, "'arg' should be one of"),
    ({"covmethod": "mcd"}, "bridge"),
])
def test_refusals_say_why(kw, match):
    data = load_case_data({"inputs": {"data": "shuffle60.csv.gz"}}, ROOT)
    with pytest.raises(InvalidParameterError, match=match):
        shuffle(data, "a + b ~ c", random_state=1, **kw)


def test_generator_and_case_list_are_stored():
    doc = json.loads((ROOT / "outputs" / "shuffle_more.json").read_text(encoding="utf-8"))
    assert doc["header"]["script"] == "generate_protect_shuffle2.R"
    assert (ROOT / "generate_protect_shuffle2.R").is_file() and (ROOT / "make_cases_shuffle_more.py").is_file()


# =============================================================================
# live: the bridge on the same cases (those pysdc refuses natively included)


test_live_bridge_parity = live_bridge_parity(CASES, expect_warned=False)
