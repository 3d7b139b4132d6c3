"""Exceptions and warnings raised by pysdc.

The hierarchy is deliberately small:

* :class:`PysdcError` -- base class of every pysdc exception.
* :class:`InvalidParameterError` -- an argument or the data cannot be used
  (also a :class:`ValueError`). Raised wherever sdcMicro refuses an input,
  with a message that names the cause and the way out.
* :class:`NotInSdcMicroError` -- an option only the native function has, asked of the R bridge
  (also an :class:`InvalidParameterError`): sdcMicro has no such argument.
* :class:`RNotAvailableError` -- R, rpy2 or sdcMicro is missing (also an
  :class:`ImportError`); the message carries install hints.
* :class:`RCallError` -- an R call failed; carries R's message and the call
  (also a :class:`RuntimeError`).

Warnings derive from :class:`PysdcWarning`.
"""

from __future__ import annotations

import sys

__all__ = [
    "PysdcError",
    "InvalidParameterError",
    "NotInSdcMicroError",
    "RNotAvailableError",
    "RCallError",
    "PysdcWarning",
    "DegenerateResultWarning",
    "CoercionWarning",
    "AlignmentWarning",
    "RWarning",
]


class PysdcError(Exception):
    """Base class of all pysdc exceptions."""


class InvalidParameterError(PysdcError, ValueError):
    """A parameter or the data cannot be used; the message says why and what to do."""


class NotInSdcMicroError(InvalidParameterError):
    """An option that only the native function has was asked of the R bridge (``pysdc.r``).

    sdcMicro has no such argument; the message names the native function that has it.
    """


class RNotAvailableError(PysdcError, ImportError):
    """R, rpy2 or the sdcMicro R package is not available."""


class RCallError(PysdcError, RuntimeError):
    """An R function call failed.

    Attributes
    ----------
    r_message : str
        The error message as R printed it.
    call : str
        The R call that failed (as far as it is known).
    """

    def __init__(self, r_message: str, call: str = ""):
        self.r_message = r_message
        self.call = call
        text = f"R call failed: {r_message.strip()}"
        if call:
            text += f"\n  in: {call}"
        super().__init__(text)


class PysdcWarning(UserWarning):
    """Base class of all pysdc warnings."""


class DegenerateResultWarning(PysdcWarning):
    """sdcMicro's number is returned, but it is degenerate (NaN, Inf, empty input...)."""


class CoercionWarning(PysdcWarning):
    """Input was coerced the way sdcMicro coerces it (e.g. character keys to NA)."""


class AlignmentWarning(PysdcWarning):
    """Records are paired by position although the DataFrame indexes say otherwise."""


class RWarning(PysdcWarning):
    """A warning raised by R during a bridge call."""


def user_stacklevel() -> int:
    """``stacklevel`` for ``warnings.warn`` that points at the first frame outside pysdc.

    Call it in the argument list of ``warnings.warn``: the warning is then reported at the
    user's line whatever the depth of pysdc's own calls (decorators, helpers).
    """
    level = 1
    f = sys._getframe(1)
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if not (mod == "pysdc" or mod.startswith("pysdc.")):
            break
        level += 1
        f = f.f_back
    return level
