"""pysdc's errors for the exceptions of DuckDB, Arrow and Spark (issue 23).

The engines raise their own exception classes with long, multi-line messages (a CSV line of
megabytes included) and advice in terms of their own SQL options (``union_by_name``,
``SET memory_limit``). :func:`translate` turns them into pysdc's hierarchy with the advice that fits
pysdc's options: :class:`~pysdc.InvalidParameterError` where the input is the cause (a bad
``memory_limit``, files of a directory with different schemas, a truncated Parquet file, a value
that does not convert, a CSV line too long) and :class:`EngineError` where the engine or the machine
is (out of memory, a file locked by another writer, a full disk). :func:`engine_errors` is the
context manager the engine entry points run in. Neither engine is imported here.
"""

from __future__ import annotations

import contextlib
import re

from .._errors import InvalidParameterError, PysdcError

__all__ = ["EngineError", "translate", "engine_errors", "is_engine_exception"]

#: longest excerpt of an engine message kept (a CSV "Original Line" can be megabytes)
_MAX_LINE = 160


class EngineError(PysdcError, RuntimeError):
    """DuckDB, Arrow or Spark failed for a reason other than the input (memory, disk, locks).

    Attributes
    ----------
    engine : str
        ``"duckdb"``, ``"arrow"`` or ``"spark"``.
    engine_message : str
        The engine's message, shortened to its first line.
    """

    def __init__(self, message: str, *, engine: str = "", engine_message: str = ""):
        super().__init__(message)
        self.engine = engine
        self.engine_message = engine_message


class EngineInputError(InvalidParameterError):
    """The engine could not read or convert the input; the message names the file or value."""

    def __init__(self, message: str, *, engine: str = "", engine_message: str = ""):
        super().__init__(message)
        self.engine = engine
        self.engine_message = engine_message


def _engine_of(exc: BaseException) -> str | None:
    for cls in type(exc).__mro__:
        mod = getattr(cls, "__module__", "") or ""
        if mod.startswith(("duckdb", "_duckdb")):
            return "duckdb"
        if mod.startswith("pyarrow"):
            return "arrow"
        if mod.startswith(("pyspark", "py4j")):
            return "spark"
    return None


def is_engine_exception(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by DuckDB, Arrow or Spark (and is not already pysdc's)."""
    return not isinstance(exc, PysdcError) and _engine_of(exc) is not None


def _short(text: str, limit: int = _MAX_LINE) -> str:
    text = " ".join(text.split()).rstrip(".")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _lines(msg: str) -> list[str]:
    return [ln.strip() for ln in msg.splitlines() if ln.strip()]


def _head(msg: str) -> str:
    """The engine's first line without its class prefix ("Invalid Input Error: ..."), shortened; after
    DuckDB's "CSV Error on Line: N" its first line of explanation (not the quoted line, not the advice)."""
    lines = _lines(msg)
    first = lines[0] if lines else ""
    first = re.sub(r"^[A-Z][A-Za-z ]*(Error|Exception):\s*", "", first)
    if re.match(r"CSV Error on Line: \d+\s*$", first):
        why = [ln for ln in lines[1:] if not ln.startswith(("Original Line", "Possible", "*", "Column ", "This type"))]
        if why:
            first = f"{first.rstrip('.')}: {_short(why[0], 100)}"
    return _short(first)


def _quoted_file(msg: str) -> str | None:
    m = re.search(r'(?:file|File)\s+"([^"]+)"', msg) or re.search(r"(?:file|File)\s+'([^']+)'", msg)
    return m.group(1) if m else None


def _where(paths) -> str:
    paths = [str(p) for p in (paths or []) if p]
    if not paths:
        return ""
    return f" (reading {', '.join(repr(p) for p in paths[:3])}{' ...' if len(paths) > 3 else ''})"


def translate(exc: BaseException, *, memory_limit=None, paths=None, engine: str | None = None) -> PysdcError | None:
    """pysdc's error for an engine's exception ``exc``, or None when ``exc`` is not an engine's.

    ``memory_limit`` is the limit the run asked for (for the advice), ``paths`` the input files or
    directories (named when the engine's message does not name the file)."""
    if isinstance(exc, PysdcError):
        return exc
    kind = _engine_of(exc) or engine
    if kind is None:
        return None
    msg = str(exc)
    name = type(exc).__name__
    head = _head(msg)
    if kind == "spark":  # py4j: "An error occurred while calling o45.collect." then the JVM's exception
        jvm = re.search(r"((?:java|org|scala)\.[\w.$]+(?:Exception|Error)[^\n]*)", msg)
        if jvm:
            head = _short(jvm.group(1))
    low = msg.lower()
    file = _quoted_file(msg)
    where = f" in {file!r}" if file else _where(paths)
    label = {"duckdb": "DuckDB", "arrow": "Arrow", "spark": "Spark"}[kind]

    def bad(text: str) -> EngineInputError:
        return EngineInputError(text, engine=kind, engine_message=head)

    def fail(text: str) -> EngineError:
        return EngineError(text, engine=kind, engine_message=head)

    # ---------------------------------------------------------------- memory
    if name == "OutOfMemoryException" or "out of memory" in low or "outofmemoryerror" in low \
            or "java heap space" in low or "failed to allocate" in low:
        if kind == "spark":
            return fail(
                f"Spark ran out of memory: {head}. Give its driver more memory (spark.driver.memory, e.g. "
                "PYSPARK_SUBMIT_ARGS='--driver-memory 8g pyspark-shell', or a session built with it), or use "
                "--engine duckdb, which spills to disk."
            )
        limit = f" (--memory-limit {memory_limit})" if memory_limit else ""
        return fail(
            f"{label} ran out of memory{limit}: {head}. Give it more memory: a larger --memory-limit if the "
            "machine has the memory free (DuckDB's default is 80 % of it), or, if the limit is already above "
            "what is free, a lower --memory-limit so that DuckDB spills to disk instead; fewer key variables "
            "or columns also need less."
        )
    # ---------------------------------------------------------------- settings
    if (name == "ParserException" and "memory" in low) or ("memory_limit" in low and name in (
            "InvalidInputException", "ParserException", "ConversionException")):
        shown = f" {memory_limit!r}" if memory_limit else ""
        return bad(f"the memory limit{shown} (--memory-limit, or scan's memory_limit) is not a size DuckDB "
                   f"understands ({head}); write a number with a unit, e.g. --memory-limit 4GB or 500MB.")
    # ---------------------------------------------------------------- files that do not belong together
    if "schema mismatch" in low or "union_by_name" in low or "different schemas" in low or (
            "does not match the number of columns" in low):
        orig = re.search(r'original file "([^"]+)"', msg)
        first = f" (the first file, {orig.group(1)!r}, sets the schema)" if orig else \
            " (the first file sets the schema)"
        return bad(
            f"the files do not share one schema: {head}{first}. Every file of a directory or glob must have "
            f"the same columns with the same types; fix or move the mismatching file{' ' + repr(file) if file else ''}, "
            "or measure the "
            "files separately."
        )
    # ---------------------------------------------------------------- unreadable files
    parquet_input = "parquet" in low or any(str(p).lower().endswith((".parquet", ".pq")) for p in paths or [])
    corrupt_words = ("thrift", "tprotocolexception", "invalid ttype", "don't know what type", "out of buffer",
                     "footer length", "corrupt", "could not read enough bytes", "unsupported converted type",
                     "root schema element", "payload value bigger", "snappy", "decompression")
    if "magic bytes" in low or "not a parquet file" in low or "thrift" in low or "tprotocolexception" in low \
            or (parquet_input and (name == "Error" or any(w in low for w in corrupt_words))) \
            or ("parquet" in low and (
            "corrupt" in low or "invalid" in low or "truncated" in low or "couldn't deserialize" in low
            or "failed to read" in low or "unexpected end" in low or "out of bounds" in low)):
        return bad(f"a Parquet file cannot be read{where}: it is truncated or not a Parquet file ({head}). "
                   "Write it again, completely.")
    if "sniffing file" in low or "not possible to automatically detect the csv" in low:
        return bad(f"DuckDB cannot read the CSV file{where}: {head}. Files of a directory or glob must share "
                   "one header and separator; check that file, or convert the files to Parquet.")
    if "not utf-8 encoded" in low or "invalid unicode" in low:
        return bad(f"a CSV file{where} is not UTF-8 text ({head}). Give its encoding with --encoding, e.g. "
                   "--encoding latin-1.")
    if "maximum line size of" in low:
        line = re.search(r"CSV Error on Line:\s*(\d+)", msg)
        at = f" (line {line.group(1)})" if line else ""
        size = re.search(r"Maximum line size[^\n]*", msg)
        return bad(f"a line of the CSV file{where} is longer than DuckDB reads{at}: {_short(size.group(0) if size else head)}. "
                   "An unclosed quote makes one field of many lines; check the quotes and the separator, or "
                   "read the file with --engine pandas.")
    if name == "ConversionException" or "could not convert" in low or "conversion error" in low:
        line = re.search(r"CSV Error on Line:\s*(\d+)", msg)
        conv = re.search(r'Error when converting column "([^"]+)"\. (Could not convert [^\n]*)', msg)
        cast = re.search(r'failed to cast column "([^"]+)"[^\n]*', msg)
        if conv:
            detail = f"column {conv.group(1)!r}{' on line ' + line.group(1) if line else ''}: " \
                     f"{_short(conv.group(2))}"
        elif cast:
            detail = _short(cast.group(0))
        else:
            detail = head
        return bad(
            f"a value{where} does not fit its column's type ({detail}). DuckDB chooses a CSV column's type "
            "from a sample of the rows; read the file with --engine pandas (which reads every value before "
            "choosing), or write the file as Parquet with the column's type fixed."
        )
    # ---------------------------------------------------------------- files, disks and locks
    if "lock" in low and ("conflict" in low or "could not set lock" in low or "lock on file" in low):
        return fail(f"{label} cannot write{where}: another process holds the file ({head}). Wait for the other "
                    "run to finish, or write to another --output.")
    if "no space left" in low or "disk full" in low:
        return fail(f"{label} ran out of disk space{where} ({head}). Free space, or write --output (and DuckDB's "
                    "temporary files) elsewhere.")
    if name in ("IOException", "HTTPException") or "no such file" in low or "cannot open file" in low:
        return bad(f"{label} cannot read or write a file{where}: {head}.")
    if name in ("InvalidInputException", "BinderException", "CatalogException", "ArrowInvalid",
                "ArrowTypeError", "ArrowNotImplementedError", "AnalysisException"):
        return bad(f"{label} cannot use the input{where}: {head}.")
    if name == "InterruptException":
        return fail(f"{label} was interrupted ({head}).")
    return fail(f"{label} failed{where}: {name}: {head}.")


@contextlib.contextmanager
def engine_errors(*, memory_limit=None, paths=None):
    """Run the body with engine exceptions raised as pysdc's errors (the engine's as ``__cause__``)."""
    try:
        yield
    except PysdcError:
        raise
    except Exception as exc:
        err = translate(exc, memory_limit=memory_limit, paths=paths)
        if err is None:
            raise
        raise err from exc
