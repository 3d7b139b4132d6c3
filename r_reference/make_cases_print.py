"""Case list of the references for sdcMicro's ``print`` methods (measure_risk, freqCalc, indivRisk,
ldiversity), on stored inputs only.

Run from ``r_reference/`` (``regenerate.sh`` runs it after ``make_inputs.py``)::

    python3 make_cases_print.py
    Rscript generate_print.R

Writes ``cases/print.json``: each case names its input ``data``, the function ``fun`` and sdcMicro's
arguments. ``generate_print.R`` runs the function, captures what ``print`` writes (stdout and
messages) and stores it with the numbers behind it. ``tests/report/test_print.py`` checks pysdc's ``str()``
of its results against them. Deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

DEMO_KEYS = ["region", "urbrur", "sex", "age_group", "education"]

CASES = [
    ("measure_risk", "keys300.csv.gz", {"keyVars": ["k1", "k2", "k3"]}),
    ("measure_risk", "keys300.csv.gz", {"keyVars": ["k1", "k2", "k3"], "w": "w", "hid": "hid"}),
    ("measure_risk", "keys2000_na.csv.gz", {"keyVars": ["k1", "k2", "k4"]}),
    ("measure_risk", "demo.csv.gz", {"keyVars": DEMO_KEYS, "w": "weight", "hid": "hid"}),
    ("measure_risk", "demo.csv.gz", {"keyVars": ["region", "sex"]}),
    ("measure_risk", "demo.csv.gz", {"keyVars": DEMO_KEYS}),
    ("freqCalc", "keys300.csv.gz", {"keyVars": ["k1", "k2", "k3"]}),
    ("freqCalc", "keys2000_na.csv.gz", {"keyVars": ["k1", "k2", "k3", "k4"], "w": "w"}),
    ("freqCalc", "keys2000_na.csv.gz", {"keyVars": ["k1", "k2", "k3", "k4"], "w": "w", "alpha": 0.5}),
    ("freqCalc", "demo.csv.gz", {"keyVars": DEMO_KEYS, "w": "weight"}),
    ("indivRisk", "keys300.csv.gz", {"keyVars": ["k1", "k2", "k3"]}),
    ("indivRisk", "demo.csv.gz", {"keyVars": DEMO_KEYS, "w": "weight"}),
    ("ldiversity", "keys300.csv.gz", {"keyVars": ["k1", "k2"], "ldiv_index": ["s1"]}),
    ("ldiversity", "keys300.csv.gz", {"keyVars": ["k1", "k2"], "ldiv_index": ["s1", "s2"]}),
    ("ldiversity", "demo.csv.gz", {"keyVars": ["region", "sex", "age_group"], "ldiv_index": ["health_status"]}),
]


def main() -> int:
    cases = []
    for fun, data, args in CASES:
        parts = [fun, data.split(".")[0], "+".join(args["keyVars"])]
        parts += [f"{k}={v if isinstance(v, str | float) else '+'.join(v)}" for k, v in args.items() if k != "keyVars"]
        cases.append({"id": ":".join(parts), "inputs": {"data": data}, "args": {"fun": fun, **args},
                      "tags": [fun]})
    (HERE / "cases").mkdir(exist_ok=True)
    with open(HERE / "cases" / "print.json", "w", encoding="utf-8") as fh:
        json.dump({"cases": cases}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"print: {len(cases)} cases -> cases/print.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
