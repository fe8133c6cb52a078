//! The round-based simulation loop.
//!
//! One round at time `t` does, in Blox's order (`blox_new_flow_multi_run.py` with
//! `BloxManager`, see `docs/blox-semantics.md` §1.1-1.3):
//!
//! 1. apply every running job's round of work (its [`Quantum`], fixed when the round started) and
//!    retire the ones that are done; a job's first round of progress sets its responsiveness; if
//!    every tracked job has now finished (or the horizon is reached) the run ends here, as Blox
//!    writes its metrics at this point;
//! 2. take the arrivals with `arrival <= t` and pass them through admission;
//! 3. let the [`RoundPolicy`] decide which jobs hold which GPUs (Blox: the scheduler orders all
//!    active jobs, then the placement launches/preempts by that order), and fix each running
//!    job's quantum for the round;
//! 4. update starvation counters: a job not scheduled for `starvation_guard` seconds is promoted
//!    above all unpromoted jobs for good;
//! 5. record the round and advance `t` to the next round.
//!
//! How long a round lasts is the policy's [`RoundTiming`]. Under `Fixed` (Blox) every round lasts
//! the round length: a job launched at round `k` first progresses in round `k + 1`'s accounting,
//! all times are multiples of the round length, and rounds in which the cluster is empty and
//! nothing arrives are skipped without changing any result. Under `UntilLastQuantum` (Gavel) a
//! round ends when its last quantum does, jobs finish at their quantum's end, and an idle cluster
//! waits for the next arrival.
//!
//! The engine keeps the priority order from round to round; the cost of a round grows with the
//! number of active jobs only, never with the length of the trace (arrivals are pulled lazily).

use super::executor::{Executor, NodeChange, Observation, Simulated};
use super::metrics::{RecordSink, RunTables, RunTotals, SummaryBuilder};
use super::policy::{
    Admission, AdmissionContext, Launch, OverheadModel, PlacementDecisions, PolicyError, RoundPolicy, RoundTiming,
};
use super::{
    ActiveJob, Cluster, ClusterSpec, JobId, JobRecord, JobSlot, JobSpec, JobTable, MILLI_PER_GPU, RunOutput, SimTime,
    StopFlag, TimelineRow,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Which jobs a run measures, and so when it ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tracking {
    /// Jobs with ids in `first..=last`; the run ends when all of them have finished.
    /// Jobs outside the window still load the cluster (Blox's warm-up and background jobs).
    Ids { first: JobId, last: JobId },
    /// Every job; the run ends when the workload is exhausted and every job has finished.
    All,
}

impl Tracking {
    fn contains(&self, id: JobId) -> bool {
        match *self {
            Tracking::Ids { first, last } => (first..=last).contains(&id),
            Tracking::All => true,
        }
    }
}

/// Everything about a run that is not a policy or the workload.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    pub cluster: ClusterSpec,
    /// Length of a scheduling round in seconds (Blox: 300).
    pub round_seconds: f64,
    pub tracking: Tracking,
    /// Stop at this simulated time even if tracked jobs are unfinished.
    pub horizon: Option<SimTime>,
    /// Seconds without being scheduled after which a job is promoted (Blox: 3,600,000 = 1000 h).
    pub starvation_guard: Option<f64>,
    /// Keep one [`TimelineRow`] per simulated round.
    pub record_timeline: bool,
}

/// Safety net against runs that cannot end (about 95 years of 300 s rounds); spec validation
/// refuses jobs a run could not reach within it.
pub const MAX_ROUNDS: u64 = 10_000_000;

/// Why a run could not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    InvalidJob {
        id: JobId,
        reason: String,
    },
    ArrivalsOutOfOrder {
        id: JobId,
        arrival: SimTime,
        previous: SimTime,
    },
    /// Records are handed over in id order as the run goes, which needs ids that increase along
    /// the workload (every workload numbers its jobs so).
    IdsOutOfOrder {
        id: JobId,
        previous: JobId,
    },
    InvalidConfig(String),
    NoEnd {
        rounds: u64,
        active_jobs: usize,
    },
    /// The placement found no room for a job its policy gave GPUs (the original asserts).
    Unplaceable {
        id: JobId,
        gpus: u32,
    },
    /// The run's [`StopFlag`](super::StopFlag) was raised (interrupted, or over its time limit).
    Stopped,
    /// A policy could not decide at `time` (an external program's fault).
    Policy {
        time: SimTime,
        reason: String,
    },
    /// The [`RecordSink`] could not take a record (e.g. the jobs table's disk is full).
    Output(String),
    /// The [`Executor`] could not carry out a round (live mode: the cluster failed).
    Executor(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::InvalidJob { id, reason } => write!(f, "job {id}: {reason}"),
            RunError::ArrivalsOutOfOrder { id, arrival, previous } => {
                write!(
                    f,
                    "job {id} arrives at {arrival} s, before the previous job ({previous} s); workloads must be sorted by arrival"
                )
            }
            RunError::IdsOutOfOrder { id, previous } => {
                write!(f, "job {id} follows job {previous}; a workload must number its jobs in increasing order")
            }
            RunError::InvalidConfig(msg) => write!(f, "invalid run configuration: {msg}"),
            RunError::NoEnd { rounds, active_jobs } => write!(
                f,
                "the run did not end after {rounds} rounds ({active_jobs} jobs still active); set a horizon or a smaller tracking window"
            ),
            RunError::Unplaceable { id, gpus } => {
                write!(f, "job {id}: the placement found no room for its {gpus} GPUs")
            }
            RunError::Stopped => write!(f, "stopped before the end"),
            RunError::Policy { time, reason } => {
                write!(f, "the scheduler failed at the decision at t = {time} s: {reason}")
            }
            RunError::Output(reason) => write!(f, "writing the jobs table: {reason}"),
            RunError::Executor(reason) => write!(f, "{reason}"),
        }
    }
}

impl std::error::Error for RunError {}

/// The policies of one run.
pub struct Policies {
    pub admission: Box<dyn Admission>,
    /// The round decision; Blox's scheduler x placement is [`super::OrderThenPlace`].
    pub decision: Box<dyn RoundPolicy>,
    pub overhead: Option<Box<dyn OverheadModel>>,
}

/// One run: simulated, or on a real cluster with a live [`Executor`].
pub struct Engine<S: Iterator<Item = JobSpec>, X: Executor = Simulated> {
    config: RunConfig,
    executor: X,
    policies: Policies,
    source: std::iter::Peekable<S>,
    cluster: Cluster,
    jobs: JobTable,
    order: Vec<JobSlot>,
    /// By slot index, what the round's walks over the order read, kept apart from the jobs so
    /// that a walk over hundreds of waiting jobs reads a few bytes of each.
    slot_states: Vec<SlotState>,
    /// The jobs holding something after the last decision, in `order`'s order: what a round's
    /// progress and quanta walk, instead of every active job.
    running: Vec<JobSlot>,
    arrivals: Vec<JobSpec>,
    admitted: Vec<JobSpec>,
    decisions: PlacementDecisions,
    /// Jobs leaving this round: at their finish, or unfinished (abandoned).
    finished_slots: Vec<(JobSlot, Option<SimTime>)>,
    /// Running jobs the executor saw stop without a decision (their node was lost).
    interrupted: Vec<JobSlot>,
    node_changes: Vec<NodeChange>,
    records: IdOrder,
    /// The id of the last job pulled from the source.
    last_id: Option<JobId>,
    timeline: Vec<TimelineRow>,
    last_arrival: SimTime,
    tracked_seen: u64,
    tracked_outstanding: u64,
    /// Tracked jobs that finished or were dropped as unschedulable.
    tracked_resolved: u64,
    jobs_finished: u64,
    jobs_unschedulable: u64,
    preemptions: u64,
    resizes: u64,
    busy_gpu_seconds: f64,
    /// GPUs asked for by all active jobs, kept up to date instead of summed every round.
    active_gpu_demand: u64,
    running_jobs: u32,
    stop: StopFlag,
}

impl<S: Iterator<Item = JobSpec>> Engine<S> {
    /// A simulation run.
    pub fn new(config: RunConfig, policies: Policies, source: S) -> Result<Self, RunError> {
        Engine::with_executor(config, policies, source, Simulated)
    }
}

impl<S: Iterator<Item = JobSpec>, X: Executor> Engine<S, X> {
    /// A run whose decisions `executor` carries out.
    pub fn with_executor(config: RunConfig, policies: Policies, source: S, executor: X) -> Result<Self, RunError> {
        if !(config.round_seconds.is_finite() && config.round_seconds > 0.0) {
            return Err(RunError::InvalidConfig(format!(
                "round length must be positive, got {}",
                config.round_seconds
            )));
        }
        if config.cluster.total_gpus() == 0 {
            return Err(RunError::InvalidConfig("the cluster has no GPUs".into()));
        }
        Ok(Self {
            cluster: Cluster::new(config.cluster.clone()),
            config,
            executor,
            policies,
            source: source.peekable(),
            jobs: JobTable::default(),
            order: Vec::new(),
            slot_states: Vec::new(),
            running: Vec::new(),
            arrivals: Vec::new(),
            admitted: Vec::new(),
            decisions: PlacementDecisions::default(),
            finished_slots: Vec::new(),
            interrupted: Vec::new(),
            node_changes: Vec::new(),
            records: IdOrder::default(),
            last_id: None,
            timeline: Vec::new(),
            last_arrival: f64::NEG_INFINITY,
            tracked_seen: 0,
            tracked_outstanding: 0,
            tracked_resolved: 0,
            jobs_finished: 0,
            jobs_unschedulable: 0,
            preemptions: 0,
            resizes: 0,
            busy_gpu_seconds: 0.0,
            active_gpu_demand: 0,
            running_jobs: 0,
            stop: StopFlag::default(),
        })
    }

    /// Abandons the run (with [`RunError::Stopped`]) once `stop` is raised; a policy that waits
    /// on the outside world gets the flag too.
    pub fn with_stop(mut self, stop: StopFlag) -> Self {
        self.policies.decision.set_stop(&stop);
        self.stop = stop;
        self
    }

    /// Runs to the end and returns what was measured, the records collected.
    pub fn run(self) -> Result<RunOutput, RunError> {
        let mut jobs = Vec::new();
        self.run_into(&mut jobs).map(|tables| tables.with_jobs(jobs))
    }

    /// Runs to the end, handing each tracked job's record to `sink` in id order as soon as no
    /// lower id can still produce one, so that a run of millions of jobs does not hold them.
    pub fn run_into(mut self, sink: &mut dyn RecordSink) -> Result<RunTables, RunError> {
        let round = self.config.round_seconds;
        let timing = self.policies.decision.timing();
        let mut round_index: u64 = 0;
        let mut now: SimTime = 0.0;
        loop {
            if timing != RoundTiming::UntilLastQuantum {
                now = round_index as f64 * round;
            }
            self.executor.begin_round(now).map_err(RunError::Executor)?;
            self.advance_running_jobs(now, timing);
            self.records.flush(sink)?;
            // Like Blox, the run's records end where the last tracked job is seen to finish:
            // Blox writes its metric files at this point, before the round's decisions.
            let horizon_reached = self.config.horizon.is_some_and(|h| now >= h);
            if self.all_tracked_finished() || horizon_reached {
                return self.finish(now, round_index, timing, sink);
            }
            self.pull_arrivals(now)?;
            self.admit(now);
            self.decisions.clear();
            self.policies
                .decision
                .decide(now, &self.jobs, &mut self.order, &mut self.cluster, &mut self.decisions)
                .map_err(|PolicyError(reason)| {
                    // A policy's wait cut short by the stop is the stop, not the policy's fault.
                    if self.stop.is_stopped() { RunError::Stopped } else { RunError::Policy { time: now, reason } }
                })?;
            self.executor.carry_out(now, &self.jobs, &self.decisions).map_err(RunError::Executor)?;
            self.apply_decisions(now);
            let last_quantum_end = self.start_quanta(now, timing);
            self.executor.booked(round_index, now, &self.jobs, &self.order);
            if timing != RoundTiming::UntilLastQuantum {
                self.busy_gpu_seconds += f64::from(self.cluster.total_gpus() - self.cluster.free_gpus()) * round;
            }
            if self.config.record_timeline {
                self.record_round(now);
            }

            round_index += 1;
            match timing {
                RoundTiming::Fixed | RoundTiming::FixedEndsInside => {
                    if self.jobs.is_empty() && self.policies.admission.backlog() == 0 {
                        // Nothing can happen before the next arrival: jump to the round that admits it.
                        if let Some(next) = self.source.peek() {
                            let arrival_round = (next.arrival / round).ceil() as u64;
                            round_index = round_index.max(arrival_round);
                        }
                    }
                }
                RoundTiming::UntilLastQuantum => {
                    // With nothing running, the next decision is at the next arrival, even if
                    // jobs wait (Gavel's loop); without one, a round later.
                    now = match (last_quantum_end, self.source.peek()) {
                        (Some(end), _) => end,
                        (None, Some(next)) => next.arrival.max(now),
                        (None, None) => now + round,
                    };
                }
            }
            if round_index >= MAX_ROUNDS {
                return Err(RunError::NoEnd { rounds: round_index, active_jobs: self.jobs.len() });
            }
            if self.stop.is_stopped() {
                return Err(RunError::Stopped);
            }
        }
    }

    /// Whether every tracked job has finished: the whole id window when there is one, else every
    /// job of an exhausted workload.
    fn all_tracked_finished(&mut self) -> bool {
        if self.tracked_outstanding > 0 {
            return false;
        }
        let window_complete = match self.config.tracking {
            Tracking::Ids { first, last } => self.tracked_resolved == last - first + 1,
            Tracking::All => false,
        };
        window_complete || self.source.peek().is_none()
    }

    /// Step 1: every running job's quantum (as the executor observed it) is applied; finished
    /// and abandoned jobs leave the cluster, interrupted ones wait again, lost nodes leave it.
    fn advance_running_jobs(&mut self, now: SimTime, timing: RoundTiming) {
        self.finished_slots.clear();
        for &slot in &self.running {
            let whole_work = self.policies.decision.whole_work(&self.jobs[slot].spec);
            let Observation { quantum, interrupted } = self.executor.observe(&self.jobs[slot], whole_work);
            let job = &mut self.jobs[slot];
            let end = match timing {
                RoundTiming::Fixed => now,
                RoundTiming::UntilLastQuantum | RoundTiming::FixedEndsInside => job.quantum_start + quantum.seconds,
            };
            if job.life.first_progress.is_none() {
                job.life.first_progress = Some(end);
            }
            job.pending_overhead -= quantum.overhead;
            job.life.attained_service += quantum.seconds;
            job.life.executed_work += quantum.work;
            if quantum.completes {
                self.finished_slots.push((slot, Some(end)));
            } else if quantum.abandons {
                self.finished_slots.push((slot, None));
            } else if interrupted {
                self.interrupted.push(slot);
            }
        }
        if !self.interrupted.is_empty() {
            self.interrupt(now);
        }
        self.executor.node_changes(&mut self.node_changes);
        for change in self.node_changes.drain(..) {
            if change.online {
                self.cluster.bring_online(change.node);
            } else {
                self.cluster.take_offline(change.node);
            }
        }
        if self.finished_slots.is_empty() {
            return;
        }
        for &(slot, end) in &self.finished_slots {
            self.slot_states[slot.0 as usize] = SlotState::VACANT;
            let job = self.jobs.remove(slot);
            self.cluster.release_holding(&job.gpus, job.spec.milli_per_gpu(), slot);
            self.cluster.release_host(&job.host);
            self.active_gpu_demand -= u64::from(job.spec.gpus);
            self.running_jobs -= 1;
            self.jobs_finished += u64::from(end.is_some());
            if self.config.tracking.contains(job.spec.id) {
                self.tracked_outstanding -= 1;
                self.tracked_resolved += 1;
                self.records.close(record_of(&job, end, self.policies.decision.promoted(&job)));
            }
        }
        let states = &self.slot_states;
        self.order.retain(|&slot| states[slot.0 as usize].active);
    }

    /// Jobs whose node was lost (and that did not also complete or fail in their last round)
    /// give back their GPUs and wait to be placed again, as if preempted.
    fn interrupt(&mut self, now: SimTime) {
        for slot in self.interrupted.drain(..) {
            let job = &mut self.jobs[slot];
            self.cluster.release_holding(&job.gpus, job.spec.milli_per_gpu(), slot);
            self.cluster.release_host(&job.host);
            job.gpus.clear();
            job.host.clear();
            job.life.preemptions += 1;
            job.last_scheduled = now;
            self.slot_states[slot.0 as usize].stopped(now);
            self.preemptions += 1;
            self.running_jobs -= 1;
        }
    }

    /// Step 3c: fixes the round's quantum of every running job; returns when the last one ends.
    fn start_quanta(&mut self, now: SimTime, timing: RoundTiming) -> Option<SimTime> {
        let round = self.config.round_seconds;
        let mut last_end: Option<SimTime> = None;
        for &slot in &self.running {
            let job = &self.jobs[slot];
            let quantum = self.policies.decision.quantum(job, &self.cluster, round);
            let end = now + quantum.seconds;
            last_end = Some(last_end.map_or(end, |e: SimTime| e.max(end)));
            // Shared GPUs count once, with their owner: the policies that share them (Gavel's
            // pairs) give both jobs the same quantum.
            let guest = job.gpus.first().is_some_and(|&gpu| self.cluster.guest(gpu) == Some(slot));
            if timing == RoundTiming::UntilLastQuantum && !guest {
                self.busy_gpu_seconds += f64::from(job.spec.gpus) * quantum.seconds;
            }
            let job = &mut self.jobs[slot];
            job.quantum = quantum;
            job.quantum_start = now;
        }
        last_end
    }

    /// Moves jobs with `arrival <= now` from the workload into `self.arrivals`.
    fn pull_arrivals(&mut self, now: SimTime) -> Result<(), RunError> {
        while let Some(next) = self.source.next_if(|j| j.arrival <= now) {
            self.check_job(&next)?;
            self.last_arrival = next.arrival;
            self.last_id = Some(next.id);
            let tracked = self.config.tracking.contains(next.id);
            if !self.fits_empty_cluster(&next) {
                self.jobs_unschedulable += 1;
                self.tracked_resolved += u64::from(tracked);
                continue;
            }
            if tracked {
                self.records.open(next.id);
                self.tracked_seen += 1;
                self.tracked_outstanding += 1;
            }
            self.arrivals.push(next);
        }
        Ok(())
    }

    /// Whether the empty cluster has the GPUs `job` asks for (of its model, if it names one);
    /// a job that could never run is dropped at arrival, as unschedulable.
    fn fits_empty_cluster(&self, job: &JobSpec) -> bool {
        // Most jobs accept any GPU: the cluster's count, without a walk over its nodes at every
        // arrival (the same number `gpus_available_to` sums).
        let available = if job.gpu_models.is_empty() {
            self.cluster.total_gpus()
        } else {
            self.cluster.spec().gpus_available_to(job)
        };
        job.gpus <= available
    }

    fn check_job(&self, job: &JobSpec) -> Result<(), RunError> {
        let invalid = |reason: String| Err(RunError::InvalidJob { id: job.id, reason });
        if job.gpus == 0 && job.cpus.is_none_or(|c| c <= 0.0) {
            return invalid("asks for neither GPUs nor CPUs".into());
        }
        for (what, amount) in [("CPUs", job.cpus), ("memory (GB)", job.memory_gb)] {
            if let Some(amount) = amount.filter(|a| !a.is_finite() || *a < 0.0) {
                return invalid(format!("asks for {amount} {what}, not a non-negative number"));
            }
        }
        if let Some(milli) = job.gpu_milli.filter(|&m| m == 0 || m >= MILLI_PER_GPU) {
            return invalid(format!(
                "asks for {milli} milli-GPU of each GPU; a share is more than 0 and less than {MILLI_PER_GPU}"
            ));
        }
        if !job.arrival.is_finite() || job.arrival < 0.0 {
            return invalid(format!("arrival {} is not a non-negative number of seconds", job.arrival));
        }
        if !job.work.is_finite() || job.work < 0.0 {
            return invalid(format!("work {} is not a non-negative number of seconds", job.work));
        }
        if job.arrival < self.last_arrival {
            return Err(RunError::ArrivalsOutOfOrder { id: job.id, arrival: job.arrival, previous: self.last_arrival });
        }
        if let Some(previous) = self.last_id.filter(|&previous| job.id <= previous) {
            return Err(RunError::IdsOutOfOrder { id: job.id, previous });
        }
        Ok(())
    }

    /// Step 2: admission; admitted jobs join the end of the priority order.
    fn admit(&mut self, now: SimTime) {
        if self.arrivals.is_empty() && self.policies.admission.backlog() == 0 {
            return;
        }
        let ctx =
            AdmissionContext { now, total_gpus: self.cluster.total_gpus(), active_gpu_demand: self.active_gpu_demand };
        self.admitted.clear();
        self.policies.admission.admit(&ctx, &mut self.arrivals, &mut self.admitted);
        self.arrivals.clear();
        for spec in self.admitted.drain(..) {
            self.active_gpu_demand += u64::from(spec.gpus);
            let job = ActiveJob::admitted(spec, now, self.config.round_seconds);
            let state = SlotState { active: true, running: false, promoted: false, since: job.last_scheduled };
            let slot = self.jobs.insert(job);
            let index = slot.0 as usize;
            if index >= self.slot_states.len() {
                self.slot_states.resize(index + 1, SlotState::VACANT);
            }
            self.slot_states[index] = state;
            self.order.push(slot);
        }
    }

    /// Steps 3b-4: carry out the placement's decisions and update starvation counters.
    fn apply_decisions(&mut self, now: SimTime) {
        for &slot in &self.decisions.reject {
            self.slot_states[slot.0 as usize] = SlotState::VACANT;
            let job = self.jobs.remove(slot);
            debug_assert!(!job.is_running(), "job {} rejected while running", job.spec.id);
            self.active_gpu_demand -= u64::from(job.spec.gpus);
            self.jobs_unschedulable += 1;
            if self.config.tracking.contains(job.spec.id) {
                self.tracked_outstanding -= 1;
                self.tracked_resolved += 1;
                self.records.close(record_of(&job, None, self.policies.decision.promoted(&job)));
            }
        }
        if !self.decisions.reject.is_empty() {
            let states = &self.slot_states;
            self.order.retain(|&slot| states[slot.0 as usize].active);
        }
        for &slot in &self.decisions.preempt {
            let job = &mut self.jobs[slot];
            job.gpus.clear();
            job.host.clear();
            job.life.preemptions += 1;
            job.last_scheduled = now;
            self.slot_states[slot.0 as usize].stopped(now);
        }
        self.preemptions += self.decisions.preempt.len() as u64;
        self.running_jobs -= self.decisions.preempt.len() as u32;
        self.running_jobs += self.decisions.launch.len() as u32;
        for Launch { job: slot, gpus, host } in self.decisions.launch.drain(..) {
            let job = &mut self.jobs[slot];
            let resumed = job.life.first_start.is_some();
            job.life.first_start.get_or_insert(now);
            job.gpus = gpus;
            job.host = host;
            job.pending_overhead =
                self.policies.overhead.as_ref().map_or(0.0, |m| m.launch_overhead(&job.spec, resumed));
            self.slot_states[slot.0 as usize].running = job.is_running();
        }
        self.resizes += self.decisions.resize.len() as u64;
        for Launch { job: slot, gpus, host } in &self.decisions.resize {
            let job = &mut self.jobs[*slot];
            debug_assert!(job.is_running() && !gpus.is_empty(), "job {} resized while not running", job.spec.id);
            job.gpus.clone_from(gpus);
            job.host.clone_from(host);
            job.life.resizes += 1;
            job.pending_overhead += self.policies.overhead.as_ref().map_or(0.0, |m| m.resize_overhead(&job.spec));
            self.slot_states[slot.0 as usize].running = job.is_running();
        }
        // Blox's guard: a job that has not run, been launched or been preempted for
        // `starvation_guard` seconds is promoted for good. The same walk lists the running jobs.
        self.running.clear();
        for &slot in &self.order {
            let state = &mut self.slot_states[slot.0 as usize];
            if state.running {
                self.running.push(slot);
            } else if !state.promoted && self.config.starvation_guard.is_some_and(|g| now - state.since >= g) {
                state.promoted = true;
                self.jobs[slot].life.promoted = true;
            }
        }
        for &slot in &self.running {
            self.jobs[slot].last_scheduled = now;
            self.slot_states[slot.0 as usize].since = now;
        }
    }

    fn record_round(&mut self, now: SimTime) {
        let (cpus_in_use, memory_gb_in_use) = self.cluster.host_in_use();
        self.timeline.push(TimelineRow {
            time: now,
            free_gpus: self.cluster.free_gpus(),
            gpu_demand: self.active_gpu_demand,
            running: self.running_jobs,
            queued: self.jobs.len() as u32 - self.running_jobs,
            admission_backlog: Some(self.policies.admission.backlog() as u32),
            preemptions: self.decisions.preempt.len() as u32,
            resizes: self.decisions.resize.len() as u32,
            cluster_efficiency: None,
            cpus_in_use,
            memory_gb_in_use,
            arrived_gpu_milli: None,
            allocated_gpu_milli: None,
            fragmented_gpu_milli: None,
            fragmentation_ratio: None,
        });
    }

    fn finish(
        mut self,
        now: SimTime,
        rounds: u64,
        timing: RoundTiming,
        sink: &mut dyn RecordSink,
    ) -> Result<RunTables, RunError> {
        self.executor.end(now, &self.jobs).map_err(RunError::Executor)?;
        // Tracked jobs still active at a horizon are reported unfinished.
        let tracking = self.config.tracking;
        let decision = &self.policies.decision;
        for (_, job) in self.jobs.iter().filter(|(_, j)| tracking.contains(j.spec.id)) {
            self.records.close(record_of(job, None, decision.promoted(job)));
        }
        let summary = self.records.finish(sink)?;

        let totals = RunTotals {
            tracked_jobs: self.tracked_seen,
            jobs_finished: self.jobs_finished,
            jobs_unschedulable: self.jobs_unschedulable,
            makespan: now,
            rounds,
            preemptions: self.preemptions,
            resizes: self.resizes,
            busy_gpu_seconds: self.busy_gpu_seconds,
            capacity_gpu_seconds: match timing {
                RoundTiming::Fixed | RoundTiming::FixedEndsInside => {
                    f64::from(self.cluster.total_gpus()) * rounds as f64 * self.config.round_seconds
                }
                RoundTiming::UntilLastQuantum => f64::from(self.cluster.total_gpus()) * now,
            },
        };
        Ok(RunTables { summary: summary.finish(totals), timeline: self.timeline })
    }
}

/// What the engine's walks over the order read of the job in one slot. `since` is the job's
/// `last_scheduled`, which for a waiting job is where the starvation guard counts from.
#[derive(Debug, Clone, Copy)]
struct SlotState {
    /// The slot holds an active job (finished and rejected jobs leave the order by it).
    active: bool,
    running: bool,
    /// The guard promoted the job (it never checks it again).
    promoted: bool,
    since: SimTime,
}

impl SlotState {
    const VACANT: SlotState = SlotState { active: false, running: false, promoted: false, since: 0.0 };

    /// The job lost what it held at `now` (preempted, or its node was lost).
    fn stopped(&mut self, now: SimTime) {
        self.running = false;
        self.since = now;
    }
}

/// Hands a run's records to the sink in id order as soon as no lower id can still produce one:
/// a record waits only while a tracked job with a lower id is active or held by admission, so a
/// run holds the records of its stragglers' span rather than all of them. Needs ids increasing
/// along the source, which [`Engine`] checks at each arrival.
#[derive(Default)]
struct IdOrder {
    /// Tracked jobs pulled from the source whose record is not made yet.
    open: BTreeSet<JobId>,
    /// Records waiting for every lower open id.
    ready: BTreeMap<JobId, JobRecord>,
    /// The run's metrics, fed in the order the sink sees.
    summary: SummaryBuilder,
}

impl IdOrder {
    fn open(&mut self, id: JobId) {
        self.open.insert(id);
    }

    fn close(&mut self, record: JobRecord) {
        self.open.remove(&record.id);
        self.ready.insert(record.id, record);
    }

    /// Hands over the ready records below the lowest open id.
    fn flush(&mut self, sink: &mut dyn RecordSink) -> Result<(), RunError> {
        let limit = self.open.first().copied();
        while let Some(entry) = self.ready.first_entry().filter(|entry| limit.is_none_or(|open| *entry.key() < open)) {
            let record = entry.remove();
            self.summary.add(&record);
            sink.push(record).map_err(RunError::Output)?;
        }
        Ok(())
    }

    /// Hands over every record left (jobs still held by admission at the end have none).
    fn finish(mut self, sink: &mut dyn RecordSink) -> Result<SummaryBuilder, RunError> {
        self.open.clear();
        self.flush(sink)?;
        Ok(self.summary)
    }
}

/// The record of `job`, finished at `finish` (late iff after its deadline) or still active;
/// `promoted` is the policy's own starvation rule's verdict, where it has one.
fn record_of(job: &ActiveJob, finish: Option<SimTime>, promoted: Option<bool>) -> JobRecord {
    let mut life = job.life;
    if let Some(promoted) = promoted {
        life.promoted = promoted;
    }
    if let Some(at) = finish {
        life.finish(at, job.spec.deadline.is_some_and(|d| at > d));
    }
    JobRecord::of(&job.spec, &life, job.spec.gpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{GpuId, GpuType, HostShare, OrderThenPlace, Quantum, Scheduler};
    use crate::policies::rounds::admission::accept_all::AcceptAll;
    use crate::policies::rounds::overhead::fixed::FixedOverhead;
    use crate::policies::rounds::placement::scattered::Scattered;
    use crate::policies::rounds::scheduling::{fifo::Fifo, las::Las};

    fn job(id: JobId, arrival: f64, gpus: u32, work: f64) -> JobSpec {
        JobSpec { id, arrival, submitted: arrival, gpus, work, ..JobSpec::default() }
    }

    fn config(nodes: u32, gpus: u32) -> RunConfig {
        RunConfig {
            cluster: ClusterSpec::uniform(nodes, gpus),
            round_seconds: 300.0,
            tracking: Tracking::All,
            horizon: None,
            starvation_guard: None,
            record_timeline: true,
        }
    }

    fn fifo_scattered() -> Policies {
        Policies {
            admission: Box::new(AcceptAll),
            decision: Box::new(OrderThenPlace {
                scheduler: Box::new(Fifo::default()),
                placement: Box::new(Scattered::default()),
            }),
            overhead: None,
        }
    }

    fn run(config: RunConfig, scheduler: Box<dyn Scheduler>, jobs: Vec<JobSpec>) -> RunOutput {
        let policies = Policies {
            admission: Box::new(AcceptAll),
            decision: Box::new(OrderThenPlace { scheduler, placement: Box::new(Scattered::default()) }),
            overhead: None,
        };
        Engine::new(config, policies, jobs.into_iter()).unwrap().run().unwrap()
    }

    /// What a sink saw: each record's id with the number of jobs pulled from the source by then.
    struct Witness {
        pulled: std::rc::Rc<std::cell::Cell<u64>>,
        seen: Vec<(JobId, u64)>,
    }

    impl RecordSink for Witness {
        fn push(&mut self, record: JobRecord) -> Result<(), String> {
            self.seen.push((record.id, self.pulled.get()));
            Ok(())
        }
    }

    fn witnessed(config: RunConfig, jobs: Vec<JobSpec>) -> Result<Vec<(JobId, u64)>, RunError> {
        let pulled = std::rc::Rc::new(std::cell::Cell::new(0));
        let counter = pulled.clone();
        let source = jobs.into_iter().inspect(move |_| counter.set(counter.get() + 1));
        let policies = fifo_scattered();
        let mut witness = Witness { pulled, seen: Vec::new() };
        Engine::new(config, policies, source)?.run_into(&mut witness)?;
        Ok(witness.seen)
    }

    /// A record leaves the engine as soon as no lower id can still produce one, long before the
    /// workload is exhausted, and always in id order: a long job holds back only the records of
    /// the jobs after it until it finishes.
    #[test]
    fn records_reach_the_sink_in_id_order_while_the_run_goes() {
        let short: Vec<JobSpec> = (0..20).map(|id| job(id, 300.0 * id as f64, 1, 300.0)).collect();
        let seen = witnessed(config(1, 1), short).unwrap();
        assert_eq!(seen.iter().map(|&(id, _)| id).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert!(seen[0].1 < 5, "job 0's record waited for {} jobs to be pulled", seen[0].1);

        let mut long_first: Vec<JobSpec> = (0..20).map(|id| job(id, 300.0 * id as f64, 1, 300.0)).collect();
        long_first[0].work = 30_000.0;
        let seen = witnessed(config(1, 2), long_first).unwrap();
        assert_eq!(seen.iter().map(|&(id, _)| id).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert!(seen.iter().all(|&(_, pulled)| pulled == 20), "nothing passes the open job 0: {seen:?}");
    }

    #[test]
    fn ids_that_do_not_increase_are_an_error() {
        let jobs = vec![job(0, 0.0, 1, 300.0), job(2, 10.0, 1, 300.0), job(2, 20.0, 1, 300.0)];
        assert_eq!(witnessed(config(1, 1), jobs), Err(RunError::IdsOutOfOrder { id: 2, previous: 2 }));
    }

    #[test]
    fn a_lone_job_starts_at_the_next_round_and_progresses_one_round_later() {
        let out = run(config(1, 1), Box::new(Fifo::default()), vec![job(0, 100.0, 1, 600.0)]);
        let r = &out.jobs[0];
        // Visible at round 300, launched there, progresses at 600 and 900 (Blox's minimum JCT:
        // 300*ceil(a/300) - a + 300*ceil(D/300)).
        assert_eq!((r.first_start, r.first_progress, r.finish), (Some(300.0), Some(600.0), Some(900.0)));
        assert_eq!(r.jct(), Some(800.0));
        assert_eq!(r.responsiveness(), Some(500.0));
        assert_eq!(out.summary.makespan, 900.0);
        assert_eq!(out.summary.rounds, 3);
        // The run ends at 900, before making decisions there.
        assert_eq!(out.timeline.iter().map(|t| t.time).collect::<Vec<_>>(), vec![0.0, 300.0, 600.0]);
    }

    #[test]
    fn las_preempts_for_a_new_job_and_fifo_does_not() {
        let jobs = vec![job(0, 0.0, 1, 900.0), job(1, 300.0, 1, 300.0)];
        let las = run(config(1, 1), Box::new(Las::default()), jobs.clone());
        assert_eq!(las.jobs[1].finish, Some(600.0));
        assert_eq!(las.jobs[0].finish, Some(1200.0));
        assert_eq!(las.jobs[0].preemptions, 1);
        assert_eq!(las.summary.preemptions, 1);
        assert_eq!(las.timeline.iter().find(|t| t.time == 300.0).unwrap().preemptions, 1);

        let fifo = run(config(1, 1), Box::new(Fifo::default()), jobs);
        assert_eq!(fifo.jobs[0].finish, Some(900.0));
        assert_eq!(fifo.jobs[1].finish, Some(1200.0));
        assert_eq!(fifo.summary.preemptions, 0);
    }

    #[test]
    fn the_starvation_guard_promotes_a_waiting_job_above_others() {
        let jobs = vec![job(0, 0.0, 1, 900.0), job(1, 0.0, 1, 900.0)];
        let plain = run(config(1, 1), Box::new(Fifo::default()), jobs.clone());
        assert_eq!(plain.jobs[1].first_start, Some(900.0));
        let guarded = run(RunConfig { starvation_guard: Some(300.0), ..config(1, 1) }, Box::new(Fifo::default()), jobs);
        // Job 1 waits one round, is promoted and preempts job 0 at the next decision.
        assert_eq!(guarded.jobs[1].first_start, Some(300.0));
        assert!(guarded.jobs[1].promoted);
        assert_eq!(guarded.jobs[0].preemptions, 1);
    }

    /// A round decision for the resource-model tests: each waiting job takes the first GPU
    /// with room for its share (or whole free GPUs), and with `grow_at` set, a running one-GPU
    /// job moves to two GPUs at that time.
    struct FirstFit {
        grow_at: Option<SimTime>,
    }

    impl RoundPolicy for FirstFit {
        fn decide(
            &mut self,
            now: SimTime,
            jobs: &JobTable,
            order: &mut [JobSlot],
            cluster: &mut Cluster,
            decisions: &mut PlacementDecisions,
        ) -> Result<(), PolicyError> {
            for &slot in order.iter() {
                let job = &jobs[slot];
                if job.is_running() {
                    if self.grow_at == Some(now) && job.gpus.len() == 1 {
                        let extra = (0..cluster.total_gpus()).find(|&g| cluster.free_milli(g) == MILLI_PER_GPU);
                        if let Some(extra) = extra {
                            cluster.assign(&[extra], slot);
                            decisions.resize.push(Launch::gpus(slot, vec![job.gpus[0], extra]));
                        }
                    }
                    continue;
                }
                let milli = job.spec.milli_per_gpu();
                let Some(gpu) = (0..cluster.total_gpus()).find(|&g| cluster.free_milli(g) >= milli) else { continue };
                if milli < MILLI_PER_GPU {
                    cluster.assign_share(gpu, milli);
                } else {
                    cluster.assign(&[gpu], slot);
                }
                decisions.launch.push(Launch::gpus(slot, vec![gpu]));
            }
            Ok(())
        }

        fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, round_seconds: f64) -> Quantum {
            let work = (round_seconds - job.pending_overhead.min(round_seconds)) * job.gpus.len() as f64;
            let overhead = job.pending_overhead.min(round_seconds);
            Quantum { work, seconds: round_seconds, overhead, completes: job.remaining_work() <= work, abandons: false }
        }
    }

    fn first_fit(config: RunConfig, grow_at: Option<SimTime>, overhead: Option<f64>, jobs: Vec<JobSpec>) -> RunOutput {
        let policies = Policies {
            admission: Box::new(AcceptAll),
            decision: Box::new(FirstFit { grow_at }),
            overhead: overhead.map(|s| Box::new(FixedOverhead { first_launch_s: 0.0, resume_s: s }) as _),
        };
        Engine::new(config, policies, jobs.into_iter()).unwrap().run().unwrap()
    }

    /// Two half-GPU jobs share one GPU and a third waits for room; a share that does not fit
    /// on one GPU is an invalid job, and one asking for a GPU model the cluster lacks never runs.
    #[test]
    fn shares_of_a_gpu_run_side_by_side_and_free_it_when_done() {
        let half = |id| JobSpec { gpu_milli: Some(500), ..job(id, 0.0, 1, 300.0) };
        let out = first_fit(config(1, 1), None, None, vec![half(0), half(1), half(2)]);
        let starts: Vec<_> = out.jobs.iter().map(|r| r.first_start).collect();
        assert_eq!(starts, [Some(0.0), Some(0.0), Some(300.0)], "two halves fit one GPU, the third waits");
        assert_eq!(out.timeline[0].free_gpus, 0, "a shared GPU is busy");
        assert_eq!(out.timeline[0].running, 2);

        let whole = JobSpec { gpu_milli: Some(1000), ..job(0, 0.0, 1, 300.0) };
        let engine = Engine::new(config(1, 1), fifo_scattered(), vec![whole].into_iter()).unwrap().run();
        assert!(matches!(engine, Err(RunError::InvalidJob { id: 0, .. })), "a share is less than one GPU");

        let model = |id, name: &str| JobSpec { gpu_models: vec![GpuType::new(name)], ..job(id, 0.0, 1, 300.0) };
        let out = first_fit(config(1, 2), None, None, vec![model(0, "t4"), model(1, "a100")]);
        assert_eq!(out.summary.jobs_unschedulable, 1, "no t4 in an a100 cluster");
        assert_eq!(out.jobs.iter().map(|r| r.id).collect::<Vec<_>>(), [1]);
    }

    /// Places every waiting job at once or rejects it, as a fill-the-cluster experiment does:
    /// GPU jobs on free whole GPUs, CPU-only jobs on node 0's CPUs; nothing ever finishes.
    struct PlaceOrReject;

    impl RoundPolicy for PlaceOrReject {
        fn decide(
            &mut self,
            _now: SimTime,
            jobs: &JobTable,
            order: &mut [JobSlot],
            cluster: &mut Cluster,
            decisions: &mut PlacementDecisions,
        ) -> Result<(), PolicyError> {
            for &slot in order.iter().filter(|&&slot| !jobs[slot].is_running()) {
                let spec = &jobs[slot].spec;
                let gpus: Vec<GpuId> = cluster.free_gpus_on_node(0).take(spec.gpus as usize).collect();
                let cpus = spec.cpus.unwrap_or(0.0);
                if gpus.len() < spec.gpus as usize || cluster.free_cpus(0) < cpus {
                    decisions.reject.push(slot);
                    continue;
                }
                cluster.assign(&gpus, slot);
                let host: Vec<HostShare> =
                    (cpus > 0.0).then_some(HostShare { node: 0, cpus, memory_gb: 0.0 }).into_iter().collect();
                host.iter().for_each(|share| cluster.hold(share));
                decisions.launch.push(Launch { job: slot, gpus, host });
            }
            Ok(())
        }

        fn quantum(&self, _job: &ActiveJob, _cluster: &Cluster, round_seconds: f64) -> Quantum {
            Quantum { work: 0.0, seconds: round_seconds, ..Quantum::default() }
        }
    }

    /// A policy may reject a job it will never run: the job leaves unfinished, counted as
    /// unschedulable; a job asking for CPUs alone runs on them.
    #[test]
    fn rejected_jobs_leave_and_cpu_only_jobs_run() {
        let node =
            crate::core::NodeSpec { cpus: Some(8), memory_gb: Some(64.0), ..crate::core::NodeSpec::with_gpus(2) };
        let cluster = ClusterSpec { nodes: vec![node] };
        let cpu_only = |id| JobSpec { cpus: Some(4.0), ..job(id, 0.0, 0, 300.0) };
        let jobs = vec![job(0, 0.0, 2, 300.0), job(1, 0.0, 1, 300.0), cpu_only(2), cpu_only(3), cpu_only(4)];
        let policies = Policies { admission: Box::new(AcceptAll), decision: Box::new(PlaceOrReject), overhead: None };
        let filled = RunConfig { cluster, horizon: Some(600.0), ..config(1, 2) };
        let out = Engine::new(filled, policies, jobs.into_iter()).unwrap().run().unwrap();
        let started: Vec<_> = out.jobs.iter().map(|r| (r.id, r.first_start)).collect();
        assert_eq!(started, [(0, Some(0.0)), (1, None), (2, Some(0.0)), (3, Some(0.0)), (4, None)]);
        assert_eq!(out.summary.jobs_unschedulable, 2, "job 1 found no GPU, job 4 no CPU");
        assert_eq!((out.timeline[0].running, out.timeline[0].queued), (3, 0), "rejected jobs do not wait");
        assert_eq!(out.timeline[0].cpus_in_use, Some(8.0));
        let nothing = JobSpec { cpus: None, ..cpu_only(0) };
        let refused = Engine::new(config(1, 2), fifo_scattered(), vec![nothing].into_iter()).unwrap().run();
        assert!(matches!(refused, Err(RunError::InvalidJob { id: 0, .. })), "a job must ask for something");
    }

    /// A resize keeps the job running and its progress, counts as a resize and not a preemption,
    /// and pays the overhead model's resize cost.
    #[test]
    fn a_resize_is_not_a_preemption() {
        let long = || vec![job(0, 0.0, 1, 1500.0)];
        let out = first_fit(config(1, 2), Some(300.0), None, long());
        let r = &out.jobs[0];
        assert_eq!((r.preemptions, r.resizes, r.first_start), (0, 1, Some(0.0)));
        // 300 s of work on one GPU, then 600 per round on two: done after 300 + 600 + 600.
        assert_eq!(r.finish, Some(900.0));
        assert_eq!((out.summary.preemptions, out.summary.resizes), (0, 1));
        let row = out.timeline.iter().find(|t| t.time == 300.0).unwrap();
        assert_eq!((row.resizes, row.preemptions, row.free_gpus), (1, 0, 0));
        let slowed = first_fit(config(1, 2), Some(300.0), Some(150.0), long());
        assert_eq!(slowed.jobs[0].finish, Some(1200.0), "the restart costs 150 s of the next round");
    }

    #[test]
    fn a_job_wider_than_the_cluster_is_counted_and_does_not_block_others() {
        let out = run(config(2, 2), Box::new(Fifo::default()), vec![job(0, 0.0, 5, 300.0), job(1, 0.0, 4, 300.0)]);
        assert_eq!(out.summary.jobs_unschedulable, 1);
        assert_eq!(out.jobs.len(), 1);
        assert_eq!(out.jobs[0].finish, Some(300.0));
    }

    #[test]
    fn multi_gpu_jobs_wait_for_enough_free_gpus_without_backfilling() {
        // 4 GPUs: job 0 takes 3; job 1 needs 2 and blocks job 2 (1 GPU) behind it under FIFO.
        let jobs = vec![job(0, 0.0, 3, 600.0), job(1, 0.0, 2, 300.0), job(2, 0.0, 1, 300.0)];
        let out = run(config(2, 2), Box::new(Fifo::default()), jobs);
        assert_eq!(
            out.jobs.iter().map(|r| r.first_start).collect::<Vec<_>>(),
            vec![Some(0.0), Some(600.0), Some(600.0)]
        );
        assert_eq!(out.timeline[0].free_gpus, 1);
    }

    #[test]
    fn tracking_a_window_stops_when_its_jobs_finish() {
        let jobs: Vec<_> = (0..10).map(|i| job(i, i as f64 * 300.0, 1, 300.0)).collect();
        let out = run(
            RunConfig { tracking: Tracking::Ids { first: 2, last: 3 }, ..config(1, 1) },
            Box::new(Fifo::default()),
            jobs,
        );
        assert_eq!(out.jobs.iter().map(|r| r.id).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(out.summary.makespan, 1200.0);
        assert_eq!(out.summary.tracked_jobs, 2);
    }

    #[test]
    fn a_horizon_ends_the_run_with_unfinished_jobs_reported() {
        let out = run(
            RunConfig { horizon: Some(600.0), ..config(1, 1) },
            Box::new(Fifo::default()),
            vec![job(0, 0.0, 1, 3000.0)],
        );
        assert_eq!(out.summary.makespan, 600.0);
        assert_eq!(out.jobs[0].finish, None);
        assert_eq!(out.summary.tracked_finished, 0);
        assert!(out.summary.avg_jct.is_nan());
    }

    #[test]
    fn a_resume_overhead_delays_a_preempted_job() {
        let jobs = vec![job(0, 0.0, 1, 900.0), job(1, 300.0, 1, 300.0)];
        let policies = Policies {
            admission: Box::new(AcceptAll),
            decision: Box::new(OrderThenPlace {
                scheduler: Box::new(Las::default()),
                placement: Box::new(Scattered::default()),
            }),
            overhead: Some(Box::new(FixedOverhead { first_launch_s: 0.0, resume_s: 150.0 })),
        };
        let out = Engine::new(config(1, 1), policies, jobs.into_iter()).unwrap().run().unwrap();
        // Job 0: 300 s of work, preempted, resumed at 600; loses 150 s, so needs 3 more rounds.
        assert_eq!(out.jobs[0].finish, Some(1500.0));
    }

    #[test]
    fn bad_jobs_are_errors_not_panics() {
        let policies = fifo_scattered;
        let zero = Engine::new(config(1, 1), policies(), vec![job(0, 0.0, 0, 1.0)].into_iter()).unwrap().run();
        assert!(matches!(zero, Err(RunError::InvalidJob { id: 0, .. })));
        let unsorted =
            Engine::new(config(1, 1), policies(), vec![job(0, 600.0, 1, 1.0), job(1, 0.0, 1, 1.0)].into_iter())
                .unwrap()
                .run();
        assert!(matches!(unsorted, Err(RunError::ArrivalsOutOfOrder { id: 1, .. })));
        let no_gpus = Engine::new(
            RunConfig { cluster: ClusterSpec { nodes: vec![] }, ..config(1, 1) },
            policies(),
            std::iter::empty(),
        );
        assert!(no_gpus.is_err());
    }

    /// Loses node 0 at t = 300 s (job 0 runs there) and gets it back at 900 s.
    struct LoseNodeZero {
        now: SimTime,
    }

    impl Executor for LoseNodeZero {
        fn begin_round(&mut self, now: SimTime) -> Result<(), String> {
            self.now = now;
            Ok(())
        }

        fn observe(&mut self, job: &ActiveJob, _whole_work: f64) -> Observation {
            Observation { quantum: job.quantum, interrupted: self.now == 300.0 && job.spec.id == 0 }
        }

        fn node_changes(&mut self, changes: &mut Vec<NodeChange>) {
            if self.now == 300.0 || self.now == 900.0 {
                changes.push(NodeChange { node: 0, online: self.now == 900.0 });
            }
        }

        fn carry_out(&mut self, _: SimTime, _: &JobTable, _: &PlacementDecisions) -> Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn an_interrupted_job_keeps_its_work_and_waits_while_its_node_is_offline() {
        let policies = fifo_scattered();
        let jobs = vec![job(0, 0.0, 1, 900.0), job(1, 0.0, 1, 900.0)];
        let mut executor = LoseNodeZero { now: 0.0 };
        let mut records = Vec::new();
        let tables = Engine::with_executor(config(2, 1), policies, jobs.into_iter(), &mut executor)
            .unwrap()
            .run_into(&mut records)
            .unwrap();
        // Job 0 did 300 s before its node went. With node 0 out, FIFO's walk preempts job 1 on
        // node 1 for it (had node 0 stayed usable, job 0 would have gone there), so job 0 ends
        // at 900 s; job 1 waits until then, when node 0 is back, and runs its 600 s left.
        assert_eq!((records[0].finish, records[0].preemptions, records[0].attained_service), (Some(900.0), 1, 900.0));
        assert_eq!((records[1].finish, records[1].preemptions), (Some(1500.0), 1));
        let free: Vec<(f64, u32)> = tables.timeline.iter().map(|r| (r.time, r.free_gpus)).collect();
        assert_eq!(free, [(0.0, 0), (300.0, 0), (600.0, 0), (900.0, 1), (1200.0, 1)]);
        assert_eq!(tables.summary.preemptions, 2);
    }
}
