"""Which variables a measure uses when the user names none: one rule for the command line and the engines.

Kept apart from :mod:`pysdc.cli` so that the engines' command-line path (:mod:`pysdc.cli._engine`) and the
pandas path (:mod:`pysdc.cli.utility`) read the same rule without importing each other.
"""

from __future__ import annotations

__all__ = ["default_variables"]


def _looks_like_id_name(name: str) -> bool:
    n = str(name)
    return n.lower() == "id" or n.lower().endswith(("_id", ".id", "-id", " id")) or n.lower().startswith(
        ("id_", "id.", "id-", "id ")) or (n.endswith("ID") and len(n) > 2 and not n.isupper())


#: EU-SILC's sampling weights (personal cross-sectional, household cross-sectional, respondent, ...), by their
#: standard variable names: sdcMicro's and laeken's eusilc data carry rb050 and db090 as plain numbers
SILC_WEIGHTS = frozenset({"rb050", "rb060", "rb062", "rb063", "rb064", "db090", "db095", "pb040", "pb050", "pb060",
                          "pb080", "rl070"})
_WEIGHT_WORDS = ("weight", "wgt", "wght", "gewicht", "poids", "peso", "pondera")


def _looks_like_weight_name(name: str) -> bool:
    n = str(name).lower()
    return (n in SILC_WEIGHTS or any(w in n for w in _WEIGHT_WORDS) or n in ("w", "wt", "pw", "hw", "fw")
            or n.startswith(("w_", "wt_")) or n.endswith(("_w", "_wt")))


def default_variables(candidates: list, class_x: dict, class_xm: dict, *, weight=None, hid=None, keys=(), wanted=(),
                      record_id=lambda c: False) -> dict:
    """The numeric variables a user would mean when none is named: the double (R "numeric") columns of both
    files, leaving out the weight, the household id, the key variables, record ids (a name like id / *_id,
    or whole numbers increasing from record to record), sampling weights by name (weight / wgt in the name,
    EU-SILC's rb050, db090 ...: :data:`SILC_WEIGHTS`) and columns of other types (unless ``wanted``: named by --scale);
    ``class_x``, ``class_xm``: each column's R class in each file; ``record_id(col)``: whether a column
    holds whole numbers, all distinct. Returns ``{"taken": [...], "excluded": {col: why}}``."""
    taken, excluded = [], {}
    for c in candidates:
        cx, cm = class_x[c], class_xm[c]
        if c == weight:
            excluded[c] = "the weight (--weight)"
        elif c == hid:
            excluded[c] = "the household id (--hid)"
        elif c in keys:
            excluded[c] = "categorical (--keys, --categorical or --ordered): compared as such, not as numeric"
        elif c in wanted:
            taken.append(c)
        elif cx != "numeric" or cm != "numeric":
            kind = cx if cx == cm else f"{cx} / {cm}"
            excluded[c] = (f"{kind}, not double: give it with --numeric or --keys to compare it"
                           if kind in ("integer", "factor", "ordered", "character", "logical") else
                           f"{kind}, not double")
        elif _looks_like_id_name(c):
            excluded[c] = "its name says it is an id"
        elif _looks_like_weight_name(c):
            excluded[c] = ("its name says it is a sampling weight (EU-SILC's rb050/db090, or weight/wgt in the name): "
                           "name it with --weight, or give it with --numeric to compare it")
        elif record_id(c):
            excluded[c] = "a record id (whole numbers, increasing)"
        else:
            taken.append(c)
    return {"taken": taken, "excluded": excluded}
