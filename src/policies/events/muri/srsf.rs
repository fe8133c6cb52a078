//! `muri-srsf`: shortest remaining service first as the Muri (SIGCOMM'22) simulator runs it, its
//! `--schedule shortest-gpu` baseline (`run_sim.py` `shortest_first_sim_jobs(gputime=True)`,
//! `docs/muri-semantics.md` §3).
//!
//! Rule: `muri-srtf` ([`super::srtf`]) with the key `iterations left × solo iteration time × GPUs`
//! (remaining GPU-seconds) instead of the remaining time; everything else is shared, quirks
//! included.

use super::MURI_YARN;
use super::srtf::ShortestFirst;
use crate::policies::{BuildContext, Built, Engine, Kind, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-srsf",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri's SRSF: smallest remaining GPU time first at every arrival and completion, skip what does not fit",
    options: &[],
    source: "Muri's shortest-gpu (Muri, SIGCOMM'22; run_sim.py shortest_first_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyConfig for Options {
    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Event(Box::new(ShortestFirst::new(true))))
    }
}
