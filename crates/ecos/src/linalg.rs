//! Compressed-column matrices and the dense kernels ECOS uses, each summing in ECOS's order
//! (`spla.c`): the order of floating-point sums is part of landing on ECOS's iterates.

use crate::Error;

/// A sparse matrix in compressed-column form (the layout scipy's `csc_matrix` hands to ECOS).
#[derive(Clone, Debug, PartialEq)]
pub struct Csc {
    pub nrows: usize,
    pub ncols: usize,
    /// `colptr[j]..colptr[j + 1]` are column `j`'s entries; `ncols + 1` long.
    pub colptr: Vec<usize>,
    pub rowval: Vec<usize>,
    pub nzval: Vec<f64>,
}

impl Csc {
    pub fn nnz(&self) -> usize {
        self.nzval.len()
    }

    pub(crate) fn check(&self, name: &str) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Dimensions(format!("{name}: {what}")));
        if self.colptr.len() != self.ncols + 1 {
            return bad(format!("{} column pointers for {} columns", self.colptr.len(), self.ncols));
        }
        if self.colptr[0] != 0 || self.colptr.windows(2).any(|w| w[0] > w[1]) {
            return bad("column pointers do not start at 0 and rise".into());
        }
        let nnz = self.colptr[self.ncols];
        if self.rowval.len() != nnz || self.nzval.len() != nnz {
            return bad(format!(
                "{nnz} entries by the column pointers, {} rows and {} values",
                self.rowval.len(),
                self.nzval.len()
            ));
        }
        if let Some(&row) = self.rowval.iter().find(|&&r| r >= self.nrows) {
            return bad(format!("row {row} in a matrix of {} rows", self.nrows));
        }
        Ok(())
    }

    /// The transpose, its columns filled in the order the rows are met column by column.
    pub(crate) fn transpose(&self) -> Csc {
        let mut count = vec![0usize; self.nrows];
        for &r in &self.rowval {
            count[r] += 1;
        }
        let mut colptr = vec![0usize; self.nrows + 1];
        for r in 0..self.nrows {
            colptr[r + 1] = colptr[r] + count[r];
        }
        let mut next = colptr[..self.nrows].to_vec();
        let mut rowval = vec![0usize; self.nnz()];
        let mut nzval = vec![0.0; self.nnz()];
        for j in 0..self.ncols {
            for k in self.colptr[j]..self.colptr[j + 1] {
                let q = next[self.rowval[k]];
                next[self.rowval[k]] += 1;
                rowval[q] = j;
                nzval[q] = self.nzval[k];
            }
        }
        Csc { nrows: self.ncols, ncols: self.nrows, colptr, rowval, nzval }
    }

    /// `y = M x`.
    pub(crate) fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        self.mul_add(x, y);
    }

    /// `y += M x`, column by column.
    pub(crate) fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        for (j, &xj) in x.iter().enumerate().take(self.ncols) {
            for k in self.colptr[j]..self.colptr[j + 1] {
                y[self.rowval[k]] += self.nzval[k] * xj;
            }
        }
    }

    /// `y -= M x`, column by column.
    pub(crate) fn mul_sub(&self, x: &[f64], y: &mut [f64]) {
        for (j, &xj) in x.iter().enumerate().take(self.ncols) {
            for k in self.colptr[j]..self.colptr[j + 1] {
                y[self.rowval[k]] -= self.nzval[k] * xj;
            }
        }
    }

    /// `y -= M' x`, one entry of `y` per column, without forming the transpose.
    pub(crate) fn tmul_sub(&self, x: &[f64], y: &mut [f64]) {
        for (j, yj) in y.iter_mut().enumerate().take(self.ncols) {
            for k in self.colptr[j]..self.colptr[j + 1] {
                *yj -= self.nzval[k] * x[self.rowval[k]];
            }
        }
    }
}

/// C's `MAX(a, b)`, `a < b ? b : a`: with a NaN it returns `a`, as ECOS's macro does.
pub(crate) fn max(a: f64, b: f64) -> f64 {
    if a < b { b } else { a }
}

/// `x / y`, with `y` below `eps` taken as `eps` (ECOS's `SAFEDIV_POS`).
pub(crate) fn safe_div(x: f64, y: f64) -> f64 {
    if y < EPS { x / EPS } else { x / y }
}

/// ECOS's dynamic regularisation threshold, also the floor of its safe divisions.
pub(crate) const EPS: f64 = 1e-13;

pub(crate) fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (a, b) in x.iter().zip(y) {
        sum += a * b;
    }
    sum
}

pub(crate) fn norm2(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

/// The largest magnitude; NaNs are skipped, as ECOS's comparisons skip them. The result does not
/// depend on the order the entries are met in (a maximum of magnitudes, `+0.0` at least), so it is
/// taken over four interleaved lanes, which lets the comparisons run side by side.
pub(crate) fn norm_inf(v: &[f64]) -> f64 {
    let larger = |norm: f64, x: f64| {
        let magnitude = x.abs();
        if magnitude > norm { magnitude } else { norm }
    };
    let mut lanes = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane = larger(*lane, x);
        }
    }
    let mut norm = lanes.into_iter().fold(0.0, larger);
    for &x in tail {
        norm = larger(norm, x);
    }
    norm
}
