//! `gavel-max-min-fairness` and `gavel-max-min-fairness-perf`: Gavel's LAS (least attained
//! service as max-min fairness over time shares of GPU types).
//!
//! Rule (`docs/gavel-semantics.md` §9.6; Gavel `policies/max_min_fairness.py` at c4fa400,
//! `MaxMinFairnessPolicyWithPerf`, and `proportional.py`): maximise the smallest normalised rate
//! `sum_w T[i][w] * sf_i / T_prop_i * x[i][w]` over the base constraints, where `T_prop_i` is the
//! job's rate under the proportional split (`N_w / sum N` of each type). The heterogeneity-aware
//! `-perf` variant uses the oracle's throughputs; the agnostic one (`max_min_fairness`) sets every
//! throughput to 1, so only GPU time counts, and the mechanism shuffles the type order every
//! round. Priority weights are 1, as in every published run. Solved with Clarabel ([`super::lp`]).

use super::lp::{BaseProblem, Outcome};
use super::mechanism::{Allocator, JobView, Types};
use crate::core::PolicyError;

pub struct MaxMinFairness {
    /// Use the oracle's throughputs (`_perf`) rather than 1 everywhere.
    pub aware: bool,
}

impl Allocator for MaxMinFairness {
    fn shuffles_types(&self) -> bool {
        !self.aware
    }

    fn allocate(&mut self, jobs: &[JobView], types: &Types) -> Result<Vec<Vec<f64>>, PolicyError> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let m = jobs.len() as f64;
        let capacity: Vec<f64> = types.capacity.iter().map(|&c| f64::from(c)).collect();
        // The proportional split as Gavel computes it: N_w / m per job, over the row's sum.
        let row: Vec<f64> = capacity.iter().map(|&n| n / m).collect();
        let row_sum: f64 = row.iter().sum();
        let proportional: Vec<f64> = row.iter().map(|&x| x / row_sum).collect();
        let coefficient: Vec<Vec<f64>> = jobs
            .iter()
            .map(|job| {
                let rates: Vec<f64> = if self.aware { job.throughput.clone() } else { vec![1.0; job.throughput.len()] };
                let proportional_rate: f64 = rates.iter().zip(&proportional).map(|(r, x)| r * x).sum();
                let weight = 1.0 / proportional_rate;
                rates.iter().map(|&r| r * weight * f64::from(job.scale_factor)).collect()
            })
            .collect();
        let scale_factors: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let problem = BaseProblem { scale_factors: &scale_factors, capacity: &capacity };
        match problem.max_min(&coefficient) {
            Outcome::Optimal(x) | Outcome::Inaccurate(x) => Ok(x),
            Outcome::Failed => {
                Err(PolicyError(format!("the max-min fairness program over {} jobs could not be solved", jobs.len())))
            }
        }
    }
}
