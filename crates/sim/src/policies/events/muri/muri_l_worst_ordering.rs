//! `muri-l-worst-ordering`: Muri-L with the worst stage ordering (Muri, SIGCOMM'22), the original simulator's `--schedule multi-resource-blossom-same-gpu-unaware-worstordering`
//! (`run_sim.py` `multi_resource_blossom_same_sim_jobs(gputime=True, know_duration=False, ordering=2)` @ 4e69a78; `docs/muri-semantics.md` §7).
//!
//! Rule: `muri-l` ([`super::muri_l`]) with every group's cycle taken at the *worst* order of its
//! jobs' stages instead of the best (Fig 11's ablation): both in the matching's edge weights and
//! in the members' iteration time. Quirk kept: autopack still judges a group at its best order.
//!
//! Options: `packing_num` (largest group, 1 to 4, default 4), `autopack` (default true, the
//! original's HEAD default; the paper's published trace values were produced with it off, §9.3)
//! and `weight_lbd` (default 0).

use super::MURI_YARN;
use super::interleave::{self, Variant};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{Engine, Kind, PolicyConfig, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l-worst-ordering",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-L ablation: groups run (and are matched) at the worst stage order of their jobs",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu-unaware-worstordering (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse,
};

fn parse(node: &PolicyNode) -> Result<Box<dyn PolicyConfig>, NodeError> {
    interleave::parse_variant(node, Variant::WORST_ORDERING)
}
