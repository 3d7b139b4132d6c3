"""Registry entries of the record-linkage risk measures: recordLinkage (sdcMicro 5.8.1), nn_linkage, prob_linkage.

``record_linkage`` follows sdcMicro's development version 5.8.1 (``recordLinkage``; CRAN's 5.8.0 lacks
it): its stored references (``r_reference/outputs/recordLinkage.json``) come from 5.8.1, and its bridge
refuses with :class:`~pysdc.RNotAvailableError` where the installed sdcMicro has no ``recordLinkage``.
``nn_linkage`` and ``prob_linkage`` have no sdcMicro counterpart (native only).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import RNotAvailableError
from .._tolerances import CLOSED_FORM, EXACT
from ..risk._nn_linkage import NNLinkageResult, nn_linkage
from ..risk._prob_linkage import ProbLinkageResult, prob_linkage
from ..risk._record_linkage import RecordLinkageResult, record_linkage
from ._measure import Measure, Shown, native_arguments

__all__ = ["ENTRIES"]

#: the sdcMicro version whose recordLinkage the stored references come from
RECORD_LINKAGE_SDCMICRO = "5.8.1"


# =============================================================================
# recordLinkage


def _record_linkage_to_r(values, R):
    ns = R.call("asNamespace", "sdcMicro", package="base", as_robject=True)
    if not R.call("exists", "recordLinkage", envir=ns, inherits=False, package="base"):
        version = R.call("as.character", R.call("packageVersion", "sdcMicro", package="utils", as_robject=True),
                         package="base")
        raise RNotAvailableError(
            f"the installed sdcMicro ({version}) has no recordLinkage: it exists from sdcMicro "
            f"{RECORD_LINKAGE_SDCMICRO} (the development version, github.com/sdcTools/sdcMicro; not on CRAN as of "
            "5.8.0). Install it into an R library and start Python with R_LIBS pointing there, or use the native "
            "pysdc.record_linkage (equal to sdcMicro 5.8.1's numbers on the stored cases)."
        )
    kw = {"x": values["x"], "y": values["y"], "vars": list(values["vars"]), "distance": values["distance"],
          "return_matrix": True, "na_action": values["na_action"], "tol": float(values["tol"])}
    for k in ("weights", "x_id", "y_id"):
        if values.get(k) is not None:
            kw[k] = [float(v) for v in values[k]] if k == "weights" else values[k]
    return "recordLinkage", kw, False


def _record_linkage_from_r(res, values, R):
    m = res.get("matches")
    cm = pd.array(m["correct_match"], dtype="boolean")
    matches = pd.DataFrame({"x_row": np.asarray(m["x_row"], dtype=np.int64) - 1,
                            "y_row": np.asarray(m["y_row"], dtype=np.int64) - 1,
                            "x_id": m["x_id"].to_numpy(), "y_id": m["y_id"].to_numpy(),
                            "distance": np.asarray(m["distance"], dtype=float), "correct_match": cm,
                            "n_best": np.asarray(m["n_best"], dtype=np.int64)})
    correct = int(res.get("correct_matches"))
    d = res.get("distance_matrix")
    return RecordLinkageResult(
        matches=matches, correct_matches=correct, correct_match_rate=float(res.get("correct_match_rate")),
        mean_distance=float(res.get("mean_distance")), total_distance=float(res.get("total_distance")),
        correct_matches_min=correct,  # sdcMicro reports its one matching
        distance_matrix=None if not values.get("return_matrix") or d is None else np.asarray(d, dtype=float),
        distance=values["distance"])


def _head(frame: pd.DataFrame, h) -> pd.DataFrame:
    return frame if h is None else frame.iloc[: int(h)].reset_index(drop=True)


def _run_record_linkage(fn, a, inputs, expected):
    h = a.get(".head")
    x, y = _head(inputs["x"], h), _head(inputs["y"], h)
    kw = {k: a[k] for k in ("distance", "x_id", "y_id", "na_action") if a.get(k) is not None}
    if a.get("weights") is not None:
        kw["weights"] = [float(v) for v in (a["weights"] if isinstance(a["weights"], list) else [a["weights"]])]
    if a.get("tol") is not None:
        kw["tol"] = float(a["tol"])
    vars_ = [a["vars"]] if isinstance(a["vars"], str) else list(a["vars"])
    r = fn(x, y, vars_, return_matrix=True, **kw)
    m = r.matches
    out = {"y_row": m["y_row"].to_numpy() + 1, "distance": m["distance"].to_numpy(dtype=float),
           "n_best": m["n_best"].to_numpy(dtype=float), "correct_matches": r.correct_matches,
           "correct_matches_min": r.correct_matches_min, "correct_match_rate": r.correct_match_rate,
           "mean_distance": r.mean_distance, "total_distance": r.total_distance}
    if expected is not None and "x_row" in expected:  # pysdc's distances at sdcMicro's matched pairs
        xr = np.atleast_1d(np.asarray(expected["x_row"], dtype=np.int64)) - 1
        yr = np.atleast_1d(np.asarray(expected["y_row"], dtype=np.int64)) - 1
        out["distance_at_r_pairs"] = r.distance_matrix[xr, yr]
    return out


def _compare_record_linkage(c, exp, act, args, mode):
    # assignment-free quantities: exact (counts) and closed form (distances)
    c.value("n_best", exp["n_best"], act["n_best"], EXACT)
    c.value("total_distance", exp["total_distance"], act["total_distance"], CLOSED_FORM)
    c.value("mean_distance", exp["mean_distance"], act["mean_distance"], CLOSED_FORM)
    # pysdc's distance of every pair sdcMicro matched equals sdcMicro's (whatever pysdc matched itself)
    if "distance_at_r_pairs" in act:
        c.value("distance[sdcMicro's pairs]", exp["distance"], act["distance_at_r_pairs"], CLOSED_FORM)
    # the number of correct links depends on the matching only under ties: sdcMicro's lies within pysdc's range
    lo, hi, e = act["correct_matches_min"], act["correct_matches"], int(exp["correct_matches"])
    if lo == hi:
        c.value("correct_matches", e, hi, EXACT)
        c.value("correct_match_rate", exp["correct_match_rate"], act["correct_match_rate"], CLOSED_FORM)
    elif lo <= e <= hi:
        c.accepted("correct_matches", [e], [e], EXACT)
    else:
        c.fail("correct_matches", f"sdcMicro's {e} correct links lie outside pysdc's range over the optimal "
                                  f"matchings [{lo}, {hi}]")


def _example_record_linkage() -> dict:
    rng = np.random.default_rng(0)
    n = 30
    x = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "f": pd.Categorical(rng.choice(["u", "v"], n))})
    y = x.copy()
    y["a"] = y["a"] + rng.normal(scale=0.3, size=n)
    return {"x": x, "y": y, "vars": ["a", "b", "f"], "distance": "gower"}


# =============================================================================
# nn_linkage, prob_linkage (native only)


def _example_nn_linkage() -> dict:
    rng = np.random.default_rng(1)
    n = 50
    x = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = x + rng.normal(scale=0.3, size=x.shape)
    return {"x": x, "y": y, "vars": ["a", "b", "c"]}


def _example_prob_linkage() -> dict:
    rng = np.random.default_rng(2)
    n = 60
    x = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "k": pd.Categorical(rng.choice(["p", "q", "r"], n)), "r": rng.choice(["s", "t"], n)})
    y = x.copy()
    y["a"] = y["a"] + rng.normal(scale=0.1, size=n)
    return {"x": x, "y": y, "vars": ["a", "b", "k"], "block": ["r"]}


ENTRIES: tuple[Measure, ...] = (
    Measure(
        "record_linkage", "recordLinkage", "risk", record_linkage, RecordLinkageResult,
        arguments={"x": "x", "y": "y", "vars": "vars", "distance": "distance", "weights": "weights", "x_id": "x_id",
                   "y_id": "y_id", "return_matrix": "return_matrix", "na_action": "na_action", "tol": "tol"},
        fields={"matches": "matches", "correct_matches": "correct_matches",
                "correct_match_rate": "correct_match_rate", "mean_distance": "mean_distance",
                "total_distance": "total_distance", "correct_matches_min": None,
                "distance_matrix": "distance_matrix", "distance": None},
        notes="sdcMicro 5.8.1 (development version; 5.8.0 lacks recordLinkage: the bridge says so). x_row/y_row "
              "are 0-based. Under ties pysdc picks, among the minimum-total-distance matchings, one with the most "
              "correct links (correct_matches_min: the fewest); sdcMicro's clue::solve_LSAP count lies between.",
        to_r=_record_linkage_to_r, from_r=_record_linkage_from_r,
        # the variables are columns of y too (the bridge sends y only the columns the call names)
        extra_columns=lambda v: {"y": list(v["vars"])},
        run_case=_run_record_linkage, compare_case=_compare_record_linkage,
        example=_example_record_linkage,
        description="global distance-based record linkage: the share of original records that the "
                    "minimum-total-distance one-to-one matching links to their own protected record",
        citation="sdcMicro 5.8.1's recordLinkage; Herranz, Nin, Rodríguez & Tassa 2015",
        question=("Could an attacker holding the original file re-identify protected records by matching the two "
                  "files one to one, all at once?",
                  "`record_linkage` (minimum-total-distance one-to-one matching; Gower, Euclidean, Manhattan; "
                  "correct links)", "Herranz et al. 2015", "sdcMicro 5.8.1"),
        attacker="an intruder who knows that the release is the whole original file, masked, and matches the two "
                 "files one to one so that the total distance is smallest",
        section="risk",
        assess="linkage", all_pairs=True,
        shows=(Shown("correct_match_rate", "share of the records matched to their own", "pct"),
               Shown("correct_matches", "correct matches ({distance})", "int"),
               Shown("correct_matches_min", "fewest correct matches over the optimal matchings (ties)", "int"),
               Shown("mean_distance"), Shown("distance", fmt="text")),
    ),
    Measure(
        "nn_linkage", "", "risk", nn_linkage, NNLinkageResult,
        arguments=native_arguments(nn_linkage),
        fields={f: None for f in NNLinkageResult.__dataclass_fields__},
        bridge=False,
        notes="native only (no sdcMicro counterpart). Exact k-d tree nearest neighbours (Euclidean, Mahalanobis); "
              "Gower by blocks; ties count 1/t.",
        example=_example_nn_linkage,
        description="distance-based record linkage: the share of protected records whose nearest original record "
                    "is their own (ties counted 1/t)",
        citation="Pagliuca & Seri 1999; Domingo-Ferrer & Torra 2001; Młodak, Pietrzak & Józefowski 2022",
        question=("Could an attacker re-identify protected records by linking each to its nearest original (large "
                  "files, continuous or mixed variables)?",
                  "`nn_linkage` (Euclidean, Mahalanobis, Gower; share of correct links, ties 1/t)",
                  "Pagliuca & Seri 1999; Domingo-Ferrer & Torra 2001", "literature"),
        attacker="an intruder holding the original records who links each released record, independently, to the "
                 "nearest original record",
        section="risk",
        assess="linkage",
        shows=(Shown("rate", "nearest original is the own one ({distance}; ties count 1/t)", "pct"),
               Shown("rate_second", "own original nearest or second nearest", "pct"),
               Shown("correct"), Shown("n_linked", fmt="int"), Shown("distance", fmt="text", attr="distance_used")),
    ),
    Measure(
        "prob_linkage", "", "risk", prob_linkage, ProbLinkageResult,
        arguments=native_arguments(prob_linkage),
        fields={f: None for f in ProbLinkageResult.__dataclass_fields__},
        bridge=False,
        notes="native only (no sdcMicro counterpart). Fellegi-Sunter with EM; pairs counted per agreement "
              "pattern within blocks, never enumerated.",
        example=_example_prob_linkage,
        description="probabilistic record linkage: the share of linked pairs (Fellegi-Sunter, EM, thresholds from "
                    "the two accepted error rates) that are true matches",
        citation="Fellegi & Sunter 1969; Jaro 1989; Torra & Domingo-Ferrer 2003",
        question=("Could an attacker re-identify protected records by probabilistic matching on agreement patterns?",
                  "`prob_linkage` (Fellegi–Sunter, EM; share of linked pairs that are true)",
                  "Fellegi & Sunter 1969; Jaro 1989", "literature"),
        attacker="an intruder who compares pairs of records on agreement patterns and links those whose "
                 "likelihood ratio passes the thresholds set by the accepted error rates",
        section="risk",
        assess="linkage",
        shows=(Shown("precision", "{true_links} of {linked_pairs} linked pairs true", "pct"),
               Shown("risk", "true links over the records", "pct"),
               Shown("linked_pairs", "pairs linked", "int"), Shown("true_links", fmt="int"),
               Shown("clerical_pairs", fmt="int"), Shown("candidate_pairs", fmt="int"),
               Shown("converged", fmt="bool")),
    ),
)
