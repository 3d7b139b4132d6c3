"""pysdc.r.SdcObj: sdcMicro's sdcMicroObj from Python, checked against the same steps run by Rscript.

Needs R with sdcMicro (skipped with the reason where it is absent); the reference is an
independent R session (``Rscript``) running the R script below, not the bridge.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import pysdc
import pysdc.r as pr
from pysdc._tolerances import CLOSED_FORM, tolerance_for

# the bridge, and Rscript with jsonlite for the reference run (skipped with the reason by tests/conftest.py)
pytestmark = [pytest.mark.live, pytest.mark.needs_r, pytest.mark.rscript("jsonlite")]

KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
NUMS = ["expend", "income", "savings"]

R_SCRIPT = r"""
suppressMessages({library(sdcMicro); library(jsonlite)})
data(testdata)
keys <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
nums <- c("expend", "income", "savings")
# what the console shows: printed output and messages into one connection, in their order
txt <- function(...) {
  lines <- character(0)
  con <- textConnection("lines", "w", local = TRUE)
  sink(con); sink(con, type = "message")
  print(...)
  sink(type = "message"); sink(); close(con)
  paste0(paste(lines, collapse = "\n"), "\n")
}
sdc <- createSdcObj(testdata, keyVars = keys, numVars = nums, weightVar = "sampling_weight", hhId = "ori_hid")
out <- list(print_risk = txt(sdc, "risk"), print_general = txt(sdc, "general"), print_kanon = txt(sdc, "kAnon"),
            risk0 = sdc@risk$global, indiv0 = sdc@risk$individual[, "risk"])
ls <- localSuppression(sdc, k = 3)
out$print_ls <- txt(ls, "ls"); out$print_risk_ls <- txt(ls, "risk")
out$risk_ls <- ls@risk$global
out$na_ls <- as.list(colSums(is.na(ls@manipKeyVars)))
ma <- microaggregation(ls, method = "mdav", aggr = 3)
out$utility_ma <- ma@utility
out$print_numrisk <- txt(ma, "numrisk")
out$income_ma <- extractManipData(ma)$income
set.seed(11); an <- addNoise(sdc, noise = 150, method = "additive")
out$savings_noise <- an@manipNumVars$savings
gr <- globalRecode(sdc, column = "water", breaks = 3)
out$water_gr <- as.character(gr@manipKeyVars$water)
tb <- topBotCoding(sdc, value = 5e7, replacement = 5e7 + 1, kind = "top", column = "income")
out$income_tb <- tb@manipNumVars$income
ld <- localSuppression(sdc, k = 3, importance = 7:1)
out$na_ls_importance <- as.list(colSums(is.na(ld@manipKeyVars)))
td <- testdata; td$walls <- factor(td$walls)
ps <- createSdcObj(td, keyVars = setdiff(keys, "walls"), pramVars = "walls", weightVar = "sampling_weight")
set.seed(3); pp <- pram(ps)
out$walls_pram <- as.character(pp@manipPramVars$walls)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null"), commandArgs(TRUE)[1])
"""


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    d = tmp_path_factory.mktemp("r_sdcobj")
    (d / "script.R").write_text(R_SCRIPT)
    res = subprocess.run(["Rscript", str(d / "script.R"), str(d / "out.json")], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads((d / "out.json").read_text())


@pytest.fixture(scope="module")
def testdata():
    return pr.dataset("testdata")


@pytest.fixture(scope="module")
def sdc(testdata):
    return pr.SdcObj.create(testdata, KEYS, num_vars=NUMS, w="sampling_weight", hid="ori_hid")


def close(a, b, tol=CLOSED_FORM):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol.rtol, atol=tol.atol)


# ---------------------------------------------------------------- data sets
def test_datasets_are_sdcmicros(testdata):
    names = pr.datasets()
    for n in ("testdata", "testdata2", "francdat", "free1", "CASCrefmicrodata", "EIA", "Tarragona"):
        assert n in names
    assert testdata.shape == (4580, 15)
    assert pr.dataset("free1").shape == (4000, 34)  # an R matrix: a DataFrame with its column names
    assert "AGE" in pr.dataset("free1").columns
    with pytest.raises(pysdc.InvalidParameterError, match="has no data set 'nope'.*testdata"):
        pr.dataset("nope")


# ---------------------------------------------------------------- creation and slots
def test_create_specification_and_slots(sdc, testdata, ref):
    assert sdc.key_vars == KEYS and sdc.num_vars == NUMS
    assert (sdc.w, sdc.hid, sdc.strata, sdc.sensitive) == ("sampling_weight", "ori_hid", None, [])
    assert not sdc.can_undo
    pd.testing.assert_frame_equal(sdc.orig_data, testdata)
    pd.testing.assert_frame_equal(sdc.manip_data, testdata)  # nothing applied yet
    g = sdc.risk["global"]
    for k in ("risk", "risk_ER", "hier_risk_ER", "hier_risk"):
        close(g[k], ref["risk0"][k])
    assert isinstance(sdc.risk["individual"], pd.DataFrame)
    close(sdc.risk["individual"]["risk"], ref["indiv0"])
    assert list(sdc.manip_key_vars.columns) == KEYS


def test_repr_and_print_are_rs_printed_text(sdc, ref):
    assert sdc.print("risk") == ref["print_risk"]
    assert repr(sdc).endswith(ref["print_risk"].strip("\n"))
    assert "print(sdc, \"risk\")" in repr(sdc).splitlines()[0]
    assert sdc.print("general") == ref["print_general"]
    assert sdc.print("kAnon") == ref["print_kanon"]
    assert pr.print(sdc, "risk") == ref["print_risk"]
    assert "<pre>" in sdc._repr_html_()
    with pytest.raises(pysdc.InvalidParameterError, match="type must be one of"):
        sdc.print("riskk")


def test_create_refuses_positions_and_bad_specifications(testdata):
    with pytest.raises(pysdc.InvalidParameterError, match="pysdc takes column names"):
        pr.SdcObj.create(testdata, [1, 2, 3])
    with pytest.raises(pysdc.InvalidParameterError, match="both in key_vars and in num_vars"):
        pr.SdcObj.create(testdata, ["sex", "income"], num_vars=["income"])
    with pytest.raises(pysdc.InvalidParameterError, match="sdcMicroObj"):
        pr.SdcObj(pr.call("list", 1, package="base", as_robject=True))


# ---------------------------------------------------------------- methods return new objects
def test_local_suppression_then_microaggregation(sdc, ref):
    ls = sdc.local_suppression(k=3)
    assert ls is not sdc and not sdc.can_undo and ls.can_undo
    assert sdc.manip_key_vars.isna().sum().sum() == 0  # the object it was called on is unchanged
    assert ls.manip_key_vars.isna().sum().to_dict() == ref["na_ls"]
    assert ls.print("ls") == ref["print_ls"]
    assert ls.print("risk") == ref["print_risk_ls"]
    for k in ("risk", "risk_ER", "hier_risk_ER"):
        close(ls.risk["global"][k], ref["risk_ls"][k])
    ma = ls.microaggregation(method="mdav", aggr=3)
    for k in ("il1", "il1s"):
        close(ma.utility[k], ref["utility_ma"][k])
    close(ma.utility["eigen"], ref["utility_ma"]["eigen"], tolerance_for("d_utility", "eigen"))
    assert ma.print("numrisk") == ref["print_numrisk"]
    close(ma.manip_data["income"], ref["income_ma"])
    # undo: back to the suppressed state
    back = ma.undo()
    close(back.risk["global"]["risk_ER"], ref["risk_ls"]["risk_ER"])
    assert back.manip_num_vars.equals(sdc.manip_num_vars)
    with pytest.raises(pysdc.InvalidParameterError, match="nothing to undo"):
        sdc.undo()


def test_local_suppression_importance(sdc, ref):
    ld = sdc.local_suppression(k=3, importance=[7, 6, 5, 4, 3, 2, 1])
    assert ld.manip_key_vars.isna().sum().to_dict() == ref["na_ls_importance"]


def test_add_noise_global_recode_top_bot_coding(sdc, ref):
    an = sdc.add_noise(noise=150, method="additive", seed=11)
    close(an.manip_num_vars["savings"], ref["savings_noise"])
    gr = sdc.global_recode("water", breaks=3)
    assert gr.manip_key_vars["water"].astype(str).tolist() == ref["water_gr"]
    tb = sdc.top_bot_coding("income", value=5e7, replacement=5e7 + 1, kind="top")
    close(tb.manip_num_vars["income"], ref["income_tb"])
    assert tb.manip_num_vars["income"].max() <= 5e7 + 1


def test_pram_with_seed(testdata, ref):
    td = testdata.assign(walls=pd.Categorical(testdata["walls"]))
    ps = pr.SdcObj.create(td, [k for k in KEYS if k != "walls"], w="sampling_weight", pramVars="walls")
    assert ps.pram_vars == ["walls"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pysdc.RWarning)
        pp = ps.pram(seed=3)
    assert pp.manip_pram_vars["walls"].astype(str).tolist() == ref["walls_pram"]
    # categories keep the dtype the data had (int categories; R's levels are text)
    assert pp.manip_pram_vars["walls"].cat.categories.dtype == td["walls"].cat.categories.dtype


def test_generic_apply_and_call_accept_the_object(sdc):
    ls = sdc.apply("localSuppression", k=2)
    assert isinstance(ls, pr.SdcObj)
    assert pr.call("get.sdcMicroObj", ls, type="keyVars") is not None
    with pytest.raises(pysdc.InvalidParameterError, match="did not return an sdcMicroObj"):
        sdc.apply("get.sdcMicroObj", type="risk")


# ---------------------------------------------------------------- dtypes and the native problem
def test_manipulated_data_keep_the_dtypes_they_had(testdata):
    df = testdata.astype({"roof": "Int64", "sex": pd.CategoricalDtype([1, 2]), "savings": "Float64"})
    df["region"] = pd.array(np.where(df["urbrur"] == 1, "north", "south"), dtype="string")
    obj = pr.SdcObj.create(df, ["region", "roof", "sex", "relat"], num_vars=["savings"], w="sampling_weight")
    pd.testing.assert_frame_equal(obj.orig_data, df)
    ls = obj.local_suppression(k=5)
    m = ls.manip_data
    assert m["relat"].isna().any() and m["roof"].isna().any()  # suppressed values
    # an int64 column that now holds NA comes back as its nullable counterpart; every other dtype as it was
    assert m.dtypes.equals(df.dtypes.where(df.columns != "relat", pd.Int64Dtype()))
    assert m["relat"].dtype == "Int64"


def test_to_problem_and_back(sdc, testdata):
    p = sdc.to_problem()
    assert isinstance(p, pysdc.SdcProblem)
    assert p.specification == sdc.specification
    pd.testing.assert_frame_equal(p.data, testdata)
    ls = sdc.local_suppression(k=3)
    pm = ls.to_problem(data="manipulated")
    pd.testing.assert_frame_equal(pm.data, ls.manip_data)
    with pytest.raises(pysdc.InvalidParameterError, match="'original', 'manipulated' or 'protected'"):
        sdc.to_problem(data="masked")
    back = pr.SdcObj.from_problem(p)
    assert isinstance(back, pr.SdcObj) and back.specification == sdc.specification
    close(back.risk["global"]["risk_ER"], sdc.risk["global"]["risk_ER"])


def test_import_pysdc_r_sdcobj_does_not_start_r():
    code = "import sys, pysdc, pysdc.r; pysdc.r.SdcObj; assert 'rpy2' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
