"""The problem object as sdcMicro's ``sdcMicroObj``: protection steps on the manipulated data, their history, undo.

``problem.local_suppression(k=3)``, ``problem.microaggregation(aggr=3)``, ... (every method of the methods
registry with :attr:`pysdc._registry.Method.roles`) return a NEW problem that holds the original data
(:attr:`SdcProblem.data`, sdcMicro's ``origData``), the manipulated data (:attr:`SdcProblem.manip_data`,
``extractManipData``), the history of the methods applied (:attr:`SdcProblem.steps`) and the problem before the
last step (:meth:`SdcProblem.undo_last`, ``undolast``). Its :meth:`SdcProblem.risk` measures the manipulated data
and :meth:`SdcProblem.utility` compares original and manipulated, as sdcMicro's object recomputes its slots.

What each method changes and what is re-measured is read from the registry (:mod:`pysdc._registry._method_roles`);
this module holds no list of methods.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._registry._methods import METHODS, STEP_ALIASES, Method, method_by_python_name
from .._types import r_class
from .._validation import user_stacklevel
from ..risk import measure_risk
from ._spec import as_sdc_keys

__all__ = ["Step", "STEP_METHODS", "step_signature", "bind_step", "apply_step", "attach_steps", "r_value",
           "protected_problem", "extract_manip", "RECODED_AS"]

#: the methods that run as steps of a problem (those with roles in the registry, and sdcMicro's other names of
#: them: ``k_anon``, sdcMicro's kAnon), by Python name
STEP_METHODS: dict[str, Method] = {**{m.python: m for m in METHODS if m.roles is not None}, **STEP_ALIASES}


@dataclass(frozen=True)
class Step:
    """One method applied to a problem (an entry of sdcMicro's history of an ``sdcMicroObj``).

    Attributes
    ----------
    method, r : str
        pysdc's and sdcMicro's name of the method.
    arguments : dict
        The arguments as the caller gave them (not those the problem filled in).
    variables : tuple of str
        The variables the step changed.
    roles : tuple of str
        Their roles (``"key"``, ``"numeric"``, ``"pram"``).
    remeasured : tuple of str
        What is re-measured afterwards (``"risk"``: the key variables' risk; ``"numeric"``: dRisk and dUtility).
    result : object
        The native function's result (e.g. a :class:`pysdc.protect.LocalSuppressionResult`).
    options : dict
        Options of the step that are pysdc's and change nothing sdcMicro computes (``recoded_as`` of
        ``global_recode``: what :attr:`SdcProblem.manip_data` shows); not part of :meth:`r_call`.
    """

    method: str
    r: str
    arguments: dict
    variables: tuple
    roles: tuple
    remeasured: tuple
    result: object = field(default=None, repr=False, compare=False)
    options: dict = field(default_factory=dict)

    def r_call(self) -> str:
        """The step as an R line on an sdcMicroObj (``sdc <- localSuppression(sdc, k = 3)``)."""
        m = STEP_METHODS.get(self.method)
        if m is None:  # manipulated data that came from elsewhere (protected_problem)
            return f"# {self.r}"
        parts = []
        for name, value in self.arguments.items():
            r_name = m.arguments.get(name, name)
            if name == "random_state":
                continue
            if name in m.r_convert:  # the same meaning in sdcMicro's terms (rankSwap's P: a fraction)
                value = m.r_convert[name](value)
            parts.append(f"{r_name or name} = {r_value(value)}")
        seed = self.arguments.get("random_state")
        pre = f"set.seed({seed}); " if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else ""
        fn = self.r if self.method != "mv_top_coding" else "mvTopCoding"
        return f"{pre}sdc <- {fn}(sdc{''.join(', ' + p for p in parts)})"

    def to_dict(self) -> dict:
        """The step as the report model's entry: JSON-safe arguments, changed variables, a summary."""
        out = {"method": self.method, "sdcmicro": self.r, "arguments": {k: _json(v) for k, v in self.arguments.items()},
               "variables": list(self.variables), "roles": list(self.roles), "remeasured": list(self.remeasured),
               "r": self.r_call()}
        if self.options:
            out["options"] = {k: _json(v) for k, v in self.options.items()}
        res = self.result
        if hasattr(res, "supps"):  # local suppression: sdcMicro's slot localSuppression
            out["suppressions"] = {str(c): int(v) for c, v in res.supps.iloc[-1].items()}
            out["new_suppressions"] = int(res.new_supps)
        if hasattr(res, "summary") and isinstance(getattr(res, "summary", None), pd.DataFrame):  # pram
            out["changes"] = {str(r["variable"]): int(r["nrChanges"]) for _, r in res.summary.iterrows()}
        return out


def r_value(v) -> str:
    """A Python argument as R text (for :meth:`Step.r_call`)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return "NA" if math.isnan(f) else ("Inf" if f == math.inf else "-Inf" if f == -math.inf else repr(f))
    if isinstance(v, (list, tuple, np.ndarray, pd.Index)):
        return "c(" + ", ".join(r_value(e) for e in list(v)) + ")"
    return f"<{type(v).__name__}>"


def _json(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return None if math.isnan(f) else ("Inf" if f == math.inf else "-Inf" if f == -math.inf else f)
    if isinstance(v, (list, tuple, np.ndarray, pd.Index)):
        return [_json(e) for e in list(v)]
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    if isinstance(v, pd.DataFrame):
        return {"matrix": v.to_numpy().tolist(), "levels": [str(c) for c in v.columns]}
    return repr(v)


# =============================================================================
# the arguments a step takes


def _internal(m: Method) -> set:
    """Native arguments the problem gives (the data, and what sdcMicro takes from the object)."""
    r = m.roles
    fixed = {k for k in r.fill if k not in r.fill_default}
    return {r.data_argument, *fixed}


@functools.cache
def step_signature(name: str) -> inspect.Signature:
    """The arguments of ``problem.<name>(...)``: the native function's, without the data and what the problem fills."""
    m = _method(name)
    sig = inspect.signature(m.native)
    drop = _internal(m)
    params = []
    for n, p in sig.parameters.items():
        if n in drop:
            continue
        if n == m.roles.argument and m.roles.default is not None and p.default is inspect.Parameter.empty:
            p = p.replace(default=None)  # the role's variables (sdcMicro's default on the object)
        params.append(p)
    params += [inspect.Parameter(o, inspect.Parameter.KEYWORD_ONLY, default=d) for o, d in _OPTIONS.get(name, {}).items()]
    return sig.replace(parameters=params, return_annotation="SdcProblem")


#: what ``recoded_as`` of ``global_recode`` on a numeric key variable may be (the first: sdcMicro's)
RECODED_AS = ("codes", "labels")

#: the step options that are pysdc's (see :attr:`Step.options`), with their defaults, by method
_OPTIONS: dict = {"global_recode": {"recoded_as": RECODED_AS[0]}}


def _method(name: str) -> Method:
    m = STEP_METHODS.get(name)
    if m is None:
        raise InvalidParameterError(f"unknown protection method {name!r}; the methods a problem applies are "
                                    f"{sorted(STEP_METHODS)}.")
    return m


def bind_step(name: str, args: tuple = (), kwargs: dict | None = None) -> dict:
    """The arguments of ``problem.<name>(*args, **kwargs)`` by name, checked against the method's signature.

    Raises InvalidParameterError for an unknown method, an unknown or missing argument, or an argument the
    problem gives (e.g. ``key_vars`` of ``local_suppression``: sdcMicro's method on the object has none).
    """
    m = _method(name)
    kwargs = dict(kwargs or {})
    internal = sorted(set(kwargs) & _internal(m))
    if internal:
        raise InvalidParameterError(
            f"{name}: {internal} are not arguments of the step: the problem gives them (its specification and "
            f"data, as sdcMicro's {m.r} on an sdcMicroObj takes them from the object).")
    try:
        bound = step_signature(name).bind(*args, **kwargs)
    except TypeError as exc:
        raise InvalidParameterError(f"{name}: {exc}; its arguments are {list(step_signature(name).parameters)}.") from None
    return dict(bound.arguments)


# =============================================================================
# applying a step


def _roles_of(problem, v) -> str | None:
    if v in problem.key_vars:
        return "key"
    if v in problem.num_vars:
        return "numeric"
    if v in problem.variables:  # weight, household, strata, sensitive
        return None
    return "pram" if v in problem.data.columns else None


#: native arguments naming one variable (the others take a list)
_SINGLE = ("column", "var", "key_var")


def _variables(problem, m: Method, given: dict) -> list:
    r = m.roles
    v = given.get(r.argument) if r.argument else None
    if v is None:
        if r.default == "key":
            v = problem.key_vars
        elif r.default == "numeric":
            v = problem.num_vars
        if not v:
            what = {"key": "key variables", "numeric": "numeric variables (num_vars)", "pram": "PRAM variables"}
            raise InvalidParameterError(
                f"{m.python}: the problem has no {what.get(r.default, 'variables')} for it; pass "
                f"{r.argument or 'variables'}=... .")
    vs = [v] if isinstance(v, str) else list(v)
    for x in vs:
        if x not in problem.data.columns:
            raise InvalidParameterError(f"{m.python}: {x!r} is not a column of the problem's data.")
        role = _roles_of(problem, x)
        if role not in r.variables:
            allowed = {"key": "a key variable", "numeric": "a numeric variable (num_vars)",
                       "pram": "a categorical variable in no other role (sdcMicro's pramVars)"}
            extra = ""
            if m.python == "top_bot_coding":
                extra = (" sdcMicro's topBotCoding on an sdcMicroObj changes such a column in the ORIGINAL data "
                         "(origData) and recomputes nothing, so before and after could no longer be compared; "
                         "pysdc refuses it. Top-code the column in the data before stating the problem "
                         "(pysdc.protect.top_bot_coding) or declare it numeric.")
            raise InvalidParameterError(
                f"{m.python}: {x!r} is {('a ' + role + ' variable') if role else 'in another role of the problem'}; "
                f"{m.r} on an sdcMicroObj changes {' or '.join(allowed[a] for a in r.variables)}.{extra}")
    return vs


def _individual_risk(problem, current: pd.DataFrame) -> np.ndarray:
    d = as_sdc_keys(current, problem.key_vars, collation=problem.collation)
    return measure_risk(d, problem.key_vars, w=problem.w, hid=problem.hid).individual["risk"].to_numpy()


def _fill(problem, m: Method, current: pd.DataFrame, given: dict) -> dict:
    out = {}
    for arg, what in m.roles.fill.items():
        if arg in m.roles.fill_default and given.get(arg) is not None:
            continue
        if what == "key_vars":
            out[arg] = problem.key_vars
        elif what == "num_vars":
            out[arg] = problem.num_vars
        elif what == "strata":
            out[arg] = [problem.strata] if problem.strata else None
        elif what == "weight":  # sdcMicro's method on the object takes its weightVar (none where it is ignored:
            # mdav, rmd, trim, onestep, one variable; the native function would warn about weights nobody gave)
            v = given.get("variables") or problem.num_vars
            used = (given.get("method", "mdav") not in ("mdav", "rmd")
                    and given.get("measure", "mean") in ("mean", "median") and (isinstance(v, str) or len(v) > 1))
            out[arg] = problem.w if used and not isinstance(v, str) else None
        elif what == "alpha":
            out[arg] = 1.0  # createSdcObj's option alpha (its default)
        elif what == "individual_risk":
            out[arg] = _individual_risk(problem, current)
        elif what == "hid":
            if not problem.hid:
                raise InvalidParameterError(
                    f"{m.python}: the problem has no household id (hid); sdcMicro's {m.r} on an sdcMicroObj takes "
                    "it from hhId (createSdcObj(hhId = ...)): state the problem with hid=... .")
            out[arg] = problem.hid
        elif what == "false":
            out[arg] = False
        else:  # pragma: no cover - a registry declaration error
            raise InvalidParameterError(f"{m.python}: unknown fill {what!r} in the registry.")
    return out


def apply_step(problem, name: str, args: tuple = (), kwargs: dict | None = None):
    """``problem.<name>(*args, **kwargs)``: a new problem with the method applied to the manipulated data."""
    m = _method(name)
    r = m.roles
    given = bind_step(name, args, kwargs)
    variables = _variables(problem, m, given)
    roles = tuple(_roles_of(problem, v) for v in variables)
    if m.python == "pram":
        done = {v for s in problem.steps if s.method == "pram" for v in s.variables}
        again = [v for v in variables if v in done]
        if again:
            raise InvalidParameterError(f"pram: already applied to {again} (sdcMicro: 'pram() was already applied "
                                        "on at least one variable!').")
    options = {o: given.pop(o) for o in _OPTIONS.get(name, {}) if o in given}
    if options.get("recoded_as", RECODED_AS[0]) not in RECODED_AS:
        raise InvalidParameterError(f"{name}: recoded_as must be one of {list(RECODED_AS)}; got "
                                    f"{options['recoded_as']!r}.")
    current = problem._manip_keys  # the key variables as sdcMicro's manipKeyVars (a recoded key: its labels)
    if m.python == "top_bot_coding" and isinstance(current[variables[0]].dtype, pd.CategoricalDtype):
        return _top_bot_coding_on_a_factor(problem, m, given, variables[0], current, options)
    kw = {**given, **_fill(problem, m, current, given)}
    if r.argument:
        kw[r.argument] = variables[0] if r.argument in _SINGLE else variables
    single_noise = m.python == "add_noise" and len(variables) == 1
    if r.data_argument == "x":
        kw["x"] = current[variables]
    elif single_noise:  # sdcMicro: addNoiseWORK(cbind(0, x[, variables]))
        zero = "pysdc_zero_column" if variables[0] != "pysdc_zero_column" else "pysdc_zero_column_"
        kw["data"] = pd.DataFrame({zero: np.zeros(len(current)), variables[0]: current[variables[0]].to_numpy()},
                                  index=current.index)
        kw["variables"] = [zero, variables[0]]
    else:
        kw["data"] = current
    if r.result == "swap" and kw.get("carry_along") is not None:  # carried along: changed as the hierarchy
        carried = _variables(problem, m, {r.argument: kw["carry_along"]})
        variables = [*variables, *(c for c in carried if c not in variables)]
    res = m.native(**kw)
    new = _new_values(res, r.result, variables, problem, kw.get("data"))
    manip = current.copy(deep=False)
    for v in new.columns:
        manip[v] = new[v].to_numpy() if not isinstance(new[v].dtype, pd.CategoricalDtype) else new[v].array
    changed = tuple(new.columns)
    ghosts = ()
    if r.result == "data":  # a suppression step: the ghost variables follow their key variables' NAs
        ghosts = _apply_ghost_vars(manip, problem.ghost_vars)
        changed = (*changed, *ghosts)
    step = Step(method=m.python, r=m.r, arguments=dict(given), variables=changed,
                roles=tuple("ghost" if v in ghosts else _roles_of(problem, v) for v in changed),
                remeasured=tuple(dict.fromkeys(r.remeasure[x] for x in roles if x in r.remeasure)), result=res,
                options=options)
    if m.python == "global_recode":
        _warn_codes(problem, variables[0], manip[variables[0]], options.get("recoded_as", RECODED_AS[0]))
    return problem._stepped(manip, step)


def _top_bot_coding_on_a_factor(problem, m: Method, given: dict, v: str, current: pd.DataFrame, options: dict):
    """sdcMicro 5.8.0's topBotCoding on an sdcMicroObj whose key variable ``v`` is a factor in manipKeyVars (recoded
    by globalRecode, or categorical from the start): it compares the factor with ``value`` (R warns "'>' not
    meaningful for factors" and "invalid factor level, NA generated"), so no value is replaced; the object is the
    same but for its history (observed: every slot identical but ``prev`` and ``set``). The step is recorded as
    sdcMicro's, with the data unchanged, and a warning says why (the data.frame method, the native function, stops
    on a factor)."""
    op = ">" if given.get("kind", "top") == "top" else "<"
    recoded = any(s.method == "global_recode" and v in s.variables for s in problem.steps)
    warnings.warn(
        f"top_bot_coding: key variable {v!r} is categorical here ("
        + ("recoded by global_recode into intervals" if recoded else "a factor in sdcMicro's manipKeyVars")
        + f"), so sdcMicro 5.8.0's topBotCoding on the object replaces nothing: it compares the factor with value "
        f"(R warns: '{op}' not meaningful for factors; invalid factor level, NA generated) and returns the "
        "object with the same data and risk. pysdc returns that: the step is recorded, nothing changed. To merge "
        "the extreme categories use group_and_rename; to top-code the numbers, apply top_bot_coding before "
        "global_recode.", DegenerateResultWarning, stacklevel=user_stacklevel())
    step = Step(method=m.python, r=m.r, arguments=dict(given), variables=(), roles=(), remeasured=("risk",),
                options=options)
    return problem._stepped(current.copy(deep=False), step)


def _numeric_key(problem, v) -> bool:
    """Is ``v`` a key variable whose ORIGINAL column is numeric (R's class numeric or integer)?"""
    return v in problem.key_vars and r_class(problem.data[v]) in ("numeric", "integer")


def _warn_codes(problem, v, recoded: pd.Series, recoded_as: str) -> None:
    """At the call: sdcMicro's extractManipData gives a recoded numeric key's codes, not its labels."""
    if recoded_as != "codes" or not _numeric_key(problem, v) or not isinstance(recoded.dtype, pd.CategoricalDtype):
        return
    levels = [str(c) for c in recoded.cat.categories]
    shown = ", ".join(f"{i} = {lab!r}" for i, lab in enumerate(levels[:10], 1)) + (", ..." if len(levels) > 10 else "")
    warnings.warn(
        f"global_recode: {v!r} is a numeric key variable, so the manipulated data (manip_data, sdcMicro 5.8.0's "
        f"extractManipData) holds the interval CODES as numbers, not the labels -- code i is the i-th interval "
        f"({shown}); read as numbers they are meaningless. The risk is the same (it counts the same groups). This "
        f"is sdcMicro's result; global_recode(..., recoded_as=\"labels\") keeps the labels (R's cut) instead.",
        DegenerateResultWarning, stacklevel=user_stacklevel())


def extract_manip(problem, manip: pd.DataFrame) -> pd.DataFrame:
    """sdcMicro's ``extractManipData`` of the key variables held as ``manipKeyVars`` in ``manip``.

    A key variable whose original column is numeric (R's numeric or integer) and that a step turned into a factor
    (``global_recode``) or into other numbers (``labels=False``) is given back in its original class, as sdcMicro
    does: a factor becomes its codes 1, 2, ... (code i = the i-th level). Unless the last ``global_recode`` of it
    asked ``recoded_as="labels"``: then its labels stay. Returns ``manip`` itself when nothing changes.
    """
    last = {}
    for s in problem._steps:
        if s.method == "global_recode":
            last[s.variables[0]] = s.options.get("recoded_as", RECODED_AS[0])
    out = None
    for v, how in last.items():
        if how != "codes" or not _numeric_key(problem, v):
            continue
        col, orig = manip[v], problem.data[v]
        if col.dtype == orig.dtype:
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            codes = col.cat.codes.to_numpy()
            values, na = (codes + 1).astype(np.float64), codes < 0
        else:
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            na = np.isnan(values)
        if r_class(orig) == "numeric":
            new = np.where(na, np.nan, values)
        elif not na.any():
            new = values.astype(np.int64)
        else:  # R's integer with NA
            new = pd.arrays.IntegerArray(np.where(na, 0, values).astype(np.int64), na)
        if out is None:
            out = manip.copy(deep=False)
        out[v] = new
    return manip if out is None else out


def _apply_ghost_vars(manip: pd.DataFrame, ghost_vars: dict) -> tuple:
    """Set each ghost variable missing where its key variable is missing in ``manip`` (in place, by column).

    sdcMicro's suppression methods on an sdcMicroObj do this for every link (``ghostVars``) after the
    suppression, whichever key variables the step suppressed: a record whose key is missing -- suppressed now,
    earlier, or in the original data -- has its ghosts missing. Returns the ghosts whose values changed.
    """
    changed = []
    for key, ghosts in ghost_vars.items():
        na = manip[key].isna().to_numpy()
        if not na.any():
            continue
        for g in ghosts:
            s = manip[g]
            if (na & ~s.isna().to_numpy()).any():
                if pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
                    s = s.astype("Int64" if pd.api.types.is_integer_dtype(s.dtype) else "boolean")  # R's NA
                manip[g] = s.mask(na)
                changed.append(g)
    return tuple(changed)


def _new_values(res, where: str, variables: list, problem, data=None) -> pd.DataFrame:
    if where == "frame":
        return res[variables]
    if where == "swap":  # record_swap's records come ordered by household id (stable): back to the data's order
        pos = np.argsort(data[problem.hid].to_numpy(), kind="stable")  # result row i is the data's row pos[i]
        inv = np.empty_like(pos)
        inv[pos] = np.arange(pos.size)
        return pd.DataFrame({v: res[v].array.take(inv) for v in variables}, index=data.index)
    if where == "mx":
        return res.mx[variables]
    if where == "xm":
        return res.xm[[variables[0]]] if len(variables) == 1 else res.xm[variables]
    if where == "data":
        keys = res.key_vars if res.threshold is None else variables
        return res.data[list(keys)]
    if where == "pram":
        return pd.DataFrame({v: res.data[f"{v}_pram"].array for v in variables}, index=res.data.index)
    raise InvalidParameterError(f"unknown result kind {where!r} in the registry.")  # pragma: no cover


def protected_problem(problem, manip, *, source: str):
    """``problem`` holding ``manip`` as its manipulated data, from elsewhere (e.g. sdcMicro's ``extractManipData``).

    The history is one step named ``source`` (sdcMicro's object does not keep its methods); the variables changed
    are those of the specification whose values differ.
    """
    manip = problem._masked(manip)
    changed = []
    for v in [*problem.key_vars, *problem.num_vars, *(c for c in manip.columns if c not in problem.variables)]:
        if v not in problem.data.columns or v not in manip.columns:
            continue
        a = problem.sdc_data[v].astype(object).to_numpy()
        b = manip[v].astype(object).to_numpy()
        na_a, na_b = pd.isna(a), pd.isna(b)
        if (na_a != na_b).any() or (a[~na_a].astype(str) != b[~na_b].astype(str)).any():
            changed.append(v)
    roles = tuple(_roles_of(problem, v) for v in changed)
    remeasured = tuple(dict.fromkeys("numeric" if r == "numeric" else "risk" for r in roles))
    step = Step(method="external", r=source, arguments={}, variables=tuple(changed), roles=roles, remeasured=remeasured)
    return problem._stepped(as_sdc_keys(manip, problem.key_vars, collation=problem.collation), step)


# =============================================================================
# the methods of SdcProblem, generated from the registry


def _make(name: str):
    m = STEP_METHODS[name]

    def step(self, *args, **kwargs):
        return apply_step(self, name, args, kwargs)

    sig = step_signature(name)
    step.__signature__ = sig.replace(parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
                                                 *sig.parameters.values()])
    step.__name__ = step.__qualname__ = name
    native = m.native.__name__  # an alias step (STEP_ALIASES) runs the function of the method it names otherwise
    alias = "" if native == name else (
        f"sdcMicro's ``{m.r}`` is ``{method_by_python_name(native).r}`` under another name (the same arguments and "
        f"result); the step is recorded, and replayed on an sdcMicroObj, as ``{m.r}``.\n\n")
    step.__doc__ = (f"sdcMicro's ``{m.r}`` on an sdcMicroObj, natively: a new problem with "
                    f":func:`pysdc.protect.{native}` applied to the manipulated data.\n\n{alias}"
                    f"On sdcMicro's object: {m.roles.sdcmicro}.\n\n"
                    f"The arguments are :func:`pysdc.protect.{native}`'s, without the data and what the problem "
                    f"gives ({sorted(_internal(m) - {m.roles.data_argument}) or 'nothing'}). Returns a new "
                    "SdcProblem; this one is unchanged (``new.undo_last()`` is this one).")
    if name in _OPTION_DOCS:
        step.__doc__ += "\n\n" + _OPTION_DOCS[name]
    return step


_OPTION_DOCS = {"global_recode": (
    "recoded_as : {\"codes\", \"labels\"}, default \"codes\"\n"
    "    A key variable whose original column is numeric (or integer): sdcMicro 5.8.0 keeps the factor of cut's "
    "labels in manipKeyVars (:attr:`SdcProblem.manip_key_vars`; the risk is measured on it and the next step sees "
    "it) but its extractManipData gives the column in its original class, the factor's codes 1, 2, ... (code i = "
    "the i-th interval; also with ``labels``). ``\"codes\"`` (sdcMicro's) puts those codes in "
    ":attr:`SdcProblem.manip_data` and warns at the call (:class:`pysdc.DegenerateResultWarning`, listing code = "
    "label): as numbers they are meaningless. ``\"labels\"`` keeps the labels (R's cut) in ``manip_data``. The "
    "risk is the same either way, and so is the step's R call (the option is pysdc's).")}


def attach_steps(cls) -> None:
    """Give ``cls`` (SdcProblem) one method per step method of the registry."""
    for name in STEP_METHODS:
        setattr(cls, name, _make(name))
