//! `accept-all`: every arrival joins the cluster immediately.
//! Source: Blox `admission_control/accept_all.py` (config name `AcceptAll`).

use crate::core::{Admission, AdmissionContext, JobSpec};
use crate::policies::{AdmissionOptions, Kind, PolicyInfo, PolicyOptions};
use crate::spec::EngineMode;
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "accept-all",
    kind: Kind::Admission,
    engine: EngineMode::Rounds,
    summary: "admit every arrival at once",
    options: &[],
    source: "Blox AcceptAll (admission_control/accept_all.py)",
    placement: None,
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyOptions for Options {
    fn info(&self) -> &'static PolicyInfo {
        &INFO
    }
}

impl AdmissionOptions for Options {
    fn build(&self) -> Box<dyn Admission> {
        Box::new(AcceptAll)
    }
}

pub struct AcceptAll;

impl Admission for AcceptAll {
    fn admit(&mut self, _ctx: &AdmissionContext, arrivals: &mut Vec<JobSpec>, admitted: &mut Vec<JobSpec>) {
        admitted.append(arrivals);
    }
}
