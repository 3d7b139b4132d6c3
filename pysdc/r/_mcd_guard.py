"""Refuse, before R is called, the inputs on which robustbase's covMcd would corrupt R's memory.

sdcMicro's ``mvTopCoding``, ``addNoise(method = "outdect")``, ``dRiskRMD``, ``dUtility(method = "robeigen")``,
``microaggregation(method = "rmd")`` (on each stratum's standardised variables) and ``shuffle(covmethod = "mcd")``
call ``robustbase::covMcd`` (``microaggregation``'s ``mcdpca`` and ``clustmcdpca`` call MASS's ``cov.mcd``, a
different routine, not checked here). On data whose variables are collinear up to rounding (fewer than 600 records),
covMcd's FAST-MCD writes past its arrays (see :mod:`pysdc.core.mcd.exactfit`): R aborts then or later (observed
with mvTopCoding and outdect; on the scaled data of dRiskRMD and robeigen no case was found, checked all the same). The
bridge asks :func:`pysdc.core.mcd.r_covmcd_overrun` -- pysdc's replica of robustbase's search on R's stream,
the check the native functions make -- with the data covMcd would get and R's stream as it stands right before
the call (after ``set.seed``), and raises its :class:`~pysdc.InvalidParameterError` instead of calling R. Every
other exact fit (exactly collinear variables, a constant variable, more than half of the records identical)
is left to R, which handles it: sdcMicro's own error (:class:`~pysdc.RCallError`) or its value.

``shuffle`` calls covMcd several times, first on the responses and predictors as they are (checked on R's
stream exactly), then on data that depend on its draws (residuals of regressions, ``mvrnorm`` draws): those
are checked on pysdc's replay of the shuffle (:mod:`pysdc.core.shuffle` with ``covmethod = "mcd"`` on a copy
of R's stream), which agrees with R's to rounding, not to the bit. ``shuffle`` on sdcMicro's data crashed R
(``malloc assertion failure``) with near-collinear responses; ``microaggregation(method = "rmd")`` standardises
first, like ``dRiskRMD``, and no case was found there (checked all the same).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..core import shuffle as _shuffle_kernels
from ..core.distance import r_scale, r_sd
from ..core.formula import model_matrix, parse_formula
from ..core.mcd import ExactFitOverrun, cov_mcd, r_covmcd_overrun
from ..core.mcd.exactfit import overrun_message
from ..core.noise import r_mean
from ..core.rrandom import RRandom
from ..protect._microaggregation import _strata
from ..protect._shuffle import _column, _split_formula
from . import _session

__all__ = ["check_covmcd", "covmcd_inputs", "check_shuffle", "shuffle_variables"]

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
        if python == "microaggregation" and values.get("method") == "rmd":
            return _rmd_inputs(values)
        if python == "d_utility" and values.get("method") == "robeigen":
            out = []
            for f in (values["x"], values["xm"]):
                X, names = _numeric(f)
                out.append((r_scale(X), names))
            return out
    except (KeyError, TypeError, ValueError):  # data R refuses anyway: let R say so
        return []
    return []


def _rmd_inputs(values: dict) -> list:
    """rmd: per stratum (sdcMicro's order of the stratum labels), ``(x - mean(x)) / sd(x)`` of each variable
    (``na.rm = TRUE``), the matrix sdcMicro's rmd hands covMcd."""
    data = values["data"]
    variables = list(values.get("variables") or data.columns)  # sdcMicro's default: every column
    X, names = _numeric(data, variables)
    strata, labels = _strata(data, values.get("strata_variables"))
    out = []
    for s in range(max(len(labels), 1)):
        x = X[strata == s]
        centre = np.array([r_mean(x[:, j]) for j in range(x.shape[1])])  # loop over variables
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(((x - centre) / r_sd(x), names))
    return out


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
    if python == "shuffle":
        check_shuffle(values)
        return
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


def shuffle_variables(form: str):
    """The responses, the predictors' terms and every variable (in order, once) of shuffle's formula text."""
    responses, rhs = _split_formula(form)
    terms = parse_formula("~ " + rhs)
    return responses, terms, list(dict.fromkeys(responses + [v for t in terms.terms for v in t]))


def _shuffle_data(values: dict, rr: RRandom):
    """sdcMicro's shuffle inputs: (responses, their names, predictors, their names), the missing values imputed
    from ``rr`` (advanced as R's ``sample`` advances R's stream) as sdcMicro does first."""
    data = values["data"]
    responses, terms, used = shuffle_variables(values["form"])
    work = {}
    for c in data.columns:  # every column of data, in order, as sdcMicro
        na = data[c].isna().to_numpy()
        if na.any():
            s = data[c].copy()
            s.iloc[np.flatnonzero(na)] = s.iloc[_shuffle_kernels.impute_rows(na, rr)].to_numpy()
            work[c] = s
    x = np.column_stack([work.get(v, data[v]).to_numpy(dtype=np.float64) for v in responses])
    pm, pnames, _ = model_matrix(terms, {v: _column(work.get(v, data[v])) for v in used})
    pm = np.asarray(pm, dtype=np.float64)
    if "(Intercept)" in pnames:
        keep = [i for i, nm in enumerate(pnames) if nm != "(Intercept)"]
        pm, pnames = pm[:, keep], [pnames[i] for i in keep]
    return x, responses, pm, [str(nm) for nm in pnames]


def check_shuffle(values: dict) -> None:
    """``shuffle(covmethod = "mcd")``: raise the exact-fit error where one of its covMcd calls would corrupt R's
    memory. The first (on the responses and predictors) on R's stream exactly; the later ones on pysdc's replay of
    the shuffle on a copy of the stream (to rounding)."""
    if values.get("covmethod") != "mcd" or values.get("method") == "mlm":  # mlm stops before any covMcd
        return
    rr = _r_stream()
    if rr is None:
        rr = RRandom(1)
    caller = "pysdc.r.shuffle"
    try:
        x, rnames, pm, pnames = _shuffle_data(values, rr)
    except Exception:  # noqa: BLE001 - data sdcMicro refuses anyway: let R say so
        return
    mat = np.column_stack([x, pm])
    if not np.isfinite(mat).all() or pm.shape[1] == 0:
        return
    if _could_overrun(mat):
        err = r_covmcd_overrun(mat, rr, names=rnames + pnames, caller=caller)
        if err is not None:
            raise err
    if values.get("method") == "ds2" or mat.shape[0] >= 2 * _NMINI:  # ds2: sdcMicro stops after that covMcd
        return  # (cor has no method "mcd"); every later covMcd has as many records: none can overrun
    w = values.get("weights")
    w = None if w is None else np.asarray(w, dtype=np.float64).ravel()
    method = values.get("method", "ds")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if method == "ds":
                _shuffle_kernels.ds_perturb(x, pm, "mcd", rr)
            elif method == "ds_cov":
                _shuffle_kernels.ds_cov_perturb(x, pm, "mcd", rr)
            else:  # mvn (its EGADP of the draws inside)
                _shuffle_kernels.mvn_perturb(x, pm, w, "mcd", rr)
            if values.get("gadp", True):
                _shuffle_kernels.egadp(x, pm, w, "mcd", rr)
    except ExactFitOverrun as exc:
        if exc.whole_data:
            raise ExactFitOverrun(overrun_message(x, rnames, caller=caller), whole_data=True) from None
    except Exception:  # noqa: BLE001 - an exit the replay does not follow (R stops or goes on): R runs safely
        return
