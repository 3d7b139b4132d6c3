"""MASS's ``rlm(..., method = "MM")`` and the S-estimate ``lqs(..., method = "S")`` it starts from (MASS 7.3-58),
as sdcMicro's ``shuffle(regmethod = "MM")`` calls them (issue 28, family 4).

Written from MASS's documentation, its R-level code and its observed results (coefficients, scales, the state of
R's random stream before and after), not from its C source. What ``lqs(x, y, intercept = FALSE, method = "S",
k0 = 1.548)`` does, as observed:

- subsets of ``p`` records (``p`` columns of ``x``): all of them in lexicographic order when there are fewer than
  5000, else ``min(500 p, 3000)`` drawn from R's stream (``(int)(n * unif_rand())`` without replacement, ``p``
  uniforms a subset); each subset's exact fit (LINPACK's QR; a rank-deficient subset is skipped and counted);
- the S-scale of a subset's residuals ``r`` approaches ``sum(chi(r / s)) = target = (n - p) / 2`` with Tukey's
  ``chi(u) = 3 t - 3 t^2 + t^3``, ``t = min(1, (u / k0)^2)``, by the fixed-point step
  ``s <- s sqrt(sum(chi(r / s)) / target)`` until ``|sum / target - 1| < 1e-4`` (the last step kept), at most
  30 steps. The first usable subset starts from its ``floor(n / 2) + 1``-th smallest ``|r|`` divided by 0.6745;
  a later one only if ``sum(chi(r / best)) < target`` (its scale is then below the best), started from the best
  scale; the smallest scale wins (the first on ties). Where it is 0 (MASS stops) or rounding noise (at most
  ``EXACT_FIT_SCALE`` times the largest ``|y|``: half of the records on one fit, where MASS's result depends on
  the last bits of every fit), pysdc stops, saying so;
- then, in R, the reweighting steps of ``lqs`` with weights ``(1 - min(1, |r / (k0 s)|)^2)^2`` and the scale
  updated as above until it changes by less than 1e-5 relative (``lqs`` keeps the best subset's coefficients:
  the refined ones go to a misspelt field, ``coefficents``), and ``rlm``'s iteratively reweighted least
  squares with Tukey's bisquare (``c = 4.685``) at that fixed scale, stopping when the residuals change by
  at most 1e-4 (relative, in norm) or after 20 steps (MASS warns).

Weights (``wt.method = "inv.var"``): ``x`` and ``y`` are multiplied by the square roots of the weights first.

Pinned by ``r_reference/outputs/shuffle_mm.json`` (sdcMicro's shuffle) and by the live tests of
``tests/protect/test_shuffle_mm.py`` (MASS itself: the same best subset and stream position, coefficients and
scales within ``pysdc._tolerances``' ``("rlm", "coefficients")``: the least-squares fits round in another order).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._errors import InvalidParameterError
from .mass_mcd import dqrdc2, lqs_subsets

__all__ = ["LqsS", "RlmFit", "lqs_s", "rlm_mm", "lm_wfit_resid"]

K0 = 1.548
BISQUARE_C = 4.685


def _seqsum(v: np.ndarray) -> float:
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _chi(r: np.ndarray, s: float) -> np.ndarray:
    u = r / (K0 * s)
    u = u * u
    return np.where(u > 1.0, 1.0, u * (3.0 + u * (-3.0 + u)))


def _solve_square(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The exact fit of a p x p subset by LINPACK's Householder QR (tolerance 1e-7); None if rank-deficient."""
    qr, rank, qraux = dqrdc2(a)
    p = a.shape[1]
    if rank < p:
        return None
    qty = np.array(b, dtype=np.float64)
    for j in range(min(p, a.shape[0] - 1)):  # Q'y, one reflection after the other
        if qraux[j] == 0.0:
            continue
        col = qr[j:, j].copy()
        col[0] = qraux[j]
        t = -_seqsum(col * qty[j:]) / col[0]
        qty[j:] += t * col
    coef = qty[:p].copy()
    for j in range(p - 1, -1, -1):  # back substitution
        coef[j] /= qr[j, j]
        if j:
            coef[:j] -= coef[j] * qr[:j, j]
    return coef


def _fitted(x: np.ndarray, coef: np.ndarray) -> np.ndarray:
    f = np.zeros(x.shape[0])
    for j in range(x.shape[1]):
        f += x[:, j] * coef[j]
    return f


_SCALE_MAXIT = 30  # observed: MASS stops the fixed-point steps of a subset's scale after 30


def _scale(r: np.ndarray, s: float, target: float) -> float:
    for _ in range(_SCALE_MAXIT):
        ratio = _seqsum(_chi(r, s)) / target
        s = s * math.sqrt(ratio)
        if abs(ratio - 1.0) < 1e-4:
            break
    return s


#: an S-scale at most this times the largest |y| is rounding noise of an exact fit
EXACT_FIT_SCALE = 1e-10


def _exact_fit():
    raise InvalidParameterError(
        "rlm (method 'MM'): half of the records or more lie exactly on one fit, so the S-scale is 0 or rounding "
        "noise: MASS then stops ('missing or negative weights not allowed' in lm.wfit) or returns values that "
        "rounding decides (the bisquare weights of the records on the fit are ratios of rounding errors); pysdc "
        "stops in both cases. sdcMicro's own result: the bridge pysdc.r.shuffle.")


@dataclass(frozen=True)
class LqsS:
    """What ``lqs(x, y, intercept = FALSE, method = "S")`` returns that ``rlm`` uses.

    ``coefficients`` are the best subset's (as MASS's ``$coefficients``), ``crit`` its S-scale, ``scale`` and
    ``residuals`` after the reweighting steps, ``bestone`` the subset (0-based, sorted), ``sing`` the number
    of rank-deficient subsets."""

    coefficients: np.ndarray
    crit: float
    scale: float
    residuals: np.ndarray
    bestone: np.ndarray
    sing: int
    nsamp: int


def lqs_s(x: np.ndarray, y: np.ndarray, rng=None) -> LqsS:
    """MASS's ``lqs(x, y, intercept = FALSE, method = "S", k0 = 1.548)`` (``x`` holds the intercept column).

    ``rng`` (:class:`pysdc.core.rrandom.RRandom`) is R's stream, advanced as MASS does when there are 5000
    subsets or more (else unused)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, p = x.shape
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise InvalidParameterError("lqs: missing values are not allowed (MASS stops)")
    quantile = math.ceil(n / 2)
    if quantile > n - 1:
        raise InvalidParameterError(f"lqs: 'quantile' must be at most {n - 1} (MASS stops)")
    nexact = math.comb(n, p)
    sample = nexact >= 5000
    nsamp = min(500 * p, 3000) if sample else nexact
    if sample and rng is None:
        raise InvalidParameterError("lqs: R's random stream is needed (5000 subsets or more)")
    target = (n - p) * 0.5
    best = math.inf
    coef = None
    bestone = None
    sing = 0
    for which in lqs_subsets(n, p, nsamp, rng if sample else None):
        b = _solve_square(x[which], y[which])
        if b is None:
            sing += 1
            continue
        r = y - _fitted(x, b)
        if coef is None:
            s0 = float(np.sort(np.abs(r))[n // 2]) / 0.6745
            if not s0 > 0:
                _exact_fit()
        else:
            if _seqsum(_chi(r, best)) >= target:
                continue
            s0 = best
        s = _scale(r, s0, target)
        if s < best:
            best, coef, bestone = s, b, which
    if coef is None:
        raise InvalidParameterError("lqs failed: all the samples were singular (MASS stops)")
    if not (math.isfinite(best) and best > EXACT_FIT_SCALE * float(np.max(np.abs(y)))):
        _exact_fit()
    resid = y - _fitted(x, coef)
    scale = best
    w = None
    for _ in range(30):
        w = (1.0 - np.minimum(1.0, np.abs(resid / scale / K0)) ** 2) ** 2
        resid = lm_wfit_resid(x, y, w)[1]
        s2 = scale * math.sqrt(float(np.sum(_chi(resid, scale))) / ((n - p) * 0.5))
        if abs(s2 / scale - 1.0) < 1e-5:
            break
        scale = s2
    return LqsS(coef, best, scale, resid, np.sort(bestone), sing, nsamp)


def lm_wfit_resid(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``lm.wfit(x, y, w)``: coefficients and residuals (zero weights dropped from the fit, their
    residuals ``y - x b``). Raises where the weighted fit is rank-deficient (R would go on with NA)."""
    ok = w != 0
    sw = np.sqrt(w[ok])
    a = x[ok] * sw[:, None]
    if not np.all(np.isfinite(w)):
        _exact_fit()
    if ok.sum() < x.shape[1] or dqrdc2(a)[1] < x.shape[1]:
        raise InvalidParameterError(
            "rlm: a reweighted least-squares fit is rank-deficient (too few records keep a weight); pysdc does "
            "not follow MASS there natively: use the bridge pysdc.r.shuffle.")
    coef, *_ = np.linalg.lstsq(a, y[ok] * sw, rcond=None)
    return coef, y - x @ coef


@dataclass(frozen=True)
class RlmFit:
    """``rlm(y ~ x, method = "MM", weights = w)``: ``coefficients``, ``fitted`` (``x b``), ``residuals``
    (``y - fitted``), the S ``scale``, ``iterations`` and ``converged``."""

    coefficients: np.ndarray
    fitted: np.ndarray
    residuals: np.ndarray
    scale: float
    iterations: int
    converged: bool


def rlm_mm(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, rng=None) -> RlmFit:
    """MASS's ``rlm(x, y, weights, method = "MM")`` (``x`` holds the intercept column; ``rlm.formula`` passes
    weights 1 when none are given)."""
    xx = np.asarray(x, dtype=np.float64)
    yy = np.asarray(y, dtype=np.float64)
    if dqrdc2(xx)[1] < xx.shape[1]:
        raise InvalidParameterError("rlm: 'x' is singular: singular fits are not implemented in 'rlm' (MASS stops)")
    if weights is not None:
        fac = np.sqrt(np.asarray(weights, dtype=np.float64))
        xw, yw = xx * fac[:, None], yy * fac
    else:
        xw, yw = xx, yy
    start = lqs_s(xw, yw, rng)
    coef = start.coefficients
    resid = start.residuals
    scale = start.scale
    done = False
    steps = 0
    for steps in range(1, 21):  # noqa: B007 - the number of steps is returned
        old = resid
        w = (1.0 - np.minimum(1.0, np.abs(resid / scale / BISQUARE_C)) ** 2) ** 2
        coef, resid = lm_wfit_resid(xw, yw, w)
        conv = math.sqrt(float(np.sum((old - resid) ** 2)) / max(1e-20, float(np.sum(old ** 2))))
        done = conv <= 1e-4
        if done:
            break
    if not done:
        warnings.warn("rlm: 'rlm' failed to converge in 20 steps (as MASS warns)", UserWarning, stacklevel=2)
    fitted = _fitted(xx, coef)
    return RlmFit(coef, fitted, yy - fitted, scale, steps, done)
