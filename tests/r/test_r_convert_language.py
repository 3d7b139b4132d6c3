"""A call or a name inside an R result converts to its R text and is never evaluated.

sdcMicro 5.8.1's ``recordLinkage`` returns ``call = match.call()``; through the bridge that call is
``.pysdc_f(x = .pysdc_a1, ...)``, whose names exist only inside the call's private environment.
Converting it must not evaluate it (it did: "could not find function .pysdc_f").
"""

from __future__ import annotations

import pytest

import pysdc.r as pr

pytestmark = pytest.mark.needs_r


@pytest.fixture(scope="module")
def rfun():
    def run(code):
        return pr.call("eval", pr.call("parse", text=code, package="base", as_robject=True), package="base")

    return run


def test_a_call_in_a_list_is_its_text_not_evaluated(rfun):
    got = rfun("list(call = quote(.no_such_function(x = .no_such_object, k = 2L)), n = 3)")
    assert got == {"call": ".no_such_function(x = .no_such_object, k = 2L)", "n": 3.0}


def test_a_name_is_its_text(rfun):
    assert rfun("list(s = as.name('.no_such_object'))") == {"s": ".no_such_object"}


def test_the_matched_call_of_an_r_function_converts(rfun):
    got = rfun("local({ f <- function(a, b) list(call = match.call(), v = a + b); g <- f; g(a = 1, b = 2) })")
    assert got == {"call": "g(a = 1, b = 2)", "v": 3.0}
