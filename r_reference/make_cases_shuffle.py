"""Case list of sdcMicro's ``shuffle`` references (issue 28, family 4: perturbation on R's stream).

``python3 make_cases_shuffle.py`` (from ``r_reference/``) writes the small inputs ``inputs/shuffle60.*``
(two skewed, correlated responses and a third numeric one; numeric, factor and ordered-factor predictors),
``inputs/shuffle40na.*`` (missing values in a response, a predictor and a column outside the formula: sdcMicro
imputes them from R's stream first) and ``cases/shuffle.json``. Arguments use sdcMicro's names (``form`` as
formula text, ``method``, ``covmethod``, ``regmethod``, ``gadp``, ``weights`` as a column name of the input);
``seed`` is the ``set.seed`` before the call. The real-data cases use ``inputs/eusilc.csv.gz``. Outputs:
``generate_protect_shuffle.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
NA = None


def write_inputs() -> None:
    rng = np.random.default_rng(20261125)
    n = 60
    a = np.round(rng.lognormal(3, 1, n), 2)
    b = np.round(rng.normal(50, 10, n) + 0.3 * a, 3)
    c = np.round(rng.normal(0, 1, n), 4)
    y3 = np.round(rng.gamma(2, 100, n) + 2 * c, 1)
    _write("shuffle60", [
        ("a", "numeric", a.tolist()),
        ("b", "numeric", b.tolist()),
        ("y3", "numeric", y3.tolist()),
        ("c", "numeric", c.tolist()),
        ("k", "integer", rng.integers(1, 6, n).tolist()),
        ("f", "factor", rng.choice(["x", "y", "z"], n).tolist(), ["x", "y", "z"]),
        ("o", "ordered", rng.choice(["lo", "mid", "hi"], n).tolist(), ["lo", "mid", "hi"]),
        ("w", "numeric", np.round(rng.uniform(1, 20, n), 2).tolist()),
    ])
    n = 40
    a = np.round(rng.lognormal(2, 0.8, n), 2).tolist()
    b = np.round(rng.normal(10, 3, n), 3).tolist()
    c = np.round(rng.normal(0, 1, n), 4).tolist()
    g = rng.choice(["p", "q"], n).tolist()
    z = np.round(rng.normal(0, 1, n), 2).tolist()
    a[3] = NA
    a[20] = NA
    c[7] = NA
    z[0] = NA
    z[11] = NA
    _write("shuffle40na", [
        ("z", "numeric", z),
        ("a", "numeric", a),
        ("b", "numeric", b),
        ("c", "numeric", c),
        ("g", "factor", g, ["p", "q"]),
    ])


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"shuffle:{cid}", "inputs": inputs, "args": args, "tags": tags}


def cases() -> list[dict]:
    s60, sna, eu = "shuffle60.csv.gz", "shuffle40na.csv.gz", "eusilc.csv.gz"
    out = []
    for seed in (1, 42, 2026):
        out.append(case(f"shuffle60:ab~c+f:s{seed}", s60, ["seeded", "factor"], form="a + b ~ c + f", seed=seed))
    out += [
        case("shuffle60:aby3~c+k+o", s60, ["ordered", "three-responses"], form="a + b + y3 ~ c + k + o", seed=7),
        case("shuffle60:ab~c", s60, ["one-predictor"], form="a + b ~ c", seed=3),
        case("shuffle60:ab~c*f", s60, ["interaction"], form="a + b ~ c * f", seed=4),
        case("shuffle60:pearson", s60, ["pearson"], form="a + b ~ c + k", covmethod="pearson", seed=5),
        case("shuffle60:nogadp", s60, ["gadp"], form="a + y3 ~ c + f", gadp=False, seed=6),
        case("shuffle60:weights", s60, ["weights"], form="a + b ~ c + f", weights="w", seed=8),
        case("shuffle40na:ab~c+g", sna, ["na", "imputation"], form="a + b ~ c + g", seed=9),
        case("shuffle60:one-response", s60, ["error"], form="a ~ c", seed=1),
        case("eusilc:income", eu, ["real"], columns=["py010n", "eqIncome", "age", "hsize"],
             form="py010n + eqIncome ~ age + hsize", seed=2026),
    ]
    return out


if __name__ == "__main__":
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "shuffle.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                                 encoding="utf-8")
