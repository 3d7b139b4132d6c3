"""mod_risk: sdcMicro's modRisk (Poisson log-linear model risk), native.

Stored parity (r_reference/outputs/modRisk.json, made by sdcMicro 5.8.0), properties,
hand-worked examples, validation, and a live comparison with sdcMicro.
"""

from __future__ import annotations

import fnmatch
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import DegenerateResultWarning, InvalidParameterError
from pysdc._registry._toolbox import _r_label
from pysdc._tolerances import tolerance_for
from pysdc.core.loglinear import ipf, poisson_glm, qr_least_squares
from pysdc.io import read_table
from pysdc.risk._model import ModRiskResult, mod_risk

REF = Path(__file__).resolve().parents[2] / "r_reference"
OUT = REF / "outputs" / "modRisk.json"
DIVERGENCES = REF / "divergences.json"


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        return {k: _decode(x) for k, x in v.items()}
    return {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v, v) if isinstance(v, str) else v


def _load():
    doc = json.loads(OUT.read_text())
    return doc["cases"]


CASES = _load()
_INPUTS: dict = {}


def _input(name: str) -> pd.DataFrame:
    if name not in _INPUTS:
        _INPUTS[name] = read_table(REF / "inputs" / name)
    return _INPUTS[name].copy()


def _xfails() -> dict:
    try:
        entries = json.loads(DIVERGENCES.read_text())
    except (OSError, ValueError):
        return {}
    entries = entries.get("divergences", entries) if isinstance(entries, dict) else entries
    return {e["case"]: e["reason"] for e in entries
            if isinstance(e, dict) and "case" in e and e.get("applies_to", "both") in ("native", "both")}


def run_case(args: dict, inputs: dict) -> ModRiskResult:
    """Run one stored case (sdcMicro's argument names) natively."""
    return mod_risk(
        inputs["data"], args["formulaM"], w=args["weights"], method=args["method"],
        bound=float(args.get("bound", math.inf)),
    )


def _compare_vector(name, series: pd.Series, exp: dict, tol):
    assert len(series) == exp["n"], f"{name}: {len(series)} entries, sdcMicro {exp['n']}"
    rows = np.asarray(exp["rows"], dtype=np.intp)
    got = series.to_numpy(dtype=float)
    np.testing.assert_allclose(got[rows], np.asarray(_decode(exp["values"]), dtype=float),
                               rtol=tol.rtol, atol=tol.atol, err_msg=name)
    if exp["n"]:
        np.testing.assert_allclose(float(np.sum(got)), float(_decode(exp["sum"])),
                                   rtol=max(tol.rtol, 1e-11), atol=tol.atol, err_msg=f"{name} sum")
    if "keys" in exp:
        for var, labels in exp["keys"].items():
            mine = [_r_label(v) for v in series.index.get_level_values(var)[rows]]
            assert mine == labels, f"{name}: key labels of {var} differ"


def compare_case(case: dict, res: ModRiskResult) -> None:
    exp = _decode(case["result"])
    for f in ("gr1", "gr2", "gr1perc", "gr2perc"):
        tol = tolerance_for("mod_risk", f)
        np.testing.assert_allclose(getattr(res, f), exp[f], rtol=tol.rtol, atol=tol.atol, err_msg=f)
    assert res.method == exp["method"]
    _compare_vector("fitted", res.fitted, exp["fitted"], tolerance_for("mod_risk", "fitted"))
    _compare_vector("inclProb", res.incl_prob, exp["inclProb"], tolerance_for("mod_risk", "incl_prob"))


def _params():
    xf = _xfails()
    out = []
    for c in CASES:
        marks = []
        hits = [reason for pattern, reason in xf.items() if fnmatch.fnmatchcase(c["id"], pattern)]
        if hits:
            marks.append(pytest.mark.xfail(strict=True, reason=hits[0]))
        out.append(pytest.param(c, id=c["id"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_stored_parity(case):
    inputs = {"data": _input(case["inputs"]["data"])}
    if "error" in case:
        with pytest.raises(InvalidParameterError):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateResultWarning)
                run_case(case["args"], inputs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        warnings.simplefilter("ignore", pysdc.PysdcWarning)
        res = run_case(case["args"], inputs)
    compare_case(case, res)


def test_corpus_size_and_coverage():
    assert len(CASES) >= 60
    methods = {c["args"]["method"] for c in CASES if "result" in c}
    assert methods == {"default", "CE", "PML", "weightedLLM", "IPF"}
    informative = [c for c in CASES if "result" in c and _decode(c["result"]["inclProb"]["n"]) > 0
                   and np.isfinite(_decode(c["result"]["gr1"])) and _decode(c["result"]["gr1"]) > 0]
    assert len(informative) >= 30
    assert sum("error" in c for c in CASES) >= 10


def test_stored_inputs_demo_is_load_demo():
    demo = _input("demo.csv.gz")
    pd.testing.assert_frame_equal(demo, pysdc.load_demo(), check_dtype=False)


# ------------------------------------------------------------------ properties and hand-worked


def _small():
    # 2 x 3 keys, counts by cell: a/x 1, a/y 2, a/z 1, b/x 3, b/y 1, b/z 4
    rows = [("a", "x")] + [("a", "y")] * 2 + [("a", "z")] + [("b", "x")] * 3 + [("b", "y")] + [("b", "z")] * 4
    df = pd.DataFrame(rows, columns=["g", "h"]).astype("category")
    df["w"] = np.linspace(5.0, 20.0, len(df))
    return df


def test_independence_fit_closed_form():
    """Main effects only: the Poisson MLE is the independence fit n_i. n_.j / n (every method's
    fitted values, IPF's table too)."""
    df = _small()
    tab = pd.crosstab(df["g"], df["h"]).to_numpy(float)
    expect = np.outer(tab.sum(1), tab.sum(0)) / tab.sum()
    for method in ("default", "IPF"):
        r = mod_risk(df, "~ g + h", w="w", method=method)
        got = r.fitted.unstack("h").loc[["a", "b"], ["x", "y", "z"]].to_numpy()
        np.testing.assert_allclose(got, expect, rtol=1e-9)


def test_risk_formula_by_hand():
    df = _small()
    r = mod_risk(df, "~ g + h", w="w", bound=1)
    # kept cells: counts == 1 (bound 1): a/x, a/z, b/y
    lam = r.fitted.loc[[("a", "x"), ("a", "z"), ("b", "y")]].to_numpy()
    w = df["w"].to_numpy()
    p = np.array([1 / w[0], 1 / w[3], 1 / w[7]])
    v = (1 - p) * lam
    assert r.gr1 == pytest.approx(np.sum(np.exp(-v)) / 3, rel=1e-14)
    assert r.gr2 == pytest.approx(np.sum((1 - np.exp(-v)) / v) / 3, rel=1e-14)
    assert r.gr1perc == pytest.approx(100 * r.gr1, rel=1e-15)
    np.testing.assert_allclose(r.incl_prob.to_numpy(), p, rtol=1e-15)
    assert list(r.incl_prob.index) == [("a", "x"), ("a", "z"), ("b", "y")]


def test_saturated_model_fits_counts():
    df = _small()
    r = mod_risk(df, "~ g*h", w="w")
    tab = pd.crosstab(df["g"], df["h"]).stack()
    np.testing.assert_allclose(r.fitted.to_numpy(), tab.to_numpy(float), rtol=1e-6)


def test_bound_nonpositive_keeps_nothing():
    df = _small()
    for b in (0.0, -3.0, float("nan")):
        r = mod_risk(df, "~ g + h", w="w", bound=b)
        assert r.gr1 == 0.0 and r.gr2 == 0.0 and len(r.incl_prob) == 0


def test_gr_monotone_in_bound_count_of_cells():
    df = _small()
    a = mod_risk(df, "~ g + h", w="w", bound=1)
    b = mod_risk(df, "~ g + h", w="w", bound=2)
    assert len(b.incl_prob) > len(a.incl_prob)


def test_row_order_invariance():
    df = _small()
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    for m in ("default", "CE", "PML", "weightedLLM", "IPF"):
        a = mod_risk(df, "~ g + h", w="w", method=m, bound=2)
        b = mod_risk(shuffled, "~ g + h", w="w", method=m, bound=2)
        assert a.gr1 == pytest.approx(b.gr1, rel=1e-12, abs=0)
        np.testing.assert_allclose(a.fitted.to_numpy(), b.fitted.to_numpy(), rtol=1e-12)


def test_nan_result_warns():
    df = _small()
    with pytest.warns(DegenerateResultWarning, match="NaN"):
        r = mod_risk(df.assign(w=0.001), "~ g + h", w="w")  # p = 1000 * counts: exp(-v) overflows
    assert math.isnan(r.gr1) and math.isnan(r.gr2)


def test_result_repr_and_float():
    r = mod_risk(_small(), "~ g + h", w="w", bound=1)
    assert "ModRiskResult(" in repr(r)
    assert float(r) == r.gr1
    assert r.converged and r.iterations >= 1


def test_input_not_modified():
    df = _small()
    before = df.copy()
    mod_risk(df, "~ g*h", w="w", method="CE")
    pd.testing.assert_frame_equal(df, before)


# ------------------------------------------------------------------ kernels


def test_qr_least_squares_aliased_column():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 3))
    a = np.column_stack([a[:, 0], a[:, 1], a[:, 0] + a[:, 1], a[:, 2]])
    b = rng.normal(size=20)
    coef, rank, piv = qr_least_squares(a, b, 1e-11)
    assert rank == 3 and list(piv) == [0, 1, 3, 2] and coef[2] == 0
    ref = np.linalg.lstsq(a[:, [0, 1, 3]], b, rcond=None)[0]
    np.testing.assert_allclose(coef[[0, 1, 3]], ref, rtol=1e-12)


def test_poisson_glm_rank_deficient_coef_na():
    x = np.column_stack([np.ones(4), [0, 1, 0, 1], [1, 0, 1, 0.0]])
    fit = poisson_glm(x, np.array([1.0, 2, 3, 4]))
    assert fit.rank == 2 and np.isnan(fit.coef[2]) and fit.converged


def test_ipf_two_way_stops_after_second_cycle():
    obs = np.array([[1.0, 2, 3], [4, 5, 6]])
    fit, it, conv = ipf(obs, [(0,), (1,)], eps=0.1, maxit=40)
    assert conv and it == 2
    np.testing.assert_allclose(fit, np.outer(obs.sum(1), obs.sum(0)) / obs.sum(), rtol=1e-14)


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(formula="~ g + h", w="w", method="bogus"), "method"),
        (dict(formula="~ g + h", w="nope"), "w"),
        (dict(formula="~ g + nope", w="w"), "not columns"),
        (dict(formula="y ~ g + h", w="w"), "one-sided"),
        (dict(formula="~ g + log(h)", w="w"), "function calls"),
        (dict(formula="~ g:h", w="w"), "main effects"),
        (dict(formula="~ g + g:h", w="w"), "only in interactions"),
        (dict(formula="~ g*h", w="w", method="IPF"), "IPF"),
        (dict(formula="~ g + h", w="w", bound="5"), "bound"),
        (dict(formula=3, w="w"), "formula"),
        (dict(formula="~ g + h", w="g"), "weight column"),
        (dict(formula="~ g + h +", w="w"), "formula"),
        (dict(formula="~ g %in% h", w="w"), "formula"),
    ],
)
def test_invalid(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        mod_risk(_small(), **kwargs)


def test_invalid_data():
    with pytest.raises(InvalidParameterError, match="DataFrame"):
        mod_risk([[1, 2]], "~ a", w="w")


def test_ipf_ordered_refused():
    df = _small()
    df["h"] = df["h"].cat.as_ordered()
    with pytest.raises(InvalidParameterError, match="ordered"):
        mod_risk(df, "~ g + h", w="w", method="IPF")
    mod_risk(df, "~ g + h", w="w", method="default")  # glm methods accept ordered keys


def test_ipf_text_order_warning():
    df = _small()
    df["n"] = np.where(np.arange(len(df)) % 2 == 0, 2, 10)
    with pytest.warns(pysdc.PysdcWarning, match="text order"):
        mod_risk(df, "~ g + n", w="w", method="IPF")


def test_single_level_factor_refused():
    df = _small()
    df = df[df["g"] == "a"]
    with pytest.raises(InvalidParameterError, match="2 or more levels"):
        mod_risk(df, "~ g + h", w="w")
    r = mod_risk(df, "~ g + h", w="w", method="IPF")  # IPF fits it (unused level b gets 0)
    assert (r.fitted.xs("b", level="g") == 0).all()


# ------------------------------------------------------------------ live


@pytest.mark.live
def test_live_against_sdcmicro():
    import pysdc.r

    if not pysdc.r.available():
        pytest.skip(f"sdcMicro not available: {pysdc.r.available().reason}")
    demo = pysdc.load_demo()
    # data not in the store: a recoded subset of the demo data
    df = demo.iloc[::3].reset_index(drop=True)
    df["agecls"] = pd.Categorical(df["age_group"].astype(str))  # unordered, for IPF
    df["w2"] = df["weight"] * 1.5
    for formula, method, bound in [
        ("~ region + sex + agecls", "IPF", 2.0),
        ("~ (region + sex + urbrur)^2", "default", 2.0),
        ("~ region*sex + education", "CE", 1.0),
        ("~ region + agecls + sex", "PML", 3.0),
        ("~ region + urbrur + education + hhsize", "weightedLLM", 2.0),
    ]:
        f = pysdc.r.call("as.formula", formula, package="stats")
        rr = pysdc.r.call("modRisk", df, method=method, weights="w2", formulaM=f, bound=bound)
        mine = mod_risk(df, formula, w="w2", method=method, bound=bound)
        for field in ("gr1", "gr2", "gr1perc", "gr2perc"):
            np.testing.assert_allclose(getattr(mine, field), float(np.asarray(rr[field]).ravel()[0]),
                                       rtol=1e-10, err_msg=f"{formula} {method} {field}")
        np.testing.assert_allclose(mine.incl_prob.to_numpy(), np.asarray(rr["inclProb"], dtype=float).ravel(),
                                   rtol=1e-12)
        np.testing.assert_allclose(np.sort(mine.fitted.to_numpy()),
                                   np.sort(np.asarray(rr["fitted"], dtype=float).ravel()), rtol=1e-10)
