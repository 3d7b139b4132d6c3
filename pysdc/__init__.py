"""pysdc: statistical disclosure control measures, number-for-number with sdcMicro.

Native measures (no R needed)
-----------------------------
Information loss as sdcMicro computes it: :func:`d_utility`, :func:`il_correl`,
:func:`il_variables`, and for targeted record swapping :func:`info_loss` (sdcMicro's infoLoss);
as the literature defines it (native only): :func:`il_continuous`,
:func:`il_categorical`, :func:`hellinger`, :func:`entropy`, :func:`il_entropy`, :func:`gsil`.
Disclosure risk: :func:`freq_calc`, :func:`indiv_risk`, :func:`measure_risk`,
:func:`ldiversity`; the handbook's toolbox: :func:`suda2` (special uniques),
:func:`k_anon_violations`, :func:`mod_risk` (log-linear model risk), :func:`d_risk` and
:func:`d_risk_rmd` (interval and robust-distance risk for continuous variables);
:func:`entropy_risk` (literature, native only); record linkage of the masked to the original records:
:func:`record_linkage` (sdcMicro's recordLinkage), :func:`nn_linkage` and :func:`prob_linkage` (native
only). The analysts' checks of the practice guide (native
only): :func:`gini`, :func:`ci_overlap`, :func:`compare_estimates`, :func:`compare_regression`;
plots in :mod:`pysdc.plots` (``pip install "pysdc-measures[plots]"``).

Every measure is declared once in the registry :mod:`pysdc._registry` (tests/test_foreign_args.py checks that
this catalogue names every entry); each takes an :class:`SdcProblem` in place of its data, and the frequency
and sdcMicro loss measures a DuckDB relation, a Spark DataFrame or :func:`pysdc.scan` (:mod:`pysdc._foreign`).
sdcMicro's measures executed by sdcMicro itself live in :mod:`pysdc.r` (importing it does not start R).
``import pysdc`` never imports rpy2.
"""

from ._errors import (
    AlignmentWarning,
    CoercionWarning,
    DegenerateResultWarning,
    InvalidParameterError,
    PysdcError,
    PysdcWarning,
    RCallError,
    RNotAvailableError,
    RWarning,
)
from ._results import (
    CIOverlapResult,
    DRiskResult,
    DUtilityResult,
    EntropyResult,
    EstimatesComparison,
    FreqCalcCombinations,
    FreqCalcResult,
    HellingerResult,
    ILCorrelResult,
    ILEntropyResult,
    ILVariablesResult,
    IndivRiskCombinations,
    IndivRiskResult,
    InfoLossResult,
    KAnonResult,
    LDiversityCombinations,
    LDiversityResult,
    MeasureRiskCombinations,
    MeasureRiskResult,
)
from ._version import __version__
from .datasets import load_demo, load_demo_pair

# pysdc.scan (issue 11): a lazy dataset over Parquet/CSV files for the DuckDB and Spark engines (neither
# engine is imported before it is used)
from .engine import scan as scan
from .loss import (
    CategoricalLossResult,
    ContinuousLossResult,
    EntropyRiskResult,
    GiniResult,
    GSILResult,
    RegressionComparison,
    ci_overlap,
    compare_estimates,
    compare_regression,
    d_utility,
    entropy,
    entropy_risk,
    gini,
    gsil,
    hellinger,
    il_categorical,
    il_continuous,
    il_correl,
    il_entropy,
    il_variables,
    info_loss,
)
from .problem import ProblemComparison, ProblemRisk, ProblemUtility, SdcProblem
from .risk import (
    DRiskRMDResult,
    ModRiskResult,
    NNLinkageResult,
    ProbLinkageResult,
    RecordLinkageResult,
    Suda2Result,
    d_risk,
    d_risk_rmd,
    freq_calc,
    indiv_risk,
    k_anon_violations,
    ldiversity,
    measure_risk,
    mod_risk,
    nn_linkage,
    prob_linkage,
    record_linkage,
    suda2,
)

# explicit, so that editors and type checkers see every name; tests/docs/test_docs.py checks that
# this list and the registry (pysdc._registry.MEASURES) agree
__all__ = [
    # sdcMicro's measures
    "d_utility", "il_correl", "il_variables", "freq_calc", "indiv_risk", "measure_risk", "ldiversity",
    # information loss after targeted record swapping (sdcMicro's infoLoss)
    "info_loss",
    # the handbook's risk toolbox
    "suda2", "k_anon_violations", "mod_risk", "d_risk", "d_risk_rmd",
    # record linkage (recordLinkage: sdcMicro 5.8.1; the others native only)
    "record_linkage", "nn_linkage", "prob_linkage",
    # the literature's measures (native only)
    "il_continuous", "il_categorical", "hellinger", "entropy", "il_entropy", "entropy_risk", "gsil",
    # the analysts' utility checks (native only)
    "ci_overlap", "gini", "compare_estimates", "compare_regression",
    # result classes
    "DUtilityResult", "ILCorrelResult", "ILVariablesResult", "FreqCalcResult", "IndivRiskResult",
    "MeasureRiskResult", "LDiversityResult", "Suda2Result", "ModRiskResult", "DRiskRMDResult",
    "RecordLinkageResult", "NNLinkageResult", "ProbLinkageResult",
    "ContinuousLossResult", "CategoricalLossResult",
    "EntropyRiskResult", "GSILResult", "GiniResult", "RegressionComparison",
    "KAnonResult", "DRiskResult", "HellingerResult", "EntropyResult", "ILEntropyResult", "CIOverlapResult",
    "EstimatesComparison", "InfoLossResult",
    # the same measures on an engine, per key combination
    "FreqCalcCombinations", "IndivRiskCombinations", "MeasureRiskCombinations", "LDiversityCombinations",
    # an SDC problem stated once (sdcMicro's createSdcObj, natively) and its results
    "SdcProblem", "ProblemRisk", "ProblemUtility", "ProblemComparison",
    # data, errors, warnings
    "load_demo", "load_demo_pair",
    "PysdcError", "InvalidParameterError", "RNotAvailableError", "RCallError",
    "PysdcWarning", "DegenerateResultWarning", "CoercionWarning", "AlignmentWarning", "RWarning",
    "__version__",
]
