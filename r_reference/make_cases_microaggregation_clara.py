"""Case list of clara's empty medoid in sdcMicro's clustering ``microaggregation`` (issue 28, family 3).

With missing values, cluster::clara (2.1.4, ``correct.d = TRUE``) can end with a medoid of its best sample that has
no record of its own: the records at distance 0 of two medoids all go to the first. R's C code then returns medoid
0 and reads outside its data; clara's R code stops afterwards on the silhouette of that sample ("length of
'dimnames' [1] not equal to array extent"), and sdcMicro's microaggregation (methods influence and clustpca call
``clara(x, nc)``) stops with it. pysdc (pysdc/core/clara.py) stops at the empty medoid, saying why. Seen first in
the random inputs of tests/protect/test_microaggregation_clust.py's live comparison with R's cluster package.

``python3 make_cases_microaggregation_clara.py`` (from ``r_reference/``) writes ``inputs/mccl30.*`` (30 records of
two variables with values 0, 1, 2 -- many identical records at distance 0 -- and three missing values) and
``cases/microaggregation_clara.json``. Outputs: ``generate_protect_microaggregation_clara.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
F = "microaggregation_clara"


def write_inputs() -> None:
    rng = np.random.default_rng(20261130)
    x = rng.integers(0, 3, (30, 2)).astype(float)
    x[rng.choice(60, 3, replace=False) // 2, rng.choice(60, 3, replace=False) % 2] = np.nan
    _write("mccl30", [(name, "numeric", [None if np.isnan(v) else float(v) for v in x[:, j]])
                      for j, name in enumerate(("a", "b"))])


def cases() -> list:
    return [{"id": f"{F}:mccl30:{method}:nc4", "inputs": {"data": "mccl30.csv.gz"},
             "args": {"variables": ["a", "b"], "aggr": 3, "method": method, "nc": 4},
             "tags": [method, "na", "clara", "empty-medoid"]} for method in ("influence", "clustpca")]


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / f"{F}.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
