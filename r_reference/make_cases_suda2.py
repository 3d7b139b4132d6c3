"""Case list (and the small inputs) of sdcMicro's ``suda2`` references.

Run from ``r_reference/`` (``regenerate.sh`` runs it after ``make_inputs.py``)::

    python3 make_cases_suda2.py

Writes ``inputs/suda_*.csv.gz`` (+ schema) -- small hand-made frames and synthetic key
tables drawn with a fixed NumPy seed -- and ``cases/suda2.json``: each case names its
input ``data`` and sdcMicro's arguments ``variables``, ``missing``, ``DisFraction``,
``original_scores``. ``generate_suda2.R`` runs ``sdcMicro::suda2`` on each. Deterministic.
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
SEED = 20250909
sys.path.insert(0, str(HERE.parent))

DEMO_KEYS = ["region", "urbrur", "sex", "age_group", "education"]


def _write(df: pd.DataFrame, name: str) -> str:
    from pysdc.io import write_table

    write_table(df, INPUTS / f"{name}.csv.gz")
    return f"{name}.csv.gz"


def _cat(values, levels=None, ordered=False):
    return pd.Categorical(values, categories=levels, ordered=ordered)


def make_inputs() -> dict[str, str]:
    rng = np.random.default_rng(SEED)
    files = {}
    # Elliot et al.'s three-record example (sdcMicro's own test uses it)
    files["elliot3"] = _write(pd.DataFrame({"a": [2.0, 1, 1], "b": [0.0, 3, 0], "c": [0.0, 6, 0]}), "suda_elliot3")
    # the textbook example: 8 persons, four factor keys
    files["book8"] = _write(pd.DataFrame({
        "age": _cat(["20s"] * 7 + ["60s"]),
        "gender": _cat(["male"] * 4 + ["female"] * 3 + ["male"]),
        "income": _cat(["50k+", "50k+"] + ["50k-"] * 6),
        "education": _cat(["highschool"] * 4 + ["university", "highschool", "middleschool", "university"]),
    }), "suda_book8")
    # the SDC guideline example: 10 persons, four factor keys
    files["guide10"] = _write(pd.DataFrame({
        "residence": _cat(["Urban"] * 4 + ["Rural"] + ["Urban"] * 5),
        "gender": _cat(["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"]),
        "education": _cat(["Secondary incomplete", "Secondary incomplete", "Primary incomplete", "Secondary complete",
                           "Secondary complete", "Secondary complete", "Primary complete", "Post-secondary",
                           "Secondary incomplete", "Secondary incomplete"]),
        "labor": _cat(["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed", "Non-LF",
                       "Unemployed", "Non-LF", "Non-LF"]),
    }), "suda_guide10")
    # hand-worked: 6 records, 3 integer keys (see tests/risk/test_suda2.py::test_hand_worked)
    files["hand6"] = _write(pd.DataFrame({
        "x": pd.array([1, 1, 1, 2, 2, 2], dtype="Int64"),
        "y": pd.array([1, 1, 2, 2, 3, 3], dtype="Int64"),
        "z": pd.array([1, 2, 1, 1, 1, 1], dtype="Int64"),
    }), "suda_hand6")
    # missing keys, a real -999 and values equal to other missing codes (0, 1, 99)
    files["miss12"] = _write(pd.DataFrame({
        "k1": pd.array([1, 1, 2, 2, 3, None, 99, 1, 2, 3, None, 0], dtype="Int64"),
        "k2": pd.array([1, 2, 1, None, 2, 2, 1, 1, 99, -999, 1, 2], dtype="Int64"),
        "k3": pd.array([0, 0, 1, 1, None, 1, 0, 1, 0, 1, None, 0], dtype="Int64"),
        "k4": pd.array([5, 6, 5, 6, 5, 6, None, 7, 7, 5, 6, 5], dtype="Int64"),
    }), "suda_miss12")
    # aliases: columns whose values hold exactly the same records (k2 ~ k1, k4 ~ k3 on some values)
    k1 = rng.integers(1, 4, 40)
    k2 = np.where(k1 == 1, 7, rng.integers(8, 10, 40))
    k3 = rng.integers(1, 3, 40)
    k4 = k3 + 10
    k5 = rng.integers(1, 4, 40)
    files["alias40"] = _write(pd.DataFrame({"k1": k1, "k2": k2, "k3": k3, "k4": k4, "k5": k5}).astype("int64"),
                              "suda_alias40")
    # double keys: non-integer values (truncated to int by sdcMicro's C++), negatives, a huge value
    d1 = np.round(rng.uniform(0, 4, 30), 1)
    d2 = rng.integers(-2, 2, 30).astype(float) + 0.5
    d3 = rng.integers(1, 4, 30).astype(float)
    d3[[3, 17]] = 5e9
    d3[[5]] = np.nan
    files["dbl30"] = _write(pd.DataFrame({"d1": d1, "d2": d2, "d3": d3}), "suda_dbl30")
    # degenerate inputs
    files["one_row"] = _write(pd.DataFrame({"a": [1], "b": [2], "c": [3]}).astype("int64"), "suda_one_row")
    files["ident5"] = _write(pd.DataFrame({"a": [1] * 5, "b": [2] * 5, "c": [3] * 5}).astype("int64"),
                             "suda_ident5")
    files["uniq6"] = _write(pd.DataFrame({"a": np.arange(6), "b": np.arange(6) * 2,
                                          "c": np.arange(6) % 3}).astype("int64"), "suda_uniq6")
    files["twins4"] = _write(pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 1, 2, 2], "c": [3, 3, 4, 4]}).astype("int64"),
                             "suda_twins4")
    # every record shares its 16-bit hash bucket: sdcMicro's unique count is 0
    # (8 distinct records in one or two buckets: 4a + 2b + c is 4 or 5, and 2 (4a + 2b + c) + d is 11)
    files["hashcoll8"] = _write(pd.DataFrame({
        "a": [0, 0, 0, 1, 0, 0, 1, 0], "b": [0, 1, 2, 0, 0, 1, 0, 2], "c": [4, 2, 0, 0, 5, 3, 1, 1],
        "d": [3, 3, 3, 3, 1, 1, 1, 1],
    }).astype("int64"), "suda_hashcoll8")
    # factor first, then numeric / integer keys (R's "invalid factor level" in the level table)
    files["fmix20"] = _write(pd.DataFrame({
        "f": _cat(rng.choice(["lo", "mid", "hi"], 20), ["lo", "mid", "hi"]),
        "x": rng.integers(1, 4, 20).astype(float),
        "i": pd.array(rng.integers(1, 3, 20), dtype="Int64"),
        "g": _cat(rng.choice(["a", "b"], 20), ["a", "b", "unused"]),
    }), "suda_fmix20")
    # synthetic key tables: 3..10 keys of small cardinality, with and without missing values
    for n, p, na in [(60, 6, 0.0), (200, 8, 0.0), (200, 10, 0.0), (150, 10, 0.08), (500, 7, 0.03), (1000, 6, 0.0)]:
        cols = {}
        for j in range(p):
            card = int(rng.integers(2, 6))
            v = rng.integers(1, card + 1, n).astype(float)
            if na:
                v[rng.random(n) < na] = np.nan
            cols[f"k{j + 1}"] = pd.array([None if np.isnan(x) else int(x) for x in v], dtype="Int64")
        name = f"rand{n}x{p}" + ("_na" if na else "")
        files[name] = _write(pd.DataFrame(cols), f"suda_{name}")
    return files


def cases(files: dict[str, str]) -> list[dict]:
    out = []

    def add(cid, data, variables, tags, missing=None, dis=None, orig=None, **extra):
        args = {"variables": list(variables)}
        if missing is not None:
            args["missing"] = missing
        if dis is not None:
            args["DisFraction"] = dis
        if orig is not None:
            args["original_scores"] = orig
        case = {"id": f"suda2:{cid}", "inputs": {"data": data}, "args": args, "tags": sorted(set(tags))}
        case.update(extra)
        out.append(case)

    demo = "demo.csv.gz"
    # demo data: 2 .. 7 keys, both score variants, several DisFractions
    add("demo:5keys", demo, DEMO_KEYS, ["demo", "factor-key", "missing-keys"])
    add("demo:5keys:ihsn", demo, DEMO_KEYS, ["demo", "ihsn-scores"], orig=False)
    add("demo:5keys:dis0.1", demo, DEMO_KEYS, ["demo", "dis-fraction"], dis=0.1)
    add("demo:5keys:dis0.5:ihsn", demo, DEMO_KEYS, ["demo", "dis-fraction", "ihsn-scores"], dis=0.5, orig=False)
    add("demo:5keys:dis0", demo, DEMO_KEYS, ["demo", "dis-fraction-zero"], dis=0)
    add("demo:5keys:dis1", demo, DEMO_KEYS, ["demo", "dis-fraction"], dis=1)
    add("demo:5keys:missing1", demo, DEMO_KEYS, ["demo", "missing-code-is-a-code"], missing=1)
    add("demo:2keys", demo, ["region", "sex"], ["demo", "dummy-columns"])
    add("demo:2keys:ihsn", demo, ["age_group", "education"], ["demo", "dummy-columns", "ihsn-scores"], orig=False)
    add("demo:3keys", demo, ["region", "sex", "age_group"], ["demo"])
    add("demo:4keys", demo, ["region", "urbrur", "sex", "age_group"], ["demo"])
    add("demo:6keys", demo, DEMO_KEYS + ["marital"], ["demo"])
    add("demo:7keys", demo, DEMO_KEYS + ["marital", "hhsize"], ["demo", "integer-key"])
    add("demo:7keys:ihsn", demo, DEMO_KEYS + ["marital", "hhsize"], ["demo", "integer-key", "ihsn-scores"],
        orig=False)
    add("demo:hhsize-first", demo, ["hhsize", "region", "sex", "education"], ["demo", "integer-key",
                                                                               "numeric-first-key"])
    add("demo:1key", demo, ["region"], ["demo", "one-key", "error"])
    # masked versions of the demo data made by sdcMicro
    for name in ["demo__locsupp3", "demo_masked"]:
        add(f"{name}:5keys", f"{name}.csv.gz", DEMO_KEYS, ["demo", "masked", "missing-keys"])
        add(f"{name}:5keys:ihsn", f"{name}.csv.gz", DEMO_KEYS, ["demo", "masked", "ihsn-scores"], orig=False)
    add("demo__locsupp3:7keys", "demo__locsupp3.csv.gz", DEMO_KEYS + ["marital", "hhsize"], ["demo", "masked"])
    add("demo__locsupp5_4keys:4keys", "demo__locsupp5_4keys.csv.gz", ["region", "urbrur", "sex", "age_group"],
        ["demo", "masked", "missing-keys"])
    add("demo__pram:2keys", "demo__pram.csv.gz", ["marital", "health_status"], ["masked", "dummy-columns"])
    # synthetic key tables of the shared corpus
    add("keys300:k1-k4", "keys300.csv.gz", ["k1", "k2", "k3", "k4"], ["factor-key", "integer-key", "double-key"])
    add("keys300:k1-k4+kl", "keys300.csv.gz", ["k1", "k2", "k3", "k4", "kl"], ["logical-key"])
    add("keys300_nam:k1-k4", "keys300_nam.csv.gz", ["k1", "k2", "k3", "k4"], ["missing-keys"])
    add("keys300_nam:k1-k4:missing0", "keys300_nam.csv.gz", ["k1", "k2", "k3", "k4"], ["missing-keys",
                                                                                       "missing-code"], missing=0)
    add("keys2000_na:k1-k4", "keys2000_na.csv.gz", ["k1", "k2", "k3", "k4"], ["missing-keys"])
    add("keys2000_na:k1-k4:ihsn:dis0.05", "keys2000_na.csv.gz", ["k1", "k2", "k3", "k4"],
        ["missing-keys", "ihsn-scores", "dis-fraction"], orig=False, dis=0.05)
    add("keys10000:k1-k4", "keys10000.csv.gz", ["k1", "k2", "k3", "k4"], ["large"])
    add("keys8_na:k1+k2", "keys8_na.csv.gz", ["k1", "k2"], ["dummy-columns", "missing-keys"])
    add("keys20_allna:k1-k4", "keys20_allna.csv.gz", ["k1", "k2", "k3", "k4"], ["missing-keys", "all-missing"])
    add("hand8:h1-h4", "hand8.csv.gz", ["h1", "h2", "h3", "h4"], ["double-key", "missing-keys"])
    add("mix300:edu+region+score", "mix300.csv.gz", ["edu", "region", "score"], ["double-key", "factor-first"])
    # the small inputs written here
    f = files
    add("elliot3", f["elliot3"], ["a", "b", "c"], ["hand", "double-key"])
    add("elliot3:cab", f["elliot3"], ["c", "a", "b"], ["hand", "key-order"])
    add("elliot3:ihsn", f["elliot3"], ["a", "b", "c"], ["hand", "ihsn-scores"], orig=False)
    add("elliot3:2keys", f["elliot3"], ["a", "b"], ["hand", "dummy-columns"])
    add("book8", f["book8"], ["age", "gender", "income", "education"], ["hand", "factor-key"])
    add("book8:ihsn", f["book8"], ["age", "gender", "income", "education"], ["hand", "factor-key", "ihsn-scores"],
        orig=False)
    add("guide10", f["guide10"], ["residence", "gender", "education", "labor"], ["hand", "factor-key"])
    add("hand6", f["hand6"], ["x", "y", "z"], ["hand", "integer-key"])
    add("hand6:ihsn", f["hand6"], ["x", "y", "z"], ["hand", "integer-key", "ihsn-scores"], orig=False)
    for code in [-999, 0, 1, 99]:
        add(f"miss12:missing{code}", f["miss12"], ["k1", "k2", "k3", "k4"], ["missing-keys", "missing-code"],
            missing=code)
    add("miss12:missing-999:ihsn:dis0.2", f["miss12"], ["k1", "k2", "k3", "k4"], ["missing-keys", "ihsn-scores"],
        orig=False, dis=0.2)
    add("miss12:missing99.7", f["miss12"], ["k1", "k2", "k3", "k4"], ["missing-keys", "missing-code-fraction"],
        missing=99.7)
    add("alias40", f["alias40"], ["k1", "k2", "k3", "k4", "k5"], ["aliases"])
    add("alias40:ihsn", f["alias40"], ["k1", "k2", "k3", "k4", "k5"], ["aliases", "ihsn-scores"], orig=False)
    add("alias40:k5-first", f["alias40"], ["k5", "k4", "k3", "k2", "k1"], ["aliases", "key-order"])
    add("dbl30", f["dbl30"], ["d1", "d2", "d3"], ["double-key", "truncation", "missing-keys"])
    add("dbl30:ihsn", f["dbl30"], ["d1", "d2", "d3"], ["double-key", "truncation", "ihsn-scores"], orig=False)
    add("one_row", f["one_row"], ["a", "b", "c"], ["degenerate", "error"])
    add("ident5", f["ident5"], ["a", "b", "c"], ["degenerate", "no-msu"])
    add("uniq6", f["uniq6"], ["a", "b", "c"], ["degenerate", "all-unique"])
    add("twins4", f["twins4"], ["a", "b", "c"], ["degenerate", "no-msu"])
    add("hashcoll8", f["hashcoll8"], ["a", "b", "c", "d"], ["degenerate", "hash-collisions", "nan-dis"])
    add("hashcoll8:abc", f["hashcoll8"], ["a", "b", "c"], ["degenerate", "hash-collisions"])
    add("fmix20", f["fmix20"], ["f", "x", "i", "g"], ["factor-first", "invalid-factor-level"])
    add("fmix20:x-first", f["fmix20"], ["x", "f", "i", "g"], ["numeric-first-key"])
    add("fmix20:g+f", f["fmix20"], ["g", "f"], ["dummy-columns", "unused-level"])
    for name in ["rand60x6", "rand200x8", "rand200x10", "rand150x10_na", "rand500x7_na", "rand1000x6"]:
        p = int(name.split("x")[1].split("_")[0])
        keys = [f"k{j + 1}" for j in range(p)]
        add(name, f[name], keys, ["synthetic", f"{p}-keys"] + (["missing-keys"] if "_na" in name else []))
        add(f"{name}:ihsn", f[name], keys, ["synthetic", f"{p}-keys", "ihsn-scores"], orig=False)
    add("rand200x10:dis0.001", f["rand200x10"], [f"k{j + 1}" for j in range(10)], ["synthetic", "dis-fraction"],
        dis=0.001)
    add("rand500x7_na:missing1", f["rand500x7_na"], [f"k{j + 1}" for j in range(7)],
        ["synthetic", "missing-code-is-a-code"], missing=1)
    add("rand500x7_na:3keys", f["rand500x7_na"], ["k1", "k2", "k3"], ["synthetic", "missing-keys"])
    add("rand1000x6:2keys", f["rand1000x6"], ["k5", "k6"], ["synthetic", "dummy-columns"])
    return out


def main() -> None:
    files = make_inputs()
    doc = {"function": "suda2", "cases": cases(files)}
    CASES.mkdir(exist_ok=True)
    (CASES / "suda2.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"suda2: {len(doc['cases'])} cases -> cases/suda2.json")


if __name__ == "__main__":
    main()
