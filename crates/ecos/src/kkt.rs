//! The KKT system of every Newton step (paper §V), assembled, ordered and solved as ECOS's
//! `preproc.c` and `kkt.c` do:
//!
//! ```text
//!     [ dI   A'   G'          ]
//! K = [ A    -dI              ]     expanded so each second-order cone's dense W^2 becomes
//!     [ G         -W^2 - dI   ]     D + u u' - v v' with two extra rows (v, u) per cone.
//! ```
//!
//! `d` is the static regularisation (ECOS's `DELTASTAT`); only the upper triangle is stored. The
//! matrix is permuted once by AMD, factored by [`Ldl`] each iteration, and every solve is followed
//! by iterative refinement against the unregularised system, with ECOS's stopping rules.

use crate::cones::Cones;
use crate::ldl::Ldl;
use crate::linalg::{Csc, max, norm_inf};

/// Static regularisation of the diagonal blocks (ECOS's `DELTASTAT`).
const STATIC_REG: f64 = 7e-8;
/// Refinement stops once the residual is below this times `1 + |rhs|_inf` (`LINSYSACC`).
const LINSYS_ACCURACY: f64 = 1e-14;
/// ... or once a step reduced the residual by less than this factor (`IRERRFACT`).
const REFINE_FACTOR: f64 = 6.0;

pub(crate) struct Kkt {
    n: usize,
    p: usize,
    /// Rows of the expanded cone block: `m` plus two per second-order cone.
    m_expanded: usize,
    /// Position in the permuted matrix of each row of the unpermuted one.
    pinv: Vec<usize>,
    /// The permuted upper triangle, and where each unpermuted entry went.
    pkpt: Csc,
    to_permuted: Vec<usize>,
    /// Expected pivot signs, permuted (+1 for x and each cone's u row, -1 elsewhere).
    sign: Vec<f64>,
    /// Unpermuted entry indices of the orthant's diagonal and of each cone's D diagonal; a
    /// cone's v and u columns follow its last D entry.
    orthant_diag: Vec<usize>,
    soc_diag: Vec<Vec<usize>>,
    ldl: Ldl,
    /// The permuted solution, its last refinement, and the solution in the unpermuted order.
    px: Vec<f64>,
    dpx: Vec<f64>,
    unpermuted: Vec<f64>,
    /// The residual of the refinement (unpermuted), and `G dx`.
    err: Vec<f64>,
    gdx: Vec<f64>,
}

impl Kkt {
    /// Assembles `K` from `A'` and `G'` (ECOS's `createKKT_U`), orders it with AMD and runs the
    /// symbolic factorisation.
    pub fn new(at: Option<&Csc>, gt: &Csc, cones: &Cones) -> Kkt {
        let n = gt.nrows;
        let p = at.map_or(0, |a| a.ncols);
        let m = gt.ncols;
        let nsoc = cones.socs.len();
        let nk = n + p + m + 2 * nsoc;
        let mut ku = Upper::default();
        let mut sign = Vec::with_capacity(nk);
        for j in 0..n {
            ku.column();
            ku.push(j, STATIC_REG);
            sign.push(1.0);
        }
        if let Some(at) = at {
            for j in 0..p {
                ku.column();
                ku.copy_column(at, j);
                ku.push(n + j, -STATIC_REG);
                sign.push(-1.0);
            }
        }
        let mut orthant_diag = Vec::with_capacity(cones.orthant);
        let mut soc_diag = Vec::with_capacity(nsoc);
        for j in 0..cones.orthant {
            ku.column();
            ku.copy_column(gt, j);
            orthant_diag.push(ku.push(n + p + j, -1.0));
            sign.push(-1.0);
        }
        let mut cone_start = cones.orthant;
        for (l, cone) in cones.socs.iter().enumerate() {
            let size = cone.size;
            let first = n + p + cone_start + 2 * l;
            let mut diag = Vec::with_capacity(size);
            for j in 0..size {
                ku.column();
                ku.copy_column(gt, cone_start + j);
                diag.push(ku.push(first + j, -1.0));
                sign.push(-1.0);
            }
            ku.column();
            for r in 1..size {
                ku.push(first + r, 0.0);
            }
            ku.push(first + size, -1.0);
            sign.push(-1.0);
            ku.column();
            for r in 0..size {
                ku.push(first + r, 0.0);
            }
            ku.push(first + size + 1, 1.0);
            sign.push(1.0);
            soc_diag.push(diag);
            cone_start += size;
        }
        ku.column();
        let ku = Csc { nrows: nk, ncols: nk, colptr: ku.colptr, rowval: ku.rowval, nzval: ku.nzval };

        let (_, pinv) = if nk == 0 {
            (Vec::new(), Vec::new())
        } else {
            let (perm, _, _) = amd::order(nk, &ku.colptr, &ku.rowval, &amd::Control::default())
                .expect("the KKT matrix is a valid square pattern");
            let mut pinv = vec![0usize; nk];
            for (i, &pi) in perm.iter().enumerate() {
                pinv[pi] = i;
            }
            (perm, pinv)
        };
        let (pkpt, to_permuted) = permute_symmetric(&ku, &pinv);
        let mut permuted_sign = vec![0.0; nk];
        for i in 0..nk {
            permuted_sign[pinv[i]] = sign[i];
        }
        let ldl = Ldl::symbolic(&pkpt);
        Kkt {
            n,
            p,
            m_expanded: m + 2 * nsoc,
            pinv,
            pkpt,
            to_permuted,
            sign: permuted_sign,
            orthant_diag,
            soc_diag,
            ldl,
            px: vec![0.0; nk],
            dpx: vec![0.0; nk],
            unpermuted: vec![0.0; nk],
            err: vec![0.0; nk],
            gdx: vec![0.0; m],
        }
    }

    pub fn size(&self) -> usize {
        self.n + self.p + self.m_expanded
    }

    fn set(&mut self, entry: usize, value: f64) {
        self.pkpt.nzval[self.to_permuted[entry]] = value;
    }

    /// The cone block of the initial systems: `-I` (and `-1`, `+1` on each cone's extra rows).
    pub fn set_identity_scaling(&mut self, cones: &Cones) {
        for i in 0..cones.orthant {
            self.set(self.orthant_diag[i], -1.0);
        }
        for (l, cone) in cones.socs.iter().enumerate() {
            self.write_soc(l, cone.size, [-1.0, -1.0], |_| 0.0, -1.0, 0.0, |_| 0.0, 1.0);
        }
    }

    /// The cone block `-W^2 - dI` of the current scaling (ECOS's `kkt_update`).
    pub fn set_scaling(&mut self, cones: &Cones) {
        for i in 0..cones.orthant {
            self.set(self.orthant_diag[i], -cones.v[i] - STATIC_REG);
        }
        for (l, c) in cones.socs.iter().enumerate() {
            let e2 = c.eta_square;
            self.write_soc(
                l,
                c.size,
                [-e2 * c.d1 - STATIC_REG, -e2 - STATIC_REG],
                |k| -e2 * c.v1 * c.q[k],
                -e2,
                -e2 * c.u0,
                |k| -e2 * c.u1 * c.q[k],
                e2 + STATIC_REG,
            );
        }
    }

    /// Writes cone `l`'s expanded block: D's first and other diagonal entries, v's entries and
    /// diagonal, u's first entry, other entries and diagonal.
    #[allow(clippy::too_many_arguments)]
    fn write_soc(
        &mut self,
        l: usize,
        size: usize,
        d: [f64; 2],
        v: impl Fn(usize) -> f64,
        v_diag: f64,
        u_first: f64,
        u: impl Fn(usize) -> f64,
        u_diag: f64,
    ) {
        for k in 0..size {
            let entry = self.soc_diag[l][k];
            self.set(entry, if k == 0 { d[0] } else { d[1] });
        }
        let mut next = self.soc_diag[l][size - 1] + 1;
        for k in 0..size - 1 {
            self.set(next, v(k));
            next += 1;
        }
        self.set(next, v_diag);
        next += 1;
        self.set(next, u_first);
        next += 1;
        for k in 0..size - 1 {
            self.set(next, u(k));
            next += 1;
        }
        self.set(next, u_diag);
    }

    pub fn factor(&mut self, eps: f64, delta: f64) {
        self.ldl.numeric(&self.pkpt, &self.sign, eps, delta);
    }

    /// Solves `K (dx, dy, dz) = rhs` (`rhs` in the unpermuted, expanded layout) with iterative
    /// refinement against the unregularised `K` (`initial`: the cone block is `-I`), writing the
    /// unpermuted parts. Returns the number of refinement steps kept.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        a: Option<&Csc>,
        g: &Csc,
        cones: &Cones,
        rhs: &[f64],
        initial: bool,
        nitref: usize,
        dx: &mut [f64],
        dy: &mut [f64],
        dz: &mut [f64],
    ) -> usize {
        let (n, p) = (self.n, self.p);
        let nk = n + p + self.m_expanded;
        let threshold = (1.0 + norm_inf(&rhs[..nk])) * LINSYS_ACCURACY;
        scatter(&self.pinv, rhs, &mut self.px);
        self.ldl.solve_in_place(&mut self.px);
        let mut err_prev = f64::NAN;
        let mut kept = 0;
        let mut stepped_back = false;
        loop {
            gather(&self.pinv, &self.px, &mut self.unpermuted);
            let (ux, rest) = self.unpermuted.split_at(n);
            let (uy, uz) = rest.split_at(p);
            compact_cones(cones, uz, dz);
            let (ex, rest) = self.err.split_at_mut(n);
            let (ey, ez) = rest.split_at_mut(p);
            for i in 0..n {
                ex[i] = rhs[i] - STATIC_REG * ux[i];
            }
            if let Some(a) = a {
                a.tmul_sub(uy, ex);
            }
            g.tmul_sub(dz, ex);
            let nex = norm_inf(ex);
            let mut ney = 0.0;
            if p > 0 {
                for i in 0..p {
                    ey[i] = rhs[n + i] + STATIC_REG * uy[i];
                }
                a.expect("p > 0 comes with A").mul_sub(ux, ey);
                ney = norm_inf(ey);
            }
            g.mul(ux, &mut self.gdx);
            let rz = &rhs[n + p..];
            let (mut kk, mut j) = (0, 0);
            for _ in 0..cones.orthant {
                ez[kk] = rz[kk] - self.gdx[j] + STATIC_REG * dz[j];
                (kk, j) = (kk + 1, j + 1);
            }
            for cone in &cones.socs {
                for i in 0..cone.size {
                    // ECOS adds the regularisation back with the opposite sign on a cone's last
                    // row (its D entry is regularised like the others); kept for its iterates.
                    let reg = if i < cone.size - 1 { STATIC_REG * dz[j] } else { -STATIC_REG * dz[j] };
                    ez[kk] = rz[kk] - self.gdx[j] + reg;
                    (kk, j) = (kk + 1, j + 1);
                }
                ez[kk] = 0.0;
                ez[kk + 1] = 0.0;
                kk += 2;
            }
            if initial {
                for (e, z) in ez.iter_mut().zip(uz) {
                    *e += z;
                }
            } else {
                cones.scale2_add_expanded(uz, ez);
            }
            let nez = norm_inf(ez);
            let mut err = max(nex, nez);
            if p > 0 {
                err = max(err, ney);
            }
            if kept > 0 && err > err_prev {
                for (x, d) in self.px.iter_mut().zip(&self.dpx) {
                    *x -= d;
                }
                kept -= 1;
                stepped_back = true;
                break;
            }
            if kept == nitref || err < threshold || (kept > 0 && err_prev < REFINE_FACTOR * err) {
                break;
            }
            err_prev = err;
            scatter(&self.pinv, &self.err, &mut self.dpx);
            self.ldl.solve_in_place(&mut self.dpx);
            for (x, d) in self.px.iter_mut().zip(&self.dpx) {
                *x += d;
            }
            kept += 1;
        }
        if stepped_back {
            gather(&self.pinv, &self.px, &mut self.unpermuted);
            compact_cones(cones, &self.unpermuted[n + p..], dz);
        }
        dx.copy_from_slice(&self.unpermuted[..n]);
        dy.copy_from_slice(&self.unpermuted[n..n + p]);
        kept
    }
}

/// `permuted[pinv[i]] = v[i]`.
fn scatter(pinv: &[usize], v: &[f64], permuted: &mut [f64]) {
    for (&to, &x) in pinv.iter().zip(v) {
        permuted[to] = x;
    }
}

/// `v[i] = permuted[pinv[i]]`.
fn gather(pinv: &[usize], permuted: &[f64], v: &mut [f64]) {
    for (x, &from) in v.iter_mut().zip(pinv) {
        *x = permuted[from];
    }
}

/// The cone rows of the expanded layout `expanded` without each second-order cone's two extra
/// rows.
fn compact_cones(cones: &Cones, expanded: &[f64], z: &mut [f64]) {
    let l = cones.orthant;
    z[..l].copy_from_slice(&expanded[..l]);
    let (mut k, mut j) = (l, l);
    for cone in &cones.socs {
        z[j..j + cone.size].copy_from_slice(&expanded[k..k + cone.size]);
        j += cone.size;
        k += cone.size + 2;
    }
}

/// A compressed-column matrix filled column by column.
#[derive(Default)]
struct Upper {
    colptr: Vec<usize>,
    rowval: Vec<usize>,
    nzval: Vec<f64>,
}

impl Upper {
    /// Starts the next column (or, after the last, closes the matrix).
    fn column(&mut self) {
        self.colptr.push(self.rowval.len());
    }

    /// Appends an entry to the current column and returns its index.
    fn push(&mut self, row: usize, value: f64) -> usize {
        self.rowval.push(row);
        self.nzval.push(value);
        self.rowval.len() - 1
    }

    fn copy_column(&mut self, m: &Csc, col: usize) {
        for k in m.colptr[col]..m.colptr[col + 1] {
            self.push(m.rowval[k], m.nzval[k]);
        }
    }
}

/// `P K P'` of the upper triangle `k` under `pinv`, kept upper, with the map from each entry of
/// `k` to its place (ECOS's `permuteSparseSymmetricMatrix`, whose entry order LDL then follows).
fn permute_symmetric(k: &Csc, pinv: &[usize]) -> (Csc, Vec<usize>) {
    let n = k.ncols;
    let mut count = vec![0usize; n];
    for j in 0..n {
        for q in k.colptr[j]..k.colptr[j + 1] {
            let i = k.rowval[q];
            if i > j {
                continue;
            }
            count[pinv[i].max(pinv[j])] += 1;
        }
    }
    let mut colptr = vec![0usize; n + 1];
    for j in 0..n {
        colptr[j + 1] = colptr[j] + count[j];
    }
    let mut next = colptr[..n].to_vec();
    let nnz = colptr[n];
    let mut rowval = vec![0usize; nnz];
    let mut nzval = vec![0.0; nnz];
    let mut to_permuted = vec![usize::MAX; k.nnz()];
    for j in 0..n {
        let j2 = pinv[j];
        for q in k.colptr[j]..k.colptr[j + 1] {
            let i = k.rowval[q];
            if i > j {
                continue;
            }
            let i2 = pinv[i];
            let col = i2.max(j2);
            let at = next[col];
            next[col] += 1;
            rowval[at] = i2.min(j2);
            nzval[at] = k.nzval[q];
            to_permuted[q] = at;
        }
    }
    (Csc { nrows: n, ncols: n, colptr, rowval, nzval }, to_permuted)
}
