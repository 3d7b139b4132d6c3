"""Messy pandas columns for the fuzz tests (issue 16): one column of a given kind, drawn by hypothesis.

Kinds: pandas ``string``, ``Int64``, ``boolean``, categoricals with NA (ordered too), object columns of
mixed text, ``inf``, all-NA and empty-text columns, plain ``int64``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

KINDS = ("float", "float_inf", "Int64", "boolean", "string", "category", "ordered", "object_mixed",
         "all_na_float", "all_na_object", "empty_text", "int64")


def column(kind: str, n: int, draw) -> pd.Series:
    pick = lambda options: [draw(st.sampled_from(options)) for _ in range(n)]  # noqa: E731
    if kind == "float":
        return pd.Series(pick([0.0, 1.5, -2.0, 3.25, np.nan]), dtype="float64")
    if kind == "float_inf":
        return pd.Series(pick([1.0, np.inf, -np.inf, np.nan, 2.5]), dtype="float64")
    if kind == "Int64":
        return pd.Series(pd.array(pick([1, 2, 7, None]), dtype="Int64"))
    if kind == "boolean":
        return pd.Series(pd.array(pick([True, False, None]), dtype="boolean"))
    if kind == "string":
        return pd.Series(pd.array(pick(["p", "q", "", None]), dtype="string"))
    if kind == "category":
        return pd.Series(pd.Categorical(pick(["a", "b", None]), categories=["a", "b", "unused"]))
    if kind == "ordered":
        return pd.Series(pd.Categorical(pick(["lo", "hi", None]), categories=["lo", "mid", "hi"], ordered=True))
    if kind == "object_mixed":
        return pd.Series(pick(["x", "12", "", None, "3.5", "NA"]), dtype=object)
    if kind == "all_na_float":
        return pd.Series([np.nan] * n, dtype="float64")
    if kind == "all_na_object":
        return pd.Series([None] * n, dtype=object)
    if kind == "empty_text":
        return pd.Series([""] * n, dtype=object)
    return pd.Series(pick([0, 1, 5, -3]), dtype="int64")
