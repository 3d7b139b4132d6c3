"""R's normal and discrete draws on R's own stream (:class:`pysdc.core.rrandom.RRandom`).

- :func:`qnorm`: the standard normal quantile by Wichura's algorithm AS 241 (PPND16, 1988), the
  function R 4.2's ``qnorm`` evaluates (the same coefficients and branches: ``|p - 0.5| <= 0.425``,
  then ``r = sqrt(-log(min(p, 1 - p)))`` below or above 5), vectorised.
- :func:`rnorm`: R's default ``rnorm`` (``normal.kind = "Inversion"``): each draw takes two
  uniforms, ``u = (floor(2^27 u1) + u2) / 2^27``, and returns ``qnorm(u)``; ``rnorm(n, mean, sd)``
  is ``mean + sd * z`` and draws nothing where ``sd == 0`` or ``mean`` is infinite (R returns the
  mean there) and nothing where ``mean`` or ``sd`` is NA (R returns NaN).
- :func:`sample_prob`: R's ``sample.int(n, size, replace, prob)`` -- with replacement by inversion
  over the probabilities sorted decreasingly (R's ``ProbSampleReplace``), or Walker's alias method
  when more than 200 of the ``n * p`` exceed 0.1 (R's rule); without replacement by successive
  inversion, removing each drawn value.
- :func:`mvrnorm`: MASS's ``mvrnorm(n, mu, Sigma)``: the eigen decomposition of Sigma (LAPACK's
  ``dsyevr`` through :mod:`pysdc.core.eigen`), ``n x p`` standard normals drawn column by column of
  the transposed matrix (R's ``matrix(rnorm(p * n), n)``), then ``mu + V diag(sqrt(max(l, 0))) Z'``.

Written from R's documentation (``?qnorm``, ``?RNGkind``, ``?sample``, ``?MASS::mvrnorm``), the
published algorithms (Wichura 1988; Walker 1977) and R's observed output; the stored references
``r_reference/outputs/rnormal.json`` pin them.
"""

from __future__ import annotations

import ctypes
import functools
import math

import numpy as np
import scipy.linalg
import scipy.special

from .._errors import InvalidParameterError
from .eigen import system_lapack
from .rrandom import RRandom, inversion_uniforms

__all__ = ["qnorm", "rnorm", "norm_rand", "sample_prob", "mvrnorm", "BIG"]

#: 2^27: R's Inversion combines two uniforms to 2^27 * u1 + u2 (``BIG`` in R's snorm)
BIG = 134217728.0

_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
      45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727)
_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867,
      39307.89580009271061, 28729.085735721942674, 5226.495278852854561)
_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
      1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4)
_D = (1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459,
      0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9)
_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
      0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
      7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15)


def _horner(coef, r):
    """coef[7] * r^7 + ... + coef[0], evaluated as ((c7 r + c6) r + ...) + c0."""
    acc = r * coef[7] + coef[6]
    for c in coef[5::-1]:
        acc = acc * r + c
    return acc


def _horner_into(coef, r: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`_horner` in place into ``out`` (the same operations in the same order)."""
    np.multiply(r, coef[7], out=out)
    out += coef[6]
    for c in coef[5::-1]:
        out *= r
        out += c
    return out


def _pair(num, den) -> list[np.ndarray]:
    """The coefficients of two polynomials as (2, 1) columns, highest degree first."""
    return [np.array([[a], [b]]) for a, b in zip(num[::-1], den[::-1])]


_AB, _CD, _EF = _pair(_A, _B), _pair(_C, _D), _pair(_E, _F)


def _horner_pair_into(pair, r: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """Two polynomials of the same ``r`` at once into ``acc`` (shape (2, r.size)): row by row the same
    operations in the same order as :func:`_horner`, with half as many NumPy calls."""
    np.multiply(r, pair[0], out=acc)
    acc += pair[1]
    for c in pair[2:]:
        acc *= r
        acc += c
    return acc


#: the probe set on which scipy.special.xlogy(1, y) must equal the C library's log (math.log) bit for bit
#: before the tails use it: the values R's tails meet, (0, 0.075], plus powers of two, subnormals, neighbours
def _log_probe() -> np.ndarray:
    rng = np.random.default_rng(20261125)
    two = np.ldexp(1.0, np.arange(-1074, 0))
    edge = np.array([5e-324, 1e-323, 2.2250738585072014e-308, 1e-300, 1e-20, 2.0**-59, 1e-5, 0.0625, 0.075,
                     0.07499999999999996, 0.3, 0.5, 0.9999999999999999, 1.0, 1.5])
    y = np.concatenate([rng.uniform(0.0, 0.075, 40000), rng.uniform(0.0, 1e-6, 2000), two,
                        np.nextafter(two[1:], 0.0), np.nextafter(two, 1.0), edge])
    return y[y > 0]


@functools.cache
def _vector_log_is_c_log() -> bool:
    """Whether ``scipy.special.xlogy(1.0, y)`` (a C loop calling the C library's ``log``, as R does) equals
    ``math.log`` (the same C function, one value at a time) bit for bit on the probe set; checked once, on
    the first use. NumPy's own ``log`` is no substitute: its SIMD code differs from glibc's in the last bit
    for about 2 values in 10,000."""
    y = _log_probe()
    with np.errstate(all="ignore"):
        fast = scipy.special.xlogy(1.0, y)
    ref = np.fromiter(map(math.log, y.tolist()), dtype=np.float64, count=y.size)
    return bool(np.array_equal(fast.view(np.uint64), ref.view(np.uint64)))


def c_log(y: np.ndarray) -> np.ndarray:
    """The C library's ``log`` (R's) of each positive double in ``y``: vectorised through
    ``scipy.special.xlogy(1.0, y)`` when it is checked to equal ``math.log`` on this machine, else
    ``math.log`` value by value."""
    y = np.asarray(y, dtype=np.float64)
    if _vector_log_is_c_log():
        return scipy.special.xlogy(1.0, y)
    return np.fromiter(map(math.log, y.ravel().tolist()), dtype=np.float64, count=y.size).reshape(y.shape)


def _qnorm_tail(pt: np.ndarray, qt: np.ndarray) -> np.ndarray:
    """AS 241 outside the central part (``|p - 0.5| > 0.425``): p and ``q = p - 0.5`` of those values."""
    r = np.where(qt > 0, 0.5 - pt + 0.5, pt)
    edge = r == 0.0  # p = 1: R's Inversion reaches it when floor(2^27 u1) + u2 rounds up to 2^27
    r = c_log(r)  # the C library's log (as R's)
    np.negative(r, out=r)
    np.sqrt(r, out=r)
    near = r <= 5.0
    if near.all():  # r > 5 means p < exp(-25): rare
        r -= 1.6
        nd = _horner_pair_into(_CD, r, np.empty((2, r.size)))
        val = np.divide(nd[0], nd[1], out=r)
    else:
        val = np.empty_like(r)
        rn = r[near] - 1.6
        val[near] = _horner(_C, rn) / _horner(_D, rn)
        rf = r[~near] - 5.0
        val[~near] = _horner(_E, rf) / _horner(_F, rf)
    np.negative(val, out=val, where=qt < 0)
    if edge.any():  # R's qnorm(1) = Inf, qnorm(0) = -Inf
        val[edge] = np.where(qt[edge] > 0, np.inf, -np.inf)
    return val


def _qnorm_central_into(p: np.ndarray, out: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """AS 241's central rational function of every p (1-d, strictly inside (0, 1)) into ``out``, in place
    (no gather/scatter of the 85 % central values); returns the positions with ``|p - 0.5| > 0.425``,
    whose values the caller replaces by :func:`_qnorm_tail`. ``buf``: scratch of shape (4, >= p.size).
    The caller silences floating-point warnings (the tails' central values are discarded)."""
    m = p.size
    q = np.subtract(p, 0.5, out=buf[0, :m])
    r = np.multiply(q, q, out=buf[1, :m])
    np.subtract(0.180625, r, out=r)
    nd = _horner_pair_into(_AB, r, buf[2:4, :m])
    np.multiply(q, nd[0], out=out)
    out /= nd[1]
    np.abs(q, out=r)
    return np.flatnonzero(r > 0.425)


#: values per block of AS 241 and of the stream's words: the temporaries stay in the cache and in the
#: allocator's reused memory (whole-array temporaries of 1e5 values and more cost a page fault per 4 KiB)
_CHUNK = 32768


def _qnorm_blocks(blocks, out: np.ndarray, width: int) -> None:
    """AS 241 of consecutive blocks of p (each at most ``width`` long) into ``out``, block by block: the
    tails' temporaries stay small (a few thousand values), so the allocator reuses their memory."""
    buf = np.empty((4, width))
    s = 0
    with np.errstate(all="ignore"):
        for p in blocks:
            o = out[s:s + p.size]
            ti = _qnorm_central_into(p, o, buf)
            if ti.size:
                o[ti] = _qnorm_tail(p[ti], buf[0, ti])  # buf[0] holds q = p - 0.5
            s += p.size


def _qnorm_open(p: np.ndarray) -> np.ndarray:
    """AS 241 on a 1-d array of p strictly inside (0, 1), block by block."""
    out = np.empty(p.size)
    _qnorm_blocks((p[s:s + _CHUNK] for s in range(0, p.size, _CHUNK)), out, min(p.size, _CHUNK))
    return out


def qnorm(p, mean: float = 0.0, sd: float = 1.0) -> np.ndarray:
    """R's ``qnorm(p, mean, sd)`` (lower tail, not log), bit for bit with R 4.2.

    ``p`` outside [0, 1] gives NaN (R warns), 0 and 1 give -Inf and Inf.
    """
    p = np.asarray(p, dtype=np.float64)
    scalar = p.ndim == 0
    p = np.atleast_1d(p)
    ok = (p > 0) & (p < 1)
    if ok.all():
        out = _qnorm_open(p.ravel()).reshape(p.shape)
    else:
        out = np.full(p.shape, np.nan)
        out[p == 0] = -np.inf
        out[p == 1] = np.inf
        out[ok] = _qnorm_open(p[ok])
    if not (mean == 0.0 and sd == 1.0):
        out = mean + sd * out
    return out[0] if scalar else out


def norm_rand(rng: RRandom, n: int) -> np.ndarray:
    """n standard normal draws of R's ``norm_rand()`` (Inversion: two uniforms each)."""
    n = int(n)
    if n <= 0:
        return np.zeros(0)
    out = np.empty(n)
    width = min(n, _CHUNK)
    ubuf = np.empty((2, width))

    def uniforms():  # (floor(BIG * u1) + u2) / BIG from each pair of words, block by block (in (0, 1])
        for w in rng.word_chunks(2 * n, 2 * _CHUNK):
            v = inversion_uniforms(w, out=ubuf[0], scratch=ubuf[1])
            yield v

    _qnorm_blocks(uniforms(), out, width)
    return out


def rnorm(rng: RRandom, n: int, mean=0.0, sd=1.0) -> np.ndarray:
    """R's ``rnorm(n, mean, sd)`` on the stream ``rng`` (``mean``/``sd`` recycled as R does).

    Where ``sd == 0`` or ``mean`` is +-Inf R returns ``mean`` without drawing; where ``mean`` is
    NA or ``sd`` is NA, negative or infinite it returns NaN without drawing. The draws of the
    other positions are taken in order from the stream.
    """
    n = int(n)
    if n < 0:
        raise InvalidParameterError(f"n must be non-negative; got {n}.")
    mean = np.asarray(mean, dtype=np.float64).ravel()
    sd = np.asarray(sd, dtype=np.float64).ravel()
    if n == 0:
        return np.zeros(0)
    if mean.size == 0 or sd.size == 0:
        return np.full(n, np.nan)
    if mean.size == 1 and sd.size == 1:  # one mean and sd: every position draws, or none does
        m0, s0 = float(mean[0]), float(sd[0])
        if math.isnan(m0) or not math.isfinite(s0) or s0 < 0:
            return np.full(n, np.nan)
        if s0 == 0 or not math.isfinite(m0):
            return np.full(n, m0)
        z = norm_rand(rng, n)
        z *= s0
        z += m0
        return z
    mu = np.full(n, mean[0]) if mean.size == 1 else np.resize(mean, n)  # R's recycling
    sg = np.full(n, sd[0]) if sd.size == 1 else np.resize(sd, n)
    out = np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        bad = np.isnan(mu) | ~np.isfinite(sg) | (sg < 0)
        fixed = ~bad & ((sg == 0) | ~np.isfinite(mu))
    out[fixed] = mu[fixed]
    draw = ~bad & ~fixed
    k = int(draw.sum())
    if k:
        out[draw] = mu[draw] + sg[draw] * norm_rand(rng, k)
    return out


# ---- sample with probabilities ---------------------------------------------------------------


def _fixup_prob(prob, n: int, replace: bool) -> np.ndarray:
    p = np.asarray(prob, dtype=np.float64).ravel()
    if p.size != n:
        raise InvalidParameterError(f"incorrect number of probabilities: {p.size} for n = {n} (as R).")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InvalidParameterError("probabilities must be finite and non-negative (as R).")
    npos = int((p > 0).sum())
    if npos == 0:
        raise InvalidParameterError("too few positive probabilities (as R).")
    return p / float(np.cumsum(p)[-1])  # R's FixupProb: a double sum, in order


def _revsort_order(p: np.ndarray) -> np.ndarray:
    """The order in which R's ``revsort`` leaves the probabilities (decreasing; heap sort).

    R sorts the probabilities with their indices by a heap sort, which is not stable: among equal
    probabilities the order is the heap's. Replayed here step by step on the n values (n is the
    number of categories, small).
    """
    a = p.tolist()
    ib = list(range(len(a)))
    n = len(a)
    if n <= 1:
        return np.asarray(ib, dtype=np.int64)
    # heap sort into decreasing order (a min-heap sift), as described in Knuth's Algorithm H
    l_ = (n >> 1) + 1
    ir = n
    # use 1-based indices over a padded list
    a = [0.0] + a
    ib = [0] + ib
    while True:
        if l_ > 1:
            l_ -= 1
            ra = a[l_]
            ii = ib[l_]
        else:
            ra = a[ir]
            ii = ib[ir]
            a[ir] = a[1]
            ib[ir] = ib[1]
            ir -= 1
            if ir == 1:
                a[1] = ra
                ib[1] = ii
                break
        i = l_
        j = l_ << 1
        while j <= ir:
            if j < ir and a[j] > a[j + 1]:
                j += 1
            if ra > a[j]:
                a[i] = a[j]
                ib[i] = ib[j]
                i = j
                j += i
            else:
                j = ir + 1
        a[i] = ra
        ib[i] = ii
    return np.asarray(ib[1:], dtype=np.int64)


def _walker_exact(rng: RRandom, p: np.ndarray, size: int) -> np.ndarray:
    n = p.size
    q = (p * n).copy()
    hl = np.empty(n, dtype=np.int64)
    h = 0          # next free slot from the front (smalls)
    t = n - 1      # next free slot from the back (larges)
    for i in range(n):
        if q[i] < 1.0:
            hl[h] = i
            h += 1
        else:
            hl[t] = i
            t -= 1
    a = np.zeros(n, dtype=np.int64)
    if h > 0 and t < n - 1:
        small = 0          # position of the current small entry in hl
        large = t + 1      # position of the current large entry
        while small < n - 1:
            i = hl[small]
            j = hl[large]
            a[i] = j
            q[j] += q[i] - 1.0
            if q[j] < 1.0:
                large += 1
            if large >= n:
                break
            small += 1
    q = q + np.arange(n)
    k, u = _index_then_uniform(rng, n, size)
    return np.where(k + u < q[k], k, a[k])


def _index_then_uniform(rng: RRandom, n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` pairs (``R_unif_index(n)``, ``unif_rand()``) drawn one pair after the other, as R 4's
    Walker sampling draws them (the column ``k`` by rejection sampling of random bits, then the
    uniform that decides between k and its alias).

    The uniforms are drawn in blocks; which of them are index attempts depends on the ones before
    (an accepted attempt is followed by the pair's uniform). The roles follow a two-state automaton
    (attempt A, pair uniform U): after a rejected attempt or a pair uniform comes an attempt, after an
    accepted attempt its uniform. A position right after one whose value would be rejected is therefore
    always an attempt, and within a run of values that would be accepted the roles alternate A, U, A...:
    a position is an attempt when its distance to the last "rejected" value before it is odd. Vectorised
    (no loop over the draws).
    """
    bits = int(math.ceil(math.log2(n))) if n > 1 else 0
    chunks = bits // 16 + 1
    if chunks != 1:  # n >= 2^16 categories: R's rbits over two 16-bit chunks
        return _index_then_uniform_wide(rng, n, size, bits, chunks)
    mask = (1 << bits) - 1
    ks = np.empty(size, dtype=np.int64)
    us = np.empty(size)
    got = 0
    while got < size:
        need = size - got
        m = int(need * (2 + 2.0 * (1 << bits) / n)) + 16
        save = rng.copy()
        u = rng.unif_rand(m)
        v = np.floor(u * 65536.0).astype(np.int64) & mask
        acc = v < n
        pos = np.arange(m)
        last_rej = np.maximum.accumulate(np.where(acc, -1, pos))
        before = np.concatenate(([-1], last_rej[:-1]))  # the last "rejected" position before each one
        attempt = (pos - before) % 2 == 1
        t = np.flatnonzero(attempt & acc)
        t = t[t + 1 < m][:need]  # complete pairs only
        used = int(t[-1]) + 2 if t.size else 0
        ks[got:got + t.size] = v[t]
        us[got:got + t.size] = u[t + 1]
        got += t.size
        # re-position the stream after the last complete pair
        rng._mt, rng._mti, rng._block = save._mt, save._mti, None
        rng._words(used)
    return ks, us


def _walk_from_zero(nxt: np.ndarray, length: int) -> np.ndarray:
    """Positions 0, nxt[0], nxt[nxt[0]], ... (``length`` of them) by pointer doubling: log2(length)
    gathers instead of a loop over the steps. ``nxt`` maps a position to a later one; its last entry is
    a sentinel that maps to itself."""
    pos = np.zeros(length, dtype=nxt.dtype)
    steps = np.arange(length, dtype=np.int64)
    jump = nxt
    bit = 0
    while (1 << bit) < length:
        on = ((steps >> bit) & 1).astype(bool)
        pos[on] = jump[pos[on]]
        jump = jump[jump]
        bit += 1
    return pos


def _index_then_uniform_wide(rng: RRandom, n: int, size: int, bits: int, chunks: int):
    """:func:`_index_then_uniform` for ``n >= 2^16``: an index attempt takes ``chunks`` uniforms (R's
    rbits: ``65536 v + floor(65536 u)`` per chunk, masked). The attempt starting at a position is
    followed by the next attempt ``chunks`` positions later when rejected, or by the pair's uniform and
    then the next attempt ``chunks + 1`` positions later when accepted: the path from position 0 is
    followed by pointer doubling (vectorised, no loop over the draws)."""
    mask = (1 << bits) - 1
    ks = np.empty(size, dtype=np.int64)
    us = np.empty(size)
    got = 0
    while got < size:
        need = size - got
        # positions for the expected number of attempts (2^bits / n per value) and 10 % to spare
        m = int(need * ((chunks + 1) + chunks * ((1 << bits) / n - 1)) * 1.1) + 64
        save = rng.copy()
        u = rng.unif_rand(m)
        c = np.floor(u * 65536.0).astype(np.int64)
        v = np.zeros(m, dtype=np.int64)  # the value of an attempt starting at each position
        for j in range(chunks):  # the chunks of one attempt (2), not the records
            cj = np.zeros(m, dtype=np.int64)
            cj[:m - j] = c[j:]
            v = v * 65536 + cj
        v &= mask
        acc = v < n
        t = np.arange(m, dtype=np.int64)
        nxt = np.append(np.minimum(np.where(acc, t + chunks + 1, t + chunks), m), m).astype(np.int32)
        pos = _walk_from_zero(nxt, m // chunks + 1)
        pos = pos[pos < m]
        good = pos[acc[pos] & (pos + chunks < m)][:need]  # accepted attempts whose uniform is drawn
        used = int(good[-1]) + chunks + 1 if good.size else 0
        ks[got:got + good.size] = v[good]
        us[got:got + good.size] = u[good + chunks]
        got += good.size
        rng._mt, rng._mti, rng._block = save._mt, save._mti, None
        rng._words(used)
    return ks, us


def sample_prob(rng: RRandom, n: int, size: int, replace: bool, prob) -> np.ndarray:
    """R's ``sample.int(n, size, replace, prob)``: 1-based integers."""
    n = int(n)
    size = int(size)
    p = _fixup_prob(prob, n, replace)
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    if replace or size < 2:
        if int((n * p > 0.1).sum()) > 200:
            return _walker_exact(rng, p, size) + 1
        order = _revsort_order(p)
        cum = np.cumsum(p[order])
        u = rng.unif_rand(size)
        # the first j with u <= cum[j], the last category when none (rounding)
        j = np.searchsorted(cum[:-1], u, side="left")
        return order[j] + 1
    if size > int((p > 0).sum()):
        raise InvalidParameterError("too few positive probabilities (as R).")
    out = np.empty(size, dtype=np.int64)
    order = _revsort_order(p)
    pp = p[order].tolist()
    perm = order.tolist()
    total = 1.0
    m = n - 1
    for i in range(size):
        rt = total * rng.unif_rand()
        mass = 0.0
        j = 0
        for j in range(m):
            mass += pp[j]
            if rt <= mass:
                break
        out[i] = perm[j] + 1
        total -= pp[j]
        del pp[j]
        del perm[j]
        m -= 1
    return out


# ---- multivariate normal ------------------------------------------------------------------------


def mvrnorm(rng: RRandom, n: int, mu, sigma, tol: float = 1e-6, matmul=None) -> np.ndarray:
    """MASS's ``mvrnorm(n, mu, Sigma, tol)`` on the stream ``rng``: an n x p matrix.

    ``matmul(a, b)`` forms the products (``V diag(sqrt(l))`` and that times ``Z'``); pass
    :func:`pysdc.core.noise.blas_matmul` for R's reference-BLAS order (default: NumPy's ``@``).
    """
    mu = np.asarray(mu, dtype=np.float64).ravel()
    s = np.asarray(sigma, dtype=np.float64)
    p = mu.size
    if s.shape != (p, p):
        raise InvalidParameterError("incompatible arguments: Sigma must be p x p for p = len(mu) (as MASS).")
    values, vectors = eigen_symmetric(s)
    if not np.all(values >= -tol * abs(values[0])):
        raise InvalidParameterError("'Sigma' is not positive definite (as MASS).")
    z = norm_rand(rng, p * n).reshape(p, n).T  # R's matrix(rnorm(p * n), n) is filled by column
    mm = matmul or np.matmul
    m = mm(vectors, np.diag(np.sqrt(np.maximum(values, 0.0))))
    return (mu[:, None] + mm(m, z.T)).T


def eigen_symmetric(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``eigen(s, symmetric = TRUE)``: values decreasing, vectors as columns (LAPACK ``dsyevr``,
    jobz 'V', range 'A', uplo 'L', abstol 0, from the system's LAPACK as R calls it; SciPy's
    ``evr`` driver where no system LAPACK loads)."""
    n = s.shape[0]
    lib = system_lapack()
    if lib:
        a = np.array(s, dtype=np.float64, order="F")
        ci, cd = ctypes.c_int, ctypes.c_double
        nn, vl, vu, il, iu, abstol, m, info = ci(n), cd(0), cd(0), ci(0), ci(0), cd(0.0), ci(0), ci(0)
        w = np.zeros(n)
        z = np.zeros((n, n), order="F")
        isuppz = np.zeros(2 * max(n, 1), dtype=np.int32)
        one = ctypes.c_size_t(1)
        r = ctypes.byref

        def ptr(arr):
            return arr.ctypes.data_as(ctypes.c_void_p)

        def call(work, lwork, iwork, liwork):
            lib.dsyevr_(b"V", b"A", b"L", r(nn), ptr(a), r(nn), r(vl), r(vu), r(il), r(iu), r(abstol), r(m),
                        ptr(w), ptr(z), r(nn), ptr(isuppz), work, r(lwork), iwork, r(liwork), r(info), one, one, one)

        wq, iq = cd(0), ci(0)
        call(r(wq), ci(-1), r(iq), ci(-1))
        if info.value == 0:
            work = np.zeros(max(int(wq.value), 1))
            iwork = np.zeros(max(iq.value, 1), dtype=np.int32)
            call(ptr(work), ci(work.size), ptr(iwork), ci(iwork.size))
            if info.value == 0:
                return w[::-1].copy(), np.ascontiguousarray(z[:, ::-1])
    w, z = scipy.linalg.eigh(s, driver="evr")
    return w[::-1].copy(), np.ascontiguousarray(z[:, ::-1])
