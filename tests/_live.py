"""What the optional components' checks share: Rscript with R packages, a Chromium binary, an optional import.

tests/conftest.py calls the checks for the ``rscript`` and ``chromium`` markers; a test file does not compute a
skip condition itself (it carries the marker). ``chromium_path`` and ``optional`` give a marked test what it uses.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


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


# ------------------------------------------------ bridge calls in a child Python (R may die there, not here)
_ROOT = Path(__file__).resolve().parents[1]

#: the tail of a child script: runs each of ``calls`` (name -> function), records "returned" or the
#: InvalidParameterError's message, collects R's garbage between calls, then checks R still answers
CHILD_CALL_LOOP = r"""
out = {}
for name, f in calls.items():
    try:
        f()
        out[name] = "returned"
    except pysdc.InvalidParameterError as e:
        out[name] = str(e)
    R.call("gc", package="base")
out["after"] = float(R.call("sum", [1.5, 2.5], package="base"))
print(json.dumps(out))
"""


def run_child(code: str, timeout: float = 900):
    """Run ``code`` in a child Python with the checkout first on its path (R's crash kills only the child)."""
    env = dict(os.environ, PYTHONPATH=str(_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=_ROOT,
                          timeout=timeout)


def child_json(res) -> dict:
    """The JSON on the last line of a child's output; fails with its stderr when the child died."""
    assert res.returncode == 0, f"the child died (exit {res.returncode}): {res.stderr[-2000:]}"
    return json.loads(res.stdout.strip().splitlines()[-1])


def usable_bridge():
    """``(pysdc.r, "")`` when R, rpy2 and sdcMicro are usable, else ``(None, why)`` (the ``bridge`` fixture's check)."""
    try:
        from pysdc import r as bridge
    except Exception as exc:  # noqa: BLE001
        return None, f"the R bridge cannot be imported: {exc}"
    try:
        av = bridge.available()
    except Exception as exc:  # noqa: BLE001
        return None, f"the R bridge is not usable: {exc}"
    return (bridge, "") if av else (None, f"R/rpy2/sdcMicro not available: {av.reason}")
