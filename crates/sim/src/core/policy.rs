//! The policy seams of the round engine: Blox's split plus the launch-overhead model, and the
//! round decision they compose into.
//!
//! Per decision point the engine asks [`Admission`] which arrivals enter the cluster, then its
//! [`RoundPolicy`] which active jobs hold which GPUs for the next round and what a round of
//! running does for each. Blox's composition of that decision is [`OrderThenPlace`]:
//! [`Scheduler`] orders the active jobs by entitlement and [`Placement`] launches and preempts by
//! that order. A family whose decision is not an order (Gavel's time shares per GPU type)
//! implements [`RoundPolicy`] itself. Policies live one per file in `crate::policies`; each is
//! constructed for one run and may keep state across rounds.

use super::{ActiveJob, Cluster, GpuId, HostShare, JobSlot, JobSpec, JobTable, SimTime, StopFlag};

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

    /// The run's stop flag, for a scheduler that waits on something outside the process (an
    /// external program): its waits must end when the run is stopped, since the engine checks
    /// the flag only between decisions. Built-in schedulers never wait and ignore it.
    fn set_stop(&mut self, _stop: &StopFlag) {}
}

/// A job started on GPUs (and, for policies that allocate them, CPUs and memory).
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub job: JobSlot,
    pub gpus: Vec<GpuId>,
    pub host: Vec<HostShare>,
}

impl Launch {
    /// A launch on `gpus` alone.
    pub fn gpus(job: JobSlot, gpus: Vec<GpuId>) -> Self {
        Self { job, gpus, host: Vec::new() }
    }
}

/// Launches, preemptions and resizes chosen by a [`Placement`] or [`RoundPolicy`] for one round.
#[derive(Debug, Default)]
pub struct PlacementDecisions {
    /// Running jobs that lose their GPUs (and host shares), in the order they were chosen.
    pub preempt: Vec<JobSlot>,
    /// Waiting jobs to start, with what each gets.
    pub launch: Vec<Launch>,
    /// Running jobs that go on running on another allocation, with what each holds now (the
    /// policy gave back the old one and took the new one in the cluster). Not a preemption:
    /// the job keeps its progress, counts a resize and pays [`OverheadModel::resize_overhead`].
    pub resize: Vec<Launch>,
    /// Waiting jobs the policy will never run (no node can ever host them: FGD's failed pods).
    /// They leave the run unfinished and count as unschedulable.
    pub reject: Vec<JobSlot>,
}

impl PlacementDecisions {
    pub fn clear(&mut self) {
        self.preempt.clear();
        self.launch.clear();
        self.resize.clear();
        self.reject.clear();
    }
}

/// Maps the priority order onto GPUs.
///
/// The placement applies its decisions to `cluster` itself (releasing preempted jobs' GPUs and
/// host shares, assigning launched ones) and reports them in `decisions`; the engine then updates
/// the jobs.
pub trait Placement: Send {
    fn place(&mut self, jobs: &JobTable, order: &[JobSlot], cluster: &mut Cluster, decisions: &mut PlacementDecisions);
}

/// How long a round lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundTiming {
    /// Every round lasts the configured length and jobs finish at round ends (Blox).
    Fixed,
    /// Every round lasts the configured length, but a job finishes inside it, at its quantum's
    /// end (Pollux's simulator: decisions every interval, completions at the second they happen).
    FixedEndsInside,
    /// A round ends when the last job's [`Quantum`] does; a job finishes inside the round, at its
    /// quantum's end; with nothing running, the next round starts at the next arrival (Gavel's
    /// simulator, `docs/gavel-semantics.md` §3.1).
    UntilLastQuantum,
}

/// What one running job does in one round, fixed when the round starts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Quantum {
    /// Work done, in the units of [`ActiveJob::life`]'s `executed_work` for this policy family
    /// (Blox: seconds at the profiled speed; Gavel: steps).
    pub work: f64,
    /// Seconds the job holds its GPUs this round.
    pub seconds: f64,
    /// Seconds of the job's pending launch overhead this round uses up.
    pub overhead: f64,
    /// Whether the job completes with this quantum.
    pub completes: bool,
    /// Whether the job leaves unfinished at this quantum's end: dropped by a policy's failure
    /// rule (Gavel drops a job whose rounds failed five times in a row). Its record has no finish.
    pub abandons: bool,
}

/// The whole decision of one round.
pub trait RoundPolicy: Send {
    /// Launches and preempts jobs on `cluster` for the round starting at `now` and reports it in
    /// `decisions`. `order` holds every active job: the previous round's order with finished jobs
    /// removed and newly admitted jobs appended; a policy that ranks jobs rearranges it.
    fn decide(
        &mut self,
        now: SimTime,
        jobs: &JobTable,
        order: &mut [JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) -> Result<(), PolicyError>;

    /// One round of running for `job`, which holds GPUs, in a round of `round_seconds`.
    fn quantum(&self, job: &ActiveJob, cluster: &Cluster, round_seconds: f64) -> Quantum;

    fn timing(&self) -> RoundTiming {
        RoundTiming::Fixed
    }

    /// Why the policy cannot run `job` at all (Gavel's policies: a job type or GPU count its
    /// throughput table or allocation lacks), checked before the run and by `blox validate`.
    fn check_job(&self, _job: &JobSpec) -> Result<(), String> {
        Ok(())
    }

    /// Whether the policy computes each job's work from a job model of its own (Pollux's frame:
    /// the application's training target), so that it runs jobs from a trace that gives no
    /// duration; every other policy would run them with no work at all, which validation refuses.
    fn computes_work(&self) -> bool {
        false
    }

    /// The whole of `job`'s work in the units its quanta count (`Quantum::work`): what a live
    /// run's share of iterations done is a share of. `JobSpec::work` unless the family counts
    /// otherwise (Gavel: steps).
    fn whole_work(&self, job: &JobSpec) -> f64 {
        job.work
    }

    /// Whether the policy's own starvation rule promoted `job`, for its record; `None` for
    /// policies that leave promotion to the engine's guard (Blox's).
    fn promoted(&self, _job: &ActiveJob) -> Option<bool> {
        None
    }

    /// The run's stop flag, for a policy whose decision can wait on the outside world
    /// ([`Scheduler::set_stop`]).
    fn set_stop(&mut self, _stop: &StopFlag) {}
}

/// Blox's round decision: the scheduler orders, the placement maps the order onto GPUs, and a
/// running job does a round of work at the scheduler's progress rate, minus launch overhead.
pub struct OrderThenPlace {
    pub scheduler: Box<dyn Scheduler>,
    pub placement: Box<dyn Placement>,
}

impl RoundPolicy for OrderThenPlace {
    fn decide(
        &mut self,
        now: SimTime,
        jobs: &JobTable,
        order: &mut [JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) -> Result<(), PolicyError> {
        self.scheduler.order(now, jobs, order)?;
        self.placement.place(jobs, order, cluster, decisions);
        Ok(())
    }

    fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, round_seconds: f64) -> Quantum {
        let overhead = job.pending_overhead.min(round_seconds);
        let work = (round_seconds - overhead) * self.scheduler.progress_rate(job);
        let completes = job.life.executed_work + work >= job.spec.work;
        Quantum { work, seconds: round_seconds, overhead, completes, abandons: false }
    }

    fn set_stop(&mut self, stop: &StopFlag) {
        self.scheduler.set_stop(stop);
    }
}

/// Seconds of useful time a job loses when it is (re)launched, e.g. to restore a checkpoint.
pub trait OverheadModel: Send {
    /// `resumed` is true when the job ran before (a restart after preemption).
    fn launch_overhead(&self, job: &JobSpec, resumed: bool) -> f64;

    /// Seconds a running job loses when its allocation changes: by default a restart from its
    /// checkpoint, as after a preemption.
    fn resize_overhead(&self, job: &JobSpec) -> f64 {
        self.launch_overhead(job, true)
    }
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
