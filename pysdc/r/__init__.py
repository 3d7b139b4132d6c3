"""The R bridge: pysdc's measures executed by sdcMicro, and any R function.

Importing this module neither imports rpy2 nor starts R; the first call does,
once. Needs R, rpy2 (``pip install "pysdc-measures[r]"``) and, for the
sdcMicro functions, the R package sdcMicro.

Wrappers
--------
Every measure of the registry :mod:`pysdc._registry` (:func:`d_utility`,
:func:`il_correl`, :func:`il_variables`, :func:`freq_calc`, :func:`indiv_risk`,
:func:`measure_risk`, :func:`ldiversity`, ...) has a wrapper here with the native
function's name, signature, defaults, validation and result class, and every number
in its result is sdcMicro's (:mod:`pysdc.r._measures`).

Generic call
------------
:func:`call` runs any sdcMicro (or other R) function on pandas/NumPy/Python
values and converts the result back (see :mod:`pysdc.r._convert` for the
table). R objects without a Python counterpart (an ``sdcMicroObj``...) come
back as :class:`RObject` handles to pass to the next call.

Threads, errors, warnings, messages
-----------------------------------
Every R interaction runs under one re-entrant lock: calls from several threads
are safe and serialised (R itself is single-threaded). An R error raises
:class:`pysdc.RCallError` (``.r_message``, ``.call``); a missing R, rpy2 or
sdcMicro raises :class:`pysdc.RNotAvailableError` with install hints. R
warnings are re-raised as :class:`pysdc.RWarning` at the caller's line; R
messages go to the ``pysdc.r`` logger (INFO) and, with printed output and the
warnings, to :func:`last_call_log`.
"""

from __future__ import annotations

from .._errors import RNotAvailableError
from ._laeken import gini
from ._measures import WRAPPERS as _WRAPPERS
from ._objects import Availability, CallLog, RList, RObject

globals().update(_WRAPPERS)  # pysdc.r.<measure> for every registry entry with a bridge

__all__ = [
    "call",
    "available",
    "versions",
    "last_call_log",
    "RObject",
    "RList",
    "Availability",
    "CallLog",
    "gini",
    *_WRAPPERS,
]


def call(fun: str, *args, package: str | None = "sdcMicro", as_robject: bool = False, **kwargs):
    """Call the R function ``package::fun`` with converted arguments.

    Parameters
    ----------
    fun : str
        The R function's name, e.g. ``"addNoise"``.
    *args, **kwargs
        Positional and named R arguments: DataFrames (-> data.frame), Series and
        1-d arrays (-> vectors/factors), 2-d arrays (-> matrices), scalars, None
        (-> NULL), lists of scalars (-> vectors), other lists (-> unnamed lists),
        dicts (-> named lists), RObject/RList handles. For R argument names that
        are not Python identifiers use ``**{"na.rm": True}``.
    package : str or None
        ``"sdcMicro"`` (default; its exported functions), any installed package,
        ``"base"``, or None for R's search path (e.g. ``stats`` functions).
    as_robject : bool
        Return the result as an :class:`RObject` handle without converting it.

    Returns
    -------
    The converted result: data.frame -> DataFrame, matrix -> ndarray (DataFrame
    with dimnames), named list -> dict (:class:`RList` when it has an S3 class),
    unnamed list -> list, vector -> ndarray (length 1 -> scalar, named -> Series),
    factor -> Categorical, anything else -> :class:`RObject`.

    Raises
    ------
    pysdc.RNotAvailableError
        R, rpy2 or the package is missing.
    pysdc.RCallError
        R signalled an error (``.r_message``, ``.call``).

    Warns
    -----
    pysdc.RWarning
        For each R warning.

    Examples
    --------
    >>> import pysdc, pysdc.r
    >>> df = pysdc.load_demo()                                      # doctest: +SKIP
    >>> masked = pysdc.r.call("addNoise", df[["income"]], noise=150)  # doctest: +SKIP
    >>> xm = masked.slot("xm") if isinstance(masked, pysdc.r.RObject) else masked["xm"]  # doctest: +SKIP
    >>> pysdc.d_utility(df[["income"]], xm)                         # doctest: +SKIP
    """
    from . import _session

    if not isinstance(fun, str) or not fun:
        from .._errors import InvalidParameterError

        raise InvalidParameterError(f"fun must be the name of an R function; got {fun!r}.")
    return _session.call(fun, args, kwargs, package=package, as_robject=as_robject)


def available(sdcmicro: bool = True) -> Availability:
    """Whether the bridge can run: R and rpy2 (and sdcMicro unless ``sdcmicro=False``).

    Starts R if it is not running yet. Returns an :class:`Availability`, truthy
    when usable, with ``.ok`` and ``.reason`` (install hints when not usable).
    """
    from . import _session

    try:
        _session.start()
        if sdcmicro:
            _session.ensure_package("sdcMicro")
    except RNotAvailableError as exc:
        return Availability(False, str(exc))
    v = _session.r_versions()
    what = f"R {v['R']}, rpy2 {v['rpy2']}"
    if v["sdcMicro"]:
        what += f", sdcMicro {v['sdcMicro']}"
    return Availability(True, what)


def versions() -> dict:
    """Versions of R, rpy2, rpy2-rinterface and sdcMicro (None where absent).

    Starts R if it is installed and not running yet.
    """
    from . import _session

    return _session.r_versions()


def last_call_log() -> CallLog:
    """Warnings, messages and printed output of this thread's last R call."""
    from . import _session

    return _session.last_call_log()
