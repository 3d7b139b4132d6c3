"""Shared helpers of the mdav_fast tests: a tree of cells over the data, and the farthest record by a scan."""

from __future__ import annotations

import numpy as np

from pysdc.core import microagg_fast as mf


def scan_farthest(x, alive, q, w):
    """The farthest remaining record from ``q`` by sdcMicro's single-precision distance over every record (the
    first in record order among equal distances): what ``_Cells.farthest`` must answer."""
    rows = np.flatnonzero(alive[:x.shape[0]])
    d = mf._d32(x[rows], q, w)
    return int(rows[d == d.max()].min())


def cells(x):
    """``(cells, z, w)``: mdav_fast's tree of cells over ``x`` with the weights and tolerances it uses itself."""
    w = mf.complete_weights(x)
    z = x * np.sqrt(w)
    eta = (x.shape[1] + 2) * 2.0 ** -22
    sig = 1e-12 * (float(np.abs(z).max()) + 1.0)
    return mf._Cells(x, z, w, eta, sig, mf._LEAF), z, w
