"""The JSON Schemas of the assessment model: ``pysdc-risk-1`` and ``pysdc-utility-1`` (docs/json.md).

One format whatever computed it: pandas (one row per record) or an engine (DuckDB, Spark: one row per key
combination). Where the two differ the schema says how (``top_unit``; a measure an engine cannot compute is
``"skipped"`` with the reason). Non-finite numbers are written as the strings ``"Inf"``, ``"-Inf"`` (and a
missing one as ``null``), as :func:`pysdc.report.jsonable` writes them.
"""

from __future__ import annotations

from .._registry import assessed
from ._spec import D_UTILITY_METHODS

__all__ = ["RISK_SCHEMA", "UTILITY_SCHEMA"]

_NUM = {"type": ["number", "string", "null"]}  # a number; "Inf"/"-Inf" when not finite; null when missing
_INT = {"type": "integer"}
_STR_OR_NULL = {"type": ["string", "null"]}
_ENGINE = {"enum": ["pandas", "duckdb", "spark"]}
_STATUS = {"enum": ["ok", "skipped", "error"]}

_MEASURE = {"type": "object", "required": ["status", "value", "error"],
            "properties": {"status": _STATUS, "value": _NUM, "error": _STR_OR_NULL}}

RISK_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pysdc-risk-1",
    "type": "object",
    "required": ["format", "pysdc_version", "engine", "data", "key_vars", "weight", "hid", "alpha", "global",
                 "household", "k_anonymity", "individual_risk", "top_unit", "top", "suda2", "distance",
                 "linkage", "provenance"],
    "properties": {
        "format": {"const": "pysdc-risk-1"},
        "pysdc_version": {"type": "string"},
        "engine": _ENGINE,
        "data": {"type": "object", "required": ["path", "n_records", "n_columns", "n_key_combinations"],
                 "properties": {"path": {"type": "string"}, "n_records": _INT, "n_columns": _INT,
                                "n_key_combinations": {"type": ["integer", "null"]}}},
        "key_vars": {"type": "array", "items": {"type": "string"}},
        "weight": _STR_OR_NULL,
        "hid": _STR_OR_NULL,
        "alpha": {"type": "number"},
        "global": {"type": "object",
                   "required": ["expected_reidentifications", "global_risk", "global_risk_pct", "max_global_risk",
                                "threshold", "threshold_note"],
                   "properties": {"expected_reidentifications": _NUM, "global_risk": _NUM, "global_risk_pct": _NUM,
                                  "max_global_risk": _NUM, "threshold": _NUM, "threshold_note": _STR_OR_NULL}},
        "household": {"type": ["object", "null"],
                      "required": ["expected_reidentifications", "risk", "risk_pct"]},
        "k_anonymity": {
            "type": "object", "required": ["violations"],
            "properties": {"violations": {"type": "array", "items": {
                "type": "object", "required": ["k", "unweighted", "unweighted_share", "weighted", "weighted_share"],
                "properties": {"k": _INT, "unweighted": _INT, "weighted": {"type": ["integer", "null"]}}}}}},
        "individual_risk": {"type": "object", "required": ["mean", "quantiles", "bins", "n_above_1", "n_missing"],
                            "properties": {"bins": {"type": "array", "items": {
                                "type": "object", "required": ["lower", "upper", "count", "share"]}}}},
        "top_unit": {"enum": ["record", "combination"]},
        "top": {"type": "array", "items": {"type": "object", "required": ["fk", "Fk", "risk"]}},
        "suda2": {"type": "object", "required": ["status", "error"], "properties": {"status": _STATUS}},
        "distance": {"type": ["object", "null"]},
        "linkage": {"type": ["object", "null"],
                    "required": ["variables", "masked", "paired_by", "n_records", "n_left_out", "record_linkage_max",
                                 "measures"],
                    "properties": {"variables": {"type": "array", "items": {"type": "string"}},
                                   "masked": {"type": ["object", "null"]},
                                   "n_records": {"type": ["integer", "null"]},
                                   "n_left_out": {"type": ["integer", "null"]},
                                   "record_linkage_max": {"type": ["integer", "null"]},
                                   "measures": {"type": "object",
                                                "required": [m.python for m in assessed("linkage")],
                                                "additionalProperties": _MEASURE}}},
        "provenance": {"type": "object"},
        "output": {"type": "object", "required": ["path", "columns"]},
        "warnings": {"type": "array", "items": {"type": "object", "required": ["category", "message", "where"]}},
    },
    "allOf": [
        {"if": {"properties": {"top_unit": {"const": "record"}}},
         "then": {"properties": {"top": {"items": {"required": ["record"]}}}}},
        {"if": {"properties": {"top_unit": {"const": "combination"}}},
         "then": {"properties": {"top": {"items": {"required": ["records"]}}}}},
    ],
}

_SIDE = {"type": "object", "required": ["path", "n_records", "n_columns"],
         "properties": {"path": {"type": "string"}, "n_records": _INT, "n_columns": _INT}}
_NAMES = {"type": "array", "items": {"type": "string"}}

UTILITY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pysdc-utility-1",
    "type": "object",
    "required": ["format", "pysdc_version", "engine", "paired_by", "original", "masked", "variables", "measures",
                 "literature", "provenance"],
    "properties": {
        "format": {"const": "pysdc-utility-1"},
        "pysdc_version": {"type": "string"},
        "engine": _ENGINE,
        "paired_by": {"type": "string"},
        "original": _SIDE,
        "masked": _SIDE,
        "variables": {"type": "object",
                      "required": ["selected", "numeric", "categorical", "il_variables", "scales", "left_out",
                                   "only_in_original", "only_in_masked"],
                      "properties": {"selected": _NAMES, "numeric": _NAMES, "categorical": _NAMES,
                                     "il_variables": _NAMES, "scales": {"type": "object"},
                                     "left_out": {"type": "array", "items": {
                                         "type": "object", "required": ["variable", "measures", "reason"]}}}},
        "measures": {"type": "object",
                     "required": [*D_UTILITY_METHODS, "il_correl", "il_variables"],
                     "additionalProperties": _MEASURE},
        "literature": {"type": "object", "required": ["note", "variables", "measures"],
                       "properties": {"measures": {
                           "type": "object",
                           "required": [m.python for m in assessed("utility")],
                           "additionalProperties": _MEASURE}}},
        "provenance": {"type": "object"},
        "variable_selection": {"type": "object"},
        "benchmarks": {"type": "object"},
        "plots": {"type": "object"},
        "warnings": {"type": "array"},
    },
}
