"""R's qnorm, rnorm, sample with probabilities and MASS::mvrnorm on R's stream (pysdc.core.rdist).

References: r_reference/outputs/rnormal.json (r_reference/generate_rnormal.R, R 4.2.2, MASS), doubles
as hexadecimal. Every comparison is bit for bit: qnorm on 5462 probabilities (uniform, both tails down
to the smallest subnormal, the branch edges of AS 241), rnorm with recycled means/sds (sd = 0, NA,
Inf, negative), sample.int with probabilities (R's inversion over the heap-sorted probabilities, ties
included, and Walker's alias method above 200 large probabilities), mvrnorm (LAPACK's dsyevr, the
reference-BLAS product); after each draw case the stream must be where R leaves it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pysdc._errors import InvalidParameterError
from pysdc.core.noise import blas_matmul
from pysdc.core.rdist import mvrnorm, qnorm, rnorm, sample_prob
from pysdc.core.rrandom import RRandom

REF = json.loads((Path(__file__).resolve().parents[2] / "r_reference" / "outputs" / "rnormal.json")
                 .read_text(encoding="utf-8"))


def _d(h):
    if h == "NA":
        return math.nan
    if h in ("Inf", "-Inf"):
        return math.inf if h == "Inf" else -math.inf
    return float.fromhex(h)


def _arr(v):
    return np.array([_d(h) for h in (v if isinstance(v, list) else [v])])


def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def test_qnorm_bit_for_bit():
    p, q = _arr(REF["qnorm"]["p"]), _arr(REF["qnorm"]["q"])
    mine = qnorm(p)
    bad = np.flatnonzero(~((mine == q) | (np.isnan(mine) & np.isnan(q))))
    assert bad.size == 0, f"{bad.size} quantiles differ, e.g. p={p[bad[:3]]}: {mine[bad[:3]]} vs {q[bad[:3]]}"
    assert (p < 1e-300).sum() > 50 and (np.abs(p - 0.5) > 0.425).sum() > 1000  # the tails are there


def test_qnorm_edges():
    assert qnorm(0.0) == -math.inf and qnorm(1.0) == math.inf and qnorm(0.5) == 0.0
    assert np.isnan(qnorm(1.5)) and np.isnan(qnorm(-0.1))
    assert qnorm(0.975) == pytest.approx(1.959963984540054, rel=1e-15)  # textbook value


@pytest.mark.parametrize("case", REF["rnorm"], ids=[c["id"] for c in REF["rnorm"]])
def test_rnorm(case):
    rr = RRandom(int(case["seed"]))
    v = rnorm(rr, int(case["n"]), _arr(case["mean"]), _arr(case["sd"]))
    assert _same(v, _arr(case["value"]))
    assert rr.unif_rand() == _d(case["after"])


@pytest.mark.parametrize("case", REF["sample"], ids=[c["id"] for c in REF["sample"]])
def test_sample_with_prob(case):
    rr = RRandom(int(case["seed"]))
    v = sample_prob(rr, int(case["n"]), int(case["size"]), bool(case["replace"]), _arr(case["prob"]))
    value = case["value"] if isinstance(case["value"], list) else [case["value"]]
    assert v.tolist() == value
    assert rr.unif_rand() == _d(case["after"])


@pytest.mark.parametrize("case", REF["mvrnorm"], ids=[c["id"] for c in REF["mvrnorm"]])
def test_mvrnorm(case):
    rr = RRandom(int(case["seed"]))
    p = int(case["p"])
    sigma = _arr(case["Sigma"]).reshape(p, p, order="F")
    v = mvrnorm(rr, int(case["n"]), _arr(case["mu"]), sigma, matmul=blas_matmul)
    assert _same(v.ravel(order="F"), _arr(case["value"]))
    assert rr.unif_rand() == _d(case["after"])


def test_sample_refuses_bad_probabilities():
    with pytest.raises(InvalidParameterError, match="number of probabilities"):
        sample_prob(RRandom(1), 3, 2, True, [0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="finite"):
        sample_prob(RRandom(1), 2, 2, True, [np.nan, 1.0])
    with pytest.raises(InvalidParameterError, match="positive"):
        sample_prob(RRandom(1), 2, 2, True, [0.0, 0.0])


def test_mvrnorm_refuses_non_positive_definite():
    with pytest.raises(InvalidParameterError, match="positive definite"):
        mvrnorm(RRandom(1), 5, [0, 0], [[1.0, 2.0], [2.0, 1.0]])
