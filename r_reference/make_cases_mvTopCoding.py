"""Case list of sdcMicro's ``mvTopCoding`` references (issue 28, recoding).

``python3 make_cases_mvTopCoding.py`` (from ``r_reference/``) writes the small inputs and
``cases/mvTopCoding.json``: input ``data`` and ``columns``, arguments ``alpha``, ``maha`` and
``center`` (given numbers) and ``seed`` (R's ``set.seed`` before the call: covMcd's random subsets).
"""

from __future__ import annotations

import json
from pathlib import Path

from _recode_inputs import write_inputs

HERE = Path(__file__).resolve().parent


def case(cid, data, columns, tags, **args):
    return {"id": f"mvTopCoding:{cid}", "inputs": {"data": data, "columns": columns}, "args": args, "tags": tags}


def cases() -> list[dict]:
    m, eu = "mv60.csv.gz", "eusilc.csv.gz"
    maha = [30.0, 2.5, 0.25, 8.0] + [1.0] * 56
    return [
        case("mv60:2d:seed1", m, ["x1", "x2"], ["covMcd", "seeded"], seed=1),
        case("mv60:3d:seed2", m, ["x1", "x2", "x3"], ["covMcd", "seeded"], seed=2),
        case("mv60:3d:alpha0.2:seed3", m, ["x1", "x2", "x3"], ["covMcd", "seeded", "alpha"], seed=3, alpha=0.2),
        case("mv60:na:seed4", m, ["x1", "x2", "x3na"], ["covMcd", "seeded", "na"], seed=4),
        case("mv60:int:seed5", m, ["k1", "k2"], ["covMcd", "seeded", "integer", "truncation"], seed=5),
        case("mv60:maha", m, ["x1", "x2"], ["given-maha"], maha=maha, center=[5.0, 5.0]),
        case("mv60:maha-no-center", m, ["x1", "x2"], ["given-maha", "error"], maha=maha),
        case("eusilc:income2:seed1", eu, ["eqIncome", "py010n"], ["real", "covMcd", "seeded", "na"], seed=1),
        case("eusilc:hy:seed2", eu, ["hy050n", "hy090n", "eqSS"], ["real", "covMcd", "seeded"], seed=2),
    ]


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "mvTopCoding.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True)
                                                      + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
