"""robustbase's covMcd on an exact fit it cannot resolve corrupts R's memory: the bridge refuses it before R.

The data of the methods' tester's seed 27 (58 records, v2 = c * v1 plus noise of 1e-7): ``mvTopCoding`` through
the bridge aborted the Python process (``munmap_chunk(): invalid pointer``, exit 134) -- valgrind shows
robustbase's FAST-MCD reading and writing past its arrays. The bridge now asks the native replica of
robustbase's search (:func:`pysdc.core.mcd.r_covmcd_overrun`) first. Exact fits that R resolves itself
(exactly collinear variables, a constant variable, more than half of the records identical) keep R's
behaviour: sdcMicro's own error. Every R call runs in a child process: a regression would abort it.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.core.distance import r_scale
from pysdc.core.mcd import ExactFitOverrun, cov_mcd, r_covmcd_overrun
from pysdc.parity._fuzz_data import make_dataset

from _live import CHILD_CALL_LOOP, run_child


def _near_collinear() -> pd.DataFrame:
    return make_dataset(27, max_n=2000).x[["v1", "v2"]]


def _r_resolved() -> dict:
    """Exact fits that robustbase resolves (valgrind-clean): name -> data."""
    rng = np.random.default_rng(1)
    n = 58
    v1, v2, v3 = rng.normal(100, 10, n), rng.normal(50, 5, n), rng.lognormal(3, 1, n)
    ident = pd.DataFrame({"v1": v1, "v2": v2, "v3": v3})
    ident.iloc[:40] = [1.0, 2.0, 3.0]
    return {
        "exactly collinear": pd.DataFrame({"v1": v1, "v2": 2 * v1}),
        "constant variable": pd.DataFrame({"v1": v1, "v2": 5.0, "v3": v3}),
        "more than half identical": ident,
        "exact plane of three": pd.DataFrame({"v1": v1, "v2": v2, "v3": 3 * v1 - 2 * v2}),
    }


# ---------------------------------------------------------------- the check (no R)
def test_check_finds_the_exact_fit_and_names_the_collinear_variables():
    err = r_covmcd_overrun(_near_collinear(), 27)
    assert isinstance(err, ExactFitOverrun) and isinstance(err, pysdc.InvalidParameterError)
    msg = str(err)
    assert "exact fit" in msg and "hyperplane" in msg and "collinear" in msg
    assert "v1 = " in msg and "* v2" in msg  # the relation between the two variables
    assert err.whole_data


@pytest.mark.parametrize("seed", [1, 27, 4242])
def test_check_does_not_depend_on_being_lucky_with_the_seed(seed):
    assert r_covmcd_overrun(_near_collinear(), seed) is not None


@pytest.mark.parametrize("name", list(_r_resolved()))
def test_check_leaves_exact_fits_that_r_resolves_to_r(name):
    assert r_covmcd_overrun(_r_resolved()[name], 27) is None


def test_check_leaves_split_data_sets_to_r():
    # 1,500 records: robustbase's subset runs past its subdataset, inside its work arrays (valgrind-clean)
    x = make_dataset(4, max_n=2000).x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ExactFitOverrun) as info:
            cov_mcd(x, random_state=3)
    assert not info.value.whole_data and "corrupted" not in str(info.value) and "v4 = " in str(info.value)
    assert r_covmcd_overrun(x, 3) is None


def test_native_cov_mcd_raises_the_shared_error_with_the_names():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ExactFitOverrun, match=r"v1 = .*\* v2"):
            cov_mcd(_near_collinear(), random_state=27)


# ---------------------------------------------------------------- through the bridge (child processes)
_REFUSED = r"""
import json, warnings
import pandas as pd
import pysdc, pysdc.r as R
from pysdc.parity._fuzz_data import make_dataset
warnings.simplefilter("ignore")
x = make_dataset(27, max_n=2000).x[["v1", "v2"]]
obj = R.SdcObj.create(pd.concat([pd.Series(["a", "b"] * 29, name="k"), x], axis=1), ["k"], num_vars=["v1", "v2"])
calls = {
    "mv_top_coding seeded": lambda: R.mv_top_coding(x, random_state=27),
    "mv_top_coding unseeded": lambda: R.mv_top_coding(x),
    "add_noise outdect": lambda: R.add_noise(x, method="outdect", random_state=3),
    "SdcObj.add_noise outdect": lambda: obj.add_noise(method="outdect", seed=5),
}
""" + CHILD_CALL_LOOP


@pytest.mark.live
def test_bridge_refuses_before_r_and_r_lives_on():
    res = run_child(_REFUSED)
    assert res.returncode == 0, f"the child died (exit {res.returncode}): {res.stderr[-2000:]}"
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out.pop("after") == 4.0
    for name, msg in out.items():
        assert "exact fit" in msg and "v1 = " in msg and "* v2" in msg, (name, msg)


_RESOLVED = r"""
import json, warnings
import numpy as np, pandas as pd
import pysdc, pysdc.r as R
warnings.simplefilter("ignore")
data = {name: pd.read_csv(path) for name, path in INPUTS.items()}
out = {}
for name, x in data.items():
    for what, f in (("mv_top_coding", lambda: R.mv_top_coding(x, random_state=27)),
                    ("add_noise", lambda: R.add_noise(x, method="outdect", random_state=27))):
        try:
            f()
            out[f"{what} {name}"] = "returned"
        except pysdc.RCallError as e:
            out[f"{what} {name}"] = "RCallError: " + e.r_message
        except pysdc.InvalidParameterError as e:
            out[f"{what} {name}"] = "InvalidParameterError: " + str(e)
out["after"] = float(R.call("sum", [1.5, 2.5], package="base"))
print(json.dumps(out))
"""


@pytest.mark.live
def test_exact_fits_that_r_resolves_keep_r_behaviour(tmp_path):
    inputs = {}
    for i, (name, x) in enumerate(_r_resolved().items()):
        inputs[name] = str(tmp_path / f"x{i}.csv")
        x.to_csv(inputs[name], index=False, float_format="%.17g")  # read back to the bit
    res = run_child(f"INPUTS = {inputs!r}\n" + _RESOLVED)
    assert res.returncode == 0, f"the child died (exit {res.returncode}): {res.stderr[-2000:]}"
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out.pop("after") == 4.0
    for name, what in out.items():
        assert what.startswith("RCallError:") and "singular" in what, (name, what)


# ---------------------------------------------------------------- the measures reach the check
@pytest.mark.live
@pytest.mark.parametrize("call", ["d_risk_rmd", "d_utility"])
def test_measures_that_call_covmcd_ask_the_check_with_the_scaled_data(call, monkeypatch):
    import pysdc.r as R
    import pysdc.r._mcd_guard as guard

    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    xm = x + rng.normal(scale=0.1, size=x.shape)
    seen = []

    def fake(X, rr, *, names=None, caller=""):
        seen.append((np.array(X), names, caller))
        return ExactFitOverrun("refused by the check", whole_data=True)

    monkeypatch.setattr(guard, "r_covmcd_overrun", fake)
    with pytest.raises(ExactFitOverrun, match="refused by the check"):
        if call == "d_risk_rmd":
            R.d_risk_rmd(x, xm, random_state=1)
        else:
            R.d_utility(x, xm, method="robeigen", random_state=1)
    X, names, caller = seen[0]
    np.testing.assert_array_equal(X, r_scale(x.to_numpy()))
    assert names == ["a", "b", "c"] and caller == f"pysdc.r.{call}"
