//! The family's schedulers as specs name them: `pollux`, `pollux-tiresias`,
//! `pollux-optimus-oracle` and `afs`, each a [`PolluxFrame`] over the measured profiles (a folder input,
//! default the `pollux-profiles` dataset), deciding every `interval_s` (Pollux's `--interval`,
//! default `engine.round_s`; the paper uses 60 s), with the interference slowdown as an option
//! (Pollux's `--interference`); `pollux` also takes interference avoidance (on by default, the
//! paper's).

use super::afs::PolluxAfs;
use super::frame::{Allocator, PolluxFrame};
use super::nsga2::Settings;
use super::optimus::PolluxOptimus;
use super::profile::Profiles;
use super::scheduler::PolluxScheduler;
use super::tiresias::PolluxTiresias;
use crate::core::input::{InputData, ParsedInput};
use crate::policies::{
    BuildContext, Built, Engine, InputParser, InputSource, Kind, OptionDoc, OwnPlacement, Params, PolicyConfig,
    PolicyInput,
};
use serde::Deserialize;
use std::sync::Arc;

/// The placement both baselines and Pollux bring: the simulator's node-id lists, most free GPUs
/// first.
pub const NODE_LISTS: OwnPlacement = OwnPlacement { name: "pollux-most-free", alternatives: &[] };

/// AFS's placement: node-id lists, the fullest node that holds what is still needed first.
pub const BEST_FIT_LISTS: OwnPlacement = OwnPlacement { name: "afs-best-fit", alternatives: &[] };

/// The profiles a spec gets when it names none.
const DEFAULT_PROFILES: &str = "pollux-profiles/traces/";

/// The interval option's documentation, the same for every scheduler of the family.
const INTERVAL_DOC: OptionDoc = OptionDoc {
    name: "interval_s",
    example: "480",
    meaning: "seconds between decisions (Pollux's --interval), a whole multiple of engine.round_s (default engine.round_s)",
};

pub const OPTIONS: &[OptionDoc] = &[
    INTERVAL_DOC,
    OptionDoc {
        name: "interference",
        example: "0.25",
        meaning: "progress lost by a distributed job on a node hosting another distributed job, from 0 (default, Pollux's --interference) to below 1",
    },
    OptionDoc {
        name: "profiles",
        example: "{dataset: pollux-profiles/traces/}",
        meaning: "the six models' measured profiles, a folder of <application>/{placements,scalability,validation-<B>}.csv: {dataset: D} or {path: DIR} (default the pollux-profiles dataset)",
    },
];

/// A slowdown fraction in [0, 1).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Slowdown(pub f64);

impl TryFrom<f64> for Slowdown {
    type Error = String;
    fn try_from(value: f64) -> Result<Self, String> {
        if (0.0..1.0).contains(&value) {
            Ok(Slowdown(value))
        } else {
            Err(format!("`interference` is a fraction of progress lost, from 0 to below 1; found {value}"))
        }
    }
}

/// Seconds between decisions, a whole positive number.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Interval(pub u32);

impl TryFrom<f64> for Interval {
    type Error = String;
    fn try_from(value: f64) -> Result<Self, String> {
        if value >= 1.0 && value.fract() == 0.0 && value <= f64::from(u32::MAX) {
            Ok(Interval(value as u32))
        } else {
            Err(format!("`interval_s` is a whole number of seconds, at least 1; found {value}"))
        }
    }
}

/// Options of both schedulers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameOptions {
    #[serde(default)]
    pub interval_s: Option<Interval>,
    #[serde(default = "no_slowdown")]
    pub interference: Slowdown,
    #[serde(default = "default_profiles")]
    pub profiles: InputSource,
}

fn no_slowdown() -> Slowdown {
    Slowdown(0.0)
}

fn default_profiles() -> InputSource {
    InputSource::Dataset(DEFAULT_PROFILES.into())
}

impl Default for FrameOptions {
    fn default() -> Self {
        Self { interval_s: None, interference: no_slowdown(), profiles: default_profiles() }
    }
}

impl FrameOptions {
    fn params(&self) -> Params {
        let FrameOptions { interval_s, interference, profiles } = self;
        let mut params = Params::from([("interference", interference.0.into()), ("profiles", profiles.canonical())]);
        // Only when given, so that the runs of specs without it keep their keys.
        if let Some(interval) = interval_s {
            params.insert("interval_s", interval.0.into());
        }
        params
    }

    fn profiles_input(&self) -> PolicyInput {
        PolicyInput {
            what: "Pollux job profiles",
            source: self.profiles.clone(),
            parse: Some(InputParser::Folder(parse_profiles)),
            only_if_a_file: false,
        }
    }

    /// The frame running `allocator`, deciding every `interval_s` (every round of the engine
    /// by default).
    fn build(&self, ctx: &BuildContext, allocator: impl Allocator + 'static) -> Result<Built, String> {
        let round = ctx.round_seconds;
        if round.fract() != 0.0 || round < 1.0 {
            return Err(format!("Pollux's simulator decides every whole number of seconds; engine.round_s is {round}"));
        }
        let interval = self.interval_s.map_or(round, |i| f64::from(i.0));
        if (interval / round).fract() != 0.0 {
            return Err(format!(
                "interval_s ({interval}) must be a whole multiple of engine.round_s ({round}): decisions fall on rounds"
            ));
        }
        let profiles: Arc<Profiles> = ctx.input(&self.profiles_input())?;
        Ok(Built::Round(Box::new(PolluxFrame::new(profiles, allocator, interval as i64, self.interference.0))))
    }
}

/// The profile folder's files as [`Profiles::parse`] reads them.
fn parse_profiles(files: &[(String, Vec<u8>)], name: &str) -> Result<ParsedInput, String> {
    let profiles = Profiles::parse(files.iter().map(|(path, bytes)| (path.as_str(), bytes.as_slice())))
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(Arc::new(profiles))
}

impl InputData for Profiles {
    fn summary(&self) -> String {
        let names: Vec<&str> = self.applications.iter().map(|a| a.name.as_str()).collect();
        format!("{} applications ({})", names.len(), names.join(", "))
    }
}

macro_rules! frame_policy {
    ($module:ident, $name:literal, $summary:literal, $source:literal, $placement:expr, $allocator:expr) => {
        pub mod $module {
            use super::*;
            use crate::policies::{PolicyInfo, parse_options};

            pub const INFO: PolicyInfo = PolicyInfo {
                name: $name,
                kind: Kind::Scheduler,
                engine: Engine::Rounds,
                summary: $summary,
                options: OPTIONS,
                source: $source,
                placement: Some($placement),
                parse: &parse_options::<Options>,
            };

            #[derive(Debug, Clone, PartialEq, Default, Deserialize)]
            #[serde(transparent)]
            pub struct Options(pub FrameOptions);

            impl PolicyConfig for Options {
                fn params(&self) -> Params {
                    self.0.params()
                }

                fn inputs(&self) -> Vec<PolicyInput> {
                    vec![self.0.profiles_input()]
                }

                fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
                    self.0.build(ctx, $allocator)
                }
            }
        }
    };
}

frame_policy!(
    tiresias,
    "pollux-tiresias",
    "Pollux's Tiresias+TunedJobs: 2 FIFO queues (16 GPU-h), the workload's GPUs and batch, goodput job model, every round_s",
    "Pollux simulator's tiresias.py (OSDI'21 artifact); not blox's `tiresias` (ElasticFlow's dlas-gpu on durations)",
    NODE_LISTS,
    PolluxTiresias::default()
);

frame_policy!(
    optimus_oracle,
    "pollux-optimus-oracle",
    "Pollux's Optimus+Oracle+TunedJobs: GPUs by marginal remaining-time gain from measured step times, every round_s",
    "Pollux simulator's optimus.py (OSDI'21 artifact); not blox's `optimus-oracle` (Blox's order on durations)",
    NODE_LISTS,
    PolluxOptimus::default()
);

frame_policy!(
    afs,
    "afs",
    "AFS (NSDI'21): each GPU in turn to the job gaining most throughput relative to its own (shortest job first among jobs without GPUs), the workload's batch, goodput job model, every round_s",
    "DeepBoot simulator's afs.py (AFS-L on Pollux's artifact lineage); a job is not offered a GPU its batch cannot be split over (DeepBoot stops there)",
    BEST_FIT_LISTS,
    PolluxAfs::default()
);

/// The original's search: 100 candidates evolved for 100 generations per decision.
const POLLUX_SEARCH: Settings = Settings { population: 100, generations: 100 };

pub mod pollux {
    use super::*;
    use crate::policies::{PolicyInfo, parse_options};

    pub const INFO: PolicyInfo = PolicyInfo {
        name: "pollux",
        kind: Kind::Scheduler,
        engine: Engine::Rounds,
        summary: "Pollux: jobs pick the batch that maximises goodput; a seeded NSGA-II search reallocates GPUs for fairness-weighted speedup, every round_s",
        options: POLLUX_OPTIONS,
        source: "Pollux simulator's pollux.py and goodput.py (OSDI'21 artifact), with blox's own seeded NSGA-II in place of pymoo's unseeded one",
        placement: Some(NODE_LISTS),
        parse: &parse_options::<Options>,
    };

    const POLLUX_OPTIONS: &[OptionDoc] = &[
        INTERVAL_DOC,
        OptionDoc {
            name: "interference",
            example: "0.25",
            meaning: "progress lost by a distributed job on a node hosting another distributed job, from 0 (default, Pollux's --interference) to below 1",
        },
        OptionDoc {
            name: "avoid_interference",
            example: "false",
            meaning: "at most one distributed job per node (default true, the paper's; false is Figure 8c's noavoid)",
        },
        OptionDoc {
            name: "profiles",
            example: "{dataset: pollux-profiles/traces/}",
            meaning: "the six models' measured profiles, as for pollux-tiresias (default the pollux-profiles dataset)",
        },
    ];

    /// Options of `pollux`: the frame's, and interference avoidance.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Options {
        #[serde(default)]
        pub interval_s: Option<Interval>,
        #[serde(default = "no_slowdown")]
        pub interference: Slowdown,
        #[serde(default = "avoid")]
        pub avoid_interference: bool,
        #[serde(default = "default_profiles")]
        pub profiles: InputSource,
    }

    fn avoid() -> bool {
        true
    }

    impl Default for Options {
        fn default() -> Self {
            Self {
                interval_s: None,
                interference: no_slowdown(),
                avoid_interference: avoid(),
                profiles: default_profiles(),
            }
        }
    }

    impl Options {
        fn frame(&self) -> FrameOptions {
            FrameOptions {
                interval_s: self.interval_s,
                interference: self.interference,
                profiles: self.profiles.clone(),
            }
        }
    }

    impl PolicyConfig for Options {
        fn params(&self) -> Params {
            let mut params = self.frame().params();
            params.insert("avoid_interference", self.avoid_interference.into());
            params
        }

        fn inputs(&self) -> Vec<PolicyInput> {
            vec![self.frame().profiles_input()]
        }

        fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
            self.frame().build(ctx, PolluxScheduler::new(self.avoid_interference, POLLUX_SEARCH, ctx.seed))
        }
    }
}
