"""Run a measure on an engine's table (DuckDB relation, Spark DataFrame, lazy scan)."""

from __future__ import annotations

from .._validation import Outcome


def run_on_engine(func, params: dict, arguments: dict) -> Outcome:
    """The measure's result computed by the engine, or the arguments unchanged for pandas."""
    return Outcome(arguments)
