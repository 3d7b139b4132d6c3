"""Plots of original against masked data, as the practice guide draws them (needs ``matplotlib``: ``[plots]``).

Every function returns a :class:`matplotlib.figure.Figure` (built without ``pyplot``, so nothing is shown
or kept in a global state; save it with ``fig.savefig(path)``):

* :func:`histogram` -- one numeric variable before/after, the **same bins** for both;
* :func:`density` -- kernel densities before/after on one axis (Gaussian kernel, R's default bandwidth
  ``bw.nrd0``);
* :func:`boxplot` -- before/after side by side;
* :func:`mosaic` -- the two-way table of two categorical variables before and after (tiles' widths are
  the first variable's shares, heights the second's conditional shares; missing values as a level "NA");
* :func:`coefficient_intervals` -- regression coefficients with their intervals before/after (the
  practice guide's figure of the Mincer gender coefficient), from :func:`compare_regression`;
* :func:`utility_plots` -- all of the above for a pair of frames, as a dict name -> Figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError
from ._names import did_you_mean

__all__ = ["histogram", "density", "boxplot", "mosaic", "coefficient_intervals", "utility_plots", "plain"]

COLORS = ("#1f77b4", "#d62728")  # original, masked
LABELS = ("original", "masked")


def plain(text) -> str:
    """``text`` as matplotlib draws it literally: a ``$`` of a column name or category label would otherwise
    start mathtext (``$x$`` typeset, an unbalanced or malformed ``$...$`` an error when the figure is drawn)."""
    return str(text).replace("$", r"\$")


def _figure(width=7.0, height=4.0):
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - exercised where matplotlib is absent
        raise ImportError("pysdc.plots needs matplotlib: pip install 'pysdc-measures[plots]'") from None
    return Figure(figsize=(width, height), layout="constrained")


def _num(frame: pd.DataFrame, var: str, name: str) -> np.ndarray:
    if var not in frame.columns:
        raise InvalidParameterError(f"var {var!r} is not a column of {name}.{did_you_mean([var], frame.columns)}")
    s = frame[var]
    if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        raise InvalidParameterError(f"var {var!r} must be numeric in {name}; got {s.dtype}.")
    v = s.to_numpy(dtype=float, na_value=np.nan)
    return v[np.isfinite(v)]


def histogram(x: pd.DataFrame, xm: pd.DataFrame, var: str, *, bins: int = 40, log: bool = False,
              clip_quantile: float = 0.995):
    """Histograms of ``var`` before and after masking with the same bin edges (two panels, shared axes).

    The bins span the pooled values up to their ``clip_quantile`` (1 for the full range; heavy tails would
    put every record in the first bin); ``log=True`` uses logarithmic bins over the positive values. The
    number of values not shown (missing, beyond the range, or non-positive with ``log``) is given in
    each panel's title.
    """
    a, b = _num(x, var, "x"), _num(xm, var, "xm")
    if log:
        a_, b_ = a[a > 0], b[b > 0]
    else:
        a_, b_ = a, b
    both = np.concatenate([a_, b_])
    fig = _figure(8.0, 4.0)
    axes = fig.subplots(1, 2, sharex=True, sharey=True)
    if both.size == 0:
        for ax in axes:
            ax.text(0.5, 0.5, "no values", ha="center", va="center", transform=ax.transAxes)
        return fig
    lo, hi = both.min(), float(np.quantile(both, clip_quantile))
    a_, b_ = a_[a_ <= hi], b_[b_ <= hi]
    edges = np.geomspace(lo, hi, bins + 1) if log and lo > 0 and hi > lo else np.linspace(lo, hi if hi > lo else lo + 1, bins + 1)
    for ax, v, n_all, c, lab in zip(axes, (a_, b_), (len(x), len(xm)), COLORS, LABELS):
        ax.hist(v, bins=edges, color=c, alpha=0.8, edgecolor="white", linewidth=0.3)
        left = n_all - v.size
        ax.set_title(f"{plain(var)}: {lab}" + (f" ({left} not shown)" if left else ""), fontsize=10)
        ax.set_xlabel(plain(var))
        if log:
            ax.set_xscale("log")
    axes[0].set_ylabel("records")
    return fig


def _bw_nrd0(v: np.ndarray) -> float:
    """R's bw.nrd0: 0.9 * min(sd, IQR / 1.34) * n^(-1/5) (with R's fallbacks)."""
    sd = np.std(v, ddof=1) if v.size > 1 else 0.0
    q75, q25 = np.percentile(v, [75, 25])
    lo = min(sd, (q75 - q25) / 1.34)
    if lo <= 0:
        lo = sd or abs(v[0]) or 1.0
    return 0.9 * lo * v.size ** (-0.2)


def density(x: pd.DataFrame, xm: pd.DataFrame, var: str, *, points: int = 512, clip_quantile: float = 0.995):
    """Kernel density of ``var`` before and after on one axis (Gaussian kernel, bandwidth ``bw.nrd0``).

    The x-axis shows up to the ``clip_quantile`` of the pooled values (heavy tails would squeeze the
    plot); the densities themselves use every value.
    """
    a, b = _num(x, var, "x"), _num(xm, var, "xm")
    fig = _figure()
    ax = fig.subplots()
    both = np.concatenate([a, b])
    if both.size == 0:
        ax.text(0.5, 0.5, "no values", ha="center", va="center", transform=ax.transAxes)
        return fig
    lo = np.quantile(both, 1 - clip_quantile)
    hi = np.quantile(both, clip_quantile)
    if hi <= lo:
        lo, hi = both.min() - 1, both.max() + 1
    grid = np.linspace(lo, hi, points)
    for v, c, lab in zip((a, b), COLORS, LABELS):
        if v.size == 0:
            continue
        h = _bw_nrd0(v)
        # binned Gaussian KDE: counts on a fine grid convolved with the kernel (O(n + points^2))
        fine = np.linspace(min(v.min(), lo), max(v.max(), hi), 4096)
        cnt = np.bincount(np.clip(np.searchsorted(fine, v), 0, fine.size - 1), minlength=fine.size)
        dens = np.zeros(points)
        nz = np.flatnonzero(cnt)
        for start in range(0, nz.size, 512):  # blocks of occupied grid cells
            idx = nz[start:start + 512]
            dens += (cnt[idx][None, :] * np.exp(-0.5 * ((grid[:, None] - fine[idx][None, :]) / h) ** 2)).sum(axis=1)
        dens /= v.size * h * np.sqrt(2 * np.pi)
        ax.plot(grid, dens, color=c, label=f"{lab} (n = {v.size}, bw = {h:.3g})")
    ax.set_xlim(lo, hi)
    ax.set_xlabel(plain(var))
    ax.set_ylabel("density")
    ax.set_title(f"Density of {plain(var)}: original and masked", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def boxplot(x: pd.DataFrame, xm: pd.DataFrame, var: str, *, log: bool = False):
    """Box plots of ``var`` before and after (whiskers at 1.5 IQR, outliers as points, as R's boxplot)."""
    a, b = _num(x, var, "x"), _num(xm, var, "xm")
    if log:
        a, b = a[a > 0], b[b > 0]
    fig = _figure(5.0, 4.5)
    ax = fig.subplots()
    parts = ax.boxplot([a, b], tick_labels=[f"before\n(n = {a.size})", f"after\n(n = {b.size})"], patch_artist=True,
                       flierprops={"markersize": 2, "alpha": 0.5})
    for patch, c in zip(parts["boxes"], COLORS):
        patch.set_facecolor(c)
        patch.set_alpha(0.5)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(plain(var))
    ax.set_title(f"{plain(var)}: before and after masking", fontsize=10)
    return fig


def _table(frame: pd.DataFrame, var: str, name: str) -> pd.Series:
    if var not in frame.columns:
        raise InvalidParameterError(f"{var!r} is not a column of {name}.{did_you_mean([var], frame.columns)}")
    s = frame[var]
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = [str(c) for c in s.cat.categories]
    else:
        cats = sorted(s.dropna().astype(str).unique())
    lab = s.astype(object).map(str, na_action="ignore").fillna("NA")
    if (lab == "NA").any() and "NA" not in cats:
        cats = cats + ["NA"]
    return pd.Categorical(lab, categories=cats)


def mosaic(x: pd.DataFrame, xm: pd.DataFrame, var1: str, var2: str):
    """Mosaic plots of the two-way table ``var1`` x ``var2`` before and after masking (two panels).

    Tile widths: the shares of ``var1``'s levels; heights within a column: the shares of ``var2``'s levels
    given ``var1`` (R's ``mosaicplot`` layout). Levels are the union over both frames, in the data's order,
    missing values as "NA", so the same tile has the same place and colour in both panels.
    """
    ta, tb = _table(x, var1, "x"), _table(xm, var1, "xm")
    ua, ub = _table(x, var2, "x"), _table(xm, var2, "xm")
    l1 = list(dict.fromkeys(list(ta.categories) + list(tb.categories)))
    l2 = list(dict.fromkeys(list(ua.categories) + list(ub.categories)))
    fig = _figure(11.0, 5.0)
    axes = fig.subplots(1, 2)
    import matplotlib

    base = matplotlib.colormaps["tab10" if len(l2) <= 10 else "tab20"]
    ncol = 10 if len(l2) <= 10 else 20

    def cmap(j):
        return (0.75, 0.75, 0.75, 1.0) if l2[j] == "NA" else base(j % ncol)

    for ax, r1, r2, lab in zip(axes, (ta, tb), (ua, ub), LABELS):
        tab = pd.crosstab(pd.Categorical(r1, categories=l1), pd.Categorical(r2, categories=l2), dropna=False)
        tab = tab.reindex(index=l1, columns=l2, fill_value=0).to_numpy(dtype=float)
        total = tab.sum()
        gap = 0.01
        widths = tab.sum(axis=1) / total if total else np.zeros(len(l1))
        xpos = 0.0
        usable = 1.0 - gap * (len(l1) - 1)
        for i, wd in enumerate(widths):
            wpx = wd * usable
            col = tab[i]
            ypos = 0.0
            hs = col / col.sum() if col.sum() else np.zeros(len(l2))
            usable_h = 1.0 - gap * (len(l2) - 1)
            for j, h in enumerate(hs):
                hpx = h * usable_h
                if wpx > 0 and hpx > 0:
                    ax.add_patch(matplotlib.patches.Rectangle((xpos, ypos), wpx, hpx, facecolor=cmap(j), edgecolor="white", lw=0.5))
                    if wpx > 0.05 and hpx > 0.04:
                        ax.text(xpos + wpx / 2, ypos + hpx / 2, f"{int(col[j])}", ha="center", va="center", fontsize=6)
                ypos += hpx + gap
            if wpx > 0:
                ax.text(xpos + wpx / 2, -0.02, plain(l1[i]), ha="right", va="top", rotation=45, fontsize=7)
            xpos += wpx + (gap if wd > 0 else 0)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{plain(var1)} x {plain(var2)}: {lab} (n = {int(total)})", fontsize=10)
    handles = [matplotlib.patches.Patch(color=cmap(j), label=plain(v)) for j, v in enumerate(l2)]
    fig.legend(handles=handles, title=plain(var2), loc="outside right center", fontsize=7, title_fontsize=8)
    return fig


def coefficient_intervals(comparison, *, coefficients=None, intercept: bool = False):
    """Coefficients and their intervals before (blue) and after (red) masking, one row per coefficient.

    Parameters
    ----------
    comparison : RegressionComparison
        From :func:`pysdc.loss.compare_regression`.
    coefficients : list of str, optional
        Which coefficients (R's names); default all but the intercept (``intercept=True`` keeps it).
    """
    t = comparison.table
    names = list(t.index) if coefficients is None else list(coefficients)
    if coefficients is None and not intercept:
        names = [n for n in names if n != "(Intercept)"]
    missing = [n for n in names if n not in t.index]
    if missing:
        raise InvalidParameterError(f"coefficients {missing} are not in the comparison; available: {list(t.index)}.")
    t = t.loc[names]
    fig = _figure(7.5, 1.2 + 0.45 * len(names))
    ax = fig.subplots()
    ys = np.arange(len(names))[::-1]
    for off, side, c, lab in ((0.15, "x", COLORS[0], "original"), (-0.15, "xm", COLORS[1], "masked")):
        est = t[f"estimate_{side}"].to_numpy(dtype=float)
        lo = t[f"lower_{side}"].to_numpy(dtype=float)
        hi = t[f"upper_{side}"].to_numpy(dtype=float)
        ax.errorbar(est, ys + off, xerr=[est - lo, hi - est], fmt="o", color=c, ms=4, capsize=3, label=lab)
    ax.axvline(0.0, color="grey", lw=0.8, ls=":")
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{plain(n)}  (J = {j:.2f})" for n, j in zip(names, t["overlap"].to_numpy(dtype=float))],
                       fontsize=8)
    ax.set_xlabel(f"estimate with {100 * comparison.level:g} % interval")
    ax.set_title(plain(comparison.formula), fontsize=9)
    ax.legend(fontsize=8, loc="best")
    return fig


def utility_plots(x: pd.DataFrame, xm: pd.DataFrame, *, numeric=None, categorical=None, pairs=None,
                  regression=None) -> dict:
    """All plots for a pair of frames: ``{"histogram_<v>", "density_<v>", "boxplot_<v>", "mosaic_<a>_<b>",
    "coefficients"}`` -> Figure.

    ``numeric``/``categorical`` default to the common numeric / categorical columns; ``pairs`` to the
    consecutive pairs of the categorical ones (at most 4); ``regression``: a RegressionComparison to plot.
    """
    common = [c for c in x.columns if c in xm.columns]
    if numeric is None:
        numeric = [c for c in common if pd.api.types.is_float_dtype(x[c]) and pd.api.types.is_numeric_dtype(xm[c])]
    if categorical is None:
        categorical = [c for c in common if isinstance(x[c].dtype, pd.CategoricalDtype)]
    if pairs is None:
        pairs = list(zip(categorical[:-1], categorical[1:]))[:4]
    out = {}
    for v in numeric:
        out[f"histogram_{v}"] = histogram(x, xm, v)
        out[f"density_{v}"] = density(x, xm, v)
        out[f"boxplot_{v}"] = boxplot(x, xm, v)
    for a, b in pairs:
        out[f"mosaic_{a}_{b}"] = mosaic(x, xm, a, b)
    if regression is not None:
        out["coefficients"] = coefficient_intervals(regression)
    return out
