"""Where a table file's schema sidecar lies: one rule for the readers (:mod:`pysdc.io`) and the output
guard (:mod:`pysdc.io`, which refuses to write over an input's sidecar)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["schema_path"]

_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
_PARQUET = (".parquet", ".pq")


def _stem(path: Path) -> str:
    name = path.name
    for ext in _COMPRESSED:
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    for ext in (".csv", ".tsv", ".txt") + _PARQUET:
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name.rsplit(".", 1)[0] if "." in name else name


def schema_path(path) -> Path:
    """The sidecar of a table file: ``dir/x.csv.gz`` -> ``dir/x.schema.json``."""
    path = Path(path)
    return path.with_name(_stem(path) + ".schema.json")
