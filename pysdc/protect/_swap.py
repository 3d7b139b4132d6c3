"""Targeted record swapping (sdcMicro's ``recordSwap``), native.

The procedure sdcMicro 5.8.0 documents, with pysdc's own seeded generator: the same invariants as
sdcMicro (number of swapped households, swaps across the hierarchy, donors sharing the similarity
profile, risky households first), not the same households for the same seed -- sdcMicro's C++ draws
from its own ``std::mt19937`` (listed in ``r_reference/divergences.json``). Kernels:
:mod:`pysdc.core.swap`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._validation import Any_, Boolean, Columns, Frame, Interval, RandomState, user_stacklevel, validate_params
from ..core.swap import group_codes, household_counts, select_and_swap, swap_targets

__all__ = ["record_swap", "RECORD_SWAP_PARAMS"]


RECORD_SWAP_PARAMS = {
    "data": Frame(),
    "hid": Columns(of="data", single=True),
    "hierarchy": Columns(of="data"),
    "similar": Any_(),
    "swaprate": Interval(0, 1),
    "risk": Columns(of="data", optional=True),
    "risk_threshold": Interval(0, None),
    "k_anonymity": Interval(0, None),
    "risk_variables": Columns(of="data", optional=True),
    "carry_along": Columns(of="data", optional=True),
    "return_swapped_id": Boolean(),
    "seed": RandomState(),
}


def _codes(data: pd.DataFrame, cols: list, what: str) -> np.ndarray:
    out = np.empty((len(data), len(cols)), dtype=np.int64)
    for j, c in enumerate(cols):
        codes, _ = pd.factorize(data[c], sort=True)
        if (codes < 0).any():
            raise InvalidParameterError(f"{what} variable {c!r} has missing values; recordSwap needs complete values.")
        out[:, j] = codes
    return out


def _similar(similar, data: pd.DataFrame) -> list:
    profiles = [similar] if isinstance(similar, str) else list(similar)
    if profiles and all(isinstance(p, str) for p in profiles):
        profiles = [profiles]  # one profile of several variables, as sdcMicro reads a vector
    out = []
    for p in profiles:
        cols = [p] if isinstance(p, str) else list(p)
        miss = [c for c in cols if c not in data.columns]
        if not cols or miss:
            raise InvalidParameterError(f"similar: every profile must name columns of data; got {p!r}.")
        out.append(cols)
    if not out:
        raise InvalidParameterError("similar must name at least one profile (a list of columns).")
    return out


@validate_params(RECORD_SWAP_PARAMS)
def record_swap(
    data: pd.DataFrame,
    hid: str,
    hierarchy: list,
    similar,
    *,
    swaprate: float = 0.05,
    risk: list | None = None,
    risk_threshold: float = 0,
    k_anonymity: int = 3,
    risk_variables: list | None = None,
    carry_along: list | None = None,
    return_swapped_id: bool = False,
    seed=None,
) -> pd.DataFrame:
    """Targeted record swapping (sdcMicro's ``recordSwap``).

    Swaps the geography (``hierarchy`` and ``carry_along``) of households between areas: first the
    households at risk at each level of the hierarchy (across that level), then, at the lowest level,
    further households drawn at random up to ``swaprate``.

    Parameters
    ----------
    data : pandas.DataFrame
        Micro data, one row per person.
    hid : str
        Household id.
    hierarchy : list of str
        The geographic hierarchy, top level first (e.g. region > district).
    similar : str, list of str or list of lists of str
        Similarity profiles (household variables): a donor shares the first profile's values; who finds
        none tries the next profile.
    swaprate : float
        Share of households to swap (a swap moves two households).
    risk : list of str, optional
        Risk of each record at each hierarchy level (one column per level); replaces the k-anonymity
        rule. A household takes its members' largest risk; households above ``risk_threshold`` must be
        swapped, households of risk 0 are never swapped.
    risk_threshold : float
        See ``risk``.
    k_anonymity : int
        A household must be swapped across a level when a member's combination of the geography down to
        that level and ``risk_variables`` occurs fewer than ``k_anonymity`` times (0: none must).
    risk_variables : list of str, optional
        Variables of the k-anonymity counts.
    carry_along : list of str, optional
        Further household variables swapped with the hierarchy.
    return_swapped_id : bool
        Add the column ``<hid>_swapped``: the household each record's geography came from.
    seed : None, int or numpy.random.Generator
        Seed of pysdc's generator (not sdcMicro's: the swapped households differ from sdcMicro's for
        the same seed).

    Returns
    -------
    pandas.DataFrame
        The data ordered by ``hid`` (as sdcMicro returns them) with the geography swapped;
        ``attrs["not_swapped"]`` lists the households that had to be swapped but found no donor
        (sdcMicro writes them to its log file).

    Raises
    ------
    InvalidParameterError
        Missing values in the hierarchy, a risk column per level missing, bad profiles.

    See Also
    --------
    pysdc.info_loss, pysdc.r.record_swap

    Notes
    -----
    Sampling weights are the inverse k-anonymity counts (or ``risk``); donors come from other areas of
    the level, share the similarity profile and are not swapped yet. The number of households swapped
    is ``swaprate`` times the number of households (rounded; each lowest-level area contributes
    ``swaprate * size / 2`` draws, rounded at random), more where more households are at risk.
    sdcMicro's C++ draws from ``std::mt19937`` seeded by ``seed`` and walks hash sets, so the same seed
    gives other households in pysdc: a listed divergence; the guarantees are tested against sdcMicro's
    outputs.
    """
    profiles = _similar(similar, data)
    if risk is not None and len(risk) != len(hierarchy):
        raise InvalidParameterError(
            f"risk must name one column per hierarchy level ({len(hierarchy)}); got {risk}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    d = data.sort_values(hid, kind="stable").reset_index(drop=True)
    hh, hids = pd.factorize(d[hid], sort=True)
    if (hh < 0).any():
        raise InvalidParameterError(f"hid {hid!r} has missing values; every record needs a household.")
    n_hh = len(hids)
    first = np.flatnonzero(np.r_[True, hh[1:] != hh[:-1]])  # sorted by hid: each household's first record
    geo = _codes(d, hierarchy, "hierarchy")
    levels = geo.shape[1]
    areas = np.column_stack([group_codes(*(geo[first, j] for j in range(lev + 1))) for lev in range(levels)])
    if risk is None:
        rv = _codes(d, list(risk_variables or []), "risk") if risk_variables else np.zeros((len(d), 0), np.int64)
        counts = household_counts(geo, rv, hh, n_hh)
        weight = 1.0 / counts
        risky = counts < k_anonymity
    else:
        r = d[list(risk)].to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(r).any() or (r < 0).any():
            raise InvalidParameterError("risk must hold non-negative values without missing ones.")
        weight = np.zeros((n_hh, levels))
        for lev in range(levels):
            np.maximum.at(weight[:, lev], hh, r[:, lev])
        risky = weight > risk_threshold
    prof = [group_codes(*(pd.factorize(d[c].iloc[first], sort=True)[0] + 1 for c in cols)) for cols in profiles]
    lowest = areas[:, levels - 1]
    targets = swap_targets(lowest, int(lowest.max()) + 1 if n_hh else 0, swaprate, rng)
    partner, unmatched = select_and_swap(areas, risky, weight, prof, targets, rng)

    moved = list(hierarchy) + [c for c in (carry_along or []) if c not in hierarchy]
    for c in carry_along or []:
        varies = d.groupby(hh, sort=False)[c].nunique(dropna=False).gt(1).any()
        if varies:
            warnings.warn(f"carry_along variable {c!r} varies within households; each household takes the "
                          "values of its donor's first record (as sdcMicro).", DegenerateResultWarning,
                          stacklevel=user_stacklevel())
    src = first[partner[hh]]  # each record: the first record of its household's partner
    out = d.copy()
    for c in moved:
        out[c] = d[c].to_numpy()[src] if not isinstance(d[c].dtype, pd.CategoricalDtype) else \
            pd.Categorical.from_codes(d[c].cat.codes.to_numpy()[src], dtype=d[c].dtype)
    if return_swapped_id:
        out[f"{hid}_swapped"] = d[hid].to_numpy()[src]
    if unmatched.size:
        warnings.warn(f"{unmatched.size} household(s) had to be swapped but found no donor (sdcMicro lists "
                      "them in its log file); see result.attrs['not_swapped'].", DegenerateResultWarning,
                      stacklevel=user_stacklevel())
    out.attrs["not_swapped"] = [hids[i] for i in unmatched.tolist()]
    return out
