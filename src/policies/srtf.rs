//! `srtf`: shortest remaining time first, with oracle knowledge of job length.
//!
//! Rule: order active jobs by `work - attained_service` (total seconds of work minus wall seconds
//! already run), ties by job id. Remaining time is measured in wall time, not in work done, exactly
//! as Blox does; the two differ only when a job runs faster than profiled.
//! Source: Blox `schedulers/srtf.py` (key `job_iteration_time * job_total_iteration -
//! attained_service`).

use crate::core::policy::sort_by_priority_key;
use crate::core::{JobSlot, JobTable, Scheduler, SimTime};

#[derive(Default)]
pub struct Srtf {
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl Scheduler for Srtf {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.spec.work - job.attained_service);
    }
}
