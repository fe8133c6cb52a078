//! The launch/preempt walk shared by Blox-style placements.
//!
//! Rule (Blox `placement/placement.py`, `JobPlacement.place`): go through the jobs in priority
//! order, skipping running ones. For a waiting job, look for GPUs among the free ones; if there are
//! not enough, preempt running jobs from the *lowest* priority upwards (only jobs ranked below
//! the one being placed), retrying after each preemption. A job that still cannot be placed
//! ends the walk: no lower-priority job is started (no backfilling), and jobs preempted for it stay
//! preempted. With 1-GPU jobs this runs exactly the top `#GPUs` jobs of the order.
//!
//! How GPUs are picked for one job is the only thing placements differ in.

use crate::core::{Cluster, GpuId, JobSlot, JobTable, PlacementDecisions};

/// Picks `needed` GPUs among the free ones of `cluster` into `out`; false if impossible.
pub trait GpuChooser {
    fn choose(&self, cluster: &Cluster, needed: u32, out: &mut Vec<GpuId>) -> bool;
}

/// Reusable buffers of the walk.
#[derive(Default)]
pub struct PriorityWalk {
    running_positions: Vec<usize>,
}

impl PriorityWalk {
    pub fn place(
        &mut self,
        chooser: &impl GpuChooser,
        jobs: &JobTable,
        order: &[JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) {
        // Jobs holding GPUs when the walk starts, by position; victims come off the back.
        self.running_positions.clear();
        self.running_positions.extend(order.iter().enumerate().filter(|(_, s)| jobs[**s].is_running()).map(|(i, _)| i));
        let mut gpus = Vec::new();
        for (idx, &slot) in order.iter().enumerate() {
            let job = &jobs[slot];
            if job.is_running() && cluster.owner(job.gpus[0]) == Some(slot) {
                continue;
            }
            let mut found = chooser.choose(cluster, job.spec.gpus, &mut gpus);
            while !found {
                let Some(&victim_pos) = self.running_positions.last() else { break };
                if victim_pos <= idx {
                    break;
                }
                self.running_positions.pop();
                let victim = order[victim_pos];
                cluster.release(&jobs[victim].gpus);
                decisions.preempt.push(victim);
                found = chooser.choose(cluster, job.spec.gpus, &mut gpus);
            }
            if !found {
                break;
            }
            cluster.assign(&gpus, slot);
            decisions.launch.push((slot, std::mem::take(&mut gpus)));
        }
    }
}
