"""The per-stratum runners of sdcMicro's ``pca``, ``rmd``, ``influence`` and ``clustpca`` microaggregation
(issue 28, family 3), called by :func:`pysdc.protect.microaggregation`.

Each runner takes one stratum's numeric matrix (n, p) and returns ``(values, groups)``: the records'
group statistics (``measure``: mean, median or trim, :mod:`pysdc.core.microagg_stats`) and their 0-based
groups. The orderings and groupings are the kernels' (:mod:`pysdc.core.microagg_pca` ...); the checks
here stop where sdcMicro stops.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._errors import InvalidParameterError
from ..core.microagg import fixed_groups
from ..core.microagg_pca import pca_scores
from ..core.microagg_rmd import rmd, rmd_na
from ..core.microagg_stats import aggregate
from ..core.rrandom import RRandom

__all__ = ["MORE_METHODS", "more_runner"]

#: the methods of this module
MORE_METHODS = ("pca", "rmd")


def _check(method: str, x: np.ndarray, aggr: int) -> None:
    n, p = x.shape
    if np.isnan(x).any():
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): the variables have missing values; sdcMicro stops "
            "(cov.wt: 'x' must contain finite values only).")
    if n <= p:
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): a stratum has {n} record(s) for {p} variables; sdcMicro stops "
            "('princomp' can only be used with more units than variables).")
    if n < 2 * aggr:
        raise InvalidParameterError(
            f"microaggregation: a stratum has {n} record(s), fewer than 2 * aggr = {2 * aggr} "
            f"(sdcMicro: 'Too less observations ({n}) for aggregate ={aggr}').")
    with np.errstate(invalid="ignore"):
        const = np.nanmax(x, axis=0) == np.nanmin(x, axis=0)
    if const.any():
        raise InvalidParameterError(
            f"microaggregation(method={method!r}): a variable is constant within a stratum; its standardised "
            "values are NaN and sdcMicro stops (cov.wt: 'x' must contain finite values only).")


def _check_rmd(x: np.ndarray, aggr: int) -> None:
    n, p = x.shape
    if n < 2 * aggr:
        raise InvalidParameterError(
            f"microaggregation(method='rmd'): a stratum has {n} record(s), fewer than 2 * aggr = {2 * aggr}; "
            "sdcMicro stops.")
    complete = int((~np.isnan(x).any(axis=1)).sum())
    if complete <= p + 1:
        raise InvalidParameterError(
            f"microaggregation(method='rmd'): a stratum has {complete} complete record(s) for {p} variables; "
            "sdcMicro stops (covMcd: n <= p).")
    with np.errstate(invalid="ignore"):
        const = np.nanmax(x, axis=0) == np.nanmin(x, axis=0)
    if const.any():
        raise InvalidParameterError(
            "microaggregation(method='rmd'): a variable is constant within a stratum; sdcMicro stops.")


def more_runner(method: str, aggr: int, measure: str, trim: float, random_state=None, missing_means: str = "sdcmicro"):
    """The per-stratum function ``x -> (values, groups)`` of ``method`` (``per_column`` False).

    ``random_state`` (rmd): an int is R's ``set.seed`` before the call; one R stream runs through the strata.
    ``missing_means`` (rmd on missing values): ``"sdcmicro"``, a group's mean missing where one of its records
    misses the variable; ``"present"``, the mean of the present values. The runner's ``dropped`` list gets the
    count of present values a stratum's groups dropped, ``alone`` the records sdcMicro leaves as they are.
    """
    if measure == "trim" and (isinstance(trim, (bool, np.bool_)) or not isinstance(trim, numbers.Real)
                              or not np.isfinite(trim)):
        raise InvalidParameterError(f"microaggregation: trim must be a finite number (R's mean(x, trim)); got {trim!r}.")
    if method == "pca":
        def run(x, weights_for=None):
            run.calls += 1  # the stratum's number (1-based)
            _check(method, x, aggr)
            tied: list = []
            order = np.argsort(pca_scores(x, tied), kind="stable")  # sdcMicro's sorted data
            if tied:  # equal leading eigenvalues: the stratum's first principal axis is arbitrary
                run.arbitrary.append((run.calls - 1, None))
            base = fixed_groups(x.shape[0], aggr)
            g = np.empty(x.shape[0], dtype=np.int64)
            g[order] = base
            vals = np.empty_like(x)
            vals[order] = aggregate(x[order], base, measure, trim, None if weights_for is None else weights_for(order),
                                    run.note)
            return vals, g
        run.weighted = True  # sampling weights: the weighted mean/median (weights_for: microaggregation's)
        run.note = []
        run.calls = 0
        run.arbitrary = []  # (stratum, None) whose princomp has equal leading eigenvalues
    elif method == "rmd":
        if random_state is not None and not isinstance(random_state, RRandom):
            if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
                raise InvalidParameterError(
                    f"microaggregation: random_state must be None or an int (R's set.seed); got {random_state!r}.")
            random_state = RRandom(int(random_state))

        def run(x):
            _check_rmd(x, aggr)
            if not np.isnan(x).any():
                return rmd(x, aggr, random_state)
            vals, g, alone, dropped = rmd_na(x, aggr, random_state, na_rm=missing_means == "present")
            run.dropped.append(dropped)
            run.alone.append(alone.size)
            return vals, g
        run.dropped = []
        run.alone = []
    else:  # pragma: no cover - validated by the caller
        raise ValueError(method)
    run.per_column = False
    return run
