"""Live parity: native pysdc against sdcMicro through the R bridge, on the same inputs.

Runs only where R, rpy2 and sdcMicro are installed (skipped with the reason
otherwise). A modest, deterministic sample of the stored cases: every 12th
case of each function, leaving out the 10,000-row ones. robeigen runs with
``set.seed(1)`` through the bridge and must reproduce the stored seed-1 value.
"""

from __future__ import annotations

import pytest

from pysdc import parity as _parity

ROOT = _parity.reference_dir()
DIVERGENCES = _parity.load_divergences(ROOT)


def _sample():
    cases = [c for c in _parity.load_corpus(ROOT) if "large" not in c.tags]
    out = []
    for fun in _parity.FUNCTIONS:
        out += [c for c in cases if c.function == fun][::12]
    out += [c for c in cases if "xm-matrix" in c.tags and c not in out]  # sdcMicro's matrix-xm quirk, all cases
    return out


SAMPLE = _sample()
#: the cases pysdc runs natively too (a case tagged bridge-only is refused natively by design, with the pointer
#: to the bridge: test_bridge_matches_stored_sdcmicro compares it with the stored output)
SAMPLE_NATIVE = [c for c in SAMPLE if "bridge-only" not in c.tags]


@pytest.mark.live
@pytest.mark.parametrize("case", SAMPLE, ids=[c.id for c in SAMPLE])
def test_bridge_matches_stored_sdcmicro(case, bridge):
    """The bridge reproduces the stored sdcMicro results (the corpus is current)."""
    div = _parity.divergence_for(case.id, DIVERGENCES, "live")
    if div:
        pytest.xfail(div["reason"])
    out = _parity.check_case(case, bridge, ROOT, [], "live")
    if out.status == "not_run":  # e.g. recordLinkage with sdcMicro 5.8.0 (tests/risk/test_record_linkage_bridge.py)
        pytest.skip(out.message)
    assert out.status == "passed", out.message


@pytest.mark.live
@pytest.mark.parametrize("case", SAMPLE_NATIVE, ids=[c.id for c in SAMPLE_NATIVE])
def test_native_matches_bridge(case, bridge):
    """Native and bridge agree on the same inputs (errors: both refuse)."""
    import pysdc

    div = _parity.divergence_for(case.id, DIVERGENCES, "native") or _parity.divergence_for(case.id, DIVERGENCES, "live")
    if div:
        pytest.xfail(div["reason"])
    live = _parity.check_case(case, bridge, ROOT, [], "live")
    if live.status == "not_run":
        pytest.skip(live.message)
    native = _parity.check_case(case, pysdc, ROOT, [], "native")
    assert (live.status, native.status) == ("passed", "passed"), (live.message, native.message)


def test_user_data_mode_on_the_demo_data(bridge, tmp_path, capsys):
    """`pysdc parity --data ... --masked ... --keys a,b --live`: the cross-checking use case."""
    import pysdc
    from pysdc.cli import main
    from pysdc.io import write_table

    x, xm = pysdc.load_demo_pair()
    write_table(x, tmp_path / "orig.csv")
    write_table(xm, tmp_path / "masked.csv")
    code = main(["parity", "--data", str(tmp_path / "orig.csv"), "--masked", str(tmp_path / "masked.csv"),
                 "--keys", "region,urbrur,sex", "--weight", "weight", "--hid", "hid", "--live"])
    out = capsys.readouterr().out
    assert code == 0, out
    for measure in ("freqCalc", "measure_risk", "indivRisk", "dUtility IL1", "IL_correl", "IL_variables"):
        assert measure in out
    assert "DIFFERS" not in out
    # IL_variables is refused by both on the integer columns, and the report says why
    assert "Refusals" in out and "must be an (ordered) factor or character" in out
