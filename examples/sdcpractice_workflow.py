"""The practice guide's workflow, ported from R line for line -- and run without R.

The R script (sdcMicro's guide "Statistical Disclosure Control: a practice guide" on laeken's ``eusilc``)::

    library(sdcMicro)
    sdc <- createSdcObj(eusilc, keyVars = c("db040", "rb090", "age", "pl030", "pb220a"),
                        numVars = c("hy040n", "hy050n", "eqIncome"), weightVar = "rb050", hhId = "db030")
    print(sdc, "risk")                                                   # risk of the original data
    sdc <- globalRecode(sdc, column = "age", breaks = c(-Inf, 15, 30, 45, 60, 75, Inf))
    sdc <- localSuppression(sdc, k = 3)                                  # 3-anonymity of the key variables
    print(sdc, "ls")
    sdc <- microaggregation(sdc, method = "mdav", aggr = 3)              # the numeric key variables
    set.seed(1); sdc <- pram(sdc, variables = "hsize")                   # post-randomisation
    set.seed(2); sdc <- addNoise(sdc, variables = "eqIncome", noise = 50)
    print(sdc, "risk"); get.sdcMicroObj(sdc, "utility")
    masked <- extractManipData(sdc)
    sdc <- undolast(sdc)                                                 # back one step

In Python (:func:`native`), with R absent: the same lines on :class:`pysdc.SdcProblem`, whose methods return a
new problem holding the original and the manipulated data, the steps, and the re-measured risk and utility.
:func:`through_sdcmicro` runs the same steps through sdcMicro (:class:`pysdc.r.SdcObj`, needs R);
``tests/problem/test_example_workflow.py`` compares the two slot by slot. Run ``python examples/sdcpractice_workflow.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import pysdc
from pysdc.io import read_table

KEY_VARS = ["db040", "rb090", "age", "pl030", "pb220a"]
NUM_VARS = ["hy040n", "hy050n", "eqIncome"]
WEIGHT, HOUSEHOLD = "rb050", "db030"
AGE_BREAKS = [-np.inf, 15, 30, 45, 60, 75, np.inf]
EUSILC = Path(__file__).resolve().parents[1] / "r_reference" / "inputs" / "eusilc.csv.gz"


def load_eusilc() -> pd.DataFrame:
    """laeken's eusilc as stored by R's write.csv; hsize a factor (a PRAM variable must be categorical)."""
    data = read_table(EUSILC)
    levels = sorted(data["hsize"].unique())
    data["hsize"] = pd.Categorical(data["hsize"].astype(str), categories=[str(v) for v in levels])
    return data


def native(data: pd.DataFrame | None = None, show: bool = True) -> dict:
    """The R script above, line for line, natively."""
    eusilc = load_eusilc() if data is None else data
    sdc = pysdc.SdcProblem(eusilc, key_vars=KEY_VARS, num_vars=NUM_VARS, w=WEIGHT, hid=HOUSEHOLD)
    original = sdc
    if show:
        print(sdc.risk(suda=False))                                      # print(sdc, "risk")
    # recoded_as="labels": age keeps cut's labels in the masked file; sdcMicro's extractManipData (the default,
    # with a warning) has the interval codes 1, 2, ... of the numeric key instead -- the same risk either way
    sdc = sdc.global_recode(column="age", breaks=AGE_BREAKS, recoded_as="labels")
    sdc = sdc.local_suppression(k=3)
    if show:
        print(sdc.steps[-1].result.supps)                               # print(sdc, "ls")
    sdc = sdc.microaggregation(method="mdav", aggr=3)
    sdc = sdc.pram(variables="hsize", random_state=1)                    # set.seed(1); pram(sdc, ...)
    sdc = sdc.add_noise(variables="eqIncome", noise=50, random_state=2)  # set.seed(2); addNoise(sdc, ...)
    risk, utility = sdc.risk(suda=False), sdc.utility()
    if show:
        print(risk)                                                      # print(sdc, "risk")
        print(utility)                                                   # get.sdcMicroObj(sdc, "utility")
        for step in sdc.steps:
            print(step.r_call())
    masked = sdc.manip_data                                              # extractManipData(sdc)
    undone = sdc.undo_last()                                             # undolast(sdc)
    return {"original": original, "sdc": sdc, "risk": risk, "utility": utility, "masked": masked,
            "undone": undone}


def through_sdcmicro(data: pd.DataFrame | None = None, show: bool = True) -> dict:
    """The same steps executed by sdcMicro (needs R): ``SdcObj.from_problem`` replays the problem's steps."""
    import pysdc.r as pr

    res = native(data, show=False)
    sdc = pr.SdcObj.from_problem(res["sdc"])  # createSdcObj and the same five steps, each with its set.seed
    if show:
        print(sdc.print("risk"))
    return {**res, "r": sdc}


if __name__ == "__main__":
    native()
