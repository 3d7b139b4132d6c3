"""sdcMicro's ``dUtility`` methods, named once for every layer: the declaration of :func:`pysdc.d_utility`, its
engine path, the problem object's assessment and its JSON format (pysdc-utility-1), and the parity checks."""

from __future__ import annotations

__all__ = ["D_UTILITY_METHODS", "CELLWISE_METHODS"]

#: dUtility's methods, in sdcMicro's order (``d_utility``'s ``method`` options)
D_UTILITY_METHODS = ("IL1", "IL1s", "eigen", "robeigen")
#: the methods that sum over cells (``average=True`` applies to these only); eigen and robeigen compare eigenvalues
CELLWISE_METHODS = ("IL1", "IL1s")
