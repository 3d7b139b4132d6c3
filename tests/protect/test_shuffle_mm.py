"""shuffle(regmethod="MM") native (issue 28, family 4): MASS's rlm(method = "MM") from its S-estimate lqs, on R's
stream (pysdc.core.rlm), exact with sdcMicro 5.8.0.

Stored parity: r_reference/outputs/shuffle_mm.json (generate_protect_shuffle_mm.R from make_cases_shuffle_mm.py;
set.seed(seed) before sdcMicro's call), through the parity loader as ``pysdc parity`` runs it: the shuffled values
exactly, the perturbed and EGADP values within pysdc/_tolerances.py's ``shuffle`` tolerances, the stream left where
R leaves it. The cases cover lqs's two ways of choosing subsets (all of them; drawn from the stream) and the methods
where rlm decides the shuffled values (ds2, mvn) or only the EGADP values (ds, ds_cov).

Live (marker ``live``, Rscript): MASS's lqs and rlm themselves on fresh random inputs (the best subset and R's
stream position exactly; coefficients, scales, fitted values within ``("rlm", "coefficients")``), and sdcMicro's
shuffle with regmethod="MM" on fresh data.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import numpy as np
import pandas as pd
import pytest

from pysdc import parity
from pysdc._errors import InvalidParameterError
from pysdc._tolerances import tolerance_for
from pysdc.core.rlm import lqs_s, rlm_mm
from pysdc.core.rrandom import RRandom
from pysdc.protect import shuffle

from _methods import case_params, group_cases, r_warnings, run_recording_warnings

ROOT = parity.reference_dir()
CASES = group_cases("shuffle_mm")


@pytest.mark.parametrize("case", case_params(CASES, "native"))
def test_stored_case_native(case):
    out = parity.check_case(case, root=ROOT, mode="native")
    assert out.status in ("passed", "xfail"), out.message


@pytest.mark.parametrize("case", case_params(CASES))
def test_warns_of_imputing_where_r_did(case):
    _, caught = run_recording_warnings(case)
    assert any("imputed" in str(w.message) for w in caught) == any("imputed" in w for w in r_warnings(case))


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.tags}
    assert {"MM", "ds", "ds2", "mvn", "ds_cov", "exact-subsets", "sampled-subsets", "weights", "na", "real", "gadp",
            "factor", "three-responses", "pearson"} <= tags
    assert all(c.args["regmethod"] == "MM" and not c.expects_error for c in CASES)


@pytest.mark.parametrize(("cid", "differs"), [("shuffle_mm:ds2:ab~c+k", "shuffled"),
                                             ("shuffle_mm:mvn:aby3~c+k+o", "shuffled"),
                                             ("shuffle_mm:ds2:ab~c", "perturbed"), ("shuffle_mm:ds:ab~c", "egadp")])
def test_the_stored_cases_tell_mm_from_lm(cid, differs):
    """With ds2 and mvn the rlm fit decides the perturbed (and so the shuffled) values, with ds the EGADP values:
    lm's on the same data and seed differ from sdcMicro's MM result (so the stored cases can fail)."""
    case = next(c for c in CASES if c.id == cid)
    lm = dataclasses.replace(case, args={**case.args, "regmethod": "lm"})
    out = parity.check_case(lm, root=ROOT, mode="native")
    assert out.status == "failed" and differs in out.message


def test_exact_fit_stops_as_mass():
    """Half of the records on one line: the S-scale is 0 and MASS stops in lm.wfit; pysdc stops saying why."""
    x = np.column_stack([np.ones(12), np.arange(1.0, 13.0)])
    y = np.r_[2 * np.arange(1.0, 8.0) + 1, 5.0, 30.0, -4.0, 8.0, 1.0]
    with pytest.raises(InvalidParameterError, match="S-scale is 0"):
        rlm_mm(x, y)


def test_a_rounding_noise_scale_stops_too():
    """Half of the records on a line with inexact coefficients: the S-scale is rounding noise (MASS goes on, and
    its bisquare weights are ratios of rounding errors); pysdc stops, pointing to the bridge."""
    x = np.column_stack([np.ones(14), np.arange(1.0, 15.0) / 7])
    y = 0.1 + 0.3 * x[:, 1]
    y[8:] += np.array([2.0, -3.5, 1.25, 4.0, -1.0, 2.5])
    with pytest.raises(InvalidParameterError, match="rounding noise.*bridge"):
        rlm_mm(x, y)


def test_singular_design_stops_as_mass():
    x = np.column_stack([np.ones(10), np.arange(10.0), 2 * np.arange(10.0)])
    with pytest.raises(InvalidParameterError, match="singular"):
        rlm_mm(x, np.arange(10.0) ** 2)


def test_sampling_needs_the_stream():
    rng = np.random.default_rng(1)
    x = np.column_stack([np.ones(120), rng.normal(size=120)])  # choose(120, 2) = 7140 subsets: drawn
    with pytest.raises(InvalidParameterError, match="stream"):
        lqs_s(x, rng.normal(size=120))


# =============================================================================
# live: MASS and sdcMicro on fresh inputs

_KERNEL_R = r"""
suppressMessages({library(MASS); library(jsonlite)})
d <- read.csv("d.csv"); x <- as.matrix(d[, grep("^x", names(d)), drop = FALSE]); y <- d$y; w <- d$w
set.seed(SEED)
z <- lqs(cbind(1, x), y, intercept = FALSE, method = "S", k0 = 1.548)
st <- .Random.seed
set.seed(SEED)
f <- rlm(y ~ x, method = "MM", weights = if (WEIGHTED) w else NULL)
cat(toJSON(list(crit = z$crit, coef = unname(z$coefficients), scale = z$scale, bestone = z$bestone,
  seed = st, rcoef = unname(f$coefficients), rs = f$s, fitted = unname(f$fitted.values),
  after = .Random.seed), digits = NA))
"""


def _close(got, exp, what):
    tol = tolerance_for("rlm", "coefficients")
    np.testing.assert_allclose(got, np.asarray(exp, dtype=np.float64), rtol=tol.rtol, atol=tol.atol, err_msg=what)


@pytest.mark.live
@pytest.mark.rscript("jsonlite", "MASS", sdcmicro=False)
@pytest.mark.parametrize("seed", range(1, 9))
def test_live_lqs_and_rlm_equal_mass(seed, tmp_path):
    rng = np.random.default_rng(7000 + seed)
    n = int(rng.choice([9, 14, 23, 40, 75, 160]))
    q = int(rng.integers(1, 4))
    x = np.round(rng.normal(size=(n, q)), 3)
    y = np.round(x @ np.arange(1.0, q + 1) + rng.standard_t(3, size=n) + 6 * (rng.random(n) < 0.15), 3)
    w = np.round(rng.uniform(0.5, 4, size=n), 2)
    weighted = seed % 3 == 0
    frame = pd.DataFrame({**{f"x{j}": x[:, j] for j in range(q)}, "y": y, "w": w})
    frame.to_csv(tmp_path / "d.csv", index=False)
    script = _KERNEL_R.replace("SEED", str(seed)).replace("WEIGHTED", "TRUE" if weighted else "FALSE")
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout)
    design = np.column_stack([np.ones(n), x])
    rr = RRandom(seed)
    z = lqs_s(design, y, rr)
    assert (z.bestone + 1).tolist() == o["bestone"]
    assert rr.random_seed.tolist() == o["seed"]  # as many draws as MASS
    _close(z.crit, o["crit"], "crit")
    _close(z.coefficients, o["coef"], "lqs coefficients")
    _close(z.scale, o["scale"], "lqs scale")
    rr = RRandom(seed)
    f = rlm_mm(design, y, w if weighted else None, rr)
    assert rr.random_seed.tolist() == o["after"]
    _close(f.coefficients, o["rcoef"], "rlm coefficients")
    _close(f.scale, o["rs"], "rlm scale")
    _close(f.fitted, o["fitted"], "rlm fitted")


_SHUFFLE_R = r"""
suppressMessages({library(sdcMicro); library(jsonlite)})
d <- read.csv("d.csv"); d$f <- factor(d$f)
set.seed(SEED)
out <- shuffle(d, FORM, method = "METHOD", regmethod = "MM", weights = if (WEIGHTED) d$w else NULL)
h <- function(m) if (is.null(m)) NULL else sprintf("%a", as.vector(as.matrix(m)))
cat(toJSON(list(shuffled = h(out$shuffled), perturbed = h(out$perturbed), egadp = h(out$egapd),
  after = sprintf("%a", runif(1)))))
"""


@pytest.mark.live
@pytest.mark.rscript("jsonlite")
@pytest.mark.parametrize("seed", range(1, 9))
def test_live_shuffle_mm_equals_sdcmicro(seed, tmp_path):
    rng = np.random.default_rng(8000 + seed)
    n = int(rng.choice([30, 55, 90, 140]))
    c = rng.normal(size=n)
    k = rng.integers(1, 6, size=n)
    data = pd.DataFrame({
        "a": np.round(np.exp(1 + 0.5 * c + rng.normal(size=n)), 2),
        "b": np.round(10 + 2 * c + k + rng.normal(scale=3, size=n) + 30 * (rng.random(n) < 0.1), 1),
        "y3": np.round(rng.gamma(2, 10, size=n), 1),
        "c": np.round(c, 4), "k": k, "f": rng.choice(["u", "v", "w"], size=n),
        "w": np.round(rng.uniform(1, 5, size=n), 2),
    })
    data.to_csv(tmp_path / "d.csv", index=False)
    method = ["ds", "ds2", "mvn", "ds_cov"][seed % 4]
    form = ["a + b ~ c", "a + b ~ c + k", "a + b + y3 ~ c + f", "b + y3 ~ k + c"][(seed // 2) % 4]
    weighted = seed % 3 == 0
    script = (_SHUFFLE_R.replace("SEED", str(seed)).replace("FORM", form).replace("METHOD", method)
              .replace("WEIGHTED", "TRUE" if weighted else "FALSE"))
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout)
    data["f"] = pd.Categorical(data["f"])
    rr = RRandom(seed)
    res = shuffle(data, form, method=method, regmethod="MM", weights=data["w"] if weighted else None,
                  random_state=rr)

    def hexes(v):
        return np.array([float.fromhex(s) for s in v])

    np.testing.assert_array_equal(res.shuffled.to_numpy().ravel(order="F"), hexes(o["shuffled"]))
    for part, got in (("perturbed", res.perturbed), ("egadp", res.egadp)):
        tol = tolerance_for("shuffle", part)
        np.testing.assert_allclose(got.to_numpy().ravel(order="F"), hexes(o[part]), rtol=tol.rtol, atol=tol.atol)
    assert rr.unif_rand() == float.fromhex(o["after"][0])


@pytest.mark.live
@pytest.mark.rscript("MASS", sdcmicro=False)
def test_live_exact_fit_stops_in_mass_too(tmp_path):
    script = ("library(MASS); x <- 1:12; y <- c(2 * (1:7) + 1, 5, 30, -4, 8, 1); "
              "r <- try(rlm(y ~ x, method = 'MM'), silent = TRUE); cat(inherits(r, 'try-error'), r)")
    r = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, cwd=tmp_path)
    assert r.stdout.startswith("TRUE") and "missing or negative weights not allowed" in r.stdout
