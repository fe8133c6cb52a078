//! L-BFGS-B, the bounded limited-memory quasi-Newton method (Byrd, Lu, Nocedal and Zhu, 1995; with
//! Morales and Nocedal's 2011 projected subspace step), as the Fortran 3.0 code that scipy 1.5's
//! `minimize(method="L-BFGS-B")` drives runs it: the generalised Cauchy point along the projected
//! steepest descent path through its breakpoints (kept in a heap), the subspace minimisation of
//! the compact limited-memory model over the variables still free there, and Moré and
//! Thuente's line search with the same tolerances, step bounds and 20-trial limit. The memory is
//! refreshed where the original refreshes it (a singular or indefinite factor, a failed line
//! search) and a correction pair is skipped where it skips one.
//!
//! Why not any quasi-Newton: Pollux's agents refit their throughput model with this method
//! (`docs/pollux-semantics.md` §4.1), whose objective has flat directions and kinks where it
//! stops matters; a simpler backtracking method stopped elsewhere on the same data, sometimes at
//! a model off by orders of magnitude. Sums run in index order, so results agree with scipy's to
//! rounding, not bit for bit (its BLAS may sum in another order).

// Index loops as in the original keep each sum's order (and so its rounding) auditable.
#![allow(clippy::needless_range_loop)]

/// How a variable is bounded (the original's `nbd` codes 0-3).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Free,
    Lower,
    Both,
    Upper,
}

impl Bound {
    fn of(lower: f64, upper: f64) -> Self {
        match (lower.is_finite(), upper.is_finite()) {
            (false, false) => Self::Free,
            (true, false) => Self::Lower,
            (true, true) => Self::Both,
            (false, true) => Self::Upper,
        }
    }

    fn has_lower(self) -> bool {
        matches!(self, Self::Lower | Self::Both)
    }

    fn has_upper(self) -> bool {
        matches!(self, Self::Both | Self::Upper)
    }
}

/// Where a variable stands at the Cauchy point (the original's `iwhere`).
mod at {
    pub const UNBOUNDED: i8 = -1;
    pub const FREE: i8 = 0;
    pub const LOWER: i8 = 1;
    pub const UPPER: i8 = 2;
    pub const FIXED: i8 = 3;
    pub const ZERO_GRADIENT: i8 = -3;
}

/// scipy's defaults: `maxcor`, `ftol`, `gtol`, `maxls`, `maxiter` and `maxfun`.
const MEMORY: usize = 10;
const FTOL: f64 = 2.220_446_049_250_313e-9;
const PGTOL: f64 = 1e-5;
const MAX_LINE_STEPS: usize = 20;
const MAX_ITERATIONS: usize = 15_000;
const MAX_EVALUATIONS: usize = 15_000;

/// A column-major dense matrix (the original's Fortran arrays, indexed from 0).
struct Matrix {
    rows: usize,
    data: Vec<f64>,
}

impl Matrix {
    fn new(rows: usize, cols: usize) -> Self {
        Self { rows, data: vec![0.0; rows * cols] }
    }

    fn column(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }
}

impl std::ops::Index<(usize, usize)> for Matrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i + j * self.rows]
    }
}

impl std::ops::IndexMut<(usize, usize)> for Matrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i + j * self.rows]
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |sum, (x, y)| sum + x * y)
}

/// A numerical breakdown (singular or indefinite factor): the original refreshes its memory.
struct Breakdown;

/// Cholesky factor `R` (upper, `A = RᵀR`) of the `n × n` block of `a` at `(at, at)`, in place.
fn cholesky(a: &mut Matrix, at: usize, n: usize) -> Result<(), Breakdown> {
    for j in 0..n {
        let mut s = 0.0;
        for k in 0..j {
            let mut t = a[(at + k, at + j)];
            for i in 0..k {
                t -= a[(at + i, at + k)] * a[(at + i, at + j)];
            }
            t /= a[(at + k, at + k)];
            a[(at + k, at + j)] = t;
            s += t * t;
        }
        let s = a[(at + j, at + j)] - s;
        if s <= 0.0 {
            return Err(Breakdown);
        }
        a[(at + j, at + j)] = s.sqrt();
    }
    Ok(())
}

/// Solves `R x = b` (`transposed` false) or `Rᵀ x = b` for the upper-triangular leading `n × n`
/// block `R` of `t`, over `b` in place.
fn solve_upper(t: &Matrix, n: usize, b: &mut [f64], transposed: bool) -> Result<(), Breakdown> {
    if (0..n).any(|i| t[(i, i)] == 0.0) {
        return Err(Breakdown);
    }
    if transposed {
        b[0] /= t[(0, 0)];
        for j in 1..n {
            b[j] -= dot(&t.column(j)[..j], &b[..j]);
            b[j] /= t[(j, j)];
        }
    } else {
        b[n - 1] /= t[(n - 1, n - 1)];
        for j in (0..n - 1).rev() {
            let factor = -b[j + 1];
            for i in 0..=j {
                b[i] += factor * t[(i, j + 1)];
            }
            b[j] /= t[(j, j)];
        }
    }
    Ok(())
}

/// The minimiser's state between iterations (the original's work arrays, named).
struct Lbfgsb<'a> {
    n: usize,
    lower: &'a [f64],
    upper: &'a [f64],
    bounds: Vec<Bound>,
    constrained: bool,
    boxed: bool,
    /// Correction pairs `s` and `y`, a ring of `MEMORY` columns from `head`, `col` in use.
    ws: Matrix,
    wy: Matrix,
    sy: Matrix,
    ss: Matrix,
    /// Cholesky factor of `θ·SᵀS + L·D⁻¹·Lᵀ`.
    wt: Matrix,
    /// The middle matrix of the subspace model, factorised, and its unfactorised parts.
    wn: Matrix,
    wn1: Matrix,
    head: usize,
    tail: usize,
    col: usize,
    updates: usize,
    updated: bool,
    theta: f64,
    at: Vec<i8>,
    /// Free variables at the Cauchy point first (`free` of them), then the active ones.
    index: Vec<usize>,
    free: usize,
    /// Variables that entered (`0..entered`) and left (`left..n`) the free set.
    changed: Vec<usize>,
    entered: usize,
    left: usize,
    iteration: usize,
    /// `p` and `c` of the Cauchy search (`Wᵀd` and `Wᵀ(xᶜ - x)`), length `2·col`.
    p: Vec<f64>,
    c: Vec<f64>,
}

/// Minimises `f` (which writes its gradient into the second argument) from `start` within
/// `[lower, upper]` (infinite where unbounded; equal bounds pin a variable), stopping as scipy
/// does: projected gradient at most 1e-5, or relative decrease at most `ftol`, or a line search
/// that cannot make progress with an empty memory; then the last accepted point.
pub fn minimize(mut f: impl FnMut(&[f64], &mut [f64]) -> f64, start: &[f64], lower: &[f64], upper: &[f64]) -> Vec<f64> {
    let n = start.len();
    let mut x: Vec<f64> = (0..n).map(|i| start[i].clamp(lower[i], upper[i])).collect();
    let mut state = Lbfgsb::new(lower, upper, &mut x);
    let epsilon = f64::EPSILON;
    let tolerance = FTOL / f64::EPSILON * epsilon;
    let mut g = vec![0.0; n];
    let mut fx = f(&x, &mut g);
    let mut evaluations = 1;
    let mut projected = state.projected_gradient_norm(&x, &g);
    if projected <= PGTOL {
        return x;
    }
    let (mut z, mut d, mut r) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut saved_x, mut saved_g) = (vec![0.0; n], vec![0.0; n]);
    loop {
        // The generalised Cauchy point, then the subspace step from it.
        let subspace = if !state.constrained && state.col > 0 {
            // Unconstrained with a memory: the subspace step from x itself.
            z.copy_from_slice(&x);
            (!state.updated || state.form_k().is_ok()) && state.subspace_step(&x, &g, &mut z, &mut r).is_ok()
        } else if state.cauchy(&x, &g, projected, &mut z, &mut d).is_err() {
            false
        } else {
            let work = state.update_free_set();
            state.free == 0
                || state.col == 0
                || ((!work || state.form_k().is_ok()) && state.subspace_step(&x, &g, &mut z, &mut r).is_ok())
        };
        if !subspace {
            state.refresh();
            continue;
        }
        for i in 0..n {
            d[i] = z[i] - x[i];
        }
        // The line search along d.
        let search = state.line_search_start(&x, &d);
        saved_x.copy_from_slice(&x);
        saved_g.copy_from_slice(&g);
        let f_old = fx;
        let mut line = LineSearch::new(search.step, search.max_step);
        let mut trials = 0;
        let mut gd;
        let mut gd_old = 0.0;
        let outcome = loop {
            gd = dot(&g, &d);
            if trials == 0 {
                gd_old = gd;
                if gd >= 0.0 {
                    break Err(());
                }
            }
            match line.next(fx, gd) {
                LineStep::Done => break Ok(()),
                LineStep::Failed => break Err(()),
                LineStep::Evaluate(step) => {
                    trials += 1;
                    if trials > MAX_LINE_STEPS {
                        break Err(());
                    }
                    if step == 1.0 {
                        x.copy_from_slice(&z);
                    } else {
                        for i in 0..n {
                            x[i] = (step * d[i] + saved_x[i]).clamp(lower[i], upper[i]);
                        }
                    }
                    fx = f(&x, &mut g);
                    evaluations += 1;
                }
            }
        };
        if outcome.is_err() {
            x.copy_from_slice(&saved_x);
            g.copy_from_slice(&saved_g);
            fx = f_old;
            if state.col == 0 {
                return x;
            }
            state.refresh();
            continue;
        }
        state.iteration += 1;
        projected = state.projected_gradient_norm(&x, &g);
        if state.iteration >= MAX_ITERATIONS || evaluations > MAX_EVALUATIONS {
            return x;
        }
        if projected <= PGTOL || f_old - fx <= tolerance * f_old.abs().max(fx.abs()).max(1.0) {
            return x;
        }
        // The correction pair of this step, unless its curvature is not positive enough.
        for i in 0..n {
            r[i] = g[i] - saved_g[i];
        }
        let rr = dot(&r, &r);
        let step = line.step;
        let (dr, scale) = if step == 1.0 {
            (gd - gd_old, -gd_old)
        } else {
            for v in &mut d {
                *v *= step;
            }
            ((gd - gd_old) * step, -gd_old * step)
        };
        if dr <= epsilon * scale {
            state.updated = false;
            continue;
        }
        state.updated = true;
        state.updates += 1;
        state.push_correction(&d, &r, rr, dr, step, search.dtd);
        if state.form_t().is_err() {
            state.refresh();
        }
    }
}

/// The first trial step of a line search, its upper bound, and `dᵀd`.
struct LineStart {
    step: f64,
    max_step: f64,
    dtd: f64,
}

impl<'a> Lbfgsb<'a> {
    fn new(lower: &'a [f64], upper: &'a [f64], x: &mut [f64]) -> Self {
        let n = x.len();
        let bounds: Vec<Bound> = (0..n).map(|i| Bound::of(lower[i], upper[i])).collect();
        for i in 0..n {
            if bounds[i].has_lower() && x[i] <= lower[i] {
                x[i] = lower[i];
            } else if bounds[i].has_upper() && x[i] >= upper[i] {
                x[i] = upper[i];
            }
        }
        let at = (0..n)
            .map(|i| match bounds[i] {
                Bound::Free => at::UNBOUNDED,
                Bound::Both if upper[i] - lower[i] <= 0.0 => at::FIXED,
                _ => at::FREE,
            })
            .collect();
        Self {
            n,
            lower,
            upper,
            constrained: bounds.iter().any(|&b| b != Bound::Free),
            boxed: bounds.iter().all(|&b| b == Bound::Both),
            bounds,
            ws: Matrix::new(n, MEMORY),
            wy: Matrix::new(n, MEMORY),
            sy: Matrix::new(MEMORY, MEMORY),
            ss: Matrix::new(MEMORY, MEMORY),
            wt: Matrix::new(MEMORY, MEMORY),
            wn: Matrix::new(2 * MEMORY, 2 * MEMORY),
            wn1: Matrix::new(2 * MEMORY, 2 * MEMORY),
            head: 0,
            tail: 0,
            col: 0,
            updates: 0,
            updated: false,
            theta: 1.0,
            at,
            index: (0..n).collect(),
            free: n,
            changed: vec![0; n],
            entered: 0,
            left: n,
            iteration: 0,
            p: vec![0.0; 2 * MEMORY],
            c: vec![0.0; 2 * MEMORY],
        }
    }

    /// Forgets every correction pair (the original's response to a numerical breakdown).
    fn refresh(&mut self) {
        self.col = 0;
        self.head = 0;
        self.theta = 1.0;
        self.updates = 0;
        self.updated = false;
    }

    fn next(&self, pointer: usize) -> usize {
        (pointer + 1) % MEMORY
    }

    /// The infinity norm of the gradient projected on the box (NaN if the gradient has one).
    fn projected_gradient_norm(&self, x: &[f64], g: &[f64]) -> f64 {
        let mut norm: f64 = 0.0;
        for i in 0..self.n {
            let mut gi = g[i];
            if gi.is_nan() {
                return gi;
            }
            if self.bounds[i] != Bound::Free {
                if gi < 0.0 {
                    if self.bounds[i].has_upper() {
                        gi = gi.max(x[i] - self.upper[i]);
                    }
                } else if self.bounds[i].has_lower() {
                    gi = gi.min(x[i] - self.lower[i]);
                }
            }
            norm = norm.max(gi.abs());
        }
        norm
    }

    /// `M·v` for the `2·col` middle matrix `M` of the compact L-BFGS form, into `out`.
    fn middle_product(&self, v: &[f64], out: &mut [f64]) -> Result<(), Breakdown> {
        let col = self.col;
        if col == 0 {
            return Ok(());
        }
        let sy = &self.sy;
        out[col] = v[col];
        for i in 1..col {
            let mut sum = 0.0;
            for k in 0..i {
                sum += sy[(i, k)] * v[k] / sy[(k, k)];
            }
            out[col + i] = v[col + i] + sum;
        }
        solve_upper(&self.wt, col, &mut out[col..2 * col], true)?;
        for i in 0..col {
            out[i] = v[i] / sy[(i, i)].sqrt();
        }
        solve_upper(&self.wt, col, &mut out[col..2 * col], false)?;
        for i in 0..col {
            out[i] = -out[i] / sy[(i, i)].sqrt();
        }
        for i in 0..col {
            let mut sum = 0.0;
            for k in i + 1..col {
                sum += sy[(k, i)] * out[col + k] / sy[(i, i)];
            }
            out[i] += sum;
        }
        Ok(())
    }

    /// The generalised Cauchy point `xcp`: the first local minimum of the model along the
    /// projected steepest-descent path, its breakpoints visited in order through a heap.
    fn cauchy(
        &mut self,
        x: &[f64],
        g: &[f64],
        projected: f64,
        xcp: &mut [f64],
        d: &mut [f64],
    ) -> Result<(), Breakdown> {
        let (n, col, theta) = (self.n, self.col, self.theta);
        if projected <= 0.0 {
            xcp.copy_from_slice(x);
            return Ok(());
        }
        let col2 = 2 * col;
        let mut bounded = true;
        let mut free_from = n;
        let mut breaks = 0;
        let mut order = vec![0usize; n];
        let mut t = vec![0.0; n];
        let (mut min_break, mut min_break_at) = (0.0, 0);
        let mut f1 = 0.0;
        self.p[..col2].fill(0.0);
        let (mut tl, mut tu) = (0.0, 0.0);
        for i in 0..n {
            let neg_g = -g[i];
            if self.at[i] != at::FIXED && self.at[i] != at::UNBOUNDED {
                if self.bounds[i].has_lower() {
                    tl = x[i] - self.lower[i];
                }
                if self.bounds[i].has_upper() {
                    tu = self.upper[i] - x[i];
                }
                let at_lower = self.bounds[i].has_lower() && tl <= 0.0;
                let at_upper = self.bounds[i].has_upper() && tu <= 0.0;
                self.at[i] = at::FREE;
                if at_lower {
                    if neg_g <= 0.0 {
                        self.at[i] = at::LOWER;
                    }
                } else if at_upper {
                    if neg_g >= 0.0 {
                        self.at[i] = at::UPPER;
                    }
                } else if neg_g.abs() <= 0.0 {
                    self.at[i] = at::ZERO_GRADIENT;
                }
            }
            if self.at[i] != at::FREE && self.at[i] != at::UNBOUNDED {
                d[i] = 0.0;
                continue;
            }
            d[i] = neg_g;
            f1 -= neg_g * neg_g;
            let mut pointer = self.head;
            for j in 0..col {
                self.p[j] += self.wy[(i, pointer)] * neg_g;
                self.p[col + j] += self.ws[(i, pointer)] * neg_g;
                pointer = self.next(pointer);
            }
            let breakpoint = if self.bounds[i].has_lower() && neg_g < 0.0 {
                Some(tl / (-neg_g))
            } else if self.bounds[i].has_upper() && neg_g > 0.0 {
                Some(tu / neg_g)
            } else {
                None
            };
            match breakpoint {
                Some(at_t) => {
                    order[breaks] = i;
                    t[breaks] = at_t;
                    if breaks == 0 || at_t < min_break {
                        min_break = at_t;
                        min_break_at = breaks;
                    }
                    breaks += 1;
                }
                None => {
                    free_from -= 1;
                    order[free_from] = i;
                    if neg_g.abs() > 0.0 {
                        bounded = false;
                    }
                }
            }
        }
        if theta != 1.0 {
            for v in &mut self.p[col..col2] {
                *v *= theta;
            }
        }
        xcp.copy_from_slice(x);
        if breaks == 0 && free_from == n {
            return Ok(());
        }
        self.c[..col2].fill(0.0);
        let mut v = vec![0.0; col2];
        let mut f2 = -theta * f1;
        let f2_start = f2;
        if col > 0 {
            self.middle_product(&self.p[..col2], &mut v)?;
            f2 -= dot(&v, &self.p[..col2]);
        }
        let mut dtm = -f1 / f2;
        let mut t_sum = 0.0;
        let mut reached_last = false;
        if breaks != 0 {
            let mut left = breaks;
            let mut visit = 1;
            let mut tj = 0.0;
            let mut wbp = vec![0.0; col2];
            loop {
                let tj0 = tj;
                let bp;
                if visit == 1 {
                    tj = min_break;
                    bp = order[min_break_at];
                } else {
                    if visit == 2 && min_break_at != breaks - 1 {
                        t[min_break_at] = t[breaks - 1];
                        order[min_break_at] = order[breaks - 1];
                    }
                    heap_pop_least(&mut t[..left], &mut order[..left], visit == 2);
                    tj = t[left - 1];
                    bp = order[left - 1];
                }
                let dt = tj - tj0;
                if dtm < dt {
                    break;
                }
                t_sum += dt;
                left -= 1;
                visit += 1;
                let d_bp = d[bp];
                d[bp] = 0.0;
                let z_bp = if d_bp > 0.0 {
                    xcp[bp] = self.upper[bp];
                    self.at[bp] = at::UPPER;
                    self.upper[bp] - x[bp]
                } else {
                    xcp[bp] = self.lower[bp];
                    self.at[bp] = at::LOWER;
                    self.lower[bp] - x[bp]
                };
                if left == 0 && breaks == n {
                    dtm = dt;
                    reached_last = true;
                    break;
                }
                let d_bp2 = d_bp * d_bp;
                f1 = f1 + dt * f2 + d_bp2 - theta * d_bp * z_bp;
                f2 -= theta * d_bp2;
                if col > 0 {
                    for j in 0..col2 {
                        self.c[j] += dt * self.p[j];
                    }
                    let mut pointer = self.head;
                    for j in 0..col {
                        wbp[j] = self.wy[(bp, pointer)];
                        wbp[col + j] = theta * self.ws[(bp, pointer)];
                        pointer = self.next(pointer);
                    }
                    self.middle_product(&wbp, &mut v)?;
                    let wmc = dot(&self.c[..col2], &v);
                    let wmp = dot(&self.p[..col2], &v);
                    let wmw = dot(&wbp, &v);
                    for j in 0..col2 {
                        self.p[j] += -d_bp * wbp[j];
                    }
                    f1 += d_bp * wmc;
                    f2 = f2 + 2.0 * d_bp * wmp - d_bp2 * wmw;
                }
                f2 = (f64::EPSILON * f2_start).max(f2);
                if left > 0 {
                    dtm = -f1 / f2;
                    continue;
                }
                dtm = if bounded { 0.0 } else { -f1 / f2 };
                break;
            }
        }
        if !reached_last {
            dtm = dtm.max(0.0);
            t_sum += dtm;
            for i in 0..n {
                xcp[i] += t_sum * d[i];
            }
        }
        if col > 0 {
            for j in 0..col2 {
                self.c[j] += dtm * self.p[j];
            }
        }
        Ok(())
    }

    /// The free set at the Cauchy point, and which variables entered or left it; whether the
    /// subspace matrix must be formed again.
    fn update_free_set(&mut self) -> bool {
        let n = self.n;
        self.entered = 0;
        self.left = n;
        if self.iteration > 0 && self.constrained {
            for i in 0..self.free {
                let k = self.index[i];
                if self.at[k] > 0 {
                    self.left -= 1;
                    self.changed[self.left] = k;
                }
            }
            for i in self.free..n {
                let k = self.index[i];
                if self.at[k] <= 0 {
                    self.changed[self.entered] = k;
                    self.entered += 1;
                }
            }
        }
        let work = self.left < n || self.entered > 0 || self.updated;
        self.free = 0;
        let mut active = n;
        for i in 0..n {
            if self.at[i] <= 0 {
                self.index[self.free] = i;
                self.free += 1;
            } else {
                active -= 1;
                self.index[active] = i;
            }
        }
        work
    }

    /// Forms and factorises the subspace model's middle matrix for the current free set,
    /// updating the parts that only the free set's change touches.
    fn form_k(&mut self) -> Result<(), Breakdown> {
        let (n, m, col, head, theta) = (self.n, MEMORY, self.col, self.head, self.theta);
        let nsub = self.free;
        let upcl;
        if self.updated {
            if self.updates > m {
                for jy in 0..m - 1 {
                    let js = m + jy;
                    for r in 0..m - 1 - jy {
                        self.wn1[(jy + r, jy)] = self.wn1[(jy + 1 + r, jy + 1)];
                        self.wn1[(js + r, js)] = self.wn1[(js + 1 + r, js + 1)];
                    }
                    for r in 0..m - 1 {
                        self.wn1[(m + r, jy)] = self.wn1[(m + 1 + r, jy + 1)];
                    }
                }
            }
            let (iy, is) = (col - 1, m + col - 1);
            let newest = (head + col - 1) % m;
            let mut pointer = head;
            for jy in 0..col {
                let js = m + jy;
                let (mut t1, mut t2, mut t3) = (0.0, 0.0, 0.0);
                for &k in &self.index[..nsub] {
                    t1 += self.wy[(k, newest)] * self.wy[(k, pointer)];
                }
                for &k in &self.index[nsub..n] {
                    t2 += self.ws[(k, newest)] * self.ws[(k, pointer)];
                    t3 += self.ws[(k, newest)] * self.wy[(k, pointer)];
                }
                self.wn1[(iy, jy)] = t1;
                self.wn1[(is, js)] = t2;
                self.wn1[(is, jy)] = t3;
                pointer = self.next(pointer);
            }
            let jy = col - 1;
            let mut pointer = head;
            for i in 0..col {
                let is = m + i;
                let mut t3 = 0.0;
                for &k in &self.index[..nsub] {
                    t3 += self.ws[(k, pointer)] * self.wy[(k, newest)];
                }
                pointer = self.next(pointer);
                self.wn1[(is, jy)] = t3;
            }
            upcl = col - 1;
        } else {
            upcl = col;
        }
        let (entered, left) = (self.entered, self.left);
        let mut ip = head;
        for iy in 0..upcl {
            let is = m + iy;
            let mut jp = head;
            for jy in 0..=iy {
                let js = m + jy;
                let (mut t1, mut t2, mut t3, mut t4) = (0.0, 0.0, 0.0, 0.0);
                for &k in &self.changed[..entered] {
                    t1 += self.wy[(k, ip)] * self.wy[(k, jp)];
                    t2 += self.ws[(k, ip)] * self.ws[(k, jp)];
                }
                for &k in &self.changed[left..n] {
                    t3 += self.wy[(k, ip)] * self.wy[(k, jp)];
                    t4 += self.ws[(k, ip)] * self.ws[(k, jp)];
                }
                self.wn1[(iy, jy)] = self.wn1[(iy, jy)] + t1 - t3;
                self.wn1[(is, js)] = self.wn1[(is, js)] - t2 + t4;
                jp = self.next(jp);
            }
            ip = self.next(ip);
        }
        let mut ip = head;
        for is in m..m + upcl {
            let mut jp = head;
            for jy in 0..upcl {
                let (mut t1, mut t3) = (0.0, 0.0);
                for &k in &self.changed[..entered] {
                    t1 += self.ws[(k, ip)] * self.wy[(k, jp)];
                }
                for &k in &self.changed[left..n] {
                    t3 += self.ws[(k, ip)] * self.wy[(k, jp)];
                }
                self.wn1[(is, jy)] =
                    if is <= jy + m { self.wn1[(is, jy)] + t1 - t3 } else { self.wn1[(is, jy)] - t1 + t3 };
                jp = self.next(jp);
            }
            ip = self.next(ip);
        }
        for iy in 0..col {
            let (is, is1) = (col + iy, m + iy);
            for jy in 0..=iy {
                let (js, js1) = (col + jy, m + jy);
                self.wn[(jy, iy)] = self.wn1[(iy, jy)] / theta;
                self.wn[(js, is)] = self.wn1[(is1, js1)] * theta;
            }
            for jy in 0..iy {
                self.wn[(jy, is)] = -self.wn1[(is1, jy)];
            }
            for jy in iy..col {
                self.wn[(jy, is)] = self.wn1[(is1, jy)];
            }
            self.wn[(iy, iy)] += self.sy[(iy, iy)];
        }
        cholesky(&mut self.wn, 0, col)?;
        let col2 = 2 * col;
        let mut column = vec![0.0; col];
        for js in col..col2 {
            column.copy_from_slice(&self.wn.column(js)[..col]);
            solve_upper(&self.wn, col, &mut column, true)?;
            self.wn.data[js * self.wn.rows..js * self.wn.rows + col].copy_from_slice(&column);
        }
        for is in col..col2 {
            for js in is..col2 {
                let extra = dot(&self.wn.column(is)[..col], &self.wn.column(js)[..col]);
                self.wn[(is, js)] += extra;
            }
        }
        cholesky(&mut self.wn, col, col)
    }

    /// The subspace step from the Cauchy point `z`: the reduced gradient `r` at it, the model's
    /// minimiser over the free variables, projected on the box, or (when the projection turns
    /// the step uphill) the longest feasible fraction of the unprojected step.
    fn subspace_step(&mut self, x: &[f64], g: &[f64], z: &mut [f64], r: &mut [f64]) -> Result<(), Breakdown> {
        let (n, col, head, theta, nsub) = (self.n, self.col, self.head, self.theta, self.free);
        let col2 = 2 * col;
        // The reduced gradient (the original's cmprlb).
        let mut wa = vec![0.0; col2];
        if !self.constrained && col > 0 {
            for i in 0..n {
                r[i] = -g[i];
            }
        } else {
            for i in 0..nsub {
                let k = self.index[i];
                r[i] = -theta * (z[k] - x[k]) - g[k];
            }
            let c = self.c[..col2].to_vec();
            self.middle_product(&c, &mut wa)?;
            let mut pointer = head;
            for j in 0..col {
                let a1 = wa[j];
                let a2 = theta * wa[col + j];
                for i in 0..nsub {
                    let k = self.index[i];
                    r[i] = r[i] + self.wy[(k, pointer)] * a1 + self.ws[(k, pointer)] * a2;
                }
                pointer = self.next(pointer);
            }
        }
        if nsub == 0 {
            return Ok(());
        }
        // The model's minimiser over the free variables (the original's subsm).
        let mut wv = vec![0.0; col2];
        let mut pointer = head;
        for i in 0..col {
            let (mut t1, mut t2) = (0.0, 0.0);
            for j in 0..nsub {
                let k = self.index[j];
                t1 += self.wy[(k, pointer)] * r[j];
                t2 += self.ws[(k, pointer)] * r[j];
            }
            wv[i] = t1;
            wv[col + i] = theta * t2;
            pointer = self.next(pointer);
        }
        solve_upper(&self.wn, col2, &mut wv, true)?;
        for v in &mut wv[..col] {
            *v = -*v;
        }
        solve_upper(&self.wn, col2, &mut wv, false)?;
        let mut pointer = head;
        for jy in 0..col {
            let js = col + jy;
            for i in 0..nsub {
                let k = self.index[i];
                r[i] = r[i] + self.wy[(k, pointer)] * wv[jy] / theta + self.ws[(k, pointer)] * wv[js];
            }
            pointer = self.next(pointer);
        }
        let inverse = 1.0 / theta;
        for v in &mut r[..nsub] {
            *v *= inverse;
        }
        let cauchy_point = z.to_vec();
        let mut hit_bound = false;
        for i in 0..nsub {
            let k = self.index[i];
            let (dk, xk) = (r[i], z[k]);
            let (l, u) = (self.lower[k], self.upper[k]);
            match self.bounds[k] {
                Bound::Lower => {
                    z[k] = l.max(xk + dk);
                    hit_bound |= z[k] == l;
                }
                Bound::Both => {
                    z[k] = u.min(l.max(xk + dk));
                    hit_bound |= z[k] == l || z[k] == u;
                }
                Bound::Upper => {
                    z[k] = u.min(xk + dk);
                    hit_bound |= z[k] == u;
                }
                Bound::Free => z[k] = xk + dk,
            }
        }
        if !hit_bound {
            return Ok(());
        }
        let slope: f64 = (0..n).fold(0.0, |sum, i| sum + (z[i] - x[i]) * g[i]);
        if slope <= 0.0 {
            return Ok(());
        }
        z.copy_from_slice(&cauchy_point);
        let mut alpha = 1.0;
        let mut candidate = alpha;
        let mut blocking = 0;
        for i in 0..nsub {
            let k = self.index[i];
            let dk = r[i];
            if self.bounds[k] == Bound::Free {
                continue;
            }
            if dk < 0.0 && self.bounds[k].has_lower() {
                let room = self.lower[k] - z[k];
                if room >= 0.0 {
                    candidate = 0.0;
                } else if dk * alpha < room {
                    candidate = room / dk;
                }
            } else if dk > 0.0 && self.bounds[k].has_upper() {
                let room = self.upper[k] - z[k];
                if room <= 0.0 {
                    candidate = 0.0;
                } else if dk * alpha > room {
                    candidate = room / dk;
                }
            }
            if candidate < alpha {
                alpha = candidate;
                blocking = i;
            }
        }
        if alpha < 1.0 {
            let (dk, k) = (r[blocking], self.index[blocking]);
            if dk > 0.0 {
                z[k] = self.upper[k];
                r[blocking] = 0.0;
            } else if dk < 0.0 {
                z[k] = self.lower[k];
                r[blocking] = 0.0;
            }
        }
        for i in 0..nsub {
            let k = self.index[i];
            z[k] += alpha * r[i];
        }
        Ok(())
    }

    /// The first trial step along `d` (at most the distance to the box; on the first iteration
    /// of a problem not boxed on every side, a unit step in length) and the step's bound.
    fn line_search_start(&self, x: &[f64], d: &[f64]) -> LineStart {
        let dtd = dot(d, d);
        let norm = dtd.sqrt();
        let mut max_step: f64 = 1e10;
        if self.constrained {
            if self.iteration == 0 {
                max_step = 1.0;
            } else {
                for i in 0..self.n {
                    let a1 = d[i];
                    if self.bounds[i] == Bound::Free {
                        continue;
                    }
                    if a1 < 0.0 && self.bounds[i].has_lower() {
                        let a2 = self.lower[i] - x[i];
                        if a2 >= 0.0 {
                            max_step = 0.0;
                        } else if a1 * max_step < a2 {
                            max_step = a2 / a1;
                        }
                    } else if a1 > 0.0 && self.bounds[i].has_upper() {
                        let a2 = self.upper[i] - x[i];
                        if a2 <= 0.0 {
                            max_step = 0.0;
                        } else if a1 * max_step > a2 {
                            max_step = a2 / a1;
                        }
                    }
                }
            }
        }
        let step = if self.iteration == 0 && !self.boxed { (1.0 / norm).min(max_step) } else { 1.0 };
        LineStart { step, max_step, dtd }
    }

    /// Adds the step's correction pair `(s, y) = (d, r)` to the ring and its inner products.
    fn push_correction(&mut self, d: &[f64], r: &[f64], rr: f64, dr: f64, step: f64, dtd: f64) {
        let m = MEMORY;
        if self.updates <= m {
            self.col = self.updates;
            self.tail = (self.head + self.updates - 1) % m;
        } else {
            self.tail = self.next(self.tail);
            self.head = self.next(self.head);
        }
        let (tail, rows) = (self.tail, self.n);
        self.ws.data[tail * rows..(tail + 1) * rows].copy_from_slice(d);
        self.wy.data[tail * rows..(tail + 1) * rows].copy_from_slice(r);
        self.theta = rr / dr;
        let col = self.col;
        if self.updates > m {
            for j in 0..col - 1 {
                for i in 0..=j {
                    self.ss[(i, j)] = self.ss[(i + 1, j + 1)];
                }
                for i in j..col - 1 {
                    self.sy[(i, j)] = self.sy[(i + 1, j + 1)];
                }
            }
        }
        let mut pointer = self.head;
        for j in 0..col - 1 {
            self.sy[(col - 1, j)] = dot(d, self.wy.column(pointer));
            self.ss[(j, col - 1)] = dot(self.ws.column(pointer), d);
            pointer = self.next(pointer);
        }
        self.ss[(col - 1, col - 1)] = if step == 1.0 { dtd } else { step * step * dtd };
        self.sy[(col - 1, col - 1)] = dr;
    }

    /// Factorises `θ·SᵀS + L·D⁻¹·Lᵀ` into `wt`.
    fn form_t(&mut self) -> Result<(), Breakdown> {
        let (col, theta) = (self.col, self.theta);
        for j in 0..col {
            self.wt[(0, j)] = theta * self.ss[(0, j)];
        }
        for i in 1..col {
            for j in i..col {
                let mut sum = 0.0;
                for k in 0..i {
                    sum += self.sy[(i, k)] * self.sy[(j, k)] / self.sy[(k, k)];
                }
                self.wt[(i, j)] = sum + theta * self.ss[(i, j)];
            }
        }
        cholesky(&mut self.wt, 0, col)
    }
}

/// Moves the least of the heap `t` (with `order` alongside) to its last slot and restores the
/// heap on the others; builds the heap first when `build`.
fn heap_pop_least(t: &mut [f64], order: &mut [usize], build: bool) {
    let n = t.len();
    if build {
        for k in 2..=n {
            let (value, item) = (t[k - 1], order[k - 1]);
            let mut i = k;
            while i > 1 {
                let j = i / 2;
                if value < t[j - 1] {
                    t[i - 1] = t[j - 1];
                    order[i - 1] = order[j - 1];
                    i = j;
                } else {
                    break;
                }
            }
            t[i - 1] = value;
            order[i - 1] = item;
        }
    }
    if n > 1 {
        let (least, least_item) = (t[0], order[0]);
        let (value, item) = (t[n - 1], order[n - 1]);
        let mut i = 1;
        loop {
            let mut j = i + i;
            if j > n - 1 {
                break;
            }
            if t[j] < t[j - 1] {
                j += 1;
            }
            if t[j - 1] < value {
                t[i - 1] = t[j - 1];
                order[i - 1] = order[j - 1];
                i = j;
            } else {
                break;
            }
        }
        t[i - 1] = value;
        order[i - 1] = item;
        t[n - 1] = least;
        order[n - 1] = least_item;
    }
}

/// What the line search asks for next.
enum LineStep {
    Evaluate(f64),
    Done,
    Failed,
}

/// Moré and Thuente's line search (MINPACK-2's dcsrch) with L-BFGS-B's tolerances: sufficient
/// decrease 1e-3, curvature 0.9, relative interval width 0.1, steps within `[0, max_step]`.
struct LineSearch {
    step: f64,
    min_step: f64,
    max_step: f64,
    started: bool,
    bracketed: bool,
    stage: u8,
    f_init: f64,
    g_init: f64,
    g_test: f64,
    width: f64,
    width1: f64,
    stx: f64,
    fx: f64,
    gx: f64,
    sty: f64,
    fy: f64,
    gy: f64,
    st_min: f64,
    st_max: f64,
}

const FTOL_LINE: f64 = 1e-3;
const GTOL_LINE: f64 = 0.9;
const XTOL_LINE: f64 = 0.1;

impl LineSearch {
    fn new(step: f64, max_step: f64) -> Self {
        Self {
            step,
            min_step: 0.0,
            max_step,
            started: false,
            bracketed: false,
            stage: 1,
            f_init: 0.0,
            g_init: 0.0,
            g_test: 0.0,
            width: 0.0,
            width1: 0.0,
            stx: 0.0,
            fx: 0.0,
            gx: 0.0,
            sty: 0.0,
            fy: 0.0,
            gy: 0.0,
            st_min: 0.0,
            st_max: 0.0,
        }
    }

    /// Given `f` and its slope `g` at the current step, the next step to evaluate, or the end.
    fn next(&mut self, f: f64, g: f64) -> LineStep {
        if !self.started {
            self.started = true;
            if self.step < self.min_step || self.step > self.max_step || g >= 0.0 {
                return LineStep::Failed;
            }
            self.f_init = f;
            self.g_init = g;
            self.g_test = FTOL_LINE * g;
            self.width = self.max_step - self.min_step;
            self.width1 = self.width / 0.5;
            (self.stx, self.fx, self.gx) = (0.0, f, g);
            (self.sty, self.fy, self.gy) = (0.0, f, g);
            self.st_min = 0.0;
            self.st_max = self.step + 4.0 * self.step;
            return LineStep::Evaluate(self.step);
        }
        let stp = self.step;
        let f_test = self.f_init + stp * self.g_test;
        if self.stage == 1 && f <= f_test && g >= 0.0 {
            self.stage = 2;
        }
        let warning = (self.bracketed
            && (stp <= self.st_min || stp >= self.st_max || self.st_max - self.st_min <= XTOL_LINE * self.st_max))
            || (stp == self.max_step && f <= f_test && g <= self.g_test)
            || (stp == self.min_step && (f > f_test || g >= self.g_test));
        if warning || (f <= f_test && g.abs() <= GTOL_LINE * (-self.g_init)) {
            return LineStep::Done;
        }
        if self.stage == 1 && f <= self.fx && f > f_test {
            // The modified function ψ(α) = f(α) - f(0) - ftol·α·f'(0) until it is negative.
            let gt = self.g_test;
            let mut fxm = self.fx - self.stx * gt;
            let mut fym = self.fy - self.sty * gt;
            let mut gxm = self.gx - gt;
            let mut gym = self.gy - gt;
            let (fm, gm) = (f - stp * gt, g - gt);
            self.step_interval(&mut fxm, &mut gxm, &mut fym, &mut gym, fm, gm);
            self.fx = fxm + self.stx * gt;
            self.fy = fym + self.sty * gt;
            self.gx = gxm + gt;
            self.gy = gym + gt;
        } else {
            let (mut fx, mut gx, mut fy, mut gy) = (self.fx, self.gx, self.fy, self.gy);
            self.step_interval(&mut fx, &mut gx, &mut fy, &mut gy, f, g);
            (self.fx, self.gx, self.fy, self.gy) = (fx, gx, fy, gy);
        }
        if self.bracketed {
            if (self.sty - self.stx).abs() >= 0.66 * self.width1 {
                self.step = self.stx + 0.5 * (self.sty - self.stx);
            }
            self.width1 = self.width;
            self.width = (self.sty - self.stx).abs();
            self.st_min = self.stx.min(self.sty);
            self.st_max = self.stx.max(self.sty);
        } else {
            self.st_min = self.step + 1.1 * (self.step - self.stx);
            self.st_max = self.step + 4.0 * (self.step - self.stx);
        }
        self.step = self.step.max(self.min_step).min(self.max_step);
        if self.bracketed
            && (self.step <= self.st_min
                || self.step >= self.st_max
                || self.st_max - self.st_min <= XTOL_LINE * self.st_max)
        {
            self.step = self.stx;
        }
        LineStep::Evaluate(self.step)
    }

    /// One safeguarded step of the interval of uncertainty `[stx, sty]` given the trial at
    /// `step` (MINPACK-2's dcstep): cubic and quadratic interpolants chosen by the four cases.
    fn step_interval(&mut self, fx: &mut f64, dx: &mut f64, fy: &mut f64, dy: &mut f64, fp: f64, dp: f64) {
        let (stx, sty, stp) = (self.stx, self.sty, self.step);
        let (st_min, st_max) = (self.st_min, self.st_max);
        let sgnd = dp * (*dx / dx.abs());
        let stpf;
        if fp > *fx {
            let theta = 3.0 * (*fx - fp) / (stp - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s).powi(2) - (*dx / s) * (dp / s)).sqrt();
            if stp < stx {
                gamma = -gamma;
            }
            let p = (gamma - *dx) + theta;
            let q = ((gamma - *dx) + gamma) + dp;
            let stpc = stx + (p / q) * (stp - stx);
            let stpq = stx + ((*dx / ((*fx - fp) / (stp - stx) + *dx)) / 2.0) * (stp - stx);
            stpf = if (stpc - stx).abs() < (stpq - stx).abs() { stpc } else { stpc + (stpq - stpc) / 2.0 };
            self.bracketed = true;
        } else if sgnd < 0.0 {
            let theta = 3.0 * (*fx - fp) / (stp - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s).powi(2) - (*dx / s) * (dp / s)).sqrt();
            if stp > stx {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = ((gamma - dp) + gamma) + *dx;
            let stpc = stp + (p / q) * (stx - stp);
            let stpq = stp + (dp / (dp - *dx)) * (stx - stp);
            stpf = if (stpc - stp).abs() > (stpq - stp).abs() { stpc } else { stpq };
            self.bracketed = true;
        } else if dp.abs() < dx.abs() {
            let theta = 3.0 * (*fx - fp) / (stp - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s * (0.0f64).max((theta / s).powi(2) - (*dx / s) * (dp / s)).sqrt();
            if stp > stx {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = (gamma + (*dx - dp)) + gamma;
            let r = p / q;
            let stpc = if r < 0.0 && gamma != 0.0 {
                stp + r * (stx - stp)
            } else if stp > stx {
                st_max
            } else {
                st_min
            };
            let stpq = stp + (dp / (dp - *dx)) * (stx - stp);
            if self.bracketed {
                let closer = if (stpc - stp).abs() < (stpq - stp).abs() { stpc } else { stpq };
                stpf = if stp > stx {
                    (stp + 0.66 * (sty - stp)).min(closer)
                } else {
                    (stp + 0.66 * (sty - stp)).max(closer)
                };
            } else {
                let farther = if (stpc - stp).abs() > (stpq - stp).abs() { stpc } else { stpq };
                stpf = st_min.max(st_max.min(farther));
            }
        } else if self.bracketed {
            let theta = 3.0 * (fp - *fy) / (sty - stp) + *dy + dp;
            let s = theta.abs().max(dy.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s).powi(2) - (*dy / s) * (dp / s)).sqrt();
            if stp > sty {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = ((gamma - dp) + gamma) + *dy;
            stpf = stp + (p / q) * (sty - stp);
        } else if stp > stx {
            stpf = st_max;
        } else {
            stpf = st_min;
        }
        if fp > *fx {
            self.sty = stp;
            *fy = fp;
            *dy = dp;
        } else {
            if sgnd < 0.0 {
                self.sty = stx;
                *fy = *fx;
                *dy = *dx;
            }
            self.stx = stp;
            *fx = fp;
            *dx = dp;
        }
        self.step = stpf;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rosenbrock's function in four variables, its gradient into `g`.
    fn rosenbrock(x: &[f64], g: &mut [f64]) -> f64 {
        let mut f = 0.0;
        g.fill(0.0);
        for i in 0..x.len() - 1 {
            let (a, b) = (x[i + 1] - x[i] * x[i], 1.0 - x[i]);
            f += 100.0 * a * a + b * b;
            g[i] += -400.0 * a * x[i] - 2.0 * b;
            g[i + 1] += 200.0 * a;
        }
        f
    }

    /// What scipy 1.5.2's `minimize(rosen, x0, jac=True, method="L-BFGS-B", bounds=B)` returns
    /// (numpy 1.19.2, Python 3.8; same objective and gradient arithmetic): with a bound that binds
    /// and with a pinned variable the same points to the last bit, so every branch taken on the
    /// way (Cauchy point, subspace step, line search) was the original's.
    #[test]
    fn rosenbrock_lands_on_scipys_points() {
        let inf = f64::INFINITY;
        let free = minimize(rosenbrock, &[-1.2, 1.0, -1.2, 1.0], &[-inf; 4], &[inf; 4]);
        let scipy = [0.9999999317170094, 1.0000000864464134, 1.0000003454570134, 1.0000006915985389];
        for (v, expected) in free.iter().zip(scipy) {
            // 39 iterations in, the last bits differ (scipy's BLAS sums its own way).
            assert!((v - expected).abs() < 1e-13, "{free:?}");
        }
        let boxed = minimize(rosenbrock, &[0.0; 4], &[-2.0; 4], &[0.5, 2.0, 2.0, 2.0]);
        assert_eq!(boxed, [0.5, 0.26221321222519817, 0.07797600136694553, 0.006080247493297123]);
        let pinned = minimize(rosenbrock, &[0.3, 0.0, 0.0, 0.0], &[0.3, -inf, -inf, -inf], &[0.3, inf, inf, inf]);
        assert_eq!(pinned, [0.3, 0.10096932527222302, 0.019994828006721182, 0.00039983728161502123]);
    }

    #[test]
    fn heap_pops_in_increasing_order() {
        let mut t = [5.0, 1.0, 4.0, 2.0, 3.0];
        let mut order = [0, 1, 2, 3, 4];
        let mut popped = Vec::new();
        for left in (1..=5).rev() {
            heap_pop_least(&mut t[..left], &mut order[..left], left == 5);
            popped.push((t[left - 1], order[left - 1]));
        }
        assert_eq!(popped, vec![(1.0, 1), (2.0, 3), (3.0, 4), (4.0, 2), (5.0, 0)]);
    }
}
