"""Case list of sdcMicro's ``rankSwap`` references (issue 28, family 4).

``python3 make_cases_rankSwap.py`` (from ``r_reference/``) writes ``inputs/rankswap200.*`` (three numeric
variables, one with ties) and ``cases/rankSwap.json``. Arguments use sdcMicro's names (``variables``,
``TopPercent``, ``BottomPercent``, ``R0``, ``P``) and ``seed`` is rankSwap's own seed argument (its C++
generator, not set.seed). Outputs: ``generate_protect_rankswap.R``.
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


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"rankSwap:{cid}", "inputs": inputs, "args": args, "tags": tags}


def cases() -> list[dict]:
    r2, eu = "rankswap200.csv.gz", "eusilc.csv.gz"
    return [
        case("rankswap200:default:s1", r2, ["default"], variables=["a", "b", "t"], seed=1),
        case("rankswap200:default:s2", r2, ["default"], variables=["a", "b", "t"], seed=2),
        case("rankswap200:R0.99", r2, ["R0"], variables=["a", "b"], R0=0.99, seed=3),
        case("rankswap200:R0.8", r2, ["R0"], variables=["a", "b"], R0=0.8, seed=4),
        case("rankswap200:top10-bottom2", r2, ["top-bottom"], variables=["a"], TopPercent=10, BottomPercent=2,
             seed=5),
        case("eusilc:eqIncome", eu, ["real", "default"], columns=["eqIncome", "age"], variables=["eqIncome"],
             seed=2026),
    ]


if __name__ == "__main__":
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "rankSwap.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                                  encoding="utf-8")
