"""R formulae for regressions: ``log(y) ~ a + I(a^2) + f*g``, evaluated to R's model frame and matrix.

Extends the formula subset of :mod:`pysdc.core.formula` (variable names and the operators ``+ - * : ^``,
parentheses, ``0``/``1``) with what regression formulae need: calls of ``log``, ``log2``, ``log10``,
``log1p``, ``exp``, ``sqrt``, ``abs`` and ``I(...)`` with arithmetic (``+ - * / ^``, unary minus, numbers)
and comparisons (``> >= < <= == !=``, giving logical variables) inside. Each such call is one *variable*,
named by R's deparsed text (``log(income)``, ``I(age^2)``, ``log(expenditure + 1)``), and the term
ordering, contrasts and column names are those of :func:`pysdc.core.formula.model_matrix` (which this
module calls with the deparsed names). The model frame follows ``lm``/``glm``: evaluate every variable,
drop records with a missing (NA or NaN) value in any of them or in the weights (``na.omit``), then drop
unused factor levels (``drop.unused.levels = TRUE``).

The limits of :mod:`pysdc.core.formula` apply: nesting (parentheses, calls, signs, powers) deeper than
:data:`~pysdc.core.formula.MAX_DEPTH` levels, more than :data:`~pysdc.core.formula.MAX_ELEMENTS` names,
numbers and operators, and more than :data:`~pysdc.core.formula.MAX_TERMS` terms — counted before a
product or a power is expanded — are refused with :class:`~pysdc.InvalidParameterError` saying so.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import DegenerateResultWarning, InvalidParameterError
from . import formula as _f

__all__ = ["RegressionFormula", "parse_regression_formula", "ModelFrame", "model_frame", "deparse_number"]

_TOK = re.compile(
    r"\s*(?:(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*)|`(?P<quoted>[^`]+)`"
    r"|(?P<op>>=|<=|==|!=|[~+\-*/:^(),<>]))"
)
_FUNS = {
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
    "sqrt": np.sqrt, "abs": np.abs, "I": None,
}
_SYNTAX = re.compile(r"^[A-Za-z.][A-Za-z0-9._]*$")


def _refuse(text, why):
    raise InvalidParameterError(f"formula {_f._shown(text)}: {why}")


def deparse_number(v: float) -> str:
    """A number as R's ``deparse`` writes it (15 significant digits, fixed unless scientific is shorter)."""
    if not np.isfinite(v):
        return "NaN" if np.isnan(v) else "Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        fixed = str(int(v))
    else:
        fixed = f"{v:.15g}"
        if "e" in fixed:
            fixed = np.format_float_positional(v, precision=15, unique=True, trim="-")
    sci = f"{v:.15e}"
    mant, exp = sci.split("e")
    mant = mant.rstrip("0").rstrip(".")
    e = int(exp)
    sci = f"{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    return fixed if len(fixed) <= len(sci) else sci


def _tokens(text):
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        if len(out) >= _f.MAX_ELEMENTS:
            _refuse(text, f"it has more than {_f.MAX_ELEMENTS} names, numbers and operators (the limit).")
        m = _TOK.match(text, pos)
        if not m:
            _refuse(text, f"cannot read it at {text[pos:pos + 10]!r} (supported: names, numbers, + - * / : ^ ( ) , "
                          "comparisons, and the functions " + ", ".join(_FUNS) + ").")
        kind = m.lastgroup
        val = m.group(kind)
        out.append(("name" if kind == "quoted" else kind, val))
        pos = m.end()
    out.append(("end", None))
    return out


# AST: ("num", v) ("name", s) ("call", f, [args]) ("bin", op, a, b) ("neg", a) ("par", a)
_BIN = [("cmp", (">", ">=", "<", "<=", "==", "!=")), ("add", ("+", "-")), ("mul", ("*", "/"))]


class _P:
    def __init__(self, text):
        self.text = text
        self.t = _tokens(text)
        self.i = 0
        self.depth = 0

    def enter(self):
        self.depth += 1
        if self.depth > _f.MAX_DEPTH:
            _refuse(self.text, f"it is nested more than {_f.MAX_DEPTH} levels deep (parentheses, calls, signs and "
                               "powers; the limit).")

    def leave(self):
        self.depth -= 1

    def peek(self):
        return self.t[self.i]

    def take(self, val=None):
        tok = self.t[self.i]
        if val is not None and tok[1] != val:
            _refuse(self.text, f"expected {val!r}, found {tok[1] or 'the end'}.")
        self.i += 1
        return tok

    def formula(self):
        if self.peek()[1] == "~":
            self.take("~")
            lhs = None
        else:
            lhs = self.expr(0)
            self.take("~")
        rhs = self.expr(0)
        if self.peek()[0] != "end":
            _refuse(self.text, f"unexpected {self.peek()[1]!r}.")
        return lhs, rhs

    def expr(self, level):
        if level == len(_BIN):
            return self.colon()
        ops = _BIN[level][1]
        left = self.expr(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in ops:
            op = self.take()[1]
            left = ("bin", op, left, self.expr(level + 1))
        return left

    def colon(self):
        left = self.unary()
        while self.peek()[1] == ":":
            self.take()
            left = ("bin", ":", left, self.unary())
        return left

    def unary(self):
        if self.peek()[1] in ("-", "+"):
            sign = self.take()[1]
            self.enter()
            inner = self.unary()
            self.leave()
            return ("neg", inner) if sign == "-" else inner
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek()[1] == "^":
            self.take()
            self.enter()
            node = ("bin", "^", base, self.unary())  # right-associative, binds tighter than unary minus on the left
            self.leave()
            return node
        return base

    def atom(self):
        kind, val = self.take()
        if kind == "num":
            return ("num", float(val))
        if kind == "name":
            if self.peek()[1] == "(":
                if val not in _FUNS:
                    _refuse(self.text, f"function {val}() is not supported (supported: {', '.join(_FUNS)}).")
                self.take("(")
                self.enter()
                arg = self.expr(0)
                if self.peek()[1] == ",":
                    _refuse(self.text, f"{val}() takes one argument here.")
                self.take(")")
                self.leave()
                return ("call", val, arg)
            return ("name", val)
        if val == "(":
            self.enter()
            e = self.expr(0)
            self.take(")")
            self.leave()
            return ("par", e)
        _refuse(self.text, f"unexpected {val or 'end of formula'!r}.")


def _spine(e):
    """A chain of binary nodes down the left side, without recursion: ``(first, [(node, op, right), ...])``
    in evaluation order, so that folding ``op`` over it gives the node's value (a long ``a + b + c + ...``
    nests to the left as deep as it has terms)."""
    rest = []
    while e[0] == "bin":
        rest.append((e, e[1], e[3]))
        e = e[2]
    rest.reverse()
    return e, rest


def _dep(e) -> str:
    k = e[0]
    if k == "bin":
        first, rest = _spine(e)
        out = [_dep(first)]
        for _node, op, right in rest:
            out.append(op if op in ("^", ":", "/") else f" {op} ")
            out.append(_dep(right))
        return "".join(out)
    if k == "num":
        return deparse_number(e[1])
    if k == "name":
        return e[1] if _SYNTAX.match(e[1]) else f"`{e[1]}`"
    if k == "call":
        return f"{e[1]}({_dep(e[2])})"
    if k == "neg":
        return f"-{_dep(e[1])}"
    return f"({_dep(e[1])})"  # par


@dataclass(frozen=True)
class RegressionFormula:
    """A parsed regression formula.

    Attributes
    ----------
    text : str
    response : tuple or None
        The response expression (AST) or None.
    response_label : str or None
        Its deparsed text (``log(income)``).
    variables : dict
        Deparsed label -> expression, in order of first appearance (the response first).
    formula : pysdc.core.formula.Formula
        Terms and intercept in R's order, over the deparsed labels.
    """

    text: str
    response: tuple | None
    response_label: str | None
    variables: dict
    formula: _f.Formula


def _terms(e, text, variables):
    """Formula-operator expansion of the right-hand side: returns (list of frozensets, intercept flag or None).

    Bounded like :mod:`pysdc.core.formula`: products and powers are counted before they are expanded and
    refused past :data:`~pysdc.core.formula.MAX_TERMS` terms.
    """
    k = e[0]
    if k == "num":
        if e[1] in (0.0, 1.0):
            return [], (e[1] == 1.0)
        _refuse(text, f"the number {deparse_number(e[1])} cannot be a term (only 0 and 1).")
    if k == "par":
        return _terms(e[1], text, variables)
    if k in ("name", "call"):
        lab = _dep(e)
        variables.setdefault(lab, e)
        return [frozenset([lab])], None
    if k == "neg":
        if e[1][0] == "num" and e[1][1] in (0.0, 1.0):
            return [], e[1][1] == 0.0  # -1: no intercept; -0: intercept
        _refuse(text, "a '-' before a term is only supported as '-1' (no intercept).")
    first, rest = _spine(e)  # a long sum nests to the left: fold it instead of recursing
    acc, ic = _terms(first, text, variables)
    acc = dict.fromkeys(acc)  # an insertion-ordered set

    def refuse(why):
        _refuse(text, why + ".")

    for _node, op, right in rest:
        if op in ("+", "-"):
            rt, ri = _terms(right, text, variables)
            if op == "+":
                acc.update(dict.fromkeys(rt))
                if len(acc) > _f.MAX_TERMS:
                    _f._too_many(refuse, "the sum of terms", None)
                ic = ri if ri is not None else ic
            else:
                drop = set(rt)
                acc = {t: None for t in acc if t not in drop}
                ic = False if ri is True else True if ri is False else ic
        elif op in (":", "*"):
            rt, _ = _terms(right, text, variables)
            acc = dict.fromkeys(_f._cross(list(acc), rt, refuse, "an interaction ':'" if op == ":" else
                                          "a product '*'", sides=op == "*"))
            ic = None
        elif op == "^":
            p = right[1] if right[0] == "num" else None
            if p is None or not np.isfinite(p) or p != int(p) or p < 1:
                _refuse(text, "the power of a term must be a positive integer (use I(x^2) for a squared variable).")
            acc = dict.fromkeys(_f._power(list(acc), int(min(p, 1e18)), refuse))
            ic = None
        else:
            _refuse(text, f"operator {op!r} cannot be used between terms; wrap arithmetic in I(...), e.g. "
                          f"I(a {op} b).")
    return list(acc), ic


def parse_regression_formula(text: str) -> RegressionFormula:
    """Parse ``response ~ terms`` in R's syntax (see the module docstring for the supported subset)."""
    if not isinstance(text, str) or "~" not in text:
        got = _f._shown(text) if isinstance(text, str) else type(text).__name__
        raise InvalidParameterError(f"formula must be a text 'response ~ terms' in R's syntax; got {got}.")
    lhs, rhs = _P(text).formula()
    if lhs is None:
        _refuse(text, "a regression needs a response on the left of '~'.")
    variables: dict = {}
    rlab = _dep(lhs) if lhs[0] != "par" else _dep(lhs)
    variables[rlab] = lhs
    terms, ic = _terms(rhs, text, variables)
    terms = [t for t in terms if t]
    intercept = True if ic is None else bool(ic)
    order = list(variables)
    terms = [t for t in terms if rlab not in t] if any(rlab in t for t in terms) else terms
    sorted_terms = sorted(terms, key=len)  # stable: R keeps the order of appearance within an order
    pos = {v: i for i, v in enumerate(order)}
    tt = tuple(tuple(sorted(t, key=pos.__getitem__)) for t in sorted_terms)
    rhs_vars = tuple(v for v in order if v != rlab)
    return RegressionFormula(text, lhs, rlab, variables, _f.Formula(text, rlab, rhs_vars, tt, intercept))


# ----------------------------------------------------------------- evaluation


def _is_factorish(s: pd.Series) -> bool:
    return isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == object or pd.api.types.is_string_dtype(s.dtype)


def _eval(e, data: pd.DataFrame, text: str, warn: list):
    """Evaluate an expression: a float array, a boolean array (logical), or a pandas Series (factor)."""
    k = e[0]
    if k == "num":
        return np.float64(e[1])
    if k == "name":
        if e[1] not in data.columns:
            _refuse(text, f"variable {e[1]!r} is not a column of the data.")
        s = data[e[1]]
        if _is_factorish(s):
            return s
        if pd.api.types.is_bool_dtype(s.dtype):
            if s.isna().any():
                return s.astype("boolean")
            return s.to_numpy(dtype=bool)
        return s.astype("float64").to_numpy()
    if k == "par":
        return _eval(e[1], data, text, warn)
    if k == "call":
        v = _eval(e[2], data, text, warn)
        if e[1] == "I":
            return v
        v = _num(v, e, text)
        with np.errstate(all="ignore"):
            out = _FUNS[e[1]](v)
        if np.any(np.isnan(out) & ~np.isnan(v)):
            warn.append(f"{_dep(e)}: NaNs produced")
        return out
    if k == "neg":
        return -_num(_eval(e[1], data, text, warn), e, text)
    first, rest = _spine(e)  # a long I(a + b + c + ...) nests to the left: fold it instead of recursing
    acc = _eval(first, data, text, warn)
    for node, op, right in rest:
        acc = _binary(op, _num(acc, node, text), _num(_eval(right, data, text, warn), node, text), text)
    return acc


def _binary(op, a, b, text):
    with np.errstate(all="ignore"):
        if op in (">", ">=", "<", "<=", "==", "!="):
            res = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal,
                   "==": np.equal, "!=": np.not_equal}[op](a, b)
            na = np.isnan(np.broadcast_to(a, res.shape)) | np.isnan(np.broadcast_to(b, res.shape))
            if na.any():
                return pd.array(np.where(na, None, res), dtype="boolean")
            return np.asarray(res, dtype=bool)
        if op == "^":
            return np.power(a, b)
        if op == ":":
            _refuse(text, "':' inside a function call is not supported.")
        return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](a, b)


def _num(v, e, text):
    if isinstance(v, pd.Series):
        _refuse(text, f"{_dep(e)} applies arithmetic to a factor (categorical column), which R refuses.")
    if isinstance(v, pd.arrays.BooleanArray):
        return v.to_numpy(dtype=float, na_value=np.nan)
    return np.asarray(v, dtype=float)


@dataclass
class ModelFrame:
    """The complete-case model frame of a formula on a DataFrame.

    Attributes
    ----------
    y : numpy.ndarray or pandas.Series
        The response on the kept records (float, bool, or a categorical Series).
    x : numpy.ndarray
        The model matrix (R's ``model.matrix``).
    names : list of str
        R's column names.
    weights : numpy.ndarray or None
    keep : numpy.ndarray
        Boolean mask of the records kept (``na.omit``).
    warnings : list of str
    """

    y: object
    x: np.ndarray
    names: list
    weights: np.ndarray | None
    keep: np.ndarray
    warnings: list


def _missing(v) -> np.ndarray:
    if isinstance(v, pd.Series):
        return v.isna().to_numpy()
    if isinstance(v, pd.arrays.BooleanArray):
        return np.asarray(v.isna())
    v = np.asarray(v)
    if v.dtype == bool:
        return np.zeros(v.shape, dtype=bool)
    return np.isnan(v)


def _r_levels(s: pd.Series) -> tuple[list, bool, pd.Series]:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return [str(c) for c in s.cat.categories], bool(s.cat.ordered), s.astype(object).map(str, na_action="ignore")
    vals = s.dropna().astype(str)
    return sorted(vals.unique()), False, s.astype(object).map(str, na_action="ignore")


def model_frame(rf: RegressionFormula, data: pd.DataFrame, weights: np.ndarray | None = None) -> ModelFrame:
    """Evaluate the formula on ``data``: complete cases, then R's model matrix."""
    n = len(data)
    warn: list = []
    values = {}
    for lab, e in rf.variables.items():
        v = _eval(e, data, rf.text, warn)
        if np.ndim(v) == 0:
            v = np.full(n, float(v))
        values[lab] = v
    miss = np.zeros(n, dtype=bool)
    for v in values.values():
        miss |= _missing(v)
    if weights is not None:
        miss |= np.isnan(weights)
    keep = ~miss
    cols = {}
    for lab in rf.formula.variables:
        v = values[lab]
        if isinstance(v, pd.Series):
            levels, ordered, labels = _r_levels(v)
            lab_kept = labels.to_numpy()[keep]
            used = [lv for lv in levels if lv in set(lab_kept)]  # drop.unused.levels
            codes = pd.Categorical(lab_kept, categories=used).codes
            cols[lab] = _f.FactorColumn(np.asarray(codes, dtype=np.intp), tuple(used), ordered)
        elif isinstance(v, pd.arrays.BooleanArray) or np.asarray(v).dtype == bool:
            b = np.asarray(v[keep] if not isinstance(v, pd.arrays.BooleanArray) else v[keep].to_numpy(dtype=bool))
            used = [lv for lv in (False, True) if (b == lv).any()]
            codes = np.searchsorted(np.array(used), b) if used else np.zeros(0, dtype=np.intp)
            cols[lab] = _f.FactorColumn(np.asarray(codes, dtype=np.intp), tuple("TRUE" if u else "FALSE" for u in used), False)
        else:
            cols[lab] = _f.NumericColumn(np.asarray(v, dtype=float)[keep])
    if int(keep.sum()) == 0:
        raise InvalidParameterError(f"formula {rf.text!r}: no complete records (R: '0 (non-NA) cases').")
    x, names, _assign = _f.model_matrix(rf.formula, cols)
    if not cols:  # y ~ 1: no variable gives the model matrix its length
        x = np.ones((int(keep.sum()), len(names)))
    y = values[rf.response_label]
    if isinstance(y, pd.Series):
        y = y[keep]
    elif isinstance(y, pd.arrays.BooleanArray):
        y = y[keep].to_numpy(dtype=bool)
    else:
        y = np.asarray(y)[keep]
    for msg in warn:
        warnings.warn(f"{msg} (as in R); those records are dropped as missing.", DegenerateResultWarning, stacklevel=3)
    return ModelFrame(y, np.asarray(x, dtype=float), list(names), None if weights is None else weights[keep], keep, warn)
