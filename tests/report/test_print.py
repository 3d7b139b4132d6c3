"""str()/print() of native results show what sdcMicro's print methods show; every result class has an HTML view.

The R side is stored: ``r_reference/generate_print.R`` captured sdcMicro's printed text (and the numbers
behind it) for the cases of ``r_reference/make_cases_print.py`` on stored inputs. Each of those cases is a case of
``pysdc parity`` (its section "Printed results", pysdc/parity/_sections.py; one test each in
tests/parity/test_parity_stored.py, natively, and tests/parity/test_parity_numerics_print.py, live): the numbers
behind the text and every printed line. Here: the rules and formatting helpers, and the HTML views.
"""

from __future__ import annotations

import json
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pysdc
from pysdc._registry import MEASURES
from pysdc._results import _Repr
from pysdc._summaries import higher_risk
from pysdc.io import read_table
from pysdc.report._text import r_format, r_number, r_round

REF = Path(__file__).resolve().parents[2] / "r_reference"
CASES = json.loads((REF / "outputs" / "print.json").read_text(encoding="utf-8"))["cases"]


def _run(case):
    data = read_table(REF / "inputs" / case["inputs"]["data"])
    a = case["args"]
    keys = list(a["keyVars"])
    if a["fun"] == "measure_risk":
        return pysdc.measure_risk(data, keys, w=a.get("w"), hid=a.get("hid"))
    if a["fun"] in ("freqCalc", "indivRisk"):
        f = pysdc.freq_calc(data, keys, w=a.get("w"), alpha=a.get("alpha", 1.0))
        return f if a["fun"] == "freqCalc" else pysdc.indiv_risk(f)
    return pysdc.ldiversity(data, keys, ldiv_index=list(a["ldiv_index"]))


def test_higher_risk_rule_by_hand():
    # median 0.05, MAD 0: the cut is the floor 0.1, strictly above it only the five risks of 0.2
    risks = np.r_[np.full(40, 0.05), np.full(10, 0.1), np.full(5, 0.2)]
    assert higher_risk(risks)["count"] == 5
    # median 0.5, MAD 0: the cut is the median itself; only the three risks of 1 are above it
    assert higher_risk(np.r_[np.full(20, 0.5), np.ones(3)])["count"] == 3
    assert higher_risk(np.array([]))["count"] == 0
    assert higher_risk(np.array([np.nan, 0.9, 0.01, 0.01]))["count"] == 1


@pytest.mark.parametrize("x, text", [(47.0, "47"), (10.78, "10.78"), (100000.0, "1e+05"), (123456.78, "123456.8"),
                                     (1e-5, "1e-05"), (0.1, "0.1"), (float("nan"), "NA"), (float("inf"), "Inf")])
def test_r_number_follows_cat(x, text):
    assert r_number(x) == text  # as R's cat(x) writes these (derived from R's fixed/scientific width rule)


def test_r_round_and_format():
    assert r_round(0.7052303986887218) == "0.71" and r_round(float("nan")) == "NA"
    assert r_format([2, 4, 4, 3.9565, 4, 4]) == ["2.000", "4.000", "4.000", "3.957", "4.000", "4.000"]
    assert r_format([3, 3, 3]) == ["3", "3", "3"]


def test_repr_stays_the_field_listing():
    case = CASES[1]
    res = _run(case)
    assert repr(res).startswith("MeasureRiskResult(global_risk_er=")


# --------------------------------------------------------------------------- _repr_html_ of every result class


class _Checker(HTMLParser):
    VOID = {"br", "hr", "img", "meta", "input", "col", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _results():
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in MEASURES:
            res = m.native(**m.example())
            if isinstance(res, _Repr):  # measures returning a float, Series or frame have pandas' own view
                out.append(pytest.param(res, id=m.python))
    return out


@pytest.mark.parametrize("res", _results())
def test_every_result_has_a_readable_html_view(res):
    page = res._repr_html_()
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.stack == [], f"unclosed tags {checker.stack}"
    text = " ".join(checker.text)
    assert type(res).__name__ in text
    from dataclasses import fields

    for f in fields(res):  # every field is named in the view
        assert f.name in text
    assert len(page) < 200_000  # frames are previewed, not dumped


def test_html_view_escapes_text():
    res = pysdc.freq_calc(pd.DataFrame({"<b>": pd.Categorical(["x", "y", "x"])}), ["<b>"])
    page = res._repr_html_()
    assert "&lt;b&gt;" in page and "<b>" not in page
