"""pysdc.record_linkage: global distance-based record linkage (sdcMicro 5.8.1's recordLinkage).

Parity with sdcMicro 5.8.1 on the stored cases runs in tests/parity/test_parity_stored.py (registry entry
``recordLinkage``); here: distances worked out by hand from daisy's documented rules, the tie rule
against a brute-force enumeration of every one-to-one matching, the refusals, and the bridge's
message where the installed sdcMicro lacks recordLinkage.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import parity as _parity
from pysdc.core.linkage import min_total_assignment


def _xy():
    x = pd.DataFrame({"id": [1, 2, 3], "age": [23, 40, 35], "sex": pd.Categorical(["f", "m", "f"]),
                      "region": ["A", "B", "A"]})
    y = pd.DataFrame({"id": [1, 2, 3], "age": [24, 39, 35], "sex": pd.Categorical(["f", "m", "f"]),
                      "region": ["A", "B", "B"]})
    return x, y


def test_gower_by_hand():
    x, y = _xy()
    r = pysdc.record_linkage(x, y, ["age", "sex", "region"], x_id="id", y_id="id", return_matrix=True)
    # age range over both files 23..40 = 17; sex and region nominal; mean of the three contributions
    d = r.distance_matrix
    assert d[0, 0] == pytest.approx((1 / 17) / 3, rel=1e-15)
    assert d[2, 2] == pytest.approx((0 + 0 + 1) / 3, rel=1e-15)
    assert d[0, 1] == pytest.approx((16 / 17 + 1 + 1) / 3, rel=1e-15)
    assert r.correct_matches == 3 and r.correct_match_rate == 1.0
    assert r.total_distance == pytest.approx(2 / 51 + 1 / 3, rel=1e-14)
    assert r.mean_distance == pytest.approx(r.total_distance / 3, rel=1e-15)
    assert r.matches["y_row"].tolist() == [0, 1, 2] and r.matches["n_best"].tolist() == [1, 1, 1]
    assert float(r) == 1.0


def test_weights_and_missing_values_by_hand():
    x = pd.DataFrame({"a": [1.0, np.nan, 3.0, 10.0], "b": [0.0, 5.0, 2.0, 1.0]})
    y = pd.DataFrame({"a": [1.5, 2.0, 3.0, 4.0], "b": [0.0, 5.0, 2.0, 1.0]})
    g = pysdc.record_linkage(x, y, ["a", "b"], weights=[1, 4], return_matrix=True).distance_matrix
    # a: range 1..10 = 9 over both files; b: range 5; weighted mean over the variables present
    assert g[0, 0] == pytest.approx((1 * 0.5 / 9 + 4 * 0) / 5, rel=1e-15)
    assert g[1, 0] == pytest.approx(5 / 5, rel=1e-15)  # a missing: b alone
    e = pysdc.record_linkage(x, y, ["a", "b"], distance="euclidean", return_matrix=True).distance_matrix
    assert e[1, 0] == pytest.approx(math.sqrt(2 / 1 * 25), rel=1e-15)  # sqrt(p / present) * distance
    m = pysdc.record_linkage(x, y, ["a", "b"], distance="manhattan", return_matrix=True).distance_matrix
    assert m[1, 0] == pytest.approx(2 / 1 * 5, rel=1e-15)
    assert m[0, 1] == pytest.approx(1 + 5, rel=1e-15)


def test_ordered_logical_text_by_hand():
    x = pd.DataFrame({"o": pd.Categorical(["l", "m", "h", "m"], categories=["l", "m", "h"], ordered=True),
                      "ch": ["a", "b", "a", "c"], "lg": [True, False, False, True]})
    y = pd.DataFrame({"o": pd.Categorical(["l", "h", "h", "l"], categories=["l", "m", "h"], ordered=True),
                      "ch": ["a", "b", "b", "c"], "lg": [True, False, True, False]})
    with pytest.warns(pysdc.CoercionWarning, match="asymmetric binary"):
        d = pysdc.record_linkage(x, y, ["o", "ch", "lg"], return_matrix=True).distance_matrix
    assert d[1, 0] == pytest.approx((0.5 + 1 + 1) / 3, rel=1e-15)  # codes 2 vs 1 over the code range 2
    assert d[1, 1] == pytest.approx(0.5 / 2, rel=1e-15)  # two FALSE: the logical does not count


def _brute_force(d: np.ndarray, truth_col: np.ndarray):
    """Minimum total over every permutation, and the fewest / most correct links among the optimal ones."""
    n = d.shape[0]
    best, counts = math.inf, []
    for perm in itertools.permutations(range(n)):
        tot = sum(d[i, perm[i]] for i in range(n))
        c = sum(perm[i] == truth_col[i] for i in range(n))
        if tot < best - 1e-12:
            best, counts = tot, [c]
        elif abs(tot - best) <= 1e-12:
            counts.append(c)
    return best, min(counts), max(counts)


@pytest.mark.parametrize("seed", range(12))
def test_ties_most_correct_links_among_optimal_matchings(seed):
    """Under ties the total, mean and n_best do not depend on the matching; the count is the most among optimal
    matchings and correct_matches_min the fewest (checked against every permutation)."""
    rng = np.random.default_rng(seed)
    n = 7
    x = pd.DataFrame({"id": np.arange(n), "k": rng.integers(0, 3, n).astype(float),
                      "c": pd.Categorical(rng.choice(["p", "q"], n))})
    y = x.iloc[rng.permutation(n)].reset_index(drop=True)
    y["k"] = y["k"] + rng.integers(0, 2, n) * (seed % 2)
    r = pysdc.record_linkage(x, y, ["k", "c"], x_id="id", y_id="id", return_matrix=True)
    d = r.distance_matrix
    truth_col = np.array([int(np.flatnonzero(y["id"].to_numpy() == i)[0]) for i in x["id"]])
    best, lo, hi = _brute_force(d, truth_col)
    assert r.total_distance == pytest.approx(best, rel=1e-12, abs=1e-12)
    assert (r.correct_matches_min, r.correct_matches) == (lo, hi)
    assert sorted(r.matches["y_row"]) == list(range(n))  # one to one
    assert r.matches["correct_match"].sum() == r.correct_matches


def test_ties_reversed_duplicates():
    """Groups of 2, 2, 3 identical records and one single, the masked file reversed: every optimal matching has
    total 0; the correct links range from 1 (each group deranged) to 8. sdcMicro 5.8.1 (clue::solve_LSAP)
    returned 2 on this input, inside that range."""
    x = pd.DataFrame({"id": range(1, 9), "a": [1, 1, 2, 2, 3, 3, 3, 4.0]})
    y = x.iloc[::-1].reset_index(drop=True)
    r = pysdc.record_linkage(x, y, ["a"], x_id="id", y_id="id")
    assert r.total_distance == 0 and r.mean_distance == 0
    assert r.matches["n_best"].tolist() == [2, 2, 2, 2, 3, 3, 3, 1]
    assert (r.correct_matches_min, r.correct_matches) == (1, 8)


def test_stored_tie_cases_contain_sdcmicro_inside_the_range():
    """On the stored cases with ambiguous matchings, sdcMicro's count lies in [fewest, most] and at least one
    case is ambiguous (so the range rule is exercised)."""
    root = _parity.reference_dir()
    cases = [c for c in _parity.load_corpus(root, functions=["recordLinkage"]) if not c.expects_error]
    ambiguous = 0
    for c in cases:
        a = _parity.run_case(c, pysdc, root)
        e = int(c.result["correct_matches"])
        assert a["correct_matches_min"] <= e <= a["correct_matches"], c.id
        ambiguous += a["correct_matches_min"] < a["correct_matches"]
    assert ambiguous >= 3


def test_min_total_assignment_prefers_and_avoids():
    cost = np.zeros((3, 3))
    prefer = np.eye(3, dtype=bool)
    assert min_total_assignment(cost, prefer, most=True).tolist() == [0, 1, 2]
    assert np.sum(min_total_assignment(cost, prefer, most=False) == np.arange(3)) == 0
    cost = np.array([[0.0, 1.0], [1.0, 0.0]])  # the preference never overrides a better total
    assert min_total_assignment(cost, ~np.eye(2, dtype=bool), most=True).tolist() == [0, 1]


def test_missing_ids_like_sdcmicro():
    x = pd.DataFrame({"id": [1, np.nan, 3, 4], "a": [1, 2, 3, 4.5]})
    y = pd.DataFrame({"id": [1, 2, 3, 4], "a": [1, 2, 3, 4.0]})
    with pytest.warns(pysdc.DegenerateResultWarning, match="x_id or y_id"):
        r = pysdc.record_linkage(x, y, ["a"], x_id="id", y_id="id")
    assert r.correct_matches == 3 and r.correct_match_rate == 1.0  # over the known ids (sdcMicro: 3, 1)
    assert pd.isna(r.matches["correct_match"][1])


def test_text_and_number_ids_compare_like_r():
    x = pd.DataFrame({"id": ["1", "2", "3"], "a": [1, 2, 3.0]})
    y = pd.DataFrame({"id": [1, 2, 3], "a": [1, 2, 3.0]})
    assert pysdc.record_linkage(x, y, ["a"], x_id="id", y_id="id").correct_matches == 3


def test_weights_ignored_by_euclidean_warns():
    x = pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 1, 5]})
    y = x + 0.1
    plain = pysdc.record_linkage(x, y, ["a", "b"], distance="euclidean")
    with pytest.warns(pysdc.PysdcWarning, match="no effect"):
        w = pysdc.record_linkage(x, y, ["a", "b"], distance="euclidean", weights=[1, 4])
    assert w.total_distance == plain.total_distance


@pytest.mark.parametrize("kw, match", [
    ({"weights": [1, 2]}, "one entry per linkage variable"),
    ({"weights": [-1]}, "non-negative"),
    ({"weights": [0]}, "at least one weight"),
    ({"tol": -1}, "tol"),
    ({"distance": "cosine"}, "distance"),
    ({"na_action": "drop"}, "na_action"),
    ({"x_id": "nope"}, "x_id"),
])
def test_refusals(kw, match):
    x = pd.DataFrame({"a": [1.0, 2, 3]})
    with pytest.raises(pysdc.InvalidParameterError, match=match):
        pysdc.record_linkage(x, x.copy(), ["a"], **kw)


def test_refusals_of_data():
    x = pd.DataFrame({"a": [1.0, 2, 3], "f": pd.Categorical(["u", "v", "u"])})
    with pytest.raises(pysdc.InvalidParameterError, match="same number of rows"):
        pysdc.record_linkage(x, x.iloc[:2], ["a"])
    with pytest.raises(pysdc.InvalidParameterError, match="not columns of y"):
        pysdc.record_linkage(x, x[["a"]], ["a", "f"])
    with pytest.raises(pysdc.InvalidParameterError, match="numeric, integer or logical"):
        pysdc.record_linkage(x, x.copy(), ["a", "f"], distance="euclidean")
    xn = x.copy()
    xn.loc[1, "a"] = np.nan
    with pytest.raises(pysdc.InvalidParameterError, match="na_action='fail'"):
        pysdc.record_linkage(xn, x.copy(), ["a"], na_action="fail")
    with pytest.raises(pysdc.InvalidParameterError, match="Non-finite"):
        pysdc.record_linkage(xn, x.copy(), ["a"], distance="euclidean")
    xi = x.copy()
    xi.loc[0, "a"] = np.inf
    with pytest.raises(pysdc.InvalidParameterError, match="Non-finite"):
        pysdc.record_linkage(xi, x.copy(), ["a"])


def test_inputs_not_modified():
    x, y = _xy()
    x0, y0 = x.copy(), y.copy()
    pysdc.record_linkage(x, y, ["age", "sex", "region"], x_id="id", y_id="id")
    pd.testing.assert_frame_equal(x, x0)
    pd.testing.assert_frame_equal(y, y0)


def test_stored_references_come_from_sdcmicro_581():
    with open(_parity.reference_dir() / "outputs" / "recordLinkage.json") as fh:
        header = json.load(fh)["header"]
    assert header["sdcmicro_version"] == "5.8.1"


@pytest.mark.live
def test_bridge_says_where_sdcmicro_lacks_record_linkage():
    from pysdc import r as bridge

    av = bridge.available()
    if not av:
        pytest.skip(f"R/rpy2/sdcMicro not available: {av.reason}")
    has = bridge.call("exists", "recordLinkage", envir=bridge.call("asNamespace", "sdcMicro", package="base",
                                                                    as_robject=True),
                      inherits=False, package="base")
    x, y = _xy()
    if has:
        r = bridge.record_linkage(x, y, ["age", "sex", "region"], x_id="id", y_id="id")
        assert r.correct_matches == 3
    else:
        with pytest.raises(pysdc.RNotAvailableError, match="5.8.1"):
            bridge.record_linkage(x, y, ["age", "sex", "region"], x_id="id", y_id="id")
