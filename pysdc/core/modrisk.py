"""The kernels of sdcMicro's ``modRisk``: the key grid (counts, weight sums and sums of inverse weights
per combination of observed key values), the log-linear fits on it (R's ``glm.fit`` through
:mod:`pysdc.core.loglinear`, with the model matrix of :mod:`pysdc.core.formula`; MASS's ``loglm`` by IPF)
and sdcMicro's merge of the IPF fit back onto the grid, reproduced.

Kernel of :func:`pysdc.mod_risk`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning, user_stacklevel
from .._types import r_class
from .collate import icu_sort_key, r_sort_text
from .formula import FactorColumn, Formula, NumericColumn, model_matrix
from .loglinear import GlmError, ipf, poisson_glm

__all__ = ["GridKey", "raw_key", "key_grid", "grid_index", "exact_sum", "design_columns", "fit_glm", "fit_ipf", "bmerge",
           "sdcmicro_merge", "MAX_GRID_CELLS", "IPF_EPS", "IPF_ITER"]

#: above this many cells of the key grid pysdc refuses (sdcMicro builds the same full grid)
MAX_GRID_CELLS = 50_000_000
#: loglm's defaults (MASS::loglm1.default: eps = 1/10, iter = 40)
IPF_EPS = 0.1
IPF_ITER = 40


# ------------------------------------------------------------------ the key grid

@dataclass
class GridKey:
    name: str
    kind: str            # "factor", "ordered", "character", "logical", "integer", "numeric"
    values: list         # distinct observed non-missing values, in R's sort order
    has_na: bool
    categories: list | None = None  # factor levels (all, used or not)


def raw_key(s: pd.Series):
    """Per-record codes of a key (-1 for NA), its distinct values and their R sort order."""
    cls = r_class(s)
    name = s.name
    if cls in ("factor", "ordered"):
        cats = list(s.cat.categories)
        return cls, s.cat.codes.to_numpy(), cats, list(range(len(cats)))
    if cls == "POSIXct":
        raise InvalidParameterError(
            f"formula: key {name!r} is a datetime column; modRisk's keys are categorical or numeric. "
            "Convert it (e.g. to a Categorical of dates) first."
        )
    if cls == "integer" and isinstance(s.dtype, np.dtype) and s.dtype.kind in "iu" and len(s):
        # plain integers without NA: codes straight from the values' range (already in R's order)
        v = s.to_numpy()
        lo, hi = int(v.min()), int(v.max())
        if hi - lo < 4096:  # a short range: every value in it (unobserved ones drop out with the grid's margins)
            return cls, (v - lo).astype(np.intp, copy=False), list(range(lo, hi + 1)), list(range(hi - lo + 1))
        if hi - lo < max(4 * len(v), 1 << 16):
            off = (v - lo).astype(np.intp, copy=False)
            present = np.bincount(off, minlength=hi - lo + 1) > 0
            vals_arr = np.flatnonzero(present) + lo
            codes = off if present.all() else (np.cumsum(present) - 1)[off]
            return cls, codes, [int(u) for u in vals_arr], list(range(vals_arr.size))
    codes, uniq = pd.factorize(s, use_na_sentinel=True)
    uniq = list(uniq)
    if cls == "character":
        vals = [str(u) for u in uniq]
        order = sorted(range(len(uniq)), key=lambda i: vals[i])
    elif cls == "logical":
        vals = [bool(u) for u in uniq]
        order = sorted(range(len(uniq)), key=lambda i: vals[i])
    else:
        vals = [int(u) for u in uniq] if cls == "integer" else [float(u) for u in uniq]
        order = [int(i) for i in np.argsort(np.asarray(vals, dtype=float), kind="stable")]
    return cls, codes, vals, order


def key_grid(data: pd.DataFrame, vars_: list, wv: np.ndarray):
    """The key grid (sdcMicro's expand.grid of observed values, NA first, first key slowest) with
    each cell's counts, weight sums and sums of inverse weights."""
    raws = [raw_key(data[v]) for v in vars_]
    cards = [len(r[2]) + 1 for r in raws]  # code 0: NA
    full = float(np.prod(np.asarray(cards, dtype=np.float64)))
    with np.errstate(divide="ignore"):
        inv = 1.0 / wv
    if full <= 4_000_000:  # bin the records on the raw codes; observed values from the margins
        # cell = sum over keys of (code + 1) * stride: the +1s are one constant, added once
        cell = np.zeros(len(data), dtype=np.intp)
        shift = 0
        for (_, codes, _, _), card in zip(raws, cards):
            cell *= card
            cell += codes
            shift = shift * card + 1
        cell += shift
        tabs = [np.bincount(cell, weights=wt, minlength=int(full)).astype(np.float64).reshape(cards)
                for wt in (None, wv, inv)]
        axes = range(len(cards))
        present = [tabs[0].sum(axis=tuple(a for a in axes if a != j)) > 0 for j in axes]
    else:
        tabs = None
        present = [np.bincount(np.asarray(r[1], dtype=np.int64) + 1, minlength=c) > 0 for r, c in zip(raws, cards)]
    # the selected codes along each axis: NA (0) first when present, then the observed values in R order
    sels = []
    keys = []
    for v, (cls, _, vals, order), pres in zip(vars_, raws, present):
        obs = [i for i in order if pres[i + 1]]
        has_na = bool(pres[0])
        sels.append(np.asarray(([0] if has_na else []) + [i + 1 for i in obs], dtype=np.int64))
        keys.append(GridKey(v, cls, [vals[i] for i in obs], has_na,
                         vals if cls in ("factor", "ordered") else None))
    sizes = [len(sl) for sl in sels]
    n_cells = int(np.prod(np.asarray(sizes, dtype=np.float64)))
    if n_cells > MAX_GRID_CELLS:
        raise InvalidParameterError(
            f"formula: the keys {vars_} span {n_cells:.3g} combinations; sdcMicro's modRisk builds the full "
            f"grid of them (pysdc refuses above {MAX_GRID_CELLS:.0e}). Use fewer or coarser keys."
        )
    if tabs is None:  # many unused codes: relabel records to the selected codes first
        cell = np.zeros(len(data), dtype=np.int64)
        for (_, codes, _, _), card, sl, sz in zip(raws, cards, sels, sizes):
            remap = np.zeros(card, dtype=np.int64)
            remap[sl] = np.arange(sz)
            cell *= sz
            cell += remap[np.asarray(codes, dtype=np.int64) + 1]
        out = [np.bincount(cell, weights=wt, minlength=n_cells).astype(np.float64) for wt in (None, wv, inv)]
    else:
        out = [t[np.ix_(*sels)].ravel() for t in tabs]
    counts, wsum, psum = out
    return keys, sizes, n_cells, counts, wsum, psum


def grid_index(keys: list, positions: list) -> pd.MultiIndex:
    levels, codes = [], []
    for k, pos in zip(keys, positions):
        vals = list(k.values)
        if len(set(vals)) == len(vals):
            levels.append(pd.Index(vals, dtype=object) if vals else pd.Index([], dtype=object))
            codes.append(np.asarray(pos, dtype=np.int64))
        else:  # values that compare equal (cannot happen for R's distinct values; kept safe)
            return pd.MultiIndex.from_arrays(
                [np.asarray(k2.values, dtype=object)[p2] for k2, p2 in zip(keys, positions)],
                names=[k2.name for k2 in keys])
    return pd.MultiIndex(levels=levels, codes=codes, names=[k.name for k in keys], verify_integrity=False)


def exact_sum(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    if x.size and np.isfinite(x).all():
        return math.fsum(x[x != 0])  # zeros do not change an exact sum
    return float(np.sum(x))


# ------------------------------------------------------------------ the model fits

def design_columns(keys: list, vidx: list, rows: np.ndarray) -> dict:
    cols = {}
    for k, vi in zip(keys, vidx):
        sub = vi[rows]
        if k.kind in ("integer", "numeric"):
            cols[k.name] = NumericColumn(np.asarray(k.values, dtype=float)[sub] if len(k.values) else np.empty(0))
        elif k.kind == "logical":
            vals = np.asarray(k.values, dtype=np.int64)
            cols[k.name] = FactorColumn(vals[sub], (False, True), False)
        elif k.kind == "character":  # model.frame makes text a factor: levels in R's collation (ICU)
            labs, _ = r_sort_text([str(v) for v in k.values], "icu")
            pos_of = {v: i for i, v in enumerate(labs)}
            remap = np.asarray([pos_of[str(v)] for v in k.values], dtype=np.int64)
            cols[k.name] = FactorColumn(remap[sub] if len(remap) else sub, tuple(labs), False)
        else:
            cols[k.name] = FactorColumn(sub, tuple(k.values), k.kind == "ordered")
    return cols


def fit_glm(parsed: Formula, method: str, keys: list, vidx: list, complete: np.ndarray,
             counts: np.ndarray, wsum: np.ndarray):
    n_cells = counts.size
    offset = None
    form = parsed
    y = counts
    extra = {}
    if method == "CE":
        with np.errstate(divide="ignore", invalid="ignore"):
            ec = counts / wsum
        ec[np.isnan(ec)] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            offset = np.log(ec + 0.1)
    elif method == "PML":
        f = exact_sum(counts) / exact_sum(wsum)
        with np.errstate(invalid="ignore"):
            y = np.round(wsum * f)
    elif method == "weightedLLM":
        form = parsed.with_terms([("weights",)])
    rows = complete & ~np.isnan(y)
    if offset is not None:
        rows &= ~np.isnan(offset)
    if method == "weightedLLM":
        rows &= ~np.isnan(wsum)
    idx = np.flatnonzero(rows)
    if idx.size == 0:
        raise InvalidParameterError(
            "data: no key combination without missing values is left, and R's glm stops ('0 (non-NA) "
            "cases'). Give keys with observed values."
        )
    cols = design_columns(keys, vidx, idx)
    if method == "weightedLLM":
        extra["weights"] = NumericColumn(wsum[idx])
    cols.update(extra)
    # glm drops unused factor levels (drop.unused.levels = TRUE)
    for name, col in list(cols.items()):
        if isinstance(col, FactorColumn) and name not in extra:
            k = next(k for k in keys if k.name == name)
            if k.kind == "logical":
                continue
            used = np.unique(col.codes)
            if used.size < len(col.levels):
                remap = np.full(len(col.levels), -1, dtype=np.int64)
                remap[used] = np.arange(used.size)
                cols[name] = FactorColumn(remap[col.codes], tuple(col.levels[i] for i in used), col.ordered)
    x, _, _ = model_matrix(form, cols)
    try:
        fit = poisson_glm(x, y[idx], None if offset is None else offset[idx])
    except GlmError as exc:
        raise InvalidParameterError(
            f"data: R's glm stops here ('{exc}'); with method {method!r} this happens e.g. for a cell with "
            "records but weight sum 0 or a missing weight (CE's offset log(counts/weights + 0.1) is "
            "infinite) or negative weights (PML). Check the weight column."
        ) from None
    Fk = np.zeros(n_cells)
    Fk[idx] = fit.fitted
    fitted = pd.Series(fit.fitted, index=grid_index(keys, [vi[idx] for vi in vidx]), name="fitted")
    return Fk, fitted, fit.iterations, fit.converged, fit.warnings


def fit_ipf(keys: list, vidx: list, complete: np.ndarray, counts: np.ndarray, ipf_join: str = "sdcmicro"):
    n_cells = counts.size
    dims, labels, lookups = [], [], []
    for k in keys:
        if k.kind == "factor":
            cats = list(k.categories)
            pos_of = {c: i for i, c in enumerate(cats)}
            lookup = np.asarray([pos_of[v] for v in k.values], dtype=np.int64)
            labels.append(cats)
        elif k.kind == "numeric":
            labs = [float(f"{v:.15g}") for v in k.values]
            uniq = sorted(set(labs))
            pos_of = {v: i for i, v in enumerate(uniq)}
            # R merges the fitted table back by the printed label: only exact round trips match
            lookup = np.asarray(
                [pos_of[lab] if lab == v else -1 for lab, v in zip(labs, k.values)], dtype=np.int64
            )
            labels.append(uniq)
        elif k.kind == "character":  # xtabs makes a factor: levels in R's collation (ICU in a UTF-8 locale)
            labs, _ = r_sort_text([str(v) for v in k.values], "icu")
            pos_of = {v: i for i, v in enumerate(labs)}
            lookup = np.asarray([pos_of[str(v)] for v in k.values], dtype=np.int64)
            labels.append(labs)
        else:
            lookup = np.arange(len(k.values), dtype=np.int64)
            labels.append(list(k.values))
        dims.append(len(labels[-1]))
        lookups.append(lookup)
    table = np.zeros(dims)
    cidx = np.flatnonzero(complete)
    tpos = []
    for vi, lookup in zip(vidx, lookups):
        tp = np.full(n_cells, -1, dtype=np.int64)
        if len(lookup):
            tp[cidx] = lookup[vi[cidx]]
        tpos.append(tp)
    # xtabs sums the counts of the complete cells by label (a label of two doubles pools them)
    tab_idx = []
    for k, vi, lookup in zip(keys, vidx, lookups):
        if k.kind == "numeric":
            labs = [float(f"{v:.15g}") for v in k.values]
            uniq = sorted(set(labs))
            pos_of = {v: i for i, v in enumerate(uniq)}
            full = np.asarray([pos_of[lab] for lab in labs], dtype=np.int64)
            tab_idx.append(full[vi[cidx]] if len(full) else vi[cidx])
        else:
            tab_idx.append(lookup[vi[cidx]] if len(lookup) else vi[cidx])
    if cidx.size:
        flat = np.ravel_multi_index(tuple(tab_idx), dims)
        table = np.bincount(flat, weights=counts[cidx], minlength=int(np.prod(dims))).reshape(dims)
    fit, iterations, converged = ipf(table, [(j,) for j in range(len(keys))], eps=IPF_EPS, maxit=IPF_ITER)
    warns = [] if converged else ["algorithm did not converge"]
    # every complete cell with its fitted value (by label; a double must survive R's 15-digit labels)
    Fk_all = np.zeros(n_cells)
    ok = np.ones(n_cells, dtype=bool)
    for tp in tpos:
        ok &= tp >= 0
    okc = np.flatnonzero(ok)
    if okc.size:
        Fk_all[okc] = fit[tuple(tp[okc] for tp in tpos)]
    if ipf_join == "all":
        Fk = Fk_all
    else:
        Fk = sdcmicro_merge(keys, vidx, labels, fit) if okc.size else Fk_all
        lost = int(np.count_nonzero((Fk == 0) & (Fk_all != 0) & (counts > 0)))
        if lost:
            bad = [k.name for k, lab in zip(keys, labels) if k.kind in ("integer", "numeric", "factor", "ordered")
                   and _label_texts(k, lab) != sorted(_label_texts(k, lab))]
            warnings.warn(
                f"mod_risk: sdcMicro 5.8.0's IPF merges its fitted table back through a data.table join keyed "
                f"on the labels as text, then converted to numbers (or factors), without sorting again; the key(s) "
                f"{bad} have a text order that differs from their order as values (\"10\" < \"2\"), so the join's "
                f"binary search misses {lost} of the "
                "cells with records, which then count as unfitted and leave the risk. pysdc reproduces that "
                "join to return sdcMicro's gr1/gr2 (a bug: the result depends on how the labels sort). "
                "ipf_join='all' gives the risk over every cell; a categorical key whose levels sort alike as "
                "text avoids the difference.",
                PysdcWarning, stacklevel=user_stacklevel(),
            )
    # R's fitted table, listed first key fastest (as.data.frame.table)
    grid = np.unravel_index(np.arange(fit.size), dims, order="F")
    arrays = [np.asarray(lab, dtype=object)[g] for lab, g in zip(labels, grid)]
    index = pd.MultiIndex.from_arrays(arrays, names=[k.name for k in keys])
    fitted = pd.Series(fit.ravel(order="F"), index=index, name="fitted")
    return Fk, fitted, iterations, converged, warns


# ------------------------------------------------------------------ sdcMicro's IPF merge, reproduced

def _r_double_text(v: float) -> str:
    """R's ``as.character`` of a double (15 significant digits; fixed unless scientific is narrower)."""
    if not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Inf" if v > 0 else "-Inf")
    if v == 0:
        return "0"
    ref = float(f"{v:.15g}")
    nsig = next(d for d in range(1, 16) if float(f"{v:.{d}g}") == ref)
    sci = f"{v:.{nsig - 1}e}"
    mant, _, exp = sci.partition("e")
    e = int(exp)
    sci = f"{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    rgt = max(0, nsig - 1 - e)
    fixed = f"{v:.{rgt}f}"
    return fixed if len(fixed) <= len(sci) else sci


def _label_texts(k, labels: list) -> list:
    if k.kind == "integer":
        return [str(int(v)) for v in labels]
    if k.kind == "numeric":
        return [_r_double_text(float(v)) for v in labels]
    return [str(v) for v in labels]


def _ranks(values: list, key=None) -> dict:
    order = sorted(set(values), key=key)
    return {v: i for i, v in enumerate(order)}


def _run_edge(values: np.ndarray, inside: np.ndarray, outside: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Vectorised bisection for the end of a run of equal sorted ``values``: ``values[inside] == target`` and
    ``outside`` is a bound beyond the run (above or below ``inside``); returns the first position beyond the
    run on that side."""
    inside, outside = inside.copy(), outside.copy()
    act = np.abs(outside - inside) > 1
    while act.any():
        a = np.flatnonzero(act)
        lo, hi = np.minimum(inside[a], outside[a]), np.maximum(inside[a], outside[a])
        m = lo + (hi - lo) // 2
        same = values[m] == target[a]
        inside[a[same]] = m[same]
        outside[a[~same]] = m[~same]
        act = np.abs(outside - inside) > 1
    return outside


def bmerge(ivals: list, xvals: list) -> np.ndarray:
    """The row of ``x`` each row of ``i`` joins to (-1: none) in a data.table equi-join that trusts
    ``x``'s key: binary search column by column, ``i`` split around its middle row, as data.table
    1.14's ``bmerge`` does. ``ivals``/``xvals``: one int64 array of ranks per join column (the same
    order space for both; -1 for NA, which sorts first); ``i`` sorted, ``x`` in its stored order --
    where that order is not sorted, values are missed exactly as in data.table."""
    ncol = len(ivals)
    ni, nx = ivals[0].size, xvals[0].size
    match = np.full(ni, -1, dtype=np.int64)
    if ni == 0 or nx == 0:
        return match
    t = np.array([[-1, nx, -1, ni, 0]], dtype=np.int64)  # xlow, xupp, ilow, iupp, col
    while t.size:
        nxt = []
        for col in range(ncol):
            sel = t[t[:, 4] == col]
            if not sel.size:
                continue
            X, Iv = xvals[col], ivals[col]
            xlo_in, xup_in, ilo_in, iup_in = sel[:, 0], sel[:, 1], sel[:, 2], sel[:, 3]
            xlo, xup, ilo, iup = xlo_in.copy(), xup_in.copy(), ilo_in.copy(), iup_in.copy()
            lir = ilo + (iup - ilo) // 2
            ival = Iv[lir]
            found = np.zeros(sel.shape[0], dtype=bool)
            hit = np.zeros(sel.shape[0], dtype=np.int64)
            act = xlo < xup - 1
            while act.any():
                a = np.flatnonzero(act)
                mid = xlo[a] + (xup[a] - xlo[a]) // 2
                xv = X[mid]
                lt, gt = xv < ival[a], xv > ival[a]
                xlo[a[lt]] = mid[lt]
                xup[a[gt]] = mid[gt]
                eq = ~(lt | gt)
                found[a[eq]] = True
                hit[a[eq]] = mid[eq]
                act = (xlo < xup - 1) & ~found
            f = np.flatnonzero(found)
            if f.size:  # widen to the group of equal values: upper end, then lower end
                xup[f] = _run_edge(X, hit[f], xup[f], ival[f])
                xlo[f] = _run_edge(X, hit[f], xlo[f], ival[f])
            # the rows of i with the same value around the middle one
            iup = _run_edge(Iv, lir, iup, ival)
            ilo = _run_edge(Iv, lir, ilo, ival)
            ok = xlo < xup - 1
            if col < ncol - 1:
                g = np.flatnonzero(ok)
                nxt.append(np.stack([xlo[g], xup[g], ilo[g], iup[g], np.full(g.size, col + 1)], axis=1))
            else:
                g = np.flatnonzero(ok)
                lens = iup[g] - ilo[g] - 1
                rows = np.repeat(ilo[g] + 1, lens) + (np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens))
                match[rows] = np.repeat(xlo[g] + 1, lens)
            lo = np.flatnonzero((ilo > ilo_in) & (xlo > xlo_in))
            nxt.append(np.stack([xlo_in[lo], xlo[lo] + 1, ilo_in[lo], ilo[lo] + 1, np.full(lo.size, col)], axis=1))
            up = np.flatnonzero((iup < iup_in) & (xup < xup_in))
            nxt.append(np.stack([xup[up] - 1, xup_in[up], iup[up] - 1, iup_in[up], np.full(up.size, col)], axis=1))
        t = np.concatenate(nxt) if nxt else np.empty((0, 5), dtype=np.int64)
    return match


def sdcmicro_merge(keys: list, vidx: list, labels: list, fit: np.ndarray) -> np.ndarray:
    """Each grid cell's fitted value as sdcMicro 5.8.0's IPF branch merges it back: the fitted table
    as a data.table keyed on its labels *as text* (C-locale order), the label columns then converted
    back to the keys' classes (integers and doubles by ``as.integer``/``as.numeric`` of the label,
    factors by ``as.factor``, levels in R's collation) without re-sorting, and joined to the grid.
    Where the text order differs from the converted values' order, data.table's binary search misses
    cells (0 then, as unmatched cells)."""

    n_cells = vidx[0].size
    texts = [_label_texts(k, lab) for k, lab in zip(keys, labels)]
    # lambda's rows: every label combination, each key's labels in C order of their text, first key slowest
    perms = [np.asarray(sorted(range(len(tx)), key=lambda i, tx=tx: tx[i]), dtype=np.int64) for tx in texts]
    xpos = np.meshgrid(*perms, indexing="ij") if perms else []
    xpos = [p.ravel() for p in xpos]
    xvals, ivals = [], []
    for k, tx, vi in zip(keys, texts, vidx):
        if k.kind in ("integer", "numeric"):
            lam = np.asarray([float(s) for s in tx], dtype=float)          # as.numeric(label)
            cell = np.asarray(k.values, dtype=float)                       # the grid's own values
            space = np.unique(np.concatenate([lam, cell]))
            lam_r = np.searchsorted(space, lam)
            cell_r = np.searchsorted(space, cell)
        elif k.kind == "character":
            rk = _ranks(list(tx) + [str(v) for v in k.values])
            lam_r = np.asarray([rk[s] for s in tx], dtype=np.int64)
            cell_r = np.asarray([rk[str(v)] for v in k.values], dtype=np.int64)
        else:  # factor: as.factor(label text), levels in R's (ICU) collation; the grid's factor mapped to them
            rk = _ranks(tx, key=icu_sort_key)
            lam_r = np.asarray([rk[s] for s in tx], dtype=np.int64)
            cell_r = np.asarray([rk.get(str(v), -2) for v in k.values], dtype=np.int64)
        xvals.append(np.asarray(lam_r, dtype=np.int64))
        ivals.append(np.where(vi >= 0, np.asarray(cell_r, dtype=np.int64)[np.maximum(vi, 0)] if len(cell_r) else -1,
                              -1))
    xvals = [xv[xp] for xv, xp in zip(xvals, xpos)]
    order = np.lexsort(ivals[::-1]) if ivals else np.arange(n_cells)
    m = bmerge([iv[order] for iv in ivals], xvals)
    Fk = np.zeros(n_cells)
    got = m >= 0
    if got.any():
        flat = fit[tuple(xp[m[got]] for xp in xpos)]
        Fk[order[got]] = flat
    return Fk
