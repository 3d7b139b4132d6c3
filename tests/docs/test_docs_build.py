"""The documentation builds in strict mode (every warning an error), offline, and holds what is generated from the code.

One build (``mkdocs build --strict``, as CI would run it) into a temporary directory, shared by the checks below:
the API reference documents every public name of ``pysdc`` and ``pysdc.r``; the name table, the measure catalogue,
the divergences and the CLI reference are generated from the registry, ``r_reference/divergences.json`` and the
argparse parser (no generation marker is left); nothing is fetched from the network while building.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pysdc
from pysdc import _registry

pytest.importorskip("mkdocs", reason="the docs tools are in the test extra: pip install '.[test]'")
pytest.importorskip("mkdocstrings")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ)
    # offline: any attempt to fetch something (an inventory, a font, a plugin's download) goes to a dead proxy
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        env[var] = "http://127.0.0.1:9"
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    log = proc.stdout + proc.stderr
    assert "WARNING" not in log, log
    return out


def _text(site: Path, page: str) -> str:
    path = site / page
    assert path.is_file(), f"{page} was not built"
    return html.unescape(path.read_text(encoding="utf-8"))


def test_site_has_every_page(site):
    for page in ("index.html", "install.html", "measures.html", "problem.html", "utility-checks.html", "cli.html",
                 "engines.html", "bridge.html", "migration.html", "sdcmicro.html", "parity.html", "development.html",
                 "reference/names.html", "reference/divergences.html", "reference/cli.html", "reference/api.html",
                 "reference/api-r.html", "reference/api-protect.html", "reference/sdcmicro-exports.html"):
        _text(site, page)
        raw = (site / page).read_text(encoding="utf-8")  # an unexpanded marker stays an HTML comment
        assert "<!-- pysdc:generate" not in raw, f"{page} kept a generation marker"


def _ids(text: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', text))


def test_api_reference_documents_every_public_name(site):
    ids = _ids(_text(site, "reference/api.html"))
    missing = [n for n in pysdc.__all__ if n != "__version__" and f"pysdc.{n}" not in ids]
    assert not missing, f"reference/api.html lacks {missing}"
    import pysdc.r as bridge

    ids_r = _ids(_text(site, "reference/api-r.html"))
    missing = [n for n in [*bridge.__all__, "print"] if f"pysdc.r.{n}" not in ids_r]
    assert not missing, f"reference/api-r.html lacks {missing}"

    import pysdc.protect as protect

    # the methods are documented with their guide (protection.html), their result classes on api-protect.html
    ids_p = _ids(_text(site, "reference/api-protect.html")) | _ids(_text(site, "protection.html"))
    missing = [n for n in protect.__all__ if f"pysdc.protect.{n}" not in ids_p]
    assert not missing, f"the docs lack pysdc.protect's {missing}"
    api_protect = _text(site, "reference/api-protect.html")
    for n in protect.__all__:
        if not n[0].isupper():  # each method is in the page's table, linked to its documentation
            assert f"protection.html#pysdc.protect.{n}" in api_protect, n


def test_api_reference_renders_numpydoc_sections(site):
    text = _text(site, "reference/api.html")
    start = text.index('id="pysdc.measure_risk"')
    section = text[start:start + 40_000]
    for word in ("Parameters:", "Returns:", "key_vars", "max_global_risk"):
        assert word in section, word
    # the docstrings' Sphinx roles (:func:`x`) are rendered as code, not left as markup
    assert ":func:<code>" not in text and ":class:<code>" not in text


def test_name_table_is_generated_from_the_registry(site):
    text = _text(site, "reference/names.html")
    for m in _registry.MEASURES:
        assert f"pysdc.{m.python}" in text
        if m.r:
            assert f"<code>{m.r}</code>" in text
            for py, r in m.arguments.items():
                assert f"<code>{py}</code>" in text
                if r:
                    assert f"<code>{r}</code>" in text


def test_measure_catalogue_is_generated_and_links_to_the_api(site):
    text = _text(site, "measures.html")
    for m in _registry.MEASURES:
        assert f'href="reference/api.html#pysdc.{m.python}"' in text, m.python
        summary = (m.native.__doc__ or "").strip().split("\n\n")[0].split("``")[0].split("\n")[0]
        assert html.unescape(summary.strip()) in text, summary


def test_divergences_are_generated_from_the_json(site):
    text = _text(site, "reference/divergences.html")
    entries = json.loads((ROOT / "r_reference" / "divergences.json").read_text(encoding="utf-8"))["divergences"]
    assert entries
    for d in entries:
        assert d["case"] in text
        assert " ".join(d["reason"].split())[:60] in " ".join(text.split())


def test_cli_reference_is_generated_from_the_parser(site):
    from pysdc import cli

    text = _text(site, "reference/cli.html")
    parser = cli.build_parser(cli._parity_module())
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {"utility", "risk", "report", "parity"}
    for name, sp in sub.choices.items():
        assert f"pysdc {name}" in text
        for action in sp._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            for opt in action.option_strings:
                assert f"<code>{opt}</code>" in text, f"pysdc {name} {opt} is missing from the CLI reference"
