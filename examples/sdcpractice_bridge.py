"""The sdcPractice workflow, ported from R to Python both ways.

The R script that statistical offices know (sdcMicro's guide "Statistical Disclosure Control:
a practice guide", and sdcMicro's help pages)::

    library(sdcMicro)
    data(testdata)
    sdc <- createSdcObj(testdata,
                        keyVars = c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex"),
                        numVars = c("expend", "income", "savings"),
                        weightVar = "sampling_weight", hhId = "ori_hid")
    print(sdc, "risk")                       # risk of the original data
    sdc <- localSuppression(sdc, k = 3)      # 3-anonymity of the key variables
    print(sdc, "ls"); print(sdc, "risk")
    sdc <- microaggregation(sdc, method = "mdav", aggr = 3)   # the numeric key variables
    print(sdc, "numrisk")
    get.sdcMicroObj(sdc, "utility")          # IL1, IL1s, eigen
    masked <- extractManipData(sdc)

In Python, twice:

1. **Through sdcMicro** (:class:`pysdc.r.SdcObj`, needs R and sdcMicro): the same steps, the
   same printed text, the slots as pandas.
2. **Natively** (:class:`pysdc.SdcProblem`, no R): the same specification stated once, the risk
   of the original and of the masked file, and the information loss of the masked file -- the
   masking itself is sdcMicro's (pysdc measures, it does not mask).

``tests/r/test_r_bridge_example.py`` runs this script and checks that the numbers of the two
routes are equal. Run it with ``python examples/sdcpractice_bridge.py``.
"""

from __future__ import annotations

import pysdc
import pysdc.r as pr

KEY_VARS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
NUM_VARS = ["expend", "income", "savings"]
WEIGHT = "sampling_weight"
HOUSEHOLD = "ori_hid"


def r_route(show: bool = True) -> dict:
    """The R script step by step through :class:`pysdc.r.SdcObj` (every number is sdcMicro's)."""
    testdata = pr.dataset("testdata")  # data(testdata)
    sdc = pr.SdcObj.create(testdata, KEY_VARS, num_vars=NUM_VARS, w=WEIGHT, hid=HOUSEHOLD)
    if show:
        print(sdc.print("risk"))  # print(sdc, "risk")  (also what repr(sdc) shows)
    sdc_ls = sdc.local_suppression(k=3)  # a new object; sdc is unchanged
    if show:
        print(sdc_ls.print("ls"))
        print(sdc_ls.print("risk"))
    sdc_ma = sdc_ls.microaggregation(method="mdav", aggr=3)
    if show:
        print(sdc_ma.print("numrisk"))
        print("utility:", sdc_ma.utility)  # get.sdcMicroObj(sdc, "utility")
    return {
        "data": testdata,
        "original": sdc,
        "suppressed": sdc_ls,
        "masked": sdc_ma,
        "masked_data": sdc_ma.manip_data,  # extractManipData(sdc)
    }


def native_route(data, masked_data, show: bool = True) -> dict:
    """The same specification as :class:`pysdc.SdcProblem`: risk before/after and utility, natively."""
    problem = pysdc.SdcProblem(data, KEY_VARS, num_vars=NUM_VARS, w=WEIGHT, hid=HOUSEHOLD)
    before = problem.risk(suda=False)
    after = problem.risk(data=masked_data, suda=False)
    utility = problem.utility(masked_data)
    if show:
        print(problem)
        print(problem.compare(masked_data, suda=False).frame.to_string())
    return {"problem": problem, "risk_before": before, "risk_after": after, "utility": utility}


def main(show: bool = True) -> dict:
    r = r_route(show)
    # the SdcObj knows its specification: the native problem comes from it
    problem = r["original"].to_problem()
    assert problem.specification == r["original"].specification  # noqa: S101 - an example's own check
    native = native_route(r["data"], r["masked_data"], show)
    return {**r, **native}


if __name__ == "__main__":
    main()
