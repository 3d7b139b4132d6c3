"""Data shared by the engine tests (DuckDB and Spark)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pysdc._tolerances import ENGINE_SUMS


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


def parquet_parts(df: pd.DataFrame, directory, *bounds: int):
    """``df`` written as a directory of Parquet parts split at the row ``bounds`` (a.parquet, b.parquet, ...)."""
    directory.mkdir()
    edges = [0, *bounds, len(df)]
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        df.iloc[lo:hi].to_parquet(directory / f"{chr(ord('a') + i)}.parquet", index=False)
    return directory


def cli_json(argv: list) -> dict:
    """``pysdc ARGV --json`` run quietly (warnings ignored); its exit code must be 0; the JSON report."""
    import contextlib
    import io
    import json
    import warnings

    from pysdc.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main([*argv, "--json"])
    assert rc == 0, f"pysdc {' '.join(map(str, argv))} exited with {rc}"
    return json.loads(buf.getvalue())


def same_model(a, b, *, exact: bool = False, path: str = "") -> None:
    """The numbers of two models (JSON-like dicts/lists) agree: exactly (pandas paths), or counts exactly and
    sums to ENGINE_SUMS (an engine sums in another order)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            same_model(a[key], b[key], exact=exact, path=f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            same_model(u, v, exact=exact, path=f"{path}[{i}]")
    elif isinstance(a, float) and not isinstance(b, str) and b is not None:
        if exact:
            assert a == b or (np.isnan(a) and np.isnan(b)), (path, a, b)
        else:
            np.testing.assert_allclose(b, a, rtol=ENGINE_SUMS.rtol, atol=ENGINE_SUMS.atol, err_msg=path)
    else:
        assert a == b, (path, a, b)
