"""Shared pytest configuration.

The test tree mirrors the package (``tests/risk`` tests ``pysdc/risk`` …); the helper modules
(``_live.py``, ``_methods.py``, …) stay in ``tests/`` and are importable from every subdirectory
because this conftest's directory is on ``sys.path`` (pytest's default ``prepend`` import mode).
"""
