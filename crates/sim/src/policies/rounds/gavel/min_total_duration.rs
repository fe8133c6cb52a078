//! `gavel-min-total-duration`, `-perf` and `-packed`: Gavel's makespan policy.
//!
//! Rule (`docs/gavel-semantics.md` §9.9; Gavel `policies/min_total_duration.py` at c4fa400):
//! bisect on a horizon `T` in [100 s, 10^6 s] until the bounds are within 5 %, asking at each
//! step whether some allocation lets every job finish its remaining steps by `T`
//! (`sum_w T[i][w] x[i][w] >= remaining_i / T` over the base constraints); if none is feasible,
//! move the window up tenfold and bisect again. The allocation is the one found at the last
//! feasible `T`. The original's program maximises a constant, so any feasible point is "optimal"
//! and the solver's choice decides who gets slack (average JCT and makespan depend on it; §10.2):
//! `solver: ecos` returns the original's point (ECOS on cvxpy's form of its program), Clarabel
//! another interior point. Only a solve that ends optimal counts as feasible, as only cvxpy's
//! `optimal` does. The agnostic variant gives
//! every type the job's V100 throughput and has the mechanism shuffle the type order.
//!
//! `gavel-min-total-duration-packed` (`min_total_duration_packed`, the paper's "Gavel w/ SS")
//! adds a row per pair of jobs sharing GPUs ([`super::packing`]): a job's rate counts its
//! throughput beside each partner on the pair's share. It is solved with Clarabel.

use super::lp::{BaseProblem, Outcome, Solver, Terms};
use super::mechanism::{Allocation, AllocationInput, Allocator};
use super::packing::PackedRows;
use crate::core::PolicyError;

/// Horizons beyond this (about 3 million years) mean no allocation can finish some job.
const GIVE_UP_S: f64 = 1e14;

pub struct MinTotalDuration {
    /// Use the oracle's throughputs per type (`_perf`) rather than the V100's everywhere.
    pub aware: bool,
    /// Also allocate to pairs of jobs sharing GPUs (`_packed`; implies `aware`).
    pub packing: bool,
    /// The solver of the programs of jobs alone (the packed program is Clarabel's).
    pub solver: Solver,
}

impl Allocator for MinTotalDuration {
    fn shuffles_types(&self) -> bool {
        !self.aware
    }

    fn packs(&self) -> bool {
        self.packing
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let (jobs, types) = (input.jobs, input.types);
        if jobs.is_empty() {
            return Ok(Allocation::default());
        }
        let capacity: Vec<f64> = types.capacity.iter().map(|&c| f64::from(c)).collect();
        let packed = self.packing.then(|| PackedRows::of(input));
        let scale_factors: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let problem = match &packed {
            Some(rows) => rows.problem(&capacity),
            None => BaseProblem { scale_factors: &scale_factors, capacity: &capacity, rows_of_job: None },
        };
        let rates: Vec<Terms> = match &packed {
            Some(rows) => rows.terms(input, &problem, &vec![1.0; jobs.len()], false),
            None if self.aware => problem.own_terms(&jobs.iter().map(|j| j.throughput.clone()).collect::<Vec<_>>()),
            None => {
                let v100 = types.names.iter().position(|t| t.name() == "v100").ok_or_else(|| {
                    PolicyError(
                        "gavel-min-total-duration reads every job's V100 throughput: the cluster has no `v100` GPUs"
                            .into(),
                    )
                })?;
                problem
                    .own_terms(&jobs.iter().map(|j| vec![j.throughput[v100]; j.throughput.len()]).collect::<Vec<_>>())
            }
        };
        let solver = if self.packing { Solver::Clarabel } else { self.solver };
        let mut max_t = 1_000_000.0_f64;
        let mut min_t = 100.0_f64;
        let mut last_max_t = max_t;
        let mut feasible: Option<Vec<Vec<f64>>> = None;
        while feasible.is_none() {
            if last_max_t > GIVE_UP_S {
                return Err(PolicyError(format!(
                    "gavel-min-total-duration: no allocation lets all {} jobs finish (a job cannot run on any type)",
                    jobs.len()
                )));
            }
            while 1.05 * min_t < max_t {
                let t = (min_t + max_t) / 2.0;
                let min_rate: Vec<f64> = jobs.iter().map(|j| j.remaining_steps / t).collect();
                match problem.feasible_rates(&rates, &min_rate, solver) {
                    Outcome::Optimal(x) => {
                        feasible = Some(x);
                        max_t = t;
                    }
                    Outcome::Inaccurate(_) | Outcome::Failed => min_t = t,
                }
            }
            max_t = last_max_t * 10.0;
            min_t = last_max_t;
            last_max_t *= 10.0;
        }
        let mut x = feasible.expect("the loop ends with an allocation");
        let pairs = x.split_off(jobs.len());
        Ok(Allocation { jobs: x, pairs })
    }
}
