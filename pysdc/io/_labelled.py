"""SPSS (``.sav``, ``.zsav``, ``.por``; needs ``pyreadstat``) and Stata (``.dta``) files: variables with value
labels read as categoricals, as ``haven::as_factor`` makes factors of them (see :func:`pysdc.io.read_table`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._names import did_you_mean
from ._values import _value_text

__all__ = ["read_labelled", "labelled_header"]


def labelled_header(path: Path, kind: str) -> list:
    """The variable names of an SPSS (``kind="spss"``) or Stata (``"stata"``) file, without reading the records."""
    if kind == "spss":
        return list(_read_spss(path, None, metadata_only=True)[0].columns)
    return list(_read_stata(path, None, header_only=True)[0].columns)


def _read_spss(path: Path, usecols, metadata_only: bool = False):
    try:
        import pyreadstat
    except ImportError:
        raise InvalidParameterError(
            f"reading {path.name} (SPSS) needs pyreadstat, which is not installed; install it with: "
            'pip install "pysdc-measures[spss]"'
        ) from None
    por = path.name.lower().endswith(".por")
    fn = pyreadstat.read_por if por else pyreadstat.read_sav
    kw = {} if por else {"user_missing": False}
    try:
        df, meta = fn(str(path), usecols=usecols, metadataonly=metadata_only, apply_value_formats=False, **kw)
    except Exception as exc:  # pyreadstat's ReadstatError / PyreadstatError and OS errors
        raise InvalidParameterError(f"cannot read {path.name} as an SPSS file: {exc}") from None
    return df, dict(meta.variable_value_labels or {})


def _read_stata(path: Path, usecols, header_only: bool = False):
    try:
        with pd.read_stata(path, iterator=True, convert_categoricals=False, columns=usecols) as reader:
            names = list(reader.variable_labels())
            if header_only:
                return pd.DataFrame(columns=names), {}
            try:
                df = reader.read()
            except StopIteration:  # no records
                df = pd.DataFrame(columns=names if usecols is None else list(usecols))
            sets = reader.value_labels()
            lbl = getattr(reader, "_lbllist", None)  # the label set of each variable (pandas keeps it private)
    except (ValueError, TypeError, OSError, KeyError, UnicodeDecodeError) as exc:
        raise InvalidParameterError(f"cannot read {path.name} as a Stata file: {exc}") from None
    if isinstance(lbl, (list, tuple)) and len(lbl) == len(names):
        of = dict(zip(names, lbl))
    else:  # without pandas' private list: the common convention that a label set is named like its variable
        of = {n: n for n in names}
    labels = {n: sets[of[n]] for n in df.columns if of.get(n) and of[n] in sets}
    for n in df.columns:  # Stata's byte/int/long are doubles in R (haven), as every SPSS number is
        if n not in labels and pd.api.types.is_integer_dtype(df[n].dtype) and not pd.api.types.is_bool_dtype(df[n]):
            df[n] = df[n].astype(np.float64)
    return df, labels


def _labelled_factor(s: pd.Series, labels: dict) -> pd.Series:
    """A labelled variable as a factor: levels = labels in the order of the values, unlabelled values as text."""
    present = pd.unique(s.dropna().to_numpy())
    try:
        values = sorted(set(labels) | set(present.tolist()))
    except TypeError:  # mixed types: labels first, then the rest as they come
        values = list(labels) + [v for v in present.tolist() if v not in labels]
    text = [str(labels[v]) if v in labels else _value_text(v) for v in values]
    level_of: dict = {}
    for t in text:
        level_of.setdefault(t, len(level_of))
    code_of_value = np.array([level_of[t] for t in text], dtype=np.int64)
    pos = pd.Index(values, dtype=object).get_indexer(s.astype(object).to_numpy())
    codes = np.where(pos >= 0, code_of_value[np.maximum(pos, 0)] if len(values) else -1, -1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=list(level_of)), index=s.index, name=s.name)


def read_labelled(path: Path, kind: str, usecols) -> pd.DataFrame:
    if usecols is not None:
        header = labelled_header(path, kind)
        unknown = [c for c in usecols if c not in header]
        if unknown:
            raise InvalidParameterError(f"{path.name} has no column(s) {unknown[:10]};"
                                        f"{did_you_mean(unknown[:10], header)} its columns are {header[:20]}"
                                        f"{' ...' if len(header) > 20 else ''}.")
        usecols = [c for c in header if c in set(usecols)]
    df, labels = (_read_spss if kind == "spss" else _read_stata)(path, usecols)
    df = df.reset_index(drop=True)
    for col, lab in labels.items():
        if col in df.columns and lab:
            df[col] = _labelled_factor(df[col], lab)
    return df
