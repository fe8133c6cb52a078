//! ECOS's interior-point loop (`ecos.c`): the homogeneous self-dual embedding in `(x, y, z, s,
//! tau, kappa)`, its initial point, residuals and statistics, the stopping tests, the affine
//! (predictor) and combined (corrector) directions, the safeguards that fall back to the best
//! iterate seen, and the final scaling back.

use crate::cones::{Cones, GAMMA, STEP_MIN};
use crate::equilibrate::{Scaling, equilibrate};
use crate::kkt::Kkt;
use crate::linalg::{Csc, dot, max, norm2};
use crate::{Problem, Settings, Solution, Status};

/// Bounds of the centring parameter (ECOS's `SIGMAMIN`, `SIGMAMAX`).
const SIGMA_MIN: f64 = 1e-4;
const SIGMA_MAX: f64 = 1.0;
/// A primal residual this many times the last one sends the solver back to its best iterate.
const SAFEGUARD: f64 = 500.0;

/// The statistics of one iterate (ECOS's `stats`).
#[derive(Clone, Copy, Default)]
struct Stats {
    pcost: f64,
    dcost: f64,
    pres: f64,
    dres: f64,
    pinfres: f64,
    dinfres: f64,
    gap: f64,
    relgap: f64,
    mu: f64,
    kapovert: f64,
}

impl Stats {
    /// ECOS's `compareStatistics`: whether `self` is a better iterate than `best`. (ECOS tests
    /// `pinfres != NaN`, which always holds, so its first branch decides whenever kappa/tau > 1.)
    fn better_than(&self, best: &Stats) -> bool {
        let gap_and_mu = self.gap > 0.0 && best.gap > 0.0 && self.gap < best.gap && self.mu > 0.0 && self.mu < best.mu;
        if self.kapovert > 1.0 {
            gap_and_mu && self.pinfres > 0.0 && self.pinfres < best.pres
        } else {
            gap_and_mu
                && self.pres > 0.0
                && self.pres < best.pres
                && self.dres > 0.0
                && self.dres < best.dres
                && self.kapovert > 0.0
                && self.kapovert < best.kapovert
        }
    }
}

/// An iterate of the embedding with the products the tests need.
#[derive(Clone, Default)]
struct Iterate {
    x: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
    s: Vec<f64>,
    kap: f64,
    tau: f64,
    cx: f64,
    by: f64,
    hz: f64,
    stats: Stats,
}

pub(crate) struct Workspace<'a> {
    settings: &'a Settings,
    n: usize,
    p: usize,
    c: Vec<f64>,
    a: Option<Csc>,
    g: Csc,
    b: Vec<f64>,
    h: Vec<f64>,
    scaling: Scaling,
    cones: Cones,
    kkt: Kkt,
    it: Iterate,
    best: Iterate,
    lambda: Vec<f64>,
    rx: Vec<f64>,
    ry: Vec<f64>,
    rz: Vec<f64>,
    rt: f64,
    hresx: f64,
    hresy: f64,
    hresz: f64,
    resx0: f64,
    resy0: f64,
    resz0: f64,
    nx: f64,
    ny: f64,
    nz: f64,
    ns: f64,
    rhs1: Vec<f64>,
    rhs2: Vec<f64>,
    dx1: Vec<f64>,
    dy1: Vec<f64>,
    dz1: Vec<f64>,
    dx2: Vec<f64>,
    dy2: Vec<f64>,
    dz2: Vec<f64>,
    ds: Vec<f64>,
    ds_by_w: Vec<f64>,
    w_dz: Vec<f64>,
    work1: Vec<f64>,
    work2: Vec<f64>,
    step: f64,
}

impl<'a> Workspace<'a> {
    /// ECOS's `ECOS_setup`: equilibrates the data, builds and orders the KKT system.
    pub fn new(problem: &Problem, settings: &'a Settings) -> Workspace<'a> {
        let n = problem.c.len();
        let m = problem.h.len();
        let mut a = problem.a.clone();
        let p = a.as_ref().map_or(0, |a| a.nrows);
        let mut g = problem.g.clone();
        let mut b = problem.b.clone();
        let mut h = problem.h.clone();
        let scaling = equilibrate(&mut a, &mut g, &mut b, &mut h, problem.orthant, &problem.soc);
        let cones = Cones::new(problem.orthant, &problem.soc);
        let at = a.as_ref().map(Csc::transpose);
        let kkt = Kkt::new(at.as_ref(), &g.transpose(), &cones);
        let c = problem.c.iter().zip(&scaling.x).map(|(c, s)| c / s).collect();
        let nk = kkt.size();
        let zeros = |len: usize| vec![0.0; len];
        let it = Iterate { x: zeros(n), y: zeros(p), z: zeros(m), s: zeros(m), ..Iterate::default() };
        Workspace {
            settings,
            n,
            p,
            c,
            a,
            g,
            b,
            h,
            scaling,
            cones,
            kkt,
            best: it.clone(),
            it,
            lambda: zeros(m),
            rx: zeros(n),
            ry: zeros(p),
            rz: zeros(m),
            rt: 0.0,
            hresx: 0.0,
            hresy: 0.0,
            hresz: 0.0,
            resx0: 0.0,
            resy0: 0.0,
            resz0: 0.0,
            nx: 0.0,
            ny: 0.0,
            nz: 0.0,
            ns: 0.0,
            rhs1: zeros(nk),
            rhs2: zeros(nk),
            dx1: zeros(n),
            dy1: zeros(p),
            dz1: zeros(m),
            dx2: zeros(n),
            dy2: zeros(p),
            dz2: zeros(m),
            ds: zeros(m),
            ds_by_w: zeros(m),
            w_dz: zeros(m),
            work1: zeros(m),
            work2: zeros(m),
            step: 0.0,
        }
    }

    /// Writes a cone-part vector into a right-hand side from `offset` on (zeros on each second-order
    /// cone's extra rows).
    fn write_cone_rhs(cones: &Cones, offset: usize, rhs: &mut [f64], value: impl Fn(usize) -> f64) {
        let mut k = offset;
        let mut j = 0;
        for _ in 0..cones.orthant {
            rhs[k] = value(j);
            (k, j) = (k + 1, j + 1);
        }
        for cone in &cones.socs {
            for _ in 0..cone.size {
                rhs[k] = value(j);
                (k, j) = (k + 1, j + 1);
            }
            rhs[k] = 0.0;
            rhs[k + 1] = 0.0;
            k += 2;
        }
    }

    /// ECOS's `init`: `x` the least-squares fit of `Gx ~ h` under `Ax = b`, `s` its residual
    /// brought into the cone; `(y, z)` the least-norm dual point brought into the cone.
    fn init(&mut self) {
        let (n, p) = (self.n, self.p);
        self.kkt.set_identity_scaling(&self.cones);
        self.rhs1[..n].fill(0.0);
        self.rhs1[n..n + p].copy_from_slice(&self.b);
        let h = &self.h;
        Self::write_cone_rhs(&self.cones, n + p, &mut self.rhs1, |j| h[j]);
        for i in 0..n {
            self.rhs2[i] = -self.c[i];
        }
        self.rhs2[n..].fill(0.0);
        self.resx0 = max(1.0, norm2(&self.c));
        self.resy0 = max(1.0, norm2(&self.b));
        self.resz0 = max(1.0, norm2(&self.h));
        self.kkt.factor(self.settings.eps, self.settings.delta);
        let nitref = self.settings.nitref;
        self.kkt.solve(
            self.a.as_ref(),
            &self.g,
            &self.cones,
            &self.rhs1,
            true,
            nitref,
            &mut self.dx1,
            &mut self.dy1,
            &mut self.dz1,
        );
        self.it.x.copy_from_slice(&self.dx1);
        for (w, d) in self.work1.iter_mut().zip(&self.dz1) {
            *w = -d;
        }
        self.cones.bring_to_cone(&self.work1, &mut self.it.s);
        self.kkt.solve(
            self.a.as_ref(),
            &self.g,
            &self.cones,
            &self.rhs2,
            true,
            nitref,
            &mut self.dx2,
            &mut self.dy2,
            &mut self.dz2,
        );
        self.it.y.copy_from_slice(&self.dy2);
        self.cones.bring_to_cone(&self.dz2, &mut self.it.z);
        for i in 0..n {
            self.rhs1[i] = -self.c[i];
        }
        self.it.kap = 1.0;
        self.it.tau = 1.0;
        self.step = 0.0;
    }

    /// ECOS's `computeResiduals`: `rx = -A'y - G'z - c tau`, `ry = Ax - b tau`,
    /// `rz = s + Gx - h tau`, `rt = kappa + c'x + b'y + h'z`, and the norms they need.
    fn residuals(&mut self) {
        let it = &mut self.it;
        self.rx.fill(0.0);
        if let Some(a) = &self.a {
            a.tmul_sub(&it.y, &mut self.rx);
        }
        self.g.tmul_sub(&it.z, &mut self.rx);
        self.hresx = norm2(&self.rx);
        for (r, c) in self.rx.iter_mut().zip(&self.c) {
            *r -= it.tau * c;
        }
        if let Some(a) = &self.a {
            a.mul(&it.x, &mut self.ry);
            self.hresy = norm2(&self.ry);
            for (r, b) in self.ry.iter_mut().zip(&self.b) {
                *r -= it.tau * b;
            }
        } else {
            self.hresy = 0.0;
        }
        self.g.mul(&it.x, &mut self.rz);
        for (r, s) in self.rz.iter_mut().zip(&it.s) {
            *r += s;
        }
        self.hresz = norm2(&self.rz);
        for (r, h) in self.rz.iter_mut().zip(&self.h) {
            *r -= it.tau * h;
        }
        it.cx = dot(&self.c, &it.x);
        it.by = if self.p > 0 { dot(&self.b, &it.y) } else { 0.0 };
        it.hz = dot(&self.h, &it.z);
        self.rt = it.kap + it.cx + it.by + it.hz;
        self.nx = norm2(&it.x);
        self.ny = norm2(&it.y);
        self.ns = norm2(&it.s);
        self.nz = norm2(&it.z);
    }

    /// ECOS's `updateStatistics`.
    fn statistics(&mut self) {
        let it = &mut self.it;
        let st = &mut it.stats;
        st.gap = dot(&it.s, &it.z);
        st.mu = (st.gap + it.kap * it.tau) / (self.cones.degree() + 1) as f64;
        st.kapovert = it.kap / it.tau;
        st.pcost = it.cx / it.tau;
        st.dcost = -(it.hz + it.by) / it.tau;
        st.relgap = if st.pcost < 0.0 {
            st.gap / -st.pcost
        } else if st.dcost > 0.0 {
            st.gap / st.dcost
        } else {
            f64::NAN
        };
        let nry = if self.p > 0 { norm2(&self.ry) / max(self.resy0 + self.nx, 1.0) } else { 0.0 };
        let nrz = norm2(&self.rz) / max(self.resz0 + self.nx + self.ns, 1.0);
        st.pres = max(nry, nrz) / it.tau;
        st.dres = norm2(&self.rx) / max(self.resx0 + self.ny + self.nz, 1.0) / it.tau;
        let yz = max(self.ny + self.nz, 1.0);
        st.pinfres = if (it.hz + it.by) / yz < -self.settings.reltol { self.hresx / yz } else { f64::NAN };
        st.dinfres = if it.cx / max(self.nx, 1.0) < -self.settings.reltol {
            max(self.hresy / max(self.nx, 1.0), self.hresz / max(self.nx + self.ns, 1.0))
        } else {
            f64::NAN
        };
    }

    /// ECOS's `checkExitConditions` against the full (`reduced == false`) or reduced tolerances.
    fn converged(&self, reduced: bool) -> Option<Status> {
        let s = self.settings;
        let (feastol, abstol, reltol) =
            if reduced { (s.feastol_inacc, s.abstol_inacc, s.reltol_inacc) } else { (s.feastol, s.abstol, s.reltol) };
        let it = &self.it;
        let st = &it.stats;
        if (-it.cx > 0.0 || -it.by - it.hz >= -abstol)
            && (st.pres < feastol && st.dres < feastol)
            && (st.gap < abstol || st.relgap < reltol)
        {
            Some(if reduced { Status::OptimalInaccurate } else { Status::Optimal })
        } else if st.dinfres < feastol && it.tau < it.kap {
            Some(if reduced { Status::DualInfeasibleInaccurate } else { Status::DualInfeasible })
        } else if (st.pinfres < feastol && it.tau < it.kap)
            || (it.tau < s.feastol && it.kap < s.feastol && st.pinfres < s.feastol)
        {
            Some(if reduced { Status::PrimalInfeasibleInaccurate } else { Status::PrimalInfeasible })
        } else {
            None
        }
    }

    fn save_best(&mut self) {
        self.best.clone_from(&self.it);
    }

    fn restore_best(&mut self) {
        self.it.clone_from(&self.best);
    }

    /// Keeps the better of the current and the best iterate, then tests the reduced tolerances.
    fn finish_with_best_or(&mut self, otherwise: Status) -> Status {
        if !self.it.stats.better_than(&self.best.stats) {
            self.restore_best();
        }
        self.converged(true).unwrap_or(otherwise)
    }

    /// The main loop (ECOS's `ECOS_solve`).
    pub fn run(mut self) -> Solution {
        self.init();
        let max_iters = self.settings.max_iters;
        let mut pres_prev = f64::NAN;
        let mut iter = 0;
        let mut scale_back = true;
        let status = loop {
            self.residuals();
            self.statistics();
            let st = self.it.stats;
            if iter > 0 && (st.pres > SAFEGUARD * pres_prev || st.gap < 0.0) {
                self.restore_best();
                break self.converged(true).unwrap_or(Status::Numerics);
            }
            pres_prev = st.pres;
            if let Some(status) = self.converged(false) {
                break status;
            }
            if iter > 0 && self.step == STEP_MIN * GAMMA {
                self.restore_best();
                break self.converged(true).unwrap_or(Status::Numerics);
            } else if iter == max_iters {
                break self.finish_with_best_or(Status::MaxIterations);
            } else if st.pcost.is_nan() {
                break self.finish_with_best_or(Status::Numerics);
            }
            if iter == 0 || st.better_than(&self.best.stats) {
                self.save_best();
            }
            if !self.cones.update_scalings(&self.it.s, &self.it.z, &mut self.lambda) {
                self.restore_best();
                match self.converged(true) {
                    Some(status) => break status,
                    None => {
                        // ECOS returns here without scaling the iterate back.
                        scale_back = false;
                        break Status::OutsideCone;
                    }
                }
            }
            self.kkt.set_scaling(&self.cones);
            self.kkt.factor(self.settings.eps, self.settings.delta);
            self.newton_step();
            iter += 1;
        };
        if scale_back {
            self.scale_back();
        }
        let it = &self.it;
        Solution {
            status,
            x: it.x.clone(),
            y: it.y.clone(),
            z: it.z.clone(),
            s: it.s.clone(),
            iterations: iter,
            pcost: it.stats.pcost,
            dcost: it.stats.dcost,
            pres: it.stats.pres,
            dres: it.stats.dres,
            gap: it.stats.gap,
        }
    }

    fn kkt_solve(&mut self, first: bool) {
        let nitref = self.settings.nitref;
        let (rhs, dx, dy, dz) = if first {
            (&self.rhs1, &mut self.dx1, &mut self.dy1, &mut self.dz1)
        } else {
            (&self.rhs2, &mut self.dx2, &mut self.dy2, &mut self.dz2)
        };
        self.kkt.solve(self.a.as_ref(), &self.g, &self.cones, rhs, false, nitref, dx, dy, dz);
    }

    /// `b'dy` (zero without equality constraints) plus `c'dx + h'dz`, in ECOS's order.
    fn objective_products(&self, dx: &[f64], dy: &[f64], dz: &[f64]) -> [f64; 3] {
        [dot(&self.c, dx), dot(&self.b, dy), dot(&self.h, dz)]
    }

    /// One predictor-corrector step (paper §IV; ECOS's loop body after the factorisation).
    fn newton_step(&mut self) {
        let (n, p) = (self.n, self.p);
        self.kkt_solve(true);
        // Affine direction: right-hand side [rx; -ry; s - rz].
        self.rhs2[..n].copy_from_slice(&self.rx);
        for i in 0..p {
            self.rhs2[n + i] = -self.ry[i];
        }
        let (s, rz) = (&self.it.s, &self.rz);
        Self::write_cone_rhs(&self.cones, n + p, &mut self.rhs2, |j| s[j] - rz[j]);
        self.kkt_solve(false);

        let (kap, tau) = (self.it.kap, self.it.tau);
        let [c1, b1, h1] = self.objective_products(&self.dx1, &self.dy1, &self.dz1);
        let dtau_denom = kap / tau - c1 - b1 - h1;
        let [c2, b2, h2] = self.objective_products(&self.dx2, &self.dy2, &self.dz2);
        let dtau_aff = (self.rt - kap + c2 + b2 + h2) / dtau_denom;
        for (d2, d1) in self.dz2.iter_mut().zip(&self.dz1) {
            *d2 += dtau_aff * d1;
        }
        self.cones.scale(&self.dz2, &mut self.w_dz);
        for i in 0..self.ds_by_w.len() {
            self.ds_by_w[i] = -self.w_dz[i] - self.lambda[i];
        }
        let dkap_aff = -kap - kap / tau * dtau_aff;
        let step_aff = self.cones.line_search(&self.lambda, &self.ds_by_w, &self.w_dz, tau, dtau_aff, kap, dkap_aff);
        let sigma = 1.0 - step_aff;
        let sigma = (sigma * sigma * sigma).clamp(SIGMA_MIN, SIGMA_MAX);
        let mu = self.it.stats.mu;
        let sigma_mu = sigma * mu;
        let one_minus_sigma = 1.0 - sigma;

        // Combined direction: ds = lambda o lambda + (W\dsaff) o (W dzaff) - sigma mu e.
        self.cones.product(&self.lambda, &self.lambda, &mut self.work1);
        self.cones.product(&self.ds_by_w, &self.w_dz, &mut self.work2);
        let l = self.cones.orthant;
        for i in 0..l {
            self.work1[i] += self.work2[i] - sigma_mu;
        }
        let mut k = l;
        for cone in &self.cones.socs {
            self.work1[k] += self.work2[k] - sigma_mu;
            k += 1;
            for _ in 1..cone.size {
                self.work1[k] += self.work2[k];
                k += 1;
            }
        }
        self.cones.division(&self.lambda, &self.work1, &mut self.ds_by_w);
        self.cones.scale(&self.ds_by_w, &mut self.work1);
        for v in &mut self.rhs2[..n + p] {
            *v *= one_minus_sigma;
        }
        let (rz, ds) = (&self.rz, &self.work1);
        Self::write_cone_rhs(&self.cones, n + p, &mut self.rhs2, |j| -one_minus_sigma * rz[j] + ds[j]);
        self.kkt_solve(false);

        let bkap = kap * tau + dkap_aff * dtau_aff - sigma * mu;
        let [c2, b2, h2] = self.objective_products(&self.dx2, &self.dy2, &self.dz2);
        let dtau = ((1.0 - sigma) * self.rt - bkap / tau + c2 + b2 + h2) / dtau_denom;
        for (d2, d1) in self.dx2.iter_mut().zip(&self.dx1) {
            *d2 += dtau * d1;
        }
        for (d2, d1) in self.dy2.iter_mut().zip(&self.dy1) {
            *d2 += dtau * d1;
        }
        for (d2, d1) in self.dz2.iter_mut().zip(&self.dz1) {
            *d2 += dtau * d1;
        }
        self.cones.scale(&self.dz2, &mut self.w_dz);
        for i in 0..self.ds_by_w.len() {
            self.ds_by_w[i] = -(self.ds_by_w[i] + self.w_dz[i]);
        }
        let dkap = -(bkap + kap * dtau) / tau;
        self.step =
            self.cones.line_search(&self.lambda, &self.ds_by_w, &self.w_dz, tau, dtau, kap, dkap) * self.settings.gamma;
        self.cones.scale(&self.ds_by_w, &mut self.ds);

        let (step, it) = (self.step, &mut self.it);
        for (v, d) in it.x.iter_mut().zip(&self.dx2) {
            *v += step * d;
        }
        for (v, d) in it.y.iter_mut().zip(&self.dy2) {
            *v += step * d;
        }
        for (v, d) in it.z.iter_mut().zip(&self.dz2) {
            *v += step * d;
        }
        for (v, d) in it.s.iter_mut().zip(&self.ds) {
            *v += step * d;
        }
        it.kap += step * dkap;
        it.tau += step * dtau;
    }

    /// Undoes `tau` and the equilibration (ECOS's `backscale`).
    fn scale_back(&mut self) {
        let (it, sc) = (&mut self.it, &self.scaling);
        for (v, e) in it.x.iter_mut().zip(&sc.x) {
            *v /= e * it.tau;
        }
        for (v, e) in it.y.iter_mut().zip(&sc.a) {
            *v /= e * it.tau;
        }
        for (v, e) in it.z.iter_mut().zip(&sc.g) {
            *v /= e * it.tau;
        }
        for (v, e) in it.s.iter_mut().zip(&sc.g) {
            *v *= e / it.tau;
        }
    }
}
