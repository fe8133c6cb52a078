//! Every pluggable policy (scheduler, placement, admission, launch overhead), one file each, and
//! the registry that names them.
//!
//! Layout. [`rounds`] holds the round engine's policies by the decision they make, because that
//! engine composes one of each kind per run (admission x scheduling x placement, plus an overhead
//! model). [`events`] holds the event engine's schedulers by family, because each of them makes
//! every decision itself and what policies share there is a planner or a placement. Helpers sit
//! beside the policies that use them.
//!
//! Registry ([`registry`]). Each policy file declares its descriptor, `INFO` ([`PolicyInfo`]:
//! name, kind, engine, summary, options, source, and the parser of its options), and implements
//! [`PolicyConfig`] for its `Options`: canonical parameters, the files it reads, and `build`.
//! [`ALL`] lists the descriptors, and is the one place a new policy is added to: `blox list`,
//! the spec parser (names and options, through [`node`] so errors keep their line and column),
//! the engine checks, the placement a runs row records and the canonical form that run keys hash
//! all derive from it.

pub mod events;
pub mod fgd;
pub mod node;
pub mod pollux;
pub mod registry;
pub mod rounds;

pub use registry::{
    AdmissionSpec, BuildContext, Built, Chosen, Engine, InputData, InputParser, InputReader, InputSource, Kind,
    NoInputs, OptionDoc, OverheadSpec, OwnPlacement, Params, ParsedInput, PlacementSpec, PolicyConfig, PolicyInfo,
    PolicyInput, SchedulerSpec, parse_options, without_options,
};

use events::{edf, elasticflow, gandiva, muri, themis, tiresias, yarn};
use rounds::admission::{accept_all, load_based};
use rounds::gavel::{
    gavel_allox, gavel_fifo, gavel_fifo_packed, gavel_fifo_perf, gavel_finish_time_fairness,
    gavel_finish_time_fairness_packed, gavel_finish_time_fairness_perf, gavel_gandiva, gavel_isolated,
    gavel_max_min_fairness, gavel_max_min_fairness_packed, gavel_max_min_fairness_perf, gavel_min_total_duration,
    gavel_min_total_duration_packed, gavel_min_total_duration_perf,
};
use rounds::overhead::{fixed, none};
use rounds::placement::{consolidated, scattered, shares};
use rounds::scheduling::{external, fifo, las, optimus_oracle, srtf};
use rounds::synergy::{synergy_drf, synergy_fifo, synergy_ftf, synergy_las, synergy_srtf, synergy_tetris};
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use std::fmt;

/// Every policy's descriptor: the one list a new policy is added to. `blox list` shows them in
/// this order, grouped by kind.
pub const ALL: &[&PolicyInfo] = &[
    &fifo::INFO,
    &las::INFO,
    &srtf::INFO,
    &optimus_oracle::INFO,
    &external::INFO,
    &gavel_fifo::INFO,
    &gavel_fifo_perf::INFO,
    &gavel_fifo_packed::INFO,
    &gavel_gandiva::INFO,
    &gavel_allox::INFO,
    &gavel_max_min_fairness::INFO,
    &gavel_max_min_fairness_perf::INFO,
    &gavel_max_min_fairness_packed::INFO,
    &gavel_min_total_duration::INFO,
    &gavel_min_total_duration_perf::INFO,
    &gavel_min_total_duration_packed::INFO,
    &gavel_finish_time_fairness::INFO,
    &gavel_finish_time_fairness_perf::INFO,
    &gavel_finish_time_fairness_packed::INFO,
    &gavel_isolated::INFO,
    &synergy_fifo::INFO,
    &synergy_srtf::INFO,
    &synergy_las::INFO,
    &synergy_ftf::INFO,
    &synergy_drf::INFO,
    &synergy_tetris::INFO,
    &pollux::registered::pollux::INFO,
    &pollux::registered::tiresias::INFO,
    &pollux::registered::optimus_oracle::INFO,
    &pollux::registered::afs::INFO,
    &edf::INFO,
    &edf::edf_admission::INFO,
    &elasticflow::edf_elastic::INFO,
    &elasticflow::INFO,
    &tiresias::INFO,
    &themis::INFO,
    &gandiva::INFO,
    &muri::srtf::INFO,
    &muri::srsf::INFO,
    &muri::tiresias::INFO,
    &muri::themis::INFO,
    &muri::muri_s::INFO,
    &muri::muri_l::INFO,
    &muri::muri_l_worst_ordering::INFO,
    &muri::muri_l_without_blossom::INFO,
    &muri::antman::INFO,
    &fgd::fgd::INFO,
    &fgd::best_fit::INFO,
    &fgd::dot_product::INFO,
    &fgd::gpu_packing::INFO,
    &fgd::gpu_clustering::INFO,
    &fgd::random::INFO,
    &scattered::INFO,
    &consolidated::INFO,
    &shares::INFO,
    &yarn::INFO,
    &accept_all::INFO,
    &load_based::INFO,
    &none::INFO,
    &fixed::INFO,
];

/// A positive, finite number (GPU-demand thresholds, multipliers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Positive(pub f64);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if v.is_finite() && v > 0.0 {
            Ok(Positive(v))
        } else {
            Err(de::Error::custom(format!("must be a positive number, got {v}")))
        }
    }
}

/// A non-negative, finite number of seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub f64);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if v.is_finite() && v >= 0.0 {
            Ok(Seconds(v))
        } else {
            Err(de::Error::custom(format!("must be a non-negative number of seconds, got {v}")))
        }
    }
}

/// One line of `blox list` for the workloads, which have no descriptors of their own yet.
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
}

/// A map from load (jobs/hour) to a positive value, written `{1: 5, 2.5: 3}` in YAML.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadTable(pub Vec<(f64, f64)>);

impl LoadTable {
    pub fn get(&self, load: f64) -> Option<f64> {
        self.0.iter().find(|(l, _)| *l == load).map(|(_, v)| *v)
    }

    /// `[[load, value], ...]` by increasing load: the same table however the spec orders it.
    pub fn canonical(&self) -> Value {
        let mut entries = self.0.clone();
        entries.sort_by(|a, b| a.0.total_cmp(&b.0));
        Value::from(entries.into_iter().map(|(load, value)| Value::from(vec![load, value])).collect::<Vec<_>>())
    }
}

impl<'de> Deserialize<'de> for LoadTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = LoadTable;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from load (jobs/hour) to a positive number")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<LoadTable, A::Error> {
                let mut entries: Vec<(f64, f64)> = Vec::new();
                while let Some((load, value)) = map.next_entry::<f64, Positive>()? {
                    if entries.iter().any(|(l, _)| *l == load) {
                        return Err(de::Error::custom(format!("load {load} appears twice")));
                    }
                    entries.push((load, value.0));
                }
                Ok(LoadTable(entries))
            }
        }
        d.deserialize_map(Visitor)
    }
}

#[cfg(test)]
mod tests;
