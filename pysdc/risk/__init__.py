"""Disclosure-risk measures (sdcMicro's risk toolbox)."""

from ._distance import DRiskRMDResult, d_risk, d_risk_rmd
from ._freq_calc import freq_calc
from ._indiv_risk import indiv_risk
from ._kanon import k_anon_violations
from ._ldiversity import ldiversity
from ._measure_risk import measure_risk
from ._model import ModRiskResult, mod_risk
from ._suda2 import Suda2Result, suda2

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity", "mod_risk", "ModRiskResult", "suda2", "Suda2Result",
           "k_anon_violations", "d_risk", "d_risk_rmd", "DRiskRMDResult"]
