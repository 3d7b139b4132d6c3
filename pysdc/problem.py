"""An SDC problem stated once: data, key variables, numeric variables, weight, household, strata, sensitive.

:class:`SdcProblem` is the native counterpart of sdcMicro's ``createSdcObj``: it states *which*
variables play which role, validates that up front, and then computes every measure pysdc has for
that specification, before and after masking -- without R. The numbers are those of the individual
functions (:func:`pysdc.measure_risk`, :func:`pysdc.suda2`, :func:`pysdc.d_utility`, ...), called
with the specification's arguments.

* :meth:`SdcProblem.risk` -- :class:`ProblemRisk`: measure_risk (individual, global, household),
  k-anonymity violations, SUDA2 and l-diversity (where the specification allows);
* :meth:`SdcProblem.utility` -- :class:`ProblemUtility`: every information-loss measure of a
  masked file on the declared variables (sdcMicro's and the literature's);
* :meth:`SdcProblem.compare` -- :class:`ProblemComparison`: risk before/after and utility side by
  side, with a DataFrame view;
* :meth:`SdcProblem.report` -- one self-contained HTML file (:mod:`pysdc.report._html`);
* :meth:`SdcProblem.to_r` -- the same specification as sdcMicro's ``sdcMicroObj``
  (:class:`pysdc.r.SdcObj`, needs R).

Native functions also accept a problem in place of their data (``pysdc.measure_risk(problem)``):
the specification fills the arguments the call leaves out (:mod:`pysdc._problem_args`).
"""

from __future__ import annotations

import html
import numbers
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError, PysdcError
from ._results import _Repr
from ._types import r_class
from ._validation import user_stacklevel
from .io import as_frame

__all__ = ["SdcProblem", "ProblemRisk", "ProblemUtility", "ProblemComparison", "origin", "K_ANON_KS", "as_sdc_keys",
           "DEFAULT_COLLATION"]

#: the k of the k-anonymity violation counts
K_ANON_KS = (2, 3, 5)
#: dUtility's methods, in sdcMicro's order
D_UTILITY_METHODS = ("IL1", "IL1s", "eigen", "robeigen")


# =============================================================================
# where a number comes from


def origin(measure: str) -> str:
    """Where the numbers of ``measure`` (a pysdc function name) come from, as the report shows it.

    ``"sdcMicro: <R name>"`` for the measures pysdc computes number-for-number with sdcMicro
    (the registry's entries with an R counterpart), ``"literature"`` for the native-only
    measures, ``"pysdc"`` for anything else (summaries pysdc adds).
    """
    from ._registry import by_python_name

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
    from .core.collate import COLLATIONS, r_sort_text

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
                _pysdc_warning(), stacklevel=user_stacklevel(),
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
    from ._names import did_you_mean

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


def _validate(data, key_vars, num_vars, w, hid, strata, sensitive) -> dict:
    if not isinstance(data, pd.DataFrame):
        raise InvalidParameterError(
            f"data must be a pandas DataFrame; got {type(data).__name__}."
            + (" Pass pd.DataFrame(array, columns=[...]) with column names." if isinstance(data, np.ndarray) else "")
        )
    if data.columns.duplicated().any():
        dup = list(data.columns[data.columns.duplicated()].unique())
        raise InvalidParameterError(f"data has duplicated column names {dup}; give every column a unique name.")
    keys = _names("key_vars", key_vars, data, allow_empty=False)
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
            raise InvalidParameterError(f"w: the weight variable {w!r} must be numeric; got {s.dtype}.")
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isfinite(v).all():
            raise InvalidParameterError(
                f"w: the weight variable {w!r} has {int((~np.isfinite(v)).sum())} missing or infinite value(s); every "
                "record needs a weight (sdcMicro's createSdcObj stops there with 'missing value where TRUE/FALSE "
                "needed')."
            )
        if (v <= 0).any():
            warnings.warn(
                f"SdcProblem: the weight variable {w!r} has {int((v <= 0).sum())} value(s) <= 0; sdcMicro accepts "
                "them, but estimated population frequencies (Fk) and risks computed from them are not meaningful.",
                _pysdc_warning(), stacklevel=user_stacklevel(),
            )
    if hid is not None and data[hid].isna().any():
        raise InvalidParameterError(
            f"hid: the household id {hid!r} has {int(data[hid].isna().sum())} missing value(s); every record needs its "
            "household (sdcMicro's createSdcObj then gives a household risk of the wrong length, with a warning)."
        )
    return {"key_vars": keys, "num_vars": nums, "w": w, "hid": hid, "strata": strata, "sensitive": sens}


# =============================================================================
# results


def _attempt(fn, *args, **kwargs):
    """``(result, None)``, or ``(None, reason)`` when pysdc refuses the input (a measure that does not apply)."""
    try:
        return fn(*args, **kwargs), None
    except PysdcError as exc:
        return None, " ".join(str(exc).split())


def _row(section, measure, quantity, value, src=None) -> dict:
    return {"section": section, "measure": measure, "quantity": quantity,
            "value": np.nan if value is None else float(value), "origin": src or origin(measure)}


@dataclass(frozen=True, eq=False, repr=False)
class ProblemRisk(_Repr):
    """Result of :meth:`SdcProblem.risk`: the disclosure-risk measures of one file.

    Attributes
    ----------
    measure_risk : MeasureRiskResult
        :func:`pysdc.measure_risk` with the key variables, weight and household id.
    k_anonymity : pandas.DataFrame
        Index ``k`` (2, 3, 5); columns ``unweighted`` (records with ``fk < k``, sdcMicro's
        ``kAnon_violations``) and, with a weight, ``weighted`` (``Fk < k``).
    suda2 : Suda2Result or None
        :func:`pysdc.suda2` on the key variables; None where it does not apply (see ``skipped``).
    ldiversity : LDiversityResult or None
        :func:`pysdc.ldiversity` of the sensitive variables; None without sensitive variables.
    skipped : dict
        Measure -> why it was not computed.
    n : int
        Number of records.
    """

    measure_risk: object
    k_anonymity: pd.DataFrame
    suda2: object = None
    ldiversity: object = None
    skipped: dict = field(default_factory=dict)
    n: int = 0

    def to_frame(self) -> pd.DataFrame:
        """The numbers as a long table: ``measure``, ``quantity`` (index) -> ``value``, ``origin``."""
        rows = []
        mr = self.measure_risk
        rows += [_row("risk", "measure_risk", "expected re-identifications", mr.global_risk_er),
                 _row("risk", "measure_risk", "global risk (%)", mr.global_risk_pct),
                 _row("risk", "measure_risk", "threshold", mr.global_threshold)]
        if mr.hier_risk_er is not None:
            rows += [_row("risk", "measure_risk", "household: expected re-identifications", mr.hier_risk_er),
                     _row("risk", "measure_risk", "household: global risk (%)", mr.hier_risk_pct)]
        for k, r in self.k_anonymity.iterrows():
            rows.append(_row("risk", "k_anon_violations", f"records with fk < {k}", r["unweighted"]))
            if "weighted" in r.index:
                rows.append(_row("risk", "k_anon_violations", f"records with Fk < {k} (weighted)", r["weighted"]))
        if self.suda2 is not None:
            dis = np.asarray(self.suda2.dis_score, dtype=float)
            score = np.asarray(self.suda2.score, dtype=float)
            src = "pysdc, from sdcMicro's suda2"
            rows += [_row("risk", "suda2", "records with a SUDA score > 0", np.sum(score > 0), src),
                     _row("risk", "suda2", "highest DIS-SUDA score", np.nanmax(dis) if np.isfinite(dis).any() else None,
                          src)]
        if self.ldiversity is not None:
            t = self.ldiversity.table
            for v in self.ldiversity.ldiv_index:
                d = t[f"{v}_Distinct_Ldiversity"].to_numpy(dtype=float)
                rows += [_row("risk", "ldiversity", f"{v}: lowest distinct l-diversity",
                              np.nanmin(d) if np.isfinite(d).any() else None),
                         _row("risk", "ldiversity", f"{v}: records with distinct l-diversity 1", np.sum(d == 1),
                              "pysdc, from sdcMicro's ldiversity")]
        return pd.DataFrame(rows).set_index(["measure", "quantity"]).drop(columns="section")

    def _repr_html_(self) -> str:
        return f"<p><b>{type(self).__name__}</b> ({self.n} records)</p>" + self.to_frame().to_html()

    def __str__(self) -> str:
        return f"{type(self).__name__} of {self.n} records\n{self.to_frame().to_string()}"


@dataclass(frozen=True, eq=False, repr=False)
class ProblemUtility(_Repr):
    """Result of :meth:`SdcProblem.utility`: every information-loss measure on the declared variables.

    Attributes
    ----------
    results : dict
        Measure -> its result: ``"d_utility.IL1"``, ``"d_utility.IL1s"``, ``"d_utility.eigen"``,
        ``"d_utility.robeigen"`` (:func:`pysdc.d_utility` on ``num_vars``), ``"il_correl"``
        (``num_vars``), ``"il_variables"`` (key and numeric variables), and the literature's
        ``"il_continuous"`` (``num_vars``), ``"il_categorical"`` and ``"il_entropy"`` (the
        categorical key variables), ``"hellinger"`` and ``"gsil"`` (both).
    skipped : dict
        Measure -> why it was not computed (e.g. no numeric variables declared).
    variables : dict
        ``{"numeric": [...], "categorical": [...], "il_variables": [...], "scales": {...}}``: which
        variables each group of measures used.
    """

    results: dict
    skipped: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)

    def __getitem__(self, name):
        return self.results[name]

    def to_frame(self) -> pd.DataFrame:
        """Overall values: ``measure``, ``quantity`` (index) -> ``value``, ``origin``."""
        rows = []
        for name, r in self.results.items():
            base, _, method = name.partition(".")
            if base == "d_utility":
                rows.append(_row("utility", base, method, float(r)))
            elif base in ("il_correl", "il_variables"):
                rows.append(_row("utility", base, "value", r.value))
            elif base == "il_continuous":
                rows += [_row("utility", base, "GILCV (%)", r.gilcv), _row("utility", base, "IL1 (mean per cell)", r.il1)]
            elif base == "il_categorical":
                rows += [_row("utility", base, "CTBIL (normalised)", r.ctbil_normalized)]
            elif base in ("hellinger", "il_entropy"):
                rows.append(_row("utility", base, "mean over variables", float(np.mean(r.to_numpy(dtype=float)))))
            elif base == "gsil":
                rows.append(_row("utility", base, f"score ({r.band})", r.value))
        if not rows:
            return pd.DataFrame(columns=["value", "origin"],
                                index=pd.MultiIndex.from_arrays([[], []], names=["measure", "quantity"]))
        return pd.DataFrame(rows).set_index(["measure", "quantity"]).drop(columns="section")

    def per_variable(self) -> pd.DataFrame:
        """Per-variable losses: index the variables; columns ``il_variables`` (sdcMicro's), ``hellinger``,
        ``direct`` and ``ebil`` (il_categorical), ``il_entropy`` (literature); NaN where a measure does not
        cover a variable."""
        cols = {}
        if "il_variables" in self.results:
            cols["il_variables"] = self.results["il_variables"].per_variable
        if "hellinger" in self.results:
            cols["hellinger"] = self.results["hellinger"]
        if "il_categorical" in self.results:
            cols["direct"] = self.results["il_categorical"].direct
            cols["ebil"] = self.results["il_categorical"].ebil
        if "il_entropy" in self.results:
            cols["il_entropy"] = self.results["il_entropy"]
        order = list(dict.fromkeys(v for s in cols.values() for v in s.index))
        return pd.DataFrame({k: pd.Series(s, dtype=float).reindex(order) for k, s in cols.items()}, index=order)

    def _repr_html_(self) -> str:
        return "<p><b>ProblemUtility</b></p>" + self.to_frame().to_html() + self.per_variable().to_html()

    def __str__(self) -> str:
        return f"ProblemUtility\n{self.to_frame().to_string()}\n\nper variable:\n{self.per_variable().to_string()}"


@dataclass(frozen=True, eq=False, repr=False)
class ProblemComparison(_Repr):
    """Result of :meth:`SdcProblem.compare`: risk before and after masking, and the information loss.

    Attributes
    ----------
    original : ProblemRisk
        The risk of the original data.
    masked : ProblemRisk
        The risk of the masked data (same specification).
    utility : ProblemUtility
        The information loss of the masked data against the original.
    frame : pandas.DataFrame
        Index ``section`` (``risk``/``utility``), ``measure``, ``quantity``; columns ``original``,
        ``masked``, ``change`` (masked - original; for utility the loss is in ``masked``) and
        ``origin`` (``sdcMicro: <R name>``, ``literature`` or ``pysdc``).
    """

    original: ProblemRisk
    masked: ProblemRisk
    utility: ProblemUtility

    @property
    def frame(self) -> pd.DataFrame:
        return self.to_frame()

    def to_frame(self) -> pd.DataFrame:
        a, b = self.original.to_frame(), self.masked.to_frame()
        risk = pd.DataFrame({"original": a["value"], "masked": b["value"].reindex(a.index)})
        extra = b.index.difference(a.index, sort=False)
        if len(extra):
            risk = pd.concat([risk, pd.DataFrame({"original": np.nan, "masked": b.loc[extra, "value"]})])
        risk["change"] = risk["masked"] - risk["original"]
        risk["origin"] = a["origin"].combine_first(b["origin"]).reindex(risk.index)
        u = self.utility.to_frame()
        util = pd.DataFrame({"original": np.nan, "masked": u["value"], "change": np.nan, "origin": u["origin"]},
                            index=u.index)
        out = pd.concat({"risk": risk, "utility": util}, names=["section"])
        return out

    def _repr_html_(self) -> str:
        return "<p><b>ProblemComparison</b>: before and after masking</p>" + self.to_frame().to_html(na_rep="")

    def __str__(self) -> str:
        return f"ProblemComparison: before and after masking\n{self.to_frame().to_string(na_rep='')}"


# =============================================================================
# the problem


class SdcProblem:
    """An SDC problem: microdata and the roles of its variables (sdcMicro's ``createSdcObj``, natively).

    Parameters
    ----------
    data : pandas.DataFrame
        The original microdata, one record per row (not copied: do not modify it afterwards). A Polars
        DataFrame or LazyFrame, a PyArrow Table or any object with ``__arrow_c_stream__`` is converted to
        pandas as pysdc reads a Parquet file (:attr:`data` is then that pandas DataFrame).
    key_vars : str or list of str
        Categorical key variables (quasi-identifiers; sdcMicro's ``keyVars``).
    num_vars : list of str, optional
        Numeric key variables (sdcMicro's ``numVars``); must be numeric.
    w : str, optional
        Sampling weight (sdcMicro's ``weightVar``): numeric, positive, never missing.
    hid : str, optional
        Household id (sdcMicro's ``hhId``): household risk.
    strata : str, optional
        Strata variable (sdcMicro's ``strataVar``). Kept in the specification and passed to sdcMicro
        by :meth:`to_r`; pysdc's native risk measures are computed over the whole file.
    sensitive : list of str, optional
        Sensitive variables (sdcMicro's ``sensibleVar``): l-diversity.
    collation : {"icu", "C"}, default "icu"
        The order of the factor levels made from text key variables: R's order in a UTF-8 locale
        (ICU's collation; R's default on Linux and macOS) or with ``LC_COLLATE=C`` (code point
        order, Python's). See :func:`as_sdc_keys`.

    Raises
    ------
    InvalidParameterError
        Unknown columns (sdcMicro's "please specify valid column-names!"; column positions are
        refused, saying that pysdc takes names), strata among the keys (sdcMicro's "stratification
        variable cant be a categorical key variable!"), a variable in two roles, non-numeric
        ``num_vars`` or weight, missing weights, missing household ids.

    See Also
    --------
    pysdc.r.SdcObj : sdcMicro's ``sdcMicroObj`` from Python (:meth:`to_r`, ``SdcObj.to_problem()``).

    Notes
    -----
    Validation is stricter than sdcMicro 5.8.0's ``createSdcObj``, which (tested through R) accepts a
    variable in two roles (a key that is also numeric, a weight that is also a key), a factor weight
    (it then uses the factor's codes), character numeric variables or weights (coerced to NA with a
    warning) and missing household ids (a household risk of the wrong length); pysdc refuses these up
    front. Like sdcMicro it accepts weights <= 0 (with a warning). sdcMicro's risk does not depend on
    ``strataVar`` (it is used by its masking methods), so the native risk measures ignore ``strata``.

    **Text key variables** follow ``createSdcObj``, not the data.frame functions: createSdcObj turns
    character key variables into factors first (levels sorted as R sorts text, ``collation``), so
    ``suda2``, ``ldiversity``, ``freqCalc`` and ``modRisk`` on the object see the categories, while the
    same functions on a data.frame apply R's ``as.numeric`` and see every text as missing. The problem
    object measures :attr:`sdc_data` (the data with text keys as categoricals); the bare functions
    (:func:`pysdc.suda2`, :func:`pysdc.ldiversity`, :func:`pysdc.freq_calc`) keep the data.frame
    semantics. A text *sensitive* variable stays text, as in createSdcObj, so ``ldiversity`` turns
    it into NA there too (pysdc warns; declare it categorical to count its categories).

    sdcMicro's ``createSdcObj`` also holds the masked data and applies methods to it; pysdc measures
    only, so the masked data are an argument of :meth:`utility`, :meth:`compare` and :meth:`report`
    (same records in the same order, the same column names). Every number equals the individual
    function's with the specification's arguments, e.g. ``problem.risk().measure_risk`` is
    ``pysdc.measure_risk(data, key_vars, w=w, hid=hid)``.

    Examples
    --------
    >>> import pysdc
    >>> x, xm = pysdc.load_demo_pair()
    >>> p = pysdc.SdcProblem(x, ["region", "urbrur", "sex", "age_group", "education"],
    ...                      num_vars=["income", "expenditure", "savings"], w="weight", hid="hid",
    ...                      sensitive=["health_status"])
    >>> round(p.risk().measure_risk.global_risk_er, 4)
    13.4329
    >>> table = p.compare(xm).frame   # risk before/after, information loss
    """

    def __init__(self, data, key_vars, *, num_vars=(), w=None, hid=None, strata=None, sensitive=(),
                 collation: str = DEFAULT_COLLATION):
        data = as_frame("data", data)  # a Polars / Arrow table as pandas (pysdc.io)
        spec = _validate(data, key_vars, num_vars, w, hid, strata, sensitive)
        self._sdc = as_sdc_keys(data, spec["key_vars"], collation=collation)
        self._collation = collation
        self._data = data
        self._key_vars = spec["key_vars"]
        self._num_vars = spec["num_vars"]
        self._w = spec["w"]
        self._hid = spec["hid"]
        self._strata = spec["strata"]
        self._sensitive = spec["sensitive"]

    # ---- the specification (read-only)
    data = property(lambda self: self._data, doc="The original microdata.")
    key_vars = property(lambda self: list(self._key_vars), doc="Categorical key variables.")
    num_vars = property(lambda self: list(self._num_vars), doc="Numeric key variables.")
    w = property(lambda self: self._w, doc="Sampling weight variable, or None.")
    hid = property(lambda self: self._hid, doc="Household id variable, or None.")
    strata = property(lambda self: self._strata, doc="Strata variable, or None.")
    sensitive = property(lambda self: list(self._sensitive), doc="Sensitive variables.")
    collation = property(lambda self: self._collation, doc="The order of factor levels made from text keys.")
    sdc_data = property(lambda self: self._sdc, doc="The data as sdcMicro's createSdcObj holds them: text key "
                        "variables as categoricals (R factors), levels in R's order (:func:`as_sdc_keys`).")

    @property
    def specification(self) -> dict:
        """The roles as a dict (the arguments of :class:`SdcProblem` and of ``SdcObj.create``)."""
        return {"key_vars": self.key_vars, "num_vars": self.num_vars, "w": self.w, "hid": self.hid,
                "strata": self.strata, "sensitive": self.sensitive}

    @property
    def variables(self) -> list:
        """Every variable the specification names, keys first."""
        return [*self._key_vars, *self._num_vars, *(c for c in (self._w, self._hid, self._strata) if c),
                *self._sensitive]

    def with_data(self, data) -> SdcProblem:
        """The same specification on other data (e.g. the masked file), validated again."""
        return SdcProblem(data, self.key_vars, collation=self._collation,
                          **{k: v for k, v in self.specification.items() if k != "key_vars"})

    def __repr__(self) -> str:
        parts = [f"{self._data.shape[0]} records x {self._data.shape[1]} columns", f"key_vars={self.key_vars}"]
        parts += [f"{k}={v!r}" for k, v in self.specification.items() if k != "key_vars" and v not in (None, [])]
        return f"SdcProblem({', '.join(parts)})"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
                       for k, v in self.specification.items() if v not in (None, []))
        return (f"<p><b>SdcProblem</b>: {self._data.shape[0]} records x {self._data.shape[1]} columns</p>"
                f"<table>{rows}</table>")

    # ---- measures
    def _masked(self, masked, *, need=None) -> pd.DataFrame:
        if isinstance(masked, SdcProblem):
            masked = masked.data
        masked = as_frame("masked", masked)  # a Polars / Arrow table as pandas
        if not isinstance(masked, pd.DataFrame):
            raise InvalidParameterError(f"masked must be a pandas DataFrame (or an SdcProblem); got "
                                        f"{type(masked).__name__}.")
        need = self.variables if need is None else need
        miss = [c for c in need if c not in masked.columns]
        if miss:
            raise InvalidParameterError(f"masked lacks the variable(s) {miss} of the specification; the masked file "
                                        "must keep the original's column names.")
        if len(masked) != len(self._data):
            raise InvalidParameterError(
                f"data has {len(self._data)} records but masked has {len(masked)}; the measures compare record by "
                "record (row i of one with row i of the other), so both must hold the same records in the same order."
            )
        if not masked.index.equals(self._data.index):
            warnings.warn("SdcProblem: data and masked have different row indexes; records are paired by position "
                          "(row i with row i, as in sdcMicro), not by index label.",
                          _alignment_warning(), stacklevel=user_stacklevel())
        return masked

    def risk(self, *, max_global_risk: float = 0.01, alpha: float = 1.0, suda: bool = True,
             l_recurs_c: float = 2.0, data=None) -> ProblemRisk:
        """Disclosure risk of the data (or of ``data``, e.g. the masked file, with the same specification).

        Parameters
        ----------
        max_global_risk, alpha : float
            As in :func:`pysdc.measure_risk`.
        suda : bool, default True
            Compute SUDA2 (:func:`pysdc.suda2`) on the key variables.
        l_recurs_c : float, default 2
            As in :func:`pysdc.ldiversity` (computed when there are sensitive variables).
        data : pandas.DataFrame, optional
            Other records with the specification's variables (default: the problem's data).

        Returns
        -------
        ProblemRisk
        """
        from . import k_anon_violations, ldiversity, measure_risk, suda2

        d = self._sdc if data is None else as_sdc_keys(self._masked(data, need=[*self._key_vars, *(
            c for c in (self._w, self._hid) if c), *self._sensitive]), self._key_vars, collation=self._collation)
        keys = list(self._key_vars)
        mr = measure_risk(d, keys, w=self._w, hid=self._hid, max_global_risk=max_global_risk, alpha=alpha)
        ka = {"unweighted": [k_anon_violations(d, keys, k=k) for k in K_ANON_KS]}
        if self._w is not None:
            ka["weighted"] = [k_anon_violations(d, keys, k=k, w=self._w, weighted=True) for k in K_ANON_KS]
        kan = pd.DataFrame(ka, index=pd.Index(K_ANON_KS, name="k"))
        skipped = {}
        su = None
        if suda:
            su, why = _attempt(suda2, d, keys)
            if why:
                skipped["suda2"] = why
        else:
            skipped["suda2"] = "not requested (suda=False)"
        ld = None
        if self._sensitive:
            text = [v for v in self._sensitive if _is_text(d[v])]
            if text:
                warnings.warn(
                    f"SdcProblem: the sensitive variable(s) {text} are text. sdcMicro's createSdcObj makes only the "
                    "key variables factors, so its ldiversity(sdc) converts a text sensitive variable with R's "
                    "as.numeric: every value that is not a number becomes NA, and each NA counts as one more "
                    "distinct value. pysdc does the same to return sdcMicro's numbers. To count the categories, "
                    "declare the variable categorical (on the command line --categorical "
                    f"{','.join(map(str, text))}; in Python data[col] = data[col].astype('category')).",
                    _coercion_warning(), stacklevel=user_stacklevel(),
                )
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="ldiversity: sensitive column", category=_coercion_warning())
                ld, why = _attempt(ldiversity, d, keys, list(self._sensitive), l_recurs_c=l_recurs_c)
            if why:
                skipped["ldiversity"] = why
        else:
            skipped["ldiversity"] = "no sensitive variables declared"
        return ProblemRisk(measure_risk=mr, k_anonymity=kan, suda2=su, ldiversity=ld, skipped=skipped, n=len(d))

    def utility(self, masked, *, random_state=None) -> ProblemUtility:
        """Information loss of ``masked`` against the data, on the declared key and numeric variables.

        Parameters
        ----------
        masked : pandas.DataFrame or SdcProblem
            The masked file: the same records in the same order, the same column names.
        random_state : int, optional
            Seed of ``d_utility(method="robeigen")``'s random MCD subsets.

        Returns
        -------
        ProblemUtility
            sdcMicro's measures (``d_utility`` IL1, IL1s, eigen, robeigen and ``il_correl`` on the numeric
            variables, ``il_variables`` on all of them) and the literature's (``il_continuous``,
            ``il_categorical``, ``il_entropy``, ``hellinger``, ``gsil``). A measure that does not apply
            is listed in ``skipped`` with the reason.
        """
        from . import (
            d_utility,
            gsil,
            hellinger,
            il_categorical,
            il_continuous,
            il_correl,
            il_entropy,
            il_variables,
        )

        xm = self._masked(masked, need=[*self._key_vars, *self._num_vars])
        x = self._data
        nums = list(self._num_vars)
        bad = [c for c in nums if not _is_numeric(xm[c])]
        if bad:
            raise InvalidParameterError(f"masked: the numeric variable(s) {bad} are not numeric in the masked file.")
        cats = [k for k in self._key_vars if r_class(x[k]) in ("factor", "ordered", "character")
                and r_class(xm[k]) == r_class(x[k])]
        results, skipped = {}, {}

        def run(name, fn, *args, **kw):
            r, why = _attempt(fn, *args, **kw)
            if why is None:
                results[name] = r
            else:
                skipped[name] = why

        if nums:
            for m in D_UTILITY_METHODS:
                kw = {"random_state": random_state} if m == "robeigen" and random_state is not None else {}
                run(f"d_utility.{m}", d_utility, x[nums], xm[nums], method=m, **kw)
            run("il_correl", il_correl, x[nums], xm[nums])
            run("il_continuous", il_continuous, x[nums], xm[nums])
        else:
            for name in (*(f"d_utility.{m}" for m in D_UTILITY_METHODS), "il_correl", "il_continuous"):
                skipped[name] = "no numeric variables (num_vars) declared"
        # il_variables: sdcMicro refuses integer/logical columns without a declared scale; the roles say it
        scales, ilv, left = {}, [], {}
        for v in [*self._key_vars, *nums]:
            cx, cm = r_class(x[v]), r_class(xm[v])
            if cx != cm:
                left[v] = f"{cx} in data but {cm} in masked"
                continue
            ilv.append(v)
            if cx in ("integer", "logical"):
                scales[v] = "numeric" if v in nums else "nominal"
        if ilv:
            run("il_variables", il_variables, x[ilv], xm[ilv], scales=scales or None)
        if cats:
            run("il_categorical", il_categorical, x[cats], xm[cats])
            run("il_entropy", il_entropy, x[cats], xm[cats])
        else:
            skipped["il_categorical"] = skipped["il_entropy"] = "no categorical key variables"
        both = nums + [c for c in cats if c not in nums]
        if both:
            run("hellinger", hellinger, x[both], xm[both])
            run("gsil", gsil, x[both], xm[both])
        variables = {"numeric": nums, "categorical": cats, "il_variables": ilv, "scales": scales,
                     "left_out": left}
        return ProblemUtility(results=results, skipped=skipped, variables=variables)

    def compare(self, masked, *, random_state=None, suda: bool = True, **risk_options) -> ProblemComparison:
        """Risk before and after masking, side by side, with the information loss.

        Parameters
        ----------
        masked : pandas.DataFrame or SdcProblem
            The masked file (same records in the same order, same column names).
        random_state : int, optional
            Seed of robeigen's random MCD subsets.
        suda : bool, default True
            Compute SUDA2 on both files.
        **risk_options
            ``max_global_risk``, ``alpha``, ``l_recurs_c`` for :meth:`risk`.

        Returns
        -------
        ProblemComparison
            ``.frame`` is the side-by-side table.
        """
        xm = self._masked(masked)
        return ProblemComparison(original=self.risk(suda=suda, **risk_options),
                                 masked=self.risk(suda=suda, data=xm, **risk_options),
                                 utility=self.utility(xm, random_state=random_state))

    def report(self, masked=None, path="report.html", **options):
        """Write the HTML report of this problem (and of ``masked``, when given) to ``path``.

        One self-contained file (inline CSS and images; no network needed to view it): the
        specification, the risk summary and its distribution, information loss per variable,
        before/after comparisons with the practice guide's plots (matplotlib, the ``[plots]`` extra;
        without it the report says so), the versions, and which numbers are sdcMicro's.

        Parameters
        ----------
        masked : pandas.DataFrame, optional
            The masked file.
        path : str or pathlib.Path, default "report.html"
        **options
            Passed to :func:`pysdc.report._html.html_report`: ``title``, ``regression`` (formula text
            in R syntax) and ``regression_where`` (a condition such as ``"income > 0"``, read by pysdc's
            own parser and never run as Python: :mod:`pysdc.core.condition`), ``estimates`` (estimators
            for :func:`pysdc.compare_estimates`), ``random_state``, ``plots`` (False: no figures), ``top``.

        Returns
        -------
        pathlib.Path
            Where the report was written.
        """
        from .report._html import write_report

        return write_report(self, masked, path, **options)

    def to_r(self):
        """The same problem as sdcMicro's ``sdcMicroObj`` (:class:`pysdc.r.SdcObj`; needs R and sdcMicro)."""
        from .r import SdcObj

        return SdcObj.create(self._data, self.key_vars, num_vars=self.num_vars, w=self._w, hid=self._hid,
                             strata=self._strata, sensitive=self.sensitive)


def _is_text(s: pd.Series) -> bool:
    try:
        return r_class(s) == "character"
    except InvalidParameterError:
        return False


def _coercion_warning():
    from ._errors import CoercionWarning

    return CoercionWarning


def _pysdc_warning():
    from ._errors import PysdcWarning

    return PysdcWarning


def _alignment_warning():
    from ._errors import AlignmentWarning

    return AlignmentWarning
