"""Registry entries of the analysts' utility checks (the practice guide's utility chapter).

Native measures with no sdcMicro counterpart (``r=""``, no :mod:`pysdc.r` wrapper): benchmark
indicators with confidence-interval overlap, the GINI coefficient (number-for-number with
``laeken::gini``; its stored references and live tests are in ``tests/loss/test_gini.py``) and the
comparison of regressions (R's ``lm``/``glm``; ``tests/loss/test_regression.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._results import CIOverlapResult, EstimatesComparison
from ..loss import GiniResult, RegressionComparison, ci_overlap, compare_estimates, compare_regression, gini
from ._measure import Measure, _loss_pair, native_arguments


def _check(python, native, result, notes, fields, example, **info) -> Measure:
    return Measure(python, "", "loss", native, result, arguments=native_arguments(native),
                   fields=dict.fromkeys(fields), notes=notes, bridge=False, example=example, **info)


def _regression_pair() -> dict:
    rng = np.random.default_rng(0)
    n = 60
    x = pd.DataFrame({"y": rng.normal(size=n), "a": rng.normal(size=n),
                      "g": pd.Categorical(rng.choice(["p", "q"], n))})
    xm = x.assign(y=x["y"] + rng.normal(scale=0.1, size=n))
    return {"x": x, "xm": xm, "formula": "y ~ a + g"}


ENTRIES: tuple[Measure, ...] = (
    _check(
        "ci_overlap", ci_overlap, CIOverlapResult,
        "interval-overlap utility J of Karr et al. (2006), vectorised",
        ("overlap", "lower_x", "upper_x", "lower_xm", "upper_xm"),
        lambda: {"lower_x": np.array([0.0, 1.0]), "upper_x": np.array([2.0, 3.0]),
                 "lower_xm": np.array([0.5, 1.0]), "upper_xm": np.array([2.5, 3.0])},
        description="interval overlap J: how much the confidence intervals of an estimate from the original and from "
                    "the masked data overlap (1: the same interval).",
        citation="Karr et al. 2006",
        section="estimates",
    ),
    _check(
        "gini", gini, GiniResult,
        "weighted GINI coefficient in percent, equal to laeken::gini, with a bootstrap or linearisation interval",
        ("value", "lower", "upper", "level", "ci", "variance", "n", "n_boot"),
        lambda: {"x": _loss_pair()["xm"]["u"].to_numpy(), "ci": "linearization"},
        description="weighted GINI coefficient in percent, equal to laeken::gini, with a bootstrap or linearisation "
                    "interval.",
        citation="practice guide (laeken::gini)",
        section="estimates",
    ),
    _check(
        "compare_estimates", compare_estimates, EstimatesComparison,
        "benchmark indicators (mean, total, ratio, quantiles, GINI, your own) before and after, with CI overlap",
        ("table", "level", "w", "by"), lambda: {**_loss_pair(), "estimator": "mean(v)"},
        description="benchmark indicators (mean, total, ratio, quantiles, GINI, your own) on the original and the "
                    "masked data, with their confidence intervals and overlap.",
        citation="practice guide; Karr et al. 2006",
        section="estimates",
    ),
    _check(
        "compare_regression", compare_regression, RegressionComparison,
        "R's lm/glm coefficients and intervals on original and masked data, with overlap",
        ("table", "formula", "family", "level", "n_x", "n_xm"), _regression_pair,
        description="coefficients and confidence intervals of R's lm/glm fitted to the original and to the masked "
                    "data, with their overlap: whether a regression gives the same conclusions.",
        citation="practice guide; Karr et al. 2006",
        section="estimates",
    ),
)
