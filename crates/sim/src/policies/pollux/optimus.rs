//! Optimus+Oracle+TunedJobs as Pollux's simulator runs it (`docs/pollux-semantics.md` §6): every
//! active job gets one GPU while they last, then GPUs go one at a time to the job whose
//! remaining time drops most, by the measured step times of a packed placement (the oracle) and
//! the remaining steps of the validation curves (one epoch short, as the original counts them);
//! batch sizes fixed at the workload's; a job whose GPU count is unchanged keeps its GPUs, the
//! others are placed on the nodes with the most free GPUs.

use super::frame::{Allocator, JobView, Nodes, keep_or_place, most_free_first};
use super::job::BatchRule;
use super::profile::Application;
use crate::core::JobSpec;
use std::collections::HashMap;

/// GPUs per node of the oracle's packed placement (a literal 4 in the original, not the
/// cluster's node size).
const PACKED_NODE_GPUS: u32 = 4;

/// The policy, with its memo of oracle step times.
#[derive(Debug, Default)]
pub struct PolluxOptimus {
    step_times: HashMap<(String, u32, u32), Result<f64, String>>,
}

/// Seconds per optimizer step of `app` at total batch `batch` on `replicas` GPUs packed onto
/// full 4-GPU nodes, accumulating as the original's predictor does (§6.3).
pub fn oracle_step_time(app: &Application, batch: u32, replicas: u32) -> Result<f64, String> {
    let mut placement = vec![PACKED_NODE_GPUS; (replicas / PACKED_NODE_GPUS) as usize];
    if !replicas.is_multiple_of(PACKED_NODE_GPUS) {
        placement.push(replicas % PACKED_NODE_GPUS);
    }
    let plan = app.fixed_batch_plan(batch, replicas, true);
    let (step, sync) = app.throughput(&placement, plan.atomic_bsz).ok_or_else(|| {
        format!(
            "{}: no step time for {replicas} GPUs at per-GPU batch {} (outside the profile)",
            app.name, plan.atomic_bsz
        )
    })?;
    Ok(step + (step - sync) * f64::from(plan.accum_steps))
}

impl PolluxOptimus {
    fn step_time(&mut self, app: &Application, batch: u32, replicas: u32) -> Result<f64, String> {
        self.step_times
            .entry((app.name.clone(), batch, replicas))
            .or_insert_with(|| oracle_step_time(app, batch, replicas))
            .clone()
    }

    /// Marginal gain of a job's `(k+1)`-th GPU: seconds of remaining time saved.
    fn gain(&mut self, job: &JobView<'_>, batch: u32, k: u32, remaining: f64) -> Result<f64, String> {
        Ok((self.step_time(job.app, batch, k)? - self.step_time(job.app, batch, k + 1)?) * remaining)
    }
}

/// Remaining optimizer steps as the oracle counts them (§6.2): from the cumulative count after
/// epoch row `epoch` to the last row, 1 once the last epoch is reached.
pub fn remaining_steps(app: &Application, batch: u32, epoch: usize) -> Result<f64, String> {
    let last = app.max_epochs - 1;
    if last <= epoch {
        return Ok(1.0);
    }
    let at = |e| {
        app.iteration(f64::from(batch), e).ok_or_else(|| format!("{}: batch {batch} outside the profile", app.name))
    };
    Ok(at(last)? - at(epoch)?)
}

impl Allocator for PolluxOptimus {
    fn batch_rule(&self, spec: &JobSpec, _app: &Application) -> Result<BatchRule, String> {
        spec.batch_size.map(BatchRule::Fixed).ok_or_else(|| "the workload gives no batch size (batch_size)".to_string())
    }

    fn allocate(&mut self, _now: i64, jobs: &[JobView<'_>], nodes: Nodes) -> Result<Vec<Vec<u32>>, String> {
        let batches: Vec<u32> = jobs
            .iter()
            .map(|j| j.spec.batch_size.ok_or_else(|| format!("job {}: no batch size", j.spec.id)))
            .collect::<Result<_, _>>()?;
        let caps: Vec<u32> = jobs
            .iter()
            .zip(&batches)
            .map(|(j, &b)| if j.app.name == "ncf" { 1 } else { b / j.app.min_local })
            .collect();
        let remaining: Vec<f64> = jobs
            .iter()
            .zip(&batches)
            .map(|(j, &b)| remaining_steps(j.app, b, j.sim.epoch))
            .collect::<Result<_, _>>()?;
        let mut free = nodes.total();
        let mut counts = vec![0u32; jobs.len()];
        let mut gains = vec![0.0f64; jobs.len()];
        for i in 0..jobs.len() {
            if free < 1 {
                continue;
            }
            counts[i] = 1;
            free -= 1;
            if counts[i] < caps[i] && free >= 1 {
                gains[i] = self.gain(&jobs[i], batches[i], 1, remaining[i])?;
            }
        }
        while free > 0 {
            // The first job with the largest gain (dict order in the original).
            let best = gains.iter().enumerate().fold(None, |best: Option<(usize, f64)>, (i, &g)| match best {
                Some((_, b)) if b >= g => best,
                _ => Some((i, g)),
            });
            let Some((i, gain)) = best.filter(|&(_, g)| g > 0.0) else { break };
            debug_assert!(gain > 0.0);
            counts[i] += 1;
            gains[i] = if counts[i] < caps[i] && free >= 1 {
                self.gain(&jobs[i], batches[i], counts[i], remaining[i])?
            } else {
                0.0
            };
            free -= 1;
        }
        Ok(keep_or_place(jobs, &counts, nodes, most_free_first))
    }
}
