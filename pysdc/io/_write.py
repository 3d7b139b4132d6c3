"""Writing outputs: never over an input, at the final path only when complete.

Every file pysdc writes (``pysdc risk --output``, ``pysdc report``, ``pysdc utility --plots``,
:func:`pysdc.io.write_table`, ``EngineTable.to_parquet``, the parity reports) goes through this module:

* :func:`check_output` refuses, before any work starts, an output that is an input (the same path, a
  symbolic or hard link to it: resolved paths and ``(st_dev, st_ino)`` are compared), its schema
  sidecar, a file inside an input directory or matched by an input glob, or a directory holding an
  input; and an extension that does not name the format written.
* :func:`atomic_output` hands the writer a hidden temporary path beside the target
  (``.NAME.pysdc-tmp-<pid>-<random>``, same directory, so on the same file system); after the writer
  has succeeded the data are flushed to disk (``fsync``) and the temporary file (or directory, for
  Spark's part files) is renamed onto the target. On any exception, ``KeyboardInterrupt`` included,
  the temporary file is removed and the target keeps its old content (or does not exist); a full disk
  says so. Concurrent writers each rename their own complete file: the target is one of them, never a
  mix. A ``SIGKILL`` can leave only the hidden temporary file.
* :func:`sigterm_as_exception` (the command line, around its write) turns ``SIGTERM`` into an
  exception, so the same cleanup runs; the previous handler is restored afterwards.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import glob as _glob
import os
import secrets
import shutil
import signal
import stat
import sys
import threading
from pathlib import Path

from .._errors import InvalidParameterError
from .._paths import schema_path

__all__ = ["check_output", "refuse_overwriting_inputs", "atomic_output", "write_bytes", "write_text",
           "sigterm_as_exception", "Terminated", "TEMP_MARK"]

#: what the temporary files and directories of a write carry in their (hidden) names
TEMP_MARK = ".pysdc-tmp-"


class Terminated(SystemExit):
    """``SIGTERM`` during a write of the command line (exit status 143 = 128 + 15)."""

    def __init__(self):
        super().__init__(128 + signal.SIGTERM)


# =============================================================================
# checks before any work


def _is_pattern(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def _file_id(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _inside(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or lies below it (both absolute and normalised)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _sidecar(path: str) -> str | None:
    name = os.path.basename(path).lower()
    if name.endswith((".csv", ".csv.gz", ".tsv", ".txt", ".csv.bz2", ".csv.xz", ".csv.zip")):
        return os.fspath(schema_path(path))
    return None


def _input_files(spec: str) -> list[str]:
    """The files an input ``spec`` (file, directory, glob) is read from, with the schema sidecars."""
    if _is_pattern(spec):
        files = [f for f in _glob.glob(spec, recursive=True) if os.path.isfile(f)]
    elif os.path.isdir(spec):
        files = [f for f in _glob.glob(os.path.join(spec, "**", "*"), recursive=True) if os.path.isfile(f)]
    else:
        files = [spec]
    sidecars = [s for s in map(_sidecar, files) if s is not None and os.path.exists(s)]
    return files + sidecars


def refuse_overwriting_inputs(output, inputs, *, what: str = "--output") -> None:
    """Raise :class:`~pysdc.InvalidParameterError` if writing ``output`` would overwrite or change an input.

    ``inputs`` are paths as given (files, directories, globs; None is skipped). Refused: the same file
    (by resolved path, or by ``(st_dev, st_ino)``: symbolic and hard links), an input's schema sidecar,
    a path inside an input directory or matched by an input glob (it would be read as input), and a
    path that is (or would be replaced as) a directory holding an input.
    """
    out = os.path.abspath(os.fspath(output))
    out_real = os.path.realpath(out)
    out_id = _file_id(out)
    shown = os.fspath(output)
    for spec in inputs:
        if spec is None:
            continue
        spec = os.fspath(spec)

        def refuse(why: str):
            raise InvalidParameterError(f"{what} {shown!r} {why}; pysdc never writes over its inputs: write the "
                                        "output elsewhere.")

        if _is_pattern(spec):
            pattern = os.path.abspath(spec)
            if fnmatch.fnmatchcase(out, pattern) or fnmatch.fnmatchcase(out_real, os.path.realpath(pattern)):
                refuse(f"matches the input pattern {spec!r}: it would be read as input")
        elif os.path.isdir(spec):
            d = os.path.abspath(spec)
            if _inside(out, d) or _inside(out_real, os.path.realpath(d)):
                refuse(f"lies inside the input directory {spec!r}: it would be read as input (or replace it)")
        for f in _input_files(spec):
            fa = os.path.abspath(f)
            fr = os.path.realpath(fa)
            if fr == out_real or (out_id is not None and _file_id(fa) == out_id):
                linked = out_real != out or fr != fa or fr != out_real
                refuse(f"is the input file {f!r}" + (" (the same file through a link)" if linked else ""))
            if _inside(fa, out) or _inside(fr, out_real):
                refuse(f"is a directory holding the input file {f!r}, which writing it would replace")
        side = None if _is_pattern(spec) or os.path.isdir(spec) else _sidecar(spec)
        if side is not None and os.path.realpath(side) == out_real:  # an existing one is refused above
            refuse(f"is the schema sidecar of the input file {spec!r}: it would be read as its column types")


def check_output(output, inputs=(), *, what: str = "--output", extensions=None, format_name: str = "",
                 directory_ok: bool = False) -> Path:
    """Check an output path before any work: not an input (:func:`refuse_overwriting_inputs`), an
    extension among ``extensions`` (the format written; None: any), not an existing directory
    (unless ``directory_ok``: a directory of part files). Returns the path."""
    p = Path(output)
    name = p.name.lower()
    if not p.name or p.name in (".", ".."):
        raise InvalidParameterError(f"{what} {os.fspath(output)!r} names no file.")
    refuse_overwriting_inputs(output, inputs, what=what)
    if extensions is not None and not name.endswith(tuple(extensions)):
        raise InvalidParameterError(
            f"{what} {os.fspath(output)!r}: the extension decides the format; {what} writes "
            f"{format_name or 'a file'} and accepts names ending in {', '.join(extensions)}.")
    if p.is_dir() and not directory_ok:
        raise InvalidParameterError(f"{what} {os.fspath(output)!r} is a directory; name the file to write.")
    return p


# =============================================================================
# atomic writes


def _temp_path(target: Path) -> Path:
    return target.parent / f".{target.name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}"


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass


def _fsync_file(path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems do not sync directories
        pass
    finally:
        os.close(fd)


def _sync(tmp: Path) -> None:
    if tmp.is_dir():
        for root, _, files in os.walk(tmp):
            for f in files:
                _fsync_file(os.path.join(root, f))
            _fsync_dir(root)
    else:
        _fsync_file(tmp)


def _keep_mode(tmp: Path, target: Path) -> None:
    """A file replacing an existing file keeps that file's permissions (a private output stays private)."""
    try:
        st = os.stat(target)
    except OSError:
        return
    if not tmp.is_dir() and stat.S_ISREG(st.st_mode):
        os.chmod(tmp, stat.S_IMODE(st.st_mode))


def _move_into_place(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` onto ``target``; an existing directory (Spark's parts) is first moved aside, then removed."""
    _keep_mode(tmp, target)
    if tmp.is_dir() and target.exists() and not target.is_symlink():
        old = target.parent / f".{target.name}.pysdc-old-{os.getpid()}-{secrets.token_hex(4)}"
        os.replace(target, old)
        try:
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.replace(old, target)
            raise
        _remove(old)
    else:
        os.replace(tmp, target)


@contextlib.contextmanager
def _signals_deferred():
    """SIGINT and SIGTERM wait (blocked, then delivered) while the renames run."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    old = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    text = str(exc)
    return "No space left on device" in text or "Disk quota exceeded" in text


@contextlib.contextmanager
def atomic_output(*targets, make_parents: bool = False):
    """Within the block, write each target to the temporary path yielded for it (one path for one target,
    a list for several); on success they are synced and renamed onto their targets, on any exception
    (``KeyboardInterrupt``, ``SIGTERM`` under :func:`sigterm_as_exception`) removed, the targets untouched.
    The writer may create a file or a directory (Spark's part files) at the temporary path."""
    paths = [Path(os.fspath(t)) for t in targets]
    for p in paths:
        if make_parents:
            p.parent.mkdir(parents=True, exist_ok=True)
        elif not p.parent.is_dir():
            raise FileNotFoundError(errno.ENOENT, f"the directory of the output {os.fspath(p)!r} does not exist",
                                    os.fspath(p.parent))
    temps = [_temp_path(p) for p in paths]
    try:
        yield temps[0] if len(temps) == 1 else temps
        for tmp, p in zip(temps, paths):
            if not os.path.lexists(tmp):
                raise FileNotFoundError(errno.ENOENT, f"the writer wrote nothing for {os.fspath(p)!r}", os.fspath(p))
            _sync(tmp)
        with _signals_deferred():  # several targets (a table and its sidecar): all renamed, or none
            for tmp, p in zip(temps, paths):
                _move_into_place(tmp, p)
        for d in {p.parent for p in paths}:
            _fsync_dir(d)
    except BaseException as exc:
        for tmp in temps:
            _remove(tmp)
        if isinstance(exc, OSError) and exc.filename and TEMP_MARK in os.fspath(exc.filename):
            target = next((os.fspath(p) for p, t in zip(paths, temps) if t.name in os.fspath(exc.filename)), None)
            # e.g. no permission to write in the directory: the message names the output, not the temporary
            if target is not None and not _disk_full(exc):
                raise OSError(exc.errno, exc.strerror, target) from exc
        if _disk_full(exc):
            where = ", ".join(os.fspath(p) for p in paths)
            raise OSError(errno.ENOSPC, "the disk is full (no space left on the device); nothing was written and an "
                          "earlier file keeps its content; free space or write elsewhere. Output", where) from exc
        raise


def write_bytes(target, data: bytes, **kwargs) -> Path:
    """Write ``data`` to ``target`` through :func:`atomic_output`; returns the target."""
    with atomic_output(target, **kwargs) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    return Path(target)


def write_text(target, text: str, encoding: str = "utf-8", **kwargs) -> Path:
    """Write ``text`` to ``target`` through :func:`atomic_output`; returns the target."""
    return write_bytes(target, text.encode(encoding), **kwargs)


# =============================================================================
# SIGTERM on the command line


@contextlib.contextmanager
def sigterm_as_exception():
    """Within the block (the command line's write), ``SIGTERM`` raises :class:`Terminated` (exit status
    143), so the temporary files are removed as on an exception; the previous handler is restored after.
    Only in the main thread (where Python runs signal handlers); elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one is enough: let the cleanup finish
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # no signals here (e.g. an embedded interpreter)
        yield
        return
    try:
        yield
    except Terminated:
        print("pysdc: terminated (SIGTERM); the output was not written", file=sys.stderr)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
