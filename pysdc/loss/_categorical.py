"""Information loss for categorical data as the literature defines it (no sdcMicro counterpart).

Direct comparison of categories, contingency-table based loss (CTBIL) and the
entropy-based EBIL and PRIL of Domingo-Ferrer and Torra (2001), as the SDC handbook
and Todorova give them. Also the shared coding of categorical columns (integer codes
over a common list of categories) used by the Hellinger, entropy and GSIL measures.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._foreign import measure
from .._results import _Repr
from .._types import r_class
from .._validation import Constraint, Frame, Options
from ._continuous import IntAtLeast, degenerate, paired_frames

__all__ = ["il_categorical", "CategoricalLossResult", "IL_CATEGORICAL_PARAMS", "code_pair", "code_column"]


# ------------------------------------------------------------------ coding
@dataclass(frozen=True)
class Coded:
    """One variable of ``x`` and ``xm`` as integer codes over a common list of categories.

    ``codes_x``/``codes_xm`` are int64 codes in ``[0, n_categories)``; missing values have
    their own code (the last one for nominal variables, the first -- below the lowest
    category -- for ordinal ones). ``labels`` are the categories in code order (None for NA).
    ``n_declared`` counts every declared category (used or not) plus NA if it occurs.
    """

    codes_x: np.ndarray
    codes_xm: np.ndarray
    labels: list
    ordered: bool
    has_na: bool
    from_categorical: bool = False

    @property
    def n_categories(self) -> int:
        return len(self.labels)


def _is_cat(s: pd.Series) -> bool:
    return isinstance(s.dtype, pd.CategoricalDtype)


def _refuse_float(name: str, s: pd.Series, measure: str) -> None:
    cls = r_class(s)
    if cls == "numeric":
        raise InvalidParameterError(
            f"column {name!r} is float; {measure} compares categories. Convert it with "
            f"x[{name!r}].astype('category') (and the same in xm) if its values are categories, "
            "or measure continuous variables with il_continuous / hellinger."
        )
    if cls == "POSIXct":
        raise InvalidParameterError(
            f"column {name!r} is a datetime; {measure} compares categories. Convert it to a Categorical "
            "(e.g. of the year or month) in both x and xm."
        )


def code_pair(name, sx: pd.Series, sxm: pd.Series, *, measure: str = "il_categorical") -> Coded:
    """Integer codes of one categorical variable in ``x`` and ``xm`` over common categories.

    Categoricals keep their declared categories (used or not) in order; when the two
    frames declare different categories of a nominal variable, the union is used (``x``'s
    first). Ordinal variables (ordered Categoricals) must declare the same categories in
    both. Other columns (string, integer, boolean) are nominal with the observed values
    as categories. Float and datetime columns are refused.
    """
    cat_x, cat_xm = _is_cat(sx), _is_cat(sxm)
    ordered = (cat_x and sx.dtype.ordered) or (cat_xm and sxm.dtype.ordered)
    if ordered:
        if not (cat_x and cat_xm and sx.dtype.ordered and sxm.dtype.ordered):
            raise InvalidParameterError(
                f"column {name!r} is an ordered Categorical in only one of x and xm; an ordinal variable must be "
                f"ordered in both. Use xm[{name!r}] = xm[{name!r}].astype(x[{name!r}].dtype)."
            )
        if list(sx.cat.categories) != list(sxm.cat.categories):
            raise InvalidParameterError(
                f"ordered column {name!r} has categories {list(sx.cat.categories)[:10]} in x but "
                f"{list(sxm.cat.categories)[:10]} in xm; the ordinal distance needs the same categories in the "
                f"same order. Use xm[{name!r}] = xm[{name!r}].cat.set_categories(x[{name!r}].cat.categories) "
                "(values outside them become missing), or recode both to common categories."
            )
        cx = sx.cat.codes.to_numpy().astype(np.int64)
        cxm = sxm.cat.codes.to_numpy().astype(np.int64)
        labels = list(sx.cat.categories)
        has_na = bool((cx < 0).any() or (cxm < 0).any())
        if has_na:  # NA is its own category, below the lowest one
            cx += 1
            cxm += 1
            labels = [None] + labels
        return Coded(cx, cxm, labels, True, has_na, True)

    if cat_x and cat_xm:
        labels = list(sx.cat.categories)
        cx = sx.cat.codes.to_numpy().astype(np.int64)
        if sxm.cat.categories.equals(sx.cat.categories):
            cxm = sxm.cat.codes.to_numpy().astype(np.int64)
        else:
            union = pd.Index(labels).append(sxm.cat.categories.difference(sx.cat.categories, sort=False))
            labels = list(union)
            mapper = np.append(union.get_indexer(sxm.cat.categories), -1).astype(np.int64)
            cxm = mapper[sxm.cat.codes.to_numpy().astype(np.int64)]  # code -1 picks the appended -1
    else:
        for s in (sx, sxm):
            if not _is_cat(s):
                _refuse_float(name, s, measure)
        both = pd.concat(
            [sx.astype(object) if _is_cat(sx) else sx, sxm.astype(object) if _is_cat(sxm) else sxm],
            ignore_index=True,
        )
        codes, uniques = pd.factorize(both, use_na_sentinel=True)
        codes = codes.astype(np.int64)
        labels = list(uniques)
        # declared but unused categories of a Categorical side still count as categories
        for s in (sx, sxm):
            if _is_cat(s):
                known = set(labels)
                labels += [c for c in s.cat.categories if c not in known]
        cx, cxm = codes[: len(sx)], codes[len(sx):]
    has_na = bool((cx < 0).any() or (cxm < 0).any())
    if has_na:  # NA is its own category, the last one
        k = len(labels)
        cx = np.where(cx < 0, k, cx)
        cxm = np.where(cxm < 0, k, cxm)
        labels = labels + [None]
    return Coded(cx, cxm, labels, False, has_na, cat_x and cat_xm)


def code_column(name, s: pd.Series, *, measure: str) -> tuple[np.ndarray, int]:
    """Codes of one column on its own (NA its own category) and the number of categories."""
    if _is_cat(s):
        c = s.cat.codes.to_numpy().astype(np.int64)
        k = len(s.cat.categories)
    else:
        c, uniques = pd.factorize(s, use_na_sentinel=True)
        c = c.astype(np.int64)
        k = len(uniques)
    if (c < 0).any():
        c = np.where(c < 0, k, c)
        k += 1
    return c, k


def joint_codes(columns: list[np.ndarray], radices: list[int], *, dense_limit: int) -> tuple[np.ndarray, int, bool]:
    """Mixed-radix code of several code columns: (codes, number of possible cells, dense?).

    Dense (``codes < Π radices``) while the product stays below ``dense_limit``;
    otherwise the running code is re-factorised, so the codes index only the observed
    combinations (``dense`` False and the returned count is the number of those).
    """
    code = columns[0]
    size = radices[0]
    dense = True
    for c, k in zip(columns[1:], radices[1:]):
        if size * k >= dense_limit:
            code, uniq = pd.factorize(code)
            code = code.astype(np.int64)
            size = len(uniq)
            dense = False
        code = code * k + c
        size = size * k
    if size >= dense_limit:
        code, uniq = pd.factorize(code)
        code = code.astype(np.int64)
        size = len(uniq)
        dense = False
    return code, size, dense


# ------------------------------------------------------------------ constraints
@dataclass(frozen=True)
class Transition(Constraint):
    """None, or a dict {column: PRAM matrix (DataFrame or square array)}; checked in the body."""

    def check(self, name, value, values):
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise InvalidParameterError(
                f"{name} must be None or a dict mapping column names to PRAM transition matrices "
                f"P(V' = j | V = i) (DataFrames with the categories as index and columns); got {type(value).__name__}."
            )
        for col in value:
            if col not in values["x"].columns:
                raise InvalidParameterError(f"{name} names column {col!r}, which is not a column of x.")
        return dict(value)

    def invalid_values(self, name, values):
        return [[[1.0]], {"__no_such_column__": np.eye(2)}]


IL_CATEGORICAL_PARAMS = {
    "x": Frame(),
    "xm": Frame(),
    "max_dim": IntAtLeast(low=1, note="(the largest number of variables in one contingency table)"),
    "transition": Transition(),
    "ordinal_distance": Options(("handbook", "mlodak")),
}


# ------------------------------------------------------------------ result
@dataclass(frozen=True, eq=False, repr=False)
class CategoricalLossResult(_Repr):
    """Result of :func:`il_categorical`.

    Attributes
    ----------
    direct : pandas.Series
        Per variable, the mean over records of the distance between the original and the
        masked category (nominal: 0/1; ordinal: the handbook's rank distance).
    ctbil : int
        Contingency-table based information loss: Σ over the tables of Σ over their
        cells of ``|count_x - count_xm|``.
    ctbil_normalized : float
        ``ctbil`` divided by ``n_cells``.
    ebil : pandas.Series
        Per variable, entropy-based information loss ``Σ_r H(V | V' = j_r)`` (natural log).
    pril : pandas.Series
        Per variable, ``Σ_r -log P(V = i_r | V' = j_r)`` (natural log).
    n : int
        Number of records.
    n_cells : int
        Total number of cells of the contingency tables compared.
    max_dim : int
        The largest number of variables in one table.
    ctbil_tables : pandas.Series
        CTBIL of each table, indexed by the tuple of its variables.
    ordinal_distance : str
        ``"handbook"`` or ``"mlodak"``.
    """

    direct: pd.Series
    ctbil: int
    ctbil_normalized: float
    ebil: pd.Series
    pril: pd.Series
    n: int
    n_cells: int
    max_dim: int
    ctbil_tables: pd.Series = field(repr=False, default=None)
    ordinal_distance: str = "handbook"


# ------------------------------------------------------------------ pieces
def _direct(cd: Coded, ordinal_distance: str, name) -> float:
    n = cd.codes_x.size
    if n == 0:
        return np.nan
    if not cd.ordered:
        return float(np.count_nonzero(cd.codes_x != cd.codes_xm)) / n
    k = cd.n_categories
    denom = k if ordinal_distance == "handbook" else k - 1
    if denom <= 0:
        degenerate(
            f"il_categorical: the ordinal distance of {name!r} is NaN: with ordinal_distance='mlodak' a variable "
            "with a single category divides by levels - 1 = 0."
        )
        return np.nan
    return float(np.abs(cd.codes_x - cd.codes_xm).sum()) / denom / n


def _present(cd: Coded) -> tuple[np.ndarray, int]:
    """Codes over the categories present in x or xm only (0..k-1), for CTBIL, concatenated (x then xm)."""
    k = cd.n_categories
    used = (np.bincount(cd.codes_x, minlength=k) + np.bincount(cd.codes_xm, minlength=k)) > 0
    remap = np.cumsum(used) - 1
    both = np.concatenate([cd.codes_x, cd.codes_xm])
    return remap[both], int(used.sum())


def _ctbil(coded: list[Coded], names: list, max_dim: int, n: int):
    present = [_present(cd) for cd in coded]
    tables = {}
    total = 0
    n_cells = 0
    dense_limit = max(8 * n, 1 << 16)
    for d in range(1, min(max_dim, len(coded)) + 1):
        for combo in itertools.combinations(range(len(coded)), d):
            ks = [present[i][1] for i in combo]
            cells = math.prod(ks)
            n_cells += cells
            code, size, _ = joint_codes([present[i][0] for i in combo], ks, dense_limit=dense_limit)
            diff = np.bincount(code[:n], minlength=size) - np.bincount(code[n:], minlength=size)
            s = int(np.abs(diff).sum())
            tables[tuple(names[i] for i in combo)] = s
            total += s
    return total, n_cells, tables


def _xlogx_over(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """-counts * log(counts / totals), 0 where counts is 0."""
    out = np.zeros(counts.shape, dtype=np.float64)
    pos = counts > 0
    out[pos] = -counts[pos] * np.log(counts[pos] / totals[pos])
    return out


def _pairs(cd: Coded, n: int):
    """Observed (i, j) pairs of original/masked codes and their counts."""
    k = cd.n_categories
    joint = cd.codes_x * k + cd.codes_xm
    if k * k <= max(8 * n, 1 << 16):
        counts = np.bincount(joint, minlength=k * k)
        nz = np.flatnonzero(counts)
        return nz // k, nz % k, counts[nz].astype(np.float64)
    uniq, counts = np.unique(joint, return_counts=True)
    return uniq // k, uniq % k, counts.astype(np.float64)


def _transition_matrix(name, matrix, cd: Coded) -> np.ndarray:
    """The PRAM matrix P(V' = j | V = i) over the variable's codes (NA kept fixed)."""
    labels = [lab for lab in cd.labels if lab is not None]
    if isinstance(matrix, pd.DataFrame):
        idx, cols = matrix.index, matrix.columns
        T = pd.DataFrame(0.0, index=pd.Index(labels, dtype=object), columns=pd.Index(labels, dtype=object))
        rows_known = [lab for lab in labels if lab in idx]
        cols_known = [lab for lab in labels if lab in cols]
        try:
            vals = matrix.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"transition[{name!r}] must hold numbers (probabilities).") from None
        full = pd.DataFrame(vals, index=idx.astype(object), columns=cols.astype(object))
        T.loc[rows_known, cols_known] = full.loc[rows_known, cols_known].to_numpy()
        rowsum_all = full.sum(axis=1)
        missing_rows = [lab for lab in labels if lab not in idx]
        A = T.to_numpy()
        check_vals, check_sums = vals, rowsum_all.to_numpy()
    else:
        arr = np.asarray(matrix, dtype=np.float64) if not isinstance(matrix, (str, bytes)) else None
        if arr is None or arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise InvalidParameterError(
                f"transition[{name!r}] must be a DataFrame (categories as index and columns) or a square array; "
                f"got {type(matrix).__name__}."
            )
        if not cd.from_categorical:
            raise InvalidParameterError(
                f"transition[{name!r}] is an array, but {name!r} is not a Categorical, so its categories have no "
                "declared order; pass a DataFrame with the categories as index and columns."
            )
        if arr.shape[0] != len(labels):
            raise InvalidParameterError(
                f"transition[{name!r}] is a {arr.shape[0]}x{arr.shape[1]} array but {name!r} has {len(labels)} "
                "categories; give a square array over the categories in their order, or a DataFrame with the "
                "categories as index and columns."
            )
        A = arr.copy()
        missing_rows = []
        check_vals, check_sums = arr, arr.sum(axis=1)
    if not np.isfinite(check_vals).all() or (check_vals < 0).any() or (check_vals > 1).any():
        raise InvalidParameterError(
            f"transition[{name!r}] must hold probabilities in [0, 1]; got values outside, or missing values."
        )
    if np.abs(check_sums - 1.0).max(initial=0.0) > 1e-9:
        raise InvalidParameterError(
            f"transition[{name!r}] rows must sum to 1 (each row is P(V' = . | V = i)); got row sums "
            f"{np.round(check_sums, 6)[:6].tolist()}. Normalise the rows."
        )
    # categories observed in x must have a row
    k = cd.n_categories
    used_x = np.bincount(cd.codes_x, minlength=k) > 0
    lab_pos = [i for i, lab in enumerate(cd.labels) if lab is not None]
    bad = [cd.labels[i] for i in lab_pos if used_x[i] and cd.labels[i] in missing_rows]
    if bad:
        raise InvalidParameterError(
            f"transition[{name!r}] has no row for the categories {bad[:10]} that occur in x; give P(V' = j | V = i) "
            "for every category of the original variable."
        )
    full = np.zeros((k, k))
    full[np.ix_(lab_pos, lab_pos)] = A
    if cd.has_na:  # missing values are not perturbed
        na = cd.labels.index(None)
        full[na, na] = 1.0
    return full


def _ebil_pril(cd: Coded, matrix, name, n: int) -> tuple[float, float]:
    if n == 0:
        return np.nan, np.nan
    i, j, nij = _pairs(cd, n)
    k = cd.n_categories
    if matrix is None:
        # P(V = i | V' = j) estimated from the cross-table: n_ij / n_.j
        col = np.bincount(cd.codes_xm, minlength=k).astype(np.float64)
        pril = float(_xlogx_over(nij, col[j]).sum())
        return pril, pril  # with the estimated posterior EBIL and PRIL are the same sum
    T = _transition_matrix(name, matrix, cd)
    prior = np.bincount(cd.codes_x, minlength=k).astype(np.float64) / n
    joint = T * prior[:, None]  # P(V = i, V' = j)
    pj = joint.sum(axis=0)  # P(V' = j) under the model
    m = np.bincount(cd.codes_xm, minlength=k).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        post = joint / pj  # P(V = i | V' = j)
        impossible_j = (m > 0) & (pj <= 0)
        ent = np.where(post > 0, -post * np.log(post), 0.0).sum(axis=0)
        ebil = float(np.sum(m[m > 0] * ent[m > 0]))
        q = post[i, j]
        pril = float(np.sum(-nij * np.log(q)))
    if impossible_j.any():
        bad = [cd.labels[t] for t in np.flatnonzero(impossible_j)][:5]
        degenerate(
            f"il_categorical: EBIL and PRIL of {name!r} are NaN: xm holds categories {bad} that the transition "
            "matrix cannot produce from x's categories (P(V' = j) = 0). Check the matrix and its labels."
        )
        return np.nan, np.nan
    if not np.isfinite(pril):
        degenerate(
            f"il_categorical: PRIL of {name!r} is Inf: some records pair an original category i with a masked "
            "category j that the transition matrix gives probability 0 (P(V = i | V' = j) = 0)."
        )
    return ebil, pril


# ------------------------------------------------------------------ public function
@measure(IL_CATEGORICAL_PARAMS, selects="keys", by_name=True)
def il_categorical(
    x: pd.DataFrame,
    xm: pd.DataFrame,
    *,
    max_dim: int = 2,
    transition: dict | None = None,
    ordinal_distance: str = "handbook",
) -> CategoricalLossResult:
    r"""Information loss for categorical variables: direct comparison, CTBIL, EBIL and PRIL.

    Native only (literature measure; sdcMicro has no counterpart).

    Parameters
    ----------
    x : pandas.DataFrame
        Original data: categorical variables (Categoricals, ordered where ordinal; string,
        integer and boolean columns are nominal with their observed values as categories).
        Missing values are a category of their own.
    xm : pandas.DataFrame
        Masked data: the same records in the same order and the same variables.
    max_dim : int, default 2
        CTBIL compares the contingency tables of every subset of at most ``max_dim``
        variables (capped at the number of variables).
    transition : dict, optional
        ``{column: P}`` with ``P`` the PRAM matrix ``P(V' = j | V = i)`` of that variable
        (a DataFrame with the original categories as index and the masked ones as
        columns, or a square array over the Categorical's categories in order; rows sum
        to 1). ``P(V = i | V' = j)`` then follows by Bayes' rule from ``P`` and the
        original frequencies of ``V``; missing values are taken as not perturbed. Variables
        without a matrix use the estimate from the paired records (see Notes).
    ordinal_distance : {"handbook", "mlodak"}, default "handbook"
        ``"handbook"``: the rank distance divided by the number of categories ``|D(V)|``.
        ``"mlodak"``: divided by ``|D(V)| - 1`` (Młodak 2020; spans [0, 1]).

    Returns
    -------
    CategoricalLossResult
        ``.direct``, ``.ctbil``, ``.ctbil_normalized``, ``.ebil``, ``.pril``, ``.n``,
        ``.n_cells``, ``.ctbil_tables``.

    Raises
    ------
    InvalidParameterError
        Float or datetime columns, an ordered column whose categories differ between ``x``
        and ``xm``, different variables or row counts, a bad transition matrix.

    Warns
    -----
    DegenerateResultWarning
        No records (NaN), a one-category ordinal variable with ``"mlodak"`` (NaN), a
        transition matrix that cannot produce a masked category (NaN) or gives an observed
        pair probability 0 (PRIL Inf).

    See Also
    --------
    il_continuous, hellinger, entropy, gsil, il_variables

    Notes
    -----
    * **direct** (handbook, eq. "dist_categ"): nominal ``d(c, c') = 0`` if equal, else 1;
      ordinal ``d(c, c') = |{c'': min(c, c') <= c'' < max(c, c')}| / |D(V)|``, i.e. the
      difference of the category ranks over the number of categories. ``D(V)`` is the
      declared range: every category of the ordered Categorical, **unused ones
      included**, plus the missing-value category when a value is missing, placed below
      the lowest category (as Młodak does). ``.direct`` is the mean of ``d`` over records.
      For nominal variables this is sdcMicro's ``IL_variables`` per-variable λ_j
      (:func:`il_variables`); for ordinal ones ``IL_variables`` divides by
      ``levels - 1`` and charges a one-sided missing value 1 (``ordinal_distance="mlodak"``
      gives Młodak's divisor, with missing values ranked lowest).
    * **CTBIL**: ``Σ_{W' ⊆ W, |W'| <= max_dim} Σ_cells |x^F - x^G|``; the cells of a table
      are all combinations of the categories **present** in ``x`` or ``xm`` (unused
      declared categories are ignored here, and only here). ``ctbil_normalized`` divides
      by the total number of those cells. A suppression (category → missing) changes two
      cells of the one-variable table, adding 2 (the handbook's μ-Argus remark).
    * **EBIL** ``= Σ_r H(V | V' = j_r)`` and **PRIL** ``= Σ_r -log P(V = i_r | V' = j_r)``,
      natural logarithms, per variable. Without ``transition``, ``P(V = i | V' = j) =
      n_ij / n_.j`` from the cross-table of the paired records; then EBIL and PRIL are the
      same number, ``N · H(V | V')`` (the conditional entropy of the original given the
      masked variable). They differ only with a transition matrix. Unused categories
      contribute nothing (0 log 0 = 0).

    References
    ----------
    Domingo-Ferrer, J. and Torra, V. (2001). Disclosure protection methods and information
    loss for microdata. In *Confidentiality, Disclosure and Data Access*, 91-110.

    Hundepool, A. et al. Handbook on Statistical Disclosure Control, "Information loss
    measures for categorical data".

    Todorova, M. Measures for information loss in protected data (PRIL).

    Examples
    --------
    Four records, a nominal ``a`` (x: u u v v, xm: u v v v) and an ordinal ``b`` with
    categories lo < mid < hi (x: lo lo hi hi, xm: lo mid hi hi). direct: a 1/4; b = rank
    distance |0 - 1| / 3 categories / 4 records = 1/12. CTBIL, max_dim=1: table a
    |2-1| + |2-3| = 2; table b |2-1| + |0-1| + |2-2| = 2; total 4 over 2 + 3 = 5 cells
    (``mid`` is present in xm, so b has 3 cells). EBIL of a: given a' = u the original is
    u (H = 0); given a' = v (3 records) it is u, v, v: H = -(1/3 log 1/3 + 2/3 log 2/3),
    so EBIL = 3 · 0.6365141682948128 = 1.9095425048844383.

    >>> import pandas as pd
    >>> from pysdc.loss._categorical import il_categorical
    >>> o = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    >>> x = pd.DataFrame({"a": pd.Categorical(list("uuvv")), "b": pd.Series(["lo", "lo", "hi", "hi"], dtype=o)})
    >>> xm = pd.DataFrame({"a": pd.Categorical(list("uvvv")), "b": pd.Series(["lo", "mid", "hi", "hi"], dtype=o)})
    >>> r = il_categorical(x, xm, max_dim=1)
    >>> r.direct.round(12).tolist(), r.ctbil, r.n_cells, round(float(r.ebil["a"]), 12)
    ([0.25, 0.083333333333], 4, 5, 1.909542504884)
    """
    xf, xmf = paired_frames(x, xm, func="il_categorical")
    names = list(xf.columns)
    n = int(xf.shape[0])
    coded = [code_pair(c, xf[c], xmf[c]) for c in names]
    direct = pd.Series({c: _direct(cd, ordinal_distance, c) for c, cd in zip(names, coded)}, dtype=np.float64,
                       name="direct")
    ctbil, n_cells, tables = _ctbil(coded, names, max_dim, n)
    eb, pr = {}, {}
    for c, cd in zip(names, coded):
        eb[c], pr[c] = _ebil_pril(cd, transition.get(c), c, n)
    ebil = pd.Series(eb, dtype=np.float64, name="ebil")
    pril = pd.Series(pr, dtype=np.float64, name="pril")
    normalized = ctbil / n_cells if n_cells else np.nan
    if n == 0:
        degenerate("il_categorical: the data have no records; direct, EBIL and PRIL are NaN.")
    return CategoricalLossResult(
        direct=direct,
        ctbil=int(ctbil),
        ctbil_normalized=float(normalized),
        ebil=ebil,
        pril=pril,
        n=n,
        n_cells=int(n_cells),
        max_dim=int(max_dim),
        ctbil_tables=pd.Series(
            list(tables.values()), index=pd.Index(list(tables), tupleize_cols=False, dtype=object),
            dtype=np.int64, name="ctbil",
        ),
        ordinal_distance=ordinal_distance,
    )
