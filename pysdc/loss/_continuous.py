"""Information loss for continuous data as the literature defines it (no sdcMicro counterpart).

The Domingo-Ferrer--Mateo-Sanz--Torra table (X, X̄, V, S, R, RF, C, F against
mean square error, mean absolute error and mean variation), Yancey--Winkler--Creecy's
IL1 and Todorova's GILCV. Native only: sdcMicro implements none of these numbers
(its ``dUtility(method="IL1s")`` is IL1 as a sum; see :func:`il_continuous`'s Notes).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.linalg

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import (
    Constraint,
    Frame,
    Options,
    _show,
    same_columns,
    user_stacklevel,
    warn_if_unaligned,
)

__all__ = ["il_continuous", "ContinuousLossResult", "IL_CONTINUOUS_PARAMS"]

ROWS = ("X", "Xbar", "V", "S", "R", "RF", "C", "F")
COLUMNS = ("mse", "mae", "mean_variation")
#: the rows whose mean variations Todorova's GILCV averages (COV, VAR, COR, RF, F, C)
GILCV_ROWS = ("V", "S", "R", "RF", "F", "C")


# ------------------------------------------------------------------ shared constraints / helpers
@dataclass(frozen=True)
class OptionalPositive(Constraint):
    """None, or a finite real number > 0."""

    what: str = "a number > 0"

    def check(self, name, value, values):
        if value is None:
            return None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
                or value <= 0:
            raise InvalidParameterError(f"{name} must be None or {self.what}; got {_show(value)}.")
        return float(value)

    def invalid_values(self, name, values):
        return [0, -1.0, float("nan"), float("inf"), "1", True]


@dataclass(frozen=True)
class IntAtLeast(Constraint):
    """An integer >= ``low``."""

    low: int = 1
    note: str = ""

    def check(self, name, value, values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)) \
                or int(value) < self.low:
            extra = f" {self.note}" if self.note else ""
            raise InvalidParameterError(f"{name} must be an integer >= {self.low}; got {_show(value)}.{extra}")
        return int(value)

    def invalid_values(self, name, values):
        return [self.low - 1, 2.5, "2", True, None]


def paired_frames(x: pd.DataFrame, xm: pd.DataFrame, *, same_rows: bool = True, func: str = ""):
    """Align ``xm``'s columns to ``x``'s by name; refuse different variables (and row counts).

    With ``same_rows`` (records compared pairwise, by position) an :class:`~pysdc.AlignmentWarning`
    is given when the two DataFrames' indexes differ, and ``xm`` is returned with ``x``'s index
    (so that nested measures do not warn again).
    """
    xm = same_columns(x, xm)
    if x.shape[1] == 0:
        raise InvalidParameterError("x has no columns; pass at least one variable.")
    if same_rows and x.shape[0] != xm.shape[0]:
        raise InvalidParameterError(
            f"x has {x.shape[0]} rows but xm has {xm.shape[0]}; this measure compares record by record, "
            "so both must hold the same records in the same order."
        )
    if same_rows and not x.index.equals(xm.index):
        warn_if_unaligned(func or "this measure", x, xm)
        xm = xm.set_axis(x.index, axis=0)
    return x, xm


def degenerate(message: str) -> None:
    warnings.warn(message, DegenerateResultWarning, stacklevel=user_stacklevel())


def _float_matrix(name: str, frame: pd.DataFrame) -> np.ndarray:
    bad = [(c, r_class(frame[c])) for c in frame.columns if r_class(frame[c]) not in ("numeric", "integer", "logical")]
    if bad:
        shown = ", ".join(f"{c!r} ({cls})" for c, cls in bad[:5])
        raise InvalidParameterError(
            f"il_continuous needs numeric variables, but {name} has non-numeric column(s) {shown}. "
            "Select the continuous variables, and measure categorical ones with il_categorical."
        )
    if all(dt == np.float64 for dt in frame.dtypes):
        out = frame.to_numpy(dtype=np.float64, copy=False)  # a view of a single float block
    else:
        out = np.empty(frame.shape, dtype=np.float64, order="F")
        for j, c in enumerate(frame.columns):
            out[:, j] = frame[c].to_numpy(dtype=np.float64, na_value=np.nan)
    if out.size and not np.isfinite(out.sum()) and np.isinf(out).any():  # cheap test first
        cols = [c for j, c in enumerate(frame.columns) if np.isinf(out[:, j]).any()]
        raise InvalidParameterError(
            f"{name} has infinite values in column(s) {cols[:5]}; information loss is undefined for them. "
            "Replace them with NaN (missing) or with finite values."
        )
    return out


# ------------------------------------------------------------------ result
@dataclass(frozen=True, eq=False, repr=False)
class ContinuousLossResult(_Repr):
    """Result of :func:`il_continuous`.

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed ``["X", "Xbar", "V", "S", "R", "RF", "C", "F"]`` with columns
        ``["mse", "mae", "mean_variation"]`` (mean variation as a fraction, not in percent).
    il1 : float
        Yancey--Winkler--Creecy's IL1: ``(1/np) Σ |x - x'| / (√2 S_j)``.
    gilcv : float
        Todorova's GILCV: 100 × the mean of the mean variations of V, S, R, RF, F and C.
    n : int
        Number of records given.
    n_used : int
        Number of records used: those complete (no missing value) in both ``x`` and ``xm``.
    zero_originals : pandas.Series
        Per table row, the number of cells left out of the mean variation because the
        original value is exactly 0.
    capped : pandas.Series
        Per table row, the number of relative variations capped at ``max_variation``.
    max_variation : float or None
        Trottini's bound on each relative variation (None: no bound).
    variables : tuple
        The variables compared, in ``x``'s order.
    matrices : dict
        The statistics compared, ``{row: (original, masked)}`` as NumPy arrays (``X`` is
        left out): ``Xbar`` means, ``V`` covariances, ``S`` variances, ``R`` correlations,
        ``RF`` variable--component correlations, ``C`` communalities, ``F`` loadings, plus
        ``"eigenvalues"`` and ``"weights"`` (the ``w_j``).
    """

    table: pd.DataFrame
    il1: float
    gilcv: float
    n: int
    n_used: int
    zero_originals: pd.Series
    capped: pd.Series
    max_variation: float | None = None
    variables: tuple = field(default=(), repr=False)
    matrices: dict = field(default_factory=dict, repr=False)


IL_CONTINUOUS_PARAMS = {
    "x": Frame(allow_array=True),
    "xm": Frame(allow_array=True),
    "max_variation": OptionalPositive(what="a number > 0 (the cap on each relative variation)"),
    "cov_divisor": Options(("handbook", "todorova")),
    "component_weights": Options(("eigenvalue", "none")),
}


# ------------------------------------------------------------------ the kernel
def _discrepancy(orig: np.ndarray, masked: np.ndarray, weights: np.ndarray | None, max_variation, n_cells=None):
    """(mse, mae, mean_variation, zeros, capped) of two equally shaped arrays of cells.

    ``weights`` (same shape) multiply each cell; ``n_cells`` replaces the number of cells
    as divisor of mse and mae (and, minus the skipped cells, of the mean variation).
    """
    orig = np.asarray(orig, dtype=np.float64).ravel()
    masked = np.asarray(masked, dtype=np.float64).ravel()
    w = np.ones_like(orig) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    cells = orig.size if n_cells is None else n_cells
    if cells == 0:
        return np.nan, np.nan, np.nan, 0, 0
    d = np.abs(orig - masked)
    mse = float(np.sum(w * d * d)) / cells
    mae = float(np.sum(w * d)) / cells
    keep = orig != 0
    zeros = int(orig.size - np.count_nonzero(keep))
    kept = cells - zeros
    if kept <= 0:
        return mse, mae, np.nan, zeros, 0
    with np.errstate(invalid="ignore", divide="ignore"):
        v = d[keep] / np.abs(orig[keep])
    capped = 0
    if max_variation is not None:
        capped = int(np.count_nonzero(v > max_variation))
        np.minimum(v, max_variation, out=v)
    mv = float(np.sum(w[keep] * v)) / kept
    return mse, mae, mv, zeros, capped


def _x_row(X: np.ndarray, XM: np.ndarray, max_variation):
    """The X row over all n·p cells, and IL1, one variable at a time (no n × p temporaries)."""
    n, p = X.shape
    cells = n * p
    if cells == 0:
        return (np.nan, np.nan, np.nan, 0, 0), np.nan
    sq = ab = rel = il1 = 0.0
    zeros = capped = 0
    d = np.empty(n)  # reused buffers: fresh large arrays cost page faults
    buf = np.empty(n)
    for j in range(p):
        a = X[:, j]
        np.subtract(a, XM[:, j], out=d)
        np.abs(d, out=d)
        sq += float(np.einsum("i,i->", d, d))  # no BLAS threads for a dot product
        s = float(d.sum())
        ab += s
        # IL1 (Yancey, Winkler and Creecy): |x - x'| / (sqrt(2) S_j), S_j the sample sd of the original
        np.subtract(a, a.mean(), out=buf)
        sd = float(np.sqrt(np.einsum("i,i->", buf, buf) / (n - 1))) if n >= 2 else np.nan
        if sd == 0.0:
            il1 += np.inf if s > 0 else 0.0  # c/0 = Inf; unchanged cells (0/0) count 0
        else:
            il1 += s / (sd * np.sqrt(2.0))
        nz = int(np.count_nonzero(a))
        zeros += n - nz
        if nz:
            if nz < n:
                keep = a != 0
                v = d[keep] / np.abs(a[keep])
            else:
                v = np.divide(d, a, out=buf)
                np.abs(v, out=v)
            if max_variation is not None:
                capped += int(np.count_nonzero(v > max_variation))
                np.minimum(v, max_variation, out=v)
            rel += float(v.sum())
    kept = cells - zeros
    return (sq / cells, ab / cells, (rel / kept if kept else np.nan), zeros, capped), il1 / cells


def _cov(X: np.ndarray, mean: np.ndarray, block: int = 1 << 15) -> np.ndarray:
    """Sample (n - 1) covariance matrix, centring block by block of rows (small temporaries)."""
    n, p = X.shape
    G = np.zeros((p, p))
    buf = np.empty((min(block, n), p))
    for start in range(0, n, block):
        A = buf[: min(block, n - start)]
        np.subtract(X[start:start + block], mean, out=A)
        G += A.T @ A
    G = (G + G.T) / 2
    return G / (n - 1)


def _pca(R: np.ndarray):
    """Eigenvalues (decreasing) and eigenvectors (columns) of a correlation matrix."""
    vals, vecs = scipy.linalg.eigh(R, driver="evr")
    return vals[::-1].copy(), vecs[:, ::-1].copy()


def _continuous_kernel(X, XM, *, max_variation, cov_divisor, component_weights):
    n, p = X.shape
    stats = {}
    rows = {}

    rows["X"], stats["il1"] = _x_row(X, XM, max_variation)

    with np.errstate(invalid="ignore", divide="ignore"):
        m1, m2 = X.mean(axis=0) if n else np.full(p, np.nan), XM.mean(axis=0) if n else np.full(p, np.nan)
    stats["Xbar"] = (m1, m2)
    rows["Xbar"] = _discrepancy(m1, m2, None, max_variation) if n else (np.nan,) * 3 + (0, 0)

    if n >= 2:
        V1, V2 = _cov(X, m1), _cov(XM, m2)
    else:
        V1 = V2 = np.full((p, p), np.nan)
    stats["V"] = (V1, V2)
    if cov_divisor == "handbook":
        iu = np.triu_indices(p)  # i <= j
        rows["V"] = _discrepancy(V1[iu], V2[iu], None, max_variation)
    else:  # Todorova: the i < j cells, divided by p(p+1)/2
        iu = np.triu_indices(p, 1)
        rows["V"] = _discrepancy(V1[iu], V2[iu], None, max_variation, n_cells=p * (p + 1) // 2)

    s1, s2 = np.diag(V1).copy(), np.diag(V2).copy()
    stats["S"] = (s1, s2)
    rows["S"] = _discrepancy(s1, s2, None, max_variation)

    with np.errstate(invalid="ignore", divide="ignore"):
        d1, d2 = np.sqrt(s1), np.sqrt(s2)
        R1, R2 = V1 / np.outer(d1, d1), V2 / np.outer(d2, d2)
    for Rk in (R1, R2):
        np.fill_diagonal(Rk, np.where(np.isfinite(np.diag(Rk)), 1.0, np.nan))
        np.clip(Rk, -1.0, 1.0, out=Rk)
    stats["R"] = (R1, R2)
    iu1 = np.triu_indices(p, 1)
    rows["R"] = _discrepancy(R1[iu1], R2[iu1], None, max_variation)

    if np.isfinite(R1).all() and np.isfinite(R2).all():
        l1, E1 = _pca(R1)
        l2, E2 = _pca(R2)
        l1, l2 = np.clip(l1, 0.0, None), np.clip(l2, 0.0, None)
        # original: largest |component| positive (a reporting convention; the measures do not depend on it)
        big = np.argmax(np.abs(E1), axis=0)
        E1 *= np.where(E1[big, np.arange(p)] < 0, -1.0, 1.0)
        # masked: each component's sign aligned to the original's
        E2 *= np.where(np.sum(E1 * E2, axis=0) < 0, -1.0, 1.0)
        RF1, RF2 = E1 * np.sqrt(l1), E2 * np.sqrt(l2)
        w = l1 / p if component_weights == "eigenvalue" else np.ones(p)
    else:
        l1 = l2 = w = np.full(p, np.nan)
        E1 = E2 = RF1 = RF2 = np.full((p, p), np.nan)
    W = np.broadcast_to(w, (p, p))  # W[i, j] = w_j
    stats["RF"] = (RF1, RF2)
    rows["RF"] = _discrepancy(RF1, RF2, W, max_variation)
    C1, C2 = RF1[:, 0] ** 2, RF2[:, 0] ** 2
    stats["C"] = (C1, C2)
    rows["C"] = _discrepancy(C1, C2, None, max_variation)
    stats["F"] = (E1, E2)
    rows["F"] = _discrepancy(E1, E2, W, max_variation)
    stats["eigenvalues"] = (l1, l2)
    stats["weights"] = w
    return rows, stats


# ------------------------------------------------------------------ public function
@measure(IL_CONTINUOUS_PARAMS, selects="numeric", by_name=True)
def il_continuous(
    x: pd.DataFrame | np.ndarray,
    xm: pd.DataFrame | np.ndarray,
    *,
    max_variation: float | None = None,
    cov_divisor: str = "handbook",
    component_weights: str = "eigenvalue",
) -> ContinuousLossResult:
    r"""Information loss for continuous variables: the Domingo-Ferrer--Mateo-Sanz--Torra table, IL1, GILCV.

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    x : pandas.DataFrame or numpy.ndarray
        Original data: numeric (float, integer or boolean) variables, one row per record.
    xm : pandas.DataFrame or numpy.ndarray
        Masked data: the same records in the same order and the same variables
        (DataFrame columns matched by name, arrays by position).
    max_variation : float, optional
        Trottini's (2003) bound: each relative variation ``|o - m| / |o|`` is capped at this
        value before averaging (e.g. ``1.0`` for 100 %). Default: no cap.
    cov_divisor : {"handbook", "todorova"}, default "handbook"
        ``"handbook"``: the V row sums the cells ``i <= j`` and divides by their number
        ``p(p+1)/2``. ``"todorova"``: Todorova's table, which sums ``i < j`` only but still
        divides by ``p(p+1)/2``.
    component_weights : {"eigenvalue", "none"}, default "eigenvalue"
        ``"eigenvalue"``: the RF and F rows weight component ``j`` by
        ``w_j = eigenvalue_j / p`` (the handbook). ``"none"``: ``w_j = 1`` (Todorova's table).

    Returns
    -------
    ContinuousLossResult
        ``.table`` (rows ``X, Xbar, V, S, R, RF, C, F`` × columns ``mse, mae,
        mean_variation``), ``.il1``, ``.gilcv``, ``.n``, ``.n_used``,
        ``.zero_originals``, ``.capped``, ``.matrices``.

    Raises
    ------
    InvalidParameterError
        Non-numeric or infinite values, different variables or row counts in ``x`` and
        ``xm``, a bad option.

    Warns
    -----
    DegenerateResultWarning
        Where a number is NaN or Inf: fewer than two complete records, a constant variable
        (no correlation), a row whose original cells are all 0, fewer than two variables
        (no correlation pairs, so no GILCV).

    See Also
    --------
    il_categorical, hellinger, gsil, d_utility

    Notes
    -----
    Conventions (the handbook's table, Domingo-Ferrer, Mateo-Sanz and Torra 2001):

    * Records: those complete (no missing value in any variable) in both ``x`` and ``xm``
      (``n_used``); every statistic is computed on them.
    * ``X``: all ``n·p`` cells. ``Xbar``: the ``p`` means. ``V``: the sample (``n - 1``)
      covariances over ``i <= j`` (``p(p+1)/2`` cells). ``S``: the ``p`` variances.
      ``R``: the Pearson correlations over ``i < j`` (``p(p-1)/2`` cells).
    * Principal components of the **correlation** matrix, in decreasing order of
      eigenvalue; ``F`` holds the loadings = the unit-length eigenvectors (variable ``i``
      is ``Σ_j f_ij PC_j`` with unstandardised components), ``RF`` the variable--component
      correlations ``rf_ij = f_ij √λ_j``, ``C`` the communalities with the first
      component ``c_i = rf_i1²`` (proportions in [0, 1]). Each masked component's sign is
      aligned to the original's (flipped when their inner product is negative); the
      original's sign is fixed by making its largest component positive (the measures do
      not depend on that). Components are matched by rank: with (nearly) equal
      eigenvalues the eigenvectors are not identified and RF, F, C are not meaningful.
    * ``RF`` and ``F`` weight column ``j`` by ``w_j = λ_j / p`` (original eigenvalues,
      summing to 1): ``mse = Σ_j w_j Σ_i (o_ij - m_ij)² / p²``, likewise ``mae`` and
      ``mean_variation``.
    * mse and mae divide by the number of cells; the **mean variation** is
      ``Σ w·|o - m| / |o|`` over the cells whose original value is not 0, divided by the
      number of those cells (cells with ``o == 0`` are skipped and counted in
      ``zero_originals``); with ``max_variation`` each ``|o - m| / |o|`` is first capped.
      It is a fraction (the handbook calls it a percent variation; multiply by 100).
    * ``il1 = (1/(n p)) Σ_j Σ_i |x_ij - x'_ij| / (√2 S_j)`` with ``S_j`` the sample sd of
      the original variable (Yancey, Winkler and Creecy 2002). A constant original
      variable that was changed gives Inf.
    * ``gilcv = 100 · mean(mean_variation of V, S, R, RF, F, C)`` (Todorova).

    Where the sources differ: Todorova's table sums the covariances over ``i < j`` but
    divides by ``W(W+1)/2`` (``cov_divisor="todorova"``), leaves out the weights ``w_j``
    (``component_weights="none"``) and prints some mean-variation denominators
    (``cov_O^j``, ``f_O^j``) that are not the cell's own original value — pysdc always
    divides by the cell's original value, as the handbook does.

    Relation to sdcMicro: ``il1`` equals ``d_utility(x, xm, method="IL1s", average=True)``
    (sdcMicro's ``dUtility`` IL1s divided by ``n·p``) on data without missing values. With
    missing values they differ by design: ``il_continuous`` uses the complete records only,
    ``d_utility`` takes each variable's sd over its own non-missing values, drops missing
    cells from the sum and still divides by all ``n·p`` cells. On the complete records
    (``x[ok], xm[ok]``) the two agree again.

    References
    ----------
    Domingo-Ferrer, J., Mateo-Sanz, J.M. and Torra, V. (2001). Comparing SDC methods for
    microdata on the basis of information loss and disclosure risk. ETK-NTTS 2001.

    Hundepool, A. et al. Handbook on Statistical Disclosure Control, "Measurement of
    information loss" (information loss measures for continuous data).

    Todorova, M. Measures for information loss in protected data (GILCV).

    Trottini, M. (2003). Decision models for data disclosure limitation. PhD thesis, CMU.

    Yancey, W.E., Winkler, W.E. and Creecy, R.H. (2002). Disclosure risk assessment in
    perturbative microdata protection. LNCS 2316, 135-152.

    Examples
    --------
    Two records, one variable: x = (1, 3), x' = (2, 3). X cells: differences 1 and 0, so
    mse = (1² + 0²)/2 = 0.5, mae = 0.5, mean variation = (1/1 + 0/3)/2 = 0.5. Means 2 and
    2.5: Xbar mse = 0.25, mean variation = 0.5/2 = 0.25. Variances (n - 1): 2 and 0.5:
    S mse = 2.25, mean variation = 1.5/2 = 0.75. IL1 = (1 + 0) / (√2 · √2) / 2 = 0.25.

    >>> import warnings, pandas as pd
    >>> from pysdc.loss._continuous import il_continuous
    >>> with warnings.catch_warnings():  # one variable: no correlations, so GILCV is NaN (warned)
    ...     warnings.simplefilter("ignore")
    ...     r = il_continuous(pd.DataFrame({"a": [1.0, 3.0]}), pd.DataFrame({"a": [2.0, 3.0]}))
    >>> r.table.loc["X"].tolist(), float(r.table.loc["S", "mean_variation"]), round(r.il1, 12)
    ([0.5, 0.5, 0.5], 0.75, 0.25)
    """
    xf, xmf = paired_frames(x, xm, func="il_continuous")
    variables = tuple(xf.columns)
    X = _float_matrix("x", xf)
    XM = _float_matrix("xm", xmf)
    n, p = X.shape
    n_used = n
    if X.size and not (np.isfinite(X.sum()) and np.isfinite(XM.sum())):  # some value is missing
        ok = ~(np.isnan(X).any(axis=1) | np.isnan(XM).any(axis=1))
        n_used = int(ok.sum())
        X, XM = np.asfortranarray(X[ok]), np.asfortranarray(XM[ok])

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        rows, stats = _continuous_kernel(
            X, XM, max_variation=max_variation, cov_divisor=cov_divisor, component_weights=component_weights
        )
        il1 = stats.pop("il1")
    table = pd.DataFrame(
        [[rows[r][0], rows[r][1], rows[r][2]] for r in ROWS], index=list(ROWS), columns=list(COLUMNS), dtype=np.float64
    )
    zeros = pd.Series({r: rows[r][3] for r in ROWS}, dtype=np.int64, name="zero_originals")
    capped = pd.Series({r: rows[r][4] for r in ROWS}, dtype=np.int64, name="capped")
    gil = table.loc[list(GILCV_ROWS), "mean_variation"].to_numpy()
    gilcv = float(100.0 * gil.mean()) if np.isfinite(gil).all() else np.nan

    problems = []
    if n_used < 2:
        problems.append(f"only {n_used} complete record(s) (covariances need at least 2)")
    else:
        if p < 2:
            problems.append("a single variable has no correlation pair (R row empty, so no GILCV)")
        const = [v for v, s1, s2 in zip(variables, *stats["S"]) if s1 == 0 or s2 == 0]
        if const:
            problems.append(f"constant variable(s) {list(const)[:5]} have no correlations or components")
        allzero = [r for r in ROWS if not np.isnan(table.loc[r, "mse"]) and np.isnan(table.loc[r, "mean_variation"])]
        if allzero and not const:
            problems.append(f"row(s) {allzero} have only zero original cells (no mean variation)")
    if not np.isfinite(il1) and n_used >= 2:
        problems.append("il1 is Inf: a constant original variable was changed (sd 0)")
    if problems or table.isna().any().any() or not np.isfinite(gilcv):
        missing = [r for r in ROWS if table.loc[r].isna().any()]
        degenerate(
            "il_continuous: degenerate result"
            + (f" (NaN in row(s) {missing})" if missing else "")
            + ": " + ("; ".join(problems) if problems else "see the table")
            + "."
        )
    matrices = {k: v for k, v in stats.items()}
    return ContinuousLossResult(
        table=table,
        il1=float(il1),
        gilcv=gilcv,
        n=int(n),
        n_used=n_used,
        zero_originals=zeros,
        capped=capped,
        max_variation=max_variation,
        variables=variables,
        matrices=matrices,
    )
