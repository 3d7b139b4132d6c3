"""Command-line items of issue 14: one-line errors, honest histograms and notes, wide and odd files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pysdc.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _one_error_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("pysdc: error: ") and "Traceback" not in err


def test_utility_with_different_row_counts_exits_2_with_one_line(tmp_path, capsys):
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)}).to_csv(tmp_path / "b.csv", index=False)
    code, out, err = run(capsys, "utility", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"))
    assert code == 2 and _one_error_line(err) and "50 records" in err and "40" in err and out == ""


@pytest.mark.parametrize("argv, cmd", [
    (["risk", "--demo", "--top", "x"], "pysdc risk"),
    (["utility", "--demo", "--random-state", "z"], "pysdc utility"),
    (["risk", "--demo", "--bogus"], "pysdc risk"),
    (["parity", "--bogus"], "pysdc parity"),
    (["nonsense"], "pysdc"),
])
def test_argument_errors_are_one_line_with_a_pointer_to_help(capsys, argv, cmd):
    code, _, err = run(capsys, *argv)
    assert code == 2 and _one_error_line(err) and f"(see '{cmd} --help')" in err


def test_parity_unknown_function_exits_2_naming_the_valid_ones(tmp_path, capsys):
    out_dir = tmp_path / "reports"
    code, out, err = run(capsys, "parity", "--function", "bogus", "--output-dir", str(out_dir))
    assert code == 2 and _one_error_line(err) and "dUtility" in err and "measure_risk" in err
    assert not out_dir.exists() and "native" not in out


def test_parity_ignores_an_r_reference_in_the_working_directory_unless_named(tmp_path, monkeypatch):
    # a corpus of another pysdc version above the working directory must not be taken for this one's
    from pysdc import parity

    deep = tmp_path / "checkout" / "sub" / "dir"
    (tmp_path / "checkout" / "r_reference" / "outputs").mkdir(parents=True)
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert tmp_path.resolve() / "checkout" / "r_reference" not in parity.reference_dir_candidates()
    assert parity.reference_dir() != tmp_path.resolve() / "checkout" / "r_reference"
    named = tmp_path / "checkout" / "r_reference"
    assert parity.reference_dir(named) == named


def test_parity_summary_says_which_tolerance_decided():
    from pysdc.cli.parity import worst_text

    near_zero = {"worst_rel_diff": 1.0, "worst_rel_abs_diff": 2.2e-16, "worst_abs_diff": 0.3,
                 "worst_decided_by": "atol", "worst_tolerance": 1e-13}
    assert "atol 1e-13" in worst_text(near_zero) and "near 0" in worst_text(near_zero)
    rel = {"worst_rel_diff": 4e-13, "worst_decided_by": "rtol", "worst_tolerance": 1e-12}
    assert "rtol 1e-12" in worst_text(rel)


def test_empty_text_fields_in_keys_are_warned_about(tmp_path, capsys):
    p = tmp_path / "blanks.csv"
    p.write_text("k1,k2,w\n1,a,10\n1,,10\n,a,10\n2,b,10\n2,b,10\n")
    code, out, err = run(capsys, "risk", str(p), "--keys", "k1,k2", "--weight", "w", "--json")
    rep = json.loads(out)
    assert code == 0 and any("empty text field" in w["message"] and "--na ''" in w["message"]
                             for w in rep["warnings"])
    code, out, _ = run(capsys, "risk", str(p), "--keys", "k1,k2", "--weight", "w", "--json", "--na", "", "--na", "NA")
    assert not any("empty text field" in w["message"] for w in json.loads(out)["warnings"])


def test_semicolon_file_is_read_as_semicolon_separated(tmp_path, capsys):
    # issue 16: the separator is detected (before, the file had one column 'a;b;c' and got a hint)
    p = tmp_path / "semi.csv"
    p.write_text("a;b;c\n1;2;3\n4;5;6\n")
    code, out, _ = run(capsys, "risk", str(p), "--keys", "a", "--no-suda", "--json")
    assert code == 0 and json.loads(out)["data"]["n_records"] == 2
    p.write_text("a;b;c\n1;2\n4;5;6;7\n")  # ragged: not detected, so read as one column, with the hint
    code, _, err = run(capsys, "risk", str(p), "--keys", "a")
    assert code == 2 and _one_error_line(err) and "semicolon-separated" in err and "--sep ';'" in err


def test_histogram_counts_every_record_and_risks_above_one_have_their_own_bin(tmp_path, capsys):
    # weights below 1: risks above 1 (the normalised weights)
    d = pd.DataFrame({"k": [1, 2, 2, 3, 3, 3], "w": [0.5, 0.5, 0.5, 2.0, 2.0, 2.0]})
    d.to_csv(tmp_path / "d.csv", index=False)
    code, out, _ = run(capsys, "risk", str(tmp_path / "d.csv"), "--keys", "k", "--weight", "w", "--json")
    rep = json.loads(out)
    bins = rep["individual_risk"]["bins"]
    assert code == 0 and sum(b["count"] for b in bins) == 6
    assert bins[-1]["lower"] == 1.0 and bins[-1]["upper"] == "Inf" and bins[-1]["count"] >= 1
    assert any("below 1" in w["message"] for w in rep["warnings"])
    code, text, _ = run(capsys, "risk", str(tmp_path / "d.csv"), "--keys", "k", "--weight", "w")
    assert "(1, Inf)" in text and "not a probability" in text


def test_text_output_fits_100_columns_and_explains_an_na_threshold(capsys):
    code, out, _ = run(capsys, "risk", "--demo", "--max-global-risk", "0.5")
    assert code == 0 and "NA: the global risk is already" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "site-packages" not in out and "demo.csv.gz (pysdc's demo data)" in out
    code, out, _ = run(capsys, "utility", "--demo", "--random-state", "1")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100


def test_utility_shows_the_literature_measures_marked_as_not_sdcmicro(capsys):
    code, out, _ = run(capsys, "utility", "--demo", "--random-state", "1", "--json")
    rep = json.loads(out)
    lit = rep["literature"]
    assert code == 0 and "not sdcMicro" in lit["note"]
    m = lit["measures"]
    assert {"il_continuous", "il_categorical", "hellinger", "gsil"} <= set(m)
    assert all(m[k]["status"] == "ok" for k in m)
    assert set(m["hellinger"]["per_variable"]) == set(rep["variables"]["selected"])
    assert lit["variables"]["continuous"] == rep["variables"]["numeric"]
    assert m["gsil"]["band"] and "gilcv" in m["il_continuous"] and "ebil" in m["il_categorical"]
    assert rep["provenance"]["gsil"].startswith("literature, not sdcMicro")
    code, text, _ = run(capsys, "utility", "--demo", "--random-state", "1")
    assert "Literature measures (not sdcMicro)" in text


def test_long_ids_can_be_read_as_text(tmp_path, capsys):
    ids = ["12345678901234567890", "12345678901234567891", "12345678901234567892", "12345678901234567892"]
    pd.DataFrame({"k": [1, 1, 2, 2], "hid": ids}).to_csv(tmp_path / "h.csv", index=False)
    code, out, _ = run(capsys, "risk", str(tmp_path / "h.csv"), "--keys", "k", "--hid", "hid", "--json")
    rep = json.loads(out)
    assert code == 0 and any("2^53" in w["message"] and "--text" in w["message"] for w in rep["warnings"])
    code, out, _ = run(capsys, "risk", str(tmp_path / "h.csv"), "--keys", "k", "--hid", "hid", "--json",
                       "--text", "hid")
    rep = json.loads(out)
    # three households: {1}, {2}, {3, 4}; risks 1/2 each -> household risks 1/2, 1/2, 3/4, 3/4
    assert code == 0 and rep["household"]["expected_reidentifications"] == pytest.approx(2.5)


def test_wide_csv_reads_only_the_needed_columns(tmp_path, capsys, monkeypatch):
    """2,000 rows x 5,000 columns, 3 of them used (the issue's 20,000 columns took 12 s): every pass of the
    CSV parser over the records reads only the columns named (a structural check, not a timed one)."""
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.integers(0, 3, size=(2000, 5000)), columns=[f"v{i}" for i in range(5000)])
    wide.to_csv(tmp_path / "wide.csv", index=False)
    passes = []
    real = pd.read_csv

    def spy(*args, **kwargs):
        passes.append((kwargs.get("usecols"), kwargs.get("nrows")))
        return real(*args, **kwargs)

    monkeypatch.setattr(pd, "read_csv", spy)
    code, out, _ = run(capsys, "risk", str(tmp_path / "wide.csv"), "--keys", "v1,v2,v3", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["data"]["n_columns"] == 5000 and rep["data"]["n_records"] == 2000
    full = [u for u, n in passes if n is None or n >= 2000]  # passes over all the records
    assert full and all(u is not None and len(list(u)) <= 3 for u in full), passes
