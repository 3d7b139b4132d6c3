"""Case list (and inputs) of sdcMicro 5.8.1's ``recordLinkage`` references (global distance-based record linkage).

Run from ``r_reference/`` (``regenerate.sh`` runs every ``make_cases_*.py``)::

    python3 make_cases_recordLinkage.py
    R_LIBS=/path/to/a/library/with/sdcMicro-5.8.1 Rscript generate_recordLinkage.R

Writes ``inputs/rl_*.csv.gz`` (+ schema): small synthetic file pairs (fixed NumPy seed) with every
variable type daisy distinguishes (numeric, integer, factor, ordered, character, logical), missing
values, duplicated records (ties) and id columns; then ``cases/recordLinkage.json`` over those and
over the stored demo and eusilc files (their first rows: ``args$.head``, an input selection, not an
argument of sdcMicro). Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"
CASES = HERE / "cases"
SEED = 20261125
sys.path.insert(0, str(HERE.parent))


def _write(df: pd.DataFrame, name: str) -> str:
    from pysdc.io import write_table

    write_table(df.reset_index(drop=True), INPUTS / f"{name}.csv.gz")
    return f"{name}.csv.gz"


def make_inputs() -> dict[str, str]:
    rng = np.random.default_rng(SEED)
    files = {}
    n = 40
    x = pd.DataFrame({
        "id": np.arange(101, 101 + n),
        "a": np.round(rng.normal(50, 10, n), 3),
        "b": np.round(rng.lognormal(3, 1, n), 3),
        "c": rng.integers(0, 21, n),
        "f": pd.Categorical(rng.choice(["u", "v", "w", "z"], n), categories=["u", "v", "w", "z"]),
        "o": pd.Categorical(rng.choice(["lo", "mid", "hi", "top"], n), categories=["lo", "mid", "hi", "top"],
                            ordered=True),
        "s": rng.choice(["A", "B", "C"], n).astype(object),
        "l": rng.random(n) < 0.4,
    })
    y = x.copy()
    y["a"] = np.round(x["a"] + rng.normal(0, 3, n), 3)
    y["b"] = np.round(x["b"] * np.exp(rng.normal(0, 0.2, n)), 3)
    y["c"] = np.clip(x["c"] + rng.integers(-1, 2, n), 0, 20)
    swap = rng.random(n) < 0.15
    y.loc[swap, "f"] = rng.choice(["u", "v", "w", "z"], int(swap.sum()))
    flip = rng.random(n) < 0.1
    y.loc[flip, "l"] = ~x.loc[flip, "l"]
    y = y.iloc[rng.permutation(n)].reset_index(drop=True)  # ids say which record is which
    files["mix"] = _write(x, "rl_mix40")
    files["mix_m"] = _write(y, "rl_mix40_m")
    # missing values in both files (every pair keeps a variable in common)
    xn, yn = x.copy(), y.copy()
    for df in (xn, yn):
        for col in ("a", "b", "f", "s"):
            df.loc[rng.random(n) < 0.12, col] = np.nan
    xn.loc[3, ["a", "b"]] = np.nan  # numeric variables both missing in one record
    xn.loc[5, "id"] = np.nan  # a missing id
    files["na"] = _write(xn, "rl_mix40_na")
    files["na_m"] = _write(yn, "rl_mix40_na_m")
    # ties: duplicated records (few distinct values), the masked file a permutation of the original
    m = 30
    xt = pd.DataFrame({"id": np.arange(1, m + 1), "k1": rng.integers(1, 4, m),
                       "k2": pd.Categorical(rng.choice(["a", "b"], m)), "v": np.round(rng.normal(0, 1, m), 1)})
    yt = xt.iloc[rng.permutation(m)].reset_index(drop=True)
    files["ties"] = _write(xt, "rl_ties30")
    files["ties_m"] = _write(yt, "rl_ties30_m")
    return files


def cases(files: dict[str, str]) -> list[dict]:
    out = []

    def add(cid, x, y, args, tags):
        out.append({"id": f"recordLinkage:{cid}", "inputs": {"x": x, "y": y}, "args": args,
                    "tags": sorted(set(tags))})

    mix, mix_m = files["mix"], files["mix_m"]
    ids = {"x_id": "id", "y_id": "id"}
    num = ["a", "b", "c"]
    allv = ["a", "b", "c", "f", "o", "s", "l"]
    for dist in ("gower", "euclidean", "manhattan"):
        add(f"mix:num:{dist}", mix, mix_m, {"vars": num, "distance": dist, **ids}, ["synthetic", dist, "ids"])
        add(f"mix:num:{dist}:rows", mix, mix_m, {"vars": num, "distance": dist}, ["synthetic", dist, "row-ids"])
        add(f"mix:num:{dist}:weights", mix, mix_m, {"vars": num, "distance": dist, "weights": [1, 3, 0.5], **ids},
            ["synthetic", dist, "weights"])
    add("mix:all:gower", mix, mix_m, {"vars": allv, "distance": "gower", **ids},
        ["synthetic", "gower", "factor-key", "ordered-key", "character-key", "logical-key"])
    add("mix:all:gower:weights", mix, mix_m, {"vars": allv, "distance": "gower", "weights": [2, 1, 1, 0, 3, 1, 0.5],
                                              **ids}, ["synthetic", "gower", "weights"])
    add("mix:cat:gower", mix, mix_m, {"vars": ["f", "o", "s"], "distance": "gower", **ids},
        ["synthetic", "gower", "ties"])
    add("mix:all:euclidean:error", mix, mix_m, {"vars": allv, "distance": "euclidean", **ids},
        ["synthetic", "euclidean", "error"])
    add("mix:logical:euclidean", mix, mix_m, {"vars": ["a", "l"], "distance": "euclidean", **ids},
        ["synthetic", "euclidean", "logical-key"])
    add("mix:tol0", mix, mix_m, {"vars": ["c", "f"], "distance": "gower", "tol": 0, **ids},
        ["synthetic", "gower", "ties"])
    add("mix:tol-wide", mix, mix_m, {"vars": ["a", "b"], "distance": "gower", "tol": 0.05, **ids},
        ["synthetic", "gower"])
    na, na_m = files["na"], files["na_m"]
    for dist in ("gower", "euclidean", "manhattan"):
        add(f"na:num:{dist}", na, na_m, {"vars": ["a", "b", "c"], "distance": dist, **ids},
            ["synthetic", dist, "na-both", "na-ids"])
    add("na:all:gower", na, na_m, {"vars": allv, "distance": "gower", **ids}, ["synthetic", "gower", "na-both"])
    add("na:fail", na, na_m, {"vars": ["a", "b"], "distance": "gower", "na_action": "fail", **ids},
        ["synthetic", "error", "na-both"])
    add("na:nopair", na, na_m, {"vars": ["a", "b"], "distance": "euclidean", **ids},
        ["synthetic", "error", "na-both"])
    ties, ties_m = files["ties"], files["ties_m"]
    for dist in ("gower", "euclidean", "manhattan"):
        add(f"ties:{dist}", ties, ties_m, {"vars": ["k1", "v"], "distance": dist, **ids}, ["synthetic", dist, "ties"])
    add("ties:mixed", ties, ties_m, {"vars": ["k1", "k2"], "distance": "gower", **ids}, ["synthetic", "gower", "ties"])
    add("ties:rows", ties, ties_m, {"vars": ["k1", "k2", "v"], "distance": "gower"}, ["synthetic", "gower", "ties"])
    add("unequal-rows", mix, ties_m, {"vars": ["id"], "distance": "euclidean"}, ["synthetic", "error"])
    # the demo data and sdcMicro-masked versions (first 300 records)
    keys = ["region", "urbrur", "sex", "age_group", "education"]
    numd = ["income", "expenditure", "savings"]
    h = {".head": 300}
    add("demo:keys+income:gower", "demo.csv.gz", "demo_masked.csv.gz", {"vars": keys + ["income"], **h},
        ["demo", "demo-masked", "gower", "ordered-key", "factor-key", "ties"])
    # the demo data's complete numeric records and sdcMicro-masked versions of them
    cc = "drisk_demo_cc.csv.gz"
    add("demo_cc:masked:euclidean", cc, "drisk_demo_cc_masked.csv.gz", {"vars": numd, "distance": "euclidean", **h},
        ["demo", "demo-masked", "euclidean"])
    add("demo_cc:mdav3:manhattan", cc, "drisk_demo_cc__mdav3.csv.gz", {"vars": numd, "distance": "manhattan", **h},
        ["demo", "sdcmicro-masked", "manhattan", "ties"])
    add("demo_cc:addnoise50:gower:weights", cc, "drisk_demo_cc__addnoise50.csv.gz",
        {"vars": numd, "distance": "gower", "weights": [1, 2, 1], **h}, ["demo", "sdcmicro-masked", "weights"])
    add("demo_cc:rankswap:euclidean", cc, "drisk_demo_cc__rankswap.csv.gz",
        {"vars": numd, "distance": "euclidean", **h}, ["demo", "sdcmicro-masked", "euclidean"])
    add("demo:num:euclidean:error", "demo.csv.gz", "demo_masked.csv.gz", {"vars": numd, "distance": "euclidean", **h},
        ["demo", "error", "na-both"])
    # eusilc (R's write.csv files; addNoise on the numeric variables), first 400 records
    eu = {".head": 400}
    eunum = ["py010n", "hy040n", "hy050n", "eqIncome"]
    for dist in ("euclidean", "manhattan", "gower"):
        add(f"eusilc:num:{dist}", "eusilc.csv.gz", "eusilc_masked.csv.gz", {"vars": eunum, "distance": dist, **eu},
            ["eusilc", dist, "real-data"])
    add("eusilc:keys+num:gower:weights", "eusilc.csv.gz", "eusilc_masked.csv.gz",
        {"vars": ["db040", "rb090", "age", "pl030", "eqIncome"], "distance": "gower", "weights": [1, 1, 2, 1, 3], **eu},
        ["eusilc", "gower", "character-key", "weights", "real-data", "ties"])
    return out


def main() -> None:
    files = make_inputs()
    cs = cases(files)
    ids = [c["id"] for c in cs]
    assert len(ids) == len(set(ids))
    CASES.mkdir(exist_ok=True)
    (CASES / "recordLinkage.json").write_text(json.dumps({"cases": cs}, indent=1) + "\n")
    print(f"cases/recordLinkage.json: {len(cs)} cases")


if __name__ == "__main__":
    main()
