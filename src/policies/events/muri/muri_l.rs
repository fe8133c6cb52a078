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
use super::interleave::{self, Muri, PackingNum, Params4, Variant, WeightLbd};
use crate::policies::{BuildContext, Built, Engine, Kind, Params, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-L: Muri-S keyed by attained GPU time, for unknown durations (least attained service first)",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu-unaware (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
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
        Ok(Built::Event(Box::new(Muri::new(Variant::MURI_L, params))))
    }
}
