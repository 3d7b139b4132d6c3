"""Live parity: a case the installed sdcMicro cannot run is 'not_run' — neither passed nor failed, and said.

Before, recordLinkage (absent from CRAN's 5.8.0) was a blanket live 'divergence', so its cases where sdcMicro
errors read as "xpass: failed" in the live report, and infoLoss with a Python custom_metric read as failed.
"""

from __future__ import annotations

import types

import pysdc
from pysdc import NotInSdcMicroError, RNotAvailableError
from pysdc import parity as _parity
from pysdc.parity._report import markdown, report_dict

ROOT = _parity.reference_dir()
CASES = {c.id: c for c in _parity.load_corpus(ROOT, functions=["recordLinkage", "infoLoss"])}


def _raising(exc):
    def f(*args, **kwargs):
        raise exc
    return types.SimpleNamespace(__name__="fake_bridge", record_linkage=f, info_loss=f)


def test_a_function_missing_from_the_installed_sdcmicro_is_not_run_live():
    case = CASES["recordLinkage:na:fail"]  # sdcMicro 5.8.1 errors on this case
    assert case.expects_error
    out = _parity.check_case(case, _raising(RNotAvailableError("sdcMicro 5.8.0 has no recordLinkage")), ROOT, [],
                             "live")
    assert out.status == "not_run" and "5.8.0 has no recordLinkage" in out.message


def test_a_pysdc_only_option_is_not_run_live():
    case = next(c for i, c in CASES.items() if i.endswith(":custom"))
    out = _parity.check_case(case, _raising(NotInSdcMicroError("custom_metric: Python only")), ROOT, [], "live")
    assert out.status == "not_run"


def test_natively_the_same_exceptions_are_failures():
    case = next(c for c in CASES.values() if not c.expects_error)
    out = _parity.check_case(case, _raising(RNotAvailableError("no R")), ROOT, [], "native")
    assert out.status == "failed"


def test_the_live_report_counts_and_lists_them_apart():
    ok = next(c for c in CASES.values() if c.function == "infoLoss" and not c.expects_error
              and not c.id.endswith(":custom"))
    outcomes = [_parity.check_case(ok, pysdc, ROOT, [], "native"),
                _parity.check_case(CASES["recordLinkage:na:fail"], _raising(RNotAvailableError("lacks it")), ROOT, [],
                                   "live")]
    rep = report_dict(outcomes, _parity.corpus_header(ROOT), "live")
    assert rep["summary"]["recordLinkage"]["not_run"] == 1 and rep["summary"]["recordLinkage"]["failed"] == 0
    md = markdown(rep)
    assert "1 not run through the bridge" in md and "## Not run through the bridge" in md
    assert "lacks it" in md.split("## Not run through the bridge")[1].split("## Failures")[0]


def test_the_bridge_refuses_a_pysdc_only_option_with_not_in_sdcmicro_error():
    """Raised before R starts (the declared r_requires), and still an InvalidParameterError."""
    import pandas as pd
    import pytest

    import pysdc.r as pr

    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 1.0, 4.0]})
    with pytest.raises(NotInSdcMicroError) as e:
        pr.il_variables(x, x, scales={"a": "ordinal"})
    assert isinstance(e.value, pysdc.InvalidParameterError)
