"""Case list of sdcMicro's ``topBotCoding`` references (issue 28, recoding).

``python3 make_cases_topBotCoding.py`` (from ``r_reference/``) writes the small inputs and
``cases/topBotCoding.json``: input ``data``, arguments ``column``, ``value``, ``replacement`` (JSON
integers are R integers, JSON decimals doubles, null is NA), ``kind``.
"""

from __future__ import annotations

import json
from pathlib import Path

from _recode_inputs import write_inputs

HERE = Path(__file__).resolve().parent


def case(cid, data, tags, **args):
    return {"id": f"topBotCoding:{cid}", "inputs": {"data": data}, "args": args, "tags": tags}


def cases() -> list[dict]:
    e, eu = "recode12.csv.gz", "eusilc.csv.gz"
    return [
        case("edge:v:top", e, ["top", "on-limit", "na"], column="v", value=20.0, replacement=20.0, kind="top"),
        case("edge:v:bottom", e, ["bottom"], column="v", value=0.0, replacement=0.0, kind="bottom"),
        case("edge:v:top-na", e, ["top", "na-replacement"], column="v", value=10.0, replacement=None, kind="top"),
        case("edge:v:value-na", e, ["na-value"], column="v", value=None, replacement=1.0, kind="top"),
        case("edge:v:default-kind", e, ["default"], column="v", value=100.0, replacement=99.5),
        case("edge:i:int-replacement", e, ["integer"], column="i", value=20, replacement=20, kind="top"),
        case("edge:i:double-replacement", e, ["integer", "to-double"], column="i", value=20, replacement=20.5,
             kind="top"),
        case("edge:i:na-replacement", e, ["integer", "na-replacement"], column="i", value=3, replacement=None,
             kind="bottom"),
        case("edge:vinf:top", e, ["inf"], column="vinf", value=10.0, replacement=10.0, kind="top"),
        case("edge:f:factor", e, ["factor", "error"], column="f", value=1.0, replacement=1.0, kind="top"),
        case("edge:ch:character", e, ["character", "error"], column="ch", value=1.0, replacement=1.0, kind="top"),
        case("eusilc:py010n:top", eu, ["real", "top", "na"], column="py010n", value=100000.0,
             replacement=100000.0, kind="top"),
        case("eusilc:age:top-int", eu, ["real", "top", "integer"], column="age", value=80, replacement=80,
             kind="top"),
        case("eusilc:age:bottom-double", eu, ["real", "bottom", "integer", "to-double"], column="age",
             value=18, replacement=17.5, kind="bottom"),
        case("eusilc:eqIncome:bottom", eu, ["real", "bottom"], column="eqIncome", value=5000.0,
             replacement=5000.0, kind="bottom"),
    ]


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "topBotCoding.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True)
                                                       + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
