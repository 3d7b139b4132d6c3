"""The GINI coefficient computed by the R package laeken (the practice guide's tool).

The twin of :func:`pysdc.gini`: the same signature and result class, every number laeken's.
Needs R, rpy2 and laeken (Debian: ``apt-get install r-cran-laeken``; R:
``install.packages("laeken")``), not sdcMicro.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._errors import InvalidParameterError
from .._validation import declared_params, validate
from ..loss import GiniResult
from ..loss import gini as _native_gini
from . import _session

__all__ = ["gini"]


def gini(x, *, w=None, ci="bootstrap", level=0.95, na_rm=False, n_boot=100, random_state=None) -> GiniResult:
    """laeken's ``gini(inc = x, weights = w, na.rm, var = "bootstrap", bootType = "naive", R = n_boot,
    alpha = 1 - level, seed = random_state)``, with the result class of :func:`pysdc.gini`.

    ``ci="bootstrap"`` runs laeken's naive bootstrap (R's generator, seeded by ``random_state``
    through laeken's ``seed``), so its interval is laeken's; ``ci=None`` computes the value only;
    ``ci="linearization"`` does not exist in laeken and is refused.

    See Also
    --------
    pysdc.gini
    """
    # the native function's declared constraints, before R starts (the same messages)
    v = validate(declared_params(_native_gini), {"x": x, "w": w, "ci": ci, "level": level, "na_rm": na_rm,
                                                 "n_boot": n_boot, "random_state": random_state})
    x, w, ci, level, na_rm, n_boot, random_state = (v[k] for k in ("x", "w", "ci", "level", "na_rm", "n_boot",
                                                                   "random_state"))
    if ci not in ("bootstrap", None):
        raise InvalidParameterError(
            f"ci={ci!r} does not exist in laeken (its gini has a bootstrap variance only); use ci='bootstrap' "
            "or ci=None here, or the native pysdc.gini(..., ci='linearization')."
        )
    if random_state is not None and (isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer))):
        raise InvalidParameterError(
            f"random_state must be an int or None for the R bridge (it is laeken's seed); got {random_state!r}."
        )
    xv = np.asarray(x, dtype=float).reshape(-1)
    wv = None if w is None else np.asarray(w, dtype=float).reshape(-1)
    kwargs = {"weights": wv, "na.rm": bool(na_rm)}
    if ci == "bootstrap":
        kwargs.update({"var": "bootstrap", "bootType": "naive", "R": int(n_boot), "alpha": 1.0 - float(level)})
        if random_state is not None:
            kwargs["seed"] = int(random_state)
    out = _session.call("gini", (xv,), kwargs, package="laeken")
    lower = upper = variance = float("nan")
    if ci == "bootstrap":
        lo_up = np.asarray(out["ci"], dtype=float).reshape(-1)
        lower, upper, variance = float(lo_up[0]), float(lo_up[1]), float(out["var"])
    n = int(np.sum(~np.isnan(xv))) if na_rm else int(xv.size)
    return GiniResult(value=float(out["value"]), lower=lower, upper=upper, level=float(level), ci=ci,
                      variance=variance, n=n, n_boot=int(n_boot) if ci == "bootstrap" else 0)


gini.__signature__ = inspect.signature(_native_gini)
