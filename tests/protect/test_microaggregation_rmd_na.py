"""microaggregation(method="rmd") on variables with missing values, as sdcMicro 5.8.0 (issue 28, family 3).

Observed from outside (sdcMicro run on small inputs; the stored case microaggregation_more:ma31:rmd:na and the live
comparisons below): the standardisation skips missing values; covMcd runs on the complete records, so only they
have a robust distance and start a group; distances between records are R's ``dist`` (the variables both have,
scaled by p / count). A group's mean of a variable is missing where one of its records misses it: the present
values of its other records are dropped (8 of ma31's values). pysdc returns sdcMicro's values with a warning that
counts them; ``missing_means="present"`` takes the mean of the present values (the same groups).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import CoercionWarning, InvalidParameterError
from pysdc._tolerances import CLOSED_FORM
from pysdc.core.microagg_rmd import _r_dist_to
from pysdc.parity import reference_dir
from pysdc.protect import microaggregation

CASE = "microaggregation_more:ma31:rmd:na"


def _stored():
    ref = reference_dir()
    out = json.loads((ref / "outputs" / "microaggregation_more.json").read_text())
    case = next(c for c in out["cases"] if c["id"] == CASE)
    data = pd.read_csv(ref / "inputs" / case["inputs"]["data"])
    return case, data


def _values(col: dict) -> np.ndarray:
    return np.array([np.nan if v == "NA" else v for v in col["values"]], dtype=np.float64)


def test_the_stored_case_is_sdcmicros_to_the_bit_with_the_dropped_values_warned():
    case, data = _stored()
    a = case["args"]
    with pytest.warns(CoercionWarning, match=r"8 present value\(s\) dropped.*missing_means='present'"):
        res = microaggregation(data, a["variables"], aggr=a["aggr"], method="rmd", random_state=a["seed"])
    for v in a["variables"]:
        exp = _values(case["result"]["mx"][v])
        np.testing.assert_array_equal(res.mx[v].to_numpy(), exp, err_msg=v)  # NaN where sdcMicro's is NA
    x = data[a["variables"]].to_numpy()
    assert int((np.isnan(res.mx.to_numpy()) & ~np.isnan(x)).sum()) == 8  # what the warning counts


def test_present_means_keep_the_groups_and_average_the_present_values():
    case, data = _stored()
    v = case["args"]["variables"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoercionWarning)
        sdc = microaggregation(data, v, aggr=3, method="rmd", random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoercionWarning)  # nothing dropped: no warning
        res = microaggregation(data, v, aggr=3, method="rmd", random_state=1, missing_means="present")
    g = res.groups.to_numpy()
    assert np.array_equal(g, sdc.groups.to_numpy())
    x = data[v].to_numpy()
    expected = np.full_like(x, np.nan)
    for k in np.unique(g):
        rows = g == k
        expected[rows] = np.nanmean(x[rows], axis=0)
    expected[np.isnan(x)] = np.nan  # a record's own missing value stays missing
    np.testing.assert_allclose(res.mx.to_numpy(), expected, rtol=CLOSED_FORM.rtol)
    assert np.array_equal(np.isnan(res.mx.to_numpy()), np.isnan(x))
    # where no group member misses the variable, both agree
    full = ~np.isnan(sdc.mx.to_numpy())
    np.testing.assert_array_equal(res.mx.to_numpy()[full], sdc.mx.to_numpy()[full])


def test_distance_with_missing_values_is_r_dist():
    z = np.array([[0.0, 1.0, 2.0], [1.0, np.nan, 4.0], [np.nan, np.nan, 0.5], [np.nan, 3.0, np.nan]])
    d = _r_dist_to(z, 1)
    # R: dist(rbind(...))[, 2]: sqrt(sum of the shared squared differences * p / shared)
    assert d[0] == pytest.approx(np.sqrt((1.0 + 4.0) * 3 / 2), rel=CLOSED_FORM.rtol)
    assert d[1] == 0.0
    assert d[2] == pytest.approx(np.sqrt(3.5**2 * 3), rel=CLOSED_FORM.rtol)
    assert np.isnan(d[3])  # no variable in common: R's NA


def _no_seed_left() -> pd.DataFrame:
    # 4 complete records close together, 11 incomplete far away: 4 rounds need 4 complete starts, the first
    # round's group takes 3 of them
    rng = np.random.default_rng(4)
    a = np.r_[rng.normal(0, 0.1, 4), rng.normal(10, 1, 11)]
    b = np.r_[rng.normal(0, 0.1, 4), rng.normal(10, 1, 11)]
    b[4:] = np.nan
    return pd.DataFrame({"a": a, "b": b})


def test_no_complete_record_left_to_start_a_group_stops():
    with pytest.raises(InvalidParameterError, match="no complete record"):
        microaggregation(_no_seed_left(), aggr=3, method="rmd", random_state=1)


def test_missing_means_is_for_rmd_and_native_only():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7], "b": [1.0, 3, 2, 5, 4, 7, 6]})
    with pytest.raises(InvalidParameterError, match="missing_means"):
        microaggregation(df, method="mdav", missing_means="present")
    with pytest.raises(InvalidParameterError, match="missing_means"):
        microaggregation(df, method="rmd", missing_means="mean")
    import pysdc.r as R  # refused before R is asked

    with pytest.raises(InvalidParameterError, match="missing_means='present' is pysdc's"):
        R.microaggregation(df, method="rmd", missing_means="present", random_state=1)


# =============================================================================
# live: sdcMicro on fresh incomplete data, native sdcMicro mode to the bit


def _fresh(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(25, 70))
    x = np.column_stack([rng.lognormal(3, 1, n), rng.normal(50, 10, n), rng.normal(size=n)])
    x = np.round(x, 2)
    miss = rng.random(x.shape) < 0.08
    miss[:, 2] &= seed % 2 == 0  # odd seeds: the third variable complete
    x[miss] = np.nan
    return pd.DataFrame(x, columns=["u", "v", "w"]).assign(g=rng.choice(["p", "q"], n))


@pytest.mark.live
@pytest.mark.parametrize("seed", range(8))
def test_native_is_sdcmicros_rmd_on_fresh_incomplete_data(seed, bridge):
    df = _fresh(seed)
    strata = ["g"] if seed % 3 == 0 else None
    kw = dict(variables=["u", "v", "w"], aggr=3 + seed % 2, method="rmd", strata_variables=strata,
              random_state=100 + seed)
    try:
        r = bridge.microaggregation(df, **kw)
    except Exception as exc:  # noqa: BLE001 - sdcMicro stops: pysdc stops too
        with pytest.raises(InvalidParameterError):
            microaggregation(df, **kw)
        pytest.skip(f"sdcMicro stops here ({type(exc).__name__}); pysdc too")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoercionWarning)
        n = microaggregation(df, **kw)
    np.testing.assert_array_equal(n.mx.to_numpy(), r.mx.to_numpy())


def _sparse(seed: int) -> pd.DataFrame:
    # 30% missing; the first record has only its first variable: records sharing none with it stay as they are
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(12, 40))
    p = 2 + seed % 2
    x = np.round(rng.normal(size=(n, p)) * 10, 1)
    x[rng.random(x.shape) < 0.3] = np.nan
    x[0, 1:] = np.nan
    x[0, 0] = 1.0
    return pd.DataFrame(x, columns=[f"c{j}" for j in range(p)])


@pytest.mark.live
@pytest.mark.parametrize("seed", [0, 4, 8, 12])
def test_records_sharing_no_variable_with_the_first_are_left_as_sdcmicro_leaves_them(seed, bridge):
    df = _sparse(seed)
    r = bridge.microaggregation(df, aggr=3, method="rmd", random_state=seed)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        n = microaggregation(df, aggr=3, method="rmd", random_state=seed)
    np.testing.assert_array_equal(n.mx.to_numpy(), r.mx.to_numpy())
    if seed == 0:
        assert any("share no variable" in str(m.message) for m in w)


def _first_record_empty() -> pd.DataFrame:
    # the first record misses every variable: the last group is the records left with a distance to it, i.e.
    # itself only (the diagonal is 0), and sdcMicro stops in colMeans
    rng = np.random.default_rng(1059)
    n = int(rng.integers(12, 40))
    x = np.round(rng.normal(size=(n, 3)) * 10, 1)
    x[rng.random(x.shape) < 0.3] = np.nan
    x[0] = np.nan
    return pd.DataFrame(x, columns=["c0", "c1", "c2"])


def test_a_last_group_of_one_record_stops():
    with pytest.raises(InvalidParameterError, match="one record is left"):
        microaggregation(_first_record_empty(), aggr=3, method="rmd", random_state=59)


@pytest.mark.live
def test_sdcmicro_stops_on_a_last_group_of_one_record(bridge):
    from pysdc._errors import RCallError

    with pytest.raises(RCallError, match="at least two dimensions"):
        bridge.microaggregation(_first_record_empty(), aggr=3, method="rmd", random_state=59)


@pytest.mark.live
def test_sdcmicro_stops_where_no_complete_record_is_left(bridge):
    from pysdc._errors import RCallError

    with pytest.raises(RCallError, match="replacement has length zero"):
        bridge.microaggregation(_no_seed_left(), aggr=3, method="rmd", random_state=1)
