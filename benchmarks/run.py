#!/usr/bin/env python3
"""pysdc's native measures against sdcMicro, on the same data, in one run.

    python3 benchmarks/run.py [--quick] [--sizes 1e4,1e5,1e6,5e6] [--repeats 3]
                              [--output benchmarks/RESULTS.md] [--no-r] [--only name,...]

For each size N the command generates seeded synthetic microdata (numpy, fixed seed), writes it ONCE to a
temporary directory as raw little-endian binary columns (one file per column: float64 or int32, integer
missing = INT_MIN, which is R's NA_integer_), and then, for each function, starts a fresh worker process for
each side, one after the other (never at the same time):

* the Python worker (this file, ``--worker``) loads the columns into pandas frames, then times the native
  pysdc function;
* the R worker (``benchmarks/bench_sdcmicro.R`` through ``Rscript``) loads the same bytes with ``readBin``
  into data.frames, then times the same sdcMicro function.

Both sides load the data outside the timed region and time wall clock (``time.perf_counter`` /
``proc.time()["elapsed"]``) over ``--repeats`` runs and keep the median; a call whose first run exceeds
``--slow-seconds`` is not repeated. Peak memory is measured the same way on both sides: the kernel's peak
resident set size (VmHWM, reset through ``/proc/self/clear_refs`` before each call) minus the resident size
just before the call, maximum over the runs (the first call of a fresh process sees no recycled memory).
Secondary heap measures: Python's ``tracemalloc`` peak (one extra untimed
run; numpy buffers are traced) and R's ``gc()`` "max used".

sdcMicro calls that would take too long are not run: each task has a largest size for sdcMicro in TARGETS,
and a call whose time extrapolated (linearly, or by the task's scaling exponent) from the previous size
exceeds ``--max-call-seconds`` is skipped; the table says so.

Without Rscript or sdcMicro (or with ``--no-r``) only the native side is timed. Functions that are not
implemented yet (NotImplementedError, ModuleNotFoundError, ImportError) are reported "not available"; the
command still exits 0. The Markdown report goes to ``--output`` (default benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import importlib.util
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
R_SCRIPT = HERE / "bench_sdcmicro.R"
BRIDGE_BENCH = HERE / "bench_bridge_conversion.py"
SEED = 20240917

KEYS = ["k1", "k2", "k3", "k4", "k5"]
KEY_LEVELS = [2, 6, 12, 25, 50]
NUMS = ["v1", "v2", "v3", "v4"]
INT_NA = -(2**31)  # R's NA_integer_


# --------------------------------------------------------------------------------------------- targets
@dataclass(frozen=True)
class Task:
    name: str
    label: str  # what is timed, as a reader should see it
    target: float | None  # required sdcMicro/pysdc time ratio, None = reported only
    target_n: int = 1_000_000  # the size at which the target is judged
    max_n_r: int | None = None  # largest N at which sdcMicro is run (None: no static limit)
    max_n_py: int | None = None  # largest N at which pysdc is run
    skip_reason: str = ""  # shown when a size is above max_n_*
    scaling: float = 1.0  # exponent used to extrapolate a call's time to the next size
    max_seconds: float | None = None  # absolute target for pysdc's time at target_n (measures sdcMicro lacks)


NO_SDCMICRO = "no sdcMicro counterpart (a literature measure, native only)"

# The one table of targets (ratio = sdcMicro time / pysdc time, judged at target_n).
TARGETS: list[Task] = [
    Task("d_utility_IL1", 'd_utility(x, xm, "IL1") | dUtility(method="IL1")', 100),
    Task("d_utility_IL1s", 'd_utility(x, xm, "IL1s") | dUtility(method="IL1s")', 2),
    Task("d_utility_eigen", 'd_utility(x, xm, "eigen") | dUtility(method="eigen")', 20),
    Task("d_utility_robeigen", 'd_utility(x, xm, "robeigen") | dUtility(method="robeigen")', 2),
    Task("il_correl", "il_correl(x, xm) | IL_correl(x, xm)", 5),
    Task("il_variables", "il_variables(x, xm) | IL_variables(x, xm)", 4),
    Task("freq_calc", "freq_calc(5 keys, w) | freqCalc(keyVars, w)", None),
    Task(
        "freq_calc_missing",
        "freq_calc(5 keys with 1 % missing, w) | freqCalc(keyVars, w)",
        200,
        max_n_r=1_000_000,
        skip_reason="sdcMicro loops over the rows with missing keys in R: ~10 s at 1e5, ~26 s at 3e5, "
        "so > 300 s expected at 5e6",
    ),
    Task(
        "indiv_risk_exact",
        'indiv_risk(freq, "exact") | indivRisk(f, method="exact")',
        1000,
        target_n=100_000,
        max_n_r=100_000,
        max_n_py=100_000,
        skip_reason="the target is set at 1e5; sdcMicro's exact series costs about fk^2 per record, "
        "so its time grows with the cube of the cell sizes (a single cell of 400 records takes 72 s)",
        scaling=3.0,
    ),
    Task("measure_risk_w", "measure_risk(5 keys, w) | measure_risk(keyVars, w)", 20),
    Task("measure_risk_w_hid", "measure_risk(5 keys, w, hid) | measure_risk(keyVars, w, hid)", 100),
    Task("ldiversity", 'ldiversity(5 keys, "sens") | ldiversity(keyVars, ldiv_index)', 5),
    Task("suda2", "suda2(5 keys) | suda2(dat, variables = keys)", 10),
    Task("k_anon_violations", "k_anon_violations(5 keys, k=3) | kAnon_violations(createSdcObj(...), FALSE, 3)",
         None),
    Task("d_risk", "d_risk(x, xm) | dRisk(x, xm)", None),
    Task(
        "d_risk_rmd",
        "d_risk_rmd(x, xm) | dRiskRMD(x, xm)",
        50,
        target_n=20_000,
        max_n_r=20_000,
        skip_reason="sdcMicro builds the full n x n distance matrix: ~60 s and 13.5 GB at 2e4 records",
        scaling=2.0,
    ),
    Task("mod_risk", 'mod_risk("~ k1 + ... + k5", w, bound=2) | modRisk(method="default", bound=2)', 5),
    # the literature's measures: no sdcMicro counterpart, so an absolute time target (issue 10)
    *(Task(name, label, None, max_n_r=0, skip_reason=NO_SDCMICRO, max_seconds=secs) for name, label, secs in (
        ("il_continuous", "il_continuous(x8, xm8): 8 numeric variables", 0.5),
        ("il_categorical", "il_categorical(c8, cm8, max_dim=2): 8 categorical variables", 1.0),
        ("hellinger", "hellinger(x8, xm8): 8 numeric variables, 10 quantile bins", 0.5),
        ("gsil", "gsil(8 numeric + 8 categorical)", None),
    )),
]
TASKS = {t.name: t for t in TARGETS}


def measure_of(task: str) -> str | None:
    """The registry measure (pysdc.<name>) a task times: the longest registry name prefixing it."""
    from pysdc._registry import MEASURES

    names = [m.python for m in MEASURES if task == m.python or task.startswith(m.python + "_")]
    return max(names, key=len) if names else None


def unbenchmarked() -> list[str]:
    """Registry measures that no task times yet (listed in RESULTS.md so none is forgotten)."""
    from pysdc._registry import MEASURES

    timed = {measure_of(t.name) for t in TARGETS}
    return [m.python for m in MEASURES if m.python not in timed]
BRIDGE_TARGET_SECONDS = 1.0  # bridge conversion of a 1e6 x 10 mixed frame, each way
BRIDGE_ROWS = 1_000_000
SHORT_CALL = 0.05  # seconds: a call this short is timed SHORT_CALL_REPEATS times (median), its timing noise being large
SHORT_CALL_REPEATS = 15
MEMORY_SLACK_MB = 1.0  # RSS deltas below page/arena noise are not called "above"
MEMORY_MIN_N = 100_000  # below this, one-off code/library loading on a first call dominates the deltas
NOT_AVAILABLE = (NotImplementedError, ModuleNotFoundError, ImportError)


# --------------------------------------------------------------------------------------------- data
def make_dataset(n: int, seed: int = SEED) -> dict:
    """Seeded synthetic microdata with ``n`` records; returns name -> numpy array (int32 or float64).

    * households of 1-8 persons (``hid``, 1-based, consecutive records), skewed towards 1-4 persons;
    * sampling weights ``w``, lognormal, constant within a household;
    * 5 categorical keys ``k1``..``k5`` coded 1..L with L = 2, 6, 12, 25, 50 levels and Zipf-like
      (skewed) frequencies; ``k1m``..``k5m`` the same keys with 1 % of the key values (independently per
      cell) missing (INT_MIN = R's NA);
    * a sensitive categorical variable ``sens`` (8 skewed levels) for l-diversity;
    * 4 skewed numeric variables ``v1``..``v4`` (lognormal, rounded to cents, with 5 %, 10 %, 20 %, 35 %
      zeros: fewer than half, so that robeigen's MCD is not degenerate) and their masked copy ``m1``..``m4``
      (additive Gaussian noise, sd 10 % of the variable's sd).
    """
    import numpy as np

    rng = np.random.default_rng([seed, n])
    p_hh = np.array([0.28, 0.30, 0.17, 0.14, 0.06, 0.03, 0.015, 0.005])
    sizes = rng.choice(np.arange(1, 9), size=n // 2 + 8, p=p_hh / p_hh.sum())
    n_hh = int(np.searchsorted(np.cumsum(sizes), n) + 1)
    hid = np.repeat(np.arange(1, n_hh + 1, dtype=np.int32), sizes[:n_hh])[:n]
    w_hh = rng.lognormal(np.log(150.0), 0.6, size=n_hh)
    cols = {"hid": hid, "w": np.round(w_hh[hid - 1], 4)}

    def skewed(levels: int, size: int) -> np.ndarray:
        p = 1.0 / np.arange(1, levels + 1) ** 0.8
        return (rng.choice(levels, size=size, p=p / p.sum()) + 1).astype(np.int32)

    for k, levels in zip(KEYS, KEY_LEVELS):
        cols[k] = skewed(levels, n)
    for k in KEYS:
        km = cols[k].copy()
        km[rng.random(n) < 0.01] = INT_NA
        cols[k + "m"] = km
    cols["sens"] = skewed(8, n)
    zeros = [0.05, 0.10, 0.20, 0.35]
    locs = [np.log(20_000.0), np.log(1_500.0), np.log(5_000.0), np.log(50_000.0)]
    for j, (v, z, loc) in enumerate(zip(NUMS, zeros, locs), start=1):
        x = np.round(rng.lognormal(loc, 1.0, size=n), 2)
        x[rng.random(n) < z] = 0.0
        cols[v] = x
        cols[f"m{j}"] = np.round(x + rng.normal(0.0, 0.1 * x.std(), size=n), 2)
    return cols


def write_dataset(cols: dict, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    n = len(next(iter(cols.values())))
    lines = ["name\ttype\tn"]
    for name, arr in cols.items():
        kind = "int32" if arr.dtype.kind == "i" else "float64"
        arr.astype("<i4" if kind == "int32" else "<f8", copy=False).tofile(directory / f"{name}.bin")
        lines.append(f"{name}\t{kind}\t{n}")
    (directory / "manifest.tsv").write_text("\n".join(lines) + "\n")


def load_frames(directory: Path) -> dict:
    """The Python worker's view of the dataset: the frames the R worker builds, from the same bytes.

    Keys, ``sens`` and ``hid`` are int64 columns (what pandas gives for an integer column read from a file);
    keys with missing values are float64 with NaN (ditto); numerics are float64.
    """
    import numpy as np
    import pandas as pd

    manifest = [line.split("\t") for line in (directory / "manifest.tsv").read_text().splitlines()[1:]]
    raw = {}
    for name, kind, n in manifest:
        arr = np.fromfile(directory / f"{name}.bin", dtype="<i4" if kind == "int32" else "<f8", count=int(n))
        if kind == "int32":
            miss = arr == INT_NA
            arr = np.where(miss, np.nan, arr) if miss.any() else arr.astype(np.int64)
        raw[name] = arr
    dat = pd.DataFrame({c: raw[c] for c in [*KEYS, "sens", "w", "hid"]})
    datm = pd.DataFrame({**{k: raw[k + "m"] for k in KEYS}, "w": raw["w"]})
    x = pd.DataFrame({v: raw[v] for v in NUMS})
    xm = pd.DataFrame({v: raw[f"m{j}"] for j, v in enumerate(NUMS, start=1)})
    return {"dat": dat, "datm": datm, "x": x, "xm": xm}


# --------------------------------------------------------------------------------------------- python worker
def _status_kb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return None


def _reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _python_tasks(f: dict) -> dict:
    """name -> (setup, run): setup() is not timed and returns the state passed to run(state)."""
    import numpy as np
    import pandas as pd

    import pysdc

    dat, datm, x, xm = f["dat"], f["datm"], f["x"], f["xm"]

    def plain(fn):
        return (lambda: None, lambda state: fn())

    def exact_setup():
        return pysdc.freq_calc(dat, KEYS, w="w")

    def wide_numeric():
        # 8 numeric variables: v1..v4 and four non-linear transforms of them (not collinear); the masked
        # frame transforms the masked values the same way
        def widen(f):
            g = f.copy()
            for j, v in enumerate(NUMS, start=5):
                g[f"v{j}"] = np.sqrt(f[v].abs()) if j % 2 else np.log1p(f[v].abs())
            return g
        return widen(x), widen(xm)

    def wide_categorical():
        # 8 categorical variables (the 5 keys, sens and two derived ones); masked: 5 % of the values of
        # each variable replaced by another level, as PRAM would (fixed seed, outside the timed region)
        rng = np.random.default_rng(SEED)
        c = dat[[*KEYS, "sens"]].copy()
        c["c7"] = (dat["k3"] + dat["k4"]) % 7
        c["c8"] = (dat["k2"] * dat["k5"]) % 5
        cm = c.copy()
        for col in c.columns:
            levels = np.unique(c[col])
            change = rng.random(len(c)) < 0.05
            cm.loc[change, col] = rng.choice(levels, int(change.sum()))
            cats = pd.CategoricalDtype(levels)
            c[col], cm[col] = c[col].astype(cats), cm[col].astype(cats)
        return c, cm

    return {
        "d_utility_IL1": plain(lambda: pysdc.d_utility(x, xm, method="IL1")),
        "d_utility_IL1s": plain(lambda: pysdc.d_utility(x, xm, method="IL1s")),
        "d_utility_eigen": plain(lambda: pysdc.d_utility(x, xm, method="eigen")),
        "d_utility_robeigen": plain(lambda: pysdc.d_utility(x, xm, method="robeigen", random_state=1)),
        "il_correl": plain(lambda: pysdc.il_correl(x, xm)),
        "il_variables": plain(lambda: pysdc.il_variables(x, xm)),
        "freq_calc": plain(lambda: pysdc.freq_calc(dat, KEYS, w="w")),
        "freq_calc_missing": plain(lambda: pysdc.freq_calc(datm, KEYS, w="w")),
        "indiv_risk_exact": (exact_setup, lambda fr: pysdc.indiv_risk(fr, method="exact")),
        "measure_risk_w": plain(lambda: pysdc.measure_risk(dat, KEYS, w="w")),
        "measure_risk_w_hid": plain(lambda: pysdc.measure_risk(dat, KEYS, w="w", hid="hid")),
        "ldiversity": plain(lambda: pysdc.ldiversity(dat, KEYS, ldiv_index="sens")),
        "suda2": plain(lambda: pysdc.suda2(dat, KEYS)),
        "k_anon_violations": plain(lambda: pysdc.k_anon_violations(dat, KEYS, k=3)),
        "d_risk": plain(lambda: pysdc.d_risk(x, xm)),
        "d_risk_rmd": plain(lambda: pysdc.d_risk_rmd(x, xm, random_state=1)),
        "mod_risk": plain(lambda: pysdc.mod_risk(dat, "~ " + " + ".join(KEYS), w="w", bound=2)),
        "il_continuous": (wide_numeric, lambda st: pysdc.il_continuous(*st)),
        "il_categorical": (wide_categorical, lambda st: pysdc.il_categorical(*st, max_dim=2)),
        "hellinger": (wide_numeric, lambda st: pysdc.hellinger(*st)),
        "gsil": (lambda: tuple(pd.concat([a, b], axis=1) for a, b in zip(wide_numeric(), wide_categorical())),
                 lambda st: pysdc.gsil(*st)),
    }


def python_worker(data_dir: Path, out_file: Path, repeats: int, slow: float, tasks: list[str]) -> None:
    import tracemalloc

    # load every module the calls use before measuring, as the R worker loads sdcMicro (and with it
    # robustbase) before its calls: one-off library loading is not part of any call's time or memory
    import scipy.linalg  # noqa: F401
    import scipy.stats  # noqa: F401

    import pysdc.core.ldiversity  # noqa: F401
    import pysdc.core.mcd  # noqa: F401

    frames = load_frames(data_dir)
    n = len(frames["dat"])
    table = _python_tasks(frames)
    can_reset = _reset_hwm()

    def emit(rec):
        with open(out_file, "a") as fh:
            fh.write(json.dumps(rec) + "\n")

    for name in tasks:
        rec = {"task": name, "n": n, "status": "ok", "runs": [], "rss_mb": None, "heap_mb": None, "msg": ""}
        setup, run = table[name]
        try:
            state = setup()
            planned = repeats
            k = 0
            while k < planned:
                k += 1
                gc.collect()
                if can_reset:
                    _reset_hwm()
                rss0 = _status_kb("VmRSS")
                t0 = time.perf_counter()
                res = run(state)
                t1 = time.perf_counter()
                hwm = _status_kb("VmHWM")
                del res
                rec["runs"].append(t1 - t0)
                if can_reset and rss0 is not None and hwm is not None:
                    rec["rss_mb"] = max(rec["rss_mb"] or 0.0, (hwm - rss0) / 1024)
                if t1 - t0 > slow:
                    break
                if k == repeats and statistics.median(rec["runs"]) < SHORT_CALL:
                    planned = max(repeats, SHORT_CALL_REPEATS)  # short calls: more runs for a stable median
            if rec["runs"][0] <= slow:  # one extra, untimed run under tracemalloc
                gc.collect()
                tracemalloc.start()
                res = run(state)
                rec["heap_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
                del res
            del state
        except NOT_AVAILABLE as exc:
            rec.update(status="not available", msg=f"{type(exc).__name__}: {exc}".strip().rstrip(":"))
        except Exception as exc:  # reported in the table, never fatal for the run
            rec.update(status="error", msg=f"{type(exc).__name__}: {exc}"[:300])
            traceback.print_exc(file=sys.stderr)
        finally:
            if tracemalloc.is_tracing():
                tracemalloc.stop()
        emit(rec)


# --------------------------------------------------------------------------------------------- orchestration
def worker_env() -> dict:
    # The workers run with the default allocator settings, as users do. (A fixed MALLOC_MMAP_THRESHOLD_ would
    # make every large temporary a fresh mapping, page-faulted on every call: measured, it slowed pysdc's
    # calls by 1.3-2x and did not change the peak measured on the first call of a fresh process.)
    return dict(os.environ)


def r_available() -> tuple[bool, str]:
    if shutil.which("Rscript") is None:
        return False, "Rscript not found"
    try:
        p = subprocess.run(
            ["Rscript", "-e", 'quit(status = if (requireNamespace("sdcMicro", quietly = TRUE)) 0 else 3)'],
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"Rscript failed: {exc}"
    if p.returncode != 0:
        return False, "the R package sdcMicro is not installed"
    return True, ""


def run_worker(cmd: list[str], out_file: Path, timeout: float, log) -> tuple[list[str], str]:
    """Run a worker; returns the lines it wrote and a message if it failed or timed out."""
    out_file.unlink(missing_ok=True)
    msg = ""
    try:
        p = subprocess.run(cmd, env=worker_env(), capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            msg = f"worker exited with {p.returncode}: {p.stderr.strip()[-500:]}"
        elif p.stderr.strip():
            log(p.stderr.strip()[-2000:])
    except subprocess.TimeoutExpired:
        msg = f"worker killed after {timeout:.0f} s"
    lines = out_file.read_text().splitlines() if out_file.exists() else []
    return lines, msg


def parse_r_line(line: str) -> dict:
    parts = line.rstrip("\n").split("\t")
    parts += [""] * (7 - len(parts))
    task, n, status, runs, rss, gcm, msg = parts[:7]
    return {
        "task": task,
        "n": int(float(n)),
        "status": status,
        "runs": [float(s) for s in runs.split(",") if s],
        "rss_mb": float(rss) if rss not in ("", "NA") else None,
        "heap_mb": float(gcm) if gcm not in ("", "NA") else None,
        "msg": msg,
    }


def median(runs):
    return statistics.median(runs) if runs else None


def plan_skip(task: Task, side: str, n: int, history: dict, max_call: float) -> str:
    """Why (side, task) is not run at n, or "" to run it."""
    limit = task.max_n_r if side == "r" else task.max_n_py
    if limit is not None and n > limit:
        return f"not run: {task.skip_reason}" if task.skip_reason else f"not run above N = {limit:.0e}"
    prev = history.get((side, task.name))
    if prev is not None and n != task.target_n:  # the target size is always run (unless above max_n_*)
        prev_n, prev_t = prev
        expected = prev_t * (n / prev_n) ** task.scaling
        if expected > max_call:
            return f"not run: > {max_call:.0f} s expected (~{expected:.0f} s, extrapolated from N = {prev_n:.0e})"
    return ""


def bridge_conversion(quick: bool, log) -> dict:
    """Hook for the R bridge's conversion benchmark (benchmarks/bench_bridge_conversion.py, owned by the
    bridge). Returns {"status", "rows", "cols", "to_r", "to_py", "msg"}; times in seconds."""
    rows = 10_000 if quick else BRIDGE_ROWS
    out = {"status": "not measured", "rows": rows, "cols": 10, "to_r": None, "to_py": None,
           "msg": "bridge not available"}
    if not BRIDGE_BENCH.exists():
        out["msg"] = "bridge not available (benchmarks/bench_bridge_conversion.py does not exist yet)"
        return out
    if importlib.util.find_spec("rpy2") is None or shutil.which("R") is None:
        out["msg"] = "bridge not available (rpy2 or R is not installed)"
        return out
    # HOOK: the bridge's own script is the interface. If it grows a `measure(n_rows) -> dict` with
    # "to_r_seconds" / "to_py_seconds" (and optionally "n_cols", "note"), it is called in a subprocess;
    # otherwise its command line (`bench_bridge_conversion.py N`) is run and its "to R:" / "back:" lines
    # are read. Either way R is started in a separate process, never in this one.
    code = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('bbc', {str(BRIDGE_BENCH)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "if hasattr(m, 'measure'):\n"
        f"    print('JSON ' + json.dumps(m.measure(n_rows={rows})))\n"
        "else:\n"
        f"    m.main({rows})\n"
    )
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900, cwd=REPO)
    except subprocess.TimeoutExpired:
        out.update(status="error", msg="bench_bridge_conversion.py did not finish within 900 s")
        return out
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        na = any(e.__name__ in last for e in NOT_AVAILABLE)
        out.update(status="not measured" if na else "error",
                   msg=("bridge not available: " if na else "bench_bridge_conversion.py failed: ") + last[:300])
        return out
    lines = p.stdout.splitlines()
    try:
        js = [ln[5:] for ln in lines if ln.startswith("JSON ")]
        if js:
            res = json.loads(js[-1])
            out.update(status="ok", to_r=float(res["to_r_seconds"]), to_py=float(res["to_py_seconds"]),
                       cols=res.get("n_cols", 10), msg=res.get("note", ""))
        else:
            def seconds(prefix):
                line = next(ln for ln in lines if ln.strip().startswith(prefix))
                return float(line.split(":", 1)[1].split()[0])

            out.update(status="ok", to_r=seconds("to R:"), to_py=seconds("back:"),
                       msg="Times as printed by bench_bridge_conversion.py (best of 3). Its full output: "
                           + " / ".join(ln.strip() for ln in lines if ln.strip()))
    except (StopIteration, ValueError, KeyError) as exc:
        out.update(status="error", msg=f"could not read bench_bridge_conversion.py's output ({exc!r}): "
                                       + " / ".join(lines)[:300])
    return out


# --------------------------------------------------------------------------------------------- environment
def machine_info() -> dict:
    info = {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        info["memory"] = "?"
    osname = platform.platform()
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip().strip('"') + f" (Linux {platform.release()})"
    except OSError:
        pass
    info["os"] = osname
    return info


def versions(with_r: bool) -> dict:
    import numpy
    import pandas
    import scipy

    import pysdc

    v = {
        "Python": platform.python_version(),
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
        "scipy": scipy.__version__,
        "pysdc": getattr(pysdc, "__version__", "?"),
    }
    if with_r:
        expr = (
            'cat(paste0(R.version$major, ".", R.version$minor), '
            'sapply(c("sdcMicro", "robustbase", "data.table"), function(p) '
            'if (requireNamespace(p, quietly = TRUE)) as.character(packageVersion(p)) else "not installed"), '
            'basename(extSoftVersion()[["BLAS"]]), sep = "\\n")'
        )
        try:
            out = subprocess.run(["Rscript", "-e", expr], capture_output=True, text=True, timeout=120).stdout
            r, sdc, rb, dtab, blas = (out.splitlines() + ["?"] * 5)[:5]
            v.update({"R": r, "sdcMicro": sdc, "robustbase": rb, "data.table": f"{dtab} (not used)",
                      "R BLAS": blas})
        except (OSError, subprocess.TimeoutExpired):
            v["R"] = "?"
    else:
        v.update({"R": "not used", "sdcMicro": "not used"})
    try:
        cfg = numpy.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        v["numpy BLAS"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:
        pass
    return v


# --------------------------------------------------------------------------------------------- report
def fmt_s(t):
    if t is None:
        return "—"
    return f"{t:.3g}" if t >= 0.001 else f"{t:.2e}"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:,.0f}×" if r >= 100 else f"{r:.3g}×"


def fmt_mb(m):
    return "—" if m is None else f"{m:.1f}"


def fmt_n(n: int) -> str:
    e = int(round(math.log10(n)))
    if 10**e == n:
        return f"1e{e}"
    return f"{n / 10**int(math.log10(n)):g}e{int(math.log10(n))}"


def cell_status(rec):
    if rec is None:
        return None
    if rec["status"] != "ok":
        return rec["status"] + (f" ({rec['msg']})" if rec.get("msg") and rec["status"] != "ok" else "")
    return None


def render(results: dict, meta: dict, bridge: dict) -> str:
    L = []
    L.append("<!-- generated by benchmarks/run.py — do not edit -->")
    L.append("# pysdc vs sdcMicro: timings and peak memory")
    L.append("")
    L.append("**generated by benchmarks/run.py — do not edit** (regenerate with the command below)")
    L.append("")
    L.append(f"- Command: `{meta['command']}`")
    L.append(f"- Date: {meta['date']} · total wall time {meta['elapsed']:.0f} s")
    m = meta["machine"]
    L.append(f"- Machine: {m['cores']} cores, {m.get('memory', '?')} memory, CPU {m['cpu']}, {m['os']}")
    L.append(f"- Load average (1 min) at start / end: {meta['load_start']} / {meta['load_end']}"
             + (f" — {meta['note']}" if meta.get("note") else ""))
    L.append("- Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()))
    L.append(f"- Repeats: {meta['repeats']} (median reported; a call slower than {meta['slow']:.0f} s on its "
             f"first run is run once; a pysdc call shorter than {SHORT_CALL * 1000:.0f} ms is run {SHORT_CALL_REPEATS} "
             f"times; both workers load their libraries before timing); sdcMicro: {meta['r_status']}")
    L.append("")
    L.append("## Targets")
    L.append("")
    missing = unbenchmarked()
    if missing:
        L.append("Measures of the registry (`pysdc/_registry.py`) without a benchmark task yet: "
                 + ", ".join(f"`{m}`" for m in missing) + ".")
        L.append("")
    L.append("Ratio = sdcMicro time / pysdc time on the same data in the same run, judged at the target size; "
             "memory = peak RSS increase during the call (see Method), judged at every size "
             f"N ≥ {fmt_n(MEMORY_MIN_N)} where both ran (below it, one-off loading of code on a first call "
             "dominates the few MB measured).")
    L.append("")
    L.append("| function | target ratio | at N | pysdc (s) | sdcMicro (s) | ratio | ratio target | "
             f"peak memory ≤ sdcMicro's (N ≥ {fmt_n(MEMORY_MIN_N)}) |")
    L.append("|---|---|---|---|---|---|---|---|")
    for t in TARGETS:
        if t.name not in meta["tasks"]:
            continue
        py = results.get(("py", t.name, t.target_n))
        r = results.get(("r", t.name, t.target_n))
        pt = median(py["runs"]) if py and py["status"] == "ok" else None
        rt = median(r["runs"]) if r and r["status"] == "ok" else None
        ratio = rt / pt if pt and rt else None
        if t.max_seconds is not None:
            verdict = "not measured" if pt is None else ("**met**" if pt < t.max_seconds else "**MISSED**")
        elif t.target is None:
            verdict = "(no target)"
        elif ratio is None:
            verdict = "not measured"
        else:
            verdict = "**met**" if ratio >= t.target else "**MISSED**"
        mem = memory_verdict(results, t.name, meta["sizes"])
        tgt = "—" if t.target is None else f"≥ {t.target:g}×"
        if t.max_seconds is not None:
            tgt = f"pysdc < {t.max_seconds:g} s"
        L.append(f"| {t.name} | {tgt} | {fmt_n(t.target_n)} | {fmt_s(pt)} | {fmt_s(rt)} | "
                 f"{fmt_ratio(ratio)} | {verdict} | {mem} |")
    bverdict = "not measured"
    if bridge["status"] == "ok":
        ok = bridge["to_r"] < BRIDGE_TARGET_SECONDS and bridge["to_py"] < BRIDGE_TARGET_SECONDS
        bverdict = "**met**" if ok else "**MISSED**"
        if bridge["rows"] != BRIDGE_ROWS:
            bverdict = f"(measured at {fmt_n(bridge['rows'])} rows only)"
    L.append(f"| bridge conversion {fmt_n(bridge['rows'])} × {bridge['cols']} | < {BRIDGE_TARGET_SECONDS:g} s each way | "
             f"{fmt_n(BRIDGE_ROWS)} | to R {fmt_s(bridge['to_r'])} | to pandas {fmt_s(bridge['to_py'])} | — | "
             f"{bverdict} | — |")
    L.append("")
    L.append("## All sizes")
    L.append("")
    L.append("Times in seconds (median); memory in MB. `runs` = number of timed runs pysdc / sdcMicro.")
    L.append("")
    L.append("| function | N | pysdc (s) | sdcMicro (s) | ratio | target | met | pysdc peak RSS (MB) | "
             "sdcMicro peak RSS (MB) | memory | pysdc tracemalloc (MB) | sdcMicro gc max used (MB) | runs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in TARGETS:
        if t.name not in meta["tasks"]:
            continue
        for n in meta["sizes"]:
            py = results.get(("py", t.name, n))
            r = results.get(("r", t.name, n))
            if py is None and r is None:
                continue
            pt = median(py["runs"]) if py and py["status"] == "ok" else None
            rt = median(r["runs"]) if r and r["status"] == "ok" else None
            ptxt = fmt_s(pt) if pt is not None else (cell_status(py) or "—")
            rtxt = fmt_s(rt) if rt is not None else (cell_status(r) or "—")
            ratio = rt / pt if pt and rt else None
            is_target_row = n == t.target_n and t.target is not None
            tgt = f"≥ {t.target:g}×" if is_target_row else ""
            met = ""
            if is_target_row:
                met = "not measured" if ratio is None else ("**met**" if ratio >= t.target else "**MISSED**")
            pm = py.get("rss_mb") if py and py["status"] == "ok" else None
            rm = r.get("rss_mb") if r and r["status"] == "ok" else None
            memv = "—" if pm is None or rm is None else ("≤" if pm <= rm + MEMORY_SLACK_MB else
                                                          ("**ABOVE**" if n >= MEMORY_MIN_N else "above"))
            runs = f"{len(py['runs']) if py else 0} / {len(r['runs']) if r else 0}"
            L.append(
                f"| {t.name} | {fmt_n(n)} | {ptxt} | {rtxt} | {fmt_ratio(ratio)} | "
                f"{tgt} | {met} | {fmt_mb(pm)} | {fmt_mb(rm)} | {memv} | "
                f"{fmt_mb(py.get('heap_mb') if py else None)} | {fmt_mb(r.get('heap_mb') if r else None)} | {runs} |"
            )
    L.append("")
    L.append("## Bridge conversion (pysdc.r)")
    L.append("")
    if bridge["status"] == "ok":
        L.append(f"{fmt_n(bridge['rows'])} × {bridge['cols']} mixed frame: pandas → R {fmt_s(bridge['to_r'])} s, "
                 f"R → pandas {fmt_s(bridge['to_py'])} s (target < {BRIDGE_TARGET_SECONDS:g} s each way). "
                 + (bridge.get("msg") or ""))
    else:
        L.append(f"bridge conversion: {bridge['status']} — {bridge['msg']}")
    L.append("")
    L.append("## What is timed")
    L.append("")
    L.append("| task | pysdc call · sdcMicro call |")
    L.append("|---|---|")
    for t in TARGETS:
        if t.name in meta["tasks"]:
            L.append(f"| {t.name} | `{t.label.replace(' | ', '` · `')}` |")
    L.append("")
    L.append("## Method")
    L.append("")
    L.append(METHOD_TEXT.strip())
    L.append("")
    if meta.get("worker_messages"):
        L.append("## Worker messages")
        L.append("")
        for msg in meta["worker_messages"]:
            L.append(f"- {msg}")
        L.append("")
    return "\n".join(L)


def memory_verdict(results, name, sizes) -> str:
    verdicts = []
    for n in sizes:
        if n < MEMORY_MIN_N:
            continue
        py, r = results.get(("py", name, n)), results.get(("r", name, n))
        if py and r and py["status"] == "ok" and r["status"] == "ok" and py["rss_mb"] is not None \
                and r["rss_mb"] is not None:
            verdicts.append((n, py["rss_mb"] <= r["rss_mb"] + MEMORY_SLACK_MB))
    if not verdicts:
        return "not measured"
    above = [fmt_n(n) for n, ok in verdicts if not ok]
    return "**yes**" if not above else "**NO** at " + ", ".join(above)


METHOD_TEXT = """
- **Data.** Seeded synthetic microdata (numpy `default_rng([SEED, N])`), generated once per size and written once
  as raw little-endian binary columns (float64 / int32, missing integer = INT_MIN = R's `NA_integer_`); the
  Python worker reads them with `numpy.fromfile`, the R worker with base R `readBin`, so both get bit-identical
  values without a CSV round trip (data.table is not needed). Households of 1–8 persons (`hid`), lognormal
  household weights `w`, 5 keys with 2, 6, 12, 25, 50 Zipf-like levels (int64 in pandas, integer in R), a variant
  of the keys with 1 % of the key cells missing (float64 with NaN in pandas, integer with NA in R), a sensitive
  variable `sens` with 8 levels, 4 lognormal numerics with 5–35 % zeros (double) and a masked copy with Gaussian
  noise (sd 10 % of the variable's).
- **Processes.** Per size and function, a fresh Python worker and then a fresh `Rscript` worker (never
  concurrently); each loads the data once, untimed, then times the call. Setup that is not the measured function is untimed
  on both sides (the frequency counts passed to `indiv_risk` / `indivRisk`; `set.seed` before robeigen).
- **Time.** Wall clock around the single call (`time.perf_counter` / `proc.time()["elapsed"]`), median over the
  repeats; no warm-up run on either side.
- **Peak memory (compared).** For each run, the kernel's peak resident set size of the worker process
  (`VmHWM`, reset by writing 5 to `/proc/self/clear_refs` just before the call) minus its resident size just
  before the call, in MB; the maximum over the runs is reported. The same measure on both sides: it includes
  numpy buffers, R vectors and memory allocated by C/C++ code (Rcpp). Each worker is a fresh process, so its
  first call cannot reuse memory freed by an earlier call (later runs may; hence the maximum). Both run with
  the default allocator settings (glibc), as users run them. Deltas below 1 MB are page/arena noise and are not called "above"; the
  memory target is judged at N ≥ 1e5 only (below, a first call's one-off loading of code and libraries — a few
  MB on either side — dominates). R keeps and reuses its own heap pages, so its RSS delta can read lower than
  its gc "max used" (R vectors only) — both are shown.
- **Heap measures (secondary).** pysdc: `tracemalloc` peak during one extra, untimed run (numpy registers its
  buffers with tracemalloc). sdcMicro: `gc(reset = TRUE)` before, sum of `gc()` "max used" after minus "used"
  before — R's own vectors only, and sampled at garbage collections, so it can miss short-lived peaks and
  misses memory allocated by C/C++ code.
- **Skips.** sdcMicro calls are not run above a per-function size (TARGETS in run.py) or when their time
  extrapolated from the previous size exceeds `--max-call-seconds`; the table then says "not run" and why.
"""


# --------------------------------------------------------------------------------------------- main
def parse_sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(float(s)) for s in text.split(",") if s.strip()})
    except ValueError:
        raise SystemExit(f"--sizes must be comma-separated numbers such as 1e4,1e5; got {text!r}") from None
    if not sizes or sizes[0] < 100:
        raise SystemExit(f"--sizes needs sizes of at least 100 rows; got {text!r}")
    return sizes


def kept_sections(path: Path) -> str:
    """The sections of an existing report that other scripts write (benchmarks/scale.py's scale table) or
    that record a one-off measurement (between ``<!-- kept`` and ``<!-- /kept -->``): a new report keeps them."""
    import re

    if not path.exists():
        return ""
    old = path.read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- kept.*?<!-- /kept -->|<!-- scale: generated.*?<!-- /scale -->", old, re.S)
    return "".join("\n" + b + "\n" for b in blocks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N = 1e3 and 1e4, one repeat (what CI runs)")
    ap.add_argument("--sizes", default="1e4,1e5,1e6,5e6", help="comma-separated sizes (default 1e4,1e5,1e6,5e6)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per call; the median is reported")
    ap.add_argument("--output", default=str(HERE / "RESULTS.md"), help="Markdown report (default benchmarks/RESULTS.md)")
    ap.add_argument("--no-r", action="store_true", help="time the native side only")
    ap.add_argument("--only", default="", help="comma-separated task names: " + ", ".join(TASKS))
    ap.add_argument("--slow-seconds", type=float, default=10.0, help="a call slower than this is not repeated")
    ap.add_argument("--max-call-seconds", type=float, default=150.0,
                    help="skip a call whose extrapolated time exceeds this (default 150)")
    ap.add_argument("--worker-timeout", type=float, default=600.0,
                    help="kill a worker (one function, one side, one size) after this many seconds")
    ap.add_argument("--note", default="", help="free text recorded in the report (e.g. machine load)")
    ap.add_argument("--worker", nargs=4, metavar=("DATA_DIR", "OUT", "REPEATS", "TASKS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        data_dir, out, repeats, tasks = args.worker
        python_worker(Path(data_dir), Path(out), int(repeats), args.slow_seconds, tasks.split(","))
        return 0

    started = time.time()
    sizes = [1_000, 10_000] if args.quick else parse_sizes(args.sizes)
    repeats = 1 if args.quick else max(1, args.repeats)
    tasks = [t for t in args.only.split(",") if t] or list(TASKS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise SystemExit(f"--only: unknown task(s) {unknown}; choose from {', '.join(TASKS)}")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.no_r:
        use_r, r_msg = False, "not run (--no-r)"
    else:
        use_r, why = r_available()
        r_msg = "run" if use_r else f"not run ({why})"
    log(f"benchmarks: sizes {sizes}, repeats {repeats}, tasks {len(tasks)}, sdcMicro {r_msg}")

    results: dict = {}
    history: dict = {}
    worker_messages: list[str] = []
    load_start = f"{os.getloadavg()[0]:.2f}"
    with tempfile.TemporaryDirectory(prefix="pysdc-bench-") as tmp:
        tmp = Path(tmp)
        for n in sizes:
            data_dir = tmp / f"n{n}"
            t0 = time.time()
            write_dataset(make_dataset(n), data_dir)
            log(f"N = {fmt_n(n)}: data written in {time.time() - t0:.1f} s")
            sides = [("py", [sys.executable, str(Path(__file__).resolve()), "--slow-seconds", str(args.slow_seconds),
                             "--worker", str(data_dir), "{out}", str(repeats), "{task}"])]
            if use_r:
                sides.append(("r", ["Rscript", str(R_SCRIPT), str(data_dir), "{out}", str(repeats),
                                    str(args.slow_seconds), "{task}"]))
            # One fresh worker process per (task, side): memory is measured from a clean process, a crash
            # or a timeout costs one cell only, and the two sides never run at the same time.
            for name in tasks:
                for side, template in sides:
                    who = "pysdc" if side == "py" else "sdcMicro"
                    why = plan_skip(TASKS[name], side, n, history, args.max_call_seconds)
                    if why:
                        results[(side, name, n)] = {"status": why, "runs": [], "rss_mb": None, "heap_mb": None,
                                                    "msg": ""}
                        log(f"  {side:2} {name:<20} {why}")
                        continue
                    out = tmp / f"{side}-{n}-{name}.out"
                    cmd = [a.replace("{out}", str(out)).replace("{task}", name) for a in template]
                    t0 = time.time()
                    lines, msg = run_worker(cmd, out, args.worker_timeout, log)
                    wall = time.time() - t0
                    if msg:
                        worker_messages.append(f"{who} {name} at N = {fmt_n(n)}: {msg}")
                        log(msg)
                    for line in lines[:1]:
                        rec = json.loads(line) if side == "py" else parse_r_line(line)
                        results[(side, name, n)] = rec
                        if rec["status"] == "ok" and rec["runs"]:
                            history[(side, name)] = (n, median(rec["runs"]))
                        log(f"  {side:2} {name:<20} {rec['status']:<14} {fmt_s(median(rec['runs']))} s  "
                            f"rss {fmt_mb(rec['rss_mb'])} MB  (worker {wall:.1f} s) {rec['msg'][:120]}")
                    if (side, name, n) not in results:
                        status = "timeout" if "killed after" in msg else "no result"
                        results[(side, name, n)] = {"status": f"{status} ({msg})" if msg else status,
                                                    "runs": [], "rss_mb": None, "heap_mb": None, "msg": ""}
            shutil.rmtree(data_dir, ignore_errors=True)

    bridge = bridge_conversion(args.quick, log)
    log(f"bridge conversion: {bridge['status']} {bridge['msg']}")
    meta = {
        "command": shlex.join(["python3", "benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)]),
        "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "elapsed": time.time() - started,
        "machine": machine_info(),
        "versions": versions(use_r),
        "load_start": load_start,
        "load_end": f"{os.getloadavg()[0]:.2f}",
        "note": args.note,
        "repeats": repeats,
        "slow": args.slow_seconds,
        "r_status": r_msg,
        "sizes": sizes,
        "tasks": tasks,
        "worker_messages": worker_messages,
    }
    text = render(results, meta, bridge)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(text + "\n" + kept_sections(Path(args.output)))
    log(f"report written to {args.output} ({meta['elapsed']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
