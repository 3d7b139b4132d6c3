"""Engines beyond pandas: DuckDB and Spark (issue 11). Neither is imported unless used.

A DuckDB relation, a Spark DataFrame or :func:`pysdc.scan` (a lazy dataset over Parquet/CSV files,
directories and globs) can stand in place of a measure's DataFrame. The engine reduces the records
(group-by to the key-combination table, moments and cross-products of the variables), pysdc's
engine-free core computes on the reduction exactly as on pandas, and per-record results come back
as a lazy join in the engine's own form (:class:`EngineTable`, ``.to_parquet(path)``).
"""

from ._tables import EngineTable, Scan, scan

__all__ = ["scan", "Scan", "EngineTable"]
