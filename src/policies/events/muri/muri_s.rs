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
use super::interleave::{self, Muri, PackingNum, Params4, Variant, WeightLbd};
use crate::policies::{BuildContext, Built, Engine, Kind, Params, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-s",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-S: interleave up to 4 jobs of equal GPU count, grouped by Blossom matchings, shortest remaining GPU time first",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub packing_num: PackingNum,
    #[serde(default = "interleave::autopack_default")]
    pub autopack: bool,
    #[serde(default)]
    pub weight_lbd: WeightLbd,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            packing_num: PackingNum::default(),
            autopack: interleave::autopack_default(),
            weight_lbd: WeightLbd::default(),
        }
    }
}

impl PolicyConfig for Options {
    fn params(&self) -> Params {
        let Options { packing_num, autopack, weight_lbd } = self;
        interleave::params(*packing_num, *autopack, *weight_lbd)
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        let params =
            Params4 { packing_num: self.packing_num.0, autopack: self.autopack, weight_lbd: self.weight_lbd.0 };
        Ok(Built::Event(Box::new(Muri::new(Variant::MURI_S, params))))
    }
}
