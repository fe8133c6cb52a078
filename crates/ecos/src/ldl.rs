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

pub(crate) struct Ldl {
    n: usize,
    /// Column pointers of `L` (strictly lower part, column-wise) and each entry's row.
    lp: Vec<usize>,
    li: Vec<usize>,
    lx: Vec<f64>,
    pub d: Vec<f64>,
    /// Row `k` of `L`: the columns `row_cols[row_ptr[k]..row_ptr[k + 1]]` in the order the
    /// factorisation eliminates them, and the index in `lx` of each entry.
    row_ptr: Vec<usize>,
    row_cols: Vec<usize>,
    row_pos: Vec<usize>,
    /// `L` row by row with its columns ascending, for the forward solve: row `k` is
    /// `by_row_cols[row_ptr[k]..row_ptr[k + 1]]`; entry `q` of `lx` is `by_row_x[by_row_of[q]]`.
    by_row_cols: Vec<usize>,
    by_row_of: Vec<usize>,
    by_row_x: Vec<f64>,
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
        let mut li = vec![0usize; nnz];
        let mut row_ptr = Vec::with_capacity(n + 1);
        let mut row_cols = Vec::with_capacity(nnz);
        let mut row_pos = Vec::with_capacity(nnz);
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
                let pos = lp[i] + filled[i];
                filled[i] += 1;
                li[pos] = col;
                row_cols.push(i);
                row_pos.push(pos);
            }
            row_ptr.push(row_cols.len());
        }
        let mut by_row_cols = vec![0usize; nnz];
        let mut by_row_of = vec![0usize; nnz];
        filled.fill(0);
        for j in 0..n {
            for q in lp[j]..lp[j + 1] {
                let r = li[q];
                let at = row_ptr[r] + filled[r];
                filled[r] += 1;
                by_row_cols[at] = j;
                by_row_of[q] = at;
            }
        }
        Ldl {
            n,
            lp,
            li,
            lx: vec![0.0; nnz],
            d: vec![0.0; n],
            row_ptr,
            row_cols,
            row_pos,
            by_row_cols,
            by_row_of,
            by_row_x: vec![0.0; nnz],
            y: vec![0.0; n],
        }
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
            let row = self.row_ptr[col]..self.row_ptr[col + 1];
            for (&i, &pos) in self.row_cols[row.clone()].iter().zip(&self.row_pos[row]) {
                let yi = y[i];
                y[i] = 0.0;
                let start = self.lp[i];
                for (&r, &l) in self.li[start..pos].iter().zip(&self.lx[start..pos]) {
                    y[r] -= l * yi;
                }
                let l_ki = yi / self.d[i];
                d -= l_ki * yi;
                self.lx[pos] = l_ki;
                self.by_row_x[self.by_row_of[pos]] = l_ki;
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
            let range = self.row_ptr[i]..self.row_ptr[i + 1];
            for (&j, &l) in self.by_row_cols[range.clone()].iter().zip(&self.by_row_x[range]) {
                xi -= l * x[j];
            }
            x[i] = xi;
        }
        for (xj, d) in x.iter_mut().zip(&self.d) {
            *xj /= d;
        }
        for j in (0..self.n).rev() {
            let mut xj = x[j];
            let range = self.lp[j]..self.lp[j + 1];
            for (&i, &l) in self.li[range.clone()].iter().zip(&self.lx[range]) {
                xj -= l * x[i];
            }
            x[j] = xj;
        }
    }
}
