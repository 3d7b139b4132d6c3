"""Time pysdc.protect's recoding against sdcMicro 5.8.0 on the same data, in one run.

    PYTHONPATH=. nice python3 benchmarks/bench_protect.py [--sizes 1e5,1e6] [--repeats 3] [--dir /tmp/pysdc_protect_bench]

For each size N the script draws one table (income: lognormal with 1 % NA; age: integers 0..99;
region: a 12-level factor; x1, x2: a correlated normal pair with outliers), writes it as CSV, and
times, as the median of ``--repeats`` timings (a call faster than 0.2 s is repeated within a timing until
0.2 s have passed; one run for a call slower than 10 s):

* ``global_recode`` with cut points (``breaks = c(0, 1e4, 2e4, 5e4, Inf)``), with a number of
  equidistant breaks (10) and with ``equalAmount`` (5 quantile classes);
* ``top_bot_coding`` (top, 1e5 -> 1e5) and ``group_and_rename`` (4 of 12 levels joined);
* ``mv_top_coding`` (robust distances from covMcd, ``set.seed(1)``) on (x1, x2).

sdcMicro runs in one ``Rscript`` process on the CSV read by ``read.csv`` (reading is not timed);
pysdc in this process on the same CSV read by pandas. Prints a Markdown table (ratio = sdcMicro time /
pysdc time); the numbers go to ``benchmarks/RESULTS.md`` ("Protection: recoding") by hand.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pysdc.protect import global_recode, group_and_rename, mv_top_coding, top_bot_coding

REGIONS = [f"r{i:02d}" for i in range(12)]

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
x$region <- factor(x$region, levels = sprintf("r%02d", 0:11))
reps <- as.integer(args[2])
# median of `reps` timings; a timing repeats a fast call until 0.2 s have passed (R's clock ticks in ms)
tm <- function(expr) {
  once <- function(k) { t0 <- proc.time()[["elapsed"]]; for (i in seq_len(k)) expr(); proc.time()[["elapsed"]] - t0 }
  first <- once(1L)
  if (first > 10 || reps == 1) return(first)
  k <- max(1L, as.integer(ceiling(0.2 / max(first, 1e-4))))
  median(vapply(seq_len(reps), function(i) once(k) / k, numeric(1)))
}
out <- list(
  global_recode_cuts = tm(function() globalRecode(x, column = "income", breaks = c(0, 1e4, 2e4, 5e4, Inf))),
  global_recode_n10 = tm(function() globalRecode(x, column = "income", breaks = 10)),
  global_recode_equalAmount = tm(function() globalRecode(x, column = "income", breaks = 5, method = "equalAmount")),
  top_bot_coding = tm(function() topBotCoding(x, value = 1e5, replacement = 1e5, column = "income")),
  group_and_rename = tm(function() groupAndRename(x, var = "region", before = c("r01", "r03", "r05", "r07"),
                                                  after = "odd")),
  mv_top_coding = tm(function() { set.seed(1); mvTopCoding(x[, c("x1", "x2")]) })
)
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = rng.lognormal(9.8, 0.6, n).round(2)
    income[rng.random(n) < 0.01] = np.nan
    z = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], size=n)
    out = rng.random(n) < 0.005
    z[out] *= 6
    return pd.DataFrame({
        "income": income,
        "age": rng.integers(0, 100, n),
        "region": pd.Categorical.from_codes(rng.integers(0, 12, n), categories=REGIONS),
        "x1": z[:, 0].round(4),
        "x2": z[:, 1].round(4),
    })


def _time(fn, repeats: int) -> float:
    """Median of ``repeats`` timings; a timing repeats a fast call until 0.2 s have passed."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if first > 10 or repeats == 1:
        return first
    k = max(1, int(np.ceil(0.2 / max(first, 1e-6))))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        times.append((time.perf_counter() - t0) / k)
    return statistics.median(times)


def pysdc_times(x: pd.DataFrame, repeats: int) -> dict:
    return {
        "global_recode_cuts": _time(lambda: global_recode(x, "income", [0, 1e4, 2e4, 5e4, np.inf]), repeats),
        "global_recode_n10": _time(lambda: global_recode(x, "income", 10), repeats),
        "global_recode_equalAmount": _time(lambda: global_recode(x, "income", 5, method="equalAmount"), repeats),
        "top_bot_coding": _time(lambda: top_bot_coding(x, "income", 1e5, 1e5), repeats),
        "group_and_rename": _time(lambda: group_and_rename(x, "region", ["r01", "r03", "r05", "r07"], "odd"),
                                  repeats),
        "mv_top_coding": _time(lambda: mv_top_coding(x[["x1", "x2"]], random_state=1), repeats),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args(argv)
    workdir = Path(a.dir or tempfile.mkdtemp(prefix="pysdc_protect_bench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / "bench_protect.R"
    script.write_text(R_SCRIPT, encoding="utf-8")
    rows = ["| method | N | pysdc (s) | sdcMicro (s) | ratio |", "|---|---|---|---|---|"]
    for size in a.sizes.split(","):
        n = int(float(size))
        frame = make_frame(n)
        path = workdir / f"protect_{n}.csv"
        frame.to_csv(path, index=False)
        x = pd.read_csv(path)
        x["region"] = pd.Categorical(x["region"], categories=REGIONS)
        py = pysdc_times(x, a.repeats)
        r = json.loads(subprocess.run(["Rscript", str(script), str(path), str(a.repeats)], check=True,
                                      capture_output=True, text=True).stdout)
        for k, t in py.items():
            rows.append(f"| {k} | {size} | {t:.3g} | {r[k]:.3g} | {r[k] / t:,.3g}× |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
