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
use super::interleave::{self, Muri, PackingNum, Params4, Variant, WeightLbd};
use crate::policies::{BuildContext, Built, Engine, Kind, Params, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l-without-blossom",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri-L ablation: consecutive jobs of each admission slot form the groups, no matching",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-gpu-unaware (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
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
        Ok(Built::Event(Box::new(Muri::new(Variant::WITHOUT_BLOSSOM, params))))
    }
}
