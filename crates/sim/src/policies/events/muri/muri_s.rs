//! `muri-s`: Muri-S (Muri, SIGCOMM'22), the original simulator's `--schedule multi-resource-blossom-same-gpu`
//! (`run_sim.py` `multi_resource_blossom_same_sim_jobs(gputime=True)` @ 4e69a78; `docs/muri-semantics.md` §7).
//!
//! Rule: Muri's scheduler ([`super::interleave`]) keyed by remaining GPU time (the job durations
//! are known): at every arrival and completion the runnable jobs are sorted by
//! `iterations left × solo iteration time × GPUs` (a job that never ran: its trace duration ×
//! GPUs), admitted by slots of `packing_num` jobs of equal GPU count, grouped by repeated
//! maximum-weight matchings on the groups' resource utilisation while the admitted jobs do not
//! fit alone, and placed with MS-YARN, each group on one set of GPUs running its members'
//! stages interleaved at the best stage order.
//!
//! Options: `packing_num` (largest group, 1 to 4, default 4), `autopack` (default true, the
//! original's HEAD default; the paper's published trace values were produced with it off, §9.3)
//! and `weight_lbd` (default 0).

use super::MURI_YARN;
use super::interleave::{self, Variant};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{Engine, Kind, PolicyConfig, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-s",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-S: interleave up to 4 jobs of equal GPU count, grouped by Blossom matchings, shortest remaining GPU time first",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse,
};

fn parse(node: &PolicyNode) -> Result<Box<dyn PolicyConfig>, NodeError> {
    interleave::parse_variant(node, Variant::MURI_S)
}
