"""Case list of sdcMicro's ``rankSwap`` references (issue 28, family 4).

``python3 make_cases_rankSwap.py`` (from ``r_reference/``) writes ``inputs/rankswap200.*`` (three numeric
variables, one with ties), ``inputs/rankswap_na300.*`` (missing values and ties) and ``cases/rankSwap.json``.
Arguments use sdcMicro's names (``variables``, ``TopPercent``, ``BottomPercent``, ``R0``, ``P``) and ``seed`` is
rankSwap's own seed argument (its C++ generator, not set.seed). Outputs: ``generate_protect_rankswap.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent


def write_inputs() -> None:
    rng = np.random.default_rng(20261126)
    n = 200
    _write("rankswap200", [
        ("a", "numeric", np.round(rng.lognormal(8, 1, n), 2).tolist()),
        ("b", "numeric", np.round(rng.normal(100, 15, n), 3).tolist()),
        ("t", "numeric", rng.integers(0, 12, n).astype(float).tolist()),
    ])
    # missing values (NA) and many ties, for the exact comparison (pysdc reproduces sdcMicro's generator)
    rng = np.random.default_rng(20261125)
    n = 300
    x = np.round(rng.normal(50, 10, n), 1)
    k = rng.integers(0, 15, n).astype(float)
    lg = np.round(rng.lognormal(6, 1.5, n), 2)
    x[rng.random(n) < 0.08] = np.nan
    k[rng.random(n) < 0.05] = np.nan
    _write("rankswap_na300", [
        ("x", "numeric", [None if np.isnan(v) else float(v) for v in x]),
        ("k", "numeric", [None if np.isnan(v) else float(v) for v in k]),
        ("l", "numeric", lg.tolist()),
    ])


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"rankSwap:{cid}", "inputs": inputs, "args": args, "tags": tags}


def cases() -> list[dict]:
    r2, eu, na = "rankswap200.csv.gz", "eusilc.csv.gz", "rankswap_na300.csv.gz"
    return [
        case("rankswap200:default:s1", r2, ["default"], variables=["a", "b", "t"], seed=1),
        case("rankswap200:default:s2", r2, ["default"], variables=["a", "b", "t"], seed=2),
        case("rankswap200:R0.99", r2, ["R0"], variables=["a", "b"], R0=0.99, seed=3),
        case("rankswap200:R0.8", r2, ["R0"], variables=["a", "b"], R0=0.8, seed=4),
        case("rankswap200:top10-bottom2", r2, ["top-bottom"], variables=["a"], TopPercent=10, BottomPercent=2,
             seed=5),
        case("eusilc:eqIncome", eu, ["real", "default"], columns=["eqIncome", "age"], variables=["eqIncome"],
             seed=2026),
        # missing values, ties, P (sdcMicro's fraction of the records), small and large seeds, both extreme groups
        # empty (defined in sdcMicro; one empty group alone is not, so no case has it)
        case("rankswap_na300:default:s0", na, ["default", "na"], variables=["x", "k", "l"], seed=0),
        case("rankswap_na300:P0.05", na, ["P", "na"], variables=["x", "k", "l"], P=0.05, seed=17),
        case("rankswap_na300:P1", na, ["P", "na"], variables=["k", "x"], P=1, seed=18),
        case("rankswap_na300:R0.5:top2.5-bottom7", na, ["R0", "top-bottom", "na"], variables=["l", "x"], R0=0.5,
             TopPercent=2.5, BottomPercent=7, seed=2147483647),
        case("rankswap_na300:no-extremes", na, ["top-bottom", "na"], variables=["x", "l"], TopPercent=0,
             BottomPercent=0, seed=5),
        case("eusilc:eqIncome:P0.02", eu, ["real", "P"], columns=["eqIncome", "age"], variables=["eqIncome", "age"],
             P=0.02, seed=7),
    ]


if __name__ == "__main__":
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "rankSwap.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                                  encoding="utf-8")
