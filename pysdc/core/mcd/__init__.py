"""Minimum Covariance Determinant (MCD) estimator, following robustbase's ``covMcd`` defaults.

sdcMicro's ``dUtility(x, xm, method = "robeigen")`` compares the eigenvalues of
``robustbase::covMcd(scale(x))$cov`` and ``covMcd(scale(xm))$cov``. :func:`cov_mcd`
is a native, vectorised equivalent of ``covMcd`` with its default settings
(``alpha = 1/2``, ``nsamp = 500``, ``nmini = 300``, ``kmini = 5``,
``use.correction = TRUE``, ``wgtFUN = "01.original"``).

Written from the literature (Rousseeuw & Van Driessen 1999; Croux & Haesbroeck
1999; Pison, Van Aelst & Willems 2002) and from robustbase's documentation and
observed behaviour (robustbase 0.95-0), not from its source code.

The package, by concern: :mod:`.factors` (correction factors), :mod:`.result` (:class:`McdResult`),
:mod:`.covmcd` (the public :func:`cov_mcd`), :mod:`.fast` (pysdc's vectorised FAST-MCD),
:mod:`.rstream` and :mod:`.arith` (robustbase's FAST-MCD on R's random stream) and
:mod:`.eispack` (the eigen-solver robustbase calls), :mod:`.exactfit` (the exact fit on which robustbase runs past
its arrays, and :func:`r_covmcd_overrun`, which the bridge asks before calling R).
"""

from .covmcd import cov_mcd, r_covmcd_overrun
from .exactfit import ExactFitOverrun, collinear_relation
from .factors import h_alpha_n, mcd_consistency_factor, mcd_small_sample_factor
from .result import McdResult

__all__ = [
    "ExactFitOverrun",
    "McdResult",
    "collinear_relation",
    "cov_mcd",
    "h_alpha_n",
    "mcd_consistency_factor",
    "mcd_small_sample_factor",
    "r_covmcd_overrun",
]
