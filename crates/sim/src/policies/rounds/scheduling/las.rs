//! `las`: least attained service first.
//!
//! Rule: order active jobs by attained service, the wall-clock seconds they have held GPUs
//! (not GPU-weighted, kept across preemptions), ties by job id. A new job (0 s) outranks every
//! job that has run, so LAS preempts often under load.
//! Source: Blox `schedulers/las.py` (key `tracked_metrics.attained_service`, +round length per
//! round run). Blox's "Tiresias" scheduler returns exactly this order (its queue logic is computed
//! and discarded), so Blox's figures label this policy "Tiresias"; the discretized 2D-LAS of the
//! Tiresias paper (NSDI'19) is a different policy.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §2.2.

use crate::core::policy::sort_by_priority_key;
use crate::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "las",
    kind: Kind::Scheduler,
    engine: Engine::Rounds,
    summary: "least attained service first, preemptive (Blox labels it \"Tiresias\"; the discretized 2D-LAS is `tiresias`)",
    options: &[],
    source: "Blox Las (schedulers/las.py)",
    placement: None,
    parse: &|node| without_options(node, || Built::Order(Box::new(Las::default()))),
};

#[derive(Default)]
pub struct Las {
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl Scheduler for Las {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.life.attained_service);
        Ok(())
    }
}
