"""The sdcPractice workflow in Python, natively: one SdcProblem, risk before and after, utility, report.

The R script a statistical office follows (sdcMicro, after the practice guide ``sdcPractice``)::

    library(sdcMicro)
    sdc <- createSdcObj(dat, keyVars = c("region", "urbrur", "sex", "age_group", "education"),
                        numVars = c("income", "expenditure", "savings"), weightVar = "weight",
                        hhId = "hid", sensibleVar = "health_status")
    print(sdc, "risk")                 # global and household risk, k-anonymity violations
    sdc <- localSuppression(sdc, k = 3)
    sdc <- microaggregation(sdc, variables = c("income", "savings"), method = "mdav", aggr = 3)
    print(sdc, "risk")                 # the same measures after masking
    get.sdcMicroObj(sdc, "utility")    # IL1s, eigen
    report(sdc)                        # the document people share

The same in Python with :class:`pysdc.SdcProblem` (no R)::

    import pysdc
    x, xm = pysdc.load_demo_pair()       # original and its masked release (your masked file here)
    problem = pysdc.SdcProblem(x, ["region", "urbrur", "sex", "age_group", "education"],
                               num_vars=["income", "expenditure", "savings"], w="weight",
                               hid="hid", sensitive=["health_status"])
    problem.risk()                       # measure_risk, k-anonymity, SUDA2, l-diversity
    problem.compare(xm).frame            # before/after side by side, with the information loss
    problem.report(xm, "report.html")    # the HTML report
    pysdc.measure_risk(problem)          # every native function takes the problem as its data

pysdc measures; it does not mask. The masked file comes from your masking (sdcMicro, another tool,
or ``pysdc.r.SdcObj``'s methods: ``pysdc.r.SdcObj.from_problem(problem).local_suppression(k=3)...``, whose
masked data :func:`native_workflow` measures the same way -- that is how the native and the R route are compared).

Run ``python examples/sdc_problem_workflow.py [report.html]``.
"""

from __future__ import annotations

import sys

import pysdc

#: the specification of the workflow (the arguments of SdcProblem / createSdcObj)
SPECIFICATION = {
    "key_vars": ["region", "urbrur", "sex", "age_group", "education"],
    "num_vars": ["income", "expenditure", "savings"],
    "w": "weight",
    "hid": "hid",
    "sensitive": ["health_status"],
}


def native_workflow(x, xm, *, report_path=None, random_state: int = 1) -> dict:
    """Risk of ``x`` and ``xm`` and the information loss of ``xm``, the numbers ``print(sdc, "risk")`` and
    ``get.sdcMicroObj(sdc, "utility")`` show; writes the HTML report when ``report_path`` is given.

    Returns ``{"before": {...}, "after": {...}, "utility": {...}, "comparison": DataFrame}``.
    """
    spec = dict(SPECIFICATION)
    problem = pysdc.SdcProblem(x, spec.pop("key_vars"), **spec)
    comparison = problem.compare(xm, random_state=random_state)

    def risk_numbers(r):
        mr = r.measure_risk
        return {"global_risk_er": mr.global_risk_er, "global_risk_pct": mr.global_risk_pct,
                "hier_risk_er": mr.hier_risk_er, "hier_risk_pct": mr.hier_risk_pct,
                "fk_lt_2": int(r.k_anonymity.loc[2, "unweighted"]), "fk_lt_3": int(r.k_anonymity.loc[3, "unweighted"])}

    u = comparison.utility
    out = {"before": risk_numbers(comparison.original), "after": risk_numbers(comparison.masked),
           "utility": {"IL1s": float(u["d_utility.IL1s"]), "eigen": float(u["d_utility.eigen"]),
                       "il_variables": u["il_variables"].value},
           "comparison": comparison.frame}
    if report_path is not None:
        problem.report(xm, report_path, random_state=random_state,
                       regression="log(income) ~ age_group + sex + education", regression_where="income > 0")
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    x, xm = pysdc.load_demo_pair()
    res = native_workflow(x, xm, report_path=argv[0] if argv else None)
    for when in ("before", "after"):
        r = res[when]
        print(f"{when:>6}: expected re-identifications {r['global_risk_er']:.4f} ({r['global_risk_pct']:.4f} %), "
              f"households {r['hier_risk_er']:.4f}; records violating 2-/3-anonymity: {r['fk_lt_2']} / {r['fk_lt_3']}")
    print("utility: " + ", ".join(f"{k} {v:.6g}" for k, v in res["utility"].items()))
    if argv:
        print(f"report written to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
