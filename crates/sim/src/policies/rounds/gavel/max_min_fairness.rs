//! `gavel-max-min-fairness`, `-perf` and `-packed`: Gavel's LAS (least attained
//! service as max-min fairness over time shares of GPU types).
//!
//! Rule (`docs/gavel-semantics.md` §9.6; Gavel `policies/max_min_fairness.py` at c4fa400,
//! `MaxMinFairnessPolicyWithPerf`, and `proportional.py`): maximise the smallest normalised rate
//! `sum_w T[i][w] * sf_i / T_prop_i * x[i][w]` over the base constraints, where `T_prop_i` is the
//! job's rate under the proportional split (`N_w / sum N` of each type). The heterogeneity-aware
//! `-perf` variant uses the oracle's throughputs; the agnostic one (`max_min_fairness`) sets every
//! throughput to 1, so only GPU time counts, and the mechanism shuffles the type order every
//! round. Priority weights are 1, as in every published run. Solved with Clarabel or, with
//! `solver: ecos`, with ECOS on cvxpy's form of the original's program ([`super::lp`]).
//!
//! `gavel-max-min-fairness-packed` (`max_min_fairness_packed`, `MaxMinFairnessPolicyWithPacking`)
//! adds a row per pair of jobs sharing GPUs ([`super::packing`]): a job's rate counts its
//! throughput beside each partner on the pair's share.

use super::lp::{BaseProblem, Outcome, Solver};
use super::mechanism::{Allocation, AllocationInput, Allocator};
use super::packing::PackedRows;
use crate::core::PolicyError;

pub struct MaxMinFairness {
    /// Use the oracle's throughputs (`_perf`) rather than 1 everywhere.
    pub aware: bool,
    /// Also allocate to pairs of jobs sharing GPUs (`_packed`; implies `aware`).
    pub packing: bool,
    /// The solver of the programs of jobs alone (the packed program is Clarabel's).
    pub solver: Solver,
}

/// The proportional split as Gavel computes it (`ProportionalPolicy`): `N_w / m` per job, over
/// the row's sum.
fn proportional_split(capacity: &[f64], jobs: usize) -> Vec<f64> {
    let row: Vec<f64> = capacity.iter().map(|&n| n / jobs as f64).collect();
    let row_sum: f64 = row.iter().sum();
    row.iter().map(|&x| x / row_sum).collect()
}

/// Job `i`'s objective coefficients `T[i][w] * (1 / T_prop_i) * sf_i`, in the original's order
/// of operations (`throughputs * priority_weights` then `* scale_factors_array`).
pub(super) fn normalised_rates(throughput: &[Vec<f64>], scale_factors: &[f64], capacity: &[f64]) -> Vec<Vec<f64>> {
    let proportional = proportional_split(capacity, throughput.len());
    throughput
        .iter()
        .zip(scale_factors)
        .map(|(rates, &sf)| {
            let proportional_rate: f64 = rates.iter().zip(&proportional).map(|(r, x)| r * x).sum();
            let weight = 1.0 / proportional_rate;
            rates.iter().map(|&r| r * weight * sf).collect()
        })
        .collect()
}

impl Allocator for MaxMinFairness {
    fn shuffles_types(&self) -> bool {
        !self.aware
    }

    fn packs(&self) -> bool {
        self.packing
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let jobs = input.jobs;
        if jobs.is_empty() {
            return Ok(Allocation::default());
        }
        let capacity: Vec<f64> = input.types.capacity.iter().map(|&c| f64::from(c)).collect();
        let throughput: Vec<Vec<f64>> = jobs
            .iter()
            .map(|job| if self.aware { job.throughput.clone() } else { vec![1.0; job.throughput.len()] })
            .collect();
        let unsolved =
            || PolicyError(format!("the max-min fairness program over {} jobs could not be solved", jobs.len()));
        if self.packing {
            let rows = PackedRows::of(input);
            let problem = rows.problem(&capacity);
            let proportional = proportional_split(&capacity, jobs.len());
            let scale: Vec<f64> = throughput
                .iter()
                .map(|rates| 1.0 / rates.iter().zip(&proportional).map(|(r, x)| r * x).sum::<f64>())
                .collect();
            return match problem.max_min(&rows.terms(input, &problem, &scale, true), Solver::Clarabel) {
                Outcome::Optimal(mut x) | Outcome::Inaccurate(mut x) => {
                    let pairs = x.split_off(jobs.len());
                    Ok(Allocation { jobs: x, pairs })
                }
                Outcome::Failed => Err(unsolved()),
            };
        }
        let scale_factors: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let coefficient = normalised_rates(&throughput, &scale_factors, &capacity);
        let problem = BaseProblem { scale_factors: &scale_factors, capacity: &capacity, rows_of_job: None };
        match problem.max_min(&problem.own_terms(&coefficient), self.solver) {
            Outcome::Optimal(x) | Outcome::Inaccurate(x) => Ok(Allocation { jobs: x, pairs: Vec::new() }),
            Outcome::Failed => Err(unsolved()),
        }
    }
}
