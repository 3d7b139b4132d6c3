"""Scale benchmark (issue 11): pysdc on DuckDB (and Spark) from 1e6 to 1e9 records.

Generates Parquet directories with DuckDB (deterministic hash-based values, 10 files each, record
order kept) under ``--data`` (default /work/scale_data, outside the repository), then times each
task in a fresh subprocess and reads its peak resident memory (``resource.getrusage`` of the
child: ``ru_maxrss``, which for a JVM-backed Spark run covers only the Python driver -- Spark's
JVM is reported separately from ``/usr/bin/time`` when available).

Tasks:

* ``risk``: ``pysdc risk DIR --keys k1..k5 --weight w --hid hid --engine duckdb`` (the CLI, which
  computes measure_risk with household risk and k-anonymity violations); ``risk_output`` adds
  ``--output risk.parquet`` (the per-record table written by the engine).
* ``freq_missing``: ``pysdc.freq_calc`` on keys with 1 % missing values (wildcards).
* ``ldiversity``: ``pysdc.ldiversity`` with keys k1..k4 and k5 as the sensitive variable on the risk
  data (one group-by of key and sensitive values; the per-record table stays lazy, not written).
* ``il``: IL1, IL1s, eigen (d_utility), il_correl and il_variables on x/xm paired by position,
  4 variables.
* ``risk_spark``: ``measure_risk`` on Spark local mode (``--spark`` only).

Usage::

    nice python benchmarks/scale.py --sizes 1e6,1e7,1e8 [--spark 1e7] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

KEYS = ["k1", "k2", "k3", "k4", "k5"]
#: cardinalities of the keys (2 x 7 x 12 x 18 x 90 = 272,160 possible combinations)
CARDS = [2, 7, 12, 18, 90]
FILES = 10
DUCK_MEMORY = "3GB"


def _n(text: str) -> int:
    return int(float(text))


def _label(n: int) -> str:
    e = len(str(n)) - 1
    return f"1e{e}" if n == 10 ** e else str(n)


def generate(root: Path, n: int, names=("risk", "miss", "x", "xm")) -> dict:
    """The Parquet directories ``names`` for ``n`` records (made once; reused when present)."""
    import duckdb

    base = root / _label(n)
    dirs = {name: base / name for name in names}
    if all((d / f"part-{FILES - 1:03d}.parquet").exists() for d in dirs.values()):
        return dirs
    con = duckdb.connect(config={"memory_limit": DUCK_MEMORY, "threads": 2})
    con.execute("SET preserve_insertion_order = true")
    keys = ", ".join(f"CAST(hash(i * {j + 3} + {j}) % {c} AS INTEGER) AS {k}"
                     for j, (k, c) in enumerate(zip(KEYS, CARDS)))
    miss = ", ".join(f"CASE WHEN hash(i * {j + 11} + 7) % 100 = 0 THEN NULL ELSE CAST(hash(i * {j + 3} + {j}) % {c} "
                     f"AS INTEGER) END AS {k}" for j, (k, c) in enumerate(zip(KEYS, CARDS)))
    weight = "1.0 + CAST(hash(i * 31 + 1) % 20000 AS DOUBLE) / 100.0 AS w"
    hid = "i // 3 AS hid"
    xs = [f"1000.0 + CAST(hash(i * {41 + j}) % 100000 AS DOUBLE) / 37.0" for j in range(4)]
    noise = [f"(CAST(hash(i * {59 + j}) % 2001 AS DOUBLE) - 1000.0) / 500.0" for j in range(4)]
    selects = {
        "risk": f"SELECT {keys}, {weight}, {hid}",
        "miss": f"SELECT {miss}, {weight}",
        "x": "SELECT " + ", ".join(f"{x} AS v{j}" for j, x in enumerate(xs)),
        "xm": "SELECT " + ", ".join(f"{x} + {e} AS v{j}" for j, (x, e) in enumerate(zip(xs, noise))),
    }
    step = -(-n // FILES)
    for name, sel in selects.items():
        if name not in dirs or (dirs[name] / f"part-{FILES - 1:03d}.parquet").exists():
            continue
        d = dirs[name]
        d.mkdir(parents=True, exist_ok=True)
        for f in range(FILES):
            lo, hi = f * step, min(n, (f + 1) * step)
            con.execute(f"COPY ({sel} FROM range({lo}, {hi}) t(i)) TO '{d / f'part-{f:03d}.parquet'}' "
                        "(FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    con.close()
    return dirs


# --------------------------------------------------------------------------- tasks (run in a child)

def _task(name: str, dirs: dict, n: int) -> dict:
    import pysdc

    t0 = time.perf_counter()
    out: dict = {}
    if name in ("risk", "risk_output"):
        from pysdc.cli import main

        argv = ["risk", str(dirs["risk"]), "--keys", ",".join(KEYS), "--weight", "w", "--hid", "hid",
                "--engine", "duckdb", "--memory-limit", DUCK_MEMORY, "--json"]
        if name == "risk_output":
            argv += ["--output", str(Path(dirs["risk"]).parent / "risk_out.parquet")]
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(argv)
        report = json.loads(buf.getvalue())
        out = {"rc": rc, "global_risk_er": report["global"]["expected_reidentifications"],
               "hier_risk_er": report["household"]["expected_reidentifications"]}
    elif name == "freq_missing":
        f = pysdc.freq_calc(pysdc.scan(dirs["miss"], memory_limit=DUCK_MEMORY), KEYS, w="w")
        out = {"n1": f.n1, "n2": f.n2}
    elif name == "ldiversity":
        res = pysdc.ldiversity(pysdc.scan(dirs["risk"], memory_limit=DUCK_MEMORY), KEYS[:4], ldiv_index=KEYS[4])
        distinct = res.table[f"{KEYS[4]}_Distinct_Ldiversity"].to_numpy(dtype=float)  # per combination
        out = {"min_distinct_l": float(distinct.min()), "records_l_below_3": int(res.counts[distinct < 3].sum())}
    elif name == "il":  # pysdc utility --engine duckdb: the five measures in three shared passes
        import contextlib
        import io

        from pysdc.cli import main

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["utility", str(dirs["x"]), str(dirs["xm"]), "--engine", "duckdb", "--memory-limit",
                       DUCK_MEMORY, "--json"])
        report = json.loads(buf.getvalue())
        out = {"rc": rc, **report["d_utility"], "il_correl": report["il_correl"],
               "il_variables": report["il_variables"]["value"]}
        out.pop("robeigen", None)
    elif name == "risk_spark":
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.driver.memory", "4g").config("spark.sql.shuffle.partitions", "8").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        t0 = time.perf_counter()  # session start not counted
        m = pysdc.measure_risk(pysdc.scan(dirs["risk"], engine="spark", spark=spark), KEYS, w="w", hid="hid")
        out = {"global_risk_er": m.global_risk_er, "hier_risk_er": m.hier_risk_er}
    elif name == "risk_duck_api":
        m = pysdc.measure_risk(pysdc.scan(dirs["risk"], memory_limit=DUCK_MEMORY), KEYS, w="w", hid="hid")
        out = {"global_risk_er": m.global_risk_er, "hier_risk_er": m.hier_risk_er}
    out["seconds"] = time.perf_counter() - t0
    return out


def run_child(name: str, dirs: dict, n: int) -> dict:
    here, d = str(Path(__file__).parent), {k: str(v) for k, v in dirs.items()}
    code = (f"import json, sys; sys.path.insert(0, {here!r}); from scale import _task; "
            f"print('RESULT' + json.dumps(_task({name!r}, {d!r}, {n})))")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    cmd = [sys.executable, "-c", code]
    timev = Path("/usr/bin/time")
    if timev.exists():
        cmd = [str(timev), "-v"] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
    if proc.returncode != 0 or line is None:
        return {"task": name, "n": n, "error": (proc.stderr or proc.stdout)[-800:]}
    res = json.loads(line[6:])
    peak_kb = None
    for ln in proc.stderr.splitlines():
        if "Maximum resident set size" in ln:
            peak_kb = int(ln.split(":")[1])
    if peak_kb is None:
        peak_kb = after if after > before else None
    res.update(task=name, n=n, wall=wall, peak_gib=None if peak_kb is None else peak_kb / 2**20)
    return res


# --------------------------------------------------------------------------- report

TARGETS = {
    "risk": ("≤ 45 s, ≤ 4 GiB at 1e8; ≤ 6 GiB at 1e9", 1e8, 45, 4),
    "freq_missing": ("≤ 3 min at 1e8", 1e8, 180, None),
    "il": ("≤ 60 s, ≤ 2 GiB at 1e8", 1e8, 60, 2),
}


def table(rows: list[dict], command: str) -> str:
    lines = [
        "<!-- scale: generated by benchmarks/scale.py -->",
        "## Scale: DuckDB and Spark (issue 11)",
        "",
        f"- Command: `{command}`",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 2 shared cores, DuckDB memory_limit "
        f"{DUCK_MEMORY}, data: Parquet directories of {FILES} files generated by the script (keys of cardinality "
        f"{' x '.join(map(str, CARDS))}, weights, households of 3; 1 % missing per key for freq_missing; 4 "
        "continuous variables and their noisy masked version for il).",
        "- Time = wall time of a fresh process (imports, reading the files and the whole computation; for Spark "
        "the session start is excluded); peak = peak resident memory of that process (/usr/bin/time -v; for Spark "
        "the driver only, the JVM's own heap is capped by spark.driver.memory=4g).",
        "",
        "| task | N | time (s) | peak RSS (GiB) | target | met | numbers |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['task']} | {_label(r['n'])} | failed | | | | {r['error'][-120:]!r} |")
            continue
        tgt = TARGETS.get(r["task"].replace("_output", ""))
        met = ""
        if tgt is not None and r["n"] >= tgt[1]:
            ok = r["wall"] <= tgt[2] * (r["n"] / tgt[1] if r["n"] > tgt[1] else 1) if r["n"] <= tgt[1] else True
            mem_cap = 6 if r["n"] >= 1e9 else tgt[3]
            ok_mem = mem_cap is None or (r["peak_gib"] is not None and r["peak_gib"] <= mem_cap)
            ok = (r["wall"] <= tgt[2] or r["n"] > tgt[1]) and ok_mem
            met = "**met**" if ok else "**MISSED**"
        nums = ", ".join(f"{k}={v:.10g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
                         if k not in ("task", "n", "wall", "peak_gib", "seconds", "rc"))
        peak = "" if r.get("peak_gib") is None else f"{r['peak_gib']:.2f}"
        lines.append(f"| {r['task']} | {_label(r['n'])} | {r['wall']:.1f} | {peak} | "
                     f"{tgt[0] if tgt else ''} | {met} | {nums} |")
    lines.append("<!-- /scale -->")
    return "\n".join(lines) + "\n"


def write_section(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start, end = "<!-- scale: generated by benchmarks/scale.py -->", "<!-- /scale -->"
    if start in text and end in text:
        a, b = text.index(start), text.index(end) + len(end)
        text = text[:a] + section.rstrip("\n") + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e6,1e7,1e8")
    ap.add_argument("--tasks", default="risk,risk_output,freq_missing,ldiversity,il")
    ap.add_argument("--spark", default="", help="sizes at which to run measure_risk on Spark local mode")
    ap.add_argument("--risk-only", default="", help="sizes at which only `pysdc risk` runs (and only its data is "
                    "generated: ~6.5 GB of Parquet at 1e9)")
    ap.add_argument("--data", default="/work/scale_data")
    ap.add_argument("--write", help="replace the scale section of this Markdown file (e.g. benchmarks/RESULTS.md)")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args(argv)
    root = Path(args.data)
    rows = []
    sizes = [_n(s) for s in args.sizes.split(",") if s]
    spark_sizes = {_n(s) for s in args.spark.split(",") if s}
    risk_only = {_n(s) for s in args.risk_only.split(",") if s}
    for n in sorted(set(sizes) | spark_sizes | risk_only):
        t0 = time.perf_counter()
        dirs = generate(root, n, ("risk",) if n in risk_only - set(sizes) - spark_sizes else ("risk", "miss", "x", "xm"))
        print(f"data {_label(n)} ready ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        tasks = [t for t in args.tasks.split(",") if t] if n in sizes else []
        if n in risk_only and n not in sizes:
            tasks = ["risk"]
        if n in spark_sizes:
            tasks += ["risk_duck_api", "risk_spark"]
        for task in tasks:
            r = run_child(task, dirs, n)
            print(json.dumps(r), file=sys.stderr)
            rows.append(r)
    command = "python benchmarks/scale.py " + " ".join(argv if argv is not None else sys.argv[1:])
    section = table(rows, command)
    print(section)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.write:
        write_section(Path(args.write), section)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
