"""The ``pysdc`` command line: information loss, disclosure risk, parity.

::

    pysdc utility ORIGINAL MASKED [--vars a,b] [--json] ...   information-loss measures
    pysdc utility --demo                                      ... on the shipped demo data
    pysdc risk DATA --keys a,b,c [--weight w] [--hid h] ...   re-identification risk
    pysdc risk --demo
    pysdc parity ...                                          comparison with sdcMicro (if available)

Input files are CSV (optionally gzipped) or Parquet. A CSV's column types come
from its schema sidecar ``<stem>.schema.json`` when there is one (see
:mod:`pysdc._io`), from ``--schema``, or from R's ``read.csv`` rules; columns
can be declared categorical with ``--categorical a,b`` and ordered with
``--ordered "col=low<mid<high"``.

JSON output (``--json``)
------------------------
One JSON object on stdout, with ``"format": "pysdc-utility-1"`` or
``"pysdc-risk-1"``; its keys are stable (new keys may be added, none removed
or renamed within a format version). Numbers that are not finite are written
as ``null`` (NaN, R's NA) or as the strings ``"Inf"`` / ``"-Inf"``. Warnings
are listed under ``"warnings"`` as ``{"category", "message", "where"}``.

Exit status: 0 on success (also when a single measure could not be computed:
that measure reports ``"status": "error"``), 2 for unusable input or
arguments (one line ``pysdc: error: ...`` on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError, PysdcError
from ._types import r_class

__all__ = ["main", "build_parser"]

PROG = "pysdc"
_SCALES = ("numeric", "ordinal", "nominal")
_DEMO_UTILITY_VARS = ("region", "urbrur", "sex", "age_group", "marital", "education",
                      "income", "expenditure", "savings")
_DEMO_KEYS = ("region", "urbrur", "sex", "age_group", "education")
_RISK_BINS = (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
_QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)


class _UsageError(PysdcError):
    """Bad command-line arguments (reported like any input error)."""


# =============================================================================
# small helpers


def _version() -> str:
    try:
        from . import __version__
    except ImportError:  # pragma: no cover - partial installs
        return "unknown"
    return __version__


def _split_names(text: str | None, what: str) -> list[str] | None:
    if text is None:
        return None
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise _UsageError(f"{what} must be a comma-separated list of column names; got {text!r}.")
    if len(set(names)) != len(names):
        raise _UsageError(f"{what} names a column more than once: {text!r}.")
    return names


def _parse_ordered(specs: list[str] | None) -> dict[str, list[str]]:
    out = {}
    for spec in specs or []:
        col, sep, levels = spec.partition("=")
        col = col.strip()
        lv = [x.strip() for x in levels.split("<")] if sep else []
        if not col or len(lv) < 1 or not all(lv):
            raise _UsageError(
                f"--ordered must look like \"column=low<mid<high\"; got {spec!r}."
            )
        if len(set(lv)) != len(lv):
            raise _UsageError(f"--ordered {spec!r} lists a level twice.")
        out[col] = lv
    return out


def _parse_scales(specs: list[str] | None) -> dict[str, str]:
    out = {}
    for spec in specs or []:
        for part in spec.split(","):
            col, sep, scale = part.partition("=")
            col, scale = col.strip(), scale.strip()
            if not sep or not col or scale not in _SCALES:
                raise _UsageError(
                    f"--scale must look like column=numeric, column=ordinal or column=nominal; got {part!r}."
                )
            out[col] = scale
    return out


def _jsonable(v):
    """Python/NumPy value -> JSON value (NaN -> null, +-Inf -> "Inf"/"-Inf")."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return None
        if math.isinf(f):
            return "Inf" if f > 0 else "-Inf"
        return f
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray, pd.Index)):
        return [_jsonable(x) for x in v]
    if isinstance(v, pd.Series):
        return {str(k): _jsonable(x) for k, x in v.items()}
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return str(v)


def _fmt(v, digits: int = 6) -> str:
    if v is None:
        return "-"
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "NA"
        if math.isinf(f):
            return "Inf" if f > 0 else "-Inf"
        return f"{f:.{digits}g}"
    try:
        if pd.isna(v):
            return "NA"
    except (TypeError, ValueError):
        pass
    return str(v)


def _table(headers: list[str], rows: list[list[str]], right: set[int] = frozenset(), indent: str = "  ") -> str:
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]

    def line(cells):
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return (indent + "  ".join(parts)).rstrip()

    out = [line(headers), indent + "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def _wrap(text: str, indent: str = "  ", width: int = 88) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ")


class _Warnings:
    """Collects warnings, one entry per distinct (category, message)."""

    def __init__(self):
        self.items: dict[tuple[str, str], list[str]] = {}

    def run(self, where: str, fn, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return fn(*args, **kwargs)
            finally:
                for w in caught:
                    key = (w.category.__name__, str(w.message))
                    places = self.items.setdefault(key, [])
                    if where not in places:
                        places.append(where)

    def as_json(self) -> list[dict]:
        return [{"category": c, "message": m, "where": p} for (c, m), p in self.items.items()]

    def emit(self, stream) -> None:
        for (cat, msg), places in self.items.items():
            print(f"{PROG}: warning ({', '.join(places)}): {cat}: {msg}", file=stream)


# =============================================================================
# reading and declaring types


def _load(path: str, schema: str | None, label: str, ws: _Warnings, na_values=None) -> pd.DataFrame:
    from ._io import read_table

    p = Path(path)
    if not p.name.lower().endswith((".parquet", ".pq")) and not p.exists():
        raise FileNotFoundError(f"{label} file {path!r} does not exist")
    return ws.run(f"reading {label}", read_table, p, schema=schema, na_values=tuple(na_values or ("NA",)))


def _declare(df: pd.DataFrame, label: str, categorical: list[str] | None, ordered: dict[str, list[str]]) -> pd.DataFrame:
    df = df.copy()
    for col in categorical or []:
        if col not in df.columns:
            raise InvalidParameterError(f"--categorical names column {col!r}, which {label} does not have.")
        if not isinstance(df[col].dtype, pd.CategoricalDtype):
            df[col] = pd.Categorical(df[col])
    for col, levels in ordered.items():
        if col not in df.columns:
            raise InvalidParameterError(f"--ordered names column {col!r}, which {label} does not have.")
        s = df[col]
        text = s.astype(object).where(s.notna(), None)
        text = text.map(_level_text, na_action="ignore") if text.notna().any() else text
        codes = pd.Index(levels, dtype=object).get_indexer(text.to_numpy(dtype=object))
        cat = pd.Categorical.from_codes(codes, categories=levels, ordered=True)
        unknown = (codes < 0) & s.notna().to_numpy()
        if unknown.any():
            bad = sorted({str(v) for v in text[unknown]})[:8]
            hint = (" Empty text is a value, not a missing value (as in R's read.csv); add --na '' "
                    "to read it as missing." if "" in bad else "")
            raise InvalidParameterError(
                f"column {col!r} of {label} has value(s) {bad} that are not among the levels given by "
                f"--ordered ({' < '.join(levels)}); list every level.{hint}"
            )
        df[col] = cat
    return df


def _level_text(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


# =============================================================================
# utility


_MEASURE_INFO = {
    "IL1": ("dUtility(method = \"IL1\")",
            "sum over all cells of 100*|x - xm|/|x|: percent deviations added up (cells with x = 0 "
            "are left out). 0 = unchanged; grows with the number of cells."),
    "IL1s": ("dUtility(method = \"IL1s\")",
             "sum over all cells of |x - xm|/(sqrt(2)*sd(x)): deviations in standard deviations, "
             "added up. 0 = unchanged."),
    "eigen": ("dUtility(method = \"eigen\")",
              "sum of |e - em|/e over the eigenvalues of the covariance matrices of the standardised "
              "data: how much the correlation structure changed. 0 = unchanged."),
    "robeigen": ("dUtility(method = \"robeigen\")",
                 "as eigen, with the robust (MCD) covariance; MCD draws random subsets, so the value "
                 "depends on the seed (--random-state)."),
    "il_correl": ("IL_correl(x, xm)",
                  "distance between the normalised diagonals of the inverse correlation matrices, "
                  "between 0 (same) and 1."),
    "il_variables": ("IL_variables(x, xm)",
                     "lambda: mean distance per cell, between 0 (same) and 1; numeric cells "
                     "(2/pi)*atan|x - xm|, ordered categories |code difference|/(levels - 1), "
                     "other categories 0/1. Per variable: its distances summed / n."),
}


def _utility(args, out) -> int:
    ws = _Warnings()
    if args.demo:
        if args.original or args.masked:
            raise _UsageError("give either --demo or the files ORIGINAL and MASKED, not both.")
        from .datasets import demo_path

        orig_path, masked_path = str(demo_path(False)), str(demo_path(True))
    else:
        if not args.original or not args.masked:
            raise _UsageError("utility needs two files, ORIGINAL and MASKED (or --demo).")
        orig_path, masked_path = args.original, args.masked

    categorical = _split_names(args.categorical, "--categorical")
    ordered = _parse_ordered(args.ordered)
    scales = _parse_scales(args.scale)
    x = _load(orig_path, args.schema, "ORIGINAL", ws, args.na)
    masked_schema = args.masked_schema
    if masked_schema is None and args.schema is not None:
        from ._io import schema_path

        if not schema_path(masked_path).exists():
            masked_schema = args.schema
    xm = _load(masked_path, masked_schema, "MASKED", ws, args.na)
    x = _declare(x, "ORIGINAL", categorical, ordered)
    xm = _declare(xm, "MASKED", categorical, ordered)

    vars_ = _split_names(args.vars, "--vars")
    if vars_ is None and args.demo:
        vars_ = list(_DEMO_UTILITY_VARS)
    only_x = [c for c in x.columns if c not in xm.columns]
    only_xm = [c for c in xm.columns if c not in x.columns]
    if vars_ is None:
        vars_ = [c for c in x.columns if c in xm.columns]
        if not vars_:
            raise InvalidParameterError("ORIGINAL and MASKED have no column in common; the measures compare "
                                        "variables by name.")
    else:
        for label, df in (("ORIGINAL", x), ("MASKED", xm)):
            miss = [v for v in vars_ if v not in df.columns]
            if miss:
                raise InvalidParameterError(
                    f"--vars names column(s) {miss} that {label} does not have; "
                    f"its columns are {list(df.columns)[:20]}."
                )
    bad_scale = [c for c in scales if c not in vars_]
    if bad_scale:
        raise InvalidParameterError(f"--scale names column(s) {bad_scale} that are not among the variables used "
                                    f"({', '.join(vars_)}).")

    cls_x = {v: r_class(x[v]) for v in vars_}
    cls_xm = {v: r_class(xm[v]) for v in vars_}
    numeric = [v for v in vars_ if cls_x[v] in ("numeric", "integer") and cls_xm[v] in ("numeric", "integer")]
    left_out = []
    for v in vars_:
        if v not in numeric:
            kinds = cls_x[v] if cls_x[v] == cls_xm[v] else f"{cls_x[v]} / {cls_xm[v]}"
            left_out.append({"variable": v, "measures": ["IL1", "IL1s", "eigen", "robeigen", "il_correl"],
                             "reason": f"not numeric ({kinds})", "r_class": kinds})
    ilv = []
    for v in vars_:
        if v in scales:
            ilv.append(v)
        elif cls_x[v] != cls_xm[v]:
            left_out.append({"variable": v, "measures": ["il_variables"],
                             "reason": f"{cls_x[v]} in ORIGINAL but {cls_xm[v]} in MASKED (sdcMicro's IL_variables "
                                       f"fails on different types); declare --scale {v}=numeric|ordinal|nominal",
                             "r_class": f"{cls_x[v]} / {cls_xm[v]}"})
        elif cls_x[v] in ("integer", "logical"):
            left_out.append({"variable": v, "measures": ["il_variables"],
                             "reason": f"{cls_x[v]} column (sdcMicro's IL_variables refuses integer and logical "
                                       f"columns); declare --scale {v}=numeric|ordinal|nominal",
                             "r_class": cls_x[v]})
        else:
            ilv.append(v)

    measures = {}
    for method in ("IL1", "IL1s", "eigen", "robeigen"):
        kw = {"random_state": args.random_state} if method == "robeigen" and args.random_state is not None else {}
        measures[method] = _measure(ws, method, numeric, lambda m=method, kw=kw: _d_utility(x, xm, numeric, m, kw))
        if measures[method]["status"] == "ok" and method in ("IL1", "IL1s"):
            cells = x.shape[0] * len(numeric)
            measures[method]["n_cells"] = cells
            measures[method]["mean_per_cell"] = measures[method]["value"] / cells if cells else float("nan")
    if measures["robeigen"]["status"] == "ok":
        measures["robeigen"]["random_state"] = args.random_state
    measures["il_correl"] = _measure(ws, "il_correl", numeric, lambda: _il_correl(x, xm, numeric))
    measures["il_variables"] = _measure(ws, "il_variables", ilv, lambda: _il_variables(x, xm, ilv, scales))

    report = {
        "format": "pysdc-utility-1",
        "pysdc_version": _version(),
        "original": {"path": orig_path, "n_records": int(x.shape[0]), "n_columns": int(x.shape[1])},
        "masked": {"path": masked_path, "n_records": int(xm.shape[0]), "n_columns": int(xm.shape[1])},
        "variables": {
            "selected": vars_,
            "numeric": numeric,
            "il_variables": ilv,
            "scales": scales,
            "left_out": left_out,
            "only_in_original": only_x if args.vars is None and not args.demo else [],
            "only_in_masked": only_xm if args.vars is None and not args.demo else [],
        },
        "measures": measures,
        "warnings": ws.as_json(),
    }
    if args.json:
        print(json.dumps(_jsonable(report), indent=2, allow_nan=False), file=out)
    else:
        print(_utility_text(report), file=out)
        ws.emit(sys.stderr)
    return 0


def _d_utility(x, xm, cols, method, kw):
    from . import d_utility

    return {"value": float(d_utility(x[cols], xm[cols], method=method, **kw))}


def _il_correl(x, xm, cols):
    from . import il_correl

    r = il_correl(x[cols], xm[cols])
    return {"value": float(r.value), "n_vars": int(r.n_vars), "n_x": int(r.n_x), "n_xm": int(r.n_xm)}


def _il_variables(x, xm, cols, scales):
    from . import il_variables

    kw = {"scales": {k: v for k, v in scales.items() if k in cols}} if scales else {}
    r = il_variables(x[cols], xm[cols], **kw)
    return {"value": float(r.value), "n": int(r.n),
            "per_variable": {str(k): float(v) for k, v in r.per_variable.items()}}


def _measure(ws: _Warnings, name: str, cols: list, compute) -> dict:
    if not cols:
        return {"status": "skipped", "value": None, "error": "no variable of a suitable type was selected"}
    try:
        res = ws.run(name, compute)
    except PysdcError as exc:
        return {"status": "error", "value": None, "error": _cli_message(str(exc))}
    except NotImplementedError:
        return {"status": "error", "value": None, "error": f"{name} is not available in this build of pysdc"}
    except Exception as exc:  # a bug: report it without killing the other measures
        return {"status": "error", "value": None,
                "error": f"internal error ({type(exc).__name__}: {exc}); please report it"}
    return {"status": "ok", **res, "error": None}


def _cli_message(msg: str) -> str:
    """Translate the library's Python-syntax advice into command-line flags."""
    import re

    return re.sub(r"scales=\{'([^']+)': '(\w+)'\}", r"--scale \1=\2", msg)


def _utility_text(rep: dict) -> str:
    L = []
    o, m, v = rep["original"], rep["masked"], rep["variables"]
    L.append("Information loss: MASKED compared with ORIGINAL (sdcMicro's measures)")
    L.append(f"  ORIGINAL  {o['path']}  ({o['n_records']} records, {o['n_columns']} columns)")
    L.append(f"  MASKED    {m['path']}  ({m['n_records']} records, {m['n_columns']} columns)")
    L.append("")
    L.append("Variables")
    L.append(_wrap("numeric measures (IL1, IL1s, eigen, robeigen, il_correl): "
                   + (", ".join(v["numeric"]) or "none")))
    L.append(_wrap("il_variables: " + (", ".join(
        f"{c} ({v['scales'][c]})" if c in v["scales"] else c for c in v["il_variables"]) or "none")))
    not_numeric = [i for i in v["left_out"] if "IL1" in i["measures"]]
    if not_numeric:
        L.append(_wrap("left out of the numeric measures (not numeric): " + ", ".join(
            f"{i['variable']} ({i['r_class']})" for i in not_numeric)))
    for item in v["left_out"]:
        if "IL1" not in item["measures"]:
            L.append(_wrap(f"left out of {', '.join(item['measures'])}: {item['variable']}, {item['reason']}"))
    if v["only_in_original"] or v["only_in_masked"]:
        L.append(_wrap("not compared (in one file only): "
                       + ", ".join(v["only_in_original"] + v["only_in_masked"])))
    L.append("")
    L.append("Measures")
    rows = []
    for name, res in rep["measures"].items():
        call = _MEASURE_INFO[name][0]
        if res["status"] == "ok":
            note = ""
            if "mean_per_cell" in res:
                note = f"sum over n*p = {res['n_cells']} cells; / (n*p) = {_fmt(res['mean_per_cell'], 4)}"
            elif name == "il_correl":
                note = f"{res['n_vars']} variables; records {res['n_x']} (x) / {res['n_xm']} (xm), complete records only in the correlations"
            elif name == "il_variables":
                note = f"{len(res['per_variable'])} variables x {res['n']} records"
            elif name == "robeigen":
                rs = res.get("random_state")
                note = f"random_state={rs}" if rs is not None else "random seed (use --random-state to fix it)"
            rows.append([name, _fmt(res["value"]), note, call])
        else:
            rows.append([name, "-", res["status"], call])
    L.append(_table(["measure", "value", "note", "sdcMicro"], rows, right={1}))
    failed = [(n, r) for n, r in rep["measures"].items() if r["status"] != "ok"]
    if failed:
        L.append("")
        L.append("Not computed")
        for n, r in failed:
            L.append(_wrap(f"{n}: {r['error']}"))
    ilv = rep["measures"]["il_variables"]
    if ilv["status"] == "ok" and ilv["per_variable"]:
        L.append("")
        L.append("il_variables per variable (sum of distances / n; lambda is their mean)")
        rows = [[k, _fmt(val, 4), v["scales"].get(k, "")] for k, val in ilv["per_variable"].items()]
        L.append(_table(["variable", "contribution", "declared scale"], rows, right={1}))
    L.append("")
    L.append("What the numbers mean")
    for name in rep["measures"]:
        L.append(_wrap(f"{name}: {_MEASURE_INFO[name][1]}"))
    return "\n".join(L)


# =============================================================================
# risk


def _risk(args, out) -> int:
    ws = _Warnings()
    if args.demo:
        if args.data:
            raise _UsageError("give either --demo or the file DATA, not both.")
        from .datasets import demo_path

        path = str(demo_path(bool(args.masked)))
        keys = _split_names(args.keys, "--keys") or list(_DEMO_KEYS)
        weight = args.weight if args.weight is not None else "weight"
        hid = args.hid if args.hid is not None else "hid"
    else:
        if not args.data:
            raise _UsageError("risk needs a file DATA (or --demo).")
        if args.masked:
            raise _UsageError("--masked only goes with --demo.")
        path = args.data
        keys = _split_names(args.keys, "--keys")
        if keys is None:
            raise _UsageError("risk needs the key variables: --keys a,b,c.")
        weight, hid = args.weight, args.hid
    if args.top < 0:
        raise _UsageError(f"--top must be 0 or more; got {args.top}.")
    data = _load(path, args.schema, "DATA", ws, args.na)
    data = _declare(data, "DATA", _split_names(args.categorical, "--categorical"), _parse_ordered(args.ordered))
    for flag, col in (("--keys", None), ("--weight", weight), ("--hid", hid)):
        cols = keys if flag == "--keys" else ([col] if col is not None else [])
        miss = [c for c in cols if c not in data.columns]
        if miss:
            raise InvalidParameterError(
                f"{flag} names column(s) {miss} that DATA does not have; its columns are {list(data.columns)[:20]}."
            )

    from . import measure_risk

    try:
        res = ws.run("measure_risk", measure_risk, data, keys, w=weight, hid=hid,
                     max_global_risk=args.max_global_risk, alpha=args.alpha)
    except NotImplementedError:
        raise PysdcError("measure_risk is not available in this build of pysdc") from None

    ind = res.individual
    risk = np.asarray(ind["risk"], dtype=np.float64)
    fk = np.asarray(ind["fk"], dtype=np.float64)
    n = int(risk.size)
    report = {
        "format": "pysdc-risk-1",
        "pysdc_version": _version(),
        "data": {"path": path, "n_records": n, "n_columns": int(data.shape[1])},
        "key_vars": keys,
        "weight": weight,
        "hid": hid,
        "alpha": args.alpha,
        "global": {
            "expected_reidentifications": res.global_risk_ER,
            "global_risk": res.global_risk,
            "global_risk_pct": res.global_risk_pct,
            "max_global_risk": res.max_global_risk,
            "threshold": res.global_threshold,
        },
        "household": None if res.hier_risk_ER is None else {
            "expected_reidentifications": res.hier_risk_ER,
            "risk": res.hier_risk,
            "risk_pct": res.hier_risk_pct,
        },
        "k_anonymity": {
            "fk_lt_2": int(np.sum(fk < 2)),
            "fk_lt_3": int(np.sum(fk < 3)),
            "share_fk_lt_2": float(np.mean(fk < 2)) if n else None,
            "share_fk_lt_3": float(np.mean(fk < 3)) if n else None,
        },
        "individual_risk": _risk_distribution(risk),
        "top": _top_records(data, ind, keys, args.top),
        "warnings": ws.as_json(),
    }
    if args.json:
        print(json.dumps(_jsonable(report), indent=2, allow_nan=False), file=out)
    else:
        print(_risk_text(report), file=out)
        ws.emit(sys.stderr)
    return 0


def _risk_distribution(risk: np.ndarray) -> dict:
    ok = risk[~np.isnan(risk)]
    q = {f"{int(round(p * 100))}%": (float(np.quantile(ok, p)) if ok.size else None) for p in _QUANTILES}
    edges = np.asarray(_RISK_BINS)
    idx = np.searchsorted(edges, ok, side="right") - 1
    idx[ok == edges[-1]] = len(edges) - 2  # the last bin is closed: [0.5, 1]
    counts = np.bincount(idx[(idx >= 0) & (idx < len(edges) - 1)], minlength=len(edges) - 1)
    bins = [{"lower": float(edges[i]), "upper": float(edges[i + 1]), "count": int(counts[i]),
             "share": float(counts[i] / ok.size) if ok.size else None} for i in range(len(edges) - 1)]
    above = int(np.sum(ok > edges[-1]))
    return {"mean": float(ok.mean()) if ok.size else None, "quantiles": q, "bins": bins,
            "n_above_1": above, "n_missing": int(risk.size - ok.size)}


def _top_records(data: pd.DataFrame, ind: pd.DataFrame, keys: list, top: int) -> list[dict]:
    if top == 0 or len(ind) == 0:
        return []
    risk = np.asarray(ind["risk"], dtype=np.float64)
    order = np.argsort(np.where(np.isnan(risk), -np.inf, -risk), kind="stable")[:top]
    rows = []
    keyvals = data[keys].iloc[order]
    cols = [c for c in ("fk", "Fk", "risk", "hier_risk") if c in ind.columns]
    vals = ind[cols].iloc[order]
    for j, pos in enumerate(order):
        row = {"record": int(pos) + 1}
        row.update({k: _jsonable(keyvals.iat[j, i]) for i, k in enumerate(keys)})
        row.update({c: _jsonable(vals.iat[j, i]) for i, c in enumerate(cols)})
        rows.append(row)
    return rows


def _risk_text(rep: dict) -> str:
    L = []
    d, g, k = rep["data"], rep["global"], rep["k_anonymity"]
    n = d["n_records"]
    L.append("Re-identification risk (sdcMicro's measure_risk)")
    L.append(f"  DATA      {d['path']}  ({n} records)")
    L.append(f"  keys      {', '.join(rep['key_vars'])}")
    L.append(f"  weight    {rep['weight'] or 'none (sample = population: risk = 1/fk)'}")
    L.append(f"  household {rep['hid'] or 'none'}")
    if rep["alpha"] != 1.0:
        L.append(f"  alpha     {rep['alpha']} (weight of missing key values as wildcards)")
    L.append("")
    rows = [
        ["expected re-identifications", _fmt(g["expected_reidentifications"]), "sum of the individual risks"],
        ["global risk", _fmt(g["global_risk_pct"], 4) + " %", "expected re-identifications / records"],
        ["threshold", _fmt(g["threshold"]),
         f"records above it need protection for a global risk <= {_fmt(100 * g['max_global_risk'], 4)} %"
         + (" (NA: sdcMicro gives none here)" if g["threshold"] is None or g["threshold"] != g["threshold"]
            else "")],
    ]
    if rep["household"] is not None:
        h = rep["household"]
        rows += [
            ["household: expected re-identifications", _fmt(h["expected_reidentifications"]),
             "a person is re-identified if anyone in the household is"],
            ["household: global risk", _fmt(h["risk_pct"], 4) + " %", ""],
        ]

    def share(c, s):
        return f"{c} ({_fmt(100 * s, 3)} %)" if s is not None else str(c)

    rows += [
        ["records violating 2-anonymity", share(k["fk_lt_2"], k["share_fk_lt_2"]), "fk < 2: unique in the sample"],
        ["records violating 3-anonymity", share(k["fk_lt_3"], k["share_fk_lt_3"]), "fk < 3"],
    ]
    L.append(_table(["measure", "value", "meaning"], rows, right={1}))
    dist = rep["individual_risk"]
    L.append("")
    L.append("Individual risk: distribution")
    q = dist["quantiles"]
    L.append(_table(list(q.keys()) + ["mean"], [[_fmt(v, 4) for v in q.values()] + [_fmt(dist["mean"], 4)]],
                    right=set(range(len(q) + 1))))
    L.append("")
    m = max([b["count"] for b in dist["bins"]] + [1])
    rows = [[f"[{_fmt(b['lower'])}, {_fmt(b['upper'])}{']' if b['upper'] == 1.0 else ')'}",
             str(b["count"]), _fmt(100 * b["share"], 3) + " %" if b["share"] is not None else "-",
             "#" * int(round(40 * b["count"] / m))] for b in dist["bins"]]
    L.append(_table(["risk", "records", "share", ""], rows, right={1, 2}))
    if dist["n_missing"]:
        L.append(f"  ({dist['n_missing']} records have no risk value)")
    if rep["top"]:
        L.append("")
        L.append(f"Riskiest records (top {len(rep['top'])}; record = 1-based row number, as in R)")
        cols = list(rep["top"][0].keys())
        rows = [[_fmt(r[c], 4) if c in ("fk", "Fk", "risk", "hier_risk") else _fmt(r[c]) for c in cols]
                for r in rep["top"]]
        right = {i for i, c in enumerate(cols) if c in ("record", "fk", "Fk", "risk", "hier_risk")}
        L.append(_table(cols, rows, right=right))
    L.append("")
    L.append("What the numbers mean")
    L.append(_wrap("fk: records in the sample with the same key values; Fk: their estimated number in the "
                   "population (sum of weights); risk: probability that the record is re-identified "
                   "(sdcMicro's indivRisk, approx method). Missing key values match any value."))
    return "\n".join(L)


# =============================================================================
# parser and entry point


def _add_type_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--na", action="append", metavar="TEXT",
                   help="text that means a missing value in CSV files (repeatable; default NA, like R's "
                        "na.strings); --na '' also reads empty text fields as missing")
    p.add_argument("--categorical", metavar="A,B",
                   help="treat these columns as categorical (R factor), levels sorted")
    p.add_argument("--ordered", action="append", metavar='"COL=low<mid<high"',
                   help="treat COL as an ordered categorical with these levels (repeatable)")


def build_parser(parity=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Statistical disclosure control measures, number for number with sdcMicro.",
        epilog="Run 'pysdc COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    u = sub.add_parser(
        "utility", help="information loss between an original and a masked file",
        description="Information-loss measures of MASKED relative to ORIGINAL: dUtility's IL1, IL1s, eigen, "
                    "robeigen (numeric variables), IL_correl and IL_variables.",
    )
    u.add_argument("original", nargs="?", metavar="ORIGINAL", help="original data (.csv, .csv.gz, .parquet)")
    u.add_argument("masked", nargs="?", metavar="MASKED", help="masked data, same records in the same order")
    u.add_argument("--demo", action="store_true", help="use pysdc's demo data (original and masked)")
    u.add_argument("--vars", metavar="A,B,C", help="variables to compare (default: all common columns)")
    u.add_argument("--schema", metavar="S", help="schema JSON of ORIGINAL (default: its sidecar, if any)")
    u.add_argument("--masked-schema", metavar="S",
                   help="schema JSON of MASKED (default: its sidecar, else --schema)")
    _add_type_flags(u)
    u.add_argument("--scale", action="append", metavar="COL=SCALE",
                   help="declare a variable's scale for il_variables: numeric, ordinal or nominal (repeatable; "
                        "needed for integer and logical columns)")
    u.add_argument("--random-state", type=int, metavar="N", help="seed for robeigen's random MCD subsets")
    u.add_argument("--json", action="store_true", help="print JSON instead of text")
    u.set_defaults(run=_utility)

    r = sub.add_parser(
        "risk", help="re-identification risk of a file",
        description="Individual, global and household re-identification risk (sdcMicro's measure_risk).",
    )
    r.add_argument("data", nargs="?", metavar="DATA", help="data file (.csv, .csv.gz, .parquet)")
    r.add_argument("--demo", action="store_true", help="use pysdc's demo data")
    r.add_argument("--masked", action="store_true", help="with --demo: the masked demo data")
    r.add_argument("--keys", metavar="A,B,C", help="key (quasi-identifying) variables")
    r.add_argument("--weight", metavar="W", help="sampling weight column")
    r.add_argument("--hid", metavar="H", help="household id column (household risk)")
    r.add_argument("--max-global-risk", type=float, default=0.01, metavar="R",
                   help="maximum global risk the threshold is computed for, in (0, 1) (default 0.01)")
    r.add_argument("--alpha", type=float, default=1.0, metavar="A",
                   help="weight of missing key values as wildcards, in [0, 1] (default 1)")
    r.add_argument("--top", type=int, default=10, metavar="N", help="show the N riskiest records (default 10)")
    r.add_argument("--schema", metavar="S", help="schema JSON of DATA (default: its sidecar, if any)")
    _add_type_flags(r)
    r.add_argument("--json", action="store_true", help="print JSON instead of text")
    r.set_defaults(run=_risk)

    if parity is None:
        sub.add_parser("parity", help="compare pysdc with sdcMicro (needs R and sdcMicro)", add_help=False)
    elif isinstance(parity, str):
        pp = sub.add_parser("parity", help="compare pysdc with sdcMicro (not available)")
        pp.set_defaults(run=lambda args, out, why=parity: _parity_unavailable(why))
    else:
        pp = sub.add_parser("parity", help="compare pysdc with sdcMicro (needs R and sdcMicro)")
        parity.add_arguments(pp)
        pp.set_defaults(run=lambda args, out, mod=parity: int(mod.run(args) or 0))
    return parser


def _parity_module():
    """pysdc._parity if it offers add_arguments/run, else a reason why not."""
    try:
        from . import _parity
    except ImportError as exc:
        return f"this installation has no parity module ({exc})"
    except Exception as exc:  # a broken optional module must not break the CLI
        return f"the parity module failed to load ({type(exc).__name__}: {exc})"
    if not (callable(getattr(_parity, "add_arguments", None)) and callable(getattr(_parity, "run", None))):
        return "the parity module offers no command-line entry point"
    return _parity


def _parity_unavailable(why: str) -> int:
    print(f"{PROG}: error: parity is not available: {why}", file=sys.stderr)
    return 2


def _first_positional(argv: list[str]) -> str | None:
    for a in argv:
        if not a.startswith("-"):
            return a
    return None


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = sys.stdout
    parity = _parity_module() if _first_positional(argv) == "parity" else None
    parser = build_parser(parity)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (argparse printed them)
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if getattr(args, "command", None) is None or not hasattr(args, "run"):
        parser.print_help(out)
        return 2 if getattr(args, "command", None) is None else 0
    try:
        return int(args.run(args, out))
    except BrokenPipeError:  # e.g. `pysdc utility --demo | head`: stop quietly
        _silence_stdout()
        return 1
    except (PysdcError, OSError) as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured in tests)
        pass


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError) and exc.filename and not str(exc).startswith(("no such", "ORIGINAL",
                                                                                         "MASKED", "DATA")):
        return f"no such file: {exc.filename!r}"
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename!r}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
