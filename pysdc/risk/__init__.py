"""Disclosure-risk measures (sdcMicro's risk toolbox)."""

from ._frequency import freq_calc, indiv_risk, ldiversity, measure_risk

__all__ = ["freq_calc", "indiv_risk", "measure_risk", "ldiversity"]
