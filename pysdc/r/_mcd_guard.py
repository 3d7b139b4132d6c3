"""Refuse, before R is called, the inputs on which robustbase's covMcd would corrupt R's memory.

sdcMicro's ``mvTopCoding``, ``addNoise(method = "outdect")``, ``dRiskRMD`` and ``dUtility(method = "robeigen")``
call ``robustbase::covMcd``. On data whose variables are collinear up to rounding (fewer than 600 records),
covMcd's FAST-MCD writes past its arrays (see :mod:`pysdc.core.mcd.exactfit`): R aborts then or later (observed
with mvTopCoding and outdect; on the scaled data of dRiskRMD and robeigen no case was found, checked all the same). The
bridge asks :func:`pysdc.core.mcd.r_covmcd_overrun` -- pysdc's replica of robustbase's search on R's stream,
the check the native functions make -- with the data covMcd would get and R's stream as it stands right before
the call (after ``set.seed``), and raises its :class:`~pysdc.InvalidParameterError` instead of calling R. Every
other exact fit (exactly collinear variables, a constant variable, more than half of the records identical)
is left to R, which handles it: sdcMicro's own error (:class:`~pysdc.RCallError`) or its value.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..core.distance import r_scale
from ..core.mcd import cov_mcd, r_covmcd_overrun
from ..core.rrandom import RRandom
from . import _session

__all__ = ["check_covmcd", "covmcd_inputs"]

#: covMcd's default nmini: only fewer than 2 * nmini complete records can take the corrupting branch
_NMINI = 300


def _numeric(frame: pd.DataFrame, cols=None) -> tuple[np.ndarray, list]:
    f = frame if cols is None else frame.loc[:, list(cols)]
    return f.to_numpy(dtype=np.float64, na_value=np.nan), [str(c) for c in f.columns]


def covmcd_inputs(python: str, values: dict) -> list:
    """The matrices sdcMicro hands covMcd, in call order, as ``(matrix, names)``, for the bridge function
    ``python`` called with the (validated) ``values``; empty when it calls no covMcd."""
    try:
        if python == "mv_top_coding" and values.get("maha") is None:
            return [_numeric(values["x"])]
        if python == "add_noise" and values.get("method") == "outdect":
            data = values["data"]
            return [_numeric(data, values.get("variables") or list(data.columns))]
        if python == "d_risk_rmd":
            X, names = _numeric(values["x"])
            return [(r_scale(X), names)]
        if python == "d_utility" and values.get("method") == "robeigen":
            out = []
            for f in (values["x"], values["xm"]):
                X, names = _numeric(f)
                out.append((r_scale(X), names))
            return out
    except (KeyError, TypeError, ValueError):  # data R refuses anyway: let R say so
        return []
    return []


def _could_overrun(X: np.ndarray) -> bool:
    complete = int(np.isfinite(X).all(axis=1).sum()) if X.size else 0
    return X.ndim == 2 and X.shape[1] >= 2 and X.shape[1] + 1 < complete < 2 * _NMINI


def _r_stream() -> RRandom | None:
    """R's stream as it stands (``.Random.seed``; R seeds itself first if it has none, as a draw would)."""
    seed = _session.call("random_seed", (), {}, helper=True)
    try:
        return RRandom.from_random_seed(seed)
    except Exception:  # noqa: BLE001 - another RNGkind: its stream is not replicated
        return None


def check_covmcd(python: str, values: dict) -> None:
    """Raise the exact-fit error where sdcMicro's covMcd call(s) would corrupt R's memory (under the session lock,
    after ``set.seed``, right before the call)."""
    inputs = covmcd_inputs(python, values)
    if not any(_could_overrun(X) for X, _ in inputs):
        return
    rr = _r_stream()
    if rr is None:  # another RNGkind: check on a fixed stream (the branch hardly depends on the draws)
        rr = RRandom(1)
    for i, (X, names) in enumerate(inputs):
        if _could_overrun(X):
            err = r_covmcd_overrun(X, rr, names=names, caller=f"pysdc.r.{python}")
            if err is not None:
                raise err
        if i + 1 < len(inputs):  # the next covMcd draws where this one left R's stream
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    cov_mcd(X, random_state=rr)
            except Exception:  # noqa: BLE001 - covMcd fails here in R too (inside sdcMicro's try): stop checking
                return
