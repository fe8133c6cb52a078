//! The round-based simulation loop.
//!
//! One round at time `t` does, in Blox's order (`blox_new_flow_multi_run.py` with
//! `BloxManager`, see `shared/notes/blox.md` §1.3-1.5):
//!
//! 1. advance every running job by one round of work and retire the ones that are done
//!    (their JCT ends at `t`); a job's first round of progress sets its responsiveness;
//! 2. take the arrivals with `arrival <= t` and pass them through admission;
//! 3. let the scheduler order all active jobs, then the placement launch/preempt by that order;
//! 4. update starvation counters: a job not scheduled for `starvation_guard` seconds is promoted
//!    above all unpromoted jobs for good;
//! 5. record the round; stop if every tracked job has finished, else `t += round`.
//!
//! A job launched at round `k` therefore first progresses in round `k + 1`'s accounting, and all
//! times are multiples of the round length. Rounds in which the cluster is empty and nothing
//! arrives are skipped without changing any result.
//!
//! The engine keeps the priority order from round to round; the cost of a round grows with the
//! number of active jobs only, never with the length of the trace (arrivals are pulled lazily).

use super::policy::{Admission, AdmissionContext, OverheadModel, Placement, PlacementDecisions, Scheduler};
use super::{ActiveJob, Cluster, ClusterSpec, JobId, JobRecord, JobSlot, JobSpec, JobTable, RunOutput, RunSummary, SimTime, TimelineRow};
use super::metrics::{mean, quantile_sorted};
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

/// Safety net against runs that cannot end (about 95 years of 300 s rounds).
const MAX_ROUNDS: u64 = 10_000_000;

/// Why a run could not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    InvalidJob { id: JobId, reason: String },
    ArrivalsOutOfOrder { id: JobId, arrival: SimTime, previous: SimTime },
    InvalidConfig(String),
    NoEnd { rounds: u64, active_jobs: usize },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::InvalidJob { id, reason } => write!(f, "job {id}: {reason}"),
            RunError::ArrivalsOutOfOrder { id, arrival, previous } => {
                write!(f, "job {id} arrives at {arrival} s, before the previous job ({previous} s); workloads must be sorted by arrival")
            }
            RunError::InvalidConfig(msg) => write!(f, "invalid run configuration: {msg}"),
            RunError::NoEnd { rounds, active_jobs } => write!(
                f,
                "the run did not end after {rounds} rounds ({active_jobs} jobs still active); set a horizon or a smaller tracking window"
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// The policies of one run.
pub struct Policies {
    pub admission: Box<dyn Admission>,
    pub scheduler: Box<dyn Scheduler>,
    pub placement: Box<dyn Placement>,
    pub overhead: Option<Box<dyn OverheadModel>>,
}

/// One simulation run.
pub struct Engine<S: Iterator<Item = JobSpec>> {
    config: RunConfig,
    policies: Policies,
    source: std::iter::Peekable<S>,
    cluster: Cluster,
    jobs: JobTable,
    order: Vec<JobSlot>,
    arrivals: Vec<JobSpec>,
    admitted: Vec<JobSpec>,
    decisions: PlacementDecisions,
    finished_slots: Vec<JobSlot>,
    records: Vec<JobRecord>,
    timeline: Vec<TimelineRow>,
    last_arrival: SimTime,
    tracked_seen: u64,
    tracked_outstanding: u64,
    tracking_closed: bool,
    jobs_finished: u64,
    jobs_unschedulable: u64,
    preemptions: u64,
    busy_gpu_seconds: f64,
}

impl<S: Iterator<Item = JobSpec>> Engine<S> {
    pub fn new(config: RunConfig, policies: Policies, source: S) -> Result<Self, RunError> {
        if !(config.round_seconds.is_finite() && config.round_seconds > 0.0) {
            return Err(RunError::InvalidConfig(format!("round length must be positive, got {}", config.round_seconds)));
        }
        if config.cluster.total_gpus() == 0 {
            return Err(RunError::InvalidConfig("the cluster has no GPUs".into()));
        }
        Ok(Self {
            cluster: Cluster::new(config.cluster.clone()),
            config,
            policies,
            source: source.peekable(),
            jobs: JobTable::default(),
            order: Vec::new(),
            arrivals: Vec::new(),
            admitted: Vec::new(),
            decisions: PlacementDecisions::default(),
            finished_slots: Vec::new(),
            records: Vec::new(),
            timeline: Vec::new(),
            last_arrival: f64::NEG_INFINITY,
            tracked_seen: 0,
            tracked_outstanding: 0,
            tracking_closed: false,
            jobs_finished: 0,
            jobs_unschedulable: 0,
            preemptions: 0,
            busy_gpu_seconds: 0.0,
        })
    }

    /// Runs to the end and returns what was measured.
    pub fn run(mut self) -> Result<RunOutput, RunError> {
        let round = self.config.round_seconds;
        let mut round_index: u64 = 0;
        loop {
            let now = round_index as f64 * round;
            self.advance_running_jobs(now);
            self.pull_arrivals(now)?;
            self.admit(now);
            self.policies.scheduler.order(now, &self.jobs, &mut self.order);
            self.decisions.clear();
            self.policies.placement.place(&self.jobs, &self.order, &mut self.cluster, &mut self.decisions);
            self.apply_decisions(now);
            self.busy_gpu_seconds += f64::from(self.cluster.total_gpus() - self.cluster.free_gpus()) * round;
            if self.config.record_timeline {
                self.record_round(now);
            }

            let horizon_reached = self.config.horizon.is_some_and(|h| now >= h);
            if (self.tracking_closed && self.tracked_outstanding == 0) || horizon_reached {
                return Ok(self.finish(now, round_index + 1));
            }
            round_index += 1;
            if self.jobs.is_empty() && self.policies.admission.backlog() == 0 {
                // Nothing can happen before the next arrival: jump to the round that admits it.
                if let Some(next) = self.source.peek() {
                    let arrival_round = (next.arrival / round).ceil() as u64;
                    round_index = round_index.max(arrival_round);
                }
            }
            if round_index >= MAX_ROUNDS {
                return Err(RunError::NoEnd { rounds: round_index, active_jobs: self.jobs.len() });
            }
        }
    }

    /// Step 1: one round of progress for every running job; finished jobs leave the cluster.
    fn advance_running_jobs(&mut self, now: SimTime) {
        let round = self.config.round_seconds;
        self.finished_slots.clear();
        for &slot in &self.order {
            let job = &mut self.jobs[slot];
            if !job.is_running() {
                continue;
            }
            if job.first_progress.is_none() {
                job.first_progress = Some(now);
            }
            let lost = job.pending_overhead.min(round);
            job.pending_overhead -= lost;
            job.attained_service += round;
            let rate = self.policies.scheduler.progress_rate(job);
            job.executed_work += (round - lost) * rate;
            if job.executed_work >= job.spec.work {
                self.finished_slots.push(slot);
            }
        }
        if self.finished_slots.is_empty() {
            return;
        }
        for &slot in &self.finished_slots {
            let job = self.jobs.remove(slot);
            self.cluster.release(&job.gpus);
            self.jobs_finished += 1;
            if self.config.tracking.contains(job.spec.id) {
                self.tracked_outstanding -= 1;
                self.records.push(record_of(&job, Some(now)));
            }
        }
        let jobs = &self.jobs;
        self.order.retain(|&slot| jobs.contains(slot));
    }

    /// Moves jobs with `arrival <= now` from the workload into `self.arrivals`.
    fn pull_arrivals(&mut self, now: SimTime) -> Result<(), RunError> {
        while let Some(next) = self.source.next_if(|j| j.arrival <= now) {
            self.check_job(&next)?;
            self.last_arrival = next.arrival;
            if let Tracking::Ids { last, .. } = self.config.tracking
                && next.id > last
            {
                self.tracking_closed = true;
            }
            if next.gpus > self.cluster.total_gpus() {
                self.jobs_unschedulable += 1;
                continue;
            }
            if self.config.tracking.contains(next.id) {
                self.tracked_seen += 1;
                self.tracked_outstanding += 1;
            }
            self.arrivals.push(next);
        }
        if self.source.peek().is_none() {
            self.tracking_closed = true;
        }
        Ok(())
    }

    fn check_job(&self, job: &JobSpec) -> Result<(), RunError> {
        let invalid = |reason: String| Err(RunError::InvalidJob { id: job.id, reason });
        if job.gpus == 0 {
            return invalid("asks for 0 GPUs".into());
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
        Ok(())
    }

    /// Step 2: admission; admitted jobs join the end of the priority order.
    fn admit(&mut self, now: SimTime) {
        if self.arrivals.is_empty() && self.policies.admission.backlog() == 0 {
            return;
        }
        let ctx = AdmissionContext {
            now,
            total_gpus: self.cluster.total_gpus(),
            active_gpu_demand: self.jobs.iter().map(|(_, j)| u64::from(j.spec.gpus)).sum(),
        };
        self.admitted.clear();
        self.policies.admission.admit(&ctx, &mut self.arrivals, &mut self.admitted);
        self.arrivals.clear();
        for spec in self.admitted.drain(..) {
            let slot = self.jobs.insert(ActiveJob::new(spec));
            self.order.push(slot);
        }
    }

    /// Steps 3b-4: carry out the placement's decisions and update starvation counters.
    fn apply_decisions(&mut self, now: SimTime) {
        let round = self.config.round_seconds;
        // Jobs that held GPUs at the start of the decision (kept or preempted) were scheduled
        // this round; every other job waited one more round.
        for &slot in &self.order {
            let job = &mut self.jobs[slot];
            if job.is_running() {
                job.time_since_scheduled = 0.0;
            } else {
                job.time_since_scheduled += round;
                if self.config.starvation_guard.is_some_and(|g| job.time_since_scheduled >= g) {
                    job.promoted = true;
                }
            }
        }
        for &slot in &self.decisions.preempt {
            let job = &mut self.jobs[slot];
            job.gpus.clear();
            job.preemptions += 1;
        }
        self.preemptions += self.decisions.preempt.len() as u64;
        for (slot, gpus) in self.decisions.launch.drain(..) {
            let job = &mut self.jobs[slot];
            let resumed = job.first_start.is_some();
            job.first_start.get_or_insert(now);
            job.gpus = gpus;
            job.time_since_scheduled = 0.0;
            job.pending_overhead = self.policies.overhead.as_ref().map_or(0.0, |m| m.launch_overhead(&job.spec, resumed));
        }
    }

    fn record_round(&mut self, now: SimTime) {
        let running = self.order.iter().filter(|&&s| self.jobs[s].is_running()).count() as u32;
        self.timeline.push(TimelineRow {
            time: now,
            free_gpus: self.cluster.free_gpus(),
            gpu_demand: self.jobs.iter().map(|(_, j)| u64::from(j.spec.gpus)).sum(),
            running,
            queued: self.jobs.len() as u32 - running,
            admission_backlog: self.policies.admission.backlog() as u32,
            preemptions: self.decisions.preempt.len() as u32,
        });
    }

    fn finish(mut self, now: SimTime, rounds: u64) -> RunOutput {
        // Tracked jobs still active at a horizon are reported unfinished.
        let tracking = self.config.tracking;
        self.records.extend(self.jobs.iter().filter(|(_, j)| tracking.contains(j.spec.id)).map(|(_, j)| record_of(j, None)));
        self.records.sort_by_key(|r| r.id);

        let mut jcts: Vec<f64> = self.records.iter().filter_map(JobRecord::jct).collect();
        jcts.sort_by(f64::total_cmp);
        let responsiveness: Vec<f64> = self.records.iter().filter(|r| r.finish.is_some()).filter_map(JobRecord::responsiveness).collect();
        let total_gpu_seconds = f64::from(self.cluster.total_gpus()) * rounds as f64 * self.config.round_seconds;
        let summary = RunSummary {
            tracked_jobs: self.tracked_seen,
            tracked_finished: jcts.len() as u64,
            jobs_finished: self.jobs_finished,
            jobs_unschedulable: self.jobs_unschedulable,
            avg_jct: mean(&jcts),
            median_jct: quantile_sorted(&jcts, 0.5),
            p95_jct: quantile_sorted(&jcts, 0.95),
            p99_jct: quantile_sorted(&jcts, 0.99),
            avg_responsiveness: mean(&responsiveness),
            makespan: now,
            rounds,
            preemptions: self.preemptions,
            promoted_jobs: self.records.iter().filter(|r| r.promoted).count() as u64,
            gpu_utilization: self.busy_gpu_seconds / total_gpu_seconds,
        };
        RunOutput { summary, jobs: self.records, timeline: self.timeline }
    }
}

fn record_of(job: &ActiveJob, finish: Option<SimTime>) -> JobRecord {
    JobRecord {
        id: job.spec.id,
        arrival: job.spec.arrival,
        gpus: job.spec.gpus,
        work: job.spec.work,
        first_start: job.first_start,
        first_progress: job.first_progress,
        finish,
        preemptions: job.preemptions,
        attained_service: job.attained_service,
        promoted: job.promoted,
    }
}
