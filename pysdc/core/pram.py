"""Kernels of sdcMicro's ``pram`` (issue 28, family 4): the invariant transition matrix and the draws.

Observed arithmetic of sdcMicro 5.8.0 (R 4.2.2), pinned by ``r_reference/outputs/pram.json``:

- diagonal ``d = runif(L, pd, 1)`` (L uniforms from R's stream), off-diagonal of row i ``(1 - d_i)/(L - 1)``;
- ``p = counts / sum(category codes)`` (sdcMicro divides the counts by the sum of the 1-based codes of
  the values, not by their number; the matrix does not depend on the scale of p, its last bits do);
- ``s_k = sum_j p_j P_jk`` (R's ``sum``: long double), ``Q_kj = P_jk * p_j / s_k``, ``R = P Q`` (reference
  BLAS order), ``Rs = alpha * R + (1 - alpha) * I``;
- each category's records, in record order, draw ``sample(levels, m, prob = Rs[i, ], replace = TRUE)``.
"""

from __future__ import annotations

import numpy as np

from .noise import blas_matmul
from .rdist import sample_prob
from .rrandom import RRandom

__all__ = ["invariant_matrix", "pram_draw"]

_LD = np.longdouble


def invariant_matrix(codes: np.ndarray, n_levels: int, pd: float, alpha: float, rr: RRandom) -> np.ndarray:
    """sdcMicro's invariant PRAM matrix for the 0-based category codes of one stratum (no NA)."""
    L = n_levels
    pds = rr.runif(L, pd, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tri = (1 - pds) / (L - 1)
        P = np.repeat(tri[:, None], L, axis=1)
        P[np.arange(L), np.arange(L)] = pds
        counts = np.bincount(codes, minlength=L).astype(np.float64)
        total = float(np.cumsum((codes + 1).astype(np.float64))[-1]) if codes.size else 0.0
        p = counts / total
        prod = (p[:, None] * P).astype(_LD)
        s = np.array([np.cumsum(prod[:, k])[-1] for k in range(L)], dtype=_LD).astype(np.float64)
        Q = (P.T * p[None, :]) / s[:, None]
        R = blas_matmul(P, Q)
        return alpha * R + (1 - alpha) * np.eye(L)


def pram_draw(codes: np.ndarray, rs: np.ndarray, rr: RRandom) -> np.ndarray:
    """New 0-based codes: the records of category i (in record order) drawn with probabilities ``rs[i]``."""
    out = codes.copy()
    if codes.size == 0:
        return out
    L = rs.shape[0]
    for i in range(L):  # categories in level order (not records)
        idx = np.flatnonzero(codes == i)
        if idx.size:
            out[idx] = sample_prob(rr, L, idx.size, True, rs[i]) - 1
    return out
