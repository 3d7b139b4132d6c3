"""Disclosure-risk measures (sdcMicro's risk toolbox).

``__all__`` holds every registry measure whose native function lives in this package, with its result class
when defined here (tests/test_adding_a_measure.py checks it against :data:`pysdc._registry.MEASURES`; the registry
sits above this package, so it cannot generate the list)."""

from ._distance import DRiskRMDResult, d_risk, d_risk_rmd
from ._freq_calc import freq_calc
from ._indiv_risk import indiv_risk
from ._interval_frequency import IntervalFrequencyResult, interval_frequency
from ._kanon import k_anon_violations
from ._ldiversity import ldiversity
from ._measure_risk import measure_risk
from ._model import ModRiskResult, mod_risk
from ._nn_linkage import NNLinkageResult, nn_linkage
from ._prob_linkage import ProbLinkageResult, prob_linkage
from ._record_linkage import RecordLinkageResult, record_linkage
from ._suda2 import Suda2Result, suda2

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity", "mod_risk", "ModRiskResult", "suda2", "Suda2Result",
           "k_anon_violations", "d_risk", "d_risk_rmd", "DRiskRMDResult",
           "record_linkage", "RecordLinkageResult", "nn_linkage", "NNLinkageResult", "prob_linkage",
           "ProbLinkageResult", "interval_frequency", "IntervalFrequencyResult"]
