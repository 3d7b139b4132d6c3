"""Case lists (and a few inputs) of sdcMicro's ``kAnon_violations``, ``dRisk`` and ``dRiskRMD`` references.

Run from ``r_reference/`` (``regenerate.sh`` runs every ``make_cases_*.py`` after ``make_inputs.py``)::

    python3 make_cases_distance.py

Writes ``inputs/drisk_*.csv.gz`` (+ schema): the complete records of the demo data's
continuous variables and of their sdcMicro-masked versions (``dRiskRMD`` gives 0 whenever
the original has a missing value), and small synthetic pairs (fixed NumPy seed) on which
robustbase's MCD enumerates every subset (deterministic). Then ``cases/kAnon_violations.json``,
``cases/dRisk.json`` and ``cases/dRiskRMD.json``; ``generate_<RName>.R`` runs sdcMicro on each.
Deterministic.
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
SEED = 20250911
sys.path.insert(0, str(HERE.parent))

DEMO_KEYS = ["region", "urbrur", "sex", "age_group", "education"]
DEMO_NUM = ["income", "expenditure", "savings"]
NUM200 = ["income", "expend", "savings"]
NUM200_ALL = ["income", "expend", "savings", "age", "hours"]


def _read(name: str) -> pd.DataFrame:
    from pysdc.io import read_table

    return read_table(INPUTS / f"{name}.csv.gz")


def _write(df: pd.DataFrame, name: str) -> str:
    from pysdc.io import write_table

    write_table(df.reset_index(drop=True), INPUTS / f"{name}.csv.gz")
    return f"{name}.csv.gz"


def make_inputs() -> dict[str, str]:
    files = {}
    demo = _read("demo")
    keep = demo[DEMO_NUM].notna().all(axis=1).to_numpy()
    files["demo_cc"] = _write(demo.loc[keep, DEMO_NUM], "drisk_demo_cc")
    for m in ["demo__addnoise50", "demo__mdav3", "demo__rankswap", "demo__topcode", "demo_masked"]:
        dm = _read(m)
        files[m] = _write(dm.loc[keep, DEMO_NUM], f"drisk_{m.replace('demo', 'demo_cc', 1)}")
    rng = np.random.default_rng(SEED)
    # small samples: robustbase's covMcd enumerates every (p+1)-subset for p = 2, n <= 22 and
    # p = 3, n <= 17, so its result does not depend on the seed
    for name, n, p in [("small20", 20, 2), ("small15", 15, 3)]:
        cols = [f"v{j + 1}" for j in range(p)]
        cov = np.full((p, p), 0.5) + 0.5 * np.eye(p)
        x = rng.multivariate_normal(np.zeros(p), cov, size=n) * 10 + 50
        x[0] = x[0] + 40  # an outlier
        xm = x + rng.normal(scale=1.0, size=x.shape)
        xm[3] = x[3]  # one record left unmasked
        files[name] = _write(pd.DataFrame(np.round(x, 6), columns=cols), f"drisk_{name}")
        files[name + "_m"] = _write(pd.DataFrame(np.round(xm, 6), columns=cols), f"drisk_{name}_m")
    # masked duplicates: pairs of masked records at distance 0 (never at risk by RMDID2)
    x = rng.normal(size=(60, 3)) * [5, 2, 1] + [100, 20, 3]
    xm = x + rng.normal(scale=0.01, size=x.shape)
    xm[1::10] = xm[0::10]
    files["dup60"] = _write(pd.DataFrame(np.round(x, 6), columns=["a", "b", "c"]), "drisk_dup60")
    files["dup60_m"] = _write(pd.DataFrame(np.round(xm, 6), columns=["a", "b", "c"]), "drisk_dup60_m")
    # missing masked values in several patterns (R's dist scales partial distances up)
    xm = x + rng.normal(scale=0.02, size=x.shape)
    mask = rng.random(xm.shape) < 0.12
    mask[5] = True  # a record with every masked value missing
    xm[mask] = np.nan
    files["dup60_mna"] = _write(pd.DataFrame(np.round(xm, 6), columns=["a", "b", "c"]), "drisk_dup60_mna")
    return files


# ----------------------------------------------------------------------------- case lists


def kanon_cases() -> list[dict]:
    out = []

    def add(cid, data, keys, k, weighted, tags, w=None, alpha=None):
        args = {"keyVars": list(keys), "k": k, "weighted": weighted}
        if w is not None:
            args["weightVar"] = w
        if alpha is not None:  # createSdcObj(..., alpha): how much a record with a missing key counts
            args["alpha"] = alpha
        out.append({"id": f"kAnon_violations:{cid}", "inputs": {"data": data}, "args": args,
                    "tags": sorted(set(tags))})

    demo = "demo.csv.gz"
    for nk, keys in [("4keys", DEMO_KEYS[:4]), ("5keys", DEMO_KEYS)]:
        for k in [2, 3, 5]:
            add(f"demo:{nk}:k{k}", demo, keys, k, False, ["demo", "missing-keys"])
            add(f"demo:{nk}:k{k}:w", demo, keys, k, False, ["demo", "weights"], w="weight")
            add(f"demo:{nk}:k{k}:weighted-now", demo, keys, k, True, ["demo", "weighted-without-weights"])
        for k in [50, 200, 1000]:
            add(f"demo:{nk}:k{k}:w:weighted", demo, keys, k, True, ["demo", "weights", "weighted"], w="weight")
    add("demo:7keys:k2", demo, DEMO_KEYS + ["marital", "hhsize"], 2, False, ["demo", "integer-key"])
    add("demo:2keys:k3:w:weighted", demo, ["region", "sex"], 3, True, ["demo", "weighted"], w="weight")
    for m in ["demo__locsupp3", "demo_masked"]:
        add(f"{m}:5keys:k3", f"{m}.csv.gz", DEMO_KEYS, 3, False, ["demo", "masked", "missing-keys"])
        add(f"{m}:5keys:k3:w:weighted", f"{m}.csv.gz", DEMO_KEYS, 100, True, ["demo", "masked", "weighted"],
            w="weight")
    add("demo__locsupp5_4keys:4keys:k5", "demo__locsupp5_4keys.csv.gz", DEMO_KEYS[:4], 5, False,
        ["demo", "masked", "missing-keys"])
    nam = "keys300_nam.csv.gz"
    for k in [1, 2, 3, 4, 5, 0.4, 0.5, 1.5, 2.5, 3.5, 4.5, 1e9]:
        add(f"keys300_nam:k1-k3:k{k:g}", nam, ["k1", "k2", "k3"], k, False,
            ["missing-keys"] + (["fractional-k"] if k != int(k) else []))
    for k in [2, 3, 3.5, 10, 50]:
        add(f"keys300_nam:k1-k3:k{k:g}:w:weighted", nam, ["k1", "k2", "k3"], k, True,
            ["missing-keys", "weighted"] + (["fractional-k"] if k != int(k) else []), w="w")
    add("keys300_nam:k1-k4:k3:w", nam, ["k1", "k2", "k3", "k4"], 3, False, ["missing-keys", "weights"], w="w")
    add("keys300:k1-k4+kl:k2", "keys300.csv.gz", ["k1", "k2", "k3", "k4", "kl"], 2, False,
        ["logical-key", "double-key"])
    add("keys300:kc+k1:k3", "keys300.csv.gz", ["kc", "k1"], 3, False, ["character-key"])
    add("keys300:k1+k2:k3:wf:weighted", "keys300.csv.gz", ["k1", "k2"], 30, True, ["weighted"], w="wf")
    add("keys300:k1:k3", "keys300.csv.gz", ["k1"], 3, False, ["one-key"])
    for f in ["keys2000_na", "keys10000_na"]:
        add(f"{f}:k1-k4:k3", f"{f}.csv.gz", ["k1", "k2", "k3", "k4"], 3, False, ["missing-keys", "large"])
        add(f"{f}:k1-k4:k5:w:weighted", f"{f}.csv.gz", ["k1", "k2", "k3", "k4"], 20, True,
            ["missing-keys", "weighted", "large"], w="w")
    add("keys2000:k1-k3:k2", "keys2000.csv.gz", ["k1", "k2", "k3"], 2, False, [])
    add("keys8:k1+k2:k2", "keys8.csv.gz", ["k1", "k2"], 2, False, ["small"])
    add("keys8_na:k1+k2:k3:w:weighted", "keys8_na.csv.gz", ["k1", "k2"], 3, True, ["small", "missing-keys",
                                                                                    "weighted"], w="w")
    add("keys5:k1+k2:k2", "keys5.csv.gz", ["k1", "k2"], 2, False, ["small"])
    add("keys20_allna:k1-k4:k3", "keys20_allna.csv.gz", ["k1", "k2", "k3", "k4"], 3, False, ["all-missing"])
    add("keys300_w0:k1+k2:k3:w:weighted", "keys300_w0.csv.gz", ["k1", "k2"], 3, True, ["zero-weights"], w="w")
    add("hand8:h1-h4:k2", "hand8.csv.gz", ["h1", "h2", "h3", "h4"], 2, False, ["double-key", "missing-keys"])
    add("hand8:h1-h4:k3:w:weighted", "hand8.csv.gz", ["h1", "h2", "h3", "h4"], 3, True,
        ["double-key", "missing-keys", "weighted"], w="w")
    add("mix300:job+region:k3", "mix300.csv.gz", ["job", "region"], 3, False, ["character-key"])
    for alpha in [0.0, 0.5]:  # the object's alpha decides its fk (print(obj, "kAnon") counts on them)
        for k in [2, 3, 5]:
            add(f"demo:5keys:k{k}:alpha{alpha:g}", demo, DEMO_KEYS, k, False, ["demo", "missing-keys", "alpha"],
                alpha=alpha)
        add(f"keys300_nam:k1-k3:k10:w:weighted:alpha{alpha:g}", nam, ["k1", "k2", "k3"], 10, True,
            ["missing-keys", "weighted", "alpha"], w="w", alpha=alpha)
    # refusals
    add("keys300:k1+k2:k0", "keys300.csv.gz", ["k1", "k2"], 0, False, ["error", "k-nonpositive"])
    add("keys300:k1+k2:k-1", "keys300.csv.gz", ["k1", "k2"], -1, False, ["error", "k-nonpositive"])
    add("keys300_wna:k1+k2:k3:w", "keys300_wna.csv.gz", ["k1", "k2"], 3, False, ["error", "missing-weights"],
        w="w")
    add("keys300_wna:k1+k2:k3:w:weighted", "keys300_wna.csv.gz", ["k1", "k2"], 3, True,
        ["error", "missing-weights"], w="w")
    return out


def _pair_case(out, fun, cid, x, xm, args, tags, columns=None, x_columns=None, xm_columns=None):
    """``columns`` selects the same columns of both; ``x_columns``/``xm_columns`` select each side."""
    inputs = {"x": x, "xm": xm}
    if columns is not None:
        inputs["columns"] = list(columns)
    if x_columns is not None:
        inputs["x_columns"] = list(x_columns)
    if xm_columns is not None:
        inputs["xm_columns"] = list(xm_columns)
    out.append({"id": f"{fun}:{cid}", "inputs": inputs, "args": args, "tags": sorted(set(tags))})


def drisk_cases(files: dict[str, str]) -> list[dict]:
    out = []

    def add(cid, x, xm, k, tags, columns=None):
        args = {} if k is None else {"k": k}
        _pair_case(out, "dRisk", cid, x, xm, args, tags, columns)

    for m in ["addnoise10", "addnoise50", "addnoise150", "mdav3", "rankswap", "topcode"]:
        for k in [0.01, 0.05, 0.2, 1]:
            add(f"num200:{m}:3vars:k{k:g}", "num200.csv.gz", f"num200__{m}.csv.gz", k, [m], NUM200)
        add(f"num200:{m}:5vars:default", "num200.csv.gz", f"num200__{m}.csv.gz", None, [m, "unmasked-columns",
                                                                                         "default-k"])
    add("num200:m:3vars:k0.05", "num200.csv.gz", "num200_m.csv.gz", 0.05, ["noise"], NUM200)
    add("num200:m:3vars:k0", "num200.csv.gz", "num200_m.csv.gz", 0, ["k-zero"], NUM200)
    add("num200:m:3vars:k-0.1", "num200.csv.gz", "num200_m.csv.gz", -0.1, ["k-negative"], NUM200)
    for m in ["addnoise50", "mdav3", "rankswap"]:
        for k in [0.05, 0.3]:
            add(f"num1000:{m}:k{k:g}", "num1000.csv.gz", f"num1000__{m}.csv.gz", k, [m])
    add("num1000:m:k0.1", "num1000.csv.gz", "num1000_m.csv.gz", 0.1, ["noise"])
    for m in ["addnoise50", "mdav3", "rankswap", "topcode"]:
        for k in [0.05, 0.5]:
            add(f"demo:{m}:k{k:g}", "demo.csv.gz", f"demo__{m}.csv.gz", k, ["demo", m, "missing-values"], DEMO_NUM)
    add("demo:masked:k0.1", "demo.csv.gz", "demo_masked.csv.gz", 0.1, ["demo", "missing-values"], DEMO_NUM)
    add("num200_na:m:k0.1", "num200_na.csv.gz", "num200_m.csv.gz", 0.1, ["na-original"], NUM200)
    add("num200:m_na:k0.1", "num200.csv.gz", "num200_m_na.csv.gz", 0.1, ["na-masked"], NUM200)
    add("num200_na:na_m_na:k0.1", "num200_na.csv.gz", "num200_na_m_na.csv.gz", 0.1, ["na-both"], NUM200)
    add("num10000:m:k0.05", "num10000.csv.gz", "num10000_m.csv.gz", 0.05, ["large"])
    add("num_1col:m:k0.1", "num_1col.csv.gz", "num_1col_m.csv.gz", 0.1, ["one-variable"])
    add("num_const:m:k0.05", "num_const.csv.gz", "num_const_m.csv.gz", 0.05, ["constant-column"])
    add("num_const:m2:k0.05", "num_const.csv.gz", "num_const_m2.csv.gz", 0.05, ["constant-column"])
    add("num_zeros:m:k0.1", "num_zeros.csv.gz", "num_zeros_m.csv.gz", 0.1, ["zeros"])
    add("num5:m:k0.5", "num5.csv.gz", "num5_m.csv.gz", 0.5, ["small"])
    add("num3:m:k0.5", "num3.csv.gz", "num3_m.csv.gz", 0.5, ["small"])
    add("dup60:m:k0.05", files["dup60"], files["dup60_m"], 0.05, ["small"])
    add("dup60:mna:k0.05", files["dup60"], files["dup60_mna"], 0.05, ["na-masked", "all-missing-record"])
    add("num_mixed:m:int+lgl:k0.1", "num_mixed.csv.gz", "num_mixed_m.csv.gz", 0.1, ["integer", "logical"],
        ["v1", "v2", "i1", "l1"])
    # refusals (sdcMicro stops) and sdcMicro's recycling of different column counts (pysdc refuses)
    add("num200:m150:rows", "num200.csv.gz", "num200_m150.csv.gz", 0.05, ["error", "different-rows"], NUM200)
    add("num_mixed:m:character", "num_mixed.csv.gz", "num_mixed_m.csv.gz", 0.1, ["error", "character-column"],
        ["v1", "c1"])
    _pair_case(out, "dRisk", "num200:addnoise50:x2-xm5", "num200.csv.gz", "num200__addnoise50.csv.gz",
               {"k": 0.05}, ["different-columns", "recycling"], x_columns=NUM200[:2], xm_columns=NUM200_ALL)
    _pair_case(out, "dRisk", "num200:addnoise50:x5-xm2", "num200.csv.gz", "num200__addnoise50.csv.gz",
               {"k": 0.05}, ["different-columns", "recycling"], x_columns=NUM200_ALL, xm_columns=NUM200[:2])
    return out


def drisk_rmd_cases(files: dict[str, str]) -> list[dict]:
    out = []

    def add(cid, x, xm, k, k2, tags, columns=None, **sides):
        args = {}
        if k is not None:
            args["k"] = k
        if k2 is not None:
            args["k2"] = k2
        _pair_case(out, "dRiskRMD", cid, x, xm, args, tags, columns, **sides)

    for m in ["addnoise10", "addnoise50", "addnoise150", "mdav3", "rankswap", "topcode"]:
        add(f"num200:{m}:3vars:default", "num200.csv.gz", f"num200__{m}.csv.gz", None, None, [m, "default-k"],
            NUM200)
        add(f"num200:{m}:3vars:k2:k2-0.1", "num200.csv.gz", f"num200__{m}.csv.gz", 2, 0.1, [m], NUM200)
        add(f"num200:{m}:3vars:k10:k2-0.3", "num200.csv.gz", f"num200__{m}.csv.gz", 10, 0.3, [m], NUM200)
    add("num200:addnoise50:5vars:default", "num200.csv.gz", "num200__addnoise50.csv.gz", None, None,
        ["unmasked-columns"])
    add("num200:addnoise50:5vars:k2-0.5", "num200.csv.gz", "num200__addnoise50.csv.gz", 0.01, 0.5,
        ["unmasked-columns"])
    add("num200:addnoise50:xm2of5", "num200.csv.gz", "num200__addnoise50.csv.gz", 5, 0.05,
        ["xm-fewer-columns"], None, xm_columns=NUM200[:2])
    add("num200:m:3vars:k5", "num200.csv.gz", "num200_m.csv.gz", 5, 0.05, ["noise"], NUM200)
    add("num200:m:3vars:k-1", "num200.csv.gz", "num200_m.csv.gz", -1, 0.05, ["k-negative"], NUM200)
    add("num200:m:3vars:k5:k2-neg", "num200.csv.gz", "num200_m.csv.gz", 5, -1, ["k2-negative"], NUM200)
    add("num200:m:3vars:k5:k2-0", "num200.csv.gz", "num200_m.csv.gz", 5, 0, ["k2-zero"], NUM200)
    add("num200:m_na:3vars:k5", "num200.csv.gz", "num200_m_na.csv.gz", 5, 0.2, ["na-masked"], NUM200)
    add("num200_na:m:3vars:k5", "num200_na.csv.gz", "num200_m.csv.gz", 5, 0.2, ["na-original"], NUM200)
    add("num200:addnoise50:income", "num200.csv.gz", "num200__addnoise50.csv.gz", 5, 0.05,
        ["one-variable", "deterministic"], ["income"])
    add("num200:mdav3:savings", "num200.csv.gz", "num200__mdav3.csv.gz", 20, 0.01,
        ["one-variable", "deterministic"], ["savings"])
    add("num_1col:m", "num_1col.csv.gz", "num_1col_m.csv.gz", 5, 0.05, ["one-variable", "deterministic"])
    for m in ["addnoise50", "mdav3", "rankswap"]:
        add(f"num1000:{m}:default", "num1000.csv.gz", f"num1000__{m}.csv.gz", None, None, [m, "default-k"])
        add(f"num1000:{m}:k5:k2-0.2", "num1000.csv.gz", f"num1000__{m}.csv.gz", 5, 0.2, [m])
    add("num1000:m:k5", "num1000.csv.gz", "num1000_m.csv.gz", 5, 0.1, ["noise"])
    f = files
    for m in ["demo__addnoise50", "demo__mdav3", "demo__rankswap", "demo__topcode", "demo_masked"]:
        add(f"demo_cc:{m}:k5", f["demo_cc"], f[m], 5, 0.05, ["demo", "complete-records"])
    add("demo_cc:demo__addnoise50:default", f["demo_cc"], f["demo__addnoise50"], None, None,
        ["demo", "complete-records", "default-k"])
    add("demo:addnoise50:na-original", "demo.csv.gz", "demo__addnoise50.csv.gz", 5, 0.05,
        ["demo", "na-original"], DEMO_NUM)
    for name in ["small20", "small15"]:
        add(f"{name}:k1", f[name], f[name + "_m"], 1, 0.1, ["small", "deterministic", "enumerated-mcd"])
        add(f"{name}:k10:k2-2", f[name], f[name + "_m"], 10, 2, ["small", "deterministic", "enumerated-mcd"])
    add("dup60:m:k50", f["dup60"], f["dup60_m"], 50, 0.05, ["duplicates"])
    add("dup60:mna:k50", f["dup60"], f["dup60_mna"], 50, 0.05, ["na-masked", "all-missing-record"])
    add("num_mixed:m:int+lgl", "num_mixed.csv.gz", "num_mixed_m.csv.gz", 5, 0.05, ["integer", "logical"],
        ["v1", "v2", "i1", "l1"])
    # refusals
    add("num_const:m", "num_const.csv.gz", "num_const_m.csv.gz", 5, 0.05, ["error", "constant-column"])
    add("num3:m", "num3.csv.gz", "num3_m.csv.gz", 5, 0.05, ["error", "too-few-records"])
    add("num_mixed:m:factor", "num_mixed.csv.gz", "num_mixed_m.csv.gz", 5, 0.05, ["error", "factor-column"],
        ["v1", "v2", "f1"])
    add("num200:addnoise50:x2-xm3", "num200.csv.gz", "num200__addnoise50.csv.gz", 5, 0.05,
        ["error", "xm-column-not-in-x"], None, x_columns=NUM200[:2], xm_columns=NUM200)
    add("num_singular:m", "num_singular.csv.gz", "num_singular_m.csv.gz", 5, 0.05, ["singular"])
    add("num200:m150:rows", "num200.csv.gz", "num200_m150.csv.gz", 5, 0.05, ["different-rows"], NUM200)
    return out


def main() -> None:
    files = make_inputs()
    CASES.mkdir(exist_ok=True)
    for fun, cases in [("kAnon_violations", kanon_cases()), ("dRisk", drisk_cases(files)),
                       ("dRiskRMD", drisk_rmd_cases(files))]:
        ids = [c["id"] for c in cases]
        assert len(ids) == len(set(ids)), f"duplicate case ids in {fun}"
        (CASES / f"{fun}.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
        print(f"cases/{fun}.json: {len(cases)} cases")


if __name__ == "__main__":
    main()
