"""An SDC problem stated once: data, key variables, numeric variables, weight, household, strata, sensitive.

:class:`SdcProblem` is the native counterpart of sdcMicro's ``createSdcObj``: it states *which*
variables play which role, validates that up front, and then computes every measure pysdc has for
that specification, before and after masking -- without R. The numbers are those of the individual
functions (:func:`pysdc.measure_risk`, :func:`pysdc.suda2`, :func:`pysdc.d_utility`, ...), called
with the specification's arguments.

* :meth:`SdcProblem.risk` -- :class:`ProblemRisk`: measure_risk (individual, global, household),
  k-anonymity violations, SUDA2 and l-diversity (where the specification allows);
* :meth:`SdcProblem.utility` -- :class:`ProblemUtility`: every information-loss measure of a
  masked file on the declared variables (sdcMicro's and the literature's);
* :meth:`SdcProblem.compare` -- :class:`ProblemComparison`: risk before/after and utility side by
  side, with a DataFrame view;
* :meth:`SdcProblem.report` -- one self-contained HTML file (:mod:`pysdc.report`, computed by :mod:`pysdc.problem._assess`);
* ``pysdc.r.SdcObj.from_problem(problem)`` -- the same specification as sdcMicro's ``sdcMicroObj``
  (:class:`pysdc.r.SdcObj`, needs R).

Native functions also accept a problem in place of their data (``pysdc.measure_risk(problem)``):
the specification fills the arguments the call leaves out (:mod:`pysdc._foreign`).
"""


from __future__ import annotations

import html
import warnings

import pandas as pd

from .._errors import AlignmentWarning, CoercionWarning, InvalidParameterError, PysdcError
from .._registry import assessed
from .._types import r_class
from .._validation import user_stacklevel
from ..io import as_frame
from ..loss import d_utility, il_correl, il_variables
from ..risk import (
    d_risk,
    d_risk_rmd,
    k_anon_violations,
    ldiversity,
    measure_risk,
    suda2,
)
from ._assess import write_report
from ._results import ProblemComparison, ProblemRisk, ProblemUtility
from ._spec import (
    D_UTILITY_METHODS,
    DEFAULT_COLLATION,
    K_ANON_KS,
    _is_numeric,
    _validate,
    as_sdc_keys,
    utility_columns,
    validate_ghost_vars,
)
from ._steps import Step, attach_steps, extract_manip

__all__ = ["SdcProblem", "RECORD_LINKAGE_MAX", "linkage_frames"]

#: above this many records SdcProblem.risk skips record_linkage (n x n distances, O(n^3) matching) unless forced
RECORD_LINKAGE_MAX = 3000

# =============================================================================
# the problem


class SdcProblem:
    """An SDC problem: microdata and the roles of its variables (sdcMicro's ``createSdcObj``, natively).

    Parameters
    ----------
    data : pandas.DataFrame
        The original microdata, one record per row (not copied: do not modify it afterwards). A Polars
        DataFrame or LazyFrame, a PyArrow Table or any object with ``__arrow_c_stream__`` is converted to
        pandas as pysdc reads a Parquet file (:attr:`data` is then that pandas DataFrame).
    key_vars : str or list of str
        Categorical key variables (quasi-identifiers; sdcMicro's ``keyVars``).
    num_vars : list of str, optional
        Numeric key variables (sdcMicro's ``numVars``); must be numeric.
    w : str, optional
        Sampling weight (sdcMicro's ``weightVar``): numeric, positive, never missing.
    hid : str, optional
        Household id (sdcMicro's ``hhId``): household risk.
    strata : str, optional
        Strata variable (sdcMicro's ``strataVar``). Kept in the specification and passed to sdcMicro
        by ``pysdc.r.SdcObj.from_problem``; pysdc's native risk measures are computed over the whole file.
    sensitive : list of str, optional
        Sensitive variables (sdcMicro's ``sensibleVar``): l-diversity.
    ghost_vars : dict or list of pairs, optional
        sdcMicro's ``ghostVars``: variables linked to a key variable, ``{key_var: [ghost, ...]}`` or sdcMicro's
        structure ``[[key_var, [ghost, ...]], ...]``. After each suppression step (``local_suppression``,
        ``local_supp``) a ghost variable is missing wherever its key variable is, as in sdcMicro
        (see :meth:`add_ghost_vars`).
    collation : {"icu", "C"}, default "icu"
        The order of the factor levels made from text key variables: R's order in a UTF-8 locale
        (ICU's collation; R's default on Linux and macOS) or with ``LC_COLLATE=C`` (code point
        order, Python's). See :func:`as_sdc_keys`.

    Raises
    ------
    InvalidParameterError
        Unknown columns (sdcMicro's "please specify valid column-names!"; column positions are
        refused, saying that pysdc takes names), strata among the keys (sdcMicro's "stratification
        variable cant be a categorical key variable!"), a variable in two roles, non-numeric
        ``num_vars`` or weight, missing weights.

    See Also
    --------
    pysdc.r.SdcObj : sdcMicro's ``sdcMicroObj`` from Python (``SdcObj.from_problem(problem)``,
        ``SdcObj.to_problem()``).

    Notes
    -----
    Validation is stricter than sdcMicro 5.8.0's ``createSdcObj``, which (tested through R) accepts a
    variable in two roles (a key that is also numeric, a weight that is also a key), a factor weight
    (it then uses the factor's codes), character numeric variables or weights (coerced to NA with a
    warning) and missing household ids (a household risk of the wrong length); pysdc refuses all but the
    last up front, and measures a record with a missing household id as a household of its own (as
    :func:`pysdc.measure_risk` and the engines do, with a warning). Like sdcMicro it accepts weights <= 0
    (with a warning). sdcMicro's risk does not depend on
    ``strataVar`` (it is used by its masking methods), so the native risk measures ignore ``strata``.

    **Text key variables** follow ``createSdcObj``, not the data.frame functions: createSdcObj turns
    character key variables into factors first (levels sorted as R sorts text, ``collation``), so
    ``suda2``, ``ldiversity``, ``freqCalc`` and ``modRisk`` on the object see the categories, while the
    same functions on a data.frame apply R's ``as.numeric`` and see every text as missing. The problem
    object measures :attr:`sdc_data` (the data with text keys as categoricals); the bare functions
    (:func:`pysdc.suda2`, :func:`pysdc.ldiversity`, :func:`pysdc.freq_calc`) keep the data.frame
    semantics. A text *sensitive* variable stays text, as in createSdcObj, so ``ldiversity`` turns
    it into NA there too (pysdc warns; declare it categorical to count its categories).

    sdcMicro's ``createSdcObj`` also holds the masked data and applies methods to it; pysdc measures
    only, so the masked data are an argument of :meth:`utility`, :meth:`compare` and :meth:`report`
    (same records in the same order, the same column names). Every number equals the individual
    function's with the specification's arguments, e.g. ``problem.risk().measure_risk`` is
    ``pysdc.measure_risk(data, key_vars, w=w, hid=hid)``.

    Examples
    --------
    >>> import pysdc
    >>> x, xm = pysdc.load_demo_pair()
    >>> p = pysdc.SdcProblem(x, ["region", "urbrur", "sex", "age_group", "education"],
    ...                      num_vars=["income", "expenditure", "savings"], w="weight", hid="hid",
    ...                      sensitive=["health_status"])
    >>> round(p.risk().measure_risk.global_risk_er, 4)
    13.4329
    >>> table = p.compare(xm).frame   # risk before/after, information loss
    """

    def __init__(self, data, key_vars, *, num_vars=(), w=None, hid=None, strata=None, sensitive=(),
                 collation: str = DEFAULT_COLLATION, ghost_vars=None):
        data = as_frame("data", data)  # a Polars / Arrow table as pandas (pysdc.io)
        # a missing household id: that record is a household of its own (measure_risk's rule, with its warning;
        # the engines do the same), where sdcMicro's createSdcObj gives a household risk of the wrong length
        self._init(data, _validate(data, key_vars, num_vars, w, hid, strata, sensitive, allow_missing_hid=True),
                   collation)
        self._ghost_vars = validate_ghost_vars(ghost_vars, data, self._spec_dict())
        self._ghost_at = {g: 0 for gs in self._ghost_vars.values() for g in gs}

    def _spec_dict(self) -> dict:
        return {"key_vars": self._key_vars, "num_vars": self._num_vars, "w": self._w, "hid": self._hid,
                "strata": self._strata, "sensitive": self._sensitive}

    @property
    def ghost_vars(self) -> dict:
        """sdcMicro's ``ghostVars``: key variable -> its ghost variables (empty when none are linked)."""
        return {k: list(v) for k, v in self._ghost_vars.items()}

    def add_ghost_vars(self, key_var: str, ghost_vars) -> SdcProblem:
        """sdcMicro's ``addGhostVars(obj, keyVar, ghostVars)``: a new problem with ``ghost_vars`` linked to ``key_var``.

        From the next suppression step on (``local_suppression``, ``local_supp``), a ghost variable is set
        missing in every record where its key variable is missing in the manipulated data (suppressed, or
        missing from the start), as sdcMicro does; suppressions made before the link are not carried to the
        ghosts (sdcMicro neither). The manipulated data and the history are kept; this problem is unchanged.

        Raises InvalidParameterError for a key variable that is not one of :attr:`key_vars`, an unknown column,
        a ghost that is a key variable, in another role, or already linked.
        """
        links = validate_ghost_vars([[key_var, ghost_vars]], self._data, self._spec_dict(), given=self._ghost_vars)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._ghost_vars = links
        new._ghost_at = {**self._ghost_at, **{g: len(self._steps) for gs in links.values() for g in gs
                                              if g not in self._ghost_at}}  # linked after this many steps
        return new

    # ---- the specification (read-only)
    data = property(lambda self: self._data, doc="The original microdata.")
    key_vars = property(lambda self: list(self._key_vars), doc="Categorical key variables.")
    num_vars = property(lambda self: list(self._num_vars), doc="Numeric key variables.")
    w = property(lambda self: self._w, doc="Sampling weight variable, or None.")
    hid = property(lambda self: self._hid, doc="Household id variable, or None.")
    strata = property(lambda self: self._strata, doc="Strata variable, or None.")
    sensitive = property(lambda self: list(self._sensitive), doc="Sensitive variables.")
    collation = property(lambda self: self._collation, doc="The order of factor levels made from text keys.")
    sdc_data = property(lambda self: self._sdc, doc="The data as sdcMicro's createSdcObj holds them: text key "
                        "variables as categoricals (R factors), levels in R's order (:func:`as_sdc_keys`).")

    @property
    def specification(self) -> dict:
        """The roles as a dict (the arguments of :class:`SdcProblem` and of ``SdcObj.create``)."""
        return {"key_vars": self.key_vars, "num_vars": self.num_vars, "w": self.w, "hid": self.hid,
                "strata": self.strata, "sensitive": self.sensitive}

    @property
    def variables(self) -> list:
        """Every variable the specification names, keys first."""
        return [*self._key_vars, *self._num_vars, *(c for c in (self._w, self._hid, self._strata) if c),
                *self._sensitive]

    def with_data(self, data) -> SdcProblem:
        """The same specification on other data (e.g. the masked file), validated again."""
        return SdcProblem(data, self.key_vars, collation=self._collation, ghost_vars=self._ghost_vars or None,
                          **{k: v for k, v in self.specification.items() if k != "key_vars"})

    def __repr__(self) -> str:
        parts = [f"{self._data.shape[0]} records x {self._data.shape[1]} columns", f"key_vars={self.key_vars}"]
        parts += [f"{k}={v!r}" for k, v in self.specification.items() if k != "key_vars" and v not in (None, [])]
        return f"SdcProblem({', '.join(parts)})"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
                       for k, v in self.specification.items() if v not in (None, []))
        return (f"<p><b>SdcProblem</b>: {self._data.shape[0]} records x {self._data.shape[1]} columns</p>"
                f"<table>{rows}</table>")

    # ---- measures
    # ---- measures
    def _masked(self, masked, *, need=None) -> pd.DataFrame:
        if isinstance(masked, SdcProblem):
            masked = masked.data if masked._manip is None else masked.manip_data  # a protected problem: its masked data
        masked = as_frame("masked", masked)  # a Polars / Arrow table as pandas
        if not isinstance(masked, pd.DataFrame):
            raise InvalidParameterError(f"masked must be a pandas DataFrame (or an SdcProblem); got "
                                        f"{type(masked).__name__}.")
        need = self.variables if need is None else need
        miss = [c for c in need if c not in masked.columns]
        if miss:
            raise InvalidParameterError(f"masked lacks the variable(s) {miss} of the specification; the masked file "
                                        "must keep the original's column names.")
        if len(masked) != len(self._data):
            raise InvalidParameterError(
                f"data has {len(self._data)} records but masked has {len(masked)}; the measures compare record by "
                "record (row i of one with row i of the other), so both must hold the same records in the same order."
            )
        if not masked.index.equals(self._data.index):
            warnings.warn("SdcProblem: data and masked have different row indexes; records are paired by position "
                          "(row i with row i, as in sdcMicro), not by index label.",
                          AlignmentWarning, stacklevel=user_stacklevel())
        return masked


    @classmethod
    def for_utility(cls, data, key_vars=(), *, num_vars=(), collation: str = DEFAULT_COLLATION) -> SdcProblem:
        """A problem for information loss only: the key variables may be none (then :meth:`risk` refuses).

        What ``pysdc utility`` builds: the categorical (``key_vars``) and numeric (``num_vars``) variables
        compared, validated as :class:`SdcProblem` validates them.
        """
        data = as_frame("data", data)
        spec = _validate(data, key_vars, num_vars, None, None, None, (), allow_no_keys=True)
        self = cls.__new__(cls)
        self._init(data, spec, collation)
        return self

    def _init(self, data, spec: dict, collation: str) -> None:
        self._sdc = as_sdc_keys(data, spec["key_vars"], collation=collation)
        self._collation = collation
        self._data = data
        self._key_vars = spec["key_vars"]
        self._num_vars = spec["num_vars"]
        self._w = spec["w"]
        self._hid = spec["hid"]
        self._strata = spec["strata"]
        self._sensitive = spec["sensitive"]
        self._manip = None  # the manipulated data (sdcMicro's extractManipData) once a step was applied
        self._steps: tuple = ()
        self._previous = None
        self._ghost_vars: dict = {}
        self._ghost_at: dict = {}

    # ---- protection steps (sdcMicro's methods on an sdcMicroObj; the methods are generated: pysdc.problem._steps)
    @property
    def manip_data(self) -> pd.DataFrame:
        """The data with every step applied (sdcMicro's ``extractManipData``); before any step, :attr:`sdc_data`.

        As sdcMicro's, a numeric key variable recoded by ``global_recode`` holds the interval codes 1, 2, ...
        in its original type (unless that step was given ``recoded_as="labels"``); :attr:`manip_key_vars` has the
        labels (sdcMicro's ``manipKeyVars``).
        """
        return self._sdc if self._manip is None else extract_manip(self, self._manip)

    @property
    def manip_key_vars(self) -> pd.DataFrame:
        """The manipulated key variables as the next step sees them (sdcMicro's ``manipKeyVars``: recoded, labels)."""
        return self._manip_keys[list(self._key_vars)]

    @property
    def _manip_keys(self) -> pd.DataFrame:
        return self._sdc if self._manip is None else self._manip

    @property
    def steps(self) -> list:
        """The methods applied, in order (:class:`pysdc.problem.Step`: name, arguments, variables changed)."""
        return list(self._steps)

    def undo_last(self) -> SdcProblem:
        """sdcMicro's ``undolast``: the problem before the last step (pysdc keeps every earlier state, sdcMicro one)."""
        if self._previous is None:
            raise InvalidParameterError("undo_last: no step has been applied to this problem, nothing to undo.")
        return self._previous

    def _stepped(self, manip: pd.DataFrame, step: Step) -> SdcProblem:
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._manip, new._steps, new._previous = manip, (*self._steps, step), self
        return new

    def risk(self, *, max_global_risk: float = 0.01, alpha: float = 1.0, suda: bool = True,
             l_recurs_c: float = 2.0, data=None, masked=None, drisk_k: float = 0.05, random_state=None,
             run=None, linkage: bool = True, record_linkage_max: int | None = RECORD_LINKAGE_MAX) -> ProblemRisk:
        """Disclosure risk of the data (or of ``data``, e.g. the masked file, with the same specification).

        Parameters
        ----------
        max_global_risk, alpha : float
            As in :func:`pysdc.measure_risk`.
        suda : bool, default True
            Compute SUDA2 (:func:`pysdc.suda2`) on the key variables.
        l_recurs_c : float, default 2
            As in :func:`pysdc.ldiversity` (computed when there are sensitive variables).
        data : pandas.DataFrame or "original", optional
            Other records with the specification's variables. Default: the problem's data, or, after protection
            steps, its manipulated data (:attr:`manip_data`, as sdcMicro's object re-measures its risk);
            ``"original"``: the original data (sdcMicro's ``originalRisk``).
        masked : pandas.DataFrame, optional
            With numeric variables: the distance risk of ``masked``'s numeric variables against the
            problem's data (:func:`pysdc.d_risk` with ``k = drisk_k``, :func:`pysdc.d_risk_rmd` with
            ``random_state``); the same records in the same order.
        drisk_k : float, default 0.05
            :func:`pysdc.d_risk`'s ``k``.
        random_state : int, optional
            Seed of :func:`pysdc.d_risk_rmd`'s random MCD subsets.
        run : callable, optional
            ``run(where, fn, *args, **kwargs)`` through which every measure is called (the command line's
            collector of warnings and progress); default: called directly.
        linkage : bool, default True
            With ``masked`` and numeric variables: the record-linkage risk of ``masked``'s numeric variables
            against the data's (every measure the registry assesses as ``"linkage"``: :func:`pysdc.nn_linkage`,
            :func:`pysdc.record_linkage`, :func:`pysdc.prob_linkage` ..., each with its defaults; record i of
            ``masked`` is record i of the data; records with a missing numeric value in either file are left out,
            and counted).
        record_linkage_max : int or None, default 3000
            :func:`pysdc.record_linkage` (the global matching: O(n^2) memory, O(n^3) time; every measure whose
            entry says ``all_pairs``) is skipped, with the reason, above this many records; None computes it
            whatever the size.

        Returns
        -------
        ProblemRisk
            ``.to_dict()`` is the assessment model (JSON format ``pysdc-risk-1``).
        """
        if not self._key_vars:
            raise InvalidParameterError("risk needs key variables: this problem has none (SdcProblem.for_utility).")
        call = run or _direct
        if isinstance(data, str) and data == "original":
            d = self._sdc
        elif data is None:
            d = self._sdc if self._manip is None else as_sdc_keys(self._manip, self._key_vars,
                                                                  collation=self._collation)
        else:
            d = as_sdc_keys(self._masked(data, need=[*self._key_vars, *(c for c in (self._w, self._hid) if c),
                                                     *self._sensitive]), self._key_vars, collation=self._collation)
        keys = list(self._key_vars)
        mr = call("measure_risk", measure_risk, d, keys, w=self._w, hid=self._hid, max_global_risk=max_global_risk,
                  alpha=alpha)
        # sdcMicro counts on the object's fk, computed with its alpha (createSdcObj(..., alpha))
        ka = {"unweighted": [call("kAnon_violations", k_anon_violations, d, keys, k=k, alpha=alpha)
                             for k in K_ANON_KS]}
        if self._w is not None:
            ka["weighted"] = [call("kAnon_violations", k_anon_violations, d, keys, k=k, w=self._w, weighted=True,
                                   alpha=alpha) for k in K_ANON_KS]
        kan = pd.DataFrame({c: [int(v) for v in vals] for c, vals in ka.items()}, index=pd.Index(K_ANON_KS, name="k"))
        skipped, errors = {}, {}
        su = None
        if suda:
            su = _attempt(call, "suda2", errors, suda2, d, keys)
        else:
            skipped["suda2"] = "not requested (suda=False; on the command line --no-suda)"
        ld = None
        if self._sensitive:
            text = [v for v in self._sensitive if _is_text(d[v])]
            if text:
                warnings.warn(
                    f"SdcProblem: the sensitive variable(s) {text} are text. sdcMicro's createSdcObj makes only the "
                    "key variables factors, so its ldiversity(sdc) converts a text sensitive variable with R's "
                    "as.numeric: every value that is not a number becomes NA, and each NA counts as one more "
                    "distinct value. pysdc does the same to return sdcMicro's numbers. To count the categories, "
                    "declare the variable categorical (on the command line --categorical "
                    f"{','.join(map(str, text))}; in Python data[col] = data[col].astype('category')).",
                    CoercionWarning, stacklevel=user_stacklevel(),
                )
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="ldiversity: sensitive column", category=CoercionWarning)
                ld = _attempt(call, "ldiversity", errors, ldiversity, d, keys, list(self._sensitive),
                              l_recurs_c=l_recurs_c)
        else:
            skipped["ldiversity"] = "no sensitive variables declared"
        distance = None
        if masked is not None and self._num_vars:
            distance = self._distance(masked, drisk_k, random_state, call)
        link = None
        if masked is not None and self._num_vars and linkage:
            link = self._linkage(masked, record_linkage_max, call)
        skipped.update(errors)
        return ProblemRisk(measure_risk=mr, k_anonymity=kan, suda2=su, ldiversity=ld, skipped=skipped, n=len(d),
                           distance=distance, linkage=link, errors=errors, key_vars=tuple(keys), w=self._w, hid=self._hid,
                           alpha=alpha, data=d)

    def _distance(self, masked, k, random_state, call) -> dict:
        """dRisk and dRiskRMD of the masked numeric variables against the data's."""
        nums = list(self._num_vars)
        xm = self._masked(masked, need=nums)
        bad = [c for c in nums if not _is_numeric(xm[c])]
        if bad:
            raise InvalidParameterError(f"masked: the numeric variable(s) {bad} are not numeric in the masked file.")
        x = self._data
        errors: dict = {}
        d = _attempt(call, "dRisk", errors, d_risk, x[nums], xm[nums], k=k)
        kw = {} if random_state is None else {"random_state": random_state}
        rmd = _attempt(call, "dRiskRMD", errors, d_risk_rmd, x[nums], xm[nums], **kw)
        return {"d_risk": d, "d_risk_rmd": rmd, "k": k, "random_state": random_state, "variables": nums,
                "n_masked": len(xm), "errors": errors}

    def _linkage(self, masked, max_records, call) -> dict:
        """The registry's linkage measures (``assess="linkage"``) of the masked numeric variables against the
        data's (record i with record i), on the records complete in both files."""
        if max_records is not None and (isinstance(max_records, bool) or not isinstance(max_records, int)
                                        or max_records < 0):
            raise InvalidParameterError(f"record_linkage_max must be an integer >= 0 or None; got {max_records!r}.")
        nums = list(self._num_vars)
        xm = self._masked(masked, need=nums)
        bad = [c for c in nums if not _is_numeric(xm[c])]
        if bad:
            raise InvalidParameterError(f"masked: the numeric variable(s) {bad} are not numeric in the masked file.")
        x, y = linkage_frames(self._data, xm, nums)
        errors: dict = {}
        skipped: dict = {}
        res: dict = {}
        entries = assessed("linkage")  # every measure the registry assesses this way, each with its defaults
        for m in entries:
            if m.all_pairs and max_records is not None and len(x) > max_records:
                res[m.python] = None
                others = ", ".join(e.python for e in entries if not e.all_pairs)
                skipped[m.python] = (
                    f"{len(x)} records, above record_linkage_max={max_records}: {m.python} compares every pair of "
                    "records (the n x n distance matrix: O(n^2) memory; the global one-to-one matching O(n^3) time); "
                    "force it with record_linkage_max=None "
                    f"(on the command line --force-record-linkage), or use {others} for large files")
            else:
                res[m.python] = _attempt(call, m.python, errors, m.native, x, y, nums)
        return {"results": res, "variables": nums, "n_masked": len(xm), "n_records": len(x),
                "n_left_out": len(xm) - len(x), "record_linkage_max": max_records, "errors": errors,
                "skipped": skipped}

    def utility(self, masked=None, *, random_state=None, scales: dict | None = None, run=None) -> ProblemUtility:
        """Information loss of ``masked`` against the data, on the declared key and numeric variables.

        Parameters
        ----------
        masked : pandas.DataFrame or SdcProblem, optional
            The masked file: the same records in the same order, the same column names. Default: the
            manipulated data of the problem's protection steps (:attr:`manip_data`; sdcMicro's utility slot).
        random_state : int, optional
            Seed of ``d_utility(method="robeigen")``'s random MCD subsets.
        scales : dict, optional
            Variable -> ``"numeric"``, ``"ordinal"`` or ``"nominal"`` for :func:`pysdc.il_variables`
            (default: the roles say it for integer and logical columns: see :func:`utility_columns`).
        run : callable, optional
            ``run(where, fn, *args, **kwargs)`` through which every measure is called (default: directly).

        Returns
        -------
        ProblemUtility
            sdcMicro's measures (``d_utility`` IL1, IL1s, eigen, robeigen and ``il_correl`` on the numeric
            variables, ``il_variables`` on all of them) and the literature's (every registry entry with
            ``assess="utility"``, on the numeric, the categorical key variables or both as the entry's
            ``compares`` says), on the variables :func:`utility_columns` gives (the one rule of every path).
            A measure that does not apply
            is listed in ``skipped`` with the reason. ``.to_dict()`` is the assessment model (JSON format
            ``pysdc-utility-1``).
        """
        call = run or _direct
        keys, nums = list(self._key_vars), list(self._num_vars)
        xm = self._masked(self.manip_data if masked is None else masked, need=[*keys, *nums])
        x = self._data
        bad = [c for c in nums if not _is_numeric(xm[c])]
        if bad:
            raise InvalidParameterError(f"masked: the numeric variable(s) {bad} are not numeric in the masked file.")
        unknown = [c for c in (scales or {}) if c not in keys and c not in nums]
        if unknown:
            raise InvalidParameterError(f"scales names variable(s) {unknown} that are neither key nor numeric "
                                        f"variables ({[*keys, *nums]}).")
        cols = utility_columns(keys, nums, {v: r_class(x[v]) for v in [*keys, *nums]},
                               {v: r_class(xm[v]) for v in [*keys, *nums]}, scales)
        cats, ilv = cols["categorical"], cols["il_variables"]
        results, skipped, errors = {}, {}, {}

        def attempt(name, where, fn, *args, **kw):
            r = _attempt(call, where, errors, fn, *args, **kw)
            if r is not None:
                results[name] = r
            elif where in errors:
                errors[name] = errors.pop(where)

        p = len(nums)
        if nums:
            for m in D_UTILITY_METHODS:
                limit = {"eigen": MAX_MATRIX_VARIABLES, "robeigen": MAX_ROBEIGEN_VARIABLES}.get(m)
                if limit and p > limit:
                    skipped[f"d_utility.{m}"] = _too_wide(m, p, limit, f"pysdc.d_utility(x, xm, method={m!r})")
                    continue
                kw = {"random_state": random_state} if m == "robeigen" and random_state is not None else {}
                attempt(f"d_utility.{m}", m, d_utility, x[nums], xm[nums], method=m, **kw)
            if p > MAX_MATRIX_VARIABLES:
                skipped["il_correl"] = _too_wide("il_correl", p, MAX_MATRIX_VARIABLES, "pysdc.il_correl(x, xm)")
            else:
                attempt("il_correl", "il_correl", il_correl, x[nums], xm[nums])
        else:
            for name in (*(f"d_utility.{m}" for m in D_UTILITY_METHODS), "il_correl"):
                skipped[name] = _NO_VARIABLES["numeric"]
        if ilv:
            sc = {k: v for k, v in cols["scales"].items() if k in ilv}
            attempt("il_variables", "il_variables", il_variables, x[ilv], xm[ilv], scales=sc or None)
        else:
            skipped["il_variables"] = _NO_VARIABLES["both"]
        # the registry's utility measures (assess="utility"), each on the variables its entry names
        groups = {"numeric": nums, "categorical": cats, "both": nums + [c for c in cats if c not in nums]}
        for m in assessed("utility"):
            use = groups[m.compares]
            if not use:
                skipped[m.python] = _NO_VARIABLES[m.compares]
            elif m.matrix and p > MAX_MATRIX_VARIABLES:
                skipped[m.python] = _too_wide(m.matrix, p, MAX_MATRIX_VARIABLES, f"pysdc.{m.python}(x, xm)")
            else:
                attempt(m.python, m.python, m.native, x[use], xm[use])
        skipped.update(errors)
        variables = {"keys": keys, **{k: v for k, v in cols.items() if k != "declared_scales"}}
        return ProblemUtility(results=results, skipped=skipped, variables=variables, errors=errors, n_x=len(x),
                              n_xm=len(xm), cols_x=x.shape[1], cols_xm=xm.shape[1], random_state=random_state)

    def compare(self, masked=None, *, random_state=None, suda: bool = True, **risk_options) -> ProblemComparison:
        """Risk before and after masking, side by side, with the information loss.

        Parameters
        ----------
        masked : pandas.DataFrame or SdcProblem, optional
            The masked file (same records in the same order, same column names); default: :attr:`manip_data`.
        random_state : int, optional
            Seed of robeigen's random MCD subsets.
        suda : bool, default True
            Compute SUDA2 on both files.
        **risk_options
            ``max_global_risk``, ``alpha``, ``l_recurs_c`` for :meth:`risk`.

        Returns
        -------
        ProblemComparison
            ``.frame`` is the side-by-side table; ``.to_dict()`` the assessment models.
        """
        xm = self._masked(self.manip_data if masked is None else masked)
        return ProblemComparison(original=self.risk(suda=suda, data="original", **risk_options),
                                 masked=self.risk(suda=suda, data=xm, **risk_options),
                                 utility=self.utility(xm, random_state=random_state))

    def report(self, masked=None, path="report.html", **options):
        """Write the HTML report of this problem (and of ``masked``, when given) to ``path``.

        One self-contained file (inline CSS and images; no network needed to view it): the
        specification, the risk summary and its distribution, information loss per variable,
        before/after comparisons with the practice guide's plots (matplotlib, the ``[plots]`` extra;
        without it the report says so), the versions, and which numbers are sdcMicro's.

        Parameters
        ----------
        masked : pandas.DataFrame, optional
            The masked file.
        path : str or pathlib.Path, default "report.html"
        **options
            ``title``, ``regression`` (formula text in R syntax) and ``regression_where`` (a condition
            such as ``"income > 0"``, read by pysdc's own parser and never run as Python:
            :mod:`pysdc.core.condition`), ``estimates`` (estimators for :func:`pysdc.compare_estimates`),
            ``random_state``, ``plots`` (False: no figures), ``top``, ``source``, ``k``,
            ``max_global_risk`` (:func:`pysdc.problem.html_report`).

        Returns
        -------
        pathlib.Path
            Where the report was written.
        """
        return write_report(self, masked, path, **options)


#: the measures built on p x p matrices of the numeric variables (covariances, correlations, their eigenvalues
#: and inverses: eigen, il_correl, il_continuous and gsil) need memory ~p^2 and time ~p^3; they are computed
#: up to this many numeric variables (10,000 columns took more than 300 s and 7.9 GB)
MAX_MATRIX_VARIABLES = 1000
#: robeigen fits an MCD (hundreds of p-variate subsets, each ~p^3): minutes already at 100 variables
MAX_ROBEIGEN_VARIABLES = 100


#: why a utility measure was not computed when its variables (``Measure.compares``) are none
_NO_VARIABLES = {"numeric": "no numeric variables (num_vars) declared", "categorical": "no categorical key variables",
                 "both": "no variable of a suitable type was selected"}


def _too_wide(name: str, p: int, limit: int, call: str) -> str:
    return (f"not computed: {p:,} numeric variables, more than the limit of {limit:,} for {name} (it builds "
            f"{p:,} x {p:,} matrices: its time grows with the cube of the number of variables, its memory with the "
            f"square). Select at most {limit:,} variables (--numeric), or call {call} on them directly.")


attach_steps(SdcProblem)  # problem.global_recode(...), .local_suppression(...), ...: one per registry method


def _direct(where, fn, *args, **kwargs):
    return fn(*args, **kwargs)


def linkage_frames(x: pd.DataFrame, xm: pd.DataFrame, nums: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The numeric variables of the records complete in both files (record i of ``xm`` is record i of ``x``),
    renumbered 0..n-1: what :meth:`SdcProblem.risk` passes to the record-linkage measures."""
    if len(x) != len(xm):
        raise InvalidParameterError(
            f"the data have {len(x)} records but masked has {len(xm)}; the record-linkage measures of a problem pair "
            "record i of one file with record i of the other (same records, same order).")
    a, b = x[nums].reset_index(drop=True), xm[nums].reset_index(drop=True)
    keep = (a.notna().all(axis=1) & b.notna().all(axis=1)).to_numpy()
    return a[keep].reset_index(drop=True), b[keep].reset_index(drop=True)


def _attempt(call, where: str, errors: dict, fn, *args, **kwargs):
    """The measure's result, or None with the reason in ``errors[where]`` when pysdc refuses the input (a
    measure that does not apply to these data)."""
    try:
        return call(where, fn, *args, **kwargs)
    except PysdcError as exc:
        errors[where] = " ".join(str(exc).split())
        return None


def _is_text(s: pd.Series) -> bool:
    try:
        return r_class(s) == "character"
    except InvalidParameterError:
        return False
