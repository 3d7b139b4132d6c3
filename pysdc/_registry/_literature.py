"""Registry entries of the literature's information-loss measures (native only: sdcMicro has none).

They have no R name, no bridge wrapper and no stored sdcMicro cases: their validation is the
worked examples, independent-route and property tests of ``tests/loss/test_loss_literature.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._results import EntropyResult, HellingerResult, ILEntropyResult
from ..loss import (
    CategoricalLossResult,
    ContinuousLossResult,
    EntropyRiskResult,
    GSILResult,
    entropy,
    entropy_risk,
    gsil,
    hellinger,
    il_categorical,
    il_continuous,
    il_entropy,
)
from ..risk._interval_frequency import IntervalFrequencyResult, interval_frequency
from ._measure import Measure, Shown, _loss_pair, _risk_frame, native_arguments


def _categorical_pair(n: int = 40, seed: int = 0) -> dict:
    """Two categorical variables (one ordered), a few values changed, one missing."""
    rng = np.random.default_rng(seed)
    lv = ["low", "mid", "high"]
    a = rng.choice(["p", "q", "r"], n)
    b = rng.choice(lv, n)
    am, bm = a.copy(), b.copy()
    am[:5] = "p"
    bm[5:10] = "mid"
    x = pd.DataFrame({"a": pd.Categorical(a), "b": pd.Categorical(b, categories=lv, ordered=True)})
    xm = pd.DataFrame({"a": pd.Categorical(am, categories=["p", "q", "r"]),
                       "b": pd.Categorical(bm, categories=lv, ordered=True)})
    x.loc[0, "a"] = np.nan
    return {"x": x, "xm": xm}


def _mixed_pair() -> dict:
    num, cat = _loss_pair(), _categorical_pair()
    return {"x": pd.concat([num["x"], cat["x"]], axis=1), "xm": pd.concat([num["xm"], cat["xm"]], axis=1)}


def _literature(python, native, result, notes, fields, example, **info) -> Measure:
    return Measure(python, "", "loss", native, result, arguments=native_arguments(native),
                   fields=dict.fromkeys(fields), notes=notes, bridge=False, example=example, **info)


ENTRIES: tuple[Measure, ...] = (
    _literature(
        "il_continuous", il_continuous, ContinuousLossResult,
        "Domingo-Ferrer–Mateo-Sanz–Torra table (X, X̄, V, S, R, RF, C, F × MSE, MAE, mean variation), "
        "Yancey–Winkler–Creecy IL1, Todorova's GILCV",
        ("table", "il1", "gilcv", "n", "n_used", "zero_originals", "capped", "max_variation", "variables"),
        _loss_pair,
        description="continuous variables: GILCV (mean relative variation, %), Yancey, Winkler & Creecy's IL1 (mean "
                    "per cell) and the discrepancy table (MSE, MAE, mean variation of X, means, covariances, "
                    "correlations ...).",
        citation="Domingo-Ferrer, Mateo-Sanz & Torra 2001; Yancey, Winkler & Creecy 2002; Todorova",
        section="utility",
        assess="utility", compares="numeric", matrix="il_continuous",
        shows=(Shown("gilcv", "GILCV", note="mean relative variation, %", quantity="GILCV (%)"),
               Shown("il1", "IL1", note="Yancey, Winkler & Creecy's IL1, mean per cell", quantity="IL1 (mean per cell)"),
               Shown("table", "il_continuous discrepancy table (rows: what is compared; columns: how)", "table",
                     digits=4)),
    ),
    _literature(
        "il_categorical", il_categorical, CategoricalLossResult,
        "direct comparison, contingency-table loss (CTBIL), entropy-based loss (EBIL, PRIL)",
        ("direct", "ctbil", "ctbil_normalized", "ebil", "pril", "n", "n_cells", "max_dim"),
        _categorical_pair,
        description="categorical variables: direct (share of changed values per variable), contingency-table loss "
                    "normalised, entropy-based loss EBIL per variable.",
        citation="direct comparison, CTBIL, EBIL (Domingo-Ferrer & Torra 2001)",
        section="utility",
        assess="utility", compares="categorical",
        shows=(Shown("ctbil_normalized", "CTBIL normalised", note="contingency tables", quantity="CTBIL (normalised)"),
               Shown("direct", "direct {key}", "map", note="EBIL {ebil}", digits=4, column="direct",
                     about="share of records whose value changed"),
               Shown("ebil", fmt="map", column="ebil", about="entropy-based loss (il_categorical)")),
    ),
    _literature(
        "entropy", entropy, EntropyResult,
        "Shannon entropy of each variable's frequency distribution (natural log)",
        ("per_variable", "n"), lambda: {"data": _categorical_pair()["x"]},
        description="Shannon entropy (natural log) of each variable's frequency distribution: how spread its values "
                    "are.",
        citation="Torra & Carlson 2013",
        section="utility-per-variable",
    ),
    _literature(
        "il_entropy", il_entropy, ILEntropyResult,
        "entropy-based information loss per variable, |H(xm) − H(x)|",
        ("per_variable", "entropy_x", "entropy_xm"), _categorical_pair,
        description="entropy-based information loss per variable, |H(xm) - H(x)|: how much masking concentrated or "
                    "dispersed its values.",
        citation="Torra & Carlson 2013",
        section="utility-per-variable",
        assess="utility", compares="categorical",
        shows=(Shown("value", "mean", get=lambda r: float(np.mean(r.per_variable.to_numpy(dtype=float))),
                     note="entropy loss per variable, mean", quantity="mean over variables"),
               Shown("per_variable", "{key}", "map", digits=4, column="il_entropy",
                     about="|H(masked) - H(original)|")),
    ),
    _literature(
        "hellinger", hellinger, HellingerResult,
        "Hellinger distance between each variable's distributions in x and xm (mean: GHD)",
        ("per_variable", "ghd", "bins", "n_x", "n_xm"), _mixed_pair,
        description="distance between each variable's distributions in ORIGINAL and MASKED, 0 (same) to 1; GHD is "
                    "their mean.",
        citation="Hellinger distance (Todorova)",
        section="utility-per-variable",
        assess="utility", compares="both",
        shows=(Shown("ghd", "GHD", get=lambda r: float(r.per_variable.mean()), note="mean over the variables",
                     quantity="mean over variables"),
               Shown("per_variable", "{key}", "map", digits=4, column="hellinger",
                     about="distance between the variable's distributions (0 to 1)")),
    ),
    Measure(
        "entropy_risk", "", "risk", entropy_risk, EntropyRiskResult, arguments=native_arguments(entropy_risk),
        fields=dict.fromkeys(("value", "zero_share", "entropy_term", "size_term", "n_cells", "n_nonzero", "n")),
        notes="Shlomo–Antal–Elliot's entropy-based disclosure risk R(F, w1, w2) of the key table",
        bridge=False,
        example=lambda: {"data": _risk_frame(), "key_vars": ["a", "b"], "w1": 0.3, "w2": 0.3},
        description="entropy-based disclosure risk of the key table as a whole, between 0 and 1, from its share of "
                    "empty cells, the entropy of its frequencies and its size (weights w1, w2).",
        citation="Antal, Shlomo & Elliot 2014",
        section="risk",
    ),
    _literature(
        "gsil", gsil, GSILResult,
        "Todorova's general score of information loss (EBIL% + GHD% + GILCV) / 3 with its band",
        ("value", "band", "ebil_pct", "ghd_pct", "gilcv", "parts", "applicable"),
        _mixed_pair,
        description="(EBIL% + GHD% + GILCV) / 3 over the parts that apply, with its band.",
        citation="Todorova's general score of information loss",
        section="utility",
        assess="utility", compares="both", matrix="gsil (its GILCV part)",
        shows=(Shown("value", "GSIL", note="band: {band} (parts: {applicable})", quantity="score ({band})"),
               Shown("band", fmt="text"), Shown("applicable", fmt="names"), Shown("parts", fmt="map")),
    ),
    Measure(
        "interval_frequency", "", "risk", interval_frequency, IntervalFrequencyResult,
        arguments=native_arguments(interval_frequency),
        fields=dict.fromkeys(("rate", "n_unsafe", "n", "per_variable", "counts", "unsafe", "p", "threshold")),
        notes="native only (no sdcMicro counterpart). The SDC handbook's frequency rule for continuous variables: a "
              "value x of the original file is unsafe when fewer than `threshold` values of y lie in "
              "(x - p|x|, x + p|x|); x = 0 counts the zeros of y.",
        bridge=False,
        example=lambda: {"x": _loss_pair()["x"], "y": _loss_pair()["xm"], "vars": ["u", "v", "t"], "p": 0.1},
        description="the frequency rule for continuous variables: the share of original records with a value that "
                    "fewer than threshold released values lie within ±p (relative) of",
        citation="SDC handbook, measures of disclosure risk for continuous variables",
        attacker="an intruder who knows a respondent's true value of a continuous variable and looks for the released "
                 "values within ±p of it: fewer than threshold candidates single the respondent out",
        section="risk",
        assess="linkage",
        shows=(Shown("rate", "records with a value that fewer than {threshold:g} released values lie within "
                             "±{p:.0%} of", "pct"),
               Shown("n_unsafe", "records with such an unsafe value", "int"),
               Shown("n", fmt="int"), Shown("p"), Shown("threshold")),
        question=("Which true values of continuous variables have too few released values near them (the "
                  "frequency rule for continuous variables)?",
                  "`interval_frequency(x, xm, vars, p=0.2, threshold=3)` (per record and variable: released values within "
                  "±p; unsafe below threshold; `.rate`, `.per_variable`)",
                  "SDC handbook (disclosure risk for continuous variables)", "literature"),
    ),
)
