"""The one registry of pysdc's measures: names, arguments, fields, constraints, bridge, parity.

Every place that lists the measures reads this module: the package exports
(``pysdc.__all__``), the R bridge (:mod:`pysdc.r` builds one wrapper per entry, with the
native signature), the parity runner (:mod:`pysdc.parity` runs and compares each stored
case through the entry's ``run_case``/``compare_case``), the common tests
(``tests/test_common.py`` loops over :data:`MEASURES`), the docs' name table and measure
catalogue (``docs/_generate.py``, at build time; ``python -m pysdc._registry`` prints the table),
``r_reference/regenerate.sh`` (``--r-names``) and the benchmarks. Python names are snake_case versions of sdcMicro's names; the literature's
``fk``/``Fk`` are kept as they are (they would collide in snake_case).

How to add a measure
--------------------
1. **Its native function** in ``pysdc/risk/_<name>.py`` or ``pysdc/loss/_<name>.py``
   (numeric kernel in ``pysdc/core/<name>.py``), its options keyword-only, decorated with
   ``@measure({...}, selects=..., engine=..., by_name=..., paired=...)`` from :mod:`pysdc._foreign`:
   the constraints of its parameters from :mod:`pysdc._validation` (``Frame``, ``Columns``,
   ``Interval``, ``Options``, ``Boolean``, ``RandomState``... -- the bridge validates from the
   same declaration and the tests generate the invalid values from it), what an SdcProblem in
   place of its data stands for (``selects``), the engine function that computes it on a DuckDB
   relation / Spark DataFrame or why it does not run there (``engine``), and how ``x`` and ``xm``
   are paired; :class:`Measure` reads them there (``params``, ``selects``, ``engine`` ...). It returns
   a result class (``@dataclass(frozen=True, eq=False, repr=False)`` deriving from
   ``pysdc._results._Repr``).
2. **Its R reference**: ``r_reference/make_cases_<RName>.py`` writes
   ``r_reference/cases/<RName>.json`` (the case list over stored inputs), and
   ``r_reference/generate_<RName>.R`` writes ``r_reference/outputs/<RName>.json``
   (``ref_generate``; run ``Rscript generate_<RName>.R`` in ``r_reference/``).
3. **One entry** in its family's module (``_sdcmicro.py``: sdcMicro's first measures;
   ``_toolbox.py``: the handbook's risk toolbox; ``_literature.py`` and ``_checks.py``:
   native-only literature measures and analysts' checks, ``r=""``, ``bridge=False``), which
   :data:`MEASURES` concatenates: ``Measure(python, r, family, native, result, arguments=...,
   fields=..., defaults=..., run_case=..., compare_case=..., description=..., citation=..., section=...)``
   (``description``, ``citation`` and the report ``section`` are what reports show), where
   ``run_case(fn, args, inputs, expected) -> dict`` calls ``fn`` (native or bridge) with a
   stored case's R arguments ``args`` on its loaded ``inputs`` and returns the fields as
   sdcMicro's JSON stores them, and ``compare_case(c, expected, actual, args, mode)``
   compares them with :class:`pysdc.parity.Comparer` (``c.value``, ``c.rows``). Options
   sdcMicro lacks go in ``r_requires``; a bridge that needs more than renaming arguments and
   reading result components gets ``to_r``/``from_r`` hooks (see the entries in ``_sdcmicro.py``).
   Nothing lists it elsewhere: ``pysdc``'s exports and docstring catalogue, the API reference
   (``docs/reference/api.md``, generated at build time from :data:`GROUPS`), the README's catalogue
   (``python docs/_generate.py --readme``; a test checks the committed block is current) follow the entry.
4. **Its place in the assessment** (optional): ``assess="linkage"`` with ``shows=(Shown(key, label, fmt), ...)``
   makes :meth:`pysdc.SdcProblem.risk` compute it on the masked numeric variables, the ``pysdc-risk-1``
   model hold the numbers named in ``shows``, the text and HTML reports show the labelled ones, and
   ``pysdc risk --numeric --masked`` report it (docs/development.md, "Adding a measure").

Nothing else changes: the export, the bridge wrapper, the parity report, the CLI's
``parity --function`` choice, the common and invalid-value tests all follow the entry
(tests/test_adding_a_measure.py checks that no hand list came back).
"""

from __future__ import annotations

import sys

from ._checks import ENTRIES as _CHECKS
from ._linkage import ENTRIES as _LINKAGE
from ._literature import ENTRIES as _LITERATURE
from ._measure import ASSESSMENTS, Measure, Shown, _loss_pair, _risk_frame, native_arguments  # noqa: F401 (tests use the examples)
from ._sdcmicro import ENTRIES as _SDCMICRO
from ._swapping import ENTRIES as _SWAPPING
from ._toolbox import ENTRIES as _TOOLBOX

__all__ = ["Measure", "Shown", "MEASURES", "GROUPS", "ASSESSMENTS", "by_python_name", "by_r_name", "assessed",
           "markdown_table", "public_names", "native_arguments", "catalogue_markdown"]

#: every measure, in report order: sdcMicro's first measures, the risk toolbox, the literature's and the
#: analysts' checks (both native only)
MEASURES: tuple[Measure, ...] = (*_SDCMICRO, *_SWAPPING, *_TOOLBOX, *_LINKAGE, *_LITERATURE, *_CHECKS)

#: the measures by group, with the group's title (the API reference's and the catalogues' headings)
GROUPS: tuple[tuple[str, tuple[Measure, ...]], ...] = (
    ("sdcMicro's measures", (*_SDCMICRO, *_SWAPPING)),
    ("The handbook's risk toolbox", _TOOLBOX),
    ("Record linkage", _LINKAGE),
    ("The literature's measures (native only)", _LITERATURE),
    ("The analysts' utility checks (native only)", _CHECKS),
)

_BY_PY = {m.python: m for m in MEASURES}
_BY_R = {m.r: m for m in MEASURES if m.r}


def by_python_name(name: str) -> Measure:
    """The entry of ``pysdc.<name>``."""
    return _BY_PY[name]


def by_r_name(name: str) -> Measure:
    """The entry of sdcMicro's ``<name>``."""
    return _BY_R[name]


def assessed(kind: str) -> tuple[Measure, ...]:
    """The measures :class:`pysdc.SdcProblem` assesses the ``kind`` way (:data:`ASSESSMENTS`), in registry order."""
    if kind not in ASSESSMENTS or not kind:
        raise ValueError(f"kind must be one of {ASSESSMENTS[1:]}; got {kind!r}")
    return tuple(m for m in MEASURES if m.assess == kind)


def public_names() -> list[str]:
    """The exported names that follow from the registry: functions, then result classes."""
    results = [m.result.__name__ for m in MEASURES if m.result.__module__.startswith("pysdc")]
    return [m.python for m in MEASURES] + list(dict.fromkeys(results))


def markdown_table() -> str:
    """The R -> Python name table as Markdown (docs/reference/names.md embeds this output verbatim)."""
    rows = ["| sdcMicro (R) | pysdc (Python) | arguments (R → Python) | result fields (R → Python) |",
            "|---|---|---|---|"]
    for m in (m for m in MEASURES if m.r):
        args = ", ".join(
            f"`{r}` → `{py}`" if r else f"— → `{py}` (pysdc only)" for py, r in m.arguments.items()
        )
        flds = ", ".join(
            f"`{r}` → `{py}`" if r else f"`{py}` (pysdc only)" for py, r in m.fields.items()
        )
        rows.append(f"| `{m.r}` | `pysdc.{m.python}` | {args} | {flds} |")
    native = [m for m in MEASURES if not m.r]
    if native:
        rows += ["", "Measures without an sdcMicro counterpart (native only, not in `pysdc.r`):", "",
                 "| pysdc (Python) | family | what | result fields |", "|---|---|---|---|"]
        for m in native:
            flds = ", ".join(f"`{py}`" for py in m.fields) or f"`{m.result.__name__}`"
            rows.append(f"| `pysdc.{m.python}` | {m.family} | {m.notes} | {flds} |")
    return "\n".join(rows)


def catalogue_markdown() -> str:
    """The measure catalogue as a Markdown list by group (the README embeds it between markers;
    ``python docs/_generate.py --readme`` writes it)."""
    out = []
    for title, entries in GROUPS:
        if all(m.question for m in entries):  # a group whose entries all declare their question: with it
            out.append(f"- **{title}**, which question each answers:")
            out += [f"  - `{m.python}`" + (f" (`{m.r}`)" if m.r else "") + f": {m.question[0]}" for m in entries]
            continue
        names = ", ".join(f"`{m.python}`" + (f" (`{m.r}`)" if m.r else "") for m in entries)
        out.append(f"- **{title}**: {names}.")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m pysdc._registry``: the name table; ``--r-names``: sdcMicro names, one a line."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--r-names"]:
        print("\n".join(m.r for m in MEASURES if m.r))
    else:
        print(markdown_table())
    return 0


