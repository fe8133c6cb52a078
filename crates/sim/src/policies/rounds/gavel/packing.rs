//! The rows of a packing policy's program (Gavel's `PolicyWithPacking`): a share variable per
//! job alone and per pair of jobs sharing GPUs, on every type.
//!
//! Rule (`docs/gavel-semantics.md` §9.7; Gavel `policies/policy.py` at c4fa400): a pair's row
//! takes its common scale factor of each type's GPUs; the shares of a job's own row and of its
//! pairs' rows add up to at most 1; a job's rate sums its throughput alone on its own row and its
//! throughput beside each partner on the pair's row, with every throughput rounded to `float32`
//! as the original stores the matrix. The per-job sums are the intended meaning: the code at
//! c4fa400 builds them by reshaping one vector into equal rows, which fails when jobs have
//! different numbers of pairs (any multi-GPU workload) — the published packed values predate it.

use super::lp::{BaseProblem, Terms};
use super::mechanism::AllocationInput;

pub struct PackedRows {
    /// Scale factor of every row: the jobs' own rows first, then the pairs'.
    pub scale_factors: Vec<f64>,
    /// For each job, its own row and its pairs' rows.
    pub rows_of_job: Vec<Vec<usize>>,
}

impl PackedRows {
    pub fn of(input: &AllocationInput) -> Self {
        let jobs = input.jobs.len();
        let mut scale_factors: Vec<f64> = input.jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        let mut rows_of_job: Vec<Vec<usize>> = (0..jobs).map(|i| vec![i]).collect();
        for (p, pair) in input.pairs.iter().enumerate() {
            let row = jobs + p;
            scale_factors.push(f64::from(input.jobs[pair.members.0].scale_factor));
            rows_of_job[pair.members.0].push(row);
            rows_of_job[pair.members.1].push(row);
        }
        Self { scale_factors, rows_of_job }
    }

    pub fn problem<'a>(&'a self, capacity: &'a [f64]) -> BaseProblem<'a> {
        BaseProblem { scale_factors: &self.scale_factors, capacity, rows_of_job: Some(&self.rows_of_job) }
    }

    /// Each job's rate terms, every throughput (as `float32`) multiplied by `scale[i]` of its job
    /// and by its row's scale factor when `times_scale_factor`.
    pub fn terms(
        &self,
        input: &AllocationInput,
        problem: &BaseProblem,
        scale: &[f64],
        times_scale_factor: bool,
    ) -> Vec<Terms> {
        let types = input.types.capacity.len();
        let stored = |rate: f64| f64::from(rate as f32);
        let mut terms: Vec<Terms> = Vec::with_capacity(input.jobs.len());
        for (i, job) in input.jobs.iter().enumerate() {
            let factor = |row: usize| if times_scale_factor { self.scale_factors[row] } else { 1.0 };
            let mut own: Terms =
                (0..types).map(|t| (problem.var(i, t), stored(job.throughput[t]) * factor(i) * scale[i])).collect();
            for &row in &self.rows_of_job[i][1..] {
                let pair = &input.pairs[row - input.jobs.len()];
                for t in 0..types {
                    let (low, high) = pair.throughput[t];
                    let rate = if pair.members.0 == i { low } else { high };
                    own.push((problem.var(row, t), stored(rate) * factor(row) * scale[i]));
                }
            }
            terms.push(own);
        }
        terms
    }
}
