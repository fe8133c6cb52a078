//! Tiresias+TunedJobs as Pollux's simulator runs it (`docs/pollux-semantics.md` §7): two FIFO
//! queues, demotion to the second after 16 GPU-hours of running, every job at the tuned GPU
//! count and batch size of its workload row, admission by GPU count walking both queues
//! (smaller jobs further down fill what is left), placement on the node with the most free GPUs,
//! no starvation promotion, no migration of a job that keeps running.

use super::frame::{Allocator, JobView, Nodes, free_per_node, most_free_first};
use super::job::BatchRule;
use super::profile::Application;
use crate::core::{JobId, JobSpec};
use std::collections::{BTreeMap, BTreeSet};

/// GPU-seconds of running after which a job moves to the second queue (16 GPU-hours).
const DEMOTION_GPU_SECONDS: i64 = 3600 * 16;

#[derive(Debug, Clone, Default)]
struct QueueState {
    running: bool,
    last_check: i64,
    executed: i64,
}

/// The policy's state across decisions.
#[derive(Debug, Default)]
pub struct PolluxTiresias {
    queues: [Vec<JobId>; 2],
    state: BTreeMap<JobId, QueueState>,
}

impl Allocator for PolluxTiresias {
    fn batch_rule(&self, spec: &JobSpec, _app: &Application) -> Result<BatchRule, String> {
        spec.batch_size.map(BatchRule::Fixed).ok_or_else(|| "the workload gives no batch size (batch_size)".to_string())
    }

    fn allocate(&mut self, now: i64, jobs: &[JobView<'_>], nodes: Nodes) -> Result<Vec<Vec<u32>>, String> {
        let active: BTreeSet<JobId> = jobs.iter().map(|j| j.spec.id).collect();
        for queue in &mut self.queues {
            queue.retain(|id| active.contains(id));
        }
        self.state.retain(|id, _| active.contains(id));
        for job in jobs {
            if let std::collections::btree_map::Entry::Vacant(entry) = self.state.entry(job.spec.id) {
                entry.insert(QueueState::default());
                self.queues[0].push(job.spec.id);
            }
        }
        let gpus: BTreeMap<JobId, u32> = jobs.iter().map(|j| (j.spec.id, j.spec.gpus)).collect();
        for job in jobs {
            let id = job.spec.id;
            let state = self.state.get_mut(&id).expect("tracked above");
            if state.running {
                state.executed += now - state.last_check;
                if state.executed * i64::from(job.spec.gpus) >= DEMOTION_GPU_SECONDS
                    && let Some(at) = self.queues[0].iter().position(|&q| q == id)
                {
                    self.queues[0].remove(at);
                    self.queues[1].push(id);
                }
            }
            state.last_check = now;
        }
        let mut allocs: BTreeMap<JobId, Vec<u32>> = jobs.iter().map(|j| (j.spec.id, j.alloc.to_vec())).collect();
        let mut free = nodes.total();
        for id in self.queues.iter().flatten() {
            let state = self.state.get_mut(id).expect("queued jobs are tracked");
            state.running = gpus[id] <= free;
            if state.running {
                free -= gpus[id];
            } else {
                allocs.insert(*id, Vec::new());
            }
        }
        let mut free = free_per_node(nodes, allocs.values().map(Vec::as_slice));
        for id in self.queues.iter().flatten() {
            if self.state[id].running && allocs[id].is_empty() {
                allocs.insert(*id, most_free_first(&mut free, gpus[id]));
            }
        }
        Ok(jobs.iter().map(|j| allocs.remove(&j.spec.id).unwrap_or_default()).collect())
    }
}
