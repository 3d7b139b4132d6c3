"""The stored reference corpus: cases, inputs, divergences (``r_reference/``)."""

from __future__ import annotations

import fnmatch
import json
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._registry import MEASURES
from .._registry._measure import decode
from .._registry._methods import METHODS, load_case_data
from ..io import read_table
from ._sections import SECTIONS

__all__ = ["FUNCTIONS", "MEASURE_FUNCTIONS", "METHOD_FUNCTIONS", "SECTION_FUNCTIONS", "OUTPUT_GROUPS", "is_method",
           "is_section", "Case", "reference_dir",
           "reference_dir_candidates",
           "unknown_functions", "load_corpus", "corpus_header", "load_divergences",
           "divergence_for", "decode", "case_inputs"]

#: sdcMicro function -> pysdc function of the measures with stored cases (pysdc._registry), in report order
MEASURE_FUNCTIONS = {m.r: m.python for m in MEASURES if m.run_case is not None}
#: sdcMicro function -> pysdc.protect function of the protection methods with stored cases
#: (pysdc._registry._methods), in report order
METHOD_FUNCTIONS = {m.r: m.python for m in METHODS if m.run_case is not None}
#: stored outputs across several functions, each a report section of its own (pysdc.parity._sections):
#: file stem -> what pysdc runs (numerics.json, print.json, createSdcObj.json)
SECTION_FUNCTIONS = {stem: s.python for stem, s in SECTIONS.items()}
#: every function of the stored corpus: the measures, the protection methods, then the sections
FUNCTIONS = {**MEASURE_FUNCTIONS, **METHOD_FUNCTIONS, **SECTION_FUNCTIONS}
#: every stored output file the corpus reads (``r_reference/outputs/<stem>.json``), in report order: stem ->
#: (sdcMicro function whose registry entry runs and compares its cases, what the group covers). A function's
#: own file comes first (stem = function, nothing to describe); a protection method declares its further
#: files in the registry (:attr:`pysdc._registry._methods.Method.outputs`), e.g. microaggregation_clust.json
OUTPUT_GROUPS = {stem: (fun, what) for fun in FUNCTIONS
                 for stem, what in {fun: "", **next((m.outputs for m in METHODS if m.r == fun
                                                    and fun in METHOD_FUNCTIONS), {})}.items()}


def is_method(function: str) -> bool:
    """Whether sdcMicro's ``function`` is a protection method (its cases run through the methods registry)."""
    return function in METHOD_FUNCTIONS


def is_section(function: str) -> bool:
    """Whether ``function`` names a section (a stored output across several functions: numerics, print,
    createSdcObj) rather than a measure or protection method."""
    return function in SECTION_FUNCTIONS


def reference_dir(path=None) -> Path:
    """The ``r_reference`` directory: ``path``, else the one next to the package in a source checkout,
    else the copy installed with the package (``<prefix>/share/pysdc/r_reference``).

    The stored corpus belongs to the pysdc it was generated for, so a corpus elsewhere (the working
    directory, its parents) is used only when named (``pysdc parity --reference-dir DIR``).
    """
    if path is not None:
        return Path(path)
    for d in reference_dir_candidates():
        if (d / "outputs").is_dir():
            return d
    return reference_dir_candidates()[0]


def reference_dir_candidates() -> list[Path]:
    """Where ``r_reference/`` is looked for: next to the package (a source checkout), then where
    ``pip install`` put it (the data files of the environment, ``share/pysdc/r_reference``)."""
    here = Path(__file__).resolve().parents[2] / "r_reference"
    installed = [Path(sysconfig.get_path("data", scheme)) / "share" / "pysdc" / "r_reference"
                 for scheme in dict.fromkeys([sysconfig.get_default_scheme(), *_user_scheme()])]
    return [here, *installed]


def _user_scheme() -> list[str]:
    # pip install --user puts data files under the user scheme's data path
    try:
        return [sysconfig.get_preferred_scheme("user")]
    except (AttributeError, KeyError):  # pragma: no cover - Python < 3.10 or an odd platform
        return []


def unknown_functions(functions) -> list[str]:
    """The names in ``functions`` that are neither an sdcMicro nor a pysdc name of a measure or protection
    method with stored cases."""
    known = set(FUNCTIONS) | set(FUNCTIONS.values()) | set(OUTPUT_GROUPS)
    return [f for f in functions or [] if f not in known]


@dataclass(frozen=True)
class Case:
    """One stored sdcMicro reference case."""

    function: str  # sdcMicro's name
    id: str
    inputs: dict
    args: dict
    tags: tuple
    result: dict | None
    error: str | None
    header: dict = field(repr=False, default_factory=dict)
    source: str = ""  # the output file's stem (r_reference/outputs/<source>.json); "" = the function's own

    @property
    def group(self) -> str:
        """The output group the case belongs to (its file's stem)."""
        return self.source or self.function

    @property
    def expects_error(self) -> bool:
        return self.result is None


def _output_files(root: Path, functions=None):
    """(function, stem, path) of every stored output the corpus reads, in report order; ``functions`` filters
    by sdcMicro or pysdc name (a function's further files come with it, or by their stem)."""
    for stem, (fun, _) in OUTPUT_GROUPS.items():
        if functions and fun not in functions and FUNCTIONS[fun] not in functions and stem not in functions:
            continue
        path = root / "outputs" / f"{stem}.json"
        if path.exists():
            yield fun, stem, path


def load_corpus(root=None, functions=None) -> list[Case]:
    """Every stored case, in file order (functions in report order)."""
    root = reference_dir(root)
    cases = []
    for fun, stem, path in _output_files(root, functions):
        with open(path) as fh:
            doc = json.load(fh)
        header = doc["header"]
        for c in doc["cases"]:
            error = c.get("error")
            if c.get("r_returned_null"):
                error = "sdcMicro returned NULL"
            cases.append(Case(fun, c["id"], c.get("inputs") or {}, c.get("args") or {},
                              tuple(c.get("tags") or ()), c.get("result"), error, header, stem))
    return cases


def corpus_header(root=None) -> dict:
    """Generation facts of the corpus: R/sdcMicro versions and the (latest) date."""
    root = reference_dir(root)
    dates, r_versions, sdc_versions = set(), set(), set()
    for _, _, path in _output_files(root):
        with open(path) as fh:
            h = json.load(fh)["header"]
        dates.add(h.get("date", ""))
        r_versions.add(h.get("r_version", ""))
        sdc_versions.add(h.get("sdcmicro_version", ""))
    return {"date": max(dates) if dates else "", "r_version": ", ".join(sorted(r_versions)),
            "sdcmicro_version": ", ".join(sorted(sdc_versions))}


def load_divergences(root=None) -> list[dict]:
    """The registry of known divergences (``r_reference/divergences.json``)."""
    path = reference_dir(root) / "divergences.json"
    if not path.exists():
        return []
    with open(path) as fh:
        return json.load(fh)["divergences"]


def divergence_for(case_id: str, divergences, mode: str = "native") -> dict | None:
    """The registry entry matching a case id (glob patterns allowed), or None."""
    for d in divergences:
        if d.get("applies_to", "native") not in (mode, "both"):
            continue
        if fnmatch.fnmatchcase(case_id, d["case"]):
            return d
    return None




_TABLES: dict = {}


def load_input(root: Path, name: str, raw: bool = False) -> pd.DataFrame:
    """A stored input table (cached; a fresh copy each time); ``raw``: read by ``pandas.read_csv`` as a user
    reads a CSV file (the createSdcObj section), not by pysdc's reader."""
    key = (str(root), name, raw)
    if key not in _TABLES:
        path = root / "inputs" / name
        _TABLES[key] = pd.read_csv(path) if raw else read_table(path)
    return _TABLES[key].copy()


def case_inputs(case: Case, root: Path) -> dict:
    """The case's stored inputs as frames: ``x``/``xm`` (restricted to ``columns``), ``data``, ...

    ``xm`` is a float NumPy array instead where the case says ``"xm_matrix": true`` (sdcMicro was
    given a matrix). A protection method's case has one input, ``data``, typed as its registry
    reads it (factors and columns as the case says: :func:`pysdc._registry._methods.load_case_data`).
    """
    if is_method(case.function):
        return {"data": load_case_data({"inputs": case.inputs}, root)}
    out = {k: load_input(root, v) for k, v in case.inputs.items() if isinstance(v, str) and v.endswith(".csv.gz")}
    cols = case.inputs.get("columns")
    if cols:
        for k in ("x", "xm"):
            if k in out:
                out[k] = out[k][cols]
    for k in ("x", "xm"):  # a column selection per side (e.g. different variables in x and xm)
        if case.inputs.get(f"{k}_columns") and k in out:
            out[k] = out[k][list(case.inputs[f"{k}_columns"])]
    if case.inputs.get("xm_matrix") and "xm" in out:
        # sdcMicro was given xm as a numeric matrix (as.matrix): pass a float NumPy array, which
        # pysdc pairs with x by position and the R bridge sends as an R matrix
        out["xm"] = out["xm"].to_numpy(dtype=np.float64, na_value=np.nan)
    return out
