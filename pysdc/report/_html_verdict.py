"""The HTML report's verdict: plain-language answers, each with the rule that produced it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._format import fmt
from .._summaries import HIGH_RISK_FLOOR, HIGH_RISK_MADS, higher_risk
from ._html_base import _e, _missing, _note, _Notes, _num, _oddity, _utility_target

__all__ = ["_verdict", "_GSIL_RULE"]

_GSIL_RULE = ("GSIL = (EBIL% + GHD% + GILCV) / 3 over the parts that apply (Todorova); a loss up to 10 % is small, "
              "up to 20 % medium, up to 30 % serious, above 30 % leaves no data utility.")
_STATUS = {"ok": "&#10004;", "fail": "&#10008;", "attention": "&#9888;", "info": "&#8505;"}


def _item(name: str, status: str, headline: str, body: str, rule: str, flags: str = "") -> str:
    return (f'<div class="verdict {status}" data-verdict="{name}" data-status="{status}">'
            f'<h3><span class="status">{_STATUS[status]} {_e(headline)}</span>{flags}</h3>'
            f"<div>{body}</div><p class=\"rule\">Rule: {_e(rule)}</p></div>")


def _pct(a: float, n: int) -> str:
    return f"{100 * a / n:.3g} %" if n else "NA"


def _k_violations(rep: dict, ind: pd.DataFrame, k: int) -> tuple[int, str]:
    """Records violating k-anonymity: kAnon_violations' count where the model has it, else fk < k."""
    row = next((v for v in rep["k_anonymity"]["violations"] if v["k"] == k), None)
    if row is not None:
        return int(row["unweighted"]), "sdcMicro's kAnon_violations"
    return int(np.sum(np.asarray(ind["fk"], dtype=float) < k)), "records with fk < k, from sdcMicro's fk (measure_risk)"


def _verdict(rep: dict, data: pd.DataFrame, keys: list, ind: pd.DataFrame, putil, k: int, notes: _Notes,
             g3: pd.DataFrame, *, masked: bool, before: tuple | None = None) -> str:
    """Plain-language answers, each with its rule: k-anonymity at ``k``, the global risk against its target,
    the riskiest combinations, the loss band -- of the masked file when there is one (what would be released),
    else of the original (``before``: the original's model and individual risks, said for comparison)."""
    which = "the masked file" if masked else "the original file (no masked file was given)"
    n = int(rep["data"]["n_records"])
    combo = " x ".join(keys)
    out = [f"<p>The answers below are about <b>{_e(which)}</b>, {n:,} records, key variables {_e(', '.join(keys))}.</p>"]

    # k-anonymity
    bad, how = _k_violations(rep, ind, k)
    status = "ok" if bad == 0 else "fail"
    head = f"k-anonymity at k = {k}: {'met' if bad == 0 else 'not met'}"
    body = (f"Every key combination is shared by at least {k} records." if bad == 0 else
            f"{bad:,} of {n:,} records ({_pct(bad, n)}) have a key combination shared by fewer than {k} records "
            f"({how}).")
    if before is not None:
        body += f" In the original file: {_k_violations(before[0], before[1], k)[0]:,} records."
    out.append(_item("k-anonymity", status, head, body,
                     f"a file is {k}-anonymous when every record's combination of {combo} occurs at least {k} times in "
                     f"the file (fk >= {k}); a missing key value matches any value (sdcMicro's rule for missing keys)."
                     , notes.flags("k_anon", "measure_risk")))

    # global risk against its target
    g = rep["global"]
    gr, target = g["global_risk"], g["max_global_risk"]
    if _missing(gr) or not np.isfinite(float(gr)):
        status, head, body = "attention", "global risk: undefined", (
            f"The global risk is {_num(gr)}: " + _e(g.get("threshold_note") or "see the warnings") + ".")
    else:
        under = float(gr) <= float(target)
        status = "ok" if under else "fail"
        head = f"global risk {'under' if under else 'above'} the target"
        body = (f"The global risk is {_e(fmt(100 * float(gr), 4))} % ({_e(fmt(g['expected_reidentifications']))} "
                f"expected re-identifications among {n:,} records), {'at or below' if under else 'above'} the "
                f"target {_e(fmt(100 * float(target), 4))} %.")
        if not under and not _missing(g["threshold"]):
            body += (f" Capping the individual risks at {_e(fmt(g['threshold']))} would bring it down to the target "
                     "(sdcMicro's threshold).")
    if before is not None and not _missing(before[0]["global"]["global_risk"]):
        body += f" In the original file: {_e(fmt(100 * float(before[0]['global']['global_risk']), 4))} %."
    h = rep.get("household")
    if h:
        body += f" Household risk: {_e(fmt(h['risk_pct'], 4))} % ({_e(fmt(h['expected_reidentifications']))} expected)."
    out.append(_item("global-risk", status, head, body,
                     f"global risk = expected re-identifications / records, where each record's individual risk is "
                     f"sdcMicro's measure_risk estimate from its fk and Fk (the weights); it meets the target when it "
                     f"is at most max_global_risk = {fmt(target)}.", notes.flags("measure_risk")))

    # the riskiest combinations
    hr = higher_risk(np.asarray(ind["risk"], dtype=float))
    items = "".join(
        f"<li>{_e(', '.join(f'{kk} = {vv}' for kk, vv in zip(keys, idx if isinstance(idx, tuple) else (idx,))))} "
        f"(risk {_e(fmt(r['risk'], 4))}, fk = {_e(_num(r['fk']))}, {int(r['records'])} record"
        f"{'s' if int(r['records']) != 1 else ''})</li>" for idx, r in g3.iterrows())
    cnt = int(hr["count"])
    status = "attention" if cnt else "ok"
    head = (f"{cnt:,} record{'s' if cnt != 1 else ''} at a higher risk than the main part" if cnt else
            "no record at a higher risk than the main part")
    body = (f"The riskiest key combinations (all of them in the section Riskiest key combinations):<ul>{items}</ul>"
            if items else "No key combination.")
    cut = "max(0.1, median + 3 MAD)" if hr["cut"] is None else f"{fmt(hr['cut'], 4)} = max(0.1, median + 3 MAD)"
    out.append(_item("riskiest", status, head, body,
                     f"combinations ranked by their individual risk (sdcMicro's measure_risk), then by fk; a record is "
                     f"at a higher risk than the main part when its risk is above {cut} of the risks "
                     f"(floor {HIGH_RISK_FLOOR:g}, {HIGH_RISK_MADS:g} MADs; what sdcMicro's print of measure_risk "
                     "counts).", ""))

    # the loss band
    if putil is None:
        out.append(_item("loss", "info", "information loss: not assessed",
                         "No masked file was given: the loss compares a masked file with the original.", _GSIL_RULE))
    else:
        gs = putil.results.get("gsil")
        if gs is None or _missing(getattr(gs, "value", None)):
            why = putil.skipped.get("gsil") or "see the warnings"
            out.append(_item("loss", "attention", "information loss: GSIL not available", _e(f"GSIL: {why}."),
                             _GSIL_RULE, notes.flags("gsil")))
        else:
            band = gs.band
            status = {"small": "ok", "medium": "attention"}.get(band, "fail")
            body = (f"GSIL = {_e(fmt(gs.value, 4))} %: the loss is <b>{_e(band)}</b> (literature measure, "
                    f"on {_e(', '.join(map(str, gs.applicable)) or 'its applicable parts')}).")
            odd = [f"{m} {q}" for (m, q), r in putil.to_frame().iterrows() if notes.find(_utility_target(m, q))
                   or _oddity(r["value"], _utility_target(m, q))]
            if odd:
                body += (" Flagged in the information-loss table (warnings or values that cannot be right): "
                         + _e(", ".join(odd)) + ".")
            out.append(_item("loss", status, f"information loss: {band}", body, _GSIL_RULE, notes.flags("gsil")))
    entries = notes.entries()
    placed = sum(1 for e in entries if e["targets"])
    if entries:
        text = (f"{len(entries)} warning{'s' if len(entries) != 1 else ''} came up while the numbers were computed"
                + (f"; {placed} flagged (\u26a0 warning n) next to the numbers {'it concerns' if placed == 1 else 'they concern'}"
                   if placed else "") + (f"; {len(entries) - placed} about no single number" if placed < len(entries)
                                         else "") + ". All are listed under Warnings at the end.")
        out.append(_note(text))
    return "".join(out)

