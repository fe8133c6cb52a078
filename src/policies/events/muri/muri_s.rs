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
use crate::core::events::EventPolicy;
use crate::policies::{Kind, Params, PolicyInfo, PolicyOptions, SchedulerOptions};
use crate::profiles::GpuTimeDistribution;
use crate::spec::EngineMode;
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-s",
    kind: Kind::Scheduler,
    engine: EngineMode::Events,
    summary: "Muri-S: interleave up to 4 jobs of equal GPU count, grouped by Blossom matchings, shortest remaining GPU time first",
    options: interleave::OPTIONS,
    source: "Muri's multi-resource-blossom-same-gpu (Muri, SIGCOMM'22; run_sim.py multi_resource_blossom_same_sim_jobs)",
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
        Some(Box::new(Muri::new(Variant::MURI_S, params)))
    }
}
