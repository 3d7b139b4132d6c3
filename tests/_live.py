"""What the optional components' checks share: Rscript with R packages, a Chromium binary, an optional import.

tests/conftest.py calls the checks for the ``rscript`` and ``chromium`` markers; a test file does not compute a
skip condition itself (it carries the marker). ``chromium_path`` and ``optional`` give a marked test what it uses.
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


def optional(name: str):
    """The module ``name``, or None when it is not installed.

    For a test module whose tests carry the component's marker (``pytestmark = pytest.mark.duckdb``):
    it imports without the package, and tests/conftest.py skips its tests with the reason.
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium_path() -> str | None:
    """The Chromium (or Chrome) binary on PATH, or None (tests that need it carry ``pytest.mark.chromium``)."""
    for name in CHROMIUM_NAMES:
        exe = shutil.which(name)
        if exe:
            return exe
    return None
