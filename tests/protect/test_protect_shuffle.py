"""shuffle (issue 28, family 4): pysdc.protect.shuffle against sdcMicro 5.8.0 on R's random stream.

Stored parity: every case of r_reference/outputs/shuffle.json (generate_protect_shuffle.R from
make_cases_shuffle.py; set.seed(seed) before sdcMicro's call) runs natively from RRandom(seed): the shuffled
values of every record exactly (hexadecimal doubles), the perturbed and EGADP values within the tolerance of
pysdc/_tolerances.py, and the stream left where R leaves it. Cases: factor, ordered-factor, interaction and
one-predictor formulae, three responses, Pearson, gadp=FALSE, weights, missing values (imputed from the stream)
and eusilc. Live parity (marker ``live``): pysdc.r.shuffle on the same cases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import load_case_data, method_by_r_name
from pysdc.core.rrandom import RRandom
from pysdc.core.shuffle import r_cor, reverse_map
from pysdc.protect import ShuffleResult, shuffle

from _methods import check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"


CASES = stored_cases(ROOT, ["shuffle"], with_rname=False)
ENTRY = method_by_r_name("shuffle")


def _check(fn, case):
    seen = check_stored_case(ENTRY, fn, case, ROOT)
    if fn is shuffle and "error" not in case:  # sdcMicro's warning about the imputation, and only then
        imputed = any("imputed" in str(w.message) for w in seen)
        assert imputed == any("imputed" in w for w in case["warnings"])


@pytest.mark.parametrize("case", CASES)
def test_stored_parity(case):
    _check(shuffle, case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.values[0]["tags"]}
    assert {"seeded", "factor", "ordered", "three-responses", "one-predictor", "interaction", "pearson", "gadp",
            "weights", "na", "real", "error"} <= tags


# =============================================================================
# what the corpus pins, written out


def test_shuffled_columns_are_permutations_of_the_originals():
    data = load_case_data({"inputs": {"data": "shuffle60.csv.gz"}}, ROOT)
    r = shuffle(data, "a + b + y3 ~ c + f", random_state=11)
    assert isinstance(r, ShuffleResult)
    for v in ("a", "b", "y3"):
        assert sorted(r.shuffled[v]) == sorted(data[v])
        assert not np.array_equal(r.shuffled[v].to_numpy(), data[v].to_numpy())
        # the shuffled values follow the ranks of the perturbed ones
        along = r.shuffled[v].to_numpy()[np.argsort(r.perturbed[v].to_numpy(), kind="stable")]
        assert np.all(np.diff(along) >= 0)
    assert list(r.shuffled.index) == list(data.index)


def test_reverse_map_ties_in_record_order():
    x = np.array([5.0, 1.0, 3.0, 2.0])
    y = np.array([0.2, 0.1, 0.2, -1.0])
    assert reverse_map(x, y).tolist() == [3.0, 2.0, 5.0, 1.0]


def test_spearman_correlation_is_symmetric_and_one_on_the_diagonal():
    rng = np.random.default_rng(1)
    m = rng.normal(size=(30, 4))
    c = r_cor(m)
    assert np.array_equal(c, c.T) and np.all(np.diag(c) == 1.0)
    np.testing.assert_allclose(c, pd.DataFrame(m).corr(method="spearman").to_numpy(), rtol=1e-13)


def test_gadp_false_draws_less():
    data = load_case_data({"inputs": {"data": "shuffle60.csv.gz"}}, ROOT)
    r1, r2 = RRandom(3), RRandom(3)
    a = shuffle(data, "a + b ~ c", random_state=r1)
    b = shuffle(data, "a + b ~ c", gadp=False, random_state=r2)
    pd.testing.assert_frame_equal(a.shuffled, b.shuffled)  # EGADP draws after the shuffle
    assert b.egadp is None and a.egadp is not None
    assert r1.unif_rand() != r2.unif_rand()


@pytest.mark.parametrize(("kw", "match"), [
    ({"form": "a ~ c"}, "at least 2"),
    ({"form": "a + b ~ nothere"}, "not in data"),
    ({"form": "a + f ~ c"}, "numeric"),
    ({"form": "a + b"}, "formula"),
    ({"form": "a + b ~ c", "method": "mlm"}, "data.frame"),
    ({"form": "a + b ~ c", "covmethod": "mcd"}, "bridge"),
    ({"form": "a + b ~ c", "weights": [1.0, 2.0]}, "weights"),
    ({"form": "a + b ~ c", "random_state": "x"}, "random_state"),
])
def test_invalid(kw, match):
    data = load_case_data({"inputs": {"data": "shuffle60.csv.gz"}}, ROOT)
    with pytest.raises(InvalidParameterError, match=match):
        shuffle(data, **kw)


# =============================================================================
# live: the bridge on the same cases


@pytest.mark.live
@pytest.mark.parametrize("case", CASES)
def test_live_bridge_parity(case):
    from pysdc.r import shuffle as r_shuffle

    _check(r_shuffle, case)
