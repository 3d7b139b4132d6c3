"""Reading a table: the format of a file (CSV, Parquet, SPSS, Stata) and the CSV reader (pandas' C parser,
with a schema's types or R's ``read.csv`` inference; records longer than the header and NUL characters
refused; progress on stderr for large files). :mod:`pysdc.io`'s docstring describes the rules."""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import io
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError, PysdcWarning
from .._names import did_you_mean
from .._paths import _PARQUET, schema_path
from .._progress import _CURRENT
from ._dialect import _encoding_error, _open_binary, resolve_dialect, separator_hint
from ._labelled import labelled_header, read_labelled
from ._schema import effective_entry, read_schema
from ._values import FALSE_TEXTS, TRUE_TEXTS, _bool_series, _convert, _infer, _int_series, _typed_levels, check_dtype_fits

__all__ = ["read_table", "read_header", "warn_repeated_names", "warn_empty_text", "reading_as", "PROGRESS_MIN_BYTES"]

_SPSS = (".sav", ".zsav", ".por")
_STATA = (".dta",)
#: files at least this large (on disk) show their reading progress on stderr (``progress=None``)
PROGRESS_MIN_BYTES = 64 * 2**20
#: pandas < 3's default float parser is not always correctly rounded; its "round_trip" one is
_FLOAT_KW = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(_PARQUET):
        return "parquet"
    if name.endswith(_SPSS):
        return "spss"
    if name.endswith(_STATA):
        return "stata"
    return "csv"


class _Progress(io.RawIOBase):
    """A binary file that reports on stderr how much of it has been read."""

    def __init__(self, raw, total: int, label: str):
        self._raw, self._total, self._label = raw, max(total, 1), label
        self._done, self._shown = 0, -1
        self._stream = sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.perf_counter()

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._raw.readinto(b)
        self._done += n or 0
        step = min(100, int(100 * self._done / self._total)) // (5 if self._tty else 25)
        if step != self._shown and (n or self._done >= self._total):
            self._shown = step
            pct = min(100, int(100 * self._done / self._total))
            text = f"pysdc: reading {self._label}: {pct:3d}% ({self._done / 2**20:.0f} of {self._total / 2**20:.0f} MB)"
            if self._tty:
                self._stream.write("\r" + text + ("\n" if pct >= 100 else ""))
            else:
                self._stream.write(text + "\n")
            self._stream.flush()
        return n

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            if self._tty and self._shown * 5 < 100:
                self._stream.write("\n")
        super().close()


@contextlib.contextmanager
def _csv_source(path: Path, show: bool):
    """What pandas reads: the path, or (``show``) a stream that reports its progress."""
    probe = _open_binary(path) if show else None  # None: no progress, or a compression not sniffed
    if probe is None:
        yield path, "infer"
        return
    probe.close()
    raw = _Progress(open(path, "rb"), path.stat().st_size, path.name)
    name = path.name.lower()
    if name.endswith(".gz"):
        fh = gzip.GzipFile(fileobj=io.BufferedReader(raw), mode="rb")
    elif name.endswith(".bz2"):
        import bz2

        fh = bz2.BZ2File(io.BufferedReader(raw), mode="rb")
    elif name.endswith(".xz"):
        import lzma

        fh = lzma.LZMAFile(io.BufferedReader(raw), mode="rb")
    else:
        fh = io.BufferedReader(raw, buffer_size=1 << 20)
    try:
        yield fh, None
    finally:
        fh.close()
        raw.close()


def _show_progress(path: Path, progress) -> bool:
    if progress is None:
        display = _CURRENT.get()
        if display is not None and display.quiet:  # the command line's --quiet
            return False
        try:
            return path.stat().st_size >= PROGRESS_MIN_BYTES
        except OSError:
            return False
    return bool(progress)


def _pandas_csv(path: Path, dialect: tuple, show: bool = False, **kw) -> pd.DataFrame:
    """pandas' C parser on ``path`` with pysdc's messages for its errors.

    A record with more fields than the header is refused: pandas would drop the extra fields
    silently when it reads some of the columns (``usecols``), and make the first column an index
    when the first record is the longer one. So is text with a NUL character (:func:`_refuse_nul`)."""
    if kw.get("nrows") == 0:
        return _pandas_call(path, dialect, show, **kw)
    if kw.get("usecols") is not None:  # pandas does not count the fields of a record when it reads some columns
        _check_fields(path, dialect)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        try:
            df = _pandas_call(path, dialect, show, index_col=False, **kw)
        except InvalidParameterError as exc:
            if "Expected" in str(exc) and "fields" in str(exc):  # a longer record: the same words as with usecols
                _check_fields(path, dialect)
            raise
    for w in caught:
        if issubclass(w.category, pd.errors.ParserWarning) and "does not match length of data" in str(w.message):
            _check_fields(path, dialect)
            raise InvalidParameterError(f"file {str(path)!r} is not a well-formed CSV file: a record has more fields "
                                        "than the header.")
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    _refuse_nul(path, df)
    return df


def _check_fields(path: Path, dialect: tuple) -> None:
    """Refuse a record with more fields than the header, naming its line (pyarrow's CSV parser, streamed;
    without pyarrow, pandas reading every column)."""
    sep, _, encoding = dialect
    header = list(_pandas_call(path, dialect, False, dtype=object, nrows=0).columns)
    try:
        import pyarrow as pa
        import pyarrow.csv as pc
    except ImportError:
        _pandas_call(path, dialect, False, dtype="category", keep_default_na=False, na_values=[], index_col=False)
        return
    found = []

    def handler(row):
        if row.actual_columns > row.expected_columns:
            found.append(row)
            return "error"
        return "skip"  # fewer fields: pandas (and R's read.csv, fill = TRUE) fill them in

    names = [f"c{i}" for i in range(len(header))]
    enc = "utf8" if encoding in ("utf-8-sig", "utf-8") else encoding
    try:
        with pa.input_stream(str(path), compression="detect") as src:
            reader = pc.open_csv(
                src, read_options=pc.ReadOptions(use_threads=False, column_names=names, skip_rows=1, encoding=enc),
                parse_options=pc.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                                              newlines_in_values=True, invalid_row_handler=handler),
                convert_options=pc.ConvertOptions(include_columns=names[:1],
                                                  column_types={names[0]: pa.dictionary(pa.int32(), pa.string())}))
            for _ in reader:
                pass
    except (pa.ArrowException, OSError, ValueError, UnicodeDecodeError):
        if not found:
            return  # another problem: pandas words it
    if found:
        row = found[0]
        line = f"line {row.number}" if row.number is not None else "a line"
        text = row.text if len(row.text) <= 80 else row.text[:77] + "..."
        raise InvalidParameterError(
            f"file {str(path)!r} is not a well-formed CSV file: {line} has {row.actual_columns} fields, the header "
            f"{row.expected_columns} ({text!r}). pysdc does not drop or shift fields (R's read.csv would shift "
            "them into other columns or rows); fix the line, e.g. quote a field that holds the separator, or give "
            "the separator (--sep)."
        )


def _refuse_nul(path: Path, df: pd.DataFrame) -> None:
    """Text with a NUL character is refused: R's read.csv ends the field at the NUL and loses the rest of the
    line (with a warning "line N appears to contain embedded nulls"); pandas would keep "1\\0" as its own value."""
    names = [str(c) for c in df.columns]
    for j, name in enumerate(names):
        s = df.iloc[:, j]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if cats.dtype != object and not isinstance(cats.dtype, pd.StringDtype):
                continue
            bad = np.flatnonzero(pd.Series(cats.astype(object)).str.contains("\x00", regex=False).fillna(False)
                                 .to_numpy(dtype=bool))
            if not len(bad):
                continue
            hit = np.isin(s.cat.codes.to_numpy(), bad)
        elif s.dtype == object or isinstance(s.dtype, pd.StringDtype):
            vals = s.to_numpy(dtype=object)
            try:  # most files: one search through the joined text
                if "\x00" not in "".join(vals[pd.notna(vals)]):
                    continue
            except TypeError:  # not all text
                pass
            hit = s.str.contains("\x00", regex=False).fillna(False).to_numpy(dtype=bool)
        else:
            continue
        if hit.any():
            i = int(np.flatnonzero(hit)[0])
            raise InvalidParameterError(
                f"file {str(path)!r} holds a NUL character (byte 0x00) in column {name!r}, record {i + 1} (line "
                f"{i + 2}). R's read.csv ends the field at the NUL and loses the rest of the line (\"line {i + 2} "
                "appears to contain embedded nulls\"); pysdc refuses it. Remove the NUL bytes (e.g. tr -d "
                "'\\000' < in.csv > out.csv) or fix the file's encoding (UTF-16 files need --encoding utf-16)."
            )
    if any("\x00" in n for n in names):
        raise InvalidParameterError(f"file {str(path)!r} has a NUL character (byte 0x00) in its header row; remove it.")


def _pandas_call(path: Path, dialect: tuple, show: bool = False, **kw) -> pd.DataFrame:
    sep, _, encoding = dialect
    try:
        with _csv_source(path, show) as (src, compression):
            return pd.read_csv(src, sep=sep, encoding=encoding, compression=compression, **kw)
    except UnicodeDecodeError as exc:
        raise _encoding_error(path, exc, encoding) from None
    except pd.errors.EmptyDataError:
        raise InvalidParameterError(f"file {str(path)!r} is empty; it needs at least a header row.") from None
    except pd.errors.ParserError as exc:
        raise InvalidParameterError(f"file {str(path)!r} is not a well-formed CSV file: {exc}".strip()) from None


def _read_text(path: Path, na_values, nrows=None, usecols=None, dialect=(",", ".", "utf-8-sig"),
               show: bool = False) -> pd.DataFrame:
    """Every field as text; only the ``na_values`` (quoted or not) are missing."""
    return _pandas_csv(path, dialect, show, dtype=object, keep_default_na=False, na_values=list(na_values),
                       nrows=nrows, usecols=usecols)


def warn_repeated_names(path, dialect: tuple, *, stacklevel: int = 3) -> None:
    """A header naming a column more than once: the later ones are read under the names R's read.csv gives
    them (``make.unique``: ``name.1``, ``name.2``, skipping names the header already has, so ``a, a, a.1``
    reads as ``a, a.2, a.1``), so a flag naming ``name`` takes the first; said, naming the names given.
    Reads the header line only; shared by :func:`read_table` and the engines' CSV readers
    (:mod:`pysdc.engine._csv`), which take the same names from :func:`read_header`."""
    path = Path(path)
    first = _pandas_call(path, dialect, False, header=None, nrows=1, dtype=object, keep_default_na=False,
                         na_values=[])
    raw = [str(v) for v in first.iloc[0]] if len(first) else []
    names = pd.Series(raw, dtype=object)
    repeated = list(dict.fromkeys(names[names.duplicated()]))
    if repeated:
        given = [str(c) for c in _read_text(path, ("NA",), nrows=0, dialect=dialect).columns]
        later = [g for g, dup in zip(given, names.duplicated()) if dup]
        shown = ", ".join(map(repr, later[:10])) + (f" and {len(later) - 10} more" if len(later) > 10 else "")
        warnings.warn(
            f"the header of {path.name} names {', '.join(map(repr, repeated[:10]))} more than once; the later "
            f"columns are read as {shown} (as R's read.csv names them), and "
            f"{repeated[0]!r} is the first of them: check that each name you give is the column you mean.",
            PysdcWarning, stacklevel=stacklevel)


#: (label, columns) of :func:`reading_as`
_READING_AS: contextvars.ContextVar = contextvars.ContextVar("pysdc_reading_as", default=None)
#: at most this many empty-text warnings one by one for a table; the other columns in one more
_EMPTY_TEXT_SHOWN = 10


@contextlib.contextmanager
def reading_as(label: str, columns=None):
    """Within it, the readers' warning on empty text fields (:func:`warn_empty_text`) names the table ``label``
    (the command line's DATA, ORIGINAL, MASKED) instead of its file, and covers only ``columns`` (None: every
    column read; ``()``: none, for a caller that warns later from the counts, e.g. ``Scan.csv["empty_text"]``,
    once it knows the columns it uses)."""
    token = _READING_AS.set((label, None if columns is None else {c for c in columns if c}))
    try:
        yield
    finally:
        _READING_AS.reset(token)


def warn_empty_text(counts: dict, where: str, *, stacklevel: int = 3) -> None:
    """The warning on empty text fields (column -> count) of a CSV table ``where``: they are read as the value
    ``""``, as R's read.csv reads them, not as missing. The one wording of :func:`read_table`, of the engines'
    readers (:func:`pysdc.scan`, counted in their typing survey) and of the command line."""
    ctx = _READING_AS.get()
    if ctx is not None:
        where, columns = ctx
        if columns is not None:
            counts = {c: n for c, n in counts.items() if c in columns}
    counts = {c: int(n) for c, n in counts.items() if n}
    advice = ("they are read as the category \"\" (a value like any other, as R's read.csv does), not as missing "
              "values. If they mean missing (pandas writes missing values so), add --na '' to read them as missing "
              "(in Python: '' among na_values).")
    items = list(counts.items())
    for col, n in items[:_EMPTY_TEXT_SHOWN]:
        warnings.warn(f"column {col!r} of {where} has {n} empty text field(s); {advice}", PysdcWarning,
                      stacklevel=stacklevel)
    rest = items[_EMPTY_TEXT_SHOWN:]
    if rest:
        shown = ", ".join(repr(c) for c, _ in rest[:10]) + (" ..." if len(rest) > 10 else "")
        warnings.warn(f"{len(rest)} more columns of {where} ({shown}) have {sum(n for _, n in rest)} empty text "
                      f"field(s); {advice}", PysdcWarning, stacklevel=stacklevel)


def _empty_text_counts(df: pd.DataFrame) -> dict:
    """The empty text fields of a frame's text and categorical columns (column -> count, only those with one)."""
    counts = {}
    for j, col in enumerate(df.columns):
        s = df.iloc[:, j]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if cats.dtype != object and not isinstance(cats.dtype, pd.StringDtype):
                continue
            at = np.flatnonzero(cats.astype(object) == "")
            n = int((s.cat.codes.to_numpy() == at[0]).sum()) if len(at) else 0
        elif s.dtype == object or isinstance(s.dtype, pd.StringDtype):
            n = int((s == "").fillna(False).to_numpy(dtype=bool).sum())
        else:
            continue
        if n:
            counts[str(col)] = n
    return counts


def read_header(path, *, sep=None, encoding=None) -> list[str]:
    """The column names of a table file (a CSV's header row), without reading the records."""
    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return list(_read_parquet(path).columns)
        return [str(c) for c in pq.read_schema(path).names if not str(c).startswith("__index_level_")]
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if kind in ("spss", "stata"):
        return labelled_header(path, kind)
    dialect = resolve_dialect(path, sep, ".", encoding)
    return [str(c) for c in _read_text(path, ("NA",), nrows=0, dialect=dialect).columns]


def _read_typed_fast(path: Path, entries: list, na_values, usecols, dialect, show: bool) -> pd.DataFrame | None:
    """The schema's types parsed by pandas' C parser; None where it cannot reproduce the rules of the
    text route (then :func:`read_table` takes that route, which also words the errors).

    Doubles are parsed by the C parser (correctly rounded), integers as pandas ``Int64``; logicals
    and factors as pandas categoricals (hashed in C), whose few distinct texts are then checked
    and mapped to the levels. Where the C parser has inferred a type for a factor's categories
    (``01`` and ``1.0`` would both become 1), that column is read again as text.
    """
    na = list(na_values)
    dtypes, nas = {}, {}
    for e in entries:
        cls = e["r_class"]
        dtypes[e["name"]] = {"numeric": np.float64, "integer": "Int64", "character": object}.get(cls, "category")
        nas[e["name"]] = na + [""] if cls in ("numeric", "integer", "logical") else na
    kw = {"keep_default_na": False, "usecols": usecols, "decimal": dialect[1], **_FLOAT_KW}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. DtypeWarning; the text route warns where it matters
            df = _pandas_csv(path, dialect, show, dtype=dtypes, na_values=nas, **kw)
    except InvalidParameterError:
        raise
    except (ValueError, TypeError, OverflowError):
        return None
    if [str(c) for c in df.columns] != [e["name"] for e in entries]:
        return None
    retext = [e["name"] for i, e in enumerate(entries) if e["r_class"] in ("factor", "ordered")
              and not all(isinstance(c, str) for c in df.iloc[:, i].cat.categories)]
    if retext:  # inferred categories: the exact texts of those columns
        text = _pandas_csv(path, dialect, False, dtype=object, na_values={n: na for n in retext},
                           **{**kw, "usecols": retext})
    cols = {}
    for i, e in enumerate(entries):
        s = df.iloc[:, i]
        cls, dtype, what = e["r_class"], e.get("dtype"), f"column {e['name']!r} of {path.name}"
        if cls == "numeric":
            vals = s.to_numpy(dtype=np.float64)
            check_dtype_fits(vals, np.isnan(vals), dtype, what)
            cols[e["name"]] = pd.Series(vals, dtype=dtype or "float64")
        elif cls == "integer":
            miss = s.isna().to_numpy()
            vals = s.to_numpy(dtype=np.int64, na_value=0)
            check_dtype_fits(vals, miss, dtype, what)
            cols[e["name"]] = _int_series(vals, miss, dtype)
        elif cls == "character":
            cols[e["name"]] = _convert(s.to_numpy(dtype=object), e, what)
        elif cls == "logical":
            cats = s.cat.categories
            if pd.api.types.is_bool_dtype(cats.dtype):
                truth = cats.to_numpy(dtype=bool)
            elif all(isinstance(c, str) and c in TRUE_TEXTS + FALSE_TEXTS for c in cats):
                truth = np.isin(cats.to_numpy(dtype=object), TRUE_TEXTS)
            else:
                return None
            codes = s.cat.codes.to_numpy()
            miss = codes < 0
            vals = truth[np.maximum(codes, 0)] if len(truth) else np.zeros(len(codes), dtype=bool)
            cols[e["name"]] = _bool_series(vals & ~miss, miss, dtype)
        else:
            index = pd.Index([str(x) for x in e["levels"]], dtype=object)
            if e["name"] in retext:
                t = text[e["name"]].to_numpy(dtype=object)
                codes = index.get_indexer(t)
                if ((codes < 0) & ~pd.isna(t)).any():
                    return None
            else:
                where = index.get_indexer(s.cat.categories.to_numpy(dtype=object))
                if (where < 0).any():
                    return None
                raw = s.cat.codes.to_numpy()
                codes = np.where(raw >= 0, where[np.maximum(raw, 0)] if len(where) else -1, -1)
            cats_typed = _typed_levels([str(x) for x in e["levels"]], e.get("levels_dtype"), f"the levels of {what}")
            cols[e["name"]] = pd.Series(pd.Categorical.from_codes(codes, categories=cats_typed,
                                                                  ordered=(cls == "ordered")))
    return pd.DataFrame(cols, columns=[e["name"] for e in entries])


def read_table(path, schema=None, *, na_values=("NA",), usecols=None, text_columns=(), sep=None, decimal=None,
               encoding=None, progress=None) -> pd.DataFrame:
    """Read a table: a file written by :func:`write_table`, any CSV, Parquet, SPSS or Stata.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.csv.gz`` (any compression pandas recognises; other names are read as CSV
        too), ``.parquet``/``.pq``, SPSS ``.sav``/``.zsav``/``.por`` (needs ``pyreadstat``:
        ``pip install "pysdc-measures[spss]"``) or Stata ``.dta``.
    schema : dict, str, path-like or None
        The schema (a dict or the path of its JSON file). ``None``: the
        sidecar ``<stem>.schema.json`` next to ``path`` if it exists, else
        R's ``read.csv`` type inference. Ignored for Parquet, SPSS and Stata files.
    na_values : sequence of str, default ("NA",)
        Texts that mean a missing value, like R's ``na.strings``. Blank
        fields are missing in numeric, integer and logical columns anyway; in
        text and factor columns they are the value ``""`` (as in R) unless
        ``""`` is listed here. Without a schema, a column of blank fields (empty,
        quoted empty, white space) and missing values only is logical, all missing
        (as in R).
    usecols : list of str, optional
        Read only these columns (in the file's order): much faster on wide files. Unknown
        names are an error.
    text_columns : sequence of str, default ()
        Read these columns as text (R's ``character``), whatever they hold: for ids that
        are numbers beyond 2^53 (e.g. 20-digit ids), which as doubles would merge.
    sep : str, optional
        The CSV field separator (``","``, ``";"``, ``"\\t"`` ...). Default: detected -- the one
        of comma, semicolon and tab that splits every line of the file's first 64 KiB into the
        same number of fields (comma if none does; an error if several do).
    decimal : {".", ","}, optional
        The decimal mark of numbers. Default: ``"."`` in comma-separated files; in others
        ``","`` when the first 64 KiB hold numbers with a decimal comma and none with a
        decimal point (R's ``read.csv2`` convention), else ``"."``. With ``","`` a text with a
        point is not a number (as in R).
    encoding : str, optional
        The text encoding, e.g. ``"latin-1"`` or ``"cp1252"``. Default UTF-8 (a byte-order
        mark is skipped); a file that is not UTF-8 is refused with a message naming the
        offending byte (single-byte encodings cannot be told apart reliably, so none is guessed).
    progress : bool, optional
        Report the reading progress on stderr. Default: for files of at least
        :data:`PROGRESS_MIN_BYTES` (64 MiB) on disk.

    Returns
    -------
    pandas.DataFrame
        With a fresh ``RangeIndex``.

    Notes
    -----
    With a schema, the file is parsed by pandas' C parser with the schema's types (several
    times faster than field-by-field text), keeping the rules of the text route: blank
    numeric fields are missing, doubles are correctly rounded, logicals are ``TRUE``/``FALSE``/
    ``T``/``F``/``true``/``false``/``True``/``False``, factor values must be among the levels.
    Any field the fast parse cannot take sends the file through the text route, which gives
    the same values or the precise error. One leniency: an integer column may hold whole
    numbers written as ``1.0`` or ``1e3`` (R's ``read.csv`` with the schema's
    ``colClasses = "integer"`` refuses them; the values are the same).

    SPSS and Stata files: variables with value labels become (unordered) categoricals whose
    levels are the labels, in the order of their values, values without a label appearing as
    their number (``haven::as_factor``'s default, as sdcMicro's GUI reads such files);
    user-defined and extended missing values are missing; Stata's integer storage types are
    read as doubles, as ``haven`` does.
    """
    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        return _read_parquet(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise InvalidParameterError(f"{str(path)!r} is a directory; give the path of a CSV or Parquet file.")
    if kind in ("spss", "stata"):
        return read_labelled(path, kind, None if usecols is None else [str(c) for c in usecols])
    if schema is None and schema_path(path).exists():
        schema = schema_path(path)
    if isinstance(na_values, str) or not all(isinstance(v, str) for v in na_values):
        raise InvalidParameterError(f"na_values must be a list of strings; got {na_values!r}.")
    dialect = resolve_dialect(path, sep, decimal, encoding)
    show = _show_progress(path, progress)
    text_columns = set(text_columns or ())
    if usecols is not None:
        usecols = [str(c) for c in usecols]
        header = read_header(path, sep=dialect[0], encoding=dialect[2])
        unknown = [c for c in usecols if c not in header]
        if unknown:
            raise InvalidParameterError(
                f"{path.name} has no column(s) {unknown[:10]};{did_you_mean(unknown[:10], header)} its columns are "
                f"{header[:20]}{' ...' if len(header) > 20 else ''}.{separator_hint(header)}"
            )
        usecols = [c for c in header if c in set(usecols)]
    if schema is None:
        warn_repeated_names(path, dialect)
        raw = _read_text(path, na_values, usecols=usecols, dialect=dialect, show=show)
        names = [str(c) for c in raw.columns]
        cols = {n: (_convert(raw.iloc[:, i].to_numpy(dtype=object), {"r_class": "character"}, "")
                    if n in text_columns else
                    _infer(raw.iloc[:, i].to_numpy(dtype=object), f"column {n!r} of {path.name}", dialect[1]))
                for i, n in enumerate(names)}
        return _said(pd.DataFrame(cols, columns=names), path)
    sch = read_schema(schema)
    if usecols is not None:
        sch = {**sch, "columns": [c for c in sch["columns"] if c["name"] in set(usecols)]}
    want = [c["name"] for c in sch["columns"]]
    names = [c for c in read_header(path, sep=dialect[0], encoding=dialect[2])
             if usecols is None or c in set(usecols)]
    if names != want:
        extra = [n for n in names if n not in want]
        lacking = [n for n in want if n not in names]
        detail = []
        if lacking:
            detail.append(f"missing from the file: {lacking[:10]}")
        if extra:
            detail.append(f"not in the schema: {extra[:10]}")
        if not detail:
            detail.append("same columns in a different order")
        raise InvalidParameterError(
            f"the columns of {path.name} do not match its schema ({'; '.join(detail)}); "
            "pass the right schema (--schema) or fix the file."
        )
    entries = [effective_entry(e, text_columns) for e in sch["columns"]]
    fast = _read_typed_fast(path, entries, na_values, usecols, dialect, show)
    if fast is not None:
        return _said(fast, path)
    raw = _read_text(path, na_values, usecols=usecols, dialect=dialect, show=show)
    cols = {e["name"]: _convert(raw.iloc[:, i].to_numpy(dtype=object), e, f"column {e['name']!r} of {path.name}",
                                dialect[1])
            for i, e in enumerate(entries)}
    return _said(pd.DataFrame(cols, columns=want), path)


def _said(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    """A CSV table read: its empty text fields said (:func:`warn_empty_text`)."""
    warn_empty_text(_empty_text_counts(df), path.name, stacklevel=4)
    return df


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InvalidParameterError(
            f"reading {path.name} needs pyarrow, which is not installed; "
            "install it with: pip install pysdc-measures[parquet]"
        ) from None
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    try:
        return pd.read_parquet(path).reset_index(drop=True)
    except (OSError, ValueError, TypeError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise InvalidParameterError(f"cannot read {path.name} as Parquet: {exc}") from None
