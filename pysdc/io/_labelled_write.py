"""Writing a protected table as SPSS (``.sav``) or Stata (``.dta``) with the input's codebook.

What a statistician's codebook expects, decided against what sdcMicro + haven give (``readMicrodata``, the method,
``extractManipData``, ``haven::write_sav`` / ``write_dta``; compared by tests/cli/test_cli_labelled_recode.py):

* A category that is a value label (or an unlabelled value) of the input keeps the input's code. haven writes every
  factor as 1..k in level order, so R renumbers even the categories a step did not touch (AT 1 -> 2 when the
  user-missing ``-9 'no answer'`` sorts first); pysdc does not.
* A category a step made (``groupAndRename``'s new name, a recode's label) in a variable with a codebook gets the
  next whole number above the input's largest code (outside its user-missing ranges), in level order: no code
  changes its meaning (R: 1..k for the whole variable; a merge keeps the place of the first merged level).
* A variable without codes in the input (text, or a numeric variable recoded to labels) is coded 1..k in level
  order with its levels as value labels: what haven writes for a factor, in both formats (a ``.dta`` was 0..k-1).
* A numeric key variable recoded by ``globalRecode`` holds sdcMicro's interval codes 1..k (``extractManipData``);
  they are written as they are, with the interval labels as value labels (R writes the bare numbers).
* The input's variable labels stay on every variable of the same name, recoded ones included (sdcMicro's own
  ``writeSafeFile`` adds them to a ``.dta``; haven alone keeps them only where the column's attribute survived).
* SPSS user-missing ranges stay on a variable that keeps the input's codes (a ``.sav`` only: Stata has none);
  dropped where the variable is renumbered (haven drops them on every factor). The values themselves were read as
  missing (sdcMicro's ``readMicrodata``), so they, like a suppressed value, are written as system missing.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from ._write import atomic_output

__all__ = ["Codebook", "read_codebook", "labelled_codes", "recoded_key_labels", "write_labelled"]

#: Stata's value labels take integers in this range (larger ones are its missing values)
_STATA_MAX = 2_147_483_620
#: the longest variable label Stata keeps (pandas refuses longer ones)
_STATA_LABEL = 80


@dataclass(frozen=True)
class Codebook:
    """An SPSS or Stata file's codebook, as the protected file keeps it.

    Attributes
    ----------
    codes : dict
        ``{column: {label: code}}``: the value labels whose code is a number and names one value only.
    missing_ranges : dict
        ``{column: [{"lo": lo, "hi": hi}, ...]}``: SPSS's user-missing values (empty for Stata).
    variable_labels : dict
        ``{column: label}``.
    missing_tags : dict
        ``{column: {label, ...}}``: labels of Stata's extended missing values (``.a``, ...), read as missing.
    """

    codes: dict = field(default_factory=dict)
    missing_ranges: dict = field(default_factory=dict)
    variable_labels: dict = field(default_factory=dict)
    missing_tags: dict = field(default_factory=dict)


def read_codebook(path) -> Codebook:
    """The codebook of an SPSS (``.sav``, ``.zsav``) or Stata (``.dta``) file; empty for any other file."""
    name = str(path).lower()
    if not name.endswith((".sav", ".zsav", ".dta")):
        return Codebook()
    try:
        import pyreadstat
    except ImportError:
        raise InvalidParameterError(
            f"keeping the codebook of {Path(path).name} needs pyreadstat, which is not installed; install it with: "
            'pip install "pysdc-measures[spss]"') from None
    stata = name.endswith(".dta")
    reader = pyreadstat.read_dta if stata else pyreadstat.read_sav
    try:
        _, meta = reader(str(path), metadataonly=True, **({} if stata else {"user_missing": True}))
    except Exception as exc:  # pyreadstat's ReadstatError / PyreadstatError and OS errors
        raise InvalidParameterError(f"cannot read the codebook of {Path(path).name}: {exc}") from None
    codes, tags = {}, {}
    for col, value_labels in (meta.variable_value_labels or {}).items():
        numeric = {v: t for v, t in value_labels.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        tags[col] = {str(t) for v, t in value_labels.items() if v not in numeric}
        by_label = {str(t): float(v) for v, t in numeric.items()}
        if len(by_label) == len(numeric):  # a label given to two values: no one code for it
            codes[col] = by_label
    var_labels = {c: str(t) for c, t in (meta.column_names_to_labels or {}).items() if t}
    missing = {} if stata else dict(getattr(meta, "missing_ranges", None) or {})
    return Codebook(codes, missing, var_labels, {c: t for c, t in tags.items() if t})


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _in_ranges(value: float, ranges) -> bool:
    for r in ranges or ():
        lo, hi = (r.get("lo"), r.get("hi")) if isinstance(r, dict) else (r, r)
        try:
            if float(lo) <= value <= float(hi):
                return True
        except (TypeError, ValueError):  # a string's missing value: not a number's
            continue
    return False


def labelled_codes(levels, book: dict, ranges=(), *, stata: bool = False, tags=()) -> tuple[dict, bool]:
    """The code of each level (``{level: code}``; levels left out have none) and whether the input's codes are kept.

    ``book`` is the input's ``{label: code}`` (from :class:`Codebook`), ``ranges`` its user-missing ranges, ``tags``
    the labels of Stata's extended missing values (such a level is left out: its values were read as missing).
    """
    levels = [str(v) for v in levels]
    ok = (lambda v: math.isfinite(v) and (not stata or (float(v).is_integer() and abs(v) <= _STATA_MAX)))
    if book and not all(ok(v) for v in book.values()):
        book = {}  # e.g. SPSS's 1.5 into Stata, which labels whole numbers only
    codes: dict = {}
    if book:
        used: set = set()
        for lev in levels:
            v = book.get(lev, _number(lev) if lev not in tags else math.nan)  # unlabelled values: their number
            if ok(v) and v not in used:
                codes[lev] = v
                used.add(v)
    if not codes:  # nothing of the input's codes: haven's factor, 1..k in level order
        return {lev: float(i) for i, lev in enumerate((lv for lv in levels if lv not in tags), 1)}, False
    nxt = math.floor(max([*book.values(), *codes.values()])) + 1
    for lev in levels:
        if lev in codes or lev in tags:
            continue
        while nxt in used or _in_ranges(nxt, ranges):
            nxt += 1
        codes[lev] = float(nxt)
        used.add(float(nxt))
    return codes, True


def recoded_key_labels(manip_data: pd.DataFrame, manip_key_vars: pd.DataFrame) -> dict:
    """``{column: {code: label}}`` of the numeric key variables that hold ``globalRecode``'s interval codes.

    sdcMicro's ``extractManipData`` gives such a variable as the codes 1..k of its factor (``manipKeyVars``, where
    the labels are); a column of ``manip_data`` is listed when its values are exactly those codes."""
    out = {}
    for c in manip_key_vars.columns:
        keys = manip_key_vars[c]
        if c not in manip_data.columns or not isinstance(keys.dtype, pd.CategoricalDtype):
            continue
        col = manip_data[c]
        if isinstance(col.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(col.dtype):
            continue
        codes = keys.cat.codes.to_numpy()
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        expected = np.where(codes >= 0, codes + 1.0, np.nan)
        if len(values) == len(expected) and np.array_equal(values, expected, equal_nan=True):
            out[c] = {float(i): str(lev) for i, lev in enumerate(keys.cat.categories, 1)}
    return out


def _frame(df: pd.DataFrame, book: Codebook, recoded: dict, stata: bool):
    """The table as numbers with value labels: (frame, value labels, user-missing ranges kept)."""
    frame, labels, kept = df.copy(), {}, {}
    for c in df.columns:
        name = str(c)
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            levels = [str(v) for v in df[c].cat.categories]
            ranges = book.missing_ranges.get(name, ())
            pos = df[c].cat.codes.to_numpy()
            used = {levels[i] for i in np.unique(pos[pos >= 0])}
            tags = [t for t in book.missing_tags.get(name, ()) if t not in used]  # a step may have used the name
            codes, same = labelled_codes(levels, book.codes.get(name, {}), ranges, stata=stata, tags=tags)
            table = np.array([codes.get(lev, np.nan) for lev in levels] + [np.nan])
            frame[c] = table[np.where(pos >= 0, pos, len(levels))]
            labels[name] = {v: lev for lev, v in codes.items()}
            if same and ranges and not stata:
                kept[name] = ranges
        elif name in recoded:
            labels[name] = dict(recoded[name])
    return frame, labels, kept


def write_labelled(df: pd.DataFrame, path, codebook: Codebook | None = None, recoded: dict | None = None) -> Path:
    """``df`` as an SPSS ``.sav`` or Stata ``.dta`` (by the extension), complete or not at all.

    Categoricals become numbers with value labels, coded by :func:`labelled_codes` from ``codebook`` (the input's,
    :func:`read_codebook`); ``recoded`` gives the value labels of numeric columns holding codes
    (:func:`recoded_key_labels`); the codebook's variable labels stay on the columns of the same name."""
    book = codebook or Codebook()
    target = Path(path)
    stata = target.name.lower().endswith(".dta")
    frame, labels, kept = _frame(df, book, recoded or {}, stata)
    var_labels = {str(c): book.variable_labels[str(c)] for c in df.columns if str(c) in book.variable_labels}
    if stata:
        long = sorted(c for c, t in var_labels.items() if len(t) > _STATA_LABEL)
        if long:
            warnings.warn(f"{target.name}: Stata keeps variable labels of {_STATA_LABEL} characters; the labels of "
                          f"{long[:10]}{' ...' if len(long) > 10 else ''} are cut there.", PysdcWarning, stacklevel=2)
            var_labels = {c: t[:_STATA_LABEL] for c, t in var_labels.items()}
    with atomic_output(target) as tmp:
        if stata:  # pandas writes Stata (no optional dependency), value labels on numeric columns included
            frame.to_stata(tmp, write_index=False, version=118,
                           value_labels={c: {int(v): t for v, t in lab.items()} for c, lab in labels.items() if lab},
                           variable_labels=var_labels or None)
        else:
            try:
                import pyreadstat
            except ImportError:
                raise InvalidParameterError(f"writing {target.name} (SPSS) needs pyreadstat, which is not installed; "
                                            'install it with: pip install "pysdc-measures[spss]"') from None
            pyreadstat.write_sav(frame, str(tmp), variable_value_labels={c: lab for c, lab in labels.items() if lab},
                                 missing_ranges=kept or None, column_labels=var_labels or None)
    return target
