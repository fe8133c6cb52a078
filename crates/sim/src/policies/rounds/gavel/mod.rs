//! Gavel (OSDI'20): heterogeneity-aware policies that give each job time shares of GPU types,
//! realised round by round by Gavel's priority mechanism ([`mechanism`]).
//!
//! A `gavel-*` scheduler is a whole round decision ([`crate::core::RoundPolicy`]), not an order
//! for a placement: the mechanism chooses each round which jobs run on which type and places them
//! on that type's GPUs, and a job's progress follows its throughput on that type from Gavel's
//! oracle (the `gavel-throughputs` dataset). Every policy here states the original it reproduces;
//! `docs/gavel-semantics.md` has the rules and quirks.

pub mod allox;
pub mod assignment;
pub mod ecos_form;
pub mod fifo;
pub mod finish_time_fairness;
pub mod gandiva;
pub mod lp;
pub mod max_min_fairness;
pub mod mechanism;
pub mod min_total_duration;
pub mod packing;
mod solve_memo;

use crate::policies::{
    BuildContext, Built, Engine, InputParser, InputSource, Kind, OptionDoc, OwnPlacement, Params, PolicyConfig,
    PolicyInfo, PolicyInput, parse_options,
};
use crate::profiles::gavel::{GavelThroughputs, ThroughputFile};
use lp::Solver;
use mechanism::{Allocator, Mechanism};
use serde::Deserialize;

/// The placement every Gavel policy brings: its priority mechanism over the GPU types.
pub const MECHANISM: OwnPlacement = OwnPlacement { name: "gavel-priority", alternatives: &[] };

const THROUGHPUTS_OPTION: OptionDoc = OptionDoc {
    name: "throughputs",
    example: "simulation",
    meaning: "Gavel's throughput oracle: simulation (default, simulation_throughputs.json) or physical-cluster",
};

fn throughputs_param(file: ThroughputFile) -> Params {
    Params::from([("throughputs", serde_json::to_value(file).expect("serialisable"))])
}

/// The oracle a Gavel policy reads: the `gavel-throughputs` dataset's file `file`.
fn oracle_input(file: ThroughputFile) -> PolicyInput {
    PolicyInput {
        what: "Gavel throughput oracle",
        source: InputSource::Dataset(file.dataset_reference().to_string()),
        parse: Some(InputParser::File(GavelThroughputs::parse_input)),
        only_if_a_file: false,
    }
}

/// The mechanism running `allocator` over the oracle `file`.
fn mechanism(ctx: &BuildContext, file: ThroughputFile, allocator: Box<dyn Allocator>) -> Result<Built, String> {
    let oracle = ctx.input(&oracle_input(file))?;
    Ok(Built::Round(Box::new(Mechanism::new(allocator, oracle, ctx.cluster, ctx.round_seconds, ctx.seed))))
}

const SOLVER_OPTION: OptionDoc = OptionDoc {
    name: "solver",
    example: "ecos",
    meaning: "the solver of the policy's programs, whose optima are rarely unique: ecos (default, the original's: ECOS 2.0 on cvxpy's canonical form, landing on its point) or clarabel",
};

/// A Gavel policy whose programs take a `solver`: `$allocator` gets it.
macro_rules! gavel_lp_policy {
    ($module:ident, $name:literal, $summary:literal, $source:literal, $allocator:expr) => {
        pub mod $module {
            use super::*;

            pub const INFO: PolicyInfo = PolicyInfo {
                name: $name,
                kind: Kind::Scheduler,
                engine: Engine::Rounds,
                summary: $summary,
                options: &[THROUGHPUTS_OPTION, SOLVER_OPTION],
                source: $source,
                placement: Some(MECHANISM),
                parse: &parse_options::<Options>,
            };

            #[derive(Debug, Clone, PartialEq, Default, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct Options {
                #[serde(default)]
                pub throughputs: ThroughputFile,
                #[serde(default)]
                pub solver: Option<Solver>,
            }

            impl PolicyConfig for Options {
                /// The solver always, given or not: it decides the allocation.
                fn params(&self) -> Params {
                    let mut params = throughputs_param(self.throughputs);
                    params.insert("solver", self.solver.unwrap_or_default().name().into());
                    params
                }

                fn inputs(&self) -> Vec<PolicyInput> {
                    vec![oracle_input(self.throughputs)]
                }

                fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
                    #[allow(clippy::redundant_closure_call)]
                    let allocator: Box<dyn Allocator> = ($allocator)(self.solver.unwrap_or_default());
                    mechanism(ctx, self.throughputs, allocator)
                }
            }
        }
    };
}

macro_rules! gavel_policy {
    ($module:ident, $name:literal, $summary:literal, $source:literal, $allocator:expr) => {
        pub mod $module {
            use super::*;

            pub const INFO: PolicyInfo = PolicyInfo {
                name: $name,
                kind: Kind::Scheduler,
                engine: Engine::Rounds,
                summary: $summary,
                options: &[THROUGHPUTS_OPTION],
                source: $source,
                placement: Some(MECHANISM),
                parse: &parse_options::<Options>,
            };

            #[derive(Debug, Clone, PartialEq, Default, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct Options {
                #[serde(default)]
                pub throughputs: ThroughputFile,
            }

            impl PolicyConfig for Options {
                fn params(&self) -> Params {
                    throughputs_param(self.throughputs)
                }

                fn inputs(&self) -> Vec<PolicyInput> {
                    vec![oracle_input(self.throughputs)]
                }

                fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
                    #[allow(clippy::redundant_closure_call)]
                    let allocator: Box<dyn Allocator> = ($allocator)(ctx);
                    mechanism(ctx, self.throughputs, allocator)
                }
            }
        }
    };
}

gavel_policy!(
    gavel_fifo,
    "gavel-fifo",
    "Gavel's FIFO as the paper ran it: a persistent GPU type per job, placed on the last type with room (not the drawn one)",
    "Gavel fifo (policies/fifo.py FIFOPolicy, scheduler.py c4fa400); docs/gavel-semantics.md 9.1",
    |ctx: &BuildContext| Box::new(fifo::Fifo::new(fifo::TypeChoice::Head, ctx.seed))
);

gavel_policy!(
    gavel_fifo_perf,
    "gavel-fifo-perf",
    "Gavel's heterogeneity-aware FIFO: each job on the fastest GPU type with room",
    "Gavel fifo_perf (policies/fifo.py FIFOPolicyWithPerf); docs/gavel-semantics.md 9.2",
    |ctx: &BuildContext| Box::new(fifo::Fifo::new(fifo::TypeChoice::Fastest, ctx.seed))
);

gavel_policy!(
    gavel_fifo_packed,
    "gavel-fifo-packed",
    "Gavel's FIFO with space sharing: fifo-perf, then queued jobs packed beside running ones when the pair gains 1.5x",
    "Gavel fifo_packed (policies/fifo.py FIFOPolicyWithPacking); docs/gavel-semantics.md 9.3",
    |ctx: &BuildContext| Box::new(fifo::Fifo::new(fifo::TypeChoice::FastestPacked, ctx.seed))
);

gavel_policy!(
    gavel_gandiva,
    "gavel-gandiva",
    "Gandiva as Gavel ran it: equal time shares, random pairs of jobs sharing GPUs when oversubscribed",
    "Gavel gandiva (policies/gandiva.py GandivaPolicy); docs/gavel-semantics.md 9.4",
    |ctx: &BuildContext| Box::new(gandiva::Gandiva::new(ctx.seed))
);

gavel_lp_policy!(
    gavel_max_min_fairness,
    "gavel-max-min-fairness",
    "Gavel's heterogeneity-agnostic LAS: max-min fairness of GPU time, types shuffled each round",
    "Gavel max_min_fairness (policies/max_min_fairness.py MaxMinFairnessPolicy); docs/gavel-semantics.md 9.6",
    |solver: Solver| Box::new(max_min_fairness::MaxMinFairness { aware: false, packing: false, solver })
);

gavel_lp_policy!(
    gavel_max_min_fairness_perf,
    "gavel-max-min-fairness-perf",
    "Gavel's LAS: max-min fairness of throughput normalised to the proportional share (LP)",
    "Gavel max_min_fairness_perf (policies/max_min_fairness.py MaxMinFairnessPolicyWithPerf); docs/gavel-semantics.md 9.6",
    |solver: Solver| Box::new(max_min_fairness::MaxMinFairness { aware: true, packing: false, solver })
);

gavel_policy!(
    gavel_max_min_fairness_packed,
    "gavel-max-min-fairness-packed",
    "Gavel's LAS with space sharing: max-min fairness over jobs and pairs of jobs sharing GPUs (LP)",
    "Gavel max_min_fairness_packed (policies/max_min_fairness.py MaxMinFairnessPolicyWithPacking, per-job sums); docs/gavel-semantics.md 9.7",
    |_: &BuildContext| Box::new(max_min_fairness::MaxMinFairness {
        aware: true,
        packing: true,
        solver: Solver::Clarabel
    })
);

gavel_lp_policy!(
    gavel_min_total_duration,
    "gavel-min-total-duration",
    "Gavel's makespan policy, heterogeneity-agnostic (V100 throughput on every type)",
    "Gavel min_total_duration (policies/min_total_duration.py MinTotalDurationPolicy); docs/gavel-semantics.md 9.9",
    |solver: Solver| Box::new(min_total_duration::MinTotalDuration { aware: false, packing: false, solver })
);

gavel_lp_policy!(
    gavel_min_total_duration_perf,
    "gavel-min-total-duration-perf",
    "Gavel's makespan policy (the paper's \"Gavel\"): the shortest horizon every job can meet, by bisection over LPs",
    "Gavel min_total_duration_perf (policies/min_total_duration.py MinTotalDurationPolicyWithPerf); docs/gavel-semantics.md 9.9",
    |solver: Solver| Box::new(min_total_duration::MinTotalDuration { aware: true, packing: false, solver })
);

gavel_policy!(
    gavel_min_total_duration_packed,
    "gavel-min-total-duration-packed",
    "Gavel's makespan policy with space sharing (the paper's \"Gavel w/ SS\"): jobs and pairs of jobs sharing GPUs",
    "Gavel min_total_duration_packed (policies/min_total_duration.py MinTotalDurationPolicyWithPacking, per-job sums); docs/gavel-semantics.md 9.9",
    |_: &BuildContext| Box::new(min_total_duration::MinTotalDuration {
        aware: true,
        packing: true,
        solver: Solver::Clarabel
    })
);

gavel_lp_policy!(
    gavel_finish_time_fairness,
    "gavel-finish-time-fairness",
    "Gavel's heterogeneity-agnostic finish-time fairness (V100 throughput on every type), types shuffled each round",
    "Gavel finish_time_fairness (policies/finish_time_fairness.py FinishTimeFairnessPolicy); docs/gavel-semantics.md 9.8",
    |solver: Solver| Box::new(finish_time_fairness::FinishTimeFairness::new(false, false, solver))
);

gavel_lp_policy!(
    gavel_finish_time_fairness_perf,
    "gavel-finish-time-fairness-perf",
    "Gavel's finish-time fairness: minimise the largest JCT ratio to the isolated share (convex, SOC)",
    "Gavel finish_time_fairness_perf (policies/finish_time_fairness.py FinishTimeFairnessPolicyWithPerf); docs/gavel-semantics.md 9.8",
    |solver: Solver| Box::new(finish_time_fairness::FinishTimeFairness::new(true, false, solver))
);

gavel_policy!(
    gavel_finish_time_fairness_packed,
    "gavel-finish-time-fairness-packed",
    "Gavel's finish-time fairness with space sharing: jobs and pairs of jobs sharing GPUs (convex, SOC)",
    "Gavel finish_time_fairness_packed (policies/finish_time_fairness.py FinishTimeFairnessPolicyWithPacking); docs/gavel-semantics.md 9.8",
    |_: &BuildContext| Box::new(finish_time_fairness::FinishTimeFairness::new(true, true, Solver::Clarabel))
);

gavel_policy!(
    gavel_isolated,
    "gavel-isolated",
    "Gavel's isolated allocation: every job 1/m of each GPU type (the reference of finish-time fairness)",
    "Gavel isolated (policies/isolated.py IsolatedPolicy); docs/gavel-semantics.md 9.10",
    |_: &BuildContext| Box::new(finish_time_fairness::Isolated)
);

/// `gavel-allox`: AlloX with its `alpha` (the share of waiting jobs considered, at least as many
/// as free GPUs).
pub mod gavel_allox {
    use super::*;
    use crate::policies::Positive;

    pub const INFO: PolicyInfo = PolicyInfo {
        name: "gavel-allox",
        kind: Kind::Scheduler,
        engine: Engine::Rounds,
        summary: "AlloX as Gavel ran it: waiting single-GPU jobs assigned to free GPUs by minimum total completion time, never preempted",
        options: &[
            THROUGHPUTS_OPTION,
            OptionDoc {
                name: "alpha",
                example: "1.0",
                meaning: "share of the waiting jobs (oldest first) considered at each re-allocation, at least one per free GPU (default 1)",
            },
        ],
        source: "Gavel allox / allox_alpha=a (policies/allox.py AlloXPolicy); docs/gavel-semantics.md 9.5",
        placement: Some(MECHANISM),
        parse: &parse_options::<Options>,
    };

    #[derive(Debug, Clone, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Options {
        #[serde(default)]
        pub throughputs: ThroughputFile,
        #[serde(default = "default_alpha")]
        pub alpha: Positive,
    }

    fn default_alpha() -> Positive {
        Positive(1.0)
    }

    impl Default for Options {
        fn default() -> Self {
            Self { throughputs: ThroughputFile::default(), alpha: default_alpha() }
        }
    }

    impl PolicyConfig for Options {
        fn params(&self) -> Params {
            let mut params = throughputs_param(self.throughputs);
            params.insert("alpha", self.alpha.0.into());
            params
        }

        fn inputs(&self) -> Vec<PolicyInput> {
            vec![oracle_input(self.throughputs)]
        }

        fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
            mechanism(ctx, self.throughputs, Box::new(allox::Allox::new(self.alpha.0)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{ClusterSpec, GpuType, JobSpec, NodeGroup, NodeSpec, RoundPolicy, RoundTiming};
    use crate::policies::rounds::gavel::fifo::{Fifo, TypeChoice};
    use std::sync::Arc;

    /// A live run's progress is a share of a Gavel job's steps, not of its seconds at the V100
    /// rate; a job without steps falls back to its work.
    #[test]
    fn a_gavel_jobs_whole_work_is_its_steps() {
        let oracle = GavelThroughputs::parse(r#"{"v100": {"('A', 1)": {"null": 2.0}}}"#, "table.json").unwrap();
        let node = NodeSpec { gpus: 1, gpu_type: GpuType::new("v100"), cpus: None, memory_gb: None };
        let cluster = ClusterSpec::from_groups(&[NodeGroup { count: 1, node }]);
        let policy = Mechanism::new(Box::new(Fifo::new(TypeChoice::Head, 0)), Arc::new(oracle), &cluster, 360.0, 0);
        let job = JobSpec { id: 0, gpus: 1, work: 60.0, iterations: Some(120.0), ..JobSpec::default() };
        assert_eq!(policy.whole_work(&job), 120.0);
        assert_eq!(policy.whole_work(&JobSpec { iterations: None, ..job }), 60.0);
        assert_eq!(policy.timing(), RoundTiming::UntilLastQuantum);
    }
}
