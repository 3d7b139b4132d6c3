"""The one R <-> Python name table: functions, arguments and result fields.

The README's name table, the R bridge and the tests all read this module.
Python names are snake_case versions of sdcMicro's names; the literature's
``fk``/``Fk`` are kept as they are (they would collide in snake_case).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RFunction", "FUNCTIONS", "by_python_name", "by_r_name"]


@dataclass(frozen=True)
class RFunction:
    """How one pysdc function maps onto one sdcMicro function.

    Attributes
    ----------
    python : str
        pysdc's function name.
    r : str
        sdcMicro's function name.
    arguments : dict
        Python argument name -> R argument name (``None``: no R counterpart).
    fields : dict
        Python result field -> R result component (``None``: computed by pysdc).
    defaults : dict
        R argument -> the default value pysdc uses (checked against ``formals()``).
    notes : str
        Anything a user moving between the two must know.
    formals_of : str
        The sdcMicro (namespace) function whose ``formals()`` hold the defaults
        checked against pysdc's; empty means ``r`` itself. Needed where the public
        function is ``function(obj, ...)`` and a worker carries the defaults.
    """

    python: str
    r: str
    arguments: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    notes: str = ""
    formals_of: str = ""


FUNCTIONS: tuple[RFunction, ...] = (
    RFunction(
        "d_utility", "dUtility",
        arguments={"x": "obj", "xm": "xm", "method": "method", "average": None, "random_state": None},
        fields={"(float)": "(numeric)"},
        defaults={"method": "IL1s"},
        notes="IL1 and IL1s are plain sums over cells (IL1 in percent).",
        formals_of="dUtilityWORK",
    ),
    RFunction(
        "il_correl", "IL_correl",
        arguments={"x": "x", "xm": "xm", "normalization": None},
        fields={
            "value": "(numeric)", "n_vars": 'attr "nr_vars"', "n_x": 'attr "n_x"', "n_xm": 'attr "n_y"',
            "variables": None,
        },
        notes="1/sqrt(2) normalisation (Mlodak's paper has 1/2: normalization='mlodak').",
    ),
    RFunction(
        "il_variables", "IL_variables",
        arguments={"x": "x", "xm": "xm", "scales": None},
        fields={"value": "(numeric)", "per_variable": 'attr "indiv_distances"', "n": 'attr "n"'},
        notes="integer and logical columns are refused as sdcMicro refuses them; declare a scale instead.",
    ),
    RFunction(
        "freq_calc", "freqCalc",
        arguments={"data": "x", "key_vars": "keyVars", "w": "w", "alpha": "alpha"},
        fields={"fk": "fk", "Fk": "Fk", "n1": "n1", "n2": "n2"},
        defaults={"w": None, "alpha": 1},
        notes="missing key values are wildcards.",
    ),
    RFunction(
        "indiv_risk", "indivRisk",
        arguments={"freq": "x", "method": "method", "qual": "qual", "survey": "survey"},
        fields={"rk": "rk", "fk": "fk", "method": "method", "qual": "qual"},
        defaults={"method": "approx", "qual": 1, "survey": True},
    ),
    RFunction(
        "measure_risk", "measure_risk",
        arguments={
            "data": "obj", "key_vars": "keyVars", "w": "w", "hid": "hid",
            "max_global_risk": "max_global_risk", "fast_hier": "fast_hier", "alpha": None,
        },
        fields={
            "global_risk_ER": "global_risk_ER", "global_risk": "global_risk",
            "global_risk_pct": "global_risk_pct", "global_threshold": "global_threshold",
            "max_global_risk": "max_global_risk", "hier_risk_ER": "hier_risk_ER",
            "hier_risk": "hier_risk", "hier_risk_pct": "hier_risk_pct",
            "individual": "Res",
        },
        defaults={"w": None, "hid": None, "max_global_risk": 0.01, "fast_hier": True},
        notes="sdcMicro's data.frame method fails whenever alpha is passed; pysdc follows its internal worker.",
        formals_of="measure_riskWORK",
    ),
    RFunction(
        "ldiversity", "ldiversity",
        arguments={"data": "obj", "key_vars": "keyVars", "ldiv_index": "ldiv_index", "l_recurs_c": "l_recurs_c"},
        fields={"(DataFrame)": "(matrix)"},
        defaults={"l_recurs_c": 2},
        formals_of="ldiversityWORK",
    ),
)

_BY_PY = {f.python: f for f in FUNCTIONS}
_BY_R = {f.r: f for f in FUNCTIONS}


def by_python_name(name: str) -> RFunction:
    return _BY_PY[name]


def by_r_name(name: str) -> RFunction:
    return _BY_R[name]


def markdown_table() -> str:
    """The R -> Python name table as Markdown (the README embeds this output verbatim)."""
    rows = ["| sdcMicro (R) | pysdc (Python) | arguments (R → Python) | result fields (R → Python) |",
            "|---|---|---|---|"]
    for f in FUNCTIONS:
        args = ", ".join(
            f"`{r}` → `{py}`" if r else f"— → `{py}` (pysdc only)" for py, r in f.arguments.items()
        )
        flds = ", ".join(
            f"`{r}` → `{py}`" if r else f"`{py}` (pysdc only)" for py, r in f.fields.items()
        )
        rows.append(f"| `{f.r}` | `pysdc.{f.python}` | {args} | {flds} |")
    return "\n".join(rows)


if __name__ == "__main__":  # python -m pysdc._rnames
    print(markdown_table())
