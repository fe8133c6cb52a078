//! The three policy seams of a scheduler (Blox's split) plus the launch-overhead model.
//!
//! Per decision point the engine asks, in this order: [`Admission`] which arrivals enter the
//! cluster, [`Scheduler`] in which order the active jobs deserve GPUs, and [`Placement`] which
//! jobs to launch on which GPUs and which running jobs to preempt for them. Policies live one per
//! file in `crate::policies`; each is constructed for one run and may keep state across rounds.

use super::{Cluster, GpuId, JobSlot, JobSpec, JobTable, SimTime};

/// What an admission policy may look at.
#[derive(Debug, Clone, Copy)]
pub struct AdmissionContext {
    pub now: SimTime,
    pub total_gpus: u32,
    /// Sum of GPU demands of all active (running or queued) jobs, before this round's admissions.
    pub active_gpu_demand: u64,
}

/// Decides which arrived jobs join the active set.
pub trait Admission: Send {
    /// Takes this decision point's `arrivals` (in arrival order) and appends the jobs admitted now
    /// to `admitted`, in admission order. Jobs held back stay inside the policy.
    fn admit(&mut self, ctx: &AdmissionContext, arrivals: &mut Vec<JobSpec>, admitted: &mut Vec<JobSpec>);

    /// Jobs that arrived but are held back by the policy.
    fn backlog(&self) -> usize {
        0
    }
}

/// Why a policy could not decide: an external policy program that crashed, hung or answered
/// something that is not a decision. The engine fails the run with it, naming the time.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyError(pub String);

/// Orders the active jobs from most to least entitled to GPUs.
pub trait Scheduler: Send {
    /// Rearranges `order`, which holds every active job: on entry it is the previous round's
    /// order with finished jobs removed and newly admitted jobs appended in admission order.
    /// Built-in schedulers cannot fail; a scheduler outside blox's process can.
    fn order(&mut self, now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError>;

    /// Work done per second of running, relative to the job's profiled speed.
    fn progress_rate(&self, _job: &super::ActiveJob) -> f64 {
        1.0
    }
}

/// Launches and preemptions chosen by a [`Placement`] for one round.
#[derive(Debug, Default)]
pub struct PlacementDecisions {
    /// Running jobs that lose their GPUs, in the order they were chosen.
    pub preempt: Vec<JobSlot>,
    /// Waiting jobs to start, with the GPUs each gets.
    pub launch: Vec<(JobSlot, Vec<GpuId>)>,
}

impl PlacementDecisions {
    pub fn clear(&mut self) {
        self.preempt.clear();
        self.launch.clear();
    }
}

/// Maps the priority order onto GPUs.
///
/// The placement applies its decisions to `cluster` itself (releasing preempted jobs' GPUs and
/// assigning launched ones) and reports them in `decisions`; the engine then updates the jobs.
pub trait Placement: Send {
    fn place(&mut self, jobs: &JobTable, order: &[JobSlot], cluster: &mut Cluster, decisions: &mut PlacementDecisions);
}

/// Seconds of useful time a job loses when it is (re)launched, e.g. to restore a checkpoint.
pub trait OverheadModel: Send {
    /// `resumed` is true when the job ran before (a restart after preemption).
    fn launch_overhead(&self, job: &JobSpec, resumed: bool) -> f64;
}

/// Sorts `order` by `(promoted first, key ascending, job id)`, the ordering every Blox policy uses
/// (Blox sorts by `(job_priority, key)` with a stable sort over id-ordered jobs; promoted jobs have
/// priority 1, all others 999).
///
/// `scratch` is reused between rounds. Because `order` arrives close to sorted (last round's order
/// plus appended arrivals), the adaptive merge sort costs about linear time per round.
pub fn sort_by_priority_key(
    jobs: &JobTable,
    order: &mut [JobSlot],
    scratch: &mut Vec<(bool, f64, u64, JobSlot)>,
    key: impl Fn(&super::ActiveJob) -> f64,
) {
    scratch.clear();
    scratch.extend(order.iter().map(|&slot| {
        let job = &jobs[slot];
        (!job.life.promoted, key(job), job.spec.id, slot)
    }));
    scratch.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    for (dst, src) in order.iter_mut().zip(scratch.iter()) {
        *dst = src.3;
    }
}
