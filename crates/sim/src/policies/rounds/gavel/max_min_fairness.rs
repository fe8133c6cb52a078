//! `gavel-max-min-fairness`, `-perf` and `-packed`: Gavel's LAS (least attained
//! service as max-min fairness over time shares of GPU types).
//!
//! Rule (`docs/gavel-semantics.md` §9.6; Gavel `policies/max_min_fairness.py` at c4fa400,
//! `MaxMinFairnessPolicyWithPerf`, and `proportional.py`): maximise the smallest normalised rate
//! `sum_w T[i][w] * sf_i / T_prop_i * x[i][w]` over the base constraints, where `T_prop_i` is the
//! job's rate under the proportional split (`N_w / sum N` of each type). The heterogeneity-aware
//! `-perf` variant uses the oracle's throughputs; the agnostic one (`max_min_fairness`) sets every
//! throughput to 1, so only GPU time counts, and the mechanism shuffles the type order every
//! round. Priority weights are 1, as in every published run. Solved with Clarabel ([`super::lp`]).
//!
//! `gavel-max-min-fairness-packed` (`max_min_fairness_packed`, `MaxMinFairnessPolicyWithPacking`)
//! adds a row per pair of jobs sharing GPUs ([`super::packing`]): a job's rate counts its
//! throughput beside each partner on the pair's share.

use super::lp::{BaseProblem, Outcome};
use super::mechanism::{Allocation, AllocationInput, Allocator};
use super::packing::PackedRows;
use crate::core::PolicyError;

pub struct MaxMinFairness {
    /// Use the oracle's throughputs (`_perf`) rather than 1 everywhere.
    pub aware: bool,
    /// Also allocate to pairs of jobs sharing GPUs (`_packed`; implies `aware`).
    pub packing: bool,
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
        let m = jobs.len() as f64;
        let capacity: Vec<f64> = input.types.capacity.iter().map(|&c| f64::from(c)).collect();
        // The proportional split as Gavel computes it: N_w / m per job, over the row's sum.
        let row: Vec<f64> = capacity.iter().map(|&n| n / m).collect();
        let row_sum: f64 = row.iter().sum();
        let proportional: Vec<f64> = row.iter().map(|&x| x / row_sum).collect();
        let rates = |throughput: &[f64]| -> Vec<f64> {
            if self.aware { throughput.to_vec() } else { vec![1.0; throughput.len()] }
        };
        let proportional_rate: Vec<f64> =
            jobs.iter().map(|job| rates(&job.throughput).iter().zip(&proportional).map(|(r, x)| r * x).sum()).collect();
        let unsolved =
            || PolicyError(format!("the max-min fairness program over {} jobs could not be solved", jobs.len()));
        if self.packing {
            let rows = PackedRows::of(input);
            let problem = rows.problem(&capacity);
            let scale: Vec<f64> = proportional_rate.iter().map(|r| 1.0 / r).collect();
            return match problem.max_min(&rows.terms(input, &problem, &scale, true)) {
                Outcome::Optimal(mut x) | Outcome::Inaccurate(mut x) => {
                    let pairs = x.split_off(jobs.len());
                    Ok(Allocation { jobs: x, pairs })
                }
                Outcome::Failed => Err(unsolved()),
            };
        }
        let coefficient: Vec<Vec<f64>> = jobs
            .iter()
            .zip(&proportional_rate)
            .map(|(job, proportional_rate)| {
                let weight = 1.0 / proportional_rate;
                rates(&job.throughput).iter().map(|&r| r * weight * f64::from(job.scale_factor)).collect()
            })
            .collect();
        let scale_factors: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let problem = BaseProblem { scale_factors: &scale_factors, capacity: &capacity, rows_of_job: None };
        match problem.max_min(&problem.own_terms(&coefficient)) {
            Outcome::Optimal(x) | Outcome::Inaccurate(x) => Ok(Allocation { jobs: x, pairs: Vec::new() }),
            Outcome::Failed => Err(unsolved()),
        }
    }
}
