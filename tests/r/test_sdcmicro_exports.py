"""Every export of sdcMicro 5.8.0 has a status in pysdc: native, bridge-only, or out of scope with the reason.

The export list is sdcMicro's own (r_reference/outputs/sdcmicro_exports.json, by generate_sdcmicro_exports.R);
the statuses are pysdc/_registry/_exports.py (native ones from the two registries). A new sdcMicro export, an entry
for a name sdcMicro does not export, or a pysdc name that no longer exists fails here.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pysdc._registry import MEASURES
from pysdc._registry._exports import (
    NATIVE,
    NOT_EXPORTED,
    NOT_NATIVE,
    STATUSES,
    export_table,
    load_exports,
)
from pysdc._registry._methods import METHODS

ROOT = Path(__file__).resolve().parents[2]
EXPORTS, HEADER = load_exports(ROOT / "r_reference" / "outputs" / "sdcmicro_exports.json")
NAMESPACE = Path("/opt/rsrc/sdcMicro/NAMESPACE")


def _resolve(dotted: str):
    """The object at ``pysdc.a.b.C.d``: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ModuleNotFoundError(dotted)


def test_the_list_is_sdcmicro_580s():
    assert HEADER["sdcmicro_version"] == "5.8.0"
    assert "do not edit" in HEADER["generated"] and (ROOT / "r_reference" / HEADER["script"]).is_file()
    assert len(EXPORTS) == len(set(EXPORTS)) >= 60
    assert {"createSdcObj", "localSuppression", "microaggregation", "sdcApp", "undolast"} <= set(EXPORTS)


def test_every_export_has_exactly_one_status():
    rows = export_table(EXPORTS)
    assert [r["export"] for r in rows] == EXPORTS
    assert not set(NATIVE) & set(NOT_NATIVE), "native and not native at once"
    assert {r["status"] for r in rows} <= set(STATUSES)
    for r in rows:
        if r["status"] != "native":
            assert r["note"].strip(), f"{r['export']}: a {r['status']} export needs its reason"
    assert next(r for r in rows if r["export"] == "sdcApp")["status"] == "out of scope"


def test_an_unknown_export_has_no_status():
    with pytest.raises(KeyError):
        export_table([*EXPORTS, "brandNewSdcMicroFunction"])


def test_no_status_for_a_name_sdcmicro_does_not_export():
    assert set(NOT_NATIVE) <= set(EXPORTS), set(NOT_NATIVE) - set(EXPORTS)
    assert set(NATIVE) - set(EXPORTS) == set(NOT_EXPORTED), "a registry's sdcMicro name sdcMicro 5.8.0 lacks"
    assert not set(NOT_EXPORTED) & set(EXPORTS)


def test_native_entries_are_the_registries():
    assert {m.r for m in METHODS} <= set(NATIVE) and {m.r for m in MEASURES if m.r} <= set(NATIVE)
    for m in METHODS:
        assert _resolve(NATIVE[m.r]) is m.native
    for m in MEASURES:
        if m.r:
            assert _resolve(NATIVE[m.r]) is m.native


def test_every_named_pysdc_path_exists():
    """Importing pysdc.r starts no R: the bridge's functions and SdcObj's methods are plain attributes."""
    for name, (_status, via, _why) in NOT_NATIVE.items():
        if via:
            assert via.startswith("pysdc."), name
            _resolve(via)  # AttributeError / ModuleNotFoundError: renamed


def test_the_stored_list_is_the_namespace_file():
    if not NAMESPACE.is_file():
        pytest.skip(f"sdcMicro's sources are not at {NAMESPACE}")
    text = NAMESPACE.read_text(encoding="utf-8")
    plain = {m.strip('"') for m in re.findall(r"^export\(([^)]*)\)$", text, re.M)}
    generics = {m.strip('"') for m in re.findall(r"^exportMethods\(([^)]*)\)$", text, re.M)}
    assert plain and plain <= set(EXPORTS)
    # the rest: the S4 generics' names and R's metadata objects of the class and its method tables
    rest = set(EXPORTS) - plain
    assert {n for n in rest if not n.startswith(".__")} <= generics, rest
    assert all(NOT_NATIVE[n][0] == "out of scope" for n in rest if n.startswith(".__"))


@pytest.mark.live
@pytest.mark.rscript
def test_the_stored_list_is_the_installed_sdcmicros():
    proc = subprocess.run(["Rscript", "-e", 'if (as.character(packageVersion("sdcMicro")) != "5.8.0") quit(status = 3);'
                           'cat(getNamespaceExports("sdcMicro"), sep = "\\n")'], capture_output=True, text=True,
                          timeout=120)
    if proc.returncode == 3:
        pytest.skip("the installed sdcMicro is not 5.8.0")
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == sorted(EXPORTS)


def test_the_docs_page_renders_every_export():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import _generate
    finally:
        sys.path.remove(str(ROOT / "docs"))
    text = _generate.sdcmicro_exports()
    for r in export_table(EXPORTS):
        assert f"| `{r['export']}` | " in text, r["export"]
    for name in NOT_EXPORTED:
        assert f"| `{name}` | `{NATIVE[name]}` |" in text
    page = (ROOT / "docs" / "reference" / "sdcmicro-exports.md").read_text(encoding="utf-8")
    assert "<!-- pysdc:generate sdcmicro-exports -->" in page


def test_the_readme_links_the_table_in_one_line():
    lines = [ln for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if "docs/reference/sdcmicro-exports.md" in ln]
    assert len(lines) == 1
