"""Adding a measure touches the registry and its own files only (issue 25, "Done when").

What makes it possible, checked so that a hand list cannot come back unnoticed:

- ``pysdc`` exports every registry measure and result class, and ``pysdc/__init__.py`` names none of them in its code;
- the API references (docs/reference/api.md, api-r.md) list no measure or bridge wrapper by hand: their blocks are
  generated from the registries at build time, and the generators cover every entry, result class and wrapper;
- the README's measure list is the generated one (``python docs/_generate.py --readme``);
- the measures the problem assesses by their entry (``assess="linkage"``) are named nowhere in the code of the
  problem, the model, the renderers or the CLI: the JSON schema, the engines' skipped entries, the report's
  descriptions and the command's help follow the registry.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

import pysdc
from pysdc import _registry
from pysdc._registry import assessed

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "pysdc"


def _generate():
    spec = importlib.util.spec_from_file_location("_docs_generate", ROOT / "docs" / "_generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _code_words(path: Path) -> set[str]:
    """The identifiers and the words of the string literals of a module's code (docstrings and comments left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    words: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.alias):
            words.update((node.name.split(".")[-1], node.asname or ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.update(re.findall(r"\w+", node.value))
    return words


def test_the_package_exports_every_entry_without_naming_one():
    names = [m.python for m in _registry.MEASURES]
    results = [m.result.__name__ for m in _registry.MEASURES if m.result.__module__.startswith("pysdc")]
    for m in _registry.MEASURES:
        assert getattr(pysdc, m.python) is m.native
        assert f":func:`{m.python}`" in pysdc.__doc__
    assert set(names) | set(results) <= set(pysdc.__all__)
    named = _code_words(PKG / "__init__.py") & (set(names) | set(results))
    assert not named, f"pysdc/__init__.py names {sorted(named)}: its exports must come from the registry"


def test_the_api_reference_has_no_hand_list_of_measures():
    api = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    assert "<!-- pysdc:generate api-measures -->" in api
    names = {m.python for m in _registry.MEASURES}
    names |= {m.result.__name__ for m in _registry.MEASURES if m.result.__module__.startswith("pysdc")}
    by_hand = [n for n in re.findall(r"^::: pysdc\.(\w+)", api, re.M) if n in names]
    assert not by_hand, f"docs/reference/api.md lists {by_hand} by hand: they are generated from the registry"
    generated = _generate().api_measures()
    missing = [n for n in names if f"::: pysdc.{n}\n" not in generated]
    assert not missing, f"the generated API reference lacks {missing}"


def test_the_bridge_reference_has_no_hand_list_of_wrappers():
    from pysdc.r._measures import WRAPPERS
    from pysdc.r._methods import METHOD_WRAPPERS

    api = (ROOT / "docs" / "reference" / "api-r.md").read_text(encoding="utf-8")
    wrappers = {*WRAPPERS, *METHOD_WRAPPERS}
    by_hand = [n for n in re.findall(r"^::: pysdc\.r\.(\w+)", api, re.M) if n in wrappers]
    assert not by_hand, f"docs/reference/api-r.md lists {by_hand} by hand: they are generated from the registries"
    gen = _generate()
    generated = gen.api_r_measures() + "\n" + gen.api_r_methods() + "\n"
    assert all(f"::: pysdc.r.{n}\n" in generated for n in wrappers)
    assert {m.python for m in _registry.MEASURES if m.r and m.bridge} <= set(WRAPPERS)


def test_the_readme_catalogue_is_current():
    gen = _generate()
    text = gen.README.read_text(encoding="utf-8")
    assert gen.readme_catalogue(text) == text, "README.md's measure list is stale: run python docs/_generate.py --readme"
    for m in _registry.MEASURES:
        assert f"`{m.python}`" in text


# the code that assesses, models, renders and offers the measures by their entry
_GENERIC = [*sorted((PKG / "problem").glob("*.py")), *sorted((PKG / "report").glob("*.py")), PKG / "cli" / "risk.py",
            PKG / "_registry" / "__init__.py"]


@pytest.mark.parametrize("path", _GENERIC, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_assessed_measure_is_named_outside_the_registry(path):
    names = {m.python for m in assessed("linkage")}
    assert names, "the registry assesses no measure by its entry"
    named = _code_words(path) & names
    assert not named, f"{path.relative_to(ROOT)} names {sorted(named)} in its code: read them from the registry"


def test_the_model_the_schema_and_the_command_follow_the_registry():
    from pysdc.cli import build_parser
    from pysdc.problem import RISK_SCHEMA
    from pysdc.problem._model import engine_linkage
    from pysdc.report._info import LINKAGE_INFO

    names = [m.python for m in assessed("linkage")]
    linkage = RISK_SCHEMA["properties"]["linkage"]["properties"]["measures"]
    assert linkage["required"] == names
    assert list(engine_linkage("duckdb")["measures"]) == names
    assert list(LINKAGE_INFO) == names
    for m in assessed("linkage"):
        assert m.shows and m.shows[0].label, f"{m.python}: the first number it shows is its value, with a label"
        assert m.attacker and m.description and m.citation
    parser = build_parser(None)
    risk = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices["risk"]
    assert all(n in " ".join(risk.description.split()) for n in names)
