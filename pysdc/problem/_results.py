"""The results of an SDC problem's assessment: :class:`ProblemRisk`, :class:`ProblemUtility`,
:class:`ProblemComparison` -- the measures' results, and (``to_dict()``) the assessment model
(:mod:`pysdc.problem._model`, JSON formats ``pysdc-risk-1`` and ``pysdc-utility-1``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._registry import assessed
from .._results import _Repr
from ._model import risk_model, utility_model
from ._spec import origin

__all__ = ["ProblemRisk", "ProblemUtility", "ProblemComparison"]

#: the registry's utility measures (``assess="utility"``), by name
_UTILITY = {m.python: m for m in assessed("utility")}

# =============================================================================
# results


def _row(section, measure, quantity, value, src=None) -> dict:
    return {"section": section, "measure": measure, "quantity": quantity,
            "value": np.nan if value is None else float(value), "origin": src or origin(measure)}


@dataclass(frozen=True, eq=False, repr=False)
class ProblemRisk(_Repr):
    """Result of :meth:`SdcProblem.risk`: the disclosure-risk measures of one file.

    Attributes
    ----------
    measure_risk : MeasureRiskResult
        :func:`pysdc.measure_risk` with the key variables, weight and household id.
    k_anonymity : pandas.DataFrame
        Index ``k`` (2, 3, 5); columns ``unweighted`` (records with ``fk < k``, sdcMicro's
        ``kAnon_violations``) and, with a weight, ``weighted`` (``Fk < k``).
    suda2 : Suda2Result or None
        :func:`pysdc.suda2` on the key variables; None where it does not apply (see ``skipped``).
    ldiversity : LDiversityResult or None
        :func:`pysdc.ldiversity` of the sensitive variables; None without sensitive variables.
    skipped : dict
        Measure -> why it was not computed (not requested, or refused: see ``errors``).
    n : int
        Number of records.
    distance : dict or None
        With ``masked`` and numeric variables: ``{"d_risk": DRiskResult, "d_risk_rmd": DRiskRMDResult, "k",
        "random_state", "variables", "n_masked", "errors"}`` (:func:`pysdc.d_risk`, :func:`pysdc.d_risk_rmd`
        of the masked numeric variables against the data's).
    linkage : dict or None
        With ``masked`` and numeric variables: ``{"results": {"nn_linkage": NNLinkageResult, "record_linkage":
        RecordLinkageResult, "prob_linkage": ProbLinkageResult} (None where not computed), "variables",
        "n_masked", "n_records" (complete in both files), "n_left_out", "record_linkage_max", "errors",
        "skipped"}``.
    errors : dict
        Measure -> why pysdc refused it on these data (also in ``skipped``).
    key_vars, w, hid, alpha
        The specification and options the numbers were computed with.
    data : pandas.DataFrame
        The records measured (text keys as categoricals), for the key values of the riskiest records.

    ``to_dict(top=10)`` is the assessment model (JSON format ``pysdc-risk-1``) that ``pysdc risk`` prints.
    """

    measure_risk: object
    k_anonymity: pd.DataFrame
    suda2: object = None
    ldiversity: object = None
    skipped: dict = field(default_factory=dict)
    n: int = 0
    distance: dict | None = None
    linkage: dict | None = None
    errors: dict = field(default_factory=dict)
    key_vars: tuple = ()
    w: str | None = None
    hid: str | None = None
    alpha: float = 1.0
    data: pd.DataFrame | None = field(default=None, repr=False)

    def to_dict(self, *, top: int = 10, source: dict | None = None) -> dict:
        """The assessment model of this risk (JSON format ``pysdc-risk-1``, docs/json.md): ``top`` riskiest
        records; ``source``: e.g. ``{"path": ..., "n_columns": ...}`` of the file measured."""
        return risk_model(self, top=top, source=source)

    def to_frame(self) -> pd.DataFrame:
        """The numbers as a long table: ``measure``, ``quantity`` (index) -> ``value``, ``origin``."""
        rows = []
        mr = self.measure_risk
        rows += [_row("risk", "measure_risk", "expected re-identifications", mr.global_risk_er),
                 _row("risk", "measure_risk", "global risk (%)", mr.global_risk_pct),
                 _row("risk", "measure_risk", "threshold", mr.global_threshold)]
        if mr.hier_risk_er is not None:
            rows += [_row("risk", "measure_risk", "household: expected re-identifications", mr.hier_risk_er),
                     _row("risk", "measure_risk", "household: global risk (%)", mr.hier_risk_pct)]
        for k, r in self.k_anonymity.iterrows():
            rows.append(_row("risk", "k_anon_violations", f"records with fk < {k}", r["unweighted"]))
            if "weighted" in r.index:
                rows.append(_row("risk", "k_anon_violations", f"records with Fk < {k} (weighted)", r["weighted"]))
        if self.suda2 is not None:
            dis = np.asarray(self.suda2.dis_score, dtype=float)
            score = np.asarray(self.suda2.score, dtype=float)
            src = "pysdc, from sdcMicro's suda2"
            rows += [_row("risk", "suda2", "records with a SUDA score > 0", np.sum(score > 0), src),
                     _row("risk", "suda2", "highest DIS-SUDA score", np.nanmax(dis) if np.isfinite(dis).any() else None,
                          src)]
        if self.ldiversity is not None:
            t = self.ldiversity.table
            for v in self.ldiversity.ldiv_index:
                d = t[f"{v}_Distinct_Ldiversity"].to_numpy(dtype=float)
                rows += [_row("risk", "ldiversity", f"{v}: lowest distinct l-diversity",
                              np.nanmin(d) if np.isfinite(d).any() else None),
                         _row("risk", "ldiversity", f"{v}: records with distinct l-diversity 1", np.sum(d == 1),
                              "pysdc, from sdcMicro's ldiversity")]
        return pd.DataFrame(rows).set_index(["measure", "quantity"]).drop(columns="section")

    def _repr_html_(self) -> str:
        return f"<p><b>{type(self).__name__}</b> ({self.n} records)</p>" + self.to_frame().to_html()

    def __str__(self) -> str:
        return f"{type(self).__name__} of {self.n} records\n{self.to_frame().to_string()}"


@dataclass(frozen=True, eq=False, repr=False)
class ProblemUtility(_Repr):
    """Result of :meth:`SdcProblem.utility`: every information-loss measure on the declared variables.

    Attributes
    ----------
    results : dict
        Measure -> its result: ``"d_utility.IL1"``, ``"d_utility.IL1s"``, ``"d_utility.eigen"``,
        ``"d_utility.robeigen"`` (:func:`pysdc.d_utility` on ``num_vars``), ``"il_correl"``
        (``num_vars``), ``"il_variables"`` (key and numeric variables), and the literature's: every
        registry entry with ``assess="utility"`` by its name, on the variables its ``compares`` names.
    skipped : dict
        Measure -> why it was not computed (e.g. no numeric variables declared).
    variables : dict
        ``{"keys": [...], "numeric": [...], "categorical": [...], "il_variables": [...], "scales": {...},
        "left_out": [...]}``: which variables each group of measures used
        (:func:`pysdc.problem.utility_columns`, the rule every path shares).
    errors : dict
        Measure -> why pysdc refused it on these data (also in ``skipped``).

    ``to_dict()`` is the assessment model (JSON format ``pysdc-utility-1``) that ``pysdc utility`` prints.
    """

    results: dict
    skipped: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    n_x: int = 0
    n_xm: int = 0
    cols_x: int = 0
    cols_xm: int = 0
    random_state: int | None = None

    def to_dict(self, *, original: dict | None = None, masked: dict | None = None, selected=None,
                only_in: tuple = ([], [])) -> dict:
        """The assessment model of this information loss (JSON format ``pysdc-utility-1``, docs/json.md);
        ``original``, ``masked``: e.g. ``{"path": ..., "n_columns": ...}`` of the files."""
        return utility_model(self, n_x=self.n_x, n_xm=self.n_xm, cols_x=self.cols_x, cols_xm=self.cols_xm,
                             original=original, masked=masked, selected=selected, only_in=only_in,
                             random_state=self.random_state)

    def __getitem__(self, name):
        return self.results[name]

    def to_frame(self) -> pd.DataFrame:
        """Overall values: ``measure``, ``quantity`` (index) -> ``value``, ``origin``."""
        rows = []
        for name, r in self.results.items():
            base, _, method = name.partition(".")
            if base == "d_utility":
                rows.append(_row("utility", base, method, float(r)))
            elif base in ("il_correl", "il_variables"):
                rows.append(_row("utility", base, "value", r.value))
            elif base in _UTILITY:  # the registry's utility measures: the rows their entries' shows name
                shown = _UTILITY[base].shows
                vals = {s.key: s.read(r) for s in shown}
                rows += [_row("utility", base, s.quantity.format(**vals), vals[s.key]) for s in shown if s.quantity]
        if not rows:
            return pd.DataFrame(columns=["value", "origin"],
                                index=pd.MultiIndex.from_arrays([[], []], names=["measure", "quantity"]))
        return pd.DataFrame(rows).set_index(["measure", "quantity"]).drop(columns="section")

    def per_variable(self) -> pd.DataFrame:
        """Per-variable losses: index the variables; columns ``il_variables`` (sdcMicro's), then the per-variable
        columns the registry's utility measures declare (``Shown.column``: ``direct`` and ``ebil`` of
        il_categorical, ``il_entropy``, ``hellinger`` ...); NaN where a measure does not cover a variable."""
        cols = {}
        if "il_variables" in self.results:
            cols["il_variables"] = self.results["il_variables"].per_variable
        for name, m in _UTILITY.items():
            if name in self.results:
                cols.update({s.column: s.raw(self.results[name]) for s in m.shows if s.column})
        order = list(dict.fromkeys(v for s in cols.values() for v in s.index))
        return pd.DataFrame({k: pd.Series(s, dtype=float).reindex(order) for k, s in cols.items()}, index=order)

    def _repr_html_(self) -> str:
        return "<p><b>ProblemUtility</b></p>" + self.to_frame().to_html() + self.per_variable().to_html()

    def __str__(self) -> str:
        return f"ProblemUtility\n{self.to_frame().to_string()}\n\nper variable:\n{self.per_variable().to_string()}"


@dataclass(frozen=True, eq=False, repr=False)
class ProblemComparison(_Repr):
    """Result of :meth:`SdcProblem.compare`: risk before and after masking, and the information loss.

    Attributes
    ----------
    original : ProblemRisk
        The risk of the original data.
    masked : ProblemRisk
        The risk of the masked data (same specification).
    utility : ProblemUtility
        The information loss of the masked data against the original.
    frame : pandas.DataFrame
        Index ``section`` (``risk``/``utility``), ``measure``, ``quantity``; columns ``original``,
        ``masked``, ``change`` (masked - original; for utility the loss is in ``masked``) and
        ``origin`` (``sdcMicro: <R name>``, ``literature`` or ``pysdc``).
    """

    original: ProblemRisk
    masked: ProblemRisk
    utility: ProblemUtility

    @property
    def frame(self) -> pd.DataFrame:
        return self.to_frame()

    def to_frame(self) -> pd.DataFrame:
        a, b = self.original.to_frame(), self.masked.to_frame()
        risk = pd.DataFrame({"original": a["value"], "masked": b["value"].reindex(a.index)})
        extra = b.index.difference(a.index, sort=False)
        if len(extra):
            risk = pd.concat([risk, pd.DataFrame({"original": np.nan, "masked": b.loc[extra, "value"]})])
        risk["change"] = risk["masked"] - risk["original"]
        risk["origin"] = a["origin"].combine_first(b["origin"]).reindex(risk.index)
        u = self.utility.to_frame()
        util = pd.DataFrame({"original": np.nan, "masked": u["value"], "change": np.nan, "origin": u["origin"]},
                            index=u.index)
        out = pd.concat({"risk": risk, "utility": util}, names=["section"])
        return out

    def to_dict(self, *, top: int = 10, source: dict | None = None, masked_source: dict | None = None) -> dict:
        """The assessment models side by side: ``{"original": pysdc-risk-1, "masked": pysdc-risk-1,
        "utility": pysdc-utility-1}``."""
        return {"original": self.original.to_dict(top=top, source=source),
                "masked": self.masked.to_dict(top=top, source=masked_source),
                "utility": self.utility.to_dict(original=source, masked=masked_source)}

    def _repr_html_(self) -> str:
        return "<p><b>ProblemComparison</b>: before and after masking</p>" + self.to_frame().to_html(na_rep="")

    def __str__(self) -> str:
        return f"ProblemComparison: before and after masking\n{self.to_frame().to_string(na_rep='')}"

