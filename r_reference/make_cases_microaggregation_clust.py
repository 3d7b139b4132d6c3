"""Case lists of sdcMicro's clustering ``microaggregation`` methods ``clustpca``, ``influence``, ``clustpppca`` and
``clustmcdpca`` (clusters from cluster::clara and cluster::pam), and of ``pppca`` and ``mcdpca`` (issue 28, family 3).

``python3 make_cases_microaggregation_clust.py`` (from ``r_reference/``) writes the hand-made inputs
``inputs/mc200.*`` (200 records: two variables on a small integer grid -- many identical records and tied
distances -- and a positive one on a 1/8 grid; a stratum factor), ``inputs/mc70.*`` (70 positive records on a
1/16 grid: clara's sample is more than half of the data, so it draws the records left out) and ``inputs/mc24.*``
(24 records with identical rows and medoids whose largest value is shared by two variables), ``inputs/mcna.*``
(120 records in three groups, three far-out ones with a missing value each), and
``cases/microaggregation_clust.json``. Other inputs: ``ma40``, ``ma60`` (make_cases_microaggregation_more.py) and
``eusilc.csv.gz``. Arguments use sdcMicro's names. Outputs: ``generate_protect_microaggregation_clust.R``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _recode_inputs import _write

HERE = Path(__file__).resolve().parent
F = "microaggregation_clust"


def write_inputs() -> None:
    rng = np.random.default_rng(20261125)
    n = 200
    a = rng.integers(0, 6, n).astype(float)
    b = rng.integers(0, 4, n).astype(float)
    c = np.round(rng.gamma(2.0, 5.0, n) * 8) / 8 + 0.125
    _write("mc200", [("a", "numeric", a.tolist()), ("b", "numeric", b.tolist()), ("c", "numeric", c.tolist()),
                     ("g", "factor", rng.choice(["u", "v"], n).tolist(), ["u", "v"])])
    n = 70
    z = rng.lognormal(size=(n, 3)) @ np.array([[1.0, 0.5, 0.2], [0, 1.0, 0.4], [0, 0, 1.0]])
    z = np.round(z * [40, 10, 3] * 16) / 16 + 0.0625
    _write("mc70", [("p", "numeric", z[:, 0].tolist()), ("q", "numeric", z[:, 1].tolist()),
                    ("r", "numeric", z[:, 2].tolist())])
    base = np.array([[1, 1, 0], [1, 1, 0], [2, 0, 2], [0, 2, 2], [3, 3, 1], [3, 3, 1], [1, 0, 0], [0, 1, 0],
                     [2, 2, 2], [2, 2, 2], [4, 1, 4], [1, 4, 4]], dtype=float)
    m = np.vstack([base, base[::-1] + [0.5, 0.5, 0.5]])
    n = 120
    z = np.vstack([rng.normal(size=(40, 3)) * [4, 6, 2] + c for c in ([20, 60, 10], [60, 20, 30], [40, 90, 50])])
    z = np.round(np.abs(z) * 4) / 4
    z[[5, 47, 90], [0, 1, 2]] = np.nan  # three records with one missing value each
    z[[5, 47, 90]] += np.array([[0, 200, 0], [200, 0, 0], [0, 0, 200]])  # far out: never a medoid
    _write("mcna", [("u", "numeric", [None if np.isnan(v) else float(v) for v in z[:, 0]]),
                    ("v", "numeric", [None if np.isnan(v) else float(v) for v in z[:, 1]]),
                    ("w", "numeric", [None if np.isnan(v) else float(v) for v in z[:, 2]]),
                    ("g", "factor", rng.choice(["a", "b"], n).tolist(), ["a", "b"])])
    _write("mc24", [("h", "numeric", m[:, 0].tolist()), ("i", "numeric", m[:, 1].tolist()),
                    ("j", "numeric", m[:, 2].tolist())])


def case(cid, data, tags, **args):
    return {"id": f"{F}:{cid}", "inputs": {"data": data}, "args": args, "tags": tags}


ABC = ["a", "b", "c"]
X4 = ["x1", "x2", "x3", "x4"]
PQR = ["p", "q", "r"]
HIJ = ["h", "i", "j"]
EU = ["py010n", "hy040n", "eqIncome"]


def method_cases(method: str) -> list[dict]:
    m40, m60, m200, m70, m24, eu = ("ma40.csv.gz", "ma60.csv.gz", "mc200.csv.gz", "mc70.csv.gz", "mc24.csv.gz",
                                    "eusilc.csv.gz")
    t = [method]
    out = [case(f"ma60:{method}:nc{nc}:k{k}", m60, t + ["clara"], variables=X4, aggr=k, method=method, nc=nc)
           for nc, k in ((2, 3), (3, 2), (4, 4), (8, 3), (5, 5))]
    out += [case(f"ma60:{method}:pam:nc{nc}", m60, t + ["pam"], variables=X4, aggr=3, method=method, nc=nc,
                 clustermethod="pam") for nc in (2, 4, 8)]
    out += [case(f"mc200:{method}:nc{nc}", m200, t + ["clara", "ties"], variables=ABC, aggr=3, method=method, nc=nc)
            for nc in (2, 3, 6, 10)]
    out += [case(f"mc70:{method}:nc{nc}", m70, t + ["clara", "large-sample"], variables=PQR, aggr=3, method=method,
                 nc=nc, transf="none") for nc in (8, 12)]
    out += [
        case(f"mc200:{method}:pam", m200, t + ["pam", "ties"], variables=ABC, aggr=4, method=method, nc=5,
             clustermethod="pam"),
        case(f"mc200:{method}:strata", m200, t + ["clara", "ties", "strata"], variables=ABC, aggr=3, method=method,
             nc=4, strata_variables=["g"]),
        case(f"mc200:{method}:median", m200, t + ["clara", "median"], variables=ABC, aggr=5, method=method, nc=3,
             measure="median"),
        case(f"mc70:{method}:trim", m70, t + ["clara", "trim"], variables=PQR, aggr=5, method=method, nc=4,
             measure="trim", trim=0.2),
        case(f"mc70:{method}:boxcox", m70, t + ["clara", "transf"], variables=PQR, aggr=3, method=method, nc=4,
             transf="boxcox"),
        case(f"mc70:{method}:log", m70, t + ["clara", "transf"], variables=PQR, aggr=3, method=method, nc=4),
        case(f"ma60:{method}:log-negative", m60, t + ["clara", "transf"], variables=X4, aggr=3, method=method, nc=4,
             transf="log"),
        case(f"ma60:{method}:boxcox-negative", m60, t + ["transf", "error"], variables=X4, aggr=3, method=method,
             nc=4, transf="boxcox"),
        case(f"ma60:{method}:strata", m60, t + ["clara", "strata"], variables=X4, aggr=3, method=method, nc=3,
             strata_variables=["st"]),
        case(f"ma60:{method}:pam:strata", m60, t + ["pam", "strata"], variables=X4, aggr=2, method=method, nc=4,
             clustermethod="pam", strata_variables=["st"], measure="median"),
        case(f"ma40:{method}:nc3", m40, t + ["clara", "ties", "full-sample"], variables=ABC, aggr=3,
             method=method, nc=3),
        case(f"ma40:{method}:pam", m40, t + ["pam", "ties"], variables=ABC, aggr=3, method=method, nc=3,
             clustermethod="pam"),
        case(f"ma40:{method}:strata-small", m40, t + ["strata", "error"], variables=ABC, aggr=3, method=method,
             nc=8, strata_variables=["s"]),
        case(f"mc24:{method}:nc3", m24, t + ["clara", "ties"], variables=HIJ, aggr=3, method=method, nc=3),
        case(f"mc24:{method}:nc5", m24, t + ["clara", "ties"], variables=HIJ, aggr=2, method=method, nc=5),
        case(f"mc24:{method}:pam", m24, t + ["pam", "ties"], variables=HIJ, aggr=2, method=method, nc=4,
             clustermethod="pam"),
        case(f"mc24:{method}:nc23", m24, t + ["error"], variables=HIJ, aggr=2, method=method, nc=24),
        case(f"mc24:{method}:too-few", m24, t + ["error"], variables=HIJ, aggr=13, method=method, nc=2),
        case(f"mc24:{method}:cmeans", m24, t + ["error"], variables=HIJ, aggr=3, method=method, nc=3,
             clustermethod="cmeans"),
        case(f"eusilc:{method}:nc8", eu, t + ["real", "clara"], variables=EU, aggr=3, method=method),
        case(f"eusilc:{method}:strata", eu, t + ["real", "clara", "strata"], variables=EU, aggr=5, method=method,
             nc=4, strata_variables=["db040"]),
    ]
    if method in ("clustpca", "clustpppca"):
        out += [case(f"mc24:{method}:varsort{v}", m24, t + ["clara", "varsort"], variables=HIJ, aggr=2,
                     method=method, nc=6, varsort=v) for v in (2, 3)]
        out += [case(f"eusilc:{method}:age", eu, t + ["real", "clara"], variables=["age", "eqIncome"], aggr=3,
                     method=method, nc=6)]
    return out


def pppca_cases() -> list[dict]:
    m40, m60, m200, m70, m24, eu = ("ma40.csv.gz", "ma60.csv.gz", "mc200.csv.gz", "mc70.csv.gz", "mc24.csv.gz",
                                    "eusilc.csv.gz")
    t = ["pppca"]
    out = [case(f"ma60:pppca:k{k}", m60, t, variables=X4, aggr=k, method="pppca") for k in (2, 3, 4, 5, 7)]
    out += [
        case("ma60:pppca:3vars", m60, t, variables=["x1", "x2", "x3"], aggr=3, method="pppca"),
        case("ma60:pppca:2vars", m60, t, variables=["x2", "x4"], aggr=3, method="pppca"),
        case("ma60:pppca:strata", m60, t + ["strata"], variables=X4, aggr=3, method="pppca", strata_variables=["st"]),
        case("ma60:pppca:median", m60, t + ["median"], variables=X4, aggr=4, method="pppca", measure="median"),
        case("mc70:pppca:trim", m70, t + ["trim"], variables=PQR, aggr=5, method="pppca", measure="trim", trim=0.2),
        case("mc70:pppca:k3", m70, t, variables=PQR, aggr=3, method="pppca"),
        case("mc200:pppca:k3", m200, t + ["ties"], variables=ABC, aggr=3, method="pppca"),
        case("mc200:pppca:strata", m200, t + ["ties", "strata"], variables=ABC, aggr=3, method="pppca",
             strata_variables=["g"]),
        case("ma40:pppca:k3", m40, t + ["ties"], variables=ABC, aggr=3, method="pppca"),
        case("ma40:pppca:int", m40, t + ["ties"], variables=["a", "b", "c", "i"], aggr=3, method="pppca"),
        case("mc24:pppca:k2", m24, t + ["ties"], variables=HIJ, aggr=2, method="pppca"),
        case("mc24:pppca:too-few", m24, t + ["error"], variables=HIJ, aggr=13, method="pppca"),
        case("eusilc:pppca:strata", eu, t + ["real", "strata"], variables=EU, aggr=3, method="pppca",
             strata_variables=["db040"]),
    ]
    mw = "mw30.csv.gz"  # make_cases_microaggregation_measures.py: weights w
    for method in ("pppca", "clustpppca", "clustpca", "influence"):
        for measure in ("mean", "median"):
            out.append(case(f"mw30:{method}:weights-{measure}", mw, [method, "weights", measure],
                            variables=["a", "b", "c"], aggr=3, method=method, nc=3, measure=measure,
                            weights="w"))
    return out


def mcd_cases() -> list[dict]:
    """mcdpca and clustmcdpca: MASS's cov.mcd draws its subsets from R's stream (``seed``: set.seed) when there are
    5000 subsets of p + 1 records or more, and takes them all in order otherwise."""
    m40, m60, m200, m70, m24, eu = ("ma40.csv.gz", "ma60.csv.gz", "mc200.csv.gz", "mc70.csv.gz", "mc24.csv.gz",
                                    "eusilc.csv.gz")
    t = ["mcdpca", "seeded"]
    out = [case(f"ma60:mcdpca:k{k}:seed{sd}", m60, t, variables=X4, aggr=k, method="mcdpca", seed=sd)
           for k, sd in ((2, 1), (3, 1), (3, 7), (5, 2))]
    out += [
        case("ma60:mcdpca:3vars", m60, t, variables=["x1", "x2", "x3"], aggr=3, method="mcdpca", seed=3),
        case("ma60:mcdpca:strata", m60, t + ["strata"], variables=X4, aggr=3, method="mcdpca", seed=4,
             strata_variables=["st"]),
        case("mc70:mcdpca:median", m70, t + ["median"], variables=PQR, aggr=4, method="mcdpca", seed=5,
             measure="median"),
        case("ma40:mcdpca:strata-exact", m40, ["mcdpca", "strata", "ties", "exact-subsets"], variables=ABC, aggr=3,
             method="mcdpca", strata_variables=["t"]),
        case("ma40:mcdpca:k3", m40, t + ["ties"], variables=ABC, aggr=3, method="mcdpca", seed=6),
        case("mc24:mcdpca:iqr0", m24, t + ["error"], variables=HIJ, aggr=2, method="mcdpca", seed=1),
        case("mc200:mcdpca:strata", m200, t + ["ties", "strata"], variables=ABC, aggr=3, method="mcdpca", seed=8,
             strata_variables=["g"]),
        case("eusilc:mcdpca:strata", eu, t + ["real", "strata"], variables=EU, aggr=3, method="mcdpca", seed=9,
             strata_variables=["db040"]),
        case("eusilc:mcdpca:age", eu, t + ["real", "strata"], variables=["age", "eqIncome"], aggr=3, method="mcdpca",
             seed=10, strata_variables=["db040"]),
    ]
    t = ["clustmcdpca", "seeded"]
    out += [case(f"ma60:clustmcdpca:nc{nc}", m60, t + ["clara"], variables=X4, aggr=3, method="clustmcdpca", nc=nc,
                 seed=nc) for nc in (2, 3, 4, 8)]
    out += [
        case("ma60:clustmcdpca:pam", m60, t + ["pam"], variables=X4, aggr=3, method="clustmcdpca", nc=3,
             clustermethod="pam", seed=11),
        case("ma60:clustmcdpca:strata", m60, t + ["clara", "strata"], variables=X4, aggr=2, method="clustmcdpca",
             nc=2, strata_variables=["st"], seed=12),
        case("mc70:clustmcdpca:nc3", m70, t + ["clara"], variables=PQR, aggr=3, method="clustmcdpca", nc=3, seed=13),
        case("mc70:clustmcdpca:trim", m70, t + ["clara", "trim"], variables=PQR, aggr=5, method="clustmcdpca", nc=2,
             measure="trim", trim=0.2, seed=14),
        case("mc200:clustmcdpca:nc2", m200, t + ["clara", "ties"], variables=ABC, aggr=3, method="clustmcdpca",
             nc=2, seed=15),
        case("ma40:clustmcdpca:nc2", m40, t + ["clara", "ties"], variables=ABC, aggr=3, method="clustmcdpca", nc=2,
             seed=16),
        case("mc24:clustmcdpca:cmeans", m24, t + ["error"], variables=HIJ, aggr=3, method="clustmcdpca", nc=3,
             clustermethod="cmeans"),
        case("eusilc:clustmcdpca:nc4", eu, t + ["real", "clara"], variables=EU, aggr=3, method="clustmcdpca", nc=4,
             seed=17),
        case("eusilc:clustmcdpca:age", eu, t + ["real", "clara"], variables=["age", "eqIncome"], aggr=3,
             method="clustmcdpca", nc=5, seed=18),
    ]
    return out


def na_cases() -> list[dict]:
    """Missing values: clara and pam compute the distances over the variables both records have (times p / present;
    clara warns that it uses the 'correct' formula); sdcMicro then stops where a component or a medoid meets them."""
    m31, m40 = "ma31.csv.gz", "ma40.csv.gz"
    uvw = ["u", "v", "w"]
    out = [case(f"ma31:influence:na:nc{nc}", m31, ["influence", "na", "clara"], variables=uvw, aggr=3,
                method="influence", nc=nc, transf="none") for nc in (2, 3, 4, 6)]
    out += [
        case("ma31:influence:na:pam", m31, ["influence", "na", "pam"], variables=uvw, aggr=3, method="influence",
             nc=3, clustermethod="pam", transf="none"),
        case("ma31:influence:na:median", m31, ["influence", "na", "median"], variables=uvw, aggr=4,
             method="influence", nc=2, measure="median", transf="none"),
        case("ma31:clustpca:na:nc8", m31, ["clustpca", "na"], variables=uvw, aggr=3, method="clustpca", nc=8,
             transf="none"),
        case("ma31:clustpca:na:nc3", m31, ["clustpca", "na"], variables=uvw, aggr=3, method="clustpca", nc=3,
             transf="none"),
        case("ma31:clustpppca:na:nc12", m31, ["clustpppca", "na"], variables=uvw, aggr=2, method="clustpppca",
             nc=12, transf="none"),
        case("ma31:influence:na:strata", m31, ["influence", "na", "strata"], variables=uvw, aggr=2,
             method="influence", nc=2, strata_variables=["g"], transf="none"),
        case("ma40:influence:na:strata", m40, ["influence", "na", "strata"], variables=["a", "b", "c"], aggr=3,
             method="influence", nc=2, strata_variables=["s"]),
    ]
    na = "mcna.csv.gz"
    out += [case(f"mcna:influence:nc{nc}", na, ["influence", "na", "clara"], variables=["u", "v", "w"], aggr=3,
                 method="influence", nc=nc) for nc in (2, 3, 5, 8)]
    out += [
        case("mcna:influence:pam", na, ["influence", "na", "pam"], variables=["u", "v", "w"], aggr=3,
             method="influence", nc=4, clustermethod="pam"),
        case("mcna:influence:median", na, ["influence", "na", "median"], variables=["u", "v", "w"], aggr=4,
             method="influence", nc=3, measure="median"),
        case("mcna:influence:strata", na, ["influence", "na", "strata"], variables=["u", "v", "w"], aggr=3,
             method="influence", nc=3, strata_variables=["g"]),
        case("mcna:clustpca:nc6", na, ["clustpca", "na"], variables=["u", "v", "w"], aggr=3, method="clustpca",
             nc=6),
        case("mcna:clustpca:nc10", na, ["clustpca", "na"], variables=["u", "v", "w"], aggr=3, method="clustpca",
             nc=10),
    ]
    return out


def kmeans_cases() -> list[dict]:
    """clustermethod kmeans: R's stats::kmeans draws its initial centres from R's stream (``seed``: set.seed)."""
    m60, m200, m70, m24 = "ma60.csv.gz", "mc200.csv.gz", "mc70.csv.gz", "mc24.csv.gz"
    out = []
    for method in ("clustpca", "influence", "clustpppca", "clustmcdpca"):
        t = [method, "kmeans", "seeded"]
        out += [
            case(f"ma60:{method}:kmeans:nc3", m60, t, variables=X4, aggr=3, method=method, nc=3,
                 clustermethod="kmeans", seed=21),
            case(f"mc70:{method}:kmeans:nc4", m70, t, variables=PQR, aggr=3, method=method, nc=4,
                 clustermethod="kmeans", seed=22, transf="none"),
            case(f"mc200:{method}:kmeans:strata", m200, t + ["ties", "strata"], variables=ABC, aggr=3,
                 method=method, nc=3, clustermethod="kmeans", seed=23, strata_variables=["g"]),
            case(f"mc24:{method}:kmeans:nc8", m24, t + ["ties"], variables=HIJ, aggr=2, method=method,
                 nc=8, clustermethod="kmeans", seed=24),
        ]
    return out


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    cs = (method_cases("clustpca") + method_cases("influence") + method_cases("clustpppca") + pppca_cases()
          + mcd_cases() + na_cases() + kmeans_cases())
    (HERE / "cases" / f"{F}.json").write_text(json.dumps({"cases": cs}, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
