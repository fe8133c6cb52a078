//! `muri-l`: Muri-L (Muri, SIGCOMM'22), the original simulator's `--schedule multi-resource-blossom-same-gpu-unaware`
//! (`run_sim.py` `multi_resource_blossom_same_sim_jobs(gputime=True, know_duration=False)` @ 4e69a78; `docs/muri-semantics.md` §7).
//!
//! Rule: Muri's scheduler ([`super::interleave`]) keyed by attained GPU time (job durations
//! unknown): wall seconds the job has spent running, overheads included, times its GPUs; least
//! first, jobs that never ran (0) ahead in the previous decision's GPU-descending order. Admission
//! by slots, grouping by Blossom matchings, best stage order and MS-YARN placement as `muri-s`.
//!
//! Options: `packing_num` (largest group, 1 to 4, default 4), `autopack` (default true, the
//! original's HEAD default; the paper's published trace values were produced with it off, §9.3)
//! and `weight_lbd` (default 0).

use super::MURI_YARN;
use super::interleave::{self, Variant};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{Engine, Kind, PolicyConfig, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-L: Muri-S keyed by attained GPU time, for unknown durations (least attained service first)",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu-unaware (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse,
};

fn parse(node: &PolicyNode) -> Result<Box<dyn PolicyConfig>, NodeError> {
    interleave::parse_variant(node, Variant::MURI_L)
}
