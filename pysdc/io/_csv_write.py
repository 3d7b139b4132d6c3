"""Writing a table in pysdc's typed-table format: the CSV file and its schema sidecar, both complete or
neither changed (:mod:`pysdc.io`'s docstring describes the format)."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._paths import _COMPRESSED, schema_path
from ._schema import _schema_text, table_schema
from ._values import _format_values
from ._write import atomic_output

__all__ = ["write_table"]


def write_table(df: pd.DataFrame, path, *, schema: bool = True) -> Path:
    """Write ``df`` as a typed table: ``path`` (CSV, gzipped if it ends in
    ``.gz``) and, with ``schema=True``, the sidecar ``<stem>.schema.json``.

    The index is not written. Returns the path of the CSV file.
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidParameterError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"df has duplicated column names {names}; give every column a unique name.")
    path = Path(path)
    csv_bytes, sch = _encode(df)
    if path.name.lower().endswith(".gz"):
        data = gzip.compress(csv_bytes, compresslevel=6, mtime=0)
    elif path.name.lower().endswith(_COMPRESSED):
        raise InvalidParameterError(f"path {str(path)!r}: only .csv and .csv.gz can be written.")
    else:
        data = csv_bytes
    # both files complete or neither changed: each written beside its target, renamed after both succeeded
    targets = [path, schema_path(path)] if schema else [path]
    contents = [data, _schema_text(sch).encode("utf-8")][:len(targets)]
    with atomic_output(*targets) as temps:
        for tmp, content in zip(temps if schema else [temps], contents):
            with open(tmp, "wb") as fh:
                fh.write(content)
    return path


def _encode(df: pd.DataFrame) -> tuple[bytes, dict]:
    """The CSV bytes (uncompressed) and the schema of ``df``; deterministic."""
    sch = table_schema(df)
    text = {}
    for i, entry in enumerate(sch["columns"]):
        s = df.iloc[:, i]
        what = f"column {entry['name']!r}"
        if entry["r_class"] in ("factor", "ordered"):
            labels = np.array(entry["levels"], dtype=object)
            codes = s.cat.codes.to_numpy()
            col = np.where(codes >= 0, labels[np.maximum(codes, 0)] if len(labels) else None, None)
        else:
            col = _format_values(s, what)
        text[entry["name"]] = col
    frame = pd.DataFrame(text, index=pd.RangeIndex(len(df)), columns=[c["name"] for c in sch["columns"]], dtype=object)
    buf = io.StringIO()
    frame.to_csv(buf, index=False, na_rep="NA", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    return buf.getvalue().encode("utf-8"), sch
