"""Adding noise, as sdcMicro 5.8.0's ``addNoise`` on a data.frame, on R's random stream.

``random_state=s`` is R's ``set.seed(s)`` before the call: the noise then equals sdcMicro's number for
number (R's ``rnorm`` by inversion and MASS's ``mvrnorm``, :mod:`pysdc.core.rdist`). Every method is native:
``additive``, ``correlated``, ``correlated2``, ``restr``, ``outdect`` and ``ROMM`` (an n x n random
orthogonal matrix, O(n^3): up to 2000 records). The input is never modified; the
arithmetic was observed by running sdcMicro and is pinned by ``r_reference/outputs/addNoise.json``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from .._validation import Columns, Constraint, Frame, Interval, Options, user_stacklevel, validate_params
from ..core import noise as _k
from ..core.rrandom import RRandom

__all__ = ["add_noise", "AddNoiseResult", "RStream", "NATIVE_METHODS", "R_METHODS", "r_stream"]

NATIVE_METHODS = ("additive", "correlated", "correlated2", "restr", "outdect", "ROMM")
R_METHODS = ()


@dataclass(frozen=True)
class RStream(Constraint):
    """None (a fresh seed), an int (R's ``set.seed``) or a :class:`pysdc.core.rrandom.RRandom` (advanced)."""

    def check(self, name, value, values):
        if value is None or isinstance(value, RRandom):
            return value
        if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
            if not -(2**31) < int(value) < 2**31:
                raise InvalidParameterError(f"{name} must be an R integer (|seed| < 2^31); got {value!r}.")
            return int(value)
        raise InvalidParameterError(
            f"{name} must be None, an int (R's set.seed) or a pysdc.core.rrandom.RRandom; got {value!r}.")

    def invalid_values(self, name, values):
        return ["abc", 1.5, True, 2**31]


def r_stream(random_state) -> RRandom:
    """The R stream of a validated ``random_state``: an int is ``set.seed``; None a fresh seed."""
    if isinstance(random_state, RRandom):
        return random_state
    if random_state is None:
        return RRandom(int(np.random.SeedSequence().generate_state(1)[0] % (2**31 - 1)))
    return RRandom(int(random_state))


@dataclass(frozen=True)
class AddNoiseResult:
    """What sdcMicro's ``addNoise`` returns on a data.frame (class ``addNoise``).

    Attributes
    ----------
    x : DataFrame
        The variables as given (a copy).
    xm : DataFrame
        The perturbed variables (doubles; the index of ``x``).
    method : str
        ``"addNoise: <method>"`` as sdcMicro labels it.
    noise, p, delta : float
        The parameters sdcMicro keeps (NaN where it resets them: ``p`` except for ROMM, ``delta``
        except for correlated2, ``noise`` for ROMM and correlated2).
    """

    x: pd.DataFrame = field(repr=False)
    xm: pd.DataFrame = field(repr=False)
    method: str = "addNoise: additive"
    noise: float = 150.0
    p: float = float("nan")
    delta: float = float("nan")

    def __repr__(self) -> str:
        return f"AddNoiseResult(method={self.method!r}, n={len(self.xm)}, variables={list(self.xm.columns)[:8]})"


def _matrix(data: pd.DataFrame, variables: list) -> np.ndarray:
    for v in variables:
        s = data[v]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "iuf":
            raise InvalidParameterError(
                f"add_noise: variable {v!r} must be numeric (int or float); got dtype {s.dtype}.")
    x = np.column_stack([data[v].to_numpy(dtype=np.float64, na_value=np.nan) for v in variables])
    if np.isinf(x).any():
        raise InvalidParameterError(
            "add_noise: the variables hold infinite values (sdcMicro's standard deviations are then NaN and "
            "every value of the column becomes NaN). Recode them first (e.g. top_bot_coding).")
    return x


@validate_params({
    "data": Frame(),
    "variables": Columns(of="data", optional=True),
    "noise": Interval(0, None),
    "method": Options(NATIVE_METHODS + R_METHODS),
    "p": Interval(None, None),
    "delta": Interval(0, 1, closed="right"),
    "restr_shift": Options(("sdcmicro", "column")),
    "random_state": RStream(),
})
def add_noise(data, variables=None, noise: float = 150, method: str = "additive", p: float = 0.001,
              delta: float = 0.1, restr_shift: str = "sdcmicro", random_state=None) -> AddNoiseResult:
    """Perturb numeric variables by noise, as sdcMicro's ``addNoise`` on a data.frame.

    Parameters
    ----------
    data : DataFrame
        The data; not modified.
    variables : list of str, optional
        The numeric variables (default: every column).
    noise : float
        The amount of noise in percent (methods additive, correlated, restr, outdect).
    method : str
        ``"additive"``: ``x + N(0, (noise/100 sd(x))^2)`` per column; ``"correlated"``: ``x +
        mvrnorm(0, noise/100 cov(complete records))`` (at least two variables); ``"correlated2"``:
        ``sqrt(1 - delta^2) x + delta N((1 - sqrt(1 - delta^2))/delta mean(x), sd(x)^2)`` (``noise``
        ignored); ``"restr"``: ``cc x + (1 - cc) mean`` without random draws; ``"outdect"``: additive
        noise ``1.96 sd / sqrt(n) noise/100`` on the outliers only (above the 99% quantile of a
        column or beyond the robust distance of covMcd); ``"ROMM"``: ``T x`` with T the Gram-Schmidt
        orthonormalisation of ``I + p N(0, 1)^(n x n)`` (up to 2000 records).
    p : float
        ROMM's perturbation parameter.
    delta : float in (0, 1]
        correlated2's noise level.
    restr_shift : {"sdcmicro", "column"}
        restr's shift: sdcMicro recycles the vector of the p column shifts over the values of the
        table in column-major order, so a value gets the shift of the column ``(j n + i) mod p`` --
        not its own (``"sdcmicro"``, the default, equals sdcMicro and warns); ``"column"`` shifts each
        column by its own ``(1 - cc) mean``, which keeps the column means.
    random_state : None, int or RRandom
        ``s`` is R's ``set.seed(s)`` just before sdcMicro's call (the same noise, number for
        number); an :class:`pysdc.core.rrandom.RRandom` continues that stream; None draws a seed.

    Returns
    -------
    AddNoiseResult
        ``x``, ``xm`` (the perturbed variables, doubles), ``method``, ``noise``, ``p``, ``delta``.

    Raises
    ------
    InvalidParameterError
        Non-numeric or infinite variables, ``correlated`` with one variable or fewer than two
        complete records, ``ROMM`` above 2000 records, invalid parameters.

    Examples
    --------
    >>> import pandas as pd
    >>> from pysdc.protect import add_noise
    >>> df = pd.DataFrame({"a": [1.0, 5, 3, 8], "b": [10.0, 30, 20, 50]})
    >>> r = add_noise(df, noise=50, random_state=1)   # R: set.seed(1); addNoise(df, noise = 50)
    >>> r.xm.shape
    (4, 2)
    """
    variables = list(variables) if variables is not None else list(data.columns)
    if not variables:
        raise InvalidParameterError("add_noise: variables must name at least one column.")
    if method == "ROMM" and len(data) > _k.ROMM_MAX_N:
        raise InvalidParameterError(
            f"add_noise: method 'ROMM' multiplies the data by a random orthogonal n x n matrix (n^2 doubles, "
            f"O(n^3) operations, as sdcMicro); pysdc runs it up to {_k.ROMM_MAX_N} records, got {len(data)}.")
    x = _matrix(data, variables)
    rr = r_stream(random_state)
    if method == "additive":
        xm = _k.additive(x, noise, rr)
    elif method == "correlated":
        xm = _k.correlated(x, noise, rr)
    elif method == "correlated2":
        xm = _k.correlated2(x, delta, rr)
    elif method == "restr":
        if restr_shift == "column":
            xm = _k.restr_by_column(x, noise)
        else:
            if x.shape[1] > 1:
                warnings.warn(
                    "add_noise(method='restr') returns sdcMicro's numbers: sdcMicro adds the vector of the "
                    f"{x.shape[1]} column shifts (1 - cc) * mean to the table in column-major order, so most "
                    "values get another column's shift and the column means are not kept. "
                    "restr_shift='column' shifts each column by its own.",
                    DegenerateResultWarning, stacklevel=user_stacklevel())
            xm = _k.restr(x, noise)
    elif method == "ROMM":
        xm = _k.romm(x, p, rr)
    else:  # outdect
        xm = _k.outdect(x, noise, rr)
    out = pd.DataFrame(xm, columns=variables, index=data.index, copy=False)  # xm is new: no second copy
    nan = float("nan")
    return AddNoiseResult(
        # a list of columns selects a copy (copy-on-write in pandas 3): no second copy
        x=data[variables], xm=out, method=f"addNoise: {method}",
        noise=nan if method in ("ROMM", "correlated2") else float(noise),
        p=float(p) if method == "ROMM" else nan, delta=float(delta) if method == "correlated2" else nan)
