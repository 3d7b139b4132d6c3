"""sdcMicro's ``sdcMicroObj`` from Python: :class:`SdcObj` (no rpy2 import at module import).

An :class:`SdcObj` wraps a handle to an R ``sdcMicroObj``. Its slots read as pandas / Python
values, sdcMicro's methods are Python methods that return a *new* :class:`SdcObj` (R's value
semantics: the object a method was called on is unchanged), and ``print``/``repr`` show what
R's ``print(sdc, "risk")`` shows.
"""

from __future__ import annotations

import html
import inspect

import numpy as np
import pandas as pd

from .._errors import InvalidParameterError
from .._registry._methods import method_by_python_name
from ..io import as_frame
from ..problem import SdcProblem, _validate
from ..problem._steps import protected_problem
from . import _session
from ._mcd_guard import check_covmcd, shuffle_variables
from ._methods import record_swap_step
from ._objects import RObject

__all__ = ["SdcObj", "PRINT_TYPES"]

#: the ``type`` values of sdcMicro's ``print`` method for an sdcMicroObj
PRINT_TYPES = ("general", "kAnon", "ls", "pram", "recode", "risk", "numrisk")


def _r_names(kwargs: dict) -> dict:
    """Extra R arguments: one trailing ``_`` dropped (as in :func:`pysdc.r.call`)."""
    return {k[:-1] if k.endswith("_") and len(k) > 1 else k: v for k, v in kwargs.items()}


def _step_call(step) -> tuple:
    """(sdcMicro function, seed, R arguments) of a problem's protection step on an sdcMicroObj."""
    m = method_by_python_name(step.method)
    if m.roles is None or m.roles.sdcmicro.startswith("none"):
        raise InvalidParameterError(f"SdcObj.from_problem: the step {step.method} has no sdcMicroObj method in "
                                    f"sdcMicro ({m.r} takes a data.frame only), so the object cannot carry it.")
    kwargs = {}
    for name, value in step.arguments.items():
        if name == "random_state":
            continue
        r_name = m.arguments.get(name)
        if r_name is None:
            default = inspect.signature(m.native).parameters[name].default
            if value == default:
                continue
            raise InvalidParameterError(f"SdcObj.from_problem: {step.method}'s argument {name}={value!r} is "
                                        f"pysdc's; sdcMicro's {m.r} has no such argument.")
        if hasattr(value, "tolist"):
            value = value.tolist()
        if r_name in ("variables", "strata_variables", "var") and isinstance(value, str):
            value = [value]
        if name in m.r_convert:  # the same meaning in sdcMicro's terms (rankSwap's P: a fraction of the records)
            value = m.r_convert[name](value)
        kwargs[r_name] = value
    if m.r == "rankSwap" and step.result is not None:  # refused before R what aborts it (an empty extreme group)
        m.to_r({**{n: p.default for n, p in inspect.signature(m.native).parameters.items()}, **step.arguments,
                "data": step.result, "variables": list(step.variables)})
    if m.r == "recordSwap" and any(r != "key" for r in step.roles):
        raise InvalidParameterError(
            f"SdcObj.from_problem: the record_swap step swapped {list(step.variables)}, not all key variables; an "
            "sdcMicroObj holds manipulated values of its key (and numeric) variables only, so it cannot carry it.")
    seed = step.arguments.get("random_state")
    return m.r, seed, kwargs


def _ghost_links(problem) -> dict:
    """The problem's ghost variables by the number of steps before they were linked: {at: {key: [ghost, ...]}}."""
    out: dict = {}
    for key, ghosts in problem.ghost_vars.items():
        for g in ghosts:
            out.setdefault(problem._ghost_at.get(g, 0), {}).setdefault(key, []).append(g)
    return out


def _add_ghosts(obj, links: dict):
    """sdcMicro's ``addGhostVars`` on ``obj`` for each ``key: [ghost, ...]`` of ``links``."""
    for key, ghosts in links.items():
        obj = obj.apply("addGhostVars", keyVar=key, ghostVars=list(ghosts))
    return obj


def _names(value) -> list | None:
    """A column name or names as a list for R (None stays None: R's NULL)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


class SdcObj:
    """sdcMicro's ``sdcMicroObj``, used from Python.

    Make one with :meth:`create` (sdcMicro's ``createSdcObj``), from an existing handle with
    ``SdcObj(handle)`` (an :class:`RObject` of R class ``sdcMicroObj``, e.g. returned by
    :func:`pysdc.r.call`), or from a native problem with :meth:`from_problem`.

    Parameters
    ----------
    handle : RObject
        A handle to an R ``sdcMicroObj``.

    Attributes
    ----------
    handle : RObject
        The R object; pass it (or the SdcObj itself) to :func:`pysdc.r.call`.
    orig_data, manip_data : pandas.DataFrame
        The original data (slot ``origData``) and the data with every manipulation applied
        (sdcMicro's ``extractManipData``). Columns keep the pandas dtypes of the data given to
        :meth:`create` where R kept their type (see :mod:`pysdc.r._convert_memo`).
    manip_key_vars, manip_num_vars, manip_pram_vars : pandas.DataFrame or None
        The manipulated variables (slots ``manipKeyVars``, ``manipNumVars``, ``manipPramVars``).
    risk, original_risk : dict
        Slots ``risk`` and ``originalRisk`` (``"global"`` dict, ``"individual"`` DataFrame with
        columns ``risk``, ``fk``, ``Fk`` (and ``hier_risk``), ``"numeric"``...).
    utility : dict or None
        Slot ``utility`` (``il1``, ``il1s``, ``eigen`` once numeric variables were masked).
    key_vars, num_vars, sensitive, pram_vars, deleted_vars : list of str
        The specification, by column name (R stores positions).
    w, hid, strata : str or None
        Weight, household id and strata variable.
    can_undo : bool
        Whether :meth:`undo` has a previous state (sdcMicro keeps one).

    See Also
    --------
    pysdc.SdcProblem : the native problem object (:meth:`to_problem`).
    pysdc.r.print : R's printed text of any R object.

    Notes
    -----
    Methods mirror sdcMicro's functions on an ``sdcMicroObj``, with snake_case names and R's
    defaults: :meth:`local_suppression` (``localSuppression``), :meth:`microaggregation`,
    :meth:`add_noise` (``addNoise``), :meth:`pram`, :meth:`global_recode` (``globalRecode``),
    :meth:`top_bot_coding` (``topBotCoding``), :meth:`undo` (``undolast``); :meth:`apply` runs
    any other sdcMicro function that takes the object first and returns it (``groupAndRename``,
    ``shuffle``, ``rankSwap``, ``localSupp``, ...). Extra keyword arguments of every method are
    passed to R under their R names (one trailing ``_`` dropped, as in :func:`pysdc.r.call`).
    Methods with a random component take ``seed``: R's ``set.seed(seed)`` right before the call.

    Examples
    --------
    >>> import pysdc.r as pr
    >>> sdc = pr.SdcObj.create(pr.dataset("testdata"),                         # doctest: +SKIP
    ...                        ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"],
    ...                        num_vars=["expend", "income", "savings"], w="sampling_weight")
    >>> sdc                                      # R's print(sdc, "risk")       # doctest: +SKIP
    >>> sdc2 = sdc.local_suppression(k=3).microaggregation(method="mdav", aggr=3)  # doctest: +SKIP
    >>> sdc2.risk["global"]["risk_ER"], sdc2.utility["il1"]                      # doctest: +SKIP
    """

    __slots__ = ("_handle", "_names_cache")

    def __init__(self, handle: RObject):
        if isinstance(handle, SdcObj):
            handle = handle.handle
        if not isinstance(handle, RObject) or "sdcMicroObj" not in handle.r_class:
            cls = "/".join(handle.r_class) if isinstance(handle, RObject) else type(handle).__name__
            raise InvalidParameterError(
                f"SdcObj wraps a handle to an R sdcMicroObj; got {cls}. Make one with SdcObj.create(...)."
            )
        self._handle = handle
        self._names_cache = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(cls, data, key_vars, *, num_vars=(), w=None, hid=None, strata=None, sensitive=(),
               **r_options) -> SdcObj:
        """sdcMicro's ``createSdcObj`` with :class:`pysdc.SdcProblem`'s specification.

        Parameters
        ----------
        data : pandas.DataFrame
            The microdata (all columns are sent: sdcMicro keeps them in ``origData``). A Polars or Arrow
            table is converted to pandas first, as by :class:`pysdc.SdcProblem`.
        key_vars : str or list of str
            Categorical key variables (``keyVars``).
        num_vars : list of str, optional
            Numeric key variables (``numVars``).
        w : str, optional
            Sampling weight (``weightVar``).
        hid : str, optional
            Household id (``hhId``).
        strata : str, optional
            Strata variable (``strataVar``).
        sensitive : list of str, optional
            Sensitive variables (``sensibleVar``).
        **r_options
            Further arguments of ``createSdcObj`` by their R names: ``alpha``, ``seed``,
            ``randomizeRecords``, ``pramVars``, ``excludeVars``, ``options``...

        Returns
        -------
        SdcObj

        Raises
        ------
        pysdc.InvalidParameterError
            The specification is refused before R starts, as by :class:`pysdc.SdcProblem`
            (unknown columns -- column positions are refused, saying that pysdc takes names --,
            a variable in two roles, a non-numeric weight ...).
        pysdc.RCallError
            sdcMicro refused it.
        """
        data = as_frame("data", data)  # a Polars / Arrow table as pandas (pysdc.io)
        spec = _validate(data, key_vars, num_vars, w, hid, strata, sensitive)
        kwargs = {
            "dat": data,
            "keyVars": list(spec["key_vars"]),
            "numVars": list(spec["num_vars"]) or None,
            "weightVar": spec["w"],
            "hhId": spec["hid"],
            "strataVar": spec["strata"],
            "sensibleVar": list(spec["sensitive"]) or None,
        }
        kwargs.update(_r_names(r_options))
        return cls(_session.call("createSdcObj", (), kwargs, package="sdcMicro", as_robject=True))

    @classmethod
    def from_problem(cls, problem, **r_options) -> SdcObj:
        """sdcMicro's ``createSdcObj`` on a :class:`pysdc.SdcProblem`'s data and specification (needs R).

        ``r_options`` are further arguments of ``createSdcObj`` by their R names (see :meth:`create`);
        :meth:`to_problem` goes back. The problem's protection steps (``problem.steps``) are applied by
        sdcMicro in order, each sdcMicro method on the object with the step's arguments by their R names
        (``random_state=s``: ``set.seed(s)`` before it), so the object holds sdcMicro's manipulated data, risk and
        utility. A step sdcMicro cannot represent (``mv_top_coding``: no sdcMicroObj method; a pysdc-only
        argument such as ``restr_shift`` or ``combs_importance`` not at its default) is refused before R starts.
        """
        if not isinstance(problem, SdcProblem):
            raise InvalidParameterError(f"problem must be a pysdc.SdcProblem; got {type(problem).__name__}.")
        calls = [_step_call(step) for step in problem.steps]  # refused before R starts if one cannot be carried
        spec = problem.specification
        obj = cls.create(problem.data, spec.pop("key_vars"), **spec, **r_options)
        links = _ghost_links(problem)
        for i, (fun, seed, kwargs) in enumerate(calls):  # the problem's steps, applied by sdcMicro (each with its set.seed)
            obj = _add_ghosts(obj, links.get(i, {}))
            if fun == "recordSwap":  # sdcMicro's method returns swapped data, not an object
                obj = record_swap_step(obj, kwargs, problem.hid, problem.key_vars)
            else:  # an R argument named seed (rankSwap's own generator) is passed as seed_ (apply's seed is set.seed)
                obj = obj.apply(fun, seed=seed, **{("seed_" if k == "seed" else k): v for k, v in kwargs.items()})
        return _add_ghosts(obj, links.get(len(calls), {}))

    # ------------------------------------------------------------------ R access
    @property
    def __r_object__(self) -> RObject:
        """The R object this wraps: what the bridge's conversion sends to R in its place."""
        return self._handle

    @property
    def handle(self) -> RObject:
        return self._handle

    @property
    def _dtypes(self):
        """The dtype memory of the data the object was created from (see :mod:`pysdc.r._convert_memo`)."""
        return self._handle._dtypes

    def slot(self, name: str):
        """The slot ``name`` (R's ``obj@name``), converted."""
        return self._handle.slot(name)

    def get(self, type: str):  # noqa: A002 - sdcMicro's argument name
        """sdcMicro's ``get.sdcMicroObj(obj, type)``, converted."""
        return self._call("get.sdcMicroObj", type=type)

    def _call(self, fun: str, *args, **kwargs):
        return _session.call(fun, (self._handle, *args), kwargs, package="sdcMicro", memo=self._dtypes)

    def _spec(self) -> dict:
        if self._names_cache is None:
            out = _session.call("sdc_names", (self._handle,), {}, helper=True, as_robject=False)

            def names(v):
                return [] if v is None else [str(x) for x in np.atleast_1d(v)]

            self._names_cache = {k: (bool(v) if k == "has_prev" else names(v)) for k, v in out.items()}
        return self._names_cache

    def _one(self, role: str):
        v = self._spec()[role]
        return v[0] if v else None

    key_vars = property(lambda self: list(self._spec()["key_vars"]), doc="Categorical key variables.")
    num_vars = property(lambda self: list(self._spec()["num_vars"]), doc="Numeric key variables.")
    sensitive = property(lambda self: list(self._spec()["sensitive"]), doc="Sensitive variables.")
    pram_vars = property(lambda self: list(self._spec()["pram_vars"]), doc="PRAM variables.")
    deleted_vars = property(lambda self: list(self._spec()["deleted_vars"]), doc="Deleted (direct id) variables.")
    w = property(lambda self: self._one("w"), doc="Sampling weight variable, or None.")
    hid = property(lambda self: self._one("hid"), doc="Household id variable, or None.")
    strata = property(lambda self: self._one("strata"), doc="Strata variable, or None.")
    can_undo = property(lambda self: self._spec()["has_prev"], doc="Whether undo() has a previous state.")

    @property
    def specification(self) -> dict:
        """The roles as a dict: the arguments of :meth:`create` and of :class:`pysdc.SdcProblem`."""
        return {"key_vars": self.key_vars, "num_vars": self.num_vars, "w": self.w, "hid": self.hid,
                "strata": self.strata, "sensitive": self.sensitive}

    orig_data = property(lambda self: self.slot("origData"), doc="The original data (slot origData).")
    manip_key_vars = property(lambda self: self.slot("manipKeyVars"), doc="Manipulated key variables.")
    manip_num_vars = property(lambda self: self.slot("manipNumVars"), doc="Manipulated numeric variables.")
    manip_pram_vars = property(lambda self: self.slot("manipPramVars"), doc="Manipulated PRAM variables.")
    risk = property(lambda self: self.slot("risk"), doc="Slot risk (global, individual, numeric ...).")
    original_risk = property(lambda self: self.slot("originalRisk"), doc="Slot originalRisk.")
    utility = property(lambda self: self.slot("utility"), doc="Slot utility (il1, il1s, eigen).")
    options = property(lambda self: self.slot("options"), doc="Slot options.")
    additional_results = property(lambda self: self.slot("additionalResults"), doc="Slot additionalResults.")
    local_suppression_info = property(lambda self: self.slot("localSuppression"),
                                      doc="Slot localSuppression (suppressions per key variable).")
    pram_info = property(lambda self: self.slot("pram"), doc="Slot pram.")

    @property
    def ghost_vars(self) -> dict:
        """Slot ghostVars by name: key variable -> its ghost variables (R stores origData's column positions)."""
        slot = self.slot("ghostVars")
        if not slot:
            return {}
        cols = list(self.orig_data.columns)
        out: dict = {}
        for key, ghosts in slot:
            out.setdefault(cols[int(np.atleast_1d(key)[0]) - 1], []).extend(
                cols[int(g) - 1] for g in np.atleast_1d(ghosts))
        return out

    @property
    def manip_data(self):
        """The data with every manipulation applied (sdcMicro's ``extractManipData``)."""
        return self._call("extractManipData")

    # ------------------------------------------------------------------ printing
    def print(self, type: str = "risk") -> str:  # noqa: A002, A003 - R's names
        """R's printed text of ``print(sdc, type)``; ``type`` is one of :data:`PRINT_TYPES`."""
        if type not in PRINT_TYPES:
            raise InvalidParameterError(f"type must be one of {list(PRINT_TYPES)}; got {type!r}.")
        return _session.printed(self._handle, (type,))

    def __repr__(self) -> str:
        try:
            text = self.print("risk").strip("\n")
        except Exception as exc:  # noqa: BLE001 - a repr must not raise
            return f"<SdcObj (R sdcMicroObj; printing failed: {exc})>"
        return f"<SdcObj: sdcMicro's print(sdc, \"risk\")>\n{text}"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(repr(self))}</pre>"

    # ------------------------------------------------------------------ methods (new objects)
    def apply(self, fun: str, *args, seed: int | None = None, **kwargs) -> SdcObj:
        """Run the sdcMicro function ``fun(obj, ...)`` and wrap the sdcMicroObj it returns.

        Arguments after the object are R arguments (names as in :func:`pysdc.r.call`);
        ``seed`` sets R's ``set.seed(seed)`` first.
        """
        s = _session
        with s.LOCK:
            if seed is not None:
                if isinstance(seed, bool) or not isinstance(seed, int):
                    raise InvalidParameterError(f"seed must be an int; got {seed!r}.")
                s.call_sexp("set.seed", (seed,), {}, package="base")
            self._check_covmcd(fun, kwargs)  # refused where robustbase's covMcd would corrupt R's memory
            out = s.call(fun, (self._handle, *args), _r_names(kwargs), package="sdcMicro", as_robject=True,
                         memo=self._dtypes)
        if not isinstance(out, RObject) or "sdcMicroObj" not in out.r_class:
            raise InvalidParameterError(f"{fun} did not return an sdcMicroObj (got {out!r}); use pysdc.r.call.")
        return SdcObj(out)

    def _check_covmcd(self, fun: str, kwargs: dict) -> None:
        """The data sdcMicro's method hands robustbase's covMcd, checked (:mod:`pysdc.r._mcd_guard`)."""
        if fun == "addNoise" and kwargs.get("method") == "outdect":  # covMcd on the manipulated numeric vars
            nums = self.manip_num_vars
            if nums is not None:
                check_covmcd("add_noise", {"data": nums, "variables": _names(kwargs.get("variables")),
                                           "method": "outdect"})
        elif fun == "microaggregation" and kwargs.get("method") == "rmd":  # the numeric vars, by the strataVar
            nums = self.manip_num_vars
            if nums is not None:
                strata = self.strata
                data = nums if strata is None else nums.assign(**{strata: self.orig_data[strata].to_numpy()})
                check_covmcd("microaggregation", {"data": data, "method": "rmd",
                                                  "variables": _names(kwargs.get("variables")) or list(nums.columns),
                                                  "strata_variables": None if strata is None else [strata]})
        elif fun == "shuffle" and kwargs.get("covmethod") == "mcd" and isinstance(kwargs.get("form"), RObject):
            try:
                form = " ".join(str(t).strip() for t in np.atleast_1d(
                    _session.call("deparse", (kwargs["form"],), {}, package="base")))
                used = shuffle_variables(form)[2]
                parts = [self.manip_num_vars, self.manip_key_vars,  # sdcMicro's cbind, then the form's variables
                         None if self.strata is None else self.orig_data[[self.strata]], self.manip_pram_vars]
                data = pd.concat([f for f in parts if isinstance(f, pd.DataFrame) and len(f.columns)], axis=1)
                data = data.loc[:, [c for c in data.columns if c in used]]
                orig = self.orig_data
                extra = [c for c in used if c not in data.columns and c in orig.columns]
                if extra:
                    data = pd.concat([data, orig[extra]], axis=1)
            except Exception:  # noqa: BLE001 - an object or formula sdcMicro refuses anyway: let R say so
                return
            check_covmcd("shuffle", {"data": data, "form": form, "method": kwargs.get("method", "ds"),
                                     "covmethod": "mcd", "gadp": kwargs.get("gadp", True),
                                     "weights": kwargs.get("weights")})

    def local_suppression(self, k: int = 2, importance=None, combs=None, **r_args) -> SdcObj:
        """sdcMicro's ``localSuppression(obj, k, importance, combs, ...)``: k-anonymity by suppression."""
        return self.apply("localSuppression", k=k, importance=importance, combs=combs, **r_args)

    def microaggregation(self, method: str = "mdav", aggr: int = 3, variables=None, strata_variables=None,
                         *, seed: int | None = None, **r_args) -> SdcObj:
        """sdcMicro's ``microaggregation(obj, variables, aggr, strata_variables, method, ...)``.

        ``variables`` default to the numeric key variables; further R arguments (``weights``, ``nc``,
        ``clustermethod``, ``measure``, ``trim``, ``varsort``, ``transf``) by name.
        """
        kw = {"variables": _names(variables), "aggr": aggr, "strata_variables": strata_variables,
              "method": method}
        return self.apply("microaggregation", seed=seed, **{k: v for k, v in kw.items() if v is not None},
                          **r_args)

    def add_noise(self, noise: float = 150, method: str = "additive", variables=None, *,
                  seed: int | None = None, **r_args) -> SdcObj:
        """sdcMicro's ``addNoise(obj, variables, noise, method, ...)`` (random: pass ``seed``)."""
        kw = {"variables": _names(variables), "noise": noise, "method": method}
        return self.apply("addNoise", seed=seed, **{k: v for k, v in kw.items() if v is not None}, **r_args)

    def pram(self, variables=None, strata_variables=None, pd: float = 0.8, alpha: float = 0.5, *,
             seed: int | None = None, **r_args) -> SdcObj:
        """sdcMicro's ``pram(obj, variables, strata_variables, pd, alpha)`` (random: pass ``seed``).

        ``variables`` default to the object's PRAM variables (``pramVars`` of :meth:`create`).
        """
        kw = {"variables": _names(variables), "strata_variables": strata_variables, "pd": pd, "alpha": alpha}
        return self.apply("pram", seed=seed, **{k: v for k, v in kw.items() if v is not None}, **r_args)

    def global_recode(self, column: str, breaks, labels=None, method: str = "equidistant", **r_args) -> SdcObj:
        """sdcMicro's ``globalRecode(obj, column, breaks, labels, method)`` of one key variable."""
        kw = {"column": column, "breaks": breaks, "labels": labels, "method": method}
        return self.apply("globalRecode", **{k: v for k, v in kw.items() if v is not None}, **r_args)

    def top_bot_coding(self, column: str, value: float, replacement: float, kind: str = "top",
                       **r_args) -> SdcObj:
        """sdcMicro's ``topBotCoding(obj, value, replacement, kind, column)`` of one numeric variable."""
        return self.apply("topBotCoding", value=value, replacement=replacement, kind=kind, column=column, **r_args)

    def undo(self) -> SdcObj:
        """sdcMicro's ``undolast(obj)``: the object before the last method (one step is kept)."""
        if not self.can_undo:
            raise InvalidParameterError("nothing to undo: sdcMicro keeps the state before the last method only, "
                                        "and no method has been applied since (or it was undone already).")
        return self.apply("undolast")

    # ------------------------------------------------------------------ native
    def to_problem(self, data: str = "original"):
        """The specification as a native :class:`pysdc.SdcProblem`.

        Parameters
        ----------
        data : {"original", "manipulated", "protected"}
            The problem's data: ``orig_data`` (default; the masked file is then
            ``manip_data``, e.g. ``p.compare(sdc.manip_data)``), ``manip_data`` (the risk of the
            masked file, as sdcMicro's ``risk`` slot reports it), or ``"protected"``: the original data holding
            ``manip_data`` as its manipulated data (``problem.risk()`` measures it, ``problem.utility()`` compares
            the two; the history is one step, as sdcMicro's object does not keep its methods).
        """
        if data not in ("original", "manipulated", "protected"):
            raise InvalidParameterError(f"data must be 'original', 'manipulated' or 'protected'; got {data!r}.")
        frame = self.manip_data if data == "manipulated" else self.orig_data
        spec = self.specification
        problem = SdcProblem(frame, spec.pop("key_vars"), ghost_vars=self.ghost_vars or None, **spec)
        if data == "protected":  # the original data holding sdcMicro's manipulated data (one step: the object)
            problem = protected_problem(problem, self.manip_data, source="sdcMicroObj (extractManipData)")
        return problem
