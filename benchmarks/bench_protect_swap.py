"""Time pysdc's targeted record swapping (record_swap) and its loss measure (info_loss) against sdcMicro 5.8.0.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_swap.py [--sizes 1e5,1e6] [--no-r-above 1e6]

For each size N (persons) the script draws one population in the shape of sdcMicro's ``createDat``
(households of 1-6 persons; nuts1 > nuts2 > nuts3 geography with 3 x 3 x 4 areas; household size,
household type; age group and nationality per person), writes it as CSV and times one call each (the
calls take seconds): ``record_swap`` (hierarchy nuts1 > nuts2 > nuts3, similar = hsize, swaprate 0.05,
k_anonymity 3 on ageGroup x national, carry_along lau2, seed 1) and ``info_loss`` of the swapped file over
nuts2 x national (with margins). sdcMicro runs in one ``Rscript`` process on the CSV read by
``read.csv`` (reading not timed). pysdc's swaps are not sdcMicro's (its own generator; a listed
divergence), the amount of work is the same. Prints a Markdown table for ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
from _bench import load_average, markdown, peak_rss_gib, ratio, run_r

from pysdc import info_loss
from pysdc.protect import record_swap

R_SCRIPT = r"""
suppressPackageStartupMessages({library(sdcMicro); library(data.table)})
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
t0 <- proc.time()[["elapsed"]]
s <- recordSwap(x, hid = "hid", hierarchy = c("nuts1", "nuts2", "nuts3"), similar = list("hsize"),
                swaprate = 0.05, k_anonymity = 3, risk_variables = c("ageGroup", "national"),
                carry_along = "lau2", seed = 1, log_file_name = tempfile())
t1 <- proc.time()[["elapsed"]]
il <- infoLoss(x, s, table_vars = c("nuts2", "national"))
t2 <- proc.time()[["elapsed"]]
cat(jsonlite::toJSON(list(record_swap = t1 - t0, info_loss = t2 - t1), auto_unbox = TRUE, digits = NA))
"""


def population(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_hh = int(n / 2.5)
    size = np.minimum(rng.geometric(0.4, n_hh), 6)
    hh = np.repeat(np.arange(n_hh), size)[:n]
    nuts1 = rng.integers(1, 4, n_hh)
    nuts2 = nuts1 * 10 + rng.integers(1, 4, n_hh)
    nuts3 = nuts2 * 100 + rng.integers(1, 5, n_hh)
    return pd.DataFrame({"nuts1": nuts1[hh], "nuts2": nuts2[hh], "nuts3": nuts3[hh],
                         "lau2": (nuts3 * 10 + rng.integers(1, 4, n_hh))[hh], "hid": hh + 1, "hsize": size[hh],
                         "htype": rng.integers(1, 8, n_hh)[hh], "ageGroup": rng.integers(1, 8, hh.size),
                         "national": rng.choice(5, hh.size, p=[0.8, 0.08, 0.06, 0.04, 0.02]) + 1})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--no-r-above", type=float, default=1e6)
    a = ap.parse_args()
    print(f"# {load_average()} at start", flush=True)
    rows = []
    for n in (int(float(s)) for s in a.sizes.split(",")):
        df = population(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            s = record_swap(df, "hid", ["nuts1", "nuts2", "nuts3"], "hsize", swaprate=0.05, k_anonymity=3,
                            risk_variables=["ageGroup", "national"], carry_along=["lau2"], seed=1)
            t1 = time.perf_counter()
            info_loss(df, s, ["nuts2", "national"])
            t2 = time.perf_counter()
        ours = {"record_swap": t1 - t0, "info_loss": t2 - t1}
        peak = peak_rss_gib()
        theirs = {}
        if n <= a.no_r_above:
            with tempfile.TemporaryDirectory() as tmp:
                csv = f"{tmp}/d.csv"
                df.to_csv(csv, index=False)
                try:
                    theirs = run_r(R_SCRIPT, [csv], tmp, timeout=3600)
                except (subprocess.CalledProcessError, ValueError):
                    theirs = {}
        for m in ("record_swap", "info_loss"):
            r = theirs.get(m)
            rows.append([m, f"{n:.0e}", f"{ours[m]:.3g}", "" if r is None else f"{r:.3g}",
                         "" if r is None else ratio(r, ours[m]), f"{peak:.2f}"])
    print(markdown(["method", "N", "pysdc (s)", "sdcMicro (s)", "ratio", "peak RSS so far (GiB)"], rows))
    print(f"# {load_average()} at end")


if __name__ == "__main__":
    main()
