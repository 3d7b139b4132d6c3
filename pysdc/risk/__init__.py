"""Disclosure-risk measures (sdcMicro's risk toolbox)."""

from ._frequency import freq_calc, indiv_risk, ldiversity, measure_risk
from ._model import ModRiskResult, mod_risk
from ._suda2 import Suda2Result, suda2

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity", "mod_risk", "ModRiskResult", "suda2", "Suda2Result"]
