"""Python-side handles for R values (no rpy2 import here, and no import of the bridge).

An :class:`RObject` reads its slots, attributes and components through a small
protocol, :class:`RAccess`, that the converter (:mod:`pysdc.r._convert_to_py`) implements
and hands to every handle it makes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["RObject", "RList", "RAccess", "Availability", "CallLog"]


class RAccess(Protocol):
    """What a handle needs from the bridge (each call takes the session lock itself)."""

    def slot(self, obj: RObject, name: str) -> Any: ...

    def attr(self, obj: RObject, name: str) -> Any: ...

    def item(self, obj: RObject, key: str | int) -> Any: ...

    def unclass(self, obj: RObject) -> Any: ...


class RObject:
    """A handle to an R value that has no faithful Python counterpart.

    S4 objects (e.g. an ``sdcMicroObj``), environments, functions, calls and
    unnamed S3-classed lists come back from :func:`pysdc.r.call` as an
    ``RObject``. Pass it as an argument to the next call and R receives the
    very same object.

    Attributes
    ----------
    r_class : tuple of str
        R's ``class()`` of the object.
    r_type : str
        R's ``typeof()`` of the object.
    """

    __slots__ = ("_sexp", "r_class", "r_type", "_access", "_dtypes")

    def __init__(self, sexp, r_class: tuple = (), r_type: str = "", access: RAccess | None = None):
        self._sexp = sexp
        self.r_class = tuple(r_class)
        self.r_type = r_type
        self._access = access
        self._dtypes = None  # pandas dtypes of the columns sent in the call that made it

    def _ops(self) -> RAccess:
        if self._access is None:
            raise TypeError("this RObject was made without access to R (no RAccess given)")
        return self._access

    def __repr__(self) -> str:
        cls = "/".join(self.r_class) or self.r_type
        return f"<RObject of R class {cls}>"

    def slot(self, name: str):
        """The S4 slot ``name`` (R's ``obj@name``), converted to Python."""
        return self._ops().slot(self, name)

    def attr(self, name: str):
        """The attribute ``name`` (R's ``attr(obj, name, exact = TRUE)``), converted to Python."""
        return self._ops().attr(self, name)

    def to_python(self):
        """Convert the object with its class removed (R's ``unclass``); S4 objects
        become a dict of their slots."""
        return self._ops().unclass(self)

    def __getitem__(self, key):
        """A component (R's ``obj[[key]]``, or the slot for S4 objects), converted to Python."""
        return self._ops().item(self, key)


class RList(dict):
    """A named R list that carried an S3 class (e.g. sdcMicro's ``freqCalc``).

    It reads like a dict of converted components; it is read-only, and when it
    is passed to another :func:`pysdc.r.call` R receives the original object
    (class included). Use ``dict(x)`` to get a plain, editable dict, which is
    sent as a plain named list.

    Attributes
    ----------
    r_class : tuple of str
        R's ``class()`` of the list.
    r_object : RObject
        The handle to the original R object.
    """

    def __init__(self, items, r_object: RObject):
        super().__init__(items)
        self.r_object = r_object
        self.r_class = r_object.r_class

    def _readonly(self, *args, **kwargs):
        raise TypeError(
            "an RList mirrors an R object and is read-only; use dict(x) for an editable copy "
            "(it is sent to R as a plain named list, without the R class)"
        )

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]
    __ior__ = _readonly  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RList(class={'/'.join(self.r_class)}, {dict.__repr__(self)})"


@dataclass(frozen=True)
class Availability:
    """Answer of :func:`pysdc.r.available`: truthy when usable.

    Attributes
    ----------
    ok : bool
        Whether R, rpy2 (and, if asked for, sdcMicro) can be used.
    reason : str
        Why not (install hints included), or a short description of what was found.
    """

    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok

    def __iter__(self):
        # allows ``ok, reason = pysdc.r.available()``
        return iter((self.ok, self.reason))


@dataclass(frozen=True)
class CallLog:
    """What R said during the last bridge call of the current thread.

    Attributes
    ----------
    call : str
        The R call.
    warnings : tuple of str
        R warnings (also raised as :class:`pysdc.RWarning`).
    messages : tuple of str
        R messages (``message()``), also logged to the ``pysdc.r`` logger at INFO.
    output : tuple of str
        Lines R printed (``print``/``cat``), also logged to ``pysdc.r`` at DEBUG.
    text : str
        What R's console would have shown: printed output and messages, in the order R
        emitted them (warnings are not part of it; R prints them after the call).
    """

    call: str = ""
    warnings: tuple = field(default=())
    messages: tuple = field(default=())
    output: tuple = field(default=())
    text: str = ""
