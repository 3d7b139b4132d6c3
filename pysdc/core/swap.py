"""Kernels of targeted record swapping (sdcMicro's ``recordSwap``), on household-level arrays.

The procedure is the one sdcMicro 5.8.0 documents (``?recordSwap``), written from that description and
from sdcMicro's observed behaviour, with pysdc's own generator (a NumPy ``Generator``): sdcMicro's C++
draws from ``std::mt19937`` and iterates hash sets, so the households it swaps for a seed are not
reproduced (a listed divergence); what it guarantees is (``tests/protect/test_protect_swap.py``).

Households are rows ``0 .. H-1``; every array below is one entry per household (or per record where
said). Loops run over hierarchy levels, areas and similarity profiles, never over households.
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_codes", "household_counts", "swap_targets", "weighted_sample", "select_and_swap"]


def group_codes(*columns: np.ndarray) -> np.ndarray:
    """0-based code of each row's combination of the non-negative integer ``columns`` (equal rows, equal
    codes; the combinations numbered in lexicographic order)."""
    if not columns:
        return np.zeros(0, dtype=np.int64)
    n = columns[0].size
    radix = [int(c.max()) + 1 if c.size else 1 for c in columns]
    if float(np.prod(np.asarray(radix, dtype=np.float64))) < 2.0**62:
        packed = np.zeros(n, dtype=np.int64)
        for c, r in zip(columns, radix):  # columns, not records
            packed *= r
            packed += c
        _, inv = np.unique(packed, return_inverse=True)
    else:
        _, inv = np.unique(np.column_stack(columns), axis=0, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)


def household_counts(geo: np.ndarray, risk_codes: np.ndarray, hh: np.ndarray, n_hh: int) -> np.ndarray:
    """(H, L): per household and hierarchy level, the smallest number of records sharing a member's
    geography down to that level and its values of the risk variables (the k-anonymity counts).

    ``geo``: (n, L) record codes of the hierarchy; ``risk_codes``: (n, R); ``hh``: record -> household.
    """
    n, levels = geo.shape
    out = np.full((n_hh, levels), np.iinfo(np.int64).max, dtype=np.int64)
    for lev in range(levels):
        key = group_codes(*(geo[:, j] for j in range(lev + 1)), *(risk_codes[:, j] for j in range(risk_codes.shape[1])))
        counts = np.bincount(key)[key] if n else np.zeros(0, dtype=np.int64)
        np.minimum.at(out[:, lev], hh, counts)
    return out


def swap_targets(area: np.ndarray, n_areas: int, swaprate: float, rng: np.random.Generator) -> np.ndarray:
    """Households to sample in each lowest-level area: ``swaprate * size / 2`` (a swap moves two
    households), rounded down or up at random so that the total is the rounded overall number."""
    size = np.bincount(area, minlength=n_areas).astype(np.float64)
    raw = swaprate * size / 2.0
    base = np.floor(raw).astype(np.int64)
    frac = raw - base
    extra = int(np.floor(raw.sum() + 0.5)) - int(base.sum())
    if extra > 0:
        pick = weighted_sample(frac, extra, rng)
        base[pick] += 1
    return base


def weighted_sample(weights: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` distinct positions drawn without replacement with probability proportional to ``weights``
    (exponential keys: the ``k`` smallest ``Exp(1) / w``); positions of weight 0 are never drawn."""
    w = np.asarray(weights, dtype=np.float64)
    ok = np.flatnonzero(w > 0)
    k = min(int(k), ok.size)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    keys = rng.exponential(size=ok.size) / w[ok]
    part = np.argpartition(keys, k - 1)[:k] if k < ok.size else np.arange(ok.size)
    return ok[part[np.argsort(keys[part], kind="stable")]]


def select_and_swap(areas: np.ndarray, risky: np.ndarray, weight: np.ndarray, profiles: list,
                    targets: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of households to swap.

    ``areas``: (H, L) code of each household's area at each level (codes of the geography down to the
    level); ``risky``: (H, L) must be swapped across that level; ``weight``: (H, L) sampling weights
    (0: never sampled nor donor); ``profiles``: one (H,) code array per similarity profile, in order;
    ``targets``: households to sample per lowest-level area.

    From the top level down, in every area: the risky households not yet swapped (at the lowest level
    also further households, drawn by weight, up to the area's target less those sampled there
    before) are paired with donors from other areas of that level that are not yet swapped and share
    their first similarity profile, drawn by weight; who finds none tries the next profile. Returns
    ``(partner, unmatched)``: each household's partner (itself when not swapped) and the households that
    had to be swapped but found no donor.
    """
    n_hh, levels = areas.shape
    partner = np.arange(n_hh, dtype=np.int64)
    swapped = np.zeros(n_hh, dtype=bool)
    sampled = np.zeros(n_hh, dtype=bool)
    unmatched = []
    lowest = areas[:, levels - 1]
    for lev in range(levels):
        area = areas[:, lev]
        w = weight[:, lev]
        order = np.argsort(area, kind="stable")
        bounds = np.flatnonzero(np.diff(area[order])) + 1
        for members in np.split(order, bounds):  # one area of this level
            if members.size == 0:
                continue
            need = members[risky[members, lev] & ~swapped[members]]
            if lev == levels - 1:
                a = int(lowest[members[0]])
                more = int(targets[a]) - int(sampled[members].sum()) - need.size
                if more > 0:
                    pool = members[~swapped[members] & ~risky[members, lev]]
                    need = np.concatenate([need, pool[weighted_sample(w[pool], more, rng)]])
            if need.size == 0:
                continue
            sampled[need] = True
            outside = area != area[members[0]]
            left = need
            for prof in profiles:
                if left.size == 0:
                    break
                still = []
                pcode = prof[left]
                for p in np.unique(pcode):  # one similarity profile
                    want = left[pcode == p]
                    cand = np.flatnonzero(outside & ~swapped & (prof == p))
                    got = cand[weighted_sample(w[cand], want.size, rng)]
                    k = got.size
                    partner[want[:k]] = got
                    partner[got] = want[:k]
                    swapped[want[:k]] = True
                    swapped[got] = True
                    if k < want.size:
                        still.append(want[k:])
                left = np.concatenate(still) if still else np.zeros(0, dtype=np.int64)
            unmatched.append(left)
    un = np.concatenate(unmatched) if unmatched else np.zeros(0, dtype=np.int64)
    return partner, np.sort(un)
