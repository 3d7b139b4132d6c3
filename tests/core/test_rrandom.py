"""pysdc.core.rrandom against R's own streams (r_reference/outputs/rrandom.json, generate_rrandom.R).

Doubles are compared bitwise (``np.array_equal`` on float64), integers exactly, and the whole
state (R's ``.Random.seed``) after set.seed and after each case's calls.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pysdc._errors import InvalidParameterError
from pysdc.core.rrandom import RRandom, as_rrandom

REF = json.loads((Path(__file__).resolve().parents[2] / "r_reference" / "outputs" / "rrandom.json").read_text())
CASES = REF["cases"]


def _call(r: RRandom, call):
    a = call["args"]
    f = call["call"]
    if f == "runif":
        return r.runif(a["n"])
    if f == "runif_ab":
        return r.runif(a["n"], a["min"], a["max"])
    if f == "sample":
        return r.sample(a["n"], a["size"], replace=a["replace"])
    raise AssertionError(f"unknown call {f}")


def _bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("state", REF["states"], ids=lambda s: f"seed{s['seed']}")
def test_set_seed_state_equals_r(state):
    r = RRandom(state["seed"])
    np.testing.assert_array_equal(r.random_seed, np.array(state["random_seed"], dtype=np.int32))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}-{len(c['calls'])}calls")
def test_stream_equals_r_bitwise(case):
    r = RRandom(case["seed"])
    for call in case["calls"]:
        got = _call(r, call)
        exp = np.array(call["value"], dtype=np.float64)
        assert got.shape == exp.shape, call["args"]
        np.testing.assert_array_equal(_bits(got), _bits(exp), err_msg=f"{call['call']} {call['args']}")
    np.testing.assert_array_equal(r.random_seed, np.array(case["random_seed_after"], dtype=np.int32))


def test_draw_one_at_a_time_equals_block():
    # the stream advances identically whether drawn singly or in blocks (block boundary crossed)
    a, b = RRandom(5), RRandom(5)
    blk = a.unif_rand(1300)
    one = np.array([b.unif_rand() for _ in range(1300)])
    np.testing.assert_array_equal(_bits(blk), _bits(one))
    np.testing.assert_array_equal(a.random_seed, b.random_seed)


def test_resume_from_random_seed_and_copy():
    case = next(c for c in CASES if len(c["calls"]) == 4)  # runif 623, 2, 624, 700
    r = RRandom(case["seed"])
    r.runif(623)
    resumed = RRandom.from_random_seed(r.random_seed)
    twin = r.copy()
    exp = np.array(case["calls"][1]["value"])
    np.testing.assert_array_equal(_bits(resumed.runif(2)), _bits(exp))
    np.testing.assert_array_equal(_bits(twin.runif(2)), _bits(exp))
    np.testing.assert_array_equal(_bits(r.runif(2)), _bits(exp))


def test_unif_index_matches_sample_with_replacement():
    # sample.int(n, k, replace = TRUE) is k draws of R_unif_index(n) + 1
    case = CASES[-1]
    r = RRandom(case["seed"])
    for call in case["calls"][:3]:
        _call(r, call)
    exp = np.array(case["calls"][3]["value"])  # sample(100, 50, replace = TRUE)
    got = np.array([r.unif_index(100) + 1 for _ in range(50)])
    np.testing.assert_array_equal(got, exp)


def test_as_rrandom():
    assert as_rrandom(None) is None
    assert as_rrandom(np.random.default_rng(1)) is None
    r = RRandom(3)
    assert as_rrandom(r) is r
    np.testing.assert_array_equal(as_rrandom(3).random_seed, RRandom(3).random_seed)
    assert as_rrandom(np.int64(3)) is not None
    assert as_rrandom(True) is None


@pytest.mark.parametrize("bad", [1.5, "1", 2**31, None, True])
def test_invalid_seed(bad):
    with pytest.raises(InvalidParameterError):
        RRandom().set_seed(bad)


def test_invalid_sample_arguments():
    r = RRandom(1)
    with pytest.raises(InvalidParameterError, match="larger than the population"):
        r.sample(3, 4)
    with pytest.raises(InvalidParameterError):
        r.sample(-1, 1)
    with pytest.raises(InvalidParameterError):
        r.sample(3, 1.5)
    with pytest.raises(InvalidParameterError):
        RRandom.from_random_seed([1, 2, 3])
