"""Time the R bridge's data-frame conversion: a 1e6 x 10 mixed frame to R and back.

Run: python benchmarks/bench_bridge_conversion.py [n_rows]
Prints one line per direction (best of 3), plus the time R needs to start.
Needs R and rpy2 (pip install "pysdc-measures[r]"); sdcMicro is not needed.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd


def make_frame(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    miss = rng.random(n) < 0.01
    f = rng.normal(size=n)
    f[miss] = np.nan
    i64 = pd.array(rng.integers(0, 1000, n), dtype="Int64")
    i64[miss] = pd.NA
    words = np.array(["north", "south", "east", "west", "centre", "élan"], dtype=object)
    s = words[rng.integers(0, len(words), n)].copy()
    s[miss] = None
    return pd.DataFrame({
        "income": f,
        "weight": rng.uniform(1, 100, n),
        "age": rng.integers(0, 100, n),
        "hh_size": i64,
        "employed": rng.random(n) < 0.6,
        "region": s,
        "sex": pd.Categorical(rng.choice(["f", "m"], n)),
        "edu": pd.Categorical.from_codes(rng.integers(-1, 4, n), ["none", "primary", "secondary", "tertiary"],
                                         ordered=True),
        "id": pd.array([f"p{k}" for k in range(n)], dtype="string"),
        "when": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**8, n), unit="s"),
    })


def main(n: int = 1_000_000) -> None:
    from pysdc.r import _session
    from pysdc.r._convert_to_py import to_py
    from pysdc.r._convert_to_r import frame_to_r

    t0 = time.perf_counter()
    with _session.LOCK:
        _session.start()
    print(f"R start: {time.perf_counter() - t0:.2f} s")
    df = make_frame(n)
    to_r = []
    back = []
    for _ in range(3):
        with _session.LOCK:
            t = time.perf_counter()
            sexp = frame_to_r(df)
            to_r.append(time.perf_counter() - t)
            t = time.perf_counter()
            out = to_py(sexp)
            back.append(time.perf_counter() - t)
    assert out.shape == df.shape
    print(f"{n} x {df.shape[1]} mixed frame (1 column of {n} distinct strings):")
    print(f"  to R:   {min(to_r):.3f} s (best of 3)")
    print(f"  back:   {min(back):.3f} s (best of 3)")
    small = df.drop(columns="id")
    with _session.LOCK:
        t = time.perf_counter()
        sexp = frame_to_r(small)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        to_py(sexp)
        t2 = time.perf_counter() - t
    print(f"{n} x {small.shape[1]} without the all-distinct string column: to R {t1:.3f} s, back {t2:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
