"""Case list of the real-data numerics references -> cases/numerics.json (issue 24, findings 3, 4, 6).

Run from ``r_reference/`` (``regenerate.sh`` runs every ``make_cases_*.py``); the outputs come from
``Rscript generate_numerics.R`` (``regenerate.sh numerics``). No inputs are written: the cases use the
stored demo data and the real-data files ``eusilc.csv.gz`` / ``eusilc_masked.csv.gz`` (R's write.csv).

* ``indivRisk-series``: sdcMicro's exact individual risk on given frequencies ``fk`` (1..40) with
  ``Fk = fk * ratio`` computed in R (the same double product as in NumPy) -- the alternating series
  loses its digits as fk grows and Fk/fk nears 1.
* ``indivRisk-keys``: the same at a high sampling fraction on real key combinations: fk from
  ``freqCalc`` on the demo's and on eusilc's keys (text keys as factors), ``Fk = 1.1 * fk``; stored per
  distinct fk (the risk depends on fk only) with the number of records of each.
* ``dUtility-eigen``: eigen on eusilc's 25 numeric columns against the masked file (nearly singular).
* ``dUtility-robeigen``: robeigen on eusilc's four numeric variables after ``set.seed(s)`` (covMcd finds
  an exact fit).

R parses the decimal text of the CSV files exactly (``generate_numerics.R``: mantissa and power of ten,
as a correctly rounded parser does, so R sees pandas' doubles); the outputs also record how many values
R's ``read.csv`` parses differently and the value sdcMicro gives on those.
Deterministic: rerunning gives a byte-identical file.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"

DEMO_KEYS = ["region", "urbrur", "sex", "age_group", "education"]
EUSILC_KEYS = ["db040", "rb090", "age", "pl030", "pb220a"]
EUSILC_NUM4 = ["py010n", "hy040n", "hy050n", "eqIncome"]


def cases() -> list[dict]:
    out = []
    for ratio in (1.1, 1.01, 1.5, 2.0, 10.0):
        out.append({
            "id": f"numerics:indivRisk-series:r{ratio:g}", "kind": "indivRisk-series",
            "inputs": {}, "args": {"fk": list(range(1, 41)), "ratio": ratio, "method": "exact"},
            "tags": ["indivRisk", "exact", "cancellation"],
        })
    out.append({
        "id": "numerics:indivRisk-keys:demo:r1.1", "kind": "indivRisk-keys",
        "inputs": {"data": "demo.csv.gz"}, "args": {"keyVars": DEMO_KEYS, "ratio": 1.1, "method": "exact"},
        "tags": ["indivRisk", "exact", "cancellation", "demo"],
    })
    out.append({
        "id": "numerics:indivRisk-keys:eusilc:r1.1", "kind": "indivRisk-keys",
        "inputs": {"csv": "eusilc.csv.gz"}, "args": {"keyVars": EUSILC_KEYS, "ratio": 1.1, "method": "exact"},
        "tags": ["indivRisk", "exact", "cancellation", "real-data"],
    })
    out.append({
        "id": "numerics:dUtility-eigen:eusilc:numeric25", "kind": "dUtility-eigen",
        "inputs": {"csv_x": "eusilc.csv.gz", "csv_xm": "eusilc_masked.csv.gz"},
        "args": {"method": "eigen", "columns": "numeric"},
        "tags": ["dUtility", "eigen", "near-singular", "real-data"],
    })
    out.append({
        "id": "numerics:dUtility-robeigen:eusilc:num4", "kind": "dUtility-robeigen",
        "inputs": {"csv_x": "eusilc.csv.gz", "csv_xm": "eusilc_masked.csv.gz"},
        "args": {"method": "robeigen", "columns": EUSILC_NUM4, "seeds": [1, 2, 3]},
        "tags": ["dUtility", "robeigen", "exact-fit", "real-data"],
    })
    return out


def main() -> None:
    CASES.mkdir(exist_ok=True)
    doc = {"function": "numerics", "cases": cases()}
    (CASES / "numerics.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote cases/numerics.json ({len(doc['cases'])} cases)")


if __name__ == "__main__":
    main()
