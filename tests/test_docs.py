"""The README stays true: its name table is the one in pysdc/_registry.py, its first block holds two commands."""

import re
from pathlib import Path

import pysdc
from pysdc import _registry

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_name_table_is_generated_from_the_registry():
    text = README.read_text(encoding="utf-8")
    m = re.search(r"<!-- BEGIN NAME TABLE[^\n]*-->\n(.*?)<!-- END NAME TABLE -->", text, re.S)
    assert m, "README lost its name-table markers"
    assert m.group(1).strip() == _registry.markdown_table().strip(), (
        "README name table is stale: regenerate it from `python -m pysdc._registry`"
    )


def test_readme_starts_with_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```[a-z]*\n(.*?)```", text, re.S).group(1)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "--demo" in lines[0] and "pytest" in lines[1]


def test_name_table_covers_the_public_functions():
    public = {"d_utility", "il_correl", "il_variables", "freq_calc", "indiv_risk", "measure_risk", "ldiversity"}
    assert public <= {m.python for m in _registry.MEASURES}
    assert {m.python for m in _registry.MEASURES} <= set(pysdc.__all__)
    for m in _registry.MEASURES:
        assert getattr(pysdc, m.python) is m.native
    # the explicit exports and the registry agree exactly (no measure exported but unregistered)
    results = {m.result.__name__ for m in _registry.MEASURES if m.result.__module__.startswith("pysdc")}
    exported = {n for n in pysdc.__all__ if callable(getattr(pysdc, n))}
    exported_measures = {n for n in exported if n.islower() and not n.startswith("load_")}
    assert exported_measures == {m.python for m in _registry.MEASURES}
    assert results <= set(pysdc.__all__)


def test_import_does_not_start_r():
    import subprocess
    import sys

    code = "import sys, pysdc; assert not any(m.startswith('rpy2') for m in sys.modules), sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_native_example_runs(tmp_path, monkeypatch):
    blocks = [b for b in _python_blocks() if "pysdc.r" not in b]
    assert blocks, "README lost its native quick-start example"
    monkeypatch.chdir(tmp_path)  # files the examples write (report.html) land here
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_readme_bridge_example_runs():
    import pytest

    blocks = [b for b in _python_blocks() if "pysdc.r" in b]
    assert blocks, "README lost its bridge example"
    import pysdc.r

    avail = pysdc.r.available()
    if not avail:
        pytest.skip(f"the README's bridge example needs R with sdcMicro: {avail.reason}")
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
