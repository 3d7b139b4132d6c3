"""Run a measure on an engine's table (DuckDB relation, Spark DataFrame, lazy scan).

:func:`pysdc._adapters.adapt` calls :func:`run_on_engine` when a frame argument of a measure is not
a pandas/NumPy frame. An engine's table there makes the measure run on that engine: the other
arguments are validated by the measure's own declarations (against the table's column names, so
the messages are the pandas path's), then the engine version computes the result.
"""

from __future__ import annotations

import pandas as pd

from .._errors import InvalidParameterError
from .._validation import Frame, Outcome, validate

#: measures that run on an engine -> the function computing them there
_RISK = ("freq_calc", "measure_risk", "k_anon_violations", "ldiversity")
_LOSS = ("d_utility", "il_correl", "il_variables")
#: measures that need every record in memory, with the reason
_REFUSED = {
    "suda2": "SUDA2 searches the minimal sample uniques of every record's key subsets, which needs the records "
             "themselves in memory",
    "mod_risk": "the log-linear model is fitted to the full contingency table in memory",
}


def _engine_frames(params: dict, arguments: dict) -> dict:
    from ._tables import engine_kind

    out = {}
    for name, constraint in params.items():
        if isinstance(constraint, Frame) and engine_kind(arguments.get(name)) is not None:
            out[name] = arguments[name]
    return out


def run_on_engine(func, params: dict, arguments: dict) -> Outcome:
    """The measure's result computed by the engine, or the arguments unchanged for pandas."""
    frames = _engine_frames(params, arguments)
    if not frames:
        return Outcome(arguments)
    from ._tables import as_table

    name = func.__name__
    if name not in _RISK + _LOSS:
        why = _REFUSED.get(name, "it has no engine implementation")
        raise InvalidParameterError(
            f"{name} does not run on a DuckDB relation, a Spark DataFrame or pysdc.scan(...): {why}. Read the "
            "data into pandas first (e.g. relation.df(), spark_df.toPandas(), or a sample of it)."
        )
    tables = {n: as_table(v) for n, v in frames.items()}
    kinds = {t.kind for t in tables.values()}
    others = [n for n, c in params.items() if isinstance(c, Frame) and n not in tables and arguments.get(n) is not None]
    if len(kinds) > 1 or others:
        raise InvalidParameterError(
            f"{name}: {' and '.join(sorted(params_frames(params)))} must be tables of the same engine (both DuckDB "
            "relations / DuckDB scans, or both Spark DataFrames / Spark scans); got "
            + ", ".join(f"{n}: {type(arguments.get(n)).__name__}" for n in params_frames(params)) + "."
        )
    dummy = dict(arguments)
    for n, t in tables.items():
        dummy[n] = pd.DataFrame(columns=t.columns)
    values = validate(params, dummy)
    for n, t in tables.items():
        values[n] = t
    from ._errors import engine_errors

    limit = next((v.memory_limit for v in frames.values() if getattr(v, "memory_limit", None)), None)
    files = [f for v in frames.values() if isinstance(getattr(v, "source", None), list) for f in v.source]
    with engine_errors(memory_limit=limit, paths=files):  # the engines' exceptions as pysdc's, with advice
        result = _compute(name, values)
    return Outcome(arguments, result=result)


def params_frames(params: dict) -> list:
    return [n for n, c in params.items() if isinstance(c, Frame)]


def _compute(name: str, values: dict):
    """The engine version of measure ``name`` on the validated ``values``."""
    if name in _RISK:
        from . import _risk

        if name == "freq_calc":
            return _risk.freq_calc_engine(values["data"], values["key_vars"], values["w"], values["alpha"])
        if name == "measure_risk":
            return _risk.measure_risk_engine(values["data"], values["key_vars"], values["w"], values["hid"],
                                             values["max_global_risk"], values["fast_hier"], values["alpha"])
        if name == "ldiversity":
            return _risk.ldiversity_engine(values["data"], values["key_vars"], values["ldiv_index"],
                                           values["l_recurs_c"])
        return _risk.k_anon_engine(values["data"], values["key_vars"], values["k"], values["w"], values["weighted"])
    from . import _loss

    return getattr(_loss, f"{name}_engine")(**values)
