"""Text key variables: the problem object and the CLI follow sdcMicro's createSdcObj, the bare functions
the data.frame methods (issue 24, findings 2, 5 and 7).

Stored references: r_reference/outputs/createSdcObj.json (generate_createSdcObj.R: read.csv, createSdcObj,
then sdcMicro's measures on the object), inputs read with pandas.read_csv as a user would. Each case -- the key
variables' levels, print(sdc, "risk")'s numbers, the individual risk, kAnon_violations, suda2, ldiversity and
modRisk IPF against SdcProblem -- is a case of ``pysdc parity`` (section createSdcObj, pysdc/parity/_sections.py;
tests in tests/parity/test_parity_stored.py and, live, tests/parity/test_parity_numerics_print.py). Here: what
the findings say beyond those numbers (warnings, the CLI, the collations, the bare functions).
"""

from __future__ import annotations

import json
import random
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._tolerances import CLOSED_FORM
from pysdc.core.collate import r_sort_text
from pysdc.problem import as_sdc_keys

REF = Path(__file__).resolve().parents[2] / "r_reference"
OUT = json.loads((REF / "outputs" / "createSdcObj.json").read_text(encoding="utf-8"))
CASES = {c["id"]: c for c in OUT["cases"]}
RTOL = CLOSED_FORM.rtol


def _read(case) -> pd.DataFrame:
    path = REF / "inputs" / case["inputs"]["csv"]
    assert path.exists(), f"stored input {path} is missing (r_reference/make_real_inputs.R, make_cases_createSdcObj.py)"
    df = pd.read_csv(path)
    for col, levels in (case["args"].get("factor_levels") or {}).items():
        df[col] = pd.Categorical(df[col], categories=levels)
    return df


def _problem(case, **kw) -> pysdc.SdcProblem:
    a = case["args"]
    return pysdc.SdcProblem(_read(case), a["keyVars"], w=a.get("weightVar"), hid=a.get("hhId"),
                            sensitive=a.get("sensibleVar") or (), collation=a.get("collation", "icu"), **kw)


def _num(v):
    return np.nan if v in ("NA", "NaN", None) else float(v)


def _close(actual, expected, rtol=RTOL, what=""):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray([_num(v) for v in np.atleast_1d(expected)],
                               dtype=float).reshape(np.shape(actual)), rtol=rtol, atol=0, err_msg=what)


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


# ------------------------------------------------------------------ levels: R's collation


def test_the_two_collations_differ_on_the_stored_text():
    icu = CASES["createSdcObj:sdcobj_text:icu"]["result"]["levels"]
    c = CASES["createSdcObj:sdcobj_text:C"]["result"]["levels"]
    assert icu["k1"] != c["k1"] and icu["k4"] != c["k4"]
    assert c["k1"] == sorted(c["k1"])  # R with LC_COLLATE=C: code point order


def test_collation_refuses_unknown_names():
    df = pd.DataFrame({"a": ["x", "y"], "b": [1, 2]})
    with pytest.raises(pysdc.InvalidParameterError, match="collation"):
        pysdc.SdcProblem(df, ["a", "b"], collation="en_US")


def test_unverified_characters_warn():
    df = pd.DataFrame({"a": ["x", "ж", "y"], "b": [1, 2, 3]})
    with pytest.warns(pysdc.PysdcWarning, match="collation"):
        as_sdc_keys(df, ["a"])


# ------------------------------------------------------------------ the problem object = createSdcObj


def test_finding_2_eusilc_numbers():
    """The issue's numbers: suda2(sdc) 1,649 records with a score > 0 (the data.frame method: 32)."""
    case = CASES["createSdcObj:eusilc:5keys:w:hh:py010n"]
    s = case["result"]["suda2"]
    assert (s["n_positive"], s["data_frame_n_positive"]) == (1649, 32)
    p = _problem(case)
    assert int(np.sum(np.asarray(_quiet(p.risk).suda2.score) > 0)) == 1649
    # the bare function keeps the data.frame method's coercion (text keys -> NA), and says so
    with pytest.warns(pysdc.CoercionWarning, match="--categorical"):
        bare = pysdc.suda2(_read(case), case["args"]["keyVars"])
    assert int(np.sum(np.asarray(bare.score) > 0)) == s["data_frame_n_positive"]
    # a problem in place of the data is createSdcObj's object, as in sdcMicro's suda2(sdc)
    assert int(np.sum(np.asarray(_quiet(pysdc.suda2, p).score) > 0)) == 1649


def test_text_sensitive_variable_becomes_na_with_a_warning_naming_the_cli_flag():
    case = CASES["createSdcObj:eusilc:4keys:sensitive-text"]
    res = case["result"]
    assert any("NAs introduced by coercion" in w for w in res["ldiversity"]["warnings"])
    with pytest.warns(pysdc.CoercionWarning, match="--categorical pb220a"):
        r = _problem(case).risk(suda=False)
    d = r.ldiversity.table["pb220a_Distinct_Ldiversity"].to_numpy(dtype=float)
    assert np.median(d) == res["ldiversity"]["median_distinct"]["pb220a"]


# ------------------------------------------------------------------ finding 5: DIS-SUDA follows the codes


def _dis(cid):
    s = CASES[cid]["result"]["suda2"]["nonzero"]
    return np.asarray(s["rows"]), np.asarray(s["disScore"], dtype=float)


@pytest.mark.parametrize("a, b", [
    ("createSdcObj:eusilc:5keys:w:hh:py010n", "createSdcObj:eusilc:5keys:rb090-levels-male-female"),
    ("createSdcObj:sdcobj_text:icu", "createSdcObj:sdcobj_text:C"),
])
def test_dis_suda_depends_on_the_level_order_in_sdcmicro_and_pysdc_follows_it(a, b):
    rows_a, dis_a = _dis(a)
    rows_b, dis_b = _dis(b)
    assert rows_a.tolist() == rows_b.tolist()
    rel = np.max(np.abs(dis_a - dis_b) / dis_a)
    assert 1e-9 < rel < 1e-6  # sdcMicro's own two numbers: ~6.6e-8 on eusilc (the newcomer's finding)
    for cid, dis in ((a, dis_a), (b, dis_b)):
        r = _quiet(_problem(CASES[cid]).risk)
        got = np.asarray(r.suda2.dis_score, dtype=float)[rows_a]
        np.testing.assert_allclose(got, dis, rtol=RTOL, atol=0)
        # and not the other order's number: the comparison can tell them apart
        other = dis_b if cid == a else dis_a
        assert np.max(np.abs(got - other) / other) > 1e-9


# ------------------------------------------------------------------ finding 7: modRisk IPF's merge


@pytest.mark.parametrize("cid", [c for c in CASES if "modRisk_IPF" in CASES[c]["result"]])
def test_mod_risk_ipf_is_sdcmicros_merge(cid):
    case = CASES[cid]
    ref = case["result"]["modRisk_IPF"]
    p = _problem(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pysdc.mod_risk(p, ref["formula"], method="IPF", bound=_num(ref["bound"]))  # gr1, gr2: pysdc parity
    dropped = any("binary search misses" in str(w.message) for w in caught)
    full = pysdc.mod_risk(p, ref["formula"], method="IPF", ipf_join="all", bound=_num(ref["bound"]))
    assert dropped == (len(full.incl_prob) != ref["n_cells"])


def test_finding_7_eusilc_age_default_is_sdcmicro_and_all_cells_is_an_option():
    case = CASES["createSdcObj:eusilc:5keys:w:hh:py010n"]
    ref = case["result"]["modRisk_IPF"]
    assert round(ref["gr1"], 5) == 0.28635
    p = _problem(case)
    with pytest.warns(pysdc.PysdcWarning, match="binary search misses"):
        r = pysdc.mod_risk(p, ref["formula"], method="IPF")
    _close(r.gr1, ref["gr1"])
    full = pysdc.mod_risk(p, ref["formula"], method="IPF", ipf_join="all")
    assert round(full.gr1, 5) == 0.28736 and len(full.incl_prob) > ref["n_cells"]


def test_ipf_join_refused_through_the_bridge_before_r():
    import pysdc.r

    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1, 2, 2, 10], "w": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(pysdc.InvalidParameterError, match="ipf_join"):
        pysdc.r.mod_risk(df, "~ a + b", w="w", method="IPF", ipf_join="all")


# ------------------------------------------------------------------ the CLI


def test_cli_risk_follows_createsdcobj(tmp_path):
    case = CASES["createSdcObj:eusilc:5keys:w:hh:py010n"]
    a = case["args"]
    r = subprocess.run(
        ["pysdc", "risk", str(REF / "inputs" / case["inputs"]["csv"]), "--keys", ",".join(a["keyVars"]),
         "--weight", a["weightVar"], "--hid", a["hhId"], "--json"], capture_output=True, text=True, check=True)
    out = json.loads(r.stdout)
    assert out["suda2"]["score"]["n_positive"] == case["result"]["suda2"]["n_positive"]
    assert "as.numeric" not in r.stderr  # no coercion of the text keys


def test_cli_collation_option(tmp_path):
    case = CASES["createSdcObj:sdcobj_text:C"]
    a = case["args"]
    dis = {}
    for coll in ("icu", "C"):
        r = subprocess.run(
            ["pysdc", "risk", str(REF / "inputs" / case["inputs"]["csv"]), "--keys", ",".join(a["keyVars"]),
             "--json", "--collation", coll, "--top", "1"], capture_output=True, text=True, check=True)
        dis[coll] = json.loads(r.stdout)["suda2"]["top"][0]["dis_score"]
    rows, ref = _dis("createSdcObj:sdcobj_text:C")
    assert dis["icu"] != dis["C"]
    assert np.isclose(dis["C"], ref, rtol=RTOL, atol=0).any()


# ------------------------------------------------------------------ R's sort, live


def _random_texts(seed: int, n: int) -> list:
    rng = random.Random(seed)
    alphabet = ([chr(c) for c in range(32, 127)] + list("éèêëÉÈáàâäÄÖÜöüñÑçÇßæÆœŒøØłŁđĐðÐþÞåÅ")
                + ["e\u0301", "o\u0302", "u\u0308"])
    out = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) for _ in range(n)}
    out |= {rng.choice(["ab", "Ab", "aB", "ä", "a", "A", "a ", "a-", "e", "é", "E"]) + rng.choice(alphabet)
            for _ in range(n // 2)}
    return sorted(out)


@pytest.mark.rscript(sdcmicro=False)
@pytest.mark.parametrize("collation", ["icu", "C"])
def test_r_sort_text_is_rs_sort(tmp_path, collation):
    vals = _random_texts(7, 3000)
    (tmp_path / "v.txt").write_text("\n".join(vals) + "\n", encoding="utf-8")
    setloc = 'Sys.setlocale("LC_COLLATE", "C"); ' if collation == "C" else ""
    code = (f'{setloc}x <- readLines("{tmp_path / "v.txt"}", encoding = "UTF-8"); '
            f'writeLines(levels(factor(x)), "{tmp_path / "s.txt"}", useBytes = TRUE)')
    if collation == "icu":
        info = subprocess.run(["Rscript", "-e", 'cat(capabilities("ICU"), Sys.getlocale("LC_COLLATE"))'],
                              capture_output=True, text=True).stdout.split()
        if info[:1] != ["TRUE"] or info[1:2] in (["C"], ["POSIX"]):
            pytest.skip(f"this R does not collate with ICU (capabilities('ICU'), LC_COLLATE: {info})")
    proc = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    r_sorted = (tmp_path / "s.txt").read_text(encoding="utf-8").split("\n")[:-1]
    mine, unverified = r_sort_text(vals, collation)
    assert unverified == []
    # texts that ICU finds canonically equal (composed vs decomposed accents) have no defined order
    import unicodedata

    def canon(seq):
        return [unicodedata.normalize("NFC", s) for s in seq]

    assert canon(mine) == canon(r_sorted)


# ------------------------------------------------------------------ live: sdcMicro through the bridge


@pytest.mark.live
@pytest.mark.parametrize("cid", ["createSdcObj:eusilc:5keys:rb090-levels-male-female",
                                 "createSdcObj:eusilc:5keys:w:hh:py010n"])
def test_live_dis_suda_and_mod_risk_ipf_on_the_object(bridge, cid):
    case = CASES[cid]
    a = case["args"]
    df = _read(case)
    sdc = bridge.SdcObj.create(df, a["keyVars"], w=a["weightVar"], hid=a["hhId"])
    s = sdc.apply("suda2").risk["suda2"]
    p = _problem(case)
    r = _quiet(p.risk)
    np.testing.assert_allclose(np.asarray(r.suda2.dis_score, float), np.asarray(s["disScore"], float), rtol=RTOL,
                               atol=0)
    formula = "~ " + " + ".join(a["keyVars"])
    m = sdc.apply("modRisk", method="IPF", formulaM=bridge.formula(formula)).risk["model"]
    got = _quiet(pysdc.mod_risk, p, formula, method="IPF")
    np.testing.assert_allclose([got.gr1, got.gr2], [float(m["gr1"]), float(m["gr2"])], rtol=RTOL, atol=0)
    assert len(got.incl_prob) == len(np.atleast_1d(m["inclProb"]))


@pytest.mark.rscript("data.table", sdcmicro=False)  # an sdcMicro dependency
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bmerge_is_data_tables_join_on_a_key_sorted_as_text(tmp_path, seed):
    """pysdc's emulation of the join inside sdcMicro's IPF branch against data.table itself: a table keyed
    on integer labels sorted as text, converted back to integers, merged with a grid sorted by value."""
    from pysdc.core.modrisk import bmerge

    rng = np.random.default_rng(seed)
    dims = [int(rng.integers(2, 5)), int(rng.integers(8, 30)), int(rng.integers(5, 15))]
    labels = [sorted(str(v) for v in rng.choice(np.arange(-3, 120), d, replace=False)) for d in dims]
    grid = pd.MultiIndex.from_product(labels).to_frame(index=False)
    grid.columns = ["a", "b", "c"]
    grid["id"] = np.arange(len(grid))
    cells = grid[["a", "b", "c"]].astype(int).sample(frac=0.7, random_state=seed)
    cells = pd.concat([cells, pd.DataFrame({"a": [999], "b": [0], "c": [1]})])  # one cell the table lacks
    grid.to_csv(tmp_path / "lam.csv", index=False)
    cells.to_csv(tmp_path / "cells.csv", index=False)
    code = (f'suppressPackageStartupMessages(library(data.table)); '
            f'l <- fread("{tmp_path / "lam.csv"}", colClasses = c("character", "character", "character", "integer")); '
            'l <- data.table(l, key = c("a", "b", "c")); '
            'for (v in c("a", "b", "c")) l[[v]] <- as.integer(l[[v]]); '
            f'x <- data.table(fread("{tmp_path / "cells.csv"}"), key = c("a", "b", "c")); '
            f'm <- merge(x, l, all.x = TRUE); fwrite(m, "{tmp_path / "m.csv"}")')
    proc = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    r = pd.read_csv(tmp_path / "m.csv")  # sorted by a, b, c (as values)
    # pysdc: lambda's rows in text order (its key), values as integers; cells sorted by value
    space = sorted(set(grid[["a", "b", "c"]].astype(int).to_numpy().ravel()) | set(cells.to_numpy().ravel()))
    rank = {v: i for i, v in enumerate(space)}
    xvals = [grid[c].astype(int).map(rank).to_numpy(dtype=np.int64) for c in ("a", "b", "c")]
    srt = cells.sort_values(["a", "b", "c"])
    ivals = [srt[c].map(rank).to_numpy(dtype=np.int64) for c in ("a", "b", "c")]
    m = bmerge(ivals, xvals)
    mine = np.where(m >= 0, grid["id"].to_numpy()[np.maximum(m, 0)], -1)
    theirs = r["id"].fillna(-1).to_numpy(dtype=np.int64)
    assert (mine == theirs).all()
    assert (theirs < 0).sum() > 1  # the text order makes data.table miss cells (not only the absent one)


def test_bare_suda2_lists_text_levels_in_rs_order():
    """sdcMicro's suda2 (data.frame method) lists each key's levels by sort(unique(x)): R's collation for text
    (the same order createSdcObj's factor levels have in that session), not pandas' code point order."""
    case = CASES["createSdcObj:sdcobj_text:icu"]
    df = _read(case)
    r = _quiet(pysdc.suda2, df, case["args"]["keyVars"])
    alc = r.attribute_level_contributions
    for k, levels in case["result"]["levels"].items():
        assert alc.loc[alc["variable"] == k, "attribute"].tolist() == levels, k
    assert case["result"]["levels"]["k1"] != sorted(case["result"]["levels"]["k1"])  # the orders differ here


def test_bare_mod_risk_ipf_lists_text_levels_in_rs_order():
    """modRisk's IPF table comes from xtabs, which makes text keys factors: levels in R's collation."""
    case = CASES["createSdcObj:sdcobj_text:icu"]
    df = _read(case)
    r = _quiet(pysdc.mod_risk, df, "~ k1 + k2 + k3", w="w", method="IPF")
    idx = r.fitted.index
    for k in ("k1", "k2"):
        assert list(pd.unique(idx.get_level_values(k))) == case["result"]["levels"][k], k


def test_mixed_object_text_column_keeps_every_value():
    df = pd.DataFrame({"a": pd.Series([1, "x", None, "B", 1], dtype=object), "b": [1, 2, 3, 4, 5]})
    d = as_sdc_keys(df, ["a", "b"])
    assert d["a"].tolist()[:2] == ["1", "x"] and pd.isna(d["a"].iloc[2])
    assert list(d["a"].cat.categories) == ["1", "B", "x"] and d["a"].notna().sum() == 4
    assert d["b"].dtype == df["b"].dtype  # numbers stay numbers, as in createSdcObj
