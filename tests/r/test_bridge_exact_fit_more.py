"""The other bridge calls that reach robustbase's covMcd: shuffle(covmethod="mcd") and microaggregation("rmd").

``shuffle(covmethod = "mcd")`` on the methods' tester's seed-27 data (58 records, v2 = c * v1 plus noise of 1e-7)
and a third variable as predictor aborted the Python process through the bridge before the guard ("Fatal glibc
error: malloc assertion failure in _int_malloc", methods ds and mvn, seeds 1 to 5): its first covMcd gets the
responses and predictors as they are. The bridge now refuses it before R (:func:`pysdc.r._mcd_guard.check_shuffle`),
also through ``SdcObj.apply("shuffle", ...)``. ``microaggregation(method = "rmd")`` standardises each stratum first
(as dRiskRMD): the same data returned groups in R (no case of the overrun was found), but the bridge asks the check
all the same, with each stratum's standardised matrix. ``mcdpca`` and ``clustmcdpca`` call MASS's ``cov.mcd``,
not robustbase's covMcd: not checked. Every R call runs in a child process: a regression would abort it.
"""

import re

import numpy as np
import pandas as pd
import pytest

from pysdc.core.mcd import ExactFitOverrun
from pysdc.core.rrandom import RRandom

from _live import CHILD_CALL_LOOP, child_json, run_child

_DATA = r"""
import json, warnings
import numpy as np, pandas as pd
import pysdc, pysdc.r as R
from pysdc.parity._fuzz_data import make_dataset
warnings.simplefilter("ignore")
x = make_dataset(27, max_n=2000).x[["v1", "v2"]]
d = x.assign(s=np.arange(len(x)) % 7 + np.random.default_rng(1).normal(size=len(x)))
"""


# ---------------------------------------------------------------- shuffle: refused before R, R lives on
_SHUFFLE_REFUSED = _DATA + r"""
obj = R.SdcObj.create(d.assign(k=["a", "b"] * 29), ["k"], num_vars=["v1", "v2", "s"])
form = R.call("as.formula", "v1 + v2 ~ s", package="stats", as_robject=True)
calls = {f"shuffle {m} seed {s}": (lambda m=m, s=s: R.shuffle(d, "v1 + v2 ~ s", method=m, covmethod="mcd",
                                                               random_state=s))
         for m in ("ds", "mvn", "ds_cov") for s in (1, 2)}
calls["shuffle unseeded"] = lambda: R.shuffle(d, "v1 + v2 ~ s", covmethod="mcd")
calls["SdcObj.apply shuffle"] = lambda: obj.apply("shuffle", form=form, covmethod="mcd", seed=5)
""" + CHILD_CALL_LOOP


@pytest.mark.live
def test_shuffle_mcd_on_an_exact_fit_is_refused_before_r_and_r_lives_on():
    out = child_json(run_child(_SHUFFLE_REFUSED))
    assert out.pop("after") == 4.0
    for name, msg in out.items():
        assert "pysdc.r.shuffle" in msg and "exact fit" in msg, (name, msg)
        assert re.search(r"v2 = \S+ \* v1", msg), (name, msg)  # the relation between the responses


# ---------------------------------------------------------------- normal calls: sdcMicro's numbers unchanged
_UNCHANGED = r"""
import json, warnings
import numpy as np, pandas as pd
import pysdc, pysdc.r as R
import pysdc.r._mcd_guard as guard
warnings.simplefilter("ignore")
rng = np.random.default_rng(8)
n = 60
d = pd.DataFrame({"y1": rng.lognormal(3, 1, n), "y2": rng.normal(50, 5, n), "s": rng.normal(size=n),
                  "g": ["a", "b", "c"] * 20})
asked = []
real = guard.r_covmcd_overrun
def spy(X, rr, **kw):
    asked.append(kw.get("caller"))
    return real(X, rr, **kw)
guard.r_covmcd_overrun = spy
form = R.call("as.formula", "y1 + y2 ~ s", package="stats", as_robject=True)
out = {}
for m in ("ds", "mvn"):
    a = R.shuffle(d[["y1", "y2", "s"]], "y1 + y2 ~ s", method=m, covmethod="mcd", random_state=11)
    R.call("set.seed", 11, package="base")
    b = R.call("shuffle", d[["y1", "y2", "s"]], form=form, method=m, covmethod="mcd")
    out[f"shuffle {m}"] = [a.shuffled.to_numpy().tolist(), np.asarray(b["shuffled"]).tolist(),
                           a.egadp.to_numpy().tolist(), np.asarray(b["egapd"]).tolist()]
for strata in (None, ["g"]):
    a = R.microaggregation(d, variables=["y1", "y2", "s"], method="rmd", strata_variables=strata, random_state=4)
    R.call("set.seed", 4, package="base")
    kw = {"variables": ["y1", "y2", "s"], "method": "rmd"}
    if strata:
        kw["strata_variables"] = strata
    b = R.call("microaggregation", d, **kw)
    out[f"rmd {strata}"] = [a.mx.to_numpy().tolist(), pd.DataFrame(b["mx"]).to_numpy().tolist()]
out["asked"] = asked
print(json.dumps(out))
"""


@pytest.mark.live
def test_normal_calls_are_checked_and_give_sdcmicros_numbers_unchanged():
    out = child_json(run_child(_UNCHANGED))
    asked = out.pop("asked")
    assert asked.count("pysdc.r.shuffle") == 2  # the first covMcd of each shuffle, on R's stream
    assert asked.count("pysdc.r.microaggregation") == 1 + 3  # the whole data, then each of the 3 strata
    for name, pairs in out.items():
        for ours, direct in zip(pairs[::2], pairs[1::2]):
            np.testing.assert_array_equal(np.array(ours, dtype=float), np.array(direct, dtype=float), err_msg=name)


# ---------------------------------------------------------------- rmd: the check gets the standardised strata
_RMD_ASKED = r"""
import json, warnings
import numpy as np, pandas as pd
import pysdc, pysdc.r as R
import pysdc.r._mcd_guard as guard
warnings.simplefilter("ignore")
d = pd.DataFrame(np.random.default_rng(6).lognormal(2, 1, size=(58, 3)), columns=["v1", "v2", "s"])
from pysdc.core.mcd import ExactFitOverrun
seen = []
def fake(X, rr, *, names=None, caller=""):
    seen.append({"X": np.asarray(X).tolist(), "names": names, "caller": caller, "state": rr.random_seed.tolist()})
    return ExactFitOverrun("refused by the check", whole_data=True) if len(seen) in (2, 3) else None
guard.r_covmcd_overrun = fake
dd = d.assign(g=["a", "b"] * 29)
out = {}
try:
    R.microaggregation(dd, variables=["v1", "v2", "s"], method="rmd", strata_variables=["g"], random_state=3)
    out["result"] = "returned"
except pysdc.InvalidParameterError as e:
    out["result"] = str(e)
R.call("set.seed", 3, package="base")
out["seed3"] = np.asarray(R.call("get", ".Random.seed", package="base")).astype(int).tolist()
obj = R.SdcObj.create(dd.assign(k=["x", "y"] * 29), ["k"], num_vars=["v1", "v2", "s"])
seen_before = len(seen)
try:
    obj.microaggregation(method="rmd", seed=3)
    out["sdcobj"] = "returned"
except pysdc.InvalidParameterError as e:
    out["sdcobj"] = str(e)
out["seen"] = seen
out["seen_before"] = seen_before
out["after"] = float(R.call("sum", [1.5, 2.5], package="base"))
print(json.dumps(out))
"""


def _standardised(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


@pytest.mark.live
def test_rmd_asks_the_check_with_each_standardised_stratum_on_rs_stream():
    out = child_json(run_child(_RMD_ASKED))
    assert out["after"] == 4.0
    assert out["result"] == "refused by the check"  # the second stratum's answer stops the call
    assert out["sdcobj"] == "refused by the check"
    d = np.random.default_rng(6).lognormal(2, 1, size=(58, 3))
    g = np.array(["a", "b"] * 29)
    seen = out["seen"]
    first, second = seen[0], seen[1]
    np.testing.assert_allclose(first["X"], _standardised(d[g == "a"]), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(second["X"], _standardised(d[g == "b"]), rtol=1e-12, atol=1e-14)
    assert first["names"] == ["v1", "v2", "s"] and first["caller"] == "pysdc.r.microaggregation"
    assert first["state"] == out["seed3"]  # the first stratum on R's stream right after set.seed(3)
    assert second["state"] != out["seed3"]  # the second where the first stratum's covMcd left it
    sd_first = seen[out["seen_before"]]  # SdcObj: the manipulated numeric variables, whole data
    np.testing.assert_allclose(sd_first["X"], _standardised(d), rtol=1e-12, atol=1e-14)
    assert sd_first["state"] == out["seed3"]


# ---------------------------------------------------------------- the shuffle check without R
def _exact_fit_data() -> pd.DataFrame:
    from pysdc.parity._fuzz_data import make_dataset

    x = make_dataset(27, max_n=2000).x[["v1", "v2"]]
    return x.assign(s=np.arange(len(x)) % 7 + np.random.default_rng(1).normal(size=len(x)))


def _values(data, **kw):
    return {"data": data, "form": "v1 + v2 ~ s", "method": "ds", "covmethod": "mcd", "gadp": True,
            "weights": None, **kw}


@pytest.mark.parametrize("method", ["ds", "mvn", "ds_cov", "ds2"])
def test_shuffle_check_refuses_the_exact_fit(method, monkeypatch):
    import pysdc.r._mcd_guard as guard

    monkeypatch.setattr(guard, "_r_stream", lambda: RRandom(1))
    with pytest.raises(ExactFitOverrun, match=r"pysdc\.r\.shuffle.*v2 = \S+ \* v1"):
        guard.check_shuffle(_values(_exact_fit_data(), method=method))


@pytest.mark.parametrize("kw", [{"covmethod": "spearman"}, {"covmethod": "pearson"}, {"method": "mlm"}])
def test_shuffle_check_leaves_calls_without_covmcd_to_r(kw, monkeypatch):
    import pysdc.r._mcd_guard as guard

    monkeypatch.setattr(guard, "_r_stream", lambda: pytest.fail("R's stream read for a call without covMcd"))
    guard.check_shuffle(_values(_exact_fit_data(), **kw))


def test_shuffle_check_replays_the_later_covmcd_calls(monkeypatch):
    """The later covMcd calls (EGADP's residuals, the responses, the draws) are checked on the replay: an
    overrun reported there refuses too (the replay's cov_mcd stands in for robustbase's on R's stream)."""
    import pysdc.core.shuffle as kernels
    import pysdc.r._mcd_guard as guard

    rng = np.random.default_rng(2)
    data = pd.DataFrame({"v1": rng.normal(size=40), "v2": rng.normal(size=40), "s": rng.normal(size=40)})
    calls = []

    def mcd(x, rr):
        calls.append(np.asarray(x).shape)
        if len(calls) == 2:  # EGADP's residuals, after the shuffle's own covMcd
            raise ExactFitOverrun("overrun in the replay", whole_data=True)
        return kernels.cov_mcd(x, random_state=rr)

    monkeypatch.setattr(guard, "_r_stream", lambda: RRandom(3))
    monkeypatch.setattr(kernels, "_mcd", mcd)
    with pytest.raises(ExactFitOverrun, match=r"pysdc\.r\.shuffle"):
        guard.check_shuffle(_values(data))
    assert calls == [(40, 3), (40, 2)]
