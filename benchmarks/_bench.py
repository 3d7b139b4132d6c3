"""Shared scaffolding of the protection benchmarks (benchmarks/bench_protect*.py).

Timing (:func:`timed`: the median of ``repeats`` timings, one run for a slow call, a fast call repeated
within a timing), one ``Rscript`` process per size (:func:`run_r`: writes the script, passes the
arguments, reads the JSON of its last output line), the machine's state (:func:`load_average`,
:func:`peak_rss_gib`), a working directory and the Markdown table that goes to ``benchmarks/RESULTS.md``
by hand. Imported as ``from _bench import ...`` (the scripts run as ``python3 benchmarks/bench_x.py``,
which puts this folder on the path).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["timed", "run_r", "load_average", "peak_rss_gib", "workdir", "markdown", "ratio", "r_timer"]


def r_timer(min_time: float = 0.0) -> str:
    """R's counterpart of :func:`timed` for the R scripts: defines ``tm(function() ...)``, which reads the
    number of timings from the variable ``reps``."""
    return _R_TIMER.replace("MIN_TIME", repr(float(min_time)))


_R_TIMER = r"""
tm <- function(expr, min_time = MIN_TIME) {
  once <- function(k) { t0 <- proc.time()[["elapsed"]]; for (i in seq_len(k)) expr(); proc.time()[["elapsed"]] - t0 }
  first <- once(1L)
  if (first > 10 || reps == 1) return(first)
  k <- if (min_time > 0) max(1L, as.integer(ceiling(min_time / max(first, 1e-4)))) else 1L
  median(vapply(seq_len(reps), function(i) once(k) / k, numeric(1)))
}
"""


def timed(fn, repeats: int, *, min_time: float = 0.0) -> float:
    """Seconds per call of ``fn()``: the first run alone when it takes over 10 s or ``repeats == 1``, else
    the median of ``repeats`` timings, each repeating the call until ``min_time`` seconds have passed."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if first > 10 or repeats == 1:
        return first
    k = max(1, int(-(-min_time // max(first, 1e-6)))) if min_time > 0 else 1
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        times.append((time.perf_counter() - t0) / k)
    return statistics.median(times)


def run_r(script: str, args, directory: Path, name: str = "bench.R", timeout: float | None = None) -> dict:
    """Run the R code ``script`` by ``Rscript`` with ``args`` and return the JSON its last output line holds."""
    path = Path(directory) / name
    path.write_text(script, encoding="utf-8")
    out = subprocess.run(["Rscript", str(path), *map(str, args)], check=True, capture_output=True, text=True,
                         timeout=timeout)
    return json.loads(out.stdout.strip().splitlines()[-1])


def load_average() -> str:
    """The 1-minute load average and the number of cores, e.g. ``"load 3.2 on 2 cores"``."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def peak_rss_gib() -> float:
    """This process's peak resident set so far (ru_maxrss), in GiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2


def workdir(path: str | None, prefix: str) -> Path:
    """``path`` (created) or a new temporary directory."""
    out = Path(path or tempfile.mkdtemp(prefix=prefix))
    out.mkdir(parents=True, exist_ok=True)
    return out


def ratio(theirs: float | None, ours: float) -> str:
    """``"12.3×"`` (sdcMicro time / pysdc time), or ``"–"`` without an sdcMicro time."""
    return "–" if theirs is None else f"{theirs / ours:,.3g}×"


def markdown(header, rows) -> str:
    """A Markdown table: ``header`` (column names) and ``rows`` (sequences of cells, formatted already)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
