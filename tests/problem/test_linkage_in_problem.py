"""The record-linkage measures in the assessment (issue 27 item 4): ``SdcProblem.risk(masked=...)`` computes
nn_linkage, record_linkage and prob_linkage on the problem's numeric variables against the masked file, the
``pysdc-risk-1`` model carries them in ``linkage`` (schema-checked), ``pysdc risk --numeric --masked`` and the
text / HTML renderers show them -- with the numbers of the measures called directly on the same records; the
global matching is skipped, with its reason, above ``record_linkage_max`` records unless forced.
"""

from __future__ import annotations

import contextlib
import html as html_lib
import io
import json
import re
import warnings

import jsonschema
import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._registry import assessed, by_python_name
from pysdc.cli import main
from pysdc.problem import RISK_SCHEMA, SdcProblem, html_report
from pysdc.report import jsonable, risk_text

NUMS = ["inc", "exp", "sav"]
LINKAGE = tuple(m.python for m in assessed("linkage"))  # the registry's, not a hand list (adding one joins them)


def _pair(n=300, seed=5, missing=True):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({
        "k": rng.integers(1, 5, n),
        "t": rng.choice(["a", "b", "c"], n).astype(object),
        "inc": np.round(rng.lognormal(7.0, 0.6, n), 2),
        "exp": np.round(rng.lognormal(6.5, 0.5, n), 2),
        "sav": np.round(rng.normal(100.0, 30.0, n), 1),
    })
    xm = x.copy()
    for v in NUMS:
        xm[v] = np.round(x[v] * rng.normal(1.0, 0.08, n), 2)
    if missing:  # a record missing in the original, another in the masked file: both left out
        x.loc[3, "inc"] = np.nan
        xm.loc[7, "sav"] = np.nan
    return x, xm


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _complete(x, xm):
    keep = (x[NUMS].notna().all(axis=1) & xm[NUMS].notna().all(axis=1)).to_numpy()
    return x.loc[keep, NUMS].reset_index(drop=True), xm.loc[keep, NUMS].reset_index(drop=True)


def _direct(x, xm):
    a, b = _complete(x, xm)
    return {"nn_linkage": _quiet(pysdc.nn_linkage, a, b, NUMS), "record_linkage": _quiet(pysdc.record_linkage, a, b, NUMS),
            "prob_linkage": _quiet(pysdc.prob_linkage, a, b, NUMS)}


def _check_numbers(lk: dict, direct: dict) -> None:
    ms = lk["measures"]
    nn, rl, pl = direct["nn_linkage"], direct["record_linkage"], direct["prob_linkage"]
    assert ms["nn_linkage"]["status"] == "ok"
    assert ms["nn_linkage"]["rate"] == nn.rate and ms["nn_linkage"]["rate_second"] == nn.rate_second
    assert ms["record_linkage"]["status"] == "ok"
    assert ms["record_linkage"]["correct_matches"] == rl.correct_matches
    assert ms["record_linkage"]["correct_match_rate"] == rl.correct_match_rate
    assert ms["record_linkage"]["correct_matches_min"] == rl.correct_matches_min
    assert ms["prob_linkage"]["status"] == "ok"
    assert ms["prob_linkage"]["linked_pairs"] == pl.linked_pairs and ms["prob_linkage"]["risk"] == pl.risk
    assert ms["prob_linkage"]["precision"] == pl.precision or (np.isnan(pl.precision)
                                                              and np.isnan(ms["prob_linkage"]["precision"]))


@pytest.fixture(scope="module")
def pair():
    return _pair()


@pytest.fixture(scope="module")
def direct(pair):
    return _direct(*pair)


@pytest.fixture(scope="module")
def files(tmp_path_factory, pair):
    d = tmp_path_factory.mktemp("linkage")
    x, xm = pair
    x.to_csv(d / "x.csv", index=False)
    xm.to_csv(d / "xm.csv", index=False)
    return str(d / "x.csv"), str(d / "xm.csv")


def _cli(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------- the problem


def test_problem_risk_has_the_measures_numbers(pair, direct):
    x, xm = pair
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    r = _quiet(p.risk, masked=xm, suda=False)
    assert set(r.linkage["results"]) == set(LINKAGE)
    assert r.linkage["n_records"] == len(x) - 2 and r.linkage["n_left_out"] == 2
    model = json.loads(json.dumps(jsonable(r.to_dict())))
    jsonschema.validate(model, RISK_SCHEMA)
    lk = r.to_dict()["linkage"]
    assert lk["variables"] == NUMS and lk["n_records"] == len(x) - 2 and lk["n_left_out"] == 2
    _check_numbers(lk, direct)
    # the model's value of each measure is its headline number
    assert lk["measures"]["nn_linkage"]["value"] == direct["nn_linkage"].rate
    assert lk["measures"]["prob_linkage"]["risk"] == direct["prob_linkage"].risk


def test_no_masked_no_linkage_and_it_can_be_turned_off(pair):
    x, xm = pair
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    assert _quiet(p.risk, suda=False).to_dict()["linkage"] is None
    assert _quiet(p.risk, masked=xm, suda=False, linkage=False).linkage is None
    assert _quiet(SdcProblem(x, ["k", "t"]).risk, masked=xm, suda=False).linkage is None  # no numeric variables


def test_the_cap_skips_record_linkage_with_its_reason_and_can_be_forced(pair, direct):
    x, xm = pair
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    lk = _quiet(p.risk, masked=xm, suda=False, record_linkage_max=100).to_dict()["linkage"]
    rl = lk["measures"]["record_linkage"]
    assert rl["status"] == "skipped" and rl["value"] is None
    assert f"{len(x) - 2} records, above record_linkage_max=100" in rl["error"]
    assert "O(n^2) memory" in rl["error"] and "--force-record-linkage" in rl["error"]
    assert lk["measures"]["nn_linkage"]["status"] == "ok" and lk["measures"]["prob_linkage"]["status"] == "ok"
    forced = _quiet(p.risk, masked=xm, suda=False, record_linkage_max=None).to_dict()["linkage"]
    _check_numbers(forced, direct)
    with pytest.raises(pysdc.InvalidParameterError, match="record_linkage_max"):
        _quiet(p.risk, masked=xm, suda=False, record_linkage_max=-1)


def test_a_refused_measure_is_an_error_entry_not_a_crash():
    x, xm = _pair(n=40, missing=False)
    x.loc[0, "sav"] = np.inf  # not missing, so kept; nn_linkage's k-d tree refuses it
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    lk = _quiet(p.risk, masked=xm, suda=False).to_dict()["linkage"]
    for name in ("nn_linkage",):
        with pytest.raises(pysdc.PysdcError) as exc:
            _quiet(getattr(pysdc, name), x[NUMS], xm[NUMS], NUMS)
        assert lk["measures"][name]["status"] == "error" and lk["measures"][name]["value"] is None
        assert lk["measures"][name]["error"] == " ".join(str(exc.value).split())


# ---------------------------------------------------------------------------------------------- renderers


def test_text_shows_numbers_descriptions_and_attackers(pair, direct):
    x, xm = pair
    r = _quiet(SdcProblem(x, ["k", "t"], num_vars=NUMS).risk, masked=xm, suda=False)
    text = risk_text(r.to_dict())
    assert "Record linkage of the masked continuous variables" in text
    flat = " ".join(text.split())
    for name in LINKAGE:
        m = by_python_name(name)
        assert " ".join(m.attacker.split()) in flat and " ".join(m.description.split()) in flat
    assert f"{direct['record_linkage'].correct_matches} correct matches" in flat
    assert "2 left out for a missing value" in flat


def test_html_report_has_the_record_linkage_section(pair, direct):
    x, xm = pair
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    doc = _quiet(html_report, p, xm, plots=False, random_state=1)
    m = re.search(r'<section id="linkage"><h2>Record linkage</h2>(.*?)</section>', doc, re.S)
    assert m, "no Record linkage section"
    body = m.group(1)
    text = html_lib.unescape(body)
    for name in LINKAGE:
        mm = by_python_name(name)
        assert mm.attacker in text and mm.description in text
    assert f"<td>record_linkage correct_matches</td><td class=\"num\">{direct['record_linkage'].correct_matches}" \
        in body
    assert f"<td>prob_linkage linked_pairs</td><td class=\"num\">{direct['prob_linkage'].linked_pairs}" in body
    no_masked = _quiet(html_report, p, plots=False)
    assert "Not computed: record linkage needs" in re.search(r'<section id="linkage">(.*?)</section>', no_masked,
                                                             re.S).group(1)


# ---------------------------------------------------------------------------------------------- the command


def test_cli_json_and_text(files, pair, direct):
    xp, xmp = files
    model = json.loads(_cli(["risk", xp, "--keys", "k,t", "--numeric", ",".join(NUMS), "--masked", xmp,
                             "--no-suda", "--json", "--engine", "pandas"]))
    jsonschema.validate(model, RISK_SCHEMA)
    lk = model["linkage"]
    assert lk["masked"]["path"] == xmp and lk["n_left_out"] == 2
    _check_numbers(lk, direct)
    text = _cli(["risk", xp, "--keys", "k,t", "--numeric", ",".join(NUMS), "--masked", xmp, "--no-suda",
                 "--engine", "pandas"])
    assert "Record linkage of the masked continuous variables" in text and "nn_linkage rate" in text


def test_cli_cap_and_force(tmp_path):
    x, xm = _pair(n=3010, seed=9, missing=False)
    x.to_csv(tmp_path / "x.csv", index=False)
    xm.to_csv(tmp_path / "xm.csv", index=False)
    argv = ["risk", str(tmp_path / "x.csv"), "--keys", "k,t", "--numeric", ",".join(NUMS), "--masked",
            str(tmp_path / "xm.csv"), "--no-suda", "--json", "--engine", "pandas"]
    rl = json.loads(_cli(argv))["linkage"]["measures"]["record_linkage"]
    assert rl["status"] == "skipped" and "3010 records, above record_linkage_max=3000" in rl["error"]
    assert "--force-record-linkage" in rl["error"]


@pytest.mark.duckdb
def test_engine_path_says_plainly(tmp_path):
    x, xm = _pair(n=50, missing=False)
    x.to_parquet(tmp_path / "x.parquet", index=False)
    model = json.loads(_cli(["risk", str(tmp_path / "x.parquet"), "--keys", "k,t", "--no-suda", "--json",
                             "--engine", "duckdb"]))
    jsonschema.validate(model, RISK_SCHEMA)
    for name in LINKAGE:
        e = model["linkage"]["measures"][name]
        assert e["status"] == "skipped" and "needs the records in memory" in e["error"] and "duckdb" in e["error"]
        assert by_python_name(name).no_engine in e["error"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["risk", str(tmp_path / "x.parquet"), "--keys", "k,t", "--numeric", "inc", "--masked",
                   str(tmp_path / "x.parquet"), "--engine", "duckdb"])
    assert rc != 0 and "record-linkage measures" in buf.getvalue() and "needs the records in memory" in buf.getvalue()


# ---------------------------------------------------------------------------------------------- a problem as x


def test_a_problem_in_x_fills_y_by_its_declaration():
    # the linkage measures name their protected frame y (declared second="y"): a problem in x cuts y, too, to
    # the problem's key and numeric variables (selects="variables"); before the declaration y was left whole
    x, xm = _pair(n=80, missing=False)
    xm["extra"] = 1.0
    p = SdcProblem(x, ["k", "t"], num_vars=NUMS)
    cols = ["k", "t", *NUMS]
    for name in LINKAGE:
        fn = getattr(pysdc, name)
        assert pysdc._foreign.declared_measure(fn).second == "y"
        got = _quiet(fn, p, xm, NUMS)
        want = _quiet(fn, x[cols], xm[cols], NUMS)
        assert float(got) == float(want) or (np.isnan(float(got)) and np.isnan(float(want)))
    with pytest.raises(pysdc.InvalidParameterError, match="y lacks the variable"):
        pysdc.nn_linkage(p, xm[NUMS], NUMS)
