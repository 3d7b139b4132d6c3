"""Reading and writing tables: pysdc's typed-table format, any CSV, Parquet, SPSS and Stata; outputs written
safely; Polars and Arrow tables as pandas.

The modules, by concern: ``_read`` (:func:`read_table`, :func:`read_header`: the format of a file and the CSV
reader), ``_dialect`` (separator, decimal mark, encoding: :func:`csv_dialect`), ``_values`` (values as text
and back, R's type inference), ``_schema`` (the schema sidecar), ``_labelled`` (SPSS and Stata value
labels), ``_labelled_write`` (SPSS and Stata outputs keeping the input's codebook: :func:`write_labelled`),
``_csv_write`` (:func:`write_table`), ``_write`` (outputs never over an input, complete or not at
all: :func:`atomic_output`), ``_interchange`` (Polars / Arrow tables: :func:`to_pandas`).

pysdc's typed-table format: a CSV file plus a JSON schema sidecar.

A table is stored as two files:

* ``<stem>.csv`` or ``<stem>.csv.gz`` -- comma-separated, UTF-8, a header row,
  ``\\n`` line ends, fields quoted only where needed, the row index not
  written. A missing value of any type is the unquoted text ``NA``. Numbers
  are written so that they come back bit-exactly: doubles with 17 significant
  digits (``%.17g``; R's own parser misreads some shortest representations),
  infinities as ``Inf``/``-Inf``; logicals as ``TRUE``/``FALSE``; factors as
  their level labels. Gzipped files carry no time stamp and no file name, so
  the same table always gives the same bytes.
* ``<stem>.schema.json`` -- each column's R class and, for factors, the
  levels in order::

      {"format": "pysdc-table-1",
       "columns": [
         {"name": "income", "r_class": "numeric", "dtype": "float64"},
         {"name": "sex", "r_class": "factor", "dtype": "category",
          "levels": ["male", "female"]},
         {"name": "age_group", "r_class": "ordered", "dtype": "category",
          "levels": ["0-14", "15-29", "30-44"]},
         {"name": "hhsize", "r_class": "ordered", "dtype": "category",
          "levels": ["1", "2", "3"], "levels_dtype": "int64"}
       ]}

  ``r_class`` is one of ``numeric``, ``integer``, ``logical``, ``character``,
  ``factor``, ``ordered`` (the correspondence of :mod:`pysdc._types`) and is
  all an R reader needs. ``levels`` are the labels exactly as they appear in
  the CSV. The optional ``dtype`` (the pandas dtype, e.g. ``Int64``,
  ``boolean``, ``string``) and ``levels_dtype`` (the dtype of non-string
  categories) let pandas get back exactly the dtype that was written; without
  them a reader takes the plain dtype of the R class (``float64``; ``int64``,
  or ``Int64`` when there are missing values; ``bool`` or ``boolean``;
  ``object``; ``Categorical`` with string categories).

Reading in R (base R only)::

    schema <- jsonlite::fromJSON("demo.schema.json", simplifyVector = FALSE)
    cls <- vapply(schema$columns, function(c)
        switch(c$r_class, factor = , ordered = "character", c$r_class), "")
    d <- read.csv("demo.csv.gz", na.strings = "NA", colClasses = cls,
                  check.names = FALSE, stringsAsFactors = FALSE, encoding = "UTF-8")
    for (c in schema$columns) if (c$r_class %in% c("factor", "ordered"))
        d[[c$name]] <- factor(d[[c$name]], levels = unlist(c$levels),
                              ordered = c$r_class == "ordered")

What cannot be stored is refused with :class:`~pysdc.InvalidParameterError`:
a character value that is literally ``"NA"`` (R would read it as missing),
text with NUL or carriage-return characters (R reads ``\\r`` as ``\\n``),
date-times, complex numbers and duplicated column names. NaN and NA are both
written as ``NA`` (R's ``NaN`` is not kept apart from ``NA``); in object and
string columns missing values come back as ``None`` (``pd.NA`` for the
``string`` dtype).

Without a schema, :func:`read_table` infers the types the way R's
``read.csv(na.strings = "NA")`` does (``type.convert``), over every value of the column:

* a field is *blank* if it is empty, quoted empty (``""``) or white space only (space, tab, ``\\r``,
  ``\\f``, ``\\v``); blank fields are missing except in character columns, where they keep their text;
  the ``na_values`` (R's ``na.strings``, quoted or not, matched exactly: `` NA`` is text) are missing in
  every column;
* a column of missing and blank fields only is logical, all ``NA`` (so a key variable of empty fields is
  missing everywhere, not the category ``""``);
* logical if every other value is ``TRUE``/``FALSE``/``T``/``F`` (only these: a column holding ``true`` or
  ``False`` is character, as in R; with a schema's logical class ``true``/``True``/``false``/``False`` are
  read too);
* integer if every other value is a whole number within R's integer range (white space before it
  allowed, not after it: ``"3 "`` makes the column numeric, as in R; ``007`` is 7);
* numeric if every other value is a number (white space around it allowed; ``Inf``, ``inf``,
  ``Infinity``; ``NaN`` is read as missing: pandas keeps no NaN apart from NA);
* character otherwise.

Not matched (measured against R 4.2's ``read.csv``; pysdc reads these as text where R reads a
number): hexadecimal numbers (``0x1A`` is 26 in R), and numbers with an incomplete exponent
(``1e``, ``1.5e``, ``1e+``, which R reads as 1 and 1.5). R's ``NaN`` becomes missing.
Parquet files (``.parquet``, ``.pq``; needs ``pyarrow``)
carry their own types; SPSS (``.sav``, ``.zsav``, ``.por``; needs ``pyreadstat``)
and Stata (``.dta``) files too, their value labels read as categoricals the way
``haven::as_factor`` makes factors of them.

A record with more fields than the header, and text with a NUL character, are refused with
:class:`~pysdc.InvalidParameterError` naming the line (R's ``read.csv`` would shift such fields into
other columns or rows, and ends a field at a NUL, losing the rest of the line); a record with fewer
fields is filled with missing values, as in R (``fill = TRUE``). A header naming a column more than once
is read as R's ``read.csv`` names it (``make.unique``: the later ones ``name.1``, ``name.2``, skipping names the
header already has: ``a, a, a.1`` reads as ``a, a.2, a.1``), with a warning naming the names given. Empty text
fields in text and factor columns of a CSV file (the value ``""``, as in R) are said with a warning
(:func:`warn_empty_text`; not when ``na_values`` lists ``""``). A
schema's ``dtype`` must be one its ``r_class`` allows and must hold every value (``"int8"`` does not hold 651: refused, naming the
value and its row), never a silent conversion.

Any CSV may use another dialect: the separator (comma, semicolon or tab) and,
in semicolon- or tab-separated files, the decimal comma (R's ``read.csv2``) are
detected from the first 64 KiB where unambiguous, and can be given (``sep``,
``decimal``, ``encoding``; on the command line ``--sep``, ``--decimal``,
``--encoding``, passed down through :func:`csv_dialect`). With a schema,
:func:`read_table` parses with pandas' C parser (see its Notes).
"""

from __future__ import annotations

from .._paths import schema_path
from ._csv_write import write_table
from ._dialect import DIALECT_DEFAULTS, csv_dialect, resolve_dialect, separator_hint
from ._interchange import as_frame, interchange_kind, is_interchange, to_pandas
from ._labelled_write import Codebook, read_codebook, recoded_key_labels, write_labelled
from ._read import PROGRESS_MIN_BYTES, read_header, read_table, reading_as, warn_empty_text, warn_repeated_names
from ._schema import SCHEMA_FORMAT, effective_entry, read_schema, table_schema
from ._values import BLANK_CHARS, FALSE_TEXTS, INFER_LOGICAL_TEXTS, TRUE_TEXTS, check_dtype_fits, warn_big_integers
from ._write import Terminated, atomic_output, check_output, refuse_overwriting_inputs, sigterm_as_exception, write_bytes, write_text

__all__ = [
    # reading
    "read_table", "read_header", "separator_hint", "csv_dialect", "DIALECT_DEFAULTS", "resolve_dialect",
    "PROGRESS_MIN_BYTES",
    # the typed-table format and its schema sidecar
    "write_table", "schema_path", "read_schema", "table_schema", "effective_entry", "SCHEMA_FORMAT",
    # R's texts and the dtype check (shared with the engines' CSV readers)
    "TRUE_TEXTS", "FALSE_TEXTS", "INFER_LOGICAL_TEXTS", "BLANK_CHARS", "check_dtype_fits", "warn_big_integers",
    "warn_repeated_names", "warn_empty_text", "reading_as",
    # outputs
    "check_output", "refuse_overwriting_inputs", "atomic_output", "write_bytes", "write_text",
    "sigterm_as_exception", "Terminated",
    # SPSS / Stata outputs keeping the input's codebook
    "Codebook", "read_codebook", "recoded_key_labels", "write_labelled",
    # Polars / Arrow tables
    "interchange_kind", "is_interchange", "to_pandas", "as_frame",
]
