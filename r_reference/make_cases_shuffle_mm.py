"""Case list of sdcMicro's ``shuffle`` with ``regmethod = "MM"`` (issue 28, family 4: MASS's ``rlm`` started from
its S-estimate ``lqs``; the other methods: ``make_cases_shuffle.py``, ``make_cases_shuffle_more.py``).

``python3 make_cases_shuffle_mm.py`` (from ``r_reference/``) writes ``cases/shuffle_mm.json``; the inputs are those
of ``make_cases_shuffle.py`` (``inputs/shuffle60.*``, ``inputs/shuffle40na.*``) and ``inputs/eusilc.csv.gz``.
Arguments as in ``make_cases_shuffle.py`` (sdcMicro's names; ``seed`` is ``set.seed`` before the call). The cases
cover both ways ``lqs`` picks its subsets: all of them (fewer than 5000: one predictor column and the intercept on
60 records) and ``min(500 p, 3000)`` drawn from R's stream (two or more predictor columns). With ``"ds2"`` and
``"mvn"`` the rlm fit decides the shuffled values themselves; with ``"ds"`` and ``"ds_cov"`` only the EGADP values.
Outputs: ``generate_protect_shuffle_mm.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"shuffle_mm:{cid}", "inputs": inputs, "args": {**args, "regmethod": "MM"}, "tags": ["MM", *tags]}


def cases() -> list[dict]:
    s60, sna, eu = "shuffle60.csv.gz", "shuffle40na.csv.gz", "eusilc.csv.gz"
    eucols = ["py010n", "eqIncome", "age", "hsize", "rb050"]
    return [
        case("ds:ab~c", s60, ["ds", "exact-subsets"], form="a + b ~ c", seed=1),
        case("ds:ab~c+k", s60, ["ds", "sampled-subsets"], form="a + b ~ c + k", seed=2),
        case("ds:aby3~c+f", s60, ["ds", "factor", "three-responses", "sampled-subsets"], form="a + b + y3 ~ c + f",
             seed=3),
        case("ds:pearson", s60, ["ds", "pearson", "exact-subsets"], form="a + y3 ~ b", covmethod="pearson", seed=4),
        case("ds2:ab~c", s60, ["ds2", "exact-subsets"], method="ds2", form="a + b ~ c", seed=5),
        case("ds2:ab~c+k", s60, ["ds2", "sampled-subsets"], method="ds2", form="a + b ~ c + k", seed=6),
        case("ds2:weights", s60, ["ds2", "weights", "sampled-subsets"], method="ds2", form="a + b ~ c + o",
             weights="w", seed=7),
        case("ds2:nogadp", s60, ["ds2", "gadp"], method="ds2", form="b + y3 ~ c", gadp=False, seed=8),
        case("mvn:ab~c", s60, ["mvn", "exact-subsets"], method="mvn", form="a + b ~ c", seed=9),
        case("mvn:aby3~c+k+o", s60, ["mvn", "ordered", "three-responses", "sampled-subsets"], method="mvn",
             form="a + b + y3 ~ c + k + o", seed=10),
        case("mvn:weights", s60, ["mvn", "weights", "sampled-subsets"], method="mvn", form="a + b ~ c + f",
             weights="w", seed=11),
        case("ds_cov:ab~c+k", s60, ["ds_cov", "sampled-subsets"], method="ds_cov", form="a + b ~ c + k", seed=12),
        case("ds:na", sna, ["ds", "na", "imputation"], form="a + b ~ c + g", seed=13),
        case("ds2:na", sna, ["ds2", "na", "imputation"], method="ds2", form="a + b ~ c", seed=14),
        case("ds:eusilc", eu, ["ds", "real", "weights", "sampled-subsets"], columns=eucols,
             form="py010n + eqIncome ~ age + hsize", weights="rb050", seed=2026),
        case("mvn:eusilc", eu, ["mvn", "real", "sampled-subsets"], columns=eucols, method="mvn",
             form="py010n + eqIncome ~ age", seed=2027),
    ]


if __name__ == "__main__":
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "shuffle_mm.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                                     encoding="utf-8")
