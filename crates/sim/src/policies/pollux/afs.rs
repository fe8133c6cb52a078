//! AFS (Apathetic Future Share; Hwang et al., NSDI'21) on Pollux's job model, as DeepBoot's
//! simulator runs it (github.com/czq693497091/DeepBoot @ cc85a24, `afs.py`, a derivative of the
//! Pollux artifact's simulator; `docs/pollux-semantics.md` §11 and §17).
//!
//! At every interval the whole cluster is dealt out again, one GPU at a time (AFS-L), each to
//! the winner of a pass over the active jobs in arrival order that keeps a running winner and
//! compares it pairwise with the next job:
//! * both hold no GPU yet: the one with the shorter remaining time on one GPU wins (the later
//!   job on ties);
//! * otherwise the job holding more GPUs wins only if its relative throughput gain from one more
//!   GPU, `(X(k+1) − X(k)) / X(k+1)`, is strictly larger; ties go to the job with fewer GPUs (the
//!   later one when both hold as many). A job without GPUs has gain 1, the largest, so every
//!   job gets a first GPU (shortest first) before any gets a second.
//!
//! `X(k)` is samples per second at the job's fixed batch (the workload's, as for Pollux's
//! baselines) on `k` GPUs packed onto 4-GPU nodes, from the measured step times (the Optimus
//! oracle's step time, [`oracle_step_time`]); remaining time is the oracle's remaining steps
//! ([`remaining_steps`]) times the one-GPU step time. Placement: a job whose count is unchanged
//! keeps its GPUs; the others, fewest GPUs first, take the fullest node that still fits what
//! they need, else the node with the most free GPUs.
//!
//! One departure: DeepBoot offers every GPU with no cap, so a fixed-batch job can be offered a
//! GPU on which its per-GPU batch falls below the profile's measured range, where DeepBoot's
//! step-time lookup raises and the run stops. Here such a job sits out the rest of the deal
//! (its next GPU has no step time), and GPUs nobody can use stay idle: every decision DeepBoot
//! completes is reproduced unchanged.

use super::frame::{Allocator, JobView, Nodes, keep_or_place};
use super::job::BatchRule;
use super::optimus::{oracle_step_time, remaining_steps};
use super::profile::Application;
use crate::core::JobSpec;
use std::collections::HashMap;

/// The policy, with its memo of oracle throughputs by (application, batch, GPUs).
#[derive(Debug, Default)]
pub struct PolluxAfs {
    throughputs: HashMap<(usize, u32, u32), Option<f64>>,
}

/// Samples per second of `app` at total batch `batch` on `replicas` packed GPUs, as DeepBoot's
/// AFS predicts it; `None` outside the profile.
pub fn packed_throughput(app: &Application, batch: u32, replicas: u32) -> Option<f64> {
    let step = oracle_step_time(app, batch, replicas).ok()?;
    let plan = app.fixed_batch_plan(batch, replicas, true);
    Some(f64::from(replicas * plan.atomic_bsz * (plan.accum_steps + 1)) / step)
}

/// `(X(k+1) − X(k)) / X(k+1)` of job `j` holding `k` GPUs (`X(0) = 0`); `None` when it cannot
/// run on `k + 1`.
fn relative_gain(throughput: &mut impl FnMut(usize, u32) -> Option<f64>, j: usize, k: u32) -> Option<f64> {
    let next = throughput(j, k + 1)?;
    let now = if k == 0 { 0.0 } else { throughput(j, k)? };
    Some((next - now) / next)
}

/// GPU counts of `jobs` jobs (in arrival order) after dealing out `gpus` GPUs by AFS-L.
/// `throughput(j, k)` is job `j`'s rate on `k ≥ 1` GPUs, `None` where it cannot run (it then
/// takes no more GPUs); `remaining[j]` its remaining time on one GPU.
pub fn afs_counts(
    jobs: usize,
    gpus: u32,
    remaining: &[f64],
    mut throughput: impl FnMut(usize, u32) -> Option<f64>,
) -> Vec<u32> {
    let mut counts = vec![0u32; jobs];
    for _ in 0..gpus {
        let mut winner: Option<usize> = None;
        for j in 0..jobs {
            let Some(gain_j) = relative_gain(&mut throughput, j, counts[j]) else { continue };
            winner = Some(match winner {
                None => j,
                Some(w) if counts[w] == 0 && counts[j] == 0 => {
                    if remaining[w] < remaining[j] {
                        w
                    } else {
                        j
                    }
                }
                Some(w) => {
                    let gain_w = relative_gain(&mut throughput, w, counts[w]).expect("a winner can take a GPU");
                    let ((fewer, fewer_gain), (more, more_gain)) =
                        if counts[w] >= counts[j] { ((j, gain_j), (w, gain_w)) } else { ((w, gain_w), (j, gain_j)) };
                    if more_gain > fewer_gain { more } else { fewer }
                }
            });
        }
        let Some(w) = winner else { break };
        counts[w] += 1;
    }
    counts
}

/// Places `count` GPUs for one job as DeepBoot's AFS does: while GPUs are still needed, the
/// node with the fewest free GPUs among those that can hold all of them (lowest id on ties),
/// else all of the node with the most free GPUs (lowest id on ties). `free` is per node and
/// updated.
pub fn best_fit_first(free: &mut [u32], count: u32) -> Vec<u32> {
    let mut alloc = Vec::with_capacity(count as usize);
    while (alloc.len() as u32) < count {
        let need = count - alloc.len() as u32;
        let fullest_fit = (0..free.len()).filter(|&n| free[n] >= need).min_by_key(|&n| (free[n], n));
        let (node, take) = match fullest_fit {
            Some(node) => (node, need),
            None => {
                let node =
                    (0..free.len()).min_by_key(|&n| (std::cmp::Reverse(free[n]), n)).expect("a cluster has nodes");
                (node, free[node])
            }
        };
        assert!(take > 0, "placing {count} GPUs on a cluster without them");
        alloc.extend(std::iter::repeat_n(node as u32, take as usize));
        free[node] -= take;
    }
    alloc
}

impl PolluxAfs {
    fn throughput(&mut self, job: &JobView<'_>, batch: u32, replicas: u32) -> Option<f64> {
        *self
            .throughputs
            .entry((job.sim.app, batch, replicas))
            .or_insert_with(|| packed_throughput(job.app, batch, replicas))
    }
}

impl Allocator for PolluxAfs {
    fn batch_rule(&self, spec: &JobSpec, _app: &Application) -> Result<BatchRule, String> {
        spec.batch_size.map(BatchRule::Fixed).ok_or_else(|| "the workload gives no batch size (batch_size)".to_string())
    }

    fn allocate(&mut self, _now: i64, jobs: &[JobView<'_>], nodes: Nodes) -> Result<Vec<Vec<u32>>, String> {
        let batches: Vec<u32> = jobs
            .iter()
            .map(|j| j.spec.batch_size.ok_or_else(|| format!("job {}: no batch size", j.spec.id)))
            .collect::<Result<_, _>>()?;
        let mut remaining = Vec::with_capacity(jobs.len());
        for (job, &batch) in jobs.iter().zip(&batches) {
            let steps = remaining_steps(job.app, batch, job.sim.epoch)?;
            // A job that cannot run on one GPU never takes part; its remaining time is unread.
            let one = oracle_step_time(job.app, batch, 1).unwrap_or(f64::INFINITY);
            remaining.push(steps * one);
        }
        let counts = afs_counts(jobs.len(), nodes.total(), &remaining, |j, k| self.throughput(&jobs[j], batches[j], k));
        Ok(keep_or_place(jobs, &counts, nodes, best_fit_first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rates from per-job tables indexed by GPU count (index 0 unused); `None` past the end.
    fn tables(rates: &[&[f64]]) -> impl FnMut(usize, u32) -> Option<f64> {
        let rates: Vec<Vec<f64>> = rates.iter().map(|r| r.to_vec()).collect();
        move |j, k| rates[j].get(k as usize).copied()
    }

    #[test]
    fn first_gpus_go_shortest_first_and_ties_to_the_later_job() {
        // Three waiting jobs, two GPUs: the shortest (job 1, 5 s) then, since a job without GPUs
        // gains 1 and job 1's second GPU gains (2-1)/2, the shorter of jobs 0 and 2, which tie
        // at 10 s: the later, job 2.
        let linear: &[f64] = &[0.0, 1.0, 2.0];
        let counts = afs_counts(3, 2, &[10.0, 5.0, 10.0], tables(&[linear; 3]));
        assert_eq!(counts, [0, 1, 1]);
    }

    #[test]
    fn later_gpus_go_to_the_largest_relative_gain() {
        // Job 0 scales linearly (X = k), job 1 saturates (3, 4, 4.5). GPU 1: both wait, job 1 is
        // shorter. GPU 2: job 0 waits (gain 1) against job 1's (4-3)/4. GPU 3: job 0 gains 1/2
        // against 1/4. GPU 4: 1/3 against 1/4. GPU 5: job 0's 1/4 is not larger than job 1's
        // 1/4, so the tie goes to the job with fewer GPUs, job 1. GPU 6: job 0's 1/4 against
        // job 1's 0.5/4.5.
        let linear = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let saturating = [0.0, 3.0, 4.0, 4.5];
        let deal = |gpus| afs_counts(2, gpus, &[10.0, 5.0], tables(&[&linear, &saturating]));
        assert_eq!(deal(4), [3, 1]);
        assert_eq!(deal(5), [3, 2]);
        assert_eq!(deal(6), [4, 2]);
    }

    #[test]
    fn equal_gains_go_to_fewer_gpus_then_to_the_later_job() {
        // Identical linear jobs: each gets a first GPU (equal lengths: the later first), then
        // the gains 1/2 tie at one GPU each and go to the later job; then job 0 holds fewer.
        let linear: &[f64] = &[0.0, 1.0, 2.0, 3.0, 4.0];
        let mut order = Vec::new();
        for gpus in 1..=4 {
            order.push(afs_counts(2, gpus, &[3.0, 3.0], tables(&[linear, linear])));
        }
        assert_eq!(order, [vec![0, 1], vec![1, 1], vec![1, 2], vec![2, 2]]);
    }

    #[test]
    fn a_job_without_a_step_time_for_its_next_gpu_sits_out_and_gpus_stay_idle() {
        // Job 0 runs on at most 2 GPUs, job 1 on at most 1: of 5 GPUs 3 are dealt.
        let counts = afs_counts(2, 5, &[1.0, 2.0], tables(&[&[0.0, 1.0, 1.5], &[0.0, 1.0]]));
        assert_eq!(counts, [2, 1]);
        // A job that cannot run at all takes nothing, and does not block the others.
        let counts = afs_counts(2, 2, &[1.0, 2.0], tables(&[&[0.0], &[0.0, 1.0, 2.0]]));
        assert_eq!(counts, [0, 2]);
        assert_eq!(afs_counts(0, 4, &[], tables(&[])), Vec::<u32>::new());
    }

    #[test]
    fn a_gpu_that_slows_a_job_down_still_goes_out_when_it_is_the_best_offer() {
        // Job 0's second GPU lowers its rate (gain -1); with no other job it still gets it,
        // as every GPU is dealt while someone can run on it.
        assert_eq!(afs_counts(1, 2, &[1.0], tables(&[&[0.0, 1.0, 0.5]])), [2]);
    }

    #[test]
    fn placement_takes_the_fullest_node_that_fits_else_the_emptiest() {
        // Free 4, 2, 3, 2: 2 GPUs fit on nodes 0-3, the fullest are 1 and 3 (2 free): node 1.
        let mut free = vec![4, 2, 3, 2];
        assert_eq!(best_fit_first(&mut free, 2), [1, 1]);
        assert_eq!(free, [4, 0, 3, 2]);
        // 6 GPUs fit nowhere: all 4 of node 0, then 2 fit on nodes 2 and 3, the fullest is 3.
        assert_eq!(best_fit_first(&mut free, 6), [0, 0, 0, 0, 3, 3]);
        assert_eq!(free, [0, 0, 3, 0]);
        // Ties of the emptiest node go to the lowest id.
        let mut free = vec![1, 3, 3];
        assert_eq!(best_fit_first(&mut free, 5), [1, 1, 1, 2, 2]);
    }
}
