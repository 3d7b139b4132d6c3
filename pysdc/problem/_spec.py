"""The specification of an SDC problem: which columns play which role, validated as sdcMicro's ``createSdcObj``.

Also the column rules every assessment shares (:func:`utility_columns`): which variables each
information-loss measure uses, the same for :meth:`pysdc.SdcProblem.utility`, ``pysdc utility``
(pandas and engines) and ``pysdc report``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from .._names import did_you_mean
from .._registry import by_python_name
from .._types import r_class
from .._validation import user_stacklevel
from ..core.collate import COLLATIONS, r_sort_text
from ..core.keys import _records as describe_records
from ..core.keys import record_examples

__all__ = ["origin", "as_sdc_keys", "DEFAULT_COLLATION", "K_ANON_KS", "D_UTILITY_METHODS", "utility_columns"]

#: the k of the k-anonymity violation counts
K_ANON_KS = (2, 3, 5)
#: dUtility's methods, in sdcMicro's order: those d_utility declares (its ``method`` constraint)
D_UTILITY_METHODS = tuple(by_python_name("d_utility").params["method"].options)

# =============================================================================
# where a number comes from


def origin(measure: str) -> str:
    """Where the numbers of ``measure`` (a pysdc function name) come from, as the report shows it.

    ``"sdcMicro: <R name>"`` for the measures pysdc computes number-for-number with sdcMicro
    (the registry's entries with an R counterpart), ``"literature"`` for the native-only
    measures, ``"pysdc"`` for anything else (summaries pysdc adds).
    """
    base = measure.split(".")[0]
    try:
        m = by_python_name(base)
    except KeyError:
        return "pysdc"
    return f"sdcMicro: {m.r}" if m.r else "literature"


# =============================================================================
# createSdcObj's conversion of the key variables

#: the default order of factor levels made from text: R in a UTF-8 locale with ICU (see pysdc.core.collate)
DEFAULT_COLLATION = "icu"


def as_sdc_keys(data: pd.DataFrame, key_vars, *, collation: str = DEFAULT_COLLATION,
                what: str = "SdcProblem") -> pd.DataFrame:
    """``data`` with its text key variables made factors, as sdcMicro's ``createSdcObj`` does.

    ``createSdcObj`` turns every character key variable into a factor (``as.factor``) before any
    measure sees it; every other column (numbers, logicals, factors, the sensitive variables) stays
    as it is. The factor's levels are the distinct texts sorted as R sorts them under
    ``collation`` (:mod:`pysdc.core.collate`): ``"icu"`` for R in a UTF-8 locale (the default
    of R on Linux and macOS, and of the R that made pysdc's references), ``"C"`` for R with
    ``LC_COLLATE=C`` (code point order). The order decides the factor codes, which sdcMicro's
    suda2 feeds to its DIS-SUDA hash (a different order moves every DIS-SUDA score by up to
    ~1e-7 relative) and which order its tables.

    Returns a shallow copy with the converted columns (``data`` itself when nothing changes).
    Warns (:class:`~pysdc.PysdcWarning`) when a text holds characters whose ICU order pysdc does
    not reproduce.
    """
    if collation not in COLLATIONS:
        raise InvalidParameterError(
            f"collation must be one of {list(COLLATIONS)} (R in a UTF-8 locale with ICU, or R with "
            f"LC_COLLATE=C); got {collation!r}."
        )
    out = None
    for k in key_vars:
        s = data[k]
        try:
            cls = r_class(s)
        except InvalidParameterError:
            continue
        if cls != "character":
            continue
        text = s.dropna()
        distinct = pd.unique(text.astype(str).to_numpy(dtype=object)) if len(text) else []
        levels, unverified = r_sort_text([str(v) for v in distinct], collation)
        if unverified:
            warnings.warn(
                f"{what}: key variable {k!r} is text with characters whose place in R's (ICU) collation pysdc "
                f"does not reproduce (e.g. {unverified[:3]}); its factor levels, and so the factor codes "
                "sdcMicro's suda2 hashes, may be ordered differently from R's. Give the order yourself: "
                f"data[{k!r}] = pd.Categorical(data[{k!r}], categories=[...]) (on the command line: "
                "--ordered or --categorical after sorting the levels in R).",
                PysdcWarning, stacklevel=user_stacklevel(),
            )
        if out is None:
            out = data.copy(deep=False)
        text = s if pd.api.types.is_string_dtype(s.dtype) and s.dtype != object else s.astype(object).where(
            s.isna(), s.astype(str))
        out[k] = pd.Categorical(text, categories=levels)
    return data if out is None else out


# =============================================================================
# validation of the specification


def _names(role: str, value, data: pd.DataFrame, *, allow_empty: bool = True) -> tuple:
    """``value`` (a name or names) as a tuple of column names of ``data``, with sdcMicro-like messages."""
    if value is None:
        value = ()
    if isinstance(value, (pd.Series, pd.DataFrame, np.ndarray)):
        raise InvalidParameterError(
            f"{role} takes column names of data, not the values themselves; got a {type(value).__name__}."
        )
    if isinstance(value, str) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        cols = [value]
    elif isinstance(value, Iterable):
        cols = list(value)
    else:
        raise InvalidParameterError(f"{role} must be a column name or a list of column names; got {value!r}.")
    if not cols and not allow_empty:
        raise InvalidParameterError(f"{role} must name at least one column of data; got none.")
    positions = [c for c in cols if isinstance(c, (numbers.Integral, np.integer)) and not isinstance(c, bool)
                 and c not in data.columns]
    if positions:
        shown = [int(p) for p in positions]
        example = [str(data.columns[p - 1]) for p in shown if 1 <= p <= data.shape[1]]
        hint = f" (R's positions {shown} would be {example})" if len(example) == len(shown) else ""
        raise InvalidParameterError(
            f"{role} names column(s) {shown} that data does not have: pysdc takes column names, not positions "
            f"as R's keyVars = c(2, 4) does{hint}."
        )
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise InvalidParameterError(
            f"{role}: please specify valid column-names! {missing} are not columns of data (sdcMicro's createSdcObj "
            f"stops with the same message);{_did_you_mean(missing, data.columns)} its columns are "
            f"{list(data.columns)[:20]}{' ...' if data.shape[1] > 20 else ''}."
        )
    if len(set(cols)) != len(cols):
        raise InvalidParameterError(f"{role} names a column more than once: {cols}.")
    return tuple(cols)


def _did_you_mean(missing, columns) -> str:
    return did_you_mean(missing, columns)


def _single(role: str, value, data: pd.DataFrame):
    if value is None:
        return None
    cols = _names(role, value, data)
    if len(cols) != 1:
        raise InvalidParameterError(f"{role} must name exactly one column of data; got {list(cols)}.")
    return cols[0]


def _is_numeric(s: pd.Series) -> bool:
    try:
        return r_class(s) in ("numeric", "integer")
    except InvalidParameterError:
        return False


def _validate(data, key_vars, num_vars, w, hid, strata, sensitive, *, allow_no_keys: bool = False,
              allow_missing_hid: bool = False) -> dict:
    if not isinstance(data, pd.DataFrame):
        raise InvalidParameterError(
            f"data must be a pandas DataFrame; got {type(data).__name__}."
            + (" Pass pd.DataFrame(array, columns=[...]) with column names." if isinstance(data, np.ndarray) else "")
        )
    if data.columns.duplicated().any():
        dup = list(data.columns[data.columns.duplicated()].unique())
        raise InvalidParameterError(f"data has duplicated column names {dup}; give every column a unique name.")
    keys = _names("key_vars", key_vars, data, allow_empty=allow_no_keys)
    nums = _names("num_vars", num_vars, data)
    sens = _names("sensitive", sensitive, data)
    w = _single("w", w, data)
    hid = _single("hid", hid, data)
    strata = _single("strata", strata, data)
    # a variable has one role (sdcMicro refuses the same overlaps)
    roles = {"key_vars": keys, "num_vars": nums, "w": (w,) if w else (), "hid": (hid,) if hid else (),
             "strata": (strata,) if strata else (), "sensitive": sens}
    if strata is not None and strata in keys:
        raise InvalidParameterError(
            f"strata: stratification variable cant be a categorical key variable! ({strata!r} is in key_vars; "
            "sdcMicro's createSdcObj stops with the same message.)"
        )
    names = list(roles)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = [c for c in roles[a] if c in roles[b]]
            if both:
                raise InvalidParameterError(
                    f"{both} cannot be both in {a} and in {b}: a variable has one role in an SDC problem "
                    "(as in sdcMicro's createSdcObj)."
                )
    bad = [c for c in nums if not _is_numeric(data[c])]
    if bad:
        kinds = {c: r_class(data[c]) if not isinstance(data[c].dtype, pd.CategoricalDtype) else "factor" for c in bad}
        raise InvalidParameterError(
            f"num_vars must be numeric variables; {kinds} are not. Declare categorical variables as key_vars."
        )
    if w is not None:
        s = data[w]
        if not _is_numeric(s):
            parsed = pd.to_numeric(s.astype(object), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            raise InvalidParameterError(
                f"w: the weight variable {w!r} must be numeric; got {s.dtype}, with {int(np.isnan(parsed).sum())} "
                f"missing (or non-numeric) value(s), e.g. {describe_records(record_examples(s, np.isnan(parsed)))}.")
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isfinite(v).all():
            raise InvalidParameterError(
                f"w: the weight variable {w!r} has {int((~np.isfinite(v)).sum())} missing or infinite value(s), e.g. "
                f"{describe_records(record_examples(s, ~np.isfinite(v)))}; every record needs a weight (sdcMicro's "
                "createSdcObj stops there with 'missing value where TRUE/FALSE needed')."
            )
        if (v <= 0).any():
            warnings.warn(
                f"SdcProblem: the weight variable {w!r} has {int((v <= 0).sum())} value(s) <= 0; sdcMicro accepts "
                "them, but estimated population frequencies (Fk) and risks computed from them are not meaningful.",
                PysdcWarning, stacklevel=user_stacklevel(),
            )
    if hid is not None and not allow_missing_hid and data[hid].isna().any():
        raise InvalidParameterError(
            f"hid: the household id {hid!r} has {int(data[hid].isna().sum())} missing value(s); every record needs its "
            "household (sdcMicro's createSdcObj then gives a household risk of the wrong length, with a warning)."
        )
    return {"key_vars": keys, "num_vars": nums, "w": w, "hid": hid, "strata": strata, "sensitive": sens}


def validate_ghost_vars(ghost_vars, data: pd.DataFrame, spec: dict, *, given=None) -> dict:
    """sdcMicro's ``ghostVars`` (``createSdcObj``, ``addGhostVars``) as ``{key variable: (ghost, ...)}``.

    ``ghost_vars`` is sdcMicro's structure, a list of ``[key_var, [ghost, ...]]`` pairs
    (``list(list("a", c("g1", "g2")))``), or a dict ``{key_var: [ghost, ...]}``; a ghost may be a
    single name. ``given`` holds links already made (``add_ghost_vars``). Stricter than sdcMicro 5.8.0's
    ``createSdcObj``, which accepts a numeric, weight or household variable as a ghost and a ghost linked
    to two keys (addGhostVars' documentation forbids both, and addGhostVars refuses the second): pysdc
    refuses every one, with the reason.
    """
    out = {k: tuple(v) for k, v in (given or {}).items()}
    if ghost_vars is None:
        return out
    if isinstance(ghost_vars, dict):
        pairs = list(ghost_vars.items())
    elif isinstance(ghost_vars, (list, tuple)):
        pairs = list(ghost_vars)
    else:
        raise InvalidParameterError(
            f"ghost_vars must be a dict {{key_var: [ghost, ...]}} or sdcMicro's list of [key_var, [ghost, ...]] "
            f"pairs; got {type(ghost_vars).__name__}.")
    keys = spec["key_vars"]
    roles = {"num_vars": spec["num_vars"], "w": (spec["w"],) if spec["w"] else (),
             "hid": (spec["hid"],) if spec["hid"] else (), "strata": (spec["strata"],) if spec["strata"] else (),
             "sensitive": spec["sensitive"]}
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InvalidParameterError(
                f"ghost_vars: each element must be a pair [key_var, [ghost, ...]] (sdcMicro's list(keyVar, "
                f"c(ghost, ...))); got {pair!r}.")
        key, ghosts = pair
        if not isinstance(key, str):
            raise InvalidParameterError(
                f"ghost_vars: only one (existing) key variable name can be linked in a pair (sdcMicro's message); "
                f"got {key!r}.")
        if key not in keys:
            what = "not a column of data" if key not in data.columns else "not a categorical key variable"
            raise InvalidParameterError(
                f"ghost_vars: {key!r} is {what}; ghost variables are linked to a key variable "
                f"(key_vars {list(keys)}; sdcMicro: 'variable specified in keyVar in not a categorical key "
                "variable!').")
        names = _names(f"ghost_vars[{key!r}]", ghosts, data, allow_empty=False)
        for g in names:
            if g in keys:
                raise InvalidParameterError(
                    f"ghost_vars[{key!r}]: {g!r} is a key variable; a ghost variable cannot be a key variable "
                    "(sdcMicro: 'variables listed in ghostVars were either specified as important (key) variables "
                    "or were already specified as ghost-variables!').")
            other = [r for r, cols in roles.items() if g in cols]
            if other:
                raise InvalidParameterError(
                    f"ghost_vars[{key!r}]: {g!r} is in {other[0]}; a ghost variable may have no other role "
                    "(sdcMicro's addGhostVars: not in keyVars, numVars, pramVars, weightVar, hhId or strataVar).")
            linked = [k for k, v in out.items() if g in v]
            if linked:
                raise InvalidParameterError(
                    f"ghost_vars[{key!r}]: {g!r} is already a ghost variable of {linked[0]!r}; a variable is linked "
                    "to one key variable (sdcMicro's addGhostVars: 'already specified as ghost-variables!').")
            out[key] = (*out.get(key, ()), g)
    return out




# =============================================================================
# which columns each information-loss measure uses (one rule, every path)

_CATEGORICAL = ("factor", "ordered", "character")


def utility_columns(key_vars, num_vars, cls_x: dict, cls_xm: dict, scales: dict | None = None) -> dict:
    """The variables of each information-loss measure, from the roles and the R classes of both files.

    The one rule of :meth:`pysdc.SdcProblem.utility`, ``pysdc utility`` (pandas and engines) and
    ``pysdc report``:

    * dUtility (IL1, IL1s, eigen, robeigen), IL_correl and il_continuous: the numeric variables;
    * il_categorical and il_entropy: the key variables that are categorical (factor, ordered or text)
      with the same class in both files;
    * hellinger and gsil: both of these;
    * IL_variables: the key and numeric variables, each with its scale: a declared one (``scales``),
      else -- for an integer or logical column, which sdcMicro's IL_variables refuses without a
      scale -- ``"numeric"`` for a numeric variable and ``"nominal"`` for a key variable (the role
      says it); a variable whose class differs between the files is left out (sdcMicro's
      IL_variables fails on different types) unless a scale is declared.

    ``cls_x``, ``cls_xm``: variable -> R class in the original and in the masked file. Returns
    ``{"numeric", "categorical", "il_variables", "scales", "declared_scales", "left_out"}`` where
    ``left_out`` lists ``{"variable", "measures", "reason", "r_class"}``.
    """
    declared = dict(scales or {})
    keys, nums = list(key_vars), list(num_vars)
    cats = [k for k in keys if cls_x[k] in _CATEGORICAL and cls_xm[k] == cls_x[k]]
    ilv, eff, left = [], {}, []
    for v in [*keys, *[n for n in nums if n not in keys]]:
        cx, cm = cls_x[v], cls_xm[v]
        if v in declared:
            ilv.append(v)
            eff[v] = declared[v]
            continue
        if cx != cm:
            left.append({"variable": v, "measures": ["il_variables"], "r_class": f"{cx} / {cm}",
                         "reason": f"{cx} in ORIGINAL but {cm} in MASKED (sdcMicro's IL_variables fails on different "
                                   f"types); declare its scale (--scale {v}=numeric|ordinal|nominal)"})
            continue
        ilv.append(v)
        if cx in ("integer", "logical"):
            eff[v] = "numeric" if v in nums else "nominal"
    return {"numeric": nums, "categorical": cats, "il_variables": ilv, "scales": eff, "declared_scales": declared,
            "left_out": left}
