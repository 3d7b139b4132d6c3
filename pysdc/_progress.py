"""Progress of long command-line work on stderr: stage messages and a heartbeat (pandas and engines alike).

The command line opens one display per command (:func:`progress_display`); the code doing the work,
wherever it is, names its stages with :func:`stage` ("reading DATA", "grouping the records ...",
"writing ..."). Nothing is printed outside a display (the Python API stays silent).

When it prints (documented in ``docs/engines.md``):

* nothing with ``--quiet``;
* nothing for a run that ends within :data:`AFTER` seconds, whether stderr is a terminal or a log
  file (quick runs stay clean; a long batch job still leaves its stages in the log);
* after that, each stage as it starts, with the elapsed time, and the stages already started are
  caught up in one line; while one stage (a single DuckDB query, a pandas group-by) goes on, a
  heartbeat line every :data:`HEARTBEAT` seconds ("still ...") from a background thread;
* the peak memory of the process (VmHWM) beside each line, so a ``--memory-limit`` can be checked.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
import time

__all__ = ["Progress", "progress_display", "stage", "watch", "peak_rss", "AFTER", "HEARTBEAT"]

#: seconds of work before the first line (a run that ends sooner prints nothing)
AFTER = 2.0
#: seconds between heartbeat lines while one stage goes on
HEARTBEAT = 10.0

_CURRENT: contextvars.ContextVar = contextvars.ContextVar("pysdc_progress", default=None)


def peak_rss() -> int | None:
    """The process's peak resident memory in bytes (Linux's VmHWM; ru_maxrss elsewhere), or None."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource

        r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return r if sys.platform == "darwin" else r * 1024
    except Exception:  # no resource module (Windows)
        return None


def _size(b: int | None) -> str:
    if b is None:
        return ""
    return f"{b / 2**30:.2f} GB" if b >= 2**30 else f"{b / 2**20:.0f} MB"


class Progress:
    """Stage messages and a heartbeat on ``stream`` (stderr); see the module's notes."""

    def __init__(self, *, quiet: bool = False, stream=None, after: float | None = None,
                 heartbeat: float | None = None):
        self.quiet = quiet
        self.stream = stream
        self.after = AFTER if after is None else after
        self.heartbeat = HEARTBEAT if heartbeat is None else heartbeat
        self.t0 = time.perf_counter()
        self.current: str | None = None
        self.since = self.t0
        self.pending: list[str] = []  # stages started before the first line
        self.started = False  # printed anything yet
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.probes: list = []  # callables giving the running query's percentage (DuckDB's query_progress)

    # the display

    def _print(self, text: str) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        elapsed = time.perf_counter() - self.t0
        mem = _size(peak_rss())
        try:
            print(f"pysdc: {elapsed:6.1f} s  {text}" + (f"  [peak memory {mem}]" if mem else ""), file=stream,
                  flush=True)
        except (OSError, ValueError):  # a closed or broken stderr: progress is not worth a failure
            self.quiet = True

    def _catch_up(self) -> None:
        if not self.started:
            self.started = True
            if self.pending:
                self._print("; ".join(self.pending) + " ...")
            self.pending = []

    def __call__(self, what: str) -> None:
        """A new stage starts (the same name again, e.g. one measure for several k, continues it)."""
        with self._lock:
            if what == self.current:
                return
            now = time.perf_counter()
            self.current, self.since = what, now
            if self.quiet:
                return
            if self.started or now - self.t0 >= self.after:
                self._catch_up()
                self._print(what)
            else:
                self.pending.append(what)

    def _beat(self) -> None:
        last = time.perf_counter()
        while not self._stop.wait(min(1.0, self.heartbeat)):
            with self._lock:
                if self.quiet:
                    continue
                now = time.perf_counter()
                if not self.started:
                    if now - self.t0 >= self.after and self.pending:
                        self._catch_up()
                        last = now
                    continue
                if self.current is not None and now - max(last, self.since) >= self.heartbeat:
                    pct = self._percent()
                    self._print(f"still {self.current} ({now - self.since:.0f} s in this stage"
                                + (f"; the running query {pct:.0f} % done" if pct is not None else "") + ")")
                    last = now

    def _percent(self) -> float | None:
        for probe in self.probes:
            try:
                p = probe()
            except Exception:  # a closed connection, an engine without it: no percentage
                continue
            if p is not None and 0 <= p <= 100:
                return float(p)
        return None

    # the block

    def __enter__(self) -> Progress:
        self._token = _CURRENT.set(self)
        if not self.quiet:
            self._thread = threading.Thread(target=self._beat, name="pysdc-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        _CURRENT.reset(self._token)
        if self.started and not self.quiet and exc[0] is None:
            with self._lock:
                self._print("done")


def stage(what: str) -> None:
    """Name the stage of work now starting (shown by the command line's display; a no-op elsewhere)."""
    p = _CURRENT.get()
    if p is not None:
        p(what)


def watch(probe) -> None:
    """Give the display a ``probe()`` returning the running query's percentage done (0-100, else -1 or None),
    shown in the heartbeat lines; a no-op outside a display."""
    p = _CURRENT.get()
    if p is not None and not p.quiet and probe not in p.probes:
        p.probes.append(probe)


def progress_display(args) -> contextlib.AbstractContextManager:
    """The display of one command: quiet with ``args.quiet`` (``--quiet``)."""
    return Progress(quiet=bool(getattr(args, "quiet", False)))
