"""EISPACK's symmetric eigen-solver (tred2 + tql2), the routines robustbase calls.

Used by the R-stream FAST-MCD (:mod:`pysdc.core.mcd.rstream`) for the normal vector of a
singular subset's hyperplane, where the choice among equal smallest eigenvalues must be
the one this sequence of rotations makes.
"""

from __future__ import annotations

import math

import numpy as np

from .result import _NotReproduced


def _pythag(a: float, b: float) -> float:
    p = max(abs(a), abs(b))
    if p == 0.0:
        return p
    r = (min(abs(a), abs(b)) / p) ** 2
    while True:
        t = 4.0 + r
        if t == 4.0:
            return p
        s = r / t
        u = 1.0 + 2.0 * s
        p = u * p
        r = (s / u) ** 2 * r


def _eispack_rs(A: np.ndarray):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix by Householder
    tridiagonalisation and the QL method with implicit shifts (EISPACK's tred2 + tql2, the
    routines robustbase calls; only the lower triangle of A is read).

    The step order matters where the smallest eigenvalue is multiple (a subset lying in a
    subspace of dimension < p - 1): the vector chosen for the hyperplane is the one this sequence
    of rotations produces. Scalar loops: used for the rare singular subsets, p x p only.
    """
    n = A.shape[0]
    z = [[float(A[j, i]) if j >= i else 0.0 for i in range(n)] for j in range(n)]  # z[row][col]
    d = [float(A[n - 1, i]) for i in range(n)]
    e = [0.0] * n
    if n > 1:
        for ii in range(2, n + 1):
            i = n + 2 - ii
            l_ = i - 1
            h = 0.0
            scale = 0.0
            if l_ >= 2:
                for k in range(1, l_ + 1):
                    scale = scale + abs(d[k - 1])
            if l_ < 2 or scale == 0.0:
                e[i - 1] = d[l_ - 1]
                for j in range(1, l_ + 1):
                    d[j - 1] = z[l_ - 1][j - 1]
                    z[i - 1][j - 1] = 0.0
                    z[j - 1][i - 1] = 0.0
                d[i - 1] = h
                continue
            for k in range(1, l_ + 1):
                d[k - 1] = d[k - 1] / scale
                h = h + d[k - 1] * d[k - 1]
            f = d[l_ - 1]
            g = -math.copysign(math.sqrt(h), f)
            e[i - 1] = scale * g
            h = h - f * g
            d[l_ - 1] = f - g
            for j in range(1, l_ + 1):
                e[j - 1] = 0.0
            for j in range(1, l_ + 1):
                f = d[j - 1]
                z[j - 1][i - 1] = f
                g = e[j - 1] + z[j - 1][j - 1] * f
                for k in range(j + 1, l_ + 1):
                    g = g + z[k - 1][j - 1] * d[k - 1]
                    e[k - 1] = e[k - 1] + z[k - 1][j - 1] * f
                e[j - 1] = g
            f = 0.0
            for j in range(1, l_ + 1):
                e[j - 1] = e[j - 1] / h
                f = f + e[j - 1] * d[j - 1]
            hh = f / (h + h)
            for j in range(1, l_ + 1):
                e[j - 1] = e[j - 1] - hh * d[j - 1]
            for j in range(1, l_ + 1):
                f = d[j - 1]
                g = e[j - 1]
                for k in range(j, l_ + 1):
                    z[k - 1][j - 1] = z[k - 1][j - 1] - f * e[k - 1] - g * d[k - 1]
                d[j - 1] = z[l_ - 1][j - 1]
                z[i - 1][j - 1] = 0.0
            d[i - 1] = h
        for i in range(2, n + 1):
            l_ = i - 1
            z[n - 1][l_ - 1] = z[l_ - 1][l_ - 1]
            z[l_ - 1][l_ - 1] = 1.0
            h = d[i - 1]
            if h != 0.0:
                for k in range(1, l_ + 1):
                    d[k - 1] = z[k - 1][i - 1] / h
                for j in range(1, l_ + 1):
                    g = 0.0
                    for k in range(1, l_ + 1):
                        g = g + z[k - 1][i - 1] * z[k - 1][j - 1]
                    for k in range(1, l_ + 1):
                        z[k - 1][j - 1] = z[k - 1][j - 1] - g * d[k - 1]
            for k in range(1, l_ + 1):
                z[k - 1][i - 1] = 0.0
    for i in range(n):
        d[i] = z[n - 1][i]
        z[n - 1][i] = 0.0
    z[n - 1][n - 1] = 1.0
    e[0] = 0.0
    # tql2
    if n > 1:
        for i in range(2, n + 1):
            e[i - 2] = e[i - 1]
        f = 0.0
        tst1 = 0.0
        e[n - 1] = 0.0
        c3 = s2 = 0.0
        for l_ in range(1, n + 1):
            j = 0
            h = abs(d[l_ - 1]) + abs(e[l_ - 1])
            if tst1 < h:
                tst1 = h
            for m in range(l_, n + 1):
                tst2 = tst1 + abs(e[m - 1])
                if tst2 == tst1:
                    break
            if m != l_:
                while True:
                    if j == 30:
                        raise _NotReproduced("EISPACK tql2 did not converge")
                    j += 1
                    l1 = l_ + 1
                    l2 = l1 + 1
                    g = d[l_ - 1]
                    p = (d[l1 - 1] - g) / (2.0 * e[l_ - 1])
                    r = _pythag(p, 1.0)
                    d[l_ - 1] = e[l_ - 1] / (p + math.copysign(r, p))
                    d[l1 - 1] = e[l_ - 1] * (p + math.copysign(r, p))
                    dl1 = d[l1 - 1]
                    h = g - d[l_ - 1]
                    for i in range(l2, n + 1):
                        d[i - 1] = d[i - 1] - h
                    f = f + h
                    p = d[m - 1]
                    c = 1.0
                    c2 = c
                    el1 = e[l1 - 1]
                    s = 0.0
                    for ii in range(1, m - l_ + 1):
                        c3 = c2
                        c2 = c
                        s2 = s
                        i = m - ii
                        g = c * e[i - 1]
                        h = c * p
                        r = _pythag(p, e[i - 1])
                        e[i] = s * r
                        s = e[i - 1] / r
                        c = p / r
                        p = c * d[i - 1] - s * g
                        d[i] = h + s * (c * g + s * d[i - 1])
                        for k in range(n):
                            hk = z[k][i]
                            z[k][i] = s * z[k][i - 1] + c * hk
                            z[k][i - 1] = c * z[k][i - 1] - s * hk
                    p = -s * s2 * c3 * el1 * e[l_ - 1] / dl1
                    e[l_ - 1] = s * p
                    d[l_ - 1] = c * p
                    tst2 = tst1 + abs(e[l_ - 1])
                    if not tst2 > tst1:
                        break
            d[l_ - 1] = d[l_ - 1] + f
        for ii in range(2, n + 1):
            i = ii - 1
            k = i
            p = d[i - 1]
            for jj in range(ii, n + 1):
                if d[jj - 1] < p:
                    k = jj
                    p = d[jj - 1]
            if k != i:
                d[k - 1] = d[i - 1]
                d[i - 1] = p
                for jj in range(n):
                    z[jj][i - 1], z[jj][k - 1] = z[jj][k - 1], z[jj][i - 1]
    return np.array(d), np.array(z)
