"""Todorova's general score of information loss GSIL = (EBIL% + GHD% + GILCV) / 3, with its bands.

Native only; sdcMicro has no counterpart.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import Frame, Options
from ._categorical import Transition, _ebil_pril, code_pair
from ._continuous import ContinuousLossResult, IntAtLeast, OptionalPositive, degenerate, il_continuous, paired_frames
from ._entropy import entropy_of_counts
from ._hellinger import hellinger

__all__ = ["gsil", "GSILResult", "GSIL_PARAMS", "gsil_band", "BANDS"]

#: (upper bound in percent, band) -- Todorova: small 0-10 %, medium 11-20 %, serious 21-30 %, none 31 % and over
BANDS = ((10.0, "small"), (20.0, "medium"), (30.0, "serious"), (np.inf, "no data utility"))


def gsil_band(value: float) -> str | None:
    """The interpretation band of a GSIL value in percent (None for NaN)."""
    if not np.isfinite(value) and not value == np.inf:
        return None
    for upper, name in BANDS:
        if value <= upper:
            return name
    return BANDS[-1][1]


GSIL_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "bins": IntAtLeast(low=1, note="(the number of quantile bins of each numeric variable)"),
    "max_variation": OptionalPositive(what="a number > 0 (the cap on each relative variation)"),
    "transition": Transition(),
    "cov_divisor": Options(("handbook", "todorova")),
    "component_weights": Options(("eigenvalue", "none")),
}


@dataclass(frozen=True, eq=False, repr=False)
class GSILResult(_Repr):
    """Result of :func:`gsil`.

    Attributes
    ----------
    value : float
        GSIL in percent: the mean of the applicable parts (all three when ``x`` has both
        numeric and categorical variables).
    band : str or None
        ``"small"`` (<= 10 %), ``"medium"`` (<= 20 %), ``"serious"`` (<= 30 %) or
        ``"no data utility"`` (above); None when ``value`` is NaN.
    ebil_pct : float
        EBIL in percent (see :func:`gsil`'s Notes); NaN when there is no categorical variable.
    ghd_pct : float
        100 × the mean Hellinger distance over all variables.
    gilcv : float
        Todorova's GILCV over the numeric variables; NaN when there is none.
    parts : pandas.Series
        ``ebil_pct``, ``ghd_pct``, ``gilcv`` together.
    applicable : tuple
        The parts averaged into ``value``.
    ebil_per_variable : pandas.Series
        Per categorical variable, ``100 · EBIL_v / (N · H_x(V))``.
    hellinger : pandas.Series
        Per variable, the Hellinger distance.
    continuous : ContinuousLossResult or None
        The full continuous table GILCV comes from.
    """

    value: float
    band: str | None
    ebil_pct: float
    ghd_pct: float
    gilcv: float
    parts: pd.Series = field(repr=False, default=None)
    applicable: tuple = ()
    ebil_per_variable: pd.Series = field(repr=False, default=None)
    hellinger: pd.Series = field(repr=False, default=None)
    continuous: ContinuousLossResult | None = field(repr=False, default=None)

    def __float__(self) -> float:
        return float(self.value)


@measure(GSIL_PARAMS, selects="variables", by_name=True)
def gsil(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    *,
    bins: int = 10,
    max_variation: float | None = None,
    transition: dict | None = None,
    cov_divisor: str = "handbook",
    component_weights: str = "eigenvalue",
) -> GSILResult:
    r"""Todorova's general score of information loss, ``GSIL = (EBIL% + GHD% + GILCV) / 3``.

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data: numeric (float, integer) variables enter GILCV, categorical ones
        (Categorical, string, boolean) enter EBIL; all enter the Hellinger distance.
    xm : pandas.DataFrame
        Masked data: the same records in the same order and the same variables.
    bins : int, default 10
        Quantile bins of numeric variables for the Hellinger distance (:func:`hellinger`).
    max_variation : float, optional
        Trottini's cap on relative variations in GILCV (:func:`il_continuous`).
    transition : dict, optional
        PRAM matrices for EBIL (:func:`il_categorical`).
    cov_divisor, component_weights : str
        GILCV's conventions (:func:`il_continuous`).

    Returns
    -------
    GSILResult
        ``.value`` (percent), ``.band``, ``.ebil_pct``, ``.ghd_pct``, ``.gilcv``,
        ``.parts``, ``.applicable`` and the pieces they come from.

    Raises
    ------
    InvalidParameterError
        As :func:`il_continuous`, :func:`il_categorical` and :func:`hellinger`; a datetime
        column.

    Warns
    -----
    DegenerateResultWarning
        An applicable part is NaN (e.g. a single numeric variable has no correlations, so
        no GILCV): the value is NaN.

    See Also
    --------
    il_continuous, il_categorical, hellinger

    Notes
    -----
    * **GHD%** ``= 100 · mean_v H(P_v, Q_v)`` over all variables (:func:`hellinger`).
    * **GILCV** as in :func:`il_continuous`, over the numeric variables (already in percent).
    * **EBIL%** (Todorova leaves the normalisation open; this is pysdc's): per categorical
      variable ``100 · EBIL_v / (N · H_x(V))``, where ``N · H_x(V)`` is the EBIL the
      masked variable would have if it told nothing about the original (``H_x(V)`` the
      entropy of the original distribution, natural log), averaged over the categorical
      variables. With the default estimated posterior this is ``100 · H(V | V') / H(V)``,
      one minus Theil's uncertainty coefficient: 0 % when the masked variable determines
      the original (e.g. a one-to-one relabelling, no change), 100 % when the two are
      independent. A constant original variable (``H_x = 0``) has nothing to lose and
      counts 0 %. With a ``transition`` matrix the posterior is the model's and the
      percentage can slightly exceed 100 %.
    * ``value`` is the mean of the **applicable** parts: EBIL% only with categorical
      variables, GILCV only with numeric ones, GHD% always; ``applicable`` lists them (with
      both kinds of variables this is Todorova's ``/ 3``).
    * Bands (Todorova): small 0--10 %, medium 11--20 %, serious 21--30 %, no data utility
      31 % and over; the gaps between the printed ranges are closed as ``<= 10``,
      ``<= 20``, ``<= 30``.

    References
    ----------
    Todorova, M. Measures for information loss in protected data (GILCV, GSIL and bands).

    Examples
    --------
    One categorical variable, x = (u, u, v, v), xm = (u, v, v, v). EBIL = 1.9095425 (see
    :func:`il_categorical`); H_x = log 2, so EBIL% = 100 · 1.9095425 / (4 log 2) = 68.87219.
    Hellinger: P = (½, ½), Q = (¼, ¾): H = sqrt(½[(√½ - ½)² + (√½ - √¾)²])
    = sqrt(½[0.0428932 + 0.0252551]) = 0.1845919, GHD% = 18.45919. No numeric variable:
    GSIL = (68.87219 + 18.45919) / 2 = 43.66569, "no data utility".

    >>> import pandas as pd
    >>> from pysdc.loss._gsil import gsil
    >>> g = gsil(pd.DataFrame({"a": list("uuvv")}), pd.DataFrame({"a": list("uvvv")}))
    >>> round(g.ebil_pct, 5), round(g.ghd_pct, 5), round(g.value, 5), g.band, g.applicable
    (68.87219, 18.45919, 43.66569, 'no data utility', ('ebil_pct', 'ghd_pct'))
    """
    xf, xmf = paired_frames(x, xm, func="gsil")
    n = int(xf.shape[0])
    numeric = [c for c in xf.columns if r_class(xf[c]) in ("numeric", "integer")]
    categorical = [c for c in xf.columns if c not in set(numeric)]

    hd = hellinger(xf, xmf, bins=bins).per_variable
    ghd_pct = float(100.0 * hd.mean())

    ebil_v = {}
    for c in categorical:
        cd = code_pair(c, xf[c], xmf[c], measure="gsil")
        ebil, _ = _ebil_pril(cd, transition.get(c), c, n)
        h = entropy_of_counts(np.bincount(cd.codes_x, minlength=cd.n_categories))
        if n == 0:
            ebil_v[c] = np.nan
        elif h == 0:
            ebil_v[c] = 0.0
        else:
            ebil_v[c] = 100.0 * ebil / (n * h)
    ebil_series = pd.Series(ebil_v, dtype=np.float64, name="ebil_pct")
    ebil_pct = float(ebil_series.mean()) if categorical else np.nan

    cont = None
    gilcv = np.nan
    if numeric:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cont = il_continuous(
                xf[numeric], xmf[numeric], max_variation=max_variation, cov_divisor=cov_divisor,
                component_weights=component_weights,
            )
        gilcv = cont.gilcv
        if not np.isfinite(gilcv):
            for w in caught:  # GILCV is a part of GSIL: pass its explanation on
                degenerate(f"gsil: GILCV is NaN. {w.message}")

    parts = pd.Series({"ebil_pct": ebil_pct, "ghd_pct": ghd_pct, "gilcv": gilcv}, dtype=np.float64, name="gsil_parts")
    applicable = tuple(k for k, ok in (("ebil_pct", bool(categorical)), ("ghd_pct", True), ("gilcv", bool(numeric))) if ok)
    vals = parts[list(applicable)].to_numpy()
    value = float(vals.mean()) if np.isfinite(vals).all() else np.nan
    if not np.isfinite(value):
        bad = [k for k in applicable if not np.isfinite(parts[k])]
        degenerate(f"gsil is NaN: the part(s) {bad} are NaN (see the other warnings).")
    return GSILResult(
        value=value,
        band=gsil_band(value),
        ebil_pct=ebil_pct,
        ghd_pct=ghd_pct,
        gilcv=float(gilcv),
        parts=parts,
        applicable=applicable,
        ebil_per_variable=ebil_series,
        hellinger=hd,
        continuous=cont,
    )
