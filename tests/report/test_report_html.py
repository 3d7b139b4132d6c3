"""The HTML report (pysdc.report._html, SdcProblem.report, ``pysdc report``): self-contained, every section
present, the problem's numbers in it, sdcMicro's and the literature's numbers marked -- and rendered by a real
browser (headless Chromium)."""

from __future__ import annotations

import html as html_lib
import importlib.util
import re
import subprocess
import sys

import numpy as np
import pytest

import pysdc
from pysdc import SdcProblem
from pysdc._format import fmt
from pysdc.cli import main
from pysdc.problem import html_report
from pysdc.report import SDCMICRO_REFERENCE, SECTIONS

from _live import chromium_path

KEYS = ["region", "urbrur", "sex", "age_group", "education"]
NUMS = ["income", "expenditure", "savings"]
HAS_MPL = importlib.util.find_spec("matplotlib") is not None


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo_pair()


@pytest.fixture(scope="module")
def problem(demo):
    return SdcProblem(demo[0], KEYS, num_vars=NUMS, w="weight", hid="hid", sensitive=["health_status"])


@pytest.fixture(scope="module")
def full(problem, demo):
    return html_report(problem, demo[1], random_state=1, regression="log(income) ~ age_group + sex + education",
                       regression_where="income > 0")


def _section(doc: str, sid: str) -> str:
    m = re.search(rf'<section id="{sid}">(.*?)</section>', doc, re.S)
    assert m, f"section {sid} missing"
    return m.group(1)


def test_every_section_is_present_and_nothing_is_fetched(full):
    for sid, heading in SECTIONS:
        body = _section(full, sid)
        assert f"<h2>{html_lib.escape(heading)}</h2>" in body
    # self-contained: no external stylesheet, script, image or font
    assert not re.search(r'(src|href)="(https?:)?//', full)
    assert "<link" not in full and "@import" not in full and "url(" not in full
    assert full.startswith("<!DOCTYPE html>") and full.rstrip().endswith("</html>")


def test_the_problems_numbers_are_in_the_report(full, problem, demo):
    r0, r1 = problem.risk(), problem.risk(data=demo[1])
    risk = _section(full, "risk")
    assert fmt(r0.measure_risk.global_risk_er) in risk and fmt(r1.measure_risk.global_risk_er) in risk
    assert f">{int(r0.k_anonymity.loc[5, 'unweighted'])}<" in risk
    hh = _section(full, "household")
    assert fmt(r0.measure_risk.hier_risk_er) in hh and fmt(r1.measure_risk.hier_risk_er) in hh
    util = _section(full, "utility")
    assert fmt(float(pysdc.d_utility(demo[0][NUMS], demo[1][NUMS], method="IL1s"))) in util
    assert fmt(pysdc.gsil(demo[0][NUMS + KEYS], demo[1][NUMS + KEYS]).value) in util
    per = _section(full, "utility-per-variable")
    ilv = pysdc.il_variables(demo[0][KEYS + NUMS], demo[1][KEYS + NUMS]).per_variable
    assert all(fmt(float(v)) in per for v in ilv)
    # the riskiest combination is the record with the highest individual risk (fk = 1)
    ind = r0.measure_risk.individual
    assert fmt(float(ind["risk"].max())) in _section(full, "riskiest")
    # l-diversity: records whose sensitive variable has a single value in their key combination
    d = r0.ldiversity.table["health_status_Distinct_Ldiversity"].to_numpy(dtype=float)
    assert f">{int(np.sum(d < 2))}<" in _section(full, "ldiversity")
    su = _section(full, "suda2")
    assert f">{int(np.sum(r0.suda2.score > 0))}<" in su


def test_sources_are_marked(full):
    prov = _section(full, "provenance")
    rows = dict(re.findall(r"<tr><td>pysdc\.(\w+)</td>.*?class=\"badge src-(\w+)\"", prov))
    assert rows["measure_risk"] == rows["d_utility"] == rows["suda2"] == rows["il_variables"] == "sdcmicro"
    assert rows["gsil"] == rows["hellinger"] == rows["il_continuous"] == rows["gini"] == "literature"
    util = _section(full, "utility")
    assert re.search(r"<td>IL1s</td>.*?src-sdcmicro", util) and re.search(r"<td>gsil</td><td>score.*?src-literature", util)
    versions = _section(full, "versions")
    for v in (pysdc.__version__, SDCMICRO_REFERENCE, np.__version__, sys.version.split()[0]):
        assert f"<td>{v}</td>" in versions


@pytest.mark.skipif(not HAS_MPL, reason="matplotlib is not installed (pip install 'pysdc-measures[plots]')")
def test_issue13_plots_and_comparisons_appear(full):
    plots = _section(full, "plots")
    for v in NUMS:
        for what in (f"Histogram of {v}", f"Density of {v}", f"Box plots of {v}"):
            assert what in plots
    assert "Mosaic plot of region x urbrur" in plots
    est = _section(full, "estimates")
    assert "mean(income)" in est and "<td>sexfemale</td>" in est and "Coefficients with their intervals" in est
    assert all(src.startswith("data:image/png;base64,") for src in re.findall(r'<img[^>]*src="([^"]+)"', full))
    assert len(re.findall(r"<img ", full)) >= 3 * len(NUMS) + 4


def test_report_without_masked_file(problem):
    doc = html_report(problem, plots=False)
    for sid, _ in SECTIONS:
        _section(doc, sid)
    assert "No masked file was given" in _section(doc, "utility") and "<img" not in doc


def test_report_without_matplotlib(problem, demo, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    doc = html_report(problem, demo[1], random_state=1)
    assert "matplotlib is not installed" in doc and "<img" not in doc
    assert 'class="bar' in _section(doc, "utility-per-variable")  # the bar charts are drawn with CSS
    for sid, _ in SECTIONS:
        _section(doc, sid)


def test_report_method_writes_the_file(problem, demo, tmp_path):
    path = problem.report(demo[1], tmp_path / "r.html", plots=False, random_state=1)
    assert path == tmp_path / "r.html" and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_bad_regression_is_reported_not_raised(problem, demo):
    doc = html_report(problem, demo[1], plots=False, regression="log(income) ~ sex", random_state=1)
    assert "Regression not computed" in _section(doc, "estimates") and "infinite" in _section(doc, "estimates")
    doc = html_report(problem, demo[1], plots=False, regression="income ~ sex", regression_where="income >",
                      random_state=1)
    assert "cannot be evaluated" in _section(doc, "estimates")


# ---------------------------------------------------------------------------------------------- the command


def test_cli_demo(tmp_path, capsys):
    out = tmp_path / "demo.html"
    assert main(["report", "--demo", "--output", str(out), "--random-state", "1", "--no-plots"]) == 0
    doc = out.read_text(encoding="utf-8")
    assert "demo.csv.gz (pysdc&#x27;s demo data)" in doc and "wrote" in capsys.readouterr().out
    for sid, _ in SECTIONS:
        _section(doc, sid)


def test_cli_files(tmp_path, capsys):
    from pysdc.datasets import demo_path

    out = tmp_path / "files.html"
    rc = main(["report", str(demo_path(False)), str(demo_path(True)), "--keys", "region,sex,age_group",
               "--num", "income", "--weight", "weight", "--hid", "hid", "--sensitive", "health_status",
               "--estimate", "median(income)", "--no-plots", "-o", str(out)])
    assert rc == 0
    doc = out.read_text(encoding="utf-8")
    assert "median(income)" in _section(doc, "estimates")
    x = pysdc.load_demo()
    assert fmt(pysdc.measure_risk(x, ["region", "sex", "age_group"], w="weight", hid="hid").global_risk_er) in doc
    # errors: one line, exit 2, the command's flags named
    assert main(["report", str(demo_path(False)), "-o", str(out)]) == 2
    assert "needs the key variables: --keys" in capsys.readouterr().err
    assert main(["report", str(demo_path(False)), "--keys", "region,nope", "-o", str(out)]) == 2
    assert "--keys: please specify valid column-names! ['nope']" in capsys.readouterr().err
    assert main(["report", str(demo_path(False)), "--keys", "region", "--regression", "income ~ sex",
                 "-o", str(out)]) == 2
    assert "give MASKED" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- a real browser


def _browser(exe: str, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-extensions",
             "--no-first-run", "--disable-dev-shm-usage"]
    return subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def rendered(full, tmp_path_factory):
    exe = chromium_path()
    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(full, encoding="utf-8")
    res = _browser(exe, "--dump-dom", path.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    return exe, path, res.stdout


@pytest.mark.chromium
def test_chromium_renders_every_section(rendered):
    _, _, dom = rendered
    for sid, heading in SECTIONS:
        m = re.search(rf'<section id="{sid}"><h2>([^<]*)</h2>(.*?)</section>', dom, re.S)
        assert m, f"section {sid} not in the rendered DOM"
        assert html_lib.unescape(m.group(1)) == heading and len(m.group(2)) > 20
    # the page's load handler ran (scripts executed) and counted the decoded images
    body = re.search(r"<body([^>]*)>", dom).group(1)
    n = int(re.search(r'data-images="(\d+)"', body).group(1))
    ok = int(re.search(r'data-images-ok="(\d+)"', body).group(1))
    assert n == ok
    if HAS_MPL:
        assert n >= 3 * len(NUMS) + 4


@pytest.mark.chromium
def test_chromium_screenshot(rendered, tmp_path):
    exe, path, _ = rendered
    shot = tmp_path / "shot.png"
    res = _browser(exe, f"--screenshot={shot}", "--window-size=1280,4000", "--hide-scrollbars", path.as_uri())
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a drawn page, not a blank one



# ------------------------------------------------------------------------------ the Markdown/HTML fragments


def test_markup_shows_NA_and_each_k_anonymity_count_once(demo):
    """The model's fragments (pysdc.report.to_markdown / to_html) read a missing value (JSON null) as NA, as the
    report and R do (it was "-"), and show the counts of records violating k-anonymity once (kAnon_violations'
    rows; the same numbers appeared twice)."""
    import json

    from pysdc._format import jsonable
    from pysdc.report import to_html, to_markdown

    x = demo[0]
    res = SdcProblem(x, KEYS, w="weight").risk(max_global_risk=0.99, suda=False)
    rep = json.loads(json.dumps(jsonable(res.to_dict())))
    assert rep["global"]["threshold"] is None  # the target is already met: sdcMicro's threshold is NA
    md = to_markdown(rep)
    assert "| threshold | NA |" in md and "| - |" not in md
    for k in (2, 3):
        lines = [ln for ln in md.splitlines() if f"fk < {k} " in ln or f"{k}-anonymity" in ln]
        assert len(lines) == 1, lines
        assert f"| {int(pysdc.k_anon_violations(x, KEYS, k=k))} |" in lines[0]
    assert "<td>threshold</td><td>NA</td>" in to_html(rep)
