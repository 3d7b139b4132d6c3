"""Rank swapping as sdcMicro 5.8.0's ``rankSwap`` on a data.frame (:mod:`pysdc.core.rankswap`).

Number for number sdcMicro's for an int ``seed`` (its C++ generator, :mod:`pysdc.core.tausworthe`, not R's
``set.seed``); ``seed=None`` seeds from fresh entropy (sdcMicro: from the clock), so no run is repeatable.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._validation import Any_, Columns, Frame, Interval, RandomState, check_real, user_stacklevel, validate_params
from ..core.rankswap import rank_swap_matrix

__all__ = ["rank_swap"]

_SEED_MAX = 2 ** 31 - 1  # sdcMicro's seed is an R integer


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
    """Swap the values of numeric variables within a rank range: sdcMicro's ``rankSwap``, value for value.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    variables : list of str, optional
        The numeric variables (default: every column).
    top_percent, bottom_percent : float
        Per variable, the ``trunc(n * percent * 0.01)`` (single precision, as sdcMicro: 4 of 100 records at 5
        percent) largest (smallest) non-missing values are replaced by their mean.
    p : float, optional
        The rank range in percent of the records (as documented by sdcMicro; sdcMicro 5.8.0 itself reads its
        ``P`` as a fraction, so ``p`` here is sdcMicro's ``P = p / 100``, which the bridge passes).
    r0 : float, optional
        Without ``p``: the correlation to preserve, default 0.95 (sdcMicro's); the window is sdcMicro's
        ``sqrt(2 var (1 - r0)) / |b - t|`` of the records (see :mod:`pysdc.core.rankswap`).
    seed : None, int or numpy Generator
        sdcMicro's ``seed`` (0 to 2**31 - 1): the same int gives sdcMicro's output exactly. ``None``: a seed
        from fresh entropy (sdcMicro takes the clock's milliseconds), not repeatable and not comparable. A
        Generator: a seed drawn from it (repeatable with the generator, but no sdcMicro call corresponds).

    Returns
    -------
    DataFrame
        A copy of ``data`` with the variables swapped (as doubles; missing values stay missing).

    Notes
    -----
    Exact against sdcMicro 5.8.0 (``tests/protect/test_rankswap_exact.py``), except where sdcMicro has no
    defined result, for which pysdc warns: a top or bottom percent that leaves one extreme group empty but not
    the other (sdcMicro's C++ indexes outside its hash table; R aborted in the cases observed; pysdc then
    orders the values correctly), and a draw of exactly 1.0 from sdcMicro's single-precision generator (about
    one swap in 3e7; sdcMicro reads one past its candidate list, pysdc takes the last candidate). Infinite
    values are refused (sdcMicro's hash sort is undefined for them). sdcMicro's ``K0`` is not offered.
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
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, _SEED_MAX, endpoint=True))
    elif seed is None:
        seed = int(np.random.default_rng().integers(0, _SEED_MAX, endpoint=True))
    elif seed > _SEED_MAX:
        raise InvalidParameterError(f"seed must be at most 2**31 - 1 (sdcMicro's seed is an R integer); got {seed}.")
    x = np.column_stack([data[v].to_numpy(dtype=np.float64, na_value=np.nan) for v in variables]) if variables \
        else np.zeros((len(data), 0))
    if np.isinf(x).any():
        bad = [v for i, v in enumerate(variables) if np.isinf(x[:, i]).any()]
        raise InvalidParameterError(f"rank_swap: variables {bad} have infinite values; sdcMicro's rankSwap sorts "
                                    "values by hashing their range, which is undefined for infinite values.")
    if p is not None and r0 is not None:
        warnings.warn("rank_swap: p given, r0 ignored.", UserWarning, stacklevel=user_stacklevel())
    swapped, undefined = rank_swap_matrix(x, top_percent, bottom_percent, None if p is None else p / 100.0, r0,
                                          seed)
    if undefined:
        names = "; ".join(f"{variables[col]!r}: {what}" for col, what in undefined)
        warnings.warn(f"rank_swap: sdcMicro 5.8.0 has no defined result here ({names}); pysdc's output has no "
                      "sdcMicro counterpart (see rank_swap's Notes).", UserWarning, stacklevel=user_stacklevel())
    out = data.copy()
    for i, v in enumerate(variables):
        out[v] = swapped[:, i]
    return out
