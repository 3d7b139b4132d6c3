"""rankSwap in the methods' differential tester (pysdc.parity._fuzz_methods): its random calls (several variables,
ties, missing values, integer keys, varied TopPercent/BottomPercent/P/R0, int seeds) compared value for value with
sdcMicro 5.8.0 through the bridge, and sdcMicro's undefined cases (one extreme group empty but not the other)
counted as refusals on both sides."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import pysdc.protect
from pysdc._errors import InvalidParameterError
from pysdc._registry._methods import METHODS
from pysdc._registry._methods_swap import _one_extreme_group_empty
from pysdc.parity import load_divergences
from pysdc.parity._fuzz_data import make_dataset
from pysdc.parity._fuzz_methods import NOT_COMPARED, compared_methods, method_variants, run_methods

SEEDS = range(1, 61)


def _rank_swap(seed):
    ds = make_dataset(seed, max_n=2000)
    [v] = [v for v in method_variants(ds, np.random.default_rng([seed, 3])) if v[0] == "rankSwap"]
    return v


def _undefined(args, data):
    """The bridge's own test of sdcMicro's undefined case, variable by variable."""
    return any(_one_extreme_group_empty(int(data[c].notna().sum()), args.get("TopPercent", 5),
                                        args.get("BottomPercent", 5)) for c in args["variables"])


def _fake(**kw):
    fake = types.SimpleNamespace(**{m.python: m.native for m in METHODS})
    for k, v in kw.items():
        setattr(fake, k, v)
    return fake


# ------------------------------------------------------------------------------------------ without R


def test_rank_swap_is_compared():
    assert "rankSwap" in compared_methods() and "rankSwap" not in NOT_COMPARED
    assert "recordSwap" in NOT_COMPARED


def test_rank_swap_calls_are_varied_and_realistic():
    calls = [_rank_swap(s) for s in SEEDS]
    labels = {lab for _, v, _, _ in calls for lab in v.split("+")}
    assert labels >= {"P", "R0", "default", "ties", "na", "intkey", "undefined"}
    args = [a for _, _, a, _ in calls]
    assert {a["P"] for a in args if "P" in a} >= {0.005, 0.05, 1.0}
    assert {a["R0"] for a in args if "R0" in a} >= {0.0, 0.95, 1.0}
    assert {a.get("TopPercent", 5) for a in args} >= {0.0, 0.5, 5.0, 25.0}
    assert {a["seed"] for a in args} >= {0, 2 ** 31 - 1} and all(isinstance(a["seed"], int) for a in args)
    assert all(len(a["variables"]) >= 2 for a in args)
    # ties and missing values in the swapped variables themselves
    assert any(d[a["variables"]].apply(lambda s: s.dropna().duplicated().any()).all() for _, _, a, d in calls)
    assert sum(d[a["variables"]].isna().any().any() for _, _, a, d in calls) >= 10


def test_rank_swap_calls_are_the_seeds():
    a, b = _rank_swap(7), _rank_swap(7)
    assert a[:3] == b[:3] and a[3].equals(b[3])
    assert a[2] != _rank_swap(8)[2]


def test_undefined_label_is_sdcmicros_undefined_case():
    calls = [_rank_swap(s) for s in SEEDS]
    assert all(("undefined" in v.split("+")) == _undefined(a, d) for _, v, a, d in calls)
    share = sum("undefined" in v for _, v, _, _ in calls) / len(calls)
    assert 0.03 <= share <= 0.3  # mostly defined calls, some undefined ones


def test_other_methods_draws_are_unchanged_by_rank_swap():
    """rankSwap's call has a stream of its own: the other calls are those drawn before it was added."""
    ds = make_dataset(5, max_n=2000)
    out = method_variants(ds, np.random.default_rng([5, 3]))
    assert out[-1][0] == "rankSwap" and all(v[0] != "rankSwap" for v in out[:-1])


def _seed_with(pred):
    return next(s for s in SEEDS if pred(*_rank_swap(s)[1:]))


def test_native_warning_on_undefined_case_counts_as_refusal():
    """pysdc warns where sdcMicro has no defined result; the bridge refuses: both refusing is agreement."""
    seed = _seed_with(lambda v, a, d: "undefined" in v)

    def refuse(*a, **k):
        raise InvalidParameterError("planted refusal")

    outs = run_methods(make_dataset(seed, max_n=2000), (), bridge_mod=_fake(rank_swap=refuse), methods={"rankSwap"})
    assert [o.status for o in outs] == ["both-refused"]
    assert "UndefinedInSdcMicro" in outs[0].detail and "no defined result" in outs[0].detail


def test_native_without_warning_on_undefined_case_is_a_mismatch():
    seed = _seed_with(lambda v, a, d: "undefined" in v)

    def quiet(*a, **k):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pysdc.protect.rank_swap(*a, **k)

    def refuse(*a, **k):
        raise InvalidParameterError("planted refusal")

    outs = run_methods(make_dataset(seed, max_n=2000), (), native_mod=_fake(rank_swap=quiet),
                       bridge_mod=_fake(rank_swap=refuse), methods={"rankSwap"})
    assert [o.status for o in outs] == ["mismatch"] and outs[0].field == "(error)"


def test_one_value_off_is_a_mismatch():
    """The comparison is value for value: one swapped value moved by one ulp is found."""
    seed = _seed_with(lambda v, a, d: "undefined" not in v)
    _, _, args, _ = _rank_swap(seed)

    def off(data, *a, **k):
        out = pysdc.protect.rank_swap(data, *a, **k)
        c = args["variables"][0]
        i = out[c].first_valid_index()
        out.loc[i, c] = np.nextafter(out.loc[i, c], np.inf)
        return out

    outs = run_methods(make_dataset(seed, max_n=2000), (), native_mod=_fake(rank_swap=off), bridge_mod=_fake(),
                       methods={"rankSwap"})
    assert [o.status for o in outs] == ["mismatch"] and "differ from sdcMicro" in outs[0].detail


# ------------------------------------------------------------------------------------------ live


@pytest.mark.live
def test_rank_swap_equals_sdcmicro_on_random_calls(bridge):
    outs = [o for s in range(1, 31)
            for o in run_methods(make_dataset(s, max_n=2000), load_divergences(), bridge_mod=bridge,
                                 methods={"rankSwap"})]
    assert len(outs) == 30
    bad = [f"seed {o.seed} {o.variant}: {o.detail}" for o in outs if o.status not in ("agree", "both-refused")]
    assert not bad, bad
    # refused by both exactly where sdcMicro has no defined result; every other call equal value for value
    assert all((o.status == "both-refused") == ("undefined" in o.variant) for o in outs)
    assert sum(o.status == "agree" for o in outs) >= 20
