"""sdcMicro's ``ldiversity``: distinct, entropy and recursive l-diversity of sensitive variables, native.

The columns come from :func:`pysdc.core.ldiversity.ldiversity_block`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._foreign import measure
from .._results import LDiversityResult
from .._validation import Columns, Interval
from ..core.ldiversity import ldiversity_block
from ..engine._risk import ldiversity_engine
from ._params import DATA, KEY_VARS

__all__ = ["ldiversity", "LDIVERSITY_PARAMS"]


LDIVERSITY_PARAMS = {
    "data": DATA,
    "key_vars": KEY_VARS,
    "ldiv_index": Columns(
        "data", disjoint_from="key_vars",
        disjoint_message="{name}: sensitive variable(s) {cols} are also key variables; a sensitive variable "
        "must not be a key (sdcMicro refuses this too).",
        max_count=5,
        max_message="{name} names {n} sensitive variables; sdcMicro supports at most {max}. Call ldiversity "
        "several times with at most {max} each (the Multi columns then differ).",
    ),
    "l_recurs_c": Interval(),
}


@measure(LDIVERSITY_PARAMS, engine=ldiversity_engine)
def ldiversity(
    data: pd.DataFrame | np.ndarray,
    key_vars: str | Sequence[str],
    ldiv_index: str | Sequence[str],
    *,
    l_recurs_c: float = 2,
) -> LDiversityResult:
    """Distinct, entropy and recursive l-diversity of sensitive variables.

    Parameters
    ----------
    data : pandas.DataFrame or 2-d numeric numpy.ndarray
        The microdata, one record per row.
    key_vars : str or list of str
        Names of the key variables that define the equivalence classes.
    ldiv_index : str or list of str
        Names of the sensitive variables (at most 5, none of them a key).
    l_recurs_c : float, default 2
        The constant ``c`` of recursive (c, l)-diversity (0 means 1, as in
        sdcMicro).

    Returns
    -------
    pandas.DataFrame
        Indexed like ``data``; for each sensitive variable ``v`` the columns
        ``v_Distinct_Ldiversity``, ``v_Entropy_Ldiversity``,
        ``v_Recursive_Ldiversity``, then ``MultiEntropy_Ldiversity`` and
        ``MultiRecursive_Ldiversity`` -- sdcMicro's column names. Each record
        carries the values of its equivalence class.
        On an engine (a DuckDB relation, a Spark DataFrame, :func:`pysdc.scan`):
        :class:`~pysdc.LDiversityCombinations`, one row
        per combination of key and sensitive values (``counts`` records each).

    Raises
    ------
    InvalidParameterError
        Unknown columns, a sensitive variable that is also a key, more than 5
        sensitive variables.

    See Also
    --------
    measure_risk

    Notes
    -----
    Follows sdcMicro 5.8.0's ``ldiversity`` (C++ ``measure_risk_cpp``):

    * Columns are converted with R's ``as.numeric`` (categorical -> codes,
      character -> parsed numbers, other strings NA with a
      :class:`~pysdc.CoercionWarning`); character keys are *not* turned into
      categories here (unlike :func:`measure_risk`): the data.frame method's
      semantics. sdcMicro's ``ldiversity(sdcObj)`` sees them as factors, because
      ``createSdcObj`` converts them; :class:`pysdc.SdcProblem` and the command
      line do the same (a text *sensitive* variable stays text there too).
    * Equivalence classes are records with equal key values. A record with a
      missing key value is a class of its own (sdcMicro compares with ``!=``
      and NA != NA) -- missing keys are **not** wildcards here.
    * Distinct l-diversity counts the distinct sensitive values of a class;
      every missing (NaN) sensitive value counts as a distinct value of its
      own. Entropy l-diversity is ``exp(-sum p log p)`` over those values.
      Recursive (c, l)-diversity is the largest ``l`` with ``r_1 < c (r_l +
      ... + r_m)`` for the value frequencies ``r_1 >= r_2 >= ...``, in
      single-precision arithmetic as sdcMicro's C++.
    * ``-999`` is sdcMicro's missing-value code here: a sensitive value
      -999 is counted as one extra "missing" value (in distinct only if the
      class has other values, in entropy always, not in recursive). A class
      whose sensitive values are all -999 has distinct 0, entropy 1 and a
      recursive value sdcMicro leaves over from an earlier class -- NaN here,
      with a :class:`~pysdc.DegenerateResultWarning`. A key value -999 sends
      sdcMicro into a code path that writes results into the wrong rows;
      pysdc treats it as an ordinary value and warns.
    * Multi columns: with one sensitive variable they are 0. With several,
      sdcMicro 5.8.0 computes them only for sensitive variables whose
      position in the list is at least the number of key variables (an
      indexing bug: with as many keys as sensitive variables they are 0);
      for those it takes the minimum entropy (single precision) and
      recursive l-diversity of the variable within subgroups of equal values
      of the other sensitive variables. pysdc reproduces this; where no
      variable qualifies it returns 0 (sdcMicro returns the value left over
      from an earlier call in the same R session, 0 in a fresh one). Within a
      class, sdcMicro forms these subgroups after an exchange sort that NaN
      comparisons can leave unsorted; pysdc groups equal values exactly, so
      with missing sensitive values the Multi columns can differ.

    References
    ----------
    .. [1] Machanavajjhala, A., Kifer, D., Gehrke, J., Venkitasubramaniam, M.
       (2007). l-diversity: Privacy beyond k-anonymity. ACM TKDD 1(1).

    Examples
    --------
    >>> import pandas as pd, pysdc
    >>> df = pd.DataFrame({"k": [1, 1, 1, 2], "s": [1, 2, 2, 5]})
    >>> pysdc.ldiversity(df, "k", "s")["s_Distinct_Ldiversity"].tolist()
    [2.0, 2.0, 2.0, 1.0]
    """
    keys, sens, c = key_vars, ldiv_index, l_recurs_c
    block, names = ldiversity_block(data, list(keys), list(sens), c)
    table = pd.DataFrame(block.T, columns=names, index=data.index, copy=False)
    return LDiversityResult(table=table, key_vars=tuple(keys), ldiv_index=tuple(sens), l_recurs_c=float(c))
