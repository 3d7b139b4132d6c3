"""The differential tester: pysdc against sdcMicro on many random, realistic data sets.

``python -m pysdc.parity.fuzz --n 2000 [--seed S] [--max-n N] [--output parity_reports/fuzz]``
draws ``--n`` data sets (data set ``i`` from ``numpy.random.default_rng(S + i)``, see
:mod:`pysdc.parity._fuzz_data`), runs every registry measure with an sdcMicro counterpart natively
and through the R bridge, and the problem object against ``createSdcObj``
(:mod:`pysdc.parity._fuzz_run`), compares at the parity tolerances (:mod:`pysdc._tolerances`) and
writes ``<output>.json`` and ``<output>.md``: counts per measure, and every mismatch with the seed
that reproduces it (``python -m pysdc.parity.fuzz --replay SEED``). Mismatches listed in
``r_reference/divergences.json`` (``"applies_to": "fuzz"``) are counted as explained; the others
are grouped into the classes of :data:`CLASSES` (known findings, each with a reproducing seed) or
left unclassified.

With ``--methods`` the protection methods are compared instead (:mod:`pysdc.parity._fuzz_methods`: every native
method of the methods registry natively and through the bridge with the same seed, on data sets of at most
``METHODS_MAX_N`` records; default output ``parity_reports/fuzz_methods``; ``--methods --replay SEED`` reproduces).

Needs R with sdcMicro (:class:`pysdc.RNotAvailableError` with install hints otherwise).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import scipy

import pysdc.r

from .._errors import RNotAvailableError
from .._version import REFERENCE_SDCMICRO_VERSION, __version__
from ._corpus import divergence_for, is_method, load_divergences
from ._fuzz_data import make_dataset
from ._fuzz_methods import METHODS_MAX_N, MORE_MICROAGGREGATION, run_methods
from ._fuzz_run import run_dataset

__all__ = ["CLASSES", "classify", "run", "merge", "recheck", "write_results", "main"]

#: known classes of mismatches (findings of issue 24 being fixed, or found by the tester): (name, what it is,
#: the rule on an outcome: measure glob, variant glob, tags that must all be present, text in the detail,
#: field glob); the first matching class wins
CLASSES = (
    ("problem-text-keys",
     "the problem object runs suda2/ldiversity with the data.frame functions' coercion of text keys "
     "(NA), createSdcObj makes them factors (issue 24, finding 2)",
     "createSdcObj:*", "*", ("chr",), "", "*"),
    ("suda2-labels-hook-text-key",
     "the registry's suda2 parity hook (suda2_r_labels, pysdc/_registry/_toolbox.py) cannot label a text "
     "(character) key after a non-factor first key: float('West') raises a raw ValueError, so the native side "
     "counts as refused; pysdc.suda2 itself returns a result (variant '/numbers' compares its numbers without "
     "the hook); fixed in this round (the hook labels as sdcMicro's rbind of levels): a recurrence is a regression",
     "suda2", "*", (), "could not convert string to float", "*"),
    ("suda2-labels-hook",
     "suda2's attribute_level_contributions: the level labels the registry's parity hook (suda2_r_labels) "
     "derives differ from sdcMicro's (logical keys: '0'/'1' instead of 'FALSE'/'TRUE'; text keys after a "
     "factor first key: NA instead of the text); the contributions agree; fixed in this round: a recurrence is "
     "a regression",
     "suda2", "*", (), "", "attribute_level_contributions.attribute"),
    ("indivRisk-exact-high-fraction",
     "exact individual risk: the series loses digits where fk is large or the sampling fraction near 1 "
     "(issue 24, finding 6)",
     "indivRisk", "exact", (), "", "*"),
    ("eigen-near-singular",
     "dUtility eigen/robeigen on nearly collinear variables: the smallest eigenvalue is rounding noise "
     "(issue 24, finding 3)",
     "dUtility", "*eigen", ("collinear",), "", "*"),
    ("covMcd-near-singular",
     "dRiskRMD on nearly collinear variables: covMcd's covariance is nearly singular and the number is noise "
     "(seed 4: sdcMicro's own wrisk1 moves 2.1 % when x is scaled by 1 + 2^-52, pysdc is 1.1 % from it); pysdc "
     "warns with the condition number (an explained divergence in divergences.json); a mismatch here means the "
     "warning or the entry no longer covers the data set",
     "dRiskRMD", "*", ("collinear",), "", "*"),
    ("IL_correl-near-singular",
     "IL_correl on nearly collinear variables (correlation matrix condition ~1e14): the diagonals of the inverse "
     "correlation matrices differ from sdcMicro's by ~1.6e-15 absolutely (relative 4e-12 .. 1e-11), just beyond "
     "the tolerance (atol 1e-15, rtol 1e-12); pysdc warns with the condition number (an explained divergence "
     "in divergences.json); a mismatch here means the warning or the entry no longer covers the data set",
     "IL_correl", "*", ("collinear",), "", "*"),
    ("modRisk-IPF-text-collation",
     "modRisk IPF with a text (character) key: the fitted table's cells are the same, in another order -- pysdc "
     "sorts the text levels by code point ('Zeta' < 'alpha'), sdcMicro by R's locale collation ('alpha' < "
     "'Zeta', 'ä-umlaut' first); gr1/gr2 agree",
     "modRisk", "IPF", ("chr",), "", "fitted*"),
    ("modRisk-IPF-join",
     "modRisk IPF: sdcMicro's data.table join on level labels sorted as text drops or mismatches cells "
     "(issue 24, finding 7)",
     "modRisk", "IPF", (), "", "*"),
    ("dis-suda-factor-order",
     "DIS-SUDA / suda2 scores with factor keys (issue 24, finding 5)",
     "suda2", "*", (), "", "*"),
)


def classify(o) -> str:
    """The class of a mismatch (:data:`CLASSES`), or ``"unclassified"``."""
    for name, _, measure, variant, tags, text, fld in CLASSES:
        if (fnmatch.fnmatchcase(o.measure, measure) and fnmatch.fnmatchcase(o.variant, variant)
                and all(t in o.tags for t in tags) and text in o.detail and fnmatch.fnmatchcase(o.field, fld)):
            return name
    return "unclassified"


def _check_bridge() -> str:
    """The installed sdcMicro version; RNotAvailableError (with install hints) when the bridge cannot run."""
    avail = pysdc.r.available()
    if not avail:
        raise RNotAvailableError(
            f"the differential tester compares pysdc with sdcMicro and needs R with sdcMicro: {avail.reason}")
    return pysdc.r.sdcmicro_version()


def _num(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def _record(o, cls=None) -> dict:
    d = {"seed": o.seed, "measure": o.measure, "variant": o.variant, "args": o.args, "field": o.field,
         "max_abs_diff": _num(o.max_abs), "max_rel_diff": _num(o.max_rel),
         "one_side_refused": o.field == "(error)", "detail": o.detail, "tags": o.tags,
         "reproduce": f"python -m pysdc.parity.fuzz{' --methods' if is_method(o.measure) else ''} --replay {o.seed}"}
    if cls is not None:
        d["class"] = cls
    if o.reason:
        d["reason"] = o.reason
    return d


def summarize(outcomes, *, n: int, seed: int, max_n: int, seconds: float, sdcmicro: str) -> dict:
    """The result document (what ``<output>.json`` holds)."""
    counts: dict = {}
    for o in outcomes:
        c = counts.setdefault(o.measure, {"calls": 0, "agree": 0, "both-refused": 0, "explained": 0,
                                          "mismatch": 0, "seconds": 0.0})
        c["calls"] += 1
        c[o.status] += 1
        c["seconds"] += o.seconds
    for c in counts.values():
        c["seconds"] = round(c["seconds"], 1)
    mism = [o for o in outcomes if o.status == "mismatch"]
    recs = [_record(o, classify(o)) for o in mism]
    return {
        "header": {"generated": "python -m pysdc.parity.fuzz -- do not edit", "datasets": n, "base_seed": seed,
                   "max_n": max_n, "seconds": round(seconds, 1), "sdcmicro_version": sdcmicro,
                   "reference_sdcmicro_version": REFERENCE_SDCMICRO_VERSION, "pysdc": __version__,
                   "numpy": np.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
                   "date": time.strftime("%Y-%m-%d", time.gmtime())},
        "totals": {s: sum(c[s] for c in counts.values()) for s in ("calls", "agree", "both-refused", "explained",
                                                                    "mismatch")},
        "counts": counts,
        "classes": _classes(recs),
        "mismatches": recs,
        "explained": [_record(o) for o in outcomes if o.status == "explained"],
    }


def _classes(recs) -> dict:
    """Mismatch records grouped by class: count, measures, a reproducing seed, what the class is."""
    classes: dict = {}
    for r in recs:
        k = classes.setdefault(r["class"], {"count": 0, "measures": {}, "seed": r["seed"],
                                            "example": f"{r['measure']} {r['variant']}: {r['detail'][:200]}"})
        k["count"] += 1
        k["measures"][r["measure"]] = k["measures"].get(r["measure"], 0) + 1
    about = {name: what for name, what, *_ in CLASSES}
    for name, k in classes.items():
        k["about"] = about.get(name, "not yet explained")
    return dict(sorted(classes.items(), key=lambda kv: -kv[1]["count"]))


def merge(docs, divergences=None) -> dict:
    """One result document from runs over consecutive seed ranges (e.g. run in parallel).

    Mismatches are classified again and checked against ``divergences`` (default:
    ``r_reference/divergences.json`` as it is now).
    """
    docs = sorted(docs, key=lambda d: d["header"]["base_seed"])
    for a, b in zip(docs, docs[1:]):
        if a["header"]["base_seed"] + a["header"]["datasets"] != b["header"]["base_seed"]:
            raise ValueError("the runs' seed ranges are not consecutive")
        if a["header"]["max_n"] != b["header"]["max_n"]:
            raise ValueError("the runs differ in --max-n")
    header = dict(docs[0]["header"])
    header["datasets"] = sum(d["header"]["datasets"] for d in docs)
    header["seconds"] = round(max(d["header"]["seconds"] for d in docs), 1)
    if len(docs) > 1:
        header["parts"] = [{k: d["header"][k] for k in ("base_seed", "datasets", "seconds")} for d in docs]
    counts: dict = {}
    for d in docs:
        for m, c in d["counts"].items():
            tgt = counts.setdefault(m, dict.fromkeys(c, 0))
            for k, v in c.items():
                tgt[k] = round(tgt.get(k, 0) + v, 1)
    recs = [r for d in docs for r in d["mismatches"]]
    for r in recs:  # classified again: the classes may have been refined since
        r["class"] = classify(SimpleNamespace(**{k: r.get(k, "") for k in ("measure", "variant", "tags", "detail",
                                                                           "field")}))
    doc = {"header": header, "totals": {}, "counts": counts, "classes": {}, "mismatches": recs,
           "explained": [r for d in docs for r in d["explained"]]}
    if divergences is None:
        divergences = load_divergences()
    return _explain(doc, divergences)  # divergences.json as it is now


def _explain(doc: dict, divergences) -> dict:
    """Move the mismatches that ``divergences`` (``applies_to: fuzz``) now explain to the explained ones."""
    keep = []
    for r in doc["mismatches"]:
        case_id = f"fuzz:{r['measure']}:{r['variant']}:{','.join(r['tags'])}:{r['seed']}"
        div = divergence_for(case_id, divergences, "fuzz")
        if div is None:
            keep.append(r)
            continue
        c = doc["counts"][r["measure"]]
        c["mismatch"] -= 1
        c["explained"] += 1
        doc["explained"].append({**{k: v for k, v in r.items() if k != "class"}, "reason": div["reason"]})
    doc["mismatches"] = keep
    doc["classes"] = _classes(keep)
    doc["totals"] = {s: sum(c[s] for c in doc["counts"].values()) for s in ("calls", "agree", "both-refused",
                                                                             "explained", "mismatch")}
    return doc


def recheck(doc: dict, max_n: int = 100_000) -> dict:
    """Replay each class's reproducing seed with the code as it is now; record whether it still mismatches."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=False).stdout.strip() or None
    except OSError:  # pragma: no cover - no git
        head = None
    divs = load_divergences()
    for name, k in doc["classes"].items():
        first = next(r for r in doc["mismatches"] if r["class"] == name)
        outs = run_dataset(make_dataset(first["seed"], max_n=max_n), divs)
        same = [o for o in outs if o.measure == first["measure"] and o.variant == first["variant"]]
        k["recheck"] = {"seed": first["seed"], "measure": first["measure"], "variant": first["variant"],
                        "commit": head,
                        "status": same[0].status if same else "not run",
                        "detail": same[0].detail[:200] if same else ""}
    doc["header"]["rechecked_at"] = head
    return doc


def _markdown_methods(doc: dict, max_rows: int) -> str:
    """The methods' run (``--methods``): the same tables, the methods' own description."""
    h, t = doc["header"], doc["totals"]
    lines = [
        "# pysdc's protection methods against sdcMicro's on random data sets (differential tester)", "",
        "<!-- generated by `python -m pysdc.parity.fuzz --methods` -- do not edit -->", "",
        f"{h['datasets']} data sets (seeds {h['base_seed']} .. {h['base_seed'] + h['datasets'] - 1}, at most "
        f"{min(h['max_n'], METHODS_MAX_N)} records), {h['date']}, {h['seconds']:.0f} s. sdcMicro "
        f"{h['sdcmicro_version']}; pysdc {h['pysdc']}, numpy {h['numpy']}, pandas {h['pandas']}.", "",
        "Each native method of the methods registry is called on the data set's keys (text and logical keys as "
        "factors for the suppression methods), numeric variables, strata, weights and households, natively and "
        "through the R bridge (`pysdc.r`) with the same seed, and compared by the method's own stored-case "
        "comparison (suppressed cells, groups, recodes and R-stream draws exactly; closed-form floats at the "
        "tolerances of `pysdc/_tolerances.py`). A refusal on one side only, or a raw (non-pysdc) error, is a "
        "mismatch. microaggregation is called twice on each data set: with mdav, simple, single or onedims, and "
        f"with one of {', '.join(MORE_MICROAGGREGATION)} (the clustering ones with clara, pam or kmeans). "
        "shuffle is called with regmethod lm or MM; where half of the records or more lie exactly on one fit, "
        "pysdc's MM stops and points to the bridge (sdcMicro's values there are decided by rounding): that "
        "refusal on pysdc's side only counts as explained. "
        "rankSwap is called on a frame of the numeric variables with ties and missing values (varied TopPercent, "
        "BottomPercent, P, R0, int seeds) and compared value for value; where sdcMicro has no defined result "
        "(one extreme group empty but not the other) the bridge refuses and pysdc's warning counts as its "
        "refusal. recordSwap is not compared (its C++ std::mt19937; listed divergence). "
        "Reproduce a data set with `python -m pysdc.parity.fuzz --methods --replay SEED`.", "",
        f"**Total: {t['calls']} calls, {t['agree']} agree, {t['both-refused']} refused by both, "
        f"{t['explained']} explained divergences, {t['mismatch']} unexplained mismatches.**", "",
        "| method | calls | agree | both refused | explained | mismatch | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m, c in doc["counts"].items():
        lines.append(f"| `{m}` | {c['calls']} | {c['agree']} | {c['both-refused']} | {c['explained']} | "
                     f"{c['mismatch']} | {c['seconds']:.0f} |")
    for title, recs in (("Unexplained mismatches", doc["mismatches"]), ("Explained divergences", doc["explained"])):
        lines += ["", f"## {title}", ""]
        if not recs:
            lines.append("None.")
        for r in recs[:max_rows]:
            lines.append(f"- seed {r['seed']}, `{r['measure']}` {r['variant']}: {r['detail'][:300]}"
                         + (f" -- {r['reason'][:200]}" if r.get("reason") else ""))
        if len(recs) > max_rows:
            lines.append(f"- ... {len(recs) - max_rows} more in the JSON file")
    return "\n".join(lines) + "\n"


def markdown(doc: dict, max_rows: int = 60) -> str:
    h, t = doc["header"], doc["totals"]
    if doc["counts"] and all(is_method(m) for m in doc["counts"]):
        return _markdown_methods(doc, max_rows)
    lines = [
        "# pysdc against sdcMicro on random data sets (differential tester)", "",
        "<!-- generated by `python -m pysdc.parity.fuzz` -- do not edit -->", "",
        f"{h['datasets']} data sets (seeds {h['base_seed']} .. {h['base_seed'] + h['datasets'] - 1}, at most "
        f"{h['max_n']} records), {h['date']}, {h['seconds']:.0f} s. sdcMicro {h['sdcmicro_version']}"
        f"{'' if h['sdcmicro_version'] == h['reference_sdcmicro_version'] else ' (pysdc follows ' + h['reference_sdcmicro_version'] + ')'}"
        f"; pysdc {h['pysdc']}, numpy {h['numpy']}, pandas {h['pandas']}, scipy {h['scipy']}.", "",
        "Each measure is called natively and through the R bridge (`pysdc.r`), the problem object "
        "(`SdcProblem`) against sdcMicro's `createSdcObj`, and compared at the parity tolerances "
        "(`pysdc/_tolerances.py`). A refusal on one side only is a mismatch; both refusing is agreement. "
        "Reproduce any data set with `python -m pysdc.parity.fuzz --replay SEED`.", "",
        "Sizes (to keep 2,000 data sets within about 40 minutes on a shared 2-core machine): 70 % have 20-200 "
        "records, 15 % 201-1,000, 10 % within 3 records of covMcd's 600 and 1,500, 3.5 % 1,500-4,000, 1 % "
        "within 2 of 5,000 and 0.5 % up to --max-n. robeigen and dRiskRMD (covMcd on both sides, slow) run on "
        "10 % of the data sets plus every one next to a covMcd threshold, up to 20,000 records; indivRisk's "
        "exact method where the sum of fk^2 stays below 2e6 (sdcMicro's series is an R double loop), "
        "otherwise approx; dUtility runs eigen and one of IL1/IL1s per data set.", "",
        f"**Total: {t['calls']} calls, {t['agree']} agree, {t['both-refused']} refused by both, "
        f"{t['explained']} explained divergences, {t['mismatch']} unexplained mismatches.**", "",
        "| measure | calls | agree | both refused | explained | mismatch | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m, c in doc["counts"].items():
        lines.append(f"| `{m}` | {c['calls']} | {c['agree']} | {c['both-refused']} | {c['explained']} | "
                     f"{c['mismatch']} | {c['seconds']:.0f} |")
    if h.get("parts"):
        lines += ["", "Run in parts (in parallel, then merged with `--merge`): " + "; ".join(
            f"seeds {p['base_seed']} .. {p['base_seed'] + p['datasets'] - 1} ({p['seconds']:.0f} s)"
            for p in h["parts"]) + "."]
    lines += ["", "## Unexplained mismatches by class", ""]
    if doc["classes"]:
        re = doc["header"].get("rechecked_at")
        lines += ["| class | mismatches | measures | reproducing seed | what |"
                  + (f" replayed at {re} |" if re else ""), "|---|---:|---|---:|---|" + ("---|" if re else "")]
        for name, k in doc["classes"].items():
            ms = ", ".join(f"`{m}` {c}" for m, c in sorted(k["measures"].items()))
            rc = k.get("recheck")
            tail = (f" {'still differs' if rc['status'] == 'mismatch' else rc['status']} |" if rc else
                    (" |" if re else ""))
            lines.append(f"| {name} | {k['count']} | {ms} | {k['seed']} | {k['about'].replace('|', '/')} |{tail}")
    else:
        lines.append("None.")
    lines += ["", f"## Mismatches (first {max_rows}; all in the JSON)", ""]
    for r in doc["mismatches"][:max_rows]:
        diff = ("one side refused" if r["one_side_refused"] else
                f"worst {r['field']}: abs {r['max_abs_diff']:.3g}, rel {r['max_rel_diff']:.3g}"
                if r["max_abs_diff"] is not None and r["max_rel_diff"] is not None else f"worst {r['field']}")
        lines.append(f"- seed {r['seed']} `{r['measure']}` {r['variant']} [{r['class']}] ({diff}): "
                     f"{r['detail'][:240].replace('|', '/')}")
    if not doc["mismatches"]:
        lines.append("None.")
    lines += ["", "## Explained divergences (r_reference/divergences.json)", ""]
    reasons: dict = {}
    for r in doc["explained"]:
        reasons.setdefault(r["reason"], []).append(r["seed"])
    for reason, seeds in reasons.items():
        lines.append(f"- {len(seeds)} call(s), e.g. seed {seeds[0]}: {reason}")
    if not reasons:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_results(doc: dict, output) -> tuple:
    """Write ``<output>.json`` and ``<output>.md`` (each through a temporary file and a rename)."""
    out = Path(output)
    js, md = out.with_name(out.name + ".json"), out.with_name(out.name + ".md")
    _atomic_write(js, json.dumps(doc, indent=1, sort_keys=False, default=str) + "\n")
    _atomic_write(md, markdown(doc))
    return js, md


def _one(args) -> list:
    """The outcomes of one data set (a worker process's task)."""
    seed, max_n, problem, measures, *methods = args
    if "divergences" not in _WORKER:
        _WORKER["divergences"] = load_divergences()
    if methods and methods[0]:  # the protection methods (pysdc.parity._fuzz_methods)
        return run_methods(make_dataset(seed, max_n=min(max_n, METHODS_MAX_N)), _WORKER["divergences"],
                           methods=measures)
    return run_dataset(make_dataset(seed, max_n=max_n), _WORKER["divergences"], problem=problem,
                       measures=measures)


_WORKER: dict = {}


def run(n: int, seed: int = 1, max_n: int = 100_000, *, progress=None, problem: bool = True,
        checkpoint=None, jobs: int = 1, measures=None, methods: bool = False) -> dict:
    """Run ``n`` data sets (seeds ``seed .. seed + n - 1``) and return the result document.

    ``methods``: compare the protection methods (:mod:`pysdc.parity._fuzz_methods`, data sets of at most
    ``METHODS_MAX_N`` records) instead of the measures; ``measures`` then names sdcMicro's methods.

    ``jobs > 1`` runs the data sets in that many worker processes (each starts its own R); the
    result is the same, in seed order.
    """
    version = _check_bridge()
    outcomes: list = []
    t0 = time.perf_counter()
    tasks = [(seed + i, max_n, problem, measures, methods) for i in range(n)]
    pool = None
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
        results = pool.map(_one, tasks, chunksize=4)
    else:
        results = map(_one, tasks)
    try:
        for i, outs in enumerate(results):
            outcomes += outs
            if progress is not None and ((i + 1) % 25 == 0 or i + 1 == n):
                bad = sum(o.status == "mismatch" for o in outcomes)
                progress(f"{i + 1}/{n} data sets, {len(outcomes)} calls, {bad} mismatches, "
                         f"{time.perf_counter() - t0:.0f} s")
            if checkpoint is not None and (i + 1) % 200 == 0 and i + 1 < n:
                checkpoint(summarize(outcomes, n=i + 1, seed=seed, max_n=max_n,
                                     seconds=time.perf_counter() - t0, sdcmicro=version))
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return summarize(outcomes, n=n, seed=seed, max_n=max_n, seconds=time.perf_counter() - t0, sdcmicro=version)


def replay(seed: int, max_n: int = 100_000, methods: bool = False) -> list:
    """Run the one data set of ``seed``; its outcomes (for debugging a reported mismatch)."""
    _check_bridge()
    if methods:
        return run_methods(make_dataset(seed, max_n=min(max_n, METHODS_MAX_N)), load_divergences())
    return run_dataset(make_dataset(seed, max_n=max_n), load_divergences())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m pysdc.parity.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=200, help="number of data sets (default 200)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first data set (default 1)")
    p.add_argument("--max-n", type=int, default=100_000, help="largest data set (records; default 100000)")
    p.add_argument("--output", default=None,
                   help="writes OUTPUT.json and OUTPUT.md (default parity_reports/fuzz, with --methods "
                        "parity_reports/fuzz_methods)")
    p.add_argument("--methods", action="store_true",
                   help=f"the protection methods (pysdc.protect) against sdcMicro's instead of the measures (data "
                        f"sets of at most {METHODS_MAX_N} records)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes, each with its own R (default 1)")
    p.add_argument("--measures", nargs="+", metavar="RNAME",
                   help="only these sdcMicro functions (e.g. suda2; with --methods: e.g. pram rankSwap, or "
                        "microaggregation shuffle for kmeans and MM), without the problem object")
    p.add_argument("--merge", nargs="+", metavar="JSON",
                   help="merge the result files of runs over consecutive seed ranges into OUTPUT")
    p.add_argument("--recheck", action="store_true",
                   help="with --merge: replay each class's reproducing seed with the current code")
    p.add_argument("--replay", type=int, metavar="SEED", help="run one data set and print every comparison")
    a = p.parse_args(argv)
    if a.output is None:
        a.output = "parity_reports/fuzz_methods" if a.methods else "parity_reports/fuzz"
    if a.n < 1 or a.max_n < 20 or a.jobs < 1:
        p.error("--n and --jobs must be >= 1 and --max-n >= 20")
    try:
        if a.replay is not None:
            print(make_dataset(a.replay, max_n=min(a.max_n, METHODS_MAX_N) if a.methods else a.max_n).describe())
            for o in replay(a.replay, a.max_n, methods=a.methods):
                print(f"{o.status:13s} {o.measure} {o.variant} {json.dumps(o.args, default=str)}"
                      + (f"\n    {o.field}: {o.detail}" if o.detail else ""))
            return 0
        if a.merge:
            doc = merge([json.loads(Path(f).read_text()) for f in a.merge])
            if a.recheck:
                _check_bridge()
                doc = recheck(doc, a.max_n)
            js, md = write_results(doc, a.output)
            print(f"merged {len(a.merge)} runs ({doc['header']['datasets']} data sets): wrote {js} and {md}")
            return 0
        doc = run(a.n, a.seed, a.max_n, progress=lambda s: print(s, file=sys.stderr, flush=True),
                  checkpoint=lambda d: write_results(d, a.output), jobs=a.jobs,
                  measures=set(a.measures) if a.measures else None, problem=not a.measures, methods=a.methods)
    except RNotAvailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    js, md = write_results(doc, a.output)
    t = doc["totals"]
    print(f"{t['calls']} calls: {t['agree']} agree, {t['both-refused']} refused by both, {t['explained']} explained, "
          f"{t['mismatch']} unexplained mismatches; wrote {js} and {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
