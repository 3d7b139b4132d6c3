"""Case lists of sdcMicro's ``localSuppression`` and ``localSupp`` references (issue 28, family 2).

``python3 make_cases_localSuppression.py`` (from ``r_reference/``) writes the small input
``inputs/ls_ties.*`` (records built so that several keys tie for the nearest neighbours, a first record
with missing values, a stratum variable) and ``cases/localSuppression.json``, ``cases/localSupp.json``.
Arguments use sdcMicro's names (``keyVars``, ``k``, ``importance``, ``combs``, ``strataVars``, ``alpha``);
``columns`` selects (and orders) the input's columns first (sdcMicro's data.frame method with
``combs`` depends on the key variables' column positions); ``obj = "sdcMicroObj"`` runs the
sdcMicroObj method (``createSdcObj(keyVars, strataVar, w)`` first, its ``manipKeyVars`` stored).
The real-data cases use ``inputs/eusilc.csv.gz`` (keys db040, rb090, age, pl030, pb220a; pl030 and
pb220a with 2720 missing values), its text keys made factors with the levels given here. Outputs: ``generate_protect_suppression.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
NA = None

EU_KEYS = ["db040", "rb090", "age", "pl030", "pb220a"]
EU_FACTORS = {
    "db040": ["Burgenland", "Carinthia", "Lower Austria", "Salzburg", "Styria", "Tyrol", "Upper Austria",
              "Vienna", "Vorarlberg"],
    "rb090": ["female", "male"],
    "pb220a": ["AT", "EU", "Other"],
}
K300 = ["k1", "k2", "k3", "k4", "kl"]


def write_inputs() -> None:
    rng = np.random.default_rng(20261125)
    n = 60
    a = rng.integers(1, 4, n).astype(float)
    b = rng.integers(1, 4, n).astype(float)
    c = rng.integers(1, 3, n).astype(float)
    d = rng.integers(1, 5, n)
    a[0] = np.nan  # the first record: missing values (sdcMicro fills missing keys with the first value)
    c[0] = np.nan
    for i in (5, 17, 33, 48):
        b[i] = np.nan
    s = rng.choice(["x", "y"], n).tolist()
    _write("ls_ties", [
        ("a", "numeric", [None if np.isnan(v) else float(v) for v in a]),
        ("b", "numeric", [None if np.isnan(v) else float(v) for v in b]),
        ("c", "numeric", [None if np.isnan(v) else float(v) for v in c]),
        ("d", "factor", [f"L{v}" for v in d], ["L1", "L2", "L3", "L4"]),
        ("s", "factor", s, ["x", "y"]),
    ])


def case(fn, cid, data, tags, factor=None, columns=None, **args):
    inputs = {"data": data}
    if factor:
        inputs["factor"] = factor
    if columns:
        inputs["columns"] = columns
    return {"id": f"{fn}:{cid}", "inputs": inputs, "args": args, "tags": tags}


def ls_cases() -> list[dict]:
    f = "localSuppression"
    out = []
    for data, tag in (("keys300.csv.gz", "complete"), ("keys300_nam.csv.gz", "na")):
        for k in (2, 3, 4, 5):
            out.append(case(f, f"{data.split('.')[0]}:k{k}", data, ["small", tag], keyVars=K300, k=k))
    out += [
        case(f, "keys300:importance", "keys300.csv.gz", ["importance"], keyVars=K300, k=3,
             importance=[5, 4, 3, 2, 1]),
        case(f, "keys300:importance-ties", "keys300.csv.gz", ["importance", "ties"], keyVars=K300, k=3,
             importance=[1, 1, 2, 2, 1]),
        case(f, "keys300_nam:importance", "keys300_nam.csv.gz", ["importance", "na"], keyVars=K300, k=2,
             importance=[2, 5, 1, 3, 4]),
        case(f, "keys300:combs", "keys300.csv.gz", ["combs"], keyVars=K300, k=3, combs=[3]),
        case(f, "keys300:combs-kvec", "keys300.csv.gz", ["combs", "k-vector"], keyVars=K300, k=[2, 3, 4],
             combs=[5, 3, 2]),
        case(f, "keys300_nam:combs-kvec", "keys300_nam.csv.gz", ["combs", "k-vector", "na"], keyVars=K300,
             k=[3, 5], combs=[4, 2]),
        case(f, "keys300:strata", "keys300.csv.gz", ["strata"], keyVars=K300, k=2, strataVars=["s1"]),
        case(f, "keys300_nam:strata2", "keys300_nam.csv.gz", ["strata", "na"], keyVars=K300, k=2,
             strataVars=["s1", "s2"]),
        case(f, "keys300:strata-combs", "keys300.csv.gz", ["strata", "combs"], keyVars=K300, k=[2, 3],
             combs=[3, 2], strataVars=["s2"]),
        case(f, "keys300:strata-combs-leading", "keys300.csv.gz", ["strata", "combs"], keyVars=K300, k=[2, 3],
             combs=[3, 2], strataVars=["s2"], columns=K300 + ["s2"]),
        case(f, "keys300:combs-leading", "keys300.csv.gz", ["combs"], keyVars=K300, k=3, combs=[3],
             columns=K300 + ["s2"]),
        case(f, "keys300_nam:alpha0.5", "keys300_nam.csv.gz", ["alpha", "na"], keyVars=K300, k=3, alpha=0.5),
        case(f, "keys300_nam:alpha0", "keys300_nam.csv.gz", ["alpha", "na"], keyVars=K300, k=2, alpha=0),
        case(f, "keys2000_na:k3", "keys2000_na.csv.gz", ["na"], keyVars=K300, k=3),
        case(f, "keys2000_na:k5:3keys", "keys2000_na.csv.gz", ["na"], keyVars=["k1", "k3", "k2"], k=5),
        case(f, "keys20_allna:k2", "keys20_allna.csv.gz", ["all-na"], keyVars=K300, k=2),
        case(f, "keys300:k-too-large", "keys300.csv.gz", ["error"], keyVars=K300, k=301),
        case(f, "keys300:strata-k-too-large", "keys300.csv.gz", ["error", "strata"], keyVars=K300, k=120,
             strataVars=["s1"]),
    ]
    for k in (2, 3, 4):
        out.append(case(f, f"ls_ties:k{k}", "ls_ties.csv.gz", ["ties", "first-na"], keyVars=["a", "b", "c", "d"],
                        k=k))
    out += [
        case(f, "ls_ties:strata", "ls_ties.csv.gz", ["ties", "strata"], keyVars=["a", "b", "c", "d"], k=3,
             strataVars=["s"]),
        case(f, "ls_ties:k2.5", "ls_ties.csv.gz", ["ties", "fractional-k"], keyVars=["a", "b", "c", "d"], k=2.5),
        case(f, "keys300:sdcobj", "keys300.csv.gz", ["sdcMicroObj"], obj="sdcMicroObj", keyVars=K300, k=3),
        case(f, "keys300_nam:sdcobj-strata", "keys300_nam.csv.gz", ["sdcMicroObj", "strata", "na"],
             obj="sdcMicroObj", keyVars=K300, k=2, strataVars=["s1"]),
    ]
    for k in (2, 3, 4, 5):
        out.append(case(f, f"eusilc:k{k}", "eusilc.csv.gz", ["real", "na"], factor=EU_FACTORS, keyVars=EU_KEYS,
                        k=k))
    out += [
        case(f, "eusilc:importance", "eusilc.csv.gz", ["real", "importance"], factor=EU_FACTORS, keyVars=EU_KEYS,
             k=3, importance=[3, 1, 5, 4, 2]),
        case(f, "eusilc:combs", "eusilc.csv.gz", ["real", "combs"], factor=EU_FACTORS, keyVars=EU_KEYS,
             k=[5, 3], combs=[3, 4]),
        case(f, "eusilc:strata", "eusilc.csv.gz", ["real", "strata"], factor=EU_FACTORS,
             keyVars=["rb090", "age", "pl030", "pb220a"], k=3, strataVars=["db040"]),
    ]
    return out


def lsupp_cases() -> list[dict]:
    f = "localSupp"
    return [
        case(f, "keys300:k3", "keys300.csv.gz", ["sdcMicroObj", "weights"], keyVars=K300, w="w", keyVar="k3",
             threshold=0.15),
        case(f, "keys300_nam:k1", "keys300_nam.csv.gz", ["sdcMicroObj", "na"], keyVars=K300, w="w", keyVar="k1",
             threshold=0.05),
        case(f, "eusilc:age", "eusilc.csv.gz", ["real", "sdcMicroObj"], factor=EU_FACTORS, keyVars=EU_KEYS,
             w="rb050", keyVar="age", threshold=0.01),
        case(f, "eusilc:pl030", "eusilc.csv.gz", ["real", "sdcMicroObj", "na"], factor=EU_FACTORS,
             keyVars=EU_KEYS, w="rb050", keyVar="pl030", threshold=0.005),
    ]


def main() -> None:
    write_inputs()
    cases = HERE / "cases"
    for name, items in (("localSuppression", ls_cases()), ("localSupp", lsupp_cases())):
        (cases / f"{name}.json").write_text(json.dumps({"function": name, "cases": items}, indent=1) + "\n",
                                            encoding="utf-8")
        print(f"{name}: {len(items)} cases")


if __name__ == "__main__":
    main()
