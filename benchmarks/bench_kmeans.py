"""Time pysdc.core.kmeans against R's stats::kmeans (Hartigan-Wong, iter.max 10, nstart 1) on the same data.

    PYTHONPATH=. nice python3 benchmarks/bench_kmeans.py [--sizes 1e5] [--ks 3,4,5,6,7,8,9,10] [--native-only 1e6]

Data: N records x 4 variables (normal, shifted by one of five group offsets), a fixed NumPy seed, written as CSV
(%.17g) that R reads (reading not timed). Each k: R's ``set.seed(1); kmeans(x, k)`` and pysdc's
``kmeans(x, k, RRandom(1))``, CPU time (R's proc.time user + system, Python's time.process_time), one run each; the
clusters are compared record for record. Prints a Markdown table; the numbers go to ``benchmarks/RESULTS.md``
("Protection: microaggregation", kmeans) by hand.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from pysdc.core.kmeans import kmeans
from pysdc.core.rrandom import RRandom

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.csv(args[1], header = FALSE)); dimnames(x) <- NULL
for (k in as.integer(strsplit(args[2], ",")[[1]])) {
  set.seed(1); t0 <- proc.time()
  a <- suppressWarnings(kmeans(x, k))
  t1 <- proc.time() - t0
  writeLines(paste(k, t1[["user.self"]] + t1[["sys.self"]], paste(a$cluster, collapse = " ")),
             file.path(args[3], paste0("k", k, ".txt")))
}
"""


def data(n: int) -> np.ndarray:
    rs = np.random.default_rng(20261125)
    return rs.normal(size=(n, 4)) + rs.integers(0, 5, size=(n, 1)) * 1.5


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e5")
    ap.add_argument("--ks", default="3,4,5,6,7,8,9,10")
    ap.add_argument("--native-only", default="")
    a = ap.parse_args()
    ks = [int(k) for k in a.ks.split(",")]
    print("| N | k | pysdc CPU (s) | R CPU (s) | clusters | iter, ifault |")
    print("|---|---|---|---|---|---|")
    for size in [s for s in a.sizes.split(",") if s]:
        n = int(float(size))
        x = data(n)
        with tempfile.TemporaryDirectory() as d:
            np.savetxt(Path(d) / "x.csv", x, delimiter=",", fmt="%.17g")
            (Path(d) / "b.R").write_text(R_SCRIPT)
            subprocess.run(["Rscript", str(Path(d) / "b.R"), str(Path(d) / "x.csv"), a.ks, d], check=True)
            for k in ks:
                _, rt, cl = (Path(d) / f"k{k}.txt").read_text().split(" ", 2)
                t0 = time.process_time()
                res = kmeans(x, k, RRandom(1))
                pt = time.process_time() - t0
                same = np.array_equal(res.cluster, np.array(cl.split(), dtype=int))
                print(f"| {size} | {k} | {pt:.2f} | {float(rt):.3f} | {'same' if same else 'DIFFERENT'} | "
                      f"{res.iter}, {res.ifault} |", flush=True)
    for size in [s for s in a.native_only.split(",") if s]:
        x = data(int(float(size)))
        for k in ks:
            t0 = time.process_time()
            res = kmeans(x, k, RRandom(1))
            print(f"| {size} | {k} | {time.process_time() - t0:.1f} | — | — | {res.iter}, {res.ifault} |", flush=True)


if __name__ == "__main__":
    main()
