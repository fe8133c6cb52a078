//! ElasticFlow's EDF planner (`scheduler.py` `EDF_estimate_all_jobs` / `edf_sim_allocation`
//! @ b3f5ea4; `docs/elasticflow-semantics.md` §4), shared by `edf` and `edf-admission`.
//!
//! Jobs are planned one after another in deadline order on a timeline of free GPUs that starts
//! empty at the decision time. Each job runs as wide as possible (up to `min(max_gpus, cluster)`)
//! in every slot-aligned period, and its end is `ceil(start of its last period + iterations
//! left / rate)`. Kept for fidelity: the free count written at the slot-aligned end is the
//! period's count *before* the job (§4 (*)), so later jobs can see GPUs that others hold there.

use crate::core::RunError;
use crate::core::SimTime;
use crate::core::events::{Allocation, ElasticJob, FreeTimeline, JobIdx, align};

/// A job's plan from the last estimate.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub allocations: Allocation,
    /// Unaligned planned end.
    pub end: SimTime,
}

/// The planner's timeline and the plans of the last estimate, reused between decisions.
#[derive(Debug, Default)]
pub struct EdfPlanner {
    free: FreeTimeline,
    scratch: FreeTimeline,
    plans: Vec<Plan>,
}

impl EdfPlanner {
    /// Plans every job of `list` from `start` on an empty cluster of `total_gpus`, after sorting
    /// `list` by deadline (stable, in place). True iff every job meets its deadline and never
    /// waits past it.
    pub fn estimate_all(
        &mut self,
        jobs: &[ElasticJob],
        list: &mut [JobIdx],
        start: SimTime,
        total_gpus: u32,
        slot: f64,
    ) -> Result<bool, RunError> {
        self.free.reset(start, i64::from(total_gpus));
        if self.plans.len() < jobs.len() {
            self.plans.resize_with(jobs.len(), Plan::default);
        }
        list.sort_by(|&a, &b| jobs[a].deadline().total_cmp(&jobs[b].deadline()));
        let mut all_on_time = true;
        for &j in list.iter() {
            all_on_time &= self.plan(&jobs[j], j, start, total_gpus, slot)?;
        }
        Ok(all_on_time)
    }

    /// The plan of `j` from the last [`EdfPlanner::estimate_all`] that included it.
    pub fn plan_of(&self, j: JobIdx) -> Option<&Plan> {
        self.plans.get(j)
    }

    /// Plans one job on the current timeline and commits it there.
    fn plan(
        &mut self,
        job: &ElasticJob,
        j: JobIdx,
        start: SimTime,
        total_gpus: u32,
        slot: f64,
    ) -> Result<bool, RunError> {
        let all = i64::from(total_gpus);
        let scaling = job.scaling()?;
        let base = scaling.level_within(i64::from(scaling.max_gpus.min(total_gpus)));
        let mut left = job.iter_left;
        let plan = &mut self.plans[j];
        plan.allocations.reset(start, 0);
        self.scratch.clone_from(&self.free);
        let free = &self.free;
        let next = &mut self.scratch;
        let mut period_start = start;
        let mut on_time = true;
        let mut avail = next.get(start).unwrap_or(all);
        for &(key, value) in free.points() {
            if key <= period_start {
                avail = value;
                continue;
            }
            let gpus = if base > 0 && avail >= i64::from(base) {
                base
            } else if base > 0 && avail >= 1 {
                scaling.level_within(avail)
            } else {
                0
            };
            plan.allocations.set(period_start, gpus);
            if gpus > 0 {
                let rate = job.rate(gpus)?;
                let end = (period_start + left / rate).ceil();
                if key >= end {
                    let mut last = all;
                    for &(t, _) in free.points() {
                        if t >= period_start && t < end {
                            last = next.get(t).unwrap_or(all);
                            next.add(t, -i64::from(gpus));
                        }
                    }
                    if gpus != base || period_start != end {
                        next.set(period_start, avail - i64::from(gpus));
                    }
                    if !free.contains(end) {
                        next.set(align(start, end, slot), last);
                    }
                    return Ok(self.commit(j, end) && on_time && end <= job.deadline());
                }
                left -= (key - period_start) * rate;
                next.add(period_start, -i64::from(gpus));
            }
            avail = next.get(key).unwrap_or(all);
            period_start = key;
            if period_start > job.deadline() {
                on_time = false;
            }
        }
        // Beyond the last key the whole cluster is free: run at the widest size.
        plan.allocations.set(period_start, base);
        let end = (period_start + left / job.rate(base)?).ceil();
        next.set(period_start, all - i64::from(base));
        next.set(align(start, end, slot), all);
        Ok(self.commit(j, end) && on_time && end <= job.deadline())
    }

    /// Makes the scratch timeline the planner's and records `j`'s end. Always true.
    fn commit(&mut self, j: JobIdx, end: SimTime) -> bool {
        self.scratch.merge();
        std::mem::swap(&mut self.free, &mut self.scratch);
        let plan = &mut self.plans[j];
        plan.allocations.merge();
        plan.end = end;
        true
    }
}
