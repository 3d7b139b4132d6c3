"""Time pysdc.protect.local_suppression against sdcMicro 5.8.0's localSuppression on the same data, in one run.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_suppression.py [--sizes 1e4,1e5] [--native-only 1e6]
        [--k 3] [--dir /tmp/pysdc_ls_bench]

For each size N the script draws one table of five eusilc-like categorical keys (region: 9 categories,
sex: 2, age: 0-99, economic status: 7 with 18 % missing, citizenship: 3 with 18 % missing, the
missing values in the same records as in eusilc; ``--extra-keys 2`` adds two uniform keys of 8 and 10
categories, where nearly every record is unique), writes it as CSV and times ``localSuppression(k = 3)``
on the keys, once per size (sdcMicro takes minutes at 1e5). sdcMicro runs in one ``Rscript``
process on the CSV read by ``read.csv`` with the keys as factors (reading is not timed); pysdc in this
process on the same CSV read by pandas, keys categorical; the suppressed cells are compared (the same
cells). ``--native-only`` sizes time pysdc alone and report its peak memory (``ru_maxrss``). Prints a
Markdown table (ratio = sdcMicro time / pysdc time); the numbers go to ``benchmarks/RESULTS.md``
("Protection: suppression") by hand.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _bench import load_average, markdown, peak_rss_gib, run_r, workdir

from pysdc.protect import local_suppression

KEYS = ["region", "sex", "age", "econ", "citizen"]

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
keys <- strsplit(args[4], ",")[[1]]
for (v in keys) x[[v]] <- factor(x[[v]])
k <- as.numeric(args[3])
t0 <- proc.time()[["elapsed"]]
l <- localSuppression(x, keyVars = keys, k = k)
t_ls <- proc.time()[["elapsed"]] - t0
out <- as.data.frame(lapply(l$xAnon[keys], function(v) as.integer(is.na(v))))
write.csv(out, args[2], row.names = FALSE)
cat(jsonlite::toJSON(list(ls = t_ls, new = l$newSupps), auto_unbox = TRUE, digits = NA))
"""


#: the uniform keys ``--extra-keys`` adds (8 and 10 categories): nearly every record unique
EXTRA = {"k6": 8, "k7": 10}


def make_frame(n: int, seed: int = 1, extra: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(9, n, p=np.array([3, 6, 17, 6, 13, 8, 16, 21, 10]) / 100)
    age = np.clip(rng.gamma(4.0, 10.0, n), 0, 99).astype(np.int64)
    econ = rng.choice(7, n, p=[0.35, 0.1, 0.05, 0.3, 0.05, 0.1, 0.05]).astype(float)
    cit = rng.choice(3, n, p=[0.9, 0.04, 0.06]).astype(float)
    child = rng.random(n) < 0.18
    econ[child] = np.nan
    cit[child] = np.nan
    df = pd.DataFrame({"region": region, "sex": rng.integers(0, 2, n), "age": age, "econ": econ,
                       "citizen": cit})
    more = np.random.default_rng(seed + 6)
    for name, cats in list(EXTRA.items())[:extra]:
        df[name] = more.integers(0, cats, n)
    return df


def _read(path: Path, keys) -> pd.DataFrame:
    df = pd.read_csv(path)
    for v in keys:
        df[v] = df[v].astype("category")
    return df


def run_native(path: Path, k: float, keys=KEYS):
    df = _read(path, keys)
    t0 = time.perf_counter()
    res = local_suppression(df, keys, k=k)
    return time.perf_counter() - t0, res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--native-only", default="")
    ap.add_argument("--k", type=float, default=3)
    ap.add_argument("--extra-keys", type=int, default=0, help="add 1 or 2 uniform keys (8, 10 categories)")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    keys = KEYS + list(EXTRA)[:a.extra_keys]
    work = workdir(a.dir, "pysdc_ls_bench")
    print(f"# {load_average()} at start", flush=True)
    header = ["N", "sdcMicro localSuppression (s)", "pysdc (s)", "ratio", "new suppressions", "same cells"]
    rows = []
    for n in [int(float(s)) for s in a.sizes.split(",") if s]:
        path = work / f"ls_{n}.csv"
        make_frame(n, extra=a.extra_keys).to_csv(path, index=False)
        rt = run_r(R_SCRIPT, [path, work / f"ls_{n}_r.csv", a.k, ",".join(keys)], work, "ls.R")
        t, res = run_native(path, a.k, keys)
        ref = pd.read_csv(work / f"ls_{n}_r.csv").to_numpy().astype(bool)
        same = bool((res.data[keys].isna().to_numpy() == ref).all())  # R writes every missing key value
        rows.append([f"{n:.0e} ({len(keys)} keys)", f"{rt['ls']:.1f}", f"{t:.2f}", f"{rt['ls'] / t:.0f}x", res.new_supps, same])
        print(rows[-1], flush=True)
    for n in [int(float(s)) for s in a.native_only.split(",") if s]:
        path = work / f"ls_{n}.csv"
        make_frame(n, extra=a.extra_keys).to_csv(path, index=False)
        t, res = run_native(path, a.k, keys)
        rows.append([f"{n:.0e} ({len(keys)} keys)", "(not run)", f"{t:.1f}", "", res.new_supps, f"peak RSS {peak_rss_gib():.2f} GiB"])
        print(rows[-1], flush=True)
    print(markdown(header, rows))
    print(f"# {load_average()} at end")


if __name__ == "__main__":
    main()
