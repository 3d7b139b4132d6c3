"""R's default random number streams, reproduced in NumPy.

:class:`RRandom` is R's default generator (``RNGkind()`` = ``"Mersenne-Twister", "Inversion",
"Rejection"``): ``RRandom(s)`` is in the state ``set.seed(s)`` leaves, and every draw advances
the stream exactly as R's does, so ``RRandom(s).runif(5)`` equals ``set.seed(s); runif(5)``
bit for bit, and ``sample``/``unif_index`` equal R's ``sample.int``/``R_unif_index``.

Written from R's documentation (``?RNG``, ``?set.seed``, ``?sample``), the published
Mersenne-Twister algorithm (Matsumoto & Nishimura 1998) and R's observed output; the stored
references ``r_reference/outputs/rrandom.json`` (``r_reference/generate_rrandom.R``) pin it.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._errors import InvalidParameterError

__all__ = ["RRandom", "as_rrandom", "inversion_uniforms"]

_N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
#: 2^-32: R maps a 32-bit word y to y * 2^-32
_TWO_M32 = 2.3283064365386963e-10
#: 1 / (2^32 - 1); R's fixup keeps draws away from 0 and 1 by half of it
_I2_32M1 = 2.328306437080797e-10
#: 2^-27: R's Inversion divides floor(2^27 u1) + u2 by BIG = 2^27
_TWO_M27 = 7.450580596923828e-09
#: draws of at least this many words go through NumPy's MT19937 (same generator, in C)
_BULK = 4096
#: .Random.seed[1] of "Mersenne-Twister", "Inversion", "Rejection"
RNG_KIND_CODE = 10403


def _twist(mt: np.ndarray) -> np.ndarray:
    """The next block of 624 state words (MT19937's recurrence), vectorised in four slices.

    Word i becomes mt[i + 397] ^ twist(mt[i], mt[i + 1]); indices past 623 wrap to words
    already renewed in this block, so the block is renewed in slices whose inputs are ready.
    """
    old = mt
    new = np.empty_like(old)

    def part(lo, hi, upper_src, lower_src, far):
        y = (upper_src & _UPPER) | (lower_src & _LOWER)
        new[lo:hi] = far ^ (y >> np.uint32(1)) ^ np.where((y & np.uint32(1)) != 0, _MATRIX_A, np.uint32(0))

    k = _N - _M  # 227
    part(0, k, old[0:k], old[1:k + 1], old[_M:_N])
    part(k, 2 * k, old[k:2 * k], old[k + 1:2 * k + 1], new[0:k])
    part(2 * k, _N - 1, old[2 * k:_N - 1], old[2 * k + 1:_N], new[k:_N - 1 - k])
    part(_N - 1, _N, old[_N - 1:_N], new[0:1], new[_M - 1:_M])
    return new


def _temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def inversion_uniforms(words: np.ndarray, out: np.ndarray | None = None, scratch: np.ndarray | None = None
                       ) -> np.ndarray:
    """The uniforms R's ``norm_rand`` (``"Inversion"``) builds from consecutive pairs of stream words.

    R draws ``u1``, ``u2`` (each ``unif_rand()``, with its fixup) and takes
    ``(floor(2^27 u1) + u2) / 2^27``. With ``u1 = w1 2^-32``, ``2^27 u1 = w1 2^-5`` is exact, so its
    floor is ``w1 >> 5`` (also when the fixup moves ``w1 = 0`` to a tiny positive double); the sum with
    ``u2 = w2 2^-32`` is the same IEEE addition of the same two doubles, and the division by 2^27 is
    exact (a multiplication by 2^-27). Vectorised: one conversion per word, one addition, one product.
    ``out`` and ``scratch`` (float64, at least half as long as ``words``) avoid new arrays.
    """
    w = np.asarray(words, dtype=np.uint32)
    if w.size % 2:
        raise InvalidParameterError(f"inversion_uniforms needs an even number of words; got {w.size}.")
    m = w.size // 2
    v = np.empty(m) if out is None else out[:m]
    u2 = np.empty(m) if scratch is None else scratch[:m]
    lo = w[1::2]
    np.multiply(lo, _TWO_M32, out=u2)  # each word converted exactly, then scaled by 2^-32 (exact)
    if not lo.all():
        u2[lo == 0] = 0.5 * _I2_32M1  # R's fixup of a zero word
    np.copyto(v, w[0::2] >> np.uint32(5))
    v += u2
    v *= _TWO_M27
    return v


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise InvalidParameterError(f"seed must be an integer (as R's set.seed); got {seed!r}.")
    s = int(seed)
    if not -(2**31) < s < 2**31:
        raise InvalidParameterError(f"seed must be an R integer (|seed| < 2^31); got {seed!r}.")
    return s


class RRandom:
    """R's Mersenne-Twister stream: ``set.seed``, ``unif_rand``, ``R_unif_index``, ``sample``.

    Parameters
    ----------
    seed : int, optional
        As R's ``set.seed(seed)`` (default kinds). Without a seed the stream starts from
        ``set.seed(0)``; use :meth:`from_random_seed` to resume an R ``.Random.seed``.

    Notes
    -----
    State semantics are R's: the 624 words and the position ``mti`` (``.Random.seed[2]``);
    a new block of 624 words is generated when the position reaches 624. Draws are made in
    NumPy blocks, so ``runif(10**6)`` costs a few milliseconds.

    ``set.seed(s)`` scrambles the seed by 50 steps of the congruential generator
    ``seed = 69069 * seed + 1`` (mod 2^32), then fills the 625 seed words with the next 625
    steps and sets the position to 624 (R's initial scrambling). A word y gives the double
    ``y * 2^-32``, moved to ``2^-33 / (1 - 2^-32)`` when it is 0 (R's ``fixup``; MT words
    below 2^32 never reach 1).

    References
    ----------
    Matsumoto, M. and Nishimura, T. (1998) Mersenne Twister: a 623-dimensionally
    equidistributed uniform pseudo-random number generator. ACM Transactions on Modeling
    and Computer Simulation 8, 3-30.

    Examples
    --------
    >>> r = RRandom(42)
    >>> r.runif(2)            # R: set.seed(42); runif(2)
    array([0.91480604, 0.93707541])
    >>> RRandom(1).sample(10, 3)  # R: set.seed(1); sample(10, 3)
    array([9, 4, 7])
    """

    __slots__ = ("_mt", "_mti", "_block", "_pos")

    def __init__(self, seed: int | None = None):
        self.set_seed(0 if seed is None else seed)

    # ---- state ---------------------------------------------------------------------------
    def set_seed(self, seed: int) -> RRandom:
        """Re-seed as R's ``set.seed(seed)``; returns self."""
        s = _check_seed(seed) & 0xFFFFFFFF
        for _ in range(50):
            s = (69069 * s + 1) & 0xFFFFFFFF
        words = np.empty(_N + 1, dtype=np.uint32)
        for j in range(_N + 1):  # the 625 seed words (first one is then replaced by mti)
            s = (69069 * s + 1) & 0xFFFFFFFF
            words[j] = s
        self._mt = words[1:].copy()
        self._mti = _N
        self._block = None
        self._pos = 0
        return self

    @classmethod
    def from_random_seed(cls, random_seed) -> RRandom:
        """The stream whose state is R's ``.Random.seed`` (626 integers, kind 10403)."""
        arr = np.asarray(random_seed, dtype=np.int64).ravel()
        if arr.size != _N + 2 or int(arr[0]) % 100 != RNG_KIND_CODE % 100:
            raise InvalidParameterError(
                "random_seed must be R's .Random.seed of the Mersenne-Twister (626 integers, "
                f"first one 10403); got {arr.size} values starting {arr[:1].tolist()}."
            )
        obj = cls.__new__(cls)
        obj._mt = (arr[2:] & 0xFFFFFFFF).astype(np.uint32)
        mti = int(arr[1])
        if not 0 <= mti <= _N:
            raise InvalidParameterError(f"random_seed[2] (the position) must be in 0..624; got {mti}.")
        obj._mti = mti
        obj._block = None
        obj._pos = 0
        return obj

    @property
    def random_seed(self) -> np.ndarray:
        """The state as R's ``.Random.seed`` (int32, 626 values)."""
        out = np.empty(_N + 2, dtype=np.int64)
        out[0] = RNG_KIND_CODE
        out[1] = self._mti
        out[2:] = self._mt.astype(np.int64)
        out[2:][out[2:] >= 2**31] -= 2**32
        return out.astype(np.int32)

    def copy(self) -> RRandom:
        """An independent copy of the stream in its current state."""
        obj = RRandom.__new__(RRandom)
        obj._mt = self._mt.copy()
        obj._mti = self._mti
        obj._block = None
        obj._pos = 0
        return obj

    def advance(self, k: int) -> RRandom:
        """Skip k draws of ``unif_rand`` (the state R reaches after k draws); returns self."""
        k = int(k)
        while k > 0:
            step = min(k, 1 << 20)
            self._words(step)
            k -= step
        return self

    # ---- raw draws ------------------------------------------------------------------------
    def _words(self, k: int) -> np.ndarray:
        """The next k tempered 32-bit words of the stream (advancing it).

        Long runs are drawn by NumPy's ``MT19937`` bit generator put in this state: the same
        recurrence and tempering (MT19937 as published), in C; short ones from the cached block.
        """
        if k >= _BULK:
            bg = np.random.MT19937()
            bg.state = {"bit_generator": "MT19937", "state": {"key": self._mt, "pos": self._mti}}
            # the full uint32 range is the generator's next 32-bit word as is (no masking, no
            # rejection), written straight into uint32: random_raw's words without its uint64 copy
            out = np.random.Generator(bg).integers(0, 0xFFFFFFFF, size=k, dtype=np.uint32, endpoint=True)
            st = bg.state["state"]
            self._mt = np.asarray(st["key"], dtype=np.uint32).copy()
            self._mti = int(st["pos"])
            self._block = None
            return out
        out = np.empty(k, dtype=np.uint32)
        filled = 0
        while filled < k:
            if self._mti >= _N:
                self._mt = _twist(self._mt)
                self._mti = 0
                self._block = None
            if self._block is None:
                self._block = _temper(self._mt)
            take = min(k - filled, _N - self._mti)
            out[filled:filled + take] = self._block[self._mti:self._mti + take]
            self._mti += take
            filled += take
        return out

    def unif_rand(self, size: int | None = None):
        """R's ``unif_rand()``: one double (``size=None``) or an array of ``size`` draws."""
        k = 1 if size is None else int(size)
        w = self._words(k)
        u = w.astype(np.float64)
        u *= _TWO_M32
        if not w.all():
            u[w == 0] = 0.5 * _I2_32M1  # R's fixup (1 - u > 0 always holds for 32-bit words)
        return float(u[0]) if size is None else u

    def runif(self, n: int, min: float = 0.0, max: float = 1.0) -> np.ndarray:  # noqa: A002
        """R's ``runif(n, min, max)``: ``min + (max - min) * u`` (``min`` when min == max)."""
        n = int(n)
        if min == max:
            return np.full(n, float(min))
        return min + (max - min) * self.unif_rand(n)

    def word_chunks(self, k: int, chunk: int):
        """The next k words (advancing the stream) as consecutive arrays of at most ``chunk`` words.

        Long runs come from one NumPy ``MT19937`` in this state, chunk after chunk, so that the caller
        works on small arrays that stay in the cache (and in the allocator's reused memory); the stream
        is left after the words handed out, also when the caller stops early.
        """
        if k < _BULK:
            if k > 0:
                yield self._words(k)
            return
        bg = np.random.MT19937()
        bg.state = {"bit_generator": "MT19937", "state": {"key": self._mt, "pos": self._mti}}
        gen = np.random.Generator(bg)
        try:
            done = 0
            while done < k:
                m = min(chunk, k - done)
                yield gen.integers(0, 0xFFFFFFFF, size=m, dtype=np.uint32, endpoint=True)
                done += m
        finally:
            st = bg.state["state"]
            self._mt = np.asarray(st["key"], dtype=np.uint32).copy()
            self._mti = int(st["pos"])
            self._block = None

    def inversion_uniforms(self, n: int) -> np.ndarray:
        """The n uniforms of n draws of R's ``norm_rand`` (Inversion), from the next 2n words."""
        n = int(n)
        return inversion_uniforms(self._words(2 * n)) if n > 0 else np.zeros(0)

    # ---- integers ---------------------------------------------------------------------------
    def _rbits(self, bits: int) -> int:
        """R's rbits: ``bits + 1`` rounded up to 16-bit chunks of ``floor(u * 65536)``, masked."""
        v = 0
        chunks = bits // 16 + 1
        u = self.unif_rand(chunks)
        for c in np.floor(u * 65536.0).astype(np.int64).tolist():
            v = 65536 * v + c
        return v & ((1 << bits) - 1)

    def unif_index(self, dn: float, size: int | None = None):
        """R's ``R_unif_index(dn)`` ("Rejection" sampling): uniform on 0..dn-1.

        Draws ``ceil(log2(dn))`` random bits (in 16-bit chunks) and rejects values >= dn.
        """
        if size is None:
            return self._unif_index1(dn)
        return np.array([self._unif_index1(dn) for _ in range(int(size))], dtype=np.int64)

    def _unif_index1(self, dn: float) -> int:
        if dn <= 0:
            return 0
        bits = int(math.ceil(math.log2(dn)))
        while True:
            dv = self._rbits(bits)
            if dv < dn:
                return dv

    def _unif_index_many(self, dn: int, k: int) -> np.ndarray:
        """k draws of R_unif_index(dn) for one fixed dn < 2^31, vectorised (rejections kept in order)."""
        if dn <= 0:
            return np.zeros(k, dtype=np.int64)
        bits = int(math.ceil(math.log2(dn)))
        chunks = bits // 16 + 1
        mask = (1 << bits) - 1
        out = np.empty(k, dtype=np.int64)
        got = 0
        while got < k:
            # draw enough attempts for the remaining values (acceptance rate > 1/2), keep the
            # first ones accepted and give back nothing: the stream is re-positioned exactly
            need = k - got
            tries = max(16, int(need * 2.2) + 8)
            save_mt, save_mti, save_block = self._mt, self._mti, self._block
            u = self.unif_rand(tries * chunks).reshape(tries, chunks)
            c = np.floor(u * 65536.0).astype(np.int64)
            v = c[:, 0].copy()
            for j in range(1, chunks):
                v = v * 65536 + c[:, j]
            v &= mask
            ok = np.flatnonzero(v < dn)
            if ok.size >= need:
                last = ok[need - 1]
                out[got:] = v[ok[:need]]
                # rewind and advance by exactly (last + 1) attempts
                self._mt, self._mti, self._block = save_mt, save_mti, save_block
                self._words((last + 1) * chunks)
                got = k
            else:
                out[got:got + ok.size] = v[ok]
                got += ok.size
        return out

    def sample(self, n: int, size: int | None = None, replace: bool = False) -> np.ndarray:
        """R's ``sample.int(n, size, replace)`` without ``prob``: 1-based integers.

        Without replacement R draws ``j = R_unif_index(m)`` from the m values left and moves the
        last one into the hole (for ``n > 1e7`` and ``size <= n/2`` it rejects repeats instead,
        as ``sample.int``'s ``useHash``); with replacement each draw is ``R_unif_index(n) + 1``.
        """
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Real) or n < 0 or n != int(n):
            raise InvalidParameterError(f"n must be a non-negative integer; got {n!r}.")
        n = int(n)
        size = n if size is None else size
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, numbers.Real) or size < 0 \
                or size != int(size):
            raise InvalidParameterError(f"size must be a non-negative integer; got {size!r}.")
        size = int(size)
        if not replace and size > n:
            raise InvalidParameterError(
                "cannot take a sample larger than the population when 'replace = FALSE' (as R)."
            )
        if size == 0:
            return np.zeros(0, dtype=np.int64)
        if replace or size < 2:
            if n < 2**31:
                return self._unif_index_many(n, size) + 1
            return self.unif_index(float(n), size) + 1
        if n > 1e7 and size <= n / 2:  # sample.int's useHash: R's sample2, rejecting repeats
            seen: set[int] = set()
            out = np.empty(size, dtype=np.int64)
            for i in range(size):
                while True:
                    v = self._unif_index1(float(n)) + 1
                    if v not in seen:
                        seen.add(v)
                        out[i] = v
                        break
            return out
        pool = np.arange(n, dtype=np.int64)
        out = np.empty(size, dtype=np.int64)
        m = n
        for i in range(size):  # each draw's range shrinks by one: inherently sequential
            j = self._unif_index1(m)
            out[i] = pool[j] + 1
            m -= 1
            pool[j] = pool[m]
        return out

    def __repr__(self) -> str:
        return f"RRandom(position={self._mti})"


def as_rrandom(random_state) -> RRandom | None:
    """``RRandom`` for an int seed (R's ``set.seed``) or an ``RRandom``; None otherwise."""
    if isinstance(random_state, RRandom):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return RRandom(int(random_state))
    return None
