"""pysdc.core.kmeans (R's stats::kmeans, Hartigan-Wong AS 136) against R.

* stored: every case of r_reference/outputs/kmeans.json (generate_kmeans.R: base R only, inputs
  r_reference/inputs/kmeans/ from make_inputs_kmeans.py): the same cluster of every record, the same sizes, iter,
  ifault, R's error message or warnings and R's stream afterwards; centres and within sums of squares to
  CLOSED_FORM;
* native invariants (no R): at convergence no single transfer lowers the Hartigan-Wong criterion, the centres
  are the clusters' means, the stream advances by sample.int(m, k);
* live: fresh random inputs (clustered, uniform, ties, duplicated rows; k = 2..8; several seeds) against R's
  kmeans run by Rscript in the same test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pysdc.core.kmeans as km
from pysdc._errors import InvalidParameterError
from pysdc._tolerances import CLOSED_FORM
from pysdc.core.kmeans import KMeansError, hartigan_wong, initial_centers, kmeans
from pysdc.core.rrandom import RRandom

REFDIR = Path(__file__).resolve().parents[2] / "r_reference"
REF = json.loads((REFDIR / "outputs" / "kmeans.json").read_text())["cases"]


def _input(name: str) -> np.ndarray:
    return np.loadtxt(REFDIR / "inputs" / "kmeans" / f"{name}.csv", delimiter=",", ndmin=2)


def _run(x, k, seed, iter_max=10):
    rng = RRandom(seed)
    try:
        res = kmeans(x, k, rng, iter_max)
    except KMeansError as exc:
        return None, str(exc), float(rng.runif(1)[0])
    return res, None, float(rng.runif(1)[0])


def _assert_same(res, err, after, ref):
    assert after == ref["runif_after"], "R's stream after kmeans"
    if "error" in ref:
        assert res is None and err == ref["error"]
        return
    assert err is None, err
    np.testing.assert_array_equal(res.cluster, ref["cluster"])
    np.testing.assert_array_equal(res.size, ref["size"])
    k = len(ref["size"])
    np.testing.assert_allclose(res.centers, np.array(ref["centers"], dtype=float).reshape(k, -1),
                               rtol=CLOSED_FORM.rtol, atol=CLOSED_FORM.atol)
    np.testing.assert_allclose(res.withinss, np.array(ref["withinss"], dtype=float), rtol=CLOSED_FORM.rtol,
                               atol=1e-300)
    assert res.iter == ref["iter"]
    assert res.ifault == ref["ifault"]
    assert list(res.warnings) == ref["warnings"]


@pytest.mark.parametrize("ref", REF, ids=[c["id"] for c in REF])
def test_stored_r_kmeans(ref):
    res, err, after = _run(_input(ref["input"]), ref["k"], ref["seed"], ref["iter_max"])
    _assert_same(res, err, after, ref)


def test_stored_cases_cover_the_edge_cases():
    errors = {c.get("error") for c in REF}
    assert {"empty cluster: try a better set of initial centers", "more cluster centers than distinct data points.",
            "number of cluster centres must lie between 1 and nrow(x)",
            "NA/NaN/Inf in foreign function call (arg 1)"} <= errors
    warns = {w for c in REF for w in c["warnings"]}
    assert "did not converge in 10 iterations" in warns
    assert any(w.startswith("Quick-TRANSfer stage steps exceeded maximum") for w in warns)


def test_error_is_a_pysdc_error():
    with pytest.raises(InvalidParameterError, match="more cluster centers than distinct data points"):
        kmeans(_input("three"), 4, RRandom(1))


# ----------------------------------------------------------------------------------- native invariants
def _datasets():
    rs = np.random.default_rng(11)
    yield rs.normal(size=(800, 3)) + rs.integers(0, 4, size=(800, 1)) * 2.0
    yield rs.uniform(size=(600, 2))
    yield rs.integers(0, 5, size=(500, 2)).astype(float)
    yield rs.normal(size=(40, 4))[rs.integers(0, 40, size=400)]


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_no_single_transfer_improves_at_convergence(k):
    """Hartigan-Wong's stopping rule: no record lowers the within sum of squares by moving alone."""
    for x in _datasets():
        for seed in (1, 2):
            res = kmeans(x, k, RRandom(seed))
            if res.ifault != 0:
                continue
            n = res.size.astype(float)
            l1 = res.cluster - 1
            d = ((x[:, None, :] - res.centers[None, :, :]) ** 2).sum(axis=2)
            own = d[np.arange(x.shape[0]), l1]
            with np.errstate(divide="ignore"):
                loss = np.where(n[l1] > 1, own * n[l1] / (n[l1] - 1), np.inf)  # removal lowers SS by this
            gain = d * (n / (n + 1))[None, :]  # adding to L raises SS by this
            gain[np.arange(x.shape[0]), l1] = np.inf
            assert (gain.min(axis=1) >= loss * (1 - 1e-9)).all()


@pytest.mark.parametrize("k", [1, 2, 4, 7])
def test_centres_sizes_and_withinss_are_the_clusters(k):
    for x in _datasets():
        res = kmeans(x, k, RRandom(3))
        lab = res.cluster - 1
        np.testing.assert_array_equal(res.size, np.bincount(lab, minlength=k))
        for c in range(k):
            np.testing.assert_allclose(res.centers[c], x[lab == c].mean(axis=0), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res.withinss[c], ((x[lab == c] - res.centers[c]) ** 2).sum(),
                                       rtol=1e-10, atol=1e-12)


def test_stream_advances_as_sample_int():
    x = _datasets().__next__()
    rng = RRandom(5)
    kmeans(x, 6, rng)
    ref = RRandom(5)
    rows = ref.sample(x.shape[0], 6)
    assert rng.runif(3).tolist() == ref.runif(3).tolist()
    np.testing.assert_array_equal(initial_centers(x, 6, RRandom(5)), x[rows - 1])


def test_hartigan_wong_from_given_centres_is_deterministic_and_blockwise_exact():
    """The block scan is independent of where blocks start: same result from shuffled block sizes."""
    rs = np.random.default_rng(3)
    x = rs.normal(size=(2000, 2)) + rs.integers(0, 3, size=(2000, 1)) * 3.0
    cen = x[[5, 50, 500, 1500]].copy()
    a = hartigan_wong(x, cen)
    old = (km._MIN_BLOCK, km._MAX_BLOCK)
    try:
        km._MIN_BLOCK, km._MAX_BLOCK = 1, 3
        b = hartigan_wong(x, cen)
    finally:
        km._MIN_BLOCK, km._MAX_BLOCK = old
    np.testing.assert_array_equal(a.cluster, b.cluster)
    assert np.array_equal(a.centers, b.centers) and a.iter == b.iter


def test_bad_arguments():
    x = np.zeros((5, 2))
    with pytest.raises(KMeansError):
        kmeans(x, 0, RRandom(1))
    with pytest.raises(KMeansError, match="iter.max"):
        kmeans(np.arange(10.0).reshape(5, 2), 2, RRandom(1), iter_max=0)


# --------------------------------------------------------------------------------------------- live
_R_LIVE = r"""
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
args <- commandArgs(TRUE)
cases <- read.csv(file.path(args[1], "cases.csv"), stringsAsFactors = FALSE)
con <- file(file.path(args[1], "out.txt"), "w")
for (i in seq_len(nrow(cases))) {
  x <- as.matrix(read.csv(file.path(args[1], cases$file[i]), header = FALSE)); dimnames(x) <- NULL
  set.seed(cases$seed[i]); w <- character(0)
  res <- withCallingHandlers(tryCatch(kmeans(x, cases$k[i]), error = function(e) conditionMessage(e)),
    warning = function(w0) { w <<- c(w, conditionMessage(w0)); invokeRestart("muffleWarning") })
  after <- sprintf("%.17g", runif(1))
  if (is.character(res)) line <- paste("ERROR", res, sep = "\t") else
    line <- paste(paste(res$cluster, collapse = " "), paste(sprintf("%.17g", t(res$centers)), collapse = " "),
                  paste(res$size, collapse = " "), paste(sprintf("%.17g", res$withinss), collapse = " "),
                  res$iter, if (is.null(res$ifault)) "None" else res$ifault, sep = "\t")
  writeLines(paste(line, paste(w, collapse = "|"), after, sep = "\t"), con)
}
close(con)
"""


def _live_inputs():
    rs = np.random.default_rng()  # fresh inputs each run
    out = []
    for _ in range(3):
        m = int(rs.integers(30, 1500))
        p = int(rs.integers(1, 5))
        out.append(("clustered", rs.normal(size=(m, p)) + rs.integers(0, 5, size=(m, 1)) * 2.0))
        out.append(("uniform", rs.uniform(size=(m, p))))
        out.append(("ties", rs.integers(0, 4, size=(m, p)).astype(float)))
        base = rs.normal(size=(max(3, m // 15), p))
        out.append(("dupl", base[rs.integers(0, base.shape[0], size=m)]))
    return out, rs


@pytest.mark.live
@pytest.mark.rscript(sdcmicro=False)
def test_live_against_r_kmeans(tmp_path):
    data, rs = _live_inputs()
    rows = []
    for j, (kind, x) in enumerate(data):
        fn = f"x{j}.csv"
        np.savetxt(tmp_path / fn, x, delimiter=",", fmt="%.17g")
        for k in sorted({int(v) for v in rs.integers(2, 9, size=2)}):
            rows.append((fn, kind, x, k, int(rs.integers(1, 10**6))))
    with open(tmp_path / "cases.csv", "w") as f:
        f.write("file,k,seed\n" + "".join(f"{fn},{k},{s}\n" for fn, _, _, k, s in rows))
    (tmp_path / "live.R").write_text(_R_LIVE)
    subprocess.run(["Rscript", str(tmp_path / "live.R"), str(tmp_path)], check=True, capture_output=True)
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert len(lines) == len(rows)
    for (_fn, kind, x, k, seed), line in zip(rows, lines):
        parts = line.split("\t")
        res, err, after = _run(x, k, seed)
        label = f"{kind} m={x.shape[0]} p={x.shape[1]} k={k} seed={seed}"
        assert after == float(parts[-1]), label
        if parts[0] == "ERROR":
            assert err == parts[1], label
            continue
        assert err is None, (label, err)
        np.testing.assert_array_equal(res.cluster, np.array(parts[0].split(), dtype=int), err_msg=label)
        np.testing.assert_array_equal(res.size, np.array(parts[2].split(), dtype=int), err_msg=label)
        np.testing.assert_allclose(res.centers.ravel(), np.array(parts[1].split(), dtype=float),
                                   rtol=CLOSED_FORM.rtol, atol=0, err_msg=label)
        np.testing.assert_allclose(res.withinss, np.array(parts[3].split(), dtype=float),
                                   rtol=CLOSED_FORM.rtol, atol=1e-300, err_msg=label)
        assert (res.iter, str(res.ifault)) == (int(parts[4]), parts[5]), label
        assert "|".join(res.warnings) == parts[6], label
