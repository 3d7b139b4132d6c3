"""``pysdc risk``'s risk toolbox: SUDA2, k-anonymity violations, dRisk and dRiskRMD.

Every number the command prints is checked against the library's own call on the same data
(``pysdc.suda2``, ``pysdc.k_anon_violations``, ``pysdc.d_risk``, ``pysdc.d_risk_rmd``): an
independent call path from the report model's.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc.cli import main
from pysdc.io import write_table
from pysdc.report import to_markdown

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUM = ["income", "expenditure", "savings"]


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # strict JSON: NaN/Inf would not parse


def _one_error_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("pysdc: error: ") and "Traceback" not in err


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo(), pysdc.load_demo(masked=True)


@pytest.fixture(scope="module")
def demo_json():
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["risk", "--demo", "--numeric", ",".join(NUM), "--random-state", "3", "--top", "7", "--json"])
    assert code == 0
    return json.loads(buf.getvalue())


@pytest.fixture()
def pair(tmp_path):
    """Complete continuous data and a noisy masked copy (dRiskRMD flags records), plus three keys."""
    rng = np.random.default_rng(11)
    n = 300
    x = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n), "c": rng.integers(0, 5, n),
                      "u": rng.lognormal(3, 1, n), "v": rng.normal(50, 10, n), "t": rng.gamma(2, 3, n)})
    xm = x.copy()
    xm["u"] = x["u"] + rng.normal(0, 0.01 * x["u"].std(), n)
    xm["v"] = x["v"] + rng.normal(0, 0.5 * x["v"].std(), n)
    xm["t"] = x["t"] + rng.normal(0, 0.05 * x["t"].std(), n)
    write_table(x, tmp_path / "orig.csv")
    write_table(xm, tmp_path / "masked.csv")
    return x, xm, str(tmp_path / "orig.csv"), str(tmp_path / "masked.csv")


# --------------------------------------------------------------------------- demo: the numbers are the library's

def test_demo_k_anonymity_violations_equal_kanon_violations(demo_json, demo):
    x, _ = demo
    viol = demo_json["k_anonymity"]["violations"]
    assert [v["k"] for v in viol] == [2, 3, 5]
    for v in viol:
        u = pysdc.k_anon_violations(x, KEYS, k=v["k"])
        w = pysdc.k_anon_violations(x, KEYS, k=v["k"], w="weight", weighted=True)
        assert (v["unweighted"], v["weighted"]) == (u, w)
        assert v["unweighted_share"] == pytest.approx(u / len(x), rel=1e-15)
    # the existing keys keep working, and agree with kAnon_violations (alpha = 1)
    k = demo_json["k_anonymity"]
    assert (k["fk_lt_2"], k["fk_lt_3"]) == (viol[0]["unweighted"], viol[1]["unweighted"])
    assert viol[2]["unweighted"] > viol[1]["unweighted"] > viol[0]["unweighted"] > 0


def test_demo_suda2_equals_the_library(demo_json, demo):
    x, _ = demo
    su = demo_json["suda2"]
    assert su["status"] == "ok" and su["key_vars"] == KEYS and su["dummy_keys"] == 0
    ref = pysdc.suda2(x, KEYS)
    dis, score = np.asarray(ref.dis_score), np.asarray(ref.score)
    assert su["attribute_contributions"] == dict(zip(ref.attribute_contributions["variable"],
                                                     ref.attribute_contributions["contribution"]))
    q = su["dis_score"]["quantiles"]
    for label, p in (("50%", 0.5), ("90%", 0.9), ("99%", 0.99), ("100%", 1.0)):
        assert q[label] == np.quantile(dis, p), label
    assert su["dis_score"]["n_positive"] == int((dis > 0).sum()) > 0
    assert su["dis_score"]["share_positive"] == pytest.approx((dis > 0).mean(), rel=1e-15)
    assert su["dis_score"]["mean"] == pytest.approx(dis.mean(), rel=1e-12)
    assert su["score"]["n_positive"] == int((score > 0).sum()) and su["score"]["max"] == score.max()
    top = su["top"]
    assert len(top) == 7
    for row in top:
        i = row["record"] - 1
        assert row["score"] == score[i] and row["dis_score"] == dis[i]
        assert [row[k] for k in KEYS] == [str(x[k].iloc[i]) for k in KEYS]
    # the highest scores, highest first
    assert [r["score"] for r in top] == sorted(score, reverse=True)[:7]


def test_demo_distance_risk_equals_the_library(demo_json, demo):
    x, xm = demo
    d = demo_json["distance"]
    assert d["variables"] == NUM and d["masked"]["n_records"] == len(xm)
    assert d["d_risk"]["status"] == "ok" and d["d_risk"]["k"] == 0.05
    assert d["d_risk"]["value"] == pysdc.d_risk(x[NUM], xm[NUM])
    with pytest.warns(pysdc.DegenerateResultWarning, match="missing values"):
        r = pysdc.d_risk_rmd(x[NUM], xm[NUM], random_state=3)
    m = d["d_risk_rmd"]
    assert [m[f] for f in ("risk1", "risk2", "wrisk1", "wrisk2")] == [r.risk1, r.risk2, r.wrisk1, r.wrisk2]
    assert (m["n_risk1"], m["n_risk2"], m["random_state"]) == (len(r.index_risk1), len(r.index_risk2), 3)
    # the demo's numeric variables have missing values: sdcMicro's dRiskRMD is 0 there, and the report says why
    warned = [w for w in demo_json["warnings"] if "dRiskRMD" in w["where"]]
    assert warned and warned[0]["category"] == "DegenerateResultWarning"
    assert set(demo_json["provenance"]) >= {"distance.d_risk", "distance.d_risk_rmd", "suda2.attribute_contributions",
                                            "k_anonymity.violations"}


def test_demo_text_has_the_new_sections_within_100_columns(capsys, demo):
    x, xm = demo
    code, out, err = run(capsys, "risk", "--demo", "--numeric", ",".join(NUM), "--random-state", "3", "--top", "4")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 100
    for words in ("k-anonymity violations (sdcMicro's kAnon_violations", "5-anonymity",
                  "records with Fk < k (weighted)", "SUDA2 special uniques on the key variables (sdcMicro's suda2)",
                  "sdcMicro's attribute_contributions", "Highest SUDA scores (top 4",
                  "Distance risk of the masked continuous variables (sdcMicro's dRisk, dRiskRMD)",
                  "demo_masked.csv.gz", "random_state=3", "x has missing values"):
        assert words in out, words
    ref = pysdc.suda2(x, KEYS).attribute_contributions
    for var, c in zip(ref["variable"], ref["contribution"]):
        assert any(line.split()[:2] == [var, f"{c:.4g}"] for line in out.splitlines()), var
    k5 = pysdc.k_anon_violations(x, KEYS, k=5)
    assert any(line.split()[:2] == ["5-anonymity", str(int(k5))] for line in out.splitlines())
    dr = pysdc.d_risk(x[NUM], xm[NUM])
    assert any(line.split()[:2] == ["dRisk", f"{dr:.6g}"] for line in out.splitlines())
    md = to_markdown(json.loads(run(capsys, "risk", "--demo", "--numeric", ",".join(NUM), "--json")[1]))
    assert f"| records with fk < 5 | {int(k5)} |" in md and "| dRisk |" in md


def test_demo_masked_release_keys_and_distance_against_the_original(capsys, demo):
    x, xm = demo
    rep = run_json(capsys, "risk", "--demo", "--masked", "--numeric", "income,savings", "--drisk-k", "0.2",
                   "--no-suda")
    assert "demo_masked" in rep["data"]["path"]
    assert rep["k_anonymity"]["violations"][0]["unweighted"] == pysdc.k_anon_violations(xm, KEYS, k=2)
    assert rep["distance"]["d_risk"]["value"] == pysdc.d_risk(x[["income", "savings"]], xm[["income", "savings"]],
                                                              k=0.2)
    assert rep["suda2"]["status"] == "skipped" and "--no-suda" in rep["suda2"]["error"]
    code, out, _ = run(capsys, "risk", "--demo", "--no-suda")
    assert code == 0 and "--no-suda" in out and "Highest SUDA scores" not in out


# --------------------------------------------------------------------------- files

def test_files_drisk_rmd_flags_records_as_the_library_does(capsys, pair):
    x, xm, orig, masked = pair
    rep = run_json(capsys, "risk", orig, "--keys", "a,b,c", "--numeric", "u,v,t", "--masked", masked,
                   "--random-state", "5", "--drisk-k", "0.1")
    cols = ["u", "v", "t"]
    r = pysdc.d_risk_rmd(x[cols], xm[cols], random_state=5)
    m = rep["distance"]["d_risk_rmd"]
    assert r.risk1 > 0 and m["n_risk1"] == len(r.index_risk1) > 0
    assert m["n_risk2"] == len(r.index_risk2)
    np.testing.assert_array_equal([m[f] for f in ("risk1", "risk2", "wrisk1", "wrisk2")],
                                  [r.risk1, r.risk2, r.wrisk1, r.wrisk2])
    assert rep["distance"]["d_risk"]["value"] == pysdc.d_risk(x[cols], xm[cols], k=0.1)
    # no weight: the weighted counts are absent, not invented
    assert all(v["weighted"] is None for v in rep["k_anonymity"]["violations"])
    with pytest.warns(pysdc.DegenerateResultWarning, match="DIS-SUDA scores are NaN"):
        ref = pysdc.suda2(x, ["a", "b", "c"])  # few sample uniques: sdcMicro's DIS-SUDA gives NaN
    dis = np.asarray(ref.dis_score)
    assert rep["suda2"]["dis_score"]["n_missing"] == int(np.isnan(dis).sum()) > 0
    assert rep["suda2"]["dis_score"]["quantiles"]["100%"] == np.nanmax(dis)
    assert rep["suda2"]["score"]["n_positive"] == int((np.asarray(ref.score) > 0).sum())
    code, out, _ = run(capsys, "risk", orig, "--keys", "a,b,c", "--numeric", "u,v,t", "--masked", masked,
                       "--random-state", "5")
    assert code == 0 and f"{len(r.index_risk1)} records flagged" in out and "NaN (as in sdcMicro)" in out
    assert "needs --weight" in out and max(len(line) for line in out.splitlines()) <= 100


def test_two_keys_run_as_sdcmicro_does_with_the_warning_shown(capsys, pair):
    x, _, orig, _ = pair
    code, out, err = run(capsys, "risk", orig, "--keys", "a,b")
    assert code == 0
    assert "SUDA2 special uniques" in out and "constant dummy variables" in out and "constant dummy" in err
    rep = run_json(capsys, "risk", orig, "--keys", "a,b")
    assert rep["suda2"]["dummy_keys"] == 1
    with pytest.warns(pysdc.DegenerateResultWarning):
        ref = pysdc.suda2(x, ["a", "b"])
    assert rep["suda2"]["score"]["n_positive"] == int((np.asarray(ref.score) > 0).sum())
    assert any(w["where"] == ["suda2"] and w["category"] == "DegenerateResultWarning" for w in rep["warnings"])


def test_one_key_reports_suda2_as_not_computed_with_sdcmicros_reason(capsys, pair):
    _, _, orig, _ = pair
    rep = run_json(capsys, "risk", orig, "--keys", "a")
    assert rep["suda2"]["status"] == "error" and "at least 2" in rep["suda2"]["error"]
    assert rep["k_anonymity"]["violations"][0]["k"] == 2


# --------------------------------------------------------------------------- errors: exit 2, one line

@pytest.mark.parametrize("extra, words", [
    (["--numeric", "u,v"], "--numeric needs the masked file"),
    (["--masked", "MASKED"], "--masked MASKED needs the continuous variables"),
    (["--masked"], "--masked needs a file MASKED"),
    (["--numeric", "u,nope", "--masked", "MASKED"], "'nope'"),
    (["--numeric", "u,v", "--masked", "SHORT"], "MASKED has 299"),
    (["--numeric", "u,v", "--masked", "no_such.csv"], "does not exist"),
    (["--numeric", "u,v", "--masked", "MASKED", "--drisk-k", "nan"], "--drisk-k"),
    (["--numeric", "u,v", "--masked", "MASKED", "--random-state", "-1"], "--random-state"),
    (["--numeric", "u,,v", "--masked", "MASKED"], "--numeric"),
])
def test_errors_exit_2_with_one_line(capsys, pair, tmp_path, extra, words):
    _, xm, orig, masked = pair
    write_table(xm.iloc[:-1], tmp_path / "short.csv")
    extra = [masked if e == "MASKED" else str(tmp_path / "short.csv") if e == "SHORT" else e for e in extra]
    code, out, err = run(capsys, "risk", orig, "--keys", "a,b,c", *extra)
    assert code == 2 and _one_error_line(err) and words in err, err
    assert out == ""


def test_masked_file_lacking_a_numeric_column_and_demo_with_a_file(capsys, pair, tmp_path):
    x, xm, orig, _ = pair
    write_table(xm.drop(columns="v"), tmp_path / "m2.csv")
    code, _, err = run(capsys, "risk", orig, "--keys", "a,b", "--numeric", "u,v", "--masked", str(tmp_path / "m2.csv"))
    assert code == 2 and _one_error_line(err) and "MASKED does not have" in err
    code, _, err = run(capsys, "risk", "--demo", "--masked", str(tmp_path / "m2.csv"))
    assert code == 2 and _one_error_line(err) and "with --demo, --masked takes no file" in err
