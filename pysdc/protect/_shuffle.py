"""Data shuffling, as sdcMicro 5.8.0's ``shuffle`` on a data.frame, on R's random stream.

``random_state=s`` is R's ``set.seed(s)`` before the call: the shuffled values then equal sdcMicro's
(the same records get the same original values) and the perturbed and EGADP values agree to rounding
(:mod:`pysdc.core.shuffle`; pinned by ``r_reference/outputs/shuffle.json``, ``shuffle_more.json`` and
``shuffle_mm.json``). Native: the methods ``"ds"`` (sdcMicro's default), ``"mvn"``, ``"ds2"`` and ``"ds_cov"``
with ``covmethod`` ``"spearman"`` or ``"pearson"`` and ``regmethod`` ``"lm"`` or ``"MM"`` (MASS's ``rlm``,
:mod:`pysdc.core.rlm`). ``"mlm"`` stops in sdcMicro 5.8.0 on every input, and pysdc stops too (saying why).
``covmethod="mcd"`` runs through the bridge (``pysdc.r.shuffle``) only: see :func:`shuffle`. The input is never
modified.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._validation import Any_, Boolean, Frame, Options, user_stacklevel, validate_params
from ..core import shuffle as _k
from ..core.formula import FactorColumn, NumericColumn, model_matrix, parse_formula
from ._noise import RStream, r_stream

__all__ = ["shuffle", "ShuffleResult", "NATIVE_SHUFFLE_METHODS"]

NATIVE_SHUFFLE_METHODS = ("ds", "mvn", "ds2", "ds_cov")
_NAME = re.compile(r"^[A-Za-z.][A-Za-z0-9._]*$")


@dataclass(frozen=True)
class ShuffleResult:
    """What sdcMicro's ``shuffle`` returns on a data.frame (a list).

    Attributes
    ----------
    shuffled : DataFrame
        The responses shuffled: each column holds the original values, reassigned by the ranks of the
        perturbed values (missing values stay missing at their records).
    perturbed : DataFrame
        The perturbed responses on the normal-score scale (``Y*``).
    egadp : DataFrame or None
        The EGADP responses (``gadp=True``), sdcMicro's ``egapd``.
    """

    shuffled: pd.DataFrame = field(repr=False)
    perturbed: pd.DataFrame = field(repr=False)
    egadp: pd.DataFrame | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return f"ShuffleResult(n={len(self.shuffled)}, responses={list(self.shuffled.columns)})"


def _split_formula(form: str) -> tuple[list, str]:
    if not isinstance(form, str) or form.count("~") != 1:
        raise InvalidParameterError(
            f"shuffle: form must be formula text 'y1 + y2 ~ x1 + x2' (one '~'); got {form!r}.")
    lhs, rhs = form.split("~")
    names = [t.strip() for t in lhs.split("+")]
    if any(not _NAME.match(t) for t in names):
        raise InvalidParameterError(
            f"shuffle: the responses of form must be variable names joined by '+'; got {lhs.strip()!r}.")
    if len(names) < 2 or len(set(names)) != len(names):
        raise InvalidParameterError(
            "shuffle: the method needs at least 2 confidential numeric variables (as sdcMicro); "
            f"got {names}.")
    return names, rhs.strip()


def _column(s: pd.Series):
    if isinstance(s.dtype, pd.CategoricalDtype):
        return FactorColumn(s.cat.codes.to_numpy().astype(np.int64), tuple(str(c) for c in s.cat.categories),
                            bool(s.cat.ordered))
    if s.dtype.kind == "b":
        return FactorColumn(s.to_numpy().astype(np.int64), ("FALSE", "TRUE"), False)
    if s.dtype.kind in "iuf":
        return NumericColumn(s.to_numpy(dtype=np.float64))
    raise InvalidParameterError(
        f"shuffle: predictor {s.name!r} must be numeric, logical or a categorical (R's factor); got dtype "
        f"{s.dtype}.")


@validate_params({
    "data": Frame(),
    "form": Any_(),
    "method": Options(("ds", "mvn", "mlm", "ds2", "ds_cov")),
    "weights": Any_(),
    "covmethod": Options(("spearman", "pearson", "mcd")),
    "regmethod": Options(("lm", "MM")),
    "gadp": Boolean(),
    "random_state": RStream(),
})
def shuffle(data, form, method: str = "ds", weights=None, covmethod: str = "spearman", regmethod: str = "lm",
            gadp: bool = True, random_state=None) -> ShuffleResult:
    """Shuffle numeric variables, as sdcMicro's ``shuffle`` on a data.frame.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    form : str
        R formula text ``"y1 + y2 ~ x1 + x2"``: at least two numeric responses (the confidential
        variables) by name, the predictors as in R's ``model.matrix`` (numeric, factor, ordered factor;
        ``+ - * : ^``).
    method : str
        ``"ds"`` (data shuffling, sdcMicro's default), ``"mvn"`` (draws of the data's normal distribution,
        then EGADP of them), ``"ds2"`` (EGADP of the normal scores), ``"ds_cov"`` (the original
        predictors times the normal scores' regression, plus normal noise): all native. ``"mlm"`` stops,
        as in sdcMicro 5.8.0 (its ``predict`` call fails on every input).
    weights : array-like, optional
        Sampling weights of the EGADP regression (as sdcMicro).
    covmethod : {"spearman", "pearson"}
        The correlation used throughout (``"ds_cov"``: for EGADP only, as sdcMicro). ``"mcd"`` is bridge
        only: pysdc's covMcd on R's stream agrees with robustbase's to rounding, not to the bit, and
        sdcMicro's shuffle can hinge on those bits (the sign of an eigenvector in ``mvrnorm``).
    regmethod : {"lm", "MM"}
        The EGADP regression: R's ``lm``, or MASS's ``rlm(method = "MM")`` per response, started from its
        S-estimate ``lqs`` (whose random subsets, with 5000 or more candidates, are drawn from the stream as
        MASS draws them: :mod:`pysdc.core.rlm`). Where half of the records or more lie exactly on one fit (an
        S-scale of 0 or rounding noise) pysdc stops: MASS then stops too, or returns values rounding decides.
    gadp : bool
        Compute the EGADP responses too (they draw from the stream after the shuffle).
    random_state : None, int or RRandom
        ``s`` is R's ``set.seed(s)`` before sdcMicro's call.

    Returns
    -------
    ShuffleResult
        ``shuffled``, ``perturbed``, ``egadp``.

    Notes
    -----
    As sdcMicro, a record with missing values is first completed column by column (every column of
    ``data``, in order) from a record drawn at random among those with a value (R's ``sample``), and the
    responses' missing values are put back at the end. sdcMicro warns "rows with missing values have
    been imputed!"; so does pysdc.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc.protect import shuffle
    >>> df = pd.DataFrame({"a": [3.0, 1, 4, 1, 5, 9, 2, 6], "b": [2.0, 7, 1, 8, 2, 8, 1, 9],
    ...                    "c": [1.0, 2, 3, 4, 5, 6, 7, 9]})
    >>> r = shuffle(df, "a + b ~ c", random_state=1)   # R: set.seed(1); shuffle(df, a + b ~ c)
    >>> sorted(r.shuffled["a"]) == sorted(df["a"])
    True
    """
    if method == "mlm":
        raise InvalidParameterError(
            "shuffle: method='mlm' stops in sdcMicro 5.8.0 on every input (it predicts from its lm with a "
            "matrix as newdata: \"'data' must be a data.frame, not a matrix or an array\"); pysdc stops too.")
    if method == "ds2" and covmethod == "mcd":
        _k.ds2_perturb(np.zeros((0, 2)), np.zeros((0, 1)), None, covmethod, None)  # sdcMicro stops: say so
    if covmethod == "mcd":
        raise InvalidParameterError(
            "shuffle: covmethod='mcd' is not native in pysdc: its covMcd on R's stream agrees with robustbase's "
            "to rounding (about 1e-15), not to the bit, and sdcMicro's shuffle can hinge on those bits (the sign "
            "LAPACK gives an eigenvector in mvrnorm flips, and every draw moves); use the bridge pysdc.r.shuffle.")
    responses, rhs = _split_formula(form)
    terms = parse_formula("~ " + rhs)
    used = list(dict.fromkeys(responses + [v for t in terms.terms for v in t]))
    missing_cols = [v for v in used if v not in data.columns]
    if missing_cols:
        raise InvalidParameterError(f"shuffle: form uses variable(s) {missing_cols} that are not in data.")
    for v in responses:
        s = data[v]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "iuf":
            raise InvalidParameterError(f"shuffle: response {v!r} must be numeric; got dtype {s.dtype}.")
    n = len(data)
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.size != n or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise InvalidParameterError(
                f"shuffle: weights must be {n} finite non-negative numbers (one per record).")
    rr = r_stream(random_state)
    # sdcMicro completes every column of the data (in order) before the model matrices
    na = {c: data[c].isna().to_numpy() for c in data.columns}
    work = {}
    if not gadp and any(m.any() for m in na.values()):
        raise InvalidParameterError(
            "shuffle(gadp=False) on data with a missing value: sdcMicro 5.8.0 stops here ('incorrect number of "
            "subscripts on matrix': it imputes the incomplete rows, then writes NA back into the EGADP result that "
            "gadp=False never made). Use gadp=True (sdcMicro's default), or complete or drop the missing values "
            "first (a missing value in any column of data counts, not only in the formula's).")
    if any(m.any() for m in na.values()):
        warnings.warn("shuffle: rows with missing values have been imputed! (as sdcMicro)", UserWarning,
                      stacklevel=user_stacklevel())
        for c in data.columns:
            if na[c].any():
                s = data[c].copy()
                if na[c].all():
                    raise InvalidParameterError(f"shuffle: column {c!r} has no value to impute from.")
                donors = _k.impute_rows(na[c], rr)
                s.iloc[np.flatnonzero(na[c])] = s.iloc[donors].to_numpy()
                work[c] = s
    cols = {v: _column(work.get(v, data[v])) for v in used}
    x = np.column_stack([work.get(v, data[v]).to_numpy(dtype=np.float64) for v in responses])
    if not np.all(np.isfinite(x)):
        raise InvalidParameterError("shuffle: the responses hold infinite values; recode them first.")
    pm, names, _assign = model_matrix(terms, cols)
    pm = np.asarray(pm, dtype=np.float64)[:, 1:] if "(Intercept)" in names else np.asarray(pm, dtype=np.float64)
    if pm.shape[1] == 0:
        raise InvalidParameterError("shuffle: form needs at least one predictor.")
    if method == "ds":
        ystar = _k.ds_perturb(x, pm, covmethod, rr)
    elif method == "ds_cov":
        ystar = _k.ds_cov_perturb(x, pm, covmethod, rr)
    elif method == "ds2":
        ystar = _k.ds2_perturb(x, pm, w, covmethod, rr, regmethod)
    else:
        ystar = _k.mvn_perturb(x, pm, w, covmethod, rr, regmethod)
    shuffled = np.column_stack([_k.reverse_map(x[:, j], ystar[:, j]) for j in range(x.shape[1])])
    eg = _k.egadp(x, pm, w, covmethod, rr, regmethod) if gadp else None
    for j, v in enumerate(responses):
        m = na[v]
        shuffled[m, j] = np.nan
        ystar[m, j] = np.nan
        if eg is not None:
            eg[m, j] = np.nan

    def frame(a):
        return pd.DataFrame(a, columns=responses, index=data.index)

    return ShuffleResult(shuffled=frame(shuffled), perturbed=frame(ystar),
                         egadp=None if eg is None else frame(eg))
