"""pysdc: statistical disclosure control measures, number-for-number with sdcMicro.

Native measures (no R needed)
-----------------------------
Information loss: :func:`d_utility`, :func:`il_correl`, :func:`il_variables`.
Disclosure risk: :func:`freq_calc`, :func:`indiv_risk`, :func:`measure_risk`,
:func:`ldiversity`.

The same functions executed by sdcMicro itself live in :mod:`pysdc.r`
(importing it does not start R). ``import pysdc`` never imports rpy2.
"""

from ._errors import (
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
    FreqCalcResult,
    ILCorrelResult,
    ILVariablesResult,
    IndivRiskResult,
    MeasureRiskResult,
)
from .loss import d_utility, il_correl, il_variables
from .risk import freq_calc, indiv_risk, ldiversity, measure_risk
from .datasets import load_demo, load_demo_pair

__version__ = "0.1.0"

__all__ = [
    "d_utility",
    "il_correl",
    "il_variables",
    "freq_calc",
    "indiv_risk",
    "measure_risk",
    "ldiversity",
    "load_demo",
    "load_demo_pair",
    "ILCorrelResult",
    "ILVariablesResult",
    "FreqCalcResult",
    "IndivRiskResult",
    "MeasureRiskResult",
    "PysdcError",
    "InvalidParameterError",
    "RNotAvailableError",
    "RCallError",
    "PysdcWarning",
    "DegenerateResultWarning",
    "CoercionWarning",
    "RWarning",
    "__version__",
]
