"""FAST-MCD on R's random stream (robustbase's covMcd, bit for bit)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
from scipy import stats

from ..._errors import DegenerateResultWarning
from ..rrandom import RRandom
from .arith import (
    _EXACT_TOL,
    _gram_cols,
    _hyperplane,
    _insert_unselected,
    _mahad,
    _plane_dist,
    _r_cov_wt,
    _r_mahalanobis,
    _rfrangen,
    _rfrdraw,
    _select_smallest,
    _sscp_cov,
    _sweep,
    _Uniforms,
    _wirth_select,
)
from .exactfit import ExactFitOverrun, overrun_message
from .factors import mcd_consistency_factor, mcd_small_sample_factor
from .result import McdResult, _NotReproduced

# FAST-MCD on R's random stream (robustbase's covMcd, bit for bit)
# --------------------------------------------------------------------------------------
#
# With an R stream (pysdc.core.rrandom.RRandom, i.e. random_state = an int seed) cov_mcd follows
# robustbase 0.95-0's FAST-MCD as R runs it: the same random draws in the same order (subsets of
# p + 1 rows drawn as floor(u * n) + 1 with repeats redrawn, a singular subset extended by one
# more random row, the nonoverlapping subdatasets of n >= 2 * nmini drawn one row at a time), the
# same arithmetic (data standardised by median and the h-th smallest absolute deviation, sums of
# squares and cross products accumulated row by row, Gauss-Jordan sweeps, Mahalanobis forms
# summed in the same order), the same selection of the h smallest distances (ties resolved as a
# Hoare/Wirth selection resolves them), the same 10 best kept per stage (equal determinants kept
# once) and the same stopping rule (a determinant equal to the one two steps before). Written from
# the algorithm's description (Rousseeuw & Van Driessen 1999), robustbase's documentation and
# its observed behaviour; every step is vectorised over the starts of a stage.


class _ExactFitR(Exception):
    def __init__(self, code: int, on: np.ndarray, z: np.ndarray, data: np.ndarray | None = None):
        self.code = code
        self.on = on  # 0/1 weights of the observations on the hyperplane
        self.z = z
        self.data = data  # the data their mean and covariance are computed from (None: the input)


class _Top10:
    """The 10 best (det, means, cov) of a stage, equal determinants kept once (as FAST-MCD).

    Slot 0 may hold a hyperplane (its "det" is then the count of observations on it); offers
    then start at slot ``lll`` = 1 so that it stays first.
    """

    def __init__(self):
        self.det: list[float] = []
        self.means: list[np.ndarray] = []
        self.cov: list[np.ndarray] = []

    def offer(self, det: float, means: np.ndarray, cov: np.ndarray, lll: int = 0):
        dets = self.det
        for j in range(lll, 10):
            if j >= len(dets):
                break
            if det <= dets[j]:
                if det == dets[j]:
                    same = all(
                        np.array_equal(means, self.means[kk]) and np.array_equal(cov, self.cov[kk])
                        for kk in range(j, len(dets)) if dets[kk] == det
                    )
                    if same:
                        return
                self._insert(j, det, means, cov)
                return
        if len(dets) < 10 and len(dets) >= lll:
            self._insert(len(dets), det, means, cov)

    def store_first(self, means, cov, kount):
        self._insert(0, float(kount), means, cov)

    def _insert(self, j, det, means, cov):
        self.det.insert(j, det)
        self.means.insert(j, means)
        self.cov.insert(j, cov)
        del self.det[10:], self.means[10:], self.cov[10:]


def _csteps_status(D, sel, nhalf, eps, nsteps=2):
    """nsteps C-steps from the subsets sel (K, nhalf): per start (means, cov, det) of the last subset,
    or a singular subset met on the way (status True, with that subset's means and cov)."""
    K, p = sel.shape[0], D.shape[1]
    means_o = np.empty((K, p))
    cov_o = np.empty((K, p, p))
    det_o = np.empty(K)
    plane = np.zeros(K, dtype=bool)
    live = np.arange(K)
    for step in range(nsteps):
        m, c = _sscp_cov(D, sel)
        ci, det, sing = _sweep(c, eps)
        bad = sing >= 0
        if bad.any():
            means_o[live[bad]], cov_o[live[bad]] = m[bad], c[bad]
            plane[live[bad]] = True
        good = ~bad
        live, m, c, ci, det = live[good], m[good], c[good], ci[good], det[good]
        if step == nsteps - 1 or not live.size:
            means_o[live], cov_o[live], det_o[live] = m, c, det
            break
        sel = _select_smallest(_mahad(D, m, ci), nhalf)
    return means_o, cov_o, det_o, plane


def _initial_subsets(u, D, nsel, nrep, eps, draw, nhalf, part):
    """Trial subsets of one (sub)dataset drawn in R's order, a singular one extended by random rows.

    Returns (means, cinv, cov, plane, ends): plane[t] marks a (part mode) subset spanning a
    hyperplane that holds nhalf observations of D (kept unextended, its means/cov returned);
    ends[t] is the stream position after trial t. In whole-data mode such a subset is an exact fit.
    """
    nn, p = D.shape
    means_out = np.empty((nrep, p))
    cinv_out = np.empty((nrep, p, p))
    cov_out = np.empty((nrep, p, p))
    plane = np.zeros(nrep, dtype=bool)
    ends_out = np.empty(nrep, dtype=np.int64)
    t = 0
    while t < nrep:
        # draw the remaining trials optimistically, remembering where each one ends in the stream
        subs, ends = [], []
        for tt in range(t, nrep):
            subs.append(draw(tt))
            ends.append(u.pos)
        idx = np.array(subs, dtype=np.intp) - 1
        means, cov = _sscp_cov(D, idx)
        cinv, _, sing = _sweep(cov, eps)
        bad = np.flatnonzero(sing >= 0)
        stop = bad[0] if bad.size else len(subs)
        sl = slice(t, t + stop)
        means_out[sl], cinv_out[sl], cov_out[sl] = means[:stop], cinv[:stop], cov[:stop]
        ends_out[sl] = ends[:stop]
        if not bad.size:
            break
        # trial t + stop is singular: rewind the stream to its end and extend it row by row
        u.pos = ends[stop]
        cur = subs[stop]
        C1, m1 = cov[stop], means[stop]
        k = t + stop
        while True:
            z = _hyperplane(C1)
            dist = np.sort(_plane_dist(D, z, m1))
            if dist[nhalf - 1] < _EXACT_TOL:
                if not part:
                    raise _PlaneExit(m1, C1, u.pos)
                plane[k] = True
                means_out[k], cov_out[k] = m1, C1
                break
            cur = sorted(cur)
            if len(cur) >= nn:  # every record taken and still singular: robustbase reads past its data here
                # (whole-data mode: past its arrays, R's heap corrupted; part mode: into the next subdataset)
                raise ExactFitOverrun(overrun_message(whole_data=not part), whole_data=not part)
            nrand = int(u() * (nn - len(cur))) + 1
            _insert_unselected(cur, nrand)
            mm, cc = _sscp_cov(D, np.array([cur], dtype=np.intp) - 1)
            ci, _, sg = _sweep(cc, eps)
            m1, C1 = mm[0], cc[0]
            if sg[0] < 0:
                means_out[k], cinv_out[k], cov_out[k] = m1, ci[0], C1
                break
        ends_out[k] = u.pos
        t = k + 1
    return means_out, cinv_out, cov_out, plane, ends_out


class _PlaneExit(Exception):
    """A subset (means, cov, in standardised units) spans a hyperplane holding h observations."""

    def __init__(self, means, cov, pos=None, dath=None):
        self.means = means
        self.cov = cov
        self.pos = pos
        self.dath = dath  # the data robustbase measures the distances on, when not the whole data


def _final_stage(D, starts, h, kstep, eps, DF=None):
    """C-steps from the final starts until a determinant repeats the one two steps before.

    starts: list of ("cov", means, cov) or ("subset", sorted positions).
    """
    K = len(starts)
    if DF is None and D.shape[0] > 10_000:
        DF = np.asfortranarray(D)
    sel = np.empty((K, h), dtype=np.intp)
    ic = [k for k, s in enumerate(starts) if s[0] == "cov"]
    if ic:
        cinv, _, sing = _sweep(np.array([starts[k][2] for k in ic]), eps)
        if (sing >= 0).any():
            raise _NotReproduced("a final start is singular")
        sel[ic] = _select_smallest(_mahad(D, np.array([starts[k][1] for k in ic]), cinv, DF), h)
    for k, s in enumerate(starts):
        if s[0] == "subset":
            sel[k] = s[1]
    active = np.ones(K, dtype=bool)
    deti = np.full(K, -1e300)
    detim1 = deti.copy()
    records = [[] for _ in range(K)]
    for step in range(1, kstep + 1):
        ia = np.flatnonzero(active)
        if not ia.size:
            break
        m, c = _sscp_cov(D, sel[ia])
        ci, det, sg = _sweep(c, eps)
        if (sg >= 0).any():
            j = int(np.flatnonzero(sg >= 0)[0])
            raise _PlaneExit(m[j], c[j], dath="final")
        stop = (det == detim1[ia]) if step >= 2 else np.zeros(ia.size, dtype=bool)
        active[ia[stop]] = False
        go = ~stop
        ig = ia[go]
        detim1[ig] = deti[ig]
        deti[ig] = det[go]
        if not ig.size:
            break
        nsel = _select_smallest(_mahad(D, m[go], ci[go], DF), h)
        sel[ig] = nsel
        for r, k in enumerate(ig):
            records[k].append((float(det[go][r]), m[go][r], c[go][r], nsel[r]))
    best = None
    for k in range(K):  # processing order: start by start, step by step; strict improvement
        for rec in records[k]:
            if best is None or rec[0] < best[0]:
                best = rec
    return best


def _fastmcd_rstream(X: np.ndarray, h: int, nsamp: int, nmini: int, kmini: int, rr):
    """robustbase's ``.fastmcd`` (p >= 2, h < n) on R's stream rr.

    Returns (initmean, initcov, best 0-based, crit); raises _ExactFitR for an exact fit.
    """
    u = _Uniforms(rr)
    try:
        return _fastmcd_body(X, h, nsamp, nmini, kmini, u)
    finally:
        u.finish()


def _median_mad(col: np.ndarray, h: int):
    """robustbase's centre and scale of a variable: the mean of the (n // 2)-th and the
    ((n + 2) // 2)-th smallest values -- for odd n too (its test for an even n always holds), so
    not the median then -- and the h-th smallest absolute deviation from it."""
    n = col.size
    k2 = (n + 2) // 2 - 1  # 0-based
    s = np.partition(col, k2)
    med = (s[:k2].max() + s[k2]) / 2 if k2 > 0 else s[k2]  # (n // 2 - 1 == k2 - 1)
    dev = np.abs(col - med)
    return med, np.partition(dev, h - 1)[h - 1], dev


def _exit_on_plane(X0, med, mad, means_std, cov_std, code=2, dist_data=None):
    """robustbase's exact-fit exit: the subset's plane in original units, the observations on it."""
    means = means_std * mad + med
    cov = (cov_std * mad[:, None]) * mad[None, :]
    z = _hyperplane(cov)
    Dd = X0 if dist_data is None else dist_data
    on = _plane_dist(Dd, z, means) < _EXACT_TOL
    return _ExactFitR(code, on, z)


def _fastmcd_body(X0, h, nsamp, nmini, kmini, u):
    n, p = X0.shape
    X = X0  # read only until standardised below (a new array then: X0 is left as given)
    percen = h / n
    eps = 1e-12 if p < 5 else (1e-14 if p <= 8 else 1e-16)
    nsel = p + 1
    nmaxi = nmini * kmini
    part = nsamp > 0 and n >= 2 * nmini
    if part:
        ngroup = n // nmini
        if ngroup < kmini:
            mm = n // ngroup
            r = n - ngroup * mm
            mini = [mm] * (ngroup - r) + [mm + 1] * r
            minigr = ngroup * mm + r
        else:
            ngroup = kmini
            mini = [nmini] * kmini
            minigr = kmini * nmini
        nhalf = int(mini[0] * percen)
        nrep = nsamp // ngroup
        sub_cases, sub_groups = _rfrdraw(u, n, mini)
    else:
        minigr = n
        nhalf = h
        replow = {1: 500, 2: 50, 3: 22, 4: 17, 5: 15, 6: 14}.get(nsel, 0)
        enumerate_all = nsamp == 0 or n <= replow
        nrep = math.comb(n, nsel) if enumerate_all else nsamp

    # classical estimate: an exactly singular data set is an exact fit (code 1). A quick covariance
    # decides; robustbase's own (raw cross products, row by row) where the decision is close
    # (a constant variable has a zero pivot: robustbase's "sd = 0" exit is the same exit)
    cs = X.sum(axis=0)
    cq = (_gram_cols(X) - np.outer(cs, cs) / n) / (n - 1)
    _, _, sing = _sweep(cq[None], 1e4 * eps)
    if sing[0] >= 0:
        cm, cc = _sscp_cov(X, np.arange(n)[None, :])
        cm, cc = cm[0], cc[0]
        _, _, sing = _sweep(cc[None], eps)
        if (X == X[0]).all(axis=0).any():
            sing[0] = 0
    if sing[0] >= 0:
        z = _hyperplane(cc)
        raise _ExactFitR(1, _plane_dist(X, z, cm) < _EXACT_TOL, z)

    # standardise by the median and the h-th smallest absolute deviation (exact fit code 3 when 0)
    med = np.empty(p)
    mad = np.empty(p)
    devs = []
    for j in range(p):  # loop over variables
        med[j], mad[j], dev = _median_mad(X0[:, j], h)  # (X0: contiguous columns when column-major)
        devs.append(dev)
        if mad[j] < eps:
            break
    zero = np.flatnonzero(mad[:len(devs)] < eps)
    XF = None  # the standardised data in column-major order too (the last stage reads columns)
    if not zero.size:  # every variable at once: (x - med) / mad, element by element as one by one
        if n > 10_000 and X0.flags.f_contiguous:
            XF = (X0 - med) / mad
            X = np.ascontiguousarray(XF)
        else:
            X = np.empty((n, p))
            np.subtract(X0, med, out=X)
            X /= mad
    else:
        X = np.array(X0, dtype=np.float64, order="C")
    for j in range(int(zero[0]) + 1 if zero.size else 0):  # loop over variables (exact fit only)
        dev = devs[j]
        if mad[j] < eps:
            # at least h observations share the median of variable j: robustbase returns their
            # hyperplane x_j = mean of the first p + 1 of them (in its selection's order); the
            # variables standardised so far are first brought back (x * mad + med)
            for k in range(j):  # loop over variables
                X[:, k] = X[:, k] * mad[k] + med[k]
            first = _wirth_select(dev, h, full=True)[:nsel]
            m_sub, _ = _sscp_cov(X, first[None, :])
            z = np.zeros(p)
            z[j] = 1.0
            on = _plane_dist(X, z, m_sub[0]) < _EXACT_TOL
            raise _ExactFitR(3, on, z, data=X.copy())
        X[:, j] = (X[:, j] - med[j]) / mad[j]

    def global_plane_check(means, cov, nn):
        # robustbase: when a subset's hyperplane holds h observations of all data, stop (exact fit);
        # it then measures the first nn observations' distances to the plane in original units and
        # keeps the (sorted, standardised) distances it had for the others
        z = _hyperplane(cov)
        d = np.sort(_plane_dist(X, z, means))
        if d[h - 1] < _EXACT_TOL:
            ef = _exit_on_plane(X0[:nn], med, mad, means, cov)
            ef.on = np.concatenate([ef.on, d[nn:] < _EXACT_TOL])
            raise ef
        return z

    flag = np.ones(10 * kmini, dtype=bool)
    coeff = {}
    if part:
        top_g = []
        for ii in range(1, ngroup + 1):
            g_rows = sub_cases[sub_groups == ii] - 1
            Dg = X[g_rows]
            mg = mini[ii - 1]
            mu0, ci0, cv0, pl0, _ = _initial_subsets(
                u, Dg, nsel, nrep, eps, lambda _t, mg=mg: _rfrangen(u, mg, nsel), nhalf, True)
            ok = np.flatnonzero(~pl0)
            m2 = np.empty((nrep, p))
            c2 = np.empty((nrep, p, p))
            d2 = np.empty(nrep)
            pl = pl0.copy()
            m2[pl0], c2[pl0] = mu0[pl0], cv0[pl0]
            if ok.size:
                sel = _select_smallest(_mahad(Dg, mu0[ok], ci0[ok]), nhalf)
                mo, co, do, po = _csteps_status(Dg, sel, nhalf, eps)
                m2[ok], c2[ok], d2[ok], pl[ok] = mo, co, do, po
            top = _Top10()
            kount = 0
            for k in range(nrep):  # trial order
                if pl[k]:
                    if kount:
                        continue
                    z = global_plane_check(m2[k], c2[k], mg)
                    dd = np.sort(_plane_dist(Dg, z, m2[k]))
                    kc = nhalf + int((dd[nhalf:] < _EXACT_TOL).sum())
                    flag[(ii - 1) * 10] = False
                    coeff[ii] = z
                    top.store_first(m2[k], c2[k], kc)
                    kount = 1
                else:
                    top.offer(float(d2[k]), m2[k], c2[k], 0 if flag[(ii - 1) * 10] else 1)
            top_g.append(top)
        # second stage: the merged subdatasets
        Dm = X[sub_cases - 1]
        nhalf_m = int(minigr * percen)
        cand = []  # (ii, i, kind, payload)
        for ii, tg in enumerate(top_g, start=1):
            for i in range(len(tg.det)):
                cand.append((ii, i, tg.means[i], tg.cov[i]))
        top = _Top10()
        kount = 0
        # starts: plane candidates resolved in order (they depend on kount and flags), others batched
        starts_sel = {}
        cov_c = [k for k, c in enumerate(cand) if flag[(c[0] - 1) * 10 + c[1]]]
        if cov_c:
            ci, _, sg = _sweep(np.array([cand[k][3] for k in cov_c]), eps)
            if (sg >= 0).any():
                raise _NotReproduced("a stored start of the merged stage is singular")
            sel = _select_smallest(_mahad(Dm, np.array([cand[k][2] for k in cov_c]), ci), nhalf_m)
            for r, k in enumerate(cov_c):
                starts_sel[k] = sel[r]
        plane_info = {}
        for k, c in enumerate(cand):
            if k in starts_sel:
                continue
            ii = c[0]
            z = coeff[ii]
            dd = np.sort(_plane_dist(Dm, z, c[2]))
            plane_info[k] = (z, dd)
            starts_sel[k] = _wirth_select(dd, nhalf_m)  # robustbase selects on the sorted distances
        order = list(range(len(cand)))
        sel_all = np.array([starts_sel[k] for k in order], dtype=np.intp)
        mo, co, do, po = _csteps_status(Dm, sel_all, nhalf_m, eps)
        for k in order:
            ii, i = cand[k][0], cand[k][1]
            if k in plane_info:
                z, dd = plane_info[k]
                if dd[nhalf_m - 1] < _EXACT_TOL and n > nmaxi:
                    if kount:
                        continue
                    kc = nhalf_m + int((dd[nhalf_m:] < _EXACT_TOL).sum())
                    flag[0] = False
                    coeff[1] = z
                    top.store_first(cand[k][2], cand[k][3], kc)
                    kount = 1
                    continue
                flag[0] = True
            if po[k]:
                if n <= nmaxi:
                    raise _NotReproduced("singular h-subset in the merged stage (exact fit, n <= nmini * kmini)")
                if kount:
                    continue
                z = global_plane_check(mo[k], co[k], minigr)
                dd = np.sort(_plane_dist(Dm, z, mo[k]))
                kc = nhalf_m + int((dd[nhalf_m:] < _EXACT_TOL).sum())
                flag[0] = False
                coeff[1] = z
                top.store_first(mo[k], co[k], kc)
                kount = 1
                continue
            top.offer(float(do[k]), mo[k], co[k], 0 if flag[0] else 1)
    else:
        if enumerate_all:
            combos = list(itertools.combinations(range(1, n + 1), nsel))  # R's order (lexicographic)

            def draw(t):
                return list(combos[t])
        else:
            def draw(t):
                return _rfrangen(u, n, nsel)
        try:
            mu0, ci0, _, _, ends = _initial_subsets(u, X, nsel, nrep, eps, draw, nhalf, False)
        except _PlaneExit as pe:
            raise _exit_on_plane(X0, med, mad, pe.means, pe.cov) from None
        sel = _select_smallest(_mahad(X, mu0, ci0), nhalf)
        m2, c2, d2, pl = _csteps_status(X, sel, nhalf, eps)
        if pl.any():
            k = int(np.flatnonzero(pl)[0])
            u.pos = int(ends[k])  # robustbase stops at this trial: later trials are never drawn
            raise _exit_on_plane(X0, med, mad, m2[k], c2[k], dist_data=np.zeros_like(X0))
        top = _Top10()
        for k in range(nrep):
            top.offer(float(d2[k]), m2[k], c2[k])

    # final stage on all data
    npv = n * p
    if npv <= 100_000:
        kstep = 100
    elif npv > 1_000_000:
        kstep = 1
    else:
        kstep = 11 - (npv - 1) // 100_000
    nfin = 1 if n > 5000 else 10
    starts = []
    for i in range(min(nfin, len(top.det))):
        if not flag[i]:
            z = coeff[1]
            starts.append(("subset", _wirth_select(_plane_dist(X, z, top.means[i]), h)))
        else:
            starts.append(("cov", top.means[i], top.cov[i]))
    try:
        det, bm, bc, inbest = _final_stage(X, starts, h, kstep, eps, XF)
    except _PlaneExit as pe:
        if part:
            raise _NotReproduced("singular h-subset in the final stage of a split data set (exact fit)") from None
        raise _exit_on_plane(X0, med, mad, pe.means, pe.cov, dist_data=np.zeros_like(X0)) from None
    initmean = bm * mad + med
    initcov = (bc * mad[None, :]) * mad[:, None]
    crit = det + sum(2 * math.log(v) for v in mad.tolist())
    return initmean, initcov, np.sort(inbest), crit


def _cov_mcd_rstream(X, rows, h, alpha, nsamp, nmini, kmini, rr: RRandom, raw_cnp2, method):
    """covMcd (p >= 2, h < n) with FAST-MCD on R's stream rr; rr advances as R's does."""
    n, p = X.shape
    if nsamp == "exact":
        krep = 0 if n <= 2 * nmini - 1 else 500
    else:
        krep = int(nsamp)
    fac = raw_cnp2[0] * raw_cnp2[1]
    q = stats.chi2.ppf(0.975, p)
    try:
        initmean, initcov, best, crit = _fastmcd_rstream(X, h, krep, nmini, kmini, rr)
    except _ExactFitR as ef:
        on = ef.on
        Xo = (X if ef.data is None else ef.data)[on]
        if Xo.shape[0]:
            m, c = _sscp_cov(Xo, np.arange(Xo.shape[0])[None, :])
        else:  # no observation on the plane: robustbase divides by zero
            m, c = np.full((1, p), np.nan), np.full((1, p, p), np.nan)
        cov = fac * c[0]
        wt = on.astype(np.float64)
        warnings.warn(
            f"The covariance matrix has become singular: {int(on.sum())} observations (of {n}) lie on a "
            "hyperplane (exact fit, as covMcd reports in $singularity); the returned covariance is "
            "singular.",
            DegenerateResultWarning,
            stacklevel=3,
        )
        return McdResult(
            cov=cov, center=m[0], raw_cov=cov.copy(), raw_center=m[0].copy(), best=rows[np.flatnonzero(on)],
            raw_weights=wt, weights=wt.copy(), crit=-math.inf, quan=h, n_obs=n, rows=rows,
            raw_cnp2=raw_cnp2, cnp2=(1.0, 1.0), singularity="on.hyperplane", method=method,
        )
    raw_cov = fac * initcov
    w = (_r_mahalanobis(X, initmean, raw_cov) < q).astype(np.float64)
    sw = w.sum()
    center, cov = _r_cov_wt(X, w)
    sing_rewt = bool((cov == 0).all(axis=0).any())
    cnp2 = (1.0, 1.0)
    if not sing_rewt and sw != n:
        cnp2 = (mcd_consistency_factor(p, sw / n), mcd_small_sample_factor(p, n, alpha, reweighted=True))
        cov = (cnp2[0] * cnp2[1]) * cov
    try:
        wf = (_r_mahalanobis(X, center, cov) < q).astype(np.float64)
    except np.linalg.LinAlgError:
        wf = w.copy()
    return McdResult(
        cov=cov, center=center, raw_cov=raw_cov, raw_center=initmean, best=rows[best], raw_weights=w,
        weights=wf, crit=crit, quan=h, n_obs=n, rows=rows, raw_cnp2=raw_cnp2, cnp2=cnp2,
        singularity=None, method=method,
    )
