"""Rank swapping after sdcMicro 5.8.0's ``rankSwap`` on a data.frame (:mod:`pysdc.core.rankswap`).

Not number for number: sdcMicro's C++ has its own generator seeded by ``seed`` (the clock when None); pysdc
seeds NumPy's generator with it, so other records are swapped (listed in ``r_reference/divergences.json``).
The bridge (``pysdc.r.call("rankSwap", ...)`` or ``SdcObj``) gives sdcMicro's own swaps.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._validation import Any_, Columns, Frame, Interval, RandomState, check_real, user_stacklevel, validate_params
from ..core.rankswap import rank_range, rank_swap_column

__all__ = ["rank_swap"]


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data", optional=True),
    "top_percent": Interval(0, 100),
    "bottom_percent": Interval(0, 100),
    "p": Any_(),
    "r0": Any_(),
    "seed": RandomState(),
})
def rank_swap(data, variables=None, top_percent: float = 5, bottom_percent: float = 5, p=None, r0=None,
              seed=None) -> pd.DataFrame:
    """Swap the values of numeric variables within a rank range, after sdcMicro's ``rankSwap``.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    variables : list of str, optional
        The numeric variables (default: every column).
    top_percent, bottom_percent : float
        The ``ceil(n percent / 100) - 1`` largest (smallest) values are replaced by their mean (as sdcMicro).
    p : float, optional
        The rank range in percent of the records (``|i - j| <= p n / 100``, as documented). sdcMicro 5.8.0
        reads P as a fraction of the records (P = 0.5: half of them; P >= 1: any two records): pysdc keeps the
        documented meaning.
    r0 : float, optional
        Without ``p``: the correlation to preserve, default 0.95 (sdcMicro's); the range is
        ``n sqrt(1 - r0) / 4`` ranks (sdcMicro's observed range).
    seed : None, int or numpy Generator
        Seeds pysdc's generator (not sdcMicro's: other records are swapped for the same seed).

    Returns
    -------
    DataFrame
        A copy of ``data`` with the variables swapped (missing values stay missing).
    """
    if p is not None:
        p = check_real("p", p, low=0, high=100, low_open=True)
    if r0 is not None:
        r0 = check_real("r0", r0, low=0, high=1)
    variables = list(variables) if variables is not None else list(data.columns)
    for v in variables:
        s = data[v]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "iuf":
            raise InvalidParameterError(f"rank_swap: variable {v!r} must be numeric; got dtype {s.dtype}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    out = data.copy()
    for v in variables:
        x = data[v].to_numpy(dtype=np.float64, na_value=np.nan)
        ok = ~np.isnan(x)
        width = rank_range(int(ok.sum()), p, r0)
        col = x.copy()
        col[ok] = rank_swap_column(x[ok], top_percent, bottom_percent, width, rng)
        out[v] = col
    if p is not None and r0 is not None:
        warnings.warn("rank_swap: p given, r0 ignored.", UserWarning, stacklevel=user_stacklevel())
    return out
