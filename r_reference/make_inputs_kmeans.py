"""The stored inputs of ``generate_kmeans.R`` (R's ``stats::kmeans``, the reference of ``pysdc.core.kmeans``).

Run from ``r_reference/``::

    python3 make_inputs_kmeans.py

Writes ``inputs/kmeans/<name>.csv`` (no header, doubles as ``%.17g``, which round-trips exactly; ``NaN``) and
``cases/kmeans.json`` (one case per line of the table below: input, k, seed of ``set.seed``, ``iter.max``).
The data are drawn with a fixed NumPy seed; R never draws inputs, it reads these files. Deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "inputs" / "kmeans"
SEED = 20261125


def _write(name: str, x: np.ndarray) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    lines = [",".join("NaN" if np.isnan(v) else f"{v:.17g}" for v in row) for row in np.atleast_2d(x)]
    (OUT / f"{name}.csv").write_text("\n".join(lines) + "\n")


def main() -> None:
    rs = np.random.default_rng(SEED)
    data = {
        "clustered": rs.normal(size=(400, 3)) + rs.integers(0, 4, size=(400, 1)) * 2.5,
        "uniform": rs.uniform(size=(500, 2)),
        "uniform4": rs.uniform(size=(1500, 4)),
        "ties": rs.integers(0, 4, size=(300, 2)).astype(float),
        "dupl": rs.normal(size=(25, 3))[rs.integers(0, 25, size=250)],
        "skewed": np.round(rs.lognormal(size=(350, 3)) * 1000.0),
        "onevar": rs.normal(size=(200, 1)) * 10.0,
        "noconv": rs.uniform(size=(3000, 2)),
        # three distinct rows, five times each: fewer distinct rows than centres for k = 4
        "three": np.repeat(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), 5, axis=0),
        "small6": rs.normal(size=(6, 2)),
        "withnan": np.where(np.arange(60).reshape(30, 2) == 7, np.nan, rs.normal(size=(30, 2))),
        # 0.1 + 0.2 and 0.3 differ in the last bit (distinct for R's duplicated), -0 and 0 are equal
        "digits": np.array([[0.1 + 0.2, 1.0], [0.3, 1.0], [2.0, 5.0], [7.0, 1.0], [0.3, 1.0], [0.0, 3.0],
                            [-0.0, 3.0]] * 3),
        # squared distances that underflow: two centres at distance 0 from each other (an empty cluster)
        "underflow": np.array([[1e-200, 0.0], [0.0, 0.0], [0.0, 1e-200], [5.0, 5.0]]),
        # records a few ulps apart: the quick-transfer stage may cycle (R's ifault 4)
        "nearly": 1.0 + rs.integers(0, 4, size=(58, 2)) * 2.0**-50 + rs.normal(size=(58, 2)) * 1e-17,
    }
    for name, x in data.items():
        _write(name, x)
    cases = []
    for name, ks, seeds, it in [
        ("clustered", (2, 3, 4, 5, 8), (1, 2, 3), 10),
        ("uniform", (2, 3, 6, 8), (4, 5), 10),
        ("uniform4", (3, 7, 10), (6,), 10),
        ("ties", (2, 3, 4, 5, 6, 7, 8), (7, 8, 9), 10),
        ("dupl", (2, 4, 6, 8), (10, 11, 12), 10),
        ("skewed", (2, 3, 5, 8), (13, 14), 10),
        ("onevar", (1, 2, 3, 5), (15,), 10),
        ("noconv", (10,), (1, 2), 1),
        ("noconv", (10,), (1, 2), 2),
        ("three", (3, 4), (1, 2, 3), 10),
        ("small6", (5, 6, 7), (1,), 10),
        ("withnan", (3,), (1,), 10),
        ("digits", (3, 4), (1, 2, 3, 4, 5, 6, 7), 10),
        ("underflow", (2, 3), (1, 2, 3, 4, 5, 6), 10),
        ("nearly", (2, 3, 4, 5, 6), tuple(range(1, 16)), 10),
    ]:
        for k in ks:
            for s in seeds:
                cases.append({"id": f"kmeans:{name}:k{k}:s{s}:it{it}", "input": name, "k": k, "seed": s, "iter_max": it})
    (HERE / "cases").mkdir(exist_ok=True)
    doc = {"function": "kmeans", "cases": cases}
    (HERE / "cases" / "kmeans.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
