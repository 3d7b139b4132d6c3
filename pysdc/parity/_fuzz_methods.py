"""The differential tester for the protection methods: each native method against sdcMicro's on random data.

For one random data set (:func:`pysdc.parity._fuzz_data.make_dataset`: keys of every R class with missing
values, ties and factors with unused levels, weights, households, small strata, numeric variables with a
missing value now and then), :func:`method_variants` draws one call of every native method of the methods
registry (:data:`pysdc._registry._methods.METHODS`) with sdcMicro's argument names; :func:`run_methods` runs
each through the registry entry's own stored-case hook (``run_case``) twice -- the native function and the
bridge's (``pysdc.r.<name>``, sdcMicro 5.8.0), with the same ``set.seed`` where R's stream is used -- and
compares them with the entry's ``compare_case`` (sdcMicro's result in the place of the stored one): the
comparison the stored method cases use, at the tolerances of :mod:`pysdc._tolerances` (suppressed cells,
groups, recodes and R-stream draws exactly; closed-form floats at rtol 1e-12).

``rankSwap`` (:func:`rank_swap_variant`) is called on a frame of its own built from the data set's numeric
variables (ties from rounding, missing values, an integer key now and then) with varied TopPercent,
BottomPercent, P or R0 and an int seed (sdcMicro's own C++ generator, which pysdc reproduces), and compared value
for value. Where sdcMicro 5.8.0 has no defined result (one extreme group empty but not the other, by sdcMicro's
single-precision count), the bridge refuses; the tester then counts pysdc's warning that sdcMicro has no defined
result (:data:`UNDEFINED_WARNINGS`) as pysdc's refusal, so both refusing is agreement and a warning on one side
only is a mismatch.

microaggregation's clustering methods (clustpca, clustpppca, clustmcdpca, influence) take clustermethod clara,
pam or kmeans (R's ``stats::kmeans`` on R's stream, seeded), and shuffle takes regmethod lm or MM (MASS's
``rlm``); kmeans and MM are drawn from streams of their own (:data:`KMEANS_SHARE`, :data:`MM_SHARE`), so the
other calls are those drawn before they were added. Where half of the records or more lie exactly on one fit,
pysdc's MM stops and points to the bridge while sdcMicro may return values rounding decides: that one-sided
refusal (:data:`ONE_SIDED_REFUSALS`) counts as explained.

Not compared: ``recordSwap``: its C++ draws from its own std::mt19937, which pysdc does not reproduce (a listed
divergence), so the same seed swaps other records by design.

A refusal on one side only is a mismatch; both refusing is agreement. Mismatches listed in
``r_reference/divergences.json`` (``"applies_to": "fuzz"``, case ``fuzz:<R name>:<variant>:<tags>:<seed>``)
count as explained.
"""

from __future__ import annotations

import time
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd

import pysdc.r

from .._errors import InvalidParameterError, PysdcError
from .._registry._methods import METHODS, method_by_r_name
from ..core.rankswap import extreme_count
from ._fuzz_data import FuzzData
from ._fuzz_run import _outcome

__all__ = ["NOT_COMPARED", "MORE_MICROAGGREGATION", "KMEANS_SHARE", "MM_SHARE", "ONE_SIDED_REFUSALS",
           "UNDEFINED_WARNINGS", "method_frame", "method_variants",
           "rank_swap_variant", "run_methods"]

#: methods of the registry the tester does not compare number for number, and why
NOT_COMPARED = {
    "recordSwap": "its C++ draws from its own std::mt19937; pysdc does not reproduce it (listed divergence)",
}

#: the start of the warning with which a native method says that sdcMicro 5.8.0 has no defined result for the call
#: (the bridge refuses those calls): the tester counts it as the native side's refusal
UNDEFINED_WARNINGS = {"rankSwap": "rank_swap: sdcMicro 5.8.0 has no defined result"}

#: documented one-sided refusals: pysdc stops (an InvalidParameterError whose message starts so) and points to the
#: bridge where sdcMicro may still return a result; the tester counts that call as explained, with this reason
ONE_SIDED_REFUSALS = {
    "shuffle": ("rlm (method 'MM'): half of the records or more lie exactly on one fit",
                "shuffle(regmethod='MM') where half of the records or more lie exactly on one fit: the S-scale is 0 "
                "or rounding noise, so MASS's rlm stops or returns values that rounding decides; pysdc stops "
                "(pysdc.core.rlm) and points to the bridge"),
}

#: calls not made on some data sets, and why
SKIPPED = {
    "mvTopCoding on collinear data": "robustbase 0.95.0's covMcd on an exact fit (sdcMicro's mvTopCoding, addNoise "
                                     "outdect) corrupts R's heap: the next R call aborts the process (fuzz seed 27)",
}

#: microaggregation's multivariate and clustering methods the tester draws besides mdav, simple, single, onedims
MORE_MICROAGGREGATION = ("pca", "rmd", "pppca", "mcdpca", "clustpca", "clustpppca", "clustmcdpca", "influence")

#: the share of the clustering calls (clustpca, clustpppca, clustmcdpca, influence) drawn with clustermethod kmeans
KMEANS_SHARE = 1 / 3
#: the share of the shuffle calls drawn with regmethod "MM"
MM_SHARE = 0.4

#: how many records a data set for the methods has at most (R's localSuppression takes minutes on 1e5)
METHODS_MAX_N = 2000
#: addNoise's ROMM only up to this many records (an n x n matrix; pysdc's took 281 s on 2,000 records, seed 10)
ROMM_MAX_N = 300


def method_frame(ds: FuzzData) -> pd.DataFrame:
    """The data set as the methods get it: keys, weight, household, sensitive and numeric variables side by side."""
    return ds.data.join(ds.x)


def _categorical_keys(ds: FuzzData) -> list:
    return [k for k in ds.keys if isinstance(ds.data[k].dtype, pd.CategoricalDtype)]


def _numeric_keys(ds: FuzzData) -> list:
    return [k for k in ds.keys if ds.key_classes[k] in ("integer", "double")]


def _as_factors(data: pd.DataFrame, cols) -> pd.DataFrame:
    """Text and logical columns as categoricals (R's factor of them: levels the sorted values)."""
    out = data.copy()
    for c in cols:
        s = out[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            continue
        if s.dtype.kind == "b" or str(s.dtype) == "boolean":
            s = s.astype(object).map(lambda v: None if pd.isna(v) else ("TRUE" if v else "FALSE"))
        out[c] = pd.Categorical(s)
    return out


def _with_unused_level(s: pd.Series) -> pd.Series:
    """A categorical with one more level that no record has (R's factor keeps unused levels)."""
    return s.cat.add_categories(["unused-level"]) if "unused-level" not in s.cat.categories else s


def method_variants(ds: FuzzData, rng: np.random.Generator) -> list:
    """(sdcMicro name, variant label, arguments by sdcMicro's names as the stored cases hold them, data)."""
    data = method_frame(ds)
    nums = list(ds.x.columns)
    cats = _categorical_keys(ds)
    seed = int(rng.integers(1, 100_000))
    out = []

    def pick(seq, k=None):
        seq = list(seq)
        if k is None:
            return seq[int(rng.integers(0, len(seq)))]
        return [seq[i] for i in sorted(rng.choice(len(seq), size=min(k, len(seq)), replace=False))]

    # ---- recoding
    col = pick(_numeric_keys(ds) + nums[:1])
    m = str(rng.choice(["equidistant", "equidistant", "logEqui", "equalAmount", "breaks"]))
    x = data[col].to_numpy(dtype=np.float64, na_value=np.nan)
    if m == "breaks":
        q = np.unique(np.nanquantile(x, [0.0, 0.3, 0.7, 1.0])) if np.isfinite(x).any() else np.array([0.0, 1.0])
        br = [-np.inf, *[float(v) for v in q[1:-1]], float(np.nanmax(x)) if np.isfinite(x).any() else 1.0]
        br = [float(b) for b in br] if rng.random() < 0.5 else [*br[:-1], np.inf]
        args = {"column": col, "breaks": [("-Inf" if b == -np.inf else "Inf" if b == np.inf else b) for b in br]}
    else:
        args = {"column": col, "breaks": int(rng.integers(2, 7)), "method": m}
        if m == "equalAmount":
            args["seed"] = seed
    if rng.random() < 0.2:
        args["labels"] = False
    out.append(("globalRecode", m, args, data))
    col = pick(_numeric_keys(ds) + nums)
    x = data[col].to_numpy(dtype=np.float64, na_value=np.nan)
    kind = str(rng.choice(["top", "bottom"]))
    if np.isfinite(x).any():
        value = float(np.nanquantile(x, 0.9 if kind == "top" else 0.1))
        value = round(value, int(rng.choice([0, 2]))) if rng.random() < 0.7 else value
        out.append(("topBotCoding", kind, {"column": col, "value": value, "kind": kind,
                                           "replacement": round(value, 1)}, data))
    if cats:
        var = pick(cats)
        d = data.copy()
        if rng.random() < 0.5:
            d[var] = _with_unused_level(d[var])
        levels = [str(c) for c in d[var].cat.categories]
        before = pick(levels, int(rng.integers(1, min(3, len(levels)) + 1)))
        after = pick([before[0], "merged"])
        args = {"var": var, "before": before, "after": after}
        if rng.random() < 0.3:
            args["addNA"] = True
        out.append(("groupAndRename", "unused" if "unused-level" in levels else "", args, d))
    if len(nums) >= 2 and not data[nums].isna().any().any() and "collinear" not in ds.tags:  # SKIPPED
        cols = nums[: int(rng.integers(2, min(3, len(nums)) + 1))]
        args = {"seed": seed}
        if rng.random() < 0.4:
            args["alpha"] = float(rng.choice([0.01, 0.1, 0.2]))
        out.append(("mvTopCoding", f"{len(cols)}d", args, data[cols]))
    # ---- microaggregation
    strata = [k for k in cats if not data[k].isna().any()]
    meth = str(rng.choice(["mdav", "mdav", "simple", "single", "onedims"]))
    args = {"variables": pick(nums, int(rng.integers(1, len(nums) + 1))), "aggr": int(rng.integers(2, 6)),
            "method": meth}
    if meth in ("simple", "onedims") and rng.random() < 0.5:
        args["measure"] = "median"
    if meth == "single":
        args["varsort"] = int(rng.integers(1, len(args["variables"]) + 1))
    if strata and rng.random() < 0.4:
        args["strata_variables"] = [pick(strata)]
    side = np.random.default_rng([seed, 28])  # measures and weights: drawn aside, the main stream unchanged
    if meth != "mdav" and side.random() < 0.5:
        args["measure"] = str(side.choice(["trim", "onestep", "median", "mean"]))
        if args["measure"] == "trim":
            args["trim"] = float(side.choice([0.05, 0.1, 0.25, 0.5]))
    if "w" in data.columns and side.random() < 0.4:
        args["weights"] = "w"
    out.append(("microaggregation", meth + ("+strata" if "strata_variables" in args else "")
                + ("+weights" if "weights" in args else ""), args, data))
    # the multivariate and clustering methods (pca, rmd, pppca, mcdpca; clustpca, clustpppca, clustmcdpca and
    # influence with clara, pam or kmeans): one more call, drawn from a stream of its own (the draws above unchanged);
    # seeded where sdcMicro draws from R's stream (covMcd for rmd, MASS's cov.mcd for mcdpca/clustmcdpca)
    more = np.random.default_rng([seed, 29])
    if len(nums) >= 2:
        meth = str(more.choice(MORE_MICROAGGREGATION))
        k = int(more.integers(2, len(nums) + 1))
        args = {"variables": [nums[i] for i in np.sort(more.choice(len(nums), size=k, replace=False))],
                "aggr": int(more.integers(2, 6)), "method": meth, "seed": seed}
        label = meth
        if meth.startswith("clust") or meth == "influence":
            args["clustermethod"] = str(more.choice(["clara", "pam"]))
            args["nc"] = int(more.integers(2, 5))
            # kmeans (R's stats::kmeans on R's stream, seeded by ``seed``): drawn from a stream of its own, so the
            # clara and pam calls drawn before it was added stay as they were
            if np.random.default_rng([seed, 31]).random() < KMEANS_SHARE:
                args["clustermethod"] = "kmeans"
            label += f"+{args['clustermethod']}"
        if meth not in ("rmd", "influence") and more.random() < 0.3:
            args["measure"] = str(more.choice(["median", "trim", "onestep"]))
            if args["measure"] == "trim":
                args["trim"] = float(more.choice([0.1, 0.25]))
            label += f"+{args['measure']}"
        if strata and more.random() < 0.3:
            args["strata_variables"] = [strata[int(more.integers(0, len(strata)))]]
            label += "+strata"
        out.append(("microaggregation", label, args, data))
    args = {"variables": pick(nums, int(rng.integers(1, len(nums) + 1))), "aggr": int(rng.integers(2, 6))}
    if rng.random() < 0.3:
        args["measure"] = "median"
    if strata and rng.random() < 0.5:
        args["by"] = [pick(strata)]
    out.append(("mafast", "by" if "by" in args else "", args, data))
    # ---- perturbation on R's stream
    methods = ["additive", "correlated", "correlated2", "restr"] + (["outdect"] if "collinear" not in ds.tags else []) \
        + (["ROMM"] if ds.n <= ROMM_MAX_N else [])
    meth = str(rng.choice(methods))
    args = {"variables": pick(nums, int(rng.integers(1, len(nums) + 1))), "method": meth, "seed": seed}
    if meth in ("additive", "restr") and rng.random() < 0.5:
        args["noise"] = float(rng.choice([50, 10, 200]))
    if meth == "correlated2" and rng.random() < 0.5:
        args["delta"] = float(rng.choice([0.5, 0.05]))
    if meth == "ROMM" and rng.random() < 0.5:
        args["p"] = float(rng.choice([0.2, 0.01]))
    out.append(("addNoise", meth, args, data))
    if cats:
        pvars = pick(cats, int(rng.integers(1, min(2, len(cats)) + 1)))
        args = {"variables": pvars, "seed": seed}
        if rng.random() < 0.5:
            args["pd"] = float(rng.choice([0.5, 0.9, 1.0]))
        if rng.random() < 0.4:
            args["alpha"] = float(rng.choice([0.0, 0.3, 1.0]))
        st = [k for k in strata if k not in pvars]
        if st and rng.random() < 0.4:
            args["strata_variables"] = [pick(st)]
        nonascii = "strata_variables" in args and not all(
            str(c).isascii() for c in data[args["strata_variables"][0]].cat.categories)
        label = "+".join([*(["ordered"] if any(data[v].cat.ordered for v in pvars) else []),
                          *(["strata"] if "strata_variables" in args else []),
                          *(["nonascii-strata"] if nonascii else [])])
        out.append(("pram", label, args, data))
    if len(nums) >= 3:
        resp = nums[:2]
        form = " + ".join(resp) + " ~ " + " + ".join(nums[2:])
        args = {"form": form, "seed": seed}
        if rng.random() < 0.4:
            args["covmethod"] = "pearson"
        if rng.random() < 0.2:
            args["gadp"] = False
        # regmethod MM (MASS's rlm): drawn from a stream of its own, the other draws unchanged
        if np.random.default_rng([seed, 32]).random() < MM_SHARE:
            args["regmethod"] = "MM"
        out.append(("shuffle", args.get("covmethod", "spearman") + ("+nogadp" if args.get("gadp") is False else "")
                    + ("+MM" if args.get("regmethod") == "MM" else ""), args, data))
    # ---- suppression
    keys = list(ds.keys)
    d = _as_factors(data, keys)  # sdcMicro reads text keys as numbers: factors on both sides
    k = int(rng.choice([2, 3, 5]))
    args = {"keyVars": keys, "k": k}
    if rng.random() < 0.3:
        args["importance"] = [int(v) for v in rng.permutation(len(keys)) + 1]
    if rng.random() < 0.2 and len(keys) >= 3:
        args["combs"] = [int(rng.integers(2, len(keys)))]
    if ds.n <= 600 and rng.random() < 0.25:
        st = "s" if ds.sensitive and not data["s"].isna().any() else None
        if st is not None:
            args["strataVars"] = [st]
    if rng.random() < 0.2:
        args["alpha"] = float(rng.choice([0.0, 0.5]))
    out.append(("localSuppression", f"k{k}", args, d))
    args = {"keyVars": keys, "w": ds.w, "keyVar": pick(keys), "threshold": float(rng.choice([0.05, 0.15, 0.5]))}
    out.append(("localSupp", f"t{args['threshold']:g}", args, d))
    # ---- rank swapping (sdcMicro's own generator, reproduced): a frame and stream of its own
    out.append(("rankSwap", *rank_swap_variant(ds, seed)))
    return out


#: rankSwap's TopPercent and BottomPercent (0: no extreme group), P (sdcMicro's fraction) and R0 as drawn
RANK_SWAP_PERCENTS = (0.0, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0)
RANK_SWAP_P = (0.005, 0.02, 0.05, 0.1, 0.3, 1.0)
RANK_SWAP_R0 = (0.0, 0.5, 0.8, 0.95, 0.99, 1.0)
#: how often a rankSwap call is drawn where sdcMicro 5.8.0 has no defined result (the bridge refuses, pysdc warns)
RANK_SWAP_UNDEFINED = 0.1


def _rank_swap_undefined(data: pd.DataFrame, variables, top: float, bottom: float) -> bool:
    """Whether a variable's non-missing count leaves one extreme group empty but not the other (sdcMicro's
    single-precision count, :func:`pysdc.core.rankswap.extreme_count`): sdcMicro 5.8.0 has no defined result."""
    ns = [int(data[v].notna().sum()) for v in variables]
    return any(n and (extreme_count(n, top) == 0) != (extreme_count(n, bottom) == 0) for n in ns)


def rank_swap_variant(ds: FuzzData, seed: int) -> tuple:
    """(variant label, arguments by sdcMicro's names, data) of one ``rankSwap`` call on ``ds``.

    Drawn from a stream of its own (``default_rng([seed, 30])``, the other methods' draws unchanged). The frame
    holds the data set's numeric variables, each kept as drawn, rounded to a coarse grid (ties) or reduced to a
    few distinct whole numbers (many ties), with missing values in some, and now and then a numeric key (an
    integer key with its missing values). Two or more of them are swapped (the others stay in the frame). The
    call takes P or R0 or neither (sdcMicro's default), TopPercent and BottomPercent from
    :data:`RANK_SWAP_PERCENTS` (or the defaults) and an int seed (0 and 2**31 - 1 among them). About one call in
    ten (:data:`RANK_SWAP_UNDEFINED`) is drawn where sdcMicro has no defined result (label ``+undefined``); the
    others avoid it.
    """
    g = np.random.default_rng([seed, 30])
    n = ds.n
    frame, label = {}, []
    for c in ds.x.columns:
        x = ds.x[c].to_numpy(dtype=np.float64, na_value=np.nan).copy()
        kind = str(g.choice(["raw", "round", "few"], p=[0.4, 0.35, 0.25]))
        if kind == "round":
            sd = float(np.nanstd(x)) or 1.0
            step = 10.0 ** np.floor(np.log10(sd)) * float(g.choice([0.5, 1.0, 2.0]))
            x = np.round(x / step) * step
        elif kind == "few":
            x = np.where(np.isnan(x), np.nan, g.integers(0, int(g.integers(2, 7)), n).astype(np.float64))
        if kind != "raw" and "ties" not in label:
            label.append("ties")
        if g.random() < 0.4:
            x[g.random(n) < float(g.uniform(0.01, 0.2))] = np.nan
        frame[c] = x
    keys = [k for k in _numeric_keys(ds) if ds.key_classes[k] == "integer"]
    if keys and g.random() < 0.3:
        k = keys[int(g.integers(0, len(keys)))]
        frame[k] = ds.data[k].astype("Int64")
        label.append("intkey")
    data = pd.DataFrame(frame, index=ds.data.index)
    names = list(data.columns)
    variables = [names[i] for i in np.sort(g.choice(len(names), size=int(g.integers(2, len(names) + 1)),
                                                    replace=False))]
    if data[variables].isna().any().any():
        label.append("na")
    args: dict = {"variables": variables}
    mode = str(g.choice(["P", "R0", "default"], p=[0.4, 0.4, 0.2]))
    if mode == "P":
        args["P"] = float(g.choice(RANK_SWAP_P))
    elif mode == "R0":
        args["R0"] = float(g.choice(RANK_SWAP_R0))
    want_undefined = g.random() < RANK_SWAP_UNDEFINED
    top = bottom = 5.0
    for tries in range(40):
        if tries or g.random() < 0.75:
            top, bottom = (float(v) for v in g.choice(RANK_SWAP_PERCENTS, size=2))
        if _rank_swap_undefined(data, variables, top, bottom) == want_undefined:
            break
    if (top, bottom) != (5.0, 5.0):
        args["TopPercent"], args["BottomPercent"] = top, bottom
    if _rank_swap_undefined(data, variables, top, bottom):
        label.append("undefined")
    r = g.random()
    args["seed"] = 0 if r < 0.1 else 2 ** 31 - 1 if r < 0.2 else int(g.integers(0, 2 ** 31))
    return "+".join([mode, *label]), args, data


class UndefinedInSdcMicro(Exception):
    """pysdc's warning that sdcMicro 5.8.0 has no defined result (:data:`UNDEFINED_WARNINGS`), recorded by the
    tester as the native side's refusal (the bridge refuses those calls)."""


class _Diff(SimpleNamespace):
    """A difference reported by a method's ``compare_case`` (a sentence), in the form the fuzz outcome reads."""


def _as_diffs(lines: list) -> list:
    return [_Diff(ok=False, field=line.split(":")[0][:60], max_abs=float("nan"), max_rel=float("nan"), detail=line)
            for line in lines]


def _run(entry, fn, args, data):
    before = data.copy(deep=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = entry.run_case(fn, dict(args), data)
    undefined = UNDEFINED_WARNINGS.get(entry.r)
    said = [str(w.message) for w in caught if undefined and str(w.message).startswith(undefined)]
    if said:
        raise UndefinedInSdcMicro(said[0])
    if not data.equals(before):
        raise AssertionError(f"{entry.python} modified its input")
    if isinstance(out, dict) and "after" in out:
        out = {**out, "after": None}  # the stream's position after the call: only the stored cases record it
    return out


def run_methods(ds: FuzzData, divergences=(), *, native_mod=None, bridge_mod=None, methods=None) -> list:
    """Every method comparison on one data set (or those of ``methods``, sdcMicro names): :class:`FuzzOutcome`."""
    if bridge_mod is None:
        bridge_mod = pysdc.r
    rng = np.random.default_rng([ds.seed, 3])  # the methods' own stream: the data set stays seed-only
    outs = []
    for r_name, variant, args, data in method_variants(ds, rng):
        if methods is not None and r_name not in methods:
            continue
        entry = method_by_r_name(r_name)
        native_fn = getattr(native_mod, entry.python) if native_mod is not None else entry.native
        bridge_fn = getattr(bridge_mod, entry.python)
        t0 = time.perf_counter()
        native = _call(_run, entry, native_fn, args, data)
        bridge = _call(_run, entry, bridge_fn, args, data)
        o = _outcome(ds, r_name, variant, args, native, bridge,
                     lambda a, b, e=entry: _as_diffs(e.compare_case(b, a)), divergences, t0)
        exc = native[1]
        documented = ONE_SIDED_REFUSALS.get(r_name)
        if (o.status == "mismatch" and documented and bridge[1] is None and isinstance(exc, InvalidParameterError)
                and str(exc).startswith(documented[0])):
            o.status, o.reason = "explained", documented[1]
        if exc is not None and not isinstance(exc, (PysdcError, UndefinedInSdcMicro)):  # bad input must get a clear pysdc error
            o.status, o.field, o.reason = "mismatch", "(raw error)", ""
            o.detail = f"pysdc raised a raw {type(exc).__name__} (not a pysdc error): {str(exc)[:200]}"
        outs.append(o)
    return outs


def _call(fn, *args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - every failure is part of the comparison
        return None, exc


def compared_methods() -> list:
    """The sdcMicro names of the registry's methods the tester compares."""
    return [m.r for m in METHODS if m.r not in NOT_COMPARED]


# the entries the variants name exist (a renamed method fails here, at import)
for _name in ("globalRecode", "topBotCoding", "groupAndRename", "mvTopCoding", "microaggregation", "mafast",
              "addNoise", "pram", "shuffle", "localSuppression", "localSupp", "rankSwap"):
    method_by_r_name(_name)
del _name
