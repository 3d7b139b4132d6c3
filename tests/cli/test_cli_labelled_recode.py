"""pysdc protect's SPSS / Stata outputs after a recode: which codes, value labels, user-missing values and variable
labels come out (pysdc/io/_labelled_write.py), read back with pyreadstat, and compared with sdcMicro + haven
(readMicrodata, the methods, extractManipData, haven::write_sav / write_dta)."""

from __future__ import annotations

import json
import re
import subprocess

import numpy as np
import pandas as pd
import pytest

from pysdc.cli import main

pyreadstat = pytest.importorskip("pyreadstat")

BREAKS = [-np.inf, 15, 30, 45, 60, 75, np.inf]
AGES = [5.0, 12, 17, 22, 25, 33, 38, 41, 47, 52, 58, 63, 67, 71, 77, 81, 15, 30, 45, 60]
PB_LABELS = {1.0: "AT", 2.0: "EU", 3.0: "Other", -9.0: "no answer"}
REGION_LABELS = {1.0: "North", 2.0: "South", 3.0: "East"}
VAR_LABELS = {"age": "Age in years", "region": "Region of residence", "pb220a": "Citizenship", "income": "Income"}


def office_frame() -> pd.DataFrame:
    n = 40
    return pd.DataFrame({"age": AGES * 2,
                         "region": [1.0, 2, 3, 1, 2] * 8,
                         "pb220a": [1.0, 3, -9, 1, 2, 2, 3, 1] * 5,
                         "income": np.linspace(1000, 40000, n)})


def write_office_sav(path) -> pd.DataFrame:
    frame = office_frame()
    pyreadstat.write_sav(frame, str(path), variable_value_labels={"region": REGION_LABELS, "pb220a": PB_LABELS},
                         missing_ranges={"pb220a": [-9.0]}, column_labels=VAR_LABELS)
    return frame


def protect(capsys, data, out, steps, keys="age,region,pb220a", *extra):
    recipe = out.parent / f"{out.stem}.recipe.json"
    recipe.write_text(json.dumps({"steps": steps}))
    code = main([str(a) for a in ("protect", data, "--keys", keys, "--numeric", "income", "--recipe", recipe,
                                  "--output", out, "--quiet", *extra)])
    _, err = capsys.readouterr()
    assert code == 0, err
    read = pyreadstat.read_sav if out.suffix == ".sav" else pyreadstat.read_dta
    got, meta = read(str(out), **({"user_missing": True} if out.suffix == ".sav" else {}))
    labels = {c: {float(k): v for k, v in lab.items()} for c, lab in meta.variable_value_labels.items()}
    return got, meta, labels


RECODE_AGE = {"method": "globalRecode", "column": "age", "breaks": BREAKS}


def _interval(label: str) -> tuple[float, float]:
    lo, hi = re.fullmatch(r"\((.+),\s*(.+)\]", label).groups()
    return float(lo), float(hi)


@pytest.mark.parametrize("ext", [".sav", ".dta"])
@pytest.mark.parametrize("recoded_as", ["codes", "labels"])
def test_recoded_numeric_age_has_codes_1_to_k_with_the_interval_labels(tmp_path, capsys, ext, recoded_as):
    # age had no value labels; globalRecode makes it sdcMicro's interval codes (or, asked, the labels): the file
    # held bare numbers 1..6 (codes) or numbered the intervals 0..5 (Stata), the intervals' meaning lost
    data = tmp_path / "office.sav"
    frame = write_office_sav(data)
    step = {**RECODE_AGE, "recoded_as": recoded_as} if recoded_as == "labels" else RECODE_AGE
    got, meta, labels = protect(capsys, data, tmp_path / f"out{ext}", [step], "age,region")
    assert sorted(labels["age"]) == [1.0, 2, 3, 4, 5, 6]  # codes 1..k, every interval labelled
    bounds = [_interval(labels["age"][k]) for k in sorted(labels["age"])]
    assert [b[0] for b in bounds] == BREAKS[:-1] and [b[1] for b in bounds] == BREAKS[1:]
    assert got["age"].notna().all()
    for age, code in zip(frame["age"], got["age"]):  # each record's code is the interval holding its age
        lo, hi = _interval(labels["age"][code])
        assert lo < age <= hi, (age, code)
    assert meta.column_names_to_labels["age"] == "Age in years"  # the variable label of the recoded variable


@pytest.mark.parametrize("ext", [".sav", ".dta"])
def test_group_and_rename_to_a_new_name_keeps_the_other_codes_and_numbers_the_new_one_above_them(
        tmp_path, capsys, ext):
    # haven renumbers the whole factor 1..k (Other 3 -> 2, 'no answer' -9 -> 1): every syntax built on the
    # codebook would read other categories; pysdc keeps the codes and gives the merged category a new one
    data = tmp_path / "office.sav"
    frame = write_office_sav(data)
    steps = [{"method": "groupAndRename", "var": "pb220a", "before": ["AT", "EU"], "after": "AT/EU"},
             {"method": "groupAndRename", "var": "region", "before": ["South", "East"], "after": "SouthEast"}]
    got, meta, labels = protect(capsys, data, tmp_path / f"out{ext}", steps, "region,pb220a")
    assert labels["pb220a"] == {-9.0: "no answer", 3.0: "Other", 4.0: "AT/EU"}  # 4: above every input code
    assert labels["region"] == {1.0: "North", 4.0: "SouthEast"}
    merged = frame["pb220a"].isin([1.0, 2.0])
    assert (got.loc[merged, "pb220a"] == 4.0).all() and (got.loc[frame["pb220a"] == 3, "pb220a"] == 3.0).all()
    assert (got.loc[frame["region"] == 1, "region"] == 1.0).all()
    assert (got.loc[frame["region"] != 1, "region"] == 4.0).all()
    assert meta.column_names_to_labels["pb220a"] == "Citizenship"
    if ext == ".sav":  # the user-missing code keeps its meaning, so its declaration stays
        assert meta.missing_ranges["pb220a"] == [{"lo": -9.0, "hi": -9.0}]
    else:  # Stata has no user-missing values
        assert not getattr(meta, "missing_ranges", None)


def test_group_and_rename_into_an_existing_label_takes_that_labels_code(tmp_path, capsys):
    data = tmp_path / "office.sav"
    frame = write_office_sav(data)
    steps = [{"method": "groupAndRename", "var": "pb220a", "before": ["AT", "EU"], "after": "EU"}]
    got, _, labels = protect(capsys, data, tmp_path / "out.sav", steps, "region,pb220a")
    assert labels["pb220a"] == {-9.0: "no answer", 2.0: "EU", 3.0: "Other"}
    assert (got.loc[frame["pb220a"].isin([1.0, 2.0]), "pb220a"] == 2.0).all()


def test_new_code_skips_a_user_missing_range_above_the_labels(tmp_path, capsys):
    frame = pd.DataFrame({"q": [1.0, 2, 3, 1, 2, 3, 1, 2], "income": np.arange(8.0)})
    data = tmp_path / "q.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels={"q": {1.0: "a", 2.0: "b", 3.0: "c"}},
                         missing_ranges={"q": [{"lo": 4.0, "hi": 9.0}]})
    steps = [{"method": "groupAndRename", "var": "q", "before": ["a", "b"], "after": "ab"}]
    got, meta, labels = protect(capsys, data, tmp_path / "out.sav", steps, "q")
    assert labels["q"] == {3.0: "c", 10.0: "ab"}  # 4..9 are user-missing: a valid category is not put there
    assert meta.missing_ranges["q"] == [{"lo": 4.0, "hi": 9.0}]
    assert (got.loc[frame["q"] < 3, "q"] == 10.0).all()


@pytest.mark.parametrize("ext", [".sav", ".dta"])
def test_a_suppressed_value_is_system_missing_not_the_user_missing_code(tmp_path, capsys, ext):
    data = tmp_path / "office.sav"
    frame = write_office_sav(data)
    got, _, labels = protect(capsys, data, tmp_path / f"out{ext}", [{"method": "localSuppression", "k": 3}])
    assert labels["pb220a"] == PB_LABELS
    suppressed = got["pb220a"].isna() & (frame["pb220a"] != -9)
    assert suppressed.any()  # there is something to look at
    assert not (got["pb220a"] == -9).any()  # neither a suppressed value nor the input's -9 (read as missing)
    assert got.loc[frame["pb220a"] == -9, "pb220a"].isna().all()
    kept = got["pb220a"].notna()
    assert (got.loc[kept, "pb220a"] == frame.loc[kept, "pb220a"]).all()


def test_spss_to_stata_keeps_whole_codes_and_numbers_fractional_ones_1_to_k(tmp_path, capsys):
    frame = pd.DataFrame({"g": [1.5, 2.5, 1.5, 2.5, 1.5, 2.5], "s": [1.0, 2, 1, 2, 1, 2], "income": np.arange(6.0)})
    data = tmp_path / "f.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels={"g": {1.5: "lo", 2.5: "hi"},
                                                                   "s": {1.0: "male", 2.0: "female"}},
                         column_labels={"g": "Group", "s": "Sex"})
    got, meta, labels = protect(capsys, data, tmp_path / "out.dta", [{"method": "localSuppression", "k": 2}], "g,s")
    assert labels["s"] == {1.0: "male", 2.0: "female"}
    assert (got["s"] == frame["s"]).all()
    assert labels["g"] == {1.0: "lo", 2.0: "hi"}  # Stata labels whole numbers only: haven's 1..k
    assert (got["g"] == frame["g"] - 0.5).all()
    assert meta.column_names_to_labels == {"g": "Group", "s": "Sex", "income": None}


def test_stata_to_spss_keeps_codes_and_variable_labels_and_leaves_out_a_tagged_missing_label(tmp_path, capsys):
    # a label of Stata's .a ('refused') made the writer stop (float('a')) before it could write anything
    frame = pd.DataFrame({"x": [1, 2, "a", 3, 1, 2, 1, 2], "income": np.arange(8.0)})
    data = tmp_path / "t.dta"
    pyreadstat.write_dta(frame, str(data), missing_user_values={"x": ["a"]}, column_labels={"x": "The x"},
                         variable_value_labels={"x": {1: "low", 2: "high", "a": "refused"}})
    got, meta, labels = protect(capsys, data, tmp_path / "out.sav", [{"method": "localSuppression", "k": 1}], "x")
    assert labels["x"] == {1.0: "low", 2.0: "high", 3.0: "3"}  # 3: an unlabelled value, read as level '3'
    assert got["x"].isna().tolist()[:4] == [False, False, True, False]
    assert got["x"].tolist()[:2] + got["x"].tolist()[3:4] == [1.0, 2.0, 3.0]
    assert meta.column_names_to_labels["x"] == "The x"
    assert not meta.missing_ranges


def test_a_csv_category_is_coded_1_to_k_in_stata_as_haven_writes_a_factor(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("sex,income\nm,1\nf,2\nm,3\nf,4\n")
    got, _, labels = protect(capsys, data, tmp_path / "out.dta", [{"method": "localSuppression", "k": 1}], "sex")
    assert labels["sex"] == {1.0: "f", 2.0: "m"}  # was 0 = f, 1 = m (pandas' to_stata)
    assert got["sex"].tolist() == [2.0, 1.0, 2.0, 1.0]


def test_top_bot_coding_on_a_labelled_numeric_changes_nothing_and_keeps_its_codes(tmp_path, capsys):
    # hours: numbers with one label (99 = refused, user-missing) read as a factor, as readMicrodata does; sdcMicro's
    # topBotCoding on that key compares a factor ('>' not meaningful for factors) and changes nothing (pysdc warns)
    frame = pd.DataFrame({"hours": [10.0, 20, 40, 40, 99, 60, 35, 40] * 3, "income": np.arange(24.0)})
    data = tmp_path / "h.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels={"hours": {99.0: "refused"}},
                         missing_ranges={"hours": [99.0]}, column_labels={"hours": "Hours"})
    steps = [{"method": "topBotCoding", "column": "hours", "value": 35, "replacement": 35, "kind": "top"}]
    got, meta, labels = protect(capsys, data, tmp_path / "out.sav", steps, "hours")
    kept = frame["hours"] != 99
    assert (got.loc[kept, "hours"] == frame.loc[kept, "hours"]).all() and got.loc[~kept, "hours"].isna().all()
    assert labels["hours"] == {10.0: "10", 20.0: "20", 35.0: "35", 40.0: "40", 60.0: "60", 99.0: "refused"}
    assert meta.missing_ranges["hours"] == [{"lo": 99.0, "hi": 99.0}]
    assert meta.column_names_to_labels["hours"] == "Hours"


def test_an_spss_variable_label_longer_than_stata_keeps_is_cut_with_a_warning(tmp_path, capsys):
    # pandas' to_stata refused it (ValueError: a raw traceback, nothing written)
    frame = pd.DataFrame({"s": [1.0, 2, 1, 2], "income": np.arange(4.0)})
    data = tmp_path / "long.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels={"s": {1.0: "male", 2.0: "female"}},
                         column_labels={"s": "x" * 120})
    with pytest.warns(UserWarning, match="cut there"):
        _, meta, labels = protect(capsys, data, tmp_path / "out.dta", [{"method": "localSuppression", "k": 1}], "s")
    assert meta.column_names_to_labels["s"] == "x" * 80
    assert labels["s"] == {1.0: "male", 2.0: "female"}


# ----------------------------------------------------------------------------- against sdcMicro + haven

_R = r"""
suppressMessages({library(haven); library(sdcMicro); library(jsonlite)})
dir <- commandArgs(TRUE)[1]
r <- readMicrodata(file.path(dir, "office.sav"), type = "spss", convertCharToFac = FALSE, drop_all_missings = FALSE)
sdc <- createSdcObj(r, keyVars = c("age", "region", "pb220a"), numVars = "income")
sdc <- globalRecode(sdc, column = "age", breaks = c(-Inf, 15, 30, 45, 60, 75, Inf))
sdc <- groupAndRename(sdc, var = "pb220a", before = c("AT", "EU"), after = "AT/EU")
sdc <- groupAndRename(sdc, var = "region", before = c("South", "East"), after = "SouthEast")
sdc <- localSuppression(sdc, k = 3)
m <- extractManipData(sdc)
write_sav(m, file.path(dir, "r.sav")); write_dta(m, file.path(dir, "r.dta"))
d <- data.frame(sex = factor(c("m", "f", "m", "f")), income = 1:4)
write_dta(d, file.path(dir, "r_csv.dta"))
out <- list(age_levels = levels(sdc@manipKeyVars$age))
for (f in c("r.sav", "r.dta")) {
  x <- if (grepl("sav$", f)) read_sav(file.path(dir, f), user_na = TRUE) else read_dta(file.path(dir, f))
  out[[f]] <- lapply(x, function(v) list(values = as.numeric(unclass(v)), labels = as.list(attr(v, "labels")),
                                         label = attr(v, "label", exact = TRUE), na_values = attr(v, "na_values")))
}
x <- read_dta(file.path(dir, "r_csv.dta"))$sex
out$csv <- list(values = as.numeric(unclass(x)), labels = as.list(attr(x, "labels")))
cat(toJSON(out, null = "null", na = "null", digits = NA, auto_unbox = TRUE))
"""


def _decoded(values, labels) -> list:
    return [None if v is None or (isinstance(v, float) and np.isnan(v)) else labels.get(float(v), v) for v in values]


@pytest.mark.live
@pytest.mark.rscript("haven", "jsonlite")
@pytest.mark.parametrize("ext", [".sav", ".dta"])
def test_live_recoded_output_against_sdcmicro_and_haven(tmp_path, capsys, ext):
    """The same records, values and categories as R writes; the codes differ only where pysdc keeps the
    input's (R: every factor 1..k), and the interval labels and variable labels are pysdc's addition."""
    write_office_sav(tmp_path / "office.sav")
    script = tmp_path / "ref.R"
    script.write_text(_R)
    run = subprocess.run(["Rscript", str(script), str(tmp_path)], capture_output=True, text=True, check=True)
    ref = json.loads(run.stdout)
    want = ref[f"r{ext}"]
    steps = [RECODE_AGE,
             {"method": "groupAndRename", "var": "pb220a", "before": ["AT", "EU"], "after": "AT/EU"},
             {"method": "groupAndRename", "var": "region", "before": ["South", "East"], "after": "SouthEast"},
             {"method": "localSuppression", "k": 3}]
    got, meta, labels = protect(capsys, tmp_path / "office.sav", tmp_path / f"out{ext}", steps)
    # age: sdcMicro's interval codes, the same numbers (suppressions included); R writes no labels, pysdc R's levels
    assert _decoded(got["age"].tolist(), {}) == want["age"]["values"]
    assert not want["age"]["labels"]
    assert [labels["age"][k] for k in sorted(labels["age"])] == ref["age_levels"]
    # the categories of every record are R's; R's codes are 1..k, pysdc's the input's
    for c in ("region", "pb220a"):
        r_labels = {float(v): k for k, v in want[c]["labels"].items()}
        assert _decoded(got[c].tolist(), labels[c]) == _decoded(want[c]["values"], r_labels), c
        assert sorted(r_labels) == [float(i) for i in range(1, len(r_labels) + 1)]
        assert sorted(labels[c].values()) == sorted(r_labels.values())
    assert labels["pb220a"] == {-9.0: "no answer", 3.0: "Other", 4.0: "AT/EU"}
    assert not want["pb220a"].get("na_values")  # haven: the factor has no user-missing values; pysdc keeps -9's
    assert want["pb220a"].get("label") in (None, [])  # R lost the key variables' labels; pysdc keeps them
    assert meta.column_names_to_labels["pb220a"] == "Citizenship"
    assert np.allclose(got["income"], want["income"]["values"], rtol=0, atol=0)
    if ext == ".dta":  # a category without input codes: exactly haven's codes and labels
        csv = tmp_path / "d.csv"
        csv.write_text("sex,income\nm,1\nf,2\nm,3\nf,4\n")
        got2, _, labels2 = protect(capsys, csv, tmp_path / "csv.dta", [{"method": "localSuppression", "k": 1}],
                                   "sex")
        assert got2["sex"].tolist() == ref["csv"]["values"]
        assert labels2["sex"] == {float(v): k for k, v in ref["csv"]["labels"].items()}
