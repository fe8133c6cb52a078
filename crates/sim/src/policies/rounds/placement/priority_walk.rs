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
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §3.1.

use crate::core::{Cluster, GpuId, JobSlot, JobSpec, JobTable, Launch, PlacementDecisions};

/// Picks the GPUs `job` asks for (`job.gpus` of them, whole or, with `job.gpu_milli`, a share of
/// each) among those of `cluster` with room into `out`; false if impossible.
pub trait GpuChooser {
    fn choose(&self, cluster: &Cluster, job: &JobSpec, out: &mut Vec<GpuId>) -> bool;
}

/// Reusable buffers of the walk.
#[derive(Default)]
pub struct PriorityWalk {
    /// Whether the job at each position was preempted by this walk (it may be placed again).
    preempted: Vec<bool>,
}

/// The jobs holding GPUs when the walk starts, from the lowest priority up: found by scanning
/// the order backwards only as far as victims are needed, so that a round without preemptions
/// does not read the waiting jobs below the last one placed.
struct Victims {
    /// Positions at and above this one are scanned.
    scanned_from: usize,
    /// The lowest-priority running job not yet preempted, once found.
    next: Option<usize>,
}

impl Victims {
    fn peek(&mut self, jobs: &JobTable, order: &[JobSlot]) -> Option<usize> {
        while self.next.is_none() && self.scanned_from > 0 {
            self.scanned_from -= 1;
            if jobs[order[self.scanned_from]].is_running() {
                self.next = Some(self.scanned_from);
            }
        }
        self.next
    }
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
        // The walk changes no job (the engine applies its decisions), so a job below the one
        // being placed still holds what it held when the walk started.
        let mut victims = Victims { scanned_from: order.len(), next: None };
        self.preempted.clear();
        self.preempted.resize(order.len(), false);
        let mut gpus = Vec::new();
        for (idx, &slot) in order.iter().enumerate() {
            let job = &jobs[slot];
            if job.is_running() && !self.preempted[idx] {
                continue;
            }
            let mut found = chooser.choose(cluster, &job.spec, &mut gpus);
            while !found {
                let Some(victim_pos) = victims.peek(jobs, order) else { break };
                if victim_pos <= idx {
                    break;
                }
                victims.next = None;
                self.preempted[victim_pos] = true;
                let victim = order[victim_pos];
                let held = &jobs[victim];
                cluster.release_holding(&held.gpus, held.spec.milli_per_gpu(), victim);
                decisions.preempt.push(victim);
                found = chooser.choose(cluster, &job.spec, &mut gpus);
            }
            if !found {
                break;
            }
            match job.spec.gpu_milli {
                Some(milli) => gpus.iter().for_each(|&gpu| cluster.assign_share(gpu, milli)),
                None => cluster.assign(&gpus, slot),
            }
            decisions.launch.push(Launch::gpus(slot, std::mem::take(&mut gpus)));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::core::{
        ActiveJob, Cluster, ClusterSpec, JobSlot, JobSpec, JobTable, Launch, Placement, PlacementDecisions,
    };
    use crate::policies::rounds::placement::scattered::Scattered;

    fn table(gpus: &[u32]) -> (JobTable, Vec<JobSlot>) {
        let mut jobs = JobTable::default();
        let order = gpus
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                let spec =
                    JobSpec { id: i as u64, arrival: 0.0, submitted: 0.0, gpus: g, work: 1.0, ..JobSpec::default() };
                jobs.insert(ActiveJob::admitted(spec, 0.0, 300.0))
            })
            .collect();
        (jobs, order)
    }

    #[test]
    fn preempts_from_the_lowest_priority_until_the_job_fits() {
        // 4 GPUs held by jobs 1, 2 (1 GPU each) and 3 (2 GPUs); job 0 (3 GPUs) comes first.
        let (mut jobs, order) = table(&[3, 1, 1, 2]);
        let mut cluster = Cluster::new(ClusterSpec::uniform(2, 2));
        for (slot, gpus) in [(order[1], vec![0]), (order[2], vec![1]), (order[3], vec![2, 3])] {
            cluster.assign(&gpus, slot);
            jobs[slot].gpus = gpus;
        }
        let mut decisions = PlacementDecisions::default();
        Scattered::default().place(&jobs, &order, &mut cluster, &mut decisions);
        // Job 3 (2 GPUs) goes first, then job 2; job 1 keeps running.
        assert_eq!(decisions.preempt, vec![order[3], order[2]]);
        assert_eq!(decisions.launch, vec![Launch::gpus(order[0], vec![1, 2, 3])]);
        assert_eq!(cluster.free_gpus(), 0);
    }

    #[test]
    fn stops_at_the_first_job_that_cannot_be_placed() {
        // 2 GPUs free; job 0 needs 3 and nothing runs below it, so job 1 (1 GPU) must not start.
        let (jobs, order) = table(&[3, 1]);
        let mut cluster = Cluster::new(ClusterSpec::uniform(1, 2));
        let mut decisions = PlacementDecisions::default();
        Scattered::default().place(&jobs, &order, &mut cluster, &mut decisions);
        assert!(decisions.launch.is_empty() && decisions.preempt.is_empty());
    }

    #[test]
    fn never_preempts_jobs_ranked_above_the_one_being_placed() {
        let (mut jobs, order) = table(&[1, 1]);
        let mut cluster = Cluster::new(ClusterSpec::uniform(1, 1));
        cluster.assign(&[0], order[0]);
        jobs[order[0]].gpus = vec![0];
        let mut decisions = PlacementDecisions::default();
        Scattered::default().place(&jobs, &order, &mut cluster, &mut decisions);
        assert!(decisions.preempt.is_empty() && decisions.launch.is_empty());
    }
}
