"""pram (issue 28, family 4): pysdc.protect.pram against sdcMicro 5.8.0 on R's random stream.

Stored parity: every case of r_reference/outputs/pram.json (generate_protect_perturbation.R from
make_cases_pram.py; set.seed(seed) before sdcMicro's call) runs natively from RRandom(seed): the new
categories of every record, the transition matrix to the last bit (hexadecimal doubles), pd, alpha,
the summary and the transitions must be sdcMicro's, and the stream must be left where R leaves it.
Cases include strata (with a missing value, integer strata, two variables), an unused category, a
one-category factor, a given matrix, and a 260-category factor (R's sample then uses Walker's alias
method). Live parity (marker ``live``): pysdc.r.pram on the same cases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import method_by_r_name
from pysdc.core.pram import invariant_matrix
from pysdc.core.rrandom import RRandom
from pysdc.protect import PramResult, pram

from _methods import check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"


CASES = stored_cases(ROOT, ["pram"], with_rname=False)
ENTRY = method_by_r_name("pram")


def _check(fn, case):
    check_stored_case(ENTRY, fn, case, ROOT, record=False)


@pytest.mark.parametrize("case", CASES)
def test_stored_parity(case):
    _check(pram, case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.values[0]["tags"]}
    assert {"strata", "na-stratum", "unused-level", "one-level", "matrix", "walker", "real", "pd", "alpha",
            "error", "seeded"} <= tags


# =============================================================================
# what the corpus pins, written out


def test_matrix_is_invariant_and_rows_sum_to_one():
    codes = np.array([0, 0, 1, 2, 2, 2, 1, 0, 0, 3])
    rs = invariant_matrix(codes, 4, 0.7, 1.0, RRandom(3))
    p = np.bincount(codes, minlength=4) / codes.size
    np.testing.assert_allclose(rs.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(p @ rs, p, rtol=1e-14)  # invariant: the expected frequencies are kept
    assert np.all(np.diag(invariant_matrix(codes, 4, 0.7, 0.0, RRandom(3))) == 1.0)  # alpha 0: identity


def test_identity_matrix_changes_nothing_and_draws_only_samples():
    df = pd.DataFrame({"v": pd.Categorical(list("abcabcaab"))})
    eye = pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
    r = pram(df, ["v"], pd=eye, random_state=1)
    assert r.data["v_pram"].tolist() == df["v"].tolist()
    assert r.summary["nrChanges"].tolist() == [0] and np.isnan(r.params["v"]["alpha"])


def test_result_and_input():
    df = pd.DataFrame({"v": pd.Categorical(list("abcabcaabb")), "x": range(10)})
    before = df.copy()
    r = pram(df, ["v"], random_state=1)
    assert isinstance(r, PramResult) and list(r.data.columns) == ["v", "x", "v_pram"]
    assert list(r.data["v_pram"].cat.categories) == ["a", "b", "c"]
    assert list(r.params["v"]["Rs"].index) == ["a", "b", "c"]
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize(("kw", "match"), [
    ({"variables": ["x"]}, "categorical"),
    ({"variables": ["v"], "pd": 1.5}, "pd"),
    ({"variables": ["v"], "alpha": -0.1}, "alpha"),
    ({"variables": ["v"], "pd": [0.5, 0.6]}, "length"),
    ({"variables": ["v"], "pd": np.eye(2)}, "3 x 3"),
    ({"variables": ["v"], "pd": np.full((3, 3), 0.5)}, "sum to 1"),
    ({"variables": ["v"], "strata_variables": ["v"]}, "strata_variables"),
    ({"variables": ["v"], "random_state": "x"}, "random_state"),
])
def test_invalid(kw, match):
    df = pd.DataFrame({"v": pd.Categorical(list("abcabcaabb")), "x": range(10)})
    with pytest.raises(InvalidParameterError, match=match):
        pram(df, **kw)


# =============================================================================
# live: the bridge on the same cases


@pytest.mark.live
@pytest.mark.parametrize("case", [c for c in CASES if "pram40" in c.values[0]["id"]][:8])
def test_live_bridge_parity(case):
    from pysdc.r import pram as r_pram

    _check(r_pram, case)
