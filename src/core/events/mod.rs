//! The event-driven engine: decisions happen at arrivals and planned ends, coalesced to at most
//! one per slot, as in the ElasticFlow (ASPLOS'23) simulator that also runs its Tiresias,
//! Gandiva and Themis baselines. `docs/elasticflow-semantics.md` specifies the original; its
//! sections are cited as §n.
//!
//! The engine owns what every policy of that family shares: the jobs ([`ElasticJob`]), the event
//! list with slot coalescing ([`EventList`]), progress accounting by iterations
//! ([`EventSim::run_all_jobs`]), the buddy placement with its rank cache ([`BuddyPlacement`]) or,
//! for whole-job baselines, MS-YARN ([`YarnPlacement`], [`EventEngine::with_placement`]), the
//! overhead model ([`ScaleOverhead`]) and the records. An [`EventPolicy`] decides at each
//! decision point; its hooks default to the EDF family's behaviour. One decision at time `now`:
//!
//! 1. [`EventPolicy::advance`]: progress since the previous decision (may move ends to `now`);
//! 2. [`EventPolicy::complete`]: the current event's ending jobs finish;
//! 3. [`EventPolicy::decide`]: arrivals join, plans and GPU counts change, jobs are placed;
//! 4. the decision is logged (rank cache, cluster efficiency, timeline row) and the event popped;
//! 5. [`EventPolicy::next_decision`] gives the next time; by default, if events remain: the
//!    scheduling-round counter (restart every `slot`-th round, which clears the rank cache),
//!    [`EventPolicy::charge_overheads`], then coalescing.
//!
//! The event at `now` (arrivals and ends) is the list's front if it has that time; a policy that
//! chooses its own times (Tiresias) may decide at times without one.

mod event_list;
mod job;
mod overhead;
mod placement;
mod step;
mod yarn_placement;

pub use event_list::{Event, EventList};
pub use job::{ElasticJob, JobIdx, JobStatus};
pub use overhead::{ElasticflowOverhead, ScaleOverhead};
pub use placement::{BuddyPlacement, CLASSES, SetId};
pub use step::{Allocation, FreeTimeline, StepFunction, align};
pub use yarn_placement::YarnPlacement;

use super::metrics::RunTotals;
use super::{ClusterSpec, JobRecord, JobSpec, RunError, RunOutput, RunSummary, SimTime, StopFlag, TimelineRow};
use crate::profiles::ThroughputTable;
use std::sync::Arc;

/// Everything about an event-driven run that is not the policy or the workload.
#[derive(Debug, Clone)]
pub struct EventConfig {
    /// Identical nodes (the buddy placement assumes them).
    pub cluster: ClusterSpec,
    /// Minimum spacing of decisions in seconds (`--scheduling_slot`; ElasticFlow Fig 10: 240);
    /// also the number of scheduling rounds between cluster restarts.
    pub slot: f64,
    /// Iterations per second by model, batch and GPUs, for the cluster's GPU type.
    pub throughput: Arc<ThroughputTable>,
    pub record_timeline: bool,
}

/// Where jobs are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EventPlacement {
    /// ElasticFlow's buddy placement ("elastic", §2.6), every policy's own but Gandiva's.
    #[default]
    Elastic,
    /// Tiresias' MS-YARN ([`YarnPlacement`]), for policies that place whole jobs picked by GPU
    /// count through [`EventSim::place_widest_first`] (`tiresias`, `themis`).
    Yarn,
}

/// Safety net against runs that cannot end.
const MAX_DECISIONS: u64 = 10_000_000;

/// A scheduling policy of the event-driven family. Hooks other than [`EventPolicy::decide`]
/// default to the EDF family (edf, edf-accessctrl, ef, ef-accessctrl).
pub trait EventPolicy: Send {
    /// Accounts progress over the `delta` seconds before `now`.
    fn advance(&mut self, sim: &mut EventSim, delta: f64, now: SimTime) -> Result<(), RunError> {
        sim.run_all_jobs(delta, now)
    }

    /// Finishes the jobs the current event ends, in its order: late iff the planned end is after
    /// the deadline (§2.8).
    fn complete(&mut self, sim: &mut EventSim, _now: SimTime, ends: &[JobIdx]) {
        for &j in ends {
            let late = sim.jobs[j].end_time > sim.jobs[j].ddl;
            sim.finish(j, late);
        }
    }

    /// The decision at `now` for the arrivals of the current event (in their order).
    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError>;

    /// Charges reconfiguration overheads after a decision that leaves events to come; `restart`
    /// is this scheduling round's restart flag. Default: none (edf computes 0).
    fn charge_overheads(&mut self, _sim: &mut EventSim, _restart: bool) {}

    /// Whether running job `j`, holding GPUs, occupies them at this decision (the scheduling
    /// log's cluster efficiency and the GPUs in use count it). Default: it is placed (buddy or
    /// yarn). Policies with their own placement (Gandiva's time-sliced node sets) override it.
    fn occupies_gpus(&self, sim: &EventSim, j: JobIdx) -> bool {
        sim.is_placed(j)
    }

    /// The time of the next decision after the one at `now` (whose event is already popped), or
    /// `None` when the policy expects no further decision; the run then ends, or fails if jobs
    /// remain runnable. Policies that step on their own clock (Tiresias' ends and queue jumps,
    /// Gandiva's slot steps, Themis' rounds, ElasticFlow's idle steps) override it. Default, the
    /// EDF family (§2.3): if events remain, the scheduling-round counter, then
    /// [`EventPolicy::charge_overheads`], then slot coalescing of arrivals and ends.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        if sim.events.is_empty() {
            return Ok(None);
        }
        let restart = sim.next_round();
        self.charge_overheads(sim, restart);
        Ok(sim.events.coalesce(now, sim.slot, true))
    }
}

/// The state every event-driven policy works on.
pub struct EventSim {
    pub total_gpus: u32,
    /// GPUs of each (identical) node, for policies with their own placement (Gandiva).
    pub gpus_per_node: u32,
    pub slot: f64,
    /// Every job of the run, in submission order.
    pub jobs: Vec<ElasticJob>,
    pub events: EventList,
    /// Runnable jobs never started, in the order they joined.
    pub pending: Vec<JobIdx>,
    /// Started, unfinished jobs, in start order.
    pub running: Vec<JobIdx>,
    /// Pending and running jobs; policies re-order it (its order breaks ties everywhere).
    pub runnable: Vec<JobIdx>,
    pub placement: BuddyPlacement,
    /// MS-YARN, when the run places with it instead of `placement`.
    pub yarn: Option<YarnPlacement>,
    pub overhead: Box<dyn ScaleOverhead>,
    /// The run's throughput table (policies with per-GPU-type rules recognise it).
    pub throughput: Arc<ThroughputTable>,
    schedule_count: u64,
    restart_period: u64,
    record_timeline: bool,
    timeline: Vec<TimelineRow>,
    place_order: Vec<JobIdx>,
    rank_flags: Vec<(JobIdx, bool)>,
    /// Preemptions since the last timeline row.
    preemptions_since_log: u32,
}

impl EventSim {
    /// `move_to_pending`: `j` becomes runnable.
    pub fn enqueue(&mut self, j: JobIdx) {
        let job = &mut self.jobs[j];
        if job.status == JobStatus::Arrived {
            self.runnable.push(j);
        }
        job.status = JobStatus::Pending;
        self.pending.push(j);
    }

    /// `remove_from_pending`: `j` (re)starts at `now` (its first start fixes the queueing delay).
    pub fn start(&mut self, j: JobIdx, now: SimTime) {
        let job = &mut self.jobs[j];
        if job.status == JobStatus::Arrived {
            self.runnable.push(j);
        }
        job.status = JobStatus::Running;
        job.start_time.get_or_insert(now);
        if let Some(k) = self.pending.iter().position(|&p| p == j) {
            self.pending.remove(k);
        }
        self.running.push(j);
    }

    /// `j` is preempted: it gives up its GPUs (not its placement, which the caller releases
    /// first) and waits again.
    pub fn preempt(&mut self, j: JobIdx) {
        self.back_to_pending(j);
        self.jobs[j].preemptions += 1;
        self.log_preemptions(1);
    }

    /// Counts `n` preemptions (already counted on their jobs) into the next timeline row.
    pub fn log_preemptions(&mut self, n: u32) {
        self.preemptions_since_log += n;
    }

    /// `j` leaves the running jobs without GPUs and waits again.
    fn back_to_pending(&mut self, j: JobIdx) {
        if let Some(k) = self.running.iter().position(|&r| r == j) {
            self.running.remove(k);
        }
        self.pending.push(j);
        let job = &mut self.jobs[j];
        job.status = JobStatus::Pending;
        job.gpus = 0;
    }

    /// `j` is refused (admission control); it never runs.
    pub fn decline(&mut self, j: JobIdx) {
        let job = &mut self.jobs[j];
        job.status = JobStatus::Declined;
        job.late = Some(true);
    }

    /// `j` completes: it leaves the cluster and its lists; `late` decides whether it met its
    /// deadline.
    pub fn finish(&mut self, j: JobIdx, late: bool) {
        self.release(j);
        if let Some(k) = self.running.iter().position(|&r| r == j) {
            self.running.remove(k);
        }
        if let Some(k) = self.runnable.iter().position(|&r| r == j) {
            self.runnable.remove(k);
        }
        let job = &mut self.jobs[j];
        job.status = JobStatus::Finished;
        job.late = Some(late);
    }

    /// `add_end`: an end event for `j` at its `end_time`.
    pub fn add_end(&mut self, j: JobIdx) {
        self.events.add_end(j, self.jobs[j].end_time);
    }

    /// `change_end`: `j`'s end event moves from `old_end` to its `end_time`.
    pub fn change_end(&mut self, j: JobIdx, old_end: SimTime) {
        self.events.move_end(j, old_end, self.jobs[j].end_time);
    }

    /// `JOBS.run_all_jobs` (§2.4): every runnable job holding GPUs progresses for `delta`
    /// seconds before `now`, cut at its (real) planned end, less its pending overhead. A job
    /// whose iterations run out before its planned end has its end event moved to `now` and its
    /// end set to `now - delta + ceil(iterations left / rate)` (the overhead just deducted is
    /// ignored there, as in the original).
    pub fn run_all_jobs(&mut self, delta: f64, now: SimTime) -> Result<(), RunError> {
        for k in 0..self.runnable.len() {
            let j = self.runnable[k];
            let job = &mut self.jobs[j];
            if job.gpus == 0 {
                continue;
            }
            let limit = job.real_end_time.unwrap_or(job.end_time);
            let mut run = delta;
            if now > limit {
                run -= now - limit;
            }
            run = if run < job.overhead { 0.0 } else { run - job.overhead };
            let rate = job.rate(job.gpus)?;
            let mut done = run * rate;
            if job.iter_left <= done && job.end_time > now {
                let new_end = now - delta + (job.iter_left / rate).ceil();
                done = (job.end_time - now + delta) * rate;
                let old_end = job.end_time;
                job.end_time = now;
                self.events.move_end(j, old_end, now);
                self.jobs[j].end_time = new_end;
            }
            let job = &mut self.jobs[j];
            job.iter_left -= done;
            job.overhead = 0.0;
        }
        Ok(())
    }

    /// Charges `j` the reconfiguration overhead of its next progress step (none without GPUs)
    /// and moves its planned end by as much (§2.5: edf-accessctrl, ef, ef-accessctrl).
    pub fn charge_overhead(&mut self, j: JobIdx, restart: bool) {
        let job = &mut self.jobs[j];
        if job.gpus == 0 {
            job.overhead = 0.0;
            return;
        }
        job.overhead = self.overhead.estimate(job.gpus, restart, job.in_cache);
        let old_end = job.end_time;
        job.end_time += job.overhead;
        self.change_end(j, old_end);
    }

    /// Releases the GPUs of every placed runnable job.
    pub fn release_all(&mut self) {
        for k in 0..self.runnable.len() {
            self.release(self.runnable[k]);
        }
    }

    fn release(&mut self, j: JobIdx) {
        let job = &mut self.jobs[j];
        if let Some(set) = job.node_set.take() {
            self.placement.release(set, j, job.gpus);
        }
        if let Some(yarn) = self.yarn.as_mut() {
            yarn.release(j);
        }
    }

    /// Whether `j` holds placed GPUs (a buddy node set or a yarn placement).
    pub fn is_placed(&self, j: JobIdx) -> bool {
        self.jobs[j].node_set.is_some() || self.yarn.as_ref().is_some_and(|y| y.is_placed(j))
    }

    /// Places every runnable job holding GPUs in `runnable` order (edf-accessctrl, §2.6). Unlike
    /// widest-first this can fragment the node sets; when a job does not fit, every placement of
    /// this call is undone and the job is returned (the original fails an assertion there).
    pub fn place_in_runnable_order(&mut self) -> Result<(), JobIdx> {
        for k in 0..self.runnable.len() {
            let j = self.runnable[k];
            let job = &mut self.jobs[j];
            if job.gpus == 0 {
                continue;
            }
            match self.placement.place(j, job.gpus) {
                Some(set) => job.node_set = Some(set),
                None => {
                    self.release_all();
                    return Err(j);
                }
            }
        }
        Ok(())
    }

    /// Places every runnable job holding GPUs, widest first (stable over `runnable` order).
    /// With yarn, after every placement was released: a job that does not fit waits (see
    /// [`YarnPlacement`]); with the buddy placement that is an error.
    pub fn place_widest_first(&mut self) -> Result<(), RunError> {
        self.place_order.clear();
        self.place_order.extend(self.runnable.iter().copied().filter(|&j| self.jobs[j].gpus > 0));
        let jobs = &self.jobs;
        self.place_order.sort_by_key(|&j| std::cmp::Reverse(jobs[j].gpus));
        if let Some(mut yarn) = self.yarn.take() {
            for k in 0..self.place_order.len() {
                let j = self.place_order[k];
                if !yarn.place(j, self.jobs[j].gpus) {
                    self.wait_unplaced(j, &yarn);
                }
            }
            yarn.end_pass();
            self.yarn = Some(yarn);
            return Ok(());
        }
        for k in 0..self.place_order.len() {
            let j = self.place_order[k];
            let job = &mut self.jobs[j];
            match self.placement.place(j, job.gpus) {
                Some(set) => job.node_set = Some(set),
                None => return Err(RunError::Unplaceable { id: job.id, gpus: job.gpus }),
            }
        }
        Ok(())
    }

    /// A job picked to run that yarn cannot place waits: preempted if it ran before this
    /// decision, otherwise back to pending as if never started (no overhead; no start time if
    /// it never ran).
    fn wait_unplaced(&mut self, j: JobIdx, yarn: &YarnPlacement) {
        if yarn.was_released(j) {
            self.preempt(j);
            return;
        }
        self.back_to_pending(j);
        let job = &mut self.jobs[j];
        job.overhead = 0.0;
        if !yarn.was_ever_placed(j) {
            job.start_time = None;
        }
    }

    /// The scheduling-round counter: whether this round restarts the cluster (every `slot`-th
    /// round after the first, §2.5), which empties the rank cache.
    pub fn next_round(&mut self) -> bool {
        let restart = self.schedule_count > 0 && self.schedule_count.is_multiple_of(self.restart_period);
        self.schedule_count += 1;
        if restart {
            self.placement.clear_rank_cache();
        }
        restart
    }

    /// The scheduling log (§2.7): rank-cache flags of placed jobs and one timeline row with the
    /// cluster efficiency `Σ T(g)/T(1)` over running jobs holding GPUs that `occupies` them,
    /// over all GPUs. Returns the GPUs in use.
    fn log_decision(&mut self, now: SimTime, occupies: impl Fn(&EventSim, JobIdx) -> bool) -> u32 {
        let jobs = &self.jobs;
        let flags = &mut self.rank_flags;
        flags.clear();
        self.placement.visit_ranks(|j| jobs[j].gpus, |j, cached| flags.push((j, cached)));
        for &(j, cached) in &self.rank_flags {
            self.jobs[j].in_cache = cached;
        }
        let jobs = &self.jobs;
        let mut efficiency = 0.0;
        let mut allocated = 0;
        for &j in &self.running {
            let job = &jobs[j];
            if job.gpus > 0 && occupies(self, j) {
                efficiency += job.curve.speedup(job.gpus).unwrap_or(0.0);
                allocated += job.gpus;
            }
        }
        if self.record_timeline {
            self.timeline.push(TimelineRow {
                time: now,
                free_gpus: self.total_gpus.saturating_sub(allocated),
                gpu_demand: self.runnable.iter().map(|&j| u64::from(jobs[j].requested_gpus)).sum(),
                running: self.running.iter().filter(|&&j| jobs[j].gpus > 0).count() as u32,
                queued: self.pending.len() as u32,
                // Admission here decides at arrival (accept or decline): no job waits for it.
                admission_backlog: None,
                preemptions: self.preemptions_since_log,
                cluster_efficiency: Some(efficiency / f64::from(self.total_gpus)),
            });
        }
        self.preemptions_since_log = 0;
        allocated
    }
}

/// One event-driven run.
pub struct EventEngine {
    sim: EventSim,
    policy: Box<dyn EventPolicy>,
    stop: StopFlag,
}

impl EventEngine {
    /// Reads the whole workload (event policies plan over every known job) and builds the jobs.
    pub fn new(
        config: EventConfig,
        policy: Box<dyn EventPolicy>,
        source: impl Iterator<Item = JobSpec>,
    ) -> Result<Self, RunError> {
        if !(config.slot.is_finite() && config.slot >= 1.0) {
            return Err(RunError::InvalidConfig(format!("the slot must be at least 1 s, got {}", config.slot)));
        }
        // The buddy placement and the per-run throughput table assume one kind of node.
        let gpus_per_node = match config.cluster.identical_node() {
            Some(node) if node.gpus > 0 => node.gpus,
            _ => {
                return Err(RunError::InvalidConfig(
                    "the event-driven engine needs identical nodes with at least one GPU each".into(),
                ));
            }
        };
        let mut jobs: Vec<ElasticJob> = Vec::new();
        let mut last_arrival = f64::NEG_INFINITY;
        for spec in source {
            if !spec.arrival.is_finite() || spec.arrival < 0.0 {
                let reason = format!("arrival {} is not a non-negative number of seconds", spec.arrival);
                return Err(RunError::InvalidJob { id: spec.id, reason });
            }
            if spec.arrival < last_arrival {
                return Err(RunError::ArrivalsOutOfOrder {
                    id: spec.id,
                    arrival: spec.arrival,
                    previous: last_arrival,
                });
            }
            last_arrival = spec.arrival;
            jobs.push(ElasticJob::new(&spec, &config.throughput)?);
        }
        let total_gpus = config.cluster.total_gpus();
        let events = EventList::from_arrivals(jobs.iter().enumerate().map(|(i, j)| (i, j.submit)));
        let sim = EventSim {
            total_gpus,
            gpus_per_node,
            slot: config.slot,
            jobs,
            events,
            pending: Vec::new(),
            running: Vec::new(),
            runnable: Vec::new(),
            placement: BuddyPlacement::new(config.cluster.nodes.len() as u32, gpus_per_node),
            yarn: None,
            overhead: Box::new(ElasticflowOverhead::for_cluster(total_gpus)),
            throughput: config.throughput,
            schedule_count: 0,
            restart_period: config.slot.round() as u64,
            record_timeline: config.record_timeline,
            timeline: Vec::new(),
            place_order: Vec::new(),
            rank_flags: Vec::new(),
            preemptions_since_log: 0,
        };
        Ok(Self { sim, policy, stop: StopFlag::default() })
    }

    /// Places jobs with `placement` instead of the buddy placement. Only policies that place
    /// whole jobs through [`EventSim::place_widest_first`] after releasing every placement
    /// (`tiresias`, `themis`) honour [`EventPlacement::Yarn`]; the spec allows no other.
    pub fn with_placement(mut self, placement: EventPlacement) -> Self {
        let sim = &mut self.sim;
        sim.yarn = match placement {
            EventPlacement::Elastic => None,
            EventPlacement::Yarn => Some(YarnPlacement::new(sim.total_gpus / sim.gpus_per_node, sim.gpus_per_node)),
        };
        self
    }

    /// Abandons the run (with [`RunError::Stopped`]) once `stop` is raised.
    pub fn with_stop(mut self, stop: StopFlag) -> Self {
        self.stop = stop;
        self
    }

    /// Runs until the policy expects no further decision.
    pub fn run(mut self) -> Result<RunOutput, RunError> {
        let sim = &mut self.sim;
        let mut next = sim.events.front().map(|e| e.time);
        let mut delta = 0.0;
        let mut decisions: u64 = 0;
        let mut busy_gpu_seconds = 0.0;
        let (mut arrivals, mut ends) = (Vec::new(), Vec::new());
        while let Some(now) = next {
            self.policy.advance(sim, delta, now)?;
            if let Some(event) = sim.events.front_mut().filter(|e| e.time == now) {
                std::mem::swap(&mut arrivals, &mut event.arrivals);
                std::mem::swap(&mut ends, &mut event.ends);
            }
            self.policy.complete(sim, now, &ends);
            self.policy.decide(sim, now, &arrivals)?;
            arrivals.clear();
            ends.clear();
            let policy = &self.policy;
            let allocated = sim.log_decision(now, |sim, j| policy.occupies_gpus(sim, j));
            if sim.events.front().is_some_and(|e| e.time == now) {
                sim.events.pop_front();
            }
            decisions += 1;
            if decisions >= MAX_DECISIONS {
                return Err(RunError::NoEnd { rounds: decisions, active_jobs: sim.runnable.len() });
            }
            if self.stop.is_stopped() {
                return Err(RunError::Stopped);
            }
            next = self.policy.next_decision(sim, now)?;
            match next {
                Some(t) => {
                    busy_gpu_seconds += f64::from(allocated) * (t - now);
                    delta = (t - now).trunc();
                }
                // The original would pop from an empty list or stop (§13): nothing can start.
                None if !sim.runnable.is_empty() => {
                    return Err(RunError::NoEnd { rounds: decisions, active_jobs: sim.runnable.len() });
                }
                None => {}
            }
        }
        Ok(self.finish(decisions, busy_gpu_seconds))
    }

    fn finish(self, decisions: u64, busy_gpu_seconds: f64) -> RunOutput {
        let sim = self.sim;
        let mut records: Vec<JobRecord> = sim.jobs.iter().map(record_of).collect();
        records.sort_by_key(|r| r.id);
        let makespan = records.iter().filter_map(|r| r.finish).fold(0.0, f64::max);
        let totals = RunTotals {
            tracked_jobs: records.len() as u64,
            jobs_finished: records.iter().filter(|r| r.finish.is_some()).count() as u64,
            jobs_unschedulable: 0,
            makespan,
            rounds: decisions,
            preemptions: records.iter().map(|r| u64::from(r.preemptions)).sum(),
            busy_gpu_seconds,
            capacity_gpu_seconds: f64::from(sim.total_gpus) * makespan,
        };
        let summary = RunSummary::from_records(&records, totals);
        RunOutput { summary, jobs: records, timeline: sim.timeline }
    }
}

fn record_of(job: &ElasticJob) -> JobRecord {
    let finished = job.status == JobStatus::Finished;
    JobRecord {
        id: job.id,
        arrival: job.submit,
        gpus: job.requested_gpus,
        work: job.duration,
        first_start: job.start_time,
        first_progress: None,
        finish: finished.then_some(job.end_time),
        preemptions: job.preemptions,
        attained_service: job.start_time.filter(|_| finished).map_or(0.0, |s| job.end_time - s),
        promoted: job.promotions > 0,
        deadline: (!job.best_effort).then_some(job.ddl),
        best_effort: job.best_effort,
        met_deadline: if job.best_effort { None } else { job.late.map(|late| !late) },
        final_gpus: finished.then_some(job.gpus),
    }
}
