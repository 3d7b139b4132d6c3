"""Generate pysdc's synthetic household-survey demo data (original and masked).

Run ``python -m pysdc.datasets._generate`` to (re)write ``pysdc/datasets/data/``;
the output is deterministic (a fixed seed, values rounded to cents so that
last-bit differences between maths libraries cannot show). Nothing here is
real data and nothing is produced by R: the masked file is made by this
module's own (vectorised) additive noise, univariate microaggregation,
top-coding and local suppression.

Every random number is drawn with ``Generator.random`` (uniform on [0, 1))
and transformed here, so the data do not depend on how a NumPy version
implements its other distributions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import write_table

SEED = 20240611
N_HOUSEHOLDS = 1500
DATA_DIR = Path(__file__).resolve().parent / "data"
ORIGINAL_FILE = "demo.csv.gz"
MASKED_FILE = "demo_masked.csv.gz"

REGIONS = ["Capital", "Northwest", "Northeast", "Central", "Lakes",
           "Coast", "Highlands", "Southwest", "Southeast", "Islands"]
REGION_P = [0.24, 0.14, 0.12, 0.11, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04]
REGION_URBAN = [0.95, 0.55, 0.45, 0.5, 0.35, 0.6, 0.2, 0.3, 0.4, 0.25]
HHSIZE_P = [0.27, 0.30, 0.17, 0.14, 0.07, 0.03, 0.015, 0.005]  # sizes 1..8
AGE_GROUPS = ["0-14", "15-24", "25-34", "35-44", "45-54", "55-64", "65+"]
AGE_BREAKS = [15, 25, 35, 45, 55, 65]
MARITAL = ["single", "married", "widowed", "divorced"]
EDUCATION = ["none", "primary", "lower secondary", "upper secondary", "tertiary"]
HEALTH = ["good", "fair", "poor", "chronic illness", "disability"]


def _normal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Standard normal draws by Box-Muller from uniforms."""
    u1 = 1.0 - rng.random(n)  # (0, 1]
    u2 = rng.random(n)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def _choice(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One category index per row of ``probs`` (rows sum to 1)."""
    probs = np.atleast_2d(probs)
    cum = np.cumsum(probs, axis=1)
    cum[:, -1] = 1.0
    u = rng.random(cum.shape[0])
    return (u[:, None] >= cum).sum(axis=1)


def _choice_n(rng: np.random.Generator, p, n: int) -> np.ndarray:
    cum = np.cumsum(p)
    cum[-1] = 1.0
    return np.searchsorted(cum, rng.random(n), side="right")


def _cents(x: np.ndarray) -> np.ndarray:
    return np.round(x, 2)


def make_original(seed: int = SEED) -> pd.DataFrame:
    """The synthetic survey (see :func:`pysdc.load_demo` for the columns)."""
    rng = np.random.default_rng(seed)
    H = N_HOUSEHOLDS

    # households -------------------------------------------------------------
    size = _choice_n(rng, HHSIZE_P, H) + 1
    region_h = _choice_n(rng, REGION_P, H)
    urban_h = rng.random(H) < np.asarray(REGION_URBAN)[region_h]
    # design weight: stratum base (region x urban/rural) times a nonresponse factor
    base = np.array([60.0, 140, 160, 150, 210, 170, 260, 240, 230, 300])[region_h] * np.where(urban_h, 0.8, 1.3)
    weight_h = np.round(base * (0.55 + 0.9 * rng.random(H)), 4)

    # persons ----------------------------------------------------------------
    n = int(size.sum())
    h = np.repeat(np.arange(H), size)
    start = np.repeat(np.cumsum(size) - size, size)
    pos = np.arange(n) - start                      # 0 = household head
    hsize = size[h]
    urban = urban_h[h]

    head_age = 19 + 66 * rng.random(H) ** 1.15
    age = np.empty(n)
    is_head = pos == 0
    age[is_head] = head_age
    spouse = (pos == 1) & (rng.random(n) < 0.72)
    age[spouse] = np.clip(head_age[h[spouse]] + 4 * _normal(rng, int(spouse.sum())), 17, 95)
    other = ~is_head & ~spouse
    parent = other & (rng.random(n) < 0.06) & (head_age[h] < 55)
    child = other & ~parent
    age[parent] = head_age[h[parent]] + 22 + 10 * rng.random(int(parent.sum()))
    age[child] = np.clip(head_age[h[child]] - 20 - 22 * rng.random(int(child.sum())), 0, 60)
    age = np.floor(np.clip(age, 0, 99))
    age_code = np.searchsorted(AGE_BREAKS, age, side="right")

    sex_code = (rng.random(n) < 0.51).astype(int)  # 0 male, 1 female
    sex_code[spouse] = 1 - sex_code[start[spouse]]  # spouse of the other sex, mostly
    flip = spouse & (rng.random(n) < 0.03)
    sex_code[flip] = 1 - sex_code[flip]

    # marital status
    marital = np.full(n, 0)
    has_spouse = np.zeros(H, dtype=bool)
    has_spouse[h[spouse]] = True
    marital[spouse | (is_head & has_spouse[h])] = 1
    alone_adult = (marital == 0) & (age >= 18)
    m_p = np.column_stack([np.where(age < 40, 0.75, 0.25), np.where(age < 40, 0.1, 0.25),
                           np.where(age >= 60, 0.35, 0.05), np.zeros(n)])
    m_p[:, 3] = 1 - m_p[:, :3].sum(axis=1)
    draw = _choice(rng, m_p)
    marital[alone_adult] = draw[alone_adult]

    # education (ordered), depends on age and urban/rural
    edu_p = np.where(urban[:, None], [[0.04, 0.16, 0.22, 0.33, 0.25]], [[0.12, 0.33, 0.27, 0.2, 0.08]])
    older = age >= 60
    edu_p = edu_p * np.where(older[:, None], [[2.0, 1.6, 1.0, 0.6, 0.5]], 1.0)
    edu_p = edu_p / edu_p.sum(axis=1, keepdims=True)
    education = _choice(rng, edu_p)
    education = np.where(age < 7, 0, education)
    education = np.where((age >= 7) & (age < 12), np.minimum(education, 1), education)
    education = np.where((age >= 12) & (age < 18), np.minimum(education, 2), education)
    education = np.where((age >= 18) & (age < 22), np.minimum(education, 3), education)

    # health status: sensitive variable for l-diversity
    old = np.clip((age - 30) / 60, 0, 1)
    h_p = np.column_stack([0.80 - 0.45 * old, 0.12 + 0.1 * old, 0.03 + 0.1 * old, 0.03 + 0.2 * old, 0.02 + 0.05 * old])
    health = _choice(rng, h_p / h_p.sum(axis=1, keepdims=True))

    # economics --------------------------------------------------------------
    z = _normal(rng, n)
    earner = (age >= 15) & (age < 85) & (rng.random(n) < np.where(age >= 65, 0.5, 0.85))
    log_inc = 6.4 + 0.35 * education + 0.25 * urban + 0.6 * z + 0.008 * np.minimum(age, 55)
    income = np.where(earner, np.exp(log_inc), 0.0)
    pareto = earner & (rng.random(n) < 0.012)          # heavy right tail
    income[pareto] *= np.minimum((1.0 - rng.random(int(pareto.sum()))) ** (-1 / 1.3), 40) * 3
    top = np.argsort(-income, kind="stable")[:3]        # three extreme outliers
    income[top] *= 4
    income = _cents(income)

    hh_income = np.bincount(h, weights=income, minlength=H)
    share = np.where(is_head, 1.0, np.where(age >= 16, 0.45, 0.0))
    expenditure = share * (0.65 * hh_income[h] / hsize ** 0.5 + 180 * np.exp(0.3 * _normal(rng, n)))
    expenditure = _cents(expenditure)
    savings = np.where((rng.random(n) < 0.75) & (age >= 18),
                       np.maximum(0.0, 0.12 * income + 400 * np.exp(0.9 * _normal(rng, n)) - 250), 0.0)
    rich = np.argsort(-savings, kind="stable")[:2]
    savings[rich] *= 6
    savings = _cents(savings)

    # item nonresponse and suppressed key values
    income[rng.random(n) < 0.03] = np.nan
    expenditure[rng.random(n) < 0.02] = np.nan
    savings[rng.random(n) < 0.05] = np.nan
    education = np.where(rng.random(n) < 0.02, -1, education)
    marital = np.where(rng.random(n) < 0.01, -1, marital)

    def factor(codes, levels, ordered=False):
        return pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=levels, ordered=ordered)

    return pd.DataFrame({
        "hid": (h + 1).astype(np.int64),
        "region": factor(region_h[h], REGIONS),
        "urbrur": factor(np.where(urban, 0, 1), ["urban", "rural"]),
        "hhsize": hsize.astype(np.int64),
        "sex": factor(sex_code, ["male", "female"]),
        "age_group": factor(age_code, AGE_GROUPS, ordered=True),
        "marital": factor(marital, MARITAL),
        "education": factor(education, EDUCATION, ordered=True),
        "health_status": factor(health, HEALTH),
        "weight": weight_h[h],
        "income": income,
        "expenditure": expenditure,
        "savings": savings,
    })


# ----------------------------------------------------------------------------
# masking


def microaggregate(x: np.ndarray, k: int) -> np.ndarray:
    """Univariate microaggregation: sort, groups of ``k`` neighbours, group means.

    Missing values stay missing; the last group absorbs a remainder smaller
    than ``k`` (so every group has between ``k`` and ``2k - 1`` members).
    """
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    ok = np.flatnonzero(~np.isnan(x))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(x[ok], kind="stable")]
    n_groups = max(m // k, 1)
    group = np.minimum(np.arange(m) // k, n_groups - 1)
    means = np.bincount(group, weights=x[order], minlength=n_groups) / np.bincount(group, minlength=n_groups)
    out[order] = means[group]
    return out


def add_noise(x: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """Additive noise with sd ``share * sd(x)``; zeros and missing values kept."""
    x = np.asarray(x, dtype=np.float64)
    sd = np.nanstd(x, ddof=1)
    noisy = x + share * sd * _normal(rng, x.size)
    return np.where((x == 0) | np.isnan(x), x, noisy)


def make_masked(original: pd.DataFrame, seed: int = SEED + 1) -> pd.DataFrame:
    """The masked release of ``original`` (same records, rows and dtypes)."""
    rng = np.random.default_rng(seed)
    m = original.copy()
    m["income"] = _cents(microaggregate(original["income"].to_numpy(), 3))
    m["expenditure"] = _cents(add_noise(original["expenditure"].to_numpy(), rng, 0.15))
    m["savings"] = _cents(microaggregate(original["savings"].to_numpy(), 5))
    m["hhsize"] = np.minimum(original["hhsize"].to_numpy(), 6)               # top-coding
    # global recoding inside the same levels: the smallest region joins its neighbour
    region = m["region"].to_numpy(dtype=object)
    m["region"] = pd.Categorical(np.where(region == "Islands", "Southeast", region),
                                 categories=original["region"].cat.categories)
    # local suppression: in key combinations seen only once, blank age_group
    keys = ["region", "urbrur", "sex", "age_group", "education"]
    fk = m.groupby(keys, observed=True, dropna=False)["hid"].transform("size").to_numpy()
    unsafe = fk < 2
    age = m["age_group"].copy()
    age[unsafe] = np.nan
    m["age_group"] = age
    # some of what is still unique loses its education
    fk = m.groupby(keys, observed=True, dropna=False)["hid"].transform("size").to_numpy()
    edu = m["education"].copy()
    edu[(fk < 2) & (rng.random(len(m)) < 0.5)] = np.nan
    m["education"] = edu
    return m


def make_pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    original = make_original()
    return original, make_masked(original)


def main(argv=None) -> int:
    out = Path(argv[0]) if argv else DATA_DIR
    out.mkdir(parents=True, exist_ok=True)
    original, masked = make_pair()
    write_table(original, out / ORIGINAL_FILE)
    write_table(masked, out / MASKED_FILE)
    print(f"wrote {out / ORIGINAL_FILE} and {out / MASKED_FILE}: {original.shape[0]} records, "
          f"{original['hid'].nunique()} households")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
