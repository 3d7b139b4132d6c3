"""An SDC problem stated once, and its assessment built once.

* :mod:`._spec` -- the specification (roles of the variables, validated as sdcMicro's
  ``createSdcObj``), text keys made factors (:func:`as_sdc_keys`), and the one rule for which
  columns each information-loss measure uses (:func:`utility_columns`);
* :mod:`._problem` -- :class:`SdcProblem`: ``risk()``, ``utility()``, ``compare()``, ``report()``;
* :mod:`._results` -- their results (:class:`ProblemRisk`, :class:`ProblemUtility`,
  :class:`ProblemComparison`), whose ``to_dict()`` is the assessment model;
* :mod:`._model` -- the assessment model (JSON formats ``pysdc-risk-1``, ``pysdc-utility-1``), filled
  from the problem's results or from an engine's (DuckDB, Spark);
* :mod:`._assess` -- the assessment the HTML report renders (:mod:`pysdc.report` only renders);
* :mod:`._schema` -- the JSON Schemas of the two formats (docs/json.md).
"""

from ._assess import html_report, report_assessment, write_report
from ._model import engine_risk_model, engine_utility_model, risk_distribution, risk_model, utility_model
from ._problem import SdcProblem
from ._results import ProblemComparison, ProblemRisk, ProblemUtility
from ._schema import RISK_SCHEMA, UTILITY_SCHEMA
from ._spec import (
    D_UTILITY_METHODS,
    DEFAULT_COLLATION,
    K_ANON_KS,
    _validate,  # noqa: F401  (pysdc.r.SdcObj validates its specification as SdcProblem does)
    as_sdc_keys,
    origin,
    utility_columns,
)

__all__ = ["SdcProblem", "ProblemRisk", "ProblemUtility", "ProblemComparison", "origin", "K_ANON_KS",
           "D_UTILITY_METHODS", "as_sdc_keys", "DEFAULT_COLLATION", "utility_columns", "risk_model", "utility_model",
           "engine_risk_model", "engine_utility_model", "risk_distribution", "html_report", "report_assessment",
           "write_report", "RISK_SCHEMA", "UTILITY_SCHEMA"]
