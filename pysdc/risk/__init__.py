"""Disclosure-risk measures (sdcMicro's risk toolbox)."""

from ._distance import DRiskRMDResult, d_risk, d_risk_rmd
from ._frequency import freq_calc, indiv_risk, ldiversity, measure_risk
from ._kanon import k_anon_violations
from ._model import ModRiskResult, mod_risk
from ._suda2 import Suda2Result, suda2

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity", "mod_risk", "ModRiskResult", "suda2", "Suda2Result",
           "k_anon_violations", "d_risk", "d_risk_rmd", "DRiskRMDResult"]
