//! `srtf`: shortest remaining time first, with oracle knowledge of job length.
//!
//! Rule: order active jobs by `work - attained_service` (total seconds of work minus wall seconds
//! already run), ties by job id. Remaining time is measured in wall time, not in work done, exactly
//! as Blox does; the two differ only when a job runs faster than profiled.
//! Source: Blox `schedulers/srtf.py` (key `job_iteration_time * job_total_iteration -
//! attained_service`).
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §2.3.

use crate::core::policy::sort_by_priority_key;
use crate::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "srtf",
    kind: Kind::Scheduler,
    engine: Engine::Rounds,
    summary: "shortest remaining time first with oracle job lengths",
    options: &[],
    source: "Blox Srtf (schedulers/srtf.py)",
    placement: None,
    parse: &|node| without_options(node, || Built::Order(Box::new(Srtf::default()))),
};

#[derive(Default)]
pub struct Srtf {
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl Scheduler for Srtf {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.spec.work - job.life.attained_service);
        Ok(())
    }
}
