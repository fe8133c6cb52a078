//! The cone `K` (orthant, then second-order cones) and its Nesterov-Todd scaling `W`, with the
//! operations ECOS's `cone.c` provides, in its arithmetic order: the scaling update, `W z`,
//! `W^2` on the expanded KKT layout, the Jordan product and division, the initial projection,
//! and the step-length rule of Vandenberghe's CVXOPT notes (§8) that ECOS uses.

use crate::linalg::{dot, norm2, safe_div};

/// Fraction of the largest step (also `bring_to_cone`'s margin, ECOS's `GAMMA`).
pub(crate) const GAMMA: f64 = 0.99;
/// Bounds of every step (ECOS's `STEPMIN`, `STEPMAX`).
pub(crate) const STEP_MIN: f64 = 1e-6;
const STEP_MAX: f64 = 0.999;

/// One second-order cone's scaling. With `sbar`, `zbar` the normalised `s`, `z` and `gamma` their
/// normalised NT point, `W = eta [a q'; q I + q q' / (1 + a)]`; `d1`, `u0`, `u1`, `v1` give the
/// sparse expansion `W^2 = eta^2 (D + u u' - v v')` that keeps the KKT matrix sparse (paper §V.B).
#[derive(Clone, Debug, Default)]
pub(crate) struct Soc {
    pub size: usize,
    pub eta: f64,
    pub eta_square: f64,
    pub a: f64,
    pub w: f64,
    pub q: Vec<f64>,
    pub d1: f64,
    pub u0: f64,
    pub u1: f64,
    pub v1: f64,
}

/// The cones and their current scaling; the orthant's `W` is `diag(w)`, `W^2 = diag(v)`.
pub(crate) struct Cones {
    pub orthant: usize,
    pub v: Vec<f64>,
    pub w: Vec<f64>,
    pub socs: Vec<Soc>,
}

impl Cones {
    pub fn new(orthant: usize, soc: &[usize]) -> Cones {
        Cones {
            orthant,
            v: vec![0.0; orthant],
            w: vec![0.0; orthant],
            socs: soc.iter().map(|&size| Soc { size, q: vec![0.0; size - 1], ..Soc::default() }).collect(),
        }
    }

    /// The degree of `K`: one per orthant row and per second-order cone.
    pub fn degree(&self) -> usize {
        self.orthant + self.socs.len()
    }

    /// `s = r + (1 + alpha) e` with `alpha` the largest violation of the cone by `r` (at least
    /// `-GAMMA`, so a point inside moves inward by 0.01): ECOS's initial slacks and multipliers.
    pub fn bring_to_cone(&self, r: &[f64], s: &mut [f64]) {
        let mut alpha = -GAMMA;
        let l = self.orthant;
        for &ri in &r[..l] {
            if ri <= 0.0 && -ri > alpha {
                alpha = -ri;
            }
        }
        let mut i = l;
        for cone in &self.socs {
            let mut tail = 0.0;
            for &rj in &r[i + 1..i + cone.size] {
                tail += rj * rj;
            }
            let residual = r[i] - f64::sqrt(tail);
            if residual <= 0.0 && -residual > alpha {
                alpha = -residual;
            }
            i += cone.size;
        }
        alpha += 1.0;
        for j in 0..l {
            s[j] = r[j] + alpha;
        }
        let mut i = l;
        for cone in &self.socs {
            s[i] = r[i] + alpha;
            s[i + 1..i + cone.size].copy_from_slice(&r[i + 1..i + cone.size]);
            i += cone.size;
        }
    }

    /// Recomputes the NT scaling at `(s, z)` and `lambda = W z`; false if `s` or `z` left a cone.
    pub fn update_scalings(&mut self, s: &[f64], z: &[f64], lambda: &mut [f64]) -> bool {
        let l = self.orthant;
        for i in 0..l {
            self.v[i] = safe_div(s[i], z[i]);
            self.w[i] = self.v[i].sqrt();
        }
        let mut k = l;
        let mut sbar = Vec::new();
        let mut zbar = Vec::new();
        for cone in &mut self.socs {
            let p = cone.size;
            let (sk, zk) = (&s[k..k + p], &z[k..k + p]);
            let (sres, zres) = (cone_residual(sk), cone_residual(zk));
            if sres <= 0.0 || zres <= 0.0 {
                return false;
            }
            let (snorm, znorm) = (sres.sqrt(), zres.sqrt());
            sbar.clear();
            sbar.extend(sk.iter().map(|&x| safe_div(x, snorm)));
            zbar.clear();
            zbar.extend(zk.iter().map(|&x| safe_div(x, znorm)));
            cone.eta_square = safe_div(snorm, znorm);
            cone.eta = cone.eta_square.sqrt();
            let mut gamma = 1.0;
            for i in 0..p {
                gamma += sbar[i] * zbar[i];
            }
            gamma = (0.5 * gamma).sqrt();
            let half_over_gamma = safe_div(0.5, gamma);
            let a = half_over_gamma * (sbar[0] + zbar[0]);
            let mut w = 0.0;
            for i in 1..p {
                cone.q[i - 1] = half_over_gamma * (sbar[i] - zbar[i]);
                w += cone.q[i - 1] * cone.q[i - 1];
            }
            cone.w = w;
            cone.a = a;
            let one_plus_a = 1.0 + a;
            let c = 1.0 + a + safe_div(w, one_plus_a);
            let d = 1.0 + safe_div(2.0, one_plus_a) + safe_div(w, one_plus_a * one_plus_a);
            let c_square = c * c;
            let divisor = 1.0 + w * d;
            let mut d1 = 0.5 * (a * a + w * (1.0 - safe_div(c_square, divisor)));
            if d1 < 0.0 {
                d1 = 0.0;
            }
            let u0_square = a * a + w - d1;
            let u0 = u0_square.sqrt();
            let c2_by_u0_square = safe_div(c * c, u0_square);
            let c2_by_u0_square_minus_d = c2_by_u0_square - d;
            if c2_by_u0_square_minus_d <= 0.0 {
                return false;
            }
            cone.d1 = d1;
            cone.u0 = u0;
            cone.u1 = c2_by_u0_square.sqrt();
            cone.v1 = c2_by_u0_square_minus_d.sqrt();
            k += p;
        }
        self.scale(z, lambda);
        true
    }

    /// `out = W z`.
    pub fn scale(&self, z: &[f64], out: &mut [f64]) {
        let l = self.orthant;
        for i in 0..l {
            out[i] = self.w[i] * z[i];
        }
        let mut start = l;
        for cone in &self.socs {
            let zk = &z[start..start + cone.size];
            let mut zeta = 0.0;
            for i in 1..cone.size {
                zeta += cone.q[i - 1] * zk[i];
            }
            let factor = zk[0] + safe_div(zeta, 1.0 + cone.a);
            out[start] = cone.eta * (cone.a * zk[0] + zeta);
            for i in 1..cone.size {
                out[start + i] = cone.eta * (zk[i] + factor * cone.q[i - 1]);
            }
            start += cone.size;
        }
    }

    /// `y += W^2 x` on the expanded layout of the KKT system's cone block (each second-order
    /// cone followed by its two extra rows).
    pub fn scale2_add_expanded(&self, x: &[f64], y: &mut [f64]) {
        let l = self.orthant;
        for i in 0..l {
            y[i] += self.v[i] * x[i];
        }
        let mut start = l;
        for cone in &self.socs {
            let p = cone.size;
            let e2 = cone.eta_square;
            let (x1, x3, x4) = (x[start], x[start + p], x[start + p + 1]);
            y[start] += e2 * (cone.d1 * x1 + cone.u0 * x4);
            let v1x3_plus_u1x4 = cone.v1 * x3 + cone.u1 * x4;
            let mut qtx2 = 0.0;
            for i in 0..p - 1 {
                let x2 = x[start + 1 + i];
                y[start + 1 + i] += e2 * (x2 + v1x3_plus_u1x4 * cone.q[i]);
                qtx2 += cone.q[i] * x2;
            }
            y[start + p] += e2 * (cone.v1 * qtx2 + x3);
            y[start + p + 1] += e2 * (cone.u0 * x1 + cone.u1 * qtx2 - x4);
            start += p + 2;
        }
    }

    /// The Jordan product `w = u o v`.
    pub fn product(&self, u: &[f64], v: &[f64], w: &mut [f64]) {
        let l = self.orthant;
        for i in 0..l {
            w[i] = u[i] * v[i];
        }
        let mut start = l;
        for cone in &self.socs {
            let p = cone.size;
            let (u0, v0) = (u[start], v[start]);
            w[start] = dot(&u[start..start + p], &v[start..start + p]);
            for j in 1..p {
                w[start + j] = u0 * v[start + j] + v0 * u[start + j];
            }
            start += p;
        }
    }

    /// The Jordan division `v = u \ w` (the `v` with `u o v = w`).
    pub fn division(&self, u: &[f64], w: &[f64], v: &mut [f64]) {
        let l = self.orthant;
        for i in 0..l {
            v[i] = safe_div(w[i], u[i]);
        }
        let mut start = l;
        for cone in &self.socs {
            let p = cone.size;
            let (u0, w0) = (u[start], w[start]);
            let mut rho = u0 * u0;
            let mut zeta = 0.0;
            for j in 1..p {
                let k = start + j;
                rho -= u[k] * u[k];
                zeta += u[k] * w[k];
            }
            let factor = safe_div(safe_div(zeta, u0) - w0, rho);
            v[start] = safe_div(u0 * w0 - zeta, rho);
            for j in 1..p {
                let k = start + j;
                v[k] = factor * u[k] + safe_div(w[k], u0);
            }
            start += p;
        }
    }

    /// The largest step along the scaled directions `(ds, dz)` from `lambda`, and along `dtau`,
    /// `dkap` from `tau`, `kap`, that stays in the cones, clamped to `[STEP_MIN, STEP_MAX]`.
    #[allow(clippy::too_many_arguments)]
    pub fn line_search(&self, lambda: &[f64], ds: &[f64], dz: &[f64], tau: f64, dtau: f64, kap: f64, dkap: f64) -> f64 {
        let l = self.orthant;
        let minus_tau_by_dtau = -tau / dtau;
        let minus_kap_by_dkap = -kap / dkap;
        let mut alpha;
        if l > 0 {
            let mut rho_min = ds[0] / lambda[0];
            let mut sigma_min = dz[0] / lambda[0];
            for i in 1..l {
                let rho = ds[i] / lambda[i];
                if rho < rho_min {
                    rho_min = rho;
                }
                let sigma = dz[i] / lambda[i];
                if sigma < sigma_min {
                    sigma_min = sigma;
                }
            }
            alpha = if -sigma_min > -rho_min {
                if sigma_min < 0.0 { 1.0 / -sigma_min } else { 1.0 / crate::linalg::EPS }
            } else if rho_min < 0.0 {
                1.0 / -rho_min
            } else {
                1.0 / crate::linalg::EPS
            };
        } else {
            alpha = 10.0;
        }
        if minus_tau_by_dtau > 0.0 && minus_tau_by_dtau < alpha {
            alpha = minus_tau_by_dtau;
        }
        if minus_kap_by_dkap > 0.0 && minus_kap_by_dkap < alpha {
            alpha = minus_kap_by_dkap;
        }
        let mut start = l;
        let mut lkbar = Vec::new();
        let mut tail = Vec::new();
        for cone in &self.socs {
            let p = cone.size;
            let lk = &lambda[start..start + p];
            let (dsk, dzk) = (&ds[start..start + p], &dz[start..start + p]);
            let lknorm2 = lk[0] * lk[0] - dot(&lk[1..], &lk[1..]);
            if lknorm2 <= 0.0 {
                // ECOS moves on without advancing its offset here; kept as it is.
                continue;
            }
            let lknorm = lknorm2.sqrt();
            lkbar.clear();
            lkbar.extend(lk.iter().map(|&x| x / lknorm));
            let lknorm_inv = 1.0 / lknorm;
            let step_to_boundary = |d: &[f64], tail: &mut Vec<f64>| {
                let mut lkbar_d = lkbar[0] * d[0];
                for j in 1..p {
                    lkbar_d -= lkbar[j] * d[j];
                }
                let head = lknorm_inv * lkbar_d;
                let factor = (lkbar_d + d[0]) / (lkbar[0] + 1.0);
                tail.clear();
                tail.extend((1..p).map(|j| lknorm_inv * (d[j] - factor * lkbar[j])));
                norm2(tail) - head
            };
            let rho_norm = step_to_boundary(dsk, &mut tail);
            let sigma_norm = step_to_boundary(dzk, &mut tail);
            let mut conic_step = 0.0;
            if rho_norm > conic_step {
                conic_step = rho_norm;
            }
            if sigma_norm > conic_step {
                conic_step = sigma_norm;
            }
            if conic_step != 0.0 {
                let step = 1.0 / conic_step;
                if step < alpha {
                    alpha = step;
                }
            }
            start += p;
        }
        alpha.clamp(STEP_MIN, STEP_MAX)
    }
}

/// `u0^2 - u1'u1`, subtracting term by term as ECOS's `socres` does.
fn cone_residual(u: &[f64]) -> f64 {
    let mut res = u[0] * u[0];
    for &x in &u[1..] {
        res -= x * x;
    }
    res
}
