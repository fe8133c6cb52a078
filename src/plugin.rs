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
//! Options. Each policy names a type `O` for its options: serde reads it from the spec through
//! the same parser as a built-in's options, so errors carry the spec's line and column (a bare
//! name reads it from an empty map, so give fields `#[serde(default)]`), and its serialisation is
//! what run keys hash and the runs table's `policy_params` records, so every field it writes must
//! be documented in [`About::options`]. Run keys do not hash a policy's code: after changing it,
//! rerun with `--force`.

use crate::core::events::EventPolicy;
use crate::core::{Admission, Placement, Scheduler};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{BuildContext, Built, Engine, Kind, OptionDoc, OwnPlacement, Params, PolicyConfig, PolicyInfo};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

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
    entries: Vec<&'static PolicyInfo>,
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
        self.with(about, Kind::Scheduler, Engine::Rounds, move |options: &O, ctx| Built::Order(build(options, ctx)))
    }

    /// An event-engine policy (`engine: {mode: events}`), which makes every decision itself and
    /// places jobs its own way.
    pub fn event_scheduler<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn EventPolicy> + Send + Sync + 'static,
    {
        self.with(about, Kind::Scheduler, Engine::Events, move |options: &O, _| Built::Event(build(options)))
    }

    /// A round-engine placement.
    pub fn placement<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn Placement> + Send + Sync + 'static,
    {
        self.with(about, Kind::Placement, Engine::Rounds, move |options: &O, _| Built::Placement(build(options)))
    }

    /// A round-engine admission policy.
    pub fn admission<O, F>(self, about: About, build: F) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        F: Fn(&O) -> Box<dyn Admission> + Send + Sync + 'static,
    {
        self.with(about, Kind::Admission, Engine::Rounds, move |options: &O, _| Built::Admission(build(options)))
    }

    /// A descriptor like a built-in's, whose parser reads `O` and keeps `make` beside it.
    fn with<O, M>(mut self, about: About, kind: Kind, engine: Engine, make: M) -> Self
    where
        O: DeserializeOwned + Serialize + Send + Sync + 'static,
        M: Fn(&O, &BuildContext) -> Built + Send + Sync + 'static,
    {
        let placement = (engine == Engine::Events).then_some(OwnPlacement { name: "own", alternatives: &[] });
        let make: Arc<Make<O>> = Arc::new(make);
        let documented = about.options;
        let parse = move |node: &PolicyNode| -> Result<Box<dyn PolicyConfig>, NodeError> {
            let options = O::deserialize(node)?;
            let written = serde_json::to_value(&options)
                .map_err(|e| NodeError::new(node.at, format!("cannot record its options: {e}")))?;
            let params = params_of(documented, written).map_err(|message| NodeError::new(node.at, message))?;
            Ok(Box::new(Configured { options, params, make: make.clone() }))
        };
        let info = PolicyInfo {
            name: about.name,
            kind,
            engine,
            summary: about.summary,
            options: about.options,
            source: about.source,
            placement,
            parse: Box::leak(Box::new(parse)),
        };
        self.entries.push(Box::leak(Box::new(info)));
        self
    }
}

/// The options a policy's type wrote, as run keys hash them; every one must be documented.
fn params_of(documented: &'static [OptionDoc], written: Value) -> Result<Params, String> {
    let map = match written {
        Value::Object(map) => map,
        Value::Null => return Ok(Params::new()),
        other => return Err(format!("its options must be a map (a struct), not {other}")),
    };
    map.into_iter()
        .map(|(key, value)| match documented.iter().find(|o| o.name == key) {
            Some(doc) => Ok((doc.name, value)),
            None => Err(format!("option `{key}` is not documented in the policy's `About::options`")),
        })
        .collect()
}

/// Builds a registered policy from its options for one run.
type Make<O> = dyn Fn(&O, &BuildContext) -> Built + Send + Sync;

/// A registered policy as a spec configured it.
struct Configured<O> {
    options: O,
    params: Params,
    make: Arc<Make<O>>,
}

impl<O: Send + Sync + 'static> PolicyConfig for Configured<O> {
    fn params(&self) -> Params {
        self.params.clone()
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        Ok((self.make)(&self.options, ctx))
    }
}

/// Makes `registry`'s policies known to this process's spec parser, `blox list` and runner.
/// Once per process; [`crate::cli::main_with`] calls it. Fails on a second call, and on a name
/// that a built-in policy or another registered one of the same kind already has.
pub fn install(registry: Registry) -> Result<(), String> {
    crate::policies::registry::install(registry.entries)
}

/// Adds one policy while the process runs, for a host that learns its policies as it goes (an
/// interpreter whose user defines them, as the Python package does): `replaces` names the
/// descriptor this one succeeds (the same policy registered again with new code); any other
/// name a policy of its kind already has is refused. Specs parsed afterwards see it; a spec
/// parsed before keeps the configuration it read.
pub fn register(info: PolicyInfo, replaces: Option<&'static PolicyInfo>) -> Result<&'static PolicyInfo, String> {
    crate::policies::registry::register(info, replaces)
}
