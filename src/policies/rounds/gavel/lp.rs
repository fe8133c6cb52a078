//! The linear programs of Gavel's policies over an allocation `x[job][type]`, solved with
//! Clarabel (a pure-Rust interior-point method).
//!
//! Every program shares Gavel's base constraints (`Policy.get_base_constraints`): `x >= 0`, the
//! GPUs given to a type's jobs fit it (`sum_i sf_i x[i][w] <= N_w`) and a job's shares add up to
//! at most 1. Their optima are rarely unique (max-min fixes only the smallest normalised rate, a
//! feasibility program nothing at all), so which point a solver returns decides the allocation.
//! Gavel solves with ECOS, an interior-point method whose points lie near the centre of the
//! optimal face; Clarabel's do too, which is why it is used here rather than a simplex
//! (`docs/gavel-semantics.md` §10).

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SecondOrderConeT, SolverStatus, SupportedConeT,
};

/// The jobs' scale factors and the types' GPU counts.
pub struct BaseProblem<'a> {
    pub scale_factors: &'a [f64],
    pub capacity: &'a [f64],
}

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
    fn jobs(&self) -> usize {
        self.scale_factors.len()
    }

    fn types(&self) -> usize {
        self.capacity.len()
    }

    fn var(&self, job: usize, t: usize) -> usize {
        job * self.types() + t
    }

    fn base_rows(&self) -> Rows {
        let (m, n) = (self.jobs(), self.types());
        let mut rows = Rows { entries: Vec::new(), rhs: Vec::new(), linear: 0, second_order: Vec::new() };
        for k in 0..m * n {
            rows.push([(k, -1.0)], 0.0);
        }
        for t in 0..n {
            rows.push((0..m).map(|i| (self.var(i, t), self.scale_factors[i])), self.capacity[t]);
        }
        for i in 0..m {
            rows.push((0..n).map(|t| (self.var(i, t), 1.0)), 1.0);
        }
        rows
    }

    /// Maximises `min_i sum_w coefficient[i][w] x[i][w]` (Gavel's max-min fairness, epigraph form).
    pub fn max_min(&self, coefficient: &[Vec<f64>]) -> Outcome {
        let epigraph = self.jobs() * self.types();
        let mut rows = self.base_rows();
        for (i, row) in coefficient.iter().enumerate() {
            let terms = row.iter().enumerate().map(|(t, &c)| (self.var(i, t), -c));
            rows.push(terms.chain([(epigraph, 1.0)]), 0.0);
        }
        let mut objective = vec![0.0; epigraph + 1];
        objective[epigraph] = -1.0;
        self.solve(rows, objective)
    }

    /// Any allocation under which every job `i` runs at least `min_rate[i]` steps per second
    /// given `throughput[i][w]` on each type (Gavel's makespan feasibility check).
    pub fn feasible_rates(&self, throughput: &[Vec<f64>], min_rate: &[f64]) -> Outcome {
        let mut rows = self.base_rows();
        for (i, row) in throughput.iter().enumerate() {
            rows.push(row.iter().enumerate().map(|(t, &rate)| (self.var(i, t), -rate)), -min_rate[i]);
        }
        self.solve(rows, vec![0.0; self.jobs() * self.types()])
    }

    /// Minimises the largest finish-time ratio `(age_i + remaining_i / r_i) / isolated_i`, where
    /// `r_i = sum_w throughput[i][w] x[i][w]` (Gavel's finish-time fairness), in the form cvxpy
    /// gives the original's program: `s_i >= 1 / r_i` (`inv_pos`) as the cone
    /// `|(2, r_i - s_i)| <= r_i + s_i`, and the ratios `(age_i + remaining_i s_i) / isolated_i`
    /// bounded by the objective variable. The optimal face is large (only the largest ratio is
    /// fixed), so which point an interior-point method stops at depends on the formulation; this
    /// one follows the original's.
    pub fn min_max_finish_time_ratio(
        &self,
        throughput: &[Vec<f64>],
        age: &[f64],
        remaining: &[f64],
        isolated: &[f64],
    ) -> Outcome {
        let m = self.jobs();
        let inverse = |i: usize| m * self.types() + i;
        let bound = m * self.types() + m;
        let mut rows = self.base_rows();
        for i in 0..m {
            let coefficient = remaining[i] / isolated[i];
            rows.push([(inverse(i), coefficient), (bound, -1.0)], -age[i] / isolated[i]);
        }
        rows.linear = rows.rhs.len();
        for (i, rates) in throughput.iter().enumerate() {
            let rate = || rates.iter().enumerate().map(move |(w, &r)| (self.var(i, w), -r));
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
            (0..self.jobs()).map(|i| (0..self.types()).map(|t| x[self.var(i, t)].clamp(0.0, 1.0)).collect()).collect()
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
        let problem = BaseProblem { scale_factors: &[1.0; 4], capacity: &[36.0; 3] };
        let Outcome::Optimal(x) = problem.max_min(&vec![vec![1.0; 3]; 4]) else { panic!("solved") };
        for row in &x {
            for &share in row {
                assert!((share - 1.0 / 3.0).abs() < 1e-6, "{x:?}");
            }
        }
    }

    /// Two 1-GPU jobs on one GPU: max-min splits it; rates above what fits are infeasible.
    #[test]
    fn feasibility_and_max_min_on_a_tiny_cluster() {
        let problem = BaseProblem { scale_factors: &[1.0, 1.0], capacity: &[1.0] };
        let Outcome::Optimal(x) = problem.max_min(&[vec![1.0], vec![1.0]]) else { panic!("solved") };
        assert!((x[0][0] - 0.5).abs() < 1e-6 && (x[1][0] - 0.5).abs() < 1e-6, "{x:?}");
        let rates = [vec![10.0], vec![10.0]];
        assert!(matches!(problem.feasible_rates(&rates, &[4.0, 4.0]), Outcome::Optimal(_)));
        assert_eq!(problem.feasible_rates(&rates, &[6.0, 6.0]), Outcome::Failed);
    }

    /// Two jobs on one GPU, equal work, one waited 100 s longer: finish-time fairness gives the
    /// older job more of the GPU, so that both ratios are equal at the optimum.
    #[test]
    fn finish_time_fairness_equalises_the_ratios() {
        let problem = BaseProblem { scale_factors: &[1.0, 1.0], capacity: &[1.0] };
        let throughput = [vec![1.0], vec![1.0]];
        let (age, remaining, isolated) = ([100.0, 0.0], [1000.0, 1000.0], [2000.0, 2000.0]);
        let Outcome::Optimal(x) = problem.min_max_finish_time_ratio(&throughput, &age, &remaining, &isolated) else {
            panic!("solved")
        };
        let ratio = |i: usize| (age[i] + remaining[i] / x[i][0]) / isolated[i];
        assert!((x[0][0] + x[1][0] - 1.0).abs() < 1e-6, "the GPU is fully shared: {x:?}");
        assert!(x[0][0] > x[1][0], "{x:?}");
        assert!((ratio(0) - ratio(1)).abs() < 1e-4, "{} vs {}", ratio(0), ratio(1));
    }
}
