"""Case list of sdcMicro's ``modRisk`` references -> cases/modRisk.json (+ a few modrisk_* inputs).

Run from ``r_reference/`` (``regenerate.sh`` runs it after ``make_inputs.py``)::

    python3 make_cases_modRisk.py

The cases run ``modRisk(data, method, weights, formulaM = as.formula(formula), bound)`` on
the stored inputs (the demo data, its sdcMicro-masked versions, the synthetic keys*
tables) plus three small inputs written here from stored ones (``modrisk_*``): every
method; main-effect and interaction formulas (``^2``, ``:``, ``*``, ``- 1``); finite and
infinite ``bound``; factor, ordered, character, logical, integer and double keys;
missing keys and weights; and the inputs sdcMicro refuses. Deterministic: rerunning gives
byte-identical files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pysdc.io import read_table, write_table  # noqa: E402

INPUTS = HERE / "inputs"
CASES = HERE / "cases"
METHODS = ("default", "CE", "PML", "weightedLLM", "IPF")
GLM = ("default", "CE", "PML", "weightedLLM")


def _inputs() -> None:
    """modrisk_* inputs, derived from stored ones (no random draws)."""
    k = read_table(INPUTS / "keys300.csv.gz")
    # a factor key with a single observed level (glm methods stop), an integer key
    const = k[k["k1"] == "a"].reset_index(drop=True)
    write_table(const[["k1", "k3", "k4", "w"]], INPUTS / "modrisk_const.csv.gz")
    # keys named like sdcMicro's internal columns
    names = k[["k1", "k3", "w"]].rename(columns={"k1": "weights", "k3": "counts"})
    write_table(names, INPUTS / "modrisk_names.csv.gz")
    # double keys whose values do not all survive R's 15-digit as.character (IPF merges by label),
    # and a pair that prints alike (0.1 + 0.2 vs 0.3)
    base = np.array([0.1 + 0.2, 0.3, 1.0 / 3.0, 2.5, 0.75])
    d = pd.DataFrame({
        "dx": base[np.arange(len(k)) % 5],
        "g": k["k1"].to_numpy(),
        "h": k["k3"].to_numpy(),
        "w": k["w"].to_numpy(),
    })
    write_table(d, INPUTS / "modrisk_dbl.csv.gz")


def _case(cid, data, formula, method="default", weights="w", bound=None, tags=()):
    args = {"formulaM": formula, "method": method, "weights": weights}
    if bound is not None:
        args["bound"] = bound
    return {"id": f"modRisk:{cid}", "inputs": {"data": data}, "args": args, "tags": sorted(set(tags))}


def cases() -> list:
    out = []
    demo = "demo.csv.gz"
    f3 = "~ region + urbrur + sex"
    f4 = "~ region + urbrur + sex + age_group"
    f5 = "~ region + urbrur + sex + age_group + education"
    fu = "~ region + urbrur + sex + marital + health_status"  # unordered factors only (IPF)
    # demo: every method, main effects, bounds
    for m in METHODS:
        for b in (None, 1, 2, 10):
            out.append(_case(f"demo:5factors:{m}:b{b}", demo, fu, m, "weight", b,
                             ("demo", "main-effects", m, "bound-inf" if b is None else "bound")))
    for m in GLM:
        out.append(_case(f"demo:4keys:{m}:b1", demo, f4, m, "weight", 1, ("demo", "ordered-key", m, "bound")))
        out.append(_case(f"demo:5keys:{m}:b2", demo, f5, m, "weight", 2,
                         ("demo", "ordered-key", "missing-key", m, "bound")))
    out.append(_case("demo:3keys:default:inf", demo, f3, "default", "weight", None, ("demo", "bound-inf")))
    out.append(_case("demo:3keys:PML:inf", demo, f3, "PML", "weight", None, ("demo", "bound-inf")))
    out.append(_case("demo:hhsize:default:b2", demo, "~ region + sex + hhsize + age_group", "default", "weight", 2,
                     ("demo", "integer-key")))
    # interactions
    inter = {
        "pow2": "~ (region + sex + age_group)^2 + urbrur + education",
        "colon": "~ region + sex + age_group + education + sex:age_group",
        "star": "~ region*sex + age_group + education",
        "pow2plus": "~ (urbrur + sex + age_group + education)^2 + region",
        "star3": "~ urbrur*sex*age_group + region + education",
    }
    for name, f in inter.items():
        for m in GLM:
            out.append(_case(f"demo:{name}:{m}:b2", demo, f, m, "weight", 2, ("demo", "interaction", m, "bound")))
    out.append(_case("demo:pow2:default:inf", demo, inter["pow2"], "default", "weight", None,
                     ("demo", "interaction", "bound-inf")))
    out.append(_case("demo:nointercept:default:b2", demo, fu + " - 1", "default", "weight", 2,
                     ("demo", "no-intercept")))
    out.append(_case("demo:nointercept:IPF:b2", demo, fu + " - 1", "IPF", "weight", 2,
                     ("demo", "no-intercept", "IPF")))
    out.append(_case("demo:saturated:weightedLLM:b2", demo, "~ urbrur*sex*marital", "weightedLLM", "weight", 2,
                     ("demo", "rank-deficient", "interaction")))
    # masked demo versions
    for src in ("demo__locsupp3.csv.gz", "demo_masked.csv.gz"):
        for m in GLM:
            out.append(_case(f"{src[:-7]}:5keys:{m}:b2", src, f5, m, "weight", 2,
                             ("demo-masked", "missing-key", "ordered-key", m)))
    out.append(_case("demo_masked:5factors:IPF:b3", "demo_masked.csv.gz", fu, "IPF", "weight", 3,
                     ("demo-masked", "IPF")))
    out.append(_case("demo__locsupp5_4keys:4keys:default:b1", "demo__locsupp5_4keys.csv.gz", f4, "default", "weight",
                     1, ("demo-masked", "missing-key")))
    # synthetic keys: factor, integer, double, character, logical keys
    fk = "~ k1 + k3 + s1 + s2"
    for data in ("keys300.csv.gz", "keys2000.csv.gz", "keys10000.csv.gz"):
        stem = data[:-7]
        for m in METHODS:
            out.append(_case(f"{stem}:k1+k3+s1+s2:{m}:b3", data, fk, m, "w", 3,
                             ("synthetic", "integer-key", m)))
        out.append(_case(f"{stem}:k1+k2+k4+s1:default:inf", data, "~ k1 + k2 + k4 + s1", "default", "w", None,
                         ("synthetic", "double-key", "ordered-key")))
        out.append(_case(f"{stem}:k1*k3+kc+s1:default:b2", data, "~ k1*k3 + kc + s1", "default", "w", 2,
                         ("synthetic", "integer-key", "character-key", "interaction")))
    for m in METHODS:
        out.append(_case(f"keys300:k1+kc+s1:{m}:b2", "keys300.csv.gz", "~ k1 + kc + s1", m, "w", 2,
                         ("synthetic", "character-key", m)))
    out.append(_case("keys300:k1+kl+s1:default:b3", "keys300.csv.gz", "~ k1 + kl + s1", "default", "w", 3,
                     ("synthetic", "logical-key")))
    out.append(_case("keys300:(k1+k2+kl)^2+s1:CE:b3", "keys300.csv.gz", "~ (k1 + k2 + kl)^2 + s1", "CE", "w", 3,
                     ("synthetic", "logical-key", "interaction")))
    out.append(_case("keys300:k3+k4+k3:k4:default:inf", "keys300.csv.gz", "~ k3 + k4 + k3:k4", "default", "w", None,
                     ("synthetic", "numeric-interaction")))
    out.append(_case("keys300:k1+k3+s1:weightedLLM:wf", "keys300.csv.gz", "~ k1 + k3 + s1", "weightedLLM", "wf", 1,
                     ("synthetic", "weights")))
    out.append(_case("keys2000:k1+s1+s2+k3:PML:wf", "keys2000.csv.gz", "~ k1 + s1 + s2 + k3", "PML", "wf", 1,
                     ("synthetic", "weights")))
    out.append(_case("keys300:weight-is-key:default:b3", "keys300.csv.gz", "~ k1 + k3 + s1", "default", "s2", 3,
                     ("synthetic", "weights")))
    # missing keys, missing and zero weights
    for data in ("keys300_na1.csv.gz", "keys300_nam.csv.gz", "keys2000_na.csv.gz", "keys2000__locsupp3.csv.gz"):
        stem = data[:-7]
        f = "~ k1 + k3 + s1" if data.startswith("keys300") else "~ k1 + k3 + hid"
        for m in METHODS:
            out.append(_case(f"{stem}:{f[2:].replace(' ', '')}:{m}:b3", data, f, m, "w", 3,
                             ("synthetic", "missing-key", m)))
    out.append(_case("keys300_nam:k1+k2+k3+k4:default:b3", "keys300_nam.csv.gz", "~ k1 + k2 + k3 + k4", "default",
                     "w", 3, ("synthetic", "missing-key", "double-key")))
    for data in ("keys300_w0.csv.gz", "keys300_wna.csv.gz"):
        stem = data[:-7]
        for m in METHODS:
            out.append(_case(f"{stem}:k1+k3+s1:{m}:b3", data, "~ k1 + k3 + s1", m, "w", 3,
                             ("synthetic", "degenerate-weights", m)))
    # small inputs
    for m in METHODS:
        out.append(_case(f"keys8:k1+k2:{m}:inf", "keys8.csv.gz", "~ k1 + k2", m, "w", None, ("small", m)))
        out.append(_case(f"keys8_na:k1+k2:{m}:inf", "keys8_na.csv.gz", "~ k1 + k2", m, "w", None,
                         ("small", "missing-key", m)))
    out.append(_case("keys8:k1*k2:default:inf", "keys8.csv.gz", "~ k1*k2", "default", "w", None,
                     ("small", "saturated")))
    out.append(_case("keys5:k1+k2:default:inf", "keys5.csv.gz", "~ k1 + k2", "default", "w", None, ("small",)))
    for m in ("default", "IPF"):
        out.append(_case(f"hand8:h1+h3:{m}:inf", "hand8.csv.gz", "~ h1 + h3", m, "w", None,
                         ("small", "double-key", "missing-key", m)))
    for m in METHODS:
        out.append(_case(f"modrisk_dbl:dx+g+h:{m}:b3", "modrisk_dbl.csv.gz", "~ dx + g + h", m, "w", 3,
                         ("double-key", "label-roundtrip", m)))
    out.append(_case("modrisk_const:k1+k3:IPF:inf", "modrisk_const.csv.gz", "~ k1 + k3", "IPF", "w", None,
                     ("single-level", "IPF")))
    out.append(_case("modrisk_const:k3+k4:default:inf", "modrisk_const.csv.gz", "~ k3 + k4", "default", "w", None,
                     ("constant-numeric-key",)))
    # bounds
    for b in (0, -1, 0.5, 1.5):
        out.append(_case(f"keys300:k1+k3+s1+s2:default:b{b}", "keys300.csv.gz", fk, "default", "w", b,
                         ("synthetic", "bound")))
    # sdcMicro refuses
    err = [
        ("unknown-method", "keys300.csv.gz", "~ k1 + k3", "bogus", "w"),
        ("unknown-weights", "keys300.csv.gz", "~ k1 + k3", "default", "nope"),
        ("unknown-variable", "keys300.csv.gz", "~ k1 + nope", "default", "w"),
        ("IPF-interaction", "keys300.csv.gz", "~ k1*k3", "IPF", "w"),
        ("IPF-ordered", "demo.csv.gz", "~ region + age_group", "IPF", "weight"),
        ("IPF-logical", "keys300.csv.gz", "~ k1 + kl", "IPF", "w"),
        ("interaction-var-not-main", "keys300.csv.gz", "~ k1 + k1:k3", "default", "w"),
        ("interaction-only", "keys300.csv.gz", "~ k1:k3", "default", "w"),
        ("single-level-factor", "modrisk_const.csv.gz", "~ k1 + k3", "default", "w"),
        ("single-level-factor-CE", "modrisk_const.csv.gz", "~ k1 + k3", "CE", "w"),
        ("key-named-weights", "modrisk_names.csv.gz", "~ weights + counts", "default", "w"),
        ("key-named-counts", "modrisk_names.csv.gz", "~ counts", "default", "w"),
        ("all-na-key", "keys20_allna.csv.gz", "~ k1 + k2", "default", "w"),
        ("CE-na-weights", "keys300_wna.csv.gz", "~ k1 + k3", "CE", "w"),
    ]
    for name, data, f, m, w in err:
        out.append(_case(f"error:{name}", data, f, m, w, None, ("error",)))
    ids = [c["id"] for c in out]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return out


def main() -> None:
    _inputs()
    CASES.mkdir(exist_ok=True)
    (CASES / "modRisk.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True) + "\n")
    print(f"cases/modRisk.json: {len(cases())} cases")


if __name__ == "__main__":
    main()
