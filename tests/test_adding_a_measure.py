"""Adding a measure touches the registry and its own files only (issue 25, "Done when").

What makes it possible, checked so that a hand list cannot come back unnoticed:

- ``pysdc`` exports every registry measure and result class, and ``pysdc/__init__.py`` names none of them in its code;
- the API references (docs/reference/api.md, api-r.md) list no measure or bridge wrapper by hand: their blocks are
  generated from the registries at build time, and the generators cover every entry, result class and wrapper;
- the README's measure list is the generated one (``python docs/_generate.py --readme``);
- the measures the problem assesses by their entry (``assess="linkage"``, ``assess="utility"``) are named nowhere in
  the code of the problem, the model, the renderers or the CLI (but for the few roles a measure has beyond joining,
  listed in ``_DEDICATED`` with why): the JSON schema, the engines' skipped entries, the report's descriptions and
  the command's help follow the registry;
- every ``assess="utility"`` entry is computed by ``SdcProblem.utility`` exactly as its function on the variables its
  entry names, and its numbers reach the model, the text and the HTML report;
- ``pysdc.risk`` and ``pysdc.loss`` export exactly the registry's measures that live in them (the registry sits above
  them, so it cannot write their lists: this test holds them to it).
"""

from __future__ import annotations

import ast
import html as html_lib
import importlib
import importlib.util
import re
import warnings
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
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


# ------------------------------------------------------------------------------------------- the utility side

_GENERIC_UTILITY = [*sorted((PKG / "problem").glob("*.py")), *sorted((PKG / "report").glob("*.py")),
                    PKG / "cli" / "utility.py", PKG / "cli" / "report.py", PKG / "_registry" / "__init__.py"]

#: the roles a utility measure has beyond joining the assessment, where the code may name it (a new measure has none)
_DEDICATED = {
    "pysdc/report/_html_verdict.py": {"gsil": "the verdict's information-loss band is GSIL's"},
    "pysdc/report/_html.py": {"gsil": "the note on GSIL's band under the utility table",
                              "hellinger": "the bar chart of il_variables with the Hellinger distances",
                              "il_entropy": "the bar chart of the shares changed with the entropy losses"},
    "pysdc/report/_html_base.py": {
        **dict.fromkeys(("il_continuous", "il_categorical", "hellinger", "gsil", "il_entropy"),
                        "the function names a warning's message starts with, and the values that cannot be negative")},
}


@pytest.mark.parametrize("path", _GENERIC_UTILITY, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_utility_measure_is_named_outside_the_registry(path):
    names = {m.python for m in assessed("utility")}
    assert names, "the registry assesses no measure as 'utility'"
    named = _code_words(path) & names
    allowed = set(_DEDICATED.get(str(path.relative_to(ROOT)), {}))
    assert not named - allowed, (f"{path.relative_to(ROOT)} names {sorted(named - allowed)} in its code: read them "
                                 "from the registry")


def test_the_utility_model_the_schema_and_the_command_follow_the_registry():
    from pysdc.cli import build_parser
    from pysdc.problem import UTILITY_SCHEMA
    from pysdc.problem._model import engine_utility_model
    from pysdc.report._info import LITERATURE_INFO

    names = [m.python for m in assessed("utility")]
    lit = UTILITY_SCHEMA["properties"]["literature"]["properties"]["measures"]
    assert lit["required"] == names
    variables = {"numeric": ["a"], "categorical": [], "il_variables": [], "scales": {}, "left_out": []}
    eng = engine_utility_model({}, variables=variables, engine="duckdb", n_x=1, n_xm=1, cols_x=1, cols_xm=1)
    assert list(eng["literature"]["measures"]) == names
    assert all(e["status"] == "skipped" for e in eng["literature"]["measures"].values())
    assert list(LITERATURE_INFO) == names
    for m in assessed("utility"):
        assert m.shows and m.shows[0].label, f"{m.python}: the first number it shows is its value, with a label"
        assert m.description and m.citation and m.family in ("loss", "risk")
    parser = build_parser(None)
    utility = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices["utility"]
    assert all(n in " ".join(utility.description.split()) for n in names)


def _mixed(n=80, seed=5):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"k": pd.Categorical(rng.choice(["a", "b", "c"], n)),
                      "t": pd.Categorical(rng.choice(["p", "q"], n)),
                      "inc": np.round(rng.lognormal(7.0, 0.8, n), 2), "exp": np.round(rng.lognormal(6.0, 0.5, n), 2)})
    xm = x.copy()
    xm["inc"] = np.round(x["inc"] * rng.normal(1.0, 0.05, n), 2)
    xm["exp"] = np.round(x["exp"] * rng.normal(1.0, 0.05, n), 2)
    xm.loc[:9, "k"] = "a"
    return x, xm


def test_every_utility_entry_joins_the_problem_the_model_and_the_reports():
    from pysdc import SdcProblem
    from pysdc.problem import UTILITY_SCHEMA, html_report
    from pysdc.report import utility_text

    x, xm = _mixed()
    p = SdcProblem(x, ["k", "t"], num_vars=["inc", "exp"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = p.utility(xm)
        doc = html_lib.unescape(html_report(p, xm, plots=False, random_state=1))
    model = u.to_dict()
    jsonschema.validate(model, UTILITY_SCHEMA)
    text = utility_text(model)
    cols = {"numeric": ["inc", "exp"], "categorical": ["k", "t"], "both": ["inc", "exp", "k", "t"]}
    for m in assessed("utility"):
        use = cols[m.compares]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            direct = m.native(x[use], xm[use])
        entry = model["literature"]["measures"][m.python]
        assert entry["status"] == "ok", (m.python, entry)
        assert {k: entry[k] for k in ("value", *(s.key for s in m.shows))} == m.model_entry(direct)
        for s in m.shows:
            if s.label:
                label = s.label.format(key=use[0]) if s.fmt == "map" else s.label.format(**entry)
                assert label in text, (m.python, label)
            if s.column:
                assert s.column in u.per_variable().columns
        assert f"{m.python} (literature, not sdcMicro)" in text
        assert m.description in doc


@pytest.mark.parametrize("package", ["pysdc.risk", "pysdc.loss"])
def test_the_subpackages_export_the_registry_measures_they_hold(package):
    mod = importlib.import_module(package)
    want = set()
    for m in _registry.MEASURES:
        if m.native.__module__.startswith(package + "."):
            want.add(m.python)
            if isinstance(m.result, type) and m.result.__module__.startswith(package + "."):
                want.add(m.result.__name__)
    assert set(mod.__all__) == want, (f"{package}.__all__ lacks {sorted(want - set(mod.__all__))}, has "
                                      f"{sorted(set(mod.__all__) - want)} beyond the registry")
    for name in want:
        assert getattr(mod, name) is getattr(pysdc, name)
