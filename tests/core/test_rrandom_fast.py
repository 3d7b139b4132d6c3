"""The vectorised paths of R's normal draws and long double sums equal their one-value-at-a-time definitions.

Each fast path is compared, bit for bit, with a plain definition written here (not with its own output):
the uniforms of R's Inversion built from the words (``floor(2^27 u1) + u2) / 2^27`` with R's fixup) on edge
words, R's ``rnorm`` drawn in blocks across block boundaries against AS 241 value by value, the C library's
``log`` through ``scipy.special.xlogy`` against ``math.log`` (and the fallback when the probe fails), and the
long double sums through NumPy's ``dot`` against ``cumsum``. The stored R references
(tests/core/test_rrandom*.py, tests/protect/test_protect_noise.py) pin the numbers against R itself; one test
here asks R's ``mean`` where NumPy's pairwise sum and R's sum in order give different doubles.
"""

from __future__ import annotations

import functools
import math
import subprocess

import numpy as np
import pytest

from pysdc.core import ldsum, rdist
from pysdc.core.distance import r_sd
from pysdc.core.noise import r_cov_complete, r_mean
from pysdc.core.rdist import c_log, norm_rand, qnorm
from pysdc.core.rrandom import RRandom, inversion_uniforms
from pysdc.protect._recode import _quantile7

from _rstream import inversion, norm_rand_scalar, qnorm_scalar

LD = np.longdouble
I2_32M1 = 2.328306437080797e-10


def _bits(x):
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def _unif(w: int) -> float:
    """R's unif_rand of one 32-bit word: w * 2^-32, moved to half of 1/(2^32 - 1) when 0 (fixup)."""
    u = w * 2.3283064365386963e-10
    return 0.5 * I2_32M1 if u <= 0.0 else u


def _inversion_scalar(w1: int, w2: int) -> float:
    return inversion(_unif(w1), _unif(w2))


EDGE_WORDS = [0, 1, 2, 31, 32, 33, 63, 64, 65, 2**21 - 1, 2**21, 2**26, 2**31 - 1, 2**31, 2**31 + 1,
              2**32 - 64, 2**32 - 33, 2**32 - 32, 2**32 - 31, 2**32 - 2, 2**32 - 1,
              0x80000020, 0xFFFFFFE0, 0x7FFFFFE0, 0x12345678, 0xDEADBEEF]


def test_inversion_uniforms_equal_r_on_edge_words():
    """Every pair of edge words (zero words take R's fixup; high words give sums that round, ties included)."""
    w1, w2 = np.meshgrid(np.array(EDGE_WORDS, dtype=np.uint32), np.array(EDGE_WORDS, dtype=np.uint32))
    words = np.column_stack([w1.ravel(), w2.ravel()]).ravel()
    # ties: w1 >> 5 >= 2^21 makes w1 >> 5 + w2 2^-32 need more than 53 bits; low bits 10...0 are halfway cases
    rng = np.random.default_rng(3)
    hi = rng.integers(2**26, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    lo = (rng.integers(0, 2**26, 4000, dtype=np.uint64) << np.uint64(6) | np.uint64(32)).astype(np.uint32)
    words = np.concatenate([words, np.column_stack([hi, lo]).ravel(), rng.integers(0, 2**32, 20000, dtype=np.uint64)
                            .astype(np.uint32)])
    want = np.array([_inversion_scalar(int(a), int(b)) for a, b in zip(words[0::2], words[1::2])])
    got = inversion_uniforms(words)
    assert np.array_equal(_bits(got), _bits(want))
    assert (got > 0).all() and (got <= 1).all()
    # into given buffers: the same numbers
    out, scratch = np.empty(want.size + 3), np.empty(want.size + 3)
    assert np.array_equal(_bits(inversion_uniforms(words, out=out, scratch=scratch)), _bits(want))


def test_inversion_reaching_one_gives_inf_as_r():
    """floor(2^27 u1) + u2 = 2^27 - 1 + (1 - 2^-32) rounds to 2^27: R's u / BIG is then 1 and its qnorm Inf."""
    words = np.array([2**32 - 1, 2**32 - 1, 2**32 - 32, 2**32 - 1, 0, 0], dtype=np.uint32)
    v = inversion_uniforms(words)
    assert v[0] == 1.0 and v[1] == 1.0 and v[2] == _inversion_scalar(0, 0) > 0
    z = rdist._qnorm_open(v)
    assert z[0] == np.inf and z[1] == np.inf and z[2] == qnorm_scalar(v[2])


@pytest.mark.parametrize("k", [0, 1, 4095, 4096, 65535, 65536, 65537, 3 * 65536 + 10])
def test_word_chunks_equal_the_stream(k):
    a, b = RRandom(11), RRandom(11)
    a.unif_rand(5)
    b.unif_rand(5)
    chunks = list(a.word_chunks(k, 65536))
    assert all(c.size <= 65536 for c in chunks)
    got = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.uint32)
    assert np.array_equal(got, b._words(k) if k else got)
    assert np.array_equal(a.random_seed, b.random_seed)
    assert a.unif_rand() == b.unif_rand()


def test_word_chunks_stopped_early_leave_the_stream_after_the_words_handed_out():
    a, b = RRandom(3), RRandom(3)
    gen = a.word_chunks(100000, 10000)
    first = next(gen)
    gen.close()
    assert np.array_equal(first, b._words(10000))
    assert np.array_equal(a.random_seed, b.random_seed)


@pytest.mark.parametrize("n", [1, 2, 2047, 2048, rdist._CHUNK - 1, rdist._CHUNK, rdist._CHUNK + 1, 2 * rdist._CHUNK + 7])
def test_norm_rand_in_blocks_equals_the_scalar_definition(n):
    """R's rnorm (Inversion): two uniforms per draw, AS 241 value by value; block boundaries crossed."""
    a, b = RRandom(2024), RRandom(2024)
    got = norm_rand(a, n)
    u = b.unif_rand(2 * n)
    want = norm_rand_scalar(u)
    assert np.array_equal(_bits(got), _bits(want))
    assert np.array_equal(a.random_seed, b.random_seed)


def test_qnorm_in_blocks_with_tails_at_block_boundaries():
    rng = np.random.default_rng(9)
    n = 2 * rdist._CHUNK + 3
    p = rng.random(n)
    edge = [5e-324, 1e-300, math.exp(-25.0), math.nextafter(math.exp(-25.0), 0), 1e-11, 0.075,
            math.nextafter(0.075, 1), math.nextafter(0.075, 0), 0.925, math.nextafter(0.925, 0), 1 - 2**-53, 0.5]
    for i, v in zip([0, rdist._CHUNK - 1, rdist._CHUNK, rdist._CHUNK + 1, n - 1] * 3, edge):
        p[i] = v
    p[1000:1000 + len(edge)] = edge
    want = np.array([qnorm_scalar(v) for v in p.tolist()])
    assert np.array_equal(_bits(qnorm(p)), _bits(want))


def test_c_log_equals_math_log():
    rng = np.random.default_rng(1)
    two = np.ldexp(1.0, np.arange(-1074, 1024))
    y = np.concatenate([rng.uniform(0, 0.075, 200000), rng.uniform(0, 1e-8, 10000), two, np.nextafter(two, 0)[1:],
                        np.nextafter(two, np.inf)[:-1], rng.integers(1, 2**52, 5000, dtype=np.uint64).view(np.float64),
                        [5e-324, 0.5, 1.0, 1.7976931348623157e308]])
    want = np.array([math.log(v) for v in y.tolist()])
    assert np.array_equal(_bits(c_log(y)), _bits(want))


def test_c_log_falls_back_when_the_probe_differs(monkeypatch):
    """A vectorised log that differs from the C library's in the last bit (NumPy's own, here) fails the probe,
    and then every value goes through math.log: the same numbers, never other bits silently."""
    y = np.random.default_rng(2).uniform(0, 0.075, 50000)
    assert not np.array_equal(np.log(y), np.array([math.log(v) for v in y.tolist()])), \
        "NumPy's log equals the C library's here: the probe cannot be shown to catch a difference"
    monkeypatch.setattr(rdist.scipy.special, "xlogy", lambda a, b: a * np.log(b))
    rdist._vector_log_is_c_log.cache_clear()
    try:
        assert rdist._vector_log_is_c_log() is False
        assert np.array_equal(_bits(c_log(y)), _bits(np.array([math.log(v) for v in y.tolist()])))
        z = np.random.default_rng(4).random(5000)
        assert np.array_equal(_bits(qnorm(z)), _bits(np.array([qnorm_scalar(v) for v in z.tolist()])))
    finally:
        monkeypatch.undo()
        rdist._vector_log_is_c_log.cache_clear()
    assert rdist._vector_log_is_c_log() is True


# ---- long double sums in order (pysdc.core.ldsum) ---------------------------------------------------------


def _seq(a) -> np.longdouble:
    """s = 0; s += a[i] in long double, in order (cumsum is sequential; + 0 as R's sum starting at +0)."""
    a = np.asarray(a, dtype=LD)
    return np.cumsum(a)[-1] + LD(0) if a.size else LD(0)


def _vectors():
    rng = np.random.default_rng(17)
    out = [np.zeros(0), np.array([-0.0]), np.array([-0.0, -0.0]), np.array([2.0**64, 1.0, -(2.0**64)]),
           np.array([1e308, 1e308, -1e308]), np.array([np.inf, 1.0]), np.array([np.inf, -np.inf]), np.array([np.nan, 1.0])]
    for n in (1, 7, 8191, 8192, 8193, 16385, 30000):
        out.append(rng.standard_normal(n) * 10.0 ** rng.integers(-15, 15, n))
        out.append(rng.lognormal(9.8, 0.6, n).round(2))
    return out


@pytest.mark.parametrize("sequential", [True, False], ids=["dot", "cumsum-fallback"])
def test_ld_sums_equal_the_sums_in_order(sequential, monkeypatch):
    if not sequential:
        monkeypatch.setattr(ldsum, "dot_is_sequential", lambda: False)
    else:
        assert ldsum.dot_is_sequential()
    with np.errstate(all="ignore"):
        for v in _vectors():
            for c in (LD(0), LD(1) / LD(3), LD(float(np.nanmean(v))) if v.size else LD(0)):
                assert ldsum.ld_sum(v) == _seq(v) or (np.isnan(ldsum.ld_sum(v)) and np.isnan(_seq(v)))
                got, want = ldsum.ld_sum(v, c), _seq(v.astype(LD) - c)
                assert got == want or (np.isnan(got) and np.isnan(want))
                d = v.astype(LD) - c
                got, want = ldsum.ld_sumsq(v, c), _seq(d * d)
                assert got == want or (np.isnan(got) and np.isnan(want))
                got, want = ldsum.ld_dot(d, v.astype(LD)), _seq(d * v.astype(LD))
                assert got == want or (np.isnan(got) and np.isnan(want))
    assert math.copysign(1.0, float(ldsum.ld_sum(np.array([-0.0, -0.0])))) == 1.0  # R's sum starts at +0


def _r_sd_plain(X):
    """apply(X, 2, sd, na.rm = TRUE) as R's cov.c: two-pass long double mean, deviations squared in long double."""
    out = []
    for j in range(X.shape[1]):
        v = X[:, j][~np.isnan(X[:, j])]
        m = v.size
        if m < 2:
            out.append(np.nan)
            continue
        tmp = _seq(v) / LD(m)
        if np.isfinite(tmp):
            tmp = tmp + _seq(v.astype(LD) - tmp) / LD(m)
        d = v.astype(LD) - LD(float(tmp))
        out.append(np.sqrt(float(_seq(d * d) / LD(m - 1))))
    return np.array(out)


def test_r_sd_equals_the_plain_definition():
    rng = np.random.default_rng(5)
    with np.errstate(all="ignore"):
        for n in (0, 1, 2, 3, 100, 8193, 20000):
            X = np.column_stack([rng.lognormal(9.8, 0.6, n).round(2), rng.standard_normal(n) * 1e12,
                                 np.full(n, 1e15) + rng.integers(0, 3, n), rng.standard_normal(n)])
            if n:
                X[rng.random(n) < 0.1, 3] = np.nan
            assert np.array_equal(_bits(r_sd(X)), _bits(_r_sd_plain(X)))


def _pairwise_differs():
    """A vector whose mean differs between NumPy's pairwise long double sum and the sum in order."""
    rng = np.random.default_rng(5)
    for _ in range(20000):
        v = rng.standard_normal(50) * 10.0 ** rng.integers(-3, 18, 50)
        m = LD(v.size)
        pw = np.add.reduce(v.astype(LD)) / m
        pw = float(pw + np.add.reduce(v.astype(LD) - pw) / m)
        if pw != r_mean(v):
            return v, pw
    raise AssertionError("no vector found")


def test_r_mean_sums_in_order():
    """R's mean adds in order (LDOUBLE loop); NumPy's add.reduce adds pairwise and can give another double."""
    v, pairwise = _pairwise_differs()
    m = LD(v.size)
    tmp = _seq(v) / m
    want = float(tmp + _seq(v.astype(LD) - tmp) / m)
    assert r_mean(v) == want != pairwise


@pytest.mark.rscript(sdcmicro=False)
def test_r_mean_equals_r_where_the_pairwise_sum_differs(tmp_path):
    v, pairwise = _pairwise_differs()
    src = tmp_path / "mean.R"
    src.write_text("v <- c(" + ", ".join(float(x).hex() for x in v) + ")\n"
                   "cat(sprintf('%a', c(mean(v), cov(cbind(v, rev(v)))[1, 2])), sep = '\\n')\n")
    out = subprocess.run(["Rscript", str(src)], capture_output=True, text=True, check=True).stdout.split()
    r_mean_v, r_cov = (float.fromhex(s) for s in out)
    assert r_mean(v) == r_mean_v != pairwise
    assert r_cov_complete(np.column_stack([v, v[::-1]]))[0, 1] == r_cov


# ---- globalRecode equalAmount: order statistics in bands (pysdc.protect._recode) -------------------------


@functools.cache
def _hard_inputs():
    rng = np.random.default_rng(23)
    n = 100_003
    step = n // 4096
    periodic = np.tile(np.arange(step, dtype=np.float64), n // step + 1)[:n]  # the sample sees one value only
    with_inf = rng.standard_normal(n)
    with_inf[rng.random(n) < 0.3] = np.inf
    with_inf[rng.random(n) < 0.1] = -np.inf
    return {
        "lognormal": rng.lognormal(9.8, 0.6, n).round(2),
        "sorted": np.sort(rng.standard_normal(n)),
        "reversed": np.sort(rng.standard_normal(n))[::-1].copy(),
        "ties": rng.integers(0, 7, n).astype(np.float64),
        "constant": np.full(n, 3.5),
        "periodic": periodic,
        "zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0) + (rng.random(n) < 0.5),
        "inf": with_inf,
        "at_threshold": rng.standard_normal(32768),
        "below_threshold": rng.standard_normal(32767),
        "large": rng.lognormal(9.8, 0.6, 1_000_003).round(2),  # the larger sample (n / 64 values)
    }


@pytest.mark.parametrize("name", list(_hard_inputs()))
@pytest.mark.parametrize("nbreaks", [2, 5, 10, 97])
def test_equal_amount_quantiles_equal_the_sorted_definition(name, nbreaks):
    """R's quantile(type 7) at 0, 1/n, ..., 1 from the bands equals the same formula on the sorted values."""
    x = _hard_inputs()[name]
    probs = np.concatenate(([0.0], np.arange(1, nbreaks + 1, dtype=np.float64) / nbreaks))
    xs = np.sort(x)
    index = 1 + (x.size - 1) * probs
    lo, hi = np.floor(index).astype(np.int64), np.ceil(index).astype(np.int64)
    want = xs[lo - 1].copy()
    for i in range(probs.size):
        h = index[i] - lo[i]
        if h != 0 and xs[hi[i] - 1] != want[i]:
            want[i] = (1 - h) * want[i] + h * xs[hi[i] - 1]
    got = _quantile7(x, probs)
    assert np.array_equal(got, want)
