"""The exact fit on which robustbase's FAST-MCD runs past its data: what it is, which variables, the error.

robustbase's ``covMcd`` calls an *exact fit* a data set whose records (at least h of them) lie on a
hyperplane: one variable is a linear combination of others on those records, the covariance matrix is
singular, and covMcd returns that singular covariance with ``$singularity`` saying so. sdcMicro's
methods then stop in ``solve()`` ("computationally singular") or return NA -- ordinary R errors.

One case is not ordinary. When the data as a whole are singular to robustbase's tolerance (a variable
is a combination of others up to rounding, e.g. plus noise of 1e-7 of its size) but no h records lie
on the hyperplane within its distance tolerance, FAST-MCD extends its singular initial subset record by
record, finds it singular with every record taken, and goes on past the last record. Without the
split into subdatasets (fewer than ``2 * nmini`` = 600 records) its Fortran then reads and writes
outside its arrays (valgrind: invalid reads and writes in robustbase's Fortran): R's heap is corrupted,
and R aborts at once or at a later call (seen in ``covMcd`` itself and in sdcMicro's ``mvTopCoding`` and
``addNoise(method = "outdect")``; ``dRiskRMD`` and ``dUtility(method = "robeigen")`` call it on ``scale(x)``, where
robustbase's first check of the whole data already finds the exact fit in every case tried). With subdatasets the subset runs past its
subdataset's records but stays inside robustbase's work arrays (valgrind is clean; robustbase returns an exact fit).

:class:`ExactFitOverrun` is what pysdc's replica of robustbase's search on R's stream
(:mod:`.rstream`) raises there; :func:`pysdc.core.mcd.r_covmcd_overrun` runs that search before
the bridge calls R, so that R is never asked.
"""

from __future__ import annotations

import numpy as np

from ..._errors import InvalidParameterError

__all__ = ["ExactFitOverrun", "collinear_relation", "overrun_message"]


def collinear_relation(x: np.ndarray, names=None) -> str:
    """The near-exact linear relation among the columns of ``x`` (complete rows), in words.

    The eigenvector of the smallest eigenvalue of the correlation matrix, solved for the variable with
    the largest weight: e.g. ``"v2 = 1.03 * v1 + 12.4 (up to 1.2e-08 of v2's standard deviation)"``.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2:
        return "no relation (fewer than two variables)"
    names = [f"column {j + 1}" for j in range(x.shape[1])] if names is None else [str(n) for n in names]
    x = x[np.isfinite(x).all(axis=1)]
    if x.shape[0] < 2:
        return "no relation (fewer than two complete records)"
    mean = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1)
    const = np.flatnonzero(~(sd > 0))
    if const.size:
        return "; ".join(f"{names[j]} is constant ({x[0, j]:.6g})" for j in const)
    z = (x - mean) / sd
    ev, vec = np.linalg.eigh(z.T @ z / (x.shape[0] - 1))
    a = vec[:, 0] / sd  # the relation a . (x - mean) = 0 in the original units
    k = int(np.argmax(np.abs(vec[:, 0])))
    terms = []
    for j in np.flatnonzero(np.abs(vec[:, 0]) > 1e-6 * np.abs(vec[k, 0])):
        if j != k:
            terms.append(f"{-a[j] / a[k]:+.6g} * {names[j]}")
    const_term = mean[k] + sum(a[j] / a[k] * mean[j] for j in range(len(a)) if j != k)
    rhs = " ".join(terms).lstrip("+").strip() if terms else f"{mean[k]:.6g}"
    if terms:
        rhs += f" {const_term:+.6g}"
    resid = float(np.sqrt(max(ev[0], 0.0)) / abs(vec[k, 0]))
    return f"{names[k]} = {rhs} (up to {resid:.2g} of {names[k]}'s standard deviation)"


def overrun_message(x: np.ndarray | None = None, names=None, *, caller: str = "covMcd",
                    whole_data: bool = True) -> str:
    """The error of :class:`ExactFitOverrun`: the exact fit, the variables, what R would do, the way out."""
    rel = f" ({collinear_relation(x, names)})" if x is not None else ""
    who = "robustbase's covMcd" if caller == "covMcd" else f"{caller}: robustbase's covMcd (which sdcMicro calls here)"
    fit = (f"The variables are collinear up to rounding{rel}, so the covariance matrix is singular to robustbase's "
           "tolerance (an exact fit: the records lie on a hyperplane), but fewer than half of the records lie exactly "
           "on it. ")
    if not whole_data:
        return (
            f"{who} on R's stream (an R seed): these data are an exact fit that pysdc does not reproduce. {fit}"
            "robustbase's FAST-MCD then extends a singular subset of a subdataset past that subdataset's records "
            "(inside its work arrays: R returns an exact fit, which pysdc does not replicate). Leave out or combine "
            "the collinear "
            "variables, pass a numpy Generator for pysdc's own MCD, or use pysdc.r for sdcMicro's own result."
        )
    return (
        f"{who} cannot run on these data: they are an exact fit that it cannot resolve. {fit}"
        "robustbase's FAST-MCD then extends its singular initial subset past the last record and reads and writes "
        "outside its arrays: R's memory is corrupted and R aborts now or at a later call (where R survives, "
        "sdcMicro's functions stop with 'computationally singular'). Leave out or combine the collinear "
        "variables."
    )


class ExactFitOverrun(InvalidParameterError):
    """covMcd on R's stream: FAST-MCD's singular initial subset runs past the records it draws from.

    Attributes
    ----------
    whole_data : bool
        True when the subset runs past the whole data (fewer than ``2 * nmini`` records): robustbase
        then reads and writes outside its arrays (R's memory corrupted). False inside a subdataset.
    """

    def __init__(self, message: str, *, whole_data: bool):
        super().__init__(message)
        self.whole_data = bool(whole_data)
