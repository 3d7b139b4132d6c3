"""The documentation's generated parts, made from the code at build time (an MkDocs hook).

A page asks for a generated part with a marker line ``<!-- pysdc:generate NAME -->``; the hook
:func:`on_page_markdown` replaces it with ``GENERATORS[NAME]()``:

- ``names``: the R <-> Python name table, ``pysdc._registry.markdown_table()`` verbatim;
- ``catalogue``: every registered measure by family, with its sdcMicro name, its first docstring line,
  its result and whether the R bridge runs it (from ``pysdc._registry.MEASURES``);
- ``api-r-measures`` / ``api-r-methods``: the API reference of ``pysdc.r``'s wrappers, one block each, as
  ``pysdc.r`` makes them from the registries (``pysdc.r._measures.WRAPPERS``, ``pysdc.r._methods.METHOD_WRAPPERS``);
- ``questions``: the rows of the question table (docs/measures.md) that registry entries declare
  (``Measure.question``), appended to the page's hand-written rows;
- ``api-measures``: the API reference's measures, one mkdocstrings block each, by the registry's groups
  (``pysdc._registry.GROUPS``), then their result classes (docs/reference/api.md: no hand list);
- ``divergences``: the known divergences from sdcMicro, ``r_reference/divergences.json``;
- ``cli``: the command-line reference, from the argparse parser ``pysdc.cli.build_parser``;
- ``methods``: the protection methods of ``pysdc.protect`` (the methods registry ``pysdc._registry._methods``);
- ``sdcmicro-exports``: every export of sdcMicro with pysdc's status (native / bridge-only / out of scope),
  from ``r_reference/outputs/sdcmicro_exports.json`` and ``pysdc._registry._exports``.

Nothing here is typed by hand, so nothing can go stale: the build reads the code it documents.
``python docs/_generate.py OUTDIR`` writes the parts as Markdown files for inspection;
``python docs/_generate.py --readme`` rewrites the README's measure list (between ``<!-- pysdc:catalogue -->``
and ``<!-- /pysdc:catalogue -->``) from the registry (``pysdc._registry.catalogue_markdown``);
tests/test_adding_a_measure.py checks that the committed README is current.

The hook also turns the Sphinx roles of pysdc's numpydoc docstrings (``:func:`x```, ``:class:`x```,
...), which Markdown does not know, into code spans.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- pysdc:generate ([a-z-]+) -->$", re.M)
_FAMILY_TITLES = {"loss": "Information loss and utility", "risk": "Disclosure risk"}


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def names() -> str:
    from pysdc import _registry

    return _registry.markdown_table()


def _summary(fn) -> str:
    doc = (getattr(fn, "__doc__", None) or "").strip()
    first = doc.split("\n\n")[0] if doc else ""
    return _cell(first)


def catalogue() -> str:
    from pysdc import _registry

    out = []
    for family in dict.fromkeys(m.family for m in _registry.MEASURES):
        out += [f"### {_FAMILY_TITLES.get(family, family)}", "",
                "| pysdc | sdcMicro | what it computes | result | R bridge |", "|---|---|---|---|---|"]
        for m in (m for m in _registry.MEASURES if m.family == family):
            r = f"`{m.r}`" if m.r else "—"
            bridge = f"`pysdc.r.{m.python}`" if (m.r and m.bridge) else "native only"
            result = m.result.__name__
            result = f"[`{result}`][pysdc.{result}]" if m.result.__module__.startswith("pysdc") else f"`{result}`"
            out.append(f"| [`pysdc.{m.python}`][pysdc.{m.python}] | {r} | {_summary(m.native)} | {result} | {bridge} |")
        out.append("")
    notes = [m for m in _registry.MEASURES if m.r and m.notes]
    if notes:
        out += ["### What to know about each sdcMicro measure (the registry's notes)", ""]
        out += [f"- `{m.python}` (`{m.r}`): {' '.join(m.notes.split())}" for m in notes]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def questions() -> str:
    from pysdc import _registry

    return "\n".join("| " + " | ".join(_cell(c) for c in m.question) + " |" for m in _registry.MEASURES if m.question)


def _api_block(name: str) -> list[str]:
    return [f"::: {name}", "    options:", "      heading_level: 3", ""]


def api_measures() -> str:
    from pysdc import _registry

    out = []
    for title, entries in _registry.GROUPS:
        out += [f"## {title}", ""]
        for m in entries:
            out += _api_block(f"pysdc.{m.python}")
    results = [n for n in _registry.public_names() if not n.islower()]
    out += ["## Result classes of the measures", ""]
    for n in results:
        out += _api_block(f"pysdc.{n}")
    return "\n".join(out)


def api_r_measures() -> str:
    from pysdc.r._measures import WRAPPERS

    return "\n".join(line for n in WRAPPERS for line in _api_block(f"pysdc.r.{n}"))


def api_r_methods() -> str:
    from pysdc.r._methods import METHOD_WRAPPERS

    return "\n".join(line for n in METHOD_WRAPPERS for line in _api_block(f"pysdc.r.{n}"))


def divergences() -> str:
    data = json.loads((ROOT / "r_reference" / "divergences.json").read_text(encoding="utf-8"))
    out = [_cell(data.get("about", "")), ""]
    by_fun: dict[str, list] = {}
    for d in data["divergences"]:
        by_fun.setdefault(d["case"].split(":")[0], []).append(d)
    for fun, items in by_fun.items():
        out += [f"### `{fun}`", "", "| case | applies to | reason |", "|---|---|---|"]
        out += [f"| `{_cell(d['case'])}` | {d['applies_to']} | {_cell(d['reason'])} |" for d in items]
        out.append("")
    out.append(f"{len(data['divergences'])} entries in `r_reference/divergences.json`.")
    return "\n".join(out) + "\n"


def _subparsers(parser: argparse.ArgumentParser) -> dict:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in a._choices_actions}
            return {name: (sp, helps.get(name, "")) for name, sp in a.choices.items()}
    return {}


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    fmt = parser._get_formatter()
    rows = ["| argument | value | default | meaning |", "|---|---|---|---|"]
    for a in parser._actions:
        if a.help == argparse.SUPPRESS or isinstance(a, argparse._HelpAction):
            continue
        name = ", ".join(f"`{o}`" for o in a.option_strings) or f"`{a.metavar or a.dest}` (positional)"
        if a.option_strings and a.nargs != 0:
            metavar = fmt._format_args(a, a.dest.upper())
        else:
            metavar = ""
        if a.choices is not None and not isinstance(a, argparse._SubParsersAction):
            metavar = "{" + ",".join(map(str, a.choices)) + "}"
        default = a.default
        if default is None or default is False or default == [] or (isinstance(default, str) and default == argparse.SUPPRESS):
            default = ""
        help_text = fmt._expand_help(a) if a.help else ""
        rows.append(f"| {name} | {_cell(f'`{metavar}`') if metavar else ''} | "
                    f"{_cell(f'`{default}`') if default != '' else ''} | {_cell(help_text)} |")
    return rows


def cli() -> str:
    import os

    from pysdc import cli as pcli

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps --help to the terminal: fix the width
    try:
        parser = pcli.build_parser(pcli._parity_module())
        out = ["Generated from the argument parser (`pysdc.cli.build_parser`); what `pysdc COMMAND --help` prints.",
               "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, (sp, help_text) in _subparsers(parser).items():
            out += [f"## `pysdc {name}`", "", _cell(help_text or sp.description or ""), ""]
            out += ["```text", sp.format_usage().rstrip(), "```", ""]
            if sp.description:
                out += [_cell(sp.description), ""]
            out += _option_rows(sp)
            if sp.epilog:
                out += ["", "```text", sp.epilog.strip(), "```"]
            out.append("")
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns
    return "\n".join(out)


def _stored_cases(function: str) -> str:
    path = ROOT / "r_reference" / "outputs" / f"{function}.json"
    if not path.is_file():
        return "—"
    return str(len(json.loads(path.read_text(encoding="utf-8")).get("cases", ())))


def sdcmicro_exports() -> str:
    from pysdc._registry._exports import STATUSES, export_table, load_exports

    exports, header = load_exports(ROOT / "r_reference" / "outputs" / "sdcmicro_exports.json")
    rows = export_table(exports)
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    out = [f"sdcMicro {header['sdcmicro_version']} exports {len(rows)} names (`getNamespaceExports(\"sdcMicro\")`, "
           f"listed {header['date']} by `r_reference/{header['script']}`): "
           + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".", ""]
    for status in STATUSES:
        native = status == "native"
        out += [f"### {status.capitalize()}", "",
                "| sdcMicro | pysdc | stored parity cases | note |" if native else "| sdcMicro | pysdc | note |",
                "|---|---|---:|---|" if native else "|---|---|---|"]
        for r in (r for r in rows if r["status"] == status):
            via = f"`{r['pysdc']}`" if r["pysdc"] else "—"
            cases = f" {_stored_cases(r['export'])} |" if native else ""
            out.append(f"| `{_cell(r['export'])}` | {via} |{cases} {_cell(r['note'])} |")
        out.append("")
    from pysdc._registry._exports import NOT_EXPORTED

    if NOT_EXPORTED:
        out += ["### Native, not exported by this sdcMicro", "", "| sdcMicro | pysdc | note |", "|---|---|---|"]
        from pysdc._registry._exports import NATIVE

        out += [f"| `{n}` | `{NATIVE[n]}` | {_cell(why)} ({_stored_cases(n)} stored parity cases) |"
                for n, why in NOT_EXPORTED.items()]
        out.append("")
    return "\n".join(out)


def methods() -> str:
    from pysdc._registry._methods import METHODS

    out = ["| pysdc | sdcMicro | family | R bridge |", "|---|---|---|---|"]
    out += [f"| [`{m.python}`][pysdc.protect.{m.python}] | `{m.r}` | {m.family} | "
            f"{f'`pysdc.r.{m.python}`' if m.bridge else 'native only'} |" for m in METHODS]
    return "\n".join(out) + "\n"


GENERATORS = {"names": names, "catalogue": catalogue, "api-measures": api_measures, "api-r-measures": api_r_measures,
              "api-r-methods": api_r_methods, "questions": questions, "divergences": divergences, "cli": cli,
              "sdcmicro-exports": sdcmicro_exports, "methods": methods}


def expand(markdown: str) -> str:
    """``markdown`` with every generation marker replaced by its generated part."""

    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            raise KeyError(f"unknown generated part {name!r} (known: {', '.join(GENERATORS)})")
        return GENERATORS[name]().rstrip("\n")

    return MARKER.sub(repl, markdown)


# ---------------------------------------------------------------------------------------------- MkDocs hooks
_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|obj|exc):<code>~?([^<]*)</code>")


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 - MkDocs' hook signature
    return expand(markdown)


def on_page_content(html, page, config, files):  # noqa: ARG001 - MkDocs' hook signature
    # numpydoc docstrings use Sphinx roles (:func:`x`); Markdown renders them as ":func:<code>x</code>"
    return _ROLE.sub(r"<code>\1</code>", html)


README = ROOT / "README.md"
_README_BLOCK = re.compile(r"(<!-- pysdc:catalogue -->\n)(.*?)(<!-- /pysdc:catalogue -->)", re.S)


def readme_catalogue(text: str) -> str:
    """The README ``text`` with its measure list regenerated from the registry."""
    from pysdc import _registry

    block = "\n".join("  " + line for line in _registry.catalogue_markdown().splitlines()) + "\n"
    if not _README_BLOCK.search(text):
        raise ValueError("the README has no <!-- pysdc:catalogue --> ... <!-- /pysdc:catalogue --> block")
    return _README_BLOCK.sub(lambda m: m.group(1) + block + m.group(3), text, count=1)


def write_readme(path: Path = README) -> bool:
    """Regenerate the README's measure list in place (a temporary file beside it, then a rename); whether it changed."""
    old = path.read_text(encoding="utf-8")
    new = readme_catalogue(old)
    if new == old:
        return False
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(new, encoding="utf-8")
    tmp.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--readme"]:
        print("README.md " + ("updated" if write_readme() else "already current"))
        return 0
    if len(argv) != 1:
        print("usage: python docs/_generate.py OUTDIR | --readme", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, gen in GENERATORS.items():
        (out / f"{name}.md").write_text(gen(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
