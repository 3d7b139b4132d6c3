"""Case lists of the analysts' utility checks -> cases/gini.json, cases/regression.json (+ uc_* inputs).

Run from ``r_reference/`` (``regenerate.sh`` runs every ``make_cases_*.py`` after ``make_inputs.py``)::

    python3 make_cases_utility_checks.py

* ``gini``: ``laeken::gini(inc, weights, sort, na.rm)$value`` on the demo data, its masked versions and
  the synthetic tables; small hand-made inputs (``uc_gini_small``: ties, negative incomes, zero, negative
  and missing weights, missing incomes; ``uc_gini_one``: one record; ``uc_gini_zero``: all incomes 0); and
  bootstrap cases (``uc_gini_boot``) that store laeken's naive-bootstrap ``$var``/``$ci`` for
  ``seed = 1..3`` together with the resamples R drew (``boot::boot.array``), so pysdc's bootstrap can be
  checked number for number on R's own draws.
* ``regression``: ``lm``/``glm`` on an original and a masked input: ``coef(summary(fit))``, ``confint``
  (t for lm, MASS's profile for glm) and ``confint.default`` (Wald), with ``positive`` naming a column
  restricted to values > 0 first (for ``log``); ``uc_glm_small``/``uc_glm_small_m``: a small hand-made
  frame (factor, numeric, 0/1 and count responses, weights with zeros) for glm profile intervals.

Deterministic: rerunning gives byte-identical files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pysdc.io import read_table, write_table  # noqa: E402

INPUTS = HERE / "inputs"
CASES = HERE / "cases"


def _inputs() -> None:
    """uc_* inputs: small hand-made frames (no random draws) and one derived from a stored table."""
    small = pd.DataFrame({
        "inc": [10.0, 3.0, 3.0, 7.5, 0.0, 12.25, 3.0, 40.0, 7.5, 1.0, 2.0, 19.0],
        "inc_neg": [10.0, -3.0, 3.0, 7.5, 0.0, 12.25, -3.0, 40.0, 7.5, 1.0, 2.0, 19.0],
        "inc_na": [10.0, np.nan, 3.0, 7.5, 0.0, 12.25, 3.0, np.nan, 7.5, 1.0, 2.0, 19.0],
        "w": [1.5, 2.0, 0.5, 3.0, 1.0, 2.5, 4.0, 1.0, 0.25, 2.0, 1.0, 3.5],
        "w_zero": [1.5, 0.0, 0.5, 3.0, 0.0, 2.5, 4.0, 1.0, 0.25, 0.0, 1.0, 3.5],
        "w_neg": [1.5, -2.0, 0.5, 3.0, 1.0, 2.5, 4.0, 1.0, 0.25, 2.0, 1.0, 3.5],
        "w_na": [1.5, 2.0, 0.5, np.nan, 1.0, 2.5, 4.0, 1.0, 0.25, 2.0, 1.0, 3.5],
        "id": [12.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0],
    })
    write_table(small, INPUTS / "uc_gini_small.csv.gz")
    write_table(pd.DataFrame({"inc": [42.0], "w": [3.0]}), INPUTS / "uc_gini_one.csv.gz")
    write_table(pd.DataFrame({"inc": [0.0, 0.0, 0.0], "w": [1.0, 2.0, 3.0]}), INPUTS / "uc_gini_zero.csv.gz")
    # 40 records of num200 (first 40 rows): integer-valued incomes (laeken's bootstrap truncates with
    # as.integer, so these are untouched) and the incomes as they are (2 decimals)
    n = read_table(INPUTS / "num200.csv.gz").iloc[:40]
    boot = pd.DataFrame({
        "inc_int": np.floor(n["income"].to_numpy()),
        "inc": n["income"].to_numpy(),
        "w": 1.0 + (np.arange(40) % 7) * 0.5,
    })
    write_table(boot, INPUTS / "uc_gini_boot.csv.gz")
    # a small hand-made frame for glm profile intervals: a factor, a numeric predictor, 0/1 and count
    # responses, weights with zeros; the "masked" version rounds x to a multiple of 0.5 and moves one record
    # to another group
    glm = pd.DataFrame({
        "y": [0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0],
        "g": pd.Categorical(list("aaaaaaaabbbbbbbbcccccccc"), categories=["a", "b", "c"]),
        "x": [1.5, 2.0, 0.5, 3.0, 1.0, 2.5, 4.0, 1.0, 0.25, 2.0, 1.0, 3.5, 2.2, 0.7, 1.9, 2.8,
              3.1, 0.4, 1.6, 2.9, 0.9, 3.3, 1.2, 2.4],
        "w": [1.0, 2.0, 0.0, 1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 3.0, 1.0, 2.0,
              2.0, 1.0, 1.0, 0.0, 1.0, 2.0, 1.0, 1.0],
        "cnt": [0, 2, 1, 4, 3, 0, 5, 1, 2, 3, 0, 6, 4, 1, 2, 5, 7, 1, 3, 6, 2, 8, 2, 4],
    })
    glm_m = glm.copy()
    glm_m["x"] = np.round(glm["x"].to_numpy() * 2.0) / 2.0
    glm_m["g"] = pd.Categorical(list("aaaaaaabbbbbbbbbcccccccc"), categories=["a", "b", "c"])
    # group c all successes: a separated fit (the profile of gc is flat on one side)
    glm["y_sep"] = np.where(glm["g"] == "c", 1, glm["y"])
    glm_m["y_sep"] = np.where(glm_m["g"] == "c", 1, glm_m["y"])
    write_table(glm, INPUTS / "uc_glm_small.csv.gz")
    write_table(glm_m, INPUTS / "uc_glm_small_m.csv.gz")
    # masked releases of the demo data assembled from the pieces sdcMicro masked: key variables after
    # localSuppression (k = 3), numeric variables after addNoise (50) or mdav microaggregation (3)
    demo = read_table(INPUTS / "demo.csv.gz")
    keys = read_table(INPUTS / "demo__locsupp3.csv.gz")
    for src, name in (("demo__addnoise50", "uc_demo_noise_ls"), ("demo__mdav3", "uc_demo_mdav_ls")):
        num = read_table(INPUTS / f"{src}.csv.gz")
        m = demo.copy()
        for c in keys.columns:
            m[c] = keys[c].to_numpy()
        for c in num.columns:
            m[c] = num[c].to_numpy()
        write_table(m, INPUTS / f"{name}.csv.gz")


def _g(cid, data, inc, weights=None, na_rm=False, sort=None, boot=None, tags=()):
    args = {"inc": inc, "weights": weights, "na.rm": na_rm}
    if sort is not None:
        args["sort"] = sort
    if boot is not None:
        args["boot"] = boot
    return {"id": f"gini:{cid}", "inputs": {"data": data}, "args": args, "tags": sorted(set(tags))}


def gini_cases() -> list:
    out = []
    for d in ("demo__addnoise50", "demo__mdav3", "demo__topcode", "demo__rankswap"):  # numeric columns only
        out.append(_g(f"{d}:income:unweighted", f"{d}.csv.gz", "income", None, True, tags=("demo", "na.rm")))
    for d in ("demo", "demo_masked", "uc_demo_noise_ls", "uc_demo_mdav_ls"):
        for col in ("income", "expenditure", "savings"):
            out.append(_g(f"{d}:{col}:weight", f"{d}.csv.gz", col, "weight", True, tags=("demo", "weights", "na.rm")))
        out.append(_g(f"{d}:income:unweighted", f"{d}.csv.gz", "income", None, True, tags=("demo", "na.rm")))
    out.append(_g("demo:income:weight:na-kept", "demo.csv.gz", "income", "weight", False, tags=("demo", "missing")))
    for d in ("num200", "num200__addnoise50", "num200__mdav3", "num200__rankswap", "num200__topcode", "num1000"):
        col = "v1" if d == "num1000" else "income"
        out.append(_g(f"{d}:{col}", f"{d}.csv.gz", col, None, True, tags=("synthetic",)))
        if d != "num1000":
            out.append(_g(f"{d}:{col}:w=hours", f"{d}.csv.gz", col, "hours", True, tags=("synthetic", "weights")))
    small = "uc_gini_small.csv.gz"
    out += [
        _g("small:ties", small, "inc", None, tags=("small", "ties")),
        _g("small:ties:w", small, "inc", "w", tags=("small", "ties", "weights")),
        _g("small:ties:w:sort", small, "inc", "w", sort="id", tags=("small", "ties", "weights", "sort")),
        _g("small:negative-income", small, "inc_neg", "w", tags=("small", "negative")),
        _g("small:zero-weights", small, "inc", "w_zero", tags=("small", "weights")),
        _g("small:negative-weight", small, "inc", "w_neg", tags=("small", "negative")),
        _g("small:na-weight", small, "inc", "w_na", True, tags=("small", "missing")),
        _g("small:na-income:kept", small, "inc_na", "w", False, tags=("small", "missing")),
        _g("small:na-income:removed", small, "inc_na", "w", True, tags=("small", "missing", "na.rm")),
        _g("one-record", "uc_gini_one.csv.gz", "inc", "w", tags=("small", "degenerate")),
        _g("all-zero", "uc_gini_zero.csv.gz", "inc", "w", tags=("small", "degenerate")),
    ]
    boot = "uc_gini_boot.csv.gz"
    out += [
        _g("boot:int:w", boot, "inc_int", "w", boot={"R": 50, "seeds": [1, 2, 3], "alpha": 0.05}, tags=("bootstrap",)),
        _g("boot:int:unweighted:alpha0.1", boot, "inc_int", None, boot={"R": 40, "seeds": [4], "alpha": 0.1},
           tags=("bootstrap",)),
        _g("boot:decimals:w", boot, "inc", "w", boot={"R": 50, "seeds": [5], "alpha": 0.05},
           tags=("bootstrap", "laeken-truncates")),
    ]
    return out


def _r(cid, x, xm, formula, weights=None, family="gaussian", positive=None, level=0.95, tags=()):
    args = {"formula": formula, "weights": weights, "family": family, "level": level}
    if positive is not None:
        args["positive"] = positive
    return {"id": f"regression:{cid}", "inputs": {"x": x, "xm": xm}, "args": args, "tags": sorted(set(tags))}


def regression_cases() -> list:
    mincer = "log(income) ~ age_group + sex + education"
    out = []
    for m in ("demo_masked", "uc_demo_noise_ls", "uc_demo_mdav_ls"):
        out.append(_r(f"demo:{m}:mincer:w", "demo.csv.gz", f"{m}.csv.gz", mincer, "weight", positive="income",
                      tags=("demo", "mincer", "weights", "ordered-factor")))
    out += [
        _r("demo:mincer:unweighted", "demo.csv.gz", "demo_masked.csv.gz", mincer, None, positive="income",
           tags=("demo", "mincer")),
        _r("demo:mincer:level0.9", "demo.csv.gz", "demo_masked.csv.gz", mincer, "weight", positive="income",
           level=0.9, tags=("demo", "mincer", "level")),
        _r("demo:interaction", "demo.csv.gz", "demo_masked.csv.gz",
           "log(income) ~ sex*urbrur + region + log(expenditure + 1)", "weight", positive="income",
           tags=("demo", "interaction", "call")),
        _r("demo:I-square", "demo.csv.gz", "demo_masked.csv.gz", "income ~ hhsize + I(hhsize^2) + region", "weight",
           tags=("demo", "I()")),
        _r("demo:no-intercept", "demo.csv.gz", "demo_masked.csv.gz", "log(income) ~ 0 + sex + hhsize", None,
           positive="income", tags=("demo", "no-intercept")),
        _r("num200:mincer:addnoise50", "num200.csv.gz", "num200__addnoise50.csv.gz",
           "log(income) ~ age + I(age^2) + hours", None, positive="income", tags=("synthetic", "mincer")),
        _r("num200:mincer:mdav3:w", "num200.csv.gz", "num200__mdav3.csv.gz",
           "log(income) ~ age + I(age^2) + log(hours)", "hours", positive="income", tags=("synthetic", "weights")),
        _r("mix300:factors", "mix300.csv.gz", "mix300_m.csv.gz", "income ~ score + edu + region", None,
           tags=("synthetic", "ordered-factor")),
        # glm
        _r("demo:binomial", "demo.csv.gz", "demo_masked.csv.gz", "I(savings > 0) ~ sex + urbrur + hhsize", None,
           "binomial", tags=("demo", "glm", "binomial")),
        _r("demo:binomial:w", "demo.csv.gz", "demo_masked.csv.gz", "I(savings > 0) ~ sex + urbrur + hhsize",
           "weight", "binomial", tags=("demo", "glm", "binomial", "weights")),
        _r("demo:poisson", "demo.csv.gz", "demo_masked.csv.gz", "hhsize ~ region + urbrur + sex", None, "poisson",
           tags=("demo", "glm", "poisson")),
        _r("demo:poisson:w", "demo.csv.gz", "uc_demo_noise_ls.csv.gz", "hhsize ~ region + urbrur", "weight", "poisson",
           tags=("demo", "glm", "poisson", "weights")),
        # glm: MASS's profile-likelihood confint (stored with the profile R walked), more shapes
        _r("demo:binomial:aliased", "demo.csv.gz", "demo_masked.csv.gz", "I(savings > 0) ~ hhsize + I(2 * hhsize) + sex",
           None, "binomial", tags=("demo", "glm", "binomial", "aliased")),
        _r("demo:binomial:intercept-only:w", "demo.csv.gz", "demo_masked.csv.gz", "I(savings > 0) ~ 1", "weight",
           "binomial", tags=("demo", "glm", "binomial", "weights", "intercept-only")),
        _r("demo:binomial:factor-response:w", "demo.csv.gz", "demo_masked.csv.gz",
           "sex ~ hhsize + urbrur + age_group", "weight", "binomial",
           tags=("demo", "glm", "binomial", "weights", "factor-response", "ordered-factor")),
        _r("demo:poisson:factors:w:level0.9", "demo.csv.gz", "demo_masked.csv.gz", "hhsize ~ age_group + sex + marital",
           "weight", "poisson", level=0.9, tags=("demo", "glm", "poisson", "weights", "ordered-factor", "level")),
        _r("demo:poisson:no-intercept", "demo.csv.gz", "demo_masked.csv.gz", "hhsize ~ 0 + region + sex", None,
           "poisson", tags=("demo", "glm", "poisson", "no-intercept")),
        _r("mix300:binomial:factors", "mix300.csv.gz", "mix300_m.csv.gz", "I(income > 2000) ~ score + edu + region",
           None, "binomial", tags=("synthetic", "glm", "binomial", "ordered-factor")),
        _r("small:binomial:zero-weights", "uc_glm_small.csv.gz", "uc_glm_small_m.csv.gz", "y ~ g + x", "w",
           "binomial", tags=("small", "glm", "binomial", "weights", "zero-weights")),
        _r("small:binomial:level0.99", "uc_glm_small.csv.gz", "uc_glm_small_m.csv.gz", "y ~ g + x", None,
           "binomial", level=0.99, tags=("small", "glm", "binomial", "level")),
        _r("small:binomial:separation", "uc_glm_small.csv.gz", "uc_glm_small_m.csv.gz", "y_sep ~ g + x", None,
           "binomial", tags=("small", "glm", "binomial", "separation")),
        _r("small:poisson:zero-weights", "uc_glm_small.csv.gz", "uc_glm_small_m.csv.gz", "cnt ~ g + x", "w",
           "poisson", tags=("small", "glm", "poisson", "weights", "zero-weights")),
        # R stops: log(0) in the response
        _r("error:log-zero", "demo.csv.gz", "demo_masked.csv.gz", mincer, "weight", tags=("error",)),
        _r("error:unknown-column", "demo.csv.gz", "demo_masked.csv.gz", "log(income) ~ age", "weight",
           positive="income", tags=("error",)),
    ]
    return out


def main() -> None:
    _inputs()
    CASES.mkdir(exist_ok=True)
    for name, cs in (("gini", gini_cases()), ("regression", regression_cases())):
        ids = [c["id"] for c in cs]
        assert len(ids) == len(set(ids)), "duplicate case ids"
        (CASES / f"{name}.json").write_text(json.dumps({"cases": cs}, indent=1, sort_keys=True) + "\n")
        print(f"cases/{name}.json: {len(cs)} cases")


if __name__ == "__main__":
    main()
