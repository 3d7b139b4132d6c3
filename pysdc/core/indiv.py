"""The individual re-identification risk per (fk, Fk) pair: Benedetti & Franconi's approximation and
Franconi & Polettini's exact series (sdcMicro's ``indivRisk``), with a stable evaluation of the latter.

Kernel of :func:`pysdc.indiv_risk` and :func:`pysdc.measure_risk`, and of their engine paths (which call
:func:`indiv_risk_arrays` once per key combination, with ``counts`` records each).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._errors import DegenerateResultWarning, user_stacklevel
from .freq import column_codes, dense_ids, segmented_accumulate

__all__ = ["indiv_risk_arrays", "c_pow", "c_log", "exact_series", "stable_exact", "equal_length_accumulate",
           "MAX_EQUAL_LENGTH_RUNS", "EXACT_DIGITS_LOST_WARN"]

#: above this many runs of equal segment length, one Python iteration per run costs more than the
#: bucketed, padded scan of segmented_accumulate (tests lower it to force both paths)
MAX_EQUAL_LENGTH_RUNS = 4096


def equal_length_accumulate(values: np.ndarray, lengths: np.ndarray, ufunc) -> np.ndarray:
    """Left-to-right ``ufunc.accumulate`` within consecutive segments.

    Where consecutive segments have the same length (pairs sorted by fk), they are
    reshaped into one 2-d block and accumulated row-wise: the same sequential
    operations as a scalar loop, with no padding. Other layouts fall back to
    :func:`segmented_accumulate`.
    """
    if lengths.size == 0:
        return np.empty_like(values)
    change = np.flatnonzero(lengths[1:] != lengths[:-1]) + 1
    run_starts = np.concatenate([[0], change])
    if run_starts.size > MAX_EQUAL_LENGTH_RUNS:
        return segmented_accumulate(values, lengths, ufunc)
    out = np.empty_like(values)
    run_ends = np.concatenate([change, [lengths.size]])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for a, b in zip(run_starts, run_ends):  # one iteration per run of equal segment length
        length = int(lengths[a])
        if length == 0:
            continue
        lo, hi = offsets[a], offsets[b]
        block = values[lo:hi].reshape(b - a, length)
        ufunc.accumulate(block, axis=1, out=out[lo:hi].reshape(b - a, length))
    return out


#: the platform C library's pow and log: R's ``^`` and ``log`` call them (R_pow hands every exponent but 2
#: to the C library's pow), while numpy's ``power`` and ``log`` may take SIMD paths that differ from the C
#: library in the last bit -- and the alternating exact series amplifies a last-bit difference by up to
#: 10^16 (finding 6 of issue 24). ``np.float_power``'s float64 loop calls the C library's pow per element
#: (no SIMD dispatch), so it is C's pow at numpy's speed; the log is taken per (fk, Fk) pair only, through
#: Python's math.log (the C library's log).
_LOG = np.frompyfunc(math.log, 1, 1)


def c_pow(x, y) -> np.ndarray:
    """Element-wise ``x ** y`` by the C library's pow (as R's ``^`` computes it), as float64."""
    with np.errstate(all="ignore"):  # C's pow: Inf on overflow, NaN for a negative base and fractional power
        return np.float_power(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))


def c_log(x) -> np.ndarray:
    """Element-wise natural log by the C library's log (as R's ``log`` computes it), as float64."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.empty(x.shape)
    with np.errstate(all="ignore"):
        ok = x > 0
        out = np.log(x)  # only for 0, negative and NaN arguments (-Inf, NaN), overwritten elsewhere
    if ok.any():
        out[ok] = np.asarray(_LOG(x[ok]), dtype=np.float64)
    return out


def exact_series(fk: np.ndarray, pk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Franconi & Polettini's exact risk for integer fk > 2, one value per (fk, pk) pair.

    Same floating-point operations, in the same order, as sdcMicro's R loop
    (powers and logs by the C library, as R's ``^`` and ``log``; cumulative
    products and the alternating sum accumulated strictly left to right), so
    equal inputs give bitwise equal results on the same C library.

    Returns the values and, per pair, the cancellation ratio: the largest
    term of ``A + A*BB + (-1)**fk * log(pk)`` over the absolute value of the
    sum (Inf where the sum is 0); about ``log10`` of it decimal digits are lost.
    """
    with np.errstate(all="ignore"):
        A = (c_pow(pk, 1 - fk) - 1) / (fk - 1)
        eins = c_pow(pk / (1 - pk), fk)
        sign = np.where(np.fmod(fk, 2.0) == 0, 1.0, -1.0)  # (-1)^fk for integer fk, exactly
        drei = sign * c_log(pk)
        L = (fk - 2).astype(np.int64)  # terms i = 0 .. fk-3
        ends = np.cumsum(L)
        seg = np.repeat(np.arange(fk.size), L)
        i = (np.arange(ends[-1] if L.size else 0, dtype=np.int64) - np.repeat(ends - L, L)).astype(np.float64)
        f = fk[seg]
        # powers p**(i+1-f) for i = 0..fk-2 per pair; term i uses entries i+1 and i
        L1 = L + 1
        ends1 = np.cumsum(L1)
        seg1 = np.repeat(np.arange(fk.size), L1)
        i1 = (np.arange(ends1[-1] if L1.size else 0, dtype=np.int64) - np.repeat(ends1 - L1, L1)).astype(np.float64)
        Q = c_pow(pk[seg1], i1 + 1 - fk[seg1])
        keep = np.ones(Q.size, dtype=bool)
        keep[ends1 - 1] = False
        q_lo = Q[keep]  # p**(i+1-f)
        keep[:] = True
        keep[ends1 - L1] = False
        q_hi = Q[keep]  # p**(i+2-f)
        B = ((f - 1 - i) ** 2 / ((i + 1) * (f - 2 - i))) * (q_hi - 1) / (q_lo - 1)
        b = equal_length_accumulate(B, L, np.multiply)
        largest_b = np.zeros(fk.size)
        if b.size:
            np.maximum.at(largest_b, seg, np.abs(b))
        b[i.astype(np.int64) % 2 == 0] *= -1.0  # (-1)^(m+1)
        bb = equal_length_accumulate(b, L, np.add)
        BB = bb[ends - 1]
        total = (A * (1 + BB)) + drei
        largest = np.maximum(np.abs(A) * np.maximum(1.0, largest_b), np.abs(drei))
        ratio = largest / np.abs(total)
        return eins * total, ratio


#: warn when the exact series has lost more than this many of float64's ~16 significant digits
#: (the value is then good to fewer than ~9 digits)
EXACT_DIGITS_LOST_WARN = 7.0


def stable_exact(fk: np.ndarray, pk: np.ndarray) -> np.ndarray:
    """The exact risk E(1/F | f) for integer fk >= 1, evaluated without cancellation.

    With ``q = 1 - pk``, Franconi & Polettini's risk (the mean of 1/F over
    the negative-binomial posterior of F given f) equals
    ``pk * integral_0^1 s**(f-1) / (pk + q*s) ds``
    ``= (pk/f) * 2F1(1, 1; f+1; q) = (pk/f) * sum_k k! q**k / ((f+1)...(f+k))``,
    a series of positive terms (ratio ``q (k+1)/(f+1+k) < 1``). Where it
    converges slowly (``pk < 1/2`` and small ``f``) the integral's forward
    recurrence ``I_1 = -log(pk)/q``, ``I_{n+1} = (1/n - pk I_n)/q`` is used
    instead; it damps errors by ``pk/q < 1`` per step. ``pk > 1`` (Fk < fk)
    has no posterior: NaN.
    """
    out = np.full(fk.size, np.nan)
    q = 1.0 - pk
    valid = (pk > 0) & (pk <= 1) & (fk >= 1)
    one = valid & (pk == 1)
    out[one] = 1.0 / fk[one]
    valid &= ~one
    rec = valid & (pk < 0.5) & (fk <= 64)
    ser = valid & ~rec
    if rec.any():
        f, p, qq = fk[rec], pk[rec], q[rec]
        integral = -np.log(p) / qq  # I_1; one rounding per operation, damped afterwards
        res = np.where(f == 1, integral, 0.0)
        for n in range(1, int(f.max())):  # at most 63 steps, vectorised over the pairs
            integral = (1.0 / n - p * integral) / qq
            res = np.where(f == n + 1, integral, res)
        out[rec] = p * res
    if ser.any():
        idx = np.flatnonzero(ser)
        f, qq = fk[idx], q[idx]
        term = np.ones(idx.size)
        acc = np.zeros(idx.size)
        k = 0
        active = np.arange(idx.size)
        while active.size:
            # a block of 64 terms for the pairs not yet converged
            kk = np.arange(k, k + 64, dtype=np.float64)
            ratios = qq[active, None] * (kk + 1) / (f[active, None] + 1 + kk)
            t = term[active, None] * np.concatenate([np.ones((active.size, 1)), np.cumprod(ratios, axis=1)[:, :-1]],
                                                     axis=1)
            acc[active] += t.sum(axis=1)
            term[active] = t[:, -1] * ratios[:, -1]
            k += 64
            # the tail beyond is below term / (1 - r), r = the ratio now (the ratios grow towards q)
            r_now = ratios[:, -1]
            active = active[term[active] > 1e-17 * acc[active] * (1.0 - r_now)]
        out[idx] = pk[idx] / f * acc
    return out


def _approx_or_small(fk, pk, rk, log=np.log):
    with np.errstate(all="ignore"):
        q = pk / (1 - pk)
        one = fk == 1
        two = fk == 2
        rk[one] = (q[one]) * log(1 / pk[one])
        rk[two] = q[two] - ((q[two] ** 2) * log(1 / pk[two]))


def _distinct_pairs(f: np.ndarray, p: np.ndarray):
    """Distinct (f, p) pairs by their bit patterns: (pair id per element, first element of each pair)."""
    fcode, _ = column_codes(f)
    pcode, pcard = column_codes(p)
    inv, m = dense_ids(fcode * max(pcard, 1) + pcode)
    first = np.empty(m, dtype=np.int64)
    first[inv[::-1]] = np.arange(inv.size - 1, -1, -1)
    return inv, first


def _warn_exact_digits(fk, Fk, ratio, counts) -> None:
    """Call-time warning where sdcMicro's exact series has cancelled away its digits."""
    with np.errstate(all="ignore"):
        lost = np.log10(ratio)
    lost = np.where(np.isnan(lost), np.inf, lost)
    bad = lost > EXACT_DIGITS_LOST_WARN
    if not bad.any():
        return
    w = int(np.argmax(np.where(bad, lost, -np.inf)))
    n_bad = int(counts[bad].sum())
    worst = lost[w]
    left = "no correct digit" if worst >= 15.6 else f"about {max(15.6 - worst, 0):.0f} correct significant digits"
    if np.isfinite(worst):
        how = (f"its largest term exceeds the sum by up to 10^{worst:.1f}, so "
               + ("all of float64's ~16 significant digits are" if worst >= 15.6 else f"about {worst:.0f} of "
                  "float64's ~16 significant digits are") + " lost")
    else:
        how = "its terms overflow (NaN or Inf) or cancel completely"
    warnings.warn(
        f"indiv_risk(method='exact'): Franconi & Polettini's alternating series cancels for {n_bad} record(s) "
        f"(fk = {fk[bad].min():g} to {fk[bad].max():g}, Fk/fk = {np.min(Fk[bad] / fk[bad]):.6g} to "
        f"{np.max(Fk[bad] / fk[bad]):.6g}): {how} (worst at fk = {fk[w]:g}, "
        f"Fk = {Fk[w]:.17g}: {left}). The risks returned are sdcMicro's numbers (the same operations in the same "
        "order, rounding errors included) and are not the exact risk there; exact_method='stable' evaluates the "
        "same risk without cancellation.",
        DegenerateResultWarning,
        stacklevel=user_stacklevel(),
    )


def indiv_risk_arrays(fk, Fk, method, qual, survey, *, exact_method="sdcmicro", counts=None):
    if not survey:
        with np.errstate(divide="ignore"):
            return 1 / fk
    with np.errstate(all="ignore"):
        pk = fk / Fk
    rk = np.zeros(fk.size)
    counts = np.ones(fk.size, dtype=np.int64) if counts is None else np.asarray(counts)
    # the exact method's small-fk formulas run on the C library's log, as sdcMicro's scalar R loop does
    _approx_or_small(fk, pk, rk, log=np.log if method == "approx" else c_log)
    big = fk > 2
    if method == "approx":
        with np.errstate(all="ignore"):
            rk[big] = pk[big] / (fk[big] - (1 - pk[big]))
    elif exact_method == "stable":
        integer = (fk >= 1) & (fk == np.floor(fk))
        rk[big & ~integer] = np.nan  # as sdcMicro: the model needs integer fk
        todo = integer & ~(fk == Fk)
        if todo.any():
            inv, first = _distinct_pairs(fk[todo], pk[todo])
            rk[todo] = stable_exact(fk[todo][first], pk[todo][first])[inv]
        undefined = todo & (pk > 1)
        if undefined.any():
            warnings.warn(
                f"indiv_risk(method='exact', exact_method='stable'): {int(counts[undefined].sum())} record(s) have "
                "Fk < fk (weights below 1), where the negative-binomial posterior of the population frequency does "
                "not exist; their risk is NaN. exact_method='sdcmicro' returns sdcMicro's series there.",
                DegenerateResultWarning,
                stacklevel=user_stacklevel(),
            )
    else:
        integer = big & (fk == np.floor(fk))
        rk[big & ~integer] = np.nan  # sdcMicro: (-1)^fk is NaN for fractional fk
        todo = integer & ~(fk == Fk)  # overridden below anyway
        if todo.any():
            f_t, p_t = fk[todo], pk[todo]
            inv, first = _distinct_pairs(f_t, p_t)
            fs, ps = f_t[first], p_t[first]
            order = np.argsort(fs, kind="stable")  # equal fk -> equal series length, contiguous
            vals, ratio = np.empty(fs.size), np.empty(fs.size)
            vals[order], ratio[order] = exact_series(fs[order], ps[order])
            rk[todo] = vals[inv]
            n_pair = np.bincount(inv, weights=counts[todo], minlength=fs.size)
            _warn_exact_digits(fs, Fk[todo][first], ratio, n_pair)
    same = fk == Fk
    with np.errstate(divide="ignore"):
        rk[same] = 1 / fk[same]
    return rk * qual

