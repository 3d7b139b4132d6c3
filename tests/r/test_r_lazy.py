"""The bridge starts nothing at import, and fails clearly when R is missing."""

import json
import os
import subprocess
import sys

import pytest


def _run(code: str, env_extra=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_import_pysdc_and_bridge_loads_no_rpy2():
    code = (
        "import sys, json, pysdc, pysdc.r\n"
        "pysdc.r.SdcObj, pysdc.r.print, pysdc.r.formula, pysdc.r.dataset, pysdc.SdcProblem\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('rpy2'))))\n"
    )
    res = _run(code)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1]) == []


def test_bridge_objects_usable_without_r():
    # the handle/result classes are importable and usable with no R at all
    res = _run(
        "import sys, pysdc.r as pr\n"
        "a = pr.Availability(False, 'no R')\n"
        "assert not a and tuple(a) == (False, 'no R')\n"
        "assert 'rpy2' not in sys.modules\n"
    )
    assert res.returncode == 0, res.stderr


def test_missing_r_gives_clear_error_on_first_call():
    # needs rpy2 (without it the error is rpy2's install hint: test_missing_rpy2_gives_install_hint)
    pytest.importorskip("rpy2", reason="rpy2 is not installed (pip install 'pysdc-measures[r]')",
                        exc_type=ImportError)
    code = (
        "import pysdc, pysdc.r as pr\n"
        "ok, reason = pr.available()\n"
        "assert not ok\n"
        "for attempt in range(2):\n"
        "    try:\n"
        "        pr.call('sum', 1, package='base')\n"
        "    except pysdc.RNotAvailableError as e:\n"
        "        print('ERR', e)\n"
        "v = pr.versions()\n"
        "assert v['R'] is None and v['sdcMicro'] is None, v\n"
    )
    res = _run(code, {"R_HOME": "/nonexistent/pysdc-test-R"})
    assert res.returncode == 0, res.stderr
    errs = [line for line in res.stdout.splitlines() if line.startswith("ERR")]
    assert len(errs) == 2  # raised again on the next call, not a crash
    assert "apt-get install r-base-core" in errs[0] and "r-base" in errs[0]


def test_missing_rpy2_gives_install_hint():
    # make rpy2 unimportable in a subprocess
    code = (
        "import sys\n"
        "sys.modules['rpy2'] = None\n"
        "import pysdc, pysdc.r as pr\n"
        "try:\n"
        "    pr.d_utility([[1.0]], [[1.0]])\n"
        "except pysdc.RNotAvailableError as e:\n"
        "    print('ERR', e)\n"
        "except pysdc.InvalidParameterError:\n"
        "    pass\n"
        "try:\n"
        "    pr.call('sum', 1, package='base')\n"
        "except pysdc.RNotAvailableError as e:\n"
        "    print('ERR', e)\n"
    )
    res = _run(code)
    assert res.returncode == 0, res.stderr
    assert 'pip install "pysdc-measures[r]"' in res.stdout


@pytest.mark.needs_r
def test_first_call_starts_r_once():
    code = (
        "import sys, pysdc.r as pr\n"
        "ok, reason = pr.available(sdcmicro=False)\n"
        "if not ok:\n"
        "    print('SKIP', reason); raise SystemExit(0)\n"
        "assert 'rpy2.rinterface' in sys.modules\n"
        "from pysdc.r import _session\n"
        "ri1 = _session.start(); ri2 = _session.start()\n"
        "assert ri1 is ri2\n"
        "print('SUM', pr.call('sum', [1, 2, 3], package='base'))\n"
    )
    res = _run(code)
    assert res.returncode == 0, res.stderr
    if res.stdout.startswith("SKIP"):
        pytest.skip(f"R cannot start here: {res.stdout}")
    assert "SUM 6" in res.stdout


@pytest.mark.needs_r
def test_starting_r_leaves_subprocesses_working():
    code = (
        "import os, subprocess, sys, pysdc.r as pr\n"
        "before = os.environ.get('LD_LIBRARY_PATH')\n"
        "ok, reason = pr.available(sdcmicro=False)\n"
        "assert os.environ.get('LD_LIBRARY_PATH') == before\n"
        "r = subprocess.run([sys.executable, '-c', 'import numpy'], capture_output=True)\n"
        "print('CHILD', r.returncode, ok)\n"
    )
    res = _run(code)
    assert res.returncode == 0, res.stderr
    assert "CHILD 0" in res.stdout
