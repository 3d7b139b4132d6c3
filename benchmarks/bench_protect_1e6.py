"""Every native protection method of pysdc at one size (default 1e6), each in its own child process (issue 28).

    PYTHONPATH=. nice python3 benchmarks/bench_protect_1e6.py [--size 1e6] [--limit 300] [--wall-limit 1800] [--only a,b] [--skip a,b]
        [--dir /tmp/pysdc_1e6] [--list]

The target of issue 28: at 1e6 records every method finishes in <= 60 s and <= 4 GiB. The cases are taken from
the registry (:data:`pysdc._registry._methods.METHODS`: every method of ``pysdc.protect``) and from each
method's own list of native variants (``microaggregation``'s ``NATIVE_METHODS``, ``add_noise``'s
``NATIVE_METHODS``, ``shuffle``'s ``NATIVE_SHUFFLE_METHODS``, ``global_recode``'s break methods); the script
stops if a registered method or variant has no case here and is not listed in ``LEFT_OUT`` (with the reason),
so nothing is forgotten. ``info_loss`` (record swapping's loss measure) is timed too.

The inputs are built once (seed 1) and stored as one pickle in ``--dir``:

* the main table, N records: ``a``, ``b`` normal, ``c`` lognormal, ``d`` lognormal with 40 % exactly 0 (values
  in multiples of 2^-10, as bench_protect_microaggregation.py); eusilc-like keys ``region`` (9 categories),
  ``sex`` (2), ``age`` (0-99, integer), ``econ`` (7) and ``citizen`` (3), both missing in the same 18 % of
  records (as bench_protect_suppression.py); a stratum ``s`` (2 categories); a positive weight ``w``;
* (``mcdpca``, ``clustmcdpca``: ``a``, ``b``, ``c`` only: MASS's ``cov.mcd`` stops on ``d``, whose interquartile
  range is 0 in a cluster, and sdcMicro with it);
* a population of N persons in households for ``record_swap``/``info_loss`` (as bench_protect_swap.py).

Each case runs in a fresh ``python3`` child (``--child NAME``): it reads the pickle, prepares what the call needs
(not timed: e.g. ``local_supp``'s individual risk, ``info_loss``'s swapped file), then times the one call: wall
and CPU time (``time.process_time``, every thread of the child; the machine may be shared, so CPU time is the
measure). The parent waits for the child with ``os.wait4`` and a time limit (``--limit`` s of the child's CPU time, read
from /proc, or ``--wall-limit`` s of wall time; then SIGKILL), and
takes the child's peak resident set (``ru_maxrss``: the whole process, the loaded inputs included) from its
resource usage, also for a child that was killed or failed. Prints a Markdown table (met: CPU <= 60 s and peak
<= 4 GiB) and the load average (1 minute) at the start and end; the numbers go to ``benchmarks/RESULTS.md``
("Protection: every method at 1e6") by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from bench_protect_swap import population as make_population  # the household population of the swap benchmark

VARS = ["a", "b", "c", "d"]
KEYS = ["region", "sex", "age", "econ", "citizen"]
LIMIT_S, LIMIT_GIB = 60.0, 4.0

# registered methods / variants deliberately not timed, and why
LEFT_OUT = {
    "add_noise:ROMM": "refuses more than 2000 records (sdcMicro builds an n x n matrix; pysdc says so)",
    "shuffle:mlm": "stops on every input, as in sdcMicro 5.8.0 (its predict call fails)",
    "k_anon": "an alias step of local_suppression (STEP_ALIASES), the same function",
}


# =============================================================================
# inputs

def exact(v: np.ndarray) -> np.ndarray:
    return np.round(v * 1024) / 1024


def make_main(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = rng.lognormal(9, 1, n).round(0)
    d[rng.random(n) < 0.4] = 0.0
    region = rng.choice(9, n, p=np.array([3, 6, 17, 6, 13, 8, 16, 21, 10]) / 100)
    age = np.clip(rng.gamma(4.0, 10.0, n), 0, 99).astype(np.int64)
    econ = rng.choice(7, n, p=[0.35, 0.1, 0.05, 0.3, 0.05, 0.1, 0.05]).astype(float)
    cit = rng.choice(3, n, p=[0.9, 0.04, 0.06]).astype(float)
    child = rng.random(n) < 0.18
    econ[child] = np.nan
    cit[child] = np.nan

    def cat(codes, prefix, k):
        labels = np.array([f"{prefix}{i}" for i in range(k)], dtype=object)
        out = np.full(codes.shape, None, dtype=object)
        ok = ~np.isnan(codes.astype(float))
        out[ok] = labels[codes[ok].astype(np.int64)]
        return pd.Categorical(out, categories=list(labels))

    return pd.DataFrame({
        "a": exact(rng.normal(size=n)), "b": exact(rng.normal(size=n)), "c": exact(rng.lognormal(size=n)), "d": d,
        "region": cat(region, "r", 9), "sex": cat(rng.integers(0, 2, n), "s", 2), "age": age,
        "econ": cat(econ, "e", 7), "citizen": cat(cit, "c", 3), "s": cat(rng.integers(0, 2, n), "u", 2),
        "w": exact(rng.lognormal(4, 0.5, n)),
    })


# =============================================================================
# cases: name -> (registry name, variant, prepare(inputs) -> args, call(args))

def _risk(x: pd.DataFrame) -> np.ndarray:  # 1 / f_k over the keys (a missing key is its own category here)
    codes = np.stack([x[k].cat.codes.to_numpy() if isinstance(x[k].dtype, pd.CategoricalDtype)
                      else x[k].to_numpy() for k in KEYS], axis=1)
    _, inv, cnt = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    return 1.0 / cnt[inv.ravel()]


def _swapped(p: pd.DataFrame) -> pd.DataFrame:  # 5 % of households get another household's nuts2
    rng = np.random.default_rng(2)
    out = p.copy()
    hh = out["hid"].to_numpy()
    pick = rng.random(hh.max() + 1) < 0.05
    m = pick[hh]
    out.loc[m, "nuts2"] = rng.permutation(out.loc[m, "nuts2"].to_numpy())
    return out


def cases() -> dict:
    from pysdc import info_loss
    from pysdc.protect import (
        add_noise,
        global_recode,
        group_and_rename,
        local_supp,
        local_suppression,
        mafast,
        microaggregation,
        mv_top_coding,
        pram,
        rank_swap,
        record_swap,
        shuffle,
        top_bot_coding,
    )
    from pysdc.protect._microaggregation import NATIVE_METHODS as MA
    from pysdc.protect._noise import NATIVE_METHODS as NOISE
    from pysdc.protect._shuffle import NATIVE_SHUFFLE_METHODS as SHUFFLE

    main = lambda i: i["main"]  # noqa: E731
    c = {}
    for m in ("equidistant", "logEqui", "equalAmount"):
        c[f"global_recode:{m}"] = ("global_recode", m, main, lambda x, m=m: global_recode(x, "c", 10, method=m))
    c["group_and_rename"] = ("group_and_rename", None, main,
                             lambda x: group_and_rename(x, "region", ["r1", "r3", "r5", "r7"], "odd"))
    c["top_bot_coding"] = ("top_bot_coding", None, main, lambda x: top_bot_coding(x, "d", 5e4, 5e4))
    c["mv_top_coding"] = ("mv_top_coding", None, lambda i: i["main"][VARS],
                          lambda x: mv_top_coding(x, random_state=1))
    for m in MA:  # MASS's cov.mcd stops on d (40 % zeros: interquartile range 0 in a cluster), as sdcMicro
        v = VARS[:3] if "mcd" in m else VARS
        c[f"microaggregation:{m}"] = ("microaggregation", m, main,
                                      lambda x, m=m, v=v: microaggregation(x, v, aggr=3, method=m, random_state=1))
    c["microaggregation:influence+strata"] = (
        "microaggregation", "influence", main,
        lambda x: microaggregation(x, VARS, aggr=3, method="influence", strata_variables=["s"]))
    c["mafast"] = ("mafast", None, main, lambda x: mafast(x, VARS, aggr=3))
    for m in NOISE:
        c[f"add_noise:{m}"] = ("add_noise", m, main, lambda x, m=m: add_noise(x, VARS[:3], method=m, random_state=1))
    c["pram"] = ("pram", None, main, lambda x: pram(x, ["region", "econ"], random_state=1))
    c["pram+strata"] = ("pram", None, main, lambda x: pram(x, ["econ"], strata_variables=["s", "sex"],
                                                           random_state=1))
    for m in SHUFFLE:
        c[f"shuffle:{m}"] = ("shuffle", m, main, lambda x, m=m: shuffle(x, "a + c ~ b + region", method=m,
                                                                        random_state=1))
    c["local_suppression"] = ("local_suppression", None, main, lambda x: local_suppression(x, KEYS, k=3))
    c["local_supp"] = ("local_supp", None, lambda i: (i["main"], _risk(i["main"])),
                       lambda a: local_supp(a[0], KEYS, "econ", a[1], threshold=0.15))
    c["record_swap"] = ("record_swap", None, lambda i: i["population"],
                        lambda p: record_swap(p, "hid", ["nuts1", "nuts2", "nuts3"], "hsize", swaprate=0.05,
                                              k_anonymity=3, risk_variables=["ageGroup", "national"],
                                              carry_along=["lau2"], seed=1))
    c["rank_swap"] = ("rank_swap", None, main, lambda x: rank_swap(x, VARS, seed=1))
    c["info_loss"] = ("info_loss", None, lambda i: (i["population"], _swapped(i["population"])),
                      lambda a: info_loss(a[0], a[1], ["nuts2", "national"]))
    return {k: v for k, v in c.items() if k not in LEFT_OUT}


def check_complete(cs: dict) -> None:
    """Every registered method (and every native variant) has a case or a reason in LEFT_OUT."""
    from pysdc._registry._methods import METHODS, STEP_ALIASES
    from pysdc.protect._noise import NATIVE_METHODS as NOISE
    from pysdc.protect._shuffle import NATIVE_SHUFFLE_METHODS as SHUFFLE

    have = {v[0] for v in cs.values()} | {k.split(":")[0] for k in LEFT_OUT}
    names = [m.python for m in METHODS] + list(STEP_ALIASES)
    missing = [n for n in names if n not in have]
    missing += [f"add_noise:{m}" for m in NOISE if f"add_noise:{m}" not in cs and f"add_noise:{m}" not in LEFT_OUT]
    missing += [f"shuffle:{m}" for m in (*SHUFFLE, "mlm") if f"shuffle:{m}" not in cs
                and f"shuffle:{m}" not in LEFT_OUT]
    if missing:
        raise SystemExit(f"no case and no reason for: {missing}")


# =============================================================================
# child and parent

def child(name: str, data: Path) -> None:
    with open(data, "rb") as f:
        inputs = pickle.load(f)
    _, _, prepare, call = cases()[name]
    args = prepare(inputs)
    del inputs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        call(args)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"wall": wall, "cpu": cpu}))


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) used so far by a running process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_one(name: str, data: Path, limit: float, wall_limit: float) -> dict:
    cmd = [sys.executable, __file__, "--child", name, "--data", str(data)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        t0 = time.perf_counter()
        killed = ""
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if not killed:
                if _cpu_of(p.pid) > limit:
                    killed = f"killed after {limit:.0f} s of CPU"
                elif time.perf_counter() - t0 > wall_limit:
                    killed = f"killed after {wall_limit:.0f} s of wall time"
                if killed:
                    os.kill(p.pid, signal.SIGKILL)
            time.sleep(0.2)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, etext = out.read(), err.read()
    res = {"rss": ru.ru_maxrss / 1024 ** 2, "child_cpu": ru.ru_utime + ru.ru_stime,
           "child_wall": time.perf_counter() - t0}
    if killed:
        res["error"] = killed
    elif p.returncode != 0:
        last = [ln for ln in etext.strip().splitlines() if ln.strip()]
        res["error"] = (last[-1] if last else f"exit {p.returncode}")[:160]
    else:
        res.update(json.loads(text.strip().splitlines()[-1]))
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1e6")
    ap.add_argument("--limit", type=float, default=300.0, help="CPU seconds of a child before it is killed")
    ap.add_argument("--wall-limit", type=float, default=1800.0, help="wall seconds of a child before it is killed")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--child", default=None)
    ap.add_argument("--data", default=None)
    a = ap.parse_args(argv)
    if a.child:
        child(a.child, Path(a.data))
        return 0
    cs = cases()
    check_complete(cs)
    if a.list:
        print("\n".join(cs))
        print("left out: " + "; ".join(f"{k}: {v}" for k, v in LEFT_OUT.items()))
        return 0
    names = [s for s in a.only.split(",") if s] or list(cs)
    unknown = [s for s in names + [s for s in a.skip.split(",") if s] if s not in cs]
    if unknown:
        raise SystemExit(f"unknown cases: {unknown}")
    names = [s for s in names if s not in a.skip.split(",")]
    n = int(float(a.size))
    directory = Path(a.dir or tempfile.mkdtemp(prefix="pysdc_1e6_"))
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / f"inputs_{n}.pkl"
    if not data.exists():
        tmp = data.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            pickle.dump({"main": make_main(n), "population": make_population(n)}, f, protocol=5)
        os.replace(tmp, data)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip() or "(not a git work tree)"
    print(f"# N = {n:,}, commit {commit}, load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start, "
          f"limit {a.limit:.0f} s of CPU ({a.wall_limit:.0f} s wall) a case", flush=True)
    rows = ["| case | CPU (s) | wall (s) | peak RSS (GiB) | load | ≤ 60 s CPU and ≤ 4 GiB |",
            "|---|---:|---:|---:|---:|:--|"]
    print("\n".join(rows), flush=True)
    for name in names:
        r = run_one(name, data, a.limit, a.wall_limit)
        load = os.getloadavg()[0]
        if "error" in r:
            cpu, wall = f"({r['child_cpu']:.1f})", f"({r['child_wall']:.1f})"
            verdict = f"**not met**: {r['error']}"
        else:
            cpu, wall = f"{r['cpu']:.3g}", f"{r['wall']:.3g}"
            ok = r["cpu"] <= LIMIT_S and r["rss"] <= LIMIT_GIB
            verdict = "**met**" if ok else "**not met**"
        rows.append(f"| {name} | {cpu} | {wall} | {r['rss']:.2f} | {load:.1f} | {verdict} |")
        print(rows[-1], flush=True)
    print(f"# load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
