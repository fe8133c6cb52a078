//! Every pluggable policy (scheduler, placement, admission, launch overhead), one file each, and
//! the registry that names them.
//!
//! Layout. [`rounds`] holds the round engine's policies by the decision they make, because that
//! engine composes one of each kind per run (admission x scheduling x placement, plus an overhead
//! model). [`events`] holds the event engine's schedulers by family, because each of them makes
//! every decision itself and what policies share there is a planner or a placement. Helpers sit
//! beside the policies that use them.
//!
//! Registry. Each policy file declares its descriptor, `INFO` ([`PolicyInfo`]: name, kind,
//! engine, summary, options, source), and the options a spec gives it, `Options`, which
//! implements its kind's options trait ([`SchedulerOptions`] and so on: descriptor, canonical
//! parameters, construction). [`ALL`] lists the descriptors; `blox list`, the valid names in spec
//! errors, the engine checks, the placement a runs row records and the canonical form that run
//! keys hash all derive from them. The enums [`SchedulerSpec`], [`PlacementSpec`],
//! [`AdmissionSpec`] and [`OverheadSpec`] exist because serde needs a type per choice to parse
//! into: each variant wraps one policy's `Options`, and a test pairs variants and descriptors one
//! to one.

pub mod events;
pub mod rounds;

use crate::core::events::{EventPlacement, EventPolicy};
use crate::core::{Admission, ClusterSpec, OverheadModel, Placement, RoundPolicy, Scheduler};
use crate::data;
use crate::plugin::{self, PluginOptions};
use crate::profiles::GpuTimeDistribution;
use crate::profiles::gavel::GavelThroughputs;
use crate::spec::EngineMode;
use crate::workload::gavel_generator::ThroughputFile;
use events::{edf, elasticflow, gandiva, muri, themis, tiresias, yarn};
use rounds::admission::{accept_all, load_based};
use rounds::gavel::{
    gavel_allox, gavel_fifo, gavel_fifo_packed, gavel_fifo_perf, gavel_finish_time_fairness,
    gavel_finish_time_fairness_packed, gavel_finish_time_fairness_perf, gavel_gandiva, gavel_isolated,
    gavel_max_min_fairness, gavel_max_min_fairness_packed, gavel_max_min_fairness_perf, gavel_min_total_duration,
    gavel_min_total_duration_packed, gavel_min_total_duration_perf,
};
use rounds::overhead::{fixed, none};
use rounds::placement::{consolidated, scattered};
use rounds::scheduling::{external, fifo, las, optimus_oracle, srtf};
use rounds::synergy::{synergy_drf, synergy_fifo, synergy_ftf, synergy_las, synergy_srtf, synergy_tetris};
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    &scattered::INFO,
    &consolidated::INFO,
    &yarn::INFO,
    &accept_all::INFO,
    &load_based::INFO,
    &none::INFO,
    &fixed::INFO,
];

/// What a policy decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Scheduler,
    Placement,
    Admission,
    Overhead,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Scheduler, Kind::Placement, Kind::Admission, Kind::Overhead];

    /// What spec errors call one.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Scheduler => "scheduler",
            Kind::Placement => "placement",
            Kind::Admission => "admission policy",
            Kind::Overhead => "overhead model",
        }
    }

    /// `blox list`'s heading: the kind and where a spec names it.
    pub fn heading(self) -> &'static str {
        match self {
            Kind::Scheduler => "schedulers (policies[].scheduler)",
            Kind::Placement => "placements (policies[].placement)",
            Kind::Admission => "admissions (policies[].admission)",
            Kind::Overhead => "overhead models (engine.overhead)",
        }
    }

    /// The names of this kind's policies, in [`ALL`] order.
    pub fn names(self) -> Vec<&'static str> {
        self.policies().map(|info| info.name).collect()
    }

    /// This kind's descriptors, in [`ALL`] order, then the registered ones ([`crate::plugin`]).
    pub fn policies(self) -> impl Iterator<Item = &'static PolicyInfo> {
        ALL.iter().copied().chain(plugin::registered()).filter(move |info| info.kind == self)
    }
}

/// A policy's descriptor: what the registry, the spec checks and `blox list` know of it.
#[derive(Debug)]
pub struct PolicyInfo {
    /// The name specs use (`scheduler: fifo`), unique within its kind.
    pub name: &'static str,
    pub kind: Kind,
    /// The engine it runs on, which `engine.mode` must name.
    pub engine: EngineMode,
    /// One line for `blox list`.
    pub summary: &'static str,
    /// The options a spec may give (`{name: {option: value}}`); empty when it takes none.
    pub options: &'static [OptionDoc],
    /// What it reproduces.
    pub source: &'static str,
    /// Event-engine schedulers: the placement they bring. `None` for every other policy.
    pub placement: Option<OwnPlacement>,
}

impl PolicyInfo {
    /// The policy as a spec writes it, every option at its example value.
    pub fn example(&self) -> String {
        if self.options.is_empty() {
            return self.name.to_string();
        }
        let options: Vec<String> = self.options.iter().map(|o| format!("{}: {}", o.name, o.example)).collect();
        format!("{{{}: {{{}}}}}", self.name, options.join(", "))
    }

    /// Whether a spec may give this scheduler `placement` instead of its own.
    pub fn accepts(&self, placement: &PolicyInfo) -> bool {
        self.placement.as_ref().is_some_and(|own| own.alternatives.iter().any(|a| a.name == placement.name))
    }

    /// The schedulers that accept this placement instead of their own.
    pub fn accepted_by(&self) -> Vec<&'static str> {
        Kind::Scheduler.policies().filter(|scheduler| scheduler.accepts(self)).map(|scheduler| scheduler.name).collect()
    }
}

/// One option of a policy, for `blox list`.
#[derive(Debug)]
pub struct OptionDoc {
    pub name: &'static str,
    /// A value as a spec writes it; a test parses every example.
    pub example: &'static str,
    /// What it does, and its default when it has one.
    pub meaning: &'static str,
}

/// The placement an event-engine scheduler brings.
#[derive(Debug)]
pub struct OwnPlacement {
    /// Its name in the runs table's `placement` column.
    pub name: &'static str,
    /// The placements a spec may choose instead (`placement: yarn`).
    pub alternatives: &'static [&'static PolicyInfo],
}

/// A policy's options as run keys hash them and the runs table's `policy_params` records them:
/// option name to value, sorted by name.
pub type Params = BTreeMap<&'static str, Value>;

/// The options a spec gave one policy; each policy file implements it for its `Options`.
pub trait PolicyOptions {
    /// The policy's descriptor.
    fn info(&self) -> &'static PolicyInfo;

    /// Every option that decides a run; a test checks that each documented option appears.
    fn params(&self) -> Params {
        Params::new()
    }
}

/// A scheduler's options; it builds the policy for the engine its descriptor names.
pub trait SchedulerOptions: PolicyOptions {
    /// The round-engine scheduler, which a placement follows.
    fn build(&self, _ctx: &BuildContext) -> Option<Box<dyn Scheduler>> {
        None
    }

    /// The whole round decision, for round-engine schedulers that bring their own placement
    /// (their descriptor's `placement`).
    fn build_decision(&self, _ctx: &BuildContext) -> Option<Box<dyn RoundPolicy>> {
        None
    }

    /// The Gavel throughput file the scheduler reads, if any.
    fn gavel_oracle(&self) -> Option<ThroughputFile> {
        None
    }

    /// Why the scheduler cannot run on `cluster`, if it cannot (Synergy's policies need CPUs and
    /// memory per node); spec validation reports it at the policy.
    fn check_cluster(&self, _cluster: &ClusterSpec) -> Result<(), String> {
        Ok(())
    }

    /// The event-engine policy; `gpu_time` is the distribution of
    /// [`SchedulerOptions::gpu_time_source`], read by the caller.
    fn build_event(&self, _gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        None
    }

    /// The GPU-time distribution the scheduler reads, if any.
    fn gpu_time_source(&self) -> Option<&GpuTimeSource> {
        None
    }
}

/// A placement's options; it builds the placement for the engine its descriptor names.
pub trait PlacementOptions: PolicyOptions {
    /// The round-engine placement.
    fn build(&self) -> Option<Box<dyn Placement>> {
        None
    }

    /// The event engine's placement, replacing the scheduler's own.
    fn event_placement(&self) -> Option<EventPlacement> {
        None
    }
}

pub trait AdmissionOptions: PolicyOptions {
    fn build(&self) -> Box<dyn Admission>;
}

pub trait OverheadOptions: PolicyOptions {
    /// `None` when launches cost nothing.
    fn build(&self) -> Option<Box<dyn OverheadModel>>;
}

/// What a policy may depend on besides its own options.
#[derive(Debug, Clone, Copy)]
pub struct BuildContext<'a> {
    /// The run's offered load in jobs per hour, when the workload has one.
    pub load: Option<f64>,
    /// The spec file's directory, against which options' relative paths resolve.
    pub base_dir: &'a Path,
    pub round_seconds: f64,
    pub cluster: &'a ClusterSpec,
    /// The grid point's seed, for policies that draw random numbers.
    pub seed: u64,
    /// Gavel's throughput oracle, read by the runner for schedulers that name one
    /// ([`SchedulerOptions::gavel_oracle`]).
    pub gavel_oracle: Option<&'a Arc<GavelThroughputs>>,
}

/// The scheduler of a policy entry: one variant per scheduler file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum SchedulerSpec {
    Fifo(fifo::Options),
    Las(las::Options),
    Srtf(srtf::Options),
    OptimusOracle(optimus_oracle::Options),
    External(external::Options),
    GavelFifo(gavel_fifo::Options),
    GavelFifoPerf(gavel_fifo_perf::Options),
    GavelFifoPacked(gavel_fifo_packed::Options),
    GavelGandiva(gavel_gandiva::Options),
    GavelAllox(gavel_allox::Options),
    GavelMaxMinFairness(gavel_max_min_fairness::Options),
    GavelMaxMinFairnessPerf(gavel_max_min_fairness_perf::Options),
    GavelMaxMinFairnessPacked(gavel_max_min_fairness_packed::Options),
    GavelMinTotalDuration(gavel_min_total_duration::Options),
    GavelMinTotalDurationPerf(gavel_min_total_duration_perf::Options),
    GavelMinTotalDurationPacked(gavel_min_total_duration_packed::Options),
    GavelFinishTimeFairness(gavel_finish_time_fairness::Options),
    GavelFinishTimeFairnessPerf(gavel_finish_time_fairness_perf::Options),
    GavelFinishTimeFairnessPacked(gavel_finish_time_fairness_packed::Options),
    GavelIsolated(gavel_isolated::Options),
    SynergyFifo(synergy_fifo::Options),
    SynergySrtf(synergy_srtf::Options),
    SynergyLas(synergy_las::Options),
    SynergyFtf(synergy_ftf::Options),
    SynergyDrf(synergy_drf::Options),
    SynergyTetris(synergy_tetris::Options),
    Edf(edf::Options),
    EdfAdmission(edf::edf_admission::Options),
    EdfElastic(elasticflow::edf_elastic::Options),
    Elasticflow(elasticflow::Options),
    Tiresias(tiresias::Options),
    Themis(themis::Options),
    Gandiva(gandiva::Options),
    MuriSrtf(muri::srtf::Options),
    MuriSrsf(muri::srsf::Options),
    MuriTiresias(muri::tiresias::Options),
    MuriThemis(muri::themis::Options),
    MuriS(muri::muri_s::Options),
    MuriL(muri::muri_l::Options),
    MuriLWorstOrdering(muri::muri_l_worst_ordering::Options),
    MuriLWithoutBlossom(muri::muri_l_without_blossom::Options),
    Antman(muri::antman::Options),
    /// A policy registered by the program running blox ([`crate::plugin`]).
    #[serde(skip_deserializing)]
    Plugin(PluginOptions),
}

impl SchedulerSpec {
    pub fn options(&self) -> &dyn SchedulerOptions {
        match self {
            SchedulerSpec::Fifo(o) => o,
            SchedulerSpec::Las(o) => o,
            SchedulerSpec::Srtf(o) => o,
            SchedulerSpec::OptimusOracle(o) => o,
            SchedulerSpec::External(o) => o,
            SchedulerSpec::GavelFifo(o) => o,
            SchedulerSpec::GavelFifoPerf(o) => o,
            SchedulerSpec::GavelFifoPacked(o) => o,
            SchedulerSpec::GavelGandiva(o) => o,
            SchedulerSpec::GavelAllox(o) => o,
            SchedulerSpec::GavelMaxMinFairness(o) => o,
            SchedulerSpec::GavelMaxMinFairnessPerf(o) => o,
            SchedulerSpec::GavelMaxMinFairnessPacked(o) => o,
            SchedulerSpec::GavelMinTotalDuration(o) => o,
            SchedulerSpec::GavelMinTotalDurationPerf(o) => o,
            SchedulerSpec::GavelMinTotalDurationPacked(o) => o,
            SchedulerSpec::GavelFinishTimeFairness(o) => o,
            SchedulerSpec::GavelFinishTimeFairnessPerf(o) => o,
            SchedulerSpec::GavelFinishTimeFairnessPacked(o) => o,
            SchedulerSpec::GavelIsolated(o) => o,
            SchedulerSpec::SynergyFifo(o) => o,
            SchedulerSpec::SynergySrtf(o) => o,
            SchedulerSpec::SynergyLas(o) => o,
            SchedulerSpec::SynergyFtf(o) => o,
            SchedulerSpec::SynergyDrf(o) => o,
            SchedulerSpec::SynergyTetris(o) => o,
            SchedulerSpec::Edf(o) => o,
            SchedulerSpec::EdfAdmission(o) => o,
            SchedulerSpec::EdfElastic(o) => o,
            SchedulerSpec::Elasticflow(o) => o,
            SchedulerSpec::Tiresias(o) => o,
            SchedulerSpec::Themis(o) => o,
            SchedulerSpec::Gandiva(o) => o,
            SchedulerSpec::MuriSrtf(o) => o,
            SchedulerSpec::MuriSrsf(o) => o,
            SchedulerSpec::MuriTiresias(o) => o,
            SchedulerSpec::MuriThemis(o) => o,
            SchedulerSpec::MuriS(o) => o,
            SchedulerSpec::MuriL(o) => o,
            SchedulerSpec::MuriLWorstOrdering(o) => o,
            SchedulerSpec::MuriLWithoutBlossom(o) => o,
            SchedulerSpec::Antman(o) => o,
            SchedulerSpec::Plugin(o) => o,
        }
    }

    pub fn info(&self) -> &'static PolicyInfo {
        self.options().info()
    }

    pub fn name(&self) -> &'static str {
        self.info().name
    }

    pub fn canonical(&self) -> Value {
        canonical(self.options())
    }

    /// The round-engine scheduler; `None` for event-driven ones.
    pub fn build(&self, ctx: &BuildContext) -> Option<Box<dyn Scheduler>> {
        self.options().build(ctx)
    }

    /// The whole round decision of a round-engine scheduler with its own placement.
    pub fn build_decision(&self, ctx: &BuildContext) -> Option<Box<dyn RoundPolicy>> {
        self.options().build_decision(ctx)
    }

    pub fn gavel_oracle(&self) -> Option<ThroughputFile> {
        self.options().gavel_oracle()
    }

    pub fn check_cluster(&self, cluster: &ClusterSpec) -> Result<(), String> {
        self.options().check_cluster(cluster)
    }

    /// The event-engine policy; `None` for round-based schedulers.
    pub fn build_event(&self, gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        self.options().build_event(gpu_time)
    }

    pub fn gpu_time_source(&self) -> Option<&GpuTimeSource> {
        self.options().gpu_time_source()
    }
}

/// The placement of a policy entry: one variant per placement file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum PlacementSpec {
    Scattered(scattered::Options),
    Consolidated(consolidated::Options),
    Yarn(yarn::Options),
    /// A placement registered by the program running blox ([`crate::plugin`]).
    #[serde(skip_deserializing)]
    Plugin(PluginOptions),
}

/// Blox's placement. The event engine reads it as "the scheduler's own".
impl Default for PlacementSpec {
    fn default() -> Self {
        PlacementSpec::Scattered(scattered::Options {})
    }
}

impl PlacementSpec {
    pub fn options(&self) -> &dyn PlacementOptions {
        match self {
            PlacementSpec::Scattered(o) => o,
            PlacementSpec::Consolidated(o) => o,
            PlacementSpec::Yarn(o) => o,
            PlacementSpec::Plugin(o) => o,
        }
    }

    pub fn info(&self) -> &'static PolicyInfo {
        self.options().info()
    }

    pub fn name(&self) -> &'static str {
        self.info().name
    }

    pub fn canonical(&self) -> Value {
        canonical(self.options())
    }

    /// The round-engine placement; `None` for event-engine ones.
    pub fn build(&self) -> Option<Box<dyn Placement>> {
        self.options().build()
    }

    /// The event engine's placement when it replaces the scheduler's own.
    pub fn event_placement(&self) -> Option<EventPlacement> {
        self.options().event_placement()
    }
}

/// The admission policy of a policy entry: one variant per admission file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum AdmissionSpec {
    AcceptAll(accept_all::Options),
    LoadBased(load_based::Options),
    /// An admission policy registered by the program running blox ([`crate::plugin`]).
    #[serde(skip_deserializing)]
    Plugin(PluginOptions),
}

/// Blox's default: every arrival enters.
impl Default for AdmissionSpec {
    fn default() -> Self {
        AdmissionSpec::AcceptAll(accept_all::Options {})
    }
}

impl AdmissionSpec {
    pub fn options(&self) -> &dyn AdmissionOptions {
        match self {
            AdmissionSpec::AcceptAll(o) => o,
            AdmissionSpec::LoadBased(o) => o,
            AdmissionSpec::Plugin(o) => o,
        }
    }

    pub fn info(&self) -> &'static PolicyInfo {
        self.options().info()
    }

    pub fn name(&self) -> &'static str {
        self.info().name
    }

    pub fn canonical(&self) -> Value {
        canonical(self.options())
    }

    pub fn build(&self) -> Box<dyn Admission> {
        self.options().build()
    }
}

/// The launch overhead model of `engine.overhead`: one variant per overhead file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum OverheadSpec {
    None(none::Options),
    Fixed(fixed::Options),
}

/// Blox's simulator: launches are free.
impl Default for OverheadSpec {
    fn default() -> Self {
        OverheadSpec::None(none::Options {})
    }
}

impl OverheadSpec {
    pub fn options(&self) -> &dyn OverheadOptions {
        match self {
            OverheadSpec::None(o) => o,
            OverheadSpec::Fixed(o) => o,
        }
    }

    pub fn info(&self) -> &'static PolicyInfo {
        self.options().info()
    }

    pub fn canonical(&self) -> Value {
        canonical(self.options())
    }

    pub fn build(&self) -> Option<Box<dyn OverheadModel>> {
        self.options().build()
    }
}

/// A policy as run keys hash it and the runs table's `policy_params` records it: its name, or a
/// one-key map from its name to its [`Params`] when it has any. Built from the descriptor rather
/// than serde's representation, so renaming a variant or a type never changes it.
fn canonical<O: PolicyOptions + ?Sized>(options: &O) -> Value {
    let name = options.info().name;
    let params = options.params();
    if params.is_empty() {
        return Value::from(name);
    }
    let params = params.into_iter().map(|(option, value)| (option.to_string(), value)).collect();
    Value::Object([(name.to_string(), Value::Object(params))].into_iter().collect())
}

/// The spec enums, which the registry parses by name.
trait Registered: Sized {
    const KIND: Kind;

    /// serde's derived parser of a one-key map `{variant: options}`.
    fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;

    /// A registered policy of this kind; `None` for kinds no program can register.
    fn from_plugin(_options: PluginOptions) -> Option<Self> {
        None
    }
}

impl Registered for SchedulerSpec {
    const KIND: Kind = Kind::Scheduler;
    fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SchedulerSpec::deserialize(d)
    }
    fn from_plugin(options: PluginOptions) -> Option<Self> {
        Some(SchedulerSpec::Plugin(options))
    }
}

impl Registered for PlacementSpec {
    const KIND: Kind = Kind::Placement;
    fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PlacementSpec::deserialize(d)
    }
    fn from_plugin(options: PluginOptions) -> Option<Self> {
        Some(PlacementSpec::Plugin(options))
    }
}

impl Registered for AdmissionSpec {
    const KIND: Kind = Kind::Admission;
    fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AdmissionSpec::deserialize(d)
    }
    fn from_plugin(options: PluginOptions) -> Option<Self> {
        Some(AdmissionSpec::Plugin(options))
    }
}

impl Registered for OverheadSpec {
    const KIND: Kind = Kind::Overhead;
    fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        OverheadSpec::deserialize(d)
    }
}

impl<'de> Deserialize<'de> for SchedulerSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ByName(PhantomData))
    }
}

impl<'de> Deserialize<'de> for PlacementSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ByName(PhantomData))
    }
}

impl<'de> Deserialize<'de> for AdmissionSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ByName(PhantomData))
    }
}

impl<'de> Deserialize<'de> for OverheadSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ByName(PhantomData))
    }
}

/// Parses a policy by its registered name: a bare name (`tiresias`, the policy with its default
/// options) or a one-key map from the name to its options (`{tiresias: {starvation_knob: 8}}`).
/// An unknown name is an error listing the kind's names from [`ALL`].
struct ByName<T>(PhantomData<T>);

impl<T: Registered> ByName<T> {
    /// The policy a program registered under `name` with `options`, if there is one.
    fn registered<E: de::Error>(name: &str, options: Value) -> Option<Result<T, E>> {
        let configured = plugin::configure(T::KIND, name, options)?;
        Some(match configured {
            Ok(options) => {
                T::from_plugin(options).ok_or_else(|| E::custom(format!("no {} can be registered", T::KIND.noun())))
            }
            Err(reason) => Err(E::custom(format!("{} `{name}`: {reason}", T::KIND.noun()))),
        })
    }

    fn only_one<'de, A: de::MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
        match map.next_key::<de::IgnoredAny>()? {
            Some(_) => Err(de::Error::custom(format!("name one {} here, not several", T::KIND.noun()))),
            None => Ok(()),
        }
    }

    fn check<E: de::Error>(name: &str) -> Result<(), E> {
        let names = T::KIND.names();
        if names.contains(&name) {
            Ok(())
        } else {
            Err(E::custom(format!("unknown {} `{name}`, expected one of {}", T::KIND.noun(), names.join(", "))))
        }
    }
}

impl<'de, T: Registered> de::Visitor<'de> for ByName<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let noun = T::KIND.noun();
        write!(f, "a {noun} name or a map from a {noun} name to its options")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<T, E> {
        if let Some(registered) = Self::registered(name, Value::Object(Default::default())) {
            return registered;
        }
        Self::check(name)?;
        let no_options = de::value::MapDeserializer::<_, E>::new(std::iter::empty::<(&str, &str)>());
        let entry = de::value::MapDeserializer::new(std::iter::once((name, no_options)));
        T::deserialize_variant(de::value::MapAccessDeserializer::new(entry))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let Some(name) = map.next_key::<String>()? else {
            return Err(de::Error::invalid_length(0, &self));
        };
        let built_in = ALL.iter().any(|info| info.kind == T::KIND && info.name == name);
        if !built_in && let Some(registered) = Self::registered(&name, map.next_value::<Value>()?) {
            let value = registered?;
            return Self::only_one(&mut map).map(|()| value);
        }
        Self::check(&name)?;
        let entry = NameFirst { name: Some(name), rest: &mut map };
        let value = T::deserialize_variant(de::value::MapAccessDeserializer::new(entry))?;
        Self::only_one(&mut map).map(|()| value)
    }
}

/// A map whose first key, already read to check it, is given again.
struct NameFirst<'a, A> {
    name: Option<String>,
    rest: &'a mut A,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for NameFirst<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        match self.name.take() {
            Some(name) => seed.deserialize(de::value::StringDeserializer::new(name)).map(Some),
            None => self.rest.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.rest.next_value_seed(seed)
    }
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

/// A job-size distribution file (a `duration` column of GPU-seconds): exactly one of `path`
/// (relative to the spec file's directory unless absolute) and `dataset` (`DATASET/PATH`, e.g.
/// `tiresias/yarn-gput1000.csv`, fetched and verified into the data cache).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "GpuTimeSourceFields")]
pub enum GpuTimeSource {
    Path(PathBuf),
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

    /// `{"path": ...}` or `{"dataset": ...}`, as written in the spec.
    pub fn canonical(&self) -> Value {
        match self {
            GpuTimeSource::Path(path) => serde_json::json!({ "path": path.to_string_lossy() }),
            GpuTimeSource::Dataset(reference) => serde_json::json!({ "dataset": reference }),
        }
    }
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
