"""pysdc.info_loss (sdcMicro's infoLoss): hand-worked tables, sdcMicro's quirks kept and warned,
refusals; live: the bridge on every stored case (marker ``live``).

Stored parity (r_reference/outputs/infoLoss.json, 25 cases) runs in tests/parity/test_parity_stored.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import DegenerateResultWarning, InvalidParameterError
from pysdc import parity as _parity

ROOT = _parity.reference_dir()


def _pair():
    # 6 records; g: a a a b b c -> swapped a b a b c c; k: 1 1 2 2 1 1 unchanged
    x = pd.DataFrame({"g": ["a", "a", "a", "b", "b", "c"], "k": [1, 1, 2, 2, 1, 1], "h": [1, 1, 2, 3, 4, 5]})
    s = x.copy()
    s["g"] = ["a", "b", "a", "b", "c", "c"]
    return x, s


def test_hand_worked_one_way_table():
    x, s = _pair()
    r = pysdc.info_loss(x, s, ["g"])
    cv = r.cellvalues
    assert list(cv["g"]) == ["a", "b", "c"]
    assert list(cv["count_o"]) == [3, 2, 1] and list(cv["count_s"]) == [2, 2, 2]
    # noise 1, 0, -1: one cell each
    assert list(r.overview["noise"]) == [-1, 0, 1] and list(r.overview["cnt"]) == [1, 1, 1]
    # relabsD: 1/3, 0, 1; abssqrtD: sqrt3 - sqrt2, 0, sqrt2 - 1
    assert r.measures.loc["Max", "relabsD"] == 1.0
    assert r.measures.loc["Mean", "absD"] == pytest.approx(2 / 3, rel=1e-15)
    assert r.measures.loc["Max", "abssqrtD"] == pytest.approx(np.sqrt(2) - 1, rel=1e-15)
    assert list(r.measures.columns) == ["absD", "abssqrtD", "relabsD"]  # sdcMicro's dcast: names sorted
    assert list(r.measures.index[:6]) == ["Min", "10%", "20%", "30%", "40%", "Mean"]
    assert list(r.cumdistr["absD"]["cat"]) == ["0", "1"] and list(r.cumdistr["absD"]["cnt"]) == [1, 3]
    assert r.false_zero == 0 and r.false_nonzero == 0


def test_margins_and_false_zeros():
    x, s = _pair()
    r = pysdc.info_loss(x, s, ["g", "k"])
    cv = r.cellvalues
    # 3 + 2 one-way cells, then the inner cells of both sides: (a,1) (a,2) (b,1) (b,2) (c,1)
    assert len(cv) == 5 + 5
    inner = cv.dropna()
    got = {(g, int(k)): (o, s_) for g, k, o, s_ in inner[["g", "k", "count_o", "count_s"]].itertuples(index=False)}
    # swapped records: (a,1) (b,1) (a,2) (b,2) (c,1) (c,1)
    assert got == {("a", 1): (2, 1), ("a", 2): (1, 1), ("b", 1): (1, 1), ("b", 2): (1, 1), ("c", 1): (1, 2)}
    assert r.false_zero == 0 and r.false_nonzero == 0


def test_relabsd_of_a_cell_new_in_the_swapped_data_is_zero():
    x = pd.DataFrame({"g": ["a", "a", "b"]})
    s = pd.DataFrame({"g": ["a", "c", "b"]})
    r = pysdc.info_loss(x, s, ["g"], metric=["relabsD"], apply_quantvals=[])
    cv = r.cellvalues.set_index("g")
    assert cv.loc["c", "count_o"] == 0 and cv.loc["c", "count_s"] == 1
    assert r.false_nonzero == 1
    # relabsD: a 1/2, b 0, c 0 (sdcMicro turns 1/0 into 0)
    assert list(r.cumdistr["relabsD"]["cat"]) == ["0", "0.5"]
    assert list(r.cumdistr["relabsD"]["cnt"]) == [2, 3]


def test_households_count_once():
    x, s = _pair()
    r = pysdc.info_loss(x, s, ["g"], hid="h")
    # households 1..5, each by its first record (records 0, 2, 3, 4, 5): g a a b b c -> a a b c c swapped
    assert list(r.cellvalues["count_o"]) == [2, 2, 1] and list(r.cellvalues["count_s"]) == [2, 1, 2]


def test_only_inner_cells_is_sdcmicros_one_way_tables_with_a_warning():
    x, s = _pair()
    with pytest.warns(DegenerateResultWarning, match="one-way"):
        r = pysdc.info_loss(x, s, ["g", "k"], only_inner_cells=True)
    assert len(r.cellvalues) == 3 + 2 and r.cellvalues.isna().any(axis=1).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ri = pysdc.info_loss(x, s, ["g", "k"], inner=True)
    assert len(ri.cellvalues) == 5 and not ri.cellvalues.isna().any().any()


def test_exclude_zeros_drops_cells_empty_after_swapping():
    x = pd.DataFrame({"g": ["a", "b", "b"]})
    s = pd.DataFrame({"g": ["b", "b", "b"]})
    r = pysdc.info_loss(x, s, ["g"], exclude_zeros=True)
    assert list(r.cellvalues["g"]) == ["b"] and r.false_zero == 0
    assert pysdc.info_loss(x, s, ["g"]).false_zero == 1


def test_custom_metrics():
    x, s = _pair()
    r = pysdc.info_loss(x, s, ["g"], custom_metric=[lambda o, w: (o - w) ** 2.0], metric=["absD"])
    assert list(r.measures.columns) == ["absD", "customD1"]
    assert r.measures.loc["Max", "customD1"] == 1.0
    with pytest.raises(InvalidParameterError, match="single function"):
        pysdc.info_loss(x, s, ["g"], custom_metric=lambda o, w: o)
    with pytest.raises(InvalidParameterError, match="failed"):
        pysdc.info_loss(x, s, ["g"], custom_metric={"bad": lambda o, w: 1 / "x"})
    with pytest.raises(InvalidParameterError, match="one per cell"):
        pysdc.info_loss(x, s, ["g"], custom_metric={"bad": lambda o, w: o[:1]})
    with pytest.raises(InvalidParameterError, match="already"):
        pysdc.info_loss(x, s, ["g"], custom_metric={"absD": lambda o, w: o})


def test_refusals_name_the_cause():
    x, s = _pair()
    with pytest.raises(InvalidParameterError, match="below 0.5"):
        pysdc.info_loss(x, s, ["g"], probs=[0.5, 0.9])
    with pytest.raises(InvalidParameterError, match="twice"):
        pysdc.info_loss(x, s, ["g"], probs=[0, 0, 0.5])
    with pytest.raises(InvalidParameterError, match="data_swapped"):
        pysdc.info_loss(x, s.drop(columns="k"), ["g", "k"])


def test_quantile_names_and_values_follow_r():
    from pysdc.core.infoloss import quantile_names, r_quantile7

    assert quantile_names(np.array([0.0, 0.333, 0.95, 1.0])) == ["0%", "33.3%", "95%", "100%"]
    # R: quantile(c(1, 2, 4, 8), c(0.1, 0.5, 0.9)) = 1.3, 3.0, 6.8 (index 1 + 3p)
    np.testing.assert_allclose(r_quantile7(np.array([8.0, 1, 4, 2]), np.array([0.1, 0.5, 0.9])),
                               [1.3, 3.0, 6.8], rtol=1e-15)


# =============================================================================
# live: the bridge runs sdcMicro's infoLoss on every stored case


CASES = [c for c in _parity.load_corpus(ROOT, ["infoLoss"]) if "custom" not in c.tags]


@pytest.mark.live
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_live_bridge_parity(bridge, case):
    out = _parity.check_case(case, bridge, ROOT, [], mode="live")
    assert out.status == "passed", out.message
