"""Engines beyond pandas: DuckDB and Spark (issue 11). Neither is imported unless used."""
