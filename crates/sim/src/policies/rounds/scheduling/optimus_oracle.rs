//! `optimus-oracle`: SRTF order plus a progress multiplier, Blox's "Optimus".
//!
//! Rule: order as [`super::srtf`] (oracle remaining time); every running job does
//! `multiplier` seconds of work per second it runs. Blox keys its multiplier table by the
//! experiment's *load* (jobs/hour), not by the job's GPUs: the artifact-era table
//! `{1: 5, 2: 3, 3: 1.4, 4: 1.2, 5: 1.1, 6..9: 1}` is what produced Blox Figure 6, so the Fig 6
//! spec gives it as this policy's `progress_multiplier` parameter. Loads missing from the table run
//! at `default_multiplier` (1.0).
//! Source: Blox `schedulers/optimus.py` and `grpc_client_rm.py` (`optimus_scale_by_gpus`, active
//! until commit 7a8963a, commented out at HEAD, which makes Optimus crash there); the extra GPUs
//! Optimus hands out round-robin never reach placement in Blox, so they have no effect and are
//! not modelled.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §2.4.

use crate::core::policy::sort_by_priority_key;
use crate::core::{ActiveJob, JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use crate::policies::{
    BuildContext, Built, Engine, Kind, LoadTable, OptionDoc, Params, PolicyConfig, PolicyInfo, Positive, parse_options,
};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "optimus-oracle",
    kind: Kind::Scheduler,
    engine: Engine::Rounds,
    summary: "SRTF order plus a progress multiplier chosen by the run's load",
    options: &[
        OptionDoc {
            name: "progress_multiplier",
            example: "{1: 5, 2: 3, 3: 1.4}",
            meaning: "work done per second run, by load (jobs/hour); Blox Figure 6's table",
        },
        OptionDoc {
            name: "default_multiplier",
            example: "1",
            meaning: "the multiplier at loads not in the table (default 1)",
        },
    ],
    source: "Blox Optimus (schedulers/optimus.py, grpc_client_rm.py optimus_scale_by_gpus)",
    placement: None,
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
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

impl PolicyConfig for Options {
    fn params(&self) -> Params {
        let Options { progress_multiplier, default_multiplier } = self;
        Params::from([
            ("progress_multiplier", progress_multiplier.canonical()),
            ("default_multiplier", default_multiplier.0.into()),
        ])
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        let load_multiplier = ctx.load.and_then(|load| self.progress_multiplier.get(load));
        Ok(Built::Order(Box::new(OptimusOracle::new(load_multiplier.unwrap_or(self.default_multiplier.0)))))
    }
}

pub struct OptimusOracle {
    multiplier: f64,
    scratch: Vec<(bool, f64, u64, JobSlot)>,
}

impl OptimusOracle {
    pub fn new(multiplier: f64) -> Self {
        Self { multiplier, scratch: Vec::new() }
    }
}

impl Scheduler for OptimusOracle {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        sort_by_priority_key(jobs, order, &mut self.scratch, |job| job.spec.work - job.life.attained_service);
        Ok(())
    }

    fn progress_rate(&self, _job: &ActiveJob) -> f64 {
        self.multiplier
    }
}
