"""Case list (and one small input) of the createSdcObj workflow references: text key variables.

Run from ``r_reference/`` (``regenerate.sh`` runs it after ``make_inputs.py``)::

    python3 make_cases_createSdcObj.py

Writes ``inputs/sdcobj_text.csv.gz`` -- a file as users receive them (R's ``write.csv`` layout: quoted
text, ``NA`` unquoted, no schema) with text keys whose order differs between R's collations (upper and
lower case, punctuation, digits, an accent) -- and ``cases/createSdcObj.json``. Each case names a CSV
``inputs.csv`` (read by ``read.csv`` in R and ``pandas.read_csv`` in pysdc, as a user would) and
``createSdcObj``'s arguments; ``factor_levels`` makes a column a factor with the given levels first
(laeken's own ``eusilc`` has ``rb090`` levels ``male, female``), ``collation`` ``"C"`` runs R with
``LC_COLLATE=C``. ``generate_createSdcObj.R`` builds the sdcMicroObj and stores what sdcMicro
computes on it (``print(sdc, "risk")``'s numbers, measure_risk, kAnon_violations, suda2, ldiversity,
modRisk). Deterministic (fixed NumPy seed, chosen so that the two collations give different
DIS-SUDA scores: issue 24, finding 5).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"
CASES = HERE / "cases"
SEED = 1

EUSILC_KEYS = ["db040", "rb090", "age", "pl030", "pb220a"]
TEXT_KEYS = ["k1", "k2", "k3", "k4"]


def _csv_field(v) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "NA"
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"'
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def write_text_input() -> str:
    rng = np.random.default_rng(SEED)
    n = 1500
    k1v = ["apple", "Apple", "banana", "Cherry", "_dash", "10", "9", "éclair", "Zeta", "zeta"]
    k2v = ["north", "South", "east", "West", "Central"]
    k4v = ["a b", "a-b", "ab", "aB", "Ab"]
    cols = {
        "k1": list(rng.choice(k1v, n)),
        "k2": list(rng.choice(k2v, n)),
        "k3": [int(v) for v in rng.integers(1, 12, n)],
        "k4": [None if u < 0.1 else str(v) for u, v in zip(rng.random(n), rng.choice(k4v, n))],
    }
    cols["w"] = [float(v) for v in np.round(rng.uniform(5, 60, n), 2)]
    cols["hid"] = [int(v) for v in np.sort(rng.integers(1, 700, n))]
    cols["s_text"] = [str(v) for v in rng.choice(["low", "mid", "high", "7"], n)]
    cols["s_num"] = [int(v) for v in rng.integers(1, 6, n)]
    names = list(cols)
    lines = [",".join(f'"{c}"' for c in names)]
    for i in range(n):
        lines.append(",".join(_csv_field(cols[c][i]) for c in names))
    path = INPUTS / "sdcobj_text.csv.gz"
    with gzip.GzipFile(path, "wb", mtime=0) as f:  # mtime 0: the same bytes on every run
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
    return path.name


def write_double_input() -> str:
    """A double key whose R labels (15 digits, scientific where shorter) sort unlike its values, one that does
    not survive the label round trip (0.1 + 0.2), an integer key past 9, a text key: modRisk IPF's merge."""
    rng = np.random.default_rng(SEED + 4)
    n = 600
    cols = {
        "g": [str(v) for v in rng.choice(["a", "b", "c"], n)],
        "d": [float(v) for v in rng.choice([0.5, 1, 2.5, 10, 1e5, 123456, 2e-5, -3, 0.1 + 0.2, 1 / 3, 12, 3], n)],
        "i": [int(v) for v in rng.integers(0, 25, n)],
        "w": [float(v) for v in np.round(rng.uniform(1, 30, n), 3)],
        "hid": list(range(1, n + 1)),
    }
    names = list(cols)
    lines = [",".join(f'"{c}"' for c in names)]
    lines += [",".join(_csv_field(cols[c][i]) for c in names) for i in range(n)]
    path = INPUTS / "sdcobj_double.csv.gz"
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
    return path.name


def cases() -> list[dict]:
    text = write_text_input()
    dbl = write_double_input()
    eus = {"keyVars": EUSILC_KEYS, "weightVar": "rb050", "hhId": "db030"}
    out = [
        {"id": "createSdcObj:eusilc:5keys:w:hh:py010n", "inputs": {"csv": "eusilc.csv.gz"},
         "args": {**eus, "sensibleVar": ["py010n"], "modRisk": "~ db040 + rb090 + age + pl030 + pb220a"},
         "tags": ["eusilc", "finding-2", "finding-7"]},
        {"id": "createSdcObj:eusilc:4keys:sensitive-text", "inputs": {"csv": "eusilc.csv.gz"},
         "args": {"keyVars": EUSILC_KEYS[:4], "weightVar": "rb050", "hhId": "db030", "sensibleVar": ["pb220a"],
                  "suda2": False},
         "tags": ["eusilc", "finding-2"]},
        {"id": "createSdcObj:eusilc:5keys:rb090-levels-male-female", "inputs": {"csv": "eusilc.csv.gz"},
         "args": {**eus, "factor_levels": {"rb090": ["male", "female"]}},
         "tags": ["eusilc", "finding-5"]},
        {"id": "createSdcObj:sdcobj_text:icu", "inputs": {"csv": text},
         "args": {"keyVars": TEXT_KEYS, "weightVar": "w", "hhId": "hid", "sensibleVar": ["s_text", "s_num"],
                  "modRisk": "~ k1 + k2 + k3 + k4"},
         "tags": ["finding-2", "finding-5", "rows-full"]},
        {"id": "createSdcObj:sdcobj_text:C", "inputs": {"csv": text},
         "args": {"keyVars": TEXT_KEYS, "weightVar": "w", "hhId": "hid", "sensibleVar": ["s_text", "s_num"],
                  "collation": "C", "modRisk": "~ k1 + k2 + k3 + k4"},
         "tags": ["finding-2", "finding-5", "rows-full"]},
        {"id": "createSdcObj:sdcobj_double:modRisk", "inputs": {"csv": dbl},
         "args": {"keyVars": ["g", "d", "i"], "weightVar": "w", "hhId": "hid", "modRisk": "~ g + d + i",
                  "modRisk_bound": 3},
         "tags": ["finding-7", "rows-full"]},
    ]
    return out


def main() -> None:
    CASES.mkdir(exist_ok=True)
    doc = {"function": "createSdcObj", "cases": cases()}
    (CASES / "createSdcObj.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"createSdcObj: {len(doc['cases'])} cases -> cases/createSdcObj.json")


if __name__ == "__main__":
    main()
