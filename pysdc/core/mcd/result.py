"""The result of :func:`pysdc.core.mcd.cov_mcd` and the error of the R-stream path's rare branches."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..._errors import InvalidParameterError

__all__ = ["McdResult"]


@dataclass(frozen=True)
class McdResult:
    """Result of :func:`cov_mcd` (robustbase ``covMcd`` names in brackets).

    Attributes
    ----------
    cov : ndarray (p, p)
        Final, reweighted scatter estimate [``cov``].
    center : ndarray (p,)
        Final, reweighted location [``center``].
    raw_cov, raw_center : ndarray
        Raw MCD scatter (consistency- and small-sample-corrected) and location
        [``raw.cov``, ``raw.center``].
    best : ndarray of int
        0-based positions (in the rows of the input) of the h-subset whose
        covariance has the smallest determinant [``best``].
    raw_weights : ndarray of float
        0/1 weights of the reweighting step, per used row [``raw.weights``].
    weights : ndarray of float
        0/1 weights with respect to the final estimate, per used row [``mcd.wt``].
    crit : float
        log determinant of the (uncorrected) covariance of the best h-subset;
        ``-inf`` in the exact-fit case [``crit``].
    quan : int
        h [``quan``].
    n_obs : int
        Number of rows used (rows with a missing or infinite value are dropped) [``n.obs``].
    rows : ndarray of int
        0-based positions of the used rows in the input.
    raw_cnp2, cnp2 : tuple of float
        (consistency factor, small sample factor) of the raw and final estimates.
    singularity : str or None
        ``None``, or ``"on.hyperplane"`` (exact fit: at least h observations lie on
        a hyperplane) / ``"identicalObs"`` (p = 1: at least h identical values).
    method : str
    """

    cov: np.ndarray
    center: np.ndarray
    raw_cov: np.ndarray
    raw_center: np.ndarray
    best: np.ndarray
    raw_weights: np.ndarray
    weights: np.ndarray
    crit: float
    quan: int
    n_obs: int
    rows: np.ndarray
    raw_cnp2: tuple
    cnp2: tuple
    singularity: str | None = None
    method: str = field(default="Fast MCD")


class _NotReproduced(InvalidParameterError):
    """A rare branch of robustbase's FAST-MCD that the R-stream path does not follow."""

    def __init__(self, what: str):
        super().__init__(
            f"cov_mcd with an R seed: this data set takes a rare branch of robustbase's FAST-MCD ({what}) "
            "that pysdc does not reproduce on R's random stream. Pass a numpy Generator (or None) for "
            "pysdc's own MCD, or use pysdc.r for sdcMicro's own value."
        )
