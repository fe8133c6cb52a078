//! Sparse LDL' of a symmetric quasi-definite matrix given by its upper triangle, the up-looking
//! algorithm of T. Davis's LDL (ACM TOMS 2005) as ECOS bundles it, with ECOS's dynamic
//! regularisation: a pivot whose sign disagrees with the expected one (or is below `eps` in
//! magnitude) is replaced by `sign * delta`. Rows are visited in the order the elimination tree
//! yields them, so the sums run in the same order as ECOS's.

use crate::linalg::Csc;

pub(crate) struct Ldl {
    n: usize,
    parent: Vec<Option<usize>>,
    /// Column pointers of `L` (strictly lower part, column-wise).
    lp: Vec<usize>,
    li: Vec<usize>,
    lx: Vec<f64>,
    pub d: Vec<f64>,
    lnz: Vec<usize>,
    y: Vec<f64>,
    pattern: Vec<usize>,
    flag: Vec<usize>,
}

impl Ldl {
    /// The elimination tree and column counts of `L` for the upper triangle `k`.
    pub fn symbolic(k: &Csc) -> Ldl {
        let n = k.ncols;
        let mut parent = vec![None; n];
        let mut flag = vec![0usize; n];
        let mut lnz = vec![0usize; n];
        for col in 0..n {
            flag[col] = col;
            for p in k.colptr[col]..k.colptr[col + 1] {
                let mut i = k.rowval[p];
                while flag[i] != col {
                    if parent[i].is_none() {
                        parent[i] = Some(col);
                    }
                    lnz[i] += 1;
                    flag[i] = col;
                    i = parent[i].expect("the tree reaches col from every row above it");
                }
            }
        }
        let mut lp = vec![0usize; n + 1];
        for col in 0..n {
            lp[col + 1] = lp[col] + lnz[col];
        }
        let nnz = lp[n];
        Ldl {
            n,
            parent,
            lp,
            li: vec![0; nnz],
            lx: vec![0.0; nnz],
            d: vec![0.0; n],
            lnz,
            y: vec![0.0; n],
            pattern: vec![0; n],
            flag,
        }
    }

    /// Factors the upper triangle `k` (same pattern as at `symbolic`), regularising pivots.
    pub fn numeric(&mut self, k: &Csc, sign: &[f64], eps: f64, delta: f64) {
        let n = self.n;
        for col in 0..n {
            self.y[col] = 0.0;
            let mut top = n;
            self.flag[col] = col;
            self.lnz[col] = 0;
            for p in k.colptr[col]..k.colptr[col + 1] {
                let mut i = k.rowval[p];
                self.y[i] = k.nzval[p];
                let mut len = 0;
                while self.flag[i] != col {
                    self.pattern[len] = i;
                    len += 1;
                    self.flag[i] = col;
                    i = self.parent[i].expect("the tree reaches col from every row above it");
                }
                while len > 0 {
                    top -= 1;
                    len -= 1;
                    self.pattern[top] = self.pattern[len];
                }
            }
            self.d[col] = self.y[col];
            self.y[col] = 0.0;
            while top < n {
                let i = self.pattern[top];
                let yi = self.y[i];
                self.y[i] = 0.0;
                let end = self.lp[i] + self.lnz[i];
                for (&r, &l) in self.li[self.lp[i]..end].iter().zip(&self.lx[self.lp[i]..end]) {
                    self.y[r] -= l * yi;
                }
                let l_ki = yi / self.d[i];
                self.d[col] -= l_ki * yi;
                self.li[end] = col;
                self.lx[end] = l_ki;
                self.lnz[i] += 1;
                top += 1;
            }
            if sign[col] * self.d[col] <= eps {
                self.d[col] = sign[col] * delta;
            }
        }
    }

    /// `x = L^-T D^-1 L^-1 b`.
    pub fn solve(&self, b: &[f64], x: &mut [f64]) {
        x.copy_from_slice(b);
        for j in 0..self.n {
            let xj = x[j];
            let range = self.lp[j]..self.lp[j + 1];
            for (&i, &l) in self.li[range.clone()].iter().zip(&self.lx[range]) {
                x[i] -= l * xj;
            }
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
