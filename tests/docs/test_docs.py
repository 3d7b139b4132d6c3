"""The README and the docs stay true.

The README is short (<= 10 KB) and starts with the two set-up commands; its Python blocks run. The docs' name table,
measure catalogue, divergences and CLI reference are generated from the code when the docs are built
(docs/_generate.py, an MkDocs hook): the name table is the one in pysdc/_registry; every registered measure is in the
question table; every ```python block of the docs runs (```py blocks are illustrations: files, clusters).
tests/docs/test_docs_build.py builds the site in strict mode.
"""

import importlib.util
import re
from pathlib import Path

import pytest

import pysdc
from pysdc import _registry

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("_pysdc_docs_generate", DOCS / "_generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_name_table_is_generated_from_the_registry():
    page = (DOCS / "reference" / "names.md").read_text(encoding="utf-8")
    assert "<!-- pysdc:generate names -->" in page, "docs/reference/names.md lost its generation marker"
    expanded = _generator().expand(page)
    assert _registry.markdown_table().strip() in expanded
    assert "<!-- pysdc:generate" not in expanded
    # every sdcMicro name and every Python name is in the table
    for m in _registry.MEASURES:
        assert f"`pysdc.{m.python}`" in expanded
        if m.r:
            assert f"`{m.r}`" in expanded


def test_unknown_generated_part_is_an_error():
    with pytest.raises(KeyError, match="unknown generated part"):
        _generator().expand("<!-- pysdc:generate no-such-part -->\n")


def test_every_registered_measure_answers_a_question():
    # the hand-written rows and those the registry entries declare (Measure.question, generated part "questions")
    page = _generator().expand((DOCS / "measures.md").read_text(encoding="utf-8")) + "\n\n"
    table = page[page.index("| Question |"):page.index("\n\n", page.index("| Question |"))]
    named = set(re.findall(r"`(?:pysdc\.)?([a-z_0-9]+)[(`]", table))
    missing = {m.python for m in _registry.MEASURES} - named
    assert not missing, f"docs/measures.md's question table does not name {sorted(missing)}"


def test_readme_is_short_and_links_to_existing_docs():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 10_000, "the README must stay <= 10 KB: move details to docs/"
    links = re.findall(r"\]\(((?:docs|parity_reports)/[^)#]+)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        assert (ROOT / link).is_file(), f"README links to {link}, which does not exist"


def test_readme_starts_with_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```[a-z]*\n(.*?)```", text, re.S).group(1)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "--demo" in lines[0] and "pytest" in lines[1]


def test_install_page_shows_the_readme_setup_commands():
    first = re.search(r"```[a-z]*\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    assert f"```sh\n{first}```" in (DOCS / "install.md").read_text(encoding="utf-8"), (
        "docs/install.md must show the README's first block as it is"
    )


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
    blocks = [b for b in _python_blocks() if "pysdc.r" in b]
    assert blocks, "README lost its bridge example"
    import pysdc.r

    avail = pysdc.r.available()
    if not avail:
        pytest.skip(f"the README's bridge example needs R with sdcMicro: {avail.reason}")
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def _doc_blocks():
    for page in sorted(DOCS.rglob("*.md")):
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            yield page.relative_to(ROOT).as_posix(), block


def test_docs_native_examples_run(tmp_path, monkeypatch):
    blocks = [(p, b) for p, b in _doc_blocks() if "pysdc.r" not in b]
    pages = {p for p, _ in blocks}
    assert {"docs/migration.md", "docs/problem.md", "docs/utility-checks.md"} <= pages
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    pytest.importorskip("matplotlib")  # docs/utility-checks.md draws plots
    import matplotlib

    matplotlib.use("Agg")
    for page, block in blocks:
        exec(compile(block, page, "exec"), {})
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_docs_bridge_examples_run():
    blocks = [(p, b) for p, b in _doc_blocks() if "pysdc.r" in b]
    assert "docs/bridge.md" in {p for p, _ in blocks}
    import pysdc.r

    avail = pysdc.r.available()
    if not avail:
        pytest.skip(f"the docs' bridge examples need R with sdcMicro: {avail.reason}")
    for page, block in blocks:
        exec(compile(block, page, "exec"), {})
