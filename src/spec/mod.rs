//! The experiment spec: one YAML file declares policies, clusters, workloads, loads and seeds,
//! whose cross product is the grid of runs ([`grid`]).
//!
//! Every structural error (unknown key, unknown policy name, wrong type, bad value) is reported
//! by the YAML deserializer with its line and column and, for names, the valid choices; checks
//! that span several fields (duplicate labels, a generator without loads) point at the offending
//! entry through [`Spanned`] values.

pub mod check;
pub mod grid;
pub mod inputs;
mod live;
pub mod placements;

pub use live::{KubernetesSpec, LiveCommand, LiveExecutor, LiveSpec};

use crate::core::{ClusterSpec, GpuType, JobSpec, NodeGroup, NodeSpec};
use crate::figures::declare::FigureSpec;
use crate::policies::node;
use crate::policies::{AdmissionSpec, Engine, InputSource, Kind, OverheadSpec, PlacementSpec, Positive, SchedulerSpec};
use crate::profiles::ThroughputTable;
use crate::text::escape_control;
use crate::workload::{Pairing, WorkloadSpec};
use serde::{Deserialize, Deserializer, de};
use serde_saphyr::Spanned;
use std::fmt;
use std::path::{Path, PathBuf};

/// A parsed and validated experiment spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Experiment name; results go to `<out>/<name>/`.
    pub name: Spanned<ExperimentName>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub engine: EngineSpec,
    pub policies: Spanned<Vec<PolicyEntry>>,
    pub clusters: Spanned<Vec<ClusterEntry>>,
    pub workloads: Spanned<Vec<Spanned<WorkloadSpec>>>,
    /// Pair the i-th cluster with the i-th workload instead of running every workload on every
    /// cluster (ElasticFlow Fig 8b: each trace on the cluster size it was recorded for).
    #[serde(default = "no_zip")]
    pub zip_clusters_workloads: Spanned<bool>,
    /// Offered loads in jobs per hour, for workload generators; each within
    /// [`MIN_LOAD`]..=[`MAX_LOAD`].
    #[serde(default, deserialize_with = "loads")]
    pub loads: Vec<Positive>,
    /// Seeds of the workload generators (Blox seeds Python's `random` with 1).
    #[serde(default = "default_seeds")]
    pub seeds: Spanned<Vec<u64>>,
    #[serde(default)]
    pub measure: MeasureSpec,
    #[serde(default)]
    pub output: OutputSpec,
    /// Figures drawn at the end of `blox run` and by `blox plot`.
    #[serde(default)]
    pub figures: Vec<Spanned<FigureSpec>>,
}

fn no_zip() -> Spanned<bool> {
    Spanned::new(false, serde_saphyr::Location::UNKNOWN, serde_saphyr::Location::UNKNOWN)
}

fn default_seeds() -> Spanned<Vec<u64>> {
    Spanned::new(vec![1], serde_saphyr::Location::UNKNOWN, serde_saphyr::Location::UNKNOWN)
}

/// The bounds the engine and the results layout support, checked when a spec is parsed so that
/// `blox validate` rejects what `blox run` would fail on (or never finish). Every message that
/// enforces one states it.
///
/// Labels and names become parts of file names (run keys, the experiment directory), which most
/// file systems cap at 255 bytes.
pub const MAX_LABEL_CHARS: usize = 64;
/// Longest experiment name (a directory name).
pub const MAX_NAME_CHARS: usize = 100;
/// Smallest offered load, jobs per hour (one job every 1,000 hours).
pub const MIN_LOAD: f64 = 1e-3;
/// Largest offered load, jobs per hour (about 28 arrivals per second).
pub const MAX_LOAD: f64 = 1e5;
/// Shortest round or slot, seconds: a run takes one step per round, so shorter rounds only add
/// steps (`round_s: 1e-9` never finishes).
pub const MIN_ROUND_S: f64 = 1.0;
/// Longest round or slot, seconds (one week).
pub const MAX_ROUND_S: f64 = 604_800.0;
/// Largest `horizon_h` (about 114 years).
pub const MAX_HORIZON_H: f64 = 1e6;
/// Most GPUs of one cluster: the engine keeps per-GPU state in memory.
pub const MAX_CLUSTER_GPUS: u64 = 1_000_000;
/// Most jobs a run may draw from a generator (`track` ids, `horizon_h` x load, `num_jobs`):
/// generators are endless, and a run pulls every job up to the last one it measures.
pub const MAX_GENERATED_JOBS: u64 = 1_000_000;
/// Most runs of one grid: planning holds every run's resolved configuration (about 2 KB each)
/// and the results directory gets three files per run, so a million-point grid took 1.8 GB
/// just to validate. Checked from the axes' sizes before anything is expanded.
pub const MAX_GRID_RUNS: u64 = 100_000;
/// Latest arrival and longest duration of a job, in seconds (`MAX_HORIZON_H` hours, about 114
/// years): both engines count time in f64 seconds, and past this a run's times lose their
/// milliseconds and its averages their meaning. The round engine reaches less: at most
/// [`crate::core::engine::MAX_ROUNDS`] rounds of `round_s`.
pub const MAX_JOB_SECONDS: f64 = MAX_HORIZON_H * 3600.0;

/// A name usable as a directory: letters, digits, `-`, `_` and `.`, not starting with `.`, at
/// most [`MAX_NAME_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExperimentName(pub String);

impl<'de> Deserialize<'de> for ExperimentName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_file_name_safe(&s) && s.len() <= MAX_NAME_CHARS {
            Ok(ExperimentName(s))
        } else {
            Err(de::Error::custom(format!(
                "name `{}` must be 1 to {MAX_NAME_CHARS} characters, use only letters, digits, '-', '_' or '.', and not start with '.'",
                shorten(&s)
            )))
        }
    }
}

fn is_file_name_safe(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// The first 40 characters of `s` and an ellipsis when it is longer: a 300-character value need
/// not be echoed whole to say it is too long.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// `v` as a spec author wrote it, short even when huge or tiny (`1e300`, not 301 digits).
fn number(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e15).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

/// A number within `min..=max`, or an error in the spec's words that states the bound.
fn bounded<'de, D: Deserializer<'de>>(d: D, what: &str, min: f64, max: f64) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(de::Error::custom(format!("{what} must be a number from {min} to {max}, got {}", number(v))))
    }
}

fn round_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Positive, D::Error> {
    bounded(d, "round_s (seconds)", MIN_ROUND_S, MAX_ROUND_S).map(Positive)
}

fn slot_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Positive, D::Error> {
    bounded(d, "slot_s (seconds)", MIN_ROUND_S, MAX_ROUND_S).map(Positive)
}

fn horizon_hours<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Positive>, D::Error> {
    /// One bounded horizon, so that the error points at the value.
    struct Horizon(f64);
    impl<'de> Deserialize<'de> for Horizon {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = f64::deserialize(d)?;
            if v.is_finite() && v > 0.0 && v <= MAX_HORIZON_H {
                Ok(Horizon(v))
            } else {
                Err(de::Error::custom(format!(
                    "horizon_h must be a number of hours above 0 and up to {MAX_HORIZON_H}, got {}",
                    number(v)
                )))
            }
        }
    }
    Ok(Option::<Horizon>::deserialize(d)?.map(|h| Positive(h.0)))
}

fn loads<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Positive>, D::Error> {
    /// One bounded load, so that the error points at the element.
    struct Load(f64);
    impl<'de> Deserialize<'de> for Load {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = f64::deserialize(d)?;
            if v.is_finite() && (MIN_LOAD..=MAX_LOAD).contains(&v) {
                Ok(Load(v))
            } else if v.is_finite() && v <= 0.0 {
                Err(de::Error::custom(format!("a load must be a positive number of jobs per hour, got {}", number(v))))
            } else {
                Err(de::Error::custom(format!(
                    "a load must be from {MIN_LOAD} to {MAX_LOAD} jobs per hour, got {}",
                    number(v)
                )))
            }
        }
    }
    let loads: Vec<Positive> = Vec::<Load>::deserialize(d)?.into_iter().map(|l| Positive(l.0)).collect();
    // A load given twice would give two runs the same grid point (and run key).
    if let Some((i, load)) = loads.iter().enumerate().find(|(i, l)| loads[..*i].contains(l)) {
        let first = loads.iter().position(|l| l == load).unwrap_or_default();
        return Err(de::Error::custom(format!(
            "load {} is given twice in `loads` (entries {} and {}); each load is one point of the grid",
            number(load.0),
            first + 1,
            i + 1
        )));
    }
    Ok(loads)
}

/// How simulated time advances.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    #[serde(default)]
    pub mode: EngineMode,
    /// Round length in seconds (Blox: 300), within [`MIN_ROUND_S`]..=[`MAX_ROUND_S`].
    #[serde(default = "default_round", deserialize_with = "round_seconds")]
    pub round_s: Positive,
    /// Hours without being scheduled after which a job is promoted above all others (Blox: 1000);
    /// `null` disables the guard.
    #[serde(default = "default_guard")]
    pub starvation_guard_h: Option<Positive>,
    #[serde(default = "default_overhead")]
    pub overhead: OverheadSpec,
    /// Events mode: minimum spacing of decisions in seconds, also the number of scheduling
    /// rounds between cluster restarts (ElasticFlow `--scheduling_slot`; its Figure 10: 240),
    /// within [`MIN_ROUND_S`]..=[`MAX_ROUND_S`].
    #[serde(default = "default_slot", deserialize_with = "slot_seconds")]
    pub slot_s: Positive,
    /// Live mode: the real cluster's scheduler side (`docs/live-protocol.md`).
    #[serde(default)]
    pub live: Option<Spanned<LiveSpec>>,
    /// Live mode: what carries out the decisions (`agents`, the default, `slurm` or `kubernetes`).
    #[serde(default)]
    pub executor: Option<Spanned<LiveExecutor>>,
}

impl Default for EngineSpec {
    fn default() -> Self {
        Self {
            mode: EngineMode::Rounds,
            slot_s: default_slot(),
            round_s: default_round(),
            starvation_guard_h: default_guard(),
            overhead: default_overhead(),
            live: None,
            executor: None,
        }
    }
}

fn default_round() -> Positive {
    Positive(300.0)
}
fn default_slot() -> Positive {
    Positive(240.0)
}
fn default_guard() -> Option<Positive> {
    Some(Positive(1000.0))
}
fn default_overhead() -> OverheadSpec {
    OverheadSpec::default()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineMode {
    /// Decisions at fixed round boundaries (Blox, Gavel, Synergy).
    #[default]
    Rounds,
    /// Decisions at arrivals and planned ends, at most one per `slot_s` (ElasticFlow's
    /// simulator); for the event-driven schedulers (`edf`, `tiresias`).
    Events,
    /// The round engine's or the event engine's decisions (by the scheduler's engine) carried
    /// out on a real cluster (`blox node` agents, Slurm, Kubernetes), one run at a time, progress
    /// measured instead of simulated.
    Live,
    /// Placement experiments without time: a `node_list` cluster, a `pod-list` workload whose
    /// requests are offered one at a time, nothing departs (FGD's simulator).
    Placements,
}

impl EngineMode {
    /// The engine whose policies this mode runs: live mode runs round policies.
    pub fn policy_engine(self) -> Engine {
        match self {
            EngineMode::Rounds | EngineMode::Live => Engine::Rounds,
            EngineMode::Events => Engine::Events,
            EngineMode::Placements => Engine::Placements,
        }
    }
}

impl EngineMode {
    pub fn name(self) -> &'static str {
        match self {
            EngineMode::Rounds => "rounds",
            EngineMode::Events => "events",
            EngineMode::Live => "live",
            EngineMode::Placements => "placements",
        }
    }
}

/// One policy of the grid: a label plus its admission x scheduling x placement.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyEntry {
    /// Name in tables and figures, e.g. "Tiresias" for Blox's LAS.
    pub label: Spanned<Label>,
    pub scheduler: Spanned<SchedulerSpec>,
    /// Rounds mode: `scattered` unless given. Events mode: the policy's own unless `yarn`.
    #[serde(default = "default_placement")]
    pub placement: Spanned<PlacementSpec>,
    #[serde(default = "default_admission")]
    pub admission: AdmissionSpec,
}

fn default_placement() -> Spanned<PlacementSpec> {
    Spanned::new(PlacementSpec::default(), serde_saphyr::Location::UNKNOWN, serde_saphyr::Location::UNKNOWN)
}
fn default_admission() -> AdmissionSpec {
    AdmissionSpec::default()
}

/// A label of at most [`MAX_LABEL_CHARS`] characters, not blank, not starting with `.` (`..`,
/// hidden files) and without path separators or control characters: labels become parts of
/// file names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label(pub String);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        check_label(&s).map(|()| Label(s)).map_err(de::Error::custom)
    }
}

/// Why `s` cannot be a label (policy, cluster or workload), if it cannot.
pub fn check_label(s: &str) -> Result<(), String> {
    let problem = if s.trim().is_empty() {
        "must not be empty"
    } else if s.chars().count() > MAX_LABEL_CHARS {
        return Err(format!(
            "label `{}` has {} characters; labels name result files and may have at most {MAX_LABEL_CHARS}",
            shorten(s),
            s.chars().count()
        ));
    } else if s.starts_with('.') {
        "must not start with '.' (labels become file names)"
    } else if s.chars().any(|c| c.is_control() || c == '/' || c == '\\') {
        "must not contain '/', '\\' or control characters"
    } else {
        return Ok(());
    };
    Err(format!("label `{s}` {problem}"))
}

/// A cluster: groups of identical nodes, at most [`MAX_CLUSTER_GPUS`] GPUs in all.
///
/// Written either flat, one group (`{nodes: 8, gpus_per_node: 8, gpu: a100}`, every spec before
/// node groups), or as `groups:` (`{groups: [{nodes: 9, gpus_per_node: 4, gpu: v100}, ...]}`, a
/// heterogeneous cluster such as Gavel's). Node ids, and GPU ids, follow the groups in order.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "ClusterFields")]
pub struct ClusterEntry {
    pub label: Option<Spanned<Label>>,
    pub groups: Vec<NodeGroupEntry>,
    /// A placement experiment's cluster: the nodes of a node-list file (no `groups` then).
    pub node_list: Option<Spanned<InputSource>>,
    /// With `node_list`: only every n-th node in name order is kept (the first, the n+1-th, ...),
    /// a cluster n times smaller with the same mix of nodes.
    pub every_nth_node: Option<AtLeastOne>,
    /// Whether the spec wrote the flat form: its run keys and default label stay as they were.
    flat: bool,
}

/// `nodes` identical machines of a cluster.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeGroupEntry {
    pub nodes: AtLeastOne,
    pub gpus_per_node: AtLeastOne,
    /// GPU type (default `a100`); event-driven runs resolve it to a throughput profile.
    #[serde(default)]
    pub gpu: GpuName,
    /// CPU cores per node, for policies that allocate CPUs; unmodelled if absent.
    #[serde(default)]
    pub cpus_per_node: Option<AtLeastOne>,
    /// Memory per node in GB, for policies that allocate memory; unmodelled if absent.
    #[serde(default)]
    pub memory_gb_per_node: Option<Positive>,
}

impl NodeGroupEntry {
    fn node(&self) -> NodeSpec {
        NodeSpec {
            gpus: self.gpus_per_node.0,
            gpu_type: self.gpu.0.clone(),
            cpus: self.cpus_per_node.map(|c| c.0),
            memory_gb: self.memory_gb_per_node.map(|m| m.0),
        }
    }

    /// Canonical form for run keys: the flat form's fields, plus CPUs and memory when given.
    fn canonical(&self, with_gpu: bool) -> serde_json::Value {
        let mut v = serde_json::json!({"nodes": self.nodes.0, "gpus_per_node": self.gpus_per_node.0});
        if with_gpu {
            v["gpu"] = self.gpu.0.name().into();
        }
        if let Some(c) = self.cpus_per_node {
            v["cpus_per_node"] = c.0.into();
        }
        if let Some(m) = self.memory_gb_per_node {
            v["memory_gb_per_node"] = m.0.into();
        }
        v
    }
}

/// A GPU type as a spec names it: lower-case letters, digits and `-`, at most 32 characters
/// (`a100`, `v100`, `rtx-3090`). Any such name is a valid type for the round engine, whose
/// policies do not model speed per type; the event engine needs a throughput profile for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GpuName(pub GpuType);

impl<'de> Deserialize<'de> for GpuName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let well_formed = !s.is_empty()
            && s.len() <= 32
            && s.starts_with(|c: char| c.is_ascii_alphanumeric())
            && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !well_formed {
            return Err(de::Error::custom(format!(
                "GPU type `{}` is not a name of lower-case letters, digits and `-` (at most 32), e.g. `a100`, `v100`, `t4`",
                shorten(&s)
            )));
        }
        Ok(GpuName(GpuType::new(&s)))
    }
}

/// [`ClusterEntry`] as written, in either form, before the form and size checks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClusterFields {
    #[serde(default)]
    label: Option<Spanned<Label>>,
    #[serde(default)]
    nodes: Option<AtLeastOne>,
    #[serde(default)]
    gpus_per_node: Option<AtLeastOne>,
    #[serde(default)]
    gpu: Option<GpuName>,
    #[serde(default)]
    cpus_per_node: Option<AtLeastOne>,
    #[serde(default)]
    memory_gb_per_node: Option<Positive>,
    #[serde(default)]
    groups: Option<Vec<NodeGroupEntry>>,
    #[serde(default)]
    node_list: Option<Spanned<InputSource>>,
    #[serde(default)]
    every_nth_node: Option<AtLeastOne>,
}

impl TryFrom<ClusterFields> for ClusterEntry {
    type Error = String;

    fn try_from(c: ClusterFields) -> Result<Self, String> {
        let flat_given = c.nodes.is_some()
            || c.gpus_per_node.is_some()
            || c.gpu.is_some()
            || c.cpus_per_node.is_some()
            || c.memory_gb_per_node.is_some();
        if let Some(node_list) = c.node_list {
            if flat_given || c.groups.is_some() {
                return Err("a cluster is either a `node_list` file or node groups (`nodes`, `gpus_per_node`, ... or \
                     `groups`), not both"
                    .into());
            }
            return Ok(ClusterEntry {
                label: c.label,
                groups: Vec::new(),
                node_list: Some(node_list),
                every_nth_node: c.every_nth_node,
                flat: false,
            });
        }
        if c.every_nth_node.is_some() {
            return Err("`every_nth_node` thins a `node_list` cluster; this cluster has none".into());
        }
        let (groups, flat) = match c.groups {
            Some(_) if flat_given => {
                return Err(
                    "a cluster is either flat (`nodes`, `gpus_per_node`, ...) or `groups` of nodes, not both; \
                     move the node fields into a group"
                        .into(),
                );
            }
            Some(groups) if groups.is_empty() => {
                return Err("`groups` is empty; give at least one group of nodes".into());
            }
            Some(groups) => (groups, false),
            None => {
                let (Some(nodes), Some(gpus_per_node)) = (c.nodes, c.gpus_per_node) else {
                    let missing = if c.nodes.is_none() { "nodes" } else { "gpus_per_node" };
                    return Err(format!("missing field `{missing}` (or give `groups` of nodes)"));
                };
                let group = NodeGroupEntry {
                    nodes,
                    gpus_per_node,
                    gpu: c.gpu.unwrap_or_default(),
                    cpus_per_node: c.cpus_per_node,
                    memory_gb_per_node: c.memory_gb_per_node,
                };
                (vec![group], true)
            }
        };
        let gpus: u64 = groups.iter().map(|g| u64::from(g.nodes.0) * u64::from(g.gpus_per_node.0)).sum();
        if gpus > MAX_CLUSTER_GPUS {
            let sizes: Vec<String> =
                groups.iter().map(|g| format!("{} nodes x {} GPUs", g.nodes.0, g.gpus_per_node.0)).collect();
            return Err(format!(
                "a cluster of {} has {gpus} GPUs; the engine supports at most {MAX_CLUSTER_GPUS}",
                sizes.join(" + ")
            ));
        }
        Ok(ClusterEntry { label: c.label, groups, node_list: None, every_nth_node: None, flat })
    }
}

impl ClusterEntry {
    /// GPUs of the whole cluster (at most [`MAX_CLUSTER_GPUS`], so it fits a `u32`).
    pub fn total_gpus(&self) -> u32 {
        self.groups.iter().map(|g| g.nodes.0 * g.gpus_per_node.0).sum()
    }

    pub fn nodes(&self) -> u32 {
        self.groups.iter().map(|g| g.nodes.0).sum()
    }

    /// The machines as the core models them.
    pub fn cluster_spec(&self) -> ClusterSpec {
        let groups: Vec<NodeGroup> =
            self.groups.iter().map(|g| NodeGroup { count: g.nodes.0, node: g.node() }).collect();
        ClusterSpec::from_groups(&groups)
    }

    /// The GPU type of every node, if they share one (`None` for a mixed cluster).
    pub fn gpu_type(&self) -> Option<&GpuType> {
        let first = &self.groups.first()?.gpu.0;
        self.groups.iter().all(|g| &g.gpu.0 == first).then_some(first)
    }

    /// The cluster's resolved form in run keys. Flat clusters keep the form they had before node
    /// groups (`gpu` only in events mode, where it selects the throughput profile).
    pub fn canonical(&self, events: bool) -> serde_json::Value {
        if let Some(list) = &self.node_list {
            match self.every_nth_node {
                Some(n) => serde_json::json!({"node_list": list.value.canonical(), "every_nth_node": n.0}),
                None => serde_json::json!({"node_list": list.value.canonical()}),
            }
        } else if self.flat {
            self.groups[0].canonical(events)
        } else {
            serde_json::json!({"groups": self.groups.iter().map(|g| g.canonical(true)).collect::<Vec<_>>()})
        }
    }

    pub fn label(&self) -> String {
        match &self.label {
            Some(l) => l.value.0.clone(),
            None if self.node_list.is_some() => {
                let source = self.node_list.as_ref().map(|l| match &l.value {
                    InputSource::Path(path) => path.clone(),
                    InputSource::Dataset(reference) => PathBuf::from(reference),
                });
                let stem = source.as_deref().and_then(Path::file_stem).map(|s| s.to_string_lossy().into_owned());
                stem.unwrap_or_else(|| "node-list".into())
            }
            None if self.flat => format!("{}x{}", self.groups[0].nodes.0, self.groups[0].gpus_per_node.0),
            None => {
                let parts: Vec<String> = self
                    .groups
                    .iter()
                    .map(|g| format!("{}x{}{}", g.nodes.0, g.gpus_per_node.0, g.gpu.0.name()))
                    .collect();
                parts.join("+")
            }
        }
    }
}

/// A count of at least one (nodes, GPUs), at most [`MAX_CLUSTER_GPUS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtLeastOne(pub u32);

impl<'de> Deserialize<'de> for AtLeastOne {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Count;
        impl de::Visitor<'_> for Count {
            type Value = AtLeastOne;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a whole number from 1 to {MAX_CLUSTER_GPUS}")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<AtLeastOne, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 && u64::from(n) <= MAX_CLUSTER_GPUS => Ok(AtLeastOne(n)),
                    _ => Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got {v}"))),
                }
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AtLeastOne, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got {v}"))),
                }
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<AtLeastOne, E> {
                Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got {}", number(v))))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<AtLeastOne, E> {
                Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got `{}`", shorten(v))))
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<AtLeastOne, E> {
                Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got {v}")))
            }

            fn visit_unit<E: de::Error>(self) -> Result<AtLeastOne, E> {
                Err(E::custom(format!("must be a whole number from 1 to {MAX_CLUSTER_GPUS}, got nothing (null)")))
            }
        }
        d.deserialize_any(Count)
    }
}

/// Which jobs are measured and when a run stops. Without it, every job is measured and a run
/// ends when its workload has run out (a generator that never stops then needs a window).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    #[serde(default = "track_all")]
    pub track: Spanned<TrackSpec>,
    /// Stop at this simulated time (hours) even if tracked jobs are unfinished; at most
    /// [`MAX_HORIZON_H`].
    #[serde(default, deserialize_with = "horizon_hours")]
    pub horizon_h: Option<Positive>,
}

impl Default for MeasureSpec {
    fn default() -> Self {
        Self { track: track_all(), horizon_h: None }
    }
}

fn track_all() -> Spanned<TrackSpec> {
    Spanned::new(TrackSpec::All, serde_saphyr::Location::UNKNOWN, serde_saphyr::Location::UNKNOWN)
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum TrackSpec {
    /// Every job; the run ends when the workload is exhausted and all jobs finished.
    All,
    /// Job ids `[first, last]`, inclusive (Blox Fig 6: `[3000, 4000]`); jobs outside still load
    /// the cluster.
    Ids(IdWindow),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdWindow {
    pub first: u64,
    pub last: u64,
}

impl<'de> Deserialize<'de> for IdWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [first, last] = <[u64; 2]>::deserialize(d)?;
        if first > last {
            return Err(de::Error::custom(format!("the first id ({first}) is after the last ({last})")));
        }
        Ok(IdWindow { first, last })
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Write the per-round timeline table.
    #[serde(default = "yes")]
    pub timeline: bool,
}

impl Default for OutputSpec {
    fn default() -> Self {
        Self { timeline: true }
    }
}

fn yes() -> bool {
    true
}

/// A spec that could not be read, parsed or validated.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError {
    pub file: PathBuf,
    /// 1-based line and column, when the problem has a position.
    pub position: Option<(u64, u64)>,
    pub message: String,
}

/// Messages echo the spec's values: control characters are escaped ([`escape_control`]).
impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display().to_string();
        let (file, message) = (escape_control(&file), escape_control(&self.message));
        match self.position {
            Some((line, column)) => write!(f, "{file}:{line}:{column}: {message}"),
            None => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for SpecError {}

/// The spec text together with where it came from (a path or an embedded name).
#[derive(Debug, Clone)]
pub struct SpecSource {
    pub file: PathBuf,
    pub text: String,
    /// Directory that relative paths in the spec (traces) are resolved against.
    pub base_dir: PathBuf,
}

impl SpecSource {
    pub fn read(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|e| SpecError {
            file: path.to_owned(),
            position: None,
            message: format!("cannot read the spec: {e}"),
        })?;
        let base_dir = path.parent().map(Path::to_owned).unwrap_or_default();
        Ok(Self { file: path.to_owned(), text, base_dir })
    }
}

impl Spec {
    /// Parses and validates a spec.
    pub fn parse(source: &SpecSource) -> Result<Spec, SpecError> {
        node::take_recorded();
        let spec: Spec = serde_saphyr::from_str(&source.text).map_err(|e| {
            // A policy's error travels as text through the YAML reader; its position beside it.
            if let Some(error) = node::take_recorded() {
                let position = (error.at.line > 0).then_some((error.at.line, error.at.column));
                return SpecError { file: source.file.clone(), position, message: error.message };
            }
            let position = e.location().filter(|l| l.line() > 0).map(|l| (l.line(), l.column()));
            SpecError { file: source.file.clone(), position, message: yaml_message(&e, &source.text, position) }
        })?;
        spec.validate().map_err(|(at, message)| SpecError {
            file: source.file.clone(),
            position: (at.line() > 0).then(|| (at.line(), at.column())),
            message,
        })?;
        Ok(spec)
    }

    fn validate(&self) -> Result<(), (serde_saphyr::Location, String)> {
        let empty = |what: &str, at: serde_saphyr::Location| {
            Err((at, format!("`{what}` is empty: the grid needs at least one entry")))
        };
        if self.policies.value.is_empty() {
            return empty("policies", self.policies.referenced);
        }
        if self.clusters.value.is_empty() {
            return empty("clusters", self.clusters.referenced);
        }
        if self.workloads.value.is_empty() {
            return empty("workloads", self.workloads.referenced);
        }
        if self.seeds.value.is_empty() {
            return empty("seeds", self.seeds.referenced);
        }
        if let Some(seed) = self.seeds.value.iter().find(|&&s| s > i64::MAX as u64) {
            return Err((self.seeds.referenced, format!("seed {seed} is too large: seeds go up to {}", i64::MAX)));
        }
        let seeds = &self.seeds.value;
        if let Some((i, seed)) = seeds.iter().enumerate().find(|(i, s)| seeds[..*i].contains(s)) {
            let first = seeds.iter().position(|s| s == seed).unwrap_or_default();
            return Err((
                self.seeds.referenced,
                format!(
                    "seed {seed} is given twice in `seeds` (entries {} and {}); each seed is one point of the grid",
                    first + 1,
                    i + 1
                ),
            ));
        }
        self.validate_grid_size()?;
        self.validate_engine()?;
        if self.zip_clusters_workloads.value && self.clusters.value.len() != self.workloads.value.len() {
            return Err((
                self.zip_clusters_workloads.referenced,
                format!(
                    "zip_clusters_workloads pairs clusters and workloads by position, but there are {} clusters and {} workloads",
                    self.clusters.value.len(),
                    self.workloads.value.len()
                ),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for p in &self.policies.value {
            if !seen.insert(&p.label.value) {
                return Err((
                    p.label.referenced,
                    format!(
                        "policy label `{}` is used twice; labels name lines in tables and figures",
                        p.label.value.0
                    ),
                ));
            }
        }
        // Zipped grids may repeat a cluster (several traces on one size); a label still names one
        // configuration.
        let mut seen = std::collections::HashMap::new();
        for c in &self.clusters.value {
            let clash = match seen.insert(c.label(), &c.groups) {
                None => false,
                Some(first) => first != &c.groups || !self.zip_clusters_workloads.value,
            };
            if clash {
                let at = c.label.as_ref().map_or(self.clusters.referenced, |l| l.referenced);
                return Err((
                    at,
                    format!("cluster label `{}` is used twice; give each cluster a distinct `label`", c.label()),
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for w in &self.workloads.value {
            if !seen.insert(w.value.label()) {
                return Err((w.referenced, format!("workload `{}` appears twice", w.value.label())));
            }
            w.value.validate().map_err(|message| (w.referenced, message))?;
            if w.value.needs_load() && self.loads.is_empty() {
                return Err((
                    w.referenced,
                    format!(
                        "workload `{}` generates jobs at a load: add `loads: [...]` (jobs per hour)",
                        w.value.name()
                    ),
                ));
            }
            w.value.kind().check_round(self.engine.round_s.0).map_err(|message| (w.referenced, message))?;
            let endless = w.value.is_endless()
                && matches!(self.measure.track.value, TrackSpec::All)
                && self.measure.horizon_h.is_none();
            if endless {
                // Without a `track` key the spec measures every job by default: point at the
                // workload, which is what needs the window.
                let given = self.measure.track.referenced != serde_saphyr::Location::UNKNOWN;
                return Err((
                    if given { self.measure.track.referenced } else { w.referenced },
                    format!(
                        "workload `{}` never stops generating jobs: measure an id window (`measure: {{track: {{ids: [first, last]}}}}`) or set `measure.horizon_h`",
                        w.value.name()
                    ),
                ));
            }
            self.validate_generated_jobs(w)?;
        }
        self.validate_workload_labels()?;
        let mut names = std::collections::HashSet::new();
        for figure in &self.figures {
            if !names.insert(figure.value.name()) {
                return Err((figure.referenced, format!("figure name `{}` is used twice", figure.value.name())));
            }
            for label in figure.value.labels_named() {
                if !self.policies.value.iter().any(|p| p.label.value.0 == label) {
                    let known: Vec<&str> = self.policies.value.iter().map(|p| p.label.value.0.as_str()).collect();
                    return Err((
                        figure.referenced,
                        format!(
                            "figure `{}` names policy `{label}`, which is not in `policies` ({})",
                            figure.value.name(),
                            known.join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Spec {
    /// Whether the runs measure job `id`.
    pub fn tracks(&self, id: u64) -> bool {
        match self.measure.track.value {
            TrackSpec::All => true,
            TrackSpec::Ids(window) => (window.first..=window.last).contains(&id),
        }
    }

    /// Whether a run pulls `job` from an endless workload: jobs up to the tracked window's last
    /// id and not after the horizon (validation requires one of them for an endless workload).
    pub fn reaches(&self, job: &JobSpec) -> bool {
        let in_window = match self.measure.track.value {
            TrackSpec::All => true,
            TrackSpec::Ids(window) => job.id <= window.last,
        };
        in_window && self.measure.horizon_h.is_none_or(|h| job.arrival <= h.0 * 3600.0)
    }

    /// The grid has at most [`MAX_GRID_RUNS`] runs, counted from the axes as `grid::expand`
    /// walks them (zipped pairs, loads only for workloads that take one) without expanding it.
    fn validate_grid_size(&self) -> Result<(), (serde_saphyr::Location, String)> {
        let loads = self.loads.len() as u64;
        let points = |w: &Spanned<WorkloadSpec>| if w.value.needs_load() { loads.max(1) } else { 1 };
        let workloads = &self.workloads.value;
        let workload_points: u64 = workloads.iter().map(points).sum();
        let pairs = if self.zip_clusters_workloads.value {
            workload_points
        } else {
            self.clusters.value.len() as u64 * workload_points
        };
        let policies = self.policies.value.len() as u64;
        let seeds = self.seeds.value.len() as u64;
        let runs = u128::from(policies) * u128::from(pairs) * u128::from(seeds);
        if runs <= u128::from(MAX_GRID_RUNS) {
            return Ok(());
        }
        let count = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let axes = if self.zip_clusters_workloads.value {
            count(pairs, "cluster-workload-load point", "cluster-workload-load points")
        } else {
            let clusters = count(self.clusters.value.len() as u64, "cluster", "clusters");
            format!("{clusters} x {}", count(workload_points, "workload-load point", "workload-load points"))
        };
        Err((
            self.name.referenced,
            format!(
                "the grid has {runs} runs ({} x {axes} x {}); a spec may have at most {MAX_GRID_RUNS} runs: \
                 split it into several specs, or use fewer policies, loads or seeds",
                count(policies, "policy", "policies"),
                count(seeds, "seed", "seeds")
            ),
        ))
    }

    /// How many jobs a run of workload `w` draws, at most [`MAX_GENERATED_JOBS`]: a generator
    /// produces every job up to the last tracked id, or up to `horizon_h` with `track: all`; a
    /// burst of `blox-bursty` is produced whole; `elasticflow-generator` makes `num_jobs`.
    fn validate_generated_jobs(&self, w: &Spanned<WorkloadSpec>) -> Result<(), (serde_saphyr::Location, String)> {
        let max_load = self.loads.iter().map(|l| l.0).fold(0.0, f64::max);
        w.value.check_size(max_load, MAX_GENERATED_JOBS).map_err(|message| (w.referenced, message))?;
        if !w.value.is_endless() {
            return Ok(());
        }
        let at = self.measure.track.referenced;
        match (&self.measure.track.value, self.measure.horizon_h) {
            (TrackSpec::Ids(window), _) if window.last >= MAX_GENERATED_JOBS => Err((
                at,
                format!(
                    "workload `{}` generates every job up to the last tracked id ({}); track ids below {MAX_GENERATED_JOBS}",
                    w.value.name(),
                    window.last
                ),
            )),
            (TrackSpec::All, Some(horizon)) => {
                let jobs = w.value.kind().jobs_per_hour(max_load) * horizon.0;
                if jobs > MAX_GENERATED_JOBS as f64 {
                    return Err((
                        at,
                        format!(
                            "workload `{}` at load {} generates about {jobs:.0} jobs in horizon_h {}; a run generates at most {MAX_GENERATED_JOBS}: shorten horizon_h or track an id window",
                            w.value.name(),
                            number(max_load),
                            number(horizon.0)
                        ),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Explicit workload labels become part of file names and figure legends.
    fn validate_workload_labels(&self) -> Result<(), (serde_saphyr::Location, String)> {
        for workload in &self.workloads.value {
            if let Some(label) = workload.value.explicit_label() {
                check_label(label).map_err(|e| (workload.referenced, format!("workload {e}")))?;
            }
        }
        Ok(())
    }

    /// Schedulers and placements must run on the engine mode their descriptors name; the event
    /// engine runs a scheduler with its own placement, or one its descriptor lists as an
    /// alternative, and no admission policy of the round engine.
    /// The placement engine reads its cluster from a node list and its requests from a pod list,
    /// and only it does: every other engine's clusters are node groups and its workloads jobs.
    fn validate_placement_inputs(&self) -> Result<(), (serde_saphyr::Location, String)> {
        let placements = self.engine.mode == EngineMode::Placements;
        for c in &self.clusters.value {
            match (&c.node_list, placements) {
                (None, true) => {
                    let at = c.label.as_ref().map_or(self.clusters.referenced, |l| l.referenced);
                    return Err((
                        at,
                        format!(
                            "cluster `{}`: `engine.mode: placements` reads its cluster from a node list; give \
                             `node_list: {{path: ...}}` or `{{dataset: ...}}`",
                            c.label()
                        ),
                    ));
                }
                (Some(list), false) => {
                    return Err((
                        list.referenced,
                        format!(
                            "cluster `{}`: a `node_list` cluster is for `engine.mode: placements`; the {} engine \
                             needs node groups (`nodes`, `gpus_per_node`, ...)",
                            c.label(),
                            self.engine.mode.name()
                        ),
                    ));
                }
                _ => {}
            }
        }
        for w in &self.workloads.value {
            let pod_list = matches!(w.value, WorkloadSpec::PodList(_));
            if pod_list != placements {
                let message = if placements {
                    format!(
                        "workload `{}`: `engine.mode: placements` offers the requests of a `pod-list` workload; \
                         generators and job traces run on the rounds and events engines",
                        w.value.label()
                    )
                } else {
                    format!(
                        "workload `{}`: a `pod-list` workload is a placement experiment's; set `engine: {{mode: \
                         placements}}` or run it in another spec",
                        w.value.label()
                    )
                };
                return Err((w.referenced, message));
            }
            if let (WorkloadSpec::PodList(p), Some(_)) = (&w.value, self.measure.horizon_h)
                && !p.over_time
            {
                let message = format!(
                    "workload `{}`: `measure.horizon_h` ends runs over time, and the paper's placement \
                     experiment has no clock; drop it or set `over_time: true`",
                    w.value.label()
                );
                return Err((w.referenced, message));
            }
        }
        Ok(())
    }

    fn validate_engine(&self) -> Result<(), (serde_saphyr::Location, String)> {
        let mode = self.engine.mode;
        if let Some(executor) = self.engine.executor.as_ref().filter(|_| mode != EngineMode::Live) {
            return Err((executor.referenced, "`engine.executor` is for `engine.mode: live`".into()));
        }
        if let Some(live) = self.engine.live.as_ref().filter(|_| mode == EngineMode::Live) {
            let executor = self.engine.executor.as_ref().map(|e| e.value).unwrap_or_default();
            live.value.check_executor(executor).map_err(|e| (live.referenced, e))?;
        }
        match (&self.engine.live, mode) {
            (None, EngineMode::Live) => {
                return Err((
                    self.name.referenced,
                    "`engine.mode: live` needs `engine.live` with at least the jobs' `command`".into(),
                ));
            }
            (Some(live), EngineMode::Rounds | EngineMode::Events | EngineMode::Placements) => {
                return Err((live.referenced, "`engine.live` is for `engine.mode: live`".into()));
            }
            (Some(live), EngineMode::Live) if self.engine.overhead != OverheadSpec::default() => {
                return Err((
                    live.referenced,
                    "live mode measures launch and preemption overheads; remove `engine.overhead`".into(),
                ));
            }
            _ => {}
        }
        for p in &self.policies.value {
            let label = &p.label.value.0;
            let scheduler = p.scheduler.value.info();
            let on_events = self.runs_on_events(p);
            if scheduler.engine != mode.policy_engine() && !on_events {
                let needed = scheduler.engine.name();
                return Err((
                    p.scheduler.referenced,
                    format!(
                        "policy `{label}`: scheduler `{}` runs on the {needed} engine, but `engine.mode` is `{}`; \
                         set `engine: {{mode: {needed}}}` or run it in another spec",
                        scheduler.name,
                        mode.name()
                    ),
                ));
            }
            let placement = p.placement.value.info();
            if placement.engine == Engine::Events && !scheduler.accepts(placement) {
                return Err((
                    p.placement.referenced,
                    format!(
                        "policy `{label}`: placement `{}` is for the event-driven schedulers {}, not `{}`",
                        placement.name,
                        placement.accepted_by().join(", "),
                        scheduler.name
                    ),
                ));
            }
            let round_placement = placement.engine == Engine::Rounds && p.placement.value != PlacementSpec::default();
            if mode == EngineMode::Placements && (round_placement || p.admission != AdmissionSpec::default()) {
                return Err((
                    p.label.referenced,
                    format!(
                        "policy `{label}`: a placement experiment's score policy places each request itself and \
                         admits every one; remove `placement` and `admission`"
                    ),
                ));
            }
            if let Some(own) = scheduler
                .placement
                .as_ref()
                .filter(|_| matches!(mode, EngineMode::Rounds | EngineMode::Live) && round_placement)
            {
                return Err((
                    p.placement.referenced,
                    format!(
                        "policy `{label}`: scheduler `{}` places its own jobs (`{}`); remove `placement`",
                        scheduler.name, own.name
                    ),
                ));
            }
            if on_events && (round_placement || p.admission != AdmissionSpec::default()) {
                let alternatives: Vec<String> = Kind::Placement
                    .policies()
                    .filter(|placement| placement.engine == Engine::Events)
                    .map(|placement| format!("`{}`", placement.name))
                    .collect();
                return Err((
                    p.label.referenced,
                    format!(
                        "policy `{label}`: event-driven schedulers bring their own placement (or {}) and admission; remove `placement` and `admission`",
                        alternatives.join(", ")
                    ),
                ));
            }
            for (ci, c) in self.clusters.value.iter().enumerate() {
                let cluster = c.cluster_spec();
                if let Err(why) = p.scheduler.value.check_cluster(&cluster) {
                    let at = c.label.as_ref().map_or(self.clusters.referenced, |l| l.referenced);
                    return Err((at, format!("cluster `{}` for policy `{label}`: {why}", c.label())));
                }
                for (wi, w) in self.workloads.value.iter().enumerate() {
                    if self.zip_clusters_workloads.value && ci != wi {
                        continue;
                    }
                    let cluster_label = c.label();
                    let pairing = Pairing {
                        cluster: &cluster,
                        cluster_label: &cluster_label,
                        scheduler: scheduler.name,
                        policy_label: label,
                    };
                    w.value.kind().check_pairing(&pairing).map_err(|message| (w.referenced, message))?;
                }
            }
        }
        self.validate_placement_inputs()?;
        let events = self.policies.value.iter().any(|p| self.runs_on_events(p));
        if events {
            for c in &self.clusters.value {
                let at = c.label.as_ref().map_or(self.clusters.referenced, |l| l.referenced);
                let spec = c.cluster_spec();
                let Some(node) = spec.identical_node() else {
                    return Err((
                        at,
                        format!(
                            "cluster `{}`: the event engine's placements (ElasticFlow's buddy placement, MS-YARN, Gandiva's node sets) \
                             need identical nodes; give one group of nodes, or use `engine: {{mode: rounds}}`",
                            c.label()
                        ),
                    ));
                };
                if ThroughputTable::for_gpu(node.gpu_type.name()).is_none() {
                    return Err((
                        at,
                        format!(
                            "cluster `{}`: `gpu: {}` has no throughput profile for the event engine; profiles exist for {}",
                            c.label(),
                            node.gpu_type.name(),
                            ThroughputTable::GPU_TYPES.join(", ")
                        ),
                    ));
                }
            }
        }
        if events && (!matches!(self.measure.track.value, TrackSpec::All) || self.measure.horizon_h.is_some()) {
            return Err((
                self.measure.track.referenced,
                format!(
                    "`engine.mode: {}` runs the event engine's schedulers on whole workloads: use `track: all` and no \
                     `horizon_h`",
                    mode.name()
                ),
            ));
        }
        Ok(())
    }

    /// Whether `policy` runs on the event engine: an event scheduler in events mode, or in live
    /// mode (which carries out either engine's decisions).
    pub fn runs_on_events(&self, policy: &PolicyEntry) -> bool {
        matches!(self.engine.mode, EngineMode::Events | EngineMode::Live)
            && policy.scheduler.value.info().engine == Engine::Events
    }
}

/// A YAML error in the spec's words: the parser's own advice is for programmers (`set
/// DuplicateKeyPolicy in Options`, `use Option<String>`, `budget breached: Nodes {..}`,
/// `invalid i64`), so the cases a spec author meets are translated, with the offending value
/// from the text at `position` where the error does not carry it. The rest use the parser's
/// user-facing wording.
fn yaml_message(error: &serde_saphyr::Error, text: &str, position: Option<(u64, u64)>) -> String {
    use serde_saphyr::Error as E;
    use serde_saphyr::budget::BudgetBreach as B;
    let found = || {
        position
            .and_then(|(line, column)| scalar_at(text, line, column))
            .map(|v| format!(", found `{}`", shorten(&v)))
            .unwrap_or_default()
    };
    let mut inner = error.without_snippet();
    while let E::AliasError { error, .. } = inner {
        inner = error.without_snippet();
    }
    match inner {
        E::DuplicateMappingKey { key: Some(key), .. } => {
            format!("key `{}` is given twice in this mapping; keep one", shorten(key))
        }
        E::DuplicateMappingKey { key: None, .. } => "a key is given twice in this mapping; keep one".into(),
        E::NullIntoString { .. } => "expected a text value, found nothing (null)".into(),
        E::InvalidScalar { ty, .. } => format!("expected {}{}", node::in_words(ty), found()),
        E::Unexpected { expected, .. } => {
            let what = match *expected {
                "sequence start" => "a list (`[a, b]`, or one `- item` per line)",
                "mapping start" => "a mapping (`{key: value}`, or one `key: value` per line)",
                "string scalar" => "a text value",
                other => other,
            };
            format!("expected {what}{}", found())
        }
        E::SerdeInvalidType { unexpected, expected, .. } | E::SerdeInvalidValue { unexpected, expected, .. } => {
            format!("expected {}, found {unexpected}", node::in_words(expected))
        }
        E::Budget { breach, .. } => {
            let what = match breach {
                B::Nodes { nodes } => format!("it has more than {nodes} values (entries, lists and mappings)"),
                B::Events { events } => format!("it has more than {events} YAML elements"),
                B::Depth { depth } => format!("it nests lists and mappings {depth} levels deep"),
                B::Aliases { .. } | B::Anchors { .. } | B::AliasAnchorRatio { .. } => {
                    "it uses too many anchors (`&name`) or aliases (`*name`)".into()
                }
                B::ScalarBytes { total_scalar_bytes } => format!("its values hold {total_scalar_bytes} bytes of text"),
                B::Documents { documents } => format!("it has {documents} YAML documents; a spec is one"),
                B::InputBytes { input_bytes } => format!("it is {input_bytes} bytes long"),
                _ => "it exceeds a size limit of the YAML reader".into(),
            };
            format!("this is too large or too complex for a spec: {what}")
        }
        other => strip_location(&other.render_with_formatter(&serde_saphyr::UserMessageFormatter)),
    }
}

/// The plain or quoted scalar that starts at 1-based `line`:`column` of `text`, if any.
fn scalar_at(text: &str, line: u64, column: u64) -> Option<String> {
    let line = text.lines().nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let start = line.char_indices().nth(usize::try_from(column).ok()?.checked_sub(1)?)?.0;
    let rest = &line[start..];
    let first = rest.chars().next()?;
    // A flow or block collection is not a scalar (`-1` is one, `- item` is not).
    let block_item = first == '-' && !rest[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if first == '{' || first == '[' || block_item {
        return None;
    }
    let value = match first {
        quote @ ('"' | '\'') => rest[1..].split(quote).next().unwrap_or_default(),
        _ => rest.split([',', ']', '}', '#']).next().unwrap_or_default().trim(),
    };
    (!value.is_empty()).then(|| value.to_string())
}

/// serde-saphyr appends " at line L column C" to messages; the position is reported separately.
fn strip_location(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_string(),
        None => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_read_at_their_position_and_collections_are_not() {
        let text = "a: [1, x]\nb: {c: 'q, r'}\nd:\n  - -1\n  - {e: 1}\n";
        assert_eq!(scalar_at(text, 1, 8).as_deref(), Some("x"));
        assert_eq!(scalar_at(text, 2, 8).as_deref(), Some("q, r"));
        assert_eq!(scalar_at(text, 4, 5).as_deref(), Some("-1"));
        assert_eq!(scalar_at(text, 4, 3), None, "a block item marker");
        assert_eq!(scalar_at(text, 5, 5), None, "a flow mapping");
        assert_eq!(scalar_at(text, 9, 1), None, "past the end");
    }

    #[test]
    fn numbers_in_messages_stay_short() {
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(1e-300), "1e-300");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(100_000.0), "100000");
        assert_eq!(node::in_words("i64"), "a whole number");
        assert_eq!(node::in_words("struct PolicyEntry"), "a mapping (PolicyEntry)");
    }
}
