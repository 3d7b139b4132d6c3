"""No user string is evaluated with access to Python (issue 23, items 1 and 9).

``regression_where`` used to go to ``DataFrame.eval``, where ``@name`` reaches the module's variables, so
``@pd.io.common.os.system(...)`` ran a shell command; the formula parsers recursed without a limit
(``RecursionError`` on 1,000 nested parentheses) and expanded ``(26 variables)^26`` term by term for hours.
Each attack is tried here through the public routes (``pysdc report`` in a subprocess, ``SdcProblem.report``,
``compare_regression``, ``mod_risk``); the accepted conditions are checked against pandas boolean expressions
written out independently in this file.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc import InvalidParameterError, SdcProblem

ATTACK = "@pd.io.common.os.system('touch {marker}') == 0"


@contextlib.contextmanager
def within(seconds: float):
    """Fail (instead of hanging) when the block runs longer than ``seconds`` (pure-Python loops are interrupted)."""

    def stop(signum, frame):
        raise AssertionError(f"still running after {seconds} s: the work is not bounded")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def frames():
    """A small original/masked pair with missing values in every kind of column."""
    rng = np.random.default_rng(23)
    n = 240
    x = pd.DataFrame({
        "region": pd.Categorical(rng.choice(["A", "B", "C"], n)),
        "sex": rng.choice(["female", "male"], n).astype(object),
        "hhsize": rng.integers(1, 6, n),
        "income": rng.gamma(2.0, 300.0, n).round(2),
        "expenditure": rng.gamma(2.0, 200.0, n).round(2),
        "w": rng.uniform(50, 150, n).round(3),
    })
    x.loc[rng.choice(n, 40, replace=False), "income"] = 0.0
    x.loc[rng.choice(n, 15, replace=False), "income"] = np.nan
    x.loc[rng.choice(n, 10, replace=False), "sex"] = None
    x.loc[rng.choice(n, 10, replace=False), "region"] = np.nan
    x["flag"] = pd.array(rng.choice([True, False], n), dtype="boolean")
    x.loc[rng.choice(n, 12, replace=False), "flag"] = pd.NA
    x["my col"] = x["income"] * 2
    x["age.group"] = rng.choice(["0-29", "30-39", "40+"], n)
    xm = x.copy()
    xm["income"] = (x["income"] * rng.uniform(0.9, 1.1, n)).round(2)
    xm["expenditure"] = (x["expenditure"] * rng.uniform(0.9, 1.1, n)).round(2)
    return x, xm


@pytest.fixture(scope="module")
def problem(frames):
    return SdcProblem(frames[0], ["region", "sex"], num_vars=["income", "expenditure"], w="w")


# ------------------------------------------------------------------------------------------ the attacks


def test_cli_attack_runs_nothing_and_writes_nothing(tmp_path):
    marker, out = tmp_path / "pwned", tmp_path / "r.html"
    res = subprocess.run(
        [sys.executable, "-m", "pysdc", "report", "--demo", "--no-plots", "--regression", "log(income + 1) ~ sex",
         "--regression-where", ATTACK.format(marker=marker), "--output", str(out)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert not marker.exists(), "the condition ran a shell command"
    assert res.returncode == 2, res.stderr
    assert not out.exists()
    assert res.stderr.startswith("pysdc: error: regression_where"), res.stderr
    assert "'@'" in res.stderr and "Traceback" not in res.stderr


ATTACKS = [
    # (condition, a fragment the message must name)
    (ATTACK, "'@'"),
    ("@os", "'@'"),
    ("__import__('os').system('touch {marker}') == 0", "__import__"),
    ("income.__class__.__bases__[0].__subclasses__()", "__class__"),
    ("pd.io.common.os.system('touch {marker}') == 0", "pd.io.common.os.system"),
    ("income.real.imag > 0", "income.real.imag"),
    ("getattr(income, 'real') > 0", "getattr"),
    ("open('{marker}', 'w') == 0", "open"),
    ("eval('1') == 1", "eval"),
    ("(lambda: 1)() == 1", "lambda"),
    ("income if True else 0", "if"),
    ("[c for c in income] == 0", "for"),
    ("import os", "import"),
    ("income ** 2 > 0", "**"),
    ("income; 1", "';'"),
    ("x = 1", "'='"),
]


@pytest.mark.parametrize("where,named", ATTACKS, ids=[a[0][:30] for a in ATTACKS])
def test_report_refuses_before_any_work(problem, frames, tmp_path, where, named):
    marker, out = tmp_path / "pwned", tmp_path / "r.html"
    with pytest.raises(InvalidParameterError) as err:
        problem.report(frames[1], out, plots=False, regression="income ~ sex", regression_where=where.format(
            marker=marker))
    assert named in str(err.value) and "regression_where" in str(err.value)
    assert not marker.exists() and not out.exists() and list(tmp_path.iterdir()) == []


def test_report_attack_via_sdcproblem_report_names_the_token(problem, frames, tmp_path):
    marker, out = tmp_path / "pwned", tmp_path / "r.html"
    with pytest.raises(InvalidParameterError, match=r"'@' \(pandas' local variables\) at position 0 is not accepted"):
        problem.report(frames[1], out, plots=False, regression="log(income + 1) ~ sex",
                       regression_where=ATTACK.format(marker=marker))
    assert not marker.exists() and not out.exists()


def test_nothing_reaches_python_eval(problem, frames, monkeypatch):
    """The accepted language is evaluated without pandas' eval/query (which resolve '@' names)."""
    from pysdc.problem import html_report

    def forbidden(*args, **kwargs):
        raise AssertionError("a condition reached eval")

    monkeypatch.setattr(pd.DataFrame, "eval", forbidden)
    monkeypatch.setattr(pd.DataFrame, "query", forbidden)
    monkeypatch.setattr(pd, "eval", forbidden)
    x, xm = frames
    where = "!is.na(income) & income > 0 & region %in% c('A', 'B')"
    doc = html_report(problem, xm, plots=False, regression="log(income) ~ sex", regression_where=where,
                      estimates=[])
    nx = int((x["income"].notna() & (x["income"] > 0) & x["region"].isin(["A", "B"])).sum())
    nxm = int((xm["income"].notna() & (xm["income"] > 0) & xm["region"].isin(["A", "B"])).sum())
    assert html.escape(f"records where {where}: {nx} original, {nxm} masked") in doc
    assert "Regression not computed" not in doc


def test_condition_errors_that_are_not_refusals_stay_notes(problem, frames):
    """A condition that is merely wrong for the data (unknown column) is reported where the regression would be."""
    from pysdc.problem import html_report

    doc = html_report(problem, frames[1], plots=False, regression="income ~ sex", regression_where="incme > 0",
                      estimates=[])
    assert "Regression not computed" in doc and "cannot be evaluated on x" in doc
    assert "&#x27;incme&#x27; is not a column of the data" in doc


# ------------------------------------------------------------------------------- limits (conditions)


def test_condition_depth_limit(frames):
    from pysdc.problem._assess import _where

    deep = "(" * 1000 + "income > 0" + ")" * 1000
    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        _where(frames[0], deep, "x")
    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        _where(frames[0], "not " * 1000 + "income > 0", "x")
    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        _where(frames[0], "-" * 1000 + "income < 0", "x")
    shallow = "(" * 50 + "income > 0" + ")" * 50
    assert len(_where(frames[0], shallow, "x")) == int((frames[0]["income"] > 0).sum())


def test_condition_size_limit(frames):
    from pysdc.problem._assess import _where

    with within(20):
        with pytest.raises(InvalidParameterError, match="more than 10000 elements"):
            _where(frames[0], " & ".join(["income > 0"] * 4000), "x")
    long_ok = " | ".join(f"hhsize == {i}" for i in range(1000))
    assert len(_where(frames[0], long_ok, "x")) == len(frames[0])


# --------------------------------------------------------------------------------- limits (formulae)

DEEP = "(" * 1000 + "a" + ")" * 1000


def test_formula_depth_limit():
    from pysdc.core.formula import parse_formula
    from pysdc.core.rformula_lm import parse_regression_formula

    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        parse_formula("~ " + DEEP)
    for text in ("y ~ " + DEEP, "y ~ " + "-" * 1000 + "1", "y ~ I(" + "-" * 1000 + "a)", "y ~ a" + "^1" * 1000,
                 "y ~ " + "log(" * 1000 + "a" + ")" * 1000):
        with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
            parse_regression_formula(text)
    assert parse_formula("~ " + "(" * 50 + "a" + ")" * 50).labels == ["a"]


def test_formula_depth_limit_through_the_public_functions(frames):
    x, xm = frames
    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        pysdc.compare_regression(x, xm, "income ~ " + "(" * 1000 + "hhsize" + ")" * 1000)
    with pytest.raises(InvalidParameterError, match="nested more than 50 levels deep"):
        pysdc.mod_risk(x, "~ region + " + "(" * 1000 + "sex" + ")" * 1000, w="w")


def test_long_sums_do_not_recurse():
    """A flat sum of 1,500 terms nests 1,500 deep to the left: it is folded, not recursed."""
    from pysdc.core.formula import parse_formula
    from pysdc.core.rformula_lm import parse_regression_formula

    names = [f"x{i}" for i in range(1500)]
    assert parse_regression_formula("y ~ " + " + ".join(names)).formula.labels == names
    assert parse_formula("~ " + " + ".join(names)).labels == names
    rf = parse_regression_formula("y ~ I(" + " + ".join(["a"] * 1500) + ")")
    assert list(rf.variables)[1] == "I(" + " + ".join(["a"] * 1500) + ")"


def test_formula_numbers_out_of_range_are_refused_not_crashed():
    from pysdc.core.formula import parse_formula
    from pysdc.core.rformula_lm import parse_regression_formula

    with pytest.raises(InvalidParameterError, match="is not a term"):
        parse_formula("~ a + " + "1" * 5000)
    assert parse_formula("~ (a + b)^" + "1" * 5000).labels == ["a", "b", "a:b"]  # R: ^k past 2 adds nothing
    with pytest.raises(InvalidParameterError, match="positive integer"):
        parse_regression_formula("y ~ (a + b)^1e999")
    assert parse_regression_formula("y ~ I(a + 1e999)").formula.labels == ["I(a + Inf)"]  # R's deparse


def test_huge_power_in_compare_regression_is_refused_at_once():
    cols = [chr(97 + i) for i in range(26)]
    rng = np.random.default_rng(1)
    d = pd.DataFrame(rng.normal(size=(60, 26)), columns=cols)
    d["yy"] = rng.normal(size=60)
    with within(20), pytest.raises(InvalidParameterError, match=r"67,108,863 terms; pysdc takes at most 5000"):
        pysdc.compare_regression(d, d, "yy ~ (" + " + ".join(cols) + ")^26")


def test_huge_power_in_mod_risk_is_refused_at_once():
    keys = [f"k{i}" for i in range(20)]
    rng = np.random.default_rng(2)
    d = pd.DataFrame({k: rng.choice(["a", "b"], 80) for k in keys})
    d["w"] = 10.0
    with within(20), pytest.raises(InvalidParameterError, match=r"1,048,575 terms; pysdc takes at most 5000"):
        pysdc.mod_risk(d, "~ (" + " + ".join(keys) + ")^20", w="w")


@pytest.mark.parametrize("text", [
    "~ a*b*c*d*e*f*g*h*i*j*k*l*m",  # 8,191 terms by products
    "~ (a+b+c+d+e+f+g+h+i+j+k+l+m)^13",
    "~ (a+b+c+d+e+f+g)^7:(h+i+j+k+l+m+n)^7",  # 127 x 127 interactions
    "~ " + " + ".join(f"x{i}" for i in range(5001)),
], ids=["product", "power", "interaction of powers", "sum"])
def test_term_count_limit(text):
    from pysdc.core.formula import MAX_TERMS, parse_formula
    from pysdc.core.rformula_lm import parse_regression_formula

    assert MAX_TERMS == 5000
    with within(20):
        with pytest.raises(InvalidParameterError, match="pysdc takes at most 5000 terms"):
            parse_formula(text)
        with pytest.raises(InvalidParameterError, match="pysdc takes at most 5000 terms"):
            parse_regression_formula("y " + text)


def test_term_count_limit_counts_distinct_terms():
    """The limit is on the terms R would keep, not on the products written: these stay under it."""
    from pysdc.core.formula import parse_formula
    from pysdc.core.rformula_lm import parse_regression_formula

    v = "+".join("abcdefghijkl")
    with within(30):
        assert len(parse_formula(f"~ ({v})^12").terms) == 4095
        assert len(parse_regression_formula(f"y ~ ({v})^12").formula.terms) == 4095
        v13 = "+".join("abcdefghijklm")
        f = parse_formula(f"~ ({v13})^2*({v13})^2")  # 8,281 products, 1,092 distinct terms
        assert len(f.terms) == 13 + 78 + 286 + 715


# ----------------------------------------------------------------- accepted conditions select the right rows


def _cases(d: pd.DataFrame) -> list:
    inc, sex, reg, hh, flag = d["income"], d["sex"], d["region"], d["hhsize"], d["flag"]
    return [
        ("income > 0", inc > 0),
        ("income > 0 & sex == 'female'", (inc > 0) & (sex == "female")),
        ('income >= 100 | hhsize < 2', (inc >= 100) | (hh < 2)),
        ("not (income > 0)", ~(inc > 0)),
        ("!(income > 0)", ~(inc > 0)),
        ("~(income > 0)", ~(inc > 0)),
        ("income != 0", inc.notna() & (inc != 0)),
        ("sex != 'male'", sex.notna() & (sex != "male")),
        ("isna(income) | income < 10", inc.isna() | (inc < 10)),
        ("notna(sex) and sex != 'male'", sex.notna() & (sex != "male")),
        ("!is.na(income) & region %in% c('A', 'C')", inc.notna() & reg.isin(["A", "C"])),
        ("region in ['A', 'B']", reg.isin(["A", "B"])),
        ("region not in ('A',)", reg.notna() & ~reg.isin(["A"])),
        ("isin(hhsize, [1, 2])", hh.isin([1, 2])),
        ("hhsize.isin([1, 2])", hh.isin([1, 2])),
        ("income.isna()", inc.isna()),
        ("`my col` * 2 - 1 > hhsize / 2", (d["my col"] * 2 - 1) > (hh / 2)),
        ("`age.group` == '30-39'", d["age.group"] == "30-39"),
        ("age.group == '30-39'", d["age.group"] == "30-39"),
        ("1 < hhsize <= 3", (hh > 1) & (hh <= 3)),
        ("flag", flag.fillna(False).astype(bool)),
        ("!flag", ~flag.fillna(False).astype(bool)),
        ("flag == TRUE", flag.fillna(False).astype(bool)),
        ("-income < -100", -inc < -100),
        ("income / hhsize > 50 or sex == 'male' and hhsize > 2",
         (inc / hh > 50) | ((sex == "male") & (hh > 2))),
        ("region == 'A' && hhsize > 1 || income > 500", ((reg == "A") & (hh > 1)) | (inc > 500)),
        ("income > 1e2", inc > 100),
        ('sex == "female"', sex == "female"),
        ("notna(income) & !(income > 0)", inc.notna() & ~(inc > 0)),
        ("TRUE", pd.Series(True, index=d.index)),
        ("income - expenditure > 0 | isnull(expenditure)", (inc - d["expenditure"] > 0) | d["expenditure"].isna()),
    ]


def test_accepted_conditions_select_the_rows_pandas_selects(frames):
    from pysdc.core.condition import parse_condition

    d = frames[0]
    for text, expected in _cases(d):
        got = parse_condition(text, columns=d.columns).evaluate(d)
        want = expected.fillna(False).to_numpy(dtype=bool)
        assert got.dtype == bool and got.shape == (len(d),)
        assert (got == want).all(), (text, int(got.sum()), int(want.sum()))
        assert 0 < want.sum() < len(d) or text == "TRUE", text  # every case discriminates


def test_where_keeps_the_index_and_the_order(frames):
    from pysdc.problem._assess import _where

    d = frames[0].set_index(pd.Index(np.arange(len(frames[0]))[::-1] * 3))
    sub = _where(d, "income > 500 & sex %in% c('female')", "x")
    pd.testing.assert_frame_equal(sub, d[(d["income"] > 500) & (d["sex"] == "female")])


@pytest.mark.parametrize("text,fragment", [
    ("region == 1", "quote the value"),
    ("income == 'a'", "without quotes"),
    ("income", "is not a condition"),
    ("sex + 1 > 0", "needs numbers"),
    ("nosuch > 0", "'nosuch' is not a column"),
    ("income >", "ends too early"),
    ("(income > 0", "expected ')'"),
    ("income in [hhsize]", "literal values only"),
])
def test_wrong_conditions_say_why(frames, text, fragment):
    from pysdc.core.condition import RefusedConditionError, parse_condition

    with pytest.raises(InvalidParameterError, match=re.escape(fragment)) as err:
        parse_condition(text, columns=frames[0].columns).evaluate(frames[0])
    assert not isinstance(err.value, RefusedConditionError)  # mistakes, not refusals: the report keeps them as notes


def test_cli_help_documents_the_language(capsys):
    from pysdc.cli import main

    assert main(["report", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "never run as Python" in out and "%in%" in out and "isna()" in out


def test_no_file_appears_when_the_cli_refuses(tmp_path, capsys):
    """The in-process CLI: exit 2, the message on one line, nothing written."""
    from pysdc.cli import main

    out = tmp_path / "r.html"
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        rc = main(["report", "--demo", "--no-plots", "--regression", "income ~ sex", "--regression-where",
                   "__import__('os').getcwd() != ''", "--output", str(out)])
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert rc == 2 and "__import__" in err and err.startswith("pysdc: error: regression_where")
    assert list(Path(tmp_path).iterdir()) == []
