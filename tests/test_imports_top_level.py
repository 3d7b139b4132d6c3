"""Imports of pysdc's own modules sit at module level (issue 25: "imports inside functions only for optional
dependencies"); the few that must stay inside a function are listed below, each with its reason."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pysdc"

#: (file under pysdc/, function, imported pysdc module) -> why the import stays inside the function
ALLOWED = {
    # an optional command: a missing or broken parity module must not break the other commands
    # (tests/cli/test_cli.py replaces it)
    ("cli/__init__.py", "_parity_module", "pysdc.cli.parity"): "optional",
    # the converters import rpy2 at their top: `import pysdc` / `import pysdc.r` must not (tests/r/test_r_lazy.py),
    # and rpy2 is loaded only by _runtime.start(), which turns a missing R into RNotAvailableError
    ("r/__init__.py", "formula", "pysdc.r._convert_to_py"): "rpy2",
    ("r/_session.py", "_arg_to_r", "pysdc.r._convert_to_r"): "rpy2",
    ("r/_session.py", "call", "pysdc.r._convert_to_py"): "rpy2",
    ("r/_session.py", "to_python", "pysdc.r._convert_to_py"): "rpy2",
    # pysdc.r imports _measures to build its wrappers; the registry's to_r/from_r hooks are given the finished
    # package (pysdc.r) at call time
    ("r/_measures.py", "run", "pysdc.r"): "cycle",
}


def _module_of(node, package: str) -> list:
    """The pysdc modules an Import/ImportFrom node names (relative ones resolved against ``package``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name == "pysdc" or a.name.startswith("pysdc.")]
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
    elif node.module == "pysdc" or (node.module or "").startswith("pysdc."):
        base = node.module
    else:
        return []
    if node.module:  # from .x import y: the module x (y may be a submodule; x is imported either way)
        return [base]
    return [f"{base}.{a.name}" for a in node.names]  # from . import y: the submodule y


def function_level_imports(source: str, package: str, name: str = "<source>") -> set:
    """(name, function, module) for every import of a pysdc module inside a function of ``source``."""
    found = set()

    def visit(node, func):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name)
                continue
            if func is not None and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.update((name, func, m) for m in _module_of(child, package))
            visit(child, func)

    visit(ast.parse(source), None)
    return found


def _package_imports() -> set:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        parts = ["pysdc", *path.relative_to(PACKAGE).parent.parts]
        found |= function_level_imports(path.read_text(encoding="utf-8"), ".".join(parts), rel)
    return found


def test_scanner_finds_function_level_imports_of_pysdc_only():
    src = (
        "import pysdc.io\n"
        "from . import _top\n"
        "def f():\n"
        "    from ._names import did_you_mean\n"
        "    import pysdc.r\n"
        "    import duckdb\n"
        "    from .. import io\n"
        "    class C:\n"
        "        def g(self):\n"
        "            from pysdc._errors import PysdcError\n"
    )
    assert function_level_imports(src, "pysdc.cli", "x.py") == {
        ("x.py", "f", "pysdc.cli._names"),
        ("x.py", "f", "pysdc.r"),
        ("x.py", "f", "pysdc.io"),
        ("x.py", "g", "pysdc._errors"),
    }


def test_no_function_level_import_of_a_pysdc_module_outside_the_allow_list():
    extra = sorted(_package_imports() - set(ALLOWED))
    assert not extra, ("imports of pysdc modules inside functions (move them to module level; if one cannot move, "
                       "add it to ALLOWED with its reason): " + "; ".join(f"{f}:{fn} imports {m}" for f, fn, m in extra))


def test_the_allow_list_has_no_stale_entries():
    assert not sorted(set(ALLOWED) - _package_imports())


@pytest.mark.parametrize("key", [k for k, why in ALLOWED.items() if why == "rpy2"], ids=lambda k: f"{k[0]}:{k[1]}")
def test_allowed_rpy2_imports_do_import_rpy2(key):
    """The reason given holds: the module imported inside the function imports rpy2 at its top."""
    target = PACKAGE.joinpath(*key[2].split(".")[1:]).with_suffix(".py")
    tree = ast.parse(target.read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert any(m == "rpy2" or m.startswith("rpy2.") for m in names), target
