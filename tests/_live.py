"""Shared check for the tests that run sdcMicro through Rscript."""

from __future__ import annotations

import functools
import shutil
import subprocess


@functools.cache
def sdcmicro_missing_reason(*packages: str) -> str | None:
    """None when Rscript and the R packages (sdcMicro plus ``packages``) load; otherwise the reason."""
    if shutil.which("Rscript") is None:
        return "Rscript not found"
    pkgs = ("sdcMicro",) + packages
    code = "; ".join(f"library({p})" for p in pkgs)
    r = subprocess.run(["Rscript", "-e", code], capture_output=True)
    return None if r.returncode == 0 else f"R package(s) {'/'.join(pkgs)} not installed"
