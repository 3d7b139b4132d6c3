"""Protection methods, natively and number for number with sdcMicro 5.8.0 (issue 28).

One family per module: recoding (:mod:`pysdc.protect._recode`: ``global_recode``,
``group_and_rename``, ``top_bot_coding``; :mod:`pysdc.protect._mvtopcoding`: ``mv_top_coding``), microaggregation
(:mod:`pysdc.protect._microaggregation`: ``microaggregation``, ``mafast``), perturbation on R's random stream
(:mod:`pysdc.protect._noise`: ``add_noise``; :mod:`pysdc.protect._pram`: ``pram``; :mod:`pysdc.protect._shuffle`:
``shuffle``; :mod:`pysdc.protect._rankswap`: ``rank_swap``, on sdcMicro's own C++ generator), suppression
(:mod:`pysdc.protect._suppression`: ``local_suppression``, ``local_supp``), targeted record swapping
(:mod:`pysdc.protect._swap`: ``record_swap``; its own generator, not sdcMicro's).
Each function takes a DataFrame and returns a new one; the registry of methods is
:mod:`pysdc._registry._methods`, the same functions executed by sdcMicro are in :mod:`pysdc.r`.
"""

from __future__ import annotations

from ._microaggregation import MicroaggregationResult, mafast, microaggregation
from ._mvtopcoding import mv_top_coding
from ._noise import AddNoiseResult, add_noise
from ._pram import PramResult, pram
from ._rankswap import rank_swap
from ._recode import global_recode, group_and_rename, top_bot_coding
from ._shuffle import ShuffleResult, shuffle
from ._suppression import LocalSuppressionResult, local_supp, local_suppression
from ._swap import record_swap

__all__ = ["global_recode", "group_and_rename", "top_bot_coding", "mv_top_coding", "microaggregation", "mafast",
           "MicroaggregationResult", "add_noise", "AddNoiseResult", "pram", "PramResult",
           "local_suppression", "local_supp", "LocalSuppressionResult", "record_swap", "shuffle", "ShuffleResult",
           "rank_swap"]
