"""Conditions on records (``"income > 0 & sex == 'female'"``): pysdc's own parser and evaluator.

A condition is read by a small hand-written tokenizer and recursive-descent parser and evaluated
on the columns of a DataFrame with vectorised pandas/numpy operations. Nothing in it is ever
handed to Python (no ``eval``, ``exec``, ``DataFrame.eval``/``query``, no name lookup outside the
data's columns), so a condition passed between colleagues cannot run code.

What a condition may contain
----------------------------
* **column names**: bare names (letters, digits, ``_`` and ``.``, as R and Python write them, e.g.
  ``income``, ``age.group``) or any name in backquotes (```household size```);
* **literals**: numbers (``3``, ``-2.5``, ``1e3``), strings in single or double quotes (``'female'``,
  escapes ``\\\\ \\' \\" \\n \\t``), ``True``/``False`` (also R's ``TRUE``/``FALSE``);
* **arithmetic** on numeric columns: ``+ - * /`` and a leading ``-``;
* **comparisons** ``== != < <= > >=`` (chained as in Python: ``0 < x <= 10``);
* **membership**: ``x in [1, 2]``, ``x not in ('a', 'b')``, R's ``x %in% c('a', 'b')``,
  ``isin(x, [1, 2])`` and pandas' ``x.isin([1, 2])`` (lists of literals);
* **missing values**: ``isna(x)``, ``notna(x)`` (also ``isnull``, ``notnull``, R's ``is.na(x)``,
  and pandas' ``x.isna()``/``x.notna()``);
* **logic**: ``&``/``and``/``&&``, ``|``/``or``/``||``, ``~``/``not``/``!``, parentheses.

Precedence, loosest first: ``| or ||``; ``& and &&``; ``~ not !``; comparisons and membership;
``+ -``; ``* /``; a leading ``-``. As in pandas' ``eval`` and in R, ``a > 1 & b < 2`` is
``(a > 1) & (b < 2)``; as in R (and Python's ``not``) the negations bind looser than comparisons,
so ``~x == 1`` and ``!x == 1`` are ``not (x == 1)``.

Missing values: a comparison or membership test with a missing value (NaN, None, ``pd.NA``, NaT)
is **False** — ``!=`` and ``not in`` included (where numpy would say True for ``NaN != 1``) — and
a boolean column used as a condition counts a missing value as False; the logic operators then work
on plain True/False, and a record is selected where the condition is True. So ``income > 0``,
``income != 0`` and ``region not in ['A']`` leave out the records where the value is missing, while
``not (income > 0)`` keeps them (write ``notna(income) & ~(income > 0)`` to leave them out).

Anything else is refused with :class:`RefusedConditionError` (an
:class:`~pysdc.InvalidParameterError`) naming the offending token, before any data is touched:
``@`` (pandas' local variables), attribute access (a dotted name that is not a column), calls of
any other function, names with a double underscore (``__import__``, ``__class__``), Python
keywords such as ``lambda``/``import``/``if``, and the operators ``** ^ // % = ; :``. A condition
nested more than :data:`MAX_DEPTH` levels deep (parentheses, calls, lists, negations, signs) or
with more than :data:`MAX_NODES` elements (names, literals, operators) is refused too, and so is a
text longer than :data:`MAX_LENGTH` characters.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_LENGTH",
    "Condition",
    "RefusedConditionError",
    "parse_condition",
    "evaluate_condition",
]

MAX_DEPTH = 50
"""Deepest nesting of parentheses, calls, lists, negations and signs a condition may have."""

MAX_NODES = 10_000
"""Most elements (names, literals, operators) a condition may have."""

MAX_LENGTH = 1_000_000
"""Longest condition text, in characters."""


class RefusedConditionError(InvalidParameterError):
    """A condition uses something pysdc never evaluates (``@``, attribute access, calls of functions
    other than the accepted ones, dunder names, Python keywords), exceeds a size limit, or is not a
    text. Raised before any data is looked at."""


_ACCEPTED = ("column names, numbers, 'strings', True/False, + - * /, == != < <= > >=, in / not in / "
             "%in% / isin(), isna() / notna(), & | ~ and or not ! && ||, parentheses")

_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<quoted>`[^`]*`)"
    r"|(?P<name>[^\W\d][\w.]*|\.(?![0-9])[\w.]*)"
    r"|(?P<op>%in%|==|!=|<=|>=|&&|\|\||\*\*|//|[<>&|~!+\-*/()\[\],])"
    r"|(?P<bad>.)",
    re.S,
)
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t"}
_FUNCTIONS = {"isna": "isna", "isnull": "isna", "is.na": "isna", "notna": "notna", "notnull": "notna",
              "isin": "isin"}
_METHODS = {"isin": "isin", "isna": "isna", "isnull": "isna", "notna": "notna", "notnull": "notna"}
_WORDS = {"and", "or", "not", "in"}
_TRUE, _FALSE = {"True", "TRUE"}, {"False", "FALSE"}
_CMP = ("==", "!=", "<", "<=", ">", ">=")
_BAD_OPS = {"**": "'**' (power)", "//": "'//' (floor division)", "^": "'^' (power)", "%": "'%' (modulo)",
            "=": "'=' (assignment; compare with '==')", ";": "';'", ":": "':'", "@": "'@' (pandas' local "
            "variables)", "{": "'{'", "}": "'}'", "$": "'$'", "#": "'#'", "?": "'?'", "\\": "'\\'"}


def _show(text: str) -> str:
    return repr(text) if len(text) <= 200 else repr(text[:200]) + "..."


@dataclass(frozen=True)
class _Tok:
    kind: str  # num, str, name, quoted, op, word, end
    value: object
    pos: int
    text: str  # as written


class _Parser:
    def __init__(self, text: str, name: str, columns):
        self.text = text
        self.name = name
        self.columns = None if columns is None else {str(c) for c in columns}
        self.toks = self._tokens()
        self.i = 0
        self.depth = 0
        self.names: list = []

    # ------------------------------------------------------------------ errors
    def refuse(self, why: str):
        raise RefusedConditionError(
            f"{self.name} {_show(self.text)}: {why}. pysdc evaluates conditions itself and accepts only "
            f"{_ACCEPTED}."
        )

    def syntax(self, why: str, tok: _Tok | None = None):
        at = f" at position {tok.pos}" if tok is not None and tok.kind != "end" else ""
        raise InvalidParameterError(f"{self.name} {_show(self.text)}: {why}{at}.")

    # --------------------------------------------------------------- tokenizer
    def _tokens(self) -> list:
        text, out, n = self.text, [], 0
        for m in _TOKEN.finditer(text):
            kind, raw = m.lastgroup, m.group()
            if kind == "ws":
                continue
            if kind == "bad":
                if raw in "'\"`":
                    self.syntax(f"the {'name' if raw == '`' else 'string'} opened with {raw} at position {m.start()} "
                                "is not closed")
                what = _BAD_OPS.get(raw, repr(raw))
                self.refuse(f"{what} at position {m.start()} is not accepted")
            if kind == "op" and raw in _BAD_OPS:
                self.refuse(f"{_BAD_OPS[raw]} at position {m.start()} is not accepted")
            value: object = raw
            if kind == "num":
                value = float(raw) if any(c in raw for c in ".eE") or len(raw) > 18 else int(raw)
            elif kind == "str":
                value = self._unescape(raw, m.start())
            elif kind == "quoted":
                value = raw[1:-1]
                if not value:
                    self.syntax("an empty backquoted name ``", _Tok("quoted", "", m.start(), raw))
                kind = "name_q"
            elif kind == "name":
                if "__" in raw:
                    self.refuse(f"the name {raw!r} at position {m.start()} contains '__' (dunder names such as "
                                "__import__ or __class__ are not accepted; backquote a column with such a name)")
                if raw in _WORDS:
                    kind = "word"
                elif raw in _TRUE or raw in _FALSE:
                    kind, value = "bool", raw in _TRUE
                elif keyword.iskeyword(raw):
                    self.refuse(f"the Python keyword {raw!r} at position {m.start()} is not accepted")
            if not (kind == "op" and raw in ("(", ")", "[", "]", ",")):
                n += 1
                if n > MAX_NODES:
                    self.refuse(f"it has more than {MAX_NODES} elements (names, literals, operators), the limit")
            out.append(_Tok(kind, value, m.start(), raw))
        out.append(_Tok("end", None, len(text), ""))
        return out

    def _unescape(self, raw: str, pos: int) -> str:
        body, out, j = raw[1:-1], [], 0
        while j < len(body):
            c = body[j]
            if c == "\\":
                e = body[j + 1]
                if e not in _ESCAPES:
                    self.syntax(f"the escape '\\{e}' in a string is not accepted (only \\\\ \\' \\\" \\n \\t)",
                                _Tok("str", raw, pos, raw))
                out.append(_ESCAPES[e])
                j += 2
            else:
                out.append(c)
                j += 1
        return "".join(out)

    # ------------------------------------------------------------------ helpers
    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def is_op(self, *ops) -> bool:
        t = self.peek()
        return t.kind == "op" and t.value in ops

    def is_word(self, *words) -> bool:
        t = self.peek()
        return t.kind == "word" and t.value in words

    def expect(self, op: str, what: str):
        t = self.take()
        if not (t.kind == "op" and t.value == op):
            self.syntax(f"expected {op!r} {what}, found {t.text or 'the end'!r}", t)

    def enter(self, tok: _Tok):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.refuse(f"it is nested more than {MAX_DEPTH} levels deep (parentheses, calls, lists, negations, "
                        f"signs; at position {tok.pos})")

    def leave(self):
        self.depth -= 1

    # ------------------------------------------------------------------ grammar
    def parse(self):
        if self.peek().kind == "end":
            self.syntax("it is empty")
        tree = self.or_()
        t = self.peek()
        if t.kind != "end":
            self.syntax(f"unexpected {t.text!r}", t)
        return tree

    def or_(self):
        items = [self.and_()]
        while self.is_op("|", "||") or self.is_word("or"):
            self.take()
            items.append(self.and_())
        return items[0] if len(items) == 1 else ("or", items)

    def and_(self):
        items = [self.not_()]
        while self.is_op("&", "&&") or self.is_word("and"):
            self.take()
            items.append(self.not_())
        return items[0] if len(items) == 1 else ("and", items)

    def not_(self):
        if self.is_op("~", "!") or self.is_word("not"):
            tok = self.take()
            self.enter(tok)
            inner = self.not_()
            self.leave()
            return ("not", inner)
        return self.comparison()

    def comparison(self):
        first = self.additive()
        operands, ops = [first], []
        while True:
            t = self.peek()
            if t.kind == "op" and t.value in _CMP:
                self.take()
                ops.append(t.value)
                operands.append(self.additive())
            elif (t.kind == "word" and t.value == "in") or (t.kind == "op" and t.value == "%in%"):
                self.take()
                ops.append("in")
                operands.append(self.values())
            elif t.kind == "word" and t.value == "not" and self.toks[self.i + 1].kind == "word" \
                    and self.toks[self.i + 1].value == "in":
                self.take()
                self.take()
                ops.append("not in")
                operands.append(self.values())
            else:
                break
        if not ops:
            return first
        for j, op in enumerate(ops):
            if op in ("in", "not in") and j != len(ops) - 1:
                self.syntax("a membership test ('in') cannot be followed by another comparison; use parentheses")
        return ("cmp", operands, ops)

    def values(self):
        """A list of literals after ``in``/``%in%``: ``[...]``, ``(...)`` or R's ``c(...)``."""
        t = self.take()
        if t.kind == "op" and t.value in ("[", "("):
            close = "]" if t.value == "[" else ")"
        elif t.kind == "name" and t.value == "c" and self.is_op("("):
            self.take()
            close = ")"
        else:
            self.syntax(f"'in' needs a list of values such as [1, 2] or ('a', 'b'), found {t.text or 'the end'!r}", t)
        self.enter(t)
        items = []
        while not self.is_op(close):
            items.append(self.literal())
            if self.is_op(","):
                self.take()
            elif not self.is_op(close):
                u = self.peek()
                self.syntax(f"expected ',' or {close!r} in the list, found {u.text or 'the end'!r}", u)
        self.take()
        self.leave()
        return ("list", items)

    def literal(self):
        t = self.take()
        sign = 1
        if t.kind == "op" and t.value in ("-", "+"):
            sign = -1 if t.value == "-" else 1
            t = self.take()
            if t.kind != "num":
                self.syntax(f"expected a number after the sign, found {t.text or 'the end'!r}", t)
        if t.kind == "num":
            return t.value * sign
        if t.kind in ("str", "bool"):
            return t.value
        if t.kind in ("name", "name_q"):
            self.syntax(f"a list after 'in' holds literal values only; {t.text!r} is a name (quote a text: "
                        f"'{t.value}')", t)
        self.syntax(f"expected a literal value (number, 'text', True/False), found {t.text or 'the end'!r}", t)

    def additive(self):
        first = self.multiplicative()
        rest = []
        while self.is_op("+", "-"):
            op = self.take().value
            rest.append((op, self.multiplicative()))
        return first if not rest else ("arith", first, rest)

    def multiplicative(self):
        first = self.unary()
        rest = []
        while self.is_op("*", "/"):
            op = self.take().value
            rest.append((op, self.unary()))
        return first if not rest else ("arith", first, rest)

    def unary(self):
        if self.is_op("-", "+"):
            tok = self.take()
            self.enter(tok)
            inner = self.unary()
            self.leave()
            return inner if tok.value == "+" else ("neg", inner)
        return self.atom()

    def atom(self):
        t = self.take()
        if t.kind in ("num", "str", "bool"):
            return ("lit", t.value)
        if t.kind == "op" and t.value == "(":
            self.enter(t)
            inner = self.or_()
            self.expect(")", "to close the parenthesis")
            self.leave()
            return inner
        if t.kind == "name_q":
            return self.column(t.value)
        if t.kind == "name":
            if self.is_op("("):
                return self.call(t)
            return self.column(t.value, t)
        if t.kind == "word":
            self.syntax(f"unexpected {t.text!r}", t)
        if t.kind == "end":
            self.syntax("it ends too early")
        self.syntax(f"unexpected {t.text!r}", t)

    def column(self, name: str, tok: _Tok | None = None):
        if tok is not None and "." in name and self.columns is not None and name not in self.columns:
            self.refuse(f"{name!r} at position {tok.pos} is not a column, and attribute access is not accepted")
        if name not in self.names:
            self.names.append(name)
        return ("col", name, tok is not None and "." in name)

    def call(self, t: _Tok):
        name = t.value
        method = None
        if name not in _FUNCTIONS:
            head, _, tail = name.rpartition(".")
            if head and tail in _METHODS and (self.columns is None or head in self.columns):
                method = _METHODS[tail]
            else:
                accepted = "isna(), notna(), isnull(), notnull(), is.na(), isin() and the methods .isin(), " \
                           ".isna(), .notna() of a column"
                what = "attribute access and calls" if "." in name else "calls"
                self.refuse(f"{what} such as {name!r}(...) at position {t.pos} are not accepted (only {accepted})")
        self.take()  # (
        self.enter(t)
        if method is not None:
            col = self.column(head, t)
            if method == "isin":
                arg = self.values_arg()
                self.expect(")", f"to close {name}(")
                self.leave()
                return ("cmp", [col, arg], ["in"])
            self.expect(")", f"({name}() takes no argument)")
            self.leave()
            return (method, col)
        fn = _FUNCTIONS[name]
        arg = self.additive()
        if fn == "isin":
            self.expect(",", "after the first argument of isin(column, [values])")
            values = self.values_arg()
            self.expect(")", "to close isin(")
            self.leave()
            return ("cmp", [arg, values], ["in"])
        self.expect(")", f"({name}() takes one argument)")
        self.leave()
        return (fn, arg)

    def values_arg(self):
        t = self.peek()
        if (t.kind == "op" and t.value in ("[", "(")) or (t.kind == "name" and t.value == "c"):
            return self.values()
        self.syntax(f"expected a list of values such as [1, 2], found {t.text or 'the end'!r}", t)


# =============================================================================
# evaluation


def _kind(v) -> str:
    """'number', 'text', 'bool' or 'other' of a Series or a literal."""
    if isinstance(v, pd.Series):
        dt = v.dtype
        if isinstance(dt, pd.CategoricalDtype):
            return _kind(pd.Series(dt.categories))
        if pd.api.types.is_bool_dtype(dt):
            return "bool"
        if pd.api.types.is_numeric_dtype(dt):
            return "number"
        if pd.api.types.is_object_dtype(dt):
            inferred = pd.api.types.infer_dtype(v, skipna=True)
            if inferred == "string":
                return "text"
            if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
                return "number"
            if inferred == "boolean":
                return "bool"
            return "other"
        if pd.api.types.is_string_dtype(dt):
            return "text"
        return "other"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, float, np.number)):
        return "number"
    if isinstance(v, str):
        return "text"
    return "other"


def _compatible(a: str, b: str) -> bool:
    if "other" in (a, b) or a == b:
        return True
    return {a, b} <= {"number", "bool"}


@dataclass(frozen=True)
class Condition:
    """A parsed condition.

    Attributes
    ----------
    text : str
        The condition as given.
    names : tuple of str
        The column names it uses, in order of first appearance.
    """

    text: str
    names: tuple
    _tree: tuple
    _name: str = "condition"

    def evaluate(self, frame: pd.DataFrame) -> np.ndarray:
        """The records of ``frame`` that satisfy the condition: a boolean array of ``len(frame)``."""
        if not isinstance(frame, pd.DataFrame):
            raise InvalidParameterError(f"{self._name}: the data must be a pandas DataFrame; got "
                                        f"{type(frame).__name__}.")
        ev = _Evaluator(self, frame)
        out = ev.cond(self._tree, top=True)
        return np.broadcast_to(out, (len(frame),)).copy()


class _Evaluator:
    def __init__(self, cond: Condition, frame: pd.DataFrame):
        self.c = cond
        self.frame = frame
        self.n = len(frame)
        self.cols = {str(c): c for c in frame.columns}

    def fail(self, why: str):
        raise InvalidParameterError(f"{self.c._name} {_show(self.c.text)}: {why}.")

    # a value: a pandas Series (RangeIndex) or a Python literal
    def value(self, e):
        k = e[0]
        if k == "lit":
            return e[1]
        if k == "col":
            name = e[1]
            if name not in self.cols:
                if e[2]:
                    raise RefusedConditionError(
                        f"{self.c._name} {_show(self.c.text)}: {name!r} is not a column, and attribute access is "
                        f"not accepted. pysdc evaluates conditions itself and accepts only {_ACCEPTED}.")
                shown = list(self.cols)[:20]
                self.fail(f"{name!r} is not a column of the data (columns: {shown}"
                          f"{' ...' if len(self.cols) > 20 else ''}; backquote names with spaces: `my column`)")
            col = self.frame[self.cols[name]]
            if isinstance(col, pd.DataFrame):
                self.fail(f"the column name {name!r} is not unique in the data")
            return col.reset_index(drop=True)
        if k == "neg":
            return -self.number(e[1], "-")
        if k == "arith":
            acc = self.number(e[1], e[2][0][0])
            for op, operand in e[2]:
                b = self.number(operand, op)
                with np.errstate(all="ignore"):
                    acc = acc + b if op == "+" else acc - b if op == "-" else acc * b if op == "*" else acc / b
            return acc
        # a condition used as a value (e.g. compared with True)
        return pd.Series(self.cond(e), dtype=bool) if self.n else pd.Series([], dtype=bool)

    def number(self, e, op):
        """The value of ``e`` as float64 (a Series or a float): arithmetic is done in doubles, as R does."""
        v = self.value(e)
        kind = _kind(v)
        if kind not in ("number", "bool"):
            self.fail(f"arithmetic ({op!r}) needs numbers; {_describe(e)} is "
                      f"{'text' if kind == 'text' else 'not numeric'}")
        if isinstance(v, pd.Series):
            try:
                return pd.Series(v.to_numpy(dtype="float64", na_value=np.nan))
            except (TypeError, ValueError) as exc:
                self.fail(f"{_describe(e)} cannot be used as numbers: {exc}")
        return float(v)

    # a condition: numpy bool array (or a bool scalar for constant conditions)
    def cond(self, e, top=False):
        k = e[0]
        if k == "or":
            out = self.cond(e[1][0])
            for item in e[1][1:]:
                out = out | self.cond(item)
            return out
        if k == "and":
            out = self.cond(e[1][0])
            for item in e[1][1:]:
                out = out & self.cond(item)
            return out
        if k == "not":
            return ~np.asarray(self.cond(e[1]), dtype=bool)
        if k == "cmp":
            return self.comparison(e)
        if k in ("isna", "notna"):
            v = self.value(e[1])
            miss = v.isna().to_numpy(dtype=bool) if isinstance(v, pd.Series) else np.bool_(pd.isna(v))
            return miss if k == "isna" else ~miss
        v = self.value(e)
        kind = _kind(v)
        if kind != "bool":
            hint = "income > 0" if kind == "number" else "sex == 'female'" if kind == "text" else "x == value"
            self.fail(f"{_describe(e)} is not a condition (true/false per record); compare it, as in {hint}")
        if isinstance(v, pd.Series):
            return v.fillna(False).to_numpy(dtype=bool) if v.hasnans else v.to_numpy(dtype=bool)
        return np.bool_(v)

    def comparison(self, e):
        operands, ops = e[1], e[2]
        out = None
        left = self.value(operands[0])
        for j, op in enumerate(ops):
            if op in ("in", "not in"):
                res = self.member(left, operands[0], operands[j + 1][1], op)
            else:
                right = self.value(operands[j + 1])
                res = self.compare(left, right, op, operands[j], operands[j + 1])
                left = right
            out = res if out is None else out & res
        return out

    def compare(self, a, b, op, ea, eb):
        ka, kb = _kind(a), _kind(b)
        if not _compatible(ka, kb):
            self.fail(f"{_describe(ea)} {op} {_describe(eb)} compares a {ka} with a {kb}" + _hint(ea, ka, eb, kb))
        fn = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
              "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}[op]
        if not isinstance(a, pd.Series) and not isinstance(b, pd.Series):
            if pd.isna(a) or pd.isna(b):
                return np.bool_(False)
            try:
                return np.bool_(fn(a, b))
            except TypeError as exc:
                self.fail(f"cannot compare {a!r} {op} {b!r}: {exc}")
        try:
            with np.errstate(all="ignore"):
                res = fn(a, b)
        except (TypeError, ValueError) as exc:
            self.fail(f"cannot compare {_describe(ea)} {op} {_describe(eb)}: {' '.join(str(exc).split())}")
        res = pd.Series(res)
        res = res.fillna(False).to_numpy(dtype=bool) if res.hasnans else res.to_numpy(dtype=bool)
        miss = np.zeros(self.n, dtype=bool)
        for v in (a, b):
            if isinstance(v, pd.Series):
                miss |= v.isna().to_numpy(dtype=bool)
            elif pd.isna(v):
                miss[:] = True
        return res & ~miss

    def member(self, v, ev, values, op):
        kv = _kind(v)
        for x in values:
            kx = _kind(x)
            if not _compatible(kv, kx):
                self.fail(f"{_describe(ev)} {op} [...] tests a {kv} against the {kx} {x!r}"
                          + _hint(ev, kv, ("lit", x), kx))
        if isinstance(v, pd.Series):
            try:
                found = v.isin(values).to_numpy(dtype=bool)
            except (TypeError, ValueError) as exc:
                self.fail(f"cannot test {_describe(ev)} {op} [...]: {exc}")
            known = v.notna().to_numpy(dtype=bool)
        else:
            found, known = np.bool_(any(v == x for x in values)), np.bool_(not pd.isna(v))
        return (~found if op == "not in" else found) & known  # a missing value is in no list, and not out of it


def _hint(ea, ka, eb, kb) -> str:
    """How to write a comparison of a column with a literal of the other kind."""
    for col, kc, lit, kl in ((ea, ka, eb, kb), (eb, kb, ea, ka)):
        if col[0] == "col" and lit[0] == "lit":
            if kc == "text" and kl in ("number", "bool"):
                return f" (the column holds text: quote the value, as in {col[1]} == '{lit[1]}')"
            if kc in ("number", "bool") and kl == "text":
                return " (the column holds numbers: write the value as a number, without quotes)"
    return ""


def _describe(e) -> str:
    if e[0] == "col":
        return repr(e[1])
    if e[0] == "lit":
        return repr(e[1])
    return "the expression"


def parse_condition(text: str, *, columns=None, name: str = "condition") -> Condition:
    """Parse a condition on records (see the module docstring for what is accepted).

    Parameters
    ----------
    text : str
        E.g. ``"income > 0"``, ``"sex == 'female' & age_group in ['30-39', '40-49']"``,
        ``"!is.na(income) & region %in% c('Lakes', 'Coast')"``.
    columns : iterable of str, optional
        The data's column names: a dotted name that is not one of them is refused as attribute
        access while parsing (without it, when the condition is evaluated).
    name : str, default "condition"
        How messages name the argument (e.g. ``"regression_where"``).

    Returns
    -------
    Condition
        Call ``.evaluate(frame)`` for the boolean mask of the records that satisfy it.

    Raises
    ------
    RefusedConditionError
        For anything outside the accepted language (``@``, attribute access, other calls, dunder
        names, Python keywords), a condition nested deeper than :data:`MAX_DEPTH`, with more than
        :data:`MAX_NODES` elements or longer than :data:`MAX_LENGTH` characters, or not a text.
    InvalidParameterError
        For a syntax error (an incomplete or unbalanced condition).

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"income": [0.0, 10.0, None], "sex": ["m", "f", "f"]})
    >>> parse_condition("income > 0 & sex == 'f'").evaluate(d).tolist()
    [False, True, False]
    """
    if not isinstance(text, str):
        raise RefusedConditionError(f"{name} must be a text such as \"income > 0\"; got {type(text).__name__}.")
    if len(text) > MAX_LENGTH:
        raise RefusedConditionError(f"{name} is {len(text)} characters long; the limit is {MAX_LENGTH}.")
    p = _Parser(text, name, columns)
    tree = p.parse()
    return Condition(text=text, names=tuple(p.names), _tree=tree, _name=name)


def evaluate_condition(frame: pd.DataFrame, text: str, *, name: str = "condition") -> np.ndarray:
    """The boolean mask of the records of ``frame`` that satisfy the condition ``text``."""
    return parse_condition(text, columns=getattr(frame, "columns", None), name=name).evaluate(frame)
