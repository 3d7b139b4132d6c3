"""suda2 (SUDA2 special uniques, DIS-SUDA): hand-worked examples, properties, validation,
stored parity with sdcMicro 5.8.0 (r_reference/outputs/suda2.json) and a live check."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import CoercionWarning, DegenerateResultWarning, InvalidParameterError
from pysdc._registry._toolbox import suda2_r_labels
from pysdc._tolerances import ROW_SUMS, tolerance_for
from pysdc.core.suda2 import hash16, score_weights, suda2_core
from pysdc.io import read_table
from pysdc.risk._suda2 import Suda2Result, suda2

REF = Path(__file__).resolve().parents[2] / "r_reference"
OUTPUT = REF / "outputs" / "suda2.json"


def _tol(field: str) -> dict:
    t = tolerance_for("suda2", field)
    return {"rtol": t.rtol, "atol": t.atol}


# ------------------------------------------------------------------ hand-worked examples

def test_hand_worked_elliot3():
    """Three records (a, b, c) = (2, 0, 0), (1, 3, 6), (1, 0, 0), p = 3 keys.

    Record 1: a = 2 occurs once -> 1-MSU {a}; {b} and {c} are shared with record 3 and
    {b, c} = (0, 0) too, so no other MSU. Weights (original): w1 = (3-1)! = 2, w2 = 1!
    = 1, w3 = 0! = 1. Score 2, all of it from a.
    Record 2: b = 3 and c = 6 are unique -> two 1-MSUs; {a} = 1 is shared. Score 4,
    half b, half c.
    Record 3: no single value is unique ({a}=1 shared with 2, {b}=0 and {c}=0 with 1),
    {a, b} = (1, 0) and {a, c} = (1, 0) are unique -> two 2-MSUs; {b, c} = (0, 0) shared.
    Score 2 * 1 = 2; a is in both MSUs (2/2 = 1), b and c in one each (1/2).
    Attribute contributions: a: (1*2 + 0 + 1*2) / 8 = 50 %, b: (0 + 0.5*4 + 0.5*2) / 8
    = 37.5 %, c likewise.
    DIS: every record is alone in its hash bucket (U = 3), no pair (P = 0), so D = 1,
    U / D - U = 0 and every DIS score is 1 / (1 + 0) = 1.
    """
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    r = suda2(df, ["a", "b", "c"])
    assert isinstance(r, Suda2Result)
    np.testing.assert_array_equal(r.score, [2.0, 4.0, 2.0])
    np.testing.assert_array_equal(r.dis_score, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(r.contribution_percent.to_numpy(),
                                  [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [1.0, 0.5, 0.5]])
    np.testing.assert_array_equal(r.attribute_contributions["contribution"], [50.0, 37.5, 37.5])
    assert list(r.attribute_contributions["variable"]) == ["a", "b", "c"]
    core = suda2_core(df.to_numpy(), -999)
    np.testing.assert_array_equal(core.per_record("msu_counts"), [[1, 0, 0], [2, 0, 0], [0, 2, 0]])


def test_hand_worked_hand6():
    """Six records (x, y, z): (1,1,1) (1,1,2) (1,2,1) (2,2,1) (2,3,1) (2,3,1); p = 3.

    Records 5 and 6 are identical -> score 0. No value occurs once except z = 2
    (record 2): 1-MSU {z} for record 2 (its {x,y} = (1,1) is shared with record 1).
    Record 1 (1,1,1): {x,y} = (1,1) shared with 2, {x,z} = (1,1) shared with 3,
    {y,z} = (1,1) unique (record 2 has z = 2) -> one 2-MSU {y, z}.
    Record 2: {z} is a 1-MSU, so only sets without z can add: {x, y} = (1,1) shared -> score
    w1 = 2.
    Record 3 (1,2,1): {x,y} = (1,2) unique; {x,z} = (1,1) shared with 1; {y,z} = (2,1)
    shared with 4 -> one 2-MSU {x, y}.
    Record 4 (2,2,1): {x,y} = (2,2) unique; {y,z} = (2,1) shared; {x,z} = (2,1) shared with
    5, 6 -> one 2-MSU {x, y}.
    Scores (original weights 2, 1, 1): 1, 2, 1, 1, 0, 0. IHSN weights for p = 3:
    w_k = (2**(3-k) - 1) k! (3-k)! / 3!: w1 = 3 * 1 * 2 / 6 = 1, w2 = 1 * 2 * 1 / 6 = 1/3,
    w3 = 0 -> scores 1/3, 1, 1/3, 1/3, 0, 0.
    Hash buckets: h = 4x + 2y + z gives 7, 8, 9, 13, 15, 15: U = 4 records alone,
    P = 2 (one pair). With f = 0.01: D = 0.04 / (0.04 + 2 * 0.99) (single precision).
    """
    df = pd.DataFrame({"x": [1, 1, 1, 2, 2, 2], "y": [1, 1, 2, 2, 3, 3], "z": [1, 2, 1, 1, 1, 1]})
    r = suda2(df, ["x", "y", "z"])
    np.testing.assert_array_equal(r.score, [1.0, 2.0, 1.0, 1.0, 0.0, 0.0])
    r2 = suda2(df, ["x", "y", "z"], original_scores=False)
    np.testing.assert_allclose(r2.score, [1 / 3, 1.0, 1 / 3, 1 / 3, 0.0, 0.0], rtol=1e-15)
    np.testing.assert_array_equal(hash16(df.to_numpy()), [7, 8, 9, 13, 15, 15])
    # DIS by the formula, single-precision pieces as sdcMicro
    f = np.float32(0.01)
    u = np.float32(4)
    d = (u * f) / (u * f + np.float32(2) * (np.float32(1) - f))
    x = float(np.float32(u / d) - u)
    q = float(np.float32(1) + (np.float32(8) - np.float32(3)) / np.float32(20))
    s = np.array([1.0, 2.0, 1.0, 1.0])
    adj = sum(1.0 / v**q for v in s)
    np.testing.assert_allclose(r.dis_score[:4], 1.0 / (1.0 + x / (s**q * adj)), rtol=1e-15)
    assert list(r.dis_score[4:]) == [0.0, 0.0]


def test_score_weights():
    """(p - k)! for the original scores; (2^(p-k) - 1) k! (p-k)! / p! for the IHSN ones."""
    p = 5
    np.testing.assert_array_equal(score_weights(p, True), [math.factorial(p - k) for k in range(1, p + 1)])
    expect = [(2 ** (p - k) - 1) * math.factorial(k) * math.factorial(p - k) / math.factorial(p)
              for k in range(1, p + 1)]
    np.testing.assert_allclose(score_weights(p, False), expect, rtol=1e-15)


# ------------------------------------------------------------------ properties

def _brute_msu_counts(values: np.ndarray, missing: int) -> np.ndarray:
    """MSU counts per record and size by definition (loops; for tiny data only)."""
    n, p = values.shape
    out = np.zeros((n, p), dtype=np.int64)
    unique = {}
    for k in range(1, p + 1):
        for s in itertools.combinations(range(p), k):
            proj = [tuple(row) for row in values[:, s]]
            counts = pd.Series(proj).value_counts()
            unique[s] = np.array([counts[t] == 1 for t in proj])
    for i in range(n):
        for k in range(1, p + 1):
            for s in itertools.combinations(range(p), k):
                if any(values[i, v] == missing for v in s) or not unique[s][i]:
                    continue
                if k > 1 and any(unique[tuple(v for v in s if v != d)][i] for d in s):
                    continue
                out[i, k - 1] += 1
    return out


@pytest.mark.parametrize("seed", range(12))
def test_msu_counts_match_definition(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(3, 25)), int(rng.integers(3, 6))
    values = rng.integers(1, 4, size=(n, p))
    values[rng.random((n, p)) < 0.1] = -999
    core = suda2_core(values, -999)
    np.testing.assert_array_equal(core.per_record("msu_counts"), _brute_msu_counts(values, -999))


def _random_frame(seed, n=60, p=5):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"k{j}": rng.integers(1, 4, n).astype(float) for j in range(p)})
    df = df.mask(rng.random((n, p)) < 0.05)
    return df


@pytest.mark.parametrize("seed", range(4))
def test_permuting_records_permutes_results(seed):
    df = _random_frame(seed)
    keys = list(df.columns)
    perm = np.random.default_rng(100 + seed).permutation(len(df))
    a = suda2(df, keys)
    b = suda2(df.iloc[perm], keys)
    np.testing.assert_array_equal(b.score, a.score[perm])
    np.testing.assert_array_equal(b.contribution_percent.to_numpy(), a.contribution_percent.to_numpy()[perm])
    # the DIS normaliser is summed in row order, so only rounding may move
    np.testing.assert_allclose(b.dis_score, a.dis_score[perm], rtol=1e-13)
    pd.testing.assert_frame_equal(b.attribute_contributions, a.attribute_contributions, rtol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_score_positive_exactly_for_uniques_on_observed_keys(seed):
    """A record has an MSU iff it is unique on the set of its non-missing keys; a record whose
    whole key combination occurs twice or more scores 0."""
    df = _random_frame(seed, n=80, p=4)
    keys = list(df.columns)
    r = suda2(df, keys)
    filled = df.fillna(-999)
    full_count = filled.groupby(keys)[keys[0]].transform("size").to_numpy()
    assert np.all(r.score[full_count >= 2] == 0)
    for i in range(len(df)):
        obs = [k for k in keys if not np.isnan(df.iloc[i][k])]
        match = np.ones(len(df), dtype=bool)
        for k in obs:
            match &= filled[k].to_numpy() == filled.iloc[i][k]
        assert (r.score[i] > 0) == (bool(obs) and match.sum() == 1)
    assert np.all(r.dis_score[r.score == 0] == 0)
    assert np.all((r.dis_score[r.score > 0] > 0) & (r.dis_score[r.score > 0] <= 1))


def test_key_order_does_not_change_scores():
    df = _random_frame(7)
    keys = list(df.columns)
    a = suda2(df, keys)
    b = suda2(df, keys[::-1])
    np.testing.assert_array_equal(a.score, b.score)
    np.testing.assert_array_equal(a.attribute_contributions["contribution"],
                                  b.attribute_contributions["contribution"][::-1])


def test_level_contributions_sum_to_100():
    df = _random_frame(3)
    r = suda2(df, list(df.columns))
    sums = r.attribute_level_contributions.groupby("variable", sort=False)["contribution"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 100.0, rtol=1e-12)


def test_missing_code_is_not_a_wildcard():
    """NA in a key becomes the missing code: it matches only itself when records are counted,
    and never forms part of the record's own MSUs."""
    df = pd.DataFrame({"a": [1.0, 1, np.nan, 2], "b": [1.0, 1, 1, 2], "c": [1.0, 1, 1, 2]})
    r = suda2(df, ["a", "b", "c"])
    # record 3 (NA, 1, 1) would share everything with records 1-2 if NA were a wildcard;
    # it is unique only through its own missing value, so it has no MSU
    assert r.score[2] == 0
    # records 1, 2 are identical -> 0; record 4 is unique on every key -> three 1-MSUs
    np.testing.assert_array_equal(r.score, [0.0, 0.0, 0.0, 3 * 2.0])


def test_two_keys_warn_and_use_three_column_weights():
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0]})
    with pytest.warns(DegenerateResultWarning, match="dummy"):
        r = suda2(df, ["a", "b"])
    # p = 3 with one dummy: w1 = 2, w2 = 1 (record 3: {a, b} = (1, 0) is a 2-MSU)
    np.testing.assert_array_equal(r.score, [2.0, 2.0, 1.0])
    assert list(r.contribution_percent.columns) == ["a", "b"]


def test_non_integer_keys_truncated_with_warning():
    df = pd.DataFrame({"a": [1.2, 1.7, 2.0], "b": [1, 1, 2], "c": [1, 1, 1]})
    with pytest.warns(CoercionWarning, match="truncates"):
        r = suda2(df, ["a", "b", "c"])
    np.testing.assert_array_equal(r.score, [0.0, 0.0, 4.0])
    assert list(r.attribute_level_contributions["attribute"][:3]) == [1.2, 1.7, 2.0]


def test_large_file_nan_dis_warns():
    """When every record shares its hash bucket sdcMicro's unique count is 0: NaN DIS."""
    df = pd.DataFrame({"a": [0, 0, 0, 1], "b": [0, 1, 2, 0], "c": [4, 2, 0, 0]})
    with pytest.warns(DegenerateResultWarning, match="NaN"):
        r = suda2(df, ["a", "b", "c"])
    assert np.all(r.score > 0) and np.all(np.isnan(r.dis_score))


def test_result_index_and_frames():
    df = _random_frame(1).set_index(pd.Index([f"r{i}" for i in range(60)]))
    r = suda2(df, ["k0", "k1", "k2"])
    assert list(r.contribution_percent.index) == list(df.index)
    assert list(r.attribute_level_contributions.columns) == ["variable", "attribute", "contribution"]
    assert "Suda2Result(" in repr(r)


# ------------------------------------------------------------------ validation

@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"key_vars": ["a"]}, "at least 2 columns"),
        ({"key_vars": ["a", "zz"]}, "zz"),
        ({"key_vars": []}, "at least one column"),
        ({"dis_fraction": float("nan")}, "dis_fraction"),
        ({"dis_fraction": "0.1"}, "dis_fraction"),
        ({"missing": 2.0**40}, "missing"),
        ({"missing": float("nan")}, "missing"),
        ({"original_scores": "yes"}, "original_scores"),
    ],
)
def test_invalid_parameters(kwargs, match):
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1, 1, 2], "c": [1, 2, 2]})
    args = {"key_vars": ["a", "b", "c"], **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        suda2(df, **args)


def test_invalid_data():
    with pytest.raises(InvalidParameterError, match="at least 2 records"):
        suda2(pd.DataFrame({"a": [1], "b": [2], "c": [3]}), ["a", "b", "c"])
    with pytest.raises(InvalidParameterError, match="at least 2 records"):
        suda2(pd.DataFrame({"a": [], "b": [], "c": []}), ["a", "b", "c"])
    with pytest.raises(InvalidParameterError, match="no non-missing"):
        suda2(pd.DataFrame({"a": [1, 2], "b": [np.nan, np.nan], "c": [3, 4]}), ["a", "b", "c"])
    with pytest.raises(InvalidParameterError, match="DataFrame"):
        suda2("not a frame", ["a"])


# ------------------------------------------------------------------ stored parity

def _decode(v):
    if isinstance(v, list):
        return np.array([_decode(x) for x in v], dtype=float)
    if v in ("NA", "NaN", None):
        return np.nan
    if v == "Inf":
        return np.inf
    if v == "-Inf":
        return -np.inf
    return float(v)


def _load_cases():
    if not OUTPUT.exists():
        return []
    return json.loads(OUTPUT.read_text())["cases"]


CASES = _load_cases()


def run_case(args: dict, inputs: dict[str, pd.DataFrame]):
    """Run one stored case natively: sdcMicro's argument names -> pysdc's ``suda2``."""
    variables = args["variables"]
    variables = [variables] if isinstance(variables, str) else list(variables)
    kw = {}
    if "missing" in args:
        kw["missing"] = args["missing"]
    if "DisFraction" in args:
        kw["dis_fraction"] = args["DisFraction"]
    if "original_scores" in args:
        kw["original_scores"] = args["original_scores"]
    return suda2(inputs["data"], variables, **kw)


# sdcMicro's level labels of pysdc's attributes: the parity runner's own mapping
r_attribute_labels = suda2_r_labels


@pytest.mark.skipif(not CASES, reason="r_reference/outputs/suda2.json not generated")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_stored_parity(case):
    data = read_table(REF / "inputs" / case["inputs"]["data"])
    inputs = {"data": data}
    if "error" in case:
        with pytest.raises(InvalidParameterError):
            run_case(case["args"], inputs)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = run_case(case["args"], inputs)
    r_warned_dummy = any("Dummy variables" in w for w in case["warnings"])
    assert r_warned_dummy == any(issubclass(w.category, DegenerateResultWarning) and "dummy" in str(w.message)
                                 for w in caught)
    res = case["result"]
    variables = res["variables"]
    fields = {"score": r.score, "disScore": r.dis_score}
    for v in variables:
        fields[v] = r.contribution_percent[v].to_numpy()
    rw = res["rowwise"]
    if "rows" in rw:
        rows = np.asarray(rw["rows"], dtype=int)
        assert rw["n_rows"] == len(data)
        for name, got in fields.items():
            np.testing.assert_allclose(got[rows], _decode(rw[name]), equal_nan=True, err_msg=name, **_tol(name))
            np.testing.assert_allclose(np.sum(got), _decode(rw["row_sums"][name]), equal_nan=True, err_msg=name,
                                       rtol=ROW_SUMS.rtol, atol=ROW_SUMS.atol)
        nz = res["nonzero"]
        nz_rows = np.atleast_1d(np.asarray(nz["rows"], dtype=int))
        np.testing.assert_array_equal(np.flatnonzero(r.score != 0), nz_rows)
        for name, got in fields.items():
            np.testing.assert_allclose(got[nz_rows], np.atleast_1d(_decode(nz[name])), equal_nan=True,
                                       err_msg=name, **_tol(name))
    else:
        for name, got in fields.items():
            np.testing.assert_allclose(got, np.atleast_1d(_decode(rw[name])), equal_nan=True, err_msg=name,
                                       **_tol(name))
    ac = res["attribute_contributions"]
    assert list(r.attribute_contributions["variable"]) == list(np.atleast_1d(ac["variable"]))
    np.testing.assert_allclose(r.attribute_contributions["contribution"], np.atleast_1d(_decode(ac["contribution"])),
                               equal_nan=True, **_tol("attribute_contributions"))
    alc = res["attribute_level_contributions"]
    lev = r.attribute_level_contributions
    assert list(lev["variable"]) == list(np.atleast_1d(alc["variable"]))
    want = r_attribute_labels(data, variables, zip(lev["variable"], lev["attribute"]))
    assert want == [None if a is None else a for a in np.atleast_1d(alc["attribute"]).tolist()]
    np.testing.assert_allclose(lev["contribution"], np.atleast_1d(_decode(alc["contribution"])), equal_nan=True,
                               **_tol("attribute_level_contributions"))


def test_corpus_size():
    """The corpus covers 2..10 keys, errors, both score variants (issue 9)."""
    assert len(CASES) >= 60
    assert sum("error" in c for c in CASES) >= 3
    assert any(c["args"].get("original_scores") is False for c in CASES)


# ------------------------------------------------------------------ live

@pytest.mark.live
def test_live_against_sdcmicro():
    import pysdc.r

    if not pysdc.r.available():
        pytest.skip(f"R/sdcMicro not available: {pysdc.r.available().reason}")
    rng = np.random.default_rng(20250910)
    n = 150
    df = pd.DataFrame({
        "f": pd.Categorical(rng.choice(["u", "v", "w"], n)),
        "i": rng.integers(1, 5, n),
        "d": rng.integers(0, 3, n).astype(float),
        "o": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "hi"], ordered=True),
    })
    df.loc[rng.random(n) < 0.05, "d"] = np.nan
    keys = ["f", "i", "d", "o"]
    for orig, dis in [(True, 0.01), (False, 0.2)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rr = pysdc.r.call("suda2", df, variables=keys, missing=-999, DisFraction=dis, original_scores=orig)
        r = suda2(df, keys, dis_fraction=dis, original_scores=orig)
        np.testing.assert_allclose(r.score, np.asarray(rr["score"]), **_tol("score"))
        np.testing.assert_allclose(r.dis_score, np.asarray(rr["disScore"]), equal_nan=True, **_tol("disScore"))
        np.testing.assert_allclose(r.contribution_percent.to_numpy(), np.asarray(rr["contributionPercent"]),
                                   **_tol("contributionPercent"))
        np.testing.assert_allclose(r.attribute_contributions["contribution"],
                                   np.asarray(rr["attribute_contributions"]["contribution"]), **_tol("ac"))
        np.testing.assert_allclose(r.attribute_level_contributions["contribution"],
                                   np.asarray(rr["attribute_level_contributions"]["contribution"]), **_tol("alc"))
