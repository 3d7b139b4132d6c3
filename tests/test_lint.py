"""The code style is checked like everything else: ``ruff check`` (configured in pyproject.toml) must be clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str] | None:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe:
        return [exe]
    try:
        import ruff  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "ruff"]


def test_ruff_is_clean():
    cmd = _ruff()
    if cmd is None:
        pytest.fail("ruff is not installed: it is part of the test extra (pip install '.[test]')")
    res = subprocess.run([*cmd, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
