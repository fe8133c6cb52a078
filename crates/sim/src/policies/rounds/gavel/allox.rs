//! `gavel-allox`: AlloX (EuroSys'20) as Gavel re-implements it — a non-preemptive assignment of
//! waiting single-GPU jobs to free GPUs that minimises the sum of their completion times.
//!
//! Rule (`docs/gavel-semantics.md` §9.5; Gavel `policies/allox.py` at c4fa400, `AlloXPolicy`):
//! a job keeps a whole GPU type once given one, until it finishes. The others, oldest first (at
//! most `max(int(alpha * m), free GPUs)` of the `m`), are assigned to (GPU, position) slots of
//! the free GPUs, where a job in the `k`-th position from the end of a GPU's queue costs
//! `(k + 1) * remaining steps / throughput on that GPU + time since arrival` (a zero throughput
//! counts as 1e-10 steps/s); the minimum-cost assignment ([`super::assignment`], scipy's
//! algorithm, so equal-cost choices are the original's) puts on each GPU first the job furthest
//! from the end, which gets that GPU's type. Only single-GPU jobs: the original asserts it, and
//! blox refuses a multi-GPU job before the run (`blox validate` names it), as the mechanism does
//! any job it cannot run.

use super::assignment::min_cost_assignment;
use super::mechanism::{Allocation, AllocationInput, Allocator};
use crate::core::{JobId, PolicyError};
use std::collections::BTreeMap;

pub struct Allox {
    alpha: f64,
    /// Each job's allocation of the last call.
    previous: BTreeMap<JobId, Vec<f64>>,
}

impl Allox {
    pub fn new(alpha: f64) -> Self {
        Self { alpha, previous: BTreeMap::new() }
    }
}

impl Allocator for Allox {
    fn shuffles_types(&self) -> bool {
        false
    }

    fn check_scale_factor(&self, scale_factor: u32) -> Result<(), String> {
        if scale_factor == 1 {
            return Ok(());
        }
        Err(format!(
            "gavel-allox schedules single-GPU jobs only (AlloX is defined for them and Gavel's copy asserts it); \
             this job asks for {scale_factor} GPUs"
        ))
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let (jobs, types) = (input.jobs, input.types);
        let holds_a_type = |id: &JobId| self.previous.get(id).is_some_and(|row| row.iter().sum::<f64>() == 1.0);
        let mut waiting: Vec<usize> = (0..jobs.len()).filter(|&i| !holds_a_type(&jobs[i].id)).collect();

        // Free GPUs, type by type in name order.
        let mut gpu_type: Vec<usize> = Vec::new();
        for (t, &capacity) in types.capacity.iter().enumerate() {
            let held = jobs.iter().filter(|j| holds_a_type(&j.id) && self.previous[&j.id][t] == 1.0).count();
            gpu_type.extend(std::iter::repeat_n(t, (capacity as usize).saturating_sub(held)));
        }
        let gpus = gpu_type.len();

        waiting.sort_by(|&a, &b| jobs[b].age.total_cmp(&jobs[a].age));
        let keep = ((self.alpha * waiting.len() as f64) as usize).max(gpus);
        waiting.truncate(keep);
        let m = waiting.len();

        let mut first_on_gpu: Vec<Option<usize>> = vec![None; gpus];
        if m > 0 && gpus > 0 {
            let columns = m * gpus;
            let mut cost = vec![0.0; m * columns];
            for (row, &i) in waiting.iter().enumerate() {
                let job = &jobs[i];
                for (g, &t) in gpu_type.iter().enumerate() {
                    let rate = if job.throughput[t] == 0.0 { 1e-10 } else { job.throughput[t] };
                    let processing = job.remaining_steps / rate;
                    for k in 0..m {
                        cost[row * columns + k * gpus + g] = (k + 1) as f64 * processing + job.age;
                    }
                }
            }
            let assignment = min_cost_assignment(&cost, m, columns).ok_or_else(|| {
                PolicyError(format!("gavel-allox: the assignment of {m} jobs to {gpus} GPUs has no finite cost"))
            })?;
            // Per GPU, its jobs by position; the one furthest from the end runs first.
            let mut queued: Vec<Vec<(usize, usize)>> = vec![Vec::new(); gpus];
            for (row, &column) in assignment.iter().enumerate() {
                queued[column % gpus].push((waiting[row], column / gpus));
            }
            for (g, entries) in queued.iter().enumerate() {
                let count = entries.len() as i64;
                first_on_gpu[g] = entries.iter().min_by_key(|&&(_, k)| count - 1 - k as i64).map(|&(i, _)| i);
            }
        }

        let mut rows: Vec<Vec<f64>> = jobs
            .iter()
            .map(|j| self.previous.get(&j.id).cloned().unwrap_or_else(|| vec![0.0; types.capacity.len()]))
            .collect();
        for (g, first) in first_on_gpu.iter().enumerate() {
            if let Some(i) = *first {
                rows[i][gpu_type[g]] = 1.0;
            }
        }
        self.previous = jobs.iter().map(|j| j.id).zip(rows.iter().cloned()).collect();
        Ok(Allocation { jobs: rows, pairs: Vec::new() })
    }
}
