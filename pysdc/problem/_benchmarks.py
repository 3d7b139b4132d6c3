"""Benchmark indicators and regressions of the utility assessment (``pysdc utility --estimate/--regression``).

The practice guide's utility checks beyond sdcMicro's ``dUtility``: the estimates a file's users publish
(:func:`pysdc.compare_estimates`) and the regressions they fit (:func:`pysdc.compare_regression`), each
computed on the original and on the masked data, with confidence intervals and their overlap. The section
is part of the ``pysdc-utility-1`` model as ``"benchmarks"``; :mod:`pysdc.report._benchmarks` renders it.
"""

from __future__ import annotations

import math
import re

from .._errors import PysdcError
from ..loss import compare_estimates, compare_regression

__all__ = ["benchmark_section", "referenced_columns"]

_NAME = re.compile(r"[A-Za-z._][A-Za-z0-9._]*")


def referenced_columns(texts, header) -> list:
    """The columns of ``header`` that estimator or formula texts name (to read only what is needed)."""
    names = set()
    for t in texts:
        names.update(_NAME.findall(t))
    return [c for c in header if c in names]


def _direct(where, fn, *args, **kwargs):
    return fn(*args, **kwargs)


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else None


def _attempt(run, where, compute) -> dict:
    try:
        return {"status": "ok", **run(where, compute), "error": None}
    except PysdcError as exc:
        return {"status": "error", "error": str(exc)}


def benchmark_section(x, xm, *, estimates=(), regressions=(), w=None, family="gaussian", level=0.95,
                      ci=None, random_state=None, run=_direct) -> dict:
    """Estimates and regressions on ``x`` and ``xm``, as plain data.

    Parameters
    ----------
    x, xm : pandas.DataFrame
    estimates : sequence of str
        Estimator texts for :func:`pysdc.compare_estimates` (``"mean(income)"``, ``"gini(income)"`` ...).
    regressions : sequence of str
        R formula texts for :func:`pysdc.compare_regression`.
    w : str, optional
        Weight column for both.
    family : str
        Family of the regressions.
    level : float
        Confidence level of every interval.
    ci : {None, "t", "profile", "wald"}
        The regressions' interval (:func:`pysdc.compare_regression`'s ``ci``).
    random_state : int, optional
        Seed of the GINI bootstrap.
    run : callable
        ``run(where, fn)`` (the CLI passes one that collects warnings).

    Returns
    -------
    section : dict
        ``{"level", "weight", "family", "estimates": {...}, "regressions": [...]}``; a part that fails
        carries ``"status": "error"`` and pysdc's message, the others are still computed.
    comparisons : dict
        Formula -> :class:`~pysdc.RegressionComparison` of the regressions that were fitted (for plots).
    """
    out = {"level": level, "weight": w, "family": family, "estimates": None, "regressions": []}
    comparisons = {}
    if estimates:
        def est():
            t = compare_estimates(x, xm, list(estimates), w=w, level=level, random_state=random_state).table
            rows = []
            for rec in t.to_dict(orient="records"):
                rows.append({k: (_num(v) if isinstance(v, float) else (bool(v) if k == "inside" else v))
                             for k, v in rec.items()})
            return {"rows": rows}
        out["estimates"] = _attempt(run, "estimates", est)
    for formula in regressions:
        def reg(formula=formula):
            r = compare_regression(x, xm, formula, w=w, family=family, level=level, ci=ci)
            table = {}
            for coef, row in r.table.iterrows():
                table[str(coef)] = {k: (bool(v) if k == "inside" else _num(v)) for k, v in row.items()}
            comparisons[formula] = r
            return {"table": table}
        res = _attempt(run, f"regression {formula}", reg)
        res["formula"] = formula
        out["regressions"].append(res)
    return out, comparisons
