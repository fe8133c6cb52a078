//! Gavel's round-based priority mechanism, on which every `gavel-*` allocation policy runs.
//!
//! Rule (`docs/gavel-semantics.md` §3-§6; Gavel `scheduler.py` at c4fa400, `_update_priorities`,
//! `_reset_time_run_so_far`, `_schedule_jobs_on_workers[_helper]`, `simulate`): the policy's
//! allocation `X[job][type]` (the fraction of time a job should hold GPUs of each type) is
//! recomputed only when jobs arrived or left and either 1,920 s passed since the last reset or no
//! reset has happened at t > 0; at a reset each job's deficit grows by what it should have
//! received under the old allocation minus what it did, and the time received restarts at half a
//! round (`R/2`). Every round, per type, a job's priority is `X / (time received / time of the
//! type)` (`X * 1e9` while the type's time is zero, 0 if the job is not in `X`, has `X = 0` or
//! cannot run there). The types are visited in the order V100, P100, K80 (shuffled every round
//! for heterogeneity-agnostic policies) and each type's jobs in descending (priority, deficit, X),
//! ties in arrival order; a job is taken on the first type where it fits (skip, never block),
//! FIFO-named policies skip zero priorities, and a job selected while not in `X` (it arrived after
//! the last reset) holds its GPUs idle for the round, as in the original. Jobs of a type get
//! workers largest first, keeping last round's workers when they are free, else the next free
//! worker server by server. A job runs `min(floor(T * R), remaining)` steps at its isolated
//! throughput `T` on that type and ends at `now + steps / T`; the round ends with its last job
//! (the engine's `UntilLastQuantum` timing). The time a job received is its quantum's end minus
//! the round's start, which after an idle gap is the end of the last busy round (kept).
//!
//! A job's steps are split over its workers (`floor(steps / sf)` each, the rest to the last), and a
//! round in which a worker gets no step fails (`_done_callback`): nothing is credited, the
//! allocation is recomputed, and after five failures in a row the job is dropped unfinished. It
//! happens to a multi-GPU job whose last round has fewer steps left than GPUs.
//!
//! Not modelled: space sharing (pairs of jobs on one GPU, `*_packed` and Gandiva).

use crate::core::{
    ActiveJob, Cluster, GpuId, GpuType, JobId, JobSlot, JobTable, PlacementDecisions, PolicyError, Quantum,
    RoundPolicy, RoundTiming, SimTime,
};
use crate::profiles::gavel::{GavelThroughputs, JobKey};
use crate::workload::python_random::PyRandom;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Gavel's fixed type order for the per-type candidate lists (`["v100", "p100", "k80"]`); types
/// it does not name follow by name.
const PREFERRED_TYPES: [&str; 3] = ["v100", "p100", "k80"];

/// Failed rounds in a row after which Gavel drops a job (`MAX_FAILED_ATTEMPTS`).
const MAX_FAILED_ROUNDS: u32 = 5;

/// Gavel's `minimum_time_between_allocation_resets`.
pub const RESET_INTERVAL_S: f64 = 1920.0;

/// A job as an allocation policy sees it (Gavel's allocation state).
#[derive(Debug, Clone, PartialEq)]
pub struct JobView {
    pub id: JobId,
    /// GPUs per worker set (Gavel's scale factor).
    pub scale_factor: u32,
    /// Isolated steps per second on each type, in [`Types`] order; 0 where it cannot run.
    pub throughput: Vec<f64>,
    pub remaining_steps: f64,
    /// Seconds since the job arrived.
    pub age: f64,
}

/// The cluster's GPU types in Gavel's registration (name) order, with their GPU counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Types {
    pub names: Vec<GpuType>,
    pub capacity: Vec<u32>,
}

/// A policy of the `gavel-*` family: computes the allocation `X` at a reset.
pub trait Allocator: Send {
    /// Heterogeneity-agnostic policies (Gavel names without `Perf` or `Packing`): the mechanism
    /// shuffles the type order every round.
    fn shuffles_types(&self) -> bool;

    /// FIFO-named policies: the mechanism never runs a job whose priority is zero.
    fn skips_zero_priority(&self) -> bool {
        false
    }

    /// One row of time shares per type (in [`Types`] order) for each job of `jobs` (in id order).
    fn allocate(&mut self, jobs: &[JobView], types: &Types) -> Result<Vec<Vec<f64>>, PolicyError>;
}

/// What the mechanism keeps per active job.
struct JobState {
    scale_factor: u32,
    arrival: SimTime,
    throughput: Vec<f64>,
    /// Seconds received per type since the last reset, plus `R/2`.
    time_received: Vec<f64>,
    priority: Vec<f64>,
    deficit: Vec<f64>,
    /// Rounds in a row whose micro-task failed.
    failures: u32,
}

/// GPUs of one type, by server, in worker-id order.
struct TypeWorkers {
    servers: Vec<Vec<GpuId>>,
}

pub struct Mechanism {
    allocator: Box<dyn Allocator>,
    oracle: Arc<GavelThroughputs>,
    types: Types,
    /// Candidate-list order of the types (indexes into `types`), before any shuffle.
    preference: Vec<usize>,
    gpu_type: Vec<usize>,
    workers: Vec<TypeWorkers>,
    round_s: f64,
    jobs: BTreeMap<JobId, JobState>,
    /// Seconds run per type since the last reset, summed over jobs (Gavel's worker time).
    type_time: Vec<f64>,
    allocation: HashMap<JobId, Vec<f64>>,
    last_reset: SimTime,
    needs_update: bool,
    shuffler: PyRandom,
    /// Last round's quanta by job, read by the engine through [`RoundPolicy::quantum`].
    planned: HashMap<JobId, (usize, Quantum)>,
    /// When last round's quanta started.
    dispatched_at: SimTime,
    round_start: SimTime,
    round_end: Option<SimTime>,
    // Scratch buffers reused every round.
    views: Vec<JobView>,
    candidates: Vec<(JobId, usize, f64, f64, f64)>,
}

impl Mechanism {
    /// The mechanism over `cluster`'s GPUs; `seed` is the run's seed (Gavel shuffles types with
    /// `seed + 5`).
    pub fn new(
        allocator: Box<dyn Allocator>,
        oracle: Arc<GavelThroughputs>,
        cluster: &crate::core::ClusterSpec,
        round_s: f64,
        seed: u64,
    ) -> Self {
        let mut names: Vec<GpuType> =
            cluster.nodes.iter().map(|n| n.gpu_type.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        names.sort_by(|a, b| a.name().cmp(b.name()));
        let index_of = |t: &GpuType| names.iter().position(|n| n == t).expect("a type of the cluster");
        let mut capacity = vec![0; names.len()];
        let mut workers: Vec<TypeWorkers> = names.iter().map(|_| TypeWorkers { servers: Vec::new() }).collect();
        let mut gpu_type = Vec::new();
        let mut next: GpuId = 0;
        for node in &cluster.nodes {
            let t = index_of(&node.gpu_type);
            capacity[t] += node.gpus;
            workers[t].servers.push((next..next + node.gpus).collect());
            gpu_type.extend(std::iter::repeat_n(t, node.gpus as usize));
            next += node.gpus;
        }
        let rank = |name: &str| PREFERRED_TYPES.iter().position(|p| *p == name).unwrap_or(PREFERRED_TYPES.len());
        let mut preference: Vec<usize> = (0..names.len()).collect();
        preference.sort_by(|&a, &b| rank(names[a].name()).cmp(&rank(names[b].name())).then(a.cmp(&b)));
        let type_count = names.len();
        Self {
            allocator,
            oracle,
            types: Types { names, capacity },
            preference,
            gpu_type,
            workers,
            round_s,
            jobs: BTreeMap::new(),
            type_time: vec![0.0; type_count],
            allocation: HashMap::new(),
            last_reset: 0.0,
            needs_update: false,
            shuffler: PyRandom::seed(seed.wrapping_add(5)),
            planned: HashMap::new(),
            dispatched_at: 0.0,
            round_start: 0.0,
            round_end: None,
            views: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// Credits last round's quanta at `now`, when the last of them ended (Gavel's
    /// `_done_callback`, in its completion-heap order: latest finish first, then job id).
    fn credit_last_round(&mut self, now: SimTime) {
        if self.planned.is_empty() {
            return;
        }
        if let Some(end) = self.round_end {
            self.round_start = end;
        }
        self.round_end = Some(now);
        let start = self.dispatched_at;
        let mut entries: Vec<(SimTime, JobId, usize, Quantum)> =
            self.planned.iter().map(|(&id, &(t, q))| (start + q.seconds, id, t, q)).collect();
        entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(finish, id, t, quantum) in &entries {
            let failed = quantum.work == 0.0 && !quantum.completes;
            if failed {
                if let Some(job) = self.jobs.get_mut(&id) {
                    job.failures += 1;
                }
                self.needs_update = true;
                continue;
            }
            let received = finish - self.round_start;
            if let Some(job) = self.jobs.get_mut(&id) {
                job.time_received[t] += received;
                job.failures = 0;
            }
            self.type_time[t] += received;
        }
        self.planned.clear();
    }
}

impl Mechanism {
    /// Forgets finished jobs and registers new ones (Gavel's `_remove_job`, `add_job`).
    fn sync_jobs(&mut self, jobs: &JobTable, order: &[JobSlot]) -> Result<(), PolicyError> {
        let before = self.jobs.len();
        let active: BTreeSet<JobId> = order.iter().map(|&s| jobs[s].spec.id).collect();
        self.jobs.retain(|id, _| active.contains(id));
        let mut changed = self.jobs.len() != before;
        let mut new: Vec<&ActiveJob> =
            order.iter().map(|&s| &jobs[s]).filter(|j| !self.jobs.contains_key(&j.spec.id)).collect();
        new.sort_by_key(|j| j.spec.id);
        for job in new {
            let spec = &job.spec;
            let Some(model) = &spec.model else {
                return Err(PolicyError(format!(
                    "job {}: Gavel's policies need the job type (`model`) to look up its throughputs",
                    spec.id
                )));
            };
            if spec.iterations.is_none_or(|steps| !steps.is_finite() || steps < 0.0) {
                return Err(PolicyError(format!(
                    "job {}: Gavel's policies run jobs in steps; it has no non-negative `iterations`",
                    spec.id
                )));
            }
            let key = JobKey { job_type: model.clone(), scale_factor: spec.gpus };
            let mut throughput = Vec::with_capacity(self.types.names.len());
            for t in &self.types.names {
                let rate = self.oracle.isolated(t.name(), &key).ok_or_else(|| {
                    PolicyError(format!(
                        "job {}: Gavel's throughput table has no `{}` at {} GPU(s) on `{}`",
                        spec.id,
                        model,
                        spec.gpus,
                        t.name()
                    ))
                })?;
                throughput.push(rate);
            }
            let runnable = |t: usize| throughput[t] > 0.0 && spec.gpus <= self.types.capacity[t];
            if !(0..throughput.len()).any(runnable) {
                let largest = self.types.capacity.iter().max().copied().unwrap_or(0);
                return Err(PolicyError(format!(
                    "job {} (`{model}` at {} GPU(s)) can run on no GPU type of this cluster: it needs all its GPUs of one type with a positive throughput (the largest type has {largest} GPUs)",
                    spec.id, spec.gpus
                )));
            }
            let types = self.types.names.len();
            self.jobs.insert(
                spec.id,
                JobState {
                    scale_factor: spec.gpus,
                    arrival: spec.submitted,
                    throughput,
                    time_received: vec![self.round_s / 2.0; types],
                    priority: vec![0.0; types],
                    deficit: vec![0.0; types],
                    failures: 0,
                },
            );
            changed = true;
        }
        self.needs_update |= changed;
        Ok(())
    }

    /// Deficits grow by what each job should have received under the old allocation minus
    /// what it did; time received restarts at `R/2` (`_reset_time_run_so_far`).
    fn reset(&mut self, now: SimTime) {
        let elapsed = now - self.last_reset;
        let half_round = self.round_s / 2.0;
        for t in 0..self.types.names.len() {
            self.type_time[t] = 0.0;
            for (id, job) in &mut self.jobs {
                let received = job.time_received[t] - half_round;
                let should = self.allocation.get(id).map_or(0.0, |row| row[t] * elapsed);
                job.deficit[t] += should - received;
                job.time_received[t] = half_round;
                self.type_time[t] += half_round;
            }
        }
        self.last_reset = now;
    }

    fn reallocate(&mut self, now: SimTime, jobs: &JobTable, order: &[JobSlot]) -> Result<(), PolicyError> {
        let remaining: HashMap<JobId, f64> = order
            .iter()
            .map(|&s| &jobs[s])
            .map(|j| (j.spec.id, j.spec.iterations.unwrap_or(0.0) - j.life.executed_work))
            .collect();
        self.views.clear();
        self.views.extend(self.jobs.iter().map(|(&id, job)| JobView {
            id,
            scale_factor: job.scale_factor,
            throughput: job.throughput.clone(),
            remaining_steps: remaining[&id],
            age: now - job.arrival,
        }));
        let rows = self.allocator.allocate(&self.views, &self.types)?;
        self.allocation = self.views.iter().map(|v| v.id).zip(rows).collect();
        Ok(())
    }

    /// Per type: `X / fraction of the type's time received`, or `X * 1e9` while no time was
    /// recorded; zero when not in `X`, `X = 0` or zero throughput (`_update_priorities`).
    fn update_priorities(&mut self) {
        for t in 0..self.types.names.len() {
            let type_time = self.type_time[t];
            for (id, job) in &mut self.jobs {
                let fraction = if type_time == 0.0 { 0.0 } else { job.time_received[t] / type_time };
                job.priority[t] = match self.allocation.get(id) {
                    None => 0.0,
                    Some(row) if row[t] == 0.0 || job.throughput[t] == 0.0 => 0.0,
                    Some(row) if fraction > 0.0 => row[t] / fraction,
                    Some(row) => row[t] * 1e9,
                };
            }
        }
    }
}

impl RoundPolicy for Mechanism {
    fn decide(
        &mut self,
        now: SimTime,
        jobs: &JobTable,
        order: &mut [JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) -> Result<(), PolicyError> {
        self.credit_last_round(now);
        self.sync_jobs(jobs, order)?;
        if self.needs_update && (now - self.last_reset >= RESET_INTERVAL_S || self.last_reset == 0.0) {
            self.reset(now);
            self.reallocate(now, jobs, order)?;
            self.needs_update = false;
        }
        self.update_priorities();

        // Candidate list: types in order (shuffled for agnostic policies), each type's jobs by
        // descending (priority, deficit, X), ties in arrival order.
        let mut type_order = self.preference.clone();
        if self.allocator.shuffles_types() {
            for i in (1..type_order.len()).rev() {
                let j = self.shuffler.randbelow(i as u64 + 1) as usize;
                type_order.swap(i, j);
            }
        }
        let mut left: Vec<u32> = self.types.capacity.clone();
        let mut taken: BTreeSet<JobId> = BTreeSet::new();
        let mut selected: Vec<Vec<(JobId, u32)>> = vec![Vec::new(); self.types.names.len()];
        for &t in &type_order {
            self.candidates.clear();
            self.candidates.extend(self.jobs.iter().map(|(&id, job)| {
                let x = self.allocation.get(&id).map_or(0.0, |row| row[t]);
                (id, t, job.priority[t], job.deficit[t], x)
            }));
            self.candidates.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.3.total_cmp(&a.3)).then(b.4.total_cmp(&a.4)));
            for &(id, t, priority, _, _) in &self.candidates {
                let job = &self.jobs[&id];
                if left[t] == 0
                    || taken.contains(&id)
                    || job.throughput[t] <= 0.0
                    || (self.allocator.skips_zero_priority() && priority <= 0.0)
                    || job.scale_factor > left[t]
                {
                    continue;
                }
                left[t] -= job.scale_factor;
                taken.insert(id);
                selected[t].push((id, job.scale_factor));
            }
        }

        // Workers: per type, largest scale factor first; keep last round's workers when free,
        // else walk the type's servers (`_schedule_jobs_on_workers`, `_assign_workers_to_job`).
        let slot_of: HashMap<JobId, JobSlot> = order.iter().map(|&s| (jobs[s].spec.id, s)).collect();
        let mut assignment: HashMap<JobId, (usize, Vec<GpuId>)> = HashMap::new();
        for &t in &type_order {
            let mut servers = self.workers[t].servers.clone();
            let mut server = 0;
            let mut assigned: BTreeSet<GpuId> = BTreeSet::new();
            selected[t].sort_by_key(|s| std::cmp::Reverse(s.1));
            let mut sizes: Vec<u32> = selected[t].iter().map(|s| s.1).collect();
            sizes.dedup();
            for size in sizes {
                for &(id, _) in selected[t].iter().filter(|s| s.1 == size) {
                    let previous = &jobs[slot_of[&id]].gpus;
                    let same_type = previous.first().is_some_and(|&g| self.gpu_type[g as usize] == t);
                    if same_type && previous.iter().all(|g| !assigned.contains(g)) {
                        assigned.extend(previous.iter().copied());
                        assignment.insert(id, (t, previous.clone()));
                    }
                }
                for &(id, _) in selected[t].iter().filter(|s| s.1 == size) {
                    if assignment.contains_key(&id) || !self.allocation.contains_key(&id) {
                        continue;
                    }
                    let mut gpus = Vec::with_capacity(size as usize);
                    while gpus.len() < size as usize && server < servers.len() {
                        let Some(&gpu) = servers[server].first() else {
                            server += 1;
                            continue;
                        };
                        if assigned.insert(gpu) {
                            gpus.push(gpu);
                        }
                        servers[server].remove(0);
                    }
                    if gpus.len() != size as usize {
                        return Err(PolicyError(format!("could not assign {size} GPU(s) of one type to job {id}")));
                    }
                    assignment.insert(id, (t, gpus));
                }
            }
        }

        // Apply: jobs that keep their exact GPUs continue; others release theirs, then the new
        // assignments launch.
        for &slot in order.iter() {
            let job = &jobs[slot];
            if job.is_running() && assignment.get(&job.spec.id).is_none_or(|(_, g)| *g != job.gpus) {
                cluster.release(&job.gpus);
                decisions.preempt.push(slot);
            }
        }
        let mut launches: Vec<(JobId, JobSlot, Vec<GpuId>)> = Vec::new();
        self.planned.clear();
        self.dispatched_at = now;
        for (&id, (t, gpus)) in &assignment {
            let slot = slot_of[&id];
            let job = &jobs[slot];
            let rate = self.jobs[&id].throughput[*t];
            let remaining = job.spec.iterations.unwrap_or(0.0) - job.life.executed_work;
            let steps = (rate * self.round_s).floor().min(remaining);
            let state = &self.jobs[&id];
            let fails =
                steps <= 0.0 || (state.scale_factor > 1 && (steps / f64::from(state.scale_factor)).floor() <= 0.0);
            let quantum = if fails {
                let abandons = state.failures + 1 >= MAX_FAILED_ROUNDS;
                Quantum { work: 0.0, seconds: steps / rate, overhead: 0.0, completes: false, abandons }
            } else {
                let completes = remaining - steps <= 0.0;
                Quantum { work: steps, seconds: steps / rate, overhead: 0.0, completes, abandons: false }
            };
            self.planned.insert(id, (*t, quantum));
            if *gpus != job.gpus {
                launches.push((id, slot, gpus.clone()));
            }
        }
        launches.sort_by_key(|l| l.0);
        for (_, slot, gpus) in launches {
            cluster.assign(&gpus, slot);
            decisions.launch.push((slot, gpus));
        }
        Ok(())
    }

    fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, _round_seconds: f64) -> Quantum {
        self.planned.get(&job.spec.id).map_or_else(Quantum::default, |&(_, q)| q)
    }

    fn timing(&self) -> RoundTiming {
        RoundTiming::UntilLastQuantum
    }
}
