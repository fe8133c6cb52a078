//! Ruiz equilibration as ECOS applies it before solving (`equil.c`): three rounds of dividing
//! every row of `[A; G]` and every column by the square root of its largest magnitude, with the
//! rows of one second-order cone sharing one factor (the sum of their row maxima) so the scaled
//! cone is still a cone.

use crate::linalg::{Csc, max};

/// Rounds of Ruiz scaling (ECOS's `EQUIL_ITERS`).
const ROUNDS: usize = 3;

/// The accumulated scalings: `x` per column, `a` per row of `A`, `g` per row of `G`.
pub(crate) struct Scaling {
    pub x: Vec<f64>,
    pub a: Vec<f64>,
    pub g: Vec<f64>,
}

/// Scales `a`, `g`, `b` and `h` in place and returns the factors (`c` is scaled by the solver).
pub(crate) fn equilibrate(
    a: &mut Option<Csc>,
    g: &mut Csc,
    b: &mut [f64],
    h: &mut [f64],
    orthant: usize,
    soc: &[usize],
) -> Scaling {
    let n = g.ncols;
    let mut scaling = Scaling { x: vec![1.0; n], a: vec![1.0; b.len()], g: vec![1.0; h.len()] };
    let mut col = vec![0.0; n];
    let mut arow = vec![0.0; b.len()];
    let mut grow = vec![0.0; h.len()];
    for _ in 0..ROUNDS {
        col.fill(0.0);
        arow.fill(0.0);
        grow.fill(0.0);
        if let Some(a) = a.as_ref() {
            col_max(a, &mut col);
        }
        col_max(g, &mut col);
        if let Some(a) = a.as_ref() {
            row_max(a, &mut arow);
        }
        row_max(g, &mut grow);
        let mut start = orthant;
        for &size in soc {
            let mut total = 0.0;
            for v in &grow[start..start + size] {
                total += v;
            }
            grow[start..start + size].fill(total);
            start += size;
        }
        for v in col.iter_mut().chain(arow.iter_mut()).chain(grow.iter_mut()) {
            *v = if v.abs() < 1e-6 { 1.0 } else { v.sqrt() };
        }
        if let Some(a) = a.as_mut() {
            divide_rows(a, &arow);
        }
        divide_rows(g, &grow);
        if let Some(a) = a.as_mut() {
            divide_cols(a, &col);
        }
        divide_cols(g, &col);
        for (s, v) in scaling.x.iter_mut().zip(&col) {
            *s *= v;
        }
        for (s, v) in scaling.a.iter_mut().zip(&arow) {
            *s *= v;
        }
        for (s, v) in scaling.g.iter_mut().zip(&grow) {
            *s *= v;
        }
    }
    for (v, s) in b.iter_mut().zip(&scaling.a) {
        *v /= s;
    }
    for (v, s) in h.iter_mut().zip(&scaling.g) {
        *v /= s;
    }
    scaling
}

fn col_max(m: &Csc, out: &mut [f64]) {
    for (j, o) in out.iter_mut().enumerate().take(m.ncols) {
        for k in m.colptr[j]..m.colptr[j + 1] {
            *o = max(m.nzval[k].abs(), *o);
        }
    }
}

fn row_max(m: &Csc, out: &mut [f64]) {
    for k in 0..m.nnz() {
        let r = m.rowval[k];
        out[r] = max(m.nzval[k].abs(), out[r]);
    }
}

fn divide_rows(m: &mut Csc, by: &[f64]) {
    for k in 0..m.nnz() {
        m.nzval[k] /= by[m.rowval[k]];
    }
}

fn divide_cols(m: &mut Csc, by: &[f64]) {
    for j in 0..m.ncols {
        for k in m.colptr[j]..m.colptr[j + 1] {
            m.nzval[k] /= by[j];
        }
    }
}
