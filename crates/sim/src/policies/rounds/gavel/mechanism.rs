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
//! Space sharing (the `*-packed` policies and Gandiva): a packing policy also allocates to pairs
//! of jobs with the same scale factor, which the mechanism treats as one more candidate with its
//! own priority, deficit and time received (starting at 0, not `R/2`); a selected pair runs both
//! jobs on the same GPUs, each at its throughput beside the other from the oracle's pair table,
//! and both end at the later of their finishes. A pair's failed round counts towards neither job.

use crate::core::python_random::PyRandom;
use crate::core::{
    ActiveJob, Cluster, GpuId, GpuType, JobId, JobSlot, JobSpec, JobTable, Launch, PlacementDecisions, PolicyError,
    Quantum, RoundPolicy, RoundTiming, SimTime,
};
use crate::profiles::gavel::{GavelThroughputs, JobKey};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
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

/// Two jobs of one scale factor that may share GPUs, as a packing policy sees them.
#[derive(Debug, Clone, PartialEq)]
pub struct PairView {
    /// Indexes into the jobs, the lower job id first.
    pub members: (usize, usize),
    /// Steps per second of each member beside the other, on each type.
    pub throughput: Vec<(f64, f64)>,
}

/// What an allocation policy decides from.
pub struct AllocationInput<'a> {
    /// Active jobs in id order.
    pub jobs: &'a [JobView],
    /// Pairs the mechanism offers (packing policies only), ordered by (lower id, higher id).
    pub pairs: &'a [PairView],
    pub types: &'a Types,
}

/// Time shares per type: one row per job of the input, one per pair (empty for policies that
/// do not pack).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Allocation {
    pub jobs: Vec<Vec<f64>>,
    pub pairs: Vec<Vec<f64>>,
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

    /// Packing policies (Gavel's `_packed` and Gandiva): the mechanism offers pairs of jobs.
    fn packs(&self) -> bool {
        false
    }

    /// Why the policy cannot allocate to a job of `scale_factor` GPUs (AlloX: single-GPU jobs
    /// only), so that `blox validate` refuses it before any run.
    fn check_scale_factor(&self, _scale_factor: u32) -> Result<(), String> {
        Ok(())
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError>;
}

/// What the mechanism schedules: one job, or two jobs sharing GPUs (Gavel's `JobIdPair`).
/// Ordered as Gavel's `JobIdPair`s (singles first, then by lower and higher id), which breaks ties
/// of its completion heap and is the order of the allocation's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Combination {
    newer: JobId,
    older: Option<JobId>,
}

impl Combination {
    fn single(id: JobId) -> Self {
        Self { newer: id, older: None }
    }

    /// Members in id order.
    fn members(&self) -> impl Iterator<Item = JobId> {
        self.older.into_iter().chain([self.newer])
    }

    fn key(&self) -> (bool, JobId, JobId) {
        match self.older {
            None => (false, self.newer, 0),
            Some(older) => (true, older, self.newer),
        }
    }

    /// The order in which Gavel fills its priority lists (each job, then its pairs with earlier
    /// jobs), which breaks ties between candidates.
    fn added(&self) -> (JobId, Option<JobId>) {
        (self.newer, self.older)
    }
}

impl Ord for Combination {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Combination {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What the mechanism keeps per active job.
struct JobState {
    scale_factor: u32,
    arrival: SimTime,
    key: JobKey,
    throughput: Vec<f64>,
    /// Rounds in a row whose micro-task failed.
    failures: u32,
}

/// What the mechanism keeps per combination.
struct Entry {
    /// GPUs per worker set, the same for both members of a pair.
    scale_factor: u32,
    /// Steps per second of each member (id order) on each type.
    rates: Vec<[f64; 2]>,
    /// Its row of the allocation `X` (time shares per type); `None` if it joined since the last
    /// re-allocation.
    share: Option<Vec<f64>>,
    /// Seconds received per type since the last reset, plus `R/2` after a reset.
    time_received: Vec<f64>,
    deficit: Vec<f64>,
}

impl Entry {
    fn new(scale_factor: u32, rates: Vec<[f64; 2]>, time_received: f64, types: usize) -> Self {
        Self { scale_factor, rates, share: None, time_received: vec![time_received; types], deficit: vec![0.0; types] }
    }

    /// Whether every member can run on type `t` (a positive throughput there).
    fn runs_on(&self, combination: &Combination, t: usize) -> bool {
        let members = if combination.older.is_some() { 2 } else { 1 };
        self.rates[t][..members].iter().all(|&r| r > 0.0)
    }

    /// Its share of type `t`, 0 while it has none.
    fn share_of(&self, t: usize) -> f64 {
        self.share.as_ref().map_or(0.0, |row| row[t])
    }

    /// Whether its priority on type `t` depends on the time it receives: it runs there and has a
    /// nonzero share of it. Every other combination's priority there is constant zero.
    fn ranked(&self, combination: &Combination, t: usize) -> bool {
        self.share.as_ref().is_some_and(|row| row[t] != 0.0) && self.runs_on(combination, t)
    }

    /// `X / fraction of the type's time received`, or `X * 1e9` while it received none; zero when
    /// not in `X`, `X = 0` or a member cannot run there (`_update_priorities`).
    fn priority(&self, combination: &Combination, t: usize, type_time: f64) -> f64 {
        if !self.ranked(combination, t) {
            return 0.0;
        }
        let share = self.share_of(t);
        let fraction = if type_time == 0.0 { 0.0 } else { self.time_received[t] / type_time };
        if fraction > 0.0 { share / fraction } else { share * 1e9 }
    }

    /// Its place among type `t`'s zero-priority candidates, if it is one.
    fn zero_rank(&self, combination: Combination, t: usize) -> Option<ZeroRank> {
        (self.runs_on(&combination, t) && !self.ranked(&combination, t)).then(|| ZeroRank {
            deficit: self.deficit[t],
            share: self.share_of(t),
            combination,
            scale_factor: self.scale_factor,
        })
    }
}

/// A combination that can run on a type but whose priority there is zero whatever time it
/// receives, ranked as the type's candidate list orders it: descending deficit, then share, ties in
/// the order the combinations were added. The rank changes only at resets (deficit), re-allocations
/// (share) and arrivals, so the mechanism keeps these candidates in order between rounds instead of
/// ranking the hundreds of thousands of pairs of a loaded cluster again every round.
#[derive(Debug, Clone, Copy)]
struct ZeroRank {
    deficit: f64,
    share: f64,
    combination: Combination,
    scale_factor: u32,
}

impl ZeroRank {
    fn candidate(&self) -> Candidate {
        Candidate { priority: 0.0, deficit: self.deficit, share: self.share, combination: self.combination }
    }
}

impl Ord for ZeroRank {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .deficit
            .total_cmp(&self.deficit)
            .then(other.share.total_cmp(&self.share))
            .then(self.combination.added().cmp(&other.combination.added()))
    }
}

impl PartialOrd for ZeroRank {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ZeroRank {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for ZeroRank {}

/// Moves a combination within one type's zero-priority candidates after its rank changed.
fn rerank(zero: &mut BTreeSet<ZeroRank>, before: Option<ZeroRank>, after: Option<ZeroRank>) {
    if before == after {
        return;
    }
    if let Some(rank) = before {
        zero.remove(&rank);
    }
    if let Some(rank) = after {
        zero.insert(rank);
    }
}

/// A combination on one type's candidate list, ranked as Gavel sorts the list: descending
/// (priority, deficit, share), ties in the order the combinations were added (their own order).
struct Candidate {
    priority: f64,
    deficit: f64,
    share: f64,
    combination: Combination,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then(self.deficit.total_cmp(&other.deficit))
            .then(self.share.total_cmp(&other.share))
            .then(other.combination.added().cmp(&self.combination.added()))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}

/// A combination's round: the type it ran on, its GPUs, and its length.
struct Planned {
    combination: Combination,
    t: usize,
    seconds: f64,
    failed: bool,
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
    workers: Vec<TypeWorkers>,
    round_s: f64,
    jobs: BTreeMap<JobId, JobState>,
    entries: BTreeMap<Combination, Entry>,
    /// Per type, the combinations whose priority there can be nonzero (set at re-allocations).
    ranked: Vec<Vec<Combination>>,
    /// Per type, every other combination that can run there, in its candidate-list order.
    zero_ranked: Vec<BTreeSet<ZeroRank>>,
    /// Seconds run per type since the last reset, summed over combinations (Gavel's worker time).
    type_time: Vec<f64>,
    last_reset: SimTime,
    needs_update: bool,
    shuffler: PyRandom,
    /// Last round's combinations, read back when their quanta end.
    planned: Vec<Planned>,
    /// Last round's quantum of each running job, read by the engine through [`RoundPolicy::quantum`].
    quanta: HashMap<JobId, Quantum>,
    /// Last round's workers of each combination, which it keeps if they are free.
    last_workers: HashMap<Combination, (usize, Vec<GpuId>)>,
    /// When last round's quanta started.
    dispatched_at: SimTime,
    round_start: SimTime,
    round_end: Option<SimTime>,
    /// Scratch buffer reused every round.
    candidates: Vec<Candidate>,
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
        let mut next: GpuId = 0;
        for node in &cluster.nodes {
            let t = index_of(&node.gpu_type);
            capacity[t] += node.gpus;
            workers[t].servers.push((next..next + node.gpus).collect());
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
            workers,
            round_s,
            jobs: BTreeMap::new(),
            entries: BTreeMap::new(),
            ranked: vec![Vec::new(); type_count],
            zero_ranked: vec![BTreeSet::new(); type_count],
            type_time: vec![0.0; type_count],
            last_reset: 0.0,
            needs_update: false,
            shuffler: PyRandom::seed(seed.wrapping_add(5)),
            planned: Vec::new(),
            quanta: HashMap::new(),
            last_workers: HashMap::new(),
            dispatched_at: 0.0,
            round_start: 0.0,
            round_end: None,
            candidates: Vec::new(),
        }
    }

    /// Credits last round's combinations at `now`, when the last of them ended (Gavel's
    /// `_done_callback`, in its completion-heap order: latest finish first, then id).
    fn credit_last_round(&mut self, now: SimTime) {
        if self.planned.is_empty() {
            return;
        }
        if let Some(end) = self.round_end {
            self.round_start = end;
        }
        self.round_end = Some(now);
        let start = self.dispatched_at;
        self.planned.sort_by(|a, b| {
            (start + b.seconds).total_cmp(&(start + a.seconds)).then(a.combination.cmp(&b.combination))
        });
        for planned in &self.planned {
            let single = planned.combination.older.is_none();
            if planned.failed {
                if let Some(job) = self.jobs.get_mut(&planned.combination.newer).filter(|_| single) {
                    job.failures += 1;
                }
                self.needs_update = true;
                continue;
            }
            let received = start + planned.seconds - self.round_start;
            if let Some(entry) = self.entries.get_mut(&planned.combination) {
                entry.time_received[planned.t] += received;
            }
            if let Some(job) = self.jobs.get_mut(&planned.combination.newer).filter(|_| single) {
                job.failures = 0;
            }
            self.type_time[planned.t] += received;
        }
        self.planned.clear();
    }

    /// Forgets finished jobs and their pairs, and registers new ones with, for packing policies,
    /// their pairs with every earlier job of the same scale factor (Gavel's `_remove_job`,
    /// `add_job`, `_populate_job_combination_metadata`).
    fn sync_jobs(&mut self, jobs: &JobTable, order: &[JobSlot]) -> Result<(), PolicyError> {
        let active: BTreeSet<JobId> = order.iter().map(|&s| jobs[s].spec.id).collect();
        let known: Vec<JobId> = self.jobs.keys().copied().collect();
        let departed: Vec<JobId> = known.iter().copied().filter(|id| !active.contains(id)).collect();
        for &id in &departed {
            self.jobs.remove(&id);
            let with_newer =
                Combination { newer: 0, older: Some(id) }..=Combination { newer: JobId::MAX, older: Some(id) };
            let with_newer: Vec<Combination> = self.entries.range(with_newer).map(|(&c, _)| c).collect();
            let with_older = known.iter().map(|&other| Combination { newer: id, older: Some(other) });
            for combination in with_newer.into_iter().chain(with_older).chain([Combination::single(id)]) {
                self.forget(combination);
            }
        }
        let mut changed = !departed.is_empty();
        if changed {
            for ranked in &mut self.ranked {
                ranked.retain(|c| self.entries.contains_key(c));
            }
        }
        let mut new: Vec<&ActiveJob> =
            order.iter().map(|&s| &jobs[s]).filter(|j| !self.jobs.contains_key(&j.spec.id)).collect();
        new.sort_by_key(|j| j.spec.id);
        let types = self.types.names.len();
        let half_round = self.round_s / 2.0;
        for job in new {
            let state = self.job_state(&job.spec).map_err(PolicyError)?;
            let id = job.spec.id;
            let rates = state.throughput.iter().map(|&r| [r, 0.0]).collect();
            self.register(Combination::single(id), Entry::new(state.scale_factor, rates, half_round, types));
            if self.allocator.packs() {
                let pairs = self
                    .jobs
                    .iter()
                    .filter(|(_, other_state)| other_state.scale_factor == state.scale_factor)
                    .map(|(&other, other_state)| {
                        let rates = self.pair_rates((other, &other_state.key), (id, &state.key))?;
                        let pair = Entry::new(state.scale_factor, rates, 0.0, types);
                        Ok((Combination { newer: id, older: Some(other) }, pair))
                    })
                    .collect::<Result<Vec<_>, PolicyError>>()?;
                for (combination, pair) in pairs {
                    self.register(combination, pair);
                }
            }
            self.jobs.insert(id, state);
            changed = true;
        }
        self.needs_update |= changed;
        Ok(())
    }

    /// Adds a combination, with its place among each type's zero-priority candidates.
    fn register(&mut self, combination: Combination, entry: Entry) {
        for (t, zero) in self.zero_ranked.iter_mut().enumerate() {
            rerank(zero, None, entry.zero_rank(combination, t));
        }
        self.entries.insert(combination, entry);
    }

    /// Removes a combination if it is known, and its places among the zero-priority candidates.
    fn forget(&mut self, combination: Combination) {
        if let Some(entry) = self.entries.remove(&combination) {
            for (t, zero) in self.zero_ranked.iter_mut().enumerate() {
                rerank(zero, entry.zero_rank(combination, t), None);
            }
        }
    }

    /// What the mechanism keeps of `spec`, or why it cannot run it: no job type or steps, a job
    /// type the oracle lacks on some type of the cluster, no type that can hold it, or a scale
    /// factor the allocation policy refuses.
    fn job_state(&self, spec: &JobSpec) -> Result<JobState, String> {
        let Some(model) = &spec.model else {
            return Err(format!(
                "job {}: Gavel's policies need the job type (`model`) to look up its throughputs",
                spec.id
            ));
        };
        if spec.iterations.is_none_or(|steps| !steps.is_finite() || steps < 0.0) {
            return Err(format!(
                "job {}: Gavel's policies run jobs in steps; it has no non-negative `iterations` \
                 (a `redraw-durations` transform clears them)",
                spec.id
            ));
        }
        self.allocator.check_scale_factor(spec.gpus).map_err(|why| format!("job {}: {why}", spec.id))?;
        let key = JobKey { job_type: model.clone(), scale_factor: spec.gpus };
        let mut throughput = Vec::with_capacity(self.types.names.len());
        for t in &self.types.names {
            let rate = self.oracle.isolated(t.name(), &key).ok_or_else(|| {
                format!(
                    "job {}: Gavel's throughput table has no `{}` at {} GPU(s) on `{}`",
                    spec.id,
                    model,
                    spec.gpus,
                    t.name()
                )
            })?;
            throughput.push(rate);
        }
        let runnable = |t: usize| throughput[t] > 0.0 && spec.gpus <= self.types.capacity[t];
        if !(0..throughput.len()).any(runnable) {
            let largest = self.types.capacity.iter().max().copied().unwrap_or(0);
            return Err(format!(
                "job {} (`{model}` at {} GPU(s)) can run on no GPU type of this cluster: it needs all its GPUs of one type with a positive throughput (the largest type has {largest} GPUs)",
                spec.id, spec.gpus
            ));
        }
        Ok(JobState { scale_factor: spec.gpus, arrival: spec.submitted, key, throughput, failures: 0 })
    }

    /// Each member's steps per second beside the other on every type, lower id first; the
    /// oracle keys the pair by the lower id's job type.
    fn pair_rates(
        &self,
        (older, older_key): (JobId, &JobKey),
        (newer, newer_key): (JobId, &JobKey),
    ) -> Result<Vec<[f64; 2]>, PolicyError> {
        self.types
            .names
            .iter()
            .map(|t| {
                self.oracle
                    .get(t.name(), older_key)
                    .and_then(|row| row.pairs.get(newer_key))
                    .map(|&(a, b)| [a, b])
                    .ok_or_else(|| {
                        PolicyError(format!(
                            "jobs {older} and {newer}: Gavel's throughput table has no pair `{}` with `{}` at {} GPU(s) on `{}`",
                            older_key.job_type,
                            newer_key.job_type,
                            older_key.scale_factor,
                            t.name()
                        ))
                    })
            })
            .collect()
    }

    /// Deficits grow by what each combination should have received under the old allocation
    /// minus what it did; time received restarts at `R/2` (`_reset_time_run_so_far`).
    fn reset(&mut self, now: SimTime) {
        let elapsed = now - self.last_reset;
        let half_round = self.round_s / 2.0;
        self.type_time.fill(0.0);
        for (&combination, entry) in &mut self.entries {
            for t in 0..self.types.names.len() {
                let received = entry.time_received[t] - half_round;
                let should = entry.share.as_ref().map_or(0.0, |row| row[t] * elapsed);
                let deficit = entry.deficit[t] + (should - received);
                // Most pairs neither ran nor had a share: their deficit and rank stay.
                if deficit.to_bits() != entry.deficit[t].to_bits() {
                    let before = entry.zero_rank(combination, t);
                    entry.deficit[t] = deficit;
                    rerank(&mut self.zero_ranked[t], before, entry.zero_rank(combination, t));
                }
                entry.time_received[t] = half_round;
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
        let views: Vec<JobView> = self
            .jobs
            .iter()
            .map(|(&id, job)| JobView {
                id,
                scale_factor: job.scale_factor,
                throughput: job.throughput.clone(),
                remaining_steps: remaining[&id],
                age: now - job.arrival,
            })
            .collect();
        let index: HashMap<JobId, usize> = views.iter().enumerate().map(|(i, v)| (v.id, i)).collect();
        // The entries are in the allocation's row order: every job alone in id order, then the
        // pairs by lower and higher id.
        let mut older_index = None;
        let pairs: Vec<PairView> = self
            .entries
            .iter()
            .filter_map(|(c, entry)| Some((c.older?, c.newer, entry)))
            .map(|(older, newer, entry)| {
                let older = match older_index {
                    Some((id, i)) if id == older => i,
                    _ => older_index.insert((older, index[&older])).1,
                };
                PairView {
                    members: (older, index[&newer]),
                    throughput: entry.rates.iter().map(|r| (r[0], r[1])).collect(),
                }
            })
            .collect();
        let input = AllocationInput { jobs: &views, pairs: &pairs, types: &self.types };
        let allocation = self.allocator.allocate(&input)?;
        let (mut job_rows, mut pair_rows) = (allocation.jobs.into_iter(), allocation.pairs.into_iter());
        let types = self.types.names.len();
        let mut before = Vec::with_capacity(types);
        for ranked in &mut self.ranked {
            ranked.clear();
        }
        for (&combination, entry) in &mut self.entries {
            let row = if combination.older.is_some() { pair_rows.next() } else { job_rows.next() };
            // Most pairs keep a zero share: their ranks stay.
            let same = match (&entry.share, &row) {
                (Some(old), Some(new)) => old.iter().map(|x| x.to_bits()).eq(new.iter().map(|x| x.to_bits())),
                (old, new) => old.is_none() && new.is_none(),
            };
            if !same {
                before.clear();
                before.extend((0..types).map(|t| entry.zero_rank(combination, t)));
                entry.share = row;
                for (t, &rank) in before.iter().enumerate() {
                    rerank(&mut self.zero_ranked[t], rank, entry.zero_rank(combination, t));
                }
            }
            for (t, ranked) in self.ranked.iter_mut().enumerate() {
                if entry.ranked(&combination, t) {
                    ranked.push(combination);
                }
            }
        }
        Ok(())
    }

    /// The round's combinations per type: the candidate lists walked greedily (§5.2-5.3).
    fn select(&mut self, type_order: &[usize]) -> Vec<Vec<(Combination, u32)>> {
        let mut left: Vec<u32> = self.types.capacity.clone();
        let mut taken: BTreeSet<JobId> = BTreeSet::new();
        let mut selected: Vec<Vec<(Combination, u32)>> = vec![Vec::new(); self.types.names.len()];
        let skips_zero = self.allocator.skips_zero_priority();
        for &t in type_order {
            // The list in Gavel's order merges the combinations whose priority can be nonzero,
            // popped from a heap, with the zero-priority ones, kept in order between rounds (none
            // for FIFO-named policies); the walk stops when the type is full, so the thousands of
            // pairs of a loaded cluster are neither ranked nor visited. Combinations the walk would
            // skip whatever their rank are left out of the heap.
            let mut candidates = std::mem::take(&mut self.candidates);
            candidates.clear();
            let type_time = self.type_time[t];
            for combination in &self.ranked[t] {
                let entry = &self.entries[combination];
                let priority = entry.priority(combination, t, type_time);
                if combination.members().any(|id| taken.contains(&id))
                    || (skips_zero && priority <= 0.0)
                    || entry.scale_factor > left[t]
                {
                    continue;
                }
                let (deficit, share) = (entry.deficit[t], entry.share_of(t));
                candidates.push(Candidate { priority, deficit, share, combination: *combination });
            }
            let mut heap = BinaryHeap::from(candidates);
            let mut zeros = (!skips_zero).then_some(self.zero_ranked[t].iter()).into_iter().flatten().peekable();
            while left[t] > 0 {
                let from_heap = match (heap.peek(), zeros.peek()) {
                    (Some(top), Some(zero)) => *top > zero.candidate(),
                    (top, _) => top.is_some(),
                };
                let (combination, scale_factor) = if from_heap {
                    let Some(top) = heap.pop() else { break };
                    (top.combination, self.entries[&top.combination].scale_factor)
                } else {
                    let Some(zero) = zeros.next() else { break };
                    (zero.combination, zero.scale_factor)
                };
                if combination.members().any(|id| taken.contains(&id)) || scale_factor > left[t] {
                    continue;
                }
                left[t] -= scale_factor;
                taken.extend(combination.members());
                selected[t].push((combination, scale_factor));
            }
            self.candidates = heap.into_vec();
        }
        selected
    }

    /// Workers per type, largest scale factor first; a combination keeps last round's workers
    /// when they are free, else walks the type's servers (`_schedule_jobs_on_workers`,
    /// `_assign_workers_to_job`). Combinations not in `X` get none (their GPUs idle).
    fn assign_workers(
        &self,
        type_order: &[usize],
        selected: &mut [Vec<(Combination, u32)>],
    ) -> Result<Vec<(Combination, usize, Vec<GpuId>)>, PolicyError> {
        let mut assignment = Vec::new();
        for &t in type_order {
            let mut servers = self.workers[t].servers.clone();
            let mut server = 0;
            let mut assigned: BTreeSet<GpuId> = BTreeSet::new();
            let mut kept: BTreeSet<Combination> = BTreeSet::new();
            selected[t].sort_by_key(|s| std::cmp::Reverse(s.1));
            let mut sizes: Vec<u32> = selected[t].iter().map(|s| s.1).collect();
            sizes.dedup();
            for size in sizes {
                for &(combination, _) in selected[t].iter().filter(|s| s.1 == size) {
                    let last = self.last_workers.get(&combination);
                    if let Some((_, gpus)) =
                        last.filter(|(last_type, gpus)| *last_type == t && gpus.iter().all(|g| !assigned.contains(g)))
                    {
                        assigned.extend(gpus.iter().copied());
                        kept.insert(combination);
                        assignment.push((combination, t, gpus.clone()));
                    }
                }
                for &(combination, _) in selected[t].iter().filter(|s| s.1 == size) {
                    if kept.contains(&combination) || self.entries[&combination].share.is_none() {
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
                        return Err(PolicyError(format!(
                            "could not assign {size} GPU(s) of one type to job(s) {:?}",
                            combination.members().collect::<Vec<_>>()
                        )));
                    }
                    assignment.push((combination, t, gpus));
                }
            }
        }
        Ok(assignment)
    }

    /// Each member's round on type `t`: `min(floor(T * R), remaining)` steps at its rate; the
    /// combination lasts until its slowest member ends, and fails when a member's steps do not
    /// reach every one of its workers.
    fn plan(&mut self, combination: Combination, t: usize, jobs: &JobTable, slot_of: &HashMap<JobId, JobSlot>) {
        let entry = &self.entries[&combination];
        let scale_factor = self.jobs[&combination.newer].scale_factor;
        let mut steps = [0.0; 2];
        let mut remaining = [0.0; 2];
        let mut seconds: f64 = 0.0;
        let mut failed = false;
        for (k, id) in combination.members().enumerate() {
            let job = &jobs[slot_of[&id]];
            let rate = entry.rates[t][k];
            remaining[k] = job.spec.iterations.unwrap_or(0.0) - job.life.executed_work;
            steps[k] = (rate * self.round_s).floor().min(remaining[k]);
            seconds = seconds.max(steps[k] / rate);
            failed |= steps[k] <= 0.0 || (scale_factor > 1 && (steps[k] / f64::from(scale_factor)).floor() <= 0.0);
        }
        for (k, id) in combination.members().enumerate() {
            let quantum = if failed {
                let abandons = combination.older.is_none() && self.jobs[&id].failures + 1 >= MAX_FAILED_ROUNDS;
                Quantum { work: 0.0, seconds, overhead: 0.0, completes: false, abandons }
            } else {
                Quantum {
                    work: steps[k],
                    seconds,
                    overhead: 0.0,
                    completes: remaining[k] - steps[k] <= 0.0,
                    abandons: false,
                }
            };
            self.quanta.insert(id, quantum);
        }
        self.planned.push(Planned { combination, t, seconds, failed });
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

        let mut type_order = self.preference.clone();
        if self.allocator.shuffles_types() {
            for i in (1..type_order.len()).rev() {
                let j = self.shuffler.randbelow(i as u64 + 1) as usize;
                type_order.swap(i, j);
            }
        }
        let mut selected = self.select(&type_order);
        let assignment = self.assign_workers(&type_order, &mut selected)?;

        // Apply: jobs that keep their exact GPUs continue; others release theirs, then the new
        // assignments launch (the second job onto a pair's GPUs shares them).
        let slot_of: HashMap<JobId, JobSlot> = order.iter().map(|&s| (jobs[s].spec.id, s)).collect();
        let mut gpus_of: HashMap<JobId, &Vec<GpuId>> = HashMap::new();
        for (combination, _, gpus) in &assignment {
            for id in combination.members() {
                gpus_of.insert(id, gpus);
            }
        }
        for &slot in order.iter() {
            let job = &jobs[slot];
            if job.is_running() && gpus_of.get(&job.spec.id).is_none_or(|g| **g != job.gpus) {
                cluster.release(&job.gpus, slot);
                decisions.preempt.push(slot);
            }
        }
        let mut launches: Vec<(JobId, JobSlot, Vec<GpuId>)> = gpus_of
            .iter()
            .filter(|(id, gpus)| jobs[slot_of[id]].gpus != ***gpus)
            .map(|(&id, gpus)| (id, slot_of[&id], (*gpus).clone()))
            .collect();
        launches.sort_by_key(|l| l.0);
        for (_, slot, gpus) in launches {
            if cluster.owner(gpus[0]).is_some() {
                cluster.share(&gpus, slot);
            } else {
                cluster.assign(&gpus, slot);
            }
            decisions.launch.push(Launch::gpus(slot, gpus));
        }

        self.planned.clear();
        self.quanta.clear();
        self.dispatched_at = now;
        self.last_workers.clear();
        for (combination, t, gpus) in assignment {
            self.plan(combination, t, jobs, &slot_of);
            self.last_workers.insert(combination, (t, gpus));
        }
        Ok(())
    }

    fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, _round_seconds: f64) -> Quantum {
        self.quanta.get(&job.spec.id).copied().unwrap_or_default()
    }

    fn timing(&self) -> RoundTiming {
        RoundTiming::UntilLastQuantum
    }

    fn check_job(&self, job: &JobSpec) -> Result<(), String> {
        self.job_state(job).map(drop)
    }

    /// Quanta count steps: a job's whole work is its `iterations` (the trace's total steps),
    /// which a live run's share of iterations done is a share of.
    fn whole_work(&self, job: &JobSpec) -> f64 {
        job.iterations.unwrap_or(job.work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::engine::{Engine, Policies, RunConfig, Tracking};
    use crate::core::{ClusterSpec, JobSpec, NodeGroup, NodeSpec};
    use crate::policies::rounds::admission::accept_all::AcceptAll;
    use crate::policies::rounds::gavel::gandiva::Gandiva;

    /// The zero-priority candidates kept in order between rounds walk exactly as the candidate
    /// list ranks them: descending deficit and share, ties in the order combinations were added
    /// (a job's pairs with earlier jobs come after the job, before any later job).
    #[test]
    fn zero_priority_candidates_walk_in_candidate_list_order() {
        let rank = |deficit: f64, share: f64, newer: JobId, older: Option<JobId>| ZeroRank {
            deficit,
            share,
            combination: Combination { newer, older },
            scale_factor: 1,
        };
        let ranks = [
            rank(180.0, 0.0, 3, None),
            rank(180.0, 0.0, 2, Some(1)),
            rank(180.0, -0.0, 1, None),
            rank(180.0, 0.0, 2, None),
            rank(360.0, 0.0, 4, Some(3)),
            rank(0.0, 0.5, 5, None),
            rank(180.0, 0.25, 5, Some(4)),
        ];
        let walked: Vec<Combination> =
            ranks.iter().copied().collect::<BTreeSet<_>>().iter().map(|r| r.combination).collect();
        let mut listed: Vec<Candidate> = ranks.iter().map(ZeroRank::candidate).collect();
        listed.sort_by(|a, b| b.cmp(a));
        assert_eq!(walked, listed.iter().map(|c| c.combination).collect::<Vec<_>>());
        let newer_older = |c: &Combination| (c.newer, c.older);
        assert_eq!(
            walked.iter().map(newer_older).collect::<Vec<_>>(),
            [(4, Some(3)), (5, Some(4)), (2, None), (2, Some(1)), (3, None), (1, None), (5, None)]
        );
    }

    /// Two jobs on one V100 under Gandiva: oversubscribed, so they are paired and share the GPU,
    /// each at its throughput beside the other (A 0.5, B 0.25 steps/s). A needs 180 s, B 120 s;
    /// both end with the pair, at 180 s (the original's `_per_job_latest_timestamps`), and the
    /// shared GPU counts as busy once.
    #[test]
    fn a_pair_shares_one_gpu_and_its_jobs_end_together() {
        let table = r#"{"v100": {"('A', 1)": {"null": 1.0, "('B', 1)": [0.5, 0.25]},
                                 "('B', 1)": {"null": 1.0, "('A', 1)": [0.25, 0.5]}}}"#;
        let oracle = Arc::new(GavelThroughputs::parse(table, "pair.json").unwrap());
        let node = NodeSpec { gpus: 1, gpu_type: GpuType::new("v100"), cpus: None, memory_gb: None };
        let cluster = ClusterSpec::from_groups(&[NodeGroup { count: 1, node }]);
        let job = |id: u64, model: &str, steps: f64| JobSpec {
            id,
            gpus: 1,
            work: steps,
            model: Some(model.into()),
            iterations: Some(steps),
            ..JobSpec::default()
        };
        let config = RunConfig {
            cluster: cluster.clone(),
            round_seconds: 360.0,
            tracking: Tracking::All,
            horizon: None,
            starvation_guard: None,
            record_timeline: false,
        };
        let decision = Box::new(Mechanism::new(Box::new(Gandiva::new(0)), oracle, &cluster, 360.0, 0));
        let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
        let jobs = vec![job(0, "A", 90.0), job(1, "B", 30.0)];
        let out = Engine::new(config, policies, jobs.into_iter()).unwrap().run().unwrap();
        let finishes: Vec<Option<f64>> = out.jobs.iter().map(|r| r.finish).collect();
        assert_eq!(finishes, [Some(180.0), Some(180.0)]);
        assert_eq!(out.summary.gpu_utilization, 1.0);
    }
}
