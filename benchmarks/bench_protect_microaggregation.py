"""Time pysdc.protect.microaggregation (mdav) and mafast against sdcMicro 5.8.0 on the same data, in one run.

    PYTHONPATH=. nice python3 benchmarks/bench_protect_microaggregation.py [--sizes 1e4,1e5] [--native-only 1e6]
        [--dir /tmp/pysdc_ma_bench]

For each size N the script draws one table (four numeric variables: two normal, one lognormal, one
lognormal with 40 % exactly 0, as eusilc's income components; values in multiples of 2^-10, which R's
``read.csv`` reads exactly -- it misreads some decimals by one unit in the last place), writes it as CSV
and times, once per size
(MDAV at 1e5 takes minutes in sdcMicro, so no repetitions):

* ``microaggregation(method = "mdav", aggr = 3)`` on the four variables;
* ``mafast(aggr = 3)`` on the four variables.

sdcMicro runs in one ``Rscript`` process on the CSV read by ``read.csv`` (reading is not timed); pysdc
in this process on the same CSV read by pandas; both results are compared (``mx`` equal to the last
bit). ``--native-only`` sizes time pysdc alone (mdav, simple, single, onedims, mafast) and report its peak
memory (``ru_maxrss``). Prints a
Markdown table (ratio = sdcMicro time / pysdc time) and the load average (1 minute) at the start, after
each compared size and at the end; the numbers go to ``benchmarks/RESULTS.md`` ("Protection:
microaggregation") by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pysdc.protect import mafast, microaggregation

VARS = ["a", "b", "c", "d"]

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
vars <- c("a", "b", "c", "d")
st <- system.time(m <- microaggregation(x, variables = vars, aggr = 3))
t_mdav <- st[["elapsed"]]
c_mdav <- st[["user.self"]] + st[["sys.self"]]
t_mafast <- system.time(f <- mafast(x, variables = vars, aggr = 3))[["elapsed"]]
out <- as.data.frame(m$mx)
for (v in vars) out[[v]] <- sprintf("%.17g", out[[v]])
write.csv(out, args[2], row.names = FALSE)
cat(jsonlite::toJSON(list(mdav = t_mdav, mdav_cpu = c_mdav, mafast = t_mafast), auto_unbox = TRUE, digits = NA))
"""


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = rng.lognormal(9, 1, n).round(0)
    d[rng.random(n) < 0.4] = 0.0
    def exact(v):  # multiples of 2^-10: R's read.csv (R_strtod, not always correctly rounded) reads them exactly
        return np.round(v * 1024) / 1024

    return pd.DataFrame({"a": exact(rng.normal(size=n)), "b": exact(rng.normal(size=n)),
                         "c": exact(rng.lognormal(size=n)), "d": d})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--native-only", default="")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args(argv)
    workdir = Path(a.dir or tempfile.mkdtemp(prefix="pysdc_ma_bench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / "bench_ma.R"
    script.write_text(R_SCRIPT, encoding="utf-8")
    rows = ["| method | N | pysdc (s) | sdcMicro (s) | ratio | same mx |", "|---|---|---|---|---|---|"]
    load = [f"load average at the start: {os.getloadavg()[0]:.2f}"]  # the machine may be shared
    # wall-clock times; for mdav also CPU times (the machine may be shared), as a second row
    for size in [s for s in a.sizes.split(",") if s]:
        n = int(float(size))
        path = workdir / f"ma_{n}.csv"
        make_frame(n).to_csv(path, index=False)
        x = pd.read_csv(path, float_precision="round_trip")  # correctly rounded, as R's strtod
        t0, c0 = time.perf_counter(), time.process_time()
        res = microaggregation(x, VARS, aggr=3)
        t_mdav, c_mdav = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        mafast(x, VARS, aggr=3)
        t_mafast = time.perf_counter() - t0
        rout = workdir / f"ma_{n}_mx.csv"
        r = json.loads(subprocess.run(["Rscript", str(script), str(path), str(rout)], check=True,
                                      capture_output=True, text=True).stdout)
        ref = pd.read_csv(rout, dtype=str)
        same = all((ref[v].to_numpy() == np.array([f"{e:.17g}" for e in res.mx[v].tolist()])).all() for v in VARS)
        rows.append(f"| mdav (aggr 3, 4 vars) | {size} | {t_mdav:.3g} | {r['mdav']:.3g} | {r['mdav'] / t_mdav:,.3g}× "
                    f"| {'yes' if same else 'NO'} |")
        rows.append(f"| mdav, CPU time | {size} | {c_mdav:.3g} | {r['mdav_cpu']:.3g} | {r['mdav_cpu'] / c_mdav:,.3g}× "
                    "| — |")
        rows.append(f"| mafast (aggr 3, 4 vars) | {size} | {t_mafast:.3g} | {r['mafast']:.3g} | "
                    f"{r['mafast'] / t_mafast:,.3g}× | — |")
        load.append(f"after {size}: {os.getloadavg()[0]:.2f}")
        print(rows[-3], rows[-2], sep="\n", flush=True)
    for size in [s for s in a.native_only.split(",") if s]:
        x = make_frame(int(float(size)))
        for method in ("mdav", "simple", "single", "onedims", "mafast"):
            t0, c0 = time.perf_counter(), time.process_time()
            if method == "mafast":
                mafast(x, VARS, aggr=3)
            else:
                microaggregation(x, VARS, aggr=3, method=method)
            t, c = time.perf_counter() - t0, time.process_time() - c0
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            rows.append(f"| {method} (aggr 3, 4 vars), pysdc only | {size} | {t:.3g} (CPU {c:.3g}) | — | — "
                        f"| peak so far {rss:.2f} GiB |")
            print(rows[-1], flush=True)
    load.append(f"at the end: {os.getloadavg()[0]:.2f}")
    print("\n".join(rows))
    print("; ".join(load))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
