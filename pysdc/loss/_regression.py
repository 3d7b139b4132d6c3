"""Regression before and after masking: coefficients, intervals, and their overlap (R's lm/glm).

Native only; the numbers are R's ``lm``/``glm`` (``stats``) number for number.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._validation import (
    Columns,
    Constraint,
    Frame,
    Interval,
    Options,
    _show,
    check_option,
    user_stacklevel,
)
from ..core.glm import GlmStop, glm_fit, lm_fit
from ..core.rformula_lm import model_frame, parse_regression_formula
from ..plots import coefficient_intervals
from ._ci_overlap import interval_overlap

__all__ = ["compare_regression", "RegressionComparison", "fit_regression", "COMPARE_REGRESSION_PARAMS"]

FAMILIES = ("gaussian", "binomial", "poisson")

COLUMNS = ["estimate_x", "se_x", "lower_x", "upper_x", "estimate_xm", "se_xm", "lower_xm", "upper_xm", "inside", "overlap"]


@dataclass(frozen=True, eq=False, repr=False)
class RegressionComparison(_Repr):
    """Result of :func:`compare_regression`.

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed by R's coefficient names (``(Intercept)``, ``sexfemale``, ``education.L``, ``I(hhsize^2)``,
        ...) with columns ``estimate_x, se_x, lower_x, upper_x, estimate_xm, se_xm, lower_xm, upper_xm,
        inside, overlap``. Coefficients present in only one fit (a factor level not observed after
        masking, an aliased column) have NaN on the other side.
    formula : str
    family : str
    level : float
    n_x, n_xm : int
        Records used by each fit (complete cases with positive weight).
    df_residual_x, df_residual_xm : int
    ci_method : str
        ``"t"`` (``confint.lm``), ``"profile"`` (``confint`` on a glm: MASS's profile likelihood) or
        ``"wald"`` (``confint.default``).
    warnings : tuple of str
        R's warnings for either fit (e.g. non-integer successes in a weighted binomial glm).
    """

    table: pd.DataFrame
    formula: str
    family: str
    level: float
    n_x: int
    n_xm: int
    df_residual_x: int
    df_residual_xm: int
    ci_method: str
    warnings: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The coefficient table (a copy)."""
        return self.table.copy()

    def plot(self, **kwargs):
        """The coefficients and intervals before and after (see :func:`pysdc.plots.coefficient_intervals`)."""
        return coefficient_intervals(self, **kwargs)


def _ci_method(family: str, ci) -> str:
    """The interval method: None -> R's ``confint`` (t for lm, profile for glm); checks the pairing."""
    if ci is None:
        return "t" if family == "gaussian" else "profile"
    ci = check_option("ci", ci, ("profile", "wald", "t"))
    if ci == "t" and family != "gaussian":
        raise InvalidParameterError(f"ci='t' is the lm interval (confint.lm); family={family!r} takes 'profile' or 'wald'.")
    if ci == "profile" and family == "gaussian":
        raise InvalidParameterError("ci='profile' is the glm interval (MASS's confint.glm); family='gaussian' takes 't' "
                                    "(confint.lm, the default) or 'wald'.")
    return ci


@dataclass(frozen=True)
class _RegressionFormula(Constraint):
    """R regression formula text ``response ~ terms``."""

    def check(self, name, value, values):
        if not isinstance(value, str) or "~" not in value:
            raise InvalidParameterError(
                f"{name} must be R formula text such as 'log(income) ~ age_group + sex'; got {_show(value)}."
            )
        return value

    def invalid_values(self, name, values):
        return [None, 3, "y + a"]


@dataclass(frozen=True)
class _IntervalMethod(Constraint):
    """None or the interval method, which must suit the (earlier validated) ``family``."""

    def check(self, name, value, values):
        if value is None:
            return None
        return _ci_method(values.get("family", "gaussian"), value)

    def invalid_values(self, name, values):
        return ["bootstrap", 3, "profile" if values.get("family", "gaussian") == "gaussian" else "t"]


COMPARE_REGRESSION_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "formula": _RegressionFormula(),
    "w": Columns("x", single=True, optional=True),
    "family": Options(FAMILIES),
    "level": Interval(0.0, 1.0, closed="neither"),
    "ci": _IntervalMethod(),
}


def _weights(frame: pd.DataFrame, w, name: str, fallback):
    if w is None:
        return None
    if w in frame.columns:
        s = frame[w]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            raise InvalidParameterError(f"w: column {w!r} of {name} must be numeric; got {s.dtype}.")
        return s.astype(float).to_numpy()
    if fallback is not None and fallback.size == len(frame):
        return fallback
    raise InvalidParameterError(f"w names column {w!r}, which {name} does not have.")


def fit_regression(data: pd.DataFrame, formula: str, *, w: np.ndarray | None = None, family: str = "gaussian",
                   level: float = 0.95, data_name: str = "data", ci: str | None = None):
    """One fit: (coefficient names, LinearFit). ``w`` is an array of weights (or None).

    ``ci``: None for R's ``confint(fit)`` (t for lm, the profile likelihood for glm), ``"wald"`` for
    ``confint.default(fit)`` (normal quantiles), or explicitly ``"t"`` (lm) / ``"profile"`` (glm).
    """
    ci = _ci_method(family, ci)
    rf = parse_regression_formula(formula)
    mf = model_frame(rf, data, w)
    y = mf.y
    if family == "gaussian":
        if isinstance(y, pd.Series) or (isinstance(y, np.ndarray) and y.dtype == bool):
            raise InvalidParameterError(f"formula {formula!r}: the response of a gaussian (lm) fit must be numeric.")
    elif family == "binomial":
        if isinstance(y, pd.Series):  # factor: first level = failure (R's glm)
            levels = list(y.cat.categories) if isinstance(y.dtype, pd.CategoricalDtype) else sorted(y.dropna().unique())
            y = (y.astype(object) != levels[0]).to_numpy(dtype=float)
        y = np.asarray(y, dtype=float)
        if np.any((y < 0) | (y > 1)):
            raise InvalidParameterError(
                f"formula {formula!r}: a binomial response must lie in [0, 1] (R: 'y values must be 0 <= y <= 1'); "
                "use a 0/1 variable, a logical such as I(savings > 0), or a factor.")
    else:  # poisson
        if isinstance(y, pd.Series):
            raise InvalidParameterError(f"formula {formula!r}: a poisson response must be numeric.")
        y = np.asarray(y, dtype=float)
        if np.any(y < 0):
            raise InvalidParameterError(
                f"formula {formula!r}: a poisson response must be >= 0 (R: 'negative values not allowed for the 'Poisson' family').")
    y = np.asarray(y, dtype=float)
    xmat = mf.x
    wk = mf.weights
    if wk is not None and np.any(wk < 0):
        raise InvalidParameterError(f"w must be >= 0 (R: 'missing or negative weights not allowed'); {data_name} has negative weights.")
    nan_se = False
    if family == "gaussian" and wk is not None:  # lm.wfit leaves zero-weight records out before its checks
        nz = wk != 0
        # ... but summary.lm sums w * r^2 over every record: 0 * Inf is NaN there
        nan_se = bool(np.any(~np.isfinite(y[~nz])) or np.any(~np.isfinite(xmat[~nz])))
        y, xmat, wk = y[nz], xmat[nz], wk[nz]
    if not np.all(np.isfinite(y)):
        raise InvalidParameterError(
            f"formula {formula!r}: the response {rf.response_label} is infinite for {int(np.sum(~np.isfinite(y)))} "
            f"record(s) of {data_name} (R: \"NA/NaN/Inf in 'y'\"), e.g. log(0); keep only records where it is finite "
            "(e.g. data[data.income > 0]).")
    if not np.all(np.isfinite(xmat)):
        raise InvalidParameterError(
            f"formula {formula!r}: a predictor is infinite in {data_name} (R: \"NA/NaN/Inf in 'x'\"); "
            "keep only records where every term is finite.")
    if family == "gaussian":
        fit = lm_fit(xmat, y, wk, level=level)
        if ci == "wald":  # confint.default: normal quantiles
            qz = float(stats.norm.ppf((1.0 + level) / 2.0))
            fit.lower, fit.upper = fit.coef - qz * fit.se, fit.coef + qz * fit.se
        if nan_se:
            fit.se[:] = np.nan
            fit.lower[:] = np.nan
            fit.upper[:] = np.nan
            fit.warnings.append(
                "records with weight 0 have an infinite term (e.g. log(0)); R's summary.lm then gives NaN standard "
                "errors and intervals (it sums w * residual^2 over all records, 0 * Inf = NaN): drop those records")
    else:
        try:
            fit = glm_fit(xmat, y, wk, family=family, level=level, ci=ci)
        except GlmStop as exc:
            hint = " (R's confint stops too; ci='wald' gives confint.default)" if "profiling" in str(exc) else ""
            raise InvalidParameterError(f"formula {formula!r} on {data_name}: glm stops: {exc}{hint}.") from None
    return mf.names, fit


@measure(COMPARE_REGRESSION_PARAMS, by_name=True, paired=False,
         engine="the regressions are fitted to the records in memory")
def compare_regression(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    formula: str,
    *,
    w: str | None = None,
    family: str = "gaussian",
    level: float = 0.95,
    ci: str | None = None,
) -> RegressionComparison:
    """Fit the same regression on the original and the masked data and compare coefficient by coefficient.

    Parameters
    ----------
    x, xm : pandas.DataFrame or SdcProblem
        Original and masked data. An :class:`~pysdc.SdcProblem` stands for its data and gives
        its weight as ``w``; a :class:`pysdc.r.SdcObj` in ``x`` (``xm`` left out) gives both, the
        original and the manipulated data.
    formula : str
        R formula text, e.g. ``"log(income) ~ age_group + sex + education"``. Supported: column names,
        ``+ - * : ^``, ``-1``/``+0``, and the calls ``log``, ``log2``, ``log10``, ``log1p``, ``exp``,
        ``sqrt``, ``abs``, ``I(...)`` with arithmetic and comparisons inside. At most
        :data:`pysdc.core.formula.MAX_TERMS` (5000) terms, counted before ``*``, ``:`` and ``^`` are
        expanded (``(a + ... + z)^26``, 67,108,863 terms, is refused at once), and nesting at most
        :data:`pysdc.core.formula.MAX_DEPTH` (50) levels deep.
    w : str, optional
        Weight column (``lm``/``glm``'s ``weights``); taken from each frame, or from ``x`` when ``xm``
        lacks it and has as many records.
    family : {"gaussian", "binomial", "poisson"}
        ``gaussian`` fits ``lm``; the others ``glm`` with the canonical link (logit, log).
    level : float
        Confidence level.
    ci : {None, "profile", "wald", "t"}
        The interval. None (default): R's ``confint(fit)``, i.e. ``"t"`` for ``gaussian`` and
        ``"profile"`` (the profile-likelihood interval) for ``binomial``/``poisson``. ``"wald"``: R's
        ``confint.default(fit)``, ``estimate ± qnorm((1 + level)/2) · se``, for any family. ``"t"`` only
        with ``gaussian``, ``"profile"`` only with a glm family.

    Returns
    -------
    RegressionComparison
        ``.table`` (also ``.to_frame()``) indexed by R's coefficient names.

    See Also
    --------
    compare_estimates, ci_overlap, pysdc.plots.coefficient_intervals

    Notes
    -----
    * ``gaussian``: ``lm(formula, data, weights = w)``; ``estimate``/``se`` are ``coef(summary(fit))``,
      the interval ``confint(fit, level = level)``, i.e. ``estimate ± qt((1 + level)/2, df.residual) ·
      se`` (equal to R's to about 1e-12).
    * ``binomial``/``poisson``: ``glm(formula, family, data, weights = w)`` by R's IRLS (same start,
      same stopping rule, same iteration count; standard errors from the last iteration's QR as
      ``summary.glm``). The default interval is R's ``confint(fit)``, which on a glm (R 4.2, MASS's
      ``confint.glm``) profiles the likelihood, and pysdc computes it the same way:

      1. the profile, as ``profile(fit, alpha = (1 - level)/4)``: each coefficient ``b_j`` is fixed at
         ``b̂_j ± k·del·se_j``, ``k = 1, 2, ..., 9`` (``maxsteps = 10`` points), ``del = zmax/5``, ``zmax =
         sqrt(qchisq(1 - alpha, 1))``; the other coefficients are refitted by IRLS with ``b_j·x_j`` as an
         offset, each fit starting from the linear predictor of the previous one (the full fit's for
         ``k = 1``); the signed root deviance ``z = sign(b_j - b̂_j)·sqrt(D(b_j) - D(b̂))`` is recorded,
         and the walk in each direction stops after the first ``|z| > zmax``;
      2. the interval: R's interpolating spline of ``z`` against ``b_j`` (``spline()``, method
         ``"fmm"`` of Forsythe, Malcolm and Moler, at ``3·m`` equally spaced points for ``m`` profile
         points), then linear interpolation (``approx``) of ``b_j`` at ``z = ∓qnorm((1 + level)/2)``.

      The grid, the starting values and the IRLS stopping rule are R's, so the constrained fits are
      R's to rounding (checked against ``profile(fit)``'s ``par.vals`` and ``z``) and the interval is
      ``confint(fit)`` to 3e-11 relative or better on the reference corpus (weighted fits, whose
      deviance differences cancel digits, are the worst). Aliased coefficients get NaN (R: NA) and are
      left out of the other coefficients' constrained fits. A deviance below the fit's by less than
      1e-3 counts as ``z = 0``; by more, pysdc stops as R does ("profiling has found a better
      solution"). The profile costs up to 18 constrained fits per coefficient (as in R; typically
      10-12); ``ci="wald"`` gives ``confint.default(fit)`` instead.
    * Separation (a binomial group with only successes or failures): the profile of that coefficient
      does not reach ``qnorm((1 + level)/2)`` on the flat side, giving NaN there as R's NA. Its other
      bound interpolates a constrained fit that does not converge (coefficients of order 1e14), in R as
      in pysdc: the two agree in size but not in digits (a known divergence, tested as such); the other
      coefficients' intervals agree to the usual precision. Both warn "fitted probabilities
      numerically 0 or 1 occurred".
    * The model frame is R's: ``na.omit`` over the formula's variables and the weights, unused factor
      levels dropped, unordered factors coded by treatment contrasts (``sexfemale``), ordered factors by
      polynomial contrasts (``education.L``, ``.Q``, ``.C``, ``^4``), logical terms as factors
      (``I(savings > 0)TRUE``). An infinite response (``log(0)``) stops as in R: filter first. ``log`` of a
      negative value gives NaN, dropped as missing with a warning (R warns "NaNs produced" too).
      Records with weight 0 are left out of the fit and the degrees of freedom (``lm.wfit``).
    * ``inside``: the masked estimate lies inside the original interval; ``overlap``: :func:`ci_overlap`
      of the two intervals (negative when they are disjoint).

    Examples
    --------
    The Mincer-style regression of the practice guide on the demo data: log income on age group, sex
    and education, weighted, for persons with a positive income.

    >>> import pysdc
    >>> from pysdc.loss._regression import compare_regression
    >>> x, xm = pysdc.load_demo_pair()
    >>> pos, posm = x[x["income"] > 0], xm[xm["income"] > 0]
    >>> r = compare_regression(pos, posm, "log(income) ~ age_group + sex + education", w="weight")
    >>> r.table.index[:2].tolist()
    ['(Intercept)', 'age_group.L']
    >>> bool(r.table.loc["sexfemale", "inside"])
    True

    A logistic regression: R's ``confint`` profiles the likelihood, and so does pysdc by default.

    >>> rb = compare_regression(x, xm, "I(savings > 0) ~ sex + hhsize", family="binomial")
    >>> rb.ci_method, compare_regression(x, xm, "I(savings > 0) ~ sex + hhsize", family="binomial", ci="wald").ci_method
    ('profile', 'wald')
    """
    # validated (COMPARE_REGRESSION_PARAMS): frames, formula text, w a column of x, family, level, ci
    ci = _ci_method(family, ci)
    wx = _weights(x, w, "x", None)
    wxm = _weights(xm, w, "xm", wx)
    names_x, fx = fit_regression(x, formula, w=wx, family=family, level=level, data_name="x", ci=ci)
    names_m, fm = fit_regression(xm, formula, w=wxm, family=family, level=level, data_name="xm", ci=ci)
    index = list(names_x) + [n for n in names_m if n not in names_x]
    tx = pd.DataFrame({"estimate": fx.coef, "se": fx.se, "lower": fx.lower, "upper": fx.upper}, index=names_x).reindex(index)
    tm = pd.DataFrame({"estimate": fm.coef, "se": fm.se, "lower": fm.lower, "upper": fm.upper}, index=names_m).reindex(index)
    table = pd.DataFrame(index=pd.Index(index, name="coefficient"))
    for side, t in (("x", tx), ("xm", tm)):
        for c in ("estimate", "se", "lower", "upper"):
            table[f"{c}_{side}"] = t[c].to_numpy(dtype=float)
    lx, ux, lm_, um = (table[c].to_numpy() for c in ("lower_x", "upper_x", "lower_xm", "upper_xm"))
    with np.errstate(invalid="ignore"):
        table["inside"] = (lx <= table["estimate_xm"].to_numpy()) & (table["estimate_xm"].to_numpy() <= ux)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateResultWarning)
        table["overlap"] = interval_overlap(lx, ux, lm_, um)
    warns = tuple(dict.fromkeys([f"x: {m}" for m in fx.warnings] + [f"xm: {m}" for m in fm.warnings]))
    for m in warns:
        warnings.warn(f"compare_regression: {m} (R warns the same)", DegenerateResultWarning, stacklevel=user_stacklevel())
    return RegressionComparison(
        table=table[COLUMNS], formula=formula, family=family, level=level, n_x=fx.n, n_xm=fm.n,
        df_residual_x=fx.df_residual, df_residual_xm=fm.df_residual,
        ci_method=ci, warnings=warns,
    )
