"""The parity report counts in words: "1 known divergence", "2 known divergences" (the live report said
"1 known divergences")."""

from __future__ import annotations

from pysdc import parity as _parity

ROOT = _parity.reference_dir()
DIVERGENCES = _parity.load_divergences(ROOT)
CASES = {c.id: c for c in _parity.load_corpus(ROOT, functions=["localSuppression", "globalRecode"])}
LISTED = "localSuppression:keys300:strata-combs"  # a listed divergence (native)
AGREES = "globalRecode:edge:v:cuts-inf"


def _total(ids) -> str:
    outcomes = [_parity.check_case(CASES[i], root=ROOT, divergences=DIVERGENCES) for i in ids]
    md = _parity.markdown(_parity.report_dict(outcomes, _parity.corpus_header(ROOT), "native", DIVERGENCES))
    return next(line for line in md.splitlines() if line.startswith("**Total:"))


def test_one_known_divergence_in_the_singular():
    assert _total([LISTED, AGREES]) == "**Total: 2 cases, 1 passed, 1 known divergence, 0 failed.**"


def test_none_and_one_case():
    assert _total([AGREES]) == "**Total: 1 case, 1 passed, 0 known divergences, 0 failed.**"
