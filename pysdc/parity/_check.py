"""Running a stored case through pysdc (native or bridge) and comparing with sdcMicro's result.

Comparison rules (shared with ``tests/parity/test_parity_stored.py``): tolerances come from
:mod:`pysdc._tolerances`; NA and NaN are the same missing value; where sdcMicro errors
(or returns NULL), pysdc must raise :class:`~pysdc.InvalidParameterError`. Each measure's
own runner and comparer live in its registry entry (:mod:`pysdc._registry`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

import pysdc

from .._errors import InvalidParameterError, NotInSdcMicroError, PysdcError, RNotAvailableError
from .._registry import by_r_name
from .._registry._methods import method_by_r_name
from .._tolerances import EXACT, ROW_SUMS, Tolerance, tolerance_for
from ._corpus import (
    FUNCTIONS,
    OUTPUT_GROUPS,
    Case,
    case_inputs,
    decode,
    divergence_for,
    is_method,
    is_section,
    load_divergences,
    load_input,
    reference_dir,
)
from ._sections import NotRunHere, section_for

__all__ = ["Diff", "Outcome", "Comparer", "compare_arrays", "compare", "check_case", "summarize"]


@dataclass
class Diff:
    """Comparison of one result field."""

    field: str
    n: int
    ok: bool
    max_abs: float
    max_rel: float
    tolerance: Tolerance
    detail: str = ""
    expected: np.ndarray | None = None
    actual: np.ndarray | None = None


@dataclass
class Outcome:
    """Result of checking one case: status is passed, failed, xfail, xpass or not_run.

    ``not_run`` (live mode only): the installed sdcMicro lacks the function (e.g. 5.8.0 has no
    recordLinkage) or the case uses an option only pysdc has (:class:`~pysdc.NotInSdcMicroError`);
    neither a pass nor a failure, and listed with the reason.
    """

    case: Case
    status: str
    message: str = ""
    diffs: list = field(default_factory=list)
    divergence: dict | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "xfail")


def compare_arrays(fname: str, tol: Tolerance, expected, actual) -> Diff:
    """Element-wise comparison under ``tol`` (NaN = NaN, equal infinities equal)."""
    e = np.atleast_1d(np.asarray(expected, dtype=np.float64))
    a = np.atleast_1d(np.asarray(actual, dtype=np.float64))
    if e.shape != a.shape:
        return Diff(fname, e.size, False, math.inf, math.inf, tol, f"length {a.size} instead of sdcMicro's {e.size}",
                    e, a)
    both_nan = np.isnan(e) & np.isnan(a)
    same_inf = np.isinf(e) & np.isinf(a) & (np.sign(e) == np.sign(a))
    comparable = ~(both_nan | same_inf)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = np.abs(e - a)
        d = np.where(comparable, d, 0.0)
        d = np.where(np.isnan(d), math.inf, d)  # NaN on one side only
        rel = np.where(d == 0, 0.0, d / np.abs(e))
        rel = np.where(np.isnan(rel), math.inf, rel)
        # at sdcMicro's exact 0 a relative difference is undefined: the absolute tolerance decides,
        # and a difference within it is not reported as an infinite relative one
        rel = np.where((e == 0) & (d <= tol.atol), 0.0, rel)
        ok = bool(np.all(d <= tol.atol + tol.rtol * np.abs(np.where(np.isfinite(e), e, 0.0))))
    max_abs = float(d.max()) if d.size else 0.0
    max_rel = float(rel.max()) if rel.size else 0.0
    detail = ""
    if not ok:
        i = int(np.argmax(d))
        detail = f"{fname}[{i}]: pysdc {a[i]!r} vs sdcMicro {e[i]!r}"
    return Diff(fname, e.size, ok, max_abs, max_rel, tol, detail, e, a)


class Comparer:
    """Collects the field comparisons of one case (what a registry entry's ``compare_case`` uses).

    ``value(field, expected, actual, tol=None)`` compares a number or an array;
    ``rows(prefix, expected, actual, names)`` compares per-record results, of which the
    corpus may store a sample of rows (``rows``) plus the sums over all rows
    (``row_sums``); ``fail(field, detail)`` records a structural mismatch.
    """

    decode = staticmethod(decode)

    def __init__(self, python_name: str, rows_given: bool = False):
        self.python = python_name
        self.rows_given = rows_given
        self.diffs: list[Diff] = []

    def tol(self, fname: str) -> Tolerance:
        return tolerance_for(self.python, fname)

    def value(self, fname: str, expected, actual, tol: Tolerance | None = None) -> None:
        e = expected if isinstance(expected, np.ndarray) else decode(expected)
        self.diffs.append(compare_arrays(fname, tol or self.tol(fname), e, np.nan if actual is None else actual))

    def accepted(self, fname: str, expected, actual, tol: Tolerance) -> None:
        """Record a comparison accepted by a rule other than ``tol`` (e.g. within R's range over seeds)."""
        d = compare_arrays(fname, tol, np.asarray(expected, dtype=float), actual)
        self.diffs.append(Diff(d.field, d.n, True, d.max_abs, d.max_rel, tol, "", d.expected, d.actual))

    def fail(self, fname: str, detail: str, n: int = 1) -> None:
        self.diffs.append(Diff(fname, n, False, math.inf, math.inf, self.tol(fname), detail))

    def rows(self, prefix: str, expected: dict, actual: dict, names) -> None:
        rows = expected.get("rows")
        for name in names:
            if name not in actual:
                self.fail(f"{prefix}{name}", f"pysdc's result has no {name!r}", n=0)
                continue
            full = np.asarray(actual[name], dtype=float)
            sel = full if rows is None or self.rows_given else full[np.asarray(rows, dtype=int)]
            self.value(f"{prefix}{name}", expected[name], sel, self.tol(name))
            if rows is not None and "row_sums" in expected and not self.rows_given:
                tol = self.tol(name)
                tol = Tolerance(rtol=max(tol.rtol, ROW_SUMS.rtol), atol=tol.atol, reason=ROW_SUMS.reason)
                self.value(f"sum({prefix}{name})", expected["row_sums"][name], float(np.sum(full)), tol)


def compare(case: Case, actual: dict, mode: str = "native") -> list[Diff]:
    """Field-by-field comparison of a native (or bridge) result with sdcMicro's (the entry's comparer).

    A protection method's comparer (:mod:`pysdc._registry._methods`) says what differs in words (codes,
    MD5 of every value, the random stream's position); each difference is one failed :class:`Diff`, and a
    case without any is one passed ``result`` field compared exactly (no numeric difference to report).
    """
    sec = section_for(case.function)
    if sec is not None:  # a section across several functions (pysdc.parity._sections): its own comparer
        c = Comparer(sec.stem)
        sec.compare(c, case, actual, mode)
        return c.diffs
    if is_method(case.function):
        entry = method_by_r_name(case.function)
        problems = list(entry.compare_case(case.result, actual))
        if actual.get("__input_modified__"):
            problems.append("the input data was modified (a protection method returns new data)")
        if not problems:
            return [Diff("result", 1, True, 0.0, 0.0, EXACT)]
        return [Diff(p.split(":", 1)[0][:40], 1, False, math.inf, math.inf, EXACT, p) for p in problems]
    entry = by_r_name(case.function)
    c = Comparer(entry.python, rows_given=bool(actual.get("__rows_given__")))
    entry.compare_case(c, case.result, actual, case.args, mode)
    return c.diffs


def run_case(case: Case, impl, root) -> dict:
    """Call ``impl``'s function (native pysdc or pysdc.r) for the case; the fields sdcMicro stored.

    A protection method runs natively as its registry's ``native`` function (``pysdc.protect``) when
    ``impl`` is the pysdc package, else as ``impl``'s function of its pysdc name (the bridge, pysdc.r). A
    section's case (numerics, print, createSdcObj) runs through its section's runner with ``impl``.
    """
    sec = section_for(case.function)
    if sec is not None:
        mode = "native" if getattr(impl, "__name__", "") == "pysdc" else "live"
        return sec.run(case, impl, lambda name, raw=False: load_input(root, name, raw), mode)
    if is_method(case.function):
        m = method_by_r_name(case.function)
        fn = m.native if getattr(impl, "__name__", "") == "pysdc" else getattr(impl, m.python)
        data = case_inputs(case, root)["data"]
        before = data.copy(deep=True)
        actual = dict(m.run_case(fn, case.args, data))
        actual["__input_modified__"] = not data.equals(before)
        return actual
    entry = by_r_name(case.function)
    fn = getattr(impl, entry.python)
    return entry.run_case(fn, case.args, case_inputs(case, root), case.result)


def check_case(case: Case, impl=None, root=None, divergences=None, mode: str = "native") -> Outcome:
    """Run one stored case through ``impl`` (default: native pysdc) and compare."""
    if impl is None:
        impl = pysdc
    root = reference_dir(root)
    div = divergence_for(case.id, divergences if divergences is not None else load_divergences(root), mode)
    expected_exc = InvalidParameterError if mode == "native" else PysdcError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            actual = run_case(case, impl, root)
            exc = None
        except Exception as e:  # noqa: BLE001 - every failure is reported
            actual, exc = None, e
    diffs: list = []
    if isinstance(exc, NotRunHere):  # a section's case this machine cannot run (said why)
        return Outcome(case, "not_run", f"not run here: {exc}", [], div)
    if mode != "native" and isinstance(exc, (RNotAvailableError, NotInSdcMicroError)):
        return Outcome(case, "not_run", f"not run through the bridge: {exc}", [], div)
    if mode == "native" and "bridge-only" in case.tags and not case.expects_error \
            and isinstance(exc, InvalidParameterError):
        # an option pysdc offers through the bridge only (shuffle's covmethod="mcd"): refused natively with the
        # reason, compared with sdcMicro in the live run
        return Outcome(case, "not_run", f"bridge only, refused natively: {exc}", [], div)
    if case.expects_error:
        if isinstance(exc, expected_exc):
            ok, msg = True, f"refused like sdcMicro: {exc}"
        elif exc is None:
            ok, msg = False, f"sdcMicro errors ({case.error!r}) but pysdc returned a result"
        else:
            ok, msg = False, f"sdcMicro errors ({case.error!r}); pysdc raised {type(exc).__name__}: {exc}"
    elif exc is not None:
        ok, msg = False, f"pysdc raised {type(exc).__name__}: {exc}"
    else:
        diffs = compare(case, actual, mode)
        bad = [d for d in diffs if not d.ok]
        ok = not bad
        msg = "; ".join(d.detail or f"{d.field}: max rel diff {d.max_rel:.3g}" for d in bad)
    if div is not None:
        status = "xpass" if ok else "xfail"
        if ok:
            msg = f"listed as a known divergence but now agrees with sdcMicro ({div['reason']})"
    else:
        status = "passed" if ok else "failed"
    return Outcome(case, status, msg, diffs, div)


def _abs_at_worst_rel(d) -> float:
    """The absolute difference at the element with the largest relative difference of ``d``."""
    if d is None:
        return 0.0
    if d.expected is None or d.actual is None:
        return d.max_abs
    e = np.atleast_1d(np.asarray(d.expected, dtype=float))
    a = np.atleast_1d(np.asarray(d.actual, dtype=float))
    if e.shape != a.shape or not e.size:
        return d.max_abs
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(e - a)
        rel = np.where(diff == 0, 0.0, diff / np.abs(e))
    rel = np.where(np.isfinite(rel), rel, -1.0)
    return float(diff[int(np.argmax(rel))])


def summarize(outcomes) -> dict:
    """Per-output-group counts and worst differences (deterministic, in report order).

    One entry per stored output file (:data:`~pysdc.parity._corpus.OUTPUT_GROUPS`): a function's own file
    under its sdcMicro name, a protection method's further files under their stem (``microaggregation_clust``)
    with ``function`` the sdcMicro function and ``group`` what they cover. A protection method's worst
    differences are None: its comparer checks every value (MD5 of all values, codes, the random stream's
    position) and reports what differs, not a number.
    """
    summary = {}
    for stem, (fun, what) in OUTPUT_GROUPS.items():
        outs = [o for o in outcomes if o.case.function == fun and (o.case.source or fun) == stem]
        if not outs:
            continue
        counts = {s: sum(o.status == s for o in outs) for s in ("passed", "xfail", "failed", "xpass", "not_run")}
        finite = [d for o in outs if o.status == "passed" for d in o.diffs]
        worst_abs = max((d.max_abs for d in finite), default=0.0)
        worst_rel = max((d.max_rel for d in finite), default=0.0)
        # which tolerance accepted the worst relative difference: a value near 0 passes by its
        # absolute tolerance with a large relative difference, which alone would read as a failure
        worst = max(finite, key=lambda d: d.max_rel, default=None)
        decided, tol = None, None
        if worst is not None and worst.max_rel > 0:
            by_rel = worst.max_rel <= worst.tolerance.rtol
            decided = "rtol" if by_rel else "atol"
            tol = worst.tolerance.rtol if by_rel else worst.tolerance.atol
        if is_method(fun):  # compared value for value by the method's comparer: no numeric difference
            worst_abs = worst_rel = tol = decided = worst = None
        summary[stem] = {"function": fun, "group": what, "python": FUNCTIONS[fun],
                         "kind": "method" if is_method(fun) else "section" if is_section(fun) else "measure",
                         "cases": len(outs), **counts,
                         "errors_expected": sum(o.case.expects_error for o in outs),
                         "worst_abs_diff": worst_abs, "worst_rel_diff": worst_rel,
                         "worst_decided_by": decided, "worst_tolerance": tol,
                         "worst_rel_abs_diff": None if is_method(fun) else _abs_at_worst_rel(worst)}
    return summary
