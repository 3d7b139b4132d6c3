"""Case list of sdcMicro's ``globalRecode`` references (issue 28, recoding).

Run from ``r_reference/`` (``regenerate.sh`` runs it)::

    python3 make_cases_globalRecode.py

Writes the small inputs (``_recode_inputs.py``) and ``cases/globalRecode.json``: each case names its
input ``data`` and sdcMicro's arguments ``column``, ``breaks`` (a number or cut points; ``"Inf"``,
``"-Inf"`` as strings), ``labels`` (absent: NULL; ``false``; or a list), ``method`` and, for R's
``set.seed`` before the call, ``seed``. ``generate_protect_recode.R`` runs them. Deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

from _recode_inputs import write_inputs

HERE = Path(__file__).resolve().parent
INF, NINF = "Inf", "-Inf"


def case(cid, data, tags, **args):
    return {"id": f"globalRecode:{cid}", "inputs": {"data": data}, "args": args, "tags": tags}


def cases() -> list[dict]:
    e, eu = "recode12.csv.gz", "eusilc.csv.gz"
    out = [
        case("edge:v:cuts-inf", e, ["cuts", "on-break", "na"], column="v", breaks=[0, 10, 50000, INF]),
        case("edge:v:cuts-both-inf", e, ["cuts", "label-space"], column="v", breaks=[NINF, 0, 10, 50000, INF]),
        case("edge:v:cuts-unsorted", e, ["cuts", "unsorted"], column="v", breaks=[50000, 0, 10, 1e6]),
        case("edge:v:labels-text", e, ["labels"], column="v", breaks=[0, 10, 50000, INF], labels=["lo", "mid", "hi"]),
        case("edge:v:labels-false", e, ["labels", "codes"], column="v", breaks=[0, 10, 50000, INF], labels=False),
        case("edge:v:labels-int", e, ["labels"], column="v", breaks=[0, 10, 50000, INF], labels=[1, 2, 3]),
        case("edge:v:labels-dup", e, ["labels", "merge"], column="v", breaks=[NINF, 0, 10, 50000, INF],
             labels=["a", "b", "a", "c"]),
        case("edge:v:labels-length", e, ["labels", "error"], column="v", breaks=[0, 10, 50000], labels=["x"]),
        case("edge:v:cuts-dup", e, ["error"], column="v", breaks=[0, 10, 10, 50]),
        case("edge:v:cuts-decimal", e, ["cuts", "digits"], column="v", breaks=[-0.25, 0.125, 10.0625, 1e6 + 0.5]),
        case("edge:v:cuts-12digits", e, ["cuts", "digits"], column="v", breaks=[0, 10, 10.000000001, 1e7]),
        case("edge:v:cuts-range", e, ["cuts", "digits", "range-labels"], column="v",
             breaks=[0, 10, 10.0000000000001, 1e7]),
        case("edge:v:cuts-tiny", e, ["cuts", "digits"], column="v", breaks=[-1e-12, 1e-9, 0.5, 1e15]),
        case("edge:v:n3", e, ["number", "equidistant", "include-lowest"], column="v", breaks=3),
        case("edge:v:n1-na", e, ["number", "error"], column="v", breaks=1),
        case("edge:ic:n1", e, ["number", "one"], column="ic", breaks=1),
        case("edge:ic:n2.5", e, ["number", "round-half-even"], column="ic", breaks=2.5),
        case("edge:ic:n3.5", e, ["number", "round-half-even"], column="ic", breaks=3.5),
        case("edge:ic:n0.4", e, ["number", "error"], column="ic", breaks=0.4),
        case("edge:ic:n20", e, ["number", "unrounded"], column="ic", breaks=20),
        case("edge:i:n4", e, ["number", "integer", "na"], column="i", breaks=4),
        case("edge:i:n4-labels", e, ["number", "labels"], column="i", breaks=4, labels=["q1", "q2", "q3", "q4"]),
        case("edge:pos:logEqui4", e, ["logEqui"], column="pos", breaks=4, method="logEqui"),
        case("edge:pos:logEqui40", e, ["logEqui", "unrounded"], column="pos", breaks=40, method="logEqui"),
        case("edge:neg:logEqui3", e, ["logEqui", "negative"], column="neg", breaks=3, method="logEqui"),
        case("edge:z:logEqui3", e, ["logEqui", "zero", "error"], column="z", breaks=3, method="logEqui"),
        case("edge:pos:equalAmount4", e, ["equalAmount"], column="pos", breaks=4, method="equalAmount"),
        case("edge:i:equalAmount3", e, ["equalAmount", "na"], column="i", breaks=3, method="equalAmount"),
        case("edge:tie:equalAmount4:seed1", e, ["equalAmount", "jitter", "seeded"], column="tie", breaks=4,
             method="equalAmount", seed=1),
        case("edge:tie:equalAmount3:seed42", e, ["equalAmount", "jitter", "seeded"], column="tie", breaks=3,
             method="equalAmount", seed=42),
        case("edge:vinf:n3", e, ["number", "inf", "error"], column="vinf", breaks=3),
        case("edge:vinf:cuts", e, ["cuts", "inf"], column="vinf", breaks=[NINF, 5, INF]),
        case("edge:f:factor", e, ["factor", "error"], column="f", breaks=[0, 1, 2]),
        case("edge:ch:character", e, ["character", "error"], column="ch", breaks=2),
        # real data: laeken's eusilc (14,827 persons)
        case("eusilc:py010n:cuts", eu, ["real", "cuts", "na"], column="py010n", breaks=[0, 10000, 50000, INF]),
        case("eusilc:py010n:cuts101", eu, ["real", "cuts", "many"], column="py010n",
             breaks=[float(b) for b in range(0, 100001, 1000)]),
        case("eusilc:eqIncome:n10", eu, ["real", "number", "equidistant"], column="eqIncome", breaks=10),
        case("eusilc:eqIncome:equalAmount5", eu, ["real", "equalAmount"], column="eqIncome", breaks=5,
             method="equalAmount"),
        case("eusilc:eqIncome:logEqui6", eu, ["real", "logEqui", "zero", "error"], column="eqIncome", breaks=6,
             method="logEqui"),
        case("eusilc:hy040n:equalAmount4:seed7", eu, ["real", "equalAmount", "jitter", "seeded"], column="hy040n",
             breaks=4, method="equalAmount", seed=7),
        case("eusilc:age:cuts-both-inf", eu, ["real", "cuts", "label-space", "integer"], column="age",
             breaks=[NINF, 15, 30, 45, 65, INF]),
        case("eusilc:age:labels", eu, ["real", "labels", "integer"], column="age",
             breaks=[-1, 17, 64, 97], labels=["child", "adult", "senior"]),
    ]
    return out


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    doc = {"cases": cases()}
    (HERE / "cases" / "globalRecode.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n",
                                                       encoding="utf-8")


if __name__ == "__main__":
    main()
