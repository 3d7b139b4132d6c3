"""Arguments that are not pandas frames: where a public measure's frame argument goes elsewhere.

:func:`pysdc._validation.validate_params` calls :func:`adapt` only when a frame argument is
neither a pandas DataFrame nor a NumPy array. Two kinds of object are handled here, in order:

1. an SDC problem (:class:`pysdc.SdcProblem`, :class:`pysdc.r.SdcObj`): its data replace the
   argument and its specification (key variables, weight, household id, ...) fills the
   arguments the caller left at their defaults (:mod:`pysdc._problem_args`);
2. an engine's table (a DuckDB relation, a Spark DataFrame, :func:`pysdc.scan`): the measure
   runs on that engine (:mod:`pysdc.engine`), which returns the result.

Anything else continues to the usual validation, which refuses it with a clear message.
"""

from __future__ import annotations

from ._validation import Outcome

__all__ = ["Outcome", "adapt"]


def adapt(func, params: dict, arguments: dict) -> Outcome:
    from ._problem_args import from_problem

    arguments = from_problem(func, params, arguments)
    from .engine._dispatch import run_on_engine

    return run_on_engine(func, params, arguments)
