"""pysdc.interval_frequency: the SDC handbook's frequency rule for continuous variables (a value is unsafe when
fewer than ``threshold`` released values lie in (x(1-p), x(1+p))), checked against counts done by hand from that
definition, an independent brute-force route, its refusals, and its place in the problem, the report and the CLI
(it joins them through its registry entry alone: ``assess="linkage"``)."""

from __future__ import annotations

import contextlib
import html as html_lib
import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError, SdcProblem
from pysdc._registry import by_python_name
from pysdc.cli import main
from pysdc.problem import html_report
from pysdc.report import risk_text

# x.a around 100 with a zero pair and a negative value; x.b two groups (1 and 5)
X = pd.DataFrame({"a": [100.0, 105.0, 118.0, 150.0, 0.0, 0.0, -40.0], "b": [1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0]})
Y = pd.DataFrame({"a": [101.0, 99.0, 130.0, 149.0, 0.5, 0.0, -41.0], "b": [1.0, 1.0, 1.0, 1.2, 5.0, 5.0, 4.4]})


def test_own_data_rule_by_hand():
    # p = 0.1: 100 -> (90, 110): {100, 105} = 2; 105 -> (94.5, 115.5): {100, 105} = 2; 118 -> (106.2, 129.8):
    # {118} = 1; 150 -> (135, 165): {150} = 1; 0 -> the zeros: 2; -40 -> (-44, -36): {-40} = 1
    r = pysdc.interval_frequency(X[["a"]], X[["a"]], ["a"], p=0.1, threshold=2)
    assert r.counts["a"].tolist() == [2, 2, 1, 1, 2, 2, 1]
    assert r.unsafe["a"].tolist() == [False, False, True, True, False, False, True]
    assert r.n_unsafe == 3 and r.n == 7
    assert r.rate == pytest.approx(3 / 7, rel=1e-15) and float(r) == r.rate
    assert r.per_variable["a"] == pytest.approx(3 / 7, rel=1e-15)


def test_released_file_two_variables_by_hand():
    # a: 100 -> (90, 110): y {101, 99} = 2; 105 -> (94.5, 115.5): {101, 99} = 2; 118 -> (106.2, 129.8): none = 0
    #    (130 outside); 150 -> (135, 165): {149} = 1; 0 -> zeros of y: 1 (0.5 is not 0); -40 -> (-44, -36): {-41} = 1
    # b: 1 -> (0.9, 1.1): {1, 1, 1} = 3 (1.2 outside); 5 -> (4.5, 5.5): {5, 5} = 2 (4.4 outside)
    r = pysdc.interval_frequency(X, Y, ["a", "b"], p=0.1, threshold=3)
    assert r.counts["a"].tolist() == [2, 2, 0, 1, 1, 1, 1]
    assert r.counts["b"].tolist() == [3, 3, 3, 3, 2, 2, 2]
    assert r.per_variable.to_dict() == {"a": 1.0, "b": pytest.approx(3 / 7, rel=1e-15)}
    assert r.n_unsafe == 7 and r.rate == 1.0
    r2 = pysdc.interval_frequency(X, Y, ["a", "b"], p=0.1, threshold=2)
    assert r2.unsafe["a"].tolist() == [False, False, True, True, True, True, True]
    assert not r2.unsafe["b"].any()
    assert r2.n_unsafe == 5 and r2.rate == pytest.approx(5 / 7, rel=1e-15)


def test_missing_values_are_not_assessed_nor_counted():
    # 105 -> (94.5, 115.5): {100, 105} = 2; 118 -> (106.2, 129.8): {118} = 1; the missing y is never counted
    x = pd.DataFrame({"a": [np.nan, 105.0, 118.0]})
    y = pd.DataFrame({"a": [100.0, 105.0, np.nan, 118.0]})
    r = pysdc.interval_frequency(x, y, ["a"], p=0.1, threshold=2)
    c = r.counts["a"].tolist()
    assert np.isnan(c[0]) and c[1:] == [2, 1]
    assert r.unsafe["a"].tolist() == [False, False, True]
    assert r.per_variable["a"] == 0.5 and r.n_unsafe == 1 and r.rate == pytest.approx(1 / 3, rel=1e-15)


def test_defaults_are_the_handbooks_example():
    # p = 0.2, "smaller than 3": 100 -> (80, 120): {100, 105, 118} = 3, safe; 150 -> (120, 180): {150} = 1
    r = pysdc.interval_frequency(X[["a"]], X[["a"]], ["a"])
    assert r.p == 0.2 and r.threshold == 3
    assert r.counts["a"].tolist()[:4] == [3, 3, 3, 1]


def test_agrees_with_a_brute_force_count():
    rng = np.random.default_rng(7)
    x = pd.DataFrame({"u": rng.lognormal(3, 1, 400), "v": rng.normal(0, 50, 400)})
    x.loc[:9, "v"] = 0.0
    y = x * rng.normal(1, 0.1, x.shape)
    y.loc[:4, "v"] = 0.0
    r = pysdc.interval_frequency(x, y, ["u", "v"], p=0.15, threshold=4)
    for v in ("u", "v"):
        xv, yv = x[v].to_numpy()[:, None], y[v].to_numpy()[None, :]
        brute = (np.abs(yv - xv) < 0.15 * np.abs(xv)).sum(axis=1)  # n x n: every pair compared
        brute[xv[:, 0] == 0] = (yv == 0).sum()  # a zero: the zeros of y
        np.testing.assert_array_equal(r.counts[v].to_numpy(), brute)
    # the order of the released records does not matter
    r2 = pysdc.interval_frequency(x, y.sample(frac=1.0, random_state=1), ["u", "v"], p=0.15, threshold=4)
    pd.testing.assert_frame_equal(r.counts, r2.counts)


@pytest.mark.parametrize("kw, msg", [
    ({"p": 0.0}, "p"), ({"p": 1.0}, "p"), ({"threshold": 0.5}, "threshold"),
])
def test_refuses_parameters_outside_their_range(kw, msg):
    with pytest.raises(InvalidParameterError, match=msg):
        pysdc.interval_frequency(X, Y, ["a", "b"], **kw)


def test_refuses_text_infinite_and_missing_columns():
    with pytest.raises(InvalidParameterError, match="continuous"):
        pysdc.interval_frequency(X.assign(t=list("abcdefg")), Y.assign(t=list("abcdefg")), ["t"])
    with pytest.raises(InvalidParameterError, match="infinite"):
        pysdc.interval_frequency(X.assign(a=[np.inf, *X["a"][1:]]), Y, ["a"])
    with pytest.raises(InvalidParameterError, match="not columns of y"):
        pysdc.interval_frequency(X, Y[["a"]], ["a", "b"])


# ------------------------------------------------------------------- the problem, the report, the CLI (registry only)

NUMS = ["inc", "exp"]


def _pair(n=120, seed=3):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"k": rng.integers(1, 4, n), "t": rng.choice(["a", "b"], n).astype(object),
                      "inc": np.round(rng.lognormal(7.0, 0.8, n), 2), "exp": np.round(rng.lognormal(6.0, 0.5, n), 2)})
    xm = x.copy()
    for v in NUMS:
        xm[v] = np.round(x[v] * rng.normal(1.0, 0.05, n), 2)
    return x, xm


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_joins_the_problem_the_model_and_the_reports():
    x, xm = _pair()
    direct = pysdc.interval_frequency(x[NUMS], xm[NUMS], NUMS)
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    r = _quiet(p.risk, masked=xm, suda=False)
    assert r.linkage["results"]["interval_frequency"].rate == direct.rate
    e = r.to_dict()["linkage"]["measures"]["interval_frequency"]
    assert e["status"] == "ok" and e["value"] == direct.rate and e["n_unsafe"] == direct.n_unsafe
    flat = " ".join(risk_text(r.to_dict()).split())
    assert "interval_frequency rate" in flat and " ".join(by_python_name("interval_frequency").attacker.split()) in flat
    doc = html_lib.unescape(_quiet(html_report, p, xm, plots=False, random_state=1))
    assert "interval_frequency n_unsafe" in doc and by_python_name("interval_frequency").description in doc


def test_joins_the_cli(tmp_path):
    x, xm = _pair()
    x.to_csv(tmp_path / "x.csv", index=False)
    xm.to_csv(tmp_path / "xm.csv", index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["risk", str(tmp_path / "x.csv"), "--keys", "k,t", "--numeric", ",".join(NUMS), "--masked",
                   str(tmp_path / "xm.csv"), "--no-suda", "--json", "--engine", "pandas"])
    assert rc == 0
    e = json.loads(out.getvalue())["linkage"]["measures"]["interval_frequency"]
    assert e["status"] == "ok" and e["n_unsafe"] == pysdc.interval_frequency(x[NUMS], xm[NUMS], NUMS).n_unsafe
