//! `muri-l-without-blossom`: Muri-L without Blossom (Muri, SIGCOMM'22), the original simulator's `--schedule multi-resource-gpu-unaware`
//! (`run_sim.py` `multi_resource_blossom_same_sim_jobs(gputime=True, know_duration=False, blossom=False)` @ 4e69a78; `docs/muri-semantics.md` §7).
//!
//! Rule: `muri-l` ([`super::muri_l`]) without the matching (Fig 11's ablation): the jobs each
//! admission slot covers, in key order, join the slot's first job while the admitted jobs do not
//! fit alone. Quirk kept: four-job groups use the interference factor 1.3/1.015 instead of
//! 1.37/1.015 (`jobs.py` sets it for this schedule only).
//!
//! Options: `packing_num` (largest group, 1 to 4, default 4), `autopack` (default true, the
//! original's HEAD default; the paper's published trace values were produced with it off, §9.3)
//! and `weight_lbd` (default 0).

use super::MURI_YARN;
use super::interleave::{self, Variant};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{Engine, Kind, PolicyConfig, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l-without-blossom",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-L ablation: consecutive jobs of each admission slot form the groups, no matching",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-gpu-unaware (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse,
};

fn parse(node: &PolicyNode) -> Result<Box<dyn PolicyConfig>, NodeError> {
    interleave::parse_variant(node, Variant::WITHOUT_BLOSSOM)
}
