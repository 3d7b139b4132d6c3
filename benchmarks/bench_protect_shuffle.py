"""Time pysdc.protect.shuffle and rank_swap against sdcMicro 5.8.0's shuffle and rankSwap on the same data.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_shuffle.py [--sizes 1e4,1e5] [--repeats 3]

For each size N one table (y1: lognormal, y2: normal correlated with y1, c: normal, f: a 4-level factor) is
written as CSV; both sides read it (reading not timed) and time the median of ``--repeats`` runs (one run for a
call slower than 10 s): ``shuffle(y1 + y2 ~ c + f)`` seeded by ``set.seed(1)`` (pysdc: ``random_state=1``, the
same shuffled values) and ``rankSwap`` of (y1, y2) with seed 1 (pysdc: its own generator, other swaps). Prints a
Markdown table (ratio = sdcMicro time / pysdc time); the numbers go to ``benchmarks/RESULTS.md`` ("Protection:
shuffle and rank swapping") by hand.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _bench import load_average, markdown, r_timer, run_r, timed

from pysdc.protect import rank_swap, shuffle

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
x$f <- factor(x$f, levels = c("a", "b", "c", "d"))
reps <- as.integer(args[2])
""" + r_timer() + r"""
out <- list()
out$shuffle <- tm(function() { set.seed(1); shuffle(x, y1 + y2 ~ c + f) })
out$rank_swap <- tm(function() suppressMessages(rankSwap(x, variables = c("y1", "y2"), seed = 1)))
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def table(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(n)
    y1 = np.round(rng.lognormal(8, 1, n), 2)
    return pd.DataFrame({"y1": y1, "y2": np.round(rng.normal(100, 20, n) + 0.001 * y1, 3),
                         "c": np.round(rng.normal(0, 1, n), 4), "f": rng.choice(list("abcd"), n)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"# {load_average()} at start", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(float(s)) for s in a.sizes.split(",")):
            df = table(n)
            path = Path(tmp) / f"x{n}.csv"
            df.to_csv(path, index=False)
            x = pd.read_csv(path)
            x["f"] = pd.Categorical(x["f"], categories=list("abcd"))
            r = run_r(R_SCRIPT, [path, a.repeats], tmp)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                py = {"shuffle": timed(lambda x=x: shuffle(x, "y1 + y2 ~ c + f", random_state=1), a.repeats),
                      "rank_swap": timed(lambda x=x: rank_swap(x, ["y1", "y2"], seed=1), a.repeats)}
            for k in ("shuffle", "rank_swap"):
                rows.append([f"{n:,}", k, f"{r[k]:.3f}", f"{py[k]:.3f}", f"{r[k] / py[k]:.1f}x"])
    print(markdown(["N", "method", "sdcMicro 5.8.0 (s)", "pysdc (s)", "ratio"], rows))
    print(f"# {load_average()} at end")


if __name__ == "__main__":
    main()
