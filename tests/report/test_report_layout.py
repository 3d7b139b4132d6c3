"""The HTML report as people read it (issue 26, item 1): headless Chromium at 1,400 px and 800 px on the real
eusilc pair (``pysdc report`` as a user runs it).

What was wrong, on the same files: the per-variable and estimates tables overflowed (a note column squeezed to one
character), the navigation bar was cut off behind a horizontal scrollbar of the page, the warnings that explain a
number sat only in a table at the end (and the terminal printed none), a degenerate value carried an sdcMicro badge
and no flag, k-anonymity counts appeared twice, a missing key was "NA" in one table and blank in another, and there
was no plain-language verdict.

Layout is measured in the browser without DevTools: a copy of the report gets a small script that writes the
measurements (``document.documentElement.scrollWidth`` against ``clientWidth``, the boxes of the navigation links)
into an attribute of ``<body>``, and ``chromium --headless --dump-dom`` prints the DOM after the load event.
Screenshots of both widths are saved under the test's ``tmp_path``.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import subprocess
import warnings
from pathlib import Path

import pandas as pd
import pytest

import pysdc
from pysdc import SdcProblem
from pysdc.cli import main
from pysdc.problem import html_report

from _live import chromium_path

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "r_reference" / "inputs"
KEYS = ["db040", "rb090", "age", "pl030", "pb220a"]
NUMS = ["py010n", "hy040n", "hy050n", "eqIncome"]
WIDTHS = (1400, 800)

_PROBE = """<script>window.addEventListener('load',function(){
var de=document.documentElement,vw=de.clientWidth,out={scrollWidth:de.scrollWidth,clientWidth:vw,
innerWidth:window.innerWidth,beyond:[],nav:[],sections:[],flags:[]};
document.querySelectorAll('body *').forEach(function(e){var r=e.getBoundingClientRect();
 if(r.width>0&&r.right>vw+1&&!e.closest('.scroll'))out.beyond.push(e.tagName+(e.id?'#'+e.id:''));});
document.querySelectorAll('nav a').forEach(function(a){var r=a.getBoundingClientRect();
 out.nav.push({text:a.textContent,left:r.left,right:r.right,top:r.top});});
document.querySelectorAll('section').forEach(function(s){out.sections.push({id:s.id,top:s.getBoundingClientRect().top});});
document.querySelectorAll('.flag').forEach(function(f){var r=f.getBoundingClientRect();
 out.flags.push({w:f.getAttribute('data-warning'),width:r.width,height:r.height});});
document.body.setAttribute('data-layout',JSON.stringify(out));});</script>"""


def _browser(*args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-extensions",
             "--no-first-run", "--disable-dev-shm-usage", "--hide-scrollbars"]
    return subprocess.run([chromium_path(), *flags, *args], capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def eusilc_run(tmp_path_factory):
    """``pysdc report`` on the eusilc pair, as the issue ran it: the HTML and what the terminal printed."""
    orig, masked = INPUTS / "eusilc.csv.gz", INPUTS / "eusilc_masked.csv.gz"
    if not orig.exists() or not masked.exists():
        pytest.skip("the eusilc inputs are not in r_reference/inputs")
    out = tmp_path_factory.mktemp("eusilc") / "report.html"
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["report", str(orig), str(masked), "--keys", ",".join(KEYS), "--weight", "rb050", "--hid", "db030",
                   "--num", ",".join(NUMS), "--random-state", "1", "-o", str(out)])
    assert rc == 0, err.getvalue()[-2000:]
    return out, out.read_text(encoding="utf-8"), err.getvalue()


@pytest.fixture(scope="module")
def eusilc(eusilc_run):
    return eusilc_run[0], eusilc_run[1]


def _layout(path: Path, width: int, shot: Path) -> dict:
    """Render ``path`` at ``width`` px: a screenshot to ``shot`` and the measurements of the probe script."""
    probed = path.with_name(f"{path.stem}.probe{width}.html")
    probed.write_text(path.read_text(encoding="utf-8").replace("</head>", _PROBE + "</head>", 1), encoding="utf-8")
    res = _browser(f"--window-size={width},2400", "--dump-dom", probed.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    m = re.search(r'<body[^>]*data-layout="([^"]*)"', res.stdout)
    assert m, "the probe script did not run"
    shot_res = _browser(f"--screenshot={shot}", f"--window-size={width},2400", path.as_uri())
    assert shot_res.returncode == 0 and shot.exists(), shot_res.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return json.loads(html_lib.unescape(m.group(1)))


@pytest.fixture(scope="module")
def layouts(eusilc, tmp_path_factory):
    path, _ = eusilc
    shots = tmp_path_factory.mktemp("screenshots")
    return {w: _layout(path, w, shots / f"report_{w}.png") for w in WIDTHS}


def _section(doc: str, sid: str) -> str:
    m = re.search(rf'<section id="{sid}">(.*?)</section>', doc, re.S)
    assert m, f"section {sid} missing"
    return m.group(1)


def _cells(row: str) -> list[str]:
    return [html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]


def _tables(doc: str) -> list[tuple[str, list[str], list[list[str]], list[str]]]:
    """(section id, header, rows as text, rows as HTML) of every table of the report."""
    out = []
    for sid, body in re.findall(r'<section id="([^"]+)">(.*?)</section>', doc, re.S):
        for t in re.findall(r"<table>(.*?)</table>", body, re.S):
            head = re.search(r"<thead>(.*?)</thead>", t, re.S)
            rows = re.findall(r"<tr[^>]*>(.*?)</tr>", re.search(r"<tbody>(.*?)</tbody>", t, re.S).group(1), re.S)
            out.append((sid, _cells(head.group(1)) if head else [], [_cells(r) for r in rows], rows))
    return out


# ------------------------------------------------------------------------------------------------------ layout


@pytest.mark.chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_never_scrolls_sideways(layouts, width):
    """At 1,400 px the old report's page was 2,783 px wide (the navigation on one unbreakable line); a wide table
    now scrolls inside its own box."""
    lay = layouts[width]
    assert lay["innerWidth"] == width
    assert lay["scrollWidth"] <= lay["clientWidth"], lay
    assert not lay["beyond"], f"elements reach past the window's right edge: {lay['beyond'][:10]}"


@pytest.mark.chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_the_navigation_fits_the_window(layouts, width):
    lay = layouts[width]
    assert lay["nav"], "no navigation links"
    assert all(0 <= a["left"] and a["right"] <= lay["clientWidth"] for a in lay["nav"]), lay["nav"]
    if width == 800:  # it wraps onto more lines instead of running off the page
        assert len({round(a["top"]) for a in lay["nav"]}) > 1


@pytest.mark.chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_the_demo_report_never_scrolls_sideways(width, tmp_path):
    """The demo adds what eusilc's run has not: a regression table, l-diversity, a household id."""
    x, xm = pysdc.load_demo_pair()
    p = SdcProblem(x, ["region", "urbrur", "sex", "age_group", "education"], num_vars=["income", "expenditure",
                   "savings"], w="weight", hid="hid", sensitive=["health_status"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = p.report(xm, tmp_path / "demo.html", random_state=1, regression="log(income) ~ age_group + sex",
                        regression_where="income > 0")
    lay = _layout(path, width, tmp_path / f"demo_{width}.png")
    assert lay["scrollWidth"] <= lay["clientWidth"] and not lay["beyond"], lay


def test_wide_tables_keep_their_text_readable(eusilc):
    """The estimates' method (one long text, the same in every row) squeezed the numbers; it is said once under
    the table, and a long text cell keeps a readable width."""
    _, doc = eusilc
    est = _section(doc, "estimates")
    head, rows = next((h, r) for s, h, r, _ in _tables(doc) if s == "estimates" and "estimator" in h)
    assert "method" not in head and len(rows) == len(NUMS)
    assert "method: weighted" in est
    long_cells = [a for a, t in re.findall(r"<td([^>]*)>([^<]+)</td>", doc) if len(html_lib.unescape(t)) > 60]
    assert long_cells and all('class="long"' in attrs for attrs in long_cells)


# ------------------------------------------------------------------------------------------------------ verdict


@pytest.mark.chromium
def test_the_verdict_comes_first_and_answers_in_plain_language(eusilc, layouts):
    _, doc = eusilc
    ids = re.findall(r'<section id="([^"]+)">', doc)
    assert ids[0] == "verdict"
    for lay in layouts.values():  # first on the page as drawn, too
        tops = {s["id"]: s["top"] for s in lay["sections"]}
        assert min(tops, key=tops.get) == "verdict"
    assert re.search(r'<nav><a href="#verdict">', doc)
    v = _section(doc, "verdict")
    items = dict(re.findall(r'data-verdict="([\w-]+)" data-status="(\w+)"', v))
    assert set(items) == {"k-anonymity", "global-risk", "riskiest", "loss"}
    blocks = v.split('<div class="verdict ')[1:]
    assert len(blocks) == 4 and all('<p class="rule">Rule: ' in b for b in blocks)  # each says its rule

    # the answers are those of the library on the masked file (what would be released)
    xm = pd.read_csv(INPUTS / "eusilc_masked.csv.gz")
    x = pd.read_csv(INPUTS / "eusilc.csv.gz")
    p = SdcProblem(x, KEYS, num_vars=NUMS, w="rb050", hid="db030")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r1 = p.risk(data=xm)
        u = p.utility(xm, random_state=1)
    bad = int(r1.k_anonymity.loc[3, "unweighted"])
    assert bad > 0 and items["k-anonymity"] == "fail"
    assert f"{bad:,} of {len(xm):,} records" in v and "at k = 3: not met" in v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r0 = p.risk()
    assert f"In the original file: {int(r0.k_anonymity.loc[3, 'unweighted']):,} records." in v
    gr = r1.measure_risk.global_risk
    assert items["global-risk"] == ("ok" if gr <= 0.01 else "fail")
    assert f"{100 * gr:.4g} %" in v and "target 1 %" in v
    band = u.results["gsil"].band
    assert f"information loss: {band}" in v and items["loss"] == {"small": "ok", "medium": "attention"}.get(band, "fail")
    # the riskiest combination is the record with the highest individual risk
    top = r1.measure_risk.individual["risk"].max()
    assert f"risk {pysdc._format.fmt(float(top), 4)}" in v


def test_verdict_k_follows_the_chosen_k(tmp_path):
    x, xm = pysdc.load_demo_pair()
    p = SdcProblem(x, ["region", "sex", "age_group"], w="weight")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = html_report(p, plots=False, k=4, max_global_risk=0.5)
        want = int(pysdc.k_anon_violations(x, ["region", "sex", "age_group"], k=4))
    v = _section(doc, "verdict")
    assert "at k = 4" in v and (f"{want:,} of {len(x):,} records" in v if want else "at k = 4: met" in v)
    assert "target 50 %" in v and "information loss: not assessed" in v
    with pytest.raises(pysdc.InvalidParameterError, match="k must be"):
        html_report(p, plots=False, k=0)


# ------------------------------------------------------------------------------------------------------ warnings


@pytest.mark.chromium
def test_each_warning_stands_next_to_its_number(eusilc, layouts):
    _, doc = eusilc
    util = _section(doc, "utility")
    row = next(r for r in re.findall(r"<tr>(.*?)</tr>", util, re.S) if "<td>robeigen</td>" in r)
    n = re.search(r'class="flag" href="#warning-(\d+)"', row)
    assert n, "the robeigen value carries no flag"
    n = n.group(1)
    box = re.search(rf'<div class="warn" data-warning="{n}">(.*?)</div>', util, re.S)
    assert box and "robeigen" in box.group(1) and "numerically meaningless" in box.group(1)
    # and the full list at the end still holds it, under the same number
    listed = re.search(rf'<tr id="warning-{n}">(.*?)</tr>', _section(doc, "warnings"), re.S)
    assert listed and "numerically meaningless" in listed.group(1)
    # dRiskRMD's warnings flag its numbers in the risk summary
    risk = _section(doc, "risk")
    rmd = [r for r in re.findall(r"<tr>(.*?)</tr>", risk, re.S) if "dRiskRMD" in r]
    assert rmd and all('class="flag"' in r for r in rmd)
    assert re.search(r'<div class="warn" data-warning="\d+">.*?d_risk_rmd: x has missing values', risk, re.S)
    # every warning of the list at the end is shown next to a number somewhere
    listed = re.findall(r'<tr id="warning-(\d+)">', _section(doc, "warnings"))
    assert listed and all(re.search(rf'class="flag" href="#warning-{n}"', doc) for n in listed)
    # every flag is drawn (it has a box), at both widths
    for lay in layouts.values():
        assert lay["flags"] and all(f["width"] > 0 and f["height"] > 0 for f in lay["flags"])


def test_the_command_prints_the_warnings(eusilc_run):
    _, _, err = eusilc_run
    assert re.search(r"pysdc: warning \([^)]*\): DegenerateResultWarning: d_utility\(method='robeigen'\) = \S+ is "
                     r"numerically meaningless", err), err[-3000:]
    assert "d_risk_rmd: x has missing values" in err


def test_a_negative_loss_is_flagged_where_it_stands(monkeypatch):
    """The issue's robeigen of -1.40e14 (a loss that adds up absolute values cannot be negative) showed an
    sdcMicro badge and nothing else."""
    from pysdc.problem import ProblemUtility

    real = SdcProblem.utility

    def utility(self, masked, **kw):
        u = real(self, masked, **kw)
        return ProblemUtility(results={**u.results, "d_utility.robeigen": -1.40e14, "d_utility.eigen": float("nan")},
                              skipped=u.skipped, variables=u.variables)

    monkeypatch.setattr(SdcProblem, "utility", utility)
    x, xm = pysdc.load_demo_pair()
    p = SdcProblem(x, ["region", "sex", "age_group"], num_vars=["income", "expenditure"], w="weight")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = html_report(p, xm, plots=False, random_state=1)
    rows = {m.group(1): m.group(0) for m in re.finditer(r"<tr><td>d_utility</td><td>(\w+)</td>.*?</tr>",
                                                          _section(doc, "utility"), re.S)}
    assert 'data-oddity="negative: impossible"' in rows["robeigen"] and "-1.4e+14" in rows["robeigen"]
    assert 'data-oddity="undefined"' in rows["eigen"] and ">NA<" in rows["eigen"]
    assert "data-oddity" not in rows["IL1"]
    assert "robeigen" in _section(doc, "verdict")  # the verdict's loss answer says what is flagged


# ------------------------------------------------------------------------------------------------------ one of each


def test_k_anonymity_counts_appear_once(eusilc):
    _, doc = eusilc
    for k in (2, 3, 5):
        rows = [r for _, _, rows, _ in _tables(doc) for r in rows if r and re.search(rf"\bfk < {k}\b", r[0])]
        assert len(rows) == 1, rows
    headings = re.findall(r"<h2>(.*?)</h2>", doc)
    assert len(headings) == len(set(headings))


def test_a_missing_key_reads_NA_in_every_table(eusilc):
    _, doc = eusilc
    x = pd.read_csv(INPUTS / "eusilc.csv.gz")
    checked = 0
    seen_na = 0
    for sid, head, rows, _ in _tables(doc):
        cols = [i for i, h in enumerate(head) if h in KEYS]
        if not cols:
            continue
        rec = head.index("record") if "record" in head else None
        for r in rows:
            for i in cols:
                assert r[i] != "", f"a blank key value in section {sid}: {r}"
                if rec is not None:
                    missing = pd.isna(x.iloc[int(r[rec]) - 1][head[i]])
                    assert (r[i] == "NA") == bool(missing), (sid, head[i], r)
                seen_na += r[i] == "NA"
                checked += 1
    assert checked and seen_na  # the eusilc keys pl030 and pb220a have 2,720 missing values
    v = _section(doc, "verdict")
    assert "pl030 = NA" in v and "pl030 = </" not in v and "pl030 = ," not in v
