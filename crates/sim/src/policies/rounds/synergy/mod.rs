//! Synergy (OSDI'22): CPU- and memory-aware allocation beside the GPUs, with six job orders.
//!
//! A `synergy-*` scheduler is a whole round decision ([`crate::core::RoundPolicy`]): its order
//! sorts the runnable jobs ([`order`]), and each job in turn gets GPUs, CPUs and memory by the
//! allocation mode ([`allocation`]: GPU-proportional `fair`, Synergy-Greedy, Synergy-Tune) and
//! its placement (by GPU order, or consolidating with `place: true`); a job's speed follows its
//! CPUs and memory through its model's profile ([`demand`], `crate::profiles::synergy`). The
//! spec's nodes must give CPUs and memory. `docs/synergy-semantics.md` has the rules and quirks;
//! the original's scheduler names map to `synergy-<order>` with `allocation` and `place`
//! (`FIFO+tune` is `synergy-fifo` with `allocation: tune`, `TETRIS+tune+place` is
//! `synergy-tetris` with `allocation: tune, place: true`, `DRF` is `synergy-drf` with
//! `allocation: greedy`).

pub mod allocation;
pub mod demand;
pub mod opt;
pub mod order;
pub mod round;

use crate::core::ClusterSpec;
use crate::policies::{
    BuildContext, Built, Engine, Kind, OptionDoc, OwnPlacement, Params, PolicyConfig, PolicyInfo, parse_options,
};
use serde::{Deserialize, Serialize};

/// The placement every Synergy policy brings: its round allocation.
pub const ROUND: OwnPlacement = OwnPlacement { name: "synergy-allocation", alternatives: &[] };

/// How a job's CPUs and memory are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllocationMode {
    /// The GPU-proportional share (the original's `+fair`): the baseline.
    Fair,
    /// Synergy-Greedy (no suffix): the best-case demand, or wait.
    Greedy,
    /// Synergy-Tune (`+tune`): the best case, else the proportional share, else peers' excess.
    #[default]
    Tune,
    /// Synergy-OPT (`+opt`): every job admitted by GPU count runs, with the CPUs and memory per
    /// GPU that maximise the summed throughput within the cluster's totals (an integer program).
    Opt,
}

const OPTIONS: &[OptionDoc] = &[
    OptionDoc {
        name: "allocation",
        example: "greedy",
        meaning: "CPUs and memory per job: fair (GPU-proportional), greedy, tune (default) or opt (Synergy-Greedy, -Tune, -OPT)",
    },
    OptionDoc {
        name: "place",
        example: "true",
        meaning: "consolidating placement (the original's +place); default false: free GPUs in id order, jobs may span servers",
    },
];

/// The options every Synergy order takes.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynergyOptions {
    #[serde(default)]
    pub allocation: AllocationMode,
    #[serde(default)]
    pub place: bool,
}

impl SynergyOptions {
    fn params(&self) -> Params {
        Params::from([
            ("allocation", serde_json::to_value(self.allocation).expect("serialisable")),
            ("place", self.place.into()),
        ])
    }
}

/// Whether `cluster` can run Synergy's policies with `options`: identical nodes with CPUs and
/// memory, 3 to 6 CPUs per GPU, and for OPT a proportional share that is a cell of its matrices.
pub fn check_cluster(cluster: &ClusterSpec, options: &SynergyOptions) -> Result<(), String> {
    if options.allocation == AllocationMode::Opt && options.place {
        return Err("`allocation: opt` places no job on a server, so `place: true` would mean nothing".into());
    }
    round::check_cluster(cluster, options.allocation)
}

macro_rules! synergy_policy {
    ($module:ident, $name:literal, $order:expr, $summary:literal, $source:literal) => {
        pub mod $module {
            use super::*;

            pub const INFO: PolicyInfo = PolicyInfo {
                name: $name,
                kind: Kind::Scheduler,
                engine: Engine::Rounds,
                summary: $summary,
                options: OPTIONS,
                source: $source,
                placement: Some(ROUND),
                parse: &parse_options::<Options>,
            };

            #[derive(Debug, Clone, PartialEq, Default, Deserialize)]
            #[serde(transparent)]
            pub struct Options(pub SynergyOptions);

            impl PolicyConfig for Options {
                fn params(&self) -> Params {
                    self.0.params()
                }

                fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
                    Ok(Built::Round(Box::new(round::SynergyRound::new(
                        $order,
                        self.0.allocation,
                        self.0.place,
                        ctx.cluster,
                        ctx.round_seconds,
                    ))))
                }

                fn check_cluster(&self, cluster: &ClusterSpec) -> Result<(), String> {
                    super::check_cluster(cluster, &self.0)
                }
            }
        }
    };
}

synergy_policy!(
    synergy_fifo,
    "synergy-fifo",
    order::Order::Fifo,
    "Synergy's FIFO: arrival order, each job given GPUs, CPUs and memory by the allocation mode (the artifact check's FIFO+tune)",
    "Synergy FIFO (schedulers/fifo_synergy_new.py, resources/cluster.py, 1bb2bed); docs/synergy-semantics.md 4-5"
);

synergy_policy!(
    synergy_srtf,
    "synergy-srtf",
    order::Order::Srtf,
    "Synergy's SRTF: shortest remaining time at the speedup the last round left, bumped jobs first",
    "Synergy SRTF (schedulers/srtf_synergy_new.py, 1bb2bed); docs/synergy-semantics.md 4.2"
);

synergy_policy!(
    synergy_las,
    "synergy-las",
    order::Order::Las,
    "Synergy's LAS: least attained GPU service; only jobs admitted by GPU count are allocated, widest first under tune",
    "Synergy LAS (schedulers/las_synergy_new.py, 1bb2bed); docs/synergy-semantics.md 4.2-4.3"
);

synergy_policy!(
    synergy_ftf,
    "synergy-ftf",
    order::Order::Ftf,
    "Synergy's finish-time fairness: (time since arrival + remaining time) / ideal duration, smallest first",
    "Synergy FTF (schedulers/ftf_synergy_new.py, 1bb2bed); docs/synergy-semantics.md 4.2"
);

synergy_policy!(
    synergy_drf,
    "synergy-drf",
    order::Order::Drf,
    "DRF as Synergy ran it: smallest dominant share of the best-case demand over the cluster's totals, a fixed order",
    "Synergy DRF (schedulers/drf.py, 1bb2bed); docs/synergy-semantics.md 4.2"
);

synergy_policy!(
    synergy_tetris,
    "synergy-tetris",
    order::Order::Tetris,
    "Tetris as Synergy ran it: remaining time x the demand's summed shares of the cluster, smallest first",
    "Synergy TETRIS (schedulers/tetris.py, 1bb2bed); docs/synergy-semantics.md 4.2"
);
