"""R's normal draws one value at a time: the plain definitions the vectorised paths of pysdc.core.rdist are
checked against, bit for bit (tests/core/test_rrandom_fast.py, tests/protect/test_protect_speedups.py).

Written from R's algorithms, not from pysdc's code: AS 241 (Wichura 1988) as R's qnorm evaluates it, and R's
default normal generator (Inversion), one normal from two uniforms.
"""

from __future__ import annotations

import math

import numpy as np

from pysdc.core.rdist import _A, _B, _C, _D, _E, _F

#: 2^27: R's Inversion makes one normal of qnorm((floor(2^27 u1) + u2) / 2^27)
BIG = 134217728.0


def _poly(coef, r):
    acc = r * coef[7] + coef[6]
    for c in coef[5::-1]:
        acc = acc * r + c
    return acc


def qnorm_scalar(p: float) -> float:
    """AS 241 (Wichura 1988) for one p in (0, 1), as R's qnorm evaluates it, with math.log (the C library's)."""
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _poly(_A, r) / _poly(_B, r)
    r = 0.5 - p + 0.5 if q > 0 else p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        val = _poly(_C, r) / _poly(_D, r)
    else:
        r -= 5.0
        val = _poly(_E, r) / _poly(_F, r)
    return -val if q < 0 else val


def inversion(u1: float, u2: float) -> float:
    """The uniform R's Inversion gives qnorm, made of two uniforms: (floor(2^27 u1) + u2) / 2^27."""
    return (math.floor(BIG * u1) + u2) / BIG


def norm_rand_scalar(u) -> np.ndarray:
    """R's rnorm of the uniforms ``u`` (two a draw), value by value."""
    u = [float(v) for v in u]
    return np.array([qnorm_scalar(inversion(u[2 * i], u[2 * i + 1])) for i in range(len(u) // 2)])
