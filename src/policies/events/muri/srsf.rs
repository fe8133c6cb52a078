//! `muri-srsf`: shortest remaining service first as the Muri (SIGCOMM'22) simulator runs it, its
//! `--schedule shortest-gpu` baseline (`run_sim.py` `shortest_first_sim_jobs(gputime=True)`,
//! `docs/muri-semantics.md` §3).
//!
//! Rule: `muri-srtf` ([`super::srtf`]) with the key `iterations left × solo iteration time × GPUs`
//! (remaining GPU-seconds) instead of the remaining time; everything else is shared, quirks
//! included.

use super::MURI_YARN;
use super::srtf::ShortestFirst;
use crate::core::events::EventPolicy;
use crate::policies::{Kind, PolicyInfo, PolicyOptions, SchedulerOptions};
use crate::profiles::GpuTimeDistribution;
use crate::spec::EngineMode;
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-srsf",
    kind: Kind::Scheduler,
    engine: EngineMode::Events,
    summary: "Muri's SRSF: smallest remaining GPU time first at every arrival and completion, skip what does not fit",
    options: &[],
    source: "Muri's shortest-gpu (Muri, SIGCOMM'22; run_sim.py shortest_first_sim_jobs)",
    placement: Some(MURI_YARN),
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyOptions for Options {
    fn info(&self) -> &'static PolicyInfo {
        &INFO
    }
}

impl SchedulerOptions for Options {
    fn build_event(&self, _gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        Some(Box::new(ShortestFirst::new(true)))
    }
}
