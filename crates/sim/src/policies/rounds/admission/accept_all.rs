//! `accept-all`: every arrival joins the cluster immediately.
//! Source: Blox `admission_control/accept_all.py` (config name `AcceptAll`).
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §4.1.

use crate::core::{Admission, AdmissionContext, JobSpec};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "accept-all",
    kind: Kind::Admission,
    engine: Engine::Rounds,
    summary: "admit every arrival at once",
    options: &[],
    source: "Blox AcceptAll (admission_control/accept_all.py)",
    placement: None,
    parse: &|node| without_options(node, || Built::Admission(Box::new(AcceptAll))),
};

pub struct AcceptAll;

impl Admission for AcceptAll {
    fn admit(&mut self, _ctx: &AdmissionContext, arrivals: &mut Vec<JobSpec>, admitted: &mut Vec<JobSpec>) {
        admitted.append(arrivals);
    }
}
