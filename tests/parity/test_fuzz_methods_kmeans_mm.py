"""microaggregation's clustermethod kmeans and shuffle's regmethod MM in the methods' differential tester
(pysdc.parity._fuzz_methods): drawn from streams of their own (the other calls unchanged), reproducible by seed,
pysdc's documented MM refusal on an exact fit counted as explained, and a few calls compared with sdcMicro 5.8.0."""

from __future__ import annotations

import types

import numpy as np
import pytest

import pysdc.protect
from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import METHODS
from pysdc.core import rlm
from pysdc.parity import _fuzz_methods as fm
from pysdc.parity import load_divergences
from pysdc.parity._fuzz_data import make_dataset
from pysdc.parity._fuzz_methods import method_variants, run_methods

SEEDS = range(1, 61)
CLUSTERING = ("clustpca", "clustpppca", "clustmcdpca", "influence")


def _calls(seed):
    return method_variants(make_dataset(seed, max_n=2000), np.random.default_rng([seed, 3]))


def _fake(**kw):
    fake = types.SimpleNamespace(**{m.python: m.native for m in METHODS})
    for k, v in kw.items():
        setattr(fake, k, v)
    return fake


def _first_seed(pred):
    return next(s for s in SEEDS if any(pred(*c) for c in _calls(s)))


# ------------------------------------------------------------------------------------------ without R


def test_clustering_draws_include_kmeans():
    calls = [c for s in SEEDS for c in _calls(s)
             if c[0] == "microaggregation" and c[2]["method"] in CLUSTERING]
    drawn = [a["clustermethod"] for _, _, a, _ in calls]
    assert set(drawn) == {"clara", "pam", "kmeans"}
    assert 0.15 <= drawn.count("kmeans") / len(drawn) <= 0.5
    # kmeans only for the clustering methods, seeded (R's stream), and named in the variant
    assert all("+kmeans" in v and a["method"] in CLUSTERING and isinstance(a["seed"], int)
               for s in SEEDS for r, v, a, _ in _calls(s) if a.get("clustermethod") == "kmeans")
    assert {a["method"] for _, _, a, _ in calls if a["clustermethod"] == "kmeans"} >= {"clustpca", "influence",
                                                                                     "clustpppca"}


def test_shuffle_draws_include_mm():
    calls = [c for s in SEEDS for c in _calls(s) if c[0] == "shuffle"]
    mm = [c for c in calls if c[2].get("regmethod") == "MM"]
    assert 0.2 <= len(mm) / len(calls) <= 0.6
    assert all(v.endswith("+MM") for _, v, _, _ in mm)
    assert all("regmethod" not in a and "MM" not in v for _, v, a, _ in calls if a not in [c[2] for c in mm])
    assert {a.get("covmethod", "spearman") for _, _, a, _ in mm} == {"spearman", "pearson"}


def test_draws_are_the_seeds():
    a, b = _calls(24), _calls(24)
    assert [c[:3] for c in a] == [c[:3] for c in b] and all(x[3].equals(y[3]) for x, y in zip(a, b))
    assert [c[:3] for c in a] != [c[:3] for c in _calls(25)]


def test_other_draws_are_unchanged_by_kmeans_and_mm(monkeypatch):
    """kmeans and MM come from streams of their own: with neither drawn, every call is as before, and with them
    only clustermethod/regmethod (and the variant's label) differ."""
    seeds = [s for s in SEEDS if any(a.get("clustermethod") == "kmeans" or a.get("regmethod") == "MM"
                                     for _, _, a, _ in _calls(s))][:12]
    now = {s: _calls(s) for s in seeds}
    monkeypatch.setattr(fm, "KMEANS_SHARE", 0.0)
    monkeypatch.setattr(fm, "MM_SHARE", 0.0)
    changed = 0
    for s in seeds:
        before = _calls(s)
        assert [c[0] for c in before] == [c[0] for c in now[s]]
        for (_r, v0, a0, d0), (_, v1, a1, d1) in zip(before, now[s]):
            assert d0.equals(d1)
            if a1.get("clustermethod") == "kmeans":
                assert a0["clustermethod"] in ("clara", "pam") and v1 == v0.replace(f"+{a0['clustermethod']}",
                                                                                      "+kmeans")
                a0 = {**a0, "clustermethod": "kmeans"}
                changed += 1
            elif a1.get("regmethod") == "MM":
                assert "regmethod" not in a0 and v1 == v0 + "+MM"
                a0 = {**a0, "regmethod": "MM"}
                changed += 1
            else:
                assert v0 == v1
            assert a0 == a1
    assert changed >= len(seeds)


def _mm_seed():
    return _first_seed(lambda r, v, a, d: a.get("regmethod") == "MM")


def test_mm_exact_fit_refusal_on_pysdcs_side_only_is_explained():
    """pysdc's MM stops on an exact fit and points to the bridge; sdcMicro returns a result: explained."""
    def exact_fit(*a, **k):
        rlm._exact_fit()

    outs = run_methods(make_dataset(_mm_seed(), max_n=2000), (), native_mod=_fake(shuffle=exact_fit),
                       bridge_mod=_fake(), methods={"shuffle"})
    assert [o.status for o in outs] == ["explained"] and "exactly on one fit" in outs[0].reason


def test_other_one_sided_refusal_stays_a_mismatch():
    def refuse(*a, **k):
        raise InvalidParameterError("planted refusal")

    seed = _mm_seed()
    outs = run_methods(make_dataset(seed, max_n=2000), (), native_mod=_fake(shuffle=refuse), bridge_mod=_fake(),
                       methods={"shuffle"})
    assert [o.status for o in outs] == ["mismatch"] and outs[0].field == "(error)"

    def exact_fit(*a, **k):  # the exact-fit refusal on sdcMicro's side (pysdc returning) is not explained
        rlm._exact_fit()

    outs = run_methods(make_dataset(seed, max_n=2000), (), bridge_mod=_fake(shuffle=exact_fit), methods={"shuffle"})
    assert [o.status for o in outs] == ["mismatch"]


def test_one_value_off_in_mm_shuffle_is_a_mismatch():
    seed = _mm_seed()

    def off(data, *a, **k):
        out = pysdc.protect.shuffle(data, *a, **k)
        c = out.columns[0]
        i = out[c].first_valid_index()
        out.loc[i, c] = out.loc[i, c] * (1 + 1e-9)
        return out

    outs = run_methods(make_dataset(seed, max_n=2000), (), native_mod=_fake(shuffle=off), bridge_mod=_fake(),
                       methods={"shuffle"})
    assert [o.status for o in outs] == ["mismatch"]


# ------------------------------------------------------------------------------------------ live

KMEANS_SEEDS = (3, 5, 21, 24, 31, 36, 41, 46, 54, 57)
MM_SEEDS = (2, 4, 8, 10, 16, 18, 32, 38)


@pytest.mark.live
def test_kmeans_calls_equal_sdcmicro(bridge):
    outs = [o for s in KMEANS_SEEDS
            for o in run_methods(make_dataset(s, max_n=2000), load_divergences(), bridge_mod=bridge,
                                 methods={"microaggregation"}) if "+kmeans" in o.variant]
    assert len(outs) == len(KMEANS_SEEDS)
    bad = [f"seed {o.seed} {o.variant}: {o.detail}" for o in outs if o.status not in ("agree", "both-refused")]
    assert not bad, bad
    assert sum(o.status == "agree" for o in outs) >= 7


@pytest.mark.live
def test_mm_shuffle_calls_equal_sdcmicro(bridge):
    outs = [o for s in MM_SEEDS
            for o in run_methods(make_dataset(s, max_n=2000), load_divergences(), bridge_mod=bridge,
                                 methods={"shuffle"})]
    assert len(outs) == len(MM_SEEDS) and all(o.variant.endswith("+MM") for o in outs)
    bad = [f"seed {o.seed} {o.variant}: {o.detail}" for o in outs if o.status not in ("agree", "both-refused")]
    assert not bad, bad
    assert sum(o.status == "agree" for o in outs) >= 6
