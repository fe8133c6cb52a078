//! Sparse LDL' of a symmetric quasi-definite matrix given by its upper triangle, the up-looking
//! algorithm of T. Davis's LDL (ACM TOMS 2005) as ECOS bundles it, with ECOS's dynamic
//! regularisation: a pivot whose sign disagrees with the expected one (or is below `eps` in
//! magnitude) is replaced by `sign * delta`. Rows are visited in the order the elimination tree
//! yields them, so the sums run in the same order as ECOS's.
//!
//! The pattern of every row of `L` (the rows the elimination tree reaches, in the order LDL's
//! `ldl_numeric` stacks them) and where each entry of `L` lands depend on the pattern alone, so
//! [`Ldl::symbolic`] walks the tree once and every factorisation only does the arithmetic.

use crate::linalg::Csc;

/// One entry of row `k` of `L` as the factorisation computes it: from column `col`, stored at
/// `columns[at_column]` and `rows[at_row]`.
#[derive(Clone, Copy)]
struct Elimination {
    col: usize,
    at_column: usize,
    at_row: usize,
}

pub(crate) struct Ldl {
    n: usize,
    /// `L` (strictly lower part) column by column, `(row, value)`, column `j` at
    /// `lp[j]..lp[j + 1]` with its rows ascending.
    lp: Vec<usize>,
    columns: Vec<(usize, f64)>,
    /// `L` row by row, `(column, value)`, row `k` at `row_ptr[k]..row_ptr[k + 1]` with its columns
    /// ascending (for the forward solve), and in the factorisation's order (`elimination`).
    row_ptr: Vec<usize>,
    rows: Vec<(usize, f64)>,
    elimination: Vec<Elimination>,
    pub d: Vec<f64>,
    y: Vec<f64>,
}

impl Ldl {
    /// The elimination tree of the upper triangle `k`, the pattern of `L` and the order in which
    /// each row's entries are computed.
    pub fn symbolic(k: &Csc) -> Ldl {
        let n = k.ncols;
        let mut parent = vec![usize::MAX; n];
        let mut flag = vec![0usize; n];
        let mut lnz = vec![0usize; n];
        for col in 0..n {
            flag[col] = col;
            for p in k.colptr[col]..k.colptr[col + 1] {
                let mut i = k.rowval[p];
                while flag[i] != col {
                    if parent[i] == usize::MAX {
                        parent[i] = col;
                    }
                    lnz[i] += 1;
                    flag[i] = col;
                    i = parent[i];
                }
            }
        }
        let mut lp = vec![0usize; n + 1];
        for col in 0..n {
            lp[col + 1] = lp[col] + lnz[col];
        }
        let nnz = lp[n];
        // LDL's numeric pass: per column, each entry's path up the tree is found leaf first and
        // pushed onto a stack that fills from the end, so paths found later come out first.
        let mut columns = vec![(0usize, 0.0); nnz];
        let mut row_ptr = Vec::with_capacity(n + 1);
        let mut elimination = Vec::with_capacity(nnz);
        let mut filled = vec![0usize; n];
        let mut stack = vec![0usize; n];
        let mut path = Vec::with_capacity(n);
        row_ptr.push(0);
        for col in 0..n {
            flag[col] = col;
            let mut top = n;
            for p in k.colptr[col]..k.colptr[col + 1] {
                let mut i = k.rowval[p];
                path.clear();
                while flag[i] != col {
                    path.push(i);
                    flag[i] = col;
                    i = parent[i];
                }
                for &i in path.iter().rev() {
                    top -= 1;
                    stack[top] = i;
                }
            }
            for &i in &stack[top..n] {
                let at_column = lp[i] + filled[i];
                filled[i] += 1;
                columns[at_column].0 = col;
                elimination.push(Elimination { col: i, at_column, at_row: 0 });
            }
            row_ptr.push(elimination.len());
        }
        // Rows with their columns ascending: the columns in order, each entry appended to its row.
        let mut rows = vec![(0usize, 0.0); nnz];
        let mut at_row = vec![0usize; nnz];
        filled.fill(0);
        for j in 0..n {
            for q in lp[j]..lp[j + 1] {
                let r = columns[q].0;
                let at = row_ptr[r] + filled[r];
                filled[r] += 1;
                rows[at].0 = j;
                at_row[q] = at;
            }
        }
        for e in &mut elimination {
            e.at_row = at_row[e.at_column];
        }
        Ldl { n, lp, columns, row_ptr, rows, elimination, d: vec![0.0; n], y: vec![0.0; n] }
    }

    /// Factors the upper triangle `k` (same pattern as at `symbolic`), regularising pivots.
    pub fn numeric(&mut self, k: &Csc, sign: &[f64], eps: f64, delta: f64) {
        let y = &mut self.y;
        for col in 0..self.n {
            y[col] = 0.0;
            for p in k.colptr[col]..k.colptr[col + 1] {
                y[k.rowval[p]] = k.nzval[p];
            }
            let mut d = y[col];
            y[col] = 0.0;
            for e in &self.elimination[self.row_ptr[col]..self.row_ptr[col + 1]] {
                let i = e.col;
                let yi = y[i];
                y[i] = 0.0;
                for &(r, l) in &self.columns[self.lp[i]..e.at_column] {
                    y[r] -= l * yi;
                }
                let l_ki = yi / self.d[i];
                d -= l_ki * yi;
                self.columns[e.at_column].1 = l_ki;
                self.rows[e.at_row].1 = l_ki;
            }
            if sign[col] * d <= eps {
                d = sign[col] * delta;
            }
            self.d[col] = d;
        }
    }

    /// `x = L^-T D^-1 L^-1 x`. The forward pass goes row by row, each row's terms in ascending
    /// column order: every entry of `x` takes the same subtractions in the same order as in LDL's
    /// column sweep, read from registers instead of written back to memory each time.
    pub fn solve_in_place(&self, x: &mut [f64]) {
        for i in 0..self.n {
            let mut xi = x[i];
            for &(j, l) in &self.rows[self.row_ptr[i]..self.row_ptr[i + 1]] {
                xi -= l * x[j];
            }
            x[i] = xi;
        }
        for (xj, d) in x.iter_mut().zip(&self.d) {
            *xj /= d;
        }
        for j in (0..self.n).rev() {
            let mut xj = x[j];
            for &(i, l) in &self.columns[self.lp[j]..self.lp[j + 1]] {
                xj -= l * x[i];
            }
            x[j] = xj;
        }
    }
}
