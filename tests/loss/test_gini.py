"""gini: the weighted GINI coefficient of laeken::gini, and its bootstrap / linearised interval.

Stored parity (r_reference/outputs/gini.json, made by laeken 0.5.2), laeken's bootstrap reproduced on
R's own resamples, a seeded coverage simulation, hand-worked values, validation, and live parity
through the bridge (needs R + rpy2 + laeken only).
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc._tolerances import tolerance_for
from pysdc.io import read_table
from pysdc.loss._gini import GiniResult, _gini_replicates, gini, percentile_interval

REF = Path(__file__).resolve().parents[2] / "r_reference"
OUT = REF / "outputs" / "gini.json"


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, str):
        return {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v, v)
    return v


CASES = [_decode(c) for c in json.loads(OUT.read_text())["cases"]]


@functools.cache
def _input(name: str) -> pd.DataFrame:
    return read_table(REF / "inputs" / name)


def run_case(case_args: dict, inputs: dict) -> dict:
    """One stored case through pysdc: ``{"value": ...}`` (laeken's ``sort`` changes nothing, see gini's Notes)."""
    d = inputs["data"]
    w = case_args.get("weights")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        r = gini(d[case_args["inc"]], w=None if w is None else d[w], ci=None, na_rm=bool(case_args.get("na.rm")))
    return {"value": r.value}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_stored_value(case):
    got = run_case(case["args"], {"data": _input(case["inputs"]["data"])})
    want = case["result"]["value"]
    tol = tolerance_for("gini", "value")
    if math.isnan(want):
        assert math.isnan(got["value"])
    else:
        np.testing.assert_allclose(got["value"], want, rtol=tol.rtol, atol=tol.atol)


BOOT = [(c, s) for c in CASES if "boot" in c["result"] for s in c["result"]["boot"]["by_seed"]]


@pytest.mark.parametrize("case, rep", BOOT, ids=[f"{c['id']}:seed{s['seed']}" for c, s in BOOT])
def test_bootstrap_on_r_resamples(case, rep):
    """laeken's naive bootstrap, replayed on the resamples R drew: replicates, $var and $ci agree exactly.

    laeken's bootVar truncates the incomes with as.integer first (a laeken quirk): the replay applies
    the same truncation, which pysdc's own bootstrap does not do.
    """
    d = _input(case["inputs"]["data"])
    a = case["args"]
    x = np.trunc(d[a["inc"]].to_numpy(dtype=float))
    w = np.ones(len(d)) if a.get("weights") is None else d[a["weights"]].to_numpy(dtype=float)
    idx = np.asarray(rep["indices"], dtype=np.intp) - 1
    counts = np.stack([np.bincount(row, minlength=len(x)) for row in idx])
    order = np.argsort(x, kind="stable")
    t = _gini_replicates(x[order], w[order], counts[:, order])
    tol = tolerance_for("gini", "bootstrap")
    np.testing.assert_allclose(t, rep["replicates"], rtol=tol.rtol, atol=tol.atol)
    lo, hi = percentile_interval(t, 1 - case["result"]["boot"]["alpha"])
    np.testing.assert_allclose([lo, hi], rep["ci"], rtol=tol.rtol, atol=tol.atol)
    np.testing.assert_allclose(np.var(t, ddof=1), rep["var"], rtol=1e-10)


def test_laeken_truncation_quirk_matters_for_decimals():
    """On the decimals input, laeken's interval is that of trunc(income): replaying without truncation differs."""
    case = next(c for c in CASES if c["id"] == "gini:boot:decimals:w")
    rep = case["result"]["boot"]["by_seed"][0]
    d = _input(case["inputs"]["data"])
    x = d["inc"].to_numpy(dtype=float)
    w = d["w"].to_numpy(dtype=float)
    idx = np.asarray(rep["indices"], dtype=np.intp) - 1
    counts = np.stack([np.bincount(row, minlength=len(x)) for row in idx])
    order = np.argsort(x, kind="stable")
    t = _gini_replicates(x[order], w[order], counts[:, order])
    assert not np.allclose(t, rep["replicates"], rtol=1e-12, atol=0)


# ------------------------------------------------------------------ properties, hand-worked values


def test_hand_worked():
    # sorted x = 1, 2, 3 with weights 1: (2 * 14 - 6) / (3 * 6) - 1 = 2/9
    assert gini([3.0, 1.0, 2.0], ci=None).value == pytest.approx(100 * 2 / 9, rel=1e-15)
    # sorted x = 1, 2, 3 with weights 2, 3, 1: (2 * 52 - 25) / (6 * 11) - 1 = 13/66
    assert gini([3.0, 1.0, 2.0], w=[1.0, 2.0, 3.0], ci=None).value == pytest.approx(100 * 13 / 66, rel=1e-15)


def test_invariances():
    rng = np.random.default_rng(3)
    x = rng.lognormal(7, 1, 300)
    w = rng.uniform(1, 5, 300)
    g = gini(x, w=w, ci=None).value
    perm = rng.permutation(300)
    assert gini(x[perm], w=w[perm], ci=None).value == pytest.approx(g, rel=1e-12)
    assert gini(5 * x, w=w, ci=None).value == pytest.approx(g, rel=1e-12)          # scale of incomes
    assert gini(x, w=7 * w, ci=None).value == pytest.approx(g, rel=1e-12)          # scale of weights
    # integer weights = replicated records
    wi = rng.integers(1, 4, 300)
    assert gini(x, w=wi.astype(float), ci=None).value == pytest.approx(gini(np.repeat(x, wi), ci=None).value, rel=1e-12)
    assert gini(np.full(10, 3.0), ci=None).value == pytest.approx(0.0, abs=1e-12)


def test_degenerate_values_warn():
    with pytest.warns(DegenerateResultWarning, match="na_rm"):
        assert math.isnan(gini([1.0, np.nan, 3.0]).value)
    with pytest.warns(DegenerateResultWarning):
        assert math.isnan(gini([0.0, 0.0], ci=None).value)
    with pytest.warns(DegenerateResultWarning):
        assert math.isnan(gini([], ci=None).value)
    assert gini([5.0], ci=None).value == 0.0


@pytest.mark.parametrize("kwargs", [
    {"ci": "perc"}, {"level": 1.0}, {"level": 0}, {"n_boot": 1}, {"n_boot": 2.5}, {"na_rm": "yes"},
    {"w": [1.0, 2.0]},
])
def test_invalid(kwargs):
    with pytest.raises(InvalidParameterError):
        gini([1.0, 2.0, 3.0], **kwargs)


def test_invalid_income():
    with pytest.raises(InvalidParameterError):
        gini(pd.Series(["a", "b"]))
    with pytest.raises(InvalidParameterError):
        gini(pd.DataFrame({"a": [1.0]}))


def test_result_class_and_reproducibility():
    r1 = gini(np.arange(1.0, 50.0), random_state=1)
    r2 = gini(np.arange(1.0, 50.0), random_state=1)
    assert isinstance(r1, GiniResult) and (r1.lower, r1.upper) == (r2.lower, r2.upper)
    assert r1.lower < r1.value < r1.upper and r1.n_boot == 100 and r1.ci == "bootstrap"
    assert "GiniResult(value=" in repr(r1)
    assert float(r1) == r1.value


def test_percentile_interval_integer_order():
    # R = 3, level 0.5: orders (3 + 1) * 0.25 = 1 and (3 + 1) * 0.75 = 3 exactly: no interpolation
    assert percentile_interval(np.array([5.0, 1.0, 3.0]), 0.5) == (1.0, 5.0)
    # R = 4, level 0.5: order 1.25 -> interpolated on the normal scale between t(1) and t(2)
    lo, hi = percentile_interval(np.array([1.0, 2.0, 3.0, 4.0]), 0.5)
    assert 1.0 < lo < 2.0 and 3.0 < hi < 4.0


def test_bootstrap_and_linearization_agree_on_large_sample():
    rng = np.random.default_rng(11)
    x = rng.lognormal(8, 0.8, 4000)
    w = rng.uniform(50, 500, 4000)
    b = gini(x, w=w, n_boot=400, random_state=2)
    lin = gini(x, w=w, ci="linearization")
    assert lin.value == b.value
    assert math.sqrt(lin.variance) == pytest.approx(math.sqrt(b.variance), rel=0.15)


@pytest.mark.parametrize("method", ["bootstrap", "linearization"])
def test_coverage_simulation(method):
    """Seeded simulation (deterministic): 95 % intervals cover the population Gini in 90-99 % of 200 samples.

    Population: 200,000 log-normal incomes with weights; each sample draws n = 400 records with
    probability proportional to 1/weight... kept simple: simple random samples with inverse weights 1.
    """
    rng = np.random.default_rng(20240601)
    pop = rng.lognormal(7.0, 0.9, 200_000)
    true = gini(pop, ci=None).value
    hits = 0
    reps = 200
    for k in range(reps):
        s = pop[rng.integers(0, pop.size, 400)]
        r = gini(s, ci=method, n_boot=200, random_state=k)
        hits += r.lower <= true <= r.upper
    cover = hits / reps
    assert 0.90 <= cover <= 0.99, cover


# ------------------------------------------------------------------ live (R + laeken through the bridge)


def _laeken_missing():
    try:
        import pysdc.r as pr
    except ImportError as exc:  # pragma: no cover
        return f"pysdc.r cannot be imported: {exc}"
    try:
        import rpy2  # noqa: F401
    except ImportError:
        return "rpy2 is not installed (pip install 'pysdc-measures[r]')"
    st = pr.available(sdcmicro=False)
    if not st:
        return f"R is not available: {st.reason}"
    if not pr.call("requireNamespace", "laeken", quietly=True, package="base"):
        return "the R package laeken is not installed (Debian: r-cran-laeken)"
    return None


@pytest.mark.needs_r
def test_live_against_laeken():
    reason = _laeken_missing()
    if reason:
        pytest.skip(reason)
    import pysdc.r as pr

    rng = np.random.default_rng(99)
    x, xm = pysdc.load_demo_pair()
    inputs = [
        (x["income"].to_numpy(), x["weight"].to_numpy()),
        (xm["expenditure"].to_numpy(), xm["weight"].to_numpy()),
    ]
    for n in (2, 3, 17, 250, 5000):
        v = np.round(rng.lognormal(6, 1.2, n), 1)
        v[rng.random(n) < 0.3] = v[0]  # ties
        inputs.append((v, rng.uniform(0.5, 900, n)))
    for inc, w in inputs:
        keep = ~np.isnan(inc)
        want = pr.call("gini", inc[keep], weights=w[keep], package="laeken")["value"]
        got = gini(inc, w=w, ci=None, na_rm=True).value
        np.testing.assert_allclose(got, want, rtol=tolerance_for("gini", "value").rtol)


@pytest.mark.needs_r
@pytest.mark.filterwarnings("ignore::pysdc._errors.RWarning")  # boot warns about extreme order statistics
def test_live_percentile_interval_against_boot():
    reason = _laeken_missing()
    if reason:
        pytest.skip(reason)
    import pysdc.r as pr

    rng = np.random.default_rng(5)
    for r in (19, 50, 100, 999):
        t = rng.normal(30, 2, r)
        for level in (0.9, 0.95, 0.99):
            fn = pr.call("getFromNamespace", "norm.inter", "boot", package="utils", as_robject=True)
            want = pr.call("do.call", fn, [t, np.array([(1 - level) / 2, (1 + level) / 2])], package="base")
            got = percentile_interval(t, level)
            np.testing.assert_allclose(got, np.asarray(want)[:, 1], rtol=1e-13)


@pytest.mark.needs_r
def test_bridge_twin_is_laekens_gini():
    """pysdc.r.gini: the native signature and result class, every number laeken's."""
    reason = _laeken_missing()
    if reason:
        pytest.skip(reason)
    import inspect

    import pysdc.r as pr

    assert inspect.signature(pr.gini) == inspect.signature(gini)
    x = pysdc.load_demo()
    inc, w = x["income"].fillna(0).to_numpy(), x["weight"].to_numpy()
    r = pr.gini(inc, w=w, random_state=3)
    want = pr.call("gini", inc, weights=w, package="laeken", var="bootstrap", bootType="naive", R=100,
                   alpha=0.05, seed=3)
    assert isinstance(r, GiniResult) and r.ci == "bootstrap" and r.n_boot == 100
    np.testing.assert_allclose([r.value, r.lower, r.upper, r.variance],
                               [want["value"], *np.asarray(want["ci"], dtype=float), want["var"]], rtol=0, atol=0)
    np.testing.assert_allclose(pr.gini(inc, w=w, ci=None).value, gini(inc, w=w, ci=None).value,
                               rtol=tolerance_for("gini", "value").rtol)
    with pytest.raises(pysdc.InvalidParameterError, match="linearization"):
        pr.gini(inc, w=w, ci="linearization")
