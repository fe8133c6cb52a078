//! Every admission, scheduling and placement policy, one file each, and the registry that maps
//! spec names to them.
//!
//! The registry is the serde enums below: the spec parser, `blox list` and the docs all read them,
//! so a policy added here is usable everywhere. Each file's doc comment states its rule and source.

pub mod accept_all;
pub mod consolidated;
pub mod edf;
pub mod edf_admission;
pub mod edf_elastic;
pub mod edf_planner;
pub mod elasticflow;
pub mod fifo;
pub mod fixed_overhead;
pub mod gandiva;
pub mod gandiva_placement;
pub mod las;
pub mod load_based;
pub mod mss_planner;
pub mod optimus_oracle;
pub mod priority_walk;
pub mod scattered;
pub mod srtf;
pub mod themis;
pub mod tiresias;

use crate::core::events::EventPolicy;
use crate::core::{Admission, OverheadModel, Placement, Scheduler};
use crate::data;
use crate::profiles::GpuTimeDistribution;
use serde::{Deserialize, Deserializer, Serialize, de};
use std::fmt;
use std::path::{Path, PathBuf};

/// What a policy may depend on besides its own parameters.
#[derive(Debug, Clone, Copy)]
pub struct BuildContext {
    /// The run's offered load in jobs per hour, when the workload has one.
    pub load: Option<f64>,
}

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
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
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

/// One line of `blox list`.
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
}

/// The schedulers. `serde(remote = "Self")` derives inherent `serialize`/`deserialize` that the
/// trait impls below wrap, so that `tiresias` is both a plain name and `{tiresias: {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SchedulerSpec {
    Fifo,
    Las,
    Srtf,
    OptimusOracle(OptimusParams),
    Edf,
    EdfAdmission,
    Tiresias(TiresiasParams),
    Themis,
    Gandiva,
    Elasticflow,
    EdfElastic,
}

/// Parameters of `optimus-oracle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimusParams {
    /// Progress multiplier by load (jobs/hour), e.g. `{1: 5, 2: 3, 3: 1.4}`.
    #[serde(default)]
    pub progress_multiplier: LoadTable,
    /// Multiplier for loads not in the table.
    #[serde(default = "one")]
    pub default_multiplier: Positive,
}

fn one() -> Positive {
    Positive(1.0)
}

/// Options of `tiresias`; the default (plain `tiresias`) is ElasticFlow's `dlas-gpu`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TiresiasParams {
    /// Tiresias' `dlas-gpu-K`: a starved job returns to queue 0 once it has waited K times its
    /// attained service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starvation_knob: Option<Positive>,
    /// Tiresias' `dlas-gpu-gittins`: order each queue by the Gittins index of this GPU-time
    /// distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gittins: Option<GpuTimeSource>,
}

/// A job-size distribution file (a `duration` column of GPU-seconds): exactly one of `path`
/// (relative to the spec file's directory unless absolute) and `dataset` (`DATASET/PATH`, e.g.
/// `tiresias/yarn-gput1000.csv`, fetched and verified into the data cache).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "GpuTimeSourceFields")]
pub enum GpuTimeSource {
    #[serde(rename = "path")]
    Path(PathBuf),
    #[serde(rename = "dataset")]
    Dataset(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuTimeSourceFields {
    #[serde(default)]
    path: Option<PathBuf>,
    #[serde(default)]
    dataset: Option<String>,
}

impl TryFrom<GpuTimeSourceFields> for GpuTimeSource {
    type Error = String;
    fn try_from(f: GpuTimeSourceFields) -> Result<Self, String> {
        match (f.path, f.dataset) {
            (Some(path), None) => Ok(GpuTimeSource::Path(path)),
            (None, Some(dataset)) => Ok(GpuTimeSource::Dataset(dataset)),
            _ => Err("a GPU-time distribution needs exactly one of `path` (a file) and `dataset` (e.g. `tiresias/yarn-gput1000.csv`)".into()),
        }
    }
}

impl GpuTimeSource {
    /// The local file: the path against `base_dir`, or the dataset file in the cache (fetched
    /// and verified first when it is not there).
    pub fn local_path(&self, base_dir: &Path) -> Result<PathBuf, String> {
        match self {
            GpuTimeSource::Path(path) => Ok(base_dir.join(path)),
            GpuTimeSource::Dataset(reference) => data::FetchOptions::from_env(None)
                .and_then(|options| data::resolve(reference, &data::FetchOptions { quiet: true, ..options }))
                .map_err(|e| format!("dataset `{reference}`: {e}")),
        }
    }

    /// Reads the distribution (once per run; the policy gets it parsed).
    pub fn load(&self, base_dir: &Path) -> Result<GpuTimeDistribution, String> {
        GpuTimeDistribution::read(&self.local_path(base_dir)?).map_err(|e| e.to_string())
    }
}

/// A map from load (jobs/hour) to a positive value, written `{1: 5, 2.5: 3}` in YAML.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LoadTable(pub Vec<(f64, f64)>);

impl LoadTable {
    pub fn get(&self, load: f64) -> Option<f64> {
        self.0.iter().find(|(l, _)| *l == load).map(|(_, v)| *v)
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

impl Serialize for SchedulerSpec {
    /// Plain `tiresias` stays a bare name, so its run keys do not change.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SchedulerSpec::Tiresias(p) if *p == TiresiasParams::default() => {
                s.serialize_unit_variant("SchedulerSpec", 6, "tiresias")
            }
            _ => SchedulerSpec::serialize(self, s),
        }
    }
}

impl<'de> Deserialize<'de> for SchedulerSpec {
    /// A bare name (`fifo`, `tiresias`) or a one-key map (`{tiresias: {starvation_knob: 8}}`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = SchedulerSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scheduler name or a map from a scheduler name to its options")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<SchedulerSpec, E> {
                if name == "tiresias" {
                    return Ok(SchedulerSpec::Tiresias(TiresiasParams::default()));
                }
                SchedulerSpec::deserialize(de::IntoDeserializer::<E>::into_deserializer(name))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<SchedulerSpec, A::Error> {
                SchedulerSpec::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl SchedulerSpec {
    pub const ALL: &[Entry] = &[
        Entry { name: "fifo", summary: "first come, first served by submission time (Blox Fifo)" },
        Entry {
            name: "las",
            summary: "least attained service first, preemptive (Blox Las, which Blox labels \"Tiresias\"; the discretized 2D-LAS is `tiresias`)",
        },
        Entry { name: "srtf", summary: "shortest remaining time first with oracle job lengths (Blox Srtf)" },
        Entry {
            name: "optimus-oracle",
            summary: "SRTF order plus a per-load progress multiplier {progress_multiplier: {load: x}} (Blox Optimus)",
        },
        Entry {
            name: "edf",
            summary: "earliest deadline first, elastic widths, no admission control (ElasticFlow's EDF; engine mode events)",
        },
        Entry {
            name: "edf-admission",
            summary: "EDF with admission control: an arrival enters iff the EDF plan meets every deadline (ElasticFlow's edf-accessctrl; engine mode events)",
        },
        Entry {
            name: "edf-elastic",
            summary: "EDF + elastic scaling: ElasticFlow's planner without admission control (ef; engine mode events)",
        },
        Entry {
            name: "elasticflow",
            summary: "ElasticFlow: minimum satisfactory shares, all-or-nothing admission, leftover GPUs by marginal GPU time (ef-accessctrl; engine mode events)",
        },
        Entry {
            name: "tiresias",
            summary: "discretized 2D-LAS, 3 queues at 3250/7200 GPU-s (ElasticFlow's dlas-gpu; engine mode events); options {tiresias: {starvation_knob: K, gittins: {dataset: D | path: P}}}: K promotes starved jobs back to queue 0 (Tiresias dlas-gpu-K), gittins orders each queue by the Gittins index of a GPU-time distribution CSV (dlas-gpu-gittins)",
        },
        Entry {
            name: "themis",
            summary: "finish-time fairness: each slot-long round minimises the largest rho, fitting jobs by share (ElasticFlow's themis; engine mode events)",
        },
        Entry {
            name: "gandiva",
            summary: "node sets per job size, over-subscription with 60 s time slicing, non-elastic (ElasticFlow's gandiva; engine mode events)",
        },
    ];

    pub fn name(&self) -> &'static str {
        match self {
            SchedulerSpec::Fifo => "fifo",
            SchedulerSpec::Las => "las",
            SchedulerSpec::Srtf => "srtf",
            SchedulerSpec::OptimusOracle(_) => "optimus-oracle",
            SchedulerSpec::Edf => "edf",
            SchedulerSpec::EdfAdmission => "edf-admission",
            SchedulerSpec::Tiresias(_) => "tiresias",
            SchedulerSpec::Themis => "themis",
            SchedulerSpec::Gandiva => "gandiva",
            SchedulerSpec::Elasticflow => "elasticflow",
            SchedulerSpec::EdfElastic => "edf-elastic",
        }
    }

    /// Whether the scheduler runs on the event-driven engine (`engine.mode: events`).
    pub fn is_event_driven(&self) -> bool {
        !self.is_round_based()
    }

    /// Whether the event-engine policy places whole jobs picked by GPU count, so `placement:
    /// yarn` can replace its buddy placement (see [`crate::core::events::YarnPlacement`]).
    pub fn can_place_with_yarn(&self) -> bool {
        matches!(self, SchedulerSpec::Tiresias(_) | SchedulerSpec::Themis)
    }

    /// The placement an event-engine policy brings: Gandiva's node sets, else the buddy one.
    pub fn own_placement(&self) -> &'static str {
        if *self == SchedulerSpec::Gandiva { "gandiva" } else { "elastic" }
    }

    fn is_round_based(&self) -> bool {
        matches!(self, SchedulerSpec::Fifo | SchedulerSpec::Las | SchedulerSpec::Srtf | SchedulerSpec::OptimusOracle(_))
    }

    /// The round-engine scheduler; `None` for event-driven ones.
    pub fn build(&self, ctx: &BuildContext) -> Option<Box<dyn Scheduler>> {
        Some(match self {
            SchedulerSpec::Fifo => Box::new(fifo::Fifo::default()),
            SchedulerSpec::Las => Box::new(las::Las::default()),
            SchedulerSpec::Srtf => Box::new(srtf::Srtf::default()),
            SchedulerSpec::OptimusOracle(p) => {
                let m = ctx.load.and_then(|l| p.progress_multiplier.get(l)).unwrap_or(p.default_multiplier.0);
                Box::new(optimus_oracle::OptimusOracle::new(m))
            }
            _ => return None,
        })
    }

    /// The GPU-time distribution the scheduler reads, if any.
    pub fn gpu_time_source(&self) -> Option<&GpuTimeSource> {
        match self {
            SchedulerSpec::Tiresias(p) => p.gittins.as_ref(),
            _ => None,
        }
    }

    /// The event-engine policy; `None` for round-based schedulers. `gpu_time` is the distribution
    /// of [`SchedulerSpec::gpu_time_source`], read by the caller.
    pub fn build_event(&self, gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        match self {
            SchedulerSpec::Edf => Some(Box::new(edf::Edf::default())),
            SchedulerSpec::EdfAdmission => Some(Box::new(edf_admission::EdfAdmission::default())),
            SchedulerSpec::Tiresias(p) => {
                let mut policy = tiresias::Tiresias::default();
                if let Some(k) = p.starvation_knob {
                    policy = policy.with_starvation_knob(k.0);
                }
                if let Some(distribution) = gpu_time {
                    policy = policy.with_gittins(distribution);
                }
                Some(Box::new(policy))
            }
            SchedulerSpec::Themis => Some(Box::new(themis::Themis::default())),
            SchedulerSpec::Gandiva => Some(Box::new(gandiva::Gandiva::default())),
            SchedulerSpec::Elasticflow => Some(Box::new(elasticflow::ElasticFlow::default())),
            SchedulerSpec::EdfElastic => Some(Box::new(edf_elastic::EdfElastic::default())),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PlacementSpec {
    Scattered,
    Consolidated,
    /// Events mode only: Tiresias' MS-YARN instead of the policy's buddy placement.
    Yarn,
}

impl PlacementSpec {
    pub const ALL: &[Entry] = &[
        Entry {
            name: "scattered",
            summary: "first free GPUs in node order, preempting lowest-priority jobs (Blox \"Place\")",
        },
        Entry {
            name: "consolidated",
            summary: "fewest nodes per job (exact fit, then best fit), preempting like scattered",
        },
        Entry {
            name: "yarn",
            summary: "events mode, tiresias and themis: Tiresias' MS-YARN, whole free nodes plus one node with the remainder, else the first node that fits; a picked job that does not fit waits (ElasticFlow's --scheme=yarn; default: the buddy placement)",
        },
    ];

    pub fn name(&self) -> &'static str {
        match self {
            PlacementSpec::Scattered => "scattered",
            PlacementSpec::Consolidated => "consolidated",
            PlacementSpec::Yarn => "yarn",
        }
    }

    /// The round-engine placement; `None` for `yarn`, which only the event engine runs.
    pub fn build(&self) -> Option<Box<dyn Placement>> {
        match self {
            PlacementSpec::Scattered => Some(Box::new(scattered::Scattered::default())),
            PlacementSpec::Consolidated => Some(Box::new(consolidated::Consolidated::default())),
            PlacementSpec::Yarn => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum AdmissionSpec {
    AcceptAll,
    LoadBased {
        /// Admit while active GPU demand <= threshold x cluster GPUs (Blox: 1.0, 1.2, 1.4, 1.5).
        threshold: Positive,
    },
}

impl AdmissionSpec {
    pub const ALL: &[Entry] = &[
        Entry { name: "accept-all", summary: "admit every arrival at once (Blox AcceptAll)" },
        Entry {
            name: "load-based",
            summary: "FIFO backlog; admit while GPU demand <= {threshold: x} times cluster GPUs (Blox LoadBasedAccept)",
        },
    ];

    pub fn name(&self) -> &'static str {
        match self {
            AdmissionSpec::AcceptAll => "accept-all",
            AdmissionSpec::LoadBased { .. } => "load-based",
        }
    }

    pub fn build(&self) -> Box<dyn Admission> {
        match self {
            AdmissionSpec::AcceptAll => Box::new(accept_all::AcceptAll),
            AdmissionSpec::LoadBased { threshold } => Box::new(load_based::LoadBased::new(threshold.0)),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum OverheadSpec {
    None,
    Fixed {
        #[serde(default = "zero_seconds")]
        first_launch_s: Seconds,
        #[serde(default = "zero_seconds")]
        resume_s: Seconds,
    },
}

fn zero_seconds() -> Seconds {
    Seconds(0.0)
}

impl OverheadSpec {
    pub const ALL: &[Entry] = &[
        Entry { name: "none", summary: "launches and preemptions are free (Blox's simulator)" },
        Entry { name: "fixed", summary: "{first_launch_s, resume_s} seconds of no progress after each (re)launch" },
    ];

    pub fn build(&self) -> Option<Box<dyn OverheadModel>> {
        match self {
            OverheadSpec::None => None,
            OverheadSpec::Fixed { first_launch_s, resume_s } => {
                Some(Box::new(fixed_overhead::FixedOverhead { first_launch_s: first_launch_s.0, resume_s: resume_s.0 }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_tiresias_parses_and_serialises_as_before() {
        let plain: SchedulerSpec = serde_saphyr::from_str("tiresias").unwrap();
        assert_eq!(plain, SchedulerSpec::Tiresias(TiresiasParams::default()));
        // Run keys hash this JSON: it must stay the bare name.
        assert_eq!(serde_json::to_string(&plain).unwrap(), r#""tiresias""#);
        let fifo: SchedulerSpec = serde_saphyr::from_str("fifo").unwrap();
        assert_eq!(serde_json::to_string(&fifo).unwrap(), r#""fifo""#);
    }

    #[test]
    fn tiresias_options_parse_from_a_map() {
        let spec: SchedulerSpec =
            serde_saphyr::from_str("{tiresias: {starvation_knob: 8, gittins: {dataset: tiresias/yarn-gput1000.csv}}}")
                .unwrap();
        let params = TiresiasParams {
            starvation_knob: Some(Positive(8.0)),
            gittins: Some(GpuTimeSource::Dataset("tiresias/yarn-gput1000.csv".into())),
        };
        assert_eq!(spec, SchedulerSpec::Tiresias(params));
        assert_eq!(
            serde_json::to_string(&spec).unwrap(),
            r#"{"tiresias":{"starvation_knob":8.0,"gittins":{"dataset":"tiresias/yarn-gput1000.csv"}}}"#
        );
        let optimus: SchedulerSpec = serde_saphyr::from_str("{optimus-oracle: {default_multiplier: 2}}").unwrap();
        assert!(matches!(optimus, SchedulerSpec::OptimusOracle(_)));
        for bad in ["{tiresias: {knob: 8}}", "{tiresias: {gittins: {}}}", "sjf", "{tiresias: {starvation_knob: -1}}"] {
            assert!(serde_saphyr::from_str::<SchedulerSpec>(bad).is_err(), "{bad}");
        }
    }
}
