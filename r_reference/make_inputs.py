"""Generate the stored inputs and case lists of pysdc's sdcMicro reference corpus.

Run by ``r_reference/regenerate.sh`` (from the ``r_reference`` directory)::

    python3 make_inputs.py

Writes

* ``inputs/<name>.csv.gz`` + ``inputs/<name>.schema.json`` -- synthetic tables in
  pysdc's typed-table format, drawn with a fixed NumPy seed (the R side never
  draws random inputs: it reads these files);
* ``cases/masks.json`` -- the masked versions that ``make_masked_inputs.R``
  produces with sdcMicro's own methods (addNoise, microaggregation, rankSwap,
  pram, localSuppression, topBotCoding) and stores as inputs too;
* ``cases/<function>.json`` -- one case list per sdcMicro function, with the
  arguments under sdcMicro's own names. ``generate_<function>.R`` reads it.

Every input is the project's own: synthetic tables drawn here, small hand-made
frames, and pysdc's demo data (``pysdc.load_demo()``, original and masked) with
masked versions of it made by sdcMicro. sdcMicro's bundled data sets are
deliberately not used (we do not redistribute them).

Everything here is deterministic: rerunning it gives byte-identical files.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"
CASES = HERE / "cases"
SEED = 20240611

#: pysdc's demo data: key variables, continuous variables, sensitive variable
DEMO_KEYS = ["region", "urbrur", "sex", "age_group", "education"]
DEMO_NUM = ["income", "expenditure", "savings"]
DEMO_CAT = ["region", "urbrur", "sex", "age_group", "marital", "education", "health_status"]

#: every table written by make_inputs (name -> frame), to tag cases from the data itself
FRAMES: dict[str, pd.DataFrame] = {}

sys.path.insert(0, str(HERE.parent))


# --------------------------------------------------------------- table writer

def _write_table(df: pd.DataFrame, name: str) -> str:
    """Store ``df`` as inputs/<name>.csv.gz in pysdc's typed-table format."""
    from pysdc.io import write_table

    path = INPUTS / f"{name}.csv.gz"
    write_table(df, path)
    FRAMES[name] = df
    return path.name


# ------------------------------------------------------------------- inputs

def _num_frame(rng, n, p, *, names=None, lognormal=False, corr=0.5):
    cov = np.full((p, p), corr) + np.eye(p) * (1 - corr)
    z = rng.multivariate_normal(np.zeros(p), cov, size=n)
    if lognormal:
        z = np.round(np.exp(1.0 + 0.8 * z) * 1000, 2)
    else:
        z = np.round(10 + 2 * z, 4)
    names = names or [f"v{i + 1}" for i in range(p)]
    return pd.DataFrame(z, columns=names)


def _perturb(rng, df, rel=0.05):
    out = df.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c]):
            sd = np.nanstd(out[c].to_numpy())
            out[c] = np.round(out[c] + rng.normal(0, rel * (sd if sd > 0 else 1), len(out)), 4)
    return out


def _with_na(rng, df, cols, frac):
    out = df.copy()
    for c in cols:
        mask = rng.random(len(out)) < frac
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out.loc[mask, c] = np.nan
        elif pd.api.types.is_integer_dtype(out[c]):
            out[c] = out[c].astype("Int64")
            out.loc[mask, c] = pd.NA
        elif pd.api.types.is_bool_dtype(out[c]):
            out[c] = out[c].astype("boolean")
            out.loc[mask, c] = pd.NA
        else:
            out.loc[mask, c] = np.nan
    return out


def _cat(values, levels, ordered=False):
    return pd.Categorical(values, categories=levels, ordered=ordered)


def _keys_frame(rng, n, n_households):
    """Key variables of every R class, weights, household ids, sensitive variables."""
    hid = np.sort(rng.integers(1, n_households + 1, n))
    df = pd.DataFrame({
        "k1": _cat(rng.choice(["a", "b", "c", "d"], n, p=[0.4, 0.3, 0.2, 0.1]), ["a", "b", "c", "d"]),
        "k2": _cat(rng.choice(["low", "mid", "high"], n), ["low", "mid", "high"], ordered=True),
        "k3": rng.integers(1, 6, n).astype(np.int64),
        "k4": rng.integers(1, 3, n).astype(np.float64),
        "kc": rng.choice(["x", "y", "z"], n).astype(object),
        "kl": rng.random(n) < 0.4,
        "w": np.round(rng.uniform(5, 120, n)),
        "wf": np.round(rng.uniform(1, 50, n), 3),
        "hid": hid.astype(np.int64),
        "s1": _cat(rng.choice(list("pqrst"), n), list("pqrst")),
        "s2": rng.integers(1, 4, n).astype(np.int64),
        "s3": np.round(rng.normal(50, 10, n), 1),
    })
    return df


def make_inputs() -> dict:
    rng = np.random.default_rng(SEED)
    INPUTS.mkdir(exist_ok=True)
    t = {}

    # ---- numeric tables (dUtility, IL_correl)
    x5 = pd.DataFrame({"a": [1.0, 2.5, 4.0, 8.0, 3.25], "b": [10.0, -3.0, 7.5, 2.0, 6.0], "c": [0.5, 0.25, 2.0, 1.0, 3.0]})
    t["num5"] = _write_table(x5, "num5")
    t["num5_m"] = _write_table(x5 + np.array([[0.1, 0, -0.2], [0, 0.5, 0], [-0.3, 0, 0.1], [0, -1, 0], [0.25, 0, 0]]), "num5_m")

    x50 = _num_frame(rng, 50, 4)
    t["num50"] = _write_table(x50, "num50")
    t["num50_m"] = _write_table(_perturb(rng, x50, 0.1), "num50_m")

    x200 = _num_frame(rng, 200, 3, names=["income", "expend", "savings"], lognormal=True, corr=0.6)
    x200["age"] = rng.integers(18, 90, 200).astype(np.int64)
    x200["hours"] = rng.integers(0, 60, 200).astype(np.int64)
    t["num200"] = _write_table(x200, "num200")
    t["num200_m"] = _write_table(_perturb(rng, x200, 0.05), "num200_m")
    x200na = _with_na(rng, x200, ["income", "expend", "savings"], 0.06)
    t["num200_na"] = _write_table(x200na, "num200_na")
    m = _perturb(rng, x200, 0.05)
    t["num200_m_na"] = _write_table(_with_na(rng, m, ["income", "savings"], 0.08), "num200_m_na")
    t["num200_na_m_na"] = _write_table(_with_na(rng, _perturb(rng, x200na, 0.05), ["income", "expend"], 0.08), "num200_na_m_na")
    t["num200_m150"] = _write_table(_perturb(rng, x200, 0.05).iloc[:150].reset_index(drop=True), "num200_m150")

    x1000 = _num_frame(rng, 1000, 4, corr=0.3)
    t["num1000"] = _write_table(x1000, "num1000")
    t["num1000_m"] = _write_table(_perturb(rng, x1000, 0.2), "num1000_m")

    x10k = _num_frame(rng, 10000, 4, names=["income", "expend", "savings", "wealth"], lognormal=True, corr=0.4)
    t["num10000"] = _write_table(x10k, "num10000")
    t["num10000_m"] = _write_table(_perturb(rng, x10k, 0.1), "num10000_m")

    # degenerate numeric inputs
    xc = x50.copy()
    xc["v4"] = 3.0
    t["num_const"] = _write_table(xc, "num_const")
    xcm = _perturb(rng, x50, 0.1)
    xcm["v4"] = 3.0
    t["num_const_m"] = _write_table(xcm, "num_const_m")
    xcm2 = xcm.copy()
    xcm2["v4"] = 3.0 + rng.normal(0, 0.1, 50)
    t["num_const_m2"] = _write_table(xcm2, "num_const_m2")
    xz = x50.copy()
    xz.loc[[0, 5, 17], "v1"] = 0.0
    t["num_zeros"] = _write_table(xz, "num_zeros")
    xzm = xz.copy()
    xzm.loc[[5, 9], "v1"] = [0.0, 1.5]
    xzm.loc[0, "v1"] = 0.75
    t["num_zeros_m"] = _write_table(xzm, "num_zeros_m")
    xzc = x50.copy()
    xzc["v2"] = 0.0
    t["num_zerocol"] = _write_table(xzc, "num_zerocol")
    xzcm = xzc.copy()
    xzcm.loc[3, "v2"] = 1.0
    t["num_zerocol_m"] = _write_table(xzcm, "num_zerocol_m")
    xs = x50.copy()
    xs["v4"] = xs["v1"] + 2 * xs["v2"]
    t["num_singular"] = _write_table(xs, "num_singular")
    t["num_singular_m"] = _write_table(_perturb(rng, xs, 0.1), "num_singular_m")
    t["num_1col"] = _write_table(x50[["v1"]], "num_1col")
    t["num_1col_m"] = _write_table(_perturb(rng, x50[["v1"]], 0.1), "num_1col_m")
    t["num3"] = _write_table(x5.iloc[:3].reset_index(drop=True), "num3")
    t["num3_m"] = _write_table((x5.iloc[:3] * 1.1).reset_index(drop=True), "num3_m")

    mixed = x50.copy()
    mixed["i1"] = rng.integers(0, 100, 50).astype(np.int64)
    mixed["l1"] = rng.random(50) < 0.5
    mixed["f1"] = _cat(rng.choice(["u", "v"], 50), ["u", "v"])
    mixed["c1"] = rng.choice(["s", "t"], 50).astype(object)
    t["num_mixed"] = _write_table(mixed, "num_mixed")
    mm = _perturb(rng, mixed, 0.1)
    mm["i1"] = (mm["i1"] + rng.integers(-3, 4, 50)).astype(np.int64)
    t["num_mixed_m"] = _write_table(mm, "num_mixed_m")
    # xm with the columns in another order and one column less / one more
    t["num50_m_reordered"] = _write_table(
        _perturb(rng, x50, 0.1)[["v3", "v1", "v4"]].assign(extra=rng.normal(size=50)), "num50_m_reordered"
    )

    # ---- mixed-scale tables (IL_variables)
    lev3 = ["lo", "mid", "hi"]
    mix5 = pd.DataFrame({
        "num": [1.0, 2.0, 3.5, -1.0, 10.0],
        "ord": _cat(["lo", "mid", "hi", "mid", "lo"], lev3, ordered=True),
        "fac": _cat(["a", "b", "a", "c", "b"], ["a", "b", "c"]),
        "chr": np.array(["p", "q", "p", "q", "r"], dtype=object),
    })
    t["mix5"] = _write_table(mix5, "mix5")
    mix5m = pd.DataFrame({
        "num": [1.5, 2.0, 3.0, -1.0, 12.0],
        "ord": _cat(["mid", "mid", "lo", "mid", "hi"], lev3, ordered=True),
        "fac": _cat(["a", "c", "a", "c", "a"], ["a", "b", "c"]),
        "chr": np.array(["p", "p", "p", "q", "r"], dtype=object),
    })
    t["mix5_m"] = _write_table(mix5m, "mix5_m")

    n = 300
    lev5 = ["1", "2", "3", "4", "5"]
    mix300 = pd.DataFrame({
        "income": np.round(np.exp(rng.normal(8, 1, n)), 2),
        "score": rng.normal(0, 1, n),
        "edu": _cat(rng.choice(lev5, n), lev5, ordered=True),
        "region": _cat(rng.choice(["N", "S", "E", "W"], n), ["N", "S", "E", "W"]),
        "job": rng.choice(["clerk", "farmer", "teacher", "nurse"], n).astype(object),
    })
    t["mix300"] = _write_table(mix300, "mix300")
    mm = mix300.copy()
    mm["income"] = mm["income"] * np.exp(rng.normal(0, 0.05, n))
    mm["score"] = mm["score"] + rng.normal(0, 0.2, n)
    chg = rng.random(n) < 0.15
    codes = mm["edu"].cat.codes.to_numpy().copy()
    codes[chg] = np.clip(codes[chg] + rng.choice([-2, -1, 1, 2], chg.sum()), 0, 4)
    mm["edu"] = pd.Categorical.from_codes(codes, categories=lev5, ordered=True)
    chg = rng.random(n) < 0.1
    mm.loc[chg, "region"] = "N"
    chg = rng.random(n) < 0.1
    mm.loc[chg, "job"] = "clerk"
    t["mix300_m"] = _write_table(mm, "mix300_m")
    x_na = _with_na(rng, mix300, ["income", "edu", "region", "job"], 0.05)
    t["mix300_na"] = _write_table(x_na, "mix300_na")
    m_na = _with_na(rng, mm, ["income", "score", "edu", "region", "job"], 0.05)
    # a few rows missing on both sides
    both = [3, 10, 42]
    for c in ["income", "edu", "region", "job"]:
        x_na.loc[both, c] = np.nan
        m_na.loc[both, c] = np.nan
    t["mix300_na_both"] = _write_table(x_na, "mix300_na_both")
    t["mix300_m_na"] = _write_table(m_na, "mix300_m_na")

    t["mix_int"] = _write_table(mix5.assign(cnt=np.array([1, 2, 3, 4, 5], dtype=np.int64)), "mix_int")
    t["mix_int_m"] = _write_table(mix5m.assign(cnt=np.array([1, 2, 2, 4, 6], dtype=np.int64)), "mix_int_m")
    t["mix_lgl"] = _write_table(mix5.assign(flag=[True, False, True, True, False]), "mix_lgl")
    t["mix_lgl_m"] = _write_table(mix5m.assign(flag=[True, True, True, False, False]), "mix_lgl_m")
    t["mix_cls_m"] = _write_table(mix5m.assign(num=_cat(["1", "2", "3", "4", "5"], ["1", "2", "3", "4", "5"])), "mix_cls_m")
    t["mix_ord1"] = _write_table(mix5.assign(one=_cat(["z"] * 5, ["z"], ordered=True)), "mix_ord1")
    t["mix_ord1_m"] = _write_table(mix5m.assign(one=_cat(["z", "z", None, "z", "z"], ["z"], ordered=True)), "mix_ord1_m")
    t["mix_num_only"] = _write_table(mix300[["income", "score"]], "mix_num_only")
    t["mix_num_only_m"] = _write_table(mm[["score", "income"]], "mix_num_only_m")
    t["mix_allna_m"] = _write_table(mix5m.assign(num=np.nan), "mix_allna_m")

    # ---- key tables (freqCalc, indivRisk, measure_risk, ldiversity)
    k8 = pd.DataFrame({
        "k1": _cat(["a", "a", "b", "b", "a", "c", "a", "b"], ["a", "b", "c"]),
        "k2": _cat(["x", "y", "x", "x", "x", "y", "y", "x"], ["x", "y"]),
        "w": [10.0, 20.0, 5.0, 15.0, 30.0, 8.0, 12.0, 40.0],
        "hid": np.array([1, 1, 2, 2, 2, 3, 4, 4], dtype=np.int64),
        "s1": _cat(["p", "q", "p", "p", "r", "q", "q", "p"], ["p", "q", "r"]),
    })
    t["keys8"] = _write_table(k8, "keys8")
    k8na = k8.copy()
    k8na.loc[[1, 6], "k1"] = np.nan
    k8na.loc[[6, 7], "k2"] = np.nan
    t["keys8_na"] = _write_table(k8na, "keys8_na")
    k5 = k8.iloc[:5].reset_index(drop=True)
    t["keys5"] = _write_table(k5, "keys5")

    k300 = _keys_frame(rng, 300, 110)
    t["keys300"] = _write_table(k300, "keys300")
    t["keys300_na1"] = _write_table(_with_na(rng, k300, ["k1"], 0.06), "keys300_na1")
    kn = _with_na(rng, k300, ["k1", "k2", "k3", "k4", "kl"], 0.07)
    allna = [7, 99, 250]
    for c in ["k1", "k2", "k3", "k4", "kl"]:
        kn.loc[allna, c] = pd.NA if str(kn[c].dtype) in ("Int64", "boolean") else np.nan
    kn = _with_na(rng, kn, ["s1", "s3"], 0.05)
    t["keys300_nam"] = _write_table(kn, "keys300_nam")
    kw = k300.copy()
    kw.loc[[4, 40], "w"] = 0.0
    t["keys300_w0"] = _write_table(kw, "keys300_w0")
    kwn = k300.copy()
    kwn.loc[[4, 40], "w"] = np.nan
    t["keys300_wna"] = _write_table(kwn, "keys300_wna")
    kallna = k300.iloc[:20].copy()
    kallna["k1"] = pd.Categorical([None] * 20, categories=["a", "b", "c", "d"])
    kallna["k3"] = pd.array([pd.NA] * 20, dtype="Int64")
    t["keys20_allna"] = _write_table(kallna.reset_index(drop=True), "keys20_allna")

    k2000 = _keys_frame(rng, 2000, 700)
    t["keys2000"] = _write_table(k2000, "keys2000")
    t["keys2000_na"] = _write_table(_with_na(rng, k2000, ["k1", "k2", "k3"], 0.02), "keys2000_na")

    k10k = _keys_frame(rng, 10000, 3500)
    t["keys10000"] = _write_table(k10k, "keys10000")
    t["keys10000_na"] = _write_table(_with_na(rng, k10k, ["k1", "k2", "k3", "k4"], 0.01), "keys10000_na")

    # ---- a hand-made 8-record frame: double-valued keys with missing values in
    # several patterns (one, two or no key missing per record), fractional weights,
    # households; small enough to check freqCalc's wildcard counts by hand
    nan = np.nan
    hand8 = pd.DataFrame({
        "x1": [0.5, 1.25, 3.0, 0.75, 2.5, 4.0, 1.0, 2.0],
        "h1": [1.0, 1.0, 2.0, 2.0, nan, 1.0, 2.0, 1.0],
        "h2": [3.0, 3.0, 3.0, 4.0, 4.0, nan, 3.0, nan],
        "h3": [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, nan, nan],
        "h4": [10.0, 20.0, 10.0, 10.0, 20.0, 20.0, nan, 10.0],
        "w": [18.5, 40.0, 9.25, 21.0, 35.5, 12.0, 27.75, 15.0],
        "hid": np.array([1, 1, 2, 3, 3, 4, 5, 5], dtype=np.int64),
        "s1": _cat(["p", "p", "q", "p", "r", "q", "p", "q"], ["p", "q", "r"]),
    })
    t["hand8"] = _write_table(hand8, "hand8")

    # ---- pysdc's demo data (3930 persons in 1500 households), original and masked
    import pysdc

    t["demo"] = _write_table(pysdc.load_demo(), "demo")
    t["demo_masked"] = _write_table(pysdc.load_demo(masked=True), "demo_masked")
    return t


# ------------------------------------------------------------------ masks

def masks() -> list[dict]:
    """Masked versions produced by sdcMicro's own methods (run by make_masked_inputs.R)."""
    m = []
    seed = 100
    # (the seeds advance for every method, so each mask keeps its seed whichever are stored;
    # num1000 needs only addNoise 50, mdav and rankSwap)
    for src, variables in [("num200", ["income", "expend", "savings"]), ("num1000", ["v1", "v2", "v3", "v4"])]:
        full = src == "num200"
        for noise in (10, 50, 150):
            seed += 1
            if full or noise == 50:
                m.append({"output": f"{src}__addnoise{noise}.csv.gz", "source": f"{src}.csv.gz", "method": "addNoise",
                          "args": {"variables": variables, "noise": noise, "method": "additive"}, "seed": seed})
        seed += 1
        m.append({"output": f"{src}__mdav3.csv.gz", "source": f"{src}.csv.gz", "method": "microaggregation",
                  "args": {"variables": variables, "aggr": 3, "method": "mdav"}, "seed": seed})
        seed += 1
        m.append({"output": f"{src}__rankswap.csv.gz", "source": f"{src}.csv.gz", "method": "rankSwap",
                  "args": {"variables": variables}, "seed": seed})
        seed += 1
        if full:
            m.append({"output": f"{src}__topcode.csv.gz", "source": f"{src}.csv.gz", "method": "topBotCoding",
                      "args": {"column": variables[0], "quantile": 0.9, "kind": "top"}, "seed": seed})
    # pysdc's demo data masked by sdcMicro. "keep" stores only the columns the cases
    # use (the continuous masks keep only the masked variables), to keep the corpus small.
    not_num = ["hid", "region", "urbrur", "hhsize", "sex", "age_group", "marital", "education", "health_status",
               "weight"]
    m += [
        {"output": "demo__addnoise50.csv.gz", "source": "demo.csv.gz", "method": "addNoise",
         "args": {"variables": DEMO_NUM, "noise": 50, "method": "additive", "keep": DEMO_NUM}, "seed": 202},
        {"output": "demo__mdav3.csv.gz", "source": "demo.csv.gz", "method": "microaggregation",
         "args": {"variables": DEMO_NUM, "aggr": 3, "method": "mdav", "keep": DEMO_NUM}, "seed": 203},
        {"output": "demo__locsupp3.csv.gz", "source": "demo.csv.gz", "method": "localSuppression",
         "args": {"keyVars": DEMO_KEYS, "k": 3, "weightVar": "weight", "hhId": "hid", "via": "sdcObj",
                  "keep": not_num}, "seed": 204},
        {"output": "demo__locsupp5_4keys.csv.gz", "source": "demo.csv.gz", "method": "localSuppression",
         "args": {"keyVars": ["region", "urbrur", "sex", "age_group"], "k": 5,
                  "keep": ["hid", "region", "urbrur", "sex", "age_group", "weight"]}, "seed": 205},
        {"output": "demo__pram.csv.gz", "source": "demo.csv.gz", "method": "pram",
         "args": {"variables": ["marital", "health_status"], "keep": ["marital", "health_status"]}, "seed": 206},
        {"output": "demo__rankswap.csv.gz", "source": "demo.csv.gz", "method": "rankSwap",
         "args": {"variables": DEMO_NUM, "keep": DEMO_NUM}, "seed": 212},
        {"output": "demo__topcode.csv.gz", "source": "demo.csv.gz", "method": "topBotCoding",
         "args": {"column": "income", "quantile": 0.95, "kind": "top", "keep": DEMO_NUM}, "seed": 213},
        {"output": "mix300__pram.csv.gz", "source": "mix300.csv.gz", "method": "pram",
         "args": {"variables": ["region"]}, "seed": 207},
        {"output": "mix300__topcode.csv.gz", "source": "mix300.csv.gz", "method": "topBotCoding",
         "args": {"column": "income", "quantile": 0.95, "kind": "top"}, "seed": 208},
        {"output": "mix300__botcode.csv.gz", "source": "mix300.csv.gz", "method": "topBotCoding",
         "args": {"column": "score", "quantile": 0.05, "kind": "bottom"}, "seed": 209},
        {"output": "keys300__locsupp2.csv.gz", "source": "keys300.csv.gz", "method": "localSuppression",
         "args": {"keyVars": ["k1", "k2", "k3"], "k": 2}, "seed": 210},
        {"output": "keys2000__locsupp3.csv.gz", "source": "keys2000.csv.gz", "method": "localSuppression",
         "args": {"keyVars": ["k1", "k2", "k3", "k4"], "k": 3}, "seed": 211},
    ]
    return m


# ------------------------------------------------------------------- cases

def _case(cases, cid, inputs, args, tags=()):
    cases.append({"id": cid, "inputs": inputs, "args": args, "tags": sorted(set(tags))})


def _stem(f):
    return f[: -len(".csv.gz")]


def cases_dutility(t):
    c = []
    methods = ["IL1", "IL1s", "eigen", "robeigen"]
    pairs = [
        ("num5.csv.gz", "num5_m.csv.gz", ["tiny"]),
        ("num3.csv.gz", "num3_m.csv.gz", ["tiny"]),
        ("num50.csv.gz", "num50_m.csv.gz", []),
        ("num200.csv.gz", "num200_m.csv.gz", ["integer-columns"]),
        ("num200.csv.gz", "num200__addnoise10.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200__addnoise50.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200__addnoise150.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200__mdav3.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200__rankswap.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200__topcode.csv.gz", ["sdcmicro-masked", "integer-columns"]),
        ("num200.csv.gz", "num200_m_na.csv.gz", ["na-masked"]),
        ("num200_na.csv.gz", "num200_m.csv.gz", ["na-original"]),
        ("num200_na.csv.gz", "num200_na_m_na.csv.gz", ["na-both"]),
        ("num1000.csv.gz", "num1000_m.csv.gz", []),
        ("num1000.csv.gz", "num1000__addnoise50.csv.gz", ["sdcmicro-masked"]),
        ("num1000.csv.gz", "num1000__mdav3.csv.gz", ["sdcmicro-masked"]),
        ("num1000.csv.gz", "num1000__rankswap.csv.gz", ["sdcmicro-masked"]),
        ("num10000.csv.gz", "num10000_m.csv.gz", ["large"]),
        ("num_const.csv.gz", "num_const_m.csv.gz", ["degenerate", "constant-column"]),
        ("num_const.csv.gz", "num_const_m2.csv.gz", ["degenerate", "constant-column"]),
        ("num_zeros.csv.gz", "num_zeros_m.csv.gz", ["degenerate", "zeros"]),
        ("num_zerocol.csv.gz", "num_zerocol_m.csv.gz", ["degenerate", "zero-column"]),
        ("num_singular.csv.gz", "num_singular_m.csv.gz", ["degenerate", "singular"]),
        ("num_1col.csv.gz", "num_1col_m.csv.gz", ["one-column"]),
        ("num50.csv.gz", "num50.csv.gz", ["identical"]),
    ]
    for x, xm, tags in pairs:
        for meth in methods:
            big = "num10000" in x
            if meth == "robeigen" and (big or "num3" in x):
                continue  # covMcd on 10,000 rows x 10 seeds is slow; 3 rows < covMcd's minimum
            _case(c, f"dUtility:{_stem(x)}:{_stem(xm)}:{meth}", {"x": x, "xm": xm}, {"method": meth},
                  tags + [f"method-{meth}"])
    # pysdc's demo data: income/expenditure/savings (zeros, heavy tails, missing values on both sides)
    # against pysdc's masked release and against sdcMicro's own masks
    demo_pairs = [("demo_masked", ["demo-masked"])] + [
        (f"demo__{m}", ["sdcmicro-masked"]) for m in ("addnoise50", "mdav3", "rankswap", "topcode")]
    for xm, tags in demo_pairs:
        for meth in methods:
            _case(c, f"dUtility:demo:{xm}:{meth}:{'-'.join(DEMO_NUM)}",
                  {"x": "demo.csv.gz", "xm": f"{xm}.csv.gz", "columns": DEMO_NUM}, {"method": meth},
                  tags + ["demo", "na-both", "zeros", f"method-{meth}"])
    # refusals
    _case(c, "dUtility:num200:num200_m150:IL1s:nrow-mismatch", {"x": "num200.csv.gz", "xm": "num200_m150.csv.gz"},
          {"method": "IL1s"}, ["error", "nrow-mismatch"])
    _case(c, "dUtility:num50:num50_m:unknown-method", {"x": "num50.csv.gz", "xm": "num50_m.csv.gz"},
          {"method": "IL2"}, ["error", "unknown-method"])
    _case(c, "dUtility:num_mixed:num_mixed_m:IL1s:factor-columns", {"x": "num_mixed.csv.gz", "xm": "num_mixed_m.csv.gz"},
          {"method": "IL1s"}, ["non-numeric-columns"])
    # xm passed to sdcMicro as a numeric *matrix* (as its own help page does with addNoise(x)$xm):
    # the flag "xm_matrix": true sits under "inputs" (it says how a stored input is handed over, not
    # an sdcMicro argument); generate_dUtility.R does xm <- as.matrix(xm) (after the column selection)
    # and pysdc's parity runner passes xm as a NumPy array. sdcMicro's IL1/IL1s then read xm[[i]], one
    # element, for column i (a known divergence); eigen/robeigen scale() the matrix as a data.frame.
    # Appended after every other case, method by method, so the earlier cases keep their positions.
    matrix_pairs = [
        ("num200", "num200__addnoise50", None, ["integer-columns"]),
        ("num1000", "num1000__addnoise50", None, []),
        ("demo", "demo__addnoise50", DEMO_NUM, ["demo", "na-both", "zeros"]),
    ]
    for meth in methods:
        for x, xm, cols, tags in matrix_pairs:
            inputs = {"x": f"{x}.csv.gz", "xm": f"{xm}.csv.gz", "xm_matrix": True}
            cid = f"dUtility:{x}:{xm}:{meth}"
            if cols:
                inputs["columns"] = cols
                cid += f":{'-'.join(cols)}"
            _case(c, f"{cid}:xm-matrix", inputs, {"method": meth},
                  tags + ["sdcmicro-masked", "xm-matrix", f"method-{meth}"])
    return c


def cases_il_correl(t):
    c = []
    pairs = [
        ("num5", "num5_m", ["tiny"]), ("num3", "num3_m", ["tiny"]), ("num50", "num50_m", []),
        ("num200", "num200_m", ["integer-columns"]), ("num200", "num200__addnoise10", ["sdcmicro-masked"]),
        ("num200", "num200__addnoise50", ["sdcmicro-masked"]), ("num200", "num200__addnoise150", ["sdcmicro-masked"]),
        ("num200", "num200__mdav3", ["sdcmicro-masked"]), ("num200", "num200__rankswap", ["sdcmicro-masked"]),
        ("num200", "num200__topcode", ["sdcmicro-masked"]),
        ("num200", "num200_m_na", ["na-masked"]), ("num200_na", "num200_m", ["na-original"]),
        ("num200_na", "num200_na_m_na", ["na-both"]), ("num200", "num200_m150", ["different-rows"]),
        ("num1000", "num1000_m", []), ("num1000", "num1000__addnoise50", ["sdcmicro-masked"]),
        ("num1000", "num1000__mdav3", ["sdcmicro-masked"]), ("num1000", "num1000__rankswap", ["sdcmicro-masked"]),
        ("num10000", "num10000_m", ["large"]),         ("num_const", "num_const_m", ["degenerate", "constant-column"]),
        ("num_const", "num_const_m2", ["degenerate", "constant-column"]),
        ("num_zeros", "num_zeros_m", ["zeros"]), ("num_zerocol", "num_zerocol_m", ["degenerate", "zero-column"]),
        ("num_singular", "num_singular_m", ["degenerate", "singular"]), ("num_1col", "num_1col_m", ["one-column"]),
        ("num50", "num50", ["identical"]), ("num_mixed", "num_mixed_m", ["non-numeric-columns"]),
        ("num50", "num50_m_reordered", ["column-subset"]),
        ("demo", "demo_masked", ["demo", "demo-masked", "integer-columns", "na-both"]),
        ("demo", "demo__addnoise50", ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__mdav3", ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__rankswap", ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__topcode", ["demo", "sdcmicro-masked", "na-both"]),
        ("mix300", "mix300_m", ["non-numeric-columns"]), ("mix5", "mix5_m", ["one-common-numeric"]),
    ]
    for x, xm, tags in pairs:
        _case(c, f"IL_correl:{x}:{xm}", {"x": f"{x}.csv.gz", "xm": f"{xm}.csv.gz"}, {}, tags)
    for cols in (DEMO_NUM, ["income", "savings"]):
        _case(c, f"IL_correl:demo:demo_masked:{'-'.join(cols)}",
              {"x": "demo.csv.gz", "xm": "demo_masked.csv.gz", "columns": cols}, {},
              ["demo", "demo-masked", "na-both"])
    return c


def cases_il_variables(t):
    c = []
    pairs = [
        ("mix5", "mix5_m", ["tiny"]), ("mix300", "mix300_m", []), ("mix300_na", "mix300_m", ["na-original"]),
        ("mix300", "mix300_m_na", ["na-masked"]), ("mix300_na_both", "mix300_m_na", ["na-both"]),
        ("mix300", "mix300__pram", ["sdcmicro-masked"]), ("mix300", "mix300__topcode", ["sdcmicro-masked"]),
        ("mix300", "mix300__botcode", ["sdcmicro-masked"]), ("mix300", "mix300", ["identical"]),
        ("mix_num_only", "mix_num_only_m", ["column-order"]), ("mix_ord1", "mix_ord1_m", ["degenerate", "one-level-ordered"]),
        ("mix5", "mix_allna_m", ["degenerate", "all-na-masked"]),
        ("mix_int", "mix_int_m", ["error", "integer-column"]), ("mix_lgl", "mix_lgl_m", ["error", "logical-column"]),
        ("mix5", "mix_cls_m", ["error", "class-mismatch"]),
        ("num50", "num50_m", ["numeric-only"]), ("num200", "num200__addnoise50", ["error", "integer-column"]),
        ("num1000", "num1000__mdav3", ["sdcmicro-masked"]), ("num10000", "num10000_m", ["large"]),
        ("num_const", "num_const_m", ["degenerate", "constant-column"]),
        ("num200_na", "num200_na_m_na", ["error", "integer-column"]),
        ("demo", "demo_masked", ["demo", "demo-masked", "error", "integer-column"]),
        ("demo", "demo__pram", ["demo", "sdcmicro-masked", "na-both"]),
    ]
    for x, xm, tags in pairs:
        _case(c, f"IL_variables:{x}:{xm}", {"x": f"{x}.csv.gz", "xm": f"{xm}.csv.gz"}, {}, tags)
    # column subsets that avoid sdcMicro's integer refusal
    subsets = [
        ("num200", "num200__addnoise50", ["income", "expend", "savings"], ["sdcmicro-masked"]),
        ("num200_na", "num200_na_m_na", ["income", "expend", "savings"], ["na-both"]),
        ("demo", "demo_masked", DEMO_CAT + DEMO_NUM, ["demo", "demo-masked", "na-masked", "na-both"]),
        ("demo", "demo_masked", ["age_group", "education"], ["demo", "demo-masked", "na-masked", "ordered"]),
        ("demo", "demo__locsupp3", DEMO_KEYS, ["demo", "sdcmicro-masked", "na-masked", "na-both"]),
        ("demo", "demo__addnoise50", DEMO_NUM, ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__mdav3", DEMO_NUM, ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__topcode", DEMO_NUM, ["demo", "sdcmicro-masked", "na-both"]),
        ("demo", "demo__rankswap", DEMO_NUM, ["demo", "sdcmicro-masked", "na-both"]),
    ]
    for x, xm, cols, tags in subsets:
        _case(c, f"IL_variables:{x}:{xm}:{'-'.join(cols)}",
              {"x": f"{x}.csv.gz", "xm": f"{xm}.csv.gz", "columns": cols}, {}, tags)
    return c


KEYSETS = {
    "keys8": [["k1", "k2"], ["k1"]],
    "keys8_na": [["k1", "k2"], ["k1"], ["k2"]],
    "keys5": [["k1", "k2"]],
    "keys300": [["k1", "k2", "k3"], ["k1"], ["k2", "k3", "k4"], ["k1", "kl"], ["k1", "k2", "k3", "k4", "kl"]],
    "keys300_na1": [["k1", "k2", "k3"], ["k1"]],
    "keys300_nam": [["k1", "k2", "k3"], ["k1", "k2", "k3", "k4", "kl"], ["k3"], ["k2", "k4"]],
    "keys300__locsupp2": [["k1", "k2", "k3"]],
    "keys20_allna": [["k1", "k3"]],
    "keys2000": [["k1", "k2", "k3", "k4"]],
    "keys2000_na": [["k1", "k2", "k3", "k4"], ["k1", "k2"]],
    "keys2000__locsupp3": [["k1", "k2", "k3", "k4"]],
    "hand8": [["h1", "h2", "h3", "h4"], ["h1"]],
    "demo": [DEMO_KEYS, ["region", "sex"], ["education"]],
    "demo_masked": [DEMO_KEYS, ["age_group"]],
    "demo__locsupp3": [DEMO_KEYS],
    "demo__locsupp5_4keys": [["region", "urbrur", "sex", "age_group"], ["region"]],
}
WEIGHT = {"demo": "weight", "demo_masked": "weight", "demo__locsupp3": "weight", "demo__locsupp5_4keys": "weight"}
KEY_TAGS = {"k1": "factor-key", "k2": "ordered-key", "k3": "integer-key", "k4": "numeric-key", "kc": "character-key",
            "kl": "logical-key", "h1": "numeric-key", "h2": "numeric-key", "h3": "numeric-key", "h4": "numeric-key",
            "region": "factor-key", "urbrur": "factor-key", "sex": "factor-key", "age_group": "ordered-key",
            "education": "ordered-key"}


def _key_tags(name, keys):
    tags = ["single-key" if len(keys) == 1 else "several-keys"]
    df = FRAMES.get(name)
    if df is not None:  # tagged from the data (tables masked by sdcMicro are written later, by R)
        if df[keys].isna().any().any():
            tags.append("missing-keys")
        if df[keys].isna().all(axis=1).any():
            tags.append("all-keys-missing-rows")
    elif "locsupp" in name:
        tags.append("missing-keys")
    if name.startswith("demo"):
        tags.append("demo")
    if name == "demo_masked":
        tags.append("demo-masked")
    if "locsupp" in name:
        tags.append("sdcmicro-masked")
    for k in keys:
        tags.append(KEY_TAGS[k])
    return tags


def cases_freqcalc(t):
    c = []
    for name, keysets in KEYSETS.items():
        wname = WEIGHT.get(name, "w")
        for keys in keysets:
            for w in (None, wname):
                for alpha in (1, 0.5, 0):
                    args = {"keyVars": keys, "alpha": alpha}
                    if w:
                        args["w"] = w
                    tags = _key_tags(name, keys) + [f"alpha-{alpha}", "weights" if w else "no-weights"]
                    _case(c, f"freqCalc:{name}:{'+'.join(keys)}:{'w' if w else 'now'}:a{alpha}",
                          {"data": f"{name}.csv.gz"}, args, tags)
    for name in ("keys10000", "keys10000_na"):
        for w, alpha in ((None, 1), ("w", 1), ("w", 0.5)):
            args = {"keyVars": ["k1", "k2", "k3", "k4"], "alpha": alpha}
            if w:
                args["w"] = w
            tags = _key_tags(name, args["keyVars"]) + ["large", f"alpha-{alpha}", "weights" if w else "no-weights"]
            if name == "keys10000_na" and w:
                tags.append("rows-full")
            _case(c, f"freqCalc:{name}:k1+k2+k3+k4:{'w' if w else 'now'}:a{alpha}", {"data": f"{name}.csv.gz"}, args, tags)
    extra = [
        ("keys300", {"keyVars": ["kc"]}, ["character-key", "single-key"]),
        ("keys300", {"keyVars": ["k1", "kc"]}, ["character-key", "several-keys"]),
        ("keys300", {"keyVars": ["k1", "k2"], "w": "wf"}, ["weights", "fractional-weights"]),
        ("keys300_w0", {"keyVars": ["k1", "k2"], "w": "w"}, ["weights", "zero-weights"]),
        ("keys300_wna", {"keyVars": ["k1", "k2"], "w": "w"}, ["weights", "na-weights"]),
        ("keys300", {"keyVars": ["k1", "nokey"]}, ["error", "unknown-key"]),
        ("keys300", {"keyVars": ["k1"], "w": "noweight"}, ["error", "unknown-weight"]),
        ("keys300", {"keyVars": ["k1"], "alpha": 2}, ["alpha-out-of-range"]),
        ("keys300", {"keyVars": ["k1"], "alpha": -0.5}, ["alpha-out-of-range"]),
    ]
    for name, args, tags in extra:
        _case(c, f"freqCalc:{name}:{'+'.join(args['keyVars'])}:{args.get('w', 'now')}:a{args.get('alpha', 1)}",
              {"data": f"{name}.csv.gz"}, {"alpha": 1, **args}, tags)
    return c


def cases_indivrisk(t):
    c = []
    sources = [
        ("keys8", ["k1", "k2"], "w"), ("keys8_na", ["k1", "k2"], "w"), ("keys300", ["k1", "k2", "k3"], "w"),
        ("keys300", ["k1"], "w"), ("keys300_nam", ["k1", "k2", "k3"], "w"), ("keys300", ["k1", "k2"], "wf"),
        ("keys2000_na", ["k1", "k2", "k3", "k4"], "w"), ("keys2000", ["k1", "k2"], "w"),
        ("hand8", ["h1", "h2", "h3", "h4"], "w"),
        ("demo", DEMO_KEYS, "weight"), ("demo_masked", DEMO_KEYS, "weight"), ("demo__locsupp3", DEMO_KEYS, "weight"),
    ]
    for name, keys, w in sources:
        for method in ("approx", "exact"):
            for alpha in (1, 0.5):
                for qual, survey in ((1, True), (0.7, True), (1, False)):
                    if alpha != 1 and (qual != 1 or not survey):
                        continue
                    args = {"keyVars": keys, "w": w, "alpha": alpha, "method": method, "qual": qual, "survey": survey}
                    tags = _key_tags(name, keys) + [f"method-{method}", f"alpha-{alpha}",
                                                    "survey" if survey else "no-survey", f"qual-{qual}"]
                    _case(c, f"indivRisk:{name}:{'+'.join(keys)}:{w}:a{alpha}:{method}:q{qual}:{'s' if survey else 'ns'}",
                          {"data": f"{name}.csv.gz"}, args, tags)
    _case(c, "indivRisk:keys10000_na:k1+k2+k3+k4:w:a1:approx:q1:s", {"data": "keys10000_na.csv.gz"},
          {"keyVars": ["k1", "k2", "k3", "k4"], "w": "w", "alpha": 1, "method": "approx", "qual": 1, "survey": True},
          ["large", "method-approx", "missing-keys", "rows-full"])
    _case(c, "indivRisk:keys300:k1+k2:w:a1:unknown-method", {"data": "keys300.csv.gz"},
          {"keyVars": ["k1", "k2"], "w": "w", "alpha": 1, "method": "exactly", "qual": 1, "survey": True},
          ["error", "unknown-method"])
    return c


def cases_measure_risk(t):
    c = []
    sources = [
        ("keys8", ["k1", "k2"], "w", "hid"), ("keys8_na", ["k1", "k2"], "w", "hid"), ("keys5", ["k1", "k2"], "w", "hid"),
        ("keys300", ["k1", "k2", "k3"], "w", "hid"), ("keys300", ["k1"], "w", "hid"),
        ("keys300_na1", ["k1", "k2", "k3"], "w", "hid"), ("keys300_nam", ["k1", "k2", "k3", "k4", "kl"], "w", "hid"),
        ("keys300_nam", ["k3"], "w", "hid"), ("keys300", ["k1", "kc"], "w", "hid"),
        ("keys2000_na", ["k1", "k2", "k3", "k4"], "w", "hid"),
        ("hand8", ["h1", "h2", "h3", "h4"], "w", None), ("hand8", ["h1", "h2"], "w", "hid"),
        ("demo", DEMO_KEYS, "weight", "hid"), ("demo_masked", DEMO_KEYS, "weight", "hid"),
        ("demo__locsupp3", DEMO_KEYS, "weight", "hid"),
    ]
    for name, keys, w, hid in sources:
        combos = []
        for weights in (False, True):
            for alpha in (1, 0.5, 0):
                combos.append({"weights": weights, "alpha": alpha, "mgr": 0.01, "hier": None})
        for mgr in (0.001, 0.05, 0.1, 0.5, 0.99):
            combos.append({"weights": True, "alpha": 1, "mgr": mgr, "hier": None})
        if hid:
            for fast in (True, False):
                for weights in (False, True):
                    combos.append({"weights": weights, "alpha": 1, "mgr": 0.01, "hier": fast})
            combos.append({"weights": True, "alpha": 0.5, "mgr": 0.01, "hier": True})
        for k in combos:
            args = {"keyVars": keys, "alpha": k["alpha"], "max_global_risk": k["mgr"]}
            if k["weights"]:
                args["w"] = w
            if k["hier"] is not None:
                args["hid"] = hid
                args["fast_hier"] = k["hier"]
            tags = _key_tags(name, keys) + [f"alpha-{k['alpha']}", "weights" if k["weights"] else "no-weights",
                                            f"max_global_risk-{k['mgr']}"]
            if k["hier"] is not None:
                tags.append("households-fast" if k["hier"] else "households-exact")
            cid = (f"measure_risk:{name}:{'+'.join(keys)}:{'w' if k['weights'] else 'now'}:a{k['alpha']}:"
                   f"mgr{k['mgr']}:{'none' if k['hier'] is None else ('fast' if k['hier'] else 'exact')}")
            _case(c, cid, {"data": f"{name}.csv.gz"}, args, tags)
    big = [("keys10000", True), ("keys10000_na", True), ("keys10000_na", False)]
    for name, fast in big:
        args = {"keyVars": ["k1", "k2", "k3", "k4"], "w": "w", "hid": "hid", "fast_hier": fast, "alpha": 1,
                "max_global_risk": 0.01}
        _case(c, f"measure_risk:{name}:k1+k2+k3+k4:w:a1:mgr0.01:{'fast' if fast else 'exact'}", {"data": f"{name}.csv.gz"},
              args, ["large", "households-fast" if fast else "households-exact", "weights"]
              + (["rows-full"] if name == "keys10000_na" and fast else [])
              + (["missing-keys"] if "_na" in name else []))
    errors = [
        ("keys300", {"keyVars": ["k1"], "w": "w", "max_global_risk": 0}, ["error", "max_global_risk-0"]),
        ("keys300", {"keyVars": ["k1"], "w": "w", "max_global_risk": 1}, ["error", "max_global_risk-1"]),
        ("keys300", {"keyVars": ["k1"], "w": "w", "max_global_risk": -0.1}, ["error", "max_global_risk-negative"]),
        ("keys300", {"keyVars": ["k1"], "w": "w", "max_global_risk": 1.5}, ["error", "max_global_risk-above-1"]),
        ("keys300", {"keyVars": ["k1", "nokey"], "w": "w"}, ["error", "unknown-key"]),
        ("keys300", {"keyVars": ["k1"], "w": "noweight"}, ["error", "unknown-weight"]),
        ("keys300", {"keyVars": ["k1"], "w": "w", "hid": "nohid"}, ["error", "unknown-hid"]),
        ("keys300_wna", {"keyVars": ["k1", "k2"], "w": "w"}, ["na-weights"]),
        ("keys300_w0", {"keyVars": ["k1", "k2"], "w": "w"}, ["zero-weights"]),
        ("keys300", {"keyVars": ["k1", "k2"], "w": "wf", "hid": "hid", "fast_hier": True}, ["fractional-weights"]),
        ("keys20_allna", {"keyVars": ["k1", "k3"], "w": "w"}, ["all-keys-missing-rows", "degenerate"]),
    ]
    for name, args, tags in errors:
        args = {"alpha": 1, "max_global_risk": 0.01, **args}
        cid = (f"measure_risk:{name}:{'+'.join(args['keyVars'])}:{args.get('w', 'now')}:a1:"
               f"mgr{args['max_global_risk']}:{args.get('hid', 'none')}")
        _case(c, cid, {"data": f"{name}.csv.gz"}, args, tags)
    return c


def cases_ldiversity(t):
    c = []
    specs = [
        ("keys8", ["k1", "k2"], ["s1"]), ("keys8_na", ["k1", "k2"], ["s1"]),
        ("keys300", ["k1", "k2"], ["s1"]), ("keys300", ["k1", "k2"], ["s1", "s2"]), ("keys300", ["k1"], ["s3"]),
        ("keys300", ["k1", "k3", "kl"], ["s1", "s2", "s3"]), ("keys300_nam", ["k1", "k2"], ["s1", "s3"]),
        ("keys300_nam", ["k3"], ["s1"]), ("keys2000_na", ["k1", "k2", "k3"], ["s1", "s2"]),
        ("hand8", ["h1", "h2", "h3"], ["s1"]),
        ("demo", DEMO_KEYS, ["health_status"]), ("demo_masked", DEMO_KEYS, ["health_status"]),
        ("demo__locsupp3", DEMO_KEYS, ["health_status"]), ("demo__locsupp3", DEMO_KEYS, ["health_status", "marital"]),
        ("demo", ["region", "sex"], ["income"]),
    ]
    for name, keys, sens in specs:
        for lrc in (2, 3):
            _case(c, f"ldiversity:{name}:{'+'.join(keys)}:{'+'.join(sens)}:c{lrc}", {"data": f"{name}.csv.gz"},
                  {"keyVars": keys, "ldiv_index": sens, "l_recurs_c": lrc},
                  _key_tags(name, keys) + [f"l_recurs_c-{lrc}", "several-sensitive" if len(sens) > 1 else "one-sensitive"])
    _case(c, "ldiversity:keys300:k1+k2:s1:c1", {"data": "keys300.csv.gz"},
          {"keyVars": ["k1", "k2"], "ldiv_index": ["s1"], "l_recurs_c": 1}, ["l_recurs_c-1"])
    _case(c, "ldiversity:keys300:k1+k2:k1:c2", {"data": "keys300.csv.gz"},
          {"keyVars": ["k1", "k2"], "ldiv_index": ["k1"], "l_recurs_c": 2}, ["error", "sensitive-is-key"])
    _case(c, "ldiversity:keys300:k1+k2:nosens:c2", {"data": "keys300.csv.gz"},
          {"keyVars": ["k1", "k2"], "ldiv_index": ["nosens"], "l_recurs_c": 2}, ["error", "unknown-sensitive"])
    return c


def main() -> None:
    os.chdir(HERE)
    t = make_inputs()
    CASES.mkdir(exist_ok=True)
    writers = {
        "masks": masks(),
        "dUtility": cases_dutility(t),
        "IL_correl": cases_il_correl(t),
        "IL_variables": cases_il_variables(t),
        "freqCalc": cases_freqcalc(t),
        "indivRisk": cases_indivrisk(t),
        "measure_risk": cases_measure_risk(t),
        "ldiversity": cases_ldiversity(t),
    }
    for name, cases in writers.items():
        ids = [cc.get("id", cc.get("output")) for cc in cases]
        dup = [i for i in set(ids) if ids.count(i) > 1]
        if dup:
            raise SystemExit(f"duplicated case ids in {name}: {dup}")
        with open(CASES / f"{name}.json", "w") as fh:
            json.dump({"function": name, "generated": "by r_reference/make_inputs.py -- do not edit",
                       "cases": cases}, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"make_inputs: {name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
