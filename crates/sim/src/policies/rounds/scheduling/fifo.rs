//! `fifo`: first come, first served.
//!
//! Rule: order active jobs by submission time (ties by job id). A running job is never behind a
//! waiting one, so FIFO never preempts except for jobs promoted by the starvation guard.
//! Source: Blox `schedulers/fifo.py` (key `submit_time`), EuroSys'24 Figures 6, 7 and 12.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §2.1.

use crate::core::policy::sort_by_priority_key;
use crate::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    kind: Kind::Scheduler,
    engine: Engine::Rounds,
    summary: "first come, first served by submission time",
    options: &[],
    source: "Blox Fifo (schedulers/fifo.py)",
    placement: None,
    parse: &|node| without_options(node, || Built::Order(Box::new(Fifo::default()))),
};

#[derive(Default)]
pub struct Fifo {
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl Scheduler for Fifo {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.spec.submitted);
        Ok(())
    }
}
