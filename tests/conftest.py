"""Shared pytest configuration: the layout and the markers of the optional components.

The test tree mirrors the package (``tests/risk`` tests ``pysdc/risk`` …); the helper modules
(``_live.py``, ``_methods.py``, …) stay in ``tests/`` and are importable from every subdirectory
because this conftest's directory is on ``sys.path`` (pytest's default ``prepend`` import mode).

A test that needs an optional component says so with a marker (``pytestmark = pytest.mark.live``
for a module, ``@pytest.mark.spark`` for a test, ``pytest.param(..., marks=pytest.mark.duckdb)``
for a case) and computes nothing itself. Before such a test is set up, :func:`pytest_runtest_setup`
skips it with the reason the component is missing and how to install it. Each component is
checked once per session, and only when a test marked with it is about to run: ``-m "not live"``
or a run without a marked test never starts R (``import pysdc`` never does).

``PYSDC_TEST_MISSING=needs_r,spark`` (marker names, comma-separated; ``r`` for the three R markers,
``all`` for every one) makes the listed components count as missing, to see the skips on a machine
that has them.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import shutil
import subprocess

import pytest

from _live import CHROMIUM_NAMES, chromium_path, rscript_missing_reason, usable_bridge

_R_HINT = "Debian: apt-get install r-base-core; then pip install 'pysdc-measures[r]' (rpy2)"
_SDC_HINT = 'in R: install.packages("sdcMicro")'

#: marker -> what a marked test needs (shown by ``pytest --markers``)
MARKERS = {
    "needs_r": "needs R and rpy2 usable in this process (no sdcMicro); skipped with the reason otherwise",
    "live": "compares with live sdcMicro: needs R, rpy2 and the R package sdcMicro (with the rscript marker too: "
            "Rscript instead of rpy2); skipped with the reason otherwise",
    "rscript": "rscript(*r_packages, sdcmicro=True): needs Rscript with sdcMicro (unless sdcmicro=False) and the "
               "named R packages, run as a subprocess; skipped with the reason otherwise",
    "spark": "needs PySpark and Java 17 (the Spark engine); skipped with the reason otherwise",
    "chromium": "needs a Chromium (or Chrome) binary for headless rendering; skipped with the reason otherwise",
    "duckdb": "needs duckdb and pyarrow (the DuckDB engine); skipped with the reason otherwise",
}

def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def simulated_missing() -> set[str]:
    """The markers whose components ``PYSDC_TEST_MISSING`` says to treat as missing."""
    names = {s.strip() for s in os.environ.get("PYSDC_TEST_MISSING", "").split(",") if s.strip()}
    if "all" in names:
        return set(MARKERS)
    if "r" in names:
        names |= {"needs_r", "live", "rscript"}
    return names & set(MARKERS)


@functools.cache
def _r_missing(sdcmicro: bool) -> str | None:
    if not _importable("rpy2"):
        return f"rpy2 is not installed ({_R_HINT})"
    import pysdc.r as pr  # starts nothing; pr.available() starts R

    status = pr.available(sdcmicro=sdcmicro)
    if status:
        return None
    return f"R is not usable through rpy2: {status.reason}"


def _needs_r_missing() -> str | None:
    why = _r_missing(False)
    return None if why is None else f"needs R and rpy2: {why}"


def _live_missing() -> str | None:
    why = _r_missing(False) or _r_missing(True)
    return None if why is None else f"needs R with sdcMicro through rpy2: {why} ({_SDC_HINT})"


def _rscript_missing(*packages: str) -> str | None:
    why = rscript_missing_reason(*packages)
    if why is None:
        return None
    hint = f"in R: install.packages(c({', '.join(repr(p) for p in packages)}))" if packages else ""
    return (f"needs Rscript{' with ' + ', '.join(packages) if packages else ''}: {why} "
            f"(Debian: apt-get install r-base-core{'; ' + hint if hint else ''})")


@functools.cache
def _java_major() -> int | None:
    java = shutil.which("java")
    if java is None:
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(?:1\.)?(\d+)', out)
    return int(m.group(1)) if m else 0


@functools.cache
def _spark_missing() -> str | None:
    if not _importable("pyspark"):
        return "needs PySpark (pip install 'pysdc-measures[spark]')"
    if not _importable("pyarrow"):
        return "the Spark engine needs pyarrow (pip install 'pysdc-measures[spark]')"
    major = _java_major()
    if major is None:
        return "the Spark engine needs Java 17, 'java' is not on PATH (Debian: apt-get install openjdk-17-jre-headless)"
    if 0 < major < 17:
        return f"the Spark engine needs Java 17, found Java {major} (Debian: apt-get install openjdk-17-jre-headless)"
    return None


def _chromium_missing() -> str | None:
    if chromium_path() is None:
        return f"needs Chromium, none of {'/'.join(CHROMIUM_NAMES)} is on PATH (Debian: apt-get install chromium)"
    return None


@functools.cache
def _duckdb_missing() -> str | None:
    absent = [p for p in ("duckdb", "pyarrow") if not _importable(p)]
    if absent:
        return f"the DuckDB engine needs {' and '.join(absent)} (pip install 'pysdc-measures[duckdb]')"
    return None


CHECKS = {
    "needs_r": _needs_r_missing,
    "live": _live_missing,
    "rscript": _rscript_missing,
    "spark": _spark_missing,
    "chromium": _chromium_missing,
    "duckdb": _duckdb_missing,
}


def missing_reason(item) -> str | None:
    """Why ``item`` cannot run here (the first of its component markers that is missing), or None."""
    fake = simulated_missing()
    for name in MARKERS:
        marks = list(item.iter_markers(name))
        if not marks:
            continue
        if name == "live" and any(True for _ in item.iter_markers("rscript")):
            continue  # compares with sdcMicro through Rscript: the rscript check below says what it needs
        if name in fake:
            return f"{name}: treated as missing (PYSDC_TEST_MISSING={os.environ.get('PYSDC_TEST_MISSING')})"
        args = ()
        if name == "rscript":  # the R packages of every rscript mark, sdcMicro first unless all say sdcmicro=False
            pkgs = sorted({a for m in marks for a in m.args} - {"sdcMicro"})
            with_sdc = any(m.kwargs.get("sdcmicro", True) for m in marks)
            args = tuple(["sdcMicro"] * with_sdc + pkgs)
        why = CHECKS[name](*args)
        if why is not None:
            return why
    return None


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    why = missing_reason(item)
    if why is not None:
        pytest.skip(why)


@pytest.fixture(scope="session")
def bridge():
    """pysdc.r, the R bridge, for every test that asks for it; skips with the reason where R, rpy2 or sdcMicro is
    not usable."""
    b, why = usable_bridge()
    if b is None:
        pytest.skip(why)
    return b


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every test that asks for it (the tests carry ``pytest.mark.spark``, so they
    skip with the reason where PySpark or Java 17 is missing): 2 cores, 4 shuffle partitions, no UI."""
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master("local[2]").appName("pysdc-tests").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()
