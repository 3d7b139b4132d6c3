"""indiv_risk: approx and exact risk formulas, overrides, degenerate cases, live parity."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import gammaln

import pysdc
from pysdc import FreqCalcResult, InvalidParameterError


def _freq(fk, Fk, combo=None):
    fk = np.asarray(fk, dtype=float)
    Fk = np.asarray(Fk, dtype=float)
    return FreqCalcResult(fk=fk, Fk=Fk, n1=int((fk == 1).sum()), n2=int((fk == 2).sum()), combo=combo)


def definition_risk(f: int, p: float) -> float:
    """E(1/F | f) under the negative binomial model (Benedetti-Franconi / Franconi-Polettini):
    sum over F >= f of (1/F) * C(F-1, f-1) p^f (1-p)^(F-f)."""
    F = np.arange(f, f + 40000)
    logt = gammaln(F) - gammaln(f) - gammaln(F - f + 1) + f * np.log(p) + (F - f) * np.log1p(-p)
    return float(np.sum(np.exp(logt) / F))


# ------------------------------------------------------------ formulas by hand

def test_approx_fk1_fk2_fk3():
    p = np.array([0.2, 0.25, 0.5])
    fk = np.array([1.0, 2.0, 3.0])
    r = pysdc.indiv_risk(_freq(fk, fk / p))
    q = p / (1 - p)
    expected = [
        q[0] * np.log(1 / p[0]),
        q[1] - q[1] ** 2 * np.log(1 / p[1]),
        p[2] / (3 - (1 - p[2])),
    ]
    assert_allclose(r.rk, expected, rtol=1e-14, atol=0)
    assert r.method == "approx" and r.qual == 1.0


@pytest.mark.parametrize("f", [1, 3, 4, 5, 6])
@pytest.mark.parametrize("p", [0.05, 0.2, 0.5])
def test_exact_matches_definition(f, p):
    r = pysdc.indiv_risk(_freq([f], [f / p]), method="exact")
    assert_allclose(r.rk, [definition_risk(f, p)], rtol=1e-10, atol=0)


def test_exact_fk3_closed_form():
    # mu-Argus' closed form for f = 3: p / (2 q^3) * (q (3q - 2) - 2 p^2 log p)
    p = np.array([0.1, 0.3, 0.7])
    q = 1 - p
    r = pysdc.indiv_risk(_freq([3, 3, 3], 3 / p), method="exact")
    assert_allclose(r.rk, p / (2 * q**3) * (q * (3 * q - 2) - 2 * p**2 * np.log(p)), rtol=1e-12, atol=0)


def test_exact_and_approx_agree_for_fk_1_and_2():
    fk = np.array([1.0, 2.0, 1.0, 2.0])
    Fk = np.array([10.0, 7.0, 3.5, 20.0])
    assert_array_equal(pysdc.indiv_risk(_freq(fk, Fk), method="exact").rk, pysdc.indiv_risk(_freq(fk, Fk)).rk)


def test_fk_equal_Fk_override():
    r = pysdc.indiv_risk(_freq([1, 2, 4, 4], [1, 2, 4, 9]), method="exact")
    assert_allclose(r.rk[:3], [1, 0.5, 0.25], rtol=0, atol=0)
    assert 0 < r.rk[3] < 0.25


def test_survey_false_is_one_over_fk():
    r = pysdc.indiv_risk(_freq([1, 2, 4, 2.5], [3, 9, 5, 7]), survey=False, qual=0.3, method="exact")
    assert_allclose(r.rk, [1, 0.5, 0.25, 0.4], rtol=1e-15, atol=0)
    assert r.method is None and np.isnan(r.qual)


def test_qual_multiplies():
    f = _freq([1, 3, 5], [4, 30, 5])
    assert_allclose(pysdc.indiv_risk(f, qual=0.5).rk, 0.5 * pysdc.indiv_risk(f).rk, rtol=1e-15, atol=0)


def test_fractional_fk():
    # 1 < fk < 2: neither sdcMicro case applies -> 0 (both methods); exact gives NaN above 2
    f = _freq([1.5, 2.5, 3.5, 1.0], [10, 10, 10, 10])
    a = pysdc.indiv_risk(f)
    e = pysdc.indiv_risk(f, method="exact")
    assert a.rk[0] == 0 and e.rk[0] == 0
    p = 0.35
    assert_allclose(a.rk[2], p / (3.5 - (1 - p)), rtol=1e-14, atol=0)
    assert np.isnan(e.rk[1]) and np.isnan(e.rk[2])
    assert_allclose(a.rk[3], e.rk[3], rtol=0, atol=0)


def test_combo_path_equals_row_path():
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3, 1, 2], "w": [3.0, 4, 5, 6, 7, 8, 9, 10]})
    f = pysdc.freq_calc(df, "a", w="w")
    assert f.combo is not None
    plain = FreqCalcResult(fk=f.fk, Fk=f.Fk, n1=f.n1, n2=f.n2)
    for method in ("approx", "exact"):
        assert_array_equal(pysdc.indiv_risk(f, method=method).rk, pysdc.indiv_risk(plain, method=method).rk)


def test_large_fk_exact_runs_and_matches_definition_where_well_conditioned():
    r = pysdc.indiv_risk(_freq([8], [8 / 0.05]), method="exact")
    assert_allclose(r.rk, [definition_risk(8, 0.05)], rtol=1e-10, atol=0)
    # a long series (fk = 3000) must not blow up memory or time
    r = pysdc.indiv_risk(_freq([3000, 3000, 2999], [3100, 3200, 3100]), method="exact")
    assert r.rk.shape == (3,)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.floats(0.05, 0.5)), min_size=1, max_size=12))
def test_exact_vs_definition_property(pairs):
    fk = np.array([f for f, _ in pairs], dtype=float)
    p = np.array([q for _, q in pairs])
    r = pysdc.indiv_risk(_freq(fk, fk / p), method="exact")
    ref = [definition_risk(int(f), q) for f, q in zip(fk, p)]
    assert_allclose(r.rk, ref, rtol=1e-8, atol=0)


# ------------------------------------------------------------ refusals

@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(method="exakt"), "method"),
        (dict(qual="high"), "qual"),
        (dict(qual=np.inf), "qual"),
        (dict(survey="yes"), "survey"),
    ],
)
def test_refusals(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        pysdc.indiv_risk(_freq([1], [2]), **kwargs)


def test_refuses_other_objects():
    with pytest.raises(InvalidParameterError, match="FreqCalcResult"):
        pysdc.indiv_risk({"fk": [1], "Fk": [2]})


# ------------------------------------------------------------ live sdcMicro

@pytest.mark.live
@pytest.mark.rscript("jsonlite")
def test_live_against_sdcmicro(tmp_path):
    fk = np.array([1, 2, 3, 4, 5, 7, 10, 3, 1.5, 2.5, 6], dtype=float)
    Fk = np.array([4, 9, 20, 8.5, 60, 30, 100, 3, 10, 10, 6], dtype=float)
    pd.DataFrame({"fk": fk, "Fk": Fk}).to_csv(tmp_path / "f.csv", index=False)
    script = (
        "suppressMessages({library(sdcMicro); library(jsonlite)}); d <- read.csv('f.csv');"
        "f <- list(freqCalc=data.frame(a=d$fk), keyVars=1, fk=d$fk, Fk=d$Fk);"
        "cat(toJSON(list(a=indivRisk(f)$rk, e=indivRisk(f, method='exact')$rk, q=indivRisk(f, qual=0.7)$rk),"
        " digits=NA, na='string'))"
    )
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = {k: np.array([np.nan if v in ("NA", "NaN") else v for v in vals], dtype=float)
           for k, vals in json.loads(r.stdout).items()}
    f = _freq(fk, Fk)
    assert_allclose(pysdc.indiv_risk(f).rk, out["a"], rtol=1e-13, atol=0, equal_nan=True)
    assert_allclose(pysdc.indiv_risk(f, method="exact").rk, out["e"], rtol=1e-13, atol=0, equal_nan=True)
    assert_allclose(pysdc.indiv_risk(f, qual=0.7).rk, out["q"], rtol=1e-13, atol=0, equal_nan=True)


@pytest.mark.parametrize("ufunc", [np.multiply, np.add])
def test_equal_length_accumulate_is_a_left_to_right_loop(ufunc):
    from pysdc.core.indiv import equal_length_accumulate

    rng = np.random.default_rng(4)
    lengths = np.sort(rng.integers(0, 9, 300))  # runs of equal length, as for pairs sorted by fk
    values = rng.uniform(0.5, 1.5, int(lengths.sum()))
    out = equal_length_accumulate(values, lengths, ufunc)
    expected = np.empty_like(values)
    pos = 0
    for length in lengths:  # the scalar definition
        acc = None
        for j in range(length):
            acc = values[pos + j] if acc is None else float(ufunc(acc, values[pos + j]))
            expected[pos + j] = acc
        pos += length
    assert np.array_equal(out, expected)
