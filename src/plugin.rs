//! Your own policies without forking blox: register them in a [`Registry`] from your own crate
//! and run blox's command line with it ([`crate::cli::main_with`]). A registered policy is named
//! in specs like a built-in one (`scheduler: my-las`, `{my-las: {gpu_weighted: true}}`), is
//! listed by `blox list`, and runs with every grid, table, figure and sharding feature.
//!
//! ```no_run
//! use blox::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
//! use blox::plugin::{About, Registry};
//! use serde::{Deserialize, Serialize};
//!
//! /// Fewest GPUs first: small jobs jump the queue.
//! struct FewestGpus;
//!
//! impl Scheduler for FewestGpus {
//!     fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
//!         order.sort_by_key(|&slot| (jobs[slot].spec.gpus, jobs[slot].spec.id));
//!         Ok(())
//!     }
//! }
//!
//! #[derive(Deserialize, Serialize)]
//! #[serde(deny_unknown_fields)]
//! struct NoOptions {}
//!
//! fn main() -> std::process::ExitCode {
//!     let about = About::new("fewest-gpus", "fewest GPUs first, ties by arrival");
//!     let registry = Registry::new().scheduler(about, |_: &NoOptions, _ctx| Box::new(FewestGpus));
//!     blox::cli::main_with(registry)
//! }
//! ```
//!
//! Stability: [`Registry`], [`About`] and [`crate::cli::main_with`] are the stable surface, with
//! the policy traits they take ([`crate::core::Scheduler`], [`crate::core::Placement`],
//! [`crate::core::Admission`], [`crate::core::events::EventPolicy`]) and the job and cluster
//! types those traits read. Everything else in the library may change between minor versions.
//!
//! Options. Each policy names a type `O` for its options: serde reads it from the spec (a bare
//! name reads it from an empty map, so give fields `#[serde(default)]`), and its serialisation is
//! what run keys hash and the runs table's `policy_params` records, so every field it writes must
//! be documented in [`About::options`]. Run keys do not hash a policy's code: after changing it,
//! rerun with `--force`.

use crate::core::events::EventPolicy;
use crate::core::{Admission, Placement, Scheduler};
use crate::policies::{
    AdmissionOptions, BuildContext, Kind, OptionDoc, OwnPlacement, Params, PlacementOptions, PolicyInfo, PolicyOptions,
    SchedulerOptions,
};
use crate::profiles::GpuTimeDistribution;
use crate::spec::EngineMode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// What `blox list` and spec errors say about a registered policy.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// The name specs use; unique within its kind, built-ins included.
    pub name: &'static str,
    /// One line for `blox list`.
    pub summary: &'static str,
    /// What it reproduces or where it comes from.
    pub source: &'static str,
    /// Every option its options type reads and writes, with an example value each.
    pub options: &'static [OptionDoc],
}

impl About {
    /// A policy without options, its source "registered by the program running blox".
    pub const fn new(name: &'static str, summary: &'static str) -> Self {
        Self { name, summary, source: "registered by the program running blox", options: &[] }
    }

    pub const fn source(self, source: &'static str) -> Self {
        Self { source, ..self }
    }

    pub const fn options(self, options: &'static [OptionDoc]) -> Self {
        Self { options, ..self }
    }
}

/// The policies a program adds to blox's own. Build it with the kind methods, then hand it to
/// [`crate::cli::main_with`] (or [`install`] it before using the library directly).
#[derive(Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// A round-engine scheduler: `build` makes one per run from its options and the run's context.
    pub fn scheduler<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O, &BuildContext) -> Box<dyn Scheduler> + Send + Sync + 'static,
    {
        let build = Arc::new(build);
        self.with(about, Kind::Scheduler, EngineMode::Rounds, move |options: O| {
            let build = build.clone();
            Make::Scheduler(Arc::new(move |ctx| build(&options, ctx)))
        })
    }

    /// An event-engine policy (`engine: {mode: events}`), which makes every decision itself and
    /// places jobs its own way.
    pub fn event_scheduler<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn EventPolicy> + Send + Sync + 'static,
    {
        let build = Arc::new(build);
        self.with(about, Kind::Scheduler, EngineMode::Events, move |options: O| {
            let build = build.clone();
            Make::EventScheduler(Arc::new(move || build(&options)))
        })
    }

    /// A round-engine placement.
    pub fn placement<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn Placement> + Send + Sync + 'static,
    {
        let build = Arc::new(build);
        self.with(about, Kind::Placement, EngineMode::Rounds, move |options: O| {
            let build = build.clone();
            Make::Placement(Arc::new(move || build(&options)))
        })
    }

    /// A round-engine admission policy.
    pub fn admission<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn Admission> + Send + Sync + 'static,
    {
        let build = Arc::new(build);
        self.with(about, Kind::Admission, EngineMode::Rounds, move |options: O| {
            let build = build.clone();
            Make::Admission(Arc::new(move || build(&options)))
        })
    }

    fn with<O, M>(mut self, about: About, kind: Kind, engine: EngineMode, make: M) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        M: Fn(O) -> Make + Send + Sync + 'static,
    {
        let placement = (engine == EngineMode::Events).then_some(OwnPlacement { name: "own", alternatives: &[] });
        let info = PolicyInfo {
            name: about.name,
            kind,
            engine,
            summary: about.summary,
            options: about.options,
            source: about.source,
            placement,
        };
        let parse = move |info: &'static PolicyInfo, value: Value| -> Result<(Params, Make), String> {
            let options: O = serde_json::from_value(value).map_err(|e| e.to_string())?;
            let written = serde_json::to_value(&options).map_err(|e| format!("cannot record its options: {e}"))?;
            Ok((params_of(info, written)?, make(options)))
        };
        self.entries.push(Entry { info: Box::leak(Box::new(info)), parse: Box::new(parse) });
        self
    }
}

/// The options a policy's type wrote, as run keys hash them; every one must be documented.
fn params_of(info: &'static PolicyInfo, written: Value) -> Result<Params, String> {
    let map = match written {
        Value::Object(map) => map,
        Value::Null => return Ok(Params::new()),
        other => return Err(format!("its options must be a map (a struct), not {other}")),
    };
    map.into_iter()
        .map(|(key, value)| match info.options.iter().find(|o| o.name == key) {
            Some(doc) => Ok((doc.name, value)),
            None => Err(format!("option `{key}` is not documented in the policy's `About::options`")),
        })
        .collect()
}

/// Builds a round scheduler for a run's context.
type MakeScheduler = dyn Fn(&BuildContext) -> Box<dyn Scheduler> + Send + Sync;

/// A policy built from parsed options, once per run.
#[derive(Clone)]
enum Make {
    Scheduler(Arc<MakeScheduler>),
    EventScheduler(Arc<dyn Fn() -> Box<dyn EventPolicy> + Send + Sync>),
    Placement(Arc<dyn Fn() -> Box<dyn Placement> + Send + Sync>),
    Admission(Arc<dyn Fn() -> Box<dyn Admission> + Send + Sync>),
}

type Parse = dyn Fn(&'static PolicyInfo, Value) -> Result<(Params, Make), String> + Send + Sync;

struct Entry {
    info: &'static PolicyInfo,
    parse: Box<Parse>,
}

static INSTALLED: OnceLock<Vec<Entry>> = OnceLock::new();

/// Makes `registry`'s policies known to this process's spec parser, `blox list` and runner.
/// Once per process; [`crate::cli::main_with`] calls it. Fails on a second call, and on a name
/// that a built-in policy or another registered one of the same kind already has.
pub fn install(registry: Registry) -> Result<(), String> {
    let mut seen: Vec<(Kind, &str)> = crate::policies::ALL.iter().map(|info| (info.kind, info.name)).collect();
    for entry in &registry.entries {
        let (kind, name) = (entry.info.kind, entry.info.name);
        if seen.contains(&(kind, name)) {
            return Err(format!("cannot register {} `{name}`: a {} of that name exists", kind.noun(), kind.noun()));
        }
        seen.push((kind, name));
    }
    INSTALLED.set(registry.entries).map_err(|_| "policies were already registered in this process".to_string())
}

/// The registered policies' descriptors, in registration order.
pub(crate) fn registered() -> impl Iterator<Item = &'static PolicyInfo> {
    INSTALLED.get().into_iter().flatten().map(|entry| entry.info)
}

/// A registered policy of `kind` named `name`, configured by `options` (a map; empty for a bare
/// name). `None` when no such policy is registered.
pub(crate) fn configure(kind: Kind, name: &str, options: Value) -> Option<Result<PluginOptions, String>> {
    let entry = INSTALLED.get()?.iter().find(|e| e.info.kind == kind && e.info.name == name)?;
    Some((entry.parse)(entry.info, options).map(|(params, make)| PluginOptions { info: entry.info, params, make }))
}

/// A registered policy as a spec configured it.
#[derive(Clone)]
pub struct PluginOptions {
    info: &'static PolicyInfo,
    params: Params,
    make: Make,
}

impl PartialEq for PluginOptions {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.info, other.info) && self.params == other.params
    }
}

impl fmt::Debug for PluginOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginOptions").field("name", &self.info.name).field("params", &self.params).finish()
    }
}

impl PolicyOptions for PluginOptions {
    fn info(&self) -> &'static PolicyInfo {
        self.info
    }

    fn params(&self) -> Params {
        self.params.clone()
    }
}

impl SchedulerOptions for PluginOptions {
    fn build(&self, ctx: &BuildContext) -> Option<Box<dyn Scheduler>> {
        match &self.make {
            Make::Scheduler(make) => Some(make(ctx)),
            _ => None,
        }
    }

    fn build_event(&self, _gpu_time: Option<&GpuTimeDistribution>) -> Option<Box<dyn EventPolicy>> {
        match &self.make {
            Make::EventScheduler(make) => Some(make()),
            _ => None,
        }
    }
}

impl PlacementOptions for PluginOptions {
    fn build(&self) -> Option<Box<dyn Placement>> {
        match &self.make {
            Make::Placement(make) => Some(make()),
            _ => None,
        }
    }
}

impl AdmissionOptions for PluginOptions {
    fn build(&self) -> Box<dyn Admission> {
        match &self.make {
            Make::Admission(make) => make(),
            // Only `Registry::admission` registers admissions, and it always builds this variant.
            _ => unreachable!("a registered admission builds an admission"),
        }
    }
}
