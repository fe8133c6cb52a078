//! `las`: least attained service first.
//!
//! Rule: order active jobs by attained service, the wall-clock seconds they have held GPUs
//! (not GPU-weighted, kept across preemptions), ties by job id. A new job (0 s) outranks every
//! job that has run, so LAS preempts often under load.
//! Source: Blox `schedulers/las.py` (key `tracked_metrics.attained_service`, +round length per
//! round run). Blox's "Tiresias" scheduler returns exactly this order (its queue logic is computed
//! and discarded), so Blox's figures label this policy "Tiresias"; the discretized 2D-LAS of the
//! Tiresias paper (NSDI'19) is a different policy.

use crate::core::policy::sort_by_priority_key;
use crate::core::{JobSlot, JobTable, Scheduler, SimTime};

#[derive(Default)]
pub struct Las {
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl Scheduler for Las {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.attained_service);
    }
}
