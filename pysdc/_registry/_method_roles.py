"""How each protection method acts on a problem: the roles of the variables it changes and what is re-measured.

sdcMicro's methods on an ``sdcMicroObj`` work on its manipulated slots (``manipKeyVars``, ``manipNumVars``,
``manipPramVars``) and recompute its risk afterwards (observed with sdcMicro 5.8.0, see docs/protection.md).
:class:`Roles` says that for one method; :data:`ROLES` is read into :attr:`pysdc._registry.Method.roles`,
and the problem object's steps (:mod:`pysdc.problem._steps`) dispatch from it -- no list of methods elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Roles", "ROLES", "ROLE_NAMES", "REMEASURE"]

#: the roles of a problem's variables a method may change: ``"key"`` (categorical key variables, sdcMicro's
#: manipKeyVars), ``"numeric"`` (numeric key variables, manipNumVars), ``"pram"`` (a categorical column in no
#: other role: sdcMicro's pramVars, kept in manipPramVars)
ROLE_NAMES = ("key", "numeric", "pram")

#: what sdcMicro recomputes after a method changed a variable of a role: ``"risk"`` (calcRisks / measure_risk of
#: the manipulated key variables: pysdc's ``problem.risk()``), ``"numeric"`` (dRisk and dUtility of the
#: manipulated numeric variables: ``problem.risk(masked=...)``'s distance risk and ``problem.utility()``)
REMEASURE = ("risk", "numeric")


@dataclass(frozen=True)
class Roles:
    """How a method runs as a step of a problem (``problem.<method>(...)``).

    Attributes
    ----------
    variables : tuple of str
        The roles (:data:`ROLE_NAMES`) of the variables the method may change; another variable is refused.
    argument : str or None
        The native argument naming the variables (``"column"``, ``"variables"`` ...); None: the method's
        variables are those of ``default`` (not the caller's choice, as on an sdcMicroObj).
    default : str or None
        The role whose variables are taken when ``argument`` is not given (sdcMicro's default on the object).
    remeasure : dict
        Role -> what is re-measured after a variable of that role changed (:data:`REMEASURE`).
    result : str
        Where the native result holds the new values: ``"frame"`` (the returned DataFrame), ``"mx"``
        (MicroaggregationResult), ``"xm"`` (AddNoiseResult), ``"data"`` (LocalSuppressionResult), ``"pram"``
        (PramResult's ``<v>_pram`` columns), ``"swap"`` (record_swap's frame, ordered by household: the
        hierarchy and carry_along columns, back in the problem's record order).
    fill : dict
        Native argument -> what the problem gives: ``"key_vars"``, ``"num_vars"``, ``"strata"`` (its strata
        variable, as a list or None), ``"alpha"`` (createSdcObj's default option 1), ``"individual_risk"``
        (measure_risk's individual risk of the current data, sdcMicro's ``risk$individual[, 1]``), ``"hid"`` (its
        household id, sdcMicro's ``hhId``), ``"weight"`` (its weight variable or None, sdcMicro's ``weightVar``),
        ``"false"`` (False: e.g. no extra column of swapped ids in a step).
        These arguments are not the caller's (sdcMicro takes them from the object), except those in
        ``fill_default``.
    fill_default : tuple of str
        Arguments of ``fill`` the caller may give (the problem's value is then only the default).
    data_argument : str
        The native argument that receives the data (``"data"``; ``"x"`` for mv_top_coding, which gets the
        numeric variables only).
    sdcmicro : str
        What sdcMicro's method does on an sdcMicroObj (or that it has none: a pysdc extension).
    """

    variables: tuple
    argument: str | None
    default: str | None = None
    remeasure: dict = field(default_factory=dict)
    result: str = "frame"
    fill: dict = field(default_factory=dict)
    fill_default: tuple = ()
    data_argument: str = "data"
    sdcmicro: str = ""


_KEY = {"key": "risk"}
_NUM = {"numeric": "numeric"}

ROLES: dict[str, Roles] = {
    "global_recode": Roles(
        ("key",), "column", remeasure=_KEY,
        sdcmicro="globalRecode(obj, column, ...): a key variable of manipKeyVars recoded, then calcRisks"),
    "group_and_rename": Roles(
        ("key",), "var", remeasure=_KEY,
        sdcmicro="groupAndRename(obj, var, before, after): a key variable of manipKeyVars, then calcRisks"),
    "top_bot_coding": Roles(
        ("numeric", "key"), "column", remeasure={**_NUM, **_KEY},
        sdcmicro="topBotCoding(obj, value, replacement, kind, column): a numeric variable (then dRisk, dUtility) "
                 "or a key variable (then measure_risk); any other column of the data is changed in origData with "
                 "nothing recomputed -- pysdc refuses that"),
    "mv_top_coding": Roles(
        ("numeric",), None, default="numeric", remeasure=_NUM, data_argument="x",
        sdcmicro="none: mvTopCoding has no sdcMicroObj method; pysdc applies it to the numeric key variables "
                 "(a pysdc extension)"),
    "microaggregation": Roles(
        ("numeric",), "variables", default="numeric", remeasure=_NUM, result="mx",
        fill={"strata_variables": "strata", "weights": "weight"},
        sdcmicro="microaggregation(obj, variables, aggr, method, ...): manipNumVars within the object's strataVar "
                 "(its strata_variables argument is ignored), weighted by its weightVar (the sorting and "
                 "clustering methods' mean and median), then dRisk and dUtility"),
    "mafast": Roles(
        ("numeric",), "variables", default="numeric", remeasure=_NUM,
        sdcmicro="mafast(obj, variables, by, aggr): manipNumVars, then dRisk and dUtility"),
    "add_noise": Roles(
        ("numeric",), "variables", default="numeric", remeasure=_NUM, result="xm",
        sdcmicro="addNoise(obj, variables, noise, method, ...): manipNumVars (one variable beside a column of "
                 "zeros, as sdcMicro does), then dRisk and dUtility"),
    "pram": Roles(
        ("pram", "key"), "variables", default="pram", remeasure={"pram": "risk", "key": "risk"}, result="pram",
        fill={"strata_variables": "strata"}, fill_default=("strata_variables",),
        sdcmicro="pram(obj, variables, strata_variables, pd, alpha): manipPramVars (a key variable: manipKeyVars, "
                 "with sdcMicro's warning), within the object's strataVar unless strata_variables is given; "
                 "a variable once only; then calcRisks"),
    "local_suppression": Roles(
        ("key",), None, default="key", remeasure=_KEY, result="data",
        fill={"key_vars": "key_vars", "strata_vars": "strata", "alpha": "alpha"},
        sdcmicro="localSuppression(obj, k, importance, combs): every key variable of manipKeyVars, within the "
                 "object's strataVar, with its alpha option; the suppressions in slot localSuppression; "
                 "then calcRisks"),
    "local_supp": Roles(
        ("key",), "key_var", remeasure=_KEY, result="data",
        fill={"key_vars": "key_vars", "risk": "individual_risk"},
        sdcmicro="localSupp(obj, threshold, keyVar): keyVar of manipKeyVars where risk$individual[, 1] > "
                 "threshold, then calcRisks"),
    "rank_swap": Roles(
        ("numeric",), "variables", default="numeric", remeasure=_NUM,
        sdcmicro="rankSwap(obj, variables, TopPercent, BottomPercent, R0, P, seed): manipNumVars (every numeric "
                 "key variable by default), then dRisk and dUtility; seed is its C++ generator's, which pysdc "
                 "reproduces: the same swaps for the same int seed"),
    "record_swap": Roles(
        ("key", "pram"), "hierarchy", remeasure={"key": "risk", "pram": "risk"}, result="swap",
        fill={"hid": "hid", "risk_variables": "key_vars", "return_swapped_id": "false"},
        fill_default=("risk_variables",),
        sdcmicro="recordSwap(obj, hierarchy, similar, ...): hid is the object's hhId, risk_variables its keyVars; "
                 "sdcMicro's method swaps origData and returns the swapped data.table, not an object -- on a "
                 "problem the step swaps the manipulated data (hierarchy and carry_along move between households), "
                 "then the key variables' risk is re-measured; seed is its C++ generator's, so sdcMicro swaps "
                 "other households than pysdc for the same seed (listed divergence recordSwap:*)"),
}
