"""Result classes shared by the native measures and the R bridge.

Every result is a small frozen dataclass with a numpydoc ``Attributes`` block,
a readable ``repr`` and, where a single number is the answer, ``float(result)``.
The R bridge (``pysdc.r``) returns these same classes.
"""

from ._base import _html_value, _Repr, _short, _Summary  # noqa: F401 (the measures' modules build on them)
from ._engine import (
    FreqCalcCombinations,
    IndivRiskCombinations,
    LDiversityCombinations,
    MeasureRiskCombinations,
)
from ._measures import (
    CIOverlapResult,
    DRiskResult,
    DUtilityResult,
    EntropyResult,
    EstimatesComparison,
    FreqCalcResult,
    HellingerResult,
    ILCorrelResult,
    ILEntropyResult,
    ILVariablesResult,
    IndivRiskResult,
    InfoLossResult,
    KAnonResult,
    LDiversityResult,
    MeasureRiskResult,
)

__all__ = [
    "DUtilityResult",
    "LDiversityResult",
    "ILCorrelResult",
    "ILVariablesResult",
    "FreqCalcResult",
    "IndivRiskResult",
    "MeasureRiskResult",
    "KAnonResult",
    "DRiskResult",
    "HellingerResult",
    "EntropyResult",
    "ILEntropyResult",
    "CIOverlapResult",
    "EstimatesComparison",
    "FreqCalcCombinations",
    "IndivRiskCombinations",
    "MeasureRiskCombinations",
    "LDiversityCombinations",
    "InfoLossResult",
]

