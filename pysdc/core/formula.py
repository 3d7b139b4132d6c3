"""A subset of R's model formulae: parsing, ``terms`` ordering and ``model.matrix``.

Engine-free: the parser works on text, the model-matrix builder on integer level codes
and float arrays. It reproduces what R's ``terms.formula`` and ``model.matrix`` do for
formulae made of variable names and the operators ``+``, ``-``, ``:``, ``*``, ``^``
(a positive integer power), parentheses, and the intercept terms ``1``/``0``:

* variables are numbered by their first appearance in the formula (the response, if
  any, first); a term's variables are listed in that order (``b:a`` stays ``b:a`` when
  ``b`` appears first), and its label joins them with ``:``;
* ``a*b`` is ``a + b + a:b``; ``(a+b+c)^2`` is every term and every product of two;
  repeated terms are dropped; ``- t`` removes the term ``t``; ``- 1``/``+ 0`` remove the
  intercept;
* terms are sorted by order (number of variables), keeping their order of appearance
  within an order (``keep.order = FALSE``);
* a factor ``f`` in a term ``T`` is coded by contrasts when ``T`` without ``f`` is empty or
  contained in an earlier term, and by one indicator column per level otherwise (R's
  ``TermCode``); without an intercept the first factor of the first term holding a factor
  gets indicator columns;
* contrasts are ``contr.treatment`` for unordered factors (columns named ``<var><level>``,
  first level the reference) and ``contr.poly`` for ordered factors (``<var>.L``,
  ``.Q``, ``.C``, ``^4`` ...); logical variables are factors with levels ``FALSE``,
  ``TRUE``; numeric variables give one column named after the variable;
* the columns of an interaction are the products of its variables' columns, the first
  variable varying fastest, named ``<col1>:<col2>``.

Anything outside this subset (function calls such as ``log(x)`` or ``I(x^2)``, ``%in%``,
``/``, ``.``, offsets, numbers other than 0 and 1 as terms) is refused with
:class:`~pysdc.InvalidParameterError`.

Limits (refused with :class:`~pysdc.InvalidParameterError` saying so): parentheses nested more than
:data:`MAX_DEPTH` levels deep; more than :data:`MAX_ELEMENTS` names, numbers and operators; and a
formula whose terms number more than :data:`MAX_TERMS` — checked before a product (``*``, ``:``) or a
power (``^``) is expanded, from the number of terms it can give, so that ``(a + b + ... + z)^26``
(67,108,863 terms) stops at once instead of running for hours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._errors import InvalidParameterError

__all__ = [
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_TERMS",
    "Formula",
    "parse_formula",
    "FactorColumn",
    "NumericColumn",
    "contr_poly",
    "model_matrix",
]

MAX_DEPTH = 50
"""Deepest nesting (parentheses; in regression formulae also calls, signs and powers) a formula may have."""

MAX_ELEMENTS = 100_000
"""Most names, numbers and operators a formula may have."""

MAX_TERMS = 5000
"""Most terms a formula may expand to (``(a + ... + l)^12`` gives 4095; ``(a + ... + m)^13`` 8191)."""

_MAX_PAIRS = 1_000_000  # most pairs of terms one product may combine when its count cannot be bounded otherwise

_TOKEN = re.compile(
    r"\s*(?:(?P<name>(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*)|`(?P<quoted>[^`]+)`|(?P<num>[0-9]+(?:\.[0-9]*)?)"
    r"|(?P<op>[~+\-*:^()]))"
)


@dataclass(frozen=True)
class Formula:
    """A parsed formula, as R's ``terms`` object describes it.

    Attributes
    ----------
    text : str
        The formula as given.
    response : str or None
        The left-hand side variable, if any.
    variables : tuple of str
        The right-hand side variables, in order of first appearance.
    terms : tuple of tuple of str
        The terms in R's order (sorted by order, stable); each term's variables in
        variable order.
    intercept : bool
        Whether the model has an intercept.
    """

    text: str
    response: str | None
    variables: tuple
    terms: tuple
    intercept: bool

    @property
    def labels(self) -> list:
        """R's ``labels(terms(f))``: the term labels."""
        return [":".join(t) for t in self.terms]

    @property
    def orders(self) -> list:
        """R's ``attr(terms(f), "order")``."""
        return [len(t) for t in self.terms]

    def main_effects(self) -> list:
        """The variables that are terms of order one, in term order."""
        return [t[0] for t in self.terms if len(t) == 1]

    def with_terms(self, extra: list) -> Formula:
        """This formula with the terms ``extra`` (tuples of new or existing variable names) appended."""
        variables = list(self.variables)
        for term in extra:
            for v in term:
                if v not in variables:
                    variables.append(v)
        pos = {v: i for i, v in enumerate(variables)}
        sets = dict.fromkeys(frozenset(pos[v] for v in t) for t in self.terms)
        for term in extra:
            sets.setdefault(frozenset(pos[v] for v in term))
        sets = list(sets)
        return Formula(
            text=self.text, response=self.response, variables=tuple(variables),
            terms=_sorted_terms(sets, variables), intercept=self.intercept,
        )


def _refuse(text: str, why: str):
    raise InvalidParameterError(
        f"formula must be an R formula over variable names with +, -, :, * and ^ (e.g. "
        f"'~ a + b + a:b' or '~ (a + b + c)^2'); {why}; got {_shown(text)}."
    )


def _shown(text: str) -> str:
    """The formula for a message: its first 200 characters."""
    return repr(text) if len(text) <= 200 else f"{text[:200]!r}... ({len(text)} characters)"


def _tokens(text: str) -> list:
    out = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        if len(out) >= MAX_ELEMENTS:
            _refuse(text, f"it has more than {MAX_ELEMENTS} names, numbers and operators (the limit)")
        m = _TOKEN.match(stripped, pos)
        if m is None or m.end() == pos:
            _refuse(text, f"cannot read {stripped[pos:pos + 10]!r} (only names, 0, 1 and the operators are allowed)")
        if m.group("name") is not None:
            out.append(("name", m.group("name")))
        elif m.group("quoted") is not None:
            out.append(("name", m.group("quoted")))
        elif m.group("num") is not None:
            out.append(("num", m.group("num")))
        else:
            out.append(("op", m.group("op")))
        pos = m.end()
    out.append(("end", ""))
    return out


class _Parser:
    """Recursive descent with R's precedence: ``^`` > ``:`` > ``*`` > ``+ -`` > ``~``."""

    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0
        self.variables: list = []
        self._pos: dict = {}

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, op):
        t = self.take()
        if t != ("op", op):
            _refuse(self.text, f"expected {op!r}")

    def var(self, name):
        if name not in self._pos:
            self._pos[name] = len(self.variables)
            self.variables.append(name)
        return self._pos[name]

    def refuse(self, why):
        _refuse(self.text, why)

    # values: ("terms", [frozenset, ...]) or ("int", k) for the numbers 0 / 1
    def sum_(self):
        terms: dict = {}  # insertion-ordered set
        intercept = None
        sign = "+"
        first = True
        while True:
            if first and self.peek() in (("op", "+"), ("op", "-")):
                sign = self.take()[1]
            first = False
            kind, val = self.prod()
            if kind == "int":
                if val not in (0, 1):
                    shown = val if val < 10 ** 18 else "with more than 18 digits"
                    _refuse(self.text, f"the number {shown} is not a term (only 0 and 1 are)")
                intercept = (val == 1) if sign == "+" else (val == 0)
            elif sign == "+":
                terms.update(dict.fromkeys(val))
                if len(terms) > MAX_TERMS:
                    _too_many(self.refuse, "the sum of terms", None)
            else:
                drop = set(val)
                terms = {t: None for t in terms if t not in drop}
            if self.peek() in (("op", "+"), ("op", "-")):
                sign = self.take()[1]
                continue
            return list(terms), intercept

    def prod(self):
        kind, left = self.inter()
        while self.peek() == ("op", "*"):
            self.take()
            kind2, right = self.inter()
            if kind == "int" or kind2 == "int":
                _refuse(self.text, "0 and 1 cannot be crossed with *")
            left = _cross(left, right, self.refuse, "a product '*'", sides=True)
        return kind, left

    def inter(self):
        kind, left = self.power()
        while self.peek() == ("op", ":"):
            self.take()
            kind2, right = self.power()
            if kind == "int" or kind2 == "int":
                _refuse(self.text, "0 and 1 cannot take part in an interaction")
            left = _cross(left, right, self.refuse, "an interaction ':'")
        return kind, left

    def power(self):
        kind, val = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            t = self.take()
            if t[0] != "num" or not t[1].isdigit() or _whole(t[1]) < 1:
                _refuse(self.text, "^ needs a positive whole number")
            if kind == "int":
                _refuse(self.text, "0 and 1 cannot be raised to a power")
            val = _power(val, _whole(t[1]), self.refuse)
        return kind, val

    def atom(self):
        t = self.take()
        if t[0] == "name":
            if t[1] == ".":
                _refuse(self.text, "'.' (all other columns) is not supported; name the variables")
            if self.peek() == ("op", "("):
                _refuse(self.text, f"function calls such as {t[1]}(...) are not supported")
            return "terms", [frozenset([self.var(t[1])])]
        if t[0] == "num":
            if not t[1].isdigit():
                _refuse(self.text, f"the number {t[1][:20]} is not a term")
            return "int", _whole(t[1])
        if t == ("op", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                _refuse(self.text, f"its parentheses are nested more than {MAX_DEPTH} levels deep (the limit)")
            terms, intercept = self.sum_()
            self.expect(")")
            self.depth -= 1
            if intercept is not None:
                if terms:
                    _refuse(self.text, "0 and 1 inside parentheses are not supported")
                return "int", 1 if intercept else 0
            return "terms", terms
        _refuse(self.text, f"unexpected {t[1] or 'end of formula'!r}")


def _whole(digits: str) -> int:
    """A run of digits as an int; more than 18 digits (far past any limit) as 10**18."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10 ** 18


def _too_many(refuse, what: str, count) -> None:
    refuse(f"{what} gives {'more than ' if count is None else ''}{MAX_TERMS if count is None else f'{count:,}'} "
           f"terms; pysdc takes at most {MAX_TERMS} terms, counted before expanding (a model with more cannot "
           "be fitted on a realistic file): write out the terms you need, or lower the power")


def _n_vars(terms: list) -> int:
    return len(frozenset().union(*terms)) if terms else 0


def _cross(left: list, right: list, refuse, what: str, sides: bool = False) -> list:
    """R's crossing of two term lists: every union ``a | b`` (``a:b``), after ``left`` and ``right``
    themselves when ``sides`` (``a*b``); repeated terms dropped, first appearance kept.

    The number of terms is bounded before expanding (the pairs, the sides, and the ``2**v - 1`` sets of
    the ``v`` variables involved); past :data:`MAX_TERMS` the expansion stops as soon as the count passes
    the limit, and a product of more than a million pairs is refused without expanding.
    """
    pairs = len(left) * len(right)
    bound = pairs + (len(left) + len(right) if sides else 0)
    nv = _n_vars(left + right)
    if nv < 64:
        bound = min(bound, 2 ** nv - 1)
    if bound > MAX_TERMS and pairs > _MAX_PAIRS:
        _too_many(refuse, f"{what} of {len(left)} by {len(right)} terms", None)
    out = dict.fromkeys(left) if sides else {}
    if sides:
        out.update(dict.fromkeys(right))
    if bound <= MAX_TERMS:
        for a in left:
            for b in right:
                out[a | b] = None
        return list(out)
    for a in left:
        for b in right:
            out[a | b] = None
        if len(out) > MAX_TERMS:
            _too_many(refuse, what, None)
    return list(out)


def _power_count(m: int, k: int) -> int:
    """How many unions of 1 to ``k`` of ``m`` disjoint terms there are (stops counting past MAX_TERMS)."""
    from math import comb

    total = 0
    for j in range(1, min(k, m) + 1):
        total += comb(m, j)
        if total > MAX_TERMS:
            break
    return total


def _power(base: list, k: int, refuse) -> list:
    """R's ``(terms)^k``: every union of up to ``k`` terms of ``base``, bounded by :data:`MAX_TERMS` before
    expanding (exactly when the terms share no variable, as in ``(a + b + c)^2``)."""
    shown = f"the power ^{k if k < 10 ** 18 else 'N'}"
    k = min(k, len(base))  # unions of more than len(base) terms add nothing
    if k <= 1:
        return list(base)
    disjoint = sum(len(t) for t in base) == _n_vars(base)
    if disjoint:
        count = _power_count(len(base), k)
        if count > MAX_TERMS:
            from math import comb

            m = len(base)
            exact = 2 ** m - 1 if k == m else sum(comb(m, j) for j in range(1, k + 1)) if m <= 200 else None
            _too_many(refuse, f"{shown} of {m} terms", exact)
    out = list(base)
    for _ in range(k - 1):
        nxt = _cross(out, base, refuse, shown, sides=True)
        if len(nxt) == len(out):
            break
        out = nxt
    return out


def _sorted_terms(sets: list, variables: list) -> tuple:
    order = sorted(range(len(sets)), key=lambda i: len(sets[i]))  # stable
    return tuple(tuple(variables[j] for j in sorted(sets[i])) for i in order)


def parse_formula(text: str) -> Formula:
    """Parse R formula text (one- or two-sided) into R's ``terms`` structure.

    Parameters
    ----------
    text : str
        E.g. ``"~ a + b"``, ``"y ~ (a + b + c)^2 + d"``, ``"~ a*b - 1"``.

    Returns
    -------
    Formula

    Examples
    --------
    >>> parse_formula("~ (a + b + c)^2").labels
    ['a', 'b', 'c', 'a:b', 'a:c', 'b:c']
    >>> parse_formula("~ b:a + a").labels
    ['a', 'b:a']
    """
    if not isinstance(text, str):
        raise InvalidParameterError(f"formula must be a string such as '~ a + b'; got {type(text).__name__}.")
    p = _Parser(text)
    response = None
    if p.peek() != ("op", "~"):
        t = p.take()
        if t[0] != "name" or p.peek() != ("op", "~"):
            _refuse(text, "it must start with '~' (or 'response ~')")
        response = t[1]
        p.var(response)
    p.expect("~")
    if p.peek()[0] == "end":
        _refuse(text, "the right-hand side is empty")
    terms, intercept = p.sum_()
    if p.peek()[0] != "end":
        _refuse(text, f"unexpected {p.peek()[1]!r}")
    if response is not None:
        ri = p.variables.index(response)
        if any(ri in t for t in terms):
            _refuse(text, f"the response {response!r} also appears on the right-hand side")
    variables = list(p.variables)
    rhs_vars = [v for v in variables if v != response]
    return Formula(
        text=text,
        response=response,
        variables=tuple(rhs_vars),
        terms=_sorted_terms(terms, variables),
        intercept=True if intercept is None else intercept,
    )


# ---------------------------------------------------------------- model matrix

@dataclass(frozen=True)
class FactorColumn:
    """A factor: 0-based level codes (no missing values) and the level labels."""

    codes: np.ndarray
    levels: tuple
    ordered: bool = False


@dataclass(frozen=True)
class NumericColumn:
    """A numeric variable (one model-matrix column)."""

    values: np.ndarray


def contr_poly(n: int) -> np.ndarray:
    """R's ``contr.poly(n)``: orthonormal polynomial contrasts for scores 1..n (n x (n-1)).

    Column j is the part of the centred scores' j-th power orthogonal to the lower powers,
    scaled to unit length, with a positive leading coefficient (R's ``qr.qy(QR, diag(R))``).
    """
    if n < 2:
        raise InvalidParameterError(f"contrasts need a factor with 2 or more levels; got {n}.")
    y = np.arange(1, n + 1, dtype=float)
    y = y - y.mean()
    x = y[:, None] ** np.arange(n)[None, :]
    q, r = np.linalg.qr(x)
    raw = q * np.diag(r)[None, :]
    z = raw / np.sqrt((raw ** 2).sum(axis=0))[None, :]
    return z[:, 1:]


def _poly_names(n: int) -> list:
    names = [".L", ".Q", ".C"] + [f"^{k}" for k in range(4, n)]
    return names[: n - 1]


def _level_label(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    return str(v)


def model_matrix(formula: Formula, data: dict) -> tuple[np.ndarray, list, list]:
    """R's ``model.matrix(formula, data)`` for factor and numeric variables.

    Parameters
    ----------
    formula : Formula
    data : dict
        Variable name -> :class:`FactorColumn` or :class:`NumericColumn` (equal lengths,
        no missing values: drop incomplete rows first, as R's ``na.omit`` does).

    Returns
    -------
    x : numpy.ndarray
        The model matrix (rows x columns, Fortran order).
    names : list of str
        R's column names (``(Intercept)``, ``sexM``, ``age_group.L``, ``a:b``...).
    assign : list of int
        R's ``attr(, "assign")``: the term (1-based; 0 the intercept) of each column.

    Notes
    -----
    Raises :class:`~pysdc.InvalidParameterError` where R's ``model.matrix`` stops: a
    factor with fewer than two levels ("contrasts can be applied only to factors with 2
    or more levels").
    """
    missing = [v for t in formula.terms for v in t if v not in data]
    if missing:
        raise InvalidParameterError(f"formula uses variable(s) {sorted(set(missing))} that are not in the data.")
    used = [v for v in formula.variables if any(v in t for t in formula.terms)]
    n = None
    for v in used:
        col = data[v]
        m = len(col.codes) if isinstance(col, FactorColumn) else len(col.values)
        if n is None:
            n = m
        elif m != n:
            raise InvalidParameterError("model_matrix: variables must have equal lengths.")
        if isinstance(col, FactorColumn) and len(col.levels) < 2:
            raise InvalidParameterError(
                f"variable {v!r} is a factor with {len(col.levels)} level(s) here; R's model.matrix "
                "stops ('contrasts can be applied only to factors with 2 or more levels'). Drop it from "
                "the formula or give it a second observed level."
            )
    if n is None:
        n = 0
    sets = [frozenset(t) for t in formula.terms]
    # R's TermCode: 1 = contrasts, 2 = indicators
    codes = []
    earlier: set = set()
    for i, t in enumerate(formula.terms):
        c = {}
        for v in t:
            rest = sets[i] - {v}
            # an earlier term equal to rest settles it at once (the usual, hierarchical case)
            c[v] = 1 if (not rest or rest in earlier or any(rest <= sets[s] for s in range(i))) else 2
        codes.append(c)
        earlier.add(sets[i])
    if not formula.intercept:
        done = False
        for i, t in enumerate(formula.terms):
            for v in formula.variables:
                if v in t and isinstance(data[v], FactorColumn):
                    codes[i][v] = 2
                    done = True
                    break
            if done:
                break
    columns, names, assign = [], [], []  # columns: 1-D arrays, or None for the intercept's ones
    if formula.intercept:
        columns.append(None)
        names.append("(Intercept)")
        assign.append(0)
    for i, t in enumerate(formula.terms):
        cols = [None]  # None: the ones a term's product starts from
        labs = [""]
        for v in t:
            col = data[v]
            if isinstance(col, NumericColumn):
                vb = np.asarray(col.values, dtype=float)[:, None]
                vn = [v]
            else:
                levels = [_level_label(lv) for lv in col.levels]
                if codes[i][v] == 2:
                    mat = np.eye(len(levels))
                    cn = levels
                elif col.ordered:
                    mat = contr_poly(len(levels))
                    cn = _poly_names(len(levels))
                else:
                    mat = np.eye(len(levels))[:, 1:]
                    cn = levels[1:]
                vb = mat[np.asarray(col.codes, dtype=np.intp)]
                vn = [v + c for c in cn]
            # earlier variables vary fastest
            new_cols, new_labs = [], []
            for j, name in enumerate(vn):
                for c0, l0 in zip(cols, labs):
                    # 1 * v is v exactly: the first factor of a product is taken as it is
                    new_cols.append(vb[:, j] if c0 is None else c0 * vb[:, j])
                    new_labs.append(name if l0 == "" else f"{l0}:{name}")
            cols, labs = new_cols, new_labs
        columns.extend(cols)
        names.extend(labs)
        assign.extend([i + 1] * len(labs))
    x = np.empty((n, len(columns)), order="F")  # filled column by column: no intermediate copies
    for j, c in enumerate(columns):
        x[:, j] = 1.0 if c is None else c
    return x, names, assign
