//! `muri-srsf`: shortest remaining service first as the Muri (SIGCOMM'22) simulator runs it, its
//! `--schedule shortest-gpu` baseline (`run_sim.py` `shortest_first_sim_jobs(gputime=True)`,
//! `docs/muri-semantics.md` §3).
//!
//! Rule: `muri-srtf` ([`super::srtf`]) with the key `iterations left × solo iteration time × GPUs`
//! (remaining GPU-seconds) instead of the remaining time; everything else is shared, quirks
//! included.

use super::MURI_YARN;
use super::srtf::ShortestFirst;
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-srsf",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri's SRSF: smallest remaining GPU time first at every arrival and completion, skip what does not fit",
    options: &[],
    source: "Muri's shortest-gpu (Muri, SIGCOMM'22; run_sim.py shortest_first_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &|node| without_options(node, || Built::Event(Box::new(ShortestFirst::new(true)))),
};
