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
   Export the function and its result class explicitly in ``pysdc/__init__.py`` (a test
   checks that the exports and the registry agree), and to ``docs/reference/api.md`` (a test checks that the API
   reference has every exported name); the docs' name table and catalogue follow the entry when they are built.

Nothing else changes: the export, the bridge wrapper, the parity report, the CLI's
``parity --function`` choice, the common and invalid-value tests all follow the entry.
"""

from __future__ import annotations

import sys

from ._checks import ENTRIES as _CHECKS
from ._linkage import ENTRIES as _LINKAGE
from ._literature import ENTRIES as _LITERATURE
from ._measure import Measure, _loss_pair, _risk_frame, native_arguments  # noqa: F401 (tests use the examples)
from ._sdcmicro import ENTRIES as _SDCMICRO
from ._swapping import ENTRIES as _SWAPPING
from ._toolbox import ENTRIES as _TOOLBOX

__all__ = ["Measure", "MEASURES", "by_python_name", "by_r_name", "markdown_table", "public_names",
           "native_arguments"]

#: every measure, in report order: sdcMicro's first measures, the risk toolbox, the literature's and the
#: analysts' checks (both native only)
MEASURES: tuple[Measure, ...] = (*_SDCMICRO, *_SWAPPING, *_TOOLBOX, *_LINKAGE, *_LITERATURE, *_CHECKS)

_BY_PY = {m.python: m for m in MEASURES}
_BY_R = {m.r: m for m in MEASURES if m.r}


def by_python_name(name: str) -> Measure:
    """The entry of ``pysdc.<name>``."""
    return _BY_PY[name]


def by_r_name(name: str) -> Measure:
    """The entry of sdcMicro's ``<name>``."""
    return _BY_R[name]


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


def main(argv: list[str] | None = None) -> int:
    """``python -m pysdc._registry``: the name table; ``--r-names``: sdcMicro names, one a line."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--r-names"]:
        print("\n".join(m.r for m in MEASURES if m.r))
    else:
        print(markdown_table())
    return 0


