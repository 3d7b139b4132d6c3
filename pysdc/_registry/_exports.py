"""Every export of sdcMicro 5.8.0 with pysdc's status: native, bridge-only, or out of scope (with the reason).

The export list is sdcMicro's own: ``r_reference/outputs/sdcmicro_exports.json``, written by
``r_reference/generate_sdcmicro_exports.R`` from ``getNamespaceExports("sdcMicro")``. The native ones are read
from the two registries (the measures, :data:`pysdc._registry.MEASURES`, and the protection methods,
:data:`pysdc._registry._methods.METHODS`); every other export has an entry in :data:`NOT_NATIVE` saying how to
reach it from Python (through the bridge :mod:`pysdc.r`) or why pysdc leaves it out. ``tests/
test_sdcmicro_exports.py`` checks that every export has exactly one status, so a new sdcMicro export or a renamed
pysdc function fails it; ``docs/reference/sdcmicro-exports.md`` renders :func:`export_table`.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import MEASURES
from ._methods import METHODS, STEP_ALIASES

__all__ = ["NATIVE", "NOT_NATIVE", "NATIVE_NOTES", "NOT_EXPORTED", "STATUSES", "load_exports", "export_table"]

#: the statuses, in the table's order
STATUSES = ("native", "bridge-only", "out of scope")

#: sdcMicro name -> pysdc's native function (dotted path from ``pysdc``), from the two registries
NATIVE: dict[str, str] = {
    **{m.r: f"pysdc.{m.python}" for m in MEASURES if m.r},
    **{m.r: f"pysdc.protect.{m.python}" for m in METHODS},
    "addGhostVars": "pysdc.SdcProblem.add_ghost_vars",  # also SdcProblem(ghost_vars=...), createSdcObj's ghostVars
    **{m.r: f"pysdc.SdcProblem.{m.python}" for m in STEP_ALIASES.values()},  # kAnon: a problem step
}

#: what a user must know about a native entry: the methods registry's notes (what is native, what the bridge
#: alone runs, where the numbers differ), read from the registry so that they cannot go stale here
NATIVE_NOTES: dict[str, str] = {
    **{m.r: " ".join(m.notes.split()) for m in (*METHODS, *STEP_ALIASES.values()) if m.notes},
    "addGhostVars": "also SdcProblem(ghost_vars=...) (createSdcObj's ghostVars); the suppression steps of the "
                    "problem (local_suppression, local_supp) set the ghosts missing where their key is, as "
                    "sdcMicro's; pysdc refuses a ghost in another role or linked twice, which createSdcObj accepts",
}

#: the registries' sdcMicro names that sdcMicro 5.8.0 does not export, and where they come from
NOT_EXPORTED: dict[str, str] = {
    "recordLinkage": "sdcMicro 5.8.1 (the development version); pysdc's references come from it",
}

_S4 = ("out of scope", "", "S4 metadata that R's NAMESPACE exports for the sdcMicroObj class and its generics, not "
       "a function; the object is pysdc.r.SdcObj")
_CALL = "pysdc.r.call"

#: every export that is not native: (status, how to reach it from Python, why / what pysdc offers instead)
NOT_NATIVE: dict[str, tuple[str, str, str]] = {
    ".__C__sdcMicroObj": _S4,
    ".__T__$:base": _S4,
    ".__T__$<-:base": _S4,
    ".__T__[:base": _S4,
    ".__T__[<-:base": _S4,
    ".__T__[[<-:base": _S4,
    ".__T__kAnon_violations:sdcMicro": _S4,
    ".__T__print:base": _S4,
    ".__T__show:methods": _S4,
    ".__T__strataVar<-:sdcMicro": _S4,
    "createSdcObj": ("bridge-only", "pysdc.r.SdcObj.create",
                     "sdcMicro's object; pysdc's native problem object is pysdc.SdcProblem (its own class; "
                     "SdcObj.from_problem and SdcObj.to_problem convert)"),
    "calcRisks": ("bridge-only", "pysdc.r.SdcObj.apply",
                  "recomputes an sdcMicroObj's risk slots; natively pysdc.SdcProblem.risk measures a problem"),
    "undolast": ("bridge-only", "pysdc.r.SdcObj.undo", "the sdcMicroObj's history"),
    "extractManipData": ("bridge-only", "pysdc.r.SdcObj.manip_data", "the sdcMicroObj's manipulated data"),
    "get.sdcMicroObj": ("bridge-only", "pysdc.r.SdcObj.get", "a slot of the sdcMicroObj"),
    "set.sdcMicroObj": ("bridge-only", "pysdc.r.SdcObj.apply", "sets a slot of the sdcMicroObj"),
    "nextSdcObj": ("bridge-only", "pysdc.r.SdcObj.apply",
                   "the sdcMicroObj's bookkeeping before a method (sdcMicro's methods call it themselves)"),
    "strataVar<-": ("bridge-only", "pysdc.r.SdcObj.create", "the sdcMicroObj's strata (SdcObj.create(strata=...))"),
    "varToFactor": ("bridge-only", "pysdc.r.SdcObj.apply", "a key variable of an sdcMicroObj made a factor"),
    "varToNumeric": ("bridge-only", "pysdc.r.SdcObj.apply", "a key variable of an sdcMicroObj made numeric"),
    "removeDirectID": ("bridge-only", "pysdc.r.SdcObj.apply",
                       "removes direct identifiers from an sdcMicroObj (natively: drop the columns in pandas)"),
    "freq": ("bridge-only", _CALL, "an sdcMicroObj's sample or population frequencies; natively pysdc.freq_calc"),
    "LocalRecProg": ("bridge-only", _CALL, "local recoding by maximum weighted matching; not native"),
    "microaggrGower": ("bridge-only", _CALL, "microaggregation with a Gower-like distance; not native"),
    "argus_microaggregation": ("bridge-only", _CALL, "mu-Argus's microaggregation; not native"),
    "argus_rankswap": ("bridge-only", _CALL, "mu-Argus's rank swapping; not native"),
    "valTable": ("bridge-only", _CALL, "runs several of sdcMicro's methods and compares their utility; not native"),
    "riskyCells": ("bridge-only", _CALL, "key combinations at risk in tables; not native"),
    "generateStrata": ("bridge-only", _CALL, "one stratum variable from several (natively: pandas)"),
    "createNewID": ("bridge-only", _CALL, "new random record ids (natively: pandas/NumPy)"),
    "selectHouseholdData": ("bridge-only", _CALL, "the household-level file of a data set; not native"),
    "mergeHouseholdData": ("bridge-only", _CALL, "puts anonymised household data back; not native"),
    "importProblem": ("bridge-only", _CALL, "reads a problem exported by sdcApp"),
    "createDat": ("out of scope", _CALL, "a dummy data set for recordSwap's examples, not a method"),
    "dataGen": ("out of scope", _CALL,
                "synthetic data generation: neither a disclosure measure nor a protection method of issue 28"),
    "KI_applyAnonymization": ("out of scope", _CALL,
                              "anonymisation suggested by an external large language model (a network service); "
                              "renamed AI_* after 5.8.0"),
    "KI_createSdcObj": ("out of scope", _CALL,
                        "an sdcMicroObj set up by an external large language model (a network service); renamed "
                        "AI_* after 5.8.0"),
    "sdcApp": ("out of scope", "", "the Shiny GUI (a web application in R)"),
    "readMicrodata": ("out of scope", _CALL,
                      "sdcApp's file reader; pysdc.io.read_table reads CSV, SPSS, Stata, SAS, Parquet"),
    "writeSafeFile": ("out of scope", _CALL, "sdcApp's file writer; pysdc.io writes the tables"),
    "report": ("out of scope", _CALL,
               "sdcMicro's HTML report (rmarkdown); pysdc report and SdcProblem.report write pysdc's own"),
    "print": ("out of scope", "pysdc.r.print",
              "print methods of sdcMicro's objects; pysdc's results and reports print their own text"),
    "show": ("out of scope", "pysdc.r.SdcObj.print", "the S4 show method of the sdcMicroObj (printing)"),
    "plot.localSuppression": ("out of scope", _CALL, "R graphics of localSuppression's result"),
    "plotMicro": ("out of scope", _CALL, "R graphics comparing microaggregated with original values"),
}


def load_exports(path) -> tuple[list[str], dict]:
    """sdcMicro's export list and the header of ``r_reference/outputs/sdcmicro_exports.json``."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return list(doc["exports"]), dict(doc["header"])


def export_table(exports) -> list[dict]:
    """One row per export (sorted as given): ``export``, ``status``, ``pysdc`` (the native function or how to
    reach it through the bridge), ``note``. An export without a status raises ``KeyError``."""
    rows = []
    for name in exports:
        if name in NATIVE:
            rows.append({"export": name, "status": "native", "pysdc": NATIVE[name],
                         "note": NATIVE_NOTES.get(name, "")})
        else:
            status, via, why = NOT_NATIVE[name]
            rows.append({"export": name, "status": status, "pysdc": via, "note": why})
    return rows
