"""Case list of sdcMicro's ``recordSwap`` references -> cases/recordSwap.json (+ the input swap_hh).

Run from ``r_reference/``::

    python3 make_cases_recordSwap.py

``swap_hh`` is a synthetic population of 3,000 households (about 8,000 persons) in the shape of
sdcMicro's ``createDat``: a three-level geography (nuts1 > nuts2 > nuts3, with lau2 below), household
size, age group, gender, nationality, household type and income. It is drawn once here (NumPy, seed
20211) and stored; the cases run sdcMicro's recordSwap on it with fixed seeds over swap rates,
k-anonymity thresholds, hierarchies of one to three levels, one or two similarity profiles, carry-along
variables and a risk matrix.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pysdc.io import write_table  # noqa: E402

INPUTS = HERE / "inputs"
CASES = HERE / "cases"


def _inputs() -> None:
    rng = np.random.default_rng(20211)
    n_hh = 3000
    nuts1 = rng.integers(1, 4, n_hh)
    nuts2 = nuts1 * 10 + rng.integers(1, 4, n_hh)
    nuts3 = nuts2 * 100 + rng.integers(1, 5, n_hh)
    lau2 = nuts3 * 10 + rng.integers(1, 4, n_hh)
    hsize = np.minimum(rng.geometric(0.4, n_hh), 6)
    htype = rng.integers(1, 8, n_hh)
    hincome = rng.integers(1, 10, n_hh)
    hh = np.repeat(np.arange(n_hh), hsize)
    n = hh.size
    d = pd.DataFrame({
        "nuts1": nuts1[hh], "nuts2": nuts2[hh], "nuts3": nuts3[hh], "lau2": lau2[hh], "hid": hh + 1,
        "hsize": hsize[hh], "ageGroup": rng.integers(1, 8, n), "gender": rng.integers(1, 3, n),
        "national": rng.choice([1, 2, 3, 4, 5], n, p=[0.8, 0.08, 0.06, 0.04, 0.02]),
        "htype": htype[hh], "hincome": hincome[hh],
    })
    d["risk1"] = np.round(1.0 / (1 + rng.integers(0, 20, n)), 4)
    d["risk2"] = np.round(np.minimum(1.0, d["risk1"] * 2), 4)
    write_table(d, INPUTS / "swap_hh.csv.gz")


def _case(cid, tags=(), **args):
    base = {"hid": "hid", "hierarchy": ["nuts1", "nuts2"], "similar": [["hsize"]], "swaprate": 0.05,
            "k_anonymity": 3, "risk_variables": ["ageGroup", "national"], "seed": 1}
    base.update(args)
    return {"id": f"recordSwap:swap_hh:{cid}", "inputs": {"data": "swap_hh.csv.gz"}, "args": base,
            "tags": sorted(tags)}


def main() -> None:
    _inputs()
    cases = [
        _case("default", ("k-anonymity",)),
        _case("seed2", ("k-anonymity",), seed=2),
        _case("rate10:k1", ("k-anonymity",), swaprate=0.1, k_anonymity=1),
        _case("rate02:k0", ("rate-only",), swaprate=0.02, k_anonymity=0),
        _case("rate02:k5", ("k-anonymity",), swaprate=0.02, k_anonymity=5),
        _case("3levels", ("k-anonymity",), hierarchy=["nuts1", "nuts2", "nuts3"], swaprate=0.1),
        _case("1level", ("k-anonymity",), hierarchy=["nuts2"], swaprate=0.1),
        _case("2profiles", ("similar",), similar=[["hsize", "htype"], ["hsize"]], swaprate=0.1),
        _case("carry", ("carry-along",), carry_along=["nuts3", "lau2"], swaprate=0.1),
        _case("risk", ("risk",), risk=["risk1", "risk2"], risk_threshold=0.9, swaprate=0.05),
    ]
    CASES.mkdir(exist_ok=True)
    with open(CASES / "recordSwap.json", "w") as fh:
        json.dump({"cases": cases}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"recordSwap: {len(cases)} cases -> cases/recordSwap.json")


if __name__ == "__main__":
    main()
