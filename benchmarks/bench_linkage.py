"""Record-linkage benchmarks (issue 27): global matching vs sdcMicro 5.8.1, nearest neighbours, probabilistic.

Tasks (each in a fresh subprocess; time = wall time of the call, memory = the child's peak resident
set, ``ru_maxrss``, minus its resident set just before the call, and the peak itself):

* ``global``: ``pysdc.record_linkage`` on n records x 4 normal variables (masked: + N(0, 0.3)),
  Gower and Euclidean, against sdcMicro 5.8.1's ``recordLinkage`` on the same data (``--r-lib``:
  the R library holding sdcMicro 5.8.1; skipped without it).
* ``nn``: ``pysdc.nn_linkage`` (Euclidean, standardised) on n x 5 normal variables.
* ``prob``: ``pysdc.prob_linkage`` on n x n records, 5 comparison variables (10 quantile classes each),
  blocked on one variable with 1,000 values (n^2 / 1000 candidate pairs, counted per pattern).

Usage::

    nice python3 benchmarks/bench_linkage.py [--global-n 2000] [--nn-n 1e6] [--prob-n 1e6]
        [--r-lib /path/to/lib] [--write benchmarks/RESULTS.md]

``--write`` replaces the section between the markers ``<!-- linkage:begin -->`` and
``<!-- linkage:end -->`` of RESULTS.md (appended the first time); other sections are left alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's pysdc
BEGIN, END = "<!-- linkage:begin -->", "<!-- linkage:end -->"


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _data(task: str, n: int):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(20261125)
    p = 4 if task == "global" else 5
    x = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"v{j}" for j in range(p)])
    y = x + rng.normal(scale=0.3, size=x.shape)
    if task == "prob":
        blk = rng.integers(0, 1000, n)
        x["blk"] = blk
        y["blk"] = blk
    return x, y


def child(task: str, n: int, distance: str) -> None:
    import warnings

    import pysdc

    warnings.simplefilter("ignore")
    x, y = _data(task, n)
    vars_ = [c for c in x.columns if c.startswith("v")]
    before = _rss_mib()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    if task == "global":
        r = pysdc.record_linkage(x, y, vars_, distance=distance)
        value = r.correct_match_rate
    elif task == "nn":
        r = pysdc.nn_linkage(x, y, vars_)
        value = r.rate
    else:
        r = pysdc.prob_linkage(x, y, vars_, block=["blk"])
        value = {"precision": r.precision, "risk": r.risk, "candidate_pairs": r.candidate_pairs}
    sec = time.perf_counter() - t
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    peak = ru1.ru_maxrss / 1024
    print(json.dumps({"seconds": sec, "cpu": cpu, "peak_mib": peak, "before_mib": before, "value": value}))


def r_global(n: int, distance: str, r_lib: str) -> dict | None:
    if not r_lib:
        return None
    x, y = _data("global", n)
    with tempfile.TemporaryDirectory() as tmp:
        x.to_csv(f"{tmp}/x.csv", index=False, float_format="%.17g")
        y.to_csv(f"{tmp}/y.csv", index=False, float_format="%.17g")
        script = (
            "suppressMessages(library(sdcMicro)); "
            f"x <- read.csv('{tmp}/x.csv'); y <- read.csv('{tmp}/y.csv'); "
            f"t <- system.time(o <- recordLinkage(x, y, names(x), distance = '{distance}'))[['elapsed']]; "
            "cat(sprintf('%.6f %.17g %s\\n', t, o$correct_match_rate, as.character(packageVersion('sdcMicro'))))"
        )
        env = dict(os.environ, R_LIBS=r_lib)
        out = subprocess.run(["Rscript", "-e", script], env=env, capture_output=True, text=True, check=True)
    sec, rate, version = out.stdout.split()
    return {"seconds": float(sec), "value": float(rate), "version": version}


def run_child(task: str, n: int, distance: str = "") -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", task, str(n), distance or "-"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=3)
    ap.add_argument("--global-n", type=float, default=2000)
    ap.add_argument("--nn-n", type=float, default=1e6)
    ap.add_argument("--prob-n", type=float, default=1e6)
    ap.add_argument("--r-lib", default="")
    ap.add_argument("--write", default="")
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), a.child[2])
        return
    t0 = time.time()
    load_start = os.getloadavg()[0]
    rows = []
    gn, nn_n, pn = int(a.global_n), int(a.nn_n), int(a.prob_n)
    for dist in ("gower", "euclidean"):
        py = run_child("global", gn, dist)
        r = r_global(gn, dist, a.r_lib)
        same = r is not None and abs(r["value"] - py["value"]) <= 1e-12
        rows.append((f"record_linkage ({dist})", f"{gn:,} x 4", "≥ 10× sdcMicro 5.8.1", py,
                     r, f"{r['seconds'] / py['seconds']:.0f}×" + ("" if same else " (rates differ: ties)")
                     if r else "sdcMicro not run"))
    py = run_child("nn", nn_n)
    rows.append(("nn_linkage (euclidean)", f"{nn_n:,} x 5", "≤ 10 s, ≤ 2 GiB", py, None,
                 "met" if py["seconds"] <= 10 and py["peak_mib"] <= 2048 else "NOT met"))
    py = run_child("prob", pn)
    rows.append(("prob_linkage (1,000 blocks)", f"{pn:,} x {pn:,}", "≤ 60 s", py, None,
                 "met" if py["seconds"] <= 60 else "NOT met"))
    import numpy
    import scipy

    lines = [BEGIN, "## Record linkage (issue 27)", "",
             f"Generated by `benchmarks/bench_linkage.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
             f"({os.cpu_count()} cores; load average at start {load_start:.2f}); Python {platform.python_version()}, "
             f"numpy {numpy.__version__}, scipy {scipy.__version__}. One run per task (each in a fresh process); "
             "memory = the process's peak "
             "resident set (ru_maxrss), and in brackets its increase during the call. The CPU column shows how much "
             "of the wall time was pysdc's own work when other processes share the cores.", "",
             "| task | size | target | pysdc (s) | pysdc CPU (s, all threads) | peak memory (MiB) | sdcMicro (s) | result |",
             "|---|---|---|---|---|---|---|---|"]
    for name, size, target, py, r, verdict in rows:
        lines.append(f"| {name} | {size} | {target} | {py['seconds']:.3g} | {py['cpu']:.3g} | {py['peak_mib']:.0f} "
                     f"(+{py['peak_mib'] - py['before_mib']:.0f}) | "
                     f"{'—' if r is None else format(r['seconds'], '.3g') + ' (' + r['version'] + ')'} | {verdict} |")
    load_end = os.getloadavg()[0]
    if max(load_start, load_end) > (os.cpu_count() or 1):
        lines += ["", f"The cores were shared (load average {load_start:.1f} at start, {load_end:.1f} at the end, on "
                      f"{os.cpu_count()} cores): wall times are inflated for pysdc and sdcMicro alike; a target judged "
                      "on wall time may be met on an idle machine (the CPU column is pysdc's own work, summed over "
                      "its threads) but is reported as measured."]
    lines += ["", "Values: " + "; ".join(f"{name}: {json.dumps(py['value'])}" for name, _, _, py, _, _ in rows),
              "", f"Total wall time {time.time() - t0:.0f} s.", END]
    text = "\n".join(lines)
    print(text)
    if a.write:
        path = Path(a.write)
        doc = path.read_text(encoding="utf-8")
        if BEGIN in doc and END in doc:
            doc = doc[: doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
        else:
            doc = doc.rstrip("\n") + "\n\n" + text + "\n"
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(doc, encoding="utf-8")
        tmp.replace(path)


if __name__ == "__main__":
    main()
