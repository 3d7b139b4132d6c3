"""pysdc's measures executed by sdcMicro: same names, signatures and result classes.

Every number in a result comes from sdcMicro's output; pysdc only reshapes it
(and, for IL_correl, names the variables sdcMicro compared). Argument names
are translated with the name table :mod:`pysdc._rnames`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._results import (
    FreqCalcResult,
    ILCorrelResult,
    ILVariablesResult,
    IndivRiskResult,
    MeasureRiskResult,
)
from .._rnames import by_python_name
from .._validation import check_bool, check_columns, check_frame, check_option, check_real
from . import _session

__all__ = ["d_utility", "il_correl", "il_variables", "freq_calc", "indiv_risk", "measure_risk", "ldiversity"]

D_UTILITY_METHODS = ("IL1", "IL1s", "eigen", "robeigen")


def _rargs(python_name: str, **values) -> dict:
    """Python argument values -> {R argument name: value} through the name table."""
    table = by_python_name(python_name).arguments
    out = {}
    for k, v in values.items():
        rname = table.get(k)
        if rname is None:
            raise AssertionError(f"name table has no R argument for {python_name}({k})")  # pragma: no cover
        out[rname] = v
    return out


def _subset(data: pd.DataFrame, cols) -> pd.DataFrame:
    keep = [c for c in data.columns if c in set(cols)]
    return data.loc[:, keep]


def _r_fun(python_name: str) -> str:
    return by_python_name(python_name).r


def _run(python_name: str, kwargs: dict):
    """Call the sdcMicro function of ``python_name``; return the raw R result (caller holds LOCK)."""
    return _session.call_sexp(_r_fun(python_name), (), kwargs, package="sdcMicro")


def _all_na(n: int):
    return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))


def _num(x) -> float:
    return float("nan") if x is None else float(x)


# --------------------------------------------------------------------------- utility
def d_utility(x, xm, method="IL1s", *, average=False, random_state=None):
    """sdcMicro's ``dUtility(obj = x, xm = xm, method = method)``.

    Parameters
    ----------
    x, xm : pandas.DataFrame or numeric 2-d numpy.ndarray
        Original and masked data (same shape).
    method : {"IL1", "IL1s", "eigen", "robeigen"}
    average : bool
        Must be False: sdcMicro's public dUtility only gives the plain sums
        (use the native :func:`pysdc.d_utility` for the per-cell mean).
    random_state : int or None
        For ``"robeigen"`` (robustbase::covMcd draws random subsets): seeds
        *R's* generator with ``set.seed(random_state)`` before the call, so the
        bridge is reproducible; it cannot reproduce NumPy's stream.

    Returns
    -------
    float
    """
    method = check_option("method", method, D_UTILITY_METHODS)
    if check_bool("average", average):
        raise InvalidParameterError(
            "average=True does not exist in sdcMicro's dUtility (it returns plain sums over cells); "
            "use the native pysdc.d_utility(..., average=True), or average=False here."
        )
    x = check_frame("x", x, allow_array=True)
    xm = check_frame("xm", xm, allow_array=True)
    if random_state is not None and (isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer))):
        raise InvalidParameterError(
            f"random_state must be an int or None for the R bridge (it seeds R's set.seed); got {random_state!r}."
        )
    with _session.LOCK:
        if random_state is not None:
            _session.call_sexp("set.seed", (int(random_state),), {}, package="base")
        res = _run("d_utility", _rargs("d_utility", x=x, xm=xm, method=method))
        value = _session.to_python(res)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        # sdcMicro's eigen/robeigen return a logical NA when their computation fails (try())
        warnings.warn(
            f"sdcMicro's dUtility(method={method!r}) returned NA (its computation failed inside try(), "
            "e.g. a constant column); returned as NaN.",
            DegenerateResultWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(value)


def il_correl(x, xm, *, normalization="sdcmicro"):
    """sdcMicro's ``IL_correl(x, xm)``.

    ``normalization`` must be ``"sdcmicro"`` (sdcMicro's 1/sqrt(2)); sdcMicro has
    no other normalisation, so ``"mlodak"`` is refused here (use the native
    :func:`pysdc.il_correl`).

    Returns
    -------
    pysdc.ILCorrelResult
        ``value`` and ``n_vars``/``n_x``/``n_xm`` from sdcMicro's result and its
        attributes ``nr_vars``, ``n_x``, ``n_y``; ``variables`` are the common
        numeric columns in R's sort order.
    """
    if normalization != "sdcmicro":
        check_option("normalization", normalization, ("sdcmicro", "mlodak"))
        raise InvalidParameterError(
            f"normalization={normalization!r} does not exist in sdcMicro (it always uses 1/sqrt(2)); "
            "use the native pysdc.il_correl for it, or normalization='sdcmicro' here."
        )
    x = check_frame("x", x, allow_array=True)
    xm = check_frame("xm", xm, allow_array=True)
    with _session.LOCK:
        res = _run("il_correl", _rargs("il_correl", x=x, xm=xm))
        value = float(_session.to_python(res))
        h = _session.helpers()
        attr = lambda name: _session.to_python(h["attr"](res, _session.start().StrSexpVector([name])))  # noqa: E731
        n_vars, n_x, n_y = attr("nr_vars"), attr("n_x"), attr("n_y")
        common = _common_numeric(x, xm)
    return ILCorrelResult(
        value=value,
        n_vars=int(n_vars),
        n_x=int(n_x),
        n_xm=int(n_y),
        variables=tuple(common),
    )


def _common_numeric(x: pd.DataFrame, xm: pd.DataFrame) -> list:
    """Common double/integer columns in R's sort order (sorted by R itself)."""
    from .._types import r_class

    def num(d):
        return [str(c) for c in d.columns if r_class(d[c]) in ("numeric", "integer")]

    common = [c for c in num(x) if c in set(num(xm))]
    if not common:
        return []
    out = _session.call("sort", (common,), {}, package="base")
    return [out] if isinstance(out, str) else list(out)


def il_variables(x, xm, *, scales=None):
    """sdcMicro's ``IL_variables(x, xm)``.

    ``scales`` must be None: sdcMicro takes each variable's scale from its R
    class (double numeric, ordered factor ordinal, factor/character nominal);
    set the dtypes instead (float, ordered Categorical, Categorical/str).

    Returns
    -------
    pysdc.ILVariablesResult
        ``value`` is sdcMicro's number, ``per_variable`` its attribute
        ``indiv_distances``, ``n`` its attribute ``n``.
    """
    if scales is not None:
        raise InvalidParameterError(
            "scales is not supported by the R bridge: sdcMicro's IL_variables has no such argument and "
            "reads each variable's scale from its R class. Pass scales=None and set the column dtypes "
            "(float -> numeric, ordered Categorical -> ordinal, Categorical/str -> nominal), or use the "
            "native pysdc.il_variables."
        )
    x = check_frame("x", x, allow_array=True)
    xm = check_frame("xm", xm, allow_array=True)
    with _session.LOCK:
        ri = _session.start()
        res = _run("il_variables", _rargs("il_variables", x=x, xm=xm))
        h = _session.helpers()
        value = float(_session.to_python(res))
        per = _session.to_python(h["attr"](res, ri.StrSexpVector(["indiv_distances"])), scalar=False)
        n = _session.to_python(h["attr"](res, ri.StrSexpVector(["n"])))
    if not isinstance(per, pd.Series):
        per = pd.Series(np.asarray(per, dtype=float))
    return ILVariablesResult(value=value, per_variable=per.astype(float), n=int(n))


# --------------------------------------------------------------------------- risk
def freq_calc(data, key_vars, w=None, alpha=1.0):
    """sdcMicro's ``freqCalc(x = data, keyVars = key_vars, w = w, alpha = alpha)``.

    Returns
    -------
    pysdc.FreqCalcResult
        ``fk``, ``Fk``, ``n1``, ``n2`` are sdcMicro's components of the same names.
    """
    data = check_frame("data", data)
    keys = check_columns("key_vars", key_vars, data)
    if w is not None:
        check_columns("w", [w], data)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    sub = _subset(data, keys + ([w] if w is not None else []))
    with _session.LOCK:
        res = _run("freq_calc", _rargs("freq_calc", data=sub, key_vars=[str(k) for k in keys],
                                       w=None if w is None else str(w), alpha=alpha))
        out = _session.to_python(res)
    return FreqCalcResult(
        fk=np.asarray(out["fk"], dtype=float).reshape(-1),
        Fk=np.asarray(out["Fk"], dtype=float).reshape(-1),
        n1=int(out["n1"]),
        n2=int(out["n2"]),
        key_vars=tuple(keys),
        alpha=float(alpha),
    )


def indiv_risk(freq, method="approx", qual=1.0, survey=True):
    """sdcMicro's ``indivRisk(x = freq, method, qual, survey)``.

    ``freq`` is a :class:`pysdc.FreqCalcResult` (from :func:`pysdc.r.freq_calc`
    or from the native :func:`pysdc.freq_calc`). sdcMicro is handed a
    ``freqCalc`` object rebuilt from it (``fk``, ``Fk``, ``n1``, ``n2``, the key
    names and ``alpha``), so the risk is computed from exactly the frequencies in
    ``freq``.

    Returns
    -------
    pysdc.IndivRiskResult
        ``method`` is None and ``qual`` NaN with ``survey=False``, where sdcMicro
        reports NA (and ignores both).
    """
    if not isinstance(freq, FreqCalcResult):
        raise InvalidParameterError(
            f"freq must be a pysdc.FreqCalcResult (from freq_calc); got {type(freq).__name__}."
        )
    method = check_option("method", method, ("approx", "exact"))
    qual = check_real("qual", qual)
    survey = check_bool("survey", survey)
    fk = np.asarray(freq.fk, dtype=float)
    Fk = np.asarray(freq.Fk, dtype=float)
    if fk.shape != Fk.shape:
        raise InvalidParameterError(f"freq.fk and freq.Fk differ in length ({fk.size} vs {Fk.size}).")
    keys = [str(k) for k in freq.key_vars] or ["key"]
    with _session.LOCK:
        fobj = _session.call(
            "structure",
            (
                {
                    "freqCalc": pd.DataFrame({k: _all_na(len(fk)) for k in keys}),
                    "keyVars": keys,
                    "w": None,
                    "fk": fk,
                    "Fk": Fk,
                    "n1": int(freq.n1),
                    "n2": int(freq.n2),
                    "alpha": float(freq.alpha),
                },
            ),
            {"class": "freqCalc"},
            package="base",
            as_robject=True,
        )
        res = _run("indiv_risk", _rargs("indiv_risk", freq=fobj, method=method, qual=qual, survey=survey))
        out = _session.to_python(res)
    return IndivRiskResult(
        rk=np.asarray(out["rk"], dtype=float).reshape(-1),
        fk=np.asarray(out["fk"], dtype=float).reshape(-1),
        method=None if out["method"] is None else str(out["method"]),  # NA with survey=False
        qual=_num(out["qual"]),
        key_vars=tuple(freq.key_vars),
    )


def measure_risk(data, key_vars, w=None, hid=None, max_global_risk=0.01, fast_hier=True, alpha=1.0):
    """sdcMicro's ``measure_risk(obj = data, keyVars = key_vars, w, hid, max_global_risk, fast_hier)``.

    ``alpha`` must be 1: sdcMicro's public ``measure_risk`` fails whenever alpha
    is passed (the argument is matched twice inside sdcMicro), so sdcMicro
    cannot compute it; the native :func:`pysdc.measure_risk` supports it.

    Returns
    -------
    pysdc.MeasureRiskResult
        Every field from sdcMicro's components; ``individual`` is its ``Res``
        matrix (``risk``, ``fk``, ``Fk`` and, with ``hid``, ``hier_risk``).
    """
    data = check_frame("data", data)
    keys = check_columns("key_vars", key_vars, data)
    for name, col in (("w", w), ("hid", hid)):
        if col is not None:
            check_columns(name, [col], data)
    max_global_risk = check_real("max_global_risk", max_global_risk, low=0.0, high=1.0, low_open=True, high_open=True)
    fast_hier = check_bool("fast_hier", fast_hier)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    if alpha != 1.0:
        raise InvalidParameterError(
            f"alpha={alpha!r} cannot be computed by sdcMicro: its measure_risk fails with "
            "'formal argument \"alpha\" matched by multiple actual arguments' whenever alpha is passed. "
            "Use the native pysdc.measure_risk(..., alpha=...), or alpha=1 here."
        )
    extra = [c for c in (w, hid) if c is not None]
    sub = _subset(data, keys + extra)
    kwargs = _rargs(
        "measure_risk", data=sub, key_vars=[str(k) for k in keys],
        max_global_risk=max_global_risk, fast_hier=fast_hier,
    )
    if w is not None:
        kwargs[by_python_name("measure_risk").arguments["w"]] = str(w)
    if hid is not None:
        kwargs[by_python_name("measure_risk").arguments["hid"]] = str(hid)
    with _session.LOCK:
        res = _run("measure_risk", kwargs)
        out = _session.to_python(res)
    fields = by_python_name("measure_risk").fields
    ind = out[fields["individual"]]
    if not isinstance(ind, pd.DataFrame):  # pragma: no cover - sdcMicro always names the columns
        ind = pd.DataFrame(np.asarray(ind))
    ind = ind.reset_index(drop=True)
    has_hier = hid is not None

    def get(name):
        v = out.get(fields[name])
        return _num(v)

    return MeasureRiskResult(
        global_risk_ER=get("global_risk_ER"),
        global_risk=get("global_risk"),
        global_risk_pct=get("global_risk_pct"),
        global_threshold=get("global_threshold"),
        max_global_risk=get("max_global_risk"),
        hier_risk_ER=get("hier_risk_ER") if has_hier else None,
        hier_risk=get("hier_risk") if has_hier else None,
        hier_risk_pct=get("hier_risk_pct") if has_hier else None,
        individual=ind,
        key_vars=tuple(keys),
    )


def ldiversity(data, key_vars, ldiv_index, l_recurs_c=2):
    """sdcMicro's ``ldiversity(obj = data, keyVars = key_vars, ldiv_index, l_recurs_c)``.

    Returns
    -------
    pandas.DataFrame
        sdcMicro's result matrix, one row per record, its column names kept.
    """
    data = check_frame("data", data)
    keys = check_columns("key_vars", key_vars, data)
    sens = check_columns("ldiv_index", ldiv_index, data)
    l_recurs_c = check_real("l_recurs_c", l_recurs_c)
    sub = _subset(data, keys + sens)
    with _session.LOCK:
        res = _run("ldiversity", _rargs(
            "ldiversity", data=sub, key_vars=[str(k) for k in keys],
            ldiv_index=[str(s) for s in sens], l_recurs_c=l_recurs_c,
        ))
        out = _session.to_python(res)
    if not isinstance(out, pd.DataFrame):  # pragma: no cover
        out = pd.DataFrame(np.asarray(out))
    out.index = data.index
    return out
