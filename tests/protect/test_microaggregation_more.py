"""Microaggregation with methods pca, rmd, influence, clustpca (issue 28, family 3) against sdcMicro 5.8.0.

Stored parity: the cases of r_reference/outputs/microaggregation_more.json (written by
r_reference/generate_protect_microaggregation2.R from make_cases_microaggregation_more.py) are compared with
sdcMicro by ``pysdc parity`` and tests/parity/test_parity_stored.py (group microaggregation_more: every aggregated
column to the last bit, the MD5 of all values written with %.17g; where sdcMicro stopped, pysdc raises; the input
unchanged). Here, on the same cases from the same loader: the corpus covers the brief; sdcMicro warned only where
it stopped. Live parity (marker ``live``): the bridge on every stored case, and the native methods against
sdcMicro on fresh data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError, RCallError
from pysdc.core.microagg_pca import pca_scores
from pysdc.core.microagg_stats import trimmed_means
from pysdc.protect import microaggregation

from _methods import fresh_numeric, group_cases, live_bridge_parity, r_warnings

CASES = group_cases("microaggregation_more")


def test_sdcmicro_warned_only_where_it_stopped():
    # the one case where R warned (covMcd's exact fit) is one where sdcMicro stopped, which pysdc refuses (the
    # parity tests): no result here comes with a warning pysdc would have to repeat
    assert [c.id for c in CASES if r_warnings(c) and not c.expects_error] == []
    assert any(r_warnings(c) for c in CASES if c.expects_error)


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.tags}
    assert {"pca", "rmd", "ties", "strata", "median", "trim", "error", "real", "na", "seeded"} <= tags
    for method in ("pca", "rmd"):
        aggrs = {c.args["aggr"] for c in CASES if method in c.tags}
        assert {2, 3, 4, 5} <= aggrs, method


# =============================================================================
# what the corpus pins, written out


def test_pca_orders_by_the_first_component_with_a_non_negative_first_loading():
    # two variables moving together, the first one decreasing in record order: the first loading's first
    # element is >= 0 (R's princomp(fix_sign = TRUE)), so the scores DEcrease in record order; with 7 records and
    # k = 3 the remainder joins the last group -- the one of the largest scores, i.e. the FIRST records
    x = np.column_stack([np.arange(7.0)[::-1], np.arange(7.0)[::-1] ** 1.5])
    s = pca_scores(x)
    assert np.all(np.diff(s) < 0)
    df = pd.DataFrame(x, columns=["a", "b"])
    g = microaggregation(df, aggr=3, method="pca").groups.to_numpy()
    assert list(g) == [1, 1, 1, 1, 0, 0, 0]


def test_trim_is_r_mean_with_trim():
    y = np.array([1.0, 100.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -50.0])
    g = np.array([0] * 5 + [1] * 5)
    # floor(5 * 0.2) = 1 value cut from each end: (2 + 3 + 4) / 3 and (6 + 7 + 8... ) -> (5, 6, 7) / 3
    assert trimmed_means(y, g, 0.2).tolist() == [3.0] * 5 + [6.0] * 5
    assert trimmed_means(y, g, 0.1).tolist() == [22.0] * 5 + [-4.8] * 5  # floor(0.5) = 0: the mean
    assert trimmed_means(y, g, 0.6).tolist() == [3.0] * 5 + [6.0] * 5  # >= 0.5: the median


def test_refusals():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7], "b": [1.0, 3, 2, 5, 4, 7, 6], "c": [1.0] * 7})
    with pytest.raises(InvalidParameterError, match="constant"):
        microaggregation(df, ["a", "c"], method="pca", aggr=3)
    with pytest.raises(InvalidParameterError, match="Too less"):
        microaggregation(df, ["a", "b"], method="pca", aggr=4)
    with pytest.raises(InvalidParameterError, match="onestep"):  # one variable: sdcMicro's mafast has no 'onestep'
        microaggregation(df, ["a"], method="pca", measure="onestep")
    with pytest.raises(InvalidParameterError, match="trim"):
        microaggregation(df, ["a", "b"], method="pca", measure="trim", trim="x")


def test_rmd_groups_by_robust_distance_then_nearest_standardised():
    # an outlier pair far from the rest: the record with the largest robust distance (row 0) is grouped with
    # its nearest record on the standardised data (row 1), whatever their Euclidean order on the raw scale
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 2)) * [1.0, 100.0]
    x[0], x[1] = [9.0, 0.0], [8.0, 30.0]
    res = microaggregation(pd.DataFrame(x, columns=["a", "b"]), aggr=2, method="rmd", random_state=1)
    g = res.groups.to_numpy()
    assert g[0] == g[1] == 0 and res.measure is None
    sizes = np.bincount(g)
    assert sizes.min() == 2 and sizes.max() <= 3


def _rmd_groups_plain(x, aggr, rdist):
    # the rule written plainly: every round over all remaining records, a stable sort of their distances
    from pysdc.core.microagg_pca import standardise

    z = standardise(x)
    groups = np.full(len(x), -1)
    gid = 0
    while (groups < 0).sum() >= 2 * aggr:
        rem = np.flatnonzero(groups < 0)
        r = rem[np.argmax(rdist[rem])]
        d = ((z[rem] - z[r]) ** 2).sum(axis=1)
        groups[rem[np.argsort(d, kind="stable")[:aggr]]] = gid
        gid += 1
    groups[groups < 0] = gid
    return groups


@pytest.mark.parametrize("aggr", [2, 3, 5])
def test_rmd_fast_rounds_are_the_plain_rule_on_ties(aggr):
    from pysdc.core.microagg_rmd import rmd_groups

    rng = np.random.default_rng(aggr)
    x = rng.integers(0, 4, size=(300, 3)).astype(float)  # many identical records: ties everywhere
    rdist = np.round(rng.random(300) * 5)  # tied robust distances too
    assert np.array_equal(rmd_groups(x, aggr, rdist), _rmd_groups_plain(x, aggr, rdist))


def test_rmd_refusals():
    df = pd.DataFrame({"a": [1.0, 2, 3, np.nan, 5, 6, 7, 8], "b": [1.0, 3, 2, 5, 4, 7, 6, 9]})
    # missing values: sdcMicro's rule since, tests/protect/test_microaggregation_rmd_na.py
    with pytest.raises(InvalidParameterError, match="random_state"):
        microaggregation(df.fillna(4.5), method="rmd", aggr=2, random_state=1.5)


# =============================================================================
# live: the bridge runs sdcMicro on the same cases; fresh data


test_live_bridge_parity = live_bridge_parity([c for c in CASES if "real" not in c.tags])


def _fresh(seed):
    rng, x = fresh_numeric(seed)
    return pd.DataFrame(x, columns=list("abcd")[:x.shape[1]]), int(rng.integers(2, 6))


@pytest.mark.live
@pytest.mark.parametrize("method", ["pca", "rmd"])
@pytest.mark.parametrize("seed", range(8))
def test_live_fresh_data(bridge, method, seed):
    df, k = _fresh(seed)
    kws = ({}, {"measure": "median"}, {"measure": "trim", "trim": 0.2}) if method == "pca" else \
        ({"random_state": seed}, {"random_state": 100 + seed})
    for kw in kws:
        try:
            ref = bridge.microaggregation(df, aggr=k, method=method, **kw).mx
        except RCallError:  # sdcMicro stopped: pysdc must stop too
            with pytest.raises(InvalidParameterError):
                microaggregation(df, aggr=k, method=method, **kw)
            continue
        nat = microaggregation(df, aggr=k, method=method, **kw).mx
        pd.testing.assert_frame_equal(nat, ref, check_exact=True, check_dtype=False)
