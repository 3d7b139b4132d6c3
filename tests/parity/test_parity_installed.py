"""`pysdc parity` after `pip install`: the stored corpus ships with the package (issue 25, item 8)."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "r_reference"


def _corpus_files(root: Path) -> set[str]:
    files = {"divergences.json"}
    for sub, pattern in (("cases", "*.json"), ("inputs", "**/*"), ("outputs", "*.json")):
        files |= {p.relative_to(root).as_posix() for p in (root / sub).glob(pattern) if p.is_file()}
    return files


def test_the_corpus_pysdc_uses_is_this_checkout_s():
    # editable install (development): the checkout; pip install . (CI): the installed copy -- equal either way
    from pysdc import parity

    used = parity.reference_dir()
    assert (used / "outputs").is_dir(), used
    mine = _corpus_files(CORPUS)
    assert _corpus_files(used) == mine
    _, mismatch, errors = filecmp.cmpfiles(CORPUS, used, sorted(mine), shallow=False)
    assert not mismatch and not errors


def test_the_wheel_carries_the_whole_corpus(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "pysdc", src / "pysdc", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CORPUS, src / "r_reference")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q",
                           "-w", str(tmp_path / "dist")], cwd=src, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    prefix = next(n.split("share/pysdc/r_reference/")[0] for n in names if "share/pysdc/r_reference/" in n)
    shipped = {n[len(prefix) + len("share/pysdc/r_reference/"):] for n in names if n.startswith(prefix + "share/pysdc/r_reference/")}
    assert shipped == _corpus_files(CORPUS)
    assert prefix.endswith(".data/data/")
