//! ECOS's primal-dual interior-point method for linear and second-order cone programs, written
//! in Rust so that a program whose optimum is not unique lands on the point ECOS 2.0.10 returns.
//!
//! It solves
//!
//! ```text
//! minimise c'x   s.t.   A x = b,   G x + s = h,   s in K
//! ```
//!
//! with `K` the nonnegative orthant of dimension `l` followed by second-order cones of the given
//! sizes, exactly as ECOS takes its input. The algorithm follows A. Domahidi, E. Chu and S. Boyd,
//! "ECOS: An SOCP solver for embedded systems", ECC 2013, and the choices of ECOS's public source
//! (github.com/embotech/ecos, v2.0.10): the homogeneous self-dual embedding, Nesterov-Todd
//! scaling, Mehrotra's predictor-corrector, ECOS's initial point, Ruiz equilibration, the KKT
//! system with its sparse expansion of the cone scalings, static and dynamic regularisation, AMD
//! ordering, an up-looking sparse LDL', iterative refinement, the step-length rule, the stopping
//! tests and the exit codes. The arithmetic is done in ECOS's order (sums, products, the
//! refinement loop), so on the same data the iterates agree to rounding; see the README.

// The kernels index several vectors in step, in the order ECOS's C loops do; that order is what
// makes the iterates agree bit for bit, so index loops are kept over iterator chains.
#![allow(clippy::needless_range_loop)]

mod cones;
mod equilibrate;
mod ipm;
mod kkt;
mod ldl;
mod linalg;

pub use linalg::Csc;

/// ECOS's settings, with its defaults (`ecos.h` of v2.0.10).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Largest number of iterations.
    pub max_iters: usize,
    /// Primal and dual infeasibility tolerance.
    pub feastol: f64,
    /// Absolute tolerance on the duality gap.
    pub abstol: f64,
    /// Relative tolerance on the duality gap.
    pub reltol: f64,
    /// The reduced tolerances an iterate is held to when the full ones cannot be reached.
    pub feastol_inacc: f64,
    pub abstol_inacc: f64,
    pub reltol_inacc: f64,
    /// Fraction of the largest feasible step taken.
    pub gamma: f64,
    /// Dynamic regularisation: a pivot of the wrong sign or below `eps` becomes `delta`.
    pub delta: f64,
    pub eps: f64,
    /// Largest number of iterative-refinement steps per linear solve.
    pub nitref: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_iters: 100,
            feastol: 1e-8,
            abstol: 1e-8,
            reltol: 1e-8,
            feastol_inacc: 1e-4,
            abstol_inacc: 5e-5,
            reltol_inacc: 5e-5,
            gamma: 0.99,
            delta: 2e-7,
            eps: 1e-13,
            nitref: 9,
        }
    }
}

/// How a solve ended; [`Status::exit_flag`] is ECOS's `exitflag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Optimal,
    /// A certificate of primal infeasibility (`y`, `z` scaled by `1/tau`).
    PrimalInfeasible,
    /// A certificate of dual infeasibility: the program is unbounded.
    DualInfeasible,
    /// The three above, reached only to the reduced tolerances.
    OptimalInaccurate,
    PrimalInfeasibleInaccurate,
    DualInfeasibleInaccurate,
    MaxIterations,
    /// The search direction became unreliable (step too short, residuals blew up, NaN).
    Numerics,
    /// A slack or multiplier left its cone.
    OutsideCone,
}

impl Status {
    /// ECOS's integer exit code (`ECOS_OPTIMAL` = 0, ..., `ECOS_OUTCONE` = -3).
    pub fn exit_flag(self) -> i32 {
        match self {
            Status::Optimal => 0,
            Status::PrimalInfeasible => 1,
            Status::DualInfeasible => 2,
            Status::OptimalInaccurate => 10,
            Status::PrimalInfeasibleInaccurate => 11,
            Status::DualInfeasibleInaccurate => 12,
            Status::MaxIterations => -1,
            Status::Numerics => -2,
            Status::OutsideCone => -3,
        }
    }
}

/// A program in ECOS's input form. `g` is `m x n`, `a` is `p x n` (absent when `p = 0`); the rows
/// of `g` are the orthant's `orthant` rows followed by one block per entry of `soc`.
#[derive(Clone, Debug)]
pub struct Problem {
    pub c: Vec<f64>,
    pub g: Csc,
    pub h: Vec<f64>,
    pub a: Option<Csc>,
    pub b: Vec<f64>,
    pub orthant: usize,
    pub soc: Vec<usize>,
}

/// The solver's answer: the iterate ECOS reports (scaled back by `1/tau` and the equilibration).
#[derive(Clone, Debug)]
pub struct Solution {
    pub status: Status,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub s: Vec<f64>,
    /// ECOS's `info.iter`: the iteration at which it stopped.
    pub iterations: usize,
    pub pcost: f64,
    pub dcost: f64,
    pub pres: f64,
    pub dres: f64,
    pub gap: f64,
}

/// Malformed input, named in the problem's own terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Dimensions that do not fit together (which ones, and what was found).
    Dimensions(String),
    /// A value that is NaN or infinite (which vector or matrix).
    NotFinite(&'static str),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Dimensions(what) => write!(f, "problem dimensions do not fit: {what}"),
            Error::NotFinite(what) => write!(f, "{what} holds a value that is NaN or infinite"),
        }
    }
}

impl std::error::Error for Error {}

/// Solves `problem` the way ECOS 2.0.10 does with `settings`.
pub fn solve(problem: &Problem, settings: &Settings) -> Result<Solution, Error> {
    problem.check()?;
    Ok(ipm::Workspace::new(problem, settings).run())
}

impl Problem {
    fn check(&self) -> Result<(), Error> {
        let n = self.c.len();
        let m = self.h.len();
        let dims = |what: String| Err(Error::Dimensions(what));
        self.g.check("G")?;
        if self.g.ncols != n || self.g.nrows != m {
            return dims(format!("G is {}x{}, c has {n} entries and h {m}", self.g.nrows, self.g.ncols));
        }
        if self.soc.contains(&0) {
            return dims("a second-order cone of size 0".into());
        }
        let cone_rows = self.orthant + self.soc.iter().sum::<usize>();
        if cone_rows != m {
            return dims(format!("the cones cover {cone_rows} rows, G has {m}"));
        }
        match &self.a {
            Some(a) => {
                a.check("A")?;
                if a.ncols != n || a.nrows != self.b.len() {
                    return dims(format!("A is {}x{}, c has {n} entries and b {}", a.nrows, a.ncols, self.b.len()));
                }
            }
            None if !self.b.is_empty() => return dims(format!("b has {} entries but there is no A", self.b.len())),
            None => {}
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        for (name, v) in [("c", &self.c), ("h", &self.h), ("b", &self.b)] {
            if !finite(v) {
                return Err(Error::NotFinite(name));
            }
        }
        if !finite(&self.g.nzval) {
            return Err(Error::NotFinite("G"));
        }
        if self.a.as_ref().is_some_and(|a| !finite(&a.nzval)) {
            return Err(Error::NotFinite("A"));
        }
        Ok(())
    }
}
