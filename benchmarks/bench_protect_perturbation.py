"""Time pysdc.protect's perturbation methods (addNoise, pram) against sdcMicro 5.8.0 on the same data, in one run.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_perturbation.py [--sizes 1e5,1e6] [--repeats 3] [--no-r-above 1e5]
        [--only add_noise]

For each size N the script draws one table (x1: lognormal with 1 % NA; x2, x3: normal; k: an 8-level
factor; r: a 12-level factor; s: a 2-level stratum), writes it as CSV, and times (median of
``--repeats`` timings; a call faster than 0.2 s is repeated within a timing until 0.2 s have passed), both sides seeded by ``set.seed(1)``
(pysdc: ``random_state=1``, the same numbers):

* ``add_noise`` on (x1, x2, x3) with the methods additive, correlated, correlated2, restr, outdect;
* ``pram`` of (k, r), and of k within the strata s x r.

``--only add_noise`` (or ``pram``) times one family (the R script then skips the other).

sdcMicro runs in one ``Rscript`` process on the CSV read by ``read.csv`` (reading is not timed); pysdc in
this process on the same CSV read by pandas. Sizes above ``--no-r-above`` run pysdc only (the 60 s
target at 1e6). Prints a Markdown table (ratio = sdcMicro time / pysdc time); the numbers go to
``benchmarks/RESULTS.md`` ("Protection: perturbation") by hand.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from _bench import load_average, markdown, peak_rss_gib, r_timer, ratio, run_r, timed, workdir

from pysdc.protect import add_noise, pram

KS = list("abcdefgh")
RS = [f"r{i:02d}" for i in range(12)]
METHODS = ("additive", "correlated", "correlated2", "restr", "outdect")

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
x$k <- factor(x$k, levels = letters[1:8])
x$r <- factor(x$r, levels = sprintf("r%02d", 0:11))
x$s <- factor(x$s, levels = c("u", "v"))
reps <- as.integer(args[2])
only <- args[3]
""" + r_timer(0.2) + r"""
v <- c("x1", "x2", "x3")
out <- list()
if (only %in% c("all", "add_noise")) {
  for (m in c("additive", "correlated", "correlated2", "restr", "outdect")) {
    out[[paste0("add_noise_", m)]] <- tm(function() { set.seed(1); addNoise(x, variables = v, method = m) })
  }
}
if (only %in% c("all", "pram")) {
  out$pram <- tm(function() { set.seed(1); pram(x, variables = c("k", "r")) })
  out$pram_strata <- tm(function() { set.seed(1); pram(x, variables = "k", strata_variables = c("s", "r")) })
}
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x1 = rng.lognormal(9.8, 0.6, n).round(2)
    x1[rng.random(n) < 0.01] = np.nan
    return pd.DataFrame({
        "x1": x1, "x2": rng.normal(0, 1, n).round(4), "x3": rng.normal(5, 2, n).round(4),
        "k": pd.Categorical.from_codes(rng.integers(0, 8, n), categories=KS),
        "r": pd.Categorical.from_codes(rng.integers(0, 12, n), categories=RS),
        "s": pd.Categorical.from_codes(rng.integers(0, 2, n), categories=["u", "v"]),
    })


def _time(fn, repeats: int) -> float:
    """Median of ``repeats`` timings; a timing repeats a fast call until 0.2 s have passed."""
    return timed(fn, repeats, min_time=0.2)


def pysdc_times(x: pd.DataFrame, repeats: int, only: str = "all") -> dict:
    v = ["x1", "x2", "x3"]
    out = {}
    if only in ("all", "add_noise"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # restr's warning about sdcMicro's shifts
            for m in METHODS:
                out[f"add_noise_{m}"] = _time(lambda m=m: add_noise(x, v, method=m, random_state=1), repeats)
    if only in ("all", "pram"):
        out["pram"] = _time(lambda: pram(x, ["k", "r"], random_state=1), repeats)
        out["pram_strata"] = _time(lambda: pram(x, ["k"], strata_variables=["s", "r"], random_state=1), repeats)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-r-above", type=float, default=1e5)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--only", choices=("all", "add_noise", "pram"), default="all")
    a = ap.parse_args(argv)
    work = workdir(a.dir, "pysdc_perturb_bench_")
    print(f"# {load_average()} at start", flush=True)
    rows = []
    for size in a.sizes.split(","):
        n = int(float(size))
        frame = make_frame(n)
        path = work / f"perturb_{n}.csv"
        frame.to_csv(path, index=False)
        x = pd.read_csv(path)
        x["k"] = pd.Categorical(x["k"], categories=KS)
        x["r"] = pd.Categorical(x["r"], categories=RS)
        x["s"] = pd.Categorical(x["s"], categories=["u", "v"])
        py = pysdc_times(x, a.repeats, a.only)
        peak = peak_rss_gib()
        r = run_r(R_SCRIPT, [path, a.repeats, a.only], work, "bench_protect_perturbation.R") if n <= a.no_r_above else {}
        for k, t in py.items():
            rows.append([k, size, f"{t:.3g}", f"{r[k]:.3g}" if k in r else "–", ratio(r.get(k), t), f"{peak:.2f}"])
    print(markdown(["method", "N", "pysdc (s)", "sdcMicro (s)", "ratio", "peak RSS so far (GiB)"], rows))
    print(f"# {load_average()} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
