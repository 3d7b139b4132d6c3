"""Time pysdc.protect.rank_swap against sdcMicro 5.8.0's rankSwap on the same data, in one run, and check that
the outputs are equal value for value.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_rankswap.py [--sizes 1e5,1e6] [--repeats 3] [--no-r-above 1e5]

For each size N the script draws one table (x1: lognormal with 1 % NA; x2, x3: normal, rounded to 4 places;
x4: integers 0-49, many ties), writes it as CSV, and times (median of ``--repeats`` timings) rankSwap of
(x1, x2, x3, x4) with seed 1 on both sides, three ways: the default (R0 = 0.95), R0 = 0.8, and P = 0.05
(pysdc: p = 5 percent). sdcMicro runs in one ``Rscript`` process on the CSV read by ``read.csv`` (reading is not
timed) and writes its last outputs as binary doubles, which this script compares with pysdc's (``equal`` in the
table: every value identical, NA included). Sizes above ``--no-r-above`` run pysdc only (the 60 s target at
1e6). Prints a Markdown table (ratio = sdcMicro time / pysdc time); the numbers go to ``benchmarks/RESULTS.md``
by hand.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _bench import load_average, markdown, peak_rss_gib, r_timer, ratio, run_r, timed, workdir

from pysdc.protect import rank_swap

V = ["x1", "x2", "x3", "x4"]
VARIANTS = {"default": {}, "R0=0.8": {"r0": 0.8}, "P=0.05": {"p": 5.0}}

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
reps <- as.integer(args[2])
outdir <- args[3]
""" + r_timer(0.2) + r"""
v <- c("x1", "x2", "x3", "x4")
calls <- list(default = function() suppressMessages(rankSwap(x, variables = v, seed = 1)),
              `R0=0.8` = function() rankSwap(x, variables = v, R0 = 0.8, seed = 1),
              `P=0.05` = function() rankSwap(x, variables = v, P = 0.05, seed = 1))
out <- list()
for (nm in names(calls)) {
  out[[nm]] <- tm(calls[[nm]])
  res <- calls[[nm]]()
  writeBin(as.double(unlist(res[v])), file.path(outdir, paste0("r_", make.names(nm), ".bin")), size = 8,
           endian = "little")
}
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x1 = rng.lognormal(9.8, 0.6, n).round(2)
    x1[rng.random(n) < 0.01] = np.nan
    return pd.DataFrame({"x1": x1, "x2": rng.normal(0, 1, n).round(4), "x3": rng.normal(5, 2, n).round(4),
                         "x4": rng.integers(0, 50, n)})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-r-above", type=float, default=1e5)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args(argv)
    work = workdir(a.dir, "pysdc_rankswap_bench_")
    print(f"# {load_average()} at start", flush=True)
    rows = []
    for size in a.sizes.split(","):
        n = int(float(size))
        path = work / f"rankswap_{n}.csv"
        make_frame(n).to_csv(path, index=False)
        x = pd.read_csv(path)
        py, outs = {}, {}
        for name, kw in VARIANTS.items():
            def call(kw=kw, name=name, x=x, outs=outs):
                outs[name] = rank_swap(x, V, seed=1, **kw)[V].to_numpy(dtype=np.float64).ravel(order="F")
            py[name] = timed(call, a.repeats, min_time=0.2)
        peak = peak_rss_gib()
        r = run_r(R_SCRIPT, [path, a.repeats, work], work, "bench_protect_rankswap.R") if n <= a.no_r_above else {}
        for name, t in py.items():
            equal = "–"
            if name in r:
                theirs = np.fromfile(work / f"r_{name.replace('=', '.')}.bin", dtype="<f8")
                equal = "yes" if np.array_equal(theirs, outs[name], equal_nan=True) else "NO"
            rows.append([name, f"{n:,}", f"{t:.3g}", f"{r[name]:.3g}" if name in r else "–", ratio(r.get(name), t),
                         equal, f"{peak:.2f}"])
        print(markdown(["rankSwap of 4 variables", "N", "pysdc (s)", "sdcMicro (s)", "ratio", "equal",
                        "peak RSS so far (GiB)"], rows[-len(py):]), flush=True)
    print(markdown(["rankSwap of 4 variables", "N", "pysdc (s)", "sdcMicro (s)", "ratio", "equal",
                    "peak RSS so far (GiB)"], rows))
    print(f"# {load_average()} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
