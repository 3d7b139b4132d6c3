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

``--cpu`` times only the three ``global_recode`` calls, in CPU time (Python's ``process_time``, R's
``proc.time()`` user + system): ``--repeats`` timings of ``--calls`` calls each, best and median per call,
pysdc before and after the R process (both reported) so that both sides run in the same minutes. On a
machine shared with other jobs CPU time moves less than wall time, though caches and the scheduler still
move it by tens of per cent.

``--ab FILE`` times the same three calls with a former pysdc/protect/_recode.py (``git show
REV:pysdc/protect/_recode.py > FILE``) and the current one, interleaved in this process (old, new, old, ...;
``--repeats`` timings of ``--calls`` calls each, CPU time), after checking that both give the same frame; no R.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np
import pandas as pd
from _bench import load_average, markdown, peak_rss_gib, r_timer, ratio, run_r, timed, workdir

from pysdc.protect import global_recode, group_and_rename, mv_top_coding, top_bot_coding

REGIONS = [f"r{i:02d}" for i in range(12)]

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
x$region <- factor(x$region, levels = sprintf("r%02d", 0:11))
reps <- as.integer(args[2])
""" + r_timer(0.2) + r"""
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
    return timed(fn, repeats, min_time=0.2)


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


R_CPU_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
reps <- as.integer(args[2]); calls <- as.integer(args[3])
cpu <- function(f) {
  f()
  v <- vapply(seq_len(reps), function(i) {
    t0 <- proc.time(); for (j in seq_len(calls)) f(); d <- proc.time() - t0
    (d[["user.self"]] + d[["sys.self"]]) / calls
  }, numeric(1))
  list(best = min(v), median = median(v))
}
out <- list(
  global_recode_cuts = cpu(function() globalRecode(x, column = "income", breaks = c(0, 1e4, 2e4, 5e4, Inf))),
  global_recode_n10 = cpu(function() globalRecode(x, column = "income", breaks = 10)),
  global_recode_equalAmount = cpu(function() globalRecode(x, column = "income", breaks = 5, method = "equalAmount"))
)
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def pysdc_cpu_times(x: pd.DataFrame, repeats: int, calls: int) -> dict:
    """Best and median CPU seconds per call of the three global_recode calls."""
    fns = {
        "global_recode_cuts": lambda: global_recode(x, "income", [0, 1e4, 2e4, 5e4, np.inf]),
        "global_recode_n10": lambda: global_recode(x, "income", 10),
        "global_recode_equalAmount": lambda: global_recode(x, "income", 5, method="equalAmount"),
    }
    out = {}
    for k, fn in fns.items():
        fn()
        v = []
        for _ in range(repeats):
            t0 = time.process_time()
            for _ in range(calls):
                fn()
            v.append((time.process_time() - t0) / calls)
        out[k] = {"best": min(v), "median": statistics.median(v)}
    return out


def cpu_main(sizes: str, repeats: int, calls: int, work) -> int:
    rows = []
    for size in sizes.split(","):
        n = int(float(size))
        frame = make_frame(n)
        path = work / f"protect_{n}.csv"
        frame.to_csv(path, index=False)
        x = pd.read_csv(path)
        x["region"] = pd.Categorical(x["region"], categories=REGIONS)
        before = pysdc_cpu_times(x, repeats, calls)
        r = run_r(R_CPU_SCRIPT, [path, repeats, calls], work, "bench_protect_cpu.R")
        after = pysdc_cpu_times(x, repeats, calls)
        print(f"# {load_average()} after {size}", flush=True)
        for k in before:
            for stat in ("best", "median"):
                py = [before[k][stat], after[k][stat]]
                rows.append([k, size, stat, " / ".join(f"{t * 1e3:.3f}" for t in py), f"{r[k][stat] * 1e3:.2f}",
                             " / ".join(ratio(r[k][stat], t) for t in py)])
    print(markdown(["method", "N", "statistic", "pysdc CPU ms (before / after R)", "sdcMicro CPU ms",
                    "ratio (before / after)"], rows))
    return 0


def _recode_fns(mod, x: pd.DataFrame) -> dict:
    return {
        "global_recode_cuts": lambda: mod.global_recode(x, "income", [0, 1e4, 2e4, 5e4, np.inf]),
        "global_recode_n10": lambda: mod.global_recode(x, "income", 10),
        "global_recode_equalAmount": lambda: mod.global_recode(x, "income", 5, method="equalAmount"),
    }


def ab_main(sizes: str, repeats: int, calls: int, old_file: str) -> int:
    """A former _recode.py against the current one, interleaved in one process (CPU time per call)."""
    from pysdc.protect import _recode as new

    spec = importlib.util.spec_from_file_location("pysdc.protect._recode_ab_old", old_file)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    rows = []
    for size in sizes.split(","):
        x = make_frame(int(float(size)))
        fo, fn = _recode_fns(old, x), _recode_fns(new, x)
        for k in fo:
            pd.testing.assert_frame_equal(fo[k](), fn[k](), check_exact=True)
            v = {"old": [], "new": []}
            for _ in range(repeats):
                for side, fn_ in (("old", fo[k]), ("new", fn[k])):
                    t0 = time.process_time()
                    for _ in range(calls):
                        fn_()
                    v[side].append((time.process_time() - t0) / calls)
            best = {s_: min(t) for s_, t in v.items()}
            med = {s_: statistics.median(t) for s_, t in v.items()}
            rows.append([k, size, f"{best['old'] * 1e3:.3f} / {med['old'] * 1e3:.3f}",
                         f"{best['new'] * 1e3:.3f} / {med['new'] * 1e3:.3f}",
                         f"{ratio(best['old'], best['new'])} / {ratio(med['old'], med['new'])}"])
    print(markdown(["method", "N", "old CPU ms best / median", "new CPU ms best / median",
                    "old / new (best / median)"], rows))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--cpu", action="store_true", help="CPU time of the three global_recode calls only")
    ap.add_argument("--calls", type=int, default=50, help="calls per CPU timing (with --cpu or --ab)")
    ap.add_argument("--ab", default=None, metavar="FILE",
                    help="A/B: a former pysdc/protect/_recode.py against the current one (no R)")
    a = ap.parse_args(argv)
    work = workdir(a.dir, "pysdc_protect_bench_")
    print(f"# {load_average()} at start", flush=True)
    if a.ab:
        code = ab_main(a.sizes, a.repeats, a.calls, a.ab)
        print(f"# {load_average()} at end")
        return code
    if a.cpu:
        code = cpu_main(a.sizes, a.repeats, a.calls, work)
        print(f"# {load_average()} at end")
        return code
    rows = []
    for size in a.sizes.split(","):
        n = int(float(size))
        frame = make_frame(n)
        path = work / f"protect_{n}.csv"
        frame.to_csv(path, index=False)
        x = pd.read_csv(path)
        x["region"] = pd.Categorical(x["region"], categories=REGIONS)
        py = pysdc_times(x, a.repeats)
        peak = peak_rss_gib()
        r = run_r(R_SCRIPT, [path, a.repeats], work, "bench_protect.R")
        for k, t in py.items():
            rows.append([k, size, f"{t:.3g}", f"{r[k]:.3g}", ratio(r[k], t), f"{peak:.2f}"])
    print(markdown(["method", "N", "pysdc (s)", "sdcMicro (s)", "ratio", "peak RSS so far (GiB)"], rows))
    print(f"# {load_average()} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
