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
use crate::core::events::EventPolicy;
use crate::policies::{Kind, Params, PolicyInfo, PolicyOptions, SchedulerOptions};
use crate::profiles::GpuTimeDistribution;
use crate::spec::EngineMode;
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-l-without-blossom",
    kind: Kind::Scheduler,
    engine: EngineMode::Events,
    summary: "Muri-L ablation: consecutive jobs of each admission slot form the groups, no matching",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-gpu-unaware (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
    placement: Some(MURI_YARN),
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

impl PolicyOptions for Options {
    fn info(&self) -> &'static PolicyInfo {
        &INFO
    }

    fn params(&self) -> Params {
        let Options { packing_num, autopack, weight_lbd } = self;
        interleave::params(*packing_num, *autopack, *weight_lbd)
    }
}

impl SchedulerOptions for Options {
    fn build_event(&self, _gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        let params =
            Params4 { packing_num: self.packing_num.0, autopack: self.autopack, weight_lbd: self.weight_lbd.0 };
        Some(Box::new(Muri::new(Variant::WITHOUT_BLOSSOM, params)))
    }
}
