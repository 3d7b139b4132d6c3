"""Case list of sdcMicro's ``shuffle`` with the methods other than ``"ds"`` and with ``covmethod = "mcd"``
(issue 28, family 4; ``"ds"``: ``make_cases_shuffle.py``; more ``regmethod = "MM"``: ``make_cases_shuffle_mm.py``).

``python3 make_cases_shuffle_more.py`` (from ``r_reference/``) writes ``cases/shuffle_more.json``; the inputs are
those of ``make_cases_shuffle.py`` (``inputs/shuffle60.*``, ``inputs/shuffle40na.*``) and ``inputs/eusilc.csv.gz``.
Arguments as in ``make_cases_shuffle.py`` (sdcMicro's names; ``seed`` is ``set.seed`` before the call). A case
with ``"native": "refused"`` is one that pysdc refuses natively (saying why) and runs only through the bridge.
Outputs: ``generate_protect_shuffle2.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def case(cid, data, tags, columns=None, native=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    out = {"id": f"shuffle_more:{cid}", "inputs": inputs, "args": args, "tags": tags}
    if native:
        out["native"] = native
    return out


def cases() -> list[dict]:
    s60, sna, eu = "shuffle60.csv.gz", "shuffle40na.csv.gz", "eusilc.csv.gz"
    eucols = ["py010n", "eqIncome", "age", "hsize", "rb050"]
    out = []
    # mvn
    for seed in (1, 42):
        out.append(case(f"mvn:ab~c+f:s{seed}", s60, ["mvn", "seeded", "factor"], method="mvn", form="a + b ~ c + f", seed=seed))
    out += [
        case("mvn:aby3~c+k+o", s60, ["mvn", "ordered", "three-responses", "ties"], method="mvn", form="a + b + y3 ~ c + k + o", seed=7),
        case("mvn:pearson", s60, ["mvn", "pearson"], method="mvn", form="a + b ~ c + k", covmethod="pearson", seed=5),
        case("mvn:weights", s60, ["mvn", "weights"], method="mvn", form="a + b ~ c + f", weights="w", seed=8),
        case("mvn:nogadp", s60, ["mvn", "gadp"], method="mvn", form="a + y3 ~ c", gadp=False, seed=6),
        case("mvn:na", sna, ["mvn", "na", "imputation"], method="mvn", form="a + b ~ c + g", seed=9),
        case("mvn:ties-response", s60, ["mvn", "ties"], method="mvn", form="a + k ~ c + b", seed=12),
        case(
            "mvn:eusilc",
            eu,
            ["mvn", "real", "weights"],
            columns=eucols,
            method="mvn",
            form="py010n + eqIncome ~ age + hsize",
            weights="rb050",
            seed=2026,
        ),
    ]
    # mlm: sdcMicro 5.8.0 stops in every case (predict(lm, <matrix>): "'data' must be a data.frame, not a matrix
    # or an array"); the cases pin that
    out += [
        case("mlm:ab~c+b", s60, ["mlm", "error"], method="mlm", form="a + y3 ~ c + b", seed=1),
        case("mlm:aby3~c+k+f", s60, ["mlm", "factor", "three-responses", "error"], method="mlm", form="a + b + y3 ~ c + k + f", seed=2),
        case("mlm:weights", s60, ["mlm", "weights", "error"], method="mlm", form="a + b ~ c + o", weights="w", seed=3),
        case("mlm:nogadp", s60, ["mlm", "gadp", "error"], method="mlm", form="a + b ~ c", gadp=False, seed=4),
        case("mlm:na", sna, ["mlm", "na", "imputation", "error"], method="mlm", form="a + b ~ c + g", seed=9),
        case("mlm:factor-only", s60, ["mlm", "ties", "error"], method="mlm", form="a + b ~ f", seed=5),
        case("mlm:eusilc", eu, ["mlm", "real", "error"], columns=eucols, method="mlm", form="py010n + eqIncome ~ age + hsize", seed=2026),
    ]
    # ds2
    for seed in (1, 42):
        out.append(case(f"ds2:ab~c+f:s{seed}", s60, ["ds2", "seeded", "factor"], method="ds2", form="a + b ~ c + f", seed=seed))
    out += [
        case("ds2:aby3~c+k+o", s60, ["ds2", "ordered", "three-responses", "ties"], method="ds2", form="a + b + y3 ~ c + k + o", seed=7),
        case("ds2:pearson", s60, ["ds2", "pearson"], method="ds2", form="a + b ~ c + k", covmethod="pearson", seed=5),
        case("ds2:weights", s60, ["ds2", "weights"], method="ds2", form="a + b ~ c + f", weights="w", seed=8),
        case("ds2:na", sna, ["ds2", "na", "imputation"], method="ds2", form="a + b ~ c + g", seed=9),
        case("ds2:mcd", s60, ["ds2", "mcd", "error"], method="ds2", form="a + b ~ c", covmethod="mcd", seed=3),
        case("ds2:eusilc", eu, ["ds2", "real"], columns=eucols, method="ds2", form="py010n + eqIncome ~ age + hsize", seed=2026),
    ]
    # ds_cov
    for seed in (1, 42):
        out.append(case(f"ds_cov:ab~c+f:s{seed}", s60, ["ds_cov", "seeded", "factor"], method="ds_cov", form="a + b ~ c + f", seed=seed))
    out += [
        case(
            "ds_cov:aby3~c+k+o",
            s60,
            ["ds_cov", "ordered", "three-responses", "ties"],
            method="ds_cov",
            form="a + b + y3 ~ c + k + o",
            seed=7,
        ),
        case("ds_cov:pearson", s60, ["ds_cov", "pearson"], method="ds_cov", form="a + b ~ c + k", covmethod="pearson", seed=5),
        case("ds_cov:weights", s60, ["ds_cov", "weights"], method="ds_cov", form="a + b ~ c + f", weights="w", seed=8),
        case("ds_cov:na", sna, ["ds_cov", "na", "imputation"], method="ds_cov", form="a + b ~ c + g", seed=9),
        case("ds_cov:eusilc", eu, ["ds_cov", "real"], columns=eucols, method="ds_cov", form="py010n + eqIncome ~ age + hsize", seed=2026),
    ]
    # covmethod = "mcd" (continuous predictors: covMcd of factor dummies is an exact fit): bridge only in pysdc
    # (its covMcd replica agrees to rounding, not to the bit, and the shuffle can hinge on the sign LAPACK gives
    # an eigenvector of a matrix built from it)
    out += [
        case("ds:mcd:ab~c+b", s60, ["ds", "mcd", "bridge-only"], native="refused", form="a + y3 ~ c + b", covmethod="mcd", seed=1),
        case(
            "ds:mcd:aby3~c",
            s60,
            ["ds", "mcd", "three-responses", "bridge-only"],
            native="refused",
            form="a + b + y3 ~ c",
            covmethod="mcd",
            seed=42,
        ),
        case(
            "ds:mcd:weights",
            s60,
            ["ds", "mcd", "weights", "bridge-only"],
            native="refused",
            form="a + b ~ c",
            covmethod="mcd",
            weights="w",
            seed=8,
        ),
        case(
            "ds:mcd:nogadp",
            s60,
            ["ds", "mcd", "gadp", "bridge-only"],
            native="refused",
            form="a + b ~ c",
            covmethod="mcd",
            gadp=False,
            seed=6,
        ),
        case("mvn:mcd", s60, ["mvn", "mcd", "bridge-only"], native="refused", method="mvn", form="a + b ~ c", covmethod="mcd", seed=2),
        case(
            "ds_cov:mcd",
            s60,
            ["ds_cov", "mcd", "bridge-only"],
            native="refused",
            method="ds_cov",
            form="a + b ~ c",
            covmethod="mcd",
            seed=4,
        ),
        case("mlm:mcd", s60, ["mlm", "mcd", "error"], method="mlm", form="a + b ~ c", covmethod="mcd", seed=5),
        case(
            "ds:mcd:eusilc",
            eu,
            ["ds", "mcd", "real", "bridge-only"],
            native="refused",
            columns=eucols,
            form="py010n + eqIncome ~ age",
            covmethod="mcd",
            seed=2026,
        ),
        case("ds:mcd:factor", s60, ["ds", "mcd", "factor", "error", "bridge-only"], form="a + b ~ c + f", covmethod="mcd", seed=7),
    ]
    # regmethod = "MM" (native; more cases in make_cases_shuffle_mm.py)
    out += [
        case("ds:MM", s60, ["ds", "MM"], form="a + b ~ c + k", regmethod="MM", seed=1),
    ]
    return out


if __name__ == "__main__":
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "shuffle_more.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
