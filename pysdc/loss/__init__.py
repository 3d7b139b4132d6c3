"""Information-loss (utility) measures: sdcMicro's and the literature's."""

from ._sdcmicro import d_utility, il_correl, il_variables

__all__ = ["d_utility", "il_correl", "il_variables"]
