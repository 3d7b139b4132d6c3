"""The assessment the HTML report shows: every number computed here, once; :mod:`pysdc.report` renders it.

:func:`report_assessment` runs the problem's measures (:meth:`SdcProblem.risk` of the original and of
the masked file, :meth:`SdcProblem.utility`, the estimates and the regression compared before and
after) and collects each warning with the measure that raised it; :func:`html_report` hands the result
to the renderer (:func:`pysdc.report.render_html`), :func:`write_report` writes the document.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcError
from .._foreign import as_problem, is_problem
from .._version import __version__
from ..core.condition import RefusedConditionError, parse_condition
from ..io import check_output, write_text
from ..loss import compare_estimates, compare_regression
from ..report import render_html
from ._spec import origin

__all__ = ["report_assessment", "html_report", "write_report", "riskiest_combinations"]


def _collector(caught: list, suffix: str = ""):
    """``run(where, fn, ...)`` for the problem's measures: each warning kept with the measure that raised it."""

    def run(where, fn, *args, **kwargs):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                return fn(*args, **kwargs)
            finally:
                caught.extend((where + suffix, w) for w in ws)

    return run


def _caught(caught: list, where: str, fn, *args, **kwargs):
    """``fn(...)`` with the warnings it raises (outside the measures) kept under ``where``."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            return fn(*args, **kwargs)
        finally:
            caught.extend((where, w) for w in ws)


def _where(frame: pd.DataFrame, where: str | None, name: str) -> pd.DataFrame:
    """The records of ``frame`` that satisfy ``regression_where``.

    The condition is read and evaluated by pysdc's own parser (:mod:`pysdc.core.condition`), never by
    Python or ``DataFrame.eval``: what it refuses (``@``, attribute access, other calls, dunder names,
    the size limits) raises :class:`~pysdc.core.condition.RefusedConditionError` as it is; a condition
    that cannot be evaluated on this file (a syntax error, an unknown column, a type mismatch) raises
    :class:`~pysdc.InvalidParameterError` saying so.
    """
    if not where:
        return frame
    try:
        mask = parse_condition(where, columns=frame.columns, name="regression_where").evaluate(frame)
    except RefusedConditionError:
        raise
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{str(exc).rstrip('.')} - so it cannot be evaluated on {name}.") from None
    return frame[mask]


def riskiest_combinations(x: pd.DataFrame, keys: list, ind: pd.DataFrame, top: int) -> pd.DataFrame:
    """The ``top`` key combinations with the highest individual risk (then the smallest fk): index the key
    values (a missing one as NA), columns records, fk, Fk, risk."""
    cols = [c for c in ("fk", "Fk", "risk") if c in ind.columns]
    frame = x[keys].reset_index(drop=True).copy()
    for c in cols:
        frame[c] = ind[c].to_numpy()
    frame = frame.astype({k: object for k in keys})
    for k in keys:
        frame[k] = frame[k].where(frame[k].notna(), "NA").astype(str)
    g = frame.groupby(keys, sort=False, dropna=False).agg(records=("risk", "size"), fk=("fk", "first"),
                                                        Fk=("Fk", "first"), risk=("risk", "max"))
    return g.sort_values(["risk", "fk"], ascending=[False, True], kind="stable").head(top)


def _estimates(x, xm, w, nums, estimates, random_state, caught) -> dict | None:
    est = estimates if estimates is not None else [f"mean({v})" for v in nums]
    if not est:
        return None
    try:
        t = _caught(caught, "compare_estimates", compare_estimates, x, xm, est, w=w, random_state=random_state).table
    except PysdcError as exc:
        return {"table": None, "error": " ".join(str(exc).split()), "w": w}
    return {"table": t, "error": None, "w": w}


def _regression(x, xm, w, regression, regression_where, caught) -> dict | None:
    if not regression:
        return None
    out = {"formula": regression, "where": regression_where, "result": None, "error": None}
    try:
        def fit():
            xr, xmr = _where(x, regression_where, "x"), _where(xm, regression_where, "xm")
            out["n_x"], out["n_xm"] = len(xr), len(xmr)
            return compare_regression(xr, xmr, regression, w=w)

        out["result"] = _caught(caught, "compare_regression", fit)
    except PysdcError as exc:
        out["error"] = " ".join(str(exc).split())
    return out


def report_assessment(problem, masked=None, *, regression: str | None = None, regression_where: str | None = None,
                      estimates=None, random_state: int | None = None, top: int = 10, k: int = 3,
                      max_global_risk: float = 0.01) -> dict:
    """Every number of the HTML report of ``problem`` (and of ``masked``), computed once.

    Returns a dict: ``specification`` (the roles), ``x``, ``xm`` (the data frames the figures draw),
    ``risk0``, ``risk1`` (:class:`ProblemRisk` of the original and masked file), ``rep0``, ``rep1`` (their
    ``pysdc-risk-1`` models), ``riskiest``, ``riskiest_judged`` (the riskiest key combinations of the original
    and of the file judged), ``utility`` (:class:`ProblemUtility`), ``estimates``, ``regression``,
    ``caught`` (``(where, warning)`` for each warning raised), ``origin``, ``version``, ``top``, ``k``, ``steps``
    (the protection steps of the problem, :meth:`pysdc.problem.Step.to_dict`; with steps and no ``masked`` the
    masked file is the problem's manipulated data).
    """
    x = problem.data
    if regression_where is not None:  # what the condition language refuses stops the report before any work
        try:
            parse_condition(regression_where, columns=x.columns, name="regression_where")
        except RefusedConditionError:
            raise
        except PysdcError:
            pass  # a syntax error is reported in the estimates section, like a formula that cannot be fitted
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidParameterError(f"k must be a whole number >= 1; got {k!r}.")
    if not (isinstance(max_global_risk, (int, float, np.floating)) and 0 < float(max_global_risk) < 1):
        raise InvalidParameterError(f"max_global_risk must be a number in (0, 1); got {max_global_risk!r}.")
    keys, nums = problem.key_vars, problem.num_vars
    steps = [s.to_dict() for s in getattr(problem, "steps", ())]
    if masked is None and steps:  # a protected problem: before = its original, after = its manipulated data
        masked = problem.manip_data
    xm = None if masked is None else problem._masked(masked)
    caught: list = []
    risk0 = _caught(caught, "risk (original)", problem.risk, data="original", max_global_risk=max_global_risk,
                    masked=xm if nums else None, random_state=random_state, run=_collector(caught))
    risk1 = None if xm is None else _caught(caught, "risk (masked)", problem.risk, data=xm,
                                            max_global_risk=max_global_risk, run=_collector(caught, " (masked)"))
    rep0 = risk0.to_dict(top=top)
    rep1 = None if risk1 is None else risk1.to_dict(top=top)
    putil = est = reg = None
    if xm is not None:
        putil = _caught(caught, "utility", problem.utility, xm, random_state=random_state, run=_collector(caught))
        est = _estimates(x, xm, problem.w, nums, estimates, random_state, caught)
        reg = _regression(x, xm, problem.w, regression, regression_where, caught)
    judged = risk1 if risk1 is not None else risk0
    return {"specification": {**problem.specification, "variables": problem.variables},
            "x": x, "xm": xm, "risk0": risk0, "risk1": risk1, "rep0": rep0, "rep1": rep1,
            "riskiest": riskiest_combinations(x, keys, risk0.measure_risk.individual, top),
            "riskiest_judged": riskiest_combinations(xm if xm is not None else x, keys,
                                                     judged.measure_risk.individual, 3),
            "utility": putil, "estimates": est, "regression": reg, "caught": caught, "origin": origin, "steps": steps,
            "version": __version__, "top": top, "k": k}


def html_report(problem, masked=None, *, title: str | None = None, regression: str | None = None,
                regression_where: str | None = None, estimates=None, random_state: int | None = None,
                plots: bool = True, top: int = 10, source: dict | None = None, k: int = 3,
                max_global_risk: float = 0.01) -> str:
    """The HTML report of ``problem`` (and of ``masked``) as one self-contained document.

    Parameters
    ----------
    problem : SdcProblem
        The data and the roles of its variables.
    masked : pandas.DataFrame, optional
        The masked file (same records in the same order, same column names): adds the information
        loss, the before/after comparisons and the plots of original against masked.
    title : str, optional
        The report's title.
    regression : str, optional
        A model formula in R syntax (e.g. ``"log(income) ~ age_group + sex"``) compared before/after
        with :func:`pysdc.compare_regression` (weighted with the problem's weight); needs ``masked``.
    regression_where : str, optional
        A condition on the records the regression uses, applied to each file (e.g. ``"income > 0"`` for
        a log-income model, as the practice guide does). Read by pysdc's own parser, never evaluated by
        Python: column names (backquoted when they hold spaces), numbers, 'strings', ``+ - * /``,
        comparisons, ``in``/``%in%``/``isin()``, ``isna()``/``notna()``, ``& | ~``/``and or not``/``! && ||``
        and parentheses (:mod:`pysdc.core.condition`); a comparison with a missing value is False.
        Anything else (``@``, attribute access, other calls, dunder names) raises
        :class:`~pysdc.core.condition.RefusedConditionError` before anything is computed.
    estimates : str, callable or list, optional
        Estimators for :func:`pysdc.compare_estimates` (e.g. ``["mean(income)", "gini(income)"]``);
        default: the weighted mean of each numeric variable.
    random_state : int, optional
        Seed of robeigen's and dRiskRMD's random MCD subsets and of the bootstrap intervals.
    plots : bool, default True
        Draw the figures (needs matplotlib).
    top : int, default 10
        How many riskiest combinations / records to list.
    source : dict, optional
        ``{"original": path, "masked": path}`` to name the files.
    k : int, default 3
        The k of the verdict's k-anonymity (every key combination shared by at least k records).
    max_global_risk : float, default 0.01
        The target of the global risk (sdcMicro's measure_risk ``max_global_risk``): the verdict says
        whether the global risk is at or below it, and the threshold is computed for it.

    Returns
    -------
    str
        The HTML document.

    Warns
    -----
    PysdcWarning
        Every distinct warning raised while the numbers were computed is raised again once the report is
        built (the report also shows each next to the numbers it concerns and lists them at its end).
    """
    if not is_problem(problem):
        raise InvalidParameterError(f"problem must be an SdcProblem; got {type(problem).__name__}.")
    problem = as_problem(problem)
    a = report_assessment(problem, masked, regression=regression, regression_where=regression_where,
                          estimates=estimates, random_state=random_state, top=top, k=k,
                          max_global_risk=max_global_risk)
    return render_html(a, title=title, plots=plots, source=source)


def write_report(problem, masked=None, path="report.html", **options) -> Path:
    """Write :func:`html_report` to ``path`` (UTF-8, a ``.html`` or ``.htm`` name); returns the path.

    The file appears only complete: written beside ``path`` and renamed (:mod:`pysdc.io`); on an
    error, an interrupt or a full disk ``path`` keeps its old content (or does not exist)."""
    p = check_output(path, (), what="path", extensions=(".html", ".htm"), format_name="the report as HTML")
    text = html_report(problem, masked, **options)
    write_text(p, text, encoding="utf-8")
    return p
