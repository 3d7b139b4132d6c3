"""sdcMicro's ``IL_variables``: variable-wise information loss (Mlodak, 2020), native.

Distances per record are computed here; the scale of each variable and the measure from the summed
distances come from :mod:`pysdc.core.ilvariables`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from .._foreign import measure
from .._results import ILVariablesResult
from .._types import as_float, r_class
from .._validation import Frame, MappingOf, user_stacklevel, warn_if_unaligned
from ..core.ilvariables import il_variables_from_sums, il_variables_kind
from ..engine._il_variables import il_variables_engine
from ._frames import show_names

__all__ = ["il_variables", "IL_VARIABLES_PARAMS", "SCALES"]

#: the scales IL_variables knows a variable by
SCALES = ("numeric", "ordinal", "nominal")
IL_VARIABLES_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "scales": MappingOf(SCALES, of=("x", "xm")),
}


def _numeric_distance_sum(a: np.ndarray, b: np.ndarray) -> float:
    """Sum over records of (2/pi) * atan|a - b| with sdcMicro's costs for missing values."""
    d = a - b
    np.abs(d, out=d)
    missing = np.isnan(d)
    if missing.any():
        na_a, na_b = np.isnan(a), np.isnan(b)
        one = na_a ^ na_b
        if one.any():
            # R's range(na.rm = TRUE) of no values is (Inf, -Inf)
            ra = (np.nanmin(a), np.nanmax(a)) if (~na_a).any() else (np.inf, -np.inf)
            rb = (np.nanmin(b), np.nanmax(b)) if (~na_b).any() else (np.inf, -np.inf)
            # max(|range(xm) - rev(range(x))|)
            d[one] = max(abs(rb[0] - ra[1]), abs(rb[1] - ra[0]))
        d[na_a & na_b] = 0.0
    np.arctan(d, out=d)
    return float(d.sum()) * (2.0 / np.pi)


def _ordinal_codes(sa: pd.Series, sb: pd.Series):
    if isinstance(sa.dtype, pd.CategoricalDtype) and isinstance(sb.dtype, pd.CategoricalDtype):
        if list(sa.cat.categories) != list(sb.cat.categories):
            raise InvalidParameterError(
                f"ordered column {sa.name!r} has levels {list(sa.cat.categories)[:10]} in x but "
                f"{list(sb.cat.categories)[:10]} in xm; the rank distance needs the same levels in the same "
                "order (sdcMicro's IL_variables stops here too). Use x[col].cat.set_categories(...) on both."
            )
        ca = sa.cat.codes.to_numpy().astype(np.float64)
        cb = sb.cat.codes.to_numpy().astype(np.float64)
        ca[ca < 0] = np.nan
        cb[cb < 0] = np.nan
        return ca, cb, len(sa.cat.categories)
    # declared ordinal on a non-categorical column: levels are the sorted observed values
    values = pd.concat([sa, sb], ignore_index=True).dropna()
    try:
        levels = np.sort(pd.unique(values.to_numpy()))
    except TypeError as exc:
        raise InvalidParameterError(
            f"column {sa.name!r} was declared ordinal but its values cannot be ordered ({exc}); "
            "make it an ordered Categorical with the levels in order."
        ) from None
    cat = pd.CategoricalDtype(levels, ordered=True)
    ca = sa.astype(object).astype(cat).cat.codes.to_numpy().astype(np.float64)
    cb = sb.astype(object).astype(cat).cat.codes.to_numpy().astype(np.float64)
    ca[ca < 0] = np.nan
    cb[cb < 0] = np.nan
    return ca, cb, len(levels)


def _ordinal_distance(ca: np.ndarray, cb: np.ndarray, n_levels: int) -> np.ndarray:
    na_a, na_b = np.isnan(ca), np.isnan(cb)
    d = np.abs(ca - cb)
    d[na_a ^ na_b] = n_levels - 1.0
    d[na_a & na_b] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return d / (n_levels - 1.0)


def _nominal_distance(sa: pd.Series, sb: pd.Series) -> np.ndarray:
    na_a = sa.isna().to_numpy()
    na_b = sb.isna().to_numpy()
    if (
        isinstance(sa.dtype, pd.CategoricalDtype)
        and isinstance(sb.dtype, pd.CategoricalDtype)
        and sa.cat.categories.equals(sb.cat.categories)
    ):
        differ = (sa.cat.codes.to_numpy() != sb.cat.codes.to_numpy()).astype(np.float64)
    else:  # compare the values (labels) themselves; missing values (None, NaN, pd.NA) are set below
        va = sa.astype(object).to_numpy(dtype=object, na_value=None)
        vb = sb.astype(object).to_numpy(dtype=object, na_value=None)
        differ = np.fromiter((a != b for a, b in zip(va, vb)), dtype=bool, count=len(va)).astype(np.float64) \
            if _mixed_objects(va, vb) else (va != vb).astype(np.float64)
    differ[na_a ^ na_b] = 1.0
    differ[na_a & na_b] = 0.0
    return differ


def _mixed_objects(va: np.ndarray, vb: np.ndarray) -> bool:
    """Whether ``va != vb`` could fail element-wise (values whose ``!=`` is not a plain bool)."""
    try:
        out = va != vb
    except (TypeError, ValueError):
        return True
    return not (isinstance(out, np.ndarray) and out.dtype == bool and out.shape == va.shape)


@measure(IL_VARIABLES_PARAMS, selects="variables", engine=il_variables_engine, by_name=True)
def il_variables(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    *,
    scales: dict[str, str] | None = None,
) -> ILVariablesResult:
    """Variable-wise information loss (sdcMicro's ``IL_variables``; Młodak, 2020).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data.
    xm : pandas.DataFrame
        Masked data: the same records in the same order.
    scales : dict, optional
        Declares the scale of a variable, overriding the scale sdcMicro derives
        from its type: ``{"age": "numeric", "hhsize": "ordinal", "code": "nominal"}``.
        This is how integer and boolean columns are measured (sdcMicro refuses
        them). A variable declared ``"ordinal"`` that is not an ordered
        categorical takes its sorted observed values (in ``x`` and ``xm``) as levels.

    Returns
    -------
    ILVariablesResult
        ``value`` (λ, also ``float(result)``), ``per_variable`` (each
        variable's contribution, a Series indexed by name) and ``n``.

    Raises
    ------
    InvalidParameterError
        An integer or boolean variable without a declared scale, a variable
        whose type differs between ``x`` and ``xm``, no common variable, or
        different row counts.

    See Also
    --------
    il_correl, d_utility, pysdc.r.il_variables

    Notes
    -----
    Common columns are taken in ``x``'s order. Distances per record, as in
    sdcMicro 5.8.0:
    * float (R "numeric"): ``(2/pi) * atan(|x - xm|)``; where only one side is
      missing the distance inside the atan is
      ``max(|range(xm) - rev(range(x))|)``; both missing cost 0.
    * ordered categorical: ``|code(x) - code(xm)| / (levels - 1)``; one side
      missing costs 1, both 0. ``x`` and ``xm`` must have the same levels in
      the same order (sdcMicro stops otherwise). A one-level ordered factor
      gives NaN (returned with a warning, as sdcMicro returns NaN).
    * categorical, string (nominal): 0 if equal, 1 otherwise; one side missing
      costs 1, both 0.

    ``per_variable = sum of distances / n``;
    ``value = sum of all distances / (n * number of variables)``.

    sdcMicro types integer and logical columns as nominal but its nominal
    distance only accepts factors and strings, so it fails on them; pysdc
    refuses them too and offers ``scales`` as the way out. Columns whose type
    differs between ``x`` and ``xm`` (e.g. integer in ``x``, float in ``xm``)
    fail in sdcMicro and are refused here.

    References
    ----------
    Młodak, A. (2020). Information loss resulting from statistical disclosure
    control of output data. *Wiadomości Statystyczne / The Polish Statistician*
    65(9), 7-27.
    """
    xf, xmf = x, xm
    xm_cols = set(xmf.columns)
    common = [c for c in xf.columns if c in xm_cols]
    if not common:
        raise InvalidParameterError(
            "x and xm have no column in common; il_variables compares variables by name."
        )
    n = xf.shape[0]
    if xmf.shape[0] != n:
        raise InvalidParameterError(
            f"x has {n} rows but xm has {xmf.shape[0]}; il_variables compares record by record."
        )
    only_x = [c for c in xf.columns if c not in xm_cols]
    only_xm = [c for c in xmf.columns if c not in set(common)]
    if only_x or only_xm:
        warnings.warn(
            f"il_variables compares only the {len(common)} column(s) common to x and xm; left out: only in x "
            f"{show_names(only_x)}, only in xm {show_names(only_xm)} (sdcMicro's IL_variables does the same "
            "silently; d_utility refuses such frames). Select the same columns in both to compare them all.",
            PysdcWarning,
            stacklevel=user_stacklevel(),
        )
    warn_if_unaligned("il_variables", xf, xmf)
    sums = {}
    for c in common:
        sa, sb = xf[c], xmf[c]
        ca, cb = r_class(sa), r_class(sb)
        kind = il_variables_kind(c, ca, cb, scales)
        if c not in scales:
            _refuse_object_numbers(c, sa, "x")
            _refuse_object_numbers(c, sb, "xm")
        if kind == "numeric":
            try:
                s = _numeric_distance_sum(as_float(sa, copy=False), as_float(sb, copy=False))
            except (TypeError, ValueError, InvalidParameterError):
                raise InvalidParameterError(
                    f"column {c!r} was declared numeric but its values are not numbers."
                ) from None
        elif kind == "ordinal":
            codes_a, codes_b, levels = _ordinal_codes(sa, sb)
            s = float(np.sum(_ordinal_distance(codes_a, codes_b, levels)))
        else:
            s = float(np.sum(_nominal_distance(sa, sb)))
        sums[c] = s
    return il_variables_from_sums(sums, n)


def _refuse_object_numbers(c, s: pd.Series, name: str) -> None:
    """An object column is R's character; one that holds non-string values (floats, ints: numbers held as
    object) is refused, as d_utility and il_correl refuse it and as the R bridge does -- measured as labels,
    every number would silently differ from its masked one (IL_variables 1.0)."""
    if s.dtype != np.dtype(object):
        return
    v = s.to_numpy(dtype=object)
    v = v[~pd.isna(v)]
    if not len(v) or pd.api.types.infer_dtype(v, skipna=True) == "string":
        return
    bad = next((u for u in v if not isinstance(u, str)), None)
    raise InvalidParameterError(
        f"column {c!r} of {name} has object dtype but holds non-string values (e.g. {bad!r}, a "
        f"{type(bad).__name__}); an object column is R's character, where every value would be a label and a "
        "masked number always differ from its original. il_variables refuses it, as d_utility and il_correl "
        f"do. Convert it (x[{c!r}].astype(float) to measure it as a number, .astype(str) to compare labels), "
        f"or declare its scale: scales={{{c!r}: 'numeric'}} (or 'nominal')."
    )
