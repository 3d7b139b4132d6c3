"""L'Ecuyer's combined Tausworthe generator ``taus88``, as sdcMicro 5.8.0's C++ uses it (``rankSwap``).

Three 32-bit linear feedback shift registers over GF(2) (L'Ecuyer 1996, "Maximally equidistributed combined
Tausworthe generators", Math. Comp. 65: parameters ``(k, q, s) = (31, 13, 12), (29, 2, 4), (28, 3, 17)``); the
output word is the XOR of the three states. sdcMicro's variant, as observed:

- the seed sets only the first component; the other two start at 613566701 and 858993401; a first component
  of at most ``2**19`` is replaced by ``2 s + 1`` until it exceeds it (``2**25`` and ``2**11`` for the others,
  which their fixed starts already exceed);
- a draw advances all three registers once and returns ``word / 2**32`` rounded to single precision (so
  ``1.0`` for the top 128 words), an index below ``m`` is that float times ``m`` in single precision,
  truncated.

Each register step is linear over GF(2), so a register is a 32 x 32 bit matrix ``M`` (held as its 32 columns,
``uint32``); the stream is produced in bulk by doubling: from the states ``s_1 .. s_b`` the next ``b`` are
``M^b s_1 .. M^b s_b`` (32 vectorised XORs), and ``M^(2b)`` is ``M^b`` applied to its own columns.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Taus88", "seed_state"]

_WORD = 0xFFFFFFFF
# (k, q, s) of each component, and the starts of the two components the seed does not set
_COMPONENTS = ((31, 13, 12), (29, 2, 4), (28, 3, 17))
_FIXED_STARTS = (613566701, 858993401)


def _step(x: int, k: int, q: int, s: int) -> int:
    """One step of one register (Python ints)."""
    feedback = (((x << q) & _WORD) ^ x) >> (k - s)
    return (((x & ((_WORD << (32 - k)) & _WORD)) << s) & _WORD) ^ feedback


def _floor_start(x: int, k: int, s: int) -> int:
    """A register start above ``2**(k - s)`` (sdcMicro doubles small seeds plus one until they are)."""
    x &= _WORD
    while x <= 1 << (k - s):
        x = ((x << 1) + 1) & _WORD
    return x


def seed_state(seed: int) -> tuple[int, int, int]:
    """The three register states for sdcMicro's ``seed`` (an R integer, read as unsigned 32-bit)."""
    starts = (seed, *_FIXED_STARTS)
    return tuple(_floor_start(x, k, s) for x, (k, _q, s) in zip(starts, _COMPONENTS))


def _apply(columns: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``M v`` over GF(2) for every word of ``v``; ``columns[i]`` is ``M`` applied to bit ``i``."""
    out = np.zeros(v.shape, dtype=np.uint32)
    one = np.uint32(1)
    for i in range(32):
        out ^= ((v >> np.uint32(i)) & one) * columns[i]
    return out


def _register_stream(x0: int, comp: tuple[int, int, int], n: int) -> np.ndarray:
    """The states after 1, 2, ..., n steps of one register started at ``x0``."""
    k, q, s = comp
    states = np.array([_step(x0, k, q, s)], dtype=np.uint32)
    power = np.array([_step(1 << i, k, q, s) for i in range(32)], dtype=np.uint32)  # M^1
    while states.size < n:
        # power is M^b for b = states.size: the next b states, then M^(2b)
        states = np.concatenate([states, _apply(power, states)])
        power = _apply(power, power)
    return states[:n]


def _jump(x0: int, comp: tuple[int, int, int], n: int) -> int:
    """The state of one register after ``n`` steps (``M^n x0`` by repeated squaring)."""
    k, q, s = comp
    power = np.array([_step(1 << i, k, q, s) for i in range(32)], dtype=np.uint32)
    x = np.array([x0], dtype=np.uint32)
    while n:
        if n & 1:
            x = _apply(power, x)
        power = _apply(power, power)
        n >>= 1
    return int(x[0])


class Taus88:
    """sdcMicro's generator state; :meth:`floats` draws in bulk and :meth:`advance` consumes a prefix."""

    def __init__(self, seed: int):
        self.state = seed_state(int(seed))

    def words(self, n: int) -> np.ndarray:
        """The next ``n`` output words (``uint32``) without consuming them."""
        if n <= 0:
            return np.zeros(0, dtype=np.uint32)
        out = np.zeros(n, dtype=np.uint32)
        for x0, comp in zip(self.state, _COMPONENTS):
            out ^= _register_stream(x0, comp, n)
        return out

    def floats(self, n: int) -> np.ndarray:
        """The next ``n`` draws in [0, 1] as sdcMicro's single-precision floats (not consumed)."""
        return (self.words(n).astype(np.float64) / 4294967296.0).astype(np.float32)

    def advance(self, n: int) -> None:
        """Consume ``n`` draws (jumps ahead by ``n`` register steps)."""
        if n <= 0:
            return
        self.state = tuple(_jump(x0, comp, n) for x0, comp in zip(self.state, _COMPONENTS))
