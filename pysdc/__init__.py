"""pysdc: statistical disclosure control measures, number-for-number with sdcMicro.

Native measures (no R needed)
-----------------------------
Every measure is declared once in the registry :mod:`pysdc._registry`; this catalogue, the exports
(``__all__``) and the API reference follow it (tests/test_adding_a_measure.py). Each takes an
:class:`SdcProblem` in place of its data, and the frequency and sdcMicro loss measures a DuckDB
relation, a Spark DataFrame or :func:`pysdc.scan` (:mod:`pysdc._foreign`). sdcMicro's measures executed
by sdcMicro itself live in :mod:`pysdc.r` (importing it does not start R); plots in :mod:`pysdc.plots`
(``pip install "pysdc-measures[plots]"``). ``import pysdc`` never imports rpy2.
"""

from ._errors import (
    AlignmentWarning,
    CoercionWarning,
    DegenerateResultWarning,
    InvalidParameterError,
    NotInSdcMicroError,
    PysdcError,
    PysdcWarning,
    RCallError,
    RNotAvailableError,
    RWarning,
)
from ._registry import GROUPS as _GROUPS
from ._registry import MEASURES as _MEASURES
from ._registry import public_names as _public_names
from ._results import FreqCalcCombinations, IndivRiskCombinations, LDiversityCombinations, MeasureRiskCombinations
from ._version import __version__
from .datasets import load_demo, load_demo_pair

# pysdc.scan (issue 11): a lazy dataset over Parquet/CSV files for the DuckDB and Spark engines (neither
# engine is imported before it is used)
from .engine import scan as scan
from .problem import ProblemComparison, ProblemRisk, ProblemUtility, SdcProblem

# every registered measure and its result class, from the registry (pysdc._registry): adding an entry exports it
globals().update({m.python: m.native for m in _MEASURES})
globals().update({m.result.__name__: m.result for m in _MEASURES if m.result.__module__.startswith("pysdc")})

# the package docstring's catalogue of the measures, by group (from the registry)
__doc__ = (__doc__ or "") + "\n" + "\n".join(
    f"{title}: " + ", ".join(f":func:`{m.python}`" + (f" (sdcMicro's {m.r})" if m.r else "") for m in entries) + "."
    for title, entries in _GROUPS) + "\n"

# the registry's measures and result classes (pysdc._registry.public_names()), then the rest, by hand
__all__ = [
    *_public_names(),
    # the same measures on an engine, per key combination
    "FreqCalcCombinations", "IndivRiskCombinations", "MeasureRiskCombinations", "LDiversityCombinations",
    # an SDC problem stated once (sdcMicro's createSdcObj, natively) and its results
    "SdcProblem", "ProblemRisk", "ProblemUtility", "ProblemComparison",
    # data, errors, warnings
    "load_demo", "load_demo_pair",
    "PysdcError", "InvalidParameterError", "NotInSdcMicroError", "RNotAvailableError", "RCallError",
    "PysdcWarning", "DegenerateResultWarning", "CoercionWarning", "AlignmentWarning", "RWarning",
    "__version__",
]
