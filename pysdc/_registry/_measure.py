"""The registry's record type, :class:`Measure`, and the small valid calls the common tests start from."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._foreign import Declaration, declared_measure
from .._validation import Columns, declared_params

__all__ = ["Measure", "Shown", "native_arguments", "decode", "SECTIONS", "ASSESSMENTS", "COMPARES"]

#: the report sections a measure belongs to (ids of the HTML report's sections)
SECTIONS = ("risk", "suda2", "ldiversity", "utility", "utility-per-variable", "estimates")

#: how :class:`pysdc.SdcProblem` assesses a measure by its entry alone (``Measure.assess``):
#: ``"linkage"`` -- :meth:`pysdc.SdcProblem.risk` with ``masked`` and numeric variables calls ``native(x, y, num_vars)``
#: on the records complete in both files (record i of the masked file is record i of the data); the result joins
#: the ``linkage`` section of the ``pysdc-risk-1`` model (its :attr:`Measure.shows`), the text and HTML reports and
#: ``pysdc risk --numeric --masked``.
#: ``"utility"`` -- :meth:`pysdc.SdcProblem.utility` calls ``native(x[cols], xm[cols])`` on the variables its
#: :attr:`Measure.compares` names (record i of the masked file is record i of the data); the result joins the
#: ``literature`` section of the ``pysdc-utility-1`` model (its :attr:`Measure.shows`), the text and HTML reports
#: and ``pysdc utility`` / ``pysdc report``. Empty: the problem computes the measure on its own terms (or not at all).
ASSESSMENTS = ("", "linkage", "utility")

#: which variables of a problem a ``"utility"`` measure compares: the numeric variables, the categorical key
#: variables, or both (numeric first) -- :func:`pysdc.problem.utility_columns`' groups
COMPARES = ("numeric", "categorical", "both")

#: how a shown value is written: a share as a percentage, a count, a number, a word, a yes/no; ``"map"`` a
#: per-variable Series / mapping ({name: number}), ``"names"`` a list of names, ``"table"`` a DataFrame
#: ({row: {column: number}})
FORMATS = ("pct", "int", "float", "text", "bool", "map", "names", "table")


@dataclass(frozen=True)
class Shown:
    """One number of a measure's result in the assessment model and the reports (``Measure.shows``).

    Attributes
    ----------
    key : str
        Its key in the model's entry of the measure (``pysdc-risk-1``: ``linkage.measures.<name>.<key>``).
    label : str
        What the text and HTML reports say beside it, formatted with the entry's values
        (``"{true_links} of {linked_pairs} linked pairs true"``); empty: in the model only, not shown.
    fmt : str
        How it is converted and written (one of :data:`FORMATS`): ``"pct"`` a share (written as %),
        ``"int"``, ``"float"`` (None stays None), ``"text"``, ``"bool"``.
    attr : str
        The result's attribute holding it (default: ``key``).
    get : callable or None
        ``get(result) -> value`` where the value is computed from the result rather than read (e.g. a mean of
        its per-variable values); converted by ``fmt`` as an attribute would be.
    note : str
        The utility text's note beside it, formatted with the entry's values (a list joined with ", ", a
        missing or empty value as "-"; in a per-variable row a ``"map"`` value stands for the row's variable's).
    digits : int or None
        Significant digits in the text reports (None: the reports' default).
    quantity : str
        Its row in :meth:`pysdc.problem.ProblemUtility.to_frame` (``"utility"`` measures; formatted with the
        entry's values); empty: no row.
    column : str
        A ``"map"``'s column in :meth:`pysdc.problem.ProblemUtility.per_variable` (and the HTML report's
        per-variable table); empty: none.
    about : str
        What that column holds, in the few words the HTML report's per-variable note says.

    With ``"utility"`` measures a ``"map"`` with a label is written one row per variable (the label formatted
    with ``key`` = the variable), a ``"table"`` with a label as a table of its own under that label.
    """

    key: str
    label: str = ""
    fmt: str = "float"
    attr: str = ""
    get: Callable | None = None
    note: str = ""
    digits: int | None = None
    quantity: str = ""
    column: str = ""
    about: str = ""

    def __post_init__(self):
        if self.fmt not in FORMATS:  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"Shown {self.key!r}: fmt must be one of {FORMATS}; got {self.fmt!r}")
        if self.column and self.fmt != "map":  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"Shown {self.key!r}: a per-variable column is a map (fmt='map')")

    def raw(self, result):
        """The value from a result as the result holds it (a Series stays a Series)."""
        return self.get(result) if self.get is not None else getattr(result, self.attr or self.key)

    def read(self, result):
        """The value from a result, as the model stores it (plain Python)."""
        v = self.raw(result)
        if v is None:
            return None
        if self.fmt == "map":
            return {str(k): float(x) for k, x in v.items()}
        if self.fmt == "names":
            return [str(e) for e in v]
        if self.fmt == "table":
            return {str(row): {str(c): float(x) for c, x in v.loc[row].items()} for row in v.index}
        if self.fmt == "int":
            return int(v)
        if self.fmt == "bool":
            return bool(v)
        if self.fmt == "text":
            return str(v)
        return float(v)


@dataclass(frozen=True)
class Measure:
    """How one pysdc measure maps onto one sdcMicro function, and everything that follows from it.

    Attributes
    ----------
    python : str
        pysdc's function name (``pysdc.<python>`` and ``pysdc.r.<python>``).
    r : str
        sdcMicro's function name.
    family : str
        ``"risk"`` or ``"loss"``.
    native : callable
        The native function.
    result : type
        What it returns (a result class, ``float`` or ``int``).
    arguments : dict
        Python argument name -> R argument name (``None``: no R counterpart).
    fields : dict
        Python result field -> R result component: a component name, ``'attr "name"'`` for
        an attribute of the result, ``"(numeric)"`` for the value itself; ``None``: computed
        by pysdc.
    defaults : dict
        R argument -> the default pysdc uses (the tests check it against R's ``formals()``).
    formals_of : str
        The sdcMicro (namespace) function whose ``formals()`` hold those defaults, where the
        public function is ``function(obj, ...)``; empty means ``r`` itself.
    notes : str
        What a user moving between the two must know.
    bridge : bool
        Whether :mod:`pysdc.r` offers the measure.
    r_requires : dict
        Python argument -> (the only value sdcMicro can compute, message): options that
        exist natively only; the bridge refuses other values before starting R.
    r_params : dict
        Extra constraints the bridge applies after the shared ones (e.g. an int seed).
    r_seed : str or None
        The Python argument that seeds R's generator (``set.seed``) before the call.
    to_r : callable or None
        ``to_r(values, R) -> (function, kwargs, internal)``: how to call sdcMicro when more
        than renaming is needed (``R`` is :mod:`pysdc.r`).
    from_r : callable or None
        ``from_r(res, values, R) -> result``: how to build the result from sdcMicro's
        (``res.value``, ``res.attr(name)``, ``res.get(component)``); default: ``fields``.
    run_case, compare_case : callable
        Parity: run one stored case through a function, compare with sdcMicro's (see the
        module docstring).
    extra_columns : callable or None
        ``extra_columns(values) -> {frame argument: [columns]}``: columns the bridge must send
        besides those named by ``Columns`` arguments (e.g. the variables of a formula).
    example : callable
        ``example() -> dict``: valid keyword arguments of a small call (the common tests
        build on it: inputs not modified, every declared invalid value refused ...).
    description : str
        What the number means, in a sentence a report can show (its readers are not assumed
        to know the measure).
    citation : str
        Where the measure is defined (author, year); for sdcMicro's measures also sdcMicro's call.
    section : str
        The report section that shows it (one of :data:`SECTIONS`).
    variants : dict
        Descriptions of the variants a report shows as measures of their own (``d_utility``'s
        methods): variant -> description.
    attacker : str
        Which intruder the measure models, in one sentence a report can show (the record-linkage
        measures; docs/record-linkage.md).
    assess : str
        How :class:`pysdc.SdcProblem` computes it from the entry alone (one of :data:`ASSESSMENTS`;
        empty: on the problem's own terms or not at all).
    shows : tuple of Shown
        The numbers of its result the assessment model holds and the reports show (with ``assess``);
        the first one is the entry's ``value``.
    all_pairs : bool
        It compares every pair of records (n x n memory): the problem skips it, with the reason, above
        ``SdcProblem.risk``'s ``record_linkage_max`` records (``pysdc risk --force-record-linkage``).
    compares : str
        With ``assess="utility"``: which variables of the problem it compares (one of :data:`COMPARES`).
    matrix : str
        With ``assess="utility"``: it builds p x p matrices of the numeric variables (time ~p^3): the problem
        skips it above ``MAX_MATRIX_VARIABLES`` numeric variables, calling it this in the reason (empty: no limit).
    question : tuple of str
        ``(question, how to answer it, source, from)``: its row of the question table of docs/measures.md
        ("Which measure answers which question", generated part ``questions``); empty: the page's hand-written
        rows name it.

    What the measure's decorator (:func:`pysdc._foreign.measure`) declares is read from the native
    function: :attr:`params`, :attr:`selects`, :attr:`engine`, :attr:`no_engine`, :attr:`by_name`,
    :attr:`paired`.
    """

    python: str
    r: str
    family: str
    native: Callable
    result: type
    arguments: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    formals_of: str = ""
    notes: str = ""
    bridge: bool = True
    r_requires: dict = field(default_factory=dict)
    r_params: dict = field(default_factory=dict)
    r_seed: str | None = None
    to_r: Callable | None = None
    from_r: Callable | None = None
    run_case: Callable | None = None
    compare_case: Callable | None = None
    example: Callable | None = None
    extra_columns: Callable | None = None
    description: str = ""
    citation: str = ""
    section: str = ""
    variants: dict = field(default_factory=dict)
    attacker: str = ""
    assess: str = ""
    shows: tuple = ()
    all_pairs: bool = False
    compares: str = ""
    matrix: str = ""
    question: tuple = ()

    def __post_init__(self):
        if self.section not in SECTIONS:  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"{self.python}: section must be one of {SECTIONS}; got {self.section!r}")
        if self.assess not in ASSESSMENTS:  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"{self.python}: assess must be one of {ASSESSMENTS}; got {self.assess!r}")
        if self.question and len(self.question) != 4:  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"{self.python}: question is (question, how to answer it, source, from)")
        if self.assess and not self.shows:  # pragma: no cover - an entry error, caught at import
            raise ValueError(f"{self.python}: an assessed measure names the numbers it shows (shows=...)")
        if (self.assess == "utility") != (self.compares in COMPARES):  # pragma: no cover - an entry error
            raise ValueError(f"{self.python}: a 'utility' measure names the variables it compares, one of {COMPARES}")

    def model_entry(self, result) -> dict:
        """The numbers of ``result`` the assessment model holds: ``value`` (the first of :attr:`shows`), then each
        of :attr:`shows` by its key."""
        vals = {s.key: s.read(result) for s in self.shows}
        return {"value": vals[self.shows[0].key], **vals}

    @property
    def params(self) -> dict:
        """The declared constraints of the native function (shared with the bridge)."""
        return declared_params(self.native)

    @property
    def declaration(self) -> Declaration:
        """What the native function's decorator declares besides its parameters (:class:`pysdc._foreign.Declaration`)."""
        decl = declared_measure(self.native)
        if decl is None:  # pragma: no cover - every measure carries @measure (tests/test_foreign_args.py)
            raise TypeError(f"pysdc.{self.python} is not decorated with pysdc._foreign.measure")
        return decl

    @property
    def selects(self) -> str:
        """What a problem in place of its data stands for: ``"data"`` (all of it), ``"numeric"`` (the numeric
        variables), ``"keys"`` (the key variables) or ``"variables"`` (key and numeric variables)."""
        return self.declaration.selects

    @property
    def engine(self) -> Callable | None:
        """The function computing it on a DuckDB relation / Spark DataFrame / scan (None: it does not run there)."""
        return self.declaration.engine

    @property
    def no_engine(self) -> str:
        """Why it does not run on an engine (empty when it does)."""
        return self.declaration.no_engine

    @property
    def by_name(self) -> bool:
        """Whether the variables of ``x`` and ``xm`` are paired by name (else by position, as in sdcMicro)."""
        return self.declaration.by_name

    @property
    def paired(self) -> bool:
        """Whether the records of ``x`` and ``xm`` are compared pairwise (row i with row i)."""
        return self.declaration.paired

    def frame_columns(self, values: dict) -> dict:
        """Frame argument -> the columns the call names in it (the bridge sends only those)."""
        out: dict = {}
        for name, c in self.params.items():
            if isinstance(c, Columns) and values.get(name) is not None:
                cols = values[name]
                out.setdefault(c.of, []).extend([cols] if c.single else cols)
        if self.extra_columns is not None:
            for frame, cols in self.extra_columns(values).items():
                out.setdefault(frame, []).extend(cols)
        return out


def native_arguments(fn: Callable) -> dict:
    """Argument map of a measure without an R counterpart: every argument is pysdc-only."""
    return {name: None for name in inspect.signature(fn).parameters}


# =============================================================================
# small helpers for the entries' hooks


def _lst(v) -> list:
    return [v] if isinstance(v, str) else list(v)


def _num(x) -> float:
    return float("nan") if x is None else float(x)


def _floats(v) -> np.ndarray:
    return np.asarray(v, dtype=float).reshape(-1)



def decode(v):
    """Stored JSON value -> float / float array ("NA", "NaN", "Inf", "-Inf" decoded)."""
    special = {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}
    if isinstance(v, list):
        return np.array([decode(e) for e in v], dtype=np.float64)
    if v is None:
        return math.nan
    if isinstance(v, str):
        return special[v]
    return float(v)



# =============================================================================
# small valid calls (the common tests start from them)


def _risk_frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    """Keys a, b (some missing), weight w, household h, sensitive s, extra columns, a non-default index."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": pd.Categorical(rng.choice(["x", "y", "z"], n)),
            "b": pd.Categorical(rng.choice(["p", "q"], n)),
            "w": rng.uniform(1, 50, n),
            "h": rng.integers(0, n // 3, n),
            "s": pd.Categorical(rng.choice(["s1", "s2", "s3"], n)),
            **{f"t{i}": rng.integers(0, 3, n) for i in range(1, 7)},
        },
        index=pd.Index(rng.permutation(n) + 1000, name="rid"),
    )
    df.loc[df.index[:4], "a"] = np.nan
    return df


def _loss_pair(n: int = 40, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.lognormal(size=(n, 3)), columns=["u", "v", "t"])
    xm = x + rng.normal(scale=0.1, size=x.shape)
    x.iloc[0, 0] = np.nan
    return {"x": x, "xm": xm}



# =============================================================================
