//! ElasticFlow's EDF planner (`scheduler.py` `EDF_estimate_all_jobs` / `edf_sim_allocation`
//! @ b3f5ea4; `docs/elasticflow-semantics.md` §4), shared by `edf` and `edf-admission`.
//!
//! Jobs are planned one after another in deadline order on a timeline of free GPUs that starts
//! empty at the decision time. Each job runs as wide as possible (up to `min(max_gpus, cluster)`)
//! in every slot-aligned period, and its end is `ceil(start of its last period + iterations
//! left / rate)`. Kept for fidelity: the free count written at the slot-aligned end is the
//! period's count *before* the job (§4 (*)), so later jobs can see GPUs that others hold there.
//!
//! The original copies the timeline for each job, edits the copy and merges it whole. Here a
//! job's plan edits the timeline in place, walking it by index, and merges only the part it
//! edited: it writes no key before one it has read (its edits are at the start of each period it
//! walked and at its aligned end), and the rest was merged by the plans before, so the result
//! is the same, value for value.

use crate::core::RunError;
use crate::core::SimTime;
use crate::core::events::{Allocation, EventJob, JobIdx, JobStatus, align};
use std::collections::HashMap;

/// Free GPUs from each key on (`F` of §4): keys ascending and unique; between plans no key
/// repeats the value of the one before (`utils.merge_dict`).
type Free = Vec<(SimTime, i64)>;

/// A job's plan from the last estimate.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub allocations: Allocation,
    /// Unaligned planned end.
    pub end: SimTime,
    /// The estimate that made it.
    estimate: u64,
}

/// The levels of a job configuration with their rates, ascending.
type Rates = Vec<(u32, f64)>;

/// [`Scaling::level_within`](crate::core::events::Scaling::level_within): the largest level of
/// at most `gpus`, not capped by `max_gpus`; 0 if none.
fn within(rates: &[(u32, f64)], gpus: i64) -> u32 {
    rates.iter().take_while(|l| i64::from(l.0) <= gpus).last().map_or(0, |l| l.0)
}

/// `job`'s iterations per second at `gpus` (the job's own error where it is not a level).
fn rate(rates: &[(u32, f64)], job: &EventJob, gpus: u32) -> Result<f64, RunError> {
    match rates.iter().find(|l| l.0 == gpus) {
        Some(&(_, rate)) => Ok(rate),
        None => job.rate(gpus),
    }
}

/// A job's levels (an index into the planner's distinct level tables, which a trace's few
/// model configurations share) and its widest size (`base` of §4): looked up once per run
/// instead of on the curve at every key, and kept small since every decision plans thousands
/// of jobs.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    table: u32,
    base: u32,
}

/// The planner's timeline and the plans of the last estimate, reused between decisions.
#[derive(Debug, Default)]
pub struct EdfPlanner {
    free: Free,
    plans: Vec<Plan>,
    /// Each job's deadline ([`EventJob::deadline`], fixed by its spec) and sizes once planned.
    deadlines: Vec<SimTime>,
    sizes: Vec<Option<Sizes>>,
    tables: Vec<Rates>,
    table_of: HashMap<Vec<(u32, u64)>, u32>,
    /// `(deadline, job)` of the list being sorted.
    order: Vec<(SimTime, JobIdx)>,
    /// Estimates made so far.
    estimates: u64,
}

/// Index of key `t` in `free`, or where it would go: `near` when the keys before it are smaller
/// than `t` and the key at it is not (a plan knows where its keys go), else a binary search.
fn find(free: &Free, t: SimTime, near: usize) -> Result<usize, usize> {
    let below = near == 0 || free.get(near - 1).is_some_and(|p| p.0.total_cmp(&t).is_lt());
    if below && free.get(near).is_none_or(|p| t.total_cmp(&p.0).is_le()) {
        return if free.get(near).is_some_and(|p| p.0.total_cmp(&t).is_eq()) { Ok(near) } else { Err(near) };
    }
    free.binary_search_by(|p| p.0.total_cmp(&t))
}

/// Sets the value of key `t`, inserting the key if needed ([`find`] from `near`); returns its
/// index.
fn set(free: &mut Free, t: SimTime, v: i64, near: usize) -> usize {
    match find(free, t, near) {
        Ok(i) => {
            free[i].1 = v;
            i
        }
        Err(i) => {
            free.insert(i, (t, v));
            i
        }
    }
}

/// `utils.merge_dict` (drop every key whose value equals the previous kept one) on a timeline
/// merged before edits at indices below `upto - 1` only: a key repeats its predecessor's value
/// only if one of the two was edited, so the keys from `upto` on stay.
fn merge_before(free: &mut Free, upto: usize) {
    let upto = upto.min(free.len());
    let mut kept = 1;
    for i in 1..upto {
        if free[i].1 != free[kept - 1].1 {
            free[kept] = free[i];
            kept += 1;
        }
    }
    if kept < upto {
        free.drain(kept..upto);
    }
}

impl EdfPlanner {
    /// Plans every job of `list` from `start` on an empty cluster of `total_gpus`, after sorting
    /// `list` by deadline (stable, in place). True iff every job meets its deadline and never
    /// waits past it.
    pub fn estimate_all(
        &mut self,
        jobs: &[EventJob],
        list: &mut [JobIdx],
        start: SimTime,
        total_gpus: u32,
        slot: f64,
    ) -> Result<bool, RunError> {
        self.estimate(jobs, list, start, total_gpus, slot, false)
    }

    /// [`EdfPlanner::estimate_all`] for a caller that reads the plans of running jobs and the
    /// GPUs a plan gives now, not the verdict: planning stops once no running job is left in
    /// the sorted list and no GPU is free now. Each later job is pending and would get no GPU
    /// now (the free count now only falls as jobs are planned), so it keeps no plan
    /// ([`EdfPlanner::plan_of`] gives none).
    pub fn estimate_now(
        &mut self,
        jobs: &[EventJob],
        list: &mut [JobIdx],
        start: SimTime,
        total_gpus: u32,
        slot: f64,
    ) -> Result<(), RunError> {
        self.estimate(jobs, list, start, total_gpus, slot, true).map(|_| ())
    }

    fn estimate(
        &mut self,
        jobs: &[EventJob],
        list: &mut [JobIdx],
        start: SimTime,
        total_gpus: u32,
        slot: f64,
        stop_when_idle: bool,
    ) -> Result<bool, RunError> {
        self.estimates += 1;
        self.free.clear();
        self.free.push((start, i64::from(total_gpus)));
        if self.plans.len() < jobs.len() {
            self.plans.resize_with(jobs.len(), Plan::default);
            self.sizes.resize(jobs.len(), None);
            let known = self.deadlines.len();
            self.deadlines.extend(jobs[known..].iter().map(EventJob::deadline));
        }
        // The same stable sort on the same keys.
        self.order.clear();
        self.order.extend(list.iter().map(|&j| (self.deadlines[j], j)));
        self.order.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (entry, &(_, j)) in list.iter_mut().zip(&self.order) {
            *entry = j;
        }
        let running = |&(_, j): &(SimTime, JobIdx)| jobs[j].status == JobStatus::Running;
        let last_running = self.order.iter().rposition(running).map_or(0, |k| k + 1);
        let mut all_on_time = true;
        for k in 0..self.order.len() {
            if stop_when_idle && k >= last_running && self.free[0].1 == 0 {
                break;
            }
            let (deadline, j) = self.order[k];
            all_on_time &= self.plan(&jobs[j], j, deadline, start, total_gpus, slot)?;
        }
        Ok(all_on_time)
    }

    /// `job`'s sizes, adding its levels to the tables if they are new.
    fn sizes_of(&mut self, job: &EventJob, total_gpus: u32) -> Result<Sizes, RunError> {
        let scaling = job.scaling()?;
        let rates = scaling.levels().map(|g| job.rate(g).map(|rate| (g, rate))).collect::<Result<Rates, _>>()?;
        let base = scaling.level_within(i64::from(scaling.max_gpus.min(total_gpus)));
        let key = rates.iter().map(|&(g, rate)| (g, rate.to_bits())).collect();
        let tables = &mut self.tables;
        let table = *self.table_of.entry(key).or_insert_with(|| {
            tables.push(rates);
            (tables.len() - 1) as u32
        });
        Ok(Sizes { table, base })
    }

    /// The plan of `j` from the last estimate, if that planned it.
    pub fn plan_of(&self, j: JobIdx) -> Option<&Plan> {
        self.plans.get(j).filter(|plan| plan.estimate == self.estimates)
    }

    /// Plans one job on the current timeline and commits it there: `edf_sim_allocation`, whose
    /// copy `N` of the timeline is the timeline itself here. The walk writes only at the start
    /// of the period it leaves (a key it has read) until the job ends, so every value it reads
    /// is the one the copy would hold; keys are added only at the end.
    fn plan(
        &mut self,
        job: &EventJob,
        j: JobIdx,
        deadline: SimTime,
        start: SimTime,
        total_gpus: u32,
        slot: f64,
    ) -> Result<bool, RunError> {
        let all = i64::from(total_gpus);
        let Sizes { table, base } = match self.sizes[j] {
            Some(sizes) => sizes,
            None => {
                let sizes = self.sizes_of(job, total_gpus)?;
                self.sizes[j] = Some(sizes);
                sizes
            }
        };
        let levels = &self.tables[table as usize];
        let mut left = job.iter_left;
        let free = &mut self.free;
        let plan = &mut self.plans[j];
        plan.estimate = self.estimates;
        let alloc = &mut plan.allocations;
        alloc.reset(start, 0);
        let mut period_start = start;
        // The index of `period_start` when it is a key.
        let mut at = find(free, start, 0).ok();
        let mut on_time = true;
        let mut avail = at.map_or(all, |k| free[k].1);
        let mut i = 0;
        while i < free.len() {
            let (key, value) = free[i];
            if key <= period_start {
                avail = value;
                i += 1;
                continue;
            }
            let gpus = if base > 0 && avail >= i64::from(base) {
                base
            } else if base > 0 && avail >= 1 {
                within(levels, avail)
            } else {
                0
            };
            alloc.set_merged(period_start, gpus);
            if gpus > 0 {
                let rate = rate(levels, job, gpus)?;
                let end = (period_start + left / rate).ceil();
                if key >= end {
                    // Of the keys in [period_start, end) only `period_start` can be one: the
                    // keys before `i` are at most it, `key` and those after at least `end`.
                    let end_is_key = find(free, end, i).is_ok();
                    let mut last = all;
                    if let Some(k) = at.filter(|_| period_start < end) {
                        last = free[k].1;
                        free[k].1 -= i64::from(gpus);
                    }
                    // The last index edited: the period's start is before `key`, and the two
                    // keys that may be added shift it by one at most.
                    let mut edited = i + 1;
                    if gpus != base || period_start != end {
                        set(free, period_start, avail - i64::from(gpus), at.unwrap_or(i));
                    }
                    if !end_is_key {
                        edited = edited.max(set(free, align(start, end, slot), last, i));
                    }
                    merge_before(free, edited + 2);
                    plan.end = end;
                    return Ok(on_time && end <= deadline);
                }
                left -= (key - period_start) * rate;
                if let Some(k) = at {
                    free[k].1 -= i64::from(gpus);
                }
            }
            avail = value;
            period_start = key;
            at = Some(i);
            if period_start > deadline {
                on_time = false;
            }
            i += 1;
        }
        // Beyond the last key the whole cluster is free: run at the widest size.
        alloc.set_merged(period_start, base);
        let end = (period_start + left / rate(levels, job, base)?).ceil();
        let k = set(free, period_start, all - i64::from(base), at.unwrap_or(free.len()));
        let e = set(free, align(start, end, slot), all, free.len());
        // A key added at the end may shift `period_start` by one.
        merge_before(free, (k + 1).max(e) + 2);
        plan.end = end;
        Ok(on_time && end <= deadline)
    }
}
