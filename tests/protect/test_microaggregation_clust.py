"""Microaggregation with the clustering methods clustpca, influence, clustpppca, clustmcdpca, and with pppca and
mcdpca (issue 28, family 3) against sdcMicro 5.8.0.

Stored parity: the cases of r_reference/outputs/microaggregation_clust.json (written by
r_reference/generate_protect_microaggregation_clust.R from make_cases_microaggregation_clust.py) are compared with
sdcMicro by ``pysdc parity`` and tests/parity/test_parity_stored.py (group microaggregation_clust: every aggregated
column to the last bit, the MD5 of all values written with %.17g; where sdcMicro stopped, pysdc raises; the input
unchanged). Here, on the same cases from the same loader: where sdcMicro warned, pysdc warns; the corpus covers the
brief. The clusterings themselves (cluster::clara and cluster::pam) are compared with R's on random inputs in the
live tests. Live parity (marker ``live``): the bridge on every stored case, and the native methods against
sdcMicro on fresh data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import CoercionWarning, InvalidParameterError, RCallError
from pysdc.core.clara import ClusterError, clara, pam
from pysdc.core.microagg_pppca import ppca_scores
from pysdc.protect import microaggregation
from pysdc.protect._microaggregation import NATIVE_METHODS, R_METHODS

from _methods import case_params, group_cases, live_bridge_parity, r_warnings, run_recording_warnings

CASES = group_cases("microaggregation_clust")
WARNED = [c for c in CASES if r_warnings(c) and not c.expects_error]


@pytest.mark.parametrize("case", case_params(WARNED))
def test_warns_where_sdcmicro_warned(case):
    _, caught = run_recording_warnings(case)
    assert caught, f"sdcMicro warned {r_warnings(case)}; pysdc did not"


def test_corpus_covers_the_brief():
    tags = {t for c in CASES for t in c.tags}
    assert {"clustpca", "influence", "clustpppca", "pppca", "clustmcdpca", "mcdpca", "clara", "pam", "ties",
            "strata", "median", "trim", "transf", "error", "real", "large-sample", "full-sample", "seeded",
            "exact-subsets", "weights", "na"} <= tags
    assert sum("error" not in c.tags for c in CASES if "na" in c.tags) >= 4
    for method in ("clustpca", "influence", "clustpppca", "pppca", "mcdpca"):
        assert sum("error" not in c.tags for c in CASES if method in c.tags) >= 12, method
    assert sum("error" not in c.tags for c in CASES if "clustmcdpca" in c.tags) >= 6


def test_native_and_bridge_only_methods():
    assert {"clustpca", "influence", "clustpppca", "pppca", "clustmcdpca", "mcdpca"} <= set(NATIVE_METHODS)
    assert R_METHODS == ()


# =============================================================================
# what the corpus pins, written out


def _blobs():
    # three well separated blobs of 7 records: clara (full sample) and pam find them whatever the rule
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(size=(7, 2)) * 0.1 + c for c in ([0, 0], [10, 0], [0, 10])])
    return x


@pytest.mark.parametrize("fn", [clara, pam])
def test_clusters_are_numbered_by_their_first_record(fn):
    x = _blobs()[[i + 7 * b for i in range(7) for b in (2, 0, 1)]]  # the blobs interleaved: third, first, second
    res = fn(x, 3)
    assert res.clustering.tolist()[:3] == [1, 2, 3]
    assert np.array_equal(res.clustering, np.tile([1, 2, 3], 7))
    assert [res.clustering[m] for m in res.medoids] == [1, 2, 3]


def test_clara_sample_draws_with_its_own_generator():
    # 300 records, k = 2: the sample of 44 is drawn with r <- (5761 r + 999) mod 65536 from r = 0; the first
    # draw is 1 + floor(300 * 999 / 65536) = 5, the second 1 + floor(300 * 54606 / 65536) = 250
    x = np.arange(300.0)[:, None] ** 1.1
    res = clara(x, 1, samples=1)
    assert {4, 249} <= set(res.sample.tolist()) and res.sample.size == 42


def test_influence_orders_each_cluster_by_its_medoids_largest_variable():
    # two clusters; in the first the medoid's largest value is on b, in the second on a: the records of each
    # cluster are ordered by that variable, clusters one after the other, then grouped two at a time
    df = pd.DataFrame({"a": [1.0, 2.0, 1.5, 50.0, 51.0, 52.0], "b": [9.0, 3.0, 6.0, 1.0, 2.0, 0.0]})
    res = microaggregation(df, aggr=2, method="influence", nc=2, transf="none")
    # cluster 1 {0, 1, 2} by b: 1, 2, 0; cluster 2 {3, 4, 5} by a: 3, 4, 5 -> groups (1, 2) (0, 3) (4, 5)
    assert res.groups.tolist() == [1, 0, 0, 1, 2, 2]


def test_ppca_scores_follow_the_robust_direction():
    # records on the line t * (1, 2) with one far outlier off it: the projection with the largest MAD is along
    # the line (first element >= 0), so the scores increase with t, whatever the outlier
    t = np.arange(-10.0, 11.0)
    x = np.column_stack([t, 2 * t + np.where(t % 2 == 0, 0.25, -0.25)])
    x[0] = [40.0, -60.0]
    s = ppca_scores(x, 2)
    assert np.all(np.diff(s[1:]) > 0)


def test_pppca_stops_at_a_record_on_the_medians():
    # record 3 equals the column medians (3, 30): its centred row is 0, R's 0/0 direction makes sdcMicro stop
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 0.5], "b": [10.0, 50, 30, 20, 40, 35, 25]})
    with pytest.raises(InvalidParameterError, match="medians"):
        microaggregation(df, method="pppca", aggr=2)
    # eight records (medians between records): sdcMicro 5.8.0's groups, written out from its output
    df8 = pd.DataFrame({"a": [1.0, 2, 10, 4, 5, 6, 0.5, 7], "b": [10.0, 50, 30, 20, 40, 35, 25, 12]})
    res = microaggregation(df8, method="pppca", aggr=2)
    assert res.mx["a"].tolist() == [4.0, 3.5, 8.0, 2.25, 3.5, 8.0, 2.25, 4.0]
    assert res.mx["b"].tolist() == [11.0, 45.0, 32.5, 22.5, 45.0, 32.5, 22.5, 11.0]


def test_refusals():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7, 8], "b": [1.0, 3, 2, 5, 4, 7, 6, 9]})
    with pytest.raises(InvalidParameterError, match="bclust"):  # kmeans is native (test_microaggregation_kmeans.py)
        microaggregation(df, method="clustpca", nc=2, clustermethod="bclust", aggr=2)
    with pytest.raises(InvalidParameterError, match="object 'res' not found"):
        microaggregation(df, method="influence", nc=2, clustermethod="cmeans", aggr=2)
    with pytest.raises(InvalidParameterError, match="at most n-1"):
        microaggregation(df, method="clustpca", nc=8, aggr=2)
    with pytest.raises(InvalidParameterError, match="missing values"):  # a cluster's principal components
        microaggregation(df.assign(a=df["a"].where(df["a"] > 1)), method="clustpca", nc=2, aggr=2)
    with pytest.raises(InvalidParameterError, match="only.* NAs"):  # clara: a record without any value
        microaggregation(df.assign(a=df["a"].where(df["a"] > 1), b=df["b"].where(df["a"] > 1)), method="influence",
                         nc=2, aggr=2)
    with pytest.raises(InvalidParameterError, match="strictly positive"):
        microaggregation(df.assign(a=df["a"] - 3), method="clustpca", nc=2, aggr=2, transf="boxcox")
    with pytest.warns(CoercionWarning, match="NaNs produced"):
        microaggregation(df.assign(a=df["a"] - 3), method="clustpca", nc=2, aggr=2)


# =============================================================================
# live: clara and pam against R's cluster package on random inputs; the bridge on the stored cases; fresh data

_R_CLUSTER = r"""
suppressMessages(library(cluster))
args <- commandArgs(TRUE); set.seed(as.integer(args[1])); fun <- args[2]
out <- character(0)
for (t in 1:60) {
  n <- sample(c(8:60, 61:150, 400), 1); p <- sample(1:4, 1); k <- sample(1:min(10, n - 1), 1)
  kind <- t %% 4
  x <- if (kind == 0) matrix(rnorm(n * p), n, p) else if (kind == 1) matrix(sample(0:3, n * p, TRUE), n, p) else
    if (kind == 2) matrix(round(rexp(n * p) * 10, 1), n, p) else matrix(sample(0:1, n * p, TRUE), n, p)
  if (t %% 3 == 0) x[sample(n * p, max(1, round(n * p * runif(1, 0, 0.06))))] <- NA  # missing values
  a <- tryCatch(if (fun == "clara") clara(x, k, correct.d = TRUE) else pam(x, k), error = function(e) NULL)
  xs <- sprintf("%a", x); xs[is.na(x)] <- "NA"
  if (is.null(a)) { out <- c(out, paste(n, p, k, paste(xs, collapse = " "), "error", "", "", sep = ";")); next }
  med <- if (fun == "clara") a$i.med else a$id.med
  smp <- if (fun == "clara") a$sample else 0L
  out <- c(out, paste(n, p, k, paste(xs, collapse = " "), paste(smp, collapse = " "),
                      paste(med, collapse = " "), paste(a$clustering, collapse = " "), sep = ";"))
}
writeLines(out)
"""


@pytest.mark.live
@pytest.mark.rscript("cluster", sdcmicro=False)
@pytest.mark.parametrize("fun", ["clara", "pam"])
@pytest.mark.parametrize("seed", [1, 2])
def test_live_clara_pam_against_r(fun, seed, tmp_path):
    import subprocess

    script = tmp_path / "cl.R"
    script.write_text(_R_CLUSTER)
    lines = subprocess.run(["Rscript", str(script), str(seed), fun], capture_output=True, text=True, check=True,
                           timeout=600).stdout.splitlines()
    assert len(lines) == 60
    for line in lines:
        n, p, k, xs, smp, med, cl = line.split(";")
        n, p, k = int(n), int(p), int(k)
        x = np.array([np.nan if v == "NA" else float.fromhex(v) for v in xs.split()]).reshape(p, n).T
        if smp == "error":  # R stopped (missing values): pysdc too
            with pytest.raises(ClusterError):
                clara(x, k) if fun == "clara" else pam(x, k)
            continue
        try:
            res = clara(x, k) if fun == "clara" else pam(x, k)
        except ClusterError as exc:  # R's undefined medoid 0 (see pysdc.core.clara): only there may pysdc stop
            assert "medoid 0" in str(exc) and " 0" in f" {med}", line[:40]
            continue
        assert (res.medoids + 1).tolist() == [int(v) for v in med.split()], line[:40]
        assert res.clustering.tolist() == [int(v) for v in cl.split()], line[:40]
        if fun == "clara":
            assert (res.sample + 1).tolist() == [int(v) for v in smp.split()], line[:40]


_R_QR_MCD = r"""
args <- commandArgs(TRUE); set.seed(as.integer(args[1])); out <- character(0)
for (t in 1:40) {
  n <- sample(8:40, 1); p <- sample(1:4, 1)
  x <- if (t %% 2) matrix(rnorm(n * p), n, p) else matrix(sample(0:3, n * p, TRUE), n, p)
  q <- qr(x)
  mcd <- if (n >= 2 * p + 4) tryCatch({s <- sample(1000, 1); set.seed(s); m <- MASS::cov.mcd(x)
    paste(s, paste(m$best, collapse = " "), paste(sprintf("%a", c(m$center, m$cov)), collapse = " "))},
    error = function(e) "error") else "skip"
  out <- c(out, paste(n, p, paste(sprintf("%a", x), collapse = " "), q$rank, paste(sprintf("%a", q$qr), collapse = " "),
                      paste(sprintf("%a", q$qraux), collapse = " "), mcd, sep = ";"))
}
writeLines(out)
"""


@pytest.mark.live
@pytest.mark.rscript("MASS", sdcmicro=False)
@pytest.mark.parametrize("seed", [1, 2])
def test_live_dqrdc2_and_cov_mcd_against_r(seed, tmp_path):
    import subprocess

    from pysdc.core.mass_mcd import MCDError, cov_mcd, dqrdc2
    from pysdc.core.rrandom import RRandom

    script = tmp_path / "qr.R"
    script.write_text(_R_QR_MCD)
    lines = subprocess.run(["Rscript", str(script), str(seed)], capture_output=True, text=True, check=True,
                           timeout=600).stdout.splitlines()
    assert len(lines) == 40
    for line in lines:
        n, p, xs, rank, qs, qa, mcd = line.split(";")
        n, p = int(n), int(p)
        x = np.array([float.fromhex(v) for v in xs.split()]).reshape(p, n).T
        a, r, qraux = dqrdc2(x)
        assert r == int(rank)
        assert np.array_equal(a, np.array([float.fromhex(v) for v in qs.split()]).reshape(p, n).T)  # to the bit
        assert np.array_equal(qraux, np.array([float.fromhex(v) for v in qa.split()]))
        if mcd == "skip":
            continue
        if mcd == "error":
            with pytest.raises(MCDError):
                cov_mcd(x, RRandom(1))
            continue
        parts = mcd.split(" ")
        nbest = len(parts) - 1 - (p + p * p)
        best = [int(v) - 1 for v in parts[1:1 + nbest]]
        ref = np.array([float.fromhex(v) for v in parts[1 + nbest:]])
        centre, cov, b = cov_mcd(x, RRandom(int(parts[0])))
        assert b.tolist() == best
        # R's final solve/var run through LAPACK and R's loops: equal to rounding (the subsets above are exact)
        np.testing.assert_allclose(np.r_[centre, cov.ravel()], ref, rtol=1e-12, atol=1e-14)


test_live_bridge_parity = live_bridge_parity([c for c in CASES if "real" not in c.tags])


def _fresh(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(20, 150)), int(rng.integers(2, 5))
    x = np.abs(rng.normal(size=(n, p)) @ rng.uniform(size=(p, p))) * 10 + 0.5
    if seed % 2:
        x = np.round(x)  # ties
    return pd.DataFrame(x, columns=list("abcd")[:p]), int(rng.integers(2, 6)), int(rng.integers(2, 9))


@pytest.mark.live
@pytest.mark.parametrize("method", ["clustpca", "influence", "clustpppca", "pppca", "clustmcdpca", "mcdpca"])
@pytest.mark.parametrize("seed", range(6))
def test_live_fresh_data(bridge, method, seed):
    df, k, nc = _fresh(seed)
    kws = ({}, {"clustermethod": "pam", "measure": "median"}, {"measure": "trim", "trim": 0.1, "transf": "none"})
    if "mcd" in method:  # MASS's cov.mcd on R's stream: set.seed(random_state)
        kws = tuple(dict(kw, random_state=seed + i) for i, kw in enumerate(kws))
    for kw in kws:
        try:
            ref = bridge.microaggregation(df, aggr=k, method=method, nc=nc, **kw).mx
        except RCallError:  # sdcMicro stopped: pysdc must stop too
            with pytest.raises(InvalidParameterError):
                microaggregation(df, aggr=k, method=method, nc=nc, **kw)
            continue
        nat = microaggregation(df, aggr=k, method=method, nc=nc, **kw).mx
        pd.testing.assert_frame_equal(nat, ref, check_exact=True, check_dtype=False)
