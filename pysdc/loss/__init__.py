"""Information-loss (utility) measures: sdcMicro's and the literature's.

``__all__`` holds every registry measure whose native function lives in this package, with its result class
when defined here (tests/test_adding_a_measure.py checks it against :data:`pysdc._registry.MEASURES`; the registry
sits above this package, so it cannot generate the list)."""

from ._categorical import CategoricalLossResult, il_categorical
from ._ci_overlap import ci_overlap
from ._compare_estimates import compare_estimates
from ._continuous import ContinuousLossResult, il_continuous
from ._d_utility import d_utility
from ._entropy import EntropyRiskResult, entropy, entropy_risk, il_entropy
from ._gini import GiniResult, gini
from ._gsil import GSILResult, gsil
from ._hellinger import hellinger
from ._il_correl import il_correl
from ._il_variables import il_variables
from ._info_loss import info_loss
from ._regression import RegressionComparison, compare_regression

__all__ = [
    "d_utility", "il_correl", "il_variables", "info_loss",
    "il_continuous", "il_categorical", "hellinger", "entropy", "il_entropy", "entropy_risk", "gsil",
    "ContinuousLossResult", "CategoricalLossResult", "EntropyRiskResult", "GSILResult",
    "ci_overlap", "gini", "compare_estimates", "compare_regression", "GiniResult", "RegressionComparison",
]
