"""The small stored inputs of the recoding corpus (issue 28, family 1), written in pysdc's typed-table format.

``make_cases_globalRecode.py``, ``make_cases_groupAndRename.py``, ``make_cases_topBotCoding.py`` and
``make_cases_mvTopCoding.py`` call :func:`write_inputs` (deterministic; rewriting gives the same files).
Every number is exactly representable with a short decimal (integers, halves, multiples of 1/64), so
R's ``read.csv`` and pandas read the same doubles. The real-data cases use ``inputs/eusilc.csv.gz``.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"
NA = None


def _text(v, cls):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NA"
    if cls in ("factor", "ordered", "character"):
        return '"' + str(v).replace('"', '""') + '"'
    if cls == "integer":
        return str(int(v))
    if math.isinf(v):
        return "Inf" if v > 0 else "-Inf"
    return repr(float(v))


def _write(name: str, columns: list[tuple]) -> None:
    """columns: (name, r_class, values[, levels])."""
    n = len(columns[0][2])
    lines = [",".join(f'"{c[0]}"' for c in columns)]
    for i in range(n):
        lines.append(",".join(_text(c[2][i], c[1]) for c in columns))
    with gzip.GzipFile(INPUTS / f"{name}.csv.gz", "wb", mtime=0) as fh:
        fh.write(("\n".join(lines) + "\n").encode("utf-8"))
    dtypes = {"numeric": "float64", "integer": "int64", "factor": "category", "ordered": "category",
              "character": "object"}
    schema = {"format": "pysdc-table-1", "columns": []}
    for c in columns:
        entry = {"name": c[0], "r_class": c[1], "dtype": dtypes[c[1]]}
        if c[1] == "integer" and any(v is None for v in c[2]):
            entry["dtype"] = "Int64"
        if len(c) > 3:
            entry["levels"] = list(c[3])
        schema["columns"].append(entry)
    (INPUTS / f"{name}.schema.json").write_text(json.dumps(schema, indent=1) + "\n", encoding="utf-8")


def write_inputs() -> None:
    INPUTS.mkdir(exist_ok=True)
    inf = math.inf
    _write("recode12", [
        ("v", "numeric", [-5.0, 0.0, 0.5, 10.0, 10.5, 20.0, 50000.0, 50000.5, 1e6, NA, 7.0, 3.0]),
        ("i", "integer", [1, 2, 3, 3, 5, 8, 13, 21, 34, NA, 55, 89]),
        ("ic", "integer", [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]),
        ("pos", "numeric", [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0]),
        ("z", "numeric", [0.0, 1.0, 2.0, -1.0, 4.0, 5.0, NA, 7.0, 8.0, 9.0, 10.0, 0.0]),
        ("neg", "numeric", [-2.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]),
        ("tie", "numeric", [0.0] * 7 + [1.0, 2.0, 3.0, 4.0, 5.0]),
        ("vinf", "numeric", [1.0, 2.0, inf, 4.0, 5.0, 6.0, -inf, 8.0, 9.0, 10.0, 11.0, 12.0]),
        ("f", "factor", ["a", "b", "c", NA, "c", "a", "b", "b", "a", "c", NA, "a"], ["a", "b", "c", "d"]),
        ("o", "ordered", ["lo", "mid", "hi", "hi", "mid", "lo", NA, "lo", "mid", "hi", "lo", "lo"],
         ["lo", "mid", "hi"]),
        ("fi", "factor", ["1", "2", "10", "2", "1", "10", "1", "2", "2", "10", "1", "1"], ["1", "10", "2"]),
        ("ch", "character", ["x", "y", "x", "y", "x", "y", "x", "y", "x", "y", "x", "y"]),
    ])
    # a 2-d/3-d cloud with outliers for mvTopCoding (multiples of 1/64: exact decimals)
    rng = np.random.default_rng(20261125)
    n = 60
    z = rng.multivariate_normal([5, 5, 10], [[1, 0.8, 0.3], [0.8, 1, 0.2], [0.3, 0.2, 2]], size=n)
    z[0] = [9, 1, 10]
    z[1] = [1, 9, 16]
    z[2] = [12, 12, 3]
    z = np.round(z * 64) / 64
    na = z[:, 2].copy()
    na[[5, 17]] = np.nan
    k = np.round(z[:, 0] * 10).astype(int)
    _write("mv60", [
        ("x1", "numeric", z[:, 0].tolist()),
        ("x2", "numeric", z[:, 1].tolist()),
        ("x3", "numeric", z[:, 2].tolist()),
        ("x3na", "numeric", [None if math.isnan(v) else v for v in na.tolist()]),
        ("k1", "integer", k.tolist()),
        ("k2", "integer", np.round(z[:, 1] * 10).astype(int).tolist()),
    ])


if __name__ == "__main__":
    write_inputs()
