"""Data shared by the engine tests (DuckDB and Spark)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def ordinal_pair(n=500, seed=3):
    """Text, float (with NaN) and integer columns to declare ordinal, and a one-level one."""
    rng = np.random.default_rng(seed)

    def side():
        edu = rng.choice(["none", "primary", "secondary", "tertiary", "it's"], n).astype(object)
        edu[rng.random(n) < 0.05] = None
        score = rng.integers(1, 6, n).astype(float)
        score[rng.random(n) < 0.05] = np.nan
        return pd.DataFrame({"edu": edu, "score": score, "size": rng.integers(1, 9, n), "one": ["a"] * n})

    return side(), side()


ORDINAL_SCALES = {"edu": "ordinal", "score": "ordinal", "size": "ordinal"}
