"""tests/conftest.py's component markers: a marked test runs where its component is, and is skipped with the
reason (what is missing, how to install it) where it is not; each component is checked once, and only when a
test marked with it runs.

Each case runs pytest in a child process on a scratch directory holding a copy of tests/conftest.py and
tests/_live.py and one test file of marked tests. The components are made present or absent for real, as the
checks see them: executables on PATH (chromium, java, Rscript) are small scripts or missing, and the Python
packages (duckdb, pyarrow, pyspark, rpy2, and pysdc.r whose ``available()`` reports R and sdcMicro) are stand-ins
on PYTHONPATH that import, or raise ImportError. The stand-ins log every check they answer, so the test sees how
often a check ran.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

MARKED = '''
import pathlib

import pytest

RAN = pathlib.Path(__file__).with_name("ran")


def _ran(name):
    with RAN.open("a") as f:
        f.write(name + "\\n")


def test_plain():
    _ran("plain")


@pytest.mark.chromium
def test_chromium():
    _ran("chromium")


@pytest.mark.duckdb
def test_duckdb():
    import duckdb  # noqa: F401

    _ran("duckdb")


@pytest.mark.spark
def test_spark():
    _ran("spark")


@pytest.mark.needs_r
def test_needs_r():
    _ran("needs_r")


@pytest.mark.live
def test_live():
    _ran("live")


@pytest.mark.live
def test_live_again():
    _ran("live_again")


@pytest.mark.live
@pytest.mark.rscript("jsonlite")
def test_rscript():
    _ran("rscript")


@pytest.mark.rscript("haven", sdcmicro=False)
def test_rscript_without_sdcmicro():
    _ran("rscript_haven")
'''

#: pysdc.r stand-in: available() as R would answer, each call logged
PYSDC_R = '''
import os


class Availability(tuple):
    def __new__(cls, ok, reason):
        return super().__new__(cls, (ok, reason))

    def __bool__(self):
        return self[0]

    @property
    def reason(self):
        return self[1]


def available(sdcmicro=True):
    with open(os.environ["FAKE_LOG"], "a") as f:
        f.write(f"available sdcmicro={sdcmicro}\\n")
    if not sdcmicro or os.environ.get("FAKE_SDCMICRO") == "yes":
        return Availability(True, "R 4.2.2, rpy2 3.6.6")
    return Availability(False, "there is no package called 'sdcMicro'. Install sdcMicro in R")
'''


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _package(root: Path, name: str, text: str = "") -> None:
    d = root.joinpath(*name.split("."))
    d.mkdir(parents=True, exist_ok=True)
    (d / "__init__.py").write_text(text)


def _run(tmp_path: Path, *, present: set, java: str = "17.0.2", rscript_ok: bool = True, sdcmicro: bool = True,
         args: tuple = (), extra_env: dict | None = None) -> tuple[dict, list, list]:
    """Run the marked tests with the components in ``present``: ({test: (outcome, message)}, ran, checks)."""
    work = tmp_path / "run"
    work.mkdir()
    shutil.copy(HERE / "conftest.py", work / "conftest.py")
    shutil.copy(HERE / "_live.py", work / "_live.py")
    (work / "test_marked.py").write_text(MARKED)
    log = tmp_path / "checks.log"
    log.touch()
    bin_dir, site = tmp_path / "bin", tmp_path / "site"
    bin_dir.mkdir()
    site.mkdir()
    if "chromium" in present:
        _script(bin_dir / "chromium", "exit 0")
    if "java" in present:
        _script(bin_dir / "java", f'echo "java: checked" >> "{log}"; echo \'openjdk version "{java}" 2024-01-16\' >&2')
    if "Rscript" in present:
        _script(bin_dir / "Rscript", f'echo "Rscript $*" >> "{log}"; exit {0 if rscript_ok else 1}')
    blocked = 'raise ImportError("not installed (a stand-in of the test)")\n'
    for pkg in ("duckdb", "pyarrow", "pyspark", "rpy2"):
        _package(site, pkg, "" if pkg in present else blocked)
    _package(site, "pysdc")
    (site / "pysdc" / "r.py").write_text(PYSDC_R)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSDC_TEST_MISSING", "PYTEST_ADDOPTS")}
    env.update(PATH=str(bin_dir), PYTHONPATH=str(site), FAKE_LOG=str(log),
               FAKE_SDCMICRO="yes" if sdcmicro else "no", **(extra_env or {}))
    xml = tmp_path / "out.xml"
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(work),
                          f"--junitxml={xml}", *args, str(work / "test_marked.py")],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode in (0, 5), res.stdout[-3000:] + res.stderr[-3000:]
    out = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        skipped = case.find("skipped")
        failed = case.find("failure") if case.find("failure") is not None else case.find("error")
        if failed is not None:
            out[case.get("name")] = ("failed", failed.get("message"))
        elif skipped is not None:
            out[case.get("name")] = ("skipped", skipped.get("message"))
        else:
            out[case.get("name")] = ("passed", None)
    ran_file = work / "ran"
    ran = ran_file.read_text().split() if ran_file.exists() else []
    return out, ran, log.read_text().splitlines()


def test_every_component_present_runs_every_marked_test_and_checks_each_once(tmp_path):
    out, ran, checks = _run(tmp_path, present={"chromium", "java", "Rscript", "duckdb", "pyarrow", "pyspark", "rpy2"})
    assert {name: o for name, (o, _) in out.items()} == dict.fromkeys(out, "passed"), out
    assert len(out) == 9
    assert sorted(ran) == sorted(["plain", "chromium", "duckdb", "spark", "needs_r", "live", "live_again", "rscript",
                                  "rscript_haven"])
    # one check of R per question (without and with sdcMicro) for the whole session, Java once, Rscript once per
    # package set; the live test that runs through Rscript does not ask the bridge for sdcMicro
    assert checks.count("available sdcmicro=False") == 1 and checks.count("available sdcmicro=True") == 1, checks
    assert checks.count("java: checked") == 1
    assert sorted(c for c in checks if c.startswith("Rscript")) == [
        "Rscript -e library(haven)", "Rscript -e library(sdcMicro); library(jsonlite)"]


def test_every_component_missing_skips_with_what_is_missing_and_how_to_install_it(tmp_path):
    out, ran, checks = _run(tmp_path, present=set())
    assert ran == ["plain"]  # no marked test's body ran
    assert out["test_plain"] == ("passed", None)
    why = {name: msg for name, (o, msg) in out.items() if o == "skipped"}
    assert set(why) == set(out) - {"test_plain"}, out
    assert "Chromium" in why["test_chromium"] and "apt-get install chromium" in why["test_chromium"]
    assert "duckdb" in why["test_duckdb"] and "pysdc-measures[duckdb]" in why["test_duckdb"]
    assert "PySpark" in why["test_spark"] and "pysdc-measures[spark]" in why["test_spark"]
    for name in ("test_needs_r", "test_live", "test_live_again"):
        assert "rpy2 is not installed" in why[name] and "pysdc-measures[r]" in why[name], why[name]
    assert "Rscript not found" in why["test_rscript"] and "r-base-core" in why["test_rscript"]
    assert "Rscript not found" in why["test_rscript_without_sdcmicro"]
    assert checks == []  # rpy2 missing: R was never asked


def test_r_without_sdcmicro_runs_needs_r_and_skips_live_and_old_java_skips_spark(tmp_path):
    out, ran, _ = _run(tmp_path, present={"java", "Rscript", "duckdb", "pyarrow", "pyspark", "rpy2"},
                       java="11.0.2", rscript_ok=False, sdcmicro=False)
    assert out["test_needs_r"] == ("passed", None) and out["test_duckdb"] == ("passed", None)
    assert out["test_live"][0] == "skipped" and "sdcMicro" in out["test_live"][1]
    assert 'install.packages("sdcMicro")' in out["test_live"][1]
    assert out["test_rscript"][0] == "skipped" and "sdcMicro/jsonlite not installed" in out["test_rscript"][1]
    assert out["test_spark"][0] == "skipped" and "found Java 11" in out["test_spark"][1]
    assert "openjdk-17-jre-headless" in out["test_spark"][1]
    assert sorted(ran) == ["duckdb", "needs_r", "plain"]


def test_a_run_without_marked_tests_checks_nothing(tmp_path):
    """Lazy: with the R, Java and Rscript tests deselected, neither R, java nor Rscript is asked anything."""
    out, ran, checks = _run(tmp_path, present={"chromium", "java", "Rscript", "duckdb", "pyarrow", "pyspark", "rpy2"},
                            args=("-m", "not needs_r and not live and not rscript and not spark"))
    assert sorted(out) == ["test_chromium", "test_duckdb", "test_plain"]
    assert checks == []


def test_pysdc_test_missing_treats_a_present_component_as_missing(tmp_path):
    out, ran, checks = _run(tmp_path, present={"chromium", "java", "Rscript", "duckdb", "pyarrow", "pyspark", "rpy2"},
                            extra_env={"PYSDC_TEST_MISSING": "r,duckdb"})
    for name in ("test_needs_r", "test_live", "test_rscript", "test_rscript_without_sdcmicro", "test_duckdb"):
        assert out[name][0] == "skipped" and "PYSDC_TEST_MISSING=r,duckdb" in out[name][1], (name, out[name])
    assert out["test_chromium"] == ("passed", None) and out["test_spark"] == ("passed", None)
    assert not any(c.startswith(("available", "Rscript")) for c in checks)


@pytest.mark.parametrize("name", ["needs_r", "live", "rscript", "spark", "chromium", "duckdb"])
def test_markers_are_registered(pytestconfig, name):
    assert any(line.split(":")[0].split("(")[0] == name for line in pytestconfig.getini("markers"))


#: subpackages whose tests are cross-cutting, at tests/ itself: the registry (tests/test_common.py runs every entry,
#: tests/test_adding_a_measure.py), the result classes (tests/test_uniform_api.py)
CROSS_CUTTING = {"_registry", "_results"}


def test_the_test_tree_mirrors_the_package():
    """Every public subpackage of pysdc/ has its directory of tests, and no two test files share a basename
    (tests/ has no __init__.py: pytest would refuse the second one)."""
    pkg = HERE.parent / "pysdc"
    subpackages = {p.parent.name for p in pkg.glob("*/__init__.py")}
    assert {"risk", "loss", "r", "engine"} <= subpackages  # the glob sees the package
    missing = sorted(s for s in subpackages - CROSS_CUTTING if not (HERE / s).is_dir())
    assert not missing, f"no tests/<subpackage>/ for {missing}"
    names = [p.name for p in HERE.rglob("test_*.py")]
    assert len(names) > 50 and sorted({n for n in names if names.count(n) > 1}) == []
    assert not list(HERE.rglob("__init__.py"))
