"""Time ``pysdc.io.read_table`` on a typed table (CSV + schema) of N rows x 13 columns.

    nice python benchmarks/bench_csv_read.py --rows 1000000 [--repeats 3] [--dir /tmp/pysdc_csv_bench]
        [--baseline OLD_IO_PY]   # also time read_table of an older pysdc/_io.py (e.g. from git show) in the same run

Writes the table once with ``write_table`` (5 numeric, 3 integer (one with NA), 3 factors, 1 logical
with NA, 1 character column) and prints the median of the read times. The numbers go to
``benchmarks/RESULTS.md`` under "CSV reading" by hand (this script does not edit it).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pysdc.io import read_table, write_table


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {f"x{i}": rng.lognormal(size=n) for i in range(5)}
    cols["x0"][rng.random(n) < 0.01] = np.nan
    cols["age"] = rng.integers(0, 99, n)
    cols["hhid"] = rng.integers(0, n // 3 + 1, n)
    inc = pd.array(rng.integers(0, 10**6, n), dtype="Int64")
    inc[rng.random(n) < 0.02] = pd.NA
    cols["income_k"] = inc
    for name, levels in (("sex", ["male", "female"]), ("region", [f"r{i}" for i in range(12)]),
                         ("edu", ["none", "primary", "secondary", "tertiary"])):
        codes = rng.integers(-1 if name == "edu" else 0, len(levels), n)
        cols[name] = pd.Categorical.from_codes(codes, categories=levels, ordered=name == "edu")
    flag = pd.array(rng.random(n) < 0.3, dtype="boolean")
    flag[rng.random(n) < 0.01] = pd.NA
    cols["flag"] = flag
    cols["note"] = rng.choice(np.array(["a", "bb", "c c", "d,d"], dtype=object), n)
    return pd.DataFrame(cols)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/pysdc_csv_bench")
    ap.add_argument("--gz", action="store_true", help="write and read a .csv.gz")
    ap.add_argument("--baseline", help="path of an older pysdc/_io.py whose read_table is timed too")
    args = ap.parse_args(argv)
    n = int(args.rows)
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"bench_{n}.csv{'.gz' if args.gz else ''}"
    if not path.exists():
        t = time.perf_counter()
        write_table(make_frame(n), path)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s")
    readers = {"read_table (this pysdc)": read_table}
    if args.baseline:
        import importlib.util

        spec = importlib.util.spec_from_file_location("pysdc._io_baseline", args.baseline)
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        readers["read_table (baseline)"] = old.read_table
    frames = {}
    for label, fn in readers.items():
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            frames[label] = fn(path)
            times.append(time.perf_counter() - t)
        df = frames[label]
        print(f"{label} {path.name}: {df.shape[0]} x {df.shape[1]}, median {statistics.median(times):.2f} s "
              f"(runs: {', '.join(f'{x:.2f}' for x in times)})")
    if len(frames) == 2:
        a, b = frames.values()
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        print("the two readers return equal frames")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
