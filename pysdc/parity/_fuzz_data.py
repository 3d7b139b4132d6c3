"""Random, realistic data sets for the differential tester (:mod:`pysdc.parity.fuzz`).

Each data set is drawn from its own ``numpy.random.default_rng(seed)``, so one integer reproduces it
exactly (``python -m pysdc.parity.fuzz --replay SEED``). What a data set may contain:

- **keys of every R class**: integer (small codes, or ages 0..110 whose text order differs from their
  numeric order, or wide-ranging ids), double (half-steps), factor (levels in a non-alphabetical
  order, mixed case), ordered factor, logical and character (text); 2 to 5 keys;
- **missing keys** (NA in a few percent of the records of one or more keys);
- **households** (ids shared by 1..6 consecutive records);
- **weights**: none, wide (1..500), equal, or sampling fractions near 1 (weights 1..1.25, so the
  population frequencies Fk are close to the sample frequencies fk);
- **a sensitive variable** (l-diversity), sometimes with missing values;
- **numeric variables** (2..5) and a masked copy (additive noise, sometimes none for one column),
  sometimes nearly collinear (one column a combination of others plus noise of 1e-7);
- **sizes** mostly small (20..200), on both sides of covMcd's 600 (two sub-samples), 1,500 (five
  sub-samples) and 5,000 (C-steps on all data; only a few data sets, they are slow) and, rarely,
  up to ``max_n`` (1e5 by default).

Nothing here needs R.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["FuzzData", "make_dataset", "dataset_size", "KEY_CLASSES", "SIZE_THRESHOLDS"]

#: the R classes a key can have (pysdc.r sends them as these classes)
KEY_CLASSES = ("integer", "double", "factor", "ordered", "logical", "character")
#: sizes where some measure changes its path: covMcd (robeigen, dRiskRMD) splits at 600 and 1,500 records
#: and stops subsampling above 5,000
SIZE_THRESHOLDS = (600, 1500, 5000)


@dataclass
class FuzzData:
    """One random data set and the roles of its variables.

    Attributes
    ----------
    seed : int
        The seed of its generator (reproduces it).
    data : pandas.DataFrame
        The microdata: keys ``k1..``, weight ``w``, household ``hid``, sensitive ``s``.
    keys : list of str
    key_classes : dict
        key -> R class (one of :data:`KEY_CLASSES`).
    w, hid : str or None
    sensitive : str or None
    x, xm : pandas.DataFrame
        Numeric variables and their masked copy (same records).
    tags : list of str
        What the data set contains (``na-keys``, ``hh``, ``w-near1`` ...): the fuzz report and
        ``r_reference/divergences.json`` match on them.
    """

    seed: int
    data: pd.DataFrame
    keys: list
    key_classes: dict
    w: str | None
    hid: str | None
    sensitive: str | None
    x: pd.DataFrame
    xm: pd.DataFrame
    tags: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.data)

    def describe(self) -> str:
        cls = ",".join(self.key_classes[k] for k in self.keys)
        return f"seed {self.seed}: n={self.n}, keys {cls}, w={self.w}, hid={self.hid}, tags {' '.join(self.tags)}"


def _size(rng: np.random.Generator, max_n: int) -> int:
    u = rng.random()
    if u < 0.70:
        n = int(rng.integers(20, 201))
    elif u < 0.85:
        n = int(rng.integers(201, 1001))
    elif u < 0.95:  # both sides of 600 and 1,500
        t = SIZE_THRESHOLDS[int(rng.integers(0, 2))]
        n = t + int(rng.integers(-3, 4))
    elif u < 0.985:
        n = int(rng.integers(1500, 4000))
    elif u < 0.995:  # both sides of 5,000
        n = 5000 + int(rng.integers(-2, 3))
    else:
        n = int(rng.integers(5000, max(max_n, 5001) + 1))
    return max(20, min(n, max_n))


def _key(rng: np.random.Generator, cls: str, n: int) -> tuple[pd.Series, str]:
    """One key column of R class ``cls`` (and a tag naming its flavour)."""
    levels = int(rng.integers(2, 9))
    if cls == "integer":
        flavour = rng.choice(["codes", "age", "wide"], p=[0.5, 0.35, 0.15])
        if flavour == "codes":
            v = rng.integers(1, levels + 1, n)
        elif flavour == "age":  # text order ('10' < '9') differs from numeric order
            v = np.clip(np.round(rng.normal(40, 20, n)), 0, 110).astype(np.int64) // int(rng.choice([1, 5, 10]))
        else:  # a wide range of values (dense paths give way to hashing)
            v = rng.choice(rng.integers(0, 5_000_000, levels), n)
        return pd.Series(v.astype(np.int64)), f"int-{flavour}"
    if cls == "double":
        v = rng.integers(0, levels, n) * 0.5 + float(rng.choice([0.0, 1.25, -3.0]))
        return pd.Series(v.astype(np.float64)), "dbl"
    if cls == "logical":
        return pd.Series(rng.random(n) < rng.uniform(0.2, 0.8)), "lgl"
    pool = np.array(["north", "South", "east", "West", "Zeta", "alpha", "b", "B", "c10", "c9", "ä-umlaut", "x y"])
    labels = rng.choice(pool, size=levels, replace=False)
    v = labels[rng.integers(0, levels, n)]
    if cls == "character":
        return pd.Series(v.astype(object)), "chr"
    cats = list(labels) if rng.random() < 0.5 else sorted(labels)  # declared order, not always alphabetical
    return pd.Series(pd.Categorical(v, categories=cats, ordered=(cls == "ordered"))), cls


def _with_missing(s: pd.Series, rng: np.random.Generator, frac: float) -> pd.Series:
    miss = rng.random(len(s)) < frac
    if not miss.any():
        miss[int(rng.integers(0, len(s)))] = True
    if s.dtype == bool:
        s = s.astype("boolean")
    elif s.dtype.kind in "iu":
        s = s.astype("Int64")
    s = s.copy()
    s[miss] = pd.NA if isinstance(s.dtype, (pd.BooleanDtype, pd.Int64Dtype)) else np.nan
    return s


def _numeric(rng: np.random.Generator, n: int, tags: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    p = int(rng.integers(2, 6))
    kind = rng.choice(["lognormal", "normal", "mixed"])
    if kind == "lognormal":
        x = rng.lognormal(mean=8, sigma=1, size=(n, p))
    elif kind == "normal":
        cov = np.eye(p) + 0.5
        x = rng.multivariate_normal(np.zeros(p), cov, size=n) * 100 + 1000
    else:
        x = np.column_stack([rng.lognormal(5, 1, n), *(rng.normal(0, 1, (p - 1, n)))])
    if rng.random() < 0.2:  # nearly collinear: the last column a combination of the others
        coef = rng.uniform(0.5, 2.0, p - 1)
        x[:, -1] = x[:, :-1] @ coef + rng.normal(0, 1e-7, n) * np.abs(x[:, :-1] @ coef).mean()
        tags.append("collinear")
    scale = float(rng.choice([0.01, 0.1, 0.5]))
    xm = x + rng.normal(0, 1, x.shape) * scale * x.std(axis=0)
    if rng.random() < 0.15:
        xm[:, 0] = x[:, 0]  # one variable left unmasked
        tags.append("unmasked-col")
    cols = [f"v{i + 1}" for i in range(p)]
    return pd.DataFrame(x, columns=cols), pd.DataFrame(xm, columns=cols)


def dataset_size(seed: int, max_n: int = 100_000) -> int:
    """The number of records of ``make_dataset(seed, max_n)`` (its generator's first draw), without the data."""
    return _size(np.random.default_rng(seed), max_n)


def make_dataset(seed: int, max_n: int = 100_000) -> FuzzData:
    """The data set of ``seed`` (at most ``max_n`` records, at least 20)."""
    rng = np.random.default_rng(seed)
    n = _size(rng, max_n)
    below = [t for t in SIZE_THRESHOLDS if n < t]
    tags = [f"n<{below[0]}" if below else f"n>={SIZE_THRESHOLDS[-1]}"]
    n_keys = int(rng.integers(2, 6))
    cols, classes = {}, {}
    for i in range(n_keys):
        cls = str(rng.choice(KEY_CLASSES))
        s, flavour = _key(rng, cls, n)
        name = f"k{i + 1}"
        cols[name], classes[name] = s, cls
        tags.append(flavour)
    if rng.random() < 0.35:  # missing keys
        for name in rng.choice(list(cols), size=int(rng.integers(1, min(3, n_keys) + 1)), replace=False):
            cols[name] = _with_missing(cols[name], rng, float(rng.uniform(0.01, 0.1)))
        tags.append("na-keys")
    data = pd.DataFrame(cols)
    w = None
    wk = rng.choice(["none", "wide", "near1", "equal"], p=[0.25, 0.35, 0.3, 0.1])
    if wk != "none":
        w = "w"
        if wk == "wide":
            data[w] = rng.uniform(1, 500, n)
        elif wk == "near1":  # sampling fractions near 1: Fk close to fk
            data[w] = 1 + rng.uniform(0, 0.25, n) * float(rng.choice([1.0, 0.1, 0.01]))
        else:
            data[w] = float(rng.choice([1.0, 20.0, 123.5]))
        tags.append(f"w-{wk}")
    hid = None
    if rng.random() < 0.4:
        sizes = rng.integers(1, 7, n)
        data["hid"] = np.repeat(np.arange(1, n + 1), sizes)[:n] * int(rng.choice([1, 7]))
        hid = "hid"
        tags.append("hh")
    sens = None
    if rng.random() < 0.7:
        sens = "s"
        s = pd.Series(rng.integers(1, int(rng.integers(2, 6)) + 1, n))
        if rng.random() < 0.5:
            s = pd.Series(pd.Categorical(np.array(["low", "mid", "high", "top", "none"])[s - 1]))
        if rng.random() < 0.25:
            s = _with_missing(s, rng, 0.05)
            tags.append("na-sens")
        data[sens] = s
    x, xm = _numeric(rng, n, tags)
    if rng.random() < 0.1:
        x.iloc[int(rng.integers(0, n)), 0] = np.nan
        tags.append("na-num")
    return FuzzData(seed=seed, data=data, keys=list(cols), key_classes=classes, w=w, hid=hid, sensitive=sens,
                    x=x, xm=xm, tags=tags)
