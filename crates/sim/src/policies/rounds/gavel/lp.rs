//! The programs of Gavel's policies over an allocation `x[job][type]`, solved with Clarabel or
//! with ECOS on cvxpy's canonical form ([`Solver`]).
//!
//! Every program shares Gavel's base constraints (`Policy.get_base_constraints`): `x >= 0`, the
//! GPUs given to a type's jobs fit it (`sum_i sf_i x[i][w] <= N_w`) and a job's shares add up to
//! at most 1. Their optima are rarely unique (max-min fixes only the smallest normalised rate, a
//! feasibility program nothing at all), so which point a solver returns decides the allocation.
//! Gavel solves with ECOS (cvxpy's default for these programs); `Solver::Ecos` hands
//! [`blox_ecos`] the data cvxpy hands ECOS ([`super::ecos_form`]) and so lands on the original's
//! point. Clarabel, another interior-point method, lands near it: the same optimal values with
//! the slack shared differently, which moves JCTs (`docs/gavel-semantics.md` §10.2).

use super::ecos_form::{self, Layout};
use super::solve_memo::{Key, Memo};
use blox_ecos::{Settings, Status};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SecondOrderConeT, SolverStatus, SupportedConeT,
};
use serde::Deserialize;
use std::cell::RefCell;

/// ECOS's status and `x` for a program (`None`: malformed input).
type EcosSolution = Option<(Status, Vec<f64>)>;

thread_local! {
    /// The programs solved on this thread.
    static ECOS_SOLUTIONS: RefCell<Memo<EcosSolution>> = RefCell::new(Memo::default());
}

/// Which interior-point method solves a policy's programs; their optima are rarely unique, so
/// the choice decides the allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Solver {
    /// Clarabel on blox's own formulation.
    Clarabel,
    /// ECOS 2.0 ([`blox_ecos`]) on the program as cvxpy 1.9 gives it to ECOS: the original's
    /// default, and its point, so blox's too. Programs of jobs alone only (the packed variants
    /// solve with Clarabel).
    #[default]
    Ecos,
}

impl Solver {
    pub fn name(self) -> &'static str {
        match self {
            Solver::Clarabel => "clarabel",
            Solver::Ecos => "ecos",
        }
    }
}

/// The allocation rows (a job, or a pair of jobs sharing GPUs), their GPUs per worker set
/// (scale factors) and the types' GPU counts.
pub struct BaseProblem<'a> {
    pub scale_factors: &'a [f64],
    pub capacity: &'a [f64],
    /// The rows each job takes part in (its own row and its pairs'), whose shares add up to at
    /// most 1; `None` when row `i` is job `i` alone.
    pub rows_of_job: Option<&'a [Vec<usize>]>,
}

/// A job's rate as a sum of `coefficient * x[variable]` terms (see [`BaseProblem::var`]).
pub type Terms = Vec<(usize, f64)>;

/// What a solve found.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// cvxpy's `optimal`: the allocation, clipped to [0, 1] as Gavel clips it.
    Optimal(Vec<Vec<f64>>),
    /// `optimal_inaccurate`: a point of reduced accuracy, which Gavel's max-min uses with a
    /// warning and its bisections count as infeasible.
    Inaccurate(Vec<Vec<f64>>),
    /// Infeasible, or the solver gave up.
    Failed,
}

/// Rows of the program in Clarabel's form `b - A z in K`, by variable index: first the linear
/// rows `a . z <= b` (the nonnegative cone), then any second-order-cone blocks.
struct Rows {
    entries: Vec<(usize, usize, f64)>,
    rhs: Vec<f64>,
    linear: usize,
    second_order: Vec<usize>,
}

impl Rows {
    fn push(&mut self, terms: impl IntoIterator<Item = (usize, f64)>, rhs: f64) {
        let row = self.rhs.len();
        self.entries.extend(terms.into_iter().map(|(col, value)| (row, col, value)));
        self.rhs.push(rhs);
    }

    fn cones(&self) -> Vec<SupportedConeT<f64>> {
        let mut cones = vec![NonnegativeConeT(self.linear)];
        cones.extend(self.second_order.iter().map(|&dim| SecondOrderConeT(dim)));
        cones
    }
}

impl BaseProblem<'_> {
    fn rows(&self) -> usize {
        self.scale_factors.len()
    }

    /// Solves the ECOS form built by [`super::ecos_form`], mapping ECOS's exit as cvxpy does:
    /// `optimal`, `optimal_inaccurate`, or nothing usable.
    /// A program bit-identical to one solved before on this thread is answered from
    /// [`solve_memo`] (the solve is a deterministic function of the data).
    fn solve_ecos(&self, (program, layout): (blox_ecos::Problem, Layout)) -> Outcome {
        debug_assert!(self.rows_of_job.is_none(), "the ECOS forms are for jobs alone");
        let mut key = Key::default();
        key.floats(&program.c).floats(&program.h).floats(&program.b).usize(program.orthant).usizes(&program.soc);
        for matrix in [Some(&program.g), program.a.as_ref()] {
            match matrix {
                Some(m) => key.usize(m.nrows).usize(m.ncols).usizes(&m.colptr).usizes(&m.rowval).floats(&m.nzval),
                None => key.usize(usize::MAX),
            };
        }
        let solved = Memo::get_or_solve(
            &ECOS_SOLUTIONS,
            key,
            || blox_ecos::solve(&program, &Settings::default()).ok().map(|solution| (solution.status, solution.x)),
            |solved| solved.as_ref().map_or(0, |(_, x)| 8 * x.len()),
        );
        match solved {
            Some((Status::Optimal, x)) => Outcome::Optimal(layout.allocation(&x)),
            Some((Status::OptimalInaccurate, x)) => Outcome::Inaccurate(layout.allocation(&x)),
            _ => Outcome::Failed,
        }
    }

    fn jobs(&self) -> usize {
        self.rows_of_job.map_or(self.rows(), <[_]>::len)
    }

    fn types(&self) -> usize {
        self.capacity.len()
    }

    /// The variable of `row`'s share of type `t`.
    pub fn var(&self, row: usize, t: usize) -> usize {
        row * self.types() + t
    }

    /// Terms of jobs that run alone: `rates[i][w]` on row `i`.
    pub fn own_terms(&self, rates: &[Vec<f64>]) -> Vec<Terms> {
        rates
            .iter()
            .enumerate()
            .map(|(i, row)| row.iter().enumerate().map(|(t, &r)| (self.var(i, t), r)).collect())
            .collect()
    }

    fn base_rows(&self) -> Rows {
        let (m, n) = (self.rows(), self.types());
        let mut rows = Rows { entries: Vec::new(), rhs: Vec::new(), linear: 0, second_order: Vec::new() };
        for k in 0..m * n {
            rows.push([(k, -1.0)], 0.0);
        }
        for t in 0..n {
            rows.push((0..m).map(|i| (self.var(i, t), self.scale_factors[i])), self.capacity[t]);
        }
        match self.rows_of_job {
            None => {
                for i in 0..m {
                    rows.push((0..n).map(|t| (self.var(i, t), 1.0)), 1.0);
                }
            }
            Some(rows_of_job) => {
                for own in rows_of_job {
                    rows.push(own.iter().flat_map(|&i| (0..n).map(move |t| (i * n + t, 1.0))), 1.0);
                }
            }
        }
        rows
    }

    /// Maximises the smallest job rate (Gavel's max-min fairness, epigraph form).
    pub fn max_min(&self, rates: &[Terms], solver: Solver) -> Outcome {
        if solver == Solver::Ecos {
            return self.solve_ecos(ecos_form::max_min(self, rates));
        }
        let epigraph = self.rows() * self.types();
        let mut rows = self.base_rows();
        for terms in rates {
            rows.push(terms.iter().map(|&(k, c)| (k, -c)).chain([(epigraph, 1.0)]), 0.0);
        }
        let mut objective = vec![0.0; epigraph + 1];
        objective[epigraph] = -1.0;
        self.solve(rows, objective)
    }

    /// Any allocation under which every job `i` runs at least `min_rate[i]` steps per second
    /// (Gavel's makespan feasibility check).
    pub fn feasible_rates(&self, rates: &[Terms], min_rate: &[f64], solver: Solver) -> Outcome {
        if solver == Solver::Ecos {
            return self.solve_ecos(ecos_form::feasibility(self, rates, min_rate));
        }
        let mut rows = self.base_rows();
        for (terms, &min) in rates.iter().zip(min_rate) {
            rows.push(terms.iter().map(|&(k, rate)| (k, -rate)), -min);
        }
        self.solve(rows, vec![0.0; self.rows() * self.types()])
    }

    /// Minimises the largest finish-time ratio `(age_i + remaining_i / r_i) / isolated_i`, where
    /// `r_i` is job `i`'s rate (Gavel's finish-time fairness), in the form cvxpy
    /// gives the original's program: `s_i >= 1 / r_i` (`inv_pos`) as the cone
    /// `|(2, r_i - s_i)| <= r_i + s_i`, and the ratios `(age_i + remaining_i s_i) / isolated_i`
    /// bounded by the objective variable. The optimal face is large (only the largest ratio is
    /// fixed), so which point an interior-point method stops at depends on the formulation; this
    /// one follows the original's.
    pub fn min_max_finish_time_ratio(
        &self,
        rates: &[Terms],
        age: &[f64],
        remaining: &[f64],
        isolated: &[f64],
        solver: Solver,
    ) -> Outcome {
        if solver == Solver::Ecos {
            return self.solve_ecos(ecos_form::finish_time(self, rates, age, remaining, isolated));
        }
        let m = self.jobs();
        let inverse = |i: usize| self.rows() * self.types() + i;
        let bound = self.rows() * self.types() + m;
        let mut rows = self.base_rows();
        for i in 0..m {
            let coefficient = remaining[i] / isolated[i];
            rows.push([(inverse(i), coefficient), (bound, -1.0)], -age[i] / isolated[i]);
        }
        rows.linear = rows.rhs.len();
        for (i, terms) in rates.iter().enumerate() {
            let rate = || terms.iter().map(|&(k, r)| (k, -r));
            // r + s, 2, r - s; each as b - A z.
            rows.push(rate().chain([(inverse(i), -1.0)]), 0.0);
            rows.push([], 2.0);
            rows.push(rate().chain([(inverse(i), 1.0)]), 0.0);
            rows.second_order.push(3);
        }
        let mut objective = vec![0.0; bound + 1];
        objective[bound] = 1.0;
        self.solve(rows, objective)
    }

    fn solve(&self, mut rows: Rows, objective: Vec<f64>) -> Outcome {
        if rows.second_order.is_empty() {
            rows.linear = rows.rhs.len();
        }
        let variables = objective.len();
        let constraints = rows.rhs.len();
        let mut by_column: Vec<Vec<(usize, f64)>> = vec![Vec::new(); variables];
        for &(row, col, value) in &rows.entries {
            by_column[col].push((row, value));
        }
        let mut colptr = Vec::with_capacity(variables + 1);
        let mut rowval = Vec::with_capacity(rows.entries.len());
        let mut nzval = Vec::with_capacity(rows.entries.len());
        colptr.push(0);
        for column in &by_column {
            for &(row, value) in column {
                rowval.push(row);
                nzval.push(value);
            }
            colptr.push(rowval.len());
        }
        let a = CscMatrix::new(constraints, variables, colptr, rowval, nzval);
        let p = CscMatrix::zeros((variables, variables));
        let cones = rows.cones();
        let settings = DefaultSettingsBuilder::default().verbose(false).build().expect("valid default settings");
        let Ok(mut solver) = DefaultSolver::new(&p, &objective, &a, &rows.rhs, &cones, settings) else {
            return Outcome::Failed;
        };
        solver.solve();
        let allocation = || {
            let x = &solver.solution.x;
            (0..self.rows()).map(|i| (0..self.types()).map(|t| x[self.var(i, t)].clamp(0.0, 1.0)).collect()).collect()
        };
        match solver.solution.status {
            SolverStatus::Solved => Outcome::Optimal(allocation()),
            SolverStatus::AlmostSolved => Outcome::Inaccurate(allocation()),
            _ => Outcome::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gavel's heterogeneity-agnostic LAS on 4 single-GPU jobs and 36:36:36: every job gets a
    /// third of each type, the centre of the optimal face, as ECOS returns
    /// (`docs/gavel-semantics.md` Appendix B.2); a simplex would return a vertex.
    #[test]
    fn max_min_returns_the_central_optimum() {
        let problem = BaseProblem { scale_factors: &[1.0; 4], capacity: &[36.0; 3], rows_of_job: None };
        let Outcome::Optimal(x) = problem.max_min(&problem.own_terms(&vec![vec![1.0; 3]; 4]), Solver::Clarabel) else {
            panic!("solved")
        };
        for row in &x {
            for &share in row {
                assert!((share - 1.0 / 3.0).abs() < 1e-6, "{x:?}");
            }
        }
    }

    /// Two 1-GPU jobs on one GPU: max-min splits it; rates above what fits are infeasible.
    #[test]
    fn feasibility_and_max_min_on_a_tiny_cluster() {
        let problem = BaseProblem { scale_factors: &[1.0, 1.0], capacity: &[1.0], rows_of_job: None };
        let Outcome::Optimal(x) = problem.max_min(&problem.own_terms(&[vec![1.0], vec![1.0]]), Solver::Clarabel) else {
            panic!("solved")
        };
        assert!((x[0][0] - 0.5).abs() < 1e-6 && (x[1][0] - 0.5).abs() < 1e-6, "{x:?}");
        let rates = problem.own_terms(&[vec![10.0], vec![10.0]]);
        assert!(matches!(problem.feasible_rates(&rates, &[4.0, 4.0], Solver::Clarabel), Outcome::Optimal(_)));
        assert_eq!(problem.feasible_rates(&rates, &[6.0, 6.0], Solver::Clarabel), Outcome::Failed);
    }

    /// Two jobs on one GPU, equal work, one waited 100 s longer: finish-time fairness gives the
    /// older job more of the GPU, so that both ratios are equal at the optimum.
    #[test]
    fn finish_time_fairness_equalises_the_ratios() {
        let problem = BaseProblem { scale_factors: &[1.0, 1.0], capacity: &[1.0], rows_of_job: None };
        let rates = problem.own_terms(&[vec![1.0], vec![1.0]]);
        let (age, remaining, isolated) = ([100.0, 0.0], [1000.0, 1000.0], [2000.0, 2000.0]);
        let Outcome::Optimal(x) =
            problem.min_max_finish_time_ratio(&rates, &age, &remaining, &isolated, Solver::Clarabel)
        else {
            panic!("solved")
        };
        let ratio = |i: usize| (age[i] + remaining[i] / x[i][0]) / isolated[i];
        assert!((x[0][0] + x[1][0] - 1.0).abs() < 1e-6, "the GPU is fully shared: {x:?}");
        assert!(x[0][0] > x[1][0], "{x:?}");
        assert!((ratio(0) - ratio(1)).abs() < 1e-4, "{} vs {}", ratio(0), ratio(1));
    }

    /// Two single-GPU jobs on one GPU that run at 80 % of their speed when they share it: max-min
    /// fairness packs them (each gets 0.8 of a GPU's speed instead of 0.5).
    #[test]
    fn max_min_packs_jobs_that_gain_from_sharing() {
        // Rows: job 0, job 1, the pair (0, 1).
        let rows_of_job = [vec![0, 2], vec![1, 2]];
        let problem = BaseProblem { scale_factors: &[1.0; 3], capacity: &[1.0], rows_of_job: Some(&rows_of_job) };
        let rates = [
            vec![(problem.var(0, 0), 1.0), (problem.var(2, 0), 0.8)],
            vec![(problem.var(1, 0), 1.0), (problem.var(2, 0), 0.8)],
        ];
        let Outcome::Optimal(x) = problem.max_min(&rates, Solver::Clarabel) else { panic!("solved") };
        assert!((x[2][0] - 1.0).abs() < 1e-6, "the pair holds the GPU: {x:?}");
        assert!(x[0][0] < 1e-6 && x[1][0] < 1e-6, "{x:?}");
    }
}
