"""Issue 24: the differential tester's mismatch classes (pysdc.parity.fuzz), fixed or explained.

The data sets are the tester's replayed seeds (``python -m pysdc.parity.fuzz --replay SEED``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._errors import DegenerateResultWarning
from pysdc._registry._toolbox import _r_as_character, suda2_r_labels
from pysdc.parity._corpus import divergence_for, load_divergences
from pysdc.parity._fuzz_data import make_dataset

NEAR_SINGULAR_SEEDS = (4, 148, 210, 249, 260)


def _labels(data, keys):
    lev = pysdc.suda2(data, keys).attribute_level_contributions
    return suda2_r_labels(data, keys, zip(lev["variable"], lev["attribute"]))


# ---- suda2's level labels: observed in sdcMicro 5.8.0 (R 4.2.2) for these class sequences


def _frame(classes):
    rng = np.random.default_rng(3)
    n = 60
    make = {
        "fac": lambda: pd.Categorical(rng.choice(["b", "a", "c"], n)),
        "chr": lambda: rng.choice(["West", "East", "North"], n).astype(object),
        "lgl": lambda: rng.choice([True, False], n),
        "int": lambda: rng.choice([1, 2, 3], n),
    }
    return pd.DataFrame({f"k{i}": make[c]() for i, c in enumerate(classes)})


@pytest.mark.parametrize("classes, expected", [
    # R: suda2(data.frame(a, b, c))$attribute_level_contributions$attribute
    (("chr", "chr", "chr"), ["East", "North", "West"] * 3),            # raised ValueError before
    (("fac", "chr", "chr"), ["a", "b", "c"] + ["East", "North", "West"] * 2),  # NA before
    (("fac", "lgl", "chr"), ["a", "b", "c", None, None, "East", "North", "West"]),
    (("chr", "lgl", "chr"), ["East", "North", "West", "FALSE", "TRUE", "East", "North", "West"]),
    (("lgl", "int", "chr"), ["0", "1", "1", "2", "3", "East", "North", "West"]),
    (("lgl", "chr", "chr"), ["FALSE", "TRUE"] + ["East", "North", "West"] * 2),
    (("int", "lgl", "chr"), ["1", "2", "3", "0", "1", "East", "North", "West"]),
    (("lgl", "lgl", "lgl"), ["False", "True"] * 3),  # an all-logical column: the bridge's str(bool)
])
def test_suda2_level_labels_follow_rbind_coercion(classes, expected):
    data = _frame(classes)
    assert _labels(data, list(data.columns)) == expected


@pytest.mark.live
@pytest.mark.parametrize("seed", [1, 2, 3, 5, 7, 11, 13])
def test_suda2_level_labels_equal_sdcmicro_on_fuzz_seeds(seed):
    import pysdc.r

    ds = make_dataset(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lev = pysdc.r.suda2(ds.data, ds.keys).attribute_level_contributions
        got = _labels(ds.data, ds.keys)
    exp = [None if pd.isna(v) else _r_as_character(v) if isinstance(v, float) else str(v) for v in lev["attribute"]]
    assert got == exp


# ---- near-singular numeric data: warned at call time, and explained divergences


@pytest.mark.parametrize("seed", NEAR_SINGULAR_SEEDS)
def test_d_risk_rmd_warns_meaningless_on_near_singular_seeds(seed):
    ds = make_dataset(seed)
    with pytest.warns(DegenerateResultWarning, match="d_risk_rmd: the risks are numerically meaningless"):
        pysdc.d_risk_rmd(ds.x, ds.xm, random_state=1)


def test_d_risk_rmd_does_not_warn_on_well_conditioned_data():
    rng = np.random.default_rng(1)
    x = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateResultWarning)
        pysdc.d_risk_rmd(x, x + rng.normal(scale=0.05, size=x.shape), random_state=1)


def test_il_correl_warns_on_near_singular_seed_249():
    ds = make_dataset(249)
    with pytest.warns(DegenerateResultWarning, match="condition number 4"):
        pysdc.il_correl(ds.x, ds.xm)


def test_il_correl_does_not_warn_on_well_conditioned_data():
    rng = np.random.default_rng(1)
    x = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateResultWarning)
        pysdc.il_correl(x, x + rng.normal(scale=0.05, size=x.shape))


@pytest.mark.parametrize("measure, variant, seed", [
    *(("dRiskRMD", "seed1", s) for s in NEAR_SINGULAR_SEEDS), ("IL_correl", "", 249)])
def test_near_singular_classes_are_explained_divergences(measure, variant, seed):
    ds = make_dataset(seed)
    case = f"fuzz:{measure}:{variant}:{','.join(ds.tags)}:{seed}"
    div = divergence_for(case, load_divergences(), "fuzz")
    assert div is not None and "warns" in div["reason"]


# ---- modRisk weightedLLM on seed 668: a non-converged IRLS, warned and explained


def test_mod_risk_non_converged_fit_warns_that_digits_follow_rounding():
    ds = make_dataset(668)
    with pytest.warns(DegenerateResultWarning, match="not a maximum-likelihood fit"):
        pysdc.mod_risk(ds.data, "~ k1 + k2 + k3", method="weightedLLM", w="w")


def test_mod_risk_seed_668_is_an_explained_divergence():
    ds = make_dataset(668)
    case = f"fuzz:modRisk:weightedLLM:{','.join(ds.tags)}:668"
    div = divergence_for(case, load_divergences(), "fuzz")
    assert div is not None and "warns" in div["reason"]


def test_a_value_divergence_does_not_explain_a_one_sided_refusal():
    """Seed 1998 (dRiskRMD: sdcMicro stops, pysdc returns): the near-singular entry is about numbers only."""
    from types import SimpleNamespace

    from pysdc._errors import RCallError
    from pysdc.parity._fuzz_run import _outcome

    divs = load_divergences()
    ds = SimpleNamespace(seed=1998, tags=["collinear"])
    refused = _outcome(ds, "dRiskRMD", "seed1", {}, ({"risk1": 0.1}, None), (None, RCallError("singular")),
                       lambda a, b: [], divs, 0.0)
    assert refused.status == "mismatch"
    differing = _outcome(ds, "dRiskRMD", "seed1", {}, ({"v": 0.1}, None), ({"v": 0.2}, None),
                         lambda a, b: [SimpleNamespace(ok=False, field="risk1", max_rel=0.5, max_abs=0.1,
                                                       detail="")], divs, 0.0)
    assert differing.status == "explained" and "refusal" not in differing.reason.split(".")[0]


def test_il_correl_borderline_refusal_says_sdcmicro_may_return_a_value():
    """Seed 1166: rcond 1.07e-16, just under R's eps threshold; sdcMicro returned a value there."""
    from pysdc._errors import InvalidParameterError

    ds = make_dataset(1166)
    with pytest.raises(InvalidParameterError, match="within rounding of R's threshold"):
        pysdc.il_correl(ds.x, ds.xm)


def test_il_correl_borderline_refusal_is_an_explained_divergence():
    from types import SimpleNamespace

    from pysdc.parity._fuzz_run import _outcome

    ds = SimpleNamespace(seed=1166, tags=make_dataset(1166).tags)
    o = _outcome(ds, "IL_correl", "", {}, (None, ValueError("singular")), ({"value": 0.1}, None),
                 lambda a, b: [], load_divergences(), 0.0)
    assert o.status == "explained" and "within rounding of R's solve() threshold" in o.reason


def test_d_risk_rmd_stops_where_covmcd_stops_seed_1998():
    """sdcMicro: 'system is computationally singular: reciprocal condition number = 4.97327e-15' (covMcd's
    reweighting solve with tolSolve = 1e-14); pysdc returned a value before."""
    from pysdc._errors import InvalidParameterError

    ds = make_dataset(1998)
    with pytest.raises(InvalidParameterError, match=r"4\.97327e-15 below covMcd's tolSolve"):
        pysdc.d_risk_rmd(ds.x, ds.xm, random_state=1)
