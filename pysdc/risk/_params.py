"""The declared constraints shared by the frequency-based risk measures (native functions through
``validate_params``, the R bridge through :mod:`pysdc._registry`)."""

from __future__ import annotations

from .._validation import Columns, Frame, Interval

__all__ = ["DATA", "KEY_VARS", "WEIGHT", "ALPHA"]

#: the data frame and its key variables, as every frequency-based measure takes them
DATA = Frame(allow_array=True)
KEY_VARS = Columns("data")
#: a weight column, which must not also be a key
WEIGHT = Columns(
    "data", single=True, optional=True, disjoint_from="key_vars",
    disjoint_message="{name}: the weight column {cols} is also a key variable; use it as one or the other.",
)
ALPHA = Interval(0.0, 1.0)
