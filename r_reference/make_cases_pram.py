"""Case lists of sdcMicro's ``pram`` references (issue 28, family 4: perturbation on R's stream).

``python3 make_cases_pram.py`` (from ``r_reference/``) writes the small inputs ``inputs/pram40.*``
(factors with missing values, an unused category, a one-category factor, strata with a missing value)
and ``inputs/pram3000.*`` (a factor of 260 categories: R's ``sample`` then uses Walker's alias
method) and ``cases/pram.json``. Arguments use sdcMicro's names (``variables``, ``strata_variables``,
``pd``, ``alpha``); ``seed`` is the ``set.seed`` before the call; ``pd_matrix`` is a transition matrix
given as rows. The real-data cases use ``inputs/eusilc.csv.gz`` with the factors' levels stored in
the case. Outputs: ``generate_protect_perturbation.R``.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
NA = None


def write_inputs() -> None:
    rng = np.random.default_rng(20261127)
    n = 40
    v = rng.choice(["a", "b", "c", "d"], n, p=[0.4, 0.3, 0.2, 0.1]).tolist()
    v[5] = NA
    v[17] = NA
    w = rng.choice(["x", "y", "z"], n).tolist()
    s = rng.choice(["s1", "s2"], n).tolist()
    s[9] = NA
    _write("pram40", [
        ("v", "factor", v, ["a", "b", "c", "d"]),
        ("w", "factor", w, ["x", "y", "z", "unused"]),
        ("one", "factor", ["k"] * n, ["k"]),
        ("s", "factor", s, ["s1", "s2"]),
        ("t", "integer", rng.integers(1, 4, n).tolist()),
        ("num", "numeric", np.round(rng.normal(0, 1, n) * 8).tolist()),
    ])
    n = 3000
    levels = [f"L{i:03d}" for i in range(260)]
    _write("pram3000", [
        ("big", "factor", rng.choice(levels, n).tolist(), levels),
        ("h", "factor", rng.choice(["p", "q"], n).tolist(), ["p", "q"]),
    ])


def case(cid, data, tags, factor=None, **args):
    inputs = {"data": data}
    if factor:
        inputs["factor"] = factor
    return {"id": f"pram:{cid}", "inputs": inputs, "args": args, "tags": tags}


def eusilc_levels() -> dict:
    with gzip.open(HERE / "inputs" / "eusilc.csv.gz", "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for c in ("db040", "rb090", "pl030", "pb220a"):
        out[c] = sorted({r[c] for r in rows if r[c] != "NA"})
    return out


def cases() -> list[dict]:
    p40, p3k, eu = "pram40.csv.gz", "pram3000.csv.gz", "eusilc.csv.gz"
    out = []
    for seed in (1, 42, 2026):
        out.append(case(f"pram40:v:s{seed}", p40, ["na", "seeded"], variables=["v"], seed=seed))
        out.append(case(f"pram40:vw:strata:s{seed}", p40, ["strata", "na-stratum", "unused-level", "seeded"],
                        variables=["v", "w"], strata_variables=["s"], seed=seed))
    out += [
        case("pram40:pd-alpha", p40, ["pd", "alpha"], variables=["v", "w"], pd=[0.6, 0.9], alpha=[0.3, 1], seed=5),
        case("pram40:alpha0", p40, ["alpha"], variables=["v"], alpha=0, seed=5),
        case("pram40:pd1", p40, ["pd"], variables=["w"], pd=1, seed=5),
        case("pram40:one-level", p40, ["one-level"], variables=["one", "v"], seed=6),
        case("pram40:strata-int", p40, ["strata", "integer-strata"], variables=["v"], strata_variables=["t"],
             seed=7),
        case("pram40:strata2", p40, ["strata"], variables=["w"], strata_variables=["s", "t"], seed=8),
        case("pram40:matrix", p40, ["matrix"], variables=["v"], seed=9,
             pd_matrix=[[0.7, 0.1, 0.1, 0.1], [0.0, 1.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.0, 0.0, 0.5, 0.5]]),
        case("pram40:not-factor", p40, ["error"], variables=["num"], seed=1),
        case("pram3000:walker", p3k, ["walker", "many-levels"], variables=["big"], pd=0.05, alpha=1, seed=10),
        case("pram3000:inversion", p3k, ["many-levels"], variables=["big", "h"], seed=11),
    ]
    lev = eusilc_levels()
    for seed in (1, 2026):
        out.append(case(f"eusilc:keys:s{seed}", eu, ["real", "seeded"], factor=lev,
                        variables=["db040", "rb090", "pl030", "pb220a"], seed=seed))
    out.append(case("eusilc:strata", eu, ["real", "strata"], factor=lev, variables=["pl030", "pb220a"],
                    strata_variables=["db040", "rb090"], pd=0.7, alpha=0.6, seed=3))
    return out


if __name__ == "__main__":
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "pram.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
