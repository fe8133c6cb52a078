//! `gavel-finish-time-fairness`, `-perf` and `-packed`: Gavel's finish-time
//! fairness (Themis' objective on time shares of GPU types), and `gavel-isolated`, the allocation
//! it compares with.
//!
//! Rule (`docs/gavel-semantics.md` §9.8, §9.10; Gavel `policies/finish_time_fairness.py` at
//! c4fa400, `FinishTimeFairnessPolicyWithPerf`, and `isolated.py`): the isolated allocation gives
//! each job an equal `1/m` of every type's GPUs divided by its scale factor (the row scaled down
//! if its shares exceed 1). Finish-time fairness minimises the largest ratio
//! `(age_i + remaining_i / r_i) / (isolated time so far_i + remaining_i / isolated rate_i)`, where
//! `r_i` is the job's rate under the allocation, over the base constraints; the isolated time so
//! far accumulates, at every re-allocation, the steps done since the last one divided by the
//! isolated rate of then. The agnostic variant gives every type the job's V100 throughput (the
//! original's comment: other types have zeros) and has the mechanism shuffle the type order. A
//! solve that returns nothing falls back to the isolated allocation, as in the original; priority
//! weights are ignored there too. The program is convex, not linear: one second-order cone per
//! job, solved by Clarabel or, with `solver: ecos`, by ECOS on cvxpy's form of the original's
//! program ([`super::lp`]).
//!
//! `gavel-finish-time-fairness-packed` (`finish_time_fairness_packed`) adds a row per pair of
//! jobs sharing GPUs ([`super::packing`]); the isolated reference stays the jobs' own. Where the
//! original crashes on a failed solve (it does not fall back), blox falls back as `-perf` does.
//! It is solved with Clarabel.

use super::lp::{BaseProblem, Outcome, Solver};
use super::mechanism::{Allocation, AllocationInput, Allocator, JobView, Types};
use super::packing::PackedRows;
use crate::core::{JobId, PolicyError};
use std::collections::HashMap;

/// The isolated allocation's rows: `(N_w / m) / sf_i`, divided by `max(1, row sum)`.
fn isolated_rows(jobs: &[JobView], types: &Types) -> Vec<Vec<f64>> {
    let m = jobs.len() as f64;
    jobs.iter()
        .map(|job| {
            let row: Vec<f64> =
                types.capacity.iter().map(|&n| f64::from(n) / m / f64::from(job.scale_factor)).collect();
            let sum: f64 = row.iter().sum();
            let scale = sum.max(1.0);
            row.iter().map(|x| x / scale).collect()
        })
        .collect()
}

/// Gavel's `isolated` policy: every job its equal share of each type.
pub struct Isolated;

impl Allocator for Isolated {
    fn shuffles_types(&self) -> bool {
        true
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        Ok(Allocation { jobs: isolated_rows(input.jobs, input.types), pairs: Vec::new() })
    }
}

pub struct FinishTimeFairness {
    /// Use the oracle's throughputs per type (`_perf`) rather than the V100's everywhere.
    aware: bool,
    /// Also allocate to pairs of jobs sharing GPUs (`_packed`; implies `aware`).
    packing: bool,
    /// The solver of the programs of jobs alone (the packed program is Clarabel's).
    solver: Solver,
    /// Seconds the job would have run so far under its isolated allocations.
    isolated_time: HashMap<JobId, f64>,
    /// Each job's remaining steps and isolated rate at the previous re-allocation.
    previous: HashMap<JobId, (f64, f64)>,
}

impl FinishTimeFairness {
    pub fn new(aware: bool, packing: bool, solver: Solver) -> Self {
        Self { aware, packing, solver, isolated_time: HashMap::new(), previous: HashMap::new() }
    }
}

impl Allocator for FinishTimeFairness {
    fn shuffles_types(&self) -> bool {
        !self.aware
    }

    fn packs(&self) -> bool {
        self.packing
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let (jobs, types) = (input.jobs, input.types);
        if jobs.is_empty() {
            self.previous.clear();
            return Ok(Allocation::default());
        }
        let throughput: Vec<Vec<f64>> = if self.aware {
            jobs.iter().map(|j| j.throughput.clone()).collect()
        } else {
            let v100 = types.names.iter().position(|t| t.name() == "v100").ok_or_else(|| {
                PolicyError(
                    "gavel-finish-time-fairness reads every job's V100 throughput: the cluster has no `v100` GPUs"
                        .into(),
                )
            })?;
            jobs.iter().map(|j| vec![j.throughput[v100]; j.throughput.len()]).collect()
        };
        let isolated_rate: Vec<f64> = isolated_rows(jobs, types)
            .iter()
            .zip(&throughput)
            .map(|(x, rates)| x.iter().zip(rates).map(|(x, r)| x * r).sum())
            .collect();
        let mut denominator = Vec::with_capacity(jobs.len());
        for (job, &rate) in jobs.iter().zip(&isolated_rate) {
            if rate.is_nan() || rate <= 0.0 {
                return Err(PolicyError(format!(
                    "gavel-finish-time-fairness: job {} cannot run on any GPU type of the cluster",
                    job.id
                )));
            }
            let so_far = self.isolated_time.entry(job.id).or_insert(0.0);
            if let Some(&(remaining_then, rate_then)) = self.previous.get(&job.id) {
                *so_far += (remaining_then - job.remaining_steps) / rate_then;
            }
            denominator.push(*so_far + job.remaining_steps / rate);
        }
        let age: Vec<f64> = jobs.iter().map(|j| j.age).collect();
        let remaining: Vec<f64> = jobs.iter().map(|j| j.remaining_steps).collect();
        let capacity: Vec<f64> = types.capacity.iter().map(|&c| f64::from(c)).collect();
        let scale_factors: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let packed = self.packing.then(|| PackedRows::of(input));
        let problem = match &packed {
            Some(rows) => rows.problem(&capacity),
            None => BaseProblem { scale_factors: &scale_factors, capacity: &capacity, rows_of_job: None },
        };
        let rates = match &packed {
            Some(rows) => rows.terms(input, &problem, &vec![1.0; jobs.len()], false),
            None => problem.own_terms(&throughput),
        };
        let solver = if self.packing { Solver::Clarabel } else { self.solver };
        let outcome = problem.min_max_finish_time_ratio(&rates, &age, &remaining, &denominator, solver);
        self.previous = jobs.iter().zip(&isolated_rate).map(|(j, &rate)| (j.id, (j.remaining_steps, rate))).collect();
        self.isolated_time.retain(|id, _| self.previous.contains_key(id));
        Ok(match outcome {
            Outcome::Optimal(mut x) | Outcome::Inaccurate(mut x) => {
                let pairs = x.split_off(jobs.len());
                Allocation { jobs: x, pairs }
            }
            Outcome::Failed => Allocation {
                jobs: isolated_rows(jobs, types),
                pairs: vec![vec![0.0; types.capacity.len()]; input.pairs.len()],
            },
        })
    }
}
