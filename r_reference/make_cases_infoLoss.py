"""Case list of sdcMicro's ``infoLoss`` references -> cases/infoLoss.json (+ the input infoloss_swap).

Run from ``r_reference/`` (``regenerate.sh`` runs it after ``make_inputs.py``)::

    python3 make_cases_infoLoss.py

The cases compare the demo data with its sdcMicro-masked version (missing key values: margins meet
them in the join) and with ``infoloss_swap`` -- the demo data with the region of every seventh
household rotated among those households (a household-level swap, written here without random
draws) -- over one to three table variables (factor and integer), with and without ``hid``,
``only_inner_cells``, ``exclude_zeros``, metric subsets, other ``probs``/``quantvals``/
``apply_quantvals``, a custom metric (by name: the R script defines ``squareD = (x - y)^2``), and the
calls sdcMicro refuses. Deterministic: rerunning gives byte-identical files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

from pysdc.io import read_table, write_table  # noqa: E402

INPUTS = HERE / "inputs"
CASES = HERE / "cases"


def _inputs() -> None:
    d = read_table(INPUTS / "demo.csv.gz")
    hids = np.sort(d["hid"].unique())
    chosen = hids[hids % 7 == 0]
    first = d.drop_duplicates("hid").set_index("hid")["region"]
    rotated = dict(zip(chosen, first.loc[np.roll(chosen, 1)].to_numpy()))
    s = d.copy()
    mask = s["hid"].isin(chosen).to_numpy()
    s.loc[mask, "region"] = s.loc[mask, "hid"].map(rotated).to_numpy()
    write_table(s, INPUTS / "infoloss_swap.csv.gz")


def _case(cid, swapped, table_vars, tags=(), **args):
    return {"id": f"infoLoss:{cid}", "inputs": {"data": "demo.csv.gz", "data_swapped": swapped},
            "args": {"table_vars": table_vars, **args}, "tags": sorted({"demo", *tags})}


def main() -> None:
    _inputs()
    M, S = "demo_masked.csv.gz", "infoloss_swap.csv.gz"
    cases = [
        _case("masked:region", M, ["region"]),
        _case("masked:region+sex", M, ["region", "sex"], ("missing-keys",)),
        _case("masked:region+sex+age_group", M, ["region", "sex", "age_group"], ("missing-keys",)),
        _case("masked:3vars:inner", M, ["region", "sex", "age_group"], ("inner",), only_inner_cells=True),
        _case("masked:3vars:exclude_zeros", M, ["region", "sex", "age_group"], ("exclude-zeros",),
              exclude_zeros=True),
        _case("masked:region+hhsize:hid", M, ["region", "hhsize"], ("households", "integer-key"), hid="hid"),
        _case("swap:region", S, ["region"]),
        _case("swap:region+sex", S, ["region", "sex"]),
        _case("swap:region+hhsize", S, ["region", "hhsize"], ("integer-key",)),
        _case("swap:region+urbrur:hid", S, ["region", "urbrur"], ("households",), hid="hid"),
        _case("swap:region+age_group:inner:hid", S, ["region", "age_group"], ("households", "inner"), hid="hid",
              only_inner_cells=True),
        _case("swap:region+sex:absD", S, ["region", "sex"], ("metric",), metric=["absD"]),
        _case("swap:region+sex:relabsD+absD", S, ["region", "sex"], ("metric",), metric=["relabsD", "absD"]),
        _case("swap:region+age_group:probs", S, ["region", "age_group"], ("probs",), probs=[0.25, 0.5, 0.75]),
        _case("swap:region+age_group:probs-unsorted", S, ["region", "age_group"], ("probs",),
              probs=[0.9, 0.1, 0.333, 0.7, 0.45]),
        _case("swap:region+age_group:quantvals", S, ["region", "age_group"], ("quantvals",),
              quantvals=[0.001, 0.1, 1, 1000]),
        _case("swap:region+age_group:apply-none", S, ["region", "age_group"], ("quantvals",),
              apply_quantvals="none"),
        _case("swap:region+age_group:apply-absD", S, ["region", "age_group"], ("quantvals",),
              apply_quantvals=["absD", "relabsD"]),
        _case("masked:region+sex:custom", M, ["region", "sex"], ("custom",), custom_metric=["squareD"],
              apply_quantvals="none"),
        # refused by sdcMicro
        _case("err:probs-above-half", S, ["region"], ("error",), probs=[0.5, 0.9]),
        _case("err:probs-duplicated", S, ["region"], ("error",), probs=[0, 0, 0.5]),
        _case("err:probs-range", S, ["region"], ("error",), probs=[0.2, 1.5]),
        _case("err:metric", S, ["region"], ("error",), metric=["bogus"]),
        _case("err:table-var", S, ["region", "nosuchvar"], ("error",)),
        _case("err:quantvals-short", S, ["region"], ("error",), quantvals=[0.5]),
    ]
    CASES.mkdir(exist_ok=True)
    with open(CASES / "infoLoss.json", "w") as fh:
        json.dump({"cases": cases}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"infoLoss: {len(cases)} cases -> cases/infoLoss.json")


if __name__ == "__main__":
    main()
