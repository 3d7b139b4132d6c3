"""Case lists of sdcMicro's ``microaggregation`` aggregation measures and sampling weights (issue 28, family 3):
``measure`` ``onestep`` and ``trim`` with the sorting methods (``simple``, ``single``, ``onedims``, ``pca``), the
weighted mean and median (``weights``), where sdcMicro ignores weights or a measure (``mdav``, ``rmd``, ``trim``,
``onestep``, one variable) and where it stops; also ``pppca``, ``clustpca``, ``clustpppca`` and ``influence``
(clusters from ``clara``).

``python3 make_cases_microaggregation_measures.py`` (from ``r_reference/``) writes ``inputs/mw30.*`` (30 records:
three variables on a 1/8 grid full of ties, one with missing values; weight columns: distinct, all ones, zeros,
negative, one missing; a stratum factor), ``inputs/mt200.*`` (integers up to 2^62 beside eighths: long-double
sums that round), ``inputs/mo6.*`` (onestep with a missing value where sdcMicro goes on) and
``cases/microaggregation_measures.json``. Arguments use sdcMicro's
names; ``weights`` names a column (the R script passes that column's vector); ``seed`` is R's ``set.seed`` before
the call. Real data: ``eusilc.csv.gz`` (hy040n, hy050n, eqIncome; weight rb050; strata db040). Outputs:
``generate_protect_microaggregation_measures.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
F = "microaggregation_measures"
NA = None


def write_inputs() -> None:
    rng = np.random.default_rng(20261127)
    n = 30
    a = np.round(rng.normal(20, 6, n) * 8) / 8
    a[[5, 6, 7]] = a[4]  # ties
    a[0] = 90.0  # an outlier for onestep
    b = rng.integers(0, 4, n).astype(float)  # many ties: mad 0 in some groups
    c = np.round(rng.lognormal(2, 1, n) * 8) / 8
    c[29] = 400.0
    d = [NA if i in (3, 22) else float(v) for i, v in enumerate(np.round(rng.normal(5, 2, n) * 8) / 8)]
    w = np.round(rng.uniform(1, 40, n) * 4) / 4
    w[[10, 11]] = w[9]
    w0 = w.copy()
    w0[:3] = 0.0  # the first group of simple with aggr 3: all weights 0
    wz = w.copy()
    wz[[4, 13]] = 0.0  # two zero weights
    wneg = w.copy()
    wneg[[1, 14]] = -5.0
    wna = [NA if i == 7 else float(v) for i, v in enumerate(w)]
    s = rng.choice(["u", "v"], n).tolist()
    _write("mw30", [
        ("a", "numeric", a.tolist()), ("b", "numeric", b.tolist()), ("c", "numeric", c.tolist()),
        ("d", "numeric", d), ("w", "numeric", w.tolist()), ("w1", "numeric", [1.0] * n),
        ("w0", "numeric", w0.tolist()), ("wz", "numeric", wz.tolist()), ("wneg", "numeric", wneg.tolist()),
        ("wna", "numeric", wna), ("s", "factor", s, ["u", "v"]),
    ])
    # magnitudes 2^62 apart (integers up to 2^62 beside eighths: long-double sums that round), short decimals R
    # and pandas read alike
    n = 200
    cols = []
    for name in ("x", "y", "z"):
        big = rng.integers(1, 2 ** 50, n) * 4096
        small = rng.integers(1, 1024, n) / 8
        v = np.where(rng.random(n) < 0.5, big.astype(float), small)  # positive: the trimmed middle mixes both
        cols.append((name, "numeric", v.tolist()))
    _write("mt200", cols)
    # onestep with a missing value that does not stop sdcMicro: every record of the group beyond an upper limit of
    # one variable and a lower limit of another (each column's median 0 and mad 0)
    z = [100.0, 0.0, 0.0]
    rot = [z, [z[1], z[0], z[2]], [z[2], z[1], z[0]]]
    _write("mo6", [("a", "numeric", [NA, 1.0, 2.0, 3.0, 4.0, 5.0])]
           + [(name, "numeric", [sign * v for v in r + r]) for sign, names in ((1, "bcd"), (-1, "efg"))
              for name, r in zip(names, rot)])


def case(cid, data, tags, **args):
    return {"id": f"{F}:{cid}", "inputs": {"data": data}, "args": args, "tags": tags}


ABC = ["a", "b", "c"]
EU = ["hy040n", "hy050n", "eqIncome"]
SORTING = ("simple", "single", "onedims", "pca")


def cases() -> list[dict]:
    m, eu = "mw30.csv.gz", "eusilc.csv.gz"
    out = []
    # onestep with every sorting method
    for meth in SORTING:
        for k in (3, 5):
            out.append(case(f"mw30:{meth}:onestep:k{k}", m, [meth, "onestep", "ties"], variables=ABC, aggr=k,
                            method=meth, measure="onestep"))
        out.append(case(f"mw30:{meth}:onestep:strata", m, [meth, "onestep", "strata"], variables=ABC, aggr=3,
                        method=meth, measure="onestep", strata_variables=["s"]))
        out.append(case(f"mw30:{meth}:onestep:k15", m, [meth, "onestep", "large-group"], variables=ABC, aggr=15,
                        method=meth, measure="onestep"))
    out.append(case("mo6:simple:onestep:na", "mo6.csv.gz", ["simple", "onestep", "na"], variables=list("abcdefg"),
                    aggr=3, method="simple", measure="onestep"))
    out.append(case("mo6:simple:onestep:na-stops", "mo6.csv.gz", ["simple", "onestep", "na", "error"],
                    variables=list("abcdef"), aggr=3, method="simple", measure="onestep"))
    out.append(case("mw30:simple:onestep:na", m, ["simple", "onestep", "na", "error"], variables=["a", "d"],
                    aggr=3, method="simple", measure="onestep"))
    # trim with the methods other than pca (pca's trim: microaggregation_more.json)
    for meth in ("simple", "single", "onedims"):
        for t in (0.1, 0.2, 0.34, 0.5):
            out.append(case(f"mw30:{meth}:trim{t}", m, [meth, "trim"], variables=ABC, aggr=6, method=meth,
                            measure="trim", trim=t))
        out.append(case(f"mw30:{meth}:trim:strata", m, [meth, "trim", "strata"], variables=ABC, aggr=5,
                        method=meth, measure="trim", trim=0.2, strata_variables=["s"]))
    out += [case(f"mt200:{meth}:trim{t}:k{k}", "mt200.csv.gz", [meth, "trim", "magnitudes"], variables=["x", "y", "z"],
                 aggr=k, method=meth, measure="trim", trim=t)
            for meth, t, k in (("simple", 0.1, 20), ("simple", 0.01, 10), ("single", 0.05, 40), ("pca", 0.2, 25),
                               ("simple", 0.3, 97))]
    out += [
        case("mw30:simple:trim0", m, ["simple", "trim"], variables=ABC, aggr=4, method="simple", measure="trim",
             trim=0),
        case("mw30:single:trim-negative", m, ["single", "trim"], variables=ABC, aggr=4, method="single",
             measure="trim", trim=-0.2),
        case("mw30:onedims:trim:na", m, ["onedims", "trim", "na"], variables=["a", "d"], aggr=4, method="onedims",
             measure="trim", trim=0.25),
    ]
    # weighted mean and median (sdcMicro's weights by position in the sorted stratum)
    for meth in SORTING:
        for ms in ("mean", "median"):
            out.append(case(f"mw30:{meth}:w-{ms}", m, [meth, "weights", ms], variables=ABC, aggr=3, method=meth,
                            measure=ms, weights="w"))
            out.append(case(f"mw30:{meth}:w-{ms}:strata", m, [meth, "weights", ms, "strata"], variables=ABC,
                            aggr=4, method=meth, measure=ms, weights="w", strata_variables=["s"]))
        out.append(case(f"mw30:{meth}:w1-median", m, [meth, "weights", "median", "half"], variables=ABC, aggr=4,
                        method=meth, measure="median", weights="w1"))
    out += [
        case("mw30:simple:wz-mean", m, ["simple", "weights", "zero-weight"], variables=ABC, aggr=3,
             method="simple", weights="wz"),
        case("mw30:single:wz-median", m, ["single", "weights", "median", "zero-weight"], variables=ABC, aggr=3,
             method="single", measure="median", weights="wz"),
        case("mw30:simple:w0-mean", m, ["simple", "weights", "zero-weight"], variables=ABC, aggr=3,
             method="simple", weights="w0"),
        case("mw30:simple:w0-median", m, ["simple", "weights", "median", "error"], variables=ABC, aggr=3,
             method="simple", measure="median", weights="w0"),
        case("mw30:onedims:wneg-median", m, ["onedims", "weights", "median", "negative"], variables=ABC, aggr=3,
             method="onedims", measure="median", weights="wneg"),
        case("mw30:simple:wneg-mean", m, ["simple", "weights", "negative"], variables=ABC, aggr=3,
             method="simple", weights="wneg"),
        case("mw30:simple:wna-mean", m, ["simple", "weights", "na-weight"], variables=ABC, aggr=3,
             method="simple", weights="wna"),
        case("mw30:simple:wna-median", m, ["simple", "weights", "median", "na-weight", "error"], variables=ABC,
             aggr=3, method="simple", measure="median", weights="wna"),
        case("mw30:onedims:w-mean:na", m, ["onedims", "weights", "na"], variables=["a", "d"], aggr=3,
             method="onedims", weights="w"),
        case("mw30:simple:w-median:na", m, ["simple", "weights", "median", "na"], variables=["a", "d"], aggr=3,
             method="simple", measure="median", weights="w"),
        # ignored: weights by mdav, rmd, trim, onestep and one variable; measure by mdav and rmd
        case("mw30:mdav:w-ignored", m, ["mdav", "weights", "ignored"], variables=ABC, aggr=3, weights="w"),
        case("mw30:mdav:median-ignored", m, ["mdav", "ignored"], variables=ABC, aggr=3, measure="median"),
        case("mw30:rmd:w-ignored", m, ["rmd", "weights", "ignored"], variables=ABC, aggr=3, method="rmd",
             weights="w", seed=1),
        case("mw30:single:trim:w-ignored", m, ["single", "trim", "weights", "ignored"], variables=ABC, aggr=4,
             method="single", measure="trim", trim=0.25, weights="w"),
        case("mw30:pca:onestep:w-ignored", m, ["pca", "onestep", "weights", "ignored"], variables=ABC, aggr=4,
             method="pca", measure="onestep", weights="w"),
        case("mw30:one-variable:w-ignored", m, ["mafast", "weights", "ignored"], variables=["a"], aggr=3,
             method="simple", weights="w"),
        case("mw30:one-variable:median", m, ["mafast", "median"], variables=["c"], aggr=4, measure="median",
             strata_variables=["s"]),
    ]
    # pppca (sdcMicro's projection pursuit)
    out += [
        case("mw30:pppca:onestep", m, ["pppca", "onestep", "ties"], variables=ABC, aggr=3, method="pppca",
             measure="onestep"),
        case("mw30:pppca:w-mean:strata", m, ["pppca", "weights", "mean", "strata"], variables=ABC, aggr=3,
             method="pppca", weights="w", strata_variables=["s"]),
        case("mw30:pppca:w-median", m, ["pppca", "weights", "median"], variables=ABC, aggr=4, method="pppca",
             measure="median", weights="w"),
    ]
    # the clustering methods (clusters from cluster::clara, sdcMicro's default)
    for meth in ("clustpca", "influence", "clustpppca"):
        out += [
            case(f"mw30:{meth}:onestep", m, [meth, "onestep", "ties"], variables=ABC, aggr=3, method=meth, nc=2,
                 measure="onestep"),
            case(f"mw30:{meth}:w-mean", m, [meth, "weights", "mean"], variables=ABC, aggr=3, method=meth, nc=2,
                 weights="w"),
            case(f"mw30:{meth}:w-median:strata", m, [meth, "weights", "median", "strata"], variables=ABC, aggr=3,
                 method=meth, nc=2, measure="median", weights="w", strata_variables=["s"]),
            case(f"mw30:{meth}:trim:w-ignored", m, [meth, "trim", "weights", "ignored"], variables=ABC, aggr=4,
                 method=meth, nc=3, measure="trim", trim=0.25, weights="w"),
        ]
    # real data
    out += [
        case("eusilc:influence:onestep", eu, ["real", "influence", "onestep"], variables=EU, aggr=3,
             method="influence", nc=4, measure="onestep"),
        case("eusilc:clustpca:w-mean:strata", eu, ["real", "clustpca", "weights", "strata"], variables=EU, aggr=3,
             method="clustpca", nc=3, weights="rb050", strata_variables=["rb090"]),
        case("eusilc:simple:w-mean", eu, ["real", "simple", "weights"], variables=EU, aggr=3, method="simple",
             weights="rb050"),
        case("eusilc:single:w-mean:strata", eu, ["real", "single", "weights", "strata"], variables=EU, aggr=3,
             method="single", varsort=3, weights="rb050", strata_variables=["db040"]),
        case("eusilc:onedims:w-median", eu, ["real", "onedims", "weights", "median"], variables=EU, aggr=5,
             method="onedims", measure="median", weights="rb050"),
        case("eusilc:pca:w-mean:strata", eu, ["real", "pca", "weights", "strata"], variables=EU, aggr=4,
             method="pca", weights="rb050", strata_variables=["db040"]),
        case("eusilc:onedims:onestep", eu, ["real", "onedims", "onestep"], variables=EU, aggr=5, method="onedims",
             measure="onestep"),
        case("eusilc:single:onestep:strata", eu, ["real", "single", "onestep", "strata"], variables=EU, aggr=3,
             method="single", varsort=3, measure="onestep", strata_variables=["db040"]),
        case("eusilc:simple:trim", eu, ["real", "simple", "trim"], variables=EU, aggr=7, method="simple",
             measure="trim", trim=0.2),
        case("eusilc:onedims:trim:strata", eu, ["real", "onedims", "trim", "strata"], variables=EU, aggr=10,
             method="onedims", measure="trim", trim=0.1, strata_variables=["rb090"]),
        case("eusilc:simple:onestep:na", eu, ["real", "simple", "onestep", "na", "error"],
             variables=["py010n", "eqIncome"], aggr=3, method="simple", measure="onestep"),
    ]
    return out


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / f"{F}.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
