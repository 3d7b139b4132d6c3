"""Case lists of sdcMicro's ``microaggregation`` and ``mafast`` references (issue 28, family 3).

``python3 make_cases_microaggregation.py`` (from ``r_reference/``) writes the small inputs
``inputs/ma40.*`` (integer-valued columns full of ties, strata with a missing value), ``inputs/ma31.*``
(missing values, a real -999, an integer column) and ``cases/microaggregation.json``,
``cases/mafast.json``. Arguments use sdcMicro's names: ``variables``, ``aggr``, ``strata_variables``
(``by`` for mafast), ``method``, ``measure``, ``varsort``. The real-data cases use
``inputs/eusilc.csv.gz`` (py010n with 2720 missing values; hy040n and hy050n mostly zeros: ties).
Outputs: ``generate_protect_microaggregation.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
NA = None


def write_inputs() -> None:
    rng = np.random.default_rng(20261125)
    n = 40
    a = rng.integers(0, 5, n).astype(float)
    b = rng.integers(0, 3, n).astype(float)
    c = np.round(rng.normal(10, 3, n) * 4) / 4
    c[[3, 11, 19]] = c[2]  # duplicated values
    a[[30, 31, 32]] = a[29]
    b[[30, 31, 32]] = b[29]
    c[[30, 31, 32]] = c[29]  # four identical records
    s = rng.choice(["x", "y"], n).tolist()
    s[7] = NA
    s[8] = NA
    t = rng.choice(["p", "q"], n).tolist()
    _write("ma40", [
        ("a", "numeric", a.tolist()), ("b", "numeric", b.tolist()), ("c", "numeric", c.tolist()),
        ("i", "integer", rng.integers(0, 4, n).tolist()),
        ("s", "factor", s, ["x", "y"]), ("t", "factor", t, ["p", "q"]),
    ])
    n = 31
    u = np.round(rng.lognormal(3, 1, n))
    v = np.round(rng.normal(50, 10, n) * 2) / 2
    w = np.round(rng.normal(0, 1, n) * 8) / 8
    u = [None if i in (4, 17, 29, 30) else float(x) for i, x in enumerate(u)]  # two NA in the last group
    v = [None if i in (9,) else float(x) for i, x in enumerate(v)]
    wm = [-999.0 if i == 12 else float(x) for i, x in enumerate(w)]
    _write("ma31", [
        ("u", "numeric", u), ("v", "numeric", v), ("w", "numeric", w.tolist()), ("wm", "numeric", wm),
        ("k", "integer", rng.integers(1, 9, n).tolist()),
        ("g", "factor", rng.choice(["m", "n"], n).tolist(), ["m", "n"]),
    ])


def case(fn, cid, data, tags, columns=None, **args):
    inputs = {"data": data}
    if columns:
        inputs["columns"] = columns
    return {"id": f"{fn}:{cid}", "inputs": inputs, "args": args, "tags": tags}


EU = ["py010n", "hy040n", "hy050n", "eqIncome"]


def ma_cases() -> list[dict]:
    m40, m31, eu = "ma40.csv.gz", "ma31.csv.gz", "eusilc.csv.gz"
    f = "microaggregation"
    out = []
    for k in (2, 3, 4, 5):
        out.append(case(f, f"ma40:mdav:k{k}", m40, ["mdav", "ties", "small"], variables=["a", "b", "c"], aggr=k))
    out += [
        case(f, "ma40:mdav:default", m40, ["mdav", "default"], columns=["a", "b", "c"]),
        case(f, "ma40:mdav:int", m40, ["mdav", "integer"], variables=["a", "i"], aggr=3),
        case(f, "ma40:mdav:strata", m40, ["mdav", "strata", "na-stratum"], variables=["a", "b", "c"], aggr=3,
             strata_variables=["s"]),
        case(f, "ma40:mdav:strata2", m40, ["mdav", "strata"], variables=["a", "c"], aggr=2,
             strata_variables=["s", "t"]),
        case(f, "ma40:mdav:k7", m40, ["mdav", "ties"], variables=["a", "b"], aggr=7),
        case(f, "ma40:mdav:k25", m40, ["mdav", "one-group"], variables=["a", "b"], aggr=25),
        case(f, "ma40:mdav:k50", m40, ["mdav", "one-group"], variables=["a", "b"], aggr=50),
        case(f, "ma40:mdav:measure-ignored", m40, ["mdav", "measure"], variables=["a", "b", "c"], aggr=3,
             measure="median"),
        case(f, "ma31:mdav:na", m31, ["mdav", "na", "last-group-na"], variables=["u", "v", "w"], aggr=3),
        case(f, "ma31:mdav:na:k4", m31, ["mdav", "na"], variables=["u", "v"], aggr=4),
        case(f, "ma31:mdav:m999", m31, ["mdav", "minus999"], variables=["v", "wm", "k"], aggr=3),
        case(f, "ma31:mdav:strata", m31, ["mdav", "na", "strata"], variables=["u", "v", "w"], aggr=2,
             strata_variables=["g"]),
        case(f, "ma31:mdav:factor", m31, ["mdav", "factor", "error"], variables=["u", "g"], aggr=3),
        case(f, "ma40:one:mean", m40, ["mafast-path", "one-variable"], variables=["c"], aggr=3),
        case(f, "ma40:one:median", m40, ["mafast-path", "one-variable", "median"], variables=["c"], aggr=4,
             measure="median"),
        case(f, "ma40:one:strata", m40, ["mafast-path", "one-variable", "strata"], variables=["a"], aggr=3,
             strata_variables=["s"]),
        case(f, "ma31:one:na", m31, ["mafast-path", "one-variable", "na"], variables=["u"], aggr=3),
        case(f, "ma40:one:trim", m40, ["mafast-path", "error"], variables=["c"], aggr=3, measure="trim"),
    ]
    for meth in ("simple", "single", "onedims"):
        for meas in ("mean", "median"):
            out.append(case(f, f"ma40:{meth}:{meas}", m40, [meth, meas], variables=["a", "b", "c"], aggr=3,
                            method=meth, measure=meas))
    out += [
        case(f, "ma40:single:varsort3:k4", m40, ["single", "varsort"], variables=["a", "b", "c"], aggr=4,
             method="single", varsort=3),
        case(f, "ma40:onedims:strata", m40, ["onedims", "strata"], variables=["a", "b", "c"], aggr=3,
             method="onedims", strata_variables=["t"]),
        case(f, "ma31:simple:na", m31, ["simple", "na"], variables=["u", "v"], aggr=3, method="simple"),
        case(f, "ma31:onedims:na", m31, ["onedims", "na"], variables=["u", "v"], aggr=4, method="onedims"),
        case(f, "ma40:simple:too-few", m40, ["simple", "error"], variables=["a", "b"], aggr=25, method="simple"),
    ]
    for k in (2, 3, 4, 5):
        out.append(case(f, f"eusilc:mdav:k{k}", eu, ["real", "mdav", "ties", "na"], variables=EU, aggr=k))
    out += [
        case(f, "eusilc:mdav:strata", eu, ["real", "mdav", "strata", "na"], variables=EU, aggr=3,
             strata_variables=["db040"]),
        case(f, "eusilc:mdav:strata2", eu, ["real", "mdav", "strata"], variables=["hy040n", "eqIncome"], aggr=4,
             strata_variables=["db040", "rb090"]),
        case(f, "eusilc:mdav:2vars", eu, ["real", "mdav"], variables=["eqIncome", "hy050n"], aggr=3),
        case(f, "eusilc:onedims", eu, ["real", "onedims"], variables=EU[1:], aggr=3, method="onedims"),
        case(f, "eusilc:one:eqIncome", eu, ["real", "mafast-path"], variables=["eqIncome"], aggr=5),
    ]
    return out


def mafast_cases() -> list[dict]:
    m40, m31, eu = "ma40.csv.gz", "ma31.csv.gz", "eusilc.csv.gz"
    f = "mafast"
    return [
        case(f, "ma40:k3", m40, ["ties"], variables=["a", "b", "c"], aggr=3),
        case(f, "ma40:k2:by", m40, ["by", "na-stratum"], variables=["a", "c"], aggr=2, by=["s"]),
        case(f, "ma40:k4:by2", m40, ["by"], variables=["c"], aggr=4, by=["s", "t"]),
        case(f, "ma40:k5:median", m40, ["median"], variables=["a", "c"], aggr=5, measure="median"),
        case(f, "ma40:int", m40, ["integer"], variables=["i"], aggr=3),
        case(f, "ma40:k50", m40, ["one-group"], variables=["c"], aggr=50),
        case(f, "ma31:na", m31, ["na"], variables=["u", "v"], aggr=3),
        case(f, "ma31:na:median:by", m31, ["na", "median", "by"], variables=["u"], aggr=2, by=["g"],
             measure="median"),
        case(f, "eusilc:k3", eu, ["real", "na", "ties"], variables=EU, aggr=3),
        case(f, "eusilc:k10:by", eu, ["real", "by"], variables=["eqIncome", "hy050n"], aggr=10, by=["db040"]),
    ]


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    for name, cs in (("microaggregation", ma_cases()), ("mafast", mafast_cases())):
        (HERE / "cases" / f"{name}.json").write_text(json.dumps({"cases": cs}, indent=1, sort_keys=True) + "\n",
                                                     encoding="utf-8")


if __name__ == "__main__":
    main()
