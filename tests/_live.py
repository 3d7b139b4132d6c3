"""Shared checks for the tests that run R through Rscript (a subprocess, not the bridge).

tests/conftest.py calls these for the ``rscript`` marker; a test file does not call them itself.
"""

from __future__ import annotations

import functools
import importlib
import shutil
import subprocess


@functools.cache
def rscript_missing_reason(*packages: str) -> str | None:
    """None when Rscript runs and loads the R ``packages``; otherwise the reason (cached per session)."""
    if shutil.which("Rscript") is None:
        return "Rscript not found"
    if not packages:
        return None
    code = "; ".join(f"library({p})" for p in packages)
    r = subprocess.run(["Rscript", "-e", code], capture_output=True)
    return None if r.returncode == 0 else f"R package(s) {'/'.join(packages)} not installed"


def sdcmicro_missing_reason(*packages: str) -> str | None:
    """None when Rscript and the R packages (sdcMicro plus ``packages``) load; otherwise the reason."""
    return rscript_missing_reason("sdcMicro", *packages)


def optional(name: str):
    """The module ``name``, or None when it is not installed.

    For a test module whose tests carry the component's marker (``pytestmark = pytest.mark.duckdb``):
    it imports without the package, and tests/conftest.py skips its tests with the reason.
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
