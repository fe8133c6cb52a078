//! The registry: what every policy declares about itself, the one parser that reads a policy
//! from a spec, and the one way a run builds it.
//!
//! A policy is its file plus one line in [`super::ALL`]. The file declares `INFO`, a
//! [`PolicyInfo`] (name, kind, engine, summary, options, source, and `parse`, which reads its
//! options type through [`parse_options`]), and implements [`PolicyConfig`] for its options:
//! the canonical parameters run keys hash, the files it reads ([`PolicyInput`]), and `build`,
//! which returns the policy for its engine ([`Built`]) or says why it cannot. Policies a program
//! registers (blox's `plugin` module; [`install`], [`register`]) are descriptors of the same type, found by the same lookup and
//! read by the same parser, so a registered policy and a built-in one differ only in where
//! their descriptor is listed.

use super::node::{self, NodeError, NodeValue, PolicyNode, Position};
use crate::core::events::{EventPlacement, EventPolicy};
use crate::core::placements::ScorePolicy;
use crate::core::{Admission, ClusterSpec, OverheadModel, Placement, RoundPolicy, Scheduler};
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The engine a policy runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Decisions at round boundaries (Blox, Gavel, Synergy); live mode runs these too.
    Rounds,
    /// Decisions at arrivals, planned ends and policy-chosen instants (ElasticFlow's family,
    /// Muri).
    Events,
    /// Placement experiments without time: requests offered one at a time, each placed where
    /// the policy scores best or failed, nothing departs (FGD's family).
    Placements,
}

impl Engine {
    /// Its name as `engine.mode` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Rounds => "rounds",
            Engine::Events => "events",
            Engine::Placements => "placements",
        }
    }
}

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

    /// The names of this kind's policies, in [`Kind::policies`] order.
    pub fn names(self) -> Vec<&'static str> {
        self.policies().map(|info| info.name).collect()
    }

    /// This kind's descriptors: the built-ins in [`super::ALL`] order, then the registered ones.
    pub fn policies(self) -> impl Iterator<Item = &'static PolicyInfo> {
        all().filter(move |info| info.kind == self)
    }

    /// The policy of this kind named `name`, built-in or registered.
    pub fn find(self, name: &str) -> Option<&'static PolicyInfo> {
        self.policies().find(|info| info.name == name)
    }
}

/// Every descriptor: the built-ins, then those a program registered ([`install`], [`register`]).
pub fn all() -> impl Iterator<Item = &'static PolicyInfo> {
    super::ALL.iter().copied().chain(registered())
}

/// The built-ins, then `registered`: [`all`] for the registry while it holds its own lock.
fn all_with<'a>(registered: &'a [&'static PolicyInfo]) -> impl Iterator<Item = &'static PolicyInfo> + 'a {
    super::ALL.iter().copied().chain(registered.iter().copied())
}

/// Reads a policy's options from the spec; `&parse_options::<Options>` for a built-in.
pub type Parse = &'static (dyn Fn(&PolicyNode) -> Result<Box<dyn PolicyConfig>, NodeError> + Sync);

/// The [`Parse`] of a policy whose options type is `O`.
pub fn parse_options<O: PolicyConfig + DeserializeOwned>(
    node: &PolicyNode,
) -> Result<Box<dyn PolicyConfig>, NodeError> {
    O::deserialize(node).map(|options| Box::new(options) as Box<dyn PolicyConfig>)
}

/// The [`Parse`] of a policy that takes no options (`parse: &|node| without_options(node, ||
/// Built::Order(Box::new(Fifo::default())))`): any option given is an error at its key, and
/// `build` makes the policy afresh for every run.
pub fn without_options(node: &PolicyNode, build: fn() -> Built) -> Result<Box<dyn PolicyConfig>, NodeError> {
    NoOptions::deserialize(node)?;
    Ok(Box::new(Builder(build)))
}

/// The options of a policy that has none.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoOptions {}

/// A policy without options: its run's constructor.
struct Builder(fn() -> Built);

impl PolicyConfig for Builder {
    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok((self.0)())
    }
}

/// A policy's descriptor: what the registry, the spec checks and `blox list` know of it.
pub struct PolicyInfo {
    /// The name specs use (`scheduler: fifo`), unique within its kind.
    pub name: &'static str,
    pub kind: Kind,
    /// The engine it runs on, which `engine.mode` must name.
    pub engine: Engine,
    /// One line for `blox list`.
    pub summary: &'static str,
    /// The options a spec may give (`{name: {option: value}}`); empty when it takes none.
    pub options: &'static [OptionDoc],
    /// What it reproduces.
    pub source: &'static str,
    /// Event-engine schedulers: the placement they bring. `None` for every other policy.
    pub placement: Option<OwnPlacement>,
    /// Reads its options.
    pub parse: Parse,
}

impl fmt::Debug for PolicyInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyInfo").field("name", &self.name).field("kind", &self.kind).finish_non_exhaustive()
    }
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

/// A policy as a spec configured it: each policy file implements it for its `Options`.
pub trait PolicyConfig: Send + Sync + 'static {
    /// Every option that decides a run; a test checks that each documented option appears.
    fn params(&self) -> Params {
        Params::new()
    }

    /// The files the policy reads besides its options. The runner reads each once per sweep,
    /// hashes it into the run keys of the runs that use it and hands it parsed to `build`
    /// ([`BuildContext::input`]); `blox validate` fetches and parses them before any run.
    fn inputs(&self) -> Vec<PolicyInput> {
        Vec::new()
    }

    /// Why the policy cannot run on `cluster`, if it cannot (Synergy's policies need CPUs and
    /// memory per node); spec validation reports it at the policy.
    fn check_cluster(&self, _cluster: &ClusterSpec) -> Result<(), String> {
        Ok(())
    }

    /// The policy for one run, for the engine its descriptor names.
    fn build(&self, ctx: &BuildContext) -> Result<Built, String>;
}

/// A policy built for one run.
pub enum Built {
    /// A round-engine scheduler's order, which the run's placement then follows.
    Order(Box<dyn Scheduler>),
    /// A round-engine scheduler that decides whole rounds, its own placement included.
    Round(Box<dyn RoundPolicy>),
    /// An event-engine scheduler, which makes every decision itself.
    Event(Box<dyn EventPolicy>),
    /// A round-engine placement.
    Placement(Box<dyn Placement>),
    /// An event-engine placement, taken instead of the scheduler's own.
    EventPlacement(EventPlacement),
    Admission(Box<dyn Admission>),
    /// A launch overhead model; `None` when launches cost nothing.
    Overhead(Option<Box<dyn OverheadModel>>),
    /// A placement-engine score policy.
    Score(Box<dyn ScorePolicy>),
}

impl Built {
    fn what(&self) -> &'static str {
        match self {
            Built::Order(_) => "a round-engine order",
            Built::Round(_) => "a round decision",
            Built::Event(_) => "an event-engine scheduler",
            Built::Placement(_) => "a round-engine placement",
            Built::EventPlacement(_) => "an event-engine placement",
            Built::Admission(_) => "an admission policy",
            Built::Overhead(_) => "an overhead model",
            Built::Score(_) => "a placement-engine score policy",
        }
    }
}

/// What a policy may depend on besides its own options.
#[derive(Clone, Copy)]
pub struct BuildContext<'a> {
    /// The run's offered load in jobs per hour, when the workload has one.
    pub load: Option<f64>,
    /// The spec file's directory, against which options' relative paths resolve.
    pub base_dir: &'a Path,
    pub round_seconds: f64,
    pub cluster: &'a ClusterSpec,
    /// The grid point's seed, for policies that draw random numbers.
    pub seed: u64,
    /// The files policies declared ([`PolicyConfig::inputs`]), read by the caller.
    pub inputs: &'a dyn InputReader,
}

impl BuildContext<'_> {
    /// `input` as its `parse` made it (the caller reads each file once per sweep).
    pub fn input<T: Any + Send + Sync>(&self, input: &PolicyInput) -> Result<Arc<T>, String> {
        let parsed: Arc<dyn Any + Send + Sync> = self.inputs.read(input)?;
        parsed
            .downcast::<T>()
            .map_err(|_| format!("{} ({}) was read as another type", input.what, input.source.describe()))
    }
}

/// Reads the files policies declare: the runner's, which reads each once per sweep, or one
/// that has none.
pub trait InputReader: Sync {
    /// `input` parsed by its `parse`; an error names the file.
    fn read(&self, input: &PolicyInput) -> Result<ParsedInput, String>;
}

/// An [`InputReader`] for policies that read no file: any read is an error.
pub struct NoInputs;

impl InputReader for NoInputs {
    fn read(&self, input: &PolicyInput) -> Result<ParsedInput, String> {
        Err(format!("{} ({}) is not available here", input.what, input.source.describe()))
    }
}

/// A file or folder a policy reads besides its options.
#[derive(Debug, Clone)]
pub struct PolicyInput {
    /// What the policy calls it, in messages ("GPU-time distribution").
    pub what: &'static str,
    pub source: InputSource,
    /// Reads the contents (no I/O: the runner hands it the bytes); `None` for a file only the
    /// policy's own program reads (an external policy's script), which run keys hash all the
    /// same.
    pub parse: Option<InputParser>,
    /// An argument of the policy's program that may or may not name a file: hashed when it names
    /// an existing file, ignored otherwise. Any other input must exist.
    pub only_if_a_file: bool,
}

/// How an input's contents become what the policy uses, and so whether it is one file or a
/// folder of them.
#[derive(Debug, Clone, Copy)]
pub enum InputParser {
    /// One file: a `path` to a file or a `dataset: DATASET/PATH`.
    File(ParseInput),
    /// A set of files read together (a profile per model, ...): a `path` to a local directory
    /// (every file under it, hidden ones left out) or a `dataset` folder (`DATASET` for all its
    /// files, `DATASET/PREFIX/` for those under `PREFIX/`).
    Folder(ParseFolder),
}

/// Reads one file's bytes (and its name, for messages) into what the policy uses.
pub type ParseInput = fn(bytes: &[u8], name: &str) -> Result<ParsedInput, String>;

/// Reads a folder's files, given as (path relative to the folder with `/` separators, bytes) in
/// path order, and the folder's name for messages.
pub type ParseFolder = fn(files: &[(String, Vec<u8>)], name: &str) -> Result<ParsedInput, String>;

pub use crate::core::input::{InputData, ParsedInput};

/// Where an input comes from, as a spec names it: exactly one of `path` (relative to the spec
/// file's directory unless absolute) and `dataset` (`DATASET/PATH`, e.g.
/// `tiresias/yarn-gput1000.csv`, fetched and verified into the data cache by `blox data`; for a
/// folder input, `DATASET` or `DATASET/PREFIX/`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(try_from = "InputSourceFields")]
pub enum InputSource {
    Path(PathBuf),
    Dataset(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InputSourceFields {
    #[serde(default)]
    path: Option<PathBuf>,
    #[serde(default)]
    dataset: Option<String>,
}

impl TryFrom<InputSourceFields> for InputSource {
    type Error = String;
    fn try_from(f: InputSourceFields) -> Result<Self, String> {
        match (f.path, f.dataset) {
            (Some(path), None) => Ok(InputSource::Path(path)),
            (None, Some(dataset)) => Ok(InputSource::Dataset(dataset)),
            _ => Err(
                "a file needs exactly one of `path` (a local file) and `dataset` (e.g. `tiresias/yarn-gput1000.csv`)"
                    .into(),
            ),
        }
    }
}

impl InputSource {
    /// `{"path": ...}` or `{"dataset": ...}`, as written in the spec.
    pub fn canonical(&self) -> Value {
        match self {
            InputSource::Path(path) => serde_json::json!({ "path": path.to_string_lossy() }),
            InputSource::Dataset(reference) => serde_json::json!({ "dataset": reference }),
        }
    }

    /// As a user reads it: the path, or `dataset NAME/PATH`.
    pub fn describe(&self) -> String {
        match self {
            InputSource::Path(path) => path.display().to_string(),
            InputSource::Dataset(reference) => format!("dataset {reference}"),
        }
    }
}

/// Kinds of policies as types, so that a spec field says which kind it names.
pub trait KindOf: 'static {
    const KIND: Kind;
}

/// A scheduler (`policies[].scheduler`).
#[derive(Debug)]
pub enum SchedulerKind {}
/// A placement (`policies[].placement`).
#[derive(Debug)]
pub enum PlacementKind {}
/// An admission policy (`policies[].admission`).
#[derive(Debug)]
pub enum AdmissionKind {}
/// A launch overhead model (`engine.overhead`).
#[derive(Debug)]
pub enum OverheadKind {}

impl KindOf for SchedulerKind {
    const KIND: Kind = Kind::Scheduler;
}
impl KindOf for PlacementKind {
    const KIND: Kind = Kind::Placement;
}
impl KindOf for AdmissionKind {
    const KIND: Kind = Kind::Admission;
}
impl KindOf for OverheadKind {
    const KIND: Kind = Kind::Overhead;
}

/// A policy of kind `K` as a spec chose it: its descriptor and its configured options.
pub struct Chosen<K> {
    info: &'static PolicyInfo,
    config: Arc<dyn PolicyConfig>,
    kind: PhantomData<K>,
}

pub type SchedulerSpec = Chosen<SchedulerKind>;
pub type PlacementSpec = Chosen<PlacementKind>;
pub type AdmissionSpec = Chosen<AdmissionKind>;
pub type OverheadSpec = Chosen<OverheadKind>;

impl<K> Clone for Chosen<K> {
    fn clone(&self) -> Self {
        Self { info: self.info, config: self.config.clone(), kind: PhantomData }
    }
}

/// The same policy with the same options. Descriptors are compared by name, not address: a
/// `const` referenced twice may live at two addresses.
impl<K> PartialEq for Chosen<K> {
    fn eq(&self, other: &Self) -> bool {
        self.info.name == other.info.name && self.config.params() == other.config.params()
    }
}

impl<K: KindOf> fmt::Debug for Chosen<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.canonical())
    }
}

impl<K: KindOf> Chosen<K> {
    /// The policy `info` with its default options (what a bare name gives).
    pub fn named(info: &'static PolicyInfo) -> Self {
        debug_assert_eq!(info.kind, K::KIND, "{} is not a {}", info.name, K::KIND.noun());
        let config = (info.parse)(&PolicyNode::empty_map(Position::default()))
            .unwrap_or_else(|e| panic!("{} has no default options: {}", info.name, e.message));
        Self { info, config: config.into(), kind: PhantomData }
    }

    /// Reads a policy from the spec: a bare name (`tiresias`, the policy with its default
    /// options) or a one-key mapping from the name to its options
    /// (`{tiresias: {starvation_knob: 8}}`). An unknown name lists the kind's names.
    pub fn from_node(node: &PolicyNode) -> Result<Self, NodeError> {
        let noun = K::KIND.noun();
        let (name, options) = match &node.value {
            NodeValue::Str(_) => (node, None),
            NodeValue::Map(entries) if entries.len() == 1 => (&entries[0].0, Some(&entries[0].1)),
            NodeValue::Map(entries) if entries.len() > 1 => {
                return Err(NodeError::new(entries[1].0.at, format!("name one {noun} here, not several")));
            }
            _ => {
                return Err(NodeError::new(
                    node.at,
                    format!("expected a {noun} name or a mapping from a {noun} name to its options"),
                ));
            }
        };
        let NodeValue::Str(text) = &name.value else {
            return Err(NodeError::new(name.at, format!("expected a {noun} name")));
        };
        let Some(info) = K::KIND.find(text) else {
            let message = format!("unknown {noun} `{text}`, expected one of {}", K::KIND.names().join(", "));
            return Err(NodeError::new(name.at, message));
        };
        let config = match options {
            None => (info.parse)(&PolicyNode::empty_map(name.at)),
            Some(PolicyNode { value: NodeValue::Null, at }) => (info.parse)(&PolicyNode::empty_map(*at)),
            Some(options) => (info.parse)(options),
        }
        .map_err(|e| NodeError { message: format!("{noun} `{text}`: {}", e.message), ..e })?;
        Ok(Self { info, config: config.into(), kind: PhantomData })
    }

    pub fn info(&self) -> &'static PolicyInfo {
        self.info
    }

    pub fn name(&self) -> &'static str {
        self.info.name
    }

    pub fn config(&self) -> &dyn PolicyConfig {
        &*self.config
    }

    pub fn params(&self) -> Params {
        self.config.params()
    }

    /// The policy as run keys hash it and the runs table's `policy_params` records it: its
    /// name, or a one-key map from its name to its [`Params`] when it has any. Built from the
    /// descriptor, not from a type's serialisation, so renaming a type changes no key.
    pub fn canonical(&self) -> Value {
        let params = self.config.params();
        if params.is_empty() {
            return Value::from(self.info.name);
        }
        let params = params.into_iter().map(|(option, value)| (option.to_string(), value)).collect();
        Value::Object([(self.info.name.to_string(), Value::Object(params))].into_iter().collect())
    }

    pub fn inputs(&self) -> Vec<PolicyInput> {
        self.config.inputs()
    }

    pub fn check_cluster(&self, cluster: &ClusterSpec) -> Result<(), String> {
        self.config.check_cluster(cluster)
    }

    /// The policy for one run.
    pub fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        self.config.build(ctx).map_err(|e| format!("{} `{}`: {e}", K::KIND.noun(), self.info.name))
    }

    /// What `build` made was not what its kind and engine promise: a descriptor that
    /// contradicts its own policy, which the registry's tests rule out for built-ins.
    fn wrong(&self, built: &Built, wanted: &str) -> String {
        format!("{} `{}` built {} where {wanted} was needed", K::KIND.noun(), self.info.name, built.what())
    }
}

impl<'de, K: KindOf> Deserialize<'de> for Chosen<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let node = PolicyNode::deserialize(d)?;
        Self::from_node(&node).map_err(|e| {
            node::record(&e);
            de::Error::custom(e.message)
        })
    }
}

impl SchedulerSpec {
    /// The round engine's decision: the scheduler's own, or its order followed by `placement`.
    pub fn build_round(&self, ctx: &BuildContext, placement: &PlacementSpec) -> Result<Box<dyn RoundPolicy>, String> {
        match self.build(ctx)? {
            Built::Round(decision) => Ok(decision),
            Built::Order(scheduler) => match placement.build(ctx)? {
                Built::Placement(placement) => Ok(Box::new(crate::core::OrderThenPlace { scheduler, placement })),
                other => Err(placement.wrong(&other, "a round-engine placement")),
            },
            other => Err(self.wrong(&other, "a round-engine scheduler")),
        }
    }

    /// The placement engine's score policy.
    pub fn build_score(&self, ctx: &BuildContext) -> Result<Box<dyn ScorePolicy>, String> {
        match self.build(ctx)? {
            Built::Score(policy) => Ok(policy),
            other => Err(self.wrong(&other, "a placement-engine score policy")),
        }
    }

    /// The event engine's policy.
    pub fn build_event(&self, ctx: &BuildContext) -> Result<Box<dyn EventPolicy>, String> {
        match self.build(ctx)? {
            Built::Event(policy) => Ok(policy),
            other => Err(self.wrong(&other, "an event-engine scheduler")),
        }
    }
}

impl PlacementSpec {
    /// The event engine's placement when the spec gives one instead of the scheduler's own.
    pub fn build_event_placement(&self, ctx: &BuildContext) -> Result<Option<EventPlacement>, String> {
        if self.info.engine != Engine::Events {
            return Ok(None);
        }
        match self.build(ctx)? {
            Built::EventPlacement(placement) => Ok(Some(placement)),
            other => Err(self.wrong(&other, "an event-engine placement")),
        }
    }
}

impl AdmissionSpec {
    pub fn build_admission(&self, ctx: &BuildContext) -> Result<Box<dyn Admission>, String> {
        match self.build(ctx)? {
            Built::Admission(admission) => Ok(admission),
            other => Err(self.wrong(&other, "an admission policy")),
        }
    }
}

impl OverheadSpec {
    /// The launch overhead model; `None` when launches cost nothing.
    pub fn build_overhead(&self, ctx: &BuildContext) -> Result<Option<Box<dyn OverheadModel>>, String> {
        match self.build(ctx)? {
            Built::Overhead(model) => Ok(model),
            other => Err(self.wrong(&other, "an overhead model")),
        }
    }
}

/// Blox's placement. The event engine reads it as "the scheduler's own".
impl Default for PlacementSpec {
    fn default() -> Self {
        Self::named(&super::rounds::placement::scattered::INFO)
    }
}

/// Blox's default: every arrival enters.
impl Default for AdmissionSpec {
    fn default() -> Self {
        Self::named(&super::rounds::admission::accept_all::INFO)
    }
}

/// Blox's simulator: launches are free.
impl Default for OverheadSpec {
    fn default() -> Self {
        Self::named(&super::rounds::overhead::none::INFO)
    }
}

/// The registered descriptors, and whether [`install`] ran (it may run once per process).
static REGISTERED: RwLock<Registered> = RwLock::new(Registered { installed: false, entries: Vec::new() });

struct Registered {
    installed: bool,
    entries: Vec<&'static PolicyInfo>,
}

/// Makes `entries` known to this process's spec parser, `blox list` and runner.
/// Once per process; blox's `plugin::install` calls it. Fails on a second call, and on a name
/// that a built-in policy or another registered one of the same kind already has.
pub fn install(entries: Vec<&'static PolicyInfo>) -> Result<(), String> {
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if registered.installed {
        return Err("policies were already registered in this process".to_string());
    }
    let mut seen: Vec<(Kind, &str)> = all_with(&registered.entries).map(|info| (info.kind, info.name)).collect();
    for info in &entries {
        let (kind, name) = (info.kind, info.name);
        if seen.contains(&(kind, name)) {
            return Err(format!("cannot register {} `{name}`: a {} of that name exists", kind.noun(), kind.noun()));
        }
        seen.push((kind, name));
    }
    registered.installed = true;
    registered.entries.extend(entries);
    Ok(())
}

/// Adds one policy while the process runs, for a host that learns its policies as it goes (an
/// interpreter whose user defines them, as the Python package does): `replaces` names the
/// descriptor this one succeeds (the same policy registered again with new code); any other
/// name a policy of its kind already has is refused. Specs parsed afterwards see it; a spec
/// parsed before keeps the configuration it read.
pub fn register(info: PolicyInfo, replaces: Option<&'static PolicyInfo>) -> Result<&'static PolicyInfo, String> {
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    let clash = all_with(&registered.entries)
        .find(|other| other.kind == info.kind && other.name == info.name)
        .filter(|other| !replaces.is_some_and(|old| std::ptr::eq(*other, old)));
    if clash.is_some() {
        let noun = info.kind.noun();
        return Err(format!("cannot register {noun} `{}`: a {noun} of that name exists", info.name));
    }
    let info: &'static PolicyInfo = Box::leak(Box::new(info));
    match registered.entries.iter_mut().find(|entry| replaces.is_some_and(|old| std::ptr::eq(**entry, old))) {
        Some(entry) => *entry = info,
        None => registered.entries.push(info),
    }
    Ok(info)
}

/// The registered policies' descriptors, in registration order.
fn registered() -> Vec<&'static PolicyInfo> {
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).entries.clone()
}
