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
values and converts the result back (see :mod:`pysdc.r._convert_to_r` for the
table). R objects without a Python counterpart come back as :class:`RObject` handles
to pass to the next call. :func:`print` returns R's printed text, :func:`formula`
makes an R formula, :func:`dataset` loads sdcMicro's example data sets.

sdcMicro objects
----------------
:class:`SdcObj` wraps an ``sdcMicroObj``: ``SdcObj.create(data, key_vars, num_vars=...,
w=..., hid=..., strata=..., sensitive=...)`` (``createSdcObj``, the specification of
:class:`pysdc.SdcProblem`), slots as pandas (``.orig_data``, ``.manip_data``, ``.risk``,
``.utility`` ...), sdcMicro's methods returning a new object (``.local_suppression(k=3)``,
``.microaggregation(method="mdav", aggr=3)``, ``.add_noise``, ``.pram``, ``.global_recode``,
``.top_bot_coding``, ``.undo()``), ``repr`` = R's ``print(sdc, "risk")``, and
``.to_problem()`` to the native :class:`pysdc.SdcProblem`.

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

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, RNotAvailableError
from .._version import REFERENCE_SDCMICRO_VERSION
from . import _session
from ._laeken import gini
from ._measures import WRAPPERS as _WRAPPERS
from ._methods import METHOD_WRAPPERS as _METHOD_WRAPPERS
from ._objects import Availability, CallLog, RList, RObject
from ._sdcobj import SdcObj

globals().update(_WRAPPERS)  # pysdc.r.<measure> for every registry entry with a bridge
globals().update(_METHOD_WRAPPERS)  # pysdc.r.<method> for every protection method (pysdc._registry._methods)

# pysdc.r.print is public but not in __all__: ``from pysdc.r import *`` must not shadow Python's print
__all__ = [
    "call",
    "formula",
    "dataset",
    "datasets",
    "SdcObj",
    "available",
    "versions",
    "sdcmicro_version",
    "REFERENCE_SDCMICRO_VERSION",
    "LATER_SDCMICRO_CHANGES",
    "last_call_log",
    "RObject",
    "RList",
    "Availability",
    "CallLog",
    "gini",
    *_WRAPPERS,
    *_METHOD_WRAPPERS,
]


def _r_names(kwargs: dict, r_args) -> dict:
    """Python keyword arguments -> R argument names: one trailing ``_`` dropped, then ``r_args``."""
    out = {}
    for k, v in kwargs.items():
        out[k[:-1] if k.endswith("_") and len(k) > 1 else k] = v
    if r_args is not None:
        if not isinstance(r_args, dict) or not all(isinstance(k, str) and k for k in r_args):
            raise InvalidParameterError(
                f"r_args must be a dict of R argument names (str) to values; got {type(r_args).__name__}."
            )
        clash = sorted(set(out) & set(r_args))
        if clash:
            raise InvalidParameterError(f"R argument(s) {clash} given twice (as keywords and in r_args).")
        out.update(r_args)
    return out


def call(fun: str, /, *args, package: str | None = "sdcMicro", as_robject: bool = False,
         r_args: dict | None = None, **kwargs):
    """Call the R function ``package::fun`` with converted arguments.

    Parameters
    ----------
    fun : str
        The R function's name, e.g. ``"addNoise"`` (positional only: an R argument
        called ``fun`` can be passed as ``fun=``).
    *args, **kwargs
        Positional and named R arguments: DataFrames (-> data.frame), Series and
        1-d arrays (-> vectors/factors), 2-d arrays (-> matrices), scalars, None
        (-> NULL), lists of scalars (-> vectors), other lists (-> unnamed lists),
        dicts (-> named lists), RObject/RList handles. Text starting with ``~``
        becomes an R formula (see :func:`formula`).
    package : str or None
        ``"sdcMicro"`` (default): sdcMicro's exported function, or, when sdcMicro
        does not export ``fun``, the first of base, stats, utils and methods that does
        (``call("set.seed", 1)``, ``call("as.data.frame", x)`` work). Any other
        installed package, ``"base"``, or None for R's search path.
    as_robject : bool
        Return the result as an :class:`RObject` handle without converting it.
    r_args : dict, optional
        More R arguments by their R names, for names that are not Python identifiers
        (``{"na.rm": True}``) or that ``call`` uses itself (``{"package": "sdcMicro"}``).

    Returns
    -------
    The converted result: data.frame -> DataFrame, matrix -> ndarray (DataFrame
    with dimnames), named list -> dict (:class:`RList` when it has an S3 class),
    unnamed list -> list, vector -> ndarray (length 1 -> scalar, named -> Series),
    factor -> Categorical, anything else -> :class:`RObject`. Columns of a returned
    data.frame that carry the name of a column sent in this call get that column's
    pandas dtype back when R kept its type (see :mod:`pysdc.r._convert_memo`).

    Raises
    ------
    pysdc.RNotAvailableError
        R, rpy2 or the package is missing.
    pysdc.RCallError
        R signalled an error (``.r_message``, ``.call``); R's error text is not echoed to
        the console. A function that the package does not export names the packages that do.
    pysdc.InvalidParameterError
        An argument has no R counterpart, or text starting with ``~`` is not a valid formula.

    Notes
    -----
    The call runs as it is: unlike the typed functions of this module, it does not first check
    robustbase's ``covMcd`` for the exact fits on which it writes past its arrays (fewer than 600 records
    collinear up to rounding; see docs/bridge.md). A ``call`` that reaches ``covMcd`` (``dRiskRMD``,
    ``summary`` of a microaggregation object, ``shuffle`` with ``covmethod = "mcd"``) on such data can
    abort R; prefer the typed function where one exists.

    Warns
    -----
    pysdc.RWarning
        For each R warning.

    Notes
    -----
    **R argument names that clash with call's own.** ``call`` uses the keywords
    ``package``, ``as_robject`` and ``r_args``. To pass an R argument of one of these
    names, add a trailing underscore -- one trailing ``_`` is always dropped, so
    ``package_="sdcMicro"`` is R's ``package = "sdcMicro"`` -- or put it in ``r_args``.
    (An R argument whose name really ends in ``_`` is passed through ``r_args``.)

    **Formulas.** A ``str`` argument whose text starts with ``~`` is sent as
    ``stats::as.formula(text)`` (environment: R's global environment), so
    ``formulaM="~ sex + water"`` works as in R. To send such text as a character string,
    pass it in a list (``["~ x"]``). :func:`formula` makes a formula handle explicitly
    (also for two-sided formulas, ``"y ~ x"``).

    The printed output and messages of the call are in :func:`last_call_log` (``.text``
    in their order); :func:`print` returns R's printed text.

    Examples
    --------
    >>> import pysdc, pysdc.r
    >>> df = pysdc.r.dataset("testdata")                              # doctest: +SKIP
    >>> pysdc.r.call("set.seed", 1)                                   # falls back to base  # doctest: +SKIP
    >>> masked = pysdc.r.call("addNoise", df[["income"]], noise=150)  # doctest: +SKIP
    >>> env = pysdc.r.call("new.env", as_robject=True)                 # doctest: +SKIP
    >>> pysdc.r.call("data", list="testdata", package_="sdcMicro",
    ...              envir=env, package="utils")   # R's package= argument  # doctest: +SKIP
    >>> pysdc.r.call("mean", [1.0, None, 3.0], r_args={"na.rm": True})  # doctest: +SKIP
    2.0
    """
    if not isinstance(fun, str) or not fun:
        raise InvalidParameterError(f"fun must be the name of an R function; got {fun!r}.")
    return _session.call(fun, args, _r_names(kwargs, r_args), package=package, as_robject=as_robject)


def print(obj, /, *args, r_args: dict | None = None, **kwargs) -> str:  # noqa: A001 - R's print
    """R's printed text of ``print(obj, ...)``, as R's console shows it.

    Parameters
    ----------
    obj
        Anything :func:`call` accepts (an :class:`RObject`, :class:`SdcObj`, a DataFrame ...).
    *args, **kwargs, r_args
        Further arguments of R's ``print`` (e.g. ``"risk"`` for an ``sdcMicroObj``),
        named as in :func:`call`.

    Returns
    -------
    str
        Printed output and messages in the order R emitted them (R's warnings are raised
        as :class:`pysdc.RWarning`, not included).

    Raises
    ------
    pysdc.RCallError
        The print method failed (R's message; nothing is echoed to the console).

    See Also
    --------
    last_call_log : ``.text`` holds the same for any call.
    SdcObj.print : ``print(sdc, type)`` of an sdcMicroObj.

    Notes
    -----
    sdcMicro's print methods write part of their text with ``message()`` (R's stderr) and part
    with ``cat()``; R's console shows both, interleaved, and so does this text. ``print`` is
    sdcMicro's (an S4 generic with the ``sdcMicroObj`` method) when sdcMicro is installed, else
    base R's. ``call("print", obj)`` returns print's invisible value instead.

    Examples
    --------
    >>> sdc = pysdc.r.SdcObj.create(pysdc.r.dataset("testdata"), ["urbrur", "roof"])  # doctest: +SKIP
    >>> text = pysdc.r.print(sdc, "risk")                                           # doctest: +SKIP
    """
    if isinstance(obj, SdcObj):
        obj = obj.handle
    return _session.printed(obj, args, _r_names(kwargs, r_args))


def formula(text: str) -> RObject:
    """An R formula from its text (R's ``stats::as.formula(text)``), as a handle to pass to :func:`call`.

    Parameters
    ----------
    text : str
        The formula, e.g. ``"~ sex + water"`` or ``"income ~ age"``.

    Returns
    -------
    RObject
        A handle of R class ``formula`` (environment: R's global environment).

    Notes
    -----
    :func:`call` already turns text starting with ``~`` into a formula; this function is
    for two-sided formulas, for formulas inside lists or dicts, and to reuse one formula.

    Raises
    ------
    pysdc.InvalidParameterError
        The text holds no ``~`` or R cannot parse it.

    Examples
    --------
    >>> f = pysdc.r.formula("~ sex + water")                                      # doctest: +SKIP
    >>> pysdc.r.call("modRisk", sdc, method="default", formulaM=f)                # doctest: +SKIP
    """
    from ._convert_to_py import handle  # imports rpy2: `import pysdc.r` must not (tests/r/test_r_lazy.py)

    if not isinstance(text, str) or "~" not in text:
        raise InvalidParameterError(f"formula takes the text of an R formula containing '~'; got {text!r}.")
    with _session.LOCK:
        return handle(_session.formula_sexp(text))


def dataset(name: str):
    """One of sdcMicro's example data sets, as R's ``data(name, package = "sdcMicro")`` loads it.

    Parameters
    ----------
    name : str
        E.g. ``"testdata"``, ``"testdata2"``, ``"francdat"``, ``"free1"``,
        ``"CASCrefmicrodata"``, ``"EIA"``, ``"Tarragona"``, ``"casc1"``, ``"microData"``;
        :func:`datasets` lists them all.

    Returns
    -------
    pandas.DataFrame
        Data frames and matrices as DataFrames (R's factors as categoricals, integers as
        ``int64``, ``Int64`` where they hold NA); anything else converted as by :func:`call`.

    Raises
    ------
    pysdc.InvalidParameterError
        sdcMicro has no data set of that name (the message lists the names).
    pysdc.RNotAvailableError
        R, rpy2 or sdcMicro is missing.

    See Also
    --------
    pysdc.load_demo : pysdc's own demo data (no R needed).

    Examples
    --------
    >>> testdata = pysdc.r.dataset("testdata")                 # doctest: +SKIP
    >>> testdata.shape                                         # doctest: +SKIP
    (4580, 15)
    """
    names = datasets()
    if not isinstance(name, str) or name not in names:
        raise InvalidParameterError(f"sdcMicro has no data set {name!r}; its data sets are {names}.")
    out = _session.call("load_data", (name,), {}, helper=True)
    if isinstance(out, np.ndarray) and out.ndim == 2:
        out = pd.DataFrame(out, columns=[f"V{i + 1}" for i in range(out.shape[1])])
    return out


def datasets() -> list:
    """The names of sdcMicro's example data sets (R's ``data(package = "sdcMicro")``)."""
    _session.ensure_package("sdcMicro")
    out = _session.call("pkg_datasets", ("sdcMicro",), {}, helper=True)
    return [str(x) for x in np.atleast_1d(out)]


def available(sdcmicro: bool = True) -> Availability:
    """Whether the bridge can run: R and rpy2 (and sdcMicro unless ``sdcmicro=False``).

    Starts R if it is not running yet. Returns an :class:`Availability`, truthy
    when usable, with ``.ok`` and ``.reason`` (install hints when not usable).
    """
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
    return _session.r_versions()


#: behaviour changes of sdcMicro's measures after 5.8.0 (from sdcMicro's NEWS): (version, what changed).
#: Where the installed sdcMicro is one of these, the bridge's numbers may differ from pysdc's on purpose.
LATER_SDCMICRO_CHANGES = (
    ("5.8.1 (development; NEWS 5.8.2)",
     "ldiversity(): the distinct l-diversity is computed differently when key variables have missing values "
     "(NEWS: 'now computes distinct l-diversity measure correctly in case of NAs in Keyvars', rewritten C++ code); "
     "pysdc and its stored references follow 5.8.0"),
    ("5.8.1 (development)",
     "no other change to the measures pysdc reproduces: new AI_* functions (KI_* renamed) and recordLinkage(), "
     "C++ warning fixes in rankSwap and mdav"),
)


def sdcmicro_version() -> str:
    """The version of the installed sdcMicro, e.g. ``"5.8.0"``.

    Starts R if it is not running yet. pysdc reproduces sdcMicro
    :data:`REFERENCE_SDCMICRO_VERSION`; :data:`LATER_SDCMICRO_CHANGES` lists the known behaviour
    changes of later versions (the live parity report names them when another version is installed).

    Raises
    ------
    pysdc.RNotAvailableError
        R, rpy2 or sdcMicro is missing (with install hints).
    """
    _session.start()
    _session.ensure_package("sdcMicro")
    v = _session.r_versions()["sdcMicro"]
    if not v:  # pragma: no cover - ensure_package raised already
        raise RNotAvailableError("sdcMicro's version could not be read from R.")
    return str(v)


def last_call_log() -> CallLog:
    """Warnings, messages and printed output of this thread's last R call."""
    return _session.last_call_log()
