"""Case lists of sdcMicro's ``addNoise`` references (issue 28, family 4: perturbation on R's stream).

``python3 make_cases_addNoise.py`` (from ``r_reference/``) writes the small input ``inputs/noise30.*``
(numeric columns with missing values, an integer column, an outlier, a column with one value only
in a few records) and ``cases/addNoise.json``. Arguments use sdcMicro's names (``variables``,
``noise``, ``method``, ``delta``, ``p``); ``seed`` is the ``set.seed`` before the call. The real-data cases
use ``inputs/eusilc.csv.gz`` (py010n with 2720 missing values). Outputs:
``generate_protect_perturbation.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent


def write_inputs() -> None:
    rng = np.random.default_rng(20261126)
    n = 30
    a = np.round(rng.normal(50, 10, n) * 4) / 4
    b = np.round(rng.lognormal(5, 1, n))
    c = np.round(rng.normal(0, 1, n) * 64) / 64
    a[7] = 400.0  # an outlier
    av = [None if i in (3, 12) else float(x) for i, x in enumerate(a)]
    bv = [None if i in (12, 20) else float(x) for i, x in enumerate(b)]
    _write("noise30", [
        ("a", "numeric", av), ("b", "numeric", bv), ("c", "numeric", c.tolist()),
        ("i", "integer", rng.integers(0, 100, n).tolist()),
        ("g", "factor", rng.choice(["m", "n"], n).tolist(), ["m", "n"]),
    ])


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"addNoise:{cid}", "inputs": inputs, "args": args, "tags": tags}


EU = ["py010n", "hy040n", "hy050n", "eqIncome"]


def cases() -> list[dict]:
    n30, eu = "noise30.csv.gz", "eusilc.csv.gz"
    out = []
    for seed in (1, 42, 2026):
        for m in ("additive", "correlated", "correlated2", "restr", "outdect", "ROMM"):
            out.append(case(f"noise30:{m}:s{seed}", n30, [m, "na", "seeded"], variables=["a", "b", "c", "i"],
                            method=m, seed=seed))
    out += [
        case("noise30:additive:noise50", n30, ["additive", "noise"], variables=["a", "c"], noise=50, seed=7),
        case("noise30:additive:one", n30, ["additive", "one-variable"], variables=["c"], noise=10, seed=7),
        case("noise30:additive:default", n30, ["additive", "default"], columns=["a", "b", "c"], seed=3),
        case("noise30:correlated:noise20", n30, ["correlated"], variables=["a", "c"], noise=20, seed=8),
        case("noise30:correlated:one", n30, ["correlated", "error"], variables=["a"], seed=8),
        case("noise30:correlated2:delta0.5", n30, ["correlated2", "delta"], variables=["a", "b"], delta=0.5,
             seed=9),
        case("noise30:correlated2:delta1", n30, ["correlated2", "delta"], variables=["c"], delta=1, seed=9),
        case("noise30:restr:noise10", n30, ["restr", "noise"], variables=["a", "b", "c"], noise=10, seed=1),
        case("noise30:restr:one", n30, ["restr", "one-variable"], variables=["a"], seed=1),
        case("noise30:outdect:noise500", n30, ["outdect"], variables=["a", "c"], noise=500, seed=11),
        case("noise30:ROMM:p0.2", n30, ["ROMM", "p"], variables=["b", "c"], method="ROMM", p=0.2, seed=12),
        case("noise30:factor", n30, ["error", "factor"], variables=["a", "g"], seed=1),
    ]
    for seed in (1, 2026):
        for m in ("additive", "correlated", "correlated2", "restr"):
            out.append(case(f"eusilc:{m}:s{seed}", eu, ["real", m, "na", "seeded"], variables=EU, method=m,
                            seed=seed))
    out.append(case("eusilc:outdect", eu, ["real", "outdect", "mcd", "na"], variables=["py010n", "eqIncome"],
                    method="outdect", seed=5))
    return out


if __name__ == "__main__":
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "addNoise.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
