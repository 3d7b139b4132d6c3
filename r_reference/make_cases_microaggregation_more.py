"""Case lists of sdcMicro's ``microaggregation`` with methods ``pca``, ``rmd``, ``influence`` and ``clustpca``
(issue 28, family 3; the other methods: ``make_cases_microaggregation.py``).

``python3 make_cases_microaggregation_more.py`` (from ``r_reference/``) writes ``inputs/ma60.*`` (60 records,
four correlated continuous variables on a 1/64 grid, so R's ``read.csv`` and pandas read the same doubles;
a stratum factor) and ``cases/microaggregation_more.json``. Arguments use sdcMicro's names (``variables``,
``aggr``, ``strata_variables``, ``method``, ``measure``, ``trim``, ``nc``, ``clustermethod``, ``transf``);
``seed`` is R's ``set.seed`` before the call. Inputs also ``ma40``/``ma31`` (ties, missing values) and
``eusilc.csv.gz``. Outputs: ``generate_protect_microaggregation2.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
F = "microaggregation_more"


def write_inputs() -> None:
    rng = np.random.default_rng(20261126)
    n = 60
    z = rng.normal(size=(n, 4)) @ np.array([[1.0, 0.6, 0.3, 0.0], [0, 0.8, 0.4, 0.2], [0, 0, 0.7, 0.5],
                                            [0, 0, 0, 0.6]])
    z[:5] += np.array([6.0, -5.0, 4.0, 7.0])  # five outliers
    x = np.round((z * [10, 20, 5, 1] + [100, 50, 20, 3]) * 64) / 64
    x[41] = x[40]  # two identical records
    _write("ma60", [
        ("x1", "numeric", x[:, 0].tolist()), ("x2", "numeric", x[:, 1].tolist()),
        ("x3", "numeric", x[:, 2].tolist()), ("x4", "numeric", x[:, 3].tolist()),
        ("st", "factor", rng.choice(["e", "f"], n).tolist(), ["e", "f"]),
    ])


def case(cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"{F}:{cid}", "inputs": inputs, "args": args, "tags": tags}


ABC = ["a", "b", "c"]
X4 = ["x1", "x2", "x3", "x4"]
EU = ["hy040n", "hy050n", "eqIncome"]


def pca_cases() -> list[dict]:
    m40, m31, m60, eu = "ma40.csv.gz", "ma31.csv.gz", "ma60.csv.gz", "eusilc.csv.gz"
    out = [case(f"ma40:pca:k{k}", m40, ["pca", "ties"], variables=ABC, aggr=k, method="pca") for k in (2, 3, 4, 5)]
    out += [
        case("ma40:pca:median", m40, ["pca", "median"], variables=ABC, aggr=3, method="pca", measure="median"),
        case("ma40:pca:trim0.1", m40, ["pca", "trim"], variables=ABC, aggr=4, method="pca", measure="trim", trim=0.1),
        case("ma40:pca:trim0.2", m40, ["pca", "trim"], variables=ABC, aggr=5, method="pca", measure="trim", trim=0.2),
        case("ma40:pca:trim0", m40, ["pca", "trim"], variables=ABC, aggr=3, method="pca", measure="trim"),
        case("ma40:pca:trim0.5", m40, ["pca", "trim"], variables=ABC, aggr=4, method="pca", measure="trim", trim=0.5),
        case("ma40:pca:strata", m40, ["pca", "strata"], variables=ABC, aggr=3, method="pca", strata_variables=["t"]),
        case("ma40:pca:strata-na-small", m40, ["pca", "strata", "error"], variables=ABC, aggr=3, method="pca",
             strata_variables=["s"]),
        case("ma40:pca:k14", m40, ["pca", "large-last-group"], variables=ABC, aggr=14, method="pca"),
        case("ma40:pca:2vars", m40, ["pca", "ties"], variables=["a", "c"], aggr=3, method="pca"),
        case("ma40:pca:int", m40, ["pca", "integer"], variables=["a", "b", "c", "i"], aggr=3, method="pca"),
        case("ma40:pca:too-few", m40, ["pca", "error"], variables=ABC, aggr=25, method="pca"),
        case("ma31:pca:na", m31, ["pca", "na", "error"], variables=["u", "v", "w"], aggr=3, method="pca"),
        case("ma31:pca:m999", m31, ["pca"], variables=["w", "wm", "k"], aggr=3, method="pca"),
        case("ma60:pca:k3", m60, ["pca"], variables=X4, aggr=3, method="pca"),
        case("ma60:pca:strata", m60, ["pca", "strata"], variables=X4, aggr=4, method="pca", strata_variables=["st"],
             measure="median"),
        case("eusilc:pca:k3", eu, ["real", "pca", "ties"], variables=EU, aggr=3, method="pca"),
        case("eusilc:pca:strata", eu, ["real", "pca", "strata"], variables=EU, aggr=5, method="pca",
             strata_variables=["db040"]),
        case("eusilc:pca:trim", eu, ["real", "pca", "trim"], variables=EU, aggr=6, method="pca", measure="trim",
             trim=0.2),
    ]
    return out


def rmd_cases() -> list[dict]:
    m40, m31, m60, eu = "ma40.csv.gz", "ma31.csv.gz", "ma60.csv.gz", "eusilc.csv.gz"
    out = [case(f"ma60:rmd:k{k}", m60, ["rmd", "seeded"], variables=X4, aggr=k, method="rmd", seed=1)
           for k in (2, 3, 4, 5, 7)]
    out += [
        case("ma60:rmd:k3:seed7", m60, ["rmd", "seeded"], variables=X4, aggr=3, method="rmd", seed=7),
        case("ma60:rmd:k21", m60, ["rmd", "large-last-group"], variables=X4, aggr=21, method="rmd", seed=2),
        case("ma60:rmd:k30", m60, ["rmd", "large-last-group"], variables=X4, aggr=30, method="rmd", seed=2),
        case("ma60:rmd:k31", m60, ["rmd", "error"], variables=X4, aggr=31, method="rmd", seed=2),
        case("ma60:rmd:median-ignored", m60, ["rmd", "measure"], variables=X4, aggr=3, method="rmd",
             measure="median", seed=1),
        case("ma60:rmd:strata", m60, ["rmd", "strata"], variables=X4, aggr=3, method="rmd", strata_variables=["st"],
             seed=3),
        case("ma60:rmd:3vars", m60, ["rmd"], variables=["x1", "x2", "x3"], aggr=4, method="rmd", seed=11),
        case("ma40:rmd:k3", m40, ["rmd", "ties"], variables=ABC, aggr=3, method="rmd", seed=1),
        case("ma40:rmd:int", m40, ["rmd", "ties", "integer"], variables=["a", "b", "i"], aggr=2, method="rmd",
             seed=4),
        case("ma40:rmd:strata", m40, ["rmd", "strata", "ties"], variables=ABC, aggr=3, method="rmd",
             strata_variables=["t"], seed=5),
        case("ma40:rmd:strata-na-small", m40, ["rmd", "strata", "error"], variables=ABC, aggr=3, method="rmd",
             strata_variables=["s"], seed=1),
        case("ma31:rmd:na", m31, ["rmd", "na"], variables=["u", "v", "w"], aggr=3, method="rmd", seed=1),
        case("ma31:rmd:exact-fit", m31, ["rmd", "exact-fit"], variables=["w", "wm", "k"], aggr=3, method="rmd",
             seed=1),
        case("eusilc:rmd:k3", eu, ["real", "rmd"], variables=["eqIncome", "age"], aggr=3, method="rmd", seed=1),
    ]
    return out


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    cs = pca_cases() + rmd_cases()
    (HERE / "cases" / f"{F}.json").write_text(json.dumps({"cases": cs}, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
