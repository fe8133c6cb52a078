//! The event-driven engine: decisions happen at arrivals and planned ends, coalesced to at most
//! one per slot, as in the ElasticFlow (ASPLOS'23) simulator that also runs its Tiresias,
//! Gandiva and Themis baselines. `docs/elasticflow-semantics.md` specifies the original; its
//! sections are cited as §n.
//!
//! The engine owns what every policy of that family shares: the jobs ([`EventJob`]), the event
//! list with slot coalescing ([`EventList`]), progress accounting by iterations
//! ([`EventSim::run_all_jobs`]), the core [`Cluster`] (who holds which GPU, as in the round
//! engine), the placement the policy brings, if any ([`GpuPlacement`]: ElasticFlow's buddy
//! placement or MS-YARN, both the policies'), which chooses GPUs and records them in that
//! cluster, and the records. Reconfiguration overheads are the policies' own. That state is
//! private to [`EventSim`]:
//! policies read it through accessors and change it through the original's verbs (enqueue,
//! start, preempt, finish, place, ...), so the engine keeps the job lists and placements
//! consistent. A job is resizable along ElasticFlow's throughput curve or, without one, runs
//! whole at its own size ([`Speed`]); policies that need curves refuse jobs without one
//! ([`EventPolicy::check_job`]). An [`EventPolicy`] decides at each decision point; every step
//! that differs between families is its own to say (the steps ElasticFlow's policies share are
//! named functions in `policies::events::steps`). One decision at time `now`:
//!
//! 0. the [`EventExecutor`] may begin the decision (live mode: the wall clock reaches `now`);
//! 1. [`EventPolicy::advance`]: progress since the previous decision (may move ends to `now`);
//!    on a real cluster the jobs' measured progress then replaces it and jobs whose processes
//!    finished become ends of this event ([`EventExecutor::observe`]);
//! 2. [`EventPolicy::complete`]: the current event's ending jobs finish;
//! 3. [`EventPolicy::decide`]: arrivals join, plans and GPU counts change, jobs are placed;
//! 4. the decision is logged (what the placement remembers, cluster efficiency, timeline row),
//!    carried out ([`EventExecutor::carry_out`]: nothing in simulation) and the event popped;
//! 5. [`EventPolicy::next_decision`] gives the next time (the EDF family: if events remain, the
//!    scheduling-round counter, restart every `slot`-th round, which makes the placement forget,
//!    then its overheads, then coalescing).
//!
//! The event at `now` (arrivals and ends) is the list's front if it has that time; a policy that
//! chooses its own times (Tiresias) may decide at times without one.

mod event_list;
mod executor;
mod job;
mod placement;
mod step;

pub use event_list::{Event, EventList};
pub use executor::{EventExecutor, Measured};
pub use job::{EventJob, JobIdx, JobStatus, Scaling, Speed};
pub use placement::{GpuPlacement, MakePlacement};
pub use step::{Allocation, StepFunction, align};

use super::metrics::RunTotals;
use super::{
    Cluster, ClusterSpec, JobRecord, JobSpec, RecordSink, RunError, RunOutput, RunSummary, RunTables, SimTime,
    Simulated, StopFlag, TimelineRow, WholeNodes,
};
use crate::profiles::ThroughputTable;
use std::sync::Arc;

/// Everything about an event-driven run that is not the policy or the workload.
#[derive(Debug, Clone)]
pub struct EventConfig {
    /// Identical nodes (placements and the per-run throughput table assume them).
    pub cluster: ClusterSpec,
    /// Minimum spacing of decisions in seconds (`--scheduling_slot`; ElasticFlow Fig 10: 240);
    /// also the number of scheduling rounds between cluster restarts.
    pub slot: f64,
    /// Iterations per second by model, batch and GPUs, for the cluster's GPU type.
    pub throughput: Arc<ThroughputTable>,
    pub record_timeline: bool,
}

/// Safety net against runs that cannot end.
const MAX_DECISIONS: u64 = 10_000_000;

/// A scheduling policy of the event engine. The defaults are neutral (any job runs, a placed job
/// occupies its GPUs); where jobs are placed, how time advances, jobs end and the next decision
/// comes is each policy's.
pub trait EventPolicy: Send {
    /// The placement the engine's placement verbs use for this policy's jobs
    /// ([`EventSim::place`], [`EventSim::place_widest_first`], ...). Default: none, for a policy
    /// that places jobs its own way or not at all and never calls them (a verb called without a
    /// placement fails the run, naming the job): Gandiva's node sets, the Muri family's nodes.
    fn placement(&self) -> Option<MakePlacement> {
        None
    }

    /// Why the policy cannot run `job` on `cluster`, if it cannot: the engine refuses, before the
    /// run, the first such job, naming it (and `blox validate` reports it with the spec).
    /// Default: any job. Policies that resize jobs ask for a throughput curve
    /// ([`EventJob::require_curve`]); the Muri family for its trace fields and a GPU count
    /// MS-YARN can place and its overhead table knows.
    fn check_job(&self, _job: &EventJob, _cluster: &ClusterSpec) -> Result<(), String> {
        Ok(())
    }

    /// Accounts progress over the `delta` seconds before `now` (most: [`EventSim::run_all_jobs`]).
    fn advance(&mut self, sim: &mut EventSim, delta: f64, now: SimTime) -> Result<(), RunError>;

    /// Finishes the jobs the current event ends (`ends`, in its order).
    fn complete(&mut self, sim: &mut EventSim, now: SimTime, ends: &[JobIdx]);

    /// The decision at `now` for the arrivals of the current event (in their order).
    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError>;

    /// Whether running job `j`, holding GPUs, occupies them at this decision (the scheduling
    /// log's cluster efficiency and the GPUs in use count it). Default: the engine's placement
    /// placed it. Policies with their own placement (Gandiva's time-sliced node sets, the Muri
    /// family's nodes) override it.
    fn occupies_gpus(&self, sim: &EventSim, j: JobIdx) -> bool {
        sim.is_placed(j)
    }

    /// The time of the next decision after the one at `now` (whose event is already popped), or
    /// `None` when the policy expects no further decision; the run then ends, or fails if jobs
    /// remain runnable (Tiresias' ends and queue jumps, Gandiva's slot steps, Themis' rounds, the
    /// EDF family's coalesced rounds).
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError>;
}

/// The state every event-driven policy works on, private behind the verbs of the original's job
/// lists, event list and placements, so that the engine keeps its invariants: a runnable job is
/// in exactly one of `pending` and `running`, and a placed job holds the GPUs it was placed
/// with. Policies read through accessors (slices, no copies) and keep what is theirs alone
/// (queues, counters, plans) in their own state.
pub struct EventSim {
    total_gpus: u32,
    /// GPUs of each (identical) node.
    gpus_per_node: u32,
    slot: f64,
    /// Every job of the run, in submission order.
    jobs: Vec<EventJob>,
    events: EventList,
    /// Runnable jobs never started, in the order they joined.
    pending: Vec<JobIdx>,
    /// Started, unfinished jobs, in start order.
    running: Vec<JobIdx>,
    /// Pending and running jobs; policies re-order it (its order breaks ties everywhere).
    runnable: Vec<JobIdx>,
    /// Who holds which GPU: the core's cluster model, as in the round engine; the placement
    /// below chooses the GPUs and records them here.
    cluster: Cluster,
    /// The policy's placement (or the spec's); `None` for policies that place jobs their own way.
    placement: Option<Box<dyn GpuPlacement>>,
    /// By job: whether it gave back placed GPUs since the last widest-first pass (it ran before
    /// this decision, or finished), and whether it was ever placed, for refused jobs that wait.
    released_since_pass: Vec<bool>,
    ever_placed: Vec<bool>,
    throughput: Arc<ThroughputTable>,
    schedule_count: u64,
    restart_period: u64,
    record_timeline: bool,
    timeline: Vec<TimelineRow>,
    place_order: Vec<JobIdx>,
    /// Scratch for the placement's report of placements used before.
    used_before: Vec<(JobIdx, bool)>,
    /// Preemptions since the last timeline row.
    preemptions_since_log: u32,
    /// GPUs each job held at the previous decision, to count resizes: a job that runs at two
    /// decisions in a row on a different number of GPUs was resized, not preempted.
    gpus_at_last_decision: Vec<u32>,
    /// Each job's iterations at the start (what measured progress is a share of).
    whole_iterations: Vec<f64>,
    /// On a real cluster: by job, whether its process finished its work ([`EventSim::completes`]);
    /// empty in simulation.
    finished_for_real: Vec<bool>,
}

/// What policies read.
impl EventSim {
    pub fn total_gpus(&self) -> u32 {
        self.total_gpus
    }

    /// GPUs of each (identical) node, for policies with their own placement (Gandiva).
    pub fn gpus_per_node(&self) -> u32 {
        self.gpus_per_node
    }

    /// Minimum spacing of decisions in seconds.
    pub fn slot(&self) -> f64 {
        self.slot
    }

    /// The run's throughput table (policies with per-GPU-type rules recognise it).
    pub fn throughput(&self) -> &ThroughputTable {
        &self.throughput
    }

    /// Every job of the run, in submission order (indexed by [`JobIdx`]).
    pub fn jobs(&self) -> &[EventJob] {
        &self.jobs
    }

    pub fn job(&self, j: JobIdx) -> &EventJob {
        &self.jobs[j]
    }

    /// Runnable jobs never started, in the order they joined.
    pub fn pending(&self) -> &[JobIdx] {
        &self.pending
    }

    /// Started, unfinished jobs, in start order.
    pub fn running(&self) -> &[JobIdx] {
        &self.running
    }

    /// Pending and running jobs, in the order policies gave them.
    pub fn runnable(&self) -> &[JobIdx] {
        &self.runnable
    }

    /// Whether events (arrivals, ends, requested decisions) remain.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// The time of the earliest event.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.front().map(|e| e.time)
    }

    /// Whether `j` holds GPUs the engine's placement gave it.
    pub fn is_placed(&self, j: JobIdx) -> bool {
        !self.jobs[j].held.is_empty()
    }

    /// Who holds which GPU (the engine's placement records its jobs here).
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Whether `j`, at a planned end, has done its work: always in simulation, where the plan is
    /// the run; on a real cluster only once its process finished (the engine then lists it as
    /// an end of the current event). A policy skips a planned end of a job that has not, and
    /// plans it again from its measured progress.
    pub fn completes(&self, j: JobIdx) -> bool {
        self.finished_for_real.get(j).is_none_or(|&done| done)
    }
}

/// The job lists (ElasticFlow's `JOBS`): the only ways a job changes list.
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
        job.life.first_start.get_or_insert(now);
        if let Some(k) = self.pending.iter().position(|&p| p == j) {
            self.pending.remove(k);
        }
        self.running.push(j);
    }

    /// `j` is preempted: it gives up its GPUs (not its placement, which the caller releases
    /// first) and waits again.
    pub fn preempt(&mut self, j: JobIdx) {
        self.back_to_pending(j);
        self.jobs[j].life.preemptions += 1;
        self.log_preemptions(1);
    }

    /// Counts `n` preemptions (already counted on their jobs) into the next timeline row.
    fn log_preemptions(&mut self, n: u32) {
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

    /// Themis' rounds: re-decides every runnable job at once, in runnable order (placements
    /// released). A job `pick` takes runs on the GPUs it asks for (starting now if new); every
    /// other one waits, a running one counting a preemption. `running` and `pending` then follow
    /// runnable order.
    pub fn pick_running(&mut self, now: SimTime, mut pick: impl FnMut(&EventJob) -> bool) {
        self.running.clear();
        self.pending.clear();
        let mut preempted = 0;
        for &j in &self.runnable {
            debug_assert!(!self.is_placed(j), "job {j} is re-decided while placed");
            let job = &mut self.jobs[j];
            if pick(job) {
                job.gpus = job.spec.gpus;
                job.status = JobStatus::Running;
                job.life.first_start.get_or_insert(now);
                self.running.push(j);
            } else {
                if job.status == JobStatus::Running {
                    job.life.preemptions += 1;
                    preempted += 1;
                }
                job.gpus = 0;
                job.status = JobStatus::Pending;
                self.pending.push(j);
            }
        }
        self.log_preemptions(preempted);
    }

    /// Lets `order` permute the runnable jobs (it must keep the same jobs) with every job in
    /// view; returns what `order` returns (a planner's verdict).
    pub fn reorder_runnable<R>(&mut self, order: impl FnOnce(&[EventJob], &mut [JobIdx]) -> R) -> R {
        order(&self.jobs, &mut self.runnable)
    }

    /// `j` is refused (admission control); it never runs.
    pub fn decline(&mut self, j: JobIdx) {
        let job = &mut self.jobs[j];
        job.status = JobStatus::Declined;
        job.life.late = Some(true);
    }

    /// `j` completes at `end`, which becomes its planned end: it leaves the cluster and its
    /// lists; `late` decides whether it met its deadline. Its attained service is the span since
    /// its first start.
    pub fn finish(&mut self, j: JobIdx, end: SimTime, late: bool) {
        self.release(j);
        if let Some(k) = self.running.iter().position(|&r| r == j) {
            self.running.remove(k);
        }
        if let Some(k) = self.runnable.iter().position(|&r| r == j) {
            self.runnable.remove(k);
        }
        let job = &mut self.jobs[j];
        job.status = JobStatus::Finished;
        job.end_time = end;
        job.life.finish(end, late);
        job.life.attained_service = job.life.first_start.map_or(0.0, |start| end - start);
    }

    /// A starvation rule moves `j` back to the top (Tiresias' `promote`).
    pub fn promote(&mut self, j: JobIdx) {
        self.jobs[j].life.promoted = true;
    }
}

/// What policies plan for a job. None of it moves an event: planned ends change with their end
/// events ([`EventSim::add_end`], [`EventSim::move_end`]).
impl EventSim {
    /// `j` holds `gpus` GPUs from now; an unplaced job only (placements are released first).
    pub fn set_gpus(&mut self, j: JobIdx, gpus: u32) {
        debug_assert!(!self.is_placed(j), "job {j} is resized while placed");
        self.jobs[j].gpus = gpus;
    }

    /// `j`'s allocation plan becomes a copy of `plan`.
    pub fn set_allocations(&mut self, j: JobIdx, plan: &Allocation) {
        self.jobs[j].allocations.clone_from(plan);
    }

    pub fn set_real_end(&mut self, j: JobIdx, end: Option<SimTime>) {
        self.jobs[j].real_end_time = end;
    }

    /// Seconds `j`'s next progress step loses to reconfiguration.
    pub fn set_overhead(&mut self, j: JobIdx, seconds: f64) {
        self.jobs[j].overhead = seconds;
    }

    /// Work `j` has done, in the units of its spec's work (whole-job progress in seconds).
    pub fn set_executed(&mut self, j: JobIdx, work: f64) {
        self.jobs[j].life.executed_work = work;
    }

    pub fn set_iter_left(&mut self, j: JobIdx, iterations: f64) {
        self.jobs[j].iter_left = iterations;
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
}

/// The event list (`JOBS.job_events`). A planned end changes only here, with its end event.
impl EventSim {
    /// `add_end`: `j` plans to end at `end`, listed there (once) whatever end events it has.
    pub fn add_end(&mut self, j: JobIdx, end: SimTime) {
        self.jobs[j].end_time = end;
        self.events.add_end(j, end);
    }

    /// `j` plans to end at `end`, which the decision at `time` completes (Themis' rounds: a
    /// job ending within a round ends with it).
    pub fn add_end_at(&mut self, j: JobIdx, end: SimTime, time: SimTime) {
        self.jobs[j].end_time = end;
        self.events.add_end(j, time);
    }

    /// `change_end`: `j`'s planned end becomes `end` and its end event moves from the old end
    /// there (listed there if it had none; see [`EventList::move_end`]).
    pub fn move_end(&mut self, j: JobIdx, end: SimTime) {
        let old = std::mem::replace(&mut self.jobs[j].end_time, end);
        self.events.move_end(j, old, end);
    }

    /// A decision at `time` (an empty event unless one exists: `add_scale_new`).
    pub fn add_decision_at(&mut self, time: SimTime) {
        self.events.entry(time);
    }

    /// Takes the event at `now` out of the list, as the original does before handling it;
    /// whether there was one.
    pub fn pop_event_at(&mut self, now: SimTime) -> bool {
        let at_now = self.next_event_time() == Some(now);
        if at_now {
            self.events.pop_front();
        }
        at_now
    }

    /// Slot coalescing after the decision at `now` ([`EventList::coalesce`]); the time of the
    /// next event.
    pub fn coalesce_events(&mut self, now: SimTime, merge_ends: bool) -> Option<SimTime> {
        self.events.coalesce(now, self.slot, merge_ends)
    }

    /// Themis' rounds (§10.1): every event within the slot after `now`, a lone one too, joins
    /// one event at `now + slot` (ends merged).
    pub fn coalesce_into_next_slot(&mut self, now: SimTime) {
        self.events.coalesce(now, self.slot, true);
        if let Some(front) = self.events.front_mut().filter(|e| (e.time - now).trunc() < self.slot) {
            front.time = now + self.slot;
        }
    }

    /// The scheduling-round counter: whether this round restarts the cluster (every `slot`-th
    /// round after the first, §2.5), which makes the placement forget what it remembers.
    pub fn next_round(&mut self) -> bool {
        let restart = self.schedule_count > 0 && self.schedule_count.is_multiple_of(self.restart_period);
        self.schedule_count += 1;
        if restart && let Some(placement) = self.placement.as_mut() {
            placement.restart();
        }
        restart
    }
}

impl EventSim {
    /// The engine's cluster, for policies with their own placement on whole nodes (Gandiva's
    /// node sets): they set nodes aside there, so that it knows every GPU that is in use, without
    /// job holdings (the jobs of such a set take turns on its GPUs). Only the whole-node verbs
    /// are lent; GPU holdings stay the engine's.
    pub fn whole_nodes(&mut self) -> &mut impl WholeNodes {
        &mut self.cluster
    }
}

/// Placement, with the policy's [`GpuPlacement`] (or the spec's).
impl EventSim {
    /// Releases the GPUs of every placed runnable job.
    pub fn release_all(&mut self) {
        for k in 0..self.runnable.len() {
            self.release(self.runnable[k]);
        }
    }

    fn release(&mut self, j: JobIdx) {
        let job = &mut self.jobs[j];
        if job.held.is_empty() {
            return;
        }
        if let Some(placement) = self.placement.as_mut() {
            placement.release(&mut self.cluster, j, &mut job.held);
            self.released_since_pass[j] = true;
        }
    }

    /// Places `j` on its GPUs (into `held`); whether the placement took it.
    fn try_place(&mut self, j: JobIdx) -> Result<bool, RunError> {
        let job = &mut self.jobs[j];
        let Some(placement) = self.placement.as_mut() else {
            let reason = "the policy places a job but brought no placement to place it with".into();
            return Err(RunError::InvalidJob { id: job.spec.id, reason });
        };
        let placed = placement.place(&mut self.cluster, j, job.gpus, &mut job.held);
        self.ever_placed[j] |= placed;
        Ok(placed)
    }

    /// Places `j` on its GPUs; an error naming it where there is no room (the original
    /// asserts).
    pub fn place(&mut self, j: JobIdx) -> Result<(), RunError> {
        if self.try_place(j)? {
            return Ok(());
        }
        Err(RunError::Unplaceable { id: self.jobs[j].spec.id, gpus: self.jobs[j].gpus })
    }

    /// Places every runnable job holding GPUs in `runnable` order (edf-accessctrl, §2.6). Unlike
    /// widest-first this can fragment the buddy placement's node sets; when a job does not fit,
    /// every placement of this call is undone and it returns false (the original fails an
    /// assertion there).
    pub fn place_in_runnable_order(&mut self) -> Result<bool, RunError> {
        for k in 0..self.runnable.len() {
            let j = self.runnable[k];
            if self.jobs[j].gpus > 0 && !self.try_place(j)? {
                self.release_all();
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Places every runnable job holding GPUs, widest first (stable over `runnable` order). A
    /// job that does not fit waits when the placement says refusals are normal (MS-YARN, after
    /// every placement was released); otherwise it is an error.
    pub fn place_widest_first(&mut self) -> Result<(), RunError> {
        self.place_order.clear();
        self.place_order.extend(self.runnable.iter().copied().filter(|&j| self.jobs[j].gpus > 0));
        let jobs = &self.jobs;
        self.place_order.sort_by_key(|&j| std::cmp::Reverse(jobs[j].gpus));
        let waits = self.placement.as_ref().is_some_and(|p| p.refused_job_waits());
        for k in 0..self.place_order.len() {
            let j = self.place_order[k];
            if waits {
                if !self.try_place(j)? {
                    self.wait_unplaced(j);
                }
            } else {
                self.place(j)?;
            }
        }
        self.released_since_pass.fill(false);
        Ok(())
    }

    /// A job picked to run that the placement refuses waits: preempted if it ran before this
    /// decision, otherwise back to pending as if never started (no overhead; no start time if
    /// it never ran).
    fn wait_unplaced(&mut self, j: JobIdx) {
        if self.released_since_pass[j] {
            self.preempt(j);
            return;
        }
        self.back_to_pending(j);
        let job = &mut self.jobs[j];
        job.overhead = 0.0;
        if !self.ever_placed[j] {
            job.life.first_start = None;
        }
    }

    /// The scheduling log (§2.7): whether the placement used each placed job's placement
    /// before (ElasticFlow's rank cache) and one timeline row with the cluster efficiency
    /// `Σ T(g)/T(1)` over running jobs holding GPUs that `occupies` them, over all GPUs (unknown
    /// while such a job has no curve). Returns the GPUs in use.
    fn log_decision(&mut self, now: SimTime, occupies: impl Fn(&EventSim, JobIdx) -> bool) -> u32 {
        if let Some(placement) = self.placement.as_mut() {
            let jobs = &self.jobs;
            let used_before = &mut self.used_before;
            used_before.clear();
            placement.recall(&|j| jobs[j].gpus, &mut |j, used| used_before.push((j, used)));
            for &(j, used) in &self.used_before {
                self.jobs[j].in_cache = used;
            }
        }
        let mut resizes = 0;
        for &j in &self.running {
            let (now_gpus, before) = (self.jobs[j].gpus, self.gpus_at_last_decision[j]);
            if now_gpus > 0 && before > 0 && now_gpus != before {
                self.jobs[j].life.resizes += 1;
                resizes += 1;
            }
        }
        for &j in &self.runnable {
            self.gpus_at_last_decision[j] = self.jobs[j].gpus;
        }
        let jobs = &self.jobs;
        let mut efficiency = Some(0.0);
        let mut allocated = 0;
        for &j in &self.running {
            let job = &jobs[j];
            if job.gpus > 0 && occupies(self, j) {
                efficiency = match (&job.speed, efficiency) {
                    (Speed::Scaling(scaling), Some(sum)) => Some(sum + scaling.curve.speedup(job.gpus).unwrap_or(0.0)),
                    _ => None,
                };
                allocated += job.gpus;
            }
        }
        if self.record_timeline {
            self.timeline.push(TimelineRow {
                time: now,
                free_gpus: self.total_gpus.saturating_sub(allocated),
                gpu_demand: self.runnable.iter().map(|&j| u64::from(jobs[j].spec.gpus)).sum(),
                running: self.running.iter().filter(|&&j| jobs[j].gpus > 0).count() as u32,
                queued: self.pending.len() as u32,
                // Admission here decides at arrival (accept or decline): no job waits for it.
                admission_backlog: None,
                preemptions: self.preemptions_since_log,
                resizes,
                cluster_efficiency: efficiency.map(|sum| sum / f64::from(self.total_gpus)),
                // No event policy allocates CPUs or memory.
                cpus_in_use: None,
                memory_gb_in_use: None,
                arrived_gpu_milli: None,
                allocated_gpu_milli: None,
                fragmented_gpu_milli: None,
                fragmentation_ratio: None,
            });
        }
        self.preemptions_since_log = 0;
        allocated
    }
}

/// A real cluster's measurements.
impl EventSim {
    /// Replaces the policy's accounting of every job holding GPUs by what `executor` measured:
    /// iterations left and work executed from the share of its work done, and a job whose
    /// process finished ends at its exit time, listed as an end of the event at `now`.
    fn measure(&mut self, now: SimTime, executor: &mut dyn EventExecutor) -> Result<(), RunError> {
        if self.finished_for_real.is_empty() {
            self.finished_for_real = vec![false; self.jobs.len()];
            self.whole_iterations = self.jobs.iter().map(|j| j.iter_left).collect();
        }
        for k in 0..self.running.len() {
            let j = self.running[k];
            if self.jobs[j].gpus == 0 {
                continue;
            }
            let measured = executor.observe(&self.jobs[j]).map_err(RunError::Executor)?;
            let job = &mut self.jobs[j];
            if let Some(done) = measured.done {
                let done = done.clamp(0.0, 1.0);
                job.iter_left = self.whole_iterations[j] * (1.0 - done);
                job.life.executed_work = job.spec.work * done;
            }
            if let Some(at) = measured.finished_at {
                let at = at.min(now);
                self.finished_for_real[j] = true;
                job.iter_left = 0.0;
                job.life.executed_work = job.spec.work;
                let old = std::mem::replace(&mut job.end_time, at);
                if job.real_end_time.is_some() {
                    job.real_end_time = Some(at);
                }
                self.events.move_end(j, old, now);
                self.events.add_end(j, now);
            }
        }
        Ok(())
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
        // Placements and the per-run throughput table assume one kind of node.
        let gpus_per_node = match config.cluster.identical_node() {
            Some(node) if node.gpus > 0 => node.gpus,
            _ => {
                return Err(RunError::InvalidConfig(
                    "the event-driven engine needs identical nodes with at least one GPU each".into(),
                ));
            }
        };
        let mut jobs: Vec<EventJob> = Vec::new();
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
            let job = EventJob::new(spec, &config.throughput);
            policy
                .check_job(&job, &config.cluster)
                .map_err(|reason| RunError::InvalidJob { id: job.spec.id, reason })?;
            jobs.push(job);
        }
        let total_gpus = config.cluster.total_gpus();
        let node_count = config.cluster.nodes.len() as u32;
        let job_count = jobs.len();
        let events = EventList::from_arrivals(jobs.iter().enumerate().map(|(i, j)| (i, j.spec.submitted)));
        let sim = EventSim {
            total_gpus,
            gpus_per_node,
            slot: config.slot,
            jobs,
            events,
            pending: Vec::new(),
            running: Vec::new(),
            runnable: Vec::new(),
            cluster: Cluster::new(config.cluster.clone()),
            placement: policy.placement().map(|make| make(node_count, gpus_per_node)),
            released_since_pass: vec![false; job_count],
            ever_placed: vec![false; job_count],
            throughput: config.throughput,
            schedule_count: 0,
            restart_period: config.slot.round() as u64,
            record_timeline: config.record_timeline,
            timeline: Vec::new(),
            place_order: Vec::new(),
            used_before: Vec::new(),
            preemptions_since_log: 0,
            gpus_at_last_decision: vec![0; job_count],
            whole_iterations: Vec::new(),
            finished_for_real: Vec::new(),
        };
        Ok(Self { sim, policy, stop: StopFlag::default() })
    }

    /// Places jobs with the placement `make` makes instead of the policy's own (a spec's
    /// `placement:`; the spec allows it only for policies that list it as an alternative).
    pub fn with_placement(mut self, make: MakePlacement) -> Self {
        let sim = &mut self.sim;
        sim.placement = Some(make(sim.cluster.node_count() as u32, sim.gpus_per_node));
        self
    }

    /// Abandons the run (with [`RunError::Stopped`]) once `stop` is raised.
    pub fn with_stop(mut self, stop: StopFlag) -> Self {
        self.stop = stop;
        self
    }

    /// Runs until the policy expects no further decision.
    pub fn run(self) -> Result<RunOutput, RunError> {
        self.run_on(&mut Simulated)
    }

    /// Runs with `executor` carrying out the decisions (and, when it [measures](EventExecutor::measures),
    /// saying what the jobs did) until the policy expects no further decision.
    pub fn run_on(mut self, executor: &mut dyn EventExecutor) -> Result<RunOutput, RunError> {
        let sim = &mut self.sim;
        let measures = executor.measures();
        let mut next = sim.events.front().map(|e| e.time);
        let mut delta = 0.0;
        let mut decisions: u64 = 0;
        let mut busy_gpu_seconds = 0.0;
        let (mut arrivals, mut ends) = (Vec::new(), Vec::new());
        let mut last = 0.0;
        while let Some(now) = next {
            executor.begin_decision(now).map_err(RunError::Executor)?;
            self.policy.advance(sim, delta, now)?;
            if measures {
                sim.measure(now, executor)?;
            }
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
            executor.carry_out(now, sim).map_err(RunError::Executor)?;
            last = now;
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
        executor.end(last, sim).map_err(RunError::Executor)?;
        Ok(self.finish(decisions, busy_gpu_seconds))
    }

    /// Runs as [`EventEngine::run`], then hands the records to `sink` in id order (this engine
    /// keeps every job of its workload until the end anyway).
    pub fn run_into(self, sink: &mut dyn RecordSink) -> Result<RunTables, RunError> {
        self.run_into_on(sink, &mut Simulated)
    }

    /// [`EventEngine::run_into`] with `executor` carrying out the decisions.
    pub fn run_into_on(
        self,
        sink: &mut dyn RecordSink,
        executor: &mut dyn EventExecutor,
    ) -> Result<RunTables, RunError> {
        let output = self.run_on(executor)?;
        for record in output.jobs {
            sink.push(record).map_err(RunError::Output)?;
        }
        Ok(RunTables { summary: output.summary, timeline: output.timeline })
    }

    fn finish(self, decisions: u64, busy_gpu_seconds: f64) -> RunOutput {
        let sim = self.sim;
        let mut records: Vec<JobRecord> = sim.jobs.iter().map(|j| JobRecord::of(&j.spec, &j.life, j.gpus)).collect();
        records.sort_by_key(|r| r.id);
        let makespan = records.iter().filter_map(|r| r.finish).fold(0.0, f64::max);
        let totals = RunTotals {
            tracked_jobs: records.len() as u64,
            jobs_finished: records.iter().filter(|r| r.finish.is_some()).count() as u64,
            jobs_unschedulable: 0,
            makespan,
            rounds: decisions,
            preemptions: records.iter().map(|r| u64::from(r.preemptions)).sum(),
            resizes: records.iter().map(|r| u64::from(r.resizes)).sum(),
            busy_gpu_seconds,
            capacity_gpu_seconds: f64::from(sim.total_gpus) * makespan,
        };
        let summary = RunSummary::from_records(&records, totals);
        RunOutput { summary, jobs: records, timeline: sim.timeline }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ClusterSpec;

    /// Starts every arrival on the GPUs it asks for and places it with the engine's verbs,
    /// bringing no placement.
    struct PlaceWithoutPlacement;

    impl EventPolicy for PlaceWithoutPlacement {
        fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
            Ok(())
        }

        fn complete(&mut self, _sim: &mut EventSim, _now: SimTime, _ends: &[JobIdx]) {}

        fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
            for &a in arrivals {
                sim.enqueue(a);
                sim.start(a, now);
                sim.set_gpus(a, sim.job(a).spec.gpus);
                sim.place(a)?;
            }
            Ok(())
        }

        fn next_decision(&mut self, _sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
            Ok(None)
        }
    }

    /// A policy without a placement that asks the engine to place a job fails the run naming the
    /// job, instead of the engine placing it some default way.
    #[test]
    fn placing_without_a_placement_is_an_error_naming_the_job() {
        let config = EventConfig {
            cluster: ClusterSpec::uniform(1, 8),
            slot: 60.0,
            throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
            record_timeline: false,
        };
        let job = JobSpec { id: 7, gpus: 2, work: 10.0, ..JobSpec::default() };
        let engine = EventEngine::new(config, Box::new(PlaceWithoutPlacement), [job].into_iter()).unwrap();
        let error = engine.run().err().unwrap().to_string();
        assert_eq!(error, "job 7: the policy places a job but brought no placement to place it with");
    }
}
