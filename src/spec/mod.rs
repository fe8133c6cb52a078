//! The experiment spec: one YAML file declares policies, clusters, workloads, loads and seeds,
//! whose cross product is the grid of runs ([`grid`]).
//!
//! Every structural error (unknown key, unknown policy name, wrong type, bad value) is reported
//! by the YAML deserializer with its line and column and, for names, the valid choices; checks
//! that span several fields (duplicate labels, a generator without loads) point at the offending
//! entry through [`Spanned`] values.

pub mod grid;
pub mod inputs;

use crate::figures::declare::FigureSpec;
use crate::policies::{AdmissionSpec, OverheadSpec, PlacementSpec, Positive, SchedulerSpec};
use crate::profiles::ThroughputTable;
use crate::workload::WorkloadSpec;
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
    /// Offered loads in jobs per hour, for workload generators.
    #[serde(default)]
    pub loads: Vec<Positive>,
    /// Seeds of the workload generators (Blox seeds Python's `random` with 1).
    #[serde(default = "default_seeds")]
    pub seeds: Spanned<Vec<u64>>,
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

/// A name usable as a directory: letters, digits, `-`, `_` and `.`, not starting with `.`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExperimentName(pub String);

impl<'de> Deserialize<'de> for ExperimentName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_file_name_safe(&s) {
            Ok(ExperimentName(s))
        } else {
            Err(de::Error::custom(format!(
                "name `{s}` must be non-empty, use only letters, digits, '-', '_' or '.', and not start with '.'"
            )))
        }
    }
}

fn is_file_name_safe(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// How simulated time advances.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    #[serde(default)]
    pub mode: EngineMode,
    /// Round length in seconds (Blox: 300).
    #[serde(default = "default_round")]
    pub round_s: Positive,
    /// Hours without being scheduled after which a job is promoted above all others (Blox: 1000);
    /// `null` disables the guard.
    #[serde(default = "default_guard")]
    pub starvation_guard_h: Option<Positive>,
    #[serde(default = "default_overhead")]
    pub overhead: OverheadSpec,
    /// Events mode: minimum spacing of decisions in seconds, also the number of scheduling
    /// rounds between cluster restarts (ElasticFlow `--scheduling_slot`; its Figure 10: 240).
    #[serde(default = "default_slot")]
    pub slot_s: Positive,
}

impl Default for EngineSpec {
    fn default() -> Self {
        Self {
            mode: EngineMode::Rounds,
            slot_s: default_slot(),
            round_s: default_round(),
            starvation_guard_h: default_guard(),
            overhead: default_overhead(),
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
    OverheadSpec::None
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
}

impl EngineMode {
    pub fn name(self) -> &'static str {
        match self {
            EngineMode::Rounds => "rounds",
            EngineMode::Events => "events",
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
    Spanned::new(PlacementSpec::Scattered, serde_saphyr::Location::UNKNOWN, serde_saphyr::Location::UNKNOWN)
}
fn default_admission() -> AdmissionSpec {
    AdmissionSpec::AcceptAll
}

/// A non-empty label without path separators or control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label(pub String);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.trim().is_empty() || s.chars().any(|c| c.is_control() || c == '/' || c == '\\') {
            return Err(de::Error::custom(format!(
                "label `{s}` must be non-empty and contain no '/', '\\' or control characters"
            )));
        }
        Ok(Label(s))
    }
}

/// A homogeneous cluster of `nodes` machines with `gpus_per_node` GPUs each.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterEntry {
    #[serde(default)]
    pub label: Option<Spanned<Label>>,
    pub nodes: AtLeastOne,
    pub gpus_per_node: AtLeastOne,
    /// GPU type, which selects the throughput table of event-driven runs (ElasticFlow's A100 or
    /// T4 measurements).
    #[serde(default)]
    pub gpu: GpuType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuType {
    #[default]
    A100,
    T4,
}

impl GpuType {
    pub fn throughput(self) -> &'static ThroughputTable {
        match self {
            GpuType::A100 => ThroughputTable::elasticflow_a100(),
            GpuType::T4 => ThroughputTable::elasticflow_t4(),
        }
    }
}

impl ClusterEntry {
    pub fn label(&self) -> String {
        match &self.label {
            Some(l) => l.value.0.clone(),
            None => format!("{}x{}", self.nodes.0, self.gpus_per_node.0),
        }
    }
}

/// A count of at least one (nodes, GPUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtLeastOne(pub u32);

impl<'de> Deserialize<'de> for AtLeastOne {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u32::try_from(v) {
            Ok(n) if (1..=1_000_000).contains(&n) => Ok(AtLeastOne(n)),
            _ => Err(de::Error::custom(format!("must be a whole number from 1 to 1000000, got {v}"))),
        }
    }
}

/// Which jobs are measured and when a run stops.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    pub track: Spanned<TrackSpec>,
    /// Stop at this simulated time (hours) even if tracked jobs are unfinished.
    #[serde(default)]
    pub horizon_h: Option<Positive>,
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

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
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
        let spec: Spec = serde_saphyr::from_str(&source.text).map_err(|e| {
            let position = e.location().filter(|l| l.line() > 0).map(|l| (l.line(), l.column()));
            SpecError { file: source.file.clone(), position, message: strip_location(&e.without_snippet().to_string()) }
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
            let config = (c.nodes, c.gpus_per_node, c.gpu);
            let clash = match seen.insert(c.label(), config) {
                None => false,
                Some(first) => first != config || !self.zip_clusters_workloads.value,
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
            if let WorkloadSpec::BloxBursty(params) = &w.value {
                let interval = params.burst_interval_s.get() as f64;
                if (interval / self.engine.round_s.0).fract() != 0.0 {
                    return Err((
                        w.referenced,
                        format!(
                            "blox-bursty injects bursts at round boundaries: its burst_interval_s ({interval}) must be a multiple of engine.round_s ({})",
                            self.engine.round_s.0
                        ),
                    ));
                }
            }
            let endless = w.value.is_endless()
                && matches!(self.measure.track.value, TrackSpec::All)
                && self.measure.horizon_h.is_none();
            if endless {
                return Err((
                    self.measure.track.referenced,
                    format!(
                        "workload `{}` never stops generating jobs: track an id window (`track: {{ids: [first, last]}}`) or set `horizon_h`",
                        w.value.name()
                    ),
                ));
            }
        }
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
    /// Schedulers must match the engine mode; the event engine runs whole workloads with the
    /// policy's own placement, or `yarn` for the policies that can use it, and no admission
    /// policy of the round engine.
    fn validate_engine(&self) -> Result<(), (serde_saphyr::Location, String)> {
        let mode = self.engine.mode;
        for p in &self.policies.value {
            let scheduler = &p.scheduler.value;
            let at = p.scheduler.referenced;
            if scheduler.is_event_driven() != (mode == EngineMode::Events) {
                let needed = if scheduler.is_event_driven() { "events" } else { "rounds" };
                return Err((
                    at,
                    format!(
                        "policy `{}`: scheduler `{}` runs on the {needed} engine, but `engine.mode` is `{}`; \
                         set `engine: {{mode: {needed}}}` or run it in another spec",
                        p.label.value.0,
                        scheduler.name(),
                        mode.name()
                    ),
                ));
            }
            let placement = &p.placement.value;
            if *placement == PlacementSpec::Yarn && !(mode == EngineMode::Events && scheduler.can_place_with_yarn()) {
                return Err((
                    p.placement.referenced,
                    format!(
                        "policy `{}`: placement `yarn` is for the event-driven schedulers that place whole jobs \
                         (tiresias, themis), not `{}`",
                        p.label.value.0,
                        scheduler.name()
                    ),
                ));
            }
            if mode == EngineMode::Events
                && (!matches!(placement, PlacementSpec::Scattered | PlacementSpec::Yarn)
                    || p.admission != AdmissionSpec::AcceptAll)
            {
                return Err((
                    p.label.referenced,
                    format!(
                        "policy `{}`: event-driven schedulers bring their own placement (or `yarn`) and admission; remove `placement` and `admission`",
                        p.label.value.0
                    ),
                ));
            }
        }
        if mode == EngineMode::Events
            && (!matches!(self.measure.track.value, TrackSpec::All) || self.measure.horizon_h.is_some())
        {
            return Err((
                self.measure.track.referenced,
                "`engine.mode: events` simulates whole workloads: use `track: all` and no `horizon_h`".into(),
            ));
        }
        Ok(())
    }
}

/// serde-saphyr appends " at line L column C" to messages; the position is reported separately.
fn strip_location(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_string(),
        None => first.to_string(),
    }
}
