"""Correction factors of the MCD scatter, as robustbase's ``covMcd`` applies them.

The subset size ``h`` (``h.alpha.n``), the consistency factor at the normal model (Croux &
Haesbroeck 1999) and the small sample factors of Pison, Van Aelst & Willems (2002).
"""

from __future__ import annotations

import math

from scipy import stats

__all__ = ["h_alpha_n", "mcd_consistency_factor", "mcd_small_sample_factor"]


def h_alpha_n(alpha: float, n: int, p: int) -> int:
    """Size ``h`` of the MCD subsets, as robustbase's ``h.alpha.n``.

    ``n2 = (n + p + 1) // 2``; ``h = floor(2 * n2 - n + 2 * (n - n2) * alpha)``,
    which is ``(n + p + 1) // 2`` for ``alpha = 1/2``.
    """
    n2 = (n + p + 1) // 2
    return int(math.floor(2 * n2 - n + 2 * (n - n2) * alpha))


def mcd_consistency_factor(p: int, alpha: float) -> float:
    """Consistency factor of the MCD scatter at the normal model (Croux & Haesbroeck 1999).

    ``alpha / P(chi2_{p+2} <= chi2_{p; alpha})``, where ``alpha`` is the fraction
    of observations used (``h/n`` for the raw MCD, ``sum(w)/n`` after reweighting).
    Equal to 1 for ``alpha = 1``.
    """
    if alpha >= 1:
        return 1.0
    q = stats.chi2.ppf(alpha, p)
    return float(alpha / stats.chi2.cdf(q, p + 2))


# Small sample correction factors of Pison, Van Aelst & Willems (2002), in the
# parametrisation robustbase uses: the factor is 1/f with f(p, n) = 1 - exp(y(p, n)),
# y linear in log(n).  For p = 1, 2: y = A - B log(n).  For p >= 3, y is linear in
# log(p) at n = 2 p^2 and n = 3 p^2 (y_k = c_k + d_k log p) and linear in log(n)
# through those two points.  Two anchors: alpha = 1/2 and alpha = 7/8; other alpha
# are interpolated linearly in f (and between f(7/8) and 1 above 7/8).  The
# constants were recovered to double precision from robustbase 0.95-0's output
# (.MCDcnp2 / .MCDcnp2.rew) given this published functional form.
_PW = {
    # (kind, anchor): {1: (A, B), 2: (A, B), "k2": (c, d), "k3": (c, d)}
    ("raw", 0.5): {
        1: (0.26202421189709968, 0.60475668063049792),
        2: (0.6732926235220118, 0.69136586496189123),
        "k2": (0.35602673571178034, -1.2626333693215104),
        "k3": (0.059599305599127739, -1.2890799144038694),
    },
    ("raw", 0.875): {
        1: (-0.35158464668878198, 1.0164656750248413),
        2: (0.44653781563546335, 1.0669078299591952),
        "k2": (-0.78706351126816898, -1.1119254127879399),
        "k3": (-1.2233554115520464, -1.0964932914981194),
    },
    ("rew", 0.5): {
        1: (1.1109814341501014, 1.5182890270452565),
        2: (3.1110171290905262, 1.9140105672186394),
        "k2": (0.028029212868292852, -1.6765988308192548),
        "k3": (-1.3167580951332907, -1.3596856289358237),
    },
    ("rew", 0.875): {
        1: (-0.66046776772866922, 0.88939595831886553),
        2: (0.79473550581059182, 1.1008193035009131),
        "k2": (-0.60791958033571825, -1.2599448322229179),
        "k3": (-1.0677211544238383, -1.2515900425713276),
    },
}

# For alpha = 1/2 and very small samples (2p <= n <= 20, 2 <= p <= 9) robustbase
# uses simulated values instead of the fitted curve; these are f = 1/factor as
# robustbase 0.95-0 reports them.
_SMALL_N = {
    "raw": {
        2: (4, [0.31711602006710171, 0.55558981692759946, 0.44277233930352794]),
        3: (6, [0.46997560826593099, 0.36779607031966632, 0.50162803378364484,
                0.45036260945500273, 0.54927399709434055]),
        4: (8, [0.33891997726524792, 0.46611636968062176, 0.41977580613745813,
                0.51892062434453845, 0.49200758282086643, 0.5443361820260193]),
        5: (10, [0.44851637510859704, 0.40089045788505429, 0.49600296014566614,
                 0.45660828625321392, 0.53248249730031372, 0.50531490214071606,
                 0.56584001213160984]),
        6: (12, [0.38755724220467364, 0.47413116649068499, 0.44628094009972596,
                 0.51421310739495008, 0.48938116283815625, 0.54890526334278911,
                 0.52707866649097379]),
        7: (14, [0.46184406020044955, 0.43098228188740934, 0.49804864540729415,
                 0.47927816873563067, 0.53077091290473932, 0.51267249506937229,
                 0.5652080530843403]),
        8: (16, [0.42726953828826419, 0.48821879232246662, 0.46272795714398757,
                 0.51918869497768005, 0.5011471257708896]),
        9: (18, [0.47769498792864762, 0.45749986389379049, 0.51308652845141756]),
    },
    "rew": {
        2: (4, [0.45120204737441011, 0.70495711745854506, 0.61139605563948662]),
        3: (6, [0.57633233627839164, 0.48383741127631474, 0.6468702798684266,
                0.60253486417357816, 0.68641953275422396]),
        4: (8, [0.41860410600395503, 0.54123507679584504, 0.50761936669407814,
                0.61322493151810575, 0.58779548479020405, 0.65745873788961007]),
        5: (10, [0.50809058035630361, 0.46105662190267921, 0.56042094337899084,
                 0.52786911379749568, 0.5995520147345903, 0.59066501201707966,
                 0.64717546739012255]),
        6: (12, [0.43938835383592623, 0.53573715021051793, 0.49646294971475724,
                 0.57124348853828499, 0.54663836537636323, 0.60605362726126188,
                 0.59205123848238317]),
        7: (14, [0.51080088470713225, 0.482144734063429, 0.5413056834390233,
                 0.52482198038425365, 0.58345440012135852, 0.56547492825536849,
                 0.61009834785367401]),
        8: (16, [0.46208137160537693, 0.53446668776028528, 0.50518190337385738,
                 0.56103594164552961, 0.54203773666722677]),
        9: (18, [0.51577710589213444, 0.48770757444002633, 0.54499981742506121]),
    },
}


def _f_anchor(kind: str, anchor: float, p: int, n: int, table: bool) -> float:
    if table and anchor == 0.5 and p in _SMALL_N[kind]:
        n0, vals = _SMALL_N[kind][p]
        if n0 <= n < n0 + len(vals):
            return vals[n - n0]
    coef = _PW[(kind, anchor)]
    if p <= 2:
        a, b = coef[p]
        y = a - b * math.log(n)
    else:
        c2, d2 = coef["k2"]
        c3, d3 = coef["k3"]
        lp = math.log(p)
        y2 = c2 + d2 * lp
        y3 = c3 + d3 * lp
        # line in log(n) through (log(2 p^2), y2) and (log(3 p^2), y3)
        t = (math.log(n) - math.log(2.0 * p * p)) / math.log(1.5)
        y = y2 + (y3 - y2) * t
    return 1.0 - math.exp(y)


def mcd_small_sample_factor(p: int, n: int, alpha: float = 0.5, *, reweighted: bool = False) -> float:
    """Finite sample correction factor of the MCD scatter (Pison, Van Aelst & Willems 2002).

    The multiplier robustbase reports as ``raw.cnp2[2]`` (``reweighted=False``) or
    ``cnp2[2]`` (``reweighted=True``); it is 1 for ``alpha = 1``.
    """
    kind = "rew" if reweighted else "raw"
    if alpha >= 1:
        return 1.0
    # the simulated small-n values are used for alpha = 1/2 only (as robustbase does)
    f5 = _f_anchor(kind, 0.5, p, n, table=alpha == 0.5)
    f8 = _f_anchor(kind, 0.875, p, n, table=False)
    if alpha <= 0.875:
        f = f5 + (f8 - f5) / 0.375 * (alpha - 0.5)
    else:
        f = f8 + (1.0 - f8) / 0.125 * (alpha - 0.875)
    return 1.0 / f
