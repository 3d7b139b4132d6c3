"""Starting R: the one lock, the lazy start, and the install hints.

Nothing here imports rpy2 at module import time. :func:`start` imports rpy2 and
starts the embedded R, once, under :data:`LOCK`; every R interaction (conversion
included) runs under that re-entrant lock, so calls from any thread are serialised.
"""

from __future__ import annotations

import os
import threading
import warnings

from .._errors import RNotAvailableError

__all__ = ["LOCK", "start", "HINT_R", "HINT_RPY2", "HINT_SDCMICRO"]

LOCK = threading.RLock()

HINT_R = (
    "Install R (Debian/Ubuntu: `apt-get install r-base-core`; conda: `conda install -c conda-forge r-base`) "
    "and make sure `R RHOME` works or R_HOME points at it."
)
HINT_RPY2 = 'Install the R bridge extra: `pip install "pysdc-measures[r]"` (rpy2 3.6.6).'
HINT_SDCMICRO = (
    'Install sdcMicro in R: `install.packages("sdcMicro")`, or with conda: '
    "`conda install -c conda-forge r-sdcmicro`."
)

_state: dict = {"ri": None, "error": None}


def _fail(message: str, cause: BaseException | None = None):
    _state["error"] = message
    err = RNotAvailableError(message)
    if cause is not None:
        raise err from cause
    raise err


def start():
    """Start R (once) and return ``rpy2.rinterface``. Raises RNotAvailableError."""
    with LOCK:
        if _state["ri"] is not None:
            return _state["ri"]
        if _state["error"] is not None:
            raise RNotAvailableError(_state["error"])
        try:
            import rpy2  # noqa: F401
        except ImportError as exc:
            _fail(f"rpy2 is not installed, so pysdc cannot run R. {HINT_RPY2}", exc)
        try:
            import rpy2.rinterface as ri
            from rpy2.rinterface_lib import embedded

            if not embedded.isinitialized():
                ld_before = os.environ.get("LD_LIBRARY_PATH")
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="R is not initialized by the main thread")
                    ri.initr()
                # rpy2 copies R's LD_LIBRARY_PATH (system library dirs first) into os.environ; that no
                # longer matters to this process (the loader read it at start) but breaks subprocesses,
                # e.g. a pyenv/conda Python that then loads the system's libraries. Put it back.
                if ld_before is None:
                    os.environ.pop("LD_LIBRARY_PATH", None)
                else:
                    os.environ["LD_LIBRARY_PATH"] = ld_before
        except (ValueError, OSError, RuntimeError, FileNotFoundError, ImportError, KeyError) as exc:
            _fail(f"R could not be started ({type(exc).__name__}: {exc}). {HINT_R}", exc)
        _state["ri"] = ri
        return ri
