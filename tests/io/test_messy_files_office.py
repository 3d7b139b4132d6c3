"""Office files through pysdc.io: what a statistical office's files do to the readers and the output guard
(found by trying real, messy variants of the EU-SILC input against sdcMicro 5.8.0)."""

from __future__ import annotations

import gc
import warnings

import pytest

from pysdc import InvalidParameterError, PysdcWarning
from pysdc.io import read_table, refuse_overwriting_inputs


def _csv(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def test_output_at_a_missing_sidecar_of_an_input_is_refused(tmp_path):
    # in.csv has no sidecar yet: a JSON written at in.schema.json would become the types of in.csv
    # (every later read of in.csv then fails or reads other types), so it changes an input
    data = _csv(tmp_path / "in.csv", "a,b\n1,x\n2,y\n")
    with pytest.raises(InvalidParameterError, match="schema sidecar"):
        refuse_overwriting_inputs(tmp_path / "in.schema.json", [data])
    gz = _csv(tmp_path / "other.csv.gz", "")  # a compressed CSV's sidecar drops both extensions
    with pytest.raises(InvalidParameterError, match="schema sidecar"):
        refuse_overwriting_inputs(tmp_path / "other.schema.json", [gz])


def test_sidecar_of_formats_without_one_is_free(tmp_path):
    # Parquet, SPSS and Stata files carry their own types: x.schema.json is nobody's sidecar there
    for name in ("x.parquet", "x.sav", "x.dta"):
        refuse_overwriting_inputs(tmp_path / "x.schema.json", [tmp_path / name])


def test_progress_reading_leaves_no_file_open(tmp_path):
    # reading with progress (files of 64 MiB and more on the command line) left the probe of the
    # file's compression open: a ResourceWarning "unclosed file" that pysdc risk --json listed
    data = _csv(tmp_path / "wide.csv", "a,b\n1,x\n2,y\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = read_table(data, progress=True)
        gc.collect()
    assert df.shape == (2, 2)
    assert [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)] == []


def test_a_header_naming_a_column_twice_is_said(tmp_path):
    # an office file with 'rb090' twice: as R's read.csv, the second becomes 'rb090.1', and --keys rb090
    # takes the first; pysdc.SdcProblem refuses a frame with duplicated names, the reader said nothing
    data = _csv(tmp_path / "dup.csv", "id,rb090,age,rb090\n1,3,34,female\n2,3,39,male\n")
    with pytest.warns(PysdcWarning, match=r"'rb090'.*more than once.*'rb090\.1'"):
        df = read_table(data)
    assert list(df.columns) == ["id", "rb090", "age", "rb090.1"]  # R's read.csv: id, rb090, age, rb090.1
    assert df["rb090.1"].tolist() == ["female", "male"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PysdcWarning)
        read_table(_csv(tmp_path / "ok.csv", "id,rb090,age,rb090.1\n1,3,34,female\n"))  # genuine names: silent
