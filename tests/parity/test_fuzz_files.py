"""Malformed files through the command line (issue 23, "What to do" 7: the fuzz covers files, not only frames).

``tests/parity/test_fuzz_messy.py`` throws messy *frames* at the library. Here random corruptions of the *bytes* of a
CSV file, a Parquet file, a schema sidecar and one part of a directory go through ``pysdc risk`` (pandas and
DuckDB), ``pysdc utility`` and ``pysdc report``. Every run must end in exit 0, or in exit 2 with one line
``pysdc: error: ...`` -- never a raw traceback, never an exception out of ``main``, never an "internal error"
(an exception pysdc did not expect). Derandomized and bounded (a few dozen runs in a few seconds).
"""

from __future__ import annotations

import io
import json
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pysdc.cli import main

#: runs per test (PYSDC_FUZZ_EXAMPLES=500 for a longer search)
SETTINGS = settings(max_examples=int(os.environ.get("PYSDC_FUZZ_EXAMPLES", "30")), derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

_BASE = pd.DataFrame({
    "a": [1, 2, 3, 1, 2, 3, 1, 2] * 5,
    "b": ["x", "y", "x", "y", "x", "x", "y", "y"] * 5,
    "w": np.linspace(1.5, 9.5, 40),
    "v": np.linspace(-3.25, 100.0, 40),
})
CSV = _BASE.to_csv(index=False).encode()
_buf = io.BytesIO()
_BASE.to_parquet(_buf, index=False)
PARQUET = _buf.getvalue()
SIDECAR = json.dumps({"columns": {"a": {"dtype": "category"}, "b": {"dtype": "category"},
                                  "w": {"dtype": "float64"}, "v": {"dtype": "float64"}}}).encode()

#: bytes that make files interesting: quotes, separators, line ends, NUL, BOMs, mathtext, huge numbers, NA
TOKENS = [b'"', b'""', b"\n", b"\r\n", b"\r", b",", b";", b"\t", b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3",
          b"$x$", b"$\\frac{1}{$", b"NA", b"nan", b"inf", b"-inf", b"1e400", b"-0", b"9" * 40, b"{", b"}",
          b"[", b"]", b'{"columns": 1}', b"null", b"NaN", b"PAR1", b"\\"]

op = st.tuples(
    st.sampled_from(["token", "token", "token", "delete", "insert", "truncate", "flip", "duplicate"]),
    st.floats(0.0, 1.0),
    st.integers(1, 40),
    st.one_of(st.sampled_from(TOKENS), st.binary(min_size=1, max_size=8)),
)


def mutate(data: bytes, ops) -> bytes:
    b = bytearray(data)
    for kind, where, size, payload in ops:
        i = int(where * len(b))
        if kind == "delete":
            del b[i:i + size]
        elif kind in ("insert", "token"):
            b[i:i] = payload
        elif kind == "truncate":
            del b[i:]
        elif kind == "flip" and b:
            b[min(i, len(b) - 1)] ^= 1 << (size % 8)
        elif kind == "duplicate":
            b[i:i] = b[max(0, i - size):i]
    return bytes(b)


def run_cli(argv) -> tuple[int, str]:
    """``main(argv)`` with stdout and stderr captured; an exception out of ``main`` fails the test."""
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = main([str(a) for a in argv])
        except BaseException as exc:  # noqa: BLE001 - what a user would see as a traceback
            pytest.fail(f"pysdc {' '.join(map(str, argv))} raised {type(exc).__name__}: {exc}")
    return code, err.getvalue()


def check(argv) -> None:
    code, err = run_cli(argv)
    if os.environ.get("FUZZ_STATS"):
        with open(os.environ["FUZZ_STATS"], "a") as fh:
            fh.write(f"{argv[0]} {argv[-1] if argv[0]=='risk' else ''} {code} {err.strip().splitlines()[-1][:90] if err.strip() else ''}\n")
    assert code in (0, 2), (argv, code, err[-2000:])
    assert "Traceback" not in err, (argv, err[-2000:])
    errors = [ln for ln in err.splitlines() if ln.startswith("pysdc: error:")]
    if code == 2:
        assert len(errors) == 1, (argv, err[-2000:])
        assert "internal error" not in errors[0], (argv, errors[0])
    else:
        assert not errors, (argv, err[-2000:])


COMMANDS = {
    "risk": lambda p, d: ["risk", p, "--keys", "a,b", "--weight", "w", "--engine", "pandas"],
    "risk-duckdb": lambda p, d: ["risk", p, "--keys", "a,b", "--engine", "duckdb"],
    "risk-json": lambda p, d: ["risk", p, "--keys", "a,b", "--json"],
    "utility": lambda p, d: ["utility", p, p, "--vars", "v,w", "--json"],
    "report": lambda p, d: ["report", p, "--keys", "a,b", "--no-plots", "--output", d / "r.html"],
}
pytestmark = pytest.mark.duckdb  # risk-duckdb is one of the commands; skipped with the reason by tests/conftest.py


@SETTINGS
@given(ops=st.lists(op, min_size=1, max_size=5), cmd=st.sampled_from(sorted(COMMANDS)))
def test_malformed_csv(tmp_path_factory, ops, cmd):
    d = tmp_path_factory.mktemp("csv")
    p = d / "d.csv"
    p.write_bytes(mutate(CSV, ops))
    check(COMMANDS[cmd](p, d))


@SETTINGS
@given(ops=st.lists(op, min_size=1, max_size=3), cmd=st.sampled_from(sorted(COMMANDS)))
def test_malformed_parquet(tmp_path_factory, ops, cmd):
    d = tmp_path_factory.mktemp("pq")
    p = d / "d.parquet"
    p.write_bytes(mutate(PARQUET, ops))
    check(COMMANDS[cmd](p, d))


@SETTINGS
@given(ops=st.lists(op, min_size=1, max_size=4), cmd=st.sampled_from(["risk", "utility", "report"]))
def test_malformed_sidecar(tmp_path_factory, ops, cmd):
    d = tmp_path_factory.mktemp("sidecar")
    p = d / "d.csv"
    p.write_bytes(CSV)
    (d / "d.schema.json").write_bytes(mutate(SIDECAR, ops))
    check(COMMANDS[cmd](p, d))


DTYPES = ["int8", "int16", "uint8", "Int64", "bool", "boolean", "float16", "float32", "float64", "category",
          "string", "object", "str", "datetime64[ns]", "complex128", "nonsense", "", 5, None, ["float64"]]
column_spec = st.fixed_dictionaries(
    {"dtype": st.sampled_from(DTYPES)},
    optional={"levels": st.lists(st.one_of(st.sampled_from(["1", "2", "3", "x", "y", ""]), st.integers(-2, 700),
                                           st.floats(allow_nan=True), st.none()), max_size=5),
              "ordered": st.one_of(st.booleans(), st.just("yes"))},
)


@SETTINGS
@given(spec=st.dictionaries(st.sampled_from(["a", "b", "w", "v", "zz"]), column_spec, max_size=4),
       cmd=st.sampled_from(["risk", "utility", "report"]))
def test_well_formed_sidecar_with_odd_values(tmp_path_factory, spec, cmd):
    """Valid JSON whose dtypes and levels may not fit the values (int8 for 651, bool for weights, levels that
    miss a value): the values are read as declared, or refused with the value that does not fit."""
    d = tmp_path_factory.mktemp("sidecar2")
    p = d / "d.csv"
    p.write_bytes(CSV)
    (d / "d.schema.json").write_text(json.dumps({"columns": spec}, allow_nan=True))
    check(COMMANDS[cmd](p, d))


@settings(SETTINGS, max_examples=max(1, SETTINGS.max_examples // 2))
@given(ops=st.lists(op, min_size=1, max_size=3), fmt=st.sampled_from(["csv", "parquet"]))
def test_malformed_part_of_a_directory(tmp_path_factory, ops, fmt):
    d = tmp_path_factory.mktemp("parts")
    parts = d / "parts"
    parts.mkdir()
    good = CSV if fmt == "csv" else PARQUET
    (parts / f"p1.{fmt}").write_bytes(good)
    (parts / f"p2.{fmt}").write_bytes(mutate(good, ops))
    check(["risk", parts, "--keys", "a,b", "--engine", "duckdb"])


def test_mutations_do_reach_the_error_path(tmp_path):
    """The fuzz is not vacuous: a truncated Parquet file and a broken sidecar do fail (exit 2, one line)."""
    p = tmp_path / "t.parquet"
    p.write_bytes(PARQUET[: len(PARQUET) // 2])
    assert run_cli(["risk", p, "--keys", "a,b"])[0] == 2
    c = tmp_path / "s.csv"
    c.write_bytes(CSV)
    (tmp_path / "s.schema.json").write_bytes(b"{not json")
    assert run_cli(["risk", c, "--keys", "a,b"])[0] == 2
