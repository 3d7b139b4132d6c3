"""Model-based global risk: sdcMicro's ``modRisk`` (Poisson log-linear models), native.

The records are reduced once to the table of key combinations (counts, weight sums,
sums of inverse weights); the models are fitted on that table by the kernels of
:mod:`pysdc.core.loglinear` (R's ``glm.fit`` and ``loglin``), with the model matrix of
:mod:`pysdc.core.formula` (R's ``model.matrix``).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import Columns, Constraint, Frame, Options, _show, user_stacklevel
from ..core.formula import parse_formula
from ..core.modrisk import exact_sum, fit_glm, fit_ipf, grid_index, key_grid

__all__ = ["mod_risk", "ModRiskResult", "MOD_RISK_PARAMS"]

METHODS = ("default", "CE", "PML", "weightedLLM", "IPF")
#: column names sdcMicro's modRisk uses internally: a key with one of them makes it fail
_RESERVED = ("counts", "weights", "inclProb", "x")


@dataclass(frozen=True, eq=False, repr=False)
class ModRiskResult(_Repr):
    """Result of :func:`pysdc.mod_risk` (sdcMicro's ``modrisk`` object).

    Attributes
    ----------
    gr1 : float
        Global risk 1: the mean over the retained cells (``0 < counts <= bound``) of
        ``exp(-(1 - p) * lambda)`` taken over the sample uniques (sdcMicro's ``gr1``).
    gr2 : float
        Global risk 2: the same mean of ``(1 - exp(-v)) / v``, ``v = (1 - p) * lambda``.
    gr1perc, gr2perc : float
        ``100 * gr1``, ``100 * gr2``.
    method : str
        The method used.
    formula : str
        The model formula (sdcMicro's ``model``).
    fitted : pandas.Series
        The fitted expected counts ``lambda``. Glm methods: one value per complete cell of
        the key grid, indexed by the key combination (a MultiIndex named after the
        main-effect variables), in sdcMicro's grid order (first key slowest; R's names are
        the grid row numbers). ``IPF``: the whole k-way table of ``MASS::loglm``, every
        level combination (unused factor levels included), first key fastest, as R's
        ``as.data.frame.table`` lists it.
    incl_prob : pandas.Series
        ``p``: the sum of ``1 / weight`` over the records of each retained cell (sdcMicro's
        ``inclProb``), indexed by key combination, in grid order.
    iterations : int
        IRLS iterations (glm methods) or IPF cycles. Not part of sdcMicro's result.
    converged : bool
        Whether the fit met R's convergence rule. Not part of sdcMicro's result.
    """

    gr1: float
    gr2: float
    gr1perc: float
    gr2perc: float
    method: str
    formula: str
    fitted: pd.Series
    incl_prob: pd.Series
    iterations: int = 0
    converged: bool = True

    def __float__(self) -> float:
        return float(self.gr1)


class _FormulaText(Constraint):
    """R formula text over columns of ``data``."""

    def check(self, name, value, values):
        if not isinstance(value, str):
            raise InvalidParameterError(
                f"{name} must be R formula text such as '~ a + b + a:b'; got {_show(value)}."
            )
        data = values.get("data")
        if isinstance(data, pd.DataFrame):
            _check_formula(value, data, values.get("method"))
        return value

    def invalid_values(self, name, values):
        return [None, 3, "~", "~ log(a)", "y ~ a"]


def _check_formula(formula: str, data: pd.DataFrame, method) -> None:
    """sdcMicro's refusals of a formula (shared by the native function and the bridge)."""
    parsed = parse_formula(formula)
    if parsed.response is not None:
        raise InvalidParameterError(
            f"formula must be one-sided ('~ a + b'): modRisk models the cell counts itself; got {formula!r}."
        )
    vars_ = parsed.main_effects()
    if not vars_:
        raise InvalidParameterError(
            f"formula must contain main effects (sdcMicro builds its key table from the order-one terms "
            f"and stops without them); got {formula!r}. Write e.g. '~ a + b + a:b'."
        )
    missing = [v for v in parsed.variables if v not in data.columns]
    if missing:
        raise InvalidParameterError(
            f"formula uses {missing}, which are not columns of data (sdcMicro: 'all variables specified in "
            f"the formula must exist in the input dataset'); available: {list(data.columns)[:20]}."
        )
    loose = [v for v in parsed.variables if v not in vars_]
    if loose:
        raise InvalidParameterError(
            f"formula: {loose} appear only in interactions; sdcMicro's modRisk keeps only the main-effect "
            f"variables and then fails ('object not found'). Add them as main effects, e.g. "
            f"'~ {' + '.join(vars_ + loose)} + ...'."
        )
    reserved = [v for v in vars_ if v in _RESERVED]
    if reserved:
        raise InvalidParameterError(
            f"formula: key(s) {reserved} clash with the column names sdcMicro's modRisk uses internally "
            f"({', '.join(_RESERVED)}) and make it fail; rename the column(s)."
        )
    if method == "IPF":
        if any(len(t) > 1 for t in parsed.terms):
            raise InvalidParameterError(
                f"method 'IPF' fits main effects only (sdcMicro: 'method IPF cannot be used for models with "
                f"interactions'); got {formula!r}. Use method='default' for interactions."
            )
    if method == "IPF":
        bad = [v for v in vars_ if r_class(data[v]) in ("ordered", "logical")]
        if bad:
            raise InvalidParameterError(
                f"method 'IPF' fails in sdcMicro 5.8.0 (under R >= 4.2) for ordered-factor and logical keys "
                f"('the condition has length > 1' / 'Incompatible join types'); got {bad}. Convert them to "
                "unordered Categoricals (the IPF fit does not depend on the order) or use another method."
            )


class _Bound(Constraint):
    """A real number (Inf allowed, as sdcMicro's default; NaN keeps no cell, as in R)."""

    def check(self, name, value, values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise InvalidParameterError(
                f"{name} must be a number (math.inf for no bound); got {_show(value)}."
            )
        return float(value)

    def invalid_values(self, name, values):
        return ["5", None, True, [1, 2]]


MOD_RISK_PARAMS = {
    "data": Frame(),
    "formula": _FormulaText(),
    "w": Columns("data", single=True),
    "method": Options(METHODS),
    "bound": _Bound(),
    "ipf_join": Options(("sdcmicro", "all")),
}


# ------------------------------------------------------------------ the function

@measure(MOD_RISK_PARAMS, engine="the log-linear model is fitted to the full contingency table in memory")
def mod_risk(
    data: pd.DataFrame,
    formula: str,
    *,
    w: str,
    method: str = "default",
    bound: float = math.inf,
    ipf_join: str = "sdcmicro",
) -> ModRiskResult:
    """Global disclosure risk from Poisson log-linear models, as sdcMicro's ``modRisk``.

    The sample frequencies of the key combinations are modelled as Poisson counts with a
    log-linear model over the key variables (main effects and interactions, given as an R
    formula); the fitted expected counts ``lambda`` and each cell's sum of inverse weights
    ``p`` give, over the sample uniques, the expected number of population uniques (``gr1``)
    and of correct matches (``gr2``) -- Skinner and Holmes (1998); Elamir and Skinner (2004).

    Parameters
    ----------
    data : pandas.DataFrame
        The microdata.
    formula : str
        R formula text over the key variables: ``"~ a + b + c"``, ``"~ (a + b + c)^2 + d"``,
        ``"~ a + b + a:b"``, ``"~ a*b"``; ``- 1`` removes the intercept. Every variable of an
        interaction must also be a main effect (sdcMicro keeps only the main-effect variables).
        At most :data:`pysdc.core.formula.MAX_TERMS` (5000) terms, counted before ``*``, ``:`` and
        ``^`` are expanded: ``(a + ... + t)^20`` (1,048,575 terms) is refused at once.
    w : str
        The weight column (sdcMicro's ``weights``, a column name).
    method : {"default", "CE", "PML", "weightedLLM", "IPF"}
        ``"default"``: Poisson glm of the counts. ``"CE"`` (Clogg-Eliason): with offset
        ``log(counts / weights + 0.1)`` (0 where both are 0). ``"PML"`` (pseudo maximum
        likelihood): the response is ``round(weights * n / sum(w))``. ``"weightedLLM"``: the
        cell weight sums enter as an extra covariate ``weights``. ``"IPF"``: iterative
        proportional fitting (``MASS::loglm``), main effects only.
    bound : float
        Only cells with ``0 < counts <= bound`` enter the risk (default ``math.inf``).
    ipf_join : {"sdcmicro", "all"}, default "sdcmicro"
        ``IPF`` only: how the fitted table is merged back onto the cells. ``"sdcmicro"``: as
        sdcMicro 5.8.0 does, through a data.table join that can miss cells (see the Notes;
        pysdc warns when it does); ``"all"``: every cell gets its fitted value (the sound
        value, not sdcMicro's where they differ).

    Returns
    -------
    ModRiskResult

    See Also
    --------
    pysdc.measure_risk : frequency-based individual and global risk.

    Notes
    -----
    How it lines up with sdcMicro 5.8.0's ``modRisk(obj, method, weights, formulaM, bound)``
    on a data.frame (every step verified against R on pysdc's corpus):

    * The key grid is the full Cartesian product of each main-effect variable's distinct
      observed values, a missing value included (sorted as ``data.table`` sorts: factors by
      level, numbers ascending, missing first). Each cell holds ``counts`` (records),
      ``weights`` (sum of weights) and ``inclProb`` (sum of ``1/weight``); a cell whose sums
      are NA (a record with a missing weight) gets 0, as empty cells do.
    * Glm methods fit R's ``glm(..., family = poisson())`` on the grid: cells with a missing
      key (or missing response/offset/covariate) are dropped (``na.omit``), unused factor
      levels dropped; integer and double keys are *numeric* covariates (one column, a
      linear trend), factors, character and logical keys categorical (treatment contrasts,
      ordered factors polynomial contrasts). IRLS exactly as ``glm.fit`` (start
      ``y + 0.1``, ``|dev - dev_old| / (|dev| + 0.1) < 1e-8``, at most 25 iterations,
      rank-deficient designs as R's QR with tolerance 1e-11: aliased columns dropped).
    * ``IPF`` runs ``loglin``'s iterative proportional fitting (``eps = 0.1``,
      ``iter = 40``, start 1) on the ``xtabs`` table of the counts (every factor level,
      missing keys left out). sdcMicro 5.8.0 fails with interactions, and under R >= 4.2
      also with an ordered-factor key ("the condition has length > 1") and a logical key
      (a data.table join error); pysdc refuses those too. sdcMicro merges the fitted table
      back by its printed labels: a double key whose value does not survive R's 15-digit
      ``as.character`` round trip loses its fitted value, and the label columns, keyed as
      text (C order) and then converted back to numbers (factors: ``as.factor``, levels in
      R's collation) without sorting again, are joined by data.table's binary search, which
      misses cells wherever the text order differs from the values' order -- an integer key
      such as age (``"10" < "2"``): on laeken's eusilc with keys db040, rb090, age, pl030,
      pb220a, gr1 is 0.28635 (sdcMicro) against 0.28736 with every cell. pysdc reproduces the
      join (``ipf_join="sdcmicro"``, with a warning when it drops cells); ``ipf_join="all"``
      keeps every cell.
    * Risk: the cells kept are ``0 < counts <= bound`` with a fitted value (not 0); with
      ``m`` of them, ``gr1 = sum over counts == 1 of exp(-(1 - p) lambda) / m`` and
      ``gr2 = sum over counts == 1 of (1 - exp(-v)) / v / m``, ``v = (1 - p) lambda``.
      sdcMicro multiplies *every* kept cell's risk by ``counts == 1``, so a cell with more
      records whose ``exp(-v)`` overflows (``p > 1``, usual with many records per cell and
      no finite ``bound``) or a cell with ``p == 1`` (``v = 0``) makes ``gr1``/``gr2`` NaN
      (``0 * Inf``, ``0/0``); pysdc returns the same NaN with a
      :class:`~pysdc.DegenerateResultWarning`. A zero weight gives ``p = Inf`` (NaN too).
    * ``bound <= 0`` or NaN keeps no cell: ``gr1 = gr2 = 0`` and an empty ``incl_prob``.

    sdcMicro stops (pysdc raises :class:`~pysdc.InvalidParameterError`) for: an unknown
    method or weight column; a variable missing from the data; an interaction variable
    that is not a main effect; a formula without main effects; a categorical key with one
    observed level (glm methods: "contrasts can be applied only to factors with 2 or more
    levels"); ``CE`` where a cell with records has weight sum 0 or a missing weight
    (infinite offset: "NA/NaN/Inf in 'y'"); keys named ``counts``, ``weights``,
    ``inclProb`` or ``x`` (sdcMicro's internal names).

    References
    ----------
    Skinner, C.J. and Holmes, D.J. (1998). Estimating the re-identification risk per record
    in microdata. Journal of Official Statistics 14, 361-372.

    Elamir, E. and Skinner, C.J. (2004). Record-level measures of disclosure risk for survey
    microdata. Journal of Official Statistics 22, 525-539.

    Examples
    --------
    >>> import pysdc
    >>> df = pysdc.load_demo()
    >>> r = pysdc.mod_risk(df, "~ region + sex + urbrur", w="weight", bound=5)
    >>> round(r.gr1, 6) >= 0
    True
    """
    method_ = method
    parsed = parse_formula(formula)
    vars_ = parsed.main_effects()
    wcol = data[w]
    wcls = r_class(wcol)
    if wcls not in ("numeric", "integer", "logical"):
        raise InvalidParameterError(
            f"w: weight column {w!r} is {wcls}; sdcMicro's modRisk needs numeric weights ('1/weights' "
            "fails). Convert it to float."
        )
    wv = wcol.to_numpy(dtype=np.float64, na_value=np.nan)

    # ---- the grid of key combinations (first key slowest, as data.table's keyed sort)
    keys, sizes, n_cells, counts, wsum, psum = key_grid(data, vars_, wv)
    wsum[np.isnan(wsum)] = 0.0
    psum[np.isnan(psum)] = 0.0
    # grid position of every cell, per key
    pos = []
    rest = np.arange(n_cells, dtype=np.int64)
    for size in reversed(sizes):
        pos.append(rest % size)
        rest //= size
    pos = pos[::-1]
    complete = np.ones(n_cells, dtype=bool)
    for k, p in zip(keys, pos):
        if k.has_na:
            complete &= p > 0
    # value index (into k.values) of each cell, -1 for NA
    vidx = [p - int(k.has_na) for k, p in zip(keys, pos)]

    Fk = np.zeros(n_cells)
    warn_msgs: list = []
    if method_ != "IPF":
        Fk_, fitted, iterations, converged, warn_msgs = fit_glm(
            parsed, method_, keys, vidx, complete, counts, wsum
        )
        Fk = Fk_
    else:
        Fk, fitted, iterations, converged, warn_msgs = fit_ipf(keys, vidx, complete, counts, ipf_join)
    for msg in warn_msgs:
        if msg == "glm.fit: algorithm did not converge":
            warnings.warn(
                f"mod_risk: R's fit warns '{msg}' here: glm's IRLS stopped after its 25 iterations without "
                "converging (typically fitted counts of empty cells heading to 0; e.g. weightedLLM with equal "
                "weights, where the weights term is proportional to the counts), so the result is the 25th "
                "iterate, not a maximum-likelihood fit. pysdc repeats the iterations, but each least-squares "
                "step rounds differently from R's (LAPACK's Householder QR against LINPACK's dqrdc2) and the "
                "diverging iteration amplifies it: the fitted values can differ from sdcMicro's by ~1e-9 and "
                "gr1/gr2 by ~1e-11 relative (sdcMicro's own fitted values move by 2e-10 when the cells are "
                "merely reordered). Simplify the model (or drop the weights term) for a converged fit.",
                DegenerateResultWarning, stacklevel=user_stacklevel(),
            )
            continue
        warnings.warn(
            f"mod_risk: R's fit warns '{msg}' here, and pysdc reproduces the fit it stopped at.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )

    # ---- the risk over the retained cells
    Fk = np.where(np.isnan(Fk), 0.0, Fk)
    with np.errstate(invalid="ignore"):
        keep = (counts > 0) & (counts <= bound)
    keep &= ~((Fk == 0) & (counts > 0))
    m = int(keep.sum())
    lam = Fk[keep]
    p = psum[keep]
    f = counts[keep]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        v = (1.0 - p) * lam
        e = np.exp(-v)
        r1 = e / m if m else e
        r2 = ((1.0 - np.exp(-v)) / v) / m if m else e
        one = (f == 1).astype(np.float64)
        gr1 = exact_sum(one * r1)
        gr2 = exact_sum(one * r2)
    if math.isnan(gr1) or math.isnan(gr2):
        warnings.warn(
            "mod_risk: gr1/gr2 are NaN, as in sdcMicro: it multiplies every retained cell's risk by "
            "(counts == 1), and a cell's exp(-(1 - p) * lambda) overflows where the sum of inverse weights "
            "p exceeds 1 (cells with many records), or (1 - exp(-v))/v is 0/0 where p == 1. Give a finite "
            "bound (e.g. bound=1 or 2) to keep only small cells.",
            DegenerateResultWarning, stacklevel=user_stacklevel(),
        )
    incl = pd.Series(p, index=grid_index(keys, [vi[keep] for vi in vidx]), name="incl_prob")
    return ModRiskResult(
        gr1=gr1, gr2=gr2, gr1perc=gr1 * 100, gr2perc=gr2 * 100, method=method_, formula=formula,
        fitted=fitted, incl_prob=incl, iterations=int(iterations), converged=bool(converged),
    )
