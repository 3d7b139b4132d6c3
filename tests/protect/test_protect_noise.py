"""addNoise (issue 28, family 4): pysdc.protect.add_noise against sdcMicro 5.8.0 on R's random stream.

Stored parity: every case of r_reference/outputs/addNoise.json (generate_protect_perturbation.R from
make_cases_addNoise.py; set.seed(seed) before sdcMicro's call) runs natively from RRandom(seed): every
perturbed value must be sdcMicro's to the last bit (hexadecimal doubles; MD5 of all values for eusilc),
the returned fields sdcMicro's, and the stream must be left where R leaves it (the next runif).
Live parity (marker ``live``): the bridge wrapper pysdc.r.add_noise on the same cases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc._registry._methods import method_by_r_name
from pysdc.core import noise as kernels
from pysdc.protect import AddNoiseResult, add_noise

from _methods import check_stored_case, stored_cases

ROOT = Path(__file__).resolve().parents[2] / "r_reference"


CASES = stored_cases(ROOT, ["addNoise"], with_rname=False)
ENTRY = method_by_r_name("addNoise")


def _check(fn, case):
    check_stored_case(ENTRY, fn, case, ROOT, ignore=DegenerateResultWarning)


@pytest.mark.parametrize("case", CASES)
def test_stored_parity(case):
    _check(add_noise, case)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.values[0]["tags"]}
    assert {"additive", "correlated", "correlated2", "restr", "outdect", "ROMM", "na", "real", "seeded", "error",
            "one-variable"} <= tags
    seeds = {c.values[0]["args"]["seed"] for c in CASES}
    assert len(seeds) >= 5


# =============================================================================
# what the corpus pins, written out


def test_restr_recycles_the_shifts_column_major():
    # sdcMicro adds the p shifts (1 - cc) * mean to the table in column-major order: with n = 4 records
    # and p = 3 columns, value (i, j) gets the shift of column (4 j + i) mod 3
    x = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [0.0, 0, 0, 0], "c": [0.0, 0, 0, 0]})
    with pytest.warns(DegenerateResultWarning, match="column-major"):
        r = add_noise(x, method="restr", noise=50)
    n, w = 4, 0.5
    cc = np.sqrt((n - 1 - w) / ((n + 1) * (1 + w)))
    shift_a = (1 - cc) * 2.5
    expected_b = [0.0, 0.0, shift_a, 0.0]  # linear indices 4..7 -> 4 % 3 = 1, 5 % 3 = 2, 6 % 3 = 0, 7 % 3 = 1
    assert r.xm["b"].tolist() == expected_b
    own = add_noise(x, method="restr", noise=50, restr_shift="column")
    assert own.xm["b"].tolist() == [0.0] * 4
    assert own.xm["a"].mean() == pytest.approx(2.5, rel=1e-15)


def test_correlated2_ignores_noise_and_resets_it():
    x = pd.DataFrame({"a": [1.0, 5, 3, 8, 2], "b": [10.0, 30, 20, 50, 60]})
    r1 = add_noise(x, method="correlated2", noise=10, random_state=4)
    r2 = add_noise(x, method="correlated2", noise=500, random_state=4)
    pd.testing.assert_frame_equal(r1.xm, r2.xm)
    assert np.isnan(r1.noise) and r1.delta == 0.1 and np.isnan(r1.p)


def test_additive_draws_n_per_column_even_with_na():
    # R draws rnorm(n) for every column, NA records included: the second column's noise starts at draw 2n
    x = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": [1.0, 2.0, 4.0, 8.0]})
    r = add_noise(x, noise=100, random_state=1)
    assert np.isnan(r.xm["a"].iloc[1])
    only_b = add_noise(x[["b"]], noise=100, random_state=1)
    assert r.xm["b"].tolist() != only_b.xm["b"].tolist()


def test_result_and_input():
    x = pd.DataFrame({"a": [1.0, 5, 3, 8], "b": [10.0, 30, 20, 50], "k": ["u", "v", "u", "v"]})
    before = x.copy()
    r = add_noise(x, ["a", "b"], random_state=2)
    assert isinstance(r, AddNoiseResult) and r.method == "addNoise: additive" and r.noise == 150
    assert list(r.xm.columns) == ["a", "b"] and r.xm.index.equals(x.index)
    pd.testing.assert_frame_equal(x, before)


@pytest.mark.parametrize(("kw", "match"), [
    ({"variables": ["k"]}, "numeric"),
    ({"variables": ["a"], "method": "correlated"}, "at least 2 variables"),
    ({"variables": ["a", "b"], "method": "ROMM", "p": float("nan")}, "p"),
    ({"variables": ["a"], "noise": -1}, "noise"),
    ({"variables": ["a"], "delta": 0}, "delta"),
    ({"variables": ["a"], "method": "bogus"}, "method"),
    ({"variables": ["a"], "random_state": 1.5}, "random_state"),
])
def test_invalid(kw, match):
    x = pd.DataFrame({"a": [1.0, 5, 3, 8], "b": [10.0, 30, 20, 50], "k": ["u", "v", "u", "v"]})
    with pytest.raises(InvalidParameterError, match=match):
        add_noise(x, **kw)


def test_romm_refused_above_its_limit():
    x = pd.DataFrame({"a": np.arange(2001.0), "b": np.arange(2001.0) % 7})
    with pytest.raises(InvalidParameterError, match="n x n"):
        add_noise(x, method="ROMM", random_state=1)


def test_infinite_values_refused():
    with pytest.raises(InvalidParameterError, match="infinite"):
        add_noise(pd.DataFrame({"a": [1.0, np.inf, 3.0]}))


def test_cov_complete_is_r_cov():
    # R: cov(cbind(c(1,2,4,8), c(1,3,2,5))) = [[9.583333, 5.083333], [5.083333, 2.916667]] (exact fractions)
    c = kernels.r_cov_complete(np.array([[1.0, 1], [2, 3], [4, 2], [8, 5]]))
    assert c[0, 0] == pytest.approx(115 / 12, rel=1e-15) and c[0, 1] == pytest.approx(55 / 12, rel=1e-15)
    assert c[1, 1] == pytest.approx(35 / 12, rel=1e-15)


# =============================================================================
# live: the bridge on the same cases


@pytest.mark.live
@pytest.mark.parametrize("case", [c for c in CASES if "noise30" in c.values[0]["id"]][:12])
def test_live_bridge_parity(case):
    from pysdc.r import add_noise as r_add_noise

    _check(r_add_noise, case)
